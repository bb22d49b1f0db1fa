# SPDX-License-Identifier: BSD-2-Clause
"""bench_fidelity.py - how close numaring-bench comes to a bare loop of the same queue (make bench-fidelity).

    python3 -m scripts.runner.bench_fidelity [--bench build/numaring-bench]
        [--bare build/bench/bare_loop] [--reps 6] [--duration 1] [--warmup 0.3]
        [--burst 32] [--configs 1p1c,pairs,pairs1,2p2c] [--no-message] [--no-strip]
        [--csv PATH] [--results DIR] [--no-save]

For each queue (flat, numaring, rte), each mode (single operations, bursts of
--burst) and each configuration (CONFIGS) with the same pinning (numaring-bench's
--pin compact: P0, C0, P1, C1, ... on the allowed CPUs in turn), a pair of runs
for each kind of item the configuration takes:

    bare     build/bench/bare_loop (harness/fidelity/bare_loop.c): the queue in a
             bare loop of the same shape, items only counted (messages handed
             out and freed), no harness code
    harness  numaring-bench with the same items, and the flags the sweeps run
             with (SWEEP_FLAGS: --counters; the default --sample)

The configurations: 1p1c (1 producer + 1 consumer, inline and message items),
pairs (2 threads, each enqueues then dequeues; inline items), pairs1 (the same
with 1 thread, a diagnostic with no target: nothing contends, so the ratio is
the symmetric loop's own cost per item against a ring at the speed of the L1
cache; pairs' ratio mixes that cost with how the two threads' turns on the
queue's lines fall, which on a VM moves with its vCPUs) and 2p2c (2
producers + 2 consumers, inline items; only where 4 CPUs or more are allowed:
on fewer it is oversubscribed and says nothing about the harness).

Where the harness's time goes: the prodcons inline runs again with one of the
harness's own per-item costs removed at a time (STRIPS; numaring-bench --strip,
a diagnostic, never a measurement of a queue): sampling (--sample 1048576: one
item in 2^20 timed, so no clock read or histogram), publish (a producer's count
stored once, not per operation), window (a producer's phase, quota and window
checks per operation), accounting (a consumer's tallies, checksums and order
check: items only counted), and all four at once. Each stripped run's speed
over the plain run's of the same round says what that cost takes; all four
removed over the bare loop says what is left. --strip needs prodcons with
inline items, so the other configurations have no stripped runs. --no-strip
leaves these runs out, --no-message the message items.

Rounds are interleaved (every case once per round, the rounds repeated) so the
machine's drift falls on all alike; each figure is the median of the rounds with
its min..max. Each run also times one cache line's one-way trip between its
first two threads' CPUs just before and just after it (numaring-bench's
c2c_one_way_before_ns and _after_ns; bare_loop --hand-over): under a hypervisor
two vCPUs need not stay on the same physical cores, and a run's speed follows
how far apart they are. A run whose trip is more than placement.FAR times the
nearest trip any run of this benchmark saw ran far; a pair in which one run
ran far and the other did not compared two placements, not the harness with
the bare loop, and runs again (both runs, at most placement.RERUN_CAP times,
within placement.RERUN_SHARE of the pairs), as the sweep re-runs a run whose
CPUs moved apart. The table's last line counts them. Targets (issue 44): harness / bare >= 0.8 with inline items, >=
0.6 with messages, for every queue, mode and configuration (the claims
harness.fidelity and harness.fidelity-message). It is reported as measured, a
miss included: this is a measurement, not a test (exit 0). A run that fails:
its command and stderr, exit 1. Bad options: exit 2.

Results (scripts/runner/benchresult.py): besides the table, every run is written to
results/<host>/bench/bench-fidelity.csv (--results DIR replaces results/;
--no-save prints only), one row per run:

    bench,round,queue,config,bursts,item,where,stripped,throughput_ops_per_s,
    c2c_one_way_before_ns,c2c_one_way_after_ns,placement_reruns

bench is bench-fidelity; round 1..--reps (the runs of one round ran seconds
apart: ratios within a round are paired); queue flat|numaring|rte; config a
CONFIGS name (empty in files written before it: 1p1c); bursts 0 (single
operations) or 1 (bursts of --burst); item inline|message (empty for the bare
loop in files written before it had messages: inline); where harness|bare;
stripped empty, or the STRIPS name of a diagnostic run; throughput_ops_per_s
items/s; the two trips in ns (empty: not timed); placement_reruns how
many times the pair was run again because its two runs' placements differed
(files written before these columns have none). Beside it bench-fidelity.meta.json (commit, command line, times,
options, CPU) and, once, results/<host>/env/. <host> is this machine's host
key, or <key>-r2 where that folder holds results this tree did not start
(scripts/runner/hostid.py). --csv PATH writes the older raw form
(round,queue,mode,kind,items_per_s: kind bare, inline, message or a strip,
1p1c only) as well.
"""

