# SPDX-License-Identifier: BSD-2-Clause
"""Draw the study's figures from results/ (matplotlib, optionally gnuplot too).

usage: plot.py [--results DIR] [--plots DIR] [--host HOST ...]
               [--compare HOSTA HOSTB] [--gnuplot]

For every host under results/ (or the named ones) and every experiment whose
tidy CSV results/<host>/<experiment>.csv exists, writes
plots/<host>/<figure>.png and .pdf:

  f1-lookup-cost       per-item cost: data movement + node look-up, by mode (fig_f1.py)
  f2-node-cache        throughput by look-up mode (fig_f2.py, fig_lines.py)
  f3-gate-percentiles  p50 vs offered load, shared against per-worker gate, the paired
                       ratio per load and the study's 200x (closed loop, older
                       results: percentiles; fig_f3.py)
  f4-backoff           per workload: each backoff's throughput change against none (fig_f4.py)
  f4-spin              pause's and exp's change against none by spin length (fig_f4_spin.py)
  f5-ceiling           closed-loop capacity vs the ceiling model per batch, the binding
                       term named, the interconnect's term beside it (fig_f5.py)
  peers-throughput     where NumaRing stands against the field's queues: throughput
                       by queue per workload, grouped strict FIFO | relaxed | floors
                       (fig_peers_main.py)
  placement            throughput per queue by placement of threads and memory, numaring
                       / the best peer per placement: a heatmap (fig_placement.py)

and the supplement (scripts/common/figlist.py SUPPLEMENT: the diagnostics) into
plots/<host>/supplement/:

  f1-lookup-cost-regimes  F1's bars by (pace, regime) group (fig_f1.py)
  f2-node-cache-regimes   F2's throughput by look-up mode and regime (fig_f2.py, fig_lines.py)
  f3-gate-vs-threads   p50 and p99 latency vs threads by gate (fig_f3b.py)
  f3-gate-load-diagnostics  every gate's p50 and p99, items in flight, throughput vs
                       offered load, oversubscribed thread counts (fig_f3.py)
  f5-ceiling-open-loop throughput vs the realized batch, open loop (fig_f5.py)
  peers-latency        closed-loop latency by queue and regime (fig_peers_latency.py)
  f4-backoff-diagnostics  F4's throughput, change, lost races, time in backoff, fairness,
                       p99 per workload and local work (fig_f4.py)
  peers-regimes        the peers' throughput with each (pace, regime) group apart, per
                       item mode and bursts, pairs and mixed with lost races (fig_peers.py)

--compare A B draws each figure with host A and host B side by side into
plots/compare-A-vs-B/.  --gnuplot also writes plots/<host>/data/<figure>.dat
and draws plots/<host>/gnuplot/<figure>.png with scripts/gnuplot/<figure>.gp.

Exit status: 0 done; 1 a gnuplot script failed or gnuplot is missing;
2 bad input (one message naming the file, line and column; nothing written).
The physical ceiling comes from scripts/analysis/ceiling.py (load_probe,
ceiling_ops_per_s) and results/<host>/probe/probe.csv where both exist.
Every throughput figure also draws the harness's own ceiling (harness_ops_per_s:
the null queue through the same code, median over the runs at each point; F1:
its ns per item as the floor), grey dash-dot, and rings a point at >= 0.8 x its
own. Every figure marks an oversubscribed point (the tidy CSV's oversubscribed
column: the run's threads outnumbered the CPUs they ran on) with a black x
over its marker (bars and lines: the word "oversubscribed"). A variant with a
single x value is drawn as points, not lines; the drift reference's runs (role
reference) are never drawn. Whiskers around a median are its order-statistic
interval (scripts/analysis/stats.py: min..max up to 5 runs); a ratio is printed with its
interval and the interval's coverage.
The caption under a figure is the host, its warnings and one line of what is
drawn; everything else a figure's preparation says (item mode, harness, how
many points are oversubscribed, ...) goes to its notes: the header of its .dat
(the results README, which summarize.py writes, says the rest). Every block of
a .dat names its columns in a '# columns:' line.
"""

import argparse
import functools
import os
import shutil
import sys

from ..analysis import nrdata
from ..common import figlist
from . import fig_common
from . import fig_draw
from . import fig_f1
from . import fig_f2
from . import fig_f3
from . import fig_f3b
from . import fig_f4
from . import fig_f4_spin
from . import fig_f5
from . import fig_gnuplot
from . import fig_host
from . import fig_lines
from . import fig_peers
from . import fig_peers_latency
from . import fig_peers_main
from . import fig_placement
from .fig_draw import (
    add_caption, figure_size, headline, init_matplotlib, no_data, save, suptitle,
    thread_colors, unify_row)
