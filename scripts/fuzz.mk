# SPDX-License-Identifier: BSD-2-Clause
# scripts/fuzz.mk - fuzzing: libFuzzer targets for the C parsers and a
# standard-library mutation fuzzer for the experiment files. Included by the
# top-level Makefile (uses B, PYTHON and RING_LIBS from it; works stand-alone
# with its own defaults).
#
#   make fuzz            build, then fuzz every target FUZZ_SECONDS (default 60)
#                        on a copy of its seed corpus in $(B)/fuzz/work/; prints
#                        the executions per target and fails on any finding,
#                        naming the crash file. `make -j2 fuzz` runs two at once.
#   make fuzz-build      the libFuzzer binaries only ($(B)/fuzz/fuzz_*)
#   make fuzz-regress    every target once over its committed corpus and
#                        regression inputs, no fuzzing (seconds; for make test)
#   make fuzz-run-NAME   one target (cpulist, topology, hgrm, expfile)
#
# Targets (each file's header says what counts as a finding):
#   cpulist   ring/fuzz/fuzz_cpulist.c     nr_cpulist_parse + format round trip
#   topology  ring/fuzz/fuzz_topology.c    nr_topology_parse invariants, order, round trip
#   hgrm      harness/fuzz/fuzz_hgrm.c     hdr_parse_hgrm (hgrm.c); hdr_write_hgrm -> parse
#   expfile   scripts/tests/fuzz_expfile.py      expfile.parse / points (Python, no libFuzzer)
#
# Seeds: ring/fuzz/corpus/{cpulist,topology}/, harness/fuzz/corpus/hgrm/,
# experiments/fuzz-corpus/ + experiments/*.exp. Regression inputs (findings,
# kept forever): ring/fuzz/regressions/NAME/, harness/fuzz/regressions/NAME/,
# experiments/fuzz-regressions/. Committed corpora are never written to.
#
# Variables: FUZZ_SECONDS (60), FUZZ_TIMEOUT (s per input, 10), FUZZ_MAX_LEN
# (4096), FUZZ_CC (clang-14, else clang), FUZZ_TARGETS (all four),
# FUZZ_ARGS (extra libFuzzer flags), FUZZ_EXPFILE_ARGS (extra
# fuzz_expfile.py flags, e.g. --seed 1 or --known same-options).

ifndef NUMARING_FUZZ_MK
NUMARING_FUZZ_MK := 1

B         ?= build
PYTHON    ?= /usr/bin/python3
RING_LIBS ?= -lhwloc -lnuma

FUZZ_SECONDS      ?= 60
FUZZ_TIMEOUT      ?= 10
FUZZ_MAX_LEN      ?= 4096
FUZZ_DIR          ?= $(B)/fuzz
FUZZ_CC           ?= $(shell command -v clang-14 2>/dev/null || command -v clang 2>/dev/null || echo clang-14)
FUZZ_CFLAGS       ?= -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer -Wall -Wextra
FUZZ_ARGS         ?=
FUZZ_EXPFILE_ARGS ?=

FUZZ_C_TARGETS := cpulist topology hgrm
FUZZ_TARGETS   ?= $(FUZZ_C_TARGETS) expfile
FUZZ_BINS      := $(FUZZ_C_TARGETS:%=$(FUZZ_DIR)/fuzz_%)