import argparse
import csv
import io
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

from . import benchresult
from .runio import write_whole
from ..common import looks, placement
from ..common.benches import FIDELITY_DIAGNOSTIC
from ..common.tidy import read_summary

#: the queues the bare loop builds that numaring-bench runs too (harness/fidelity/bare_loop.c;
#: its xenium-vyukov, flat's algorithm in another library, has no harness partner)
QUEUES = ("flat", "numaring", "rte")
#: the target of harness / bare with each kind of item (issue 44)
TARGETS = {"inline": 0.8, "message": 0.6}
TARGET = TARGETS["inline"]
#: the configurations with a bare partner: (name, in words, the bare loop's options,
#: numaring-bench's, the items it runs, the fewest allowed CPUs it needs, prodcons)
CONFIGS = (
    ("1p1c", "1 producer + 1 consumer", ["--workload", "prodcons", "--threads", "2"],
     ["--producers", "1", "--consumers", "1"], ("inline", "message"), 2, True),
    ("pairs", "pairs, 2 threads", ["--workload", "pairs", "--threads", "2"],
     ["--workload", "pairs", "--threads", "2"], ("inline",), 2, False),
    ("pairs1", "pairs, 1 thread", ["--workload", "pairs", "--threads", "1"],
     ["--workload", "pairs", "--threads", "1"], ("inline",), 1, False),
    ("2p2c", "2 producers + 2 consumers", ["--workload", "prodcons", "--threads", "4"],
     ["--producers", "2", "--consumers", "2"], ("inline",), 4, True),
)
CONFIG_NAMES = tuple(c[0] for c in CONFIGS)
#: what the sweeps run numaring-bench with (experiments/*.exp: counters = 1, the
#: default --sample): every harness run of this benchmark has them
SWEEP_FLAGS = ["--counters"]
#: the diagnostic runs of where the time goes: (name, numaring-bench's options)
#: with inline items, prodcons only; each removes one of the harness's own per-item costs
SAMPLE_NONE = ["--sample", "1048576"]
STRIPS = (("sampling", SAMPLE_NONE), ("publish", ["--strip", "publish"]),
          ("window", ["--strip", "window"]), ("accounting", ["--strip", "accounting"]),
          ("all", SAMPLE_NONE + ["--strip", "publish,window,accounting"]))
PROG = "bench-fidelity"
SINGLE_BATCH = 32  # numaring-bench's default --batch, used with single operations


class RunFailed(Exception):
    pass


def run_cmd(cmd, timeout):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RunFailed(f"{' '.join(cmd)}\n  did not finish within {timeout:.0f} s")
    except OSError as e:
        raise RunFailed(f"{' '.join(cmd)}\n  could not be started: {e}")
    if r.returncode != 0:
        raise RunFailed(f"{' '.join(cmd)}\n  exit status {r.returncode}: "
                        f"{r.stderr.strip() or '(no message)'}")
    return r


def run_bare(a, queue, burst, config="1p1c", item="inline"):
    """(items/s, (trip before, trip after)) of one bare loop run (ns; None: not timed)."""
    cmd = [a.bare, "--queue", queue, "--burst", str(burst), "--capacity", "1024",
           "--item", item, "--duration", str(a.duration), "--warmup", str(a.warmup),
           "--hand-over"] + \
        CONFIGS[CONFIG_NAMES.index(config)][2]
    try:
        r = run_cmd(cmd, a.timeout)
    except RunFailed as e:
        if benchresult.STALLED not in str(e):
            raise
        print(f"bench-fidelity: {e}; once more (a stalled machine moves nothing either)",
              file=sys.stderr, flush=True)
        r = run_cmd(cmd, a.timeout)
    lines = r.stdout.strip().splitlines()
    fields = lines[-1].split(",") if lines else []
    try:
        if len(fields) != 5 or fields[0] != queue or int(fields[1]) != burst:
            raise ValueError
        v = float(fields[2])
        trips = tuple(float(x) if x else None for x in fields[3:])
        if not math.isfinite(v) or v <= 0 or any(t is not None and not t > 0 for t in trips):
            raise ValueError
    except ValueError:
        raise RunFailed(f"{' '.join(cmd)}\n  unexpected output {r.stdout.strip()!r} "
                        f"(expected {queue},{burst},items_per_s,before_ns,after_ns)")
    return v, trips


