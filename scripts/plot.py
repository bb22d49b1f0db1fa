# SPDX-License-Identifier: BSD-2-Clause
"""Draw the study's figures from results/ (matplotlib, optionally gnuplot too).

usage: plot.py [--results DIR] [--plots DIR] [--host HOST ...]
               [--compare HOSTA HOSTB] [--gnuplot]

For every host under results/ (or the named ones) and every experiment whose
tidy CSV results/<host>/<experiment>.csv exists, writes
plots/<host>/<figure>.png and .pdf:

  f1-lookup-cost       per-operation cost: data movement + node look-up, by lookup mode
  f2-node-cache        throughput by look-up mode against threads (one thread count:
                       the modes on x, each with its ceiling and harness as short
                       bars; fig_lines.py), physical ceiling
  f3-gate-percentiles  open loop: a latency panel per gate (p50, p99 vs offered load),
                       items in flight (Little) and throughput vs offered load, at the
                       largest thread count whose threads each have a CPU (fig_f3.py;
                       closed loop, older results: the percentile distribution by gate)
  f3-gate-vs-threads   p50 and p99 latency vs threads by gate; oversubscribed
                       thread counts in a separate, labelled third panel
  f4-backoff           per workload (prodcons, pairs, mixed) and local work: throughput
                       by backoff, paired change against none ("not exercised" where
                       none lost < 1 race per 1,000 operations; the study's band only
                       behind changes measured), lost races and time in backoff per
                       operation, fairness, p99 latency
  f5-ceiling           open loop: throughput vs the realized batch (items per
                       cross-node transfer; the configured batch labels each point)
                       against the ceiling; closed loop: the capacity per batch against
                       its ceiling, the binding term named, and its share (fig_f5.py)
  peers-throughput     throughput by queue (one thread count: the queues on x; several:
                       vs threads), each (pace, regime) group apart (scripts/regime.py):
                       single operations, bursts; a row for inline items, one for
                       message items where measured (faa has no message items, ck no
                       bursts); under pairs a last row (fig_peers.py)
  peers-latency        closed-loop latency (set by the queue's occupancy, not its
                       hand-over): p50/p99 by queue and regime at the largest thread
                       count, same panels

--compare A B draws each figure with host A and host B side by side into
plots/compare-A-vs-B/.  --gnuplot also writes plots/<host>/data/<figure>.dat
and draws plots/<host>/gnuplot/<figure>.png with scripts/gnuplot/<figure>.gp.

Exit status: 0 done; 1 a gnuplot script failed or gnuplot is missing;
2 bad input (one message naming the file, line and column; nothing written).
The physical ceiling comes from scripts/ceiling.py (load_probe,
ceiling_ops_per_s) and results/<host>/probe/probe.csv where both exist.
Every throughput figure also draws the harness's own ceiling (harness_ops_per_s:
the null queue through the same code, median over the runs at each point; F1:
its ns per item as the floor), grey dash-dot, and rings a point at >= 0.8 x its
own. Every figure marks an oversubscribed point (the tidy CSV's oversubscribed
column: the run's threads outnumbered the CPUs they ran on) with a black x
over its marker (bars and lines: the word "oversubscribed"). A variant with a
single x value is drawn as points, not lines; the drift reference's runs (role
reference) are never drawn. Whiskers around a median are its order-statistic
interval (scripts/stats.py: min..max up to 5 runs); a ratio is printed with its
interval and the interval's coverage.
The caption under a figure is the host, its warnings and one line of what is
drawn; everything else a figure's preparation says (item mode, harness, how
many points are oversubscribed, ...) goes to its notes: the header of its .dat
(the results README, which summarize.py writes, says the rest). Every block of
a .dat names its columns in a '# columns:' line.
"""

import argparse
import importlib
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import zlib

from . import nrdata
from .nrdata import DataError
from . import fig_common
from .fig_common import condensed

# Every ratio a figure prints between two configurations is summarize.py's
# (the paired median ratio the results READMEs, the paper and claims.py print).
# A copy of plot.py without its siblings still draws, printing no ratio.
try:
    from . import summarize
    SUMMARIZE_ERROR = None
except ImportError as _e:  # pragma: no cover - only a stripped copy of scripts/
    summarize = None
    SUMMARIZE_ERROR = str(_e) or type(_e).__name__

SCRIPT_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(SCRIPT_DIR)

PROG = "plot.py"

# --------------------------------------------------------------------------
# Variants: one order and one colour per value, the same in every figure.

ORDER = {
    "lookup": ["libnuma", "syscall", "table", "cached", "rseq", "rdpid", "none"],
    "gate": ["shared", "pernode", "perworker"],
    "backoff": ["none", "pause", "exp", "yield"],
    "queue": ["numaring", "flat", "ck", "rte", "moodycamel", "urcu", "mutex", "faa"],
}

COLORS = {
    "lookup": {"libnuma": "#d62728", "syscall": "#ff7f0e", "table": "#8c564b",
               "cached": "#2ca02c", "rseq": "#1f77b4", "rdpid": "#9467bd",
               "none": "#7f7f7f"},
    "gate": {"shared": "#d62728", "pernode": "#ff7f0e", "perworker": "#2ca02c"},
    "backoff": {"none": "#1f77b4", "pause": "#ff7f0e", "exp": "#d62728",
                "yield": "#9467bd"},
    "queue": {"numaring": "#2ca02c", "flat": "#1f77b4", "ck": "#ff7f0e",
              "rte": "#9467bd", "moodycamel": "#8c564b", "urcu": "#e377c2",
              "mutex": "#7f7f7f", "faa": "#17becf"},
}
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">"]
FALLBACK_COLORS = ["#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39"]
THREAD_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                 "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
CEILING_STYLE = dict(color="black", linestyle="--", linewidth=1.6)
# The harness's own ceiling: the null queue through the same code (harness_ops_per_s).
# (dark grey, dash-dot, no markers: apart from the mutex ring's mid-grey solid line)
HARNESS_STYLE = dict(color="#3a3a3a", linestyle=(0, (7, 2.5, 1.5, 2.5)), linewidth=2.0)
HARNESS_LABEL = "harness alone (null queue)"
#: a point at or above this share of its harness ceiling measures the harness
#: as much as the queue (README: "within 20% of it")
HARNESS_BOUND = 0.8
ITEM_ORDER = ["inline", "message"]
ITEM_TITLES = {"inline": "inline items",
               "message": "message items: the payload's line travels too"}

# What the study found, shown beside what this host measured.
STUDY = {
    "f1": "study: > 11\u00d7",
    "f2": "study: 6\u20137\u00d7",
    "f3": "study: > 200\u00d7",
    "f4": "study: \u221215 to \u221230%",
}

EXPERIMENTS = ["f1-lookup-cost", "f2-node-cache", "f3-gate", "f4-backoff",
               "f5-ceiling", "peers"]


def order_of(family, values):
    known = ORDER.get(family, [])
    vs = list(dict.fromkeys(values))
    return [v for v in known if v in vs] + sorted(v for v in vs if v not in known)


def color_of(family, value):
    table = COLORS.get(family, {})
    if value in table:
        return table[value]
    return FALLBACK_COLORS[zlib.crc32(value.encode()) % len(FALLBACK_COLORS)]


def marker_of(family, value):
    known = ORDER.get(family, [])
    i = known.index(value) if value in known else len(known)
    return MARKERS[i % len(MARKERS)]


def rgb_int(color):
    return int(color.lstrip("#"), 16)


# --------------------------------------------------------------------------
# Small helpers

def note(msg):
    print("%s: %s" % (PROG, msg), flush=True)


def fmt_pct(v):
    """+5%, \u221212% (a real minus sign)."""
    return ("%+.0f%%" % v).replace("-", "\u2212")


# --------------------------------------------------------------------------
# The ratios a figure prints between two configurations (and F1's look-up in
# ns): each is a value of scripts/summarize.py's f1/f2/f3/f4 for the host (the
# paired median ratio: the median over repetitions k of the ratio of the two
# configurations' rep-k runs, with its order-statistic interval and that
# interval's exact coverage, scripts/stats.py), or summarize.paired() on the
# figure's rows where summarize has no such value, never a ratio of
# medians; printed at the paper's precision (paper_numbers.py), so that the
# figure, results/<host>/README.md and the paper print one number per claim.
# figure_ratios() returns them by claim id, as the figures printed them.

#: claim id -> the summarize function and the key of the value the figure prints
#: (F4: one f4.<backoff>_change_pct per backoff, summarize.f4's <backoff>_change_pct,
#: for prodcons without local work; f4_claim names the other workloads' and works')
CLAIMS = {
    "f1.lookup_over_move": ("f1", "ratio"),        # paper \FOneRatio
    "f1.lookup_ns": ("f1", "lookup_ns"),           # \FOneLookupNs: ratio x move_ns
    "f1.move_ns": ("f1", "move_ns"),               # \FOneMoveNs
    "f2.cached_over_libnuma": ("f2", "cached_over_libnuma"),           # \FTwoRatio
    "f3.p50_shared_over_perworker": ("f3", "shared_over_perworker"),   # \FThreeRatio
    "f4.pause_change_pct": ("f4", "pause_change_pct"),                 # \FFourPause
    "f4.exp_change_pct": ("f4", "exp_change_pct"),                     # \FFourExp
    "f4.yield_change_pct": ("f4", "yield_change_pct"),                 # \FFourYield
}

#: what the figures' captions say of the ratios they print
PAIRED_WORDS = ("N\u00d7 [lo\u2013hi, c%]: the paired median ratio over the reps and its "
                "order-statistic interval, c% its coverage (scripts/stats.py)")


def claim_style(claim):
    """(format, unit) a claim is printed with: the paper's precision for it
    (paper_numbers.py: FOneRatio, FTwoRatio, FThreeRatio 1 decimal, FOneLookupNs
    1 decimal, FFour<b> signed, 1 decimal)."""
    if claim.endswith("_pct"):
        return "{:+.1f}", "%"
    if claim.endswith("_ns"):
        return "{:.1f}", " ns"
    return "{:.1f}", "\u00d7"


def fmt_claim(claim, v, unit=True):
    """A claim's value as the figure prints it (a real minus sign)."""
    fmt, u = claim_style(claim)
    return fmt.format(v).replace("-", "\u2212") + (u if unit else "")


class Said:
    """The claims one figure prints: ``text`` formats summarize's value for a
    claim (fmt_claim) and records it, ``values`` (the figure's "ratios")."""

    def __init__(self):
        self.values = {}

    def text(self, claim, d, key=None):
        """The printed value of d[key] (key: CLAIMS[claim]'s), recorded; None where
        d has no value."""
        key = key or CLAIMS[claim][1]
        v = (d or {}).get(key)
        if v is None:
            return None
        self.values[claim] = v
        return fmt_claim(claim, v)

    def interval(self, claim, d, key=None):
        """' [lo\u2013hi, 93.75%]' of d[key]'s order-statistic interval and its
        coverage (scripts/stats.py; none printed where summarize stored none),
        recorded as <claim>_lo and <claim>_hi; '' where d has none (or it is a
        single value)."""
        key = key or CLAIMS[claim][1]
        lo, hi = (d or {}).get(key + "_lo"), (d or {}).get(key + "_hi")
        if lo is None or hi is None or fmt_claim(claim, lo) == fmt_claim(claim, hi):
            return ""
        self.values[claim + "_lo"], self.values[claim + "_hi"] = lo, hi
        return " [%s\u2013%s%s]" % (fmt_claim(claim, lo, unit=False),
                                     fmt_claim(claim, hi, unit=False),
                                     fig_common.coverage_text((d or {}).get(key + "_cov")))


def summary_of(host, what):
    """summarize.<what>(results/<host>) ('f1', 'f2', 'f3', 'f4'), once per host;
    {} where it has no value or summarize.py did not load."""
    cache = host.__dict__.setdefault("_summary", {})
    if what not in cache:
        fn = getattr(summarize, what, None) if summarize is not None else None
        cache[what] = (fn(os.path.join(host.results, host.name)) if fn else None) or {}
    return cache[what]


def summary_status():
    """A caption line where summarize.py did not load (no ratio printed), else None."""
    if summarize is None:
        return ("ratios between configurations not shown: scripts/summarize.py did not "
                "load (%s)" % SUMMARIZE_ERROR, "warn")
    return None


def add_paired_words(p, said):
    """Record the figure's claims (p["ratios"]) and say in its one line of what
    is drawn what they are (or, in a warning, why none is printed)."""
    p["ratios"] = dict(said.values)
    if said.values:
        if p.get("drawn"):
            p["drawn"] += " \u00b7 " + PAIRED_WORDS
        else:
            p["caption"].insert(len(p["caption"]) - 1, (PAIRED_WORDS, None))
    elif summary_status():
        p["caption"].insert(len(p["caption"]) - 1, summary_status())
    return p


def fmt_ns(v, _pos=None):
    """A latency tick: 250 ns, 1.5 \u00b5s, 20 ms, 2 s."""
    if v <= 0:
        return "0"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("\u00b5s", 1e3)):
        if v >= scale:
            return "%g %s" % (float("%.3g" % (v / scale)), unit)
    return "%g ns" % float("%.3g" % v)


def fmt_plain(v, _pos=None):
    if v == 0:
        return "0"
    return "%g" % float("%.3g" % v)


def spans_decades(values, ratio=20.0):
    vs = [v for v in values if v is not None and v > 0]
    return bool(vs) and max(vs) / min(vs) >= ratio


def finite_pos(v):
    return v is not None and math.isfinite(v) and v > 0


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def gp_str(s):
    """A gnuplot single-quoted string literal ('' is a quote inside)."""
    return "'" + s.replace("'", "''") + "'"


def gp_lines(lines):
    """A gnuplot expression joining lines with newlines."""
    return '."\\n".'.join(gp_str(line) for line in lines) if lines else "''"


# --------------------------------------------------------------------------
# The physical ceiling (scripts/ceiling.py, written elsewhere): optional.

class Ceiling:
    """ceiling.ceiling_ops_per_s(probe, row) for one host, or nothing.

    Never raises: a missing module, function, probe.csv, or an exception or
    None from the model only means no ceiling line, and ``status`` says why.
    """

    _module = None
    _module_error = None
    _loaded = False

    @classmethod
    def module(cls):
        if not cls._loaded:
            cls._loaded = True
            path = os.path.join(SCRIPT_DIR, "ceiling.py")
            if not os.path.isfile(path):
                cls._module_error = "no scripts/ceiling.py"
            else:
                try:
                    cls._module = importlib.import_module(".ceiling", __package__)
                except Exception as e:  # noqa: BLE001 - someone else's module
                    sys.modules.pop(__package__ + ".ceiling", None)
                    cls._module_error = "scripts/ceiling.py failed to load: %s" % (
                        str(e).splitlines()[0] if str(e) else type(e).__name__)
        return cls._module

    def __init__(self, probe_path):
        self.fn = None
        self.probe = None
        self.why = None
        self.errors = 0
        self.used = False
        mod = self.module()
        if mod is None:
            self.why = self._module_error
            return
        load = getattr(mod, "load_probe", None)
        fn = getattr(mod, "ceiling_ops_per_s", None)
        if not callable(load) or not callable(fn):
            self.why = "scripts/ceiling.py lacks load_probe or ceiling_ops_per_s"
            return
        if not probe_path:
            self.why = "no probe/probe.csv"
            return
        try:
            self.probe = load(probe_path)
        except Exception as e:  # noqa: BLE001
            self.why = "load_probe failed: %s" % (str(e).splitlines()[0] if str(e)
                                                  else type(e).__name__)
            return
        self.fn = fn

    def value(self, row):
        if self.fn is None or row is None:
            return None
        try:
            v = self.fn(self.probe, dict(row))
            if v is None:
                return None
            v = float(v)
        except Exception:  # noqa: BLE001
            self.errors += 1
            return None
        if not finite_pos(v):
            return None
        self.used = True
        return v

    def drawn(self, rows, keyfn):
        """key -> the ceiling drawn for the key's runs. The model's hand-over
        term (ceiling.py, A3) is each run's, so per group of runs (pace and
        regime, fig_common.group_of) the median of the runs' own ceilings;
        the highest group's is drawn: every point of the key stays under it
        unless its group fails the model (each regime's own ratio is in the
        results README's tightness table)."""
        per = {}
        for r in rows:
            c = self.value(r)
            if c is not None:
                per.setdefault(keyfn(r), {}).setdefault(fig_common.group_of(r), []).append(c)
        return {k: max(statistics.median(v) for v in g.values()) for k, g in per.items()}

    def status(self):
        if self.used:
            s = "ceiling: physical ceiling model (scripts/ceiling.py from probe.csv)"
            if self.errors:
                s += ", failed for %d points" % self.errors
            return s
        if self.fn is not None:
            return "ceiling: not available (the model gave none for these points)"
        return "ceiling: not available (%s)" % self.why


# --------------------------------------------------------------------------
# One host's data

class Host:
    def __init__(self, results, host):
        self.results = results
        self.name = host
        self.info = nrdata.host_info(results, host)
        self.ceiling = Ceiling(self.info["probe"])
        self.data = {}      # experiment -> TidyRows (validated)
        self.missing = {}   # experiment -> why it is skipped

    def load(self):
        for exp in EXPERIMENTS:
            path = os.path.join(self.results, self.name, exp + ".csv")
            if not os.path.exists(path):
                self.missing[exp] = "no %s.csv" % exp
                continue
            rows = nrdata.load_tidy(path, experiment=exp)
            if not rows:
                self.missing[exp] = "%s.csv has a header but no rows" % exp
                continue
            self.data[exp] = rows


def first_rows(rows, keyfn):
    """key -> the row with the lowest rep among rows of that key."""
    out = {}
    for r in rows:
        k = keyfn(r)
        if k not in out or int(r["rep"]) < int(out[k]["rep"]):
            out[k] = r
    return out


def pooled_note(rows, keyfn):
    """A note when rows of one key come from several points (differing configs)."""
    points = {}
    for r in rows:
        points.setdefault(keyfn(r), {})[r["point"]] = r
    differ = set()
    for pts in points.values():
        if len(pts) > 1:
            rs = list(pts.values())
            for c in nrdata.CONFIG_COLUMNS:
                if len({x.get(c, "") for x in rs}) > 1:
                    differ.add(c)
    if differ:
        return "note: medians pool points that differ in %s" % ", ".join(sorted(differ))
    return None


