#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Mounts follow renames (THREATS round 2; SPEC 3 R33): a protection mounted on a/b moves with a
# when a is renamed, and the command could then make a fresh, unprotected a/b for the host.
# Every ancestor of a protected path inside a writable area is a mount point of its own, so
# every rename (and removal) of it fails with EBUSY; the protected path itself too.  Siblings
# stay writable and renameable.  Controls: the same renames work on the host.  As root and as
# uid 65534.
# landlock (SPEC 3.3) mounts nothing: its rules follow inodes, not names, and every directory on
# the way to a protected path is split, keeping no right that could reach the protected entry,
# REMOVE_DIR and MAKE_DIR included.  So the same renames fail there with EACCES (no right to
# take an entry out of a split directory, and confine's supervisor, which makes the other
# entries of a split directory in a writable area, refuses an ancestor of a protected path),
# siblings rename as on bwrap, and a new name for a protected inode in a writable place (a
# hard link, a move) is refused because it would lend the inode rights it lacks.  The plan
# names the split directories instead of the pinned ones.
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
	BUSY=$(bk EBUSY EACCES)
	expect "$who" "$BUSY" "R33 the parent of a write-denied directory cannot be renamed" \
		"${deny[@]}" -- "$TRYOP" rename "$w/cfg" "$w/cfg.old"
	expect "$who" "$BUSY" "R33 the write-denied directory itself cannot be renamed" \
		"${deny[@]}" -- "$TRYOP" rename "$w/cfg/locked" "$w/cfg/l2"
	expect "$who" "$BUSY" "R33 nor its parent removed" \
		"${deny[@]}" -- "$TRYOP" rmdir "$w/cfg"
	expect "$who" "$(bk EROFS EACCES)" "the write-denied directory stays read-only" \
		"${deny[@]}" -- "$TRYOP" write "$w/cfg/locked/new"
	expect "$who" OK "a sibling of the protection stays writable" \
		"${deny[@]}" -- "$TRYOP" write "$w/cfg/open/new"
	expect "$who" OK "and renameable" \
		"${deny[@]}" -- "$TRYOP" rename "$w/cfg/open" "$w/cfg/open2"
	hx "$who" mv "$w/cfg/open2" "$w/cfg/open"
	# bwrap: a mount point, moved across mounts (EXDEV) or pinned (EBUSY), as the helper made
	# it; landlock: the supervisor refuses a protected path (EACCES).
	cx "$who" "${deny[@]}" -- "$TRYOP" rename "$w/cfg/locked" "$w/cfg/open/locked"
	case $(bk "$out" "landlock:$out") in EBUSY | EXDEV | landlock:EACCES) ok 0 "$who: the write-denied directory cannot be moved into the writable sibling ($out)" ;;
	*) ok 1 "$who: the write-denied directory cannot be moved into the writable sibling ($out)" ;; esac
	# A new name for the protected file in the writable sibling would be a writable way to it:
	# refused (bwrap: another mount; landlock: the link would lend the inode rights it lacks).
	expect "$who" EXDEV "a hard link of the write-denied file into the writable sibling is refused" \
		"${deny[@]}" -- "$TRYOP" link "$w/cfg/locked/l.txt" "$w/cfg/open/l.txt"
	[ ! -e "$w/cfg/open/l.txt" ] && [ "$(stat -c %h "$w/cfg/locked/l.txt")" = 1 ]
	ok $? "$who: no second name for it on the host"
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
		expect "$who" "$BUSY" "R33 ancestor $d of a hidden glob match cannot be renamed" \
			-- "$TRYOP" rename "$w/$d" "$w/$d.x"
	done
	expect "$who" "$BUSY" "the hidden match itself cannot be renamed" \
		-- "$TRYOP" rename "$w/a/b/c/deep.pem" "$w/a/b/c/x"
	expect "$who" OK "a directory beside the chain can" -- "$TRYOP" rename "$w/a/side" "$w/a/side2"
	hx "$who" mv "$w/a/side2" "$w/a/side"
	expect "$who" EXDEV "the hidden match cannot be linked into it" \
		-- "$TRYOP" link "$w/a/b/c/deep.pem" "$w/a/side/deep.pem"
	expect "$who" EACCES "... and stays unreadable" -- "$TRYOP" read "$w/a/b/c/deep.pem"

	# The git guards: .git cannot be renamed away and replaced.
	expect "$who" "$BUSY" "R33 .git (an ancestor of .git/hooks) cannot be renamed" \
		-- "$TRYOP" rename "$w/.git" "$w/.git.old"
	# The rule file's directory under an allow of ~/.config (R30).
	expect "$who" "$BUSY" "R33 confine's own directory cannot be renamed under --allow ~/.config:write" \
		--allow "$h/.config:write" -- "$TRYOP" rename "$h/.config/confine" "$h/.config/c2"
	expect "$who" OK "a sibling under ~/.config can" \
		--allow "$h/.config:write" -- "$TRYOP" rename "$h/.config/other" "$h/.config/other2"
	hx "$who" mv "$h/.config/other2" "$h/.config/other"
	# An allow of the home itself: the chain goes through the workspace to the home.
	expect "$who" "$BUSY" "R33 under --allow ~:write the workspace cannot be moved away either" \
		--allow "$h:write" -- "$TRYOP" rename "$w" "$h/proj.old"
	expect "$who" "$BUSY" "nor ~/.config, which holds confine's own directory" \
		--allow "$h:write" -- "$TRYOP" rename "$h/.config" "$h/.config.old"
	cx "$who" "${deny[@]}" --print-plan -- true
	if bwrap_only "pinned ancestors in the plan"; then
		grep -q "rw-bind    $w/cfg  # pinned" <<<"$out"
		ok $? "$who: --print-plan shows the pinned ancestors"
	else
		sed -n '/^split (entries created after launch get no access: fail closed):$/,/^[^ ]/p' <<<"$out" |
			grep -qx "  $w/cfg" && ! grep -q "^  $w/cfg/locked.*write" <<<"$out" &&
			grep -q "^  $w/cfg/open write  # entry of split '$w/cfg'" <<<"$out"
		ok $? "$who: landlock: --print-plan lists cfg as split, cfg/open writable, no write rule reaching cfg/locked"
	fi
done
done_testing
