# SPDX-License-Identifier: BSD-2-Clause
"""fig_f3b.py - F3's second figure (f3-gate-vs-threads): p50 and p99 latency
against threads by gate (open loop: at the highest offered load). Thread
counts whose runs were oversubscribed go to a separate, tinted third panel
(fig_f3.F3_OVER_TITLE), never into the first two.

prep_f3b prepares it once; draw_f3b (matplotlib) and dat_f3b (the data file
of scripts/gnuplot/f3-gate-vs-threads.gp) render that preparation.
"""

from . import fig_common
from ..analysis import nrdata
from .fig_common import block, condensed
from .fig_draw import annotate_title, draw_series, fmt_ns, legend, legend_outside, no_data
from .fig_f3 import closed_left_out, f3_claim, F3_OVER_TITLE, over_panel
from .fig_gnuplot import dat_header, g, g3, ov_col
from .fig_host import (
    add_paired_words, caption_lines, color_of, load_of, load_pct, marker_of, order_of,
    oversub_of, oversub_status, pct_label, pooled_note, rgb_int, Said, series_by,
    STUDY, what_varies)


@condensed
def prep_f3b(host):
    """p50 and p99 latency vs threads by gate (open loop: at the highest offered
    load). Thread counts whose runs were oversubscribed go to a separate third
    panel (F3_OVER_TITLE), never into the first two."""
    rows = host.data["f3-gate"]
    opened = [r for r in rows if load_of(r)]
    extra, top = [], None
    if opened:
        top = max(load_pct(r) for r in opened)
        extra += closed_left_out(rows, opened)
        rows = [r for r in opened if load_pct(r) == top]
        extra.append("open loop at %s of capacity (the highest offered load; every load in "
                     "f3-gate-percentiles)" % pct_label(top))
    over_ts = sorted(t for t, v in oversub_of(rows, nrdata.threads).items() if v == 1)
    clean = [r for r in rows if nrdata.threads(r) not in over_ts]
    over = [r for r in rows if nrdata.threads(r) in over_ts]
    # {gate: [(threads, med, lo, hi, n, None, None, oversubscribed, coverage)]}
    p50, p99, o50, o99 = (series_by(rs, lambda r: (r.get("gate", ""), nrdata.threads(r)), c,
                                    harness=False) if rs else {}
                          for rs in (clean, over) for c in ("p50_ns", "p99_ns"))
    said = Said()
    r50 = f3_claim(host, said) if clean else None
    ann = "%s (%s)" % (r50[0], STUDY["f3"]) if r50 else None
    clean_ts = sorted({nrdata.threads(x) for x in clean})
    if over_ts:
        extra.append("left: thread counts where every thread has a CPU of its own (%s); "
                     "right, apart: oversubscribed thread counts (%s), where threads share "
                     "CPUs and the scheduler, not the queue, sets the latency (p50 solid, p99 "
                     "dashed)" % (", ".join(map(str, clean_ts)) or "none",
                                  ", ".join(map(str, over_ts))))
    extra += [oversub_status(rows, lambda r: (r.get("gate"), nrdata.threads(r)),
                             mark="the right-hand panel"),
              pooled_note(rows, lambda r: (r.get("gate"), nrdata.threads(r)))]
    title = "F3: enqueue-to-dequeue " + what_varies(p50 or o50, "gate", "latency")
    if top is not None:
        title += ", %s load" % pct_label(top)
    if over_ts:
        title += "; oversubscribed %s threads apart" % ", ".join(map(str, over_ts))
    ns = [q[4] for ser in (p50, p99) for pts in ser.values() for q in pts]
    return add_paired_words({
        "kind": "f3b", "p50": p50, "p99": p99, "over_p50": o50, "over_p99": o99,
        "over_threads": over_ts, "order": order_of("gate", set(p50) | set(p99)),
        "over_order": order_of("gate", set(o50) | set(o99)), "rows": rows,
        "grid": (1, 3 if over_ts else 2),
        "drawn": "p50 (left) and p99 (right) per gate against threads: the median of the "
                 "runs, %s%s" % (fig_common.whisker_words(ns), "; oversubscribed thread "
                                 "counts apart, tinted" if over_ts else ""),
        "title": title, "annotation": ann, "caption": caption_lines(host, rows, extra)}, said)


