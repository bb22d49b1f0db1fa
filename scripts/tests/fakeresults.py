# SPDX-License-Identifier: BSD-2-Clause
"""Build a results/<host>/ tree for the plotting tests, as scripts/runner/experiments.py would.

Two ways:

* make_synthetic(root, host, ...): every experiment, numbers from a small
  model shaped like the study (deterministic, no binary needed, instant);
* make_from_bench(root, host, bench, ...): a handful of tiny real runs of
  build/numaring-bench (--ops 5000 --warmup 0), assembled into tidy CSVs.

Run as a script to write a synthetic tree for looking at the figures:
    fakeresults.py OUTDIR [HOST] [--real] [--threads 2,4,8,16,32] [--reps 3]
"""

import csv
import json
import os
import random
import statistics
import subprocess

from scripts.analysis import nrdata
from scripts.common import regime


LOOKUP_NS = {"libnuma": 700.0, "syscall": 300.0, "table": 9.0, "cached": 1.5, "rseq": 1.0,
             "rdpid": 4.0, "none": 0.0}


def _base_row(kind, nodes, host):
    row = {c: "" for c in nrdata.SUMMARY_COLUMNS}
    row.update(queue="numaring", item="inline", sample="64", producers="1", consumers="1",
               lookup="cached",
               lookup_in_force="cached", recheck="256", gate="perworker", backoff="none",
               batch="32", bursts="0", capacity="1024", pin="compact", topology_kind=kind,
               topology=(";".join(str(i) for i in range(nodes)) if kind == "emulated"
                         else "real"), nodes=str(nodes), rate="0",
               warmup_s="0", ops="5000", verify="ok", host=host, clock="tsc",
               ordering="per-node", ordering_enforced="1", inversions_per_million="0",
               max_backward_step="0")
    return row


def _latency_points(p50, p99, pmax):
    """HdrHistogram-like (value, percentile) rows, ending with p = 1."""
    nd = statistics.NormalDist()
    z99 = nd.inv_cdf(0.99)
    pts = [(max(1.0, p50 / 6.0), 0.0)]
    p = 0.0
    while p < 0.99999:
        # halving steps of 1 - p, 5 ticks per halving, as HdrHistogram prints them
        for _ in range(5):
            p = 1.0 - (1.0 - p) * 0.5 ** 0.2
            z = nd.inv_cdf(min(p, 0.9999999))
            v = p50 * (p99 / p50) ** (z / z99) if z > 0 else p50 * (1 + z / 3)
            pts.append((min(v, pmax), p))
    pts.append((pmax, 1.0))
    return pts


def write_run_dir(d, row, meta, latency=None):
    """summary.csv, latency.csv, latency.hgrm, meta.json of one (point, rep)."""
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "summary.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(nrdata.SUMMARY_COLUMNS)
        w.writerow([row[c] for c in nrdata.SUMMARY_COLUMNS])
    total = int(row.get("latency_count") or 0)
    with open(os.path.join(d, "latency.csv"), "w") as f:
        f.write("value_ns,percentile,total_count,one_over_one_minus_percentile\n")
        for v, p in latency or []:
            inv = "inf" if p >= 1.0 else "%.2f" % (1.0 / (1.0 - p))
            f.write("%d,%.12f,%d,%s\n" % (v, p, round(p * total), inv))
    with open(os.path.join(d, "latency.hgrm"), "w") as f:
        f.write("       Value     Percentile TotalCount 1/(1-Percentile)\n\n")
        for v, p in latency or []:
            inv = "inf" if p >= 1.0 else "%.2f" % (1.0 / (1.0 - p))
            f.write("%12.3f %.12f %10d %14s\n" % (v, p, round(p * total), inv))
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)


def write_tidy(path, rows, profile=None, runner_columns=()):
    """The tidy CSV; with a profile, a profile column after rep (as experiments.py);
    runner_columns ("role", "oversubscribed") after it, as experiments.py writes them."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    cols = list(nrdata.TIDY_COLUMNS)
    extra = ([["profile"]] if profile else []) + [[c] for c in runner_columns]
    cols[3:3] = [c[0] for c in extra]
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(cols)
        for r in rows:
            w.writerow([profile if c == "profile" else r.get(c, "") for c in cols])


def node_cpus(machine, kind, nodes):
    """Each node's cpulist: real nodes split the machine's CPUs evenly (Linux
    numbers a core's SMT siblings cores apart: node i holds cores i*c/n.. and
    their siblings); emulated nodes take one CPU each of a machine's first."""
    if kind == "emulated":
        return [str(i) for i in range(nodes)]
    cores, tpc = machine["cores"], machine.get("threads_per_core", 1)
    per = cores // nodes
    lists = []
    for i in range(nodes):
        spans = ["%d-%d" % (t * cores + i * per, t * cores + (i + 1) * per - 1)
                 for t in range(tpc)]
        lists.append(",".join(spans))
    return lists


