# SPDX-License-Identifier: BSD-2-Clause
"""sizing.py - what this machine can run, and how long a sweep takes on it.

The shape of the host (the CPUs this process may use, grouped by core, and
the nodes that have some of them), what a one-node host does with the
experiments that need two (two emulated nodes, each a half of the cores),
and the estimated wall time of each experiment's runs in a profile, here
or on a host described by --cpus/--cores/--nodes/--smt: what
`python3 -m scripts.runner.experiments list` prints and `check` sizes the files by.
"""

import contextlib
import glob
import os
import re

from ..common import expfile, looks, placement
from ..common import manifest
from ..common.cpulist import cpu_set
from .runio import die
from .runorder import REFERENCE_POINTS, capacity_groups, probe_opts


# ---- the machine -----------------------------------------------------------

def allowed_cpus():
    return len(os.sched_getaffinity(0))


def core_groups(cpus):
    """The CPUs grouped by core, as the kernel says (the core's sibling
    list in sysfs), cores in the order of their first CPU; a CPU the kernel
    says nothing about is a core of its own."""
    groups = {}
    for c in sorted(cpus):
        key = None
        for name in ("core_cpus_list", "thread_siblings_list"):
            path = f"/sys/devices/system/cpu/cpu{c}/topology/{name}"
            with contextlib.suppress(OSError), open(path, encoding="utf-8") as f:
                key = f.read().strip()
                break
        groups.setdefault(key or f"cpu{c}", []).append(c)
    return list(groups.values())


def host_shape():
    """(CPUs, cores, nodes with CPUs) that this process may use: what `list`
    and `check` size the sweeps by (the runner asks numaring-bench, which
    asks hwloc)."""
    cpus = os.sched_getaffinity(0)
    nodes = 0
    for path in glob.glob("/sys/devices/system/node/node[0-9]*/cpulist"):
        with contextlib.suppress(OSError), open(path, encoding="utf-8") as f:
            nodes += bool(cpu_set(f.read()) & cpus)
    return len(cpus), len(core_groups(cpus)), max(1, nodes)


def topo_cores(topo, ncpus):
    """The cores of numaring-bench --show-topology's JSON (ncpus where it
    does not say: a harness before cores were reported)."""
    cores = topo.get("cores") if isinstance(topo, dict) else None
    if isinstance(cores, dict) and isinstance(cores.get("cores"), int) and cores["cores"] > 0:
        return cores["cores"]
    return ncpus


def needs_two_nodes(exp, profile):
    """Whether exp places producers and consumers on nodes of their own (pin
    split or nodes:P/C) with no one-node point beside them: not with compact
    (a one-node host then runs the compact points alone, as expfile.points
    leaves the two-node pins out)."""
    settings, _ = exp.settings(profile)
    pins = [str(v) for v in settings.get("pin", [])]
    return (any(p == "split" or p.startswith("nodes:") for p in pins)
            and "compact" not in pins)


def emulated_halves():
    """Two emulated nodes over the allowed CPUs: the first half of the cores
    and the rest, each core with all its hyperthreads (a core split between
    the nodes would put a producer and a consumer on one core's siblings)."""
    cores = core_groups(os.sched_getaffinity(0))
    half = len(cores) // 2
    return (",".join(str(c) for g in cores[:half] for c in g) + ";"
            + ",".join(str(c) for g in cores[half:] for c in g))


# ---- sizing: how long a sweep takes ----------------------------------------------

#: What numaring-bench does when a point does not say (options.c's defaults).
BENCH_DEFAULTS = {"duration": 2.0, "warmup": 0.5, "calibrate": 0.1, "load-probe": 0.3}
#: The warm-ups numaring-bench adds of its own (bench.c): the calibration's
#: null-queue run and --load's capacity run.
CALIBRATE_WARMUP_S = 0.02
LOAD_PROBE_WARMUP_S = 0.1
#: Everything else of a run: process start, topology and core discovery
#: (hwloc), thread start and join for each of its runs (calibration,
#: capacity, measured), the queue's creation, the drain, four files written
#: and fsynced, and the runner's own work (subprocess, summary, progress).
#: Measured on the development machine (2 CPUs, 1 node, Debian 12): the
#: committed quick run of results/vm-intel-f6m106-1node* started a run every
#: 0.875-0.903 s where the points ask 0.82 s (1.29 s where they ask 1.22 s):
#: 0.055-0.08 s a run on a quiet host; timed again with the runner under a
#: load average of 8-12 from other work (sweeps of 5 and 25 runs, 3 pairs,
#: the per-run difference, median): 0.27 s at 1P1C and 0.25 s at 4P4C.
#: 0.25 s: the loaded figure, as a margin for hosts that start more threads
#: per run (not modelled otherwise).
RUN_OVERHEAD_S = 0.25