def run_harness(a, queue, burst, item, outdir, extra=(), config="1p1c"):
    """(items/s, (trip before, trip after)) of one numaring-bench run (ns; None: not timed)."""
    bursts = burst > 1
    # --batch: the burst size, and numaring's transfer batch; single operations
    # keep the harness's default 32, as the bare loop does.
    cmd = [a.bench, "--queue", queue] + CONFIGS[CONFIG_NAMES.index(config)][3] + \
          ["--item", item] + (["--bursts"] if bursts else []) + \
          ["--batch", str(burst if bursts else SINGLE_BATCH), "--capacity", "1024",
           "--duration", str(a.duration), "--warmup", str(a.warmup), "--out", outdir,
           "--quiet"] + SWEEP_FLAGS + list(extra)
    run_cmd(cmd, a.timeout)
    path = os.path.join(outdir, "summary.csv")
    try:
        row = read_summary(path)
        v = float(row["throughput_ops_per_s"])
        if not math.isfinite(v) or v <= 0:
            raise ValueError(f"throughput_ops_per_s is {v}")
    except (OSError, StopIteration, KeyError, ValueError) as e:
        raise RunFailed(f"{' '.join(cmd)}\n  cannot read throughput_ops_per_s from {path}: {e}")
    return v, tuple(trip_ns(row.get(k)) for k in ("c2c_one_way_before_ns", "c2c_one_way_after_ns"))


def trip_ns(text):
    """A timed trip (ns) from summary.csv's text, None where it was not timed (-1, empty)."""
    try:
        v = float(text or "")
    except ValueError:
        return None
    return v if v > 0 and math.isfinite(v) else None


class Placements:
    """Whether the two runs of a pair found their CPUs alike (the module's
    docstring): the nearest trip seen so far is the reference, a run whose
    longer end is more than placement.FAR x it ran far, and a pair whose runs
    differ in that runs again while the budget (RERUN_SHARE of `pairs`)
    lasts."""

    def __init__(self, pairs):
        self.nearest, self.budget = None, int(placement.RERUN_SHARE * pairs)
        self.pairs = self.reruns = self.differ = 0

    def far(self, trips):
        t = max((x for x in trips if x), default=None)
        if t is not None and (self.nearest is None or t < self.nearest):
            self.nearest = t
        return None if t is None else t > placement.FAR * self.nearest

    def again(self, a, b, reruns):
        """Whether a pair with trips a and b, run again `reruns` times so far,
        runs once more; a pair that still differs when it may not is counted."""
        fa, fb = self.far(a), self.far(b)
        differ = fa is not None and fb is not None and fa != fb
        if differ and reruns < placement.RERUN_CAP and self.reruns < self.budget:
            self.reruns += 1
            return True
        self.pairs += 1
        self.differ += differ
        return False

    def line(self):
        return (f"placement: {self.reruns} re-runs of a pair whose two runs found their CPUs at "
                f"different distances (one more than {placement.FAR:g}x the nearest line trip "
                f"seen, {self.nearest or 0:.1f} ns, the other not); {self.differ} of "
                f"{self.pairs} pairs still differ")


def write_csv(path, rows):
    """The raw numbers, written whole (write_whole)."""
    buf = io.StringIO()
    csv.writer(buf).writerows([["round", "queue", "mode", "kind", "items_per_s"]] + rows)
    write_whole(path, buf.getvalue())


