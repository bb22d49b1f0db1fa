# SPDX-License-Identifier: BSD-2-Clause
# Why this file is long: one figure pair (peers throughput and latency), its
# data prepared once for both renderers, in three panel rows.
"""fig_peers.py - the peers figures of plot.py: peers-throughput, peers-latency.

Producers and consumers apart (workload prodcons), a panel per item mode
(inline, message) and bursts setting (single operations, bursts):

* each queue's runs split by (pace, regime) (scripts/regime.py): a closed-loop
  1P1C run lands near empty (the consumer waits for each item: a hand-over)
  or full (the producer waits for room) by chance, and the two differ
  several-fold; a median over both would measure the mix. Each group is drawn
  apart: marker shape per regime, fill per pace (free filled, producer-paced
  hollow, consumer-paced hollow with a dot), n beside the dot where a queue's
  runs split;
* one thread count (a small host): the queues on x, a dot per group with its
  median's interval, the queue's ceiling a short black bar over its slot, the
  harness alone a grey dash-dot level; several: lines against threads
  (line style per pace), the ceilings as lines;
* faa has no message items (it moves no data) and ck no bursts (a loop of
  single operations): left out of those panels.

Under pairs (every thread enqueues, then dequeues), a last row: each
data-moving queue's operations/s and its lost races (as before).

peers-latency: closed-loop latency, p50 and p99 per queue and group at the
largest thread count. In a closed loop the latency is set by how full the
queue runs (Little: items in flight / throughput), not by the queue's
hand-over: the title and axis say so.

Uses plot.py's helpers through ``P`` (bound by plot.py at import).
"""

from . import nrdata
from . import fig_common as FC

P = None   # plot.py's module namespace, bound by plot.py


def bind(ns):
    global P
    P = ns


#: the queues that move no data (measured only): left out of the peers under pairs
MEASURED_ONLY = ("faa", "null")
#: the peers under pairs: the title of the row, the x offset of each item mode
#: at its queue's slot (one thread count), the y label
PAIRS_WORDS = "pairs: every thread enqueues, then dequeues"
PAIRS_ITEM_OFFSET = {"inline": -0.15, "message": 0.15}
PAIRS_YLABEL = "throughput (million operations/s)"
#: the heights (axes fraction) of the rows of lost races along the bottom of a
#: pairs panel with one thread count: {two item modes: (inline, message)}
PAIRS_STRIP = {False: (0.025,), True: (0.1, 0.025)}
#: peers-latency's words: what closed-loop latency measures
LATENCY_WORDS = "closed-loop latency: set by how full the queue runs, not by its hand-over"
#: p99's dash a little right of its p50 mark (its whisker apart from p50's)
P99_DX = 0.07
LATENCY_YLABEL = "closed-loop latency, enqueue to dequeue\n(set by the queue's occupancy)"


def workload_of(row):
    return P.workload_of(row)


def peer_panels(rows):
    """[(item, bursts, name, rows)]: inline items first, then message items; single
    operations, then bursts; only the item modes the rows hold; the runs of a
    queue in a mode it has not (faa message, ck bursts) left out."""
    out = []
    for item in P.items_in(rows):
        for b, name in ((0, "single operations"), (1, "bursts")):
            rs = [r for r in rows if P.item_of(r) == item and FC.bursts_of(r) == b
                  and FC.runs_in(r["queue"], item, b)]
            out.append((item, b, "%s\n%s" % (P.ITEM_TITLES.get(item, item + " items"), name),
                        rs))
    return out


# --------------------------------------------------------------------------
# Producers and consumers apart

def prodcons_panel(host, item, b, name, rs):
    """One panel: {(queue, group): [(threads, median, lo, hi, n, ceiling,
    harness, oversubscribed, coverage)]} with lo..hi the median's interval."""
    qkey = (lambda r: (r["queue"], FC.group_of(r), nrdata.threads(r)))
    ivs = FC.intervals(rs, (qkey,), "throughput_ops_per_s")
    hs = P.harness_of(rs, qkey)
    ov = P.oversub_of(rs, qkey)
    ceiling = {}
    for (q, t), c in host.ceiling.drawn(rs, lambda r: (r["queue"], nrdata.threads(r))).items():
        ceiling.setdefault(q, {})[t] = c
    series = {}
    for ((q, grp, t),), iv in ivs.items():
        h = hs.get((q, grp, t))
        series.setdefault((q, grp), []).append(
            (t, iv.est, iv.lo, iv.hi, iv.n, ceiling.get(q, {}).get(t),
             h[0] if h else None, ov.get((q, grp, t)), iv.coverage))
    for v in series.values():
        v.sort()
    queues = P.order_of("queue", {q for q, _g in series})
    groups = FC.group_order({g for _q, g in series})
    cser = {q: [(t, None, None, None, None, c) for t, c in sorted(ceiling[q].items())]
            for q in queues if q in ceiling}
    return {"item": item, "bursts": b, "name": name, "rows": rs, "queues": queues,
            "groups": groups, "series": series, "ceiling": ceiling,
            "ceiling_lines": P.ceiling_groups(cser, [q for q in queues if q in cser]),
            "harness": P.harness_line(rs, nrdata.threads)}


