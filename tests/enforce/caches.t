#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Tool caches (R39, issue 22): under the defaults `npm ci` failed with EROFS in ~/.npm/_cacache
# and `npx -y PKG` could not run.  Now, with nothing but --net-allow for a registry on loopback
# (a static npm registry and a PEP 503 index served by this test, packages made with `npm pack`
# and by hand), npm ci, npx of an uncached package and pip in a venv work; the host's caches
# (~/.npm, ~/.cache, ~/.cargo) are byte-identical afterwards; a second run reuses what the first
# cached (offline, or without fetching again); the guards inside the caches hold
# (~/.cargo/credentials.toml, ~/.npmrc); confine's store is hidden, per workspace, listed by
# --print-plan, emptied by `confine cache clear` and kept within --cache-size.
#
# bwrap: an overlay of the host's cache and the store, so the host's warm cache is read (the
# registry never sees the tarball the host had).  landlock (no mount namespace): the tools are
# redirected into the store, so the first run is cold (asserted: the registry sees every
# tarball) and the host's cache is read-only.  As root and as uid 65534.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin

PY=/usr/bin/python3
if ! command -v npm >/dev/null || ! command -v node >/dev/null || ! "$PY" -c 'import venv' 2>/dev/null; then
	skip "npm, node and python3 with venv are needed (scripts/install-deps test)"
	done_testing
fi

