# SPDX-License-Identifier: BSD-2-Clause
"""summarize.py - the measured ratios of each finding, from results/<host>/*.csv.

    python3 -m scripts.analysis.summarize [--results results] [HOST ...]
        print each host's ratios (every host of the results by default)
    python3 -m scripts.analysis.summarize [--results results] --readme HOST ...
        rewrite results/HOST/README.md

Every number comes from the tidy CSVs; nothing is typed in. The same
functions feed the paper's generated numbers. A ratio between two
configurations is a paired ratio: the ratio of the two runs of each
repetition k (rep k of every point ran in the same round of the sweep, close
in time), its median over the repetitions, and the order-statistic interval
of that median with its exact coverage at the n used (stats.interval),
printed "X.XX [lo..hi, 93.75%]". Absolute values (ns, Mops/s) are medians over
repetitions. The drift reference's runs (role reference) are left out of
every point and reported on their own: their spread against the smallest
effect an experiment states.
"""

import argparse
import os

from . import results_readme
from ..common.wholefile import write_whole

# The numbers and the prose live in modules of their own (findings.py: each
# finding's numbers; hostfacts.py: the machine; drift.py: the drift reference;
# results_readme.py: the README's text). The names the figures, claims, paper
# and tests read through this module stay importable from it.
from .drift import drift, stated_effects  # noqa: F401
from .findings import (  # noqa: F401
    EXPERIMENTS, any_oversubscribed, bench_ring, ceiling_ratios, f1, f2, f3, f4, f4_workloads,
    f5_realized, harness_bound, harness_ceiling, load, load_refs, pace, paired, peers,
    peers_pairs, put_ratio, quoted_best, sample_of, threads, workload_of)
from .hostfacts import (  # noqa: F401
    CROSS_NODE, cross_node_dir, describe_host, has_smt, machine, real_nodes, sockets_crossed)
from .results_readme import host_readme, pace_section  # noqa: F401


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m scripts.analysis.summarize",
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 description=__doc__.strip())
    ap.add_argument("--results", metavar="DIR", default="results",
                    help="the results folder, one folder per host (default results)")
    ap.add_argument("--readme", action="store_true",
                    help="rewrite each HOST's README.md instead of printing (needs a HOST)")
    ap.add_argument("hosts", nargs="*", metavar="HOST",
                    help="a folder of the results (default: every one, without --readme)")
    a = ap.parse_args(argv)
    results, readme, args = a.results, a.readme, a.hosts
    if readme and not args:
        ap.error("--readme needs a HOST (a folder of the results)")
    if not os.path.isdir(results):
        ap.error(f"{results!r} is not a folder of results")
    for host in args:
        if not os.path.isdir(os.path.join(results, host)):
            ap.error(f"no results for host {host!r}: {os.path.join(results, host)} "
                     "is not a folder")
    for host in args or sorted(d for d in os.listdir(results)
                               if os.path.isdir(os.path.join(results, d))):
        hostdir = os.path.join(results, host)
        if readme:
            write_whole(os.path.join(hostdir, "README.md"), results_readme.host_readme(hostdir))
        else:
            print(results_readme.host_readme(hostdir))


if __name__ == "__main__":
    main()
