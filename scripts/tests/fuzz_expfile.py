# SPDX-License-Identifier: BSD-2-Clause
"""fuzz_expfile.py - a mutation fuzzer for the experiment-file parser
(scripts/common/expfile.py), standard library only (Debian has no libFuzzer for
Python).

    python3 -m scripts.tests.fuzz_expfile --seconds 60 --corpus experiments/fuzz-corpus
        --corpus experiments
    python3 -m scripts.tests.fuzz_expfile --regress experiments/fuzz-corpus experiments/fuzz-regressions

Each execution hands a text to expfile.parse(path, text) and, when it is
accepted, expands it with expfile.points() for both profiles and a few
machine shapes. expfile.ExpError is the parser's way of saying no; anything
else is a finding:

  - any other exception (KeyError, IndexError, TypeError, RecursionError...);
  - an execution that takes longer than --timeout seconds (a hang);
  - a broken invariant of an accepted file (AssertionError): the sweep is not
    empty, every point has at least one producer and one consumer, point ids
    are distinct and safe as one path component (the runner makes a folder
    of each), no two points run the same options, Point.args() is a list of
    strings, reps is 1..1000.

A finding prints the input, saves it to CRASH_DIR/crash-SHA1 and exits 1.

--regress runs each input once. A regression file whose name contains
".accept." must also be accepted by expfile.parse, one whose name contains
".reject." must be refused (ExpError): that is how a finding that raises
nothing (a file wrongly accepted or refused) is kept as a test. FILE.path
beside an input, if present, is the path handed to parse() (crash files
get one); otherwise "fuzz/NAME.exp" from its name= line.

Mutations: byte/character edits (insert, delete, replace, flip, repeat),
line edits (duplicate, delete, swap, move to another section), value and key
replacement from a dictionary built from expfile's own tables (section
names, keys, choices, thread words), interesting numbers, list surgery
("a, b, ..., c"), and splicing of two corpus entries. Guidance: the set of
line-to-line transitions executed inside expfile.py (sys.settrace, limited to
that file) plus the shape of the outcome (the error message with numbers and
quoted text removed); an input that adds either joins the in-memory corpus.
The committed corpus is never written to.

At the end it prints, as libFuzzer does, "Done N runs in M second(s)".
Exit status: 0 no finding, 1 a finding, 2 bad usage.
"""

import argparse
import hashlib
import os
import random
import re
import signal
import sys
import time
import traceback

from ..common import expfile


ENC = ("utf-8", "surrogateescape")
MAX_LEN = 8192
MAX_CORPUS = 4096

# ---- the dictionary ---------------------------------------------------------

KEYS = sorted(set(expfile.SWEEP_KEYS) | set(expfile.PROFILE_ONLY) | set(expfile.EXPERIMENT_KEYS)
              | {"threads"})
CHOICES = (expfile.QUEUES + expfile.LOOKUPS + expfile.GATES + expfile.BACKOFFS + expfile.PINS
           + expfile.SMTS + expfile.FINDINGS + expfile.THREAD_WORDS + ("...", "yes", "no"))
NUMBERS = ("0", "1", "2", "3", "4", "7", "8", "16", "31", "32", "64", "1000", "1001", "1024",
           "4096", "4097", "65536", str(1 << 30), str((1 << 30) + 1), str(1 << 31),
           str(1 << 48), str((1 << 48) + 1), str(1 << 63), str(1 << 64), "9" * 40,
           "-1", "-0", "+1", "0.0", "0.5", "1.5", "1e3", "1e400", "-1e400", "nan", "inf",
           "-inf", "Infinity", "1_000", "0x10", "0b1", "01", "00", ".5", "5.", "1e-400",
           "86400", "86400.0001", "3600", "1e12", "1e12.1",
           "\u0661", "\uff11", "\u00b2", "\u2155")
SPECIAL = ("=", ",", ", ", "#", "[", "]", "[]", "\n", "\r\n", "\r", "\t", " ", "\x00",
           "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\ufeff",
           "\u00a0", "\u3000", "\u200b", "\\", "'", '"', "\udcff", "\udc80", "...", "..",
           " , ", ",,", "==", "=#", "#=")
