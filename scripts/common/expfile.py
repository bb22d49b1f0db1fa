# SPDX-License-Identifier: BSD-2-Clause
"""expfile.py - read and check experiment files (experiments/*.exp).

The format, documented in experiments/README.md:

    # a comment; blank lines are ignored
    [experiment]
    name = f2-node-cache          # must equal the file name without .exp
    title = F2: ...               # one line, shown in progress and plots
    finding = F2                  # F1..F5, "peers" or "placement"
    reference = lookup=cached     # optional: the drift reference (default: the
                                  # first point; "none": no reference runs)

    [sweep]                       # numaring-bench options; a comma list is one axis
    queue = numaring
    threads = 2, 4, ..., all      # producers + consumers (half each); relative values
    lookup = libnuma, cached
    smt = cores                   # the default: thread counts count cores, one
                                  # thread per core; siblings: they count
                                  # hardware threads and use them all

    [quick]                       # overrides for PROFILE=quick
    duration = 0.5
    reps = 3

    [full]                        # overrides for PROFILE=full
    duration = 3
    reps = 5

    [smoke]                       # overrides for PROFILE=smoke: a few tiny runs
    duration = 0.05               # that go through every step (make vm-experiments)
    reps = 2

Every value is checked when the file is read, before anything runs; a bad
file raises ExpError("FILE:LINE: reason"). Thread counts may be written
relative to the machine: "all" (every core the run may use, or every CPU
with smt = siblings), "per-node" (the cores, or CPUs, of one node), "half",
and "a, b, ..., c" (doubling from b up to c).
"""

import glob
import itertools
import os
import re

from . import manifest

SECTIONS = ("experiment", "sweep", "quick", "full", "smoke")
PROFILES = ("quick", "full", "smoke")
#: what a block says it serves (issue 43): the claims (ids of
#: scripts/analysis/claims_table.py, shell patterns allowed: F4.*) and the figures
#: (scripts/common/figlist.py's names) that read its points. A block that names
#: neither is exploratory: the full profile alone runs it, and last.
READS_KEYS = ("claims", "figures")
#: the tiers of a point, in the order a sweep runs them and a time budget keeps
#: them: a claim reads it; only a figure does; nothing does (full profile only)
TIERS = ("claim", "figure", "exploratory")
#: a block's name: [block NAME]
BLOCK_NAME = r"[a-z0-9][a-z0-9-]{0,39}"
# The values numaring-bench takes, from its own tables (scripts/manifest.json).
QUEUES = manifest.queues()
LOOKUPS = manifest.lookups()
GATES = manifest.gates()
BACKOFFS = manifest.backoffs()
PINS = manifest.pins()
#: prodcons: producers and consumers apart; pairs and mixed: every thread
#: enqueues and dequeues (numaring-bench --workload), counted by --threads
WORKLOADS = manifest.workloads()
SYMMETRIC = manifest.symmetric_workloads()
SMTS = manifest.smts()
#: placement: the peers under every placement of threads and memory across
#: nodes (experiments/placement.exp, issue 31 item 3)
FINDINGS = ("F1", "F2", "F3", "F4", "F5", "peers", "placement")
#: which side of a prodcons run sets its pace (scripts/common/regime.py): free (closed
#: loop, nothing added), producer (the producers do pace-work ns of local work
#: per item they enqueue: the queue runs near empty), consumer (the consumers
#: do it per item they dequeue: the queue runs full). Translated into
#: --producer-work / --consumer-work of pace-work x items per operation, on
#: top of the point's work (which both sides do): the paced side is the
#: slower one whatever the work. Pairs and mixed have no sides: a pinned pace
#: does not apply to them.
PACES = ("free", "producer", "consumer")
#: pace-work's default, ns per item: the paced side's mean work (half of it:
#: the harness draws 0..N) well above any queue's operation here
PACE_WORK_NS = 200
#: keys the runner reads itself; not numaring-bench flags
RUNNER_KEYS = ("pace", "pace-work")
THREAD_WORDS = ("all", "per-node", "half")
#: each workload's cross-node placement where a sweep lists both split and
#: scatter: prodcons splits (producers on one node, consumers on the other:
#: every item crosses), pairs and mixed scatter (threads alternate nodes:
#: split is refused for them, they have no sides); the other one is left out
CROSS_PIN = {"prodcons": "split", "pairs": "scatter", "mixed": "scatter"}
MAX_POINTS = 10000
#: the experiment files' folder
EXP_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "experiments")


class ExpError(Exception):
    """A bad experiment file: the message is "FILE:LINE: reason"."""


def _int(text, lo, hi):
    if not re.fullmatch(r"[0-9]+", text):
        raise ValueError(f"expected a whole number, not {text!r}")
    v = int(text)
    if v < lo or v > hi:
        raise ValueError(f"{v} is not between {lo} and {hi}")
    return v


def _real(text, lo, hi, zero_ok=False, hi_ok=True):
    try:
        v = float(text)
    except ValueError:
        raise ValueError(f"expected a number, not {text!r}") from None
    if v != v or v in (float("inf"), float("-inf")):
        raise ValueError(f"expected a finite number, not {text!r}")
    if v < lo or v > hi or (v == lo and not zero_ok) or (v == hi and not hi_ok):
        raise ValueError(f"{text} is not {'from' if zero_ok else 'above'} {lo:g} and "
                         f"{'at most' if hi_ok else 'below'} {hi:g}")
    return v


