# SPDX-License-Identifier: BSD-2-Clause
"""fig_f4_draw.py - F4's matplotlib renderer (f4-backoff): a column of panels
per workload, a row per measure (fig_f4.F4_ROWS): throughput by backoff,
each backoff's paired change against none, lost races, time in backoff per
operation, fairness, p99. One thread count: the backoffs on x as categories,
a dot per amount of local work (filled: the least, hollow: more); several:
lines against threads. fig_f4.py prepares the data (and writes the .dat the
gnuplot renderer reads); nothing here computes a value.
"""

from ..analysis import nrdata
from . import fig_common
from . import fig_draw
from . import fig_f4
from .fig_draw import (
    draw_series, fmt_ns, fmt_plain, harness_style, HARNESS_STYLE, mark_oversub, no_data,
    OVERSUB_STYLE, place_labels, ring_bound, threads_axis, value_axis)
from .fig_f4 import (
    F4_FAIR_LINE, F4_ROWS, f4_slot_x, F4_STUDY_BAND, F4_STUDY_COLOR, F4_STUDY_LABEL, work_words)
from .fig_host import color_of, finite_pos, fmt_pct, HARNESS_LABEL, marker_of

#: the study's ink (its words, its slot's edge) and its band's label
STUDY_INK = "#7a5200"
STUDY_WORDS = "%s: \u221215 to \u221230%%" % F4_STUDY_LABEL
#: a level mark over a category slot (the harness alone, none's baseline)
LEVEL_MARK = dict(linestyle="none", marker="_", markersize=16, markeredgewidth=2.4)


def f4_marker(color, j, marker="o"):
    """Filled for the least local work, hollow for more; ``marker``: the shape
    (per regime where a prodcons panel's runs are split: fig_f4)."""
    return dict(marker=marker, color=color, markerfacecolor=color if j == 0 else "white",
                markeredgecolor=color, markeredgewidth=1.6)


def dot(ax, x, y, yerr, **style):
    """A dot at (x, y) and its whisker (yerr: [[below], [above]]), in front of
    the bands and lines; ``style``: its marker (f4_marker's, or fig_f4_spin's)."""
    ax.errorbar([x], [y], yerr=yerr, linestyle="none", markersize=7, capsize=3,
                elinewidth=1.1, zorder=4, **style)


def not_exercised(ax, y, none_failed, prefix="", **kw):
    """A "not exercised" box, its top centred at axes fraction y: none lost
    ``none_failed`` races per item ('?': not recorded); ``prefix``: what it is
    about (an amount of work)."""
    rate = ("%.2g" % (none_failed * 1000)) if none_failed is not None else "?"
    ax.text(0.5, y, "%snot exercised\n(none lost %s races per 1,000 operations)" % (prefix, rate),
            transform=ax.transAxes, ha="center", va="top", fontsize=8, color="0.15",
            zorder=5, gid="f4-not-exercised",
            bbox=dict(boxstyle="round,pad=0.25", fc="white", ec="0.6"), **kw)


def slot_axis(ax, slots, label):
    """x: the slots (the backoffs; the study's) as categories; ``label``: the
    x label too."""
    ax.set_xticks(list(range(len(slots))))
    ax.set_xticklabels(slots)
    # a little more room on the right: the last slot's value label
    ax.set_xlim(-0.55, len(slots) - 0.25)
    ax.xaxis.set_minor_locator(fig_draw.ticker.NullLocator())
    ax.grid(axis="x", visible=False)
    if label:
        ax.set_xlabel("backoff after a lost race")


