# SPDX-License-Identifier: BSD-2-Clause
"""tidy.py - the tidy table's definition, read by the runner and the analysis.

Standard library only (the runner imports it, and the QEMU guest carries the
runner). The tidy table of one experiment (written by scripts/runner/collect.py)
has the runner's columns (RUNNER_COLUMNS: ``experiment,point,rep`` always, then
``profile``, ``role`` and ``oversubscribed`` where the runner wrote them)
followed by the columns of numaring-bench's summary.csv, one row per (point,
rep). A column that does not apply to a row is empty (lookup for a peer
queue, latency for ``faa``). The analysis loads it with pandas
(scripts/analysis/nrdata.py); the functions here read one row, a dict of the
CSV's strings.
"""

import csv
import os

#: summary.csv's columns and their types, as ``numaring-bench --schema`` prints
#: them (harness/schema.h, the one table the C writer uses too); a test keeps
#: this copy equal to the binary's output.
SCHEMA_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "summary-schema.csv")


def _read_schema(path=SCHEMA_PATH):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if not rows or any(r.get("type") not in ("str", "int", "float") for r in rows):
        raise RuntimeError("%s: not numaring-bench --schema output" % path)
    return [(r["column"], r["type"]) for r in rows]


_SCHEMA = _read_schema()

#: The columns of numaring-bench's summary.csv, in its order.
SUMMARY_COLUMNS = [name for name, _ in _SCHEMA]

#: The tidy table's required columns: three of the runner's, then the summary's.
TIDY_COLUMNS = ["experiment", "point", "rep"] + SUMMARY_COLUMNS

#: The runner's columns, in the order collect.py writes them before the
#: summary's: the first three are required, the others optional (profile: the
#: experiment file's profile; role: point or reference; oversubscribed: 1/0,
#: empty or absent where unknown; steal_pct: the share of the CPUs' time
#: stolen by the hypervisor over the run (meta.json's host_load), and stolen:
#: 1 where it was above 3% (scripts/runner/hostenv.py), both empty or absent where
#: unknown; interconnect_bytes_per_item and its
#: interconnect_source: bytes over the socket interconnect per item of the
#: measured window, counted by likwid-perfctr (run --likwid, scripts/runner/nrlikwid.py),
#: empty where not counted; capacity_probe: the runner's capacity probe whose
#: capacity a load point's run was offered a fraction of, <group>-median
#: (the median of its probes, one a round; <group>-r<round> in tables measured
#: before), the same for every gate, empty without a load; placement_reruns
#: and placement_far: how many times the runner re-ran the run because its two
#: CPUs ended more than common/placement.FAR x the probe's trip apart, and 1
#: where the kept run still did (empty: not checked); occupancy,
#: full_retries_per_item, empty_polls_per_item and regime: the run's regime,
#: scripts/common/regime.py, empty where unknown).
RUNNER_COLUMNS = ["experiment", "point", "rep", "profile", "role", "oversubscribed",
                  "steal_pct", "stolen", "interconnect_bytes_per_item", "interconnect_source",
                  "capacity_probe", "placement_reruns", "placement_far", "occupancy",
                  "full_retries_per_item",
                  "empty_polls_per_item", "regime"]

#: The points of an experiment's drift reference, in the order they run.
REFERENCE_POINTS = ("reference-start", "reference-middle", "reference-end")

#: A backoff ran (was exercised) at a point only where at least this many
#: attempts failed per operation: 1 in 1,000 (failed_attempts / ops).
BACKOFF_EXERCISED = 0.001

#: Columns that hold numbers when they are not empty.
INT_COLUMNS = frozenset(["rep", "oversubscribed", "stolen", "placement_reruns",
                         "placement_far"]
                        + [n for n, t in _SCHEMA if t == "int"])
FLOAT_COLUMNS = frozenset([n for n, t in _SCHEMA if t == "float"]
                          + ["interconnect_bytes_per_item", "steal_pct", "occupancy",
                             "full_retries_per_item", "empty_polls_per_item"])
