# SPDX-License-Identifier: BSD-2-Clause
"""ceiling.py - the physical ceiling model (study finding F5).

The highest throughput (items per second) that a queue of a given protocol
can reach for a placement, a batch size and an item kind, computed from the
host probe's measurements (numaring-bench --probe, probe.csv) of the host
that ran the point. Every throughput plot draws it, every point gets
measured / ceiling and the name of the bound that binds, and a point above
its ceiling is a failure of the model (check_rows, `ceiling.py --check`).

What is counted: 64-byte cache lines moved between caches
------------------------------------------------------------
Per item, in lines, split by direction: "to C" lines the consumer pulls
(written by a producer), "to P" lines the producer pulls (written back by a
consumer). A line holding k consecutive items moves once per direction for
those k items at best (the consumer a whole line behind the producer), so an
x-byte slot counts x/64; a line the protocol reads once per operation counts
1/s, where s is the items an operation moves (the burst size with bursts,
else 1). These are the fewest lines the protocol needs; when both sides work
on the same line it moves more often, which only lowers what is reached.

  queue            slot (per item)          index lines per operation    other, per item           RMW/op  line shared by
                                            to C        to P                                       P   C
  numaring, flat   16 B cell, both ways:    0           0            -                             1   1   tail (P), head (C)
                   2 x 16/64
  rte              8 B slot, to C: 8/64     1           1            -                             1   1   prod line (P), cons line (C)
  ck               8 B slot, to C: 8/64     1           1            - (no bursts: s = 1)          1   1   p_head/p_tail (P), c_head (C)
  moodycamel       8 B slot, to C: 8/64     1           0            to P: empty flag 1/64 +       0   2   none (P: own sub-queue),
                                                                     head per 32-item block 1/32           a sub-queue (C, when C > P)
  urcu             16 B node, both ways:    0           0            node pool: 1/32 each way      1   2   tail (P), dequeue mutex (C)
                   2 x 16/64
  mutex            8 B slot, to C: 8/64     1           1            -                             2   2   one lock line for all
  faa              nothing                  0           0            -                             1   1   tail (P), head (C)
  message items    + the harness's 16-byte message (struct hb_msg, 4 to a line): 16/64 each way
                   (faa: none, nothing travels)
  null             not a queue: no ceiling

"Index lines per operation" are reads of the other side's index (rte's
producer reads cons.tail, its consumer prod.tail; NumaRing's operations,
bursts included, look at the cells instead; the mutex's lock line comes
from whoever held it). A numaring run with producers and consumers on
different nodes (--pin split) moves items between nodes in transfers of b_r
items, b_r the REALIZED items per transfer (the row's items_per_transfer, or
its counters (items_in + items_out) / (batches_in + batches_out), else the
configured batch): its index lines are 1/b_r each way (the other node's ring
read once per transfer) and its cells cross between the nodes.

Assumptions
  A1. Every operation costs at least its atomic read-modify-writes (RMW/op
      above), each at least t_a, the probe's uncontended fetch-and-add
      (faa_uncontended_ns); a burst of s items is one operation.
  A2. Each thread pulls lines that another core has just written at no more
      than BW_p (c2c_bw_same_node_gbs; c2c_bw_other_node_gbs across nodes:
      one reader streaming lines one writer has just modified); all threads
      of a node (or across two nodes) together at no more than BW_m
      (c2c_bw_mt_same_node_gbs / c2c_bw_mt_other_node_gbs, pairs streaming
      at once; across real nodes bw_remote_mt_gbs where that is missing).
      Lines to C are pulled by the C consumers, lines to P by the P
      producers.
  A3. Hand-over, pipelined. An item's lines are written on one core and read
      on another, so every item spends at least t_c in the queue (t_c the
      probe's one-way line transfer: c2c_one_way_same_node, or
      c2c_one_way_other_node for a split placement), however many items'
      lines are in flight at once. With L items in flight on average (the
      run's own inflight, Little's law: throughput x mean latency from the
      producer's stamp to the consumer's), throughput is at most L / t_c.
      L is the hand-over depth: about one item in lockstep, several when
      the consumer reads a line that holds items written since its last
      look (near empty, bursts), the ring's capacity when it is full. So the
      term needs the run's latency: rows without one (faa, null, a run that
      recorded none) get none, and it is a statement about each run (a
      group's ratio is the median of its runs' ratios, group_ratio()).
      t_c is the smaller of the probe's and the run's own: each run times
      one line's trip between its first producer's and first consumer's
      CPUs just before and just after its window (summary.csv's
      c2c_one_way_before_ns, c2c_one_way_after_ns; harness/pingpong.h).
      Under a hypervisor the distance between two vCPUs is not fixed (on the
      development VM it flipped between two values several times apart from
      second to second): a probe that ran while they sat far apart
      would overstate t_c for a run that had them close, and the bound
      would no longer hold. The smaller of the two keeps it a bound; a run
      whose ends were both far keeps the probe's (it may have been close in
      between).
      An earlier form of this term assumed lockstep, one miss of the other
      side's index per operation (n s / (i t_c)); rte_ring's single
      operations in the full regime beat it by 12% on one host: sides that
      alternate in bursts read several operations' worth per miss.
  A4. A line that several threads on different CPUs write is serial: they do
      not add up. Its operations take at least t_s each, in total, t_s the
      probe's measured time per operation on one line fought over by two
      threads (faa_contended_ns / 2, both threads counted;
      faa_contended_other_node_ns / 2 for a line fought over from two
      nodes). On the hosts probed so far t_s is well below t_c (a holder
      keeps the line for a few operations), so one hand-over of t_c per
      operation would not be a bound.
  A5. A numaring split run moves every item between the nodes in a transfer
      of b_r items (its realized batch) by one mover: every producer and
      consumer with the per-worker gate, one per node with the per-node gate,
      one at a time with the shared gate. A transfer waits for one line from
      the other node (t_x = c2c_one_way_other_node: the other ring's index)
      before its data, then pulls its b_r 16-byte cells at BW_p.
  A6. Oversubscribed rows (the tidy CSV's oversubscribed = 1: threads share
      CPUs) keep only what holds when threads share a CPU: a shared line
      serves one RMW per t_a wherever it is (A4 with t_a), and lines need not
      move between caches (no A2, A3).

Equations, with P producers, C consumers, s items per operation, L_C and L_P
lines per item (to C, to P), i_C and i_P index lines per operation, r_P and
r_C RMWs per operation:
  ops        = min(P s / (r_P t_a), C s / (r_C t_a))                     (A1)
  bandwidth  = min(C BW_p / (64 L_C), P BW_p / (64 L_P), BW_m / (64 (L_C + L_P)))   (A2)
  latency    = L / t_c   L: the run's items in flight (inflight)        (A3)
  contention = per side whose line is shared by more than one thread:
               s / t_s; numaring off a split placement: N s / t_s when the
               side has more threads than the N nodes of the run (one ring
               per node); moodycamel's consumers: P s / t_s when C > P;
               the mutex: s / (2 t_s) (two acquisitions per item)        (A4)
  crossing   = M b_r / (t_x + b_r 16 B / BW_p)   numaring, split only    (A5)
               M = P + C (per-worker gate), 2 (per-node), 1 (shared)
  ceiling    = the smallest of those that apply; binding() names it.

faa (one fetch-and-add per operation, no data) is bound by ops with one
producer and one consumer: the model's measured counterpart.
"""

