# SPDX-License-Identifier: BSD-2-Clause
# NumaRing - every entry point of the artifact.
#
#   make              build/libnumaring.a and .so (+ its SONAME links), the production
#                     queue, and build/libnumaring_lab.a and .so, the ablations (ring/ring.mk),
#                     after checking their packages with pkg-config;  make bench: the harness
#   make experiments  every experiment, sized to this machine, then the plots and
#                     the reproduction report (results/<host>/claims.csv)
#   make report       HOSTS="a b": the hosts' claims side by side
#   make pack-results each experiment's loose runs into <experiment>/<profile>.tar.xz
#   make plan         the plan and estimate of make experiments (ARGS="--cores 32 --nodes 2 ...")
#   make readme       every generated block of README.md and docs/ (CHECK=1: only check)
#   make check-experiments, claims-list, ceiling-check HOST=results/<host>
#   make test         the test suite (installs/checks its Debian packages first)
#   make test-slow    the slow tests make test leaves out: the runner's sweeps, every
#                     figure drawn, the pipeline on synthetic hosts (docs/testing.md)
#   make test-tsan    the ring's and the peer adapters' tests and every queue's worker loops under ThreadSanitizer
#   make test-asan    the ring's tests and every queue's worker loops under AddressSanitizer + UBSan
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
#   make bench-backoff  numaring's backoffs against none in pairs, mixed and prodcons (10 rounds)
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

.PHONY: all lib bench test test-slow test-ring test-harness test-harness-slow test-tsan test-asan test-fault test-leaks bench-ring bench-peers bench-oversub \
	bench-fidelity bench-placement bench-backoff \
	install uninstall clean deps-build deps-test FORCE

# `make` builds the library alone; `make bench` the harness.
all: lib

deps-build:
	@scripts/deps.sh build peers
deps-test:
	@scripts/deps.sh build peers test

# ---- the library, the harness, the scripts' targets --------------------------
include ring/ring.mk
include harness/harness.mk
include scripts/experiments.mk


# The builds of make test use every CPU (the tests themselves run one suite
# at a time: they start threads of their own)
BUILD_JOBS ?= $(shell nproc 2>/dev/null || echo 1)

test: deps-test
	@scripts/deps.sh experiments
	@$(MAKE) --no-print-directory -j$(BUILD_JOBS) lib bench test-bins
	@$(MAKE) --no-print-directory test-ring
	@$(MAKE) --no-print-directory test-harness
	@$(MAKE) --no-print-directory test-scripts
	@$(MAKE) --no-print-directory fuzz-regress

# What make test leaves out to stay within minutes (docs/testing.md): the
# harness's longest runs (test_bench --slow) and the scripts' tests marked
# @slow. CI runs it right after make test.
test-slow: deps-test
	@scripts/deps.sh experiments
	@$(MAKE) --no-print-directory -j$(BUILD_JOBS) lib bench $(B)/tests/test_bench $(B)/bench/bare_loop
	@$(MAKE) --no-print-directory test-harness-slow
	@$(MAKE) --no-print-directory test-scripts-slow

# The ring's tests, then every peer adapter's (harness/tests/test_peers: the
# C peers, the C++ shims) under ThreadSanitizer; harness/tsan.supp names each
# peer library whose synchronisation TSan cannot see, with the reason.
# Both also run every queue's worker loops (scripts/worker-loops.sh: each
# queue, item kind and workload once, through numaring-bench built with the
# sanitizer), not only the unit tests.
test-tsan: deps-test
	@$(MAKE) --no-print-directory B=build/tsan SAN=thread test-ring
	@$(MAKE) --no-print-directory B=build/tsan SAN=thread build/tsan/tests/test_peers \
		build/tsan/numaring-bench
	TSAN_OPTIONS="suppressions=harness/tsan.supp halt_on_error=1" build/tsan/tests/test_peers
	@rm -rf build/tsan/loops
	TSAN_OPTIONS="suppressions=harness/tsan.supp halt_on_error=1" \
		scripts/worker-loops.sh build/tsan/numaring-bench build/tsan/loops test-tsan