@FC.condensed
def prep_peers(host):
    allrows = host.data["peers"]
    rows = [r for r in allrows if workload_of(r) == "prodcons"]
    _kept, left = FC.meaningful(rows)
    pairs = prep_peers_pairs(host, [r for r in allrows if workload_of(r) == "pairs"])
    panels = [prodcons_panel(host, item, b, name, rs)
              for item, b, name, rs in peer_panels(rows)]
    threads = sorted({nrdata.threads(r) for r in rows})
    cat = len(threads) == 1
    groups = FC.group_order({g for pn in panels for g in pn["groups"]})
    items = P.items_in(rows)
    bound = sum(P.bound_count(pn["series"]) for pn in panels)
    prows = [r for pn in pairs for r in pn["rows"]]
    extra = [host.ceiling.status(), P.harness_status(rows, bound),
             P.oversub_status(rows + prows, lambda r: (
                 workload_of(r), r["queue"], P.item_of(r), r["bursts"], nrdata.threads(r),
                 FC.group_of(r))),
             "message items: not measured in these results" if "message" not in items else
             None,
             "runs split by (pace, regime): " + "; ".join(
                 "%s %d" % (FC.group_label(g), sum(1 for pn in panels for r in pn["rows"]
                                                  if FC.group_of(r) == g)) for g in groups),
             FC.left_out_words(left) or None]
    caption = P.caption_lines(host, rows, extra)
    if pairs:
        caption.append((pairs_caption(allrows, pairs), None))
    pthreads = sorted({nrdata.threads(r) for r in prows})
    if cat:
        title = "Peers: throughput by queue at %d threads, each regime apart" % threads[0]
    else:
        title = "Peers: throughput vs threads by queue, each regime apart"
    if pairs:
        title += " (producers and consumers); under pairs: operations/s by queue%s" % (
            " at %d threads" % pthreads[0] if len(pthreads) == 1 else " vs threads")
    ns = [q[4] for pn in panels for pts in pn["series"].values() for q in pts]
    drawn = ("%s per queue and regime (shape; fill: pace), median of its runs%s, %s; %s; "
             "grey dash-dot: harness alone" % (
                 "a dot" if cat else "a line", " (n beside it where they split)" if cat
                 else "", FC.whisker_words(ns),
                 "black bar: the ceiling model" if cat else "dashed: the ceiling model"))
    if left:
        drawn += "; " + FC.left_out_words(left)
    if pairs:
        drawn += "; last row: pairs, lost races per 1,000 operations"
    p = {"kind": "peers", "panels": panels, "rows": rows, "ylabel":
         "throughput (million items/s)", "scale": 1e-6, "family": "queue",
         "grid": (max(1, len(items)) + (1 if pairs else 0), 2), "items": items,
         "threads": threads, "categorical": cat, "groups": groups, "left_out": left,
         "pairs": pairs, "pairs_threads": pthreads, "pairs_categorical": len(pthreads) == 1,
         "title": title, "annotation": None, "caption": caption, "drawn": drawn}
    return p


def peers_legend_handles(p):
    plt = P.plt
    h = []
    queues = P.order_of("queue", {q for pn in p["panels"] for q in pn["queues"]})
    if not p["categorical"]:
        h += [plt.Line2D([], [], color=P.color_of("queue", q), linewidth=2, label=q)
              for q in queues]
    h += FC.regime_legend(p["groups"], line=not p["categorical"])
    h.append(plt.Line2D([], [], color="black", marker="|", linestyle="none", markersize=10,
                        label="whisker: the median's interval"))
    if any(pn["ceiling"] for pn in p["panels"]):
        h.append(plt.Line2D([], [], color="black", linewidth=2.2 if p["categorical"] else 1.6,
                            linestyle="-" if p["categorical"] else "--",
                            label="ceiling (model)"))
    if any(pn["harness"] for pn in p["panels"]):
        h.append(plt.Line2D([], [], label=P.HARNESS_LABEL, **P.HARNESS_STYLE))
    if any(P.bound_count(pn["series"]) for pn in p["panels"]):
        h.append(plt.Line2D([], [], linestyle="none", marker="o", markersize=13,
                            markerfacecolor="none", markeredgecolor="0.35",
                            label="ringed: within 20% of the harness alone"))
    if any(P.is_over(q) for pn in p["panels"] for pts in pn["series"].values() for q in pts):
        h.append(plt.Line2D([], [], **P.OVERSUB_STYLE, label=P.OVERSUB_LABEL))
    if p["categorical"] and split_somewhere(p):
        h.append(plt.Line2D([], [], linestyle="none", label="n beside a dot: its runs"))
    return h


def split_somewhere(p):
    """Whether some queue's runs split into more than one group (n is then drawn)."""
    return any(len([g for g in pn["groups"] if (q, g) in pn["series"]]) > 1
               for pn in p["panels"] for q in pn["queues"])


def slot_x(pn, q, g):
    """The x of a queue's group in a panel with the queues on x."""
    gs = [x for x in pn["groups"] if (q, x) in pn["series"]]
    return pn["queues"].index(q) + FC.spread(gs.index(g), len(gs), 0.44)