import math
import os
import sys

from ..common import manifest
from ..common.tidy import read_lists, read_rows

LINE = 64             # bytes per cache line
MESSAGE_BYTES = 16    # sizeof(struct hb_msg) (harness/item.h): 4 to a line
CELL_BYTES = 16       # struct nr_cell (ring/src/nr_ring.h): seq + item

TERMS = ("ops", "bandwidth", "latency", "contention", "crossing")

# The protocol of each queue (see the table above):
#   slot        bytes of the slot/cell/node the producer writes per item
#   slot_back   the consumer writes it back (its line returns to the producer)
#   idx, idx_burst
#               index lines read per operation (to C, to P): single, burst
#   extra       other lines per item (to C, to P)
#   rmw         atomic read-modify-writes per operation (producer, consumer)
#   shared      who shares a line per side: "own" (nobody), "shared" (all of
#               the side), "subqueue" (moodycamel consumers), "all" (both
#               sides on one line)
#   bursts      whether a burst is one operation (ck loops: s = 1)
#   data        whether anything travels (faa: no)


def _protocol(slot, slot_back, idx, extra=(0.0, 0.0), rmw=(1, 1), shared=("shared", "shared")):
    return dict(slot=slot, slot_back=slot_back, idx=idx, idx_burst=idx, extra=extra, rmw=rmw,
                shared=shared)


