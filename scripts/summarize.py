# SPDX-License-Identifier: BSD-2-Clause
"""summarize.py - the measured ratios of each finding, from results/<host>/*.csv.

    python3 -m scripts.summarize [--results results] [HOST ...]
        print each host's ratios (every host of the results by default)
    python3 -m scripts.summarize [--results results] --readme HOST ...
        rewrite results/HOST/README.md

Every number comes from the tidy CSVs; nothing is typed in. The same
functions feed the paper's generated numbers. A ratio between two
configurations is a paired ratio: the ratio of the two runs of each
repetition k (rep k of every point ran in the same round of the sweep, close
in time), its median over the repetitions, and the order-statistic interval
of that median with its exact coverage at the n used (stats.interval),
printed "X.XX [lo..hi, 93.75%]". Absolute values (ns, Mops/s) are medians over
repetitions. The drift reference's runs (role reference) are left out of
every point and reported on their own: their spread against the smallest
effect an experiment states.
"""

import argparse
import csv
import json
import os
import statistics

from . import expfile
from . import hostenv
from . import manifest
from . import nrdata
from . import regime
from . import stats

STUDY = {
    "F1": "look-up 11x the data movement",
    "F2": "cached look-up 6-7x throughput",
    "F3": "per-worker counters cut p50 latency by more than 200x",
    "F4": "backoff cost 15-30% of throughput at 32 workers",
    "F5": "the interconnect set the ceiling",
}


#: the experiments, in the order the README lists them: experiments/*.exp by
#: finding (F1 .. F5, peers), then name
EXPERIMENTS = expfile.experiment_names()

#: a point at or above this share of the harness's own ceiling (the null queue's
#: throughput with the same threads, placement and items) measures the harness
#: as much as the queue
HARNESS_BOUND = 0.8


def load_all(path):
    """Every row of a tidy CSV, the drift reference's runs included."""
    if not os.path.exists(path):
        return []
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def load(path):
    """The rows of the sweep's points (the drift reference's runs left out)."""
    return [r for r in load_all(path) if not nrdata.is_reference(r)]


def load_refs(path):
    """The drift reference's runs of a tidy CSV (points reference-start, -middle, -end)."""
    return [r for r in load_all(path) if nrdata.is_reference(r)]


# ---- paired ratios ------------------------------------------------------------

def paired(a_rows, b_rows, key="throughput_ops_per_s", fn=None):
    """stats.Interval (estimate, low, high, n, coverage) of a paired ratio:
    fn(a_k, b_k) (default a_k / b_k) for every repetition k both groups ran,
    its median and order-statistic interval; None where no repetition pairs up."""
    return stats.paired(a_rows, b_rows, key, fn)


def put_ratio(out, name, pr, scale=1.0):
    """out[name], out[name_lo], out[name_hi], out[name_n], out[name_cov] from a
    paired() result (x scale)."""
    if pr:
        out[name], out[name + "_lo"], out[name + "_hi"] = (v * scale for v in pr[:3])
        out[name + "_n"] = pr[3]
        out[name + "_cov"] = pr[4]


def interval_of(d, name):
    """The stats.Interval put_ratio stored under name in d; None if absent."""
    if d.get(name) is None:
        return None
    if d.get(name + "_lo") is None:
        return stats.Interval(d[name], d[name], d[name], 1, None)
    return stats.Interval(d[name], d[name + "_lo"], d[name + "_hi"], d.get(name + "_n") or 0,
                          d.get(name + "_cov"))


def fmt_ci(d, name, fmt="{:.2f}"):
    """'X.XX [lo..hi, 93.7%]' for d[name], its interval and the interval's
    coverage ("n/a" if absent; stats.fmt)."""
    iv = interval_of(d, name)
    if iv is None:
        return "n/a"
    if iv.coverage is None and d.get(name + "_lo") is None:
        return fmt.format(iv.est)
    return stats.fmt(iv, fmt)


def within_regime(out, a_rows, b_rows, key="throughput_ops_per_s", fn=None):
    """Pick the regime a comparison of a_rows against b_rows is quoted in
    (regime.headline of the groups in which a repetition's two runs both ran)
    and record every group's paired ratio: out["regime"] (its label, or
    "mixed" where no repetition ran both runs in one regime),
    out["regimes"] {label: stats.Interval}, out["regime_mix"] (how the runs
    split, '' if one group). Returns the headline group (None if mixed)."""
    groups = regime.paired_by_regime(a_rows, b_rows, key, fn)
    g = regime.headline(groups)
    out["regime"] = regime.group_label(g) if g else "mixed"
    out["regimes"] = {regime.group_label(k): v for k, v in groups.items()}
    out["regime_mix"] = regime.mixed_note(list(a_rows) + list(b_rows))
    return g


def regime_says(r, prefix=""):
    """'regime full; runs: 3 near-empty, 7 full' for a result of within_regime()."""
    mix = r.get(prefix + "regime_mix")
    return f"regime {r.get(prefix + 'regime', '?')}" + (f"; runs: {mix}" if mix else "")


def regime_rows(rows, g):
    """rows restricted to group g (all of them where g is None)."""
    return rows if g is None else regime.in_group(rows, g)


def med(rows, key):
    vals = [float(r[key]) for r in rows if r.get(key) not in ("", None)]
    return statistics.median(vals) if vals else None


def spread(rows, key):
    vals = [float(r[key]) for r in rows if r.get(key) not in ("", None)]
    return (min(vals), max(vals)) if vals else (None, None)


def threads(r):
    """The row's threads (nrdata.threads: a symmetric workload's --threads, else
    producers + consumers)."""
    return nrdata.threads(r)


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
    return [r for r in rows if all(str(r.get(k)) == str(v) for k, v in kw.items())]


#: the look-ups F1 states against none besides libnuma (its reference), in the
#: order its ratios are stated (stated_effects): the production ones first
F1_VS_NONE = ("cached", "rseq", "rdpid", "table", "syscall")


def f1(hostdir):
    rows = load(os.path.join(hostdir, "f1-lookup-cost.csv"))
    if not rows:
        return None
    reg = {}
    g = within_regime(reg, by(rows, lookup="none"), by(rows, lookup="libnuma"),
                      fn=lambda n, b: n / b - 1)
    rows = regime_rows(rows, g)   # every number below: runs of one regime
    none_rows, lib_rows = by(rows, lookup="none"), by(rows, lookup="libnuma")
    none = med(none_rows, "throughput_ops_per_s")
    lib = med(lib_rows, "throughput_ops_per_s")
    if not none or not lib:
        return None
    move_ns = 1e9 / none
    out = {"move_ns": move_ns, "libnuma_op_ns": 1e9 / lib, "reps": len(lib_rows)}
    out.update(reg)
    # look-up / data movement, per repetition: (1/lib_k - 1/none_k) / (1/none_k)
    put_ratio(out, "ratio", paired(none_rows, lib_rows, fn=lambda n, b: n / b - 1))
    if "ratio" not in out:   # no repetition pairs up: the ratio of the medians, no CI
        out["ratio"] = none / lib - 1
    out["lookup_ns"] = out["ratio"] * move_ns
    h = med(rows, "harness_ops_per_s")
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
    rows = load(os.path.join(hostdir, "bench-ring.csv"))
    none = [r for r in rows if r["lookup"] == "none"]
    lib = [r for r in rows if r["lookup"] == "libnuma"]
    if not none or not lib:
        return None
    move = float(none[0]["pair_ns_median"]) / 2
    look = float(lib[0]["lookup_ns_median"])
    out = {"move_ns": move, "lookup_ns": look, "ratio": look / move}
    for r in rows:
        out[f"{r['lookup']}_pair_over_none"] = float(r["pair_ns_median"]) / float(none[0]["pair_ns_median"])
    return out