def real(ok, what):
    """argparse's type of a finite number for which ok(number) holds (else: not `what`)."""
    def parse(s):
        try:
            v = float(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{s!r} is not a number")
        if not math.isfinite(v) or not ok(v):
            raise argparse.ArgumentTypeError(f"{s!r} is not {what}")
        return v
    return parse


def int_in(lo, hi):
    def parse(s):
        try:
            v = int(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{s!r} is not a whole number")
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"{v} is not in {lo}..{hi}")
        return v
    return parse


def fmt_cell(v):
    return f"{statistics.median(v) / 1e6:8.2f} [{min(v) / 1e6:6.2f}..{max(v) / 1e6:6.2f}]"


def config_list(s):
    names = [x.strip() for x in s.split(",") if x.strip()]
    bad = [x for x in names if x not in CONFIG_NAMES]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"{s!r}: each of {', '.join(CONFIG_NAMES)}, "
                                         "comma-separated")
    return names


def main():
    ap = argparse.ArgumentParser(
        prog="python3 -m scripts.runner.bench_fidelity", description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default="build/numaring-bench", help="numaring-bench to measure")
    ap.add_argument("--bare", default="build/bench/bare_loop", help="the bare loop (reference)")
    ap.add_argument("--reps", type=int_in(1, 1000), default=looks.LOOKS[0],
                    help=f"interleaved rounds (default {looks.LOOKS[0]}: the fewest pairs a "
                    "claim decides on)")
    ap.add_argument("--duration", type=real(lambda v: v > 0, "a positive number"), default=1.0,
                    help="measured seconds per run (default 1)")
    ap.add_argument("--warmup", type=real(lambda v: v >= 0, "a number >= 0"), default=0.3,
                    help="warm-up seconds per run (default 0.3)")
    ap.add_argument("--burst", type=int_in(2, 1024), default=32,
                    help="burst size of the burst mode (default 32); single operations "
                         "run with --batch 32")
    ap.add_argument("--configs", type=config_list, default=list(CONFIG_NAMES),
                    help=f"the configurations (default all: {','.join(CONFIG_NAMES)}; one "
                    "that needs more CPUs than are allowed is left out, saying so)")
    ap.add_argument("--csv", metavar="PATH", help="also write 1p1c's raw numbers here "
                    "(round,queue,mode,kind,items_per_s)")
    ap.add_argument("--no-strip", action="store_true",
                    help="leave out the diagnostic runs of where the time goes (STRIPS)")
    ap.add_argument("--no-message", action="store_true",
                    help="leave out the runs with message items (harness and bare loop)")
    benchresult.add_arguments(ap, "bench-fidelity")
    a = ap.parse_args()
    for exe, what in ((a.bench, "make bench"), (a.bare, "make build/bench/bare_loop")):
        if not os.access(exe, os.X_OK):
            benchresult.fail(PROG, f"{exe} is not built ({what})")
    if a.csv:
        d = os.path.dirname(os.path.abspath(a.csv))
        if not os.path.isdir(d) or not os.access(d, os.W_OK):
            benchresult.fail(PROG, f"--csv {a.csv}: folder {d} does not exist or is not writable")
    if a.reps < 5:
        print(f"bench-fidelity: note: --reps {a.reps}; at least 5 are recommended on a noisy "
              f"machine", file=sys.stderr)
    ncpus = len(os.sched_getaffinity(0))
    configs = []
    for c in CONFIGS:
        if c[0] not in a.configs:
            continue
        if ncpus < c[5]:
            print(f"bench-fidelity: note: {c[0]} ({c[1]}) left out: it needs {c[5]} CPUs and "
                  f"{ncpus} are allowed (oversubscribed, it would say nothing of the harness)",
                  file=sys.stderr)
            continue
        configs.append(c)
    if not configs:
        benchresult.fail(PROG, f"--configs {','.join(a.configs)}: none fits the {ncpus} "
                         "allowed CPUs")
    result = benchresult.start("bench-fidelity", "bench-fidelity", a, a.bench)
    a.timeout = a.warmup + a.duration + 60

    modes = (("single", 1), (f"burst{a.burst}", a.burst))
    strips = () if a.no_strip else STRIPS
    cases = [(c[0], item) for c in configs for item in c[4]
             if not (a.no_message and item == "message")]
    stripped_cases = [c[0] for c in configs if c[6]] if strips else []
    res = {}
    rows, results = [], []
    t_begin = time.monotonic()
    place = Placements(a.reps * len(QUEUES) * len(modes) * len(cases))

    def record(rnd, q, m, burst, config, item, where, name, run, reruns=0):
        v, (before, after) = run
        res.setdefault((q, m, config, item, name or where), []).append(v)
        results.append(dict(bench="bench-fidelity", round=rnd, queue=q, config=config,
                            bursts=int(burst > 1), item=item, where=where, stripped=name,
                            throughput_ops_per_s=v, c2c_one_way_before_ns=before,
                            c2c_one_way_after_ns=after, placement_reruns=reruns))
        if config == "1p1c":
            rows.append([rnd, q, m, name or ("bare" if where == "bare" else item), f"{v:.0f}"])
    try:
        with tempfile.TemporaryDirectory(prefix="bench_fidelity.") as tmp:
            for rnd in range(1, a.reps + 1):
                t0 = time.monotonic()
                for q in QUEUES:
                    for m, burst in modes:
                        for config, item in cases:
                            out = os.path.join(tmp, f"{q}-{m}-{config}-{item}-{rnd}")
                            reruns = 0
                            while True:
                                bare = run_bare(a, q, burst, config, item)
                                harness = run_harness(a, q, burst, item, out, config=config)
                                if not place.again(bare[1], harness[1], reruns):
                                    break
                                reruns += 1
                            record(rnd, q, m, burst, config, item, "bare", None, bare, reruns)
                            record(rnd, q, m, burst, config, item, "harness", None, harness,
                                   reruns)
                        for config in stripped_cases:
                            for name, extra in strips:
                                out = os.path.join(tmp, f"{q}-{m}-{config}-{name}-{rnd}")
                                record(rnd, q, m, burst, config, "inline", "harness", name,
                                       run_harness(a, q, burst, "inline", out, extra,
                                                   config=config))
                took = time.monotonic() - t0
                left = took * (a.reps - rnd)
                print(f"bench-fidelity: round {rnd}/{a.reps} done ({took:.0f} s"
                      + (f", about {left:.0f} s left)" if rnd < a.reps else ")"),
                      file=sys.stderr, flush=True)
    except RunFailed as e:
        benchresult.fail(PROG, f"a run failed:\n  {e}", 1)
    except KeyboardInterrupt:
        benchresult.fail(PROG, "interrupted", 130)

    if a.csv:
        try:
            write_csv(a.csv, rows)
        except OSError as e:
            benchresult.fail(PROG, f"cannot write {a.csv}: {e}", 1)
    if result:
        result.save(results)

    def paired(key, num, den):
        return statistics.median(x / y for x, y in zip(res[key + (num,)], res[key + (den,)]))
    print(f"capacity 1024, {a.duration:g} s per run after {a.warmup:g} s warm-up, harness "
          f"with {' '.join(SWEEP_FLAGS)}, median of {a.reps} interleaved rounds [min..max], "
          f"Mitems/s ({time.monotonic() - t_begin:.0f} s in all)")
    print(f"{'queue':9} {'mode':9} {'config':6} {'item':8} {'bare loop':>26} {'harness':>26} "
          f"{'h/bare':>6}  target")
    for q in QUEUES:
        for m, _ in modes:
            for config, item in cases:
                k = (q, m, config, item)
                r = paired(k, "harness", "bare")
                verdict = ("diagnostic: the loop's own cost, no target"
                           if config in FIDELITY_DIAGNOSTIC else
                           f">= {TARGETS[item]}: {'met' if r >= TARGETS[item] else 'MISSED'}")
                print(f"{q:9} {m:9} {config:6} {item:8} {fmt_cell(res[k + ('bare',)]):>26} "
                      f"{fmt_cell(res[k + ('harness',)]):>26} {r:6.2f}  {verdict}")
    print(place.line())
    if strips:
        print("\nwhere the time goes (prodcons, inline): each cost removed alone, the stripped "
              "run over the plain one, median of the rounds' paired ratios; 'all' over the "
              "bare loop is what is left")
        print(f"{'queue':9} {'mode':9} {'config':6} {'h/bare':>6} "
              + " ".join(f"{n:>10}" for n, _ in strips) + f" {'all/bare':>8}")
        for q in QUEUES:
            for m, _ in modes:
                for config in stripped_cases:
                    k = (q, m, config, "inline")
                    print(f"{q:9} {m:9} {config:6} {paired(k, 'harness', 'bare'):6.2f} "
                          + " ".join(f"{paired(k, n, 'harness'):10.2f}" for n, _ in strips)
                          + f" {paired(k, 'all', 'bare'):8.2f}")
    if a.csv:
        print(f"\nraw numbers: {a.csv}")
    if result:
        print()
        result.report()


if __name__ == "__main__":
    main()
