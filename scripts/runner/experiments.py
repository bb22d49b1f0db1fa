# SPDX-License-Identifier: BSD-2-Clause
"""experiments.py - run the study's experiments for this host (make experiments).

    python3 -m scripts.runner.experiments run [--experiments f2-node-cache,f4-backoff]
        [--profile quick|full|smoke] [--reps N] [--budget K] [--force] [--topology SPEC]
        [--results DIR] [--bench PATH] [--smoke] [--point-timeout SEC] [--seed N]
        [--likwid [--likwid-bench PATH]]
    python3 -m scripts.runner.experiments check [FILE...]
        check experiment files, run nothing
    python3 -m scripts.runner.experiments readme FILE [--check]
        rewrite FILE's generated estimate (README.md's first screen)
    python3 -m scripts.runner.experiments report [--results DIR]
        the reproduction report of this working tree's own results
    python3 -m scripts.runner.experiments list [--profile P] [--cpus N | --cores N] [--nodes N] [--smt K]
        every experiment's points, repetitions and estimated time, here or
        (with --cpus/--cores) on another host

(from the repository root, as the Makefile runs them)

What `run` does, in steps:
  1. Reads and checks every selected experiments/*.exp before anything runs.
  2. Names the host by what it is (scripts/runner/hostid.py): host name, CPU vendor,
     family and model numbers, node count, e.g. results/vm-intel-f6m106-1node/
     (+ "-emulated-<K>node-<spec>" when --topology/NUMARING_TOPOLOGY or the
     runner emulates nodes). A folder is this sweep's own only if it holds the
     git-ignored marker .sweep-owner.json that a sweep of this working tree
     wrote there, with this machine's fingerprint (machine identity, CPU
     signature, host name): committed, copied or another machine's results are
     never resumed, whatever /etc/machine-id says (cloud images share it), and
     never written; the sweep measures into <key>-r2/ (-r3, ...) instead, one
     suffix for the real folder and its emulated sibling.
  3. Captures the environment once per host into results/<host>/env/ (the
     machine identity, lscpu, numactl -H, hwloc XML, likwid-topology, kernel,
     compiler, git commit, numaring-bench --show-topology; scripts/runner/hostenv.py:
     versions.tsv, the version of every package scripts/deps.sh names and of
     python3, matplotlib, gnuplot, gcc, pdflatex, and cpu-state.json,
     microcode, cpufreq governors and frequencies, kernel command line,
     transparent hugepages; what cannot be read says why) and runs the host
     probe into results/<host>/probe/probe.csv.
  4. Runs every point x repetition with numaring-bench into
     results/<host>/<experiment>/<profile>/<point>/rep-<k>/, one progress
     line each (done/total, elapsed, ETA). The order is randomized and
     blocked: repetition k of every point runs in round k, the points of a
     round in an order shuffled by random.Random(seed) (so that the machine's
     drift falls on no point more than another, and rep k of two points ran
     close in time: the pairs of the paired ratios). The seed is printed and
     written, with the whole order, to <experiment>/<profile>/order.txt; a
     rerun reuses that seed (--seed N chooses one). The experiment's drift
     reference (its first point, or the point its file names with
     `reference =`) also runs at the start, after half the runs and at the
     end, as points reference-start, reference-middle and reference-end
     (rep 1; not with --smoke). A repetition whose summary.csv
     exists is skipped (resume, in this machine's folder only); the harness
     writes into rep-<k>.tmp, which is renamed when it succeeded, so an
     interrupted run leaves no half-written result. A failure is recorded in
     rep-<k>.failed.txt with the command and its stderr, and the sweep goes on.
     With --likwid, where likwid-perfctr can count an interconnect group
     (scripts/runner/nrlikwid.py says which, or why not in one line), each run goes
     under it with the marker build of the harness (make bench-likwid), and
     its rep folder keeps likwid.csv and interconnect.json (bytes over the
     interconnect per item of the measured window).
     Points with a load (open loop at a fraction of the capacity) that
     differ only in gate and load form a group (capacity_groups, listed in
     <experiment>/<profile>/capacity/groups.txt): before the first run of a
     group, one capacity probe per planned round (numaring-bench --load 1,
     its capacity_ops_per_s) runs into capacity/<group>/rep-<k>/, and every
     run of the group in every round gets --capacity-ops with their median
     (capacity.txt: the probes, the median, the spread), so that every gate
     is offered the same absolute rate and no one round's probe sets its
     load. A resumed sweep reuses recorded probes; a group none of whose
     probes gave a capacity fails its runs. The drift reference's runs
     measure their own capacity.
  5. Collects each experiment into results/<host>/<experiment>.csv (tidy:
     experiment, point, rep, profile, role (point or reference),
     oversubscribed (1 where the run's threads outnumbered the CPUs they ran
     on, or two of them shared a core's hyperthreads, from its meta.json;
     empty if unknown), steal_pct and stolen (the share of the CPUs' time the
     hypervisor took over the run, from /proc/stat's steal before and after
     it, which the runner adds to meta.json as host_load with the load
     average; stolen 1 above hostenv.STEAL_FLAG_PCT, empty if unknown),
     interconnect_bytes_per_item and interconnect_source
     (--likwid; empty where not counted), capacity_probe (the probe whose
     capacity the run was offered a fraction of, <group>-median; empty without
     a load, and for the drift reference), then the harness's summary columns),
     writes results/<host>/README.md, and exits 1 with the list of failures
     if any point failed (2 for bad input, 130 when interrupted).
  6. The stopping rule (add_rounds; scripts/common/looks.py, docs/measurement.md):
     while a paired claim of the host's report is inconclusive, the
     experiment it reads gets rounds up to the next look (6, 10, 15, 20, ...),
     at most --budget x its planned repetitions (default 4), each added round
     shuffled as the others and recorded in order.txt after the drift
     reference's end; then one line per experiment says the rounds it used
     and which claims stayed undecided. Not with --reps (exactly N) or --smoke.

The runner's modules, one job each: this one is the run loop (what runs,
in which order, the progress) and the command line; scripts/runner/runorder.py
plans an experiment's runs (the order, the capacity groups);
scripts/runner/benchrun.py runs the harness (a repetition, a capacity probe, the
host probe, bench-ring); scripts/runner/collect.py writes the tidy CSV;
scripts/runner/sizing.py says what this machine can run and how long a sweep
takes; scripts/runner/hostid.py names the host and its folder; scripts/runner/hostenv.py
captures env/ and the load around each run; scripts/runner/runio.py writes whole
files and says when the results folder cannot take more.
"""

import argparse
import contextlib
import fnmatch
import glob
import json
import os
import random
import signal
import subprocess
import sys
import time

from ..common import expfile, looks, placement, runfiles
from . import hostid
from . import nrlikwid
from .benchrun import group_capacity, rerun_far, run_bench_ring, run_probe, run_rep
from .collect import collect, read_summary
from .hostenv import capture_env
from .runio import WRITE_ERRNOS, CannotWrite, die, write_whole
from .runorder import (CAPACITY_DIR, ORDER_TXT, REFERENCE_POINTS, capacity_groups, groups_text,
                       claims_cut, order_text, saved_seed, schedule)
