# SPDX-License-Identifier: BSD-2-Clause
"""model_facts.py - the model-checking facts, from the model's own run.

    python3 -m scripts.paper.model_facts record [SUMMARY.tsv]
        copy a complete `make model-check` run (build/model/summary.tsv, written
        by ring/model/check.sh) to ring/model/results.tsv, then write everything
        below from it
    python3 -m scripts.paper.model_facts write
        regenerate, from ring/model/results.tsv: ring/model/README.md's results
        table, the one-line facts of README.md and docs/testing.md,
        paper/generated/model.tex
    python3 -m scripts.paper.model_facts check
        exit 1 where any of them differs from what results.tsv gives, or
        results.tsv is not a run of the model and configuration list there now
    python3 -m scripts.paper.model_facts tex OUT
        only the paper's macros, to OUT (paper_numbers.py writes them beside
        numbers.tex)

One place holds the numbers: ring/model/results.tsv, a copy of the last complete
run of the default configurations (`# key: value` lines saying what ran where,
then one tab-separated row per configuration: configuration, kind, flags,
stored states, transitions, time in seconds, memory in MB, verdict, note).
Every count the documentation and the paper state about the model (how many
configurations, of which kinds, how many injected bugs were caught, the largest
search, the bounds of workers, capacity, batch and items) is computed here from
that file; no page types one. Each generated region lies between two HTML
comments (MARKERS) and is replaced whole.

`make model-record` (scripts/model.mk) runs `record` after `make model-check`.
The run is tied to the model it checked: results.tsv carries the git blob hash
of ring/model/ring.pml and its configuration list must be check.sh's, so `check`
(scripts/tests/test_model_facts.py) fails once the model or the list changes
without a new run.
"""

import argparse
import csv
import hashlib
import io
import os
import re
import shutil
import sys

from ..common.wholefile import write_whole

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join("ring", "model", "results.tsv")
MODEL = os.path.join("ring", "model", "ring.pml")
CHECK = os.path.join("ring", "model", "check.sh")
MODEL_README = os.path.join("ring", "model", "README.md")
TEX = os.path.join("paper", "generated", "model.tex")

COLUMNS = ["configuration", "kind", "flags", "states", "transitions", "time_s", "memory_mb",
           "verdict", "note"]

#: file -> (begin marker, end marker, what goes between them); the paths are
#: relative to the repository, the links in the text relative to the file
_FACTS_BLOCK = ("<!-- model-facts: scripts/paper/model_facts.py writes this block; do not edit -->",
                "<!-- /model-facts -->", "line")
MARKERS = {
    "README.md": _FACTS_BLOCK,
    os.path.join("docs", "testing.md"): _FACTS_BLOCK,
    MODEL_README: ("<!-- model-results: scripts/paper/model_facts.py writes this block from "
                   "results.tsv; do not edit -->", "<!-- /model-results -->", "table"),
}


class FactsError(Exception):
    pass


# ---- reading ------------------------------------------------------------------------

def parse(text):
    """(meta, rows) of a summary.tsv: meta from its '# key: value' lines, rows
    as dicts of COLUMNS."""
    meta, body = {}, []
    for line in text.splitlines():
        if line.startswith("#"):
            m = re.match(r"#\s*([A-Za-z_]+):\s?(.*)$", line)
            if m:
                meta[m.group(1)] = m.group(2).strip()
        elif line.strip():
            body.append(line)
    if not body:
        raise FactsError("no header and no configuration")
    rows = list(csv.DictReader(io.StringIO("\n".join(body) + "\n"), delimiter="\t",
                               quoting=csv.QUOTE_NONE))
    if not rows or list(rows[0].keys())[:len(COLUMNS)] != COLUMNS:
        raise FactsError(f"expected the columns {', '.join(COLUMNS)}")
    return meta, rows


def load(path=None):
    path = path or os.path.join(ROOT, RESULTS)
    try:
        with open(path, encoding="utf-8") as f:
            return parse(f.read())
    except OSError as e:
        raise FactsError(f"{path}: {e.strerror}") from None


