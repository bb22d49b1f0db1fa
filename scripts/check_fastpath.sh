#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# check_fastpath.sh PROD LAB - the ring's fast path contains no node
# look-up, no backoff and no dispatch (issues 12 and 23; make test-ring runs
# it). PROD is the production shared library, LAB the lab's (the unstripped
# build/libnumaring.so.X.Y.Z and build/libnumaring_lab.so.X.Y.Z, where calls
# are resolved to their names and local symbols are kept).
#
# Production runs the none core where the queue has one node with CPUs,
# else the rseq core where the kernel keeps node_id in rseq (Linux >= 6.3)
# and the cached one elsewhere, the three inlined into its public entry
# points behind two branches (ring/src/ops.c). Checked, with objdump:
#   - PROD's numaring_enqueue, _dequeue, _enqueue_burst, _dequeue_burst;
#   - LAB's none, rseq and cached variants of the same four (nr_<op>_none,
#     nr_<op>_rseq, nr_<op>_cached: the same cores, one per function);
# each for:
#   - no call of a look-up (sched_getcpu, numa_node_of_cpu, syscall, getcpu):
#     cached counts down and re-checks out of line; rseq is one %fs load;
#   - no backoff code: no pause instruction, no sched_yield, nanosleep or
#     clock_gettime (lost races call nr_backoff_fail, out of line and cold);
#   - no indirect call or jump (a switch's jump table, a function pointer:
#     a mode tested or dispatched per operation);
#   - a size bound on the function, printed with its instruction count.
# Controls, from LAB, so that each check can fail: the libnuma variant looks
# up on every operation (the study's bug), and its enqueue must show the
# look-up call; the lab's numaring_enqueue jumps to the worker's variant,
# and must show the indirect jump or call.
set -eu
prod=${1:?usage: check_fastpath.sh PROD_LIB LAB_LIB}
lab=${2:?usage: check_fastpath.sh PROD_LIB LAB_LIB}
for f in "$prod" "$lab"; do
	[ -r "$f" ] || { echo "check_fastpath: cannot read $f" >&2; exit 2; }
done
command -v objdump >/dev/null || { echo "check_fastpath: objdump is missing (Debian package binutils)" >&2; exit 2; }

bad_re='call.*<(sched_getcpu|numa_node_of_cpu|syscall|getcpu|sched_yield|nanosleep|clock_gettime)[@>]|[[:space:]]pause|(call|jmp) +\*'

# disassemble FN LIB: the function's instructions, nothing else
disassemble() {
	objdump -d --no-show-raw-insn --disassemble="$1" "$2" | sed -n '/^[0-9a-f]* <'"$1"'>:/,/^$/p'
}

fail=0
# check FN LIB MAX
check() {
	dis=$(disassemble "$1" "$2")
	if [ -z "$dis" ]; then
		echo "check_fastpath: $1 not found in $2" >&2
		fail=1
		return
	fi
	n=$(printf '%s\n' "$dis" | grep -c '^ *[0-9a-f]*:')
	bad=$(printf '%s\n' "$dis" | grep -E "$bad_re" || true)
	if [ -n "$bad" ]; then
		echo "check_fastpath: $1 ($2) has look-up, backoff or dispatch code:" >&2
		printf '%s\n' "$bad" >&2
		fail=1
	fi
	if [ "$n" -gt "$3" ]; then
		echo "check_fastpath: $1 ($2) has $n instructions (more than $3): something was inlined into the fast path" >&2
		fail=1
	fi
	echo "check_fastpath: $1 ($(basename "$2")): $n instructions, no look-up call, no backoff, no dispatch"
}

for op in enqueue dequeue enqueue_burst dequeue_burst; do
	# bursts loop over items: a larger bound; production's entry points
	# hold three cores (none, rseq and cached)
	case $op in *burst) max=200 ;; *) max=90 ;; esac
	check "numaring_$op" "$prod" $((3 * max))
	for v in none rseq cached; do
		check "nr_${op}_$v" "$lab" $max
	done
done

ctl=$(disassemble nr_enqueue_libnuma "$lab")
if ! printf '%s\n' "$ctl" | grep -qE 'call.*<(sched_getcpu|numa_node_of_cpu)[@>]'; then
	echo "check_fastpath: control failed: nr_enqueue_libnuma ($lab) shows no look-up call, so the check above cannot see one" >&2
	fail=1
fi
ctl=$(disassemble numaring_enqueue "$lab")
if ! printf '%s\n' "$ctl" | grep -qE '(call|jmp) +\*'; then
	echo "check_fastpath: control failed: the lab's numaring_enqueue ($lab) shows no indirect jump, so the check above cannot see one" >&2
	fail=1
fi
exit $fail
