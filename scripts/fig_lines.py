"""fig_lines.py - a throughput figure by variant (F2: by look-up mode).

Several thread counts: a line per variant against threads (plot.py's
draw_series). One thread count (a small host: 2 CPUs give one): a "vs
threads" axis with one x value would scatter the variants around it and draw
each ceiling as a segment in its own colour; instead the variants go on x as
categories, a dot per variant with its median's interval, its ceiling a short
black bar over its slot, the harness alone (the null queue through the same
code) a short grey dash-dot bar.

The data file (.dat) holds both shapes: a points block (one row per variant
and thread count, series apart by a blank line, x the slot or the threads
shifted as draw_series shifts them), the ceiling lines (several thread
counts) and the harness alone, each block naming its columns.

Uses plot.py's helpers through ``P`` (bound by plot.py at import).
"""

import fig_common as FC

P = None


def bind(ns):
    global P
    P = ns


def categorize(p):
    """Mark a "lines" figure with one thread count categorical; its variants'
    slots: [{variant, label, point}] (point: the series' one tuple)."""
    xs = sorted({q[0] for pts in p["series"].values() for q in pts})
    p["categorical"] = len(xs) == 1
    p["threads"] = xs
    p["slots"] = [{"variant": v, "label": p["labels"].get(v, v), "point": p["series"][v][0]}
                  for v in p["order"] if p["series"].get(v)] if p["categorical"] else []
    return p


def draw_categories(ax, p, show_legend=True):
    fam, scale = p["family"], p["scale"]
    vals, cvals = [], []
    have_c = have_h = False
    for i, s in enumerate(p["slots"]):
        q = s["point"]
        color = P.color_of(fam, s["variant"])
        y = q[1] * scale
        ax.errorbar([i], [y], yerr=[[max(0.0, y - q[2] * scale)], [max(0.0, q[3] * scale - y)]],
                    linestyle="none", marker=P.marker_of(fam, s["variant"]), markersize=9,
                    color=color, capsize=4, elinewidth=1.3, zorder=4,
                    gid="slot-%s" % s["variant"])
        P.ring_bound(ax, [i], [q], scale)
        P.mark_oversub(ax, [i], [q], scale, label=False)
        vals += [q[2] * scale, q[3] * scale]
        if q[5]:
            FC.level_mark(ax, i, q[5] * scale, color="black", linewidth=2.4, zorder=3,
                          gid="slot-ceiling")
            cvals.append(q[5] * scale)
            have_c = True
        if q[6]:
            FC.level_mark(ax, i, q[6] * scale, color=P.HARNESS_STYLE["color"], linewidth=2.0,
                          linestyle=(0, (5, 2, 1.5, 2)), zorder=3, gid="slot-harness")
            vals.append(q[6] * scale)
            have_h = True
    top = max(vals) if vals else 1.0
    P.value_axis(ax, vals + [min(c, top * 30) for c in cvals])
    FC.category_axis(ax, [s["label"] for s in p["slots"]],
                     {"lookup": "node look-up mode"}.get(fam, fam), rotate=0)
    ax.set_ylabel(p["ylabel"])
    if p.get("annotation"):
        ax.set_title(p["annotation"], fontsize=11)
    if show_legend:
        plt = P.plt
        h = [plt.Line2D([], [], color="0.3", marker="o", linestyle="none", markersize=8,
                        label="median of the runs"),
             plt.Line2D([], [], color="black", marker="|", linestyle="none", markersize=10,
                        label="whisker: the median's interval")]
        if have_c:
            h.append(plt.Line2D([], [], color="black", linewidth=2.4, label="ceiling (model), "
                                "per %s" % {"lookup": "look-up mode"}.get(fam, fam)))
        if have_h:
            h.append(plt.Line2D([], [], color=P.HARNESS_STYLE["color"], linewidth=2.0,
                                linestyle=(0, (5, 2, 1.5, 2)), label=P.HARNESS_LABEL))
        if any(P.is_bound(s["point"]) for s in p["slots"]):
            h.append(plt.Line2D([], [], linestyle="none", marker="o", markersize=13,
                                markerfacecolor="none", markeredgecolor="0.35",
                                label="ringed: within 20% of the harness alone"))
        if any(P.is_over(s["point"]) for s in p["slots"]):
            h.append(plt.Line2D([], [], **P.OVERSUB_STYLE, label=P.OVERSUB_LABEL))
        ax.legend(handles=h, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False,
                  borderaxespad=0.0)


