# SPDX-License-Identifier: BSD-2-Clause
"""fig_f1.py - F1's figure (f1-lookup-cost): the time per item of each node
look-up mode, stacked as the data movement (the time of lookup none) and the
node look-up (the rest), and its supplement figure f1-lookup-cost-regimes.

The main figure answers one question: what does finding the node cost
against moving the item? One bar per look-up mode, each from the runs of one
(pace, regime) group (scripts/common/regime.py), the one the design fixes:
the group summarize.f1 quotes its ratio in (on a sweep pinned by its pace,
the experiment's paced regime), else the group most modes ran in
(fig_common.design_group). A closed-loop run lands near empty (the consumer
waits) or full (the producer waits), several-fold apart: a median over both
would measure the mix, so the other groups' runs are left to the supplement.
A bar's data movement is none's median in that group; without a none run
there the bar is not split. A mode that did not run in that group keeps its
slot, empty, with the words 'no <regime> run'. Over libnuma's bar, the
study's value (claims_table's F1.study-11x: the look-up costs more than 11x
the data movement) as a mark at that height on this host's data movement,
with a caret (more than); the harness alone's floor a grey dash-dot line.

The supplement (f1-lookup-cost-regimes, prep_regimes / draw_regimes /
dat_regimes; both figures' bars from bars_of, drawn by one draw): each
mode's runs split by (pace, regime), each group its own bar, side by side
in the mode's slot, a mark on top of it (shape per regime, fill per pace:
the peers' marks, fig_common) with n beside it where the mode's runs
split; a bar's data movement is none's median in the same group, hatched
where none did not run in that group (not split). An older table (no
regime known): one bar per mode in both.

The ratio printed above (the look-up against the data movement) is
summarize.f1's, within the regime it names, in both figures.

prep prepares the figure once; draw (matplotlib) and dat (the data file of
scripts/gnuplot/f1-lookup-cost.gp, its columns read by name) render that
preparation; the supplement's likewise (scripts/gnuplot/f1-lookup-cost-regimes.gp).
"""

from ..analysis import findings, nrdata
from . import fig_common as FC
from . import fig_draw
from .fig_draw import annotate_title, HARNESS_STYLE
from .fig_gnuplot import dat_header, ov_col, SEE_BLOCKS
from ..common import regime
from .fig_host import (
    add_paired_words, caption_lines, color_of, HARNESS_BOUND, HARNESS_LABEL, harness_of,
    harness_status, order_of, oversub_of, oversub_status, paired_in_notes, pooled_note, rgb_int,
    Said, STUDY, summary_of, variant_label)


#: the width of a mode's slot the bars share (the main figure's one bar fills it)
SLOT_WIDTH = 0.62
#: the height of a two-line value label over a bar, a share of the tallest whisker
LABEL_STEP = 0.085
#: the hatch of a bar that is not split (no none run in its group)
UNSPLIT_HATCH = "///"
#: the data movement's grey
DATA_GREY = "#b8b8b8"
#: the study's F1: the look-up costs more than this many times the data movement
#: (claims_table's F1.study-11x threshold, which scripts/tests/test_regimes_apart_figure
#: holds this to: the figures draw without the analysis' ceiling model, which
#: claims_table imports)
STUDY_OVER = 11.0
#: the study's marks (F4's band's words are this colour too)
STUDY_COLOR = "#7a5200"


def first_threads(host):
    """F1's rows at its first thread count (F1 runs one), the thread counts,
    and the note where the sweep had more."""
    rows = host.data["f1-lookup-cost"]
    extra = []
    ts = sorted({nrdata.threads(r) for r in rows})
    if len(ts) > 1:
        rows = [r for r in rows if nrdata.threads(r) == ts[0]]
        extra.append("%d threads (of %s)" % (ts[0], ", ".join(map(str, ts))))
    return rows, ts, extra