from .fig_f1 import prep as prep_f1
from .fig_f2 import prep_f2
from .fig_f3 import draw_f3a, prep_f3_diag, prep_f3a
from .fig_f3b import draw_f3b, prep_f3b
from .fig_f4 import prep_f4, prep_f4_change
from .fig_f4_draw import draw_f4, draw_f4_main
from .fig_f4_spin import draw_f4_spin, prep_f4_spin
from .fig_f5 import prep_f5, prep_f5_open
from .fig_host import emulated, guest, SCRIPT_DIR
from .fig_peers import draw_peers, prep_peers_regimes
from .fig_peers_main import draw_peers_main, prep_peers
from .fig_peers_latency import draw_peers_latency, prep_peers_latency
from .fig_placement import draw_placement, prep_placement
from ..analysis.nrdata import DataError
# the names callers (the tests) know this module by
from .fig_f3 import envelope, F3_OVER_TITLE, F3_PCT, latency_curve  # noqa: F401
from .fig_f4 import F4_DAT_BLOCKS, F4_FAIR_LINE, F4_ROWS, f4_slot_x  # noqa: F401
from .fig_f5 import draw_f5, realized_of  # noqa: F401
from .fig_host import (  # noqa: F401
    bound_count, caption_lines, claim_style, fmt_claim, HARNESS_LABEL, OVERSUB_LABEL,
    oversub_status, PAIRED_WORDS)
from .fig_peers import pairs_lost_text, PEERS_PAIRS_BLOCK, PEERS_PAIRS_COLUMNS  # noqa: F401


REPO_DIR = os.path.dirname(SCRIPT_DIR)

PROG = "plot.py"


def note(msg):
    print("%s: %s" % (PROG, msg), flush=True)


# --------------------------------------------------------------------------
# The figures: each prepared once by its own module (fig_*.py, everything that
# can fail on input happens there), drawn from that one preparation by
# matplotlib (DRAW) and written for gnuplot (dat_text)

#: each figure's preparation; the figures themselves (name, experiment,
#: panels) are scripts/common/figlist.py's, which the results READMEs read too
PREPARE = {
    "f1-lookup-cost": prep_f1,
    "f1-lookup-cost-regimes": fig_f1.prep_regimes,
    "f2-node-cache": prep_f2,
    "f2-node-cache-regimes": fig_f2.prep_regimes,
    "f3-gate-percentiles": prep_f3a,
    "f3-gate-vs-threads": prep_f3b,
    "f3-gate-load-diagnostics": prep_f3_diag,
    "f4-backoff": prep_f4_change,
    "f4-spin": prep_f4_spin,
    "f4-backoff-diagnostics": prep_f4,
    "f5-ceiling": prep_f5,
    "f5-ceiling-open-loop": prep_f5_open,
    "peers-throughput": prep_peers,
    "peers-latency": prep_peers_latency,
    "peers-regimes": prep_peers_regimes,
    "placement": prep_placement,
}
# name, experiment, prepare, panels (single host): the main figures, then the
# supplement's (figlist.SUPPLEMENT, drawn into plots/<host>/supplement/)
FIGURES = [(name, exp, PREPARE[name], panels)
           for name, exp, panels in figlist.FIGURES + figlist.SUPPLEMENT]
FIGURE_NAMES = [f[0] for f in FIGURES]
MAIN_NAMES = [name for name, _e in figlist.figures()]


def figure_dir(outdir, name):
    """Where figure ``name`` of a host whose plots are in ``outdir`` goes: the
    folder itself, or its supplement/ for the supplement's figures."""
    return os.path.join(outdir, figlist.SUPPLEMENT_DIR) if figlist.in_supplement(name) \
        else outdir
#: the experiments the figures draw, in FIGURES' order: what a Host loads
EXPERIMENTS = tuple(dict.fromkeys(f[1] for f in FIGURES))
COMPARE_TITLES = {
    "f1-lookup-cost": "F1: node look-up cost vs data movement",
    "f1-lookup-cost-regimes": "F1 by regime: node look-up cost vs data movement",
    "f2-node-cache": "F2: throughput by node look-up mode",
    "f2-node-cache-regimes": "F2 by regime: throughput by look-up mode",
    "f3-gate-percentiles": "F3: p50 latency by gate (open loop: vs offered load), threads "
                           "with a CPU each",
    "f3-gate-load-diagnostics": "F3 diagnostics: latency, items in flight and throughput "
                                "by gate",
    "f3-gate-vs-threads": "F3: enqueue-to-dequeue latency by gate and threads",
    "f4-backoff": "F4: throughput change of each backoff against none, per workload",
    "f4-spin": "F4: throughput change against none by spin length",
    "f4-backoff-diagnostics": "F4: backoff against spinning per workload, diagnostics",
    "f5-ceiling": "F5: closed-loop capacity against the physical ceiling",
    "f5-ceiling-open-loop": "F5: open-loop throughput vs the realized batch",
    "peers-throughput": "Peers: where NumaRing stands against the field's queues",
    "peers-regimes": "Peers: throughput by queue, each regime apart",
    "peers-latency": "Peers: latency at the largest thread count",
    "placement": "Placement: throughput per queue by placement of threads and memory",
}


