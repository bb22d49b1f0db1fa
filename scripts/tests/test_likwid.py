# SPDX-License-Identifier: BSD-2-Clause
"""Tests of the runner's likwid path (experiments.py run --likwid, scripts/runner/nrlikwid.py).

likwid-perfctr needs a PMU and uncore access that the development machines
lack, so a fake likwid-perfctr on PATH stands in for it: it lists groups as
`likwid-perfctr -a` does, and prints its tables in likwid's CSV format (-O,
as likwid 5.2's likwid.lua printOutput writes them: rows are events or
metrics, one column per CPU, every line padded with commas). The real
harness runs under it. What is checked: the group chosen, the parse of the
region's metric table into bytes per item in the tidy CSV, and the
"unavailable" paths, each one line, the sweep run all the same.
"""

import glob
import json
import os
import shutil
import sys
import tempfile
import textwrap
import unittest

from scripts.analysis import nrdata
from scripts.runner import nrlikwid
from scripts.tests.test_experiments import BENCH, run, tidy_rows
from scripts.tests import slow

TESTS = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(TESTS)


# likwid-perfctr -a on an Ice Lake SP VM (abridged), as printed
LISTING = """    Group name\tDescription
--------------------------------------------------------------------------------
        MEM_SP\tOverview of arithmetic and main memory performance
         CLOCK\tPower and Energy consumption
            L3\tL3 cache bandwidth in MBytes/s
          DATA\tLoad to store ratio
           UPI\tUPI data traffic
        DIVIDE\tDivide unit information
"""

# likwid-perfctr -c 0,1 -g UPI -m -O on two CPUs of two sockets: region
# "window"; the uncore counts appear on each socket's first listed CPU
REGION_CSV = """STRUCT,Info,3,,,
CPU name:,Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz,,,,
CPU type:,Intel Icelake SP processor,,,,
CPU clock:,2.0 GHz,,,,
TABLE,Region window,Group 1 Raw,UPI,9,
Region Info,HWThread 0,HWThread 32,,,
RDTSC Runtime [s],0.500213,0.500198,,,
call count,1,1,,,
Event,Counter,HWThread 0,HWThread 32,,
INSTR_RETIRED_ANY,FIXC0,812345678,798765432,,
CPU_CLK_UNHALTED_CORE,FIXC1,1000234567,1000123456,,
CPU_CLK_UNHALTED_REF,FIXC2,1000000000,1000000000,,
TXL_FLITS_ALL_DATA,QBOX0C0,35156250,17578125,,
RXL_FLITS_ALL_DATA,QBOX0C1,17578125,35156250,,
TXL_FLITS_ALL_DATA,QBOX1C0,0,0,,
RXL_FLITS_ALL_DATA,QBOX1C1,0,0,,
TXL_FLITS_ALL_DATA,QBOX2C0,0,0,,
RXL_FLITS_ALL_DATA,QBOX2C1,0,0,,
TABLE,Region window,Group 1 Raw STAT,UPI,9,
Event,Counter,Sum,Min,Max,Avg
INSTR_RETIRED_ANY STAT,FIXC0,1611111110,798765432,812345678,805555555
CPU_CLK_UNHALTED_CORE STAT,FIXC1,2000358023,1000123456,1000234567,1000179011.5000
CPU_CLK_UNHALTED_REF STAT,FIXC2,2000000000,1000000000,1000000000,1000000000
TXL_FLITS_ALL_DATA STAT,QBOX0C0,52734375,17578125,35156250,26367187.5000
RXL_FLITS_ALL_DATA STAT,QBOX0C1,52734375,17578125,35156250,26367187.5000
TXL_FLITS_ALL_DATA STAT,QBOX1C0,0,0,0,0
RXL_FLITS_ALL_DATA STAT,QBOX1C1,0,0,0,0
TXL_FLITS_ALL_DATA STAT,QBOX2C0,0,0,0,0
RXL_FLITS_ALL_DATA STAT,QBOX2C1,0,0,0,0
TABLE,Region window,Group 1 Metric,UPI,10,
Metric,HWThread 0,HWThread 32,,,
Runtime (RDTSC) [s],0.5002,0.5002,,,
Runtime unhalted [s],0.5001,0.5001,,,
Clock [MHz],2000.4691,2000.2469,,,
CPI,1.2313,1.2521,,,
Received data bandwidth [MByte/s],249.8935,499.7870,,,
Received data volume [GByte],0.1250,0.2500,,,
Sent data bandwidth [MByte/s],499.7870,249.8935,,,
Sent data volume [GByte],0.5000,0.2500,,,
Total data bandwidth [MByte/s],749.6805,749.6805,,,
Total data volume [GByte],0.6250,0.5000,,,
TABLE,Region window,Group 1 Metric STAT,UPI,10,
Metric,Sum,Min,Max,Avg,
Runtime (RDTSC) [s] STAT,1.0004,0.5002,0.5002,0.5002,
Sent data volume [GByte] STAT,0.7500,0.2500,0.5000,0.3750,
Total data volume [GByte] STAT,1.1250,0.5000,0.6250,0.5625,
"""
SENT_BYTES = 0.75e9  # 0.5 + 0.25 GByte sent


