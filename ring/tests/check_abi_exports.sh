#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# check_abi_exports.sh LIB MAP LIST - the shared library LIB still exports
# every symbol version a program may have been linked against (issue 23,
# "ABI kept"; make test-ring runs it):
#   - every line name@VERSION of LIST (ring/tests/abi-0.1/exports.txt: what
#     the released nodes NUMARING_0.1 and NUMARING_0.2 exported, taken from
#     the library as shipped) is a defined symbol of LIB with that version,
#     default (@@) or not;
#   - every name the version script MAP lists in a NUMARING_x.y node is a
#     defined symbol of LIB with that node's version (GNU ld drops a listed
#     name that nothing defines without a word).
# The lab's nodes (NUMARING_LAB_*) promise no stability and are not checked.
set -eu
lib=${1:?usage: check_abi_exports.sh LIB MAP LIST}
map=${2:?usage: check_abi_exports.sh LIB MAP LIST}
list=${3:?usage: check_abi_exports.sh LIB MAP LIST}
for f in "$lib" "$map" "$list"; do
	[ -r "$f" ] || { echo "check_abi_exports: cannot read $f" >&2; exit 2; }
done
command -v objdump >/dev/null || { echo "check_abi_exports: objdump is missing (Debian package binutils)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name@VERSION of every defined, versioned dynamic symbol ("(V)": not default)
objdump -T "$lib" | awk '$0 !~ /\*UND\*/ && NF >= 6 {
	v = $(NF - 1); gsub(/[()]/, "", v)
	if (v != "Base" && $NF != v) print $NF "@" v }' | sort -u > "$tmp/exported"
[ -s "$tmp/exported" ] || { echo "check_abi_exports: $lib exports no versioned symbol" >&2; exit 1; }

# name@NODE for every name listed in a NUMARING_<digits> node of the map
sed 's,/\*.*\*/,,; s,#.*,,' "$map" | awk '
	/\/\*/ { incomment = 1 }
	incomment { if (/\*\//) incomment = 0; next }
	/^[ \t]*NUMARING_[0-9][0-9.]*[ \t]*\{/ { node = $1; global = 1; next }
	/^[ \t]*NUMARING_/ { node = ""; next }
	/\}/ { node = ""; next }
	/global:/ { global = 1; next }
	/local:/ { global = 0; next }
	node != "" && global && /;/ {
		s = $0; gsub(/[ \t;]/, "", s)
		if (s != "") print s "@" node }' | sort -u > "$tmp/mapped"
[ -s "$tmp/mapped" ] || { echo "check_abi_exports: no NUMARING_x.y node found in $map" >&2; exit 1; }

fail=0
grep -v '^[[:space:]]*\(#\|$\)' "$list" | sort -u > "$tmp/released"
for kind in released mapped; do
	missing=$(comm -23 "$tmp/$kind" "$tmp/exported")
	if [ -n "$missing" ]; then
		case $kind in
		released) what="released in $list" ;;
		*) what="listed in $map" ;;
		esac
		echo "check_abi_exports: $lib lacks symbol versions $what:" >&2
		printf '  %s\n' $missing >&2
		fail=1
	fi
done
[ $fail -eq 0 ] || exit 1
echo "check_abi_exports: $(wc -l < "$tmp/released") released symbol versions and $(wc -l < "$tmp/mapped") of $map exported by $lib"
