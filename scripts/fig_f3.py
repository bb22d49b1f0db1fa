# SPDX-License-Identifier: BSD-2-Clause
"""fig_f3.py - F3's open-loop figure (f3-gate-percentiles): latency, items in
flight and throughput against the offered load, by gate.

Twelve lines in one panel (three gates x four percentiles, each with a
whisker over three or four decades) read as noise. So the latency row is
small multiples, a panel per gate on one shared log axis, each with two
lines: p50 (solid) and p99 (dashed), each the median over the reps with its
min..max as a light band; the axis limits come from the medians (a band that
runs past them is clipped at the edge, not allowed to squash the lines).
p90 and p99.9 stay in the data file. The second row: items in flight
(Little; log where they span decades), achieved throughput against the
offered rate, and the oversubscribed thread counts in their own tinted panel.

Uses plot.py's helpers through ``P`` (bound by plot.py at import).
"""

P = None


def bind(ns):
    global P
    P = ns


#: the percentiles drawn, their line style and band's alpha
DRAWN = (("p50_ns", "p50", "-", 0.18), ("p99_ns", "p99", "--", 0.10))
#: the latency axis: this factor below the lowest median and above the highest
MARGIN = 4.0


def latency_limits(p):
    meds = [q[1] for c, _n, _s, _a in DRAWN for pts in p["pct"][c].values() for q in pts
            if q[1] and q[1] > 0]
    if not meds:
        return None
    return min(meds) / MARGIN, max(meds) * MARGIN


def draw_gate(ax, p, g, lim, first, annotation=None):
    col = P.color_of("gate", g)
    mk = P.marker_of("gate", g)
    for c, name, style, alpha in DRAWN:
        pts = [q for q in p["pct"][c].get(g, []) if q[1] > 0]
        if not pts:
            continue
        xs = [q[0] for q in pts]
        if len(pts) > 1:
            ax.fill_between(xs, [max(q[2], 1e-300) for q in pts], [q[3] for q in pts],
                            color=col, alpha=alpha, linewidth=0, zorder=1)
        else:
            ax.errorbar(xs, [pts[0][1]], yerr=[[pts[0][1] - pts[0][2]], [pts[0][3] - pts[0][1]]],
                        color=col, capsize=3, linestyle="none", alpha=0.6)
        ax.plot(xs, [q[1] for q in pts], color=col, linestyle=style, marker=mk,
                markersize=6 if c == "p50_ns" else 5,
                markerfacecolor=col if c == "p50_ns" else "white", markeredgecolor=col,
                linewidth=2.2 if c == "p50_ns" else 1.6, zorder=3, gid="f3-%s-%s" % (g, name))
        ax.annotate(name, (xs[-1], pts[-1][1]), xytext=(7, 0), textcoords="offset points",
                    va="center", fontsize=8.5, color="0.25")
    P.load_axis(ax, p["loads"])
    if lim:
        P.value_axis(ax, list(lim), P.fmt_ns, log=True)
        ax.set_ylim(*lim)
    if first:
        ax.set_ylabel("latency, enqueue to dequeue")
    title = "%s gate: p50, p99" % g
    ax.set_title(annotation + "\n" + title if annotation else title, fontsize=11)


def draw_f3_load(axes, p, show_legend=True):
    """Row 1: a latency panel per gate; row 2: items in flight, throughput vs
    the offered rate, the oversubscribed thread counts (or nothing)."""
    order = p["order"]
    ng = len(order)
    lat_axes, rest = axes[:ng], axes[ng:]
    lim = latency_limits(p)
    mid = ng // 2
    for i, (ax, g) in enumerate(zip(lat_axes, order)):
        draw_gate(ax, p, g, lim, i == 0, p["annotation"] if i == mid else None)
    if not order:
        P.no_data(axes[0], "no latency recorded")
    if len(rest) < 2:
        return
    ax1, ax2 = rest[0], rest[1]
    dodge = P.load_dodge(len(order))
    # items in flight (Little): log where the whiskers span decades
    v1 = P.draw_by_load(ax1, p["inflight"], order, dodge)
    P.load_axis(ax1, p["loads"])
    if v1:
        ax1.set_ylabel("items in flight (Little)")
        P.value_axis(ax1, v1)
        ax1.set_title("items in flight: throughput \u00d7 mean latency", fontsize=11)
        if show_legend:
            ax1.legend(loc="upper left", framealpha=0.9, fontsize=8.5)
    else:
        P.no_data(ax1, "items in flight:\nno latency recorded")
    # achieved throughput against the offered rate
    v2 = P.draw_by_load(ax2, p["tput"], order, dodge, scale=1e-6)
    if p["offered"]:
        xs = [q[0] for q in p["offered"]]
        ys = [q[1] / 1e6 for q in p["offered"]]
        ax2.plot(xs, ys, color="0.55", linestyle="-" if len(xs) > 1 else "none",
                 linewidth=7, alpha=0.35, marker="_" if len(xs) == 1 else None,
                 markersize=30, markeredgewidth=7, solid_capstyle="butt", zorder=1)
        ax2.plot(xs, ys, color="black", linestyle="--" if len(xs) > 1 else "none",
                 linewidth=1.3, marker="_", markersize=22, markeredgewidth=1.6,
                 label="offered rate", zorder=1.5)
        v2 += ys
    P.load_axis(ax2, p["loads"])
    ax2.set_ylabel("throughput (million items/s)")
    P.value_axis(ax2, v2)
    ax2.set_title("achieved throughput vs the offered rate", fontsize=11)
    if show_legend:
        ax2.legend(loc="upper left", framealpha=0.9, fontsize=8.5)
    extra = rest[2:]
    if extra and p.get("over_p50"):
        P.draw_f3_over_load(extra[0], p, dodge, show_legend)
        extra = extra[1:]
    for a in extra:
        P.no_data(a, "")


def layout(p):
    """(rows, columns) and the column widths of the open-loop figure."""
    n = max(3, len(p["order"]))
    return (2, n), None


def drawn_line(p):
    return ("per gate, p50 (solid) and p99 (dashed) against the offered load: the median "
            "over the reps, band min\u2013max (p90, p99.9 in the data file); items in "
            "flight, throughput against the offered rate (black dashed)%s" % (
                "; oversubscribed thread counts apart, tinted" if p.get("over_p50") else ""))
