# SPDX-License-Identifier: BSD-2-Clause
"""fig_f4.py - F4's producers-and-consumers panels, each regime apart.

Under prodcons (producers and consumers apart) a closed-loop run lands near
empty (the consumer waits) or full (the producer waits), and the two differ
several-fold in throughput, lost races and latency; a median over both would
measure the mix. prep_f4 prepares a group per workload and amount of
local work; here a prodcons group whose runs' regimes are known is split into
one group per (pace, regime) (scripts/common/regime.py), drawn as the peers figure
draws them: marker shape per regime, n beside the dot where the runs split,
the groups side by side in the backoff's slot (one thread count) or as lines
of their own (several). The paired change against none (summarize.f4) stays
one per workload and amount of work, over all its runs: the first group of a
split carries it, and the caption says the regimes are pooled there.

pairs and mixed (every thread enqueues and dequeues) have no producer side to
wait on: they are drawn as before.

prep_f4 prepares the figure once; fig_f4_draw.draw_f4 (matplotlib) and
dat_f4 (the data file of scripts/gnuplot/f4-backoff.gp) render that
preparation.
"""

import os

from . import fig_common as FC
from . import fig_draw
from ..analysis import nrdata
from ..common import manifest
from .fig_common import condensed
from .fig_draw import dodger
from .fig_gnuplot import dat_header, g, g3, is_bound, ov_col, SEE_BLOCKS
from .fig_host import (
    bound_count, caption_lines, color_of, failed_per_1000, HARNESS_LABEL, harness_line,
    order_of, oversub_of, quoted_threads, rgb_int, Said, series_by, summarize,
    summary_of, summary_status, workload_of)


#: the spread of a (backoff, amount of work)'s regime groups in its slot: with
#: one amount of work, with several (their own spread is F4_SLOT_SPREAD)
REGIME_SPREAD = {False: 0.3, True: 0.12}


def series_of(rows):
    """prep_f4_group's series over ``rows``: {measure: {backoff: [(threads,
    med, min, max, n, None, harness or None, oversubscribed)]}} (harness:
    throughput only)."""
    value = {"tput": "throughput_ops_per_s", "failed": failed_per_1000,
             "bns": backoff_ns_per_op, "fair": "fairness", "p99": "p99_ns"}
    return {k: series_by(rows, lambda r: (r.get("backoff", ""), nrdata.threads(r)), v,
                         harness=k == "tput", interval=False) for k, v in value.items()}


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
        for k, grp in enumerate(order):
            # the harness alone over all the runs (the null queue has no regime)
            out.append(dict(g, slot_harness=harness_by_backoff(g), **series_of(parts[grp]),
                            regime=grp, rk=k, rn=len(order), sub=k > 0, rows=parts[grp],
                            change=g["change"] if k == 0 else [],
                            harness=g["harness"] if k == 0 else []))
    return out


def harness_by_backoff(g):
    """The harness alone of a group's runs: {backoff: {threads: median}}."""
    return {b: {q[0]: q[6] for q in pts if q[6]} for b, pts in g["tput"].items()}


def slot_harness(pn, backoffs):
    """{(backoff, j): {threads: the harness alone}} of a panel: one per slot
    (backoff and amount of work j), over all its runs where they are split by
    regime, else the group's own."""
    out = {}
    for g in pn["groups"]:
        hs = g.get("slot_harness") or harness_by_backoff(g)
        for b, byt in hs.items():
            if b in backoffs and byt:
                out.setdefault((b, g["j"]), byt)
    return out


def split_any(p):
    """Whether some panel's runs are split by regime."""
    return any(g.get("regime") for pn in p["columns"] for g in pn["groups"])


def marker(g):
    """A group's marker: shape per regime where its runs were split, else a circle."""
    return FC.REGIME_MARKER.get(g["regime"][1], "D") if g.get("regime") else "o"


def point_type(g):
    """gnuplot's point types (filled, hollow) of a group's marks: shape per
    regime where its runs were split (FC.REGIME_PT), else circles."""
    return FC.REGIME_PT.get(g["regime"][1], (13, 12)) if g.get("regime") else (7, 6)


