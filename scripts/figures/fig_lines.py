# SPDX-License-Identifier: BSD-2-Clause
"""fig_lines.py - a throughput figure by variant (F2: by look-up mode).

Each variant's runs split by (pace, regime) (scripts/common/regime.py): a closed-loop
run lands near empty (the consumer waits) or full (the producer waits), and
the two differ several-fold; a median over both would measure the mix. Each
group is drawn apart, as the peers figure draws them (fig_peers.py): marker
shape per regime, fill per pace, n beside the dot where a variant's runs
split. An older table (no regime known) keeps one group per variant, drawn
with the variant's own marker.

Several thread counts: a line per variant and group against threads (fig_draw's
draw_series; line style per pace). One thread count (a small host: 2 CPUs
give one): a "vs threads" axis with one x value would scatter the variants
around it and draw each ceiling as a segment in its own colour; instead the
variants go on x as categories, a dot per group with its median's interval,
the variant's ceiling a short black bar over its slot, the harness alone (the
null queue through the same code) a short grey dash-dot bar.

The data file (.dat) holds both shapes: a points block (one row per variant,
group and thread count, series apart by a blank line, x the slot or the
threads shifted as draw_series shifts them), the ceiling lines (several thread
counts) and the harness alone, each block naming its columns.

prep prepares the figure once; draw (matplotlib) and dat_lines (the data
file of the gnuplot script) render that preparation.
"""

from ..analysis import nrdata
from . import fig_common as FC
from . import fig_draw
from .fig_draw import (
    annotate_title, dodger, draw_series, HARNESS_STYLE, legend, mark_oversub, ring_bound,
    value_axis)
from .fig_gnuplot import dat_header, is_bound, ov_col, SEE_BLOCKS
from .fig_host import (
    bound_count, caption_lines, ceiling_groups, color_of, HARNESS_LABEL, harness_line,
    harness_of, harness_status, is_over, marker_of, order_of, oversub_status,
    pooled_note, rgb_int, series_by, variant_label)


FAMILY_WORDS = {"lookup": "look-up mode"}


def words(fam):
    return FAMILY_WORDS.get(fam, fam)


# --------------------------------------------------------------------------
# Preparing

def series_by_group(host, rows, family):
    """({(variant, group): [(threads, med, lo, hi, n, ceiling, harness,
    oversubscribed, coverage)]}, the variants in order, the groups in order,
    the ceiling lines (ceiling_groups), {variant: {threads: ceiling}}): lo..hi
    the median's order-statistic interval (series_by), harness the median
    harness_ops_per_s of the group's runs, the ceiling the variant's as drawn
    (Ceiling.drawn: the highest of its groups' medians of each run's own
    ceiling)."""
    ceil = host.ceiling.drawn(rows, lambda r: (r.get(family, ""), nrdata.threads(r)))
    series = series_by(rows, lambda r: (r.get(family, ""), FC.group_of(r), nrdata.threads(r)),
                       ceiling=lambda k: ceil.get((k[0], k[2])))
    ceiling = {}
    for (v, t), c in ceil.items():
        ceiling.setdefault(v, {})[t] = c
    order = order_of(family, {v for v, _g in series})
    return (series, order, FC.group_order({g for _v, g in series}),
            ceiling_groups(ceiling, order), ceiling)


def prep(host, exp, family, title, annotate, rows=None):
    """A throughput figure by ``family`` (F2: lookup), each variant's regimes apart.
    ``title``: fn(series) -> the title; ``annotate``: fn(series) -> the line
    under the title or None; ``rows``: the runs drawn (default: every run of
    ``exp``; F2's main figure: those of one group)."""
    rows = host.data[exp] if rows is None else rows
    series, order, groups, ceiling, _c = series_by_group(host, rows, family)
    p = {
        "kind": "lines", "family": family, "title": title(series), "series": series,
        "order": order, "groups": groups, "known": FC.regimes_known(groups),
        "labels": {v: variant_label(family, v, rows) for v in order},
        "ceiling": ceiling,
        "ylabel": "throughput (million items/s)", "scale": 1e-6, "rows": rows,
        "harness": harness_line(rows, nrdata.threads),
    }
    p["annotation"] = annotate(series)
    categorize(p)
    p["drawn"] = drawn_line(p)
    key = (lambda r: (r.get(family), FC.group_of(r), nrdata.threads(r)))
    extra = [host.ceiling.status(), harness_status(rows, bound_count(series)),
             oversub_status(rows, key), FC.split_words(rows) or None,
             pooled_note(rows, key)]
    p["caption"] = caption_lines(host, rows, extra)
    return p


