#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# R4 as a terminal delivers it: Ctrl-C sends SIGINT to the whole foreground process group.  The
# command must get it once, through confine, and have the time to clean up; bwrap must not die
# of it first.  As root and as uid 65534.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin
for who in $RUN_USERS; do
	w=$(ws "$who")
	rm -f "$w/cleaned-up"
	# Its own process group, as a shell's job would be; the signal goes to the group.
	script="trap 'echo cleaned > $w/cleaned-up; exit 3' INT; echo ready; sleep 20 & wait"
	set -m
	_as "$who" env -i PATH=/usr/bin:/bin HOME="$(home "$who")" sh -c \
		"cd '$w' && exec '$FIX/confine' run -- sh -c \"$script\"" >"$E/$who-sig.out" 2>&1 &
	job=$!
	set +m
	for i in $(seq 100); do
		grep -q ready "$E/$who-sig.out" 2>/dev/null && break
		sleep 0.05
	done
	kill -INT -- "-$job"
	wait "$job"
	rc=$?
	is "$rc" 3 "$who: SIGINT to the process group: the command's own status (its trap ran)"
	is "$(cat "$w/cleaned-up" 2>/dev/null)" "cleaned" "$who: the command's cleanup wrote its file"
	sleep 0.1
	pgrep -f "sleep 20" >/dev/null
	ok $((!$?)) "$who: nothing of the sandbox is left"
done
done_testing
