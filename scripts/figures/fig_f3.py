# SPDX-License-Identifier: BSD-2-Clause
"""fig_f3.py - F3's first figure (f3-gate-percentiles), its supplement
(f3-gate-load-diagnostics) and what F3's figures share.

Why this file is long: the main figure, its supplement and the older
closed-loop percentile layout share F3's thread count, claim and caption lines
(f3_at, open_claim, by_loop); the supplement's drawing and data file could
move to a module of their own.

The main figure answers one question: does the per-worker gate cut p50
latency, as the study says (by more than 200x)? Open loop: one panel, p50
against the offered load for the two gates the claim compares (shared,
per-worker), each load's median over the reps with the interval of that
median as a bar, no line joining the loads (a load with one run: a hollow
mark, a run and not a median); a saturated run (its backlog grew through its
window: queueing, not the gate) is a hollow diamond, left out of the medians;
above each load the paired median ratio shared / per-worker (summarize.f3's,
per load, recorded as the claim f3.load<L>.p50_shared_over_perworker; the
highest load's is the headline, f3.p50_shared_over_perworker, with its
interval in the panel's title); the study's value as a dotted line at 200x
the per-worker gate's p50, where the shared gate would have to be
(prep_f3_main, draw_f3_main, dat_f3main). Closed loop (older results): the
percentile distribution by gate, one panel (prep_f3_dist, draw_f3a, dat_f3a).

The supplement (prep_f3_diag) keeps the rest of the open-loop picture: a
latency panel per gate (every gate), p50 and p99 on one shared log axis
with their min..max bands (p90, p99.9 in the data file); items in flight
(Little; log where they span decades); achieved throughput against the
offered rate; the oversubscribed thread counts in their own tinted panel
(prep_f3_load, draw_f3_load, dat_f3load). Closed-loop results have no
offered load to diagnose: there the supplement is the percentile
distribution, as the main figure.
"""

import collections
import math
import os
import statistics

from ..analysis import nrdata
from ..common import regime, runfiles
from . import fig_draw
from .fig_common import block, condensed, intervals, spread
from .fig_draw import annotate_title, fmt_ns, no_data, value_axis
from .fig_gnuplot import dat_header, g, g3, ov_col
from .fig_host import (
    add_paired_words, caption_lines, color_of, compared, load_label, load_of, load_pct,
    marker_of, order_of, oversub_of, oversub_status, pct_label, pooled_note, quoted_threads,
    rgb_int, Said, STUDY, summary_of, summary_status)


# --------------------------------------------------------------------------
# Preparing the data (everything that can fail on input happens here)

SUMMARY_PCT = (("p50_ns", 0.5), ("p90_ns", 0.9), ("p99_ns", 0.99), ("p999_ns", 0.999))
#: F3's percentiles against the offered load: column, name
F3_PCT = (("p50_ns", "p50"), ("p90_ns", "p90"), ("p99_ns", "p99"), ("p999_ns", "p99.9"))
#: the title of F3's separate panel for oversubscribed thread counts
F3_OVER_TITLE = "oversubscribed: threads share CPUs; scheduler, not queue"
#: an open-loop point kept up with its offered rate where it delivered at least this share
KEPT_UP = 0.95
#: the study's F3 value: the shared gate's p50 more than this many times the
#: per-worker gate's (STUDY["f3"]); the main figure draws where that would be
STUDY_RATIO = 200.0
#: the main figure's claim per offered load: summarize.f3's ratio at that load
LOAD_CLAIM = "f3.load%s.p50_shared_over_perworker"


def f3_at(host, rows):
    """(F3's thread count, whether oversubscribed (1/0/None), its rows, their
    gates). The thread count, of the rows that record latency (else of all):
    the largest whose runs are not oversubscribed (every thread has a CPU)
    and, with SMT, had a core per thread (quoted_threads), else the largest."""
    lat = [r for r in rows if r.get("p50_ns", "").strip()] or rows
    ov = oversub_of(lat, nrdata.threads)
    t = quoted_threads(host, lat, lambda rs: ov.get(nrdata.threads(rs[0])) == 0)
    over = ov.get(t)
    at = [r for r in rows if nrdata.threads(r) == t]
    return t, over, at, order_of("gate", {r.get("gate", "") for r in at})


def inflight_of(row):
    """Items in flight of a row: its inflight column (Little: throughput x mean
    latency), else the same computed from throughput_ops_per_s and mean_ns; None
    where neither is there."""
    v = nrdata.num(row, "inflight")
    if v is not None:
        return v
    t, m = nrdata.num(row, "throughput_ops_per_s"), nrdata.num(row, "mean_ns")
    if t and m:
        return t * m * 1e-9
    return None


def inflight_words(rows):
    """How the caption says items in flight were obtained for rows."""
    have = sum(1 for r in rows if nrdata.num(r, "inflight") is not None)
    if have == len(rows):
        return "items in flight: summary.csv's inflight (Little: throughput \u00d7 mean latency)"
    if have:
        return ("items in flight: Little's throughput \u00d7 mean latency (summary.csv's "
                "inflight where recorded, %d of %d runs; computed from throughput_ops_per_s "
                "and mean_ns elsewhere)" % (have, len(rows)))
    return ("items in flight: Little's throughput \u00d7 mean latency, computed from "
            "throughput_ops_per_s and mean_ns (these results have no inflight column)")


def f3_claim(host, said):
    """F3's headline as the figures print it: 'p50 shared / perworker = N\u00d7
    [lo\u2013hi] at T threads' from summarize.f3 (paired per rep: shared_k /
    perworker_k of p50, at its thread count and highest offered load), and that
    load ('' closed loop); None where summarize has no such ratio."""
    r = summary_of(host, "f3")
    text = said.text("f3.p50_shared_over_perworker", r)
    if text is None:
        return None
    return ("p50 shared / perworker = %s%s at %d threads" % (
        text, said.interval("f3.p50_shared_over_perworker", r), r["threads"]),
        (r.get("load") or "").strip())


