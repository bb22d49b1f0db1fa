# SPDX-License-Identifier: BSD-2-Clause
"""fig_peers_main.py - the peers' main figure (peers-throughput): where
NumaRing stands against the field's queues, per workload.

One panel per workload the host ran (experiments/peers.exp: prodcons, pairs,
mixed; at most figlist.MAX_PANELS), each at the sweep's named configuration
(nrdata.peers_named: no local work, every thread on one node), single
operations, prodcons at its free pace, and one thread count (the largest
whose runs had a CPU each: fig_host.quoted_threads). The queues on x, grouped
by the order they keep (scripts/manifest.json's ordering): strict FIFO |
relaxed (per-producer, per-node, k-relaxed) | floors (the queues that move
no data, faa and null, and the harness alone: harness_ops_per_s, the null
queue through the same code, its own slot and mark). Within a group, by
median, highest first. A dot per queue: the median throughput (items/s
under prodcons, successful operations/s under pairs and mixed; log y) and
its interval's whisker; NumaRing highlighted (colour, a larger marker, its
name in bold). A queue that takes no inline items (the manifest's items:
xenium-ramalhete, xenium-kfifo) is drawn from its message-item runs, hollow:
a line travels with each of its items, a cost the inline queues do not pay.

What this figure leaves out is in the supplement's peers-regimes
(fig_peers.py: each (pace, regime) group apart, bursts, both item modes,
the ceiling model, lost races), peers-latency, and the results README (the
work 50-150 and cross-node configurations); the caption's notes (the .dat
header) count them.

prep_peers prepares the figure once; draw_peers_main (matplotlib) and
dat_peers_main (scripts/gnuplot/peers-throughput.gp's data file) render it.
"""

from ..analysis import nrdata
from ..analysis import stats
from ..common import figlist
from ..common import manifest
from ..common import regime
from . import fig_common as FC
from . import fig_draw
from .fig_draw import legend_outside, no_data, value_axis
from .fig_gnuplot import dat_header, ov_col, SEE_BLOCKS
from .fig_host import (
    caption_lines, color_of, harness_status, HARNESS_BOUND, HARNESS_LABEL, item_of, items_in,
    oversub_of, oversub_status, quoted_threads, workload_of)
from . import fig_peers

#: the workloads, in panel order: each panel's title words and its y unit
WORKLOADS = {"prodcons": ("prodcons: producers and consumers apart, free pace", "items"),
             **{wl: (words, "operations") for wl, words in fig_peers.SYMMETRIC_WORDS.items()}}
#: the x groups, in order: (key, the words over them)
GROUPS = (("fifo", "strict FIFO"), ("relaxed", "relaxed order"), ("floor", "floors"))
#: the harness alone's slot: its name on x
HARNESS_SLOT = "harness alone"
#: the gap between two groups' slots (in slots)
GROUP_GAP = 0.8
#: the highlighted queue
HIGHLIGHT = "numaring"
#: the marks: the highlighted queue, the field's queues, the floors
STYLE = {"highlight": dict(marker="D", markersize=11, color=color_of("queue", HIGHLIGHT)),
         "peer": dict(marker="o", markersize=8, color="#2b4a8b"),
         "floor": dict(marker="o", markersize=7, color="0.55")}
HARNESS_MARK = dict(marker="_", markersize=26, markeredgewidth=3.2, color="#3a3a3a")


def order_group(queue):
    """A queue's x group: 'floor' where it moves no data (faa, null), 'fifo'
    where it keeps strict FIFO order, else 'relaxed' (per producer, per node,
    k-relaxed; and a queue the manifest does not know)."""
    try:
        q = manifest.queue(queue)
    except KeyError:
        return "relaxed"
    if not q.get("moves_data", True):
        return "floor"
    return "fifo" if q.get("ordering") == "fifo" else "relaxed"


def panel_rows(rows, wl):
    """The rows one panel draws from: the workload's single operations (prodcons:
    its free pace), each queue's inline items, or its message items where it
    takes no inline ones (or ran none); a queue's runs in a mode that means
    nothing (fig_common.runs_in) left out."""
    rs = [r for r in rows if workload_of(r) == wl and FC.bursts_of(r) == 0
          and regime.pace_of(r) == "free" and FC.runs_in(r["queue"], item_of(r), 0)]
    # each queue's first mode (items_in: inline first)
    mode = {q: items_in([r for r in rs if r["queue"] == q])[0] for q in {r["queue"] for r in rs}}
    return [r for r in rs if item_of(r) == mode[r["queue"]]]


