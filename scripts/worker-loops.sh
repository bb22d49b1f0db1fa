#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# worker-loops.sh BENCH OUTDIR LABEL - every queue's worker loops, once each,
# through a numaring-bench built with a sanitizer (make test-tsan, test-asan).
#
# The sanitizer targets once ran the ring's and the harness's unit tests
# only, not the loops the sweeps run (issue 44). This runs, for every queue
# of BENCH --manifest but the test-only fault-* ones (broken on purpose) and
# every item kind it takes (inline, message), a short run of each workload:
# prodcons (2 producers + 2 consumers, single operations and bursts: the
# per-family loops of harness/loops.c), pairs and mixed (4 threads). The
# sanitizer's options come from the environment (TSAN_OPTIONS,
# ASAN_OPTIONS), with halt_on_error, so that a report fails the run; any
# failed run fails the script, naming it. The queue list is the harness's
# own, so a queue added there is covered without an edit here; an empty list
# fails (a loop over nothing would pass having run nothing).
#
# Exit status: 0 every run passed, 1 a run failed, 2 bad usage.
set -u

if [ $# -ne 3 ] || [ ! -x "$1" ]; then
	echo "usage: worker-loops.sh BENCH OUTDIR LABEL (BENCH: a built numaring-bench)" >&2
	exit 2
fi
bench=$1 out=$2 label=$3

manifest=$("$bench" --manifest)
rc=$?
if [ "$rc" -ne 0 ]; then
	echo "$label: $bench --manifest failed (exit $rc)" >&2
	exit 1
fi
list=$(printf '%s\n' "$manifest" | python3 -c '
import json, sys
q = [e["name"] + "=" + ",".join(e["items"])
     for e in json.load(sys.stdin)["queues"] if not e["test_only"]]
print(" ".join(q)) if q else sys.exit("worker-loops.sh: numaring-bench --manifest lists no queue")
') || exit 1

mkdir -p "$out" || exit 1
runs=0 failed=0
for qi in $list; do
	q=${qi%%=*}
	for item in $(echo "${qi#*=}" | tr , ' '); do
		for shape in "prodcons" "prodcons --bursts" "pairs" "mixed"; do
			# shellcheck disable=SC2086 # a shape is words: the workload, a flag
			set -- $shape
			wl=$1
			shift
			if [ "$wl" = prodcons ]; then
				threads="--producers 2 --consumers 2"
			else
				threads="--threads 4"
			fi
			tag="$q-$item-$wl${1:+-bursts}"
			runs=$((runs + 1))
			# shellcheck disable=SC2086 # threads and "$@" are word lists
			if ! "$bench" --queue "$q" --item "$item" --workload "$wl" $threads "$@" \
				--duration 0.05 --warmup 0 --calibrate 0 --drain-timeout 5 \
				--out "$out/$tag" --quiet >"$out/$tag.log" 2>&1; then
				echo "$label: numaring-bench --queue $q --item $item --workload $wl $* failed:"
				sed 's/^/  | /' "$out/$tag.log" | head -20
				failed=$((failed + 1))
			fi
		done
	done
done
echo "$label: $runs worker-loop runs (every queue, item kind and workload), $failed failed"
[ "$failed" -eq 0 ]
