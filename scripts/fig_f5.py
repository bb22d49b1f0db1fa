# SPDX-License-Identifier: BSD-2-Clause
"""fig_f5.py - F5's figure (f5-ceiling): measured throughput against the
physical ceiling, by batch size.

f5-ceiling.exp sweeps ``load = closed, 0.5``:

* open loop at half the capacity, consumers lingering for a full batch: a
  transfer moves about ``batch`` items, so the first panel draws the
  throughput against the realized batch (items per cross-node transfer), the
  configured batch labelled beside each point, the ceiling of each point
  dashed (plot.py's prep_f5 prepares it). Its throughput is the rate offered,
  not a capacity: it is not set beside the ceiling as a share.
* closed loop (rows with an empty load cell, rate 0): the capacity. The
  second panel draws it per configured batch against its ceiling
  (scripts/ceiling.py's ceiling_ops_per_s) and names the term that binds
  there (ceiling.binding: ops, bandwidth, latency, contention, crossing)
  beside the ceiling; the third its share of the ceiling.

Results from before the closed-loop sweep hold one kind of row: then the
first panel draws them (as before) and the share is theirs.

Uses plot.py's helpers through ``P`` (bound by plot.py at import).
"""

from . import fig_common as FC
from . import nrdata

P = None


def bind(ns):
    global P
    P = ns


#: what each binding term means, in a few words (the legend)
BINDING_WORDS = {"ops": "ops: atomic operations", "bandwidth": "bandwidth: lines moved",
                 "latency": "latency: index lines handed over",
                 "contention": "contention: one line fought over",
                 "crossing": "crossing: node-to-node transfers"}


def is_closed(row):
    """A closed-loop run: no offered load (an empty load cell) and no rate."""
    return not P.load_of(row) and not (nrdata.num(row, "rate") or 0) > 0


def split(rows):
    """(rows of the first panel: the open-loop runs, or every run where there
    are none; the closed-loop runs where open-loop runs exist too, else [])."""
    opened = [r for r in rows if not is_closed(r)]
    closed = [r for r in rows if is_closed(r)]
    if not opened:
        return closed, closed
    return opened, closed


def binding_of(host, row):
    """The ceiling's binding term for a row (ceiling.binding), or None."""
    mod = host.ceiling.module() if host.ceiling.fn is not None else None
    fn = getattr(mod, "binding", None)
    if fn is None or row is None:
        return None
    try:
        return fn(host.ceiling.probe, dict(row))
    except Exception:  # noqa: BLE001 - someone else's module
        return None


def prep_closed(host, rows):
    """{threads: [(batch, median, lo, hi, n, ceiling, binding, oversubscribed,
    coverage)]} of the closed-loop runs, and the binding terms named."""
    if not rows:
        return {"lines": {}, "threads": [], "terms": [], "ratios": []}
    bkey = (lambda r: int(float(r["batch"])))
    ivs = FC.intervals(rows, (nrdata.threads, bkey), "throughput_ops_per_s")
    pkey = (lambda r: (nrdata.threads(r), bkey(r)))
    ceil = host.ceiling.drawn(rows, pkey)
    bound = {}
    for r in rows:
        bound.setdefault(pkey(r), []).append(binding_of(host, r))
    ov = P.oversub_of(rows, pkey)
    lines = {}
    for (t, b), iv in ivs.items():
        c = ceil.get((t, b))
        names = [n for n in bound.get((t, b), []) if n]
        # the term that binds most of the point's runs
        term = max(sorted(set(names)), key=names.count) if names and c else None
        lines.setdefault(t, []).append((b, iv.est, iv.lo, iv.hi, iv.n, c, term, ov.get((t, b)),
                                        iv.coverage))
    for t in lines:
        lines[t].sort()
    terms = sorted({q[6] for pts in lines.values() for q in pts if q[6]})
    ratios = [q[1] / q[5] for pts in lines.values() for q in pts if q[5]]
    return {"lines": lines, "threads": sorted(lines), "terms": terms, "ratios": ratios}


def binding_labels(pts):
    """[(batch, term)] where the binding term is named: the first point and
    wherever it changes along the line."""
    out, last = [], None
    for q in pts:
        if q[6] and q[6] != last:
            out.append((q[0], q[6]))
        last = q[6] or last
    return out


