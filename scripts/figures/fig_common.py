# SPDX-License-Identifier: BSD-2-Clause
"""fig_common.py - what several of plot.py's figures share.

* which queue runs in which mode: faa moves no data, so it has no message
  items (a message travels with the item: there is none); ck has no bursts
  (its burst is a loop of single operations). Their runs in those modes are
  measured but mean nothing, and are left out of those panels.
* intervals: every whisker drawn around a median is the median's
  order-statistic interval (scripts/analysis/stats.py: exact coverage at the runs'
  n, min..max at n = 5, covering 93.75%);
* regimes (scripts/common/regime.py): a closed-loop run lands near empty or full;
  each (pace, regime) group is drawn apart, by marker shape (regime) and fill
  (pace), never pooled into one median;
* the caption: the host, its warnings, and one line of what is drawn; the rest
  of what a figure knows goes to its notes (the .dat header keeps them);
* data files: every block of a .dat names its columns in a '# columns:' line.

Every fig_*.py module may import this one; it imports none of them.
"""

import math
import re

from ..analysis import nrdata
from ..analysis import stats
from ..common import manifest
from ..common import regime

# --------------------------------------------------------------------------
# Queues and their modes

#: queues with no message mode: a message travels with the item, and these move
#: no data (the manifest's moves_data: faa, and null, which makes its items up)
NO_MESSAGE = manifest.queues(moves_data=False)
#: queues with no bursts: a burst is a loop of single operations (the manifest's
#: bursts: ck)
NO_BURSTS = manifest.queues(bursts=False)


def cell(row, column):
    """A row's cell, stripped ('' where empty or not text)."""
    v = row.get(column, "")
    return v.strip() if isinstance(v, str) else ""


def item_of(row):
    return cell(row, "item") or "inline"


def bursts_of(row):
    try:
        return int(float(row.get("bursts") or 0))
    except ValueError:
        return 0


def runs_in(queue, item, bursts):
    """Whether a queue's runs in that item mode and bursts setting mean anything."""
    if item == "message" and queue in NO_MESSAGE:
        return False
    if bursts and queue in NO_BURSTS:
        return False
    return True


def left_out(rows):
    """{queue: why} of the runs a panel leaves out (runs_in)."""
    return {r.get("queue", ""): "no message mode" if item_of(r) == "message" and
            r.get("queue", "") in NO_MESSAGE else "no bursts"
            for r in rows if not runs_in(r.get("queue", ""), item_of(r), bursts_of(r))}


def left_out_words(left):
    """'faa not in the message panels (no message mode); ck not in the burst
    panels (no bursts)' or ''."""
    return "; ".join("%s not in the %s panels (%s)" % (
        q, "message" if left[q] == "no message mode" else "burst", left[q]) for q in sorted(left))


# --------------------------------------------------------------------------
# Intervals

def intervals(rows, keys, value):
    """{key tuple: stats.Interval} of ``value`` over rows grouped by ``keys``
    (as nrdata.aggregate groups them; empty values left out)."""
    g, order = nrdata.groups(rows, keys, value)
    values = dict(list(g))
    return {k: stats.interval(values[c].tolist()) for c, k in order.items()}


def whisker_words(ns):
    """How a caption names the whiskers of medians of ``ns`` runs each."""
    ns = sorted({n for n in ns if n})
    if not ns:
        return "whiskers: none"
    top = ns[-1]
    r = stats.order_rank(top)
    if r is None:
        return "one run each, no interval"
    cov = stats.cov_text(r[1])
    what = "min\u2013max" if r[0] == 1 else "order statistics %d and n+1\u2212%d" % (r[0], r[0])
    s = "whisker: the median's %s interval (%s of %d runs)" % (cov, what, top)
    if len(ns) > 1:
        s += ", less where fewer runs"
    return s


# --------------------------------------------------------------------------
# Regimes: (pace, regime) groups, each drawn apart

#: marker shape per regime (matplotlib, gnuplot's filled and hollow point types)
REGIME_MARKER = {"near-empty": "o", "full": "s", "open-loop": "^", "": "D"}
REGIME_PT = {"near-empty": (7, 6), "full": (5, 4), "open-loop": (9, 8), "": (13, 12)}
REGIME_WORDS = {"near-empty": "near-empty (the consumer waits)",
                "full": "full (the producer waits)", "open-loop": "open loop",
                "": "regime unknown"}
