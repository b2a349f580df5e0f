#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# R31 network by domain on the command line, without a sandbox: explain --net (text and JSON)
# names the deciding rule, its layer, file, line and column; check validates the "network"
# section (every error as FILE:LINE:COLUMN: POINTER) and refuses a workspace allow; --net-allow
# with a bad pattern and with --no-network is refused; plan shows the mode and the proxy.
source "$(dirname "$0")/../lib.sh"

mkdir -p "$T/ws/.confine" "$T/cfg/confine" "$T/home"
WS=$(cd "$T/ws" && pwd -P)
export HOME=$T/home XDG_CONFIG_HOME=$T/cfg
cd "$WS" || exit 1
USER_FILE=$(cd "$T/cfg/confine" && pwd -P)/rules.json

cat >"$USER_FILE" <<'J'
{
  "version": 1,
  "network": {
    "allow": ["github.com", "*.npmjs.org", "pypi.org:443", "[::1]:8080"],
    "deny": ["gist.github.com"]
  }
}
J
cat >"$WS/.confine/rules.json" <<'J'
{"version": 1, "rules": [],
 "network": {"deny": ["registry.npmjs.org"]}}
J

out=$("$CONFINE" explain --net github.com --net api.npmjs.org:80 --net registry.npmjs.org \
	--net gist.github.com --net pypi.org:80 --net '[::1]:8080' --net unknown.io 2>&1)
st=$?
is "$st" 0 "explain --net: exit 0"
want="github.com:443  allow  user       $USER_FILE:4:15  allow github.com
api.npmjs.org:80  allow  user       $USER_FILE:4:29  allow *.npmjs.org
registry.npmjs.org:443  deny   workspace  $WS/.confine/rules.json:2:23  deny registry.npmjs.org
gist.github.com:443  deny   user       $USER_FILE:5:14  deny gist.github.com
pypi.org:80  ask    fallback   (no rule matches: ask, enforced as deny)
[::1]:8080  allow  user       $USER_FILE:4:60  allow [::1]:8080
unknown.io:443  ask    fallback   (no rule matches: ask, enforced as deny)"
is "$out" "$want" "R31 explain --net: the deciding rule of each host, layer, file:line:column"

out=$("$CONFINE" explain --json --net github.com --net-allow registry.npmjs.org \
	--net registry.npmjs.org --net nope.io:22)
