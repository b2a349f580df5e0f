#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The next run is a target (THREATS round 2; SPEC 2.4 R30, R10b, R14): a command must not
# create or replace a rule file the next run obeys, must not lift the user's own deny through
# the workspace file, and must not stop later runs by making a directory unreadable.  Each
# hostile run is followed by a plain run that shows what the next run obeys.  As root and as
# uid 65534.
# landlock (SPEC 3.3): the workspace root and the home are split (they hold protected paths),
# so a missing workspace rule file cannot be planted there at all (fail closed); a workspace
# that holds nothing protected takes it, and it is renamed aside as on bwrap.  Landlock does not
# govern metadata: the owner can chmod a hidden directory inside (asserted; the next run scans
# it again and its secret stays hidden).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin

userfile() { # rules...: the user rule file's text
	local IFS=,
	printf '{"version": 1, "rules": [%s]}\n' "$*"
}

for who in $RUN_USERS; do
	h=$(home "$who")
	w=$(ws "$who")
	echo private >"$w/private.txt"
	mkdir -p "$h/.config"
	[ "$who" = nobody ] && chown -R 65534:65534 "$h"
	rm -rf "$h/.config/confine"

	# ---- A user rule file that does not exist yet (R30). ----
	plant="mkdir -p '$h/.config/confine' 2>/dev/null; printf '{\"version\": 1, \"rules\": [{\"path\": \"/\", \"access\": \"write\", \"action\": \"allow\"}]}' >'$h/.config/confine/rules.json' 2>/dev/null; echo \$?"
	expect "$who" 2 "R30 under --allow ~/.config:write a missing user rule file cannot be created" \
		--allow "$h/.config:write" -- sh -c "$plant"
	is "$(stat -c '%a %U' "$h/.config/confine" 2>&1)" "700 $(_uname "$who")" \
		"$who: confine made its own directory (0700, the caller's) to hold it read-only"
	is "$(ls -A "$h/.config/confine")" "" "$who: and nothing is in it"
	rm -rf "$h/.config/confine" "$h/.config"
	expect "$who" 2 "R30 under --allow ~:write neither, even without ~/.config" \
		--allow "$h:write" -- sh -c "$plant"
	[ ! -e "$h/.config/confine/rules.json" ]
	ok $? "$who: no rule file exists afterwards"
	expect "$who" "$(bk EROFS EACCES)" "the next run cannot write outside the workspace (no planted allow)" \
		-- "$TRYOP" write "$h/x"

	# ---- An existing user rule file replaced by renaming its directory (R30, R33). ----
	userfile '{"path": "'"$w"'/private.txt", "action": "deny"}' >"$h/.config/confine/rules.json"
	[ "$who" = nobody ] && chown -R 65534:65534 "$h/.config"
	expect "$who" EACCES "the user file's deny holds" -- "$TRYOP" read "$w/private.txt"
	expect "$who" "1 2" "R30 the rule file's directory cannot be renamed away, nor the file replaced" \
		--allow "$h/.config:write" -- sh -c "mv '$h/.config/confine' '$h/.config/old' 2>/dev/null; a=\$?; echo '{}' >'$h/.config/confine/rules.json' 2>/dev/null; echo \$a \$?"
	expect "$who" EACCES "the next run still obeys the user's deny" -- "$TRYOP" read "$w/private.txt"

	# ---- R10b: a workspace file never lifts the user's deny. ----
	mkdir -p "$w/.confine"
	printf '{"version": 1, "rules": [\n  {"path": "private.txt", "action": "allow"}\n]}\n' >"$w/.confine/rules.json"
	[ "$who" = nobody ] && chown -R 65534:65534 "$w/.confine"
	expect "$who" EACCES "R10b a shipped workspace allow does not lift the user's deny" \
		-- "$TRYOP" read "$w/private.txt"
	CX_CWD=$w hx "$who" "$FIX/confine" explain --access read "$w/private.txt"
	grep -q "deny   user.*private.txt" <<<"$out" && grep -q "outranked: $w/.confine/rules.json:2:3  private.txt allows it, but a workspace file never lifts a deny of the user file (R10b)" <<<"$out"
	ok $? "$who: explain names both rules" || diag "$out"
	CX_CWD=$w hx "$who" "$FIX/confine" explain --json --access read "$w/private.txt"
	is "$(jq -r '.[0].decision + " " + .[0].layer + " " + .[0].outranked.layer + " " + .[0].outranked.pattern' <<<"$out")" \
		"deny user workspace private.txt" "$who: explain --json names both rules"
	echo '{"version": 1, "rules": []}' >"$w/.confine/rules.json"
	rm -f "$h/.config/confine/rules.json"

	# ---- A workspace rule file planted where none existed (R30). ----
	# landlock: the workspace root is split; confine's supervisor makes its new entries, as
	# bwrap's writable bind does.
	rm -rf "$w/.confine"
	plantws="mkdir .confine && printf '{\"version\": 1, \"rules\": [{\"path\": \"src.txt\", \"action\": \"deny\"}]}' >.confine/rules.json; echo \$?"
	pw=$w
	CX_CWD=$pw cx "$who" --workspace "$pw" -- sh -c "$plantws"
	is "$out" 0 "$who: a missing .confine can be created inside"
	[ ! -e "$pw/.confine" ] && [ -e "$pw/.confine.confine-disabled/rules.json" ]
	ok $? "$who: R30 it was renamed aside after the run"
	grep -q "protected path created during the run: '$pw/.confine'.*so it was renamed to" <<<"$err" &&
		! grep -q "from the next run on it is protected" <<<"$err"
	ok $? "$who: the warning says what happened to it (not that it is protected)"
	CX_CWD=$pw expect "$who" "OK src" "the next run obeys only rules the user wrote" --workspace "$pw" -- "$TRYOP" cat "$pw/src.txt"
	rm -rf "$pw/.confine.confine-disabled"
	[ "$pw" = "$w" ] || rm -rf "$pw"
	mkdir -p "$w/.confine" && echo '{"version": 1, "rules": []}' >"$w/.confine/rules.json"
	[ "$who" = nobody ] && chown -R 65534:65534 "$w/.confine"

	# ---- A directory made unreadable: later runs go on (R14). ----
	mkdir -p "$w/closed" && echo inner-secret >"$w/closed/.env" && echo x >"$w/closed/plain"
	[ "$who" = nobody ] && chown -R 65534:65534 "$w/closed"
	cx "$who" -- chmod 0 "$w/closed"
	is "$rc" 0 "$who: the command makes a directory unreadable"
	expect "$who" "EACCES" "R14 the next run still starts, and the directory's secret stays hidden" \
		-- sh -c "chmod 755 '$w/closed' 2>/dev/null; '$TRYOP' read '$w/closed/.env'"
	if [ "$who" = nobody ]; then
		grep -q "directory skipped by the glob scan: '$w/closed'" <<<"$err"
		ok $? "$who: the skipped directory is reported"
		# bwrap hides it as a whole; on the landlock backend confine's supervisor refuses the
		# chmod of a hidden path (R42).
		expect "$who" "EACCES" "it is hidden as a whole: the owner cannot chmod it back inside" \
			-- sh -c "chmod 755 '$w/closed' 2>/dev/null; '$TRYOP' read '$w/closed/plain'"
		is "$(stat -c %a "$w/closed")" 0 "$who: ... its mode is unchanged on the host"
	else
		! grep -q "directory skipped" <<<"$err"
		ok $? "$who: root's scan reads it (nothing skipped)"
		expect "$who" "OK x" "root's sandbox reads the plain file after chmod (it owns it)" \
			-- sh -c "chmod 755 '$w/closed'; '$TRYOP' cat '$w/closed/plain'"
	fi
	chmod 755 "$w/closed"
	rm -rf "$w/closed"

	# ---- A tree deeper than the depth budget: refused, naming the tree. ----
	# (landlock: in WS/out, the workspace root takes no new entry; the scan names the
	# workspace's entry that holds the tree)
	W=$(bk "$w" "$w/out")
	CX_CWD=$W cx "$who" -- sh -c 'p=deep; for i in $(seq 70); do p=$p/d; done; mkdir -p $p'
	is "$rc" 0 "$who: the command makes a deep tree"
	cx "$who" -- true
	is "$rc" 125 "$who: the next run is refused (a deep tree cannot be scanned)"
	grep -q "^confine: glob scan failed: '$(bk "$w/deep" "$w/out")': the tree under it is deeper than 64 directories" <<<"$err" &&
		grep -q "^hint: remove that tree or move it out of the workspace" <<<"$err"
	ok $? "$who: the message names the tree responsible and the remedy" || diag "$err"
	rm -rf "$W/deep"
	expect "$who" "OK" "after removing it runs go on" -- "$TRYOP" read "$w/src.txt"
done
done_testing
