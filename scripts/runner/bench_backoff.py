# SPDX-License-Identifier: BSD-2-Clause
"""bench_backoff.py - numaring's backoffs against none and against each other, where races are lost (make bench-backoff).

    python3 -m scripts.runner.bench_backoff [--bench build/numaring-bench]
        [--reps 10] [--duration 1] [--warmup 0.3] [--backoffs LIST]
        [--pause-spins LIST] [--cells LIST] [--results DIR] [--no-save]

The evidence a production default backoff is chosen from (issue 45: within 10%
of the best lab backoff in pairs and mixed, at most 5% below none in prodcons
and with local work), on the machine it runs on. numaring, single operations,
the production look-up (numaring-bench's default), capacity 1024, in each cell
(CELLS):

    pairs-w0, pairs-w300   2 threads, each enqueues then dequeues; no local
                           work, or up to 300 ns between operations
    mixed-w0, mixed-w300   2 threads, each operation an enqueue or a dequeue
    prodcons-w0            1 producer + 1 consumer, the producer paced 100 ns
                           per item as F4's prodcons (f4-backoff.exp)
    prodcons-w300          the same with 300 ns of work on both sides

each backoff of --backoffs (default: every one numaring-bench takes), and PAUSE
once per --pause-spins value (default: the production constant, written
"pause"; with several, "pause<N>"). A round runs every (cell, variant) once, in
an order shuffled by the round's number, so that drift and the hypervisor's
moves fall on all alike; each figure is the median of the rounds with its
min..max, each ratio the median of the rounds' paired ratios. A variant whose
runs lost no race (failed_attempts 0 in every run: prodcons at 1P1C, where no
two threads share a side) ran no backoff: the table says "not exercised", and
its ratio is noise. A cell's "best" is its variant with the highest median.
It is reported as measured (exit 0); a run that fails: its command and
stderr, exit 1; bad options: exit 2.

Results (scripts/runner/benchresult.py): results/<host>/bench/bench-backoff.csv
(--results DIR replaces results/; --no-save prints only), one row per run:

    bench,round,cell,backoff,pause_spin,throughput_ops_per_s,failed_attempts,
    backoff_ns_race

backoff is the variant's name; pause_spin the PAUSEs of a PAUSE backoff
(summary.csv's pause_spin, empty for the others); failed_attempts and
backoff_ns_race numaring's counters (numaring.h).
"""

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

from . import benchresult
from ..common import manifest
from ..common.tidy import read_summary

PROG = "bench-backoff"
#: the cells: (name, numaring-bench's options)
CELLS = (
    ("pairs-w0", ["--workload", "pairs", "--threads", "2"]),
    ("pairs-w300", ["--workload", "pairs", "--threads", "2", "--work", "300"]),
    ("mixed-w0", ["--workload", "mixed", "--threads", "2"]),
    ("mixed-w300", ["--workload", "mixed", "--threads", "2", "--work", "300"]),
    ("prodcons-w0", ["--producer-work", "100"]),
    ("prodcons-w300", ["--work", "300", "--producer-work", "400"]),
)
CELL_NAMES = tuple(c[0] for c in CELLS)


def name_list(what, allowed):
    def parse(text):
        out = [t.strip() for t in text.split(",")]
        bad = [t for t in out if t not in allowed]
        if bad or not out:
            raise argparse.ArgumentTypeError(
                f"{what}: {', '.join(repr(b) for b in bad) or 'none given'} not among "
                f"{', '.join(allowed)}")
        if len(set(out)) != len(out):
            raise argparse.ArgumentTypeError(f"{what}: a value is listed twice")
        return out
    return parse


def int_list(text):
    try:
        out = [int(t) for t in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of whole numbers")
    if any(not 1 <= v <= 65536 for v in out) or len(set(out)) != len(out):
        raise argparse.ArgumentTypeError(f"{text!r}: each in 1..65536, none twice")
    return out


def positive(kind, lo_ok):
    def parse(text):
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number")
        if v < 0 or (v == 0 and not lo_ok):
            raise argparse.ArgumentTypeError(f"{text!r} must be {'>= 0' if lo_ok else '> 0'}")
        return v
    return parse


def variants(a):
    """(name, numaring-bench's options) of each backoff measured."""
    out = []
    for b in a.backoffs:
        if b == "pause" and a.pause_spins:
            for n in a.pause_spins:
                name = "pause" if len(a.pause_spins) == 1 else f"pause{n}"
                out.append((name, ["--backoff", "pause", "--pause-spin", str(n)]))
        else:
            out.append((b, ["--backoff", b]))
    return out


def run(a, cell_opts, opts, outdir):
    cmd = [a.bench, "--queue", "numaring", "--capacity", "1024", "--duration", str(a.duration),
           "--warmup", str(a.warmup), "--out", outdir, "--quiet"] + cell_opts + opts
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=a.duration + a.warmup + 60)
    except (subprocess.TimeoutExpired, OSError) as e:
        benchresult.fail(PROG, f"{' '.join(cmd)}: {e}", 1)
    if r.returncode != 0:
        benchresult.fail(PROG, f"{' '.join(cmd)}\n  exit status {r.returncode}: "
                         f"{r.stderr.strip() or '(no message)'}", 1)
    try:
        row = read_summary(os.path.join(outdir, "summary.csv"))
        return (float(row["throughput_ops_per_s"]), int(row["failed_attempts"] or 0),
                int(row["backoff_ns_race"] or 0), row.get("pause_spin") or "")
    except (OSError, StopIteration, KeyError, ValueError) as e:
        benchresult.fail(PROG, f"{' '.join(cmd)}: cannot read its summary.csv: {e}", 1)