def show_n(g):
    """Whether a group's dots say their runs (its workload's runs split)."""
    return g.get("rn", 1) > 1


def legend_handles(p):
    """The regime shapes of the legend (matplotlib), [] where nothing was split."""
    if not split_any(p):
        return []
    gs = [g for pn in p["columns"] for g in pn["groups"]]
    return FC.regime_legend(FC.group_order({g["regime"] for g in gs if g.get("regime")})) + \
        fig_draw.mark_handles(note=p.get("categorical") and any(show_n(g) for g in gs)
                              and "n beside a dot: its runs")


# F4: backoff against spinning, per workload. Every change it prints is
# summarize.f4(hostdir, workload, work)'s; whether a comparison exists is
# judged on the none run of the same point (its lost races per operation at
# least nrdata.BACKOFF_EXERCISED, 1 per 1,000), as claims.py judges it.

#: the workloads, in the harness's order (columns of the figure)
F4_WORKLOADS = manifest.workloads()
F4_WORDS = {"prodcons": "prodcons: producers and consumers apart",
            "pairs": "pairs: every thread enqueues, then dequeues",
            "mixed": "mixed: every thread enqueues or dequeues at random"}
#: the study's F4 finding, drawn in the prodcons change panel only (the study
#: ran producers and consumers apart, 32 workers on 2 nodes)
F4_STUDY_BAND = (-30.0, -15.0)
F4_STUDY_LABEL = "study: 32 workers, 2 nodes"
#: the rows of panels, top to bottom: key, y label
F4_ROWS = (("tput", "throughput (million %s/s)"),
           ("change", "throughput change vs none (%)"),
           ("failed", "lost races per 1,000 operations"),
           ("bns", "time in backoff per operation"),
           ("fair", "fairness: fewest / most\noperations of one thread"),
           ("p99", "p99 latency"))
#: what the fairness row's dotted line at 1 means
F4_FAIR_LINE = "every thread did the same"
#: x offsets of the amounts of local work in a category slot (two: \u00b10.17)
F4_SLOT_SPREAD = 0.34


def reps_words(rows):
    """'N rep(s)': how many reps the rows hold."""
    n = len({int(r["rep"]) for r in rows})
    return "%d rep%s" % (n, "" if n == 1 else "s")


def over_words(n, recorded=True, whose="its"):
    """The caption's words on the black x: n oversubscribed points drawn, none,
    or (not recorded) that the results do not say."""
    if not recorded:
        return "oversubscription not recorded"
    return ("black x: %d oversubscribed point%s (the run's threads outnumber %s CPUs)"
            % (n, "" if n == 1 else "s", whose)) if n else "no point oversubscribed"


def works_words(works):
    """'filled <the least work>, hollow <more>', '' with one amount of work."""
    return ", ".join("%s %s" % ("filled" if i == 0 else "hollow", work_words(w))
                     for i, w in enumerate(works)) if len(works) > 1 else ""


def f4_work(row):
    """The row's local work between operations, ns (0 where not recorded)."""
    try:
        return float(row.get("work_ns") or 0)
    except ValueError:
        return 0.0


def work_words(work):
    """'no local work', '<N> ns local work'."""
    return "no local work" if not work else "%g ns local work" % work


def f4_claim(workload, work, backoff):
    """The claim id of a printed change: f4.<b>_change_pct for prodcons without
    local work (the paper's \\FFour<b>), f4.<workload>.<b>_change_pct for the
    others, f4.<workload>.work<N>.<b>_change_pct with local work."""
    where = "" if workload == "prodcons" and not work else workload + "."
    return "f4.%s%s%s_change_pct" % (where, "work%g." % work if work else "", backoff)


def f4_groups(host, rows):
    """[(workload, work)] of F4's rows: summarize.f4_workloads where it loads,
    else the same from the rows (prodcons, pairs, mixed, then others; less work
    first)."""
    if summarize is not None:
        hostdir = os.path.join(host.results, host.name)
        return [(w, float(k)) for w, k in summarize.f4_workloads(hostdir)]
    keys = {(workload_of(r), f4_work(r)) for r in rows}
    return sorted(keys, key=lambda k: (F4_WORKLOADS.index(k[0]) if k[0] in F4_WORKLOADS
                                       else len(F4_WORKLOADS), k[0], k[1]))


