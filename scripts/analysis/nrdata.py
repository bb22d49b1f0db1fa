# SPDX-License-Identifier: BSD-2-Clause
"""Shared data code for NumaRing's result scripts (plots, the paper's numbers).

Standard library only, so that any script can import it:

    from scripts import nrdata
    rows = nrdata.load_tidy("results/vm/f2-node-cache.csv")
    agg = nrdata.aggregate(rows, ("lookup", "threads"), "throughput_ops_per_s")
    # {("cached", 2): (median, min, max, n), ...}
    info = nrdata.host_info("results", "vm")

The tidy table of one experiment (written by scripts/runner/collect.py) has the
runner's columns (RUNNER_COLUMNS: ``experiment,point,rep`` always, then
``profile``, ``role`` and ``oversubscribed`` where the runner wrote them)
followed by the columns of numaring-bench's summary.csv, one row per (point,
rep).  A column that does not apply to a row is empty (lookup for a peer
queue, latency for ``faa``).

``role`` is ``point`` for a point of the sweep and ``reference`` for a run of
the experiment's drift reference (points ``reference-start``,
``reference-middle``, ``reference-end``); load_tidy leaves reference rows out
unless asked, so that no figure pools them with the points.  ``oversubscribed``
is 1 where the run's threads outnumbered the CPUs they ran on, 0 where not,
and empty (unknown) in tables written before the runner recorded it.

Every load validates what it reads and raises :class:`DataError`, whose text
names the file, the line and the column, so that a caller can print one
message and stop.
"""

import csv
import glob
import json
import math
import os
import statistics

from ..common.tidy import (  # noqa: F401 - the table's definition, read through here too
    BACKOFF_EXERCISED, CONFIG_COLUMNS, FLOAT_COLUMNS, INT_COLUMNS, LATENCY_COLUMNS,
    LATER_COLUMNS, NUMERIC_COLUMNS, REFERENCE_POINTS, REQUIRED_VALUES, RUNNER_COLUMNS,
    SCHEMA_PATH, SUMMARY_COLUMNS, TIDY_COLUMNS, backoff_exercised, failed_per_item,
    is_reference, ns_per_op, num, oversubscribed, shares_core, stolen, threads)

__all__ = [
    "DataError", "SUMMARY_COLUMNS", "TIDY_COLUMNS", "RUNNER_COLUMNS", "TidyRows",
    "load_tidy", "load_latency", "load_probe_csv", "aggregate", "num",
    "threads", "ns_per_op", "host_info", "list_hosts", "latency_path", "run_dir",
    "is_reference", "oversubscribed", "failed_per_item", "backoff_exercised",
    "paired_ratios", "REFERENCE_POINTS", "BACKOFF_EXERCISED",
    "shares_core", "one_per_core", "quoted_threads",
]

class DataError(Exception):
    """A result file that cannot be used: names the file, line and column."""

    def __init__(self, path, line, column, problem):
        self.path, self.line, self.column, self.problem = path, line, column, problem
        where = str(path)
        if line is not None:
            where += ", line %d" % line
        if column is not None:
            where += ", column %s" % column
        super().__init__("%s: %s" % (where, problem))


class TidyRows(list):
    """The rows of one tidy CSV (dicts of strings), with where each came from.

    ``rows.path`` is the file, ``rows.lines[i]`` the line number of ``rows[i]``.
    """

    def __init__(self, path, header):
        super().__init__()
        self.path = path
        self.header = header
        self.lines = []

    def line_of(self, row):
        for i, r in enumerate(self):
            if r is row:
                return self.lines[i]
        return None


