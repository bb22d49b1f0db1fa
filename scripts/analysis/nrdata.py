# SPDX-License-Identifier: BSD-2-Clause
"""Shared data code for NumaRing's result scripts (plots, the paper's numbers).

    from scripts.analysis import nrdata
    rows = nrdata.load_tidy("results/vm/f2-node-cache.csv")
    rows.frame          # the same rows as a typed pandas DataFrame
    agg = nrdata.aggregate(rows, ("lookup", "threads"), "throughput_ops_per_s")
    # {("cached", 2): (median, min, max, n), ...}
    info = nrdata.host_info("results", "vm")

The tidy table of one experiment is defined in scripts/common/tidy.py (its
columns, and the helpers that read one row: num, threads, is_reference, ...).
``role`` is ``point`` for a point of the sweep and ``reference`` for a run of
the experiment's drift reference (points ``reference-start``,
``reference-middle``, ``reference-end``); load_tidy leaves reference rows out
unless asked, so that no figure pools them with the points.

Tables are read with pandas and checked column by column; every load raises
:class:`DataError`, whose text names the file, the line and the column, so
that a caller can print one message and stop.
"""

import csv
import glob
import hashlib
import io
import json
import math
import os
import re
import statistics

import numpy as np
import pandas as pd

from ..common import runfiles
from ..common.tidy import (  # noqa: F401 - the table's definition, read through here too
    BACKOFF_EXERCISED, CONFIG_COLUMNS, FLOAT_COLUMNS, INT_COLUMNS, LATENCY_COLUMNS,
    LATER_COLUMNS, NUMERIC_COLUMNS, REFERENCE_POINTS, REQUIRED_VALUES, RUNNER_COLUMNS,
    SCHEMA_PATH, SUMMARY_COLUMNS, TIDY_COLUMNS, backoff_exercised, failed_per_item,
    is_reference, ns_per_op, num, oversubscribed, pin_of, shares_core, stolen, threads,
    work_label)


#: The configuration of the peers sweep that its claims, the results README's
#: peers rows and the peers figures name (experiments/peers.exp): no local
#: work on either side (a pace's one-sided work is its own axis) and every
#: thread on one node. Results from before the field's design hold only it.
PEERS_WORK, PEERS_PIN = "0", "compact"


def peers_named(row):
    """Whether a peers row is of the sweep's named configuration (PEERS_WORK, PEERS_PIN)."""
    return work_label(row) == PEERS_WORK and pin_of(row) == PEERS_PIN


# ---- items per line trip: a cross-node result in the host's own unit -----------

#: The probe row whose value is the one-way line trip a cross-node result is
#: divided by: half the median round trip of one cache line ping-ponged
#: between a CPU of one node and a CPU of the other (numaring-bench --probe,
#: probe/probe.csv), measured once per host before its sweep.
TRIP_KIND = "c2c_one_way_other_node"
#: where the trip comes from, as the README and the figures name it
TRIP_SOURCE = "probe/probe.csv " + TRIP_KIND