def backoff_ns_per_op(row):
    """ns in backoff per operation: (backoff_ns_race + backoff_ns_gate) /
    (enqueued + dequeued), both over the whole run; None where not recorded."""
    race, gate = nrdata.num(row, "backoff_ns_race"), nrdata.num(row, "backoff_ns_gate")
    if race is None and gate is None:
        return None
    e, d = nrdata.num(row, "enqueued"), nrdata.num(row, "dequeued")
    n = e + d if e is not None and d is not None else nrdata.num(row, "ops")
    return ((race or 0.0) + (gate or 0.0)) / n if n else None


def prep_f4_group(host, rows, workload, work, said):
    """One workload at one amount of local work: its series (throughput, lost
    races, backoff time, p99 by backoff and threads), the thread count its
    changes are quoted at, whether none lost races there (exercised), and each
    backoff's paired change against none (summarize.f4; {} where it has no
    value or summarize.py did not load)."""
    s4 = summary_of(host, "f4", workload, work)
    ov_t = oversub_of(rows, nrdata.threads)
    t = s4.get("threads") or quoted_threads(
        host, rows, lambda rs: ov_t.get(nrdata.threads(rs[0])) == 0)
    at = [r for r in rows if nrdata.threads(r) == t]
    none_rows = [r for r in at if r.get("backoff") == "none"]
    failed = nrdata.aggregate(at, ("backoff",), failed_per_1000)

    def rate_of(b):
        """b's lost races per item: summarize.f4's, else the median over ``at``."""
        v = s4.get("%s_failed_per_item" % b)
        return failed[(b,)][0] / 1000.0 if v is None and (b,) in failed else v
    none_failed = rate_of("none")
    exercised = nrdata.backoff_exercised(none_failed) if none_rows else None
    ov = oversub_of(at, lambda r: r.get("backoff", ""))
    change = []
    for b in order_of("backoff", {r.get("backoff", "") for r in at}):
        if b == "none" or not none_rows:
            continue
        key = "%s_change_pct" % b
        d = s4 if s4.get(key) is not None else {}
        if not d and summarize is not None:
            # a backoff summarize does not know: summarize.paired on the same rows
            summarize.put_ratio(d, key, summarize.paired(
                [r for r in at if r.get("backoff") == b], none_rows,
                fn=lambda x, y: x / y - 1), 100.0)
        pct, lo, hi = d.get(key), d.get(key + "_lo"), d.get(key + "_hi")
        claim = f4_claim(workload, work, b)
        change.append({
            "backoff": b, "workload": workload, "work": work, "threads": t, "pct": pct,
            "lo": lo, "hi": hi, "n": d.get(key + "_n"), "failed": rate_of(b),
            "none_failed": none_failed, "exercised": exercised, "claim": claim,
            "inconclusive": lo is not None and hi is not None and lo <= 0.0 <= hi,
            "oversubscribed": ov.get(b),
            # printed where none lost races (or where that is not recorded)
            "text": said.text(claim, d, key) if exercised is not False else None})
    kinds = {(r.get("ops_kind") or "").strip() for r in rows} - {""}
    return {"workload": workload, "work": work, "threads": t, "exercised": exercised,
            "none_failed": none_failed, "change": change, "rows": rows,
            "oversubscribed": ov_t.get(t),
            "unit": "items" if kinds == {"items"} or (not kinds and workload == "prodcons")
            else "operations",
            **series_of(rows),
            "harness": harness_line(rows, nrdata.threads)}