def fake_likwid(folder, trial_fails=None):
    """A likwid-perfctr in folder: -a lists LISTING; `-c C -g G -O true`
    prints a table without region (or fails with trial_fails on stderr);
    `-c L -g G -m -O CMD...` runs CMD and prints REGION_CSV."""
    path = os.path.join(folder, "likwid-perfctr")
    with open(path, "w") as f:
        f.write(textwrap.dedent(f"""\
            #!{sys.executable}
            import subprocess, sys
            args = sys.argv[1:]
            if args == ["-a"]:
                sys.stdout.write({LISTING!r})
                sys.exit(0)
            while args and args[0] in ("-c", "-g", "-m", "-O"):
                args = args[2:] if args[0] in ("-c", "-g") else args[1:]
            print("-" * 80)
            print("CPU name:\\tIntel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz")
            if args == ["true"]:
                fail = {trial_fails!r}
                if fail:
                    print(fail, file=sys.stderr)
                    sys.exit(1)
                print("STRUCT,Info,3,,,")
                print("TABLE,Group 1 Raw,UPI,9,,")
                sys.exit(0)
            rc = subprocess.run(args).returncode
            if rc == 0:
                sys.stdout.write({REGION_CSV!r})
            sys.exit(rc)
            """))
    os.chmod(path, 0o755)
    return path


TINY = """[experiment]
name = tiny
title = A tiny sweep
finding = F5
reference = none

[sweep]
queue = numaring
threads = 2
capacity = 64
batch = 8

[quick]
duration = 0.1
warmup = 0
reps = 1
"""


class ParseTest(unittest.TestCase):
    def test_group_listing_and_choice(self):
        self.assertEqual(nrlikwid.groups_of(LISTING)[:3], ["MEM_SP", "CLOCK", "L3"])
        self.assertEqual(nrlikwid.pick_group(nrlikwid.groups_of(LISTING)), "UPI")
        self.assertEqual(nrlikwid.pick_group(["MEM", "QPI", "NUMA"]), "QPI")
        self.assertEqual(nrlikwid.pick_group(["MEM", "XGMI_DATA", "NUMA"]), "XGMI_DATA")
        # AMD Zen's NUMA group also counts refills from another CCX: not taken
        self.assertIsNone(nrlikwid.pick_group(["MEM", "NUMA", "L3"]))

    def test_region_metric_table_into_bytes(self):
        nbytes, source = nrlikwid.interconnect_bytes(REGION_CSV, "UPI")
        self.assertAlmostEqual(nbytes, SENT_BYTES)
        self.assertIn("Sent data volume [GByte]", source)
        self.assertIn("UPI", source)

    def test_other_groups_metrics_and_units(self):
        qpi = REGION_CSV.replace("Sent data volume [GByte],0.5000,0.2500",
                                 "QPI data volume [MByte],3.0000,-")
        qpi = qpi.replace("Received data volume [GByte]", "Received bandwidth [MByte/s]")
        nbytes, source = nrlikwid.interconnect_bytes(qpi, "QPI")
        self.assertAlmostEqual(nbytes, 3e6)

    def test_output_without_the_region_is_refused(self):
        for text, why in (("STRUCT,Info,3\nTABLE,Group 1 Metric,UPI,10\nMetric,HWThread 0\n",
                           "no metric table of region 'window'"),
                          (REGION_CSV.replace("call count,1,1", "call count,0,0"), "never ran"),
                          (REGION_CSV.replace("Sent data volume", "Sent data rate")
                           .replace("Received data volume", "Received rate"),
                           "no data volume metric")):
            with self.assertRaises(nrlikwid.LikwidError) as cm:
                nrlikwid.interconnect_bytes(text, "UPI")
            self.assertIn(why, str(cm.exception))

    def test_probe_without_likwid_or_with_emulated_nodes(self):
        empty = tempfile.mkdtemp(prefix="nr-likwid-path-")
        old = os.environ["PATH"]
        try:
            os.environ["PATH"] = empty
            lk, why = nrlikwid.probe(BENCH, [0])
            self.assertIsNone(lk)
            self.assertEqual(why, "likwid-perfctr is not installed (Debian package likwid)")
        finally:
            os.environ["PATH"] = old
            shutil.rmtree(empty)
        lk, why = nrlikwid.probe(BENCH, [0], topology="0;1")
        self.assertIsNone(lk)
        self.assertIn("emulated", why)


