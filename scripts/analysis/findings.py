# SPDX-License-Identifier: BSD-2-Clause
"""findings.py - the measured numbers of each finding (F1 .. F5, peers), from results/<host>/*.csv.

Every number comes from the tidy CSVs; nothing is typed in. The results
READMEs (results_readme.py), the claims (claims.py), the figures and the
paper's generated numbers all read them from here. A ratio between two
configurations is a paired ratio: the ratio of the two runs of each
repetition k (rep k of every point ran in the same round of the sweep, close
in time), its median over the repetitions, and the order-statistic interval
of that median with its exact coverage at the n used (stats.interval).
Absolute values (ns, Mops/s) are medians over repetitions. The drift
reference's runs (role reference) are left out of every point; drift.py
reports them on their own.
"""

import os
import statistics

from ..common import expfile
from . import hostfacts
from ..common import manifest
from . import nrdata
from ..common import placement, regime
from . import stats


#: the experiments, in the order the README lists them: experiments/*.exp by
#: finding (F1 .. F5, peers), then name
EXPERIMENTS = expfile.experiment_names()


#: a point at or above this share of the harness's own ceiling (the null queue's
#: throughput with the same threads, placement and items) measures the harness
#: as much as the queue
HARNESS_BOUND = 0.8

#: the column every throughput median and ratio reads
OPS = "throughput_ops_per_s"


def load_all(path):
    """Every row of a CSV as dicts of strings, the drift reference's runs
    included; [] where absent.  nrdata.read_rows, not load_tidy: the figures
    check the tidy tables; the summaries also read partial ones (tests)."""
    return nrdata.read_rows(path) if os.path.exists(path) else []


def load(path):
    """The rows of the sweep's points (the drift reference's runs left out)."""
    return [r for r in load_all(path) if not nrdata.is_reference(r)]


def load_refs(path):
    """The drift reference's runs of a tidy CSV (points reference-start, -middle, -end)."""
    return [r for r in load_all(path) if nrdata.is_reference(r)]


def _group(rows, key):
    """{key(r): [rows]} in the order the keys first come."""
    out = {}
    for r in rows:
        out.setdefault(key(r), []).append(r)
    return out


def _at(rows, t):
    """The rows of thread count t."""
    return [r for r in rows if threads(r) == t]


def _median(vals):
    """statistics.median of the values that are not None; None where none is."""
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def _change(a, b):
    """a's change against b, as a fraction (the paired fn of a relative change)."""
    return a / b - 1


#: stats.Interval (estimate, low, high, n, coverage) of a paired ratio: fn(a_k,
#: b_k) (default a_k / b_k) for every repetition k both groups ran; None where
#: no repetition pairs up
paired = stats.paired


def put_ratio(out, name, pr, scale=1.0):
    """out[name], out[name_lo], out[name_hi], out[name_n], out[name_cov] from a
    paired() result (x scale), and out[name_vals] its paired values (x scale:
    what a claim decides on, stats.decision_interval)."""
    if pr:
        # one interval wherever the number appears (README, paper, figures,
        # claims.csv): the one its claims decide on from the first look on
        # (stats.decision_interval), the plain order-statistic one below it
        iv = stats.decision_interval(pr.values) or pr
        out[name], out[name + "_lo"], out[name + "_hi"] = (
            v * scale for v in (pr[0], iv[1], iv[2]))
        out[name + "_n"], out[name + "_cov"] = pr[3], iv[4]
        out[name + "_vals"] = [v * scale for v in pr.values]
        if getattr(pr, "near", None) is not None:
            out[name + "_near"] = [v * scale for v in pr.near]


def within_regime(out, a_rows, b_rows, key=OPS, fn=None):
    """Pick the regime a comparison of a_rows against b_rows is quoted in
    (regime.headline of the groups in which a repetition's two runs both ran)
    and record every group's paired ratio: out["regime"] (its label, or
    "mixed" where no repetition ran both runs in one regime),
    out["regimes"] {label: stats.Interval}, out["regime_mix"] (how the runs
    split, '' if one group). Returns the headline group (None if mixed)."""
    groups = stats.paired_by_regime(a_rows, b_rows, key, fn)
    g = regime.headline(groups)
    out["regime"] = regime.group_label(g) if g else "mixed"
    out["regimes"] = {regime.group_label(k): v for k, v in groups.items()}
    out["regime_mix"] = regime.mixed_note(list(a_rows) + list(b_rows))
    # what the selection kept of what was measured: the pairs of the quoted
    # group against every pair of its pace, and the ratio pooled over them; a
    # pinned pace (the experiment declared it) is chosen by design, a free
    # group among several after the fact
    same_pace = (lambda rs: [r for r in rs if regime.pace_of(r) == g[0]]) if g else list
    pooled = stats.paired(same_pace(a_rows), same_pace(b_rows), key, fn)
    out.update(pooled=pooled, pairs_measured=pooled.n if pooled else 0,
               pairs_used=groups[g].n if g else 0, by_design=bool(g) and g[0] != "free")
    return g


def regime_rows(rows, g):
    """rows restricted to group g (all of them where g is None)."""
    return rows if g is None else regime.in_group(rows, g)


def med(rows, key):
    """The median of column key over rows, empty cells left out; None where all are."""
    return _median(float(r[key]) for r in rows if r.get(key) not in ("", None))


#: the row's threads: a symmetric workload's --threads, else producers + consumers
threads = nrdata.threads