def draw_f4_slots(ax, p, pn, key, scale=1.0):
    """One thread count: a dot per backoff and amount of work, whisker
    min\u2013max, the harness as a grey level mark at its slot; returns the values
    drawn and the x of values <= 0 (no dot on a log axis: '0' there)."""
    vals, zeros = [], []
    for g in pn["groups"]:
        j = g["j"]
        for b, pts in g[key].items():
            if b not in p["backoffs"]:
                continue
            for q in pts:
                x = f4_slot_x(p, b, j) + g.get("dx", 0.0)
                if q[1] <= 0:
                    if not (key == "bns" and b == "none"):   # none never backs off
                        zeros.append(x)
                    continue
                dot(ax, x, q[1] * scale, [[(q[1] - q[2]) * scale], [(q[3] - q[1]) * scale]],
                    **f4_marker(color_of("backoff", b), j, fig_f4.marker(g)))
                if fig_f4.show_n(g):
                    fig_common.n_beside(ax, x, q[1] * scale, q[4], gid="f4-n")
                vals += [v * scale for v in (q[1], q[2], q[3]) if v > 0]
                if key == "tput":
                    ring_bound(ax, [x], [q], scale)
                mark_oversub(ax, [x], [q], scale)
    if key == "tput":
        # the harness alone: a grey mark per backoff and amount of work (one per
        # slot, not per regime: the null queue has no regime)
        for (b, j), byt in fig_f4.slot_harness(pn, p["backoffs"]).items():
            for h in byt.values():
                ax.plot([f4_slot_x(p, b, j)], [h * scale], color=HARNESS_STYLE["color"],
                        zorder=3, label=HARNESS_LABEL, **LEVEL_MARK)
                vals.append(h * scale)
    return vals, zeros


def draw_f4_lines(ax, p, pn, key, scale=1.0):
    """Several thread counts: a line per backoff and amount of work (solid,
    filled: the least work; dashed, hollow: more), whiskers min\u2013max; the
    harness per amount of work, grey."""
    series, colors, styles, labels, hollow, zeros = {}, {}, {}, {}, set(), []
    for g in pn["groups"]:
        for b in p["backoffs"]:
            if not (key == "bns" and b == "none"):   # none never backs off
                zeros += [q[0] for q in g[key].get(b, []) if q[1] <= 0]
            pts = [q for q in g[key].get(b, []) if q[1] > 0]
            if not pts:
                continue
            k = "%s|%g|%s" % (b, g["work"], fig_common.group_label(g["regime"])
                              if g.get("regime") else "")
            series[k], colors[k] = pts, color_of("backoff", b)
            styles[k] = ("-" if g["j"] == 0 else "--", fig_f4.marker(g) if g.get("regime")
                         else marker_of("backoff", b))
            labels[k] = b + ("" if g["j"] == 0 else ", " + work_words(g["work"]))
            if g["j"]:
                hollow.add(k)
    if not series:
        return [], zeros
    vals = draw_series(ax, series, list(series), "backoff", labels, scale, [], "", colors=colors,
                       styles=styles, hollow=hollow)
    if key == "tput":
        for g in pn["groups"]:
            h = g["harness"]
            if h:
                ax.plot([q[0] for q in h], [q[1] * scale for q in h],
                        label=HARNESS_LABEL if g["j"] == 0 else None, **harness_style(g["j"]))
                vals += [q[1] * scale for q in h]
    return vals, zeros


def f4_value_panel(ax, p, pn, key, bottom, ylabel):
    """One measure (F4_ROWS' key) of one workload: slots (one thread count) or
    lines; the x label in the bottom row, ylabel where given; "0" marks where
    no dot can be drawn, the measure's own words where nothing was recorded."""
    scale = 1e-6 if key == "tput" else 1.0
    if p["categorical"]:
        vals, zeros = draw_f4_slots(ax, p, pn, key, scale)
        slot_axis(ax, p["backoffs"], bottom)
    else:
        vals, zeros = draw_f4_lines(ax, p, pn, key, scale)
        threads_axis(ax, p["threads"], "threads (producers + consumers)"
                     if pn["workload"] == "prodcons" else "threads")
        if not bottom:
            ax.set_xlabel("")
    if ylabel:
        ax.set_ylabel(ylabel)
    pos = [v for v in vals if finite_pos(v)]
    # the harness far above the queue: a log axis, both readable
    log = True if key == "tput" and pos and max(pos) / min(pos) >= 5 else None
    if key == "failed":
        thr = nrdata.BACKOFF_EXERCISED * 1000
        ax.axhline(thr, color="black", linestyle=":", linewidth=1.3, zorder=2,
                   label="%g lost race per 1,000 operations: none below it, not exercised"
                   % thr)
        vals = vals + [thr]
    if not vals and not zeros:
        no_data(ax, {"bns": "time in backoff not recorded\n(results from before the "
                            "counter)",
                     "p99": "no latency recorded",
                     "fair": "fairness not recorded in these results",
                     "failed": "lost races not recorded"}.get(key, "no data"))
        return
    if key == "fair":
        # a share in (0, 1]: the same fixed axis in every panel, the line at 1
        ax.axhline(1.0, color="black", linestyle=":", linewidth=1.3, zorder=2)
        ax.annotate(F4_FAIR_LINE, (0.01, 1.0), xycoords=ax.get_yaxis_transform(),
                    xytext=(0, 5), textcoords="offset points", ha="left", va="bottom",
                    fontsize=8, color="0.3", gid="f4-fair-line")
        ax.set_ylim(0.0, 1.2)
        ax.set_yticks([0.0, 0.25, 0.5, 0.75, 1.0])
        ax.yaxis.set_major_formatter(fig_draw.ticker.FuncFormatter(lambda v, _p: "%g" % v))
        return
    if not vals:
        vals = [1.0]   # every value 0: an empty linear axis with the zeros marked
        ax.text(0.5, 0.5, "0 at every point: no backoff ran" if key == "bns" else
                "0 at every point", transform=ax.transAxes, ha="center", va="center",
                fontsize=9, color="0.35")
    value_axis(ax, vals, fmt_ns if key in ("bns", "p99") else fmt_plain, log)
    if p["categorical"]:
        for x in zeros:
            ax.text(x, 0.02, "0", transform=ax.get_xaxis_transform(), ha="center",
                    va="bottom", fontsize=8, color="0.35")
    elif zeros:
        n = len(zeros)
        ax.text(0.5, 0.04, "0 at %d point%s (not drawn)" % (n, "" if n == 1 else "s"),
                transform=ax.transAxes, ha="center", va="bottom", fontsize=8, color="0.35")


