# SPDX-License-Identifier: BSD-2-Clause
"""bench_placement.py - how the ring's speed depends on where its cells lie (make bench-placement).

    python3 -m scripts.runner.bench_placement [--bare build/bench/bare_loop] [--cells-at 0,128,...]
        [--burst 32] [--reps 5] [--duration 0.5] [--warmup 0.2]
        [--results DIR] [--no-save] [--bench build/numaring-bench]

Runs the flat ring (NumaRing's per-node ring alone) at 1 producer + 1 consumer
in bench-fidelity's bare loop (harness/fidelity/bare_loop.c: no harness code)
with its cells starting at each --cells-at offset past a page boundary
(numaring_flat_create_placed of numaring_lab.h), in interleaved rounds so the
machine's drift falls on every placement alike, and prints each placement's
median with its min..max and its ratio to the best median. 384 is where
numaring_create and numaring_flat_create put the cells (the start of a
page-aligned mapping plus the ring's 384-byte header).

Why: on the development machine (2 CPUs, Ice Lake server under KVM) bursts of
32 (512 bytes of 16-byte cells) ran up to a quarter faster with the cells 128
bytes past a 512-byte boundary than 384 past, in the ring alone and in the
harness alike, and bursts of 24, 40 or 64 did not show it (README,
bench-peers). The cause in the hardware is not identified; this measures it on
any host. A measurement, not a test: exit 0 whatever the spread; a run that
fails: its command and stderr, exit 1; bad options: exit 2.

Results (scripts/runner/benchresult.py): besides the table, every run is written to
results/<host>/bench/bench-placement.csv (--results DIR replaces results/;
--no-save prints only), one row per run:

    bench,round,cells_at,throughput_ops_per_s

bench is bench-placement; round 1..--reps (the runs of one round ran seconds
apart: ratios within a round are paired); cells_at the offset in bytes past a
page boundary; throughput_ops_per_s items/s. Beside it
bench-placement.meta.json (commit, command line, times, options with
--burst, CPU) and, once, results/<host>/env/ (--bench shows the topology
there). <host> is this machine's host key, or <key>-r2 where that folder
holds results this tree did not start (scripts/runner/hostid.py).
"""

import argparse
import os
import statistics
import sys

from . import benchresult

DEFAULT_CELLS_AT = "0,128,256,384,512,640,768,896"
NUMARING_CELLS_AT = 384


def parse_cells_at(text):
    out = []
    for part in text.split(","):
        try:
            v = int(part.strip())
        except ValueError:
            raise SystemExit(f"bench-placement: --cells-at: {part!r} is not a whole number")
        if v < 0 or v % 128 or v >= os.sysconf("SC_PAGESIZE"):
            raise SystemExit(f"bench-placement: --cells-at: {v} is not a multiple of 128 "
                             f"below the page size")
        out.append(v)
    if len(set(out)) != len(out):
        raise SystemExit("bench-placement: --cells-at: a placement is listed twice")
    return out


def run(bare, cells_at, burst, duration, warmup):
    return benchresult.bare_rate("bench-placement", [
        bare, "--queue", "flat", "--burst", str(burst), "--cells-at", str(cells_at),
        "--duration", str(duration), "--warmup", str(warmup)])


def main():
    ap = argparse.ArgumentParser(
        prog="python3 -m scripts.runner.bench_placement", description=__doc__.split("\n")[0])
    ap.add_argument("--bare", default="build/bench/bare_loop")
    ap.add_argument("--cells-at", default=DEFAULT_CELLS_AT,
                    help="comma-separated offsets past a page boundary, multiples of 128")
    ap.add_argument("--burst", type=int, default=32)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--duration", type=float, default=0.5)
    ap.add_argument("--warmup", type=float, default=0.2)
    ap.add_argument("--bench", default="build/numaring-bench",
                    help="numaring-bench, only for the environment's --show-topology")
    benchresult.add_arguments(ap, "bench-placement")
    a = ap.parse_args()
    if not os.access(a.bare, os.X_OK):
        benchresult.fail("bench-placement", f"{a.bare} is not built (make {a.bare})")
    if a.reps < 1 or a.duration <= 0 or a.warmup < 0 or not 1 <= a.burst <= 4096:
        benchresult.fail("bench-placement", "--reps and --duration must be positive, --warmup "
                         "not negative, --burst in 1..4096")
    places = parse_cells_at(a.cells_at)
    result = benchresult.start("bench-placement", "bench-placement", a, a.bench)
    res = {p: [] for p in places}
    rows = []
    for rnd in range(a.reps):
        for p in places:
            v = run(a.bare, p, a.burst, a.duration, a.warmup)
            res[p].append(v)
            rows.append(dict(bench="bench-placement", round=rnd + 1, cells_at=p,
                             throughput_ops_per_s=v))
        print(f"bench-placement: round {rnd + 1}/{a.reps} done", file=sys.stderr)
    if result:
        result.save(rows)
    best = max(statistics.median(v) for v in res.values())
    ncpu = len(os.sched_getaffinity(0))
    print(f"flat ring alone (bare loop), 1P1C, bursts of {a.burst}, {a.duration:g} s per run, "
          f"median of {a.reps} interleaved rounds [min..max], Mitems/s; {ncpu} CPUs")
    print(f"{'cells at':>9} {'mod 512':>8} {'Mitems/s':>30} {'/ best':>7}")
    for p in places:
        v = res[p]
        med = statistics.median(v)
        mark = "  <- numaring's placement" if p == NUMARING_CELLS_AT else ""
        print(f"{p:9d} {p % 512:8d} {med / 1e6:10.2f} [{min(v) / 1e6:7.2f}..{max(v) / 1e6:7.2f}]"
              f" {med / best:7.2f}{mark}")
    if result:
        print()
        result.report()


if __name__ == "__main__":
    main()
