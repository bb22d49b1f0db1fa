# SPDX-License-Identifier: BSD-2-Clause
"""benchresult.py - the side benchmarks' measurements as results (make bench-peers,
bench-fidelity, bench-placement, bench-oversub).

Each side benchmark prints its table and ALSO writes what it measured:

    results/<host>/bench/<name>.csv        one row per measured run
    results/<host>/bench/<name>.meta.json  how it was measured
    results/<host>/env/                    the environment, captured once

<name> is one of bench-peers, bench-fidelity, bench-placement, bench-oversub.
<host> is the folder scripts/runner/hostid.py chooses: the host key of this machine,
or ``<key>-r2`` (``-r3``, ...) where the key's folder holds results this
working tree did not start (committed results carry no marker: they are never
written). ``--results DIR`` replaces the repository's results/ folder,
``--no-save`` prints only.

**CSV contract.** Every file starts with the columns ``bench,round``: bench is
<name> on every row, round the interleaved round the run belongs to (1, 2, ...;
runs of one round ran seconds apart, so a ratio of two of them is a paired
ratio; bench-oversub has a single round, 1). Then the configuration columns,
then the measured values (COLUMNS below, in order):

    bench-peers      bench,round,queue,shape,bursts,item,where,accounting,
                     duration_s,throughput_ops_per_s,full_retries_per_burst
        queue    numaring flat ck rte moodycamel urcu mutex faa
        shape    <producers>x<consumers>, e.g. 1x1
        bursts   0 single operations, 1 bursts (the size: options.burst in meta)
        item     inline | message (empty where=bare: the bare loop only counts)
        where    harness (numaring-bench) | bare (harness/fidelity/bare_loop.c)
        accounting  numaring-bench --accounting (empty where=bare)
        duration_s  measured seconds of the run
        throughput_ops_per_s  items per second
        full_retries_per_burst  producers' retries on a full queue per enqueue
                 operation (per burst with bursts=1, per item with bursts=0);
                 empty where=bare (not counted there)
    bench-fidelity   bench,round,queue,config,bursts,item,where,stripped,
                     throughput_ops_per_s,c2c_one_way_before_ns,
                     c2c_one_way_after_ns,placement_reruns
        queue flat numaring rte; config 1p1c | pairs | pairs1 | 2p2c
        (bench_fidelity.CONFIGS; pairs1, one thread, is a diagnostic:
        scripts/common/benches.py, judged by no claim); bursts 0/1 (size: options.burst); item
        inline | message, for the bare loop too; where harness | bare;
        stripped empty for the plain harness and the bare loop, else the
        harness's cost a diagnostic run removed (bench_fidelity.STRIPS:
        sampling, publish, window, accounting, all). A file written before
        a column existed loads with it None: config (then 1p1c), stripped,
        the trips and placement_reruns; such a file's bare rows have no
        item (inline). c2c_one_way_before_ns and _after_ns: the run's first
        two CPUs' line trip just before and after it (empty: not timed);
        placement_reruns: how many times the round's pair of this
        configuration ran again because one of its runs found its CPUs far
        apart and the other did not (bench_fidelity.Placements)
    bench-placement  bench,round,cells_at,throughput_ops_per_s
        cells_at: bytes past a page boundary where the flat ring's cells start
    bench-oversub    bench,round,lookup,gate,backoff,items_per_s,finished,
                     ratio_to_perworker
        finished 1 if every item arrived before the time limit (else the rate
        counts what did); ratio_to_perworker: items_per_s / that of the
        per-worker gate with the same lookup and backoff (1 on its own row)
    bench-backoff    bench,round,cell,backoff,pause_spin,throughput_ops_per_s,
                     failed_attempts,backoff_ns_race
        cell bench_backoff.CELLS (pairs-w0 ... prodcons-w300); backoff the
        variant (pause<N> where several PAUSE lengths ran); pause_spin empty
        but for PAUSE; failed_attempts and backoff_ns_race numaring's counters

Empty cells are None when loaded. **meta.json** holds: bench, git_commit
(``<sha>`` + ``-dirty`` where ring/, harness/ or scripts/ differ from it,
``unknown`` without git), git_dirty_paths, command_line (argv, shell-quoted)
and argv, started_utc and ended_utc, host_key (this machine's) and
results_folder (the folder written: the key or ``<key>-r<N>``),
folders_left_alone, options (the script's options), cpu_model, cpus_allowed,
columns, rows; bench-oversub adds inner_command.

**Loading** (a claims module): ``load(path)`` returns the rows of a bench CSV
as dicts with typed values (checking the header against COLUMNS),
``csv_path(hostdir, name)`` / ``meta_path`` / ``load_meta`` find and read the
files, and ``paired_ratios(rows, value, num, den)`` gives the per-round ratios
of two configurations.

Writes go through write_whole (a temporary file + os.replace): a file is whole or absent.

As a program it wraps bench_oversub (a C program):

    python3 -m scripts.runner.benchresult oversub [--bin build/bench/bench_oversub]
        [--bench build/numaring-bench] [--quick] [--items N] [--seconds S]
        [--lookup MODE] [--backoff MODE] [--results DIR] [--no-save]

runs it with --csv into a temporary file (its table on stdout as before) and
saves that as results/<host>/bench/bench-oversub.csv + meta. Exit status: the
program's where it failed, 2 for bad options or results folder, else 0.
"""