PROTOCOLS = {
    "numaring": _protocol(CELL_BYTES, True, (0, 0)),
    "flat": _protocol(CELL_BYTES, True, (0, 0)),
    "rte": _protocol(8, False, (1, 1)),
    "ck": _protocol(8, False, (1, 1)),
    "moodycamel": _protocol(8, False, (1, 0), extra=(0.0, 1 / 64 + 1 / 32), rmw=(0, 2),
                            shared=("own", "subqueue")),
    "urcu": _protocol(16, True, (0, 0), extra=(1 / 32, 1 / 32), rmw=(1, 2)),
    "mutex": _protocol(8, False, (1, 1), rmw=(2, 2), shared=("all", "all")),
    "faa": _protocol(0, False, (0, 0)),
}
# bursts and data: what numaring-bench's adapter of the queue says of itself
# (scripts/manifest.json): burst operations both ways, items that travel.
for _q, _pr in PROTOCOLS.items():
    _pr.update(bursts=manifest.queue(_q)["bursts"], data=manifest.queue(_q)["moves_data"])

#: the kinds of probe.csv's rows: numaring-bench --probe's (harness/probe_rows.h,
#: through scripts/manifest.json)
PROBE_KINDS = manifest.probe_kinds()


class Probe:
    """The numbers of one probe.csv that the model uses (ns, GB/s)."""

    def __init__(self, path):
        self.path, self.values = path, {}
        table = read_lists(path)
        header = table[0] if table else []
        need = {"kind", "value", "method"}
        if not need <= set(header):
            raise ValueError(f"{path}: not a probe.csv (needs columns {', '.join(sorted(need))})")
        for line, cells in enumerate(table[1:], 2):
            if not cells:
                continue  # a blank line, as csv.DictReader skips it
            row = dict(zip(header, cells + [None] * (len(header) - len(cells))))
            kind = row["kind"]
            if kind not in PROBE_KINDS:
                raise ValueError(f"{path}:{line}: kind {kind!r} is not one numaring-bench "
                                 "--probe writes (scripts/manifest.json)")
            # meta rows say how the probe ran, no number; the model reads none
            # of the rows kept per pair (c2c_rtt) or per look-up mode
            # (lookup_ns): they are kept like the others, the first of each
            if kind == "meta" or row["value"] in ("", None):
                continue
            try:
                v = float(row["value"])
            except ValueError:
                raise ValueError(f"{path}:{line}: value {row['value']!r} is not a number") from None
            if not (math.isfinite(v) and v > 0):
                continue  # nothing to bound with: the model's stand-ins apply
            # bandwidths repeat per node: keep the best (an upper bound);
            # other kinds: the first
            if kind.endswith("_gbs"):
                self.values[kind] = max(v, self.values.get(kind, 0.0))
            else:
                self.values.setdefault(kind, v)
        if "faa_uncontended_ns" not in self.values:
            raise ValueError(f"{path}: no faa_uncontended_ns row: cannot compute a ceiling")

    def get(self, kind):
        return self.values.get(kind)


