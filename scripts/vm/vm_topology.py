# SPDX-License-Identifier: BSD-2-Clause
"""vm_topology.py - the NUMA topology numa-vm is asked for: its nodes (CPUs,
memory) and distances from the options, checked; the QEMU arguments that make
it; and the check of what numaring-bench --show-topology reports in the guest
against it."""

import json

from ..common.cpulist import cpulist
from .vm_say import usage


class Topology:
    """Nodes (cpus: list of CPU numbers, mem: MiB) and the distance matrix."""

    def __init__(self, a):
        self.nodes = []
        cpu = 0
        kinds = ["both"] * a.nodes + ["cpu"] * a.cpu_only_node + ["mem"] * a.memory_only_node
        for kind in kinds:
            cpus = list(range(cpu, cpu + a.cpus_per_node)) if kind != "mem" else []
            cpu += len(cpus)
            self.nodes.append({"cpus": cpus, "mem": a.mem_per_node if kind != "cpu" else 0})
        n = len(self.nodes)
        if n == 0:
            usage("no nodes: give --nodes N (N >= 1) or --cpu-only-node / --memory-only-node")
        if n > 64:
            usage(f"{n} nodes: at most 64")
        if self.ncpus() == 0:
            usage("no node has CPUs: give --nodes N or --cpu-only-node with --cpus-per-node >= 1")
        if self.ncpus() > 64:
            usage(f"{self.ncpus()} CPUs in all: keep it to 64 or fewer (TCG is slow anyway)")
        if not any(nd["mem"] for nd in self.nodes):
            usage("no node has memory: give --nodes N or --memory-only-node")
        if a.distance:
            try:
                vals = [int(v) for v in a.distance.replace(";", ",").split(",")]
            except ValueError:
                usage(f'--distance "{a.distance}": expected comma-separated integers')
            if len(vals) != n * n:
                usage(f'--distance has {len(vals)} values; {n} nodes need {n * n} '
                      f'(the full matrix, row by row, node order: {self.describe()})')
            self.dist = [vals[i * n:(i + 1) * n] for i in range(n)]
        else:
            self.dist = [[10 if i == j else 21 for j in range(n)] for i in range(n)]
        for i in range(n):
            for j in range(n):
                d = self.dist[i][j]
                if i == j and d != 10:
                    usage(f"--distance: node {i} to itself must be 10, not {d}")
                if i != j and not 10 < d <= 255:
                    usage(f"--distance: node {i} to node {j} must be 11..255, not {d} "
                          f"(Linux ignores a table with a remote distance <= 10)")

    def ncpus(self):
        return sum(len(nd["cpus"]) for nd in self.nodes)

    def describe(self):
        out = []
        for i, nd in enumerate(self.nodes):
            c = f"cpus {cpulist(nd['cpus'])}" if nd["cpus"] else "no CPUs"
            m = f"{nd['mem']} MiB" if nd["mem"] else "no memory"
            out.append(f"node {i}: {c}, {m}")
        return "; ".join(out)

    def qemu_args(self):
        cpu_nodes = [nd for nd in self.nodes if nd["cpus"]]
        per = {len(nd["cpus"]) for nd in cpu_nodes}
        if len(per) == 1:  # one socket per node with CPUs: no socket split across nodes
            smp = f"{self.ncpus()},sockets={len(cpu_nodes)},cores={per.pop()},threads=1"
        else:
            smp = str(self.ncpus())
        args = ["-smp", smp, "-m", f"{sum(nd['mem'] for nd in self.nodes)}M"]
        for i, nd in enumerate(self.nodes):
            spec = f"node,nodeid={i}"
            if nd["cpus"]:
                spec += f",cpus={nd['cpus'][0]}-{nd['cpus'][-1]}"
            if nd["mem"]:
                args += ["-object", f"memory-backend-ram,size={nd['mem']}M,id=m{i}"]
                spec += f",memdev=m{i}"
            args += ["-numa", spec]
        n = len(self.nodes)
        for i in range(n):
            for j in range(n):
                if i != j:
                    args += ["-numa", f"dist,src={i},dst={j},val={self.dist[i][j]}"]
        return args

    def expected_memory_nodes(self, i):
        """The nodes the ring of node i may be placed on (its own, else the nearest with memory)."""
        if self.nodes[i]["mem"]:
            return {i}
        mems = [m for m, nd in enumerate(self.nodes) if nd["mem"]]
        best = min(self.dist[i][m] for m in mems)
        return {m for m in mems if self.dist[i][m] == best}


def raw_qemu_args(smp, memory, objects, numa):
    """The machine's QEMU arguments from the raw escape hatch (--smp, --memory,
    --object, --numa), as given."""
    return (["-smp", smp, "-m", memory] + [x for o in objects for x in ("-object", o)]
            + [x for n in numa for x in ("-numa", n)])


def check_topology(js, topo, rseq_expected):
    """Compare numaring-bench --show-topology's JSON with the topology asked for.
    Returns a list of problems (empty: all good)."""
    try:
        t = json.loads(js)
    except ValueError as e:
        return [f"--show-topology did not print JSON ({e})"]
    bad = []

    def want(what, got, exp):
        if got != exp:
            bad.append(f"{what}: guest says {got!r}, expected {exp!r}")

    want("topology", t.get("topology"), "real")
    want("numa_available", t.get("numa_available"), True)
    if rseq_expected:
        want("rseq_node_id", t.get("rseq_node_id"), True)
    if topo is None:  # raw --numa: only the generic facts
        return bad
    n = len(topo.nodes)
    want("allowed_cpus", t.get("allowed_cpus"), cpulist(range(topo.ncpus())))
    nodes = t.get("nodes", [])
    want("number of queue nodes", len(nodes), n)
    for i, (got, nd) in enumerate(zip(nodes, topo.nodes)):
        want(f"node {i} os_node", got.get("os_node"), i)
        want(f"node {i} cpus", got.get("cpus"), cpulist(nd["cpus"]))
        want(f"node {i} ncpus", got.get("ncpus"), len(nd["cpus"]))
        want(f"node {i} memory_only", got.get("memory_only"), not nd["cpus"])
        mem_ok = topo.expected_memory_nodes(i)
        if got.get("memory_node") not in mem_ok:
            bad.append(f"node {i} memory_node: guest says {got.get('memory_node')!r}, expected "
                       f"{' or '.join(map(str, sorted(mem_ok)))} (own node, else the nearest with memory)")
    want("distances", t.get("distances"), topo.dist)
    machine = {m.get("os_node"): m for m in t.get("machine_nodes", [])}  # any order
    want("machine nodes", sorted(machine, key=lambda k: (k is None, k)), list(range(n)))
    for i, nd in enumerate(topo.nodes):
        got = machine.get(i)
        if got is None:
            continue
        want(f"machine node {i} cpus_total", got.get("cpus_total"), len(nd["cpus"]))
        if (got.get("memory_bytes", 0) > 0) != (nd["mem"] > 0):
            bad.append(f"machine node {i} memory_bytes: guest says {got.get('memory_bytes')}, "
                       f"expected {'> 0' if nd['mem'] else '0'}")
    return bad
