# SPDX-License-Identifier: BSD-2-Clause
"""hostenv.py - what the machine was and what it was doing, for the runner.

scripts/runner/experiments.py calls it for two things:

* results/<host>/env/ (capture_env, once per host: machine-id.txt, the
  record of which machine measured, the outputs of COMMANDS and git.txt,
  numaring-bench --show-topology, and the following two files):
  versions.csv, the Debian version of every package that scripts/deps.sh
  names (package, version or "not installed", and where it came from) and
  the versions of the tools the results go through (python3, matplotlib,
  gnuplot, gcc, pdflatex), and cpu-state.json, the state of the CPUs that
  sets what a run can do: microcode revision, per-CPU cpufreq governor and
  frequencies, turbo, kernel command line, transparent hugepages, the
  frequency /proc/cpuinfo and lscpu report. What cannot be read here is
  written as such, with why (a VM has no cpufreq); nothing missing stops a
  sweep.

* each run's meta.json "host_load" (added by the runner around the
  harness's run): the load average (/proc/loadavg) before and after, and
  the steal time of /proc/stat's aggregate cpu line before and after, with
  steal_pct = 100 x (steal after - before) / (total after - before): the
  share of the CPUs' time the hypervisor gave to others while the run ran.
  A run with steal_pct above STEAL_FLAG_PCT is flagged in the tidy CSV
  (column stolen).

Standard library only, and scripts/runner/runio.py's whole-file write. Every
reader takes ``sysroot`` (default "/") so that the tests can hand it a
made-up /proc and /sys.
"""

import argparse
import csv
import datetime
import glob
import io
import json
import os
import re
import subprocess
import sys

from ..common.cpulist import cpulist
from ..common.tidy import STEAL_FLAG_PCT
from .runio import write_whole

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: the groups of scripts/deps.sh whose packages versions.csv lists: all of them
DEPS_GROUPS = ("build", "peers", "test", "experiments", "vm", "paper", "fuzz", "model")

#: a run whose steal_pct exceeds this is flagged stolen (tidy CSV column stolen)

VERSIONS_CSV = "versions.csv"
CPU_STATE_JSON = "cpu-state.json"

NOT_INSTALLED = "not installed"


def _path(sysroot, p):
    return os.path.join(sysroot, p.lstrip("/"))


def _read(sysroot, p):
    """(text stripped, None) or (None, why) for a file under sysroot."""
    try:
        with open(_path(sysroot, p), encoding="utf-8", errors="replace") as f:
            return f.read().strip(), None
    except OSError as e:
        return None, f"{p}: {e.strerror or e}"


