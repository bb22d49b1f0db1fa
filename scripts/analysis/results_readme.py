# SPDX-License-Identifier: BSD-2-Clause
"""results_readme.py - the values of results/<host>/README.md; its words are
jinja2 templates (scripts/templates/: results_readme.md.j2 the machine and the
findings table, readme_sections.md.j2 a macro per section after it,
bench_readme.md.j2 a folder of benchmarks alone; analysis/templates.py).

host_readme() fills the whole README: the machine, the findings table (each
finding's numbers from findings.py against the study's), the kind of host,
the claims block (claims.py), the figures beside their claims (gallery.py),
then the sections its list names, one function each. Every number is
computed elsewhere. python3 -m scripts.analysis.summarize --readme HOST
writes the file.
"""

import json
import os
import re
import statistics

from . import drift, findings, gallery, hostfacts, nrdata, stats, templates
from ..common import manifest, regime
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
    table, why = [], []
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
        table.append({"workload": w, "work": f"{work:g}", "none": per_k(none), "cells": cells,
                      "threads": f"{r['threads']}{over_note(r)}"})
        if w != "prodcons" and work == 0 and none is not None and r.get("exp_exercised"):
            best = max((b for b in backoffs if f"{b}_change_pct" in r),
                       key=lambda b: r[f"{b}_change_pct"], default=None)
            if best:
                why.append(f"{w}: retrying at once lost {none * 1000:.3g} races per 1,000 "
                           f"operations; {best} lost "
                           f"{(r.get(f'{best}_failed_per_item') or 0) * 1000:.3g} and spent "
                           f"{ns1(r.get(f'{best}_backoff_ns_per_op'))} ns per operation "
                           f"backing off, for a change of {r[f'{best}_change_pct']:+.1f}%")
    words = "; ".join(f"{w}: {d}" for w, d in F4_WORKLOAD_WORDS.items())
    return templates.section(SECTIONS, "f4", HELPERS, words=words, backoffs=backoffs,
                             rows=table, why=why) + spin_section(hostdir)


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
    return templates.section(SECTIONS, "spin", HELPERS, pause_ns=pause_ns,
                             rows=findings.f4_spin(hostdir, rows))


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
    return templates.section(SECTIONS, "peers_pairs", HELPERS, mixed=len(res) > 1, rows=[
        queue_row(w, d, q, e, stated_order(q)) for w, r in res for d in r
        for q, e in d["queues"].items()])


def queue_row(lead, d, q, e, order=None):
    """A row of a table of the peers under pairs or mixed (queue_rows): queue q's
    entry e of result d, after the row's lead cells."""
    return {"lead": lead, "threads": f"{d['threads']}{over_note(d)}", "queue": q, "order": order,
            "mops": e["mops"], "lost": "—" if e["lost"] is None else per_k(e["lost"]),
            "ring_over": "—" if q == "numaring" else fmt_ci(e, "ring_over")}


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
    pc = [c for c in rest if c[0] == "prodcons"]
    prodcons = [{
        "work": work, "pin": pin, "label": label, "threads": r["threads"], "over": over_note(r),
        "best": fmt_ci(r, f"b{b}_over_best"), "best_peer": r[f"b{b}_best_peer"],
        "flat": fmt_ci(r, f"b{b}_over_flat"), "rte": fmt_ci(r, f"b{b}_over_rte"),
        "regime": regime_says(r, f"b{b}_")}
        for _w, work, pin in pc for r in [findings.peers(hostdir, "inline", work, pin)]
        for b, label in (("0", "single"), ("1", "bursts")) if r and f"b{b}_over_best" in r]
    sym = [c for c in rest if c[0] != "prodcons"]
    symmetric = [queue_row(f"{wl} | {work} | {pin}", d, q, e) for wl, work, pin in sym
                 for d in findings.peers_pairs(hostdir, "inline", wl, work, pin)
                 for q, e in d["queues"].items()]
    # None: no such configuration ran (the template leaves its table out)
    return templates.section(SECTIONS, "peers_field", HELPERS, prodcons=prodcons if pc else None,
                             symmetric=symmetric if sym else None)


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
    not_placed = PC.not_placed(rows)
    if not_placed:
        rows = PC.one_memory_row(rows)
    table = []
    dash = "\u2014"
    for wl in PC.workloads_in(rows):
        for pr in PC.workload_cells([r for r in rows if PC.workload_of(r) == wl], queues):
            (t, pin, mem), best, cells = pr["key"], pr["best"], pr["cells"]
            nr = cells.get(PC.NUMARING)
            over = any(c["oversubscribed"] for c in cells.values())
            table.append((
                wl, f"{t}{over_note({'oversubscribed': over})}", pin, mem, best or dash,
                "%.3g" % (cells[best]["tput"].est / 1e6) if best else dash,
                "%.3g" % (nr["tput"].est / 1e6) if nr else dash,
                stats.fmt(pr["ratio"]) + "x" if pr["ratio"] else dash))
    return templates.section(SECTIONS, "placement", HELPERS, not_placed=not_placed, rows=table)