def f4_headline(panels, works):
    """The figure's one-line finding: each workload's changes against none
    without local work (the least work), or that none lost no races there."""
    w0 = works[0]
    groups = [g for pn in panels for g in pn["groups"] if g["work"] == w0 and g["change"]]
    if not groups:
        return None
    ts = {g["threads"] for g in groups}
    # each part named by its workload (and threads) where there are several
    named = len(panels) > 1 or len(ts) > 1
    parts = []
    for g in groups:
        name = g["workload"] + (" at %d threads" % g["threads"] if len(ts) > 1 else "")
        if g["exercised"] is False:
            parts.append("%s%s: backoff not exercised on this host" % (
                name + " " if named else "", "/".join(e["backoff"] for e in g["change"])))
            continue
        shown = ["%s %s%s" % (e["backoff"], e["text"], " (inconclusive)"
                              if e["inconclusive"] else "")
                 for e in g["change"] if e["text"] is not None]
        if shown:
            parts.append(("%s: " % name if named else "") + ", ".join(shown))
    if not parts:
        return None
    return "vs none%s%s: %s\n(study, prodcons: \u221215 to \u221230%% at 32 workers, 2 nodes)" % (
        " at %d threads" % ts.pop() if len(ts) == 1 else "",
        ", " + work_words(w0) if len(works) > 1 else "", "; ".join(parts))


@condensed
def prep_f4(host):
    """F4: per workload (a column of panels each), throughput by backoff, each
    backoff's paired change against none (retrying at once) at the quoted
    thread count, lost races and time in backoff per operation, p99 latency;
    every amount of local work apart (filled: none, hollow: more)."""
    rows = host.data["f4-backoff"]
    said = Said()
    panels = []
    for w, work in f4_groups(host, rows):
        grows = [r for r in rows if workload_of(r) == w and f4_work(r) == work]
        if not grows:
            continue
        if not panels or panels[-1]["workload"] != w:
            panels.append({"workload": w, "title": F4_WORDS.get(w, w), "groups": []})
        panels[-1]["groups"].append(prep_f4_group(host, grows, w, work, said))
    works = sorted({g["work"] for pn in panels for g in pn["groups"]})
    for pn in panels:
        pn["groups"] = split_regimes(pn["groups"])   # prodcons: regimes apart
        for g in pn["groups"]:
            g["j"] = works.index(g["work"])
            # the regime group's x offset in its slot
            g["dx"] = FC.spread(g.get("rk", 0), g.get("rn", 1), REGIME_SPREAD[len(works) > 1])
        pn["threads"] = sorted({g["threads"] for g in pn["groups"]})
    ts = sorted({nrdata.threads(r) for r in rows})
    backoffs = order_of("backoff", {r.get("backoff", "") for r in rows})
    rel = [e for pn in panels for g in pn["groups"] for e in g["change"]]
    # the caption: the host, its warnings, then one line of what is drawn
    base = caption_lines(host, rows)
    caption = [base[0]] + [ln for ln in base[1:] if ln[1] == "warn"]
    flags = oversub_of(rows, lambda r: (workload_of(r), f4_work(r), r.get("backoff"),
                                        nrdata.threads(r))).values()
    over = over_words(sum(v == 1 for v in flags), not all(v is None for v in flags), "their")
    bound = sum(bound_count(g["tput"]) for pn in panels for g in pn["groups"])
    regimes = ("prodcons: each regime apart (shape%s); its change vs none over all its runs "
               "(summarize.f4: regimes pooled)" % (
                   "; n beside a dot where the runs split" if len(ts) == 1 else "")
               if split_any({"columns": panels}) else "")
    harness = "grey: %s%s" % (HARNESS_LABEL, ", %d point%s within 20%% of it (ringed)" % (
        bound, "" if bound == 1 else "s") if bound else "") if any(
        nrdata.num(r, "harness_ops_per_s") for r in rows) else "harness ceiling not measured"
    drawn = ("median of %s, whiskers min\u2013max; change: paired median against "
             "none and its interval (scripts/analysis/summarize.py), \u201cnot exercised\u201d where "
             "none lost < %g race per 1,000 operations; fairness: fewest / most "
             "operations of one thread over the run (1: %s)%s; %s" % (
                 reps_words(rows), nrdata.BACKOFF_EXERCISED * 1000, F4_FAIR_LINE,
                 "" if any(nrdata.num(r, "fairness") is not None for r in rows)
                 else ", not recorded in these results",
                 "; ".join(x for x in (works_words(works), regimes, over, harness) if x)))
    caption.append((drawn, None))
    if summary_status():
        caption.append(summary_status())
    title = ("F4: backoff against spinning, per workload \u2014 %s; change vs none; lost races; "
             "time in backoff; fairness; p99" % ("throughput by backoff at %d threads" % ts[0]
                                                 if len(ts) == 1 else
                                                 "throughput vs threads by backoff"))
    nw = max(1, len(panels))
    p = {"kind": "f4", "columns": panels, "works": works, "backoffs": backoffs,
         "threads": ts, "categorical": len(ts) == 1, "relative": rel, "rows": rows,
         "grid": (len(F4_ROWS), nw), "figsize": (max(11.0, 4.4 * nw + 3.2), 2.9 * len(F4_ROWS)),
         "title": title, "annotation": f4_headline(panels, works), "caption": caption,
         "ratios": dict(said.values)}
    # the harness alone by (workload, work): [(threads, median, min, max, n)]
    p["harness"] = {(g["workload"], g["work"]): g["harness"] for pn in panels
                    for g in pn["groups"] if g["harness"]}
    # the first workload's lost races at its least work, by backoff vs threads
    p["failed"] = panels[0]["groups"][0]["failed"] if panels else {}
    return p