def interval_of(rows, column, keep=lambda v: v is not None):
    """{median, lo, hi, n, coverage} of a column over rows (the values ``keep``
    keeps), None for none."""
    iv = stats.interval([v for v in (nrdata.num(r, column) for r in rows) if keep(v)])
    return None if iv is None else dict(median=iv.est, lo=iv.lo, hi=iv.hi, n=iv.n,
                                        coverage=iv.coverage)


def prep_panel(host, rows, wl):
    """One workload's panel: its thread count, its slots in x order (each
    {queue, group, x, median, lo, hi, n, coverage, item, harness, bound,
    oversubscribed}; the harness alone a slot with queue HARNESS_SLOT) and its
    groups [(key, words, x0, x1)]."""
    rs = panel_rows(rows, wl)
    t = quoted_threads(host, rs, usable=lambda x: not any(
        nrdata.oversubscribed(r) for r in x))
    rs = [r for r in rs if nrdata.threads(r) == t]
    slots = []
    for q in sorted({r["queue"] for r in rs}):
        qr = [r for r in rs if r["queue"] == q]
        iv = interval_of(qr, "throughput_ops_per_s")
        if iv is None:
            continue
        # (a harness cell of 0 is one not measured)
        hm = (interval_of(qr, "harness_ops_per_s", bool) or {}).get("median")
        slots.append(dict(iv, queue=q, group=order_group(q), item=item_of(qr[0]), harness=hm,
                          bound=int(bool(hm) and order_group(q) != "floor" and
                                    iv["median"] >= HARNESS_BOUND * hm),
                          oversubscribed=oversub_of(qr, lambda r: q)[q]))
    # the harness alone: its inline runs' (the message queues' are another harness)
    hrows = [r for r in rs if item_of(r) == "inline"] or rs
    hv = interval_of(hrows, "harness_ops_per_s", bool)
    if hv:
        slots.append(dict(hv, queue=HARNESS_SLOT, group="floor", item=item_of(hrows[0]),
                          harness=None, bound=0, oversubscribed=None))
    rank = {k: i for i, (k, _w) in enumerate(GROUPS)}
    slots.sort(key=lambda s: (rank[s["group"]], s["queue"] == HARNESS_SLOT, -s["median"]))
    x = 0.0
    for i, s in enumerate(slots):
        if i and s["group"] != slots[i - 1]["group"]:
            x += GROUP_GAP
        s["x"], x = x, x + 1.0
    name, unit = WORKLOADS.get(wl, (wl, "operations"))
    return {"workload": wl, "name": name, "unit": unit, "threads": t, "rows": rs,
            "slots": slots, "groups": [(k, words, mine[0]["x"], mine[-1]["x"])
                                       for k, words in GROUPS
                                       for mine in [[s for s in slots if s["group"] == k]]
                                       if mine]}


@FC.condensed
def prep_peers(host):
    allrows, others = fig_peers.named_rows(host)
    present = {workload_of(r) for r in allrows}
    wls = [w for w in WORKLOADS if w in present] + sorted(present - set(WORKLOADS))
    panels = [prep_panel(host, allrows, wl) for wl in wls][:figlist.MAX_PANELS]
    rows = [r for pn in panels for r in pn["rows"]]
    undrawn = sum(workload_of(r) in wls for r in allrows) - len(rows)
    msg = sorted({s["queue"] for pn in panels for s in pn["slots"]
                  if s["item"] == "message" and s["queue"] != HARNESS_SLOT})
    bound = sum(s["bound"] for pn in panels for s in pn["slots"])
    free = [r for r in rows if workload_of(r) == "prodcons"]
    extra = [harness_status(rows, bound, drawn="its own slot among the floors"),
             oversub_status(rows, lambda r: (workload_of(r), r["queue"])),
             "the queues in groups by the order they keep (scripts/manifest.json's "
             "ordering): strict FIFO, relaxed (per producer, per node, k-relaxed), floors "
             "(moving no data: %s; and the harness alone)" % ", ".join(FC.NO_MESSAGE),
             "%s: message items (they take no inline items), hollow" % ", ".join(msg)
             if msg else None,
             FC.split_words(free, "prodcons' free runs (pooled in each median)") or None,
             "not drawn here (the supplement's peers-regimes): %d runs of paced "
             "prodcons, bursts, the other item mode or other thread counts" % undrawn
             if undrawn > 0 else None,
             others]
    caption = caption_lines(host, rows, extra)
    # (the harness alone pools every queue's runs: its n is no queue's)
    ns = [s["n"] for pn in panels for s in pn["slots"] if s["queue"] != HARNESS_SLOT]
    drawn = "median per queue (work 0, pin compact, single operations); %s%s; the rest: " \
        "supplement peers-regimes" % (FC.whisker_words(ns), "; hollow: message items"
                                      if msg else "")
    return {"kind": "peers-main", "panels": panels, "rows": rows or allrows,
            "grid": (1, max(1, len(panels))),
            "figsize": (max(12.8, 6.4 * len(panels) + 3.2), 5.6),
            "title": "Peers: where NumaRing stands against the field's queues, per workload",
            "annotation": None, "caption": caption, "drawn": drawn, "message_queues": msg}


