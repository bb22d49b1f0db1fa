#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# fuzz-run.sh NAME LOG STATUS -- COMMAND...
#
# Run one fuzz target (a libFuzzer binary or python3 -m scripts.tests.fuzz_expfile) with
# its output in LOG, then print one line: the target, ok/FAILED, and the
# executions done (libFuzzer's final "Done N runs in M second(s)" line,
# which fuzz_expfile.py prints too). On failure also the crash file (from
# libFuzzer's "Test unit written to PATH") and the last lines of the log.
# Writes the exit status to STATUS and the summary lines to STATUS.txt;
# exits with the status. Used by scripts/fuzz.mk.
set -u
name=$1 log=$2 status=$3
shift 3
[ "${1:-}" = "--" ] && shift
mkdir -p "$(dirname "$log")" "$(dirname "$status")"
"$@" >"$log" 2>&1
rc=$?
echo "$rc" >"$status"
runs=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1)
if [ -z "$runs" ]; then
	# stopped early (a finding): libFuzzer's last status line "#N ..."
	last=$(grep -oE '^#[0-9]+' "$log" | tail -n 1 | tr -d '#')
	runs="stopped after ${last:-0} runs"
fi
if [ "$rc" -eq 0 ]; then
	printf 'fuzz %-9s ok      %s\n' "$name" "$runs" | tee "$status.txt"
	exit 0
fi
crash=$(sed -n 's/.*Test unit written to \([^ ]*\).*/\1/p' "$log" | tail -n 1)
{
	printf 'fuzz %-9s FAILED  (exit %s) %s\n' "$name" "$rc" "$runs"
	printf '  crash file: %s\n' "${crash:-none written (see the log)}"
	printf '  log: %s\n' "$log"
} | tee "$status.txt"
grep -E 'ERROR: |SUMMARY: |fuzz_[a-z]+: |FINDING|Error|runtime error' "$log" | head -n 8 | sed 's/^/  | /'
exit "$rc"