def f4_slot_x(p, b, j):
    """The x of backoff b at the j-th amount of local work on a category axis."""
    return p["backoffs"].index(b) + FC.spread(j, len(p["works"]), F4_SLOT_SPREAD)


# --------------------------------------------------------------------------
# gnuplot: the data file

#: F4's data file: its blocks in order, each a name line, a '# columns:' line
#: and its rows; scripts/gnuplot/f4-backoff.gp names the columns it reads
#: (pt_<column> = N for points, ch_ for the change, hn_ for the harness, pn_ for
#: the panels) and scripts/tests/test_f4_figure.py checks each against these.
F4_DAT_BLOCKS = (
    ("points", ["panel", "hollow", "bidx", "threads", "x", "median_ops_per_s",
                "min_ops_per_s", "max_ops_per_s", "reps", "color_rgb", "oversubscribed",
                "harness_ops_per_s", "harness_bound", "failed_per_1000", "failed_min",
                "failed_max", "backoff_ns_per_op", "backoff_ns_min", "backoff_ns_max",
                "p99_ns", "p99_min_ns", "p99_max_ns", "quoted", "backoff", "workload",
                "work_ns", "fairness", "fairness_min", "fairness_max", "regime", "pt",
                "shown_n", "ridx", "slot_x", "harness_row"]),
    # the first nine columns as before workloads (backoff .. oversubscribed)
    ("change vs none", ["backoff", "threads", "change_pct", "ci_lo_pct", "ci_hi_pct",
                        "color_rgb", "failed_per_1000", "exercised", "oversubscribed",
                        "panel", "hollow", "x", "inconclusive", "none_failed_per_1000",
                        "workload", "work_ns"]),
    ("harness alone (null queue)", ["panel", "hollow", "threads", "median_ops_per_s",
                                    "min_ops_per_s", "max_ops_per_s", "reps"]),
    ("panels", ["panel", "hollow", "threads", "exercised", "none_failed_per_1000", "band",
                "items", "categorical", "nbackoffs", "work_ns", "workload"]),
)


def f4_dat_x(p, b, j, t, dx=0.0):
    """A point's x in the data file: its category slot (one thread count; dx:
    its regime's offset there), else its threads shifted sideways a little as
    draw_series shifts it."""
    if p["categorical"]:
        return f4_slot_x(p, b, j) + dx
    n = len(p["backoffs"]) * len(p["works"])
    return dodger(p["threads"], n)(t, j * len(p["backoffs"]) + p["backoffs"].index(b))