def variant_label(family, value, rows):
    if family == "lookup":
        forced = {r.get("lookup_in_force", "") for r in rows if r.get("lookup") == value}
        forced.discard("")
        forced.discard(value)
        if forced:
            return "%s\n(ran as %s)" % (value, "/".join(sorted(forced)))
    return value


def item_of(row):
    """The row's item mode; an empty cell is the default, inline."""
    v = row.get("item", "")
    v = v.strip() if isinstance(v, str) else ""
    return v or "inline"


def items_in(rows):
    """The item modes of rows, inline first."""
    kinds = {item_of(r) for r in rows}
    return [k for k in ITEM_ORDER if k in kinds] + sorted(k for k in kinds
                                                          if k not in ITEM_ORDER)


def item_text(rows):
    """'items: inline values, 1 in 64 timed' (every mode the rows hold)."""
    parts = []
    for k in items_in(rows):
        samples = sorted({r.get("sample", "").strip() for r in rows if item_of(r) == k} - {""},
                         key=float)
        desc = {"inline": "inline (the item is a value)",
                "message": "message (a pointer to a message whose cache line travels "
                           "too)"}.get(k, k)
        if samples == ["1"]:
            desc += ", every item timed"
        elif samples:
            desc += ", 1 in %s timed" % "/".join(samples)
        parts.append(desc)
    return "items: " + "; ".join(parts)


def harness_of(rows, keyfn):
    """{key: (median, min, max, n)} of harness_ops_per_s over rows grouped by keyfn,
    leaving out rows where the harness's ceiling was not measured."""
    agg = nrdata.aggregate(rows, (keyfn,), "harness_ops_per_s")
    return {k[0]: v for k, v in agg.items()}


def harness_status(rows, bound=None, drawn="grey dash-dot", value=None, mark="ringed"):
    """The caption's line about the harness ceiling; ``bound`` the number of
    points at >= HARNESS_BOUND of theirs (None: not counted)."""
    have = sum(1 for r in rows if nrdata.num(r, "harness_ops_per_s"))
    if not have:
        return "harness ceiling not measured"
    s = ("%s: %s%s (same threads, placement and items, 0.1 s before each run; median over "
         "the runs at each point)" % (drawn, HARNESS_LABEL, ", " + value if value else ""))
    if have < len(rows):
        s += ", measured in %d of %d runs" % (have, len(rows))
    if bound is not None:
        if bound:
            s += "; %d point%s within 20%% of the harness's own ceiling (%s): there the " \
                 "figure measures the harness as much as the queue" % (
                     bound, "" if bound == 1 else "s", mark)
        else:
            s += "; no point within 20% of it"
    return s


OVERSUB_LABEL = "oversubscribed: threads share CPUs or cores"
OVERSUB_STYLE = dict(linestyle="none", marker="x", markersize=11, markeredgewidth=2.2,
                     color="black", zorder=6)


def oversub_of(rows, keyfn):
    """{key: 1 if a run of the key was oversubscribed, 0 if none was, None if the
    results do not record it} over rows grouped by keyfn."""
    groups = {}
    for r in rows:
        groups.setdefault(keyfn(r), []).append(nrdata.oversubscribed(r))
    out = {}
    for k, flags in groups.items():
        if any(f is True for f in flags):
            out[k] = 1
        elif flags and all(f is False for f in flags):
            out[k] = 0
        else:
            out[k] = None
    return out


def oversub_status(rows, keyfn, mark="black x"):
    """The caption's line about oversubscribed points (grouped by keyfn)."""
    flags = oversub_of(rows, keyfn)
    if not flags or all(v is None for v in flags.values()):
        return ("oversubscription not recorded in these results (no oversubscribed column): "
                "points whose threads outnumber their CPUs are not marked")
    n = sum(1 for v in flags.values() if v == 1)
    if not n:
        return "no point oversubscribed (every thread had a CPU of its own)"
    return ("%s: %d oversubscribed point%s (the run's threads outnumber the CPUs they run "
            "on, from its meta.json): the scheduler is part of what is measured there" % (
                mark, n, "" if n == 1 else "s"))


def is_over(q):
    """1 where a series point (x, med, .., harness, oversubscribed) is oversubscribed."""
    return int(len(q) > 7 and q[7] == 1)


def harness_line(rows, xfn):
    """[(x, median, min, max, n)] of harness_ops_per_s over all rows at each x."""
    return sorted((x,) + v for x, v in harness_of(rows, xfn).items())


def bound_count(series):
    """Points of {variant: [(x, med, .., harness)]} at >= HARNESS_BOUND x their harness."""
    return sum(1 for pts in series.values() for q in pts
               if len(q) > 6 and q[6] and q[1] >= HARNESS_BOUND * q[6])


def caption_lines(host, rows, extra=()):
    """[(text, emphasis)] under a figure: host, CPU, real or emulated nodes, reps."""
    info = host.info
    kinds = sorted({r["topology_kind"] for r in rows}) if rows else [info["topology"]]
    specs = sorted({r.get("topology", "") for r in rows if r["topology_kind"] == "emulated"})
    nodes = sorted({r.get("nodes", "") for r in rows if r.get("nodes", "")}, key=float)
    cpus = info.get("cpus")
    first = "host %s \u00b7 %s" % (host.name, info["cpu_model"])
    if cpus:
        first += " \u00b7 CPUs %s" % cpus
    if (info.get("threads_per_core") or 1) > 1 and info.get("cores"):
        # SMT: CPUs are not cores; the annotations quote one thread per core
        first += " (%d cores \u00d7 %d threads)" % (info["cores"], info["threads_per_core"])
    first += " \u00b7 kernel %s" % info["kernel"]
    lines = [(first, None)]
    if info.get("guest"):
        lines.append((info["guest"], "warn"))
    if "emulated" in kinds:
        lines.append(("EMULATED nodes (%s) \u2014 not a two-socket result: memory placement "
                      "is not real" % " | ".join(s for s in specs if s), "warn"))
    if "real" in kinds:
        n = ",".join(nodes) if nodes else "?"
        if nodes == ["1"]:
            lines.append(("real topology, 1 NUMA node: no cross-node traffic", None))
        else:
            lines.append(("real NUMA nodes (%s)" % n, None))
    other = [k for k in kinds if k not in ("real", "emulated")]
    if other:
        lines.append(("topology: %s" % ", ".join(other), "warn"))
    if rows:
        lines.append((item_text(rows), None))
    reps = sorted({int(r["rep"]) for r in rows}) if rows else []
    tail = []
    if reps:
        tail.append("median of %d rep%s, bars/bands min\u2013max" % (
            len(reps), "" if len(reps) == 1 else "s"))
    tail.extend(x for x in extra if x)
    if tail:
        lines.append((" \u00b7 ".join(tail), None))
    return lines


# --------------------------------------------------------------------------
# Preparing each figure's data (everything that can fail on input happens here)

def series_vs_threads(host, rows, family, value="throughput_ops_per_s"):
    """{variant: [(threads, med, lo, hi, n, ceiling or None, harness or None,
    oversubscribed 1/0/None, coverage)]} and the order: lo..hi the median's
    order-statistic interval (fig_common.intervals: min..max up to 5 runs);
    harness: the point's median harness_ops_per_s (throughput only)."""
    ivs = fig_common.intervals(rows, (family, "threads"), value)
    key = (lambda r: (r.get(family, ""), nrdata.threads(r)))
    tput = value == "throughput_ops_per_s"
    ceil = host.ceiling.drawn(rows, key) if tput else {}
    hs = harness_of(rows, key) if tput else {}
    ov = oversub_of(rows, key)
    series = {}
    for (variant, t), iv in ivs.items():
        c = ceil.get((variant, t))
        h = hs.get((variant, t))
        series.setdefault(variant, []).append((t, iv.est, iv.lo, iv.hi, iv.n, c,
                                               h[0] if h else None, ov.get((variant, t)),
                                               iv.coverage))
    for v in series:
        series[v].sort()
    return series, order_of(family, series.keys())


def ceiling_groups(series, order):
    """The ceiling lines of a figure: variants whose ceilings coincide share one.

    Returns [{"variants": [...], "points": [(x, ceiling)]}], the group with the
    most variants first (drawn black), [] where no variant has a ceiling.
    """
    groups = []
    for v in order:
        pts = [(p[0], p[5]) for p in series.get(v, []) if p[5] is not None]
        if not pts:
            continue
        for g in groups:
            gm = dict(g["points"])
            common = [x for x, _c in pts if x in gm]
            if common and all(close(c, gm[x]) for x, c in pts if x in gm):
                g["variants"].append(v)
                for x, c in pts:
                    gm.setdefault(x, c)
                g["points"] = sorted(gm.items())
                break
        else:
            groups.append({"variants": [v], "points": pts})
    groups.sort(key=lambda g: -len(g["variants"]))
    return groups


def what_varies(series, family_word, value="throughput"):
    """A title's words for what a figure varies: '<value> vs threads by <family>',
    or '<value> by <family> at N threads' where every variant has one thread count."""
    xs = sorted({q[0] for pts in series.values() for q in pts})
    if len(xs) == 1:
        return "%s by %s at %d threads" % (value, family_word, xs[0])
    return "%s vs threads by %s" % (value, family_word)


def prep_lines(host, exp, family, title, annotate=None):
    """A throughput figure by variant, each regime apart (fig_lines.prep)."""
    return fig_lines.prep(host, exp, family, title, annotate)


def quoted_threads(host, rows, usable=None):
    """The thread count an annotation quotes (nrdata.quoted_threads, the rule of
    the results READMEs and the paper): the largest, and on a host with SMT the
    largest with one thread per core."""
    return nrdata.quoted_threads(rows, host.info.get("cores"),
                                 host.info.get("threads_per_core"), usable)


def prep_f1(host):
    """F1: time per item by look-up mode, each regime apart (fig_f1.prep)."""
    return fig_f1.prep(host)


@condensed
def prep_f2(host):
    said = Said()

    def ann(series):
        # summarize.f2: cached_k / libnuma_k paired per rep at its quoted thread
        # count, within the regime it names (r["regime"])
        variants = {v for v, _g in series}
        r = summary_of(host, "f2") if {"cached", "libnuma"} <= variants else {}
        text = said.text("f2.cached_over_libnuma", r)
        if text is None:
            return None
        return "cached / libnuma = %s at %d threads%s (%s)" % (
            text, r["threads"], said.interval("f2.cached_over_libnuma", r), "; ".join(
                x for x in (fig_common.regime_words(r), STUDY["f2"]) if x))
    p = prep_lines(host, "f2-node-cache", "lookup",
                   lambda series: "F2: remembering the node \u2014 "
                   + what_varies(series, "look-up mode"), ann)
    return add_paired_words(p, said)


# F4: backoff against spinning, per workload. Every change it prints is
# summarize.f4(hostdir, workload, work)'s; whether a comparison exists is
# judged on the none run of the same point (its lost races per operation at
# least nrdata.BACKOFF_EXERCISED, 1 per 1,000), as claims.py judges it.

#: the workloads, in their order (columns of the figure)
F4_WORKLOADS = ("prodcons", "pairs", "mixed")
F4_WORDS = {"prodcons": "prodcons: producers and consumers apart",
            "pairs": "pairs: every thread enqueues, then dequeues",
            "mixed": "mixed: every thread enqueues or dequeues at random"}
#: the study's F4 finding, drawn in the prodcons change panel only (the study
#: ran producers and consumers apart, 32 workers on 2 nodes)
F4_STUDY_BAND = (-30.0, -15.0)
F4_STUDY_LABEL = "study: 32 workers, 2 nodes"
#: the rows of panels, top to bottom: key, y label
F4_ROWS = (("tput", "throughput (million %s/s)"),
           ("change", "throughput change vs none (%)"),
           ("failed", "lost races per 1,000 operations"),
           ("bns", "time in backoff per operation"),
           ("fair", "fairness: fewest / most\noperations of one thread"),
           ("p99", "p99 latency"))
#: what the fairness row's dotted line at 1 means
F4_FAIR_LINE = "every thread did the same"
#: x offsets of the amounts of local work in a category slot (two: \u00b10.17)
F4_SLOT_SPREAD = 0.34


def f4_workload(row):
    """The row's workload: prodcons where the cell is empty (tables from before
    workloads), else the cell (workload_of)."""
    return workload_of(row)


def f4_work(row):
    """The row's local work between operations, ns (0 where not recorded)."""
    try:
        return float(row.get("work_ns") or 0)
    except ValueError:
        return 0.0


def work_words(work):
    return "no local work" if not work else "%g ns local work" % work


def f4_claim(workload, work, backoff):
    """The claim id of a printed change: f4.<b>_change_pct for prodcons without
    local work (the paper's \\FFour<b>), f4.<workload>.<b>_change_pct for the
    others, f4.<workload>.work<N>.<b>_change_pct with local work."""
    if not work and workload == "prodcons":
        return "f4.%s_change_pct" % backoff
    if not work:
        return "f4.%s.%s_change_pct" % (workload, backoff)
    return "f4.%s.work%g.%s_change_pct" % (workload, work, backoff)


def f4_groups(host, rows):
    """[(workload, work)] of F4's rows: summarize.f4_workloads where it loads,
    else the same from the rows (prodcons, pairs, mixed, then others; less work
    first)."""
    fn = getattr(summarize, "f4_workloads", None) if summarize is not None else None
    if fn is not None:
        return [(w, float(k)) for w, k in fn(os.path.join(host.results, host.name))]
    keys = {(f4_workload(r), f4_work(r)) for r in rows}
    return sorted(keys, key=lambda k: (F4_WORKLOADS.index(k[0]) if k[0] in F4_WORKLOADS
                                       else len(F4_WORKLOADS), k[0], k[1]))


def f4_summary(host, workload, work):
    """summarize.f4(results/<host>, workload, work), once per host; {} where it
    has no value or summarize.py did not load (a summarize.py from before
    workloads: its one comparison, prodcons without work)."""
    cache = host.__dict__.setdefault("_summary", {})
    key = ("f4", workload, work)
    if key not in cache:
        fn = getattr(summarize, "f4", None) if summarize is not None else None
        hostdir = os.path.join(host.results, host.name)
        d = None
        if fn is not None:
            try:
                d = fn(hostdir, workload, work)
            except TypeError:
                d = fn(hostdir) if (workload, work) == ("prodcons", 0.0) else None
        cache[key] = d or {}
    return cache[key]


def failed_per_1000(row):
    v = nrdata.failed_per_item(row)
    return None if v is None else v * 1000.0


def backoff_ns_per_op(row):
    """ns in backoff per operation: (backoff_ns_race + backoff_ns_gate) /
    (enqueued + dequeued), both over the whole run; None where not recorded."""
    race, gate = nrdata.num(row, "backoff_ns_race"), nrdata.num(row, "backoff_ns_gate")
    if race is None and gate is None:
        return None
    e, d = nrdata.num(row, "enqueued"), nrdata.num(row, "dequeued")
    n = e + d if e is not None and d is not None else nrdata.num(row, "ops")
    return ((race or 0.0) + (gate or 0.0)) / n if n else None


def fairness_of(row):
    """The row's fairness: fewest / most successful operations of one thread
    over the whole run, in (0, 1]; None where not recorded (older tables)."""
    return nrdata.num(row, "fairness")


def f4_series(rows, value):
    """{backoff: [(threads, med, min, max, n, None, harness or None,
    oversubscribed)]} of value over rows (harness: throughput only)."""
    key = (lambda r: (r.get("backoff", ""), nrdata.threads(r)))
    agg = nrdata.aggregate(rows, ("backoff", "threads"), value)
    hs = harness_of(rows, key) if value == "throughput_ops_per_s" else {}
    ov = oversub_of(rows, key)
    out = {}
    for (b, t), (med, mn, mx, n) in agg.items():
        h = hs.get((b, t))
        out.setdefault(b, []).append((t, med, mn, mx, n, None, h[0] if h else None,
                                      ov.get((b, t))))
    for b in out:
        out[b].sort()
    return out


def prep_f4_group(host, rows, workload, work, said):
    """One workload at one amount of local work: its series (throughput, lost
    races, backoff time, p99 by backoff and threads), the thread count its
    changes are quoted at, whether none lost races there (exercised), and each
    backoff's paired change against none (summarize.f4)."""
    s4 = f4_summary(host, workload, work)
    ov_t = oversub_of(rows, nrdata.threads)
    t = s4.get("threads") or quoted_threads(
        host, rows, lambda rs: ov_t.get(nrdata.threads(rs[0])) == 0)
    at = [r for r in rows if nrdata.threads(r) == t]
    none_rows = [r for r in at if r.get("backoff") == "none"]
    failed = nrdata.aggregate(at, ("backoff",), failed_per_1000)
    none_failed = s4.get("none_failed_per_item")
    if none_failed is None and ("none",) in failed:
        none_failed = failed[("none",)][0] / 1000.0
    exercised = nrdata.backoff_exercised(none_failed) if none_rows else None
    ov = oversub_of(at, lambda r: r.get("backoff", ""))
    change = []
    for b in order_of("backoff", {r.get("backoff", "") for r in at}):
        if b == "none" or not none_rows:
            continue
        key = "%s_change_pct" % b
        d = s4 if s4.get(key) is not None else {}
        if not d and summarize is not None:
            # a backoff summarize does not know: summarize.paired on the same rows
            summarize.put_ratio(d, key, summarize.paired(
                [r for r in at if r.get("backoff") == b], none_rows,
                fn=lambda x, y: x / y - 1), 100.0)
        pct, lo, hi = d.get(key), d.get(key + "_lo"), d.get(key + "_hi")
        rate = s4.get("%s_failed_per_item" % b)
        if rate is None and (b,) in failed:
            rate = failed[(b,)][0] / 1000.0
        claim = f4_claim(workload, work, b)
        change.append({
            "backoff": b, "workload": workload, "work": work, "threads": t, "pct": pct,
            "lo": lo, "hi": hi, "n": d.get(key + "_n"), "failed": rate,
            "none_failed": none_failed, "exercised": exercised, "claim": claim,
            "inconclusive": lo is not None and hi is not None and lo <= 0.0 <= hi,
            "oversubscribed": ov.get(b),
            # printed where none lost races (or where that is not recorded)
            "text": said.text(claim, d, key) if exercised is not False else None})
    kinds = {(r.get("ops_kind") or "").strip() for r in rows} - {""}
    return {"workload": workload, "work": work, "threads": t, "exercised": exercised,
            "none_failed": none_failed, "change": change, "rows": rows,
            "oversubscribed": ov_t.get(t),
            "unit": "items" if kinds == {"items"} or (not kinds and workload == "prodcons")
            else "operations",
            "tput": f4_series(rows, "throughput_ops_per_s"),
            "failed": f4_series(rows, failed_per_1000),
            "bns": f4_series(rows, backoff_ns_per_op),
            "fair": f4_series(rows, fairness_of),
            "p99": f4_series(rows, "p99_ns"),
            "harness": harness_line(rows, nrdata.threads)}


