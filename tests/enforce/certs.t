#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Secrets by content (R40, issue 22): after `python3 -m venv v` with a certifi-like CA bundle,
# the guard **/*.pem hid v/.../cacert.pem and every HTTPS request in the venv failed with
# SSLError(PermissionError(13)).  Now a *.pem/*.crt/*.cer holding certificates only is public:
# the venv's python loads the bundle and completes a real TLS handshake with a server on
# loopback; a private key (PEM, DER, in a .crt, after a certificate) stays hidden; `explain`
# says which it was; --print-plan lists the public files; a key written into a public file
# during a run is reported and hidden from the next run.  As root and as uid 65534, on both
# backends.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin

PY=/usr/bin/python3
if ! "$PY" -c 'import ssl, venv' 2>/dev/null || ! command -v openssl >/dev/null; then
	skip "python3 with ssl and venv, and openssl, are needed (scripts/install-deps test)"
	done_testing
fi

# A CA, a server certificate for 127.0.0.1 signed by it, and a TLS server on loopback.
pki=$E/pki
mkdir -p "$pki"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
	-subj /CN=confine-test-ca -keyout "$pki/ca.key" -out "$pki/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=127.0.0.1 \
	-keyout "$pki/srv.key" -out "$pki/srv.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >"$pki/ext"
openssl x509 -req -in "$pki/srv.csr" -CA "$pki/ca.pem" -CAkey "$pki/ca.key" -CAcreateserial \
	-days 2 -extfile "$pki/ext" -out "$pki/srv.pem" 2>/dev/null
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
	-subj /CN=other-ca -keyout "$pki/other.key" -out "$pki/other.pem" 2>/dev/null