SECTION_LINES = tuple(f"[{s}]" for s in expfile.SECTIONS) + (
    "[]", "[Sweep]", "[sweep", "sweep]", "[ sweep ]", "[sweep] x", "[[sweep]]", "[x-y_z]",
    "[sweep]#c")
TOKENS = tuple(KEYS) + CHOICES + NUMBERS + SPECIAL + SECTION_LINES


def random_value(rng):
    k = rng.random()
    if k < 0.4:
        return rng.choice(CHOICES)
    if k < 0.8:
        return rng.choice(NUMBERS)
    n = rng.randint(1, 5)
    return ", ".join(rng.choice(CHOICES + NUMBERS) for _ in range(n))


def random_line(rng):
    k = rng.random()
    if k < 0.15:
        return rng.choice(SECTION_LINES)
    key = rng.choice(KEYS) if k < 0.95 else rng.choice(TOKENS)
    if key == "threads":
        vals = [rng.choice(("2", "4", "8", "3", "all", "half", "per-node", "...", "1", "4096",
                            "4097", "16"))
                for _ in range(rng.randint(1, 6))]
        return f"threads = {', '.join(vals)}"
    return f"{key} = {random_value(rng)}"


# ---- mutations ----------------------------------------------------------------

def m_insert_token(s, rng, corpus):
    i = rng.randint(0, len(s))
    return s[:i] + rng.choice(TOKENS) + s[i:]


def m_delete(s, rng, corpus):
    if not s:
        return s
    i = rng.randrange(len(s))
    j = min(len(s), i + rng.choice((1, 1, 2, 4, 8, 32)))
    return s[:i] + s[j:]


def m_replace_char(s, rng, corpus):
    if not s:
        return rng.choice(TOKENS)
    i = rng.randrange(len(s))
    c = rng.choice((chr(rng.randrange(32, 127)), rng.choice(SPECIAL)[:1] or " ",
                    chr(rng.randrange(0, 0x3000))))
    if 0xD800 <= ord(c) <= 0xDFFF:
        c = "?"
    return s[:i] + c + s[i + 1:]


def m_flip_byte(s, rng, corpus):
    b = bytearray(s.encode(*ENC))
    if not b:
        return s
    i = rng.randrange(len(b))
    b[i] ^= 1 << rng.randrange(8)
    return bytes(b).decode(*ENC)


def m_repeat(s, rng, corpus):
    if not s:
        return s
    i = rng.randrange(len(s))
    j = min(len(s), i + rng.randint(1, 16))
    return s[:j] + s[i:j] * rng.randint(1, 8) + s[j:]


def _lines(s):
    return s.split("\n")


def m_dup_line(s, rng, corpus):
    ls = _lines(s)
    i = rng.randrange(len(ls))
    ls.insert(rng.randint(0, len(ls)), ls[i])
    return "\n".join(ls)


def m_del_line(s, rng, corpus):
    ls = _lines(s)
    if len(ls) > 1:
        del ls[rng.randrange(len(ls))]
    return "\n".join(ls)


def m_swap_lines(s, rng, corpus):
    ls = _lines(s)
    i, j = rng.randrange(len(ls)), rng.randrange(len(ls))
    ls[i], ls[j] = ls[j], ls[i]
    return "\n".join(ls)


def m_insert_line(s, rng, corpus):
    ls = _lines(s)
    ls.insert(rng.randint(0, len(ls)), random_line(rng))
    return "\n".join(ls)


def m_move_to_section(s, rng, corpus):
    """Put a key line (new or existing) under a chosen section."""
    ls = _lines(s)
    keyed = [i for i, l in enumerate(ls) if "=" in l]
    line = ls.pop(rng.choice(keyed)) if keyed and rng.random() < 0.5 else random_line(rng)
    sec = f"[{rng.choice(expfile.SECTIONS)}]"
    where = [i for i, l in enumerate(ls) if l.strip() == sec]
    if where:
        ls.insert(where[0] + 1, line)
    else:
        ls += [sec, line]
    return "\n".join(ls)