def item_of(r):
    """The row's item mode: inline (a value) or message; an empty cell is inline."""
    return (r.get("item") or "").strip() or "inline"


def by_item(rows, item):
    return [r for r in rows if item_of(r) == item]


def sample_of(rows):
    """'64' when every row times 1 in 64 items; '1/64' when they differ; None if unknown."""
    vals = sorted({(r.get("sample") or "").strip() for r in rows} - {""}, key=float)
    return "/".join(vals) if vals else None


def by(rows, **kw):
    """The rows whose column k reads v for every k=v of kw (v: the CSV's text)."""
    return [r for r in rows if all(r.get(k) == v for k, v in kw.items())]


def _bursts(rows, bursts):
    """The rows of one bursts setting ("0": single operations, "1": bursts); a
    row without the column is of single operations."""
    return [r for r in rows if str(r.get("bursts", "0")) == bursts]


def _one_to_one(r):
    """Whether the row ran one producer and one consumer (1P1C)."""
    return int(r["producers"]) == 1 and int(r["consumers"]) == 1


#: the look-ups F1 states against none besides libnuma (its reference), in the
#: order its ratios are stated (stated_effects): the production ones first
F1_VS_NONE = ("cached", "rseq", "rdpid", "table", "syscall")


def f1(hostdir):
    """F1: the look-up's time per item against the data movement (lookup none
    against libnuma, paired per repetition) and each of F1_VS_NONE against
    none, all within the regime most pairs ran in; None without both."""
    rows = load(os.path.join(hostdir, "f1-lookup-cost.csv"))
    if not rows:
        return None
    h, reg = harness_alone(rows), {}
    g = within_regime(reg, by(rows, lookup="none"), by(rows, lookup="libnuma"), fn=_change)
    rows = regime_rows(rows, g)   # every number below: runs of one regime
    none_rows, lib_rows = by(rows, lookup="none"), by(rows, lookup="libnuma")
    none, lib = med(none_rows, OPS), med(lib_rows, OPS)
    if not none or not lib:
        return None
    move_ns = 1e9 / none
    out = {"move_ns": move_ns, "libnuma_op_ns": 1e9 / lib, "reps": len(lib_rows), **reg}
    # look-up / data movement, per repetition: (1/lib_k - 1/none_k) / (1/none_k)
    put_ratio(out, "ratio", paired(none_rows, lib_rows, fn=_change))
    if "ratio" not in out:   # no repetition pairs up: the ratio of the medians, no CI
        out["ratio"] = none / lib - 1
    out["lookup_ns"] = out["ratio"] * move_ns
    if h:
        # the harness alone: its time per item, against the data movement (lookup none)
        out["harness_ns"] = 1e9 / h
        out["move_over_harness"] = move_ns / (1e9 / h)
    for mode in F1_VS_NONE:
        # time per item of the mode over that of no look-up, per repetition
        put_ratio(out, f"{mode}_vs_none", paired(none_rows, by(rows, lookup=mode)))
    return out


def bench_ring(hostdir):
    """F1 on one thread (make bench-ring): libnuma's look-up against the data
    movement of an uncontended operation (half an enqueue+dequeue pair)."""
    rows = load_all(os.path.join(hostdir, "bench-ring.csv"))
    none, lib = by(rows, lookup="none"), by(rows, lookup="libnuma")
    if not none or not lib:
        return None
    pair, look = float(none[0]["pair_ns_median"]), float(lib[0]["lookup_ns_median"])
    return {"move_ns": pair / 2, "lookup_ns": look, "ratio": look / (pair / 2),
            **{f"{r['lookup']}_pair_over_none": float(r["pair_ns_median"]) / pair
               for r in rows}}


def quoted_threads(hostdir, rows, usable=None):
    """The thread count quoted for a sweep over threads (nrdata.quoted_threads):
    the largest with a core per thread where the host has SMT, so that a
    summary never quotes runs whose threads shared a core's siblings."""
    m = hostfacts.machine(hostdir)
    return nrdata.quoted_threads(rows, m["cores"], m["threads_per_core"], usable)


def f2(hostdir):
    """F2: the node cached per thread (and rseq) against libnuma's look-up at
    the quoted thread count, paired within the regime most pairs ran in."""
    rows = load(os.path.join(hostdir, "f2-node-cache.csv"))
    m = quoted_threads(hostdir, rows)   # the largest, one per core on SMT
    rows = _at(rows, m)
    if not rows:
        return None
    h, reg = harness_alone(rows), {}
    g = within_regime(reg, by(rows, lookup="cached"), by(rows, lookup="libnuma"))
    rows = regime_rows(rows, g)   # every number below: runs of one regime
    lib_rows, cached_rows = by(rows, lookup="libnuma"), by(rows, lookup="cached")
    lib, cached = med(lib_rows, OPS), med(cached_rows, OPS)
    if not lib or not cached:
        return None
    out = {"threads": m, "cached_mops": cached / 1e6, "libnuma_mops": lib / 1e6,
           "harness_mops": h / 1e6 if h else None,
           "cached_over_harness": cached / h if h else None, "rseq_over_libnuma": None,
           "oversubscribed": any_oversubscribed(rows), "stolen": stolen_runs(rows), **reg}
    put_ratio(out, "cached_over_libnuma", paired(cached_rows, lib_rows))
    put_ratio(out, "rseq_over_libnuma", paired(by(rows, lookup="rseq"), lib_rows))
    return out


