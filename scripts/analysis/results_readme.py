# SPDX-License-Identifier: BSD-2-Clause
"""results_readme.py - the text of results/<host>/README.md.

host_readme() writes the whole README: the machine, the findings table (each
finding's numbers from findings.py against the study's), the kind of host,
the claims block (claims.py), the figures beside their claims (gallery.py),
then one section each on F4 by workload, the peers under pairs, the peers' other configurations (peers.exp as the field
runs it: mixed, work with a floor, across nodes; where measured), regimes (regime_section.py), the ceiling model
(ceiling_tightness.py), drift (drift.py), the harness's own ceiling, where the
harness's time goes (make bench-fidelity's stripped runs) and which side set
the pace. Only wording lives here; every number is computed
elsewhere. python3 -m scripts.analysis.summarize --readme HOST writes the file.
"""

import json
import os
import re
import statistics

from . import drift, findings, gallery, hostfacts
from ..common import manifest, regime
from . import nrdata
from . import stats
from .regime_section import regime_says
#: the runner's flag for steal time (written as the tidy CSV's stolen)
from ..common.tidy import STEAL_FLAG_PCT


STUDY = {
    "F1": "look-up 11x the data movement",
    "F2": "cached look-up 6-7x throughput",
    "F3": "per-worker counters cut p50 latency by more than 200x",
    "F4": "backoff cost 15-30% of throughput at 32 workers",
    "F5": "the interconnect set the ceiling",
}


def fmt_ci(d, name, fmt="{:.2f}"):
    """'X.XX [lo..hi, 93.7%]' for d[name], the interval findings.put_ratio
    stored beside it and its coverage ("n/a" if absent; stats.fmt)."""
    if d.get(name) is None:
        return "n/a"
    if d.get(name + "_lo") is None:
        return fmt.format(d[name])
    return stats.fmt(stats.Interval(d[name], d[name + "_lo"], d[name + "_hi"],
                                    d.get(name + "_n") or 0, d.get(name + "_cov")), fmt)


def per_k(rate):
    """A rate per operation as per 1,000 operations ("n/a" if absent)."""
    return "n/a" if rate is None else f"{rate * 1000:.3g}"


def ns1(ns):
    return "n/a" if ns is None else f"{ns:.1f}"


F4_WORKLOAD_WORDS = {"prodcons": "producers and consumers apart",
                     "pairs": "every thread enqueues then dequeues",
                     "mixed": "each operation an enqueue or a dequeue at random"}


def f4_section(hostdir):
    """The README's F4 by workload: each backoff against retrying at once, with
    the mechanism's counters (lost races, time in backoff), then the spin
    lengths (f4-spin.csv), then why, in the numbers measured here."""
    keys = findings.f4_workloads(hostdir)
    if not keys or keys == [("prodcons", 0.0)]:
        return []
    rows = {k: findings.f4(hostdir, *k) for k in keys}
    # the backoffs this host's sweep ran (the library may have more)
    backoffs = [b for b in findings.F4_BACKOFFS
                if any(r and f"{b}_change_pct" in r for r in rows.values())]
    lines = ["", "## F4 by workload: backoff against retrying at once", "",
             "Each backoff's paired change in throughput against `none` (retrying at once) "
             "at the largest thread count whose threads had a CPU each; *not exercised* "
             "where the `none` run lost fewer than 1 race per 1,000 operations (no backoff "
             "had anything to do). Lost races per 1,000 operations (failed_attempts / "
             "(enqueued + dequeued), whole run) and time in backoff per operation (sampled "
             "by the ring: one backoff in 16 timed) say what each backoff did. Workloads: "
             + "; ".join(f"{w}: {d}" for w, d in F4_WORKLOAD_WORDS.items()) + ".", "",
             "| workload | local work (ns) | threads | none: lost races / 1,000 ops | "
             + " | ".join(f"{b}: change (lost races / 1,000; ns in backoff / op)"
                          for b in backoffs) + " |",
             "|---|---|---|---|" + "---|" * len(backoffs)]
    why = []
    for w, work in keys:
        r = rows[(w, work)]
        if not r:
            continue
        none = r.get("none_failed_per_item")
        cells = ["—" if f"{b}_change_pct" not in r else
                 ("not exercised" if r.get(f"{b}_exercised") is False
                  else f"{fmt_ci(r, f'{b}_change_pct', '{:+.1f}')}%")
                 + f" ({per_k(r.get(f'{b}_failed_per_item'))}; "
                 f"{ns1(r.get(f'{b}_backoff_ns_per_op'))})" for b in backoffs]
        lines.append(f"| {w} | {work:g} | {r['threads']}{over_note(r)} | {per_k(none)} | "
                     + " | ".join(cells) + " |")
        if w != "prodcons" and work == 0 and none is not None and r.get("exp_exercised"):
            best = max((b for b in backoffs if f"{b}_change_pct" in r),
                       key=lambda b: r[f"{b}_change_pct"], default=None)
            if best:
                why.append(f"{w}: retrying at once lost {none * 1000:.3g} races per 1,000 "
                           f"operations; {best} lost "
                           f"{(r.get(f'{best}_failed_per_item') or 0) * 1000:.3g} and spent "
                           f"{ns1(r.get(f'{best}_backoff_ns_per_op'))} ns per operation "
                           f"backing off, for a change of {r[f'{best}_change_pct']:+.1f}%")
    if why:
        lines += ["", "Why, in this host's counters: a lost race costs both threads a "
                  "transfer of the contended line; a backoff that spins a little lets the "
                  "winner finish and the loser find the line settled, so that fewer races "
                  "are lost. " + "; ".join(why) + ". What holds at the study's 32 workers "
                  "on two nodes is not tested here (the claim F4.study-15-30pct)."]
    lines += spin_section(hostdir)
    return lines


