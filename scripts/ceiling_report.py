# SPDX-License-Identifier: BSD-2-Clause
"""ceiling_report.py - how tight the ceiling model is, per queue and regime.

A model loose enough to pass everything tests nothing: for each queue of the
peers sweep, the best point in each regime (the median of the point's runs
that ran in it) against its ceiling (scripts/ceiling.py), with the binding
term named. The issue's target for the near-empty regime is TIGHT = 0.5: a
queue whose best near-empty point stays below half of its ceiling has a
ceiling that does not bind it here, and the README says so.
"""

import os

from . import regime

#: the share of its ceiling a queue's best near-empty point should reach
TIGHT = 0.5


def tightness(hostdir, name="peers"):
    """[{queue, regime, ratio, measured, ceiling (M items/s), bound, point}]:
    per queue and regime the point with the highest median measured /
    ceiling (prodcons rows the model speaks of); None without a probe."""
    from . import ceiling
    from . import summarize
    ppath = os.path.join(hostdir, "probe", "probe.csv")
    rows = summarize.load(os.path.join(hostdir, f"{name}.csv"))
    if not rows or not os.path.exists(ppath):
        return None
    probe = ceiling.load_probe(ppath)
    groups = {}
    for r in rows:
        if ceiling.modelled(r) and regime.closed_loop(r):
            groups.setdefault((r["queue"], regime.of(r), r["point"]), []).append(r)
    best = {}
    for (q, reg, pid), rs in groups.items():
        m = summarize.med(rs, "throughput_ops_per_s")
        c = ceiling.ceiling_ops_per_s(probe, rs[0])
        if not m or not c:
            continue
        d = {"queue": q, "regime": reg, "ratio": m / c, "measured": m / 1e6,
             "ceiling": c / 1e6, "bound": ceiling.binding(probe, rs[0]), "point": pid,
             "runs": len(rs)}
        if (q, reg) not in best or d["ratio"] > best[(q, reg)]["ratio"]:
            best[(q, reg)] = d
    return [best[k] for k in sorted(best)]


def lines(hostdir):
    t = tightness(hostdir)
    if not t:
        return []
    near = [d for d in t if d["regime"] == "near-empty"]
    loose = [d["queue"] for d in near if d["ratio"] < TIGHT]
    out = ["", "## How tight the ceiling model is", "",
           "Per queue of the peers sweep and regime, the best point (median of its runs in "
           "that regime) against its ceiling, and the term that binds. A model a queue's "
           f"best near-empty point does not reach {TIGHT:g} of is too loose to test that "
           "queue here: "
           + (f"{', '.join(loose)}." if loose else "none.")
           + " Above 1 the model fails.", "",
           "| queue | regime | best measured / ceiling | M items/s | ceiling | binding term | "
           "point |", "|---|---|---|---|---|---|---|"]
    for d in t:
        out.append(f"| {d['queue']} | {d['regime']} | {d['ratio']:.2f} | {d['measured']:.1f} | "
                   f"{d['ceiling']:.1f} | {d['bound']} | `{d['point']}` ({d['runs']} runs) |")
    return out