def _parse_number(text, column):
    """The number in ``text`` for ``column``, or raise ValueError(why)."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError("%r is not a number" % text) from None
    if not math.isfinite(value):
        raise ValueError("%r is not a finite number" % text)
    if column in INT_COLUMNS and value != int(value):
        raise ValueError("%r is not a whole number" % text)
    if value < 0:
        raise ValueError("%r is negative" % text)
    return value


def _read_text(path):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        raise DataError(path, None, None, "no such file") from None
    except UnicodeDecodeError as e:
        raise DataError(path, None, None, "not UTF-8 text (%s)" % e.reason) from None
    except OSError as e:
        raise DataError(path, None, None, "cannot read: %s" % e.strerror) from None


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

    Raises DataError naming the file, the line and the column.
    """
    text = _read_text(path)
    if not text.strip():
        raise DataError(path, 1, "experiment", "empty file: no header line (expected "
                        "experiment,point,rep and numaring-bench's summary.csv columns)")
    ends_mid_line = not text.endswith(("\n", "\r"))
    reader = csv.reader(text.splitlines(keepends=True), strict=True)
    try:
        header = next(reader)
    except csv.Error as e:
        raise DataError(path, 1, None, "not CSV: %s" % e) from None
    header = [h.strip() for h in header]
    if header[:3] != ["experiment", "point", "rep"]:
        raise DataError(path, 1, header[0] if header else None,
                        "wrong header: it must start with experiment,point,rep "
                        "(found %s)" % ",".join(header[:3]))
    seen = set()
    for h in header:
        if h in seen:
            raise DataError(path, 1, h, "wrong header: column appears twice")
        seen.add(h)
    for c in TIDY_COLUMNS:
        if c not in seen and c not in LATER_COLUMNS:
            raise DataError(path, 1, c, "wrong header: column missing "
                            "(expected experiment,point,rep + numaring-bench's "
                            "summary.csv columns)")
    missing_later = [c for c in LATER_COLUMNS if c in TIDY_COLUMNS and c not in seen]
    rows = TidyRows(path, header + missing_later)
    first_line = {}
    ncols = len(header)
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            break
        except csv.Error as e:
            raise DataError(path, reader.line_num, None, "not CSV: %s" % e) from None
        line = reader.line_num
        if not fields or (len(fields) == 1 and not fields[0].strip()):
            continue  # a blank line
        if len(fields) < ncols:
            last = line == len(text.splitlines())
            why = "the row ends after %d of %d fields" % (len(fields), ncols)
            if last and ends_mid_line:
                why += " and the file ends mid-line: truncated file?"
            raise DataError(path, line, header[len(fields)], why)
        if len(fields) > ncols:
            raise DataError(path, line, None, "the row has %d fields, the header %d"
                            % (len(fields), ncols))
        row = dict(zip(header, fields))
        for c in missing_later:  # written by an older harness: empty
            row[c] = ""
        for c in REQUIRED_VALUES:
            if not row[c].strip():
                raise DataError(path, line, c, "empty, but every row needs a value")
        for c in header:
            v = row[c].strip()
            if c in NUMERIC_COLUMNS and v:
                try:
                    _parse_number(v, c)
                except ValueError as e:
                    raise DataError(path, line, c, str(e)) from None
        if int(float(row["rep"])) < 1:
            raise DataError(path, line, "rep", "%r: repetitions count from 1" % row["rep"])
        if row.get("role", "").strip() not in ("", "point", "reference"):
            raise DataError(path, line, "role", "%r: expected point or reference"
                            % row["role"])
        if row.get("oversubscribed", "").strip() not in ("", "0", "1"):
            raise DataError(path, line, "oversubscribed", "%r: expected 0, 1 or nothing"
                            % row["oversubscribed"])
        if experiment is not None and row["experiment"] != experiment:
            raise DataError(path, line, "experiment", "%r, but the file is experiment %r"
                            % (row["experiment"], experiment))
        key = (row["experiment"], row.get("profile", ""), row["point"], int(float(row["rep"])))
        if key in first_line:
            raise DataError(path, line, "rep", "point %r rep %d appears twice (also line %d)"
                            % (row["point"], key[3], first_line[key]))
        first_line[key] = line
        if role is not None and (role == "reference") != is_reference(row):
            continue
        rows.append(row)
        rows.lines.append(line)
    return rows


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
    for cands in ([t for t in per_core if usable is None or usable(by_t[t])], per_core, ts):
        if cands:
            return cands[-1]
    return ts[-1]


def by_rep(rows, value="throughput_ops_per_s"):
    """{rep: value} over rows (the median where one rep appears in several rows);
    rows with no value are left out."""
    get = _getter(value)
    groups = {}
    for r in rows:
        v = get(r)
        if v is None or v == "":
            continue
        groups.setdefault(int(float(r["rep"])), []).append(float(v))
    return {k: statistics.median(v) for k, v in sorted(groups.items())}


def paired_ratios(a_rows, b_rows, value="throughput_ops_per_s", fn=None):
    """[fn(a_k, b_k)] for every repetition k that both groups of rows have (the
    same rep index: run in the same round of the sweep, close in time); fn
    defaults to a_k / b_k.  Pairs with b_k == 0 are left out."""
    a, b = by_rep(a_rows, value), by_rep(b_rows, value)
    fn = fn or (lambda x, y: x / y)
    return [fn(a[k], b[k]) for k in sorted(set(a) & set(b)) if b[k] != 0]


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
            if c == "one_over_one_minus_percentile" and v == "inf":
                vals.append(math.inf)
                continue
            try:
                x = float(v)
            except ValueError:
                raise DataError(path, line, c, "%r is not a number" % v) from None
            if not math.isfinite(x):
                raise DataError(path, line, c, "%r is not a finite number" % v)
            vals.append(x)
        if not 0.0 <= vals[1] <= 1.0:
            raise DataError(path, line, "percentile", "%r is not a fraction 0..1" % fields[1])
        out.append((vals[0], vals[1], vals[2]))
    return out


def load_probe_csv(path):
    """Read the host probe's probe.csv; return a list of dicts of strings."""
    text = _read_text(path)
    if not text.strip():
        raise DataError(path, None, None, "empty file (no header line)")
    reader = csv.DictReader(text.splitlines(keepends=True))
    need = ["kind", "value", "unit", "method"]
    for c in need:
        if c not in (reader.fieldnames or []):
            raise DataError(path, 1, c, "wrong header: column missing")
    return list(reader)


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


