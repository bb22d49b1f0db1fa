#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# check_no_lab.sh PROD LAB - the production library PROD (the unstripped
# build/libnumaring.so.X.Y.Z) carries none of the lab (issue 23): no fast
# path of a look-up production cannot choose (libnuma, syscall, table, rdpid,
# none), no linger, no flat ring, no numaring_lab_*, numaring_flat_*,
# numaring_lookup_* or numaring_gate_* symbol, local symbols included (nm
# lists the static functions of an unstripped library). Each symbol found
# is named and the check fails.
#
# Control: the same patterns run against the lab's library LAB
# (build/libnumaring_lab.so.X.Y.Z), which must match every one of them: a
# pattern that finds nothing there could not find anything in PROD either.
# make test-ring runs it.
set -eu
prod=${1:?usage: check_no_lab.sh PROD_LIB LAB_LIB}
lab=${2:?usage: check_no_lab.sh PROD_LIB LAB_LIB}
for f in "$prod" "$lab"; do
	[ -r "$f" ] || { echo "check_no_lab: cannot read $f" >&2; exit 2; }
done
command -v nm >/dev/null || { echo "check_no_lab: nm is missing (Debian package binutils)" >&2; exit 2; }

# What the lab has and production must not: one extended regex per line,
# matched against each defined symbol's name (GCC's clone suffixes such as
# .constprop.0 are kept: they still name the function).
patterns='^nr_(enqueue|dequeue)(_burst)?_(libnuma|syscall|table|rdpid|none)($|\.)
^numaring_lab_
^numaring_flat_
^numaring_lookup_
^numaring_gate_
^numaring_(dequeue_paths|path_name)$
linger
flat'

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# defined symbols only (an undefined one is a call out, not code of ours)
nm --defined-only "$prod" | awk 'NF >= 3 { print $3 }' | sort -u > "$tmp/prod"
nm --defined-only "$lab" | awk 'NF >= 3 { print $3 }' | sort -u > "$tmp/lab"
[ -s "$tmp/prod" ] || { echo "check_no_lab: nm lists no symbol in $prod (stripped?)" >&2; exit 2; }

fail=0
printf '%s\n' "$patterns" > "$tmp/patterns"
while IFS= read -r p; do
	if ! grep -qE "$p" "$tmp/lab"; then
		echo "check_no_lab: control failed: /$p/ matches no symbol of $lab, so it cannot see one in $prod" >&2
		fail=1
	fi
	found=$(grep -E "$p" "$tmp/prod" || true)
	if [ -n "$found" ]; then
		echo "check_no_lab: $prod carries the lab's /$p/:" >&2
		printf '  %s\n' $found >&2
		fail=1
	fi
done < "$tmp/patterns"
[ $fail -eq 0 ] || exit 1
echo "check_no_lab: $(wc -l < "$tmp/patterns") lab patterns, each found in $lab, none in $prod"