def draw_prodcons_categories(ax, p, pn, show_n):
    vals, cvals = [], []
    for qi, q in enumerate(pn["queues"]):
        color = P.color_of("queue", q)
        for g in pn["groups"]:
            pts = pn["series"].get((q, g))
            if not pts:
                continue
            pt = pts[0]
            x = slot_x(pn, q, g)
            y = pt[1] * 1e-6
            ax.errorbar([x], [y], yerr=[[max(0.0, y - pt[2] * 1e-6)],
                                        [max(0.0, pt[3] * 1e-6 - y)]],
                        linestyle="none", markersize=8, capsize=3, elinewidth=1.1, zorder=4,
                        gid="peers-%s-%s" % (q, FC.group_label(g)),
                        **FC.group_style(g, color))
            if g[0] == "consumer-paced":
                FC.dot_inside(ax, x, y, color)
            if show_n:
                ax.annotate("%d" % pt[4], (x, y), xytext=(5, -2), textcoords="offset points",
                            fontsize=7.5, color="0.35", ha="left", va="top",
                            gid="peers-n")
            P.ring_bound(ax, [x], [pt], 1e-6)
            P.mark_oversub(ax, [x], [pt], 1e-6, label=False)
            vals += [pt[2] * 1e-6, pt[3] * 1e-6]
        c = next(iter(pn["ceiling"].get(q, {}).values()), None)
        if c:
            FC.level_mark(ax, qi, c * 1e-6, color="black", linewidth=2.2, zorder=3,
                          gid="peers-ceiling")
            cvals.append(c * 1e-6)
    for h in pn["harness"]:
        ax.axhline(h[1] * 1e-6, zorder=2, **P.HARNESS_STYLE)
        vals.append(h[1] * 1e-6)
    top = max(vals) if vals else 1.0
    P.value_axis(ax, vals + [min(c, top * 30) for c in cvals])
    FC.category_axis(ax, pn["queues"], "queue")


def draw_prodcons_lines(ax, p, pn):
    series, order, colors, styles, labels, hollow = {}, [], {}, {}, {}, set()
    for q in pn["queues"]:
        for g in pn["groups"]:
            pts = pn["series"].get((q, g))
            if not pts:
                continue
            k = "%s|%s|%s" % (q, g[0], g[1])
            series[k], colors[k] = pts, P.color_of("queue", q)
            styles[k] = (FC.PACE_DASH.get(g[0], "-"), FC.REGIME_MARKER.get(g[1], "D"))
            labels[k] = "_" + k
            if g[0] != "free":
                hollow.add(k)
            order.append(k)
    P.draw_series(ax, series, order, "queue", labels, 1e-6, pn["ceiling_lines"],
                  "throughput (million items/s)", harness=pn["harness"], colors=colors,
                  styles=styles, hollow=hollow)


def draw_peers(axes, p, show_legend=True):
    show_n = split_somewhere(p)
    for ax, pn in zip(axes, p["panels"]):
        if not pn["series"]:
            P.no_data(ax, "no runs")
            ax.set_title(pn["name"], fontsize=11)
            continue
        if p["categorical"]:
            draw_prodcons_categories(ax, p, pn, show_n)
        else:
            draw_prodcons_lines(ax, p, pn)
        ax.set_ylabel("throughput (million items/s)")
        ax.set_title(pn["name"] + (" (burst = batch items)" if pn["bursts"] else ""),
                     fontsize=11)
    n = len(p["panels"])
    pairs_axes = axes[n:n + 2] if p.get("pairs") else []
    for j, ax in enumerate(pairs_axes):
        pn = next((x for x in p["pairs"] if x["bursts"] == j), None)
        if pn is None:
            P.no_data(ax, "pairs: no %s in these results" % ("bursts" if j else
                                                             "single operations"))
            continue
        draw_peers_pairs(ax, p, pn)
    for ax in axes[n + len(pairs_axes):]:
        P.no_data(ax, "")
    if show_legend:
        P.legend_axis(axes, p).legend(handles=peers_legend_handles(p), loc="upper left",
                                      bbox_to_anchor=(1.02, 1.0), frameon=False,
                                      borderaxespad=0.0)
        if pairs_axes:
            pairs_legend(pairs_axes[-1], p)


# --------------------------------------------------------------------------
# Under pairs

def pairs_lost_text(v):
    """A lost-race rate beside a dot of the pairs panel (per 1,000 operations)."""
    return "lost %s" % ("%.2g" % v if v < 10 else "%.0f" % v)


def pairs_x(p, pn, q, item, t):
    """The x of a queue and item mode in a pairs panel: its slot (one thread
    count; inline left, message right), else its threads shifted as
    draw_series shifts the lines."""
    items = pn["items"]
    if p["pairs_categorical"]:
        return pn["queues"].index(q) + (PAIRS_ITEM_OFFSET.get(item, 0.0)
                                        if len(items) > 1 else 0.0)
    k = [(a, b) for a in pn["queues"] for b in items]
    return P.dodger(p["pairs_threads"], len(k))(t, k.index((q, item)))