def any_oversubscribed(rows):
    """True if a row was oversubscribed, False if none was, None if not recorded."""
    flags = {nrdata.oversubscribed(r) for r in rows}
    return True if True in flags else False if flags == {False} else None


def f3_threads(rows, hostdir):
    """The thread count F3 reports: the largest whose runs are not
    oversubscribed (each thread has a CPU) and, on a host with SMT, had a
    core per thread (quoted_threads), else the largest; and whether that one
    is oversubscribed (None: not recorded)."""
    t = quoted_threads(hostdir, rows, lambda rs: any_oversubscribed(rs) is False)
    return t, any_oversubscribed(_at(rows, t))


def load_of(r):
    """The offered load of an open-loop row (a fraction of capacity), '' if closed loop."""
    return (r.get("load") or "").strip()


#: the shared gate was contended where at least this share of transfers waited for it
GATE_WAITS_EXERCISED = 0.01


def gate_waits_per_transfer(r):
    """Gate waits per cross-node transfer of one run; None where not counted."""
    w, t = nrdata.num(r, "gate_waits"), [nrdata.num(r, k) for k in ("batches_in", "batches_out")]
    return None if w is None or None in t or sum(t) <= 0 else w / sum(t)


def f3(hostdir):
    """shared / per-worker gate latency at the F3 thread count (f3_threads), per
    offered load (closed loop: one group), from the runs that kept up with
    their offered rate: a saturated run (regime.saturated: its backlog grew
    through its window) is left out of every percentile and ratio, and
    counted. The headline is the largest load with a pair left. With it, what
    the shared gate did: its waits per transfer and the items a transfer moved
    (medians over its unsaturated runs at that load), against the batch."""
    allrows = load(os.path.join(hostdir, "f3-gate.csv"))
    if not allrows:
        return None
    m, over = f3_threads(allrows, hostdir)
    at = _at(allrows, m)
    per_load = []
    for ld, measured in sorted(_group(at, load_of).items(),
                               key=lambda kv: float(kv[0]) if kv[0] else -1.0):
        rs = [r for r in measured if regime.saturated(r) != 1]
        sh, pw = by(rs, gate="shared"), by(rs, gate="perworker")
        shm, pwm = med(sh, "p50_ns"), med(pw, "p50_ns")
        if not shm or not pwm:
            continue
        d = {"load": ld, "p50_shared_ns": shm, "p50_perworker_ns": pwm,
             "p50_pernode_ns": med(by(rs, gate="pernode"), "p50_ns"),
             "inflight_shared": med(sh, "inflight"), "inflight_perworker": med(pw, "inflight"),
             "mops_shared": (med(sh, OPS) or 0) / 1e6,
             "mops_perworker": (med(pw, OPS) or 0) / 1e6,
             "saturated": len(measured) - len(rs), "runs": len(measured),
             "pairs_measured": len({r.get("rep") for r in by(measured, gate="shared")}
                                   & {r.get("rep") for r in by(measured, gate="perworker")}),
             "shared_waits_per_transfer": _median(map(gate_waits_per_transfer, sh)),
             "shared_items_per_transfer": _median(map(realized_of, sh)),
             "batch": nrdata.num(sh[0], "batch")}
        put_ratio(d, "shared_over_perworker", paired(sh, pw, "p50_ns"))
        put_ratio(d, "p99_shared_over_perworker", paired(sh, pw, "p99_ns"))
        per_load.append(d)
    if not per_load:
        return None
    # the headline: the largest load whose kept-up runs of the two gates still
    # pair up (a rep of each); a load where both gates kept up in different
    # reps has medians but no paired ratio, and is only listed
    head = next((d for d in reversed(per_load) if d.get("shared_over_perworker") is not None),
                per_load[-1])
    return {**head, "threads": m, "oversubscribed": over, "loads": per_load,
            "stolen": stolen_runs(at), "saturated_runs": sum(d["saturated"] for d in per_load),
            "thread_counts": sorted({threads(r) for r in allrows})}


def placement_counts(hostdir):
    """(runs that timed their CPUs' line trip, runs with an end more than
    placement.FAR x the probe's trip) over the host's experiments; (0, 0)
    without a probe (handover.py reports the same per experiment)."""
    t_c = placement.probe_trip(os.path.join(hostdir, "probe", "probe.csv"))
    timed = [r for exp in EXPERIMENTS if t_c for r in load(os.path.join(hostdir, f"{exp}.csv"))
             if placement.ends(r)]
    return len(timed), sum(1 for r in timed if placement.far(r, t_c))


def workload_of(r):
    """The row's workload: prodcons (producers and consumers apart; an empty
    cell, from before workloads), pairs or mixed."""
    return (r.get("workload") or "").strip() or "prodcons"


def work_of(r):
    """The row's local work between operations, ns (0 where not recorded)."""
    try:
        return float(r.get("work_ns") or r.get("work") or 0)
    except ValueError:
        return 0.0


#: the row's work as a file names it ("0", "NS", "MIN-MAX") and its pin (tidy.py)
work_label, pin_of = nrdata.work_label, nrdata.pin_of
#: the peers sweep's named configuration: what its claims read (nrdata.peers_named)
PEERS_WORK, PEERS_PIN = nrdata.PEERS_WORK, nrdata.PEERS_PIN