def draw_changes(ax, p, pn, level=False):
    """A panel's paired changes against none around its 0 line: a dot and its
    interval per backoff and amount of work (a ring over an oversubscribed
    one), then none's "baseline" at 0 (``level``: a black level mark under
    it). Returns (the intervals' ends, the groups not exercised, place_labels'
    labels); a group split by regime ("sub") is not exercised once, for its
    amount of work."""
    ax.axhline(0, color="black", linewidth=0.8, zorder=1)
    vals, idle, labels = [], [], []
    for g in pn["groups"]:
        if g["exercised"] is False:
            if not g.get("sub"):
                idle.append(g)
            continue
        j = g["j"]
        for e in g["change"]:
            if e["pct"] is None or e["backoff"] not in p["backoffs"]:
                continue
            x = f4_slot_x(p, e["backoff"], j)
            # no interval: the whisker none long
            lo, hi = (e["pct"] if e[k] is None else e[k] for k in ("lo", "hi"))
            dot(ax, x, e["pct"], [[e["pct"] - lo], [hi - e["pct"]]],
                **f4_marker(color_of("backoff", e["backoff"]), j))
            if e["oversubscribed"] == 1:
                ax.plot([x], [e["pct"]], **OVERSUB_STYLE)
            text = e["text"] + ("\ninconclusive" if e["inconclusive"] else "")
            labels.append((x, e["pct"], text, j > 0 or len(p["works"]) == 1, e["inconclusive"]))
            vals += [lo, hi]
    if "none" in p["backoffs"]:
        x = p["backoffs"].index("none")
        if level:
            ax.plot([x], [0], color="black", zorder=4, **LEVEL_MARK)
        ax.text(x, 0, "baseline", ha="center", va="bottom", fontsize=8, color="0.35")
    return vals, idle, labels


def finish_change_panel(ax, p, drawn, slots, bottom, floor, room, first_col):
    """A change panel's y range, x axis and last marks. drawn: draw_changes'
    (vals, idle, labels); the y range holds the intervals' ends, floor and
    10%, with room above for a "not exercised" box per idle group (room: the
    span per box, the step between boxes in axes fraction); the slots on x
    (``bottom``: the x label too); the values' labels; the boxes from the top
    down; the percentage axis (pct_axis)."""
    vals, idle, labels = drawn
    lo, hi = min(vals + [floor]), max(vals + [10.0])
    span = hi - lo
    # room above everything for the "not exercised" boxes (never in the band)
    ax.set_ylim(lo - 0.08 * span, hi + span * (0.12 + room[0] * len(idle)))
    slot_axis(ax, slots, bottom)
    place_labels(ax, labels)
    for k, g in enumerate(idle):
        not_exercised(ax, 0.97 - room[1] * k, g["none_failed"],
                      work_words(g["work"]) + ": " if len(p["works"]) > 1 else "",
                      linespacing=1.1)
    pct_axis(ax, first_col)