def _run(cmd, timeout=60):
    """(stdout, None) of a command that exited 0, or (None, why)."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        return None, f"{cmd[0]}: not found"
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"{' '.join(cmd)} could not run here: {e}"
    if r.returncode != 0:
        err = (r.stderr or "").strip().splitlines()
        return None, f"{' '.join(cmd)} exited {r.returncode}" + (f": {err[-1]}" if err else "")
    return r.stdout, None


def _cell(v):
    """A CSV field on one line: no tabs, no line breaks."""
    return re.sub(r"[\t\r\n]+", " ", str(v)).strip()


# ---- env/versions.csv --------------------------------------------------------

def deps_packages(root=ROOT):
    """The packages scripts/deps.sh --list names, group by group: ([package],
    {package: [its groups]}, None) in deps.sh's order, once each, or
    ([], {}, why) where deps.sh cannot say."""
    pkgs, groups = [], {}
    for g in DEPS_GROUPS:
        out, why = _run(["sh", os.path.join(root, "scripts", "deps.sh"), "--list", g])
        if out is None:
            return [], {}, why
        for p in out.split():
            if p not in groups:
                pkgs.append(p)
            groups.setdefault(p, []).append(g)
    return pkgs, groups, None


def dpkg_versions(pkgs):
    """{package: version or NOT_INSTALLED} from dpkg-query, and None; or
    ({}, why) where dpkg-query cannot run (not Debian)."""
    if not pkgs:
        return {}, None
    try:
        r = subprocess.run(["dpkg-query", "-W", "-f",
                            "${Package}\t${Version}\t${db:Status-Abbrev}\n"] + list(pkgs),
                           capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return {}, f"dpkg-query could not run here ({getattr(e, 'strerror', None) or e})"
    # exit 1 with "no packages found matching X" for names dpkg never saw:
    # the others are still listed
    found = {}
    for line in r.stdout.splitlines():
        f = line.split("\t")
        if len(f) < 3:
            continue
        name, version, status = f[0], f[1], f[2].strip()
        if status.startswith("ii") and version:
            vs = found.setdefault(name, [])
            if version not in vs:  # one per architecture of a multi-arch package
                vs.append(version)
    return {p: ", ".join(found[p]) if p in found else NOT_INSTALLED for p in pkgs}, None


def _first_line(cmd):
    out, why = _run(cmd)
    if out is None:
        return None, why
    lines = [x for x in out.splitlines() if x.strip()]
    return (lines[0].strip() if lines else ""), None


def tool_versions(python=None):
    """[(name, version or NOT_INSTALLED, how)] of the tools the results go
    through: the runner's python3, matplotlib, gnuplot, gcc, pdflatex."""
    py = python or sys.executable or "/usr/bin/python3"
    rows = []
    ver, why = _first_line([py, "-c", "import platform; print(platform.python_version())"])
    rows.append(("python3 (interpreter)", ver if ver else NOT_INSTALLED,
                 f"{py}: platform.python_version()" if ver else why))
    ver, why = _first_line([py, "-c", "import matplotlib; print(matplotlib.__version__)"])
    rows.append(("matplotlib (python module)", ver if ver else NOT_INSTALLED,
                 f"{py}: matplotlib.__version__" if ver else
                 f"{py} cannot import matplotlib ({why})"))
    for name, cmd, note in (("gnuplot (command)", ["gnuplot", "--version"], ""),
                            ("gcc (command)", ["gcc", "--version"], " (all of it: compiler.txt)"),
                            ("pdflatex (command)", ["pdflatex", "--version"], " (TeX)")):
        ver, why = _first_line(cmd)
        rows.append((name, ver if ver else NOT_INSTALLED,
                     f"{' '.join(cmd)}, first line{note}" if ver else why))
    return rows


def versions_csv(root=ROOT, python=None):
    """The text of env/versions.csv: package, version, source; every package of
    scripts/deps.sh's groups (dpkg), then the tools (tool_versions)."""
    rows = [("package", "version", "source")]
    pkgs, groups, why = deps_packages(root)
    if why:
        rows.append(("scripts/deps.sh", "unknown", f"no package list: {why}"))
    vers, why = dpkg_versions(pkgs)
    for p in pkgs:
        src = ("dpkg-query; deps.sh group" + ("s " if len(groups[p]) > 1 else " ")
               + ", ".join(groups[p]))
        rows.append((p, "unknown", f"{src}: {why}") if why else (p, vers[p], src))
    rows += tool_versions(python)
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([[_cell(c) for c in r] for r in rows])
    return buf.getvalue()


# ---- env/cpu-state.json ------------------------------------------------------

def _cpuinfo(sysroot):
    """[{field: value}] per processor of /proc/cpuinfo, or (None, why)."""
    text, why = _read(sysroot, "/proc/cpuinfo")
    if text is None:
        return None, why
    procs, cur = [], {}
    for line in text.splitlines():
        if not line.strip():
            if cur:
                procs.append(cur)
                cur = {}
            continue
        k, sep, v = line.partition(":")
        if sep:
            cur[k.strip()] = v.strip()
    if cur:
        procs.append(cur)
    return procs, None


def _is_vm(procs):
    return any("hypervisor" in p.get("flags", "").split() for p in procs or [])


def _microcode(procs, why):
    if procs is None:
        return {"why_not": why}
    by = {}
    for i, p in enumerate(procs):
        if "microcode" in p:
            by.setdefault(p["microcode"], []).append(int(p.get("processor", i)))
    if not by:
        return {"why_not": "/proc/cpuinfo has no microcode field here (not an x86 CPU, or a "
                "kernel or hypervisor that does not say)"}
    return {"revision": {v: cpulist(c) for v, c in by.items()},
            "source": "/proc/cpuinfo microcode (revision: the CPUs that report it)"}


_CPUFREQ_FILES = (("scaling_driver", None), ("scaling_governor", None),
                  ("scaling_cur_freq", "khz"), ("scaling_min_freq", "khz"),
                  ("scaling_max_freq", "khz"), ("cpuinfo_min_freq", "khz"),
                  ("cpuinfo_max_freq", "khz"), ("energy_performance_preference", None))


