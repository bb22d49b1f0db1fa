# SPDX-License-Identifier: BSD-2-Clause
"""claims_table.py - the claims table: every measured claim, beside the function that measures it.

Each entry of CLAIMS is one sentence the README, the results READMEs or the
paper states: an id, the sentence, the CSV and columns it reads, the
estimator, the predicate, the study's value and when it is testable (claims.py
says what each status means). Every measure function reads findings.py, the
one estimator. evaluate() checks one claim on one host, report() every claim;
claims.py prints the report (text, CSV, markdown, LaTeX) and is the command
line.
"""

import os
import statistics
from dataclasses import dataclass, field
from typing import Callable, Optional

from . import ceiling, ceiling_tightness, findings
from . import hostfacts
from . import nrdata
from .regime_section import regime_says
from . import stats
from ..common import manifest, placement, regime
from ..common.looks import LOOKS
from ..common.benches import FIDELITY_DIAGNOSTIC


STATUSES = ("holds", "does not hold", "inconclusive", "not testable here", "not exercised")


#: a mechanism is exercised when the no-backoff run loses at least this many races
#: per operation (1 in 1,000), the realized batch reaches this share of the configured
#: one, or a gate was waited on at all
LOST_RACES_EXERCISED = nrdata.BACKOFF_EXERCISED
REALIZED_EXERCISED = 0.8


#: the local work levels (ns) experiments/f4-backoff.exp runs: F4's claims cover each
#: (a test checks the two agree)
F4_WORK_NS = (0, 300)

#: the study's scale (design.md section 1): two nodes of 16 vCPUs each
STUDY_WORKERS = 32
STUDY_NODES = 2


@dataclass
class Measured:
    """A claim's value on one host: the estimate, its interval (lo..hi, equal
    to the value where there is none), the repetitions behind it, where it was
    read and what it was measured at."""
    value: float
    lo: Optional[float] = None
    hi: Optional[float] = None
    n: Optional[int] = None
    source: str = ""
    detail: str = ""
    exercised: Optional[str] = None  # why not, where the mechanism did not run
    coverage: Optional[float] = None  # stats.interval's exact coverage of [lo, hi]
    values: tuple = ()  # the paired values behind a paired claim (its decision interval)
    near: Optional[tuple] = None  # the values without runs whose CPUs stayed far apart
    parts: tuple = ()  # (label, values) of each configuration a rule over all judges

    def __post_init__(self):
        if self.lo is None:
            self.lo = self.value
        if self.hi is None:
            self.hi = self.value


#: how a paired claim decides (evaluate): on the values' decision interval
PAIRED = ("paired: decides on the interval of the paired values at the stopping rule's "
          "level for its n (>= 6 pairs, >= 95% coverage; scripts/common/looks.py); "
          "fewer pairs: inconclusive")


#: a claim testable on any host (Claim.when's default)
ANY = "any host"


@dataclass(kw_only=True)
class Claim:
    id: str
    finding: str           # F1..F5, or "ring" for the queue against its peers
    sentence: str          # what is claimed, in words
    reads: str             # the CSV and columns it reads
    op: str                # '>', '>=', '<', '<=', or 'in' (a closed range: the study's)
    threshold: object      # a number, or (low, high) for 'in'
    measure: Callable = field(repr=False)
    estimator: str = "paired median ratio"  # the common case: study, unit, when too
    unit: str = "x"        # 'x', '%', '' (shown after values)
    study: str = ""        # the study's value, '' where it gave none
    when: str = ANY        # when it is testable, in words
    testable: Callable = field(repr=False, default=lambda ctx: None)
    rule: str = PAIRED     # a bound's own rule (every run, the worst run) where not paired


class Host:
    """What the claims read of one host: its folder, the folder of its
    cross-node runs (itself with several real nodes, else its emulated
    sibling), what the machine is."""

    def __init__(self, hostdir):
        self.dir = os.path.normpath(hostdir)
        self.name = os.path.basename(self.dir)
        self.cross = hostfacts.cross_node_dir(self.dir)
        self.topo = hostfacts.describe_host(self.dir) or {}
        self.machine = hostfacts.machine(self.dir)
        self.real_nodes = hostfacts.real_nodes(self.topo)
        self.cores = self.machine.get("cores") or sum(
            n.get("ncpus", 0) for n in self.topo.get("nodes", [])) or 0
        self.virt = self.machine.get("hypervisor") or self.topo.get("virtualization") or ""
        # a QEMU TCG guest (make vm-experiments): its timings test nothing
        self.guest = nrdata.guest_note(self.topo.get("virtualization"))


# ---- testability ----------------------------------------------------------------

def needs_real_nodes(ctx):
    """F3 and F5 are about the interconnect: two real nodes, their runs on them."""
    if ctx.real_nodes < STUDY_NODES:
        where = ("on emulated nodes (one real node here: no interconnect crossed)"
                 if ctx.cross and ctx.cross != ctx.dir else "with one real node")
        return f"needs {STUDY_NODES} real NUMA nodes; this host's cross-node runs are {where}"
    return None


def needs_study_scale(ctx):
    if ctx.real_nodes < STUDY_NODES or ctx.cores < STUDY_WORKERS:
        return (f"needs >= {STUDY_WORKERS} cores on {STUDY_NODES} real nodes without "
                f"oversubscription; this host has {ctx.cores} core(s), "
                f"{ctx.real_nodes or 1} real node(s)")
    return None