def run_seconds(opts, probe=True):
    """The estimated wall time of one run of a point (its options as the
    runner passes them): warm-up + duration, the calibration (not for the
    queues that move no data, which bench.c runs none for: the manifest's
    moves_data), --load's capacity run (not with ``probe`` False: the
    runner gives the points of a group the capacity of one probe a round),
    and RUN_OVERHEAD_S. A point bounded by --ops counts its warm-up only
    (its length depends on the queue)."""
    def val(k):
        return float(opts.get(k, BENCH_DEFAULTS[k]))
    t = val("warmup") + (0 if "ops" in opts else val("duration"))
    if (opts.get("queue", "numaring") not in manifest.queues(test_only=None, moves_data=False)
            and val("calibrate") > 0):
        t += val("calibrate") + CALIBRATE_WARMUP_S
    if probe and opts.get("load", "closed") != "closed":
        t += val("load-probe") + LOAD_PROBE_WARMUP_S
    return t + RUN_OVERHEAD_S


def points_seconds(pts, reps):
    """The estimated wall time of pts x reps runs with their capacity probes:
    one a group and round (capacity_groups)."""
    groups = capacity_groups(pts)
    probes = {g: o for g, o in groups.values()}
    return reps * (sum(run_seconds(p.opts, probe=p.id not in groups) for p in pts)
                   + sum(run_seconds(probe_opts(o)) for o in probes.values()))


def sizing(exps, profile, ncpus, cores, nodes, budget=looks.BUDGET_FACTOR):
    """Per experiment of one profile: {name, nodes (2 where a one-node host
    runs it on emulated nodes), points, reps, reference runs, runs, seconds,
    max_reps and max_seconds (the stopping rule's budget spent: the most it can
    take), threads (the thread counts), ops (1 if a point is --ops bounded)}.
    Raises expfile.ExpError."""
    out = []
    for e in exps:
        n = nodes if nodes >= 2 or not needs_two_nodes(e, profile) else 2
        pts, reps = expfile.points(e, profile, ncpus, n, cores)
        ref = expfile.reference_point(e, pts, ncpus, n, cores)
        nref = len(REFERENCE_POINTS) if ref is not None else 0
        secs = points_seconds(pts, reps)
        secs += nref * run_seconds(ref.opts) if ref is not None else 0
        # the stopping rule may take every experiment to its budget (experiments.py
        # add_rounds): the most this sweep can take, said beside the estimate
        # and re-run up to placement.RERUN_SHARE of its runs (CPUs far apart)
        most = reps if profile == "smoke" else looks.budget_rounds(reps, budget)
        max_secs = secs + points_seconds(pts, most - reps)
        if profile != "smoke":
            max_secs *= 1 + placement.RERUN_SHARE
        threads = sorted({expfile.point_threads(p.opts) for p in pts})
        out.append({"name": e.name, "nodes": n, "emulated": n != nodes, "points": len(pts),
                    "reps": reps, "references": nref, "runs": len(pts) * reps + nref,
                    "seconds": secs, "max_reps": most, "max_seconds": max_secs,
                    "threads": threads,
                    "ops": any("ops" in p.opts for p in pts)})
    return out


def fmt_time(s):
    s = int(s)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"



#: the side benchmarks make experiments runs after the sweeps (their claims are
#: in the report): (make target, seconds per round measured on the 2-CPU
#: development VM, rounds); bench-oversub runs once, --quick. bench-peers runs
#: every queue whose items are its own (manifest): 57 s a round for the 8 it
#: ran when measured, so 57 / 8 s per queue
SIDE_BENCHMARKS = (("bench-peers", 57.0 / 8 * len(manifest.queues(fabricates=False)),
                    looks.LOOKS[0]),
                   # 29 s a round for its 18 plain runs when measured, and 30
                   # stripped runs (where the time goes) of the same length
                   ("bench-fidelity", 29.0 * 48 / 18, looks.LOOKS[0]),
                   ("bench-oversub", 14.0, 1))


