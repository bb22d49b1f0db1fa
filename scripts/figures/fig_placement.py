# SPDX-License-Identifier: BSD-2-Clause
"""fig_placement.py - the placement heatmap (placement): every queue in every
placement of its threads and memory across nodes (experiments/placement.exp,
issue 31 item 3).

A panel per workload (prodcons, pairs, mixed; at most three): one row per
placement (threads, where the producers and the consumers run, where the
queue's memory is), one column per queue, each cell's colour its median
throughput over the repetitions (one logarithmic scale for the figure) and
its value written in it; where every item crosses nodes (producers and
consumers on different nodes, nrdata.crosses_nodes) the cell also says its
p50 and p99. Beside each row, numaring's paired ratio to the best peer of
that row (the peer whose median is highest there): the question a user with
a two-socket host asks, per placement. An oversubscribed cell (threads share
CPUs: two threads a node on two emulated nodes of one CPU each) is marked.

On emulated nodes nothing is placed (summary.csv's queue_pages says "not
placed"): the memory rows repeat the runs, and the notes (the .dat header)
say so beside the caption's EMULATED warning; a
guest's timings mean nothing (its caption and title say so). Neither is a
two-socket result.

prep_placement prepares the figure once; draw_placement (matplotlib) and
dat_placement (the data file of scripts/gnuplot/placement.gp) render it.
"""

import math

from ..analysis import placement_cells as PC
from . import fig_common as FC
from . import fig_draw
from .fig_draw import no_data
from .fig_gnuplot import dat_header
from .fig_host import caption_lines, order_of, oversub_status, workload_of

#: each workload's panel title
WORKLOAD_WORDS = {"prodcons": "prodcons: producers and consumers apart",
                  "pairs": "pairs: every thread enqueues, then dequeues",
                  "mixed": "mixed: each operation an enqueue or a dequeue at random"}
#: the memory policies' short names in a row's label, in the order drawn
MEM_SHORT = {"producers": "mem P", "consumers": "mem C", "interleave": "mem interleaved",
             "first-touch": "mem first touch"}


def placement_label(workload, pr, not_placed):
    """A row's label: '1P1C  P0 C1  mem P  (n = 5)' (prodcons), '4 threads
    scatter  mem interleaved  (n = 3-5)' (pairs, mixed; n: the repetitions of
    its cells, a range where they differ); 'mem not placed' where nothing was."""
    t, pin, mem = pr["key"]
    if workload == "prodcons":
        who = "%sP%sC" % (pr["row"].get("producers", "?"), pr["row"].get("consumers", "?"))
        where = ("P%s C%s" % tuple(pin[6:].split("/"))) if pin.startswith("nodes:") else pin
    else:
        who, where = "%d threads" % t, pin
    mem = "mem not placed" if not_placed else MEM_SHORT.get(mem, "mem " + mem)
    ns = sorted({c["tput"].n for c in pr["cells"].values() if c["tput"] is not None})
    n = "" if not ns else "  (n = %d%s)" % (ns[0], "\u2013%d" % ns[-1] if len(ns) > 1 else "")
    return "%s  %s  %s%s" % (who, where, mem, n)


def panel_of(workload, rows, queues, not_placed):
    """One workload's panel: its placements (placement_cells.workload_cells),
    each labelled, and the queues that ran in it."""
    prow = PC.workload_cells(rows, queues)
    for pr in prow:
        pr["label"] = placement_label(workload, pr, not_placed)
    return {"workload": workload, "name": WORKLOAD_WORDS.get(workload, workload),
            "queues": [q for q in queues if any(q in pr["cells"] for pr in prow)],
            "rows": prow}