from . import side
from .sizing import (CALIBRATE_WARMUP_S, LOAD_PROBE_WARMUP_S, RUN_OVERHEAD_S, AT_MOST_EXTRA,
                     BudgetError, allowed_cpus, emulated_halves, fit_budget, fixed_seconds, host_folders,
                     host_shape, list_host, needs_two_nodes, parse_duration, points_seconds,
                     sizing, topo_cores, totals, ESTIMATE_BEGIN, ESTIMATE_END,
                     BUDGET_BEGIN, BUDGET_END, budget_table, estimate_block, fmt_time,
                     TIMING_BEGIN, TIMING_END, timing_block)
# names the tests read as experiments.<name>, kept since they moved (issue 23)
from .collect import oversubscribed  # noqa: F401
from .runorder import PROBE_TAIL_S, probe_opts  # noqa: F401
from .sizing import BENCH_DEFAULTS, core_groups, points_seconds, run_seconds  # noqa: F401

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Interrupted(BaseException):
    """SIGINT or SIGTERM: a BaseException, like KeyboardInterrupt, so that no
    handler of errors (except Exception) in the sweep swallows it."""


# ---- the machine -----------------------------------------------------------

def show_topology(bench, topology, source="--topology"):
    """The harness's view of the nodes (JSON text, parsed). A bad topology
    string is reported as coming from `source` (the option or the variable)."""
    cmd = [bench, "--show-topology"]
    if topology:
        cmd += ["--topology", topology]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        msg = r.stderr.strip()
        if topology:
            msg = f"{source}={topology!r}: {msg.removeprefix('numaring-bench: ')}"
        else:
            msg = f"numaring-bench --show-topology failed: {msg}"
        die(msg, 2 if r.returncode == 2 else 1)
    try:
        return r.stdout, json.loads(r.stdout)
    except json.JSONDecodeError as e:
        die(f"numaring-bench --show-topology printed invalid JSON: {e}", 1)


# ---- whose results a folder holds (scripts/runner/hostid.py) --------------------------

def claim_folders(results, keys, fp):
    """{key: folder} this sweep writes into (hostid.claim, nothing written yet),
    saying in one line which folders it leaves alone."""
    try:
        dirs, skipped = hostid.claim(results, keys, fp, write=False)
    except hostid.NoFolder as e:
        die(str(e))
    if skipped:
        print(f"experiments: {', '.join(os.path.relpath(d) for d in sorted(set(skipped)))}: "
              "results this working tree did not start (committed, copied, or another "
              "machine's; no marker of this sweep), left untouched; this sweep measures into "
              f"{os.path.relpath(dirs[keys[0]])}", flush=True)
    return dirs


# ---- the run loop ---------------------------------------------------------------

EXP_DIR = os.path.join(ROOT, "experiments")


def load_experiments(names):
    """The sweeps ``names`` asks for (None: all), read and checked; the side
    benchmarks' names (scripts/runner/side.py) are known and left to make
    experiments, which runs them after the sweeps."""
    files = sorted(glob.glob(os.path.join(EXP_DIR, "*.exp")))
    if not files:
        die(f"no {os.path.relpath(EXP_DIR)}/*.exp found")
    known = {os.path.basename(f)[:-4]: f for f in files}
    if names:
        for n in names:
            if n not in known and n not in side.NAMES:
                die(f"unknown experiment {n!r} (known: {', '.join(sorted(known))}; the side "
                    f"benchmarks: {', '.join(side.NAMES)})")
        files = [known[n] for n in names if n in known]
    exps = []
    for f in files:
        try:
            exps.append(expfile.parse(os.path.relpath(f)))
        except expfile.ExpError as e:
            die(str(e))
    return exps


def cmd_run(a):
    def on_term(signum, frame):
        raise Interrupted()
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    try:
        run_all(a)
    except Interrupted:
        print("\nexperiments: interrupted; finished runs are kept and nothing is "
              "half-written. Run the same command again to continue.", file=sys.stderr)
        sys.exit(130)
    except (OSError, CannotWrite) as e:
        if isinstance(e, OSError):
            if e.errno not in WRITE_ERRNOS:
                die(f"{e.filename or ''}{': ' if e.filename else ''}{e.strerror or e}", 1)
            e = f"{e.filename or 'results'}: {e.strerror or e}"
        print(f"\nexperiments: cannot write the results: {e}\nexperiments: finished runs "
              "are kept and nothing is half-written; make room (or choose another --results) "
              "and run the same command again to continue.", file=sys.stderr)
        sys.exit(1)


def plan_time(a, exps, profile, nodes, names, cores):
    """Print the estimate of this make experiments (the sweeps, the side
    benchmarks it asks for, the fixed steps), fit --time-budget by leaving
    points out (sizing.fit_budget: exploratory, then figure-only blocks, never
    a claim's) and say what it left out. Returns ({experiment: point ids left
    out}, the seconds the sweeps may take in all, the stopping rule's rounds
    included: the runner adds no look past them)."""
    ncpus = allowed_cpus()
    try:
        side_s = side.seconds(profile, names) if profile != "smoke" else 0.0
        folders = 1 + (nodes < 2 and any(needs_two_nodes(e, profile) for e in exps))
        fixed = fixed_seconds(folders, a.results, getattr(a, "written", 0))
        drop, dropped = {}, []
        if a.time_budget is not None:
            drop, dropped, _ = fit_budget(exps, profile, ncpus, cores, nodes, a.time_budget,
                                          side_s, fixed, a.budget, a.reps)
        rows = sizing(exps, profile, ncpus, cores, nodes, a.budget, drop, a.reps)
    except expfile.ExpError as err:
        die(str(err))
    except BudgetError as err:
        die(f"--time-budget: {err}")
    est, most = totals(rows, side_s, fixed, a.time_budget)
    print(f"experiments: estimated {fmt_time(est)} for profile {profile}: the sweeps "
          f"{fmt_time(sum(r['seconds'] for r in rows))}, the side benchmarks asked for "
          f"{fmt_time(side_s)} (make experiments runs them after the sweeps), the fixed steps "
          f"{fmt_time(fixed)}; at most {fmt_time(most)} if the stopping rule and the placement "
          "re-runs spend their budget (make plan)", flush=True)
    for name, block, tier, reads, secs in dropped:
        print(f"experiments: --time-budget {fmt_time(a.time_budget)} leaves out {name} "
              f"[block {block}] ({tier}; {fmt_time(secs)}): {reads} lose"
              + ("s" if ", " not in reads else "") + " its points", flush=True)
    # what the stopping rule and the re-runs may spend: the estimate's cap
    # (AT_MOST_EXTRA, within --time-budget), not "at most"'s count of the
    # rounds they could add in estimated run time, which the runs the host
    # really takes may pass while no time cap is near
    cap = est * (1 + AT_MOST_EXTRA)
    if a.time_budget is not None:
        cap = max(est, min(cap, a.time_budget))
    a.estimate = (profile, est, most)
    return drop, cap - side_s - fixed


