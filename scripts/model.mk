# SPDX-License-Identifier: BSD-2-Clause
# scripts/model.mk - `make model-check`: the spin model of the ring core
# (ring/model/ring.pml, described in ring/model/README.md). Included by the
# top-level Makefile (uses B from it; works stand-alone).
#
#   make model-check        the default configurations (exhaustive safety
#                           searches, non-progress searches under weak fairness,
#                           the injected-bug mutants that must be caught); fails
#                           on any error. How many there are, their sizes, times
#                           and memory: ring/model/results.tsv, the last recorded
#                           run, and the table generated from it in
#                           ring/model/README.md (nothing here types a count)
#   make model-record       record the last model-check run (build/model/summary.tsv)
#                           as ring/model/results.tsv and regenerate, from it, the
#                           facts of ring/model/README.md, README.md,
#                           docs/testing.md and paper/generated/model.tex
#                           (scripts/paper/model_facts.py; refuses a partial run)
#   make model-check-full   the same plus the large configurations (several GB;
#                           one of them a bitstate search)
#
# Variables: MODEL_JOBS (parallel searches; default: the CPU count),
# MODEL_MEMLIM (MB per search, default 6144; 8192 for -full),
# MODEL_ONLY (a regular expression: only the configurations it matches).
# Results: $(B)/model/NAME/pan.out per configuration, $(B)/model/summary.txt
# (the lines printed) and $(B)/model/summary.tsv (tab-separated, in list order).
# spin comes from Debian (package spin); scripts/deps.sh installs it when
# missing and running as root, else prints the command that installs it.

ifndef NUMARING_MODEL_MK
NUMARING_MODEL_MK := 1

B            ?= build
MODEL_JOBS   ?= $(shell nproc 2>/dev/null || echo 2)
MODEL_MEMLIM ?=
MODEL_ONLY   ?=
PYTHON       ?= /usr/bin/python3

MODEL_CHECK = MEMLIM=$(or $(MODEL_MEMLIM),$(1)) ring/model/check.sh -j $(MODEL_JOBS) \
	-o $(B)/model $(if $(MODEL_ONLY),--only '$(MODEL_ONLY)')

.PHONY: model-check model-check-full model-record deps-model

deps-model:
	@scripts/deps.sh model

model-check: deps-model
	@$(call MODEL_CHECK,6144)

model-record:
	$(PYTHON) -m scripts.paper.model_facts record $(B)/model/summary.tsv

model-check-full: deps-model
	@$(call MODEL_CHECK,8192) --full

endif