def machine(hostdir):
    """nrdata.host_info of a host folder: its nodes, CPUs, cores, SMT, sockets."""
    hostdir = os.path.normpath(hostdir)
    return nrdata.host_info(os.path.dirname(hostdir), os.path.basename(hostdir))


def quoted_threads(hostdir, rows, usable=None):
    """The thread count quoted for a sweep over threads (nrdata.quoted_threads):
    the largest with a core per thread where the host has SMT, so that a
    summary never quotes runs whose threads shared a core's siblings."""
    m = machine(hostdir)
    return nrdata.quoted_threads(rows, m["cores"], m["threads_per_core"], usable)


def at_quoted_threads(hostdir, rows):
    """The rows at the quoted thread count (the largest, one per core on SMT)."""
    m = quoted_threads(hostdir, rows)
    return [r for r in rows if threads(r) == m], m


def has_smt(m):
    """True where a machine (machine()) has several hardware threads per core."""
    return (m.get("threads_per_core") or 1) > 1


def smt_note(hostdir):
    """' (one per core)' after a quoted thread count where the host has SMT
    (quoted_threads then stops at its cores); '' elsewhere."""
    return " (one per core)" if has_smt(machine(hostdir)) else ""


def f2(hostdir):
    rows, m = at_quoted_threads(hostdir, load(os.path.join(hostdir, "f2-node-cache.csv")))
    if not rows:
        return None
    reg = {}
    g = within_regime(reg, by(rows, lookup="cached"), by(rows, lookup="libnuma"))
    rows = regime_rows(rows, g)   # every number below: runs of one regime
    lib_rows, cached_rows = by(rows, lookup="libnuma"), by(rows, lookup="cached")
    lib = med(lib_rows, "throughput_ops_per_s")
    cached = med(cached_rows, "throughput_ops_per_s")
    if not lib or not cached:
        return None
    h = med(rows, "harness_ops_per_s")
    out = {"threads": m, "cached_mops": cached / 1e6, "libnuma_mops": lib / 1e6,
           "harness_mops": h / 1e6 if h else None,
           "cached_over_harness": cached / h if h else None, "rseq_over_libnuma": None,
           "oversubscribed": any_oversubscribed(rows), "stolen": stolen_runs(rows)}
    out.update(reg)
    put_ratio(out, "cached_over_libnuma", paired(cached_rows, lib_rows))
    put_ratio(out, "rseq_over_libnuma", paired(by(rows, lookup="rseq"), lib_rows))
    return out


def any_oversubscribed(rows):
    """True if a row was oversubscribed, False if none was, None if not recorded."""
    flags = [nrdata.oversubscribed(r) for r in rows]
    if any(f is True for f in flags):
        return True
    if flags and all(f is False for f in flags):
        return False
    return None


def f3_threads(rows, hostdir=None):
    """The thread count F3 reports: the largest whose runs are not
    oversubscribed (each thread has a CPU) and, on a host with SMT, had a
    core per thread (quoted_threads), else the largest; and whether that one
    is oversubscribed (None: not recorded)."""
    def clean(rs):
        return any_oversubscribed(rs) is False
    t = (quoted_threads(hostdir, rows, clean) if hostdir
         else nrdata.quoted_threads(rows, usable=clean))
    return t, any_oversubscribed([r for r in rows if threads(r) == t])


def load_of(r):
    """The offered load of an open-loop row (a fraction of capacity), '' if closed loop."""
    return (r.get("load") or "").strip()


def f3(hostdir):
    """shared / per-worker gate latency at the F3 thread count (f3_threads), per
    offered load (closed loop: one group); the headline is the largest load."""
    allrows = load(os.path.join(hostdir, "f3-gate.csv"))
    if not allrows:
        return None
    m, over = f3_threads(allrows, hostdir)
    rows = [r for r in allrows if threads(r) == m]
    loads = sorted({load_of(r) for r in rows}, key=lambda v: float(v) if v else -1.0)
    per_load = []
    for ld in loads:
        rs = [r for r in rows if load_of(r) == ld]
        sh, pw = by(rs, gate="shared"), by(rs, gate="perworker")
        shm, pwm = med(sh, "p50_ns"), med(pw, "p50_ns")
        if not shm or not pwm:
            continue
        d = {"load": ld, "p50_shared_ns": shm, "p50_perworker_ns": pwm,
             "p50_pernode_ns": med(by(rs, gate="pernode"), "p50_ns"),
             "inflight_shared": med(sh, "inflight"), "inflight_perworker": med(pw, "inflight"),
             "mops_shared": (med(sh, "throughput_ops_per_s") or 0) / 1e6,
             "mops_perworker": (med(pw, "throughput_ops_per_s") or 0) / 1e6}
        put_ratio(d, "shared_over_perworker", paired(sh, pw, "p50_ns"))
        put_ratio(d, "p99_shared_over_perworker", paired(sh, pw, "p99_ns"))
        per_load.append(d)
    if not per_load:
        return None
    out = dict(per_load[-1])
    out.update({"threads": m, "oversubscribed": over, "loads": per_load,
                "stolen": stolen_runs([r for r in allrows if threads(r) == m]),
                "thread_counts": sorted({threads(r) for r in allrows})})
    return out


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


#: the backoffs F4 weighs against none (numaring-bench's, in its order)
F4_BACKOFFS = tuple(b for b in manifest.backoffs() if b != "none")


def f4(hostdir, workload="prodcons", work=0.0, rows=None):
    """F4 at the quoted thread count for one workload and amount of local work:
    each backoff's paired change against none (retrying at once), the lost
    races per operation of every backoff and of none (whether the mechanism
    ran is judged on none's: claims.py), time in backoff per operation where
    recorded. None where the workload did not run."""
    if rows is None:
        rows = load(os.path.join(hostdir, "f4-backoff.csv"))
    rows = [r for r in rows if workload_of(r) == workload and work_of(r) == work]
    if not rows:
        return None
    # the largest thread count whose runs had a CPU (a core, on SMT) each: a
    # comparison of backoffs among oversubscribed threads measures the scheduler
    m, _ = f3_threads(rows, hostdir)
    rows = [r for r in rows if threads(r) == m]
    none_rows = by(rows, backoff="none")
    none = med(none_rows, "throughput_ops_per_s")
    if not none:
        return None
    out = {"threads": m, "oversubscribed": any_oversubscribed(rows), "workload": workload,
           "stolen": stolen_runs(rows),
           "work": work, "none_failed_per_item": med_failed(none_rows)}
    for b in F4_BACKOFFS:
        brows = by(rows, backoff=b)
        if not brows:
            continue
        change = (lambda x, y: x / y - 1)
        if workload == "prodcons":
            # producers and consumers apart settle near empty or full (regime.py):
            # the change is quoted within the regime most pairs ran in, every
            # regime's beside it, as F1's and F2's ratios
            reg = {}
            g = within_regime(reg, brows, none_rows, fn=change)
            pr = reg["regimes"].get(regime.group_label(g)) if g else None
            out[f"{b}_regime"], out[f"{b}_regime_mix"] = reg["regime"], reg["regime_mix"]
        else:
            pr = paired(brows, none_rows, fn=change)
        put_ratio(out, f"{b}_change_pct", pr, 100.0)
        rate = med_failed(brows)
        out[f"{b}_failed_per_item"] = rate
        # whether a backoff had anything to do is judged on retrying at once: a
        # backoff that runs loses fewer races itself
        out[f"{b}_exercised"] = nrdata.backoff_exercised(out["none_failed_per_item"])
        ns = med_per_op(brows, ("backoff_ns_race", "backoff_ns_gate"))
        if ns is not None:
            out[f"{b}_backoff_ns_per_op"] = ns
    return out


