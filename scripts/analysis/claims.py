# SPDX-License-Identifier: BSD-2-Clause
"""claims.py - every measured claim of the artifact, checked on the host that measured it.

    python3 -m scripts.analysis.claims report [--results DIR] [HOST ...]
        the reproduction report of each host, side by side when several (make report)
    python3 -m scripts.analysis.claims write [--results DIR] HOST ...
        write results/HOST/claims.csv
    python3 -m scripts.analysis.claims readme FILE [--results DIR] [--check]
        regenerate the block between FILE's GENERATED markers (--check: exit 1 if
        it would change)
    python3 -m scripts.analysis.claims list
        the claims table itself

Claims are code: each entry of CLAIMS (claims_table.py says what an entry
holds), evaluated on a host's results, gets one status:

  holds              the whole interval lies on the claimed side of the threshold
                     (inside the range, for a claim of the study's range)
  does not hold      the whole interval lies on the other side (for a range:
                     "does not hold: larger" above it, "smaller" below it)
  inconclusive       the interval straddles the threshold, or there are too
                     few pairs for an interval of 95% coverage (fewer than 6)
  not testable here  the host cannot test it (why: e.g. needs 2 real nodes), or its
                     results do not hold the data
  not exercised      the mechanism the claim is about did not run (why: the counter)

A paired claim decides on its decision interval (stats.decision_interval): the
order-statistic interval at the level the stopping rule allows at its n
(scripts/common/looks.py: the runner adds rounds while a claim is undecided, and
the chance of a false decision over every look is at most 5%); the row's lo, hi
and coverage are that interval's.  A bound (F5.model-bounds, F5.realized-batch,
ring.oversub-no-collapse) states its own rule in its row: the worst run or
point decides, with no interval.

The estimator is one, everywhere: a ratio between two configurations is the
paired median ratio over the repetitions of a round (scripts/analysis/findings.py
paired(), which figures, READMEs, this report and the paper all call), with
its order-statistic interval and that interval's exact coverage at the n
used (scripts/analysis/stats.py). A claim that reads a single
configuration (a maximum over points, a worst case) uses the medians over
repetitions of each point and has no interval beyond that.

One report per host covers its emulated sibling folder (F3 and F5 run there
on a one-node machine). Nothing here changes a result; `make experiments`
never fails on a claim.
"""

import argparse
import csv
import io
import os
import re
import sys

from ..common.wholefile import write_whole
from . import hostfacts
from . import nrdata
from . import stats
from . import templates
# the claims table and its evaluation; the names the runner, the README, the
# paper and the tests read through this module stay importable from it
from .claims_table import (  # noqa: F401
    ANY, BY_ID, CLAIMS, COLUMNS, F4_WORK_NS, PAIRED, STATUSES, Host, decide, evaluate, report,
    threshold_text)


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def csv_text(rows):
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def write_claims(hostdir):
    """results/<host>/claims.csv (whole or not at all); returns the rows."""
    rows = report(hostdir)
    write_whole(os.path.join(hostdir, "claims.csv"), csv_text(rows))
    return rows


def fmt_value(row, intervals=True):
    """'10.7x [9.9..12.0]' (the interval where it is not a point), 'undetermined'
    where the runs support no value (stats.undetermined), '—' where not measured."""
    if not row.get("value"):
        return "undetermined" if (row.get("why") or "").startswith("undetermined") else "—"
    unit = row["unit"]

    def f(v):
        v = float(v)
        if unit == "%":
            return f"{v:+.1f}"
        return f"{v:.3g}" if abs(v) < 100 else f"{v:.0f}"
    s = f(row["value"]) + ("%" if unit == "%" else unit)
    if intervals and row["lo"] and row["hi"] and (row["lo"] != row["value"]
                                                   or row["hi"] != row["value"]):
        cov = row.get("coverage")
        tail = f", {stats.cov_text(float(cov))}" if cov else ""
        s += f" [{f(row['lo'])}..{f(row['hi'])}{tail}]"
    return s


def predicate(row):
    unit = row["unit"]
    if row["op"] == "in":
        a, b = (float(x) for x in row["threshold"].split(".."))
        return (f"within [{a:+g}%, {b:+g}%]" if unit == "%" else
                f"within [{a:g}, {b:g}]{unit}")
    t = float(row["threshold"])
    return f"{row['op']} {t:+g}%" if unit == "%" else f"{row['op']} {t:g}{unit}"


def status_word(row):
    """The status with the side a range claim missed on: 'does not hold: larger'."""
    side = (row.get("why") or "").split(":")[0]
    if row["status"] == "does not hold" and row.get("op") == "in" and side in ("larger", "smaller"):
        return f"does not hold: {side}"
    return row["status"]


def status_text(row):
    s = row["status"]
    if row.get("why") and s in ("not testable here", "not exercised", "inconclusive"):
        return f"{s} ({row['why']})"
    return status_word(row)


