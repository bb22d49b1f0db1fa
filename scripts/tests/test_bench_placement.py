# SPDX-License-Identifier: BSD-2-Clause
"""bench_placement.py and bare_loop --cells-at: the benchmark path runs and
prints one line per placement, and writes one CSV row per run to
--results DIR/<host>/bench/bench-placement.csv (+ meta.json, env/); a
folder of committed results is left alone; --no-save writes nothing; bad
input is one message and exit 2."""

import os
import re
import subprocess
import tempfile
import unittest

from scripts.runner import benchresult
from scripts.runner import hostid
from scripts.tests import module

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "scripts", "runner", "bench_placement.py")
BARE = os.environ.get("NUMARING_BARE", os.path.join(ROOT, "build", "bench", "bare_loop"))
BENCH = os.environ.get("NUMARING_BENCH", os.path.join(ROOT, "build", "numaring-bench"))

TINY = ("--cells-at", "0,128", "--reps", "2", "--duration", "0.2", "--warmup", "0.02")


def script(*args):
    return subprocess.run(module("runner.bench_placement") + ["--bare", BARE, "--bench", BENCH, *args],
                          capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env=dict(os.environ, NUMARING_MACHINE_ID="bench-placement-test-id"))


def snapshot(folder):
    out = {}
    for d, _, files in os.walk(folder):
        for f in files:
            with open(os.path.join(d, f), "rb") as fh:
                out[os.path.relpath(os.path.join(d, f), folder)] = fh.read()
    return out


@unittest.skipUnless(os.access(BARE, os.X_OK), "bare_loop not built (make build/bench/bare_loop)")
class BenchPlacement(unittest.TestCase):
    def test_runs_every_placement(self):
        r = script("--cells-at", "0,128,384", "--reps", "2", "--duration", "0.2",
                   "--warmup", "0.02", "--no-save")
        self.assertEqual(r.returncode, 0, r.stderr)
        line = re.compile(r"^\s*(\d+)\s+(\d+)\s+([\d.]+) \[\s*[\d.]+\.\.\s*[\d.]+\]\s+([\d.]+)")
        rows = [m.groups() for m in map(line.match, r.stdout.splitlines()) if m]
        self.assertEqual([int(x[0]) for x in rows], [0, 128, 384])
        self.assertEqual([int(x[1]) for x in rows], [0, 128, 384])  # mod 512
        for x in rows:
            self.assertGreater(float(x[2]), 0.0)  # Mitems/s moved at each placement
        ratios = [float(x[3]) for x in rows]
        self.assertAlmostEqual(max(ratios), 1.0, places=2)  # each is against the best
        self.assertIn("numaring's placement", r.stdout.splitlines()[-1])
        self.assertNotIn("result written", r.stdout)

    def test_writes_one_row_per_run(self):
        with tempfile.TemporaryDirectory() as res:
            r = script(*TINY, "--results", res)
            self.assertEqual(r.returncode, 0, r.stderr)
            hostdir = os.path.join(res, hostid.host_key())
            path = benchresult.csv_path(hostdir, "bench-placement")
            with open(path) as f:
                self.assertEqual(f.readline().strip(),
                                 "bench,round,cells_at,throughput_ops_per_s")
            rows = benchresult.load(path)
            self.assertEqual([(x["round"], x["cells_at"]) for x in rows],
                             [(1, 0), (1, 128), (2, 0), (2, 128)])
            self.assertTrue(all(x["throughput_ops_per_s"] > 0 for x in rows))
            meta = benchresult.load_meta(benchresult.meta_path(hostdir, "bench-placement"))
            self.assertIn("--cells-at 0,128", meta["command_line"])
            self.assertRegex(meta["git_commit"], r"^([0-9a-f]{40}(-dirty)?|unknown)$")
            self.assertEqual(meta["options"]["burst"], 32)
            for k in ("started_utc", "ended_utc", "host_key", "cpu_model"):
                self.assertIn(k, meta)
            self.assertTrue(os.path.isfile(os.path.join(hostdir, "env", "captured.txt")))
            self.assertEqual(r.stdout.splitlines()[-1],
                             f"bench-placement: result written to {path} "
                             "(+ bench-placement.meta.json)")

    def test_committed_results_are_left_alone(self):
        with tempfile.TemporaryDirectory() as res:
            committed = os.path.join(res, hostid.host_key())
            os.makedirs(os.path.join(committed, "bench"))
            with open(os.path.join(committed, "bench", "bench-placement.csv"), "w") as f:
                f.write("bench,round,cells_at,throughput_ops_per_s\n")
            before = snapshot(committed)
            r = script(*TINY, "--results", res)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(snapshot(committed), before)
            r2 = os.path.join(res, hostid.host_key() + "-r2")
            self.assertEqual(len(benchresult.load(benchresult.csv_path(r2, "bench-placement"))), 4)
            self.assertTrue(os.path.isfile(os.path.join(r2, hostid.MARKER)))

    def test_no_save_writes_nothing(self):
        with tempfile.TemporaryDirectory() as res:
            r = script(*TINY, "--results", res, "--no-save")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(os.listdir(res), [])

    def test_bad_results_is_one_message_and_exit_2(self):
        r = script(*TINY, "--results", SCRIPT)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr.strip().splitlines(),
                         [f"bench-placement: --results {SCRIPT}: not a folder"])
        self.assertEqual(r.stdout, "")

    def test_bad_input_is_one_message_and_exit_2(self):
        for args, what in ((("--cells-at", "64"), "multiple of 128"),
                           (("--cells-at", "0,0"), "twice"),
                           (("--cells-at", "x"), "whole number"),
                           (("--reps", "0"), "--reps")):
            with self.subTest(args=args):
                r = script(*args)
                self.assertNotEqual(r.returncode, 0)
                self.assertIn(what, r.stderr)
                self.assertEqual(r.stdout, "")

    def test_bare_loop_refuses_bad_placements(self):
        for args in (("--cells-at", "100"), ("--cells-at", "4096"),
                     ("--queue", "rte", "--cells-at", "128")):
            with self.subTest(args=args):
                r = subprocess.run([BARE, *args], capture_output=True, text=True, timeout=30)
                self.assertEqual(r.returncode, 2)
                self.assertIn("--cells-at", r.stderr)
                self.assertEqual(r.stdout, "")


if __name__ == "__main__":
    unittest.main()
