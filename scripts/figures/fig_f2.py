# SPDX-License-Identifier: BSD-2-Clause
"""fig_f2.py - F2's figure (f2-node-cache): remembering the node, throughput
by look-up mode, and its supplement figure f2-node-cache-regimes; the ratio
both print is cached against libnuma (summarize.f2).

The main figure answers one question: how much does remembering the node
raise throughput? One mark per look-up mode (a dot with its median's
interval; several thread counts: a line per mode against threads), each from
the runs of one (pace, regime) group, the one the design fixes: the group
summarize.f2 quotes its ratio in (on a sweep pinned by its pace, the
experiment's paced regime), else the group most modes ran in
(fig_common.design_group). The physical ceiling (model) is drawn once: one
black line across the panel (one thread count) where the modes' ceilings
coincide, as the ceiling lines of fig_lines where they span threads; a mode
whose own ceiling differs keeps a short bar in its colour over its slot. The
harness alone (the null queue through the same code) is drawn once, a grey
dash-dot line. Beside cached's mark at the thread count the ratio is quoted
at, the study's value (claims_table's F2.study-6x: 6-7x libnuma's
throughput) as a band from 6x to 7x this host's libnuma median.

The supplement (f2-node-cache-regimes, prep_regimes): every group of each
mode's runs apart, drawn by fig_lines.py as before (kind "lines": shape per
regime, fill per pace, n beside a dot, each mode's ceiling and harness over
its slot).

prep_f2 prepares the figure once; draw (matplotlib) and dat (the data file of
scripts/gnuplot/f2-node-cache.gp, its columns read by name) render it; the
supplement's are fig_lines.draw and fig_lines.dat_lines
(scripts/gnuplot/f2-node-cache-regimes.gp).
"""

from . import fig_common as FC
from . import fig_draw
from . import fig_lines
from .fig_common import condensed
from .fig_draw import HARNESS_STYLE
from .fig_f1 import design_of, regime_col
from .fig_host import (
    add_paired_words, color_of, compared, HARNESS_LABEL, is_bound, is_over, marker_of,
    order_of, paired_in_notes, rgb_int, Said, STUDY, summary_of, what_varies)

#: the study's F2: cached's throughput this many times libnuma's, a range
#: (claims_table's F2.study-6x range, which scripts/tests/test_regimes_apart_figure
#: holds this to: the figures draw without the analysis' ceiling model, which
#: claims_table imports)
STUDY_RANGE = (6.0, 7.0)
#: the study's band (F4's colours)
STUDY_FILL, STUDY_COLOR = "#ffd27f", "#7a5200"
#: the harness alone's line drawn once across a categorical panel
HARNESS_ONCE = dict(HARNESS_STYLE, linestyle=(0, (5, 2, 1.5, 2)))


def annotator(host, said):
    """fn(series) -> the line over the panel: cached / libnuma, summarize.f2's
    (paired per rep at its quoted thread count, within the regime it names),
    beside the study's; None where the figure does not draw both look-ups."""
    def ann(series):
        lookups = compared("f2.cached_over_libnuma")
        variants = {v for v, _g in series}
        r = summary_of(host, "f2") if set(lookups) <= variants else {}
        text = said.text("f2.cached_over_libnuma", r)
        if text is None:
            return None
        return "%s / %s = %s at %d threads%s (%s)" % (
            *lookups, text, r["threads"], said.interval("f2.cached_over_libnuma", r), "; ".join(
                x for x in (FC.regime_words(r), STUDY["f2"]) if x))
    return ann


@condensed
def prep_regimes(host):
    """The supplement: every (pace, regime) group apart (fig_lines)."""
    said = Said()
    p = fig_lines.prep(host, "f2-node-cache", "lookup",
                       lambda series: "F2 by regime: " + what_varies(series, "look-up mode"),
                       annotator(host, said))
    return add_paired_words(p, said)


