# SPDX-License-Identifier: BSD-2-Clause
"""bench_fidelity.py - how close numaring-bench comes to a bare loop of the same queue (make bench-fidelity).

    python3 -m scripts.runner.bench_fidelity [--bench build/numaring-bench]
        [--bare build/bench/bare_loop] [--reps 5] [--duration 1] [--warmup 0.3]
        [--burst 32] [--no-message] [--no-strip] [--csv PATH] [--results DIR] [--no-save]

For each queue (flat, numaring, rte) and each mode (single operations, bursts of
--burst), at 1 producer + 1 consumer with the same pinning (P0 on the first
allowed CPU, C0 on the second), three runs:

    bare     build/bench/bare_loop (harness/fidelity/bare_loop.c): the queue in a
             bare loop, items only counted, no harness code
    inline   numaring-bench --item inline: the harness with the item in the pointer
    message  numaring-bench --item message: the harness with a message per item
             (send time, latency histogram, duplicate check)

and, where the harness's time goes, the inline run again with one of its own
per-item costs removed at a time (STRIPS; numaring-bench --strip, a diagnostic,
never a measurement of a queue): sampling (--sample 1048576: one item in 2^20
timed, so no clock read or histogram), publish (a producer's count stored once,
not per operation), window (a producer's phase, quota and window checks per
operation), accounting (a consumer's tallies and checksums: items only counted),
and all four at once. Each stripped run's speed over the plain run's of the
same round says what that cost takes; all four removed over the bare loop says
what is left (the adapter's indirect call, the harness's idle poll). --no-strip
leaves these runs out. --no-message leaves out the message runs, which have no
bare partner (the harness.fidelity claim pairs the inline runs with the bare
loop): make experiments' profile quick runs with both (scripts/runner/side.py),
what the claim reads and nothing more.

Rounds are interleaved (every case once per round, the rounds repeated) so the
machine's drift falls on all alike; each figure is the median of the rounds with
its min..max. Target (issue 11): harness (inline) / bare >= 0.8 for every queue
and mode. It is reported as measured, a miss included: this is a measurement,
not a test (exit 0). A run that fails: its command and stderr, exit 1. Bad
options: exit 2.

Results (scripts/runner/benchresult.py): besides the table, every run is written to
results/<host>/bench/bench-fidelity.csv (--results DIR replaces results/;
--no-save prints only), one row per run:

    bench,round,queue,bursts,item,where,stripped,throughput_ops_per_s

bench is bench-fidelity; round 1..--reps (the runs of one round ran seconds
apart: ratios within a round are paired); queue flat|numaring|rte; bursts 0
(single operations) or 1 (bursts of --burst); item inline|message for the
harness, empty for the bare loop; where harness|bare; stripped empty, or the
STRIPS name of a diagnostic run; throughput_ops_per_s items/s. Beside it bench-fidelity.meta.json (commit, command line, times,
options, CPU) and, once, results/<host>/env/. <host> is this machine's host
key, or <key>-r2 where that folder holds results this tree did not start
(scripts/runner/hostid.py). --csv PATH writes the older raw form
(round,queue,mode,kind,items_per_s) as well.
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
from ..common import looks, manifest

#: the queues the bare loop builds that numaring-bench runs too (harness/fidelity/bare_loop.c;
#: its xenium-vyukov, flat's algorithm in another library, has no harness partner)
QUEUES = ("flat", "numaring", "rte")
#: the bare loop, then numaring-bench with each --item
KINDS = ("bare",) + manifest.items()
TARGET = 0.8
#: the diagnostic runs of where the time goes: (name, numaring-bench's options)
#: with inline items; each removes one of the harness's own per-item costs
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


def run_bare(a, queue, burst):
    cmd = [a.bare, "--queue", queue, "--burst", str(burst), "--capacity", "1024",
           "--duration", str(a.duration), "--warmup", str(a.warmup)]
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
        if len(fields) != 3 or fields[0] != queue or int(fields[1]) != burst:
            raise ValueError
        v = float(fields[2])
        if not math.isfinite(v) or v <= 0:
            raise ValueError
    except ValueError:
        raise RunFailed(f"{' '.join(cmd)}\n  unexpected output {r.stdout.strip()!r} "
                        f"(expected {queue},{burst},items_per_s)")
    return v


def run_harness(a, queue, burst, item, outdir, extra=()):
    bursts = burst > 1
    # --batch: the burst size, and numaring's transfer batch; single operations
    # keep the harness's default 32, as the bare loop does.
    cmd = [a.bench, "--queue", queue, "--producers", "1", "--consumers", "1",
           "--item", item] + (["--bursts"] if bursts else []) + \
          ["--batch", str(burst if bursts else SINGLE_BATCH), "--capacity", "1024",
           "--duration", str(a.duration), "--warmup", str(a.warmup), "--out", outdir,
           "--quiet"] + list(extra)
    run_cmd(cmd, a.timeout)
    path = os.path.join(outdir, "summary.csv")
    try:
        with open(path, newline="") as f:
            v = float(next(csv.DictReader(f))["throughput_ops_per_s"])
        if not math.isfinite(v) or v <= 0:
            raise ValueError(f"throughput_ops_per_s is {v}")
    except (OSError, StopIteration, KeyError, ValueError) as e:
        raise RunFailed(f"{' '.join(cmd)}\n  cannot read throughput_ops_per_s from {path}: {e}")
    return v


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
    ap.add_argument("--csv", metavar="PATH", help="also write the raw numbers here "
                    "(round,queue,mode,kind,items_per_s)")
    ap.add_argument("--no-strip", action="store_true",
                    help="leave out the diagnostic runs of where the time goes (STRIPS)")
    ap.add_argument("--no-message", action="store_true",
                    help="leave out the harness runs with message items (no bare partner: "
                    "the harness.fidelity claim reads the inline runs)")
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
    result = benchresult.start("bench-fidelity", "bench-fidelity", a, a.bench)
    a.timeout = a.warmup + a.duration + 60

    modes = (("single", 1), (f"burst{a.burst}", a.burst))
    strips = () if a.no_strip else STRIPS
    kinds = tuple(k for k in KINDS if not (a.no_message and k == "message"))
    res = {(q, m, k): [] for q in QUEUES for m, _ in modes
           for k in KINDS + tuple(n for n, _ in strips)}
    rows = []
    results = []
    t_begin = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="bench_fidelity.") as tmp:
            for rnd in range(1, a.reps + 1):
                t0 = time.monotonic()
                for q in QUEUES:
                    for m, burst in modes:
                        for k in kinds:
                            if k == "bare":
                                v = run_bare(a, q, burst)
                            else:
                                v = run_harness(a, q, burst, k,
                                                os.path.join(tmp, f"{q}-{m}-{k}-{rnd}"))
                            res[(q, m, k)].append(v)
                            rows.append([rnd, q, m, k, f"{v:.0f}"])
                            results.append(dict(
                                bench="bench-fidelity", round=rnd, queue=q,
                                bursts=int(burst > 1), item=None if k == "bare" else k,
                                where="bare" if k == "bare" else "harness", stripped=None,
                                throughput_ops_per_s=v))
                        for name, extra in strips:
                            v = run_harness(a, q, burst, "inline",
                                            os.path.join(tmp, f"{q}-{m}-{name}-{rnd}"), extra)
                            res[(q, m, name)].append(v)
                            results.append(dict(
                                bench="bench-fidelity", round=rnd, queue=q,
                                bursts=int(burst > 1), item="inline", where="harness",
                                stripped=name, throughput_ops_per_s=v))
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

    med = {key: statistics.median(v) for key, v in res.items() if v}
    print(f"1 producer + 1 consumer, capacity 1024, {a.duration:g} s per run "
          f"after {a.warmup:g} s warm-up, median of {a.reps} interleaved rounds [min..max], "
          f"Mitems/s ({time.monotonic() - t_begin:.0f} s in all)")
    print(f"{'queue':9} {'mode':9} {'bare loop':>26} {'harness inline':>26} {'in/bare':>7} "
          f"{'harness message':>26} {'msg/bare':>8}")
    for q in QUEUES:
        for m, _ in modes:
            bare = med[(q, m, "bare")]
            msg = (f"{fmt_cell(res[(q, m, 'message')]):>26} {med[(q, m, 'message')] / bare:8.2f}"
                   if res[(q, m, "message")] else f"{'(--no-message)':>26} {'—':>8}")
            print(f"{q:9} {m:9} {fmt_cell(res[(q, m, 'bare')]):>26} "
                  f"{fmt_cell(res[(q, m, 'inline')]):>26} {med[(q, m, 'inline')] / bare:7.2f} "
                  + msg)
    print(f"\nharness (--item inline) / bare loop, medians (target >= {TARGET}):")
    for q in QUEUES:
        for m, _ in modes:
            r = med[(q, m, "inline")] / med[(q, m, "bare")]
            print(f"  {q:9} {m:9} harness/bare = {r:.2f} (target >= {TARGET})  "
                  f"{'met' if r >= TARGET else 'MISSED'}")
    if strips:
        print(f"\nwhere the time goes (inline): each cost removed alone, the stripped run over "
              f"the plain one, median of the rounds' paired ratios; 'all' over the bare loop "
              f"is what is left")
        print(f"{'queue':9} {'mode':9} {'in/bare':>7} "
              + " ".join(f"{n:>10}" for n, _ in strips) + f" {'all/bare':>8}")
        for q in QUEUES:
            for m, _ in modes:
                def paired(num, den):
                    return statistics.median(x / y for x, y in zip(res[(q, m, num)],
                                                                    res[(q, m, den)]))
                print(f"{q:9} {m:9} {paired('inline', 'bare'):7.2f} "
                      + " ".join(f"{paired(n, 'inline'):10.2f}" for n, _ in strips)
                      + f" {paired('all', 'bare'):8.2f}")
    if a.csv:
        print(f"\nraw numbers: {a.csv}")
    if result:
        print()
        result.report()


if __name__ == "__main__":
    main()