def prep_peers_pairs(host, rows):
    """The peers under enqueue-dequeue pairs: a panel per bursts setting
    (single operations, bursts) where the rows hold it, each data-moving
    queue's operations/s per item mode and thread count (median, min, max),
    its lost races per 1,000 operations where it counts them (None where it
    does not), the harness alone per item mode; ck left out of bursts."""
    rows = [r for r in rows if r["queue"] not in MEASURED_ONLY]
    panels = []
    for b, name in ((0, "single operations"), (1, "bursts (burst = batch items)")):
        rs = [r for r in rows if FC.bursts_of(r) == b
              and FC.runs_in(r["queue"], P.item_of(r), b)]
        if not rs:
            continue
        key = (lambda r: (r["queue"], P.item_of(r), nrdata.threads(r)))
        agg = nrdata.aggregate(rs, (key,), "throughput_ops_per_s")
        lost = nrdata.aggregate(rs, (key,), P.failed_per_1000)
        ov = P.oversub_of(rs, key)
        series = {}
        for (k,), (med, mn, mx, n) in agg.items():
            series.setdefault(k[:2], []).append(
                (k[2], med, mn, mx, n, None, None, ov.get(k),
                 lost[(k,)][0] if (k,) in lost else None))
        for v in series.values():
            v.sort()
        items = P.items_in(rs)
        panels.append({"bursts": b, "name": "%s\n%s" % (PAIRS_WORDS, name), "rows": rs,
                       "queues": P.order_of("queue", {q for q, _i in series}),
                       "items": items, "series": series,
                       "harness": {i: P.harness_line([r for r in rs if P.item_of(r) == i],
                                                     nrdata.threads) for i in items}})
    return panels


def pairs_caption(rows, panels):
    """The notes' line on the pairs row."""
    if not panels:
        return None
    reps = sorted({int(r["rep"]) for pn in panels for r in pn["rows"]})
    items = P.items_in([r for pn in panels for r in pn["rows"]])
    counted = P.order_of("queue", {q for pn in panels for (q, _i), pts in pn["series"].items()
                                   if any(x[8] is not None for x in pts)})
    left = sorted({r["queue"] for r in rows if r["queue"] in MEASURED_ONLY})
    nob = sorted({r["queue"] for r in rows if r["queue"] in FC.NO_BURSTS})
    return ("pairs (every thread enqueues, then dequeues: threads of one role race): "
            "successful operations/s (enqueues + dequeues), median of %d rep%s, whiskers "
            "min\u2013max%s; %s: lost races per 1,000 operations (%s)%s%s" % (
                len(reps), "" if len(reps) == 1 else "s",
                "; filled inline items, hollow message items" if len(items) > 1 else "",
                "the numbers along the bottom" if len(
                    {nrdata.threads(r) for pn in panels for r in pn["rows"]}) == 1 else
                "\u201clost N\u201d beside a dot",
                "the queues that count them: " + ", ".join(counted) if counted else
                "no queue counted them",
                "; %s left out (%s no data)" % (", ".join(left), "moves" if len(left) == 1
                                                else "move") if left else "",
                "; %s not in the bursts panel (no bursts)" % ", ".join(nob) if nob else ""))


