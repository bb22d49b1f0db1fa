# SPDX-License-Identifier: BSD-2-Clause
"""fig_peers_latency.py - the peers' latency figure (peers-latency).

Closed-loop latency, p50 and p99 per queue and (pace, regime) group at the
largest thread count, a panel per item mode and bursts setting as in
peers-regimes (fig_peers.py, whose panels and groups it shares). In a
closed loop the latency is set by how full the queue runs (Little: items in
flight / throughput), not by the queue's hand-over: the title and axis say so.

prep_peers_latency prepares the figure once; draw_peers_latency (matplotlib)
and dat_peers_latency (the data file of scripts/gnuplot/peers-latency.gp)
render that preparation.
"""

from ..analysis import nrdata
from . import fig_common as FC
from . import fig_draw
from .fig_draw import fmt_ns, legend_axis, no_data
from .fig_gnuplot import dat_header, ov_col
from .fig_host import (
    caption_lines, color_of, item_of, items_in, order_of, oversub_of, oversub_status, rgb_int,
    workload_of)
from .fig_lines import group_key
from .fig_peers import named_rows, others_short, peer_panels, symmetric_rows


#: peers-latency's words: what closed-loop latency measures
LATENCY_WORDS = "closed-loop latency: set by how full the queue runs, not by its hand-over"
#: p99's dash a little right of its p50 mark (its whisker apart from p50's)
P99_DX = 0.07
LATENCY_YLABEL = "closed-loop latency, enqueue to dequeue\n(set by the queue's occupancy)"


@FC.condensed
def prep_peers_latency(host):
    allrows, others = named_rows(host)   # the sweep's named configuration
    rows = [r for r in allrows if workload_of(r) == "prodcons"]
    sym = symmetric_rows(allrows)
    npairs = sum(len(rs) for _wl, rs in sym)
    left = FC.left_out(rows)
    panels, nolat, over_rows = [], set(), []
    key = (lambda r: (r["queue"], FC.group_of(r)))
    for item, b, name, rs in peer_panels(rows):
        # the largest thread count's runs (none: an empty panel, threads None)
        t = max((nrdata.threads(r) for r in rs), default=None)
        at = [r for r in rs if nrdata.threads(r) == t]
        over_rows += at
        p50, p99 = (FC.intervals(at, (key,), v) for v in ("p50_ns", "p99_ns"))
        ov = oversub_of(at, key)
        # a queue that records no latency (faa: no items) has no mark
        queues = order_of("queue", {r["queue"] for r in at
                                    if nrdata.num(r, "p50_ns") is not None})
        nolat.update(r["queue"] for r in at if r["queue"] not in queues)
        groups = FC.group_order({FC.group_of(r) for r in at})
        ran = {key(r) for r in at}
        marks = [{"queue": q, "group": g, "p50": p50.get(((q, g),)), "p99": p99.get(((q, g),)),
                  "oversubscribed": ov.get((q, g))} for q in queues for g in groups
                 if (q, g) in ran]
        panels.append({"item": item, "bursts": b, "name": name, "threads": t,
                       "queues": queues, "groups": groups, "marks": marks})
    items = items_in(rows)
    groups = FC.group_order({m["group"] for pn in panels for m in pn["marks"]})
    ts = sorted({pn["threads"] for pn in panels if pn["threads"]})
    ns = [m[k].n for pn in panels for m in pn["marks"] for k in ("p50", "p99") if m[k]]
    drawn = ("per queue and regime (shape; fill: pace): p50 (the mark) and p99 (the dash "
             "above it), each the median of its runs, %s" % FC.whisker_words(ns))
    if nolat:
        drawn += "; %s: no latency recorded" % ", ".join(sorted(nolat))
    if left:
        drawn += "; " + FC.left_out_words({q: w for q, w in left.items() if q not in nolat})
    if others:
        drawn += "; " + others_short(host)
    return {"kind": "peers-latency", "panels": panels, "rows": rows,
            "grid": (len(items), 2), "items": items, "groups": groups, "left_out": left,
            "title": "Peers: closed-loop latency by queue at %s threads, each regime apart "
                     "\u2014 set by how full the queue runs, not by its hand-over" % "/".join(
                         str(t) for t in ts),
            "annotation": None, "drawn": drawn,
            "caption": caption_lines(host, rows, [
                LATENCY_WORDS + " (Little: items in flight / throughput); a full queue's "
                "latency is its length, a near-empty one's the hand-over",
                oversub_status(over_rows, lambda r: (r["queue"], item_of(r), r["bursts"]),
                               mark="'oversubscribed' over the marks"),
                "message items: not measured in these results" if "message" not in items
                else None,
                FC.left_out_words(left) or None,
                "producers and consumers apart only: the %d runs under %s are in "
                "peers-throughput" % (npairs, " and ".join(wl for wl, _rs in sym))
                if npairs else None, others])}


def latency_x(pn, m):
    gs = [x["group"] for x in pn["marks"] if x["queue"] == m["queue"]]
    return pn["queues"].index(m["queue"]) + FC.spread(gs.index(m["group"]), len(gs), 0.44)


