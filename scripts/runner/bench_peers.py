# SPDX-License-Identifier: BSD-2-Clause
"""bench_peers.py - NumaRing against every peer queue, single operations and
bursts, at 1 producer + 1 consumer and at 2 + 2, in one invocation
(make bench-peers).

    python3 -m scripts.runner.bench_peers [--bench build/numaring-bench] [--duration 1] [--reps 6]
        [--burst 32] [--item inline|message] [--shapes 1x1,2x2] [--queues Q1,Q2,...]
        [--accounting auto|scalar|vector|avx2] [--bare build/bench/bare_loop
        [--bare-queues Q1,Q2,...]] [--results DIR] [--no-save]

Rounds are interleaved (every queue and shape once per round) so the
machine's drift falls on all alike; each figure is the median of the rounds
with its min..max, and each ratio is the median of the per-round ratios
(both queues of a ratio ran in the same round, seconds apart) with its
min..max. Items are inline values by default (--item), so the figures are
the queues' and not the harness's (make bench-fidelity says how close); a
queue that does not take the kind (the manifest's items: xenium's ramalhete
and k-FIFO queues take message items only) is left out, and the output says
so. --queues runs only the queues it names (each must take --item's kind):
make experiments' profile quick runs TARGET_QUEUES alone, the queues its claims
compare (scripts/runner/side.py).

Consumers account for each burst as wide as the CPU allows (--accounting,
numaring-bench's option; harness/item_sum.h): with one value at a time
(--accounting scalar) the harness's consumer was the slower side of the two
Vyukov rings' bursts, which then ran full. The retries line says which side
set the pace: producers' retries on a full queue per burst.

Targets (issue "ring v2"): at 1P1C, numaring / rte_ring with bursts >= 1.2x
and numaring / flat with single operations >= 1.0x; the same two ratios at
2P2C are reported. A miss is reported as it is: this is a measurement, not a
test. With more threads than CPUs (2P2C on 2 CPUs) the figures measure the
scheduler as much as the queues; the output says so.

With --bare (make bench-peers passes build/bench/bare_loop), every round also
runs flat, numaring and rte at 1P1C in the bare loop of make bench-fidelity
(harness/fidelity/bare_loop.c: the queue alone, items only counted, no
harness code), and the two target ratios are printed for the queues alone as
well, with each queue's harness/bare fidelity. The same rounds run xenium's
vyukov_bounded_queue in the bare loop with single operations (xenium-vyukov:
flat's algorithm in another library, no peer of numaring-bench), and the
ratio flat / xenium-vyukov checks flat's own speed. Where the harness's own
per-item cost is of the order of the queue's (harness ceiling of a few ns
per item), the harness figure understates a fast queue: the fidelity line
says by how much. The targets are judged on the harness figures, as the
issue defines them; the bare figures are reported beside them, labelled.
--bare-queues runs only the bare loop's queues it names (BARE_QUEUES and
xenium-vyukov; default all): make experiments' profile quick runs TARGET_BARE,
the bare partners its claim reads (numaring against rte with bursts). A ratio
or line whose queues did not run says so instead of a number.

Results (scripts/runner/benchresult.py): besides the table, every run is written to
results/<host>/bench/bench-peers.csv (--results DIR replaces results/;
--no-save prints only), one row per run:

    bench,round,queue,shape,bursts,item,where,accounting,duration_s,
    throughput_ops_per_s,full_retries_per_burst

bench is bench-peers; round 1..--reps (the runs of one round ran seconds
apart: ratios within a round are paired); shape PxC (1x1); bursts 0 (single
operations) or 1 (bursts of --burst); item inline|message; where harness
(numaring-bench) or bare (--bare's loop: 1x1, item and accounting empty);
accounting as --accounting; duration_s as --duration; throughput_ops_per_s
items/s; full_retries_per_burst producers' retries on a full queue per
enqueue operation (per burst, or per item with bursts 0; empty for bare).
Beside it bench-peers.meta.json (commit, command line, times, options, CPU)
and, once, results/<host>/env/. <host> is this machine's host key, or
<key>-r2 where that folder holds results this tree did not start
(scripts/runner/hostid.py).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

from . import bench_fidelity
from .bench_fidelity import fmt_cell
from . import benchresult
from ..common import looks, manifest
from ..common.tidy import read_summary

#: every queue of numaring-bench but the null queue (the harness alone)
QUEUES = manifest.queues(fabricates=False)

#: the queues the claims on this benchmark compare (scripts/analysis/claims_table.py
#: m_bench_peers: numaring against rte with bursts and against flat with single
#: operations, 1P1C): all that make experiments' profile quick runs (--queues)
TARGET_QUEUES = ("numaring", "flat", "rte")
#: the bare loop's queues the claims read (ring.bench-bursts-rte-bare: numaring
#: against rte with bursts): all that profile quick runs there (--bare-queues)
TARGET_BARE = ("numaring", "rte")


def queues_for(item):
    """The QUEUES a run of `item` items measures: those that take that kind
    (the manifest's items: xenium's ramalhete and k-FIFO queues take message
    items only) and those whose items do not travel (faa: numaring-bench runs
    it alike whatever --item says)."""
    return tuple(q for q in QUEUES
                 if item in manifest.queue(q)["items"] or not manifest.queue(q)["moves_data"])


def fail(msg, code=2):
    benchresult.fail("bench-peers", msg, code)


def run(bench, queue, shape, bursts, burst, item, duration, outdir, accounting="auto"):
    """(items/s, producers' retries on a full queue per enqueue operation) of one run."""
    p, c = shape
    cmd = [bench, "--queue", queue, "--producers", str(p), "--consumers", str(c),
           "--duration", str(duration), "--warmup", "0.3", "--batch", str(burst),
           "--item", item, "--calibrate", "0", "--out", outdir, "--quiet",
           "--accounting", accounting]
    cmd += ["--bursts"] if bursts else []
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)} failed: {r.stderr.strip()}", 1)
    row = read_summary(os.path.join(outdir, "summary.csv"))
    ops = float(row["enqueued"]) / (burst if bursts else 1)
    return float(row["throughput_ops_per_s"]), float(row["full_retries"]) / ops if ops > 0 else 0.0


