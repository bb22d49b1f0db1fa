# SPDX-License-Identifier: BSD-2-Clause
"""fig_draw.py - the matplotlib helpers every figure draws with.

matplotlib is imported only when something is drawn (init_matplotlib; plt and
ticker stay None until then: use them as plt, ticker). Here:
the axes (threads, values on a linear or log scale), a series by variant
against threads with its whiskers, ceilings and harness, the marks of
oversubscribed and harness-bound points, legends and value labels, and the
page around a figure (title, caption, saving PNG and PDF whole). Each
fig_<figure>.py draws its panels with these from its one preparation.
"""

import os

from .fig_host import (
    color_of, finite_pos, GUEST_TITLE, HARNESS_LABEL, is_bound, is_over, marker_of,
    OVERSUB_LABEL, THREAD_COLORS, wrap_note)


def fmt_ns(v, _pos=None):
    """A latency tick: 250 ns, 1.5 \u00b5s, 20 ms, 2 s."""
    if v <= 0:
        return "0"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("\u00b5s", 1e3)):
        if v >= scale:
            return "%g %s" % (float("%.3g" % (v / scale)), unit)
    return "%g ns" % float("%.3g" % v)


def fmt_plain(v, _pos=None):
    if v == 0:
        return "0"
    return "%g" % float("%.3g" % v)


CEILING_STYLE = dict(color="black", linestyle="--", linewidth=1.6)

# The harness's own ceiling: the null queue through the same code (harness_ops_per_s).
# (dark grey, dash-dot, no markers: apart from the mutex ring's mid-grey solid line)
HARNESS_STYLE = dict(color="#3a3a3a", linestyle=(0, (7, 2.5, 1.5, 2.5)), linewidth=2.0)

OVERSUB_STYLE = dict(linestyle="none", marker="x", markersize=11, markeredgewidth=2.2,
                     color="black", zorder=6)


# --------------------------------------------------------------------------
# matplotlib, imported only when something is drawn

plt = None

ticker = None


def init_matplotlib():
    global plt, ticker
    if plt is not None:
        return
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot
    import matplotlib.ticker as mticker
    plt, ticker = pyplot, mticker
    matplotlib.rcParams.update({
        "font.size": 11, "axes.titlesize": 12, "axes.labelsize": 11,
        "legend.fontsize": 9.5, "xtick.labelsize": 10, "ytick.labelsize": 10,
        "figure.titlesize": 14, "figure.titleweight": "bold",
        "axes.grid": True, "grid.alpha": 0.3, "grid.linewidth": 0.6,
        "axes.spines.top": False, "axes.spines.right": False,
        "pdf.fonttype": 42, "svg.fonttype": "none",
    })


def threads_axis(ax, xs, label="threads (producers + consumers)"):
    xs = sorted({x for x in xs if x and x > 0})
    ax.set_xlabel(label)
    if not xs:
        return
    if max(xs) / min(xs) >= 4:
        ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(ticker.FixedLocator(xs))
    ax.xaxis.set_major_formatter(ticker.FixedFormatter([fmt_plain(x) for x in xs]))
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    lo, hi = min(xs), max(xs)
    if ax.get_xscale() == "log":
        ax.set_xlim(lo / 1.25, hi * 1.25)
    else:
        pad = max(0.5, (hi - lo) * 0.06)
        ax.set_xlim(lo - pad, hi + pad)


def trip_axis(ax, trip_ns, scale=1e-6):
    """A secondary y axis on the right of a cross-node throughput panel whose
    values are drawn x ``scale`` items/s: the same throughput in items per
    one-way line trip between nodes (nrdata.items_per_trip, the host probe's
    trip ``trip_ns``), a unit two hosts compare by. Nothing where trip_ns is None."""
    if not trip_ns:
        return None
    k = trip_ns * 1e-9 / scale
    sec = ax.secondary_yaxis("right", functions=(lambda y: y * k, lambda v: v / k))
    sec.set_ylabel("items per line trip between nodes\n(\u00d7 the probe's %.1f ns)" % trip_ns,
                   fontsize=9)
    sec.set_gid("items-per-trip")
    sec.yaxis.set_major_formatter(ticker.FuncFormatter(fmt_plain))
    sec.yaxis.set_minor_formatter(ticker.NullFormatter())
    return sec


def value_axis(ax, values, formatter=fmt_plain, log=None):
    """Linear from 0, or log where the values span decades; limits from the values."""
    vals = [v for v in values if finite_pos(v)]
    if log is None:   # the values span decades
        log = bool(vals) and max(vals) / min(vals) >= 20.0
    if log:
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(formatter))
        ax.yaxis.set_minor_formatter(ticker.NullFormatter())
        if vals:
            lo, hi = min(vals) / 1.35, max(vals) * 1.35
            ax.set_ylim(lo, hi)
            span = hi / lo
            digits = "123456789" if span < 4 else "25" if span < 1000 else ""
            if digits:
                ax.yaxis.set_minor_formatter(ticker.FuncFormatter(
                    lambda v, _p: formatter(v) if ("%.1e" % v)[0] in digits else ""))
    else:
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(formatter))
        if vals:
            ax.set_ylim(0, max(vals) * 1.12)