def open_claim(host, said, more=""):
    """The open-loop figures' annotation: f3_claim's headline, its load, ``more``
    and the study's value; None where summarize has no such ratio."""
    r50 = f3_claim(host, said)
    if not r50:
        return None
    return "%s%s%s (%s)" % (r50[0], ", %s load" % pct_label(100 * float(r50[1]))
                            if r50[1] else "", more, STUDY["f3"])


def by_gate_load(rows, value):
    """{gate: [(load %, median, min, max, n)]} of value over rows, each gate's
    loads ascending (aggregate's keys come sorted)."""
    out = {}
    for (g, x), v in nrdata.aggregate(rows, ("gate", load_pct), value).items():
        out.setdefault(g, []).append((x,) + v)
    return out


def overall(rows, value):
    """(median, min, max, n) of value over all rows; None where none has one."""
    return nrdata.aggregate(rows, (lambda r: 0,), value).get((0,))


def saturated_p50(rows):
    """{gate: [(load %, p50)]} of the saturated runs among rows, in their order:
    a run whose backlog grew through its window (regime.saturated) measured
    queueing, not the gate, so it is left out of the lines and drawn apart."""
    sat = {}
    for r in rows:
        if regime.saturated(r) == 1 and nrdata.num(r, "p50_ns"):
            sat.setdefault(r.get("gate"), []).append((load_pct(r), nrdata.num(r, "p50_ns")))
    return sat


def latency_curve(host, row):
    """[(x = 1/(1-p), value_ns)] of a run's latency.csv; None if it has none."""
    path = nrdata.latency_path(host.results, host.name, row)
    if not runfiles.exists(path):
        return None
    pts = nrdata.load_latency(path)
    out = [(1.0 / (1.0 - p), v) for v, p, _c in pts if p < 1.0 and v > 0]
    return out or None


def envelope(curves, npts=160):
    """(xs, median, lo, hi): the median, min and max over curves at each x of a
    log grid (each curve interpolated in log-log), up to the smallest last x."""
    import numpy as np
    xmax = min(c[-1][0] for c in curves)
    if xmax <= 1.0:
        return None
    xs = np.logspace(0, math.log10(xmax), npts)
    ys = np.array([np.interp(np.log10(xs), np.log10([p[0] for p in c]),
                             np.log10([p[1] for p in c])) for c in curves])
    return (list(xs), list(10 ** np.median(ys, axis=0)), list(10 ** ys.min(axis=0)),
            list(10 ** ys.max(axis=0)))


def by_loop(host, open_loop):
    """open_loop(host, rows) where F3's rows have an offered load; else (older,
    closed-loop results: no load to draw against) the percentile distribution."""
    rows = host.data["f3-gate"]
    return (open_loop if any(load_of(r) for r in rows) else prep_f3_dist)(host, rows)


@condensed
def prep_f3a(host):
    """F3's main figure. Open loop: p50 against the offered load, shared against
    per-worker gate (prep_f3_main). Closed loop: the percentile distribution."""
    return by_loop(host, prep_f3_main)


@condensed
def prep_f3_diag(host):
    """F3's supplement (f3-gate-load-diagnostics). Open loop: prep_f3_load.
    Closed loop: the percentile distribution, as the main figure."""
    return by_loop(host, prep_f3_load)


def open_words(loads, cap, where=""):
    """The caption's first line of an open-loop figure: the loads offered
    (``where``: what else the x axis note says) and the capacity measured."""
    return ("open loop: each run first measures the capacity (closed loop, per-worker gate), "
            "then offers %s of it (x axis%s)%s" % (
                ", ".join(pct_label(x) for x in loads), where,
                "; capacity median %.3g M items/s (%.3g\u2013%.3g)" % (
                    cap[0] / 1e6, cap[1] / 1e6, cap[2] / 1e6) if cap else ""))


def saturated_words(sat, left_out):
    """The caption's line on the saturated runs (saturated_p50): what they are
    left out of (``left_out``, with anything after 'hollow diamonds')."""
    return ("%d saturated run(s) (delivered < %d%% of their offered rate: a backlog that "
            "grew through the window, latency that is queueing) left out of the %s" % (
                sum(len(v) for v in sat.values()), 100 * regime.SATURATED_SHARE, left_out))


def threads_words(t, over, rows):
    """The caption's line on the thread count drawn, t of rows' ([] or one line):
    every count oversubscribed (``over``: f3_at's), or t below the largest."""
    ts = sorted({nrdata.threads(r) for r in rows})
    if over == 1:
        return ["every thread count is oversubscribed: %d threads drawn, the largest" % t]
    return ["%d threads: the largest count whose threads each have a CPU (of %s)"
            % (t, ", ".join(map(str, ts)))] if t != ts[-1] else []


def closed_left_out(allrows, opened):
    """The caption's line on the closed-loop runs (no load) an open-loop figure
    leaves out of ``allrows`` (``opened``: those it keeps); [] where none."""
    n = len(allrows) - len(opened)
    return ["%d closed-loop runs (no load) left out" % n] if n else []