# --------------------------------------------------------------------------
# matplotlib

def slot_style(s):
    """The matplotlib keywords of a slot's dot."""
    kind = ("highlight" if s["queue"] == HIGHLIGHT else
            "floor" if s["group"] == "floor" else "peer")
    st = dict(STYLE[kind])
    st.update(markeredgecolor=st["color"], markeredgewidth=1.6,
              markerfacecolor="white" if s["item"] == "message" else st["color"])
    return st


def draw_panel(ax, pn):
    ax.set_gid("peers-main-%s" % pn["workload"])
    if not pn["slots"]:
        no_data(ax, "%s: no runs" % pn["workload"])
        return
    vals = []
    for s in pn["slots"]:
        y, lo, hi = s["median"] * 1e-6, s["lo"] * 1e-6, s["hi"] * 1e-6
        vals += [y, lo, hi]
        alone = s["queue"] == HARNESS_SLOT
        st = HARNESS_MARK if alone else slot_style(s)
        ax.errorbar([s["x"]], [y], yerr=[[y - lo], [hi - y]], linestyle="none",
                    elinewidth=1.2, capsize=3, ecolor=st["color"],
                    zorder=5 if s["queue"] == HIGHLIGHT else 4,
                    gid="peers-main-%s" % ("harness" if alone else s["queue"]), **st)
        if s["bound"]:   # (never the harness alone's: bound 0, oversubscribed None)
            fig_draw.ring_bound(ax, [s["x"]], [(0, s["median"], 0, 0, 0, 0, 1.0)], 1e-6)
        if s["oversubscribed"] == 1:
            ax.plot([s["x"]], [y], **fig_draw.OVERSUB_STYLE)
    value_axis(ax, vals, log=True)
    xs = [s["x"] for s in pn["slots"]]
    ax.set_xticks(xs)
    ax.set_xticklabels([s["queue"] for s in pn["slots"]], rotation=40, ha="right",
                       rotation_mode="anchor")
    for lab, s in zip(ax.get_xticklabels(), pn["slots"]):
        if s["queue"] == HIGHLIGHT:
            lab.set_fontweight("bold")
            lab.set_color(STYLE["highlight"]["color"])
    ax.set_xlim(-0.7, xs[-1] + 0.7)
    ax.grid(axis="x", visible=False)
    ax.xaxis.set_minor_locator(fig_draw.ticker.NullLocator())
    tr = ax.get_xaxis_transform()
    for i, (_k, words, x0, x1) in enumerate(pn["groups"]):
        ax.text((x0 + x1) / 2, 0.985, words, transform=tr, ha="center", va="top",
                fontsize=9, color="0.3", gid="peers-main-group")
        if i:
            ax.axvline(x0 - (GROUP_GAP + 1) / 2, color="0.6", linewidth=1.0,
                       linestyle=(0, (4, 3)), zorder=1, gid="peers-main-separator")
    lo, hi = ax.get_ylim()
    ax.set_ylim(lo, hi * 1.6)   # room for the group names over the dots
    ax.set_ylabel(fig_peers.YLABEL[pn["unit"]])
    ax.set_title("%s \u00b7 %s threads" % (pn["name"], pn["threads"]), fontsize=10.5)


