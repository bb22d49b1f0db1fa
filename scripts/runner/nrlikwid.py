# SPDX-License-Identifier: BSD-2-Clause
"""nrlikwid.py - interconnect bytes per item from likwid-perfctr (experiments.py run --likwid).

Where likwid-perfctr can count a socket interconnect group (a PMU, and MSR or
perf access to the uncore), the runner runs each point under it:

    likwid-perfctr -c <the CPUs the runner may use> -g <group> -m -O \\
        build/likwid/numaring-bench <the point's options>

build/likwid/numaring-bench (make bench-likwid) starts likwid's marker region
"window" just before the measured window and stops it just after
(harness/counters.c), on the CPU of every worker and on the first listed CPU
of each socket, where likwid reads the socket's uncore counters. `-O` makes
likwid print its tables as CSV on stdout; the region's "Metric" table has a
row per metric and a column per CPU (HWThread). Of the group's data volume
metrics, the bytes sent into the links (each byte crossing is sent once; the
sum over the CPUs adds the sockets' uncore counts, each counted on its first
CPU), else received, else the one data volume it has, divided by the run's
ops (the items through the measured window): bytes over the interconnect per
item, beside the ceiling model's 64-byte lines per item.

Which group: the first that `likwid-perfctr -a` lists of UPI (Intel Skylake-SP
and later), QPI (Intel up to Broadwell-EP), and a group naming xGMI (AMD; the
likwid 5.2 of Debian 12 has none for Zen, whose NUMA group counts refills
from another CCX of the same socket too, so it is not taken). Where none can
count here, probe() says why in one line and the runner runs without it.

Standard library only.
"""

import csv
import os
import re
import shutil
import subprocess

REGION = "window"
GROUP_PREFERENCE = ("UPI", "QPI")


class LikwidError(Exception):
    """likwid's output cannot be turned into bytes: the message says why."""


def _last_line(*texts):
    """The last line of likwid's output that says something (not its CPU
    banner, a rule or a warning about pinning)."""
    skip = re.compile(r"^(-+|CPU (name|type|clock):.*|Warning: .*)$")
    for text in reversed(texts):
        for line in reversed((text or "").splitlines()):
            line = line.strip()
            if line and not skip.match(line):
                return line
    return "no message"


def groups_of(listing):
    """The group names of `likwid-perfctr -a` output, in its order."""
    out, started = [], False
    for line in listing.splitlines():
        s = line.strip()
        if s.startswith("Group name"):
            started = True
            continue
        if not started or not s or set(s) == {"-"}:
            continue
        out.append(s.split()[0])
    return out


def pick_group(groups):
    """The interconnect group to count: UPI, else QPI, else one naming xGMI;
    None if the list has none."""
    upper = {g.upper(): g for g in groups}
    for want in GROUP_PREFERENCE:
        if want in upper:
            return upper[want]
    for g in groups:
        if "XGMI" in g.upper():
            return g
    return None


class Likwid:
    """A group likwid-perfctr can count here, and how to run a point under it."""

    def __init__(self, exe, group, cpus, bench):
        self.exe, self.group, self.cpus, self.bench = exe, group, list(cpus), bench

    def wrap(self, cmd):
        """The command that runs `cmd` (numaring-bench and its options) under
        likwid-perfctr with the marker build of the harness."""
        return ([self.exe, "-c", ",".join(map(str, self.cpus)), "-g", self.group, "-m", "-O",
                 self.bench] + list(cmd[1:]))

    def describe(self):
        return (f"likwid-perfctr -g {self.group} on CPUs {','.join(map(str, self.cpus))}, "
                f"region {REGION!r} around each measured window ({os.path.relpath(self.bench)})")


