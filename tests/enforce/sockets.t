#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Host sockets (SPEC 2.3 guards, THREATS "Sockets"): a read-only mount does not stop connect(),
# so $XDG_RUNTIME_DIR (/run/user/UID) and the directory of $SSH_AUTH_SOCK are hidden; a
# session rule can give back one socket (a gpg-agent) and nothing else.  Listeners run on the
# host; the command inside tries to connect.  As root and as uid 65534.
# landlock (SPEC 3.3): below Landlock ABI 9 no unix socket is reachable at all (EPERM; ux in
# enforce.sh), allowed ones included; the guard on the directories is shown on a file in the
# runtime directory too, whose name stays visible there (EACCES, never ENOENT).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin
cp "$FIX/tryk" "$E/bin/" && chmod a+rx "$E/bin/tryk"
TRYK=$E/bin/tryk TRYK_HOST=$E/bin/tryk
for who in $RUN_USERS; do
	h=$(home "$who")
	rt=$E/$who/run-user
	agent=$E/$who/ssh-agent
	mkdir -p "$rt/gnupg" "$rt/bus-dir" "$agent"
	echo runtime-state >"$rt/state"
	[ "$who" = nobody ] && chown -R 65534:65534 "$rt" "$agent"
	for s in "$rt/bus" "$rt/gnupg/S.gpg-agent" "$agent/agent.1"; do
		rm -f "$s"
		# Not through _as: the background job must be the listener itself for kill_bg to
		# reach it.
		if [ "$who" = nobody ]; then
			setpriv --reuid=65534 --regid=65534 --clear-groups "$TRYK_HOST" unix-listen "$s" >/dev/null &
		else
			"$TRYK_HOST" unix-listen "$s" >/dev/null &
		fi
		bg_pids+=($!)
	done
	for i in $(seq 50); do
		[ -S "$rt/bus" ] && [ -S "$rt/gnupg/S.gpg-agent" ] && [ -S "$agent/agent.1" ] && break
		sleep 0.05
	done
	xenv=(XDG_RUNTIME_DIR="$rt" SSH_AUTH_SOCK="$agent/agent.1")
	expect_host "$who" OK "control: the session bus socket answers on the host" "$TRYK" unix-connect "$rt/bus"

	xenv=(XDG_RUNTIME_DIR="$rt" SSH_AUTH_SOCK="$agent/agent.1")
	expect "$who" "$(ux EACCES)" "XDG_RUNTIME_DIR hidden: connect to its bus socket" -- "$TRYK" unix-connect "$rt/bus"
	xenv=(XDG_RUNTIME_DIR="$rt" SSH_AUTH_SOCK="$agent/agent.1")
	xenv=(XDG_RUNTIME_DIR="$rt")
	expect "$who" EACCES "XDG_RUNTIME_DIR hidden: a file in it is unreadable" -- "$TRYOP" read "$rt/state"
	xenv=(XDG_RUNTIME_DIR="$rt" SSH_AUTH_SOCK="$agent/agent.1")
	expect "$who" "$(ux EACCES)" "the ssh-agent directory hidden: connect to the agent" -- "$TRYK" unix-connect "$agent/agent.1"
	xenv=(XDG_RUNTIME_DIR="$rt" SSH_AUTH_SOCK="$agent/agent.1")
	expect "$who" "UNSET" "SSH_AUTH_SOCK removed from the environment" -- "$TRYOP" getenv SSH_AUTH_SOCK

	# Give back one socket, path-selectively.
	xenv=(XDG_RUNTIME_DIR="$rt")
	expect "$who" "$(ux OK)" "--allow the gpg-agent socket: it connects$(bk "" " (landlock: not even then)")" \
		--allow "$rt/gnupg/S.gpg-agent" -- "$TRYK" unix-connect "$rt/gnupg/S.gpg-agent"
	xenv=(XDG_RUNTIME_DIR="$rt")
	expect "$who" "$(ux ENOENT)" "--allow the gpg-agent socket: the bus beside it stays out of reach" \
		--allow "$rt/gnupg/S.gpg-agent" -- "$TRYK" unix-connect "$rt/bus"
	xenv=(XDG_RUNTIME_DIR="$rt")
	expect "$who" "$(bk ENOENT EACCES)" "--allow the gpg-agent socket: a file beside it stays out of reach" \
		--allow "$rt/gnupg/S.gpg-agent" -- "$TRYOP" read "$rt/state"
	xenv=(XDG_RUNTIME_DIR="$rt")
	expect "$who" EACCES "--allow the gpg-agent socket: the runtime directory stays unlistable" \
		--allow "$rt/gnupg/S.gpg-agent" -- "$TRYOP" readdir "$rt"
	xenv=(XDG_RUNTIME_DIR="$rt")
	expect "$who" "$(ux EACCES)" "--allow of the whole runtime directory does not lift the guard" \
		--allow "$rt" -- "$TRYK" unix-connect "$rt/bus"
	xenv=(XDG_RUNTIME_DIR="$rt")
	expect "$who" EACCES "--allow of the whole runtime directory: its files stay unreadable" \
		--allow "$rt" -- "$TRYOP" read "$rt/state"
	kill_bg
done
done_testing
