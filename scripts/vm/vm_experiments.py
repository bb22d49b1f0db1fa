# SPDX-License-Identifier: BSD-2-Clause
"""vm_experiments.py - make vm-experiments: the whole pipeline of a two-socket
host, proven in a QEMU guest with two real NUMA nodes of 8 CPUs each.

    python3 -m scripts.vm.vm_experiments [--out build/vm-experiments] [--workdir build/vm]
                                      [--timeout 1800] [--bench build/numaring-bench]

What it does, in steps (each one's time is printed and written to
OUT/README.md):
  1. guest: boots the guest with scripts/vm/numa_vm.py (TCG, 2 nodes x 8 CPUs,
     1 GiB each, distance 21; --check-topology first) and runs in it
     scripts/vm-experiments-guest.sh: python3 -m scripts.runner.experiments run with the
     smoke profile of every experiment on the guest's real nodes -- the code
     path of a two-socket host, with the interpreter and the modules it needs
     (numa_vm.py --python), numaring-bench, bench_ring, the experiment files,
     numactl, lscpu and lstopo-no-graphics. The results folder comes back
     through a virtio serial port (numa_vm.py --fetch) into OUT/results/.
  2. check: the results are those of 2 real nodes x 8 CPUs of a QEMU TCG
     guest (env/show-topology.json, numactl -H and hwloc's XML, all recorded
     by the runner in the guest), every experiment has its tidy CSV with
     points and drift reference runs, and no run failed.
  3. summarize: OUT/results/<host>/README.md again, on the host side.
  4. plots: python3 -m scripts.figures.plot --gnuplot into OUT/plots/.
  5. paper: make paper from OUT/results and OUT/plots, built in OUT/paper/.
Every README, caption and the paper's title say "guest: timings meaningless"
(numaring-bench records the virtualization in --show-topology and meta.json;
scripts/analysis/nrdata.py guest_note). Nothing is written into results/ or plots/.
Exit status: 0 when every step passed, 1 naming those that failed, 2 for
bad arguments.
"""

import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

from ..common import expfile, runfiles
from ..common.wholefile import write_whole
from ..analysis import nrdata
from ..analysis import summarize

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROG = "vm-experiments"
#: the guest: two nodes as a two-socket host has them, 8 CPUs each (TCG runs
#: every vCPU on the host's CPUs: more would only be slower)
NODES, CPUS_PER_NODE, MEM_PER_NODE = 2, 8, 1024
GUEST_RESULTS = "results-guest"  # under the guest's /work, fetched back
#: what the runner needs in the guest besides the binaries and the .exp files
TOOLS = ("numactl", "lscpu", "lstopo-no-graphics")
#: the experiments the guest runs (every experiment file) and the check expects
EXPERIMENTS = tuple(expfile.experiment_names())


def say(msg):
    print(f"{PROG}: {msg}", flush=True)


def rel(path):
    return os.path.relpath(path, ROOT)


def run_guest(a, out):
    """Step 1. Returns None or why it failed."""
    # the runner's data files beside its modules: the .exp files, the
    # summary columns scripts/analysis/nrdata.py reads and the names scripts/common/manifest.py
    # reads (the guest's README, drift note and ceiling check are written with
    # them, as on a host)
    files = [a.bench, os.path.join(os.path.dirname(a.bench), "bench", "bench_ring"),
             "scripts/summary-schema.csv", "scripts/manifest.json"]
    files += sorted(glob.glob(os.path.join("experiments", "*.exp")))
    for tool in TOOLS:
        path = shutil.which(tool)
        if not path:
            return f"{tool} is not installed here (scripts/deps.sh experiments installs it)"
        files.append(os.path.realpath(path))
    cmd = [sys.executable, "-m", "scripts.vm.numa_vm", "--workdir", a.workdir, "--name", "experiments",
           "--timeout", str(a.timeout), "--nodes", str(NODES), "--cpus-per-node",
           str(CPUS_PER_NODE), "--mem-per-node", str(MEM_PER_NODE), "--distance", "10,21,21,10",
           "--check-topology", a.bench, "--python", "scripts.runner.experiments",
           "--fetch", GUEST_RESULTS, "--fetch-into", os.path.join(out, "results"),
           "--output", os.path.join(out, "guest-output.txt"), "--quiet"]
    for f in files:
        cmd += ["--file", f]
    cmd += ["--", "sh", "scripts/vm-experiments-guest.sh", GUEST_RESULTS]
    say("step 1: the guest (%d nodes x %d CPUs, TCG): python3 -m scripts.runner.experiments run "
        "--profile smoke on its real nodes; output in %s"
        % (NODES, CPUS_PER_NODE, rel(os.path.join(out, "guest-output.txt"))))
    # numa_vm.py stops its QEMU (its own session) on SIGTERM or SIGINT: pass
    # ours on, then wait for it
    proc = subprocess.Popen(cmd, cwd=ROOT)
    try:
        rc = proc.wait()
    except KeyboardInterrupt:
        proc.send_signal(signal.SIGTERM)
        proc.wait()
        raise
    if rc != 0:
        return (f"python3 -m scripts.vm.numa_vm exited {rc} (the guest's output: "
                f"{rel(os.path.join(out, 'guest-output.txt'))}, console log: "
                f"{rel(os.path.join(a.workdir, 'experiments', 'console.log'))})")
    return None


