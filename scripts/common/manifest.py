# SPDX-License-Identifier: BSD-2-Clause
"""manifest.py - the names of numaring-bench's tables, for every script.

    from scripts import manifest
    manifest.queues()                 # ('numaring', 'flat', ..., 'null'), --help's order
    manifest.queues(fabricates=False) # the same without the null queue
    manifest.queue("ck")["bursts"]    # False: what one queue can do
    manifest.lookups(), manifest.gates(), manifest.backoffs(), manifest.workloads()
    manifest.limit("linger")          # {'whole': True, 'min': 0, 'max': 1000000, ...}

The names come from scripts/manifest.json beside this file: a copy of what
`numaring-bench --manifest` prints (harness/manifest.c), made from the tables
the harness itself runs on. scripts/tests/test_manifest.py keeps the copy
equal to the binary's output (regenerate it with
build/numaring-bench --manifest > scripts/manifest.json) and fails on a
collection of these names typed into a script outside
scripts/manifest-allowlist.txt.

Every list is a tuple, in the harness's order.
"""

import json
import os

PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "manifest.json")

_data = None


def data():
    """The whole manifest (a dict), read once."""
    global _data
    if _data is None:
        with open(PATH, encoding="utf-8") as f:
            d = json.load(f)
        if not isinstance(d, dict) or not isinstance(d.get("queues"), list):
            raise RuntimeError(f"{PATH}: not numaring-bench --manifest output")
        _data = d
    return _data


def queues(test_only=False, **caps):
    """The queues' names in --help's order. test_only: False (default) leaves
    the harness's own fault adapters out, True gives only them, None both.
    caps: queue fields that must be equal, e.g. fabricates=False,
    bounded=True, bursts=True (see queue())."""
    out = []
    for q in data()["queues"]:
        if test_only is not None and q["test_only"] != test_only:
            continue
        if all(q.get(k) == v for k, v in caps.items()):
            out.append(q["name"])
    return tuple(out)


def queue(name):
    """What queue `name` is and can do: description, test_only, bounded (capacity
    limits it), moves_data (items travel: 0 for faa and null), fabricates
    (dequeue makes items up: null), bursts (burst operations both ways),
    enqueue_burst, dequeue_burst, ordering, capacity_kind, latency_paths (it
    says which path each dequeued item came by: summary.csv's latency_<path>_*
    columns and latency-path.csv), items (the item kinds a run of it carries),
    workloads, settings (its own knobs), counters (the queue counters it fills).
    KeyError for an unknown name."""
    for q in data()["queues"]:
        if q["name"] == name:
            return dict(q)
    raise KeyError(f"no queue {name!r} in {PATH}")


def _names(key, doc):
    """The reader of the manifest's list ``key``: a function returning it as a tuple."""
    def names():
        return tuple(data()[key])
    names.__name__ = names.__qualname__ = key
    names.__doc__ = doc
    return names


lookups = _names("lookups", "--lookup's values: numaring's node look-ups.")
gates = _names("gates", "--gate's values: numaring's cross-node transfer gates.")
backoffs = _names("backoffs", "--backoff's values.")


def backoff_default():
    """The library's production default backoff (NUMARING_BACKOFF_DEFAULT)."""
    return data()["backoff_default"]


def pin_max_node():
    """The highest node number --pin nodes:P/C accepts (NUMARING_MAX_NODES - 1)."""
    return data()["pin_max_node"]


def queue_mem_max_node():
    """The highest node number --queue-mem node:N accepts (HB_QMEM_MAX_NODES - 1)."""
    return data()["queue_mem_max_node"]


workloads = _names("workloads", "--workload's values.")
symmetric_workloads = _names("symmetric_workloads", "The workloads whose every thread "
                             "enqueues and dequeues (not prodcons).")
pins = _names("pins", "--pin's named placements (a cpulist is the other kind of value).")
smts = _names("smts", "--smt's values.")
items = _names("items", "--item's values.")
queue_mems = _names("queue_mems", "--queue-mem's values (node:N with N a node of the machine).")
accountings = _names("accountings", "--accounting's values.")
queue_counters = _names("queue_counters", "The queue counters, in summary.csv's order.")
probe_kinds = _names("probe_kinds", "The kinds of probe.csv's rows (numaring-bench --probe).")
probe_meta = _names("probe_meta", "The facts of probe.csv's meta rows (their method field).")


def limits():
    """{option: bounds} of every option numaring-bench checks (see limit())."""
    return {k: dict(v) for k, v in data()["limits"].items()}


def limit(option):
    """The bounds numaring-bench checks option's values against (option as
    spelled without "--"): whole (a whole number, else a real one), min, max,
    min_in, max_in (the bound itself allowed), pow2 (a power of two)."""
    return dict(data()["limits"][option])


def summary_columns():
    """summary.csv's columns, in order (numaring-bench --schema's)."""
    return tuple(c["name"] for c in data()["summary_columns"])
