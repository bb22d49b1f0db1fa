#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# check.sh - run spin on every configuration of ring/model/ring.pml.
#
#   ring/model/check.sh [-j JOBS] [-o OUTDIR] [--full] [--only REGEX] [--list]
#
# Each configuration is generated (spin -a), compiled (gcc -O2, -DCOLLAPSE)
# and searched exhaustively in its own folder OUTDIR/NAME (default
# build/model/NAME). Kinds:
#   safety   -DSAFETY: assertions (no item lost or duplicated, the wait
#            lemma, the invariants, the end state) and invalid end states
#            (deadlock). Passes with "errors: 0" and a complete search.
#   np       -DNP, pan -l -f: no non-progress cycle under weak fairness
#            (no livelock; no circular wait behind a spinning retry). Built
#            with WEAKCAS=0: a CAS that may fail spuriously for ever is a
#            livelock of the model, not of the hardware.
#   mutant   a known bug injected with -DBUG=N: passes only if spin finds an
#            error (so the properties above can fail at all); mutant-np: the
#            same with the np search.
#   bitstate -DSAFETY -DBITSTATE (pan -w34: a 2 GB bit array): NOT exhaustive;
#            only for --full configurations whose exhaustive search needs
#            more than 12 GB.
# --full adds the large configurations (minutes, several GB).
# Prints one line per configuration and a summary; exits 1 if any failed.
# Writes OUTDIR/summary.txt (the lines printed) and OUTDIR/summary.tsv (the
# same, tab-separated, in the order of the list, with what ran where).
# Needs spin and gcc. Memory per search: MEMLIM (MB, default 6144).
set -u
cd "$(dirname "$0")/../.."
MODEL=ring/model/ring.pml
OUT=build/model
JOBS=$(nproc 2>/dev/null || echo 1)
FULL=0
ONLY=
LIST=0
MEMLIM=${MEMLIM:-6144}
while [ $# -gt 0 ]; do
	case "$1" in
	-j) JOBS=$2; shift 2 ;;
	-o) OUT=$2; shift 2 ;;
	--full) FULL=1; shift ;;
	--only) ONLY=$2; shift 2 ;;
	--list) LIST=1; shift ;;
	-h|--help) sed -n '2,26p' "$0"; exit 0 ;;
	*) echo "check.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

