# SPDX-License-Identifier: BSD-2-Clause
"""fig_f5.py - F5's figure (f5-ceiling): the closed loop's capacity against
the physical ceiling, by batch size; and its supplement (f5-ceiling-open-loop).

f5-ceiling.exp sweeps ``load = closed, 0.5``:

* closed loop (rows with an empty load cell, rate 0): the capacity, the one
  throughput that can meet a ceiling. The main figure draws it per
  configured batch against its ceiling (scripts/analysis/ceiling.py's
  ceiling_ops_per_s), a panel per queue where the data has several (at most
  MAX_QUEUES), and names the term that binds (ceiling.binding: ops,
  bandwidth, latency, contention, crossing) where it starts and changes; the
  study's value, that the interconnect set the ceiling, is marked beside it:
  the crossing term (node-to-node transfers, ceiling.terms) dotted, the
  ceiling the interconnect alone would set; the last panel the capacity's
  share of its ceiling (prep_f5, draw, dat_f5).
* open loop at half the capacity, consumers lingering for a full batch: a
  transfer moves about ``batch`` items; its throughput is the rate offered
  (measured = offered by construction), not a capacity, so it goes to the
  supplement: throughput against the realized batch (items per cross-node
  transfer), the configured batch labelled beside each point, the ceiling of
  each point dashed, and its share of the ceiling (prep_f5_open, draw_open,
  dat_f5_open). Results from before the closed-loop sweep hold one kind of
  row: the supplement draws them all.
"""

import math
import os
import statistics
from collections import Counter

from . import fig_common as FC
from . import fig_draw
from ..analysis import nrdata
from .fig_common import condensed
from .fig_draw import (
    annotate_title, fmt_plain, mark_oversub, no_data, OVERSUB_STYLE, ring_bound, thread_colors,
    trip_axis, value_axis)
from .fig_gnuplot import dat_header, g, is_bound, ov_col
from .fig_host import (
    bound_count, caption_lines, finite_pos, harness_status, is_over, load_of, MARKERS,
    order_of, oversub_status, pct_label, pooled_note, rgb_int, series_by)


# --------------------------------------------------------------------------
# Preparing the data (everything that can fail on input happens here)

#: F5's target: every point realizes at least this share of its configured batch
REALIZED_TARGET = 0.8
#: what the realized batch is, as the captions write it
TRANSFER_FORMULA = "(items_in + items_out) / (batches_in + batches_out)"


def point_of(row):
    """A run's point: (threads, configured batch)."""
    return nrdata.threads(row), int(float(row["batch"]))


def queue_of(row):
    """A run's queue (numaring where the column is empty: older results)."""
    return row.get("queue") or "numaring"


def realized_of(row):
    """(items moved per cross-node transfer, source) of a row: summary.csv's
    items_per_transfer ("column"), else the same formula, (items_in + items_out)
    / (batches_in + batches_out), from its queue counters ("counters"), else
    (None, None)."""
    v = nrdata.num(row, "items_per_transfer")
    if v is not None and v > 0:
        return v, "column"
    c = [nrdata.num(row, k) for k in ("items_in", "items_out", "batches_in", "batches_out")]
    if all(x is not None for x in c) and c[2] + c[3] > 0 and c[0] + c[1] > 0:
        return (c[0] + c[1]) / (c[2] + c[3]), "counters"
    return None, None


def share_words(ratios):
    """'measured / ceiling: lo%-hi%' of the points' ratios, None without any."""
    if not ratios:
        return None
    return "measured / ceiling: %.0f%%\u2013%.0f%%" % (100 * min(ratios), 100 * max(ratios))


def x_note(realized, sources):
    """The caption's line of what the supplement's x axis is: the realized
    batch (from summary.csv's column, the queue counters, or both) or, where
    no run recorded it, the configured batch (a warning)."""
    if not realized:
        return ("x: the CONFIGURED batch \u2014 these results record no items per transfer "
                "(no items_per_transfer, no queue counters): what a transfer moved is "
                "unknown", "warn")
    if "counters" not in sources:
        how = " (summary.csv's items_per_transfer = %s), " % TRANSFER_FORMULA
    elif "column" not in sources:
        how = (", %s: from the queue counters (these results have no items_per_transfer "
               "column); " % TRANSFER_FORMULA)
    else:
        how = ", %s: items_per_transfer in %d runs, from the queue counters in %d; " % (
            TRANSFER_FORMULA, sources["column"], sources["counters"])
    return ("x: the realized batch, items moved per cross-node transfer" + how + "median over "
            "the reps of each point; the label beside a point (b=N) is its configured batch",
            None)