def _pin(text):
    """pin: a placement's name, or nodes:P/C (producers on node P, consumers
    on node C: numaring-bench --pin nodes:P/C)."""
    m = re.fullmatch(r"nodes:(\d+)/(\d+)", text)
    if m:
        top = manifest.pin_max_node()
        if max(int(m.group(1)), int(m.group(2))) > top:
            raise ValueError(f"{text}: node numbers 0..{top} (numaring-bench --pin)")
        return text
    if text not in PINS:
        raise ValueError(f"unknown value {text!r} (one of: {', '.join(PINS)}, nodes:P/C)")
    return text


def _queue_mem(text):
    """queue-mem: where the queue's memory goes (numaring-bench --queue-mem):
    first-touch, producers, consumers, interleave or node:N."""
    m = re.fullmatch(r"node:(\d+)", text)
    if m:
        top = manifest.queue_mem_max_node()
        if int(m.group(1)) > top:
            raise ValueError(f"{text}: node numbers 0..{top} (numaring-bench --queue-mem)")
        return text
    names = [m for m in manifest.queue_mems() if m != "node:N"]
    if text not in names:
        raise ValueError(f"unknown value {text!r} (one of: {', '.join(names)}, node:N)")
    return text


def sides_pin(pin):
    """Whether a pin puts producers and consumers on nodes of their own
    (split, nodes:P/C): a prodcons placement, refused for pairs and mixed."""
    return pin == "split" or pin.startswith("nodes:")


def _choice(names):
    def check(text):
        if text not in names:
            raise ValueError(f"unknown value {text!r} (one of: {', '.join(names)})")
        return text
    return check


def _bounded(option):
    """The check of a numaring-bench option's value: the bounds the harness
    itself checks it against (harness/bounds.h, through the manifest)."""
    lim = manifest.limit(option)
    if lim["whole"]:
        lo, hi = int(lim["min"]) + (not lim["min_in"]), int(lim["max"]) - (not lim["max_in"])

        def check(text):
            v = _int(text, lo, hi)
            if lim["pow2"] and v & (v - 1):
                raise ValueError(f"{v} is not a power of two")
            return v
    else:
        def check(text):
            return _real(text, lim["min"], lim["max"], zero_ok=lim["min_in"], hi_ok=lim["max_in"])
    return check


def _work(text, _check=_bounded("work")):
    """work: NS (each operation draws 0..NS ns) or MIN-MAX (MIN..MAX ns: the
    field's random delay with a floor), as numaring-bench --work takes it."""
    if "-" not in text:
        return _check(text)
    lo, _, hi = text.partition("-")
    lo, hi = _check(lo), _check(hi)
    if lo > hi:
        raise ValueError(f"{text}: the minimum is above the maximum")
    return f"{lo}-{hi}"


def work_max(value):
    """The bound of a work value (NS or MIN-MAX): its largest draw, ns."""
    return int(str(value).rpartition("-")[2] or 0)


def _bool01(text):
    if text not in ("0", "1", "yes", "no"):
        raise ValueError(f"expected 0/1 or yes/no, not {text!r}")
    return 1 if text in ("1", "yes") else 0


# Sweep keys: checker for each value. "threads" is handled apart. The
# numbers' bounds are numaring-bench's own (_bounded).
SWEEP_KEYS = {k: _bounded(k) for k in (
    "producers", "consumers", "recheck", "batch", "capacity", "rate", "duration", "ops",
    "warmup", "drain-timeout", "sample", "calibrate", "load-probe", "linger",
    "producer-work", "consumer-work", "pause-spin", "exp-cap", "enqueue-share")}
SWEEP_KEYS.update({
    "queue": _choice(QUEUES),
    "lookup": _choice(LOOKUPS),
    "gate": _choice(GATES),
    "backoff": _choice(BACKOFFS),
    "capacity-per-node": _bounded("capacity"),
    "pin": _pin,
    "queue-mem": _queue_mem,
    "smt": _choice(SMTS),
    "item": _choice(manifest.items()),
    "pace": _choice(PACES),
    "workload": _choice(WORKLOADS),
    "work": _work,
    "bursts": _bool01,
    "counters": _bool01,
    "load": lambda t, _load=_bounded("load"): t if t == "closed" else _load(t),
    "pace-work": lambda t: _int(t, 1, 1000000),
})
#: Keys passed to numaring-bench as a bare flag when 1 (--bursts), left out when 0.
FLAG_KEYS = ("bursts", "counters")
def _item_kind(t):
    if t not in manifest.items():
        raise ValueError(f"{t!r} is not an item kind ({', '.join(manifest.items())})")
    return t


#: keys of a profile alone: its repetitions, and item-otherwise (the item kind
#: a queue that takes none of the profile's items runs with instead:
#: peers.exp's quick runs inline items, and xenium's pointer queues with
#: message items, marked so in every row; points())
PROFILE_ONLY = {"reps": lambda t: _int(t, 1, 1000), "item-otherwise": _item_kind}
EXPERIMENT_KEYS = ("name", "title", "finding")
OPTIONAL_EXPERIMENT_KEYS = ("reference",)


