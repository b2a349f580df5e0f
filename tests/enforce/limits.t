#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Resource bounds: --limit pids=N (a fork bomb stays bounded), --limit mem=SIZE, --timeout
# (the whole sandbox dies), and the honest refusal where the host does not let confine create
# a cgroup.  As root and as uid 65534.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin
cgroup_ok=$("$CONFINE" probe --json --no-cache | jq -r '.backends[0].cgroup')
for who in $RUN_USERS; do
	w=$(ws "$who")
	# A fork bomb: each shell starts two more until fork fails.
	bomb='b() { b & b & wait; }; b 2>/dev/null; exit 0'
	if [ "$who" = root ] && [ "$cgroup_ok" = true ]; then
		# Started through a shell that records its pid and execs confine: the cgroup is
		# confine-PID (other runs on this machine have theirs).
		cx "$who" --limit pids=40 --timeout 20 -- sh -c "$bomb"
		# Which shell meets the limit first is the scheduler's choice: the outer one exits 2
		# ("Cannot fork") when it is that one, 0 otherwise.  Not 137 (the timeout) either way.
		case $rc in 0 | 2) ok 0 "$who: fork bomb under --limit pids=40 ends by itself (fork fails, no hang; status $rc)" ;;
		*) ok 1 "$who: fork bomb under --limit pids=40 ends by itself (status $rc: $err)" ;; esac
		mapfile -t envv < <(_env "$who")
		(cd "$w" && sh -c 'echo $$ >"$0"; exec "$@"' "$E/confine.pid" env -i "${envv[@]}" \
			"$FIX/confine" run --limit pids=40 -- /bin/true)
		cpid=$(cat "$E/confine.pid")
		ls -d /sys/fs/cgroup/pids/confine-"$cpid"* /sys/fs/cgroup/memory/confine-"$cpid"* \
			/sys/fs/cgroup/confine-"$cpid"* 2>/dev/null | grep -q .
		ok $((!$?)) "$who: the cgroup (confine-$cpid) is removed after the run"
		# confine killed with SIGKILL cannot remove its cgroup; the next start with a limit
		# sweeps it (its pid is gone, it holds no process).
		marker=34.$$$RANDOM
		cx_bg "$who" --limit pids=40 -- "$TRYOP" sleep "$marker"
		wait_for_proc "$TRYOP sleep $marker" 60
		ok $? "$who: the limited command runs (it is in confine-$BGPID)"
		kill -KILL "$BGPID"
		wait_pid "$BGPID" 10
		wait_gone "$TRYOP sleep $marker" 10
		# One cgroup per run: confine-PID-N.
		ls -d /sys/fs/cgroup/pids/confine-"$BGPID"-[0-9]* >/dev/null 2>&1
		ok $? "$who: confine killed with SIGKILL leaves confine-$BGPID-N behind"
		cx "$who" --limit pids=40 -- /bin/true
		ls -d /sys/fs/cgroup/pids/confine-"$BGPID"-[0-9]* >/dev/null 2>&1
		ok $((!$?)) "$who: the next run with a limit removes the stale confine-$BGPID-N"
		# 12 background sleeps + sh + confine-init + bwrap: 15 processes.
		twelve='for i in 1 2 3 4 5 6 7 8 9 10 11 12; do sleep 1 & done; wait; echo done'
		cx "$who" --limit pids=20 -- sh -c "$twelve"
		is "$out" "done" "$who: 15 processes fit under --limit pids=20"
		cx "$who" --limit pids=10 --report "$E/limit.json" -- sh -c "$twelve"
		[ "$rc" -ne 0 ] && [ "$out" != done ] && echo "$err" | grep -q "fork"
		ok $? "$who: the same 15 processes do not fit under --limit pids=10 (fork fails)"
		grep -q "^confine: warning: process limit reached: 'sh': the process limit (--limit pids=10) was reached: [0-9]* forks\? w[a-z]* refused (EAGAIN)$" <<<"$err"
		ok $? "$who: confine says the process limit was reached (stderr: $(tail -n 2 <<<"$err"))"
		is "$(jq -r '[.events[] | select(.kind == "pids_limit_reached")] | length' "$E/limit.json")" 1 \
			"$who: the report has the pids_limit_reached event"
		cx "$who" --limit mem=32M --report "$E/limit.json" -- sh -c 'x=$(head -c 200000000 /dev/zero | tr "\0" a); echo survived'
		is "$rc" 137 "$who: allocating past --limit mem=32M is killed (SIGKILL, 137)"
		# The kernel's OOM killer picks the largest: the shell, 1 process.  In a sanitizer
		# build confine-init is large (ASan's runtime) and the kernel has ended it too (CI saw
		# 2): there, and only there, 2 is the kernel's count as well.
		ended="1 process"
		[ "${_sanitize:-none}" = none ] || ended="(1 process|2 processes)"
		grep -qxE "confine: command killed by its memory limit: 'sh': the memory limit \(--limit mem=32M\) was reached and the kernel's OOM killer ended $ended" <<<"$err"
		ok $? "$who: confine says the memory limit killed it (stderr: $err)"
		grep -qx "hint: raise the limit (--limit mem=SIZE, such as 2G), or let the command use less memory" <<<"$err"
		ok $? "$who: ... with the remedy"
		jq -r '.events[] | select(.kind == "memory_limit_killed") | .detail' "$E/limit.json" |
			grep -qxE "the memory limit \(--limit mem=32M\) was reached and the kernel's OOM killer ended $ended"
		ok $? "$who: the report has the memory_limit_killed event"
		cx "$who" --limit mem=32M,pids=40 --report "$E/limit.json" -- sh -c 'echo small'
		is "$out|$err|$(jq -c .events "$E/limit.json")" "small||[]" \
			"$who: a run within its limits: no message, no event"
	elif [ "$who" = root ]; then
		skip "root on this host cannot create a cgroup (probe says cgroup: $cgroup_ok)"
	else
		cx "$who" --limit pids=40 -- "$TRYOP" write "$w/limited-ran"
		is "$rc" 125 "$who: --limit without a usable cgroup is refused (exit 125)"
		echo "$err" | grep -q "^confine: cannot create a cgroup for --limit: .*hint: \|^hint: limits need root"
		ok $? "$who: the refusal names the cause and the remedy"
		[ ! -e "$w/limited-ran" ]
		ok $? "$who: the command did not run without its limit"
	fi

	# cgroup v2 where the controllers are not offered (this host binds them to v1; a unified
	# hierarchy mounted in a mount namespace of the test's own shows what confine does on a
	# v2 host without them): refused with the cause, nothing created, nothing run.
	if [ "$who" = root ] && unshare -m true 2>/dev/null; then
		rm -f "$w/v2-ran"
		mapfile -t envv < <(_env "$who")
		out=$(cd "$w" && unshare -m sh -c 'mount -t cgroup2 none /sys/fs/cgroup && exec "$@"' sh \
			timeout -k 5 60 env -i "${envv[@]}" "$FIX/confine" run --limit pids=10 \
			-- "$TRYOP" write "$w/v2-ran" 2>&1)
		rc=$?
		is "$rc" 125 "$who: cgroup v2 without the pids controller: --limit refused (125)"
		case $out in *"cannot enforce --limit: 'pids'"*"hint:"*) ok 0 "$who: ... naming the controller, with a hint" ;;
		*) ok 1 "$who: ... naming the controller, with a hint (got: $out)" ;; esac
		[ ! -e "$w/v2-ran" ]
		ok $? "$who: ... and the command did not run"
	elif [ "$who" = root ]; then
		skip "unshare -m is not available: the cgroup v2 refusal cannot be tried"
	fi

	# /dev/shm is RAM like /tmp: the same cap (bwrap's own /dev leaves it uncapped).
	if bwrap_only "a private /dev/shm capped by --tmp-size"; then
		expect "$who" "OK" "--tmp-size 1M: 900 KiB fit in /dev/shm" --tmp-size 1M -- "$TRYOP" fill /dev/shm/f 921600
		expect "$who" "ENOSPC" "--tmp-size 1M: 2 MiB do not fit in /dev/shm" --tmp-size 1M -- "$TRYOP" fill /dev/shm/f 2097152
	else
		expect "$who" "EACCES" "landlock: the host's /dev/shm is not writable (no private one)" -- "$TRYOP" fill /dev/shm/f 1
	fi

	# --timeout kills the whole sandbox, daemons included.
	start=$SECONDS
	marker="31.4$$"
	cx "$who" --timeout 0.5 -- sh -c "sleep 32.$$ & sleep $marker"
	is "$rc" 137 "$who: --timeout 0.5: status 137 (killed by SIGKILL)"
	[ $((SECONDS - start)) -lt 10 ]
	ok $? "$who: --timeout returns promptly"
	echo "$err" | grep -q "^confine: command timed out: 'sh': the sandbox was killed after 0.5 seconds"
	ok $? "$who: --timeout says so"
	wait_gone "sleep ${marker//./\\.}\$" 10 && wait_gone "sleep 32\\.$$\$" 10
	ok $? "$who: nothing of the timed-out sandbox survives, its daemon included"
	cx "$who" --timeout 0.5s -- "$TRYOP" sleep 31
	is "$rc" 137 "$who: --timeout 0.5s (a unit): status 137"
	echo "$err" | grep -q "^confine: command timed out: '$TRYOP': the sandbox was killed after 0.5s$"
	ok $? "$who: ... and the message repeats the duration as given"
	# A timeout that runs out while the sandbox is still starting: the run timed out, with the
	# same status and message, not a failed set-up (a library host got an error instead).
	cx "$who" --timeout 0.001 -- "$TRYOP" sleep 31
	is "$rc" 137 "$who: --timeout 0.001 (over during the start-up): status 137"
	is "$(grep -c '^confine: ' <<<"$err")|$(grep -c "^confine: command timed out: '$TRYOP': the sandbox was killed after 0.001 seconds$" <<<"$err")" "1|1" \
		"$who: ... and one message: it timed out (no 'sandbox setup failed')"
	cx "$who" --timeout 5 -- "$TRYOP" exit 3
	is "$rc" 3 "$who: a command within its --timeout keeps its own status"
	expect_rc "$who" 125 "--timeout 0 is refused" --timeout 0 -- true
	expect_rc "$who" 125 "--limit pids=x is refused" --limit pids=x -- true
	expect_rc "$who" 125 "--limit bogus=1 is refused" --limit bogus=1 -- true
done
done_testing