def _cpufreq(sysroot, vm):
    cpus = sorted(glob.glob(_path(sysroot, "/sys/devices/system/cpu/cpu[0-9]*")),
                  key=lambda d: int(re.sub(r"\D", "", os.path.basename(d)) or 0))
    if not cpus:
        return {"why_not": "/sys/devices/system/cpu has no cpuN folders here (no sysfs?)"}
    per, missing = {}, []
    for d in cpus:
        n = os.path.basename(d)[3:]
        fd = os.path.join(d, "cpufreq")
        if not os.path.isdir(fd):
            missing.append(int(n))
            continue
        entry, unreadable = {}, {}
        for name, unit in _CPUFREQ_FILES:
            p = os.path.join(fd, name)
            if not os.path.exists(p):
                continue
            try:
                with open(p, encoding="utf-8") as f:
                    v = f.read().strip()
            except OSError as e:
                unreadable[name] = e.strerror or str(e)
                continue
            # a frequency as a number where it reads as one
            entry[f"{name}_{unit}" if unit else name] = (
                int(v) if unit and re.fullmatch(r"-?[0-9]+", v) else v)
        if unreadable:
            entry["unreadable"] = unreadable
        per[n] = entry
    out = {}
    if per:
        out["cpus"] = per
        out["source"] = "/sys/devices/system/cpu/cpuN/cpufreq/ (frequencies in kHz)"
    if missing:
        why = ("no cpufreq folder for CPU(s) " + cpulist(missing) + ": the kernel has no "
               "frequency driver for them")
        if vm:
            why += " (a virtual machine: the hypervisor sets the frequency, the guest cannot)"
        out["not_readable_here" if not per else "missing"] = why
    return out


def _boost(sysroot):
    out = {}
    for name, p in (("intel_pstate_no_turbo", "/sys/devices/system/cpu/intel_pstate/no_turbo"),
                    ("intel_pstate_status", "/sys/devices/system/cpu/intel_pstate/status"),
                    ("cpufreq_boost", "/sys/devices/system/cpu/cpufreq/boost")):
        v, _ = _read(sysroot, p)
        if v is not None:
            out[name] = v
    return out or {"why_not": "neither intel_pstate/no_turbo nor cpufreq/boost here (no "
                   "frequency driver that exposes turbo)"}


def _thp(sysroot):
    out = {}
    for name in ("enabled", "defrag"):
        v, why = _read(sysroot, f"/sys/kernel/mm/transparent_hugepage/{name}")
        if v is None:
            out[name] = None
            out[f"{name}_why_not"] = why
            continue
        out[name] = v
        m = re.search(r"\[([^\]]+)\]", v)
        out[f"{name}_selected"] = m.group(1) if m else v
    return out


def _mhz(procs, why, lscpu_text):
    out = {}
    if procs is None:
        out["cpuinfo_why_not"] = why
    else:
        mhz = {p.get("processor", str(i)): p["cpu MHz"] for i, p in enumerate(procs)
               if "cpu MHz" in p}
        if mhz:
            out["cpuinfo_cpu_mhz"] = mhz
        else:
            out["cpuinfo_why_not"] = "/proc/cpuinfo has no \"cpu MHz\" field here"
    text, lwhy = _run(["lscpu"]) if lscpu_text is None else (lscpu_text, None)
    if text is None:
        out["lscpu_why_not"] = lwhy
    else:
        lines = {}
        for line in text.splitlines():
            k, sep, v = line.partition(":")
            if sep and ("MHz" in k or "BogoMIPS" in k):
                lines[k.strip()] = v.strip()
        if lines:
            out["lscpu"] = lines
        else:
            out["lscpu_why_not"] = "lscpu reports no MHz here"
    out["note"] = ("a snapshot when env/ was captured; cpufreq's scaling_cur_freq, where "
                   "readable, is the kernel's own view")
    return out


def cpu_state(sysroot="/", lscpu_text=None):
    """The CPUs' state as a dict (env/cpu-state.json): every entry that could
    not be read says why_not (or not_readable_here) instead."""
    procs, why = _cpuinfo(sysroot)
    vm = _is_vm(procs)
    cmdline, cwhy = _read(sysroot, "/proc/cmdline")
    return {
        "virtual_machine": vm if procs is not None else None,
        "microcode": _microcode(procs, why),
        "cpufreq": _cpufreq(sysroot, vm),
        "turbo": _boost(sysroot),
        "cpu_mhz": _mhz(procs, why, lscpu_text),
        "kernel_cmdline": cmdline if cmdline is not None else {"why_not": cwhy},
        "transparent_hugepage": _thp(sysroot),
    }