def m_replace_value(s, rng, corpus):
    ls = _lines(s)
    keyed = [i for i, l in enumerate(ls) if "=" in l]
    if not keyed:
        return m_insert_line(s, rng, corpus)
    i = rng.choice(keyed)
    key = ls[i].split("=", 1)[0]
    ls[i] = f"{key}= {random_value(rng)}"
    return "\n".join(ls)


def m_replace_key(s, rng, corpus):
    ls = _lines(s)
    keyed = [i for i, l in enumerate(ls) if "=" in l]
    if not keyed:
        return m_insert_line(s, rng, corpus)
    i = rng.choice(keyed)
    ls[i] = f"{rng.choice(KEYS)} ={ls[i].split('=', 1)[1]}"
    return "\n".join(ls)


def m_list_surgery(s, rng, corpus):
    """Add, drop or reorder items of a comma list."""
    ls = _lines(s)
    keyed = [i for i, l in enumerate(ls) if "=" in l]
    if not keyed:
        return m_insert_line(s, rng, corpus)
    i = rng.choice(keyed)
    key, value = ls[i].split("=", 1)
    value, _, comment = value.partition("#")
    items = [v.strip() for v in value.split(",")]
    k = rng.random()
    if k < 0.4:
        items.insert(rng.randint(0, len(items)),
                     rng.choice(("...",) + CHOICES + NUMBERS) if rng.random() < 0.7
                     else rng.choice(items))
    elif k < 0.6 and len(items) > 1:
        del items[rng.randrange(len(items))]
    elif k < 0.8:
        rng.shuffle(items)
    else:
        items.append("")
    ls[i] = f"{key}= {', '.join(items)}" + (f" #{comment}" if comment else "")
    return "\n".join(ls)


def m_number(s, rng, corpus):
    spans = [m.span() for m in re.finditer(r"[0-9]+(?:\.[0-9]*)?", s)]
    if not spans:
        return m_insert_token(s, rng, corpus)
    a, b = rng.choice(spans)
    if rng.random() < 0.5:
        new = rng.choice(NUMBERS)
    else:
        try:
            v = int(s[a:b].split(".")[0])
        except ValueError:
            v = 1
        new = str(rng.choice((v + 1, v - 1, v * 2, v // 2, v * 1024, -v, v ** 2)))
    return s[:a] + new + s[b:]


def m_splice(s, rng, corpus):
    other = rng.choice(corpus)
    a, b = _lines(s), _lines(other)
    i, j = rng.randint(0, len(a)), rng.randint(0, len(b))
    return "\n".join(a[:i] + b[j:])


def m_cross_chars(s, rng, corpus):
    other = rng.choice(corpus)
    i, j = rng.randint(0, len(s)), rng.randint(0, len(other))
    return s[:i] + other[j:j + rng.randint(1, 64)] + s[i:]


def m_comment(s, rng, corpus):
    ls = _lines(s)
    i = rng.randrange(len(ls))
    ls[i] = ("# " + ls[i]) if rng.random() < 0.5 else (ls[i] + " # " + rng.choice(TOKENS))
    return "\n".join(ls)


def m_newlines(s, rng, corpus):
    """Swap line endings for the other separators str.splitlines() knows."""
    nl = rng.choice(("\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028",
                     "\u2029", "\n\n"))
    idx = [m.start() for m in re.finditer("\n", s)]
    if not idx:
        return s + nl
    i = rng.choice(idx)
    return s[:i] + nl + s[i + 1:]


MUTATORS = (m_insert_token, m_delete, m_replace_char, m_flip_byte, m_repeat, m_dup_line,
            m_del_line, m_swap_lines, m_insert_line, m_move_to_section, m_replace_value,
            m_replace_key, m_list_surgery, m_list_surgery, m_number, m_splice, m_cross_chars,
            m_comment, m_newlines, m_replace_value, m_move_to_section)


def mutate(s, rng, corpus):
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 4, 8))):
        s = rng.choice(MUTATORS)(s, rng, corpus)
    return s[:MAX_LEN]


# ---- one execution --------------------------------------------------------------

class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang("execution timed out")


with open(expfile.__file__, encoding="utf-8") as _f:
    VOCAB = frozenset(re.findall(r"[A-Za-z][A-Za-z_-]*", _f.read()))