def probe_trip_ns(hostdir):
    """The host probe's one-way line trip between nodes, ns (TRIP_KIND, the
    first such row); None where the host has no probe or the probe no such
    row (one node, an older probe)."""
    path = os.path.join(hostdir, "probe", "probe.csv")
    if not os.path.exists(path):
        return None
    with open(path, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            if r.get("kind") == TRIP_KIND:
                try:
                    v = float(r.get("value") or "")
                except ValueError:
                    return None
                return v if math.isfinite(v) and v > 0 else None
    return None


def crosses_nodes(row):
    """Whether every item of a run crosses between nodes: producers on one
    node and consumers on another (pin split, or nodes:P/C with P != C) on two
    nodes or more."""
    pin = pin_of(row)
    apart = pin == "split" or (pin.startswith("nodes:") and len(set(pin[6:].split("/"))) == 2)
    return apart and (num(row, "nodes") or 1) >= 2


def items_per_trip(row, trip_ns):
    """items_per_trip = throughput_ops_per_s x the one-way line trip (s): the
    items a cross-node run moved in the time one cache line takes to cross
    once (trip_ns: probe_trip_ns of the run's host), a figure that two hosts
    with different interconnects compare by. None where the run's items do
    not cross nodes (crosses_nodes), it measured no throughput or there is
    no trip."""
    t = num(row, "throughput_ops_per_s")
    if not trip_ns or t is None or not crosses_nodes(row):
        return None
    return t * trip_ns * 1e-9


class DataError(Exception):
    """A result file that cannot be used: names the file, line and column."""

    def __init__(self, path, line, column, problem):
        self.path, self.line, self.column, self.problem = path, line, column, problem
        where = (str(path) + ("" if line is None else ", line %d" % line)
                 + ("" if column is None else ", column %s" % column))
        super().__init__("%s: %s" % (where, problem))


class TidyRows(list):
    """The rows of one tidy CSV as dicts of the CSV's strings, for the code
    that reads a row at a time; ``rows.frame`` is the same rows as a typed
    DataFrame (numbers in numeric columns, NaN or <NA> where empty; its index
    is each row's line in the file), ``rows.path`` the file, ``rows.header``
    its columns (those of an older harness added, empty)."""

    def __init__(self, path, header, frame, strings):
        cols = list(strings.columns)
        super().__init__(dict(zip(cols, r)) for r in strings.to_numpy().tolist())
        self.path, self.header, self.frame = path, header, frame


def _why_not(text, column):
    """Why ``text`` (refused by pd.to_numeric or out of range) is no value of
    ``column``: not a number, not finite, not whole (counts), negative."""
    try:
        value = float(text)
    except ValueError:
        return "%r is not a number" % text
    if not math.isfinite(value):
        return "%r is not a finite number" % text
    if column in INT_COLUMNS and value != int(value):
        return "%r is not a whole number" % text
    if value < 0:
        return "%r is negative" % text
    return "%r is not a number" % text      # float() takes it, pandas does not (1_0)


def _read_text(path):
    """A file's text, loose or in its experiment's archive (runfiles)."""
    try:
        return runfiles.read_bytes(path).decode("utf-8")
    except FileNotFoundError:
        raise DataError(path, None, None, "no such file") from None
    except runfiles.ArchiveError as e:
        raise DataError(path, None, None, str(e)) from None
    except UnicodeDecodeError as e:
        raise DataError(path, None, None, "not UTF-8 text (%s)" % e.reason) from None
    except OSError as e:
        raise DataError(path, None, None, "cannot read: %s" % e.strerror) from None


def _read_strings(path, text):
    """Every record of a CSV text as strings, the header line as row 0, its
    index the record's line in the file; a field a short row lacks is None
    (the python engine pads with None where the C engine would write "")."""
    try:
        raw = pd.read_csv(io.StringIO(text), header=None, dtype=str, keep_default_na=False,
                          skip_blank_lines=False, engine="python")
    except pd.errors.ParserError as e:
        m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(e))
        if m:
            raise DataError(path, int(m[2]), None, "the row has %s fields, the header %s"
                            % (m[3], m[1])) from None
        m = re.search(r"line (\d+)", str(e))
        raise DataError(path, int(m[1]) if m else None, None, "not CSV: %s" % e) from None
    # the line csv counts a record at: its own, plus the line breaks quoted in it
    # and in every record before it
    raw.index = np.arange(1, len(raw) + 1)
    if '"' in text:
        raw.index += raw.applymap(lambda v: v.count("\n") if v else 0).sum(axis=1).cumsum()
    return raw


