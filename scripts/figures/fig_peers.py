# SPDX-License-Identifier: BSD-2-Clause
"""fig_peers.py - the peers' throughput by regime (peers-regimes, a supplement
figure: the diagnostics behind the main figure peers-throughput, fig_peers_main.py).

Producers and consumers apart (workload prodcons), a panel per item mode
(inline, message) and bursts setting (single operations, bursts):

* each queue's runs split by (pace, regime) (scripts/common/regime.py): a closed-loop
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

Under pairs (every thread enqueues, then dequeues), a row: each
data-moving queue's operations/s and its lost races (as before); under mixed
(each operation an enqueue or a dequeue at random), a row of its own, drawn
the same way.

The figure draws the peers sweep's named configuration (nrdata.peers_named:
no local work, every thread on one node), what the claims read; its other
configurations (experiments/peers.exp: work with a floor, split, scatter)
are counted in the caption and stated in the results README.

prep_peers_regimes prepares the figure once; draw_peers (matplotlib) and
dat_peers (the data file of scripts/gnuplot/peers-regimes.gp) render that
preparation. The latency figure, peers-latency, is fig_peers_latency.py's.
"""

import collections

from ..analysis import nrdata
from . import fig_common as FC
from . import fig_draw
from . import fig_lines
from .fig_lines import group_key
from .fig_draw import (
    dodger, harness_style, HARNESS_STYLE, legend_axis, mark_oversub, no_data,
    threads_axis, value_axis)
from .fig_gnuplot import dat_header, is_bound, ov_col, SEE_BLOCKS
from .fig_host import (
    bound_count, caption_lines, color_of, failed_per_1000, HARNESS_LABEL, harness_line,
    harness_status, is_over, item_of, ITEM_TITLES, items_in, marker_of, order_of,
    oversub_status, rgb_int, series_by, workload_of)


#: the symmetric workloads' rows (pairs, then mixed), in order: each its title
SYMMETRIC_WORDS = {"pairs": "pairs: every thread enqueues, then dequeues",
                   "mixed": "mixed: each operation an enqueue or a dequeue at random"}
#: the symmetric workloads as the notes' line on their rows names them
SYMMETRIC_CAPTION = {"pairs": "pairs (every thread enqueues, then dequeues: threads of one "
                              "role race)",
                     "mixed": "mixed (each operation an enqueue or a dequeue at random)"}
#: the symmetric rows: the x offset of each item mode at its queue's slot (one
#: thread count)
PAIRS_ITEM_OFFSET = {"inline": -0.15, "message": 0.15}
#: the y label of a throughput in items/s (producers and consumers apart) and in
#: successful operations/s (the symmetric workloads)
YLABEL = {"items": "throughput (million items/s)",
          "operations": "throughput (million operations/s)"}
#: the heights (axes fraction) of the rows of lost races along the bottom of a
#: pairs panel with one thread count: {two item modes: (inline, message)}
PAIRS_STRIP = {False: (0.025,), True: (0.1, 0.025)}


def peer_panels(rows):
    """[(item, bursts, name, rows)]: inline items first, then message items; single
    operations, then bursts; only the item modes the rows hold; the runs of a
    queue in a mode it has not (faa message, ck bursts) left out."""
    out = []
    for item in items_in(rows):
        for b, name in ((0, "single operations"), (1, "bursts")):
            rs = [r for r in rows if item_of(r) == item and FC.bursts_of(r) == b
                  and FC.runs_in(r["queue"], item, b)]
            out.append((item, b, "%s\n%s" % (ITEM_TITLES.get(item, item + " items"), name),
                        rs))
    return out


