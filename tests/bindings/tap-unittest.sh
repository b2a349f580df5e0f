# SPDX-License-Identifier: MIT
# Sourced by the bindings' .t files after ../lib.sh: turns a test runner's per-test lines into
# TAP checks.  unittest_tap LABEL LOG RC: each "NAME ... ok|FAIL|ERROR|skipped 'WHY'" line of
# `python3 -m unittest -v` output in LOG is one check (a skip through lib.sh's skip, which is a
# failure under CONFINE_TEST_MUST_WORK=1); then the runner's exit status RC and its count.
unittest_tap() { # label log rc
	local label=$1 log=$2 rc=$3 n=0 line name res
	while IFS= read -r line; do
		[[ $line =~ ^(test[A-Za-z0-9_]*)\ \(([A-Za-z0-9_.]+)\)\ \.\.\.\ (.*)$ ]] || continue
		name="$label: ${BASH_REMATCH[2]}" res=${BASH_REMATCH[3]}
		n=$((n + 1))
		case $res in
		ok) ok 0 "$name" ;;
		skipped*) skip "$name: $res" ;;
		*) ok 1 "$name: $res" ;;
		esac
	done <"$log"
	local ran
	ran=$(sed -n 's/^Ran \([0-9]*\) tests\? in .*/\1/p' "$log")
	is "$rc/${ran:-none}" "0/$n" "$label: the runner passed, and ran the $n tests listed"
	if [ "$rc" != 0 ] || [ "${ran:-}" != "$n" ]; then
		grep -vE ' \.\.\. (ok|skipped.*)$' "$log" | head -60 | sed 's/^/#   /'
	fi
}
