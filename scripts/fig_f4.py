# SPDX-License-Identifier: BSD-2-Clause
"""fig_f4.py - F4's producers-and-consumers panels, each regime apart.

Under prodcons (producers and consumers apart) a closed-loop run lands near
empty (the consumer waits) or full (the producer waits), and the two differ
several-fold in throughput, lost races and latency; a median over both would
measure the mix. plot.py's prep_f4 prepares a group per workload and amount of
local work; here a prodcons group whose runs' regimes are known is split into
one group per (pace, regime) (scripts/regime.py), drawn as the peers figure
draws them: marker shape per regime, n beside the dot where the runs split,
the groups side by side in the backoff's slot (one thread count) or as lines
of their own (several). The paired change against none (summarize.f4) stays
one per workload and amount of work, over all its runs: the first group of a
split carries it, and the caption says the regimes are pooled there.

pairs and mixed (every thread enqueues and dequeues) have no producer side to
wait on: they are drawn as before.

Uses plot.py's helpers through ``P`` (bound by plot.py at import).
"""

from . import fig_common as FC

P = None


def bind(ns):
    global P
    P = ns


#: the spread of a (backoff, amount of work)'s regime groups in its slot: with
#: one amount of work, with several (their own spread is plot.F4_SLOT_SPREAD)
REGIME_SPREAD = {False: 0.3, True: 0.12}


def series_of(rows):
    """prep_f4_group's series over ``rows``."""
    value = {"tput": "throughput_ops_per_s", "failed": P.failed_per_1000,
             "bns": P.backoff_ns_per_op, "fair": P.fairness_of, "p99": "p99_ns"}
    return {k: P.f4_series(rows, v) for k, v in value.items()}


def split_regimes(groups):
    """The groups of one workload's panel (prep_f4_group's), a prodcons group
    whose runs' regimes are known split into one per (pace, regime): each a
    copy with "regime" (the group), "rk" (its index) and "rn" (how many), its
    rows and series; "sub" True for all but the first, which alone keeps the
    change against none and the harness."""
    out = []
    for g in groups:
        parts = FC.split(g["rows"])
        if g["workload"] != "prodcons" or not FC.regimes_known(parts):
            out.append(g)
            continue
        order = FC.group_order(parts)
        # the harness alone by backoff and threads, over all the runs (the null
        # queue has no regime): {backoff: {threads: median}}
        harness = {b: {q[0]: q[6] for q in pts if q[6]} for b, pts in g["tput"].items()}
        for k, grp in enumerate(order):
            sub = dict(g)
            sub["slot_harness"] = harness
            sub.update(series_of(parts[grp]))
            sub.update({"regime": grp, "rk": k, "rn": len(order), "sub": k > 0,
                        "rows": parts[grp], "change": g["change"] if k == 0 else [],
                        "harness": g["harness"] if k == 0 else []})
            out.append(sub)
    return out


def slot_harness(pn, backoffs):
    """{(backoff, j): {threads: the harness alone}} of a panel: one per slot
    (backoff and amount of work j), over all its runs where they are split by
    regime, else the group's own."""
    out = {}
    for g in pn["groups"]:
        hs = g.get("slot_harness") or {b: {q[0]: q[6] for q in pts if q[6]}
                                       for b, pts in g["tput"].items()}
        for b, byt in hs.items():
            if b in backoffs and byt:
                out.setdefault((b, g["j"]), byt)
    return out


def place(panels, works):
    """Each regime group's x offset in its slot (dx), once the amounts of work
    are known."""
    spread = REGIME_SPREAD[len(works) > 1]
    for pn in panels:
        for g in pn["groups"]:
            g["dx"] = FC.spread(g.get("rk", 0), g.get("rn", 1), spread)


def split_any(p):
    """Whether some panel's runs are split by regime."""
    return any(g.get("regime") for pn in p["columns"] for g in pn["groups"])


def groups_drawn(p):
    """The (pace, regime) groups drawn apart, in order."""
    return FC.group_order({g["regime"] for pn in p["columns"] for g in pn["groups"]
                           if g.get("regime")})


def marker(g):
    """A group's marker: shape per regime where its runs were split, else a circle."""
    return FC.REGIME_MARKER.get(g["regime"][1], "D") if g.get("regime") else "o"


def point_type(g):
    """gnuplot's point types (filled, hollow) of a group's marks: shape per
    regime where its runs were split (fig_common.REGIME_PT), else circles."""
    return FC.REGIME_PT.get(g["regime"][1], (13, 12)) if g.get("regime") else (7, 6)


def show_n(g):
    return g.get("rn", 1) > 1


def drawn_words(p):
    """The caption's words for the regimes (or '')."""
    if not split_any(p):
        return ""
    return ("prodcons: each regime apart (shape%s); its change vs none over all its runs "
            "(summarize.f4: regimes pooled)" % (
                "; n beside a dot where the runs split" if p.get("categorical") else ""))


def legend_handles(p):
    """The regime shapes of the legend (matplotlib), [] where nothing was split."""
    if not split_any(p):
        return []
    plt = P.plt
    h = FC.regime_legend(groups_drawn(p))
    if p.get("categorical") and any(show_n(g) for pn in p["columns"] for g in pn["groups"]):
        h.append(plt.Line2D([], [], linestyle="none", label="n beside a dot: its runs"))
    return h