load_probe = Probe


def host_probe(hostdir):
    """The Probe of results/<host>/probe/probe.csv, None where there is none."""
    path = os.path.join(hostdir, "probe", "probe.csv")
    return load_probe(path) if os.path.exists(path) else None


def _first(probe, *kinds):
    return next((v for v in map(probe.get, kinds) if v), None)


def params(probe, split=False):
    """The model's inputs from one probe (ns, GB/s), for a row on one node or
    (split) across nodes; None where the probe lacks them and has no stand-in.
      t_a    uncontended RMW                        faa_uncontended_ns
      t_s    per operation on a line two threads fight over (A4)
                                                    faa_contended_ns / 2
      t_s_x  the same from two nodes                faa_contended_other_node_ns / 2
      t_c    one-way line transfer for the row's placement (A3)
      t_x    one-way line transfer across nodes (A5)
      bw_p   one thread pulling freshly written lines (A2)
      bw_m   all threads of the node(s) together, or None (A2)
    Stand-ins, each looser (higher) than what it replaces: an older probe
    without the cache-to-cache stream uses one thread's memory read
    bandwidth; within a node, the other-node figures of an emulated host (one
    socket) and vice versa."""
    c, cx = probe.get("faa_contended_ns"), probe.get("faa_contended_other_node_ns")
    t_s = c / 2 if c else None
    same = _first(probe, "c2c_one_way_same_node", "c2c_one_way_other_node")
    other = _first(probe, "c2c_one_way_other_node", "c2c_one_way_same_node")
    if split:
        bw_p = _first(probe, "c2c_bw_other_node_gbs", "c2c_bw_same_node_gbs", "bw_remote_gbs",
                      "bw_local_gbs")
        bw_m = _first(probe, "c2c_bw_mt_other_node_gbs", "bw_remote_mt_gbs")
    else:
        bw_p = _first(probe, "c2c_bw_same_node_gbs", "c2c_bw_other_node_gbs", "bw_local_gbs")
        bw_m = _first(probe, "c2c_bw_mt_same_node_gbs")
    return {"t_a": probe.get("faa_uncontended_ns"), "t_s": t_s,
            "t_s_x": cx / 2 if cx else t_s, "t_c": other if split else same,
            "t_x": other, "bw_p": bw_p, "bw_m": bw_m}


def model_numbers(probe):
    """The probe's inputs to the model as the paper quotes them (one node):
    t_a_ns, t_s_ns, t_c_ns, t_x_ns (None on one node), bw_pull_gbs,
    bw_pull_x_gbs, bw_local_gbs, bw_local_mt_gbs, bw_remote_mt_gbs."""
    p, px = params(probe), params(probe, split=True)
    return {"t_a_ns": p["t_a"], "t_s_ns": p["t_s"], "t_c_ns": p["t_c"],
            "t_x_ns": probe.get("c2c_one_way_other_node"), "bw_pull_gbs": p["bw_p"],
            "bw_pull_x_gbs": px["bw_p"], "bw_local_gbs": probe.get("bw_local_gbs"),
            "bw_local_mt_gbs": probe.get("bw_local_mt_gbs"),
            "bw_remote_mt_gbs": probe.get("bw_remote_mt_gbs")}


# --------------------------------------------------------------------------
# Lines per item

def protocol(queue):
    """The protocol entry of a queue (numaring when the row names none), or
    None for one the model does not know (null, fault, ...)."""
    return PROTOCOLS.get(queue or "numaring")


def items_per_op(queue, batch, bursts):
    """s: items one operation moves (the burst size where a burst is one
    operation, else 1)."""
    pr = protocol(queue)
    return max(1, int(batch)) if bursts and pr and pr["bursts"] else 1


