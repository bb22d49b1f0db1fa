# SPDX-License-Identifier: BSD-2-Clause
"""fig_f1.py - F1's figure (f1-lookup-cost): the time per item of each node
look-up mode, stacked as the data movement (the time of lookup none) and the
node look-up (the rest).

Each mode's runs split by (pace, regime) (scripts/common/regime.py): a closed-loop
run lands near empty (the consumer waits) or full (the producer waits), and
the time per item differs several-fold between the two; a median over both
would measure the mix. Each group gets its own bar, side by side in the
mode's slot, a mark on top of it (shape per regime, fill per pace: the peers'
marks, fig_common) with n beside it where the mode's runs split. A bar's data
movement is none's median in the same group; where none did not run in that
group the bar is not split (hatched). An older table (no regime known): one
bar per mode, as before.

The ratio printed above (the look-up against the data movement) is
summarize.f1's, within the regime it names.

prep prepares the figure once; draw (matplotlib) and dat (the data file of
scripts/gnuplot/f1-lookup-cost.gp) render that preparation.
"""

from ..analysis import findings, nrdata
from . import fig_common as FC
from . import fig_draw
from .fig_draw import annotate_title, HARNESS_STYLE
from .fig_gnuplot import dat_header, ov_col
from .fig_host import (
    add_paired_words, caption_lines, color_of, HARNESS_BOUND, HARNESS_LABEL, harness_of,
    harness_status, order_of, oversub_of, oversub_status, pooled_note, rgb_int, Said, STUDY,
    summary_of, variant_label)


#: the width of a mode's slot the bars share
SLOT_WIDTH = 0.62
#: the height of a two-line value label over a bar, a share of the tallest whisker
LABEL_STEP = 0.085
#: the hatch of a bar that is not split (no none run in its group)
UNSPLIT_HATCH = "///"