def legend_handles(p):
    """The marks drawn, and only those."""
    slots = [s for pn in p["panels"] for s in pn["slots"]]
    queues = [s for s in slots if s["queue"] != HARNESS_SLOT]
    style = (lambda queue="", group="", item="inline":
             slot_style({"queue": queue, "group": group, "item": item}))
    marks = ((any(s["queue"] == HIGHLIGHT for s in slots), "NumaRing", style(HIGHLIGHT)),
             (any(s["group"] != "floor" and s["queue"] != HIGHLIGHT for s in slots),
              "the field's queues", style()),
             (any(s["group"] == "floor" for s in queues), "floor: moves no data",
              style(group="floor")),
             (any(s["queue"] == HARNESS_SLOT for s in slots), HARNESS_LABEL, HARNESS_MARK),
             (any(s["item"] == "message" for s in queues),
              "hollow: message items\n(takes no inline items)", style(item="message")))
    h = [fig_draw.handle(linestyle="none", label=label, **st) for shown, label, st in marks
         if shown]
    return h + [fig_draw.whisker_handle()] + fig_draw.mark_handles(
        any(s["bound"] for s in slots), any(s["oversubscribed"] == 1 for s in slots))


def draw_peers_main(axes, p, show_legend=True):
    for ax, pn in zip(axes, p["panels"]):
        draw_panel(ax, pn)
    for ax in axes[len(p["panels"]):]:
        no_data(ax, "")
        ax.set_axis_off()
    if show_legend and p["panels"]:
        legend_outside(axes[len(p["panels"]) - 1], legend_handles(p))


# --------------------------------------------------------------------------
# The data file

#: peers-throughput.dat's blocks; scripts/gnuplot/peers-throughput.gp names the
#: columns it reads (sl_, gr_, pa_ = N) and the tests check them
PEERS_MAIN_BLOCKS = (
    ("slots", ["panel", "slot", "x", "queue", "group", "median_ops_per_s", "lo_ops_per_s",
               "hi_ops_per_s", "n", "coverage", "message", "highlight", "harness_slot",
               "bound", "oversubscribed", "nslots"]),
    ("groups", ["panel", "gidx", "group", "x0", "x1"]),
    ("panels", ["panel", "workload", "unit", "threads", "xmax", "npanels"]),
)


def dat_peers_main(name, p):
    g = FC.g
    out = dat_header(name, p, "one panel per workload (work 0, pin compact, single "
                     "operations, prodcons at its free pace, one thread count): a row per "
                     "queue's slot, x its place on the axis (groups: strict FIFO, relaxed, "
                     "floors, apart by %g slots), the median throughput and its interval; "
                     "message 1: the queue's message-item runs (it takes no inline items); "
                     "harness_slot 1: the harness alone; then the groups and the panels"
                     % GROUP_GAP, SEE_BLOCKS)
    srows, grows, prows = [], [], []
    n = len(p["panels"])
    for k, pn in enumerate(p["panels"]):
        for i, s in enumerate(pn["slots"]):
            srows.append([k, i, "%.6g" % s["x"], s["queue"].replace(" ", "-"), s["group"],
                          g(s["median"]), g(s["lo"]), g(s["hi"]), s["n"], g(s["coverage"]),
                          int(s["item"] == "message"), int(s["queue"] == HIGHLIGHT),
                          int(s["queue"] == HARNESS_SLOT), s["bound"],
                          ov_col(s["oversubscribed"]), len(pn["slots"])])
        for j, (key, _w, x0, x1) in enumerate(pn["groups"]):
            grows.append([k, j, key, "%.6g" % x0, "%.6g" % x1])
        prows.append([k, pn["workload"], pn["unit"], pn["threads"] or 0,
                      "%.6g" % (pn["slots"][-1]["x"] if pn["slots"] else 0), n])
    out += FC.block(*PEERS_MAIN_BLOCKS[0], srows, empty=[[
        -1, 0, 0, "none", "none", "NaN", "NaN", "NaN", 0, "NaN", 0, 0, 0, 0, "NaN", 0]])
    out += FC.block(*PEERS_MAIN_BLOCKS[1], grows, empty=[[-1, 0, "none", 0, 0]])
    return out + FC.block(*PEERS_MAIN_BLOCKS[2], prows, empty=[[-1, "none", "items", 0, 0, 0]])
