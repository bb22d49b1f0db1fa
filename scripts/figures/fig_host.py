# SPDX-License-Identifier: BSD-2-Clause
"""fig_host.py - one host's results as the figures read them, and what every
figure's preparation shares.

Host loads and checks results/<host>/<experiment>.csv (nrdata.load_tidy);
Ceiling wraps scripts/analysis/ceiling.py, which is optional and never raises here; the
variants get one order, colour and marker per value; Said records the claims
a figure prints (summarize.py's values, at the paper's precision); and the
helpers every figure's preparation uses: the harness and oversubscription
columns, the caption lines, the series by variant and threads. Nothing here
draws: the fig_<figure>.py modules prepare each figure's data once from a
Host, and fig_draw.py (matplotlib) and fig_gnuplot.py (.dat files for
scripts/gnuplot/) render that one preparation.
"""

import importlib
import math
import os
import statistics
import sys
import zlib

from ..analysis import nrdata
from ..analysis import stats
from ..common import expfile
from ..common import manifest
from . import fig_common
from .fig_common import item_of  # noqa: F401 - the figures read it here too


# Every ratio a figure prints between two configurations is summarize.py's
# (the paired median ratio the results READMEs, the paper and claims.py print).
# A copy of the figures' modules without summarize.py still draws, printing no
# ratio.
try:
    from ..analysis import summarize
    SUMMARIZE_ERROR = None
except ImportError as _e:  # pragma: no cover - only a stripped copy of scripts/
    summarize = None
    SUMMARIZE_ERROR = str(_e) or type(_e).__name__


SCRIPT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# --------------------------------------------------------------------------
# Variants: one order and one colour per value, the same in every figure.

#: each family's values in the harness's order (scripts/common/manifest.py), which
#: sets their markers too; a value outside it comes after, by name. The look-ups
#: end with auto (no mode of its own: a row's lookup_in_force names the one it ran
#: as). The queues leave out null, which makes its items up: the harness alone,
#: drawn as its own line (HARNESS_LABEL), not a queue among the queues.
ORDER = {
    "lookup": manifest.lookups(),
    "gate": manifest.gates(),
    "backoff": manifest.backoffs(),
    "queue": manifest.queues(fabricates=False),
}

COLORS = {
    "lookup": {"libnuma": "#d62728", "syscall": "#ff7f0e", "table": "#8c564b",
               "cached": "#2ca02c", "rseq": "#1f77b4", "rdpid": "#9467bd",
               "none": "#7f7f7f"},
    "gate": {"shared": "#d62728", "pernode": "#ff7f0e", "perworker": "#2ca02c"},
    "backoff": {"none": "#1f77b4", "pause": "#ff7f0e", "exp": "#d62728",
                "yield": "#9467bd", "adaptive": "#2ca02c"},
    "queue": {"numaring": "#2ca02c", "flat": "#1f77b4", "ck": "#ff7f0e",
              "rte": "#9467bd", "moodycamel": "#8c564b", "urcu": "#e377c2",
              "mutex": "#7f7f7f", "faa": "#17becf"},
}

MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">"]

FALLBACK_COLORS = ["#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39"]

THREAD_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                 "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]

HARNESS_LABEL = "harness alone (null queue)"

#: a point at or above this share of its harness ceiling measures the harness
#: as much as the queue (README: "within 20% of it")
HARNESS_BOUND = 0.8

#: the item modes in the harness's order: inline first
ITEM_ORDER = manifest.items()

ITEM_TITLES = {"inline": "inline items",
               "message": "message items: the payload's line travels too"}

# What the study found, shown beside what this host measured.
STUDY = {
    "f1": "study: > 11\u00d7",
    "f2": "study: 6\u20137\u00d7",
    "f3": "study: > 200\u00d7",
    "f4": "study: \u221215 to \u221230%",
}


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


def fmt_pct(v):
    """+5%, \u221212% (a real minus sign)."""
    return ("%+.0f%%" % v).replace("-", "\u2212")


# --------------------------------------------------------------------------
# The ratios a figure prints between two configurations (and F1's look-up in
# ns): each is a value of scripts/analysis/summarize.py's f1/f2/f3/f4 for the host (the
# paired median ratio: the median over repetitions k of the ratio of the two
# configurations' rep-k runs, with its order-statistic interval and that
# interval's exact coverage, scripts/analysis/stats.py), or summarize.paired() on the
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


def compared(claim):
    """(numerator, denominator): the two values a ratio claim compares, as
    summarize's key for it (CLAIMS) names them: F2's two look-ups for
    "f2.cached_over_libnuma", cached first."""
    return tuple(CLAIMS[claim][1].split("_over_"))


#: what the figures' captions say of the ratios they print
PAIRED_WORDS = ("N\u00d7 [lo\u2013hi, c%]: the paired median ratio over the reps and its "
                "order-statistic interval, c% its coverage (scripts/analysis/stats.py)")


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