def draw_f3b(axes, p, show_legend=True):
    """p50 in axes[0], p99 in axes[1], the oversubscribed thread counts in axes[2]."""
    for ax, key, name in ((axes[0], "p50", "median (p50)"), (axes[1], "p99", "p99")):
        series = p[key]
        order = [g for g in p["order"] if g in series]
        if not order:
            no_data(ax, "no thread count where\nevery thread has a CPU"
                    if p.get("over_threads") else "no %s latency" % key)
            ax.set_title(name, fontsize=11)
            continue
        draw_series(ax, series, order, "gate", scale=1.0, ceiling=[],
                    ylabel="%s latency" % name, formatter=fmt_ns, log=True)
        annotate_title(ax, name, p["annotation"] if key == "p50" else None)
        if show_legend and key == "p99":
            legend(ax)
    rest = axes[2:]
    if rest and p.get("over_threads"):
        draw_f3_over(rest[0], p, show_legend)
        rest = rest[1:]
    for ax in rest:
        no_data(ax, "")


def draw_f3_over(ax, p, show_legend=True):
    """The separate panel of F3's oversubscribed thread counts: p50 solid, p99
    dashed, per gate; a tinted background and F3_OVER_TITLE."""
    # one series per gate and percentile, named (and labelled) "<gate> p50"
    drawn = [("%s %s" % (g, tag), g, p[key][g], ls) for g in p["over_order"]
             for key, tag, ls in (("over_p50", "p50", "-"), ("over_p99", "p99", "--"))
             if g in p[key]]
    over_panel(ax)
    if not drawn:
        no_data(ax, "no latency at the oversubscribed thread counts")
    else:
        series = {v: pts for v, _g, pts, _ls in drawn}
        styles = {v: (ls, marker_of("gate", g)) for v, g, _pts, ls in drawn}
        colors = {v: color_of("gate", g) for v, g, _pts, _ls in drawn}
        draw_series(ax, series, list(series), "gate", scale=1.0, ceiling=[],
                    ylabel="latency (p50 solid, p99 dashed)", formatter=fmt_ns, log=True,
                    colors=colors, styles=styles, mark_over=False)
        if show_legend:
            legend_outside(ax, None, fontsize=8.5)


def dat_f3b(name, p):
    cols = ["threads", "p50_median_ns", "p50_min_ns", "p50_max_ns", "reps", "color_rgb",
            "p99_median_ns", "p99_min_ns", "p99_max_ns", "oversubscribed", "over_panel"]
    out = dat_header(name, p, "p50 and p99 latency vs threads by gate; one block per gate, "
                     "its name first; rows with over_panel 1 (oversubscribed thread "
                     "counts) belong to the separate panel (%s), never to the first two"
                     % F3_OVER_TITLE, cols)
    for v in order_of("gate", set(p["order"]) | set(p["over_order"])):
        out += ["", "", '"%s"' % v, "# columns: " + " ".join(cols)]
        for s50, s99, over in ((p["p50"], p["p99"], None), (p["over_p50"], p["over_p99"], 1)):
            p99 = {q[0]: q for q in s99.get(v, [])}
            for q in s50.get(v, []):
                ov = over if over else (q[7] if len(q) > 7 else None)
                out.append(" ".join([g(q[0])] + g3(q) + [
                    "%d" % q[4], "%d" % rgb_int(color_of("gate", v))] + g3(p99.get(q[0])) +
                    [ov_col(ov), "1" if over else "0"]))
    if not any(x and x[0].isdigit() for x in out):
        out += block("no latency", cols, ["1 NaN NaN NaN 0 0 NaN NaN NaN NaN 0"])
    return out
