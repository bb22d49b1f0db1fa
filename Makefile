# SPDX-License-Identifier: BSD-2-Clause
# NumaRing - every entry point of the artifact.
#
#   make              build/libnumaring.a and .so (+ its SONAME links), after checking
#                     its packages with pkg-config;  make bench: the harness
#   make experiments  every experiment, sized to this machine, then the plots and
#                     the reproduction report (results/<host>/claims.csv)
#   make report       HOSTS="a b": the hosts' claims side by side
#   make test         the test suite (installs/checks its Debian packages first)
#   make test-tsan    the ring's tests under ThreadSanitizer
#   make test-asan    the ring's tests under AddressSanitizer + UBSan
#   make test-fault   the ring's tests with preemption injected at the fault points
#   make test-leaks   valgrind memcheck + LeakSanitizer: ring tests, every queue
#   make fuzz         each fuzz target FUZZ_SECONDS (60); fuzz-regress: the saved inputs
#   make model-check  the spin model of the ring core (ring/model/README.md)
#   make vm-test      the real-kernel NUMA path in a QEMU guest
#   make vm-experiments  the runner's path on 2 real nodes x 8 CPUs in a QEMU guest (smoke
#                     profile), then summaries, plots and paper in build/vm-experiments/
#   make soak         DURATION=3h of random configurations with --verify (not in CI)
#   make plots        plots/ from results/;  make paper: paper/numaring.pdf
#   make bench-ring   micro-benchmark: ns per enqueue+dequeue for each lookup mode
#   make bench-peers  every queue at 1P1C, single operations and bursts
#   make bench-oversub  3P3C on 2 CPUs, every lookup x gate x backoff (QUICK=1)
#   make bench-fidelity  numaring-bench against a bare loop of the same queue (target >= 0.8x)
#   make bench-placement the flat ring alone with its cells at 0..896 bytes past a page boundary
#   make bench-likwid  build/likwid/numaring-bench with likwid marker regions
#                     (make experiments LIKWID=1: interconnect bytes per item where likwid can count)
#   make install      PREFIX=/usr/local DESTDIR= : header, libraries, numaring.pc
#   make clean
#
# Build products go to build/ (sanitizer builds to build/tsan, build/asan).

CC      ?= gcc
CXX     ?= g++
OPT     ?= -O2 -g
PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
INCDIR  ?= $(PREFIX)/include
B       ?= build
SAN     ?=

ifeq ($(SAN),thread)
  SANFLAGS := -fsanitize=thread
  OPT      := -O1 -g
else ifeq ($(SAN),address)
  SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
  OPT      := -O1 -g
endif

WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wno-missing-field-initializers
CFLAGS_  := -std=gnu11 -pthread -fPIC $(OPT) $(WARN) $(SANFLAGS) -Iring $(CFLAGS)
LDFLAGS_ := -pthread $(SANFLAGS) $(LDFLAGS)
RING_LIBS := -lhwloc -lnuma

VERSION  := 0.1.0
SONAME   := libnumaring.so.0

