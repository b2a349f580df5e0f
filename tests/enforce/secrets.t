#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# R45 credential placeholders, with real clients and loopback servers only, as root and as uid
# 65534, both backends:
#  - an HTTP and an HTTPS API on 127.0.0.5 (api.test; its certificate from a CA of this test,
#    which the caller's SSL_CERT_FILE names: "the system's roots" of this run) that answer only
#    a request with the right bearer token; a second pair on 127.0.0.6 (other.test) that logs
#    every Authorization it gets;
#  - the command holds a placeholder in $TOKEN; curl, python's urllib and node reach the API
#    with it over HTTP and HTTPS (TLS inspected with the run's CA, which the command's trust
#    variables carry), the value coming from the caller's variable or from a file the sandbox
#    cannot read;
#  - the placeholder sent to the other host is refused (403) as it is, as Basic credentials
#    (base64), percent-encoded and in a body, over HTTP and over inspected HTTPS, and the other
#    server never sees a request; over HTTPS that is not inspected it sees the placeholder (a
#    worthless string), never the value;
#  - a search of the sandbox's view (its environment, /proc/*/environ and cmdline, the memory of
#    every process it can read, the files of the test's tree, /tmp, /dev/shm, /run) finds the
#    placeholder (the search works) and never the real value; neither do the report, the audit
#    log, --print-plan nor confine's messages.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin
if [ "$LL" = 1 ] && [ "$LL_ABI" -lt 4 ]; then
	skip "Landlock ABI $LL_ABI has no TCP rules: network by domain is refused there"
	done_testing
fi
PY=/usr/bin/python3
for tool in curl openssl jq "$PY"; do
	if ! command -v "$tool" >/dev/null; then
		skip "$tool is not installed (scripts/install-deps test installs it)"
		done_testing
	fi
done
# The test build: the proxy resolves api.test and other.test from a hosts file, never DNS.
cp "$FIX/confine-testresolve" "$FIX/confine"

# A real value that appears nowhere else: 24 random bytes as hex.
VALUE="tok_$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
H1=${VALUE:0:20}
H2=${VALUE:20}

# --- servers ------------------------------------------------------------------------------
mkdir -p "$E/srv"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$E/srv/ca.key" -out "$E/srv/ca.pem" -days 2 \
	-subj /CN=confine-test-ca -addext basicConstraints=critical,CA:TRUE >/dev/null 2>&1
