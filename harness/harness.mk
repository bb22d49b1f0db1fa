# SPDX-License-Identifier: BSD-2-Clause
# The harness: build/numaring-bench, its tests, the bare loop of bench-fidelity.
# Included by the top-level Makefile after ring/ring.mk.

include harness/peers/peers.mk

# The probe (numaring-bench --probe): one file per measurement, probe_pvt.h;
# pingpong.c is its line ping-pong, which each run also times its CPUs with.
PROBE_SRCS := harness/probe.c harness/probe_common.c harness/probe_c2c.c harness/probe_lookup.c \
	harness/probe_pause.c harness/probe_faa.c harness/probe_bw.c harness/probe_stream.c \
	harness/probe_likwid.c harness/probe_handover.c harness/pingpong.c
PROBE_OBJS = $(PROBE_SRCS:%.c=$(B)/obj/%.o)

HARNESS_SRCS := harness/bench.c harness/run.c harness/workers.c harness/loops.c harness/workload.c harness/placement.c harness/report.c \
	harness/options.c harness/output.c harness/clock.c harness/hdr.c $(PROBE_SRCS) \
	harness/counters.c harness/item_sum.c harness/manifest.c harness/errors.c harness/qmem.c \
	$(PEER_C_SRCS)
HARNESS_HDRS := $(wildcard harness/*.h harness/peers/*.h harness/peers/*.hpp) $(wildcard ring/*.h) $(B)/version.h
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
	$(CC) $(CFLAGS_) $(HARNESS_CFLAGS) $(if $(filter harness/peers/rte.c harness/loops.c,$<),$(PEER_RTE_CFLAGS)) -c $< -o $@

$(B)/obj/harness/%.cpp.o: harness/%.cpp $(HARNESS_HDRS)
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 $(OPT) -g -Wall -Wextra -fPIC $(SANFLAGS) -Iring $(HARNESS_CFLAGS) -c $< -o $@

# The harness uses the library's public headers only (ring/*.h, the lab's
# included) and links the shared library as a user's program does; it finds
# it next to itself ($$ORIGIN), wherever build/ is. libnuma and hwloc are
# the harness's own (placement, probe).
HARNESS_LINK_RING := $(NUMARING_LAB_LINK) -lnuma -lhwloc
$(B)/numaring-bench: $(HARNESS_OBJS) $(NUMARING_LAB_SO)
	$(CXX) -o $@ $(HARNESS_OBJS) $(HARNESS_LINK_RING) -Wl,-rpath,'$$ORIGIN' $(LDFLAGS_) $(PEER_LIBS) -lm $(LIKWID_LIBS)

# likwid's marker region "window" around the measured window
# (harness/counters.c), for `python3 -m scripts.runner.experiments run --likwid` (make
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
	$(B)/tests/test_pin $(B)/tests/test_take

$(B)/tests/test_hdr: harness/tests/test_hdr.c harness/hdr.c harness/hdr.h harness/hgrm.c harness/hgrm.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) -Iharness $< harness/hdr.c harness/hgrm.c -o $@ $(LDFLAGS_) -lcmocka -lm

$(B)/tests/test_probe: harness/tests/test_probe.c $(PROBE_OBJS) $(B)/obj/harness/clock.o \
		$(B)/obj/harness/errors.o $(NUMARING_LAB_SO)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) $(HARNESS_CFLAGS) $< $(PROBE_OBJS) $(B)/obj/harness/clock.o \
		$(B)/obj/harness/errors.o -o $@ \
		$(HARNESS_LINK_RING) -Wl,-rpath,'$$ORIGIN/..' $(LDFLAGS_) -lnuma -lcmocka -lm

# The adapters word their errors with errors.c and take their memory from
# qmem.c (peers/hq_mem.h): both travel with them.
PEER_OBJS := $(PEER_C_SRCS:%.c=$(B)/obj/%.o) $(PEER_CXX_SRCS:%.cpp=$(B)/obj/%.cpp.o) \
	$(B)/obj/harness/errors.o $(B)/obj/harness/qmem.o

# SCQ's mutants: harness/peers/scq.c built again with one bug put in
# (-DSCQ_MUTATION=k, its symbols suffixed _m<k>; scq.c's comment lists them),
# linked into test_peers only, whose scq/mutant-* tests must see each fail.
# make test builds and runs them with test_peers (test-harness); never in
# numaring-bench.
SCQ_MUTANTS := 1 2
SCQ_MUTANT_OBJS := $(SCQ_MUTANTS:%=$(B)/obj/harness/peers/scq_m%.o)
$(B)/obj/harness/peers/scq_m%.o: harness/peers/scq.c $(HARNESS_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) $(HARNESS_CFLAGS) -DSCQ_MUTATION=$* -c $< -o $@

# LCRQ's mutants, the same way (-DLCRQ_MUTATION=k; lcrq.c's comment lists
# them), for test_peers' lcrq/mutant-* tests.
LCRQ_MUTANTS := 1 2 3
LCRQ_MUTANT_OBJS := $(LCRQ_MUTANTS:%=$(B)/obj/harness/peers/lcrq_m%.o)
$(B)/obj/harness/peers/lcrq_m%.o: harness/peers/lcrq.c $(HARNESS_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) $(HARNESS_CFLAGS) -DLCRQ_MUTATION=$* -c $< -o $@

$(B)/tests/test_peers: harness/tests/test_peers.c $(PEER_OBJS) $(SCQ_MUTANT_OBJS) $(LCRQ_MUTANT_OBJS) \
		$(B)/obj/harness/clock.o $(B)/obj/harness/item_sum.o $(NUMARING_LAB_SO)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) $(HARNESS_CFLAGS) -c $< -o $@.o
	$(CXX) -o $@ $@.o $(PEER_OBJS) $(SCQ_MUTANT_OBJS) $(LCRQ_MUTANT_OBJS) $(B)/obj/harness/clock.o $(B)/obj/harness/item_sum.o $(HARNESS_LINK_RING) -Wl,-rpath,'$$ORIGIN/..' $(LDFLAGS_) \
		$(PEER_LIBS) -lcmocka -lm

$(B)/tests/test_bench: harness/tests/test_bench.c $(B)/obj/harness/hgrm.o $(B)/obj/harness/clock.o \
		$(PEER_OBJS) $(NUMARING_LAB_SO)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) $(HARNESS_CFLAGS) -c $< -o $@.o
	$(CXX) -o $@ $@.o $(B)/obj/harness/hgrm.o $(B)/obj/harness/clock.o $(PEER_OBJS) $(HARNESS_LINK_RING) -Wl,-rpath,'$$ORIGIN/..' $(LDFLAGS_) \
		$(PEER_LIBS) -lcmocka -lm

# A consumer's account of single items through its open run in registers
# against take() item by item (workers_pvt.h's inline steps, no queue).
$(B)/tests/test_take: harness/tests/test_take.c $(HARNESS_HDRS) $(B)/obj/harness/clock.o \
		$(B)/obj/harness/hdr.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) $(HARNESS_CFLAGS) $< $(B)/obj/harness/clock.o $(B)/obj/harness/hdr.o -o $@ \
		$(LDFLAGS_) -lcmocka -lm

# The thread placement on synthetic hosts (2 sockets x 16 cores x 2 hyperthreads).
$(B)/tests/test_pin: harness/tests/test_pin.c $(B)/obj/harness/placement.o $(B)/obj/harness/options.o \
		$(B)/obj/harness/clock.o $(B)/obj/harness/item_sum.o $(PEER_OBJS) $(NUMARING_LAB_SO)
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

# make test-slow's share of the harness tests: test_bench's longest runs (every
# queue in the oversubscribed shapes, the faults in pairs and mixed).
test-harness-slow: $(B)/tests/test_bench $(B)/numaring-bench
	@echo "== $(B)/tests/test_bench --slow"
	@NUMARING_BENCH=$(B)/numaring-bench $(B)/tests/test_bench --slow


# The reference of bench-fidelity: a bare pinned 1P1C loop, no harness code.
# xenium's vyukov_bounded_queue (--queue xenium-vyukov, flat's algorithm in
# another library) comes in through a C++ shim: -lstdc++.
# --hand-over times its first two CPUs' line trip as numaring-bench's runs do:
# pingpong.c and the clock it reads.
$(B)/bench/bare_loop: harness/fidelity/bare_loop.c harness/relax.h harness/errors.h \
		harness/clock.h harness/pingpong.h \
		harness/fidelity/xenium_vyukov.h $(B)/obj/harness/fidelity/xenium_vyukov.cpp.o \
		$(B)/obj/harness/errors.o $(B)/obj/harness/clock.o $(B)/obj/harness/pingpong.o \
		$(NUMARING_LAB_SO) $(wildcard ring/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) -Iharness $(PEER_RTE_CFLAGS) $< $(B)/obj/harness/errors.o \
		$(B)/obj/harness/clock.o $(B)/obj/harness/pingpong.o \
		$(B)/obj/harness/fidelity/xenium_vyukov.cpp.o -o $@ $(HARNESS_LINK_RING) -Wl,-rpath,'$$ORIGIN/..' \
		$(LDFLAGS_) -lrte_ring -lstdc++ -lm

$(B)/obj/harness/fidelity/xenium_vyukov.cpp.o: harness/fidelity/xenium_vyukov.h

# How close numaring-bench comes to a bare loop of the same queue (flat,