def load_tidy(path, experiment=None, role="point"):
    """Read and check one experiment's tidy CSV; return a :class:`TidyRows`.

    ``role``: "point" (the default) returns the sweep's rows and leaves the
    drift reference's runs out; "reference" returns only those; None returns
    every row.  A table without a role column has points only (a row whose
    point is one of REFERENCE_POINTS counts as a reference all the same).

    Checks: the file is not empty; the header starts with experiment,point,rep
    and has every summary column once (extra columns are kept); every row has
    as many fields as the header (a shorter one is a truncated file); numeric
    columns hold finite, non-negative numbers (integers where counts are
    expected) or nothing; the columns of REQUIRED_VALUES are filled; rep >= 1;
    (point, rep) is not repeated; role is empty, point or reference;
    oversubscribed is empty, 0 or 1; and, with ``experiment``, every row's
    experiment column equals it.  A header with no rows is valid (an
    experiment that has not produced a point yet) and gives an empty list.
    Where several rows are wrong, the first is named (a row with too many
    fields, found while parsing, comes before the others).

    Raises DataError naming the file, the line and the column.
    """
    text = _read_text(path)
    key = (path, hashlib.blake2b(text.encode("utf-8", "surrogatepass")).digest(), experiment, role)
    if key not in _PARSED:
        if len(_PARSED) >= 512:
            _PARSED.clear()
        _PARSED[key] = _parse_tidy(path, text, experiment, role)
    header, typed, strings = _PARSED[key]
    return TidyRows(path, header, typed.copy(), strings)


#: load_tidy's parsed tables by content: every README section, claim and
#: figure reads its experiment's table, and pandas parses a table in tenths of
#: a second; keyed on the text's hash (a file rewritten within one timestamp
#: tick is read again), each call gets rows of its own.
_PARSED = {}


