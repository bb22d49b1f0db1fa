# SPDX-License-Identifier: BSD-2-Clause
"""Tests of the physical ceiling model (scripts/analysis/ceiling.py).

A synthetic probe with round numbers makes every term computable by hand:
lines per item of each protocol and item kind, serialised contention on a
shared line (not linear in threads), the binding term at each kind of point,
the realized batch in the crossing term, the two-socket prediction from
published ONE-WAY latencies, and a point above the model that must be
reported as a failure (by check_rows and by `ceiling.py --check`, exit 1).
The committed results are checked too: a committed point above its ceiling
fails this test. With NUMARING_BENCH set, the quick probe of this host is
read back and has every row the model uses.

Run: python3 -m unittest scripts.tests.test_ceiling
"""

import csv
import math
import os
import re
import subprocess
import tempfile
import unittest

from scripts.analysis import ceiling
from scripts.tests import module

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
ROOT = os.path.dirname(SCRIPTS)


# t_a 5 ns, t_s 10 ns (20 / 2), t_s across 40 ns (80 / 2), t_c 50 ns within,
# t_x 100 ns across; BW_p 6.4 GB/s within (10^8 lines/s), 3.2 across.
PROBE = """kind,cpu_a,cpu_b,node_a,node_b,value,spread,unit,method
meta,,,,,real,,,topology
c2c_rtt,0,1,0,0,100.0,1.0,ns,pingpong-median
c2c_same_node,,,,,100.0,1.0,ns,median-of-2-pairs
c2c_other_node,,,,,200.0,1.0,ns,median-of-2-pairs
c2c_one_way_same_node,,,,,50.0,0.5,ns,half-rtt-median
c2c_one_way_other_node,,,,,100.0,0.5,ns,half-rtt-median
lookup_ns,,,,,100.0,1.0,ns,libnuma
lookup_ns,,,,,,,ns,rdpid-unsupported
faa_uncontended_ns,0,,0,,5.0,0.1,ns,faa-1thread-median
faa_contended_ns,0,1,0,0,20.0,1.0,ns,faa-2threads-median
faa_contended_other_node_ns,0,2,0,1,80.0,1.0,ns,faa-2threads-median
c2c_bw_same_node_gbs,0,1,0,0,6.4,0.1,GB/s,stream-256-lines-1pair
c2c_bw_other_node_gbs,0,2,0,1,3.2,0.1,GB/s,stream-256-lines-1pair
bw_local_gbs,0,,0,0,12.0,0.1,GB/s,builtin-read-onnode
bw_local_gbs,2,,1,1,11.0,0.1,GB/s,builtin-read-onnode
bw_local_mt_gbs,0,,0,0,30.0,0.1,GB/s,builtin-read-2threads-onnode
bw_remote_gbs,0,,0,1,8.0,0.1,GB/s,builtin-read-onnode
"""

T_A, T_S, T_SX, T_C, T_X = 5e-9, 10e-9, 40e-9, 50e-9, 100e-9
LPS = 6.4e9 / 64      # lines per second one thread pulls within a node
LPS_X = 3.2e9 / 64    # across


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def row(**kw):
    r = {"queue": "numaring", "item": "inline", "producers": "1", "consumers": "1",
         "batch": "32", "bursts": "0", "pin": "compact", "gate": "perworker",
         "items_per_transfer": "", "throughput_ops_per_s": "1000000"}
    r.update({k: str(v) for k, v in kw.items()})
    return r


class Base(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="test_ceiling.")
        cls.path = os.path.join(cls.tmp.name, "probe.csv")
        write(cls.path, PROBE)
        cls.probe = ceiling.load_probe(cls.path)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def assertRel(self, a, b, rel=1e-9):
        self.assertIsNotNone(a)
        self.assertTrue(math.isclose(a, b, rel_tol=rel), f"{a!r} != {b!r}")


