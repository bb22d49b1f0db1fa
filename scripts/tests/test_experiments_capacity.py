# SPDX-License-Identifier: BSD-2-Clause
"""F3 at equal offered rates (issue 22; make test-scripts): for the points of
an experiment that run open loop at a fraction of the capacity (load =), the
runner measures the capacity once per group of points that differ only in
gate and load, and round, and passes it to every run of that group in that
round (numaring-bench --capacity-ops), so that every gate of a round is
offered the same absolute rate. The committed tables that record the probe
(column capacity_probe) must show it.

The runner tests drive the real numaring-bench (NUMARING_BENCH, default
build/numaring-bench) on tiny sweeps in a temporary results folder.
"""

import csv
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import unittest

from scripts.common import expfile
from scripts.runner import experiments
from scripts.analysis import nrdata
from scripts.tests import module, slow

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
ROOT = os.path.dirname(SCRIPTS)


PY = sys.executable
BENCH = os.path.abspath(os.environ.get("NUMARING_BENCH", os.path.join(ROOT, "build", "numaring-bench")))
RUNNER = module("runner.experiments", PY)

#: F3's shape in miniature: three gates, two loads, split placement (emulated
#: halves on a one-node host), two thread counts, two rounds
F3_TINY = """[experiment]
name = f3tiny
title = F3 in miniature
finding = F3
reference = none

[sweep]
queue = numaring
threads = 2, 4
gate = shared, pernode, perworker
load = 0.25, 0.5
lookup = cached
batch = 8
capacity = 64
pin = split

[quick]
duration = 0.05
warmup = 0
calibrate = 0.02
load-probe = 0.2
reps = 2

[full]
reps = 1
"""


