#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Mounts follow renames (THREATS round 2; SPEC 3 R33): a protection mounted on a/b moves with a
# when a is renamed, and the command could then make a fresh, unprotected a/b for the host.
# Every ancestor of a protected path inside a writable area is a mount point of its own, so
# every rename (and removal) of it fails with EBUSY; the protected path itself too.  Siblings
# stay writable and renameable.  Controls: the same renames work on the host.  As root and as
# uid 65534.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin
for who in $RUN_USERS; do
	h=$(home "$who")
	w=$(ws "$who")
	mkdir -p "$w/cfg/locked" "$w/cfg/open" "$w/a/b/c" "$w/a/side" "$h/.config/confine" \
		"$h/.config/other"
	echo l >"$w/cfg/locked/l.txt"
	echo k >"$w/a/b/c/deep.pem"
	echo '{"version": 1, "rules": []}' >"$h/.config/confine/rules.json"
	[ "$who" = nobody ] && chown -R 65534:65534 "$h"

	# The issue's example: --deny ws/cfg/locked:write, then mv cfg cfg.old && mkdir -p cfg/locked.
	deny=(--deny "$w/cfg/locked:write")
	expect "$who" EBUSY "R33 the parent of a write-denied directory cannot be renamed" \
		"${deny[@]}" -- "$TRYOP" rename "$w/cfg" "$w/cfg.old"
	expect "$who" EBUSY "R33 the write-denied directory itself cannot be renamed" \
		"${deny[@]}" -- "$TRYOP" rename "$w/cfg/locked" "$w/cfg/l2"
	expect "$who" EBUSY "R33 nor its parent removed" \
		"${deny[@]}" -- "$TRYOP" rmdir "$w/cfg"
	expect "$who" EROFS "the write-denied directory stays read-only" \
		"${deny[@]}" -- "$TRYOP" write "$w/cfg/locked/new"
	expect "$who" OK "a sibling of the protection stays writable" \
		"${deny[@]}" -- "$TRYOP" write "$w/cfg/open/new"
	expect "$who" OK "and renameable" \
		"${deny[@]}" -- "$TRYOP" rename "$w/cfg/open" "$w/cfg/open2"
	hx "$who" mv "$w/cfg/open2" "$w/cfg/open"
	cx "$who" "${deny[@]}" -- sh -c "mv '$w/cfg' '$w/cfg.old' 2>/dev/null; mkdir -p '$w/cfg/locked' && echo planted >'$w/cfg/locked/l.txt'"
	is "$(cat "$w/cfg/locked/l.txt")" l "$who: the example attack leaves the protected file as it was"
	[ ! -e "$w/cfg.old" ]
	ok $? "$who: and nothing was moved away"
	expect_host "$who" OK "control: the same rename works without confine" \
		"$TRYOP" rename "$w/cfg" "$w/cfg.old"
	hx "$who" mv "$w/cfg.old" "$w/cfg"

	# A sibling class: a glob match deep in the tree (the built-in **/*.pem guard), every
	# ancestor up to the workspace.
	for d in a a/b a/b/c; do
		expect "$who" EBUSY "R33 ancestor $d of a hidden glob match cannot be renamed" \
			-- "$TRYOP" rename "$w/$d" "$w/$d.x"
	done
	expect "$who" EBUSY "the hidden match itself cannot be renamed" \
		-- "$TRYOP" rename "$w/a/b/c/deep.pem" "$w/a/b/c/x"
	expect "$who" OK "a directory beside the chain can" -- "$TRYOP" rename "$w/a/side" "$w/a/side2"
	hx "$who" mv "$w/a/side2" "$w/a/side"

	# The git guards: .git cannot be renamed away and replaced.
	expect "$who" EBUSY "R33 .git (an ancestor of .git/hooks) cannot be renamed" \
		-- "$TRYOP" rename "$w/.git" "$w/.git.old"
	# The rule file's directory under an allow of ~/.config (R30).
	expect "$who" EBUSY "R33 confine's own directory cannot be renamed under --allow ~/.config:write" \
		--allow "$h/.config:write" -- "$TRYOP" rename "$h/.config/confine" "$h/.config/c2"
	expect "$who" OK "a sibling under ~/.config can" \
		--allow "$h/.config:write" -- "$TRYOP" rename "$h/.config/other" "$h/.config/other2"
	hx "$who" mv "$h/.config/other2" "$h/.config/other"
	# An allow of the home itself: the chain goes through the workspace to the home.
	expect "$who" EBUSY "R33 under --allow ~:write the workspace cannot be moved away either" \
		--allow "$h:write" -- "$TRYOP" rename "$w" "$h/proj.old"
	expect "$who" EBUSY "nor ~/.config, which holds confine's own directory" \
		--allow "$h:write" -- "$TRYOP" rename "$h/.config" "$h/.config.old"
	cx "$who" "${deny[@]}" --print-plan -- true
	grep -q "rw-bind    $w/cfg  # pinned" <<<"$out"
	ok $? "$who: --print-plan shows the pinned ancestors"
done
done_testing