is "$(jq -r '.[] | [.network, (.port|tostring), .decision, .layer, .mode,
	(.rule.source // "-"), (.rule.list // "-"), (.rule.line // 0 | tostring)] | join(" ")' <<<"$out")" \
	"github.com 443 allow user domains $USER_FILE allow 4
registry.npmjs.org 443 allow session domains session allow 0
nope.io 22 ask fallback domains - - 0" "R31 explain --net --json; the session comes before the workspace's deny"

out=$("$CONFINE" explain --net 10.0.0.0/8 2>&1)
is "$?" 125 "explain --net takes one address, not a range"
out=$("$CONFINE" explain --net-allow 10.0.0.0/8 --net 10.1.2.3:8080 2>&1)
is "$out" "10.1.2.3:8080  allow  session    session rule 0  allow 10.0.0.0/8" \
	"explain --net: an address in an allowed range"
out=$("$CONFINE" explain --net '*.github.com' 2>&1)
is "$?" 125 "explain --net takes one host, not a pattern"
ok "$(grep -q "cannot explain: '\*.github.com': explain takes one name" <<<"$out"; echo $?)" \
	"and says why"

# Without an allow anywhere the network stays on: explain says the rules are not enforced.
mv "$USER_FILE" "$T/user.json"
out=$("$CONFINE" explain --net registry.npmjs.org)
is "$out" "registry.npmjs.org:443  deny   workspace  $WS/.confine/rules.json:2:23  deny registry.npmjs.org  [not enforced: the network is on]" \
	"no allow anywhere: explain says the deny is not enforced"
out=$("$CONFINE" plan --target linux -- true)
ok "$(grep -q '^network: on$' <<<"$out" && grep -q 'network rules not enforced: no rule allows a domain, so the network stays on and 1 deny rule has no effect' <<<"$out"; echo $?)" \
	"plan: network on, and a note that the deny has no effect"
mv "$T/user.json" "$USER_FILE"

# plan: the mode, the count, the proxy inside.
out=$("$CONFINE" plan --target linux --net-allow example.com -- true)
ok "$(grep -qx 'network: domains (5 allowed; own network namespace; names resolve inside to synthetic addresses and every TCP connection goes to the proxy; proxy http://127.0.0.1:3128 and socks5h://127.0.0.1:1080 inside, sockets in /dev/.confine-net)' <<<"$out"; echo $?)" \
	"R31 plan: network: domains (5 allowed), the proxy addresses inside"
out=$("$CONFINE" plan --target linux --json --net-allow example.com -- true)
is "$(jq -r '[.network_mode, (.network_allowed|tostring), .proxy.http, .proxy.socks5, (.network|tostring)] | join(" ")' <<<"$out")" \
	"domains 5 http://127.0.0.1:3128 socks5h://127.0.0.1:1080 false" "plan --json: network_mode, proxy"
out=$("$CONFINE" plan --target linux --no-network -- true)
ok "$(grep -q 'network rules not used: the network is off (6 rules)' <<<"$out"; echo $?)" \
	"--no-network: the file's allows are not used, and the plan says so"

# run: bad patterns and contradictions are refused before anything runs.
out=$("$CONFINE" run --net-allow 'http://x.io' -- true 2>&1)
is "$?" 125 "--net-allow with a URL: exit 125"
ok "$(grep -q "^confine: invalid network rule: 'http://x.io': " <<<"$out"; echo $?)" \
	"and the message names the rule"
out=$("$CONFINE" run --net-allow a.io,,b.io -- true 2>&1)
is "$?" 125 "--net-allow with an empty item: exit 125"
out=$("$CONFINE" run --no-network --net-allow a.io -- true 2>&1)
is "$?" 125 "--no-network with --net-allow: exit 125"
ok "$(grep -q "^confine: contradicting options: '--no-network'" <<<"$out"; echo $?)" "and says why"

# The landlock backend (SPEC 3.3): the proxy on the host's loopback, TCP only to it.
out=$("$CONFINE" plan --target linux --backend landlock --net-allow example.com -- true 2>&1)
ok "$(grep -qx 'network: domains (5 allowed; proxy on 127.0.0.1 at a port chosen when the run starts, HTTP and SOCKS5 alike, with credentials made for the run, in the proxy variables; TCP connect only to the proxy port (Landlock), each connect(2) made by confine; no DNS inside)' <<<"$out"; echo $?)" \
	"R31 plan --backend landlock: network: domains (5 allowed), the proxy on the host's loopback"
ok "$(grep -q '^  handled net: bind_tcp,connect_tcp (one rule: connect_tcp to the proxy.s port' <<<"$out" &&
	grep -q '^socket filter: TCP over AF_INET and AF_INET6 only' <<<"$out" &&
	grep -q '^  own network namespace (network by domain): ' <<<"$out"; echo $?)" \
	"and the Landlock rule, the socket filter and what is given up against bwrap"
out=$("$CONFINE" plan --target linux --backend landlock --json --net-allow example.com -- true 2>&1)
is "$(jq -r '[.network_mode, (.network_allowed|tostring), .proxy.address, .proxy.port, .landlock.handled_net, (.landlock.net_proxy|tostring)] | join(" ")' <<<"$out")" \
	"domains 5 127.0.0.1 per run bind_tcp,connect_tcp true" "plan --backend landlock --json: the mode, the proxy"
abi=$("$CONFINE" probe --json 2>/dev/null | jq -r '.backends[] | select(.backend == "landlock" and .available) | .landlock_abi' 2>/dev/null)
if [ -n "$abi" ] && [ "$abi" -ge 4 ]; then
	out=$("$CONFINE" run --backend landlock --net-allow a.io -- sh -c 'echo "$HTTP_PROXY $ALL_PROXY ${NO_PROXY-unset}"' 2>&1)
	ok "$(grep -Eqx 'http://confine:[0-9a-f]{32}@127\.0\.0\.1:[0-9]+ socks5h://confine:[0-9a-f]{32}@127\.0\.0\.1:[0-9]+ unset' <<<"$out"; echo $?)" \
		"R31 --net-allow on the landlock backend: the proxy variables carry the port and the run's credentials; no NO_PROXY, as the user file allows [::1]:8080, a loopback address only the proxy reaches (got: $out)"
	out=$(XDG_CONFIG_HOME=$T/none "$CONFINE" run --backend landlock --net-allow a.io -- sh -c 'echo "$NO_PROXY"' 2>&1)
	is "$out" "localhost,127.0.0.1" "without a loopback allow, NO_PROXY keeps the loopback direct on the landlock backend too"
elif [ -n "$abi" ]; then
	out=$("$CONFINE" run --backend landlock --net-allow a.io -- true 2>&1)
	ok "$(grep -q 'lacks LANDLOCK_ACCESS_NET_CONNECT_TCP (ABI 4)' <<<"$out"; echo $?)" \
		"--net-allow on a landlock ABI below 4: refused, naming the missing right"