def no_data(ax, text):
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center",
            fontsize=12, color="0.4")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.grid(False)
    for sp in ax.spines.values():
        sp.set_visible(False)


def annotate_title(ax, title, annotation):
    if annotation:
        ax.set_title("%s\n%s" % (title, annotation) if title else annotation, fontsize=11)
    elif title:
        ax.set_title(title)


def draw_harness(ax, pts, scale):
    """The harness's own ceiling [(x, median, ...)] as a grey dash-dot line; one
    point becomes a short level mark."""
    if not pts:
        return []
    xy = [(q[0], q[1] * scale) for q in pts]
    if len(xy) == 1:
        # one x: a point (a wide level mark), not a line
        ax.plot([xy[0][0]], [xy[0][1]], label=HARNESS_LABEL, linestyle="none", marker="_",
                markersize=34, markeredgewidth=2.4, color=HARNESS_STYLE["color"])
        return [xy[0][1]]
    ax.plot([q[0] for q in xy], [q[1] for q in xy], label=HARNESS_LABEL, **HARNESS_STYLE)
    return [q[1] * scale for q in pts]


def harness_style(dotted=False):
    """The harness alone's line: dotted for message items (or more local work)."""
    return dict(HARNESS_STYLE, linestyle=":") if dotted else dict(HARNESS_STYLE)


def mark_oversub(ax, x, pts, scale, label=True):
    """A black x over the points that are oversubscribed (q[7] == 1)."""
    hit = [(xx, q[1] * scale) for xx, q in zip(x, pts) if is_over(q)]
    if hit:
        have = OVERSUB_LABEL in ax.get_legend_handles_labels()[1]
        ax.plot([h[0] for h in hit], [h[1] for h in hit],
                label=OVERSUB_LABEL if label and not have else None, **OVERSUB_STYLE)


def ring_bound(ax, x, pts, scale):
    """Ring the points at >= HARNESS_BOUND x their own harness ceiling."""
    hit = [(xx, q[1] * scale) for xx, q in zip(x, pts) if is_bound(q)]
    if hit:
        ax.plot([h[0] for h in hit], [h[1] for h in hit], linestyle="none", marker="o",
                markersize=13, markerfacecolor="none", markeredgecolor="0.35",
                markeredgewidth=1.2, zorder=5)


def draw_series(ax, series, order, family, labels=None, scale=1e-6, ceiling=None,
                ylabel="", formatter=fmt_plain, log=None, colors=None, harness=None,
                styles=None, mark_over=True, hollow=()):
    """``styles``: {variant: (linestyle, marker)} where not the family's own;
    ``mark_over`` False: no black x (a panel that is all oversubscribed, said in
    its title); ``hollow``: variants drawn with hollow markers."""
    allv, xs = [], []
    dodge = dodger(sorted({p[0] for v in order for p in series[v]}), len(order))
    for i, v in enumerate(order):
        pts = series[v]
        x = [dodge(p[0], i) for p in pts]
        med = [p[1] * scale for p in pts]
        lo = [max(0.0, (p[1] - p[2]) * scale) for p in pts]
        hi = [max(0.0, (p[3] - p[1]) * scale) for p in pts]
        color = colors[v] if colors else color_of(family, v)
        style = dict(linestyle=":" if (family == "queue" and v == "faa") else "-")
        marker = marker_of(family, v)
        if styles and v in styles:
            style["linestyle"], marker = styles[v]
        if len(pts) == 1:
            style["linestyle"] = "none"  # one x value: a point, not a line
        if v in hollow:
            style.update(markerfacecolor="white", markeredgecolor=color,
                         markeredgewidth=1.5)
        ax.errorbar(x, med, yerr=[lo, hi], color=color, marker=marker,
                    markersize=5.5 if len(pts) > 1 else 7.5, linewidth=1.8, capsize=3,
                    elinewidth=1.1, label=(labels or {}).get(v, v), **style)
        ring_bound(ax, x, pts, scale)
        if mark_over:
            mark_oversub(ax, x, pts, scale)
        allv += [p[2] * scale for p in pts] + [p[3] * scale for p in pts]
        xs += x
    if harness:
        allv += draw_harness(ax, harness, scale)
    measured_max = max(allv) if allv else None
    ceil_vals = []
    for i, grp in enumerate(ceiling or []):
        if i == 0:
            style, label = dict(CEILING_STYLE), "physical ceiling (model)"
        else:
            style = dict(color=color_of(family, grp["variants"][0]), linestyle="--",
                         linewidth=1.3)
            label = "ceiling (model) for %s" % ", ".join(grp["variants"])
        pts = grp["points"]
        if len(pts) == 1:
            # one x: a point (a wide level mark), not a line
            ax.plot([pts[0][0]], [pts[0][1] * scale], label=label, linestyle="none",
                    marker="_", markersize=34, markeredgewidth=2.0, color=style["color"])
        else:
            ax.plot([c[0] for c in pts], [c[1] * scale for c in pts], label=label, **style)
        ceil_vals += [c[1] * scale for c in grp["points"]]
        xs += [c[0] for c in grp["points"]]
    if ceil_vals and measured_max:
        # a ceiling far above every measurement would squash the data: clip it
        allv += [min(v, measured_max * 30) for v in ceil_vals]
    threads_axis(ax, sorted({p[0] for v in order for p in series[v]}) or xs)
    ax.set_ylabel(ylabel)
    value_axis(ax, allv, formatter, log)
    return allv


