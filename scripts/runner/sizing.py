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

from ..common import expfile, looks, placement, runfiles
from ..common import manifest
from ..common.cpulist import cpu_set
from .runio import die

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from . import side
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
#: 0.055-0.08 s a run on a quiet host; a fresh clone's make experiments on
#: an AMD EPYC session (issue 43, quiet: nothing else running) spent 0.092 s
#: a run over what its 628 one-node runs ask and 0.062 s over its 218
#: emulated two-node ones. Under a load average of 8-12 from other work it was
#: 0.25-0.27 s (1P1C and 4P4C): make experiments is timed for a quiet host,
#: and "at most" (AT_MOST_EXTRA) is the margin.
RUN_OVERHEAD_S = 0.1


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


#: the stopping rule and the placement re-runs spend at most this share of a
#: sweep's estimate again: the runner adds no look and re-runs nothing that
#: would take the sweep past it (experiments.py add_rounds, run_pass), so
#: "at most" is a promise it keeps. 10%: a whole make experiments lands within
#: 20% of the estimate it prints (the project's promise; issue 43 allows 50%,
#: 4 h estimated and 6 h at most), the other 10% for the estimate's own error
#: (docs/testing.md: a fresh clone's quick run here with the rule at a 15%
#: cap came 1:40 over its 17:45), and a fresh clone's run here, its build
#: included, within 20 minutes
AT_MOST_EXTRA = 0.1


#: the steps of make experiments outside the runs, measured on the 2-CPU
#: development VM (scripts/runner/experiments.py prints them in the estimate;
#: docs/testing.md has the run): the environment capture, the host probe and
#: bench-ring once per results folder the sweep writes (the real one and, on a
#: one-node host, its emulated sibling: 2-3 s each in a fresh clone's quick
#: run), the plots of every host folder under results/ (make plots draws them
#: all, matplotlib and gnuplot: 102 s for 8 folders, 13 s a folder) and the
#: reproduction report (2 s). Not the build: a fresh clone compiles first (27 s
#: there).
FIXED_SECONDS = {"env, probe and bench-ring, per folder written": 5.0,
                 "plots, per host folder drawn": 13.0, "report": 5.0}

#: where make experiments writes and make plots draws by default
RESULTS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "results")


def host_folders(results=RESULTS_DIR):
    """The host folders make plots draws: those under ``results`` now."""
    try:
        return sum(1 for d in os.listdir(results) if os.path.isdir(os.path.join(results, d)))
    except OSError:
        return 0


def fixed_seconds(folders=1, results=RESULTS_DIR, written=0):
    """FIXED_SECONDS for a sweep that writes ``folders`` results folders into
    ``results`` (make plots then draws those and the ones already there; less
    ``written`` of them: the sweep's own, counted after it wrote them)."""
    f = FIXED_SECONDS
    return (f["env, probe and bench-ring, per folder written"] * folders
            + f["plots, per host folder drawn"] * (host_folders(results) - written + folders)
            + f["report"])


def sizing(exps, profile, ncpus, cores, nodes, budget=looks.BUDGET_FACTOR, drop=None, reps=None):
    """Per experiment of one profile: {name, nodes (2 where a one-node host
    runs it on emulated nodes), points, reps, reference runs, runs, seconds,
    max_reps and max_seconds (what the stopping rule may add: rounds to the
    points an undecided claim reads, up to ``budget`` x their repetitions, and
    the placement re-runs: the most the sweep can take, before the
    AT_MOST_EXTRA cap that totals() applies), threads (the thread counts),
    ops (1 if a point is --ops bounded), pts (the points), tiers ({tier:
    seconds})}. ``drop``: {experiment: set of point ids} a time budget leaves
    out (fit_budget). Raises expfile.ExpError."""
    out = []
    for e in exps:
        n = nodes if nodes >= 2 or not needs_two_nodes(e, profile) else 2
        pts, file_reps = expfile.points(e, profile, ncpus, n, cores)
        reps_e = reps or file_reps
        ref = expfile.reference_point(e, pts, ncpus, n, cores)
        if drop and drop.get(e.name):
            pts = [p for p in pts if p.id not in drop[e.name]]
            if ref is not None and ref.id in drop[e.name]:
                ref = pts[0] if pts else None
        nref = len(REFERENCE_POINTS) if ref is not None and pts else 0
        secs = points_seconds(pts, reps_e)
        secs += nref * run_seconds(ref.opts) if nref else 0
        tiers = {t: points_seconds([p for p in pts if p.tier == t], reps_e)
                 for t in expfile.TIERS}
        # the stopping rule adds rounds to the points an undecided claim reads
        # (experiments.py add_rounds), up to its budget: the most it can add
        most = reps_e if profile == "smoke" or reps else looks.budget_rounds(reps_e, budget)
        claimed = [p for p in pts if p.claims or p.undeclared]
        max_secs = secs + points_seconds(claimed, most - reps_e)
        if profile != "smoke":
            max_secs *= 1 + placement.RERUN_SHARE
        threads = sorted({expfile.point_threads(p.opts) for p in pts})
        out.append({"name": e.name, "nodes": n, "emulated": n != nodes, "points": len(pts),
                    "reps": reps_e, "references": nref, "runs": len(pts) * reps_e + nref,
                    "seconds": secs, "max_reps": most if claimed else reps_e,
                    "max_seconds": max_secs, "threads": threads, "tiers": tiers, "pts": pts,
                    "ops": any("ops" in p.opts for p in pts)})
    return out


