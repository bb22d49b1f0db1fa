# SPDX-License-Identifier: BSD-2-Clause
"""runorder.py - the plan of one experiment's runs: their order, and who shares a capacity probe.

The runner (scripts/runner/experiments.py) runs an experiment's points in
randomized complete blocks (schedule: round k runs repetition k of every
point, shuffled by random.Random(seed)), with the drift reference at the
start, the middle and the end, and records the order in order.txt so that
a rerun repeats it. Points with a load that differ only in gate and load
form a group (capacity_groups) whose runs are offered the median capacity
of its probes, one a round (the probe's options: probe_opts; its run and
the median: scripts/runner/benchrun.py). Standard library only; nothing here runs or
writes anything.
"""

import contextlib
import random


# ---- the order of the runs ------------------------------------------------------

#: the drift reference's runs, in order: at the start, after half the runs, at the end
REFERENCE_POINTS = ("reference-start", "reference-middle", "reference-end")
ORDER_TXT = "order.txt"


def saved_seed(path):
    """The seed recorded in an order.txt, or None."""
    with contextlib.suppress(OSError, ValueError, IndexError), open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("seed "):
                return int(line.split()[1])
    return None


def schedule(pts, reps, seed, ref=None, base=None):
    """The runs of one experiment, in order: [(point, k, run id)], where point
    is a Point and run id the folder name (the point's id, or reference-*).

    Randomized complete blocks: round k runs repetition k of every point, in
    an order random.Random(seed) shuffles anew for every round. The points a
    claim reads (Point.tier "claim") run all their planned rounds first, then
    the others (figure-only, exploratory), each in their own rounds: a sweep
    interrupted after them has what its claims need. With ``ref`` (a Point),
    the reference runs first, in the middle of the claims' runs and last, as
    reference-start, reference-middle and reference-end (rep 1).

    ``reps``: the rounds of every point, or {point id: rounds} (the stopping
    rule's rounds go to the points an undecided claim reads). ``base`` (<
    reps): the sweep's planned rounds, after which the stopping rule added
    rounds base+1..reps (scripts/common/looks.py). The planned rounds and the
    reference keep the places they had (the same seed draws the same orders),
    and the added rounds follow reference-end, each shuffled by the same
    generator: what ran, in the order it ran."""
    def n_of(p):
        return reps.get(p.id, 0) if isinstance(reps, dict) else reps
    top = max((n_of(p) for p in pts), default=0)
    base = top if base is None else min(base, top)
    rnd = random.Random(seed)
    first = [p for p in pts if getattr(p, "tier", "claim") == "claim"]
    rest = [p for p in pts if getattr(p, "tier", "claim") != "claim"]
    planned, added = [], []
    for group in (first, rest):
        for k in range(1, base + 1):
            order = [p for p in group if n_of(p) >= k]
            rnd.shuffle(order)
            planned.append([(p, k, p.id) for p in order])
    for k in range(base + 1, top + 1):
        order = [p for p in pts if n_of(p) >= k]
        rnd.shuffle(order)
        added.append([(p, k, p.id) for p in order])
    head = [r for rd in planned[:base] for r in rd]   # the claims' rounds
    tail = [r for rd in planned[base:] for r in rd]
    if ref is not None:
        mid = len(head) // 2 if head else len(tail) // 2
        if head:
            head = head[:mid] + [(ref, 1, REFERENCE_POINTS[1])] + head[mid:]
        else:
            tail = tail[:mid] + [(ref, 1, REFERENCE_POINTS[1])] + tail[mid:]
        head = [(ref, 1, REFERENCE_POINTS[0])] + head
        tail = tail + [(ref, 1, REFERENCE_POINTS[2])]
    return head + tail + [r for rd in added for r in rd]


def claims_cut(runs):
    """How many of schedule()'s runs, from the start, are the claims' planned
    rounds with the reference's start and middle: the first phase of a sweep
    (experiments.py run_pass runs every experiment's first phase, then the
    rest)."""
    n = 0
    for i, (p, _k, rid) in enumerate(runs):
        if rid == REFERENCE_POINTS[2]:
            break
        if rid in REFERENCE_POINTS or getattr(p, "tier", "claim") == "claim":
            n = i + 1
        else:
            break
    return n


def order_text(exp, profile, host, seed, ref, runs, base=None):
    last = max((k for _p, k, _r in runs), default=0)
    lines = [f"# the order of the runs of {exp.name} (profile {profile}) on {host}",
             "# rep k of every point runs in round k; the points of a round in the order",
             "# random.Random(seed) shuffles (scripts/runner/experiments.py schedule); the drift",
             "# reference runs first, after half the runs and last. Rerun with --seed to",
             "# repeat this order; columns: position, run folder, rep"]
    if base and last > base:
        lines.append(f"# rounds {base + 1}..{last} were added by the stopping rule "
                     f"(scripts/common/looks.py) after the planned {base}: they follow "
                     "the drift reference's end")
    lines += [f"seed {seed}", f"reference {ref.id if ref is not None else 'none'}"]
    lines += [f"{i} {rid} {k}" for i, (_p, k, rid) in enumerate(runs, 1)]
    return "\n".join(lines) + "\n"


# ---- --load: one capacity probe per group and round ----------------------------

CAPACITY_DIR = "capacity"  # <experiment>/<profile>/capacity/<group>/rep-<k>/
#: what the points of one probe's group may differ in
PROBE_FREE_KEYS = ("gate", "load")
#: a probe's measured run at load 1 after its capacity run: short, and unused
PROBE_TAIL_S = "0.05"


def capacity_groups(pts):
    """{point id: (group id, the group's options)} of the points that run
    with --load: points whose options differ only in gate and load share a
    group, g1, g2, ... in the order of their first point. Every run of a
    group in round k is offered the capacity of one probe (capacity_probe)."""
    ids, out = {}, {}
    for p in pts:
        if "--load" in p.args():
            opts = {k: v for k, v in p.opts.items() if k not in PROBE_FREE_KEYS}
            out[p.id] = (ids.setdefault(tuple(sorted(opts.items())), f"g{len(ids) + 1}"), opts)
    return out


def probe_opts(gopts):
    """The options of a group's capacity probe: the group's with load 1, so
    that numaring-bench measures the capacity as each --load run did (closed
    loop, per-worker gate, load-probe seconds: its capacity_ops_per_s), then
    a short measured run the probe does not use (no warm-up, calibration or
    counters)."""
    o = {k: v for k, v in gopts.items()
         if k not in ("duration", "ops", "warmup", "calibrate", "counters")}
    o.update(load="1", duration=PROBE_TAIL_S, warmup="0", calibrate="0")
    return o


def groups_text(exp, profile, pts, groups):
    """<experiment>/<profile>/capacity/groups.txt: each group's options and points."""
    lines = [f"# the capacity probes of {exp.name} (profile {profile}): the points of a "
             "group differ only in gate and load; in round k every run of group G is offered "
             "load x the median capacity of its probes G/rep-<k>/, one a round "
             "(G/capacity.txt; numaring-bench --capacity-ops; the tidy CSV's "
             "capacity_probe says G-median)"]
    for gid in dict.fromkeys(g for g, _ in groups.values()):
        gopts = next(o for g, o in groups.values() if g == gid)
        lines.append(f"{gid} " + " ".join(f"{k}={v}" for k, v in gopts.items()) + " | points "
                     + " ".join(p.id for p in pts if groups.get(p.id, ("",))[0] == gid))
    return "\n".join(lines) + "\n"