def _parse_tidy(path, text, experiment, role):
    """load_tidy's checks on one table's text: (header, typed frame, strings)."""
    if not text.strip():
        raise DataError(path, 1, "experiment", "empty file: no header line (expected "
                        "experiment,point,rep and numaring-bench's summary.csv columns)")
    raw = _read_strings(path, text)
    header = [h.strip() for h in raw.iloc[0]]
    if header[:3] != ["experiment", "point", "rep"]:
        raise DataError(path, 1, header[0] if header else None,
                        "wrong header: it must start with experiment,point,rep "
                        "(found %s)" % ",".join(header[:3]))
    twice = pd.Index(header).duplicated()
    if twice.any():
        raise DataError(path, 1, header[twice.argmax()], "wrong header: column appears twice")
    for c in TIDY_COLUMNS:
        if c not in header and c not in LATER_COLUMNS:
            raise DataError(path, 1, c, "wrong header: column missing "
                            "(expected experiment,point,rep + numaring-bench's "
                            "summary.csv columns)")
    body = raw.iloc[1:].set_axis(header, axis=1)
    fields = body.notna().sum(axis=1)
    blank = (fields == 0) | ((fields == 1) & (body[header[0]].str.strip() == ""))
    body, fields = body[~blank], fields[~blank]
    # in the tidy table's order (LATER_COLUMNS is a set: its order is the hash seed's)
    missing_later = [c for c in TIDY_COLUMNS if c in LATER_COLUMNS and c not in header]
    df = body.fillna("").assign(**{c: "" for c in missing_later})   # older harness: empty
    st = df.applymap(str.strip)
    numeric = [c for c in df.columns if c in NUMERIC_COLUMNS]
    nums = st[numeric].where(st[numeric] != "").apply(pd.to_numeric, errors="coerce")
    x = nums.astype("float64")
    not_whole = (x != np.floor(x)) & [c in INT_COLUMNS for c in numeric]
    bad_number = (st[numeric] != "") & (x.isna() | ~np.isfinite(x) | (x < 0) | not_whole)
    empty = st[list(REQUIRED_VALUES)] == ""
    rep = x["rep"].fillna(1)
    key = pd.DataFrame({"e": df["experiment"], "p": df.get("profile", ""), "pt": df["point"],
                        "rep": rep.where(np.isfinite(rep), 0).astype("int64")})
    first = pd.Series(key.index, index=key.index).groupby([key[c] for c in key]).transform("first")

    def short(line):
        n = fields[line]
        why = "the row ends after %d of %d fields" % (n, len(header))
        if line == len(text.splitlines()) and not text.endswith(("\n", "\r")):
            why += " and the file ends mid-line: truncated file?"
        return header[n], why

    def number(line):
        c = bad_number.loc[line].idxmax()
        return c, _why_not(st.at[line, c], c)

    # (rows, why) in the order a row is checked: the first wrong row is named,
    # with the first of its problems
    checks = [(fields < len(header), short),
              (empty.any(axis=1), lambda line: (empty.loc[line].idxmax(),
                                                "empty, but every row needs a value")),
              (bad_number.any(axis=1), number),
              (rep < 1, lambda line: ("rep", "%r: repetitions count from 1" % df.at[line, "rep"]))]
    for c, ok, expected in (("role", ("", "point", "reference"), "point or reference"),
                            ("oversubscribed", ("", "0", "1"), "0, 1 or nothing")):
        if c in df:
            checks.append((~st[c].isin(ok), lambda line, c=c, e=expected:
                           (c, "%r: expected %s" % (df.at[line, c], e))))
    if experiment is not None:
        checks.append((df["experiment"] != experiment, lambda line: (
            "experiment", "%r, but the file is experiment %r"
            % (df.at[line, "experiment"], experiment))))
    checks.append((key.duplicated(), lambda line: (
        "rep", "point %r rep %d appears twice (also line %d)"
        % (df.at[line, "point"], key.at[line, "rep"], first[line]))))
    wrong = np.logical_or.reduce([m.to_numpy(dtype=bool) for m, _ in checks])
    if wrong.any():
        line = df.index[wrong.argmax()]
        raise DataError(path, line, *next(why(line) for m, why in checks if m[line]))

    typed = df.assign(**{c: nums[c].astype("Int64") if c in INT_COLUMNS else x[c]
                         for c in numeric})
    if role is not None:
        r = st["role"] if "role" in st else pd.Series("", index=df.index)
        ref = (r == "reference").where(r != "", df["point"].isin(REFERENCE_POINTS))
        keep = ref.astype(bool) == (role == "reference")
        df, typed = df[keep], typed[keep]
    return header + missing_later, typed.rename_axis("line"), df


def one_per_core(rows, cores=None, threads_per_core=None):
    """Whether runs (of one thread count) had a core per thread: False where a
    row says two threads shared a core (shares_core), or, where no row says
    either way, on a host with SMT (threads_per_core > 1) when there are more
    threads than its ``cores``; True otherwise. Without SMT a core is a CPU,
    and the runs' CPU sharing is the oversubscribed column's business."""
    said = [shares_core(r) for r in rows]
    if any(s is True for s in said):
        return False
    if said and all(s is False for s in said):
        return True
    if threads_per_core and threads_per_core > 1 and cores:
        return max(threads(r) for r in rows) <= cores
    return True


def quoted_threads(rows, cores=None, threads_per_core=None, usable=None):
    """The thread count a summary quotes a sweep over threads at: the largest
    whose runs had a core per thread (one_per_core) and pass ``usable`` (a
    predicate on the rows of one thread count, e.g. not oversubscribed), else
    the largest with a core per thread, else the largest; None without rows.
    On a host without SMT (or where neither the rows nor the host say) this is
    the largest count that passes ``usable``: SMT siblings are never quoted
    where the data can tell them apart."""
    by_t = {}
    for r in rows:
        by_t.setdefault(threads(r), []).append(r)
    if not by_t:
        return None
    ts = sorted(by_t)
    per_core = [t for t in ts if one_per_core(by_t[t], cores, threads_per_core)]
    return next(cands[-1] for cands in (
        [t for t in per_core if usable is None or usable(by_t[t])], per_core, ts) if cands)