class Probe(Base):
    def test_inputs(self):
        p = ceiling.params(self.probe)
        self.assertEqual(p["t_a"], 5.0)
        self.assertEqual(p["t_s"], 10.0)          # both threads counted
        self.assertEqual(p["t_s_x"], 40.0)
        self.assertEqual(p["t_c"], 50.0)
        self.assertEqual(p["bw_p"], 6.4)          # cache to cache, not memory
        self.assertIsNone(p["bw_m"])              # no pairs at once measured
        x = ceiling.params(self.probe, split=True)
        self.assertEqual((x["t_c"], x["t_x"], x["bw_p"]), (100.0, 100.0, 3.2))
        self.assertEqual(self.probe.get("bw_local_gbs"), 12.0)  # the best node
        n = ceiling.model_numbers(self.probe)
        self.assertEqual((n["t_s_ns"], n["bw_pull_gbs"], n["bw_local_mt_gbs"]), (10.0, 6.4, 30.0))

    def test_older_probe_stands_in(self):
        old = "\n".join(line for line in PROBE.splitlines()
                        if not line.startswith(("c2c_bw", "faa_contended_other", "bw_local_mt")))
        path = os.path.join(self.tmp.name, "old.csv")
        write(path, old + "\n")
        p = ceiling.params(ceiling.load_probe(path))
        self.assertEqual(p["bw_p"], 12.0)         # one thread's memory read
        self.assertEqual(p["t_s_x"], p["t_s"])    # within stands in for across

    def test_bad_probe(self):
        path = os.path.join(self.tmp.name, "bad.csv")
        write(path, PROBE.replace("faa_uncontended_ns,0,,0,,5.0", "faa_uncontended_ns,0,,0,,x"))
        with self.assertRaises(ValueError):
            ceiling.load_probe(path)
        write(path, "\n".join(x for x in PROBE.splitlines() if "faa_uncontended" not in x))
        with self.assertRaises(ValueError):
            ceiling.load_probe(path)
        write(path, "a,b\n1,2\n")
        with self.assertRaises(ValueError):
            ceiling.load_probe(path)


class LinesPerItem(Base):
    def lines(self, q, item="inline", **kw):
        return ceiling.lines_per_item(q, item, **kw)

    def test_vyukov_cells_both_ways(self):
        for q in ("numaring", "flat"):
            li = self.lines(q)
            self.assertEqual((li["to_c"], li["to_p"], li["total"]), (0.25, 0.25, 0.5))
            self.assertEqual(li["index"], 0)      # one producer never reads head
            li = self.lines(q, "message")
            self.assertEqual((li["to_c"], li["to_p"], li["message"]), (0.5, 0.5, 0.5))
            li = self.lines(q, bursts=True, batch=32)
            # bursts look at the cells, not at the other index (ring v2)
            self.assertEqual((li["to_c"], li["index"]), (0.25, 0))

    def test_one_way_slots_and_index_lines(self):
        li = self.lines("rte")
        self.assertEqual((li["to_c"], li["to_p"]), (8 / 64 + 1, 1))   # slot + prod line; cons line
        li = self.lines("rte", bursts=True, batch=32)
        self.assertEqual((li["to_c"], li["to_p"]), (8 / 64 + 1 / 32, 1 / 32))
        self.assertEqual(self.lines("ck", bursts=True, batch=32), self.lines("ck"))  # no bursts
        self.assertEqual(self.lines("mutex")["total"], 8 / 64 + 2)
        li = self.lines("rte", "message")
        self.assertEqual((li["to_c"], li["to_p"]), (8 / 64 + 1 + 16 / 64, 1 + 16 / 64))

    def test_other_protocols(self):
        li = self.lines("moodycamel")
        self.assertEqual((li["to_c"], li["to_p"]), (8 / 64 + 1, 3 / 64))
        li = self.lines("urcu")
        self.assertEqual((li["to_c"], li["to_p"]), (18 / 64, 18 / 64))
        for item in ("inline", "message"):
            self.assertEqual(self.lines("faa", item)["total"], 0)  # nothing travels
        self.assertIsNone(self.lines("null"))
        self.assertIsNone(ceiling.ceiling_ops_per_s(self.probe, row(queue="null")))

    def test_split_counts_the_realized_transfer(self):
        li = self.lines("numaring", split=True, batch=256, realized=4)
        self.assertEqual((li["to_c"], li["to_p"]), (0.25 + 1 / 4, 0.25 + 1 / 4))

    def test_whole_lines_not_bytes(self):
        # rte moves 8 bytes of slot per item, but each operation pulls two
        # whole index lines: 136 bytes, not 8
        self.assertEqual(self.lines("rte")["total"] * 64, 8 + 128)