def change_block(p, columns):
    """The "change vs none" block: a row per backoff, panel and amount of work
    (a comment before one whose backoff was not exercised); columns ending in
    bidx (the main figure's): the backoff's place in p["backoffs"] last."""
    index, rows = columns[-1] == "bidx", []
    for c, pn in enumerate(p["columns"]):
        for grp in pn["groups"]:
            for r in grp["change"]:
                ex = r["exercised"]
                if ex is False:
                    rows.append("# %s: backoff not exercised on this host (%s, %s)" % (
                        r["backoff"], grp["workload"], work_words(grp["work"])))
                rows.append([
                    r["backoff"], "%d" % r["threads"], g(r["pct"]), g(r["lo"]), g(r["hi"]),
                    "%d" % rgb_int(color_of("backoff", r["backoff"])), g(per_1000(r["failed"])),
                    ov_col(ex), ov_col(r["oversubscribed"]),
                    str(c), str(grp["j"]), "%.6g" % f4_slot_x(p, r["backoff"], grp["j"]),
                    "%d" % bool(r["inconclusive"]), g(per_1000(r["none_failed"])),
                    grp["workload"], "%g" % grp["work"]]
                    + (["%d" % p["backoffs"].index(r["backoff"])] if index else []))
    return FC.block("change vs none", columns, rows, empty=[
        "none 0 NaN NaN NaN 0 NaN NaN NaN 0 0 0 0 NaN none 0" + (" 0" if index else "")])


def per_1000(v):
    """A rate per item as per 1,000 (None stays None)."""
    return None if v is None else v * 1000


def panel_head(c, grp):
    """The first columns of a "panels" row: panel hollow threads exercised
    none_failed_per_1000."""
    return [str(c), str(grp["j"]), "%d" % grp["threads"], ov_col(grp["exercised"]),
            g(per_1000(grp["none_failed"]))]


def point_rows(p, c, pn):
    """The "points" rows of panel c (F4_DAT_BLOCKS): one per group, backoff and
    threads; the slot's harness once, on the first row at its x."""
    harness, done, rows = slot_harness(pn, p["backoffs"]), set(), []
    for grp in pn["groups"]:
        j = grp["j"]
        # the group's own columns: regime pt shown_n ridx
        regime = [FC.group_label(grp["regime"]).replace(", ", "/") if grp.get("regime")
                  else "pooled", "%d" % point_type(grp)[j > 0],
                  "%d" % (show_n(grp) and p["categorical"]), "%d" % grp.get("rk", 0)]
        for bi, b in enumerate(p["backoffs"]):
            by = {k: {q[0]: q for q in grp[k].get(b, [])}
                  for k in ("tput", "failed", "bns", "p99", "fair")}
            for t in sorted(set().union(*by.values())):
                tp = by["tput"].get(t)
                # oversubscribed: the throughput point's, else the first measure's at t
                q = next(by[k][t] for k in by if t in by[k])
                rows.append(
                    [str(c), str(j), str(bi), str(t),
                     "%.6g" % f4_dat_x(p, b, j, t, grp.get("dx", 0.0))] + g3(tp)
                    + ["%d" % tp[4] if tp else "0", "%d" % rgb_int(color_of("backoff", b)),
                       ov_col(q[7]), g(harness.get((b, j), {}).get(t)),
                       "%d" % is_bound(tp) if tp else "0"]
                    + [x for k in ("failed", "bns", "p99") for x in g3(by[k].get(t))]
                    + ["%d" % (t == grp["threads"]), b, grp["workload"], "%g" % grp["work"]]
                    + g3(by["fair"].get(t)) + regime
                    + ["%.6g" % f4_dat_x(p, b, j, t), "%d" % ((b, j, t) not in done)])
                done.add((b, j, t))
    return rows


