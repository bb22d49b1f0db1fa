"""ceiling.py - the physical ceiling model (study finding F5).

The highest throughput (items per second) that any queue of NumaRing's design
can reach for a placement, a batch size and an item size, computed from the
host probe's measurements (numaring-bench --probe, probe.csv). Every
throughput plot draws it; every throughput point gets measured / ceiling.

Assumptions
  A1. Every item costs one enqueue on a producer thread and one dequeue on a
      consumer thread, and every operation costs at least one atomic
      read-modify-write on a line the thread already owns: t_atomic, the
      probe's uncontended fetch-and-add (faa_uncontended_ns). A burst of b
      items costs one claim. Threads run on CPUs of their own (placements
      with more threads than CPUs only lower what can be reached).
  A2. An item moves `item_bytes` of data between the producer's and the
      consumer's caches and back: the 16-byte ring cell, read by the
      consumer and released back to the producer (2 x 16 = 32 bytes) with
      inline items (the harness's default: the item is a value); with
      message items also the harness's 32-byte message (2 x 48 = 96 bytes).
      No link moves more bytes per second than the probe's read bandwidth
      (bw_remote_gbs across nodes where measured, else bw_local_gbs).
  A3. When producers and consumers are on different nodes (--pin split),
      every item crosses the interconnect in a batch of b items. A batch
      transfer cannot start its data before one line has come from the other
      node (the claim or the first cell): t_remote, the probe's one-way
      cache-line transfer between nodes (c2c_one_way_other_node; within a
      node when there is no other). Each worker that moves batches (producers
      pushing, consumers stealing) has one transfer in flight at a time.
  A4. Contention between workers on one index line (the fight that F3 and
      F4 measure) is left out on purpose: it is a cost of a given
      implementation, not of the physics, so the ceiling stays an upper bound.

Equations, with P producers, C consumers, burst s (= b with bursts, else 1),
batch b, item size B bytes:
  ops       = min(P, C) * s / t_atomic                     (A1)
  bandwidth = BW / B                                       (A2)
  crossing  = (P + C) * b / (t_remote + b * B / BW_x)      (A3, split only)
  ceiling   = min(ops, bandwidth, crossing)

The faa reference queue (one fetch-and-add per operation, no data) is bound
by `ops` alone: it is the model's measured counterpart.
"""

import csv

INLINE_ITEM_BYTES = 32   # 2 x 16-byte cell, A2
MESSAGE_ITEM_BYTES = 96  # 2 x (16-byte cell + 32-byte message), A2
DEFAULT_ITEM_BYTES = MESSAGE_ITEM_BYTES


def item_bytes_of(row):
    """A2's bytes per item for a tidy row: by its item kind (an empty cell is
    inline, the harness's default, as the plots read it)."""
    return MESSAGE_ITEM_BYTES if row.get("item") == "message" else INLINE_ITEM_BYTES


class Probe:
    """The numbers of one probe.csv that the model uses (ns, GB/s)."""

    def __init__(self, path):
        self.path = path
        self.values = {}
        with open(path, newline="", encoding="utf-8") as f:
            r = csv.DictReader(f)
            need = {"kind", "value", "method"}
            if not r.fieldnames or not need <= set(r.fieldnames):
                raise ValueError(f"{path}: not a probe.csv (needs columns {', '.join(sorted(need))})")
            for line, row in enumerate(r, 2):
                kind = row["kind"]
                if kind in ("meta", "lookup_ns", "c2c_rtt"):
                    if kind == "meta":
                        self.values[f"meta:{row['method']}"] = row["value"]
                    continue
                if row["value"] in ("", None):
                    continue
                try:
                    v = float(row["value"])
                except ValueError:
                    raise ValueError(f"{path}:{line}: value {row['value']!r} is not a number") from None
                # keep the first of a kind (bw rows repeat per node: take the best)
                if kind.startswith("bw_"):
                    self.values[kind] = max(v, self.values.get(kind, 0.0))
                else:
                    self.values.setdefault(kind, v)
        if "faa_uncontended_ns" not in self.values:
            raise ValueError(f"{path}: no faa_uncontended_ns row: cannot compute a ceiling")

    def get(self, kind):
        return self.values.get(kind)

    @property
    def emulated(self):
        return self.values.get("meta:topology") == "emulated"


