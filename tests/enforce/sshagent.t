#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# R44 the ssh-agent filter, with Debian's own sshd and ssh-agent, as root and as uid 65534:
#  - two sshd of the test's own (their own configuration and host keys, on 127.0.0.1 at ports
#    the kernel picked, in a mount namespace of their own whose /run is a tmpfs: the host's
#    sshd and its files are never touched); the caller's ssh-agent holds two keys, the user
#    names one (--ssh-key KEY.pub, or its SHA256 fingerprint);
#  - ssh-add -L inside lists only the named key, none without --ssh-key; ssh-add -D, -d and
#    -x are refused and the caller's agent keeps both keys; the caller's own agent socket is
#    unreachable, and SSH_AUTH_SOCK inside is confine's;
#  - git clone ssh://... works through the filter while the private key file is unreadable
#    (EACCES), with the network on (bwrap) and through the proxy with network rules (an
#    HTTP CONNECT ProxyCommand, both backends);
#  - a relay: ssh through the first (allowed) sshd on to the second, whose host key the caller's
#    known_hosts holds but which no rule allows: the second signature is refused, naming the
#    host; a host key known_hosts does not hold is refused too;
#  - every request (key, bound host, outcome) in the report and the audit line.
# Host controls: each action without confine, with the caller's own agent.  What needs no
# network runs with --no-network (the landlock backend gives the agent only with network rules
# or none: its connect guard is what lets the command reach the agent).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin
if [ "$(id -u)" != 0 ]; then
	skip "the test's sshd needs root (a mount namespace of its own, a login for the clients)"
	done_testing
fi
PY=/usr/bin/python3
for tool in /usr/sbin/sshd ssh ssh-agent ssh-add ssh-keygen git jq unshare "$PY"; do
	if ! command -v "$tool" >/dev/null; then
		skip "$tool is not installed (scripts/install-deps test installs it)"
		done_testing
	fi
done

# The test build: the proxy resolves ssh.test from a hosts file, never DNS.
cp "$FIX/confine-testresolve" "$FIX/confine"

# --- the servers ---------------------------------------------------------------------------
S=$E/sshd
mkdir -p "$S/src"
(cd "$S/src" && git init -q && echo repo-readme >README &&
	git -c user.name=t -c user.email=t@t add README &&
	git -c user.name=t -c user.email=t@t commit -qm init &&
	git clone -q --bare "$S/src" "$S/repo.git") || {
	ok 1 "a repository to clone"
	done_testing
}
: >"$S/authorized_keys"
free_port() {
	"$PY" -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'
}
# start_sshd N: sshd number N on a fresh port (PORT_N), retried if another process took the
# port between the choice and the bind; ready once it accepts.
start_sshd() {
	local n=$1 port try i
	ssh-keygen -q -t ed25519 -N '' -C "host$n" -f "$S/host$n" </dev/null
	for try in 1 2 3 4 5; do
		port=$(free_port)
		cat >"$S/sshd$n.conf" <<-EOF
			Port $port
			ListenAddress 127.0.0.1
			HostKey $S/host$n
			PidFile none
			AuthorizedKeysFile $S/authorized_keys
			StrictModes no
			UsePAM no
			PasswordAuthentication no
			KbdInteractiveAuthentication no
			PermitRootLogin prohibit-password
			AllowTcpForwarding yes
			LogLevel ERROR
		EOF
		unshare --mount --propagation private sh -c \
			'mount -t tmpfs -o size=1m,mode=0755 tmpfs /run && mkdir -m 0755 /run/sshd &&
			 exec /usr/sbin/sshd -D -e -f "$1"' sh "$S/sshd$n.conf" 2>>"$S/sshd$n.log" &
		bg_pids+=($!)
		for i in $(seq 200); do
			if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
				eval "PORT_$n=$port"
				return 0
			fi
			kill -0 "${bg_pids[-1]}" 2>/dev/null || break
			sleep 0.05
		done
	done
	return 1
}
if ! start_sshd 1 || ! start_sshd 2; then
	ok 1 "the test's sshd started ($(tail -3 "$S"/sshd*.log 2>/dev/null | tr '\n' ' '))"
	done_testing