def design_of(host, what, allrows, supplement):
    """The group a main figure draws (F1, F2: fig_common.design_group, from
    summarize.<what>'s r, which it returns): (r, the group's rows, the group,
    whether regimes are known, its words ('' where not), the caption's lines
    of what is drawn (the supplement's name where every group is apart))."""
    r = summary_of(host, what)
    groups = FC.group_order({FC.group_of(x) for x in allrows})
    known = FC.regimes_known(groups)
    group = FC.design_group(groups, allrows, "lookup", r.get("regime"))
    words = FC.group_label(group) if known else ""
    extra = []
    if known:
        extra.append("drawn: the %s runs, the group %s; every group apart: the supplement's "
                     "%s" % (words, "summarize.%s quotes" % what if r.get("regime") ==
                             regime.group_label(group) else "most modes ran in", supplement))
        extra.append(FC.split_words(allrows) or None)
    return (r, [x for x in allrows if FC.group_of(x) == group], group, known, words, extra)


def regime_col(words):
    """A .dat's regime field: the group's words, one token ('unknown': none)."""
    return (words or "unknown").replace(", ", "/").replace(" ", "_")


def annotation_of(r, ratio, said):
    """The line over the panel: libnuma's look-up against the data movement
    (summarize.f1's, within the regime it names) beside the study's."""
    if ratio is None:
        return None
    return "libnuma: the look-up adds %s per item = %s%s the data movement (%s)" % (
        said.text("f1.lookup_ns", r), said.text("f1.lookup_over_move", r),
        said.interval("f1.lookup_over_move", r), "; ".join(
            x for x in (said.text("f1.move_ns", r), FC.regime_words(r), STUDY["f1"]) if x))


def bars_of(rows, labelled, modes=None):
    """(bars, key, {group: none's median}, groups, modes) of rows: a bar per
    look-up mode and (pace, regime) group, side by side in the mode's slot
    (``modes``: the slots; None: the modes that ran, in order), labelled from
    the rows ``labelled``; its time per item (median, min, max, n), stacked on
    none's median in its group (data; None: not split), whether a run was
    oversubscribed or ran at the harness's own ceiling, and where its value
    label goes. key: what the bars group the rows by."""
    key = (lambda r: (r.get("lookup"), FC.group_of(r)))
    agg, tput = ({k[0]: v for k, v in nrdata.aggregate(rows, (key,), col).items()}
                 for col in ("ns_per_op", "throughput_ops_per_s"))
    ov, hmode = oversub_of(rows, key), harness_of(rows, key)
    groups = FC.group_order({g for _m, g in agg})
    none = {g: agg[("none", g)][0] for g in groups if ("none", g) in agg}
    bars = []
    modes = order_of("lookup", {m for m, _g in agg}) if modes is None else modes
    for slot, m in enumerate(modes):
        gs = [g for g in groups if (m, g) in agg]
        for k, g in enumerate(gs):
            med, mn, mx, n = agg[(m, g)]
            h, t, data = hmode.get((m, g)), tput.get((m, g)), none.get(g)
            width = SLOT_WIDTH / len(gs)
            bars.append({
                "mode": m, "group": g, "label": variant_label("lookup", m, labelled),
                "total": med, "min": mn, "max": mx, "n": n, "data": data,
                "lookup": max(0.0, med - data) if data is not None else None,
                "oversubscribed": ov.get((m, g)),
                "harness_bound": bool(h and t and t[0] >= HARNESS_BOUND * h[0]),
                "slot": slot, "x": slot + (k - (len(gs) - 1) / 2.0) * width,
                "width": width, "split": len(gs) > 1})
    top = max([b["max"] for b in bars] or [1.0])
    for b in bars:
        # the labels over a slot's bars: from the slot's highest whisker up, a
        # step per bar (two lines each), never over each other
        same = [x for x in bars if x["slot"] == b["slot"]]
        b["label_at"] = max(x["max"] for x in same) + same.index(b) * LABEL_STEP * top
    return bars, key, none, groups, modes


def floor_words(rows, bars, key, extra):
    """The harness's floor, what an item costs through the same code with the
    null queue (1e9 / harness_ops_per_s, median over the runs drawn), in ns
    (None: not measured); its caption line and the oversubscription's go to
    extra."""
    hall = findings.harness_alone(rows)
    harness_ns = 1e9 / hall if hall else None
    if harness_ns is not None:
        extra.append(harness_status(rows, sum(b["harness_bound"] for b in bars),
                                    value="the floor: %.1f ns per item" % harness_ns,
                                    mark="labelled harness-bound"))
    else:
        extra.append(harness_status(rows))
    extra.append(oversub_status(rows, key, mark="'oversubscribed' on the bar"))
    return harness_ns


# --------------------------------------------------------------------------
# The main figure: one bar per look-up mode, in the group the design fixes

