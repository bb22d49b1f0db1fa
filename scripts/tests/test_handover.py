# SPDX-License-Identifier: BSD-2-Clause
"""The results README's section on the runs' own hand-over distance
(scripts/handover.py): counted from the tidy CSV's two trips per run against
the probe's, and "not recorded" where the runs lack them."""

import csv
import os
import shutil
import tempfile
import unittest

from scripts import handover, nrdata


def write_probe(hostdir, one_way):
    os.makedirs(os.path.join(hostdir, "probe"), exist_ok=True)
    with open(os.path.join(hostdir, "probe", "probe.csv"), "w", encoding="utf-8") as f:
        f.write("kind,cpu_a,cpu_b,node_a,node_b,value,spread,unit,method\n")
        f.write(f"c2c_one_way_same_node,,,,,{one_way},1,ns,half-rtt-median\n")
        f.write("faa_uncontended_ns,0,,0,,5,0.1,ns,faa-1thread-median\n")


def write_tidy(hostdir, exp, runs):
    cols = ["experiment", "point", "rep", "role"] + nrdata.SUMMARY_COLUMNS
    with open(os.path.join(hostdir, f"{exp}.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, cols, restval="")
        w.writeheader()
        for i, (point, before, after, tput) in enumerate(runs, 1):
            w.writerow({"experiment": exp, "point": point, "rep": i, "role": "point",
                        "queue": "flat", "producers": 1, "consumers": 1,
                        "throughput_ops_per_s": tput, "c2c_one_way_before_ns": before,
                        "c2c_one_way_after_ns": after})


class HandOver(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def test_counts_runs_far_from_the_probe(self):
        write_probe(self.dir, 50)
        write_tidy(self.dir, "peers", [("a", 50, 52, 8e6), ("a", 240, 60, 2e6),
                                       ("a", 55, 51, 8e6), ("b", 49, 260, 3e6),
                                       ("b", 51, "", 6e6), ("c", "", "", 1e6)])
        s = handover.summary(self.dir)
        self.assertEqual(len(s), 1)
        d = s[0]
        self.assertEqual((d["experiment"], d["runs"], d["far"]), ("peers", 5, 2))
        self.assertEqual((d["min"], d["max"]), (49, 260))
        # point a: 2e6 / 8e6; point b: 3e6 / 6e6; median of the two
        self.assertAlmostEqual(d["slowdown"], (0.25 + 0.5) / 2)
        text = "\n".join(handover.lines(self.dir))
        self.assertIn("| peers | 5 | 49.0 |", text)
        self.assertIn("2 (40%)", text)
        self.assertIn("0.38x (2 points)", text)

    def test_runs_without_the_columns_say_not_recorded(self):
        write_probe(self.dir, 50)
        write_tidy(self.dir, "peers", [("a", "", "", 8e6)])
        self.assertEqual(handover.summary(self.dir), [])
        self.assertIn("Not recorded", "\n".join(handover.lines(self.dir)))

    def test_no_probe_leaves_far_unknown(self):
        write_tidy(self.dir, "peers", [("a", 50, 300, 8e6)])
        d = handover.summary(self.dir)[0]
        self.assertIsNone(d["far"])
        self.assertIn("| — | — | — |", "\n".join(handover.lines(self.dir)))


if __name__ == "__main__":
    unittest.main()