def host_lines(rows):
    """The report of one host as text lines (what make experiments prints)."""
    counts = {s: sum(1 for r in rows if r["status"] == s) for s in STATUSES}
    host = rows[0]["host"] if rows else "?"
    out = [f"Reproduction report for {host}: "
           + ", ".join(f"{n} {s}" for s, n in counts.items() if n)]
    w = max(len(r["claim"]) for r in rows) if rows else 10
    for r in rows:
        out.append(f"  {r['claim']:<{w}}  {status_word(r):<17}  {fmt_value(r):<26} "
                   f"claim {predicate(r)}" + (f"; study {r['study']}" if r["study"] else ""))
        if r["status"] in ("not testable here", "not exercised") and r["why"]:
            out.append(f"  {'':<{w}}  why: {r['why']}")
        elif r["detail"] and r["status"] in ("does not hold", "inconclusive"):
            out.append(f"  {'':<{w}}  {r['detail']}")
            if r["status"] == "inconclusive" and r["why"]:
                out.append(f"  {'':<{w}}  why: {r['why']}")
    return out


def side_by_side(reports):
    """[(host, rows)] as one table: a line per claim, a column per host, and
    'differs' where the hosts' statuses do."""
    hosts = [h for h, _ in reports]
    by = {h: {r["claim"]: r for r in rows} for h, rows in reports}
    w = max(len(c.id) for c in CLAIMS)
    cw = max([28] + [len(h) for h in hosts])
    out = [f"{'claim':<{w}}  " + "  ".join(f"{h:<{cw}}" for h in hosts)]
    differ = 0
    for c in CLAIMS:
        rs = [by[h].get(c.id) for h in hosts]
        cells = ["—" if r is None else f"{status_word(r)} {fmt_value(r, intervals=False)}"
                 for r in rs]
        differs = len({status_word(r) for r in rs if r is not None}) > 1
        differ += differs
        out.append(f"{c.id:<{w}}  " + "  ".join(f"{x:<{cw}}" for x in cells)
                   + ("  <- differs" if differs else ""))
    out.append(f"{differ} claim(s) differ between the hosts" if len(hosts) > 1 else "")
    return out


# ---- markdown: the results README's section and the README's block --------------------

def md_section(rows):
    """The results README's reproduction report (markdown lines)."""
    return templates.section("readme_sections.md.j2", "claims", {
        "status_text": status_text, "fmt_value": fmt_value, "predicate": predicate}, rows=rows)


BEGIN = "<!-- BEGIN GENERATED: claims (scripts/analysis/claims.py readme README.md; do not edit) -->"
END = "<!-- END GENERATED: claims -->"


def real_hosts(results):
    """The host folders of results/ that are not emulated siblings and hold a
    sweep (not only benchmarks: hostfacts.sweep_tables), sorted."""
    try:
        names = sorted(os.listdir(results))
    except OSError:
        return []
    return [h for h in names if "-emulated-" not in h
            and os.path.isdir(os.path.join(results, h))
            and hostfacts.sweep_tables(os.path.join(results, h))
            and not nrdata.guest_note((hostfacts.describe_host(os.path.join(results, h))
                                       or {}).get("virtualization"))]


def readme_block(results):
    """The README's generated block: the findings table with the study's values
    and every host's verdict, then the ring's claims."""
    hosts = real_hosts(results)
    reps = [(h, report(os.path.join(results, h))) for h in hosts]
    by = {h: {r["claim"]: r for r in rows} for h, rows in reps}
    canon = hostfacts.canonical_host(results)
    rows = []
    for c in CLAIMS:
        # fmt_value's "—" (no value) is left out; "undetermined" is said
        cells = [status_word(r) + (f": {fmt_value(r)}" if fmt_value(r) != "—" else "")
                 for r in (by[h][c.id] for h in hosts)]
        pred = predicate(next(iter(by.values()))[c.id]) if by else \
            f"{c.op} {threshold_text(c)}"
        rows.append((c, pred, cells))
    text = templates.render(
        "claims_block.md.j2", begin=BEGIN, end=END, canon=canon, hosts=hosts, rows=rows,
        siblings=sorted(h for h in os.listdir(results) if h.startswith(canon + "-emulated-"))
        if canon else [])
    return text[:-1].split("\n")


def replace_block(text, block):
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise ValueError(f"expected one '{BEGIN}' line followed by one '{END}' line")
    return text[:text.index(BEGIN)] + "\n".join(block) + text[text.index(END) + len(END):]


# ---- LaTeX: the paper's reproduction report -----------------------------------------------

def tex(s):
    """s as LaTeX text: its special characters escaped, — as --, <, >, <=, >= as math."""
    s = re.sub(r"([&%$#_{}])", r"\\\1", str(s))
    return s.replace("~", r"\textasciitilde{}").replace("—", "--").replace("<=", r"$\le$") \
        .replace(">=", r"$\ge$").replace("<", r"$<$").replace(">", r"$>$")