#: env/'s files from commands, each run once per capture
COMMANDS = {
    "lscpu.txt": ["lscpu"],
    "numactl-H.txt": ["numactl", "-H"],
    "hwloc.xml": ["lstopo-no-graphics", "--of", "xml"],
    "likwid-topology.txt": ["likwid-topology"],
    "uname.txt": ["uname", "-a"],
    "compiler.txt": ["gcc", "--version"],
}


def command_output(cmd):
    """A command's output for env/, with a line saying why where it failed."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        text = r.stdout
        if r.returncode != 0:
            text += f"\n# {' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()}\n"
    except (OSError, subprocess.TimeoutExpired) as e:
        text = f"# {' '.join(cmd)} could not run here: {e}\n"
    return text


def git_state(root=ROOT):
    """env/git.txt: the commit, and whether the tree's code differed from it."""
    try:
        git = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True,
                             text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--", "ring",
                                "harness", "scripts", "experiments"], capture_output=True,
                               text=True).stdout
        return (git or "unknown") + "\n" + ("dirty:\n" + dirty if dirty.strip() else "clean\n")
    except OSError as e:  # no git here (a tarball, the QEMU guest): each run's meta.json
        return f"unknown: git could not run here ({e.strerror}); see git_commit in meta.json\n"


def capture(envdir, write, force=False, commands=False, root=ROOT):
    """Write env/versions.csv and env/cpu-state.json (each where missing, or
    again with ``force``) through ``write(path, text)``; with ``commands``
    also COMMANDS' outputs and git.txt. Never raises for what the machine
    lacks; OSError of the writes themselves propagates."""
    jobs = []
    if commands:
        jobs += [(name, lambda cmd=cmd: command_output(cmd)) for name, cmd in COMMANDS.items()]
        jobs.append(("git.txt", lambda: git_state(root)))
    jobs += [(VERSIONS_CSV, lambda: versions_csv(root)),
             (CPU_STATE_JSON, lambda: json.dumps(cpu_state(), indent=1) + "\n")]
    for name, make in jobs:
        path = os.path.join(envdir, name)
        if os.path.exists(path) and not force:
            continue
        try:
            text = make()
        except Exception as e:  # noqa: BLE001 - a record: never lose a sweep for it
            text = (json.dumps({"why_not": f"{type(e).__name__}: {e}"}, indent=1) + "\n"
                    if name.endswith(".json") else
                    f"# {name} could not be collected here: {type(e).__name__}: {e}\n")
        write(path, text)


MACHINE_ID_TXT = "machine-id.txt"  # in results/<host>/env/: a record, not a claim


def capture_env(envdir, bench, topology, show_json, force, ident):
    """results/<host>/env/: the machine identity first (a record of which
    machine measured; the folder is claimed by hostid's marker), then the
    environment, once (again with --force; what an older capture lacks is
    added): capture's commands, versions.csv and cpu-state.json.
    ident is hostid.machine_identity()'s (identity, how)."""
    os.makedirs(envdir, exist_ok=True)
    write_whole(os.path.join(envdir, MACHINE_ID_TXT), f"{ident[0]}\n{ident[1]}")
    stamp = os.path.join(envdir, "captured.txt")
    if os.path.exists(stamp) and not force:
        capture(envdir, write_whole)
        return
    capture(envdir, write_whole, force=True, commands=True)
    write_whole(os.path.join(envdir, "show-topology.json"), show_json)
    write_whole(os.path.join(envdir, "topology-arg.txt"),
                (topology or "none: the machine's own topology") + "\n")
    write_whole(stamp, datetime.datetime.now(datetime.timezone.utc)
                .strftime("%Y-%m-%dT%H:%M:%SZ") + "\n")


# ---- host load around a run (meta.json's host_load) ---------------------------

def loadavg(sysroot="/"):
    """([1, 5, 15 minute load averages], None) or (None, why)."""
    text, why = _read(sysroot, "/proc/loadavg")
    if text is None:
        return None, why
    try:
        return [float(x) for x in text.split()[:3]], None
    except ValueError:
        return None, f"/proc/loadavg: not understood: {text[:60]!r}"