# ---- make experiments' time beside its estimate ---------------------------------

#: results/<host>/TIME_TXT: the estimate make experiments printed and the wall
#: time it took (written by run, completed by record-time, make's last step)
TIME_TXT = "make-experiments.txt"


def read_time_record(path):
    """{key: value} of a TIME_TXT ({} where there is none)."""
    rec = {}
    with contextlib.suppress(OSError), open(path, encoding="utf-8") as f:
        for line in f:
            k, _, v = line.strip().partition(" ")
            if k and not k.startswith("#"):
                rec[k] = v
    return rec


def write_time_record(path, rec):
    order = ("profile", "estimate_s", "at_most_s", "started", "ended", "wall_s")
    write_whole(path, "# make experiments on this host: the estimate it printed before it "
                "started (scripts/runner/sizing.py) and\n# the wall time from its start to "
                "its last step (scripts/experiments.mk: record-time)\n"
                + "".join(f"{k} {rec[k]}\n" for k in order if k in rec))


def utc(epoch):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


def started_epoch():
    """When make experiments started (NUMARING_MAKE_STARTED, set by
    scripts/experiments.mk), else now."""
    with contextlib.suppress(KeyError, ValueError):
        return int(os.environ["NUMARING_MAKE_STARTED"])
    return int(time.time())


def run_all(a):
    try:
        ident = hostid.machine_identity()
    except hostid.IdentityError as e:  # a bad NUMARING_MACHINE_ID
        die(str(e))
    bench = os.path.abspath(a.bench)
    if not os.access(bench, os.X_OK):
        die(f"{a.bench} is not built (run make bench)")
    topology = a.topology if a.topology is not None else os.environ.get("NUMARING_TOPOLOGY") or None
    names = [n.strip() for n in a.experiments.split(",") if n.strip()] if a.experiments else None
    exps = load_experiments(names)
    profile = a.profile or ("quick" if allowed_cpus() < 8 else "full")
    if names and not exps:
        print(f"experiments: no sweep asked ({', '.join(names)}: side benchmarks, which make "
              "experiments runs after the sweeps)", flush=True)
        return
    _, topo = show_topology(bench, topology,
                            "--topology" if a.topology is not None else "NUMARING_TOPOLOGY")
    nodes = len([n for n in topo["nodes"] if n["ncpus"] > 0])
    a.drop, a.allowance = {}, None
    if not a.smoke:
        if a.time_budget is not None and not a.profile and profile == "full":
            # the default profile's claims alone past the budget: the quick
            # profile's shorter runs, said so (an explicit --profile is kept)
            try:
                fit_budget(exps, profile, allowed_cpus(), topo_cores(topo, allowed_cpus()),
                           nodes, a.time_budget, side.seconds(profile, names),
                           fixed_seconds(2 if nodes < 2 else 1, a.results), a.budget, a.reps)
            except BudgetError as err:
                print(f"experiments: --time-budget: profile full: {err}; profile quick "
                      "instead", flush=True)
                profile = "quick"
        a.drop, a.allowance = plan_time(a, exps, profile, nodes, names,
                                        topo_cores(topo, allowed_cpus()))
    a.started = time.monotonic()
    passes = [(topology, exps)]
    if nodes < 2:
        # Experiments that place producers and consumers on different nodes
        # cannot run on one node: run them on two emulated nodes instead (a
        # separate, labelled results folder), or say why they are left out.
        split = [e for e in exps if needs_two_nodes(e, profile)]
        passes = [(topology, [e for e in exps if e not in split])]
        if split and allowed_cpus() >= 2 and not topology:
            passes.append((emulated_halves(), split))
            print(f"experiments: one node here: {', '.join(e.name for e in split)} need two; "
                  f"they run on emulated nodes {emulated_halves()!r} (labelled emulated)")
        elif split:
            print(f"experiments: {', '.join(e.name for e in split)} need two nodes with CPUs "
                  "and are left out here", file=sys.stderr)
    # this sweep's folders, chosen once for every pass before anything is
    # written (scripts/runner/hostid.py): the machine's own key first, so that an
    # emulated sibling always carries the real folder's name ('-emulated-<K>node-<spec>')
    keys = [hostid.host_key()]
    for topo_spec, pass_exps in passes:
        if pass_exps and topo_spec:
            _, t = show_topology(bench, topo_spec)
            keys.append(hostid.host_key(emulated=(len(t["nodes"]), topo_spec)))
    fp = hostid.fingerprint(ident[0])
    dirs = claim_folders(os.path.abspath(a.results), keys, fp)
    started = started_epoch()
    failures = []
    planned = []   # (topology, experiments, folder) of each pass that runs
    for topo_spec, pass_exps in passes:
        if pass_exps:
            key = keys[0] if not topo_spec else keys[1 + [t for t, e in passes if e and t]
                                                       .index(topo_spec)]
            planned.append((topo_spec, pass_exps, dirs[key]))
            failures += run_pass(a, bench, topo_spec, pass_exps, profile, ident,
                                 dirs[key], fp)
            if len(planned) == 1 and getattr(a, "estimate", None) and not a.smoke:
                # the estimate it printed, in the first folder it wrote (its marker
                # there: a folder with files and no marker is not this sweep's)
                prof, est, most = a.estimate
                write_time_record(os.path.join(dirs[key], TIME_TXT),
                                  {"profile": prof, "estimate_s": f"{est:.1f}",
                                   "at_most_s": f"{most:.1f}", "started": utc(started)})
    if not (a.reps or a.smoke or profile == "smoke") and a.budget > 1:
        failures += add_rounds(a, bench, planned, profile, ident, fp, dirs[keys[0]])
    # the reproduction report of this machine's folder, which covers its
    # emulated sibling (F3, F5): claims.csv and the README's section; a claim
    # that does not hold (a point above the ceiling model, say) is a finding,
    # never a failure of the run
    write_report(dirs[keys[0]])
    if failures:
        print(f"experiments: {len(failures)} run(s) failed (details in their rep-*.failed.txt):",
              file=sys.stderr)
        for f in failures:
            print(f"  {f}", file=sys.stderr)
        sys.exit(1)


def planned_points(a, e, profile, topology=None):
    """(points, planned repetitions, drift reference) of experiment e on this
    host (--reps, else its file's for the profile), before the stopping rule
    adds any."""
    topo = show_topology(os.path.abspath(a.bench), topology)[1]
    ncpus = allowed_cpus()
    nodes = len([n for n in topo["nodes"] if n["ncpus"] > 0])
    pts, reps = expfile.points(e, profile, ncpus, nodes, topo_cores(topo, ncpus))
    ref = expfile.reference_point(e, pts, ncpus, nodes, topo_cores(topo, ncpus))
    left = getattr(a, "drop", {}).get(e.name) or set()
    return [p for p in pts if p.id not in left], a.reps or reps, ref


def claim_points(pts, claim):
    """The points that read a claim: those of the blocks that name it (its id,
    or a pattern that matches it, F4.*); in a file that names no claim, every
    point (the report says the claim reads the experiment, not which points)."""
    return [p for p in pts if p.undeclared or any(fnmatch.fnmatchcase(claim, c) for c in p.claims)]


