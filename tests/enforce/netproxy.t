#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# R31 network by domain, with real clients and real servers, as root and as uid 65534:
#  - curl through the HTTP proxy (absolute URI) and through a CONNECT tunnel to a real TLS server
#    (openssl s_server, certificate checked end to end), curl through SOCKS5, git clone over
#    http:// from a dumb repository served by python3 -m http.server;
#  - an unlisted name and a name a rule denies: a 403 naming confine, the host and the rule, an
#    entry in the --report file, and no lookup at all (the test resolver logs every name);
#  - names that resolve to 127.0.0.1 and 169.254.169.254: refused, never connected to;
#  - a workspace file may deny a domain, and allowing one there refuses the run (FILE:LINE);
#  - inside: no UDP but DNS (answered by confine's resolver inside, R43: netresolve.t), no raw or
#    packet socket; a direct TCP connect to an address reaches confine's proxy (netresolve.t);
#  - a lookup that hangs does not hold up another request;
#  - the proxy's socket: unreachable for another user of the host and from a second sandbox.
# Every server listens on 127.0.0.0/8; the made-up names resolve through the test build of
# confine (tests/tools/testresolve.c: a hosts file, never DNS), and the proxy reaches
# 127.0.0.5 and 127.0.0.6 only because a rule names them.
#
# On the landlock backend (tests/run's second pass) the proxy listens on the host's 127.0.0.1 at
# a port of its own, and every request must carry the run's secret: the same clients through
# the proxy variables; then what differs: a direct connect to any other port or address (a host
# loopback listener, another address on the proxy's very port) is EACCES, UDP, raw, netlink and
# MPTCP sockets, listen(2), bind(2) and TCP Fast Open are refused; a request without the secret
# gets 407 (SOCKS5: no acceptable method) and a report entry; another process of the user that
# knows the port but not the secret gets nothing, nor does a second sandbox, and neither can read
# the secret from /proc/PID/environ (uid 65534 for a root command; Landlock for a sandbox).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"

if ! sandbox_ok; then
	skip "$(bk "bubblewrap is not installed on this machine" "the landlock backend is not available here (confine probe)")"
	done_testing
fi
if [ "$LL" = 1 ] && [ "$LL_ABI" -lt 4 ]; then
	skip "Landlock ABI $LL_ABI has no TCP rules: network by domain is refused there (tests/cli/net.t checks the refusal)"
	done_testing
fi
PY=$(command -v python3 || true)
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
for tool in curl openssl git jq "$PY"; do
	if [ -z "$tool" ] || ! command -v "$tool" >/dev/null; then
		skip "${tool:-python3} is not installed (scripts/install-deps test installs it)"
		done_testing
	fi
done
enforce_users
# This file's confine is the test build: the same program with the hosts-file resolver.
cp "$FIX/confine-testresolve" "$FIX/confine"

# --- servers on 127.0.0.5 (HTTP, a dumb git repository) and 127.0.0.6 (TLS) ---------------
mkdir -p "$E/www" "$E/tls" "$E/src"
echo hello-www >"$E/www/hello.txt"
echo hello-tls >"$E/tls/hello.txt"
(
	cd "$E/src" && git init -q && echo repo-readme >README &&
		git -c user.name=t -c user.email=t@t add README &&
		git -c user.name=t -c user.email=t@t commit -qm init &&
		git clone -q --bare "$E/src" "$E/www/repo.git" &&
		git -C "$E/www/repo.git" update-server-info
) || { ok 1 "a git repository for the dumb-HTTP clone"; done_testing; }
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$E/tls/key.pem" -out "$E/tls/cert.pem" \
	-days 2 -subj /CN=tls.test -addext subjectAltName=DNS:tls.test >/dev/null 2>&1
chmod -R a+rX "$E/www" "$E/tls"