def peers_rows(hostdir, item="inline", workload="prodcons", work=PEERS_WORK, pin=PEERS_PIN):
    """The points' rows of peers.csv of one item mode (None: both), workload,
    work and pin."""
    rows = load(os.path.join(hostdir, "peers.csv"))
    return [r for r in (by_item(rows, item) if item else rows)
            if workload_of(r) == workload and work_label(r) == work and pin_of(r) == pin]


def peers_configs(hostdir):
    """[(workload, work, pin)] that peers.csv ran, in the order of
    experiments/peers.exp's axes (prodcons, pairs, mixed; the work levels by
    their largest draw; compact first)."""
    rows = load(os.path.join(hostdir, "peers.csv"))
    wl = {w: i for i, w in enumerate(manifest.workloads())}
    pins = {p: i for i, p in enumerate(manifest.pins())}
    return sorted({(workload_of(r), work_label(r), pin_of(r)) for r in rows},
                  key=lambda c: (wl.get(c[0], 9), expfile.work_max(c[1]), c[1],
                                 pins.get(c[2], 9)))


def all_work(r):
    """Every local work of a run, ns: the workload's and its pace's."""
    return work_of(r) + sum(nrdata.num(r, k) or 0.0
                            for k in ("producer_work_ns", "consumer_work_ns"))


def harness_alone(rows):
    """THE harness alone of a set of runs (one definition, everywhere: the
    README, the figures, the claims, the paper): the median of
    harness_ops_per_s (the null queue through the same code, options and
    threads) over those of the runs with the least local work (a paced or
    working run's harness does that work too); None where none recorded it."""
    rs = [r for r in rows if nrdata.num(r, "harness_ops_per_s")]
    if not rs:
        return None
    least = min(all_work(r) for r in rs)
    return med([r for r in rs if all_work(r) == least], "harness_ops_per_s")


#: the backoffs F4 weighs against none (numaring-bench's, in its order)
F4_BACKOFFS = tuple(b for b in manifest.backoffs() if b != "none")


def _f4_rows(hostdir, workload, work, rows):
    """F4's rows (f4-backoff.csv's where rows is None) of one workload and work
    at its thread count, and that count: the largest whose runs had a CPU (a
    core, on SMT) each, as a comparison of backoffs among oversubscribed
    threads measures the scheduler (f3_threads); ([], None) for no rows."""
    if rows is None:
        rows = load(os.path.join(hostdir, "f4-backoff.csv"))
    rows = [r for r in rows if workload_of(r) == workload and work_of(r) == work]
    if not rows:
        return [], None
    m, _ = f3_threads(rows, hostdir)
    return _at(rows, m), m


def f4(hostdir, workload="prodcons", work=0.0, rows=None):
    """F4 at the quoted thread count for one workload and amount of local work:
    each backoff's paired change against none (retrying at once), the lost
    races per operation of every backoff and of none (whether the mechanism
    ran is judged on none's: claims.py), time in backoff per operation where
    recorded. None where the workload did not run."""
    rows, m = _f4_rows(hostdir, workload, work, rows)
    none_rows = by(rows, backoff="none")
    if not med(none_rows, OPS):
        return None
    out = {"threads": m, "oversubscribed": any_oversubscribed(rows), "workload": workload,
           "stolen": stolen_runs(rows), "work": work,
           "none_failed_per_item": med_failed(none_rows)}
    for b in F4_BACKOFFS:
        brows = by(rows, backoff=b)
        if not brows:
            continue
        if workload == "prodcons":
            # producers and consumers apart settle near empty or full (regime.py):
            # the change is quoted within the regime most pairs ran in, every
            # regime's beside it, as F1's and F2's ratios
            reg = {}
            g = within_regime(reg, brows, none_rows, fn=_change)
            pr = reg["regimes"].get(regime.group_label(g)) if g else None
            out.update({f"{b}_{k}": reg[k] for k in ("regime", "regime_mix", "pooled",
                                                      "pairs_used", "pairs_measured", "by_design")})
        else:
            pr = paired(brows, none_rows, fn=_change)
        put_ratio(out, f"{b}_change_pct", pr, 100.0)
        out[f"{b}_failed_per_item"] = med_failed(brows)
        # whether a backoff had anything to do is judged on retrying at once: a
        # backoff that runs loses fewer races itself
        out[f"{b}_exercised"] = nrdata.backoff_exercised(out["none_failed_per_item"])
        ns = med_per_op(brows)
        if ns is not None:
            out[f"{b}_backoff_ns_per_op"] = ns
    return out


def med_per_op(rows, columns=("backoff_ns_race", "backoff_ns_gate")):
    """The median over rows of the sum of ``columns`` (counted over the whole
    run; by default its time in backoff, ns) per operation of the whole run
    (enqueued + dequeued, as nrdata.failed_per_item); None where a row lacks them."""
    vals = []
    for r in rows:
        parts = [nrdata.num(r, c) for c in columns]
        e, d = nrdata.num(r, "enqueued"), nrdata.num(r, "dequeued")
        n = e + d if e is not None and d is not None else nrdata.num(r, "ops")
        if any(p is None for p in parts) or not n:
            return None
        vals.append(sum(parts) / n)
    return _median(vals)


def med_failed(rows):
    """The median over rows of failed attempts per operation (failed_attempts / ops)."""
    return _median(map(nrdata.failed_per_item, rows))