def spin_section(hostdir):
    """The spin lengths of f4-spin: pause by pause_spin, exp by exp_cap, each
    against the none run of its own point and round."""
    rows = findings.load(os.path.join(hostdir, "f4-spin.csv"))
    if not rows:
        return []
    pause_ns = None
    try:
        for r in nrdata.read_rows(os.path.join(hostdir, "probe", "probe.csv")):
            if r.get("kind") == "pause_ns" and r.get("value"):
                pause_ns = float(r["value"])
    except (nrdata.DataError, ValueError):
        pass
    lines = ["", "### How long a backoff spins (f4-spin)", "",
             "pairs, 2 threads, no local work; each backoff against the `none` run of the "
             "same point and round. "
             + (f"One PAUSE took {pause_ns:.1f} ns here (probe: `pause_ns`)." if pause_ns
                else "This host's probe predates the `pause_ns` row (the time of one PAUSE): "
                "spin lengths are in PAUSEs only."), "",
             "| backoff | spin (PAUSEs) | change against none | lost races / 1,000 ops | "
             "ns in backoff / op |", "|---|---|---|---|---|"]
    for d in findings.f4_spin(hostdir, rows):
        b = d["backoff"]
        lines.append(f"| {b} | {d['spin']}{' (cap)' if b == 'exp' else ''} | "
                     f"{fmt_ci(d, 'change_pct', '{:+.1f}')}% | "
                     f"{per_k(d['failed_per_item'])} | {ns1(d['backoff_ns_per_op'])} |")
    return lines


def f4_says(r, b):
    """What the README says of backoff b at F4's largest thread count: the paired
    change with its CI, or that the backoff did not run."""
    k = per_k(r.get(f"{b}_failed_per_item"))
    if r.get(f"{b}_exercised") is False:
        return (f"{b}: backoff not exercised on this host ({k} failed attempts per "
                "1,000 operations)")
    reg = f"; {regime_says(r, f'{b}_')}" if r.get(f"{b}_regime") else ""
    return (f"{b} {fmt_ci(r, f'{b}_change_pct', '{:+.1f}')}% ({k} failed attempts per "
            f"1,000 operations{reg})")


def stated_order(queue):
    """A queue's stated order (the manifest's), '?' for one it no longer names."""
    try:
        return manifest.queue(queue)["ordering"]
    except KeyError:
        return "?"


def peers_pairs_section(hostdir):
    """The README's lines on the peers under pairs and mixed, each queue with
    its stated order (strict FIFO or relaxed), so that numaring's standing
    against every strict-FIFO peer is read off one table."""
    res = [(w, findings.peers_pairs(hostdir, workload=w))
           for w in manifest.symmetric_workloads()]
    res = [(w, r) for w, r in res if r]
    if not res:
        return []
    lines = ["", "## The peers under enqueue-dequeue pairs" + (" and mixed operations"
                                                             if len(res) > 1 else ""), "",
             "Every thread enqueues then dequeues (pairs) or does one or the other at random "
             "(mixed), single operations, inline items, so threads of one role race on every "
             "queue: million operations/s (median), lost races per 1,000 operations where the "
             "queue counts them, and numaring's paired ratio against the queue. The stated "
             "order is the queue's own (`fifo`: strict FIFO; `per-producer`, `per-node`: "
             "relaxed; numaring-bench checks it on every item).", "",
             "| workload | threads | queue | stated order | Mops/s | lost races / 1,000 ops "
             "| numaring / queue |",
             "|---|---|---|---|---|---|---|"]
    for w, r in res:
        for d in r:
            for q, e in d["queues"].items():
                lost = "—" if e["lost"] is None else per_k(e["lost"])
                lines.append(f"| {w} | {d['threads']}{over_note(d)} | {q} | {stated_order(q)} | "
                             f"{e['mops']:.1f} | {lost} | "
                             + ("—" if q == "numaring" else fmt_ci(e, "ring_over")) + " |")
    return lines