def categorize(p):
    """Mark a "lines" figure with one thread count categorical; its variants'
    slots: [{variant, label, points: [(group, point)], point (the first),
    ceiling, harness}] (harness: the median over all the variant's runs)."""
    xs = sorted({q[0] for pts in p["series"].values() for q in pts})
    p["categorical"] = len(xs) == 1
    p["threads"] = xs
    # some variant's runs split into more than one group: n is then drawn
    p["split"] = any(len([g for g in p["groups"] if (v, g) in p["series"]]) > 1
                     for v in p["order"])
    p["slots"] = []
    if not p["categorical"]:
        return
    fam = p["family"]
    hs = harness_of(p["rows"], lambda r: r.get(fam, ""))
    for v in p["order"]:
        pts = [(g, p["series"][(v, g)][0]) for g in p["groups"] if (v, g) in p["series"]]
        if not pts:
            continue
        h = hs.get(v)
        p["slots"].append({"variant": v, "label": p["labels"].get(v, v), "points": pts,
                           "point": pts[0][1], "ceiling": pts[0][1][5],
                           "harness": h[0] if h else None})


def slot_x(i, k, n):
    """The x of the k-th of n groups in slot i."""
    return i + FC.spread(k, n, 0.44)


def drawn_line(p):
    """The caption's line of what is drawn."""
    ns = [q[4] for pts in p["series"].values() for q in pts]
    fam = words(p["family"])
    regimes = (" and regime (shape%s%s)" % (
        "; fill: pace" if any(g[0] != "free" for g in p["groups"]) else "",
        "; n beside it where a %s's runs split" % fam
        if p.get("split") and p.get("categorical") else "")
        if p.get("known") else "")
    if p.get("categorical"):
        return ("a dot per %s%s at %d threads: the median of its runs, %s; black bar: its "
                "ceiling (model); grey dash-dot bar: the harness alone (null queue)" % (
                    fam, regimes, p["threads"][0], FC.whisker_words(ns)))
    return ("a line per %s%s against threads: the median of its runs, %s; dashed: the "
            "ceiling (model); grey dash-dot: the harness alone (null queue)" % (
                fam, regimes, FC.whisker_words(ns)))


# --------------------------------------------------------------------------
# Drawing

def draw(axes, p, show_legend=True):
    ax = axes[0]
    if p.get("categorical"):
        draw_categories(ax, p, show_legend)
    else:
        draw_threads(ax, p, show_legend)


def draw_categories(ax, p, show_legend=True):
    fam, scale = p["family"], p["scale"]
    vals, cvals = [], []
    have_c = have_h = False
    for i, s in enumerate(p["slots"]):
        color = color_of(fam, s["variant"])
        for k, (g, q) in enumerate(s["points"]):
            vals += slot_dot(ax, slot_x(i, k, len(s["points"])), q, scale, (9, 4, 1.3),
                             "slot-%s" % s["variant"], "slot-n" if p["split"] else None,
                             p["known"] and g[0] == "consumer-paced",
                             # shape per regime, fill per pace; else the variant's own
                             **(FC.group_style(g, color) if p["known"] else
                                dict(marker=marker_of(fam, s["variant"]), color=color)))
        if s["ceiling"]:
            FC.level_mark(ax, i, s["ceiling"] * scale, color="black", linewidth=2.4, zorder=3,
                          gid="slot-ceiling")
            cvals.append(s["ceiling"] * scale)
            have_c = True
        if s["harness"]:
            FC.level_mark(ax, i, s["harness"] * scale, color=HARNESS_STYLE["color"],
                          linewidth=2.0, linestyle=(0, (5, 2, 1.5, 2)), zorder=3,
                          gid="slot-harness")
            vals.append(s["harness"] * scale)
            have_h = True
    category_panel(ax, p, vals, cvals, {"lookup": "node look-up mode"}.get(fam, fam))
    if show_legend:
        h = FC.regime_legend(p["groups"]) if p["known"] else [fig_draw.handle(
            color="0.3", marker="o", linestyle="none", markersize=8, label="median of the runs")]
        h.append(fig_draw.whisker_handle())
        if have_c:
            h.append(fig_draw.handle(color="black", linewidth=2.4, label="ceiling (model), "
                                     "per %s" % words(fam)))
        if have_h:
            h.append(fig_draw.handle(color=HARNESS_STYLE["color"], linewidth=2.0,
                                     linestyle=(0, (5, 2, 1.5, 2)), label=HARNESS_LABEL))
        pts = [q for s in p["slots"] for _g, q in s["points"]]
        h += fig_draw.mark_handles(any(is_bound(q) for q in pts), any(is_over(q) for q in pts),
                                   p["split"] and "n beside a dot: its runs")
        fig_draw.legend_outside(ax, h)


