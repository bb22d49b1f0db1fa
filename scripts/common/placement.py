# SPDX-License-Identifier: BSD-2-Clause
"""placement.py - whether a run's two CPUs stayed where the host probe found them.

Each run times one cache line's one-way trip between its first producer's and
its first consumer's CPUs just before and just after its window
(numaring-bench's c2c_one_way_before_ns and c2c_one_way_after_ns,
harness/pingpong.h); the host probe timed the same trip once before the sweep
(probe/probe.csv: c2c_one_way_same_node). Under a hypervisor two vCPUs need not
stay on the same two physical cores: a run whose trip at an end is more than
FAR times the probe's had its threads further apart than the probe found them.

The runner re-runs such a run (scripts/runner/experiments.py, at most
RERUN_CAP times, within RERUN_SHARE of an experiment's runs) and records the
re-runs (tidy columns placement_reruns, placement_capped); the analysis
(scripts/analysis/handover.py) reports the spread and leaves a claim whose runs
hit the cap inconclusive ("placement"). Standard library only: both read it.
"""

from .tidy import read_rows

__all__ = ["FAR", "RERUN_CAP", "RERUN_SHARE", "ends", "far", "probe_trip"]

#: an end of a run more than FAR x the probe's one-way trip: CPUs further apart
FAR = 2.0
#: the most times one run is re-run because its CPUs ended further apart
RERUN_CAP = 2
#: the most re-runs of an experiment, as a share of its runs (the estimate's budget)
RERUN_SHARE = 0.25


def _positive(text):
    """The number in text where it is one above 0, else None."""
    try:
        v = float(text or "")
    except ValueError:
        return None
    return v if v > 0 else None


def ends(row):
    """The run's two timed trips (ns), those that were timed: a list of 0 to 2."""
    trips = (_positive(row.get(k)) for k in ("c2c_one_way_before_ns", "c2c_one_way_after_ns"))
    return [v for v in trips if v]


def far(row, t_c):
    """Whether either timed end of the run is more than FAR x t_c (ns)."""
    return bool(t_c) and any(v > FAR * t_c for v in ends(row))


def probe_trip(probe_csv):
    """The probe's one-way line trip within a node (ns; the other node's where
    it timed only that), or None where the probe is absent or lacks it."""
    try:
        vals = {r.get("kind"): r.get("value") for r in read_rows(probe_csv)}
    except OSError:
        return None
    trips = (_positive(vals.get(k)) for k in ("c2c_one_way_same_node", "c2c_one_way_other_node"))
    return next((v for v in trips if v), None)