fi
# The repository readable by every user; the host keys stay the server's alone (sshd refuses a
# key others can read, at each connection).
chmod -R a+rX "$S"
chmod 0600 "$S/host1" "$S/host2"
KH="[127.0.0.1]:$PORT_1 $(cut -d' ' -f1,2 "$S/host1.pub")
[127.0.0.1]:$PORT_2 $(cut -d' ' -f1,2 "$S/host2.pub")
[ssh.test]:$PORT_1 $(cut -d' ' -f1,2 "$S/host1.pub")"
printf '127.0.0.1 ssh.test\n' >"$E/hosts"
chmod 0644 "$E/hosts"

# An HTTP CONNECT client for ssh's ProxyCommand: through $HTTP_PROXY (its credentials too),
# or straight to HOST PORT without one (the host controls).
cat >"$E/bin/connect-proxy" <<'EOF'
import base64, os, select, socket, sys, urllib.parse
host, port = sys.argv[1], int(sys.argv[2])
proxy = os.environ.get("HTTP_PROXY") or os.environ.get("http_proxy")
if proxy:
    u = urllib.parse.urlsplit(proxy)
    s = socket.create_connection((u.hostname, u.port))
    head = "CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n" % (host, port, host, port)
    if u.username:
        cred = base64.b64encode(("%s:%s" % (u.username, u.password)).encode()).decode()
        head += "Proxy-Authorization: Basic %s\r\n" % cred
    s.sendall((head + "\r\n").encode())
    reply = b""
    while b"\r\n\r\n" not in reply:
        b = s.recv(1)
        if not b:
            sys.exit("connect-proxy: the proxy closed the connection")
        reply += b
    if reply.split(b" ")[1] != b"200":
        sys.exit("connect-proxy: " + reply.decode(errors="replace").split("\r\n")[0])
else:
    s = socket.create_connection((host, port))
fds = [0, s.fileno()]
while fds:
    r, _, _ = select.select(fds, [], [])
    if 0 in r:
        d = os.read(0, 65536)
        if d:
            s.sendall(d)
        else:
            s.shutdown(socket.SHUT_WR)
            fds.remove(0)
    if s.fileno() in r:
        d = s.recv(65536)
        if not d:
            break
        os.write(1, d)
EOF
chmod a+rx "$E/bin/connect-proxy"

