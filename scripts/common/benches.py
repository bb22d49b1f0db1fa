# SPDX-License-Identifier: BSD-2-Clause
"""benches.py - what the side benchmarks' results mean, for the runner that
writes them (scripts/runner/bench_*.py) and the analysis that reads them.
Standard library only."""

#: bench-fidelity's configurations that say where the time goes rather than
#: how close the harness comes: pairs1 (one thread, nothing contends) gives the
#: symmetric loop's own cost per item against a ring that then runs at the
#: speed of the L1 cache, a cost no contended run shows whole. No target, no
#: claim (scripts/analysis/claims_table.py leaves them out).
FIDELITY_DIAGNOSTIC = ("pairs1",)