#: the queues the bare loop builds (bench_fidelity's)
BARE_QUEUES = bench_fidelity.QUEUES

#: the bare loop's check of flat's speed: xenium's vyukov_bounded_queue, flat's
#: algorithm in another library (no numaring-bench peer; single operations only)
FLAT_CHECK = "xenium-vyukov"


def run_bare(bare, queue, bursts, burst, duration):
    """items/s of `queue` at 1P1C in the bare loop (single operations or bursts)."""
    return benchresult.bare_rate("bench-peers", [bare, "--queue", queue, "--burst",
                                                 str(burst if bursts else 1), "--duration",
                                                 str(duration), "--warmup", "0.3"])


def parse_names(opt, text, known, what):
    """The names of a comma list, in the order of `known`; one message and
    exit 2 for an empty or unknown name or one named twice."""
    names = [n.strip() for n in text.split(",")]
    for n in names:
        if not n:
            fail(f"{opt} {text!r}: an empty name (a comma list, for example "
                 f"{','.join(known[:2])})")
        if n not in known:
            fail(f"{opt}: unknown {what} {n!r} (known: {', '.join(known)})")
        if names.count(n) > 1:
            fail(f"{opt}: {n} named twice")
    return tuple(q for q in known if q in names)


def parse_queues(text, item):
    """--queues: the named queues in QUEUES' order, each taking `item` items."""
    chosen = parse_names("--queues", text, QUEUES, "queue")
    takes = queues_for(item)
    for q in chosen:
        if q not in takes:
            fail(f"--queues: {q} does not take {item} items (the manifest's items: "
                 f"{', '.join(manifest.queue(q)['items'])}); --item "
                 f"{manifest.queue(q)['items'][0]} runs it")
    return chosen


def parse_shapes(text):
    out = []
    for part in text.split(","):
        try:
            p, c = (int(x) for x in part.strip().split("x"))
        except ValueError:
            fail(f"--shapes: {part!r} is not PxC (for example 1x1,2x2)")
        if not (1 <= p <= 64 and 1 <= c <= 64):
            fail(f"--shapes: {part!r}: 1 to 64 producers and consumers")
        out.append((p, c))
    return out