def named_rows(host):
    """(the peers rows of the sweep's named configuration, the words on the
    others for a caption, None where there are none)."""
    allrows = host.data["peers"]
    rows = [r for r in allrows if nrdata.peers_named(r)]
    other = [r for r in allrows if not nrdata.peers_named(r)]
    if not other:
        return rows, None
    works = sorted({nrdata.work_label(r) for r in other} - {nrdata.PEERS_WORK},
                   key=lambda w: (int(w.rpartition("-")[2]), w))
    pins = sorted({nrdata.pin_of(r) for r in other} - {nrdata.PEERS_PIN})
    return rows, ("drawn: no local work, every thread on one node (pin compact); not drawn "
                  "here: the sweep's %d runs %s (the results README's \u201cpeers as the "
                  "field runs them\u201d)" % (len(other), " and ".join(
                      x for x in ("with work %s ns" % ", ".join(works) if works else "",
                                  "at pin %s" % ", ".join(pins) if pins else "") if x)))


def others_short(host):
    """The caption's drawn line's words on the configurations not drawn."""
    return ("work 0, pin compact only (%d runs at other work or pins: the results README)"
            % sum(not nrdata.peers_named(r) for r in host.data["peers"]))


def symmetric_rows(rows):
    """[(workload, its rows)] of the symmetric workloads the rows hold, in order."""
    return [(wl, rs) for wl in SYMMETRIC_WORDS
            for rs in [[r for r in rows if workload_of(r) == wl]] if rs]


# --------------------------------------------------------------------------
# Producers and consumers apart

@FC.condensed
def prep_peers_regimes(host):
    allrows, others = named_rows(host)
    rows = [r for r in allrows if workload_of(r) == "prodcons"]
    left = FC.left_out(rows)
    pairs = [pn for wl, rs in symmetric_rows(allrows) for pn in prep_peers_pairs(rs, wl)]
    sym = list(dict.fromkeys(pn["workload"] for pn in pairs))   # in SYMMETRIC_WORDS' order
    panels = []
    for item, b, name, rs in peer_panels(rows):
        # series {(queue, group): [(threads, median, lo, hi, n, ceiling, harness,
        # oversubscribed, coverage)]}, lo..hi the median's interval
        series, queues, groups, lines, ceiling = fig_lines.series_by_group(host, rs, "queue")
        panels.append({"item": item, "bursts": b, "name": name, "rows": rs, "queues": queues,
                       "groups": groups, "series": series, "ceiling": ceiling,
                       "ceiling_lines": lines, "harness": harness_line(rs, nrdata.threads)})
    threads = sorted({nrdata.threads(r) for r in rows})
    cat = len(threads) == 1
    groups = FC.group_order({g for pn in panels for g in pn["groups"]})
    items = items_in(rows)
    bound = sum(bound_count(pn["series"]) for pn in panels)
    prows = [r for pn in pairs for r in pn["rows"]]
    split = collections.Counter(FC.group_of(r) for pn in panels for r in pn["rows"])
    extra = [host.ceiling.status(), harness_status(rows, bound),
             oversub_status(rows + prows, lambda r: (
                 workload_of(r), r["queue"], item_of(r), r["bursts"], nrdata.threads(r),
                 FC.group_of(r))),
             "message items: not measured in these results" if "message" not in items else
             None,
             "runs split by (pace, regime): " + "; ".join(
                 "%s %d" % (FC.group_label(g), split[g]) for g in groups),
             FC.left_out_words(left) or None, others]
    caption = caption_lines(host, rows, extra)
    if pairs:
        caption.append((pairs_caption(allrows, pairs), None))
    pthreads = sorted({nrdata.threads(r) for r in prows})
    title = ("Peers: throughput by queue at %d threads, each regime apart" % threads[0] if cat
             else "Peers: throughput vs threads by queue, each regime apart")
    if pairs:
        title += " (producers and consumers); under %s: operations/s by queue%s" % (
            " and ".join(sym), " at %d threads" % pthreads[0] if len(pthreads) == 1
            else " vs threads")
    ns = [q[4] for pn in panels for pts in pn["series"].values() for q in pts]
    drawn = ("%s per queue and regime (shape; fill: pace), median of its runs%s, %s; %s; "
             "grey dash-dot: harness alone" % (
                 "a dot" if cat else "a line", " (n beside it where they split)" if cat
                 else "", FC.whisker_words(ns),
                 "black bar: the ceiling model" if cat else "dashed: the ceiling model"))
    if left:
        drawn += "; " + FC.left_out_words(left)
    if others:
        drawn += "; " + others_short(host)
    if pairs:
        drawn += "; last row%s: %s, lost races per 1,000 operations" % (
            "" if len(sym) == 1 else "s", ", ".join(sym))
    return {"kind": "peers", "panels": panels, "rows": rows, "ylabel":
            YLABEL["items"], "scale": 1e-6, "family": "queue",
            "grid": (max(1, len(items)) + len(sym), 2), "items": items,
            "threads": threads, "categorical": cat, "groups": groups, "left_out": left,
            "pairs": pairs, "pairs_threads": pthreads, "pairs_categorical": len(pthreads) == 1,
            "title": title, "annotation": None, "caption": caption, "drawn": drawn}