def lines_per_item(queue, item="inline", bursts=False, batch=1, split=False, realized=None):
    """64-byte lines moved between caches per item: a dict with to_c (pulled
    by consumers), to_p (pulled by producers), total, and the parts slot,
    index, message, other (each both directions together). realized: items
    per cross-node transfer of a numaring split run (default: batch). None
    for a queue the model does not know."""
    pr = protocol(queue)
    if pr is None:
        return None
    s = items_per_op(queue, batch, bursts)
    if split and (queue or "numaring") == "numaring":
        per = max(1.0, float(realized if realized else batch))
        i_c, i_p = 1, 1       # the other node's ring, once per transfer
    else:
        per = s
        i_c, i_p = pr["idx_burst"] if s > 1 or (bursts and pr["bursts"]) else pr["idx"]
    slot_c = pr["slot"] / LINE
    slot_p = pr["slot"] / LINE if pr["slot_back"] else 0.0
    msg = MESSAGE_BYTES / LINE if (item == "message" and pr["data"]) else 0.0
    idx_c, idx_p = i_c / per, i_p / per
    ex_c, ex_p = pr["extra"]
    to_c, to_p = slot_c + msg + idx_c + ex_c, slot_p + msg + idx_p + ex_p
    return {"to_c": to_c, "to_p": to_p, "total": to_c + to_p, "slot": slot_c + slot_p,
            "index": idx_c + idx_p, "message": 2 * msg, "other": ex_c + ex_p}


# --------------------------------------------------------------------------
# The terms

def _num(row, key, default):
    """A number of a row whose values are strings (a csv row) or numbers
    (nrdata's typed rows); default where it is empty."""
    v = row.get(key, "")
    if v is None or (isinstance(v, str) and not v.strip()):
        return default
    return float(v)


def _val(row, key, default=None):
    """_num, and default where the value is no number either."""
    try:
        return _num(row, key, default)
    except ValueError:
        return default


def realized_batch(row):
    """Items per cross-node transfer that the run realized: items_per_transfer,
    else (items_in + items_out) / (batches_in + batches_out), else the
    configured batch."""
    try:
        v = _num(row, "items_per_transfer", None)
        if v and v > 0:
            return v
        bt = _num(row, "batches_in", 0) + _num(row, "batches_out", 0)
        it = _num(row, "items_in", 0) + _num(row, "items_out", 0)
        if bt > 0 and it > 0:
            return it / bt
    except ValueError:
        pass
    return _num(row, "batch", 1)


def _terms(pp, queue, item, p, c, batch, bursts, split, realized=None, gate="perworker",
           oversubscribed=False, nodes=1, inflight=None):
    pr = protocol(queue)
    if pr is None:
        return None
    queue = queue or "numaring"
    s = items_per_op(queue, batch, bursts)
    out = dict.fromkeys(TERMS)
    t_a = pp["t_a"]
    r_p, r_c = pr["rmw"]
    sides = [n * s / (r * t_a * 1e-9) for n, r in ((p, r_p), (c, r_c)) if r]
    out["ops"] = min(sides) if sides else None

    lines = lines_per_item(queue, item, bursts, batch, split, realized)
    if pr["data"] and not oversubscribed and pp["bw_p"]:
        bw = pp["bw_p"] * 1e9 / LINE   # lines per second, one thread
        b = [n * bw / lines[k] for n, k in ((c, "to_c"), (p, "to_p")) if lines[k] > 0]
        if pp["bw_m"] and lines["total"] > 0:
            b.append(pp["bw_m"] * 1e9 / LINE / lines["total"])
        out["bandwidth"] = min(b) if b else None

    if pr["data"] and not oversubscribed and pp["t_c"] and inflight and inflight > 0:
        out["latency"] = inflight / (pp["t_c"] * 1e-9)

    t_line = t_a if oversubscribed else pp["t_s"]
    if t_line:
        t_line *= 1e-9
        sh_p, sh_c = pr["shared"]
        if sh_p == "all":
            t_all = (t_a * (r_p + r_c) * 1e-9 if oversubscribed
                     else 2 * (pp["t_s_x"] if split else pp["t_s"]) * 1e-9)
            out["contention"] = s / t_all
        else:
            cont = []
            per_op = lambda r: t_line * (r if oversubscribed else 1)  # noqa: E731
            # numaring off a split placement: one ring per node, so threads
            # of a side may spread over up to `nodes` lines
            rings = max(1, int(nodes)) if queue == "numaring" and not split else 1
            if sh_p == "shared" and p > rings:
                cont.append(rings * s / per_op(r_p))
            if sh_c == "shared" and c > rings:
                cont.append(rings * s / per_op(r_c))
            if sh_c == "subqueue" and c > max(p, 1):
                cont.append(p * s / per_op(r_c))
            out["contention"] = min(cont) if cont else None

    if split and queue == "numaring" and pp["t_x"] and pp["bw_p"]:
        b_r = max(1.0, float(realized if realized else batch))
        movers = {"shared": 1, "pernode": 2}.get(gate or "perworker", p + c)
        per_transfer = pp["t_x"] * 1e-9 + b_r * CELL_BYTES / (pp["bw_p"] * 1e9)
        out["crossing"] = movers * b_r / per_transfer
    return out


