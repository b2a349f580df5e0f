#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Post-run warnings name only what this run did.  While a command runs, other processes of the
# host bind sockets and create protected paths (a login makes /run/user/UID); where the command
# could not write (outside the workspace and every write allow), that was not the command, so
# confine says nothing about it on stderr and records it in the report as *_appeared.  What the
# command itself made (a new .pem in the workspace) is still warned about.  As root and as uid
# 65534, both backends, in a mount namespace of the test's own with a fresh tmpfs on /run (the
# host's /run is never touched).
if [ -z "${CONFINE_OTHER_NS:-}" ] && [ "$(id -u)" = 0 ]; then
	CONFINE_OTHER_NS=1 exec unshare -m bash "$0" "$@"
fi
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin
if [ -z "${CONFINE_OTHER_NS:-}" ] || ! mount -t tmpfs -o mode=0755 confine-test-run /run; then
	skip "needs root for a private /run (unshare -m)"
	done_testing
fi
cp "$FIX/tryk" "$E/bin/" && chmod a+rx "$E/bin/tryk"
TRYK=$E/bin/tryk

for who in $RUN_USERS; do
	h=$(home "$who")
	w=$(ws "$who")
	uid=$([ "$who" = nobody ] && echo 65534 || id -u)
	mkdir -p /run/svc /run/user
	echo 1 >/run/svc/pid # beside other files: the endpoints of /run/svc are hidden one by one
	rm -rf "/run/user/$uid" /run/svc/late.sock "$w/out/go" "$w/out/started" "$w/out/new.pem"
	# A socket bound at the path and unlinked before the run, still listening: /proc/net/unix
	# names it (as it names one bound in another mount namespace, such as the other backend's
	# pass of this file running in parallel), yet nothing is there at launch.
	"$TRYK" unix-listen /run/svc/late.sock >/dev/null &
	bg_pids+=($!)
	for ((i = 0; i < 1500; i++)); do
		[ -S /run/svc/late.sock ] && break
		sleep 0.02
	done
	rm -f /run/svc/late.sock
	[ ! -e /run/svc/late.sock ] && grep -q " /run/svc/late.sock\$" /proc/net/unix
	ok $? "$who: control: an unlinked socket at /run/svc/late.sock is still in /proc/net/unix"

	# The command waits until the host has made its things, then makes one of its own.
	cx_bg "$who" --report "$h/other.json" -- sh -c "touch out/started; while [ ! -e out/go ]; do '$TRYOP' sleep 0.02 >/dev/null; done; echo k >out/new.pem; echo ran"
	for ((i = 0; i < 3000; i++)); do
		[ -e "$w/out/started" ] && break
		sleep 0.02
	done
	[ -e "$w/out/started" ]
	ok $? "$who: the command runs before the host makes anything"
	# Another process: a service binds a socket, a login makes the runtime directory.
	"$TRYK" unix-listen /run/svc/late.sock >/dev/null &
	bg_pids+=($!)
	for ((i = 0; i < 1500; i++)); do
		[ -S /run/svc/late.sock ] && break
		sleep 0.02
	done
	[ -S /run/svc/late.sock ]
	ok $? "$who: a host service bound /run/svc/late.sock during the run"
	mkdir -p "/run/user/$uid" && chmod 0700 "/run/user/$uid"
	[ "$who" = nobody ] && chown 65534:65534 "/run/user/$uid"
	touch "$w/out/go"
	wait_pid "$BGPID" 60
	is "$WAITRC|$(cat "$E/bg.out")" "0|ran" "$who: the run ends normally"
	bgerr=$(cat "$E/bg.err")
	! grep -q "late.sock" <<<"$bgerr"
	ok $? "$who: no warning about the socket another process bound (stderr: $bgerr)"
	! grep -q "/run/user/$uid" <<<"$bgerr"
	ok $? "$who: no warning about /run/user/$uid, which another process made"
	grep -q "file matching a glob rule created during the run: '$w/out/new.pem'" <<<"$bgerr"
	ok $? "$who: the command's own new.pem is still warned about"
	# The test's own three; any other process of the machine (another test file of the suite
	# binding its agent sockets under /var/tmp) may add its endpoints meanwhile: those must be
	# *_appeared too, never the run's.
	mine='select((.path | startswith($w + "/")) or (.path | startswith("/run/")))'
	is "$(jq -r --arg w "$w" "[.events[] | $mine | .kind + \" \" + .path] | sort | join(\", \")" "$h/other.json")" \
		"dynamic_glob_created $w/out/new.pem, ipc_endpoint_appeared /run/svc/late.sock, missing_protected_appeared /run/user/$uid" \
		"$who: the report keeps all three, the other process's as *_appeared"
	is "$(jq -r --arg w "$w" "[.events[] | select(($mine | not) and (.kind | endswith(\"_appeared\") | not)) | .path] | join(\", \")" "$h/other.json")" "" \
		"$who: what other processes of the machine made meanwhile is *_appeared too"
	is "$(jq -r '.events[] | select(.kind == "missing_protected_appeared") | .detail' "$h/other.json")" \
		"made during the run where the command could not write, so by another process; it was not protected while the command ran" \
		"$who: ... saying why it is not the run's"
	[ -d "/run/user/$uid" ] && [ ! -e "/run/user/$uid.confine-disabled" ]
	ok $? "$who: what another process made is left where it is"
	kill_bg
	rm -rf "/run/user/$uid" /run/svc "$w/out/go" "$w/out/started" "$w/out/new.pem"
done
done_testing
