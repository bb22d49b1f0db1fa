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
    return {"threads": m, "cached_over_libnuma": cached / lib,
            "rseq_over_libnuma": rseq / lib if rseq else None,
            "cached_mops": cached / 1e6, "libnuma_mops": lib / 1e6}


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


def peers(hostdir):
    rows = load(os.path.join(hostdir, "peers.csv"))
    if not rows:
        return None
    m = min(threads(r) for r in rows)  # the 1P1C comparison
    rows = [r for r in rows if threads(r) == m]
    out = {"threads": m}
    for bursts in ("0", "1"):
        rs = by(rows, bursts=bursts)
        qs = {q: med(by(rs, queue=q), "throughput_ops_per_s") for q in
              ("numaring", "flat", "ck", "rte", "moodycamel", "urcu", "mutex", "faa")}
        qs = {q: v for q, v in qs.items() if v}
        if "numaring" not in qs:
            continue
        single_ring = {q: v for q, v in qs.items() if q not in ("numaring", "faa")}
        if single_ring:
            best = max(single_ring, key=single_ring.get)
            out[f"b{bursts}_best_peer"] = best
            out[f"b{bursts}_over_best"] = qs["numaring"] / single_ring[best]
        if "rte" in qs:
            out[f"b{bursts}_over_rte"] = qs["numaring"] / qs["rte"]
        out[f"b{bursts}_mops"] = {q: v / 1e6 for q, v in qs.items()}
    return out


def describe_host(hostdir):
    env = os.path.join(hostdir, "env", "show-topology.json")
    try:
        with open(env, encoding="utf-8") as f:
            t = json.load(f)
    except (OSError, ValueError):
        return None
    return t


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
            f"({'; '.join(n['cpus'] for n in nodes)}) of a machine that has "
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
                     f"{r['ratio']:.1f}x the data movement ({r['move_ns']:.1f} ns, lookup none) | "
                     f"{STUDY['F1']} |")
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
                     f"{r['libnuma_mops']:.1f} Mops/s) | {STUDY['F2']} |")
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
    r = peers(hostdir)
    if r:
        for b, label in (("0", "single operations"), ("1", "bursts")):
            if f"b{b}_over_best" in r:
                extra = (f", {r[f'b{b}_over_rte']:.2f}x rte_ring" if f"b{b}_over_rte" in r else "")
                lines.append(f"| peers | numaring at {r['threads']} threads, {label}: "
                             f"{r[f'b{b}_over_best']:.2f}x the best single-ring peer "
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
