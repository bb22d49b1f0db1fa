# SPDX-License-Identifier: BSD-2-Clause
"""regime_section.py - the results README's section on regimes.

Every peers, F1 and F2 ratio is stated per regime (scripts/common/regime.py): the
runs of a comparison are split into (pace, regime) groups and paired only
within one group. This writes that section of results/<host>/README.md from
summarize's functions (the one estimator, scripts/analysis/stats.py's interval).
"""

from ..common import regime
from . import findings
from . import stats
from . import templates


#: the peers the finding table quotes numaring against (the full table of queues
#: per group is the figure's)
QUOTED = ("rte", "flat")


def regime_says(r, prefix=""):
    """'regime full; runs: 3 near-empty, 7 full' for a result of within_regime(),
    and where the selection left pairs out, how many and the pooled ratio:
    '...; pairs used 4 of 10 (selected after the fact), pooled 14.3 [..]'."""
    mix = r.get(prefix + "regime_mix")
    out = f"regime {r.get(prefix + 'regime', '?')}" + (f"; runs: {mix}" if mix else "")
    used, measured = r.get(prefix + "pairs_used"), r.get(prefix + "pairs_measured")
    if used is not None and measured and used != measured:
        pooled = r.get(prefix + "pooled")
        out += (f"; pairs used {used} of {measured} "
                + ("(the pace the experiment declared)" if r.get(prefix + "by_design")
                   else "(the free runs' regime, chosen after the fact)")
                + (f", pooled over every regime {stats.fmt(pooled, show_coverage=False)}"
                   if pooled else ""))
    return out


def _fmt(iv, unit="x"):
    return "—" if iv is None else stats.fmt(iv) + unit


def lines(hostdir):
    rows = []
    for r, what in ((findings.f1(hostdir), "F1: look-up / data movement (libnuma vs none)"),
                    (findings.f2(hostdir), "F2: cached / libnuma at {threads} threads")):
        for label, iv in (r or {}).get("regimes", {}).items():
            rows.append((what.format(**r), label, _fmt(iv), r.get("regime_mix") or "one group"))
    for item in ("inline", "message"):
        r = findings.peers(hostdir, item)
        if not r:
            continue
        for b, what in (("0", "single operations"), ("1", "bursts")):
            for label, qs in r.get(f"b{b}_groups", {}).items():
                for q, e in qs.items():
                    if q in QUOTED:
                        rows.append((f"peers ({item}, {what}): numaring / {q}", label,
                                     _fmt(e["ring_over"]), f"{e['runs']} runs of {q} in it"))
    return templates.section("readme_sections.md.j2", "regimes", {}, rows=rows,
                             full_at=f"{regime.FULL_OCCUPANCY:g}") if rows else []