def category_panel(ax, p, vals, cvals, xlabel):
    """The value axis of a categorical panel over its dots' whiskers ``vals``
    and its ceilings ``cvals`` (one far above the dots kept within 30x their
    top), the slots' labels under ``xlabel``, and the annotation over it."""
    top = max(vals) if vals else 1.0
    value_axis(ax, vals + [min(c, top * 30) for c in cvals])
    FC.category_axis(ax, [s["label"] for s in p["slots"]], xlabel, rotate=0)
    ax.set_ylabel(p["ylabel"])
    if p.get("annotation"):
        ax.set_title(p["annotation"], fontsize=11)


def slot_dot(ax, x, q, scale, size, gid, ngid, inside, **style):
    """A point (x, q) as a dot with its whisker, ``size`` (marker size, cap
    size, whisker width); n beside it (gid ngid, None: not), a dot inside
    (consumer-paced), ring and black x where harness-bound and oversubscribed;
    returns its whisker's ends."""
    y = q[1] * scale
    ax.errorbar([x], [y], yerr=[[max(0.0, y - q[2] * scale)], [max(0.0, q[3] * scale - y)]],
                linestyle="none", markersize=size[0], capsize=size[1], elinewidth=size[2],
                zorder=4, gid=gid, **style)
    if inside:
        FC.dot_inside(ax, x, y, style["color"])
    if ngid:
        FC.n_beside(ax, x, y, q[4], gid=ngid)
    ring_bound(ax, [x], [q], scale)
    mark_oversub(ax, [x], [q], scale, label=False)
    return [q[2] * scale, q[3] * scale]


def line_series(p):
    """(series, order, colors, styles, labels, hollow) for draw_series: a line
    per variant and group, line style per pace, marker per regime (the
    variant's own marker where regimes are not known)."""
    fam = p["family"]
    series, colors, styles, labels, hollow = {}, {}, {}, {}, set()
    for v in p["order"]:
        for g in p["groups"]:
            pts = p["series"].get((v, g))
            if not pts:
                continue
            k = "%s|%s|%s" % (v, g[0], g[1])
            series[k], colors[k] = pts, color_of(fam, v)
            if p["known"]:
                styles[k] = (FC.PACE_DASH.get(g[0], "-"), FC.REGIME_MARKER.get(g[1], "D"))
                labels[k] = "_" + k
                if g[0] != "free":
                    hollow.add(k)
            else:
                styles[k] = ("-", marker_of(fam, v))
                labels[k] = p["labels"].get(v, v)
    return series, list(series), colors, styles, labels, hollow


def draw_threads(ax, p, show_legend=True):
    series, order, colors, styles, labels, hollow = line_series(p)
    draw_series(ax, series, order, p["family"], labels, p["scale"], p["ceiling"],
                p["ylabel"], harness=p.get("harness"), colors=colors, styles=styles,
                hollow=hollow)
    annotate_title(ax, None, p["annotation"])
    if not show_legend:
        return
    if not p["known"]:
        legend(ax, outside=len(p["order"]) > 5)
        return
    h = [fig_draw.handle(color=color_of(p["family"], v), linewidth=2,
                         label=p["labels"].get(v, v)) for v in p["order"]]
    h += FC.regime_legend(p["groups"], line=True)
    h += [hh for hh, _n in fig_draw.drawn_handles(ax)]
    legend(ax, outside=True, handles=h, labels=[x.get_label() for x in h])


# --------------------------------------------------------------------------
# Data files