MACHINES = ((2, 1), (1, 1), (0, 0), (4, 2), (32, 2), (96, 4), (256, 8), (3, 5))
SAFE_ID = re.compile(r"[A-Za-z0-9._=+-]+")


def pick_path(text, rng):
    m = re.search(r"^\s*name\s*=\s*([^#\n]*)", text, re.M)
    k = rng.random()
    if m and k < 0.8:
        return f"fuzz/{m.group(1).strip()}.exp"
    if k < 0.9:
        return "fuzz/input.exp"
    return "fuzz-input"  # no .exp: the name check is skipped


def check_points(exp, profile, ncpus, nodes):
    try:
        pts, reps = expfile.points(exp, profile, ncpus, nodes)
    except expfile.ExpError:
        return None
    assert isinstance(reps, int) and 1 <= reps <= 1000, f"[reps] {reps!r}"
    assert pts, "[no-points] an accepted experiment expands to no point"
    ids, opts = set(), set()
    for p in pts:
        assert SAFE_ID.fullmatch(p.id) and p.id not in (".", ".."), f"[unsafe-id] {p.id!r}"
        assert p.id not in ids, (f"[same-id] two points share the id {p.id!r} "
                                 f"({profile}, {ncpus} CPUs, {nodes} nodes)")
        ids.add(p.id)
        key = tuple(sorted(p.opts.items()))
        assert key not in opts, (f"[same-options] two points run the same options {dict(key)} "
                                 f"(point {p.id!r}; {profile}, {ncpus} CPUs, {nodes} nodes)")
        opts.add(key)
        args = p.args()
        assert isinstance(args, list) and all(isinstance(a, str) for a in args), "[args] not strings"
        for side in ("producers", "consumers"):
            if side in p.opts:
                assert int(p.opts[side]) >= 1, f"[no-{side}] {p.opts[side]} in point {p.id!r}"
    return len(pts)


def execute(text, path, machines):
    """Returns an outcome string (for guidance); raises on a finding."""
    try:
        exp = expfile.parse(path, text)
    except expfile.ExpError as e:
        # the message's shape: only the words expfile.py itself contains
        # (so an invented key or value does not make a new outcome)
        msg = str(e)
        msg = msg[len(path):] if msg.startswith(path) else msg
        words = re.findall(r"[A-Za-z][A-Za-z_-]+", re.sub(r"'[^']*'|\"[^\"]*\"", "", msg))
        return "E:" + " ".join(w for w in words if w in VOCAB)[:120]
    assert exp.sweep, "[empty-sweep] accepted with an empty sweep"
    assert exp.finding in expfile.FINDINGS, "[finding] unknown finding accepted"
    shape = []
    for profile in expfile.PROFILES:
        for ncpus, nodes in machines:
            n = check_points(exp, profile, ncpus, nodes)
            if (ncpus, nodes) == machines[0]:  # the fixed machine only: the
                # others are drawn at random and would make every run "new"
                shape.append("x" if n is None else str(min(n, 3)))
    return "A:" + "".join(shape)


# ---- coverage (edges inside expfile.py) ----------------------------------------

class Coverage:
    def __init__(self):
        self.target = os.path.abspath(expfile.__file__)
        if self.target.endswith(".pyc"):
            self.target = self.target[:-1]
        self.edges = set()
        self.cur = set()
        self.prev = 0

    def _local(self, frame, event, arg):
        if event == "line":
            ln = frame.f_lineno
            self.cur.add((self.prev, ln))
            self.prev = ln
        return self._local

    def _global(self, frame, event, arg):
        if frame.f_code.co_filename == self.target:
            self.prev = -frame.f_code.co_firstlineno
            return self._local
        return None

    def start(self):
        self.cur = set()
        sys.settrace(self._global)

    def stop(self):
        sys.settrace(None)
        new = self.cur - self.edges
        self.edges |= new
        return bool(new)


# ---- driver ---------------------------------------------------------------------