@FC.condensed
def prep(host):
    allrows, ts, extra = first_threads(host)
    said = Said()
    r, rows, group, known, words, drawn = design_of(host, "f1", allrows,
                                                    "f1-lookup-cost-regimes")
    modes = order_of("lookup", {x.get("lookup") for x in allrows})
    bars, key, none, _g, _m = bars_of(rows, allrows, modes)
    data = none.get(group)
    ran = {b["mode"] for b in bars}
    missing = [{"mode": m, "slot": slot, "label": variant_label("lookup", m, allrows)}
               for slot, m in enumerate(modes) if m not in ran]
    lib = next((b for b in bars if b["mode"] == "libnuma"), None)
    ratio = r.get("ratio") if data is not None and lib else None
    # libnuma's look-up is one computed value wherever it appears: summarize's
    # (the paired ratio x the data movement), as the README and the paper quote
    # it, drawn and labelled on its bar where the bar is summarize's group
    if ratio is not None and r.get("lookup_ns") is not None and (
            not known or r.get("regime") == regime.group_label(group)):
        lib.update(lookup=r["lookup_ns"],
                   lookup_text="look-up " + said.text("f1.lookup_ns", r))
    # the study's value, where this host has both its terms: the height libnuma's
    # bar would reach at the study's ratio on this host's data movement
    study = ({"slot": lib["slot"], "ns": data * (1.0 + STUDY_OVER), "over": STUDY_OVER}
             if lib and data is not None else None)
    extra += drawn
    if missing:
        extra.append("no %s run: %s (an empty slot)" % (
            words or "drawn", ", ".join(x["mode"] for x in missing)))
    if data is None:
        extra.append("no 'none' run%s: the cost is not split into data movement and look-up"
                     % (" in the %s regime" % words if known else ""))
    extra.append("ns per item = 1e9 / throughput")
    if study:
        extra.append("study (brown dashed mark, caret: more than): libnuma's look-up > %g\u00d7 "
                     "the data movement, drawn at %.1f ns = this host's data movement "
                     "\u00d7 %g" % (STUDY_OVER, study["ns"], 1 + STUDY_OVER))
    else:
        extra.append("study's value not drawn: no libnuma and none run to scale it by")
    harness_ns = floor_words(rows, bars, key, extra)
    extra.append(pooled_note(rows, key))
    p = {"kind": "f1", "bars": bars, "missing": missing, "ratio": ratio, "rows": rows,
         "harness_ns": harness_ns, "modes": modes, "group": group, "known": known,
         "regime_words": words, "study": study,
         "drawn": "median ns per item%s; min\u2013max" % (
             ", grey: data movement, colour: look-up" if data is not None else ""),
         "title": "F1: node look-up cost vs data movement%s" % (
             " (%d threads)" % ts[0] if ts else ""),
         "caption": caption_lines(host, rows, extra)}
    p["annotation"] = annotation_of(r, ratio, said)
    return paired_in_notes(p, said)