def med_per_op(rows, columns):
    """The median over rows of the sum of ``columns`` (counted over the whole
    run) per operation of the whole run (enqueued + dequeued, as
    nrdata.failed_per_item); None where a row lacks them."""
    vals = []
    for r in rows:
        parts = [nrdata.num(r, c) for c in columns]
        e, d = nrdata.num(r, "enqueued"), nrdata.num(r, "dequeued")
        n = e + d if e is not None and d is not None else nrdata.num(r, "ops")
        if any(p is None for p in parts) or not n:
            return None
        vals.append(sum(parts) / n)
    return statistics.median(vals) if vals else None


F4_WORKLOAD_WORDS = {"prodcons": "producers and consumers apart",
                     "pairs": "every thread enqueues then dequeues",
                     "mixed": "each operation an enqueue or a dequeue at random"}


def f4_section(hostdir):
    """The README's F4 by workload: each backoff against retrying at once, with
    the mechanism's counters (lost races, time in backoff), then the spin
    lengths (f4-spin.csv), then why, in the numbers measured here."""
    keys = f4_workloads(hostdir)
    if not keys or keys == [("prodcons", 0.0)]:
        return []
    lines = ["", "## F4 by workload: backoff against retrying at once", "",
             "Each backoff's paired change in throughput against `none` (retrying at once) "
             "at the largest thread count whose threads had a CPU each; *not exercised* "
             "where the `none` run lost fewer than 1 race per 1,000 operations (no backoff "
             "had anything to do). Lost races per 1,000 operations (failed_attempts / "
             "(enqueued + dequeued), whole run) and time in backoff per operation (sampled "
             "by the ring: one backoff in 16 timed) say what each backoff did. Workloads: "
             + "; ".join(f"{w}: {d}" for w, d in F4_WORKLOAD_WORDS.items()) + ".", "",
             "| workload | local work (ns) | threads | none: lost races / 1,000 ops | "
             + " | ".join(f"{b}: change (lost races / 1,000; ns in backoff / op)"
                          for b in F4_BACKOFFS) + " |",
             "|---|---|---|---|" + "---|" * len(F4_BACKOFFS)]
    why = []
    for w, work in keys:
        r = f4(hostdir, w, work)
        if not r:
            continue
        none = r.get("none_failed_per_item")
        cells = []
        for b in F4_BACKOFFS:
            if f"{b}_change_pct" not in r:
                cells.append("—")
                continue
            rate = r.get(f"{b}_failed_per_item")
            ns = r.get(f"{b}_backoff_ns_per_op")
            extra = (f" ({'n/a' if rate is None else f'{rate * 1000:.3g}'}; "
                     f"{'n/a' if ns is None else f'{ns:.1f}'})")
            if r.get(f"{b}_exercised") is False:
                cells.append("not exercised" + extra)
            else:
                cells.append(f"{fmt_ci(r, f'{b}_change_pct', '{:+.1f}')}%" + extra)
        lines.append(f"| {w} | {work:g} | {r['threads']}{over_note(r)} | "
                     f"{'n/a' if none is None else f'{none * 1000:.3g}'} | "
                     + " | ".join(cells) + " |")
        if w != "prodcons" and work == 0 and none is not None and r.get("exp_exercised"):
            best = max((b for b in F4_BACKOFFS if f"{b}_change_pct" in r),
                       key=lambda b: r[f"{b}_change_pct"], default=None)
            if best:
                why.append(f"{w}: retrying at once lost {none * 1000:.3g} races per 1,000 "
                           f"operations; {best} lost "
                           f"{(r.get(f'{best}_failed_per_item') or 0) * 1000:.3g} and spent "
                           + ("n/a" if r.get(f"{best}_backoff_ns_per_op") is None else
                              f"{r[f'{best}_backoff_ns_per_op']:.1f}")
                           + f" ns per operation backing off, for a change of "
                           f"{r[f'{best}_change_pct']:+.1f}%")
    if why:
        lines += ["", "Why, in this host's counters: a lost race costs both threads a "
                  "transfer of the contended line; a backoff that spins a little lets the "
                  "winner finish and the loser find the line settled, so that fewer races "
                  "are lost. " + "; ".join(why) + ". What holds at the study's 32 workers "
                  "on two nodes is not tested here (the claim F4.study-15-30pct)."]
    lines += spin_section(hostdir)
    return lines


def spin_section(hostdir):
    """The spin lengths of f4-spin: pause by pause_spin, exp by exp_cap, each
    against the none run of its own point and round."""
    rows = load(os.path.join(hostdir, "f4-spin.csv"))
    if not rows:
        return []
    pause_ns = None
    try:
        with open(os.path.join(hostdir, "probe", "probe.csv"), newline="",
                  encoding="utf-8") as f:
            for r in csv.DictReader(f):
                if r.get("kind") == "pause_ns" and r.get("value"):
                    pause_ns = float(r["value"])
    except (OSError, ValueError):
        pass
    lines = ["", "### How long a backoff spins (f4-spin)", "",
             "pairs, 2 threads, no local work; each backoff against the `none` run of the "
             "same point and round. "
             + (f"One PAUSE took {pause_ns:.1f} ns here (probe: `pause_ns`)." if pause_ns
                else "This host's probe predates the `pause_ns` row (the time of one PAUSE): "
                "spin lengths are in PAUSEs only."), "",
             "| backoff | spin (PAUSEs) | change against none | lost races / 1,000 ops | "
             "ns in backoff / op |", "|---|---|---|---|---|"]
    for b, col in (("pause", "pause_spin"), ("exp", "exp_cap")):
        spins = sorted({int(float(r[col])) for r in rows if r.get(col) and
                        r.get("backoff") == b})
        for sp in spins:
            brows = [r for r in rows if r.get("backoff") == b and int(float(r[col])) == sp]
            points_ = {r["point"] for r in brows}
            # the none runs of the same points' other settings
            other = "exp_cap" if col == "pause_spin" else "pause_spin"
            none_rows = [r for r in rows if r.get("backoff") == "none"
                         and int(float(r[col])) == sp
                         and {x[other] for x in brows} >= {r[other]}]
            d = {}
            put_ratio(d, "c", paired(brows, none_rows, fn=lambda x, y: x / y - 1), 100.0)
            rate = med_failed(brows)
            ns = med_per_op(brows, ("backoff_ns_race", "backoff_ns_gate"))
            lines.append(f"| {b} | {sp}{' (cap)' if b == 'exp' else ''} | "
                         f"{fmt_ci(d, 'c', '{:+.1f}')}% | "
                         f"{'n/a' if rate is None else f'{rate * 1000:.3g}'} | "
                         f"{'n/a' if ns is None else f'{ns:.1f}'} |")
            del points_
    return lines


def f4_workloads(hostdir):
    """[(workload, work)] that F4's results hold, prodcons first."""
    rows = load(os.path.join(hostdir, "f4-backoff.csv"))
    keys = sorted({(workload_of(r), work_of(r)) for r in rows},
                  key=lambda k: (manifest.workloads().index(k[0])
                                 if k[0] in manifest.workloads() else 9, k[1]))
    return keys


def med_failed(rows):
    """The median over rows of failed attempts per operation (failed_attempts / ops)."""
    vals = [v for v in (nrdata.failed_per_item(r) for r in rows) if v is not None]
    return statistics.median(vals) if vals else None


def f4_says(r, b):
    """What the README says of backoff b at F4's largest thread count: the paired
    change with its CI, or that the backoff did not run."""
    rate = r.get(f"{b}_failed_per_item")
    per_k = "n/a" if rate is None else f"{rate * 1000:.3g}"
    if r.get(f"{b}_exercised") is False:
        return (f"{b}: backoff not exercised on this host ({per_k} failed attempts per "
                "1,000 operations)")
    reg = f"; {regime_says(r, f'{b}_')}" if r.get(f"{b}_regime") else ""
    return (f"{b} {fmt_ci(r, f'{b}_change_pct', '{:+.1f}')}% ({per_k} failed attempts per "
            f"1,000 operations{reg})")


