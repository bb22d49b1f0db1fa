# SPDX-License-Identifier: BSD-2-Clause
"""bench_peers.py (make bench-peers): the benchmark path runs every queue and
prints the target ratios, the full-queue retries and the accounting width,
and writes one CSV row per run to --results DIR/<host>/bench/bench-peers.csv
(+ meta.json, env/); bad input is one message and exit 2. Timings are not
judged here: the targets are measurements, not tests."""

import os
import re
import subprocess
import tempfile
import unittest

from scripts.runner import bench_peers, benchresult
from scripts.runner import hostid
from scripts.tests import module, slow

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "scripts", "runner", "bench_peers.py")
BENCH = os.environ.get("NUMARING_BENCH", os.path.join(ROOT, "build", "numaring-bench"))
BARE = os.environ.get("NUMARING_BARE", os.path.join(ROOT, "build", "bench", "bare_loop"))


def script(*args):
    return subprocess.run(module("runner.bench_peers") + ["--bench", BENCH, *args],
                          capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, NUMARING_MACHINE_ID="bench-peers-test-id"), cwd=ROOT)


@unittest.skipUnless(os.access(BENCH, os.X_OK) and os.access(BARE, os.X_OK),
                     "numaring-bench or bare_loop not built (make bench build/bench/bare_loop)")
class BenchPeers(unittest.TestCase):
    @slow
    def test_one_round_prints_targets_retries_and_fidelity(self):
        with tempfile.TemporaryDirectory() as res:
            r = script("--reps", "1", "--duration", "0.05", "--shapes", "1x1",
                       "--accounting", "scalar", "--bare", BARE, "--results", res)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.check_result(res, r.stdout)
        out = r.stdout
        self.assertIn("accounting: scalar", out)
        for q in bench_peers.queues_for("inline"):
            self.assertRegex(out, rf"(?m)^{q}\s+[\d.]+ \[")
        self.assertRegex(out, r"1P1C numaring / rte, bursts of 32: [\d.]+x .*(met|MISSED)")
        self.assertRegex(out, r"1P1C numaring / flat, single operations: [\d.]+x .*(met|MISSED)")
        retries = re.search(r"numaring ([\d.]+), flat ([\d.]+), rte ([\d.]+)", out)
        self.assertIsNotNone(retries, out)
        for v in retries.groups():
            self.assertGreaterEqual(float(v), 0.0)
        self.assertRegex(out, r"fidelity 1P1C numaring bursts of 32: harness / bare = [\d.]+")
        self.assertRegex(out, r"bare 1P1C flat / xenium-vyukov, single operations: [\d.]+x "
                              r"\[[\d.]+\.\.[\d.]+\] \(the same algorithm in xenium")

    def check_result(self, res, out):
        """One row per run: every queue whose items are its own (the manifest's)
        and that takes inline items x 2 modes in the harness, 3 x 2 bare and
        xenium's vyukov_bounded_queue (flat's check) with single operations."""
        hostdir = os.path.join(res, hostid.host_key())
        path = benchresult.csv_path(hostdir, "bench-peers")
        with open(path) as f:
            header = f.readline().strip()
        self.assertEqual(header, "bench,round,queue,shape,bursts,item,where,accounting,"
                                 "duration_s,throughput_ops_per_s,full_retries_per_burst")
        rows = benchresult.load(path)
        harness = [x for x in rows if x["where"] == "harness"]
        bare = [x for x in rows if x["where"] == "bare"]
        queues = bench_peers.queues_for("inline")
        self.assertGreaterEqual(len(queues), 8)
        self.assertLess(len(queues), len(bench_peers.QUEUES))  # xenium's pointer queues
        self.assertEqual(len(harness), 2 * len(queues))
        self.assertEqual(len(bare), 7)
        self.assertEqual({(x["queue"], x["bursts"]) for x in bare},
                         {(q, b) for q in bench_peers.BARE_QUEUES for b in (0, 1)}
                         | {(bench_peers.FLAT_CHECK, 0)})
        self.assertEqual({(x["queue"], x["bursts"]) for x in harness},
                         {(q, b) for q in queues for b in (0, 1)})
        for x in harness:
            self.assertEqual((x["round"], x["shape"], x["item"], x["accounting"],
                              x["duration_s"]), (1, "1x1", "inline", "scalar", 0.05))
            self.assertGreaterEqual(x["full_retries_per_burst"], 0.0)
        for x in bare:
            self.assertEqual((x["item"], x["accounting"], x["full_retries_per_burst"]),
                             (None, None, None))
        meta = benchresult.load_meta(benchresult.meta_path(hostdir, "bench-peers"))
        self.assertIn("--shapes 1x1", meta["command_line"])
        self.assertRegex(meta["git_commit"], r"^([0-9a-f]{40}(-dirty)?|unknown)$")
        self.assertEqual(meta["options"]["burst"], 32)
        self.assertTrue(os.path.isfile(os.path.join(hostdir, "env", "captured.txt")))
        self.assertIn(f"result written to {path}", out)

    def test_bad_input_is_one_message_and_exit_2(self):
        for args, what in ((("--reps", "0"), "--reps"),
                           (("--shapes", "1y1"), "is not PxC"),
                           (("--accounting", "wide"), "--accounting"),
                           (("--bare", "/nonexistent/bare_loop"), "is not built"),
                           (("--queues", "nosuch"), "--queues: unknown queue 'nosuch'"),
                           (("--queues", "numaring,,rte"), "an empty name"),
                           (("--queues", "rte,rte"), "rte named twice"),
                           (("--queues", "numaring,xenium-kfifo"),
                            "xenium-kfifo does not take inline items"),
                           (("--bare-queues", "rte"), "--bare-queues needs --bare"),
                           (("--bare", BARE, "--bare-queues", "ck"),
                            "--bare-queues: unknown bare loop queue 'ck'"),
                           (("--results", SCRIPT), "not a folder")):
            with self.subTest(args=args):
                r = script(*args)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(what, r.stderr)
                if args[0] in ("--results", "--queues", "--bare-queues"):
                    self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
                self.assertEqual(r.stdout, "")


if __name__ == "__main__":
    unittest.main()