def realized_notes(pts, below, missing):
    """(the caption's line, the panel's short finding) of the realized share
    of the configured batch, pts [(threads, batch, realized / configured)],
    against REALIZED_TARGET; below: the points under it; missing: how many
    points record none."""
    if not pts:
        return ("realized / configured batch: not measured", None), None
    worst = min(pts, key=lambda x: x[2])
    if len(pts) <= 12:
        per = "; ".join("%d threads: %s" % (t, ", ".join(
            "b=%d %.2f" % (b, f) for t2, b, f in pts if t2 == t))
            for t in sorted({x[0] for x in pts}))
    else:
        per = "median %.2f" % statistics.median(x[2] for x in pts)
    verdict = ("holds at every point" if not below else
               "does NOT hold at %d of %d points (%s)" % (
                   len(below), len(pts), ", ".join("b=%d at %d threads" % (b, t)
                                                  for t, b, _f in below)))
    rnote = ("realized / configured batch: %s; minimum %.2f (b=%d at %d threads); target "
             "realized >= %.1f \u00d7 configured: %s%s" % (
                 per, worst[2], worst[1], worst[0], REALIZED_TARGET, verdict,
                 "; not measured at %d points (x = configured there)" % missing
                 if missing else ""), "warn" if below else None)
    short = "realized \u2265 %.1f\u00d7 configured at every point: %s (min %.2f\u00d7)" % (
        REALIZED_TARGET, "yes" if not below else "NO, %d of %d below" % (
            len(below), len(pts)), worst[2])
    return rnote, short


@condensed
def prep_f5_open(host):
    """F5's supplement: per thread count, per point (x, med, min, max, n,
    ceiling, harness, oversubscribed, batch, realized median or None, realized
    min, realized max), sorted by batch; x the realized batch (the median items
    per cross-node transfer of the point), the configured batch where its runs
    record no transfers. The open-loop runs, or every run where there are
    none (older results); the closed loop is the main figure's (prep_f5)."""
    rows, closed_rows = split(host.data["f5-ceiling"])
    ceil = host.ceiling.drawn(rows, point_of)
    real = nrdata.aggregate(rows, (point_of,), lambda r: realized_of(r)[0])
    sources = Counter(src for v, src in map(realized_of, rows) if v is not None)
    # by batch: x the realized batch (the configured where not recorded)
    lines = {t: [(q[9] if q[9] is not None else float(q[0]),) + q[1:] for q in pts]
             for t, pts in series_by(rows, point_of, ceiling=ceil.get, interval=False,
                                     more=lambda k: (k[1],) + real.get((k,), (None,) * 3)[:3]
                                     ).items()}
    pts = [(t, q[8], q[9] / q[8]) for t in sorted(lines) for q in lines[t]
           if q[9] is not None]
    missing = sum(1 for pl in lines.values() for q in pl if q[9] is None)
    realized = bool(pts)
    below = [x for x in pts if x[2] < REALIZED_TARGET]
    rnote, short = realized_notes(pts, below, missing)
    loads = sorted({load_of(r) for r in rows}, key=lambda v: float(v) if v else -1.0)
    lingers = sorted({nrdata.num(r, "linger_us") for r in rows} - {None})
    pcts = [pct_label(100 * float(x)) for x in loads if x]
    if pcts:
        how = "open loop at %s of capacity" % " / ".join(pcts)
    else:
        how = ("closed loop (no load recorded): a saturated producer moves only the room left "
               "at the destination")
    if lingers:
        how += "; consumers wait up to %s \u00b5s for a full batch (linger)" % "/".join(
            "%g" % x for x in lingers)
    pins = sorted({r.get("pin", "") for r in rows if r.get("pin", "")})
    key = lambda r: (nrdata.threads(r), r["batch"])  # noqa: E731
    extra = [host.ceiling.status(),
             harness_status(rows, bound_count(lines), drawn="dash-dot, same colour"),
             "pin: %s" % ", ".join(pins) if pins else None, how,
             oversub_status(rows, key), pooled_note(rows, key)]
    ratios = [q[1] / q[5] for pl in lines.values() for q in pl if q[5]]
    caption = caption_lines(host, rows, extra)
    caption[len(caption) - 1:len(caption) - 1] = [x_note(realized, sources), rnote]
    if closed_rows and closed_rows is not rows:
        caption.insert(len(caption) - 1, ("the closed loop (%d runs, the capacity against the "
                                          "ceiling): the main figure f5-ceiling"
                                          % len(closed_rows), None))
    kind = "realized" if realized else "configured"
    drawn = ("open loop at %s load: throughput against the %s batch (b=N labels the "
             "configured), ceiling dashed" % ("/".join(pcts), kind) if pcts else
             "throughput against the %s batch, ceiling dashed" % kind)
    return {"kind": "f5open", "lines": lines, "threads": sorted(lines),
            # every run's items crossed nodes: the throughput in items per line trip too
            "trip_ns": nrdata.probe_trip_ns(os.path.join(host.results, host.name))
            if rows and all(nrdata.crosses_nodes(r) for r in rows) else None,
            "rows": rows, "realized": realized,
            "realized_points": pts, "realized_below": below,
            "realized_note": short, "loads": loads, "grid": (1, 2),
            "title": "F5 open loop: throughput vs batch size %s, against the physical "
                     "ceiling" % ("as realized (items per transfer)" if realized
                                  else "(configured: realized not recorded)"),
            "annotation": share_words(ratios), "has_ceiling": bool(ratios),
            "has_harness": any(q[6] for pl in lines.values() for q in pl), "caption": caption,
            "drawn": "%s, and its share of the ceiling; median of the runs, whisker "
                     "min\u2013max" % drawn}