def draw(axes, p, show_legend=True):
    """Both figures (p["kind"]: "f1", or "f1-regimes" for the supplement,
    whose bars carry a mark on top: shape per regime): each bar with its
    value over it, the empty slots' words, the harness's floor and the
    study's mark."""
    ax = axes[0]
    bars, study, apart = p["bars"], p.get("study"), p["kind"] == "f1-regimes"
    top = max([b["max"] for b in bars] + [p.get("harness_ns") or 0.0] +
              [study["ns"] if study else 0.0]) or 1.0
    hatch = (UNSPLIT_HATCH if apart and p["known"] and any(b["data"] is not None for b in bars)
             else None)
    for b in bars:
        draw_bar(ax, b, hatch)
        if apart and p["known"]:
            ax.plot([b["x"]], [b["total"]], linestyle="none", markersize=6.5, zorder=5,
                    gid="f1-regime", **FC.group_style(b["group"], "0.1"))
        # a mode's runs split: n under the value, smaller (two lines each)
        ax.text(b["x"], b["label_at"] + top * 0.015, value_text(b), ha="center", va="bottom",
                gid="f1-value", **(dict(fontsize=7.5, linespacing=1.1) if b["split"]
                                   else dict(fontsize=9)))
    for m in p.get("missing") or []:
        ax.text(m["slot"], top * 0.03, "no %s run" % (p.get("regime_words") or "such"),
                ha="center", va="bottom", rotation=90, fontsize=8, color="0.35",
                gid="f1-missing")
    if p.get("harness_ns"):
        ax.axhline(p["harness_ns"], zorder=4, **HARNESS_STYLE)
    if study:
        FC.level_mark(ax, study["slot"], study["ns"], half=SLOT_WIDTH / 2 + 0.08,
                      color=STUDY_COLOR, linewidth=2.2, linestyle="--", zorder=5,
                      gid="f1-study")
        ax.plot([study["slot"]], [study["ns"]], linestyle="none", marker="^", markersize=8,
                color=STUDY_COLOR, zorder=6, gid="f1-study-caret")
        ax.text(study["slot"] + SLOT_WIDTH / 2 + 0.12, study["ns"], "study: > %g\u00d7" %
                study["over"], ha="left", va="center", fontsize=8.5, color=STUDY_COLOR,
                gid="f1-study-label")
    n = len(p["modes"])
    labels = {b["slot"]: b["label"] for b in bars + list(p.get("missing") or [])}
    ax.set_xticks(list(range(n)))
    ax.set_xticklabels([labels.get(i, "") for i in range(n)], rotation=0 if n <= 8 else 30)
    ax.set_xlim(-0.6, n - 0.4)
    # room over the highest value label (two lines where a mode's runs split)
    ax.set_ylim(0, max([top * 1.15] + [b["label_at"] + top * (0.14 if b["split"] else 0.1)
                                       for b in bars]))
    ax.set_xlabel("node look-up mode%s" % (" (%s runs)" % p["regime_words"]
                                           if p.get("regime_words") else ""))
    ax.set_ylabel("time per item (ns)")
    ax.grid(axis="x", visible=False)
    annotate_title(ax, None, p["annotation"])
    if show_legend:
        ax.legend(handles=legend_handles(p), loc="upper right", framealpha=0.9)


#: the supplement is drawn by the same function (p["kind"] says which figure)
draw_regimes = draw


def draw_bar(ax, b, hatch=None):
    """Bar b: stacked as the data movement (grey) and the look-up (the mode's
    colour), else its total (hatched: ``hatch``); its min-max whisker, and
    'harness-bound' and 'oversubscribed' written across it."""
    x, color = b["x"], color_of("lookup", b["mode"])
    if b["data"] is not None:
        ax.bar([x], [b["data"]], width=b["width"], color=DATA_GREY, edgecolor="0.3",
               linewidth=0.6, gid="f1-data")
        ax.bar([x], [b["lookup"]], bottom=[b["data"]], width=b["width"], color=color,
               edgecolor="0.3", linewidth=0.6, gid="f1-lookup")
    else:
        ax.bar([x], [b["total"]], width=b["width"], color=color, edgecolor="0.3",
               linewidth=0.6, hatch=hatch, gid="f1-total")
    ax.errorbar([x], [b["total"]], yerr=[[b["total"] - b["min"]], [b["max"] - b["total"]]],
                fmt="none", ecolor="black", capsize=4 if b["width"] > 0.4 else 3,
                elinewidth=1.2)
    if b.get("harness_bound"):
        ax.text(x, b["total"] / 2, "harness-\nbound", ha="center", va="center",
                fontsize=8, color="0.15", rotation=90)
    if b.get("oversubscribed") == 1:
        ax.text(x, b["total"] / 4, "oversubscribed", ha="center", va="center",
                fontsize=8, color="black", rotation=90, fontweight="bold")


def value_text(b):
    """The label over a bar: its time per item, its runs where the mode's
    split, libnuma's look-up where the main figure quotes it."""
    t = "%.0f ns" % b["total"] if b["total"] >= 10 else "%.1f ns" % b["total"]
    return t + ("\nn = %d" % b["n"] if b["split"] else "") + (
        "\n" + b["lookup_text"] if b.get("lookup_text") else "")


