#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# R29 (SPEC 3.4; THREATS round 2: every host IPC endpoint is a door).  A read-only mount does
# not stop connect() or opening a FIFO, so confine hides every pathname socket the host has
# bound (/proc/net/unix) and every socket and FIFO under /run, outside the workspace, unless a
# session or user rule allows it; one another process binds during the run is recorded in the
# report (otherproc.t).  Tried here:
# a root-only 0600 daemon socket under /run (for a root sandbox: peer uid 0, a door to
# systemd-run), a public 0666 one, a FIFO under /run (an initctl), an ssh-agent at
# ~/.1password/agent.sock (the key file itself is guarded, the agent was not), a socket in the
# workspace (the command's own: reachable).  Every endpoint answers on the host first (the
# control).  The test runs in a mount namespace of its own with a fresh tmpfs on /run: the
# host's /run is never touched.  As root and as uid 65534.
# landlock (SPEC 3.3): below Landlock ABI 9 no unix socket is reachable at all (socket(AF_UNIX)
# and datagram socketpairs are refused with EPERM; ux in enforce.sh), the workspace's and the
# allowed ones included, which the plan lists as not provided; FIFOs are files to Landlock and
# hidden like them (EACCES).  A datagram socket is tried from a socketpair too: its end can
# sendto(2) any path, a lookup that no mount is asked about and Landlock below ABI 9 does not
# see.
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
# Every name under /run is this run's own: the private tmpfs keeps the host's /run untouched,
# but sockets are listed by network namespace (/proc/net/unix), which every sandbox on the host
# shares: a fixed /run/daemon/late.sock of a second ipc.t running at the same time would be in
# this run's launch sweep and hide the report this file asserts.
R=/run/$(basename "$T")
mkdir -m 0755 "$R"
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

# R32: directories of $R older than the racy window (2 s) of the sweeps below, whose
# listings later sweeps reuse.
mkdir -p $R/quiet/deep && chmod -R 0755 $R/quiet && sleep 2.2