def needs_cores(k):
    return lambda ctx: (f"needs >= {k} cores; this host has {ctx.cores}"
                        if ctx.cores and ctx.cores < k else None)


# ---- measurements: each reads findings.py's functions (the one estimator) ---------------

def _ratio(d, key, source, detail):
    if not d or d.get(key) is None:
        return None
    return Measured(d[key], d.get(key + "_lo"), d.get(key + "_hi"), d.get(key + "_n"),
                    source, detail, coverage=d.get(key + "_cov"),
                    values=tuple(d.get(key + "_vals") or ()),
                    near=None if d.get(key + "_near") is None else tuple(d[key + "_near"]))


def m_f1(ctx):
    r = findings.f1(ctx.dir)
    return _ratio(r, "ratio", "f1-lookup-cost.csv", "look-up / data movement per operation, "
                  "1P1C, lookup libnuma against none, "
                  f"{regime_says(r)}") if r else None


def m_f2(ctx):
    r = findings.f2(ctx.dir)
    if not r:
        return None
    return _ratio(r, "cached_over_libnuma", "f2-node-cache.csv",
                  f"throughput cached / libnuma at {r['threads']} threads"
                  + (" (oversubscribed)" if r.get("oversubscribed") else "")
                  + f", {regime_says(r)}")


def m_f3(ctx, exercised=False):
    r = findings.f3(ctx.cross) if ctx.cross else None
    if not r:
        return None
    how = (f"open loop at {float(r['load']) * 100:.0f}% of capacity" if r.get("load")
           else "closed loop")
    sat = (f"; {r['saturated_runs']} saturated run(s) left out (backlog grew: delivered "
           f"< {regime.SATURATED_SHARE:.0%} of the offered rate)" if r.get("saturated_runs")
           else "")
    m = _ratio(r, "shared_over_perworker", f"{os.path.basename(ctx.cross)}/f3-gate.csv",
               f"p50 latency shared / per-worker gate at {r['threads']} threads, {how}{sat}")
    if m is None or not exercised:
        return m
    waits, moved, batch = (r.get("shared_waits_per_transfer"),
                           r.get("shared_items_per_transfer"), r.get("batch"))
    why = []
    if waits is None or waits < findings.GATE_WAITS_EXERCISED:
        why.append("the shared gate was waited on "
                   + ("(not counted)" if waits is None else f"{waits:.2g} times per transfer")
                   + f" (< {findings.GATE_WAITS_EXERCISED:g}: not contended)")
    if moved is None or not batch or moved < batch / 2:
        why.append("a transfer moved "
                   + ("(not counted)" if moved is None else f"{moved:.1f} items")
                   + (f" of a batch of {batch:g} (under half)" if batch else ""))
    if why:
        m.exercised = "; ".join(why)
    return m


def needs_two_nodes(ctx):
    """Testable on two nodes, real or emulated (F3's and F5's cross-node runs)."""
    return None if ctx.cross else "needs 2 nodes, real or emulated (no cross-node runs here)"


def m_f4(backoff, workload="prodcons", work=0):
    def measure(ctx):
        r = findings.f4(ctx.dir, workload, float(work))
        if not r or r.get(f"{backoff}_change_pct") is None:
            return None
        virt = f", {ctx.virt} guest" if ctx.virt else ""
        m = _ratio(r, f"{backoff}_change_pct", "f4-backoff.csv",
                   f"throughput {backoff} against none, workload {workload}, "
                   + (f"local work up to {work} ns, " if work else "no local work, ")
                   + f"{r['threads']} threads{virt}"
                   + (" (oversubscribed)" if r.get("oversubscribed") else "")
                   + (f", {regime_says(r, f'{backoff}_')}"
                      if r.get(f"{backoff}_regime") else ""))
        rate = r.get("none_failed_per_item")
        if rate is None or rate < LOST_RACES_EXERCISED:
            per_k = "not recorded" if rate is None else f"{rate * 1000:.3g}"
            m.exercised = (f"the no-backoff run lost {per_k} races per 1,000 operations "
                           f"(< {LOST_RACES_EXERCISED * 1000:g}): no backoff had anything to do")
        return m
    return measure


def m_f5_model(ctx):
    # (folder, csv, violation-like dict) of every row with a ceiling, real and cross
    pts = [(os.path.basename(d), name, v)
           for d in dict.fromkeys([ctx.dir] + ([ctx.cross] if ctx.cross else []))
           for name, v in ceiling.check_host(d, tolerance=-1.0)]
    if not pts:
        return None
    folder, name, v = max(pts, key=lambda p: p[2]["ratio"])
    above = sum(1 for _, _, x in pts if x["ratio"] > 1.0)
    return Measured(v["ratio"], source=f"{folder}/{name} + probe/probe.csv",
                    detail=(f"highest measured / ceiling over {len(pts)} runs: {v['queue']} "
                            f"{v['point']} ({v['measured'] / 1e6:.2f} vs "
                            f"{v['ceiling'] / 1e6:.2f} M items/s, bound: {v['bound']}); "
                            f"{above} run(s) above the model"))


#: a host whose runs' own line trips stay within placement.FAR x the probe's in at
#: least this share of its runs holds still enough to test how tight the model is
STABLE_SHARE = 0.95