def _check_threads(items):
    """Check a threads list; return it as tokens (ints, words, '...')."""
    out = []
    for i, t in enumerate(items):
        if t == "...":
            if i == 0 or i == len(items) - 1 or out[-1] == "...":
                raise ValueError("'...' must stand between two values, as in 2, 4, ..., all")
            out.append(t)
        elif t in THREAD_WORDS:
            out.append(t)
        else:
            v = _int(t, 2, 4096) if re.fullmatch(r"[0-9]+", t) else None
            if v is None:
                raise ValueError(f"threads value {t!r} is not a number >= 2 nor one of "
                                 f"{', '.join(THREAD_WORDS)} or '...'")
            out.append(v)
    return out


def _check_reference(text):
    """The reference key's value: "first", "none", or a point's settings as
    key=value pairs (separated by spaces or commas), each key a sweep key or
    threads, each value checked like the sweep's. Returns "first", "none" or
    a list of (key, value) pairs."""
    if text in ("first", "none"):
        return text
    pairs = []
    for part in re.split(r"[\s,]+", text.strip()):
        if not part:
            continue
        if "=" not in part:
            raise ValueError(f"expected first, none or key=value pairs, not {part!r}")
        k, v = (x.strip() for x in part.split("=", 1))
        if k == "threads":
            vals = _check_threads([v])
            if vals == ["..."]:
                raise ValueError("threads=... names no point")
            pairs.append((k, vals[0]))
        elif k in SWEEP_KEYS:
            pairs.append((k, SWEEP_KEYS[k](v)))
        else:
            raise ValueError(f"unknown key {k!r} (keys: threads, {', '.join(sorted(SWEEP_KEYS))})")
        if [p[0] for p in pairs].count(k) > 1:
            raise ValueError(f"{k} given twice")
    if not pairs:
        raise ValueError("expected first, none or key=value pairs")
    return pairs


class Block:
    """One [block NAME] of an experiment file (or its [sweep] alone, in a file
    without blocks): the sweep keys it sets over [sweep]'s, the keys it sets
    for one profile only (quick.bursts = 0: over the profile's own section),
    and the claims and figures that read its points."""

    def __init__(self, name, keys, per_profile, claims, figures, line=None):
        self.name = name
        self.keys = keys                # key -> list of values
        self.per_profile = per_profile  # profile -> {key -> list of values}
        self.claims = claims            # claim ids or patterns
        self.figures = figures          # figure names
        self.line = line

    #: False for the [sweep] of a file that names no claim nor figure at all
    #: (a file of one's own, a test's): it runs in every profile, as a
    #: figure-only block (what a time budget may leave out), its readers unsaid
    declared = True

    @property
    def tier(self):
        return (TIERS[0] if self.claims else TIERS[1] if self.figures or not self.declared
                else TIERS[2])

    profiles = PROFILES   # the profiles that run it (profiles = ...)

    def runs_in(self, profile):
        """Whether the profile runs the block: those its profiles key names
        (default: every one); an exploratory block, the full profile alone."""
        return profile in self.profiles and (self.tier != "exploratory" or profile == "full")


class Experiment:
    """One checked experiment file."""

    reference = "first"     # the drift reference: "first", "none" or [(key, value)]
    reference_line = None

    def __init__(self, path, name, title, finding, sweep, profiles, blocks=None):
        self.path = path
        self.name = name
        self.title = title
        self.finding = finding
        self.sweep = sweep          # key -> list of values (checked), in file order
        self.profiles = profiles    # profile -> {key -> list of values}
        # the blocks (a file without [block] sections: [sweep] is its one block)
        if not blocks:
            blocks = [Block("sweep", {}, {}, [], [])]
            blocks[0].declared = False
        self.blocks = blocks

    def block_settings(self, profile):
        """[(block, settings)] of the blocks the profile runs: [sweep], then
        the block's keys, the profile's section, the block's keys for that
        profile (later wins)."""
        out = []
        over = {k: v for k, v in self.profiles.get(profile, {}).items() if k not in PROFILE_ONLY}
        for b in self.blocks:
            if not b.runs_in(profile):
                continue
            s = dict(self.sweep)
            s.update(b.keys)
            s.update(over)
            s.update(b.per_profile.get(profile, {}))
            out.append((b, s))
        return out

    def settings(self, profile):
        """Every value each key takes in the profile's blocks (their union, in
        the order first met: for a file without blocks, the sweep with the
        profile's overrides), and the repetitions."""
        s = {}
        for _b, bs in self.block_settings(profile):
            for k, vals in bs.items():
                have = s.setdefault(k, [])
                have += [v for v in vals if v not in have]
        reps = self.profiles.get(profile, {}).get("reps", [3])[0]
        return s, reps

    def item_otherwise(self, profile):
        """The profile's item-otherwise (the item a queue that takes none of
        the profile's kinds runs with), None where it gives none."""
        v = self.profiles.get(profile, {}).get("item-otherwise")
        return v[0] if v else None


