# SPDX-License-Identifier: BSD-2-Clause
"""Tests of scripts/common/regime.py and the pace key of experiment files: every run
gets its regime from what it measured, ratios pair only runs of one regime,
and a paced point passes the work that pins it (make test-scripts)."""

import os
import unittest

from scripts.common import expfile
from scripts.common import regime
from scripts.analysis import stats

TESTS = os.path.dirname(os.path.abspath(__file__))


def run(rep, tput, inflight, queue="numaring", capacity=1024, **kw):
    r = {"rep": str(rep), "queue": queue, "capacity": str(capacity), "nodes": "1",
         "throughput_ops_per_s": str(tput), "inflight": str(inflight), "latency_count": "100",
         "rate": "0", "workload": "prodcons", "enqueued": "1000", "dequeued": "1000",
         "full_retries": "0", "empty_polls": "0", "producer_work_ns": "0",
         "consumer_work_ns": "0"}
    r.update({k: str(v) for k, v in kw.items()})
    return r


class ClassifyTest(unittest.TestCase):
    def test_occupancy_sets_the_regime(self):
        self.assertEqual(regime.classify(run(1, 1e7, 900)), "full")
        self.assertEqual(regime.classify(run(1, 1e7, 12)), "near-empty")
        self.assertAlmostEqual(regime.occupancy(run(1, 1e7, 512)), 0.5)
        # numaring's capacity is per node ring
        self.assertEqual(regime.classify(run(1, 1e7, 600, nodes=2)), "near-empty")
        self.assertEqual(regime.classify(run(1, 1e7, 600, queue="rte", nodes=2)), "full")

    def test_open_loop_and_no_latency(self):
        self.assertEqual(regime.classify(run(1, 1e7, 900, rate=5e6)), "open-loop")
        r = run(1, 1e7, "", latency_count=0, full_retries=500, empty_polls=3)
        self.assertIsNone(regime.occupancy(r))
        self.assertEqual(regime.classify(r), "full")
        r.update(full_retries="1", empty_polls="700")
        self.assertEqual(regime.classify(r), "near-empty")

    def test_the_tidy_column_wins(self):
        self.assertEqual(regime.of(dict(run(1, 1e7, 12), regime="full")), "full")
        self.assertEqual(len(regime.annotate(run(1, 1e7, 12))), len(regime.COLUMNS))

    def test_pace(self):
        self.assertEqual(regime.pace_of(run(1, 1, 1, producer_work_ns=200)), "producer-paced")
        self.assertEqual(regime.pace_of(run(1, 1, 1, consumer_work_ns=200)), "consumer-paced")
        self.assertEqual(regime.pace_of(run(1, 1, 1)), "free")
        self.assertEqual(regime.pace_of(run(1, 1, 1, workload="pairs")), "free")


class PairedTest(unittest.TestCase):
    def test_pairs_only_within_one_regime(self):
        # rep 1, 2: both near-empty (ratio 2); rep 3: a near-empty, b full (left
        # out); rep 4, 5: both full (ratio 0.5)
        a = [run(1, 20, 10), run(2, 20, 10), run(3, 20, 10), run(4, 5, 900), run(5, 5, 900)]
        b = [run(1, 10, 10), run(2, 10, 10), run(3, 1, 900), run(4, 10, 900), run(5, 10, 900)]
        g = stats.paired_by_regime(a, b)
        self.assertEqual(set(g), {("free", "near-empty"), ("free", "full")})
        self.assertEqual(g[("free", "near-empty")].est, 2.0)
        self.assertEqual(g[("free", "near-empty")].n, 2)
        self.assertEqual(g[("free", "full")].est, 0.5)
        self.assertEqual(regime.headline(g), ("free", "near-empty"))   # tie: near-empty
        self.assertEqual(regime.mixed_note(a + b), "5 near-empty, 5 full")