def peers_field_section(hostdir):
    """The README's lines on the peers' configurations beside the named one
    (experiments/peers.exp: work 0 on one node, which the lines above quote):
    producers and consumers apart at another work level or placement, as the
    finding table quotes the named one, and the symmetric workloads (pairs
    beside the named one, mixed) as the pairs section does. [] where
    peers.csv holds only the named configuration (results from before it)."""
    named = (findings.PEERS_WORK, findings.PEERS_PIN)
    rest = [c for c in findings.peers_configs(hostdir)
            if c[1:] != named or c[0] not in ("prodcons", "pairs")]
    if not rest:
        return []
    lines = ["", "## The peers as the field runs them", "",
             "The configurations of the peers sweep beside the one quoted above (no local "
             "work, every thread on one node): `work` is the local work between operations "
             "on every thread (MIN-MAX: a random delay drawn per operation), `pin` the "
             "placement (split: producers on one node, consumers on the other; scatter: "
             "threads alternate nodes), inline items. Producers and consumers apart: "
             "numaring's paired ratio against the best single-ring peer at the lowest thread "
             "count, within one regime as above; pairs and mixed (every thread enqueues and "
             "dequeues): single operations, each queue's million operations/s (median), "
             "lost races per 1,000 operations and numaring's paired ratio against it.", ""]
    pc = [c for c in rest if c[0] == "prodcons"]
    if pc:
        lines += ["| work (ns) | pin | operations | numaring / best peer | numaring / flat | "
                  "numaring / rte_ring | regime |", "|---|---|---|---|---|---|---|"]
        for _w, work, pin in pc:
            r = findings.peers(hostdir, "inline", work, pin)
            for b, label in (("0", "single"), ("1", "bursts")):
                if r and f"b{b}_over_best" in r:
                    lines.append(
                        f"| {work} | {pin} | {label} at {r['threads']} threads{over_note(r)} | "
                        f"{fmt_ci(r, f'b{b}_over_best')}x ({r[f'b{b}_best_peer']}) | "
                        f"{fmt_ci(r, f'b{b}_over_flat')}x | {fmt_ci(r, f'b{b}_over_rte')}x | "
                        f"{regime_says(r, f'b{b}_')} |")
        lines.append("")
    sym = [c for c in rest if c[0] != "prodcons"]
    if sym:
        lines += ["| workload | work (ns) | pin | threads | queue | Mops/s | lost races / 1,000 "
                  "ops | numaring / queue |", "|---|---|---|---|---|---|---|---|"]
        for wl, work, pin in sym:
            for d in findings.peers_pairs(hostdir, "inline", wl, work, pin):
                for q, e in d["queues"].items():
                    lost = "—" if e["lost"] is None else per_k(e["lost"])
                    lines.append(f"| {wl} | {work} | {pin} | {d['threads']}{over_note(d)} | "
                                 f"{q} | {e['mops']:.1f} | {lost} | "
                                 + ("—" if q == "numaring" else fmt_ci(e, "ring_over")) + " |")
    return lines


def placement_section(hostdir):
    """The README's placement table (experiments/placement.exp, the placement
    heatmap's numbers: placement_cells): per workload and placement, the best
    peer's and numaring's median throughput and numaring's paired ratio to
    it. [] where the host has no placement.csv."""
    from . import placement_cells as PC
    rows = PC.load(hostdir)
    if not rows:
        return []
    queues = sorted({r["queue"] for r in rows})
    lines = ["", "## Placement: numaring against the best peer of each placement", "",
             "The placement sweep (`experiments/placement.exp`, the figure `placement`): "
             "producers on node P and consumers on node C (`nodes:P/C`; pairs and mixed: "
             "threads alternating nodes, `scatter`) with the queue's memory on the "
             "producers' node, the consumers' or interleaved; each placement's best peer "
             "(the other queue with the highest median there), million operations/s "
             "(medians), and numaring's paired ratio to it."]
    if PC.not_placed(rows):
        lines += ["", "**Emulated nodes, not placed**: the queue's memory went nowhere in "
                  "particular (queue_pages \u201cnot placed\u201d), so a thread placement's "
                  "memory policies are one configuration: one row each, its first policy's "
                  "runs; nothing here is a two-socket result."]
        rows = PC.one_memory_row(rows)
    lines += ["", "| workload | threads | pin | memory | best peer | Mops/s | numaring Mops/s | "
              "numaring / best peer |", "|---|---|---|---|---|---|---|---|"]
    for wl in PC.workloads_in(rows):
        for pr in PC.workload_cells([r for r in rows if PC.workload_of(r) == wl], queues):
            (t, pin, mem), best, cells = pr["key"], pr["best"], pr["cells"]
            nr = cells.get(PC.NUMARING)
            over = any(c["oversubscribed"] for c in cells.values())
            dash = "\u2014"
            lines.append("| %s | %s%s | %s | %s | %s | %s | %s | %s |" % (
                wl, t, over_note({"oversubscribed": over}), pin, mem, best or dash,
                "%.3g" % (cells[best]["tput"].est / 1e6) if best else dash,
                "%.3g" % (nr["tput"].est / 1e6) if nr else dash,
                stats.fmt(pr["ratio"]) + "x" if pr["ratio"] else dash))
    return lines


def natural(text):
    """A sort key that orders the numbers in a point's id by value (batch=4 before batch=16)."""
    return [(0, float(x), "") if re.fullmatch(r"[0-9]+(\.[0-9]+)?", x) else (1, 0.0, x)
            for x in re.split(r"([0-9]+(?:\.[0-9]+)?)", text) if x]


def trip_section(hostdir):
    """The README's items per line trip of every cross-node point
    (nrdata.items_per_trip: throughput x the probe's one-way trip between
    nodes); [] where no run's items crossed nodes."""
    trip = nrdata.probe_trip_ns(hostdir)
    table = []
    for exp in findings.EXPERIMENTS:
        pts = findings.points([r for r in findings.load(os.path.join(hostdir, f"{exp}.csv"))
                               if nrdata.crosses_nodes(r)])
        for (_prof, pid), rs in sorted(pts.items(), key=lambda kv: (
                findings.threads(kv[1][0]), natural(kv[0][1]))):
            v = [x for x in (nrdata.items_per_trip(r, trip) for r in rs) if x is not None]
            table.append(
                f"| {exp} | {pid} | {findings.threads(rs[0])}"
                f"{' (oversubscribed)' if findings.any_oversubscribed(rs) else ''} | {len(rs)} | "
                f"{findings.med(rs, 'throughput_ops_per_s') / 1e6:.2f} | "
                + (f"{statistics.median(v):#.3g} [{min(v):#.3g}..{max(v):#.3g}]" if v else "—")
                + " |")
    if not table:
        return []
    lines = ["", "## Items per line trip (cross-node runs)", "",
             "Each run whose items all cross between nodes (pin split), its throughput "
             "times the host probe's one-way line trip between nodes (`items_per_trip`, "
             "scripts/analysis/nrdata.py; the trip: `" + nrdata.TRIP_SOURCE + "`, "
             + (f"{trip:.1f} ns here" if trip else "**not in this host's probe**: not "
                "computed") + "): the items a run moved in the time one cache line takes to "
             "cross once. The trip is the host's own, so the figure compares hosts whose "
             "interconnects differ where items per second do not"
             + ("; on emulated nodes the trip is between two CPUs of one socket."
                if (hostfacts.describe_host(hostdir) or {}).get("topology") == "emulated"
                else ".")
             + " Median over the point's runs [min..max].", "",
             "| experiment | point | threads | runs | M items/s (median) | items per trip |",
             "|---|---|---|---|---|---|"]
    return lines + table