def placement_stable(ctx):
    """Testability of the ceiling's tightness: the hand-over distance of the
    host's runs stayed where the probe found it (handover.py's counts, by
    findings.placement_counts)."""
    runs, far = findings.placement_counts(ctx.dir)
    if not runs:
        return "needs runs that timed their CPUs' line trip (c2c_one_way_*_ns): none here"
    if far > (1 - STABLE_SHARE) * runs:
        return (f"needs a host whose CPUs stay where the probe found them: {far} of {runs} "
                f"runs ({far / runs:.0%}) ended more than {placement.FAR:g}x the probe's line "
                f"trip apart (vCPUs moved; at most {1 - STABLE_SHARE:.0%} allowed)")
    return None


def m_f5_tight(ctx):
    t = [d for d in (ceiling_tightness.tightness(ctx.dir) or []) if d["regime"] == "near-empty"]
    if not t:
        return None
    worst = min(t, key=lambda d: d["ratio"])
    return Measured(worst["ratio"], source="peers.csv + probe/probe.csv",
                    detail=(f"lowest best-near-empty-point / ceiling over {len(t)} queues: "
                            f"{worst['queue']} {worst['point']} ({worst['measured']:.2f} of "
                            f"{worst['ceiling']:.2f} M items/s, bound: {worst['bound']})"))


def m_f5_realized(ctx):
    rz = findings.f5_realized(ctx.cross) if ctx.cross else None
    if not rz:
        return None
    worst = min(rz, key=lambda x: x["ratio"])
    # how the points kept a batch at the source (issue 43 item 4), from their rows
    hows = list(dict.fromkeys(x["how"] for x in rz if x.get("how")))
    how = ("; the points: " + hows[0] if len(hows) == 1 else
           f"; that point: {worst['how']} (the points differ)" if worst.get("how") else "")
    return Measured(worst["ratio"], source=f"{os.path.basename(ctx.cross)}/f5-ceiling.csv",
                    detail=(f"lowest realized / configured batch: batch {worst['batch']} at "
                            f"{worst['threads']} threads moved {worst['realized']:.1f} items "
                            f"per transfer{how}"))


def m_order_kept(ctx):
    """The order check of every run (numaring-bench, harness/item.h): the most
    inversions per million items over the runs whose queue's stated order
    rules them out (ordering_enforced 1), in every experiment of the host and
    of its cross-node folder; the runs where they are only counted (numaring
    and the sharded queue across nodes) named in the detail. None where no run
    reported the check (results from before it)."""
    dirs = [ctx.dir] + ([ctx.cross] if ctx.cross and ctx.cross != ctx.dir else [])
    rows = [r for d in dirs for exp in findings.EXPERIMENTS
            for r in findings.load(os.path.join(d, f"{exp}.csv"))
            if str(r.get("ordering_enforced") or "") in ("0", "1")]
    enforced = [r for r in rows if str(r["ordering_enforced"]) == "1"]
    if not enforced:
        return None
    inv = [(nrdata.num(r, "inversions_per_million") or 0.0, r) for r in enforced]
    worst, wr = max(inv, key=lambda x: x[0])
    counted = [(nrdata.num(r, "inversions_per_million") or 0.0, r) for r in rows
               if str(r["ordering_enforced"]) == "0"]
    queues = sorted({r.get("queue") for r in enforced})
    detail = (f"{len(enforced)} runs of {len(queues)} queues with their stated order enforced"
              + (f"; the most: {worst:g} per million, {wr.get('queue')} "
                 f"{wr.get('experiment')} {wr.get('point')}" if worst > 0 else
                 ", none with an inversion"))
    if counted:
        cv, cr = max(counted, key=lambda x: x[0])
        detail += (f"; counted, not enforced, in {len(counted)} runs (order per node across "
                   f"nodes): at most {cv:g} per million ({cr.get('queue')} "
                   f"{cr.get('experiment')})")
    return Measured(worst, source="<experiment>.csv (every experiment)", detail=detail)


def m_peers(item, bursts, peer):
    def measure(ctx):
        r = findings.peers(ctx.dir, item)
        if not r:
            return None
        return _ratio(
            r, f"b{bursts}_over_{peer}", "peers.csv",
            f"numaring / {'rte_ring' if peer == 'rte' else peer} throughput, "
            f"{'bursts' if bursts == '1' else 'single operations'}, {item} items, "
            f"{r['threads']} threads" + (" (oversubscribed)" if r.get("oversubscribed") else "")
            + f", {regime_says(r, f'b{bursts}_{peer}_')}")
    return measure


def m_best_bounded(workload, bursts):
    """numaring against the best bounded peer in one cell of the peers sweep
    (findings.peers_best_bounded: one node, the lowest thread count)."""
    def measure(ctx):
        r = findings.peers_best_bounded(ctx.dir, workload, bursts)
        if not r:
            return None
        return _ratio(
            r, "over_best", "peers.csv",
            f"numaring / {r['best_peer']} (the bounded peer with the highest median of "
            f"{len(r['mops'])}) throughput, {workload}, "
            f"{'bursts' if bursts == '1' else 'single operations'}, inline items, "
            f"{r['threads']} threads" + (" (oversubscribed)" if r.get("oversubscribed") else "")
            + (f", {regime_says(r)}" if workload == "prodcons" else ""))
    return measure


def m_default_backoff(workload):
    """The production default backoff against the best other backoff of F4's
    sweep (findings.f4_default)."""
    def measure(ctx):
        r = findings.f4_default(ctx.dir, workload)
        if not r:
            return None
        return _ratio(
            r, "over_best", "f4-backoff.csv",
            f"numaring with its default backoff ({r['default']}) / with {r['best']} (the "
            f"other backoff with the highest median) throughput, {workload}, no local work, "
            f"{r['threads']} threads" + (" (oversubscribed)" if r.get("oversubscribed") else ""))
    return measure