def f4_workloads(hostdir):
    """[(workload, work)] that F4's results hold, prodcons first."""
    rows = load(os.path.join(hostdir, "f4-backoff.csv"))
    wl = manifest.workloads()
    return sorted({(workload_of(r), work_of(r)) for r in rows},
                  key=lambda k: (wl.index(k[0]) if k[0] in wl else 9, k[1]))


#: f4-spin (experiments/f4-spin.exp): each backoff it sweeps and the column
#: that sets how long it spins (pause: its fixed spin, exp: its cap), in PAUSEs
F4_SPIN_COLUMNS = (("pause", "pause_spin"), ("exp", "exp_cap"))


def f4_spin(hostdir, rows=None):
    """f4-spin by backoff and spin length: [{backoff, column, spin,
    change_pct (+ _lo, _hi, _n, ...: put_ratio's), failed_per_item,
    none_failed_per_item, backoff_ns_per_op}], pause by pause_spin then exp by
    exp_cap, shortest first. Each backoff's runs at a spin length are paired
    with the none runs of the same points (the same spin and the same setting
    of the other column) and rounds; [] without f4-spin.csv."""
    if rows is None:
        rows = load(os.path.join(hostdir, "f4-spin.csv"))
    out = []
    for b, col in F4_SPIN_COLUMNS:
        other = "exp_cap" if col == "pause_spin" else "pause_spin"
        spin = lambda r: int(float(r[col]))  # noqa: E731 - the loop's column
        spins = _group([r for r in rows if r.get(col) and r.get("backoff") == b], spin)
        for sp, brows in sorted(spins.items()):
            # the none runs of the same points' other settings
            others = {x[other] for x in brows}
            none_rows = [r for r in rows if r.get("backoff") == "none"
                         and spin(r) == sp and r[other] in others]
            d = {"backoff": b, "column": col, "spin": sp,
                 "failed_per_item": med_failed(brows),
                 "none_failed_per_item": med_failed(none_rows),
                 "backoff_ns_per_op": med_per_op(brows)}
            put_ratio(d, "change_pct", paired(brows, none_rows, fn=_change), 100.0)
            out.append(d)
    return out


def _vs_ceiling(hostdir, rows, key, modelled=False):
    """{key(r): (its rows, ceiling.group_ratio)} of each point of rows (grouped
    by key, as they come; with ``modelled`` only the rows the model speaks of)
    that has a ratio to its ceiling, each run against its own; None without
    rows or the host's probe."""
    from . import ceiling  # here, not above: figures draw without the model (test_plots.Ceiling)
    probe = ceiling.host_probe(hostdir) if rows else None
    if not probe:
        return None
    pts = _group([r for r in rows if not modelled or ceiling.modelled(r)], key)
    return {k: (rs, g) for k, rs in pts.items() for g in [ceiling.group_ratio(probe, rs)] if g}


def ceiling_ratios(hostdir, name):
    """measured/ceiling per point for one experiment: the median over its reps
    of each run's ratio to its own ceiling (ceiling.group_ratio); measured and
    ceiling are the medians of the runs'."""
    rows = load(os.path.join(hostdir, f"{name}.csv"))
    # the model speaks of producers and consumers apart (ceiling.modelled)
    pts = _vs_ceiling(hostdir, rows, lambda r: r["point"], modelled=True)
    if pts is None:
        return None
    host = hostfacts.machine(hostdir)
    return [{"point": pid, "queue": rs[0]["queue"], "measured": g["measured"],
             "ceiling": g["ceiling"], "ratio": g["ratio"], "threads": threads(rs[0]),
             "batch": int(rs[0]["batch"]), "bursts": rs[0].get("bursts", "0"),
             "bound": g["bound"],
             "per_core": nrdata.one_per_core(rs, host["cores"], host["threads_per_core"])}
            for pid, (rs, g) in pts.items()]


def quoted_best(cr):
    """The point of ceiling_ratios a summary quotes as the best measured/ceiling:
    the highest among the points with a core per thread (all points where none
    has), as every quoted thread count; None for no points."""
    pool = [x for x in cr if x.get("per_core", True)] or cr
    return max(pool, key=lambda x: x["ratio"]) if pool else None


#: F5's target: every point realizes at least this share of its configured batch
#: (the same rule as plot.py's F5 figure)
REALIZED_TARGET = 0.8


def realized_of(r):
    """Items moved per cross-node transfer in a run: items_per_transfer, else the
    same formula, (items_in + items_out) / (batches_in + batches_out), from its
    queue counters; None where neither is there (as plot.realized_of)."""
    v = nrdata.num(r, "items_per_transfer")
    if v is not None and v > 0:
        return v
    c = [nrdata.num(r, k) for k in ("items_in", "items_out", "batches_in", "batches_out")]
    if all(x is not None for x in c) and c[2] + c[3] > 0 and c[0] + c[1] > 0:
        return (c[0] + c[1]) / (c[2] + c[3])
    return None