def peers_legend_handles(p):
    """The marks of the producers-and-consumers panels, and only those drawn."""
    cat, panels = p["categorical"], p["panels"]
    h = [] if cat else [fig_draw.handle(color=color_of("queue", q), linewidth=2, label=q)
                        for q in order_of("queue", {q for pn in panels for q in pn["queues"]})]
    h += FC.regime_legend(p["groups"], line=not cat) + [fig_draw.whisker_handle()]
    if any(pn["ceiling"] for pn in panels):
        h.append(fig_draw.handle(color="black", linewidth=2.2 if cat else 1.6,
                                 linestyle="-" if cat else "--", label="ceiling (model)"))
    if any(pn["harness"] for pn in panels):
        h.append(fig_draw.handle(label=HARNESS_LABEL, **HARNESS_STYLE))
    return h + fig_draw.mark_handles(
        any(bound_count(pn["series"]) for pn in panels),
        any(is_over(q) for pn in panels for pts in pn["series"].values() for q in pts),
        cat and split_somewhere(p) and "n beside a dot: its runs")


def split_somewhere(p):
    """Whether some queue's runs split into more than one group (n is then drawn)."""
    return any(len([g for g in pn["groups"] if (q, g) in pn["series"]]) > 1
               for pn in p["panels"] for q in pn["queues"])


def slot_x(pn, q, g):
    """The x of a queue's group in a panel with the queues on x."""
    gs = [x for x in pn["groups"] if (q, x) in pn["series"]]
    return pn["queues"].index(q) + FC.spread(gs.index(g), len(gs), 0.44)


def draw_prodcons_categories(ax, pn, show_n):
    """One producers-and-consumers panel with one thread count: a dot per
    queue and group at its slot, the queue's ceiling a bar over its slot."""
    vals, cvals = [], []
    for qi, q in enumerate(pn["queues"]):
        color = color_of("queue", q)
        for g in [g for g in pn["groups"] if (q, g) in pn["series"]]:
            vals += fig_lines.slot_dot(ax, slot_x(pn, q, g), pn["series"][(q, g)][0], 1e-6,
                                       (8, 3, 1.1), "peers-%s-%s" % (q, FC.group_label(g)),
                                       "peers-n" if show_n else None,
                                       g[0] == "consumer-paced", **FC.group_style(g, color))
        c = next(iter(pn["ceiling"].get(q, {}).values()), None)
        if c:
            FC.level_mark(ax, qi, c * 1e-6, color="black", linewidth=2.2, zorder=3,
                          gid="peers-ceiling")
            cvals.append(c * 1e-6)
    for h in pn["harness"]:
        ax.axhline(h[1] * 1e-6, zorder=2, **HARNESS_STYLE)
        vals.append(h[1] * 1e-6)
    top = max(vals) if vals else 1.0
    value_axis(ax, vals + [min(c, top * 30) for c in cvals])
    FC.category_axis(ax, pn["queues"], "queue")