for who in $RUN_USERS; do
	h=$(home "$who")
	w=$(ws "$who")
	mkdir -p $R/daemon "$h/.1password"
	chmod 0755 $R/daemon
	[ "$who" = nobody ] && chown 65534:65534 "$h/.1password"
	listen root $R/daemon/root.sock 0600
	listen root $R/daemon/public.sock 0666
	listen "$who" "$h/.1password/agent.sock"
	listen "$who" "$w/dev.sock"
	rm -f $R/daemon/dgram.sock $R/daemon/dgram.sock.got
	"$TRYK" unix-dgram-listen $R/daemon/dgram.sock >/dev/null &
	bg_pids+=($!)
	for ((i = 0; i < 1500; i++)); do
		[ -S $R/daemon/dgram.sock ] && break
		sleep 0.02
	done
	chmod 0666 $R/daemon/dgram.sock
	rm -f $R/daemon/initctl
	mkfifo -m 0666 $R/daemon/initctl
	# A reader holds the FIFO open, so that a writer's open succeeds on the host.
	sleep 600 <>$R/daemon/initctl &
	bg_pids+=($!)
	echo pub >"$h/.1password/notes.txt"
	[ "$who" = nobody ] && chown 65534:65534 "$h/.1password/notes.txt"

	if [ "$who" = root ]; then
		expect_host "$who" OK "a root-only daemon socket answers" "$TRYK" unix-connect $R/daemon/root.sock
	else
		expect_host "$who" EACCES "a root-only daemon socket refuses uid 65534" "$TRYK" unix-connect $R/daemon/root.sock
	fi
	expect "$who" "$(ux EACCES)" "R29 a root-only daemon socket under /run is hidden" \
		-- "$TRYK" unix-connect $R/daemon/root.sock
	expect_host "$who" OK "a public socket under /run answers" "$TRYK" unix-connect $R/daemon/public.sock
	expect "$who" "$(ux EACCES)" "R29 a public socket under /run is hidden" -- "$TRYK" unix-connect $R/daemon/public.sock
	expect_host "$who" OK "a datagram socket under /run takes a datagram from a socketpair's end" \
		"$TRYK" pair-sendto $R/daemon/dgram.sock
	# R36: no unix datagram socket can be made at all, on either backend (EPERM).
	expect "$who" EPERM "R29 a datagram socket under /run: no sendto(2) from a socketpair's end" \
		-- "$TRYK" pair-sendto $R/daemon/dgram.sock
	expect "$who" EPERM "R29 ... nor connect(2)" \
		-- "$TRYK" pair-connect $R/daemon/dgram.sock
	expect "$who" EPERM "R29 ... nor with --no-network" \
		--no-network -- "$TRYK" pair-sendto $R/daemon/dgram.sock
	is "$(cat $R/daemon/dgram.sock.got 2>/dev/null)" datagram "$who: only the host's datagram arrived"
	expect "$who" OK "a stream socketpair still works inside" -- "$TRYOP" socketpair
	expect_host "$who" OK "the FIFO under /run opens for writing" "$TRYOP" append $R/daemon/initctl
	expect "$who" EACCES "R29 the FIFO under /run cannot be opened for writing" \
		-- "$TRYOP" append $R/daemon/initctl
	expect "$who" EACCES "R29 ... nor for reading" -- "$TRYOP" read $R/daemon/initctl
	expect_host "$who" OK "the agent at ~/.1password/agent.sock answers" "$TRYK" unix-connect "$h/.1password/agent.sock"
	expect "$who" "$(ux EACCES)" "R29 an ssh-agent at a non-standard path (~/.1password) is hidden" \
		-- "$TRYK" unix-connect "$h/.1password/agent.sock"
	expect "$who" "OK pub" "the directory around it stays readable" -- "$TRYOP" cat "$h/.1password/notes.txt"
	expect "$who" "$(ux OK)" "a socket in the workspace is the command's own: $(bk reachable "refused (landlock: no unix socket is reachable)")" \
		-- "$TRYK" unix-connect "$w/dev.sock"
	expect "$who" "$(ux OK)" "--allow of the socket gives it back$(bk "" " (landlock: not even then)")" \
		--allow $R/daemon/public.sock -- "$TRYK" unix-connect $R/daemon/public.sock
	expect "$who" "$(ux OK)" "--allow of its directory gives it back$(bk "" " (landlock: not even then)")" \
		--allow $R/daemon -- "$TRYK" unix-connect $R/daemon/public.sock
	expect "$who" "$(ux EACCES)" "--allow /run (above the socket's directory) does not" \
		--allow /run -- "$TRYK" unix-connect $R/daemon/public.sock
	expect "$who" "$(ux EACCES)" "--allow ~ does not expose the agent" \
		--allow "$h" -- "$TRYK" unix-connect "$h/.1password/agent.sock"
	expect "$who" "$(ux EACCES)" "--allow of the socket beside it gives back only that one" \
		--allow $R/daemon/public.sock -- "$TRYK" unix-connect $R/daemon/root.sock \
		|| true
	[ "$who" = nobody ] && is "$out" "$(ux EACCES)" "$who: (the root-only one is also 0600)"

	# $R/grouped holds nothing but endpoints: it is hidden as one mount (a host with hundreds
	# of sockets would otherwise pay a mount each), so its names are gone too.
	mkdir -p $R/grouped && chmod 0755 $R/grouped
	listen root $R/grouped/a.sock 0666
	listen root $R/grouped/b.sock 0666
	expect "$who" EACCES "R29 a directory of nothing but endpoints is hidden as a whole" \
		-- "$TRYOP" readdir $R/grouped
	if bwrap_only "the plan's mount count"; then
		cx "$who" --print-plan -- true
		is "$(grep -c "$R/grouped" <<<"$out")" 2 "$who: one hide (and its remount) for $R/grouped, not one per endpoint"
	fi
	mkdir -p $R/mixed && echo 1 >$R/mixed/pid
	listen root $R/mixed/m.sock 0666
	expect "$who" "$(ux EACCES) OK" "R29 in a directory with other files the endpoints are hidden one by one" \
		-- sh -c "echo \$('$TRYK' unix-connect $R/mixed/m.sock) \$('$TRYOP' read $R/mixed/pid)"

	# A socket bound on the host while the command runs: one in a directory hidden as a whole
	# cannot be reached; one beside other files is reported after the run.  (The command's
	# files are in ws/out: the landlock backend's workspace root takes no new file.)
	rm -f "$w/out/go" "$w/out/started" $R/grouped/late.sock $R/mixed/late.sock
	cx_bg "$who" -- sh -c "touch '$w/out/started'; while [ ! -e '$w/out/go' ]; do '$TRYOP' sleep 0.02 >/dev/null; done; '$TRYK' unix-connect $R/grouped/late.sock"
	for ((i = 0; i < 3000; i++)); do
		[ -e "$w/out/started" ] && break
		sleep 0.02
	done
	[ -e "$w/out/started" ]
	ok $? "$who: the command runs before the late socket is bound"
	listen root $R/grouped/late.sock 0666
	listen root $R/mixed/late.sock 0666
	touch "$w/out/go"
	wait_pid "$BGPID" 60
	is "$WAITRC" 0 "$who: the run with late sockets ends normally"
	is "$(cat "$E/bg.out")" "$(ux EACCES)" "$who: R29 a socket bound during the run in a hidden directory is unreachable"
	! grep -q "created during the run: '$R/mixed/late.sock'" "$E/bg.err"
	ok $? "$who: R29 a socket another process bound during the run beside other files is not this run's doing: no warning (the report has it: otherproc.t)"
	! grep -q "created during the run: '$R/grouped/late.sock'" "$E/bg.err"
	ok $? "$who: ... and the unreachable one is not"
	expect "$who" "$(ux EACCES)" "R29 ... and hidden from the next run on" -- "$TRYK" unix-connect $R/mixed/late.sock
	kill_bg
	rm -rf $R/mixed

	# A short-lived service: its socket comes and goes while sandboxes start.  A socket that
	# vanishes between the sweep and bwrap's mount must never fail a launch (the launch is
	# tried again without it) nor leave a file on the host.
	"$TRYK" unix-flicker $R/daemon/flicker.sock >/dev/null &
	bg_pids+=($!)
	fails=0
	for ((k = 0; k < 20; k++)); do
		cx "$who" -- "$TRYOP" exit 0
		[ "$rc" = 0 ] || { fails=$((fails + 1)); diag "launch $k: $rc $err"; }
	done
	is "$fails" 0 "$who: R29 20 launches beside a socket that comes and goes: none fails"
	kill_bg
	[ ! -e $R/daemon/flicker.sock ] || [ -S $R/daemon/flicker.sock ]
	ok $? "$who: ... and nothing but the service's own socket is left there"

	# ---- R32: the sweep of /run is incremental, and never misses a new endpoint. ----
	# A directory changed less than 2 s before a sweep read it is read again by the next one
	# (the racy rule): wait until everything under /run is older than that, whatever this file
	# (or a listener of the last round, going away) changed last.
	for ((i = 0; i < 100; i++)); do
		newest=$(find /run -printf '%C@\n%T@\n' 2>/dev/null | sort -n | tail -n 1)
		[ -n "$newest" ] && awk -v n="$newest" -v now="$(date +%s.%N)" 'BEGIN { exit !(now - n > 2.5) }' && break
		sleep 0.2
	done
	cx "$who" -- true
	cx "$who" --report "$E/$who/r.json" -- true
	[ "$(jq .scan.ipc.launch.dirs_reused "$E/$who/r.json")" -ge 1 ] &&
		[ "$(jq -r .scan.ipc.cache "$E/$who/r.json")" = used ]
	ok $? "$who: R32 the sweep of /run reuses the listings of directories that did not change ($(jq -c .scan.ipc "$E/$who/r.json"))"
	listen root "$R/quiet/deep/$who.sock" 0666
	expect "$who" "$(ux EACCES)" "R29 R32 a socket bound in a cached directory just before the run is hidden" \
		-- "$TRYK" unix-connect "$R/quiet/deep/$who.sock"
	mkfifo -m 0666 "$R/quiet/$who.fifo"
	expect "$who" EACCES "R29 R32 a FIFO made in a cached directory just before the run cannot be opened" \
		-- "$TRYOP" append "$R/quiet/$who.fifo"
	kill_bg
	rm -f "$R/quiet/deep/$who.sock" "$R/quiet/$who.fifo"
	rm -rf $R/daemon $R/grouped $R/mixed "$w/dev.sock"
done
done_testing