# seed folders (corpus, then regressions) and dictionary of each C target
FUZZ_SEEDS_cpulist  := ring/fuzz/corpus/cpulist ring/fuzz/regressions/cpulist
FUZZ_SEEDS_topology := ring/fuzz/corpus/topology ring/fuzz/regressions/topology
FUZZ_SEEDS_hgrm     := harness/fuzz/corpus/hgrm harness/fuzz/regressions/hgrm
FUZZ_DICT_cpulist   := ring/fuzz/cpulist.dict
FUZZ_DICT_topology  := ring/fuzz/topology.dict
FUZZ_DICT_hgrm      := harness/fuzz/hgrm.dict
FUZZ_EXP_SEEDS      := experiments/fuzz-corpus $(wildcard experiments/*.exp) \
	$(wildcard experiments/fuzz-regressions)

.PHONY: fuzz fuzz-build fuzz-regress deps-fuzz fuzz-check-vars $(FUZZ_TARGETS:%=fuzz-run-%) \
	$(FUZZ_TARGETS:%=fuzz-regress-%)

deps-fuzz:
	@scripts/deps.sh build fuzz

# The numbers given on the command line, checked before anything runs
# (libFuzzer reads -max_total_time=abc as 0: no limit at all).
fuzz-check-vars:
	@for v in FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_TIMEOUT=$(FUZZ_TIMEOUT) FUZZ_MAX_LEN=$(FUZZ_MAX_LEN); do \
	  case "$${v#*=}" in ''|*[!0-9]*|0) \
	    echo "fuzz: $$v: expected a whole number above 0" >&2; exit 2;; esac; done

fuzz-build: $(FUZZ_BINS)

# deps-fuzz is order-only: checked on every run, never a reason to rebuild
$(FUZZ_DIR)/fuzz_cpulist: ring/fuzz/fuzz_cpulist.c ring/src/nr_topology.c ring/src/nr_topology.h | deps-fuzz
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Iring -Iring/src $< ring/src/nr_topology.c -o $@ $(RING_LIBS)

$(FUZZ_DIR)/fuzz_topology: ring/fuzz/fuzz_topology.c ring/src/nr_topology.c ring/src/nr_topology.h | deps-fuzz
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Iring -Iring/src $< ring/src/nr_topology.c -o $@ $(RING_LIBS)

$(FUZZ_DIR)/fuzz_hgrm: harness/fuzz/fuzz_hgrm.c harness/hdr.c harness/hdr.h harness/hgrm.c \
		harness/hgrm.h | deps-fuzz
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Iharness $< harness/hdr.c harness/hgrm.c -o $@ -lm

# Every existing file of the given folders (missing folders are skipped).
fuzz_files = $(foreach d,$(1),$(wildcard $(d)/*))

# fuzz-run-NAME / fuzz-regress-NAME for a libFuzzer target
define FUZZ_C_RULES
fuzz-run-$(1): $(FUZZ_DIR)/fuzz_$(1) | fuzz-check-vars
	@rm -rf $(FUZZ_DIR)/work/$(1) $(FUZZ_DIR)/status/$(1) $(FUZZ_DIR)/status/$(1).txt && mkdir -p $(FUZZ_DIR)/work/$(1) $(FUZZ_DIR)/artifacts/$(1)
	@for f in $(call fuzz_files,$(FUZZ_SEEDS_$(1))); do cp "$$$$f" $(FUZZ_DIR)/work/$(1)/; done
	@scripts/fuzz-run.sh $(1) $(FUZZ_DIR)/logs/$(1).log $(FUZZ_DIR)/status/$(1) -- \
		$(FUZZ_DIR)/fuzz_$(1) -max_total_time=$(FUZZ_SECONDS) -timeout=$(FUZZ_TIMEOUT) \
		-max_len=$(FUZZ_MAX_LEN) -dict=$(FUZZ_DICT_$(1)) \
		-artifact_prefix=$(FUZZ_DIR)/artifacts/$(1)/ $(FUZZ_ARGS) $(FUZZ_DIR)/work/$(1) \
		$$(if $$(FUZZ_KEEP_GOING),|| true)

fuzz-regress-$(1): $(FUZZ_DIR)/fuzz_$(1) | fuzz-check-vars
	@files="$(call fuzz_files,$(FUZZ_SEEDS_$(1)))"; \
	 [ -n "$$$$files" ] || { echo "fuzz-regress $(1): no inputs"; exit 1; }; \
	 mkdir -p $(FUZZ_DIR)/logs; \
	 if $(FUZZ_DIR)/fuzz_$(1) -timeout=$(FUZZ_TIMEOUT) $$$$files > $(FUZZ_DIR)/logs/regress-$(1).log 2>&1; \
	 then echo "fuzz-regress $(1): $$$$(echo $$$$files | wc -w) inputs ok"; \
	 else echo "fuzz-regress $(1): FAILED (log $(FUZZ_DIR)/logs/regress-$(1).log):"; \
	      grep -E 'Running: |ERROR: |SUMMARY: |fuzz_$(1): |runtime error' \
	        $(FUZZ_DIR)/logs/regress-$(1).log | tail -n 8 | sed 's/^/  | /'; exit 1; fi
endef
$(foreach t,$(FUZZ_C_TARGETS),$(eval $(call FUZZ_C_RULES,$(t))))

# The experiment-file fuzzer reads its seeds in place (it never writes them).
fuzz-run-expfile: | fuzz-check-vars
	@rm -f $(FUZZ_DIR)/status/expfile $(FUZZ_DIR)/status/expfile.txt
	@scripts/fuzz-run.sh expfile $(FUZZ_DIR)/logs/expfile.log $(FUZZ_DIR)/status/expfile -- \
		$(PYTHON) -m scripts.tests.fuzz_expfile --seconds $(FUZZ_SECONDS) --timeout $(FUZZ_TIMEOUT) \
		--crash-dir $(FUZZ_DIR)/artifacts/expfile $(addprefix --corpus ,$(FUZZ_EXP_SEEDS)) \
		$(FUZZ_EXPFILE_ARGS) $(if $(FUZZ_KEEP_GOING),|| true)

fuzz-regress-expfile:
	@mkdir -p $(FUZZ_DIR)/logs
	@if $(PYTHON) -m scripts.tests.fuzz_expfile --regress $(FUZZ_EXP_SEEDS) \
		> $(FUZZ_DIR)/logs/regress-expfile.log 2>&1; \
	 then echo "fuzz-regress expfile: $$(sed -n 's/^fuzz_expfile: regress: //p' $(FUZZ_DIR)/logs/regress-expfile.log)"; \
	 else echo "fuzz-regress expfile: FAILED (log $(FUZZ_DIR)/logs/regress-expfile.log):"; \
	      grep -E '^fuzz_expfile: |^[A-Za-z]*Error: |^[^ ]* must be' $(FUZZ_DIR)/logs/regress-expfile.log | sed 's/^/  | /'; \
	      exit 1; fi

# Every target, even after one fails (FUZZ_KEEP_GOING, a target-specific
# variable, reaches the fuzz-run-* prerequisites); then the summary; fails if
# any target failed.
fuzz: FUZZ_KEEP_GOING := 1
fuzz: $(FUZZ_TARGETS:%=fuzz-run-%)
	@echo "---- fuzz summary ($(FUZZ_SECONDS) s per target)"; fail=0; \
	 for t in $(FUZZ_TARGETS); do \
	   s=$$(cat $(FUZZ_DIR)/status/$$t 2>/dev/null || echo "not run"); \
	   if [ -f $(FUZZ_DIR)/status/$$t.txt ]; then sed 's/^fuzz /  /' $(FUZZ_DIR)/status/$$t.txt; \
	   else printf '  %-9s FAILED  (not run)\n' $$t; fi; \
	   [ "$$s" = 0 ] || fail=1; \
	 done; exit $$fail

fuzz-regress: $(FUZZ_TARGETS:%=fuzz-regress-%)

endif