def draw_closed(ax, p, tcolors):
    cl = p["closed"]
    if not cl["lines"]:
        P.no_data(ax, "closed loop (the capacity):\nnot in these results\n"
                      "(f5-ceiling.exp: load = closed)")
        ax.set_title("closed loop: capacity against the ceiling", fontsize=11)
        return
    allv, xs = [], []
    for i, t in enumerate(cl["threads"]):
        pts = cl["lines"][t]
        col = tcolors[t]
        x = [q[0] for q in pts]
        ax.errorbar(x, [q[1] / 1e6 for q in pts],
                    yerr=[[(q[1] - q[2]) / 1e6 for q in pts], [(q[3] - q[1]) / 1e6 for q in pts]],
                    color=col, marker=P.MARKERS[i % len(P.MARKERS)], markersize=6,
                    linewidth=1.8, capsize=3, label="%d threads" % t,
                    linestyle="-" if len(pts) > 1 else "none", gid="f5-closed")
        P.mark_oversub(ax, x, pts, 1e-6, label=False)
        cp = [q for q in pts if q[5]]
        if cp:
            ax.plot([q[0] for q in cp], [q[5] / 1e6 for q in cp], color=col, linestyle="--",
                    linewidth=1.4, marker="_", markersize=12, gid="f5-closed-ceiling")
            allv += [q[5] / 1e6 for q in cp]
            at = {q[0]: q[5] for q in cp}
            for b, term in binding_labels(cp):
                ax.annotate(term, (b, at[b] / 1e6), xytext=(0, 5), textcoords="offset points",
                            ha="center", va="bottom", fontsize=8, color=col, style="italic",
                            gid="f5-binding")
        allv += [q[2] / 1e6 for q in pts] + [q[3] / 1e6 for q in pts]
        xs += x
    P.batch_axis(ax, xs, "batch size, configured (items per transfer)")
    ax.set_ylabel("throughput (million items/s)")
    P.value_axis(ax, allv)
    ax.set_title("closed loop: capacity (solid) against the ceiling (dashed)\n"
                 "the ceiling's binding term named above it", fontsize=11)


def draw_share(ax, p, tcolors):
    """The closed loop's share of its ceiling, per batch."""
    cl = p["closed"]
    xs = []
    for i, t in enumerate(cl["threads"]):
        cp = [q for q in cl["lines"][t] if q[5]]
        if not cp:
            continue
        ax.errorbar([q[0] for q in cp], [100 * q[1] / q[5] for q in cp],
                    yerr=[[100 * (q[1] - q[2]) / q[5] for q in cp],
                          [100 * (q[3] - q[1]) / q[5] for q in cp]],
                    color=tcolors[t], marker=P.MARKERS[i % len(P.MARKERS)], markersize=6,
                    linewidth=1.8, capsize=3, linestyle="-" if len(cp) > 1 else "none")
        xs += [q[0] for q in cp]
    if not xs:
        P.no_data(ax, "measured / ceiling:\nceiling not available")
        return
    P.batch_axis(ax, xs, "batch size, configured (items per transfer)")
    ax.axhline(100, color="black", linewidth=1.0, linestyle="--")
    ax.set_ylabel("closed-loop throughput / ceiling (%)")
    lo, hi = ax.get_ylim()
    ax.set_ylim(0, max(105, hi))
    r = cl["ratios"]
    P.annotate_title(ax, "closed loop: share of the ceiling reached",
                     "measured / ceiling: %.0f%%\u2013%.0f%%" % (100 * min(r), 100 * max(r))
                     if r else None)


def draw(axes, p, show_legend=True, tcolors=None):
    """F5: the open loop against the realized batch | the closed loop against
    its ceiling | the share of the ceiling reached (closed loop where it ran,
    else the first panel's runs)."""
    threads = sorted(set(p["threads"]) | set(p["closed"]["threads"]))
    tcolors = tcolors or P.thread_colors(threads)
    closed = bool(p["closed"]["lines"])
    ax0, ax1, ax2 = axes[0], axes[1], axes[2] if len(axes) > 2 else None
    # the open loop (or, without a closed-loop sweep, every run) and, without
    # one, their share of the ceiling in the last panel
    P.draw_f5([ax0, ax2 if not closed else None], p, show_legend=False, tcolors=tcolors)
    draw_closed(ax1, p, tcolors)
    if closed and ax2 is not None:
        draw_share(ax2, p, tcolors)
    for a in axes[3:]:
        P.no_data(a, "")
    if show_legend:
        legend_of(axes[2] if ax2 is not None else ax1, p, tcolors, threads)