def totals(rows, side, fixed, time_budget=None):
    """(estimate, at most) of a whole make experiments: the sweeps, the side
    benchmarks and the fixed steps (FIXED_SECONDS). At most: what the stopping
    rule and the re-runs may add, capped at AT_MOST_EXTRA of the estimate, and
    within ``time_budget`` where one is given (the runner keeps both)."""
    est = sum(r["seconds"] for r in rows) + side + fixed
    most = min(sum(r["max_seconds"] for r in rows) + side + fixed, est * (1 + AT_MOST_EXTRA))
    if time_budget is not None:
        most = max(est, min(most, time_budget))
    return est, most


def fit_budget(exps, profile, ncpus, cores, nodes, time_budget, side, fixed,
               budget=looks.BUDGET_FACTOR, reps=None):
    """The points a time budget leaves out, in the stated priority (issue 43):
    first every exploratory point, then the figure-only blocks' points, the
    costliest block first, until the estimate fits; never a point a claim
    reads. Returns (drop {experiment: set of point ids}, [(experiment, block,
    tier, what reads it, seconds)] dropped, the estimate after).
    Raises BudgetError where the claims' points alone do not fit."""
    rows = sizing(exps, profile, ncpus, cores, nodes, budget, reps=reps)
    est = totals(rows, side, fixed)[0]
    drop, dropped = {}, []
    if est <= time_budget:
        return drop, dropped, est
    by_name = {e.name: e for e in exps}
    cand = []   # (tier rank, -seconds, experiment, block, ids, reads)
    for r in rows:
        n_reps = r["reps"]
        blocks = {}
        for p in r["pts"]:
            if p.tier == "claim":
                continue
            # a point belongs to the first of its blocks (figure-only or exploratory)
            blocks.setdefault(p.blocks[0], []).append(p)
        for b, pts in blocks.items():
            blk = next(x for x in by_name[r["name"]].blocks if x.name == b)
            cand.append((expfile.TIERS.index(min((p.tier for p in pts),
                                                 key=expfile.TIERS.index)),
                         -points_seconds(pts, n_reps), r["name"], b, {p.id for p in pts},
                         ", ".join(blk.figures) or "nothing (exploratory)"))
    # exploratory (the last tier) first, then figure-only; the costliest first
    for rank, negsecs, name, b, ids, reads in sorted(cand, key=lambda c: (-c[0], c[1], c[2], c[3])):
        if est <= time_budget:
            break
        drop.setdefault(name, set()).update(ids)
        rows = sizing(exps, profile, ncpus, cores, nodes, budget, drop, reps)
        new = totals(rows, side, fixed)[0]
        dropped.append((name, b, expfile.TIERS[rank], reads, est - new))
        est = new
    if est > time_budget:
        raise BudgetError(f"a time budget of {fmt_time(time_budget)} is below what the claims' "
                          f"points need on this host ({fmt_time(est)} with the side benchmarks "
                          "and the fixed steps): give at least that, or choose experiments "
                          "(EXPERIMENTS=...)")
    return drop, dropped, est


class BudgetError(Exception):
    """A time budget no plan fits: the message says the least it needs."""


