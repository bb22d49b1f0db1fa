# SPDX-License-Identifier: BSD-2-Clause
"""placement_cells.py - the placement sweep's cells (experiments/placement.exp,
issue 31 item 3): one queue at one placement of its threads and memory.

One place computes them, so that the placement heatmap
(scripts/figures/fig_placement.py) and the results README's placement table
(results_readme.py) print the same numbers: per workload, its placements
(threads, pin, the queue's memory) in order, each with every queue's median
throughput (and p50/p99 where every item crosses nodes), the best peer
(the other queue whose median is highest there) and numaring's paired
median ratio to it (stats.paired: the ratio of each repetition's two runs,
its median and interval, as every ratio of this artifact).
"""

import os

from ..common import manifest
from . import nrdata
from . import stats

#: the queue held against the others
NUMARING = "numaring"
#: the memory policies in the order a workload's placements list them
MEM_ORDER = ("producers", "consumers", "interleave", "first-touch")
#: what queue_pages says where nothing was placed (emulated nodes)
NOT_PLACED = "not placed"


def mem_of(row):
    """The queue's memory a run asked for (queue_mem; first-touch where empty)."""
    return (row.get("queue_mem") or "first-touch").strip()


def workload_of(row):
    return row.get("workload") or "prodcons"


def placement_key(row):
    """(threads, pin, memory): one placement of a workload."""
    return (nrdata.threads(row), nrdata.pin_of(row), mem_of(row))


def _mem_rank(mem):
    return (MEM_ORDER.index(mem) if mem in MEM_ORDER else len(MEM_ORDER), mem)


def median(rows, column):
    """The median of a column over rows and its interval (stats.interval);
    None where no row has a value."""
    vals = [v for v in (nrdata.num(r, column) for r in rows) if v is not None]
    return stats.interval(vals) if vals else None


def workload_cells(rows, queues):
    """One workload's placements, in order (threads, pin, memory): each a dict
    with key, cells {queue: {tput, n, rows, crosses, p50, p99, oversubscribed}},
    best (the best peer, None without one) and ratio (numaring / best, an
    Interval, or None)."""
    keys = sorted({placement_key(r) for r in rows},
                  key=lambda k: (k[0], k[1], _mem_rank(k[2])))
    out = []
    for key in keys:
        at = [r for r in rows if placement_key(r) == key]
        cells = {}
        for q in queues:
            rs = [r for r in at if r["queue"] == q]
            if not rs:
                continue
            crosses = all(nrdata.crosses_nodes(r) for r in rs)
            cells[q] = {"tput": median(rs, "throughput_ops_per_s"), "n": len(rs), "rows": rs,
                        "crosses": crosses,
                        "p50": median(rs, "p50_ns") if crosses else None,
                        "p99": median(rs, "p99_ns") if crosses else None,
                        "oversubscribed": int(any(str(r.get("oversubscribed") or "") == "1"
                                                  for r in rs))}
        peers = [q for q in cells if q != NUMARING and cells[q]["tput"] is not None]
        best = max(peers, key=lambda q: cells[q]["tput"].est) if peers else None
        ratio = None
        if best and NUMARING in cells:
            ratio = stats.paired(cells[NUMARING]["rows"], cells[best]["rows"])
        out.append({"key": key, "row": at[0], "cells": cells, "best": best, "ratio": ratio})
    return out


def one_memory_row(rows):
    """Where memory is not placed (emulated nodes: not_placed), the memory
    policies of one thread placement are one configuration: the runs of the
    first policy (MEM_ORDER) of each workload, threads and pin; rows as they
    are where memory was placed."""
    if not not_placed(rows):
        return rows
    first = {}
    for r in rows:
        k = (workload_of(r), placement_key(r)[:2])
        if k not in first or _mem_rank(mem_of(r)) < _mem_rank(first[k]):
            first[k] = mem_of(r)
    return [r for r in rows if mem_of(r) == first[(workload_of(r), placement_key(r)[:2])]]


def workloads_in(rows):
    """The workloads the rows hold, in the harness's order."""
    return [w for w in manifest.workloads() if any(workload_of(r) == w for r in rows)]


def not_placed(rows):
    """Whether the runs' queue memory was not placed (emulated nodes)."""
    return any((r.get("queue_pages") or "").strip() == NOT_PLACED for r in rows)


def load(hostdir):
    """results/<host>/placement.csv's rows (the drift reference left out), [] where
    there is none."""
    path = os.path.join(hostdir, "placement.csv")
    return list(nrdata.load_tidy(path, experiment="placement")) if os.path.exists(path) else []