def by_rep(rows, value="throughput_ops_per_s"):
    """The median of ``value`` per repetition over rows (a Series indexed by
    rep, ascending); rows with no value are left out."""
    get = _getter(value)
    vals = [(int(float(r["rep"])), get(r)) for r in rows]
    df = pd.DataFrame([(k, float(v)) for k, v in vals if v is not None and v != ""],
                      columns=["rep", "value"], dtype=object)
    return df.astype({"rep": "int64", "value": "float64"}).groupby("rep")["value"].median()


def _rep_medians(rows, value):
    """by_rep's values as {rep: median}, without building a frame: the same
    numbers (the median of the values that are not NaN, NaN where none is;
    pandas' groupby median takes the mean of the two middle values as
    statistics.median does; test_stats checks them against by_rep). paired_ratios
    runs hundreds of times for one results README, and the frames, not the
    arithmetic, were most of its time: a README took 12 s with them, 2 s
    without, on the development machine."""
    get = _getter(value)
    per = {}
    for r in rows:
        rep, v = int(float(r["rep"])), get(r)
        if v is not None and v != "":
            per.setdefault(rep, []).append(float(v))
    out = {}
    for rep in sorted(per):
        vals = [x for x in per[rep] if not math.isnan(x)]
        out[rep] = statistics.median(vals) if vals else math.nan
    return out


def paired_ratios(a_rows, b_rows, value="throughput_ops_per_s", fn=None):
    """[fn(a_k, b_k)] for every repetition k that both groups of rows have (the
    same rep index: run in the same round of the sweep, close in time), by rep;
    fn defaults to a_k / b_k.  Pairs with b_k == 0 are left out."""
    a, b = _rep_medians(a_rows, value), _rep_medians(b_rows, value)
    fn = fn or (lambda x, y: x / y)
    return [fn(a[k], b[k]) for k in a if k in b and b[k] != 0]


def near_rows(rows):
    """The rows whose run did not end with its CPUs further apart than the
    probe found them after the runner's re-runs (placement_far != 1)."""
    return [r for r in rows if str(r.get("placement_far") or "") != "1"]


def load_latency(path):
    """Read one run's latency.csv; return a list of (value_ns, percentile, count).

    The last row's 1/(1-p) is ``inf``; every other value must be a finite
    number.  A file with only its header (a queue that records no latency,
    such as ``faa``) gives an empty list.  Raises DataError.
    """
    text = _read_text(path)
    if not text.strip():
        raise DataError(path, 1, LATENCY_COLUMNS[0], "empty file: no header line "
                        "(expected %s)" % ",".join(LATENCY_COLUMNS))
    reader = csv.reader(text.splitlines(keepends=True))
    header = [h.strip() for h in next(reader)]
    if header != LATENCY_COLUMNS:
        missing = [c for c in LATENCY_COLUMNS if c not in header]
        raise DataError(path, 1, missing[0] if missing else None,
                        "wrong header: expected %s" % ",".join(LATENCY_COLUMNS))
    out = []
    for fields in reader:
        line = reader.line_num
        if not fields:
            continue
        if len(fields) != 4:
            col = LATENCY_COLUMNS[len(fields)] if len(fields) < 4 else None
            raise DataError(path, line, col, "the row has %d of 4 fields" % len(fields))
        vals = []
        for c, v in zip(LATENCY_COLUMNS, fields):
            v = v.strip()
            try:
                x = float(v)
            except ValueError:
                raise DataError(path, line, c, "%r is not a number" % v) from None
            if not math.isfinite(x) and (c, v) != ("one_over_one_minus_percentile", "inf"):
                raise DataError(path, line, c, "%r is not a finite number" % v)
            vals.append(x)
        if not 0.0 <= vals[1] <= 1.0:
            raise DataError(path, line, "percentile", "%r is not a fraction 0..1" % fields[1])
        out.append((vals[0], vals[1], vals[2]))
    return out