def read_inputs(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            for name in sorted(os.listdir(p)):
                f = os.path.join(p, name)
                if os.path.isfile(f) and not name.startswith("."):
                    out.append(f)
        elif os.path.isfile(p):
            out.append(p)
        else:
            print(f"fuzz_expfile: no such file or folder: {p}", file=sys.stderr)
            sys.exit(2)
    return out


def load(f):
    with open(f, "rb") as fh:
        return fh.read(MAX_LEN).decode(*ENC)


def report(text, path, exc_text, crash_dir, label):
    data = text.encode(*ENC)
    sha = hashlib.sha1(data).hexdigest()
    print(f"\n==== fuzz_expfile: FINDING ({label}) ====", file=sys.stderr)
    print(exc_text, file=sys.stderr, end="")
    print(f"path given to parse(): {path!r}", file=sys.stderr)
    print(f"input ({len(data)} bytes):\n{text!r}", file=sys.stderr)
    if crash_dir:
        os.makedirs(crash_dir, exist_ok=True)
        out = os.path.join(crash_dir, f"crash-{sha}")
        with open(out, "wb") as fh:
            fh.write(data)
        # the path matters (the name check): keep it beside the input
        with open(out + ".path", "w") as fh:
            fh.write(path + "\n")
        print(f"crash file: {out}", file=sys.stderr)
        # the same line libFuzzer prints, for scripts/fuzz.mk
        print(f"artifact_prefix='{crash_dir}/'; Test unit written to {out}", file=sys.stderr)


KNOWN = set()       # invariant tags (--known) that are counted, not fatal
KNOWN_SEEN = {}


def run_guarded(text, path, timeout, machines):
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        return execute(text, path, machines), None
    except expfile.ExpError:  # from points() outside check_points: cannot, but fine
        return "E", None
    except Hang:
        return None, ("hang", f"execution longer than {timeout} s\n")
    except AssertionError as e:
        tag = re.match(r"\[([a-z-]+)\]", str(e))
        if tag and tag.group(1) in KNOWN:
            KNOWN_SEEN[tag.group(1)] = KNOWN_SEEN.get(tag.group(1), 0) + 1
            return "K:" + tag.group(1), None
        return None, ("invariant", traceback.format_exc())
    except RecursionError:
        return None, ("exception", traceback.format_exc())
    except Exception:  # noqa: BLE001 - every other exception is the finding
        return None, ("exception", traceback.format_exc())
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def run_traced(text, path, timeout, machines, cov):
    """run_guarded under the coverage tracer; returns (outcome, finding, new edges).

    The tracer slows expfile.py several times over (a full seed such as
    peers.exp expands some 9,000 points per machine), so a traced run that
    passes the timeout is run again untraced: only an input that is slow on
    its own is a hang, not one the tracer made slow."""
    if not cov:
        out, finding = run_guarded(text, path, timeout, machines)
        return out, finding, False
    cov.start()
    out, finding = run_guarded(text, path, timeout, machines)
    new_edges = cov.stop()
    if finding and finding[0] == "hang":
        out, finding = run_guarded(text, path, timeout, machines)
    return out, finding, new_edges


def path_for_file(f):
    """The path a corpus/regression file is parsed under: FILE.path beside it
    if present (crash files), else the name= line (so valid seeds pass the
    name check), else the file's own name."""
    side = f + ".path"
    if os.path.isfile(side):
        with open(side) as fh:
            return fh.read().strip()
    m = re.search(r"^\s*name\s*=\s*([^#\n]*)", load(f), re.M)
    return f"fuzz/{m.group(1).strip()}.exp" if m else f


def regress(files, timeout, crash_dir):
    t0 = time.monotonic()
    bad = 0
    for f in files:
        if f.endswith(".path"):
            continue
        text = load(f)
        path = path_for_file(f)
        out, finding = run_guarded(text, path, timeout, MACHINES)
        base = os.path.basename(f)
        if not finding and ".accept." in base and not out.startswith("A:"):
            finding = ("expectation", f"{base} must be accepted by expfile.parse, "
                                      f"got {out!r}\n")
        if not finding and ".reject." in base and not out.startswith("E:"):
            finding = ("expectation", f"{base} must be refused by expfile.parse (ExpError), "
                                      f"got {out!r}\n")
        if finding:
            bad += 1
            print(f"fuzz_expfile: {f}: {finding[0]}", file=sys.stderr)
            report(text, path, finding[1], None, finding[0])
    n = len([f for f in files if not f.endswith(".path")])
    print(f"fuzz_expfile: regress: {n} inputs, {bad} finding(s)")
    print(f"Done {n} runs in {int(time.monotonic() - t0)} second(s)")
    return 1 if bad else 0


def fuzz(args):
    rng = random.Random(args.seed)
    files = [f for f in read_inputs(args.corpus) if not f.endswith(".path")]
    corpus = [load(f) for f in files] or [""]
    cov = None if args.no_coverage else Coverage()
    outcomes = set()
    # seeds first (they must pass: a failing seed is a finding too)
    for f, text in zip(files, corpus):
        path = path_for_file(f)
        out, finding, _ = run_traced(text, path, args.timeout, MACHINES, cov)
        if finding:
            report(text, path, finding[1], args.crash_dir, finding[0])
            return 1
        outcomes.add(out)
    t0 = time.monotonic()
    end = t0 + args.seconds
    runs, last = 0, t0
    while True:
        now = time.monotonic()
        if now >= end or (args.runs and runs >= args.runs):
            break
        if now - last >= 10:
            last = now
            print(f"#{runs}\tcorpus: {len(corpus)}\tedges: {len(cov.edges) if cov else '-'}"
                  f"\toutcomes: {len(outcomes)}\texec/s: {int(runs / (now - t0))}", flush=True)
        text = mutate(rng.choice(corpus), rng, corpus)
        path = pick_path(text, rng)
        machines = ((2, 1),) + tuple(rng.sample(MACHINES[1:], 2))
        out, finding, new_edges = run_traced(text, path, args.timeout, machines, cov)
        runs += 1
        if finding:
            report(text, path, finding[1], args.crash_dir, finding[0])
            print(f"Done {runs} runs in {int(time.monotonic() - t0)} second(s)")
            return 1
        if new_edges or out not in outcomes:
            outcomes.add(out)
            if len(corpus) < MAX_CORPUS:
                corpus.append(text)
            else:  # keep the seeds, replace a random later entry
                corpus[rng.randrange(len(files), MAX_CORPUS)] = text
    secs = time.monotonic() - t0
    print(f"fuzz_expfile: corpus {len(corpus)} (seeds {len(files)}), "
          f"edges {len(cov.edges) if cov else '-'}, outcomes {len(outcomes)}, "
          f"{int(runs / secs) if secs else 0} exec/s, no finding"
          + (f" (known, not fatal: {KNOWN_SEEN})" if KNOWN_SEEN else ""))
    print(f"Done {runs} runs in {int(round(secs))} second(s)")
    return 0


def main():
    ap = argparse.ArgumentParser(
        prog="python3 -m scripts.tests.fuzz_expfile", description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60, help="how long to fuzz (default 60)")
    ap.add_argument("--runs", type=int, default=0, help="stop after this many executions too")
    ap.add_argument("--corpus", action="append", default=[],
                    help="seed file or folder (repeatable; read only)")
    ap.add_argument("--crash-dir", default="build/fuzz/artifacts/expfile",
                    help="where findings are saved (default build/fuzz/artifacts/expfile)")
    ap.add_argument("--seed", type=int, default=None, help="random seed (default: time)")
    ap.add_argument("--timeout", type=float, default=5.0, help="seconds per execution")
    ap.add_argument("--no-coverage", action="store_true", help="no settrace guidance (faster)")
    ap.add_argument("--known", action="append", default=[], metavar="TAG",
                    help="an invariant finding tagged [TAG] (e.g. same-options) is counted, "
                         "not fatal: to look past a reported, unfixed finding")
    ap.add_argument("--regress", nargs="+", metavar="FILE_OR_DIR",
                    help="run each input once, no fuzzing; exit 1 if any is a finding")
    args = ap.parse_args()
    signal.signal(signal.SIGALRM, _alarm)
    sys.setrecursionlimit(10000)
    KNOWN.update(args.known)
    if args.regress:
        return regress(read_inputs(args.regress), args.timeout, args.crash_dir)
    if args.seed is None:
        args.seed = int(time.time() * 1000) & 0xFFFFFFFF
    print(f"fuzz_expfile: seed {args.seed}, {args.seconds:g} s")
    return fuzz(args)


if __name__ == "__main__":
    sys.exit(main())