def parse(path, text=None):
    """Read and check one experiment file. Raises ExpError."""
    if text is None:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            raise ExpError(f"{path}: cannot read: {e}") from None
    section = None
    seen = {s: {} for s in SECTIONS}
    lines_of = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        where = f"{path}:{lineno}"
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if len(raw) > 4000:
            raise ExpError(f"{where}: line longer than 4000 characters")
        m = re.fullmatch(r"\[block\s+(\S*)\s*\]", line)
        if m:
            if not re.fullmatch(BLOCK_NAME, m.group(1)):
                raise ExpError(f"{where}: block name {m.group(1)!r}: expected lower-case "
                               "letters, digits and '-' (at most 40)")
            section = f"block {m.group(1)}"
            if section in seen:
                raise ExpError(f"{where}: [{section}] given twice (first at line "
                               f"{lines_of[(section, '')]})")
            seen[section] = {}
            lines_of[(section, "")] = lineno
            continue
        m = re.fullmatch(r"\[([A-Za-z0-9_-]*)\]", line)
        if m:
            section = m.group(1)
            if section not in SECTIONS:
                raise ExpError(f"{where}: unknown section [{section}] (sections: "
                               + ", ".join(f"[{s}]" for s in SECTIONS) + ", [block NAME])")
            continue
        if line.startswith("["):
            raise ExpError(f"{where}: malformed section header {line!r}")
        if section is None:
            raise ExpError(f"{where}: {line!r} comes before any [section]")
        if "=" not in line:
            raise ExpError(f"{where}: expected 'key = value', not {line!r}")
        key, value = (p.strip() for p in line.split("=", 1))
        if not key:
            raise ExpError(f"{where}: missing key before '='")
        if key in seen[section]:
            raise ExpError(f"{where}: {key} given twice in [{section}] "
                           f"(first at line {lines_of[(section, key)]})")
        if value == "":
            raise ExpError(f"{where}: {key} has no value")
        lines_of[(section, key)] = lineno
        if section == "experiment":
            if key not in EXPERIMENT_KEYS + OPTIONAL_EXPERIMENT_KEYS:
                raise ExpError(f"{where}: unknown key {key!r} in [experiment] "
                               f"(keys: {', '.join(EXPERIMENT_KEYS + OPTIONAL_EXPERIMENT_KEYS)})")
            if key == "reference":
                try:
                    value = _check_reference(value)
                except ValueError as e:
                    raise ExpError(f"{where}: reference: {e}") from None
            seen[section][key] = value
            continue
        items = [v.strip() for v in value.split(",")]
        if any(v == "" for v in items):
            raise ExpError(f"{where}: empty item in the list for {key}")
        in_block = section.startswith("block ")
        if key == "profiles" and in_block:
            bad = [v for v in items if v not in PROFILES]
            if bad or len(set(items)) != len(items):
                raise ExpError(f"{where}: profiles: expected some of {', '.join(PROFILES)}, "
                               f"each once, not {value!r}")
            seen[section][key] = items
            continue
        if key in READS_KEYS and (in_block or section == "sweep"):
            pattern = r"[A-Za-z0-9][A-Za-z0-9.*?_-]*" if key == "claims" else r"[a-z0-9][a-z0-9-]*"
            bad = [v for v in items if not re.fullmatch(pattern, v)]
            if bad:
                raise ExpError(f"{where}: {key}: {bad[0]!r} is not a "
                               + ("claim id or pattern (F4.*)" if key == "claims" else
                                  "figure name (scripts/common/figlist.py)"))
            if len(set(items)) != len(items):
                raise ExpError(f"{where}: {key}: a value is listed twice")
            seen[section][key] = items
            continue
        sub = None
        if in_block and "." in key:
            sub, _, key = key.partition(".")
            if sub not in PROFILES:
                raise ExpError(f"{where}: {sub}.{key}: a block's key for one profile is "
                               f"PROFILE.KEY, PROFILE one of {', '.join(PROFILES)}")
        try:
            if key == "threads":
                vals = _check_threads(items)
            elif key in SWEEP_KEYS:
                vals = [SWEEP_KEYS[key](v) for v in items]
            elif key in PROFILE_ONLY and section in PROFILES:
                if len(items) != 1:
                    raise ValueError("takes one value")
                vals = [PROFILE_ONLY[key](items[0])]
            else:
                allowed = sorted(SWEEP_KEYS) + ["threads"]
                if section in PROFILES:
                    allowed += sorted(PROFILE_ONLY)
                if in_block or section == "sweep":
                    allowed += list(READS_KEYS)
                if in_block:
                    allowed += ["PROFILE.KEY", "profiles"]
                raise ValueError(f"unknown key (keys of [{section}]: {', '.join(sorted(allowed))})")
        except ValueError as e:
            raise ExpError(f"{where}: {key}: {e}") from None
        listed = [str(v) for v in vals if v != "..."]   # "..." may recur
        if len(set(listed)) != len(listed):
            raise ExpError(f"{where}: {key}: a value is listed twice")
        if sub:
            per = seen[section].setdefault(("per-profile", sub), {})
            if key in per:
                raise ExpError(f"{where}: {sub}.{key} given twice in [{section}]")
            per[key] = vals
            continue
        seen[section][key] = vals

    exp = seen["experiment"]
    for k in EXPERIMENT_KEYS:
        if k not in exp:
            raise ExpError(f"{path}: [experiment] lacks {k}")
    base = os.path.basename(path)
    if base.endswith(".exp") and exp["name"] != base[:-4]:
        raise ExpError(f"{path}:{lines_of[('experiment', 'name')]}: name {exp['name']!r} "
                       f"differs from the file name {base[:-4]!r}")
    if exp["finding"] not in FINDINGS:
        raise ExpError(f"{path}:{lines_of[('experiment', 'finding')]}: finding "
                       f"{exp['finding']!r} is not one of {', '.join(FINDINGS)}")
    sweep = seen["sweep"]
    if not any(k not in READS_KEYS for k in sweep):
        raise ExpError(f"{path}: [sweep] is missing or empty (it needs a setting besides "
                       "claims and figures)")
    for prof in ("sweep",) + PROFILES:
        over = seen[prof]
        if "threads" in over and ("producers" in over or "consumers" in over):
            raise ExpError(f"{path}:{lines_of[(prof, 'threads')]}: threads and "
                           "producers/consumers are alternatives")
        for k in over:
            if k in ("producers", "consumers") and "threads" in sweep:
                raise ExpError(f"{path}:{lines_of[(prof, k)]}: {k} cannot override threads")
            if k == "threads" and ("producers" in sweep or "consumers" in sweep):
                raise ExpError(f"{path}:{lines_of[(prof, k)]}: threads cannot override "
                               "producers/consumers")
    sweep = {k: v for k, v in sweep.items() if k not in READS_KEYS}
    blocks = []
    for sec in (x for x in seen if x.startswith("block ")):
        body = seen[sec]
        keys = {k: v for k, v in body.items()
                if isinstance(k, str) and k not in READS_KEYS + ("profiles",)}
        per = {k[1]: v for k, v in body.items() if isinstance(k, tuple)}
        for k in list(keys) + [k for v in per.values() for k in v]:
            if (k == "threads" and ("producers" in sweep or "consumers" in sweep)) or (
                    k in ("producers", "consumers") and "threads" in sweep):
                raise ExpError(f"{path}:{lines_of[(sec, '')]}: [{sec}]: threads and "
                               "producers/consumers are alternatives")
        b = Block(sec.split(" ", 1)[1], keys, per, body.get("claims", []),
                  body.get("figures", []), lines_of[(sec, "")])
        b.profiles = tuple(body.get("profiles", PROFILES))
        if b.tier == "exploratory" and "profiles" in body and body["profiles"] != ["full"]:
            raise ExpError(f"{path}:{lines_of[(sec, 'profiles')]}: [{sec}] names no claim "
                           "nor figure: it is exploratory, run by the full profile alone")
        blocks.append(b)
    reads = {k: seen["sweep"][k] for k in READS_KEYS if k in seen["sweep"]}
    if blocks and reads:
        raise ExpError(f"{path}:{lines_of[('sweep', next(iter(reads)))]}: [sweep]'s "
                       f"{next(iter(reads))} is for a file without blocks: name them in "
                       "each [block]")
    if not blocks:
        blocks = [Block("sweep", {}, {}, reads.get("claims", []), reads.get("figures", []),
                        lines_of.get(("sweep", "claims")))]
        blocks[0].declared = bool(reads)
    # every profile runs something: a file whose quick (or smoke) profile runs
    # no block would be listed, estimated and "run" as nothing, and the VM's
    # smoke sweep would never step through it
    for prof in PROFILES:
        if not any(b.runs_in(prof) for b in blocks):
            raise ExpError(f"{path}: the {prof} profile runs none of its blocks (each is "
                           "exploratory, which the full profile alone runs, or its profiles "
                           f"key leaves {prof} out): name a claim or figure in one block, "
                           "or let one run in every profile")
    e = Experiment(path, exp["name"], exp["title"], exp["finding"], sweep,
                   {p: seen[p] for p in PROFILES}, blocks)
    e.reference = exp.get("reference", "first")
    e.reference_line = lines_of.get(("experiment", "reference"))
    return e