NUMERIC_COLUMNS = INT_COLUMNS | FLOAT_COLUMNS

#: Columns added to summary.csv after results were first committed with
#: inline items: a tidy CSV of an older harness lacks them, and reads as if
#: they were empty (not measured then).
LATER_COLUMNS = frozenset(["load", "capacity_ops_per_s", "inflight", "linger_us",
                           "items_per_transfer", "failed_per_item",
                           # --counters (numaring-bench counters.c)
                           "context_switches", "cpu_migrations", "cycles", "instructions",
                           "llc_misses",
                           # placement by core (--smt): tables from before it
                           # do not say whether threads shared a core
                           "smt", "threads_per_core", "smt_shared",
                           # workloads (--workload, --threads, --work): tables from
                           # before them are prodcons rows without work, whose ops
                           # are items
                           "workload", "threads", "enqueue_share", "prefill", "work_ns",
                           "producer_work_ns", "consumer_work_ns", "work_loops_per_ns",
                           "seed", "ops_kind",
                           # the backoffs' mechanism and spin lengths (issue 21)
                           "gate_backoffs", "backoff_ns_race", "backoff_ns_gate",
                           "pause_spin", "exp_cap", "fairness",
                           # each run's own line trip between its first two CPUs
                           # (harness/pingpong.h)
                           "c2c_one_way_before_ns", "c2c_one_way_after_ns",
                           # --capacity as the whole queue's (issue 31): before
                           # it, capacity was each of numaring's node rings
                           "capacity_scope", "queue_slots",
                           # --work MIN-MAX (issue 31): before it, draws started at 0
                           "work_min_ns",
                           # the order checked on every item (issue 31): before
                           # it, no run checked or reported it
                           "ordering", "ordering_enforced", "inversions_per_million",
                           "max_backward_step", "max_item_age_ns", "stamps_lost",
                           # --queue-mem (issue 31): before it, every queue's memory
                           # went where first touch put it, and no page was counted
                           "queue_mem", "queue_pages",
                           # latency by path (issue 31): numaring's timed items by
                           # the path their dequeue served them from
                           "latency_local_p50_ns", "latency_local_p99_ns",
                           "latency_local_count", "latency_transfer_p50_ns",
                           "latency_transfer_p99_ns", "latency_transfer_count",
                           "latency_held_p50_ns", "latency_held_p99_ns",
                           "latency_held_count"])

#: Columns every row must fill: the plots cannot place a row without them.
REQUIRED_VALUES = ("experiment", "point", "rep", "queue", "producers", "consumers",
                   "batch", "bursts", "throughput_ops_per_s", "topology_kind")

#: Configuration columns: two rows of one point agree on all of them.
CONFIG_COLUMNS = ("profile", "queue", "item", "sample", "producers", "consumers", "lookup", "recheck", "gate",
                  "backoff", "batch", "bursts", "capacity", "capacity_scope", "pin", "topology_kind",
                  "topology", "nodes", "load")

LATENCY_COLUMNS = ["value_ns", "percentile", "total_count",
                   "one_over_one_minus_percentile"]


#: A run is flagged stolen (the tidy CSV's stolen = 1) where the hypervisor
#: took more than this share of its CPUs' time (steal_pct, %).
STEAL_FLAG_PCT = 3.0


def read_rows(path):
    """The rows of a results CSV with a header line (a run's summary.csv, a
    tidy table, probe.csv, claims.csv, peers.csv) as dicts of its strings,
    [] where it has a header only. Every script outside the analysis's pandas
    loader (scripts/analysis/nrdata.py) reads results CSVs through here.
    Raises OSError (UnicodeDecodeError is a ValueError)."""
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def read_lists(path):
    """The lines of a results CSV as lists of strings, the header first
    ([] for an empty file): where the column order matters (the tidy table
    keeps the summary's). Raises OSError."""
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def read_summary(path):
    """The one row of a summary.csv numaring-bench wrote (path: the file).
    Raises OSError, or ValueError where it is not one header and one row."""
    rows = read_rows(path)
    if len(rows) != 1:
        raise ValueError(f"{path}: expected one row, found {len(rows)}")
    return rows[0]


