# SPDX-License-Identifier: BSD-2-Clause
"""side.py - the side benchmarks that make experiments runs after the sweeps.

    python3 -m scripts.runner.side run [--experiments a,b] [--profile quick|full|smoke]
        [--results DIR] [--bench PATH] [--bare PATH] [--oversub PATH] [--dry-run]
    python3 -m scripts.runner.side list [--profile quick|full|smoke]

(from the repository root, as the Makefile runs them)

The side benchmarks (NAMES: make bench-peers, bench-fidelity, bench-oversub)
feed claims of the reproduction report (scripts/analysis/claims_table.py
m_bench_peers, m_bench_fidelity, m_bench_oversub) from
results/<host>/bench/<name>.csv. They are experiments that can be named:
`make experiments EXPERIMENTS=bench-peers` runs that one alone, and
EXPERIMENTS=f2-node-cache none of them; without EXPERIMENTS all three run.
`run --experiments` ignores the names that are no side benchmark (the sweeps'
experiments, which scripts/runner/experiments.py runs) and runs nothing where
it names none, saying so.

Each shrinks with the profile as the sweeps do, so that every estimate counts
what make experiments runs (COMMANDS, ESTIMATES):

    quick  what the claims read and nothing more, 6 interleaved rounds (the
           first look at which a paired claim decides: scripts/common/looks.py):
           bench-peers numaring, flat and rte at 1P1C (--queues, --shapes 1x1)
           with the bare loop's numaring and rte (--bare-queues); bench-fidelity
           the harness against the bare loop at 1P1C (inline and message items)
           and in pairs, shorter runs (0.3 s after 0.1 s), no diagnostic runs
           (--configs 1p1c,pairs --no-strip); bench-oversub --quick
    full   today's size: bench-peers every queue at 1P1C and 2P2C with the whole
           bare loop, bench-fidelity in every configuration (pairs1, the
           symmetric loop's own cost, and 2P2C too, where 4
           CPUs or more are allowed) with the diagnostic runs of where the
           harness's time goes, bench-oversub --quick
    smoke  none (make vm-experiments' guest: timings there mean nothing)

The default profile is quick below 8 CPUs (those this process may use), else
full: experiments.py's rule. `run` runs the selected benchmarks in NAMES'
order, each whatever the one before did, and prints one line per benchmark
with its time; exit 1 where any failed, 2 for bad options, 130 when
interrupted (the benchmark running then is stopped; none after it starts).
"""

import argparse
import os
import shlex
import signal
import subprocess
import sys
import time

from ..common import looks
from . import bench_peers

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: the side benchmarks, in the order make experiments runs them (make targets)
NAMES = ("bench-peers", "bench-fidelity", "bench-oversub")
#: the profiles (scripts/common/expfile.py PROFILES: the sweeps')
PROFILES = ("quick", "full", "smoke")
#: the interleaved rounds of bench-peers and bench-fidelity: the fewest pairs
#: at which a paired claim decides
ROUNDS = looks.LOOKS[0]

#: each benchmark's module and its options in each profile (smoke: none), before
#: the paths (--bench, --bare, --bin, --results) that `run` adds
COMMANDS = {
    "quick": {
        "bench-peers": ["scripts.runner.bench_peers", "--reps", str(ROUNDS),
                        "--shapes", "1x1", "--queues", ",".join(bench_peers.TARGET_QUEUES),
                        "--bare-queues", ",".join(bench_peers.TARGET_BARE)],
        "bench-fidelity": ["scripts.runner.bench_fidelity", "--reps", str(ROUNDS),
                           "--configs", "1p1c,pairs", "--no-strip", "--duration", "0.3",
                           "--warmup", "0.1"],
        "bench-oversub": ["scripts.runner.benchresult", "oversub", "--quick"],
    },
    "full": {
        "bench-peers": ["scripts.runner.bench_peers", "--reps", str(ROUNDS)],
        "bench-fidelity": ["scripts.runner.bench_fidelity", "--reps", str(ROUNDS)],
        "bench-oversub": ["scripts.runner.benchresult", "oversub", "--quick"],
    },
    "smoke": {},
}