#: the most queues the main figure draws a capacity panel for (a panel each,
#: the share of the ceiling the last: figlist.MAX_PANELS in all)
MAX_QUEUES = 3
#: the term the study says set the ceiling: node-to-node transfers (the interconnect)
STUDY_TERM = "crossing"
#: the study's F5 value as the figure says it
STUDY_WORDS = "study: the interconnect set the ceiling"


@condensed
def prep_f5(host):
    """F5's main figure: the closed loop's capacity per configured batch against
    its ceiling, per queue (prep_closed each, at most MAX_QUEUES), the binding
    term named and the crossing term (the interconnect: the study's) beside
    it. Without closed-loop runs (older results) the panels say so and the
    supplement (prep_f5_open) draws what ran."""
    allrows = host.data["f5-ceiling"]
    crows = [r for r in allrows if is_closed(r)]
    qs = order_of("queue", {queue_of(r) for r in crows})
    drawn_rows = [r for r in crows if queue_of(r) in qs[:MAX_QUEUES]]
    queues = [(q, prep_closed(host, [r for r in crows if queue_of(r) == q]))
              for q in qs[:MAX_QUEUES]]
    cls = [cl for _q, cl in queues]
    ratios = [x for cl in cls for x in cl["ratios"]]
    terms = sorted({t for cl in cls for t in cl["terms"]})
    where = {}
    for cl in cls:
        for t in cl["threads"]:
            for b, term in binding_labels(cl["lines"][t]):
                where.setdefault(term, []).append(b)
    # the finding: the share reached over the share panel, the binding terms
    # (and the study's) over the capacity's
    share = share_words(ratios)
    bind = ("binding: %s (%s)" % (", ".join("%s from b=%s" % (term, "/".join(
        "%d" % b for b in sorted(set(bs)))) for term, bs in sorted(
            where.items(), key=lambda kv: min(kv[1]))), STUDY_WORDS) if where else None)
    crossing = any(cl["crossing"] for cl in cls)
    extra = [host.ceiling.status(),
             "closed loop (empty load cell, rate 0): %d runs, the capacity per configured "
             "batch against the ceiling; binding terms: %s" % (
                 len(crows), ", ".join(terms) or "none"),
             "dotted: the crossing term (ceiling.terms: node-to-node transfers, the "
             "interconnect alone), the ceiling if the study (the interconnect set the "
             "ceiling) were right; %s" % ("drawn" if crossing else
                                         "not drawn: the model has no crossing term for "
                                         "these runs (not split, or not numaring)"),
             "the open loop (measured = offered by construction) and the realized batch: "
             "the supplement's f5-ceiling-open-loop"]
    if len(qs) > MAX_QUEUES:
        extra.append("queues left out (more than %d): %s" % (MAX_QUEUES,
                                                            ", ".join(qs[MAX_QUEUES:])))
    pins = sorted({r.get("pin", "") for r in crows if r.get("pin", "")})
    key = lambda r: (r.get("queue"), nrdata.threads(r), r["batch"])  # noqa: E731
    extra += ["pin: %s" % ", ".join(pins) if pins else None,
              oversub_status(drawn_rows, key), pooled_note(drawn_rows, key)]
    rows = drawn_rows or allrows
    return {"kind": "f5", "queues": queues, "threads": sorted({t for cl in cls
                                                               for t in cl["threads"]}),
            "terms": terms, "crossing": crossing,
            "trip_ns": nrdata.probe_trip_ns(os.path.join(host.results, host.name))
            if drawn_rows and all(nrdata.crosses_nodes(r) for r in drawn_rows) else None,
            "rows": rows, "grid": (1, max(1, len(queues)) + 1),
            "title": "F5: closed-loop capacity against the ceiling model, by batch size",
            "annotation": "; ".join(x for x in (share, bind) if x) or None,
            "share_note": share, "binding_note": bind, "has_ceiling": bool(ratios),
            "caption": caption_lines(host, rows, extra), "figsize": (15.0, 5.4),
            "drawn": ("closed-loop capacity per batch (median, its interval), ceiling dashed "
                      "(binding term named), crossing term dotted; share of the ceiling"
                      if queues else
                      "no closed-loop runs (the capacity) in these results")}


