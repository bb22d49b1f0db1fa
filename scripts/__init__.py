# SPDX-License-Identifier: BSD-2-Clause
"""NumaRing's scripts: from a host to results, claims, figures and the paper.

Run from the repository root (the Makefile does), as modules of their package:

    python3 -m scripts.runner.experiments run --profile smoke
    python3 -m scripts.analysis.summarize --readme HOST
    python3 -m scripts.figures.plot --gnuplot
    python3 -m scripts.tests.parallel                         (make test-scripts)
    python3 -m unittest discover -s scripts/tests -t . -v     (the same, one process)

One sub-package per job; data flows runner -> results on disk -> analysis ->
figures and reports, and imports go the same way (scripts/tests/test_layout.py
fails on a circle or on an import against the flow):

common    the definitions both sides read, standard library only
    tidy          the tidy table's columns and the functions of one row
    expfile       read and check experiments/*.exp (its fuzzer: tests/fuzz_expfile.py)
    manifest      numaring-bench's names (queues, look-ups, ...), from manifest.json
    regime        which regime a run ran in, from what it measured
    wholefile     a file written whole or not at all
runner    runs the study on this host; standard library only (the QEMU guest
          carries what it imports); reaches the analysis through its command line
    experiments   run the study's experiments for this host (make experiments)
    hostid        which machine measured; which results folder is this sweep's
    hostenv       what the machine was and was doing (versions, CPU state, load)
    runorder, benchrun, collect, sizing, runio, nrlikwid
                  the order of runs, each run, the tidy CSV, the estimate, whole
                  writes, likwid's interconnect bytes
    soak          hours of mixed load with --verify (make soak)
    benchresult, bench_peers, bench_placement, bench_fidelity
                  the side benchmarks (make bench-*)
analysis  results on disk -> numbers, claims and READMEs (pandas, SciPy)
    nrdata        tidy CSVs, latency and probe files loaded; host folders read
    stats         the one estimator behind every ratio, and its interval
    findings      each finding's measured numbers (F1 .. F5, peers)
    hostfacts, drift, ceiling, ceiling_tightness, regime_section, handover
                  the machine, the drift reference, the ceiling model, regimes,
                  the runs' hand-over distance
    claims_table, claims  every measured claim and the reproduction report
    results_readme, summarize  results/<host>/README.md
    jobs          the analysis's entry point, the runner's way in (its jobs, by name)
figures   the study's figures (make plots): plot, one fig_<figure> module each,
          fig_host (a host's data), fig_draw and fig_gnuplot (the renderers)
paper     paper_numbers, paper_text, model_facts: the paper's generated inputs
vm        the QEMU guest with real NUMA nodes (make vm-test, vm-experiments)

Data files beside the packages: manifest.json, manifest-allowlist.txt,
summary-schema.csv, gnuplot/*.gp.
"""