class Terms(Base):
    def terms(self, **kw):
        return ceiling.terms(self.probe, row(**kw))

    def test_ops(self):
        t = self.terms(queue="faa")
        self.assertRel(t["ops"], 1 / T_A)
        self.assertIsNone(t["bandwidth"])
        self.assertIsNone(t["contention"])
        self.assertRel(self.terms(queue="faa", bursts=1)["ops"], 32 / T_A)
        self.assertRel(self.terms(queue="mutex")["ops"], 1 / (2 * T_A))      # lock + unlock
        self.assertRel(self.terms(queue="moodycamel")["ops"], 1 / (2 * T_A))  # consumer's 2

    def test_contention_is_serial_not_linear(self):
        self.assertIsNone(self.terms(producers=1, consumers=1)["contention"])
        two = self.terms(producers=2, consumers=2)["contention"]
        eight = self.terms(producers=8, consumers=8)["contention"]
        self.assertRel(two, 1 / T_S)
        self.assertEqual(two, eight)               # more threads, no more throughput
        self.assertRel(self.terms(producers=8, consumers=1)["contention"], 1 / T_S)
        self.assertRel(self.terms(producers=2, consumers=2, bursts=1)["contention"], 32 / T_S)
        # ops alone would grow with threads
        self.assertRel(self.terms(producers=8, consumers=8)["ops"], 8 / T_A)
        self.assertEqual(ceiling.binding(self.probe, row(producers=8, consumers=8)), "contention")

    def test_one_ring_per_node(self):
        # numaring off a split placement: producers may spread over the rings
        # of the run's nodes; flat has one ring whatever the nodes
        self.assertIsNone(self.terms(producers=2, consumers=2, nodes=2)["contention"])
        self.assertRel(self.terms(producers=8, consumers=8, nodes=2)["contention"], 2 / T_S)
        self.assertRel(self.terms(queue="flat", producers=8, consumers=8, nodes=2)["contention"],
                       1 / T_S)
        # split: every producer on one node, one ring
        self.assertRel(self.terms(producers=8, consumers=8, nodes=2, pin="split")["contention"],
                       1 / T_S)

    def test_contention_of_other_protocols(self):
        # the mutex: one line for both sides, two acquisitions per item
        self.assertRel(self.terms(queue="mutex")["contention"], 1 / (2 * T_S))
        self.assertRel(self.terms(queue="mutex", pin="split")["contention"], 1 / (2 * T_SX))
        # moodycamel: producers own sub-queues; consumers fight only when C > P
        self.assertIsNone(self.terms(queue="moodycamel", producers=4, consumers=2)["contention"])
        self.assertRel(self.terms(queue="moodycamel", producers=2, consumers=4)["contention"],
                       2 / T_S)

    def test_oversubscribed(self):
        t = self.terms(producers=4, consumers=4, oversubscribed=1)
        self.assertRel(t["contention"], 1 / T_A)   # the line may never leave a CPU
        self.assertIsNone(t["bandwidth"])
        t = self.terms(queue="rte", oversubscribed=1)
        self.assertIsNone(t["latency"])

    def test_latency(self):
        # A3, pipelined hand-over: items in flight (Little) over one transfer
        lat = dict(inflight=3, latency_count=100)
        self.assertRel(self.terms(queue="rte", **lat)["latency"], 3 / T_C)
        self.assertRel(self.terms(**lat)["latency"], 3 / T_C)          # cells or index alike
        self.assertRel(self.terms(bursts=1, **lat)["latency"], 3 / T_C)
        self.assertRel(self.terms(queue="rte", pin="split", **lat)["latency"], 3 / T_X)
        # no latency recorded, nothing in flight, nothing travels: no term
        self.assertIsNone(self.terms(queue="rte")["latency"])
        self.assertIsNone(self.terms(queue="rte", inflight=3, latency_count=0)["latency"])
        self.assertIsNone(self.terms(queue="rte", inflight=0, latency_count=100)["latency"])
        self.assertIsNone(self.terms(queue="faa", **lat)["latency"])
        # bounds() without a run's inflight has none; with one, the same
        self.assertIsNone(ceiling.bounds(self.probe, 1, 1, 32, False, False, queue="rte")["latency"])
        self.assertRel(ceiling.bounds(self.probe, 1, 1, 32, False, False, queue="rte",
                                      inflight=3)["latency"], 3 / T_C)

    def test_latency_takes_the_runs_own_trip_when_shorter(self):
        # A3's t_c: the smaller of the probe's and the run's own trip (the
        # harness times it just before and just after the run); a longer one
        # leaves the probe's, which may have held in between
        lat = dict(queue="rte", inflight=3, latency_count=100)
        ns = T_C * 1e9   # the probe's one-way trip, ns (T_C is in seconds)
        near = dict(c2c_one_way_before_ns=ns / 4, c2c_one_way_after_ns=ns / 2)
        self.assertRel(self.terms(**lat, **near)["latency"], 3 / (T_C / 4))
        far = dict(c2c_one_way_before_ns=ns * 5, c2c_one_way_after_ns=ns * 4)
        self.assertRel(self.terms(**lat, **far)["latency"], 3 / T_C)
        one = dict(c2c_one_way_before_ns="", c2c_one_way_after_ns=ns / 2)
        self.assertRel(self.terms(**lat, **one)["latency"], 3 / (T_C / 2))
        self.assertRel(self.terms(**lat, c2c_one_way_before_ns="x")["latency"], 3 / T_C)
        self.assertEqual(ceiling.run_t_c(row(**near)), ns / 4)
        self.assertIsNone(ceiling.run_t_c(row()))
        # the sojourn in transfers counts the same t_c
        r = row(throughput_ops_per_s=10e6, **lat, **near)
        self.assertRel(ceiling.sojourn_in_transfers(self.probe, r), 3 / 10e6 / (T_C / 4))

    def test_latency_is_each_runs(self):
        # a group's ratio is the median of its runs' own ratios, the bound the
        # term binding most of them
        runs = [row(queue="rte", inflight=L, latency_count=10, throughput_ops_per_s=m)
                for L, m in ((1, 10e6), (2, 30e6), (4, 20e6))]
        g = ceiling.group_ratio(self.probe, runs)
        self.assertRel(g["ratio"], sorted([10e6 * T_C / 1, 30e6 * T_C / 2, 20e6 * T_C / 4])[1])
        self.assertRel(g["ceiling"], 2 / T_C)
        self.assertEqual((g["bound"], g["runs"]), ("latency", 3))
        self.assertRel(ceiling.sojourn_in_transfers(self.probe, runs[0]), 1 / 10e6 / T_C)
        self.assertIsNone(ceiling.group_ratio(self.probe, [row(queue="null")]))

    def test_bandwidth(self):
        t = self.terms()
        self.assertRel(t["bandwidth"], LPS / 0.25)
        t = self.terms(queue="rte", bursts=1, item="message")
        to_c, to_p = 8 / 64 + 1 / 32 + 16 / 64, 1 / 32 + 16 / 64
        self.assertRel(t["bandwidth"], min(LPS / to_c, LPS / to_p))
        # the producers pull the lines written back: two of them pull twice as much
        t = self.terms(queue="flat", producers=2, consumers=1)
        self.assertRel(t["bandwidth"], LPS / 0.25)
        # all threads together: a measured aggregate caps the sum
        path = os.path.join(self.tmp.name, "mt.csv")
        write(path, PROBE + "c2c_bw_mt_same_node_gbs,0,1,0,0,9.6,0.1,GB/s,"
                            "stream-256-lines-sum-of-2pairs\n")
        t = ceiling.terms(ceiling.load_probe(path), row(producers=2, consumers=2))
        self.assertRel(t["bandwidth"], 9.6e9 / 64 / 0.5)

    def test_crossing_uses_the_realized_batch(self):
        t = self.terms(pin="split", batch=256, items_per_transfer=2)
        per = T_X + 2 * 16 / 3.2e9
        self.assertRel(t["crossing"], 2 * 2 / per)   # P + C movers, per-worker gate
        # no column: the counters give the same; neither: the configured batch
        t2 = self.terms(pin="split", batch=256, items_in=300, items_out=100, batches_in=150,
                        batches_out=50)
        self.assertRel(t2["crossing"], t["crossing"])
        t3 = self.terms(pin="split", batch=4)
        self.assertRel(t3["crossing"], 2 * 4 / (T_X + 4 * 16 / 3.2e9))
        # the configured batch is not what moved: 256 would be far higher
        self.assertGreater(self.terms(pin="split", batch=256)["crossing"], 5 * t["crossing"])

    def test_crossing_gates(self):
        per = T_X + 8 * 16 / 3.2e9
        for gate, movers in (("perworker", 4), ("pernode", 2), ("shared", 1)):
            t = self.terms(pin="split", batch=8, producers=2, consumers=2, gate=gate)
            self.assertRel(t["crossing"], movers * 8 / per)
        self.assertIsNone(self.terms(pin="split", queue="flat")["crossing"])  # no transfers
        self.assertIsNone(self.terms()["crossing"])                             # one node