def draw_peers(axes, p, show_legend=True):
    show_n = split_somewhere(p)
    for ax, pn in zip(axes, p["panels"]):
        if not pn["series"]:
            no_data(ax, "no runs")
            ax.set_title(pn["name"], fontsize=11)
            continue
        if p["categorical"]:
            draw_prodcons_categories(ax, pn, show_n)
        else:   # as F2's lines (fig_lines), a line per queue and group
            fig_lines.draw_threads(ax, dict(
                pn, family="queue", order=pn["queues"], known=True, scale=1e-6,
                ceiling=pn["ceiling_lines"], ylabel=YLABEL["items"],
                annotation=None), show_legend=False)
        ax.set_ylabel(YLABEL["items"])
        ax.set_title(pn["name"] + (" (burst = batch items)" if pn["bursts"] else ""),
                     fontsize=11)
    # the symmetric workloads' rows below: single operations, then bursts
    n = len(p["panels"])
    pairs = {(pn["workload"], pn["bursts"]): pn for pn in p["pairs"]}
    sym = list(dict.fromkeys(wl for wl, _b in pairs))
    for ax, (wl, b) in zip(axes[n:], [(wl, b) for wl in sym for b in (0, 1)]):
        if (wl, b) in pairs:
            draw_peers_pairs(ax, p, pairs[(wl, b)])
        else:
            no_data(ax, "%s: no %s in these results" % (wl, "bursts" if b else
                                                        "single operations"))
    for ax in axes[n + 2 * len(sym):]:
        no_data(ax, "")
    if show_legend:
        fig_draw.legend_outside(legend_axis(axes, p), peers_legend_handles(p))
        if sym:
            pairs_legend(axes[min(n + 1, len(axes) - 1)], p)


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
    return dodger(p["pairs_threads"], len(k))(t, k.index((q, item)))


def prep_peers_pairs(rows, workload):
    """The peers under a symmetric workload (pairs, mixed): a panel per bursts
    setting the rows hold (single operations, bursts), each data-moving queue's
    operations/s per item mode and thread count (median, min, max), its lost
    races per 1,000 operations where it counts them (None where it does not),
    the harness alone per item mode; ck left out of bursts."""
    # the queues that move no data (FC.NO_MESSAGE: measured only) are left out
    rows = [r for r in rows if r["queue"] not in FC.NO_MESSAGE]
    panels = []
    for b, name in ((0, "single operations"), (1, "bursts (burst = batch items)")):
        rs = [r for r in rows if FC.bursts_of(r) == b
              and FC.runs_in(r["queue"], item_of(r), b)]
        if not rs:
            continue
        key = (lambda r: (r["queue"], item_of(r), nrdata.threads(r)))
        lost = nrdata.aggregate(rs, (key,), failed_per_1000)
        series = series_by(rs, key, harness=False, interval=False,
                           more=lambda k: (lost.get((k,), (None,))[0],))
        items = items_in(rs)
        panels.append({"workload": workload, "bursts": b,
                       "name": "%s\n%s" % (SYMMETRIC_WORDS[workload], name), "rows": rs,
                       "queues": order_of("queue", {q for q, _i in series}),
                       "items": items, "series": series,
                       "harness": {i: harness_line([r for r in rs if item_of(r) == i],
                                                   nrdata.threads) for i in items}})
    return panels


