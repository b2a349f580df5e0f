#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Integration (issue 22; `make integration`, not part of tests/run: it reaches the npm registry,
# and the suite talks to loopback only): the official MCP filesystem server and the official
# SDK's client, installed from registry.npmjs.org, the flow of mcp.t.  The SDK is installed
# under confine (--net-allow registry.npmjs.org); its client starts the server as an MCP host's
# configuration does, `confine run --net-allow registry.npmjs.org -- npx -y
# @modelcontextprotocol/server-filesystem HOME`, with the fake home as the server's allowed
# directory: initialize, tools/list, tools/call of a workspace file (read), of the SSH key
# (refused by the sandbox: EACCES in the tool's error), of ~/.bashrc for writing (refused).
# Host control: the same server without confine reads the key and writes ~/.bashrc.  Without
# the registry (or node, npm) it is a loud skip, never a pass: a banner, a SKIP line (a failure
# under CONFINE_TEST_MUST_WORK=1) and exit status 77.
# As root and as uid 65534; CONFINE_TEST_BACKEND=landlock for the other backend.
#
# npm's cache is in the workspace (npm_config_cache) until confine gives tool caches storage
# of its own (R39): ~/.npm is read-only under confine.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../enforce/enforce.sh"
enforce_begin

why=""
command -v node >/dev/null && command -v npm >/dev/null && command -v npx >/dev/null ||
	why="node, npm and npx are needed (apt install nodejs npm)"
if [ -z "$why" ] && ! curl -sS --max-time 20 -o /dev/null https://registry.npmjs.org/-/ping 2>"$E/ping"; then
	why="registry.npmjs.org is not reachable from here: $(head -c 200 "$E/ping")"
fi
if [ -n "$why" ]; then
	diag "================================================================"
	diag "SKIPPED, NOT PASSED: the MCP integration with the official server and SDK did not run"
	diag "$why"
	diag "================================================================"
	skip "MCP integration (official server and SDK): $why"
	(done_testing)
	exit 77 # never a pass: make reports it
fi

SERVER=@modelcontextprotocol/server-filesystem
NET=(--net-allow registry.npmjs.org)
# Where the registry's name resolves to a reserved or private address (a mirror or an
# intercepting proxy of this network), confine's proxy refuses it unless a rule names the
# address (SPEC 12, DNS rebinding): the address is named, and the log says so.
reserved() {
	case $1 in
	10.* | 127.* | 169.254.* | 192.168.* | 192.0.2.* | 198.51.100.* | 203.0.113.* | 0.*) return 0 ;;
	172.1[6-9].* | 172.2[0-9].* | 172.3[01].* | 100.6[4-9].* | 100.[7-9][0-9].* | 100.1[01][0-9].* | 100.12[0-7].*) return 0 ;;
	198.1[89].* | ::1 | f[cd]* | fe[89ab]*) return 0 ;;
	esac
	return 1
}
for a in $(getent ahosts registry.npmjs.org | awk '{print $1}' | sort -u); do
	if reserved "$a"; then
		diag "registry.npmjs.org resolves to the reserved address $a here: named with --net-allow"
		NET=(--net-allow "registry.npmjs.org,$a")
	fi
done
# A network whose proxy signs TLS with its own CA names it for node here (the runs get a
# controlled environment, which would drop it).
ca=()
[ -n "${NODE_EXTRA_CA_CERTS:-}" ] && ca=("NODE_EXTRA_CA_CERTS=$NODE_EXTRA_CA_CERTS")
field() {
	local l
	while IFS= read -r l; do
		[[ $l == "$1: "* ]] && printf '%s\n' "${l#"$1: "}"
	done <<<"$out"
}

cat >"$E/bin/mcp-sdk-client.mjs" <<'EOF'
// The official SDK's client: argv = SDK directory, workspace, key, command, args...
import { pathToFileURL } from "node:url";
const [sdk, ws, key, command, ...args] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(`${sdk}/node_modules/@modelcontextprotocol/sdk/dist/esm/${p}`).href);
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");
const transport = new StdioClientTransport({ command, args, cwd: ws, stderr: "inherit",
	env: { ...process.env } });