#: what each binding term means, in a few words (the legend)
BINDING_WORDS = {"ops": "ops: atomic operations", "bandwidth": "bandwidth: lines moved",
                 "latency": "latency: index lines handed over",
                 "contention": "contention: one line fought over",
                 "crossing": "crossing: node-to-node transfers"}


def is_closed(row):
    """A closed-loop run: no offered load (an empty load cell) and no rate."""
    return not load_of(row) and not (nrdata.num(row, "rate") or 0) > 0


def split(rows):
    """(rows of the first panel: the open-loop runs, or every run where there
    are none; the closed-loop runs where open-loop runs exist too, else [])."""
    closed = [r for r in rows if is_closed(r)]
    return [r for r in rows if not is_closed(r)] or closed, closed


def model_of(host, name, row):
    """The ceiling model's function ``name`` (ceiling.binding, ceiling.terms)
    of a row, or None where the model lacks it or it fails."""
    fn = getattr(host.ceiling.module() if host.ceiling.fn is not None else None, name, None)
    if fn is None:
        return None
    try:
        return fn(host.ceiling.probe, dict(row))
    except Exception:  # noqa: BLE001 - someone else's module
        return None


def per_point(rows, fn):
    """{point: [fn(row) of the point's runs, where not empty]}."""
    out = {}
    for r in rows:
        v = fn(r)
        if v:
            out.setdefault(point_of(r), []).append(v)
    return out


