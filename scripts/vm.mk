# SPDX-License-Identifier: BSD-2-Clause
# scripts/vm.mk - `make vm-test`: the ring on REAL NUMA nodes, in QEMU guests
# (TCG) booted by scripts/vm/numa_vm.py. Included by the top-level Makefile (it
# uses B, CC, CFLAGS_, LDFLAGS_, RING_LIBS, RING_HDRS and the targets lib,
# bench and $(B)/tests/test_*).
#
#   make vm-test           every case below, then a summary; fails if any fails
#   make vm-2x2            one case: 2 nodes x 2 CPUs, distance 21
#   make vm-asym4          3 nodes x 2 CPUs, asymmetric distances, + 1 memory-only node
#   make vm-memless        2 nodes x 2 CPUs + 1 node with 2 CPUs and no memory
#   make vm-qmem           2 nodes x 2 CPUs: numaring-bench --queue-mem, every queue under
#                          every policy, its pages where the policy says
#                          (scripts/vm-guest-qmem.sh)
#   make vm-negative       a deliberately wrong expectation: passes only if the guest run FAILS
#   make vm-run VM_ARGS='--nodes 4 --cpus-per-node 1' [VM_CMD='...']   any topology, by hand
#   make vm-kernel         download and cache Debian's kernel only
#   make vm-experiments    2 nodes x 8 CPUs: scripts/runner/experiments.py run (smoke profile) on
#                          the guest's real nodes, then summaries, plots and the paper
#                          from its results in VMX_DIR (scripts/vm/vm_experiments.py)
#
# Variables: VM_TIMEOUT (s per guest, default 300), VM_STRESS_SCALE (test_stress
# in the guest, default 0.05), VM_WRONG=1 (flip one expectation in every case:
# vm-test must then fail), VM_DIR (kernel cache, initramfs, console logs;
# default $(B)/vm), VM_PYTHON (default /usr/bin/python3), VMX_DIR (make
# vm-experiments' output, replaced whole; default $(B)/vm-experiments),
# VMX_TIMEOUT (s for its guest, default 1200), VM_QMEM_TIMEOUT (s for
# vm-qmem's guest, which runs numaring-bench some 70 times: default 900).
#
# Each case boots a guest, checks that `numaring-bench --show-topology`
# reports the topology asked for (real, nodes, CPUs, distances, memory nodes,
# rseq node_id), then runs scripts/vm-guest-tests.sh there: test_ring,
# test_placement, test_stress and test_vm_routing; vm-qmem runs
# scripts/vm-guest-qmem.sh instead. Timings inside the guest mean nothing
# and are never reported.

ifndef NUMARING_VM_MK
NUMARING_VM_MK := 1

VM_PYTHON       ?= /usr/bin/python3
VM_DIR          ?= $(B)/vm
VM_TIMEOUT      ?= 300
VM_STRESS_SCALE ?= 0.05
VM_QMEM_TIMEOUT ?= 900
VM_WRONG        ?=
VM_ARGS         ?=
VM_CMD          ?= sh scripts/vm-guest-tests.sh --bin $(B)

VM_BINS := $(B)/numaring-bench $(B)/tests/test_ring $(B)/tests/test_placement \
	$(B)/tests/test_stress $(B)/tests/test_vm_routing

NUMA_VM  := $(VM_PYTHON) -m scripts.vm.numa_vm --workdir $(VM_DIR) --timeout $(VM_TIMEOUT)
VM_GUEST := $(NUMA_VM) $(addprefix --file ,$(VM_BINS)) --check-topology $(B)/numaring-bench \
	--env NUMARING_STRESS_SCALE=$(VM_STRESS_SCALE) \
	$(if $(filter-out 0,$(VM_WRONG)),--env NUMARING_VM_WRONG=1)
VM_TESTS := sh scripts/vm-guest-tests.sh --bin $(B)

# The topologies. Distances are row by row (row = from); nodes in the order
# of the options: --nodes first, then --cpu-only-node, then --memory-only-node.
VM_TOPO_2x2     := --nodes 2 --cpus-per-node 2 --distance 10,21,21,10
# From node 0 the nearest is node 2 (16), not node 1 (22) which the tie-break
# order would try first; node 3 has memory only; 1->0 and 0->1 differ.
VM_TOPO_asym4   := --nodes 3 --cpus-per-node 2 --memory-only-node \
	--distance 10,22,16,28,20,10,16,14,18,16,10,22,28,14,22,10
# Node 2 has CPUs and no memory: its ring goes to node 1 (17), not node 0 (24).
VM_TOPO_memless := --nodes 2 --cpus-per-node 2 --cpu-only-node \
	--distance 10,21,24,21,10,17,24,17,10

