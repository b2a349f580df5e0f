#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Two sandboxes, one workspace (THREATS round 2; SPEC 3 R34, R33).  Sandbox A swaps directories
# in a loop while sandbox B starts again and again: B's hiding mounts must never land on a
# decoy, B must never read the secret, and no mount point may be left on the host.
#  1. The issue's example: A loops `mv -T sub .real; mkdir sub; rmdir sub; mv -T .real sub`
#     with the same rules as B.  sub holds a guarded a.pem, so sub is a mount point in A too
#     (R33) and A's renames fail: B reads EACCES every time.
#  2. A sibling: A has fewer protections than B (B denies sub2/data.txt, A does not), so A's
#     swaps succeed and B races them.  A can write (and read) the file itself (the control), so
#     B is no way in for A: this case stresses B's setup check, it is not a boundary.  Every
#     run of B ends in one of: the real file hidden (EACCES); started while the decoy was in
#     place (ENOENT); refused after the workspace kept changing (125); or the file read because
#     it was missing at B's launch and renamed back in after the command started (SPEC R14: a
#     mount namespace protects what exists at launch).  bubblewrap itself creates a missing
#     mount point with creat(2) after a stat, so a swap between the two can even empty the
#     real file: A could do that itself, with its write access.  No run hangs or fails
#     otherwise.
# 200 launches of B in case 1, 100 in case 2, per user.  As root and as uid 65534.
# landlock (SPEC 3.3) mounts nothing: what B's setup must get right is that its rules land on
# the inodes its plan saw, and anything else gets no right at all (fail closed).  In case 1 A's
# renames fail because the workspace root is split in A too (EACCES); in case 2 the swapped
# directory lies in ws/out, which only B splits, so that A's swaps succeed.  30 launches (15)
# there: no mount setup to race, the landlock pass stays short.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin
# 200 races per case; a sanitizer build (its own CI pass, for memory errors) runs 50.
N=${CONFINE_RACE_RUNS:-${ASAN_OPTIONS:+$(bk 50 30)}}
N=${N:-$(bk 200 30)}
# The sibling case is a stress of the setup check, not a boundary (see 2.): fewer runs.
N2=$((N / 2))

swapper() { # who dir stopfile countfile: A, in the background, as a sandbox of its own
	local who=$1 d=$2 stop=$3 count=$4
	# .real beside the swapped directory (dir may be out/sub2)
	local base
	base=$(dirname "$(ws "$who")/$d")
	d=$(basename "$d")
	cx_bg "$who" --allow "$(dirname "$count"):write" -- sh -c "cd '$base' && n=0 t=0 && end=\$((\$(date +%s) + 120)) &&
		while [ ! -e '$stop' ] && [ \$(date +%s) -lt \$end ]; do
			t=\$((t + 1))
			if mv -T '$d' .real 2>/dev/null; then
				mkdir '$d' 2>/dev/null; rmdir '$d' 2>/dev/null
				n=\$((n + 1))
				# Something left in the decoy (a mount point of B's) keeps it: stop.
				mv -T .real '$d' 2>/dev/null || break
			fi
			[ \$t = 1 ] && : >'$count.started'
		done; echo \"\$n \$t\" >'$count'"
}

wait_file() { # path seconds
	local i
	for ((i = 0; i < $2 * 50; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.02
	done
	return 1
}

tree_of() { (cd "$1" && find . -path ./.git -prune -o -print | LC_ALL=C sort | tr '\n' ' '); }

for who in $RUN_USERS; do
	w=$(ws "$who")
	S2=$(bk sub2 out/sub2)
	mkdir -p "$w/sub" "$w/$S2"
	echo pem-real >"$w/sub/a.pem"
	echo data-real >"$w/$S2/data.txt"
	[ "$who" = nobody ] && chown -R 65534:65534 "$w"
	marks=$E/$who-race
	mkdir -p "$marks" && chmod 0777 "$marks"
	before=$(tree_of "$w")

	# ---- 1. The same rules in A and B. ----
	rm -f "$marks"/*
	swapper "$who" sub "$marks/stop1" "$marks/count1"
	wait_file "$marks/count1.started" 60
	ok $? "$who: sandbox A is swapping"
	hidden=0 other=0 others=
	for ((i = 0; i < N; i++)); do
		cx "$who" -- "$TRYOP" cat "$w/sub/a.pem"
		case "$rc:$out" in
		0:EACCES) hidden=$((hidden + 1)) ;;
		*) other=$((other + 1)) others="$others [$rc:$out]" ;;
		esac
	done
	: >"$marks/stop1"
	wait_pid "$BGPID" 60
	swaps=x tries=0
	read -r swaps tries <"$marks/count1"
	is "$swaps" 0 "$who: R33 A's renames of sub all fail ($(bk "sub is a mount point in A too" "landlock: the workspace root is split in A too"); $tries tries)"
	[ "$tries" -gt 0 ]
	ok $? "$who: A really tried while B started"
	is "$hidden/$other" "$N/0" "$who: B got EACCES for sub/a.pem in every one of $N runs$others"
	is "$(tree_of "$w")" "$before" "$who: no residue: the workspace holds what it held"

	# ---- 2. A has fewer protections than B. ----
	rm -f "$marks"/*
	swapper "$who" "$S2" "$marks/stop2" "$marks/count2"
	wait_file "$marks/count2.started" 60
	ok $? "$who: sandbox A is swapping $S2"
	hidden=0 absent=0 refused=0 read=0 other=0 others=
	for ((i = 0; i < N2; i++)); do
		cx "$who" --deny "$w/$S2/data.txt" -- "$TRYOP" cat "$w/$S2/data.txt"
		case "$rc:$out" in
		0:EACCES) hidden=$((hidden + 1)) ;;
		0:ENOENT) absent=$((absent + 1)) ;;
		125:*) refused=$((refused + 1)) ;;
		"0:OK"*) read=$((read + 1)) ;;
		*) other=$((other + 1)) others="$others [$rc:$out: $(head -c 200 <<<"$err")]" ;;
		esac
	done
	: >"$marks/stop2"
	wait_pid "$BGPID" 60
	swaps=0 tries=0
	read -r swaps tries <"$marks/count2"
	[ "$swaps" -gt 0 ]
	ok $? "$who: A's swaps of $S2 succeed ($swaps of $tries)"
	diag "$who: $N2 runs of B: $hidden hidden, $absent started on the decoy, $refused refused, $read read it after it was renamed back in, $other other"
	is "$other" 0 "$who: every run of B ended in one of the four outcomes$others"
	# A stuck swapper (a decoy it could not remove: B's bwrap had made its mount points in
	# it) would show what bwrap left behind in it.  B removes what its bwrap made once it ends
	# (R34), the decoy itself when it was bwrap's: then there is no decoy left to look into.
	real=$(dirname "$w/$S2")/.real
	if [ -d "$real" ]; then
		is "$(ls -A "$w/$S2" 2>/dev/null)" "" "$who: R34 nothing of B's setup is left in A's decoy"
		{ [ ! -e "$w/$S2" ] || rmdir "$w/$S2"; } && mv -T "$real" "$w/$S2"
	fi
	is "$(tree_of "$w")" "$before" "$who: no residue: no mount point was left on the host"
	cx "$who" -- "$TRYOP" append "$w/$S2/data.txt"
	is "$out" OK "$who: control: A's rules let A write the file itself (B is no way in for A)"
	echo data-real >"$w/$S2/data.txt"
	cx "$who" --deny "$w/$S2/data.txt" -- "$TRYOP" cat "$w/$S2/data.txt"
	is "$out" EACCES "$who: with A stopped, B hides the file"
done
done_testing