def draw_peers_latency(axes, p, show_legend=True):
    allv = [v for pn in p["panels"] for m in pn["marks"] for k in ("p50", "p99")
            if m[k] and m[k].lo > 0 for v in (m[k].lo, m[k].hi)]
    split = any(len([m for m in pn["marks"] if m["queue"] == q]) > 1
                for pn in p["panels"] for q in pn["queues"])
    for ax, pn in zip(axes, p["panels"]):
        if not pn["marks"]:
            no_data(ax, "no runs")
            ax.set_title(pn["name"], fontsize=11)
            continue
        for m in pn["marks"]:
            color = color_of("queue", m["queue"])
            x = latency_x(pn, m)
            # the percentiles a log axis can draw (None: not recorded, or 0)
            a50, a99 = (m[k] if m[k] and m[k].est > 0 else None for k in ("p50", "p99"))
            if a50 and a99:
                ax.plot([x, x + P99_DX], [a50.est, a99.est], color=color, linewidth=1.0,
                        alpha=0.6, zorder=3)
            if a99:
                ax.errorbar([x + P99_DX], [a99.est], yerr=[[a99.est - a99.lo], [a99.hi - a99.est]],
                            color=color, marker="_", markersize=14, markeredgewidth=2.4,
                            linestyle="none", capsize=2, elinewidth=0.8, alpha=0.9, zorder=4,
                            gid="peers-latency-p99")
            if a50:
                ax.errorbar([x], [a50.est], yerr=[[a50.est - a50.lo], [a50.hi - a50.est]],
                            linestyle="none", markersize=8, capsize=3, elinewidth=1.1,
                            zorder=5, gid="peers-latency-p50",
                            **FC.group_style(m["group"], color))
                if m["group"][0] == "consumer-paced":
                    FC.dot_inside(ax, x, a50.est, color)
                if split:
                    FC.n_beside(ax, x, a50.est, a50.n)
            if not (m["p50"] or m["p99"]):
                ax.text(pn["queues"].index(m["queue"]), 0.03, "no latency\nrecorded",
                        ha="center", va="bottom", fontsize=8.5, color="0.35",
                        transform=ax.get_xaxis_transform())
            if m.get("oversubscribed") == 1:
                ax.text(x, 0.97, "oversubscribed", ha="center", va="top", fontsize=8,
                        fontweight="bold", rotation=90, transform=ax.get_xaxis_transform())
        FC.category_axis(ax, pn["queues"], "queue", rotate=30)
        ax.set_ylabel(LATENCY_YLABEL)
        ax.set_title("%s, %d threads" % (pn["name"], pn["threads"]), fontsize=11)
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(fig_draw.ticker.FuncFormatter(fmt_ns))
        ax.yaxis.set_minor_formatter(fig_draw.ticker.NullFormatter())
        if allv:
            ax.set_ylim(min(allv) / 2.0, max(allv) * 2.0)
    for ax in axes[len(p["panels"]):]:
        no_data(ax, "")
    if show_legend:
        h = [fig_draw.handle(color="0.3", marker="o", linestyle="none", markersize=8,
                             label="p50: the mark (shape: regime)"),
             fig_draw.handle(color="0.3", marker="_", linestyle="none", markersize=14,
                             markeredgewidth=2.4, label="p99: the dash")]
        h += FC.regime_legend(p["groups"]) + [fig_draw.whisker_handle()]
        h += fig_draw.mark_handles(note=split and "n beside a mark: its runs")
        fig_draw.legend_outside(legend_axis(axes, p), h, borderaxespad=None)


# --------------------------------------------------------------------------
# gnuplot: the data file

#: peers-latency.dat's one block; scripts/gnuplot/peers-latency.gp reads it by name (lt_)
LATENCY_COLUMNS = ["panel", "message", "bursts", "queue", "qidx", "group", "threads", "x",
                   "p50_median_ns", "p50_lo_ns", "p50_hi_ns", "p99_median_ns", "p99_lo_ns",
                   "p99_hi_ns", "n", "color_rgb", "pt", "dot", "oversubscribed", "nqueues"]


def dat_peers_latency(name, p):
    g = FC.g
    out = dat_header(name, p, LATENCY_WORDS + ": p50 and p99 by queue and (pace, regime) "
                     "group at the largest thread count, each the median of the group's "
                     "runs and its interval; one row per panel (0 inline single "
                     "operations, 1 inline bursts, 2 message single operations, 3 message "
                     "bursts), queue and group; x: the queue's slot; NaN: no latency "
                     "recorded (faa)", LATENCY_COLUMNS)
    rows = []
    for k, pn in enumerate(p["panels"]):
        for m in pn["marks"]:
            a50, a99 = m["p50"], m["p99"]
            pt_, dot = FC.group_pt(m["group"])
            rows.append([k, int(pn["item"] == "message"), pn["bursts"], m["queue"],
                         pn["queues"].index(m["queue"]), group_key(m["group"]), pn["threads"],
                         "%.6g" % latency_x(pn, m)] +
                        [g(getattr(a, f, None)) for a in (a50, a99) for f in ("est", "lo", "hi")] +
                        [getattr(a50 or a99, "n", 0), rgb_int(color_of("queue", m["queue"])),
                         pt_, dot, ov_col(m.get("oversubscribed")), len(pn["queues"])])
    return out + FC.block("latency by queue and regime", LATENCY_COLUMNS, rows, empty=[
        [0, 0, 0, "none", 0, "none", 1, 0] + ["NaN"] * 6 + [0, 0, 7, 0, "NaN", 1]])