def _cross_dir(ctx):
    """The folder whose peers sweep ran across nodes: the host's own where it
    has two real nodes, else its emulated sibling (none here: peers.exp runs
    compact only on one node), named by the claim's source."""
    return ctx.cross or ctx.dir


def m_cross_peers(bursts, peer):
    """numaring against one peer (or the best one: peer "best") across nodes:
    peers.csv's prodcons runs at pin split (every item crosses), at the
    largest thread count with a CPU per thread (n producers on one node, n
    consumers on the other), inline items, the sweep's named work level."""
    def measure(ctx):
        d = _cross_dir(ctx)
        r = findings.peers(d, "inline", pin=findings.PEERS_CROSS_PIN, at="widest")
        if not r:
            return None
        name = (r.get(f"b{bursts}_best_peer") or "the best peer") if peer == "best" else \
            ("rte_ring" if peer == "rte" else peer)
        side = r["threads"] // 2
        return _ratio(
            r, f"b{bursts}_over_{peer}", f"{os.path.basename(d)}/peers.csv",
            f"numaring / {name} throughput across nodes (pin split: {side} producer(s) on "
            f"one node, {r['threads'] - side} consumer(s) on the other), "
            f"{'bursts' if bursts == '1' else 'single operations'}, inline items"
            + (" (oversubscribed)" if r.get("oversubscribed") else "")
            + f", {regime_says(r, f'b{bursts}_')}")
    return measure


def m_cross_p99(ctx):
    d = _cross_dir(ctx)
    r = findings.cross_latency(d)
    if not r:
        return None
    iv = r["ratio"]
    return Measured(iv.est, iv.lo, iv.hi, iv[3], f"{os.path.basename(d)}/peers.csv",
                    f"numaring's p99 at pin split / at pin compact, {r['threads']} threads, "
                    f"producer-paced (near empty), single operations, inline items: "
                    f"{r['across']:.0f} ns across, {r['within']:.0f} ns within"
                    + (" (oversubscribed)" if r.get("oversubscribed") else ""),
                    coverage=iv[4], values=tuple(iv.values),
                    near=None if getattr(iv, "near", None) is None else tuple(iv.near))


# ---- the side benchmarks (results/<host>/bench/) --------------------------------------

def bench_rows(ctx, name):
    """The rows of results/<host>/bench/<name>.csv, each with 'rep' = its round
    (so that findings.paired pairs runs of one round); [] where absent."""
    return [{**r, "rep": r.get("round") or "1"}
            for r in findings.load_all(os.path.join(ctx.dir, "bench", f"{name}.csv"))]


def m_bench_peers(bursts, peer, where="harness"):
    def measure(ctx):
        rows = [r for r in bench_rows(ctx, "bench-peers")
                if r.get("shape") == "1x1" and str(r.get("bursts")) == bursts
                and (r.get("where") or "harness") == where
                and (r.get("item") or "inline") == "inline"]
        pr = findings.paired(findings.by(rows, queue="numaring"), findings.by(rows, queue=peer))
        if not pr:
            return None
        return Measured(
            *pr[:4], "bench/bench-peers.csv", coverage=pr[4], values=pr.values,
            detail=f"numaring / {'rte_ring' if peer == 'rte' else peer}, 1P1C, "
            f"{'bursts' if bursts == '1' else 'single operations'}, inline items, "
            f"{'numaring-bench' if where == 'harness' else 'bare loop'}, paired by round")
    return measure


def m_bench_fidelity(item):
    """Every configuration of make bench-fidelity with `item` items and a bare
    partner (queue, config, mode), each a paired ratio harness / bare loop; a
    configuration without a bare partner (message items before the bare loop
    had them) is named as left out."""
    def measure(ctx):
        every = bench_rows(ctx, "bench-fidelity")
        # the diagnostic runs of where the time goes are no configuration of the harness
        # (stripped runs; pairs1, the loop's own cost with nothing contending)
        rows = [r for r in every if not r.get("stripped") and (r.get("item") or "inline") == item
                and r.get("config") not in FIDELITY_DIAGNOSTIC]
        if not rows:
            return None

        def key(r):
            return (r.get("queue"), r.get("config") or "1p1c", str(r.get("bursts")))

        def runs(k, where):
            return [r for r in rows if r.get("where") == where and key(r) == k]
        parts, unpaired = [], []
        for k in sorted({key(r) for r in rows if r.get("where") == "harness"}):
            q, config, b = k
            label = f"{q} {config} {'bursts' if b == '1' else 'single'} {item}"
            pr = findings.paired(runs(k, "harness"), runs(k, "bare"))
            if pr:
                parts.append((label, pr))
            else:
                unpaired.append(label)
        if not parts:
            return None
        label, pr = min(parts, key=lambda p: p[1][0])
        left = (f"; left out, no bare partner: {', '.join(unpaired)}" if unpaired else "")
        if any(r.get("stripped") for r in every):
            left += ("; where the time goes (each harness cost removed alone): the results "
                     "README's table")
        return Measured(*pr[:4], "bench/bench-fidelity.csv", coverage=pr[4],
                        values=pr.values, parts=tuple((lb, p.values) for lb, p in parts),
                        detail=f"harness / bare loop, {item} items, {len(parts)} "
                        f"configurations paired by round, the lowest: {label}{left}")
    return measure


