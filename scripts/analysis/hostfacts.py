# SPDX-License-Identifier: BSD-2-Clause
"""hostfacts.py - what a host folder of the results says of its machine.

Its nodes, CPUs, cores, SMT and sockets (env/show-topology.json, meta.json),
whether its nodes are real or emulated, and where its cross-node experiments
(F3, F5) are: the host itself or its emulated sibling folder. The results
READMEs, the claims and the paper read them from here.
"""

import os

from ..common import expfile
from . import nrdata


def machine(hostdir):
    """nrdata.host_info of a host folder: its nodes, CPUs, cores, SMT, sockets."""
    hostdir = os.path.normpath(hostdir)
    return nrdata.host_info(os.path.dirname(hostdir), os.path.basename(hostdir))


def has_smt(m):
    """True where a machine (machine()) has several hardware threads per core."""
    return (m.get("threads_per_core") or 1) > 1


def describe_host(hostdir):
    """env/show-topology.json of a host folder, None where unreadable."""
    return nrdata._read_json(os.path.join(hostdir, "env", "show-topology.json"))


def real_nodes(t):
    """The real NUMA nodes with CPUs of a host (describe_host), 0 for emulated."""
    return (len([n for n in t.get("nodes", []) if n.get("ncpus", 0) > 0])
            if t.get("topology") == "real" else 0)


def emulated_siblings(hostdir):
    """The folders next to a host's that hold its emulated-node runs
    (<host>-emulated-..., where the runner puts F3 and F5 on a one-node machine)."""
    hostdir = os.path.normpath(hostdir)
    parent, host = os.path.dirname(hostdir), os.path.basename(hostdir)
    try:
        names = sorted(os.listdir(parent or "."))
    except OSError:
        return []
    return [os.path.join(parent, d) for d in names
            if d.startswith(host + "-emulated-") and os.path.isdir(os.path.join(parent, d))]


#: the experiments that place producers and consumers on different nodes:
#: those whose sweep pins split alone (experiments/*.exp), in EXPERIMENTS' order
CROSS_NODE = tuple(e.name for e in expfile.experiments() if e.sweep.get("pin") == ["split"])


def cross_node_dir(hostdir):
    """Where a host's cross-node experiments (F3, F5) are: the host itself
    where it has two real nodes with CPUs and ran them, else its first
    emulated sibling, else the host itself where it has two real nodes (they
    are then simply missing), else None."""
    multi = real_nodes(describe_host(hostdir) or {}) >= 2
    if multi and any(os.path.exists(os.path.join(hostdir, f"{e}.csv")) for e in CROSS_NODE):
        return hostdir
    sib = emulated_siblings(hostdir)
    return sib[0] if sib else hostdir if multi else None


def sockets_crossed(m, nodes):
    """How a cross-node transfer between a host's real nodes travels, in words."""
    s = m.get("sockets")
    if not s:
        return "moves between real nodes (the number of sockets is not recorded)"
    if s == 1:
        return "moves between nodes of one socket, not across an interconnect between sockets"
    if nodes > s:
        return (f"moves between real nodes, across the interconnect between the {s} sockets "
                f"where the two nodes are on different sockets ({nodes} nodes on {s} sockets)")
    return f"crosses the interconnect between the {s} sockets"


def _env_text(hostdir, name):
    """The text of the host's env/<name>, '' where unreadable."""
    try:
        with open(os.path.join(hostdir, "env", name), encoding="utf-8") as f:
            return f.read()
    except OSError:
        return ""


def captured(hostdir):
    """When the host's sweep captured its environment (env/captured.txt, UTC
    ISO 8601), '' where unknown."""
    return _env_text(hostdir, "captured.txt").strip()


def commit(hostdir):
    """The commit the host's sweep ran (env/git.txt's first line), '' where unknown."""
    return _env_text(hostdir, "git.txt").partition("\n")[0].strip()


def canonical_host(results):
    """THE host README.md, docs/ and the paper quote and link: of the folders
    with real nodes (not an emulated sibling), the newest sweep (its
    environment captured last: the newest commit and schema), then the one
    with the most experiments; None where there is none."""
    try:
        names = sorted(os.listdir(results))
    except OSError:
        return None
    real = [h for h in names if "-emulated-" not in h and os.path.isdir(
        os.path.join(results, h, "env")) and sweep_tables(os.path.join(results, h))]
    if not real:
        return None
    return max(real, key=lambda h: (captured(os.path.join(results, h)),
                                    len(sweep_tables(os.path.join(results, h))), h))


def sweep_tables(hostdir):
    """The tidy tables of a host folder's sweep (its top-level CSVs but
    claims.csv); [] for a folder that holds only benchmarks (bench/: make
    bench-backoff and the others), which is never a sweep to quote."""
    try:
        return [f for f in os.listdir(hostdir) if f.endswith(".csv") and f != "claims.csv"]
    except OSError:
        return []


def lacks(hostdir):
    """What an older sweep's tables lack of the current design, in words ([]
    where nothing): each run's regime, its hand-over distance, F3's one
    capacity for every gate, F4's symmetric workloads, the placement re-runs."""
    def table(path):
        """(columns, rows as dicts) of a CSV; (set(), []) where absent."""
        rows = nrdata.read_rows(path) if os.path.exists(path) else []
        return (set(rows[0]) if rows else set()), rows
    cols, _ = table(os.path.join(hostdir, "f1-lookup-cost.csv"))
    out = [what for col, what in (
        ("regime", "each run's regime (near-empty or full)"),
        ("c2c_one_way_before_ns", "each run's own hand-over distance (c2c_one_way_*_ns)"),
        ("placement_far", "the placement re-runs and the stopping rule's rounds"))
        if cols and col not in cols]
    cols, rows = table(os.path.join(hostdir, "f4-backoff.csv"))
    if cols and not {r.get("workload") for r in rows} & set(expfile.SYMMETRIC):
        out.append("F4's pairs and mixed workloads")
    for sib in emulated_siblings(hostdir):
        cols, _ = table(os.path.join(sib, "f3-gate.csv"))
        if cols and "capacity_probe" not in cols:
            out.append("F3's one capacity for every gate (capacity_probe)")
    return out