def draw_peers_pairs(ax, p, pn):
    """One pairs panel: each data-moving queue's operations/s (one thread count:
    a dot and its whisker min\u2013max at the queue's slot; several: a line
    against threads), inline items filled, message items hollow (dashed);
    the lost races per 1,000 operations of the queues that count them (one
    thread count: a row of numbers per item mode along the bottom, in a band
    below the data; several: "lost N" beside each point); the harness alone as
    a grey dash-dot level (dotted: message items)."""
    ticker = P.ticker
    cat = p["pairs_categorical"]
    ax.set_gid("peers-pairs")
    vals, strip = [], False   # strip: the band of lost races is drawn
    for q in pn["queues"]:
        color = P.color_of("queue", q)
        for j, item in enumerate(pn["items"]):
            pts = pn["series"].get((q, item))
            if not pts:
                continue
            xs = [pairs_x(p, pn, q, item, x[0]) for x in pts]
            med = [x[1] * 1e-6 for x in pts]
            err = [[(x[1] - x[2]) * 1e-6 for x in pts], [(x[3] - x[1]) * 1e-6 for x in pts]]
            ax.errorbar(xs, med, yerr=err, color=color, marker=P.marker_of("queue", q),
                        markersize=7 if cat else 5.5, linewidth=1.8, capsize=3,
                        elinewidth=1.1, zorder=4,
                        linestyle="none" if cat or len(pts) == 1 else ("-" if j == 0 else "--"),
                        markerfacecolor=color if j == 0 else "white", markeredgecolor=color,
                        markeredgewidth=1.5, gid="peers-pairs-%s-%s" % (q, item),
                        label=None if cat or j else q)
            P.mark_oversub(ax, xs, pts, 1e-6, label=False)
            vals += [x[2] * 1e-6 for x in pts] + [x[3] * 1e-6 for x in pts]
            for x, m, pt in zip(xs, med, pts):
                if pt[8] is None:
                    continue
                if cat:
                    strip = True
                    ax.text(pn["queues"].index(q), PAIRS_STRIP[len(pn["items"]) > 1][j],
                            pairs_lost_text(pt[8]).split()[1], ha="center", va="bottom",
                            fontsize=8, color=color, transform=ax.get_xaxis_transform(),
                            gid="peers-pairs-lost", zorder=3)
                else:
                    ax.annotate(pairs_lost_text(pt[8]), (x, m), xytext=(6, 0),
                                textcoords="offset points", ha="left", va="center",
                                fontsize=7.5, color="0.2", gid="peers-pairs-lost", zorder=5)
    for j, item in enumerate(pn["items"]):
        h = pn["harness"].get(item)
        if not h:
            continue
        style = dict(P.HARNESS_STYLE)
        if j:
            style["linestyle"] = ":"
        if cat:
            ax.axhline(h[0][1] * 1e-6, zorder=2, **style)
        else:
            ax.plot([x[0] for x in h], [x[1] * 1e-6 for x in h], zorder=2, **style)
        vals += [x[1] * 1e-6 for x in h]
    if cat:
        FC.category_axis(ax, pn["queues"], "queue", rotate=30)
        ax.set_xlim(-0.85, len(pn["queues"]) - 0.15)
    else:
        P.threads_axis(ax, p["pairs_threads"], "threads (each enqueues, then dequeues)")
    ax.set_ylabel(PAIRS_YLABEL)
    P.value_axis(ax, vals)
    if strip:
        # room under the lowest whisker for the rows of lost races, and their names
        two = len(pn["items"]) > 1
        f = 0.25 if two else 0.18   # the share of the axes' height they take
        lo, hi = ax.get_ylim()
        if ax.get_yscale() == "log":
            ax.set_ylim(hi / (hi / lo) ** (1.0 / (1.0 - f)), hi)
        else:
            ax.set_ylim(hi - (hi - lo) / (1.0 - f), hi)
        rows = PAIRS_STRIP[two]
        ax.text(-0.8, rows[0] + 0.075, "lost races per 1,000 operations", ha="left",
                va="bottom", fontsize=7.5, color="0.3", zorder=3,
                transform=ax.get_xaxis_transform(), gid="peers-pairs-lost-name")
        if two:
            for j in range(2):
                ax.plot([-0.55], [rows[j] + 0.022], transform=ax.get_xaxis_transform(),
                        linestyle="none", marker="o", markersize=6, color="0.35",
                        markerfacecolor="0.35" if j == 0 else "white", markeredgewidth=1.3,
                        zorder=3, clip_on=False)
        from matplotlib.patches import Rectangle
        ax.add_patch(Rectangle((0, 0), 1, f * 0.97, transform=ax.transAxes, facecolor="0.96",
                               edgecolor="none", zorder=1.7))
        nlo, nhi = ax.get_ylim()
        sep = (nlo * (nhi / nlo) ** f if ax.get_yscale() == "log" else nlo + f * (nhi - nlo))
        for axis_fmt in ("major", "minor"):
            fmt = getattr(ax.yaxis, "get_%s_formatter" % axis_fmt)()
            getattr(ax.yaxis, "set_%s_formatter" % axis_fmt)(ticker.FuncFormatter(
                lambda v, pos, fmt=fmt: fmt(v, pos) if v >= sep else ""))
    ax.set_title(pn["name"] + (" \u2014 %d threads%s" % (
        p["pairs_threads"][0], ", oversubscribed" if any(
            P.is_over(x) for v in pn["series"].values() for x in v) else "")
        if cat else ""), fontsize=11)


def pairs_legend(ax, p):
    """What the marks of the pairs row mean, beside its last panel."""
    Line2D = P.plt.Line2D
    h = []
    if not p["pairs_categorical"]:
        qs = P.order_of("queue", {q for pn in p["pairs"] for q in pn["queues"]})
        h += [Line2D([], [], color=P.color_of("queue", q), marker=P.marker_of("queue", q),
                     label=q) for q in qs]
    items = P.items_in([r for pn in p["pairs"] for r in pn["rows"]])
    for j, item in enumerate(items):
        h.append(Line2D([], [], color="0.3", marker="o", markersize=7,
                        linestyle="none" if p["pairs_categorical"] else ("-" if j == 0 else "--"),
                        markerfacecolor="0.3" if j == 0 else "white", markeredgecolor="0.3",
                        markeredgewidth=1.5, label=P.ITEM_TITLES.get(item, item + " items")
                        .split(":")[0]))
    h.append(Line2D([], [], color="black", marker="|", linestyle="none", markersize=10,
                    label="whisker: min\u2013max over reps"))
    if any(pn["harness"].get(i) for pn in p["pairs"] for i in pn["items"]):
        for j, item in enumerate(items):
            style = dict(P.HARNESS_STYLE)
            if j:
                style["linestyle"] = ":"
            h.append(Line2D([], [], label=P.HARNESS_LABEL + (
                ", " + item + " items" if len(items) > 1 else ""), **style))
    if any(P.is_over(x) for pn in p["pairs"] for v in pn["series"].values() for x in v):
        h.append(Line2D([], [], **P.OVERSUB_STYLE, label=P.OVERSUB_LABEL))
    if any(x[8] is not None for pn in p["pairs"] for v in pn["series"].values() for x in v):
        h.append(Line2D([], [], linestyle="none", label="%s: lost races per 1,000 "
                        "operations\n(the queues that count them)" % (
                            "numbers along the bottom" if p["pairs_categorical"] else
                            "lost N")))
    ax.legend(handles=h, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False,
              borderaxespad=0.0)


# --------------------------------------------------------------------------
# peers-latency: closed-loop latency by queue and regime