def parse_duration(text):
    """Seconds of a time budget: 90m, 1h, 1h30m, 45s, 20:00 (m:s), 4:00:00
    (h:m:s) or a number of seconds. Raises ValueError with one message."""
    t = str(text).strip().lower()
    m = re.fullmatch(r"(?:(\d+)h)?\s*(?:(\d+)m(?:in)?)?\s*(?:(\d+)s)?", t)
    if t and m and any(m.groups()):
        h, mi, se = (int(x or 0) for x in m.groups())
        v = h * 3600 + mi * 60 + se
    elif re.fullmatch(r"\d+(:\d{1,2}){1,2}", t):
        parts = [int(x) for x in t.split(":")]
        if any(x >= 60 for x in parts[1:]):
            raise ValueError(f"{text!r}: minutes and seconds are below 60")
        v = sum(x * 60 ** i for i, x in enumerate(reversed(parts)))
    elif re.fullmatch(r"\d+(\.\d+)?", t):
        v = float(t)
    else:
        raise ValueError(f"{text!r} is not a duration (examples: 90m, 1h, 1h30m, 20:00, 4:00:00, "
                         "5400)")
    if v <= 0:
        raise ValueError(f"{text!r}: a time budget is above 0")
    return float(v)


def fmt_time(s):
    s = int(s)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"



#: the side benchmarks make experiments runs after the sweeps (their claims are
#: in the report), scripts/runner/side.py's: ((make target, seconds a round,
#: rounds), ...) in this host's default profile; side_seconds(profile, names)
#: their estimated wall time in a profile (None: this host's default profile),
#: of those an --experiments list selects (None: all)
SIDE_BENCHMARKS = side.table()


def side_seconds(profile=None, names=None):
    """The side benchmarks' estimated wall time (scripts/runner/side.py)."""
    return side.seconds(profile, names)


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


def _side(profile):
    from . import side   # side.py reads the manifest; imported where needed
    return side.seconds(profile)


def estimate_block(exps):
    """The README's lines on how long make experiments takes (sizing, the
    default profile of each host shape, with the side benchmarks and the fixed
    steps), between ESTIMATE_BEGIN and _END."""
    parts, disk = [], []
    per = runfiles.bytes_per_run(os.path.join(ROOT, "results"))
    for what, ncpus, cores, nodes in ESTIMATE_HOSTS:
        prof = "quick" if ncpus < 8 else "full"
        rows = sizing(exps, prof, ncpus, cores, nodes)
        folders = 1 + (nodes < 2 and any(needs_two_nodes(e, prof) for e in exps))
        est, most = totals(rows, _side(prof), fixed_seconds(folders))
        parts.append(f"about {fmt_time(est)} on {what} (profile {prof}, with the side "
                     f"benchmarks and the fixed steps; at most {fmt_time(most)} if the "
                     "stopping rule and the placement re-runs spend their budget)")
        if per:
            # the most: every claim's points at the stopping rule's last look,
            # a quarter of the runs re-run (the far ones are kept aside)
            runs = sum(r["runs"] for r in rows)
            top = (1 + placement.RERUN_SHARE) * sum(
                len([p for p in r["pts"] if p.claims or p.undeclared]) * (r["max_reps"] - r["reps"])
                + r["runs"] for r in rows)
            disk.append(f"{runs * per[0] / 1e6:.0f} MB of run files while it runs and "
                        f"{runs * per[1] / 1e6:.1f} MB once packed ({runs} runs; at most "
                        f"{top * per[0] / 1e6:.0f} and {top * per[1] / 1e6:.1f} MB) on {what}")
    text = ("How long `make experiments` takes (estimated by `make plan`, which "
            "`make experiments` prints before it starts): " + "; ".join(parts) + ".")
    if per:
        text += (" Its disk, at the committed sweeps' mean of %.1f KB of files a run "
                 "(%.2f KB packed, over %d runs): " % (per[0] / 1e3, per[1] / 1e3, per[2])
                 + "; ".join(disk) + ".")
    return [ESTIMATE_BEGIN, text, ESTIMATE_END]


#: docs/testing.md's generated line: the newest recorded make experiments
#: (results/<host>/make-experiments.txt: the runner's estimate, record-time's wall)
TIMING_BEGIN = ("<!-- BEGIN GENERATED: sweep time (make readme, from "
                "results/<host>/make-experiments.txt; do not edit) -->")
TIMING_END = "<!-- END GENERATED: sweep time -->"


def timing_block(_exps=None, results=None):
    """The lines between TIMING_BEGIN and _END: the newest complete record of
    make experiments under results/ (its wall time beside the estimate it
    printed), or a line saying there is none."""
    results = results or RESULTS_DIR
    recs = []
    for path in sorted(glob.glob(os.path.join(results, "*", "make-experiments.txt"))):
        rec = {}
        with open(path, encoding="utf-8") as f:
            for line in f:
                k, _, v = line.strip().partition(" ")
                if k and not k.startswith("#"):
                    rec[k] = v
        if all(k in rec for k in ("wall_s", "estimate_s", "at_most_s", "ended")):
            recs.append((rec["ended"], os.path.basename(os.path.dirname(path)), rec))
    if not recs:
        return [TIMING_BEGIN, "No complete record of `make experiments` under `results/` yet.",
                TIMING_END]
    ended, host, rec = max(recs)
    return [TIMING_BEGIN,
            f"The newest recorded `make experiments` ([results/{host}](../results/{host}/"
            f"README.md), its `make-experiments.txt`), profile "
            f"{rec.get('profile', '?')}: {fmt_time(float(rec['wall_s']))} of wall time from "
            f"{rec.get('started', '?')} to {ended}, against the "
            f"{fmt_time(float(rec['estimate_s']))} it printed before it started (at most "
            f"{fmt_time(float(rec['at_most_s']))}).", TIMING_END]