def aggregate(rows, keys, value):
    """Median, min, max and count of ``value`` over rows grouped by ``keys``.

    ``keys`` is a sequence of column names (numeric columns give numbers),
    derived names ("threads") or callables of a row; ``value`` the same for
    the value.  Rows whose value is empty or None are left out (latency of
    ``faa``).  Returns {key tuple: (median, min, max, n)}, keys in sorted
    order where they compare.
    """
    if isinstance(keys, str):
        keys = (keys,)
    kget = [_getter(k) for k in keys]
    vget = _getter(value)
    groups = {}
    for r in rows:
        v = vget(r)
        if v is None or v == "":
            continue
        k = tuple(g(r) for g in kget)
        groups.setdefault(k, []).append(float(v))
    out = {}
    try:
        order = sorted(groups)
    except TypeError:
        order = list(groups)
    for k in order:
        vs = groups[k]
        out[k] = (statistics.median(vs), min(vs), max(vs), len(vs))
    return out


def run_dir(results_dir, host, row):
    """The folder of a tidy row's run: <experiment>/<profile>/<point>/rep-<k> where
    the row has a profile column and that folder exists, else
    <experiment>/<point>/rep-<k>."""
    rep = "rep-%d" % int(float(row["rep"]))
    base = os.path.join(results_dir, host, row["experiment"])
    prof = row.get("profile", "").strip()
    if prof:
        d = os.path.join(base, prof, row["point"], rep)
        if os.path.isdir(d):
            return d
    return os.path.join(base, row["point"], rep)


def latency_path(results_dir, host, row):
    """Where the latency.csv of a tidy row's run lies (see run_dir)."""
    return os.path.join(run_dir(results_dir, host, row), "latency.csv")


def list_hosts(results_dir):
    """Host ids under results_dir: folders holding a CSV, probe/ or env/."""
    hosts = []
    try:
        names = sorted(os.listdir(results_dir))
    except OSError:
        return hosts
    for h in names:
        d = os.path.join(results_dir, h)
        if not os.path.isdir(d) or h.startswith("."):
            continue
        if (glob.glob(os.path.join(d, "*.csv")) or os.path.isdir(os.path.join(d, "probe"))
                or os.path.isdir(os.path.join(d, "env"))):
            hosts.append(h)
    return hosts


def _read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _read_lscpu(path):
    """{field: value} of an lscpu listing ("Thread(s) per core:   2"); {} if unreadable."""
    out = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                k, sep, v = line.partition(":")
                if sep:
                    out[k.strip()] = v.strip()
    except OSError:
        pass
    return out


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
        if info["cores"] is None:
            info["cores"] = _positive_int(src.get("cores"))
        if info["threads_per_core"] is None:
            info["threads_per_core"] = _positive_int(src.get("threads_per_core"))
        if info["ncpus"] is None and isinstance(src.get("nodes"), list):
            info["ncpus"] = sum(n.get("ncpus", 0) for n in src["nodes"]
                                if isinstance(n, dict)) or None
        virt = src.get("virtualization")
        if info["hypervisor"] is None and isinstance(virt, dict):
            info["hypervisor"] = VIRT_NAMES.get(virt.get("kind"))
    tpc = _positive_int(ls.get("Thread(s) per core"))
    sockets = _positive_int(ls.get("Socket(s)"))
    per_socket = _positive_int(ls.get("Core(s) per socket"))
    if info["threads_per_core"] is None:
        info["threads_per_core"] = tpc
    if info["cores"] is None and per_socket and sockets:
        info["cores"] = per_socket * sockets
    info["sockets"] = sockets
    if info["ncpus"] is None:
        info["ncpus"] = _positive_int(ls.get("CPU(s)"))
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
        info["cpu_model"] = topo.get("cpu_model") or info["cpu_model"]
        info["kernel"] = topo.get("kernel") or info["kernel"]
        info["cpus"] = topo.get("allowed_cpus")
        info["topology"] = topo.get("topology") or info["topology"]
        info["guest"] = guest_note(topo.get("virtualization"))
        if isinstance(topo.get("nodes"), list):
            info["nodes"] = len(topo["nodes"])
        if topo.get("host"):
            info["host_name"] = topo["host"]
    if (info["cpu_model"] == "unknown CPU" or info["topology"] == "unknown"
            or not (isinstance(topo, dict) and topo.get("cores"))):
        metas = sorted(glob.glob(os.path.join(d, "*", "*", "rep-*", "meta.json")) +
                       glob.glob(os.path.join(d, "*", "*", "*", "rep-*", "meta.json")))
        for m in metas[:20]:
            meta = _read_json(m)
            if not isinstance(meta, dict):
                continue
            info["sources"].append(m)
            if info["cpu_model"] == "unknown CPU" and meta.get("cpu_model"):
                info["cpu_model"] = meta["cpu_model"]
            if info["kernel"] == "unknown" and meta.get("kernel"):
                info["kernel"] = meta["kernel"]
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
    p = os.path.join(d, "probe", "probe.csv")
    if os.path.isfile(p):
        info["probe"] = p
    r = os.path.join(d, "README.md")
    if os.path.isfile(r):
        info["readme"] = r
    return info
