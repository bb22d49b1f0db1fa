# SPDX-License-Identifier: BSD-2-Clause
"""The results README's section on the runs' own hand-over distance
(scripts/analysis/handover.py): counted from the tidy CSV's two trips per run against
the probe's, and "not recorded" where the runs lack them."""

import csv
import os
import shutil
import tempfile
import unittest

from scripts.analysis import handover, nrdata


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

    def test_the_report_without_the_far_runs(self):
        """The robustness paragraph: "None changes." where no claim moves, else a
        row per claim with both verdicts."""
        from unittest import mock
        write_probe(self.dir, 50)
        write_tidy(self.dir, "peers", [("a", 50, 300, 8e6), ("a", 50, 52, 8e6)])
        with mock.patch.object(handover, "robustness", return_value=(1, [])):
            lines = handover.lines(self.dir)
        self.assertEqual(lines[-2:], ["", "None changes."])
        self.assertIn("The reproduction report again without the 1 runs", "\n".join(lines))
        row = {"status": "holds", "value": "1.5", "lo": "1.2", "hi": "1.8", "unit": "x",
               "n": "6", "coverage": "0.97"}
        with mock.patch.object(handover, "robustness",
                               return_value=(1, [("x.claim", row, dict(row, status="inconclusive"))])):
            lines = handover.lines(self.dir)
        self.assertTrue(lines[-1].startswith("| `x.claim` | holds: "), lines[-1])
        self.assertIn("| inconclusive: ", lines[-1])
        self.assertIn("(6 paired)", lines[-1])
        with mock.patch.object(handover, "robustness", return_value=None):
            self.assertNotIn("The reproduction report again", "\n".join(handover.lines(self.dir)))

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

    def test_near_mirror_leaves_out_the_far_runs_and_links_the_rest(self):
        host = os.path.join(self.dir, "vm-x-1node")
        os.makedirs(host)
        write_probe(host, 50)
        write_tidy(host, "peers", [("a", 50, 52, 8e6), ("a", 240, 60, 2e6),
                                   ("b", 51, "", 6e6), ("c", "", "", 1e6)])
        with open(os.path.join(host, "bench-ring.csv"), "w", encoding="utf-8") as f:
            f.write("x\n")
        sib = host + "-emulated-2node-0_1"
        os.makedirs(sib)
        write_probe(sib, 50)
        write_tidy(sib, "f5-ceiling", [("a", 50, 300, 8e6), ("a", 50, 50, 8e6)])
        tmp = os.path.join(self.dir, "tmp")
        os.makedirs(tmp)
        near, left = handover.near_mirror(host, tmp)
        self.assertEqual((near, left), (os.path.join(tmp, "vm-x-1node"), 2))
        with open(os.path.join(near, "peers.csv"), newline="", encoding="utf-8") as f:
            kept = list(csv.DictReader(f))
        # the far run left out; the untimed ones kept; the header whole
        self.assertEqual([r["throughput_ops_per_s"] for r in kept], ["8000000.0", "6000000.0",
                                                                    "1000000.0"])
        self.assertIn("c2c_one_way_after_ns", kept[0])
        self.assertTrue(os.path.islink(os.path.join(near, "bench-ring.csv")))
        self.assertTrue(os.path.islink(os.path.join(near, "probe")))
        with open(os.path.join(tmp, os.path.basename(sib), "f5-ceiling.csv"),
                  encoding="utf-8") as f:
            self.assertEqual(len(f.read().splitlines()), 2)   # header + the near run
        # the originals are untouched
        with open(os.path.join(host, "peers.csv"), encoding="utf-8") as f:
            self.assertEqual(len(f.read().splitlines()), 5)

    def test_an_emulated_folder_has_no_report_of_its_own(self):
        sib = os.path.join(self.dir, "vm-x-1node-emulated-2node-0_1")
        os.makedirs(sib)
        write_probe(sib, 50)
        write_tidy(sib, "f5-ceiling", [("a", 50, 300, 8e6), ("a", 50, 50, 8e6)])
        text = "\n".join(handover.lines(sib))
        self.assertIn("| f5-ceiling | 2 |", text)
        self.assertNotIn("The reproduction report again", text)


if __name__ == "__main__":
    unittest.main()