def over_note(r):
    """' (oversubscribed)' where the rows behind a result shared CPUs; ' (N runs
    with steal)' where the hypervisor took more than a few percent of the
    CPUs' time from N of them (flagged alike: the machine, not the queue)."""
    note = " (**oversubscribed**: threads share CPUs)" if r.get("oversubscribed") else ""
    if r.get("stolen"):
        note += (f" (**{r['stolen']} run(s) with steal time above "
                 f"{STEAL_FLAG_PCT:g}%**: the hypervisor took the CPUs)")
    return note


def drift_section(hostdir):
    """The README's lines on each experiment's drift reference."""
    lines = ["", "## Drift", "",
             "Each experiment runs its reference configuration (its first point, or the one "
             "its `.exp` file names) at the start, after half the runs and at the end "
             "(points `reference-start`, `-middle`, `-end`; kept out of every other number). "
             "Drift = (max - min) / median of those runs, of the value the experiment's "
             "ratios are taken of; it is flagged where it exceeds the smallest effect the "
             "experiment states (|ratio - 1| of a paired ratio above): that effect is within "
             "the machine's drift over the sweep. The order of the runs (rounds of "
             "repetitions, the points of a round shuffled with a recorded seed) is in "
             "`<experiment>/<profile>/order.txt` where the runner wrote one.", ""]
    rows = []
    for exp in findings.EXPERIMENTS:
        if not os.path.exists(os.path.join(hostdir, f"{exp}.csv")):
            continue
        d = drift.drift(hostdir, exp)
        if d is None:
            rows.append(f"| {exp} | not measured (no reference runs in these results) "
                        "| | | | | | | |")
            continue
        mops = d["metric"] == "throughput_ops_per_s"
        vals = ["—" if x is None else f"{x / 1e6:.2f}" if mops else f"{x:.0f}"
                for x in d["values"][:3]]
        metric = "Mops/s" if mops else d["metric"].replace("_ns", " (ns)")
        small = (f"{d['smallest'][1] * 100:.1f}% ({d['smallest'][0]})" if d["smallest"]
                 else "no ratio stated")
        verdict = {True: "**FLAGGED: drift exceeds the smallest effect stated**",
                   False: "ok"}.get(d["flagged"], "—")
        dr = "—" if d["drift"] is None else f"{d['drift'] * 100:.1f}%"
        over = " (oversubscribed)" if d["oversubscribed"] else ""
        rows.append(f"| {exp} | {d['point'] or '?'}{over} | {metric} | {' | '.join(vals)} | "
                    f"{dr} | {small} | {verdict} |")
    if not rows:
        return lines + ["No experiment in these results."]
    return lines + ["| experiment | reference | metric | start | middle | end | drift "
                    "| smallest effect stated | |", "|---|---|---|---|---|---|---|---|---|"] + rows


def harness_section(hostdir):
    """The README's lines on the harness's own ceiling and the harness-bound points."""
    def mops(v):
        return f"{v / 1e6:.1f}" if v else "—"

    lines = ["", "## The harness's own ceiling", "",
             "`harness_ops_per_s`: the `null` queue (operations that share nothing) run "
             "through the same harness code for 0.1 s before each measured run, with the same "
             "threads, placement and items. Median over the 1P1C runs of each experiment with "
             "the least local work (findings.harness_alone, the one definition the findings "
             "above, the figures and the paper use), in million items/s:", ""]
    hc = findings.harness_ceiling(hostdir)
    if hc:
        lines += ["| experiment | items | single operations | bursts |", "|---|---|---|---|"]
        for exp in findings.EXPERIMENTS:
            for item in manifest.items():
                d = hc.get(exp, {})
                if (item, "0") in d or (item, "1") in d:
                    lines.append(f"| {exp} | {item} | {mops(d.get((item, '0')))} | "
                                 f"{mops(d.get((item, '1')))} |")
    else:
        lines.append("Not measured in these results.")
    bound, measured = findings.harness_bound(hostdir)
    lines += ["", "## Harness-bound points", "",
              f"Points whose median throughput is at least {findings.HARNESS_BOUND:g}x their "
              "median `harness_ops_per_s` (within 20% of the harness's own ceiling: the figure "
              "measures the harness as much as the queue):", ""]
    if not measured:
        lines.append("None can be named: the harness's ceiling was not measured.")
    elif not bound:
        lines.append(f"None (of {measured} points with the harness's ceiling measured).")
    else:
        lines += ["| experiment | point | queue | items | threads | measured | harness alone "
                  "| measured / harness |", "|---|---|---|---|---|---|---|---|"]
        for b in bound:
            lines.append(f"| {b['experiment']} | {b['point']} | {b['queue']} | {b['item']}"
                         f"{', bursts' if str(b['bursts']) == '1' else ''} | {b['threads']} | "
                         f"{mops(b['measured'])} | {mops(b['harness'])} | {b['ratio']:.2f} |")
        lines += ["", f"{len(bound)} of {measured} points with the harness's ceiling measured."]
    return lines