#: pace: free filled, producer-paced hollow, consumer-paced hollow with a dot
PACE_WORDS = {"free": "free (filled)", "producer-paced": "producer-paced (hollow)",
              "consumer-paced": "consumer-paced (hollow, dot)"}
PACE_DASH = {"free": "-", "producer-paced": "--", "consumer-paced": ":"}
PACE_GP_DT = {"free": 1, "producer-paced": 2, "consumer-paced": 3}


#: (pace, regime) of a run
group_of = regime.group_of
#: {(pace, regime): rows}, in regime.split's order
split = regime.split


def group_label(g):
    return regime.group_label(g) or "regime unknown"


def group_order(groups):
    """Groups in a stable order: regime (near-empty, full, open loop), then pace
    (free first): side by side, a regime's free and pinned runs compare."""
    paces = {p: i for i, p in enumerate(regime.PACES)}
    regs = {r: i for i, r in enumerate(regime.REGIMES)}
    return sorted(set(groups), key=lambda g: (regs.get(g[1], 9), paces.get(g[0], 9), g))


def regimes_known(groups):
    """Whether the runs' regimes are known (the tidy CSV's regime column, or
    regime.classify from what they measured): else every group is the one
    ('free', '') of an older table, drawn as before (no shape per regime)."""
    return any(g[1] for g in groups)


def split_words(rows, what="runs"):
    """'runs by regime: 3 near-empty, 17 full' ('' where one group or none known)."""
    groups = split(rows)
    if not regimes_known(groups):
        return ""
    return "%s by regime: %s" % (what, ", ".join(
        "%d %s" % (len(groups[g]), group_label(g)) for g in group_order(groups)))


def regime_words(r):
    """What a title says of the regime a summarize result (summarize.f1, f2)
    quotes: 'full regime', 'regimes mixed' (no repetition ran both runs in one
    regime), '' where the results record none."""
    label = (r or {}).get("regime")
    if not label:
        return ""
    if label == "mixed":
        return "regimes mixed"
    return "%s regime" % label


def design_group(groups, rows, family, quoted=None):
    """The one (pace, regime) group a main figure draws (F1, F2: one mark per
    variant; every group apart goes to the supplement): the group whose label
    is ``quoted`` (summarize's r["regime"]: on a sweep pinned by its pace, the
    paced regime the design fixes), else the one the most variants of
    ``family`` ran in (the first in ``groups``' order on a tie); None where
    there is no group."""
    for g in groups:
        if quoted and regime.group_label(g) == quoted:
            return g
    ran = {g: len({r.get(family) for r in rows if group_of(r) == g}) for g in groups}
    return max(groups, key=lambda g: (ran[g], -groups.index(g))) if groups else None


def n_beside(ax, x, y, n, gid=None):
    """The number of runs beside a dot (where a variant's runs split)."""
    ax.annotate("%d" % n, (x, y), xytext=(5, -2), textcoords="offset points", fontsize=7.5,
                color="0.35", ha="left", va="top", gid=gid)


def group_style(g, color):
    """matplotlib marker keywords of a group's dots."""
    pace, reg = g
    kw = dict(marker=REGIME_MARKER.get(reg, "D"), color=color, markeredgecolor=color,
              markeredgewidth=1.5)
    kw["markerfacecolor"] = color if pace == "free" else "white"
    return kw


def group_pt(g):
    """gnuplot's point type of a group; 1 where a dot goes in its middle."""
    pace, reg = g
    filled, hollow = REGIME_PT.get(reg, (13, 12))
    return (filled if pace == "free" else hollow), int(pace == "consumer-paced")


def dot_inside(ax, x, y, color, size=2.5):
    """The consumer-paced mark's dot."""
    ax.plot([x], [y], linestyle="none", marker="o", markersize=size, color=color, zorder=6)


def regime_legend(groups, line=False):
    """Legend handles (matplotlib) for the regimes and paces drawn."""
    import matplotlib.pyplot as plt
    h = [plt.Line2D([], [], linestyle="none", marker=REGIME_MARKER.get(reg, "D"), color="0.3",
                    markersize=8, label=REGIME_WORDS.get(reg, reg))
         for reg in sorted({g[1] for g in groups}, key=lambda r: list(REGIME_MARKER).index(r)
                           if r in REGIME_MARKER else 9)]
    paces = [p for p in ("free", "producer-paced", "consumer-paced")
             if p in {g[0] for g in groups}]
    return h + ([plt.Line2D([], [], linestyle=PACE_DASH[p] if line else "none", marker="o",
                            color="0.3", markersize=8,
                            markerfacecolor="0.3" if p == "free" else "white",
                            label=PACE_WORDS[p]) for p in paces] if paces != ["free"] else [])