def m_bench_oversub(ctx):
    rows = bench_rows(ctx, "bench-oversub")
    vals = [(v, r) for r in rows for v in [nrdata.num(r, "ratio_to_perworker")] if v is not None]
    if not vals:
        return None
    v, r = min(vals, key=lambda x: x[0])
    return Measured(v, source="bench/bench-oversub.csv",
                    detail=(f"worst of {len(vals)} look-up x gate x backoff combinations: "
                            f"lookup {r.get('lookup')}, gate {r.get('gate')}, backoff "
                            f"{r.get('backoff')}, 3 producers + 3 consumers"))


# ---- the table ------------------------------------------------------------------------

#: the rule of a paired claim over several configurations (harness.fidelity)
EVERY_PART = (PAIRED.replace("paired: decides on", "paired, every configuration: each "
                             "decides on") + "; all hold: holds, any does not: does not hold")

#: the rules of the claims that bound every run rather than compare two configurations
BOUND_EVERY_RUN = ("bound: every run's value against the threshold (the worst run decides); "
                   "no interval, no pairs")
BOUND_WORST_POINT = ("bound: every point's median over its repetitions against the threshold "
                     "(the worst point decides); no interval, no pairs")



def _paced(exp, what):
    """What a claim on the producer-paced runs of an experiment reads."""
    return (f"{exp}.csv: throughput_ops_per_s, {what}; the producer-paced runs (near-empty "
            f"by design: experiments/{exp}.exp pace)")