import argparse
import datetime
import json
import os
import shlex
import subprocess
import sys
import tempfile

from . import hostenv, hostid
from .runio import write_whole
from ..common.tidy import read_lists

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_RESULTS = os.path.join(ROOT, "results")

#: the columns of each bench CSV, in order, with the type a value loads as
COLUMNS = {
    "bench-peers": (("bench", str), ("round", int), ("queue", str), ("shape", str),
                    ("bursts", int), ("item", str), ("where", str), ("accounting", str),
                    ("duration_s", float), ("throughput_ops_per_s", float),
                    ("full_retries_per_burst", float)),
    "bench-fidelity": (("bench", str), ("round", int), ("queue", str), ("config", str),
                       ("bursts", int), ("item", str), ("where", str), ("stripped", str),
                       ("throughput_ops_per_s", float), ("c2c_one_way_before_ns", float),
                       ("c2c_one_way_after_ns", float), ("placement_reruns", int)),
    "bench-placement": (("bench", str), ("round", int), ("cells_at", int),
                        ("throughput_ops_per_s", float)),
    "bench-oversub": (("bench", str), ("round", int), ("lookup", str), ("gate", str),
                      ("backoff", str), ("items_per_s", float), ("finished", int),
                      ("ratio_to_perworker", float)),
    "bench-backoff": (("bench", str), ("round", int), ("cell", str), ("backoff", str),
                      ("pause_spin", int), ("throughput_ops_per_s", float),
                      ("failed_attempts", int), ("backoff_ns_race", int)),
}
HEADERS = {name: [c for c, _ in cols] for name, cols in COLUMNS.items()}

#: columns added after files were committed: an older file without them loads
#: with them None
LATER = {"bench-fidelity": ("config", "stripped", "c2c_one_way_before_ns",
                            "c2c_one_way_after_ns", "placement_reruns")}

#: what bench_oversub --csv writes (the CSV's columns after bench,round)
OVERSUB_C_HEADER = HEADERS["bench-oversub"][2:]

DIRTY_PATHS = ("ring", "harness", "scripts")


class BadResult(ValueError):
    """A bench CSV that does not follow the contract."""


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def fail(prog, msg, code=2):
    print(f"{prog}: {msg}", file=sys.stderr)
    sys.exit(code)


#: what the bare loop says when its window saw no item at all: on a machine
#: whose CPUs were taken for the whole window (a hypervisor's steal, a load
#: several times the CPUs) as much as a broken queue; run once more
STALLED = "no item went through"


def bare_rate(prog, cmd):
    """items/s of one run of the bare loop (harness/fidelity/bare_loop.c: its
    last line is queue,burst,items_per_s); exit 1 with one message where it
    failed or printed anything else. A window that saw no item is run once
    more, saying so (STALLED): twice is a failure."""
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0 and STALLED in r.stderr:
        print(f"{prog}: {' '.join(cmd)}: {r.stderr.strip()}; once more (a stalled machine "
              "moves nothing either)", file=sys.stderr, flush=True)
        r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(prog, f"{' '.join(cmd)} failed: {r.stderr.strip()}", 1)
    try:
        _queue, _burst, v = r.stdout.strip().splitlines()[-1].split(",")
        return float(v)
    except (ValueError, IndexError):
        fail(prog, f"{' '.join(cmd)} printed {r.stdout.strip()!r}, not queue,burst,items_per_s", 1)