class PaceKeyTest(unittest.TestCase):
    def parse(self, sweep):
        text = ("[experiment]\nname = t\ntitle = t\nfinding = peers\n[sweep]\n" + sweep
                + "\n[quick]\nreps = 2\n")
        return expfile.parse("t.exp", text)

    def test_pace_becomes_work_per_operation(self):
        e = self.parse("queue = rte\nthreads = 2\nbursts = 0, 1\nbatch = 32\n"
                       "pace = free, producer, consumer\nworkload = prodcons, pairs")
        pts, _ = expfile.points(e, "quick", 2, 1)
        args = {p.id: p.args() for p in pts}
        prod = [a for k, a in args.items() if "pace=producer" in k and "bursts=0" in k][0]
        self.assertEqual(prod[-2:], ["--producer-work", str(expfile.PACE_WORK_NS)])
        cons = [a for k, a in args.items() if "pace=consumer" in k and "bursts=1" in k][0]
        self.assertEqual(cons[-2:], ["--consumer-work", str(expfile.PACE_WORK_NS * 32)])
        self.assertFalse(any("--pace" in x for a in args.values() for x in a))
        # pairs has no sides: only its free point
        self.assertFalse([k for k in args if "workload=pairs" in k and "pace=free" not in k])

    def test_a_pinned_pace_goes_on_top_of_the_work(self):
        """The paced side does the point's work plus the pace, so it is the slower
        one at every work level (regime.pace_of reads it back); a pinned pace
        (no free point beside it) leaves pairs and mixed as they are."""
        e = self.parse("queue = numaring\nthreads = 2\nwork = 0, 300\npace = producer\n"
                       "pace-work = 100\nworkload = prodcons, pairs")
        pts, _ = expfile.points(e, "quick", 2, 1)
        args = {p.id: p.args() for p in pts}
        self.assertEqual(len(args), 4)
        for work, paced in (("0", "100"), ("300", "400")):
            a = [a for k, a in args.items() if f"work={work}" in k and "prodcons" in k][0]
            self.assertEqual(a[-2:], ["--producer-work", paced])
            self.assertIn(["--work", work], [a[i:i + 2] for i in range(len(a))])
            self.assertEqual(regime.pace_of(run(1, 1, 1, producer_work_ns=int(paced),
                                                consumer_work_ns=int(work))),
                             "producer-paced")
        pairs = [a for k, a in args.items() if "pairs" in k]
        self.assertEqual(len(pairs), 2)
        self.assertFalse(any("--producer-work" in a for a in pairs))
        # the same work on both sides is free
        self.assertEqual(regime.pace_of(run(1, 1, 1, producer_work_ns=300,
                                            consumer_work_ns=300)), "free")

    def test_closed_load_is_no_flag(self):
        e = self.parse("queue = numaring\nthreads = 2\nload = closed, 0.5")
        pts, _ = expfile.points(e, "quick", 2, 1)
        self.assertEqual(sorted("--load" in p.args() for p in pts), [False, True])

    def test_bad_pace(self):
        with self.assertRaises(expfile.ExpError):
            self.parse("queue = rte\nthreads = 2\npace = sometimes")
        with self.assertRaises(expfile.ExpError):
            e = self.parse("queue = rte\nthreads = 2\npace = producer\nproducer-work = 5")
            expfile.points(e, "quick", 2, 1)


if __name__ == "__main__":
    unittest.main()


class SaturatedTest(unittest.TestCase):
    """regime.saturated on the committed AMD emulated-node F3 results: the runs
    whose backlog grew (named in issue 30) are flagged, no 25%-load run is, and
    F3's numbers leave them out."""

    HOST = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "results", "vm-amd-f26m2-1node-emulated-2node-0_1")

    def rows(self):
        from scripts.analysis import nrdata
        return nrdata.load_tidy(os.path.join(self.HOST, "f3-gate.csv"))

    def test_the_committed_runs(self):
        rows = [r for r in self.rows() if r.get("role") != "reference"]
        flagged = {(r["threads"], r["load"], r["gate"], r["rep"])
                   for r in rows if regime.saturated(r) == 1}
        self.assertIn(("2", "0.5", "perworker", "5"), flagged)
        for gate in ("shared", "pernode", "perworker"):
            self.assertIn(("2", "0.75", gate, "1"), flagged)
        self.assertFalse([f for f in flagged if f[1] == "0.25"], flagged)
        self.assertTrue(all(regime.saturated(r) in (0, 1) for r in rows))
        self.assertIsNone(regime.saturated({"rate": "", "throughput_ops_per_s": "5"}))

    def test_f3_leaves_them_out(self):
        from scripts.analysis import findings
        r = findings.f3(self.HOST)
        by_load = {d["load"]: d for d in r["loads"]}
        self.assertEqual(r["threads"], 2)
        # 75% load: round 1 saturated on every gate, round 4 on the per-worker
        # gate: 3 of 5 pairs remain, none of them from a saturated run
        self.assertEqual(by_load["0.75"]["saturated"], 4)
        self.assertEqual(by_load["0.75"]["shared_over_perworker_n"], 3)
        self.assertEqual(by_load["0.75"]["pairs_measured"], 5)
        self.assertEqual(by_load["0.25"]["saturated"], 0)
        self.assertEqual(by_load["0.25"]["shared_over_perworker_n"], 5)
