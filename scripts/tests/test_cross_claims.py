# SPDX-License-Identifier: BSD-2-Clause
"""The claims for the two-socket host (issue 31 item 9): across nodes,
numaring against rte_ring, the best peer and SCQ, and its p99 across nodes
against its own within a node.

    /usr/bin/python3 -m unittest scripts.tests.test_cross_claims -v

Synthetic hosts (tests/fakeresults.py, peers_field=True): the peers sweep on
two real nodes (prodcons at pin split beside compact) with 2, 4 and 8 threads,
8 oversubscribed, six repetitions; SCQ's rows are rte_ring's at pin split
scaled by SCQ_SHARE (the model has no SCQ of its own). Each claim's value is
recomputed from the CSV (the median over repetitions of numaring's run over
the peer's of the same repetition), the thread count read is the widest
without oversubscription, and the same sweep on emulated nodes is "not
testable here" with its value still shown.
"""

import csv
import os
import re
import shutil
import statistics
import tempfile
import unittest

from scripts.analysis import claims_table, findings
from scripts.common import regime
from scripts.tests import fakeresults

#: SCQ's throughput as a share of rte_ring's in the fixture
SCQ_SHARE = 0.5
CROSS = ("ring.cross-rte", "ring.cross-best-peer", "ring.cross-scq", "ring.cross-p99")


def add_scq(hostdir):
    """peers.csv with SCQ rows: rte_ring's at pin split, SCQ_SHARE of its speed."""
    path = os.path.join(hostdir, "peers.csv")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    cols = list(rows[0])
    extra = []
    for r in rows:
        if r["queue"] == "rte" and r["pin"] == "split":
            s = dict(r, queue="scq", point=r["point"].replace("-rte", "-scq"))
            s["throughput_ops_per_s"] = "%.1f" % (float(r["throughput_ops_per_s"]) * SCQ_SHARE)
            extra.append(s)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows + extra)


class CrossClaims(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nr-cross-")
        results = os.path.join(cls.tmp, "results")
        common = dict(reps=6, experiments=["peers"], nodes=2, peers_field=True,
                      peers_paces=("free", "producer", "consumer"), items=("inline",),
                      latency_files=False, oversub_above=4)
        cls.real = fakeresults.make_synthetic(results, "two", "real", (2, 4, 8), seed=41,
                                              machine={"cores": 4}, **common)
        cls.emu = fakeresults.make_synthetic(results, "emu-emulated-2node-0_1", "emulated",
                                             (2, 4, 8), seed=41, **common)
        for hd in (cls.real, cls.emu):
            add_scq(hd)
        cls.rows = {hd: {r["claim"]: r for r in claims_table.report(hd)}
                    for hd in (cls.real, cls.emu)}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def peers(self, hd):
        with open(os.path.join(hd, "peers.csv"), newline="") as f:
            # (the model's compact prodcons rows predate the workload and
            # work columns: empty cells, read as prodcons at work 0)
            return [r for r in csv.DictReader(f) if findings.workload_of(r) == "prodcons"
                    and findings.work_label(r) == "0" and findings.item_of(r) == "inline"]

    def ratio(self, a, b, key="throughput_ops_per_s"):
        """Median over repetitions of a's value over b's (one run each per rep)."""
        va = {r["rep"]: float(r[key]) for r in a}
        vb = {r["rep"]: float(r[key]) for r in b}
        return statistics.median(va[k] / vb[k] for k in va if k in vb)

    def split(self, queue, bursts, t):
        return [r for r in self.peers(self.real) if r["pin"] == "split" and r["queue"] == queue
                and r["bursts"] == bursts and int(r["producers"]) + int(r["consumers"]) == t]

    def in_group(self, rows, claim):
        """rows of the regime group the claim's detail names (its headline)."""
        label = re.search(r"regime ([^;]+);", self.rows[self.real][claim]["detail"]).group(1)
        return [r for r in rows if regime.group_label(regime.group_of(r)) == label]

    def test_testable_on_two_real_nodes(self):
        for c in CROSS:
            with self.subTest(claim=c):
                row = self.rows[self.real][c]
                self.assertIn(row["status"], ("holds", "does not hold", "inconclusive"), row)
                self.assertTrue(row["value"], row)

    def test_the_widest_thread_count_with_a_cpu_each(self):
        # 8 threads are oversubscribed in the fixture: 4 (2 per node) is read
        r = findings.peers(self.real, "inline", pin="split", at="widest")
        self.assertEqual(r["threads"], 4)
        self.assertIn("2 producer(s) on one node, 2 consumer(s)",
                      self.rows[self.real]["ring.cross-rte"]["detail"])
        with self.assertRaises(ValueError):
            findings.peers(self.real, "inline", pin="split", at="most")

    def test_the_values_are_the_csvs(self):
        for claim, peer, bursts in (("ring.cross-rte", "rte", "1"),
                                    ("ring.cross-scq", "scq", "0")):
            with self.subTest(claim=claim):
                ring = self.in_group(self.split("numaring", bursts, 4), claim)
                other = self.in_group(self.split(peer, bursts, 4), claim)
                self.assertTrue(ring and other)
                self.assertAlmostEqual(float(self.rows[self.real][claim]["value"]),
                                       self.ratio(ring, other), places=4)
        # the fixture's speeds: numaring 1.0, rte 0.6, SCQ half rte's; the best
        # data-moving peer is moodycamel (0.9)
        self.assertAlmostEqual(float(self.rows[self.real]["ring.cross-rte"]["value"]),
                               1 / 0.6, delta=0.15)
        self.assertAlmostEqual(float(self.rows[self.real]["ring.cross-scq"]["value"]),
                               1 / (0.6 * SCQ_SHARE), delta=0.3)
        best = self.rows[self.real]["ring.cross-best-peer"]
        self.assertIn("moodycamel", best["detail"])
        self.assertAlmostEqual(float(best["value"]), 1 / 0.9, delta=0.1)

    def test_p99_across_over_within(self):
        def p99_rows(pin):
            return [r for r in self.peers(self.real) if r["queue"] == "numaring"
                    and r["pin"] == pin and r["bursts"] == "0"
                    and int(r["producers"]) + int(r["consumers"]) == 2
                    and regime.pace_of(r) == "producer-paced"]
        across, within = p99_rows("split"), p99_rows("compact")
        self.assertTrue(across and within)
        row = self.rows[self.real]["ring.cross-p99"]
        self.assertAlmostEqual(float(row["value"]), self.ratio(across, within, "p99_ns"),
                               places=4)
        # the medians it states, each side's own
        med = lambda rs: statistics.median(float(r["p99_ns"]) for r in rs)
        self.assertIn("%.0f ns across, %.0f ns within" % (med(across), med(within)),
                      row["detail"])
        self.assertGreater(med(across), med(within))

    def test_emulated_nodes_say_not_testable_with_the_value(self):
        for c in CROSS:
            with self.subTest(claim=c):
                row = self.rows[self.emu][c]
                self.assertEqual(row["status"], "not testable here")
                self.assertIn("real NUMA nodes", row["why"])
                self.assertTrue(row["value"], row)


if __name__ == "__main__":
    unittest.main()