def ceiling_ratios(hostdir, name):
    """measured/ceiling per point for one experiment: the median over its reps
    of each run's ratio to its own ceiling (ceiling.group_ratio); measured and
    ceiling are the medians of the runs'."""
    from . import ceiling
    ppath = os.path.join(hostdir, "probe", "probe.csv")
    rows = load(os.path.join(hostdir, f"{name}.csv"))
    if not rows or not os.path.exists(ppath):
        return None
    probe = ceiling.load_probe(ppath)
    host = machine(hostdir)
    points = {}
    for r in rows:
        if ceiling.modelled(r):  # the model speaks of producers and consumers apart
            points.setdefault(r["point"], []).append(r)
    out = []
    for pid, rs in points.items():
        g = ceiling.group_ratio(probe, rs)  # each run against its own ceiling
        if g:
            out.append({"point": pid, "queue": rs[0]["queue"], "measured": g["measured"],
                        "ceiling": g["ceiling"], "ratio": g["ratio"], "threads": threads(rs[0]),
                        "batch": int(rs[0]["batch"]), "bursts": rs[0].get("bursts", "0"),
                        "bound": g["bound"],
                        "per_core": nrdata.one_per_core(rs, host["cores"],
                                                        host["threads_per_core"])})
    return out


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


def f5_realized(hostdir):
    """F5's realized batch per open-loop point: [{threads, batch, realized (median
    over the reps), ratio realized / configured}] sorted by threads and batch; None where
    no run records its transfers."""
    # the open-loop runs (the figure's realized-batch panel): a closed loop keeps
    # every batch full, so mixing its runs in would hide short transfers
    rows = [r for r in load(os.path.join(hostdir, "f5-ceiling.csv"))
            if load_of(r) or not regime.closed_loop(r)]
    points = {}
    for r in rows:
        points.setdefault((threads(r), int(float(r["batch"]))), []).append(realized_of(r))
    out = []
    for (t, b), vals in sorted(points.items()):
        vals = [v for v in vals if v is not None]
        if vals:
            m = statistics.median(vals)
            out.append({"threads": t, "batch": b, "realized": m, "ratio": m / b})
    return out or None


def f5_closed(hostdir):
    """F5's closed-loop points (load = closed: the capacity, where the model can
    bind): [{threads, batch, measured (Mitems/s, median), ceiling (Mitems/s),
    ratio, bound (the binding term)}] sorted by threads and batch; None where
    f5-ceiling.csv has no closed-loop rows or no probe."""
    from . import ceiling
    rows = [r for r in load(os.path.join(hostdir, "f5-ceiling.csv"))
            if not load_of(r) and regime.closed_loop(r)]
    ppath = os.path.join(hostdir, "probe", "probe.csv")
    if not rows or not os.path.exists(ppath):
        return None
    probe = ceiling.load_probe(ppath)
    points = {}
    for r in rows:
        points.setdefault((threads(r), int(float(r["batch"]))), []).append(r)
    out = []
    for (t, b), rs in sorted(points.items()):
        g = ceiling.group_ratio(probe, rs)  # each run against its own ceiling
        if g:
            out.append({"threads": t, "batch": b, "measured": g["measured"] / 1e6,
                        "ceiling": g["ceiling"] / 1e6, "ratio": g["ratio"], "bound": g["bound"],
                        "oversubscribed": any_oversubscribed(rs)})
    return out or None


#: every queue peers measures: numaring-bench's, less the null queue (the
#: harness's own ceiling) and its fault adapters
PEER_QUEUES = manifest.queues(fabricates=False)


def peers(hostdir, item="inline"):
    """numaring against its peers at the lowest thread count (1P1C), for one item
    mode (inline: the item is a value; message: a pointer whose line travels too)."""
    rows = [r for r in by_item(load(os.path.join(hostdir, "peers.csv")), item)
            if workload_of(r) == "prodcons"]  # pairs: peers_pairs()
    if not rows:
        return None
    m = min(threads(r) for r in rows)  # the 1P1C comparison
    rows = [r for r in rows if threads(r) == m]
    out = {"threads": m, "item": item, "sample": sample_of(rows),
           "oversubscribed": any_oversubscribed(rows), "stolen": stolen_runs(rows)}
    for bursts in ("0", "1"):
        rs = by(rows, bursts=bursts)
        # one regime per comparison: the group numaring and rte_ring (else
        # flat) ran in together most often
        peer = "rte" if by(rs, queue="rte") else "flat"
        reg = {}
        g = within_regime(reg, by(rs, queue="numaring"), by(rs, queue=peer))
        out.update({f"b{bursts}_{k}": v for k, v in reg.items()})
        out[f"b{bursts}_groups"] = {}
        for grp, grs in regime.split(rs).items():
            out[f"b{bursts}_groups"][regime.group_label(grp)] = peer_group(grs)
        rs = regime_rows(rs, g)
        qrows = {q: by(rs, queue=q) for q in PEER_QUEUES}
        qs = {q: med(qrows[q], "throughput_ops_per_s") for q in PEER_QUEUES}
        qs = {q: v for q, v in qs.items() if v}
        h = med(rs, "harness_ops_per_s")
        if h:
            out[f"b{bursts}_harness_mops"] = h / 1e6
        if "numaring" not in qs:
            continue
        # numaring's peers that are queues: the others, less those whose items
        # do not travel (faa)
        single_ring = {q: v for q, v in qs.items()
                       if q != "numaring" and manifest.queue(q)["moves_data"]}
        if single_ring:
            # the best peer by its median; the ratio against it paired per repetition
            best = max(single_ring, key=single_ring.get)
            out[f"b{bursts}_best_peer"] = best
            put_ratio(out, f"b{bursts}_over_best", paired(qrows["numaring"], qrows[best]))
        for q in ("rte", "flat"):
            if q in qs:
                put_ratio(out, f"b{bursts}_over_{q}", paired(qrows["numaring"], qrows[q]))
        out[f"b{bursts}_mops"] = {q: v / 1e6 for q, v in qs.items()}
    return out


def peer_group(rs):
    """Within one regime group's rows: each queue's median throughput
    (Mitems/s) and runs, and numaring's paired ratio against each other queue
    (stats.Interval, None where no repetition pairs up)."""
    ring = by(rs, queue="numaring")
    out = {}
    for q in PEER_QUEUES:
        qr = by(rs, queue=q)
        v = med(qr, "throughput_ops_per_s")
        if not v:
            continue
        out[q] = {"mops": v / 1e6, "runs": len(qr),
                  "ring_over": paired(ring, qr) if q != "numaring" and ring else None}
    return out


def peers_pairs(hostdir, item="inline"):
    """The peers under enqueue-dequeue pairs (every thread enqueues then
    dequeues, so same-role threads race): per thread count, each queue's median
    operations/s, lost races per 1,000 operations where the queue counts them,
    and numaring's paired ratio against each other queue. [] where peers.csv
    has no pairs rows."""
    rows = [r for r in by_item(load(os.path.join(hostdir, "peers.csv")), item)
            if workload_of(r) == "pairs" and str(r.get("bursts", "0")) == "0"]
    out = []
    for t in sorted({threads(r) for r in rows}):
        rs = [r for r in rows if threads(r) == t]
        d = {"threads": t, "oversubscribed": any_oversubscribed(rs), "queues": {},
             "stolen": stolen_runs(rs)}
        ring = by(rs, queue="numaring")
        for q in PEER_QUEUES:
            qr = by(rs, queue=q)
            v = med(qr, "throughput_ops_per_s")
            if not v:
                continue
            e = {"mops": v / 1e6, "lost": med_failed(qr)}
            if q != "numaring" and ring:
                put_ratio(e, "ring_over", paired(ring, qr))
            d["queues"][q] = e
        out.append(d)
    return out


