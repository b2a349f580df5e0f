#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# R29 (SPEC 3.4; THREATS round 2: every host IPC endpoint is a door).  A read-only mount does
# not stop connect() or opening a FIFO, so confine hides every pathname socket the host has
# bound (/proc/net/unix) and every socket and FIFO under /run, outside the workspace, unless a
# session or user rule allows it; one bound during the run is reported after it.  Tried here:
# a root-only 0600 daemon socket under /run (for a root sandbox: peer uid 0, a door to
# systemd-run), a public 0666 one, a FIFO under /run (an initctl), an ssh-agent at
# ~/.1password/agent.sock (the key file itself is guarded, the agent was not), a socket in the
# workspace (the command's own: reachable).  Every endpoint answers on the host first (the
# control).  The test runs in a mount namespace of its own with a fresh tmpfs on /run: the
# host's /run is never touched.  As root and as uid 65534.
if [ -z "${CONFINE_IPC_NS:-}" ] && [ "$(id -u)" = 0 ]; then
	CONFINE_IPC_NS=1 exec unshare -m bash "$0" "$@"
fi
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin
if [ -z "${CONFINE_IPC_NS:-}" ] || ! mount -t tmpfs -o mode=0755 confine-test-run /run; then
	skip "needs root for a private /run (unshare -m)"
	done_testing
fi
cp "$FIX/tryk" "$E/bin/" && chmod a+rx "$E/bin/tryk"
TRYK=$E/bin/tryk