@FC.condensed
def prep_peers_latency(host):
    allrows = host.data["peers"]
    rows = [r for r in allrows if workload_of(r) == "prodcons"]
    npairs = sum(1 for r in allrows if workload_of(r) == "pairs")
    _kept, left = FC.meaningful(rows)
    panels = []
    nolat = set()
    for item, b, name, rs in peer_panels(rows):
        if not rs:
            panels.append({"item": item, "bursts": b, "name": name, "threads": None,
                           "queues": [], "groups": [], "marks": []})
            continue
        t = max(nrdata.threads(r) for r in rs)
        at = [r for r in rs if nrdata.threads(r) == t]
        key = (lambda r: (r["queue"], FC.group_of(r)))
        p50 = FC.intervals(at, (key,), "p50_ns")
        p99 = FC.intervals(at, (key,), "p99_ns")
        ov = P.oversub_of(at, key)
        # a queue that records no latency (faa: no items) has no mark
        queues = P.order_of("queue", {r["queue"] for r in at
                                      if nrdata.num(r, "p50_ns") is not None})
        nolat.update(r["queue"] for r in at if r["queue"] not in queues)
        groups = FC.group_order({FC.group_of(r) for r in at})
        marks = []
        for q in queues:
            for g in groups:
                if not any(r["queue"] == q and FC.group_of(r) == g for r in at):
                    continue
                marks.append({"queue": q, "group": g, "p50": p50.get(((q, g),)),
                              "p99": p99.get(((q, g),)), "oversubscribed": ov.get((q, g))})
        panels.append({"item": item, "bursts": b, "name": name, "threads": t,
                       "queues": queues, "groups": groups, "marks": marks})
    items = P.items_in(rows)
    groups = FC.group_order({m["group"] for pn in panels for m in pn["marks"]})
    ts = sorted({pn["threads"] for pn in panels if pn["threads"]})
    ns = [m[k].n for pn in panels for m in pn["marks"] for k in ("p50", "p99") if m[k]]
    drawn = ("per queue and regime (shape; fill: pace): p50 (the mark) and p99 (the dash "
             "above it), each the median of its runs, %s" % FC.whisker_words(ns))
    if nolat:
        drawn += "; %s: no latency recorded" % ", ".join(sorted(nolat))
    if left:
        drawn += "; " + FC.left_out_words({q: w for q, w in left.items() if q not in nolat})
    over_rows = [r for pn in peer_panels(rows) for r in pn[3]
                 if nrdata.threads(r) == max(nrdata.threads(x) for x in pn[3])]
    p = {"kind": "peers-latency", "panels": panels, "rows": rows,
         "grid": (len(items), 2), "items": items, "groups": groups, "left_out": left,
         "title": "Peers: closed-loop latency by queue at %s threads, each regime apart \u2014 "
                  "set by how full the queue runs, not by its hand-over" % "/".join(
                      str(t) for t in ts),
         "annotation": None, "drawn": drawn,
         "caption": P.caption_lines(host, rows, [
             LATENCY_WORDS + " (Little: items in flight / throughput); a full queue's "
             "latency is its length, a near-empty one's the hand-over",
             P.oversub_status(over_rows, lambda r: (r["queue"], P.item_of(r), r["bursts"]),
                              mark="'oversubscribed' over the marks"),
             "message items: not measured in these results" if "message" not in items
             else None,
             FC.left_out_words(left) or None,
             "producers and consumers apart only: the %d runs under pairs are in "
             "peers-throughput" % npairs if npairs else None])}
    return p


def latency_x(pn, m):
    gs = [x["group"] for x in pn["marks"] if x["queue"] == m["queue"]]
    return pn["queues"].index(m["queue"]) + FC.spread(gs.index(m["group"]), len(gs), 0.44)


def draw_peers_latency(axes, p, show_legend=True):
    allv = []
    for pn in p["panels"]:
        for m in pn["marks"]:
            for k in ("p50", "p99"):
                if m[k] and m[k].lo > 0:
                    allv += [m[k].lo, m[k].hi]
    split = any(len([m for m in pn["marks"] if m["queue"] == q]) > 1
                for pn in p["panels"] for q in pn["queues"])
    for ax, pn in zip(axes, p["panels"]):
        if not pn["marks"]:
            P.no_data(ax, "no runs")
            ax.set_title(pn["name"], fontsize=11)
            continue
        for m in pn["marks"]:
            color = P.color_of("queue", m["queue"])
            x = latency_x(pn, m)
            a50, a99 = m["p50"], m["p99"]
            if a50 and a99 and a50.est > 0 and a99.est > 0:
                ax.plot([x, x + P99_DX], [a50.est, a99.est], color=color, linewidth=1.0, alpha=0.6,
                        zorder=3)
            if a99 and a99.est > 0:
                ax.errorbar([x + P99_DX], [a99.est], yerr=[[a99.est - a99.lo], [a99.hi - a99.est]],
                            color=color, marker="_", markersize=14, markeredgewidth=2.4,
                            linestyle="none", capsize=2, elinewidth=0.8, alpha=0.9, zorder=4,
                            gid="peers-latency-p99")
            if a50 and a50.est > 0:
                ax.errorbar([x], [a50.est], yerr=[[a50.est - a50.lo], [a50.hi - a50.est]],
                            linestyle="none", markersize=8, capsize=3, elinewidth=1.1,
                            zorder=5, gid="peers-latency-p50",
                            **FC.group_style(m["group"], color))
                if m["group"][0] == "consumer-paced":
                    FC.dot_inside(ax, x, a50.est, color)
                if split:
                    ax.annotate("%d" % a50.n, (x, a50.est), xytext=(5, -2),
                                textcoords="offset points", fontsize=7.5, color="0.35",
                                ha="left", va="top")
            if not (a50 or a99):
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
        ax.yaxis.set_major_formatter(P.ticker.FuncFormatter(P.fmt_ns))
        ax.yaxis.set_minor_formatter(P.ticker.NullFormatter())
        if allv:
            ax.set_ylim(min(allv) / 2.0, max(allv) * 2.0)
    for ax in axes[len(p["panels"]):]:
        P.no_data(ax, "")
    if show_legend:
        plt = P.plt
        h = FC.regime_legend(p["groups"])
        h[0:0] = [plt.Line2D([], [], color="0.3", marker="o", linestyle="none", markersize=8,
                             label="p50: the mark (shape: regime)"),
                  plt.Line2D([], [], color="0.3", marker="_", linestyle="none", markersize=14,
                             markeredgewidth=2.4, label="p99: the dash")]
        h.append(plt.Line2D([], [], color="black", marker="|", linestyle="none",
                            markersize=10, label="whisker: the median's interval"))
        if split:
            h.append(plt.Line2D([], [], linestyle="none", label="n beside a mark: its runs"))
        P.legend_axis(axes, p).legend(handles=h, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                                      frameon=False)


