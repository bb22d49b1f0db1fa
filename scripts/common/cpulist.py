# SPDX-License-Identifier: BSD-2-Clause
"""cpulist.py - the kernel's CPU list strings ("0-3,8"), both ways (standard library only)."""

import itertools


def cpu_set(text):
    """The CPUs of a cpulist string ("0-3,8") as a set; empty if malformed."""
    out = set()
    try:
        for part in str(text).split(","):
            if part.strip():
                a, _, b = part.strip().partition("-")
                out.update(range(int(a), int(b or a) + 1))
    except ValueError:
        return set()
    return out


def cpulist(cpus):
    """[0, 1, 2, 5] -> "0-2,5"."""
    runs = itertools.groupby(enumerate(sorted(cpus)), lambda ic: ic[1] - ic[0])
    spans = [[c for _, c in run] for _, run in runs]
    return ",".join(str(s[0]) if len(s) == 1 else f"{s[0]}-{s[-1]}" for s in spans)