class Binding(Base):
    def bound(self, **kw):
        return ceiling.binding(self.probe, row(**kw))

    def test_each_term_can_bind(self):
        self.assertEqual(self.bound(queue="faa"), "ops")
        self.assertEqual(self.bound(queue="rte", inflight=1, latency_count=9), "latency")
        self.assertEqual(self.bound(producers=4, consumers=4), "contention")
        self.assertEqual(self.bound(pin="split", batch=1), "crossing")
        self.assertEqual(self.bound(queue="urcu", bursts=1, item="message"), "bandwidth")

    def test_ceiling_is_the_binding_term(self):
        for kw in ({"queue": "rte", "inflight": 1, "latency_count": 9},
                   {"producers": 4, "consumers": 4}, {"pin": "split"}):
            r = row(**kw)
            t = ceiling.terms(self.probe, r)
            self.assertEqual(ceiling.ceiling_ops_per_s(self.probe, r), t[ceiling.binding(self.probe, r)])
            self.assertEqual(ceiling.ceiling_ops_per_s(self.probe, r), min(v for v in t.values() if v))

    def test_typed_rows(self):
        # nrdata's rows carry numbers, csv rows strings: the same ceiling
        r = row(producers=2, consumers=2, pin="split", items_per_transfer=3.5, oversubscribed="")
        typed = dict(r, producers=2, consumers=2, batch=32, bursts=0, items_per_transfer=3.5,
                     oversubscribed=None)
        self.assertEqual(ceiling.ceiling_ops_per_s(self.probe, r),
                         ceiling.ceiling_ops_per_s(self.probe, typed))
        self.assertEqual(ceiling.terms(self.probe, dict(typed, oversubscribed=1)),
                         ceiling.terms(self.probe, dict(r, oversubscribed="1")))

    def test_rows_the_model_cannot_use(self):
        for r in (row(producers=0), row(batch="x"), row(queue="fault")):
            self.assertIsNone(ceiling.ceiling_ops_per_s(self.probe, r))
            self.assertIsNone(ceiling.binding(self.probe, r))