#: make bench-fidelity's diagnostic runs (scripts/runner/bench_fidelity.py STRIPS),
#: in its order, with what each removed
STRIPPED = (("sampling", "sampling (one item in 2^20 timed)"),
            ("publish", "publish (a producer's count per operation)"),
            ("window", "window (a producer's checks per operation)"),
            ("accounting", "accounting (a consumer's tallies)"),
            ("all", "all four"))


def fidelity_section(hostdir):
    """Where the harness's time goes (make bench-fidelity's stripped runs): for
    each queue, configuration and mode with a bare partner, harness / bare loop, each cost removed alone over the
    plain harness, and all removed over the bare loop; paired by round. None
    where the host's bench-fidelity.csv has no stripped runs; one line saying
    they were not measured where its meta.json says it ran with --no-strip
    (make experiments' profile quick: scripts/runner/side.py)."""
    rows = [{**r, "rep": r.get("round") or "1"} for r in findings.load_all(
        os.path.join(hostdir, "bench", "bench-fidelity.csv"))]
    if not any(r.get("stripped") for r in rows):
        try:
            with open(os.path.join(hostdir, "bench", "bench-fidelity.meta.json"),
                      encoding="utf-8") as f:
                opts = json.load(f).get("options") or {}
        except (OSError, ValueError, AttributeError):
            opts = {}
        if rows and isinstance(opts, dict) and opts.get("no_strip"):
            return ["", "## Where the harness's time goes (make bench-fidelity)", "",
                    "Not measured in these results: bench-fidelity ran without its diagnostic "
                    "runs (`--no-strip`, as `make experiments` runs it in profile quick: "
                    "scripts/runner/side.py); `make bench-fidelity` measures them."]
        return []

    def config(r):
        return (r.get("config") or "1p1c", r.get("item") or "inline")

    def runs(q, b, cf, where="harness", stripped=None):
        return [r for r in rows if r.get("queue") == q and str(r.get("bursts")) == b
                and r.get("where") == where and config(r) == cf
                and (r.get("stripped") or None) == stripped]

    def cell(a, b):
        return stats.fmt(stats.paired(a, b)) if a and b else "—"
    lines = ["", "## Where the harness's time goes (make bench-fidelity)", "",
             "Each configuration's harness run over its bare loop's in the same round; then, "
             "for prodcons with inline items (what `numaring-bench --strip` allows), the "
             "harness run again with one of its own per-item costs removed at a time (a "
             "diagnostic that measures no queue; `--sample 1048576` for sampling): each such "
             "column is that run's speed over the plain harness's in the same round (above 1: "
             "what the cost took), the last all four removed over the bare loop (below 1: "
             "what is left). Medians of the rounds' paired ratios [interval, its exact "
             "coverage]; — where a configuration has no such run:", "",
             "| queue | config | items | mode | harness / bare | "
             + " | ".join(w for _, w in STRIPPED) + " | all removed / bare |",
             "|---" * (6 + len(STRIPPED)) + "|"]
    configs = sorted({config(r) for r in rows if r.get("where") == "harness"},
                     key=lambda c: (c[0] != "1p1c", c))
    for q in sorted({r.get("queue") for r in rows if r.get("stripped")}):
        for cf in configs:
            for b, mode in (("0", "single"), ("1", "bursts")):
                plain, bare = runs(q, b, cf), runs(q, b, cf, "bare")
                if not plain or not bare:  # no partner: a file from before it had one
                    continue
                lines.append(f"| {q} | {cf[0]} | {cf[1]} | {mode} | {cell(plain, bare)} | "
                             + " | ".join(cell(runs(q, b, cf, stripped=n), plain)
                                          for n, _ in STRIPPED)
                             + f" | {cell(runs(q, b, cf, stripped='all'), bare)} |")
    return lines


def pace_section(hostdir):
    """The README's lines on which side set the pace of the peers' burst runs."""
    rows = findings.pace(hostdir)
    if not rows:
        return []

    def mops(v):
        return f"{v:.1f}" if v is not None else "—"

    lines = ["", "## Which side set the pace (peers, 1P1C bursts)", "",
             "A producer that finds the queue full retries (`full_retries`). Runs with more "
             f"than {findings.FULL_RETRIES_PACE:g} retries per burst ran full: the consumer "
             "set the pace. With inline items the development machine's Vyukov rings "
             "(numaring, flat) "
             "were slower in such runs (the producer refills each cell right behind the "
             "consumer; rte_ring's consumer writes no slot: the repository's README), so a "
             "wide spread of a burst ratio above can be the two kinds of run mixed; the "
             "columns below say whether it is here. With message items the consumer's own "
             "work per item makes most runs consumer-paced.", "",
             "| items | queue | runs | median retries per burst | runs that ran full | "
             "Mitems/s of those | Mitems/s of the others |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['item']} | {r['queue']} | {r['runs']} | {r['retries']:.3f} | "
                     f"{r['full_runs']} | {mops(r['full_mops'])} | {mops(r['kept_mops'])} |")
    return lines


