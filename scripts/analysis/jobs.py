# SPDX-License-Identifier: BSD-2-Clause
"""jobs.py - the analysis's one entry point, the runner's way in: its jobs, by name.

    python3 -m scripts.analysis.jobs drift HOSTDIR EXPERIMENT
        one line on the drift reference of EXPERIMENT (nothing where unknown)
    python3 -m scripts.analysis.jobs readme HOSTDIR
        rewrite HOSTDIR/README.md
    python3 -m scripts.analysis.jobs write HOSTDIR
        HOSTDIR/claims.csv and README.md, then one line of counts and each
        claim that does not hold (what make experiments prints at its end)
    python3 -m scripts.analysis.jobs undecided HOSTDIR
        one line per paired claim still inconclusive that an experiment's
        rounds feed: "EXPERIMENT<TAB>FOLDER<TAB>CLAIM<TAB>PAIRS" (the stopping
        rule: the runner adds rounds to EXPERIMENT in FOLDER)

The runner (scripts/runner/) is standard library only, and its modules are
what the QEMU guest carries; the analysis reads the results with pandas and
SciPy. So the runner never imports this package: it runs this module as a
command (scripts/runner/experiments.py: analysis()), and a sweep whose
analysis cannot run (no pandas in the guest) keeps every result and says why.
"""

import argparse
import os
import sys

from ..common.wholefile import write_whole
from . import claims, summarize


def drift_note(hostdir, name):
    """'; drift of the reference X% ...' for the runner's progress output."""
    d = summarize.drift(hostdir, name)
    if not d or d["drift"] is None:
        return ""
    note = f"; drift of the reference {d['drift'] * 100:.1f}%"
    if d["flagged"]:
        note += (f", MORE than the smallest effect stated ({d['smallest'][0]}: "
                 f"{d['smallest'][1] * 100:.1f}%)")
    return note


def write_report(hostdir):
    """claims.csv and README.md of hostdir; the lines make experiments prints."""
    rows = claims.write_claims(hostdir)
    write_whole(os.path.join(hostdir, "README.md"), summarize.host_readme(hostdir))
    counts = {s: sum(1 for r in rows if r["status"] == s) for s in claims.STATUSES}
    out = [f"experiments: reproduction report {os.path.relpath(os.path.join(hostdir, 'claims.csv'))}: "
           + ", ".join(f"{n} {s}" for s, n in counts.items() if n)]
    return out + [f"experiments: does not hold on {r['host']}: {r['claim']}: "
                  f"{claims.fmt_value(r)}, claim {claims.predicate(r)}"
                  + (f" ({r['detail']})" if r["detail"] else "")
                  for r in rows if r["status"] == "does not hold"]


def undecided(hostdir):
    """[(experiment, folder, claim id, pairs)] of the paired claims of hostdir's
    report (which covers its emulated sibling) that are inconclusive and read
    an experiment's tidy CSV; the side benchmarks' (bench/) are left out: they
    are no sweep's rounds."""
    ctx = claims.Host(hostdir)
    out = []
    for c in claims.CLAIMS:
        what = c.reads.split(":")[0].strip()
        if c.rule != claims.PAIRED or "/" in what or not what.endswith(".csv"):
            continue
        row = claims.evaluate(c, ctx)
        if row["status"] != "inconclusive":
            continue
        folder = ctx.cross if row["source"].startswith(
            os.path.basename(ctx.cross or "") + "/") and ctx.cross else ctx.dir
        out.append((what[:-4], folder, c.id, row["n"] or "0"))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m scripts.analysis.jobs",
                                 description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("drift", help="the drift reference of one experiment, one line")
    d.add_argument("hostdir")
    d.add_argument("experiment")
    for name, what in (("readme", "rewrite HOSTDIR/README.md"),
                       ("write", "HOSTDIR/claims.csv and README.md, and the report's lines"),
                       ("undecided", "the inconclusive paired claims and the experiments "
                        "they read")):
        sub.add_parser(name, help=what).add_argument("hostdir")
    a = ap.parse_args(argv)
    if not os.path.isdir(a.hostdir):
        ap.error(f"{a.hostdir!r} is not a folder of results")
    if a.cmd == "drift":
        print(drift_note(a.hostdir, a.experiment))
    elif a.cmd == "undecided":
        for u in undecided(a.hostdir):
            print("\t".join(str(x) for x in u))
    elif a.cmd == "readme":
        write_whole(os.path.join(a.hostdir, "README.md"), summarize.host_readme(a.hostdir))
    else:
        print("\n".join(write_report(a.hostdir)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