def cpu_jiffies(sysroot="/"):
    """((steal, total) of /proc/stat's aggregate "cpu" line, None) or (None,
    why). total is user + nice + system + idle + iowait + irq + softirq +
    steal: guest and guest_nice are counted in user and nice already."""
    text, why = _read(sysroot, "/proc/stat")
    if text is None:
        return None, why
    for line in text.splitlines():
        f = line.split()
        if f and f[0] == "cpu":
            try:
                vals = [int(x) for x in f[1:9]]
            except ValueError:
                break
            if len(vals) < 8:
                return None, "/proc/stat's cpu line has no steal field (a kernel before 2.6.11)"
            return (vals[7], sum(vals)), None
    return None, "/proc/stat has no aggregate cpu line here"


def sample(sysroot="/"):
    """What host_load compares: {"loadavg", "steal", "total", "why_not"}."""
    la, why1 = loadavg(sysroot)
    j, why2 = cpu_jiffies(sysroot)
    out = {"loadavg": la, "steal": j[0] if j else None, "total": j[1] if j else None}
    why = "; ".join(w for w in (why1, why2) if w)
    if why:
        out["why_not"] = why
    return out


def host_load(before, after):
    """meta.json's "host_load" from two sample()s taken around a run."""
    out = {"loadavg_before": before.get("loadavg"), "loadavg_after": after.get("loadavg"),
           "steal_jiffies_before": before.get("steal"), "steal_jiffies_after": after.get("steal"),
           "total_jiffies_before": before.get("total"), "total_jiffies_after": after.get("total"),
           "steal_pct": None,
           "source": "/proc/loadavg (1, 5, 15 minutes); /proc/stat's cpu line, all CPUs: "
                     "steal and the total of user..steal, in jiffies, before the harness "
                     "started and after it exited; steal_pct = 100 x steal / total over the run"}
    whys = [w for w in (before.get("why_not"), after.get("why_not")) if w]
    if None not in (before.get("steal"), after.get("steal"), before.get("total"),
                    after.get("total")):
        dt = after["total"] - before["total"]
        ds = after["steal"] - before["steal"]
        if dt > 0 and ds >= 0:
            out["steal_pct"] = round(100.0 * ds / dt, 3)
        else:
            whys.append(f"no CPU time counted over the run (total {dt:+d} jiffies, "
                        f"steal {ds:+d})")
    if whys:
        out["why_not"] = "; ".join(dict.fromkeys(whys))
    return out


def add_to_meta(path, entries):
    """Add ``entries`` (a dict) to the JSON object in ``path`` (a run's
    meta.json), keeping every other key and their order (an entry of the
    same name is replaced), written whole (write_whole). Returns False (and
    changes nothing) where the file is not a JSON object; OSError of the
    write propagates."""
    try:
        with open(path, encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, ValueError):
        return False
    if not isinstance(meta, dict):
        return False
    meta.update(entries)
    write_whole(path, json.dumps(meta, indent=2) + "\n")
    return True


def steal_pct(meta):
    """A run's steal_pct from its meta.json (a dict), or None."""
    hl = meta.get("host_load") if isinstance(meta, dict) else None
    v = hl.get("steal_pct") if isinstance(hl, dict) else None
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def stolen_flag(pct):
    """1 if steal_pct is above STEAL_FLAG_PCT, 0 if not, None if unknown."""
    return None if pct is None else int(pct > STEAL_FLAG_PCT)


def main(argv=None):
    """A look at this machine: python3 -m scripts.runner.hostenv [versions|cpu|load]."""
    ap = argparse.ArgumentParser(prog="python3 -m scripts.runner.hostenv",
                                 description="A look at this machine, as the runner records it.")
    ap.add_argument("what", nargs="?", choices=("versions", "cpu", "load"), default="cpu",
                    help="versions: env/versions.csv; cpu: env/cpu-state.json (default); "
                         "load: a host_load sample of meta.json")
    what = ap.parse_args(argv).what
    if what == "versions":
        sys.stdout.write(versions_csv())
    elif what == "load":
        print(json.dumps(sample(), indent=1))
    else:
        print(json.dumps(cpu_state(), indent=1))


if __name__ == "__main__":
    main()