#: one host's results as the figures read them: the experiments they draw
Host = functools.partial(fig_host.Host, experiments=EXPERIMENTS)

draw_lines = fig_lines.draw

DRAW = {"f1": fig_f1.draw, "f1-regimes": fig_f1.draw_regimes, "f2": fig_f2.draw,
        "lines": draw_lines, "f4": draw_f4, "f4-change": draw_f4_main,
        "f4-spin": draw_f4_spin, "f3a": draw_f3a, "f3b": draw_f3b,
        "f3load": fig_f3.draw_f3_load, "f3main": fig_f3.draw_f3_main, "f5": fig_f5.draw,
        "f5open": fig_f5.draw_open, "peers": draw_peers,
        "peers-latency": draw_peers_latency, "placement": draw_placement,
        "peers-main": draw_peers_main}


def grid_of(name, p):
    """(rows, columns) of one host's figure: the prepared data's grid (peers: one
    row per item mode), else one row of the figure's panels."""
    if p and p.get("grid"):
        return max(1, p["grid"][0]), p["grid"][1]
    return 1, next(f[3] for f in FIGURES if f[0] == name)


def draw_one(name, p, outdir):
    """Draw one host's figure ``name`` from its preparation into outdir."""
    return save(render(name, p), outdir, name)


def render(name, p):
    """One host's figure ``name`` drawn from its preparation ``p``, not saved:
    the matplotlib Figure (the tests count its panels and read its title)."""
    init_matplotlib()
    nrows, ncols = grid_of(name, p)
    w, hgt = figure_size(ncols)
    size = p.get("figsize") or (w, hgt * nrows ** 0.9)
    kw = {}
    if p.get("widths") and len(p["widths"]) == ncols:
        kw["gridspec_kw"] = {"width_ratios": list(p["widths"])}
    fig, axes = fig_draw.plt.subplots(nrows, ncols, figsize=size,
                                      layout="constrained", squeeze=False, **kw)
    DRAW[p["kind"]](list(axes.flat), p)
    t = suptitle(fig, headline(p, size[0]), emulated(p), guest(p))
    if p.get("kind") == "f4":
        t.set_fontsize(12.5)
    add_caption(fig, [(None, p["caption"])])
    return fig


def host_head(h, p, subtitle=""):
    """The title of a host's half of a compared figure, and whether it warns."""
    return "host %s%s%s%s" % (h.name, subtitle, "  \u2014  EMULATED nodes" if emulated(p) else "",
                              "  \u2014  GUEST: timings meaningless" if guest(p) else ""), \
        emulated(p) or guest(p)


def save_compare(fig, name, hosts, preps, outdir):
    fig.suptitle("%s: %s vs %s" % (COMPARE_TITLES[name], hosts[0].name, hosts[1].name))
    add_caption(fig, [("host %s" % h.name, p["caption"] if p else
                       [("no data for this figure", None)]) for p, h in zip(preps, hosts)])
    return save(fig, outdir, name)


def draw_compare_grids(name, preps, hosts, outdir):
    """Two hosts side by side where a figure is a grid of panels (F4): each
    host's whole figure in its own half (a subfigure), its title the host."""
    nrows = max(grid_of(name, p)[0] for p in preps if p)
    ncols = [grid_of(name, p)[1] if p else 1 for p in preps]
    w = sum(p["figsize"][0] if p and p.get("figsize") else 8.0 for p in preps)
    hgt = max(p["figsize"][1] if p and p.get("figsize") else 5.0 * nrows for p in preps if p)
    fig = fig_draw.plt.figure(figsize=(w, hgt + 1.2), layout="constrained")
    subs = fig.subfigures(1, 2, width_ratios=[max(1, c) for c in ncols])
    for i, (sub, p, h) in enumerate(zip(subs, preps, hosts)):
        if p is None:
            no_data(sub.subplots(1, 1), "host %s: no data" % h.name)
            continue
        axes = sub.subplots(grid_of(name, p)[0], grid_of(name, p)[1], squeeze=False)
        DRAW[p["kind"]](list(axes.flat), p, show_legend=(i == 1 or preps[1] is None))
        head, bad = host_head(h, p)
        sub.suptitle(headline(dict(p, title=head), fig.get_figwidth() / 2),
                     fontsize=11.5, color="#b00000" if bad else "black")
    return save_compare(fig, name, hosts, preps, outdir)


