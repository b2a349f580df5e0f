#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README and doc/ stay true to the code: every `confine` command line of the README's
# examples and the MCP configuration parses (run as --print-plan: nothing runs, no network),
# every doc/ file they point to exists, the defaults table says the network is on (the host's
# loopback included), they cite no requirement id of a specification this repository does not
# hold, and install tells how confine gets on PATH.
source "$(dirname "$0")/../lib.sh"
R=$TOP/README.md
mkdir -p "$T/ws" "$T/home"
WS=$(cd "$T/ws" && pwd -P)
export HOME=$T/home XDG_CONFIG_HOME=$T/cfg
cd "$WS" || exit 1
# What the secrets examples read before a plan: the public key named, the caller's variable.
mkdir -p "$HOME/.ssh"
ssh-keygen -q -t ed25519 -N "" -f "$HOME/.ssh/id_ed25519" >/dev/null || exit 1
export GH_TOKEN=readme-test-value
# An agent of the test's own (ssh-agent -s returns once its socket listens), ended with the test.
eval "$(ssh-agent -s -a "$T/agent.sock")" >/dev/null || exit 1
trap 'if [ "$BASHPID" = "$_tap_main" ]; then kill "$SSH_AGENT_PID" 2>/dev/null; rm -rf "$T"; fi' EXIT

bad=$(grep -nE 'SPEC|§|(^|[^A-Za-z0-9_])R[0-9]+[a-z]?([^A-Za-z0-9_]|$)' "$R" "$TOP"/doc/*.md)
is "$bad" "" "README.md and doc/*.md cite no SPEC section or requirement id"
missing=""
for f in $(grep -oE '(doc|bench)/[A-Za-z0-9_.-]+\.(md|[1-9])' "$R" "$TOP"/doc/*.md | cut -d: -f2 | sort -u); do
	[ -f "$TOP/$f" ] || missing="$missing $f"
done
is "$missing" "" "every doc/ file the README and doc/ name exists"
first=$(head -n 60 "$R")
grep -q "make install" <<<"$first" && grep -q "not on \`PATH\`" <<<"$first"
ok $? "the first screen says confine is not on PATH after make demo, and how it gets there"
grep -qE '^\| \*\*network\*\* \| \*\*on\*\*.*loopback.*--no-network.*--net-allow' "$R"
ok $? "the defaults table has the network: on, the host's loopback, --no-network, --net-allow"

# The command lines of the examples: each `confine run ...` with --print-plan, each `confine
# explain ...` as it is.
n=0 failed=""
while IFS= read -r line; do
	line=${line%%#*}
	eval "set -- $line" 2>/dev/null || { failed="$failed|$line (does not parse as shell)"; continue; }
	[ $# -gt 0 ] && [ "$1" = confine ] || continue
	shift
	case $1 in
	run) shift; set -- run --print-plan "$@" ;;
	explain) ;;
	*) continue ;;
	esac
	n=$((n + 1))
	"$CONFINE" "$@" >/dev/null 2>"$T/err" || failed="$failed|$line: $(head -n 1 "$T/err")"
done < <(awk '/^```sh/{c=1; next} /^```/{c=0} c' "$R")
[ "$n" -ge 9 ]
ok $? "the README's examples have the run and explain lines of every recipe ($n)"
is "$failed" "" "every one of them parses (run --print-plan, explain as written)"

# The MCP configuration: JSON whose args are a confine run (its example workspace is this one).
json=$(awk '/^```json/{c=1; next} /^```/{c=0} c' "$R" | sed "s|/home/ana/project|$WS|g")
args=$(jq -r '.mcpServers[].args | @sh' <<<"$json" 2>/dev/null)
[ -n "$args" ]
ok $? "the MCP client configuration is JSON with the server's args"
eval "set -- $args"
is "${1:-}" run "the MCP server is started by confine run"
[ $# -gt 0 ] && shift
"$CONFINE" run --print-plan "$@" >/dev/null 2>"$T/err"
is "$?|$(head -n 1 "$T/err")" "0|" "its confine arguments parse"

done_testing