def rows_of(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def equal_rate_violations(rows):
    """The (rep, producers, consumers, load) keys of rows with a capacity probe
    whose gates were not offered one capacity and one rate, with what they
    were; and the number of keys checked."""
    by = {}
    for r in rows:
        if r.get("role", "point") != "point" or not (r.get("capacity_probe") or "").strip():
            continue
        key = (r["rep"], r["producers"], r["consumers"], r["load"])
        by.setdefault(key, []).append(r)
    bad = []
    for key, rs in sorted(by.items()):
        seen = {(r["capacity_probe"], r["capacity_ops_per_s"], r["rate"]) for r in rs}
        if len(seen) != 1:
            bad.append((key, sorted((r["gate"],) + (r["capacity_probe"], r["capacity_ops_per_s"],
                                                    r["rate"]) for r in rs)))
    return bad, len(by)


class GroupsTest(unittest.TestCase):
    """capacity_groups, probe_opts and the time estimate, in process."""

    def points(self, text=F3_TINY, ncpus=2, nodes=2):
        return expfile.points(expfile.parse("f3tiny.exp", text), "quick", ncpus, nodes)[0]

    def test_points_that_differ_in_gate_and_load_share_a_group(self):
        pts = self.points()
        self.assertEqual(len(pts), 12)
        groups = experiments.capacity_groups(pts)
        self.assertEqual(set(groups), {p.id for p in pts})
        by = {}
        for p in pts:
            gid, opts = groups[p.id]
            by.setdefault(gid, set()).add(p.opts["producers"])
            self.assertNotIn("gate", opts)
            self.assertNotIn("load", opts)
            self.assertEqual(opts, {k: v for k, v in p.opts.items() if k not in ("gate", "load")})
        self.assertEqual(by, {"g1": {"1"}, "g2": {"2"}})  # one group a thread count
        self.assertEqual(sum(1 for p in pts if groups[p.id][0] == "g1"), 6)

    def test_points_without_load_have_no_group(self):
        pts = self.points(F3_TINY.replace("load = 0.25, 0.5\n", ""))
        self.assertEqual(experiments.capacity_groups(pts), {})
        pts = self.points(F3_TINY.replace("load = 0.25, 0.5\n", "rate = 1000\n"))
        self.assertEqual(experiments.capacity_groups(pts), {})

    def test_a_probe_is_the_groups_options_at_load_1_with_a_short_tail(self):
        gid, gopts = experiments.capacity_groups(self.points())[self.points()[0].id]
        po = experiments.probe_opts(gopts)
        self.assertEqual(po["load"], "1")
        self.assertEqual((po["duration"], po["warmup"], po["calibrate"]),
                         (experiments.PROBE_TAIL_S, "0", "0"))
        self.assertEqual(po["load-probe"], "0.2")
        for k in ("queue", "producers", "consumers", "lookup", "batch", "capacity", "pin"):
            self.assertEqual(po[k], gopts[k], k)
        self.assertNotIn("gate", po)  # the harness's capacity run is per-worker anyway
        args = expfile.Point(None, gid, po, "").args()
        self.assertIn("--load", args)
        self.assertNotIn("--capacity-ops", args)

    def test_the_estimate_counts_one_probe_a_group_and_round(self):
        pts = self.points()
        runs = sum(experiments.run_seconds(p.opts, probe=False) for p in pts)
        probe = experiments.run_seconds(experiments.probe_opts(
            experiments.capacity_groups(pts)[pts[0].id][1]))
        self.assertAlmostEqual(experiments.points_seconds(pts, 3), 3 * (runs + 2 * probe))
        self.assertLess(experiments.points_seconds(pts, 3),
                        3 * sum(experiments.run_seconds(p.opts) for p in pts))


@slow
@unittest.skipUnless(os.access(BENCH, os.X_OK), "numaring-bench not built")
class EqualRatesRunnerTest(unittest.TestCase):
    def setUp(self):
        if len(os.sched_getaffinity(0)) < 2:
            self.skipTest("pin = split needs 2 CPUs (two emulated nodes on a one-node host)")
        self.tmp = tempfile.mkdtemp(prefix="nr-capacity-test-")
        self.results = os.path.join(self.tmp, "results")
        self.expdir = os.path.join(self.tmp, "exp")
        os.makedirs(self.expdir)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_runner(self, text=F3_TINY, bench=BENCH, extra=()):
        with open(os.path.join(self.expdir, "f3tiny.exp"), "w") as f:
            f.write(text)
        return subprocess.run(RUNNER + ["run", "--loose", "--results", self.results, "--bench", bench,
                               "--exp-dir", self.expdir, "--profile", "quick",
                               "--placement-reruns", "0"] + list(extra),
                              capture_output=True, text=True, cwd=ROOT)

    def folders(self):
        (csvf,) = glob.glob(os.path.join(self.results, "*", "f3tiny.csv"))
        host = os.path.dirname(csvf)
        return csvf, os.path.join(host, "f3tiny", "quick")

    def check_equal_rates(self, csvf, qdir):
        rows = rows_of(csvf)
        self.assertEqual(len(rows), 24)
        bad, checked = equal_rate_violations(rows)
        self.assertEqual(bad, [])
        self.assertEqual(checked, 8)  # 2 reps x 2 thread counts x 2 loads
        self.assertEqual(len({(r["producers"], r["capacity_ops_per_s"]) for r in rows}), 2)
        for r in rows:
            gid = "g1" if r["producers"] == "1" else "g2"
            # every round of a group: the median of the group's probes, one a round
            self.assertEqual(r["capacity_probe"], f"{gid}-median")
            cap = float(r["capacity_ops_per_s"])
            self.assertLessEqual(abs(float(r["rate"]) - float(r["load"]) * cap), 1.0)
            probes = [experiments.read_summary(os.path.join(qdir, "capacity", gid, f"rep-{k}",
                                                            "summary.csv")) for k in (1, 2)]
            self.assertEqual({p["load"] for p in probes}, {"1"})
            self.assertAlmostEqual(cap, statistics.median(
                float(p["capacity_ops_per_s"]) for p in probes), delta=0.1)
            with open(os.path.join(qdir, r["point"], f"rep-{r['rep']}", "meta.json")) as f:
                meta = json.load(f)
            cl = meta["command_line"]
            self.assertEqual(cl[cl.index("--capacity-ops") + 1], r["capacity_ops_per_s"])
            self.assertEqual(meta["capacity_probe"]["id"], r["capacity_probe"])
            self.assertEqual(len(meta["capacity_probe"]["probes"]), 2)
            self.assertIn("host_load", meta)
        # the table loads, capacity_probe among the runner's columns before the harness's
        self.assertEqual(len(nrdata.load_tidy(csvf)), 24)
        header = list(rows[0])
        self.assertLess(header.index("capacity_probe"), header.index("queue"))
        return rows

    def test_every_gate_of_a_round_is_offered_the_same_rate_and_a_resume_reuses_the_probe(self):
        r = self.run_runner()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.count("capacity probe "), 4)  # 2 groups x 2 rounds
        self.assertEqual(r.stdout.count(", measured"), 4)
        csvf, qdir = self.folders()
        rows = self.check_equal_rates(csvf, qdir)
        self.assertEqual(sorted(os.listdir(os.path.join(qdir, "capacity"))),
                         ["g1", "g2", "groups.txt"])
        for gid in ("g1", "g2"):
            with open(os.path.join(qdir, "capacity", gid, "capacity.txt")) as f:
                text = f.read()
            self.assertIn(f"{gid}-r1 ", text)
            self.assertRegex(text, r"(?m)^median [0-9.]+$")
            self.assertRegex(text, r"(?m)^spread [0-9.]+$")
        for gid in ("g1", "g2"):
            for k in (1, 2):
                d = os.path.join(qdir, "capacity", gid, f"rep-{k}")
                self.assertEqual(sorted(os.listdir(d)),
                                 # numaring writes its latency by path too
                                 ["latency-path.csv", "latency.csv", "latency.hgrm", "meta.json",
                                  "summary.csv"])
                with open(os.path.join(d, "meta.json")) as f:
                    self.assertEqual(json.load(f)["capacity_group"]["round"], k)
        with open(os.path.join(qdir, "capacity", "groups.txt")) as f:
            self.assertEqual([line.split()[0] for line in f if not line.startswith("#")],
                             ["g1", "g2"])
        # a resume: two runs of round 2 lost (a kill), a probe kept; nothing else reruns
        before = {(x["point"], x["rep"]): x["capacity_ops_per_s"] for x in rows}
        for pid in ("threads=2_gate=shared_load=0.5", "threads=4_gate=perworker_load=0.25"):
            shutil.rmtree(os.path.join(qdir, pid, "rep-2"))
        r = self.run_runner()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.count("done before, kept"), 22)
        probes = [line for line in r.stdout.splitlines() if "capacity probe" in line]
        self.assertEqual(len(probes), 4)  # both rounds' of both groups, not measured again
        self.assertTrue(all(line.endswith(", kept") for line in probes), probes)
        self.assertNotIn(", measured", r.stdout)
        rows = self.check_equal_rates(csvf, qdir)
        self.assertEqual({(x["point"], x["rep"]): x["capacity_ops_per_s"] for x in rows}, before)
        # all done: no probe at all
        r = self.run_runner()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("capacity probe", r.stdout)
        self.assertEqual(glob.glob(os.path.join(self.results, "**", "*.tmp*"), recursive=True),
                         [])

    def test_a_group_whose_probes_all_failed_fails_and_a_rerun_measures(self):
        text = (F3_TINY.replace("threads = 2, 4", "threads = 2").replace("reps = 2", "reps = 1")
                .replace("load = 0.25, 0.5", "load = 0.5"))
        fake = os.path.join(self.tmp, "fake-bench")
        with open(fake, "w") as f:  # the probe (--load 1) fails; the runs would not
            f.write("#!/bin/sh\ncase \"$*\" in *'--load 1 '*) echo 'numaring-bench: no capacity' "
                    f">&2; exit 1;; esac\nexec '{BENCH}' \"$@\"\n")
        os.chmod(fake, 0o755)
        r = self.run_runner(text, fake)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stdout.count("\n  capacity probe g1-r1 "), 1)  # once, not per run
        self.assertIn("FAILED (exit 1: numaring-bench: no capacity)", r.stdout)
        self.assertEqual(r.stderr.count("not run: no capacity probe of its group g1 gave"), 3)
        (qdir,) = glob.glob(os.path.join(self.results, "*", "f3tiny", "quick"))
        self.assertTrue(os.path.exists(os.path.join(qdir, "capacity", "g1", "rep-1.failed.txt")))
        failed = glob.glob(os.path.join(qdir, "gate=*", "rep-1.failed.txt"))
        self.assertEqual(len(failed), 3)
        with open(failed[0]) as f:
            self.assertIn("capacity/g1/rep-1.failed.txt", f.read())
        self.assertEqual(glob.glob(os.path.join(qdir, "gate=*", "rep-1", "summary.csv")), [])
        # the harness fixed: the probe and its runs, the failure records gone
        r = self.run_runner(text)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(glob.glob(os.path.join(self.results, "**", "*.failed.txt"),
                                   recursive=True), [])
        rows = rows_of(glob.glob(os.path.join(self.results, "*", "f3tiny.csv"))[0])
        self.assertEqual(len({(x["capacity_probe"], x["capacity_ops_per_s"], x["rate"])
                              for x in rows}), 1)