def add_rounds(a, bench, planned, profile, ident, fp, hostdir):
    """The stopping rule (scripts/common/looks.py, docs/measurement.md): while
    a paired claim of this host's report is inconclusive, add rounds to the
    points it reads (the blocks that name it; claim_points) up to the next
    look, within the budget (--budget x their planned repetitions) and within
    the time the estimate's "at most" allows (plan_time: no look whose runs
    would take the sweeps past it); then say per claim how many rounds it
    used. Returns the failures of the added runs."""
    pts_of, refs, rounds, budget, planned_n, failures = {}, {}, {}, {}, {}, []
    for topo_spec, exps, folder in planned:
        for e in exps:
            pts, base, ref = planned_points(a, e, profile, topo_spec)
            pts_of[(folder, e.name)] = pts
            refs[(folder, e.name)] = ref
            planned_n[(folder, e.name)] = base
            budget[(folder, e.name)] = looks.budget_rounds(base, a.budget)
            rounds[(folder, e.name)] = {p.id: base for p in pts}
    last, capped = [], []
    while True:
        ok, out, why = analysis("undecided", hostdir)
        if not ok:
            print(f"experiments: the stopping rule cannot read the claims ({why}): "
                  "no rounds added", file=sys.stderr)
            return failures
        last = [ln.split("\t") for ln in out.splitlines() if ln.count("\t") == 3]
        grow, who = {}, {}
        for exp, folder, claim, _n in last:
            key = next((k for k in rounds if os.path.abspath(k[0]) == os.path.abspath(folder)
                        and k[1] == exp), None)
            if key is None:
                continue
            ref = refs[key]
            # the claim's pairs, and the experiment's drift reference beside them
            for p in claim_points(pts_of[key], claim) + ([ref] if ref is not None and
                                                         ref.id in rounds[key] else []):
                nxt = looks.next_look(rounds[key][p.id], budget[key])
                if nxt:
                    grow.setdefault(key, {})[p.id] = max(nxt, grow.get(key, {}).get(p.id, 0))
                    who.setdefault(key, set()).add(claim)
        if not grow:
            break
        cost = sum(points_seconds([p], n - rounds[k][p.id])
                   for k, more in grow.items() for p in pts_of[k] if p.id in more for n in
                   [more[p.id]])
        spent = time.monotonic() - a.started
        if a.allowance is not None and spent + cost > a.allowance:
            capped = sorted({c for k in who for c in who[k]})
            print(f"experiments: stopping rule: the next look's runs ({fmt_time(cost)}) would "
                  f"take the sweeps past the estimate's at most ({fmt_time(spent)} spent of "
                  f"{fmt_time(a.allowance)}): no more rounds", flush=True)
            break
        print("experiments: stopping rule: undecided "
              + "; ".join(f"{', '.join(sorted(who[k]))} read {len(more)} point(s) of "
                          f"{os.path.basename(k[0])}/{k[1]} (-> {max(more.values())} rounds)"
                          for k, more in grow.items()), flush=True)
        for topo_spec, exps, folder in planned:
            more = {x: {**rounds[(f, x)], **m} for (f, x), m in grow.items() if f == folder}
            sub = [e for e in exps if e.name in more]
            if sub:
                failures += run_pass(a, bench, topo_spec, sub, profile, ident, folder, fp,
                                     rounds=more)
        for k, m in grow.items():
            rounds[k].update(m)
    undecided = [(os.path.abspath(f), x, c) for x, f, c, _n in last]
    for (f, x), per in rounds.items():
        left = [c for g, y, c in undecided if g == os.path.abspath(f) and y == x]
        n = max(per.values(), default=planned_n[(f, x)])
        if n == planned_n[(f, x)] and not left:
            continue   # no claim of it was undecided: nothing to say
        grown = sum(1 for v in per.values() if v > planned_n[(f, x)])
        print(f"experiments: stopping rule: {os.path.basename(f)}/{x}: {grown} of {len(per)} "
              f"points to {n} rounds"
              + (f" (budget {budget[(f, x)]})" if n == budget[(f, x)] and n > 0 else "")
              + (f"; still undecided: {', '.join(sorted(left))}" if left else "")
              + (" (the time allowed ran out)" if left and set(left) & set(capped) else ""),
              flush=True)
    return failures