def f5_how(rows):
    """How F5's runs kept a batch waiting at the source, from their rows (for
    F5.realized-batch's detail): open loop at its offered load or closed loop,
    the pace where a side was paced (regime.pace_of: that side's work, ns,
    drawn 0..N after each operation), the consumers' linger and the slots of
    a node ring; each part's values joined with '/' where the runs differ.
    '' for no rows."""
    def vals(fn):
        return "/".join(dict.fromkeys(v for v in map(fn, rows) if v))

    def pace(r):
        p = regime.pace_of(r)
        side = {"producer-paced": "producer", "consumer-paced": "consumer"}.get(p)
        paced = ""
        if side:
            w = nrdata.num(r, f"{side}_work_ns")
            op = {"producer": "enqueue", "consumer": "dequeue"}[side]
            paced = f"{p} (0..{w:g} ns of work per {op})" if w else p
        if regime.closed_loop(r):
            return "closed loop, " + (paced or "no side paced")
        rate = nrdata.num(r, "rate")
        return ((f"open loop at {load_of(r)} of the capacity" if load_of(r)
                 else f"open loop at {rate / 1e6:.3g} M items/s") + (", " + paced if paced else ""))

    def linger(r):
        us = nrdata.num(r, "linger_us")
        return (f"consumers lingering up to {us:g} us for a full batch" if us
                else "no linger" if us is not None else "")

    def ring(r):
        slots, nodes = nrdata.num(r, "queue_slots"), nrdata.num(r, "nodes")
        return f"{slots / nodes:g} slots a node ring" if slots and nodes else ""

    return ", ".join(v for v in (vals(pace), vals(linger), vals(ring)) if v)


def _point(r):
    """F5's point of a row: (threads, its configured batch)."""
    return threads(r), int(float(r["batch"]))


def f5_realized(hostdir):
    """F5's realized batch per open-loop point: [{threads, batch, realized (median
    over the reps), ratio realized / configured, how (f5_how of its runs)}] sorted
    by threads and batch; None where no run records its transfers."""
    # the open-loop runs (the figure's realized-batch panel): a closed loop keeps
    # every batch full, so mixing its runs in would hide short transfers
    rows = [r for r in load(os.path.join(hostdir, "f5-ceiling.csv"))
            if load_of(r) or not regime.closed_loop(r)]
    return [{"threads": t, "batch": b, "realized": m, "ratio": m / b, "how": f5_how(rs)}
            for (t, b), rs in sorted(_group(rows, _point).items())
            for m in [_median(map(realized_of, rs))] if m is not None] or None


def f5_closed(hostdir):
    """F5's closed-loop points (load = closed: the capacity, where the model can
    bind): [{threads, batch, measured (Mitems/s, median), ceiling (Mitems/s),
    ratio, bound (the binding term)}] sorted by threads and batch; None where
    f5-ceiling.csv has no closed-loop rows or no probe."""
    rows = [r for r in load(os.path.join(hostdir, "f5-ceiling.csv"))
            if not load_of(r) and regime.closed_loop(r)]
    pts = _vs_ceiling(hostdir, rows, _point)
    return [{"threads": t, "batch": b, "measured": g["measured"] / 1e6,
             "ceiling": g["ceiling"] / 1e6, "ratio": g["ratio"], "bound": g["bound"],
             "oversubscribed": any_oversubscribed(rs)}
            for (t, b), (rs, g) in sorted((pts or {}).items())] or None


#: every queue peers measures: numaring-bench's, less the null queue (the
#: harness's own ceiling) and its fault adapters
PEER_QUEUES = manifest.queues(fabricates=False)


def peers(hostdir, item="inline", work=PEERS_WORK, pin=PEERS_PIN, at="lowest"):
    """numaring against its peers at one thread count, for one item mode
    (inline: the item is a value; message: a pointer whose line travels too),
    producers and consumers apart, at one work level and placement (by default
    the sweep's named one: PEERS_WORK, PEERS_PIN). at: "lowest", the lowest
    thread count (1P1C); "widest", the largest whose runs all had a CPU each
    (n producers and consumers per node across nodes; the lowest where every
    count was oversubscribed)."""
    rows = peers_rows(hostdir, item, "prodcons", work, pin)  # pairs: peers_pairs()
    if not rows:
        return None
    by_t = _group(rows, threads)
    counts = sorted(by_t)
    m = counts[0]  # the 1P1C comparison
    if at == "widest":
        own = [t for t in counts if not any_oversubscribed(by_t[t])]
        m = own[-1] if own else m
    elif at != "lowest":
        raise ValueError(f"at: lowest or widest, not {at!r}")
    rows = by_t[m]
    out = {"threads": m, "item": item, "work": work, "pin": pin, "sample": sample_of(rows),
           "oversubscribed": any_oversubscribed(rows), "stolen": stolen_runs(rows)}
    for bursts in ("0", "1"):
        rs = by(rows, bursts=bursts)
        ring = by(rs, queue="numaring")
        # the named peers' ratios, each in the regime of its own pairs, with
        # that regime's account under b<bursts>_<peer>_ (a claim against flat
        # quotes flat's runs, not rte_ring's)
        for q in ("rte", "flat", "scq"):
            if by(rs, queue=q) and ring:
                qreg = {}
                gq = within_regime(qreg, ring, by(rs, queue=q))
                out.update({f"b{bursts}_{q}_{k}": v for k, v in qreg.items()})
                put_ratio(out, f"b{bursts}_over_{q}",
                          paired(regime_rows(ring, gq), regime_rows(by(rs, queue=q), gq)))
        # one regime per comparison: the group numaring and rte_ring (else
        # flat) ran in together most often
        reg = {}
        g = within_regime(reg, ring, by(rs, queue="rte" if by(rs, queue="rte") else "flat"))
        out.update({f"b{bursts}_{k}": v for k, v in reg.items()})
        out[f"b{bursts}_groups"] = {regime.group_label(grp): peer_group(grs)
                                    for grp, grs in regime.split(rs).items()}
        h = harness_alone(rs)
        rs = regime_rows(rs, g)
        qrows = {q: (qr, v) for q, qr, v in per_queue(rs)}
        if h:
            out[f"b{bursts}_harness_mops"] = h / 1e6
        if "numaring" not in qrows:
            continue
        # numaring's peers that are queues: the others, less those whose items
        # do not travel (faa)
        single_ring = {q: v for q, (_, v) in qrows.items()
                       if q != "numaring" and manifest.queue(q)["moves_data"]}
        if single_ring:
            # the best peer by its median; the ratio against it paired per repetition
            best = max(single_ring, key=single_ring.get)
            out[f"b{bursts}_best_peer"] = best
            put_ratio(out, f"b{bursts}_over_best",
                      paired(qrows["numaring"][0], qrows[best][0]))
        out[f"b{bursts}_mops"] = {q: v / 1e6 for q, (_, v) in qrows.items()}
    return out