def legend_handles(p):
    """The legend: the bars' patches (the data movement and the look-up where
    a bar is split; not split), the whisker, the harness's floor, and the
    study's mark (main) or the regimes' marks (the supplement)."""
    from matplotlib.patches import Patch
    bars, apart = p["bars"], p["kind"] == "f1-regimes"
    split = any(b["data"] is not None for b in bars)
    h = []
    if split:
        h += [Patch(facecolor=DATA_GREY, edgecolor="0.3", label="data movement (lookup none)"),
              Patch(facecolor=color_of("lookup", "libnuma"), edgecolor="0.3",
                    label="node look-up (colour per mode)")]
    if any(b["data"] is None for b in bars):
        h.append(Patch(facecolor="white", edgecolor="0.3", hatch=UNSPLIT_HATCH if split and
                       apart and p["known"] else None, label="ns per item" if not split else
                       "not split: no none run in its regime" if apart else
                       "ns per item (not split)"))
    h.append(fig_draw.whisker_handle("min\u2013max over reps"))
    harness = [fig_draw.handle(label="%s: %.1f ns per item" % (HARNESS_LABEL, p["harness_ns"]),
                               **HARNESS_STYLE)] if p.get("harness_ns") else []
    if not apart:
        study = p.get("study")
        return h + harness + ([fig_draw.handle(
            color=STUDY_COLOR, linestyle="--", linewidth=2.2, marker="^", markersize=8,
            label="study: libnuma's look-up > %g\u00d7 the data movement" % study["over"])]
            if study else [])
    if p["known"]:
        h += FC.regime_legend(p["groups"])
        if p["shown_n"]:
            h += fig_draw.mark_handles(note="n = its runs, where a mode's runs split")
    return harness + h


#: the main figure's data file (scripts/gnuplot/f1-lookup-cost.gp reads its
#: columns by name: b_<column>, l_<column> = N): a bar per look-up mode
#: (ran 0: an empty slot), then the levels drawn across it
BAR_COLUMNS = ["mode", "slot", "ran", "data_movement_ns", "lookup_ns", "total_median_ns",
               "total_min_ns", "total_max_ns", "reps", "color_rgb", "split_data",
               "oversubscribed", "harness_bound", "nslots"]
LEVEL_COLUMNS = ["harness_ns", "study_ns", "study_slot", "study_over", "regime"]


def measured_cols(b):
    """A bar's data_movement_ns (0: not split), lookup_ns (the total: not
    split), total_median_ns, total_min_ns, total_max_ns, reps and color_rgb."""
    g = FC.g
    return [g(b["data"] if b["data"] is not None else 0.0),
            g(b["lookup"] if b["lookup"] is not None else b["total"]), g(b["total"]),
            g(b["min"]), g(b["max"]), b["n"], rgb_int(color_of("lookup", b["mode"]))]


def dat(name, p):
    g = FC.g
    out = dat_header(name, p, "time per item by look-up mode (ns = 1e9 / throughput), the "
                     "runs of one (pace, regime) group (the levels block's regime): a bar "
                     "per row at its slot; split_data 1: stacked as the data movement "
                     "(none's median) and the look-up, 0: not split (no none run; "
                     "data_movement_ns 0, lookup_ns the total); ran 0: no run of that mode "
                     "in the group (NaN, an empty slot); then the levels: the harness "
                     "alone's floor (1e9 / its median throughput; NaN: not measured) and "
                     "the study's value over study_slot (this host's data movement x "
                     "(1 + study_over); NaN: not drawn)", SEE_BLOCKS)
    nslots = len(p.get("modes") or []) or 1
    rows = [[m["mode"], m["slot"], 0] + ["NaN"] * 5 + [
        0, rgb_int(color_of("lookup", m["mode"])), 0, "NaN", 0, nslots]
        for m in p.get("missing") or []]
    rows += [[b["mode"], b["slot"], 1] + measured_cols(b) + [
        int(b["data"] is not None), ov_col(b.get("oversubscribed")),
        int(bool(b.get("harness_bound"))), nslots] for b in p["bars"]]
    study = p.get("study")
    out += FC.block("bars", BAR_COLUMNS, sorted(rows, key=lambda x: x[1]), empty=[
        ["none", 0, 0] + ["NaN"] * 5 + [0, 0, 0, "NaN", 0, 1]])
    out += FC.block("levels", LEVEL_COLUMNS, [[
        g(p.get("harness_ns")), g(study["ns"] if study else None),
        study["slot"] if study else 0, g(study["over"] if study else None),
        regime_col(p.get("regime_words"))]])
    return out


# --------------------------------------------------------------------------
# The supplement: every (pace, regime) group apart