const client = new Client({ name: "confine-test", version: "1" });
await client.connect(transport);
console.log(`server: ${client.getServerVersion()?.name}`);
const names = (await client.listTools()).tools.map((t) => t.name);
console.log(`tools: ${names.includes("read_text_file") || names.includes("read_file") ? "read" : "none"} ${names.includes("write_file") ? "write" : "none"}`);
const read = names.includes("read_text_file") ? "read_text_file" : "read_file";
const text = (r) => `${r.isError ? "error" : "ok"} ${r.content.map((c) => c.text).join("").trim()}`;
console.log(`read-ws: ${text(await client.callTool({ name: read, arguments: { path: `${ws}/src.txt` } }))}`);
console.log(`read-key: ${text(await client.callTool({ name: read, arguments: { path: key } }))}`);
const home = key.replace(/\/\.ssh\/id_ed25519$/, "");
console.log(`write-home: ${text(await client.callTool({ name: "write_file", arguments: { path: `${home}/.bashrc`, content: "x" } }))}`);
await client.close();
console.log("closed: yes");
EOF
chmod a+r "$E/bin/mcp-sdk-client.mjs"

for who in $RUN_USERS; do
	h=$(home "$who")
	w=$(ws "$who")
	key=$h/.ssh/id_ed25519
	sdk=$w/out/sdk
	cache=(--env "npm_config_cache=$w/out/npm-cache")
	mkdir -p "$sdk"
	[ "$who" = nobody ] && chown -R 65534:65534 "$w/out"

	# The SDK, installed under confine with the registry as its only host.
	xenv=("${ca[@]}")
	CONFINE_TEST_TIMEOUT=300 cx "$who" "${NET[@]}" "${cache[@]}" -- npm install --no-audit --no-fund \
		--prefix "$sdk" @modelcontextprotocol/sdk
	is "$rc" 0 "$who: npm install @modelcontextprotocol/sdk runs under confine with --net-allow registry.npmjs.org"
	[ "$rc" = 0 ] || diag "$err"

	# Host control: the official server without confine reads the key.
	xenv=("${ca[@]}" "npm_config_cache=$w/out/npm-cache-host")
	CX_CWD=$w hx "$who" node "$E/bin/mcp-sdk-client.mjs" "$sdk" "$w" "$key" npx -y "$SERVER" "$h"
	is "$(field read-key)|$(field write-home)|$(cat "$h/.bashrc")" "ok ssh-secret|ok Successfully wrote to $h/.bashrc|x" \
		"$who: control: the official filesystem server reads the SSH key and writes ~/.bashrc without confine"
	echo bashrc >"$h/.bashrc"

	xenv=("${ca[@]}")
	CX_CWD=$w hx "$who" timeout 300 node "$E/bin/mcp-sdk-client.mjs" "$sdk" "$w" "$key" \
		"$FIX/confine" run "${NET[@]}" "${cache[@]}" -- npx -y "$SERVER" "$h"
	is "$rc" 0 "$who: the SDK client ran its session against npx -y $SERVER under confine"
	[ "$rc" = 0 ] || diag "$out" "$err"
	is "$(field server)|$(field tools)" "secure-filesystem-server|read write" \
		"$who: initialize and tools/list through the SDK"
	is "$(field read-ws)" "ok src" "$who: tools/call reads a workspace file"
	[[ $(field read-key) == "error "*EACCES* ]]
	ok $? "$who: tools/call of ~/.ssh/id_ed25519: an error result with EACCES from the sandbox ($(field read-key | head -c 120))"
	[[ $(field write-home) == "error "* ]] && [ "$(cat "$h/.bashrc")" = bashrc ]
	ok $? "$who: tools/call write_file of ~/.bashrc: an error result, the file unchanged ($(field write-home | head -c 120))"
	is "$(field closed)" yes "$who: the session closes cleanly"
done
done_testing