# ---- paths and loading (for a claims module) --------------------------------

def csv_path(hostdir, name):
    """results/<host>/bench/<name>.csv"""
    return os.path.join(hostdir, "bench", f"{name}.csv")


def meta_path(hostdir, name):
    """results/<host>/bench/<name>.meta.json"""
    return os.path.join(hostdir, "bench", f"{name}.meta.json")


def load_meta(path):
    """A meta.json as a dict."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _typed(conv, text, path, lineno, col):
    if text == "":
        return None
    try:
        return conv(text)
    except ValueError:
        raise BadResult(f"{path}:{lineno}: {col} = {text!r} is not {conv.__name__}") from None


def load(path):
    """The rows of a bench CSV as dicts, values typed as COLUMNS says (empty
    cells None). The name comes from the file's first column; the header must
    be that bench's. Raises BadResult (a ValueError) or OSError."""
    table = read_lists(path)
    header, rows = (table[0], table[1:]) if table else (None, [])
    if not header or header[:2] != ["bench", "round"]:
        raise BadResult(f"{path}: header {header!r} does not start with bench,round")
    names = {row[0] for row in rows if row}
    if len(names) > 1:
        raise BadResult(f"{path}: rows of several benches: {', '.join(sorted(names))}")
    name = names.pop() if names else os.path.basename(path).removesuffix(".csv")
    if name not in COLUMNS:
        raise BadResult(f"{path}: unknown bench {name!r} (known: {', '.join(COLUMNS)})")
    # the columns in order, where some of the later ones may be missing
    if header != [c for c in HEADERS[name] if c in header] or not set(HEADERS[name]).issubset(
            set(header) | set(LATER.get(name, ()))):
        raise BadResult(f"{path}: header {','.join(header)} is not {name}'s "
                        f"({','.join(HEADERS[name])})")
    cols = [(c, conv) for c, conv in COLUMNS[name] if c in header]
    out = []
    for i, row in enumerate(rows, start=2):
        if len(row) != len(header):
            raise BadResult(f"{path}:{i}: {len(row)} cells, {len(header)} columns")
        typed = {c: _typed(conv, v, path, i, c) for (c, conv), v in zip(cols, row)}
        out.append({c: typed.get(c) for c in HEADERS[name]})
    return out


def paired_ratios(rows, value, num, den):
    """[(round, num's value / den's value)] for every round in which exactly one
    row matches num and one matches den (dicts of column: value), den's value
    positive. A round with several rows matching either is an error (the
    filter does not name one configuration): BadResult."""
    def pick(rnd, want):
        m = [r for r in rows if r["round"] == rnd and all(r.get(k) == v for k, v in want.items())]
        if len(m) > 1:
            raise BadResult(f"round {rnd}: {len(m)} rows match {want}")
        return m[0] if m else None
    out = []
    for rnd in sorted({r["round"] for r in rows}):
        a, b = pick(rnd, num), pick(rnd, den)
        if a and b and a[value] is not None and b[value] is not None and b[value] > 0:
            out.append((rnd, a[value] / b[value]))
    return out


# ---- writing ---------------------------------------------------------------

def _cell(v):
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.0f}" if abs(v) >= 1000 else f"{v:.6g}"
    return str(v)


def csv_text(name, rows):
    """rows (dicts with every column of name, nothing else) as CSV text."""
    header = HEADERS[name]
    buf = [",".join(header)]
    for row in rows:
        if set(row) != set(header):
            raise ValueError(f"{name}: row columns {sorted(row)} are not {header}")
        cells = [_cell(row[c]) for c in header]
        if any(("," in c or '"' in c or "\n" in c) for c in cells):
            raise ValueError(f"{name}: a cell holds a comma, quote or newline: {cells}")
        buf.append(",".join(cells))
    return "\n".join(buf) + "\n"


