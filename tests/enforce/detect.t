#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Rules that need more than one mount, and what the sandbox cannot prevent but must report:
# an allow under a deny (R13), the workspace rule file unwritable from inside (override layer),
# and post-run detection (R14, R23): a file created during the run that matches a glob rule,
# and a protected path that was missing at launch.  As root and as uid 65534.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin
# landlock (SPEC 3.3): a denied write is EACCES, a hidden path's name stays visible (its content
# is EACCES, never ENOENT), and a split directory (the workspace root, a directory holding a
# protected path) takes no new entry: new files go to WS/out there.
RO=$(bk EROFS EACCES)
GONE=$(bk ENOENT EACCES)
for who in $RUN_USERS; do
	h=$(home "$who")
	w=$(ws "$who")
	W=$(bk "$w" "$w/out")
	mkdir -p "$h/vault/public" "$w/keys"
	echo hidden >"$h/vault/secret.txt"
	echo shared >"$h/vault/public/p.txt"
	[ "$who" = nobody ] && chown -R 65534:65534 "$h/vault" "$w/keys"

	# R13: an allow under a deny punches through; the rest of the denied tree stays hidden.
	expect "$who" "OK shared" "allow ~/vault/public:read under deny ~/vault: readable" \
		--allow "$h/vault/public:read" --deny "$h/vault" -- "$TRYOP" cat "$h/vault/public/p.txt"
	expect "$who" "$RO" "allow ~/vault/public:read under deny ~/vault: not writable" \
		--allow "$h/vault/public:read" --deny "$h/vault" -- "$TRYOP" write "$h/vault/public/p.txt"
	expect "$who" "$GONE" "allow under deny: a sibling inside the hidden directory is $(bk absent "refused (landlock: its name stays visible)")" \
		--allow "$h/vault/public:read" --deny "$h/vault" -- "$TRYOP" read "$h/vault/secret.txt"
	expect "$who" "EACCES" "allow under deny: the hidden directory cannot be listed" \
		--allow "$h/vault/public:read" --deny "$h/vault" -- "$TRYOP" readdir "$h/vault"
	expect "$who" "EACCES" "control: deny ~/vault alone hides the file with EACCES" \
		--deny "$h/vault" -- "$TRYOP" read "$h/vault/secret.txt"

	# The closed-home posture (issue: a secret the guard list forgot): deny reading the whole
	# home, give back the toolchain directories a build needs.  The workspace inside the home
	# punches through.
	mkdir -p "$h/tools/bin"
	echo tool >"$h/tools/bin/cc"
	echo forgotten >"$h/.forgotten-token"
	[ "$who" = nobody ] && chown -R 65534:65534 "$h/tools" "$h/.forgotten-token"
	closed=(--allow "$h/tools:read" --deny "$h:read")
	expect "$who" "OK tool" "closed home: an allowed toolchain directory is readable" \
		"${closed[@]}" -- "$TRYOP" cat "$h/tools/bin/cc"
	expect "$who" "$GONE" "closed home: a secret the guards forgot is out of reach" \
		"${closed[@]}" -- "$TRYOP" read "$h/.forgotten-token"
	expect "$who" "EACCES" "closed home: the home cannot be listed" \
		"${closed[@]}" -- "$TRYOP" readdir "$h"
	expect "$who" "OK" "closed home: the workspace inside it stays writable" \
		"${closed[@]}" -- "$TRYOP" write "$W/closed-home-out"
	expect "$who" "OK forgotten" "control: without the posture the forgotten secret is readable" \
		-- "$TRYOP" cat "$h/.forgotten-token"

	# --session-rules FILE: the session layer from a rule file, same format (SPEC 2.1).
	sr=$E/$who-session.json
	printf '{"version": 1, "rules": [\n  {"path": "%s", "access": "read", "action": "allow"},\n  {"path": "%s", "action": "deny"}\n]}\n' \
		"$h/vault/public" "$h/vault" >"$sr"
	chmod 644 "$sr"
	expect "$who" "OK shared" "--session-rules: its allow under its deny applies" \
		--session-rules "$sr" -- "$TRYOP" cat "$h/vault/public/p.txt"
	expect "$who" "$GONE" "--session-rules: its deny applies (the hidden directory stays traversable)" \
		--session-rules "$sr" -- "$TRYOP" read "$h/vault/secret.txt"
	printf '{"version": 1, "rules": [\n  {"path": "x", "action": "perhaps"}\n]}\n' >"$sr"
	rm -f "$W/session-ran"
	cx "$who" --session-rules "$sr" -- "$TRYOP" write "$W/session-ran"
	is "$rc" 125 "$who: R5 a malformed --session-rules file refuses the run"
	echo "$err" | grep -q "^confine: invalid rule file: '$sr' (line 2, column 27): /rules/0/action: "
	ok $? "$who: the refusal names FILE, LINE, COLUMN and the JSON pointer"
	[ ! -e "$W/session-ran" ]
	ok $? "$who: the command did not run"
	cx "$who" --session-rules "$E/missing-$who.json" -- true
	is "$rc" 125 "$who: R6 a --session-rules file that does not exist refuses the run"
	# A hostile repository plants a FIFO as its rule file: refused at once, never a hang.
	cp "$w/.confine/rules.json" "$E/rules.$who.saved"
	rm -f "$w/.confine/rules.json"
	mkfifo "$w/.confine/rules.json"
	[ "$who" = nobody ] && chown 65534:65534 "$w/.confine/rules.json"
	start=$SECONDS
	cx "$who" -- true
	is "$rc" 125 "$who: R6 a FIFO as the workspace rule file refuses the run"
	[ $((SECONDS - start)) -lt 5 ]
	ok $? "$who: without blocking on the FIFO"
	rm -f "$w/.confine/rules.json"
	cp "$E/rules.$who.saved" "$w/.confine/rules.json"

	# Overrides: the workspace rule file and the .confine directory are write-denied.
	expect "$who" "$RO" "WS/.confine/rules.json unwritable from inside" \
		-- "$TRYOP" write "$w/.confine/rules.json"
	expect "$who" "$RO" "WS/.confine: no new file" -- "$TRYOP" write "$w/.confine/extra.json"
	expect "$who" "OK" "WS/.confine/rules.json still readable" -- "$TRYOP" read "$w/.confine/rules.json"
	expect "$who" "$RO" "--allow WS/.confine:write does not lift the override" \
		--allow "$w/.confine:write" -- "$TRYOP" write "$w/.confine/rules.json"

	# R14/R23: a new match of a glob rule cannot be hidden while the command runs, and is
	# reported after it; an existing match stays hidden.  landlock: keys/ holds old.pem, so it
	# is split; confine's supervisor makes its new entries (a writable area), as on bwrap.
	K=$w/keys
	rm -f "$K/new.pem"
	echo old >"$w/keys/old.pem"
	[ "$who" = nobody ] && chown 65534:65534 "$w/keys/old.pem"
	cx "$who" -- "$TRYOP" write "$K/new.pem"
	is "$out" "OK" "$who: creating WS/keys/new.pem during the run succeeds (not preventable)"
	echo "$err" | grep -q "file matching a glob rule created during the run: '$K/new.pem': rule '\*\*/\*.pem'"
	ok $? "$who: the new .pem is reported after the run"
	echo "$err" | grep -q "old.pem"
	ok $((!$?)) "$who: the existing .pem is not reported"
	expect "$who" "EACCES" "the next run protects the new .pem" -- "$TRYOP" read "$K/new.pem"
	cx "$who" -- "$TRYOP" read "$w/keys/old.pem"
	is "$out" "EACCES" "$who: the existing .pem stayed hidden"
	[ -z "$err" ]
	ok $? "$who: a run that creates nothing protected reports nothing"

	# A missing guarded file.  landlock: the home is split (it holds ~/.ssh and the others);
	# under --allow ~:write it is a writable area, whose new entries confine's supervisor
	# makes, as on bwrap.
	rm -f "$h/.netrc"
	G=$h/.netrc
	g="~/.netrc"
	cx "$who" --allow "$h:write" -- "$TRYOP" write "$G"
	is "$out" "OK" "$who: a missing guarded file ($g) can be created (nothing to protect at launch)"
	echo "$err" | grep -q "protected path created during the run: '$G'"
	ok $? "$who: its creation is reported after the run"
	expect "$who" "EACCES" "the next run hides the new $g" -- "$TRYOP" read "$G"
	rm -f "$h/.netrc" "$G" "$K/new.pem"
done
done_testing