#: the README's sections after its findings table (their words) and the
#: functions their template calls
SECTIONS = "readme_sections.md.j2"
HELPERS = {"ci": fmt_ci, "per_k": per_k, "ns1": ns1,
           "mops": lambda v: f"{v / 1e6:.1f}" if v else "—",
           "mops1": lambda v: f"{v:.1f}" if v is not None else "—"}


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
            table.append({
                "exp": exp, "point": pid, "threads": findings.threads(rs[0]),
                "over": findings.any_oversubscribed(rs), "runs": len(rs),
                "mops": findings.med(rs, "throughput_ops_per_s") / 1e6,
                "per_trip": f"{statistics.median(v):#.3g} [{min(v):#.3g}..{max(v):#.3g}]"
                if v else "—"})
    if not table:
        return []
    emulated = (hostfacts.describe_host(hostdir) or {}).get("topology") == "emulated"
    return templates.section(SECTIONS, "trip", HELPERS, trip_ns=trip, source=nrdata.TRIP_SOURCE,
                             emulated=emulated, rows=table)


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
    rows = []
    for exp in findings.EXPERIMENTS:
        if not os.path.exists(os.path.join(hostdir, f"{exp}.csv")):
            continue
        d = drift.drift(hostdir, exp)
        if d is None:
            rows.append({"exp": exp, "point": None})
            continue
        mops = d["metric"] == "throughput_ops_per_s"
        rows.append({
            "exp": exp, "point": d["point"] or "?", "over": d["oversubscribed"],
            "metric": "Mops/s" if mops else d["metric"].replace("_ns", " (ns)"),
            "values": ["—" if x is None else f"{x / 1e6:.2f}" if mops else f"{x:.0f}"
                       for x in d["values"][:3]],
            "drift": "—" if d["drift"] is None else f"{d['drift'] * 100:.1f}%",
            "smallest": (f"{d['smallest'][1] * 100:.1f}% ({d['smallest'][0]})"
                         if d["smallest"] else "no ratio stated"),
            "verdict": {True: "**FLAGGED: drift exceeds the smallest effect stated**",
                        False: "ok"}.get(d["flagged"], "—")})
    return templates.section(SECTIONS, "drift", HELPERS, rows=rows)


def harness_section(hostdir):
    """The README's lines on the harness's own ceiling and the harness-bound points."""
    hc = findings.harness_ceiling(hostdir)
    ceiling = [(exp, item, d.get((item, "0")), d.get((item, "1")))
               for exp in findings.EXPERIMENTS for d in [(hc or {}).get(exp, {})]
               for item in manifest.items() if (item, "0") in d or (item, "1") in d]
    bound, measured = findings.harness_bound(hostdir)
    return templates.section(SECTIONS, "harness", HELPERS, measured_ceiling=bool(hc),
                             ceiling=ceiling, bound=bound,
                             measured=measured, bound_at=f"{findings.HARNESS_BOUND:g}")


#: make bench-fidelity's diagnostic runs (scripts/runner/bench_fidelity.py STRIPS),
#: in its order, with what each removed
STRIPPED = (("sampling", "sampling (one item in 2^20 timed)"),
            ("publish", "publish (a producer's count per operation)"),
            ("window", "window (a producer's checks per operation)"),
            ("accounting", "accounting (a consumer's tallies)"),
            ("all", "all four"))