def dat_f4(name, p):
    blocks = dict(F4_DAT_BLOCKS)
    what = ("F4, backoff against spinning per workload: four blocks, each its name, "
            "its columns and its rows: points (one per workload panel, amount of local work "
            "(hollow 0: the least), backoff and threads: throughput, lost races and time in "
            "backoff per operation, p99, fairness (fewest / most operations of one thread; "
            "NaN: not recorded); median, min, max over the reps; under prodcons each "
            "(pace, regime) group of the runs apart (regime; 'pooled': not split, the "
            "regimes not recorded or another workload; pt: gnuplot's point type, shape "
            "per regime; ridx: the group's index; shown_n 1: n beside the dot; "
            "harness_ops_per_s: the slot's, over all its runs; harness_row 1: the row "
            "that carries the slot's harness mark, at slot_x); x: the "
            "category slot (a regime's offset in it) with one thread count, else the "
            "threads), change vs none (each backoff's paired "
            "change against none at the panel's quoted thread count, summarize.f4; exercised "
            "0: none lost < %g race per 1,000 operations there, no change shown: 'not "
            "exercised'; inconclusive 1: the interval holds 0), the harness alone (null "
            "queue; NaN: not measured) and the panels (workload, band 1: the study's "
            "-15..-30%% band, prodcons only)" % (nrdata.BACKOFF_EXERCISED * 1000))
    # plot.py's notes were never in this file: left out, the file as committed
    out = dat_header(name, p, what, SEE_BLOCKS, notes=False)
    out += FC.block("points", blocks["points"], [
        r for c, pn in enumerate(p["columns"]) for r in point_rows(p, c, pn)])
    # the change against none, the harness alone (per panel and amount of work), the panels
    cg = [(c, pn, grp) for c, pn in enumerate(p["columns"]) for grp in pn["groups"]]
    out += change_block(p, blocks["change vs none"])
    out += FC.block(HARNESS_LABEL, blocks[HARNESS_LABEL], [
        "%d %d %d %s %s %s %d" % (c, grp["j"], q[0], g(q[1]), g(q[2]), g(q[3]), q[4])
        for c, _pn, grp in cg for q in grp["harness"]] or [
        "0 0 %d NaN NaN NaN 0" % (p["threads"][0] if p["threads"] else 1)])
    return out + FC.block("panels", blocks["panels"], [panel_head(c, grp) + [
        "%d" % (pn["workload"] == "prodcons"), "%d" % (grp["unit"] == "items"),
        "%d" % p["categorical"], "%d" % len(p["backoffs"]), "%g" % grp["work"],
        pn["workload"]] for c, pn, grp in cg])


# --------------------------------------------------------------------------
# f4-backoff, the main figure: one question, "how much does each backoff
# change throughput against none, per workload": a panel per workload, the
# values prep_f4 prints, the study's value in a slot of its own (prodcons).
# Everything else prep_f4 draws is the supplement's f4-backoff-diagnostics.

#: the study's slot on x, after the backoffs (prodcons only), and its colour
#: (the diagnostics' band's)
F4_STUDY_SLOT = "study"
F4_STUDY_COLOR = "#ffd27f"
#: the supplement figure that draws the rest of F4 (figlist.SUPPLEMENT)
F4_DIAGNOSTICS = "f4-backoff-diagnostics"


@condensed
def prep_f4_change(host):
    """F4's main figure (kind f4-change), from prep_f4's preparation: the
    panels (workload, its groups' changes), the same claims recorded (ratios,
    relative, annotation) and one caption line; every other line prep_f4's
    caption says goes to the notes. A panel's groups: those that carry its
    changes, one per amount of work (the first of a regime split: the change
    is over all its runs)."""
    d = prep_f4(host)
    panels = [{"workload": pn["workload"], "title": F4_WORDS.get(pn["workload"], pn["workload"]),
               "groups": [g for g in pn["groups"] if not g.get("sub")], "threads": pn["threads"],
               "study": pn["workload"] == "prodcons"} for pn in d["columns"]]
    quoted = sorted({g["threads"] for pn in panels for g in pn["groups"]})
    rel = d["relative"]
    over = sum(1 for e in rel if e["oversubscribed"] == 1 and e["text"] is not None)
    works = works_words(d["works"])
    drawn = ("dot: the paired median change against none over %s, whisker its "
             "interval (summarize.py)%s \u00b7 %s" % (
                 reps_words(d["rows"]), "; " + works if works else "",
                 over_words(over, any(nrdata.oversubscribed(r) is not None for r in d["rows"]))))
    title = "F4: throughput change of each backoff against none, per workload%s" % (
        ", at %d threads" % quoted[0] if len(quoted) == 1 else "")
    nw = max(1, len(panels))
    return {"kind": "f4-change", "columns": panels, "works": d["works"],
            "backoffs": d["backoffs"], "threads": d["threads"], "quoted": quoted,
            "categorical": True, "relative": rel, "rows": d["rows"], "grid": (1, nw),
            "figsize": (max(8.0, 4.1 * nw + 2.6), 4.8), "title": title,
            "annotation": d["annotation"], "ratios": d["ratios"], "drawn": drawn,
            # condense: prep_f4's host line and warnings, then drawn
            "caption": d["caption"],
            "notes": list(d["notes"]) + ["the rest of F4 (throughput, lost races, time in "
                                         "backoff, fairness, p99, the regimes apart): the "
                                         "supplement's %s" % F4_DIAGNOSTICS]}