def bounds(probe, producers, consumers, batch, bursts, split, t_atomic=None, t_remote=None,
           bw=None, bw_x=None, queue="numaring", item="inline", realized=None,
           gate="perworker", oversubscribed=False, t_contended=None, t_c2c=None, nodes=1,
           inflight=None):
    """The model's terms (items/s) for one configuration: a dict with every
    name of TERMS, None where a term does not apply (latency: only with
    inflight, the items in flight of a run, A3). The overrides replace
    the probe's inputs: t_atomic (t_a), t_contended (t_s), t_c2c (t_c),
    t_remote (t_x, ns), bw (BW_p within a node), bw_x (BW_p across, GB/s).
    item: "inline" or "message"."""
    pp = params(probe, split)
    over = {"t_a": t_atomic, "t_s": t_contended, "t_s_x": t_contended, "t_x": t_remote,
            "t_c": t_remote if split else t_c2c, "bw_p": bw_x if split else bw}
    pp.update((k, v) for k, v in over.items() if v is not None)
    return _terms(pp, queue, item, producers, consumers, batch, bursts, split, realized, gate,
                  oversubscribed, nodes, inflight)


def inflight_of(row):
    """Items in flight on average in a run (Little's law: the harness's
    inflight column), or None where the run recorded no latency."""
    n, v = _val(row, "latency_count", 0), _val(row, "inflight")
    return v if n and n > 0 and v and v > 0 else None


def run_t_c(row):
    """The run's own one-way line trip between its first producer's and
    first consumer's CPUs, ns: the smaller of the two the harness timed just
    before and just after the run (c2c_one_way_before_ns, _after_ns); None
    where neither was timed (older CSVs, threads sharing a CPU or not
    pinned)."""
    v = [x for x in (_val(row, "c2c_one_way_before_ns"), _val(row, "c2c_one_way_after_ns"))
         if x and x > 0]
    return min(v) if v else None


def params_of(probe, row):
    """params() for one tidy-CSV row: its placement's, with A3's t_c the
    smaller of the probe's and the run's own (run_t_c)."""
    pp = params(probe, row.get("pin") == "split")
    rt = run_t_c(row)
    if rt and (not pp["t_c"] or rt < pp["t_c"]):
        pp["t_c"] = rt
    return pp