# ring/*.h are the public headers (installed); ring/src/ is private.
RING_SRCS := ring/src/numaring.c ring/src/nr_topology.c ring/src/names.c ring/src/lab.c
RING_HDRS := $(wildcard ring/*.h ring/src/*.h)
RING_OBJS := $(RING_SRCS:%.c=$(B)/obj/%.o)
# The ring's tests link a separate archive built with the test hooks
# (allocation-failure injection): the library proper has none.
RING_TEST_OBJS := $(RING_SRCS:%.c=$(B)/obj-test/%.o)

RING_TESTS := test_ring test_stress test_placement test_fastpath
RING_TEST_BINS := $(RING_TESTS:%=$(B)/tests/%)

.PHONY: all lib bench test test-ring test-harness test-tsan test-asan test-fault test-leaks bench-ring bench-peers bench-oversub \
	bench-fidelity bench-placement \
	install uninstall clean deps-build deps-test FORCE

# `make` builds the library alone; `make bench` the harness.
all: lib

lib: $(B)/libnumaring.a $(B)/libnumaring.so

# The library's packages, checked before anything of it is compiled: a
# missing one is named with its Debian package and the command that installs
# it, instead of "hwloc.h: No such file or directory".
.PHONY: check-ring-pkgs
check-ring-pkgs:
	@command -v pkg-config >/dev/null 2>&1 || { echo "make: pkg-config is missing (Debian package pkg-config); scripts/deps.sh build installs what the library needs (as root) or prints the command" >&2; exit 1; }
	@for p in hwloc numa; do pkg-config --exists $$p || { \
	  case $$p in hwloc) d=libhwloc-dev ;; *) d=libnuma-dev ;; esac; \
	  echo "make: the library needs $$p (Debian package $$d), which pkg-config does not find; scripts/deps.sh build installs it (as root) or prints the command" >&2; \
	  exit 1; }; done

deps-build:
	@scripts/deps.sh build peers
deps-test:
	@scripts/deps.sh build peers test

$(B)/obj/ring/%.o: ring/%.c $(RING_HDRS) | check-ring-pkgs
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) -Iring/src -c $< -o $@

$(B)/obj-test/ring/%.o: ring/%.c $(RING_HDRS) | check-ring-pkgs
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) -Iring/src -DNR_TEST_HOOKS -c $< -o $@

$(B)/libnumaring.a: $(RING_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(B)/test/libnumaring.a: $(RING_TEST_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

# The shared library as it is installed: the file with the full version,
# the SONAME link programs load, and the link the linker finds (-lnumaring).
SOFILE := libnumaring.so.$(VERSION)
$(B)/$(SOFILE): $(RING_OBJS) ring/libnumaring.map
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=ring/libnumaring.map \
		-o $@ $(RING_OBJS) $(LDFLAGS_) $(RING_LIBS)

$(B)/libnumaring.so: $(B)/$(SOFILE)
	ln -sf $(SOFILE) $(B)/$(SONAME)
	ln -sf $(SONAME) $@

$(B)/tests/%: ring/tests/%.c ring/tests/nr_test.h $(B)/test/libnumaring.a $(RING_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) -Iring/src -Iring/tests -DNR_TEST_HOOKS $< -o $@ $(B)/test/libnumaring.a $(LDFLAGS_) $(RING_LIBS) -lcmocka

# A program linked with the shared library as a user links it
# (-Lbuild -lnumaring -Wl,-rpath,build) runs, and finds versioned symbols.
$(B)/tests/link_check: ring/tests/link_check.c $(wildcard ring/*.h) $(B)/libnumaring.so
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) $< -o $@ -L$(B) -lnumaring -Wl,-rpath,$(B) $(LDFLAGS_)

# The ABI kept (issue 23): a program built against the headers as shipped
# (ring/tests/abi-0.1, -I'd before ring/) runs against this shared library;
# the public headers compile without a feature macro, with _GNU_SOURCE and
# as C++; the library exports every released symbol version.
ABI_TEST_BINS := $(B)/tests/test_abi_old $(B)/tests/test_abi_headers_c11 \
	$(B)/tests/test_abi_headers_gnu $(B)/tests/test_abi_headers_cxx
$(B)/tests/test_abi_old: ring/tests/test_abi_old.c $(wildcard ring/tests/abi-0.1/*.h) ring/src/nr_abi.h $(B)/libnumaring.so
	@mkdir -p $(dir $@)
	$(CC) -Iring/tests/abi-0.1 $(CFLAGS_) -Iring/src $< -o $@ -L$(B) -lnumaring -Wl,-rpath,$(B) $(LDFLAGS_) -lcmocka
$(B)/tests/test_abi_headers_c11: ring/tests/test_abi_headers.c $(wildcard ring/*.h) $(B)/libnumaring.so
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -Wpedantic $(OPT) $(WARN) $(SANFLAGS) -Iring -DNR_EXPECT_PLAIN $< -o $@ -L$(B) -lnumaring -Wl,-rpath,$(B) $(LDFLAGS_)
$(B)/tests/test_abi_headers_gnu: ring/tests/test_abi_headers.c $(wildcard ring/*.h) $(B)/libnumaring.so
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -Wpedantic $(OPT) $(WARN) $(SANFLAGS) -Iring -D_GNU_SOURCE -DNR_EXPECT_GNU $< -o $@ -L$(B) -lnumaring -Wl,-rpath,$(B) $(LDFLAGS_)
$(B)/tests/test_abi_headers_cxx: ring/tests/test_abi_headers.c $(wildcard ring/*.h) $(B)/libnumaring.so
	@mkdir -p $(dir $@)
	$(CXX) -x c++ -std=c++17 $(OPT) -Wall -Wextra $(SANFLAGS) -Iring $< -x none -o $@ -L$(B) -lnumaring -Wl,-rpath,$(B) $(LDFLAGS_)

# The ring's tests: each binary prints cmocka's summary; any failure fails make.
test-ring: $(RING_TEST_BINS) $(B)/tests/link_check $(ABI_TEST_BINS) $(B)/libnumaring.a
	@set -e; for t in $(RING_TEST_BINS); do echo "== $$t"; $$t; done
	@echo "== $(B)/tests/link_check"; $(B)/tests/link_check
	@set -e; for t in $(ABI_TEST_BINS); do echo "== $$t"; $$t; done
	@ring/tests/check_abi_exports.sh $(B)/libnumaring.so ring/libnumaring.map ring/tests/abi-0.1/exports.txt
	@objdump -T $(B)/libnumaring.so | grep -q 'NUMARING_0.1 *numaring_create$$' || \
	  { echo "test-ring: numaring_create is not versioned NUMARING_0.1 in $(B)/libnumaring.so" >&2; exit 1; }
	@! objdump -T $(B)/libnumaring.so | grep -E ' nr_[a-z_]+$$' || \
	  { echo "test-ring: libnumaring.so exports internal nr_* symbols" >&2; exit 1; }
	@objdump -T $(B)/libnumaring.so | grep -q 'NUMARING_LAB_0.1 *numaring_lab_create$$' || \
	  { echo "test-ring: numaring_lab_create is not versioned NUMARING_LAB_0.1" >&2; exit 1; }
	@# nm fails (and so does this) if the archive is missing or unreadable
	@nm $(B)/libnumaring.a > $(B)/libnumaring.a.nm
	@! grep -w nr_fault_alloc $(B)/libnumaring.a.nm || \
	  { echo "test-ring: libnumaring.a carries the test hook nr_fault_alloc (it belongs in $(B)/test/ only)" >&2; exit 1; }
	@# the fast path's shape, in the optimised build without sanitizers or fault points
	$(if $(SAN)$(filter -DNR_FAULT_INJECT,$(CFLAGS))$(filter-out -O2 -g,$(OPT)),@echo "test-ring: check_fastpath skipped in this instrumented build",@scripts/check_fastpath.sh $(B)/$(SOFILE))

# ---- the harness: build/numaring-bench --------------------------------------

include harness/peers/peers.mk

HARNESS_SRCS := harness/bench.c harness/workers.c harness/workload.c harness/placement.c harness/report.c \
	harness/options.c harness/output.c harness/clock.c harness/hdr.c harness/probe.c \
	harness/counters.c harness/item_sum.c harness/manifest.c $(PEER_C_SRCS)
HARNESS_HDRS := $(wildcard harness/*.h harness/peers/*.h) $(wildcard ring/*.h) $(B)/version.h
HARNESS_OBJS := $(HARNESS_SRCS:%.c=$(B)/obj/%.o) $(PEER_CXX_SRCS:%.cpp=$(B)/obj/%.cpp.o)
HARNESS_CFLAGS := -Iharness -Iharness/peers -I$(B) $(PEER_CFLAGS)

# version.h changes only when the commit (or the dirty state) does.
$(B)/version.h: FORCE
	@mkdir -p $(B)
	@git_rev=$$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown); \
	 git diff --quiet HEAD -- ring harness 2>/dev/null || git_rev="$$git_rev-dirty"; \
	 printf '#define NUMARING_GIT "%s"\n#define NUMARING_CFLAGS "%s"\n' "$$git_rev" \
	   "$(strip $(OPT) $(SANFLAGS))" > $@.tmp; \
	 cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp

$(B)/obj/harness/%.o: harness/%.c $(HARNESS_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) $(HARNESS_CFLAGS) $(if $(filter harness/peers/rte.c,$<),$(PEER_RTE_CFLAGS)) -c $< -o $@

$(B)/obj/harness/%.cpp.o: harness/%.cpp $(HARNESS_HDRS)
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 $(OPT) -g -Wall -Wextra -fPIC $(SANFLAGS) -Iring $(HARNESS_CFLAGS) -c $< -o $@

# The harness uses the library's public headers only (ring/*.h, the lab's
# included) and links the shared library as a user's program does; it finds
# it next to itself ($$ORIGIN), wherever build/ is. libnuma and hwloc are
# the harness's own (placement, probe).
HARNESS_LINK_RING := -L$(B) -lnumaring -lnuma -lhwloc
$(B)/numaring-bench: $(HARNESS_OBJS) $(B)/libnumaring.so
	$(CXX) -o $@ $(HARNESS_OBJS) $(HARNESS_LINK_RING) -Wl,-rpath,'$$ORIGIN' $(LDFLAGS_) $(PEER_LIBS) -lm $(LIKWID_LIBS)

# likwid's marker region "window" around the measured window
# (harness/counters.c), for `scripts/experiments.py run --likwid` (make
# experiments LIKWID=1): a second binary, build/likwid/numaring-bench, so that
# build/numaring-bench never links likwid. LIKWID_MARKERS=1 compiles the
# markers in; the header must be there.
LIKWID_MARKERS ?=
ifeq ($(LIKWID_MARKERS),1)
  HARNESS_CFLAGS += -DNUMARING_LIKWID
  LIKWID_LIBS := -llikwid
endif
.PHONY: bench-likwid
bench-likwid:
	@echo '#include <likwid-marker.h>' | $(CC) -E -x c - >/dev/null 2>&1 || { \
	  echo "make: bench-likwid needs likwid's header likwid-marker.h (Debian package likwid; scripts/deps.sh experiments installs it as root)" >&2; exit 1; }
	@$(MAKE) --no-print-directory B=build/likwid LIKWID_MARKERS=1 build/likwid/numaring-bench

bench: $(B)/numaring-bench

HARNESS_TEST_BINS := $(B)/tests/test_hdr $(B)/tests/test_probe $(B)/tests/test_peers $(B)/tests/test_bench \
	$(B)/tests/test_pin

$(B)/tests/test_hdr: harness/tests/test_hdr.c harness/hdr.c harness/hdr.h harness/hgrm.c harness/hgrm.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) -Iharness $< harness/hdr.c harness/hgrm.c -o $@ $(LDFLAGS_) -lcmocka -lm

$(B)/tests/test_probe: harness/tests/test_probe.c $(B)/obj/harness/probe.o $(B)/obj/harness/clock.o $(B)/libnumaring.so
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) $(HARNESS_CFLAGS) $< $(B)/obj/harness/probe.o $(B)/obj/harness/clock.o -o $@ \
		$(HARNESS_LINK_RING) -Wl,-rpath,'$$ORIGIN/..' $(LDFLAGS_) -lnuma -lcmocka -lm

PEER_OBJS := $(PEER_C_SRCS:%.c=$(B)/obj/%.o) $(PEER_CXX_SRCS:%.cpp=$(B)/obj/%.cpp.o)
$(B)/tests/test_peers: harness/tests/test_peers.c $(PEER_OBJS) $(B)/obj/harness/clock.o \
		$(B)/obj/harness/item_sum.o $(B)/libnumaring.so
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) $(HARNESS_CFLAGS) -c $< -o $@.o
	$(CXX) -o $@ $@.o $(PEER_OBJS) $(B)/obj/harness/clock.o $(B)/obj/harness/item_sum.o $(HARNESS_LINK_RING) -Wl,-rpath,'$$ORIGIN/..' $(LDFLAGS_) \
		$(PEER_LIBS) -lcmocka -lm

$(B)/tests/test_bench: harness/tests/test_bench.c $(B)/obj/harness/hgrm.o $(B)/obj/harness/clock.o \
		$(PEER_OBJS) $(B)/libnumaring.so
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) $(HARNESS_CFLAGS) -c $< -o $@.o
	$(CXX) -o $@ $@.o $(B)/obj/harness/hgrm.o $(B)/obj/harness/clock.o $(PEER_OBJS) $(HARNESS_LINK_RING) -Wl,-rpath,'$$ORIGIN/..' $(LDFLAGS_) \
		$(PEER_LIBS) -lcmocka -lm

# The thread placement on synthetic hosts (2 sockets x 16 cores x 2 hyperthreads).
$(B)/tests/test_pin: harness/tests/test_pin.c $(B)/obj/harness/placement.o $(B)/obj/harness/options.o \
		$(B)/obj/harness/clock.o $(B)/obj/harness/item_sum.o $(PEER_OBJS) $(B)/libnumaring.so
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) $(HARNESS_CFLAGS) -c $< -o $@.o
	$(CXX) -o $@ $@.o $(B)/obj/harness/placement.o $(B)/obj/harness/options.o $(B)/obj/harness/item_sum.o \
		$(B)/obj/harness/clock.o $(PEER_OBJS) $(HARNESS_LINK_RING) -Wl,-rpath,'$$ORIGIN/..' \
		$(LDFLAGS_) $(PEER_LIBS) -lcmocka -lm

# numaring-bench writes .hgrm files but never reads them: the reader
# (harness/hgrm.c) is linked into the tests and the fuzzer only. None of
# hgrm.o's global symbols may be in numaring-bench (nm fails, and so does
# this, if either file is missing or unreadable).
test-harness: $(HARNESS_TEST_BINS) $(B)/numaring-bench $(B)/obj/harness/hgrm.o
	@nm -g --defined-only $(B)/obj/harness/hgrm.o | awk 'NF == 3 { print $$3 }' > $(B)/hgrm.syms
	@grep -qx hdr_parse_hgrm $(B)/hgrm.syms || \
	  { echo "test-harness: hdr_parse_hgrm not found in $(B)/obj/harness/hgrm.o" >&2; exit 1; }
	@nm $(B)/numaring-bench > $(B)/numaring-bench.nm
	@! grep -wFf $(B)/hgrm.syms $(B)/numaring-bench.nm || \
	  { echo "test-harness: numaring-bench links the .hgrm reader (harness/hgrm.c); it belongs in the tests and the fuzzer only" >&2; exit 1; }
	@set -e; for t in $(HARNESS_TEST_BINS); do echo "== $$t"; NUMARING_BENCH=$(B)/numaring-bench $$t; done

# ---- experiments, plots ------------------------------------------------------

PYTHON      ?= /usr/bin/python3
EXPERIMENTS ?=
PROFILE     ?=
REPS        ?=
FORCE       ?=
TOPOLOGY    ?=
COMPARE     ?=
EXP_ARGS = $(if $(EXPERIMENTS),--experiments '$(EXPERIMENTS)') $(if $(PROFILE),--profile $(PROFILE)) \
	$(if $(REPS),--reps $(REPS)) $(if $(FORCE),--force) $(if $(TOPOLOGY),--topology '$(TOPOLOGY)') \
	$(if $(LIKWID),--likwid)

.PHONY: experiments plots deps-experiments test-scripts

deps-experiments:
	@scripts/deps.sh build peers experiments

# Every experiment for this host, then the plots, then the reproduction
# report of this working tree's results (scripts/claims.py). Runs that failed
# to run or verify make it end non-zero after the plots are drawn; a claim
# that does not hold (a point above the ceiling model, say) is in the report,
# never a failure.
experiments: deps-experiments
	@$(MAKE) --no-print-directory lib bench $(B)/bench/bench_ring $(if $(LIKWID),bench-likwid)
	@rc=0; $(PYTHON) scripts/experiments.py run $(EXP_ARGS) || rc=$$?; \
	 if [ $$rc -ne 2 ] && [ $$rc -ne 130 ]; then $(MAKE) --no-print-directory plots || rc=1; \
	   echo; $(PYTHON) scripts/claims.py report --mine || rc=1; fi; \
	 exit $$rc

# The claims of several hosts side by side (make report HOSTS="a b"; every
# host with real nodes under results/, or RESULTS=DIR, by default): a claim
# that holds on one CPU and not on another shows as such.
HOSTS ?=
.PHONY: report
report:
	@$(PYTHON) scripts/claims.py report $(if $(RESULTS),--results $(RESULTS)) $(HOSTS)

plots: deps-experiments
	$(PYTHON) scripts/plot.py --gnuplot $(if $(COMPARE),--compare $(COMPARE))

# ---- the paper ----------------------------------------------------------------

.PHONY: paper deps-paper
deps-paper:
	@scripts/deps.sh experiments paper

# Numbers from the committed CSVs, figures from the committed plots. Another
# set (make vm-experiments): PAPER_RESULTS, PAPER_DIR (holding the sources)
# and PAPER_PLOTS (as seen from PAPER_DIR).
PAPER_RESULTS ?= results
PAPER_DIR     ?= paper
PAPER_PLOTS   ?= ../plots
paper: deps-paper
	$(PYTHON) scripts/paper_numbers.py --results $(PAPER_RESULTS) \
		--out $(PAPER_DIR)/generated/numbers.tex --paths $(PAPER_DIR)/generated/paths.tex \
		--claims $(PAPER_DIR)/generated/claims.tex --plots $(PAPER_PLOTS)
	cd $(PAPER_DIR) && latexmk -pdf -interaction=nonstopmode -halt-on-error -quiet numaring.tex

# The scripts' own tests: experiment files, the runner (smoke run, resume
# after a kill), plots, the ceiling model.
test-scripts: $(B)/numaring-bench $(B)/bench/bare_loop
	NUMARING_BENCH=$(B)/numaring-bench NUMARING_BARE=$(B)/bench/bare_loop \
		$(PYTHON) -m unittest discover -s scripts/tests -v

test: deps-test
	@scripts/deps.sh experiments
	@$(MAKE) --no-print-directory lib bench
	@$(MAKE) --no-print-directory test-ring
	@$(MAKE) --no-print-directory test-harness
	@$(MAKE) --no-print-directory test-scripts
	@$(MAKE) --no-print-directory fuzz-regress

test-tsan: deps-test
	@$(MAKE) --no-print-directory B=build/tsan SAN=thread test-ring

test-asan: deps-test
	@$(MAKE) --no-print-directory B=build/asan SAN=address test-ring

# No leak: valgrind memcheck over the ring's unit tests (create/attach/detach/
# destroy cycles, allocation failures) and over a full harness run of every
# queue; LeakSanitizer over the same harness runs in the ASan build. Valgrind runs
# one thread at a time: --fair-sched=yes hands the CPU round, or a thread that
# never waits (the null queue's consumers) starves the others.
VALGRIND := valgrind -q --fair-sched=yes --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=9
test-leaks: deps-test
	@$(MAKE) --no-print-directory lib bench $(B)/tests/test_ring
	$(VALGRIND) $(B)/tests/test_ring
	@set -e; for q in numaring flat ck rte moodycamel urcu mutex faa null; do \
	  echo "== valgrind numaring-bench --queue $$q"; \
	  $(VALGRIND) $(B)/numaring-bench --queue $$q --producers 2 --consumers 2 --duration 0.3 \
	    --warmup 0 --out $(B)/leaks/$$q --quiet; done
	@$(MAKE) --no-print-directory B=build/asan SAN=address build/asan/numaring-bench
	@set -e; for q in numaring flat ck rte moodycamel urcu mutex faa null; do \
	  echo "== LeakSanitizer numaring-bench --queue $$q"; \
	  ASAN_OPTIONS=detect_leaks=1 build/asan/numaring-bench --queue $$q --producers 2 \
	    --consumers 2 --duration 0.3 --warmup 0 --out build/asan/leaks/$$q --quiet; done
	@echo "test-leaks: no leak reported"

# Hours of mixed load with --verify and flat memory (not in CI):
#   make soak DURATION=3h [SEGMENT=60]
DURATION ?= 10m
SEGMENT  ?= 60
.PHONY: soak
soak: deps-build
	@$(MAKE) --no-print-directory lib bench
	$(PYTHON) scripts/soak.py --duration $(DURATION) --segment $(SEGMENT) --bench $(B)/numaring-bench \
		--log $(B)/soak.log

# The ring's tests with threads yielding at the fault points (nr_backoff.h).
test-fault: deps-test
	@NUMARING_STRESS_SCALE=0.3 $(MAKE) --no-print-directory B=build/fault CFLAGS="-DNR_FAULT_INJECT" test-ring

# The ring's own micro-benchmark times the raw look-ups (ring/src/nr_lookup.h).
$(B)/bench/bench_ring: ring/bench/bench_ring.c $(B)/libnumaring.a $(RING_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) -Iring/src $< -o $@ $(B)/libnumaring.a $(LDFLAGS_) $(RING_LIBS) -lm

# Every queue at 1P1C, single operations and bursts of 32, in one go.
# The side benchmarks also write results/<host>/bench/<name>.csv + .meta.json
# (RESULTS=DIR instead of results/; scripts/benchresult.py).
bench-peers: deps-build
	@$(MAKE) --no-print-directory lib bench $(B)/bench/bare_loop
	/usr/bin/python3 scripts/bench_peers.py --bench $(B)/numaring-bench --bare $(B)/bench/bare_loop \
		$(if $(RESULTS),--results $(RESULTS))

$(B)/bench/bench_oversub: ring/bench/bench_oversub.c $(B)/libnumaring.a $(RING_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) $< -o $@ $(B)/libnumaring.a $(LDFLAGS_) $(RING_LIBS)

# 3 producers + 3 consumers on 2 CPUs, every lookup x gate x backoff:
# no combination may collapse (items/s against the per-worker gate).
bench-oversub: deps-build
	@$(MAKE) --no-print-directory bench $(B)/bench/bench_oversub
	/usr/bin/python3 scripts/benchresult.py oversub --bin $(B)/bench/bench_oversub \
		--bench $(B)/numaring-bench $(if $(QUICK),--quick) $(if $(RESULTS),--results $(RESULTS))

bench-ring: deps-build
	@$(MAKE) --no-print-directory $(B)/bench/bench_ring
	$(B)/bench/bench_ring

# How the ring's speed depends on where its cells lie (flat ring alone, bare
# loop, bursts of 32, cells at 0..896 bytes past a page boundary).
bench-placement: deps-build
	@$(MAKE) --no-print-directory lib bench $(B)/bench/bare_loop
	/usr/bin/python3 scripts/bench_placement.py --bare $(B)/bench/bare_loop \
		--bench $(B)/numaring-bench $(if $(RESULTS),--results $(RESULTS))

# The reference of bench-fidelity: a bare pinned 1P1C loop, no harness code.
$(B)/bench/bare_loop: harness/fidelity/bare_loop.c $(B)/libnumaring.so $(wildcard ring/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) $(PEER_RTE_CFLAGS) $< -o $@ $(HARNESS_LINK_RING) -Wl,-rpath,'$$ORIGIN/..' \
		$(LDFLAGS_) -lrte_ring -lm

# How close numaring-bench comes to a bare loop of the same queue (flat,
# numaring, rte; single operations and bursts of 32), interleaved rounds.
bench-fidelity: deps-build
	@$(MAKE) --no-print-directory lib bench $(B)/bench/bare_loop
	/usr/bin/python3 scripts/bench_fidelity.py --bench $(B)/numaring-bench --bare $(B)/bench/bare_loop \
		$(if $(RESULTS),--results $(RESULTS))

build/numaring.pc: ring/numaring.pc.in Makefile
	@mkdir -p build
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCDIR@|$(INCDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' $< > $@

install: lib build/numaring.pc
	install -d $(DESTDIR)$(INCDIR) $(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 644 ring/numaring.h ring/numaring_lab.h ring/numaring_topology.h $(DESTDIR)$(INCDIR)/
	install -m 644 $(B)/libnumaring.a $(DESTDIR)$(LIBDIR)/libnumaring.a
	install -m 755 $(B)/libnumaring.so $(DESTDIR)$(LIBDIR)/libnumaring.so.$(VERSION)
	ln -sf libnumaring.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libnumaring.so
	install -m 644 build/numaring.pc $(DESTDIR)$(LIBDIR)/pkgconfig/numaring.pc

uninstall:
	rm -f $(DESTDIR)$(INCDIR)/numaring.h $(DESTDIR)$(INCDIR)/numaring_lab.h \
	      $(DESTDIR)$(INCDIR)/numaring_topology.h $(DESTDIR)$(LIBDIR)/libnumaring.a \
	      $(DESTDIR)$(LIBDIR)/libnumaring.so* $(DESTDIR)$(LIBDIR)/pkgconfig/numaring.pc

clean:
	rm -rf build

# ---- the QEMU NUMA guest: make vm-test ----------------------------------------
include scripts/vm.mk

# ---- fuzzing (make fuzz, fuzz-regress) and the spin model (make model-check) --
include scripts/fuzz.mk
include scripts/model.mk