def prep_f3_main(host, allrows):
    """The open-loop main figure: per gate the claim compares (shared,
    per-worker), p50 against the offered load (median over the unsaturated
    reps, min..max), the saturated runs' p50 apart, the paired ratio at each
    load and the study's 200x of the per-worker gate's p50."""
    rows = [r for r in allrows if load_of(r)]
    t, over, at, gates = f3_at(host, rows)
    pair = [g for g in compared("f3.p50_shared_over_perworker") if g in gates]
    drawn_rows = [r for r in at if r.get("gate") in pair]
    loads = sorted({load_pct(r) for r in drawn_rows})
    kept = [r for r in drawn_rows if regime.saturated(r) != 1]
    p50 = by_gate_load(kept, "p50_ns")
    # each load's median with the order-statistic interval of that median
    # (stats.interval: min..max up to 5 reps), drawn as a bar, never a line
    p50_iv = intervals(kept, ("gate", load_pct), lambda r: nrdata.num(r, "p50_ns") or None)
    sat = {gte: sorted(v) for gte, v in saturated_p50(drawn_rows).items()}
    # where the study puts the shared gate: 200x the per-worker gate's p50
    study = [(q[0], STUDY_RATIO * q[1]) for q in p50.get(pair[-1], [])
             if q[1] and q[1] > 0] if len(pair) == 2 else []
    said = Said()
    ann = open_claim(host, said)
    s = summary_of(host, "f3")
    # the paired ratio at each load: summarize's, where it quotes this thread count
    at_load = [(100.0 * float(d["load"]), said.text(LOAD_CLAIM % d["load"], d,
                                                    "shared_over_perworker"))
               for d in (s.get("loads") or [] if s.get("threads") == t else [])
               if d.get("load") and d.get("shared_over_perworker") is not None]
    cap = overall(at, "capacity_ops_per_s")
    left = [g for g in gates if g not in pair]
    extra = [open_words(loads, cap),
             "every line: the median over the reps of each run's p50 (summary.csv, from its "
             "HdrHistogram), band min\u2013max; the gates the claim compares: %s" % (
                 " and ".join(pair) or "none ran"),
             "above each load: the paired median ratio of p50, shared / per-worker "
             "(summarize.f3 per load: %s)" % ("; ".join(
                 "%s %s" % (pct_label(x), v) for x, v in at_load) or "none"),
             "dotted: %g\u00d7 the per-worker gate's p50, where the study (%s) puts the shared "
             "gate" % (STUDY_RATIO, STUDY["f3"])]
    if left:
        extra.append("the %s gate%s, every gate's p99 (p90, p99.9), items in flight, "
                     "throughput against the offered rate and the oversubscribed thread "
                     "counts: the supplement's f3-gate-load-diagnostics"
                     % (", ".join(left), "" if len(left) == 1 else "s"))
    if sat:
        extra.append(saturated_words(sat, "lines and the ratios, drawn as hollow diamonds at "
                                          "their p50"))
    extra += threads_words(t, over, rows)
    extra.append(oversub_status(drawn_rows, lambda r: (r.get("gate"), load_of(r)),
                                mark="'oversubscribed' in the title"))
    extra += closed_left_out(allrows, rows)
    extra.append(pooled_note(drawn_rows, lambda r: (r.get("gate"), load_of(r))))
    subtitle = "%d threads%s" % (t, ", oversubscribed" if over == 1 else "")
    p = {"kind": "f3main", "threads": t, "rows": drawn_rows, "loads": loads, "order": pair,
         "p50": p50, "p50_iv": p50_iv, "saturated": sat,
         "saturated_n": collections.Counter((gte, q[0]) for gte, v in sat.items() for q in v),
         "study": study, "ratio_at": at_load, "oversubscribed": over, "capacity": cap,
         "subtitle": subtitle, "figsize": (10.5, 6.4),
         "drawn": "p50 per gate at each offered load, the median of the reps (bar: "
                  "its interval)",
         "title": "F3: p50 latency vs offered load, shared vs per-worker gate, " + subtitle,
         "annotation": ann, "caption": caption_lines(host, drawn_rows, extra)}
    # the ratios are said in the legend, not in the one caption line
    p["ratios"] = dict(said.values)
    if not said.values and summary_status():
        p["caption"].insert(len(p["caption"]) - 1, summary_status())
    return p


