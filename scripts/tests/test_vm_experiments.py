# SPDX-License-Identifier: BSD-2-Clause
"""Tests of make vm-experiments' parts that run without a guest (make test-scripts).

* the guest marking: scripts/analysis/nrdata.py guest_note and host_info, the figures'
  captions (scripts/figures/plot.py), the results README (scripts/analysis/summarize.py), the
  paper's flag (scripts/paper/paper_numbers.py);
* the smoke profile of the committed experiment files;
* scripts/vm/numa_vm.py: --fetch's host side (scripts/vm/vm_fetch.py: a tar checked
  against the size and sha256 the guest printed, unpacked whole, nothing
  outside its folder) and --python (scripts/vm/vm_image.py: the interpreter and
  the modules a script imports);
* scripts/vm/vm_experiments.py's check of the results that came back.

The guest itself runs in make vm-experiments.
"""

import csv
import glob
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest

from scripts.common import expfile
from scripts.tests import fakeresults
from scripts.analysis import nrdata
from scripts.analysis import summarize
from scripts.vm import vm_experiments
from scripts.vm import vm_fetch
from scripts.vm import vm_image
from scripts.tests import module, slow

TESTS = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(TESTS)
ROOT = os.path.dirname(SCRIPTS)


TCG = {"kind": "qemu-tcg", "cpuid_signature": "TCGTCGTCGTCG", "sys_vendor": "QEMU",
       "timings_meaningful": False}
KVM = {"kind": "kvm", "cpuid_signature": "KVMKVMKVM", "sys_vendor": "", "timings_meaningful": True}
EXPERIMENTS = ("f1-lookup-cost", "f2-node-cache", "f3-gate", "f4-backoff", "f5-ceiling", "peers",
               "placement")
TOKEN = "0123456789abcdef"


def guest_host(root, host="numavm-guest-qemu-tcg-2node", virt=TCG, ncpus=(8, 8), numa=2):
    """A synthetic results/<host>/ as make vm-experiments brings it back."""
    fakeresults.make_synthetic(root, host=host, kind="real", threads=(2, 16), reps=2,
                               profile="smoke", experiments=list(EXPERIMENTS),
                               references={e: (1.0, 1.01, 0.99) for e in EXPERIMENTS})
    hd = os.path.join(root, host)
    path = os.path.join(hd, "env", "show-topology.json")
    with open(path) as f:
        topo = json.load(f)
    cpu = 0
    topo["nodes"] = []
    for i, n in enumerate(ncpus):
        topo["nodes"].append({"index": i, "os_node": i, "cpus": f"{cpu}-{cpu + n - 1}",
                              "ncpus": n, "memory_node": i, "memory_only": False})
        cpu += n
    if virt is not None:
        topo["virtualization"] = virt
    with open(path, "w") as f:
        json.dump(topo, f)
    with open(os.path.join(hd, "env", "numactl-H.txt"), "w") as f:
        f.write(f"available: {numa} nodes (0-{numa - 1})\n")
    with open(os.path.join(hd, "env", "hwloc.xml"), "w") as f:
        f.write("<topology>" + '<object type="NUMANode"/>' * numa +
                '<distances2 type="NUMANode" nbobjs="%d"/></topology>\n' % numa)
    return hd


class ResultsCase(unittest.TestCase):
    """A temporary folder with results/ in it."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="nr-vmx-")
        self.results = os.path.join(self.tmp, "results")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def paper_numbers(self, host):
        """scripts/paper/paper_numbers.py's numbers.tex for results/<host>, as text."""
        out = os.path.join(self.tmp, "numbers.tex")
        r = subprocess.run(module("paper.paper_numbers") + ["--results", self.results,
                                                      "--real", host, "--out", out],
                           capture_output=True, text=True, cwd=ROOT)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            return f.read()


@slow
class GuestMarkTest(ResultsCase):

    def test_guest_note(self):
        self.assertTrue(nrdata.guest_note(TCG).startswith("guest: timings meaningless"))
        for virt in (KVM, None, {}, "qemu-tcg", {"kind": "none", "timings_meaningful": True}):
            self.assertIsNone(nrdata.guest_note(virt))

    def test_readme_captions_and_paper_say_so(self):
        hd = guest_host(self.results)
        host = os.path.basename(hd)
        info = nrdata.host_info(self.results, host)
        self.assertTrue(info["guest"].startswith(nrdata.GUEST_NOTE))
        self.assertIn("**guest: timings meaningless", summarize.host_readme(hd))
        from scripts.figures import plot
        h = plot.Host(self.results, host)
        h.load()
        caption = plot.caption_lines(h, h.data["f2-node-cache"])
        self.assertIn((info["guest"], "warn"), caption)
        self.assertTrue(plot.guest({"caption": caption}))
        text = self.paper_numbers(host)
        self.assertIn("\\RealGuesttrue", text)
        self.assertIn("\\newcommand{\\GuestNote}{guest: timings meaningless}", text)

    def test_a_machine_is_not_a_guest(self):
        hd = guest_host(self.results, host="cloudvm", virt=KVM)
        self.assertIsNone(nrdata.host_info(self.results, "cloudvm")["guest"])
        self.assertNotIn("timings meaningless", summarize.host_readme(hd))
        self.assertIn("\\RealGuestfalse", self.paper_numbers("cloudvm"))


