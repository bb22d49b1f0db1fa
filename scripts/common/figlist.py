# SPDX-License-Identifier: BSD-2-Clause
"""figlist.py - the study's main figures: the one list of them.

Each figure's name (plots/<host>/<name>.png and .pdf, plots/<host>/data/<name>.dat,
scripts/gnuplot/<name>.gp), the experiment whose tidy CSV it draws
(experiments/<experiment>.exp, which names the finding) and its panels on a
single host, in the order the figures are drawn and listed. Two packages read
it: scripts/figures/plot.py draws each (its FIGURES: this list with each
figure's preparation, PREPARE) and scripts/analysis/gallery.py shows each in
the results README beside the claims of its finding. It lives here, in common,
because the analysis may not import the figures (scripts/tests/test_layout.py):
a figure added here is drawn and shown in the README, and plot.py fails on
import until it has a preparation.
"""

#: the most panels a main figure may have (issue 33: one message per figure);
#: the diagnostics go to the supplement
MAX_PANELS = 4

#: (name, experiment, panels on a single host), in drawing order
FIGURES = (
    ("f1-lookup-cost", "f1-lookup-cost", 1),
    ("f2-node-cache", "f2-node-cache", 1),
    ("f3-gate-percentiles", "f3-gate", 1),
    ("f4-backoff", "f4-backoff", 3),
    ("f4-spin", "f4-spin", 2),
    ("f5-ceiling", "f5-ceiling", 2),
    ("peers-throughput", "peers", 3),
    ("placement", "placement", 3),
)

#: the supplement: the diagnostics behind the main figures (regimes, fairness,
#: p99, time in backoff, lost races, hand-over distances, oversubscribed
#: points, occupancy), drawn into plots/<host>/supplement/<name>.png (and
#: .pdf, its .dat in supplement/data/) and listed, not shown, in the results
#: README; (name, experiment, panels on a single host) as FIGURES
SUPPLEMENT = (
    ("f1-lookup-cost-regimes", "f1-lookup-cost", 1),
    ("f2-node-cache-regimes", "f2-node-cache", 1),
    ("f3-gate-vs-threads", "f3-gate", 2),
    ("f3-gate-load-diagnostics", "f3-gate", 6),
    ("f5-ceiling-open-loop", "f5-ceiling", 2),
    ("peers-latency", "peers", 2),
    ("f4-backoff-diagnostics", "f4-backoff", 18),
    ("peers-regimes", "peers", 2),
)

#: what each supplement figure shows, one line (the results README lists it)
SUPPLEMENT_WHAT = {
    "f1-lookup-cost-regimes": "F1's time per item by look-up mode, each (pace, regime) group "
                              "of its runs its own bar, on none's data movement in the same "
                              "group",
    "f2-node-cache-regimes": "F2's throughput by look-up mode, each (pace, regime) group of "
                             "its runs apart, each mode's ceiling and harness alone over it",
    "f3-gate-vs-threads": "F3's p50 and p99 latency against threads, by gate",
    "f3-gate-load-diagnostics": "F3 against the offered load, every gate: p50 and p99, items "
                                "in flight (Little), throughput against the offered rate, "
                                "the oversubscribed thread counts apart",
    "f5-ceiling-open-loop": "F5 in open loop (measured = offered by construction): throughput "
                            "against the realized batch (items per cross-node transfer), "
                            "the configured batch labelled, and its share of the ceiling",
    "peers-latency": "the peers' closed-loop latency by queue and regime (queue "
                     "occupancy, not hand-over)",
    "f4-backoff-diagnostics": "F4 per workload and local work: throughput by backoff, its "
                              "change against none, lost races, time in backoff, fairness "
                              "and p99, prodcons' regimes apart",
    "peers-regimes": "the peers' throughput with each (pace, regime) group apart, per item "
                     "mode and bursts, with the ceiling model; pairs and mixed with their "
                     "lost races",
}

#: the folder of plots/<host>/ that holds the supplement
SUPPLEMENT_DIR = "supplement"


def figures():
    """[(name, experiment)] of the main figures, in drawing order."""
    return [(name, exp) for name, exp, _panels in FIGURES]


def supplement():
    """[(name, experiment)] of the supplement's figures, in drawing order."""
    return [(name, exp) for name, exp, _panels in SUPPLEMENT]


def every_figure():
    """[(name, experiment)] of the main figures, then the supplement's."""
    return figures() + supplement()


def in_supplement(name):
    """Whether figure ``name`` is the supplement's (plots/<host>/supplement/)."""
    return name in {n for n, _e, _p in SUPPLEMENT}