def undetermined(claim, d, key):
    """Whether a ratio's pairs support no value (stats.undetermined: modes, or
    an interval over 100x): the figure prints 'undetermined', as the claims and
    the paper do; changes in % are not judged."""
    if claim.endswith("_pct") or not d:
        return False
    return stats.undetermined(d.get(key + "_vals") or (), d.get(key + "_lo"),
                              d.get(key + "_hi")) is not None


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
        if undetermined(claim, d, key):
            return "undetermined"
        self.values[claim] = v
        return fmt_claim(claim, v)

    def interval(self, claim, d, key=None):
        """' [lo\u2013hi, 93.75%]' of d[key]'s order-statistic interval and its
        coverage (scripts/analysis/stats.py; none printed where summarize stored none),
        recorded as <claim>_lo and <claim>_hi; '' where d has none (or it is a
        single value)."""
        key = key or CLAIMS[claim][1]
        lo, hi = (d or {}).get(key + "_lo"), (d or {}).get(key + "_hi")
        if lo is None or hi is None or fmt_claim(claim, lo) == fmt_claim(claim, hi) or \
                undetermined(claim, d, key):
            return ""
        self.values[claim + "_lo"], self.values[claim + "_hi"] = lo, hi
        cov = stats.cov_text((d or {}).get(key + "_cov"))
        return " [%s\u2013%s%s]" % (fmt_claim(claim, lo, unit=False),
                                     fmt_claim(claim, hi, unit=False), ", " + cov if cov else "")


def summary_of(host, what, *args):
    """summarize.<what>(results/<host>, *args) ('f1', 'f2', 'f3', 'f4'), once per
    host and args; {} where it has no value or summarize.py did not load."""
    cache = host.__dict__.setdefault("_summary", {})
    key = (what,) + args
    if key not in cache:
        fn = getattr(summarize, what, None) if summarize is not None else None
        cache[key] = (fn(os.path.join(host.results, host.name), *args) if fn else None) or {}
    return cache[key]


