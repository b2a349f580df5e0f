#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Network by domain as a new user meets it, with real clients and a real server on the host's
# loopback, as root and as uid 65534, on both backends:
#  - an allowed name that resolves to a loopback or private address is refused, and the hint is
#    the exact flag that allows it (--net-allow ADDRESS, or its range);
#  - address ranges in --net-allow and in a rule file (127.0.0.0/8) let it through, and only
#    it (another port of a range with a port is still refused);
#  - --net-allow 127.0.0.1:PORT works with curl and with git clone: NO_PROXY never sends an
#    allowed request around the proxy; a user's own --env NO_PROXY and --unset-env NO_PROXY
#    are what the command gets;
#  - on the landlock backend git's first try without the proxy credentials (a 407, then the
#    same request with them) is not reported as a denial; a request that never carries the
#    credentials still is.
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
for tool in curl git jq "$PY"; do
	if [ -z "$tool" ] || ! command -v "$tool" >/dev/null; then
		skip "${tool:-python3} is not installed (scripts/install-deps test installs it)"
		done_testing
	fi
done
enforce_users
# The test build of confine: the same program with the hosts-file resolver.
cp "$FIX/confine-testresolve" "$FIX/confine"

# --- a server on the host's 127.0.0.1: a file and a dumb git repository ---
mkdir -p "$E/www" "$E/src"
echo hello-lo >"$E/www/hello.txt"
(
	cd "$E/src" && git init -q && echo lo-readme >README &&
		git -c user.name=t -c user.email=t@t add README &&
		git -c user.name=t -c user.email=t@t commit -qm init &&
		git clone -q --bare "$E/src" "$E/www/repo.git" &&
		git -C "$E/www/repo.git" update-server-info
) || { ok 1 "a git repository for the dumb-HTTP clone"; done_testing; }
chmod -R a+rX "$E/www"
"$PY" -c '
import functools, http.server, os, sys
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a): pass
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=sys.argv[2]))
with open(sys.argv[1] + ".tmp", "w") as f: f.write("%d\n" % srv.server_address[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
srv.serve_forever()
' "$T/lo.port" "$E/www" &
bg_pids+=($!)
for _ in $(seq 500); do
	[ -s "$T/lo.port" ] && break
	sleep 0.02
done
P=$(cat "$T/lo.port" 2>/dev/null)
if [ -z "$P" ]; then
	ok 1 "the test server started"
	done_testing
fi
# A port nothing listens on (the server's port + 1 is taken only by chance: checked).
Q=$((P + 1))
[ "$("$FIX/tryop" connect-tcp 127.0.0.1 "$Q")" = ECONNREFUSED ] || Q=$((P + 2))
diag "HTTP and git on 127.0.0.1:$P"

for who in $RUN_USERS; do
	w=$(ws "$who")
	h=$(home "$who")
	echo "127.0.0.1 lo.test" >"$E/$who.hosts"
	echo "10.1.2.3 corp.test" >>"$E/$who.hosts"
	chmod 0644 "$E/$who.hosts"
	hosts=("CONFINE_TEST_HOSTS=$E/$who.hosts")

	expect_host "$who" hello-lo "curl to the server on 127.0.0.1:$P" \
		curl -sS --noproxy '*' "http://127.0.0.1:$P/hello.txt"

	# --- an allowed name that resolves to a reserved address: the exact remedy ---
	xenv=("${hosts[@]}")
	cx "$who" --net-allow lo.test,corp.test -- sh -c \
		"curl -sS http://lo.test:$P/hello.txt >/dev/null; curl -sS http://corp.test:$P/ >/dev/null; echo done"
	is "$out" done "$who: the requests ran"
	grep -qx "hint: if the command must reach it, allow the address too: --net-allow 127.0.0.1, or its whole range: --net-allow 127.0.0.0/8 (a name alone never opens a loopback, private or link-local address)" <<<"$err"
	ok $? "$who: the refusal of lo.test (127.0.0.1) names --net-allow 127.0.0.1 and 127.0.0.0/8 (stderr: $err)"
	grep -qx "hint: if the command must reach it, allow the address too: --net-allow 10.1.2.3, or its whole range: --net-allow 10.0.0.0/8 (a name alone never opens a loopback, private or link-local address)" <<<"$err"
	ok $? "$who: the refusal of corp.test (10.1.2.3) names --net-allow 10.1.2.3 and 10.0.0.0/8"
	! grep -q "allow a host with --net-allow HOST" <<<"$err"
	ok $? "$who: not the generic hint of a host that is allowed already"

	# --- ranges: the remedy works as written, on the command line and in a rule file ---
	xenv=("${hosts[@]}")
	expect "$who" hello-lo "a range in --net-allow (127.0.0.0/8) lets the allowed name reach its address" \
		--net-allow lo.test,127.0.0.0/8 -- curl -sS "http://lo.test:$P/hello.txt"
	xenv=("${hosts[@]}")
	expect "$who" hello-lo "a range with a port (127.0.0.0/24:PORT)" \
		--net-allow "lo.test,127.0.0.0/24:$P" -- curl -sS "http://lo.test:$P/hello.txt"
	xenv=("${hosts[@]}")
	cx "$who" --net-allow "lo.test,127.0.0.0/24:$Q" -- curl -sS -o /dev/null -w '%{http_code}' "http://lo.test:$P/hello.txt"
	is "$out" 403 "$who: a range with another port does not open this one (403)"
	mkdir -p "$h/.config/confine"
	printf '{"version": 1, "network": {"allow": ["lo.test", "127.0.0.0/8"]}}\n' >"$h/.config/confine/rules.json"
	[ "$who" = nobody ] && chown -R 65534:65534 "$h/.config"
	xenv=("${hosts[@]}")
	expect "$who" hello-lo "a range in the user rule file" -- curl -sS "http://lo.test:$P/hello.txt"
	rm -f "$h/.config/confine/rules.json"

	# --- the host's loopback, allowed by address: curl and git through the proxy ---
	expect "$who" "hello-lo unset" "R31 --net-allow 127.0.0.1:PORT: curl reaches the host's server, and NO_PROXY is not set" \
		--net-allow "127.0.0.1:$P" -- sh -c "echo \$(curl -sS http://127.0.0.1:$P/hello.txt) \${NO_PROXY-unset}"
	rm -rf "$w/out/clone"
	expect "$who" lo-readme "R31 --net-allow 127.0.0.1:PORT: git clone over http:// from the host's server" \
		--net-allow "127.0.0.1:$P" -- sh -c "GIT_TERMINAL_PROMPT=0 git clone -q http://127.0.0.1:$P/repo.git out/clone && cat out/clone/README"
	rm -rf "$w/out/clone"
	if [ "$LL" = 1 ]; then
		# (NO_PROXY emptied inside as well, so that this holds whatever confine sets.)
		expect "$who" lo-readme "git clone through the landlock backend's proxy" \
			--net-allow "127.0.0.1:$P" --report "$h/r.json" -- sh -c \
			"NO_PROXY= no_proxy= GIT_TERMINAL_PROMPT=0 git clone -q http://127.0.0.1:$P/repo.git out/clone && cat out/clone/README"
		! grep -q "network request denied" <<<"$err"
		ok $? "$who: R31 git's first try without the proxy credentials (407, then with them) is not reported as a denial (stderr: $err)"
		is "$(jq -r '[.network_decisions[] | .outcome] | unique | join(" ")' "$h/r.json")" "auth_challenge connected" \
			"$who: the report records it as auth_challenge, the transfer as connected"
		rm -rf "$w/out/clone"
		cx "$who" --net-allow "127.0.0.1:$P" -- sh -c "curl -sS --proxy http://127.0.0.1:\${HTTP_PROXY##*:} -o /dev/null -w '%{http_code}' http://127.0.0.1:$P/hello.txt"
		is "$out" 407 "$who: a request that never carries the credentials gets 407"
		grep -q "network request denied: '127.0.0.1:$P': the request did not carry this run's proxy credentials" <<<"$err"
		ok $? "$who: ... and is reported"
	else
		is "$err" "" "$who: git clone through the proxy: nothing on stderr"
	fi
	cx "$who" --net-allow "127.0.0.1:$P" -- curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$Q/"
	is "$out" 403 "$who: another port of the host's loopback is refused by the proxy (403)"
	grep -q "hint: allow it with --net-allow 127.0.0.1 " <<<"$err"
	ok $? "$who: ... with the remedy"

	# --- the user's own NO_PROXY: respected, and it never opens a way around the proxy ---
	expect "$who" "127.0.0.1 127.0.0.1 7" "an explicit --env NO_PROXY=127.0.0.1 is what the command gets (both cases); curl then connects directly, which the sandbox refuses (curl 7)" \
		--net-allow "127.0.0.1:$P" --env NO_PROXY=127.0.0.1 -- sh -c \
		"curl -sS -o /dev/null http://127.0.0.1:$P/hello.txt 2>/dev/null; echo \$NO_PROXY \$no_proxy \$?"
	xenv=("NO_PROXY=localhost" "no_proxy=localhost")
	expect "$who" "unset unset" "--unset-env NO_PROXY: neither is set, the caller's included" \
		--net-allow a.test --unset-env NO_PROXY -- sh -c 'echo ${NO_PROXY-unset} ${no_proxy-unset}'
	expect "$who" "localhost,127.0.0.1" "without a loopback allow, NO_PROXY keeps the sandbox's own loopback direct" \
		--net-allow a.test -- sh -c 'echo $NO_PROXY'
done
done_testing