def dodger(xs, n, width=0.22):
    """Shift variant i of n sideways a little so that error bars do not overlap:
    by a fraction of a doubling on a log2 threads axis, of the gap on a linear
    one; ``width`` is the spread of all n variants, in steps."""
    if n <= 1 or not xs:
        return lambda x, i: x
    if len(xs) > 1 and max(xs) / min(xs) >= 4:
        return lambda x, i: x * 2 ** (width * (i / (n - 1) - 0.5))
    if len(xs) > 1:
        gap = min(b - a for a, b in zip(xs, xs[1:]))
        width *= 0.5  # a linear axis leaves less room between points
    else:
        gap = 1.0
    return lambda x, i: x + gap * width * (i / (n - 1) - 0.5)


def drawn_handles(ax):
    """The axes' (handle, label) pairs, the ceilings and then the harness last."""
    handles, labels = ax.get_legend_handles_labels()
    return sorted(zip(handles, labels),
                  key=lambda hl: ("ceiling" in hl[1]) + 2 * (hl[1] == HARNESS_LABEL))


def legend(ax, outside=False, **kw):
    pairs = drawn_handles(ax)
    if not pairs:
        return
    kw.setdefault("labels", [lab for _h, lab in pairs])
    if outside:
        legend_outside(ax, kw.pop("handles", [h for h, _l in pairs]), **kw)
    else:
        kw.setdefault("handles", [h for h, _l in pairs])
        ax.legend(loc="best", framealpha=0.85, **kw)


def handle(**kw):
    """A legend handle (a line or mark that draws nothing)."""
    return plt.Line2D([], [], **kw)


def whisker_handle(label="whisker: the median's interval"):
    return handle(color="black", marker="|", linestyle="none", markersize=10, label=label)


def mark_handles(ring=False, over=False, note=None):
    """Legend handles of the ring round harness-bound points, the black x of
    oversubscribed ones and a line of words (``note``), where asked."""
    h = [handle(linestyle="none", marker="o", markersize=13, markerfacecolor="none",
                markeredgecolor="0.35", label="ringed: within 20% of the harness alone")]
    h = h if ring else []
    if over:
        h.append(handle(**OVERSUB_STYLE, label=OVERSUB_LABEL))
    return h + ([handle(linestyle="none", label=note)] if note else [])


def legend_outside(ax, handles, **kw):
    """The legend right of the axes, top-aligned."""
    ax.legend(handles=handles, **{**dict(loc="upper left", bbox_to_anchor=(1.02, 1.0),
                                         frameon=False, borderaxespad=0.0), **kw})


def place_labels(ax, labels, size=8.0):
    """Value labels beside their dots [(x, y, text, right, grey)], moved up or
    down where two would overlap (sizes estimated from the axes' size in the
    figure, before the layout settles: a little room is left)."""
    if not labels:
        return
    fig = ax.figure
    while not hasattr(fig, "get_figwidth"):   # a subfigure's axes: the figure's size
        fig = fig.figure
    pos = ax.get_position()
    w_in = max(0.5, pos.width * fig.get_figwidth())
    h_in = max(0.5, pos.height * fig.get_figheight())
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    per_in_x, per_in_y = (x1 - x0) / w_in, (y1 - y0) / h_in
    gap = 7.0 / 72 * per_in_x
    boxes = []
    for x, y, text, right, grey in sorted(labels, key=lambda q: (q[0], q[1])):
        lines = text.splitlines()
        wid = max(len(t) for t in lines) * size * 0.6 / 72 * per_in_x
        hgt = len(lines) * size * 1.3 / 72 * per_in_y
        if right and x + gap + wid > x1:
            right = False   # no room before the axis' right end: on the left
        left = x + gap if right else x - gap - wid
        # the nearest height, in half-label steps, where it meets no other
        # label and stays inside the axes
        yy = y
        for k in range(40):
            cand = y + (k + 1) // 2 * hgt / 2 * (1 if k % 2 else -1)
            if not (y0 + hgt / 2 <= cand <= y1 - hgt / 2) and k:
                continue
            if not any(left < b[1] and b[0] < left + wid and cand - hgt / 2 < b[3]
                       and b[2] < cand + hgt / 2 for b in boxes):
                yy = cand
                break
        boxes.append((left, left + wid, yy - hgt / 2, yy + hgt / 2))
        ax.annotate(text, (x, y), xytext=(left if right else left + wid, yy),
                    textcoords="data", ha="left" if right else "right", va="center",
                    fontsize=size, color="0.45" if grey else "0.1", linespacing=1.1,
                    arrowprops=dict(arrowstyle="-", color="0.6", linewidth=0.6,
                                    shrinkA=0, shrinkB=4) if yy != y else None)


