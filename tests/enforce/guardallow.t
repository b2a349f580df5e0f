#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An allow that a built-in guard outranks (SPEC 2.3: no allow of a lower layer lifts a guard)
# does nothing; confine says so before the command starts, with the remedy (the one-time
# approval of an escalation), instead of letting npm quietly use another registry than the one
# in ~/.npmrc.  The same for an override (confine's own state).  An allow of a directory that
# merely holds guarded paths says nothing.  As root and as uid 65534, both backends.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin

for who in $RUN_USERS; do
	h=$(home "$who")
	expect_host "$who" "OK npm-secret" "~/.npmrc is readable on the host" "$TRYOP" cat "$h/.npmrc"

	# The command writes a line to stderr first thing: the warning must come before it.
	cx "$who" --allow '~/.npmrc:read' --report "$h/ga.json" -- sh -c "echo command-started >&2; '$TRYOP' read '$h/.npmrc'"
	is "$out" EACCES "$who: --allow ~/.npmrc:read does not lift the guard (EACCES)"
	first=$(head -n 1 <<<"$err")
	is "$first" "confine: warning: allow has no effect: '$h/.npmrc': the built-in guard '~/.npmrc' outranks the session allow '~/.npmrc' for read; no rule lifts a guard" \
		"$who: confine says so, first thing"
	grep -q "^hint: only a one-time approval runs 'sh' past a guard: 'confine card' with the same options and command prints the card and the line that runs the command once outside the sandbox" <<<"$err"
	ok $? "$who: ... with the remedy: the card and the escalation"
	[ "$(grep -n 'allow has no effect' <<<"$err" | cut -d: -f1)" -lt "$(grep -n '^command-started$' <<<"$err" | cut -d: -f1)" ]
	ok $? "$who: ... before the command started (stderr: $err)"
	is "$(jq -r '.notices[] | [.kind, .path, .rule] | join(" ")' "$h/ga.json")" \
		"allow_outranked_by_guard $h/.npmrc ~/.npmrc" "$who: the report lists it under notices"

	# In the user rule file too, and for a path inside a guarded directory.
	mkdir -p "$h/.config/confine"
	printf '{"version": 1, "rules": [{"path": "~/.ssh/config", "access": "read", "action": "allow"}]}\n' >"$h/.config/confine/rules.json"
	[ "$who" = nobody ] && chown -R 65534:65534 "$h/.config"
	cx "$who" -- true
	grep -q "^confine: warning: allow has no effect: '$h/.ssh/config': the built-in guard '~/.ssh' outranks the user allow '~/.ssh/config' for read" <<<"$err"
	ok $? "$who: an allow of the user file inside ~/.ssh is said too (stderr: $err)"
	rm -f "$h/.config/confine/rules.json"

	# An override: confine's own state.
	cx "$who" --allow "$h/.config/confine:write" -- true
	grep -q "^confine: warning: allow has no effect: '$h/.config/confine': the override .* outranks the session allow '$h/.config/confine' for write; it keeps confine's own state" <<<"$err"
	ok $? "$who: an allow of confine's own directory: said, the override named"
	grep -q "^hint: remove the allow" <<<"$err"
	ok $? "$who: ... with its remedy"

	# Allows that do what they say: nothing to warn about.
	uid=$([ "$who" = nobody ] && echo 65534 || id -u)
	cx "$who" --allow '~:read' --allow "$h/notes.txt" --allow "/run/user/$uid/gnupg/S.gpg-agent" -- "$TRYOP" cat "$h/notes.txt"
	is "$out|$err" "OK notes|" "$who: an allow of the home (which holds guards), of a plain file, of one socket below a host-socket guard: no warning"
done
done_testing
