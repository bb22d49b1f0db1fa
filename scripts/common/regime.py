# SPDX-License-Identifier: BSD-2-Clause
"""regime.py - which regime a run ran in, from what it measured.

A closed-loop run with one producer side and one consumer side settles where
the slower side sets the pace: the queue near empty (the consumer waits for
the producer; each item's lines are handed over as soon as written) or full
(the producer waits for the consumer). The two regimes move different lines
and differ several-fold in throughput, and with nothing pacing either side a
1P1C run lands in one or the other by chance. A median over runs of both
kinds, or a ratio of two queues' medians, then compares regime mixes, not
queues. So every run gets its regime, measured, and comparisons are made
within one:

  occupancy           items in the queue on average (Little's law: throughput
                      x mean latency, the harness's inflight) over the slots
                      the queue has (numaring: capacity per node ring x nodes)
  full retries        enqueues that found the queue full, per item enqueued
  empty polls         dequeues that found it empty, per item dequeued
  regime              open-loop (an offered rate set the pace), else full where
                      occupancy >= FULL_OCCUPANCY, near-empty below it; where
                      no latency was recorded (faa, null), full where full
                      retries outnumber empty polls per item, else near-empty
  pace                how the sweep pinned it (expfile's pace key, recorded as
                      producer_work_ns / consumer_work_ns): producer-paced
                      (should run near empty), consumer-paced (full), free

The runner writes occupancy, the two rates and the regime into the tidy CSV
(annotate()); of() reads them back, or classifies an older row itself.
"""

from . import tidy

__all__ = ["REGIMES", "PACES", "FULL_OCCUPANCY", "SATURATED_SHARE", "saturated", "occupancy",
           "classify", "of", "pace_of", "group_of", "expected", "annotate", "COLUMNS", "split"]

REGIMES = ("near-empty", "full", "open-loop")
PACES = ("free", "producer-paced", "consumer-paced")
#: at least half the slots in use on average: the consumer sets the pace
FULL_OCCUPANCY = 0.5
#: the tidy CSV's columns this module adds, in order
COLUMNS = ("occupancy", "full_retries_per_item", "empty_polls_per_item", "regime")


_n = tidy.num


def slots(row):
    """The items the queue can hold in the run: capacity, per node ring for
    numaring (x the run's nodes); None if unknown."""
    cap = _n(row, "capacity")
    if not cap:
        return None
    if (row.get("queue") or "") == "numaring":
        cap *= max(1, int(_n(row, "nodes") or 1))
    return cap


def occupancy(row):
    """Average items in the queue over its slots (Little's law); None where
    the run recorded no latency."""
    inflight, cap = _n(row, "inflight"), slots(row)
    if inflight is None or not cap or not (_n(row, "latency_count") or 0) > 0:
        return None
    return inflight / cap


def per_item(row, count, items):
    c, n = _n(row, count), _n(row, items)
    if c is None or not n:
        return None
    return c / n


def closed_loop(row):
    return not (_n(row, "rate") or 0) > 0


#: an open-loop run that delivered less than this share of its offered rate
#: left at least 1% of its items behind: a backlog that grew through its
#: window, so its latency measures the queue's queueing, not the queue
#: (F3 is latency *below* saturation)
SATURATED_SHARE = 0.99


def saturated(row):
    """1 where an open-loop run's backlog grew through its window (it delivered
    less than SATURATED_SHARE of its offered rate), 0 where it kept up, None
    for a closed-loop run or one that lacks the numbers."""
    rate, thr = _n(row, "rate"), _n(row, "throughput_ops_per_s")
    if not rate or rate <= 0 or thr is None:
        return None
    return int(thr < SATURATED_SHARE * rate)


def classify(row):
    """The regime of one run from its measurements (see the module's text)."""
    if not closed_loop(row):
        return "open-loop"
    occ = occupancy(row)
    if occ is not None:
        return "full" if occ >= FULL_OCCUPANCY else "near-empty"
    fr = per_item(row, "full_retries", "enqueued")
    ep = per_item(row, "empty_polls", "dequeued")
    if fr is None and ep is None:
        return ""
    return "full" if (fr or 0) > (ep or 0) else "near-empty"


def of(row):
    """The row's regime: the tidy CSV's column where the runner wrote one,
    else classify(row)."""
    v = (row.get("regime") or "").strip()
    return v if v else classify(row)


def pace_of(row):
    """How the sweep pinned the run: producer-paced, consumer-paced or free.
    The paced side works more (expfile.pace_args: the point's work plus the
    pace); equal work on both sides is free."""
    pw, cw = _n(row, "producer_work_ns") or 0, _n(row, "consumer_work_ns") or 0
    if (row.get("workload") or "prodcons") != "prodcons":
        return "free"   # pairs, mixed: no sides to pace
    if pw > cw:
        return "producer-paced"
    if cw > pw:
        return "consumer-paced"
    return "free"


def expected(pace):
    """The regime a pinned pace should produce (None for free)."""
    return {"producer-paced": "near-empty", "consumer-paced": "full"}.get(pace)


def group_of(row):
    """(pace, regime): the group within which runs are compared."""
    return pace_of(row), of(row)


def group_label(group):
    pace, reg = group
    return reg if pace == "free" else f"{pace}, {reg}"


def annotate(row):
    """The COLUMNS values of one run (strings, '' where unknown), for the tidy CSV."""
    occ = occupancy(row)
    fr = per_item(row, "full_retries", "enqueued")
    ep = per_item(row, "empty_polls", "dequeued")

    def f(v):
        return "" if v is None else f"{v:.6g}"
    return [f(occ), f(fr), f(ep), classify(row)]


def split(rows):
    """{(pace, regime): rows} in a stable order (pace, then regime)."""
    out = {}
    for r in rows:
        out.setdefault(group_of(r), []).append(r)
    order = {p: i for i, p in enumerate(PACES)}
    rorder = {g: i for i, g in enumerate(REGIMES)}
    return dict(sorted(out.items(), key=lambda kv: (order.get(kv[0][0], 9),
                                                    rorder.get(kv[0][1], 9))))


def mixed_note(rows):
    """'' where every run of rows ran in one group, else e.g. '3 near-empty, 2
    full': the runs a median over all of them would mix."""
    groups = split(rows)
    if len(groups) <= 1:
        return ""
    return ", ".join(f"{len(rs)} {group_label(g)}" for g, rs in groups.items())


def in_group(rows, group):
    """The rows of one (pace, regime) group."""
    return [r for r in rows if group_of(r) == group]


def headline(groups):
    """The group a summary quotes first, of {(pace, regime): Interval}: the
    free-running one with the most paired repetitions (the sweep's natural
    condition), else the pinned one with the most; ties go to near-empty.
    None for no group. Every other group is stated beside it."""
    if not groups:
        return None
    free = {g: iv for g, iv in groups.items() if g[0] == "free"}
    pool = free or groups
    rank = {g: i for i, g in enumerate(REGIMES)}
    return max(pool, key=lambda g: (pool[g].n, -rank.get(g[1], 9)))
