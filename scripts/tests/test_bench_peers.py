"""bench_peers.py (make bench-peers): the benchmark path runs every queue and
prints the target ratios, the full-queue retries and the accounting width;
bad input is one message and exit 2. Timings are not judged here: the
targets are measurements, not tests."""

import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "scripts", "bench_peers.py")
BENCH = os.environ.get("NUMARING_BENCH", os.path.join(ROOT, "build", "numaring-bench"))
BARE = os.environ.get("NUMARING_BARE", os.path.join(ROOT, "build", "bench", "bare_loop"))


def script(*args):
    return subprocess.run([sys.executable, SCRIPT, "--bench", BENCH, *args],
                          capture_output=True, text=True, timeout=300)


@unittest.skipUnless(os.access(BENCH, os.X_OK) and os.access(BARE, os.X_OK),
                     "numaring-bench or bare_loop not built (make bench build/bench/bare_loop)")
class BenchPeers(unittest.TestCase):
    def test_one_round_prints_targets_retries_and_fidelity(self):
        r = script("--reps", "1", "--duration", "0.05", "--shapes", "1x1",
                   "--accounting", "scalar", "--bare", BARE)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = r.stdout
        self.assertIn("accounting: scalar", out)
        for q in ("numaring", "flat", "ck", "rte", "moodycamel", "urcu", "mutex", "faa"):
            self.assertRegex(out, rf"(?m)^{q}\s+[\d.]+ \[")
        self.assertRegex(out, r"1P1C numaring / rte, bursts of 32: [\d.]+x .*(met|MISSED)")
        self.assertRegex(out, r"1P1C numaring / flat, single operations: [\d.]+x .*(met|MISSED)")
        retries = re.search(r"numaring ([\d.]+), flat ([\d.]+), rte ([\d.]+)", out)
        self.assertIsNotNone(retries, out)
        for v in retries.groups():
            self.assertGreaterEqual(float(v), 0.0)
        self.assertRegex(out, r"fidelity 1P1C numaring bursts of 32: harness / bare = [\d.]+")

    def test_bad_input_is_one_message_and_exit_2(self):
        for args, what in ((("--reps", "0"), "--reps"),
                           (("--shapes", "1y1"), "is not PxC"),
                           (("--accounting", "wide"), "--accounting"),
                           (("--bare", "/nonexistent/bare_loop"), "is not built")):
            with self.subTest(args=args):
                r = script(*args)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(what, r.stderr)
                self.assertEqual(r.stdout, "")


if __name__ == "__main__":
    unittest.main()