def prep_closed(host, rows):
    """{threads: [(batch, median, lo, hi, n, ceiling, binding, oversubscribed,
    coverage)]} of the closed-loop runs, the binding terms named, and
    {threads: [(batch, the crossing term: the median over the point's runs)]}
    where the model has one (STUDY_TERM, the interconnect alone). rows: one
    queue's, at least one."""
    ceil = host.ceiling.drawn(rows, point_of)
    bound = per_point(rows, lambda r: model_of(host, "binding", r))

    def term(k):
        """The term that binds most of the point's runs (where it has a ceiling)."""
        names = bound.get(k, [])
        return max(sorted(set(names)), key=names.count) if names and ceil.get(k) else None
    lines = {t: [q[:6] + (term((t, q[0])),) + q[7:] for q in pts] for t, pts in series_by(
        rows, point_of, ceiling=ceil.get, harness=False).items()}
    ratios = [q[1] / q[5] for pts in lines.values() for q in pts if q[5]]
    cross = per_point(rows, lambda r: (model_of(host, "terms", r) or {}).get(STUDY_TERM))
    crossing = {t: [(q[0], statistics.median(cross[(t, q[0])])) for q in pts
                    if (t, q[0]) in cross] for t, pts in lines.items()}
    return {"lines": lines, "threads": sorted(lines),
            "terms": sorted({q[6] for pts in lines.values() for q in pts if q[6]}),
            "ratios": ratios, "crossing": {t: v for t, v in crossing.items() if v}}


def binding_labels(pts):
    """[(batch, term)] where the binding term is named: the first point and
    wherever it changes along the line."""
    out, last = [], None
    for q in pts:
        if q[6] and q[6] != last:
            out.append((q[0], q[6]))
        last = q[6] or last
    return out


# --------------------------------------------------------------------------
# matplotlib


def batch_axis(ax, xs, label):
    """x = items per transfer: log2 with power-of-two ticks where the values span
    a factor of 4 or more, else linear."""
    xs = [x for x in xs if finite_pos(x)]
    ax.set_xlabel(label)
    if not xs:
        return
    lo, hi = min(xs), max(xs)
    if hi / lo >= 4:
        ax.set_xscale("log", base=2)
        k0 = math.floor(math.log2(lo / 1.35))
        k1 = math.ceil(math.log2(hi * 1.35))
        ax.xaxis.set_major_locator(
            fig_draw.ticker.FixedLocator([2.0 ** k for k in range(k0, k1 + 1)]))
        ax.set_xlim(lo / 1.35, hi * 1.35)
    else:
        pad = max(0.25, (hi - lo) * 0.12)
        ax.set_xlim(max(0.0, lo - pad), hi + pad)
    ax.xaxis.set_major_formatter(fig_draw.ticker.FuncFormatter(fmt_plain))
    ax.xaxis.set_minor_locator(fig_draw.ticker.NullLocator())


def tput_line(ax, x, pts, col, i, t, **kw):
    """A thread count's throughput (million items/s) against x, whiskers
    lo..hi (min..max); returns the whiskers' ends."""
    ax.errorbar(x, [q[1] / 1e6 for q in pts],
                yerr=[[(q[1] - q[2]) / 1e6 for q in pts], [(q[3] - q[1]) / 1e6 for q in pts]],
                color=col, marker=MARKERS[i % len(MARKERS)], linewidth=1.8, capsize=3,
                label="%d threads" % t, linestyle="-" if len(pts) > 1 else "none", **kw)
    return [q[2] / 1e6 for q in pts] + [q[3] / 1e6 for q in pts]


def label_batches(ax, pts, ys, color):
    """The configured batch beside each point (b=N), the realized/configured share
    after it where it is under REALIZED_TARGET."""
    for j, (q, y) in enumerate(zip(pts, ys)):
        if q[9] is None:
            continue
        f = q[9] / q[8]
        low = f < REALIZED_TARGET
        text = "b=%d" % q[8] + (" (%.2f\u00d7)" % f if low else "")
        ax.annotate(text, (q[0], y), xytext=(5, 6 if j % 2 == 0 else -12),
                    textcoords="offset points", fontsize=7.5, color="#b00000" if low else color,
                    fontweight="bold" if low else "normal", zorder=7)


def line_of(ax, pts, k, col, **kw):
    """Field k of the points (million items/s) against x, a line in the
    series' colour; returns the values drawn."""
    ys = [q[k] / 1e6 for q in pts]
    ax.plot([q[0] for q in pts], ys, color=col, **kw)
    return ys


def grey(linestyle, linewidth, label):
    """A legend handle of a line style drawn in each line's colour."""
    return fig_draw.handle(color="0.3", linestyle=linestyle, linewidth=linewidth, label=label)