@FC.condensed
def prep(host):
    rows = host.data["f1-lookup-cost"]
    extra = []
    ts = sorted({nrdata.threads(r) for r in rows})
    if len(ts) > 1:
        rows = [r for r in rows if nrdata.threads(r) == ts[0]]
        extra.append("%d threads (of %s)" % (ts[0], ", ".join(map(str, ts))))
    key = (lambda r: (r.get("lookup"), FC.group_of(r)))
    agg = {k[0]: v for k, v in nrdata.aggregate(rows, (key,), "ns_per_op").items()}
    ov = oversub_of(rows, key)
    groups = FC.group_order({g for _m, g in agg})
    known = FC.regimes_known(groups)
    modes = order_of("lookup", {m for m, _g in agg})
    none = {g: agg[("none", g)] for g in groups if ("none", g) in agg}
    hmode = harness_of(rows, key)
    tmode = {k[0]: v for k, v in nrdata.aggregate(rows, (key,),
                                                  "throughput_ops_per_s").items()}
    bars = []
    for slot, m in enumerate(modes):
        gs = [g for g in groups if (m, g) in agg]
        for k, g in enumerate(gs):
            med, mn, mx, n = agg[(m, g)]
            data = none[g][0] if g in none else None
            h, t = hmode.get((m, g)), tmode.get((m, g))
            width = SLOT_WIDTH / len(gs)
            bars.append({
                "mode": m, "group": g, "label": variant_label("lookup", m, rows),
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
    # the look-up against the data movement, and what it adds per item: summarize.f1
    # (paired per rep: none_k / libnuma_k - 1; the look-up in ns = that x move_ns),
    # within the regime it names
    said = Said()
    r = (summary_of(host, "f1") if none and any(b["mode"] == "libnuma" for b in bars)
         else {})
    ratio = r.get("ratio")
    if not none:
        extra.append("no 'none' run: the cost is not split into data movement and look-up")
    elif any(b["data"] is None for b in bars):
        extra.append("hatched: no 'none' run in that regime (%s): not split into data "
                     "movement and look-up" % ", ".join(sorted(
                         {FC.group_label(b["group"]) for b in bars if b["data"] is None})))
    extra.append("ns per item = 1e9 / throughput")
    # the harness's floor: what an item costs through the same code with the null
    # queue (1e9 / harness_ops_per_s, median over the runs drawn)
    hall = findings.harness_alone(rows)
    harness_ns = 1e9 / hall if hall else None
    bound = sum(b["harness_bound"] for b in bars)
    if harness_ns is not None:
        extra.append(harness_status(rows, bound, value="the floor: %.1f ns per item"
                                    % harness_ns, mark="labelled harness-bound"))
    else:
        extra.append(harness_status(rows))
    extra.append(oversub_status(rows, key, mark="'oversubscribed' on the bar"))
    extra.append(FC.split_words(rows) or None)
    extra.append(pooled_note(rows, key))
    p = {"kind": "f1", "bars": bars, "ratio": ratio, "rows": rows, "harness_ns": harness_ns,
         "modes": modes, "groups": groups, "known": known,
         "shown_n": any(b["split"] for b in bars),
         "drawn": drawn_line(known, any(b["split"] for b in bars),
                             any(b["data"] is None for b in bars) and bool(none)),
         "title": "F1: cost of finding the node, per operation, by look-up mode%s" % (
             " at %d threads" % ts[0] if ts else ""),
         "caption": caption_lines(host, rows, extra)}
    p["annotation"] = None
    if ratio is not None:
        p["annotation"] = "libnuma: the look-up adds %s per item = %s%s the data movement " \
            "(%s)" % (said.text("f1.lookup_ns", r), said.text("f1.lookup_over_move", r),
                      said.interval("f1.lookup_over_move", r), "; ".join(
                          x for x in (said.text("f1.move_ns", r), FC.regime_words(r),
                                      STUDY["f1"]) if x))
    return add_paired_words(p, said)


def drawn_line(known, split, unsplit):
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


def value_text(b):
    """The label over a bar: its time per item, and its runs where the mode's split."""
    t = "%.0f ns" % b["total"] if b["total"] >= 10 else "%.1f ns" % b["total"]
    return t + ("\nn = %d" % b["n"] if b["split"] else "")


def draw(axes, p, show_legend=True):
    ax = axes[0]
    bars = p["bars"]
    top = max(b["max"] for b in bars) if bars else 1
    if p.get("harness_ns"):
        top = max(top, p["harness_ns"])
    have_split = have_unsplit = False
    for b in bars:
        color = color_of("lookup", b["mode"])
        if b["data"] is not None:
            ax.bar([b["x"]], [b["data"]], width=b["width"], color="#b8b8b8", edgecolor="0.3",
                   linewidth=0.6, gid="f1-data")
            ax.bar([b["x"]], [b["lookup"]], bottom=[b["data"]], width=b["width"], color=color,
                   edgecolor="0.3", linewidth=0.6, gid="f1-lookup")
            have_split = True
        else:
            ax.bar([b["x"]], [b["total"]], width=b["width"], color=color, edgecolor="0.3",
                   linewidth=0.6, hatch=UNSPLIT_HATCH if p["known"] and any(
                       x["data"] is not None for x in bars) else None, gid="f1-total")
            have_unsplit = True
        ax.errorbar([b["x"]], [b["total"]], yerr=[[b["total"] - b["min"]],
                                                  [b["max"] - b["total"]]],
                    fmt="none", ecolor="black", capsize=4 if b["width"] > 0.4 else 3,
                    elinewidth=1.2)
        if p["known"]:
            ax.plot([b["x"]], [b["total"]], linestyle="none", markersize=6.5, zorder=5,
                    gid="f1-regime", **FC.group_style(b["group"], "0.1"))
        if b.get("harness_bound"):
            ax.text(b["x"], b["total"] / 2, "harness-\nbound", ha="center", va="center",
                    fontsize=8, color="0.15", rotation=90)
        if b.get("oversubscribed") == 1:
            ax.text(b["x"], b["total"] / 4, "oversubscribed", ha="center", va="center",
                    fontsize=8, color="black", rotation=90, fontweight="bold")
        ax.text(b["x"], b["label_at"] + top * 0.015, value_text(b), ha="center", va="bottom",
                fontsize=9 if not b["split"] else 7.5, linespacing=1.1, gid="f1-value")
    if p.get("harness_ns"):
        ax.axhline(p["harness_ns"], zorder=4, **HARNESS_STYLE)
    xs = list(range(len(p["modes"])))
    labels = {b["slot"]: b["label"] for b in bars}
    ax.set_xticks(xs)
    ax.set_xticklabels([labels.get(i, "") for i in xs], rotation=0 if len(xs) <= 8 else 30)
    ax.set_xlim(-0.6, len(xs) - 0.4)
    # room over the highest value label (two lines where a mode's runs split)
    ax.set_ylim(0, max([top * 1.15] + [b["label_at"] + top * (0.14 if b["split"] else 0.1)
                                       for b in bars]))
    ax.set_xlabel("node look-up mode")
    ax.set_ylabel("time per item (ns)")
    ax.grid(axis="x", visible=False)
    annotate_title(ax, None, p["annotation"])
    if not show_legend:
        return
    from matplotlib.patches import Patch
    h = []
    if p.get("harness_ns"):
        h.append(fig_draw.handle(label="%s: %.1f ns per item" % (
            HARNESS_LABEL, p["harness_ns"]), **HARNESS_STYLE))
    if have_split:
        h += [Patch(facecolor="#b8b8b8", edgecolor="0.3", label="data movement (lookup none)"),
              Patch(facecolor=color_of("lookup", "libnuma"), edgecolor="0.3",
                    label="node look-up (colour per mode)")]
    if have_unsplit:
        h.append(Patch(facecolor="white", edgecolor="0.3", hatch=UNSPLIT_HATCH if have_split
                       and p["known"] else None,
                       label="not split: no none run in its regime" if have_split
                       else "ns per item"))
    h.append(fig_draw.whisker_handle("min\u2013max over reps"))
    if p["known"]:
        h += FC.regime_legend(p["groups"])
        if p["shown_n"]:
            h += fig_draw.mark_handles(note="n = its runs, where a mode's runs split")
    ax.legend(handles=h, loc="upper right", framealpha=0.9)


#: F1's data file: one block, its columns (scripts/gnuplot/f1-lookup-cost.gp
#: reads them by number: $N)
COLUMNS = ["mode", "data_movement_ns", "lookup_ns", "total_median_ns", "total_min_ns",
           "total_max_ns", "reps", "color_rgb", "harness_ns", "oversubscribed", "group", "x",
           "width", "slot", "pt", "dot", "split_data", "shown_n", "regime_known", "nslots",
           "label_at_ns"]


def dat(name, p):
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
                     "row (NaN: not measured)", COLUMNS)
    out.append("")
    nslots = len(p.get("modes") or []) or 1
    for b in p["bars"]:
        pt, dot = FC.group_pt(b["group"])
        out.append(" ".join([b["mode"], g(b["data"] if b["data"] is not None else 0.0),
                             g(b["lookup"] if b["lookup"] is not None else b["total"]),
                             g(b["total"]), g(b["min"]), g(b["max"]), "%d" % b["n"],
                             "%d" % rgb_int(color_of("lookup", b["mode"])),
                             g(p.get("harness_ns")), ov_col(b.get("oversubscribed")),
                             FC.group_label(b["group"]).replace(", ", "/").replace(" ", "_")
                             or "unknown", "%.6g" % b["x"], "%.6g" % b["width"],
                             "%d" % b["slot"], "%d" % pt, "%d" % dot,
                             "%d" % (b["data"] is not None), "%d" % int(b["split"]),
                             "%d" % int(p["known"]), "%d" % nslots, g(b["label_at"])]))
    return out
