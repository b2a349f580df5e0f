#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `meson test` runs the suite too (tests/meson.build): every test program tests/run finds in
# the build tree and every TAP script under tests/ is registered, each enforcement file a
# second time on the landlock backend but those tests/schedule names, serial files never in
# parallel; a registered file runs through tests/meson-run, whose result meson reads as TAP.
source "$(dirname "$0")/../lib.sh"

if ! command -v meson >/dev/null || [ ! -f "$BUILD/meson-info/intro-tests.json" ]; then
	skip "not a meson build tree, or meson is missing"
	done_testing
fi
intro=$(meson introspect --tests "$BUILD")
registered=$(jq -r '.[].name' <<<"$intro" | sort)

# What tests/run runs: its own list (-l), with tests/schedule's marks as it reads them.
want=$("$TOP/tests/run" -l "$BUILD")
want=$(sort <<<"$want")
is "$(comm -23 <(echo "$want") <(echo "$registered") | tr '\n' ' ')" "" \
	"every file tests/run runs is registered with meson (a new *.t: meson setup --reconfigure; a new program: tap_programs +=)"
is "$(comm -13 <(echo "$want") <(echo "$registered") | tr '\n' ' ')" "" \
	"meson registers nothing tests/run does not run"
is "$(jq -r '[.[] | select(.protocol != "tap")] | length' <<<"$intro")" 0 "every test is read as TAP"
serial=$(awk '$1 == "serial" { print $2 }' "$TOP/tests/schedule")
bad=
for s in $serial; do
	p=$(jq -r --arg n "$s" '.[] | select(.name == $n or .name == ($n + " [landlock]")) | .is_parallel' <<<"$intro" | sort -u)
	[ "$p" = false ] || bad="$bad $s($p)"
done
is "$bad" "" "the serial files of tests/schedule never run beside another (is_parallel false)"

# One registered program, run by meson itself (no rebuild: the tree is the one under test).
out=$(cd "$BUILD" && meson test --no-rebuild tests/unit/util/test-util 2>&1)
rc=$?
[ "$rc" = 0 ] && grep -qE '^Ok: +1' <<<"$out"
ok $? "meson test runs a registered program and reads its TAP (exit $rc)"
done_testing