test-asan: deps-test
	@$(MAKE) --no-print-directory B=build/asan SAN=address test-ring
	@$(MAKE) --no-print-directory B=build/asan SAN=address build/asan/numaring-bench \
		build/asan/tests/test_take
	UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1" build/asan/tests/test_take
	@rm -rf build/asan/loops
	ASAN_OPTIONS="detect_leaks=1 halt_on_error=1" UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1" \
		scripts/worker-loops.sh build/asan/numaring-bench build/asan/loops test-asan

# No leak: valgrind memcheck over the ring's unit tests (create/attach/detach/
# destroy cycles, allocation failures) and over a full harness run of every
# queue; LeakSanitizer over the same harness runs in the ASan build. Valgrind runs
# one thread at a time: --fair-sched=yes hands the CPU round, or a thread that
# never waits (the null queue's consumers) starves the others.
# The queues are the harness's own list (numaring-bench --manifest), so a queue
# added there is leak-checked without an edit here; the test-only ones
# (fault-*) are left out, since they break their runs on purpose. An empty
# list fails: a loop over nothing would report "no leak" having run nothing.
# Each queue runs with the first item kind it takes (its manifest's items):
# numaring-bench's default, inline, where it takes it; message for xenium's
# queues of pointers, which refuse inline items. The list is QUEUE=ITEM words.
LEAK_QUEUES := python3 -c 'import json, sys; q = [e["name"] + "=" + e["items"][0] for e in json.load(sys.stdin)["queues"] if not e["test_only"]]; print(" ".join(q)) if q else sys.exit("test-leaks: numaring-bench --manifest lists no queue")'
VALGRIND := valgrind -q --fair-sched=yes --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=9
test-leaks: deps-test
	@$(MAKE) --no-print-directory lib bench $(B)/tests/test_ring
	$(VALGRIND) $(B)/tests/test_ring
	@mkdir -p $(B)/leaks
	@$(B)/numaring-bench --manifest > $(B)/leaks/manifest.json
	@$(LEAK_QUEUES) < $(B)/leaks/manifest.json > $(B)/leaks/queues.txt
	@echo "test-leaks: the queues of $(B)/numaring-bench --manifest: $$(cat $(B)/leaks/queues.txt)"
	@set -e; for qi in $$(cat $(B)/leaks/queues.txt); do q=$${qi%%=*}; i=$${qi#*=}; \
	  echo "== valgrind numaring-bench --queue $$q --item $$i"; \
	  $(VALGRIND) $(B)/numaring-bench --queue $$q --item $$i --producers 2 --consumers 2 --duration 0.3 \
	    --warmup 0 --out $(B)/leaks/$$q --quiet; done
	@$(MAKE) --no-print-directory B=build/asan SAN=address build/asan/numaring-bench
	@set -e; for qi in $$(cat $(B)/leaks/queues.txt); do q=$${qi%%=*}; i=$${qi#*=}; \
	  echo "== LeakSanitizer numaring-bench --queue $$q --item $$i"; \
	  ASAN_OPTIONS=detect_leaks=1 build/asan/numaring-bench --queue $$q --item $$i --producers 2 \
	    --consumers 2 --duration 0.3 --warmup 0 --out build/asan/leaks/$$q --quiet; done
	@echo "test-leaks: no leak reported"

# The ring's tests with threads yielding at the fault points (nr_backoff.h).
test-fault: deps-test
	@NUMARING_STRESS_SCALE=0.3 $(MAKE) --no-print-directory B=build/fault CFLAGS="-DNR_FAULT_INJECT" test-ring

clean:
	rm -rf build

# ---- the QEMU NUMA guest: make vm-test ----------------------------------------
include scripts/vm.mk

# ---- fuzzing (make fuzz, fuzz-regress) and the spin model (make model-check) --
include scripts/fuzz.mk
include scripts/model.mk

# Every binary make test runs, built before any runs (here: after the
# includes that name them, the fuzzers' among them)
.PHONY: test-bins
test-bins: $(RING_TEST_BINS) $(B)/tests/link_check $(ABI_TEST_BINS) $(HARNESS_TEST_BINS) \
	$(B)/obj/harness/hgrm.o $(B)/bench/bare_loop $(FUZZ_BINS)