def experiments(exp_dir=None):
    """The experiments (parsed), one per file of exp_dir (default
    experiments/), in the order of their findings (FINDINGS: F1 .. F5, then
    peers), one finding's files by name. Every file is read and checked
    (parse): a bad one raises ExpError."""
    exps = [parse(path) for path in glob.glob(os.path.join(exp_dir or EXP_DIR, "*.exp"))]
    return sorted(exps, key=lambda e: (FINDINGS.index(e.finding), e.name))


def experiment_names(exp_dir=None):
    """The experiments' names, in experiments()' order."""
    return [e.name for e in experiments(exp_dir)]


def expand_threads(tokens, units, nodes):
    """Turn threads tokens into sorted distinct counts for this machine.
    ``units`` is what a thread count counts: the cores the run may use
    (smt = cores, the default: one thread per core), or its CPUs (smt =
    siblings: every hardware thread)."""
    def word(t):
        if t == "all":
            return max(2, units)
        if t == "per-node":
            return max(2, units // max(1, nodes))
        if t == "half":
            return max(2, units // 2)
        return t
    vals = [word(t) if t != "..." else t for t in tokens]
    out, cap = [], None
    for i, v in enumerate(vals):
        if v == "...":
            # "a, b, ..., c": double from b while below c; c ends the list
            # even when the machine makes it smaller than a or b.
            lo, hi = out[-1], vals[i + 1]
            cap = hi if cap is None else max(cap, hi)
            x = lo * 2
            while x < hi:
                out.append(x)
                x *= 2
        else:
            out.append(v)
    seen, res = set(), []
    for v in out:
        if v not in seen and (cap is None or v <= cap):
            seen.add(v)
            res.append(v)
    return sorted(res)


def thread_units(smt, ncpus, cores=None):
    """What a thread count counts for a point of policy ``smt``: the cores
    (``cores``, default: ncpus, a host without SMT), or every CPU."""
    return ncpus if smt == "siblings" or cores is None else cores


def slug(value):
    return re.sub(r"[^A-Za-z0-9.=+-]+", "_", str(value))


class Point:
    """One configuration: harness options, and a stable id. ``blocks``: the
    blocks of the file that give it; ``claims`` and ``figures``: what reads it
    (theirs); ``tier``: TIERS' first that applies (claim, figure, exploratory)."""

    blocks, claims, figures, tier = (), (), (), TIERS[0]
    #: True for a point of a file that names no claim nor figure: which claims
    #: read it is not said, so every claim that reads its experiment reads it
    undeclared = False

    def __init__(self, exp, pid, opts, label):
        self.exp = exp
        self.id = pid
        self.opts = opts        # option -> value (str)
        self.label = label      # "threads=2 lookup=cached"

    def args(self):
        out = []
        for k, v in self.opts.items():
            if k in RUNNER_KEYS or (k == "load" and str(v) == "closed"):
                continue  # closed: no --load (the runs that measure capacity)
            if k in FLAG_KEYS:
                if str(v) == "1":
                    out.append(f"--{k}")
                continue
            out += [f"--{k}", str(v)]
        out += pace_args(self.opts)
        return out


def pace_args(opts):
    """numaring-bench flags of a point's pace: --producer-work (pace producer)
    or --consumer-work (pace consumer) of the point's work plus pace-work ns
    per item times the items of one operation (the batch with bursts, for a
    queue that takes them: the harness works after each operation, and a queue
    without bursts moves one item an operation); [] for free, no pace or a
    symmetric workload."""
    pace = str(opts.get("pace", "free"))
    if pace == "free" or str(opts.get("workload", "prodcons")) in SYMMETRIC:
        return []
    per_item = int(opts.get("pace-work", PACE_WORK_NS))
    # the same work per item for every queue: a burst's worth only where the
    # queue takes bursts (a queue without them runs single operations, one
    # item each, whatever --bursts says)
    takes = manifest.queue(str(opts.get("queue", "numaring")))["bursts"]
    items = int(opts.get("batch", 32)) if str(opts.get("bursts", "0")) == "1" and takes else 1
    return [f"--{pace}-work", str(work_max(opts.get("work", 0)) + per_item * items)]


def point_threads(opts):
    """The threads of a point's options: --threads of a symmetric workload,
    else producers + consumers."""
    if "threads" in opts:
        return int(opts["threads"])
    return int(opts.get("producers", 1)) + int(opts.get("consumers", 1))


def reference_point(exp, pts, ncpus, nodes, cores=None):
    """The point of ``pts`` that is the experiment's drift reference: the
    first point unless the file names another with ``reference =``
    (key=value pairs; the first point that matches every pair), None with
    ``reference = none``. Raises ExpError when no point matches. ``cores``:
    as for points()."""
    ref = getattr(exp, "reference", "first")
    if ref == "none" or not pts:
        return None
    if ref == "first":
        return pts[0]
    def matches(p, k, v):
        if k != "threads":
            return p.opts.get(k) == str(v)
        units = thread_units(p.opts.get("smt", "cores"), ncpus, cores)
        return point_threads(p.opts) == expand_threads([v], units, nodes)[0]

    for p in pts:
        if all(matches(p, k, v) for k, v in ref):
            return p
    where = f"{exp.path}:{exp.reference_line}" if exp.reference_line else exp.path
    raise ExpError(f"{where}: reference: no point of this machine's sweep has "
                   + " ".join(f"{k}={v}" for k, v in ref))


def block_takes(exp, q, settings, profile):
    """Whether a queue has an item kind it takes in one block's settings of a
    profile: it moves no data, or takes one of the block's kinds, or the
    profile's item-otherwise."""
    kinds = [str(v) for v in settings.get("item", [manifest.items()[0]])]
    return (not q["moves_data"] or any(i in q["items"] for i in kinds)
            or exp.item_otherwise(profile) in q["items"])


def item_left_out(exp, profile):
    """{queue: reason} for the queues of a profile's sweep that take none of
    its item kinds (the manifest's items: xenium's pointer queues take
    message items only). Such a queue has no point in this profile, said with
    its reason (experiments.py list prints it), when another profile of the
    experiment runs it with an item it takes: peers.exp's quick and smoke
    profiles run inline items only, for their budgets, and its full profile
    runs the xenium queues with message items. Where no profile runs it the
    queue is a mistake in the file, refused by name (ExpError):
    numaring-bench would refuse every one of its points."""
    def kinds(prof):
        return [str(v) for v in exp.settings(prof)[0].get("item", [manifest.items()[0]])]

    def takes_some(q, prof):
        # some block of the profile that names the queue runs an item it
        # takes (the union of the blocks' kinds is not enough: a block of
        # inline items with the queue and another of message items without
        # it run it nowhere)
        return any(block_takes(exp, q, bs, prof) and str(q["name"]) in map(str, bs.get("queue", ["numaring"]))
                   for _b, bs in exp.block_settings(prof))

    out = {}
    for name in exp.settings(profile)[0].get("queue", ["numaring"]):
        q = manifest.queue(str(name))
        if takes_some(q, profile):
            continue
        runs = [p for p in PROFILES if p != profile and takes_some(q, p)
                and str(name) in map(str, exp.settings(p)[0].get("queue", ["numaring"]))]
        if not runs:
            raise ExpError(f"{exp.path}: queue {q['name']} takes {', '.join(q['items'])} items "
                           f"only; give item = {q['items'][0]}")
        out[q["name"]] = (f"takes {', '.join(q['items'])} items only; profile {profile} runs "
                          f"item = {', '.join(kinds(profile))} (it runs in profile"
                          f"{'s' if len(runs) > 1 else ''} {', '.join(runs)})")
    return out


def points(exp, profile, ncpus, nodes, cores=None):
    """Expand an experiment into its points for this machine and profile:
    ncpus CPUs (hardware threads), of which ``cores`` cores (None: as many
    as CPUs, no SMT), on ``nodes`` nodes. Thread counts count cores, or
    CPUs for points with smt = siblings. Raises ExpError for combinations
    no point could run (batch > capacity)."""
    reps = exp.settings(profile)[1]
    merged, order, skipped = {}, [], []
    for block, settings in exp.block_settings(profile):
        for opts, chosen in _block_points(exp, settings, profile, ncpus, nodes, cores, skipped):
            key = tuple(sorted(opts.items()))
            if key not in merged:
                merged[key] = (opts, chosen, [])
                order.append(key)
                if len(order) > MAX_POINTS:
                    raise ExpError(f"{exp.path}: more than {MAX_POINTS} points")
            merged[key][2].append(block)
    # a key varies when two points differ in it (or one lacks it): the point's
    # id and label name those keys, in the order the file first gives them
    keys = list(dict.fromkeys(k for key in order for k in merged[key][1]))
    varying = [k for k in keys
               if len({str(merged[key][1].get(k)) for key in order}) > 1]
    out = []
    for key in order:
        opts, chosen, blocks = merged[key]
        parts = [f"{k}={slug(chosen[k])}" for k in varying if k in chosen]
        label = " ".join(f"{k}={chosen[k]}" for k in varying if k in chosen)
        p = Point(exp, "_".join(parts) if parts else "default", opts, label or "default")
        p.blocks = [b.name for b in blocks]
        p.claims = list(dict.fromkeys(c for b in blocks for c in b.claims))
        p.figures = list(dict.fromkeys(f for b in blocks for f in b.figures))
        p.tier = min((b.tier for b in blocks), key=TIERS.index)
        p.undeclared = not any(b.declared for b in blocks)
        out.append(p)
    return out, reps


def left_out(exp, profile, ncpus, nodes, cores=None):
    """{(queue, what): reason} of the cells the profile's blocks name that no
    point runs, because they would mean nothing (a queue without bursts in a
    bursts cell, a queue that moves no data with message items, a memory
    policy for a queue that places its memory itself): what `experiments list`
    prints beside the item kinds' (item_left_out)."""
    skipped = []
    for _block, settings in exp.block_settings(profile):
        for _ in _block_points(exp, settings, profile, ncpus, nodes, cores, skipped):
            pass
    return dict(skipped)


def _block_points(exp, settings, profile, ncpus, nodes, cores, skipped):
    """The points of one block's settings: [(options, {key: the value chosen})],
    in the order of the product of its axes; the cells left out for their
    meaning are added to ``skipped`` as ((queue, what), reason)."""
    smts = [str(v) for v in settings.get("smt", ["cores"])]
    axes, by_smt = [], {}
    for k, vals in settings.items():
        if k == "threads":
            # the counts of each policy; the axis holds them all, and each
            # point keeps only its own policy's (below)
            by_smt = {m: expand_threads(vals, thread_units(m, ncpus, cores), nodes)
                      for m in smts}
            vals = sorted(set(v for counts in by_smt.values() for v in counts))
        axes.append((k, vals))
    out = []
    pins = [str(v) for k, vals in axes if k == "pin" for v in vals]
    paces = [str(v) for k, vals in axes if k == "pace" for v in vals]
    items = [str(v) for k, vals in axes if k == "item" for v in vals]
    left_out = item_left_out(exp, profile)  # raises for a queue no profile runs
    for combo in itertools.product(*(v for _, v in axes)):
        chosen = dict(zip((k for k, _ in axes), combo))
        pin = str(chosen.get("pin"))
        if nodes < 2 and (pin in ("scatter", "split") or pin.startswith("nodes:")) \
                and "compact" in pins:
            # on one node, alternating nodes is filling it and there is no
            # other node to split across: compact's point
            continue
        # a queue that takes some item kinds only (the manifest's items:
        # xenium's pointer queues, message) runs with those; numaring-bench
        # refuses the others (its default is the first kind)
        q = manifest.queue(str(chosen.get("queue", "numaring")))
        item = str(chosen.get("item", manifest.items()[0]))
        otherwise = None
        if q["moves_data"] and item not in q["items"]:
            # the point of the kind it takes runs it, or (none in this
            # profile) the profile's item-otherwise does, or another
            # profile does: item_left_out says which
            if any(i in q["items"] for i in items) or q["name"] in left_out:
                continue
            if not block_takes(exp, q, settings, profile):
                # this block gives it no kind it takes; another block of
                # the profile does (item_left_out refused it otherwise)
                if item == (items or [manifest.items()[0]])[0]:
                    skipped.append(((q["name"], f"item = {', '.join(items)}"),
                                    f"takes {', '.join(q['items'])} items only: another "
                                    "block of this profile runs it with those"))
                continue
            otherwise = exp.item_otherwise(profile)
            if item != (items or [manifest.items()[0]])[0]:
                continue  # one point for the profile's kinds, not one each
        bursts = [str(v) for k, vals in axes if k == "bursts" for v in vals]
        if str(chosen.get("bursts", "0")) == "1" and not q["bursts"] and "0" in bursts:
            # a queue without bursts runs its single operations once, in the
            # bursts = 0 cell: its bursts cell would repeat them
            skipped.append(((q["name"], "bursts = 1"), "takes no bursts: its single "
                            "operations run once, in the bursts = 0 cell"))
            continue
        if not q["moves_data"] and item != (items or [manifest.items()[0]])[0]:
            # faa and null carry no item: one item kind says all there is
            skipped.append(((q["name"], f"item = {item}"), "moves no data: the item kind "
                            "changes nothing; its first item kind's point runs"))
            continue
        mems = [str(v) for k, vals in axes if k == "queue-mem" for v in vals]
        if q.get("memory") == "per-node" and mems and str(chosen.get("queue-mem")) != mems[0]:
            # numaring and sharded put each node's ring on its node themselves
            skipped.append(((q["name"], f"queue-mem = {chosen.get('queue-mem')}"),
                            "places its rings on their nodes itself: the memory policy "
                            f"changes nothing; queue-mem = {mems[0]}'s point runs"))
            continue
        workload = str(chosen.get("workload", "prodcons"))
        symmetric = workload in SYMMETRIC
        if "scatter" in pins and any(sides_pin(x) for x in pins) \
                and (sides_pin(pin) if symmetric else pin == "scatter"):
            # each workload its own cross-node placement (CROSS_PIN): prodcons
            # its sides apart (split, nodes:P/C), pairs and mixed scatter
            continue
        if symmetric and str(chosen.get("queue-mem")) == "consumers" and "producers" in [
                str(v) for k, vals in axes if k == "queue-mem" for v in vals]:
            continue  # pairs, mixed: consumers' memory is thread 0's, producers' point
        if "threads" in chosen and chosen["threads"] not in by_smt[str(chosen.get("smt", "cores"))]:
            continue
        if symmetric and str(chosen.get("pace", "free")) != "free" and "free" in paces:
            continue  # pairs, mixed: no producer and consumer sides to pace (free's point)
        opts = {}
        for (k, _), v in zip(axes, combo):
            if k == "threads" and symmetric:
                opts["threads"] = str(v)  # every thread enqueues and dequeues
            elif k == "threads":
                opts["producers"] = str((v + 1) // 2)
                opts["consumers"] = str(v // 2)
            else:
                opts[k] = str(v)
        if otherwise:
            opts["item"] = otherwise  # every row of the point says which kind ran
        if symmetric and ("producers" in opts or "consumers" in opts):
            raise ExpError(f"{exp.path}: workload {chosen['workload']} counts its threads "
                           "with threads =, not producers/consumers")
        if symmetric and (opts.get("pin") == "split" or opts.get("pin", "").startswith("nodes:")):
            raise ExpError(f"{exp.path}: pin {opts['pin']} puts producers and consumers on "
                           f"nodes of their own; workload {chosen['workload']} has no such "
                           "sides (compact or scatter)")
        if opts.get("workload") != "mixed" and "enqueue-share" in opts:
            raise ExpError(f"{exp.path}: enqueue-share is for workload mixed")
        if opts.get("pace", "free") != "free" and not symmetric and ("producer-work" in opts
                                                                      or "consumer-work" in opts):
            raise ExpError(f"{exp.path}: pace sets producer-work or consumer-work itself; "
                           "give one or the other")
        if opts.get("pace", "free") != "free" and "load" in opts and opts["load"] != "closed":
            raise ExpError(f"{exp.path}: pace is for closed-loop points (open loop: the "
                           "offered rate sets the pace)")
        if symmetric and ("producer-work" in opts or "consumer-work" in opts):
            raise ExpError(f"{exp.path}: producer-work and consumer-work are for workload "
                           "prodcons (pairs, mixed: work)")
        if "capacity" in opts and "capacity-per-node" in opts:
            raise ExpError(f"{exp.path}: capacity (the whole queue's) and capacity-per-node "
                           "(numaring's per ring) are alternatives; give one")
        cap_key = "capacity-per-node" if "capacity-per-node" in opts else "capacity"
        cap = int(opts.get(cap_key, 1024))
        batch = int(opts.get("batch", 32))
        if batch > cap:
            raise ExpError(f"{exp.path}: batch {batch} is larger than {cap_key} {cap} "
                           "in one of the points")
        if "duration" in opts and "ops" in opts:
            raise ExpError(f"{exp.path}: a point has both duration and ops "
                           f"(profile {profile})")
        out.append((opts, chosen))
        if len(out) > MAX_POINTS:
            raise ExpError(f"{exp.path}: more than {MAX_POINTS} points")
    return out