def summary_status():
    """A caption line where summarize.py did not load (no ratio printed), else None."""
    if summarize is None:
        return ("ratios between configurations not shown: scripts/analysis/summarize.py did not "
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


def paired_in_notes(p, said):
    """add_paired_words for a main figure whose one caption line has no room
    for PAIRED_WORDS: the claims recorded the same, the words (or the warning)
    said in the notes (the .dat header), the line of what is drawn kept."""
    drawn = p.pop("drawn", None)
    p = add_paired_words(p, said)
    if drawn is not None:
        p["drawn"] = drawn
    return p


def finite_pos(v):
    return v is not None and math.isfinite(v) and v > 0


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


# --------------------------------------------------------------------------
# The physical ceiling (scripts/analysis/ceiling.py, written elsewhere): optional.


def first_line(e):
    """An exception's first line of text, else its type's name."""
    return str(e).splitlines()[0] if str(e) else type(e).__name__


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
            path = os.path.join(SCRIPT_DIR, "analysis", "ceiling.py")
            if not os.path.isfile(path):
                cls._module_error = "no scripts/analysis/ceiling.py"
            else:
                try:
                    cls._module = importlib.import_module("..analysis.ceiling", __package__)
                except Exception as e:  # noqa: BLE001 - someone else's module
                    sys.modules.pop("scripts.analysis.ceiling", None)
                    cls._module_error = ("scripts/analysis/ceiling.py failed to load: %s"
                                         % first_line(e))
        return cls._module

    def __init__(self, probe_path):
        self.fn = self.probe = self.why = None
        self.errors, self.used = 0, False
        mod = self.module()
        if mod is None:
            self.why = self._module_error
            return
        load = getattr(mod, "load_probe", None)
        fn = getattr(mod, "ceiling_ops_per_s", None)
        if not callable(load) or not callable(fn):
            self.why = "scripts/analysis/ceiling.py lacks load_probe or ceiling_ops_per_s"
            return
        if not probe_path:
            self.why = "no probe/probe.csv"
            return
        try:
            self.probe = load(probe_path)
        except Exception as e:  # noqa: BLE001
            self.why = "load_probe failed: %s" % first_line(e)
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
            s = "ceiling: physical ceiling model (scripts/analysis/ceiling.py from probe.csv)"
            if self.errors:
                s += ", failed for %d points" % self.errors
            return s
        if self.fn is not None:
            return "ceiling: not available (the model gave none for these points)"
        return "ceiling: not available (%s)" % self.why


# --------------------------------------------------------------------------
# One host's data


class Host:
    """results/<host>: load() reads experiments' tidy CSVs, in that order (default:
    every experiment, expfile.experiment_names(); plot.Host: those its figures draw)."""

    def __init__(self, results, host, experiments=None):
        self.results = results
        self.name = host
        self.experiments = tuple(expfile.experiment_names() if experiments is None
                                 else experiments)
        self.info = nrdata.host_info(results, host)
        self.ceiling = Ceiling(self.info["probe"])
        self.data = {}      # experiment -> TidyRows (validated)
        self.missing = {}   # experiment -> why it is skipped

    def load(self):
        for exp in self.experiments:
            path = os.path.join(self.results, self.name, exp + ".csv")
            rows = nrdata.load_tidy(path, experiment=exp) if os.path.exists(path) else None
            if rows:
                self.data[exp] = rows
            else:
                self.missing[exp] = ("no %s.csv" if rows is None else
                                     "%s.csv has a header but no rows") % exp


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
    return {k[0]: v for k, v in nrdata.aggregate(rows, (keyfn,), "harness_ops_per_s").items()}


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


def oversub_of(rows, keyfn):
    """{key: 1 if a run of the key was oversubscribed, 0 if none was, None if the
    results do not record it} over rows grouped by keyfn."""
    groups = {}
    for r in rows:
        groups.setdefault(keyfn(r), []).append(nrdata.oversubscribed(r))
    return {k: 1 if True in f else 0 if all(x is False for x in f) else None
            for k, f in groups.items()}


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


def is_bound(q):
    """1 where a point (x, med, .., harness) is at >= HARNESS_BOUND x its harness."""
    return int(bool(len(q) > 6 and q[6] and q[1] >= HARNESS_BOUND * q[6]))


def bound_count(series):
    """Points of {variant: [(x, med, .., harness)]} at >= HARNESS_BOUND x their harness."""
    return sum(is_bound(q) for pts in series.values() for q in pts)


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
# What the figures' preparations share


def series_by(rows, key, value="throughput_ops_per_s", ceiling=None, harness=True,
              interval=True, more=None):
    """{series: [(x, med, lo, hi, n, ceiling or None, harness or None,
    oversubscribed 1/0/None[, coverage])]} of ``value`` over rows grouped by
    key(row) = (series, x) or (series..., x) (then the series is the tuple),
    each series sorted by x. lo..hi: the median's order-statistic interval
    and its coverage (fig_common.intervals: min..max up to 5 runs), or, with
    ``interval`` False, min..max (nrdata.aggregate, no coverage); ceiling:
    fn(key) or None; harness: the point's median harness_ops_per_s (where
    asked); more: fn(key) -> a tuple appended."""
    if interval:
        st = {k: (iv.est, iv.lo, iv.hi, iv.n, iv.coverage)
              for (k,), iv in fig_common.intervals(rows, (key,), value).items()}
    else:
        st = {k: v for (k,), v in nrdata.aggregate(rows, (key,), value).items()}
    hs = harness_of(rows, key) if harness else {}
    ov = oversub_of(rows, key)
    series = {}
    for k, v in st.items():
        h = hs.get(k)
        series.setdefault(k[0] if len(k) == 2 else k[:-1], []).append(
            (k[-1],) + v[:4] + (ceiling(k) if ceiling else None, h[0] if h else None,
                                ov.get(k)) + v[4:] + (more(k) if more else ()))
    for pts in series.values():
        pts.sort()
    return series


def ceiling_groups(ceiling, order):
    """The ceiling lines of a figure from {variant: {x: ceiling}}: variants
    whose ceilings coincide share one.

    Returns [{"variants": [...], "points": [(x, ceiling)]}], the group with the
    most variants first (drawn black), [] where no variant has a ceiling.
    """
    groups = []
    for v in order:
        pts = sorted(ceiling.get(v, {}).items())
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


def quoted_threads(host, rows, usable=None):
    """The thread count an annotation quotes (nrdata.quoted_threads, the rule of
    the results READMEs and the paper): the largest, and on a host with SMT the
    largest with one thread per core."""
    return nrdata.quoted_threads(rows, host.info.get("cores"),
                                 host.info.get("threads_per_core"), usable)


def workload_of(row):
    """The row's workload: prodcons where the cell is empty (tables from before
    workloads), else the cell (summarize.workload_of's rule)."""
    return fig_common.cell(row, "workload") or "prodcons"


def load_of(row):
    """The offered load of an open-loop row (a fraction of capacity); '' if closed loop."""
    return fig_common.cell(row, "load")


def load_label(ld):
    return "closed loop" if not ld else "%g%% load" % (100 * float(ld))


def loads_in(rows):
    """The offered loads of rows, highest last ('' = closed loop first)."""
    return sorted({load_of(r) for r in rows}, key=lambda v: float(v) if v else -1.0)


def load_pct(row):
    """The offered load of an open-loop row in % of capacity (a number)."""
    return 100.0 * float(load_of(row))


def pct_label(x):
    return "%g%%" % float("%.3g" % x)


def emulated(p):
    return any(r["topology_kind"] == "emulated" for r in p["rows"])


def guest(p):
    """True where the figure's host is a QEMU TCG guest (its caption says so)."""
    return any(t and t.startswith(nrdata.GUEST_NOTE) for t, _e in p["caption"])


#: what a guest's figure adds to its title
GUEST_TITLE = "   [GUEST: timings meaningless]"


def wrap_note(text, chars):
    """Lines of at most ``chars`` of a finding: whole workloads on a line where
    they fit ("; " between them)."""
    import textwrap
    lines = []
    for ln in text.splitlines():
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


def failed_per_1000(row):
    v = nrdata.failed_per_item(row)
    return None if v is None else v * 1000.0