# NAME KIND SPIN-FLAGS...
configs() {
	cat <<'EOF'
ring-vyukov       safety -DMODE=1 -DPS=2 -DPB=0 -DCS=2 -DCB=0 -DCAP=2 -DNPER=2
ring-mixed        safety -DMODE=1 -DPS=1 -DPB=1 -DCS=1 -DCB=1 -DCAP=2 -DBATCH=2 -DNPER=2
ring-bulk         safety -DMODE=1 -DPS=0 -DPB=2 -DCS=0 -DCB=2 -DCAP=2 -DBATCH=2 -DNPER=2
ring-mixed-cap4   safety -DMODE=1 -DPS=1 -DPB=1 -DCS=1 -DCB=1 -DCAP=4 -DBATCH=3 -DNPER=3
xfer-1p1c-shared  safety -DMODE=2 -DGATE=0 -DP0=1 -DC1=1 -DNPER=5
xfer-1p1c-pernode safety -DMODE=2 -DGATE=1 -DP0=1 -DC1=1 -DNPER=5
xfer-1p1c-perwkr  safety -DMODE=2 -DGATE=2 -DP0=1 -DC1=1 -DNPER=5
xfer-2p1c-shared  safety -DMODE=2 -DGATE=0 -DP0=2 -DC1=1 -DNPER=2
xfer-2p1c-pernode safety -DMODE=2 -DGATE=1 -DP0=2 -DC1=1 -DNPER=2
xfer-2p1c-perwkr  safety -DMODE=2 -DGATE=2 -DP0=2 -DC1=1 -DNPER=2
xfer-1p2c-shared  safety -DMODE=2 -DGATE=0 -DP0=1 -DC0=1 -DC1=1 -DNPER=3
xfer-1p2c-pernode safety -DMODE=2 -DGATE=1 -DP0=1 -DC0=1 -DC1=1 -DNPER=3
xfer-pp-pernode   safety -DMODE=2 -DGATE=1 -DP0=1 -DP1=1 -DC1=1 -DNPER=2 -DXFER_MAX=3
xfer-pp-orphans   safety -DMODE=2 -DGATE=2 -DP0=1 -DP1=1 -DC1=1 -DNPER0=3 -DNPER=2 -DXFER_MAX=2
xfer-batch1       safety -DMODE=2 -DGATE=1 -DP0=2 -DC1=1 -DNPER=2 -DBATCH=1
np-ring-vyukov    np     -DMODE=1 -DPS=2 -DPB=0 -DCS=2 -DCB=0 -DCAP=2 -DNPER=2
np-ring-mixed     np     -DMODE=1 -DPS=1 -DPB=1 -DCS=1 -DCB=1 -DCAP=2 -DBATCH=2 -DNPER=2
np-ring-bulk      np     -DMODE=1 -DPS=0 -DPB=2 -DCS=0 -DCB=2 -DCAP=2 -DBATCH=2 -DNPER=2
np-xfer-1p1c-shared  np  -DMODE=2 -DGATE=0 -DP0=1 -DC1=1 -DNPER=5
np-xfer-1p1c-pernode np  -DMODE=2 -DGATE=1 -DP0=1 -DC1=1 -DNPER=5
np-xfer-1p1c-perwkr  np  -DMODE=2 -DGATE=2 -DP0=1 -DC1=1 -DNPER=5
np-xfer-2p1c-pernode np  -DMODE=2 -DGATE=1 -DP0=2 -DC1=1 -DNPER=2
np-xfer-pp-pernode   np  -DMODE=2 -DGATE=1 -DP0=1 -DP1=1 -DC1=1 -DNPER=2 -DXFER_MAX=3
bug1-burst-claims-unseen mutant -DMODE=1 -DPS=0 -DPB=2 -DCS=1 -DCB=0 -DBUG=1
bug2-release-before-read mutant -DMODE=1 -DPS=2 -DPB=0 -DCS=2 -DCB=0 -DBUG=2
bug3-pull-drops-rest     mutant -DMODE=2 -DGATE=0 -DP0=1 -DC1=1 -DNPER=3 -DBUG=3
bug4-gate-not-released   mutant -DMODE=2 -DGATE=0 -DP0=1 -DC1=1 -DNPER=5 -DBUG=4
bug5-burst-claims-unpub  mutant -DMODE=1 -DPS=1 -DPB=0 -DCS=0 -DCB=2 -DBUG=5
bug6-no-catch-up         mutant-np -DMODE=1 -DPS=1 -DPB=0 -DCS=2 -DCB=0 -DBUG=6
EOF
	if [ "$FULL" = 1 ]; then
		cat <<'EOF'
full-ring-mixed-n3       safety -DMODE=1 -DPS=1 -DPB=1 -DCS=1 -DCB=1 -DCAP=2 -DBATCH=2 -DNPER=3
full-xfer-1p2c-perwkr    safety -DMODE=2 -DGATE=2 -DP0=1 -DC0=1 -DC1=1 -DNPER=3
full-xfer-pp-orphans-shared  safety -DMODE=2 -DGATE=0 -DP0=1 -DP1=1 -DC1=1 -DNPER0=3 -DNPER=2 -DXFER_MAX=2
full-xfer-pp-orphans-pernode safety -DMODE=2 -DGATE=1 -DP0=1 -DP1=1 -DC1=1 -DNPER0=3 -DNPER=2 -DXFER_MAX=2
full-np-xfer-2p1c-perwkr np     -DMODE=2 -DGATE=2 -DP0=2 -DC1=1 -DNPER=2
full-np-ring-mixed-cap4  np     -DMODE=1 -DPS=1 -DPB=1 -DCS=1 -DCB=1 -DCAP=4 -DBATCH=3 -DNPER=3
full-bit-xfer-2p1c-n3    bitstate -DMODE=2 -DGATE=1 -DP0=2 -DC1=1 -DNPER=3
EOF
	fi
}