@FC.condensed
def prep_regimes(host):
    rows, ts, extra = first_threads(host)
    bars, key, none, groups, modes = bars_of(rows, rows)
    known = FC.regimes_known(groups)
    # the look-up against the data movement, and what it adds per item: summarize.f1
    # (paired per rep: none_k / libnuma_k - 1; the look-up in ns = that x move_ns),
    # within the regime it names
    said = Said()
    r = (summary_of(host, "f1") if none and any(b["mode"] == "libnuma" for b in bars)
         else {})
    ratio = r.get("ratio")
    unsplit = [b for b in bars if b["data"] is None]
    if not none:
        extra.append("no 'none' run: the cost is not split into data movement and look-up")
    elif unsplit:
        extra.append("hatched: no 'none' run in that regime (%s): not split into data "
                     "movement and look-up" % ", ".join(sorted(
                         {FC.group_label(b["group"]) for b in unsplit})))
    extra.append("ns per item = 1e9 / throughput")
    harness_ns = floor_words(rows, bars, key, extra)
    extra.append(FC.split_words(rows) or None)
    extra.append(pooled_note(rows, key))
    shown_n = any(b["split"] for b in bars)
    p = {"kind": "f1-regimes", "bars": bars, "ratio": ratio, "rows": rows,
         "harness_ns": harness_ns, "modes": modes,
         "groups": groups, "known": known, "shown_n": shown_n,
         "drawn": drawn_line(known, shown_n, bool(unsplit) and bool(none)),
         "title": "F1 by regime: node look-up cost vs data movement%s" % (
             " (%d threads)" % ts[0] if ts else ""),
         "caption": caption_lines(host, rows, extra)}
    p["annotation"] = annotation_of(r, ratio, said)
    return add_paired_words(p, said)


def drawn_line(known, split, unsplit):
    """The caption's line of what the supplement draws."""
    if known:
        what = ("a bar per look-up mode and regime (the mark on top: shape per regime%s)"
                % ("; n over it where a mode's runs split" if split else ""))
    else:
        what = "a bar per look-up mode"
    return ("%s: ns per item, the median of its runs (grey: the data movement, lookup none%s; "
            "colour: the node look-up%s), whisker min\u2013max; grey dash-dot: the harness "
            "alone (null queue), its floor" % (
                what, " in the same regime" if known else "",
                "; hatched: no none run in that regime, not split" if unsplit else ""))


#: the regimes figure's data file: one block, its columns
#: (scripts/gnuplot/f1-lookup-cost-regimes.gp reads them by number: $N)
REGIME_COLUMNS = ["mode", "data_movement_ns", "lookup_ns", "total_median_ns", "total_min_ns",
                  "total_max_ns", "reps", "color_rgb", "harness_ns", "oversubscribed", "group",
                  "x", "width", "slot", "pt", "dot", "split_data", "shown_n", "regime_known",
                  "nslots", "label_at_ns"]


def dat_regimes(name, p):
    g = FC.g
    out = dat_header(name, p, "time per item by look-up mode and (pace, regime) group "
                     "(ns = 1e9 / throughput): a bar per row at x (its mode's slot, the "
                     "slot shared by its groups), width wide; split_data 1: stacked as "
                     "the data movement (none's median in the same group) and the look-up, "
                     "0: not split (none did not run in that group; data_movement_ns 0, "
                     "lookup_ns the total); pt, dot: gnuplot's point type of the mark on "
                     "top (shape: regime; filled: free) and a dot inside (consumer-paced); "
                     "regime_known 0: an older table, no mark; label_at_ns: the height of "
                     "the value label (the slot's highest whisker, stepped up per bar); "
                     "harness_ns: the harness "
                     "alone (null queue), 1e9 / its median throughput, the same on every "
                     "row (NaN: not measured)", REGIME_COLUMNS)
    out.append("")
    nslots = len(p.get("modes") or []) or 1
    for b in p["bars"]:
        out.append(" ".join(map(str, [b["mode"]] + measured_cols(b) + [
            g(p.get("harness_ns")), ov_col(b.get("oversubscribed")),
            regime_col(FC.group_label(b["group"])), "%.6g" % b["x"], "%.6g" % b["width"],
            b["slot"], *FC.group_pt(b["group"]), int(b["data"] is not None), int(b["split"]),
            int(p["known"]), nslots, g(b["label_at"])])))
    return out