for who in $RUN_USERS; do
	h=$(home "$who")
	w=$(ws "$who")
	_as "$who" ssh-keygen -q -t ed25519 -N '' -C "named-$who" -f "$h/.ssh/id_test" </dev/null
	_as "$who" ssh-keygen -q -t ed25519 -N '' -C "other-$who" -f "$h/.ssh/id_other" </dev/null
	cat "$h/.ssh/id_test.pub" >>"$S/authorized_keys"
	cat "$h/.ssh/id_other.pub" >>"$S/authorized_keys"
	printf '%s\n' "$KH" >"$h/.ssh/known_hosts"
	printf '%s\n' "$KH" >"$w/kh"
	cp "$h/.ssh/id_test.pub" "$w/named.pub"
	[ "$who" = nobody ] && chown 65534:65534 "$h/.ssh/known_hosts" "$w/kh" "$w/named.pub"
	# The caller's agent: a background job of this test, in the foreground (-D).
	sock=$E/$who/agent/agent.sock
	mkdir -p "$E/$who/agent"
	[ "$who" = nobody ] && chown 65534:65534 "$E/$who/agent"
	if [ "$who" = nobody ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups ssh-agent -D -a "$sock" >/dev/null &
	else
		ssh-agent -D -a "$sock" >/dev/null &
	fi
	bg_pids+=($!)
	for i in $(seq 200); do
		[ -S "$sock" ] && break
		sleep 0.05
	done
	xenv=(SSH_AUTH_SOCK="$sock")
	hx "$who" ssh-add -q "$h/.ssh/id_test" "$h/.ssh/id_other"
	is "$rc" 0 "$who: control: both keys added to the caller's agent"
	named=$(cut -d' ' -f1,2 "$h/.ssh/id_test.pub")
	fp=$(ssh-keygen -lf "$h/.ssh/id_test.pub" | cut -d' ' -f2)
	xenv=(SSH_AUTH_SOCK="$sock")
	hx "$who" ssh-add -L
	is "$(printf '%s\n' "$out" | wc -l)" 2 "$who: control: the caller's agent lists two keys"
	rep=$E/$who/report.json
	audit=$E/$who/audit.log

	# --- what the command sees -----------------------------------------------------------
	xenv=(SSH_AUTH_SOCK="$sock")
	cx "$who" --no-network --ssh-agent --ssh-key "$h/.ssh/id_test.pub" -- ssh-add -L
	is "$(_got | cut -d' ' -f1,2)" "$named" "$who: ssh-add -L lists only the key named by --ssh-key"
	xenv=(SSH_AUTH_SOCK="$sock")
	cx "$who" --no-network --ssh-agent --ssh-key "$fp" -- ssh-add -L
	is "$(_got | cut -d' ' -f1,2)" "$named" "$who: ... or named by its SHA256 fingerprint"
	xenv=(SSH_AUTH_SOCK="$sock")
	cx "$who" --no-network --ssh-agent -- ssh-add -L
	is "$rc:$out" "1:The agent has no identities." "$who: without --ssh-key it lists none"
	xenv=(SSH_AUTH_SOCK="$sock")
	cx "$who" -- "$TRYOP" getenv SSH_AUTH_SOCK
	is "$out" "UNSET" "$who: control: without --ssh-agent the command has no agent at all"
	xenv=(SSH_AUTH_SOCK="$sock")
	cx "$who" --no-network --ssh-agent -- "$TRYOP" getenv SSH_AUTH_SOCK
	want="OK $(bk "/dev/.confine-agent/agent.sock" "/tmp/confine-agent.")"
	is "$(printf '%s' "$out" | cut -c1-${#want})" "$want" "$who: SSH_AUTH_SOCK inside is confine's"
	xenv=(SSH_AUTH_SOCK="$sock")
	expect_host "$who" OK "the caller's agent socket answers on the host" "$TRYOP" connect-unix "$sock"
	xenv=(SSH_AUTH_SOCK="$sock")
	expect "$who" EACCES "the caller's agent socket is unreachable inside" \
		--ssh-agent --net-allow "127.0.0.1:$PORT_1" -- "$TRYOP" connect-unix "$sock"
	if [ "$LL" = 1 ]; then
		# landlock: the sockets the agent needs are all the command gets.
		for net in "--no-network" "--net-allow=127.0.0.1:$PORT_1"; do
			xenv=(SSH_AUTH_SOCK="$sock")
			expect "$who" OK "landlock $net: a unix stream socket can be made" \
				--ssh-agent "$net" -- "$TRYOP" socket unix stream
			xenv=(SSH_AUTH_SOCK="$sock")
			expect "$who" EPERM "landlock $net: a unix datagram socket cannot" \
				--ssh-agent "$net" -- "$TRYOP" socket unix dgram
			xenv=(SSH_AUTH_SOCK="$sock")
			expect "$who" EACCES "landlock $net: an abstract unix socket is out of reach" \
				--ssh-agent "$net" -- "$TRYOP" connect-unix @confine-test-abstract
		done
		xenv=(SSH_AUTH_SOCK="$sock")
		expect "$who" EPERM "landlock --no-network: still no TCP socket with the agent" \
			--ssh-agent --no-network -- "$TRYOP" socket inet stream
	fi
	# --- the filter's directory of a killed run (util/owntmp.c) ------------------------------
	# confine killed while its command runs leaves /tmp/confine-agent.L...; the next confine,
	# of any kind, removes it (its lock is free), never one of a live run.
	ls -d /tmp/confine-agent.L* 2>/dev/null | sort >"$E/agent-before"
	mapfile -t envv < <(_env "$who")
	pre=()
	[ "$who" = nobody ] && pre=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	rm -f "$w/out/agent-up"
	(cd "$w" && exec "${pre[@]}" env -i "${envv[@]}" SSH_AUTH_SOCK="$sock" "$FIX/confine" run \
		--no-network --ssh-agent -- sh -c 'touch out/agent-up; sleep 36.'$$ \
		>"$E/bg.out" 2>"$E/bg.err" </dev/null) &
	bgpid=$!
	bg_pids+=("$bgpid")
	for ((i = 0; i < 1000; i++)); do
		[ -e "$w/out/agent-up" ] && break
		sleep 0.02
	done
	adir=$(ls -d /tmp/confine-agent.L* 2>/dev/null | sort | comm -13 "$E/agent-before" -)
	[ -n "$adir" ] && [ "$(printf '%s\n' "$adir" | wc -l)" = 1 ] && [ -S "$adir/agent.sock" ]
	ok $? "$who: control: a live run's filter socket is in /tmp/confine-agent.L... ($adir)"
	cx "$who" --no-network -- true
	[ -n "$adir" ] && [ -S "$adir/agent.sock" ]
	ok $? "$who: another run leaves the live run's directory alone"
	kill -KILL "$bgpid"
	wait_pid "$bgpid" 10
	[ -n "$adir" ] && [ -d "$adir" ]
	ok $? "$who: control: confine killed, its directory is left behind"
	cx "$who" --no-network -- true
	is "$rc:$([ -n "$adir" ] && [ ! -e "$adir" ] && echo gone)" "0:gone" \
		"$who: the next run removed the killed run's directory"
	rm -f "$w/out/agent-up"

	expect_host "$who" OK "control: the private key file is readable on the host" \
		"$TRYOP" read "$h/.ssh/id_test"
	xenv=(SSH_AUTH_SOCK="$sock")
	expect "$who" EACCES "the private key file is unreadable inside" \
		--no-network --ssh-agent --ssh-key "$h/.ssh/id_test.pub" -- "$TRYOP" read "$h/.ssh/id_test"

	# --- refused requests ------------------------------------------------------------------
	xenv=(SSH_AUTH_SOCK="$sock")
	cx "$who" --no-network --ssh-agent --ssh-key "$h/.ssh/id_test.pub" --report "$rep" -- sh -c \
		'ssh-add -D; echo "D=$?"; ssh-add -d named.pub; echo "d=$?"; printf "pw\npw\n" | ssh-add -x; echo "x=$?"; ssh-add -L | wc -l'
	is "$(printf '%s' "$out" | tr '\n' ' ')" "D=1 d=1 x=1 1" \
		"$who: ssh-add -D, -d and -x are refused, the named key still listed"
	is "$(jq -r '[.ssh_agent.requests[] | select(.outcome == "refused") | .request] | unique | join(",")' "$rep")" \
		"lock,remove,remove-all,unknown" "$who: the report names each refused request"
	printf '%s' "$err" | grep -q "confine: ssh-agent request refused: 'remove-all'"
	ok $? "$who: confine says so after the run"
	xenv=(SSH_AUTH_SOCK="$sock")
	hx "$who" ssh-add -L
	is "$(printf '%s\n' "$out" | wc -l)" 2 "$who: the caller's agent still holds both keys, unlocked"

	# --- an SSHSIG signature (git's SSH commit signing) needs no session ----------------------
	echo "a commit" >"$w/out/msg"
	rm -f "$w/out/msg.sig"
	[ "$who" = nobody ] && chown 65534:65534 "$w/out/msg"
	xenv=(SSH_AUTH_SOCK="$sock")
	cx "$who" --no-network --ssh-agent --ssh-key "$h/.ssh/id_test.pub" --report "$rep" -- \
		ssh-keygen -q -Y sign -f named.pub -n git out/msg
	is "$rc" 0 "$who: ssh-keygen -Y sign through the filter"
	hx "$who" sh -c "ssh-keygen -Y check-novalidate -n git -s out/msg.sig <out/msg"
	printf '%s' "$out" | grep -q "Good \"git\" signature"
	ok $? "$who: ... a good signature of the named key"
	is "$(jq -r '[.ssh_agent.requests[] | select(.request == "sign")][0].detail' "$rep")" \
		"an SSHSIG signature, namespace 'git'" "$who: the report says what was signed"

	# --- git clone over ssh ------------------------------------------------------------------
	gitssh="ssh -F /dev/null -o UserKnownHostsFile=$w/kh -o StrictHostKeyChecking=yes -o BatchMode=yes"
	url="ssh://root@127.0.0.1:$PORT_1$S/repo.git"
	rm -rf "$w/out/host-clone"
	xenv=(SSH_AUTH_SOCK="$sock" GIT_SSH_COMMAND="$gitssh")
	hx "$who" sh -c "git clone -q '$url' out/host-clone && cat out/host-clone/README"
	is "$(_got)" repo-readme "$who: control: git clone over ssh with the caller's agent"
	if [ "$LL" = 0 ]; then
		rm -rf "$w/out/clone"
		xenv=(SSH_AUTH_SOCK="$sock" GIT_SSH_COMMAND="$gitssh")
		cx "$who" --ssh-agent --ssh-key "$h/.ssh/id_test.pub" --report "$rep" -- sh -c \
			"git clone -q '$url' out/clone && cat out/clone/README && cat '$h/.ssh/id_test' 2>&1 | grep -c 'Permission denied'"
		is "$(_got | tr '\n' ' ')" "repo-readme 1" \
			"$who: git clone ssh:// through the filter, the private key unreadable (network on)"
		is "$(jq -r '[.ssh_agent.requests[] | select(.request == "sign")][0] | "\(.key) \(.host) \(.outcome)"' "$rep")" \
			"$fp 127.0.0.1:$PORT_1 allowed" "$who: the report: the key, the bound host, allowed"
	else
		bwrap_only "git clone with the network on: the landlock backend runs the agent with network rules only" ||
			{
				xenv=(SSH_AUTH_SOCK="$sock")
				cx "$who" --ssh-agent -- true
				is "$rc" 125 "$who: landlock: --ssh-agent with the network on is refused"
				printf '%s' "$err" | grep -q "hint: allow the hosts the command needs"
				ok $? "$who: ... with the remedy"
			}
	fi
	rm -rf "$w/out/clone2"
	xenv=(SSH_AUTH_SOCK="$sock" GIT_SSH_COMMAND="$gitssh -o ProxyCommand='$PY $E/bin/connect-proxy %h %p'")
	cx "$who" --ssh-agent --ssh-key "$h/.ssh/id_test.pub" --net-allow "127.0.0.1:$PORT_1" \
		--report "$rep" --audit "$audit" -- sh -c \
		"git clone -q '$url' out/clone2 && cat out/clone2/README && $TRYOP read '$h/.ssh/id_test'"
	is "$(_got | tr '\n' ' ')" "repo-readme EACCES" \
		"$who: git clone ssh:// through the proxy and the filter, the private key unreadable"
	is "$(tail -1 "$audit" | jq -r '[.ssh_agent.requests[] | select(.request == "sign")][0] | "\(.key) \(.host) \(.outcome)"')" \
		"$fp 127.0.0.1:$PORT_1 allowed" "$who: the audit line: the key, the bound host, allowed"

	if bwrap_only "the landlock backend has no resolver inside: ssh needs its ProxyCommand there"; then
		rm -rf "$w/out/clone3"
		xenv=(SSH_AUTH_SOCK="$sock" GIT_SSH_COMMAND="$gitssh" CONFINE_TEST_HOSTS="$E/hosts")
		cx "$who" --ssh-agent --ssh-key "$h/.ssh/id_test.pub" --net-allow "ssh.test:$PORT_1,127.0.0.1" \
			--report "$rep" -- sh -c "git clone -q 'ssh://root@ssh.test:$PORT_1$S/repo.git' out/clone3 && cat out/clone3/README"
		is "$(_got)" repo-readme \
			"$who: git clone ssh://NAME with network rules and no ProxyCommand (the resolver inside)"
		is "$(jq -r '[.ssh_agent.requests[] | select(.request == "sign")][0] | "\(.key) \(.outcome)"' "$rep")" \
			"$fp allowed" "$who: ... signed for the bound session"
	fi

	# --- a relay to a host no rule allows ------------------------------------------------------
	hop2="ssh -F /dev/null -o UserKnownHostsFile=$w/kh -o StrictHostKeyChecking=yes -o BatchMode=yes -p $PORT_2"
	hop1="ssh -F /dev/null -o UserKnownHostsFile=$w/kh -o StrictHostKeyChecking=yes -o BatchMode=yes -p $PORT_1 -o ProxyCommand='$PY $E/bin/connect-proxy 127.0.0.1 $PORT_1' -W %h:%p root@127.0.0.1"
	xenv=(SSH_AUTH_SOCK="$sock")
	hx "$who" sh -c "$hop2 -o ProxyCommand=\"$hop1\" root@127.0.0.1 echo second-hop"
	is "$(_got)" second-hop "$who: control: ssh through the first sshd on to the second"
	xenv=(SSH_AUTH_SOCK="$sock")
	cx "$who" --ssh-agent --ssh-key "$h/.ssh/id_test.pub" --net-allow "127.0.0.1:$PORT_1" \
		--report "$rep" -- sh -c "$hop2 -o ProxyCommand=\"$hop1\" root@127.0.0.1 echo second-hop"
	is "$rc:$out" "255:" "$who: the relay to a host no rule allows gets no signature"
	is "$(jq -r '[.ssh_agent.requests[] | select(.request == "sign") | "\(.host) \(.outcome)"] | join(", ")' "$rep")" \
		"127.0.0.1:$PORT_1 allowed, 127.0.0.1:$PORT_2 refused" \
		"$who: the report: the first hop signed, the second refused, each host named"
	jq -r '.ssh_agent.requests[] | select(.request == "sign" and .outcome == "refused") | .detail' "$rep" |
		grep -q "no network rule allows"
	ok $? "$who: ... because no network rule allows it"
	# A host key the caller's known_hosts does not hold.
	grep -v "]:$PORT_2 " "$h/.ssh/known_hosts" >"$h/.ssh/kh.tmp" && mv "$h/.ssh/kh.tmp" "$h/.ssh/known_hosts"
	[ "$who" = nobody ] && chown 65534:65534 "$h/.ssh/known_hosts"
	xenv=(SSH_AUTH_SOCK="$sock")
	cx "$who" --ssh-agent --ssh-key "$h/.ssh/id_test.pub" --net-allow "127.0.0.1:$PORT_1" \
		--net-allow "127.0.0.1:$PORT_2" --report "$rep" -- \
		sh -c "$hop2 -o ProxyCommand='$PY $E/bin/connect-proxy %h %p' root@127.0.0.1 echo second"
	is "$rc" 255 "$who: a host key known_hosts does not hold gets no signature, allowed host or not"
	jq -r '.ssh_agent.requests[] | select(.request == "sign") | .detail' "$rep" |
		grep -q "in no entry of the caller's known_hosts"
	ok $? "$who: ... and the report says why"
done
done_testing