run_one() {
	local name=$1 kind=$2
	shift 2
	local dir="$OUT/$name" flags=() pan_args=(-m200000) cc=(-DSAFETY)
	local store=(-DCOLLAPSE -DMEMLIM="$MEMLIM")
	case "$kind" in
	np|mutant-np) flags=(-DWEAKCAS=0); cc=(-DNP -DNFAIR=3); pan_args=(-l -f -m200000) ;;
	bitstate) cc=(-DSAFETY -DBITSTATE); store=(); pan_args=(-w34 -m200000) ;;
	esac
	rm -rf "$dir" && mkdir -p "$dir"
	local t0 t1 rc=0
	t0=$(date +%s%N)
	(
		cd "$dir" &&
		spin -a "${flags[@]}" "$@" "$ROOT/$MODEL" >spin.out 2>&1 &&
		gcc -O2 "${cc[@]}" "${store[@]}" -w -o pan pan.c >gcc.out 2>&1 &&
		./pan "${pan_args[@]}" >pan.out 2>&1
	) || rc=$?
	t1=$(date +%s%N)
	local out="$dir/pan.out" errors states trans mem complete verdict note=""
	errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$out" 2>/dev/null | tail -n 1)
	states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' "$out" 2>/dev/null | tail -n 1)
	trans=$(sed -n 's/^ *\([0-9.e+]*\) transitions.*/\1/p' "$out" 2>/dev/null | tail -n 1)
	mem=$(sed -n 's/^ *\([0-9.]*\)\s*total actual memory usage.*/\1/p' "$out" 2>/dev/null | tail -n 1)
	complete=1
	grep -qE 'Search not completed|max search depth too small|out of memory|reached -DMEMLIM' \
		"$out" 2>/dev/null && complete=0
	case "$kind" in
	safety|np|bitstate)
		if [ -n "$errors" ] && [ "$errors" = 0 ] && [ "$complete" = 1 ]; then
			verdict=PASS
			[ "$kind" = bitstate ] && note="bitstate (not exhaustive): $(grep -m1 'hash factor' "$out" | sed 's/^ *//')"
		else
			verdict=FAIL
			[ "$complete" = 1 ] || note="search incomplete (depth or memory); "
			[ -z "$errors" ] && note="${note}no result (rc $rc, see $dir/*.out)"
			[ -n "$errors" ] && [ "$errors" != 0 ] &&
				note="${note}$(grep -m1 -E '^pan:[0-9]+:' "$out"); trail: cd $dir \&\& spin -t -p ${flags[*]} $* $ROOT/$MODEL"
		fi ;;
	mutant|mutant-np)
		if [ -n "$errors" ] && [ "$errors" != 0 ]; then
			verdict=PASS
			note="caught: $(grep -m1 -E '^pan:[0-9]+:' "$out" | sed 's/^pan:[0-9]*: //')"
		else
			verdict=FAIL
			note="the injected bug was NOT found"
		fi ;;
	esac
	local ds=$(( (t1 - t0) / 100000000 ))
	printf '%-4s %-26s %-9s states %-10s transitions %-10s %4d.%d s %9s MB  %s\n' \
		"$verdict" "$name" "$kind" "${states:--}" "${trans:--}" \
		$((ds / 10)) $((ds % 10)) "${mem:--}" "$note"
	# the same as one tab-separated row (summary.tsv, below)
	printf '%s\t%s\t%s\t%s\t%s\t%d.%d\t%s\t%s\t%s\n' "$name" "$kind" "$*" \
		"${states:-}" "${trans:-}" $((ds / 10)) $((ds % 10)) "${mem:-}" "$verdict" \
		"$(printf '%s' "$note" | tr '\t' ' ')" >"$dir/result.tsv"
}
ROOT=$(pwd)
export -f run_one
export OUT MODEL MEMLIM ROOT

