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
(scripts/analysis/ceiling.py, A3); this module reports the spread, per experiment, in
the results README (lines()), and the reproduction report again from the runs
whose CPUs stayed where the probe found them (robustness()): a claim whose
verdict changes when the runs that measured a further-apart machine are left
out rests on the hypervisor's placement, not on the queue.
"""

import os
import shutil
import statistics
import tempfile

import pandas as pd

from ..common import placement
from ..common.placement import FAR, ends, far  # noqa: F401 (handover.FAR, .ends, .far)
from . import claims, claims_table, findings, hostfacts, nrdata, templates


def _probe_t_c(hostdir):
    """The probe's one-way trip (ns; the runner's re-runs hold runs against the
    same, common/placement.probe_trip), None without a probe."""
    return placement.probe_trip(os.path.join(hostdir, "probe", "probe.csv"))


def summary(hostdir):
    """Per experiment with timed runs: a dict with experiment, runs (timed),
    min, median, max (ns, over both ends of every timed run), far (runs with
    an end above FAR x the probe's trip), t_c (the probe's, ns, or None), and
    slowdown: over the points that have runs of both kinds, the median of
    (median throughput of the far runs / median of the others), or None."""
    t_c = _probe_t_c(hostdir)
    out = []
    for exp in findings.EXPERIMENTS:
        rows = [r for r in findings.load(os.path.join(hostdir, f"{exp}.csv")) if ends(r)]
        if not rows:
            continue
        vals = sorted(v for r in rows for v in ends(r))
        d = {"experiment": exp, "runs": len(rows), "min": vals[0],
             "median": statistics.median(vals), "max": vals[-1], "t_c": t_c,
             "far": None, "slowdown": None}
        if t_c:
            runs = pd.DataFrame({"point": [r["point"] for r in rows],
                                 "far": [far(r, t_c) for r in rows],
                                 "v": [float(r["throughput_ops_per_s"]) for r in rows]})
            d["far"] = int(runs["far"].sum())
            m = runs.groupby(["point", "far"])["v"].median().unstack().reindex(
                columns=[True, False])
            ratios = (m[True] / m[False])[m[False] > 0].dropna()
            d["slowdown"] = float(ratios.median()) if len(ratios) else None
            d["points_both"] = len(ratios)
        out.append(d)
    return out


def _filter_tidy(src, dst, t_c):
    """Copy one tidy CSV without the runs far at an end; return (kept, left out)."""
    rows = nrdata.read_frame(src, strings=True)
    keep = rows[[not far(r, t_c) for r in rows.to_dict("records")]]
    keep.to_csv(dst, index=False, lineterminator="\n")
    return len(keep), len(rows) - len(keep)


def _mirror_one(src, dst):
    """dst mirrors the host folder src (links), its tidy CSVs without the runs
    far at an end (against src's own probe). Returns runs left out, or None
    where src has no probe trip."""
    t_c = _probe_t_c(src)
    if not t_c:
        return None
    os.makedirs(dst)
    tidy = {f"{e}.csv" for e in findings.EXPERIMENTS}
    left = 0
    for name in os.listdir(src):
        if name in tidy:
            left += _filter_tidy(os.path.join(src, name), os.path.join(dst, name), t_c)[1]
        else:
            os.symlink(os.path.abspath(os.path.join(src, name)), os.path.join(dst, name))
    return left


def near_mirror(hostdir, tmp):
    """A copy of hostdir (and of its emulated sibling, the folder of its
    cross-node runs) under tmp, same names, whose tidy CSVs keep only the runs
    with no end above FAR x the probe's trip. Returns (the copy's path, runs
    left out), or (None, 0) where the host has no probe trip."""
    hostdir = os.path.normpath(hostdir)
    dst = os.path.join(tmp, os.path.basename(hostdir))
    left = _mirror_one(hostdir, dst)
    if left is None:
        return None, 0
    cross = hostfacts.cross_node_dir(hostdir)
    if cross and os.path.normpath(cross) != hostdir:
        left += _mirror_one(cross, os.path.join(tmp, os.path.basename(cross))) or 0
    return dst, left


def robustness(hostdir):
    """The reproduction report of hostdir against the same report from its
    runs near only (near_mirror): (left out, [(claim id, row of all runs, row
    of near runs)] for the claims whose status or value differ). None where no
    run of the host was timed or none was far."""
    if not any(d["far"] for d in summary(hostdir)):
        return None
    tmp = tempfile.mkdtemp(prefix="numaring-near-")
    try:
        near_dir, left = near_mirror(hostdir, tmp)
        if near_dir is None:
            return None
        all_rows = claims_table.report(hostdir)
        near_rows = {r["claim"]: r for r in claims_table.report(near_dir)}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    key = ("status", "value", "lo", "hi")
    return left, [(r["claim"], r, n) for r in all_rows for n in [near_rows.get(r["claim"])]
                  if n and [n[k] for k in key] != [r[k] for k in key]]


def lines(hostdir):
    """The results README's section on the runs' hand-over distance."""
    s = summary(hostdir)
    rob = None if not s or "-emulated-" in os.path.basename(os.path.normpath(hostdir)) \
        else robustness(hostdir)

    def verdict(row):
        n = f" ({row['n']} paired)" if row.get("n") else ""
        return f"{row['status']}: {claims.fmt_value(row)}{n}"
    return templates.section("readme_sections.md.j2", "handover", {"verdict": verdict},
                             far=f"{FAR:g}", rows=s or None, robust=rob is not None,
                             left=rob and rob[0], diff=rob and rob[1])


def paper_sentence(hostdir):
    """The paper's sentences on the host's runs' hand-over distance, LaTeX:
    how many runs found their CPUs further apart than the probe did, how their
    throughput compared, and which claims' verdicts change without them."""
    s = [d for d in summary(hostdir) if d["far"] is not None]
    if not s:
        return ("This host's runs predate the harness's timing of the distance between "
                "their CPUs.")
    runs, far_runs = sum(d["runs"] for d in s), sum(d["far"] for d in s)
    out = (f"On this host {far_runs} of {runs} runs "
           f"({100 * far_runs / runs:.0f}\\%) found their two CPUs more than "
           f"{FAR:g}$\\times$ the probe's trip apart at an end of the run")
    slow = [d["slowdown"] for d in s if d["slowdown"] is not None]
    if slow:
        lo, hi = min(slow), max(slow)
        span = f"{lo:.2f}$\\times$" if lo == hi else f"{lo:.2f}$\\times$ to {hi:.2f}$\\times$"
        out += (f"; per experiment, such runs moved a median {span} the items of the "
                "same point's other runs")
    out += "."
    rob = robustness(hostdir)
    if rob is not None:
        changed = [(cid, n) for cid, r, n in rob[1] if r["status"] != n["status"]]
        if changed:
            pairs = sorted({int(n["n"]) for _, n in changed if n.get("n")})
            on = ""
            if pairs:
                k = (f"{pairs[0]}" if len(pairs) == 1 else f"{pairs[0]} to {pairs[-1]}")
                on = f" on {k} remaining pair{'s' if pairs[-1] != 1 else ''} each"
            out += (f" Left out, they change the verdict of {len(changed)} "
                    f"claim{'s' if len(changed) != 1 else ''} ("
                    + ", ".join("\\texttt{%s}" % c for c, _ in changed)
                    + f"{on}): those verdicts rest on where the hypervisor put the "
                    "vCPUs as much as on the queues.")
        else:
            out += " Left out, they change no claim's verdict."
    return out