def probe(bench, cpus, topology=None, timeout=120):
    """(Likwid, None) where likwid-perfctr can count an interconnect group
    here, else (None, why) with why one line."""
    if topology:
        return None, (f"the nodes are emulated ({topology}): there is no interconnect "
                      "between them to count")
    exe = shutil.which("likwid-perfctr")
    if not exe:
        return None, "likwid-perfctr is not installed (Debian package likwid)"
    if not os.access(bench, os.X_OK):
        return None, f"{os.path.relpath(bench)} is not built (make bench-likwid)"
    try:
        r = subprocess.run([exe, "-a"], capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"likwid-perfctr -a could not run: {e}"
    groups = groups_of(r.stdout)
    if r.returncode != 0 or not groups:
        return None, f"likwid-perfctr -a lists no groups: {_last_line(r.stdout, r.stderr)}"
    group = pick_group(groups)
    if group is None:
        return None, ("likwid-perfctr -a lists no interconnect group (UPI, QPI, xGMI) "
                      "for this CPU")
    # listing a group is not counting it: a VM lists them and has no PMU,
    # and the uncore needs MSR or perf access
    try:
        r = subprocess.run([exe, "-c", str(cpus[0]), "-g", group, "-O", "true"],
                           capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"likwid-perfctr -g {group} could not run: {e}"
    if r.returncode != 0 or "TABLE," not in r.stdout:
        return None, (f"likwid-perfctr cannot count group {group} here: "
                      f"{_last_line(r.stdout, r.stderr)}")
    return Likwid(exe, group, cpus, bench), None


def tables(text):
    """likwid's CSV (-O) as {(region, kind): [rows]}: kind is "Raw", "Raw STAT",
    "Metric" or "Metric STAT", rows without their trailing empty fields.
    Tables outside a marker region have region None."""
    out, cur = {}, None
    for row in csv.reader(text.splitlines()):
        while row and row[-1] == "":
            row.pop()
        if not row:
            continue
        if row[0] == "TABLE" and len(row) >= 3:
            region = row[1][len("Region "):] if row[1].startswith("Region ") else None
            kind = row[2] if region is not None else row[1]
            kind = re.sub(r"^Group \d+ ", "", kind)
            cur = out.setdefault((region, kind), [])
        elif row[0] == "STRUCT":
            cur = None
        elif cur is not None:
            cur.append(row)
    return out


_UNITS = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def _unit(name):
    m = re.search(r"\[([kKMGT]?)Bytes?\]", name)
    if not m:
        raise LikwidError(f"metric {name!r} gives no byte unit")
    return _UNITS[m.group(1)]


def _pick_metric(names):
    """(name, note): sent data volume, else received, else any data volume."""
    for pattern, note in ((r"\bsen[dt]\b.*\bdata volume", "sent into the links"),
                          (r"\breceiv\w*\b.*\bdata volume", "received from the links"),
                          (r"\bdata volume", "as likwid names it")):
        for n in names:
            if re.search(pattern, n, re.I) and "total" not in n.lower():
                return n, note
    return None, None


def interconnect_bytes(text, group):
    """Bytes over the interconnect in the region of likwid's CSV output:
    (bytes, source), source saying which metric of which group. Raises
    LikwidError when the output has no such region or metric."""
    t = tables(text)
    metric = t.get((REGION, "Metric"))
    if not metric:
        raise LikwidError(f"likwid's output has no metric table of region {REGION!r} "
                          "(was the harness built with make bench-likwid?)")
    raw = t.get((REGION, "Raw"), [])
    calls = [r for r in raw if r[0] == "call count"]
    if calls and not any(v.strip() not in ("", "0", "-") for v in calls[0][1:]):
        raise LikwidError(f"region {REGION!r} never ran (call count 0 on every CPU)")
    rows = {r[0]: r[1:] for r in metric[1:]}
    name, note = _pick_metric(list(rows))
    if name is None:
        raise LikwidError(f"group {group} has no data volume metric in likwid's output")
    total, numbers = 0.0, 0
    for v in rows[name]:
        v = v.strip()
        if v in ("", "-"):
            continue
        try:
            x = float(v)
        except ValueError:
            raise LikwidError(f"{name}: {v!r} is not a number") from None
        if x != x:  # nan: the counter could not be read there
            continue
        total += x
        numbers += 1
    if not numbers:
        raise LikwidError(f"{name}: no CPU has a value")
    return total * _unit(name), (f"likwid-perfctr -g {group}: {name} ({note}), region "
                                 f"{REGION!r}, summed over the CPUs")