def check_results(results):
    """Step 2: [problems] of the fetched results (empty: they are a real
    two-node guest's, complete)."""
    if not os.path.isdir(results):
        return [f"{rel(results)}: nothing came back from the guest"]
    hosts = nrdata.list_hosts(results)
    if len(hosts) != 1:
        return [f"{rel(results)}: expected the folder of one host, found {hosts or 'none'} "
                "(an -emulated- sibling means the runner did not see two real nodes)"]
    hd = os.path.join(results, hosts[0])
    bad = []
    try:
        with open(os.path.join(hd, "env", "show-topology.json"), encoding="utf-8") as f:
            topo = json.load(f)
    except (OSError, ValueError) as e:
        return [f"{rel(hd)}/env/show-topology.json: {e}"]
    nodes = [n for n in topo.get("nodes", []) if n.get("ncpus")]
    if topo.get("topology") != "real" or [n.get("ncpus") for n in nodes] != [CPUS_PER_NODE] * NODES:
        bad.append(f"{rel(hd)}: the runner saw {topo.get('topology')} nodes with "
                   f"{[n.get('ncpus') for n in nodes]} CPUs, not {NODES} real nodes x "
                   f"{CPUS_PER_NODE} CPUs")
    if not nrdata.guest_note(topo.get("virtualization")):
        bad.append(f"{rel(hd)}/env/show-topology.json does not say that the timings mean "
                   f"nothing (virtualization: {topo.get('virtualization')})")
    # numactl and hwloc, as the runner recorded them in the guest
    try:
        with open(os.path.join(hd, "env", "numactl-H.txt"), encoding="utf-8") as f:
            numactl = f.read()
        if not re.search(rf"^available: {NODES} nodes", numactl, re.M):
            bad.append(f"{rel(hd)}/env/numactl-H.txt does not say 'available: {NODES} nodes'")
        with open(os.path.join(hd, "env", "hwloc.xml"), encoding="utf-8") as f:
            numa = len(re.findall(r'<object type="NUMANode"', f.read()))
        if numa != NODES:
            bad.append(f"{rel(hd)}/env/hwloc.xml has {numa} NUMANode objects, not {NODES}")
    except OSError as e:
        bad.append(f"{rel(hd)}/env: {e}")
    if not os.path.isfile(os.path.join(hd, "probe", "probe.csv")):
        bad.append(f"{rel(hd)}/probe/probe.csv is missing")
    for exp in EXPERIMENTS:
        path = os.path.join(hd, exp + ".csv")
        try:
            rows = nrdata.load_tidy(path, experiment=exp, role=None)
        except (OSError, nrdata.DataError) as e:
            bad.append(f"{rel(path)}: {e}")
            continue
        roles = {r.get("role") for r in rows}
        if roles != {"point", "reference"}:
            bad.append(f"{rel(path)}: rows of roles {sorted(roles)}, expected points and the "
                       "drift reference")
    failed = runfiles.find(hd, "*.failed.txt")
    if failed:
        bad.append(f"{len(failed)} run(s) failed in the guest, e.g. {rel(failed[0])}")
    return bad