def draw_f5(axes, p, show_legend=True, tcolors=None):
    """F5's supplement, the open loop: throughput against the realized batch
    in axes[0], its share of the ceiling in axes[1], the rest blank."""
    ax, ax2 = axes[:2]
    for a in axes[2:]:
        no_data(a, "")
    tcolors = tcolors or thread_colors(p["threads"])
    realized = p["realized"]
    xlabel = ("items per cross-node transfer, realized (b=N: configured batch)" if realized
              else "batch size, configured (items per transfer not recorded)")
    allv, xs = [], []
    for i, t in enumerate(p["threads"]):
        pts = p["lines"][t]
        col = tcolors[t]
        x = [q[0] for q in pts]
        allv += tput_line(ax, x, pts, col, i, t, markersize=5.5 if len(pts) > 1 else 7.5)
        if realized:
            label_batches(ax, pts, [q[1] / 1e6 for q in pts], col)
        ring_bound(ax, x, pts, 1e-6)
        mark_oversub(ax, x, pts, 1e-6, label=False)
        hp = [q for q in pts if q[6]]
        if hp:
            allv += line_of(ax, hp, 6, col, linestyle="-.", linewidth=1.3, alpha=0.8)
        cp = [q for q in pts if q[5] is not None]
        if cp:
            allv += line_of(ax, cp, 5, col, linestyle="--", linewidth=1.4)
            r = [(q[0], q[1] / q[5], q[2] / q[5], q[3] / q[5]) for q in cp]
            ax2.errorbar([q[0] for q in r], [100 * q[1] for q in r],
                         yerr=[[100 * (q[1] - q[2]) for q in r], [100 * (q[3] - q[1]) for q in r]],
                         color=col, marker=MARKERS[i % len(MARKERS)], markersize=5.5,
                         linewidth=1.8, capsize=3, label="%d threads" % t,
                         linestyle="-" if len(r) > 1 else "none")
            if realized:
                label_batches(ax2, cp, [100 * q[1] for q in r], col)
            hit = [(q[0], 100 * q[1] / q[5]) for q in cp if is_over(q)]
            if hit:
                ax2.plot([h[0] for h in hit], [h[1] for h in hit], **OVERSUB_STYLE)
        xs += x
    batch_axis(ax, xs, xlabel)
    ax.set_ylabel("throughput (million items/s)")
    value_axis(ax, allv)
    trip_axis(ax, p.get("trip_ns"))
    annotate_title(ax, "measured (solid), ceiling (dashed)" +
                   (", harness alone (dash-dot)" if p.get("has_harness") else ""),
                   p.get("realized_note"))
    if p["has_ceiling"]:
        share_axis(ax2, xs, xlabel, "measured / ceiling (%)", "share of the ceiling reached",
                   p["annotation"])
    else:
        no_data(ax2, "measured / ceiling:\nceiling not available")
    if show_legend:
        h = ax.get_legend_handles_labels()[0]
        h += [grey("--", 1.4, "ceiling (model),\nsame colour")] if p["has_ceiling"] else []
        h += [grey("-.", 1.3, "harness alone\n(null queue),\nsame colour")
              ] if p.get("has_harness") else []
        fig_draw.legend_outside(ax, h + fig_draw.mark_handles(
            over=any(is_over(q) for pts in p["lines"].values() for q in pts),
            note=realized and "b=N: configured batch\n(red: realized < %.1f\u00d7)"
            % REALIZED_TARGET))