def load_probe(path):
    return Probe(path)


def _num(row, key, default):
    v = row.get(key, "")
    if v in ("", None):
        return default
    return float(v)


def bounds(probe, producers, consumers, batch, bursts, split, item_bytes=DEFAULT_ITEM_BYTES,
           t_atomic=None, t_remote=None, bw=None, bw_x=None):
    """The three bounds of the model (items/s); None where one does not apply."""
    t_atomic = t_atomic if t_atomic is not None else probe.get("faa_uncontended_ns")
    bw = bw if bw is not None else probe.get("bw_local_gbs")
    s = batch if bursts else 1
    out = {"ops": min(producers, consumers) * s / (t_atomic * 1e-9)}
    out["bandwidth"] = bw * 1e9 / item_bytes if bw else None
    out["crossing"] = None
    if split:
        if t_remote is None:
            t_remote = probe.get("c2c_one_way_other_node") or probe.get("c2c_one_way_same_node")
        if bw_x is None:
            bw_x = probe.get("bw_remote_gbs") or bw
        if t_remote and bw_x:
            out["crossing"] = ((producers + consumers) * batch /
                               (t_remote * 1e-9 + batch * item_bytes / (bw_x * 1e9)))
    return out


def ceiling_ops_per_s(probe, row, item_bytes=None):
    """The model's highest throughput for one tidy-CSV row (dict of strings),
    or None if the row lacks what the model needs. item_bytes: A2's bytes
    per item (default: by the row's item kind)."""
    if item_bytes is None:
        item_bytes = item_bytes_of(row)
    try:
        p = int(_num(row, "producers", 0))
        c = int(_num(row, "consumers", 0))
        batch = int(_num(row, "batch", 1))
        bursts = int(_num(row, "bursts", 0))
    except ValueError:
        return None
    if p < 1 or c < 1 or batch < 1:
        return None
    if row.get("queue") == "faa":
        item_bytes = 0  # no data moves
    b = bounds(probe, p, c, batch, bursts, row.get("pin") == "split",
               item_bytes=item_bytes if item_bytes else DEFAULT_ITEM_BYTES)
    if row.get("queue") == "faa":
        return b["ops"]
    vals = [v for v in b.values() if v]
    return min(vals) if vals else None


def binding(probe, row):
    """Which bound sets the ceiling for a row: 'ops', 'bandwidth' or 'crossing'."""
    p, c = int(_num(row, "producers", 1)), int(_num(row, "consumers", 1))
    b = bounds(probe, p, c, int(_num(row, "batch", 1)), int(_num(row, "bursts", 0)),
               row.get("pin") == "split", item_bytes=item_bytes_of(row))
    vals = {k: v for k, v in b.items() if v}
    return min(vals, key=vals.get)


# Published one-way cache-line latencies across sockets and within one, from
# the open-source core-to-core-latency tool (N. Viennot), which reports half
# of a compare-exchange round trip: (within a socket, across sockets), ns.
# They are inputs of a prediction, not measurements of ours.
PUBLISHED = {
    "Xeon Gold 6242 (2 sockets)": (48.0, 136.0),
    "AWS c6i.metal, Ice Lake (2 sockets)": (51.0, 108.0),
    "AWS c6a.metal, EPYC 7R13 (2 sockets)": (107.0, 197.0),  # within: 23-107, worst case
}


def predict_two_socket(probe, within_ns, across_ns, producers=16, consumers=16,
                       batches=(1, 4, 16, 64, 256)):
    """Predicted crossing ceilings (items/s) for a 2x16 split placement like the
    study's, from published one-way latencies across sockets, with this host's
    measured t_atomic and bandwidth standing in for the other machine's, with
    inline items (as the experiments run)."""
    out = {}
    for b in batches:
        bd = bounds(probe, producers, consumers, b, False, True, t_remote=across_ns,
                    item_bytes=INLINE_ITEM_BYTES)
        out[b] = min(v for v in bd.values() if v)
    return out
