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