def read_frame(path, strings=False):
    """One results CSV as a pandas frame, its columns typed by pandas, or
    every value as text (none taken for missing) with ``strings``: the one
    place besides read_rows and load_tidy that the analysis reads a results
    CSV. Raises OSError, or ValueError (pandas' parser errors are ones)."""
    if strings:
        return pd.read_csv(path, dtype=str, keep_default_na=False)
    return pd.read_csv(path)


#: read_rows' tables by content, as load_tidy's (_PARSED)
_READ = {}


def read_rows(path, need=()):
    """The rows of a CSV as dicts of its strings (pandas, every value read as
    text, none taken for missing); [] for an empty file.  ``need``: columns
    the header must have.  Raises DataError."""
    text = _read_text(path)
    if not text.strip():
        return []
    key = (path, hashlib.blake2b(text.encode("utf-8", "surrogatepass")).digest())
    if key not in _READ:
        try:
            frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
        except pd.errors.ParserError as e:
            raise DataError(path, None, None, "not CSV: %s" % e) from None
        if len(_READ) >= 512:
            _READ.clear()
        # The records are kept, not the frame: pandas' to_dict boxes every
        # value anew on each call, and the summaries read the same files
        # hundreds of times.  Callers get fresh dicts (they may edit them).
        columns = list(frame.columns)
        _READ[key] = (columns, [dict(zip(columns, r))  # to_dict's records, twice as fast
                                for r in frame.itertuples(index=False, name=None)])
    columns, records = _READ[key]
    for c in need:
        if c not in columns:
            raise DataError(path, 1, c, "wrong header: column missing")
    return [dict(r) for r in records]


#: Values computed from a row that aggregate() accepts by name.
DERIVED = {"threads": threads, "ns_per_op": ns_per_op, "failed_per_item": failed_per_item}


def _getter(spec):
    if callable(spec):
        return spec
    if spec in DERIVED:
        return DERIVED[spec]
    if spec in NUMERIC_COLUMNS:
        return lambda r: num(r, spec)
    return lambda r: r.get(spec, "")


def groups(rows, keys, value):
    """``value`` over rows grouped by ``keys``: a pandas SeriesGroupBy and the
    key tuple of each group ({group number: key tuple}, keys in sorted order
    where they compare, else as first met).  ``keys`` is a sequence of column
    names (numeric columns give numbers), derived names ("threads") or
    callables of a row; ``value`` the same for the value.  Rows whose value is
    empty or None are left out (latency of ``faa``)."""
    if isinstance(keys, str):
        keys = (keys,)
    kget, vget = [_getter(k) for k in keys], _getter(value)
    pairs = [(tuple(g(r) for g in kget), v) for r in rows for v in [vget(r)]
             if v is not None and v != ""]
    number = {}
    codes = [number.setdefault(k, len(number)) for k, _ in pairs]
    try:
        order = sorted(number)
    except TypeError:
        order = list(number)
    values = pd.Series([float(v) for _, v in pairs], dtype="float64")
    return values.groupby(codes), {number[k]: k for k in order}


def aggregate(rows, keys, value):
    """Median, min, max and count of ``value`` over rows grouped by ``keys``
    (see groups): {key tuple: (median, min, max, n)}.  pandas' median of an
    even count is the mean of the two middle values, as statistics.median."""
    g, order = groups(rows, keys, value)
    if not order:
        return {}
    agg = g.agg(["median", "min", "max", "count"])
    return {k: (float(agg.at[c, "median"]), float(agg.at[c, "min"]), float(agg.at[c, "max"]),
                int(agg.at[c, "count"])) for c, k in order.items()}