def bounded_peers():
    """numaring's bounded peers that move data, by the manifest (its
    capacity_kind and moves_data): on one node each keeps FIFO order (the
    sharded queue's per-node order is one order there), so these are the
    strict-FIFO rings and locked queues numaring is first among or not."""
    return tuple(q for q in PEER_QUEUES if q != "numaring" and manifest.queue(q)["bounded"]
                 and manifest.queue(q)["moves_data"])


def peers_best_bounded(hostdir, workload, bursts, item="inline", work=PEERS_WORK,
                       pin=PEERS_PIN):
    """numaring against the best of bounded_peers() in one cell of the peers
    sweep: one workload (prodcons, pairs, mixed), single operations (bursts
    "0") or bursts ("1"), the lowest thread count the cell ran, one item mode,
    the sweep's named work and placement (compact: one node). The best peer
    is the one with the highest median; the ratio is paired per repetition,
    and in prodcons quoted within the regime most pairs ran in (as peers()).
    None where numaring or every such peer is missing."""
    rows = _bursts(peers_rows(hostdir, item, workload, work, pin), bursts)
    if not rows:
        return None
    t = min(threads(r) for r in rows)
    rows = _at(rows, t)
    ring = by(rows, queue="numaring")
    kept = bounded_peers()
    meds = {q: v for q, _, v in per_queue(rows) if q in kept}
    if not ring or not meds:
        return None
    best = max(meds, key=meds.get)
    best_rows = by(rows, queue=best)
    out = {"threads": t, "workload": workload, "bursts": bursts, "item": item,
           "best_peer": best, "oversubscribed": any_oversubscribed(rows),
           "stolen": stolen_runs(rows), "mops": {q: v / 1e6 for q, v in meds.items()}}
    if workload == "prodcons":
        g = within_regime(out, ring, best_rows)
        ring, best_rows = regime_rows(ring, g), regime_rows(best_rows, g)
    put_ratio(out, "over_best", paired(ring, best_rows))
    return out


def f4_default(hostdir, workload, work=0.0, rows=None):
    """The production default backoff (the manifest's backoff_default) against
    the best of the other backoffs F4 ran (none included) by median, in one
    workload and amount of local work, at F4's thread count (f4()): the
    paired ratio default / best per repetition. None where the default or
    every other backoff is missing."""
    rows, m = _f4_rows(hostdir, workload, work, rows)
    default = manifest.backoff_default()
    meds = {b: v for b in manifest.backoffs() if b != default
            for v in [med(by(rows, backoff=b), OPS)] if v}
    drows = by(rows, backoff=default)
    if not meds or not drows:
        return None
    best = max(meds, key=meds.get)
    out = {"threads": m, "workload": workload, "work": work, "default": default,
           "best": best, "oversubscribed": any_oversubscribed(rows),
           "stolen": stolen_runs(rows)}
    put_ratio(out, "over_best", paired(drows, by(rows, backoff=best)))
    return out


def per_queue(rs):
    """(queue, its rows, median throughput) of each queue of PEER_QUEUES that rs ran."""
    for q in PEER_QUEUES:
        qr = by(rs, queue=q)
        v = med(qr, OPS)
        if v:
            yield q, qr, v


def peer_group(rs):
    """Within one regime group's rows: each queue's median throughput
    (Mitems/s) and runs, and numaring's paired ratio against each other queue
    (stats.Interval, None where no repetition pairs up)."""
    ring = by(rs, queue="numaring")
    return {q: {"mops": v / 1e6, "runs": len(qr),
                "ring_over": paired(ring, qr) if q != "numaring" and ring else None}
            for q, qr, v in per_queue(rs)}


#: the pin of the peers sweep whose every item crosses nodes (producers on one
#: node, consumers on the other: expfile.CROSS_PIN of prodcons)
PEERS_CROSS_PIN = "split"