def prep_f3_load(host, allrows):
    """The open-loop supplement at F3's thread count: every gate's percentiles
    against the offered load (the saturated runs' p50 apart), items in flight,
    throughput against the offered rate; the oversubscribed thread counts'
    p50 in a panel of their own."""
    rows = [r for r in allrows if load_of(r)]
    t, over, at, gates = f3_at(host, rows)
    loads = sorted({load_pct(r) for r in at})
    kept = [r for r in at if regime.saturated(r) != 1]
    sat = saturated_p50(at)
    pct = {c: by_gate_load(kept, c) for c, _n in F3_PCT}
    infl = by_gate_load(kept, inflight_of)
    tput = by_gate_load(at, "throughput_ops_per_s")
    offered = sorted((k[0],) + v for k, v in
                     nrdata.aggregate(at, (load_pct,), "rate").items() if v[0] > 0)
    cap = overall(at, "capacity_ops_per_s")
    off = {q[0]: q[1] for q in offered}
    behind = [(g, q[0], q[1] / off[q[0]]) for g in gates for q in tput.get(g, [])
              if q[0] in off and q[1] < KEPT_UP * off[q[0]]]
    # the items in flight at the top load under the two gates the claim compares
    top = [r for r in kept if load_pct(r) == loads[-1]]
    fl = [overall([r for r in top if r.get("gate") == g], inflight_of)
          for g in compared("f3.p50_shared_over_perworker")]
    said = Said()
    ann = open_claim(host, said, "; in flight %.3g vs %.3g" % (fl[0][0], fl[1][0])
                     if all(fl) else "")
    extra = [open_words(loads, cap, "; the offered rate: black dashed on grey in the "
                                    "throughput panel"),
             "every line: the median over the reps of each run's percentile (summary.csv, "
             "from its HdrHistogram), whiskers min\u2013max; colour per gate, line style per "
             "percentile (p50 solid, p90 dashed, p99 dash-dot, p99.9 dotted)",
             inflight_words(at) + "; median over the reps, whiskers min\u2013max"]
    if sat:
        extra.append(saturated_words(sat, "latency lines and the items in flight, drawn as "
                                          "hollow diamonds at their p50; the throughput "
                                          "panel keeps them"))
    if behind:
        extra.append("fell behind the offered rate (< %d%% delivered: saturated, its latency "
                     "there is queueing): %s" % (100 * KEPT_UP, "; ".join(
                         "%s at %s load (%.0f%%)" % (g, pct_label(x), 100 * f)
                         for g, x, f in behind)))
    elif offered:
        extra.append("every gate delivered the offered rate (>= %d%%) at every load"
                     % (100 * KEPT_UP))
    extra += threads_words(t, over, rows)
    ov_t = oversub_of(rows, nrdata.threads)
    over_ts = sorted(x for x, v in ov_t.items() if v == 1) if over != 1 else []
    if over_ts:
        extra.append("oversubscribed thread counts (%s: threads share CPUs, the scheduler "
                     "sets the latency) only in the separate panel \u201c%s\u201d (p50 vs "
                     "offered load; also in f3-gate-vs-threads), never in the others"
                     % (", ".join(map(str, over_ts)), F3_OVER_TITLE))
    # the oversubscribed thread counts: their own labelled panel, p50 vs load
    over_p50 = {ot: ser for ot in over_ts for ser in [by_gate_load(
        [r for r in rows if nrdata.threads(r) == ot], "p50_ns")] if ser}
    drawn = at + [r for r in rows if nrdata.threads(r) in over_p50]
    extra.append(oversub_status(drawn, lambda r: (r.get("gate"), nrdata.threads(r), load_of(r)),
                                mark="the tinted panel" if over_p50 else
                                "'oversubscribed' in the title"))
    extra += closed_left_out(allrows, rows)
    extra.append(pooled_note(at, lambda r: (r.get("gate"), load_of(r))))
    subtitle = "%d threads%s" % (t, ", oversubscribed" if over == 1 else "")
    ncol = max(3, len(gates))
    return add_paired_words({
        "kind": "f3load", "threads": t, "rows": at, "loads": loads, "order": gates,
        "pct": pct, "inflight": infl, "tput": tput, "offered": offered,
        "capacity": cap, "behind": behind, "oversubscribed": over, "saturated": sat,
        # every run's items crossed nodes: the throughput in items per line trip too
        "trip_ns": nrdata.probe_trip_ns(os.path.join(host.results, host.name))
        if at and all(nrdata.crosses_nodes(r) for r in at) else None,
        "over_p50": over_p50, "over_threads": sorted(over_p50),
        "grid": (2, ncol), "widths": None, "subtitle": subtitle, "figsize": (6.0 * ncol, 10.5),
        "drawn": "per gate, p50 (solid) and p99 (dashed) against the offered load: the "
                 "median over the reps, band min\u2013max (p90, p99.9 in the data file); "
                 "items in flight, throughput against the offered rate (black dashed)%s"
                 % ("; oversubscribed thread counts apart, tinted" if over_p50 else ""),
        "title": "F3 diagnostics: latency, items in flight and throughput vs offered "
                 "load by gate at %s (open loop)" % subtitle,
        "annotation": ann, "caption": caption_lines(host, at, extra)}, said)


def prep_f3_dist(host, rows):
    """Latency percentiles by gate at F3's thread count (closed-loop rows:
    by_loop sends open-loop ones elsewhere). One rule for every line: the median
    over the reps at each percentile (each run's latency.csv, interpolated on a
    log grid); the band is the min-max over the reps. Without latency.csv: the
    medians of summary.csv's percentiles."""
    t, over, at, gates = f3_at(host, rows)
    curves, extra = [], []
    for g in gates:
        grs = [r for r in at if r.get("gate", "") == g]
        if not any(r.get("p50_ns", "").strip() for r in grs):
            continue
        have = [c for c in (latency_curve(host, r) for r in grs) if c]
        env = envelope(have) if have else None
        if env:
            source, points = "latency.csv", list(zip(env[0], env[1]))
            band = (env[0], env[2], env[3]) if len(have) > 1 else None
        else:
            source, band = "summary", None
            meds = [(pc, statistics.median(vs)) for c, pc in SUMMARY_PCT
                    for vs in [[float(r[c]) for r in grs if r.get(c, "").strip()]] if vs]
            points = [(1.0 / (1.0 - pc), m) for pc, m in meds if m > 0]
            extra.append("%s: no latency.csv, medians of summary.csv's percentiles" % g)
        curves.append({"gate": g, "points": points, "band": band, "source": source,
                       "nreps": len(have) if env else len(grs), "oversubscribed": over})
    said = Said()
    r50 = f3_claim(host, said)
    extra.insert(0, "every line: the median over the reps at each percentile (each run's "
                 "latency.csv, interpolated); band: min\u2013max over the reps")
    # closed loop: the queue is kept full, so latency is mostly queueing (Little)
    fl = nrdata.aggregate(at, ("gate",), inflight_of)
    if fl:
        extra.insert(1, "closed loop: the producers keep the queue full, so latency here "
                     "is mostly queueing; items in flight (Little: throughput \u00d7 mean "
                     "latency, median over the reps): %s" % ", ".join(
                         "%s %.3g" % (g, fl[(g,)][0]) for g in gates if (g,) in fl))
    extra.append(oversub_status(at, nrdata.threads, mark="'oversubscribed' in the legend"))
    extra += threads_words(t, None, rows)
    return add_paired_words({
        "kind": "f3a", "curves": curves, "threads": t, "rows": at,
        "drawn": "per gate, the latency at each percentile: the median over the reps, "
                 "band min\u2013max",
        "subtitle": "%d threads" % t,
        "title": "F3: latency percentiles by gate at %d threads" % t,
        "caption": caption_lines(host, at, extra),
        "annotation": "%s%s (%s)" % (r50[0], ", " + load_label(r50[1]) if r50[1] else "",
                                     STUDY["f3"]) if r50 else None}, said)


