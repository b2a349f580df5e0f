#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What a new user reads first: `confine --help` lists every command and --version, `confine
# help COMMAND` is that command's --help, --timeout takes units, and --help, probe and the
# README give the same minimum Landlock ABI.  (The man pages: tests/cli/man.t.)
source "$(dirname "$0")/../lib.sh"
mkdir -p "$T/ws" "$T/home"
cd "$T/ws" || exit 1
export HOME=$T/home

top=$("$CONFINE" --help)
is "$?" 0 "confine --help: exit 0"
for c in run probe explain check plan card help --version; do
	grep -qE "^  $c( |$)" <<<"$top"
	ok $? "confine --help lists '$c'"
done
is "$("$CONFINE" --version)" "confine $(sed -n 's/^#define CONFINE_VERSION "\(.*\)"$/\1/p' "$TOP/include/confine.h")" \
	"confine --version prints the library's version"

for c in run probe explain check plan card; do
	want=$("$CONFINE" "$c" --help)
	got=$("$CONFINE" help "$c")
	is "$?" 0 "confine help $c: exit 0"
	[ -n "$got" ] && [ "$got" == "$want" ]
	ok $? "confine help $c prints what confine $c --help prints"
done
out=$("$CONFINE" help nosuch 2>&1)
is "$?" 125 "confine help of an unknown command: 125"
grep -q "^confine: unknown command: 'nosuch'" <<<"$out"
ok $? "... naming it"

# --timeout with units (the plan is printed, nothing runs).
for v in 30 2.5 5s 2m 1h; do
	"$CONFINE" run --timeout "$v" --print-plan -- true >/dev/null 2>"$T/err"
	is "$?" 0 "run --timeout $v is accepted ($(cat "$T/err"))"
done
out=$("$CONFINE" run --timeout 5d -- true 2>&1)
is "$?" 125 "run --timeout 5d is refused"
grep -q "^confine: invalid --timeout: '5d': expected a positive duration" <<<"$out"
ok $? "... saying what a duration is"

# The minimum Landlock ABI: --help, probe and the README say the same number.
help_abi=$("$CONFINE" probe --help | sed -n 's/^landlock (minimum Landlock ABI \([0-9]*\)).*/\1/p')
probe_abi=$("$CONFINE" probe --json 2>/dev/null | jq -r '.backends[] | select(.backend == "landlock") | .version' |
	sed -n 's/.*(minimum \([0-9]*\))$/\1/p')
readme_abi=$(grep -o 'needs Landlock ABI [0-9]*' "$TOP/README.md" "$TOP"/doc/*.md | sed 's/.* //' | sort -u)
hdr_abi=$(sed -n 's/^#define CONFINE_LANDLOCK_MIN_ABI \([0-9]*\)$/\1/p' "$TOP/include/confine.h")
[ -n "$help_abi" ]
ok $? "probe --help names the minimum Landlock ABI ($help_abi)"
is "$help_abi" "$hdr_abi" "probe --help's minimum is the library's CONFINE_LANDLOCK_MIN_ABI"
if [ -n "$probe_abi" ]; then
	is "$probe_abi" "$hdr_abi" "probe's landlock line says the same minimum"
else
	skip "probe names no landlock version here (no Landlock in this kernel)"
fi
is "$readme_abi" "$hdr_abi" "the README (and doc/) say the same minimum, once"
grep -q "Landlock ABI $hdr_abi" "$TOP/doc/confine.1"
ok $? "and so does confine(1)"

done_testing