@condensed
def prep_f2(host):
    said = Said()
    allrows = host.data["f2-node-cache"]
    r, rows, group, _k, words, extra = design_of(host, "f2", allrows, "f2-node-cache-regimes")
    p = fig_lines.prep(host, "f2-node-cache", "lookup",
                       lambda series: "F2: " + what_varies(series, "node look-up mode"),
                       annotator(host, said), rows=rows)
    # one group drawn: no shape per regime, each mode its own marker
    p.update(kind="f2", known=False, group=group, regime_words=words, split=False)
    missing = [m for m in order_of("lookup", {x.get("lookup") for x in allrows})
               if m not in p["order"]]
    if missing:
        extra.append("no %s run: %s (not drawn)" % (words or "drawn", ", ".join(missing)))
    # the ceiling once: the level most modes share; a mode of its own keeps a bar
    ceiling = (p["ceiling"] if p["categorical"] else None) or []
    p["ceiling_once"] = ceiling[0]["points"][0][1] if ceiling else None
    p["ceiling_own"] = [(grp["variants"], grp["points"][0][1]) for grp in ceiling[1:]]
    p["harness_once"] = p["harness"][0][1] if p["categorical"] and p["harness"] else None
    p["study"] = study_of(p, r)
    if p["study"]:
        extra.append("study (yellow band beside cached at %d threads): cached %g\u2013%g\u00d7 "
                     "libnuma's throughput, drawn on this host's libnuma median (%.3g M/s)"
                     % (p["study"]["threads"], STUDY_RANGE[0], STUDY_RANGE[1],
                        p["study"]["libnuma"] / 1e6))
    else:
        extra.append("study's value not drawn: no libnuma and cached runs at one thread count")
    extra.append(FC.whisker_words([q[4] for pts in p["series"].values() for q in pts]))
    p["caption"] = list(p["caption"]) + [(t, None) for t in extra if t]
    p["drawn"] = ("a %s per look-up mode: median throughput, whisker its interval"
                  % ("dot" if p["categorical"] else "line"))
    return paired_in_notes(p, said)


def study_of(p, r):
    """The study's band: {x, threads, libnuma, lo, hi} at the thread count the
    ratio is quoted at (summarize.f2's; else the largest drawn), where libnuma
    and cached both ran there; else None."""
    pts = {v: {q[0]: q for q in p["series"][(v, g)]} for v, g in p["series"]}
    lib, cached = pts.get("libnuma", {}), pts.get("cached", {})
    common = sorted(set(lib) & set(cached))
    if not common:
        return None
    t = r.get("threads") if r.get("threads") in common else common[-1]
    x = [s["variant"] for s in p["slots"]].index("cached") if p["categorical"] else t
    m = lib[t][1]
    return {"x": x, "threads": t, "libnuma": m, "lo": m * STUDY_RANGE[0],
            "hi": m * STUDY_RANGE[1]}


# --------------------------------------------------------------------------
# Drawing

def draw(axes, p, show_legend=True):
    ax = axes[0]
    if p.get("categorical"):
        draw_categories(ax, p)
    else:
        fig_lines.draw_threads(ax, p, show_legend=False)
    study = p.get("study")
    if study:
        s = p["scale"]
        ax.plot([study["x"]] * 2, [study["lo"] * s, study["hi"] * s], color=STUDY_FILL,
                linewidth=14, solid_capstyle="butt", alpha=0.8, zorder=1, gid="f2-study",
                label="study: cached %g\u2013%g\u00d7 libnuma" % STUDY_RANGE)
        lo, hi = ax.get_ylim()
        if study["hi"] * s * 1.1 > hi:
            ax.set_ylim(lo, study["hi"] * s * 1.1)
    if show_legend:
        h = [hh for hh, _l in fig_draw.drawn_handles(ax)]
        if p.get("categorical"):
            h = [fig_draw.handle(color="0.3", marker="o", linestyle="none", markersize=8,
                                 label="median of the runs (colour per mode)"),
                 fig_draw.whisker_handle()] + h
        pts = [q for qs in p["series"].values() for q in qs]
        h += fig_draw.mark_handles(any(is_bound(q) for q in pts),
                                   any(is_over(q) for q in pts) and p["categorical"])
        fig_draw.legend_outside(ax, h)