#: (seconds a round, rounds) of each benchmark in each profile, measured on the
#: 2-CPU development VM (AMD EPYC, 2 CPUs, one node) on 2026-12-05. quick:
#: `python3 -m scripts.runner.side run --profile quick` took 202 s: bench-peers
#: 86 s (a round: 3 queues x 2 modes in the harness, ~1.6 s a run, and the bare
#: loop's numaring and rte x 2 modes, ~1.3 s), bench-oversub 11 s (one --quick
#: pass, 32 look-up x backoff pairs x 3 gates); bench-fidelity's quick round
#: (3 queues x 2 modes x 1P1C inline and message and pairs, bare and harness:
#: 36 runs of 0.3 s after 0.1 s) took 19 s. full: one round of each (--reps 1
#: --no-save): bench-peers 84 s (the 13 queues that take inline items x 2
#: shapes x 2 modes + 7 bare runs); bench-fidelity 97 s for 66 runs of 1 s
#: after 0.3 s (the quick round's 36 and 1P1C's 5 stripped x 3 queues x 2
#: modes), 1.47 s a run, so 176 s for the 120 runs of a host with 4 CPUs or
#: more (pairs1's 12, 2P2C's 6 and 30 stripped too: full is the profile of 8
#: CPUs or more);
#: bench-oversub as in quick. bench-peers full grows with the queues that take
#: inline items: 84 / 13 s a round for each. bench-fidelity may run a pair
#: again where its two runs found their CPUs at different distances
#: (bench_fidelity.Placements): at most placement.RERUN_SHARE of its pairs,
#: which these times (of steady VM phases) hold none of, as the sweep's
#: estimate holds none of its placement re-runs.
ESTIMATES = {
    "quick": {"bench-peers": (14.5, ROUNDS), "bench-fidelity": (19.0, ROUNDS),
              "bench-oversub": (11.0, 1)},
    "full": {"bench-peers": (84.0 / 13 * len(bench_peers.queues_for("inline")), ROUNDS),
             "bench-fidelity": (97.0 / 66 * 120, ROUNDS),
             "bench-oversub": (11.0, 1)},
    "smoke": {},
}


def default_profile():
    """quick below 8 allowed CPUs, else full (experiments.py's rule)."""
    return "quick" if len(os.sched_getaffinity(0)) < 8 else "full"


def _names(names):
    if names is None:
        return []
    if isinstance(names, str):
        names = names.split(",")
    return [n.strip() for n in names if n and n.strip()]


def selected(names):
    """The side benchmarks (NAMES' order) that a list of experiment names
    selects: a comma list or a sequence; None or empty: all of them. Names
    that are no side benchmark are the caller's business (left out here)."""
    given = _names(names)
    if not given:
        return NAMES
    return tuple(n for n in NAMES if n in given)


def sweep_names(names):
    """The names of a list (comma list or sequence) that are no side benchmark,
    in their order: what experiments.py runs."""
    return [n for n in _names(names) if n not in NAMES]


def check_profile(profile):
    """profile, or exit 2 with one message."""
    if profile not in PROFILES:
        print(f"side: --profile {profile!r}: expected {', '.join(PROFILES[:-1])} or "
              f"{PROFILES[-1]}", file=sys.stderr)
        sys.exit(2)
    return profile


def table(profile=None, names=None):
    """((name, seconds a round, rounds), ...) of the selected benchmarks that
    the profile runs (default profile: default_profile())."""
    est = ESTIMATES[profile or default_profile()]
    return tuple((n, *est[n]) for n in selected(names) if n in est)


def seconds(profile=None, names=None):
    """The selected benchmarks' estimated wall time in the profile."""
    return sum(s * k for _n, s, k in table(profile, names))


def command(name, profile, bench="build/numaring-bench", bare="build/bench/bare_loop",
            oversub="build/bench/bench_oversub", results=None, python=None):
    """The command line of one benchmark in a profile; None where the profile
    runs none."""
    mod = COMMANDS[profile].get(name)
    if mod is None:
        return None
    cmd = [python or sys.executable, "-m"] + mod
    if name == "bench-oversub":
        cmd += ["--bin", oversub, "--bench", bench]
    else:
        cmd += ["--bench", bench, "--bare", bare]
    return cmd + (["--results", results] if results else [])


def fmt_time(s):
    s = int(round(s))
    if s >= 3600:
        return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
    return f"{s // 60}:{s % 60:02d}"


def root_path(path):
    """path (relative to the caller's folder) as the benchmarks, which run in
    the repository root, see it: relative to the root where it lies below it."""
    full = os.path.abspath(path)
    rel = os.path.relpath(full, ROOT)
    return full if rel == ".." or rel.startswith(".." + os.sep) else rel


class Interrupted(Exception):
    pass


def run_one(cmd):
    """The exit status of cmd (its output goes to ours); Interrupted, the
    command stopped, on SIGINT or SIGTERM."""
    p = subprocess.Popen(cmd, cwd=ROOT)
    try:
        return p.wait()
    except (KeyboardInterrupt, Interrupted):
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        raise Interrupted() from None