def archive_note(hostdir):
    """The lines that label a host folder an archive: a sweep older than the
    canonical host's (hostfacts.canonical_host), with its commit, when it ran,
    what its tables lack of the current design and that it cannot be re-measured
    (its machine is gone); [] for the canonical host, its sibling, a guest."""
    hostdir = os.path.normpath(hostdir)
    results, host = os.path.dirname(hostdir), os.path.basename(hostdir)
    real = host.split("-emulated-")[0]
    canon = hostfacts.canonical_host(results)
    if not canon or real == canon or not os.path.isdir(os.path.join(results, real, "env")):
        return []
    rd = os.path.join(results, real)
    miss = hostfacts.lacks(rd)
    # the canonical host is this machine's own re-run (hostid: <key>-r2, -r3,
    # ...) or another machine's sweep, which this one cannot be measured beside
    again = re.sub(r"-r[0-9]+$", "", canon) == re.sub(r"-r[0-9]+$", "", real)
    why = ("this machine re-ran the sweep with the current design into that folder"
           if again else "this machine cannot be re-measured")
    return [f"**Archive.** Measured at commit `{hostfacts.commit(rd)[:12] or '?'}` "
            f"({hostfacts.captured(rd) or 'date unknown'}), before the newest sweep; "
            f"{why}. README.md, docs/ and the paper quote "
            f"[`{canon}`](../{canon}/README.md) instead"
            + (f". Its tables lack: {'; '.join(miss)}." if miss else "."), ""]