def draw_compare(name, preps, hosts, outdir):
    init_matplotlib()
    if any(p and p.get("kind") == "f4" for p in preps):
        return draw_compare_grids(name, preps, hosts, outdir)
    panels = max(a * b for a, b in (grid_of(name, p) for p in preps))
    fig, axes = fig_draw.plt.subplots(panels, 2, figsize=figure_size(panels, 2),
                                      layout="constrained", squeeze=False)
    kwargs = {}
    f5 = [p for p in preps if p and p["kind"] == "f5"]
    if f5:
        kwargs["tcolors"] = thread_colors(set().union(*[set(p["threads"]) for p in f5]))
    for col, (p, h) in enumerate(zip(preps, hosts)):
        col_axes = [axes[r][col] for r in range(panels)]
        if p is None:
            for a in col_axes:
                no_data(a, "host %s: no data" % h.name)
            continue
        DRAW[p["kind"]](col_axes, p, show_legend=(col == 1 or preps[1] is None), **kwargs)
        head, bad = host_head(h, p, ", " + p["subtitle"] if p.get("subtitle") else "")
        old_title = col_axes[0].get_title()
        col_axes[0].set_title(head + ("\n" + old_title if old_title else ""), fontsize=11,
                              color="#b00000" if bad else "black")
    for r in range(panels):
        unify_row(list(axes[r]))
    return save_compare(fig, name, hosts, preps, outdir)


def __getattr__(name):
    """plot.plt, plot.ticker: fig_draw's, once init_matplotlib has run."""
    if name in ("plt", "ticker"):
        return getattr(fig_draw, name)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


#: a prepared figure's kind -> the function that writes its data file
DAT = {"f1": fig_f1.dat, "f1-regimes": fig_f1.dat_regimes, "f2": fig_f2.dat,
       "f4": fig_f4.dat_f4, "f4-change": fig_f4.dat_f4_change,
       "f4-spin": fig_f4_spin.dat_f4_spin, "lines": fig_lines.dat_lines,
       "peers": fig_peers.dat_peers, "f3a": fig_f3.dat_f3a, "f3load": fig_f3.dat_f3load,
       "f3main": fig_f3.dat_f3main, "f3b": fig_f3b.dat_f3b, "f5": fig_f5.dat_f5,
       "f5open": fig_f5.dat_f5_open,
       "peers-latency": fig_peers_latency.dat_peers_latency,
       "placement": fig_placement.dat_placement,
       "peers-main": fig_peers_main.dat_peers_main}


def dat_text(name, p):
    """The lines of a prepared figure's data file (its module's writer)."""
    return DAT[p["kind"]](name, p)


# --------------------------------------------------------------------------

def prepare(host):
    """{figure: prepared data} for the figures this host has data for."""
    return {name: fig_common.condense(prep(host)) for name, exp, prep, _n in FIGURES
            if exp in host.data}


