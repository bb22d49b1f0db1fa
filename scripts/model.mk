# scripts/model.mk - `make model-check`: the spin model of the ring core
# (ring/model/ring.pml, described in ring/model/README.md). Included by the
# top-level Makefile (uses B from it; works stand-alone).
#
#   make model-check        32 configurations (exhaustive safety searches,
#                           non-progress searches under weak fairness, the
#                           injected-bug mutants that must be caught, and the
#                           fixed weak-memory finding); about 2 minutes on 2 CPUs,
#                           2.8 GB for the largest search; fails on any error
#   make model-check-full   the same plus 7 large configurations (about 10 more
#                           minutes; one of them a bitstate search of 2 GB)
#
# Variables: MODEL_JOBS (parallel searches; default: the CPU count),
# MODEL_MEMLIM (MB per search, default 6144; 8192 for -full),
# MODEL_ONLY (a regular expression: only the configurations it matches).
# Results: $(B)/model/NAME/pan.out per configuration, $(B)/model/summary.txt.
# spin comes from Debian (package spin); scripts/deps.sh installs it when
# missing and running as root, else prints the command that installs it.

ifndef NUMARING_MODEL_MK
NUMARING_MODEL_MK := 1

B            ?= build
MODEL_JOBS   ?= $(shell nproc 2>/dev/null || echo 2)
MODEL_MEMLIM ?=
MODEL_ONLY   ?=

MODEL_CHECK = MEMLIM=$(or $(MODEL_MEMLIM),$(1)) ring/model/check.sh -j $(MODEL_JOBS) \
	-o $(B)/model $(if $(MODEL_ONLY),--only '$(MODEL_ONLY)')

.PHONY: model-check model-check-full deps-model

deps-model:
	@scripts/deps.sh model

model-check: deps-model
	@$(call MODEL_CHECK,6144)

model-check-full: deps-model
	@$(call MODEL_CHECK,8192) --full

endif