chmod -R a+rX "$pki"
cat >"$pki/serve.py" <<'EOF'
import http.server, ssl, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"hello-tls")
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[1], sys.argv[2])
s.socket = ctx.wrap_socket(s.socket, server_side=True)
with open(sys.argv[3] + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
import os
os.rename(sys.argv[3] + ".tmp", sys.argv[3])
s.serve_forever()
EOF
"$PY" "$pki/serve.py" "$pki/srv.pem" "$pki/srv.key" "$pki/port" &
bg_pids+=($!)
for _ in $(seq 1 500); do [ -s "$pki/port" ] && break; sleep 0.02; done
port=$(cat "$pki/port" 2>/dev/null)
[ -n "$port" ]
ok $? "the TLS server on loopback is listening (port ${port:-none})"

fetch="import ssl, sys, urllib.request
ctx = ssl.create_default_context(cafile=sys.argv[1])
try:
    print(urllib.request.urlopen('https://127.0.0.1:$port/', context=ctx, timeout=10).read().decode())
except Exception as e:
    print(type(e).__name__, getattr(e, 'reason', e))"

for who in $RUN_USERS; do
	h=$(home "$who")
	w=$(ws "$who")
	# A real venv, and a CA bundle where certifi keeps it, with certifi's comments.
	hx "$who" "$PY" -m venv --without-pip "$w/v"
	is "$rc" 0 "$who: python3 -m venv v (host)"
	cd_=$w/v/lib/python3/site-packages/certifi
	mkdir -p "$cd_"
	bundle=$cd_/cacert.pem
	{
		printf '\n# Issuer: CN=confine-test-ca O=Test\n# Label: "confine test"\n'
		cat "$pki/ca.pem"
		printf '\n# Issuer: CN=other-ca\n'
		cat "$pki/other.pem"
	} >"$bundle"
	mkdir -p "$w/tls"
	cp "$pki/srv.key" "$w/tls/server.pem"                   # a key named .pem
	cat "$pki/srv.pem" "$pki/srv.key" >"$w/tls/fullchain.pem" # a certificate, then its key
	cp "$pki/ca.pem" "$w/tls/ca.crt"
	openssl x509 -in "$pki/ca.pem" -outform DER -out "$w/tls/ca.cer"
	openssl pkey -in "$pki/srv.key" -outform DER -out "$w/tls/key.crt" 2>/dev/null
	printf 'not pem\n' >"$w/tls/notes.pem"
	[ "$who" = nobody ] && chown -R 65534:65534 "$w/v" "$w/tls"

	# Host controls: every file is readable without confine.
	for f in "$bundle" "$w/tls/server.pem" "$w/tls/key.crt"; do
		expect_host "$who" "OK" "read ${f#"$w"/}" "$TRYOP" read "$f"
	done
	expect_host "$who" "hello-tls" "the venv's python completes HTTPS against the bundle" \
		"$w/v/bin/python" -c "$fetch" "$bundle"

	# Inside: certificates public, keys hidden.
	expect "$who" "OK" "R40 the venv's certificate-only cacert.pem is readable" -- "$TRYOP" read "$bundle"
	expect "$who" "hello-tls" "R40 HTTPS in the venv works: python's ssl loads the bundle and verifies the server" \
		-- "$w/v/bin/python" -c "$fetch" "$bundle"
	expect "$who" "OK" "R40 a certificate named .crt is readable" -- "$TRYOP" read "$w/tls/ca.crt"
	expect "$who" "OK" "R40 a DER certificate named .cer is readable" -- "$TRYOP" read "$w/tls/ca.cer"
	expect "$who" "EACCES" "R40 a private key named .pem stays hidden" -- "$TRYOP" read "$w/tls/server.pem"
	expect "$who" "EACCES" "R40 a certificate followed by its key stays hidden" -- "$TRYOP" read "$w/tls/fullchain.pem"
	expect "$who" "EACCES" "R40 a DER private key named .crt is hidden (a new guard)" -- "$TRYOP" read "$w/tls/key.crt"
	expect "$who" "EACCES" "R40 a .pem that cannot be classified stays hidden" -- "$TRYOP" read "$w/tls/notes.pem"
	expect "$who" "PermissionError [Errno 13] Permission denied" \
		"R40 and python's ssl cannot load the key" \
		-- "$w/v/bin/python" -c "import ssl
try:
    ssl.create_default_context().load_cert_chain('$w/tls/fullchain.pem')
except Exception as e:
    print(type(e).__name__, e)"

	# explain says which it was; the plan lists the public files.
	CX_CWD=$w hx "$who" "$FIX/confine" explain --access read "$bundle" "$w/tls/server.pem" \
		"$w/tls/notes.pem" "$w/tls/key.crt"
	grep -qF "$bundle  read   allow  fallback" <<<"$out" &&
		grep -qF "content: certificates only: public, the guard on its name does not apply (R40)" <<<"$out" &&
		grep -qF "$w/tls/server.pem  read   deny   guard" <<<"$out" &&
		grep -qF "content: a private key: a secret, the guard on its name applies (R40)" <<<"$out" &&
		grep -qF "content: not classified (text outside the PEM blocks): treated as a secret" <<<"$out" &&
		grep -qF "content: a DER private key or key store: a secret" <<<"$out"
	ok $? "$who: explain says what each file holds and which rule decides" || diag "$out"
	CX_CWD=$w hx "$who" "$FIX/confine" explain --json --access read "$bundle"
	jq -e '.[0].decision == "allow" and .[0].content.class == "certificates"' >/dev/null <<<"$out"
	ok $? "$who: explain --json carries the class"
	# A name the workspace chose is shown escaped (R38): a zero-width space stays visible.
	cp "$pki/ca.pem" "$w/tls/zw"$'\u200b'".crt"
	[ "$who" = nobody ] && chown 65534:65534 "$w/tls/zw"*
	cx "$who" --print-plan -- true
	sed -n '/^public by content/,/^[a-z]/p' <<<"$out" | grep -qxF "  $bundle"
	ok $? "$who: --print-plan lists the bundle as public by content"
	sed -n '/^public by content/,/^[a-z]/p' <<<"$out" | grep -qxF "  $w/tls/zw\u{200B}.crt"
	ok $? "$who: ... a name with a zero-width space shown escaped (R38)" || diag "$out"

	# A key written into a public file during the run: reported, hidden from the next run.
	cx "$who" -- sh -c "cat '$pki/srv.key' >>'$bundle'"
	grep -qF "confine: warning: file matching a glob rule created during the run: '$bundle'" <<<"$err"
	ok $? "$who: a key appended to the public bundle during the run is reported" || diag "$err"
	expect "$who" "EACCES" "R40 ... and the next run hides it" -- "$TRYOP" read "$bundle"
	rm -rf "$w/v" "$w/tls"
done
kill_bg
done_testing