def figure_ratios(results, host, by_figure=False):
    """The ratios the figures of results/<host> print, by claim id: {claim: value}
    (claim ids: CLAIMS' keys, f4.<backoff>_change_pct, f4.<workload>.<backoff>_change_pct,
    f4.<workload>.work<N>.<backoff>_change_pct (f4_claim), and <claim>_lo, <claim>_hi
    for the interval printed beside a value), each summarize's unrounded value,
    as the preparing code recorded it while writing the figure's text (Said);
    by_figure: {figure: {claim: value}}. Raises DataError on bad input, and
    ValueError where two figures print one claim with different values."""
    h = Host(results, host)
    h.load()
    preps = prepare(h)
    per = {name: dict(preps[name].get("ratios") or {}) for name in FIGURE_NAMES
           if name in preps}
    if by_figure:
        return per
    out = {}
    for name, ratios in per.items():
        for claim, v in ratios.items():
            if claim in out and out[claim] != v:
                raise ValueError("%s: %s printed as %r and %r" % (host, claim, out[claim], v))
            out[claim] = v
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python3 -m scripts.figures.plot",
        description="Draw the study's figures from results/ into plots/.",
        epilog="Figures: " + ", ".join(FIGURE_NAMES) + ". Exit status: 0 ok, 1 gnuplot "
        "failed or missing, 2 bad input.")
    ap.add_argument("--results", default=os.path.join(REPO_DIR, "results"),
                    help="results folder (default: the repository's results/)")
    ap.add_argument("--plots", default=os.path.join(REPO_DIR, "plots"),
                    help="plots folder (default: the repository's plots/)")
    ap.add_argument("--host", nargs="+", metavar="HOST", help="only these hosts")
    ap.add_argument("--compare", nargs=2, metavar=("HOSTA", "HOSTB"),
                    help="draw each figure for two hosts side by side into "
                    "plots/compare-HOSTA-vs-HOSTB/")
    ap.add_argument("--gnuplot", action="store_true",
                    help="also write plots/<host>/data/*.dat and draw "
                    "plots/<host>/gnuplot/*.png with scripts/gnuplot/*.gp")
    args = ap.parse_args(argv)

    if args.compare:
        names = list(args.compare)
        if names[0] == names[1]:
            print("%s: error: --compare needs two different hosts" % PROG, file=sys.stderr)
            return 2
    elif args.host:
        names = list(dict.fromkeys(args.host))
    else:
        names = nrdata.list_hosts(args.results)
        if not names:
            note("no hosts under %s: nothing to draw" % args.results)
            return 0
    for h in names:
        if not os.path.isdir(os.path.join(args.results, h)):
            print("%s: error: %s: no such host folder" % (PROG, os.path.join(args.results, h)),
                  file=sys.stderr)
            return 2

    # Phase 1: read and check everything, prepare every figure.  Bad input
    # stops here, before any file is written.
    hosts, preps = [], []
    try:
        for h in names:
            host = Host(args.results, h)
            host.load()
            hosts.append(host)
            preps.append(prepare(host))
    except DataError as e:
        print("%s: error: %s" % (PROG, e), file=sys.stderr)
        return 2

    for host in hosts:
        for exp, why in host.missing.items():
            note("%s: %s: skipping %s" % (host.name, why, exp))

    # Phase 2: draw.
    status = 0
    if args.compare:
        outdir = os.path.join(args.plots, "compare-%s-vs-%s" % tuple(names))
        pairs = [(n, [preps[0].get(n), preps[1].get(n)]) for n in MAIN_NAMES]
        pairs = [(n, pair) for n, pair in pairs if pair != [None, None]]
        for name, pair in pairs:
            draw_compare(name, pair, hosts, outdir)
        note("wrote %d figures (png, pdf) to %s" % (len(pairs), outdir))
        if args.gnuplot:
            note("--gnuplot draws single hosts only: no gnuplot figures for --compare")
        return status

    gnuplot = shutil.which("gnuplot") if args.gnuplot else None
    if args.gnuplot and not gnuplot:
        note("gnuplot not found on PATH: no gnuplot figures")
        status = 1
    for host, prep in zip(hosts, preps):
        outdir = os.path.join(args.plots, host.name)
        drawn = [name for name in FIGURE_NAMES if name in prep]
        for name in drawn:
            draw_one(name, prep[name], figure_dir(outdir, name))
            if figlist.in_supplement(name):
                # a figure that moved to the supplement leaves no stale copy above it
                for stale in ("%s.png" % name, "%s.pdf" % name, "data/%s.dat" % name,
                              "gnuplot/%s.png" % name):
                    if os.path.exists(os.path.join(outdir, stale)):
                        os.remove(os.path.join(outdir, stale))
        if prep:
            sup = sum(1 for name in drawn if figlist.in_supplement(name))
            note("%s: wrote %d figures (png, pdf) to %s%s" % (
                host.name, len(prep) - sup, outdir,
                " and %d to its %s/" % (sup, figlist.SUPPLEMENT_DIR) if sup else ""))
        if gnuplot:
            ok = 0
            for name in drawn:
                if figlist.in_supplement(name) and not os.path.exists(
                        os.path.join(SCRIPT_DIR, "gnuplot", name + ".gp")):
                    continue  # a diagnostic matplotlib draws alone
                # data/<name>.dat and gnuplot/<name>.png (supplement/data, supplement/gnuplot)
                err = fig_gnuplot.run_gnuplot(gnuplot, name, prep[name], figure_dir(outdir, name),
                                              dat_text(name, prep[name]))
                if err:
                    note("%s: %s" % (host.name, err))
                    status = 1
                else:
                    ok += 1
            note("%s: gnuplot drew %d figures into %s" % (host.name, ok,
                                                          os.path.join(outdir, "gnuplot")))
    return status


if __name__ == "__main__":
    sys.exit(main())