def hms(seconds):
    s = int(round(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def sweep_time(hostdir):
    """The README's sentence on make experiments' wall time beside its estimate
    (make-experiments.txt, written by the runner and make's last step); [] where
    the folder has no complete record."""
    rec = {}
    try:
        with open(os.path.join(hostdir, "make-experiments.txt"), encoding="utf-8") as f:
            rec = dict(line.strip().partition(" ")[::2] for line in f
                       if line.strip() and not line.startswith("#"))
        wall, est, most = (float(rec[k]) for k in ("wall_s", "estimate_s", "at_most_s"))
    except (OSError, KeyError, ValueError):
        return []
    return ["", f"`make experiments` took {hms(wall)} here ({rec.get('started', '?')} to "
            f"{rec.get('ended', '?')}), against the estimate it printed before it started, "
            f"{hms(est)} (at most {hms(most)}; profile {rec.get('profile', '?')}): "
            f"{wall / est:.2f}x the estimate (`make-experiments.txt`)."]


def bench_only_readme(hostdir, host, t):
    """The README of a folder of benchmarks alone (bench/: make bench-backoff and
    the others, run beside a sweep of another tree): what is in it and who reads
    it, and make bench-fidelity's table where it ran (fidelity_section: harness
    / bare and where the time goes); no findings, no claims (it is not a sweep)."""
    try:
        files = sorted(f for f in os.listdir(os.path.join(hostdir, "bench"))
                       if f.endswith(".csv"))
    except OSError:
        files = []
    cpus = sum(n.get("ncpus", 0) for n in t.get("nodes", []))
    return "\n".join([
        f"# Results of `{host}`", "",
        "**Benchmarks only.** This folder holds no sweep: no finding and no claim is "
        "checked here, and README.md, docs/ and the paper do not quote it as a host. Each "
        "CSV in `bench/` is one benchmark's rows, with its command, commit and times in "
        "the `.meta.json` beside it; the environment it ran in is in `env/`.", "",
        f"Machine: {t.get('cpu_model', 'unknown CPU')}, {cpus} CPUs usable, kernel "
        f"{t.get('kernel', '?')}.", "",
        "| file | read by |", "|---|---|"]
        + [f"| `bench/{f}` | "
           + ("docs/ring.md, \"The default backoff\" (`scripts/analysis/backoff_default.py`)"
              if f == "bench-backoff.csv" else "the table below" if f == "bench-fidelity.csv"
              else "its benchmark's printout only") + " |"
           for f in files]
        + (fidelity_section(hostdir) if "bench-fidelity.csv" in files else [])) + "\n"


def host_readme(hostdir):
    host = os.path.basename(os.path.normpath(hostdir))
    t = hostfacts.describe_host(hostdir) or {}
    try:
        machine_nodes = int(nrdata._read_lscpu(os.path.join(hostdir, "env", "lscpu.txt"))
                            .get("NUMA node(s)", 1))
    except ValueError:
        machine_nodes = 1
    nodes = t.get("nodes", [])
    cpus = sum(n.get("ncpus", 0) for n in nodes)
    emulated = t.get("topology") == "emulated"
    m = hostfacts.machine(hostdir)
    # after a quoted thread count where the host has SMT (quoted_threads then
    # stops at its cores)
    smt = " (one per core)" if hostfacts.has_smt(m) else ""
    # the machine's cores and sockets where they add to "N CPUs, M nodes": SMT
    # (CPUs are not cores) and several sockets
    cores = (f" ({m['cores']} cores x {m['threads_per_core']} hardware threads)"
             if hostfacts.has_smt(m) and m["cores"] else "")
    sockets = f" on {m['sockets']} sockets" if (m["sockets"] or 1) > 1 else ""
    if not hostfacts.sweep_tables(hostdir):
        return bench_only_readme(hostdir, host, t)
    lines = [f"# Results of `{host}`", ""] + archive_note(hostdir)
    guest = nrdata.guest_note(t.get("virtualization"))
    if guest:  # make vm-experiments: the numbers prove the steps ran, nothing else
        lines += [f"**{guest}.** Nothing below is a measurement of any machine, and "
                  "nothing here is a two-socket result.", ""]
    kind = (f"**EMULATED** nodes: {len(nodes)} nodes mapped onto CPUs "
            f"({'; '.join(str(n.get('cpus', '?')) for n in nodes)}) of a machine that has "
            f"{machine_nodes} real node(s) — memory placement is not real "
            "and nothing here is a two-socket result" if emulated else
            f"{len(nodes)} real NUMA node(s){sockets}")
    lines.append(f"Machine: {t.get('cpu_model', 'unknown CPU')}, {cpus} CPUs usable{cores}, kernel "
                 f"{t.get('kernel', '?')}; {kind}. rseq node_id: "
                 f"{'yes' if t.get('rseq_node_id') else 'no'}, rdpid: "
                 f"{'yes' if t.get('rdpid') else 'no'}. Environment in `env/`, host probe in "
                 "`probe/probe.csv`, one tidy CSV per experiment, every run's files in "
                 "`<experiment>/<profile>.tar.xz` (as `<profile>/<point>/rep-<k>/`, read in "
                 "place). Generated by "
                 "`scripts/analysis/summarize.py` from those CSVs. A ratio between two configurations "
                 "is paired: the ratio of the two runs of each repetition k (rep k of every "
                 "point ran in the same round of the sweep, close in time), its median, and the "
                 "distribution-free order-statistic interval of that median with its exact "
                 "coverage at the n used, written X.XX [lo..hi, coverage] ("
                 + stats.method_sentence(5) + " The word 95% is used only where an "
                 "interval covers that much.) Absolute values are medians over repetitions.")
    lines += sweep_time(hostdir)
    lines += ["", "| finding | measured here | study |", "|---|---|---|"]
    r = findings.f1(hostdir)
    if r:
        modes = ", ".join(f"{m} {fmt_ci(r, f'{m}_vs_none')}x" for m in ("cached", "rseq")
                          if r.get(f"{m}_vs_none") is not None)
        lines.append(f"| F1 (1P1C harness) | libnuma look-up {r['lookup_ns']:.1f} ns per operation = "
                     f"{fmt_ci(r, 'ratio', '{:.1f}')}x the data movement ({r['move_ns']:.1f} ns, "
                     f"lookup none; {regime_says(r)})"
                     + (f"; time per item against no look-up: {modes}" if modes else "")
                     + (f"; the harness alone: {r['harness_ns']:.1f} ns per item"
                        if "harness_ns" in r else "") + f" | {STUDY['F1']} |")
    r = findings.bench_ring(hostdir)
    if r:
        lines.append(f"| F1 (one thread, bench-ring) | libnuma look-up {r['lookup_ns']:.1f} ns = "
                     f"{r['ratio']:.1f}x an uncontended operation ({r['move_ns']:.2f} ns); "
                     f"cached and rseq pairs {r.get('cached_pair_over_none', 0):.2f}x and "
                     f"{r.get('rseq_pair_over_none', 0):.2f}x of no look-up (medians of one "
                     f"run, no repetitions) | {STUDY['F1']} |")
    r = findings.f2(hostdir)
    if r:
        lines.append(f"| F2 | cached / libnuma throughput at {r['threads']} threads"
                     f"{smt}{over_note(r)}: {fmt_ci(r, 'cached_over_libnuma')}x "
                     f"({regime_says(r)}; {r['cached_mops']:.1f} vs {r['libnuma_mops']:.1f} Mops/s"
                     + (f"; rseq / libnuma {fmt_ci(r, 'rseq_over_libnuma')}x"
                        if r.get("rseq_over_libnuma") is not None else "")
                     + (f"; the harness alone: {r['harness_mops']:.1f}"
                        if r.get("harness_mops") else "") + f") | {STUDY['F2']} |")
    r = findings.f3(hostdir)
    if r:
        for d in r["loads"]:
            how = (f"open loop at {float(d['load']) * 100:.0f}% of capacity" if d["load"]
                   else "closed loop")
            inflight = ""
            if d.get("inflight_shared") is not None and d.get("inflight_perworker") is not None:
                inflight = (f"; items in flight {d['inflight_shared']:.1f} vs "
                            f"{d['inflight_perworker']:.1f}")
            if d.get("saturated"):
                inflight += (f"; {d['saturated']} of {d['runs']} runs saturated (delivered "
                             f"< {regime.SATURATED_SHARE:.0%} of the offered rate), left out")
            lines.append(f"| F3 | p50 latency shared / per-worker gate at {r['threads']} threads"
                         f"{smt}{over_note(r)}, {how}: {fmt_ci(d, 'shared_over_perworker')}x "
                         f"({d['p50_shared_ns']:.0f} vs {d['p50_perworker_ns']:.0f} ns; p99 "
                         f"{fmt_ci(d, 'p99_shared_over_perworker')}x; {d['mops_shared']:.2f} vs "
                         f"{d['mops_perworker']:.2f} Mops/s{inflight}) | {STUDY['F3']} |")
    r = findings.f4(hostdir)
    if r:
        parts = "; ".join(f4_says(r, b) for b in findings.F4_BACKOFFS
                          if f"{b}_failed_per_item" in r or f"{b}_change_pct" in r)
        if parts:
            lines.append(f"| F4 | throughput against no backoff at {r['threads']} threads"
                         f"{smt}{over_note(r)}: {parts} | {STUDY['F4']} |")
    for name in ("f5-ceiling", "peers", "f2-node-cache"):
        try:
            cr = findings.ceiling_ratios(hostdir, name)
        except (ValueError, OSError) as e:
            cr = None
            lines.append(f"| F5 | ceiling not computed: {e} | |")
        if cr:
            best = findings.quoted_best(cr)
            lines.append(f"| F5 ({name}) | best measured/ceiling {best['ratio']:.2f} "
                         f"({best['queue']}, {best['threads']} threads, batch {best['batch']}, "
                         f"bound: {best['bound']}); no point above the ceiling: "
                         f"{'yes' if all(x['ratio'] <= 1 for x in cr) else 'NO'} | "
                         f"{STUDY['F5']} |")
            break
    f5_ran = os.path.exists(os.path.join(hostdir, "f5-ceiling.csv"))
    rz = findings.f5_realized(hostdir) if f5_ran else None
    if rz:
        worst = min(rz, key=lambda x: x["ratio"])
        below = [x for x in rz if x["ratio"] < findings.REALIZED_TARGET]
        lines.append(f"| F5 (realized batch) | items moved per cross-node transfer / configured "
                     f"batch: min {worst['ratio']:.2f} (batch {worst['batch']} at "
                     f"{worst['threads']} threads: {worst['realized']:.1f} items); "
                     f">= {findings.REALIZED_TARGET} at every point: "
                     + ("yes" if not below else f"NO ({len(below)} of {len(rz)} points below)")
                     + " | — |")
    fc = findings.f5_closed(hostdir) if f5_ran else None
    if fc:
        quoted = [x for x in fc if not x["oversubscribed"]] or fc
        cells = "; ".join(f"batch {x['batch']}: {x['ratio']:.2f} ({x['measured']:.1f} of "
                          f"{x['ceiling']:.1f} M items/s, bound: {x['bound']})"
                          for x in quoted if x["threads"] == max(y["threads"] for y in quoted))
        lines.append(f"| F5 (closed loop, capacity) | measured / ceiling at "
                     f"{max(x['threads'] for x in quoted)} threads: {cells} | "
                     f"{STUDY['F5']} |")
    for item, what in (("inline", "inline items"),
                       ("message", "message items, the payload's line travels too")):
        r = findings.peers(hostdir, item)
        if not r:
            continue
        timed = f", 1 in {r['sample']} timed" if r.get("sample") else ""
        for b, label in (("0", "single operations"), ("1", "bursts")):
            if f"b{b}_over_best" in r:
                extra = "".join(f", {fmt_ci(r, f'b{b}_over_{q}')}x {name}"
                                for q, name in (("flat", "flat"), ("rte", "rte_ring"))
                                if f"b{b}_over_{q}" in r)
                lines.append(f"| peers ({what}{timed}) | numaring at {r['threads']} threads"
                             f"{over_note(r)}, {label}: {fmt_ci(r, f'b{b}_over_best')}x the best "
                             f"single-ring peer ({r[f'b{b}_best_peer']}){extra} "
                             f"({regime_says(r, f'b{b}_')}) | — |")
    lines += ["", kind_paragraph(hostdir, t, m)]
    if not emulated and not guest:
        # the reproduction report: every claim checked here (scripts/analysis/claims.py)
        from . import claims  # here, as the model below: see test_plots.Ceiling
        rows = claims.report(hostdir)
        lines += claims.md_section(rows)
        lines += gallery.lines(hostdir, rows)
    else:
        if emulated:
            lines += ["", "The reproduction report of these runs is the real host folder's "
                      "(`claims.csv` and README there)."]
        lines += gallery.lines(hostdir, guest=bool(guest))
    lines += f4_section(hostdir)
    lines += peers_pairs_section(hostdir)
    lines += peers_field_section(hostdir)
    lines += placement_section(hostdir)
    from . import handover, regime_section
    lines += regime_section.lines(hostdir)
    from . import ceiling_tightness  # here: the README is written without the model too
    lines += ceiling_tightness.lines(hostdir)
    lines += handover.lines(hostdir)
    lines += trip_section(hostdir)
    lines += drift_section(hostdir)
    lines += harness_section(hostdir)
    lines += fidelity_section(hostdir)
    lines += pace_section(hostdir)
    return "\n".join(lines) + "\n"


def kind_paragraph(hostdir, t, m):
    """The README's paragraph on what kind of host this is and where F3 and F5
    come from: emulated nodes, one real node (with or without an emulated
    sibling), or several real nodes; and, on SMT, the thread counts quoted."""
    nodes = hostfacts.real_nodes(t)
    if t.get("topology") == "emulated":
        text = ("These runs place threads on emulated nodes: cross-node transfers here "
                "move between CPUs of one socket. They exercise the logic of F3 and F5, "
                "not the interconnect.")
    elif nodes >= 2:
        text = (f"With {nodes} real NUMA nodes, every experiment here ran on the host's own "
                "topology, none on emulated nodes: F3 and F5 place producers and consumers "
                f"on different real nodes, so each cross-node transfer "
                f"{hostfacts.sockets_crossed(m, nodes)}.")
        if not any(os.path.exists(os.path.join(hostdir, f"{e}.csv")) for e in hostfacts.CROSS_NODE):
            text += " F3 and F5 are not in these results" + (
                "; they come from the emulated-node runs in the sibling `-emulated-` folder."
                if hostfacts.emulated_siblings(hostdir) else ".")
    else:
        text = ("With one real node, items never cross an interconnect here: F2 and F4 "
                "measure the look-up and backoff costs on one socket; F3 and F5 "
                + ("come from the emulated-node runs in the sibling `-emulated-` folder."
                   if hostfacts.emulated_siblings(hostdir) else "need two nodes and are not "
                   "in these results (no emulated-node runs beside them)."))
    if hostfacts.has_smt(m) and m["cores"]:
        text += (f" The host has {m['cores']} cores with {m['threads_per_core']} hardware "
                 "threads each: F2, F3, F4 and the best measured/ceiling are quoted at the "
                 "largest thread count with one thread per core; runs whose threads shared "
                 "a core's SMT siblings are drawn in the figures but quoted nowhere.")
    return text