else
	skip "the landlock backend is not available here"
fi
out=$("$CONFINE" run --escalate --net-allow a.io -- true 2>&1 </dev/null)
is "$?" 125 "--escalate with --net-allow: exit 125"
ok "$(grep -q "'--net-allow': an escalation runs outside the sandbox" <<<"$out"; echo $?)" \
	"and says why (got: $(head -n 1 <<<"$out"))"

# check: the network section, every error with its position; a workspace may not allow.
cat >"$WS/.confine/rules.json" <<'J'
{"version": 1,
 "network": {"allow": ["x.io"],
   "deny": ["*.*.io", 3, "a.io:0", "caf\u00e9.fr"],
   "block": []}}
J
out=$("$CONFINE" check "$WS/.confine/rules.json" 2>&1)
is "$?" 1 "check: errors in the network section: exit 1"
want="$WS/.confine/rules.json:2:24: /network/allow/0: \"x.io\": a workspace rule file may deny domains but not allow them (a repository cannot grant itself a way out); put the allow in the user rule file or pass --net-allow
$WS/.confine/rules.json:3:13: /network/deny/0: \"*.*.io\": '*' is only allowed as a leading '*.' (every name below a domain)
$WS/.confine/rules.json:3:23: /network/deny/1: a network rule is a string such as \"github.com\", \"*.npmjs.org\" or \"192.0.2.7:443\", not a number
$WS/.confine/rules.json:3:26: /network/deny/2: \"a.io:0\": the port after ':' must be a number 1-65535
$WS/.confine/rules.json:3:36: /network/deny/3: \"café.fr\": the name is not ASCII (write an internationalised name in its 'xn--' form)
$WS/.confine/rules.json:4:4: /network/block: unknown key \"block\" ('network' has \"allow\", \"deny\" and \"upstream\")
confine: check: 6 errors in 1 file"
is "$out" "$want" "R5 R31 check: every error of the network section, FILE:LINE:COLUMN and pointer"
out=$("$CONFINE" check "$USER_FILE")
is "$out" "$USER_FILE: ok (0 rules, 5 network rules)" "check: a valid user file with network rules"
out=$("$CONFINE" run -- true 2>&1)
is "$?" 125 "R6 run refuses a workspace file with a network allow"
ok "$(grep -q "(line 2, column 24): /network/allow/0" <<<"$out"; echo $?)" "naming the line and column"

# R43 network.upstream: a URL of the user file; never a workspace file's (it would see every
# request the command makes); checked like every rule.
printf '{"version": 1,\n "network": {"upstream": "http://proxy.example:3128"}}\n' >"$WS/.confine/rules.json"
out=$("$CONFINE" check "$WS/.confine/rules.json" 2>&1)
is "$out" "$WS/.confine/rules.json:2:26: /network/upstream: a workspace rule file may not name an upstream proxy (it would see every request the command makes); put it in the user rule file
confine: check: 1 error in 1 file" "R43 a workspace file may not name an upstream proxy"
printf '{"version": 1,\n "network": {"allow": ["a.io"], "upstream": "https://proxy.example"}}\n' >"$T/u.json"
out=$("$CONFINE" check "$T/u.json" 2>&1)
is "$out" "$T/u.json:2:45: /network/upstream: only an http:// upstream proxy is supported (confine speaks HTTP CONNECT to it)
confine: check: 1 error in 1 file" "R43 an upstream URL of another scheme: refused with its position"
printf '{"version": 1,\n "network": {"allow": ["a.io"], "upstream": 8080}}\n' >"$T/u.json"
out=$("$CONFINE" check "$T/u.json" 2>&1)
ok "$(grep -q "/network/upstream: 'upstream' is the URL of an HTTP proxy" <<<"$out"; echo $?)" \
	"R43 an upstream that is no string: refused"
echo '{"version": 1, "rules": []}' >"$WS/.confine/rules.json"
out=$(HTTPS_PROXY='socks5://p:1080' "$CONFINE" run --net-allow a.io -- true 2>&1)
is "$?" 125 "R43 a caller's HTTPS_PROXY confine cannot use refuses the run"
is "$(head -n 2 <<<"$out")" "confine: cannot use the upstream proxy: 'HTTPS_PROXY': only an http:// upstream proxy is supported (confine speaks HTTP CONNECT to it)
hint: set HTTPS_PROXY to http://[USER:PASSWORD@]HOST:PORT, or unset it for confine's proxy to connect directly" \
	"and says why, with the remedy"

done_testing