def run_pass(a, bench, topology, exps, profile, ident, hostdir, fp, rounds=None):
    """Run exps into hostdir. ``rounds`` ({experiment: {point id: rounds}}):
    the stopping rule's added rounds, to the points an undecided claim reads
    (and the drift reference), after the planned ones (kept as they are).

    The points a claim reads run first, every experiment's, then the others
    (figure-only, then exploratory), each phase in its randomized rounds: an
    interrupted sweep has what its report needs to decide its claims."""
    show_json, topo = show_topology(bench, topology)
    ncpus = allowed_cpus()
    cores = topo_cores(topo, ncpus)
    nodes = len([n for n in topo["nodes"] if n["ncpus"] > 0])
    force = a.force and not rounds   # added rounds never redo what ran

    # every point of every experiment, checked before anything runs
    plan = []
    for e in exps:
        try:
            pts, reps = expfile.points(e, profile, ncpus, nodes, cores)
            ref = expfile.reference_point(e, pts, ncpus, nodes, cores)
        except expfile.ExpError as err:
            die(str(err))
        if a.reps:
            reps = a.reps
        left = getattr(a, "drop", {}).get(e.name)
        if left:   # --time-budget's (plan_time)
            pts = [p for p in pts if p.id not in left]
            if ref is not None and ref.id in left:
                ref = pts[0] if pts else None
        if a.smoke:
            pts, reps, ref = pts[:1], 1, None
            for p in pts:
                p.opts.pop("ops", None)
                p.opts.update(duration="0.05", warmup="0")
        base = reps
        if rounds and e.name in rounds:
            # the added rounds go to the points the undecided claims read
            reps = {p.id: max(reps, rounds[e.name].get(p.id, reps)) for p in pts}
        plan.append((e, pts, reps, ref, base))
    total = sum(sum(r.values()) if isinstance(r, dict) else len(p) * r
                for _, p, r, _ref, _b in plan) \
        + sum(len(REFERENCE_POINTS) for _, _p, _r, ref, _b in plan if ref is not None)
    host = os.path.basename(hostdir)
    print(f"experiments: host {host} ({ncpus} CPUs"
          + (f" on {cores} core{'s' if cores != 1 else ''}" if cores != ncpus else "")
          + f", {nodes} node{'s' if nodes != 1 else ''}, "
          f"{'EMULATED nodes ' + topology if topology else 'real nodes'}), profile {profile}, "
          f"{total} runs into {os.path.relpath(hostdir)}", flush=True)
    os.makedirs(hostdir, exist_ok=True)
    if hostid.owner(hostdir, fp) != "ours":
        hostid.write_marker(hostdir, fp)  # claims it: this tree's sweep, this machine
    capture_env(os.path.join(hostdir, "env"), bench, topology, show_json, force, ident)
    quick = profile in ("quick", "smoke") or a.smoke
    run_probe(hostdir, bench, topology, quick, force)
    if not topology:
        run_bench_ring(hostdir, bench, quick, force)
    lk = None
    if a.likwid:
        lk, why = nrlikwid.probe(os.path.abspath(a.likwid_bench), sorted(os.sched_getaffinity(0)),
                                 topology)
        print(f"experiments: likwid: {lk.describe() if lk else 'not used: ' + why}", flush=True)

    # the run's CPUs further apart than the probe found them: re-run it
    # (common/placement.py), at most cap times, within a share of the runs;
    # not in the smoke path, whose few tiny runs (and guest's timings) decide nothing
    rerun_cap = 0 if a.smoke or profile == "smoke" else a.placement_reruns
    trip = a.placement_trip_ns or placement.probe_trip(os.path.join(hostdir, "probe",
                                                                    "probe.csv"))
    rerun_left, reruns = {}, 0
    done = executed = 0
    failures = []
    t0 = time.monotonic()
    spent = 0.0
    ctx, phases = {}, ([], [])
    for e, pts, reps, ref, base in plan:
        edir = os.path.join(hostdir, e.name, profile)
        # a packed experiment goes on loose: resume looks for each run's files
        runfiles.unpack(edir)
        os.makedirs(edir, exist_ok=True)
        seed = a.seed
        if seed is None:
            seed = saved_seed(os.path.join(edir, ORDER_TXT))
        if seed is None:
            seed = random.SystemRandom().randrange(1 << 32)
        runs = schedule(pts, reps, seed, ref, base)
        write_whole(os.path.join(edir, ORDER_TXT), order_text(e, profile, host, seed, ref,
                                                               runs, base))
        print(f"experiments: {e.name}: {len(runs)} runs in randomized order, seed {seed}"
              + (f"; drift reference {ref.label}" if ref is not None else "")
              + f" ({os.path.relpath(os.path.join(edir, ORDER_TXT))})", flush=True)
        groups = capacity_groups(pts)
        ctx[e.name] = {"edir": edir, "groups": groups, "probes": {}, "reps": reps,
                       "base": base}
        rerun_left[e.name] = int(placement.RERUN_SHARE * len(runs))
        if groups:
            os.makedirs(os.path.join(edir, CAPACITY_DIR), exist_ok=True)
            write_whole(os.path.join(edir, CAPACITY_DIR, "groups.txt"),
                        groups_text(e, profile, pts, groups))
        # the claims' points (and the drift reference's start and middle) of
        # every experiment first, then the rest (schedule puts them in that order)
        cut = claims_cut(runs)
        phases[0].extend((e, r) for r in runs[:cut])
        phases[1].extend((e, r) for r in runs[cut:])
    try:
        for e, (p, k, rid) in phases[0] + phases[1]:
            c = ctx[e.name]
            edir, groups, probes, base = c["edir"], c["groups"], c["probes"], c["base"]
            reps = c["reps"].get(p.id, base) if isinstance(c["reps"], dict) else c["reps"]
            pdir = os.path.join(edir, rid)
            os.makedirs(pdir, exist_ok=True)
            done += 1
            out = os.path.join(pdir, f"rep-{k}")
            what = (f"{rid} ({p.label})" if rid in REFERENCE_POINTS
                    else f"{p.label} rep {k}/{reps}")
            tag = f"[{done:>{len(str(total))}}/{total}] {e.name} {what}"
            if os.path.exists(os.path.join(out, "summary.csv")) and not force:
                print(f"{tag}: done before, kept", flush=True)
                continue
            args = p.args()
            if topology:
                args += ["--topology", topology]
            dur = float(p.opts.get("duration", 2)) + float(p.opts.get("warmup", 0.5))
            timeout = a.point_timeout or (dur + float(p.opts.get("drain-timeout", 10)) + 60
                                          + (60 if lk else 0))  # likwid's own start
            t1 = time.monotonic()
            ok, msg, extra = True, "", None
            if rid not in REFERENCE_POINTS and p.id in groups:  # the drift reference: its own
                gid, gopts = groups[p.id]
                cap, prid, why = group_capacity(a, bench, edir, gid, gopts, base, topology,
                                                probes)
                if cap is None:
                    ok, msg = False, f"not run: no capacity probe of its group {gid} gave a " \
                        f"capacity ({why})"
                    write_whole(out + ".failed.txt", f"{msg}\nthe probes' records: "
                                + ", ".join(f"../{CAPACITY_DIR}/{gid}/rep-{j}.failed.txt"
                                            for j in range(1, base + 1)) + "\n")
                else:
                    args += ["--capacity-ops", cap]
                    extra = {"capacity_probe": {"id": prid, "capacity_ops_per_s": float(cap),
                                                "folder": f"{CAPACITY_DIR}/{gid}",
                                                **probes[("detail", gid)]}}
            if ok:
                ok, msg = run_rep(bench, args, out, timeout, lk, extra)
            if ok and rid not in REFERENCE_POINTS and trip:
                # the re-runs, like the stopping rule's rounds, keep within the
                # estimate's "at most" (plan_time): none that would pass it
                allowed = min(rerun_cap, rerun_left[e.name])
                if getattr(a, "allowance", None) is not None and \
                        time.monotonic() - a.started + run_seconds(p.opts) > a.allowance:
                    allowed = 0
                ok, msg, n = rerun_far(bench, args, out, timeout, lk, extra, trip, allowed, tag)
                rerun_left[e.name] -= n
                reruns += n
            spent += time.monotonic() - t1
            executed += 1
            eta = spent / executed * (total - done)
            if ok:
                s = read_summary(os.path.join(out, "summary.csv"))
                thr = float(s["throughput_ops_per_s"] or 0) / 1e6
                res = f"{thr:.2f} Mops/s" + (f", p50 {s['p50_ns']} ns" if s["p50_ns"] else "")
                asked, used = s.get("lookup", ""), s.get("lookup_in_force", "")
                if asked and used and asked != used:
                    res += (f"  [lookup {asked} is not available on this machine: "
                            f"{used} ran instead, and the row says so]")
            else:
                failures.append(f"{host} {e.name} "
                                f"{what if rid in REFERENCE_POINTS else f'{p.label} rep {k}'}: {msg}")
                res = f"FAILED ({msg})"
            print(f"{tag}: {res}  [elapsed {fmt_time(time.monotonic() - t0)}, "
                  f"ETA {fmt_time(eta)}]", flush=True)
    except Interrupted:
        print(f"\nexperiments: interrupted after {done - 1} of {total} runs of {host}.",
              file=sys.stderr)
        raise

    for e, pts, reps, ref, _base in plan:
        n = collect(hostdir, e, profile, pts, reps, ref)
        print(f"experiments: {os.path.relpath(os.path.join(hostdir, e.name + '.csv'))}: {n} rows"
              + drift_note(hostdir, e.name))
        if not getattr(a, "loose", False):
            pack_runs(os.path.join(hostdir, e.name, profile))
    write_host_readme(hostdir, host, topo, topology, profile, ncpus)
    print(f"experiments: {host}: {total} runs ({executed} run now, {total - executed} kept, "
          f"{len(failures)} failed)"
          + (f"; {reruns} re-run because their CPUs ended more than {placement.FAR:g}x the "
             f"probe's trip apart ({trip:g} ns)" if reruns else ""))
    return failures