def peers_pairs_section(hostdir):
    """The README's lines on the peers under pairs."""
    res = peers_pairs(hostdir)
    if not res:
        return []
    lines = ["", "## The peers under enqueue-dequeue pairs", "",
             "Every thread enqueues then dequeues (single operations, inline items), so "
             "threads of one role race on every queue: million operations/s (median), lost "
             "races per 1,000 operations where the queue counts them, and numaring's paired "
             "ratio against the queue.", "",
             "| threads | queue | Mops/s | lost races / 1,000 ops | numaring / queue |",
             "|---|---|---|---|---|"]
    for d in res:
        for q, e in d["queues"].items():
            lost = "—" if e["lost"] is None else f"{e['lost'] * 1000:.3g}"
            lines.append(f"| {d['threads']}{over_note(d)} | {q} | {e['mops']:.1f} | {lost} | "
                         + ("—" if q == "numaring" else fmt_ci(e, "ring_over")) + " |")
    return lines


def points(rows):
    """{(profile, point): rows} in the order the rows come."""
    out = {}
    for r in rows:
        out.setdefault((r.get("profile", ""), r["point"]), []).append(r)
    return out


def harness_bound(hostdir, share=HARNESS_BOUND):
    """Points whose median throughput is >= share x their median harness_ops_per_s.

    Returns (bound, measured): a list of dicts (experiment, point, queue, item,
    bursts, threads, measured, harness, ratio) and how many points of the host had
    the harness's ceiling measured.
    """
    bound, measured = [], 0
    for exp in EXPERIMENTS:
        for (_prof, pid), rs in points(load(os.path.join(hostdir, f"{exp}.csv"))).items():
            t = med(rs, "throughput_ops_per_s")
            h = med(rs, "harness_ops_per_s")
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
        rows = [r for r in load(os.path.join(hostdir, f"{exp}.csv"))
                if int(r["producers"]) == 1 and int(r["consumers"]) == 1]
        d = {}
        for item in manifest.items():
            for b in ("0", "1"):
                h = med(by(by_item(rows, item), bursts=b), "harness_ops_per_s")
                if h:
                    d[(item, b)] = h
        if d:
            out[exp] = d
    return out


def describe_host(hostdir):
    env = os.path.join(hostdir, "env", "show-topology.json")
    try:
        with open(env, encoding="utf-8") as f:
            t = json.load(f)
    except (OSError, ValueError):
        return None
    return t


def over_note(r):
    """' (oversubscribed)' where the rows behind a result shared CPUs; ' (N runs
    with steal)' where the hypervisor took more than a few percent of the
    CPUs' time from N of them (flagged alike: the machine, not the queue)."""
    note = " (**oversubscribed**: threads share CPUs)" if r.get("oversubscribed") else ""
    if r.get("stolen"):
        note += (f" (**{r['stolen']} run(s) with steal time above "
                 f"{STEAL_FLAG_PCT:g}%**: the hypervisor took the CPUs)")
    return note


#: the runner's flag for steal time (written as the tidy CSV's stolen)
STEAL_FLAG_PCT = hostenv.STEAL_FLAG_PCT


def stolen_runs(rows):
    """How many of rows the runner flagged for steal time (nrdata.stolen)."""
    return sum(1 for r in rows if nrdata.stolen(r))


#: what each experiment's drift reference is measured by: the value its ratios are of
DRIFT_METRIC = {"f3-gate": "p50_ns"}


def stated_effects(hostdir, exp):
    """[(what, effect)]: every paired ratio between configurations the README
    states for an experiment, as its distance from no effect (|ratio - 1|;
    F1's look-up / data movement is itself the excess). F4's changes count only
    where the backoff ran."""
    out = []
    if exp == "f1-lookup-cost":
        r = f1(hostdir) or {}
        if r.get("ratio") is not None:
            out.append(("look-up / data movement", abs(r["ratio"])))
        for m in F1_VS_NONE:
            if r.get(f"{m}_vs_none") is not None:
                out.append((f"{m} vs none", abs(r[f"{m}_vs_none"] - 1)))
    elif exp == "f2-node-cache":
        r = f2(hostdir) or {}
        for k, what in (("cached_over_libnuma", "cached / libnuma"),
                        ("rseq_over_libnuma", "rseq / libnuma")):
            if r.get(k) is not None:
                out.append((what, abs(r[k] - 1)))
    elif exp == "f3-gate":
        r = f3(hostdir) or {}
        for d in r.get("loads", []):
            at = f" (load {d['load']})" if d["load"] else ""
            for k, what in (("shared_over_perworker", "p50 shared / per-worker"),
                            ("p99_shared_over_perworker", "p99 shared / per-worker")):
                if d.get(k) is not None:
                    out.append((what + at, abs(d[k] - 1)))
    elif exp == "f4-backoff":
        keys = f4_workloads(hostdir)
        for wl, work in keys:
            r = f4(hostdir, wl, work) or {}
            at = "" if len(keys) == 1 else f" ({wl}{f', work {work:g} ns' if work else ''})"
            for b in F4_BACKOFFS:
                if r.get(f"{b}_change_pct") is not None and r.get(f"{b}_exercised") is not False:
                    out.append((f"{b} vs none{at}", abs(r[f"{b}_change_pct"]) / 100))
    elif exp == "f5-ceiling":
        try:
            cr = ceiling_ratios(hostdir, exp)
        except (ValueError, OSError):
            cr = None
        if cr:
            best = max(cr, key=lambda x: x["ratio"])
            if best["ratio"] < 1:
                out.append(("the closest point's margin below its ceiling",
                            1 - best["ratio"]))
    elif exp == "peers":
        for item in manifest.items():
            r = peers(hostdir, item) or {}
            for b, label in (("0", "single"), ("1", "bursts")):
                for q in ("best", "flat", "rte"):
                    k = f"b{b}_over_{q}"
                    if r.get(k) is not None:
                        peer = r.get(f"b{b}_best_peer") if q == "best" else q
                        out.append((f"numaring / {peer}, {item}, {label}", abs(r[k] - 1)))
    return out


#: Each experiment's effect in the study (design.md section 1), as |ratio - 1|
#: (F1: the look-up's excess over the data movement), for drift() where the
#: host states no ratio of its own: a drift above it could make or unmake the
#: finding. F5 states no ratio: a drift of a fifth moves a point that far
#: against its ceiling.
STUDY_EFFECT = {
    "f1-lookup-cost": ("the study's look-up 11x the data movement", 11.0),
    "f2-node-cache": ("the study's cached look-up 6x", 5.0),
    "f3-gate": ("the study's 200x latency cut", 199.0),
    "f4-backoff": ("the study's 15% backoff cost", 0.15),
    "f4-spin": ("the study's 15% backoff cost", 0.15),
    "f5-ceiling": ("a fifth of the ceiling", 0.2),
    "peers": ("a fifth of throughput", 0.2),
}


def reference_of(rows, refs):
    """The point whose configuration the reference's runs share, or None."""
    cols = [c for c in nrdata.CONFIG_COLUMNS if c != "profile"]
    want = {c: (refs[0].get(c) or "") for c in cols}
    for r in rows:
        if all((r.get(c) or "") == want[c] for c in cols):
            return r["point"]
    return None