def fidelity_section(hostdir):
    """Where the harness's time goes (make bench-fidelity's stripped runs): for
    each queue, configuration and mode with a bare partner, harness / bare
    loop, each cost removed alone over the plain harness, and all removed over
    the bare loop; paired by round. [] where the host's bench-fidelity.csv has
    no stripped runs; one line saying they were not measured where its
    meta.json says it ran with --no-strip (make experiments' profile quick:
    scripts/runner/side.py)."""
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
            return templates.section(SECTIONS, "fidelity_not_measured", HELPERS)
        return []

    def config(r):
        return (r.get("config") or "1p1c", r.get("item") or "inline")

    def runs(q, b, cf, where="harness", stripped=None):
        return [r for r in rows if r.get("queue") == q and str(r.get("bursts")) == b
                and r.get("where") == where and config(r) == cf
                and (r.get("stripped") or None) == stripped]

    def cell(a, b):
        return stats.fmt(stats.paired(a, b)) if a and b else "—"
    table = []
    configs = sorted({config(r) for r in rows if r.get("where") == "harness"},
                     key=lambda c: (c[0] != "1p1c", c))
    for q in sorted({r.get("queue") for r in rows if r.get("stripped")}):
        for cf in configs:
            for b, mode in (("0", "single"), ("1", "bursts")):
                plain, bare = runs(q, b, cf), runs(q, b, cf, "bare")
                if not plain or not bare:  # no partner: a file from before it had one
                    continue
                table.append([q, cf[0], cf[1], mode, cell(plain, bare)]
                             + [cell(runs(q, b, cf, stripped=n), plain) for n, _ in STRIPPED]
                             + [cell(runs(q, b, cf, stripped="all"), bare)])
    return templates.section(SECTIONS, "fidelity", HELPERS,
                             stripped=[w for _, w in STRIPPED], rows=table)


def pace_section(hostdir):
    """The README's lines on which side set the pace of the peers' burst runs."""
    rows = findings.pace(hostdir)
    if not rows:
        return []
    return templates.section(SECTIONS, "pace", HELPERS, rows=rows,
                             retries_pace=f"{findings.FULL_RETRIES_PACE:g}")


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


def cpus(t):
    """The CPUs usable of a host (hostfacts.describe_host), over its nodes."""
    return sum(n.get("ncpus", 0) for n in t.get("nodes", []))


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
    return templates.render(
        "bench_readme.md.j2", host=host, files=files, cpu_model=t.get("cpu_model", "unknown CPU"),
        cpus=cpus(t), kernel=t.get("kernel", "?"),
        readers=BENCH_READERS,
        fidelity=fidelity_section(hostdir) if "bench-fidelity.csv" in files else [])


#: who reads a benchmark's CSV in a folder of benchmarks alone (else its printout only)
BENCH_READERS = {
    "bench-backoff.csv": "docs/ring.md, \"The default backoff\" "
                         "(`scripts/analysis/backoff_default.py`)",
    "bench-fidelity.csv": "the table below"}