# --------------------------------------------------------------------------
# matplotlib

#: the percentiles drawn, their line style and band's alpha
DRAWN = (("p50_ns", "p50", "-", 0.18), ("p99_ns", "p99", "--", 0.10))
#: the latency axis: this factor below the lowest median and above the highest
MARGIN = 4.0


def latency_limits(p):
    """The latency panels' one y range: MARGIN around every drawn median; None if none."""
    meds = [q[1] for c, _n, _s, _a in DRAWN for pts in p["pct"][c].values() for q in pts
            if q[1] and q[1] > 0] + [q[1] for v in p.get("saturated", {}).values() for q in v]
    if not meds:
        return None
    return min(meds) / MARGIN, max(meds) * MARGIN


def draw_gate(ax, p, g, lim, first, annotation=None):
    """Gate g's latency panel: DRAWN's percentiles vs the load, its saturated runs apart."""
    col, mk = color_of("gate", g), marker_of("gate", g)
    for c, name, style, alpha in DRAWN:
        pts = [q for q in p["pct"][c].get(g, []) if q[1] > 0]
        if not pts:
            continue
        xs = [q[0] for q in pts]
        if len(pts) > 1:
            ax.fill_between(xs, [max(q[2], 1e-300) for q in pts], [q[3] for q in pts],
                            color=col, alpha=alpha, linewidth=0, zorder=1)
        else:
            ax.errorbar(xs, [pts[0][1]], yerr=[[pts[0][1] - pts[0][2]], [pts[0][3] - pts[0][1]]],
                        color=col, capsize=3, linestyle="none", alpha=0.6)
        ax.plot(xs, [q[1] for q in pts], color=col, linestyle=style, marker=mk,
                markersize=6 if c == "p50_ns" else 5,
                markerfacecolor=col if c == "p50_ns" else "white", markeredgecolor=col,
                linewidth=2.2 if c == "p50_ns" else 1.6, zorder=3, gid="f3-%s-%s" % (g, name))
        ax.annotate(name, (xs[-1], pts[-1][1]), xytext=(7, 0), textcoords="offset points",
                    va="center", fontsize=8.5, color="0.25")
    sat = p.get("saturated", {}).get(g)
    if sat:
        ax.plot([q[0] for q in sat], [q[1] for q in sat], linestyle="none", marker="D",
                markersize=7, markerfacecolor="none", markeredgecolor=col, markeredgewidth=1.4,
                zorder=4, label="saturated run, p50 (left out of the lines)")
        ax.legend(loc="upper left", framealpha=0.9, fontsize=8)
    load_axis(ax, p["loads"])
    if lim:
        value_axis(ax, list(lim), fmt_ns, log=True)
        ax.set_ylim(*lim)
    if first:
        ax.set_ylabel("latency, enqueue to dequeue")
    title = "%s gate: p50, p99" % g
    ax.set_title(annotation + "\n" + title if annotation else title, fontsize=11)