def draw_categories(ax, p):
    """One thread count: a dot per mode over its slot, the ceiling and the
    harness alone once across the panel."""
    fam, scale = p["family"], p["scale"]
    vals, cvals = [], []
    for i, sl in enumerate(p["slots"]):
        color = color_of(fam, sl["variant"])
        vals += fig_lines.slot_dot(ax, i, sl["point"], scale, (9, 4, 1.3),
                                   "slot-%s" % sl["variant"], None, False,
                                   marker=marker_of(fam, sl["variant"]), color=color)
    for variants, c in p.get("ceiling_own") or []:
        for v in variants:
            i = [sl["variant"] for sl in p["slots"]].index(v)
            FC.level_mark(ax, i, c * scale, color=color_of(fam, v), linewidth=2.4, zorder=3,
                          gid="f2-ceiling-own",
                          label="ceiling (model) for %s" % v)
        cvals.append(c * scale)
    if p.get("ceiling_once"):
        ax.axhline(p["ceiling_once"] * scale, color="black", linewidth=2.0, zorder=3,
                   gid="f2-ceiling", label="physical ceiling (model)")
        cvals.append(p["ceiling_once"] * scale)
    if p.get("harness_once"):
        ax.axhline(p["harness_once"] * scale, zorder=3, gid="f2-harness", label=HARNESS_LABEL,
                   **HARNESS_ONCE)
        vals.append(p["harness_once"] * scale)
    fig_lines.category_panel(ax, p, vals, cvals, "node look-up mode%s" % (
        " (%d threads, %s runs)" % (p["threads"][0], p["regime_words"]) if p.get("regime_words")
        else " (%d threads)" % p["threads"][0]))
    # the levels named where they are drawn, at the right edge
    lo, hi = ax.get_ylim()
    # (the ceiling's over its line, the harness's under: the two lie close on a small host)
    for y, text, va, gid in ((p.get("ceiling_once"), "ceiling (model)", "bottom",
                              "f2-ceiling-label"),
                             (p.get("harness_once"), "harness alone", "top",
                              "f2-harness-label")):
        if y and lo <= y * scale <= hi:
            ax.text(len(p["slots"]) - 0.45, y * scale, text, ha="right", va=va, fontsize=8,
                    color="0.2", gid=gid)


# --------------------------------------------------------------------------
# The data file

#: the main figure's blocks beyond fig_lines' (points, ceiling lines, harness):
#: the levels drawn once across a one-thread-count panel, and the study's band
#: (scripts/gnuplot/f2-node-cache.gp: lv_, st_<column> = N)
LEVEL_COLUMNS = ["ceiling_ops_per_s", "harness_ops_per_s", "regime"]
OWN_COLUMNS = ["variant", "slot", "ceiling_ops_per_s", "color_rgb"]
STUDY_COLUMNS = ["x", "threads", "libnuma_ops_per_s", "lo_ops_per_s", "hi_ops_per_s",
                 "lo_times", "hi_times"]


def dat(name, p):
    g = FC.g
    out = fig_lines.dat_lines(name, p)
    out += FC.block("levels (one thread count: drawn once across)", LEVEL_COLUMNS, [[
        g(p.get("ceiling_once")), g(p.get("harness_once")),
        regime_col(p.get("regime_words"))]])
    names = [sl["variant"] for sl in p.get("slots") or []]
    own = [[v, names.index(v), g(c), rgb_int(color_of("lookup", v))]
           for vs, c in p.get("ceiling_own") or [] for v in vs]
    out += FC.block("ceiling of its own (one thread count)", OWN_COLUMNS, own,
                    empty=[["none", 0, "NaN", 0]])
    s = p.get("study")
    out += FC.block("study", STUDY_COLUMNS, [[
        "%.6g" % s["x"], s["threads"], g(s["libnuma"]), g(s["lo"]), g(s["hi"]),
        "%g" % STUDY_RANGE[0], "%g" % STUDY_RANGE[1]]] if s else [],
        empty=[[0, 0, "NaN", "NaN", "NaN", "%g" % STUDY_RANGE[0], "%g" % STUDY_RANGE[1]]])
    return out