def change_slots(p, pn):
    """The x slots of a main-figure panel: the backoffs, then the study's
    (prodcons)."""
    return list(p["backoffs"]) + ([F4_STUDY_SLOT] if pn["study"] else [])


#: the main figure's data file (scripts/gnuplot/f4-backoff.gp reads it by
#: column name): the changes as the diagnostics' "change vs none" block (its
#: first columns: backoff threads change_pct, which the tests read), the
#: panels, the x slots (the backoffs, the study's) and the study's value
F4_CHANGE_DAT_BLOCKS = (
    ("change vs none", F4_DAT_BLOCKS[1][1] + ["bidx"]),
    ("panels", ["panel", "hollow", "threads", "exercised", "none_failed_per_1000", "band",
                "work_ns", "workload", "nslots"]),
    ("slots", ["panel", "sidx", "slot", "color_rgb"]),
    ("study", ["panel", "x", "lo_pct", "hi_pct"]),
)


def dat_f4_change(name, p):
    blocks = dict(F4_CHANGE_DAT_BLOCKS)
    what = ("F4, the throughput change of each backoff against none (retrying at "
            "once), per workload: four blocks, each its name, its columns and its rows: "
            "change vs none (each backoff's paired median change against none at the "
            "panel's quoted thread count, summarize.f4, and its interval; hollow 0: the "
            "least local work; x: the backoff's slot (bidx) shifted by the amount of "
            "work; exercised 0: none lost < %g race per 1,000 operations there, no change "
            "drawn: 'not exercised'; inconclusive 1: the interval holds 0), panels (a "
            "workload and amount of work each; band 1: the study's slot drawn), slots "
            "(the x axis of each panel: the backoffs, none the baseline at 0, then "
            "'study' in the prodcons panel) and study (the study's -15..-30%% at 32 "
            "workers, 2 nodes, prodcons: its slot)" % (nrdata.BACKOFF_EXERCISED * 1000))
    out = dat_header(name, p, what, SEE_BLOCKS)
    out += change_block(p, blocks["change vs none"])
    out += FC.block("panels", blocks["panels"], [
        panel_head(c, grp) + ["%d" % pn["study"], "%g" % grp["work"], pn["workload"],
                              "%d" % len(change_slots(p, pn))]
        for c, pn in enumerate(p["columns"]) for grp in pn["groups"]],
        empty=["0 0 0 NaN NaN 0 0 none 1"])
    out += FC.block("slots", blocks["slots"], [[
        str(c), str(i), s, "%d" % rgb_int(color_of("backoff", s) if s != F4_STUDY_SLOT
                                           else F4_STUDY_COLOR)]
        for c, pn in enumerate(p["columns"]) for i, s in enumerate(change_slots(p, pn))],
        empty=["0 0 none 0"])
    return out + FC.block("study", blocks["study"], [[
        str(c), "%d" % len(p["backoffs"]), "%g" % F4_STUDY_BAND[0], "%g" % F4_STUDY_BAND[1]]
        for c, pn in enumerate(p["columns"]) if pn["study"]], empty=["0 NaN NaN NaN"])