"$PY" -c '
import functools, http.server, os, sys
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a): pass
srv = http.server.ThreadingHTTPServer(("127.0.0.5", 0), functools.partial(Quiet, directory=sys.argv[2]))
with open(sys.argv[1] + ".tmp", "w") as f: f.write("%d\n" % srv.server_address[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
srv.serve_forever()
' "$T/www.port" "$E/www" &
bg_pids+=($!)
# An echo server for the tunnels of the hostile clients below: asyncio, so that 1,000
# connections at once are nothing to it.
"$PY" -c '
import asyncio, os, sys
async def echo(r, w):
    try:
        while True:
            b = await r.read(65536)
            if not b:
                break
            w.write(b)
            await w.drain()
        w.write_eof()
    except Exception:
        pass
    finally:
        w.close()
async def main():
    srv = await asyncio.start_server(echo, "127.0.0.7", 0, backlog=4096)
    with open(sys.argv[1] + ".tmp", "w") as f: f.write("%d\n" % srv.sockets[0].getsockname()[1])
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    await srv.serve_forever()
asyncio.run(main())
' "$T/echo.port" &
bg_pids+=($!)
(cd "$E/tls" && exec openssl s_server -WWW -accept 127.0.0.6:0 -cert cert.pem -key key.pem \
	>"$T/tls.out" 2>&1 </dev/null) &
bg_pids+=($!)
for _ in $(seq 500); do
	[ -s "$T/www.port" ] && [ -s "$T/echo.port" ] && grep -q '^ACCEPT' "$T/tls.out" 2>/dev/null && break
	sleep 0.02
done
P1=$(cat "$T/www.port" 2>/dev/null)
P2=$(sed -n 's/^ACCEPT 127\.0\.0\.6:\([0-9]*\)$/\1/p' "$T/tls.out" 2>/dev/null)
P3=$(cat "$T/echo.port" 2>/dev/null)
if [ -z "$P1" ] || [ -z "$P2" ] || [ -z "$P3" ]; then
	ok 1 "test servers started (http: '${P1:-}', tls: '${P2:-}')"
	done_testing
fi
diag "HTTP on 127.0.0.5:$P1, TLS on 127.0.0.6:$P2, echo on 127.0.0.7:$P3"

# Hostile clients inside the sandbox, through confine-init's relay and the proxy: each check
# prints one line.  An ordinary request is made while each kind of abuse is going on.
cat >"$E/hostile.py" <<'PY'
import base64, os, socket, sys, time, urllib.parse
port = int(sys.argv[1])
# The proxy of the environment: bwrap's relay inside, or the landlock backend's on the host's
# loopback, whose credentials every request carries.
proxy = urllib.parse.urlsplit(os.environ["HTTP_PROXY"])
auth = b""
if proxy.username:
    auth = b"Proxy-Authorization: Basic " + base64.b64encode(
        ("%s:%s" % (proxy.username, proxy.password)).encode()) + b"\r\n"
def conn():
    s = socket.create_connection((proxy.hostname, proxy.port), timeout=20)
    return s
def head(s):
    b = b""
    while b"\r\n\r\n" not in b:
        k = s.recv(65536)
        if not k:
            break
        b += k
    return b
def tunnel(msg=b"ping"):
    s = conn()
    s.sendall(b"CONNECT echo.test:%d HTTP/1.1\r\n%s\r\n" % (port, auth))
    ok = head(s).startswith(b"HTTP/1.1 200 ")
    s.sendall(msg)
    got = b""
    while len(got) < len(msg):
        k = s.recv(65536)
        if not k:
            break
        got += k
    s.close()
    return ok and got == msg
def status(s):
    return head(s).split(b" ")[1].decode() if s else "?"
out = []
# 1,000 parallel tunnels, each relaying its own message.
socks = []
for i in range(1000):
    s = conn()
    s.sendall(b"CONNECT echo.test:%d HTTP/1.1\r\n%s\r\n" % (port, auth))
    socks.append(s)
ok = sum(head(s).startswith(b"HTTP/1.1 200 ") for s in socks)
out.append("parallel-200 %d" % ok)
out.append("ordinary-during-parallel %s" % tunnel())
good = 0
for i, s in enumerate(socks):
    m = b"m%d" % i
    s.sendall(m)
    got = b""
    while len(got) < len(m):
        k = s.recv(64)
        if not k:
            break
        got += k
    good += got == m
    s.close()
out.append("parallel-echo %d" % good)
# A 1 MB request line.
s = conn()
s.settimeout(20)
try:
    s.sendall(b"GET http://www.test/" + b"a" * (1 << 20) + b" HTTP/1.1\r\n\r\n")
except OSError:
    pass
out.append("long-line %s" % status(s))
s.close()
# A header flood.
s = conn()
try:
    s.sendall(b"GET http://www.test/ HTTP/1.1\r\n" + b"".join(b"X-%d: y\r\n" % i for i in range(5000)))
except OSError:
    pass
out.append("header-flood %s" % status(s))
s.close()
# Slowloris: 50 heads that never end; an ordinary request meanwhile.
slow = [conn() for _ in range(50)]
for s in slow:
    s.sendall(b"GET http://www.test/ HTTP/1.1\r\nX-")
out.append("ordinary-during-slowloris %s" % tunnel())
for s in slow:
    s.close()
# Half-closed: the tunnel passes the end of file on, after the echo.
s = conn()
s.sendall(b"CONNECT echo.test:%d HTTP/1.1\r\n%s\r\n" % (port, auth))
head(s)
s.sendall(b"last words")
s.shutdown(socket.SHUT_WR)
got = b""
while True:
    k = s.recv(65536)
    if not k:
        break
    got += k
out.append("half-close %s" % (got == b"last words"))
s.close()
print("\n".join(out))
PY
chmod 0644 "$E/hostile.py"

allow=(--net-allow www.test,tls.test,rebind.test,metadata.test,slow.test
	--net-allow 127.0.0.5,127.0.0.6)

nx() { # who confine-run-args...: cx with the test resolver's hosts file and lookup log
	local who=$1
	shift
	xenv=("CONFINE_TEST_HOSTS=$E/$who.hosts" "CONFINE_TEST_RESOLVER_LOG=$E/$who.log" "${xenv[@]}")
	cx "$who" "$@"
}

nexpect() { # who want description confine-run-args...: expect, with the test resolver's files
	xenv=("CONFINE_TEST_HOSTS=$E/$1.hosts" "CONFINE_TEST_RESOLVER_LOG=$E/$1.log")
	expect "$@"
}
nexpect_rc() {
	xenv=("CONFINE_TEST_HOSTS=$E/$1.hosts" "CONFINE_TEST_RESOLVER_LOG=$E/$1.log")
	expect_rc "$@"
}

net_dirs() { ls -d /tmp/confine-net.* 2>/dev/null | sort; }
# own_net_dir PID DIR...: the one of DIRs whose proxy.sock is a socket PID holds open (its inode
# in /proc/net/unix), so that another run's new directory (another test file, another suite)
# is never taken for this run's.
own_net_dir() {
	local pid=$1 d ino
	shift
	for d in "$@"; do
		ino=$(awk -v p="$d/proxy.sock" '$8 == p { print $7; exit }' /proc/net/unix)
		[ -n "$ino" ] && ls -l "/proc/$pid/fd" 2>/dev/null | grep -q "socket:\[$ino\]" &&
			{ echo "$d"; return 0; }
	done
	return 1
}

# The landlock backend's proxy while a sandbox runs: what another process of the same user
# that knows the port (it is in /proc/net/tcp for everyone) can do with it, what a second
# sandbox can, where the secret can be read, and a host server on another address at the
# proxy's very port, which Landlock alone would let the command reach.
ll_long_running() { # who
	local who=$1 w port pid
	w=$(ws "$who")
	rm -f "$w"/out/{port,pid,same.out,go,hold} "$T"/same.*
	mkfifo "$w/out/go" "$w/out/hold"
	[ "$who" = nobody ] && chown 65534:65534 "$w/out/go" "$w/out/hold"
	xenv=()
	cx_bg "$who" --net-allow www.test -- sh -c 'cd out && echo $$ >pid &&
		echo "${HTTP_PROXY##*:}" >port.tmp && mv port.tmp port && read x <go &&
		'"$TRYOP"' connect-tcp 127.0.0.2 "${HTTP_PROXY##*:}" >same.tmp && mv same.tmp same.out &&
		cat hold >/dev/null'
	for _ in $(seq 500); do [ -s "$w/out/port" ] && break; sleep 0.02; done
	port=$(cat "$w/out/port" 2>/dev/null)
	pid=$(cat "$w/out/pid" 2>/dev/null)
	if [ -z "$port" ] || [ -z "$pid" ]; then
		ok 1 "$who: the long-running sandbox wrote its proxy's port (stderr: $(cat "$E/bg.err"))"
		timeout 10 sh -c 'echo x >"$1"' sh "$w/out/go"
		timeout 10 sh -c 'echo x >"$1"' sh "$w/out/hold"
		wait_pid "$BGPID" 30
		return
	fi
	# A server of the host on 127.0.0.2 at the proxy's port: the same port number, another
	# address.  It counts what reaches it, whatever was pending when told to stop.
	"$PY" -c '
import os, socket, sys, time
s = socket.socket()
s.bind(("127.0.0.2", int(sys.argv[1])))
s.listen(16)
s.setblocking(False)
open(sys.argv[2] + ".tmp", "w").close()
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
n = 0
while True:
    stop = os.path.exists(sys.argv[3])
    try:
        while True:
            s.accept()[0].close()
            n += 1
    except BlockingIOError:
        pass
    if stop:
        break
    time.sleep(0.01)
with open(sys.argv[4] + ".tmp", "w") as f:
    f.write("%d\n" % n)
os.rename(sys.argv[4] + ".tmp", sys.argv[4])
' "$port" "$T/same.ready" "$T/same.stop" "$T/same.count" &
	bg_pids+=($!)
	for _ in $(seq 500); do [ -e "$T/same.ready" ] && break; sleep 0.02; done
	[ -e "$T/same.ready" ]
	ok $? "$who: a host server listens on 127.0.0.2:$port, the proxy's port"

	# Another process of the same user, outside any sandbox, with the port but not the secret.
	expect_host "$who" "407" "R31 another process of the user, with the port but not the secret: 407" \
		curl -sS -o /dev/null -w '%{http_code}' --noproxy '' --proxy "http://127.0.0.1:$port" "http://www.test:$P1/hello.txt"
	hx "$who" curl -sS --proxy "socks5h://127.0.0.1:$port" "http://www.test:$P1/hello.txt"
	is "$rc" 97 "$who: R31 and through SOCKS5: no acceptable method (curl 97)"
	# A second sandbox: its own connects go to its own proxy only, and it cannot read the
	# first command's environment (Landlock: no ptrace-read access outside its domain).
	nexpect "$who" EACCES "R31 a second sandbox cannot connect to the first one's proxy" \
		--net-allow www.test -- "$TRYOP" connect-tcp 127.0.0.1 "$port"
	nexpect "$who" EACCES "R31 nor read the first command's environment (/proc/$pid/environ)" \
		-- "$TRYOP" read "/proc/$pid/environ"
	if [ "$who" = root ]; then
		is "$(setpriv --reuid=65534 --regid=65534 --clear-groups "$TRYOP" read "/proc/$pid/environ")" EACCES \
			"$who: R31 uid 65534 cannot read a root command's environment (mode 0400, ptrace check)"
	else
		# What the plan says: the same user outside a sandbox, and root, can read it.
		expect_host "$who" OK "the same user outside a sandbox can read the command's environment (said in the plan)" \
			"$TRYOP" read "/proc/$pid/environ"
	fi
	grep -q "^HTTP_PROXY=http://confine:[0-9a-f]\{32\}@127\.0\.0\.1:$port\$" <(tr '\0' '\n' <"/proc/$pid/environ")
	ok $? "$who: the command's environment holds the proxy URL with the run's secret (root reads it)"

	# The command itself: another address at the proxy's port.
	timeout 10 sh -c 'echo go >"$1"' sh "$w/out/go"
	for _ in $(seq 500); do [ -s "$w/out/same.out" ] && break; sleep 0.02; done
	is "$(cat "$w/out/same.out" 2>/dev/null)" EACCES \
		"$who: R31 the command cannot reach the host server at 127.0.0.2 on the proxy's port (EACCES)"
	touch "$T/same.stop"
	for _ in $(seq 500); do [ -s "$T/same.count" ] && break; sleep 0.02; done
	is "$(cat "$T/same.count" 2>/dev/null)" 0 "$who: and that server never got a connection"
	timeout 10 sh -c 'echo done >"$1"' sh "$w/out/hold"
	wait_pid "$BGPID" 30
	is "$WAITRC" 0 "$who: the long-running sandbox ended"
	expect_host "$who" ECONNREFUSED "R31 after the run nothing listens on the proxy's port" \
		"$TRYOP" connect-tcp 127.0.0.1 "$port"
	rm -f "$w"/out/{port,pid,same.out,go,hold}
}

outside=198.51.100.7 # TEST-NET-2: never reached, there is no route inside
resolver=$(awk '$1 == "nameserver" && $2 ~ /^[0-9.]+$/ { print $2; exit }' /etc/resolv.conf 2>/dev/null)

for who in $RUN_USERS; do
	w=$(ws "$who")
	h=$(home "$who")
	: >"$E/$who.log"
	chmod 0666 "$E/$who.log"
	# name -> address, for the test build's resolver only; slow.test's lookup waits for a file
	# the command creates in its workspace.
	cat >"$E/$who.hosts" <<EOF
127.0.0.5 www.test denied.test ruled.test
127.0.0.6 tls.test
127.0.0.1 rebind.test
127.0.0.7 echo.test
169.254.169.254 metadata.test
wait $w/out/release slow.test
127.0.0.5 slow.test
EOF
	chmod 0644 "$E/$who.hosts"
	uid=$([ "$who" = nobody ] && echo 65534 || id -u)

	# --- allowed: HTTP, HTTPS through CONNECT, SOCKS5, git ---
	expect_host "$who" "hello-www" "curl to the HTTP server on 127.0.0.5" \
		curl -sS --noproxy '*' "http://127.0.0.5:$P1/hello.txt"
	nexpect "$who" "hello-www" "R31 curl http:// through the proxy (absolute URI)" \
		"${allow[@]}" -- curl -sS "http://www.test:$P1/hello.txt"
	nexpect "$who" "hello-tls" "R31 curl https:// through a CONNECT tunnel, TLS verified end to end" \
		"${allow[@]}" -- curl -sS --cacert "$E/tls/cert.pem" "https://tls.test:$P2/hello.txt"
	nexpect "$who" "hello-www" "R31 curl through SOCKS5 (socks5h: the name goes to the proxy)" \
		"${allow[@]}" -- sh -c "curl -sS --proxy \"\$ALL_PROXY\" http://www.test:$P1/hello.txt"
	nexpect "$who" "repo-readme" "R31 git clone over http:// (dumb protocol)" \
		"${allow[@]}" -- sh -c "GIT_TERMINAL_PROMPT=0 git clone -q http://www.test:$P1/repo.git out/clone && cat out/clone/README"
	rm -rf "$w/out/clone"
	n=$(grep -cx www.test "$E/$who.log")
	[ "$n" -ge 3 ]
	ok $? "$who: the allowed name was looked up on the host, once per connection ($n)"

	# --- denied: a 403 that names confine and the remedy, a report entry, no lookup ---
	rm -f "$h/audit.log"
	nx "$who" "${allow[@]}" --report "$h/report.json" --audit "$h/audit.log" -- \
		curl -sS -w '%{http_code}' "http://denied.test:$P1/hello.txt"
	case $out in
	*"confine: network request denied: 'denied.test:$P1': no rule allows it"*"--net-allow denied.test"*403)
		ok 0 "$who: R31 an unlisted name: 403 naming confine, the host and the remedy" ;;
	*) ok 1 "$who: R31 an unlisted name: 403 naming confine, the host and the remedy (got: $out)" ;;
	esac
	q='[.network] + [.network_decisions[] | select(.host == "denied.test") |
		.protocol, .decision, .layer, (.rule | tostring), .outcome, (.port | tostring)] | join(" ")'
	is "$(jq -r "$q" "$h/report.json" 2>&1)" "domains http ask fallback null denied $P1" \
		"$who: R31 the report records the decision: host, port, ask, fallback, denied"
	is "$(jq -r '.network_decisions[0].time_ms > 1600000000000' "$h/report.json" 2>&1)" true \
		"$who: the decision has its time"
	is "$(tail -n 1 "$h/audit.log" | jq -r "$q" 2>&1)" "domains http ask fallback null denied $P1" \
		"$who: R24 R31 and so does the audit line"
	case $err in
	*"confine: network request denied: 'denied.test:$P1'"*"(1 time)"*) ok 0 "$who: and confine says so after the run" ;;
	*) ok 1 "$who: and confine says so after the run (stderr: $err)" ;;
	esac
	nexpect_rc "$who" 56 "R31 https:// to an unlisted name: the CONNECT is refused (curl 56)" \
		"${allow[@]}" -- curl -sS "https://denied.test:$P2/"
	nexpect_rc "$who" 97 "R31 SOCKS5 to an unlisted name: refused (curl 97)" \
		"${allow[@]}" -- sh -c "curl -sS --proxy \"\$ALL_PROXY\" http://denied.test:$P1/"
	is "$(grep -c denied.test "$E/$who.log")" 0 "$who: R31 a denied name never reached the resolver"

	# --- rebinding: allowed names that resolve to loopback and to the metadata address ---
	nx "$who" "${allow[@]}" --report "$h/report.json" -- sh -c \
		"curl -sS http://rebind.test:$P1/hello.txt; curl -sS http://metadata.test/latest/meta-data/"
	case $out in
	*"'rebind.test:$P1'"*"127.0.0.1 is a loopback address"*"'metadata.test:80'"*"169.254.169.254 is a link-local address"*)
		ok 0 "$who: R31 names resolving to 127.0.0.1 and 169.254.169.254: refused" ;;
	*) ok 1 "$who: R31 names resolving to 127.0.0.1 and 169.254.169.254: refused (got: $out)" ;;
	esac
	is "$(jq -r '[.network_decisions[] | .decision + " " + .outcome + " " + .address] | join(", ")' \
		"$h/report.json" 2>&1)" \
		"allow address_refused 127.0.0.1, allow address_refused 169.254.169.254" \
		"$who: the report: allowed by name, refused by address, never connected"

	# --- layers: the user file allows, the workspace file denies (and may not allow) ---
	mkdir -p "$h/.config/confine"
	printf '{"version": 1, "network": {"allow": ["ruled.test"]}}\n' >"$h/.config/confine/rules.json"
	[ "$who" = nobody ] && chown -R 65534:65534 "$h/.config"
	nexpect "$who" "hello-www" "R31 a user-file allow (the mode is domains without --net-allow)" \
		--net-allow 127.0.0.5 -- curl -sS "http://ruled.test:$P1/hello.txt"
	printf '{"version": 1, "rules": [],\n "network": {\n  "deny": ["ruled.test"]}}\n' >"$w/.confine/rules.json"
	nx "$who" --net-allow 127.0.0.5 -- curl -sS "http://ruled.test:$P1/hello.txt"
	case $out in
	*"denied by rule 'ruled.test' ($w/.confine/rules.json:3:12, workspace layer)"*)
		ok 0 "$who: R31 a workspace deny beats the user file's allow, and the 403 names it" ;;
	*) ok 1 "$who: R31 a workspace deny beats the user file's allow, and the 403 names it (got: $out)" ;;
	esac
	rm -f "$h/.config/confine/rules.json"
	printf '{"version": 1, "rules": [],\n "network": {\n  "allow": ["evil.test"]}}\n' >"$w/.confine/rules.json"
	nexpect_rc "$who" 125 "R31 a workspace allow refuses the run" "${allow[@]}" -- true
	case $err in
	*"$w/.confine/rules.json' (line 3, column 13): /network/allow/0: \"evil.test\": a workspace rule file may deny domains but not allow them"*)
		ok 0 "$who: with FILE, LINE, COLUMN and pointer" ;;
	*) ok 1 "$who: with FILE, LINE, COLUMN and pointer (stderr: $err)" ;;
	esac
	echo '{"version": 1, "rules": []}' >"$w/.confine/rules.json"
	[ "$who" = nobody ] && chown 65534:65534 "$w/.confine/rules.json"

	# --- inside: nothing but the proxy ---
	# (bwrap: an own network namespace with loopback only; landlock: the host's network, with
	# TCP connects limited to the proxy's port by Landlock and to its address by confine's
	# connect guard, and every other socket refused by the filter.)
	nexpect "$who" "$(bk ECONNREFUSED EACCES)" "R31 direct TCP to the server's address (a host loopback listener on another port)" \
		"${allow[@]}" -- "$TRYOP" connect-tcp 127.0.0.5 "$P1"
	# (bwrap, R43: a TCP connect to an outside address and a DNS query to any name server
	# reach confine, which decides them: tests/enforce/netresolve.t.)
	nexpect "$who" "$(bk OK EACCES)" "R31 direct TCP to an outside address$(bk " (taken by confine's proxy, R43, which decides it: netresolve.t)" "")" \
		"${allow[@]}" -- "$TRYOP" connect-tcp "$outside" 443
	nexpect "$who" "$(bk ENETUNREACH EPERM)" "R31 UDP to an outside address (not DNS)" \
		"${allow[@]}" -- "$TRYOP" connect-udp "$outside" 443
	if [ -n "$resolver" ] && [ "${resolver#127.}" = "$resolver" ]; then
		nexpect "$who" "$(bk OK EPERM)" "R31 a DNS datagram to the host's resolver $resolver$(bk " (answered by confine's resolver inside, R43)" "")" \
			"${allow[@]}" -- "$TRYOP" connect-udp "$resolver" 53
	else
		nexpect "$who" "$(bk OK EPERM)" "R31 no outside resolver here: a DNS datagram to 127.0.0.53$(bk " (the sandbox's own loopback: confine's resolver)" " (no UDP socket at all)")" \
			"${allow[@]}" -- "$TRYOP" connect-udp 127.0.0.53 53
	fi
	nx "$who" "${allow[@]}" -- "$TRYOP" getaddrinfo www.test
	case "$LL $out" in
	"1 EAI_AGAIN") ok 0 "$who: R31 landlock: the C library's resolver finds nothing (no DNS)" ;;
	"0 OK 198.18."*) ok 0 "$who: R43 the C library's resolver gets a synthetic address ($out)" ;;
	*) ok 1 "$who: R31 R43 getaddrinfo inside (got: $out)" ;;
	esac
	nexpect "$who" "EPERM" "R31 a raw IP socket" "${allow[@]}" -- "$TRYOP" raw-socket
	nexpect "$who" "EPERM" "R31 a packet socket" "${allow[@]}" -- "$TRYOP" packet-socket
	nexpect "$who" "$(bk OK EPERM)" "R31 a netlink socket$(bk " (the sandbox's own namespace)" "")" \
		"${allow[@]}" -- "$TRYOP" socket netlink raw
	nexpect "$who" "OK" "$(bk "the relay listens on the sandbox's own 127.0.0.1:3128" "the proxy listens on the host's 127.0.0.1 at the port of HTTP_PROXY")" \
		"${allow[@]}" -- sh -c "exec $TRYOP connect-tcp 127.0.0.1 \"\${HTTP_PROXY##*:}\""
	nexpect "$who" "$(bk ECONNREFUSED EACCES)" "R31 another loopback address on the proxy's port$(bk "" " (Landlock matches ports: the connect guard refuses it)")" \
		"${allow[@]}" -- sh -c "exec $TRYOP connect-tcp 127.0.0.2 \"\${HTTP_PROXY##*:}\""
	nexpect "$who" "$(bk ECONNREFUSED EPERM)" "R31 TCP Fast Open (sendto MSG_FASTOPEN connects without connect(2))" \
		"${allow[@]}" -- "$TRYOP" tcp-fastopen 127.0.0.5 "$P1"
	nexpect "$who" "$(bk OK EPERM)" "R31 listen(2) without bind (an ephemeral port on every address)$(bk " (own namespace)" "")" \
		"${allow[@]}" -- "$TRYOP" listen-tcp
	nexpect "$who" "$(bk OK EACCES)" "R31 bind(2) of a TCP socket$(bk " (own namespace)" " (Landlock: no bind rule)")" \
		"${allow[@]}" -- "$TRYOP" bind-tcp 127.0.0.1 0
	if [ "$LL" = 1 ]; then
		nexpect "$who" EPERM "R31 an MPTCP socket (Landlock's TCP rules do not see MPTCP)" \
			"${allow[@]}" -- "$TRYOP" socket-proto inet stream 262
		nexpect "$who" EPERM "R31 a unix socket (confine makes the connects, RESOLVE_UNIX would not apply)" \
			"${allow[@]}" -- "$TRYOP" socket unix stream

		# --- the landlock backend's proxy is on the host: every request needs the secret ---
		nx "$who" "${allow[@]}" --report "$h/report.json" -- sh -c "
			p=\${HTTP_PROXY##*:}
			curl -sS -o /dev/null -w '%{http_code} ' --proxy http://127.0.0.1:\$p http://www.test:$P1/hello.txt
			curl -sS -o /dev/null -w '%{http_code} ' --proxy http://confine:0123456789abcdef0123456789abcdef@127.0.0.1:\$p http://www.test:$P1/hello.txt
			curl -sS -o /dev/null -w '%{http_code} ' --proxy http://127.0.0.1:\$p https://tls.test:$P2/hello.txt 2>/dev/null
			curl -sS --proxy socks5h://127.0.0.1:\$p http://www.test:$P1/hello.txt 2>/dev/null; echo socks \$?"
		is "$out" "407 407 000 socks 97" \
			"$who: R31 no or a wrong secret: 407 for HTTP and CONNECT, SOCKS5 refused (curl 97)"
		is "$(jq -r '[.network_decisions[] | .protocol + " " + .outcome + " " + .host] | join(", ")' "$h/report.json" 2>&1)" \
			"http unauthenticated www.test, http unauthenticated www.test, connect unauthenticated tls.test, socks5 unauthenticated " \
			"$who: R31 each is in the report, as unauthenticated, with the host it asked for"
		case $err in
		*"confine: network request denied: 'www.test:$P1': the request did not carry this run's proxy credentials"*"(2 times)"*)
			ok 0 "$who: and confine says so after the run" ;;
		*) ok 1 "$who: and confine says so after the run (stderr: $err)" ;;
		esac
	fi

	# --- a lookup that hangs holds up nothing else ---
	# slow.test's lookup blocks until out/release exists in the workspace.  Inside: start it, wait until
	# the host's resolver has it, make another request (which must complete), then release it.
	# (In out/: the landlock backend refuses new entries at the workspace root, which it splits.)
	rm -f "$w/out/release"
	nx "$who" "${allow[@]}" -- sh -c "
		cd out || exit 1
		curl -sS http://slow.test:$P1/hello.txt >slow.out 2>&1 &
		i=0; until grep -qx slow.test $E/$who.log || [ \$i -ge 1000 ]; do sleep 0.01; i=\$((i+1)); done
		curl -sS http://www.test:$P1/hello.txt >fast.out 2>&1
		touch release
		wait; cat fast.out slow.out"
	rm -f "$w/out/release"
	is "$out" "$(printf 'hello-www\nhello-www')" \
		"$who: R31 a request completes while another name's lookup hangs; that one follows"
	rm -f "$w/out/slow.out" "$w/out/fast.out"

	# --- hostile clients through the relay: no crash, no blocking of other connections ---
	nexpect "$who" "parallel-200 1000