def terms(probe, row):
    """Every term of the model for one tidy-CSV row (dict of strings), or None
    if the row lacks what the model needs or names a queue it does not know."""
    try:
        p, c, batch, bursts = (int(_num(row, k, d)) for k, d in
                               (("producers", 0), ("consumers", 0), ("batch", 1), ("bursts", 0)))
    except ValueError:
        return None
    if p < 1 or c < 1 or batch < 1:
        return None
    split = row.get("pin") == "split"
    item = "message" if row.get("item") == "message" else "inline"
    return _terms(params_of(probe, row), row.get("queue"), item, p, c, batch, bursts, split,
                  realized_batch(row) if split else None, row.get("gate") or "perworker",
                  _val(row, "oversubscribed", 0) == 1, _val(row, "nodes", 1), inflight_of(row))


def _smallest(t):
    vals = {k: v for k, v in (t or {}).items() if v}
    k = min(vals, key=vals.get, default=None)
    return k, vals.get(k)


def ceiling_ops_per_s(probe, row):
    """The model's highest throughput for one tidy-CSV row (dict of strings),
    or None if the row lacks what the model needs (or is no queue the model
    knows: null)."""
    return _smallest(terms(probe, row))[1]


def binding(probe, row):
    """The name of the term that sets the ceiling for a row ('ops',
    'bandwidth', 'latency', 'contention' or 'crossing'), or None."""
    return _smallest(terms(probe, row))[0]


def modelled(row):
    """Whether the model speaks of a row: producers handing items to
    consumers (workload prodcons). A symmetric workload's throughput counts
    operations, each thread both sides of a hand-over: no term of the model
    describes it."""
    return (row.get("workload") or "prodcons").strip() in ("", "prodcons")


def sojourn_in_transfers(probe, row):
    """A run's mean item latency (inflight / throughput) in one-way line
    transfers t_c of its placement: 1 / (measured / latency term). None where
    the run recorded no latency or the probe has no t_c."""
    L, m = inflight_of(row), _val(row, "throughput_ops_per_s")
    t_c = params_of(probe, row)["t_c"]
    return L / m * 1e9 / t_c if L and m and t_c else None


def _measured(probe, rows):
    """(index, row, measured, ceiling, binding term) of every row with both."""
    for i, r in enumerate(rows):
        m = _val(r, "throughput_ops_per_s")
        if m:
            name, c = _smallest(terms(probe, r))
            if c:
                yield i, r, m, c, name


def group_ratio(probe, rows):
    """A group of runs of one point against the model, each run against its
    own ceiling (A3's term is a run's): a dict with ratio (the median of
    measured / ceiling), ceiling (the median ceiling, items/s), measured
    (the median throughput) and bound (the term binding most runs; ties: the
    first in TERMS), or None where no run has both."""
    import statistics
    per = [(m, c, name) for _, _, m, c, name in _measured(probe, rows)]
    if not per:
        return None
    names = [n for _, _, n in per]
    bound = max(TERMS, key=lambda t: (names.count(t), -TERMS.index(t)))
    return {"ratio": statistics.median(m / c for m, c, _ in per),
            "ceiling": statistics.median(c for _, c, _ in per),
            "measured": statistics.median(m for m, _, _ in per), "bound": bound,
            "runs": len(per)}


def check_rows(probe, rows, tolerance=0.0):
    """The model's failures: every row whose measured throughput exceeds its
    ceiling by more than `tolerance` (a fraction). A list of dicts (index,
    queue, measured, ceiling, ratio, bound); empty when the model holds."""
    return [{"index": i, "queue": r.get("queue", ""), "point": r.get("point", ""),
             "measured": m, "ceiling": c, "ratio": m / c, "bound": name}
            for i, r, m, c, name in _measured(probe, rows)
            if modelled(r) and m > c * (1.0 + tolerance)]


def check_host(hostdir, tolerance=0.0):
    """check_rows over every tidy CSV of results/<host>/ with its probe: a list
    of (csv name, violation); [] also where there is no probe."""
    probe = host_probe(hostdir)
    if not probe:
        return []
    out = []
    for name in sorted(n for n in os.listdir(hostdir) if n.endswith(".csv")):
        rows = read_rows(os.path.join(hostdir, name))
        if rows and "throughput_ops_per_s" in rows[0]:
            out += [(name, v) for v in check_rows(probe, rows, tolerance)]
    return out


