"""bench_placement.py and bare_loop --cells-at: the benchmark path runs and
prints one line per placement; bad input is one message and exit 2."""

import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "scripts", "bench_placement.py")
BARE = os.environ.get("NUMARING_BARE", os.path.join(ROOT, "build", "bench", "bare_loop"))


def script(*args):
    return subprocess.run([sys.executable, SCRIPT, "--bare", BARE, *args],
                          capture_output=True, text=True, timeout=120)


@unittest.skipUnless(os.access(BARE, os.X_OK), "bare_loop not built (make build/bench/bare_loop)")
class BenchPlacement(unittest.TestCase):
    def test_runs_every_placement(self):
        r = script("--cells-at", "0,128,384", "--reps", "2", "--duration", "0.05",
                   "--warmup", "0.02")
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
