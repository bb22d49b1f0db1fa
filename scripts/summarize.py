#!/usr/bin/python3
"""summarize.py - the measured ratios of each finding, from results/<host>/*.csv.

    summarize.py [--results results] [HOST ...]   print each host's ratios
    summarize.py --readme HOST                    rewrite results/HOST/README.md

Every number comes from the tidy CSVs (medians over repetitions); nothing is
typed in. The same functions feed the paper's generated numbers.
"""

import csv
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

STUDY = {
    "F1": "look-up 11x the data movement",
    "F2": "cached look-up 6-7x throughput",
    "F3": "per-worker counters cut p50 latency by more than 200x",
    "F4": "backoff cost 15-30% of throughput at 32 workers",
    "F5": "the interconnect set the ceiling",
}


#: the experiments, in the order the README lists them
EXPERIMENTS = ["f1-lookup-cost", "f2-node-cache", "f3-gate", "f4-backoff", "f5-ceiling",
               "peers"]

#: a point at or above this share of the harness's own ceiling (the null queue's
#: throughput with the same threads, placement and items) measures the harness
#: as much as the queue
HARNESS_BOUND = 0.8


def load(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def med(rows, key):
    vals = [float(r[key]) for r in rows if r.get(key) not in ("", None)]
    return statistics.median(vals) if vals else None


def spread(rows, key):
    vals = [float(r[key]) for r in rows if r.get(key) not in ("", None)]
    return (min(vals), max(vals)) if vals else (None, None)


def threads(r):
    return int(r["producers"]) + int(r["consumers"])


def item_of(r):
    """The row's item mode: inline (a value) or message; an empty cell is inline."""
    return (r.get("item") or "").strip() or "inline"


def by_item(rows, item):
    return [r for r in rows if item_of(r) == item]


def sample_of(rows):
    """'64' when every row times 1 in 64 items; '1/64' when they differ; None if unknown."""
    vals = sorted({(r.get("sample") or "").strip() for r in rows} - {""}, key=float)
    return "/".join(vals) if vals else None


def by(rows, **kw):
    return [r for r in rows if all(str(r.get(k)) == str(v) for k, v in kw.items())]


def f1(hostdir):
    rows = load(os.path.join(hostdir, "f1-lookup-cost.csv"))
    if not rows:
        return None
    none = med(by(rows, lookup="none"), "throughput_ops_per_s")
    lib = med(by(rows, lookup="libnuma"), "throughput_ops_per_s")
    if not none or not lib:
        return None
    move_ns = 1e9 / none
    look_ns = 1e9 / lib - move_ns
    out = {"move_ns": move_ns, "libnuma_op_ns": 1e9 / lib, "lookup_ns": look_ns,
           "ratio": look_ns / move_ns, "reps": len(by(rows, lookup="libnuma"))}
    h = med(rows, "harness_ops_per_s")
    if h:
        # the harness alone: its time per item, against the data movement (lookup none)
        out["harness_ns"] = 1e9 / h
        out["move_over_harness"] = move_ns / (1e9 / h)
    for mode in ("cached", "rseq", "rdpid", "table", "syscall"):
        t = med(by(rows, lookup=mode), "throughput_ops_per_s")
        if t:
            out[f"{mode}_vs_none"] = none / t
    return out


def bench_ring(hostdir):
    """F1 on one thread (make bench-ring): libnuma's look-up against the data
    movement of an uncontended operation (half an enqueue+dequeue pair)."""
    rows = load(os.path.join(hostdir, "bench-ring.csv"))
    none = [r for r in rows if r["lookup"] == "none"]
    lib = [r for r in rows if r["lookup"] == "libnuma"]
    if not none or not lib:
        return None
    move = float(none[0]["pair_ns_median"]) / 2
    look = float(lib[0]["lookup_ns_median"])
    out = {"move_ns": move, "lookup_ns": look, "ratio": look / move}
    for r in rows:
        out[f"{r['lookup']}_pair_over_none"] = float(r["pair_ns_median"]) / float(none[0]["pair_ns_median"])
    return out


def at_max_threads(rows):
    if not rows:
        return [], None
    m = max(threads(r) for r in rows)
    return [r for r in rows if threads(r) == m], m


def f2(hostdir):
    rows, m = at_max_threads(load(os.path.join(hostdir, "f2-node-cache.csv")))
    if not rows:
        return None
    lib = med(by(rows, lookup="libnuma"), "throughput_ops_per_s")
    cached = med(by(rows, lookup="cached"), "throughput_ops_per_s")
    rseq = med(by(rows, lookup="rseq"), "throughput_ops_per_s")
    if not lib or not cached:
        return None
    h = med(rows, "harness_ops_per_s")
    return {"threads": m, "cached_over_libnuma": cached / lib,
            "rseq_over_libnuma": rseq / lib if rseq else None,
            "cached_mops": cached / 1e6, "libnuma_mops": lib / 1e6,
            "harness_mops": h / 1e6 if h else None,
            "cached_over_harness": cached / h if h else None}


def f3(hostdir):
    rows, m = at_max_threads(load(os.path.join(hostdir, "f3-gate.csv")))
    if not rows:
        return None
    sh = med(by(rows, gate="shared"), "p50_ns")
    pw = med(by(rows, gate="perworker"), "p50_ns")
    pn = med(by(rows, gate="pernode"), "p50_ns")
    if not sh or not pw:
        return None
    return {"threads": m, "p50_shared_ns": sh, "p50_perworker_ns": pw, "p50_pernode_ns": pn,
            "shared_over_perworker": sh / pw,
            "p99_shared_over_perworker": (med(by(rows, gate="shared"), "p99_ns") or 0) /
            (med(by(rows, gate="perworker"), "p99_ns") or 1)}


def f4(hostdir):
    rows, m = at_max_threads(load(os.path.join(hostdir, "f4-backoff.csv")))
    if not rows:
        return None
    none = med(by(rows, backoff="none"), "throughput_ops_per_s")
    if not none:
        return None
    out = {"threads": m}
    for b in ("pause", "exp", "yield"):
        t = med(by(rows, backoff=b), "throughput_ops_per_s")
        if t:
            out[f"{b}_change_pct"] = (t / none - 1) * 100
    return out


def ceiling_ratios(hostdir, name):
    """measured/ceiling per point (median over reps) for one experiment."""
    import ceiling
    ppath = os.path.join(hostdir, "probe", "probe.csv")
    rows = load(os.path.join(hostdir, f"{name}.csv"))
    if not rows or not os.path.exists(ppath):
        return None
    probe = ceiling.load_probe(ppath)
    points = {}
    for r in rows:
        points.setdefault(r["point"], []).append(r)
    out = []
    for pid, rs in points.items():
        m = med(rs, "throughput_ops_per_s")
        c = ceiling.ceiling_ops_per_s(probe, rs[0])
        if m and c:
            out.append({"point": pid, "queue": rs[0]["queue"], "measured": m, "ceiling": c,
                        "ratio": m / c, "threads": threads(rs[0]), "batch": int(rs[0]["batch"]),
                        "bursts": rs[0].get("bursts", "0"), "bound": ceiling.binding(probe, rs[0])})
    return out


PEER_QUEUES = ("numaring", "flat", "ck", "rte", "moodycamel", "urcu", "mutex", "faa")


def peers(hostdir, item="inline"):
    """numaring against its peers at the lowest thread count (1P1C), for one item
    mode (inline: the item is a value; message: a pointer whose line travels too)."""
    rows = by_item(load(os.path.join(hostdir, "peers.csv")), item)
    if not rows:
        return None
    m = min(threads(r) for r in rows)  # the 1P1C comparison
    rows = [r for r in rows if threads(r) == m]
    out = {"threads": m, "item": item, "sample": sample_of(rows)}
    for bursts in ("0", "1"):
        rs = by(rows, bursts=bursts)
        qs = {q: med(by(rs, queue=q), "throughput_ops_per_s") for q in PEER_QUEUES}
        qs = {q: v for q, v in qs.items() if v}
        h = med(rs, "harness_ops_per_s")
        if h:
            out[f"b{bursts}_harness_mops"] = h / 1e6
        if "numaring" not in qs:
            continue
        single_ring = {q: v for q, v in qs.items() if q not in ("numaring", "faa")}
        if single_ring:
            best = max(single_ring, key=single_ring.get)
            out[f"b{bursts}_best_peer"] = best
            out[f"b{bursts}_over_best"] = qs["numaring"] / single_ring[best]
        for q in ("rte", "flat"):
            if q in qs:
                out[f"b{bursts}_over_{q}"] = qs["numaring"] / qs[q]
        out[f"b{bursts}_mops"] = {q: v / 1e6 for q, v in qs.items()}
    return out


def points(rows):
    """{(profile, point): rows} in the order the rows come."""
    out = {}
    for r in rows:
        out.setdefault((r.get("profile", ""), r["point"]), []).append(r)
    return out


def harness_bound(hostdir, share=HARNESS_BOUND):
    """Points whose median throughput is >= share x their median harness_ops_per_s.

    Returns (bound, measured): a list of dicts (experiment, point, queue, item,
    bursts, threads, measured, harness, ratio) and how many points of the host had
    the harness's ceiling measured.
    """
    bound, measured = [], 0
    for exp in EXPERIMENTS:
        for (_prof, pid), rs in points(load(os.path.join(hostdir, f"{exp}.csv"))).items():
            t = med(rs, "throughput_ops_per_s")
            h = med(rs, "harness_ops_per_s")
            if not t or not h:
                continue
            measured += 1
            if t >= share * h:
                bound.append({"experiment": exp, "point": pid, "queue": rs[0]["queue"],
                              "item": item_of(rs[0]), "bursts": rs[0].get("bursts", "0"),
                              "threads": threads(rs[0]), "measured": t, "harness": h,
                              "ratio": t / h})
    return bound, measured


def harness_ceiling(hostdir):
    """The harness's own ceiling per experiment at 1P1C: {experiment: {(item, bursts):
    median harness_ops_per_s}} for the item modes and burst settings present."""
    out = {}
    for exp in EXPERIMENTS:
        rows = [r for r in load(os.path.join(hostdir, f"{exp}.csv"))
                if int(r["producers"]) == 1 and int(r["consumers"]) == 1]
        d = {}
        for item in ("inline", "message"):
            for b in ("0", "1"):
                h = med(by(by_item(rows, item), bursts=b), "harness_ops_per_s")
                if h:
                    d[(item, b)] = h
        if d:
            out[exp] = d
    return out


def describe_host(hostdir):
    env = os.path.join(hostdir, "env", "show-topology.json")
    try:
        with open(env, encoding="utf-8") as f:
            t = json.load(f)
    except (OSError, ValueError):
        return None
    return t


def harness_section(hostdir):
    """The README's lines on the harness's own ceiling and the harness-bound points."""
    def mops(v):
        return f"{v / 1e6:.1f}" if v else "—"

    lines = ["", "## The harness's own ceiling", "",
             "`harness_ops_per_s`: the `null` queue (operations that share nothing) run "
             "through the same harness code for 0.1 s before each measured run, with the same "
             "threads, placement and items. Median over the 1P1C runs of each experiment, in "
             "million items/s:", ""]
    hc = harness_ceiling(hostdir)
    if hc:
        lines += ["| experiment | items | single operations | bursts |", "|---|---|---|---|"]
        for exp in EXPERIMENTS:
            for item in ("inline", "message"):
                d = hc.get(exp, {})
                if (item, "0") in d or (item, "1") in d:
                    lines.append(f"| {exp} | {item} | {mops(d.get((item, '0')))} | "
                                 f"{mops(d.get((item, '1')))} |")
    else:
        lines.append("Not measured in these results.")
    bound, measured = harness_bound(hostdir)
    lines += ["", "## Harness-bound points", "",
              f"Points whose median throughput is at least {HARNESS_BOUND:g}x their median "
              "`harness_ops_per_s` (within 20% of the harness's own ceiling: the figure "
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
        lines.append("")
        lines.append(f"{len(bound)} of {measured} points with the harness's ceiling measured.")
    return lines


def host_readme(hostdir):
    host = os.path.basename(os.path.normpath(hostdir))
    t = describe_host(hostdir) or {}
    machine_nodes = 1
    try:
        with open(os.path.join(hostdir, "env", "lscpu.txt"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("NUMA node(s):"):
                    machine_nodes = int(line.split(":")[1])
    except (OSError, ValueError):
        pass
    nodes = t.get("nodes", [])
    cpus = sum(n.get("ncpus", 0) for n in nodes)
    emulated = t.get("topology") == "emulated"
    lines = [f"# Results of `{host}`", ""]
    kind = (f"**EMULATED** nodes: {len(nodes)} nodes mapped onto CPUs "
            f"({'; '.join(str(n.get('cpus', '?')) for n in nodes)}) of a machine that has "
            f"{machine_nodes} real node(s) — memory placement is not real "
            "and nothing here is a two-socket result" if emulated else
            f"{len(nodes)} real NUMA node(s)")
    lines.append(f"Machine: {t.get('cpu_model', 'unknown CPU')}, {cpus} CPUs usable, kernel "
                 f"{t.get('kernel', '?')}; {kind}. rseq node_id: "
                 f"{'yes' if t.get('rseq_node_id') else 'no'}, rdpid: "
                 f"{'yes' if t.get('rdpid') else 'no'}. Environment in `env/`, host probe in "
                 "`probe/probe.csv`, one tidy CSV per experiment, every run's files under "
                 "`<experiment>/<profile>/<point>/rep-<k>/`. Generated by "
                 "`scripts/summarize.py` from those CSVs (medians over repetitions).")
    lines += ["", "| finding | measured here | study |", "|---|---|---|"]
    r = f1(hostdir)
    if r:
        lines.append(f"| F1 (1P1C harness) | libnuma look-up {r['lookup_ns']:.1f} ns per operation = "
                     f"{r['ratio']:.1f}x the data movement ({r['move_ns']:.1f} ns, lookup none)"
                     + (f"; the harness alone: {r['harness_ns']:.1f} ns per item"
                        if "harness_ns" in r else "") + f" | {STUDY['F1']} |")
    r = bench_ring(hostdir)
    if r:
        lines.append(f"| F1 (one thread, bench-ring) | libnuma look-up {r['lookup_ns']:.1f} ns = "
                     f"{r['ratio']:.1f}x an uncontended operation ({r['move_ns']:.2f} ns); "
                     f"cached and rseq pairs {r.get('cached_pair_over_none', 0):.2f}x and "
                     f"{r.get('rseq_pair_over_none', 0):.2f}x of no look-up | {STUDY['F1']} |")
    r = f2(hostdir)
    if r:
        lines.append(f"| F2 | cached / libnuma throughput at {r['threads']} threads: "
                     f"{r['cached_over_libnuma']:.2f}x ({r['cached_mops']:.1f} vs "
                     f"{r['libnuma_mops']:.1f} Mops/s"
                     + (f"; the harness alone: {r['harness_mops']:.1f}"
                        if r.get("harness_mops") else "") + f") | {STUDY['F2']} |")
    r = f3(hostdir)
    if r:
        lines.append(f"| F3 | p50 latency shared / per-worker gate at {r['threads']} threads: "
                     f"{r['shared_over_perworker']:.2f}x ({r['p50_shared_ns']:.0f} vs "
                     f"{r['p50_perworker_ns']:.0f} ns) | {STUDY['F3']} |")
    r = f4(hostdir)
    if r:
        parts = ", ".join(f"{b} {r[f'{b}_change_pct']:+.1f}%" for b in ("pause", "exp", "yield")
                          if f"{b}_change_pct" in r)
        if parts:
            lines.append(f"| F4 | throughput against no backoff at {r['threads']} threads: "
                         f"{parts} | {STUDY['F4']} |")
    for name in ("f5-ceiling", "peers", "f2-node-cache"):
        try:
            cr = ceiling_ratios(hostdir, name)
        except (ValueError, OSError) as e:
            cr = None
            lines.append(f"| F5 | ceiling not computed: {e} | |")
        if cr:
            best = max(cr, key=lambda x: x["ratio"])
            lines.append(f"| F5 ({name}) | best measured/ceiling {best['ratio']:.2f} "
                         f"({best['queue']}, {best['threads']} threads, batch {best['batch']}, "
                         f"bound: {best['bound']}); no point above the ceiling: "
                         f"{'yes' if all(x['ratio'] <= 1 for x in cr) else 'NO'} | "
                         f"{STUDY['F5']} |")
            break
    for item, what in (("inline", "inline items"),
                       ("message", "message items, the payload's line travels too")):
        r = peers(hostdir, item)
        if not r:
            continue
        timed = f", 1 in {r['sample']} timed" if r.get("sample") else ""
        for b, label in (("0", "single operations"), ("1", "bursts")):
            if f"b{b}_over_best" in r:
                extra = "".join(f", {r[f'b{b}_over_{q}']:.2f}x {name}"
                                for q, name in (("flat", "flat"), ("rte", "rte_ring"))
                                if f"b{b}_over_{q}" in r)
                lines.append(f"| peers ({what}{timed}) | numaring at {r['threads']} threads, "
                             f"{label}: {r[f'b{b}_over_best']:.2f}x the best single-ring peer "
                             f"({r[f'b{b}_best_peer']}){extra} | — |")
    lines.append("")
    if emulated:
        lines.append("These runs place threads on emulated nodes: cross-node transfers here "
                     "move between CPUs of one socket. They exercise the logic of F3 and F5, "
                     "not the interconnect.")
    else:
        lines.append("With one real node, items never cross an interconnect here: F2 and F4 "
                     "measure the look-up and backoff costs on one socket; F3 and F5 come from "
                     "the emulated-node runs in the sibling `-emulated-` folder.")
    lines += harness_section(hostdir)
    return "\n".join(lines) + "\n"


def main():
    args = sys.argv[1:]
    results = "results"
    if args[:1] == ["--results"]:
        results, args = args[1], args[2:]
    if args[:1] == ["--readme"]:
        for host in args[1:]:
            hostdir = os.path.join(results, host)
            with open(os.path.join(hostdir, "README.md"), "w", encoding="utf-8") as f:
                f.write(host_readme(hostdir))
        return
    hosts = args or sorted(d for d in os.listdir(results)
                           if os.path.isdir(os.path.join(results, d)))
    for host in hosts:
        print(host_readme(os.path.join(results, host)))


if __name__ == "__main__":
    main()