def f4_headline(panels, works):
    """The figure's one-line finding: each workload's changes against none
    without local work (the least work), or that none lost no races there."""
    w0 = works[0]
    groups = [g for pn in panels for g in pn["groups"] if g["work"] == w0 and g["change"]]
    if not groups:
        return None
    several = len(panels) > 1
    ts = {g["threads"] for g in groups}
    parts = []
    for g in groups:
        name = g["workload"] + (" at %d threads" % g["threads"] if len(ts) > 1 else "")
        if g["exercised"] is False:
            parts.append("%s%s: backoff not exercised on this host" % (
                name + " " if several or len(ts) > 1 else "",
                "/".join(e["backoff"] for e in g["change"])))
            continue
        shown = ["%s %s%s" % (e["backoff"], e["text"], " (inconclusive)"
                              if e["inconclusive"] else "")
                 for e in g["change"] if e["text"] is not None]
        if shown:
            parts.append(("%s: " % name if several or len(ts) > 1 else "") + ", ".join(shown))
    if not parts:
        return None
    return "vs none%s%s: %s\n(study, prodcons: \u221215 to \u221230%% at 32 workers, 2 nodes)" % (
        " at %d threads" % ts.pop() if len(ts) == 1 else "",
        ", " + work_words(w0) if len(works) > 1 else "", "; ".join(parts))


@condensed
def prep_f4(host):
    """F4: per workload (a column of panels each), throughput by backoff, each
    backoff's paired change against none (retrying at once) at the quoted
    thread count, lost races and time in backoff per operation, p99 latency;
    every amount of local work apart (filled: none, hollow: more)."""
    rows = host.data["f4-backoff"]
    said = Said()
    panels = []
    for w, work in f4_groups(host, rows):
        grows = [r for r in rows if f4_workload(r) == w and f4_work(r) == work]
        if not grows:
            continue
        if not panels or panels[-1]["workload"] != w:
            panels.append({"workload": w, "title": F4_WORDS.get(w, w), "groups": []})
        panels[-1]["groups"].append(prep_f4_group(host, grows, w, work, said))
    works = sorted({g["work"] for pn in panels for g in pn["groups"]})
    for pn in panels:
        pn["groups"] = fig_f4.split_regimes(pn["groups"])   # prodcons: regimes apart
        for g in pn["groups"]:
            g["j"] = works.index(g["work"])
        pn["threads"] = sorted({g["threads"] for g in pn["groups"]})
    fig_f4.place(panels, works)
    ts = sorted({nrdata.threads(r) for r in rows})
    backoffs = order_of("backoff", {r.get("backoff", "") for r in rows})
    rel = [e for pn in panels for g in pn["groups"] for e in g["change"]]
    # the caption: the host, then one line of what is drawn
    base = caption_lines(host, rows)
    caption = [base[0]] + [ln for ln in base[1:] if ln[1] == "warn"]
    reps = sorted({int(r["rep"]) for r in rows})
    key = (lambda r: (f4_workload(r), f4_work(r), r.get("backoff"), nrdata.threads(r)))
    flags = oversub_of(rows, key)
    if all(v is None for v in flags.values()):
        over = "oversubscription not recorded"
    else:
        n = sum(1 for v in flags.values() if v == 1)
        over = ("black x: %d oversubscribed point%s (the run's threads outnumber their CPUs)"
                % (n, "" if n == 1 else "s")) if n else "no point oversubscribed"
    bound = sum(bound_count(g["tput"]) for pn in panels for g in pn["groups"])
    regimes = fig_f4.drawn_words({"columns": panels, "categorical": len(ts) == 1})
    if not any(nrdata.num(r, "harness_ops_per_s") for r in rows):
        harness = "harness ceiling not measured"
    else:
        harness = "grey: %s%s" % (HARNESS_LABEL, ", %d point%s within 20%% of it (ringed)" % (
            bound, "" if bound == 1 else "s") if bound else "")
    drawn = ("median of %d rep%s, whiskers min\u2013max; change: paired median against "
             "none and its interval (scripts/summarize.py), \u201cnot exercised\u201d where "
             "none lost < %g race per 1,000 operations; fairness: fewest / most "
             "operations of one thread over the run (1: %s)%s; %s" % (
                 len(reps), "" if len(reps) == 1 else "s", nrdata.BACKOFF_EXERCISED * 1000,
                 F4_FAIR_LINE, "" if any(fairness_of(r) is not None for r in rows)
                 else ", not recorded in these results",
                 "; ".join(x for x in (
                     ", ".join("%s %s" % ("filled" if i == 0 else "hollow", work_words(w))
                               for i, w in enumerate(works)) if len(works) > 1 else "",
                     regimes, over, harness) if x)))
    caption.append((drawn, None))
    if summary_status():
        caption.append(summary_status())
    title = "F4: backoff against spinning, per workload \u2014 %s" % (
        "throughput by backoff at %d threads" % ts[0] if len(ts) == 1 else
        "throughput vs threads by backoff")
    title += "; change vs none; lost races; time in backoff; fairness; p99"
    nw = max(1, len(panels))
    p = {"kind": "f4", "columns": panels, "works": works, "backoffs": backoffs,
         "threads": ts, "categorical": len(ts) == 1, "relative": rel, "rows": rows,
         "grid": (len(F4_ROWS), nw), "figsize": (max(11.0, 4.4 * nw + 3.2), 2.9 * len(F4_ROWS)),
         "title": title, "annotation": f4_headline(panels, works), "caption": caption,
         "ratios": dict(said.values)}
    # the harness alone by (workload, work): [(threads, median, min, max, n)]
    p["harness"] = {(g["workload"], g["work"]): g["harness"] for pn in panels
                    for g in pn["groups"] if g["harness"]}
    # the first workload's lost races at its least work, by backoff vs threads
    first = panels[0]["groups"][0] if panels else None
    p["failed"] = first["failed"] if first else {}
    p["failed_order"] = order_of("backoff", p["failed"])
    return p


def latency_curve(host, row):
    """[(x = 1/(1-p), value_ns)] of a run's latency.csv; None if it has none."""
    path = nrdata.latency_path(host.results, host.name, row)
    if not os.path.isfile(path):
        return None
    pts = nrdata.load_latency(path)
    out = [(1.0 / (1.0 - p), v) for v, p, _c in pts if p < 1.0 and v > 0]
    return out or None


def envelope(curves, npts=160):
    """(xs, median, lo, hi): the median, min and max over curves at each x of a
    log grid (each curve interpolated in log-log), up to the smallest last x."""
    import numpy as np
    xmax = min(c[-1][0] for c in curves)
    if xmax <= 1.0:
        return None
    xs = np.logspace(0, math.log10(xmax), npts)
    ys = []
    for c in curves:
        cx = np.log10([p[0] for p in c])
        cy = np.log10([p[1] for p in c])
        ys.append(np.interp(np.log10(xs), cx, cy))
    ys = np.array(ys)
    return (list(xs), list(10 ** np.median(ys, axis=0)), list(10 ** ys.min(axis=0)),
            list(10 ** ys.max(axis=0)))


def load_of(row):
    """The offered load of an open-loop row (a fraction of capacity); '' if closed loop."""
    v = row.get("load", "")
    return v.strip() if isinstance(v, str) else ""


def load_label(ld):
    return "closed loop" if not ld else "%g%% load" % (100 * float(ld))


def loads_in(rows):
    """The offered loads of rows, highest last ('' = closed loop first)."""
    return sorted({load_of(r) for r in rows}, key=lambda v: float(v) if v else -1.0)


def f3_threads(host, rows):
    """The thread count of F3's percentile figure: the largest whose runs are
    not oversubscribed (every thread has a CPU) and, with SMT, had a core per
    thread (quoted_threads), else the largest; and whether it is
    oversubscribed (1/0/None)."""
    ov = oversub_of(rows, nrdata.threads)
    t = quoted_threads(host, rows, lambda rs: ov.get(nrdata.threads(rs[0])) == 0)
    return t, ov.get(t)


SUMMARY_PCT = (("p50_ns", 0.5), ("p90_ns", 0.9), ("p99_ns", 0.99), ("p999_ns", 0.999))
#: F3's percentiles against the offered load: column, name
F3_PCT = (("p50_ns", "p50"), ("p90_ns", "p90"), ("p99_ns", "p99"), ("p999_ns", "p99.9"))
#: the title of F3's separate panel for oversubscribed thread counts
F3_OVER_TITLE = "oversubscribed: threads share CPUs; scheduler, not queue"
#: an open-loop point kept up with its offered rate where it delivered at least this share
KEPT_UP = 0.95


def load_pct(row):
    """The offered load of an open-loop row in % of capacity (a number)."""
    return 100.0 * float(load_of(row))


def pct_label(x):
    return "%g%%" % float("%.3g" % x)


def inflight_of(row):
    """Items in flight of a row: its inflight column (Little: throughput x mean
    latency), else the same computed from throughput_ops_per_s and mean_ns; None
    where neither is there."""
    v = nrdata.num(row, "inflight")
    if v is not None:
        return v
    t, m = nrdata.num(row, "throughput_ops_per_s"), nrdata.num(row, "mean_ns")
    if t and m:
        return t * m * 1e-9
    return None


def inflight_words(rows):
    """How the caption says items in flight were obtained for rows."""
    have = sum(1 for r in rows if nrdata.num(r, "inflight") is not None)
    if have == len(rows):
        return "items in flight: summary.csv's inflight (Little: throughput \u00d7 mean latency)"
    if have:
        return ("items in flight: Little's throughput \u00d7 mean latency (summary.csv's "
                "inflight where recorded, %d of %d runs; computed from throughput_ops_per_s "
                "and mean_ns elsewhere)" % (have, len(rows)))
    return ("items in flight: Little's throughput \u00d7 mean latency, computed from "
            "throughput_ops_per_s and mean_ns (these results have no inflight column)")


def f3_claim(host, said):
    """F3's headline as the figures print it: 'p50 shared / perworker = N\u00d7
    [lo\u2013hi] at T threads' from summarize.f3 (paired per rep: shared_k /
    perworker_k of p50, at its thread count and highest offered load), and that
    load ('' closed loop); None where summarize has no such ratio."""
    r = summary_of(host, "f3")
    text = said.text("f3.p50_shared_over_perworker", r)
    if text is None:
        return None
    return ("p50 shared / perworker = %s%s at %d threads" % (
        text, said.interval("f3.p50_shared_over_perworker", r), r["threads"]),
        (r.get("load") or "").strip())


def by_gate_load(rows, value):
    """{gate: [(load %, median, min, max, n)]} of value over rows."""
    out = {}
    for (g, x), v in nrdata.aggregate(rows, ("gate", load_pct), value).items():
        out.setdefault(g, []).append((x,) + v)
    for g in out:
        out[g].sort()
    return out


@condensed
def prep_f3a(host):
    """F3's main figure. Open loop (rows with a load): latency percentiles,
    items in flight and throughput against the offered load, by gate, at the
    largest thread count whose threads each have a CPU (prep_f3_load). Closed
    loop (older results): the percentile distribution by gate (prep_f3_dist)."""
    rows = host.data["f3-gate"]
    if any(load_of(r) for r in rows):
        return prep_f3_load(host, rows)
    return prep_f3_dist(host, rows)


def prep_f3_load(host, allrows):
    rows = [r for r in allrows if load_of(r)]
    lat_rows = [r for r in rows if r.get("p50_ns", "").strip()]
    t, over = f3_threads(host, lat_rows or rows)
    at = [r for r in rows if nrdata.threads(r) == t]
    gates = order_of("gate", {r.get("gate", "") for r in at})
    loads = sorted({load_pct(r) for r in at})
    pct = {c: by_gate_load(at, c) for c, _n in F3_PCT}
    infl = by_gate_load(at, inflight_of)
    tput = by_gate_load(at, "throughput_ops_per_s")
    offered = sorted((k[0],) + v for k, v in
                     nrdata.aggregate(at, (load_pct,), "rate").items() if v[0] > 0)
    cap = nrdata.aggregate(at, (lambda r: 0,), "capacity_ops_per_s").get((0,))
    off = {q[0]: q[1] for q in offered}
    behind = []
    for g in gates:
        for q in tput.get(g, []):
            if q[0] in off and q[1] < KEPT_UP * off[q[0]]:
                behind.append((g, q[0], q[1] / off[q[0]]))
    top = [r for r in at if load_pct(r) == loads[-1]]
    said = Said()
    r50 = f3_claim(host, said)
    fl = {g: nrdata.aggregate([r for r in top if r.get("gate") == g], (lambda r: 0,),
                              inflight_of).get((0,)) for g in ("shared", "perworker")}
    ann = None
    if r50:
        ann = r50[0] + (", %s load" % pct_label(100 * float(r50[1])) if r50[1] else "")
        if fl["shared"] and fl["perworker"]:
            ann += "; in flight %.3g vs %.3g" % (fl["shared"][0], fl["perworker"][0])
        ann += " (%s)" % STUDY["f3"]
    extra = ["open loop: each run first measures the capacity (closed loop, per-worker gate), "
             "then offers %s of it (x axis; the offered rate: black dashed on grey in the "
             "throughput panel)%s" % (
                 ", ".join(pct_label(x) for x in loads),
                 "; capacity median %.3g M items/s (%.3g\u2013%.3g)" % (
                     cap[0] / 1e6, cap[1] / 1e6, cap[2] / 1e6) if cap else ""),
             "every line: the median over the reps of each run's percentile (summary.csv, "
             "from its HdrHistogram), whiskers min\u2013max; colour per gate, line style per "
             "percentile (p50 solid, p90 dashed, p99 dash-dot, p99.9 dotted)",
             inflight_words(at) + "; median over the reps, whiskers min\u2013max"]
    if behind:
        extra.append("fell behind the offered rate (< %d%% delivered: saturated, its latency "
                     "there is queueing): %s" % (100 * KEPT_UP, "; ".join(
                         "%s at %s load (%.0f%%)" % (g, pct_label(x), 100 * f)
                         for g, x, f in behind)))
    elif offered:
        extra.append("every gate delivered the offered rate (>= %d%%) at every load"
                     % (100 * KEPT_UP))
    ts = sorted({nrdata.threads(r) for r in rows})
    ov_t = oversub_of(rows, nrdata.threads)
    over_ts = [x for x in ts if ov_t.get(x) == 1]
    if over == 1:
        extra.append("every thread count is oversubscribed: %d threads drawn, the largest"
                     % t)
    elif t != ts[-1]:
        extra.append("%d threads: the largest count whose threads each have a CPU (of %s)"
                     % (t, ", ".join(map(str, ts))))
    if over_ts and over != 1:
        extra.append("oversubscribed thread counts (%s: threads share CPUs, the scheduler "
                     "sets the latency) only in the separate panel \u201c%s\u201d (p50 vs "
                     "offered load; also in f3-gate-vs-threads), never in the others"
                     % (", ".join(map(str, over_ts)), F3_OVER_TITLE))
    # the oversubscribed thread counts: their own labelled panel, p50 vs load
    over_p50 = {}
    if over_ts and over != 1:
        for ot in over_ts:
            ors = [r for r in rows if nrdata.threads(r) == ot]
            ser = by_gate_load(ors, "p50_ns")
            if ser:
                over_p50[ot] = ser
    drawn = at + [r for r in rows if nrdata.threads(r) in over_p50]
    extra.append(oversub_status(drawn, lambda r: (r.get("gate"), nrdata.threads(r), load_of(r)),
                                mark="the tinted panel" if over_p50 else
                                "'oversubscribed' in the title"))
    if len(rows) < len(allrows):
        extra.append("%d closed-loop runs (no load) left out" % (len(allrows) - len(rows)))
    extra.append(pooled_note(at, lambda r: (r.get("gate"), load_of(r))))
    subtitle = "%d threads%s" % (t, ", oversubscribed" if over == 1 else "")
    return add_paired_words({"kind": "f3load", "threads": t, "rows": at, "loads": loads, "order": gates,
            "pct": pct, "inflight": infl, "tput": tput, "offered": offered,
            "capacity": cap, "behind": behind, "oversubscribed": over,
            "over_p50": over_p50, "over_threads": sorted(over_p50),
            "grid": (2, max(3, len(gates))), "widths": None, "subtitle": subtitle,
            "figsize": (6.0 * max(3, len(gates)), 10.5),
            "drawn": fig_f3.drawn_line({"over_p50": over_p50}),
            "title": "F3: latency, items in flight and throughput vs offered load by gate "
                     "at %s (open loop)" % subtitle,
            "annotation": ann, "caption": caption_lines(host, at, extra)}, said)


