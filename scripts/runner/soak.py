# SPDX-License-Identifier: BSD-2-Clause
"""soak.py - hours of mixed load with --verify (make soak DURATION=...; not in CI).

    python3 -m scripts.runner.soak --duration 3h [--bench build/numaring-bench] [--segment 60] [--log FILE]

Runs numaring-bench again and again, each run a random configuration (queue,
workload: prodcons, pairs or mixed, in turn; threads up to 4x the CPUs, so that many
runs are oversubscribed, as numaring-bench flags them; lookup, gate, backoff,
batch, tiny to large capacity, bursts, local work with a floor, open or closed
loop, the queue's memory under every --queue-mem policy, the machine's nodes or
two emulated ones for every queue) for --segment
seconds, always with --verify. While a run goes, its resident memory is sampled every
second; after the first quarter of the run it must not grow by more than 10%
(the harness and the queue allocate nothing per item). Any failed run, lost or
duplicated item, an item out of the order its queue states (numaring-bench's
order check on every item: harness/item.h), or growing memory ends the soak with
exit 1 and the command to reproduce it. Each run's line says its order check:
enforced (the queue keeps each producer's order there) or counted (numaring and
the sharded queue across nodes), with its inversions per million items. At the
end: runs, items moved, the runs of each workload, the oversubscribed runs, the
runs of each --queue-mem policy, the
runs whose order was enforced and counted (the most inversions counted), and
the largest RSS growth.
"""

import argparse
import contextlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

from ..common import manifest
from ..common.tidy import read_summary
from . import collect

#: the queues a soak draws from: every queue whose items travel (the others
#: have nothing to verify), numaring weighted 5 to 1
SOAK_QUEUES = ["numaring"] * 4 + list(manifest.queues(moves_data=True))
#: the placements of a two-node run (none would leave it to the scheduler);
#: split has no sides in a symmetric workload
SOAK_PINS = [p for p in manifest.pins() if p != "none"]
SOAK_SYMMETRIC_PINS = [p for p in SOAK_PINS if p != "split"]
#: threads drawn up to this many times the CPUs (the rings broke before when
#: threads outnumbered CPUs)
OVERSUBSCRIBE = 4


def seconds(text):
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([smhd]?)\s*", text)
    if not m:
        raise argparse.ArgumentTypeError(f"expected a duration such as 90, 10m, 3h, not {text!r}")
    v = float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]
    if v <= 0:
        raise argparse.ArgumentTypeError("the duration must be above 0")
    return v


def rss_kib(pid):
    with contextlib.suppress(OSError), open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return None


def machine_nodes():
    """The machine's nodes with CPUs (1 where sysfs does not say)."""
    n = 0
    with contextlib.suppress(OSError):
        for d in os.listdir("/sys/devices/system/node"):
            if re.fullmatch(r"node[0-9]+", d):
                with open(f"/sys/devices/system/node/{d}/cpulist") as f:
                    n += bool(f.read().strip())
    return max(n, 1)