# --------------------------------------------------------------------------
# Data files

#: peers-throughput.dat's blocks; scripts/gnuplot/peers-throughput.gp names the
#: columns it reads (pc_, ce_, hn_, pp_ = N) and the tests check them
PEERS_BLOCKS = (
    ("prodcons", ["panel", "message", "bursts", "queue", "qidx", "group", "gidx", "threads",
                  "x", "median_ops_per_s", "lo_ops_per_s", "hi_ops_per_s", "n", "coverage",
                  "color_rgb", "pt", "dot", "dt", "ceiling_ops_per_s", "harness_bound",
                  "oversubscribed", "categorical", "nqueues", "shown_n"]),
    ("ceiling (model)", ["panel", "qidx", "threads", "x0", "ceiling_ops_per_s", "color_rgb",
                         "categorical"]),
    ("harness alone (null queue)", ["panel", "threads", "median_ops_per_s", "min_ops_per_s",
                                    "max_ops_per_s", "reps"]),
)
PEERS_PAIRS_BLOCK = "pairs (every thread enqueues, then dequeues)"
PEERS_PAIRS_COLUMNS = ["panel", "queue", "qidx", "message", "threads", "x",
                       "median_ops_per_s", "min_ops_per_s", "max_ops_per_s", "reps",
                       "color_rgb", "lost_per_1000", "oversubscribed", "harness_ops_per_s",
                       "harness_row", "categorical", "nqueues", "has_pairs"]


def group_key(g):
    return "%s/%s" % (g[0], g[1] or "unknown")


def dat_peers(name, p):
    g = FC.g
    out = P.dat_header(name, p, "producers and consumers apart: one row per panel (0 inline "
                       "single operations, 1 inline bursts, 2 message single operations, 3 "
                       "message bursts), queue, (pace, regime) group and threads: the "
                       "median of the group's runs and its interval (lo..hi, coverage); "
                       "x: the queue's slot (categorical 1: one thread count) or the "
                       "threads; series (queue, group) apart by a blank line; pt, dot, dt: "
                       "gnuplot's point type (shape: regime; filled: free), a dot inside "
                       "(consumer-paced), dash (pace); then the ceiling, the harness alone "
                       "and the pairs", ["see each block's '# columns:' line"])
    cat = int(p["categorical"])
    show_n = int(split_somewhere(p))
    rows = []
    for k, pn in enumerate(p["panels"]):
        nq = len(pn["queues"])
        # several thread counts: the series shifted sideways as draw_series shifts them
        order = [(q, grp) for q in pn["queues"] for grp in pn["groups"]
                 if (q, grp) in pn["series"]]
        dodge = P.dodger(sorted({pt[0] for v in pn["series"].values() for pt in v}),
                         len(order))
        for q in pn["queues"]:
            for gi, grp in enumerate(pn["groups"]):
                pts = pn["series"].get((q, grp))
                if not pts:
                    continue
                pt_, dot = FC.group_pt(grp)
                for pt in pts:
                    x = slot_x(pn, q, grp) if cat else dodge(pt[0], order.index((q, grp)))
                    rows.append([k, int(pn["item"] == "message"), pn["bursts"], q,
                                 pn["queues"].index(q), group_key(grp), gi, pt[0],
                                 "%.6g" % x, g(pt[1]), g(pt[2]), g(pt[3]), pt[4],
                                 g(pt[8]), P.rgb_int(P.color_of("queue", q)), pt_, dot,
                                 FC.PACE_GP_DT.get(grp[0], 1), g(pt[5]), P.is_bound(pt),
                                 P.ov_col(pt[7]), cat, nq, show_n])
                rows.append("")
    if not rows:
        rows = [[0, 0, 0, "none", 0, "none", 0, 1, 0, "NaN", "NaN", "NaN", 0, "NaN", 0, 7,
                 0, 1, "NaN", 0, "NaN", cat, 1, 0]]
    out += FC.block(PEERS_BLOCKS[0][0], PEERS_BLOCKS[0][1], rows)
    crow = []
    for k, pn in enumerate(p["panels"]):
        if cat:
            for qi, q in enumerate(pn["queues"]):
                for t, c in sorted(pn["ceiling"].get(q, {}).items()):
                    crow.append([k, qi, t, "%.6g" % (qi - 0.36), g(c), 0, 1])
        else:
            for grp in pn["ceiling_lines"]:
                col = P.rgb_int(P.color_of("queue", grp["variants"][0]))
                if len(grp["variants"]) > 1 and grp is pn["ceiling_lines"][0]:
                    col = 0
                for t, c in grp["points"]:
                    crow.append([k, -1, t, t, g(c), col, 0])
                crow.append("")
    if not any(not isinstance(r, str) for r in crow):
        crow = [[0, 0, 1, 0, "NaN", 0, cat]]
    out += FC.block(PEERS_BLOCKS[1][0], PEERS_BLOCKS[1][1], crow)
    hrow = []
    for k, pn in enumerate(p["panels"]):
        hrow += [[k, q[0], g(q[1]), g(q[2]), g(q[3]), q[4]] for q in pn["harness"]]
        if pn["harness"]:
            hrow.append("")
    if not any(not isinstance(r, str) for r in hrow):
        hrow = [[0, 1, "NaN", "NaN", "NaN", 0]]
    out += FC.block(PEERS_BLOCKS[2][0], PEERS_BLOCKS[2][1], hrow)
    out += dat_peers_pairs(p)
    return out