def prep_f3_dist(host, rows):
    """Latency percentiles by gate (and offered load, where open loop) at F3's
    thread count. One rule for every line: the median over the reps at each
    percentile (each run's latency.csv, interpolated on a log grid); the band is
    the min-max over the reps. Without latency.csv: the medians of summary.csv's
    percentiles."""
    lat_rows = [r for r in rows if r.get("p50_ns", "").strip()]
    t, over = f3_threads(host, lat_rows or rows)
    at = [r for r in rows if nrdata.threads(r) == t]
    gates = order_of("gate", {r.get("gate", "") for r in at})
    loads = loads_in(at)
    curves = []
    extra = []
    for g in gates:
        for ld in loads:
            grs = [r for r in at if r.get("gate", "") == g and load_of(r) == ld]
            if not any(r.get("p50_ns", "").strip() for r in grs):
                continue
            have = [c for c in (latency_curve(host, r) for r in grs) if c]
            env = envelope(have) if have else None
            if env:
                source = "latency.csv"
                main = list(zip(env[0], env[1]))
                band = (env[0], env[2], env[3]) if len(have) > 1 else None
            else:
                source = "summary"
                main = []
                for c, pc in SUMMARY_PCT:
                    vals = [float(r[c]) for r in grs if r.get(c, "").strip()]
                    if vals and statistics.median(vals) > 0:
                        main.append((1.0 / (1.0 - pc), statistics.median(vals)))
                band = None
                extra.append("%s: no latency.csv, medians of summary.csv's percentiles" % g)
            curves.append({"gate": g, "load": ld, "points": main, "band": band,
                           "source": source, "nreps": len(have) if env else len(grs),
                           "oversubscribed": over})
    said = Said()
    r50 = f3_claim(host, said)
    extra.insert(0, "every line: the median over the reps at each percentile (each run's "
                 "latency.csv, interpolated); band: min\u2013max over the reps")
    if len(loads) > 1 or loads[0]:
        extra.insert(1, "open loop at offered loads of %s (line style per load, solid: "
                     "the highest)" % ", ".join(load_label(ld) for ld in loads))
    else:
        # closed loop: the queue is kept full, so latency is mostly queueing (Little)
        fl = nrdata.aggregate(at, ("gate",), inflight_of)
        if fl:
            extra.insert(1, "closed loop: the producers keep the queue full, so latency here "
                         "is mostly queueing; items in flight (Little: throughput \u00d7 mean "
                         "latency, median over the reps): %s" % ", ".join(
                             "%s %.3g" % (g, fl[(g,)][0]) for g in gates if (g,) in fl))
    extra.append(oversub_status(at, nrdata.threads, mark="'oversubscribed' in the legend"))
    ts = sorted({nrdata.threads(r) for r in rows})
    if t != ts[-1]:
        extra.append("%d threads: the largest count whose threads each have a CPU (of %s)"
                     % (t, ", ".join(map(str, ts))))
    p = {"kind": "f3a", "curves": curves, "threads": t, "rows": at, "loads": loads,
         "drawn": "per gate%s, the latency at each percentile: the median over the reps, "
                  "band min\u2013max" % (" and offered load (line style)" if len(loads) > 1
                                         else ""),
         "subtitle": "%d threads" % t,
         "title": "F3: latency percentiles by gate at %d threads%s" % (
             t, " and offered load" if len(loads) > 1 else ""),
         "caption": caption_lines(host, at, extra)}
    p["annotation"] = ("%s%s (%s)" % (r50[0], ", " + load_label(r50[1]) if r50[1] else "",
                                      STUDY["f3"])) if r50 else None
    return add_paired_words(p, said)


@condensed
def prep_f3b(host):
    """p50 and p99 latency vs threads by gate (open loop: at the highest offered
    load). Thread counts whose runs were oversubscribed go to a separate third
    panel (F3_OVER_TITLE), never into the first two."""
    rows = host.data["f3-gate"]
    opened = [r for r in rows if load_of(r)]
    extra = []
    top = None
    if opened:
        top = max(load_pct(r) for r in opened)
        if len(opened) < len(rows):
            extra.append("%d closed-loop runs (no load) left out" % (len(rows) - len(opened)))
        rows = [r for r in opened if load_pct(r) == top]
        extra.append("open loop at %s of capacity (the highest offered load; every load in "
                     "f3-gate-percentiles)" % pct_label(top))
    ov_t = oversub_of(rows, nrdata.threads)
    over_ts = sorted(t for t, v in ov_t.items() if v == 1)
    clean = [r for r in rows if nrdata.threads(r) not in over_ts]
    over = [r for r in rows if nrdata.threads(r) in over_ts]
    p50, order = series_vs_threads(host, clean, "gate", "p50_ns") if clean else ({}, [])
    p99, order99 = series_vs_threads(host, clean, "gate", "p99_ns") if clean else ({}, [])
    o50, oorder = series_vs_threads(host, over, "gate", "p50_ns") if over else ({}, [])
    o99, oorder99 = series_vs_threads(host, over, "gate", "p99_ns") if over else ({}, [])
    said = Said()
    r50 = f3_claim(host, said) if clean else None
    ann = "%s (%s)" % (r50[0], STUDY["f3"]) if r50 else None
    clean_ts = sorted({nrdata.threads(x) for x in clean})
    if over_ts:
        extra.append("left: thread counts where every thread has a CPU of its own (%s); "
                     "right, apart: oversubscribed thread counts (%s), where threads share "
                     "CPUs and the scheduler, not the queue, sets the latency (p50 solid, p99 "
                     "dashed)" % (", ".join(map(str, clean_ts)) or "none",
                                  ", ".join(map(str, over_ts))))
    extra += [oversub_status(rows, lambda r: (r.get("gate"), nrdata.threads(r)),
                             mark="the right-hand panel"),
              pooled_note(rows, lambda r: (r.get("gate"), nrdata.threads(r)))]
    title = "F3: enqueue-to-dequeue " + what_varies(p50 or o50, "gate", "latency")
    if top is not None:
        title += ", %s load" % pct_label(top)
    if over_ts:
        title += "; oversubscribed %s threads apart" % ", ".join(map(str, over_ts))
    ns = [q[4] for ser in (p50, p99) for pts in ser.values() for q in pts]
    return add_paired_words({"kind": "f3b", "p50": p50, "p99": p99, "over_p50": o50,
            "drawn": "p50 (left) and p99 (right) per gate against threads: the median of "
                     "the runs, %s%s" % (fig_common.whisker_words(ns),
                                         "; oversubscribed thread counts apart, tinted"
                                         if over_ts else ""),
            "over_p99": o99,
            "over_threads": over_ts,
            "order": order_of("gate", set(order) | set(order99)),
            "over_order": order_of("gate", set(oorder) | set(oorder99)), "rows": rows,
            "grid": (1, 3 if over_ts else 2),
            "title": title, "annotation": ann, "caption": caption_lines(host, rows, extra)},
        said)


#: F5's target: every point realizes at least this share of its configured batch
REALIZED_TARGET = 0.8


def realized_of(row):
    """(items moved per cross-node transfer, source) of a row: summary.csv's
    items_per_transfer ("column"), else the same formula, (items_in + items_out)
    / (batches_in + batches_out), from its queue counters ("counters"), else
    (None, None)."""
    v = nrdata.num(row, "items_per_transfer")
    if v is not None and v > 0:
        return v, "column"
    c = [nrdata.num(row, k) for k in ("items_in", "items_out", "batches_in", "batches_out")]
    if all(x is not None for x in c) and c[2] + c[3] > 0 and c[0] + c[1] > 0:
        return (c[0] + c[1]) / (c[2] + c[3]), "counters"
    return None, None


@condensed
def prep_f5(host):
    """F5: throughput against the realized batch (the median items per cross-node
    transfer of each point), the configured batch a label beside each point;
    per point (x, med, min, max, n, ceiling, harness, oversubscribed, batch,
    realized median or None, realized min, realized max), sorted by batch.
    Where a point's runs record no transfers its x is the configured batch.
    The closed-loop runs (the capacity, where the sweep ran both loops) go
    to their own panels (fig_f5)."""
    rows, closed_rows = fig_f5.split(host.data["f5-ceiling"])
    pkey = (lambda r: (nrdata.threads(r), int(float(r["batch"]))))
    agg = nrdata.aggregate(rows, (nrdata.threads, lambda r: int(float(r["batch"]))),
                           "throughput_ops_per_s")
    ceil = host.ceiling.drawn(rows, pkey)
    hs = harness_of(rows, pkey)
    ov = oversub_of(rows, pkey)
    real, sources = {}, {}
    for r in rows:
        v, src = realized_of(r)
        if v is not None:
            real.setdefault(pkey(r), []).append(v)
            sources[src] = sources.get(src, 0) + 1
    lines = {}
    for (t, b), (med, mn, mx, n) in agg.items():
        c = ceil.get((t, b))
        h = hs.get((t, b))
        rv = real.get((t, b))
        rmed = statistics.median(rv) if rv else None
        lines.setdefault(t, []).append((rmed if rmed is not None else float(b), med, mn, mx,
                                        n, c, h[0] if h else None, ov.get((t, b)), b, rmed,
                                        min(rv) if rv else None, max(rv) if rv else None))
    for t in lines:
        lines[t].sort(key=lambda q: q[8])
    pts = [(t, q[8], q[9] / q[8]) for t in sorted(lines) for q in lines[t]
           if q[9] is not None]
    missing = sum(1 for pl in lines.values() for q in pl if q[9] is None)
    realized = bool(pts)
    # what the x axis is, and whether the batches were realized
    if not realized:
        xnote = ("x: the CONFIGURED batch \u2014 these results record no items per transfer "
                 "(no items_per_transfer, no queue counters): what a transfer moved is "
                 "unknown", "warn")
    elif "column" in sources and "counters" not in sources:
        xnote = ("x: the realized batch, items moved per cross-node transfer (summary.csv's "
                 "items_per_transfer = (items_in + items_out) / (batches_in + batches_out)), "
                 "median over the reps of each point; the label beside a point (b=N) is its "
                 "configured batch", None)
    else:
        xnote = ("x: the realized batch, items moved per cross-node transfer, (items_in + "
                 "items_out) / (batches_in + batches_out): %s; median over the reps of each "
                 "point; the label beside a point (b=N) is its configured batch" % (
                     "from the queue counters (these results have no items_per_transfer "
                     "column)" if "column" not in sources else
                     "items_per_transfer in %d runs, from the queue counters in %d"
                     % (sources.get("column", 0), sources.get("counters", 0))), None)
    below = [x for x in pts if x[2] < REALIZED_TARGET]
    if realized:
        worst = min(pts, key=lambda x: x[2])
        if len(pts) <= 12:
            per = "; ".join("%d threads: %s" % (t, ", ".join(
                "b=%d %.2f" % (b, f) for t2, b, f in pts if t2 == t))
                for t in sorted({x[0] for x in pts}))
        else:
            per = "median %.2f" % statistics.median(x[2] for x in pts)
        verdict = ("holds at every point" if not below else
                   "does NOT hold at %d of %d points (%s)" % (
                       len(below), len(pts), ", ".join("b=%d at %d threads" % (b, t)
                                                      for t, b, _f in below)))
        rnote = ("realized / configured batch: %s; minimum %.2f (b=%d at %d threads); target "
                 "realized >= %.1f \u00d7 configured: %s%s" % (
                     per, worst[2], worst[1], worst[0], REALIZED_TARGET, verdict,
                     "; not measured at %d points (x = configured there)" % missing
                     if missing else ""), "warn" if below else None)
        short = "realized \u2265 %.1f\u00d7 configured at every point: %s (min %.2f\u00d7)" % (
            REALIZED_TARGET, "yes" if not below else "NO, %d of %d below" % (
                len(below), len(pts)), worst[2])
    else:
        rnote = ("realized / configured batch: not measured", None)
        short = None
    loads = sorted({load_of(r) for r in rows}, key=lambda v: float(v) if v else -1.0)
    lingers = sorted({nrdata.num(r, "linger_us") for r in rows} - {None})
    if loads and loads[-1]:
        how = "open loop at %s of capacity" % " / ".join(
            pct_label(100 * float(x)) for x in loads if x)
    else:
        how = ("closed loop (no load recorded): a saturated producer moves only the room left "
               "at the destination")
    if lingers:
        how += "; consumers wait up to %s \u00b5s for a full batch (linger)" % "/".join(
            "%g" % x for x in lingers)
    pins = sorted({r.get("pin", "") for r in rows if r.get("pin", "")})
    extra = [host.ceiling.status(),
             harness_status(rows, bound_count(lines), drawn="dash-dot, same colour"),
             "pin: %s" % ", ".join(pins) if pins else None, how,
             oversub_status(rows, lambda r: (nrdata.threads(r), r["batch"])),
             pooled_note(rows, lambda r: (nrdata.threads(r), r["batch"]))]
    ratios = [q[1] / q[5] for pl in lines.values() for q in pl if q[5]]
    ann = None
    if ratios:
        ann = "measured / ceiling: %.0f%%\u2013%.0f%%" % (100 * min(ratios), 100 * max(ratios))
    caption = caption_lines(host, rows, extra)
    caption[len(caption) - 1:len(caption) - 1] = [xnote, rnote]
    closed = fig_f5.prep_closed(host, closed_rows if closed_rows is not rows else [])
    if closed["lines"]:
        caption.insert(len(caption) - 1, ("closed loop (empty load cell, rate 0): %d runs, "
                                          "the capacity against the ceiling; binding terms: %s"
                                          % (len(closed_rows), ", ".join(closed["terms"])
                                             or "none"), None))
        ann = "closed loop, measured / ceiling: %.0f%%\u2013%.0f%%" % (
            100 * min(closed["ratios"]), 100 * max(closed["ratios"])) if closed["ratios"] \
            else None
    p = {"kind": "f5", "lines": lines, "threads": sorted(lines),
         "rows": rows + (closed_rows if closed_rows is not rows else []),
         "realized": realized, "realized_points": pts, "realized_below": below,
         "realized_note": short, "closed": closed, "loads": loads, "grid": (1, 3),
         "title": "F5: throughput vs batch size %s, against the physical ceiling%s" % (
             "as realized (items per transfer)" if realized
             else "(configured: realized not recorded)",
             "; the closed loop's capacity" if closed["lines"] else ""),
         "annotation": ann, "has_ceiling": bool(ratios),
         "has_harness": any(q[6] for pl in lines.values() for q in pl),
         "caption": caption}
    p["drawn"] = fig_f5.drawn_line(p)
    return p


def workload_of(row):
    """The row's workload: prodcons where the cell is empty (tables from before
    workloads), else the cell (summarize.workload_of's rule)."""
    v = row.get("workload", "")
    return (v.strip() if isinstance(v, str) else "") or "prodcons"


# --------------------------------------------------------------------------
# The figures kept in their own modules (fig_*.py): they use this module's
# helpers through a live view of its namespace.

class _Live:
    """This module's namespace as attributes (live: later definitions show)."""

    def __init__(self, ns):
        self.__dict__ = ns


from . import fig_f1  # noqa: E402
from . import fig_f4  # noqa: E402
from . import fig_f3  # noqa: E402
from . import fig_f5  # noqa: E402
from . import fig_lines  # noqa: E402
from . import fig_peers  # noqa: E402

for _m in (fig_f1, fig_f3, fig_f4, fig_f5, fig_lines, fig_peers):
    # this module's namespace; a copy loaded under another name (the tests'
    # variants of scripts/ceiling.py) binds only where nothing else did
    if _m.P is None or __name__ in ("scripts.plot", "__main__"):
        _m.bind(_Live(globals()))

# the peers' names callers know this module by
from .fig_peers import (  # noqa: E402,F401
    prep_peers, prep_peers_latency, draw_peers, draw_peers_latency, pairs_lost_text,
    PEERS_PAIRS_BLOCK, PEERS_PAIRS_COLUMNS)


# name, experiment, prepare, panels (single host)
FIGURES = [
    ("f1-lookup-cost", "f1-lookup-cost", prep_f1, 1),
    ("f2-node-cache", "f2-node-cache", prep_f2, 1),
    ("f3-gate-percentiles", "f3-gate", prep_f3a, 1),
    ("f3-gate-vs-threads", "f3-gate", prep_f3b, 2),
    ("f4-backoff", "f4-backoff", prep_f4, 6),
    ("f5-ceiling", "f5-ceiling", prep_f5, 2),
    ("peers-throughput", "peers", prep_peers, 2),
    ("peers-latency", "peers", prep_peers_latency, 2),
]
FIGURE_NAMES = [f[0] for f in FIGURES]
COMPARE_TITLES = {
    "f1-lookup-cost": "F1: cost of finding the node, per operation",
    "f2-node-cache": "F2: remembering the node \u2014 throughput by look-up mode",
    "f3-gate-percentiles": "F3: latency by gate (open loop: vs offered load), threads "
                           "with a CPU each",
    "f3-gate-vs-threads": "F3: enqueue-to-dequeue latency by gate and threads",
    "f4-backoff": "F4: backoff against spinning per workload",
    "f5-ceiling": "F5: measured throughput against the physical ceiling",
    "peers-throughput": "Peers: throughput by queue and threads",
    "peers-latency": "Peers: latency at the largest thread count",
}


# --------------------------------------------------------------------------
# Drawing (matplotlib is imported only when something is drawn)

plt = None
ticker = None


def init_matplotlib():
    global plt, ticker
    if plt is not None:
        return
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot
    import matplotlib.ticker as mticker
    plt, ticker = pyplot, mticker
    matplotlib.rcParams.update({
        "font.size": 11, "axes.titlesize": 12, "axes.labelsize": 11,
        "legend.fontsize": 9.5, "xtick.labelsize": 10, "ytick.labelsize": 10,
        "figure.titlesize": 14, "figure.titleweight": "bold",
        "axes.grid": True, "grid.alpha": 0.3, "grid.linewidth": 0.6,
        "axes.spines.top": False, "axes.spines.right": False,
        "pdf.fonttype": 42, "svg.fonttype": "none",
    })


def threads_axis(ax, xs, label="threads (producers + consumers)"):
    xs = sorted({x for x in xs if x and x > 0})
    ax.set_xlabel(label)
    if not xs:
        return
    if max(xs) / min(xs) >= 4:
        ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(ticker.FixedLocator(xs))
    ax.xaxis.set_major_formatter(ticker.FixedFormatter([fmt_plain(x) for x in xs]))
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    lo, hi = min(xs), max(xs)
    if ax.get_xscale() == "log":
        ax.set_xlim(lo / 1.25, hi * 1.25)
    else:
        pad = max(0.5, (hi - lo) * 0.06)
        ax.set_xlim(lo - pad, hi + pad)