def cmd_run(a):
    profile = check_profile(a.profile or default_profile())
    chosen = selected(a.experiments)
    if not chosen:
        print(f"side: no side benchmark asked (--experiments {a.experiments} names sweep "
              f"experiments only; the side benchmarks are {', '.join(NAMES)})", flush=True)
        return 0
    if not COMMANDS[profile]:
        print(f"side: profile {profile} runs no side benchmark (not run: {', '.join(chosen)})",
              flush=True)
        return 0

    def on_term(signum, frame):
        raise Interrupted()
    old_term = signal.signal(signal.SIGTERM, on_term)
    try:
        return run_selected(a, profile, chosen)
    finally:
        signal.signal(signal.SIGTERM, old_term)


def run_selected(a, profile, chosen):
    print(f"side: {', '.join(chosen)} in profile {profile}, estimated "
          f"{fmt_time(seconds(profile, chosen))}", flush=True)
    done = []
    try:
        for name in chosen:
            cmd = command(name, profile, root_path(a.bench), root_path(a.bare),
                          root_path(a.oversub), a.results and root_path(a.results))
            print(f"\n== {name}: {shlex.join(cmd)}", flush=True)
            if a.dry_run:
                continue
            t0 = time.monotonic()
            rc = run_one(cmd)
            done.append((name, rc, time.monotonic() - t0))
            if rc in (130, -signal.SIGINT):
                raise Interrupted()
    except (KeyboardInterrupt, Interrupted):
        print("\nside: interrupted; what a benchmark had saved is kept (each writes its "
              "CSV whole at its end)", file=sys.stderr, flush=True)
        return 130
    if a.dry_run:
        return 0
    print(flush=True)
    est = dict((n, s * k) for n, s, k in table(profile, chosen))
    for name, rc, took in done:
        print(f"side: {name}: {'done' if rc == 0 else f'FAILED (exit {rc})'} in "
              f"{fmt_time(took)} (estimated {fmt_time(est[name])})", flush=True)
    return 1 if any(rc != 0 for _n, rc, _t in done) else 0


def cmd_list(a):
    profiles = [check_profile(a.profile)] if a.profile else list(PROFILES)
    print(f"default profile here: {default_profile()}")
    print(f"{'side benchmark':16} {'profile':7} {'rounds':>6} {'estimate':>9}  options")
    for prof in profiles:
        for name in NAMES:
            mod = COMMANDS[prof].get(name)
            if mod is None:
                print(f"{name:16} {prof:7} {'':6} {'-':>9}  not run in profile {prof}")
                continue
            s, k = ESTIMATES[prof][name]
            print(f"{name:16} {prof:7} {k:6} {fmt_time(s * k):>9}  {shlex.join(mod[1:])}")
        print(f"{'total':16} {prof:7} {'':6} {fmt_time(seconds(prof)):>9}")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m scripts.runner.side",
                                 description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", metavar="COMMAND", required=True)
    r = sub.add_parser("run", help="run the selected side benchmarks",
                       description="Run the side benchmarks --experiments selects (all "
                       "without it) in the profile's size, each whatever the one before did.")
    r.add_argument("--experiments", metavar="A,B",
                   help="experiment names, a comma list: the side benchmarks among them run "
                   f"({', '.join(NAMES)}), the others are ignored (the sweeps'); default all")
    r.add_argument("--profile", metavar="P",
                   help=f"{', '.join(PROFILES)} (default: quick below 8 CPUs, else full)")
    r.add_argument("--results", metavar="DIR",
                   help="results folder (default: the repository's results/): "
                   "DIR/<host>/bench/<name>.csv")
    r.add_argument("--bench", default=os.path.join(ROOT, "build", "numaring-bench"),
                   help="numaring-bench (default: the repository's build/numaring-bench)")
    r.add_argument("--bare", default=os.path.join(ROOT, "build", "bench", "bare_loop"),
                   help="the bare loop of bench-peers and bench-fidelity (default: the "
                   "repository's build/bench/bare_loop)")
    r.add_argument("--oversub", default=os.path.join(ROOT, "build", "bench", "bench_oversub"),
                   help="bench_oversub of bench-oversub (default: the repository's "
                   "build/bench/bench_oversub)")
    r.add_argument("--dry-run", action="store_true",
                   help="print the command lines, run nothing")
    li = sub.add_parser("list", help="each side benchmark's estimate in each profile",
                        description="Each side benchmark's rounds, estimated time and options "
                        "in each profile (or --profile's).")
    li.add_argument("--profile", metavar="P", help=", ".join(PROFILES))
    a = ap.parse_args(argv)
    return cmd_run(a) if a.cmd == "run" else cmd_list(a)


if __name__ == "__main__":
    sys.exit(main())
