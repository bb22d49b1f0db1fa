# SPDX-License-Identifier: BSD-2-Clause
"""collect.py - one experiment's tidy CSV, results/<host>/<experiment>.csv, from its runs.

Each finished repetition's summary.csv (one header, one row, written by
numaring-bench) becomes one row of the tidy table, after the runner's own
columns: experiment, point, rep, profile, role (point or reference),
oversubscribed (from meta.json's threads), steal_pct and stolen (from the
host_load the runner added to meta.json; scripts/runner/hostenv.py), the
interconnect bytes per item (--likwid's interconnect.json), capacity_probe
(the probe a --load run was offered a fraction of), then the regime columns
(scripts/common/regime.py). A summary.csv that is not one row, or whose columns
differ from the others', is left out with one line on stderr. The
readers of a rep folder (read_meta here, read_summary from common.tidy) are here too.
"""

import csv
import io
import json
import os
import sys

from . import hostenv
from ..common import regime
from ..common.cpulist import cpu_set
from ..common.tidy import read_lists, read_summary  # noqa: F401 (read_summary: the runner reads it from here)
from .runio import write_whole
from .runorder import REFERENCE_POINTS

INTERCONNECT_JSON = "interconnect.json"  # in a rep folder: --likwid's figure

def oversubscribed(meta):
    """1 where a run's threads outnumbered the CPUs they ran on, or shared a
    core's hyperthreads, 0 where not, None where meta.json does not say: from
    its "threads" entries (the CPU of each thread, -1 when unpinned, and its
    core where the harness records it). 1 if two pinned threads share a CPU
    or a core (two hyperthreads of one core run one core's work: design 6b),
    or if there are unpinned threads and the threads outnumber the CPUs the
    run may use (meta's allowed_cpus, else the CPUs of its nodes, else
    cpus_online). summary.csv's smt_shared tells the two apart."""
    if not isinstance(meta, dict):
        return None
    ts = meta.get("threads")
    if not isinstance(ts, list) or not ts:
        return None
    cpus = []
    for t in ts:
        if not isinstance(t, dict) or not isinstance(t.get("cpu"), int):
            return None
        cpus.append(t["cpu"])
    pinned = [c for c in cpus if c >= 0]
    if len(set(pinned)) < len(pinned):
        return 1
    cores = [t["core"] for t in ts if t["cpu"] >= 0 and isinstance(t.get("core"), int)]
    if len(set(cores)) < len(cores):
        return 1
    if len(pinned) == len(cpus):
        return 0
    allowed = (len(cpu_set(meta["allowed_cpus"])) or None) if meta.get("allowed_cpus") else None
    if allowed is None and isinstance(meta.get("nodes"), list):
        allowed = sum(n.get("ncpus", 0) for n in meta["nodes"] if isinstance(n, dict)) or None
    if allowed is None and isinstance(meta.get("cpus_online"), int):
        allowed = meta["cpus_online"]
    if allowed is None:
        return None
    return 1 if len(cpus) > allowed else 0


def read_meta(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def collect(hostdir, exp, profile, pts, reps, ref=None):
    """results/<host>/<exp>.csv from every finished repetition of the plan, and
    the drift reference's runs (role reference) where ``ref`` is given."""
    rows, header = [], None
    # reps: one count for every point, or {point id: count} (the stopping
    # rule's rounds go to the points an undecided claim reads)
    runs = [(p.id, k, "point") for p in pts
            for k in range(1, (reps.get(p.id, 0) if isinstance(reps, dict) else reps) + 1)]
    if ref is not None:
        runs += [(name, 1, "reference") for name in REFERENCE_POINTS]
    for pid, k, role in runs:
        rdir = os.path.join(hostdir, exp.name, profile, pid, f"rep-{k}")
        path = os.path.join(rdir, "summary.csv")
        if not os.path.exists(path):
            continue
        r = read_lists(path)
        if len(r) != 2:
            print(f"experiments: {path}: not one header and one row; left out",
                  file=sys.stderr)
            continue
        if header is None:
            header = r[0]
        elif r[0] != header:
            print(f"experiments: {path}: columns differ from the others; left out",
                  file=sys.stderr)
            continue
        meta = read_meta(os.path.join(rdir, "meta.json"))
        over = oversubscribed(meta)
        steal = hostenv.steal_pct(meta)
        stolen = hostenv.stolen_flag(steal)
        ic = read_meta(os.path.join(rdir, INTERCONNECT_JSON))
        bpi = ic.get("bytes_per_item") if isinstance(ic, dict) else None
        cp = meta.get("capacity_probe") if isinstance(meta, dict) else None
        pl = meta.get("placement") if isinstance(meta, dict) else None
        pl = pl if isinstance(pl, dict) else {}
        rows.append([exp.name, pid, str(k), profile, role, "" if over is None else str(over),
                     "" if steal is None else f"{steal:g}", "" if stolen is None else str(stolen),
                     "" if bpi is None else f"{bpi:.6g}", ic.get("source", "") if bpi is not None
                     else "", str(cp.get("id", "")) if isinstance(cp, dict) else "",
                     str(pl.get("reruns", "")), str(pl.get("far", ""))]
                    + regime.annotate(dict(zip(r[0], r[1]))) + r[1])
    if header is None:
        return 0
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["experiment", "point", "rep", "profile", "role", "oversubscribed", "steal_pct",
                "stolen", "interconnect_bytes_per_item", "interconnect_source",
                "capacity_probe", "placement_reruns", "placement_far"]
               + list(regime.COLUMNS) + header)
    w.writerows(rows)
    write_whole(os.path.join(hostdir, f"{exp.name}.csv"), buf.getvalue())
    return len(rows)