def drift(hostdir, exp):
    """The drift of an experiment's reference configuration, or None where it
    has no reference runs: a dict with the reference's point, the metric, the
    values at start/middle/end (None where missing), drift = (max - min) /
    median over the runs present, the smallest stated effect (what, size) and
    flagged: True where the drift exceeds it (the sweep moved more than the
    effect it reports; None where no effect is stated or fewer than two
    reference runs exist)."""
    path = os.path.join(hostdir, f"{exp}.csv")
    refs = load_refs(path)
    if not refs:
        return None
    metric = DRIFT_METRIC.get(exp, "throughput_ops_per_s")
    if not all((r.get(metric) or "").strip() for r in refs):
        metric = "throughput_ops_per_s"
    vals = {r["point"]: float(r[metric]) for r in refs if (r.get(metric) or "").strip()}
    seq = [vals.get(n) for n in nrdata.REFERENCE_POINTS]
    present = [v for v in seq if v is not None]
    out = {"experiment": exp, "metric": metric, "values": seq, "n": len(present),
           "point": reference_of(load(path), refs), "drift": None, "smallest": None,
           "flagged": None, "oversubscribed": any_oversubscribed(refs)}
    if len(present) >= 2 and statistics.median(present) > 0:
        out["drift"] = (max(present) - min(present)) / statistics.median(present)
    effects = stated_effects(hostdir, exp)
    if effects:
        out["smallest"] = min(effects, key=lambda e: e[1])
    elif exp in STUDY_EFFECT:   # nothing stated here: the study's effect
        out["smallest"] = STUDY_EFFECT[exp]
    if out["drift"] is not None and out["smallest"] is not None:
        out["flagged"] = out["drift"] > out["smallest"][1]
    return out


def drift_section(hostdir):
    """The README's lines on each experiment's drift reference."""
    lines = ["", "## Drift", "",
             "Each experiment runs its reference configuration (its first point, or the one "
             "its `.exp` file names) at the start, after half the runs and at the end "
             "(points `reference-start`, `-middle`, `-end`; kept out of every other number). "
             "Drift = (max - min) / median of those runs, of the value the experiment's "
             "ratios are taken of; it is flagged where it exceeds the smallest effect the "
             "experiment states (|ratio - 1| of a paired ratio above): that effect is within "
             "the machine's drift over the sweep. The order of the runs (rounds of "
             "repetitions, the points of a round shuffled with a recorded seed) is in "
             "`<experiment>/<profile>/order.txt` where the runner wrote one.", ""]
    rows = []
    for exp in EXPERIMENTS:
        if not os.path.exists(os.path.join(hostdir, f"{exp}.csv")):
            continue
        d = drift(hostdir, exp)
        if d is None:
            rows.append(f"| {exp} | not measured (no reference runs in these results) "
                        "| | | | | | | |")
            continue
        unit = 1e6 if d["metric"] == "throughput_ops_per_s" else 1.0

        def v(x):
            return "—" if x is None else (f"{x / unit:.2f}" if unit != 1.0 else f"{x:.0f}")
        metric = "Mops/s" if unit != 1.0 else d["metric"].replace("_ns", " (ns)")
        small = (f"{d['smallest'][1] * 100:.1f}% ({d['smallest'][0]})" if d["smallest"]
                 else "no ratio stated")
        if d["flagged"]:
            verdict = "**FLAGGED: drift exceeds the smallest effect stated**"
        elif d["flagged"] is False:
            verdict = "ok"
        else:
            verdict = "—"
        dr = "—" if d["drift"] is None else f"{d['drift'] * 100:.1f}%"
        over = " (oversubscribed)" if d["oversubscribed"] else ""
        rows.append(f"| {exp} | {d['point'] or '?'}{over} | {metric} | {v(d['values'][0])} | "
                    f"{v(d['values'][1])} | {v(d['values'][2])} | {dr} | {small} | {verdict} |")
    if rows:
        lines += ["| experiment | reference | metric | start | middle | end | drift "
                  "| smallest effect stated | |", "|---|---|---|---|---|---|---|---|---|"]
        lines += rows
    else:
        lines.append("No experiment in these results.")
    return lines


def harness_section(hostdir):
    """The README's lines on the harness's own ceiling and the harness-bound points."""
    def mops(v):
        return f"{v / 1e6:.1f}" if v else "—"

    lines = ["", "## The harness's own ceiling", "",
             "`harness_ops_per_s`: the `null` queue (operations that share nothing) run "
             "through the same harness code for 0.1 s before each measured run, with the same "
             "threads, placement and items. Median over the 1P1C runs of each experiment, in "
             "million items/s:", ""]
    hc = harness_ceiling(hostdir)
    if hc:
        lines += ["| experiment | items | single operations | bursts |", "|---|---|---|---|"]
        for exp in EXPERIMENTS:
            for item in manifest.items():
                d = hc.get(exp, {})
                if (item, "0") in d or (item, "1") in d:
                    lines.append(f"| {exp} | {item} | {mops(d.get((item, '0')))} | "
                                 f"{mops(d.get((item, '1')))} |")
    else:
        lines.append("Not measured in these results.")
    bound, measured = harness_bound(hostdir)
    lines += ["", "## Harness-bound points", "",
              f"Points whose median throughput is at least {HARNESS_BOUND:g}x their median "
              "`harness_ops_per_s` (within 20% of the harness's own ceiling: the figure "
              "measures the harness as much as the queue):", ""]
    if not measured:
        lines.append("None can be named: the harness's ceiling was not measured.")
    elif not bound:
        lines.append(f"None (of {measured} points with the harness's ceiling measured).")
    else:
        lines += ["| experiment | point | queue | items | threads | measured | harness alone "
                  "| measured / harness |", "|---|---|---|---|---|---|---|---|"]
        for b in bound:
            lines.append(f"| {b['experiment']} | {b['point']} | {b['queue']} | {b['item']}"
                         f"{', bursts' if str(b['bursts']) == '1' else ''} | {b['threads']} | "
                         f"{mops(b['measured'])} | {mops(b['harness'])} | {b['ratio']:.2f} |")
        lines.append("")
        lines.append(f"{len(bound)} of {measured} points with the harness's ceiling measured.")
    return lines


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
    rows = [r for r in load(os.path.join(hostdir, "peers.csv"))
            if str(r.get("bursts", "0")) == "1" and int(r["producers"]) == 1
            and int(r["consumers"]) == 1 and workload_of(r) == "prodcons"]
    out = []
    for item in manifest.items():
        for q in ("numaring", "flat", "rte"):
            rs = by(by_item(rows, item), queue=q)
            per = []
            for r in rs:
                try:
                    bursts = float(r["enqueued"]) / max(1.0, float(r["batch"]))
                    per.append((float(r["full_retries"]) / bursts if bursts > 0 else 0.0,
                                float(r["throughput_ops_per_s"])))
                except (KeyError, ValueError):
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


def pace_section(hostdir):
    """The README's lines on which side set the pace of the peers' burst runs."""
    rows = pace(hostdir)
    if not rows:
        return []

    def mops(v):
        return f"{v:.1f}" if v is not None else "—"

    lines = ["", "## Which side set the pace (peers, 1P1C bursts)", "",
             "A producer that finds the queue full retries (`full_retries`). Runs with more "
             f"than {FULL_RETRIES_PACE:g} retries per burst ran full: the consumer set the "
             "pace. With inline items the development machine's Vyukov rings (numaring, flat) "
             "were slower in such runs (the producer refills each cell right behind the "
             "consumer; rte_ring's consumer writes no slot: the repository's README), so a "
             "wide spread of a burst ratio above can be the two kinds of run mixed; the "
             "columns below say whether it is here. With message items the consumer's own "
             "work per item makes most runs consumer-paced.", "",
             "| items | queue | runs | median retries per burst | runs that ran full | "
             "Mitems/s of those | Mitems/s of the others |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['item']} | {r['queue']} | {r['runs']} | {r['retries']:.3f} | "
                     f"{r['full_runs']} | {mops(r['full_mops'])} | {mops(r['kept_mops'])} |")
    return lines


