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
	# (The sleep's argument is this file's own: another test, or this file on the other
	# backend, may be running beside it.)
	script="trap 'echo cleaned > $w/cleaned-up; exit 3' INT; echo ready; sleep 20.$$ & wait"
	set -m
	_as "$who" env -i PATH=/usr/bin:/bin HOME="$(home "$who")" sh -c \
		"cd '$w' && exec '$FIX/confine' run -- sh -c \"$script\"" >"$E/$who-sig.out" 2>&1 &
	job=$!
	set +m
	for i in $(seq 600); do
		grep -q ready "$E/$who-sig.out" 2>/dev/null && break
		sleep 0.05
	done
	kill -INT -- "-$job"
	wait "$job"
	rc=$?
	is "$rc" 3 "$who: SIGINT to the process group: the command's own status (its trap ran)"
	is "$(cat "$w/cleaned-up" 2>/dev/null)" "cleaned" "$who: the command's cleanup wrote its file"
	# The kernel kills what is left in the sandbox as it ends; give that room on a busy
	# machine (a survivor would still be there after 10 s: it sleeps for 20).
	wait_gone "sleep 20\\.$$\$" 10
	ok $? "$who: nothing of the sandbox is left"
	# A signal that arrives while bwrap is still setting up (pid 1 of the sandbox ignores what
	# it has no handler for) ends the sandbox: the command never runs, nothing is left behind.
	codes=""
	for i in $(seq 20); do
		# Every step execs the next, so $! is confine itself (a function in the background
		# would put a subshell in between, and the signal would miss confine).
		if [ "$who" = nobody ]; then
			setpriv --reuid=65534 --regid=65534 --clear-groups env -i PATH=/usr/bin:/bin \
				HOME="$(home "$who")" sh -c "cd '$w' && exec '$FIX/confine' run -- sleep 30.$$$i" \
				>/dev/null 2>&1 &
		else
			env -i PATH=/usr/bin:/bin HOME="$(home "$who")" sh -c \
				"cd '$w' && exec '$FIX/confine' run -- sleep 30.$$$i" >/dev/null 2>&1 &
		fi
		job=$!
		# The signal is for confine, not for the shells that exec it: a shell that has not
		# exec'd yet takes SIGTERM as its own (bash even runs on and execs).  Wait until
		# confine is the program of the job, then give it 0-9 ms of start-up.
		comm=
		for ((k = 0; k < 20000; k++)); do
			read -r comm <"/proc/$job/comm" 2>/dev/null || break
			[ "$comm" = confine ] && break
		done
		sleep "0.00$((i % 10))"
		kill -TERM "$job"
		wait "$job"
		codes="$codes $?"
	done
	is "$(echo $codes | tr ' ' '\n' | sort -u | tr '\n' ' ')" "143 " "$who: SIGTERM at any point of the start-up: 143, every time (20 runs)"
	wait_gone "sleep 30\\.$$" 10
	ok $? "$who: no command survived an early SIGTERM"
	# Only this test's sandboxes: other suites may run on the same machine.
	pgrep -f "^bwrap --args .* sleep 30\.$$" -P 1 >/dev/null
	ok $((!$?)) "$who: no sandbox was left waiting for its parent"
done
done_testing