def is_reference(row):
    """True for a run of the experiment's drift reference (role reference, or
    a point named reference-start/-middle/-end)."""
    r = (row.get("role") or "").strip()
    if r:
        return r == "reference"
    return row.get("point", "") in REFERENCE_POINTS


def _flag(row, column):
    v = (row.get(column) or "").strip()
    return None if v == "" else v == "1"


def oversubscribed(row):
    """True where the run's threads outnumbered the CPUs they ran on, False
    where not, None where the table does not say (older tables)."""
    return _flag(row, "oversubscribed")


def stolen(row):
    """True where the hypervisor took more than 3% of the CPUs' time over the
    run (the tidy CSV's stolen, from its steal_pct), False where not, None
    where the table does not say (older tables, no /proc/stat)."""
    return _flag(row, "stolen")


def shares_core(row):
    """True where the run put two of its threads on one core's hardware threads
    (SMT siblings), False where it did not, None where the row does not say.
    Read from smt_shared (1: two threads on one core's hyperthreads, 0: not;
    empty where a thread was not pinned), else a threads_per_core column (1,
    2, ...); tables written before the harness recorded it have neither. The
    smt column (the placement asked: cores or siblings) does not say it: with
    few threads, siblings may go unused."""
    for col, alone in (("smt_shared", 0), ("threads_per_core", 1)):
        v = (row.get(col) or "").strip()
        if v:
            try:
                return float(v) > alone
            except ValueError:
                return None
    return None


def failed_per_item(row):
    """Lost races per operation of a row: failed_attempts / (enqueued +
    dequeued), both counted over the whole run (warm-up included), so that
    the rate is not inflated by the warm-up's races over the window's
    operations; failed_attempts / ops where the whole-run counts are empty.
    None where failed_attempts is empty or there is nothing to divide by."""
    f = num(row, "failed_attempts")
    if f is None:
        return None
    e, d = num(row, "enqueued"), num(row, "dequeued")
    if e is not None and d is not None and e + d > 0:
        return f / (e + d)
    n = num(row, "ops")
    return f / n if n else None


def backoff_exercised(rate):
    """Whether a point with ``rate`` failed attempts per operation (median over
    its runs) exercised its backoff: at least BACKOFF_EXERCISED; None if unknown."""
    if rate is None:
        return None
    return rate >= BACKOFF_EXERCISED


def num(row, column):
    """The number in ``row[column]``, or None where it is empty."""
    v = row.get(column, "")
    v = v.strip() if isinstance(v, str) else v
    if v == "" or v is None:
        return None
    x = float(v)
    return int(x) if column in INT_COLUMNS else x


def threads(row):
    """The threads of a row: its threads column (every row since workloads:
    a pairs or mixed run's threads are each a producer and a consumer, and its
    producers and consumers columns both say threads), else producers +
    consumers (older tables, all prodcons)."""
    v = (row.get("threads") or "").strip()
    if v:
        return int(float(v))
    return int(float(row["producers"])) + int(float(row["consumers"]))


def work_label(row):
    """The row's local work as an experiment file names it: "0", "NS" (each
    operation draws 0..NS ns) or "MIN-MAX" (numaring-bench --work MIN-MAX:
    work_min_ns to work_ns); "0" for rows from before --work."""
    hi, lo = num(row, "work_ns") or 0, num(row, "work_min_ns") or 0
    return f"{lo:g}-{hi:g}" if lo else f"{hi:g}"


def pin_of(row):
    """The row's placement: its pin, compact (numaring-bench's default) where empty."""
    return (row.get("pin") or "").strip() or "compact"


def ns_per_op(row):
    """Nanoseconds per item (1e9 / throughput), or None at zero throughput."""
    t = float(row["throughput_ops_per_s"])
    return 1e9 / t if t > 0 else None
