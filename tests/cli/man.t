#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The man pages: every page renders without a warning (man --warnings, and of every kind), and
# confine(1) describes every option that a command's --help lists, each as an item of its own
# (.TP/.TQ) in OPTIONS, where a reader looks for it.
source "$(dirname "$0")/../lib.sh"

if ! command -v man >/dev/null || ! command -v groff >/dev/null; then
	skip "man and groff are not installed (scripts/install-deps test installs man-db and groff)"
	done_testing
fi
pages=("$TOP"/doc/*.[1-9])
[ "${#pages[@]}" -ge 2 ]
ok $? "the man pages: ${pages[*]##*/}"
for p in "${pages[@]}"; do
	w=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$p" 2>&1 >/dev/null)
	is "$w" "" "man --warnings -l ${p##*/}: no warning"
	w=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings=all -l "$p" 2>&1 >/dev/null)
	is "$w" "" "man --warnings=all -l ${p##*/}: no warning of any kind"
	[ "$(MANWIDTH=80 man -l "$p" 2>/dev/null | wc -l)" -gt 20 ]
	ok $? "${p##*/} renders as text"
done

# The items of OPTIONS in confine(1): the line after each .TP and .TQ between ".SH OPTIONS" and
# the next .SH, with groff's escapes of '-' undone.
page=$TOP/doc/confine.1
items=$(awk '/^\.SH /{in_opt = ($2 == "OPTIONS"); next} in_opt && prev ~ /^\.T[PQ]/ {print} {prev = $0}' "$page" | sed 's/\\-/-/g')
outside=$(awk '/^\.SH /{in_opt = ($2 == "OPTIONS"); next} !in_opt && prev ~ /^\.T[PQ]/ && /^\.B[IR]? +\\-/ {print} {prev = $0}' "$page")
is "$outside" "" "confine(1): no option item outside OPTIONS"
for c in run explain plan card probe check; do
	opts=$("$CONFINE" "$c" --help | grep -oE '^ {2,}(-[a-z], )?--[a-z][a-z-]*' | grep -oE -- '--[a-z][a-z-]*' | sort -u)
	missing=""
	for o in $opts; do
		grep -qE -- "(^|[^a-z-])$o([^a-z-]|$)" <<<"$items" || missing="$missing $o"
	done
	is "$missing" "" "confine(1) OPTIONS has an item for each option of 'confine $c --help'"
done
# Each item of a section whose title names commands, "Network (run, explain, plan, card)", is
# an option every one of them takes, unless the line after it names which take it, ".RB ( run )"
# as the page writes it: the parser must not call it "not an option of" any of them.  Its value
# is a placeholder: a refused value is not the question here.  In the test's own directory (a
# FILE value such as --report's is written where it runs).
while IFS='|' read -r opt cmds; do
	for c in $cmds; do
		e=$(cd "$T" && "$CONFINE" "$c" "$opt" x </dev/null 2>&1 >/dev/null)
		grep -qF "not an option of 'confine $c'" <<<"$e"
		ok $((!$?)) "confine(1) lists $opt for '$c': 'confine $c' takes it"
	done
done < <(awk '
	/^\.SH /{in_opt = ($2 == "OPTIONS"); next}
	in_opt && /^\.SS .*\(.*\)/ {s = $0; sub(/^[^(]*\(/, "", s); sub(/\).*/, "", s); gsub(/,/, "", s); cmds = s; next}
	in_opt && /^\.SS/ {cmds = ""; next}
	item != "" {
		if ($0 ~ /^\.RB \( (run|explain|plan|card)( |,|"|$)/) {o = $0; sub(/^\.RB \( /, "", o); sub(/ \).*/, "", o); gsub(/[",]/, " ", o); print item "|" o}
		else print item "|" cmds
		item = ""
	}
	in_opt && cmds != "" && prev ~ /^\.T[PQ]/ && match($0, /\\-\\-[a-z\\-]*/) {item = substr($0, RSTART, RLENGTH); gsub(/\\/, "", item)}
	{prev = $0}' "$page")

for o in --help --version; do
	grep -q -- "^\\.B.* $o\\b\\|^\\.B $o\$" <(sed 's/\\-/-/g' "$page")
	ok $? "confine(1) lists $o"
done

done_testing
