# SPDX-License-Identifier: BSD-2-Clause
"""Tests of scripts/runner/hostenv.py (make test-scripts): env/versions.csv,
env/cpu-state.json, and the host load around a run (meta.json's host_load),
on this machine and on made-up /proc and /sys trees where something is
missing: nothing missing may crash the runner, and each gap says why.
"""

import csv
import io
import json
import os
import shutil
import subprocess
import tempfile
import unittest
from unittest import mock

from scripts.runner import hostenv

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
ROOT = os.path.dirname(SCRIPTS)


def write(root, rel, text):
    path = os.path.join(root, rel.lstrip("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def tsv(text):
    """The rows of env/versions.csv's text."""
    return list(csv.DictReader(io.StringIO(text)))


CPUINFO = """processor\t: 0
vendor_id\t: GenuineIntel
cpu MHz\t\t: 2100.000
microcode\t: 0xd0003b9
flags\t\t: fpu sse2 avx2

processor\t: 1
vendor_id\t: GenuineIntel
cpu MHz\t\t: 3300.125
microcode\t: 0xd0003b9
flags\t\t: fpu sse2 avx2

processor\t: 2
vendor_id\t: GenuineIntel
cpu MHz\t\t: 800.000
microcode\t: 0xd0003a5
flags\t\t: fpu sse2 avx2
"""

LSCPU = "Architecture: x86_64\nCPU(s): 3\nCPU max MHz: 3900.0000\nCPU min MHz: 800.0000\n"


class TmpTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="nr-hostenv-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


class VersionsTest(TmpTest):
    def fake_root(self, packages):
        """A tree whose scripts/deps.sh lists ``packages`` for every group."""
        write(self.tmp, "scripts/deps.sh",
              '[ "$1" = --list ] || exit 2\necho "%s"\n' % " ".join(packages))
        return self.tmp

    def test_every_package_of_deps_sh_once_with_its_version(self):
        """This machine: each package scripts/deps.sh names, in its order and once,
        with dpkg's version or "not installed"; then the tools."""
        out = subprocess.run(["sh", os.path.join(ROOT, "scripts", "deps.sh"), "--list"]
                             + list(hostenv.DEPS_GROUPS), capture_output=True, text=True)
        want = list(dict.fromkeys(out.stdout.split()))
        self.assertTrue(want)
        rows = tsv(hostenv.versions_csv())
        pkgs = [r for r in rows if not r["package"].endswith(")")]
        self.assertEqual([r["package"] for r in pkgs], want)
        for r in pkgs:
            self.assertTrue(r["version"], r)
            self.assertIn("deps.sh group", r["source"])
        tools = {r["package"]: r for r in rows if r["package"].endswith(")")}
        self.assertEqual(set(tools), {"python3 (interpreter)", "matplotlib (python module)",
                                      "gnuplot (command)", "gcc (command)",
                                      "pdflatex (command)"})
        import platform
        self.assertEqual(tools["python3 (interpreter)"]["version"], platform.python_version())
        gcc = subprocess.run(["gcc", "--version"], capture_output=True, text=True)
        self.assertEqual(tools["gcc (command)"]["version"], gcc.stdout.splitlines()[0].strip())
        if shutil.which("dpkg-query"):
            self.assertNotEqual(next(r for r in pkgs if r["package"] == "gcc")["version"],
                                hostenv.NOT_INSTALLED)  # the harness's compiler is here

    @unittest.skipUnless(shutil.which("dpkg-query"), "no dpkg-query here")
    def test_a_package_not_installed_says_so(self):
        root = self.fake_root(["gcc", "numaring-no-such-package"])
        rows = {r["package"]: r for r in tsv(hostenv.versions_csv(root))}
        self.assertEqual(rows["numaring-no-such-package"]["version"], hostenv.NOT_INSTALLED)
        self.assertNotEqual(rows["gcc"]["version"], hostenv.NOT_INSTALLED)
        self.assertEqual(rows["gcc"]["source"], "dpkg-query; deps.sh groups "
                         + ", ".join(hostenv.DEPS_GROUPS))

    def test_without_dpkg_or_tools_each_row_says_why(self):
        """A PATH with sh alone: no dpkg-query, gnuplot, gcc or pdflatex. Every
        row is still there, with unknown or not installed and why."""
        root = self.fake_root(["gcc", "gnuplot-nox"])
        bindir = os.path.join(self.tmp, "bin")
        os.makedirs(bindir)
        os.symlink(shutil.which("sh"), os.path.join(bindir, "sh"))
        with mock.patch.dict(os.environ, {"PATH": bindir}):
            rows = {r["package"]: r for r in tsv(hostenv.versions_csv(root))}
        self.assertEqual(rows["gcc"]["version"], "unknown")
        self.assertIn("dpkg-query could not run here", rows["gcc"]["source"])
        for tool in ("gnuplot (command)", "gcc (command)", "pdflatex (command)"):
            self.assertEqual(rows[tool]["version"], hostenv.NOT_INSTALLED, tool)
            self.assertIn("not found", rows[tool]["source"], tool)
        self.assertNotEqual(rows["python3 (interpreter)"]["version"], hostenv.NOT_INSTALLED)

    def test_no_deps_sh(self):
        rows = tsv(hostenv.versions_csv(self.tmp))  # a tree without scripts/deps.sh
        self.assertEqual(rows[0]["package"], "scripts/deps.sh")
        self.assertEqual(rows[0]["version"], "unknown")
        self.assertIn("no package list", rows[0]["source"])

    def test_fields_hold_no_tabs_or_line_breaks(self):
        self.assertEqual(hostenv._cell("a\tb\nc\r\n"), "a b c")


class CpuStateTest(TmpTest):
    def test_a_host_with_cpufreq(self):
        root = self.tmp
        write(root, "/proc/cpuinfo", CPUINFO)
        write(root, "/proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 isolcpus=2\n")
        write(root, "/sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n")
        write(root, "/sys/kernel/mm/transparent_hugepage/defrag",
              "always defer defer+madvise [madvise] never\n")
        write(root, "/sys/devices/system/cpu/intel_pstate/no_turbo", "0\n")
        for n, (gov, cur) in enumerate((("performance", 3300000), ("powersave", 800000))):
            d = f"/sys/devices/system/cpu/cpu{n}/cpufreq/"
            write(root, d + "scaling_governor", gov + "\n")
            write(root, d + "scaling_driver", "intel_pstate\n")
            write(root, d + "scaling_cur_freq", f"{cur}\n")
            write(root, d + "scaling_min_freq", "800000\n")
            write(root, d + "scaling_max_freq", "3900000\n")
        # cpu0's cpuinfo_max_freq cannot be read (a folder: open fails, as
        # a file only root may read does for others)
        os.makedirs(os.path.join(root, "sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"))
        # cpu2: no cpufreq folder at all
        os.makedirs(os.path.join(root, "sys/devices/system/cpu/cpu2/topology"))
        st = hostenv.cpu_state(root, lscpu_text=LSCPU)
        json.dumps(st)  # what capture writes
        self.assertIs(st["virtual_machine"], False)
        self.assertEqual(st["microcode"]["revision"], {"0xd0003b9": "0-1", "0xd0003a5": "2"})
        cf = st["cpufreq"]
        self.assertEqual(sorted(cf["cpus"]), ["0", "1"])
        self.assertEqual(cf["cpus"]["0"]["scaling_governor"], "performance")
        self.assertEqual(cf["cpus"]["1"]["scaling_cur_freq_khz"], 800000)
        self.assertEqual(cf["cpus"]["1"]["scaling_max_freq_khz"], 3900000)
        self.assertEqual(cf["cpus"]["1"]["scaling_driver"], "intel_pstate")
        self.assertIn("cpuinfo_max_freq", cf["cpus"]["0"]["unreadable"])
        self.assertNotIn("unreadable", cf["cpus"]["1"])
        self.assertIn("no cpufreq folder for CPU(s) 2", cf["missing"])
        self.assertNotIn("virtual machine", cf["missing"])
        self.assertEqual(st["turbo"], {"intel_pstate_no_turbo": "0"})
        self.assertEqual(st["kernel_cmdline"], "BOOT_IMAGE=/vmlinuz root=/dev/sda1 isolcpus=2")
        thp = st["transparent_hugepage"]
        self.assertEqual((thp["enabled_selected"], thp["defrag_selected"]),
                         ("madvise", "madvise"))
        self.assertEqual(st["cpu_mhz"]["cpuinfo_cpu_mhz"],
                         {"0": "2100.000", "1": "3300.125", "2": "800.000"})
        self.assertEqual(st["cpu_mhz"]["lscpu"],
                         {"CPU max MHz": "3900.0000", "CPU min MHz": "800.0000"})

    def test_a_vm_without_cpufreq_says_why(self):
        root = self.tmp
        write(root, "/proc/cpuinfo", CPUINFO.replace("avx2", "avx2 hypervisor")
              .replace("microcode\t: 0xd0003b9\n", "").replace("microcode\t: 0xd0003a5\n", ""))
        for n in range(3):
            os.makedirs(os.path.join(root, f"sys/devices/system/cpu/cpu{n}/topology"))
        st = hostenv.cpu_state(root, lscpu_text="Architecture: x86_64\n")
        self.assertIs(st["virtual_machine"], True)
        self.assertIn("no microcode field", st["microcode"]["why_not"])
        self.assertNotIn("cpus", st["cpufreq"])
        self.assertIn("CPU(s) 0-2", st["cpufreq"]["not_readable_here"])
        self.assertIn("virtual machine", st["cpufreq"]["not_readable_here"])
        self.assertIn("why_not", st["turbo"])
        self.assertIn("/proc/cmdline", st["kernel_cmdline"]["why_not"])
        self.assertIsNone(st["transparent_hugepage"]["enabled"])
        self.assertIn("transparent_hugepage/enabled", st["transparent_hugepage"]["enabled_why_not"])
        self.assertIn("cpuinfo_cpu_mhz", st["cpu_mhz"])  # the fallback frequency
        self.assertEqual(st["cpu_mhz"]["lscpu_why_not"], "lscpu reports no MHz here")

    def test_nothing_readable_crashes_nothing(self):
        st = hostenv.cpu_state(os.path.join(self.tmp, "nothing"), lscpu_text=None)
        json.dumps(st)
        self.assertIsNone(st["virtual_machine"])
        self.assertIn("/proc/cpuinfo", st["microcode"]["why_not"])
        self.assertIn("no cpuN folders", st["cpufreq"]["why_not"])
        self.assertIn("cpuinfo_why_not", st["cpu_mhz"])

    def test_this_machine(self):
        st = hostenv.cpu_state()
        self.assertTrue(st["microcode"].get("revision") or st["microcode"].get("why_not"))
        self.assertTrue(st["cpufreq"].get("cpus") or st["cpufreq"].get("not_readable_here"))
        with open("/proc/cmdline") as f:
            self.assertEqual(st["kernel_cmdline"], f.read().strip())


class CaptureTest(TmpTest):
    def captured(self, **kw):
        files = {}
        hostenv.capture(self.tmp, lambda p, t: files.__setitem__(os.path.basename(p), t), **kw)
        return files

    def test_both_files_and_the_commands(self):
        files = self.captured(commands=True)
        self.assertEqual(set(files), set(hostenv.COMMANDS) | {"git.txt", "versions.csv",
                                                               "cpu-state.json"})
        self.assertIn("microcode", json.loads(files["cpu-state.json"]))
        self.assertTrue(files["versions.csv"].startswith("package,version,source\n"))

    def test_only_what_is_missing_unless_forced(self):
        write(self.tmp, "versions.csv", "kept\n")
        self.assertEqual(set(self.captured()), {"cpu-state.json"})
        self.assertEqual(set(self.captured(force=True)), {"cpu-state.json", "versions.csv"})

    def test_a_failing_collector_is_recorded_not_raised(self):
        with mock.patch.object(hostenv, "cpu_state", side_effect=RuntimeError("boom")), \
                mock.patch.object(hostenv, "versions_csv", side_effect=KeyError("x")):
            files = self.captured()
        self.assertEqual(json.loads(files["cpu-state.json"]), {"why_not": "RuntimeError: boom"})
        self.assertIn("could not be collected here: KeyError", files["versions.csv"])

    def test_a_command_that_is_not_here(self):
        self.assertIn("could not run here", hostenv.command_output(["numaring-no-such-tool"]))
        self.assertIn("exited 1", hostenv.command_output(["sh", "-c", "echo oops >&2; exit 1"]))


STAT = "cpu  %d 10 %d 5000 20 0 7 %d 40 0\ncpu0 1 2 3 4 5 6 7 8 9 10\nintr 1 2 3\n"


class HostLoadTest(TmpTest):
    def proc(self, user, system, steal, loadavg="0.50 0.75 1.25 2/300 4242"):
        write(self.tmp, "/proc/stat", STAT % (user, system, steal))
        write(self.tmp, "/proc/loadavg", loadavg + "\n")
        return hostenv.sample(self.tmp)

    def test_steal_over_the_run(self):
        before = self.proc(1000, 500, 100)
        self.assertEqual(before, {"loadavg": [0.5, 0.75, 1.25], "steal": 100,
                                  "total": 1000 + 10 + 500 + 5000 + 20 + 0 + 7 + 100})
        # 400 jiffies more, of which 100 stolen (guest's 40 is in user: not counted twice)
        after = self.proc(1250, 550, 200, "1.00 0.80 1.20 3/301 4250")
        hl = hostenv.host_load(before, after)
        self.assertEqual(hl["steal_pct"], 25.0)
        self.assertEqual(hl["loadavg_before"], [0.5, 0.75, 1.25])
        self.assertEqual(hl["loadavg_after"], [1.0, 0.8, 1.2])
        self.assertEqual((hl["steal_jiffies_before"], hl["steal_jiffies_after"]), (100, 200))
        self.assertEqual(hl["total_jiffies_after"] - hl["total_jiffies_before"], 400)
        self.assertNotIn("why_not", hl)
        self.assertIn("/proc/stat", hl["source"])

    def test_unknown_where_nothing_was_counted_or_readable(self):
        s = self.proc(1000, 500, 100)
        hl = hostenv.host_load(s, s)
        self.assertIsNone(hl["steal_pct"])
        self.assertIn("no CPU time counted", hl["why_not"])
        empty = hostenv.sample(os.path.join(self.tmp, "none"))
        self.assertEqual((empty["loadavg"], empty["steal"]), (None, None))
        hl = hostenv.host_load(empty, empty)
        self.assertIsNone(hl["steal_pct"])
        self.assertIn("/proc/loadavg", hl["why_not"])
        self.assertIn("/proc/stat", hl["why_not"])
        write(self.tmp, "/proc/stat", "cpu  1 2 3 4\n")  # a kernel without steal
        self.assertIn("no steal field", hostenv.cpu_jiffies(self.tmp)[1])

    def test_this_machine(self):
        a = hostenv.sample()
        b = hostenv.sample()
        self.assertEqual(len(a["loadavg"]), 3)
        self.assertGreaterEqual(b["total"], a["total"])
        hl = hostenv.host_load(a, b)
        self.assertTrue(hl["steal_pct"] is None or 0 <= hl["steal_pct"] <= 100)

    def test_the_flag(self):
        self.assertEqual(hostenv.STEAL_FLAG_PCT, 3.0)
        self.assertIsNone(hostenv.stolen_flag(None))
        self.assertEqual(hostenv.stolen_flag(3.0), 0)
        self.assertEqual(hostenv.stolen_flag(3.001), 1)
        self.assertEqual(hostenv.steal_pct({"host_load": {"steal_pct": 4.5}}), 4.5)
        for meta in (None, {}, {"host_load": None}, {"host_load": {"steal_pct": None}},
                     {"host_load": {"steal_pct": True}}, {"host_load": {"steal_pct": "2"}}):
            self.assertIsNone(hostenv.steal_pct(meta), meta)


class AddToMetaTest(TmpTest):
    def test_keeps_every_key_in_order_and_leaves_no_temporary(self):
        path = write(self.tmp, "meta.json",
                     '{\n  "host": "h",\n  "threads": [{"cpu": 0}],\n  "verify": "ok",\n'
                     '  "lost_items": 0\n}\n')
        self.assertTrue(hostenv.add_to_meta(path, {"host_load": {"steal_pct": 1.5}}))
        with open(path) as f:
            meta = json.load(f)
        self.assertEqual(list(meta), ["host", "threads", "verify", "lost_items", "host_load"])
        self.assertEqual(meta["threads"], [{"cpu": 0}])
        self.assertEqual(meta["host_load"], {"steal_pct": 1.5})
        self.assertEqual(os.listdir(self.tmp), ["meta.json"])
        # again: replaced, not doubled
        self.assertTrue(hostenv.add_to_meta(path, {"host_load": {"steal_pct": 2}}))
        with open(path) as f:
            self.assertEqual(json.load(f)["host_load"], {"steal_pct": 2})

    def test_not_a_json_object_is_left_alone(self):
        for text in ("[1, 2]\n", '{"cut": '):
            path = write(self.tmp, "meta.json", text)
            self.assertFalse(hostenv.add_to_meta(path, {"host_load": {}}))
            with open(path) as f:
                self.assertEqual(f.read(), text)
        self.assertFalse(hostenv.add_to_meta(os.path.join(self.tmp, "none.json"), {"a": 1}))
        self.assertEqual(os.listdir(self.tmp), ["meta.json"])


if __name__ == "__main__":
    unittest.main()