class ModelFailure(Base):
    """A point above the model fails the run."""

    def test_check_rows(self):
        lat = dict(queue="rte", inflight=1, latency_count=9)
        c = ceiling.ceiling_ops_per_s(self.probe, row(**lat))
        above = row(throughput_ops_per_s=c * 1.05, point="p-above", **lat)
        below = row(throughput_ops_per_s=c * 0.5, point="p-below", **lat)
        bad = ceiling.check_rows(self.probe, [below, above, row(throughput_ops_per_s="")])
        self.assertEqual(len(bad), 1)
        self.assertEqual((bad[0]["index"], bad[0]["point"], bad[0]["bound"]), (1, "p-above", "latency"))
        self.assertRel(bad[0]["ratio"], 1.05)
        self.assertEqual(ceiling.check_rows(self.probe, [below]), [])
        self.assertEqual(ceiling.check_rows(self.probe, [above], tolerance=0.1), [])
        # a symmetric workload counts operations, each thread both sides: not modelled
        self.assertEqual(ceiling.check_rows(self.probe, [dict(above, workload="pairs")]), [])
        self.assertEqual(len(ceiling.check_rows(self.probe, [dict(above, workload="prodcons")])),
                         1)

    def test_check_fails_the_run(self):
        host = os.path.join(self.tmp.name, "results", "h")
        os.makedirs(os.path.join(host, "probe"))
        write(os.path.join(host, "probe", "probe.csv"), PROBE)
        c = ceiling.ceiling_ops_per_s(self.probe, row(producers=2, consumers=2))
        rows = [row(producers=2, consumers=2, throughput_ops_per_s=c * f, point=f"p{i}")
                for i, f in enumerate((0.3, 0.9))]
        path = os.path.join(host, "f4-backoff.csv")
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        cmd = module("analysis.ceiling") + ["--check", host]
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        rows[1]["throughput_ops_per_s"] = str(c * 1.2)
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        r = subprocess.run(cmd, capture_output=True, text=True)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("p1", r.stdout)
        self.assertIn("contention", r.stdout)
        self.assertIn("the model fails", r.stdout)

    def test_committed_verdict_is_the_reports(self):
        """A committed point above its ceiling is a finding, not a failure: each
        committed host's reproduction report (claims.csv) says F5.model-bounds
        does not hold exactly where the model is beaten (scripts/analysis/claims.py)."""
        from scripts.analysis import claims
        results = os.path.join(ROOT, "results")
        hosts = claims.real_hosts(results)
        hosts = [h for h in hosts if os.path.exists(os.path.join(results, h, "probe",
                                                                 "probe.csv"))]
        if not hosts:
            self.skipTest("no committed results with a probe")
        for h in hosts:
            with self.subTest(host=h):
                d = os.path.join(results, h)
                beaten = [v for dd in dict.fromkeys([d, claims.Host(d).cross or d])
                          for v in ceiling.check_host(dd)]
                with open(os.path.join(d, "claims.csv"), newline="") as f:
                    row = [r for r in csv.DictReader(f) if r["claim"] == "F5.model-bounds"][0]
                self.assertEqual(row["status"], "does not hold" if beaten else "holds", row)


