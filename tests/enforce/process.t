#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Processes and descriptors: an inherited descriptor on a secret is closed (R16); kill(0, ...)
# inside cannot reach the caller's process group (R12 --new-session); a host process cannot be
# signalled (pid namespace); a root caller holds no capability inside and cannot unmount a
# hidden path (R12, R17); a daemon does not outlive the command and nothing outlives a killed
# confine (R4).  As root and as uid 65534.
# landlock (SPEC 3.3): no pid namespace, so a host process is visible but Landlock's signal
# scoping refuses the signal (EPERM); a denied write is EACCES; a daemon is reaped only where a
# cgroup holds the command, and the plan says "daemon reaping" is not provided otherwise: the
# daemon's fate is asserted against what the plan says.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin

n=0
for who in $RUN_USERS; do
	h=$(home "$who")
	w=$(ws "$who")
	n=$((n + 1))
	pre=()
	[ "$who" = nobody ] && pre=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	mapfile -t envv < <(_env "$who")

	# --- 6. an inherited descriptor on a secret (R16) ---
	exec 7<"$h/.ssh/id_ed25519" 9<"$h/.npmrc"
	expect_host "$who" "OK" "read inherited fd 7 (~/.ssh/id_ed25519)" "$TRYOP" readfd 7
	expect "$who" "EBADF" "R16 inherited fd 7 closed inside" -- "$TRYOP" readfd 7
	expect "$who" "EBADF" "R16 inherited fd 9 closed inside" -- "$TRYOP" readfd 9
	exec 7<&- 9<&-
	expect "$who" "OK" "control: stdin (fd 0) still passed" -- "$TRYOP" readfd 0 <<<"input"

	# --- 7. kill(0, SIGKILL) inside does not reach the caller's process group ---
	# A session of its own for the scenario, so that a leak kills the scenario, not this script:
	# bash, a host `sleep` and confine share one process group; the command kills its group.
	d=$E/$who/pg
	mkdir -p "$d"
	[ "$who" = nobody ] && chown 65534:65534 "$d"
	(cd "$w" && setsid -w "${pre[@]}" env -i "${envv[@]}" bash -c '
		d=$1; shift
		sleep 60 &
		echo $! >"$d/sleep.pid"
		"$@" >"$d/out" 2>"$d/err" </dev/null
		echo $? >"$d/rc"' pg "$d" "$FIX/confine" run -- "$TRYOP" killpg0 9)
	spid=$(cat "$d/sleep.pid" 2>/dev/null)
	bg_pids+=($spid)
	kill -0 "$spid" 2>/dev/null
	ok $? "$who: R12 host process of the same group alive after kill(0, SIGKILL) inside"
	is "$(cat "$d/rc" 2>/dev/null || echo 'no status: the caller was killed')" "137" \
		"$who: kill(0, SIGKILL) killed the command itself (exit 137)"
	[ -s "$d/err" ] && diag "stderr: $(cat "$d/err")"
	kill -KILL "$spid" 2>/dev/null

	# --- signalling a host process by pid: not visible (pid namespace) ---
	"${pre[@]}" sleep 60 &
	hpid=$!
	bg_pids+=($hpid)
	# setpriv changes its ids after the fork: the control waits until the process is WHO's.
	for _ in $(seq 1000); do
		[ "$(awk '/^Uid:/ { print $2 }' "/proc/$hpid/status" 2>/dev/null)" = "$([ "$who" = nobody ] && echo 65534 || id -u)" ] && break
		sleep 0.01
	done
	expect_host "$who" "OK" "kill -0 of a host process of the same user" "$TRYOP" kill "$hpid" 0
	expect "$who" "$(bk ESRCH EPERM)" "R12 $(bk "pid namespace" "landlock signal scoping"): kill(host pid, SIGTERM)" -- "$TRYOP" kill "$hpid" 15
	kill -0 "$hpid" 2>/dev/null
	ok $? "$who: the host process is alive"
	kill -KILL "$hpid" 2>/dev/null
	wait "$hpid" 2>/dev/null

	# --- 9. no capabilities inside, even for root; a hidden path stays hidden ---
	if [ "$who" = root ]; then
		hx "$who" "$TRYOP" caps
		[ "$out" != "OK 0000000000000000" ] && [ "${out#OK }" != "$out" ]
		ok $? "$who: control: root holds capabilities outside ($out)"
	fi
	expect "$who" "OK 0000000000000000" "R12 no effective capability inside" -- "$TRYOP" caps
	expect "$who" "EPERM
EACCES" "R12 umount of the hidden ~/.ssh refused; still unreadable" \
		-- /bin/sh -c '"$0" umount "$1/.ssh"; "$0" read "$1/.ssh/id_ed25519"' "$TRYOP" "$h"
	expect "$who" "EPERM
EACCES" "R12 umount of the hidden ~/.npmrc refused; still unreadable" \
		-- /bin/sh -c '"$0" umount "$1/.npmrc"; "$0" read "$1/.npmrc"' "$TRYOP" "$h"
	expect "$who" "EPERM
$(bk EROFS EACCES)" "R12 umount of / refused; / still read-only" \
		-- /bin/sh -c '"$0" umount /; "$0" write "$1"' "$TRYOP" "/etc/confine-enforce-$$-$who"

	rm -f "/etc/confine-enforce-$$-$who"

	# --- 11. a daemon does not outlive the command ---
	marker=30.$$$n
	W=$(bk "$w" "$w/out")
	rm -f "$W/daemon.pid"
	reaped=yes
	if [ "$LL" = 1 ]; then
		cx "$who" --print-plan -- true
		grep -q "^  daemon reaping: " <<<"$out" && reaped=no
	fi
	expect "$who" "OK" "a double-forked, setsid daemon started" -- "$TRYOP" daemon "$marker" "$W/daemon.pid"
	[ -s "$W/daemon.pid" ]
	ok $? "$who: the daemon ran (it wrote its pid file)"
	left=$(procs "$TRYOP daemon $marker")
	if [ "$reaped" = yes ]; then
		is "$left" "" "$who: R4 no daemon left once confine returned$(bk "" " (landlock: the cgroup)")"
	else
		[ -n "$left" ]
		ok $? "$who: landlock without a cgroup: the daemon outlives the run, as the plan says (daemon reaping: not provided)"
	fi
	[ -n "$left" ] && kill -KILL $left 2>/dev/null

	# --- R4: when confine dies, the sandboxed processes die too ---
	marker=31.$$$n
	cx_bg "$who" -- "$TRYOP" sleep "$marker"
	if wait_for_proc "$TRYOP sleep $marker" 5; then
		# disown: no "Killed" job report from bash; the exit status is of no interest here.
		disown "$BGPID"
		kill -KILL "$BGPID"
		wait_gone "$TRYOP sleep $marker" 3
		ok $? "$who: R4 the command dies with a SIGKILLed confine"
		left=$(procs "$TRYOP sleep $marker")
		[ -n "$left" ] && kill -KILL $left 2>/dev/null
	else
		wait_pid "$BGPID" 1
		ok 1 "$who: R4 the command dies with confine: the command never started (confine: $WAITRC, $(head -c 300 "$E/bg.err"))"
	fi
done

kill_bg
done_testing
