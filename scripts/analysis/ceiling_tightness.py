# SPDX-License-Identifier: BSD-2-Clause
"""ceiling_tightness.py - how tight the ceiling model is, per queue and regime.

A model loose enough to pass everything tests nothing: for each queue of the
peers sweep, the best point in each regime (the median of the point's runs
that ran in it) against its ceiling (scripts/analysis/ceiling.py), with the binding
term named. The issue's target for the near-empty regime is TIGHT = 0.5: a
queue whose best near-empty point stays below half of its ceiling has a
ceiling that does not bind it here, and the README says so.
"""

import os
import statistics

from ..common import regime
from . import ceiling, findings, nrdata, templates

#: the share of its ceiling a queue's best near-empty point should reach
TIGHT = 0.5


def tightness(hostdir, name="peers"):
    """[{queue, regime, ratio, measured, ceiling (M items/s), bound, point}]:
    per queue and regime the point with the highest median measured /
    ceiling, each run against its own ceiling (ceiling.group_ratio; prodcons
    rows the model speaks of, of the peers sweep's named configuration: no
    local work on both sides, every thread on one node, nrdata.peers_named);
    None without a probe."""
    rows = [r for r in findings.load(os.path.join(hostdir, f"{name}.csv"))
            if nrdata.peers_named(r)]
    probe = ceiling.host_probe(hostdir) if rows else None
    if not probe:
        return None
    groups = {}
    for r in rows:
        if ceiling.modelled(r) and regime.closed_loop(r):
            groups.setdefault((r["queue"], regime.of(r), r["point"]), []).append(r)
    best = {}
    for (q, reg, pid), rs in groups.items():
        g = ceiling.group_ratio(probe, rs)
        if not g:
            continue
        w = [v for v in (ceiling.sojourn_in_transfers(probe, r) for r in rs) if v]
        d = {"queue": q, "regime": reg, "ratio": g["ratio"], "measured": g["measured"] / 1e6,
             "ceiling": g["ceiling"] / 1e6, "bound": g["bound"], "point": pid,
             "runs": len(rs), "sojourn": statistics.median(w) if w else None}
        if (q, reg) not in best or d["ratio"] > best[(q, reg)]["ratio"]:
            best[(q, reg)] = d
    return [best[k] for k in sorted(best)]


def instrument(hostdir):
    """(t_h, t_c): the probe's hand-over timed as the harness times an item
    (handover_stamped_ns) and its one-way line transfer (ns); t_h None where
    the probe predates the row, (None, None) without a probe."""
    probe = ceiling.host_probe(hostdir)
    if not probe:
        return None, None
    return probe.get("handover_stamped_ns"), ceiling.params(probe)["t_c"]


def instrument_sentence(hostdir):
    """What the harness's own stamps and polls leave a latency-bound run here."""
    t_h, t_c = instrument(hostdir)
    if not t_c:
        return ""
    if not t_h:
        return (" This host's probe predates its timing of a hand-over as the harness times "
                "an item (handover_stamped_ns), so the instrument's share is not known here.")
    return (f" The probe timed one hand-over as the harness times an item "
            f"(handover_stamped_ns: the producer's stamp, one line to a consumer polling as "
            f"the harness's consumers poll, the consumer's stamp) at {t_h:.1f} ns against a "
            f"one-way transfer t_c of {t_c:.1f} ns: through this harness a latency-bound run "
            f"reaches at most about {min(1.0, t_c / t_h):.2f} of its latency term before any "
            "queue adds its own work or any stall its time.")


def lines(hostdir):
    t = tightness(hostdir)
    if not t:
        return []
    loose = [d["queue"] for d in t if d["regime"] == "near-empty" and d["ratio"] < TIGHT]
    return templates.section("readme_sections.md.j2", "tightness", {}, tight=f"{TIGHT:g}",
                             loose=loose, instrument=instrument_sentence(hostdir), rows=t)