class Prediction(Base):
    def test_one_way_latencies_are_not_halved(self):
        within, across = 48.0, 136.0
        out = ceiling.predict_two_socket(self.probe, within, across, batches=(1, 16), terms=True)
        for b in (1, 16):
            v, name, t = out[b]
            # 32 movers, each transfer: one one-way line across, then b cells
            self.assertRel(t["crossing"], 32 * b / (across * 1e-9 + b * 16 / 3.2e9))
            self.assertEqual(v, min(x for x in t.values() if x))
            self.assertEqual(name, min((x, k) for k, x in t.items() if x)[1])
        # halving the published one-way figure again would raise the bound
        halved = ceiling.predict_two_socket(self.probe, within, across / 2, batches=(1,),
                                            terms=True)[1][2]["crossing"]
        self.assertGreater(halved, out[1][2]["crossing"] * 1.5)
        plain = ceiling.predict_two_socket(self.probe, within, across, batches=(1, 16))
        self.assertEqual(plain, {b: out[b][0] for b in (1, 16)})

    def test_sixteen_producers_share_one_tail(self):
        # t_s scaled by their within-socket latency over ours (50 ns)
        out = ceiling.predict_two_socket(self.probe, 100.0, 136.0, batches=(256,), terms=True)
        v, name, t = out[256]
        self.assertRel(t["contention"], 1 / (T_S * 100 / 50))
        self.assertEqual(name, "contention")
        self.assertEqual(v, t["contention"])

    def test_published_inputs(self):
        for name, (within, across) in ceiling.PUBLISHED.items():
            self.assertLess(within, across, name)