def dat_peers_pairs(p):
    """The pairs block of peers-throughput.dat: its name, its columns, its rows
    (one NaN row with has_pairs 0 where the host ran no pairs)."""
    g = FC.g
    out = ["", "", '"%s"' % PEERS_PAIRS_BLOCK,
           "# the peers under pairs: panel 0 single operations, 1 bursts; message 0 inline "
           "items, 1 message items; x: the queue's slot qidx (+-%g per item mode) with "
           "one thread count (categorical 1), else the threads shifted sideways; "
           "lost_per_1000: lost races per 1,000 operations, NaN where the queue does not "
           "count them; harness_ops_per_s: the harness alone at the panel, item mode and "
           "threads (harness_row 1: the rows to draw it from)"
           % PAIRS_ITEM_OFFSET["message"],
           "# columns: " + " ".join(PEERS_PAIRS_COLUMNS)]
    n = len(out)
    for pn in p.get("pairs") or []:
        for qi, q in enumerate(pn["queues"]):
            for item in pn["items"]:
                pts = pn["series"].get((q, item), [])
                first = q == next(x for x in pn["queues"] if (x, item) in pn["series"])
                hs = {h[0]: h[1] for h in pn["harness"].get(item) or []}
                for pt in pts:
                    out.append(" ".join([
                        "%d" % pn["bursts"], q, "%d" % qi, "%d" % (item == "message"),
                        "%d" % pt[0], "%.6g" % pairs_x(p, pn, q, item, pt[0]),
                        g(pt[1]), g(pt[2]), g(pt[3]), "%d" % pt[4],
                        "%d" % P.rgb_int(P.color_of("queue", q)), g(pt[8]), P.ov_col(pt[7]),
                        g(hs.get(pt[0])), "%d" % first, "%d" % p["pairs_categorical"],
                        "%d" % len(pn["queues"]), "1"]))
    if len(out) == n:
        out.append("0 none 0 0 1 0 NaN NaN NaN 0 0 NaN NaN NaN 0 1 1 0")
    return out


#: peers-latency.dat's one block; scripts/gnuplot/peers-latency.gp reads it by name (lt_)
LATENCY_COLUMNS = ["panel", "message", "bursts", "queue", "qidx", "group", "threads", "x",
                   "p50_median_ns", "p50_lo_ns", "p50_hi_ns", "p99_median_ns", "p99_lo_ns",
                   "p99_hi_ns", "n", "color_rgb", "pt", "dot", "oversubscribed", "nqueues"]


def dat_peers_latency(name, p):
    g = FC.g
    out = P.dat_header(name, p, LATENCY_WORDS + ": p50 and p99 by queue and (pace, regime) "
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
            v50 = (a50.est, a50.lo, a50.hi) if a50 else (None,) * 3
            v99 = (a99.est, a99.lo, a99.hi) if a99 else (None,) * 3
            rows.append([k, int(pn["item"] == "message"), pn["bursts"], m["queue"],
                         pn["queues"].index(m["queue"]), group_key(m["group"]), pn["threads"],
                         "%.6g" % latency_x(pn, m)] + [g(v) for v in v50 + v99] +
                        [(a50 or a99).n if (a50 or a99) else 0,
                         P.rgb_int(P.color_of("queue", m["queue"])), pt_, dot,
                         P.ov_col(m.get("oversubscribed")), len(pn["queues"])])
    if not rows:
        rows = [[0, 0, 0, "none", 0, "none", 1, 0] + ["NaN"] * 6 + [0, 0, 7, 0, "NaN", 1]]
    out += FC.block("latency by queue and regime", LATENCY_COLUMNS, rows)
    return out