def latex_table(rows):
    """The paper's table of claims (paper/generated/claims.tex): the same rows
    as claims.csv, so that the paper states what the report says."""
    host = rows[0]["host"] if rows else "?"
    out = ["% Generated by scripts/analysis/claims.py (paper_numbers.py --claims) from "
           f"results/{host}. Do not edit: make paper regenerates it.",
           r"\begin{table*}[t]", r"\centering\footnotesize\setlength{\tabcolsep}{3pt}",
           r"\caption{Reproduction report of \texttt{" + tex(host) + r"}: every claim of "
           r"this paper checked on that host's results (\texttt{claims.csv}). Value: the "
           r"paired median ratio or change over the repetitions, with its interval; holds / "
           r"does not hold: the whole interval on the claimed / other side.}",
           r"\label{tab:claims}",
           # tabularx: the last column takes what the others leave of the
           # text width, so the table never runs into the margin
           r"\begin{tabularx}{\textwidth}{@{}llll>{\raggedright\arraybackslash}X@{}}",
           r"\toprule",
           r"claim & status & value & claim & why, or what was measured \\", r"\midrule"]
    for r in rows:
        why = r["why"] if r["status"] in ("not testable here", "not exercised") else r["detail"]
        # run identifiers (queue=faa_workload=...) may break after an underscore
        why_tex = tex(why).replace(r"\_", r"\_\allowbreak{}")
        out.append(f"\\texttt{{{tex(r['claim'])}}} & {tex(status_word(r))} & "
                   f"{tex(fmt_value(r))} & {tex(predicate(r))} & {why_tex} "
                   r"\tabularnewline")
    out += [r"\bottomrule", r"\end{tabularx}", r"\end{table*}"]
    return "\n".join(out) + "\n"


# ---- command line ---------------------------------------------------------------------

def die(msg, code=2):
    print(f"claims: {msg}", file=sys.stderr)
    sys.exit(code)


def host_dirs(results, hosts):
    if not os.path.isdir(results):
        die(f"{results!r} is not a folder of results")
    for h in hosts:
        if not os.path.isdir(os.path.join(results, h)):
            known = ", ".join(real_hosts(results)) or "none"
            die(f"no results for host {h!r} under {results} (hosts there: {known})")
    return [os.path.join(results, h) for h in hosts]


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python3 -m scripts.analysis.claims", description=__doc__.split("\n")[0],
        epilog="Statuses: " + ", ".join(STATUSES) + ".")
    sub = ap.add_subparsers(dest="cmd", required=True)
    rp = sub.add_parser("report", help="the reproduction report of hosts (side by side)")
    rp.add_argument("hosts", nargs="*", help="host folders under --results (default: every "
                    "host with real nodes)")
    wp = sub.add_parser("write", help="write results/<host>/claims.csv")
    wp.add_argument("hosts", nargs="+")
    mp = sub.add_parser("readme", help="regenerate a file's GENERATED block")
    mp.add_argument("file")
    for p in (rp, wp, mp):
        p.add_argument("--results", default=os.path.join(ROOT, "results"))
    mp.add_argument("--check", action="store_true", help="exit 1 if the block would change")
    sub.add_parser("list", help="the claims table")
    a = ap.parse_args(argv)
    if a.cmd == "list":
        for c in CLAIMS:
            print(f"{c.id}: {c.sentence} [{c.op} {threshold_text(c)}{c.unit}; study "
                  f"{c.study or '—'}; {c.when}; reads {c.reads}]")
        return 0
    if a.cmd == "readme":
        try:
            with open(a.file, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            die(f"{a.file}: {e.strerror}")
        if not os.path.isdir(a.results):
            die(f"{a.results!r} is not a folder of results")
        try:
            new = replace_block(text, readme_block(a.results))
        except ValueError as e:
            die(f"{a.file}: {e}")
        if new != text and a.check:
            print(f"claims: {a.file}: the generated block is stale (run "
                  f"python3 -m scripts.analysis.claims readme {a.file})", file=sys.stderr)
            return 1
        if new != text:
            write_whole(a.file, new)
        return 0
    if a.cmd == "write":
        for d in host_dirs(a.results, a.hosts):
            write_claims(d)
            print(f"claims: {os.path.relpath(os.path.join(d, 'claims.csv'))}")
        return 0
    # report
    dirs = host_dirs(a.results, a.hosts or real_hosts(a.results))
    if not dirs:
        die(f"no host with results under {a.results}")
    reports = [(os.path.basename(d), report(d)) for d in dirs]
    if len(reports) == 1:
        print("\n".join(host_lines(reports[0][1])))
    else:
        print("\n".join(side_by_side(reports)).rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
