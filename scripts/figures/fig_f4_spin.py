# SPDX-License-Identifier: BSD-2-Clause
"""fig_f4_spin.py - F4's spin lengths (f4-spin): does how long a backoff spins
change what it costs or gains against retrying at once?

experiments/f4-spin.exp runs pairs at 2 threads without local work, at its
most contended point, sweeping pause's fixed spin (pause_spin) and exp's cap
(exp_cap), in PAUSEs, with none at every combination. One panel per backoff:
x the spin length (log 2), y each spin's paired median change in throughput
against the none runs of the same points and rounds (findings.f4_spin, the
numbers the results README's table prints) with its interval as whiskers;
the setting f4-backoff runs at marked (dotted), the study's -15..-30% (prodcons,
32 workers, 2 nodes, at that setting) as a band beside this host's values,
"not exercised" where the none runs lost < 1 race per 1,000 operations. Lost
races and time in backoff per operation go to the .dat (and the README).

prep_f4_spin prepares the figure once; draw_f4_spin (matplotlib) and
dat_f4_spin (the data file of scripts/gnuplot/f4-spin.gp) render it.
"""

from ..analysis import findings, nrdata
from . import fig_common as FC
from . import fig_draw
from .fig_draw import no_data, OVERSUB_STYLE
from .fig_f4 import (
    F4_STUDY_BAND, F4_STUDY_COLOR, over_words, per_1000, reps_words)
from .fig_f4_draw import dot, not_exercised, pct_axis
from .fig_gnuplot import dat_header, g, ov_col, SEE_BLOCKS
from .fig_host import caption_lines, color_of, oversub_of, rgb_int

#: the spin f4-backoff runs at (numaring-bench's defaults, f4-spin.exp's
#: reference), where f4-backoff's rows do not say
F4_SPIN_DEFAULT = {"pause_spin": 32, "exp_cap": 1024}
#: each backoff's panel: its x axis
F4_SPIN_WORDS = {"pause": ("pause: a fixed spin", "spin (PAUSEs)"),
                 "exp": ("exp: exponential, up to its cap", "cap (PAUSEs)")}


def default_spin(host, col):
    """The spin (column col) f4-backoff ran at on this host, else the default."""
    vals = {nrdata.num(r, col) for r in host.data.get("f4-backoff") or []} - {None}
    return int(vals.pop()) if len(vals) == 1 else F4_SPIN_DEFAULT[col]


@FC.condensed
def prep_f4_spin(host):
    rows = list(host.data["f4-spin"])
    spins = findings.f4_spin(None, rows)
    ov = oversub_of(rows, lambda r: r.get("backoff", ""))
    threads = sorted({nrdata.threads(r) for r in rows})
    works = sorted({float(r.get("work_ns") or 0) for r in rows})
    workload = sorted({r.get("workload") or "prodcons" for r in rows})
    panels = []
    for b, col in findings.F4_SPIN_COLUMNS:
        pts = [d for d in spins if d["backoff"] == b]
        if not pts:
            continue
        # exercised where none lost races at every spin length
        none = min((d["none_failed_per_item"] for d in pts
                    if d["none_failed_per_item"] is not None), default=None)
        panels.append({"backoff": b, "column": col, "points": pts,
                       "title": F4_SPIN_WORDS[b][0], "xlabel": F4_SPIN_WORDS[b][1],
                       "default": default_spin(host, col),
                       "exercised": None if none is None else nrdata.backoff_exercised(none),
                       "none_failed": none,
                       "oversubscribed": ov.get(b)})
    drawn = ("dot: the paired median change against none over %s, whisker its "
             "interval; dotted: f4-backoff's setting \u00b7 %s" % (
                 reps_words(rows), over_words(sum(pn["oversubscribed"] == 1 for pn in panels))))
    what = "%s, %s thread%s, %s" % (
        "/".join(workload), "/".join(map(str, threads)), "" if threads == [1] else "s",
        "no local work" if works == [0.0] else "%s ns local work" % "/".join(
            "%g" % w for w in works))
    notes = ["f4-spin (experiments/f4-spin.exp): %s; each backoff against the none run of "
             "the same point and round (findings.f4_spin, the results README's table)" % what,
             "the study's -15 to -30%: prodcons, 32 workers, 2 nodes, at f4-backoff's "
             "setting; not this sweep's workload"]
    for pn in panels:
        for d in pn["points"]:
            notes.append("%s %d: %s [%s..%s] vs none; lost races per 1,000 operations %s "
                         "(none %s); ns in backoff per operation %s" % (
                             pn["backoff"], d["spin"], g(d.get("change_pct")),
                             g(d.get("change_pct_lo")), g(d.get("change_pct_hi")),
                             g(per_1000(d["failed_per_item"])),
                             g(per_1000(d["none_failed_per_item"])), g(d["backoff_ns_per_op"])))
    return {"kind": "f4-spin", "panels": panels, "rows": rows, "grid": (1, max(1, len(panels))),
            "figsize": (max(8.0, 4.2 * len(panels) + 2.6), 4.6),
            "title": "F4: throughput change against none by spin length (%s)" % what,
            "drawn": drawn, "notes": notes,
            # condense: the host line, its warnings, then drawn
            "caption": caption_lines(host, rows)}