case "$JOBS" in ''|*[!0-9]*|0) echo "check.sh: -j $JOBS: expected a whole number above 0" >&2; exit 2;; esac
case "$MEMLIM" in ''|*[!0-9]*|0) echo "check.sh: MEMLIM=$MEMLIM: expected megabytes, a whole number above 0" >&2; exit 2;; esac
if [ -n "$ONLY" ]; then
	echo | grep -E "$ONLY" >/dev/null 2>&1; [ $? -le 1 ] ||
		{ echo "check.sh: --only '$ONLY': not a valid regular expression" >&2; exit 2; }
	configs | grep -qE "$ONLY" ||
		{ echo "check.sh: --only '$ONLY' matches no configuration (see --list)" >&2; exit 2; }
fi
command -v spin >/dev/null 2>&1 || { echo "check.sh: spin is not installed (apt-get install spin)" >&2; exit 2; }

if [ "$LIST" = 1 ]; then
	configs
	exit 0
fi
mkdir -p "$OUT"
start=$(date +%s)
echo "model-check: $(configs | grep -cE "${ONLY:-.}") configurations of $MODEL, $JOBS at a time (folders in $OUT/)"
configs | grep -E "${ONLY:-.}" | tr -s ' ' | xargs -P "$JOBS" -L 1 bash -c 'run_one "$@"' _ |
	tee "$OUT/summary.txt"
total=$(grep -c . "$OUT/summary.txt")
failed=$(grep -c '^FAIL' "$OUT/summary.txt")
wall=$(( $(date +%s) - start ))
echo "model-check: $total configurations, $failed failed, $wall s"

# summary.tsv: the run in machine-readable form, in the order of configs()
# (summary.txt is in order of completion): '# key: value' lines saying what
# ran where, a header, one row per configuration. scripts/paper/model_facts.py
# records it as ring/model/results.tsv and generates the documentation's
# model-checking facts from that copy (make model-record).
{
	echo "# model-check of $MODEL (ring/model/check.sh; scripts/paper/model_facts.py reads this)"
	echo "# date: $(date -u +%Y-%m-%d)"
	echo "# commit: $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
	echo "# model_blob: $(git hash-object "$MODEL" 2>/dev/null || echo unknown)"
	echo "# spin: $(spin -V 2>/dev/null | sed -n 's/^Spin Version \([^ ]*\).*/\1/p' | head -n 1)"
	echo "# gcc: $(gcc -dumpfullversion 2>/dev/null || gcc -dumpversion)"
	echo "# os: $(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-unknown}")"
	echo "# cpus: $(nproc 2>/dev/null || echo unknown)"
	echo "# memory_gb: $(awk '/^MemTotal:/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo 2>/dev/null)"
	echo "# jobs: $JOBS"
	echo "# memlim_mb: $MEMLIM"
	echo "# full: $FULL"
	echo "# only: $ONLY"
	echo "# wall_s: $wall"
	printf 'configuration\tkind\tflags\tstates\ttransitions\ttime_s\tmemory_mb\tverdict\tnote\n'
	configs | grep -E "${ONLY:-.}" | tr -s ' ' | while read -r name kind flags; do
		if [ -s "$OUT/$name/result.tsv" ]; then
			cat "$OUT/$name/result.tsv"
		else
			printf '%s\t%s\t%s\t\t\t\t\tFAIL\tno result\n' "$name" "$kind" "$flags"
		fi
	done
} >"$OUT/summary.tsv"
[ "$failed" = 0 ]