def value_axis(ax, values, formatter=fmt_plain, log=None):
    """Linear from 0, or log where the values span decades; limits from the values."""
    vals = [v for v in values if finite_pos(v)]
    if log is None:
        log = spans_decades(vals)
    if log:
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(formatter))
        ax.yaxis.set_minor_formatter(ticker.NullFormatter())
        if vals:
            lo, hi = min(vals) / 1.35, max(vals) * 1.35
            ax.set_ylim(lo, hi)
            span = hi / lo
            if span < 4:
                digits = "123456789"
            elif span < 1000:
                digits = "25"
            else:
                digits = ""
            if digits:
                ax.yaxis.set_minor_formatter(ticker.FuncFormatter(
                    lambda v, _p: formatter(v) if ("%.1e" % v)[0] in digits else ""))
    else:
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(formatter))
        if vals:
            ax.set_ylim(0, max(vals) * 1.12)


def no_data(ax, text):
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center",
            fontsize=12, color="0.4")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.grid(False)
    for sp in ax.spines.values():
        sp.set_visible(False)


def annotate_title(ax, title, annotation):
    if annotation:
        ax.set_title("%s\n%s" % (title, annotation) if title else annotation, fontsize=11)
    elif title:
        ax.set_title(title)


def draw_harness(ax, pts, scale, span=None):
    """The harness's own ceiling [(x, median, ...)] as a grey dash-dot line; one
    point becomes a short level segment (``span``: x -> (x0, x1))."""
    if not pts:
        return []
    xy = [(q[0], q[1] * scale) for q in pts]
    if len(xy) == 1:
        # one x: a point (a wide level mark), not a line
        ax.plot([xy[0][0]], [xy[0][1]], label=HARNESS_LABEL, linestyle="none", marker="_",
                markersize=34, markeredgewidth=2.4, color=HARNESS_STYLE["color"])
        return [xy[0][1]]
    ax.plot([q[0] for q in xy], [q[1] for q in xy], label=HARNESS_LABEL, **HARNESS_STYLE)
    return [q[1] * scale for q in pts]


def mark_oversub(ax, x, pts, scale, label=True):
    """A black x over the points that are oversubscribed (q[7] == 1)."""
    hit = [(xx, q[1] * scale) for xx, q in zip(x, pts) if is_over(q)]
    if hit:
        have = OVERSUB_LABEL in ax.get_legend_handles_labels()[1]
        ax.plot([h[0] for h in hit], [h[1] for h in hit],
                label=OVERSUB_LABEL if label and not have else None, **OVERSUB_STYLE)


def ring_bound(ax, x, pts, scale):
    """Ring the points at >= HARNESS_BOUND x their own harness ceiling."""
    hit = [(xx, q[1] * scale) for xx, q in zip(x, pts)
           if len(q) > 6 and q[6] and q[1] >= HARNESS_BOUND * q[6]]
    if hit:
        ax.plot([h[0] for h in hit], [h[1] for h in hit], linestyle="none", marker="o",
                markersize=13, markerfacecolor="none", markeredgecolor="0.35",
                markeredgewidth=1.2, zorder=5)


def draw_series(ax, series, order, family, labels=None, scale=1e-6, ceiling=None,
                ylabel="", formatter=fmt_plain, log=None, colors=None, harness=None,
                styles=None, mark_over=True, hollow=()):
    """``styles``: {variant: (linestyle, marker)} where not the family's own;
    ``mark_over`` False: no black x (a panel that is all oversubscribed, said in
    its title); ``hollow``: variants drawn with hollow markers."""
    allv = []
    xs = []
    dodge = dodger(sorted({p[0] for v in order for p in series[v]}), len(order))
    for i, v in enumerate(order):
        pts = series[v]
        x = [dodge(p[0], i) for p in pts]
        med = [p[1] * scale for p in pts]
        lo = [max(0.0, (p[1] - p[2]) * scale) for p in pts]
        hi = [max(0.0, (p[3] - p[1]) * scale) for p in pts]
        color = colors[v] if colors else color_of(family, v)
        style = dict(linestyle=":" if (family == "queue" and v == "faa") else "-")
        marker = marker_of(family, v)
        if styles and v in styles:
            style["linestyle"], marker = styles[v]
        if len(pts) == 1:
            style["linestyle"] = "none"  # one x value: a point, not a line
        if v in hollow:
            style.update(markerfacecolor="white", markeredgecolor=color,
                         markeredgewidth=1.5)
        ax.errorbar(x, med, yerr=[lo, hi], color=color, marker=marker,
                    markersize=5.5 if len(pts) > 1 else 7.5, linewidth=1.8, capsize=3,
                    elinewidth=1.1, label=(labels or {}).get(v, v), **style)
        ring_bound(ax, x, pts, scale)
        if mark_over:
            mark_oversub(ax, x, pts, scale)
        allv += [p[2] * scale for p in pts] + [p[3] * scale for p in pts]
        xs += x
    if harness:
        span = dodger(sorted({p[0] for v in order for p in series[v]}), 2, 0.4)
        allv += draw_harness(ax, harness, scale, lambda x: (span(x, 0), span(x, 1)))
    measured_max = max(allv) if allv else None
    ceil_vals = []
    for i, grp in enumerate(ceiling or []):
        if i == 0:
            style, label = dict(CEILING_STYLE), "physical ceiling (model)"
        else:
            style = dict(color=color_of(family, grp["variants"][0]), linestyle="--",
                         linewidth=1.3)
            label = "ceiling (model) for %s" % ", ".join(grp["variants"])
        pts = grp["points"]
        if len(pts) == 1:
            # one x: a point (a wide level mark), not a line
            ax.plot([pts[0][0]], [pts[0][1] * scale], label=label, linestyle="none",
                    marker="_", markersize=34, markeredgewidth=2.0, color=style["color"])
        else:
            ax.plot([c[0] for c in pts], [c[1] * scale for c in pts], label=label, **style)
        ceil_vals += [c[1] * scale for c in grp["points"]]
        xs += [c[0] for c in grp["points"]]
    if ceil_vals and measured_max:
        # a ceiling far above every measurement would squash the data: clip it
        allv += [min(v, measured_max * 30) for v in ceil_vals]
    threads_axis(ax, sorted({p[0] for v in order for p in series[v]}) or xs)
    ax.set_ylabel(ylabel)
    value_axis(ax, allv, formatter, log)
    return allv


def dodger(xs, n, width=0.22):
    """Shift variant i of n sideways a little so that error bars do not overlap:
    by a fraction of a doubling on a log2 threads axis, of the gap on a linear
    one; ``width`` is the spread of all n variants, in steps."""
    if n <= 1 or not xs:
        return lambda x, i: x
    if len(xs) > 1 and max(xs) / min(xs) >= 4:
        return lambda x, i: x * 2 ** (width * (i / (n - 1) - 0.5))
    if len(xs) > 1:
        gap = min(b - a for a, b in zip(xs, xs[1:]))
        width *= 0.5  # a linear axis leaves less room between points
    else:
        gap = 1.0
    return lambda x, i: x + gap * width * (i / (n - 1) - 0.5)


def legend(ax, outside=False, **kw):
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    pairs = sorted(zip(handles, labels),
                   key=lambda hl: ("ceiling" in hl[1]) + 2 * (hl[1] == HARNESS_LABEL))
    kw.setdefault("handles", [h for h, _l in pairs])
    kw.setdefault("labels", [lab for _h, lab in pairs])
    if outside:
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False,
                  borderaxespad=0.0, **kw)
    else:
        ax.legend(loc="best", framealpha=0.85, **kw)


def draw_f1(axes, p, show_legend=True):
    return fig_f1.draw(axes, p, show_legend)


def draw_lines(axes, p, show_legend=True, outside=None):
    return fig_lines.draw(axes, p, show_legend, outside)


def f4_slot_x(p, b, j):
    """The x of backoff b at the j-th amount of local work on a category axis."""
    n = len(p["works"])
    off = 0.0 if n == 1 else F4_SLOT_SPREAD * (j / (n - 1) - 0.5)
    return p["backoffs"].index(b) + off


def f4_marker(color, j, marker="o"):
    """Filled for the least local work, hollow for more; ``marker``: the shape
    (per regime where a prodcons panel's runs are split: fig_f4)."""
    return dict(marker=marker, color=color, markerfacecolor=color if j == 0 else "white",
                markeredgecolor=color, markeredgewidth=1.6)


def f4_category_axis(ax, p, label):
    xs = list(range(len(p["backoffs"])))
    ax.set_xticks(xs)
    ax.set_xticklabels(p["backoffs"])
    # a little more room on the right: the last slot's value label
    ax.set_xlim(-0.55, len(xs) - 0.25)
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    ax.grid(axis="x", visible=False)
    if label:
        ax.set_xlabel("backoff after a lost race")


def draw_f4_slots(ax, p, pn, key, scale=1.0):
    """One thread count: a dot per backoff and amount of work, whisker
    min\u2013max, the harness as a grey level mark at its slot; returns the values
    drawn and the x of values <= 0 (no dot on a log axis: '0' there)."""
    vals, zeros = [], []
    for g in pn["groups"]:
        j = g["j"]
        for b, pts in g[key].items():
            if b not in p["backoffs"]:
                continue
            for q in pts:
                x = f4_slot_x(p, b, j) + g.get("dx", 0.0)
                if q[1] <= 0:
                    if not (key == "bns" and b == "none"):   # none never backs off
                        zeros.append(x)
                    continue
                ax.errorbar([x], [q[1] * scale], yerr=[[(q[1] - q[2]) * scale],
                                                     [(q[3] - q[1]) * scale]],
                            linestyle="none", markersize=7, capsize=3, elinewidth=1.1,
                            zorder=4, **f4_marker(color_of("backoff", b), j, fig_f4.marker(g)))
                if fig_f4.show_n(g):
                    fig_common.n_beside(ax, x, q[1] * scale, q[4], gid="f4-n")
                vals += [v * scale for v in (q[1], q[2], q[3]) if v > 0]
                if key == "tput":
                    ring_bound(ax, [x], [q], scale)
                mark_oversub(ax, [x], [q], scale)
    if key == "tput":
        # the harness alone: a grey mark per backoff and amount of work (one per
        # slot, not per regime: the null queue has no regime)
        for (b, j), byt in fig_f4.slot_harness(pn, p["backoffs"]).items():
            for h in byt.values():
                ax.plot([f4_slot_x(p, b, j)], [h * scale], linestyle="none", marker="_",
                        markersize=16, markeredgewidth=2.4, color=HARNESS_STYLE["color"],
                        zorder=3, label=HARNESS_LABEL)
                vals.append(h * scale)
    return vals, zeros


def draw_f4_lines(ax, p, pn, key, scale=1.0):
    """Several thread counts: a line per backoff and amount of work (solid,
    filled: the least work; dashed, hollow: more), whiskers min\u2013max; the
    harness per amount of work, grey."""
    series, order, colors, styles, labels, hollow = {}, [], {}, {}, {}, set()
    zeros = []
    for g in pn["groups"]:
        for b in p["backoffs"]:
            if not (key == "bns" and b == "none"):   # none never backs off
                zeros += [q[0] for q in g[key].get(b, []) if q[1] <= 0]
            pts = [q for q in g[key].get(b, []) if q[1] > 0]
            if not pts:
                continue
            k = "%s|%g|%s" % (b, g["work"], fig_common.group_label(g["regime"])
                              if g.get("regime") else "")
            series[k], colors[k] = pts, color_of("backoff", b)
            styles[k] = ("-" if g["j"] == 0 else "--", fig_f4.marker(g) if g.get("regime")
                         else marker_of("backoff", b))
            labels[k] = b + ("" if g["j"] == 0 else ", " + work_words(g["work"]))
            if g["j"]:
                hollow.add(k)
            order.append(k)
    if not series:
        return [], zeros
    vals = draw_series(ax, series, order, "backoff", labels, scale, [], "", colors=colors,
                       styles=styles, hollow=hollow)
    if key == "tput":
        for g in pn["groups"]:
            h = g["harness"]
            if h:
                style = dict(HARNESS_STYLE)
                if g["j"]:
                    style["linestyle"] = ":"
                ax.plot([q[0] for q in h], [q[1] * scale for q in h],
                        label=HARNESS_LABEL if g["j"] == 0 else None, **style)
                vals += [q[1] * scale for q in h]
    return vals, zeros


def f4_value_panel(ax, p, pn, key, first_col, bottom, ylabel):
    scale = 1e-6 if key == "tput" else 1.0
    if p["categorical"]:
        vals, zeros = draw_f4_slots(ax, p, pn, key, scale)
        f4_category_axis(ax, p, bottom)
    else:
        vals, zeros = draw_f4_lines(ax, p, pn, key, scale)
        threads_axis(ax, p["threads"], "threads (producers + consumers)"
                     if pn["workload"] == "prodcons" else "threads")
        if not bottom:
            ax.set_xlabel("")
    fmt = fmt_ns if key in ("bns", "p99") else fmt_plain
    log = None
    pos = [v for v in vals if finite_pos(v)]
    if key == "tput" and pos and max(pos) / min(pos) >= 5:
        log = True   # the harness far above the queue: both readable
    if key == "failed":
        thr = nrdata.BACKOFF_EXERCISED * 1000
        ax.axhline(thr, color="black", linestyle=":", linewidth=1.3, zorder=2,
                   label="%g lost race per 1,000 operations: none below it, not exercised"
                   % thr)
        vals = vals + [thr]
    if not vals and not zeros:
        no_data(ax, {"bns": "time in backoff not recorded\n(results from before the "
                            "counter)",
                     "p99": "no latency recorded",
                     "fair": "fairness not recorded in these results",
                     "failed": "lost races not recorded"}.get(key, "no data"))
        if ylabel:
            ax.set_ylabel(ylabel)
        return
    if key == "fair":
        # a share in (0, 1]: the same fixed axis in every panel, the line at 1
        ax.axhline(1.0, color="black", linestyle=":", linewidth=1.3, zorder=2)
        ax.annotate(F4_FAIR_LINE, (0.01, 1.0), xycoords=ax.get_yaxis_transform(),
                    xytext=(0, 5), textcoords="offset points", ha="left", va="bottom",
                    fontsize=8, color="0.3", gid="f4-fair-line")
        ax.set_ylim(0.0, 1.2)
        ax.set_yticks([0.0, 0.25, 0.5, 0.75, 1.0])
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _p: "%g" % v))
        if ylabel:
            ax.set_ylabel(ylabel)
        return
    if not vals:
        vals = [1.0]   # every value 0: an empty linear axis with the zeros marked
        ax.text(0.5, 0.5, "0 at every point: no backoff ran" if key == "bns" else
                "0 at every point", transform=ax.transAxes, ha="center", va="center",
                fontsize=9, color="0.35")
    value_axis(ax, vals, fmt, log)
    if p["categorical"]:
        for x in zeros:
            ax.text(x, 0.02, "0", transform=ax.get_xaxis_transform(), ha="center",
                    va="bottom", fontsize=8, color="0.35")
    elif zeros:
        ax.text(0.5, 0.04, "0 at %d point%s (not drawn)" % (len(zeros), "" if len(zeros) == 1
                                                            else "s"),
                transform=ax.transAxes, ha="center", va="bottom", fontsize=8, color="0.35")
    if ylabel:
        ax.set_ylabel(ylabel)


def place_labels(ax, labels, size=8.0):
    """Value labels beside their dots [(x, y, text, right, grey)], moved up or
    down where two would overlap (sizes estimated from the axes' size in the
    figure, before the layout settles: a little room is left)."""
    if not labels:
        return
    fig = ax.figure
    while not hasattr(fig, "get_figwidth"):   # a subfigure's axes: the figure's size
        fig = fig.figure
    pos = ax.get_position()
    w_in = max(0.5, pos.width * fig.get_figwidth())
    h_in = max(0.5, pos.height * fig.get_figheight())
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    per_in_x, per_in_y = (x1 - x0) / w_in, (y1 - y0) / h_in
    gap = 7.0 / 72 * per_in_x
    boxes = []
    for x, y, text, right, grey in sorted(labels, key=lambda q: (q[0], q[1])):
        lines = text.splitlines()
        wid = max(len(t) for t in lines) * size * 0.6 / 72 * per_in_x
        hgt = len(lines) * size * 1.3 / 72 * per_in_y
        if right and x + gap + wid > x1:
            right = False   # no room before the axis' right end: on the left
        left = x + gap if right else x - gap - wid
        # the nearest height, in half-label steps, where it meets no other
        # label and stays inside the axes
        yy = y
        for k in range(40):
            cand = y + (k + 1) // 2 * hgt / 2 * (1 if k % 2 else -1)
            if not (y0 + hgt / 2 <= cand <= y1 - hgt / 2) and k:
                continue
            if not any(left < b[1] and b[0] < left + wid and cand - hgt / 2 < b[3]
                       and b[2] < cand + hgt / 2 for b in boxes):
                yy = cand
                break
        boxes.append((left, left + wid, yy - hgt / 2, yy + hgt / 2))
        ax.annotate(text, (x, y), xytext=(left if right else left + wid, yy),
                    textcoords="data", ha="left" if right else "right", va="center",
                    fontsize=size, color="0.45" if grey else "0.1", linespacing=1.1,
                    arrowprops=dict(arrowstyle="-", color="0.6", linewidth=0.6,
                                    shrinkA=0, shrinkB=4) if yy != y else None)