class SmokeProfileTest(unittest.TestCase):
    def test_every_experiment_has_a_small_smoke_profile(self):
        self.assertIn("smoke", expfile.PROFILES)
        for f in sorted(glob.glob(os.path.join(ROOT, "experiments", "*.exp"))):
            e = expfile.parse(f)
            self.assertIn("smoke", {k for k, v in e.profiles.items() if v}, f)
            # the guest of make vm-experiments: 2 nodes x 8 CPUs
            pts, reps = expfile.points(e, "smoke", 16, 2)
            self.assertGreaterEqual(reps, 2, f)    # paired ratios need two
            self.assertLessEqual(len(pts) * reps, 80, f)
            for p in pts:
                self.assertLessEqual(float(p.opts.get("duration", 9)), 0.1, f)
                self.assertEqual(float(p.opts.get("warmup", 9)), 0, f)

    def test_a_bad_smoke_section_is_refused(self):
        with open(os.path.join(ROOT, "experiments", "f4-backoff.exp")) as f:
            text = f.read()
        bad = re.sub(r"(\[smoke\][^\[]*?)duration = 0\.05", r"\1duration = fast", text)
        self.assertNotEqual(bad, text)
        with self.assertRaisesRegex(expfile.ExpError, r"f4-backoff.exp:\d+: duration: expected "
                                    "a number"):
            expfile.parse("f4-backoff.exp", bad)


