#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# R43 network by domain for every client, with real clients and real servers, as root and as
# uid 65534, each with a host control:
#  - Node's fetch (which ignores the proxy variables) to an allowed name over http:// and https://
#    works, to a denied name fails (ENOTFOUND) and the host never resolves it (the test
#    resolver's own log), to a name no rule names gets confine's 403;
#  - a raw connect by name (python's socket.create_connection) and curl told not to use a proxy;
#  - a TLS ClientHello naming another server than the address stands for: a TLS alert, recorded
#    as sni_mismatch; an HTTP request with another Host: a 403 (host_mismatch);
#  - the resolver inside: the files it reads, A answers from 198.18.0.0/15, NXDOMAIN for a denied
#    name, a query to an outside name server answered by confine (none leaves), UDP to any other
#    port still without a route; an address literal connected to goes through the rules;
#  - an upstream proxy of the caller's (HTTPS_PROXY) that requires credentials carries allowed
#    requests, by name, with its credentials, which the command never sees; NO_PROXY; its 407;
#  - live asks of the CLI on a terminal (ptydrive.py answers the question): once, deny,
#    --no-net-ask;
#  - the report and the audit line hold every decision.
# Every server listens on 127.0.0.0/8; the names resolve (on the host, in confine's proxy) through
# the test build of confine (tests/tools/testresolve.c: a hosts file, never DNS), and the proxy
# reaches 127.0.0.5-7 only because a rule names them.
# The landlock backend has no network namespace and so no resolver inside: what it gives instead
# is asserted (names do not resolve; proxy-aware clients keep working).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"

if ! sandbox_ok; then
	skip "$(bk "bubblewrap is not installed on this machine" "the landlock backend is not available here (confine probe)")"
	done_testing
fi
if [ "$LL" = 1 ] && [ "$LL_ABI" -lt 4 ]; then
	skip "Landlock ABI $LL_ABI has no TCP rules: network by domain is refused there"
	done_testing
fi
PY=$(command -v python3 || true)
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
for tool in curl openssl node jq "$PY"; do
	if [ -z "$tool" ] || ! command -v "$tool" >/dev/null; then
		skip "${tool:-python3} is not installed (scripts/install-deps test installs it)"
		done_testing
	fi
done
NODE=$(command -v node)
enforce_users
cp "$FIX/confine-testresolve" "$FIX/confine"
cp "$TOP/tests/enforce/ptydrive.py" "$E/bin/" && chmod a+rx "$E/bin/ptydrive.py"

# --- servers: HTTP on 127.0.0.5, TLS on 127.0.0.6 (tls.test), echo on 127.0.0.7 -------------
mkdir -p "$E/www" "$E/tls"
echo hello-www >"$E/www/hello.txt"
echo hello-tls >"$E/tls/hello.txt"
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
    except Exception:
        pass
    finally:
        w.close()