class Paper(unittest.TestCase):
    """The paper's lines-per-item table and published latencies are those of
    ceiling.py."""

    TEX = os.path.join(ROOT, "paper", "numaring.tex")

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(cls.TEX):
            raise unittest.SkipTest("no paper")
        with open(cls.TEX, encoding="utf-8") as f:
            tex = f.read()
        a = tex.find("\\section{The ceiling model}")
        b = tex.find("\\section", a + 1)
        cls.sec = tex[a:b] if a >= 0 else ""

    @staticmethod
    def frac(s):
        s = s.strip()
        if "/" in s:
            n, d = s.split("/")
            return float(n) / float(d)
        return float(s)

    def test_table(self):
        if "tab:lines" not in self.sec:
            self.skipTest("the model section has no lines-per-item table")
        names = {"\\nr, flat": ("numaring", "flat"), "rte": ("rte",), "ck": ("ck",),
                 "moodycamel": ("moodycamel",), "urcu": ("urcu",), "mutex": ("mutex",),
                 "faa": ("faa",)}
        seen = set()
        for line in self.sec.splitlines():
            cells = [c.strip() for c in line.rstrip("\\ ").split("&")]
            if len(cells) != 5 or cells[0] not in names:
                continue
            seen.add(cells[0])
            slot_c, slot_p = (self.frac(x) for x in cells[1].split(";"))
            idx = re.match(r"(\d+);\s*(\d+)", cells[2])
            rmw = tuple(int(x) for x in cells[3].split(";"))
            for q in names[cells[0]]:
                pr = ceiling.PROTOCOLS[q]
                self.assertAlmostEqual(slot_c, pr["slot"] / 64 + pr["extra"][0], msg=q)
                self.assertAlmostEqual(slot_p, (pr["slot"] / 64 if pr["slot_back"] else 0)
                                       + pr["extra"][1], msg=q)
                self.assertEqual((int(idx.group(1)), int(idx.group(2))), pr["idx"], q)
                self.assertEqual(rmw, pr["rmw"], q)
                burst = re.search(r"bursts (\d+);\s*(\d+)", cells[2])
                if burst:
                    self.assertEqual((int(burst.group(1)), int(burst.group(2))), pr["idx_burst"])
                if "no bursts" in cells[2]:
                    self.assertFalse(pr["bursts"])
        self.assertEqual(seen, set(names))
        self.assertIn("+%d/64 each way" % ceiling.MESSAGE_BYTES, self.sec)

    def test_published_latencies_quoted(self):
        """The paper quotes the published latencies through macros that
        paper_numbers.py writes from ceiling.PUBLISHED (no number typed in)."""
        with open(os.path.join(ROOT, "paper", "generated", "numbers.tex"), encoding="utf-8") as f:
            nums = f.read()
        for name, (within, across) in zip(("Xeon", "Icelake", "Epyc"), ceiling.PUBLISHED.values()):
            for kind, v in (("Within", within), ("Across", across)):
                macro = "Pred%s%sNs" % (name, kind)
                self.assertIn("\\newcommand{\\%s}{%g}" % (macro, v), nums, macro)
                self.assertIn("\\" + macro, self.sec, macro)


@unittest.skipUnless(os.environ.get("NUMARING_BENCH"), "NUMARING_BENCH not set")
class ThisHost(unittest.TestCase):
    """The quick probe of this host has every row the model uses."""

    def test_quick_probe(self):
        bench = os.environ["NUMARING_BENCH"]
        if not os.path.isabs(bench):
            bench = os.path.join(ROOT, bench)
        with tempfile.TemporaryDirectory(prefix="test_ceiling.") as d:
            env = dict(os.environ)
            env.pop("NUMARING_TOPOLOGY", None)
            r = subprocess.run([bench, "--probe", "--quick", "--out", d], capture_output=True,
                               text=True, env=env, timeout=120)
            self.assertEqual(r.returncode, 0, r.stderr)
            probe = ceiling.load_probe(os.path.join(d, "probe.csv"))
            for kind in ("faa_uncontended_ns", "bw_local_gbs", "bw_local_mt_gbs"):
                self.assertIsNotNone(probe.get(kind), kind)
            if (os.cpu_count() or 1) >= 2:
                for kind in ("faa_contended_ns", "c2c_bw_same_node_gbs"):
                    self.assertIsNotNone(probe.get(kind), kind)
            p = ceiling.params(probe)
            self.assertEqual(p["bw_p"], probe.get("c2c_bw_same_node_gbs") or p["bw_p"])
            r = row(producers=2, consumers=2)
            self.assertIsNotNone(ceiling.ceiling_ops_per_s(probe, r))
            self.assertIn(ceiling.binding(probe, r), ceiling.TERMS)


if __name__ == "__main__":
    unittest.main()