def draw_f4_change(ax, p, pn, first_col, bottom):
    """Each backoff's paired change against none at the panel's quoted thread
    count: a dot and its interval per amount of work, its value beside it
    ("inconclusive" where the interval holds 0); "not exercised" (top, apart
    from everything else) for an amount of work where none lost < 1 race per
    1,000 operations; the study's band in the prodcons panel only."""
    band = pn["workload"] == "prodcons"
    # the study's band only behind the changes measured here (none lost races):
    # a "not exercised" comparison is no point of agreement with it
    shown = [(f4_slot_x(p, e["backoff"], g["j"])) for g in pn["groups"]
             if g["exercised"] is not False for e in g["change"]
             if e["pct"] is not None and e["backoff"] in p["backoffs"]] if band else []
    half = 0.4 if len(p["works"]) == 1 else 0.14
    for k, x in enumerate(shown):
        ax.add_patch(plt.Rectangle((x - half, F4_STUDY_BAND[0]), 2 * half,
                                   F4_STUDY_BAND[1] - F4_STUDY_BAND[0], facecolor="#ffd27f",
                                   alpha=0.45, linewidth=0, zorder=0, gid="f4-study-band",
                                   label="%s: \u221215 to \u221230%%" % F4_STUDY_LABEL
                                   if k == 0 else None))
    if shown:
        ax.text(-0.48, sum(F4_STUDY_BAND) / 2, F4_STUDY_LABEL, ha="left", va="center",
                fontsize=8, color="#7a5200", zorder=1)
    elif band:
        ax.text(0.01, 0.02, "study's \u221215 to \u221230%: not drawn, nothing measured "
                "here", transform=ax.transAxes, ha="left", va="bottom",
                fontsize=8, color="#7a5200", zorder=1, gid="f4-study-absent")
    ax.axhline(0, color="black", linewidth=0.8, zorder=1)
    vals, idle, labels = [], [], []
    for g in pn["groups"]:
        if g["exercised"] is False:
            if not g.get("sub"):   # once per amount of work, not per regime
                idle.append(g)
            continue
        j = g["j"]
        for e in g["change"]:
            if e["pct"] is None or e["backoff"] not in p["backoffs"]:
                continue
            x = f4_slot_x(p, e["backoff"], j)
            lo = e["lo"] if e["lo"] is not None else e["pct"]
            hi = e["hi"] if e["hi"] is not None else e["pct"]
            ax.errorbar([x], [e["pct"]], yerr=[[e["pct"] - lo], [hi - e["pct"]]],
                        linestyle="none", markersize=7, capsize=3, elinewidth=1.1, zorder=4,
                        **f4_marker(color_of("backoff", e["backoff"]), j))
            if e["oversubscribed"] == 1:
                ax.plot([x], [e["pct"]], **OVERSUB_STYLE)
            labels.append((x, e["pct"], e["text"] + ("\ninconclusive" if e["inconclusive"]
                                                     else ""),
                           j > 0 or len(p["works"]) == 1, e["inconclusive"]))
            vals += [lo, hi]
    if "none" in p["backoffs"]:
        ax.text(p["backoffs"].index("none"), 0, "baseline", ha="center", va="bottom",
                fontsize=8, color="0.35")
    lo = min(vals + [F4_STUDY_BAND[0] - 5 if shown else -10.0])
    hi = max(vals + [10.0])
    span = hi - lo
    # room above everything for the "not exercised" lines (never in the band)
    ax.set_ylim(lo - 0.08 * span, hi + span * (0.12 + 0.2 * len(idle)))
    f4_category_axis(ax, p, bottom)
    place_labels(ax, labels)
    for k, g in enumerate(idle):
        rate = ("%.2g" % (g["none_failed"] * 1000)) if g["none_failed"] is not None else "?"
        ax.text(0.5, 0.97 - 0.14 * k, "%snot exercised\n(none lost %s races per 1,000 "
                "operations)" % (work_words(g["work"]) + ": " if len(p["works"]) > 1 else "",
                                 rate),
                transform=ax.transAxes, ha="center", va="top", fontsize=8, color="0.15",
                zorder=5, gid="f4-not-exercised", linespacing=1.1,
                bbox=dict(boxstyle="round,pad=0.25", fc="white", ec="0.6"))
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _p: fmt_pct(v) if v else "0"))
    if first_col:
        ax.set_ylabel(F4_ROWS[1][1])


def f4_legend(ax, p):
    """What the marks mean, beside the top right panel."""
    from matplotlib.patches import Patch
    Line2D = plt.Line2D
    h = []
    if not p["categorical"]:
        h += [Line2D([], [], color=color_of("backoff", b), marker=marker_of("backoff", b),
                     label=b) for b in p["backoffs"]]
    for j, w in enumerate(p["works"]):
        h.append(Line2D([], [], linestyle="-" if j == 0 or p["categorical"] else "--",
                        label=work_words(w) + (" (random 0\u2013%g ns)" % w
                                                           if w else ""),
                        **f4_marker("0.3", j)))
    h.append(Line2D([], [], color="black", marker="|", linestyle="none", markersize=10,
                    label="whisker: min\u2013max (change: its interval)"))
    if any(nrdata.num(r, "harness_ops_per_s") for r in p["rows"]):
        h.append(Line2D([], [], color=HARNESS_STYLE["color"], marker="_", linestyle="none",
                        markersize=14, markeredgewidth=2.4, label=HARNESS_LABEL)
                 if p["categorical"] else Line2D([], [], label=HARNESS_LABEL, **HARNESS_STYLE))
    if any(nrdata.oversubscribed(r) for r in p["rows"]):
        h.append(Line2D([], [], **OVERSUB_STYLE, label=OVERSUB_LABEL))
    h.append(Line2D([], [], color="black", linestyle=":", label="1 lost race per 1,000 "
                    "operations"))
    if any(pn["workload"] == "prodcons" for pn in p["columns"]):
        h.append(Patch(facecolor="#ffd27f", alpha=0.45, label="%s: \u221215 to \u221230%%"
                       % F4_STUDY_LABEL))
    h += fig_f4.legend_handles(p)
    ax.legend(handles=h, loc="upper left", bbox_to_anchor=(1.03, 1.0), frameon=False,
              fontsize=9)


def draw_f4(axes, p, show_legend=True):
    """The F4 panels, row by row (F4_ROWS), a column per workload; with fewer
    axes than panels, the first ones."""
    panels = p["columns"]
    nw = max(1, len(panels))
    for r, (key, ylabel) in enumerate(F4_ROWS):
        for c, pn in enumerate(panels):
            i = r * nw + c
            if i >= len(axes):
                return
            ax = axes[i]
            bottom = r == len(F4_ROWS) - 1
            if key == "change":
                draw_f4_change(ax, p, pn, c == 0, bottom)
            else:
                units = {g["unit"] for g in pn["groups"]}
                label = ylabel % ("items" if units == {"items"} else "operations") \
                    if key == "tput" else (ylabel if c == 0 else None)
                f4_value_panel(ax, p, pn, key, c == 0, bottom, label)
            if r == 0:
                ts = pn["threads"]
                over = any(g["oversubscribed"] == 1 for g in pn["groups"])
                ax.set_title("%s\n%s at %s threads%s" % (
                    pn["title"], "all" if p["categorical"] else "changes",
                    "/".join(map(str, ts)), ", oversubscribed" if over else ""), fontsize=11)
    if show_legend and panels and nw - 1 < len(axes):
        f4_legend(axes[nw - 1], p)


def pct_formatter(x, _pos=None):
    if x < 1:
        return ""
    k = round(math.log10(x))
    if abs(math.log10(x) - k) > 1e-6:
        return ""
    if k == 0:
        return "0%"
    return "%.*f%%" % (max(0, k - 2), 100.0 - 100.0 / 10 ** k)


def percentile_axis(ax, xmax):
    ax.set_xscale("log")
    ax.set_xlim(1, max(10.0, xmax * 1.3))
    ax.xaxis.set_major_locator(ticker.LogLocator(base=10, numticks=20))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(pct_formatter))
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    ax.set_xlabel("percentile")


LOAD_DASHES = ["-", "--", ":", "-."]


def load_style(loads, ld):
    """The line style of an offered load: solid for the highest, then dashed, dotted."""
    i = len(loads) - 1 - loads.index(ld) if ld in loads else 0
    return LOAD_DASHES[i % len(LOAD_DASHES)]


def draw_f3a(axes, p, show_legend=True):
    ax = axes[0]
    allv = []
    xmax = 10
    loads = p.get("loads") or [""]
    for c in p["curves"]:
        g = c["gate"]
        col = color_of("gate", g)
        if c["band"]:
            xs, lo, hi = c["band"]
            ax.fill_between(xs, lo, hi, color=col, alpha=0.12 if len(loads) > 1 else 0.18,
                            linewidth=0)
            allv += lo + hi
        pts = c["points"]
        if not pts:
            continue
        lab = "%s%s (median of %d rep%s%s)%s" % (
            g, ", " + load_label(c["load"]) if c["load"] else "", c["nreps"],
            "" if c["nreps"] == 1 else "s", "" if c["source"] == "latency.csv" else ", summary",
            ", oversubscribed" if c.get("oversubscribed") == 1 else "")
        ax.plot([q[0] for q in pts], [q[1] for q in pts], color=col, linewidth=2.0,
                linestyle=load_style(loads, c["load"]),
                marker=None if c["source"] == "latency.csv" else marker_of("gate", g),
                label=lab)
        xmax = max(xmax, pts[-1][0])
        allv += [q[1] for q in pts]
    percentile_axis(ax, xmax)
    ax.set_ylabel("latency, enqueue to dequeue")
    value_axis(ax, allv, fmt_ns, log=True)
    annotate_title(ax, None, p["annotation"])
    if not p["curves"]:
        no_data(ax, "no latency recorded")
    elif show_legend:
        ax.legend(loc="upper left", framealpha=0.9, fontsize=8.5 if len(loads) > 1 else 9.5)
    for a in axes[1:]:
        no_data(a, "")


def draw_f3b(axes, p, show_legend=True):
    for ax, key, name in ((axes[0], "p50", "median (p50)"), (axes[1], "p99", "p99")):
        series = p[key]
        order = [g for g in p["order"] if g in series]
        if not order:
            no_data(ax, "no thread count where\nevery thread has a CPU"
                    if p.get("over_threads") else "no %s latency" % key)
            ax.set_title(name, fontsize=11)
            continue
        draw_series(ax, series, order, "gate", scale=1.0, ceiling=[],
                    ylabel="%s latency" % name, formatter=fmt_ns, log=True)
        annotate_title(ax, name, p["annotation"] if key == "p50" else None)
        if show_legend and key == "p99":
            legend(ax)
    rest = axes[2:]
    if rest and p.get("over_threads"):
        draw_f3_over(rest[0], p, show_legend)
        rest = rest[1:]
    for ax in rest:
        no_data(ax, "")


OVER_FACE = "#f6f1e7"
OVER_COLOR = "#7a4b00"


def draw_f3_over(ax, p, show_legend=True):
    """The separate panel of F3's oversubscribed thread counts: p50 solid, p99
    dashed, per gate; a tinted background and F3_OVER_TITLE."""
    series, styles, colors, labels, order = {}, {}, {}, {}, []
    for g in p["over_order"]:
        for key, tag, ls in (("over_p50", "p50", "-"), ("over_p99", "p99", "--")):
            if g in p[key]:
                v = "%s %s" % (g, tag)
                series[v] = p[key][g]
                styles[v] = (ls, marker_of("gate", g))
                colors[v] = color_of("gate", g)
                labels[v] = v
                order.append(v)
    ax.set_facecolor(OVER_FACE)
    if not order:
        no_data(ax, "no latency at the oversubscribed thread counts")
    else:
        draw_series(ax, series, order, "gate", labels=labels, scale=1.0, ceiling=[],
                    ylabel="latency (p50 solid, p99 dashed)", formatter=fmt_ns, log=True,
                    colors=colors, styles=styles, mark_over=False)
        if show_legend:
            ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False,
                      borderaxespad=0.0, fontsize=8.5)
    ax.set_title(F3_OVER_TITLE.replace("; ", ";\n"), fontsize=11, color=OVER_COLOR,
                 fontweight="bold")
    for sp in ax.spines.values():
        sp.set_edgecolor(OVER_COLOR)


def load_axis(ax, xs):
    """x = offered load in % of capacity: linear from 0 to 100, a tick per load."""
    xs = sorted({x for x in xs if x is not None})
    ax.set_xlabel("offered load (% of the per-worker gate's capacity)")
    ax.set_xlim(0, max(100.0, max(xs) * 1.08) if xs else 100.0)
    if xs:
        ax.xaxis.set_major_locator(ticker.FixedLocator(xs))
        ax.xaxis.set_major_formatter(ticker.FixedFormatter([pct_label(x) for x in xs]))
    ax.xaxis.set_minor_locator(ticker.NullLocator())


def load_dodge(n, width=3.0):
    """Shift gate i of n by a few % of load so that whiskers do not overlap."""
    if n <= 1:
        return lambda x, i: x
    return lambda x, i: x + width * (i / (n - 1) - 0.5)


def draw_by_load(ax, series, order, dodge, scale=1.0, linestyle="-", linewidth=1.8,
                 label=True):
    """{gate: [(load, med, min, max, n)]} as lines (points where one load), whiskers
    min-max; returns the values drawn."""
    allv = []
    for i, g in enumerate(order):
        pts = series.get(g, [])
        if not pts:
            continue
        x = [dodge(q[0], i) for q in pts]
        med = [q[1] * scale for q in pts]
        ax.errorbar(x, med, yerr=[[max(0.0, (q[1] - q[2]) * scale) for q in pts],
                                  [max(0.0, (q[3] - q[1]) * scale) for q in pts]],
                    color=color_of("gate", g), marker=marker_of("gate", g),
                    markersize=5 if len(pts) > 1 else 7, linewidth=linewidth, capsize=2.5,
                    elinewidth=0.9, linestyle=linestyle if len(pts) > 1 else "none",
                    label=g if label else None)
        allv += [q[2] * scale for q in pts] + [q[3] * scale for q in pts]
    return allv


def draw_f3_over_load(ax, p, dodge, show_legend=True):
    """F3's separate panel of oversubscribed thread counts in the open-loop figure:
    p50 vs offered load per gate, line style per thread count."""
    ax.set_facecolor(OVER_FACE)
    allv = []
    order = p["order"]
    for j, t in enumerate(p["over_threads"]):
        ser = p["over_p50"][t]
        ls = LOAD_DASHES[j % len(LOAD_DASHES)]
        allv += draw_by_load(ax, ser, [g for g in order if g in ser] +
                             [g for g in ser if g not in order], dodge, linestyle=ls,
                             label=False)
    load_axis(ax, p["loads"])
    ax.set_ylabel("p50 latency")
    value_axis(ax, allv, fmt_ns, log=True)
    ax.set_title(F3_OVER_TITLE.replace("; ", ";\n"), fontsize=11, color=OVER_COLOR,
                 fontweight="bold")
    for sp in ax.spines.values():
        sp.set_edgecolor(OVER_COLOR)
    if show_legend:
        hs = [plt.Line2D([], [], color=color_of("gate", g), marker=marker_of("gate", g),
                         linewidth=2.0) for g in order]
        ls = list(order)
        for j, t in enumerate(p["over_threads"]):
            hs.append(plt.Line2D([], [], color="0.2",
                                 linestyle=LOAD_DASHES[j % len(LOAD_DASHES)], linewidth=1.8))
            ls.append("p50, %d threads" % t)
        ax.legend(hs, ls, loc="upper left", framealpha=0.85, fontsize=8.5)


def thread_colors(threads):
    return {t: THREAD_COLORS[i % len(THREAD_COLORS)] for i, t in enumerate(sorted(threads))}


def batch_axis(ax, xs, label):
    """x = items per transfer: log2 with power-of-two ticks where the values span
    a factor of 4 or more, else linear."""
    xs = [x for x in xs if finite_pos(x)]
    ax.set_xlabel(label)
    if not xs:
        return
    lo, hi = min(xs), max(xs)
    if hi / lo >= 4:
        ax.set_xscale("log", base=2)
        k0 = math.floor(math.log2(lo / 1.35))
        k1 = math.ceil(math.log2(hi * 1.35))
        ax.xaxis.set_major_locator(ticker.FixedLocator([2.0 ** k for k in range(k0, k1 + 1)]))
        ax.set_xlim(lo / 1.35, hi * 1.35)
    else:
        pad = max(0.25, (hi - lo) * 0.12)
        ax.set_xlim(max(0.0, lo - pad), hi + pad)
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(fmt_plain))
    ax.xaxis.set_minor_locator(ticker.NullLocator())


def label_batches(ax, pts, ys, color):
    """The configured batch beside each point (b=N), the realized/configured share
    after it where it is under REALIZED_TARGET."""
    for j, (q, y) in enumerate(zip(pts, ys)):
        if q[9] is None:
            continue
        f = q[9] / q[8]
        low = f < REALIZED_TARGET
        text = "b=%d" % q[8] + (" (%.2f\u00d7)" % f if low else "")
        ax.annotate(text, (q[0], y), xytext=(5, 6 if j % 2 == 0 else -12),
                    textcoords="offset points", fontsize=7.5, color="#b00000" if low else color,
                    fontweight="bold" if low else "normal", zorder=7)