VM_RUN_2x2     = $(VM_GUEST) --name 2x2 $(VM_TOPO_2x2) -- $(VM_TESTS)
VM_RUN_asym4   = $(VM_GUEST) --name asym4 $(VM_TOPO_asym4) -- \
	$(VM_TESTS) --require steals_from_the_nearest_node
VM_RUN_memless = $(VM_GUEST) --name memless $(VM_TOPO_memless) -- \
	$(VM_TESTS) --require steals_from_the_nearest_node
# --queue-mem on real nodes: its own guest, the last --timeout the one it takes
VM_RUN_qmem    = $(VM_GUEST) --name qmem --timeout $(VM_QMEM_TIMEOUT) $(VM_TOPO_2x2) -- \
	sh scripts/vm-guest-qmem.sh --bin $(B)
# The guest path must be able to fail: NUMARING_VM_WRONG=1 makes test_vm_routing
# expect ring 0 for a CPU of node 1. Passes only if the test ran to its end in
# the guest, failed, and failed for that reason.
VM_RUN_negative = ( $(NUMA_VM) --name negative --quiet --expect-fail \
	--env NUMARING_VM_WRONG=1 --output $(VM_DIR)/negative.out $(VM_TOPO_2x2) \
	-- $(B)/tests/test_vm_routing && \
	grep 'deliberately wrong' $(VM_DIR)/negative.out && \
	grep -F '[  FAILED  ] routes_to_the_cpus_node' $(VM_DIR)/negative.out >/dev/null || \
	{ echo "vm-negative: the deliberately wrong expectation did not fail the guest run as it must" \
	  "(output: $(VM_DIR)/negative.out)"; exit 1; } )

VM_CASES := 2x2 asym4 memless qmem negative

VMX_DIR     ?= $(B)/vm-experiments
# the guest's smoke sweep under TCG: about 15 min on an idle 2-CPU host, and
# past 20 when the host is busy with other work (a CI step beside it)
VMX_TIMEOUT ?= 1800

.PHONY: vm-test vm-deps vm-kernel vm-run vm-experiments $(addprefix vm-,$(VM_CASES))

# Built like the ring's other tests (the pattern rule would do the same).
$(B)/tests/test_vm_routing: ring/tests/test_vm_routing.c ring/tests/nr_test.h $(B)/test/libnumaring.a $(RING_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) -Iring/src -Iring/tests -DNR_TEST_HOOKS $< -o $@ $(B)/test/libnumaring.a $(LDFLAGS_) $(RING_LIBS) -lcmocka

# Debian packages: the build's (libnuma, hwloc, the peers' for numaring-bench),
# cmocka for the tests, and qemu-system-x86 busybox-static cpio for the guest.
vm-deps:
	@scripts/deps.sh build peers test vm

vm-kernel: vm-deps
	@$(NUMA_VM) --fetch-kernel

vm-test: vm-deps
	@$(MAKE) --no-print-directory lib bench $(VM_BINS)
	@start=$$(date +%s); failed=""; \
	echo "== vm-2x2"; $(VM_RUN_2x2) || failed="$$failed vm-2x2"; \
	echo "== vm-asym4"; $(VM_RUN_asym4) || failed="$$failed vm-asym4"; \
	echo "== vm-memless"; $(VM_RUN_memless) || failed="$$failed vm-memless"; \
	echo "== vm-qmem"; $(VM_RUN_qmem) || failed="$$failed vm-qmem"; \
	echo "== vm-negative"; $(VM_RUN_negative) || failed="$$failed vm-negative"; \
	took=$$(( $$(date +%s) - start )); \
	if [ -n "$$failed" ]; then \
		echo "vm-test: FAILED:$$failed ($$took s; console logs under $(VM_DIR)/)"; exit 1; \
	fi; \
	echo "vm-test: all $(words $(VM_CASES)) cases passed ($$took s in the guests)"

$(addprefix vm-,$(VM_CASES)): vm-%: vm-deps
	@$(MAKE) --no-print-directory lib bench $(VM_BINS)
	@$(VM_RUN_$*)

# The runner's path of a two-socket host in a guest of 2 nodes x 8 CPUs (TCG:
# timings meaningless), then summaries, plots and paper from its results.
vm-experiments: vm-deps deps-experiments deps-paper
	@$(MAKE) --no-print-directory lib bench $(B)/bench/bench_ring
	@$(VM_PYTHON) -m scripts.vm.vm_experiments --out $(VMX_DIR) --workdir $(VM_DIR) \
		--timeout $(VMX_TIMEOUT) --bench $(B)/numaring-bench

vm-run: vm-deps
	@$(MAKE) --no-print-directory lib bench $(VM_BINS)
	@$(VM_GUEST) --name run $(VM_ARGS) -- $(VM_CMD)

endif