ordinary-during-parallel True
parallel-echo 1000
long-line 414
header-flood 431
ordinary-during-slowloris True
half-close True" "R31 1,000 parallel tunnels, a 1 MB request line, a header flood, slowloris, half-close" \
		--net-allow echo.test,127.0.0.7,www.test -- "$PY" "$E/hostile.py" "$P3"

	# --- the proxy's socket: another host user and a second sandbox cannot reach it ---
	if bwrap_only "the proxy's unix socket in a private directory; the landlock proxy is on the host's loopback, checked below"; then
		before=$(net_dirs)
		mkfifo "$w/hold"
		[ "$who" = nobody ] && chown 65534:65534 "$w/hold"
		xenv=()
		cx_bg "$who" --net-allow www.test -- sh -c 'echo up >up; cat hold >/dev/null'
		for _ in $(seq 500); do [ -s "$w/up" ] && break; sleep 0.02; done
		dir=$(own_net_dir "$BGPID" $(comm -13 <(echo "$before") <(net_dirs)))
		if [ -n "$dir" ] && [ -S "$dir/proxy.sock" ]; then
			is "$(stat -c '%a %u' "$dir") $(stat -c '%a %u' "$dir/proxy.sock")" "700 $uid 600 $uid" \
				"$who: the proxy's directory is 0700 and its socket 0600, the caller's"
			expect_host "$who" OK "the owner reaches the socket on the host (control)" \
				"$TRYOP" connect-seqpacket "$dir/proxy.sock"
			if [ "$(id -u)" = 0 ]; then
				is "$(setpriv --reuid=65533 --regid=65533 --clear-groups "$TRYOP" connect-seqpacket "$dir/proxy.sock")" \
					EACCES "$who: R31 another user of the host (uid 65533) cannot reach the proxy's socket"
			else
				skip "$who: not root: no other user to try the proxy's socket as"
			fi
			nexpect "$who" ENOENT "R31 a second sandbox does not see the proxy's socket" \
				-- "$TRYOP" connect-seqpacket "$dir/proxy.sock"
			nexpect "$who" ENOENT "R31 nor does a second network-by-domain sandbox" \
				--net-allow www.test -- "$TRYOP" connect-seqpacket "$dir/proxy.sock"
		else
			ok 1 "$who: the long-running sandbox's proxy directory appeared (before: $before; now: $(net_dirs))"
		fi
		timeout 10 sh -c 'echo done >"$1"' sh "$w/hold"
		wait_pid "$BGPID" 30
		is "$WAITRC" 0 "$who: the long-running sandbox ended"
		[ -n "$dir" ] && [ ! -e "$dir" ]
		ok $? "$who: its proxy directory ${dir:-?} is gone after the run"
		rm -f "$w/hold" "$w/up"
	else
		ll_long_running "$who"
	fi
done

kill_bg
done_testing
