#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The scan cache (SPEC 3 R32, R14, 2.4 R30): runs reuse the previous scan for directories that
# did not change, and nothing a command does between two runs, or to the cache file, makes the
# next run launch with a glob match unprotected.  Each case changes the tree (from the host or
# from inside the sandbox) and the very next run tries to read the new match: EACCES, never its
# content; the host control reads it.  The cache file attacks (truncated, world-writable, a
# symlink, written from inside the sandbox) end in a full rescan or are refused.  As root and as
# uid 65534; --report says whether the cache was used and how many directories each scan read.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin

# report FIELD: a field of the last run's report ($E/WHO/r.json)
report() { jq -r "$1" "$E/$who/r.json" 2>/dev/null; }
# hidden WHO PATH DESC: the next run cannot read PATH, the host can
hidden() {
	expect "$1" EACCES "$3: the next run cannot read it" --report "$E/$who/r.json" -- "$TRYOP" read "$2"
	expect_host "$1" "OK" "$3" "$TRYOP" read "$2"
}

for who in $RUN_USERS; do
	w=$(ws "$who")
	mkdir -p "$w/t/a/b/c" "$w/t/a/b/d" "$w/t/b" "$w/t/x"
	# 1,120 directories: past the size (1,024) where the scans look at them on several threads
	mkdir -p "$w/t/many" && (cd "$w/t/many" && seq -f 'm%g/n' 1 560 | xargs mkdir -p &&
		seq -f 'm%g/n/file.txt' 1 560 | xargs touch)
	echo k-secret >"$w/t/b/k.pem"
	ln -s ../x "$w/t/l"
	chmod -R a+rX "$w/t"
	[ "$who" = nobody ] && chown -R -h 65534:65534 "$w/t"
done
# The one wait of this file: the tree's directories get older than the racy window (2 s) of
# the scans that follow, so that those can trust what they read.
sleep 2.2