def pairs_caption(rows, panels):
    """The notes' line on the symmetric rows (``panels``: at least one)."""
    prows = [r for pn in panels for r in pn["rows"]]
    reps = sorted({int(r["rep"]) for r in prows})
    counted = order_of("queue", {q for pn in panels for (q, _i), pts in pn["series"].items()
                                 if any(x[8] is not None for x in pts)})
    left = sorted({r["queue"] for r in rows if r["queue"] in FC.NO_MESSAGE})
    nob = sorted({r["queue"] for r in rows if r["queue"] in FC.NO_BURSTS})
    return ("%s: "
            "successful operations/s (enqueues + dequeues), median of %d rep%s, whiskers "
            "min\u2013max%s; %s: lost races per 1,000 operations (%s)%s%s" % (
                " and ".join(SYMMETRIC_CAPTION[w] for w in dict.fromkeys(
                    pn["workload"] for pn in panels)),
                len(reps), "" if len(reps) == 1 else "s",
                "; filled inline items, hollow message items" if len(items_in(prows)) > 1
                else "",
                "the numbers along the bottom" if len({nrdata.threads(r) for r in prows}) == 1
                else "\u201clost N\u201d beside a dot",
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
    cat = p["pairs_categorical"]
    ax.set_gid("peers-pairs")
    vals, strip = [], False   # strip: the band of lost races is drawn
    for q in pn["queues"]:
        color = color_of("queue", q)
        for j, item in enumerate(pn["items"]):
            pts = pn["series"].get((q, item))
            if not pts:
                continue
            xs = [pairs_x(p, pn, q, item, x[0]) for x in pts]
            med = [x[1] * 1e-6 for x in pts]
            err = [[(x[1] - x[2]) * 1e-6 for x in pts], [(x[3] - x[1]) * 1e-6 for x in pts]]
            ax.errorbar(xs, med, yerr=err, color=color, marker=marker_of("queue", q),
                        markersize=7 if cat else 5.5, linewidth=1.8, capsize=3,
                        elinewidth=1.1, zorder=4,
                        linestyle="none" if cat or len(pts) == 1 else ("-" if j == 0 else "--"),
                        markerfacecolor=color if j == 0 else "white", markeredgecolor=color,
                        markeredgewidth=1.5, gid="peers-pairs-%s-%s" % (q, item),
                        label=None if cat or j else q)
            mark_oversub(ax, xs, pts, 1e-6, label=False)
            vals += [v * 1e-6 for x in pts for v in (x[2], x[3])]
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
    for j, h in enumerate(pn["harness"].get(item) for item in pn["items"]):
        if h:   # one thread count: a level; several: a line against threads
            ys = [x[1] * 1e-6 for x in h]
            if cat:
                ax.axhline(ys[0], zorder=2, **harness_style(j))
            else:
                ax.plot([x[0] for x in h], ys, zorder=2, **harness_style(j))
            vals += ys
    if cat:
        FC.category_axis(ax, pn["queues"], "queue", rotate=30)
        ax.set_xlim(-0.85, len(pn["queues"]) - 0.15)
    else:
        threads_axis(ax, p["pairs_threads"], "threads (each %s)" % (
            "enqueues, then dequeues" if pn["workload"] == "pairs" else
            "enqueues or dequeues at random"))
    ax.set_ylabel(YLABEL["operations"])
    value_axis(ax, vals)
    if strip:
        lost_strip(ax, len(pn["items"]) > 1)
    ax.set_title(pn["name"] + (" \u2014 %d threads%s" % (
        p["pairs_threads"][0], ", oversubscribed" if any(
            is_over(x) for v in pn["series"].values() for x in v) else "")
        if cat else ""), fontsize=11)


def lost_strip(ax, two):
    """The band along the bottom of a pairs panel with one thread count that
    holds the rows of lost races (``two``: a row per item mode): room made for
    it under the lowest whisker, its name, a key dot per row where two, a grey
    background, and no y tick label inside it."""
    f = 0.25 if two else 0.18   # the share of the axes' height it takes
    log = ax.get_yscale() == "log"
    lo, hi = ax.get_ylim()
    ax.set_ylim(hi / (hi / lo) ** (1.0 / (1.0 - f)) if log else hi - (hi - lo) / (1.0 - f), hi)
    rows = PAIRS_STRIP[two]
    ax.text(-0.8, rows[0] + 0.075, "lost races per 1,000 operations", ha="left",
            va="bottom", fontsize=7.5, color="0.3", zorder=3,
            transform=ax.get_xaxis_transform(), gid="peers-pairs-lost-name")
    for j in range(2 if two else 0):
        ax.plot([-0.55], [rows[j] + 0.022], transform=ax.get_xaxis_transform(),
                linestyle="none", marker="o", markersize=6, color="0.35",
                markerfacecolor="0.35" if j == 0 else "white", markeredgewidth=1.3,
                zorder=3, clip_on=False)
    from matplotlib.patches import Rectangle
    ax.add_patch(Rectangle((0, 0), 1, f * 0.97, transform=ax.transAxes, facecolor="0.96",
                           edgecolor="none", zorder=1.7))
    nlo, nhi = ax.get_ylim()
    sep = nlo * (nhi / nlo) ** f if log else nlo + f * (nhi - nlo)
    for which in ("major", "minor"):
        fmt = getattr(ax.yaxis, "get_%s_formatter" % which)()
        getattr(ax.yaxis, "set_%s_formatter" % which)(fig_draw.ticker.FuncFormatter(
            lambda v, pos, fmt=fmt: fmt(v, pos) if v >= sep else ""))


def pairs_legend(ax, p):
    """What the marks of the pairs row mean, beside its last panel."""
    handle, cat = fig_draw.handle, p["pairs_categorical"]
    h = [] if cat else [handle(color=color_of("queue", q), marker=marker_of("queue", q), label=q)
                        for q in order_of("queue", {q for pn in p["pairs"] for q in pn["queues"]})]
    items = items_in([r for pn in p["pairs"] for r in pn["rows"]])
    for j, item in enumerate(items):
        h.append(handle(color="0.3", marker="o", markersize=7,
                        linestyle="none" if cat else ("-" if j == 0 else "--"),
                        markerfacecolor="0.3" if j == 0 else "white", markeredgecolor="0.3",
                        markeredgewidth=1.5, label=ITEM_TITLES.get(item, item + " items")
                        .split(":")[0]))
    h.append(fig_draw.whisker_handle("whisker: min\u2013max over reps"))
    if any(pn["harness"].get(i) for pn in p["pairs"] for i in pn["items"]):
        h += [handle(label=HARNESS_LABEL + (", " + item + " items" if len(items) > 1 else ""),
                     **harness_style(j)) for j, item in enumerate(items)]
    pts = [x for pn in p["pairs"] for v in pn["series"].values() for x in v]
    h += fig_draw.mark_handles(over=any(is_over(x) for x in pts), note=any(
        x[8] is not None for x in pts) and "%s: lost races per 1,000 operations\n(the queues "
        "that count them)" % ("numbers along the bottom" if cat else "lost N"))
    fig_draw.legend_outside(ax, h)


# --------------------------------------------------------------------------
# Data files

#: peers-regimes.dat's blocks; scripts/gnuplot/peers-regimes.gp names the
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


def dat_peers(name, p):
    g = FC.g
    out = dat_header(name, p, "producers and consumers apart: one row per panel (0 inline "
                       "single operations, 1 inline bursts, 2 message single operations, 3 "
                       "message bursts), queue, (pace, regime) group and threads: the "
                       "median of the group's runs and its interval (lo..hi, coverage); "
                       "x: the queue's slot (categorical 1: one thread count) or the "
                       "threads; series (queue, group) apart by a blank line; pt, dot, dt: "
                       "gnuplot's point type (shape: regime; filled: free), a dot inside "
                       "(consumer-paced), dash (pace); then the ceiling, the harness alone "
                       "and the pairs", SEE_BLOCKS)
    cat = int(p["categorical"])
    show_n = int(split_somewhere(p))
    rows, crow, hrow = [], [], []
    for k, pn in enumerate(p["panels"]):
        nq = len(pn["queues"])
        # several thread counts: the series shifted sideways as draw_series shifts them
        order = [(q, grp) for q in pn["queues"] for grp in pn["groups"]
                 if (q, grp) in pn["series"]]
        dodge = dodger(sorted({pt[0] for v in pn["series"].values() for pt in v}),
                       len(order))
        for i, (q, grp) in enumerate(order):
            pt_, dot = FC.group_pt(grp)
            for pt in pn["series"][(q, grp)]:
                x = slot_x(pn, q, grp) if cat else dodge(pt[0], i)
                rows.append([k, int(pn["item"] == "message"), pn["bursts"], q,
                             pn["queues"].index(q), group_key(grp), pn["groups"].index(grp),
                             pt[0], "%.6g" % x, g(pt[1]), g(pt[2]), g(pt[3]), pt[4],
                             g(pt[8]), rgb_int(color_of("queue", q)), pt_, dot,
                             FC.PACE_GP_DT.get(grp[0], 1), g(pt[5]), is_bound(pt),
                             ov_col(pt[7]), cat, nq, show_n])
            rows.append("")
        # the ceiling: a bar over each queue's slot, else a line per ceiling group
        # (black where it is several queues' and the first)
        crow += [[k, qi, t, "%.6g" % (qi - 0.36), g(c), 0, 1]
                 for qi, q in enumerate(pn["queues"]) if cat
                 for t, c in sorted(pn["ceiling"].get(q, {}).items())]
        for j, grp in enumerate([] if cat else pn["ceiling_lines"]):
            col = 0 if j == 0 and len(grp["variants"]) > 1 else rgb_int(
                color_of("queue", grp["variants"][0]))
            crow += [[k, -1, t, t, g(c), col, 0] for t, c in grp["points"]] + [""]
        hrow += [[k, q[0], g(q[1]), g(q[2]), g(q[3]), q[4]] for q in pn["harness"]]
        hrow += [""] if pn["harness"] else []
    out += FC.block(*PEERS_BLOCKS[0], rows, empty=[[
        0, 0, 0, "none", 0, "none", 0, 1, 0, "NaN", "NaN", "NaN", 0, "NaN", 0, 7, 0, 1, "NaN", 0,
        "NaN", cat, 1, 0]])
    out += FC.block(*PEERS_BLOCKS[1], crow, empty=[[0, 0, 1, 0, "NaN", 0, cat]])
    return out + FC.block(*PEERS_BLOCKS[2], hrow, empty=[[0, 1, "NaN", "NaN", "NaN", 0]]) + \
        dat_peers_pairs(p)


def dat_peers_pairs(p):
    """The pairs block of peers-regimes.dat: its name, its columns, its rows
    (one NaN row with has_pairs 0 where the host ran no pairs)."""
    g = FC.g
    rows = []
    for pn in p["pairs"]:
        # the panel: bursts, + 2 for each symmetric workload before its own
        panel = pn["bursts"] + 2 * list(SYMMETRIC_WORDS).index(pn["workload"])
        for qi, q in enumerate(pn["queues"]):
            for item in pn["items"]:
                pts = pn["series"].get((q, item), [])
                first = q == next(x for x in pn["queues"] if (x, item) in pn["series"])
                hs = {h[0]: h[1] for h in pn["harness"].get(item) or []}
                for pt in pts:
                    rows.append([
                        "%d" % panel, q, "%d" % qi, "%d" % (item == "message"),
                        "%d" % pt[0], "%.6g" % pairs_x(p, pn, q, item, pt[0]),
                        g(pt[1]), g(pt[2]), g(pt[3]), "%d" % pt[4],
                        "%d" % rgb_int(color_of("queue", q)), g(pt[8]), ov_col(pt[7]),
                        g(hs.get(pt[0])), "%d" % first, "%d" % p["pairs_categorical"],
                        "%d" % len(pn["queues"]), "1"])
    return FC.block(PEERS_PAIRS_BLOCK, PEERS_PAIRS_COLUMNS, rows, empty=[
        "0 none 0 0 1 0 NaN NaN NaN 0 0 NaN NaN NaN 0 1 1 0"],
        note="the peers under pairs: panel 0 single operations, 1 bursts%s; message 0 inline "
        "items, 1 message items; x: the queue's slot qidx (+-%g per item mode) with "
        "one thread count (categorical 1), else the threads shifted sideways; "
        "lost_per_1000: lost races per 1,000 operations, NaN where the queue does not "
        "count them; harness_ops_per_s: the harness alone at the panel, item mode and "
        "threads (harness_row 1: the rows to draw it from)" % (
            "; under mixed: panel 2 single operations, 3 bursts" if any(
                pn["workload"] == "mixed" for pn in p["pairs"]) else "",
            PAIRS_ITEM_OFFSET["message"]))