#: docs/two-socket.md's generated table: what the 4 hours buy, what 1 hour gives up
BUDGET_BEGIN = ("<!-- BEGIN GENERATED: budget table (python3 -m scripts.runner.experiments "
                "readme docs/two-socket.md; do not edit) -->")
BUDGET_END = "<!-- END GENERATED: budget table -->"
#: the host and the budget the table compares: 2 x 16 cores, TIME_BUDGET=1h
BUDGET_HOST = (32, 32, 2)
BUDGET_SHORT = 3600.0


def budget_table(exps):
    """The lines of docs/two-socket.md's table: every block of every
    experiment on a 2 x 16-core host, its tier and readers, its points and time
    in the full profile (the default there: the 4 hours), and what
    TIME_BUDGET=1h keeps of it (the quick profile, which run takes when the full
    profile's claims alone do not fit an hour, fitted by fit_budget)."""
    ncpus, cores, nodes = BUDGET_HOST
    full = {r["name"]: r for r in sizing(exps, "full", ncpus, cores, nodes)}
    short_prof = "full"
    try:
        drop, _dropped, _e = fit_budget(exps, "full", ncpus, cores, nodes, BUDGET_SHORT,
                                        _side("full"), fixed_seconds(1))
    except BudgetError:
        short_prof = "quick"
        drop, _dropped, _e = fit_budget(exps, "quick", ncpus, cores, nodes, BUDGET_SHORT,
                                        _side("quick"), fixed_seconds(1))
    short = {r["name"]: r for r in sizing(exps, short_prof, ncpus, cores, nodes, drop=drop)}
    est_f, most_f = totals(list(full.values()), _side("full"), fixed_seconds(1))
    est_s, most_s = totals(list(short.values()), _side(short_prof), fixed_seconds(1),
                           BUDGET_SHORT)
    lines = [BUDGET_BEGIN, "",
             f"On 2 x 16 cores, `make experiments` (profile full) is estimated at "
             f"{fmt_time(est_f)} (at most {fmt_time(most_f)}); `make experiments "
             f"TIME_BUDGET=1h` at {fmt_time(est_s)} (at most {fmt_time(most_s)}"
             + (": the stopping rule spends what is left of the hour" if most_s >= BUDGET_SHORT
                else "") + f") with profile {short_prof}"
             + (" (the full profile's claims alone take more than an hour: run says so and "
                "takes the quick one's shorter runs)" if short_prof != "full" else "")
             + ". Each block of each experiment file, what reads it, and what each buys:",
             "",
             "| experiment | block | tier | read by | full: points, time | "
             f"TIME_BUDGET=1h ({short_prof}): points, time |",
             "|---|---|---|---|---|---|"]

    def cell(row, b):
        if row is None:
            return "left out"
        pts = [p for p in row["pts"] if p.blocks and p.blocks[0] == b.name]
        if not pts:
            shared = [p for p in row["pts"] if b.name in p.blocks]
            return (f"{len(shared)} (shared with a block above)" if shared else "left out")
        return f"{len(pts)}, {fmt_time(points_seconds(pts, row['reps']))}"
    for e in exps:
        for b in e.blocks:
            reads = "; ".join(x for x in (", ".join(b.claims), ", ".join(b.figures)) if x)
            lines.append(f"| {e.name} | {b.name} | {b.tier} | {reads or 'nothing'} | "
                         f"{cell(full.get(e.name), b)} | {cell(short.get(e.name), b)} |")
    lines += [f"| side benchmarks | | claim | the bench claims (ring.bench-*, harness.fidelity, "
              f"ring.oversub-no-collapse) | {fmt_time(_side('full'))} | "
              f"{fmt_time(_side(short_prof))} |", "",
              "Times are the runs' alone (each point's repetitions with its capacity probes); "
              "the drift reference, the side benchmarks and the fixed steps are in the totals "
              "above. A point two blocks give is counted under the first.", "", BUDGET_END]
    return lines