CLAIMS = [
    Claim(id="F1.lookup-dominates", finding="F1",
          sentence="Finding the node with libnuma on every operation costs more than moving the item.",
          reads=_paced("f1-lookup-cost", "lookup libnuma vs none, 1P1C"),
          op=">", threshold=1.0, measure=m_f1),
    Claim(id="F1.study-11x", finding="F1",
          sentence="The per-operation look-up costs more than 11x the data movement (the study's F1).",
          reads=_paced("f1-lookup-cost", "lookup libnuma vs none, 1P1C"),
          op=">", threshold=11.0, study="more than 11x", measure=m_f1),
    Claim(id="F2.cache-faster", finding="F2",
          sentence="Remembering the node raises throughput against looking it up every operation.",
          reads=_paced("f2-node-cache", "lookup cached vs libnuma"),
          op=">", threshold=1.0,
          when="any host with >= 2 cores", measure=m_f2, testable=needs_cores(2)),
    Claim(id="F2.study-6x", finding="F2",
          sentence="Remembering the node raises throughput 6-7x (the study's F2): the ratio lies "
                   "within the study's range, neither above nor below it.",
          reads=_paced("f2-node-cache", "lookup cached vs libnuma"),
          op="in", threshold=(6.0, 7.0), study="6-7x",
          when="any host with >= 2 cores", measure=m_f2, testable=needs_cores(2)),
    Claim(id="F3.shared-gate-costs", finding="F3",
          sentence="At equal offered load below saturation, one shared gate raises the median latency "
                   "of cross-node transfers against a counter per worker (F3's direction).",
          reads="f3-gate.csv: p50_ns, gate shared vs perworker, open loop, unsaturated runs; "
                "gate_waits, batches_in/out, items_in/out",
          op=">", threshold=1.0,
          when="any host with 2 nodes (real or emulated) where the shared gate is contended and "
               "transfers move at least half their batch",
          measure=lambda ctx: m_f3(ctx, exercised=True), testable=needs_two_nodes),
    Claim(id="F3.study-200x", finding="F3",
          sentence="A counter per worker cuts median latency more than 200x against one shared "
                   "counter (the study's F3).",
          reads="f3-gate.csv: p50_ns, gate shared vs perworker, open loop",
          op=">", threshold=200.0, study="more than 200x", when="needs 2 real nodes", measure=m_f3,
          testable=needs_real_nodes),
    Claim(id="F4.study-15-30pct", finding="F4",
          sentence="Backoff costs 15-30% of throughput at 32 workers against retrying at once "
                   "(the study's F4): the change lies within the study's range.",
          reads="f4-backoff.csv: throughput_ops_per_s, backoff exp vs none",
          estimator="paired median change", op="in", threshold=(-30.0, -15.0), unit="%",
          study="-15% to -30%", when=f"needs >= {STUDY_WORKERS} cores on 2 real nodes",
          measure=m_f4("exp"), testable=needs_study_scale)
] + [
    Claim(id=f"F4.{'' if w == 'prodcons' else w + '-'}{b}-costs{'' if not work else f'-w{work}'}",
          finding="F4",
          sentence=f"{what} after a lost race lowers throughput against retrying at once"
                   + (f" when {desc} (workload {w})" if w != "prodcons" else "")
                   + (f", with up to {work} ns of local work between operations" if work else "")
                   + ".",
          reads="f4-backoff.csv: throughput_ops_per_s, failed_attempts, "
                + (f"workload {w}, " if w != "prodcons" else "") + f"work {work}, "
                f"backoff {b} vs none",
          estimator="paired median change", op="<", threshold=0.0, unit="%",
          when=("any host where races are lost" if w == "prodcons" else
                "any host with >= 2 cores where the no-backoff run loses races"),
          measure=m_f4(b, w, work),
          testable=(lambda ctx: None) if w == "prodcons" else needs_cores(2))
    for work in F4_WORK_NS
    for w, desc in (("prodcons", ""), ("pairs", "every thread enqueues then dequeues"),
                    ("mixed", "every thread enqueues or dequeues at random"))
    for b, what in (("pause", "A fixed PAUSE spin"), ("exp", "Exponential PAUSE backoff"),
                    ("yield", "Yielding the CPU"))
] + [
    Claim(id="F5.model-bounds", finding="F5",
          sentence="No measured run is above the physical ceiling model.",
          reads="every sweep's throughput_ops_per_s against probe/probe.csv (scripts/analysis/ceiling.py)",
          estimator="highest measured / ceiling over the runs", op="<=", threshold=1.0,
          measure=m_f5_model, rule=BOUND_EVERY_RUN),
    Claim(id="F5.model-tight", finding="F5",
          sentence="The ceiling model binds: every queue's best near-empty point of the peers sweep "
                   "reaches at least half of its ceiling.",
          reads="peers.csv: throughput_ops_per_s against probe/probe.csv (ceiling_tightness.py)",
          estimator="lowest over the queues of the best point / ceiling", op=">=", threshold=0.5,
          when="a host whose runs' CPUs stay where the probe found them (<= 5% of runs further "
               "apart)",
          measure=m_f5_tight, testable=placement_stable, rule=BOUND_WORST_POINT),
    Claim(id="F5.realized-batch", finding="F5",
          sentence="Every cross-node transfer moves at least 0.8 of its configured batch.",
          reads="f5-ceiling.csv: items_per_transfer / batch",
          estimator="lowest median over the points", op=">=", threshold=REALIZED_EXERCISED,
          when="any host with 2 nodes (real or emulated)",
          measure=m_f5_realized, rule=BOUND_WORST_POINT),
    Claim(id="F5.study-interconnect", finding="F5",
          sentence="The interconnect's latency and bandwidth set the ceiling (the study's F5).",
          reads="f5-ceiling.csv against probe/probe.csv",
          estimator="highest measured / ceiling over the runs", op="<=", threshold=1.0,
          study="the interconnect bound", when="needs 2 real nodes", measure=m_f5_model,
          testable=needs_real_nodes, rule=BOUND_EVERY_RUN),
    Claim(id="ring.peers-bursts-rte", finding="ring",
          sentence="With bursts, NumaRing moves at least 1.2x rte_ring's items at 1P1C "
                   "(peers sweep).",
          reads="peers.csv: throughput_ops_per_s, queue numaring vs rte, bursts, inline items",
          op=">=", threshold=1.2, measure=m_peers("inline", "1", "rte")),
    Claim(id="ring.peers-single-flat", finding="ring",
          sentence="With single operations, NumaRing keeps the flat ring's pace at 1P1C "
                   "(peers sweep).",
          reads="peers.csv: throughput_ops_per_s, queue numaring vs flat, single operations",
          op=">=", threshold=1.0, measure=m_peers("inline", "0", "flat")),
] + [
    # on one node, in every cell (issue 45 item 5): first among the bounded
    # queues people use, or not
    Claim(id=f"ring.best-bounded-{w}-{'bursts' if b == '1' else 'single'}", finding="ring",
          sentence=f"On one node, {'with bursts' if b == '1' else 'with single operations'}, in {w}"
                   f"{desc}, NumaRing moves at least as many items as the best bounded peer "
                   "(peers sweep, the lowest thread count).",
          reads=f"peers.csv: throughput_ops_per_s, numaring vs the bounded queue that moves data "
                f"with the highest median, workload {w}, {'bursts' if b == '1' else 'single operations'}, "
                "inline items, pin compact",
          op=">=", threshold=1.0, measure=m_best_bounded(w, b))
    for w, desc in (("prodcons", ""), ("pairs", " (every thread enqueues then dequeues)"),
                    ("mixed", " (every thread enqueues or dequeues at random)"))
    for b in ("0", "1")
] + [
    Claim(id=f"ring.default-backoff-{w}", finding="ring",
          sentence=f"In {w}, NumaRing's default backoff comes within 10% of the best of the others "
                   "(F4's sweep, no local work).",
          reads=f"f4-backoff.csv: throughput_ops_per_s, workload {w}, work 0, the default backoff "
                "vs the other backoff with the highest median",
          op=">=", threshold=0.9,
          when="any host with >= 2 cores", measure=m_default_backoff(w), testable=needs_cores(2))
    # where same-role threads race: the symmetric workloads
    for w in manifest.workloads() if w != "prodcons"
] + [
    # across nodes (issue 31 item 9): what a NUMA-aware queue buys where the
    # items cross the interconnect, against the queues people use there
    Claim(id="ring.cross-rte", finding="ring",
          sentence="Across nodes, with bursts, NumaRing moves at least 1.2x rte_ring's items with n "
                   "producers on one node and n consumers on the other (peers sweep, pin split).",
          reads="peers.csv: throughput_ops_per_s, queue numaring vs rte, pin split, bursts, "
                "inline items, the largest thread count with a CPU each",
          op=">=", threshold=1.2,
          when="needs 2 real nodes", measure=m_cross_peers("1", "rte"), testable=needs_real_nodes),
    Claim(id="ring.cross-best-peer", finding="ring",
          sentence="Across nodes, with bursts, NumaRing moves at least as many items as the best "
                   "peer that moves data (peers sweep, pin split).",
          reads="peers.csv: throughput_ops_per_s, numaring vs the queue with the highest median, "
                "pin split, bursts, inline items, the largest thread count with a CPU each",
          op=">=", threshold=1.0, when="needs 2 real nodes", measure=m_cross_peers("1", "best"),
          testable=needs_real_nodes),
    Claim(id="ring.cross-scq", finding="ring",
          sentence="Across nodes, with single operations, NumaRing moves at least as many items as "
                   "SCQ, its closest bounded rival (peers sweep, pin split).",
          reads="peers.csv: throughput_ops_per_s, queue numaring vs scq, pin split, single "
                "operations, inline items, the largest thread count with a CPU each",
          op=">=", threshold=1.0,
          when="needs 2 real nodes", measure=m_cross_peers("0", "scq"), testable=needs_real_nodes),
    Claim(id="ring.cross-p99", finding="ring",
          sentence="Across nodes, NumaRing's p99 latency stays within 2x of its own p99 within a "
                   "node, near empty (peers sweep, pin split against compact).",
          reads="peers.csv: p99_ns, queue numaring, pin split vs compact, producer-paced, "
                "single operations, inline items, 1P1C",
          op="<=", threshold=2.0,
          when="needs 2 real nodes", measure=m_cross_p99, testable=needs_real_nodes),
    Claim(id="ring.bench-bursts-rte", finding="ring",
          sentence="With bursts, NumaRing moves at least 1.2x rte_ring's items at 1P1C "
                   "(make bench-peers).",
          reads="bench/bench-peers.csv: throughput_ops_per_s, numaring vs rte, 1x1, bursts, harness",
          op=">=", threshold=1.2, measure=m_bench_peers("1", "rte")),
    Claim(id="ring.bench-bursts-rte-bare", finding="ring",
          sentence="Alone (no harness), NumaRing's bursts move at least 1.2x rte_ring's items at 1P1C "
                   "(make bench-peers).",
          reads="bench/bench-peers.csv: throughput_ops_per_s, numaring vs rte, bursts, bare loop",
          op=">=", threshold=1.2, measure=m_bench_peers("1", "rte", "bare")),
    Claim(id="ring.bench-single-flat", finding="ring",
          sentence="With single operations, NumaRing keeps the flat ring's pace at 1P1C "
                   "(make bench-peers).",
          reads="bench/bench-peers.csv: throughput_ops_per_s, numaring vs flat, 1x1, single",
          op=">=", threshold=1.0, measure=m_bench_peers("0", "flat")),
    Claim(id="harness.fidelity", finding="harness",
          sentence="numaring-bench keeps at least 0.8 of a bare loop's speed with inline items for "
                   "every queue, mode and configuration (make bench-fidelity: 1P1C, pairs, 2P2C).",
          reads="bench/bench-fidelity.csv: throughput_ops_per_s, where harness vs bare, inline items",
          estimator="paired median ratio, every configuration", op=">=", threshold=0.8,
          measure=m_bench_fidelity("inline"), rule=EVERY_PART),
    Claim(id="harness.fidelity-message", finding="harness",
          sentence="numaring-bench keeps at least 0.6 of a bare loop's speed with message items for "
                   "every queue and mode (make bench-fidelity: 1P1C).",
          reads="bench/bench-fidelity.csv: throughput_ops_per_s, where harness vs bare, message items",
          estimator="paired median ratio, every configuration", op=">=", threshold=0.6,
          measure=m_bench_fidelity("message"), rule=EVERY_PART),
    Claim(id="ring.order-kept", finding="ring",
          sentence="No queue breaks the order it states: every run of a queue that keeps each "
                   "producer's order (fifo, per-producer; numaring and the sharded queue on one node) "
                   "shows no inversion, checked on every item.",
          reads="<experiment>.csv: inversions_per_million where ordering_enforced = 1",
          estimator="most inversions per million over those runs", op="<=", threshold=0.0,
          unit="", measure=m_order_kept, rule=BOUND_EVERY_RUN),
    Claim(id="ring.oversub-no-collapse", finding="ring",
          sentence="With 3 producers and 3 consumers on 2 CPUs, no look-up x gate x backoff collapses "
                   "below 0.1 of the per-worker gate (make bench-oversub).",
          reads="bench/bench-oversub.csv: ratio_to_perworker",
          estimator="lowest median over the combinations", op=">=", threshold=0.1,
          measure=m_bench_oversub, rule=BOUND_WORST_POINT),
]
BY_ID = {c.id: c for c in CLAIMS}