def draw_f4_spin_panel(ax, p, pn, first):
    xs = [d["spin"] for d in pn["points"]]
    color = color_of("backoff", pn["backoff"])
    ax.axhline(0, color="black", linewidth=0.8, zorder=1)
    ax.text(0.01, 0.0, "none", transform=ax.get_yaxis_transform(), ha="left",
            va="bottom", fontsize=8, color="0.35")
    # the study's value beside this host's: a band behind everything
    ax.axhspan(F4_STUDY_BAND[0], F4_STUDY_BAND[1], facecolor=F4_STUDY_COLOR, alpha=0.55,
               linewidth=0, zorder=0, gid="f4-study-band")
    vals = list(F4_STUDY_BAND)
    if pn["exercised"] is not False:
        for d in pn["points"]:
            v = d.get("change_pct")
            if v is None:
                continue
            # no interval: the whisker none long
            lo, hi = (v if d.get(k) is None else d[k] for k in ("change_pct_lo", "change_pct_hi"))
            dot(ax, d["spin"], v, [[v - lo], [hi - v]], marker="o", color=color)
            if pn["oversubscribed"] == 1:
                ax.plot([d["spin"]], [v], **OVERSUB_STYLE)
            vals += [lo, hi]
    else:
        not_exercised(ax, 0.97, pn["none_failed"])
    ax.axvline(pn["default"], color="0.3", linestyle=":", linewidth=1.3, zorder=1)
    lo, hi = min(vals), max(vals)
    span = hi - lo
    ax.set_ylim(lo - 0.08 * span, hi + 0.15 * span)
    ax.set_xscale("log", base=2)
    ax.set_xticks(xs)
    ax.set_xticklabels([str(x) for x in xs])
    ax.xaxis.set_minor_locator(fig_draw.ticker.NullLocator())
    ax.set_xlim(min(xs + [pn["default"]]) / 1.6, max(xs + [pn["default"]]) * 1.6)
    ax.set_xlabel(pn["xlabel"])
    pct_axis(ax, first)
    ax.set_title(pn["title"], fontsize=10)


def draw_f4_spin(axes, p, show_legend=True):
    from matplotlib.patches import Patch
    if not p["panels"]:
        no_data(axes[0], "no pause or exp runs")
        return
    for c, pn in enumerate(p["panels"][:len(axes)]):
        draw_f4_spin_panel(axes[c], p, pn, c == 0)
    if show_legend:
        handle = fig_draw.handle
        h = [handle(linestyle="none", marker="o", color="0.3", label="change vs none"),
             fig_draw.whisker_handle("whisker: its interval"),
             handle(color="0.3", linestyle=":", label="f4-backoff's setting")]
        h += fig_draw.mark_handles(over=any(pn["oversubscribed"] == 1 for pn in p["panels"]))
        h.append(Patch(facecolor=F4_STUDY_COLOR, alpha=0.55,
                       label="study: \u221215 to \u221230%\n(prodcons, 32 workers,\n2 nodes)"))
        fig_draw.legend_outside(axes[min(len(p["panels"]), len(axes)) - 1], h,
                                bbox_to_anchor=(1.03, 1.0), borderaxespad=None, fontsize=9)


#: the data file's blocks (scripts/gnuplot/f4-spin.gp reads them by column name)
F4_SPIN_DAT_BLOCKS = (
    ("spins", ["panel", "backoff", "spin", "change_pct", "ci_lo_pct", "ci_hi_pct", "reps",
               "color_rgb", "failed_per_1000", "none_failed_per_1000", "backoff_ns_per_op",
               "oversubscribed"]),
    ("panels", ["panel", "backoff", "default_spin", "exercised", "none_failed_per_1000",
                "study_lo_pct", "study_hi_pct", "min_spin", "max_spin"]),
)


def dat_f4_spin(name, p):
    blocks = dict(F4_SPIN_DAT_BLOCKS)
    what = ("F4's spin lengths: two blocks, each its name, its columns and its rows: "
            "spins (a row per backoff and spin length, in PAUSEs: its paired median change "
            "in throughput against none and its interval, findings.f4_spin; reps: the pairs; "
            "lost races per 1,000 operations of it and of none, ns in backoff per "
            "operation) and panels (a backoff each: f4-backoff's setting; exercised 0: none "
            "lost < %g race per 1,000 operations, no change drawn; the study's -15..-30%%)"
            % (nrdata.BACKOFF_EXERCISED * 1000))
    out = dat_header(name, p, what, SEE_BLOCKS)
    out += FC.block("spins", blocks["spins"], [[
        str(c), pn["backoff"], "%d" % d["spin"], g(d.get("change_pct")),
        g(d.get("change_pct_lo")), g(d.get("change_pct_hi")), "%d" % (d.get("change_pct_n") or 0),
        "%d" % rgb_int(color_of("backoff", pn["backoff"])), g(per_1000(d["failed_per_item"])),
        g(per_1000(d["none_failed_per_item"])), g(d["backoff_ns_per_op"]),
        ov_col(pn["oversubscribed"])]
        for c, pn in enumerate(p["panels"]) for d in pn["points"]],
        empty=["0 none 1 NaN NaN NaN 0 0 NaN NaN NaN NaN"])
    return out + FC.block("panels", blocks["panels"], [[
        str(c), pn["backoff"], "%d" % pn["default"],
        ov_col(pn["exercised"]), g(per_1000(pn["none_failed"])),
        "%g" % F4_STUDY_BAND[0], "%g" % F4_STUDY_BAND[1],
        "%d" % min(d["spin"] for d in pn["points"]), "%d" % max(d["spin"] for d in pn["points"])]
        for c, pn in enumerate(p["panels"])], empty=["0 none 1 NaN NaN -30 -15 1 1"])