for h in api:127.0.0.5 other:127.0.0.6; do
	n=${h%%:*}
	ip=${h#*:}
	openssl req -newkey rsa:2048 -nodes -keyout "$E/srv/$n.key" -out "$E/srv/$n.csr" \
		-subj "/CN=$n.test" >/dev/null 2>&1
	printf 'subjectAltName=DNS:%s.test,IP:%s\n' "$n" "$ip" >"$E/srv/$n.ext"
	openssl x509 -req -in "$E/srv/$n.csr" -CA "$E/srv/ca.pem" -CAkey "$E/srv/ca.key" \
		-CAcreateserial -out "$E/srv/$n.pem" -days 2 -extfile "$E/srv/$n.ext" >/dev/null 2>&1
done
chmod a+r "$E/srv"/*.pem
# ADDRESS NAME PORTFILE LOG [CERT KEY]: answers 200 "api-ok NAME" only to "Bearer
# $API_TOKEN" (unset: to anything), 401 otherwise; logs each request's Authorization, or only
# whether it was right when there is a token.  The token is in its environment, which no
# sandbox can read (another pid namespace; Landlock's ptrace rules): nothing of the test may
# show the sandbox the value.
cat >"$E/srv/api.py" <<'EOF'
import http.server, os, ssl, sys
addr, name, portfile, log = sys.argv[1:5]
token = os.environ.pop("API_TOKEN", "-")
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        got = self.headers.get("Authorization") or ""
        ok = token == "-" or got == "Bearer " + token
        with open(log, "a") as f:
            f.write("%s %s\n" % (self.command, got if token == "-" else ok))
        body = ("api-ok %s\n" % name).encode() if ok else b"unauthorized\n"
        self.send_response(200 if ok else 401)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(n)
        self.do_GET()
srv = http.server.ThreadingHTTPServer((addr, 0), H)
if len(sys.argv) > 5:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[5], sys.argv[6])
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
with open(portfile + ".tmp", "w") as f:
    f.write("%d\n" % srv.server_address[1])
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
EOF
start_api() { # name address token tls
	local n=$1 a=$2 t=$3 tls=$4 i
	local -a cert=()
	[ "$tls" = 1 ] && cert=("$E/srv/${n%-*}.pem" "$E/srv/${n%-*}.key")
	: >"$E/srv/$n.log"
	local -a tok=()
	[ "$t" != - ] && tok=(API_TOKEN="$t")
	env "${tok[@]}" "$PY" "$E/srv/api.py" "$a" "$n" "$E/srv/$n.port" "$E/srv/$n.log" "${cert[@]}" &
	bg_pids+=($!)
	for i in $(seq 200); do
		[ -s "$E/srv/$n.port" ] && break
		sleep 0.05
	done
}
start_api api 127.0.0.5 "$VALUE" 0
start_api api-tls 127.0.0.5 "$VALUE" 1
start_api other 127.0.0.6 - 0
start_api other-tls 127.0.0.6 - 1
PA=$(cat "$E/srv/api.port")
PS=$(cat "$E/srv/api-tls.port")
PO=$(cat "$E/srv/other.port")
POS=$(cat "$E/srv/other-tls.port")
chmod -R a+rX "$E/srv"
chmod 0666 "$E/srv"/*.log

# The search of the sandbox's view (see the top); the value in two halves, so that the search
# itself never holds it whole.
cat >"$E/bin/search-view" <<'EOF'
import os, sys
h1, h2, ph = (a.encode() for a in sys.argv[1:4])
found, ph_regions, regions, files = [], 0, 0, 0
def check(data, where):
    i = data.find(h1)
    while i >= 0:
        if data[i + len(h1):i + len(h1) + len(h2)] == h2:
            found.append(where)
            return
        i = data.find(h1, i + 1)
check(b"\0".join(b"%s=%s" % kv for kv in os.environb.items()), "environment")
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    for f in ("environ", "cmdline"):
        try:
            check(open("/proc/%s/%s" % (pid, f), "rb").read(), "/proc/%s/%s" % (pid, f))
        except OSError:
            pass
    try:
        maps = open("/proc/%s/maps" % pid).read().splitlines()
        mem = open("/proc/%s/mem" % pid, "rb", 0)
    except OSError:
        continue
    for line in maps:
        a, b = (int(x, 16) for x in line.split()[0].split("-"))
        if "r" not in line.split()[1] or b - a > 1 << 28:
            continue
        try:
            mem.seek(a)
            d = mem.read(b - a)
        except (OSError, ValueError, OverflowError):
            continue
        regions += 1
        check(d, "memory of pid %s" % pid)
        if ph in d:
            ph_regions += 1
for top in sys.argv[4:]:
    for root, dirs, names in os.walk(top):
        for n in names:
            p = os.path.join(root, n)
            try:
                if os.path.islink(p) or not os.path.isfile(p) or os.path.getsize(p) > 1 << 24:
                    continue
                check(open(p, "rb").read(), p)
                files += 1
            except OSError:
                pass
if found:
    print("FOUND " + " ".join(found))
else:
    print("clean, placeholder seen=%s, memory read=%s, files read=%s" % (
        ph_regions > 0, regions > 0, files > 0))
EOF
chmod a+rx "$E/bin/search-view"

allow=(--net-allow "api.test:$PA,api.test:$PS,other.test:$PO,other.test:$POS,127.0.0.5,127.0.0.6")
# px WHO confine-run-args...: cx with the hosts file, the test's CA as the caller's roots, and
# the caller's MYTOKEN, which reaches confine's environment through a descriptor: never in an
# argument vector, which every process of the host may read in /proc.
px() {
	local who=$1
	shift
	local -a envv
	mapfile -t envv < <(_env "$who")
	out=$(cd "$(ws "$who")" &&
		_as "$who" timeout --foreground -k 5 "${CONFINE_TEST_TIMEOUT:-60}" \
			env -i "${envv[@]}" "CONFINE_TEST_HOSTS=$E/hosts" "SSL_CERT_FILE=${ROOTS:-$E/srv/ca.pem}" \
			sh -c 'read -r MYTOKEN <&3 && export MYTOKEN && exec 3<&- && exec "$0" run "$@"' \
			"$FIX/confine" "$@" 3<<<"$VALUE" 2>"$E/err")
	rc=$?
	err=$(cat "$E/err")
	printf '%s\n' "$err" >>"$E/stderr.all" # confine's messages, searched at the end
}
printf '127.0.0.5 api.test\n127.0.0.6 other.test\n' >"$E/hosts"
chmod 0644 "$E/hosts"
sec=(--secret "TOKEN=MYTOKEN@api.test")
leaks=("$E/stderr.all")
: >"$E/stderr.all"

for who in $RUN_USERS; do
	w=$(ws "$who")
	rep=$E/$who/report.json
	audit=$E/$who/audit.log

	# --- host controls ---
	expect_host "$who" "api-ok api" "control: the HTTP API answers the real token" \
		curl -sS --noproxy '*' -H "Authorization: Bearer $VALUE" "http://127.0.0.5:$PA/"
	expect_host "$who" "unauthorized" "control: ... and nothing else" \
		curl -sS --noproxy '*' -H "Authorization: Bearer nope" "http://127.0.0.5:$PA/"
	expect_host "$who" "api-ok api-tls" "control: the HTTPS API, verified with the test's CA" \
		curl -sS --noproxy '*' --cacert "$E/srv/ca.pem" -H "Authorization: Bearer $VALUE" \
		"https://127.0.0.5:$PS/"

	: >"$E/srv/api.log"
	: >"$E/srv/api-tls.log"

	# --- the placeholder reaches the API ---
	px "$who" "${allow[@]}" "${sec[@]}" -- sh -c 'printf "%s" "$TOKEN" | cut -c1-20'
	is "$out" "confine-placeholder-" "$who: \$TOKEN holds a placeholder"
	px "$who" "${allow[@]}" "${sec[@]}" -- sh -c \
		"curl -sS -H \"Authorization: Bearer \$TOKEN\" http://api.test:$PA/"
	is "$(_got)" "api-ok api" "$who: HTTP: the API gets the real value in the placeholder's place"
	px "$who" "${allow[@]}" "${sec[@]}" --report "$rep" --audit "$audit" -- sh -c \
		"curl -sS -H \"Authorization: Bearer \$TOKEN\" https://api.test:$PS/"
	is "$(_got)" "api-ok api-tls" "$who: HTTPS: curl through the inspected tunnel (the run's CA)"
	leaks+=("$rep" "$audit")
	is "$(jq -r '[.secrets.events[] | "\(.name) \(.host) \(.outcome) \(.where)"] | join(",")' "$rep")" \
		"TOKEN api.test substituted header Authorization" "$who: the report names the secret, the host, where"
	is "$(tail -1 "$audit" | jq -r '.secrets.placeholders[0] | "\(.name) \(.hosts | join(" "))"')" \
		"TOKEN api.test" "$who: the audit line names the secret and its hosts"
	px "$who" "${allow[@]}" "${sec[@]}" -- sh -c \
		"curl -sS --http2 -o /dev/null -w '%{http_version}' -H \"Authorization: Bearer \$TOKEN\" https://api.test:$PS/"
	is "$(_got)" "1" "$who: HTTPS: a client that asks for HTTP/2 gets HTTP/1 (the API's own 1.0 through the 1.1 confine offers)"
	px "$who" "${allow[@]}" "${sec[@]}" -- sh -c \
		'awk "/BEGIN CERT/{c=\"\"} {c=c \$0 \"\n\"} END{printf \"%s\", c}" "$SSL_CERT_FILE" | openssl x509 -noout -text | grep -A2 "Name Constraints" | tr -s " \n" " "'
	is "$(_got)" " X509v3 Name Constraints: critical Permitted: DNS:api.test " \
		"$who: the run's CA permits only the inspected host"
	px "$who" "${allow[@]}" "${sec[@]}" -- "$PY" -c "
import os, urllib.request
r = urllib.request.Request('https://api.test:$PS/', headers={'Authorization': 'Bearer ' + os.environ['TOKEN']})
print(urllib.request.urlopen(r).read().decode().strip())"
	is "$(_got)" "api-ok api-tls" "$who: HTTPS: python's urllib (SSL_CERT_FILE)"
	px "$who" "${allow[@]}" "${sec[@]}" -- sh -c \
		'for v in SSL_CERT_FILE NODE_EXTRA_CA_CERTS REQUESTS_CA_BUNDLE CURL_CA_BUNDLE GIT_SSL_CAINFO; do eval "f=\$$v"; echo "$f"; done | sort -u | wc -l; grep -c "BEGIN CERTIFICATE" "$SSL_CERT_FILE"'
	is "$(_got | head -1)" 1 "$who: the five trust variables name one bundle"
	[ "$(_got | tail -1)" -ge 2 ] 2>/dev/null
	ok $? "$who: ... holding the caller's roots and the run's CA"
	# The file exists only for this run: the sandbox's view is searched below.
	printf '%s\n' "$VALUE" >"$E/$who/token.txt"
	chmod 0600 "$E/$who/token.txt"
	[ "$who" = nobody ] && chown 65534:65534 "$E/$who/token.txt"
	px "$who" "${allow[@]}" --secret "TOKEN=file:$E/$who/token.txt@api.test" -- sh -c \
		"curl -sS -H \"Authorization: Bearer \$TOKEN\" https://api.test:$PS/; $TRYOP read $E/$who/token.txt"
	is "$(_got | tr '\n' ' ')" "api-ok api-tls EACCES" \
		"$who: a value from file:PATH, the file unreadable inside"
	expect_host "$who" OK "control: the token file is readable on the host" "$TRYOP" read "$E/$who/token.txt"
	rm -f "$E/$who/token.txt"

	# --- a client that ignores the proxy variables (R43's transparent routing, bwrap) ---
	if bwrap_only "the landlock backend has no resolver inside: every client uses the proxy"; then
		px "$who" "${allow[@]}" "${sec[@]}" -- sh -c \
			"curl -sS --noproxy '*' -H \"Authorization: Bearer \$TOKEN\" https://api.test:$PS/; curl -sS --noproxy '*' -H \"Authorization: Bearer \$TOKEN\" http://api.test:$PA/"
		is "$(_got | tr '\n' ' ')" "api-ok api-tls api-ok api" \
			"$who: without the proxy variables too (routed to the proxy by name), HTTPS and HTTP"
		if command -v node >/dev/null; then
			px "$who" "${allow[@]}" "${sec[@]}" -- node -e \
				"fetch('https://api.test:$PS/', {headers: {Authorization: 'Bearer ' + process.env.TOKEN}}).then(r => r.text()).then(t => process.stdout.write(t), e => console.log('ERR', (e.cause && e.cause.code) || e.message))"
			is "$(_got)" "api-ok api-tls" "$who: node's fetch (NODE_EXTRA_CA_CERTS)"
		fi
		: >"$E/srv/other.log"
		px "$who" "${allow[@]}" "${sec[@]}" -- sh -c \
			"curl -s -o /dev/null -w '%{http_code}' --noproxy '*' -H \"Authorization: Bearer \$TOKEN\" http://other.test:$PO/"
		is "$out:$(cat "$E/srv/other.log")" "403:" \
			"$who: ... and the placeholder to another host refused there too"
	fi

	# --- the server verified against the caller's roots; the command must trust the run's CA
	: >"$E/srv/api-tls.log"
	ROOTS=/etc/ssl/certs/ca-certificates.crt px "$who" "${allow[@]}" "${sec[@]}" -- sh -c \
		"curl -s -w ' %{http_code}' -H \"Authorization: Bearer \$TOKEN\" https://api.test:$PS/ | tr '\n' ' '"
	case $out in
	*"the server's certificate did not verify"*" 502") ok 0 "$who: a server the caller's roots do not vouch for: 502, naming the verification" ;;
	*) ok 1 "$who: a server the caller's roots do not vouch for: 502 (got: $out)" ;;
	esac
	is "$(cat "$E/srv/api-tls.log")" "" "$who: ... and it got no request"
	printf '%s' "$err" | grep -q "hint: confine verifies the server with your roots"
	ok $? "$who: ... and confine says so after the run, with the remedy"
	px "$who" "${allow[@]}" "${sec[@]}" -- sh -c \
		"curl -s --cacert /etc/ssl/certs/ca-certificates.crt https://api.test:$PS/; echo \$?"
	is "$out" 60 "$who: a client that trusts only the system's roots refuses the run's CA (curl: 60)"
	printf '%s' "$err" | grep -q "the command did not accept the run's TLS certificate"
	ok $? "$who: ... and confine says what happened"

	# --- the placeholder sent elsewhere ---
	: >"$E/srv/other.log"
	: >"$E/srv/other-tls.log"
	px "$who" "${allow[@]}" "${sec[@]}" --tls-inspect other.test --report "$rep" -- sh -c "
		curl -s -o /dev/null -w '%{http_code} ' -H \"Authorization: Bearer \$TOKEN\" http://other.test:$PO/
		curl -s -o /dev/null -w '%{http_code} ' -u \"u:\$TOKEN\" http://other.test:$PO/
		curl -s -o /dev/null -w '%{http_code} ' -d \"k=\$TOKEN\" http://other.test:$PO/
		q=\$(printf %s \"\$TOKEN\" | od -An -tx1 | tr -d ' \n' | sed 's/../%&/g')
		curl -s -o /dev/null -w '%{http_code} ' \"http://other.test:$PO/?q=\$q\"
		curl -s -o /dev/null -w '%{http_code} ' -H \"Authorization: Bearer \$TOKEN\" https://other.test:$POS/
		curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer none' https://other.test:$POS/"
	is "$out" "403 403 403 403 403 200" \
		"$who: to another host refused: plain, Basic (base64), body, percent, inspected HTTPS"
	leaks+=("$rep")
	is "$(cat "$E/srv/other.log" "$E/srv/other-tls.log")" "GET Bearer none" \
		"$who: the other server got none of those requests (only the one without the placeholder)"
	is "$(sort -u "$E/srv/api.log" "$E/srv/api-tls.log" | tr '\n' ' ')" "GET True " \
		"$who: the API only ever got the right token"
	is "$(jq -r '[.secrets.events[] | select(.outcome == "refused") | .encoding] | join(",")' "$rep")" \
		"plain,base64,plain,percent,plain" "$who: each refusal in the report, with its encoding"
	printf '%s' "$err" | grep -q "confine: secret sent elsewhere: 'other.test:$PO'"
	ok $? "$who: confine says so after the run"
	: >"$E/srv/other-tls.log"
	px "$who" "${allow[@]}" "${sec[@]}" -- sh -c \
		"curl -s -H \"Authorization: Bearer \$TOKEN\" https://other.test:$POS/ -o /dev/null; cat $E/srv/other-tls.log | cut -c1-31"
	is "$out" "GET Bearer confine-placeholder-" \
		"$who: HTTPS not inspected: the other host sees the placeholder, a worthless string"
	grep -q "$VALUE" "$E/srv/other-tls.log"
	is $? 1 "$who: ... and never the value"

	# --- nothing in the sandbox's view holds the value ---
	px "$who" "${allow[@]}" "${sec[@]}" -- sh -c \
		"exec $PY $E/bin/search-view '$H1' '$H2' \"\$TOKEN\" '$E' /tmp /dev/shm /run"
	is "$(_got)" "clean, placeholder seen=True, memory read=True, files read=True" \
		"$who: the search of the sandbox's view finds the placeholder and never the value"
	xenv=(MYTOKEN="$VALUE")
	hx "$who" "$PY" "$E/bin/search-view" "$H1" "$H2" "confine-placeholder-" /nonexistent
	is "$(printf '%s' "$out" | cut -c1-5)" "FOUND" "$who: control: outside, the search finds the value (the caller's environment)"
	px "$who" "${allow[@]}" "${sec[@]}" --print-plan -- true
	printf '%s\n%s' "$out" "$err" >"$E/$who/plan.txt"
	leaks+=("$E/$who/plan.txt")
	printf '%s' "$out" | grep -q "^secrets: TOKEN for api.test"
	ok $? "$who: --print-plan names the secret and its hosts"
done
# The records and messages of every run above: the value nowhere.
n=0
for f in "${leaks[@]}"; do
	grep -q -- "$VALUE" "$f" && n=$((n + 1))
done
is "$n" 0 "no report, audit line, printed plan or message of confine holds the value (${#leaks[@]} files)"
done_testing