def random_config(rng, ncpus, real_nodes=1, workload=None):
    """One run's numaring-bench options, drawn; workload: the one to run (None:
    drawn too)."""
    queue = rng.choice(SOAK_QUEUES)
    workload = workload or rng.choice(manifest.workloads())
    most = OVERSUBSCRIBE * max(ncpus, 1)
    args = ["--queue", queue, "--workload", workload]
    if workload in manifest.symmetric_workloads():
        args += ["--threads", str(rng.randint(2, most))]
    else:
        args += ["--producers", str(rng.randint(1, most // 2)),
                 "--consumers", str(rng.randint(1, most // 2))]
    cap = rng.choice([2, 8, 64, 1024])
    if queue == "scq":
        # SCQ refuses more threads than its capacity (the paper's k <= n for
        # its threshold, harness/peers/scq.c "Threads"): the capacity is
        # raised to fit
        threads = int(args[args.index("--threads") + 1]) if "--threads" in args else \
            int(args[args.index("--producers") + 1]) + int(args[args.index("--consumers") + 1])
        while cap < threads:
            cap *= 2
    batch = rng.choice([b for b in (1, 2, 8, 32) if b <= cap])
    nodes = real_nodes
    if ncpus >= 2 and rng.random() < 0.5:
        cpus = sorted(os.sched_getaffinity(0))
        half = len(cpus) // 2
        nodes = 2
        pins = SOAK_SYMMETRIC_PINS if workload in manifest.symmetric_workloads() else SOAK_PINS
        args += ["--topology", ",".join(map(str, cpus[:half])) + ";" +
                 ",".join(map(str, cpus[half:])), "--pin", rng.choice(pins)]
    # a queue of per-node rings splits --capacity among them: where the share
    # would be below the batch, each ring gets the capacity instead
    per_node = (manifest.queue(queue).get("capacity_kind") == "split"
                and cap // nodes < max(2, batch))
    args += ["--capacity-per-node" if per_node else "--capacity", str(cap),
             "--batch", str(batch), "--warmup", "0"]
    # numaring-bench's default item (the first kind) where the queue takes
    # it; a queue that takes pointers only runs with the kind it takes
    items = manifest.queue(queue)["items"]
    if manifest.items()[0] not in items:
        args += ["--item", items[0]]
    # where the queue's memory goes: every policy, node:N on a node of the
    # machine (on emulated nodes the run places nothing and says so)
    mem = rng.choice(manifest.queue_mems())
    if mem == "node:N":
        mem = "node:%d" % rng.randrange(real_nodes)
    args += ["--queue-mem", mem]
    if queue == "numaring":
        args += ["--lookup", rng.choice(manifest.lookups()),
                 "--gate", rng.choice(manifest.gates()),
                 "--backoff", rng.choice(manifest.backoffs())]
    if rng.random() < 0.3:
        args += ["--bursts"]
    if rng.random() < 0.2:
        args += ["--work", rng.choice(["0-100", "50-150", "200"])]
    if rng.random() < 0.3:
        args += ["--rate", str(rng.choice([100000, 1000000, 5000000]))]
    return args


def main():
    ap = argparse.ArgumentParser(
        prog="python3 -m scripts.runner.soak", description=__doc__.split("\n")[0])
    ap.add_argument("--duration", type=seconds, required=True, help="total time: 90, 10m, 3h")
    ap.add_argument("--segment", type=seconds, default=60.0, help="seconds per run (default 60)")
    ap.add_argument("--bench", default="build/numaring-bench")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--log", help="append one line per run here")
    a = ap.parse_args()
    if not os.access(a.bench, os.X_OK):
        print(f"soak: {a.bench} is not built (make bench)", file=sys.stderr)
        sys.exit(2)
    seed = a.seed if a.seed is not None else int(time.time())
    rng = random.Random(seed)
    ncpus = len(os.sched_getaffinity(0))
    real_nodes = machine_nodes()
    by_workload, by_mem, oversubscribed = {}, {}, 0
    turn = []
    enforced = counted = 0
    most_inversions = 0.0
    end = time.monotonic() + a.duration
    runs = items = 0
    worst = 0.0
    log = open(a.log, "a") if a.log else None
    print(f"soak: seed {seed}, {a.duration:.0f} s in runs of {a.segment:.0f} s", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        while time.monotonic() < end:
            seg = min(a.segment, max(1.0, end - time.monotonic()))
            # the workloads in turn (each round of them shuffled): a short soak
            # of a few segments still runs every one
            if not turn:
                turn = list(manifest.workloads())
                rng.shuffle(turn)
            args = random_config(rng, ncpus, real_nodes, turn.pop()) + [
                "--duration", f"{seg:.1f}", "--verify",
                                                "--out", os.path.join(tmp, "r"), "--quiet"]
            cmd = [a.bench] + args
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            samples = []
            t0 = time.monotonic()
            while p.poll() is None:
                r = rss_kib(p.pid)
                if r:
                    samples.append((time.monotonic() - t0, r))
                time.sleep(1.0)
            _, err = p.communicate()
            runs += 1
            if p.returncode != 0:
                print(f"soak: run {runs} failed (exit {p.returncode}): {err.strip()}\n"
                      f"  reproduce: {' '.join(cmd)}", file=sys.stderr)
                sys.exit(1)
            row = read_summary(os.path.join(tmp, "r", "summary.csv"))
            items += int(row["dequeued"])
            by_workload[row["workload"]] = by_workload.get(row["workload"], 0) + 1
            mem = args[args.index("--queue-mem") + 1]
            by_mem[mem] = by_mem.get(mem, 0) + 1
            with open(os.path.join(tmp, "r", "meta.json")) as f:
                over = collect.oversubscribed(json.load(f)) == 1
            oversubscribed += over
            steady = [r for t, r in samples if t >= seg / 4]
            growth = (max(steady) / min(steady) - 1) if len(steady) >= 3 else 0.0
            worst = max(worst, growth)
            shape = (f"{row['threads']}T" if row["workload"] in manifest.symmetric_workloads()
                     else f"{row['producers']}P{row['consumers']}C")
            inv = float(row.get("inversions_per_million") or 0)
            if row.get("ordering_enforced") == "1":
                enforced += 1
                order = f"order {row['ordering']} enforced"
                if inv > 0:  # numaring-bench fails such a run itself: never here
                    print(f"soak: run {runs} broke its queue's order ({inv:g} inversions per "
                          f"million) and still passed\n  reproduce: {' '.join(cmd)}",
                          file=sys.stderr)
                    sys.exit(1)
            else:
                counted += 1
                most_inversions = max(most_inversions, inv)
                order = f"order {row['ordering']} counted: {inv:g} inversions per million"
            line = (f"run {runs}: {row['queue']} {row['workload']} {shape}"
                    f"{' oversubscribed' if over else ''} memory {row.get('queue_mem') or mem} "
                    f"(pages {row.get('queue_pages') or 'not counted'}) "
                    f"verify {row['verify']}, {int(row['dequeued'])} items, {order}, RSS growth "
                    f"{growth * 100:.1f}%  ({' '.join(args[:-6])})")
            print(line, flush=True)
            if log:
                log.write(line + "\n")
                log.flush()
            if growth > 0.10:
                print(f"soak: memory grew {growth * 100:.1f}% during run {runs}\n"
                      f"  reproduce: {' '.join(cmd)}", file=sys.stderr)
                sys.exit(1)
    print(f"soak: {runs} runs ("
          + ", ".join(f"{w} {by_workload.get(w, 0)}" for w in manifest.workloads())
          + f"; {oversubscribed} oversubscribed; queue memory "
          + ", ".join(f"{m} {n}" for m, n in sorted(by_mem.items()))
          + f"), {items} items delivered exactly once, "
          f"the order enforced in {enforced} runs with no inversion and counted in {counted} "
          f"(at most {most_inversions:g} inversions per million), "
          f"largest RSS growth {worst * 100:.1f}%")


if __name__ == "__main__":
    main()