@slow
class RunnerLikwidTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="nr-likwid-test-")
        self.results = os.path.join(self.tmp, "results")
        self.expdir = os.path.join(self.tmp, "exp")
        self.bin = os.path.join(self.tmp, "bin")
        os.makedirs(self.expdir)
        os.makedirs(self.bin)
        with open(os.path.join(self.expdir, "tiny.exp"), "w") as f:
            f.write(TINY)
        self.env = dict(os.environ, PATH=self.bin + os.pathsep + os.environ["PATH"])
        self.env.pop("NUMARING_TOPOLOGY", None)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_likwid(self):
        r = run(["run", "--results", self.results, "--bench", BENCH, "--exp-dir", self.expdir,
                 "--placement-reruns", "0", "--profile", "quick", "--likwid", "--likwid-bench",
                 BENCH], env=self.env)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [x for x in r.stdout.splitlines() if x.startswith("experiments: likwid:")]
        self.assertEqual(len(lines), 1, r.stdout)
        rows = tidy_rows(glob.glob(os.path.join(self.results, "*", "tiny.csv"))[0])
        self.assertEqual(len(rows), 1)
        return lines[0], rows[0]

    def test_bytes_per_item_from_likwids_output(self):
        fake_likwid(self.bin)
        line, row = self.run_likwid()
        self.assertIn("likwid-perfctr -g UPI", line)
        ops = float(row["ops"])
        self.assertGreater(ops, 0)
        self.assertAlmostEqual(float(row["interconnect_bytes_per_item"]) / (SENT_BYTES / ops),
                               1.0, places=4)
        self.assertIn("Sent data volume", row["interconnect_source"])
        rep = glob.glob(os.path.join(self.results, "*", "tiny", "quick", "*", "rep-1"))[0]
        with open(os.path.join(rep, "interconnect.json")) as f:
            info = json.load(f)
        self.assertEqual(info["group"], "UPI")
        self.assertAlmostEqual(info["bytes"], SENT_BYTES)
        with open(os.path.join(rep, "likwid.csv")) as f:
            self.assertIn("TABLE,Region window,Group 1 Metric,UPI", f.read())
        # the tidy table reads back, the figure a number
        tidy = nrdata.load_tidy(glob.glob(os.path.join(self.results, "*", "tiny.csv"))[0])
        self.assertEqual(len(tidy), 1)

    def test_likwid_that_cannot_count_is_one_line_and_the_sweep_runs(self):
        fake_likwid(self.bin, trial_fails="Cannot get access to MSRs. Please check "
                    "permissions to the MSRs")
        line, row = self.run_likwid()
        self.assertEqual(line, "experiments: likwid: not used: likwid-perfctr cannot count "
                         "group UPI here: Cannot get access to MSRs. Please check permissions "
                         "to the MSRs")
        self.assertEqual(row["interconnect_bytes_per_item"], "")
        self.assertEqual(row["interconnect_source"], "")
        self.assertGreater(float(row["throughput_ops_per_s"]), 0)
        self.assertEqual(glob.glob(os.path.join(self.results, "**", "likwid.csv"),
                                   recursive=True), [])


if __name__ == "__main__":
    unittest.main()