def thread_colors(threads):
    return {t: THREAD_COLORS[i % len(THREAD_COLORS)] for i, t in enumerate(sorted(threads))}


def legend_axis(axes, p):
    """The axis that carries a multi-panel figure's legend: the first row's last."""
    cols = (p.get("grid") or (1, len(axes)))[1]
    return axes[min(cols, len(axes)) - 1]


# --------------------------------------------------------------------------
# The page around a figure: title, caption, files


def add_caption(fig, blocks):
    """Caption text under the axes (saved with bbox_inches='tight'), wrapped to the width."""
    import textwrap
    width_in = fig.get_figwidth()
    y = -0.012
    for title, lines in blocks:
        for text, emphasis in ([(title, "bold")] if title else []) + lines:
            size = 10.5 if emphasis == "warn" else 9.5
            kw = dict(fontsize=size, color="0.15", ha="left", va="top")
            if emphasis == "warn":
                kw.update(color="#b00000", fontweight="bold")
            elif emphasis == "bold":
                kw.update(fontweight="bold")
            chars = max(40, int(width_in * 72 / (size * 0.56)))
            for piece in textwrap.wrap(text, chars, subsequent_indent="    ") or [""]:
                fig.text(0.01, y, piece, **kw)
                y -= 1.5 * size / 72 / fig.get_figheight()
        y -= 0.4 * 9.5 / 72 / fig.get_figheight()


def suptitle(fig, title, emu, in_guest=False):
    text = title
    if emu:
        text += "   [EMULATED nodes]"
    if in_guest:
        text += GUEST_TITLE
    return fig.suptitle(text, color="#b00000" if emu or in_guest else "black")


def save(fig, outdir, name):
    """Write name.png and name.pdf whole: draw to a temporary name, then rename."""
    os.makedirs(outdir, exist_ok=True)
    done = []
    try:
        for ext in ("png", "pdf"):
            final = os.path.join(outdir, "%s.%s" % (name, ext))
            tmp = os.path.join(outdir, ".%s.%s.tmp%d" % (name, ext, os.getpid()))
            try:
                fig.savefig(tmp, format=ext, dpi=150, bbox_inches="tight", pad_inches=0.15)
                os.replace(tmp, final)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
            done.append(final)
    finally:
        plt.close(fig)
    return done


def figure_size(panels, columns=1):
    if columns == 1:
        return (7.8, 5.0) if panels == 1 else (14.0, 5.0) if panels == 2 else (20.0, 5.6)
    return (15.0, 5.0 * panels)


def headline(p, width_in, size=11.5):
    """A figure's title with its finding under it (F4: the annotation no panel
    title has room for), the finding wrapped to the figure's width."""
    import textwrap
    if p.get("kind") != "f4":
        return p["title"]
    chars = max(60, int(width_in * 72 / (size * 0.62)))
    return "\n".join(textwrap.wrap(p["title"], chars) +
                     wrap_note(p.get("annotation") or "", chars))


def unify_row(axes):
    """Same scales and limits across the hosts' panels of one row."""
    drawn = [a for a in axes if a.has_data()]
    if len(drawn) < 2 or len({a.get_gid() for a in drawn}) > 1:
        return   # one panel, or panels of different kinds (peers: pairs beside items)
    for axis in ("x", "y"):
        scales = {getattr(a, "get_%sscale" % axis)() for a in drawn}
        if len(scales) > 1:
            continue  # leave them: the data of one host does not span decades
        lims = [getattr(a, "get_%slim" % axis)() for a in drawn]
        lo = min(lim[0] for lim in lims)
        hi = max(lim[1] for lim in lims)
        for a in drawn:
            getattr(a, "set_%slim" % axis)(lo, hi)