def side_seconds():
    """The side benchmarks' estimated wall time (SIDE_BENCHMARKS)."""
    return sum(s * n for _name, s, n in SIDE_BENCHMARKS)


def list_host(a):
    """(CPUs, cores, nodes, description) of the host `list` describes: this
    one, or the one --cpus/--cores/--nodes/--smt describe. Exits 2 with one
    message on values no host has."""
    given = [k for k in ("cpus", "cores", "nodes", "smt") if getattr(a, k) is not None]
    if not given:
        ncpus, cores, nodes = host_shape()
        return ncpus, cores, nodes, (f"this host: {ncpus} CPUs on {cores} cores, {nodes} "
                                     f"node{'s' if nodes != 1 else ''}")
    for k in given:
        v = getattr(a, k)
        if not re.fullmatch(r"[0-9]+", v) or int(v) < 1:
            die(f"list --{k} {v}: expected a whole number from 1")
    num = {k: int(getattr(a, k)) for k in given}
    smt, nodes = num.get("smt", 1), num.get("nodes", 1)
    if smt not in (1, 2, 4, 8):
        die(f"list --smt {smt}: hardware threads per core are 1, 2, 4 or 8")
    if nodes > 64:
        die(f"list --nodes {nodes}: at most 64 nodes (numaring's NR_MAX_NODES)")
    if "cpus" not in num and "cores" not in num:
        die("list: --nodes and --smt describe another host with --cpus N (hardware threads) "
            "or --cores N")
    if "cpus" in num and num["cpus"] % smt:
        die(f"list --cpus {num['cpus']} --smt {smt}: the CPUs are not a whole number of "
            f"cores of {smt} hardware threads")
    cores = num["cores"] if "cores" in num else num["cpus"] // smt
    ncpus = cores * smt
    if "cpus" in num and ncpus != num["cpus"]:
        die(f"list --cpus {num['cpus']} --cores {cores} --smt {smt}: {cores} cores of "
            f"{smt} hardware threads are {ncpus} CPUs")
    if ncpus > 1024:
        die(f"list: {ncpus} CPUs; numaring-bench places at most 1024 (CPU_SETSIZE)")
    if cores % nodes:
        die(f"list --nodes {nodes}: {cores} cores do not split evenly over {nodes} nodes")
    return ncpus, cores, nodes, (f"a {nodes} node x {cores // nodes} core"
                                 + (f" x {smt} hardware thread" if smt > 1 else "")
                                 + f" host ({ncpus} CPUs, {cores} cores)")


#: the README's generated estimate: this development machine and the study's host
ESTIMATE_BEGIN = ("<!-- BEGIN GENERATED: estimate (python3 -m scripts.runner.experiments "
                  "readme README.md; do not edit) -->")
ESTIMATE_END = "<!-- END GENERATED: estimate -->"
ESTIMATE_HOSTS = (("this 2-CPU, one-node development VM", 2, 2, 1),
                  ("a two-socket host of 2 x 16 cores", 32, 32, 2))


def estimate_block(exps):
    """The README's lines on how long make experiments takes (sizing, the
    default profile of each host shape), between ESTIMATE_BEGIN and _END."""
    parts = []
    for what, ncpus, cores, nodes in ESTIMATE_HOSTS:
        prof = "quick" if ncpus < 8 else "full"
        rows = sizing(exps, prof, ncpus, cores, nodes)
        side = side_seconds()
        parts.append(f"about {fmt_time(sum(r['seconds'] for r in rows) + side)} on {what} "
                     f"(profile {prof}, with the side benchmarks; up to "
                     f"{fmt_time(sum(r['max_seconds'] for r in rows) + side)} "
                     "if the stopping rule and the placement re-runs spend their budgets)")
    return [ESTIMATE_BEGIN,
            "How long `make experiments` takes (estimated by `python3 -m "
            "scripts.runner.experiments list`, which it prints before it starts): "
            + "; ".join(parts) + ".", ESTIMATE_END]