# --------------------------------------------------------------------------
# One thread count: the variants on x as categories

def category_axis(ax, labels, xlabel, rotate=None):
    """x = the categories 0..n-1, named."""
    from matplotlib import ticker
    n = len(labels)
    ax.set_xticks(list(range(n)))
    rot = (30 if n > 5 else 0) if rotate is None else rotate
    ax.set_xticklabels(labels, rotation=rot, ha="right" if rot else "center")
    ax.set_xlim(-0.6, n - 0.4)
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    ax.grid(axis="x", visible=False)
    ax.set_xlabel(xlabel)


def spread(k, n, width=0.5):
    """The x offset of the k-th of n marks in one category slot."""
    return 0.0 if n <= 1 else width * (k / (n - 1) - 0.5)


def level_mark(ax, x, y, half=0.36, label=None, **style):
    """A short horizontal mark over a category slot (its ceiling, its harness)."""
    ax.plot([x - half, x + half], [y, y], label=label, solid_capstyle="butt", **style)


# --------------------------------------------------------------------------
# Captions

#: a caption's statement of oversubscribed points (fig_host.oversub_status's, or
#: the short clause of oversub_clause): the mark, the count
OVERSUB_RE = re.compile(r"(?:([^\u00b7;:()]+): )?(\d+) oversubscribed (points?) "
                        r"\(the run's threads")


def oversub_clause(lines):
    """The short clause every figure's drawn caption keeps about oversubscribed
    points (threads sharing CPUs), from what its preparation said: 'no point
    oversubscribed', '<mark>: N oversubscribed point(s) (the run's threads
    outnumber its CPUs)', 'oversubscription not recorded' (an older table);
    None where the preparation said nothing about it."""
    text = " ".join(t for t, _e in lines if t)
    if "oversubscription not recorded" in text:
        return "oversubscription not recorded"
    m = OVERSUB_RE.search(text)
    if m:
        mark = (m.group(1) or "").strip()
        return "%s%s oversubscribed %s (the run's threads outnumber its CPUs)" % (
            mark + ": " if mark else "", m.group(2), m.group(3))
    if "no point oversubscribed" in text:
        return "no point oversubscribed"
    return None


def condense(p):
    """The caption drawn under a figure: the host line, its warnings and one
    line of what is drawn (p["drawn"]) ending with the oversubscription clause
    (oversub_clause: every figure says whether a point's threads shared CPUs);
    everything else the preparation said goes to p["notes"] (written to the
    .dat header, not drawn)."""
    full = list(p.get("caption") or [])
    if "notes" not in p:
        p["notes"] = [t for t, _e in full[1:] if t]
    if not full:
        return p
    head = [full[0]] + [ln for ln in full[1:] if ln[1] == "warn"]
    drawn = p.get("drawn")
    last = [(drawn, None)] if drawn else [ln for ln in full[1:] if ln[1] != "warn"][-1:]
    over = oversub_clause(full[1:])
    if over and last and oversub_clause(last) is None:
        last = [(last[0][0] + " \u00b7 " + over, last[0][1])]
    elif over and not last:
        last = [(over, None)]
    p["caption"] = head + last
    return p


def condensed(prep):
    """A figure's preparation whose caption is condensed (condense())."""
    import functools

    @functools.wraps(prep)
    def wrapped(*a, **kw):
        return condense(prep(*a, **kw))
    return wrapped


# --------------------------------------------------------------------------
# Data files

def g(v):
    return "NaN" if v is None or (isinstance(v, float) and math.isnan(v)) else ("%.6g" % v)


def block(name, columns, rows, note=None, empty=()):
    """A .dat block: two blank lines, its name, its columns, its rows (a row
    is a list of fields or '' for a blank line: a break between series);
    ``empty``: the rows where ``rows`` has none (NaN rows for gnuplot)."""
    if all(isinstance(r, str) for r in rows):
        rows = list(empty) or rows
    out = ["", "", '"%s"' % name]
    if note:
        out.append("# " + note)
    out.append("# columns: " + " ".join(columns))
    for r in rows:
        out.append(r if isinstance(r, str) else " ".join(str(x) for x in r))
    return out