# ---- The registry: npm packages and a Python index on 127.0.0.2 (loopback; NO_PROXY names
# 127.0.0.1 only, so the sandboxed tools go through confine's proxy as they would to a real
# registry). ----
R=$E/registry
mkdir -p "$R/reg" "$R/src"
cat >"$R/serve.py" <<'EOF'
import http.server, json, os, sys
root, host, portfile, log = sys.argv[1:5]
class H(http.server.BaseHTTPRequestHandler):
    def send(self, code, data=b"", ctype="application/octet-stream"):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "max-age=3600")
        self.end_headers()
        self.wfile.write(data)
    def do_GET(self):
        with open(log, "a") as f:
            f.write(self.path + "\n")
        p = self.path.split("?")[0].lstrip("/")
        port = self.server.server_address[1]
        if p.startswith("simple/"):
            name = p.split("/")[1]
            whl = [w for w in os.listdir(root) if w.endswith(".whl") and
                   w.split("-")[0].replace("_", "-") == name]
            links = "".join('<a href="http://%s:%d/files/%s">%s</a>\n' % (host, port, w, w)
                            for w in whl)
            return self.send(200 if whl else 404, links.encode(), "text/html")
        if p.startswith("files/") or "/-/" in p:
            f = os.path.join(root, os.path.basename(p))
            if os.path.isfile(f):
                return self.send(200, open(f, "rb").read())
            return self.send(404)
        f = os.path.join(root, p + ".json")
        if "/" in p or not os.path.isfile(f):
            return self.send(404)
        doc = json.load(open(f))
        for v in doc["versions"].values():
            v["dist"]["tarball"] = "http://%s:%d/%s/-/%s" % (host, port, doc["name"],
                                                            v["dist"]["tarball"])
        return self.send(200, json.dumps(doc).encode(), "application/json")
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer((host, 0), H)
with open(portfile + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
os.rename(portfile + ".tmp", portfile)
s.serve_forever()
EOF
mkpkg() { # name [bin]: an npm package made with npm pack, and its packument
	local d=$R/src/$1
	mkdir -p "$d"
	if [ -n "${2:-}" ]; then
		printf '#!/usr/bin/env node\nconsole.log("hello from %s");\n' "$1" >"$d/cli.js"
		chmod +x "$d/cli.js"
		printf '{"name":"%s","version":"1.0.0","bin":{"%s":"cli.js"}}\n' "$1" "$1" >"$d/package.json"
	else
		printf 'module.exports = "%s";\n' "$1" >"$d/index.js"
		printf '{"name":"%s","version":"1.0.0","main":"index.js"}\n' "$1" >"$d/package.json"
	fi
	(cd "$R/reg" && npm pack "$d" >/dev/null 2>&1)
	"$PY" - "$d/package.json" "$R/reg/$1-1.0.0.tgz" "$R/reg/$1.json" <<'EOF'
import base64, hashlib, json, os, sys
pkg, tgz, out = sys.argv[1:]
v = json.load(open(pkg))
data = open(tgz, "rb").read()
v["dist"] = {"tarball": os.path.basename(tgz), "shasum": hashlib.sha1(data).hexdigest(),
             "integrity": "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()}
json.dump({"name": v["name"], "dist-tags": {"latest": "1.0.0"}, "versions": {"1.0.0": v}},
          open(out, "w"))
EOF
}
mkpkg confine-left
mkpkg confine-other
mkpkg confine-hello bin
# A wheel, by hand: a zip with the package and its dist-info.
"$PY" - "$R/reg/confine_pyhello-1.0.0-py3-none-any.whl" <<'EOF'
import base64, hashlib, sys, zipfile
files = {"confine_pyhello/__init__.py": b'GREETING = "hello from pip"\n',
         "confine_pyhello-1.0.0.dist-info/METADATA":
             b"Metadata-Version: 2.1\nName: confine-pyhello\nVersion: 1.0.0\n",
         "confine_pyhello-1.0.0.dist-info/WHEEL":
             b"Wheel-Version: 1.0\nGenerator: confine-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
rec = ""
for n, d in files.items():
    h = base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()
    rec += "%s,sha256=%s,%d\n" % (n, h, len(d))
rec += "confine_pyhello-1.0.0.dist-info/RECORD,,\n"
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for n, d in files.items():
        z.writestr(n, d)
    z.writestr("confine_pyhello-1.0.0.dist-info/RECORD", rec)
EOF
: >"$R/log"
"$PY" "$R/serve.py" "$R/reg" 127.0.0.2 "$R/port" "$R/log" &
bg_pids+=($!)
for _ in $(seq 1 500); do [ -s "$R/port" ] && break; sleep 0.02; done
PORT=$(cat "$R/port" 2>/dev/null)
[ -n "$PORT" ] && curl -sf "http://127.0.0.2:$PORT/confine-left" >/dev/null
ok $? "the registry on 127.0.0.2 answers (port ${PORT:-none})"
REG=http://127.0.0.2:$PORT/
NET=(--net-allow "127.0.0.2:$PORT")
chmod -R a+rX "$R"
# The project: a lockfile made once, with a cache of its own (no home is touched).
P=$R/project
mkdir -p "$P"
printf '{"name":"app","version":"1.0.0","dependencies":{"confine-left":"1.0.0","confine-other":"1.0.0"}}\n' >"$P/package.json"
printf 'registry=%s\n' "$REG" >"$P/.npmrc"
(cd "$P" && env -i PATH=/usr/bin:/bin HOME="$R" npm_config_cache="$R/lockcache" \
	npm install --package-lock-only --no-audit --no-fund >/dev/null 2>&1)
[ -s "$P/package-lock.json" ]
ok $? "the project's lockfile is made"

tree_hash() { # dir: the names, kinds, modes, sizes and contents of a tree; ./confine, confine's
	# own cache that the host-side confine writes (scan records), is not the command's
	[ -e "$1" ] || { echo missing; return; }
	(cd "$1" && find . -path ./confine -prune -o -printf '%p %y %m %s %l\n' | LC_ALL=C sort &&
		find . -path ./confine -prune -o -type f -print0 | LC_ALL=C sort -z |
		xargs -0 -r sha256sum) | sha256sum | cut -c1-32
}
fetched() { grep -c "^$1\$" "$R/log"; }
state_of() { echo "$(home "$1")/.local/state/confine"; }
# The runs of this file are made in the project ($w), unless CX_CWD says otherwise.
cxp() { CX_CWD=${CX_CWD:-$w} cx "$@"; }
expectp() { CX_CWD=${CX_CWD:-$w} expect "$@"; }

for who in $RUN_USERS; do
	h=$(home "$who")
	# The project is a workspace of its own that holds nothing protected (the landlock backend
	# refuses new entries in a directory it splits around protected files: enforce.sh).
	w=$(ws "$who")/out/app
	rm -rf "$h/.npm" "$h/.cache" "$h/.cargo" "$h/.local/state" "$w"
	mkdir -p "$w"
	cp "$P/package.json" "$P/package-lock.json" "$P/.npmrc" "$w/"
	# The host's own caches: npm's warm with confine-left only; an XDG cache; a cargo home
	# with its credentials (a guard inside a cache) and a config.
	mkdir -p "$h/.cache/keep" "$h/.cache/d" "$h/.cargo"
	echo host-cache >"$h/.cache/keep/data"
	echo d-secret >"$h/.cache/d/secret"
	echo cargo-token >"$h/.cargo/credentials.toml"
	echo '# host config' >"$h/.cargo/config.toml"
	chmod 0600 "$h/.cargo/credentials.toml"
	[ "$who" = nobody ] && chown -R 65534:65534 "$h" "$w"
	hx "$who" npm cache add confine-left@1.0.0 --registry "$REG"
	is "$rc" 0 "$who: the host's ~/.npm holds confine-left (npm cache add, no confine)"
	h_npm=$(tree_hash "$h/.npm") h_cache=$(tree_hash "$h/.cache") h_cargo=$(tree_hash "$h/.cargo")

	# --- npm ci with only --net-allow ---
	: >"$R/log"
	cxp "$who" "${NET[@]}" -- npm ci --no-audit --no-fund
	is "$rc" 0 "$who: R39 npm ci with only --net-allow" || diag "$err"
	is "$(ls "$w/node_modules" 2>&1 | tr '\n' ' ')" "confine-left confine-other " "$who: ... both packages installed"
	is "$(fetched /confine-other/-/confine-other-1.0.0.tgz)" 1 "$who: ... the uncached package came from the registry"
	is "$(fetched /confine-left/-/confine-left-1.0.0.tgz)" "$(bk 0 1)" \
		"$who: ... the host's warm cache $(bk "was read (the registry never saw confine-left)" "is not read on landlock (redirected: the first run is cold)")"
	is "$(tree_hash "$h/.npm")" "$h_npm" "$who: R39 the host's ~/.npm is byte-identical after the run"
	# --- a second run reuses the store: no network at all ---
	rm -rf "$w/node_modules"
	cxp "$who" --no-network -- npm ci --offline --no-audit --no-fund
	is "$rc" 0 "$who: R39 a second run reuses the cache, offline and without a network" || diag "$err"
	[ -d "$w/node_modules/confine-other" ]
	ok $? "$who: ... confine-other installed from the store"

	# --- npx of an uncached package ---
	: >"$R/log"
	expectp "$who" "hello from confine-hello" "R39 npx -y of an uncached package with only --net-allow" \
		"${NET[@]}" -- npx -y --registry "$REG" confine-hello
	is "$(fetched /confine-hello/-/confine-hello-1.0.0.tgz)" 1 "$who: ... fetched once"
	expectp "$who" "hello from confine-hello" "R39 ... and again without a network, from the store" \
		--no-network -- npx -y --offline --registry "$REG" confine-hello
	is "$(tree_hash "$h/.npm")" "$h_npm" "$who: R39 ~/.npm still byte-identical after npx"

	# --- pip in a venv, its cache in the store ---
	: >"$R/log"
	cxp "$who" "${NET[@]}" -- sh -c "'$PY' -m venv v1 && v1/bin/pip install -q --disable-pip-version-check --trusted-host 127.0.0.2 --index-url ${REG}simple/ confine-pyhello && v1/bin/python -c 'import confine_pyhello as m; print(m.GREETING)'"
	is "$out" "hello from pip" "$who: R39 pip install in a venv with only --net-allow" || diag "$err"
	is "$(fetched /files/confine_pyhello-1.0.0-py3-none-any.whl)" 1 "$who: ... the wheel was downloaded once"
	cxp "$who" "${NET[@]}" -- sh -c "'$PY' -m venv v2 && v2/bin/pip install -q --disable-pip-version-check --trusted-host 127.0.0.2 --index-url ${REG}simple/ confine-pyhello && v2/bin/python -c 'import confine_pyhello as m; print(m.GREETING)'"
	is "$out" "hello from pip" "$who: R39 a second venv installs it too" || diag "$err"
	is "$(fetched /files/confine_pyhello-1.0.0-py3-none-any.whl)" 1 "$who: R39 ... from pip's cache in the store (the wheel was not downloaded again)"
	rm -rf "$w/v1" "$w/v2"

	# --- the host's caches, and the guards inside them ---
	is "$(tree_hash "$h/.cache")" "$h_cache" "$who: R39 the host's ~/.cache is byte-identical"
	expectp "$who" "OK host-cache" "R39 the host's XDG cache is read" -- "$TRYOP" cat "$h/.cache/keep/data"
	expectp "$who" "$(bk OK EACCES)" "R39 a write to ~/.cargo/config.toml $(bk "goes to the store" "is refused (landlock: CARGO_HOME is redirected)")" \
		-- "$TRYOP" write "$h/.cargo/config.toml"
	expectp "$who" "EACCES" "R39 ~/.cargo/credentials.toml stays hidden inside the cache" -- "$TRYOP" read "$h/.cargo/credentials.toml"
	expectp "$who" "EACCES" "R39 ~/.npmrc stays hidden" -- "$TRYOP" read "$h/.npmrc"
	is "$(tree_hash "$h/.cargo")" "$h_cargo" "$who: R39 the host's ~/.cargo is byte-identical"
	if bwrap_only "overlays of the host's caches"; then
		expectp "$who" "OK" "R39 the cargo config written inside is the store's" -- sh -c "'$TRYOP' cat '$h/.cargo/config.toml' | grep -q '^OK x' && echo OK"
		# A user's write allow inside a cache: the host's directory on top of the overlay.
		expectp "$who" "OK
OK" "an allow of ~/.cache/keep:write inside the overlaid ~/.cache: both writes succeed" \
			--allow "$h/.cache/keep:write" -- sh -c "'$TRYOP' write '$h/.cache/keep/new'; '$TRYOP' write '$h/.cache/other'"
		[ -f "$h/.cache/keep/new" ] && [ ! -e "$h/.cache/other" ]
		ok $? "$who: ... the allowed one reached the host, the other went to the store"
		rm -f "$h/.cache/keep/new"
		# R36 below an overlay: a host socket (bound in a network namespace of its own, so
		# that the sweep of /proc/net/unix misses it) and a FIFO with a host reader are
		# other inodes in the overlay, with no listener or pipe of the host's behind them.
		ep=$h/.cache/keep
		rm -f "$ep/s.sock" "$ep/f" "$ep/ready"
		unshare -n "$PY" -c "
import os, socket, time
s = socket.socket(socket.AF_UNIX); s.bind('$ep/s.sock'); s.listen(4)
os.mkfifo('$ep/f'); os.chmod('$ep/s.sock', 0o777); os.chmod('$ep/f', 0o666)
fd = os.open('$ep/f', os.O_RDONLY | os.O_NONBLOCK)
open('$ep/ready', 'w').close()
time.sleep(60)" &
		bg_pids+=($!)
		for _ in $(seq 1 500); do [ -e "$ep/ready" ] && break; sleep 0.02; done
		probe="import os, socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect('$ep/s.sock'); print('connected', end=' ')
except OSError as e:
    print(os.strerror(e.errno), end=' ')
try:
    os.open('$ep/f', os.O_WRONLY | os.O_NONBLOCK); print('fifo-open')
except OSError as e:
    print(os.strerror(e.errno))"
		expect_host "$who" "connected fifo-open" "a host socket and a FIFO with a reader below ~/.cache" "$PY" -c "$probe"
		expectp "$who" "Permission denied No such device or address" \
			"R36 with R39: through the cache's overlay neither reaches the host's" -- "$PY" -c "$probe"
		kill "${bg_pids[-1]}" 2>/dev/null
		rm -f "$ep/s.sock" "$ep/f" "$ep/ready"
		# What an earlier run did to the store cannot stop a later run's protections.
		cxp "$who" -- sh -c "rm -rf '$h/.cache/d' && ln -s /etc '$h/.cache/d' && echo gone"
		is "$out" "gone" "$who: a command replaces ~/.cache/d in the store by a symlink"
		expectp "$who" "ENOENT" "... a later run with --deny ~/.cache/d/secret runs, and the host's secret is not reachable there" \
			--deny "$h/.cache/d/secret" -- "$TRYOP" read "$h/.cache/d/secret"
		is "$(cat "$h/.cache/d/secret")" "d-secret" "$who: ... the host's ~/.cache/d is untouched"
	fi

	# --- two runs of the workspace at once: an upper layer each (the kernel leaves a shared
	# one undefined: ESTALE), both kept ---
	if bwrap_only "overlays (landlock redirects: one directory, ordinary file system rules)"; then
		go=$E/go-$who
		rm -f "$go"
		# (cx_bg starts in the fixture's workspace; this one must run in the project.)
		mapfile -t envv < <(_env "$who")
		pre=()
		[ "$who" = nobody ] && pre=(setpriv --reuid=65534 --regid=65534 --clear-groups)
		(cd "$w" && exec "${pre[@]}" env -i "${envv[@]}" "$FIX/confine" run -- sh -c \
			"mkdir -p '$h/.npm/same' && echo a >'$h/.npm/same/a' && '$TRYOP' waitfile '$go' 30 >/dev/null && echo done-a" \
			>"$E/bg.out" 2>"$E/bg.err" </dev/null) &
		BGPID=$!
		bg_pids+=("$BGPID")
		for _ in $(seq 1 500); do
			[ -e "$(state_of "$who")"/caches/*/o/npm/upper/same/a ] 2>/dev/null && break
			sleep 0.02
		done
		expectp "$who" "done-b" "R39 a second run while the first holds its overlay" \
			-- sh -c "mkdir -p '$h/.npm/same' && echo b >'$h/.npm/same/b' && echo done-b"
		CX_CWD=$w hx "$who" "$FIX/confine" cache clear
		is "$rc" 125 "$who: R39 the store is not cleared while a run uses it"
		grep -q "^hint: a command of that workspace is running under confine" <<<"$err"
		ok $? "$who: ... and the message says why"
		touch "$go"
		wait_pid "$BGPID" 30
		is "$WAITRC $(cat "$E/bg.out")" "0 done-a" "$who: ... and the first one ends well too"
		ls -d "$(state_of "$who")"/caches/*/o/npm/upper.1/same/b >/dev/null 2>&1 &&
			ls -d "$(state_of "$who")"/caches/*/o/npm/upper/same/a >/dev/null 2>&1
		ok $? "$who: ... the second wrote into an upper layer of its own (slot 1)"
	fi

	# --- confine's store: hidden, per workspace, in the plan, bounded, cleared ---
	st=$(state_of "$who")
	store=$(ls -d "$st"/caches/*/ 2>/dev/null | head -1)
	store=${store%/}
	[ -n "$store" ] && [ -d "$store/o" ] && [ -d "$store/r" ]
	ok $? "$who: the store exists below ~/.local/state/confine/caches"
	# The store's meta file is rewritten (a new file renamed into place) only when more than
	# its use time moved, or that by a minute: two runs in a row leave the second's alone.
	cxp "$who" -- true
	i1=$(stat -c %i "$store/meta" 2>/dev/null)
	cxp "$who" -- true
	i2=$(stat -c %i "$store/meta" 2>/dev/null)
	[ -n "$i1" ] && [ "$i1" = "$i2" ]
	ok $? "$who: R39 a run right after another does not write the store's meta file again ($i1, $i2)"
	expectp "$who" "EACCES" "R30 confine's state directory cannot be listed inside" -- "$TRYOP" readdir "$st"
	expectp "$who" "$(bk ENOENT EACCES)" "R30 the store's overlay data is $(bk "not there (detached before the command)" "unreadable (landlock: the name stays visible)")" \
		-- "$TRYOP" readdir "$store/o"
	expectp "$who" "$(bk EROFS EACCES)" "R30 nothing can be planted beside the stores" -- "$TRYOP" write "$st/caches/planted"
	[ ! -e "$st/caches/planted" ]
	ok $? "$who: ... and nothing was"
	cxp "$who" --print-plan -- true
	grep -q "^tool caches (R39; store $st/caches/" <<<"$out" &&
		grep -qE "^  npm +$h/.npm  $(bk overlay redirect):" <<<"$out"
	ok $? "$who: --print-plan lists the tool caches and the store" || diag "$(grep -A14 '^tool caches' <<<"$out")"
	hx "$who" "$FIX/confine" cache list
	grep -qF "$w" <<<"$out"
	ok $? "$who: confine cache list names the workspace" || diag "$out"
	# Another workspace has a store of its own: it does not see this one's packages.
	w2=$(ws "$who")/out/app2
	mkdir -p "$w2"
	cp "$P/package.json" "$P/package-lock.json" "$P/.npmrc" "$w2/"
	[ "$who" = nobody ] && chown -R 65534:65534 "$w2"
	CX_CWD=$w2 cxp "$who" --no-network -- npm ci --offline --no-audit --no-fund
	[ "$rc" != 0 ]
	ok $? "$who: R39 another workspace cannot reuse this one's store (offline npm ci fails there)"
	store2=$(ls -d "$st"/caches/*/ | grep -vF "$store/" | head -1)
	store2=${store2%/}
	[ -n "$store2" ] && [ "$store2" != "$store" ]
	ok $? "$who: ... it has a store of its own"
	expectp "$who" "$(bk ENOENT EACCES)" "R39 a workspace cannot read another's store" -- "$TRYOP" readdir "$store2/r"
	# The bound: a store over --cache-size is emptied after the run, and said.
	cxp "$who" --cache-size 1K -- true
	grep -qF "confine: tool caches over their bound" <<<"$err"
	ok $? "$who: R39 a store over --cache-size is trimmed after the run, and said" || diag "$err"
	rm -rf "$w/node_modules"
	cxp "$who" --no-network -- npm ci --offline --no-audit --no-fund
	[ "$rc" != 0 ]
	ok $? "$who: ... the trimmed store no longer serves confine-other"
	# Filled again, then cleared by the command for it.
	cxp "$who" "${NET[@]}" -- npm ci --no-audit --no-fund
	is "$rc" 0 "$who: npm ci fills the store again"
	# The kernel makes an overlay's WORKDIR/work 0000 at each mount: after the run every
	# directory of the store is the user's to remove again (rm -rf of ~/.local/state works).
	hx "$who" find "$(state_of "$who")" -type d ! -perm -u=rwx
	is "$rc/$out" "0/" "$who: R39 after the run, every directory of the store is rwx for its owner (removable)"
	CX_CWD=$w hx "$who" "$FIX/confine" cache clear
	is "$rc" 0 "$who: R39 confine cache clear"
	rm -rf "$w/node_modules"
	cxp "$who" --no-network -- npm ci --offline --no-audit --no-fund
	[ "$rc" != 0 ]
	ok $? "$who: ... and the next offline run finds nothing cached"
	is "$(tree_hash "$h/.npm") $(tree_hash "$h/.cache") $(tree_hash "$h/.cargo")" "$h_npm $h_cache $h_cargo" \
		"$who: R39 after everything, the host's caches are byte-identical"
	rm -rf "$w/node_modules" "$w2"
done
kill_bg
done_testing