def run_dir(results_dir, host, row):
    """The folder of a tidy row's run: <experiment>/<profile>/<point>/rep-<k> where
    the row has a profile column and that folder exists, else
    <experiment>/<point>/rep-<k>."""
    rep = "rep-%d" % int(float(row["rep"]))
    base = os.path.join(results_dir, host, row["experiment"])
    prof = row.get("profile", "").strip()
    if prof:
        d = os.path.join(base, prof, row["point"], rep)
        if os.path.isdir(d) or os.path.isfile(os.path.join(base, prof) + runfiles.ARCHIVE):
            return d
    return os.path.join(base, row["point"], rep)


def latency_path(results_dir, host, row):
    """Where the latency.csv of a tidy row's run lies (see run_dir)."""
    return os.path.join(run_dir(results_dir, host, row), "latency.csv")


def list_hosts(results_dir):
    """Host ids under results_dir: folders holding a CSV, probe/ or env/."""
    try:
        names = sorted(os.listdir(results_dir))
    except OSError:
        return []
    return [h for h in names for d in [os.path.join(results_dir, h)]
            if os.path.isdir(d) and not h.startswith(".")
            and (glob.glob(os.path.join(d, "*.csv")) or os.path.isdir(os.path.join(d, "probe"))
                 or os.path.isdir(os.path.join(d, "env")))]


def _read_json(path):
    try:
        return json.loads(runfiles.read_text(path))
    except (OSError, ValueError, runfiles.ArchiveError):
        return None