def drawn_line(p):
    """The caption's line of what is drawn."""
    ns = [q[4] for pts in p["series"].values() for q in pts]
    if p.get("categorical"):
        return ("a dot per %s at %d threads: the median of its runs, %s; black bar: its "
                "ceiling (model); grey dash-dot bar: the harness alone (null queue)" % (
                    {"lookup": "look-up mode"}.get(p["family"], p["family"]),
                    p["threads"][0], FC.whisker_words(ns)))
    return ("a line per %s against threads: the median of its runs, %s; dashed: the "
            "ceiling (model); grey dash-dot: the harness alone (null queue)" % (
                {"lookup": "look-up mode"}.get(p["family"], p["family"]),
                FC.whisker_words(ns)))


#: the blocks of a lines figure's .dat, each with its '# columns:' line; the .gp
#: names the columns it reads (pt_, ce_, hn_ = N) and the tests check them
LINES_BLOCKS = (
    ("points", ["variant", "vidx", "threads", "x", "median_ops_per_s", "lo_ops_per_s",
                "hi_ops_per_s", "n", "coverage", "color_rgb", "ceiling_ops_per_s",
                "harness_ops_per_s", "harness_bound", "oversubscribed", "categorical",
                "nvariants"]),
    ("ceiling (model)", ["threads", "ceiling_ops_per_s", "color_rgb"]),
    ("harness alone (null queue)", ["threads", "median_ops_per_s", "min_ops_per_s",
                                    "max_ops_per_s", "reps"]),
)


def dat_lines(name, p):
    g = FC.g
    fam = p["family"]
    out = P.dat_header(name, p, "throughput by %s: three blocks, each its name and its "
                       "columns: the points (one row per %s and thread count, the median of "
                       "its runs and its interval lo..hi; series apart by a blank line; x: "
                       "the %s's slot where there is one thread count (categorical 1), "
                       "else the threads shifted sideways), the ceiling lines (several "
                       "thread counts; one sub-block per line) and the harness alone (the "
                       "null queue; NaN: not measured)" % (fam, fam, fam),
                       ["see each block's '# columns:' line"])
    cat = bool(p.get("categorical"))
    xs = sorted({q[0] for pts in p["series"].values() for q in pts})
    dodge = P.dodger(xs, len(p["order"]))
    rows = []
    for i, v in enumerate(p["order"]):
        label = p["labels"].get(v, v).replace("\n", " ").replace(" ", "_")
        for q in p["series"][v]:
            rows.append([label, i, q[0], "%.6g" % (i if cat else dodge(q[0], i)), g(q[1]),
                         g(q[2]), g(q[3]), q[4], g(q[8] if len(q) > 8 else None),
                         P.rgb_int(P.color_of(fam, v)), g(q[5]), g(q[6]), P.is_bound(q),
                         P.ov_col(q[7] if len(q) > 7 else None), int(cat), len(p["order"])])
        rows.append("")
    if not rows:
        rows = [["none", 0, 1, 1, "NaN", "NaN", "NaN", 0, "NaN", 0, "NaN", "NaN", 0, "NaN",
                 int(cat), 1]]
    out += FC.block(LINES_BLOCKS[0][0], LINES_BLOCKS[0][1], rows)
    crow = []
    if not cat:
        for k, grp in enumerate(p["ceiling"] or []):
            col = 0 if k == 0 else P.rgb_int(P.color_of(fam, grp["variants"][0]))
            crow += [[x, g(c), col] for x, c in grp["points"]] + [""]
    if not any(not isinstance(r, str) for r in crow):
        crow = [[x, "NaN", 0] for x in xs or [1]]
    out += FC.block(LINES_BLOCKS[1][0], LINES_BLOCKS[1][1], crow)
    hrow = [[q[0], g(q[1]), g(q[2]), g(q[3]), q[4]] for q in p.get("harness") or []]
    if not hrow:
        hrow = [[x, "NaN", "NaN", "NaN", 0] for x in xs or [1]]
    out += FC.block(LINES_BLOCKS[2][0], LINES_BLOCKS[2][1], hrow)
    return out