def draw_f5(axes, p, show_legend=True, tcolors=None):
    """F5's open loop (fig_f5.draw places it): throughput against the realized
    batch in axes[0], its share of the ceiling in axes[1] (None: not drawn)."""
    ax, ax2 = axes[:2]
    if ax2 is None:
        import types
        ax2 = types.SimpleNamespace(**{k: (lambda *a, **kw: None) for k in (
            "errorbar", "plot", "axhline", "annotate")})
        skip2 = True
    else:
        skip2 = False
    tcolors = tcolors or thread_colors(p["threads"])
    realized = p.get("realized", False)
    xlabel = ("items per cross-node transfer, realized (b=N: configured batch)" if realized
              else "batch size, configured (items per transfer not recorded)")
    allv, xs = [], []
    for i, t in enumerate(p["threads"]):
        pts = p["lines"][t]
        col = tcolors[t]
        x = [q[0] for q in pts]
        ax.errorbar(x, [q[1] / 1e6 for q in pts],
                    yerr=[[(q[1] - q[2]) / 1e6 for q in pts], [(q[3] - q[1]) / 1e6 for q in pts]],
                    color=col, marker=MARKERS[i % len(MARKERS)], markersize=5.5 if len(pts) > 1
                    else 7.5, linewidth=1.8, capsize=3, label="%d threads" % t,
                    linestyle="-" if len(pts) > 1 else "none")
        if realized:
            label_batches(ax, pts, [q[1] / 1e6 for q in pts], col)
        ring_bound(ax, x, pts, 1e-6)
        mark_oversub(ax, x, pts, 1e-6, label=False)
        hp = [q for q in pts if len(q) > 6 and q[6]]
        if hp:
            ax.plot([q[0] for q in hp], [q[6] / 1e6 for q in hp], color=col, linestyle="-.",
                    linewidth=1.3, alpha=0.8)
            allv += [q[6] / 1e6 for q in hp]
        cp = [q for q in pts if q[5] is not None]
        if cp:
            ax.plot([q[0] for q in cp], [q[5] / 1e6 for q in cp], color=col, linestyle="--",
                    linewidth=1.4)
            allv += [q[5] / 1e6 for q in cp]
            r = [(q[0], q[1] / q[5], q[2] / q[5], q[3] / q[5]) for q in cp]
            ax2.errorbar([q[0] for q in r], [100 * q[1] for q in r],
                         yerr=[[100 * (q[1] - q[2]) for q in r], [100 * (q[3] - q[1]) for q in r]],
                         color=col, marker=MARKERS[i % len(MARKERS)], markersize=5.5,
                         linewidth=1.8, capsize=3, label="%d threads" % t,
                         linestyle="-" if len(r) > 1 else "none")
            if realized:
                label_batches(ax2, cp, [100 * q[1] for q in r], col)
            hit = [(q[0], 100 * q[1] / q[5]) for q in cp if is_over(q)]
            if hit:
                ax2.plot([h[0] for h in hit], [h[1] for h in hit], **OVERSUB_STYLE)
        allv += [q[2] / 1e6 for q in pts] + [q[3] / 1e6 for q in pts]
        xs += x
    batch_axis(ax, xs, xlabel)
    ax.set_ylabel("throughput (million items/s)")
    value_axis(ax, allv)
    annotate_title(ax, "measured (solid), ceiling (dashed)" +
                   (", harness alone (dash-dot)" if p.get("has_harness") else ""),
                   p.get("realized_note"))
    if skip2:
        pass
    elif p["has_ceiling"]:
        batch_axis(ax2, xs, xlabel)
        ax2.axhline(100, color="black", linewidth=1.0, linestyle="--")
        ax2.set_ylabel("measured / ceiling (%)")
        lo, hi = ax2.get_ylim()
        ax2.set_ylim(0, max(105, hi))
        annotate_title(ax2, "share of the ceiling reached", p["annotation"])
    else:
        no_data(ax2, "measured / ceiling:\nceiling not available")
    if show_legend:
        handles, labels = ax.get_legend_handles_labels()
        if p["has_ceiling"]:
            handles.append(plt.Line2D([], [], color="0.3", linestyle="--", linewidth=1.4))
            labels.append("ceiling (model),\nsame colour")
        if p.get("has_harness"):
            handles.append(plt.Line2D([], [], color="0.3", linestyle="-.", linewidth=1.3))
            labels.append("harness alone\n(null queue),\nsame colour")
        if any(is_over(q) for pts in p["lines"].values() for q in pts):
            handles.append(plt.Line2D([], [], **OVERSUB_STYLE))
            labels.append(OVERSUB_LABEL)
        if realized:
            handles.append(plt.Line2D([], [], linestyle="none"))
            labels.append("b=N: configured batch\n(red: realized < %.1f\u00d7)"
                          % REALIZED_TARGET)
        ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False,
                  borderaxespad=0.0)


def legend_axis(axes, p):
    """The axis that carries a multi-panel figure's legend: the first row's last."""
    cols = (p.get("grid") or (1, len(axes)))[1]
    return axes[min(cols, len(axes)) - 1]


DRAW = {"f1": draw_f1, "lines": draw_lines, "f4": draw_f4, "f3a": draw_f3a, "f3b": draw_f3b,
        "f3load": fig_f3.draw_f3_load, "f5": fig_f5.draw, "peers": draw_peers,
        "peers-latency": draw_peers_latency}


def add_caption(fig, blocks):
    """Caption text under the axes (saved with bbox_inches='tight'), wrapped to the width."""
    import textwrap
    width_in = fig.get_figwidth()
    y = -0.012
    for title, lines in blocks:
        for text, emphasis in ([(title, "bold")] if title else []) + lines:
            size = 10.5 if emphasis == "warn" else 9.5
            kw = dict(fontsize=size, color="0.15", ha="left", va="top")
            if emphasis == "warn":
                kw.update(color="#b00000", fontweight="bold")
            elif emphasis == "bold":
                kw.update(fontweight="bold")
            chars = max(40, int(width_in * 72 / (size * 0.56)))
            for piece in textwrap.wrap(text, chars, subsequent_indent="    ") or [""]:
                fig.text(0.01, y, piece, **kw)
                y -= 1.5 * size / 72 / fig.get_figheight()
        y -= 0.4 * 9.5 / 72 / fig.get_figheight()


def emulated(p):
    return any(r["topology_kind"] == "emulated" for r in p["rows"])


def guest(p):
    """True where the figure's host is a QEMU TCG guest (its caption says so)."""
    return any(t and t.startswith(nrdata.GUEST_NOTE) for t, _e in p["caption"])


#: what a guest's figure adds to its title
GUEST_TITLE = "   [GUEST: timings meaningless]"


def suptitle(fig, title, emu, in_guest=False):
    text = title
    if emu:
        text += "   [EMULATED nodes]"
    if in_guest:
        text += GUEST_TITLE
    return fig.suptitle(text, color="#b00000" if emu or in_guest else "black")


def save(fig, outdir, name):
    """Write name.png and name.pdf whole: draw to a temporary name, then rename."""
    os.makedirs(outdir, exist_ok=True)
    done = []
    try:
        for ext in ("png", "pdf"):
            final = os.path.join(outdir, "%s.%s" % (name, ext))
            tmp = os.path.join(outdir, ".%s.%s.tmp%d" % (name, ext, os.getpid()))
            try:
                fig.savefig(tmp, format=ext, dpi=150, bbox_inches="tight", pad_inches=0.15)
                os.replace(tmp, final)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
            done.append(final)
    finally:
        plt.close(fig)
    return done


def figure_size(panels, columns=1):
    if columns == 1:
        return (7.8, 5.0) if panels == 1 else (14.0, 5.0) if panels == 2 else (20.0, 5.6)
    return (15.0, 5.0 * panels)


def grid_of(name, p):
    """(rows, columns) of one host's figure: the prepared data's grid (peers: one
    row per item mode), else one row of the figure's panels."""
    if p and p.get("grid"):
        return max(1, p["grid"][0]), p["grid"][1]
    return 1, dict((f[0], f[3]) for f in FIGURES)[name]


def headline(p, width_in, size=11.5):
    """A figure's title with its finding under it (F4: the annotation no panel
    title has room for), the finding wrapped to the figure's width."""
    import textwrap
    if p.get("kind") != "f4":
        return p["title"]
    chars = max(60, int(width_in * 72 / (size * 0.62)))
    return "\n".join(textwrap.wrap(p["title"], chars) +
                     wrap_note(p.get("annotation") or "", chars))


def wrap_note(text, chars):
    """Lines of at most ``chars`` of a finding: whole workloads on a line where
    they fit ("; " between them)."""
    import textwrap
    lines = []
    for ln in text.splitlines():
        # whole workloads on a line where they fit ("; " between them)
        cur = ""
        for part in ln.split("; "):
            part = part if not cur else "; " + part
            if cur and len(cur) + len(part) > chars:
                lines.append(cur + ";")
                cur = part[2:]
            else:
                cur += part
        lines += textwrap.wrap(cur, chars, subsequent_indent="  ") or [""]
    return lines


def draw_one(name, p, outdir):
    init_matplotlib()
    nrows, ncols = grid_of(name, p)
    w, hgt = figure_size(ncols)
    size = p.get("figsize") or (w, hgt * nrows ** 0.9)
    kw = {}
    if p.get("widths") and len(p["widths"]) == ncols:
        kw["gridspec_kw"] = {"width_ratios": list(p["widths"])}
    fig, axes = plt.subplots(nrows, ncols, figsize=size,
                             layout="constrained", squeeze=False, **kw)
    DRAW[p["kind"]](list(axes.flat), p)
    t = suptitle(fig, headline(p, size[0]), emulated(p), guest(p))
    if p.get("kind") == "f4":
        t.set_fontsize(12.5)
    add_caption(fig, [(None, p["caption"])])
    return save(fig, outdir, name)


def unify_row(axes):
    """Same scales and limits across the hosts' panels of one row."""
    drawn = [a for a in axes if a.has_data()]
    if len(drawn) < 2 or len({a.get_gid() for a in drawn}) > 1:
        return   # one panel, or panels of different kinds (peers: pairs beside items)
    for axis in ("x", "y"):
        scales = {getattr(a, "get_%sscale" % axis)() for a in drawn}
        if len(scales) > 1:
            continue  # leave them: the data of one host does not span decades
        lims = [getattr(a, "get_%slim" % axis)() for a in drawn]
        lo = min(lim[0] for lim in lims)
        hi = max(lim[1] for lim in lims)
        for a in drawn:
            getattr(a, "set_%slim" % axis)(lo, hi)


def draw_compare_grids(name, preps, hosts, outdir):
    """Two hosts side by side where a figure is a grid of panels (F4): each
    host's whole figure in its own half (a subfigure), its title the host."""
    nrows = max(grid_of(name, p)[0] for p in preps if p)
    ncols = [grid_of(name, p)[1] if p else 1 for p in preps]
    w = sum(p["figsize"][0] if p and p.get("figsize") else 8.0 for p in preps)
    hgt = max(p["figsize"][1] if p and p.get("figsize") else 5.0 * nrows for p in preps if p)
    fig = plt.figure(figsize=(w, hgt + 1.2), layout="constrained")
    subs = fig.subfigures(1, 2, width_ratios=[max(1, c) for c in ncols])
    blocks = []
    for i, (sub, p, h) in enumerate(zip(subs, preps, hosts)):
        if p is None:
            ax = sub.subplots(1, 1)
            no_data(ax, "host %s: no data" % h.name)
            blocks.append(("host %s" % h.name, [("no data for this figure", None)]))
            continue
        axes = sub.subplots(grid_of(name, p)[0], grid_of(name, p)[1], squeeze=False)
        DRAW[p["kind"]](list(axes.flat), p, show_legend=(i == 1 or preps[1] is None))
        bad = emulated(p) or guest(p)
        head = "host %s%s%s" % (h.name, "  \u2014  EMULATED nodes" if emulated(p) else "",
                                "  \u2014  GUEST: timings meaningless" if guest(p) else "")
        sub.suptitle(headline(dict(p, title=head), fig.get_figwidth() / 2),
                     fontsize=11.5, color="#b00000" if bad else "black")
        blocks.append(("host %s" % h.name, p["caption"]))
    fig.suptitle("%s: %s vs %s" % (COMPARE_TITLES[name], hosts[0].name, hosts[1].name))
    add_caption(fig, blocks)
    return save(fig, outdir, name)


def draw_compare(name, preps, hosts, outdir):
    init_matplotlib()
    if any(p and p.get("kind") == "f4" for p in preps):
        return draw_compare_grids(name, preps, hosts, outdir)
    panels = max(a * b for a, b in (grid_of(name, p) for p in preps))
    fig, axes = plt.subplots(panels, 2, figsize=figure_size(panels, 2), layout="constrained",
                             squeeze=False)
    kwargs = {}
    f5 = [p for p in preps if p and p["kind"] == "f5"]
    if f5:
        kwargs["tcolors"] = thread_colors(set().union(*[set(p["threads"]) for p in f5]))
    blocks = []
    emu = False
    for col, (p, h) in enumerate(zip(preps, hosts)):
        col_axes = [axes[r][col] for r in range(panels)]
        if p is None:
            for a in col_axes:
                no_data(a, "host %s: no data" % h.name)
            blocks.append(("host %s" % h.name, [("no data for this figure", None)]))
            continue
        DRAW[p["kind"]](col_axes, p, show_legend=(col == 1 or preps[1] is None), **kwargs)
        emu_here = emulated(p)
        head = "host %s%s%s%s" % (h.name, ", " + p["subtitle"] if p.get("subtitle") else "",
                                  "  \u2014  EMULATED nodes" if emu_here else "",
                                  "  \u2014  GUEST: timings meaningless" if guest(p) else "")
        old_title = col_axes[0].get_title()
        col_axes[0].set_title(head + ("\n" + old_title if old_title else ""), fontsize=11,
                              color="#b00000" if emu_here or guest(p) else "black")
        emu = emu or emu_here
        blocks.append(("host %s" % h.name, p["caption"]))
    for r in range(panels):
        unify_row(list(axes[r]))
    fig.suptitle("%s: %s vs %s" % (COMPARE_TITLES[name], hosts[0].name, hosts[1].name))
    add_caption(fig, blocks)
    return save(fig, outdir, name)


# --------------------------------------------------------------------------
# gnuplot: aggregated data files and the scripts in scripts/gnuplot/

def g(v):
    return "NaN" if v is None else ("%.6g" % v)


def ov_col(v):
    """The oversubscribed column of a .dat row: 1, 0, or NaN where not recorded."""
    return "NaN" if v is None else "%d" % int(v)


def dat_header(name, p, what, columns):
    out = ["# %s: %s" % (name, what)]
    for text, _e in p["caption"]:
        out.append("# " + text)
    for text in p.get("notes") or []:
        out.append("# " + text)
    if p.get("annotation"):
        out.append("# " + p["annotation"])
    out.append("# columns: " + " ".join(columns))
    return out


def is_bound(q):
    """1 where a point (x, med, .., harness) is at >= HARNESS_BOUND x its harness."""
    return int(bool(len(q) > 6 and q[6] and q[1] >= HARNESS_BOUND * q[6]))


#: F4's data file: its blocks in order, each a name line, a '# columns:' line
#: and its rows; scripts/gnuplot/f4-backoff.gp names the columns it reads
#: (pt_<column> = N for points, ch_ for the change, hn_ for the harness, pn_ for
#: the panels) and scripts/tests/test_f4_figure.py checks each against these.
F4_DAT_BLOCKS = (
    ("points", ["panel", "hollow", "bidx", "threads", "x", "median_ops_per_s",
                "min_ops_per_s", "max_ops_per_s", "reps", "color_rgb", "oversubscribed",
                "harness_ops_per_s", "harness_bound", "failed_per_1000", "failed_min",
                "failed_max", "backoff_ns_per_op", "backoff_ns_min", "backoff_ns_max",
                "p99_ns", "p99_min_ns", "p99_max_ns", "quoted", "backoff", "workload",
                "work_ns", "fairness", "fairness_min", "fairness_max", "regime", "pt",
                "shown_n", "ridx", "slot_x", "harness_row"]),
    # the first nine columns as before workloads (backoff .. oversubscribed)
    ("change vs none", ["backoff", "threads", "change_pct", "ci_lo_pct", "ci_hi_pct",
                        "color_rgb", "failed_per_1000", "exercised", "oversubscribed",
                        "panel", "hollow", "x", "inconclusive", "none_failed_per_1000",
                        "workload", "work_ns"]),
    ("harness alone (null queue)", ["panel", "hollow", "threads", "median_ops_per_s",
                                    "min_ops_per_s", "max_ops_per_s", "reps"]),
    ("panels", ["panel", "hollow", "threads", "exercised", "none_failed_per_1000", "band",
                "items", "categorical", "nbackoffs", "work_ns", "workload"]),
)


def f4_dat_x(p, b, j, t, dx=0.0):
    """A point's x in the data file: its category slot (one thread count; dx:
    its regime's offset there), else its threads shifted sideways a little as
    draw_series shifts it."""
    if p["categorical"]:
        return f4_slot_x(p, b, j) + dx
    n = len(p["backoffs"]) * len(p["works"])
    return dodger(p["threads"], n)(t, j * len(p["backoffs"]) + p["backoffs"].index(b))