async def main():
    srv = await asyncio.start_server(echo, "127.0.0.7", 0)
    with open(sys.argv[1] + ".tmp", "w") as f: f.write("%d\n" % srv.sockets[0].getsockname()[1])
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    await srv.serve_forever()
asyncio.run(main())
' "$T/echo.port" &
bg_pids+=($!)
# A server that speaks first (as ssh and SMTP do): a banner on every connection, then an echo.
"$PY" -c '
import os, socket, sys, threading
srv = socket.socket()
srv.bind(("127.0.0.7", 0))
srv.listen(16)
with open(sys.argv[1] + ".tmp", "w") as f: f.write("%d\n" % srv.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
def one(c):
    c.sendall(b"banner-first\n")
    while True:
        d = c.recv(4096)
        if not d:
            break
        c.sendall(d)
    c.close()
while True:
    c, _ = srv.accept()
    threading.Thread(target=one, args=(c,), daemon=True).start()
' "$T/banner.port" &
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
for _ in $(seq 500); do [ -s "$T/banner.port" ] && break; sleep 0.02; done
P4=$(cat "$T/banner.port" 2>/dev/null)
if [ -z "$P1" ] || [ -z "$P2" ] || [ -z "$P3" ] || [ -z "$P4" ]; then
	ok 1 "test servers started (http: '${P1:-}', tls: '${P2:-}', echo: '${P3:-}')"
	done_testing
fi
# An upstream proxy on 127.0.0.8 that requires credentials: CONNECT NAME:PORT only, the names
# it knows mapped to the servers above; every CONNECT logged with whether its credentials were
# right.
"$PY" -c '
import base64, os, select, socket, sys, threading
want = "Basic " + base64.b64encode(b"ana:s3cret pw").decode()
names = {"www.test": "127.0.0.5", "tls.test": "127.0.0.6", "echo.test": "127.0.0.7",
         "onlyup.test": "127.0.0.5"}
log = open(sys.argv[2], "a", buffering=1)
def pipe(a, b):
    try:
        while True:
            r, _, _ = select.select([a, b], [], [], 30)
            if not r:
                return
            for s in r:
                d = s.recv(65536)
                if not d:
                    return
                (b if s is a else a).sendall(d)
    except OSError:
        pass
def one(c):
    h = b""
    while b"\r\n\r\n" not in h:
        k = c.recv(4096)
        if not k:
            return c.close()
        h += k
    lines = h.split(b"\r\n")
    target = lines[0].split(b" ")[1].decode()
    auth = [l.split(b":", 1)[1].strip().decode() for l in lines[1:] if l.lower().startswith(b"proxy-authorization:")]
    good = auth == [want]
    log.write("CONNECT %s %s\n" % (target, "ok" if good else "refused"))
    if not good:
        c.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\nContent-Length: 0\r\n\r\n")
        return c.close()
    host, port = target.rsplit(":", 1)
    u = socket.create_connection((names.get(host, host), int(port)))
    c.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
    pipe(c, u)
    c.close(); u.close()
srv = socket.socket()
srv.bind(("127.0.0.8", 0))
srv.listen(64)
with open(sys.argv[1] + ".tmp", "w") as f: f.write("%d\n" % srv.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c, _ = srv.accept()
    threading.Thread(target=one, args=(c,), daemon=True).start()
' "$T/up.port" "$E/up.log" &
bg_pids+=($!)
for _ in $(seq 500); do [ -s "$T/up.port" ] && break; sleep 0.02; done
PU=$(cat "$T/up.port" 2>/dev/null)
: >>"$E/up.log"
chmod 0644 "$E/up.log"
diag "HTTP on 127.0.0.5:$P1, TLS on 127.0.0.6:$P2, echo on 127.0.0.7:$P3, upstream proxy on 127.0.0.8:$PU"

# The clients, as files the sandboxed command runs (readable by uid 65534).
cat >"$E/fetch.js" <<'JS'
// node fetch.js URL: the body (trimmed), or "status N", or the error's code.
fetch(process.argv[2]).then(async r => {
	const t = (await r.text()).trim();
	console.log(r.status === 200 ? t : "status " + r.status + " " + t.split("\n")[0]);
}).catch(e => console.log("error " + ((e.cause && e.cause.code) || e.message)));
JS
cat >"$E/client.py" <<'PY'
import socket, ssl, struct, sys
what = sys.argv[1]
def recv_all(s):
    b = b""
    while True:
        try:
            k = s.recv(65536)
        except OSError as e:
            return b + (" [%s]" % e.__class__.__name__).encode()
        if not k:
            return b
        b += k
if what == "echo":          # a raw connect by name
    s = socket.create_connection((sys.argv[2], int(sys.argv[3])), timeout=20)
    s.sendall(b"ping-by-name")
    print(s.recv(100).decode())
elif what == "tls":         # TLS to host:port naming server_hostname, cafile
    ctx = ssl.create_default_context(cafile=sys.argv[5])
    s = socket.create_connection((sys.argv[2], int(sys.argv[3])), timeout=20)
    try:
        t = ctx.wrap_socket(s, server_hostname=sys.argv[4])
        t.sendall(b"GET /hello.txt HTTP/1.0\r\n\r\n")
        print(recv_all(t).split(b"\r\n\r\n", 1)[-1].decode().strip())
    except ssl.SSLError as e:
        print("ssl-error " + str(e.reason))
elif what == "http":        # GET /hello.txt from host:port with the Host header given
    s = socket.create_connection((sys.argv[2], int(sys.argv[3])), timeout=20)
    s.sendall(b"GET /hello.txt HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % sys.argv[4].encode())
    r = recv_all(s).decode(errors="replace")
    body = r.split("\r\n\r\n", 1)[-1].strip().split("\n")[0]
    print(r.split("\r\n")[0] + " | " + body)
elif what == "dns":         # an A query for a name to a name server, over UDP
    q = struct.pack("!HHHHHH", 0x4242, 0x0100, 1, 0, 0, 0)
    for l in sys.argv[3].split("."):
        q += bytes([len(l)]) + l.encode()
    q += b"\0\0\1\0\1"
    u = socket.socket(socket.AF_INET6 if ":" in sys.argv[2] else socket.AF_INET, socket.SOCK_DGRAM)
    u.settimeout(10)
    u.sendto(q, (sys.argv[2], 53))
    r = u.recv(512)
    rcode = r[3] & 15
    if rcode or r[7] == 0:
        print("rcode %d" % rcode)
    else:
        print("%d.%d.%d.%d" % tuple(r[-4:]))
elif what == "banner":      # connect by name and read what the server says first
    s = socket.create_connection((sys.argv[2], int(sys.argv[3])), timeout=20)
    print(s.recv(100).decode().strip())
elif what == "dnstcp":      # an A query over TCP to a name server
    q = struct.pack("!HHHHHH", 0x4343, 0x0100, 1, 0, 0, 0)
    for l in sys.argv[3].split("."):
        q += bytes([len(l)]) + l.encode()
    q += b"\0\0\1\0\1"
    s = socket.create_connection((sys.argv[2], 53), timeout=10)
    s.sendall(struct.pack("!H", len(q)) + q)
    r = b""
    while len(r) < 2 or len(r) < 2 + struct.unpack("!H", r[:2])[0]:
        k = s.recv(512)
        if not k:
            break
        r += k
    r = r[2:]
    print("rcode %d" % (r[3] & 15) if (r[3] & 15) or r[7] == 0 else "%d.%d.%d.%d" % tuple(r[-4:]))
elif what == "literal":     # connect to an address, send a request, what comes back
    s = socket.create_connection((sys.argv[2], int(sys.argv[3])), timeout=20)
    s.sendall(b"hello?\n")
    print("got %r" % recv_all(s)[:40])
PY
chmod 0644 "$E/fetch.js" "$E/client.py"

allow=(--net-allow www.test,tls.test,echo.test,banner.test,rebind.test,onlyup.test
	--net-allow 127.0.0.5,127.0.0.6,127.0.0.7 --net-deny denied.test)

nx() { # who confine-run-args...: cx with the test resolver's hosts file and lookup log
	local who=$1
	shift
	xenv=("CONFINE_TEST_HOSTS=$E/$who.hosts" "CONFINE_TEST_RESOLVER_LOG=$E/$who.log" "${xenv[@]}")
	cx "$who" "$@"
}
nexpect() { # who want description confine-run-args...
	xenv=("CONFINE_TEST_HOSTS=$E/$1.hosts" "CONFINE_TEST_RESOLVER_LOG=$E/$1.log" "${xenv[@]}")
	expect "$@"
}

outside=198.51.100.7 # TEST-NET-2: never reached

for who in $RUN_USERS; do
	h=$(home "$who")
	: >"$E/$who.log"
	chmod 0666 "$E/$who.log"
	cat >"$E/$who.hosts" <<EOF
127.0.0.5 www.test denied.test unlisted.test
127.0.0.6 tls.test
127.0.0.7 echo.test banner.test
127.0.0.1 rebind.test
EOF
	chmod 0644 "$E/$who.hosts"

	# --- live asks on the terminal: confine run in a pseudo-terminal, the answer typed once the
	# question is on the screen (before it, the keys are the command's: R41 relays them) ---
	ask_run() { # who answer [confine-run-options...]
		local who=$1 ans=$2 u
		shift 2
		u=$(_uname "$who")
		printf '#!/bin/sh\nexec %q run %s %s -- curl -s -o /dev/null -w "code=%%{http_code}\\n" http://unlisted.test:%s/hello.txt\n' \
			"$FIX/confine" "${allow[*]}" "$*" "$P1" >"$E/ask.sh"
		chmod 0755 "$E/ask.sh"
		out=$(cd "$(ws "$who")" && _as "$who" env -i PATH=/usr/bin:/bin \
			HOME="$(home "$who")" USER="$u" LOGNAME="$u" TERM=dumb \
			CONFINE_TEST_HOSTS="$E/$who.hosts" CONFINE_TEST_RESOLVER_LOG="$E/$who.log" \
			${CONFINE_TEST_BACKEND:+CONFINE_BACKEND=$CONFINE_TEST_BACKEND} \
			timeout 60 python3 "$E/bin/ptydrive.py" answer "wants to connect" "$ans" \
			-- "$E/ask.sh" 2>&1)
	}
	rm -f "$h/audit.log"
	ask_run "$who" o --report "$h/report.json" --audit "$h/audit.log"
	q='[.network_decisions[] | .host, .decision, .answer, .outcome] | join(" ")'
	is "$(jq -r "$q" "$h/report.json" 2>&1)|$(tail -n 1 "$h/audit.log" | jq -r "$q" 2>&1)" \
		"unlisted.test ask once connected|unlisted.test ask once connected" \
		"$who: R43 the answer is in the report and the audit line"
	case $out in
	*"the command wants to connect to 'unlisted.test:$P1' (http), which no rule names"*"allowed once"*"code=200"*)
		ok 0 "$who: R43 the CLI asks on the terminal about a name no rule names; 'once': connected" ;;
	*) ok 1 "$who: R43 the CLI asks on the terminal; 'once': connected (got: $out)" ;;
	esac
	ask_run "$who" d
	case $out in
	*"wants to connect to 'unlisted.test:$P1'"*"confine: denied"*"code=403"*"the answer to the question was: deny"*)
		ok 0 "$who: R43 'deny' on the terminal: 403, and confine says why after the run" ;;
	*) ok 1 "$who: R43 'deny' on the terminal: 403 (got: $out)" ;;
	esac
	ask_run "$who" o --no-net-ask
	case $out in
	*"wants to connect"*) ok 1 "$who: R43 --no-net-ask: nobody is asked (got: $out)" ;;
	*"code=403"*) ok 0 "$who: R43 --no-net-ask on a terminal: not asked, denied" ;;
	*) ok 1 "$who: R43 --no-net-ask on a terminal: not asked, denied (got: $out)" ;;
	esac

	# --- an upstream proxy of the caller's, which requires credentials ---
	upstream="http://ana:s3cret%20pw@127.0.0.8:$PU"
	expect_host "$who" "hello-www" "curl through the upstream proxy, with its credentials" \
		curl -sS -p --proxy "$upstream" "http://www.test:$P1/hello.txt"
	: >"$E/up.log"
	xenv=("HTTPS_PROXY=$upstream" "PROXY_NOTE=uses $upstream")
	nx "$who" "${allow[@]}" --report "$h/report.json" -- sh -c \
		"curl -sS http://www.test:$P1/hello.txt; env | grep -c 's3cret'; echo \"\$HTTPS_PROXY\" | grep -c '127.0.0.1'"
	is "$out" "$(printf 'hello-www\n0\n1')" \
		"$who: R43 an allowed request goes through the caller's upstream proxy; the command sees neither its credentials nor its URL"
	is "$(cat "$E/up.log")" "CONNECT www.test:$P1 ok" \
		"$who: R43 the upstream proxy was asked for the name, with its credentials"
	is "$(jq -r '[.network_decisions[] | .outcome, .detail] | join(" | ")' "$h/report.json" 2>&1)" \
		"connected | through the upstream proxy http://127.0.0.8:$PU" "$who: R43 the report says which way it went (no credentials)"
	: >"$E/up.log"
	xenv=("HTTPS_PROXY=$upstream" "NO_PROXY=www.test")
	nexpect "$who" "hello-www" "R43 a host the caller's NO_PROXY names goes directly" \
		"${allow[@]}" -- curl -sS "http://www.test:$P1/hello.txt"
	is "$(grep -c . "$E/up.log")" 0 "$who: R43 and the upstream proxy saw nothing of it"
	: >"$E/up.log"
	xenv=("HTTPS_PROXY=$upstream")
	nexpect "$who" "hello-www" "R43 an allowed name the host cannot resolve goes to the upstream proxy by name" \
		"${allow[@]}" -- curl -sS "http://onlyup.test:$P1/hello.txt"
	is "$(cat "$E/up.log")" "CONNECT onlyup.test:$P1 ok" "$who: R43 which resolves it itself"
	xenv=("HTTPS_PROXY=http://ana:wrong@127.0.0.8:$PU")
	nx "$who" "${allow[@]}" -- curl -sS -o /dev/null -w '%{http_code}' "http://www.test:$P1/hello.txt"
	case "$out|$err" in
	"502|"*"the upstream proxy http://127.0.0.8:$PU answered the CONNECT with 407"*)
		ok 0 "$who: R43 wrong credentials for the upstream: 502, and confine says it answered 407" ;;
	*) ok 1 "$who: R43 wrong credentials for the upstream: 502 naming the 407 (got: $out | $err)" ;;
	esac
	xenv=("HTTPS_PROXY=$upstream")
	nx "$who" "${allow[@]}" -- curl -sS "http://denied.test:$P1/hello.txt"
	is "$(grep -c denied.test "$E/up.log")" 0 "$who: R43 a denied name never reaches the upstream proxy"

	if ! bwrap_only "the resolver inside needs a network namespace of the sandbox's own"; then
		# landlock: what it gives instead.  No resolver inside: names do not resolve for a
		# client that does not use the proxy; proxy-aware clients work as before.
		nx "$who" "${allow[@]}" -- "$TRYOP" getaddrinfo www.test
		is "$out $rc" "EAI_AGAIN 1" "$who: R43 landlock: no resolver inside (not provided; the plan says so)"
		nexpect "$who" "hello-www" "R43 landlock: a proxy-aware client by name works (curl)" \
			"${allow[@]}" -- curl -sS "http://www.test:$P1/hello.txt"
		nexpect "$who" "error EAI_AGAIN" "R43 landlock: Node's fetch by name fails (no resolver)" \
			"${allow[@]}" -- "$NODE" "$E/fetch.js" "http://www.test:$P1/hello.txt"
		continue
	fi

	# --- Node's fetch, which ignores HTTP_PROXY: by name, through the resolver inside ---
	expect_host "$who" "hello-www" "Node's fetch to the HTTP server on 127.0.0.5" \
		"$NODE" "$E/fetch.js" "http://127.0.0.5:$P1/hello.txt"
	rm -f "$h/audit.log"
	nx "$who" "${allow[@]}" --report "$h/report.json" --audit "$h/audit.log" -- \
		"$NODE" "$E/fetch.js" "http://www.test:$P1/hello.txt"
	is "$out" "hello-www" "$who: R43 Node's fetch to an allowed name works (no proxy variable read)"
	q='[.network_decisions[] | select(.host == "www.test") | .protocol, .decision, .outcome, .address] | join(" ")'
	is "$(jq -r "$q" "$h/report.json" 2>&1)" "tcp allow connected 127.0.0.5" \
		"$who: R43 decided on the name its address stands for, connected to the host's answer"
	is "$(tail -n 1 "$h/audit.log" | jq -r "$q" 2>&1)" "tcp allow connected 127.0.0.5" \
		"$who: R43 and so says the audit line"
	xenv=("CONFINE_NO_HELPER_MOUNTS=1")
	nexpect "$who" "hello-www" "R43 the same without helper mode (bwrap drops every capability itself)" \
		"${allow[@]}" -- "$NODE" "$E/fetch.js" "http://www.test:$P1/hello.txt"
	nx "$who" "${allow[@]}" -- "$NODE" -e \
		'require("dns").promises.resolve4("www.test").then(a => console.log(a.join(" ")), e => console.log(e.code))'
	case $out in
	198.18.*) ok 0 "$who: R43 Node's c-ares (dns.resolve4) reads resolv.conf: a synthetic address ($out)" ;;
	*) ok 1 "$who: R43 Node's c-ares (dns.resolve4): a synthetic address (got: $out, $err)" ;;
	esac
	xenv=("NODE_EXTRA_CA_CERTS=$E/tls/cert.pem")
	nexpect "$who" "hello-tls" "R43 Node's fetch https:// to an allowed name, TLS verified end to end" \
		"${allow[@]}" -- "$NODE" "$E/fetch.js" "https://tls.test:$P2/hello.txt"
	: >"$E/up.log"
	xenv=("HTTPS_PROXY=$upstream")
	nexpect "$who" "hello-www" "R43 Node's fetch by name through the caller's upstream proxy" \
		"${allow[@]}" -- "$NODE" "$E/fetch.js" "http://www.test:$P1/hello.txt"
	is "$(cat "$E/up.log")" "CONNECT www.test:$P1 ok" "$who: R43 the upstream proxy carried it"
	: >"$E/$who.log"
	nx "$who" "${allow[@]}" --report "$h/report.json" -- \
		"$NODE" "$E/fetch.js" "http://denied.test:$P1/hello.txt"
	is "$out" "error ENOTFOUND" "$who: R43 Node's fetch to a denied name fails: the name does not resolve"
	is "$(grep -c . "$E/$who.log")" 0 "$who: R43 and the host never resolved it (the resolver's log is empty)"
	q='[.network_decisions[] | .protocol, .host, (.port | tostring), .decision, .layer, .rule.pattern, .outcome] | join(" ")'
	is "$(jq -r "$q" "$h/report.json" 2>&1)" "dns denied.test 0 deny session denied.test denied" \
		"$who: R43 the report: the resolver inside refused the name, by its rule"
	case $err in
	*"confine: network request denied: 'denied.test': the name is denied on every port"*) ok 0 "$who: and confine says so after the run" ;;
	*) ok 1 "$who: and confine says so after the run (stderr: $err)" ;;
	esac
	nx "$who" "${allow[@]}" --report "$h/report.json" -- \
		"$NODE" "$E/fetch.js" "http://unlisted.test:$P1/hello.txt"
	case $out in
	"status 403 confine: network request denied: 'unlisted.test:$P1': no rule allows it"*)
		ok 0 "$who: R43 Node's fetch to a name no rule names: confine's 403 (ask, denied without an asker)" ;;
	*) ok 1 "$who: R43 Node's fetch to a name no rule names: confine's 403 (got: $out)" ;;
	esac
	is "$(grep -c unlisted.test "$E/$who.log")" 0 "$who: R43 that name was never resolved on the host either"
	is "$(jq -r '[.network_decisions[] | .protocol, .host, .decision, .outcome] | join(" ")' "$h/report.json" 2>&1)" \
		"tcp unlisted.test ask denied" "$who: R43 the report: ask, denied"

	# --- any client: a raw connect by name, curl without a proxy ---
	expect_host "$who" "ping-by-name" "python's connect to the echo server on 127.0.0.7" \
		"$PY" "$E/client.py" echo 127.0.0.7 "$P3"
	nexpect "$who" "ping-by-name" "R43 a raw connect by name (socket.create_connection)" \
		"${allow[@]}" -- "$PY" "$E/client.py" echo echo.test "$P3"
	nexpect "$who" "hello-www" "R43 curl told to use no proxy, by name" \
		"${allow[@]}" -- curl -sS --noproxy '*' "http://www.test:$P1/hello.txt"

	nexpect "$who" "banner-first" "R43 a server that speaks first is heard before the client says anything" \
		"${allow[@]}" -- "$PY" "$E/client.py" banner banner.test "$P4"
	nx "$who" "${allow[@]}" --report "$h/report.json" -- \
		"$NODE" "$E/fetch.js" "http://rebind.test:$P1/hello.txt"
	case $out in
	"status 403 confine: network request denied: 'rebind.test:$P1': it resolved to an address it may not reach: the address 127.0.0.1 is a loopback address"*)
		ok 0 "$who: R43 an allowed name that resolves to loopback: refused on the transparent path too" ;;
	*) ok 1 "$who: R43 an allowed name that resolves to loopback: refused (got: $out)" ;;
	esac
	is "$(jq -r '[.network_decisions[] | .protocol, .decision, .outcome, .address] | join(" ")' "$h/report.json" 2>&1)" \
		"tcp allow address_refused 127.0.0.1" "$who: R43 recorded: allowed by name, refused by address"

	# --- the address stands for one name: TLS SNI and HTTP Host must be that name ---
	nx "$who" "${allow[@]}" --report "$h/report.json" -- sh -c \
		"openssl s_client -connect tls.test:$P2 -noservername </dev/null 2>&1 | grep -o 'alert access denied' | head -n 1"
	is "$out" "alert access denied" "$who: R43 a ClientHello without a server name: the same TLS alert"
	is "$(jq -r '[.network_decisions[] | .outcome, .detail] | join(" | ")' "$h/report.json" 2>&1)" \
		"sni_mismatch | the TLS ClientHello names no server (SNI)" "$who: R43 recorded as such"
	expect_host "$who" "hello-tls" "TLS to 127.0.0.6 naming tls.test" \
		"$PY" "$E/client.py" tls 127.0.0.6 "$P2" tls.test "$E/tls/cert.pem"
	nexpect "$who" "hello-tls" "R43 TLS to tls.test's address naming tls.test" \
		"${allow[@]}" -- "$PY" "$E/client.py" tls tls.test "$P2" tls.test "$E/tls/cert.pem"
	nx "$who" "${allow[@]}" --report "$h/report.json" -- \
		"$PY" "$E/client.py" tls tls.test "$P2" www.test "$E/tls/cert.pem"
	is "$out" "ssl-error TLSV1_ALERT_ACCESS_DENIED" \
		"$who: R43 an SNI of another (allowed) name on tls.test's address: refused with a TLS alert"
	is "$(jq -r '[.network_decisions[] | .host, .outcome, .detail] | join(" | ")' "$h/report.json" 2>&1)" \
		"tls.test | sni_mismatch | the TLS server name (SNI) 'www.test' is not the name this connection's address stands for" \
		"$who: R43 the report: sni_mismatch, naming both"
	expect_host "$who" "HTTP/1.0 200 OK | hello-www" "HTTP to 127.0.0.5 with Host www.test" \
		"$PY" "$E/client.py" http 127.0.0.5 "$P1" www.test
	nexpect "$who" "HTTP/1.0 200 OK | hello-www" "R43 HTTP to www.test's address with Host www.test" \
		"${allow[@]}" -- "$PY" "$E/client.py" http www.test "$P1" "www.test:$P1"
	nexpect "$who" "HTTP/1.1 403 Forbidden | confine: network request denied: 'www.test:$P1': the request's Host ('tls.test') is not the name this connection's address stands for" \
		"R43 HTTP to www.test's address with Host tls.test: 403" \
		"${allow[@]}" -- "$PY" "$E/client.py" http www.test "$P1" tls.test

	# --- the resolver inside ---
	nexpect "$who" "nameserver 127.0.0.1" "R43 /etc/resolv.conf inside names confine's resolver only" \
		"${allow[@]}" -- sh -c 'grep "^nameserver" /etc/resolv.conf'
	nexpect "$who" "hosts: files dns" "R43 /etc/nsswitch.conf inside: files and DNS only" \
		"${allow[@]}" -- sh -c 'grep "^hosts:" /etc/nsswitch.conf'
	nx "$who" "${allow[@]}" -- "$TRYOP" getaddrinfo www.test
	case $out in
	"OK 198.18."*) ok 0 "$who: R43 getaddrinfo of an allowed name: a synthetic address ($out)" ;;
	*) ok 1 "$who: R43 getaddrinfo of an allowed name: a synthetic address (got: $out, $err)" ;;
	esac
	nx "$who" "${allow[@]}" -- "$TRYOP" getaddrinfo denied.test
	is "$out $rc" "EAI_NONAME 1" "$who: R43 getaddrinfo of a denied name: no such name"
	nx "$who" "${allow[@]}" -- "$PY" "$E/client.py" dns "$outside" www.test
	case $out in
	198.18.*) ok 0 "$who: R43 a query to an outside name server is answered by confine ($out): none leaves" ;;
	*) ok 1 "$who: R43 a query to an outside name server is answered by confine (got: $out, $err)" ;;
	esac
	nx "$who" "${allow[@]}" -- "$PY" "$E/client.py" dnstcp "$outside" www.test
	case $out in
	198.18.*) ok 0 "$who: R43 a query over TCP to an outside name server is answered by confine ($out)" ;;
	*) ok 1 "$who: R43 a query over TCP to an outside name server is answered by confine (got: $out, $err)" ;;
	esac
	nexpect "$who" "rcode 3" "R43 and a denied name gets NXDOMAIN there too" \
		"${allow[@]}" -- "$PY" "$E/client.py" dns "$outside" denied.test
	nx "$who" "${allow[@]}" -- "$PY" "$E/client.py" dns 2001:db8::53 www.test
	case $out in
	198.18.*) ok 0 "$who: R43 a query to an outside IPv6 name server too ($out)" ;;
	*) ok 1 "$who: R43 a query to an outside IPv6 name server is answered by confine (got: $out, $err)" ;;
	esac
	nexpect "$who" "ENETUNREACH" "R43 UDP to any other port of an outside address: no route" \
		"${allow[@]}" -- "$TRYOP" connect-udp "$outside" 443

	# --- an address literal: decided as one (here: not allowed) ---
	nx "$who" "${allow[@]}" --report "$h/report.json" -- "$PY" "$E/client.py" literal "$outside" 443
	is "$out" "got b' [ConnectionResetError]'" \
		"$who: R43 a connection to an address no rule names: reset, nothing reaches it"
	is "$(jq -r '[.network_decisions[] | .protocol, .host, .decision, .outcome] | join(" ")' "$h/report.json" 2>&1)" \
		"tcp $outside ask denied" "$who: R43 decided as an address literal"
	nexpect "$who" "ECONNREFUSED" "the sandbox's own loopback stays its own (127.0.0.5 there has no server)" \
		"${allow[@]}" -- "$TRYOP" connect-tcp 127.0.0.5 "$P1"
done

kill_bg
done_testing