#: the blocks of a lines figure's .dat, each with its '# columns:' line; the .gp
#: names the columns it reads (pt_, ce_, hn_ = N) and the tests check them
LINES_BLOCKS = (
    ("points", ["variant", "vidx", "threads", "x", "median_ops_per_s", "lo_ops_per_s",
                "hi_ops_per_s", "n", "coverage", "color_rgb", "ceiling_ops_per_s",
                "harness_ops_per_s", "harness_bound", "oversubscribed", "categorical",
                "nvariants", "group", "gidx", "pt", "dot", "dt", "shown_n", "first_in_slot",
                "slot_harness_ops_per_s", "regime_known"]),
    ("ceiling (model)", ["threads", "ceiling_ops_per_s", "color_rgb"]),
    ("harness alone (null queue)", ["threads", "median_ops_per_s", "min_ops_per_s",
                                    "max_ops_per_s", "reps"]),
)


def group_key(g):
    return "%s/%s" % (g[0], g[1] or "unknown")


def dat_lines(name, p):
    g = FC.g
    fam = p["family"]
    out = dat_header(name, p, "throughput by %s, each (pace, regime) group of its runs "
                     "apart: three blocks, each its name and its columns: the points (one "
                     "row per %s, group and thread count, the median of the group's runs "
                     "and its interval lo..hi; series apart by a blank line; x: the %s's "
                     "slot, its groups spread over it, where there is one thread count "
                     "(categorical 1; first_in_slot 1: the row that carries the slot's "
                     "ceiling and harness bars), else the threads shifted sideways; pt, "
                     "dot, dt: gnuplot's point type (shape: regime; filled: free; 7 where "
                     "the regime is not recorded: regime_known 0), a dot inside "
                     "(consumer-paced), dash (pace); shown_n 1: n beside the dots), the "
                     "ceiling lines (several "
                     "thread counts; one sub-block per line) and the harness alone (the "
                     "null queue; NaN: not measured)" % (fam, fam, fam),
                     SEE_BLOCKS)
    cat = bool(p.get("categorical"))
    xs = p["threads"]
    keys = [(v, gr) for v in p["order"] for gr in p["groups"] if (v, gr) in p["series"]]
    dodge = dodger(xs, len(keys))
    slot_of = {s["variant"]: (i, s) for i, s in enumerate(p["slots"])}
    rows = []
    for i, v in enumerate(p["order"]):
        label = p["labels"].get(v, v).replace("\n", " ").replace(" ", "_")
        gs = [gr for gr in p["groups"] if (v, gr) in p["series"]]
        for k, gr in enumerate(gs):
            # shape per regime where regimes are known, else a filled circle
            pt, dot = FC.group_pt(gr) if p.get("known") else (7, 0)
            si, slot = slot_of.get(v, (i, None))
            for q in p["series"][(v, gr)]:
                x = slot_x(si, k, len(gs)) if cat else dodge(q[0], keys.index((v, gr)))
                rows.append([label, si if cat else i, q[0], "%.6g" % x, g(q[1]), g(q[2]),
                             g(q[3]), q[4], g(q[8] if len(q) > 8 else None),
                             rgb_int(color_of(fam, v)), g(q[5]), g(q[6]), is_bound(q),
                             ov_col(q[7] if len(q) > 7 else None), int(cat),
                             len(p["order"]), group_key(gr), p["groups"].index(gr), pt, dot,
                             FC.PACE_GP_DT.get(gr[0], 1) if p.get("known") else 1,
                             int(bool(p.get("split"))), int(cat and k == 0),
                             g(slot["harness"] if slot else None), int(bool(p.get("known")))])
            rows.append("")
    out += FC.block(*LINES_BLOCKS[0], rows, empty=[[
        "none", 0, 1, 1, "NaN", "NaN", "NaN", 0, "NaN", 0, "NaN", "NaN", 0, "NaN", int(cat), 1,
        "none", 0, 7, 0, 1, 0, 0, "NaN", 0]])
    crow = []
    if not cat:
        for k, grp in enumerate(p["ceiling"] or []):
            col = 0 if k == 0 else rgb_int(color_of(fam, grp["variants"][0]))
            crow += [[x, g(c), col] for x, c in grp["points"]] + [""]
    out += FC.block(*LINES_BLOCKS[1], crow, empty=[[x, "NaN", 0] for x in xs or [1]])
    hrow = [[q[0], g(q[1]), g(q[2]), g(q[3]), q[4]] for q in p.get("harness") or []]
    out += FC.block(*LINES_BLOCKS[2], hrow, empty=[[x, "NaN", "NaN", "NaN", 0] for x in xs or [1]])
    return out