@FC.condensed
def prep_placement(host):
    """The heatmap prepared once: a panel per workload (panel_of), its caption
    and notes, the figure's shape (a column per queue, a row per placement)."""
    rows = list(host.data["placement"])
    queues = order_of("queue", {r["queue"] for r in rows})
    workloads = PC.workloads_in(rows)
    not_placed = PC.not_placed(rows)
    rows = PC.one_memory_row(rows)   # the figure and the README: one row per configuration
    panels = [panel_of(w, [r for r in rows if workload_of(r) == w], queues, not_placed)
              for w in workloads]
    # the one line of what is drawn; the rest (units per workload, memory not
    # placed) to the notes, the .dat header
    drawn = ("cell: median M items/s over the reps (pairs, mixed: M ops/s); right: numaring "
             "/ best peer, the paired median ratio")
    notes = ["colour and number: each cell's median throughput over its n reps (million "
             "items/s; pairs, mixed: million operations/s), one logarithmic colour scale in "
             "that unit for the figure; right of each row: numaring / the best peer of that "
             "placement (the peer whose median is highest there), the median of the reps' "
             "paired ratios (not the ratio of the two cells); p50 and p99 of the cells whose "
             "items all cross nodes: placement.dat and the results README"]
    if not_placed:
        notes.append("emulated, not placed: the queue's memory was not placed (queue_pages "
                     "\u2018not placed\u2019), so a thread placement's memory policies are "
                     "one configuration: one row each, its first policy's runs")
    return {"kind": "placement", "rows": rows, "panels": panels, "queues": queues,
            "grid": (1, max(1, len(panels))),
            "widths": [max(2, len(pn["queues"])) + 3 for pn in panels] or None,
            "figsize": (max(7.0, sum(len(pn["queues"]) * 0.6 + 3.2 for pn in panels)),
                        2.4 + 0.4 * max([len(pn["rows"]) for pn in panels] or [1])),
            "title": "Placement: each queue's throughput by where its threads and memory are",
            "annotation": None, "drawn": drawn, "not_placed": not_placed, "ratios": {},
            "caption": caption_lines(host, rows, [
                "emulated, not placed: the memory axis is not exercised here"
                if not_placed else None] + notes + [
                # a cell: one queue at one placement (condense adds this to the drawn line)
                oversub_status(rows, lambda r: (workload_of(r), PC.placement_key(r),
                                                r["queue"]), mark="a red \u00d7 in the cell")])}


def draw_placement(axes, p, show_legend=True):
    """The heatmap: a panel per workload, a colour scale (M/s, logarithmic)
    for the figure, one number per cell, numaring / best peer right of each row."""
    import numpy as np
    from matplotlib.colors import LogNorm
    vals = [c["tput"].est / 1e6 for pn in p["panels"] for pr in pn["rows"]
            for c in pr["cells"].values() if c["tput"] is not None and c["tput"].est > 0]
    lo, hi = (min(vals), max(vals)) if vals else (1e-6, 1e-5)   # M/s
    norm = LogNorm(vmin=lo, vmax=max(hi, lo * 1.01))
    image = None
    for ax, pn in zip(axes, p["panels"]):
        ax.set_gid("placement")
        nq, nr = len(pn["queues"]), len(pn["rows"])
        grid = np.full((nr, nq), np.nan)
        for i, pr in enumerate(pn["rows"]):
            for j, q in enumerate(pn["queues"]):
                c = pr["cells"].get(q)
                if not c or c["tput"] is None:
                    continue
                m = c["tput"].est / 1e6
                if m > 0:
                    grid[i, j] = m
                # one number per cell (readable at a column's width), three digits at most
                ax.text(j, i, "%.3g" % m if m >= 0.01 else "%.1e" % m, ha="center",
                        va="center", fontsize=8.5, gid="placement-cell",
                        color="white" if norm(max(m, lo)) < 0.6 else "black")
                if c["oversubscribed"]:
                    ax.text(j + 0.46, i - 0.46, "\u00d7", ha="right", va="top", fontsize=7,
                            fontweight="bold", color="#d62728", gid="placement-oversub")
            ax.text(nq - 0.5 + 0.15, i, "%s %s" % (
                "n/a" if pr["ratio"] is None else "%.2f\u00d7" % pr["ratio"].est,
                ("vs " + pr["best"]) if pr["best"] else ""), ha="left", va="center",
                fontsize=8.5, clip_on=False, gid="placement-ratio")
        image = ax.imshow(np.ma.masked_invalid(grid), cmap=fig_draw.plt.get_cmap("viridis"),
                          norm=norm, aspect="auto")
        ax.grid(False)   # the style's grid would cross the cells
        ax.set_xticks(range(nq))
        ax.set_xticklabels(pn["queues"], rotation=35, ha="right", fontsize=8.5)
        ax.set_yticks(range(nr))
        ax.set_yticklabels([pr["label"] for pr in pn["rows"]], fontsize=8)
        ax.set_title(pn["name"] + "\n(right: numaring / best peer, paired median ratio)",
                     fontsize=9.5)
    for ax in axes[len(p["panels"]):]:
        no_data(ax, "")
    if image is not None and show_legend:
        cb = axes[0].figure.colorbar(image, ax=list(axes[:len(p["panels"])]), shrink=0.8,
                                     pad=0.12)
        cb.set_label("median M/s (the cells' unit)")