def main():
    ap = argparse.ArgumentParser(prog="python3 -m scripts.runner.bench_backoff",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default="build/numaring-bench", help="numaring-bench")
    ap.add_argument("--reps", type=positive(int, False), default=10,
                    help="interleaved rounds (default 10: issue 45's rule)")
    ap.add_argument("--duration", type=positive(float, False), default=1.0,
                    help="seconds measured per run (default 1)")
    ap.add_argument("--warmup", type=positive(float, True), default=0.3,
                    help="seconds of warm-up per run (default 0.3)")
    ap.add_argument("--backoffs", type=name_list("--backoffs", manifest.backoffs()),
                    default=list(manifest.backoffs()),
                    help=f"comma-separated, of {', '.join(manifest.backoffs())} (default: all)")
    ap.add_argument("--pause-spins", type=int_list, default=None,
                    help="PAUSEs of the PAUSE backoff, comma-separated, each its own variant "
                         "(default: the production constant)")
    ap.add_argument("--cells", type=name_list("--cells", CELL_NAMES), default=list(CELL_NAMES),
                    help=f"comma-separated, of {', '.join(CELL_NAMES)} (default: all)")
    benchresult.add_arguments(ap, PROG)
    a = ap.parse_args()
    if not os.access(a.bench, os.X_OK):
        benchresult.fail(PROG, f"{a.bench} is not built (make {a.bench})")
    if len(os.sched_getaffinity(0)) < 2:
        benchresult.fail(PROG, "needs 2 allowed CPUs (its cells run 2 threads)")
    result = benchresult.start(PROG, PROG, a, a.bench)
    cells = [c for c in CELLS if c[0] in a.cells]
    vs = variants(a)
    res, rows = {}, []
    t_begin = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench_backoff.") as tmp:
        for rnd in range(1, a.reps + 1):
            t0 = time.monotonic()
            order = [(c, v) for c in cells for v in vs]
            random.Random(rnd).shuffle(order)
            for (cell, copts), (vname, vopts) in order:
                out = os.path.join(tmp, f"{cell}-{vname}-{rnd}")
                tp, failed, bo_ns, spin = run(a, copts, vopts, out)
                res.setdefault((cell, vname), []).append((tp, failed))
                rows.append(dict(bench=PROG, round=rnd, cell=cell, backoff=vname,
                                 pause_spin=spin if vopts[1] == "pause" else "",
                                 throughput_ops_per_s=tp, failed_attempts=failed,
                                 backoff_ns_race=bo_ns))
            took = time.monotonic() - t0
            print(f"{PROG}: round {rnd}/{a.reps} done ({took:.0f} s"
                  + (f", about {took * (a.reps - rnd):.0f} s left)" if rnd < a.reps else ")"),
                  file=sys.stderr, flush=True)
    if result:
        result.save(rows)

    def ratio(cell, num, den):
        r = [x[0] / y[0] for x, y in zip(res[(cell, num)], res[(cell, den)])]
        return statistics.median(r), min(r), max(r)
    print(f"numaring, single operations, capacity 1024, {a.duration:g} s per run after "
          f"{a.warmup:g} s, median of {a.reps} rounds in shuffled order [min..max] "
          f"({time.monotonic() - t_begin:.0f} s in all)")
    print(f"{'cell':14} {'backoff':9} {'Mops/s':>8} {'/ none':>20} {'/ best':>6}  lost races a run")
    for cell, _ in cells:
        meds = {v: statistics.median(x[0] for x in res[(cell, v)]) for v, _ in vs}
        best = max(meds, key=meds.get)
        for v, _ in vs:
            runs = res[(cell, v)]
            failed = statistics.median(x[1] for x in runs)
            vs_none = ("" if "none" not in meds else
                       "{:.2f} [{:.2f}..{:.2f}]".format(*ratio(cell, v, "none")))
            said = ("not exercised (no race lost)" if all(x[1] == 0 for x in runs)
                    else f"{failed:.3g}")
            print(f"{cell:14} {v:9} {meds[v] / 1e6:8.2f} {vs_none:>20} "
                  f"{ratio(cell, v, best)[0]:6.2f}  {said}{'  <- best' if v == best else ''}")
    if result:
        print()
        result.report()


if __name__ == "__main__":
    main()
