# SPDX-License-Identifier: BSD-2-Clause
"""handover.py - how far apart a host's runs found their two CPUs.

Each run times one cache line's one-way trip between its first producer's and
its first consumer's CPUs (threads 0 and 1 of pairs and mixed) just before and
just after its window: numaring-bench's c2c_one_way_before_ns and
c2c_one_way_after_ns (harness/pingpong.h). The host probe timed the same trip
once, before the sweep (c2c_one_way_same_node). On a machine that holds still
the three agree. Under a hypervisor two vCPUs need not stay on the same two
physical cores: a run whose trip at an end is more than FAR times the probe's
had its threads further apart than the probe found them, for part of its
window at least, and its throughput says so.

The ceiling model takes the smaller of the probe's trip and the run's own
(scripts/ceiling.py, A3); this module reports the spread, per experiment, in
the results README (lines()).
"""

import os
import statistics

from . import ceiling, findings

__all__ = ["FAR", "ends", "far", "summary", "lines"]

#: an end of a run more than FAR x the probe's one-way trip: CPUs further apart
FAR = 2.0


def ends(row):
    """The run's two timed trips (ns), those that were timed: a list of 0 to 2."""
    out = []
    for k in ("c2c_one_way_before_ns", "c2c_one_way_after_ns"):
        try:
            v = float(row.get(k) or "")
        except ValueError:
            continue
        if v > 0:
            out.append(v)
    return out


def far(row, t_c):
    """Whether either timed end of the run is more than FAR x t_c (ns)."""
    return any(v > FAR * t_c for v in ends(row))


def _probe_t_c(hostdir):
    path = os.path.join(hostdir, "probe", "probe.csv")
    if not os.path.exists(path):
        return None
    try:
        return ceiling.params(ceiling.load_probe(path))["t_c"]
    except (OSError, ValueError):
        return None


def summary(hostdir):
    """Per experiment with timed runs: a dict with experiment, runs (timed),
    min, median, max (ns, over both ends of every timed run), far (runs with
    an end above FAR x the probe's trip), t_c (the probe's, ns, or None), and
    slowdown: over the points that have runs of both kinds, the median of
    (median throughput of the far runs / median of the others), or None."""
    t_c = _probe_t_c(hostdir)
    out = []
    for exp in findings.EXPERIMENTS:
        path = os.path.join(hostdir, f"{exp}.csv")
        if not os.path.exists(path):
            continue
        rows = [r for r in findings.load(path) if ends(r)]
        if not rows:
            continue
        vals = sorted(v for r in rows for v in ends(r))
        d = {"experiment": exp, "runs": len(rows), "min": vals[0],
             "median": statistics.median(vals), "max": vals[-1], "t_c": t_c,
             "far": None, "slowdown": None}
        if t_c:
            d["far"] = sum(1 for r in rows if far(r, t_c))
            ratios = []
            by_point = {}
            for r in rows:
                by_point.setdefault(r["point"], []).append(r)
            for rs in by_point.values():
                a = [float(r["throughput_ops_per_s"]) for r in rs if far(r, t_c)]
                b = [float(r["throughput_ops_per_s"]) for r in rs if not far(r, t_c)]
                if a and b and statistics.median(b) > 0:
                    ratios.append(statistics.median(a) / statistics.median(b))
            d["slowdown"] = statistics.median(ratios) if ratios else None
            d["points_both"] = len(ratios)
        out.append(d)
    return out


def lines(hostdir):
    """The results README's section on the runs' hand-over distance."""
    s = summary(hostdir)
    head = ["", "## How far apart the runs' CPUs were", "",
            "Each run times one cache line's one-way trip between its first producer's and "
            "first consumer's CPUs just before and just after its window "
            "(`c2c_one_way_before_ns`, `c2c_one_way_after_ns`; harness/pingpong.h). The probe "
            "timed the same trip once before the sweep. Under a hypervisor two vCPUs need not "
            "stay on the same physical cores: a run with an end above "
            f"{FAR:g}x the probe's trip had its threads further apart than the probe found "
            "them. The ceiling model takes the smaller of the probe's trip and the run's own "
            "(scripts/ceiling.py, A3)."]
    if not s:
        return head + ["", "Not recorded: these runs predate the harness's timing of it."]
    out = head + ["", "| experiment | runs timed | one way, ns: min | median | max | probe's "
                  f"| runs with an end above {FAR:g}x the probe's | their throughput / the "
                  "others', same point (median over points) |",
                  "|---|---|---|---|---|---|---|---|"]
    for d in s:
        probe = f"{d['t_c']:.1f}" if d["t_c"] else "—"
        farn = "—" if d["far"] is None else f"{d['far']} ({100 * d['far'] / d['runs']:.0f}%)"
        slow = ("—" if d["slowdown"] is None
                else f"{d['slowdown']:.2f}x ({d['points_both']} points)")
        out.append(f"| {d['experiment']} | {d['runs']} | {d['min']:.1f} | {d['median']:.1f} | "
                   f"{d['max']:.1f} | {probe} | {farn} | {slow} |")
    return out