# listen WHO PATH [MODE]: a listener on the host, as WHO; waits until it is bound.
listen() {
	local who=$1 path=$2 mode=${3:-}
	rm -f "$path"
	if [ "$who" = nobody ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$TRYK" unix-listen "$path" >/dev/null &
	else
		"$TRYK" unix-listen "$path" >/dev/null &
	fi
	bg_pids+=($!)
	for ((i = 0; i < 1500; i++)); do
		[ -S "$path" ] && break
		sleep 0.02
	done
	[ -n "$mode" ] && chmod "$mode" "$path"
}

# R32: directories of /run older than the racy window (2 s) of the sweeps below, whose
# listings later sweeps reuse.
mkdir -p /run/quiet/deep && chmod -R 0755 /run/quiet && sleep 2.2

for who in $RUN_USERS; do
	h=$(home "$who")
	w=$(ws "$who")
	mkdir -p /run/daemon "$h/.1password"
	chmod 0755 /run/daemon
	[ "$who" = nobody ] && chown 65534:65534 "$h/.1password"
	listen root /run/daemon/root.sock 0600
	listen root /run/daemon/public.sock 0666
	listen "$who" "$h/.1password/agent.sock"
	listen "$who" "$w/dev.sock"
	rm -f /run/daemon/initctl
	mkfifo -m 0666 /run/daemon/initctl
	# A reader holds the FIFO open, so that a writer's open succeeds on the host.
	sleep 600 <>/run/daemon/initctl &
	bg_pids+=($!)
	echo pub >"$h/.1password/notes.txt"
	[ "$who" = nobody ] && chown 65534:65534 "$h/.1password/notes.txt"

	if [ "$who" = root ]; then
		expect_host "$who" OK "a root-only daemon socket answers" "$TRYK" unix-connect /run/daemon/root.sock
	else
		expect_host "$who" EACCES "a root-only daemon socket refuses uid 65534" "$TRYK" unix-connect /run/daemon/root.sock
	fi
	expect "$who" EACCES "R29 a root-only daemon socket under /run is hidden" \
		-- "$TRYK" unix-connect /run/daemon/root.sock
	expect_host "$who" OK "a public socket under /run answers" "$TRYK" unix-connect /run/daemon/public.sock
	expect "$who" EACCES "R29 a public socket under /run is hidden" -- "$TRYK" unix-connect /run/daemon/public.sock
	expect_host "$who" OK "the FIFO under /run opens for writing" "$TRYOP" append /run/daemon/initctl
	expect "$who" EACCES "R29 the FIFO under /run cannot be opened for writing" \
		-- "$TRYOP" append /run/daemon/initctl
	expect "$who" EACCES "R29 ... nor for reading" -- "$TRYOP" read /run/daemon/initctl
	expect_host "$who" OK "the agent at ~/.1password/agent.sock answers" "$TRYK" unix-connect "$h/.1password/agent.sock"
	expect "$who" EACCES "R29 an ssh-agent at a non-standard path (~/.1password) is hidden" \
		-- "$TRYK" unix-connect "$h/.1password/agent.sock"
	expect "$who" "OK pub" "the directory around it stays readable" -- "$TRYOP" cat "$h/.1password/notes.txt"
	expect "$who" OK "a socket in the workspace is the command's own: reachable" \
		-- "$TRYK" unix-connect "$w/dev.sock"
	expect "$who" OK "--allow of the socket gives it back" \
		--allow /run/daemon/public.sock -- "$TRYK" unix-connect /run/daemon/public.sock
	expect "$who" OK "--allow of its directory gives it back" \
		--allow /run/daemon -- "$TRYK" unix-connect /run/daemon/public.sock
	expect "$who" EACCES "--allow /run (above the socket's directory) does not" \
		--allow /run -- "$TRYK" unix-connect /run/daemon/public.sock
	expect "$who" EACCES "--allow ~ does not expose the agent" \
		--allow "$h" -- "$TRYK" unix-connect "$h/.1password/agent.sock"
	expect "$who" EACCES "--allow of the socket beside it gives back only that one" \
		--allow /run/daemon/public.sock -- "$TRYK" unix-connect /run/daemon/root.sock \
		|| true
	[ "$who" = nobody ] && is "$out" EACCES "$who: (the root-only one is also 0600)"

	# A socket bound on the host while the command runs: reported after the run.
	rm -f "$w/go" "$w/started" /run/daemon/late.sock
	cx_bg "$who" -- sh -c "touch '$w/started'; while [ ! -e '$w/go' ]; do '$TRYOP' sleep 0.02 >/dev/null; done"
	for ((i = 0; i < 3000; i++)); do
		[ -e "$w/started" ] && break
		sleep 0.02
	done
	listen root /run/daemon/late.sock 0666
	touch "$w/go"
	wait_pid "$BGPID" 60
	is "$WAITRC" 0 "$who: the run with a late socket ends normally"
	grep -q "host socket or FIFO created during the run: '/run/daemon/late.sock'" "$E/bg.err"
	ok $? "$who: R29 a socket bound during the run is reported after it"
	expect "$who" EACCES "R29 ... and hidden from the next run on" -- "$TRYK" unix-connect /run/daemon/late.sock
	kill_bg

	# A short-lived service: its socket comes and goes while sandboxes start.  A socket that
	# vanishes between the sweep and bwrap's mount must never fail a launch (the launch is
	# tried again without it) nor leave a file on the host.
	"$TRYK" unix-flicker /run/daemon/flicker.sock >/dev/null &
	bg_pids+=($!)
	fails=0
	for ((k = 0; k < 20; k++)); do
		cx "$who" -- "$TRYOP" exit 0
		[ "$rc" = 0 ] || { fails=$((fails + 1)); diag "launch $k: $rc $err"; }
	done
	is "$fails" 0 "$who: R29 20 launches beside a socket that comes and goes: none fails"
	kill_bg
	[ ! -e /run/daemon/flicker.sock ] || [ -S /run/daemon/flicker.sock ]
	ok $? "$who: ... and nothing but the service's own socket is left there"

	# ---- R32: the sweep of /run is incremental, and never misses a new endpoint. ----
	cx "$who" -- true
	cx "$who" --report "$E/$who/r.json" -- true
	[ "$(jq .scan.ipc.launch.dirs_reused "$E/$who/r.json")" -ge 1 ] &&
		[ "$(jq -r .scan.ipc.cache "$E/$who/r.json")" = used ]
	ok $? "$who: R32 the sweep of /run reuses the listings of directories that did not change ($(jq -c .scan.ipc.launch "$E/$who/r.json"))"
	listen root "/run/quiet/deep/$who.sock" 0666
	expect "$who" EACCES "R29 R32 a socket bound in a cached directory just before the run is hidden" \
		-- "$TRYK" unix-connect "/run/quiet/deep/$who.sock"
	mkfifo -m 0666 "/run/quiet/$who.fifo"
	cx "$who" --report "$E/$who/r.json" -- "$TRYOP" statmode "/run/quiet/$who.fifo"
	is "$out" "OK 0000" "$who: R29 R32 a FIFO made in a cached directory just before the run is hidden (mode 000)"
	kill_bg
	rm -f "/run/quiet/deep/$who.sock" "/run/quiet/$who.fifo"
	rm -rf /run/daemon "$w/dev.sock"
done
done_testing