def decide(op, t, lo, hi):
    """holds / does not hold / inconclusive for an interval [lo, hi] against
    'value op t' (op 'in': t is a closed range (low, high))."""
    lo, hi = min(lo, hi), max(lo, hi)
    a, b = t if op == "in" else (t, t)
    # op: (whether the whole interval is on the claimed side, on the other side)
    sides = {">": (lo > a, hi <= a), ">=": (lo >= a, hi < a), "<": (hi < a, lo >= a),
             "<=": (hi <= a, lo > a), "in": (a <= lo and hi <= b, lo > b or hi < a)}
    if op not in sides:
        raise ValueError(f"unknown operator {op!r}")
    holds, fails = sides[op]
    return "holds" if holds else "does not hold" if fails else "inconclusive"


def threshold_text(claim):
    """The threshold as claims.csv writes it: '6' or, for a range, '6..7'."""
    t = claim.threshold
    return f"{t[0]:g}..{t[1]:g}" if claim.op == "in" else f"{t:g}"


def _every_part(claim, m, row):
    """A claim over every configuration (EVERY_PART): each decides on its own
    decision interval; all hold: holds, any does not: does not hold, else
    inconclusive. The row's interval is the lowest configuration's; why lists
    each configuration's verdict."""
    said, sts = [], []
    for label, vals in m.parts:
        iv = stats.decision_interval(vals)
        st = decide(claim.op, claim.threshold, iv.lo, iv.hi) if iv else "inconclusive"
        sts.append(st)
        said.append(f"{label} {statistics.median(vals):.2f}"
                    + (f" [{iv.lo:.2f}..{iv.hi:.2f}]" if iv else f" ({len(vals)} pairs)")
                    + f" {st}")
    iv = stats.decision_interval(m.values)
    if iv:
        row.update(lo=f"{iv.lo:.6g}", hi=f"{iv.hi:.6g}", coverage=f"{iv.coverage:.4f}")
    row["why"] = "; ".join(said)
    if "does not hold" in sts:
        return "does not hold"
    return "holds" if all(st == "holds" for st in sts) else "inconclusive"