def _read_lscpu(path):
    """{field: value} of an lscpu listing ("Thread(s) per core:   2"); {} if unreadable."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return {k.strip(): v.strip() for k, sep, v in (ln.partition(":") for ln in f) if sep}
    except OSError:
        return {}


def _positive_int(v):
    """v as an int > 0 (from a JSON number or an lscpu field), else None."""
    try:
        n = int(str(v).strip())
    except (TypeError, ValueError):
        return None
    return n if n > 0 else None


#: the hypervisor of numaring-bench's "virtualization" kinds, named as lscpu does
VIRT_NAMES = {"qemu-tcg": "QEMU TCG", "kvm": "KVM", "vmware": "VMware", "hyperv": "Microsoft",
              "xen": "Xen", "qemu": "QEMU", "other": "unknown hypervisor"}


def _machine(info, d, topo, meta):
    """The machine's cores, hardware threads per core, sockets, CPU count and
    hypervisor, into info. Where the harness writes them (show-topology.json or
    a run's meta.json: cores, threads_per_core, virtualization) they win; else
    the environment's lscpu listing (env/lscpu.txt) says them (lscpu names no
    hypervisor for QEMU TCG); else None. ncpus is the CPUs the runs could use
    (the nodes' CPUs), else lscpu's count."""
    ls = _read_lscpu(os.path.join(d, "env", "lscpu.txt"))
    for src in (topo, meta):
        if not isinstance(src, dict):
            continue
        for k in ("cores", "threads_per_core"):
            if info[k] is None:
                info[k] = _positive_int(src.get(k))
        if info["ncpus"] is None and isinstance(src.get("nodes"), list):
            info["ncpus"] = sum(n.get("ncpus", 0) for n in src["nodes"]
                                if isinstance(n, dict)) or None
        virt = src.get("virtualization")
        if info["hypervisor"] is None and isinstance(virt, dict):
            info["hypervisor"] = VIRT_NAMES.get(virt.get("kind"))
    sockets, per_socket = (_positive_int(ls.get(k)) for k in ("Socket(s)", "Core(s) per socket"))
    for k, field in (("threads_per_core", "Thread(s) per core"), ("ncpus", "CPU(s)")):
        if info[k] is None:
            info[k] = _positive_int(ls.get(field))
    if info["cores"] is None and per_socket and sockets:
        info["cores"] = per_socket * sockets
    info["sockets"] = sockets
    info["hypervisor"] = info["hypervisor"] or ls.get("Hypervisor vendor") or None
    if ls:
        info["sources"].append(os.path.join(d, "env", "lscpu.txt"))


#: what every figure, README and paper of a QEMU TCG guest says first
GUEST_NOTE = "guest: timings meaningless"


def guest_note(virt):
    """GUEST_NOTE and why, where ``virt`` (the "virtualization" object of
    numaring-bench's --show-topology and meta.json) says that no timing of
    the machine means anything: its CPU was emulated in software (QEMU TCG,
    make vm-experiments). None otherwise: real hardware, a virtual machine
    whose CPU runs the code itself (KVM, VMware, ...), or results from
    before the object existed."""
    if isinstance(virt, dict) and virt.get("timings_meaningful") is False:
        return ("%s (%s: the CPU is emulated in software; the run shows that each step "
                "works, not how fast anything is)" % (GUEST_NOTE, virt.get("kind") or "guest"))
    return None


def host_info(results_dir, host):
    """What is known about a host: a dict with

    host, cpu_model, kernel, cpus (allowed cpulist or count), topology
    ("real" / "emulated" / "unknown"), topology_spec, nodes (count or None),
    guest (guest_note's text for a QEMU TCG guest, else None),
    probe (path of probe.csv or None), readme (path or None), sources (files
    read); and the machine (_machine): ncpus, cores, threads_per_core,
    sockets, hypervisor (None where unknown).  Read from
    env/show-topology.json, else from the first meta.json of any run, and
    env/lscpu.txt; missing or unreadable files leave fields "unknown", never
    fail.
    """
    d = os.path.join(results_dir, host)
    info = {"host": host, "cpu_model": "unknown CPU", "kernel": "unknown",
            "cpus": None, "topology": "unknown", "topology_spec": None,
            "nodes": None, "guest": None, "probe": None, "readme": None, "sources": [],
            "ncpus": None, "cores": None, "threads_per_core": None, "sockets": None,
            "hypervisor": None}
    topo = _read_json(os.path.join(d, "env", "show-topology.json"))
    meta = None
    if isinstance(topo, dict):
        info["sources"].append(os.path.join(d, "env", "show-topology.json"))
        for k in ("cpu_model", "kernel", "topology"):
            info[k] = topo.get(k) or info[k]
        info["cpus"] = topo.get("allowed_cpus")
        info["guest"] = guest_note(topo.get("virtualization"))
        if isinstance(topo.get("nodes"), list):
            info["nodes"] = len(topo["nodes"])
        if topo.get("host"):
            info["host_name"] = topo["host"]
    if (info["cpu_model"] == "unknown CPU" or info["topology"] == "unknown"
            or not (isinstance(topo, dict) and topo.get("cores"))):
        metas = [m for m in runfiles.find(d, "*/rep-*/meta.json")
                 if os.path.relpath(m, d).count(os.sep) in (3, 4)]
        for m in metas[:20]:
            meta = _read_json(m)
            if not isinstance(meta, dict):
                continue
            info["sources"].append(m)
            for k, unknown in (("cpu_model", "unknown CPU"), ("kernel", "unknown")):
                if info[k] == unknown and meta.get(k):
                    info[k] = meta[k]
            info["guest"] = info["guest"] or guest_note(meta.get("virtualization"))
            if info["cpus"] is None and meta.get("cpus_online"):
                info["cpus"] = str(meta["cpus_online"])
            if info["topology"] == "unknown" and meta.get("topology"):
                info["topology"] = meta["topology"]
                info["topology_spec"] = meta.get("topology_spec")
                if isinstance(meta.get("nodes"), list):
                    info["nodes"] = len(meta["nodes"])
            break
    _machine(info, d, topo, meta if isinstance(meta, dict) else None)
    for k, p in (("probe", os.path.join(d, "probe", "probe.csv")),
                 ("readme", os.path.join(d, "README.md"))):
        info[k] = p if os.path.isfile(p) else None
    return info