class CommittedResultsTest(unittest.TestCase):
    def test_committed_f3_tables_with_a_probe_offer_every_gate_one_rate(self):
        """Every committed results/*/f3-gate.csv measured since the runner shares
        the probe (it has the capacity_probe column): within a rep, thread count
        and load, every gate's row has the same capacity_ops_per_s and rate.
        Tables measured before (each run probed itself) are left out."""
        checked = 0
        for path in sorted(glob.glob(os.path.join(ROOT, "results", "*", "f3-gate.csv"))):
            rows = rows_of(path)
            if not rows or "capacity_probe" not in rows[0]:
                continue
            with self.subTest(path=os.path.relpath(path, ROOT)):
                bad, n = equal_rate_violations(rows)
                self.assertEqual(bad, [])
                self.assertGreater(n, 0, "no row names its capacity probe")
                checked += 1
        if not checked:
            self.skipTest("no committed f3-gate.csv records capacity_probe yet (measured "
                          "before the runner shared one capacity probe a round)")

    def test_the_check_catches_what_the_old_tables_show(self):
        """The check of the committed tables fails on rows whose gates were
        offered different rates, as every run's own probe gave them."""
        base = {"role": "point", "rep": "1", "producers": "1", "consumers": "1", "load": "0.5",
                "capacity_probe": "g1-r1"}
        rows = [dict(base, gate="shared", capacity_ops_per_s="1000.0", rate="500"),
                dict(base, gate="perworker", capacity_ops_per_s="1850.0", rate="925")]
        bad, n = equal_rate_violations(rows)
        self.assertEqual((len(bad), n), (1, 1))
        rows[1].update(capacity_ops_per_s="1000.0", rate="500")
        self.assertEqual(equal_rate_violations(rows), ([], 1))


if __name__ == "__main__":
    unittest.main()