def write_readme(out, host, steps, total, failed):
    lines = [f"# make vm-experiments: {nrdata.GUEST_NOTE}", "",
             f"**{nrdata.GUEST_NOTE}.** Everything here was measured in a QEMU guest whose "
             "CPU is emulated in software (TCG) on the machine that ran `make vm-experiments`, "
             f"with {NODES} real NUMA nodes of {CPUS_PER_NODE} CPUs each: it shows that the "
             "runner's path of a two-socket host, the summaries, the plots and the paper "
             "work on such results. No number here is a measurement of any machine, and "
             "nothing here is a two-socket result; none of it is committed.", "",
             f"- `results/{host or '<host>'}/`: what the guest's "
             "`python3 -m scripts.runner.experiments run --profile smoke` wrote (its `env/` has the guest's `numactl -H`, hwloc XML and "
             "lscpu), and its README regenerated here",
             "- `guest-output.txt`: the guest's output (its topology, the runner's progress)",
             "- `plots/`: `python3 -m scripts.figures.plot --gnuplot` of those results",
             "- `paper/numaring.pdf`: `make paper` from them", "",
             "| step | seconds | result |", "|---|---|---|"]
    for name, secs, why in steps:
        lines.append(f"| {name} | {secs:.0f} | {'FAILED: ' + why if why else 'ok'} |")
    lines += ["", f"Wall time of the steps: {total:.0f} s"
              + (f"; failed: {', '.join(failed)}" if failed else "") + "."]
    write_whole(os.path.join(out, "README.md"), "\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(
        prog="python3 -m scripts.vm.vm_experiments", description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Steps: guest, check, summarize, plots, paper (see the top of this file).")
    ap.add_argument("--out", default="build/vm-experiments",
                    help="output folder, replaced whole (default build/vm-experiments)")
    ap.add_argument("--workdir", default="build/vm",
                    help="numa_vm.py's kernel cache, initramfs and console log (default build/vm)")
    ap.add_argument("--timeout", type=int, default=1800,
                    help="seconds before the guest is stopped (default 1800)")
    ap.add_argument("--bench", default="build/numaring-bench",
                    help="numaring-bench; bench/bench_ring beside it (default build/numaring-bench)")
    a = ap.parse_args()
    os.chdir(ROOT)
    if a.timeout < 1:
        ap.error("--timeout must be >= 1")
    for f in (a.bench, os.path.join(os.path.dirname(a.bench), "bench", "bench_ring")):
        if not os.access(f, os.X_OK):
            ap.error(f"{f} is not built (make bench {os.path.dirname(a.bench)}/bench/bench_ring)")
    out = os.path.abspath(a.out)
    # the output is rebuilt whole: never the repository's own results/ or plots/
    if out in (ROOT, os.path.join(ROOT, "results"), os.path.join(ROOT, "plots"),
               os.path.join(ROOT, "paper")):
        ap.error(f"--out {a.out}: not the repository's own folders")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    results, plots, paper = (os.path.join(out, d) for d in ("results", "plots", "paper"))

    steps, t_all = [], time.monotonic()

    def step(name, fn):
        t0 = time.monotonic()
        why = fn()
        steps.append((name, time.monotonic() - t0, why))
        say(f"{name}: {'FAILED: ' + why if why else 'ok'} ({time.monotonic() - t0:.0f} s)")
        return why is None

    def check():
        bad = check_results(results)
        for b in bad:
            say(f"check: {b}")
        return "; ".join(bad) if bad else None

    def readmes():
        for h in nrdata.list_hosts(results):
            hd = os.path.join(results, h)
            write_whole(os.path.join(hd, "README.md"), summarize.host_readme(hd))
        return None

    def draw():
        r = subprocess.run([sys.executable, "-m", "scripts.figures.plot", "--results", results,
                            "--plots", plots, "--gnuplot"], cwd=ROOT)
        return f"python3 -m scripts.figures.plot exited {r.returncode}" if r.returncode else None

    def build_paper():
        # the paper's sources beside the results' numbers and plots: make paper
        # builds it there as it builds paper/ from results/ and plots/
        os.makedirs(paper, exist_ok=True)
        for f in glob.glob(os.path.join("paper", "*")):
            if os.path.isfile(f) and f.endswith((".tex", ".bib", ".sty", ".cls", ".bst")):
                shutil.copy2(f, paper)
        r = subprocess.run(["make", "--no-print-directory", "paper", f"PAPER_RESULTS={results}",
                            f"PAPER_DIR={paper}", "PAPER_PLOTS=../plots"])
        if r.returncode or not os.path.isfile(os.path.join(paper, "numaring.pdf")):
            return (f"make paper exited {r.returncode} (LaTeX log: "
                    f"{rel(os.path.join(paper, 'numaring.log'))})")
        return None

    step("guest", lambda: run_guest(a, out))
    if os.path.isdir(results):  # what came back is summarized, drawn and written up
        step("check", check)
        step("summarize", readmes)
        step("plots", draw)
        step("paper", build_paper)
    total = time.monotonic() - t_all
    failed = [name for name, _, why in steps if why]
    hosts = nrdata.list_hosts(results)
    write_readme(out, hosts[0] if len(hosts) == 1 else None, steps, total, failed)
    say(f"{rel(out)}/README.md: {len(steps)} steps in {total:.0f} s"
        + (f"; FAILED: {', '.join(failed)}" if failed else "; all passed"))
    return 1 if failed else 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # as SIGINT: KeyboardInterrupt
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        sys.exit(130)
