#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# vm-guest-tests.sh [--bin DIR] [--require TEST]... - the ring's tests, run
# INSIDE the numa-vm guest (scripts/vm/numa_vm.py, make vm-test), on real nodes.
#
# Runs test_ring, test_placement, test_stress (NUMARING_STRESS_SCALE, default
# 0.05: TCG is slow) and test_vm_routing from DIR/tests (default build), and
# then checks that the cmocka tests that must PASS here did pass rather than
# skip: ring_memory_on_its_node and test_vm_routing's routing, migration and
# cross-node cases always, plus every TEST named with --require (for example
# steals_from_the_nearest_node, which needs 3 nodes with CPUs).
# Exits 0 if everything passed, 1 otherwise, naming what failed.
# Timings inside the guest mean nothing: none is printed as a result.
set -eu

B=build
require="ring_memory_on_its_node memory_nodes_are_own_or_nearest routes_to_the_cpus_node follows_a_migration cross_node_batches"
while [ $# -gt 0 ]; do
	case "$1" in
	--bin) B=$2; shift 2 ;;
	--require) require="$require $2"; shift 2 ;;
	*) echo "vm-guest-tests.sh: unknown argument '$1' (expected --bin DIR or --require TEST)" >&2; exit 2 ;;
	esac
done
NUMARING_STRESS_SCALE=${NUMARING_STRESS_SCALE:-0.05}
export NUMARING_STRESS_SCALE
out=${TMPDIR:-/tmp}/vm-guest-tests.$$
mkdir -p "$out" || { echo "vm-guest-tests.sh: cannot create $out" >&2; exit 1; }
failed=""

# run NAME COMMAND...: stream its output, keep a copy, note its status.
run() {
	name=$1
	shift
	echo "== $name ($*)"
	if [ "$name" = test_stress ]; then echo "NUMARING_STRESS_SCALE=$NUMARING_STRESS_SCALE"; fi
	if [ ! -x "$1" ]; then
		echo "vm-guest-tests.sh: $1 is missing from the guest (not built, or not passed with --file)"
		failed="$failed $name(missing)"
		return
	fi
	{ "$@" 2>&1; echo $? > "$out/$name.rc"; } | tee "$out/$name.out"
	rc=$(cat "$out/$name.rc")
	[ "$rc" = 0 ] || failed="$failed $name(status $rc)"
}

run test_ring "$B/tests/test_ring"
run test_placement "$B/tests/test_placement"
run test_stress "$B/tests/test_stress"
run test_vm_routing "$B/tests/test_vm_routing"

for t in $require; do
	if ! cat "$out"/*.out 2>/dev/null | grep -q "^\[       OK \] $t\$"; then
		failed="$failed $t(did not pass: skipped or not run)"
	fi
done

if [ -n "$failed" ]; then
	echo "vm-guest-tests.sh: FAILED:$failed"
	exit 1
fi
echo "vm-guest-tests.sh: all passed (required to pass, not skip: $require)"
exit 0