def _paired_verdict(claim, m, row):
    """Decide a paired claim on its decision interval (stats.decision_interval)
    and put that interval in the row; returns the status."""
    if m.parts:
        return _every_part(claim, m, row)
    iv = stats.decision_interval(m.values) if m.values else None
    if iv is None:
        n = len(m.values) if m.values else (m.n or 1)
        row["why"] = (f"{n} pair{'s' if n != 1 else ''}: a decision needs at least "
                      f"{LOOKS[0]} (an interval of >= {stats.MIN_DECISIVE * 100:.0f}% "
                      "coverage)" + ("" if m.values else "; one value, no interval"))
        return "inconclusive"
    row.update(lo=f"{iv.lo:.6g}", hi=f"{iv.hi:.6g}", coverage=f"{iv.coverage:.4f}")
    status = decide(claim.op, claim.threshold, iv.lo, iv.hi)
    if m.near is not None and status != "inconclusive":
        # runs whose CPUs stayed further apart than the probe found them after
        # the runner's re-runs: the verdict must not rest on them
        alt = stats.decision_interval(m.near)
        without = decide(claim.op, claim.threshold, alt.lo, alt.hi) if alt else "inconclusive"
        if without != status:
            k = len(m.values) - len(m.near)
            row["why"] = (f"placement: {k} of {len(m.values)} pairs had a run whose CPUs "
                          f"stayed more than {placement.FAR:g}x the probe's line trip apart "
                          f"after the runner's re-runs; without them it "
                          f"{'is ' if without == 'inconclusive' else ''}{without}")
            return "inconclusive"
    if status == "does not hold" and claim.op == "in":
        # where the interval lies: above the range (larger) or below it (smaller)
        above = iv.lo > claim.threshold[1]
        row["why"] = (f"{'larger' if above else 'smaller'}: the whole interval lies "
                      f"{'above' if above else 'below'} the range "
                      f"[{claim.threshold[0]:g}, {claim.threshold[1]:g}]{claim.unit}")
    return status


def evaluate(claim, ctx):
    """One row of the report: a dict with every COLUMNS field."""
    row = dict.fromkeys(COLUMNS, "")
    row.update(host=ctx.name, claim=claim.id, finding=claim.finding, op=claim.op,
               threshold=threshold_text(claim), unit=claim.unit, study=claim.study,
               estimator=claim.estimator, reads=claim.reads, when=claim.when,
               sentence=claim.sentence, rule=claim.rule)
    try:
        m = claim.measure(ctx)
    except (OSError, ValueError, KeyError, ZeroDivisionError) as e:
        m, row["why"] = None, f"could not be computed: {e}"
    if m is not None:
        row.update(value=f"{m.value:.6g}", lo=f"{m.lo:.6g}", hi=f"{m.hi:.6g}",
                   n="" if m.n is None else str(m.n), source=m.source, detail=m.detail,
                   coverage="" if m.coverage is None else f"{m.coverage:.4f}")
    why_not = ctx.guest or claim.testable(ctx)
    if why_not:
        row["status"], row["why"] = "not testable here", why_not
    elif m is None:
        row["status"] = "not testable here"
        what = claim.reads.split(":")[0]
        row["why"] = row["why"] or (f"no data for it in these results ({what}"
                                    + (": make " + what.split("/")[-1][:-4] if
                                       what.startswith("bench/") else "") + ")")
    elif m.exercised:
        row["status"], row["why"] = "not exercised", m.exercised
    elif claim.rule in (PAIRED, EVERY_PART):
        row["status"] = _paired_verdict(claim, m, row)
    else:
        # a bound: the value is the worst run's or point's, decided as it is
        row["status"] = decide(claim.op, claim.threshold, m.value, m.value)
    if m is not None and claim.unit == "x" and claim.rule == PAIRED:
        # no value where the runs do not support one (stats.undetermined):
        # printed as undetermined, never as a median, and never decided
        und = stats.undetermined(m.values, *(float(row[k]) if row[k] else None
                                             for k in ("lo", "hi")))
        if und:
            row.update(value="", lo="", hi="", coverage="")
            if row["status"] in ("holds", "does not hold"):
                row["status"] = "inconclusive"
            row["why"] = und + (f"; {row['why']}" if row["why"] else "")
    return row


COLUMNS = ["host", "claim", "finding", "status", "value", "lo", "hi", "n", "coverage", "unit",
           "op", "threshold", "study", "estimator", "rule", "source", "detail", "why", "when",
           "reads", "sentence"]


def report(hostdir):
    ctx = Host(hostdir)
    return [evaluate(c, ctx) for c in CLAIMS]
