#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A real MCP client and an MCP stdio server under confine (issue 22): mcp.py, written for the
# tests with the Python standard library, speaks the protocol's JSON-RPC 2.0 over stdio
# (initialize, notifications/initialized, ping, tools/list, tools/call, an unknown method).
# The client starts `confine run -- mcp.py server` as an MCP host starts a configured server;
# the server's tools read and write files: a workspace file is read and written, the user's
# SSH key is refused by the sandbox (the tool's error result says EACCES), a write outside the
# workspace too (EROFS; landlock: EACCES).  Host control: the same server without confine
# reads the key.  As root and as uid 65534, on both backends.  The same flow with the official
# filesystem server and SDK from the npm registry: tests/integration/mcp-sdk.sh.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin
command -v python3 >/dev/null || {
	skip "python3 is not installed (scripts/install-deps test installs it)"
	done_testing
}
cp "$TOP/tests/enforce/mcp.py" "$E/bin/"
chmod a+rx "$E/bin/mcp.py"
MCP=$E/bin/mcp.py

field() { # NAME: the value of the line "NAME: VALUE" of $out (NAME may hold any character)
	local l
	while IFS= read -r l; do
		[[ $l == "$1: "* ]] && printf '%s\n' "${l#"$1: "}"
	done <<<"$out"
}

for who in $RUN_USERS; do
	h=$(home "$who")
	w=$(ws "$who")
	key=$h/.ssh/id_ed25519

	# Host control: without confine the server reads the key.
	xenv=("MCP_STEPS=read $key")
	hx "$who" python3 "$MCP" client python3 "$MCP" server
	is "$(field "read $key")" "ok ssh-secret" "$who: control: the MCP server reads the SSH key without confine"

	xenv=("MCP_STEPS=read $w/src.txt
read $key
write $w/out/mcp.txt
write $h/.bashrc")
	hx "$who" python3 "$MCP" client "$FIX/confine" run -- python3 "$MCP" server
	is "$rc" 0 "$who: the MCP client ran its session against the server under confine"
	[ "$rc" = 0 ] || diag "$out" "$err"
	is "$(field protocol)|$(field server)|$(field ping)|$(field tools)" \
		"2025-06-18|confine-test-fs|ok|read_file write_file" \
		"$who: initialize, ping and tools/list through confine"
	is "$(field "read $w/src.txt")" "ok src" "$who: tools/call read_file of a workspace file"
	is "$(field "read $key")" "error EACCES" \
		"$who: tools/call read_file of ~/.ssh/id_ed25519: an error result, EACCES from the sandbox"
	is "$(field "write $w/out/mcp.txt")|$(cat "$w/out/mcp.txt" 2>/dev/null)" "ok written|mcp" \
		"$who: tools/call write_file in the workspace"
	is "$(field "write $h/.bashrc")|$(cat "$h/.bashrc")" "error $(bk EROFS EACCES)|bashrc" \
		"$who: tools/call write_file of ~/.bashrc: an error result, the file unchanged"
	is "$(field unknown)" "rpc-error -32601" "$who: an unknown method is a JSON-RPC error"
	is "$(field exit)" 0 "$who: the server (and confine) end when the client closes stdin"
	rm -f "$w/out/mcp.txt"
done
done_testing