def dat_f4(name, p):
    blocks = dict(F4_DAT_BLOCKS)
    out = ["# %s: F4, backoff against spinning per workload: four blocks, each its name, "
           "its columns and its rows: points (one per workload panel, amount of local work "
           "(hollow 0: the least), backoff and threads: throughput, lost races and time in "
           "backoff per operation, p99, fairness (fewest / most operations of one thread; "
           "NaN: not recorded); median, min, max over the reps; under prodcons each "
           "(pace, regime) group of the runs apart (regime; 'pooled': not split, the "
           "regimes not recorded or another workload; pt: gnuplot's point type, shape "
           "per regime; ridx: the group's index; shown_n 1: n beside the dot; "
           "harness_ops_per_s: the slot's, over all its runs; harness_row 1: the row "
           "that carries the slot's harness mark, at slot_x); x: the "
           "category slot (a regime's offset in it) with one thread count, else the "
           "threads), change vs none (each backoff's paired "
           "change against none at the panel's quoted thread count, summarize.f4; exercised "
           "0: none lost < %g race per 1,000 operations there, no change shown: 'not "
           "exercised'; inconclusive 1: the interval holds 0), the harness alone (null "
           "queue; NaN: not measured) and the panels (workload, band 1: the study's "
           "-15..-30%% band, prodcons only)" % (name, nrdata.BACKOFF_EXERCISED * 1000)]
    out += ["# " + t for t, _e in p["caption"]]
    out += ["# " + ln for ln in (p.get("annotation") or "").splitlines()]
    out.append("# columns: see each block's '# columns:' line")
    # points
    out += ["", "", '"points"', "# columns: " + " ".join(blocks["points"])]
    for c, pn in enumerate(p["columns"]):
        harness, done = fig_f4.slot_harness(pn, p["backoffs"]), set()
        for grp in pn["groups"]:
            j = grp["j"]
            for bi, b in enumerate(p["backoffs"]):
                by = {k: {q[0]: q for q in grp[k].get(b, [])}
                      for k in ("tput", "failed", "bns", "p99", "fair")}
                for t in sorted(set().union(*[set(v) for v in by.values()])):
                    tp = by["tput"].get(t)
                    row = [str(c), str(j), str(bi), str(t),
                           "%.6g" % f4_dat_x(p, b, j, t, grp.get("dx", 0.0))]
                    row += [g(tp[1]), g(tp[2]), g(tp[3]), "%d" % tp[4]] if tp else \
                        ["NaN", "NaN", "NaN", "0"]
                    row.append("%d" % rgb_int(color_of("backoff", b)))
                    q = tp or next((by[k][t] for k in by if t in by[k]), None)
                    row.append(ov_col(q[7] if q else None))
                    h = harness.get((b, j), {}).get(t)
                    row += [g(h), "%d" % is_bound(tp) if tp else "0"]
                    for k in ("failed", "bns", "p99"):
                        v = by[k].get(t)
                        row += [g(v[1]), g(v[2]), g(v[3])] if v else ["NaN"] * 3
                    row += ["%d" % (t == grp["threads"]), b, grp["workload"], "%g" % grp["work"]]
                    v = by["fair"].get(t)
                    row += [g(v[1]), g(v[2]), g(v[3])] if v else ["NaN"] * 3
                    pts = fig_f4.point_type(grp)
                    row += [fig_common.group_label(grp["regime"]).replace(", ", "/")
                            if grp.get("regime") else "pooled", "%d" % pts[j > 0],
                            "%d" % (fig_f4.show_n(grp) and p["categorical"]),
                            "%d" % grp.get("rk", 0),
                            "%.6g" % f4_dat_x(p, b, j, t), "%d" % ((b, j, t) not in done)]
                    done.add((b, j, t))
                    out.append(" ".join(row))
    # the change against none
    out += ["", "", '"change vs none"', "# columns: " + " ".join(blocks["change vs none"])]
    n = len(out)
    for c, pn in enumerate(p["columns"]):
        for grp in pn["groups"]:
            for r in grp["change"]:
                ex = r["exercised"]
                if ex is False:
                    out.append("# %s: backoff not exercised on this host (%s, %s)" % (
                        r["backoff"], grp["workload"], work_words(grp["work"])))
                out.append(" ".join([
                    r["backoff"], "%d" % r["threads"], g(r["pct"]), g(r["lo"]), g(r["hi"]),
                    "%d" % rgb_int(color_of("backoff", r["backoff"])),
                    g(None if r["failed"] is None else r["failed"] * 1000),
                    "NaN" if ex is None else "%d" % ex, ov_col(r["oversubscribed"]),
                    str(c), str(grp["j"]), "%.6g" % f4_slot_x(p, r["backoff"], grp["j"]),
                    "%d" % bool(r["inconclusive"]),
                    g(None if r["none_failed"] is None else r["none_failed"] * 1000),
                    grp["workload"], "%g" % grp["work"]]))
    if len(out) == n:
        out.append("none 0 NaN NaN NaN 0 NaN NaN NaN 0 0 0 0 NaN none 0")
    # the harness alone, per panel and amount of work
    out += ["", "", '"%s"' % HARNESS_LABEL,
            "# columns: " + " ".join(blocks["harness alone (null queue)"])]
    n = len(out)
    for c, pn in enumerate(p["columns"]):
        for grp in pn["groups"]:
            out += ["%d %d %d %s %s %s %d" % (c, grp["j"], q[0], g(q[1]), g(q[2]), g(q[3]),
                                              q[4]) for q in grp["harness"]]
    if len(out) == n:
        out.append("0 0 %d NaN NaN NaN 0" % (p["threads"][0] if p["threads"] else 1))
    # the panels
    out += ["", "", '"panels"', "# columns: " + " ".join(blocks["panels"])]
    for c, pn in enumerate(p["columns"]):
        for grp in pn["groups"]:
            ex = grp["exercised"]
            out.append(" ".join([
                str(c), str(grp["j"]), "%d" % grp["threads"], "NaN" if ex is None else "%d" % ex,
                g(None if grp["none_failed"] is None else grp["none_failed"] * 1000),
                "%d" % (pn["workload"] == "prodcons"), "%d" % (grp["unit"] == "items"),
                "%d" % p["categorical"], "%d" % len(p["backoffs"]), "%g" % grp["work"],
                pn["workload"]]))
    return out


def dat_text(name, p):
    k = p["kind"]
    if k == "f1":
        return fig_f1.dat(name, p)
    if k == "f4":
        return dat_f4(name, p)
    if k == "lines":
        return fig_lines.dat_lines(name, p)
    if k == "peers":
        return fig_peers.dat_peers(name, p)
    if k == "f3a":
        cols = ["one_over_one_minus_p", "value_ns", "band_lo_ns", "band_hi_ns", "color_rgb",
                "dash"]
        out = dat_header(name, p, "latency percentile distribution by gate at %d threads; one "
                         "block per gate and offered load, its name first; every line the "
                         "median over the reps at each percentile, the band min-max over the "
                         "reps; dash 1 solid (the highest load), 2 dashed, 3 dotted"
                         % p["threads"], cols)
        loads = p.get("loads") or [""]
        for c in p["curves"]:
            label = c["gate"] + (", " + load_label(c["load"]) if c["load"] else "")
            if c.get("oversubscribed") == 1:
                label += ", oversubscribed"
            out += ["", "", '"%s"' % label, "# columns: " + " ".join(cols)]
            col = "%d" % rgb_int(color_of("gate", c["gate"]))
            dash = "%d" % (LOAD_DASHES.index(load_style(loads, c["load"])) + 1)
            band = c["band"]
            for x, v in c["points"]:
                lo = hi = None
                if band:
                    import numpy as np
                    if x <= band[0][-1]:
                        lo = float(np.interp(math.log10(x), np.log10(band[0]), band[1]))
                        hi = float(np.interp(math.log10(x), np.log10(band[0]), band[2]))
                out.append(" ".join([g(x), g(v), g(lo), g(hi), col, dash]))
        return out
    if k == "f3load":
        cols = ["load_pct"]
        for _c, pn in F3_PCT:
            pn = pn.replace(".", "")
            cols += ["%s_median_ns" % pn, "%s_min_ns" % pn, "%s_max_ns" % pn]
        cols += ["inflight_median", "inflight_min", "inflight_max", "median_ops_per_s",
                 "min_ops_per_s", "max_ops_per_s", "offered_ops_per_s", "reps", "color_rgb",
                 "oversubscribed", "over_panel", "dash"]
        out = dat_header(name, p, "open loop at %d threads: latency percentiles (median over "
                         "the reps of each run's summary.csv percentile, min, max), items in "
                         "flight (Little) and achieved throughput vs the offered load (%% of "
                         "the per-worker gate's capacity), and the offered rate (median over "
                         "the runs at that load); one block per gate, its name first; NaN: "
                         "not recorded; then, where threads outnumber CPUs at other thread "
                         "counts, one block per gate and oversubscribed thread count (p50 "
                         "only, over_panel 1, dash 1, 2, 3 per thread count): the separate "
                         "panel (%s)"
                         % (p["threads"], F3_OVER_TITLE), cols)
        for gte in p["order"]:
            out += ["", "", '"%s"' % gte, "# columns: " + " ".join(cols)]
            off = {q[0]: q[1] for q in p["offered"]}
            xs = sorted({q[0] for c, _n in F3_PCT for q in p["pct"][c].get(gte, [])} |
                        {q[0] for q in p["tput"].get(gte, [])})
            for x in xs:
                row = [g(x)]
                reps = 0
                for ser in [p["pct"][c] for c, _n in F3_PCT] + [p["inflight"], p["tput"]]:
                    q = {q[0]: q for q in ser.get(gte, [])}.get(x)
                    row += [g(q[1]), g(q[2]), g(q[3])] if q else ["NaN"] * 3
                    reps = max(reps, q[4] if q else 0)
                row += [g(off.get(x)), "%d" % reps, "%d" % rgb_int(color_of("gate", gte)),
                        ov_col(p.get("oversubscribed")), "0", "1"]
                out.append(" ".join(row))
        for j, t in enumerate(p.get("over_threads", [])):
            for gte in order_of("gate", p["over_p50"][t]):
                out += ["", "", '"%s, %d threads"' % (gte, t), "# columns: " + " ".join(cols)]
                for q in p["over_p50"][t][gte]:
                    out.append(" ".join([g(q[0]), g(q[1]), g(q[2]), g(q[3])] + ["NaN"] * 16 +
                                        ["%d" % q[4], "%d" % rgb_int(color_of("gate", gte)),
                                         "1", "1", "%d" % (j % 3 + 1)]))
        return out
    if k == "f3b":
        cols = ["threads", "p50_median_ns", "p50_min_ns", "p50_max_ns", "reps", "color_rgb",
                "p99_median_ns", "p99_min_ns", "p99_max_ns", "oversubscribed", "over_panel"]
        out = dat_header(name, p, "p50 and p99 latency vs threads by gate; one block per gate, "
                         "its name first; rows with over_panel 1 (oversubscribed thread "
                         "counts) belong to the separate panel (%s), never to the first two"
                         % F3_OVER_TITLE, cols)
        for v in order_of("gate", set(p["order"]) | set(p.get("over_order", []))):
            out += ["", "", '"%s"' % v, "# columns: " + " ".join(cols)]
            for s50, s99, over in ((p["p50"], p["p99"], None),
                                   (p.get("over_p50", {}), p.get("over_p99", {}), 1)):
                p99 = {q[0]: q for q in s99.get(v, [])}
                for q in s50.get(v, []):
                    r = p99.get(q[0], (None,) * 6)
                    ov = over if over else (q[7] if len(q) > 7 else None)
                    out.append(" ".join([g(q[0]), g(q[1]), g(q[2]), g(q[3]), "%d" % q[4],
                                         "%d" % rgb_int(color_of("gate", v)),
                                         g(r[1]), g(r[2]), g(r[3]), ov_col(ov),
                                         "1" if over else "0"]))
        if not any(x and x[0].isdigit() for x in out):
            out += ["", "", '"no latency"', "# columns: " + " ".join(cols),
                    "1 NaN NaN NaN 0 0 NaN NaN NaN NaN 0"]
        return out
    if k == "f5":
        cols = ["items_per_transfer", "median_ops_per_s", "min_ops_per_s", "max_ops_per_s",
                "reps", "color_rgb", "ceiling_ops_per_s", "ratio_median", "ratio_min",
                "ratio_max", "harness_ops_per_s", "harness_bound", "oversubscribed", "batch",
                "realized_over_configured", "realized"]
        out = dat_header(name, p, "throughput vs the realized batch (items per cross-node "
                         "transfer, median over the reps of each point; realized 0: not "
                         "recorded, the configured batch instead), one block per thread "
                         "count, its name first, rows in the order of the configured batch "
                         "(column batch, the label beside each point); ceiling per point "
                         "(NaN: none); harness_ops_per_s: the harness alone, the null queue, "
                         "median per point (NaN: not measured); the last block is the closed "
                         "loop (its own columns)", cols)
        tcol = thread_colors(sorted(set(p["threads"]) | set(p["closed"]["threads"])))
        for t in p["threads"]:
            out += ["", "", '"%d threads"' % t, "# columns: " + " ".join(cols)]
            for q in p["lines"][t]:
                c = q[5]
                out.append(" ".join([g(q[0]), g(q[1]), g(q[2]), g(q[3]), "%d" % q[4],
                                     "%d" % rgb_int(tcol[t]), g(c),
                                     g(q[1] / c if c else None), g(q[2] / c if c else None),
                                     g(q[3] / c if c else None), g(q[6]),
                                     "%d" % is_bound(q), ov_col(q[7] if len(q) > 7 else None),
                                     "%d" % q[8], g(q[9] / q[8] if q[9] is not None else None),
                                     "%d" % (q[9] is not None)]))
        # the last block: the closed loop's capacity against its ceiling
        return out + fig_f5.dat_closed(p)
    if k == "peers-latency":
        return fig_peers.dat_peers_latency(name, p)
    raise AssertionError(k)


def write_atomic(path, text):
    d = os.path.dirname(path)
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=d)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def run_gnuplot(gnuplot, name, p, outroot, host):
    """Write data/<name>.dat and draw gnuplot/<name>.png; return an error or None."""
    script = os.path.join(SCRIPT_DIR, "gnuplot", name + ".gp")
    dat = os.path.join(outroot, "data", name + ".dat")
    write_atomic(dat, "\n".join(dat_text(name, p)) + "\n")
    if not os.path.isfile(script):
        return "no %s" % os.path.relpath(script)
    outdir = os.path.join(outroot, "gnuplot")
    os.makedirs(outdir, exist_ok=True)
    final = os.path.join(outdir, name + ".png")
    tmp = os.path.join(outdir, ".%s.png.tmp%d" % (name, os.getpid()))
    import textwrap
    lines = []
    for t, _e in p["caption"]:
        lines += textwrap.wrap(t, 150, subsequent_indent="    ") or [""]
    expr = "datafile=%s; outfile=%s; caption=%s; figtitle=%s" % (
        gp_str(dat), gp_str(tmp), gp_lines(lines),
        gp_str(p["title"] + (GUEST_TITLE if guest(p) else "")))
    if p.get("annotation") and p["kind"] == "f4":
        # gnuplot does not wrap: whole workloads on a line
        expr += "; note=%s" % gp_lines(wrap_note(p["annotation"], 150))
    elif p.get("annotation"):
        expr += "; note=%s" % gp_str(p["annotation"])
    try:
        r = subprocess.run([gnuplot, "-e", expr, script], capture_output=True, text=True,
                           timeout=120)
        if r.returncode != 0 or not os.path.isfile(tmp) or os.path.getsize(tmp) == 0:
            err = (r.stderr or r.stdout).strip().splitlines()
            return "gnuplot %s failed (exit %d): %s" % (os.path.basename(script), r.returncode,
                                                       err[-1] if err else "no output")
        os.replace(tmp, final)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "gnuplot %s failed: %s" % (os.path.basename(script), e)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return None


# --------------------------------------------------------------------------

def prepare(host):
    """{figure: prepared data} for the figures this host has data for."""
    out = {}
    for name, exp, prep, _panels in FIGURES:
        if exp in host.data:
            out[name] = fig_common.condense(prep(host))
    return out


def figure_ratios(results, host, by_figure=False):
    """The ratios the figures of results/<host> print, by claim id: {claim: value}
    (claim ids: CLAIMS' keys, f4.<backoff>_change_pct, f4.<workload>.<backoff>_change_pct,
    f4.<workload>.work<N>.<backoff>_change_pct (f4_claim), and <claim>_lo, <claim>_hi
    for the interval printed beside a value), each summarize's unrounded value,
    as the preparing code recorded it while writing the figure's text (Said);
    by_figure: {figure: {claim: value}}. Raises DataError on bad input, and
    ValueError where two figures print one claim with different values."""
    h = Host(results, host)
    h.load()
    preps = prepare(h)
    per = {name: dict(preps[name].get("ratios") or {}) for name in FIGURE_NAMES
           if name in preps}
    if by_figure:
        return per
    out = {}
    for name, ratios in per.items():
        for claim, v in ratios.items():
            if claim in out and out[claim] != v:
                raise ValueError("%s: %s printed as %r and %r" % (host, claim, out[claim], v))
            out[claim] = v
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python3 -m scripts.plot",
        description="Draw the study's figures from results/ into plots/.",
        epilog="Figures: " + ", ".join(FIGURE_NAMES) + ". Exit status: 0 ok, 1 gnuplot "
        "failed or missing, 2 bad input.")
    ap.add_argument("--results", default=os.path.join(REPO_DIR, "results"),
                    help="results folder (default: the repository's results/)")
    ap.add_argument("--plots", default=os.path.join(REPO_DIR, "plots"),
                    help="plots folder (default: the repository's plots/)")
    ap.add_argument("--host", nargs="+", metavar="HOST", help="only these hosts")
    ap.add_argument("--compare", nargs=2, metavar=("HOSTA", "HOSTB"),
                    help="draw each figure for two hosts side by side into "
                    "plots/compare-HOSTA-vs-HOSTB/")
    ap.add_argument("--gnuplot", action="store_true",
                    help="also write plots/<host>/data/*.dat and draw "
                    "plots/<host>/gnuplot/*.png with scripts/gnuplot/*.gp")
    args = ap.parse_args(argv)

    if args.compare:
        names = list(args.compare)
        if names[0] == names[1]:
            print("%s: error: --compare needs two different hosts" % PROG, file=sys.stderr)
            return 2
    elif args.host:
        names = list(dict.fromkeys(args.host))
    else:
        names = nrdata.list_hosts(args.results)
        if not names:
            note("no hosts under %s: nothing to draw" % args.results)
            return 0
    for h in names:
        if not os.path.isdir(os.path.join(args.results, h)):
            print("%s: error: %s: no such host folder" % (PROG, os.path.join(args.results, h)),
                  file=sys.stderr)
            return 2

    # Phase 1: read and check everything, prepare every figure.  Bad input
    # stops here, before any file is written.
    hosts, preps = [], []
    try:
        for h in names:
            host = Host(args.results, h)
            host.load()
            hosts.append(host)
            preps.append(prepare(host))
    except DataError as e:
        print("%s: error: %s" % (PROG, e), file=sys.stderr)
        return 2

    for host in hosts:
        for exp, why in host.missing.items():
            note("%s: %s: skipping %s" % (host.name, why, exp))

    # Phase 2: draw.
    status = 0
    if args.compare:
        outdir = os.path.join(args.plots, "compare-%s-vs-%s" % tuple(names))
        n = 0
        for name in FIGURE_NAMES:
            pair = [preps[0].get(name), preps[1].get(name)]
            if pair == [None, None]:
                continue
            draw_compare(name, pair, hosts, outdir)
            n += 1
        note("wrote %d figures (png, pdf) to %s" % (n, outdir))
        if args.gnuplot:
            note("--gnuplot draws single hosts only: no gnuplot figures for --compare")
        return status

    gnuplot = shutil.which("gnuplot") if args.gnuplot else None
    if args.gnuplot and not gnuplot:
        note("gnuplot not found on PATH: no gnuplot figures")
        status = 1
    for host, prep in zip(hosts, preps):
        outdir = os.path.join(args.plots, host.name)
        for name in FIGURE_NAMES:
            if name in prep:
                draw_one(name, prep[name], outdir)
        if prep:
            note("%s: wrote %d figures (png, pdf) to %s" % (host.name, len(prep), outdir))
        if gnuplot:
            ok = 0
            for name in FIGURE_NAMES:
                if name not in prep:
                    continue
                err = run_gnuplot(gnuplot, name, prep[name], outdir, host)
                if err:
                    note("%s: %s" % (host.name, err))
                    status = 1
                else:
                    ok += 1
            note("%s: gnuplot drew %d figures into %s" % (host.name, ok,
                                                          os.path.join(outdir, "gnuplot")))
    return status


if __name__ == "__main__":
    sys.exit(main())