def host_readme(hostdir):
    """results/<host>/README.md's text (the module docstring's sections)."""
    host = os.path.basename(os.path.normpath(hostdir))
    t = hostfacts.describe_host(hostdir) or {}
    if not hostfacts.sweep_tables(hostdir):
        return bench_only_readme(hostdir, host, t)
    try:
        machine_nodes = int(nrdata._read_lscpu(os.path.join(hostdir, "env", "lscpu.txt"))
                            .get("NUMA node(s)", 1))
    except ValueError:
        machine_nodes = 1
    nodes = t.get("nodes", [])
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
    guest = nrdata.guest_note(t.get("virtualization"))
    f1 = findings.f1(hostdir)
    f4 = findings.f4(hostdir)
    ceiling_errors, ceiling = [], None
    for name in ("f5-ceiling", "peers", "f2-node-cache"):
        try:
            cr = findings.ceiling_ratios(hostdir, name)
        except (ValueError, OSError) as e:
            ceiling_errors.append((name, e))
            continue
        if cr:
            ceiling = {"name": name, "best": findings.quoted_best(cr),
                       "none_above": all(x["ratio"] <= 1 for x in cr)}
            break
    f5_ran = os.path.exists(os.path.join(hostdir, "f5-ceiling.csv"))
    rz = findings.f5_realized(hostdir) if f5_ran else None
    realized = rz and {"worst": min(rz, key=lambda x: x["ratio"]), "points": len(rz),
                       "target": findings.REALIZED_TARGET,
                       "below": sum(x["ratio"] < findings.REALIZED_TARGET for x in rz)}
    fc = findings.f5_closed(hostdir) if f5_ran else None
    quoted = fc and ([x for x in fc if not x["oversubscribed"]] or fc)
    top = quoted and max(x["threads"] for x in quoted)
    closed = quoted and {"threads": top, "cells": [x for x in quoted if x["threads"] == top]}
    if not emulated and not guest:
        # the reproduction report: every claim checked here (scripts/analysis/claims.py)
        from . import claims  # here, as the model below: see test_plots.Ceiling
        rows = claims.report(hostdir)
        after = claims.md_section(rows) + gallery.lines(hostdir, rows)
    else:
        after = ["", "The reproduction report of these runs is the real host folder's "
                 "(`claims.csv` and README there)."] if emulated else []
        after += gallery.lines(hostdir, guest=bool(guest))
    from . import ceiling_tightness, handover, regime_section  # here: written without the model too
    # the sections after the report, in the README's order
    for section in (f4_section, peers_pairs_section, peers_field_section, placement_section,
                    regime_section.lines, ceiling_tightness.lines, handover.lines,
                    trip_section, drift_section, harness_section, fidelity_section,
                    pace_section):
        after += section(hostdir)
    return templates.render(
        "results_readme.md.j2", host=host, archive=archive_note(hostdir), guest=guest,
        emulated=emulated, nodes=nodes, machine_nodes=machine_nodes, sockets=sockets,
        node_cpus="; ".join(str(n.get("cpus", "?")) for n in nodes),
        cpu_model=t.get("cpu_model", "unknown CPU"), cpus=cpus(t), cores=cores,
        kernel=t.get("kernel", "?"), rseq=t.get("rseq_node_id"), rdpid=t.get("rdpid"),
        method=stats.method_sentence(5), sweep_time=sweep_time(hostdir), study=STUDY,
        f1=f1, f1_modes=f1 and ", ".join(
            f"{m} {fmt_ci(f1, f'{m}_vs_none')}x" for m in ("cached", "rseq")
            if f1.get(f"{m}_vs_none") is not None),
        ring=findings.bench_ring(hostdir), f2=findings.f2(hostdir), f3=findings.f3(hostdir),
        f4=f4, f4_parts=f4 and "; ".join(
            f4_says(f4, b) for b in findings.F4_BACKOFFS
            if f"{b}_failed_per_item" in f4 or f"{b}_change_pct" in f4),
        ceiling_errors=ceiling_errors, ceiling=ceiling, realized=realized, closed=closed,
        peers=[(what, r) for item, what in (
            ("inline", "inline items"),
            ("message", "message items, the payload's line travels too"))
            for r in [findings.peers(hostdir, item)] if r],
        smt=smt, saturated_share=f"{regime.SATURATED_SHARE:.0%}",
        kind_paragraph=kind_paragraph(hostdir, t, m), after=after,
        ci=fmt_ci, regime_says=regime_says, over_note=over_note)


def kind_paragraph(hostdir, t, m):
    """The README's paragraph on what kind of host this is and where F3 and F5
    come from: emulated nodes, one real node (with or without an emulated
    sibling), or several real nodes; and, on SMT, the thread counts quoted."""
    nodes = hostfacts.real_nodes(t)
    # F3 and F5 of a one-node machine come from its -emulated- sibling, where it has one
    sibling = ("come from the emulated-node runs in the sibling `-emulated-` folder."
               if hostfacts.emulated_siblings(hostdir) else None)
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
            text += " F3 and F5 are not in these results" + (f"; they {sibling}" if sibling
                                                              else ".")
    else:
        text = ("With one real node, items never cross an interconnect here: F2 and F4 "
                "measure the look-up and backoff costs on one socket; F3 and F5 "
                + (sibling or "need two nodes and are not in these results (no emulated-node "
                   "runs beside them)."))
    if hostfacts.has_smt(m) and m["cores"]:
        text += (f" The host has {m['cores']} cores with {m['threads_per_core']} hardware "
                 "threads each: F2, F3, F4 and the best measured/ceiling are quoted at the "
                 "largest thread count with one thread per core; runs whose threads shared "
                 "a core's SMT siblings are drawn in the figures but quoted nowhere.")
    return text
