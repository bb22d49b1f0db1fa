#!/usr/bin/python3
"""bench_peers.py - NumaRing against every peer queue at 1 producer + 1 consumer,
single operations and bursts, in one invocation (make bench-peers).

    bench_peers.py [--bench build/numaring-bench] [--duration 1] [--reps 3] [--burst 32]

Rounds are interleaved (every queue once per round) so the machine's drift falls
on all alike; each figure is the median of the rounds with its min..max.
Targets (issue "harness"): numaring >= 0.95x the best single-ring peer with
single operations, >= 1.0x rte_ring with bursts. They are reported as measured,
a miss included; this is a measurement, not a test.
"""

import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile

QUEUES = ("numaring", "flat", "ck", "rte", "moodycamel", "urcu", "mutex", "faa")


def run(bench, queue, bursts, burst, duration, outdir):
    cmd = [bench, "--queue", queue, "--producers", "1", "--consumers", "1",
           "--duration", str(duration), "--warmup", "0.3", "--batch", str(burst),
           "--out", outdir, "--quiet"] + (["--bursts"] if bursts else [])
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"bench-peers: {' '.join(cmd)} failed: {r.stderr.strip()}", file=sys.stderr)
        sys.exit(1)
    with open(os.path.join(outdir, "summary.csv"), newline="") as f:
        return float(next(csv.DictReader(f))["throughput_ops_per_s"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default="build/numaring-bench")
    ap.add_argument("--duration", type=float, default=1.0)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--burst", type=int, default=32)
    a = ap.parse_args()
    if not os.access(a.bench, os.X_OK):
        print(f"bench-peers: {a.bench} is not built (make bench)", file=sys.stderr)
        sys.exit(2)
    if a.reps < 1 or a.duration <= 0 or a.burst < 1:
        print("bench-peers: --reps, --duration and --burst must be positive", file=sys.stderr)
        sys.exit(2)
    res = {(q, b): [] for q in QUEUES for b in (0, 1)}
    with tempfile.TemporaryDirectory() as tmp:
        for rnd in range(a.reps):
            for b in (0, 1):
                for q in QUEUES:
                    res[(q, b)].append(run(a.bench, q, b, a.burst, a.duration,
                                           os.path.join(tmp, f"{q}-{b}-{rnd}")))
            print(f"bench-peers: round {rnd + 1}/{a.reps} done", file=sys.stderr)
    med = {k: statistics.median(v) for k, v in res.items()}
    print(f"1 producer + 1 consumer, {a.duration:g} s per run, median of {a.reps} interleaved "
          f"rounds [min..max], Mitems/s")
    print(f"{'queue':12} {'single operations':>28} {'bursts of ' + str(a.burst):>28}")
    for q in QUEUES:
        cells = []
        for b in (0, 1):
            v = res[(q, b)]
            cells.append(f"{med[(q, b)] / 1e6:9.2f} [{min(v) / 1e6:6.2f}..{max(v) / 1e6:6.2f}]")
        print(f"{q:12} {cells[0]:>28} {cells[1]:>28}")
    singles = {q: med[(q, 0)] for q in QUEUES if q not in ("numaring", "faa")}
    best = max(singles, key=singles.get)
    r1 = med[("numaring", 0)] / singles[best]
    r2 = med[("numaring", 1)] / med[("rte", 1)]
    print(f"\nnumaring / best single-ring peer ({best}), single operations: {r1:.2f}x "
          f"(target >= 0.95)  {'met' if r1 >= 0.95 else 'MISSED'}")
    print(f"numaring / rte_ring, bursts of {a.burst}: {r2:.2f}x (target >= 1.0)  "
          f"{'met' if r2 >= 1.0 else 'MISSED'}")


if __name__ == "__main__":
    main()