# --------------------------------------------------------------------------
# Predictions for hosts we did not measure

# Published one-way cache-line latencies within one socket and across
# sockets, ns, from the open-source core-to-core-latency tool (N. Viennot,
# github.com/nviennot/core-to-core-latency, README results), which reports
# half of a compare-exchange round trip on one line: one way already, used as
# they are. Inputs of a prediction, not measurements of ours.
PUBLISHED = {
    "Xeon Gold 6242 (2 sockets)": (48.0, 136.0),
    "AWS c6i.metal, Ice Lake (2 sockets)": (51.0, 108.0),
    "AWS c6a.metal, EPYC 7R13 (2 sockets)": (107.0, 197.0),  # within: 23-107, worst case
}


def predict_two_socket(probe, within_ns, across_ns, producers=16, consumers=16,
                       batches=(1, 4, 16, 64, 256), terms=False, gate="perworker"):
    """Predicted ceilings (items/s) of numaring for a 2x16 split placement like
    the study's (inline items, single operations, the gate ``gate``, realized
    batch = batch), from published ONE-WAY latencies within and across
    sockets, used as they are (not halved again): t_x = across_ns, and the
    contended-line time t_s scaled from this host's by within_ns / this
    host's one-way latency (a fought-over line changes hands as fast as the
    socket moves lines); this host's t_a and BW_p stand in for the other
    machine's. {batch: ceiling}, or with terms=True {batch: (ceiling, binding
    term, {term: items/s})}."""
    pp = params(probe, split=True)
    here = _first(probe, "c2c_one_way_same_node", "c2c_one_way_other_node")
    t_s = pp["t_s"] * within_ns / here if pp["t_s"] and here else pp["t_s"]
    out = {}
    for b in batches:
        bd = bounds(probe, producers, consumers, b, False, True, t_remote=across_ns,
                    t_contended=t_s, t_c2c=within_ns, item="inline", realized=b, gate=gate)
        name, v = _smallest(bd)
        out[b] = (v, name, bd) if terms else v
    return out


def main(argv=None):
    """ceiling.py --check RESULTS/HOST...: every point above its ceiling is a
    failure of the model (exit 1); ceiling.py --terms PROBE.CSV CSV: each
    row's ceiling and binding term."""
    import argparse
    ap = argparse.ArgumentParser(
        prog="python3 -m scripts.analysis.ceiling", description=main.__doc__)
    ap.add_argument("--check", nargs="+", metavar="HOSTDIR")
    ap.add_argument("--terms", nargs=2, metavar=("PROBE", "CSV"))
    ap.add_argument("--tolerance", type=float, default=0.0)
    a = ap.parse_args(argv)
    rc = 0
    for hostdir in a.check or []:
        bad = check_host(hostdir, a.tolerance)
        for name, v in bad:
            print(f"{hostdir}/{name}: point {v['point'] or v['index']} ({v['queue']}) "
                  f"measured {v['measured'] / 1e6:.2f} M/s above its ceiling "
                  f"{v['ceiling'] / 1e6:.2f} M/s ({v['bound']}): the model fails")
        if not bad:
            print(f"{hostdir}: no point above its ceiling")
        rc = 1 if bad else rc
    if a.terms:
        probe = load_probe(a.terms[0])
        for row in read_rows(a.terms[1]):
            t = terms(probe, row)
            name, v = _smallest(t)
            m = _num(row, "throughput_ops_per_s", 0) or 0
            print(f"{row.get('point', '')} {row.get('queue', '')}: measured {m / 1e6:.2f} "
                  f"ceiling {(v or 0) / 1e6:.2f} M/s ({name})")
    return rc


if __name__ == "__main__":
    sys.exit(main())