def host_readme(hostdir):
    host = os.path.basename(os.path.normpath(hostdir))
    t = describe_host(hostdir) or {}
    machine_nodes = 1
    try:
        with open(os.path.join(hostdir, "env", "lscpu.txt"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("NUMA node(s):"):
                    machine_nodes = int(line.split(":")[1])
    except (OSError, ValueError):
        pass
    nodes = t.get("nodes", [])
    cpus = sum(n.get("ncpus", 0) for n in nodes)
    emulated = t.get("topology") == "emulated"
    m = machine(hostdir)
    smt = smt_note(hostdir)
    # the machine's cores and sockets where they add to "N CPUs, M nodes": SMT
    # (CPUs are not cores) and several sockets
    cores = (f" ({m['cores']} cores x {m['threads_per_core']} hardware threads)"
             if has_smt(m) and m["cores"] else "")
    sockets = f" on {m['sockets']} sockets" if (m["sockets"] or 1) > 1 else ""
    lines = [f"# Results of `{host}`", ""]
    guest = nrdata.guest_note(t.get("virtualization"))
    if guest:  # make vm-experiments: the numbers prove the steps ran, nothing else
        lines += [f"**{guest}.** Nothing below is a measurement of any machine, and "
                  "nothing here is a two-socket result.", ""]
    kind = (f"**EMULATED** nodes: {len(nodes)} nodes mapped onto CPUs "
            f"({'; '.join(str(n.get('cpus', '?')) for n in nodes)}) of a machine that has "
            f"{machine_nodes} real node(s) — memory placement is not real "
            "and nothing here is a two-socket result" if emulated else
            f"{len(nodes)} real NUMA node(s){sockets}")
    lines.append(f"Machine: {t.get('cpu_model', 'unknown CPU')}, {cpus} CPUs usable{cores}, kernel "
                 f"{t.get('kernel', '?')}; {kind}. rseq node_id: "
                 f"{'yes' if t.get('rseq_node_id') else 'no'}, rdpid: "
                 f"{'yes' if t.get('rdpid') else 'no'}. Environment in `env/`, host probe in "
                 "`probe/probe.csv`, one tidy CSV per experiment, every run's files under "
                 "`<experiment>/<profile>/<point>/rep-<k>/`. Generated by "
                 "`scripts/summarize.py` from those CSVs. A ratio between two configurations "
                 "is paired: the ratio of the two runs of each repetition k (rep k of every "
                 "point ran in the same round of the sweep, close in time), its median, and the "
                 "distribution-free order-statistic interval of that median with its exact "
                 "coverage at the n used, written X.XX [lo..hi, coverage] ("
                 + stats.method_sentence(5) + " The word 95% is used only where an "
                 "interval covers that much.) Absolute values are medians over repetitions.")
    lines += ["", "| finding | measured here | study |", "|---|---|---|"]
    r = f1(hostdir)
    if r:
        modes = ", ".join(f"{m} {fmt_ci(r, f'{m}_vs_none')}x" for m in ("cached", "rseq")
                          if r.get(f"{m}_vs_none") is not None)
        lines.append(f"| F1 (1P1C harness) | libnuma look-up {r['lookup_ns']:.1f} ns per operation = "
                     f"{fmt_ci(r, 'ratio', '{:.1f}')}x the data movement ({r['move_ns']:.1f} ns, "
                     f"lookup none; {regime_says(r)})"
                     + (f"; time per item against no look-up: {modes}" if modes else "")
                     + (f"; the harness alone: {r['harness_ns']:.1f} ns per item"
                        if "harness_ns" in r else "") + f" | {STUDY['F1']} |")
    r = bench_ring(hostdir)
    if r:
        lines.append(f"| F1 (one thread, bench-ring) | libnuma look-up {r['lookup_ns']:.1f} ns = "
                     f"{r['ratio']:.1f}x an uncontended operation ({r['move_ns']:.2f} ns); "
                     f"cached and rseq pairs {r.get('cached_pair_over_none', 0):.2f}x and "
                     f"{r.get('rseq_pair_over_none', 0):.2f}x of no look-up (medians of one "
                     f"run, no repetitions) | {STUDY['F1']} |")
    r = f2(hostdir)
    if r:
        lines.append(f"| F2 | cached / libnuma throughput at {r['threads']} threads"
                     f"{smt}{over_note(r)}: {fmt_ci(r, 'cached_over_libnuma')}x "
                     f"({regime_says(r)}; {r['cached_mops']:.1f} vs {r['libnuma_mops']:.1f} Mops/s"
                     + (f"; rseq / libnuma {fmt_ci(r, 'rseq_over_libnuma')}x"
                        if r.get("rseq_over_libnuma") is not None else "")
                     + (f"; the harness alone: {r['harness_mops']:.1f}"
                        if r.get("harness_mops") else "") + f") | {STUDY['F2']} |")
    r = f3(hostdir)
    if r:
        for d in r["loads"]:
            how = (f"open loop at {float(d['load']) * 100:.0f}% of capacity" if d["load"]
                   else "closed loop")
            inflight = ""
            if d.get("inflight_shared") is not None and d.get("inflight_perworker") is not None:
                inflight = (f"; items in flight {d['inflight_shared']:.1f} vs "
                            f"{d['inflight_perworker']:.1f}")
            lines.append(f"| F3 | p50 latency shared / per-worker gate at {r['threads']} threads"
                         f"{smt}{over_note(r)}, {how}: {fmt_ci(d, 'shared_over_perworker')}x "
                         f"({d['p50_shared_ns']:.0f} vs {d['p50_perworker_ns']:.0f} ns; p99 "
                         f"{fmt_ci(d, 'p99_shared_over_perworker')}x; {d['mops_shared']:.2f} vs "
                         f"{d['mops_perworker']:.2f} Mops/s{inflight}) | {STUDY['F3']} |")
    r = f4(hostdir)
    if r:
        parts = "; ".join(f4_says(r, b) for b in F4_BACKOFFS
                          if f"{b}_failed_per_item" in r or f"{b}_change_pct" in r)
        if parts:
            lines.append(f"| F4 | throughput against no backoff at {r['threads']} threads"
                         f"{smt}{over_note(r)}: {parts} | {STUDY['F4']} |")
    for name in ("f5-ceiling", "peers", "f2-node-cache"):
        try:
            cr = ceiling_ratios(hostdir, name)
        except (ValueError, OSError) as e:
            cr = None
            lines.append(f"| F5 | ceiling not computed: {e} | |")
        if cr:
            best = quoted_best(cr)
            lines.append(f"| F5 ({name}) | best measured/ceiling {best['ratio']:.2f} "
                         f"({best['queue']}, {best['threads']} threads, batch {best['batch']}, "
                         f"bound: {best['bound']}); no point above the ceiling: "
                         f"{'yes' if all(x['ratio'] <= 1 for x in cr) else 'NO'} | "
                         f"{STUDY['F5']} |")
            break
    rz = f5_realized(hostdir) if os.path.exists(os.path.join(hostdir, "f5-ceiling.csv")) else None
    if rz:
        worst = min(rz, key=lambda x: x["ratio"])
        below = [x for x in rz if x["ratio"] < REALIZED_TARGET]
        lines.append(f"| F5 (realized batch) | items moved per cross-node transfer / configured "
                     f"batch: min {worst['ratio']:.2f} (batch {worst['batch']} at "
                     f"{worst['threads']} threads: {worst['realized']:.1f} items); "
                     f">= {REALIZED_TARGET} at every point: "
                     + ("yes" if not below else f"NO ({len(below)} of {len(rz)} points below)")
                     + " | — |")
    fc = f5_closed(hostdir) if os.path.exists(os.path.join(hostdir, "f5-ceiling.csv")) else None
    if fc:
        quoted = [x for x in fc if not x["oversubscribed"]] or fc
        cells = "; ".join(f"batch {x['batch']}: {x['ratio']:.2f} ({x['measured']:.1f} of "
                          f"{x['ceiling']:.1f} M items/s, bound: {x['bound']})"
                          for x in quoted if x["threads"] == max(y["threads"] for y in quoted))
        lines.append(f"| F5 (closed loop, capacity) | measured / ceiling at "
                     f"{max(x['threads'] for x in quoted)} threads: {cells} | "
                     f"{STUDY['F5']} |")
    for item, what in (("inline", "inline items"),
                       ("message", "message items, the payload's line travels too")):
        r = peers(hostdir, item)
        if not r:
            continue
        timed = f", 1 in {r['sample']} timed" if r.get("sample") else ""
        for b, label in (("0", "single operations"), ("1", "bursts")):
            if f"b{b}_over_best" in r:
                extra = "".join(f", {fmt_ci(r, f'b{b}_over_{q}')}x {name}"
                                for q, name in (("flat", "flat"), ("rte", "rte_ring"))
                                if f"b{b}_over_{q}" in r)
                lines.append(f"| peers ({what}{timed}) | numaring at {r['threads']} threads"
                             f"{over_note(r)}, {label}: {fmt_ci(r, f'b{b}_over_best')}x the best "
                             f"single-ring peer ({r[f'b{b}_best_peer']}){extra} "
                             f"({regime_says(r, f'b{b}_')}) | — |")
    lines.append("")
    lines.append(kind_paragraph(hostdir, t, m))
    if not emulated and not guest:
        # the reproduction report: every claim checked here (scripts/claims.py)
        from . import claims
        lines += claims.md_section(claims.report(hostdir))
    elif emulated:
        lines += ["", "The reproduction report of these runs is the real host folder's "
                  "(`claims.csv` and README there)."]
    lines += f4_section(hostdir)
    lines += peers_pairs_section(hostdir)
    from . import regime_report
    lines += regime_report.lines(hostdir)
    from . import ceiling_report
    lines += ceiling_report.lines(hostdir)
    lines += drift_section(hostdir)
    lines += harness_section(hostdir)
    lines += pace_section(hostdir)
    return "\n".join(lines) + "\n"


def real_nodes(t):
    """The real NUMA nodes with CPUs of a host (describe_host), 0 for emulated."""
    if t.get("topology") != "real":
        return 0
    return len([n for n in t.get("nodes", []) if n.get("ncpus", 0) > 0])


def emulated_siblings(hostdir):
    """The folders next to a host's that hold its emulated-node runs
    (<host>-emulated-..., where the runner puts F3 and F5 on a one-node machine)."""
    hostdir = os.path.normpath(hostdir)
    parent, host = os.path.dirname(hostdir), os.path.basename(hostdir)
    try:
        names = sorted(os.listdir(parent or "."))
    except OSError:
        return []
    return [os.path.join(parent, d) for d in names
            if d.startswith(host + "-emulated-") and os.path.isdir(os.path.join(parent, d))]


#: the experiments that place producers and consumers on different nodes:
#: those whose sweep pins split alone (experiments/*.exp), in EXPERIMENTS' order
CROSS_NODE = tuple(e.name for e in expfile.experiments() if e.sweep.get("pin") == ["split"])


def cross_node_dir(hostdir):
    """Where a host's cross-node experiments (F3, F5) are: the host itself
    where it has two real nodes with CPUs and ran them, else its first
    emulated sibling, else the host itself where it has two real nodes (they
    are then simply missing), else None."""
    multi = real_nodes(describe_host(hostdir) or {}) >= 2
    ran = any(os.path.exists(os.path.join(hostdir, f"{e}.csv")) for e in CROSS_NODE)
    if multi and ran:
        return hostdir
    sib = emulated_siblings(hostdir)
    if sib:
        return sib[0]
    return hostdir if multi else None


def sockets_crossed(m, nodes):
    """How a cross-node transfer between a host's real nodes travels, in words."""
    s = m.get("sockets")
    if not s:
        return "moves between real nodes (the number of sockets is not recorded)"
    if s == 1:
        return "moves between nodes of one socket, not across an interconnect between sockets"
    if nodes > s:
        return (f"moves between real nodes, across the interconnect between the {s} sockets "
                f"where the two nodes are on different sockets ({nodes} nodes on {s} sockets)")
    return f"crosses the interconnect between the {s} sockets"


def kind_paragraph(hostdir, t, m):
    """The README's paragraph on what kind of host this is and where F3 and F5
    come from: emulated nodes, one real node (with or without an emulated
    sibling), or several real nodes; and, on SMT, the thread counts quoted."""
    nodes = real_nodes(t)
    if t.get("topology") == "emulated":
        text = ("These runs place threads on emulated nodes: cross-node transfers here "
                "move between CPUs of one socket. They exercise the logic of F3 and F5, "
                "not the interconnect.")
    elif nodes >= 2:
        text = (f"With {nodes} real NUMA nodes, every experiment here ran on the host's own "
                "topology, none on emulated nodes: F3 and F5 place producers and consumers "
                f"on different real nodes, so each cross-node transfer "
                f"{sockets_crossed(m, nodes)}.")
        if not any(os.path.exists(os.path.join(hostdir, f"{e}.csv")) for e in CROSS_NODE):
            text += " F3 and F5 are not in these results" + (
                "; they come from the emulated-node runs in the sibling `-emulated-` folder."
                if emulated_siblings(hostdir) else ".")
    elif emulated_siblings(hostdir):
        text = ("With one real node, items never cross an interconnect here: F2 and F4 "
                "measure the look-up and backoff costs on one socket; F3 and F5 come from "
                "the emulated-node runs in the sibling `-emulated-` folder.")
    else:
        text = ("With one real node, items never cross an interconnect here: F2 and F4 "
                "measure the look-up and backoff costs on one socket; F3 and F5 need two "
                "nodes and are not in these results (no emulated-node runs beside them).")
    if has_smt(m) and m["cores"]:
        text += (f" The host has {m['cores']} cores with {m['threads_per_core']} hardware "
                 "threads each: F2, F3, F4 and the best measured/ceiling are quoted at the "
                 "largest thread count with one thread per core; runs whose threads shared "
                 "a core's SMT siblings are drawn in the figures but quoted nowhere.")
    return text


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m scripts.summarize",
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 description=__doc__.strip())
    ap.add_argument("--results", metavar="DIR", default="results",
                    help="the results folder, one folder per host (default results)")
    ap.add_argument("--readme", action="store_true",
                    help="rewrite each HOST's README.md instead of printing (needs a HOST)")
    ap.add_argument("hosts", nargs="*", metavar="HOST",
                    help="a folder of the results (default: every one, without --readme)")
    a = ap.parse_args(argv)
    results, readme, args = a.results, a.readme, a.hosts
    if readme and not args:
        ap.error("--readme needs a HOST (a folder of the results)")
    if not os.path.isdir(results):
        ap.error(f"{results!r} is not a folder of results")
    for host in args:
        if not os.path.isdir(os.path.join(results, host)):
            ap.error(f"no results for host {host!r}: {os.path.join(results, host)} "
                     "is not a folder")
    if readme:
        for host in args:
            hostdir = os.path.join(results, host)
            path = os.path.join(hostdir, "README.md")
            text = host_readme(hostdir)
            with open(path + ".tmp", "w", encoding="utf-8") as f:  # whole or not at all
                f.write(text)
            os.replace(path + ".tmp", path)
        return
    hosts = args or sorted(d for d in os.listdir(results)
                           if os.path.isdir(os.path.join(results, d)))
    for host in hosts:
        print(host_readme(os.path.join(results, host)))


if __name__ == "__main__":
    main()