def git_commit():
    """(commit, dirty paths): '<sha>[-dirty]' where ring/, harness/ or scripts/
    differ from HEAD; 'unknown' without git."""
    try:
        sha = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=30)
        if sha.returncode != 0 or not sha.stdout.strip():
            return "unknown", []
        diff = subprocess.run(["git", "-C", ROOT, "diff", "--name-only", "HEAD", "--",
                               *DIRTY_PATHS], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown", []
    dirty = diff.stdout.split() if diff.returncode == 0 else ["(git diff failed)"]
    return sha.stdout.strip() + ("-dirty" if dirty else ""), dirty


def show_topology(bench):
    """numaring-bench --show-topology's stdout, or None (with why) where it cannot run."""
    if not bench or not os.access(bench, os.X_OK):
        return None, f"{bench} is not built (make bench)"
    try:
        r = subprocess.run([bench, "--show-topology"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"{bench} --show-topology: {e}"
    if r.returncode != 0:
        return None, f"{bench} --show-topology failed: {r.stderr.strip()}"
    return r.stdout, None


class Result:
    """One benchmark's result being made: start() claims the folder, save() writes."""

    def __init__(self, name, prog, hostdir, key, skipped, options):
        self.name, self.prog, self.hostdir, self.key = name, prog, hostdir, key
        self.skipped, self.options = skipped, options
        self.started = utc_now()
        self.csv = csv_path(hostdir, name)
        self.meta = meta_path(hostdir, name)

    def save(self, rows, extra=None):
        """Write <name>.csv and <name>.meta.json (each whole); exit 1 with one
        message where they cannot be written."""
        commit, dirty = git_commit()
        meta = {"bench": self.name, "git_commit": commit, "git_dirty_paths": dirty,
                "command_line": shlex.join([sys.executable] + sys.argv), "argv": sys.argv,
                "started_utc": self.started, "ended_utc": utc_now(),
                "host_key": self.key, "results_folder": os.path.basename(self.hostdir),
                "folders_left_alone": sorted({os.path.basename(d) for d in self.skipped}),
                "options": self.options, "cpu_model": hostid.cpu_signature()["model_name"],
                "cpus_allowed": len(os.sched_getaffinity(0)),
                "columns": HEADERS[self.name], "rows": len(rows)}
        meta.update(extra or {})
        text = csv_text(self.name, rows)
        try:
            os.makedirs(os.path.dirname(self.csv), exist_ok=True)
            write_whole(self.csv, text)
            write_whole(self.meta, json.dumps(meta, indent=1, default=str) + "\n")
        except OSError as e:
            fail(self.prog, f"cannot write {e.filename or self.csv}: {e.strerror or e}", 1)

    def report(self):
        """The one line saying where the result went."""
        rel = os.path.relpath(self.csv)
        rel = self.csv if rel.startswith("..") else rel
        alone = ""
        if self.skipped:
            alone = (f"; {', '.join(sorted({os.path.basename(d) for d in self.skipped}))} "
                     "holds results this working tree did not start, left untouched")
        print(f"{self.prog}: result written to {rel} (+ {os.path.basename(self.meta)}){alone}",
              flush=True)


def add_arguments(ap, name):
    """--results DIR and --no-save, saying where bench `name` writes."""
    ap.add_argument("--results", metavar="DIR", default=DEFAULT_RESULTS,
                    help=f"results folder: every run goes to DIR/<host>/bench/{name}.csv "
                         f"(+ {name}.meta.json), the environment once to DIR/<host>/env/; "
                         "<host> is this machine's host key, or <key>-r2 where that folder "
                         "holds results this tree did not start (default: the repository's "
                         "results/)")
    ap.add_argument("--no-save", action="store_true",
                    help="print only, write no result")


def start(name, prog, a, bench):
    """Before measuring: choose results/<host>/ (hostid.claim: created, with its
    marker), capture env/ once (where `bench` can show the topology), and return
    a Result; None with --no-save. A bad --results, a malformed
    NUMARING_MACHINE_ID or no usable folder: one message, exit 2."""
    if a.no_save:
        return None
    results = a.results
    if os.path.lexists(results) and not os.path.isdir(results):
        fail(prog, f"--results {results}: not a folder")
    key = hostid.host_key()
    try:
        ident = hostid.machine_identity()
        fp = hostid.fingerprint(ident[0])
        dirs, skipped = hostid.claim(results, [key], fp)
    except (hostid.IdentityError, hostid.NoFolder) as e:
        fail(prog, str(e))
    except OSError as e:
        fail(prog, f"--results {results}: cannot create {e.filename or results}: "
                   f"{e.strerror or e}")
    hostdir = dirs[key]
    opts = {k: v for k, v in vars(a).items()}
    res = Result(name, prog, hostdir, key, skipped, opts)
    envdir = os.path.join(hostdir, "env")
    if not os.path.exists(os.path.join(envdir, "captured.txt")):
        show_json, why = show_topology(bench)
        if show_json is None:
            print(f"{prog}: note: environment not captured ({why}); a later run "
                  "captures it", file=sys.stderr)
        else:
            try:
                hostenv.capture_env(envdir, bench, None, show_json, False, ident)
            except OSError as e:
                fail(prog, f"cannot write {e.filename or envdir}: {e.strerror or e}", 1)
    try:
        os.makedirs(os.path.dirname(res.csv), exist_ok=True)
    except OSError as e:
        fail(prog, f"cannot create {os.path.dirname(res.csv)}: {e.strerror or e}")
    return res


# ---- bench_oversub's wrapper -----------------------------------------------

def oversub_parser(sub):
    """The oversub command's options, a parser of ``sub`` (add_subparsers)."""
    what = ("run bench_oversub and save its table as results/<host>/bench/"
            "bench-oversub.csv + .meta.json (and env/ once)")
    ap = sub.add_parser("oversub", help=what, description=what)
    ap.add_argument("--bin", default="build/bench/bench_oversub", help="bench_oversub to run")
    ap.add_argument("--bench", default="build/numaring-bench",
                    help="numaring-bench, for the environment's --show-topology")
    ap.add_argument("--quick", action="store_true",
                    help="bench_oversub --quick: 50000 items per producer, at most 2 s per "
                    "combination, every combination still run (make experiments runs it so "
                    "in every profile that runs it: scripts/runner/side.py)")
    ap.add_argument("--items", help="items per producer (bench_oversub --items)")
    ap.add_argument("--seconds", help="time limit per combination (bench_oversub --seconds)")
    ap.add_argument("--lookup", help="only this lookup mode")
    ap.add_argument("--backoff", help="only this backoff mode")
    add_arguments(ap, "bench-oversub")


def oversub(a):
    """bench_oversub with the options ``a`` (oversub_parser's)."""
    prog = "bench-oversub"
    if not os.access(a.bin, os.X_OK):
        fail(prog, f"{a.bin} is not built (make {a.bin})")
    cmd = [a.bin] + (["--quick"] if a.quick else [])
    for opt in ("items", "seconds", "lookup", "backoff"):
        if getattr(a, opt) is not None:
            cmd += [f"--{opt}", getattr(a, opt)]
    if a.no_save:
        sys.exit(subprocess.run(cmd).returncode)
    res = start("bench-oversub", prog, a, a.bench)
    with tempfile.TemporaryDirectory(prefix="bench_oversub.") as tmp:
        out = os.path.join(tmp, "oversub.csv")
        sys.stdout.flush()
        rc = subprocess.run(cmd + ["--csv", out]).returncode
        if rc != 0:
            sys.exit(rc)
        try:
            table = read_lists(out)
        except OSError as e:
            fail(prog, f"{a.bin} wrote no CSV: {e}", 1)
    if not table or table[0] != OVERSUB_C_HEADER:
        fail(prog, f"{a.bin} --csv wrote the header {table[0] if table else 'nothing'}, "
                   f"expected {','.join(OVERSUB_C_HEADER)}", 1)
    rows = []
    for cells in table[1:]:
        if len(cells) != len(OVERSUB_C_HEADER):
            fail(prog, f"{a.bin} --csv wrote a row of {len(cells)} cells: {cells}", 1)
        rows.append(dict(bench="bench-oversub", round=1, **dict(zip(OVERSUB_C_HEADER, cells))))
    res.save(rows, {"inner_command": shlex.join(cmd + ["--csv", "<temporary>"])})
    res.report()


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python3 -m scripts.runner.benchresult",
        description="Run a side benchmark and save its table as results (the module's "
                    "docstring: the contract).",
        epilog="python3 -m scripts.runner.benchresult oversub --help: its options")
    # no dest: the namespace is the command's options alone (meta.json's)
    oversub_parser(ap.add_subparsers(metavar="COMMAND", required=True))
    oversub(ap.parse_args(argv))


if __name__ == "__main__":
    main()