def draw_closed(ax, p, queue, cl, tcolors):
    """One queue's closed loop: the capacity per batch (solid) against its
    ceiling (dashed), the binding term named above the ceiling where it starts
    and changes, the crossing term (the study's: the interconnect) dotted."""
    allv, xs = [], []
    for i, t in enumerate(cl["threads"]):
        pts = cl["lines"][t]
        col = tcolors[t]
        x = [q[0] for q in pts]
        allv += tput_line(ax, x, pts, col, i, t, markersize=6, gid="f5-closed")
        mark_oversub(ax, x, pts, 1e-6, label=False)
        cp = [q for q in pts if q[5]]
        if cp:
            allv += line_of(ax, cp, 5, col, linestyle="--", linewidth=1.4, marker="_",
                            markersize=12, gid="f5-closed-ceiling")
            at = {q[0]: q[5] for q in cp}
            for b, term in binding_labels(cp):
                ax.annotate(term, (b, at[b] / 1e6), xytext=(0, 5), textcoords="offset points",
                            ha="center", va="bottom", fontsize=8.5, color=col, style="italic",
                            gid="f5-binding")
        xc = cl["crossing"].get(t)
        if xc:
            allv += line_of(ax, xc, 1, col, linestyle=":", linewidth=1.8, gid="f5-crossing")
        xs += x
    batch_axis(ax, xs, "batch size, configured (items per transfer)")
    ax.set_ylabel("throughput (million items/s)")
    value_axis(ax, allv)
    trip_axis(ax, p.get("trip_ns"))
    annotate_title(ax, "%scapacity (solid) against the ceiling (dashed)" % (
        "%s: " % queue if len(p["queues"]) > 1 else ""), p.get("binding_note"))


def draw_share(ax, p, tcolors):
    """The closed loop's share of its ceiling, per batch (marker per queue
    where there are several)."""
    xs = []
    several = len(p["queues"]) > 1
    for j, (queue, cl) in enumerate(p["queues"]):
        for i, t in enumerate(cl["threads"]):
            cp = [q for q in cl["lines"][t] if q[5]]
            if not cp:
                continue
            ax.errorbar([q[0] for q in cp], [100 * q[1] / q[5] for q in cp],
                        yerr=[[100 * (q[1] - q[2]) / q[5] for q in cp],
                              [100 * (q[3] - q[1]) / q[5] for q in cp]],
                        color=tcolors[t], marker=MARKERS[(j if several else i) % len(MARKERS)],
                        markersize=6, linewidth=1.8, capsize=3,
                        linestyle="-" if len(cp) > 1 else "none")
            xs += [q[0] for q in cp]
    if not xs:
        no_data(ax, "measured / ceiling:\nceiling not available")
        return
    share_axis(ax, xs, "batch size, configured (items per transfer)",
               "capacity / ceiling (%)", "share of the ceiling reached", p.get("share_note"))


def share_axis(ax, xs, xlabel, ylabel, title, note):
    """A panel of shares of the ceiling: the batch axis, 0 up to at least 105%, 100% dashed."""
    batch_axis(ax, xs, xlabel)
    ax.axhline(100, color="black", linewidth=1.0, linestyle="--")
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, max(105, ax.get_ylim()[1]))
    annotate_title(ax, title, note)


def draw(axes, p, show_legend=True, tcolors=None):
    """F5's main figure: a panel per queue of the closed loop's capacity
    against its ceiling, then its share of the ceiling."""
    tcolors = tcolors or thread_colors(p["threads"])
    n = len(p["queues"])
    if not n:
        no_data(axes[0], "closed loop (the capacity):\nnot in these results\n"
                         "(f5-ceiling.exp: load = closed;\nthe open loop: supplement)")
        axes[0].set_title("closed loop: capacity against the ceiling", fontsize=11)
        if len(axes) > 1:
            no_data(axes[1], "measured / ceiling:\nno closed loop")
        for a in axes[2:]:
            no_data(a, "")
        return
    for ax, (queue, cl) in zip(axes, p["queues"]):
        draw_closed(ax, p, queue, cl, tcolors)
    if len(axes) > n:
        draw_share(axes[n], p, tcolors)
    for a in axes[n + 1:]:
        no_data(a, "")
    if show_legend:
        legend_of(axes[min(n, len(axes) - 1)], p, tcolors)


def legend_of(ax, p, tcolors):
    """The main figure's legend: only the marks drawn."""
    several = len(p["queues"]) > 1
    h = [fig_draw.handle(color=tcolors[t], marker=MARKERS[0 if several else i % len(MARKERS)],
                         linewidth=1.8, label="%d threads" % t)
         for i, t in enumerate(p["threads"])]
    if several:
        h += [fig_draw.handle(color="0.3", marker=MARKERS[j % len(MARKERS)], linestyle="none",
                              label="%s (share panel)" % q)
              for j, (q, _cl) in enumerate(p["queues"])]
    if p["has_ceiling"]:
        h.append(grey("--", 1.4, "ceiling (model), same colour"))
    if p.get("crossing"):
        h.append(grey(":", 1.8, "crossing term: the interconnect alone\n(%s)" % STUDY_WORDS))
    h += [fig_draw.handle(linestyle="none", label="binding %s" % BINDING_WORDS.get(term, term))
          for term in p["terms"]]
    h += fig_draw.mark_handles(over=any(is_over(q) for _q, cl in p["queues"]
                                        for pts in cl["lines"].values() for q in pts))
    fig_draw.legend_outside(ax, h, fontsize=9)


