# SPDX-License-Identifier: BSD-2-Clause
"""drift.py - each experiment's drift reference against the effects it states.

An experiment runs its reference configuration at the start, after half the
runs and at the end (points reference-start, -middle, -end; kept out of every
other number). drift() is (max - min) / median of those runs, flagged where it
exceeds the smallest paired effect the results README states for that
experiment (stated_effects(), from findings.py), or the study's effect where
the host states none.
"""

import os
import statistics

from . import findings
from ..common import manifest
from . import nrdata


#: what each experiment's drift reference is measured by: the value its ratios are of
DRIFT_METRIC = {"f3-gate": "p50_ns"}


def stated_effects(hostdir, exp):
    """[(what, effect)]: every paired ratio between configurations the README
    states for an experiment, as its distance from no effect (|ratio - 1|;
    F1's look-up / data movement is itself the excess). F4's changes count only
    where the backoff ran."""
    out = []

    def add(d, key, what, excess=lambda v: abs(v - 1)):
        if d.get(key) is not None:
            out.append((what, excess(d[key])))
    if exp == "f1-lookup-cost":
        r = findings.f1(hostdir) or {}
        add(r, "ratio", "look-up / data movement", abs)
        for m in findings.F1_VS_NONE:
            add(r, f"{m}_vs_none", f"{m} vs none")
    elif exp == "f2-node-cache":
        r = findings.f2(hostdir) or {}
        add(r, "cached_over_libnuma", "cached / libnuma")
        add(r, "rseq_over_libnuma", "rseq / libnuma")
    elif exp == "f3-gate":
        for d in (findings.f3(hostdir) or {}).get("loads", []):
            at = f" (load {d['load']})" if d["load"] else ""
            add(d, "shared_over_perworker", "p50 shared / per-worker" + at)
            add(d, "p99_shared_over_perworker", "p99 shared / per-worker" + at)
    elif exp == "f4-backoff":
        keys = findings.f4_workloads(hostdir)
        for wl, work in keys:
            r = findings.f4(hostdir, wl, work) or {}
            at = "" if len(keys) == 1 else f" ({wl}{f', work {work:g} ns' if work else ''})"
            for b in findings.F4_BACKOFFS:
                if r.get(f"{b}_exercised") is not False:
                    add(r, f"{b}_change_pct", f"{b} vs none{at}", lambda v: abs(v) / 100)
    elif exp == "f5-ceiling":
        try:
            cr = findings.ceiling_ratios(hostdir, exp)
        except (ValueError, OSError):
            cr = None
        if cr:
            best = max(cr, key=lambda x: x["ratio"])
            if best["ratio"] < 1:
                out.append(("the closest point's margin below its ceiling",
                            1 - best["ratio"]))
    elif exp == "peers":
        for item in manifest.items():
            r = findings.peers(hostdir, item) or {}
            for b, label in (("0", "single"), ("1", "bursts")):
                for q in ("best", "flat", "rte"):
                    peer = r.get(f"b{b}_best_peer") if q == "best" else q
                    add(r, f"b{b}_over_{q}", f"numaring / {peer}, {item}, {label}")
    return out


#: Each experiment's effect in the study (design.md section 1), as |ratio - 1|
#: (F1: the look-up's excess over the data movement), for drift() where the
#: host states no ratio of its own: a drift above it could make or unmake the
#: finding. F5 states no ratio: a drift of a fifth moves a point that far
#: against its ceiling.
STUDY_EFFECT = {
    "f1-lookup-cost": ("the study's look-up 11x the data movement", 11.0),
    "f2-node-cache": ("the study's cached look-up 6x", 5.0),
    "f3-gate": ("the study's 200x latency cut", 199.0),
    "f4-backoff": ("the study's 15% backoff cost", 0.15),
    "f4-spin": ("the study's 15% backoff cost", 0.15),
    "f5-ceiling": ("a fifth of the ceiling", 0.2),
    "peers": ("a fifth of throughput", 0.2),
    # the placement sweep states no ratio of the study's: numaring against
    # the best peer per placement, as the peers
    "placement": ("a fifth of throughput", 0.2),
}


def reference_of(rows, refs):
    """The point whose configuration the reference's runs share, or None."""
    cols = [c for c in nrdata.CONFIG_COLUMNS if c != "profile"]
    want = {c: (refs[0].get(c) or "") for c in cols}
    return next((r["point"] for r in rows if all((r.get(c) or "") == want[c] for c in cols)),
                None)


def drift(hostdir, exp):
    """The drift of an experiment's reference configuration, or None where it
    has no reference runs: a dict with the reference's point, the metric, the
    values at start/middle/end (None where missing), drift = (max - min) /
    median over the runs present, the smallest stated effect (what, size) and
    flagged: True where the drift exceeds it (the sweep moved more than the
    effect it reports; None where no effect is stated or fewer than two
    reference runs exist)."""
    path = os.path.join(hostdir, f"{exp}.csv")
    refs = findings.load_refs(path)
    if not refs:
        return None
    metric = DRIFT_METRIC.get(exp, "throughput_ops_per_s")
    if not all((r.get(metric) or "").strip() for r in refs):
        metric = "throughput_ops_per_s"
    vals = {r["point"]: float(r[metric]) for r in refs if (r.get(metric) or "").strip()}
    seq = [vals.get(n) for n in nrdata.REFERENCE_POINTS]
    present = [v for v in seq if v is not None]
    out = {"experiment": exp, "metric": metric, "values": seq, "n": len(present),
           "point": reference_of(findings.load(path), refs), "drift": None, "smallest": None,
           "flagged": None, "oversubscribed": findings.any_oversubscribed(refs)}
    if len(present) >= 2 and statistics.median(present) > 0:
        out["drift"] = (max(present) - min(present)) / statistics.median(present)
    effects = stated_effects(hostdir, exp)
    # nothing stated here: the study's effect
    out["smallest"] = min(effects, key=lambda e: e[1]) if effects else STUDY_EFFECT.get(exp)
    if out["drift"] is not None and out["smallest"] is not None:
        out["flagged"] = out["drift"] > out["smallest"][1]
    return out
