# SPDX-License-Identifier: BSD-2-Clause
"""Tests of the claims table and the reproduction report (scripts/analysis/claims.py).

The mutation test is the heart: for every claim, a synthetic host on which it
is testable, its CSV forced to a value on the claimed side of the threshold
(the status must be "holds") and then on the other side ("does not hold"). A
claim whose status does not flip reads the wrong data or compares the wrong way.
"""

import csv
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from scripts.analysis import claims, claims_table, findings
from scripts.common import manifest
from scripts.tests import fakeresults, module, slow

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
ROOT = os.path.dirname(SCRIPTS)


PY = sys.executable
#: the rounds of the synthetic hosts: enough pairs (6) for a paired claim to decide
REPS = 6
BIG = {"cores": 32, "threads_per_core": 1, "sockets": 2, "hypervisor": None}
SMALL = {"cores": 2, "threads_per_core": 1, "sockets": 1, "hypervisor": "KVM"}
PAIR_KEYS = ("rep", "round", "producers", "consumers", "item", "bursts", "load", "batch",
             "shape", "workload", "work_ns")


def read(path):
    with open(path, newline="") as f:
        r = csv.DictReader(f)
        return r.fieldnames, list(r)


def write(path, fields, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def matches(row, sel):
    return all(str(row.get(k)) == str(v) for k, v in sel.items())


def force(path, sel_a, sel_b, column, f):
    """Set column of every row matching sel_a to f(value of its partner): the
    row matching sel_b with the same rep/round and configuration otherwise."""
    fields, rows = read(path)
    keys = [k for k in PAIR_KEYS if k in fields and k not in sel_a]
    partners = {tuple(r.get(k) for k in keys): r for r in rows if matches(r, sel_b)}
    n = 0
    for r in rows:
        if matches(r, sel_a):
            b = partners.get(tuple(r.get(k) for k in keys))
            if b is not None and b[column] not in ("", None):
                r[column] = f"{f(float(b[column])):.6g}"
                n += 1
    assert n, f"{path}: no row of {sel_a} paired with {sel_b}"
    write(path, fields, rows)


def set_all(path, sel, column, value):
    fields, rows = read(path)
    fields = fields + ([column] if column not in fields else [])
    for r in rows:
        if matches(r, sel):
            r[column] = value(r) if callable(value) else value
    write(path, fields, rows)


def write_bench(hostdir):
    """Synthetic results/<host>/bench/ CSVs in the format the bench scripts write."""
    b = os.path.join(hostdir, "bench")
    os.makedirs(b, exist_ok=True)
    rows = []
    for rnd in range(1, REPS + 1):
        for q, v in (("numaring", 200e6), ("flat", 190e6), ("rte", 150e6)):
            for bursts in ("0", "1"):
                for where in ("harness", "bare"):
                    rows.append({"bench": "bench-peers", "round": rnd, "queue": q,
                                 "shape": "1x1", "bursts": bursts, "item": "inline",
                                 "where": where, "accounting": "auto", "duration_s": "1",
                                 "throughput_ops_per_s": f"{v * (1 + rnd / 100):.6g}",
                                 "full_retries_per_burst": ""})
    write(os.path.join(b, "bench-peers.csv"), list(rows[0]), rows)
    rows = [{"bench": "bench-fidelity", "round": rnd, "queue": q, "config": config,
             "bursts": bursts, "item": item, "where": where, "stripped": "",
             "throughput_ops_per_s": "100e6"}
            for rnd in range(1, REPS + 1) for q in ("numaring", "flat", "rte") for bursts in ("0", "1")
            for config, item in (("1p1c", "inline"), ("1p1c", "message"), ("pairs", "inline"))
            for where in ("harness", "bare")]
    write(os.path.join(b, "bench-fidelity.csv"), list(rows[0]), rows)
    rows = [{"bench": "bench-oversub", "round": 1, "lookup": lk, "gate": g, "backoff": bo,
             "items_per_s": "1e6", "ratio_to_perworker": "0.9"}
            for lk in ("cached", "libnuma") for g in ("perworker", "shared")
            for bo in ("none", "exp")]
    write(os.path.join(b, "bench-oversub.csv"), list(rows[0]), rows)


def add_workloads(hostdir):
    """F4's rows again as workloads pairs and mixed (a workload column) at each
    local work level F4's claims read (work_ns), as numaring-bench --workload
    and --work write them."""
    path = os.path.join(hostdir, "f4-backoff.csv")
    fields, rows = read(path)
    fields = fields + [c for c in ("workload", "work_ns") if c not in fields]
    out = []
    for work in claims.F4_WORK_NS:
        for w in ("prodcons", "pairs", "mixed"):
            for r in rows:
                out.append(dict(r, workload=w, work_ns=work,
                                point=f"{r['point']}_workload={w}_work={work}"))
    write(path, fields, out)


def add_cross(hostdir):
    """peers.csv's prodcons rows again at pin split (producers on one node,
    consumers on the other), rte_ring's again as SCQ's (the model has none),
    and numaring's producer-paced (producer_work_ns above the consumers'):
    what the cross-node claims read."""
    path = os.path.join(hostdir, "peers.csv")
    fields, rows = read(path)
    fields = fields + [c for c in ("pin", "producer_work_ns", "consumer_work_ns")
                       if c not in fields]
    out = list(rows)
    out += [dict(r, pin="split", point=f"{r['point']}_pin=split") for r in rows]
    out += [dict(r, queue="scq", point=f"{r['point']}_scq") for r in out if r["queue"] == "rte"]
    out += [dict(r, producer_work_ns="200", consumer_work_ns="0",
                 point=f"{r['point']}_pace=producer")
            for r in out if r["queue"] == "numaring"]
    write(path, fields, out)


def add_symmetric(hostdir):
    """peers.csv's compact rows again as workloads pairs and mixed (a
    workload column), and F4's pairs and mixed rows again with the default
    backoff: what the one-node cells and the default's claims read."""
    path = os.path.join(hostdir, "peers.csv")
    fields, rows = read(path)
    fields = fields + [c for c in ("workload",) if c not in fields]
    out = [dict(r, workload="prodcons") for r in rows]
    for w in ("pairs", "mixed"):
        out += [dict(r, workload=w, point=f"{r['point']}_workload={w}") for r in rows
                if r.get("pin", "compact") == "compact"]
    write(path, fields, out)
    path = os.path.join(hostdir, "f4-backoff.csv")
    fields, rows = read(path)
    default = manifest.backoff_default()
    rows += [dict(r, backoff=default, point=f"{r['point']}_backoff={default}") for r in rows
             if r["backoff"] == "none" and r["workload"] != "prodcons"]
    write(path, fields, rows)


def big_host(root):
    """A two-socket host at the study's scale: every claim is testable."""
    fakeresults.make_synthetic(root, "big", kind="real", threads=(2, 32), reps=REPS,
                               machine=BIG, nodes=2, f3_loads=(0.5,), f5_realized=0.9,
                               f4_failed=0.01)
    write_bench(os.path.join(root, "big"))
    add_workloads(os.path.join(root, "big"))
    add_cross(os.path.join(root, "big"))
    add_symmetric(os.path.join(root, "big"))
    return os.path.join(root, "big")


def ratio_to(v):
    return lambda b: b * v


#: per claim: (how to put the value at v, a value that holds, one that does not)
def mutations(h):
    def c(*p):
        return os.path.join(h, *p)

    def f1(v):  # look-up / data movement = none / libnuma - 1
        force(c("f1-lookup-cost.csv"), {"lookup": "libnuma"}, {"lookup": "none"},
              "throughput_ops_per_s", lambda b: b / (1 + v))

    def f2(v):
        force(c("f2-node-cache.csv"), {"lookup": "cached"}, {"lookup": "libnuma"},
              "throughput_ops_per_s", ratio_to(v))

    def f3(v):
        force(c("f3-gate.csv"), {"gate": "shared"}, {"gate": "perworker"}, "p50_ns",
              ratio_to(v))

    def f4(b, w="prodcons", work=0):
        def put(v):
            force(c("f4-backoff.csv"), {"backoff": b, "workload": w, "work_ns": work},
                  {"backoff": "none", "workload": w, "work_ns": work}, "throughput_ops_per_s",
                  ratio_to(1 + v / 100))
        return put

    def f5_model(v):
        if v > 1:
            set_all(c("peers.csv"), {"queue": "numaring"}, "throughput_ops_per_s", "1e15")
        else:
            for name in ("f1-lookup-cost", "f2-node-cache", "f3-gate", "f4-backoff",
                         "f5-ceiling", "peers"):
                set_all(c(f"{name}.csv"), {}, "throughput_ops_per_s", "1")

    def f5_tight(v):
        # every run's CPUs where the probe found them (its 60 ns trip): testable;
        # then every peer's throughput far above (holds) or below (not) its ceiling
        for k in ("c2c_one_way_before_ns", "c2c_one_way_after_ns"):
            set_all(c("peers.csv"), {}, k, "60")
        set_all(c("peers.csv"), {}, "regime", "near-empty")
        set_all(c("peers.csv"), {}, "throughput_ops_per_s", "1e15" if v >= 0.5 else "1")

    def f5_realized(v):
        set_all(c("f5-ceiling.csv"), {}, "items_per_transfer",
                lambda r: f"{float(r['batch']) * v:.6g}")

    def peers(bursts, peer):
        def put(v):
            force(c("peers.csv"), {"queue": "numaring", "bursts": bursts},
                  {"queue": peer, "bursts": bursts}, "throughput_ops_per_s", ratio_to(v))
        return put

    def cross(bursts, peer):
        def put(v):
            force(c("peers.csv"), {"queue": "numaring", "bursts": bursts, "pin": "split"},
                  {"queue": peer, "bursts": bursts, "pin": "split"}, "throughput_ops_per_s",
                  ratio_to(v))
        return put

    def cross_best(v):
        # every peer at numaring's speed / 1.6, then the best of them (rte) at v
        for q in ("flat", "ck", "moodycamel", "urcu", "mutex", "scq"):
            force(c("peers.csv"), {"queue": q, "bursts": "1", "pin": "split"},
                  {"queue": "numaring", "bursts": "1", "pin": "split"},
                  "throughput_ops_per_s", ratio_to(1 / 1.6))
        cross("1", "rte")(v)

    def cross_p99(v):
        paced = {"queue": "numaring", "producer_work_ns": "200"}
        force(c("peers.csv"), {**paced, "pin": "split"}, {**paced, "pin": "compact"},
              "p99_ns", ratio_to(v))

    def bench(bursts, peer, where="harness"):
        def put(v):
            force(c("bench", "bench-peers.csv"),
                  {"queue": "numaring", "bursts": bursts, "where": where},
                  {"queue": peer, "bursts": bursts, "where": where},
                  "throughput_ops_per_s", ratio_to(v))
        return put

    def fidelity(item, config):
        def put(v):
            sel = {"queue": "flat", "bursts": "1", "item": item, "config": config}
            force(c("bench", "bench-fidelity.csv"), {**sel, "where": "harness"},
                  {**sel, "where": "bare"}, "throughput_ops_per_s", ratio_to(v))
        return put

    def best_bounded(w, bursts):
        # every bounded peer at flat's speed / 1.6 (flat the best), then
        # numaring at v x flat
        def put(v):
            ran = {r["queue"] for r in read(c("peers.csv"))[1]}
            for q in findings.bounded_peers():
                if q != "flat" and q in ran:
                    force(c("peers.csv"), {"queue": q, "bursts": bursts, "workload": w},
                          {"queue": "flat", "bursts": bursts, "workload": w},
                          "throughput_ops_per_s", ratio_to(1 / 1.6))
            force(c("peers.csv"), {"queue": "numaring", "bursts": bursts, "workload": w},
                  {"queue": "flat", "bursts": bursts, "workload": w},
                  "throughput_ops_per_s", ratio_to(v))
        return put

    def default_backoff(w):
        # every other backoff at none's speed / 1.6 (none the best), then the
        # default at v x none
        def put(v):
            default = manifest.backoff_default()
            for b in manifest.backoffs():
                if b not in ("none", default):
                    force(c("f4-backoff.csv"), {"backoff": b, "workload": w, "work_ns": 0},
                          {"backoff": "none", "workload": w, "work_ns": 0},
                          "throughput_ops_per_s", ratio_to(1 / 1.6))
            force(c("f4-backoff.csv"), {"backoff": default, "workload": w, "work_ns": 0},
                  {"backoff": "none", "workload": w, "work_ns": 0}, "throughput_ops_per_s",
                  ratio_to(v))
        return put

    def order(v):
        set_all(c("peers.csv"), {"queue": "numaring"}, "ordering_enforced", "1")
        set_all(c("peers.csv"), {"queue": "numaring"}, "inversions_per_million", f"{v:g}")

    def oversub(v):
        set_all(c("bench", "bench-oversub.csv"), {"lookup": "libnuma", "gate": "shared"},
                "ratio_to_perworker", f"{v:g}")

    return {
        "F1.lookup-dominates": (f1, 3.0, 0.5),
        "F1.study-11x": (f1, 14.0, 8.0),
        "F2.cache-faster": (f2, 1.5, 0.8),
        "F2.study-6x": (f2, 6.5, 4.0),
        "F3.study-200x": (f3, 300.0, 50.0),
        "F3.shared-gate-costs": (f3, 3.0, 0.5),
        "F4.study-15-30pct": (f4("exp"), -25.0, -5.0),
        **{f"F4.{'' if w == 'prodcons' else w + '-'}{b}-costs"
           + (f"-w{work}" if work else ""): (f4(b, w, work), -10.0, 10.0)
           for work in claims.F4_WORK_NS for w in ("prodcons", "pairs", "mixed")
           for b in ("pause", "exp", "yield")},
        "F5.model-bounds": (f5_model, 0.5, 2.0),
        "F5.realized-batch": (f5_realized, 0.95, 0.5),
        "F5.model-tight": (f5_tight, 0.9, 0.1),
        "F5.study-interconnect": (f5_model, 0.5, 2.0),
        "ring.peers-bursts-rte": (peers("1", "rte"), 1.5, 1.0),
        "ring.peers-single-flat": (peers("0", "flat"), 1.2, 0.8),
        "ring.cross-rte": (cross("1", "rte"), 1.5, 1.0),
        "ring.cross-best-peer": (cross_best, 1.3, 0.8),
        "ring.cross-scq": (cross("0", "scq"), 1.3, 0.8),
        "ring.cross-p99": (cross_p99, 1.5, 3.0),
        "ring.bench-bursts-rte": (bench("1", "rte"), 1.5, 1.0),
        "ring.bench-bursts-rte-bare": (bench("1", "rte", "bare"), 1.5, 1.0),
        "ring.bench-single-flat": (bench("0", "flat"), 1.2, 0.8),
        "harness.fidelity": (fidelity("inline", "pairs"), 0.95, 0.5),
        "harness.fidelity-message": (fidelity("message", "1p1c"), 0.95, 0.4),
        "ring.oversub-no-collapse": (oversub, 0.5, 0.05),
        "ring.order-kept": (order, 0.0, 3.0),
        **{f"ring.best-bounded-{w}-{'bursts' if b == '1' else 'single'}":
           (best_bounded(w, b), 1.3, 0.8)
           for w in ("prodcons", "pairs", "mixed") for b in ("0", "1")},
        **{f"ring.default-backoff-{w}": (default_backoff(w), 0.97, 0.8)
           for w in ("pairs", "mixed")},
    }


class MutationTest(unittest.TestCase):
    """Each claim's fixture pushed across its threshold flips its status."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="nr-claims-")
        self.template = os.path.join(self.tmp, "template")
        big_host(self.template)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def status(self, host, claim_id):
        """The claim's row of claims.report(host), alone: report evaluates each
        claim of CLAIMS on the host (claims.evaluate), and one is asked here."""
        row = claims.evaluate(claims.BY_ID[claim_id], claims.Host(host))
        return row["status"], row

    def test_every_claim_has_a_mutation(self):
        self.assertEqual(set(mutations("x")), set(claims.BY_ID))

    def test_every_claim_flips_across_its_threshold(self):
        # One host, mutated in place (a copy per case of its ~1300 files was
        # most of this test's time): a mutation rewrites CSVs of the host's
        # folder or of bench/, which are put back after each case; at the end
        # the whole folder must be the template's, file for file, or a
        # mutation wrote elsewhere and leaked into the cases after it.
        h = os.path.join(self.template, "big")
        whole = snapshot(h)
        csvs = {p: b for p, b in whole.items()
                if os.path.dirname(p) in ("", "bench") and p.endswith(".csv")}
        for cid, (put, good, bad) in mutations("x").items():
            for value, want in ((good, "holds"), (bad, "does not hold")):
                with self.subTest(claim=cid, value=value):
                    try:
                        mutations(h)[cid][0](value)
                        st, row = self.status(h, cid)
                    finally:
                        for p, b in csvs.items():
                            with open(os.path.join(h, p), "wb") as f:
                                f.write(b)
                    self.assertEqual(st, want, row)
        self.assertEqual(snapshot(h), whole, "a mutation wrote outside the CSVs put back")


def snapshot(folder):
    """{path relative to folder: bytes} of every file under folder."""
    out = {}
    for d, _dirs, files in os.walk(folder):
        for name in files:
            p = os.path.join(d, name)
            with open(p, "rb") as f:
                out[os.path.relpath(p, folder)] = f.read()
    return out


class TestabilityTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="nr-claims-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def small(self, f4_failed=0.01):
        fakeresults.make_synthetic(self.tmp, "small", kind="real", threads=(2,), reps=3,
                                   machine=SMALL, nodes=1, f4_failed=f4_failed)
        fakeresults.make_synthetic(self.tmp, "small-emulated-2node-0_1", kind="emulated",
                                   threads=(2,), reps=3, machine=SMALL, nodes=2,
                                   f3_loads=(0.5,), f5_realized=0.9, machine_nodes=1)
        return {r["claim"]: r for r in claims.report(os.path.join(self.tmp, "small"))}

    def test_one_node_host_with_emulated_sibling(self):
        rep = self.small()
        for cid in ("F3.study-200x", "F5.study-interconnect", "F4.study-15-30pct"):
            self.assertEqual(rep[cid]["status"], "not testable here", rep[cid])
            self.assertTrue(rep[cid]["why"].startswith("needs"), rep[cid])
        # the emulated sibling still feeds the claims any two nodes can test
        self.assertIn(rep["F5.realized-batch"]["status"], ("holds", "does not hold"))
        self.assertIn("small-emulated-2node-0_1", rep["F5.realized-batch"]["source"])
        self.assertIn(rep["F4.exp-costs"]["status"], claims.STATUSES[:3])

    def test_backoff_not_exercised_when_the_no_backoff_run_lost_no_race(self):
        rep = self.small(f4_failed=0.00001)
        for b in ("pause", "exp", "yield"):
            r = rep[f"F4.{b}-costs"]
            self.assertEqual(r["status"], "not exercised", r)
            self.assertIn("races per 1,000 operations", r["why"])
            self.assertNotEqual(r["value"], "")  # the change is still shown

    def test_a_guest_tests_nothing(self):
        fakeresults.make_synthetic(self.tmp, "guest", kind="real", threads=(2,), reps=3,
                                   machine=SMALL, nodes=2)
        topo = os.path.join(self.tmp, "guest", "env", "show-topology.json")
        import json
        with open(topo) as f:
            t = json.load(f)
        t["virtualization"] = {"kind": "qemu-tcg", "timings_meaningful": False}
        with open(topo, "w") as f:
            json.dump(t, f)
        rep = claims.report(os.path.join(self.tmp, "guest"))
        self.assertEqual({r["status"] for r in rep}, {"not testable here"})
        self.assertTrue(all("timings meaningless" in r["why"] for r in rep), rep[0])

    def test_missing_data_is_not_testable_with_the_reason(self):
        rep = self.small()
        r = rep["ring.bench-bursts-rte"]
        self.assertEqual(r["status"], "not testable here")
        self.assertIn("make bench-peers", r["why"])

    def test_decide(self):
        d = claims.decide
        self.assertEqual(d(">", 1, 1.1, 2), "holds")
        self.assertEqual(d(">", 1, 0.5, 1.0), "does not hold")
        self.assertEqual(d(">", 1, 0.9, 1.1), "inconclusive")
        self.assertEqual(d(">=", 1, 1.0, 1.2), "holds")
        self.assertEqual(d("<", 0, -3, -1), "holds")
        self.assertEqual(d("<", 0, 0, 3), "does not hold")
        self.assertEqual(d("<=", 1, 0.5, 1.0), "holds")
        self.assertEqual(d("<=", 1, 0.9, 1.2), "inconclusive")

        self.assertEqual(d("in", (6, 7), 6.2, 6.9), "holds")
        self.assertEqual(d("in", (6, 7), 14.7, 23.1), "does not hold")
        self.assertEqual(d("in", (6, 7), 5.0, 6.5), "inconclusive")
        self.assertEqual(d("in", (-30, -15), -20, -5), "inconclusive")


def paired_claim(op=">", t=1.0):
    return claims_table.Claim(id="x.paired", finding="x", sentence="s", reads="r",
                              estimator="paired median ratio", op=op, threshold=t, unit="x",
                              study="", when=claims.ANY, measure=None)


class DecisionRuleTest(unittest.TestCase):
    """A paired claim decides only on an interval of >= 95% coverage (6 pairs);
    a range claim says on which side it missed; a bound states its rule."""

    def verdict(self, values, claim=None):
        claim = claim or paired_claim()
        m = claims_table.Measured(values[len(values) // 2], n=len(values),
                                         values=tuple(values))
        row = {"lo": "", "hi": "", "coverage": "", "why": ""}
        return claims_table._paired_verdict(claim, m, row), row

    def test_fewer_than_six_pairs_never_decide(self):
        for n in (1, 3, 5):
            with self.subTest(n=n):
                st, row = self.verdict([2.0 + i / 100 for i in range(n)])
                self.assertEqual(st, "inconclusive")
                self.assertIn(f"{n} pair", row["why"])
                self.assertIn("at least 6", row["why"])

    def test_six_pairs_past_the_threshold_hold(self):
        st, row = self.verdict([2.0 + i / 100 for i in range(6)])
        self.assertEqual(st, "holds")
        self.assertGreaterEqual(float(row["coverage"]), 0.95)
        st, _ = self.verdict([0.5 + i / 100 for i in range(6)])
        self.assertEqual(st, "does not hold")
        # one pair on the other side: the widest interval at n = 6 straddles
        st, _ = self.verdict([0.9] + [2.0 + i / 100 for i in range(5)])
        self.assertEqual(st, "inconclusive")

    def test_a_value_without_pairs_never_decides(self):
        claim = paired_claim()
        m = claims_table.Measured(9.08, n=1)
        row = {"lo": "", "hi": "", "coverage": "", "why": ""}
        self.assertEqual(claims_table._paired_verdict(claim, m, row), "inconclusive")

    def test_a_range_says_larger_or_smaller(self):
        f2 = claims.BY_ID["F2.study-6x"]
        self.assertEqual((f2.op, f2.threshold), ("in", (6.0, 7.0)))
        # the reviewer's fixture: 16.3 [14.7..23.1] against F2's [6, 7]
        vals = [14.7, 15.2, 16.0, 16.6, 19.0, 23.1]
        st, row = self.verdict(vals, f2)
        self.assertEqual(st, "does not hold")
        full = dict(row, status=st, op="in")
        self.assertEqual(claims.status_word(full), "does not hold: larger")
        st, row = self.verdict([3.0 + i / 10 for i in range(6)], f2)
        self.assertEqual(claims.status_word(dict(row, status=st, op="in")),
                         "does not hold: smaller")
        st, _ = self.verdict([6.1 + i / 10 for i in range(6)], f2)
        self.assertEqual(st, "holds")
        f4 = claims.BY_ID["F4.study-15-30pct"]
        self.assertEqual((f4.op, f4.threshold), ("in", (-30.0, -15.0)))
        self.assertEqual(claims.predicate({"op": "in", "threshold": "-30..-15", "unit": "%"}),
                         "within [-30%, -15%]")

    def test_a_verdict_that_rests_on_far_apart_runs_is_inconclusive_placement(self):
        claim = paired_claim()
        vals = (1.05, 2.0, 2.1, 2.2, 2.3, 2.4)
        # six pairs decide; without the one whose run stayed far apart, five do not
        m = claims_table.Measured(2.15, n=6, values=vals, near=vals[1:])
        row = {"lo": "", "hi": "", "coverage": "", "why": ""}
        self.assertEqual(claims_table._paired_verdict(claim, m, row), "inconclusive")
        self.assertTrue(row["why"].startswith("placement: 1 of 6 pairs"), row["why"])
        # where the verdict stands without them, it stands
        vals = tuple(2.0 + i / 10 for i in range(7))
        m = claims_table.Measured(2.3, n=7, values=vals, near=vals[1:])
        self.assertEqual(claims_table._paired_verdict(claim, m, dict(row)), "holds")

    def test_fidelity_judges_every_configuration(self):
        claim = claims.BY_ID["harness.fidelity"]
        good = tuple(0.9 + i / 100 for i in range(6))
        low = tuple(0.5 + i / 100 for i in range(6))
        few = (0.9, 0.91, 0.92)
        for parts, want in (((("a", good), ("b", good)), "holds"),
                            ((("a", good), ("b", low)), "does not hold"),
                            ((("a", good), ("b", few)), "inconclusive")):
            with self.subTest(parts=[p[0] for p in parts], want=want):
                m = claims_table.Measured(0.9, values=parts[-1][1], parts=parts)
                row = {"lo": "", "hi": "", "coverage": "", "why": ""}
                self.assertEqual(claims_table._paired_verdict(claim, m, row), want)
                self.assertRegex(row["why"], r"^a 0\.9\d \[")

    def test_fidelity_leaves_the_stripped_runs_to_its_table(self):
        # flat single, 1P1C: the harness at 0.6 of the bare loop in 6 rounds;
        # the diagnostic runs (each cost removed alone) are no configuration of
        # the claim and fill the results README's table of where the time goes,
        # a row per configuration (pairs has none of them: a row of —)
        from scripts.analysis import results_readme
        with tempfile.TemporaryDirectory() as tmp:
            b = os.path.join(tmp, "bench")
            os.makedirs(b)
            rows = []
            for rnd in range(1, 7):
                def row(where, stripped, v, config="1p1c", item="inline"):
                    rows.append({"bench": "bench-fidelity", "round": rnd, "queue": "flat",
                                 "config": config, "bursts": "0", "item": item,
                                 "where": where, "stripped": stripped,
                                 "throughput_ops_per_s": f"{v * (1 + rnd / 1000):.6g}"})
                row("bare", "", 100e6)
                row("harness", "", 60e6)
                for name, gain in (("sampling", 1.0), ("publish", 1.0), ("window", 1.0),
                                   ("accounting", 1.5), ("all", 1.6)):
                    row("harness", name, 60e6 * gain)
                row("bare", "", 10e6, "pairs")
                row("harness", "", 9e6, "pairs")
                # pairs1, a diagnostic: in the README's table, judged by no claim
                row("bare", "", 700e6, "pairs1")
                row("harness", "", 350e6, "pairs1")
                row("bare", "", 50e6, "1p1c", "message")
                row("harness", "", 40e6, "1p1c", "message")
            write(os.path.join(b, "bench-fidelity.csv"), list(rows[0]), rows)
            ctx = type("Ctx", (), {"dir": tmp, "name": "h", "guest": None})()
            m = claims_table.m_bench_fidelity("inline")(ctx)
            self.assertEqual([p[0] for p in m.parts], ["flat 1p1c single inline",
                                                       "flat pairs single inline"])
            self.assertAlmostEqual(m.value, 0.6, places=6)
            self.assertIn("where the time goes", m.detail)
            m = claims_table.m_bench_fidelity("message")(ctx)
            self.assertEqual([p[0] for p in m.parts], ["flat 1p1c single message"])
            self.assertAlmostEqual(m.value, 0.8, places=6)
            text = "\n".join(results_readme.fidelity_section(tmp))
            self.assertIn("## Where the harness's time goes", text)
            self.assertRegex(text, r"\| flat \| 1p1c \| inline \| single \| 0\.60 \[[^|]*\| "
                                   r"1\.00 \[[^|]*\| 1\.00 \[[^|]*\| 1\.00 \[[^|]*\| "
                                   r"1\.50 \[[^|]*\| 1\.60 \[[^|]*\| 0\.96 \[")
            self.assertRegex(text, r"\| flat \| pairs \| inline \| single \| 0\.90 \[[^|]*"
                                   r"(\| — ){6}\|")
            self.assertRegex(text, r"\| flat \| 1p1c \| message \| single \| 0\.80 \[")
            self.assertRegex(text, r"\| flat \| pairs1 \| inline \| single \| 0\.50 \[")
            # without stripped runs: no section, and the claim's detail says nothing of it
            write(os.path.join(b, "bench-fidelity.csv"), list(rows[0]),
                  [r for r in rows if not r["stripped"]])
            self.assertEqual(results_readme.fidelity_section(tmp), [])
            self.assertNotIn("where the time goes",
                             claims_table.m_bench_fidelity("inline")(ctx).detail)

    def test_an_older_fidelity_file_pairs_its_bare_rows_as_1p1c_inline(self):
        # written before config and the bare loop's items: bare rows have no item
        with tempfile.TemporaryDirectory() as tmp:
            b = os.path.join(tmp, "bench")
            os.makedirs(b)
            rows = [{"bench": "bench-fidelity", "round": rnd, "queue": "rte", "bursts": "1",
                     "item": "" if where == "bare" else item, "where": where,
                     "throughput_ops_per_s": f"{v * (1 + rnd / 1000):.6g}"}
                    for rnd in range(1, 7)
                    for where, item, v in (("bare", "", 100e6), ("harness", "inline", 70e6),
                                           ("harness", "message", 30e6))]
            write(os.path.join(b, "bench-fidelity.csv"), list(rows[0]), rows)
            ctx = type("Ctx", (), {"dir": tmp, "name": "h", "guest": None})()
            m = claims_table.m_bench_fidelity("inline")(ctx)
            self.assertEqual([p[0] for p in m.parts], ["rte 1p1c bursts inline"])
            self.assertAlmostEqual(m.value, 0.7, places=6)
            self.assertIsNone(claims_table.m_bench_fidelity("message")(ctx))

    def test_bounds_state_their_rule(self):
        for cid in ("F5.model-bounds", "F5.realized-batch", "ring.oversub-no-collapse",
                    "F5.study-interconnect"):
            with self.subTest(claim=cid):
                self.assertTrue(claims.BY_ID[cid].rule.startswith("bound:"))
                self.assertIn("worst", claims.BY_ID[cid].rule)
        paired_ids = [c.id for c in claims.CLAIMS if c.rule == claims_table.PAIRED]
        self.assertIn("F1.study-11x", paired_ids)
        # a bound decides on its worst value, with no pairs: F5.realized-batch at
        # one run past the threshold holds, one short of it does not
        ctx = type("Ctx", (), {"name": "h", "guest": None})()
        for v, want in ((0.9, "holds"), (0.7, "does not hold")):
            c = claims_table.Claim(
                id="x.bound", finding="x", sentence="s", reads="r", estimator="lowest", op=">=",
                threshold=0.8, unit="x", study="", when=claims.ANY,
                measure=lambda ctx, v=v: claims_table.Measured(v),
                rule=claims_table.BOUND_WORST_POINT)
            row = claims.evaluate(c, ctx)
            self.assertEqual(row["status"], want, row)
            self.assertEqual(row["rule"], claims_table.BOUND_WORST_POINT)

    def test_f4_claims_cover_every_work_level_the_experiment_runs(self):
        from scripts.common import expfile
        e = expfile.parse(os.path.join(ROOT, "experiments", "f4-backoff.exp"))
        levels = set()
        for prof in ("quick", "full"):
            pts, _ = expfile.points(e, prof, 32, 2, 32)
            levels |= {int(float(p.opts.get("work", 0))) for p in pts}
        self.assertEqual(levels, set(claims.F4_WORK_NS))
        for work in claims.F4_WORK_NS:
            for w in ("", "pairs-", "mixed-"):
                for b in ("pause", "exp", "yield"):
                    self.assertIn(f"F4.{w}{b}-costs" + (f"-w{work}" if work else ""),
                                  claims.BY_ID)


@slow
class ReportCliTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="nr-claims-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_claims(self, *args, **kw):
        return subprocess.run(module("analysis.claims", PY) + list(args),
                              capture_output=True, text=True, cwd=ROOT, **kw)

    def test_two_hosts_side_by_side_show_a_claim_that_differs(self):
        big = big_host(self.tmp)
        force(os.path.join(big, "f2-node-cache.csv"), {"lookup": "cached"},
              {"lookup": "libnuma"}, "throughput_ops_per_s", ratio_to(6.5))
        fakeresults.make_synthetic(self.tmp, "other", kind="real", threads=(2, 32), reps=REPS,
                                   machine=BIG, nodes=2, f3_loads=(0.5,), f5_realized=0.9)
        force(os.path.join(self.tmp, "other", "f2-node-cache.csv"), {"lookup": "cached"},
              {"lookup": "libnuma"}, "throughput_ops_per_s", ratio_to(2.0))
        r = self.run_claims("report", "--results", self.tmp, "big", "other")
        self.assertEqual(r.returncode, 0, r.stderr)
        line = [x for x in r.stdout.splitlines() if x.startswith("F2.study-6x")][0]
        self.assertIn("holds", line)
        self.assertIn("does not hold", line)
        self.assertIn("<- differs", line)
        self.assertRegex(r.stdout, r"\d+ claim\(s\) differ between the hosts")
        # make report runs the same
        m = subprocess.run(["make", "--no-print-directory", "-C", ROOT, "report",
                            "HOSTS=big other", f"RESULTS={self.tmp}", f"PYTHON={PY}"],
                           capture_output=True, text=True)
        self.assertEqual(m.returncode, 0, m.stderr)
        self.assertEqual(m.stdout, r.stdout)
        m = subprocess.run(["make", "--no-print-directory", "-C", ROOT, "report",
                            "HOSTS=nope", f"RESULTS={self.tmp}", f"PYTHON={PY}"],
                           capture_output=True, text=True)
        self.assertNotEqual(m.returncode, 0)
        self.assertIn("no results for host 'nope'", m.stderr)

    def test_write_and_bad_input(self):
        big_host(self.tmp)
        r = self.run_claims("write", "--results", self.tmp, "big")
        self.assertEqual(r.returncode, 0, r.stderr)
        fields, rows = read(os.path.join(self.tmp, "big", "claims.csv"))
        self.assertEqual(fields, claims.COLUMNS)
        self.assertEqual([x["claim"] for x in rows], [c.id for c in claims.CLAIMS])
        self.assertTrue(all(x["status"] in claims.STATUSES for x in rows))
        for args, msg in ((["report", "--results", self.tmp, "nope"], "no results for host"),
                          (["report", "--results", os.path.join(self.tmp, "x")],
                           "is not a folder of results"),
                          (["readme", os.path.join(self.tmp, "missing.md")], "missing.md")):
            r = self.run_claims(*args)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            self.assertIn(msg, r.stderr)
            self.assertNotIn("Traceback", r.stderr)

    def test_readme_block_is_replaced_between_markers_only(self):
        big_host(self.tmp)
        path = os.path.join(self.tmp, "R.md")
        with open(path, "w") as f:
            f.write(f"top 1.5x\n{claims.BEGIN}\nold\n{claims.END}\nbottom\n")
        r = self.run_claims("readme", path, "--results", self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(path) as f:
            text = f.read()
        self.assertTrue(text.startswith("top 1.5x\n" + claims.BEGIN))
        self.assertTrue(text.endswith(claims.END + "\nbottom\n"))
        self.assertIn("`F1.study-11x`", text)
        self.assertEqual(self.run_claims("readme", path, "--results", self.tmp,
                                         "--check").returncode, 0)
        with open(path, "w") as f:
            f.write("no markers\n")
        r = self.run_claims("readme", path, "--results", self.tmp)
        self.assertEqual(r.returncode, 2)
        self.assertIn("expected one", r.stderr)


class CommittedTest(unittest.TestCase):
    """The committed results: every real host has its claims.csv as the code
    computes it now, and README.md's generated block regenerates unchanged."""

    def test_committed_claims_csv_are_current(self):
        results = os.path.join(ROOT, "results")
        hosts = claims.real_hosts(results)
        self.assertTrue(hosts)
        for h in hosts:
            with self.subTest(host=h):
                path = os.path.join(results, h, "claims.csv")
                self.assertTrue(os.path.exists(path),
                                f"{path}: run python3 -m scripts.analysis.claims write {h}")
                with open(path) as f:
                    self.assertEqual(f.read(), claims.csv_text(
                        claims.report(os.path.join(results, h))),
                        f"{path} is stale: run python3 -m scripts.analysis.claims write {h}")

    def test_no_committed_claim_decides_below_95_percent(self):
        results = os.path.join(ROOT, "results")
        for h in claims.real_hosts(results):
            _f, rows = read(os.path.join(results, h, "claims.csv"))
            for r in rows:
                if r["status"] in ("holds", "does not hold") and r["n"]:
                    with self.subTest(host=h, claim=r["claim"]):
                        self.assertGreaterEqual(int(r["n"]), 6)
                        self.assertGreaterEqual(float(r["coverage"]), 0.95)

    def test_tightness_is_not_testable_where_vcpus_moved(self):
        rows = {r["claim"]: r for r in read(os.path.join(
            ROOT, "results", "vm-amd-f26m2-1node", "claims.csv"))[1]}
        r = rows["F5.model-tight"]
        self.assertEqual(r["status"], "not testable here")
        self.assertRegex(r["why"], r"\d+ of \d+ runs \(\d+%\) ended more than 2x")

    def test_paper_table_is_current(self):
        """paper/generated/claims.tex states what the report of the paper's host says."""
        path = os.path.join(ROOT, "paper", "generated", "claims.tex")
        self.assertTrue(os.path.exists(path), "run make paper")
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run(module("paper.paper_numbers", PY)
                               + ["--results", os.path.join(ROOT, "results"),
                                  "--out", os.path.join(tmp, "n.tex"),
                                  "--claims", os.path.join(tmp, "c.tex")],
                               capture_output=True, text=True, cwd=ROOT)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(tmp, "c.tex")) as f, open(path) as g:
                self.assertEqual(g.read(), f.read(), "paper/generated/claims.tex is stale: "
                                 "run make paper")

    def test_readme_block_regenerates_unchanged(self):
        path = os.path.join(ROOT, "README.md")
        with open(path) as f:
            text = f.read()
        if claims.BEGIN not in text:
            self.skipTest("README.md has no generated block yet")
        self.assertEqual(text, claims.replace_block(
            text, claims.readme_block(os.path.join(ROOT, "results"))),
            "README.md's claims block is stale: run python3 -m scripts.analysis.claims readme README.md")


if __name__ == "__main__":
    unittest.main()