def lscpu_text(machine, nodes, cpus, cpu_model):
    """An lscpu listing (the fields the scripts read, in lscpu's layout)."""
    tpc = machine.get("threads_per_core", 1)
    sockets = machine.get("sockets", 1)
    lines = [("Architecture:", "x86_64"), ("CPU(s):", str(machine["cores"] * tpc)),
             ("On-line CPU(s) list:", "0-%d" % (machine["cores"] * tpc - 1)),
             ("Model name:", cpu_model), ("Thread(s) per core:", str(tpc)),
             ("Core(s) per socket:", str(machine["cores"] // sockets)),
             ("Socket(s):", str(sockets))]
    if machine.get("hypervisor"):
        lines.append(("Hypervisor vendor:", machine["hypervisor"]))
    lines.append(("NUMA node(s):", str(nodes)))
    lines += [("NUMA node%d CPU(s):" % i, c) for i, c in enumerate(cpus)]
    return "".join("%-41s%s\n" % kv for kv in lines)


def write_env(root, host, kind, nodes, cpu_model, probe=True, machine=None,
              machine_nodes=None):
    """env/ (show-topology.json; with ``machine``, its cpus per node as
    numaring-bench --show-topology writes them and env/lscpu.txt of a machine
    with ``machine_nodes`` real nodes) and probe/probe.csv."""
    hd = os.path.join(root, host)
    os.makedirs(os.path.join(hd, "env"), exist_ok=True)
    topo = {"topology": kind, "source": "NUMARING_TOPOLOGY" if kind == "emulated" else "hwloc",
            "host": host, "cpu_model": cpu_model, "kernel": "6.1.0-test",
            "allowed_cpus": "0-%d" % (2 * nodes * 8 - 1 if kind == "real" else 1),
            "nodes": [{"index": i} for i in range(nodes)]}
    if machine:
        cpus = node_cpus(machine, kind, nodes)
        ncpus = [sum(int(b) - int(a) + 1 for a, b in (x.split("-") if "-" in x else (x, x)
                                                      for x in c.split(","))) for c in cpus]
        real = kind == "real"
        topo.update(
            numa_available=real,
            allowed_cpus="0-%d" % (sum(ncpus) - 1),
            nodes=[{"index": i, "os_node": i if real else -1, "cpus": c, "ncpus": n,
                    "memory_node": i if real else -1, "memory_only": False}
                   for i, (c, n) in enumerate(zip(cpus, ncpus))],
            distances=[[10 if i == j else 21 for j in range(nodes)] for i in range(nodes)],
            rseq_node_id=False, rdpid=True)
        mnodes = machine_nodes or (nodes if real else 1)
        with open(os.path.join(hd, "env", "lscpu.txt"), "w") as f:
            f.write(lscpu_text(machine, mnodes, node_cpus(machine, "real", mnodes), cpu_model))
    with open(os.path.join(hd, "env", "show-topology.json"), "w") as f:
        json.dump(topo, f, indent=1)
    with open(os.path.join(hd, "README.md"), "w") as f:
        f.write("# %s\n\nA fake results tree for the plotting tests.\n" % host)
    if probe:
        os.makedirs(os.path.join(hd, "probe"), exist_ok=True)
        with open(os.path.join(hd, "probe", "probe.csv"), "w") as f:
            f.write("kind,cpu_a,cpu_b,node_a,node_b,value,spread,unit,method\n"
                    "meta,,,,,%s,,,topology\n"
                    "c2c_same_node,,,,,120.0,4.0,ns,median-of-2-pairs\n"
                    "c2c_other_node,,,,,340.0,9.0,ns,median-of-2-pairs\n"
                    "c2c_one_way_same_node,,,,,60.0,2.0,ns,half-rtt-median\n"
                    "c2c_one_way_other_node,,,,,170.0,4.5,ns,half-rtt-median\n"
                    "lookup_ns,,,,,160.0,1.0,ns,libnuma\n"
                    "faa_uncontended_ns,0,,0,,4.5,0.01,ns,faa-1thread-median\n"
                    "faa_contended_ns,0,1,0,0,15.0,1.0,ns,faa-2threads-median\n"
                    "bw_local_gbs,0,,0,0,40.0,0.5,GB/s,builtin-read-onnode\n"
                    "bw_remote_gbs,0,,0,1,18.0,0.5,GB/s,builtin-read-offnode\n" % kind)


#: the harness alone (the null queue) in the synthetic model: items per second per
#: producer, inline items; message items reach MESSAGE_HARNESS of it
HARNESS_PER_PRODUCER = 1.8e8
MESSAGE_HARNESS = 0.7

#: F4 with workloads (make_synthetic's workloads=): per workload, the base
#: throughput (ops/s at 2 threads, no work), each backoff's change against none
#: (a fraction) and none's lost races per operation at each amount of local work
#: (ns; in proportion at other works). Prodcons: not exercised (the 2-CPU
#: shape); pairs: exercised without work, not with 300 ns; mixed: both.
F4_WORKLOADS = {
    "prodcons": {"base": 2.5e7, "change": {"pause": -0.02, "exp": -0.03, "yield": -0.05},
                 "failed": {0: 2e-5, 300: 1e-5}},
    "pairs": {"base": 8e6, "change": {"pause": 0.9, "exp": 0.5, "yield": 0.0},
              "failed": {0: 0.2, 300: 0.0004}},
    "mixed": {"base": 1e7, "change": {"pause": 0.4, "exp": 0.2, "yield": -0.12},
              "failed": {0: 0.05, 300: 0.004}},
}
#: lost races per operation of a backoff, as a share of none's
F4_FAILED_SHARE = {"none": 1.0, "pause": 0.2, "exp": 0.3, "yield": 0.5}
#: ns in backoff per lost race
F4_BACKOFF_NS = {"none": 0.0, "pause": 40.0, "exp": 120.0, "yield": 600.0}
#: f4-spin (experiments/f4-spin.exp: pairs, 2 threads, none at every
#: combination): the change against none of pause by pause_spin and of exp by
#: exp_cap (a longer spin gains more, up to a point), the rest as pairs in
#: F4_WORKLOADS
F4_SPIN_CHANGE = {("pause", 8): 0.4, ("pause", 32): 0.9, ("pause", 128): 0.7,
                  ("exp", 64): 0.3, ("exp", 1024): 0.5}
#: the peers under pairs (make_synthetic's peers_workloads): each queue's
#: operations/s as a share of its prodcons model, and the lost races per
#: operation at 2 threads of the queues that count them (in proportion to the
#: threads; a third with bursts)
PEERS_PAIRS_SPEED = {"numaring": 1.6, "flat": 1.2, "ck": 0.7, "rte": 0.9, "moodycamel": 1.5,
                     "urcu": 0.8, "mutex": 0.5, "faa": 3.0}
PEERS_PAIRS_LOST = {"numaring": 0.04, "flat": 0.12}
#: peers as the field runs it (make_synthetic's peers_field): the share of the
#: speed kept with the 50-150 ns delay on every thread, and across nodes
PEERS_FIELD_SLOW = 0.6
#: the speed of a queue that takes message items only (make_synthetic's
#: peers_message_queues), as the peers' speed model's shares
PEERS_MESSAGE_SPEED = 0.4
PEERS_CROSS_SLOW = 0.7
#: placement: each queue's speed (of numaring's on one node), the share kept
#: where every item crosses nodes, and what the queue's memory costs away
#: from the side that touches it most (numaring: nothing, its rings stay
#: where it put them)
PLACEMENT_SPEED = {"numaring": 1.0, "flat": 0.8, "rte": 1.1, "scq": 0.5, "moodycamel": 0.7}
PLACEMENT_CROSS = {"numaring": 0.8, "flat": 0.4, "rte": 0.45, "scq": 0.35, "moodycamel": 0.5}
PLACEMENT_MEM = {"producers": 1.0, "consumers": 0.9, "interleave": 0.95}
#: F5's closed loop (make_synthetic's f5_closed): its throughput as a share of
#: the capacity model
F5_CLOSED_SHARE = 0.8
#: the peers' paces (make_synthetic's peers_paces): the local work of the paced
#: side (ns), the share of the speed a full run keeps, and each pace's runs'
#: (occupancy, speed factor) by rep: free runs land near empty or full by rep
PEERS_PACE_NS = 200
PEERS_FULL_SPEED = 0.45
PEERS_PACE_REGIME = {
    "free": lambda rep: (0.03, 1.0) if rep % 2 else (0.9, PEERS_FULL_SPEED),
    "producer": lambda rep: (0.02, 0.7),
    "consumer": lambda rep: (0.95, 0.4 * PEERS_FULL_SPEED / 0.45),
}
#: fairness (fewest / most successful operations of one thread) of none per
#: workload, and each backoff's factor on it (capped at 1: every thread the same)
F4_FAIRNESS = {"prodcons": 0.97, "pairs": 0.55, "mixed": 0.7}
F4_FAIR_GAIN = {"none": 1.0, "pause": 1.4, "exp": 1.25, "yield": 1.1}


#: a closed-loop run of make_synthetic's closed_regimes: as a free peers run
CLOSED_REGIME = (lambda rep, cfg: PEERS_PACE_REGIME["free"](rep))


def closed_per_rep(closed_regimes, exp, cfg):
    """The (occupancy, speed) by rep of a run of ``exp`` (make_synthetic's
    closed_regimes), None where its regime is not modelled."""
    fn = closed_regimes.get(exp)
    if fn is None:
        return None
    return lambda rep: fn(rep, cfg)


def make_synthetic(root, host="fakehost", kind="emulated", threads=(2, 4), reps=2,
                   experiments=None, seed=1, cpu_model="Fake CPU 9000 @ 3.0GHz",
                   latency_files=True, probe=True, profile=None, harness=1.0,
                   items=("inline", "message"), oversub_above=None, f4_failed=0.01,
                   references=None, f3_loads=None, f5_realized=None, f5_realized_in="column",
                   nodes=2, machine=None, machine_nodes=None, workloads=None,
                   works=(0, 300), fairness=True, peers_workloads=("prodcons",),
                   peers_paces=None, f5_closed=False, closed_regimes=None,
                   peers_field=False, f5_pin="scatter", peers_message_queues=()):
    """A whole results/<host>/ tree from a model shaped like the study.

    ``nodes``: the topology's nodes (real or emulated, ``kind``). ``machine``:
    {cores, threads_per_core, sockets, hypervisor} of the machine, written as
    show-topology.json's nodes and cpus, env/lscpu.txt (of a machine with
    ``machine_nodes`` real nodes: default ``nodes`` when real, else 1) and
    every run's meta.json; None: the older minimal env without lscpu.txt.
    With ``profile``, lay it out as scripts/runner/experiments.py does: a profile
    column in the tidy CSVs and runs under <experiment>/<profile>/<point>/.
    ``harness`` scales the harness's own ceiling (harness_ops_per_s, the null
    queue: HARNESS_PER_PRODUCER per producer); None leaves it unmeasured (empty).
    ``items``: the item modes of peers (every other experiment runs inline items).
    ``oversub_above``: runs of more threads than this are oversubscribed (a
    role and an oversubscribed column, and meta.json's threads entries, as
    experiments.py writes them); None writes neither column (an older table).
    ``f4_failed``: failed attempts per operation of F4's runs at the largest
    thread count (in proportion below it; 1 in 1,000 is the exercised line).
    ``references``: {experiment: (start, middle, end)} factors of the drift
    reference's runs (the experiment's first point, points reference-*, role
    reference) against that point's model value; None: no reference runs.
    ``f3_loads``: F3 runs open loop at these fractions of the capacity each run
    measures first with the per-worker gate (load, capacity_ops_per_s, rate,
    inflight as numaring-bench --load writes them), e.g. (0.25, 0.5, 0.75);
    None: closed loop, those columns empty (the older shape).
    ``f5_realized``: F5's realized items per transfer as a fraction of the
    configured batch (a number, or {batch: fraction}); F5 then runs open loop
    at half the capacity with a 1 ms linger. ``f5_realized_in``: "column"
    writes items_per_transfer (and the counters), "counters" only the queue
    counters items_in/out, batches_in/out (an older table). None: neither.
    ``workloads``: F4 sweeps these workloads (names of F4_WORKLOADS, or a dict
    shaped like it) x ``works`` (ns of local work) x threads x backoff, writing
    the workload, threads, work_ns, ops_kind, backoff_ns_race and
    backoff_ns_gate columns as numaring-bench does (pairs and mixed: producers
    and consumers both say threads); None: the older prodcons-only shape.
    ``fairness``: with workloads, F4's rows fill the fairness column
    (F4_FAIRNESS x F4_FAIR_GAIN, at most 1); False leaves it empty (a table
    from before the column).
    ``peers_workloads``: the peers' workloads; with "pairs", every queue also
    runs enqueue-dequeue pairs at each thread count (workload pairs, threads,
    producers and consumers both the threads, ops_kind operations,
    PEERS_PAIRS_SPEED x the prodcons model; failed_attempts where the queue
    counts them: PEERS_PAIRS_LOST), as numaring-bench writes them.
    ``peers_paces``: the peers' prodcons runs at these paces (peers.exp's pace
    key: "free", "producer", "consumer"), each run's regime set by its items in
    flight (scripts/common/regime.py reads inflight over the slots): free runs land
    near empty (odd reps) or full (even reps, at PEERS_FULL_SPEED of the
    speed), producer-paced runs (producer_work_ns PEERS_PACE_NS) near empty,
    consumer-paced (consumer_work_ns) full; None: the older shape (no inflight,
    no pace: regime unknown).
    ``f5_closed``: with ``f5_realized``, F5 also runs each point in closed loop
    (f5-ceiling.exp's load = closed, 0.5: an empty load cell, rate 0, no
    linger), at F5_CLOSED_SHARE of its capacity model, moving half the
    configured batch per transfer.
    ``closed_regimes``: experiments among f1-lookup-cost, f2-node-cache and
    f4-backoff (its prodcons runs) whose closed-loop runs land near empty or
    full, as {experiment: fn(rep, cfg) -> (occupancy, speed factor)} or a
    list of names (each run as a free peers run: near empty on odd reps, full
    at PEERS_FULL_SPEED on even ones); their rows carry inflight and the
    runner's regime columns (scripts/common/regime.py: occupancy .. regime), as
    experiments.py writes them. None: the older shape (regime unknown).
    ``peers_field``: peers.exp as the field runs it (issue 31 item 4), after
    the runs above: every queue also runs mixed (each operation an enqueue or
    a dequeue at random) at work 0 on one node, inline items, and each
    workload (prodcons at ``peers_paces``, pairs, mixed) with the 50-150 ns
    delay on every thread (work_ns 150, work_min_ns 50: PEERS_FIELD_SLOW of
    the speed); on two nodes or more also prodcons split and pairs and mixed
    scatter at work 0 (PEERS_CROSS_SLOW of the speed).
    ``peers_message_queues``: peers queues that take message items only
    (xenium-ramalhete, xenium-kfifo: peers.exp's item-otherwise), added to
    the peers' queues at PEERS_MESSAGE_SPEED; each runs wherever the others
    run, once per item loop, with item message (a quick profile's inline
    sweep writes them so).
    ``f5_pin``: F5's placement (f5-ceiling.exp's is split; the synthetic
    default scatter keeps the older fixtures' ceilings).
    Experiment "placement" (experiments/placement.exp, not in the default
    list): PLACEMENT_SPEED's queues in prodcons at nodes:0/0 and nodes:0/1
    x memory producers, consumers, interleave, and pairs and mixed at
    scatter x memory producers, interleave, at each thread count; a crossing
    run keeps PLACEMENT_CROSS of its speed, every queue but numaring
    PLACEMENT_MEM's share by memory; queue_pages "not placed" on emulated
    nodes, else "0:8;1:0".
    """
    rnd = random.Random(seed)
    if closed_regimes is not None and not isinstance(closed_regimes, dict):
        closed_regimes = {e: CLOSED_REGIME for e in closed_regimes}
    closed_regimes = closed_regimes or {}
    write_env(root, host, kind, nodes, cpu_model, probe=probe, machine=machine,
              machine_nodes=machine_nodes)
    meta = {"host": host, "cpu_model": cpu_model, "cpus_online": max(threads),
            "topology": kind, "topology_spec": "0;1" if kind == "emulated" else "real",
            "kernel": "6.1.0-test"}
    if machine:
        with open(os.path.join(root, host, "env", "show-topology.json")) as f:
            topo = json.load(f)
        meta.update(cpus_online=machine["cores"] * machine.get("threads_per_core", 1),
                    topology_source=topo["source"], nodes=topo["nodes"],
                    distances=topo["distances"], machine="x86_64", libc="glibc 2.36",
                    compiler="gcc 12.2.0", clock={"source": "tsc"})
        if kind == "emulated":
            meta["topology_spec"] = ";".join(n["cpus"] for n in topo["nodes"])
    tmax = max(threads)

    def jitter(x, s=0.04):
        return x * (1.0 + rnd.uniform(-s, s))

    refs_done = set()

    def run(exp, point, cfg, tput, p50, p99, out, realized=None, failed=None, per_rep=None):
        plan = [(point, rep, 1.0, "point") for rep in range(1, reps + 1)]
        if references and exp in references and exp not in refs_done:
            refs_done.add(exp)   # the experiment's first point is its reference
            plan += [(name, 1, f, "reference") for name, f in
                     zip(nrdata.REFERENCE_POINTS, references[exp])]
        for point_, rep, factor, role in plan:
            row = _base_row(kind, nodes, host)
            row.update({k: str(v) for k, v in cfg.items()})
            row.update(experiment=exp, point=point_, rep=str(rep), role=role)
            nthreads = nrdata.threads(row)
            over = oversub_above is not None and nthreads > oversub_above
            row["oversubscribed"] = "" if oversub_above is None else str(int(over))
            t = jitter(tput) * factor
            rate = float(cfg.get("rate") or 0)
            if rate and tput >= rate * 0.999:
                # an open-loop run that keeps up delivers its offered rate, to
                # the measurement's half percent (regime.saturated: not saturated)
                t = rate * (1.0 + (t / (tput * factor) - 1.0) / 8.0) * factor
            occ = None
            if per_rep is not None:
                # a closed-loop run's regime (peers_paces): its occupancy, its speed
                occ, speed = per_rep(rep)
                t *= speed
            row["throughput_ops_per_s"] = "%.1f" % t
            row["enqueue_ops_per_s"] = "%.1f" % (t * 1.001)
            row["dequeue_ops_per_s"] = "%.1f" % t
            row["duration_s"] = "%.6f" % (5000 / t)
            if harness is not None:
                per_side = int(row["producers"])
                h = jitter(harness * HARNESS_PER_PRODUCER * per_side *
                           (MESSAGE_HARNESS if row["item"] == "message" else 1.0), 0.02)
                row["harness_ops_per_s"] = "%.1f" % h
                row["harness_ns_per_item"] = "%.2f" % (1e9 * per_side / h)
            lat = None
            if p50 is not None:
                a, b = jitter(p50, 0.08), jitter(p99, 0.08)
                b = max(b, a * 1.5)
                mx = b * 3
                row.update(p50_ns="%d" % a, p90_ns="%d" % ((a * b) ** 0.5), p99_ns="%d" % b,
                           p999_ns="%d" % (b * 1.8), max_ns="%d" % mx, mean_ns="%.1f" % (a * 1.1),
                           latency_count="5000")
                lat = _latency_points(a, b, mx)
            else:
                row["latency_count"] = "0"
            if p50 is not None and factor != 1.0:
                for c in ("p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns"):
                    row[c] = "%d" % (float(row[c]) / factor)
            if row.get("load") and p50 is not None:
                # Little: items in flight = throughput x mean latency
                row["inflight"] = "%.2f" % (t * float(row["mean_ns"]) * 1e-9)
            if occ is not None:
                # the items in flight of a run at that occupancy (regime.py's reading)
                slots = float(row["capacity"]) * (int(row["nodes"]) if row["queue"] ==
                                                  "numaring" else 1)
                row["inflight"] = "%.2f" % (occ * slots)
                row["latency_count"] = row.get("latency_count") or "5000"
                if row["latency_count"] == "0":
                    # no latency recorded (faa): the retry counters say the regime
                    row.update(full_retries="%d" % (4000 if occ >= 0.5 else 0),
                               empty_polls="%d" % (0 if occ >= 0.5 else 4000))
                if exp in closed_regimes:
                    # the runner's regime columns (experiments.py: regime.annotate)
                    row.update(zip(regime.COLUMNS, regime.annotate(row)))
            if realized is not None:
                per = max(1.0, realized * (1.0 - rnd.uniform(0.0, 0.03)))
                batches_out, batches_in = 3000, 2000
                row.update(batches_out=str(batches_out), batches_in=str(batches_in),
                           items_out="%d" % round(per * batches_out),
                           items_in="%d" % round(per * batches_in))
                if f5_realized_in == "column":
                    row["items_per_transfer"] = "%.2f" % (
                        (int(row["items_in"]) + int(row["items_out"])) /
                        (batches_in + batches_out))
            row.update(enqueued="5000", dequeued="5000")
            if exp in ("f4-backoff", "f4-spin"):
                rate = f4_failed * nthreads / tmax if failed is None else failed
                # per whole-run operation (nrdata.failed_per_item): enqueued + dequeued
                row["failed_attempts"] = "%d" % round(rate * 10000)
                if failed is not None:
                    ns = F4_BACKOFF_NS.get(row["backoff"], 0.0) * rate * 10000
                    row["backoff_ns_race"] = "%d" % round(jitter(ns, 0.05))
                    row["backoff_ns_gate"] = "0"
                    row["gate_backoffs"] = "0"
                if row.get("fairness"):
                    row["fairness"] = "%.4f" % min(1.0, jitter(float(row["fairness"]), 0.03))
            out.append(row)
            if latency_files:
                d = os.path.join(root, host, exp, *([profile] if profile else []), point_)
                m = dict(meta)
                if oversub_above is not None:
                    ncpu = oversub_above
                    m["threads"] = [{"role": "producer" if i < int(row["producers"])
                                     else "consumer", "cpu": i % ncpu, "pinned": True}
                                    for i in range(nthreads)]
                write_run_dir(os.path.join(d, "rep-%d" % rep), row, m, lat)

    exps = experiments or ["f1-lookup-cost", "f2-node-cache", "f3-gate", "f4-backoff",
                           "f5-ceiling", "peers"]
    for exp in exps:
        rows = []
        if exp == "f1-lookup-cost":
            for m in ["libnuma", "syscall", "table", "cached", "rseq", "rdpid", "none"]:
                ns = 62.0 + LOOKUP_NS[m]
                cfg = {"lookup": m, "lookup_in_force": m}
                run(exp, "lookup-" + m, cfg, 1e9 / ns, ns * 40, ns * 90, rows,
                    per_rep=closed_per_rep(closed_regimes, exp, cfg))
        elif exp == "f2-node-cache":
            for t in threads:
                for m in ["libnuma", "syscall", "table", "cached", "rseq", "rdpid", "none"]:
                    base = 9e6 * t ** 0.55
                    tp = base / (1 + LOOKUP_NS[m] / 115.0)
                    cfg = {"lookup": m, "lookup_in_force": m, "producers": t // 2,
                           "consumers": t // 2}
                    run(exp, "t%d-%s" % (t, m), cfg, tp, 400 * t, 2000 * t, rows,
                        per_rep=closed_per_rep(closed_regimes, exp, cfg))
        elif exp == "f3-gate" and f3_loads:
            # open loop: the offered rate is a fraction of the per-worker gate's
            # closed-loop capacity; a gate whose own capacity is lower queues more
            # (M/M/1-like growth), and above it delivers only what it can
            for t in threads:
                cap = 6e6 * t ** 0.5
                for gte, own, base in (("shared", 0.8, 900.0), ("pernode", 0.93, 600.0),
                                       ("perworker", 1.0, 450.0)):
                    for ld in f3_loads:
                        rate = ld * cap
                        rho = min(rate / (own * cap), 0.995)
                        tp = min(rate, own * cap * 0.98)
                        p50 = base * (1.0 + t / 8.0) / (1.0 - rho)
                        # the gate's mechanism, counted: 1,000 transfers of 24
                        # items of a batch of 32 each way, the shared gate waited
                        # on by one transfer in ten (claims: F3 exercised)
                        run(exp, "t%d-%s-load%g" % (t, gte, ld),
                            {"gate": gte, "pin": "split", "producers": t // 2,
                             "consumers": t // 2, "load": "%g" % ld,
                             "capacity_ops_per_s": "%.1f" % cap, "rate": "%.1f" % rate,
                             "batch": "32", "batches_in": "1000", "batches_out": "1000",
                             "items_in": "24000", "items_out": "24000",
                             "gate_waits": "200" if gte == "shared" else "0"},
                            tp, p50, p50 * (6 + 10 * rho), rows)
        elif exp == "f3-gate":
            for t in threads:
                for gte, f in (("shared", 1.0), ("pernode", 0.2), ("perworker", 0.004)):
                    p50 = 1200.0 * t ** 2.2 * f + 300
                    run(exp, "t%d-%s" % (t, gte), {"gate": gte, "pin": "split",
                                                   "producers": t // 2, "consumers": t // 2},
                        6e6 * t ** 0.5 * (0.3 if gte == "shared" else 1.0),
                        p50, p50 * 12, rows)
        elif exp == "f4-backoff" and workloads:
            model = workloads if isinstance(workloads, dict) else {
                w: F4_WORKLOADS[w] for w in workloads}
            for w, m in model.items():
                for work in works:
                    slow = 1.0 / (1.0 + work / 300.0)
                    for t in threads:
                        for bo in ("none", "pause", "exp", "yield"):
                            fw = m["failed"]
                            none_rate = fw.get(work, fw.get(0, 0.0) * slow)
                            change = m["change"].get(bo, 0.0) * (slow if work else 1.0)
                            tp = m["base"] * slow * (t / 2.0) ** 0.5 * (1 + change)
                            side = t if w != "prodcons" else t // 2
                            fair = ("%.4f" % min(1.0, F4_FAIRNESS.get(w, 0.8) *
                                                 F4_FAIR_GAIN[bo]) if fairness else "")
                            cfg = {"backoff": bo, "workload": w, "threads": t,
                                   "work_ns": work, "producers": side, "consumers": side,
                                   "ops_kind": "items" if w == "prodcons" else "operations",
                                   "fairness": fair}
                            run(exp, "%s-work%d-t%d-%s" % (w, work, t, bo), cfg,
                                tp, 500 * t * (1 + work / 1000.0),
                                3000 * t * (1 + work / 1000.0) * (1.5 if bo == "yield" else 1),
                                rows, failed=none_rate * F4_FAILED_SHARE[bo],
                                per_rep=closed_per_rep(closed_regimes, exp, cfg)
                                if w == "prodcons" else None)
        elif exp == "f4-spin":
            # pairs at 2 threads, none at every combination of the two spins
            m = F4_WORKLOADS["pairs"]
            for spin in (8, 32, 128):
                for cap in (64, 1024):
                    for bo in ("none", "pause", "exp"):
                        change = F4_SPIN_CHANGE.get((bo, spin if bo == "pause" else cap), 0.0)
                        cfg = {"backoff": bo, "workload": "pairs", "threads": 2, "work_ns": 0,
                               "producers": 2, "consumers": 2, "ops_kind": "operations",
                               "pause_spin": spin, "exp_cap": cap}
                        run(exp, "backoff=%s_pause-spin=%d_exp-cap=%d" % (bo, spin, cap), cfg,
                            m["base"] * (1 + change), 1000, 6000, rows,
                            failed=m["failed"][0] * F4_FAILED_SHARE[bo])
        elif exp == "f4-backoff":
            for t in threads:
                for bo, loss in (("none", 0.0), ("pause", 0.16), ("exp", 0.24), ("yield", 0.29)):
                    tp = 9e6 * t ** 0.55 * (1 - loss * t / tmax)
                    cfg = {"backoff": bo, "producers": t // 2, "consumers": t // 2}
                    run(exp, "t%d-%s" % (t, bo), cfg, tp, 500 * t, 3000 * t, rows,
                        per_rep=closed_per_rep(closed_regimes, exp, cfg))
        elif exp == "f5-ceiling":
            for t in threads:
                for b in (1, 4, 16, 64, 256):
                    ceil = 4e7 * (t ** 0.5) * b / (b + 6)
                    cfg = {"batch": b, "pin": f5_pin, "producers": t // 2,
                           "consumers": t // 2}
                    realized = None
                    if f5_realized is not None:
                        frac = (f5_realized.get(b, 1.0) if isinstance(f5_realized, dict)
                                else f5_realized)
                        realized = max(1.0, b * frac)
                        cfg.update(load="0.5", linger_us="1000",
                                   capacity_ops_per_s="%.1f" % (2 * ceil * 0.6),
                                   rate="%.1f" % (ceil * 0.6))
                    run(exp, "t%d-b%d" % (t, b), cfg,
                        ceil * (0.45 + 0.35 * b / (b + 30)), 800 * t, 5000 * t, rows,
                        realized=realized)
                    if f5_closed and f5_realized is not None:
                        # the same point in closed loop: its capacity
                        ccfg = {"batch": b, "pin": f5_pin, "producers": t // 2,
                                "consumers": t // 2, "load": "", "rate": "0"}
                        run(exp, "closed-t%d-b%d" % (t, b), ccfg,
                            ceil * F5_CLOSED_SHARE * (0.5 + 0.5 * b / (b + 30)),
                            3000 * t, 20000 * t, rows, realized=max(1.0, b * 0.5))
        elif exp == "peers":
            speed = {"numaring": 1.0, "flat": 0.55, "ck": 0.5, "rte": 0.6, "moodycamel": 0.9,
                     "urcu": 0.25, "mutex": 0.08, "faa": 2.5}
            speed.update({q: PEERS_MESSAGE_SPEED for q in peers_message_queues})

            def item_for(q, item):
                """The item a queue's run carries; None: it has no run in this loop."""
                if q not in peers_message_queues:
                    return item
                return "message" if item == items[0] else None
            if "pairs" in peers_workloads:
                for item in items:
                    slow = 1.0 if item == "inline" else 0.6
                    for bursts in (0, 1):
                        for t in threads:
                            for q, sp in speed.items():
                                if item_for(q, item) is None:
                                    continue
                                tp = (PEERS_PAIRS_SPEED.get(q, 1.0) * 1.2e7 * t ** 0.5 * sp *
                                      slow * (3.0 if bursts and q != "faa" else 1.0))
                                lat = None if q == "faa" else 500 * t / (sp * slow)
                                cfg = {"queue": q, "bursts": bursts, "producers": t,
                                       "consumers": t, "threads": t, "workload": "pairs",
                                       "ops_kind": "operations", "item": item_for(q, item)}
                                if q in PEERS_PAIRS_LOST:
                                    # lost races per operation (enqueued + dequeued: 10,000)
                                    cfg["failed_attempts"] = "%d" % round(
                                        PEERS_PAIRS_LOST[q] * (t / 2.0) / (1 + 2 * bursts) *
                                        10000)
                                if q != "numaring":
                                    cfg.update(lookup="", lookup_in_force="", recheck="",
                                               gate="", backoff="")
                                run(exp, "pairs-%s-b%d-t%d-%s" % (item, bursts, t, q), cfg, tp,
                                    lat, lat * 8 if lat else None, rows)
            for pace in peers_paces or (None,):
                for item in items:
                    # a message's line travels too: slower, and more so for the fast queues
                    slow = 1.0 if item == "inline" else 0.6
                    for bursts in (0, 1):
                        for t in threads:
                            for q, sp in speed.items():
                                if item_for(q, item) is None:
                                    continue
                                tp = (1.2e7 * t ** 0.5 * sp * slow *
                                      (3.0 if bursts and q != "faa" else 1.0))
                                lat = None if q == "faa" else 300 * t / (sp * slow)
                                cfg = {"queue": q, "bursts": bursts, "producers": t // 2,
                                       "consumers": t // 2, "item": item_for(q, item)}
                                if q != "numaring":
                                    cfg.update(lookup="", lookup_in_force="", recheck="",
                                               gate="", backoff="")
                                name = "%s-b%d-t%d-%s" % (item_for(q, item), bursts, t, q)
                                per_rep = None
                                if pace is not None:
                                    name += "-pace-" + pace
                                    if pace == "producer":
                                        cfg["producer_work_ns"] = PEERS_PACE_NS
                                    elif pace == "consumer":
                                        cfg["consumer_work_ns"] = PEERS_PACE_NS
                                    per_rep = PEERS_PACE_REGIME[pace]
                                run(exp, name, cfg, tp, lat, lat * 8 if lat else None, rows,
                                    per_rep=per_rep)
            if peers_field:
                field = [("mixed", "0", "compact")]
                field += [(w, "50-150", "compact") for w in ("prodcons", "pairs", "mixed")]
                if nodes >= 2:
                    field += [("prodcons", "0", "split"), ("pairs", "0", "scatter"),
                              ("mixed", "0", "scatter")]
                for w, work, pin in field:
                    f = ((PEERS_FIELD_SLOW if work != "0" else 1.0) *
                         (PEERS_CROSS_SLOW if pin != "compact" else 1.0))
                    lo, _, hi = work.rpartition("-")
                    paces = (peers_paces or (None,)) if w == "prodcons" else (None,)
                    for pace in paces:
                        for bursts in (0, 1):
                            for t in threads:
                                for q, sp in speed.items():
                                    tp = (1.2e7 * t ** 0.5 * sp * f * (PEERS_PAIRS_SPEED.get(
                                        q, 1.0) if w != "prodcons" else 1.0) *
                                          (3.0 if bursts and q != "faa" else 1.0))
                                    lat = None if q == "faa" else 400 * t / (sp * f)
                                    side = t if w != "prodcons" else t // 2
                                    cfg = {"queue": q, "bursts": bursts, "producers": side,
                                           "consumers": side, "item": "message" if q in
                                           peers_message_queues else "inline",
                                           "pin": pin,
                                           "work_ns": hi, "work_min_ns": lo or "0"}
                                    if w != "prodcons":
                                        cfg.update(threads=t, workload=w,
                                                   ops_kind="operations")
                                        if w == "mixed":
                                            cfg["enqueue_share"] = "0.5"
                                        if q in PEERS_PAIRS_LOST:
                                            cfg["failed_attempts"] = "%d" % round(
                                                PEERS_PAIRS_LOST[q] * (t / 2.0) /
                                                (1 + 2 * bursts) * 10000)
                                    else:
                                        cfg.update(workload="prodcons", producer_work_ns=hi,
                                                   consumer_work_ns=hi)
                                    if q != "numaring":
                                        cfg.update(lookup="", lookup_in_force="", recheck="",
                                                   gate="", backoff="")
                                    per_rep = None
                                    name = "%s-w%s-%s-b%d-t%d-%s" % (w, work, pin, bursts, t, q)
                                    if pace is not None:
                                        name += "-pace-" + pace
                                        if pace != "free":
                                            cfg["%s_work_ns" % pace] = str(
                                                int(hi) + PEERS_PACE_NS)
                                        per_rep = PEERS_PACE_REGIME[pace]
                                    run(exp, name, cfg, tp, lat, lat * 8 if lat else None,
                                        rows, per_rep=per_rep)
        elif exp == "placement":
            for w in ("prodcons", "pairs", "mixed"):
                pins = ("nodes:0/0", "nodes:0/1") if w == "prodcons" else ("scatter",)
                mems = ("producers", "consumers", "interleave") if w == "prodcons" else (
                    "producers", "interleave")
                for t in threads:
                    for pin in pins:
                        for mem in mems:
                            for q, sp in PLACEMENT_SPEED.items():
                                cross = pin != "nodes:0/0"
                                tp = (8e6 * sp * (PLACEMENT_CROSS[q] if cross else 1.0) *
                                      (1.0 if q == "numaring" else PLACEMENT_MEM[mem]) *
                                      (t / 2.0) ** 0.3)
                                side = t if w != "prodcons" else t // 2
                                cfg = {"queue": q, "workload": w, "pin": pin, "queue_mem": mem,
                                       "queue_pages": "not placed" if kind == "emulated"
                                       else "0:8;1:0", "producers": side, "consumers": side,
                                       "threads": t}
                                if w != "prodcons":
                                    cfg["ops_kind"] = "operations"
                                if q != "numaring":
                                    cfg.update(lookup="", lookup_in_force="", recheck="",
                                               gate="", backoff="")
                                lat = 2000.0 * t / tp * 1e6
                                run(exp, "%s-t%d-%s-%s-%s" % (w, t, pin.replace("/", "_"),
                                                              mem, q),
                                    cfg, tp, lat, lat * 6, rows)
        write_tidy(os.path.join(root, host, exp + ".csv"), rows, profile,
                   (("role", "oversubscribed") if oversub_above is not None or references
                    else ()) + (regime.COLUMNS if exp in closed_regimes else ()))
    return os.path.join(root, host)


def make_from_bench(root, bench, host="benchhost", reps=1):
    """A few tiny real runs: f1 (three lookups) and peers (numaring, flat, faa; rte
    bursts; numaring and flat with message items). The binary fills item, sample
    and harness_ops_per_s itself (its --calibrate default)."""
    env = dict(os.environ, NUMARING_TOPOLOGY="0;1")
    points = [("f1-lookup-cost", "lookup-%s" % m, ["--lookup", m]) for m in
              ("libnuma", "table", "none")]
    points += [("peers", "b0-t2-%s" % q, ["--queue", q]) for q in ("numaring", "flat", "faa")]
    points += [("peers", "b1-t2-%s" % q, ["--queue", q, "--bursts"]) for q in ("numaring", "rte")]
    points += [("peers", "message-b0-t2-%s" % q, ["--queue", q, "--item", "message"])
               for q in ("numaring", "flat")]
    tidy = {}
    for exp, point, args in points:
        for rep in range(1, reps + 1):
            d = os.path.join(root, host, exp, point, "rep-%d" % rep)
            cmd = [bench, "--ops", "5000", "--warmup", "0", "--quiet", "--out", d] + args
            subprocess.run(cmd, check=True, env=env, timeout=60,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            with open(os.path.join(d, "summary.csv"), newline="") as f:
                rdr = csv.reader(f)
                header = next(rdr)
                values = next(rdr)
            row = dict(zip(header, values), experiment=exp, point=point, rep=str(rep))
            tidy.setdefault(exp, []).append((header, row))
    for exp, items in tidy.items():
        header = items[0][0]
        with open(os.path.join(root, host, exp + ".csv"), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["experiment", "point", "rep"] + header)
            for _h, r in items:
                w.writerow([r[c] for c in ["experiment", "point", "rep"] + header])
    os.makedirs(os.path.join(root, host, "env"), exist_ok=True)
    with open(os.path.join(root, host, "env", "show-topology.json"), "w") as f:
        subprocess.run([bench, "--show-topology"], check=True, env=env, stdout=f, timeout=60)
    subprocess.run([bench, "--probe", "--quick", "--out", os.path.join(root, host, "probe")],
                   check=True, timeout=60, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return os.path.join(root, host)


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("host", nargs="?", default="fakehost")
    ap.add_argument("--real", action="store_true", help="say the nodes are real")
    ap.add_argument("--threads", default="2,4")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--profile", help="lay out as experiments.py does, with this profile")
    ap.add_argument("--oversub-above", type=int, metavar="N",
                    help="runs of more than N threads are oversubscribed (writes the column)")
    ap.add_argument("--loads", metavar="L,L,..",
                    help="F3 open loop at these fractions of capacity (e.g. 0.25,0.5,0.75)")
    ap.add_argument("--realized", type=float, metavar="F",
                    help="F5 realizes F x the configured batch (items_per_transfer)")
    ap.add_argument("--realized-in", choices=("column", "counters"), default="column",
                    help="F5: write items_per_transfer, or only the queue counters")
    a = ap.parse_args()
    print(make_synthetic(a.outdir, a.host, "real" if a.real else "emulated",
                         tuple(int(x) for x in a.threads.split(",")), a.reps,
                         profile=a.profile, oversub_above=a.oversub_above,
                         f3_loads=tuple(float(x) for x in a.loads.split(",")) if a.loads
                         else None, f5_realized=a.realized, f5_realized_in=a.realized_in))