def pct_axis(ax, first_col):
    """y: a change in percent (0 as '0'); its label in the first column."""
    ax.yaxis.set_major_formatter(fig_draw.ticker.FuncFormatter(
        lambda v, _p: fmt_pct(v) if v else "0"))
    if first_col:
        ax.set_ylabel(F4_ROWS[1][1])


def draw_f4_change(ax, p, pn, first_col, bottom):
    """Each backoff's paired change against none at the panel's quoted thread
    count: a dot and its interval per amount of work, its value beside it
    ("inconclusive" where the interval holds 0); "not exercised" (top, apart
    from everything else) for an amount of work where none lost < 1 race per
    1,000 operations; the study's band in the prodcons panel only."""
    band = pn["workload"] == "prodcons"
    # the study's band only behind the changes measured here (none lost races):
    # a "not exercised" comparison is no point of agreement with it
    shown = [(f4_slot_x(p, e["backoff"], g["j"])) for g in pn["groups"]
             if g["exercised"] is not False for e in g["change"]
             if e["pct"] is not None and e["backoff"] in p["backoffs"]] if band else []
    half = 0.4 if len(p["works"]) == 1 else 0.14
    for k, x in enumerate(shown):
        ax.add_patch(fig_draw.plt.Rectangle(
            (x - half, F4_STUDY_BAND[0]), 2 * half, F4_STUDY_BAND[1] - F4_STUDY_BAND[0],
            facecolor=F4_STUDY_COLOR, alpha=0.45, linewidth=0, zorder=0, gid="f4-study-band",
            label=STUDY_WORDS if k == 0 else None))
    if shown:
        ax.text(-0.48, sum(F4_STUDY_BAND) / 2, F4_STUDY_LABEL, ha="left", va="center",
                fontsize=8, color=STUDY_INK, zorder=1)
    elif band:
        ax.text(0.01, 0.02, "study's \u221215 to \u221230%: not drawn, nothing measured "
                "here", transform=ax.transAxes, ha="left", va="bottom",
                fontsize=8, color=STUDY_INK, zorder=1, gid="f4-study-absent")
    finish_change_panel(ax, p, draw_changes(ax, p, pn), p["backoffs"], bottom,
                        F4_STUDY_BAND[0] - 5 if shown else -10.0, (0.2, 0.14), first_col)


def work_handles(p, lines):
    """A legend handle per amount of local work: a grey dot, filled for the
    least, hollow for more; ``lines``: the least's and more's line style."""
    return [fig_draw.handle(linestyle=lines[j > 0], **f4_marker("0.3", j),
                            label=work_words(w) + (" (random 0\u2013%g ns)" % w if w else ""))
            for j, w in enumerate(p["works"])]


def f4_legend(ax, p):
    """What the marks mean, beside the top right panel."""
    from matplotlib.patches import Patch
    handle, h = fig_draw.handle, []
    if not p["categorical"]:
        h += [handle(color=color_of("backoff", b), marker=marker_of("backoff", b), label=b)
              for b in p["backoffs"]]
    h += work_handles(p, ("-", "-" if p["categorical"] else "--"))
    h.append(fig_draw.whisker_handle("whisker: min\u2013max (change: its interval)"))
    if any(nrdata.num(r, "harness_ops_per_s") for r in p["rows"]):
        h.append(handle(color=HARNESS_STYLE["color"], marker="_", linestyle="none",
                        markersize=14, markeredgewidth=2.4, label=HARNESS_LABEL)
                 if p["categorical"] else handle(label=HARNESS_LABEL, **HARNESS_STYLE))
    h += fig_draw.mark_handles(over=any(nrdata.oversubscribed(r) for r in p["rows"]))
    h.append(handle(color="black", linestyle=":", label="1 lost race per 1,000 operations"))
    if any(pn["workload"] == "prodcons" for pn in p["columns"]):
        h.append(Patch(facecolor=F4_STUDY_COLOR, alpha=0.45, label=STUDY_WORDS))
    h += fig_f4.legend_handles(p)
    fig_draw.legend_outside(ax, h, bbox_to_anchor=(1.03, 1.0), borderaxespad=None, fontsize=9)


