#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Network and sockets: --no-network gives an own network namespace (R2): a loopback TCP
# listener of the host is unreachable (ECONNREFUSED: the namespace has its own, empty loopback),
# UDP to an outside address has no route (ENETUNREACH).  Without it both work (the controls).
# Host unix sockets in a guarded place (the directory of $SSH_AUTH_SOCK) are unreachable, and
# abstract unix sockets of the host are scoped away by Landlock (ABI >= 6) even with the
# network on (R17).  As root and as uid 65534.
# landlock (SPEC 3.3) has no network namespace: --no-network refuses socket(2) for every family
# but AF_UNIX (EPERM), Landlock refuses TCP bind and connect, so there is no own loopback
# either; below Landlock ABI 9 AF_UNIX sockets are refused too (EPERM, see ux in enforce.sh).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"

if ! sandbox_ok; then
	skip "$(bk "bubblewrap is not installed on this machine" "the landlock backend is not available here (confine probe)")"
	done_testing
fi
PY=$(command -v python3 || true)
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
if [ -z "$PY" ]; then
	skip "python3 is not installed: no host listener for the network cases"
	done_testing
fi
enforce_users

# Host listeners: a TCP socket on 127.0.0.1 (port chosen by the kernel), a unix socket in a
# directory that will be $SSH_AUTH_SOCK's, and an abstract unix socket.  They accept and drop
# connections until killed (bg_pids: the EXIT trap kills them).
abstract=confine-enforce-$$
mkdir -p "$E/agent"
chmod 0755 "$E/agent"
"$PY" -c '
import os, socket, sys
tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
tcp.bind(("127.0.0.1", 0))
tcp.listen(64)
unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
unix.bind(sys.argv[2])
os.chmod(sys.argv[2], 0o777)
unix.listen(64)
abst = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
abst.bind("\0" + sys.argv[3])
abst.listen(64)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % tcp.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
import select
socks = [tcp, unix, abst]
while True:
    r, _, _ = select.select(socks, [], [])
    for s in r:
        c, _ = s.accept()
        c.close()
' "$T/port" "$E/agent/sock" "$abstract" &
bg_pids+=($!)
for _ in $(seq 100); do
	[ -s "$T/port" ] && break
	sleep 0.02
done
port=$(cat "$T/port" 2>/dev/null)
if [ -z "$port" ]; then
	ok 1 "host listener started (python3 did not report a port)"
	done_testing
fi
diag "host listener on 127.0.0.1:$port, unix $E/agent/sock, abstract @$abstract"

# An address outside the machine: TEST-NET-2 (RFC 5737).  Only ever sent to inside a network
# namespace the test makes, where it is a loopback address (see below), never on the real
# network.
outside=198.51.100.7
landlock=$("$TRYOP" landlock-abi)

