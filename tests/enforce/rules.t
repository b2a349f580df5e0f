#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Rules enforced by the sandbox: session rules (--deny, --ask, --allow), the workspace file and
# the user file (§2.1, §2.3), relative patterns and globs (§2.2), a guard no allow lifts (R9),
# the first matching rule wins (R8), an allow reopening write beneath a read-deny is refused
# (R13).  As root and as uid 65534.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin

for who in $RUN_USERS; do
	h=$(home "$who")
	w=$(ws "$who")
	mkdir -p "$h/data/sub" "$w/private" "$w/ro" "$w/vendor"
	echo data >"$h/data/file"
	echo private >"$w/private/p.txt"
	echo ro >"$w/ro/r.txt"
	echo token >"$w/vendor/a.secret"
	echo plain >"$w/vendor/a.txt"
	[ "$who" = nobody ] && chown -R 65534:65534 "$h/data" "$w/private" "$w/ro" "$w/vendor"

	# --- session rules ---
	expect "$who" "OK notes" "control: ~/notes.txt readable without a rule" -- "$TRYOP" cat "$h/notes.txt"
	expect "$who" "EACCES" "--deny FILE: read" --deny "$h/notes.txt" -- "$TRYOP" read "$h/notes.txt"
	expect "$who" "$(bk EROFS EACCES)" "--deny FILE: write" --deny "$h/notes.txt" -- "$TRYOP" write "$h/notes.txt"
	expect "$who" "EACCES" "--deny DIR (relative to the workspace): read below it" \
		--deny private -- "$TRYOP" read "$w/private/p.txt"
	expect "$who" "EACCES" "--deny DIR: readdir" --deny private -- "$TRYOP" readdir "$w/private"
	expect "$who" "OK" "control: WS/ro writable without a rule" -- "$TRYOP" write "$w/ro/new"
	expect "$who" "$(bk EROFS EACCES)" "--deny DIR:write: create below it" --deny ro:write -- "$TRYOP" write "$w/ro/new2"
	expect "$who" "OK ro" "--deny DIR:write: still readable" --deny ro:write -- "$TRYOP" cat "$w/ro/r.txt"
	expect "$who" "EACCES" "--ask is enforced as deny (§2.3)" --ask "$h/notes.txt:read" -- "$TRYOP" read "$h/notes.txt"
	expect "$who" "EACCES" "--deny '**/*.secret': an existing match hidden" \
		--deny '**/*.secret' -- "$TRYOP" read "$w/vendor/a.secret"
	expect "$who" "OK plain" "--deny '**/*.secret': a non-match readable" \
		--deny '**/*.secret' -- "$TRYOP" cat "$w/vendor/a.txt"
	expect "$who" "$(bk EROFS EACCES)" "control: ~/data not writable without a rule" -- "$TRYOP" write "$h/data/new"
	expect "$who" "OK" "--allow ~/data:write" --allow "$h/data:write" -- "$TRYOP" write "$h/data/new"
	is "$(cat "$h/data/new" 2>&1)" "x" "$who: ~/data/new on the host"
	expect "$who" "EACCES" "R9 --allow ~/.ssh does not lift the guard" --allow "$h/.ssh" -- "$TRYOP" read "$h/.ssh/id_ed25519"
	expect "$who" "EACCES" "R9 --allow ~/.npmrc:read does not lift the guard" --allow "$h/.npmrc:read" -- "$TRYOP" read "$h/.npmrc"
	expect "$who" "EACCES" "R8 first match wins: --deny ~/data --allow ~/data/sub:write" \
		--deny "$h/data" --allow "$h/data/sub:write" -- "$TRYOP" write "$h/data/sub/f"
	rm -f "$w/out/ran"
	expect_rc "$who" 125 "R13 --allow ~/data/sub:write --deny ~/data: write beneath a read-deny refused" \
		--allow "$h/data/sub:write" --deny "$h/data" -- "$TRYOP" write "$w/out/ran"
	[ ! -e "$w/out/ran" ] && [ ! -e "$h/data/sub/f" ]
	ok $? "$who: the refused commands did not run"

	# --- the workspace file and the user file ---
	cp "$w/.confine/rules.json" "$E/rules.saved"
	printf '{"version": 1, "rules": [\n  {"path": "private", "action": "deny"},\n  {"path": "ro", "access": "write", "action": "deny"}\n]}\n' \
		>"$w/.confine/rules.json"
	expect "$who" "EACCES" "workspace file: deny private" -- "$TRYOP" read "$w/private/p.txt"
	expect "$who" "$(bk EROFS EACCES)" "workspace file: write-deny ro" -- "$TRYOP" write "$w/ro/new3"
	expect "$who" "OK ro" "workspace file: ro still readable" -- "$TRYOP" cat "$w/ro/r.txt"
	cp "$E/rules.saved" "$w/.confine/rules.json"

	mkdir -p "$h/.config/confine"
	printf '{"version": 1, "rules": [\n  {"path": "~/data", "access": "write", "action": "allow"},\n  {"path": "~/notes.txt", "access": "read", "action": "deny"}\n]}\n' \
		>"$h/.config/confine/rules.json"
	[ "$who" = nobody ] && chown -R 65534:65534 "$h/.config/confine"
	expect "$who" "OK" "user file: allow ~/data write" -- "$TRYOP" write "$h/data/new4"
	[ -f "$h/data/new4" ]
	ok $? "$who: ~/data/new4 on the host"
	expect "$who" "EACCES" "user file: deny ~/notes.txt read" -- "$TRYOP" read "$h/notes.txt"
	# R30: confine's own directory is write-deny whatever the allow (landlock: EACCES).
	expect "$who" "$(bk EROFS EACCES)" "R30: --allow ~/.config/confine:write does not open confine's own directory" \
		--allow "$h/.config/confine:write" -- "$TRYOP" write "$h/.config/confine/other"
	expect "$who" "$(bk EROFS EACCES)" "override: the user file stays write-denied under that allow" \
		--allow "$h/.config/confine:write" -- "$TRYOP" write "$h/.config/confine/rules.json"
	rm -rf "$h/.config/confine"
	expect "$who" "OK notes" "without the user file ~/notes.txt is readable again" -- "$TRYOP" cat "$h/notes.txt"
done

done_testing
