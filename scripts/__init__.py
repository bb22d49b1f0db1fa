# SPDX-License-Identifier: BSD-2-Clause
"""NumaRing's scripts: from a host to results, claims, figures and the paper.

One package, run from the repository root (the Makefile does):

    python3 -m scripts.experiments run --profile smoke
    python3 -m scripts.summarize --readme HOST
    python3 -m unittest discover -s scripts/tests -t . -v     (make test-scripts)

The modules import each other relatively (``from . import stats``); nothing
edits sys.path. The modules, by what they are for:

host identity
    hostid        which machine measured; which results folder is this sweep's
    hostenv       what the machine was and was doing (versions, CPU state, load)
    manifest      numaring-bench's names (queues, look-ups, ...), from manifest.json
experiment files
    expfile       read and check experiments/*.exp
    fuzz_expfile  a mutation fuzzer for expfile (make fuzz-regress)
runner
    experiments   run the study's experiments for this host (make experiments)
    runorder      the order of an experiment's runs; the capacity probe groups
    benchrun      each harness run of a sweep, into its folder, whole or not at all
    collect       an experiment's tidy CSV from its runs
    sizing        what this machine can run, and how long a sweep takes
    runio         the runner's whole-file writes and one-line exits
    nrlikwid      interconnect bytes per item from likwid-perfctr (run --likwid)
    soak          hours of mixed load with --verify (make soak)
collection
    nrdata        read tidy CSVs and meta.json; the summary schema
    regime        which regime a run ran in, from what it measured
statistics
    stats         the one estimator behind every ratio, and its interval
    findings      each finding's measured numbers (F1 .. F5, peers)
    hostfacts     what a host folder says of its machine (nodes, SMT, siblings)
    drift         each experiment's drift reference against the effects it states
    results_readme  the text of results/<host>/README.md
    summarize     print each host's findings, or write its README.md (--readme)
    regime_report the results README's section on regimes
    ceiling       the physical ceiling model (finding F5)
    ceiling_report how tight the ceiling model is, per queue and regime
    handover       how far apart the runs found their two CPUs (the runs' own line trips)
claims
    claims_table  every measured claim, beside the function that measures it
    claims        the reproduction report of the claims (text, CSV, markdown, LaTeX)
figures
    plot          draw the study's figures (make plots)
    fig_common, fig_f1, fig_f3, fig_f4, fig_f5, fig_lines, fig_peers
                  the figures plot draws, one module each
paper
    paper_numbers every number the paper quotes, as LaTeX macros (make paper)
    paper_text    the paper's generated sentences
    model_facts   the model-checking facts (make model-check)
side benchmarks
    benchresult   the side benchmarks' measurements as results (bench-oversub)
    bench_peers   NumaRing against every peer queue (make bench-peers)
    bench_placement  the ring's speed by where its cells lie (make bench-placement)
    bench_fidelity   numaring-bench against a bare loop (make bench-fidelity)
VM
    numa_vm       boot a guest with real NUMA nodes under QEMU (make vm-test): the
                  command line, and the guest's files gathered
    vm_kernel     Debian's kernel package for the guest, found and cached
    vm_image      the guest's initramfs (busybox, libraries, python modules, init)
    vm_topology   the guest's nodes from the options, checked once it booted
    vm_qemu       the kernel command line, the QEMU command, the console watched
    vm_fetch      --fetch: the guest's results back to the host
    vm_say        the VM modules' messages and exits
    vm_experiments  the whole pipeline in a two-socket guest (make vm-experiments)
"""
