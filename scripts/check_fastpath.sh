#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# check_fastpath.sh LIB - the production variants of the ring's fast path,
# disassembled from the linked shared library LIB (build/libnumaring.so.0.1.0,
# where calls are resolved to their names and the variants' local symbols
# are kept), contain no node look-up, no backoff and no dispatch (issue 12;
# make test-ring runs it).
#
# The production configuration runs the rseq variant where the kernel keeps
# node_id in rseq (Linux >= 6.3) and the cached one elsewhere. For each of
# their enqueue, dequeue and burst functions this checks, with objdump:
#   - no call of a look-up (sched_getcpu, numa_node_of_cpu, syscall, getcpu):
#     cached counts down and re-checks out of line; rseq is one %fs load;
#   - no backoff code: no pause instruction, no sched_yield, nanosleep or
#     clock_gettime (lost races call nr_backoff_fail, out of line and cold);
#   - no indirect jump (a switch's jump table: a mode tested per operation);
#   - a size bound on the function, printed with its instruction count.
set -eu
obj=${1:?usage: check_fastpath.sh build/libnumaring.so.0.1.0}
[ -r "$obj" ] || { echo "check_fastpath: cannot read $obj" >&2; exit 2; }
command -v objdump >/dev/null || { echo "check_fastpath: objdump is missing (Debian package binutils)" >&2; exit 2; }
fail=0
for v in rseq cached; do
	for op in enqueue dequeue enqueue_burst dequeue_burst; do
		fn=nr_${op}_$v
		dis=$(objdump -d --no-show-raw-insn --disassemble="$fn" "$obj" | sed -n '/^[0-9a-f]* <'"$fn"'>:/,/^$/p')
		if [ -z "$dis" ]; then
			echo "check_fastpath: $fn not found in $obj" >&2
			fail=1
			continue
		fi
		n=$(printf '%s\n' "$dis" | grep -c '^ *[0-9a-f]*:')
		bad=$(printf '%s\n' "$dis" | grep -E 'call.*<(sched_getcpu|numa_node_of_cpu|syscall|getcpu|sched_yield|nanosleep|clock_gettime)[@>]|[[:space:]]pause|jmp +\*' || true)
		if [ -n "$bad" ]; then
			echo "check_fastpath: $fn has look-up, backoff or dispatch code:" >&2
			printf '%s\n' "$bad" >&2
			fail=1
		fi
		# bursts loop over items: a larger bound
		case $op in *burst) max=200 ;; *) max=90 ;; esac
		if [ "$n" -gt "$max" ]; then
			echo "check_fastpath: $fn has $n instructions (more than $max): something was inlined into the fast path" >&2
			fail=1
		fi
		echo "check_fastpath: $fn: $n instructions, no look-up call, no backoff, no jump table"
	done
done
# Control: the check must be able to fail. The libnuma variant looks up on
# every operation (the study's bug): its enqueue must be flagged.
ctl=$(objdump -d --no-show-raw-insn --disassemble=nr_enqueue_libnuma "$obj" | sed -n '/<nr_enqueue_libnuma>:/,/^$/p')
if ! printf '%s\n' "$ctl" | grep -qE 'call.*<(sched_getcpu|numa_node_of_cpu)[@>]'; then
	echo "check_fastpath: control failed: nr_enqueue_libnuma shows no look-up call, so the check above cannot see one" >&2
	fail=1
fi
exit $fail
