#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# vm-guest-qmem.sh [--bin DIR] - numaring-bench --queue-mem INSIDE the numa-vm
# guest (make vm-qmem, one case of make vm-test), on its 2 real nodes.
#
# Every queue of the manifest (not the test-only ones) runs under every
# policy with the producers on node 0 and the consumers on node 1 (--pin
# split), and the pages the run counted (summary.csv's queue_pages) must be
# where the policy says, at least 95% of them:
#   producers, node:0  node 0      consumers, node:1  node 1
#   interleave         nodes 0 and 1, and both hold some when 4 or more are counted
#   first-touch        anywhere: the run must count pages, nothing more
# A queue that places its rings per node itself (the manifest's memory
# "per-node": numaring, sharded) keeps them there whatever the policy: its
# record must say it was not placed, and both nodes must hold its pages.
# NUMARING_VM_WRONG=1 flips one expectation (node:0 expected on node 1): the
# case must then fail, as make vm-test VM_WRONG=1 checks of every case.
# Exits 0 if every check passed, 1 otherwise, naming each that failed.
# Timings inside the guest mean nothing: none is printed.
set -eu

B=build
while [ $# -gt 0 ]; do
	case "$1" in
	--bin) B=$2; shift 2 ;;
	*) echo "vm-guest-qmem.sh: unknown argument '$1' (expected --bin DIR)" >&2; exit 2 ;;
	esac
done
bench=$B/numaring-bench
out=${TMPDIR:-/tmp}/vm-guest-qmem.$$
mkdir -p "$out" || { echo "vm-guest-qmem.sh: cannot create $out" >&2; exit 1; }
failed=""
checked=0

# The guest must be what the expectations assume: two real nodes.
topo=$("$bench" --show-topology) || { echo "vm-guest-qmem.sh: $bench --show-topology failed"; exit 1; }
if ! echo "$topo" | grep -q '"topology": "real"' ||
	[ "$(echo "$topo" | grep -c '"index": ')" != 2 ]; then
	echo "vm-guest-qmem.sh: this guest does not have 2 real nodes:"
	echo "$topo"
	exit 1
fi

# "name:kind:item" of each queue: its manifest object's name, its memory
# kind and the first item kind it takes (xenium's pointer queues: message)
queues=$("$bench" --manifest | awk -F'"' '
	/^    \{"name": / { name = $4; test = 0 }
	/"test_only": true/ { test = 1 }
	/^     "memory": / { kind = $4 }
	/^     "items": / { if (!test) print name ":" kind ":" $4 }')
[ -n "$queues" ] || { echo "vm-guest-qmem.sh: no queue in $bench --manifest"; exit 1; }

# column DIR NAME: summary.csv's cell (no cell of these runs holds a comma)
column() {
	awk -F, -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i }
		NR == 2 && k { print $k }' "$1/summary.csv"
}

# on PAGES NODES: "pages on the nodes (comma-separated) total nodes-with-pages"
on() {
	echo "$1" | awk -F';' -v want=",$2," '{
		for (i = 1; i <= NF; i++) {
			split($i, a, ":")
			t += a[2]
			if (a[2] > 0) n++
			if (index(want, "," a[1] ",")) w += a[2]
		} } END { print w + 0, t + 0, n + 0 }'
}

fail() {
	echo "FAILED: $*"
	failed="$failed
  $*"
}

for entry in $queues; do
	q=${entry%%:*}
	rest=${entry#*:}
	kind=${rest%%:*}
	item=${rest#*:}
	for policy in first-touch producers consumers interleave node:0 node:1; do
		dir=$out/$q-$(echo "$policy" | tr : -)
		want=
		case $policy in
		producers|node:0) want=0 ;;
		consumers|node:1) want=1 ;;
		interleave) want=0,1 ;;
		esac
		if [ "$policy" = node:0 ] && [ "${NUMARING_VM_WRONG:-0}" = 1 ]; then
			want=1
			echo "NUMARING_VM_WRONG=1: expecting node:0's pages on node 1 (deliberately wrong)"
		fi
		rc=0
		"$bench" --queue "$q" --item "$item" --queue-mem "$policy" --pin split --capacity 4096 \
			--duration 0.05 --warmup 0 --calibrate 0 --quiet --out "$dir" \
			> "$dir.log" 2>&1 || rc=$?
		if [ "$rc" != 0 ]; then
			fail "$q --queue-mem $policy: exit status $rc ($(cat "$dir.log"))"
			continue
		fi
		checked=$((checked + 1))
		asked=$(column "$dir" queue_mem)
		pages=$(column "$dir" queue_pages)
		echo "$q --queue-mem $policy: queue_mem $asked, queue_pages $pages"
		[ "$asked" = "$policy" ] || fail "$q --queue-mem $policy: queue_mem says '$asked'"
		set -- $(on "$pages" "${want:-0,1}")
		w=$1 total=$2 nodes=$3
		if [ "$total" -le 0 ]; then
			fail "$q --queue-mem $policy: no page counted ('$pages')"
			continue
		fi
		if [ "$kind" = per-node ]; then
			grep -q '"placed": false' "$dir/meta.json" ||
				fail "$q --queue-mem $policy: its own rings, yet meta.json does not say placed false"
			[ "$nodes" = 2 ] ||
				fail "$q --queue-mem $policy: a ring per node, yet pages on $nodes node(s) ('$pages')"
			continue
		fi
		[ -n "$want" ] || continue
		grep -q '"placed": true' "$dir/meta.json" ||
			fail "$q --queue-mem $policy: meta.json does not say placed true"
		[ $((w * 100)) -ge $((total * 95)) ] ||
			fail "$q --queue-mem $policy: $w of $total pages on node(s) $want ('$pages')"
		if [ "$policy" = interleave ] && [ "$total" -ge 4 ] && [ "$nodes" != 2 ]; then
			fail "$q --queue-mem interleave: $total pages, all on one node ('$pages')"
		fi
	done
done

if [ -n "$failed" ]; then
	echo "vm-guest-qmem.sh: FAILED ($checked runs checked):$failed"
	exit 1
fi
echo "vm-guest-qmem.sh: all passed ($checked runs: every queue under every --queue-mem policy)"
exit 0
