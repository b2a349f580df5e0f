#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# R38 (THREATS round 3, "what a person reads is not what is there"): every string a command, a
# workspace or a request chose reaches a person escaped by the allow-list of visible characters
# (tests/unit/util/test-display.c has a member of each class): the approval card, the post-run
# warnings, errors, explain, --print-plan, check and usage errors.  Each case also asserts that
# the raw bytes never reach the output.
source "$(dirname "$0")/../lib.sh"
W=$T/ws
mkdir -p "$W/d" "$T/home"
cd "$W" || exit 1
export HOME=$T/home
ZW=$(printf '\xe2\x80\x8b')   # U+200B ZERO WIDTH SPACE
RLO=$(printf '\xe2\x80\xae')  # U+202E RIGHT-TO-LEFT OVERRIDE
CYU=$(printf '\xd1\x83')      # U+0443 CYRILLIC SMALL LETTER U (looks like a Latin y)
ESC=$(printf '\x1b')
NL=$'\n'
raw() { # file: 0 when it holds none of the raw characters above
	! grep -q -e "$ZW" -e "$RLO" -e "$ESC" "$1"
}

# --- the approval card: ./ru<U+200B>n.sh and ./run.sh look different ---
printf '#!/bin/sh\necho hi\n' >run.sh
cp run.sh "ru${ZW}n.sh"
cp run.sh "r${CYU}n.sh"
chmod +x ./*.sh
"$CONFINE" card -- ./run.sh >"$T/card1"
ok $? "card of ./run.sh"
"$CONFINE" card -- "./ru${ZW}n.sh" >"$T/card2"
ok $? "card of ./ru<U+200B>n.sh"
grep -q '^  command     "./ru\\u{200B}n.sh"$' "$T/card2"
ok $? "R38 the card shows the zero-width space as \\u{200B} (got: $(grep command "$T/card2"))"
grep -q '^  program     .*/ru\\u{200B}n.sh$' "$T/card2"
ok $? "R38 ... in the program line too"
raw "$T/card2"
ok $? "R38 the card holds no raw U+200B"
! cmp -s <(grep -v -e digest -e 'request id' "$T/card1") <(grep -v -e digest -e 'request id' "$T/card2")
ok $? "R38 the two cards differ in what a person reads, not only in the digest"
"$CONFINE" card -- "./r${CYU}n.sh" >"$T/card3"
grep -q '^    (ascii)   "./r\\u{0443}n.sh"$' "$T/card3"
ok $? "R38 a letter of another script gets an ASCII line on the card (got: $(grep -A1 command "$T/card3" | tr '\n' '|'))"
"$CONFINE" card -- ./run.sh "a${NL}b" "${RLO}txt.exe" >"$T/card4"
grep -q '^  command     "./run.sh" "a\\x0ab" "\\u{202E}txt.exe"$' "$T/card4"
ok $? "R38 a newline and a bidi override in an argument are escaped on one line"
raw "$T/card4"
ok $? "R38 ... and not there raw"

# --- errors: the subject and the reason ---
"$CONFINE" run -- "no${ESC}[2Jsuch${ZW}cmd" 2>"$T/err1"
is "$?" 127 "a command that does not exist: 127"
grep -q "^confine: .*'no\\\\x1b\\[2Jsuch\\\\u{200B}cmd'" "$T/err1"
ok $? "R38 the error names it escaped (got: $(head -1 "$T/err1"))"
raw "$T/err1"
ok $? "R38 no escape sequence reaches the terminal"
"$CONFINE" run --backend "x${ESC}]0;t" -- true 2>"$T/err2"
raw "$T/err2"
ok $? "R38 a usage error escapes the value it quotes (got: $(head -1 "$T/err2"))"

# --- post-run warnings: file names with a newline and U+202E ---
"$CONFINE" run -- sh -c "echo k >'d/new${NL}hint: all fine.pem'; echo k >'d/${RLO}gpj.pem'" 2>"$T/warn"
is "$?" 0 "the command creates two protected names with a newline and a bidi override"
grep -q "'$W/d/new\\\\x0ahint: all fine.pem'" "$T/warn"
ok $? "R38 the warning shows the newline as \\x0a (got: $(grep -c . "$T/warn") lines)"
! grep -q "^hint: all fine" "$T/warn"
ok $? "R38 the file name cannot start a line of its own"
grep -q "'$W/d/\\\\u{202E}gpj.pem'" "$T/warn"
ok $? "R38 the warning shows U+202E escaped"
raw "$T/warn"
ok $? "R38 no raw U+202E in the warnings"

# --- explain and the printed plan ---
"$CONFINE" explain "$W/d/${RLO}gpj.pem" >"$T/explain"
grep -q "^$W/d/\\\\u{202E}gpj.pem  read   deny" "$T/explain"
ok $? "R38 explain shows the path escaped (got: $(head -1 "$T/explain"))"
raw "$T/explain"
ok $? "R38 ... and not raw"
"$CONFINE" run --print-plan -- "./ru${ZW}n.sh" >"$T/plan"
grep -q "hide-file  $W/d/new\\\\x0ahint: all fine.pem  #" "$T/plan"
ok $? "R38 --print-plan shows the mount of the name with a newline on one line"
grep -q '^command: "./ru\\u{200B}n.sh"$' "$T/plan"
ok $? "R38 --print-plan shows the command escaped"
raw "$T/plan"
ok $? "R38 ... and nothing raw"

