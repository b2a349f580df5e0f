#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Processes and sockets of the host (THREATS.md "Terminal, processes, signals" and "Sockets and
# network"): a host process of the same user can be signalled and traced from the host (the
# controls) but not from the sandbox, where the pid namespace (R12) hides it (ESRCH); an
# abstract unix socket of the host is out of reach even with the network on, by Landlock
# scoping (R17, ABI >= 6: EPERM), and in another network namespace with it off (ECONNREFUSED).
# As root and as uid 65534.
source "$(dirname "$0")/escape.sh"

abi=$(cat /sys/kernel/security/landlock/abi_version 2>/dev/null)
[ -n "$abi" ] || abi=$("$TRYOP" landlock-abi | sed -n 's/^OK //p')

# The abstract listener (abstract sockets carry no permissions: one serves both users).
name=confine-escape-$$
"$TRYK" abstract-listen "$name" >"$T/listen.out" 2>&1 &
bg_pids+=($!)
for _ in $(seq 100); do
	[ -s "$T/listen.out" ] && break
	sleep 0.02
done
is "$(cat "$T/listen.out")" OK "an abstract unix listener @$name on the host"

for who in $RUN_USERS; do
	expect_host "$who" OK "connect to abstract @$name" "$TRYK" abstract-connect "$name"
	if [ -n "$abi" ] && [ "$abi" -ge 6 ]; then
		expect "$who" EPERM "R17 Landlock scoping: connect to abstract @$name, network on" \
			-- "$TRYK" abstract-connect "$name"
	else
		skip "$who: Landlock ABI '${abi:-none}' < 6: no abstract socket scoping on this kernel"
	fi
	expect "$who" "$(bk ECONNREFUSED EPERM)" "R2 --no-network: abstract @$name $(bk "is in another namespace" "is out of reach (landlock: socket(AF_UNIX) refused)")" \
		--no-network -- "$TRYK" abstract-connect "$name"

	# A host process of the same user.
	(cd / && exec setpriv $([ "$who" = nobody ] && echo --reuid=65534 --regid=65534 --clear-groups) \
		sleep 1000) &
	victim=$!
	bg_pids+=("$victim")
	# Ready once it is sleep (the subshell before the exec is still root's).
	for ((i = 0; i < 500; i++)); do
		[ "$(cat "/proc/$victim/comm" 2>/dev/null)" = sleep ] && break
		sleep 0.01
	done
	expect_host "$who" OK "kill(host process, 0)" "$TRYK" kill "$victim" 0
	expect_host "$who" OK "ptrace(host process)" "$TRYK" ptrace "$victim"
	expect "$who" "$(bk ESRCH EPERM)" "R12 $(bk "pid namespace" "landlock signal scoping (the pid is visible)"): kill(host process, SIGKILL)" \
		-- "$TRYK" kill "$victim" 9
	expect "$who" "$(bk ESRCH EPERM)" "R12 $(bk "pid namespace" "landlock ptrace restriction"): ptrace(host process)" -- "$TRYK" ptrace "$victim"
	ok "$(kill -0 "$victim" 2>/dev/null; echo $?)" "$who: the host process survived"
	kill -KILL "$victim" 2>/dev/null
	wait "$victim" 2>/dev/null
done

# Reap the listener quietly (bash reports a killed job on stderr).
{
	kill_bg
	wait
} 2>/dev/null
done_testing