def pack_runs(edir):
    """Pack an experiment's finished runs into one archive beside their folder
    (scripts/common/runfiles.py); where that fails, the runs stay loose, every
    one kept, and the sweep says so."""
    try:
        n = runfiles.pack(edir)
    except (OSError, runfiles.ArchiveError, ImportError) as e:
        print(f"experiments: {os.path.relpath(edir)}: left loose, not packed ({e})",
              file=sys.stderr)
        return
    if n:
        print(f"experiments: {os.path.relpath(edir + runfiles.ARCHIVE)}: {n} files packed",
              flush=True)


def analysis(*args):
    """Run the analysis as a command (scripts/analysis/jobs.py): the runner
    imports nothing of it, so that it stays standard library only (the QEMU
    guest carries the runner's modules, not pandas). Returns (ok, stdout, why)."""
    if not os.path.isfile(os.path.join(ROOT, "scripts", "analysis", "jobs.py")):
        return False, "", ("the analysis (scripts/analysis/: pandas, SciPy) is not on this "
                           "machine; every result is kept: run python3 -m "
                           "scripts.analysis.jobs write HOSTDIR where it is")
    try:
        p = subprocess.run([sys.executable, "-m", "scripts.analysis.jobs", *args],
                           cwd=ROOT, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, "", str(e)
    why = (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
    return p.returncode == 0, p.stdout, why


def drift_note(hostdir, name):
    """'; drift of the reference X% ...' for the progress output; a convenience:
    never lose a run for it."""
    ok, out, _ = analysis("drift", hostdir, name)
    return out.strip() if ok else ""


def write_report(hostdir, show=True):
    """results/<host>/claims.csv and the README's report for this sweep's real
    folder (scripts/analysis/jobs.py), with (``show``) one line of counts and
    each claim that does not hold (points above the ceiling model among them).
    The report is a convenience of the run: it never loses a run nor fails one."""
    if not os.path.isdir(hostdir):
        return
    ok, out, why = analysis("write", hostdir)
    if not ok:
        print(f"experiments: the reproduction report could not be written: {why}",
              file=sys.stderr)
    elif show:
        print(out, end="", flush=True)


def write_host_readme(hostdir, host, topo, topology, profile, ncpus):
    """results/<host>/README.md: what the machine is, real or emulated, and
    the measured ratios next to the study's (scripts/analysis/jobs.py)."""
    ok, _, why = analysis("readme", hostdir)
    if ok:
        return
    nodes = len(topo["nodes"])
    kind = (f"EMULATED nodes ({topology}): memory placement is not real, and nothing here "
            "is a two-socket result" if topology else f"{nodes} real NUMA node(s)")
    model = hostid.cpu_signature()["model_name"] or "unknown-cpu"
    text = (f"# Results of {host}\n\n{model}, {ncpus} CPUs usable, {kind}; "
            f"profile {profile}.\n\n(summary not generated: {why})\n")
    write_whole(os.path.join(hostdir, "README.md"), text)


# ---- check, list and the command line --------------------------------------------

def cmd_check(a):
    files = a.files or sorted(glob.glob(os.path.join(ROOT, "experiments", "*.exp")))
    ncpus, cores, _ = host_shape()
    for f in files:
        try:
            e = expfile.parse(f)
            for prof in expfile.PROFILES:
                pts, _ = expfile.points(e, prof, ncpus, 1, cores)
                expfile.reference_point(e, pts, ncpus, 1, cores)
        except expfile.ExpError as err:
            die(str(err))
        print(f"{f}: ok")


def cmd_list(a):
    ncpus, cores, nodes, what = list_host(a)
    exps = load_experiments(None)
    profiles = [a.profile] if a.profile else list(expfile.PROFILES)
    default = "quick" if ncpus < 8 else "full"
    print(f"{what}; thread counts count cores (one thread per core) unless a file says "
          f"smt = siblings; default profile {default}")
    unfit = []
    for prof in profiles:
        side_s = side.seconds(prof) if prof != "smoke" else 0.0
        folders = 1 + (nodes < 2 and any(needs_two_nodes(e, prof) for e in exps))
        fixed = fixed_seconds(folders)
        drop, dropped = {}, []
        try:
            if a.time_budget is not None:
                drop, dropped, _ = fit_budget(exps, prof, ncpus, cores, nodes, a.time_budget,
                                              side_s, fixed)
            rows = sizing(exps, prof, ncpus, cores, nodes, drop=drop)
        except expfile.ExpError as err:
            die(str(err))
        except BudgetError as err:
            print(f"\nprofile {prof}: --time-budget: {err}")
            unfit.append(prof)
            continue
        print(f"\n{'experiment':16} {'profile':7} {'points':>6} {'reps':>4} {'ref':>3} "
              f"{'runs':>5} {'estimate':>9} {'at most':>9}  threads")
        for r in rows:
            print(f"{r['name']:16} {prof:7} {r['points']:6} {r['reps']:4} {r['references']:3} "
                  f"{r['runs']:5} {fmt_time(r['seconds']):>9} {fmt_time(r['max_seconds']):>9}  "
                  + ",".join(map(str, r["threads"]))
                  + (" (2 emulated nodes)" if r["emulated"] else "")
                  + (" (+ the --ops points' run time)" if r["ops"] else ""))
            if a.why:
                for line in why_lines(r, exps):
                    print(f"    {line}")
        # queues a profile leaves out for their item kinds, with the reason,
        # so that a short list is not read as the whole field (issue 32), and
        # the cells that would mean nothing (issue 43 item 4)
        for e in exps:
            for qname, why in expfile.item_left_out(e, prof).items():
                print(f"  left out of {e.name} {prof}: {qname}: {why}")
            n = nodes if nodes >= 2 or not needs_two_nodes(e, prof) else 2
            by_reason = {}
            for (qname, cell), why in expfile.left_out(e, prof, ncpus, n, cores).items():
                by_reason.setdefault((cell, why), []).append(qname)
            for (cell, why), qs in by_reason.items():
                print(f"  left out of {e.name} {prof}: {cell} of {', '.join(qs)}: {why}")
        if side_s:
            print(f"{'side benchmarks':16} {prof:7} {'':6} {'':4} {'':3} {'':5} "
                  f"{fmt_time(side_s):>9} {fmt_time(side_s):>9}  "
                  + ", ".join(f"{n} ({k} round{'s' if k > 1 else ''})"
                              for n, _s, k in side.table(prof)))
        print(f"{'fixed steps':16} {prof:7} {'':6} {'':4} {'':3} {'':5} "
              f"{fmt_time(fixed):>9} {fmt_time(fixed):>9}  the environment, host probe and "
              f"bench-ring ({folders} folder{'s' if folders > 1 else ''}), the plots "
              f"({host_folders() + folders} host folders) and the report")
        est, most = totals(rows, side_s, fixed, a.time_budget)
        print(f"{'total':16} {prof:7} {'':6} {'':4} {'':3} {sum(r['runs'] for r in rows):5} "
              f"{fmt_time(est):>9} {fmt_time(most):>9}")
        for name, block, tier, reads, secs in dropped:
            print(f"  --time-budget {fmt_time(a.time_budget)} leaves out {name} [block {block}] "
                  f"({tier}, {fmt_time(secs)}): read by {reads}")
    if unfit and len(unfit) == len(profiles):
        die(f"list --time-budget {fmt_time(a.time_budget)}: no profile fits it (the claims' "
            "points alone take longer)")
    print(f"\nestimate per run: warm-up + duration + calibration (+{CALIBRATE_WARMUP_S} s) + "
          f"--load's capacity run (+{LOAD_PROBE_WARMUP_S} s; one per group of load points and "
          f"round) + {RUN_OVERHEAD_S} s of overhead measured on the development machine. At "
          "most: the stopping rule adds rounds to the points an undecided claim reads (and "
          f"the drift reference) up to {looks.BUDGET_FACTOR} x their repetitions (at a look of "
          f"{looks.LOOKS}), {placement.RERUN_SHARE:.0%} of the runs may be re-run because "
          f"their CPUs ended far apart, all within {AT_MOST_EXTRA:.0%} of the estimate again "
          "(the runner adds no look past it) and within --time-budget where given")


def why_lines(row, exps):
    """`list --why`: each block of an experiment, the claims and figures that
    read it, its tier and its points and time in this profile."""
    e = next(x for x in exps if x.name == row["name"])
    out = []
    for b in e.blocks:
        pts = [p for p in row["pts"] if p.blocks and p.blocks[0] == b.name]
        also = [p for p in row["pts"] if b.name in p.blocks[1:]]
        reads = "; ".join(x for x in (("claims " + ", ".join(b.claims)) if b.claims else "",
                                      ("figures " + ", ".join(b.figures)) if b.figures else "")
                          if x) or ("nothing: exploratory (full profile only, runs last)"
                                    if b.declared else "not said (a file that names no claim "
                                    "nor figure: every profile runs it, as figure-only points)")
        out.append(f"[block {b.name}] {b.tier}: {len(pts)} point(s)"
                   + (f" (+{len(also)} shared with a block above)" if also else "")
                   + f", {fmt_time(points_seconds(pts, row['reps']))}; read by {reads}")
    return out


def cmd_readme(a):
    """Rewrite FILE's generated blocks: README.md's estimate, docs/two-socket.md's
    budget table (whichever FILE holds; at least one)."""
    try:
        with open(a.file, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        die(f"readme: {a.file}: {e.strerror}")
    exps = load_experiments(None)
    new, found = text, 0
    for begin, end, make in ((ESTIMATE_BEGIN, ESTIMATE_END, estimate_block),
                             (BUDGET_BEGIN, BUDGET_END, budget_table),
                             (TIMING_BEGIN, TIMING_END, timing_block)):
        if new.count(begin) == 0 and new.count(end) == 0:
            continue
        if new.count(begin) != 1 or new.count(end) != 1:
            die(f"readme: {a.file}: expected one '{begin}' line and one '{end}' line")
        i, j = new.index(begin), new.index(end) + len(end)
        new = new[:i] + "\n".join(make(exps)) + new[j:]
        found += 1
    if not found:
        die(f"readme: {a.file}: no generated block ('{ESTIMATE_BEGIN}' or '{BUDGET_BEGIN}')")
    if a.check:
        if new != text:
            print(f"readme: {a.file}: the estimate is stale: run python3 -m "
                  f"scripts.runner.experiments readme {a.file}", file=sys.stderr)
            sys.exit(1)
        return
    if new != text:
        write_whole(a.file, new)


def own_folder(results):
    """(this machine's host folder under results, as a sweep of this working
    tree would claim it, and the working tree's fingerprint); exit 2 where
    the machine cannot be told or no folder fits."""
    try:
        fp = hostid.fingerprint(hostid.machine_identity()[0])
        dirs, _ = hostid.claim(results, [hostid.host_key()], fp, write=False)
    except (hostid.IdentityError, hostid.NoFolder) as e:
        die(str(e))
    return dirs[hostid.host_key()], fp


def cmd_report(a):
    """This working tree's own host folder (hostid's marker), its reproduction
    report printed by the analysis' command line; exit 2 where there is none."""
    d, fp = own_folder(a.results)
    if hostid.owner(d, fp) != "ours":
        die(f"no results of this working tree under {a.results} ({os.path.basename(d)} would "
            "be its folder): run make experiments first")
    write_report(d, show=False)  # again: the side benchmarks ran after the sweep
    rc = subprocess.call([sys.executable, "-m", "scripts.analysis.claims", "report",
                          "--results", a.results, os.path.basename(d)], cwd=ROOT)
    sys.exit(rc)


def estimate_here(a):
    """(profile, estimate, at most) of a plain make experiments on this machine,
    as run prints it (plan_time, with the defaults of run)."""
    bench = os.path.abspath(a.bench)
    if not os.access(bench, os.X_OK):
        die(f"{a.bench} is not built (run make bench)")
    exps = load_experiments(None)
    profile = "quick" if allowed_cpus() < 8 else "full"
    _, topo = show_topology(bench, None)
    nodes = len([n for n in topo["nodes"] if n["ncpus"] > 0])
    # this sweep's folders are there now, not when it started: as it counted then
    written = 1 + (nodes < 2 and any(needs_two_nodes(e, profile) for e in exps))
    plan = argparse.Namespace(results=a.results, time_budget=None, budget=looks.BUDGET_FACTOR,
                              reps=None, written=written)
    plan_time(plan, exps, profile, nodes, None, topo_cores(topo, allowed_cpus()))
    return plan.estimate


def cmd_record_time(a):
    """make experiments' last step: the wall time since it started beside the
    estimate its runner recorded, in this working tree's host folder."""
    d, fp = own_folder(a.results)
    path = os.path.join(d, TIME_TXT)
    rec = read_time_record(path)
    if hostid.owner(d, fp) != "ours" or not os.path.isdir(os.path.join(d, "env")):
        die(f"record-time: no sweep of this working tree in {os.path.relpath(d)}: run make "
            "experiments")
    if "estimate_s" not in rec:   # a sweep started before run recorded it: the same plan
        prof, est, most = estimate_here(a)
        rec.update(profile=prof, estimate_s=f"{est:.1f}", at_most_s=f"{most:.1f}")
    started = a.started if a.started is not None else started_epoch()
    ended = a.ended if a.ended is not None else int(time.time())
    if ended < started:
        die(f"record-time: --ended {ended} is before the start {started}")
    rec.update(started=utc(started), ended=utc(ended), wall_s=str(ended - started))
    write_time_record(path, rec)
    print(f"experiments: make experiments took {fmt_time(ended - started)}, estimated "
          f"{fmt_time(float(rec['estimate_s']))} (at most {fmt_time(float(rec['at_most_s']))})"
          f" ({os.path.relpath(path)})")


def duration_arg(text):
    """argparse type of --time-budget (sizing.parse_duration)."""
    try:
        return parse_duration(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def main():
    ap = argparse.ArgumentParser(
        prog="python3 -m scripts.runner.experiments", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run the experiments for this host")
    r.add_argument("--experiments", help="comma-separated names (default: all)")
    r.add_argument("--profile", choices=expfile.PROFILES,
                   help="quick or full (default: quick below 8 CPUs); smoke: a few tiny "
                   "runs of each experiment (make vm-experiments)")
    r.add_argument("--reps", type=int, help="repetitions per point (default: from the file); "
                   "with --reps exactly that many: the stopping rule adds none")
    r.add_argument("--budget", type=int, default=looks.BUDGET_FACTOR,
                   help="the stopping rule's factor: while a claim is undecided, add rounds "
                   "to the points it reads up to the next look, at most BUDGET x their "
                   f"planned repetitions (default {looks.BUDGET_FACTOR}; 1: add none). Not "
                   "a time: that is --time-budget")
    r.add_argument("--time-budget", metavar="DURATION", type=duration_arg,
                   help="wall-clock budget for all of make experiments (the sweeps, the side "
                   "benchmarks, the fixed steps; 90m, 1h, 4:00:00): the plan leaves out "
                   "exploratory points, then figure-only blocks (the costliest first), never "
                   "a point a claim reads, and says what it left out; the stopping rule adds "
                   "no round past it. Not the stopping rule's --budget")
    r.add_argument("--force", action="store_true", help="redo runs that exist")
    r.add_argument("--loose", action="store_true",
                   help="keep each run's files loose in <experiment>/<profile>/ when the sweep "
                   "ends (default: pack them into <experiment>/<profile>.tar.xz, which every "
                   "script reads in place; a later sweep unpacks it to go on)")
    r.add_argument("--topology", help="emulated nodes for every run, e.g. '0;1'")
    r.add_argument("--results", default=os.path.join(ROOT, "results"), help="results folder")
    r.add_argument("--bench", default=os.path.join(ROOT, "build", "numaring-bench"))
    r.add_argument("--smoke", action="store_true",
                   help="one point per experiment, one short repetition, no drift reference "
                   "(the tests; --profile smoke is the whole path in a few tiny runs)")
    r.add_argument("--point-timeout", type=float, help="seconds before a run is killed")
    r.add_argument("--placement-reruns", type=int, default=placement.RERUN_CAP,
                   help="re-run a run whose two CPUs ended more than "
                   f"{placement.FAR:g}x the probe's line trip apart, at most this many times "
                   f"(default {placement.RERUN_CAP}; 0: keep every run), within "
                   f"{placement.RERUN_SHARE * 100:.0f}%% of an experiment's runs; not with --smoke or "
                   "--profile smoke")
    r.add_argument("--placement-trip-ns", type=float,
                   help="the one-way line trip (ns) the runs' own are held against "
                   "(default: the host probe's, probe/probe.csv)")
    r.add_argument("--seed", type=int, help="seed of the randomized order (default: the one "
                   "in <experiment>/<profile>/order.txt, else a fresh one; printed)")
    r.add_argument("--exp-dir", help="folder of .exp files (default: experiments/)")
    r.add_argument("--likwid", action="store_true",
                   help="run each point under likwid-perfctr where it can count an interconnect "
                   "group (UPI, QPI, xGMI), recording bytes over the interconnect per item; "
                   "says in one line why not where it cannot")
    r.add_argument("--likwid-bench", default=os.path.join(ROOT, "build", "likwid", "numaring-bench"),
                   help="the harness built with likwid's markers (make bench-likwid)")
    c = sub.add_parser("check", help="check experiment files")
    c.add_argument("files", nargs="*")
    li = sub.add_parser("list", help="the experiments' points, repetitions and estimated "
                        "time, here or on another host")
    li.add_argument("--profile", choices=expfile.PROFILES, help="one profile (default: both)")
    li.add_argument("--cpus", help="another host: its CPUs (hardware threads) in all")
    li.add_argument("--cores", help="another host: its cores in all (instead of --cpus)")
    li.add_argument("--nodes", help="another host: its NUMA nodes (default 1)")
    li.add_argument("--smt", help="another host: hardware threads per core, 1, 2, 4 or 8 "
                    "(default 1)")
    li.add_argument("--why", action="store_true", help="under each experiment, its blocks: "
                    "the claims and figures that read each, its tier (claim, figure-only, "
                    "exploratory), points and time")
    li.add_argument("--time-budget", metavar="DURATION", type=duration_arg,
                    help="fit this wall-clock budget for all of make experiments (90m, 1h, "
                    "4:00:00): leave out exploratory points, then figure-only blocks (the "
                    "costliest first), never a claim's, and say what is left out")
    rt = sub.add_parser("record-time", help="make experiments' last step: its wall time "
                        "beside its estimate, into this tree's results/<host>/" + TIME_TXT)
    rt.add_argument("--results", default=os.path.join(ROOT, "results"), help="results folder")
    rt.add_argument("--bench", default=os.path.join(ROOT, "build", "numaring-bench"))
    rt.add_argument("--started", type=int, metavar="EPOCH",
                    help="when make experiments started (default: NUMARING_MAKE_STARTED)")
    rt.add_argument("--ended", type=int, metavar="EPOCH", help="when it ended (default: now)")
    rd = sub.add_parser("readme", help="rewrite the estimate block of FILE (README.md)")
    rd.add_argument("file")
    rd.add_argument("--check", action="store_true", help="exit 1 if it would change")
    rp = sub.add_parser("report", help="the reproduction report of this working tree's own "
                        "results (what make experiments ends with)")
    rp.add_argument("--results", default=os.path.join(ROOT, "results"), help="results folder")
    a = ap.parse_args()
    global EXP_DIR
    if a.cmd == "run":
        if a.exp_dir:
            EXP_DIR = os.path.abspath(a.exp_dir)
        if a.reps is not None and not 1 <= a.reps <= 1000:
            die("--reps must be between 1 and 1000")
        if not 1 <= a.budget <= 10:
            die("--budget must be between 1 and 10")
        if not 0 <= a.placement_reruns <= 10:
            die("--placement-reruns must be between 0 and 10")
        if a.placement_trip_ns is not None and not a.placement_trip_ns > 0:
            die("--placement-trip-ns must be above 0")
        if a.point_timeout is not None and not a.point_timeout > 0:
            die("--point-timeout must be above 0")
        if a.seed is not None and not 0 <= a.seed < 1 << 63:
            die("--seed must be between 0 and 2^63-1")
    {"run": cmd_run, "check": cmd_check, "report": cmd_report, "readme": cmd_readme,
     "record-time": cmd_record_time,
     "list": cmd_list}[a.cmd](a)


if __name__ == "__main__":
    main()