def main():
    ap = argparse.ArgumentParser(
        prog="python3 -m scripts.runner.bench_peers", description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default="build/numaring-bench")
    ap.add_argument("--duration", type=float, default=1.0)
    ap.add_argument("--reps", type=int, default=looks.LOOKS[0],
                    help=f"interleaved rounds (default {looks.LOOKS[0]}: the fewest pairs a claim "
                    "decides on)")
    ap.add_argument("--burst", type=int, default=32)
    ap.add_argument("--item", choices=manifest.items(), default="inline")
    ap.add_argument("--shapes", default="1x1,2x2",
                    help="producers x consumers, a comma list (default 1x1,2x2; the claims "
                    "read 1x1)")
    ap.add_argument("--queues", metavar="Q1,Q2,...",
                    help="only these queues, each taking --item's kind (default: every queue "
                    "that takes it); the claims compare " + ",".join(TARGET_QUEUES))
    ap.add_argument("--accounting", choices=manifest.accountings(), default="auto",
                    help="numaring-bench --accounting: how wide consumers account for a burst")
    ap.add_argument("--bare", default=None,
                    help="bare_loop binary: also measure flat, numaring, rte alone at 1P1C, "
                    f"and {FLAT_CHECK} (flat's check) with single operations")
    ap.add_argument("--bare-queues", metavar="Q1,Q2,...",
                    help="with --bare: only these of the bare loop's queues ("
                    + ", ".join(BARE_QUEUES + (FLAT_CHECK,)) + "; default all); the claims "
                    "read " + ",".join(TARGET_BARE) + " with bursts")
    benchresult.add_arguments(ap, "bench-peers")
    a = ap.parse_args()
    if not os.access(a.bench, os.X_OK):
        fail(f"{a.bench} is not built (make bench)")
    if a.reps < 1 or a.duration <= 0 or a.burst < 1:
        fail("--reps, --duration and --burst must be positive")
    if a.bare is not None and not os.access(a.bare, os.X_OK):
        fail(f"--bare {a.bare} is not built (make {a.bare})")
    if a.bare_queues is not None and a.bare is None:
        fail("--bare-queues needs --bare (the bare loop to run them in)")
    shapes = parse_shapes(a.shapes)
    queues = queues_for(a.item) if a.queues is None else parse_queues(a.queues, a.item)
    bare_queues = (BARE_QUEUES + (FLAT_CHECK,) if a.bare_queues is None else
                   parse_names("--bare-queues", a.bare_queues, BARE_QUEUES + (FLAT_CHECK,),
                               "bare loop queue"))
    result = benchresult.start("bench-peers", "bench-peers", a, a.bench)
    rows = []
    bare = {(q, b): [] for b in (0, 1) for q in BARE_QUEUES if q in bare_queues}
    if FLAT_CHECK in bare_queues:
        bare[(FLAT_CHECK, 0)] = []
    res = {(s, q, b): [] for s in shapes for q in queues for b in (0, 1)}
    full = {(s, q, b): [] for s in shapes for q in queues for b in (0, 1)}
    with tempfile.TemporaryDirectory() as tmp:
        for rnd in range(a.reps):
            for s in shapes:
                for b in (0, 1):
                    for q in queues:
                        rate, retries = run(a.bench, q, s, b, a.burst, a.item, a.duration,
                                            os.path.join(tmp, f"{q}-{b}-{rnd}"), a.accounting)
                        res[(s, q, b)].append(rate)
                        full[(s, q, b)].append(retries)
                        rows.append(dict(bench="bench-peers", round=rnd + 1, queue=q,
                                         shape=f"{s[0]}x{s[1]}", bursts=b, item=a.item,
                                         where="harness", accounting=a.accounting,
                                         duration_s=a.duration, throughput_ops_per_s=rate,
                                         full_retries_per_burst=retries))
            if a.bare:
                for q, b in bare:  # flat's check last: single operations only
                    rate = run_bare(a.bare, q, b, a.burst, a.duration)
                    bare[(q, b)].append(rate)
                    rows.append(dict(bench="bench-peers", round=rnd + 1, queue=q,
                                     shape="1x1", bursts=b, item=None, where="bare",
                                     accounting=None, duration_s=a.duration,
                                     throughput_ops_per_s=rate,
                                     full_retries_per_burst=None))
            print(f"bench-peers: round {rnd + 1}/{a.reps} done", file=sys.stderr)
    if result:
        result.save(rows)
    ncpu = len(os.sched_getaffinity(0))
    print(f"{a.item} items (accounting: {a.accounting}), {a.duration:g} s per run, median of "
          f"{a.reps} interleaved rounds [min..max], Mitems/s; {ncpu} CPUs")
    left = [q for q in QUEUES if q not in queues_for(a.item)]
    unasked = [q for q in queues_for(a.item) if q not in queues]
    if unasked:
        print(f"not run (--queues): {', '.join(unasked)}")
    if left:
        theirs = " or ".join(sorted({manifest.queue(q)["items"][0] for q in left}))
        print(f"left out: {', '.join(left)}: they do not take {a.item} items (the manifest's "
              f"items); --item {theirs} runs them")
    for s in shapes:
        p, c = s
        over = " (more threads than CPUs: the scheduler is measured too)" if p + c > ncpu else ""
        print(f"\n{p}P{c}C{over}")
        print(f"{'queue':16} {'single operations':>28} {'bursts of ' + str(a.burst):>28}")
        for q in queues:
            print(f"{q:16} {fmt_cell(res[(s, q, 0)]):>28} {fmt_cell(res[(s, q, 1)]):>28}")
    print()
    for s in shapes:
        p, c = s
        for (num, den, b, target) in (("numaring", "rte", 1, 1.2), ("numaring", "flat", 0, 1.0)):
            what = f"bursts of {a.burst}" if b else "single operations"
            absent = [q for q in (num, den) if q not in queues]
            if absent:
                print(f"{p}P{c}C {num} / {den}, {what}: not measured ({', '.join(absent)} "
                      "not in --queues)")
                continue
            ratios = [x / y for x, y in zip(res[(s, num, b)], res[(s, den, b)]) if y > 0]
            if not ratios:
                print(f"{p}P{c}C {num} / {den}, {what}: not computed ({den} moved nothing)")
                continue
            med = statistics.median(ratios)
            verdict = ""
            if s == (1, 1):
                verdict = f" (target >= {target:g})  {'met' if med >= target else 'MISSED'}"
            slow = [q for q in (num, den) if statistics.median(res[(s, q, b)]) < 1e6]
            if slow and p + c > len(os.sched_getaffinity(0)):
                verdict += (f"  ({', '.join(slow)} below 1 Mitems/s: a convoy with more "
                            "threads than CPUs; the ratio says nothing of the queues)")
            print(f"{p}P{c}C {num} / {den}, {what}: {med:.2f}x [{min(ratios):.2f}..{max(ratios):.2f}]"
                  f"{verdict}")
    paced = [q for q in TARGET_QUEUES if q in queues]
    if (1, 1) in shapes and paced:
        # Which side was the slower: a producer that finds the queue full
        # retries; many retries per burst mean the consumer set the pace.
        print(f"\n1P1C bursts of {a.burst}, producers' retries on a full queue per burst "
              "(median; above ~0.1 the consumer set the pace):")
        print("  " + ", ".join(f"{q} {statistics.median(full[((1, 1), q, 1)]):.3f}"
                               for q in paced))
    if a.bare:
        print(f"\nThe queues alone at 1P1C (bare loop: {a.bare}, no harness code), same rounds")
        print(f"{'queue':14} {'single operations':>28} {'bursts of ' + str(a.burst):>28}")
        for q in BARE_QUEUES:
            if (q, 0) in bare:
                print(f"{q:14} {fmt_cell(bare[(q, 0)]):>28} {fmt_cell(bare[(q, 1)]):>28}")
        if (FLAT_CHECK, 0) in bare:
            print(f"{FLAT_CHECK:14} {fmt_cell(bare[(FLAT_CHECK, 0)]):>28} {'(no bursts)':>28}")
        unasked = [q for q in BARE_QUEUES + (FLAT_CHECK,) if q not in bare_queues]
        if unasked:
            print(f"not run in the bare loop (--bare-queues): {', '.join(unasked)}")
        for (num, den, b, target) in (("numaring", "rte", 1, 1.2), ("numaring", "flat", 0, 1.0)):
            what = f"bursts of {a.burst}" if b else "single operations"
            absent = [q for q in (num, den) if (q, b) not in bare]
            if absent:
                print(f"bare 1P1C {num} / {den}, {what}: not measured ({', '.join(absent)} "
                      "not in --bare-queues)")
                continue
            ratios = [x / y for x, y in zip(bare[(num, b)], bare[(den, b)]) if y > 0]
            print(f"bare 1P1C {num} / {den}, {what}: {statistics.median(ratios):.2f}x "
                  f"[{min(ratios):.2f}..{max(ratios):.2f}] (the queues alone; target {target:g} "
                  f"is judged on the harness line above)")
        check = ([x / y for x, y in zip(bare[("flat", 0)], bare[(FLAT_CHECK, 0)]) if y > 0]
                 if ("flat", 0) in bare and (FLAT_CHECK, 0) in bare else [])
        if check:
            print(f"bare 1P1C flat / {FLAT_CHECK}, single operations: "
                  f"{statistics.median(check):.2f}x [{min(check):.2f}..{max(check):.2f}] "
                  "(the same algorithm in xenium: a check of flat's speed, not a target)")
        one = (1, 1)
        if one in shapes:
            for q in BARE_QUEUES:
                if (q, 0) not in bare or q not in queues:
                    continue
                for b in (0, 1):
                    fid = [h / x for h, x in zip(res[(one, q, b)], bare[(q, b)]) if x > 0]
                    what = f"bursts of {a.burst}" if b else "single operations"
                    print(f"fidelity 1P1C {q} {what}: harness / bare = {statistics.median(fid):.2f} "
                          f"[{min(fid):.2f}..{max(fid):.2f}]")
    if result:
        print()
        result.report()


if __name__ == "__main__":
    main()