def blob_hash(path):
    """git's blob hash of a file (git hash-object), without git."""
    with open(path, "rb") as f:
        data = f.read()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def listed_configs(check_sh=None):
    """[(name, kind, flags)] of check.sh's default configurations: the first
    here-document of its configs() function."""
    with open(check_sh or os.path.join(ROOT, CHECK), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^configs\(\) \{\n\tcat <<'EOF'\n(.*?)\nEOF\n", text, re.S | re.M)
    if not m:
        raise FactsError(f"{CHECK}: no configuration list found in configs()")
    return [(p[0], p[1], " ".join(p[2:])) for p in map(str.split, m.group(1).splitlines()) if p]


def model_defaults(pml=None):
    """The model's default configuration macros (#ifndef X / #define X v)."""
    with open(pml or os.path.join(ROOT, MODEL), encoding="utf-8") as f:
        text = f.read()
    return {k: v for k, v in re.findall(
        r"^#ifndef\s+(\w+)\b[^\n]*\n#define\s+\1\s+(\w+)", text, re.M)}


# ---- the facts ----------------------------------------------------------------------------

def _int(s):
    try:
        return int(float(s))
    except (TypeError, ValueError):
        return None


def bounds_of(row, defaults):
    """(workers, capacity, batch, items) of one configuration."""
    d = {**defaults, **dict(re.findall(r"-D(\w+)=(\w+)", row["flags"]))}

    def v(k):
        x = d.get(k, "0")
        return int(d.get(x, x)) if not x.isdigit() else int(x)
    if v("MODE") == 1:
        prod, cons = v("PS") + v("PB"), v("CS") + v("CB")
    else:
        prod, cons = v("P0") + v("P1"), v("C0") + v("C1")
    items = (v("NPER0") + (prod - 1) * v("NPER")) if prod else 0
    return prod + cons, v("CAP"), v("BATCH"), items


def span(vals):
    return (min(vals), max(vals)) if vals else None


def facts(meta, rows, defaults=None):
    """Everything the generated text states, as a dict."""
    defaults = model_defaults() if defaults is None else defaults
    kind = [("mutant" if r["kind"].startswith("mutant") else r["kind"]) for r in rows]
    mutants = [r for r, k in zip(rows, kind) if k == "mutant"]
    sized = [r for r in rows if _int(r["states"]) is not None]
    big = max(sized, key=lambda r: _int(r["states"])) if sized else None
    # the bounds of the exhaustive searches that passed
    b = list(zip(*[bounds_of(r, defaults) for r in rows
                   if r["kind"] in ("safety", "np") and r["verdict"] == "PASS"])) or [()] * 4
    return {
        "configs": len(rows), "passed": sum(r["verdict"] == "PASS" for r in rows),
        "failed": [r["configuration"] for r in rows if r["verdict"] != "PASS"],
        "safety": kind.count("safety"), "np": kind.count("np"), "bitstate": kind.count("bitstate"),
        "mutants": len(mutants), "caught": sum(r["verdict"] == "PASS" for r in mutants),
        "states_max": _int(big["states"]) if big else None,
        "states_max_config": big["configuration"] if big else None,
        "states_total": sum(_int(r["states"]) for r in sized),
        "memory_max_mb": max((float(r["memory_mb"]) for r in rows if r["memory_mb"]),
                             default=None),
        **dict(zip(("workers", "capacity", "batch", "items"), map(span, b))),
        **{k: meta.get(k) or "unknown" for k in ("spin", "gcc", "os")},
        **{k: meta.get(k) or "?" for k in ("cpus", "memory_gb", "jobs", "wall_s")},
        "date": meta.get("date") or "unknown", "commit": meta.get("commit") or "unknown",
    }


def millions(n):
    return f"{n / 1e6:.1f} million" if n >= 1e6 else f"{n:,}"


def range_text(r, dash="–"):
    return "?" if r is None else str(r[0]) if r[0] == r[1] else f"{r[0]}{dash}{r[1]}"


# ---- Markdown ------------------------------------------------------------------------------

def verdict_text(f):
    searches = f["safety"] + f["np"] + f["bitstate"]
    done = f["passed"] - f["caught"]
    if not f["failed"]:
        return f"all {searches} searches passed" if searches != 1 else "the search passed"
    return (f"{done} of {searches} searches passed; failed: "
            + ", ".join(f"`{c}`" for c in f["failed"]))


def md_line(f, link):
    """The one-line facts of README.md and docs/testing.md (link: results.tsv
    as seen from the file)."""
    parts = [f"{f['safety']} exhaustive safety searches", f"{f['np']} non-progress searches "
             "under weak fairness"]
    if f["bitstate"]:
        parts.append(f"{f['bitstate']} bitstate searches")
    return (f"Model checking, last recorded run ([results.tsv]({link}), spin {f['spin']}): "
            f"{f['configs']} configurations of the spin model, {', '.join(parts)} and "
            f"{f['mutants']} injected-bug mutants; {verdict_text(f)}, and {f['caught']} of "
            f"{f['mutants']} injected bugs were caught. The largest search stored "
            f"{millions(f['states_max'] or 0)} states (`{f['states_max_config']}`); the "
            f"searches cover {range_text(f['workers'])} workers, capacity "
            f"{range_text(f['capacity'])}, batch {range_text(f['batch'])} and "
            f"{range_text(f['items'])} items.")


def md_table(meta, rows, f):
    """ring/model/README.md's block: how the run was made, then the table."""
    out = [f"`make model-check MODEL_JOBS={f['jobs']}` on a machine with {f['cpus']} CPUs and "
           f"{f['memory_gb']} GB running {f['os']}, with spin {f['spin']} and gcc {f['gcc']} "
           f"-O2; {f['date']}, commit {f['commit']}; {f['wall_s']} s in all. "
           f"{f['configs']} configurations: "
           f"{verdict_text(f)}, {f['caught']} of {f['mutants']} mutants caught (a mutant "
           "passes when the injected bug is found). Recorded in "
           "[results.tsv](results.tsv) by `make model-record`.", "",
           "| Configuration | Kind | Flags | Stored states | Transitions | Time (s) | "
           "Memory (MB) | Result |", "|---|---|---|---:|---:|---:|---:|---|"]
    for r in rows:
        mem = r["memory_mb"]
        try:
            mem = f"{float(mem):.0f}"
        except ValueError:   # not a number: as it is
            pass
        res = (r["verdict"] + (f": {r['note']}" if r["note"] else "")).replace("|", "\\|")
        # pan prints large counts as 1.0090421e+08: whole numbers here
        states, trans = (_int(r[k]) for k in ("states", "transitions"))
        out.append(f"| `{r['configuration']}` | {r['kind']} | `{r['flags']}` | "
                   f"{'—' if states is None else states} | {'—' if trans is None else trans} | "
                   f"{r['time_s'] or '—'} | {mem or '—'} | {res} |")
    return out


# ---- LaTeX ---------------------------------------------------------------------------------

def tex_escape(s):
    return re.sub(r"([&%$#_{}])", r"\\\1", str(s)).replace("~", r"\textasciitilde{}")


def tex_text(meta, rows, f):
    """paper/generated/model.tex: the paper's macros."""
    m = [("ModelConfigs", f["configs"]), ("ModelSafety", f["safety"]),
         ("ModelNonProgress", f["np"]),
         ("ModelMutants", f["mutants"]), ("ModelMutantsCaught", f["caught"]),
         ("ModelPassed", f["passed"] - f["caught"]),
         ("ModelSearches", f["safety"] + f["np"] + f["bitstate"]),
         ("ModelStatesMax", millions(f["states_max"] or 0)),
         ("ModelStatesMaxConfig", "\\texttt{%s}" % tex_escape(f["states_max_config"])),
         *[(f"Model{k.title()}", range_text(f[k], "--"))
           for k in ("workers", "capacity", "batch", "items")],
         ("ModelSpin", tex_escape(f["spin"]))]
    out = ["% Generated by scripts/paper/model_facts.py from ring/model/results.tsv (the last "
           "recorded make model-check).", "% Do not edit: make paper regenerates it."]
    out += [f"\\newcommand{{\\{k}}}{{{v}}}" for k, v in m]
    out.append(f"\\newif\\ifModelAllPassed\\ModelAllPassed{'false' if f['failed'] else 'true'}")
    return "\n".join(out) + "\n"


# ---- files ---------------------------------------------------------------------------------

def replace_block(text, begin, end, lines, where):
    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        raise FactsError(f"{where}: expected one line '{begin}' followed by one '{end}'")
    return (text[:text.index(begin) + len(begin)] + "\n" + "\n".join(lines) + "\n"
            + text[text.index(end):])


def outputs(meta, rows, root=None):
    """{path (relative): its full new text} for every generated file."""
    root = root or ROOT
    f = facts(meta, rows, model_defaults(os.path.join(root, MODEL)))
    out = {}
    for rel, (begin, end, what) in MARKERS.items():
        path = os.path.join(root, rel)
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        link = os.path.relpath(os.path.join(root, RESULTS), os.path.dirname(path))
        lines = md_table(meta, rows, f) if what == "table" else [md_line(f, link)]
        out[rel] = replace_block(text, begin, end, lines, rel)
    out[TEX] = tex_text(meta, rows, f)
    return out


def stale(meta, rows, root=None):
    """Why results.tsv is not a complete run of the model and list there now
    ([] where it is)."""
    root = root or ROOT
    why = []
    if meta.get("full") not in ("0", None) or meta.get("only"):
        why.append("not a run of the default configurations (full or --only)")
    blob = blob_hash(os.path.join(root, MODEL))
    if meta.get("model_blob") != blob:
        why.append(f"{MODEL} has changed since the recorded run (blob "
                   f"{meta.get('model_blob')} recorded, {blob} now)")
    listed = listed_configs(os.path.join(root, CHECK))
    ran = [(r["configuration"], r["kind"], r["flags"]) for r in rows]
    if ran != listed:
        missing = [c[0] for c in listed if c not in ran]
        extra = [c[0] for c in ran if c not in listed]
        why.append(f"{CHECK}'s configurations differ from the recorded run's (not run: "
                   f"{', '.join(missing) or 'none'}; no longer listed or changed: "
                   f"{', '.join(extra) or 'none'}; or another order)")
    return why


def _read(path):
    """A file's text, None where it cannot be read."""
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError:
        return None


def write_all(meta, rows, root=None):
    root = root or ROOT
    for rel, text in outputs(meta, rows, root).items():
        path = os.path.join(root, rel)
        if _read(path) != text:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            write_whole(path, text)
            print(f"model_facts: wrote {rel}")


def macros_of(path):
    """{name: text} of a generated .tex file's one-line \\newcommand macros."""
    with open(path, encoding="utf-8") as f:
        return dict(m.groups() for m in (
            re.match(r"\\newcommand\{\\([A-Za-z]+)\}\{(.*)\}$", line.strip()) for line in f) if m)


def write_tex(out, results=None):
    meta, rows = load(results)
    write_whole(out, tex_text(meta, rows, facts(meta, rows)))


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python3 -m scripts.paper.model_facts", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    rp = sub.add_parser("record", help="record a make model-check run, then write")
    rp.add_argument("summary", nargs="?", default=os.path.join(ROOT, "build", "model",
                                                               "summary.tsv"))
    sub.add_parser("write", help="regenerate every generated region from results.tsv")
    sub.add_parser("check", help="exit 1 where a generated region or results.tsv is stale")
    tp = sub.add_parser("tex", help="write the paper's macros")
    tp.add_argument("out")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "record":
            meta, rows = load(a.summary)
            why = stale(meta, rows)
            if why:
                raise FactsError(f"{a.summary}: " + "; ".join(why) + ": run make model-check")
            shutil.copyfile(a.summary, os.path.join(ROOT, RESULTS) + ".tmp")
            os.replace(os.path.join(ROOT, RESULTS) + ".tmp", os.path.join(ROOT, RESULTS))
            print(f"model_facts: recorded {os.path.relpath(a.summary)} as {RESULTS}")
            write_all(meta, rows)
            return 0
        if a.cmd == "tex":
            write_tex(a.out)
            return 0
        meta, rows = load()
        if a.cmd == "write":
            write_all(meta, rows)
            return 0
        bad = list(stale(meta, rows))
        for rel, text in outputs(meta, rows).items():
            if _read(os.path.join(ROOT, rel)) != text:
                bad.append(f"{rel} is not what {RESULTS} gives: "
                           "run python3 -m scripts.paper.model_facts write")
        for b in bad:
            print(f"model_facts: {b}", file=sys.stderr)
        return 1 if bad else 0
    except FactsError as e:
        print(f"model_facts: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
