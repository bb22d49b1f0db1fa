# SPDX-License-Identifier: BSD-2-Clause
"""backoff_default.py - is the production default backoff close to the best? The
verdict of each host's make bench-backoff (issue 45), as docs/ring.md's block.

    python3 -m scripts.analysis.backoff_default readme docs/ring.md [--check]

Each host folder with bench/bench-backoff.csv (scripts/runner/bench_backoff.py)
gives one row per cell. The default (the manifest's backoff_default) is paired
with the others round by round: `/ best` is the median of its rounds' ratios to
the cell's best backoff (highest median throughput), `/ none` the median of its
ratios to none, each with the rounds' min..max. The targets: within a tenth of
the best in pairs and mixed; no more than a twentieth below none in prodcons
and with local work (the -w300 cells); a cell whose default runs lost no race
ran no backoff, and its ratio to none is only noise: "not exercised" meets
that target by definition.
"""

import argparse
import os
import sys

import pandas as pd

from ..common import manifest
from ..common.wholefile import write_whole
from . import nrdata

BEGIN = ("<!-- BEGIN GENERATED: default backoff (python3 -m scripts.analysis.backoff_default "
         "readme docs/ring.md; do not edit) -->")
END = "<!-- END GENERATED: default backoff -->"
CSV = os.path.join("bench", "bench-backoff.csv")
NEAR_BEST, NEAR_NONE = 0.9, 0.95
COLUMNS = ("round", "cell", "backoff", "throughput_ops_per_s", "failed_attempts")


def paired(wide, num, den):
    """Median, min and max over the rounds of wide[num] / wide[den]."""
    r = (wide[num] / wide[den]).dropna()
    return r.median(), r.min(), r.max()


def cell_verdicts(df, default):
    """One dict per cell of one host's bench-backoff rows (a DataFrame)."""
    out = []
    order = ("pairs", "mixed", "prodcons")  # bench_backoff's CELLS' order
    cells = sorted(df["cell"].unique(), key=lambda c: (
        next((i for i, w in enumerate(order) if c.startswith(w)), len(order)), c))
    for cell in cells:
        g = df[df["cell"] == cell]
        wide = g.pivot_table(index="round", columns="backoff",
                             values="throughput_ops_per_s", aggfunc="first")
        if default not in wide:
            continue
        best = wide.median().idxmax()
        lost = g.loc[g["backoff"] == default, "failed_attempts"].sum() > 0
        v = {"cell": cell, "rounds": len(wide), "best": best,
             "vs_best": paired(wide, default, best), "exercised": bool(lost),
             "vs_none": paired(wide, default, "none") if "none" in wide else None}
        checks = []
        if cell.startswith(order[:2]):  # pairs, mixed: races lost
            checks.append(v["vs_best"][0] >= NEAR_BEST)
        if cell.startswith("prodcons") or not cell.endswith("-w0"):
            checks.append(not lost or (v["vs_none"] is not None
                                       and v["vs_none"][0] >= NEAR_NONE))
        v["met"] = all(checks)
        out.append(v)
    return out


def hosts_with_csv(results):
    return [h for h in sorted(os.listdir(results)) if os.path.isfile(os.path.join(results, h, CSV))]


def fmt(t):
    return "{:.2f} [{:.2f}..{:.2f}]".format(*t)


def block(results):
    default = manifest.backoff_default()
    lines = [BEGIN, "",
             f"The default, `{default}`, against the best backoff of each cell and against "
             "`none`: medians of the rounds' paired ratios [min..max], from "
             "`results/<host>/bench/bench-backoff.csv`. Target: `/ best` at least "
             f"{NEAR_BEST:g} in pairs and mixed; `/ none` at least {NEAR_NONE:g} in "
             "prodcons and with local work (`-w300`), or not exercised (no race lost: no "
             "backoff ran).", "",
             "| host | cell | rounds | best | default / best | default / none | target |",
             "|---|---|---|---|---|---|---|"]
    hosts = hosts_with_csv(results)
    for h in hosts:
        try:
            df = nrdata.read_frame(os.path.join(results, h, CSV))
        except (OSError, ValueError) as e:
            raise ValueError(f"{h}/{CSV}: {e}")
        missing = [c for c in COLUMNS if c not in df]
        if missing:
            raise ValueError(f"{h}/{CSV}: no column {', '.join(missing)}")
        if not pd.api.types.is_numeric_dtype(df["throughput_ops_per_s"]):
            raise ValueError(f"{h}/{CSV}: throughput_ops_per_s is not numeric")
        for v in cell_verdicts(df, default):
            none = "—" if v["vs_none"] is None else fmt(v["vs_none"])
            if not v["exercised"]:
                none += " (not exercised)"
            lines.append(f"| `{h}` | {v['cell']} | {v['rounds']} | {v['best']} | "
                         f"{fmt(v['vs_best'])} | {none} | {'met' if v['met'] else 'MISSED'} |")
    if not hosts:
        lines.append("| (no bench-backoff results yet) | | | | | | |")
    return lines + ["", END]


def replace_block(text, lines):
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise ValueError(f"expected one '{BEGIN}' line followed by one '{END}' line")
    return text[:text.index(BEGIN)] + "\n".join(lines) + text[text.index(END) + len(END):]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m scripts.analysis.backoff_default",
                                 description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("readme", help="rewrite FILE's generated block (docs/ring.md)")
    r.add_argument("file")
    r.add_argument("--results", default="results", help="results folder (default results)")
    r.add_argument("--check", action="store_true",
                   help="change nothing; exit 1 where the block is stale")
    a = ap.parse_args(argv)
    try:
        with open(a.file, encoding="utf-8") as f:
            text = f.read()
        new = replace_block(text, block(a.results))
    except (OSError, ValueError) as e:
        print(f"backoff_default: {e}", file=sys.stderr)
        return 2
    if a.check:
        if new != text:
            print(f"backoff_default: {a.file}: the block is stale: run python3 -m "
                  f"scripts.analysis.backoff_default readme {a.file}", file=sys.stderr)
            return 1
        return 0
    if new != text:
        write_whole(a.file, new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