def legend_of(ax, p, tcolors, threads):
    plt = P.plt
    h = [plt.Line2D([], [], color=tcolors[t], marker=P.MARKERS[i % len(P.MARKERS)],
                    linewidth=1.8, label="%d threads" % t) for i, t in enumerate(threads)]
    if p["has_ceiling"] or p["closed"]["ratios"]:
        h.append(plt.Line2D([], [], color="0.3", linestyle="--", linewidth=1.4,
                            label="ceiling (model), same colour"))
    if p.get("has_harness"):
        h.append(plt.Line2D([], [], color="0.3", linestyle="-.", linewidth=1.3,
                            label="harness alone (null queue),\nsame colour"))
    if any(P.is_over(q) for pts in p["lines"].values() for q in pts):
        h.append(plt.Line2D([], [], **P.OVERSUB_STYLE, label=P.OVERSUB_LABEL))
    if p.get("realized"):
        h.append(plt.Line2D([], [], linestyle="none",
                            label="b=N: configured batch\n(red: realized < %.1f\u00d7)"
                            % P.REALIZED_TARGET))
    for term in p["closed"]["terms"]:
        h.append(plt.Line2D([], [], linestyle="none", label="binding %s" %
                            BINDING_WORDS.get(term, term)))
    ax.legend(handles=h, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False,
              borderaxespad=0.0, fontsize=9)


def drawn_line(p):
    """The caption's one line of what is drawn."""
    cl = p["closed"]
    first = ("open loop at %s load: throughput against the %s batch (b=N labels the "
             "configured), ceiling dashed" % (
                 "/".join(P.pct_label(100 * float(x)) for x in p["loads"] if x) or "its",
                 "realized" if p["realized"] else "configured")) if p["loads"] and any(
        p["loads"]) else ("throughput against the %s batch, ceiling dashed"
                          % ("realized" if p["realized"] else "configured"))
    second = ("closed loop: the capacity per batch against its ceiling, the binding term "
              "named, and its share of the ceiling" if cl["lines"] else
              "no closed-loop runs (the capacity) in these results")
    return "%s; %s; median of the runs, whisker min\u2013max (closed loop: the median's " \
           "interval)" % (first, second)


#: the closed-loop block of f5-ceiling.dat (cl_ in scripts/gnuplot/f5-ceiling.gp)
CLOSED_COLUMNS = ["threads", "batch", "median_ops_per_s", "lo_ops_per_s", "hi_ops_per_s",
                  "n", "color_rgb", "ceiling_ops_per_s", "ratio", "binding", "binding_label",
                  "oversubscribed", "has_closed"]


def dat_closed(p):
    g = FC.g
    cl = p["closed"]
    threads = sorted(set(p["threads"]) | set(cl["threads"]))
    tcol = P.thread_colors(threads)
    rows = []
    for t in cl["threads"]:
        pts = cl["lines"][t]
        named = dict(binding_labels([q for q in pts if q[5]]))
        for q in pts:
            rows.append([t, q[0], g(q[1]), g(q[2]), g(q[3]), q[4], P.rgb_int(tcol[t]),
                         g(q[5]), g(q[1] / q[5] if q[5] else None), q[6] or "none",
                         named.get(q[0], "-"), P.ov_col(q[7]), 1])
        rows.append("")
    if not rows:
        rows = [[1, 1, "NaN", "NaN", "NaN", 0, 0, "NaN", "NaN", "none", "-", "NaN", 0]]
    return FC.block("closed loop", CLOSED_COLUMNS, rows,
                    note="the closed loop's capacity per configured batch against its "
                         "ceiling; binding: the ceiling's binding term (ceiling.binding); "
                         "binding_label: the term where it is named (the first point of a "
                         "line and where it changes), '-' elsewhere; has_closed 0: none ran")