def cross_latency(hostdir, queue="numaring", key="p99_ns", item="inline", bursts="0"):
    """One queue's latency across nodes against the same queue within a node:
    the paired ratio (per repetition) of `key` of its producer-paced prodcons
    runs at pin split over those at pin compact, at the lowest thread count
    both ran (1P1C), the sweep's named work level. Producer-paced runs are
    near empty: an item's latency is its hand-over, not the time it waited
    behind a full queue (regime.pace_of). None where either side is missing.
    Returns {"threads", "ratio" (stats.Interval), "across", "within"
    (medians, ns)}."""
    def rows(pin):
        return [r for r in _bursts(peers_rows(hostdir, item, "prodcons", PEERS_WORK, pin), bursts)
                if r.get("queue") == queue and regime.pace_of(r) == "producer-paced"
                and r.get(key) not in ("", None)]
    across, within = rows(PEERS_CROSS_PIN), rows(PEERS_PIN)
    common = {threads(r) for r in across} & {threads(r) for r in within}
    if not common:
        return None
    t = min(common)
    across, within = _at(across, t), _at(within, t)
    pr = paired(across, within, key)
    if not pr:
        return None
    return {"threads": t, "ratio": pr, "across": med(across, key), "within": med(within, key),
            "oversubscribed": any_oversubscribed(across + within)}


def peers_pairs(hostdir, item="inline", workload="pairs", work=PEERS_WORK, pin=PEERS_PIN):
    """The peers under enqueue-dequeue pairs (every thread enqueues then
    dequeues, so same-role threads race; workload mixed: each operation one
    or the other at random), single operations, at one work level and
    placement (by default the sweep's named one): per thread count, each
    queue's median operations/s, lost races per 1,000 operations where the
    queue counts them, and numaring's paired ratio against each other queue.
    [] where peers.csv has no such rows."""
    rows = _bursts(peers_rows(hostdir, item, workload, work, pin), "0")
    out = []
    for t, rs in sorted(_group(rows, threads).items()):
        d = {"threads": t, "oversubscribed": any_oversubscribed(rs), "queues": {},
             "stolen": stolen_runs(rs)}
        ring = by(rs, queue="numaring")
        for q, qr, v in per_queue(rs):
            e = d["queues"][q] = {"mops": v / 1e6, "lost": med_failed(qr)}
            if q != "numaring" and ring:
                put_ratio(e, "ring_over", paired(ring, qr))
        out.append(d)
    return out


def points(rows):
    """{(profile, point): rows} in the order the rows come."""
    return _group(rows, lambda r: (r.get("profile", ""), r["point"]))


def harness_bound(hostdir, share=HARNESS_BOUND):
    """Points whose median throughput is >= share x their median harness_ops_per_s:
    (bound, measured), a list of dicts (experiment, point, queue, item, bursts,
    threads, measured, harness, ratio) and how many points of the host had the
    harness's ceiling measured."""
    bound, measured = [], 0
    for exp in EXPERIMENTS:
        for (_prof, pid), rs in points(load(os.path.join(hostdir, f"{exp}.csv"))).items():
            t, h = med(rs, OPS), med(rs, "harness_ops_per_s")
            if not t or not h:
                continue
            measured += 1
            if t >= share * h:
                bound.append({"experiment": exp, "point": pid, "queue": rs[0]["queue"],
                              "item": item_of(rs[0]), "bursts": rs[0].get("bursts", "0"),
                              "threads": threads(rs[0]), "measured": t, "harness": h,
                              "ratio": t / h})
    return bound, measured


def harness_ceiling(hostdir):
    """The harness's own ceiling per experiment at 1P1C: {experiment: {(item, bursts):
    median harness_ops_per_s}} for the item modes and burst settings present."""
    out = {}
    for exp in EXPERIMENTS:
        rows = [r for r in load(os.path.join(hostdir, f"{exp}.csv")) if _one_to_one(r)]
        d = {(item, b): h for item in manifest.items() for b in ("0", "1")
             for h in [harness_alone(by(by_item(rows, item), bursts=b))] if h}
        if d:
            out[exp] = d
    return out


def stolen_runs(rows):
    """How many of rows the runner flagged for steal time (nrdata.stolen)."""
    return sum(1 for r in rows if nrdata.stolen(r))


#: Producers' retries on a full queue per burst above which a run counts as one in
#: which the consumer set the pace (the queue ran full). Development machine
#: (make bench-peers, 1P1C bursts of 32): 0.01-0.10 where the consumer kept up,
#: 0.15-0.6 where it did not.
FULL_RETRIES_PACE = 0.1


def pace(hostdir):
    """Which side set the pace of peers' 1P1C burst runs: per (item, queue),
    the runs' full retries per burst (full_retries / (enqueued / batch)), how
    many runs were above FULL_RETRIES_PACE (the queue ran full: the consumer
    set the pace), and the median throughput of those runs and of the others.
    [] where peers.csv is missing or has no burst runs."""
    rows = [r for r in _bursts(peers_rows(hostdir, item=None), "1") if _one_to_one(r)]
    out = []
    for item in manifest.items():
        for q in ("numaring", "flat", "rte"):
            per = []
            for r in by(by_item(rows, item), queue=q):
                try:
                    bursts = float(r["enqueued"]) / max(1.0, float(r["batch"]))
                    per.append((float(r["full_retries"]) / bursts if bursts > 0 else 0.0,
                                float(r[OPS])))
                except (KeyError, ValueError):   # a run that did not record them
                    continue
            if not per:
                continue
            full = [t for x, t in per if x > FULL_RETRIES_PACE]
            kept = [t for x, t in per if x <= FULL_RETRIES_PACE]
            out.append({"item": item, "queue": q, "runs": len(per), "full_runs": len(full),
                        "retries": statistics.median(x for x, _ in per),
                        "full_mops": statistics.median(full) / 1e6 if full else None,
                        "kept_mops": statistics.median(kept) / 1e6 if kept else None})
    return out