def draw_f4(axes, p, show_legend=True):
    """The F4 panels, row by row (F4_ROWS), a column per workload; with fewer
    axes than panels, the first ones."""
    panels = p["columns"]
    nw = max(1, len(panels))
    for r, (key, ylabel) in enumerate(F4_ROWS):
        for c, pn in enumerate(panels):
            i = r * nw + c
            if i >= len(axes):
                return
            ax = axes[i]
            bottom = r == len(F4_ROWS) - 1
            if key == "change":
                draw_f4_change(ax, p, pn, c == 0, bottom)
            else:
                units = {g["unit"] for g in pn["groups"]}
                label = ylabel % ("items" if units == {"items"} else "operations") \
                    if key == "tput" else (ylabel if c == 0 else None)
                f4_value_panel(ax, p, pn, key, bottom, label)
            if r == 0:
                ts = pn["threads"]
                over = any(g["oversubscribed"] == 1 for g in pn["groups"])
                ax.set_title("%s\n%s at %s threads%s" % (
                    pn["title"], "all" if p["categorical"] else "changes",
                    "/".join(map(str, ts)), ", oversubscribed" if over else ""), fontsize=11)
    if show_legend and panels and nw - 1 < len(axes):
        f4_legend(axes[nw - 1], p)


# --------------------------------------------------------------------------
# f4-backoff, the main figure (fig_f4.prep_f4_change): a panel per workload,
# the backoffs on x, each one's paired change against none

def draw_f4_main_panel(ax, p, pn, first_col):
    """One workload: none the baseline at 0, a dot and its interval per
    backoff and amount of work (its value beside it, "inconclusive" where the
    interval holds 0), "not exercised" for an amount of work where none lost
    < 1 race per 1,000 operations, the study's value in a slot of its own
    (prodcons). Returns whether the study's slot was drawn."""
    drawn = draw_changes(ax, p, pn, level=True)
    if pn["study"]:
        # the study's value beside this host's, in its own slot: never behind a
        # "not exercised" comparison, which would read as agreement
        xs = len(p["backoffs"])
        ax.add_patch(fig_draw.plt.Rectangle(
            (xs - 0.3, F4_STUDY_BAND[0]), 0.6, F4_STUDY_BAND[1] - F4_STUDY_BAND[0],
            facecolor=F4_STUDY_COLOR, edgecolor=STUDY_INK, linewidth=0.8, zorder=2,
            gid="f4-study-band"))
        ax.text(xs, F4_STUDY_BAND[0] - 1.5, "32 workers,\n2 nodes", ha="center", va="top",
                fontsize=8, color=STUDY_INK, zorder=3)
        drawn[0].extend([F4_STUDY_BAND[0] - 9.0, F4_STUDY_BAND[1]])
    finish_change_panel(ax, p, drawn, fig_f4.change_slots(p, pn), True, -10.0, (0.22, 0.15),
                        first_col)
    threads = "" if len(p["quoted"]) == 1 else " (%s threads)" % "/".join(
        str(g["threads"]) for g in pn["groups"][:1])
    ax.set_title(pn["title"] + threads, fontsize=10)
    return pn["study"]


def f4_main_legend(ax, p, study):
    """Only the marks drawn: a dot per amount of local work (one amount: the
    dot), the whisker, the black x where drawn, the study's slot where drawn."""
    from matplotlib.patches import Patch
    h = work_handles(p, ("none", "none"))
    h.append(fig_draw.whisker_handle("whisker: the change's interval"))
    h += fig_draw.mark_handles(over=any(e["oversubscribed"] == 1 and e["text"] is not None
                                        for e in p["relative"]))
    if study:
        h.append(Patch(facecolor=F4_STUDY_COLOR, edgecolor=STUDY_INK,
                       label="study, prodcons:\n\u221215 to \u221230%"))
    fig_draw.legend_outside(ax, h, bbox_to_anchor=(1.03, 1.0), borderaxespad=None, fontsize=9)


def draw_f4_main(axes, p, show_legend=True):
    """The main F4 figure: a panel per workload (fig_f4.prep_f4_change); with
    fewer axes than panels, the first ones."""
    study = False
    for c, pn in enumerate(p["columns"][:len(axes)]):
        study = draw_f4_main_panel(axes[c], p, pn, c == 0) or study
    if not p["columns"]:
        no_data(axes[0], "no F4 comparison")
        return
    if show_legend:
        f4_main_legend(axes[min(len(p["columns"]), len(axes)) - 1], p, study)