def draw_f3_load(axes, p, show_legend=True):
    """Row 1: a latency panel per gate; row 2: items in flight, throughput vs
    the offered rate, the oversubscribed thread counts (or nothing)."""
    order, lim = p["order"], latency_limits(p)
    rest = axes[len(order):]
    for i, (ax, g) in enumerate(zip(axes, order)):
        draw_gate(ax, p, g, lim, i == 0, p["annotation"] if i == len(order) // 2 else None)
    if not order:
        no_data(axes[0], "no latency recorded")
    if len(rest) < 2:
        return
    ax1, ax2 = rest[:2]
    # items in flight (Little): log where the whiskers span decades
    v1 = draw_by_load(ax1, p["inflight"], order, len(order))
    load_axis(ax1, p["loads"])
    if v1:
        ax1.set_ylabel("items in flight (Little)")
        value_axis(ax1, v1)
        ax1.set_title("items in flight: throughput \u00d7 mean latency", fontsize=11)
        if show_legend:
            ax1.legend(loc="upper left", framealpha=0.9, fontsize=8.5)
    else:
        no_data(ax1, "items in flight:\nno latency recorded")
    # achieved throughput against the offered rate
    v2 = draw_by_load(ax2, p["tput"], order, len(order), scale=1e-6)
    if p["offered"]:
        xs = [q[0] for q in p["offered"]]
        ys = [q[1] / 1e6 for q in p["offered"]]
        ax2.plot(xs, ys, color="0.55", linestyle="-" if len(xs) > 1 else "none",
                 linewidth=7, alpha=0.35, marker="_" if len(xs) == 1 else None,
                 markersize=30, markeredgewidth=7, solid_capstyle="butt", zorder=1)
        ax2.plot(xs, ys, color="black", linestyle="--" if len(xs) > 1 else "none",
                 linewidth=1.3, marker="_", markersize=22, markeredgewidth=1.6,
                 label="offered rate", zorder=1.5)
        v2 += ys
    load_axis(ax2, p["loads"])
    ax2.set_ylabel("throughput (million items/s)")
    value_axis(ax2, v2)
    fig_draw.trip_axis(ax2, p.get("trip_ns"))
    ax2.set_title("achieved throughput vs the offered rate", fontsize=11)
    if show_legend:
        ax2.legend(loc="upper left", framealpha=0.9, fontsize=8.5)
    extra = rest[2:]
    if extra and p.get("over_p50"):
        draw_f3_over_load(extra[0], p, show_legend)
        extra = extra[1:]
    for a in extra:
        no_data(a, "")


#: the main figure's legend: what the number above each load is
RATIO_WORDS = ("N.N\u00d7 above a load: p50 shared / per-worker, the paired median over "
               "the reps\n(title: the highest load's, [lo\u2013hi, c%]: its order-statistic "
               "interval, c% its coverage)")


def draw_f3_main(axes, p, show_legend=True):
    """F3's main figure in axes[0]: p50 against the offered load, shared and
    per-worker gate, the saturated runs apart, the paired ratio above each
    load, the study's 200x dotted."""
    ax = axes[0]
    hs, meds = [], []
    single = False
    for i, g in enumerate(p["order"]):
        col, mk = color_of("gate", g), marker_of("gate", g)
        pts = [q for q in p["p50"].get(g, []) if q[1] > 0]
        if pts:
            # a load's median and its interval, side by side per gate; no line
            # joins the loads (a load of one run is a run, not a median: hollow)
            shift = (i - (len(p["order"]) - 1) / 2.0) * 1.6
            for q in pts:
                iv = p.get("p50_iv", {}).get((g, q[0]))
                lo, hi = (iv.lo, iv.hi) if iv is not None else (q[2], q[3])
                one = q[4] < 2
                single |= one
                ax.errorbar([q[0] + shift], [q[1]], yerr=[[q[1] - lo], [hi - q[1]]],
                            color=col, marker=mk, markersize=8, capsize=4, elinewidth=1.6,
                            linestyle="none", markerfacecolor="white" if one else col,
                            markeredgecolor=col, zorder=3, gid="f3-%s-p50" % g)
            hs.append(fig_draw.handle(color=col, marker=mk, linestyle="none",
                                      label="%s gate: p50, median of the reps at each "
                                            "load, bar: its interval" % g))
            meds += [q[1] for q in pts]
        sat = p["saturated"].get(g)
        if sat:
            ax.plot([q[0] for q in sat], [q[1] for q in sat], linestyle="none", marker="D",
                    markersize=8, markerfacecolor="none", markeredgecolor=col,
                    markeredgewidth=1.5, zorder=4, gid="f3-%s-saturated" % g)
            meds += [q[1] for q in sat]
    if single:
        hs.append(fig_draw.handle(linestyle="none", marker="o", markersize=8,
                                  markerfacecolor="white", markeredgecolor="0.3",
                                  label="hollow: one unsaturated run at that load, not a "
                                        "median"))
    if p["saturated"]:
        hs.append(fig_draw.handle(linestyle="none", marker="D", markersize=8,
                                  markerfacecolor="none", markeredgecolor="0.3",
                                  markeredgewidth=1.5,
                                  label="saturated run (queueing): left out of the medians"))
    if p["study"]:
        ax.plot([q[0] for q in p["study"]], [q[1] for q in p["study"]], color="0.3",
                linestyle="none", marker="_", markersize=22, markeredgewidth=2.0, zorder=2,
                gid="f3-study")
        hs.append(fig_draw.handle(color="0.3", linestyle="none", marker="_", markersize=14,
                                  label="%g\u00d7 the per-worker gate's p50: where the "
                                        "study puts the shared gate (%s)"
                                        % (STUDY_RATIO, STUDY["f3"])))
        meds += [q[1] for q in p["study"]]
    for x, text in p["ratio_at"]:
        ax.annotate(text, (x, 1.0), xycoords=("data", "axes fraction"), xytext=(0, -5),
                    textcoords="offset points", ha="center", va="top", fontsize=11,
                    fontweight="bold", color="0.1", gid="f3-ratio")
    if p["ratio_at"]:
        hs.append(fig_draw.handle(linestyle="none", label=RATIO_WORDS))
    load_axis(ax, p["loads"])
    if meds:
        # from the medians: a band that runs past is clipped; room above for the ratios
        lim = (min(meds) / 3.0, max(meds) * 12.0)
        value_axis(ax, list(lim), fmt_ns, log=True)
        ax.set_ylim(*lim)
        ax.set_ylabel("p50 latency, enqueue to dequeue")
    else:
        no_data(ax, "no latency recorded")
    if p.get("annotation"):
        ax.set_title(p["annotation"], fontsize=11)
    if show_legend and hs:
        ax.legend(handles=hs, loc="upper left", bbox_to_anchor=(0.0, -0.13), ncol=1,
                  frameon=False, fontsize=9)
    for a in axes[1:]:
        no_data(a, "")


def pct_formatter(x, _pos=None):
    """The label of x = 1/(1-p) at a decade: 0%, 90%, 99%, 99.9%...; '' elsewhere."""
    if x < 1 or abs(math.log10(x) - round(math.log10(x))) > 1e-6:
        return ""
    k = round(math.log10(x))
    return "%.*f%%" % (max(0, k - 2), 100.0 - 100.0 / 10 ** k)


def percentile_axis(ax, xmax):
    """x = 1/(1-p) on a log axis up to xmax, labelled as percentiles."""
    ax.set_xscale("log")
    ax.set_xlim(1, max(10.0, xmax * 1.3))
    ax.xaxis.set_major_locator(fig_draw.ticker.LogLocator(base=10, numticks=20))
    ax.xaxis.set_major_formatter(fig_draw.ticker.FuncFormatter(pct_formatter))
    ax.xaxis.set_minor_locator(fig_draw.ticker.NullLocator())
    ax.set_xlabel("percentile")


#: the line styles of the oversubscribed thread counts, in their order; the .dat's
#: dash column is the index + 1, gnuplot's dt of the same style (1 solid, 2 dashed,
#: 3 dotted, 4 dash-dot)
LOAD_DASHES = ["-", "--", ":", "-."]


def draw_f3a(axes, p, show_legend=True):
    """The closed-loop distribution in axes[0]: per gate the median over the reps
    at each percentile (marked where from summary.csv), band min-max."""
    ax = axes[0]
    allv, xmax = [], 10
    for c in p["curves"]:
        g, pts, summary = c["gate"], c["points"], c["source"] != "latency.csv"
        col = color_of("gate", g)
        if c["band"]:
            xs, lo, hi = c["band"]
            ax.fill_between(xs, lo, hi, color=col, alpha=0.18, linewidth=0)
            allv += lo + hi
        if not pts:
            continue
        lab = "%s (median of %d rep%s%s)%s" % (
            g, c["nreps"], "" if c["nreps"] == 1 else "s", ", summary" if summary else "",
            ", oversubscribed" if c.get("oversubscribed") == 1 else "")
        ax.plot([q[0] for q in pts], [q[1] for q in pts], color=col, linewidth=2.0,
                linestyle="-", marker=marker_of("gate", g) if summary else None, label=lab)
        xmax = max(xmax, pts[-1][0])
        allv += [q[1] for q in pts]
    percentile_axis(ax, xmax)
    ax.set_ylabel("latency, enqueue to dequeue")
    value_axis(ax, allv, fmt_ns, log=True)
    annotate_title(ax, None, p["annotation"])
    if not p["curves"]:
        no_data(ax, "no latency recorded")
    elif show_legend:
        ax.legend(loc="upper left", framealpha=0.9, fontsize=9.5)
    for a in axes[1:]:
        no_data(a, "")


OVER_FACE = "#f6f1e7"
OVER_COLOR = "#7a4b00"


def over_panel(ax):
    """The tinted frame and title of F3's panel of oversubscribed thread counts."""
    ax.set_facecolor(OVER_FACE)
    ax.set_title(F3_OVER_TITLE.replace("; ", ";\n"), fontsize=11, color=OVER_COLOR,
                 fontweight="bold")
    for sp in ax.spines.values():
        sp.set_edgecolor(OVER_COLOR)


def load_axis(ax, xs):
    """x = offered load in % of capacity: linear from 0 to 100, a tick per load."""
    xs = sorted({x for x in xs if x is not None})
    ax.set_xlabel("offered load (% of the per-worker gate's capacity)")
    ax.set_xlim(0, max(100.0, max(xs) * 1.08) if xs else 100.0)
    if xs:
        ax.xaxis.set_major_locator(fig_draw.ticker.FixedLocator(xs))
        ax.xaxis.set_major_formatter(fig_draw.ticker.FixedFormatter([pct_label(x) for x in xs]))
    ax.xaxis.set_minor_locator(fig_draw.ticker.NullLocator())


def draw_by_load(ax, series, order, n, scale=1.0, linestyle="-", label=True):
    """{gate: [(load, med, min, max, n)]} as lines (points where one load), whiskers
    min-max, the i-th gate of ``order`` shifted as the i-th of n; returns the
    values drawn."""
    allv = []
    for i, g in enumerate(order):
        pts = series.get(g, [])
        if not pts:
            continue
        # shifted by a few % of load so that the gates' whiskers do not overlap
        x = [q[0] + spread(i, n, 3.0) for q in pts]
        ax.errorbar(x, [q[1] * scale for q in pts],
                    yerr=[[max(0.0, (q[1] - q[2]) * scale) for q in pts],
                          [max(0.0, (q[3] - q[1]) * scale) for q in pts]],
                    color=color_of("gate", g), marker=marker_of("gate", g),
                    markersize=5 if len(pts) > 1 else 7, linewidth=1.8, capsize=2.5,
                    elinewidth=0.9, linestyle=linestyle if len(pts) > 1 else "none",
                    label=g if label else None)
        allv += [q[2] * scale for q in pts] + [q[3] * scale for q in pts]
    return allv


def draw_f3_over_load(ax, p, show_legend=True):
    """F3's separate panel of oversubscribed thread counts in the open-loop figure:
    p50 vs offered load per gate, line style per thread count."""
    over_panel(ax)
    allv, order = [], p["order"]
    dashes = [LOAD_DASHES[j % len(LOAD_DASHES)] for j, _t in enumerate(p["over_threads"])]
    for t, ls in zip(p["over_threads"], dashes):
        ser = p["over_p50"][t]
        allv += draw_by_load(ax, ser, [g for g in order if g in ser] +
                             [g for g in ser if g not in order], len(order), linestyle=ls,
                             label=False)
    load_axis(ax, p["loads"])
    ax.set_ylabel("p50 latency")
    value_axis(ax, allv, fmt_ns, log=True)
    if show_legend:
        hs = [fig_draw.handle(color=color_of("gate", g), marker=marker_of("gate", g),
                              linewidth=2.0) for g in order]
        hs += [fig_draw.handle(color="0.2", linewidth=1.8, linestyle=ls) for ls in dashes]
        ax.legend(hs, list(order) + ["p50, %d threads" % t for t in p["over_threads"]],
                  loc="upper left", framealpha=0.85, fontsize=8.5)


# --------------------------------------------------------------------------
# gnuplot: the data files


def dat_f3a(name, p):
    """The closed-loop distribution's data: a block per gate, its band at each x
    of its line (interpolated in log-log; NaN past the band's last x)."""
    import numpy as np
    cols = ["one_over_one_minus_p", "value_ns", "band_lo_ns", "band_hi_ns", "color_rgb",
            "dash"]
    out = dat_header(name, p, "latency percentile distribution by gate at %d threads; one "
                     "block per gate and offered load, its name first; every line the "
                     "median over the reps at each percentile, the band min-max over the "
                     "reps; dash 1 solid (the highest load), 2 dashed, 3 dotted"
                     % p["threads"], cols)
    for c in p["curves"]:
        band, col = c["band"], "%d" % rgb_int(color_of("gate", c["gate"]))
        rows = []
        for x, v in c["points"]:
            lo = hi = None
            if band and x <= band[0][-1]:
                lo, hi = (float(np.interp(math.log10(x), np.log10(band[0]), b)) for b in band[1:])
            # dash 1: closed loop has one load, drawn solid
            rows.append([g(x), g(v), g(lo), g(hi), col, "1"])
        over = ", oversubscribed" if c.get("oversubscribed") == 1 else ""
        out += block(c["gate"] + over, cols, rows)
    return out


def dat_f3load(name, p):
    """The supplement's data: a block per gate (every percentile, items in flight,
    throughput and the offered rate per load), then one per gate and
    oversubscribed thread count (p50 only, NaN elsewhere)."""
    cols = ["load_pct"] + ["%s_%s_ns" % (pn.replace(".", ""), s) for _c, pn in F3_PCT
                           for s in ("median", "min", "max")]
    cols += ["inflight_median", "inflight_min", "inflight_max", "median_ops_per_s",
             "min_ops_per_s", "max_ops_per_s", "offered_ops_per_s", "reps", "color_rgb",
             "oversubscribed", "over_panel", "dash"]
    out = dat_header(name, p, "open loop at %d threads: latency percentiles (median over "
                     "the reps of each run's summary.csv percentile, min, max), items in "
                     "flight (Little) and achieved throughput vs the offered load (%% of "
                     "the per-worker gate's capacity), and the offered rate (median over "
                     "the runs at that load); one block per gate, its name first; NaN: "
                     "not recorded; then, where threads outnumber CPUs at other thread "
                     "counts, one block per gate and oversubscribed thread count (p50 "
                     "only, over_panel 1, dash 1, 2, 3 per thread count): the separate "
                     "panel (%s)"
                     % (p["threads"], F3_OVER_TITLE), cols)
    off = {q[0]: q[1] for q in p["offered"]}
    sers = [p["pct"][c] for c, _n in F3_PCT] + [p["inflight"], p["tput"]]
    for gte in p["order"]:
        by_x = [{q[0]: q for q in ser.get(gte, [])} for ser in sers]
        rows = []
        # the loads of any percentile or of the throughput (which keeps saturated runs)
        for x in sorted(set().union(*by_x[:len(F3_PCT)], by_x[-1])):
            qs = [s.get(x) for s in by_x]
            rows.append([g(x)] + [v for q in qs for v in g3(q)] + [
                g(off.get(x)), "%d" % max(q[4] if q else 0 for q in qs),
                "%d" % rgb_int(color_of("gate", gte)), ov_col(p.get("oversubscribed")), "0",
                "1"])
        out += block(gte, cols, rows)
    for j, t in enumerate(p.get("over_threads", [])):
        for gte in order_of("gate", p["over_p50"][t]):
            out += block("%s, %d threads" % (gte, t), cols, [
                [g(q[0])] + g3(q) + ["NaN"] * 16 + ["%d" % q[4], "%d" % rgb_int(
                    color_of("gate", gte)), "1", "1", "%d" % (j % len(LOAD_DASHES) + 1)]
                for q in p["over_p50"][t][gte]])
    return out


#: the columns of the main figure's blocks (scripts/gnuplot/f3-gate-percentiles.gp
#: reads them by name: g_, s_, y_, r_)
F3_MAIN_COLUMNS = ["load_pct", "p50_median_ns", "p50_min_ns", "p50_max_ns", "reps",
                   "color_rgb", "saturated_runs", "oversubscribed"]
F3_SAT_COLUMNS = ["load_pct", "p50_ns", "color_rgb"]
F3_STUDY_COLUMNS = ["load_pct", "study_p50_ns"]
F3_RATIO_COLUMNS = ["load_pct", "ratio_text"]


def dat_f3main(name, p):
    """The open-loop main figure's data: a block per gate (in the legend's
    order), then the saturated runs, the study's line and the ratio per load
    (each a NaN row where there is none)."""
    out = dat_header(name, p, "open loop at %d threads: p50 per gate (the median over the "
                     "unsaturated reps of each run's summary.csv p50, min, max) against the "
                     "offered load (%% of the per-worker gate's capacity), one block per "
                     "gate; then the block 'saturated' (each saturated run's p50, left out of "
                     "the lines), the block 'study' (%g x the per-worker gate's p50: where the "
                     "study puts the shared gate) and the block 'paired ratio' (shared / "
                     "per-worker p50, paired per rep, summarize.f3 per load)"
                     % (p["threads"], STUDY_RATIO), F3_MAIN_COLUMNS)
    for gte in p["order"]:
        rows = [[g(q[0])] + g3(q) + ["%d" % q[4], "%d" % rgb_int(color_of("gate", gte)),
                 "%d" % p["saturated_n"].get((gte, q[0]), 0), ov_col(p.get("oversubscribed"))]
                for q in p["p50"].get(gte, [])]
        out += block(gte, F3_MAIN_COLUMNS, rows, empty=[
            ["NaN"] * 5 + ["%d" % rgb_int(color_of("gate", gte)), "0", "NaN"]])
    sat = [[g(x), g(v), "%d" % rgb_int(color_of("gate", gte))]
           for gte in p["order"] for x, v in p["saturated"].get(gte, [])]
    out += block("saturated", F3_SAT_COLUMNS, sat, empty=[["NaN", "NaN", "0"]])
    out += block("study", F3_STUDY_COLUMNS, [[g(x), g(v)] for x, v in p["study"]],
                 empty=[["NaN", "NaN"]])
    out += block("paired ratio", F3_RATIO_COLUMNS,
                 [[g(x), text.replace(" ", "")] for x, text in p["ratio_at"]],
                 empty=[["NaN", "-"]])
    return out

