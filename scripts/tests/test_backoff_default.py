# SPDX-License-Identifier: BSD-2-Clause
"""The default backoff's verdicts (scripts/analysis/backoff_default.py): each
target decides on made-up rounds, and docs/ring.md's block is what the
committed CSVs say."""

import io
import os
import tempfile
import unittest
from contextlib import redirect_stderr

import pandas as pd

from scripts.analysis import backoff_default as bd

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def rows(cell, tps, failed=1000, rounds=10):
    """A cell's rounds: tps maps backoff -> throughput (every round alike but a
    small wobble, so that min..max differ)."""
    out = []
    for r in range(1, rounds + 1):
        for b, tp in tps.items():
            out.append(dict(bench="bench-backoff", round=r, cell=cell, backoff=b, pause_spin="",
                            throughput_ops_per_s=tp * (1 + 0.01 * (r % 3)),
                            failed_attempts=failed, backoff_ns_race=0))
    return out


class Verdicts(unittest.TestCase):
    def verdicts(self, *cells):
        df = pd.DataFrame([r for c in cells for r in c])
        return {v["cell"]: v for v in bd.cell_verdicts(df, "adaptive")}

    def test_each_target(self):
        v = self.verdicts(
            rows("pairs-w0", {"none": 5, "yield": 50, "adaptive": 90}),
            rows("mixed-w0", {"none": 5, "yield": 50, "adaptive": 44}),
            rows("mixed-w300", {"none": 5, "yield": 5.2, "adaptive": 4.5}),
            rows("pairs-w300", {"none": 5, "yield": 5.1, "adaptive": 4.9}),
            rows("prodcons-w0", {"none": 7, "adaptive": 6}, failed=0))
        self.assertTrue(v["pairs-w0"]["met"])
        self.assertEqual(v["pairs-w0"]["best"], "adaptive")
        self.assertFalse(v["mixed-w0"]["met"])          # 0.88 of yield
        self.assertEqual(v["mixed-w0"]["best"], "yield")
        self.assertFalse(v["mixed-w300"]["met"])        # 0.9 of none, races lost
        self.assertTrue(v["pairs-w300"]["met"])         # 0.98 of none, 0.96 of best
        self.assertTrue(v["prodcons-w0"]["met"])        # no race lost: not exercised
        self.assertFalse(v["prodcons-w0"]["exercised"])
        self.assertAlmostEqual(v["pairs-w0"]["vs_best"][0], 1.0)
        self.assertAlmostEqual(v["mixed-w300"]["vs_none"][0], 0.9)

    def test_a_cell_without_the_default_is_left_out(self):
        self.assertEqual(self.verdicts(rows("pairs-w0", {"none": 5, "exp": 6})), {})

    def test_bad_csv_is_one_message(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "h", "bench"))
            with open(os.path.join(d, "h", bd.CSV), "w") as f:
                f.write("cell,backoff\npairs-w0,none\n")
            doc = os.path.join(d, "ring.md")
            with open(doc, "w") as f:
                f.write(bd.BEGIN + "\n" + bd.END + "\n")
            err = io.StringIO()
            with redirect_stderr(err):
                rc = bd.main(["readme", doc, "--results", d])
            self.assertEqual(rc, 2)
            self.assertIn("h/bench/bench-backoff.csv", err.getvalue())


class Block(unittest.TestCase):
    def test_docs_block_is_current(self):
        err = io.StringIO()
        with redirect_stderr(err):
            rc = bd.main(["readme", os.path.join(ROOT, "docs", "ring.md"), "--check",
                          "--results", os.path.join(ROOT, "results")])
        self.assertEqual(rc, 0, err.getvalue())


if __name__ == "__main__":
    unittest.main()