# --------------------------------------------------------------------------
# gnuplot: the data file

#: placement.dat's blocks; scripts/gnuplot/placement.gp reads them by name (pc_, pr_)
CELL_COLUMNS = ["panel", "row", "col", "queue", "median_ops_per_s", "lo_ops_per_s",
                "hi_ops_per_s", "n", "log10_ops", "crosses", "p50_ns", "p99_ns",
                "oversubscribed", "nrows", "ncols", "npanels"]
ROW_COLUMNS = ["panel", "row", "label", "ratio", "ratio_lo", "ratio_hi", "best_peer",
               "ncols"]
QUEUE_COLUMNS = ["panel", "col", "queue"]
PANEL_COLUMNS = ["panel", "workload"]


def dat_placement(name, p):
    """placement.dat: the cells, the rows (a label without spaces, the ratio to
    the best peer), the queues and the panels, a block each (NaN rows where none)."""
    g = FC.g
    out = dat_header(name, p, "each cell the median throughput of one queue at one "
                     "placement (threads, producers' and consumers' nodes, the queue's "
                     "memory) with its interval; per row numaring's paired median ratio to "
                     "the row's best peer; one panel per workload", CELL_COLUMNS)
    cells, prow, qrows, prows = [], [], [], []
    np_ = len(p["panels"])
    for k, pn in enumerate(p["panels"]):
        prows.append([k, pn["workload"]])
        qrows += [[k, j, q] for j, q in enumerate(pn["queues"])]
        for i, pr in enumerate(pn["rows"]):
            r = pr["ratio"]
            prow.append([k, i, pr["label"].replace(" ", "_") or "-"] +
                        ([g(r.est), g(r.lo), g(r.hi)] if r else ["NaN"] * 3) +
                        [pr["best"] or "-", len(pn["queues"])])
            for j, q in enumerate(pn["queues"]):
                c = pr["cells"].get(q)
                if not c or c["tput"] is None:
                    continue
                t = c["tput"]
                cells.append([k, i, j, q, g(t.est), g(t.lo), g(t.hi), t.n,
                              g(math.log10(t.est)) if t.est > 0 else "NaN", int(c["crosses"]),
                              *[g(c[x].est) if c[x] else "NaN" for x in ("p50", "p99")],
                              c["oversubscribed"], len(pn["rows"]), len(pn["queues"]), np_])
    empty = [[0, 0, 0, "none"] + ["NaN"] * 4 + ["NaN", 0, "NaN", "NaN", 0, 1, 1, 1]]
    return (out + FC.block("cells", CELL_COLUMNS, cells, empty=empty)
            + FC.block("rows", ROW_COLUMNS, prow, empty=[[0, 0, "-", "NaN", "NaN", "NaN",
                                                           "-", 1]])
            + FC.block("queues", QUEUE_COLUMNS, qrows, empty=[[0, 0, "none"]])
            + FC.block("panels", PANEL_COLUMNS, prows, empty=[[0, "none"]]))