for who in $RUN_USERS; do
	# --- 5. TCP to a host loopback listener ---
	expect_host "$who" "OK" "TCP connect 127.0.0.1:$port" "$TRYOP" connect-tcp 127.0.0.1 "$port"
	expect "$who" "OK" "network on: TCP connect 127.0.0.1:$port" -- "$TRYOP" connect-tcp 127.0.0.1 "$port"
	expect "$who" "$(bk ECONNREFUSED EPERM)" "R2 --no-network: TCP connect 127.0.0.1:$port" \
		--no-network -- "$TRYOP" connect-tcp 127.0.0.1 "$port"

	# --- UDP out of the machine ---
	# Test traffic never leaves the machine: the "outside" address is routed to the loopback
	# device of a network namespace the test makes (unshare -n), where a UDP send succeeds
	# and stays.  In the real namespace nothing is sent: inside --no-network there is
	# no route at all.
	if [ "$(id -u)" = 0 ] && command -v ip >/dev/null; then
		netns_setup="ip link set lo up && ip addr add 198.51.100.1/24 dev lo"
		as=()
		[ "$who" = nobody ] && as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
		mapfile -t envv < <(_env "$who")
		innet() { # CMD...: in a fresh network namespace where 198.51.100.0/24 is on loopback
			out=$(cd "$(ws "$who")" && unshare -n sh -c "$netns_setup && exec \"\$@\"" sh \
				timeout -k 5 60 "${as[@]}" env -i "${envv[@]}" "$@" 2>"$E/err")
			rc=$?
		}
		innet "$TRYOP" connect-udp "$outside" 53
		is "$out" OK "$who: UDP send to $outside:53 in the test's namespace (control)"
		innet "$FIX/confine" run -- "$TRYOP" connect-udp "$outside" 53
		is "$out" OK "$who: network on: UDP send to $outside:53 (the test's namespace)"
		innet "$FIX/confine" run --no-network -- "$TRYOP" connect-udp "$outside" 53
		is "$out" "$(bk ENETUNREACH EPERM)" "$who: R2 --no-network: UDP send to $outside:53"
	else
		skip "$who: no root or no ip(8): no network namespace for the outside-address control"
	fi
	# In the real namespace, only where nothing can be sent: inside --no-network.
	expect "$who" "$(bk ENETUNREACH EPERM)" "R2 --no-network: UDP send to $outside:53 (host namespace)" \
		--no-network -- "$TRYOP" connect-udp "$outside" 53
	resolver=$(awk '$1 == "nameserver" && $2 ~ /^[0-9.]+$/ && $2 !~ /^127\./ { print $2; exit }' /etc/resolv.conf 2>/dev/null)
	if [ -n "$resolver" ]; then
		expect "$who" "$(bk ENETUNREACH EPERM)" "R2 --no-network: UDP send to the resolver $resolver:53" \
			--no-network -- "$TRYOP" connect-udp "$resolver" 53
	else
		# Only a loopback resolver (or none): the namespace's own loopback answers for it.
		expect "$who" "$(bk OK EPERM)" "R2 --no-network: no outside resolver here; loopback:53 is $(bk "the sandbox's own" "refused (landlock: no own loopback)")" \
			--no-network -- "$TRYOP" connect-udp 127.0.0.53 53
	fi
	# The own namespace still has a working loopback of its own; landlock has none to give.
	expect "$who" "$(bk OK EPERM)" "--no-network: UDP send on $(bk "the own loopback" "the loopback (landlock: refused, no own namespace)")" \
		--no-network -- "$TRYOP" connect-udp 127.0.0.1 9

	# --- host unix socket in the directory of $SSH_AUTH_SOCK (guarded, §2.3) ---
	[ "$who" = nobody ] && chown 65534:65534 "$E/agent"
	[ "$who" = root ] && chown 0:0 "$E/agent"
	xenv=("SSH_AUTH_SOCK=$E/agent/sock")
	expect_host "$who" "OK" "connect to \$SSH_AUTH_SOCK" "$TRYOP" connect-unix "$E/agent/sock"
	xenv=("SSH_AUTH_SOCK=$E/agent/sock")
	expect "$who" "$(ux EACCES)" "guard: connect to \$SSH_AUTH_SOCK (its directory hidden)" \
		-- "$TRYOP" connect-unix "$E/agent/sock"
	# Without SSH_AUTH_SOCK pointing there it is still a socket the host has bound: hidden
	# all the same (R29), and given back by an allow of it (a read-only mount alone would not
	# stop connect(): the allow shows that the socket is reachable through the sandbox's view).
	expect "$who" "$(ux EACCES)" "R29 the same socket when it is nobody's agent socket" \
		-- "$TRYOP" connect-unix "$E/agent/sock"
	expect "$who" "$(ux OK)" "control: --allow of it gives it back$(bk "" " (landlock: no unix socket is reachable)")" \
		--allow "$E/agent/sock" -- "$TRYOP" connect-unix "$E/agent/sock"

	# --- abstract unix socket of the host ---
	expect_host "$who" "OK" "connect to abstract @$abstract" "$TRYOP" connect-unix "@$abstract"
	expect "$who" "$(bk ECONNREFUSED EPERM)" "R2 --no-network: abstract @$abstract $(bk "(other namespace)" "(landlock: refused)")" \
		--no-network -- "$TRYOP" connect-unix "@$abstract"
	case $landlock in
	"OK "[6-9] | "OK "[1-9][0-9])
		expect "$who" "EPERM" "R17 Landlock scoping: abstract @$abstract with the network on" \
			-- "$TRYOP" connect-unix "@$abstract"
		;;
	*)
		skip "$who: kernel Landlock ABI < 6 ($landlock): no abstract socket scoping here"
		;;
	esac
done

kill_bg
done_testing