def make_tar(members):
    """A tar (bytes) of {name: bytes or None (a folder)}."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tf:
        for name, data in members.items():
            ti = tarfile.TarInfo(name)
            if data is None:
                ti.type, ti.mode = tarfile.DIRTYPE, 0o755
                tf.addfile(ti)
            else:
                ti.size, ti.mode = len(data), 0o644
                tf.addfile(ti, io.BytesIO(data))
    return buf.getvalue()


class FetchTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="nr-fetch-")
        self.tar = os.path.join(self.tmp, "fetch.tar")
        self.dest = os.path.join(self.tmp, "out", "results")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def send(self, data, size=None, sha=None):
        with open(self.tar, "wb") as f:
            f.write(data)
        size = len(data) if size is None else size
        sha = hashlib.sha256(data).hexdigest() if sha is None else sha
        return ["booting", f"@@NUMAVM-FETCH {TOKEN} ok {size} {sha}@@", "done"]

    def test_unpacks_the_folder_whole(self):
        log = self.send(make_tar({"results-guest": None, "results-guest/h": None,
                                  "results-guest/h/a.csv": b"x,y\n1,2\n"}))
        self.assertIsNone(vm_fetch.fetch_result(log, TOKEN, self.tar, self.dest))
        with open(os.path.join(self.dest, "h", "a.csv"), "rb") as f:
            self.assertEqual(f.read(), b"x,y\n1,2\n")
        self.assertEqual(os.listdir(os.path.dirname(self.dest)), ["results"])

    def test_a_damaged_transfer_is_refused(self):
        data = make_tar({"r/a.csv": b"1\n"})
        for log in (self.send(data, size=len(data) + 1),
                    self.send(data, sha="0" * 64),
                    ["the guest died"],
                    [f"@@NUMAVM-FETCH {TOKEN} error results-guest is not a folder in the guest@@"]):
            why = vm_fetch.fetch_result(log, TOKEN, self.tar, self.dest)
            self.assertIsNotNone(why)
            self.assertFalse(os.path.exists(self.dest))
        self.assertIn("not a folder", why)
        # another run's report (another token) is not this one's
        log = self.send(data)
        self.assertIsNotNone(vm_fetch.fetch_result(log, "f" * 16, self.tar, self.dest))

    def test_nothing_outside_the_folder(self):
        for members in ({"r/../../evil": b"x"}, {"/etc/evil": b"x"},
                        {"r/a": b"1", "s/b": b"2"}):
            why = vm_fetch.fetch_result(self.send(make_tar(members)), TOKEN, self.tar, self.dest)
            self.assertIn("refusing member", why)
            self.assertFalse(os.path.exists(self.dest))
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tf:
            ti = tarfile.TarInfo("r/link")
            ti.type, ti.linkname = tarfile.SYMTYPE, "/etc/passwd"
            tf.addfile(ti)
        why = vm_fetch.fetch_result(self.send(buf.getvalue()), TOKEN, self.tar, self.dest)
        self.assertIn("refusing member", why)
        self.assertEqual(glob.glob(os.path.join(self.tmp, "out", "*")), [])

    def test_fetch_options_are_checked(self):
        for args, msg in ((["--fetch", "/abs", "--", "true"], "relative"),
                          (["--fetch", "../up", "--", "true"], "relative"),
                          (["--fetch", "a b", "--", "true"], "relative"),
                          (["--fetch-into", "x", "--", "true"], "goes with --fetch"),
                          (["--fetch", "r", "--fetch-into", self.tmp, "--", "true"], "exists")):
            r = subprocess.run(module("vm.numa_vm") + args,
                               capture_output=True, text=True, cwd=ROOT)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(msg, r.stderr)
            self.assertNotIn("Traceback", r.stderr)


class PythonFilesTest(unittest.TestCase):
    def test_interpreter_stdlib_and_the_scripts_own_modules(self):
        cwd = os.getcwd()
        os.chdir(ROOT)
        try:
            files = dict((g, h) for h, g in vm_image.python_files(["scripts.runner.experiments"]))
        finally:
            os.chdir(cwd)
        self.assertEqual(os.path.realpath(files["/usr/bin/python3"]),
                         os.path.realpath(sys.executable))
        # the package (python3 -m scripts.runner.experiments in /work) and the
        # modules the runner imports, also those imported inside functions
        for mod in ("__init__", "common/expfile", "common/tidy", "runner/experiments",
                    "runner/hostenv"):
            self.assertIn(f"/work/scripts/{mod}.py", files)
        # and nothing of the analysis: the runner runs it as a command
        self.assertFalse([g for g in files if g.startswith("/work/scripts/analysis/")])
        guest = set(files)
        for need in ("os.py", "encodings/__init__.py", "encodings/utf_8.py", "json/__init__.py",
                     "subprocess.py", "random.py", "statistics.py", "runpy.py"):
            self.assertTrue(any(g.endswith("/" + need) and "/python3" in g for g in guest), need)
        # interactive and GUI code stays out
        self.assertFalse([g for g in guest if "/tkinter/" in g or g.endswith("/pydoc.py")])


def as_f4_spin(hd):
    """f4-spin.csv beside the others: fakeresults draws no spin sweep, so F4's
    rows (points and drift reference) under f4-spin's name, for the check."""
    with open(os.path.join(hd, "f4-backoff.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(hd, "f4-spin.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(dict(r, experiment="f4-spin") for r in rows)


class CheckTest(ResultsCase):
    def test_two_real_nodes_of_a_guest_pass(self):
        # the check expects every experiment file's table
        self.assertEqual(vm_experiments.EXPERIMENTS, tuple(expfile.experiment_names()))
        as_f4_spin(guest_host(self.results))
        self.assertEqual(vm_experiments.check_results(self.results), [])

    def test_what_is_not_a_two_node_guest_fails(self):
        cases = [({"virt": None}, "timings mean nothing"),
                 ({"virt": KVM}, "timings mean nothing"),
                 ({"ncpus": (16,)}, "not 2 real nodes"),
                 ({"numa": 1}, "available: 2 nodes")]
        for kw, msg in cases:
            shutil.rmtree(self.results, ignore_errors=True)
            guest_host(self.results, **kw)
            bad = vm_experiments.check_results(self.results)
            self.assertTrue(any(msg in b for b in bad), (kw, bad))

    def test_missing_pieces_fail(self):
        self.assertIn("nothing came back", vm_experiments.check_results(self.results)[0])
        hd = guest_host(self.results)
        os.remove(os.path.join(hd, "f3-gate.csv"))
        os.makedirs(os.path.join(hd, "f1-lookup-cost", "smoke", "x"), exist_ok=True)
        with open(os.path.join(hd, "f1-lookup-cost", "smoke", "x", "rep-1.failed.txt"), "w") as f:
            f.write("exit 1\n")
        bad = vm_experiments.check_results(self.results)
        self.assertTrue(any("f3-gate.csv" in b for b in bad), bad)
        self.assertTrue(any("1 run(s) failed" in b for b in bad), bad)
        guest_host(self.results, host="numavm-guest-qemu-tcg-2node-emulated-2node-0_1")
        self.assertIn("one host", vm_experiments.check_results(self.results)[0])


if __name__ == "__main__":
    unittest.main()