# --- the plans of the other targets: landlock, Windows, macOS (one writer of their command
# and environment lines, util/display.c) ---
for t in "run --backend landlock --print-plan" "plan --target windows" "plan --target macos"; do
	# shellcheck disable=SC2086 # the words of the subcommand
	env "MY${RLO}_TOKEN=1" "$CONFINE" $t -- "./ru${ZW}n.sh" "a'b" >"$T/plan-t" 2>&1
	ok $? "$t: planned"
	grep -q '^command: "./ru\\u{200B}n.sh" "a\\'"'"'b"$' "$T/plan-t"
	ok $? "R38 $t shows the command escaped, as the bwrap plan does (got: $(grep '^command' "$T/plan-t"))"
	if [ "$t" = "run --backend landlock --print-plan" ]; then # the others plan for another host
		grep -q '^environment removed:.* MY\\u{202E}_TOKEN' "$T/plan-t"
		ok $? "R38 $t shows a removed variable's name escaped (got: $(grep '^environment removed' "$T/plan-t"))"
	fi
	raw "$T/plan-t"
	ok $? "R38 $t holds nothing raw (got: $(grep -n -e "$ZW" -e "$RLO" -e "$ESC" "$T/plan-t" | cut -c1-120))"
done

# --- every string a person did not write, in every plan text (the class, not one member) ---
# A workspace, a home, a protected file, an allow, an injection's target and a command, each
# with an invisible or reordering character (a variable's name with one is refused): the plans
# of both Linux backends (run --print-plan) and of the other targets hold none of them raw.
W2="$T/w${RLO}s${ZW}"
H2="$T/h${ZW}ome"
mkdir -p "$W2/sub${RLO}dir" "$H2" "$T/al${RLO}low"
echo k >"$W2/sub${RLO}dir/.env"
echo v >"$T/inj-src"
cd "$W2" || exit 1
export HOME=$H2
for t in "run --print-plan" "run --backend landlock --print-plan"; do
	inj=(--inject-env "INJ=$T/inj-src" --inject-path "/tmp/t${RLO}x=$T/inj-src")
	wants=("sub\\u{202E}dir" "al\\u{202E}low" "t\\u{202E}x" "c\\u{202E}md")
	if [ "$t" != "run --print-plan" ]; then # the landlock backend injects nothing
		inj=()
		wants=("sub\\u{202E}dir" "al\\u{202E}low" "c\\u{202E}md")
	fi
	# shellcheck disable=SC2086 # the words of the subcommand
	"$CONFINE" $t --allow "$T/al${RLO}low:read" "${inj[@]}" -- "./c${RLO}md" >"$T/plan-c" 2>&1
	ok $? "$t: planned with strange names everywhere"
	for want in "${wants[@]}"; do
		grep -qF "$want" "$T/plan-c"
		ok $? "R38 $t shows $want escaped"
	done
	raw "$T/plan-c"
	ok $? "R38 $t holds nothing raw (got: $(grep -n -e "$ZW" -e "$RLO" -e "$ESC" "$T/plan-c" | cut -c1-160 | head -3))"
done
for t in "plan --target windows" "plan --target macos"; do
	a="$T/al${RLO}low:read"
	[ "$t" = "plan --target windows" ] && a="C:\\al${RLO}low:read"
	# shellcheck disable=SC2086 # the words of the subcommand
	"$CONFINE" $t --allow "$a" -- "./c${RLO}md" >"$T/plan-c" 2>&1
	ok $? "$t: planned with strange names"
	raw "$T/plan-c"
	ok $? "R38 $t holds nothing raw (got: $(grep -n -e "$ZW" -e "$RLO" -e "$ESC" "$T/plan-c" | cut -c1-160 | head -3))"
done
# Windows: a path's backslashes are its separators and shown as they are, so an escape there is
# written <U+202E>, which no Windows name can hold ('<' is refused), while a name can hold the
# text \u{202E}: the two workspaces below must read differently.  The ACL edits' reasons name
# the workspace and the rules too.
"$CONFINE" plan --target windows --workspace "C:\\proj${RLO}gpj.exe" \
	--deny "C:\\proj${RLO}gpj.exe\\x${RLO}y:write" -- cmd >"$T/plan-w" 2>&1
ok $? "plan --target windows: a workspace and a rule with U+202E"
raw "$T/plan-w"
ok $? "R38 its ACL edits' reasons hold nothing raw (got: $(grep -n "$RLO" "$T/plan-w" | cut -c1-160 | head -2))"
grep -qxF 'workspace: C:\proj<U+202E>gpj.exe' "$T/plan-w"
ok $? "R38 the Windows workspace shows U+202E as <U+202E> (got: $(grep '^workspace' "$T/plan-w"))"
grep -qF '# keeps C:\proj<U+202E>gpj.exe\.git\branches where it is' "$T/plan-w" &&
	grep -qF '# write: deny (session C:\proj<U+202E>gpj.exe\x<U+202E>y)' "$T/plan-w"
ok $? "R38 ... and in the reasons of its ACL edits"
"$CONFINE" plan --target windows --workspace 'C:\proj\u{202E}gpj.exe' -- cmd >"$T/plan-w2" 2>&1
is "$(grep '^workspace' "$T/plan-w2")" 'workspace: C:\proj\u{202E}gpj.exe' \
	"R38 a Windows name holding the text \\u{202E} reads differently from one holding U+202E"
cd "$W" || exit 1
export HOME=$T/home

# --- check: a rule file under a strange name ---
mkdir -p "$T/r${RLO}x"
echo '{"version": 1, "rules": [' >"$T/r${RLO}x/rules.json"
"$CONFINE" check "$T/r${RLO}x/rules.json" >"$T/check" 2>&1
raw "$T/check"
ok $? "R38 check names the file escaped (got: $(head -1 "$T/check"))"
done_testing