for who in $RUN_USERS; do
	h=$(home "$who")
	w=$(ws "$who")
	cache=$h/.cache/confine
	rm -rf "$cache"/scan-*

	cx "$who" --report "$E/$who/r.json" -- true
	is "$rc $(report .scan.cache)" "0 none yet" "$who: the first run has no cache"
	f=$(ls "$cache"/scan-* 2>/dev/null | head -1)
	is "$(stat -c '%a %U %F' "$f" 2>&1)" "600 $(_uname "$who") regular file" \
		"$who: R30 it leaves one: 0600, the caller's, in confine's cache directory"
	cx "$who" --report "$E/$who/r.json" -- true
	cx "$who" --report "$E/$who/r.json" -- true
	is "$(report '.scan.cache + " " + (.scan.launch.dirs_read|tostring)')" "used 0" \
		"$who: R32 a later run uses it and reads no directory"
	[ "$(report .scan.launch.dirs_reused)" -gt 40 ]
	ok $? "$who: every directory reused with one fstatat ($(report .scan.launch.dirs_reused))"
	[ "$(report .scan.launch.dirs_prechecked)" -gt 1120 ] && [ "$(report .scan.after.dirs_prechecked)" -gt 1120 ]
	ok $? "$who: R32 both scans looked at them on several threads first ($(report .scan.launch.dirs_prechecked), $(report .scan.after.dirs_prechecked))"

	# ---- New matches, made the moment before the next run. ----
	echo s >"$w/t/a/b/c/new.pem"
	[ "$who" = nobody ] && chown 65534:65534 "$w/t/a/b/c/new.pem"
	hidden "$who" "$w/t/a/b/c/new.pem" "a match created deep in the tree just before the run"
	is "$(report .scan.launch.dirs_read)" 1 "$who: that run read only the changed directory"

	cx "$who" -- sh -c "echo s >t/a/b/d/in.pem; echo \$?"
	is "$out" 0 "$who: the command creates a match"
	hidden "$who" "$w/t/a/b/d/in.pem" "a match the previous command created"

	cx "$who" -- sh -c "echo s >t/x/old.pem && touch -d 2020-01-01 t/x && echo \$?"
	is "$out" 0 "$who: the command creates a match and sets its directory's mtime back"
	hidden "$who" "$w/t/x/old.pem" "a match in a directory whose mtime was set back (its ctime was not)"

	# (From the host: inside, a directory that holds a protected match cannot move, R33.)
	mv "$w/t/a" "$w/t/a.old" && mv "$w/t/b" "$w/t/a"
	hidden "$who" "$w/t/a/k.pem" "a match moved in with a directory renamed into another's place"
	cx "$who" -- sh -c "mv t/a t/a.new; echo \$?"
	is "$out" 1 "$who: R33 inside, that directory cannot be moved on (it holds a protected match)"

	if bwrap_only "a directory split for protections inside it takes no new entry (SPEC 3.3): the swap is made from the host"; then
		cx "$who" -- sh -c "rm t/l && mkdir t/l && echo s >t/l/z.pem && echo \$?"
		is "$out" 0 "$who: the command swaps a symlink for a directory with a match"
	else
		rm "$w/t/l" && mkdir "$w/t/l" && echo s >"$w/t/l/z.pem"
		[ "$who" = nobody ] && chown -R 65534:65534 "$w/t/l"
	fi
	hidden "$who" "$w/t/l/z.pem" "a match in a directory that was a symlink"

	# ---- The cache file itself. ----
	f=$(ls "$cache"/scan-* | head -1)
	echo s >"$w/t/many/m7/n/late.pem"
	[ "$who" = nobody ] && chown 65534:65534 "$w/t/many/m7/n/late.pem"
	truncate -s 100 "$f"
	hidden "$who" "$w/t/many/m7/n/late.pem" "cache truncated"
	is "$(report .scan.cache)" truncated "$who: the truncated cache is ignored (full rescan)"
	chmod 0666 "$f"
	hidden "$who" "$w/t/many/m7/n/late.pem" "cache world-writable"
	is "$(report .scan.cache)" "writable by others" "$who: the world-writable cache is ignored"
	mv "$f" "$f.aside" && ln -s "$(basename "$f").aside" "$f"
	hidden "$who" "$w/t/many/m7/n/late.pem" "cache replaced by a symlink"
	is "$(report .scan.cache)" "a symlink" "$who: the symlinked cache is ignored"
	[ -f "$f" ] && [ ! -L "$f" ]
	ok $? "$who: and replaced by a regular file, not written through the symlink"
	rm -f "$f.aside"

	# From inside the sandbox, even where the cache's parent is writable: nothing is writable.
	cx "$who" -- true
	for allow in "$h/.cache:write" "$h:write"; do
		e=$(bk EROFS EACCES)
		expect "$who" "$e $e $e $e $e" \
			"R30 with --allow $allow the command can neither write, remove, replace nor add a cache file" \
			--allow "$allow" -- sh -c "for op in 'write $f' 'unlink $f' 'rename $f $cache/scan-moved' 'write $cache/scan-new' 'symlink $f $cache/scan-link'; do '$TRYOP' \$op; done | tr '\n' ' ' | sed 's/ \$//'"
		cx "$who" --allow "$allow" -- sh -c "mv '$cache' '$h/.cache/moved' 2>/dev/null; echo \$?"
		is "$out" 1 "$who: R33 with --allow $allow the cache directory cannot be renamed away"
	done
	cx "$who" --report "$E/$who/r.json" -- true
	is "$(report .scan.cache)" used "$who: the next run uses the cache as confine left it"

	# ---- A directory made unreadable after it was cached (R14): skipped, hidden, named. ----
	cx "$who" -- chmod 0 "$w/t/many/m3"
	if [ "$who" = nobody ]; then
		expect "$who" "EACCES" "R14 a cached directory made unreadable is skipped and hidden" \
			--report "$E/$who/r.json" -- sh -c "chmod 755 '$w/t/many/m3' 2>/dev/null; '$TRYOP' readdir '$w/t/many/m3'"
		is "$(report '[.events[] | select(.kind == "unreadable_directory_skipped") | .path] | join(" ")')" \
			"$w/t/many/m3" "$who: the report names it"
	else
		expect "$who" "OK 1" "root's scan reads it (nothing skipped; root chmods it back inside)" \
			--report "$E/$who/r.json" -- sh -c "chmod 755 '$w/t/many/m3'; '$TRYOP' readdir '$w/t/many/m3'"
		is "$(report '[.events[] | select(.kind == "unreadable_directory_skipped")] | length')" 0 \
			"$who: nothing skipped"
	fi
	chmod 755 "$w/t/many/m3"
	rm -rf "$w/t"
done
done_testing