#: the supplement's drawing, by the name plot.DRAW knows it
draw_open = draw_f5


# --------------------------------------------------------------------------
# gnuplot: the data file


def dat_f5_open(name, p):
    """The supplement's data: a block per thread count of the open loop."""
    cols = ["items_per_transfer", "median_ops_per_s", "min_ops_per_s", "max_ops_per_s",
            "reps", "color_rgb", "ceiling_ops_per_s", "ratio_median", "ratio_min",
            "ratio_max", "harness_ops_per_s", "harness_bound", "oversubscribed", "batch",
            "realized_over_configured", "realized"]
    out = dat_header(name, p, "throughput vs the realized batch (items per cross-node "
                     "transfer, median over the reps of each point; realized 0: not "
                     "recorded, the configured batch instead), one block per thread "
                     "count, its name first, rows in the order of the configured batch "
                     "(column batch, the label beside each point); ceiling per point "
                     "(NaN: none); harness_ops_per_s: the harness alone, the null queue, "
                     "median per point (NaN: not measured)", cols)
    tcol = thread_colors(p["threads"])
    for t in p["threads"]:
        out += FC.block("%d threads" % t, cols, [
            [*map(g, q[:4]), "%d" % q[4], rgb_int(tcol[t]), g(q[5])]
            + [g(v / q[5] if q[5] else None) for v in q[1:4]]
            + [g(q[6]), is_bound(q), ov_col(q[7]), q[8],
               g(q[9] / q[8] if q[9] is not None else None), int(q[9] is not None)]
            for q in p["lines"][t]])
    return out


#: the closed-loop block of f5-ceiling.dat (cl_ in scripts/gnuplot/f5-ceiling.gp)
CLOSED_COLUMNS = ["threads", "batch", "median_ops_per_s", "lo_ops_per_s", "hi_ops_per_s",
                  "n", "color_rgb", "ceiling_ops_per_s", "ratio", "binding", "binding_label",
                  "oversubscribed", "has_closed", "crossing_ops_per_s", "queue", "panel"]


def dat_f5(name, p):
    """The main figure's data: one block, the closed loop, a series per queue
    and thread count (a blank line between), panel the queue's (0, 1, ...)."""
    g = FC.g
    tcol = thread_colors(p["threads"])
    rows = []
    for j, (queue, cl) in enumerate(p["queues"]):
        for t in cl["threads"]:
            pts = cl["lines"][t]
            named = dict(binding_labels(pts))
            xc = dict(cl["crossing"].get(t, []))
            for q in pts:
                rows.append([t, q[0], *map(g, q[1:4]), q[4], rgb_int(tcol[t]),
                             g(q[5]), g(q[1] / q[5] if q[5] else None), q[6] or "none",
                             named.get(q[0], "-"), ov_col(q[7]), 1, g(xc.get(q[0])), queue, j])
            rows.append("")
    out = dat_header(name, p, "the closed loop's capacity per configured batch against its "
                     "ceiling, a series per queue and thread count", CLOSED_COLUMNS)
    return out + FC.block("closed loop", CLOSED_COLUMNS, rows, empty=[
        [1, 1, "NaN", "NaN", "NaN", 0, 0, "NaN", "NaN", "none", "-", "NaN", 0, "NaN", "-", 0]],
                    note="binding: the ceiling's binding term (ceiling.binding); "
                         "binding_label: the term where it is named (the first point of a "
                         "line and where it changes), '-' elsewhere; has_closed 0: none ran; "
                         "crossing_ops_per_s: the model's crossing term (the interconnect "
                         "alone: where the study puts the ceiling), NaN: none")
