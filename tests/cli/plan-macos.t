#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# confine plan --target macos (SPEC 1, R25, R26) on this Linux host: a Mac described by host
# facts or defaults that the plan names as assumed, the session rules given here, the Seatbelt
# profile as text and JSON with what is and is not enforced on macOS; nothing of the Linux
# host's own rule files is read.
source "$(dirname "$0")/../lib.sh"

export HOME=$T/home XDG_CONFIG_HOME=$T/cfg USER=ana
mkdir -p "$HOME" "$T/cfg/confine"
# A Linux user rule file that must not leak into the Mac's profile.
echo '{"version": 1, "rules": [{"path": "/srv/linux-only", "action": "deny"}]}' \
  >"$T/cfg/confine/rules.json"
cd "$T" || exit 1

out=$("$CONFINE" plan --target macos -- git status 2>&1); st=$?
is "$st" 0 "R25 plan --target macos runs on Linux: exit 0"
ok "$(grep -q '^target: macos$' <<<"$out"; echo $?)" "the target is macos"
ok "$(grep -q '^home: /Users/ana$' <<<"$out"; echo $?)" "the default home is /Users/\$USER"
ok "$(grep -q '^note: the home directory /Users/ana is assumed' <<<"$out"; echo $?)" \
  "the plan says the home was assumed"
ok "$(grep -q '^note: the workspace /Users/ana/project is assumed' <<<"$out"; echo $?)" \
  "the plan says the workspace was assumed"
ok "$(grep -q '^command: "git" "status"$' <<<"$out"; echo $?)" "the command"
ok "$(grep -q '^not enforced on macOS:$' <<<"$out"; echo $?)" "the plan lists what is not enforced"
ok "$(grep -q 'never been run on a Mac' <<<"$out"; echo $?)" "the plan says it was never run on a Mac"
ok "$(grep -q '^(deny default)$' <<<"$out"; echo $?)" "R25 the profile denies by default"
ok "$(grep -q '(literal "/")' <<<"$out"; echo $?)" "R25 (literal \"/\") is in the profile"
ok "$(grep -q '^(allow mach\*)$' <<<"$out"; echo $?)" "R25 (allow mach*) is in the profile"
ok "$(grep -q '^(allow network\*)$' <<<"$out"; echo $?)" "network on: (allow network*)"
ok "$(grep -q '(subpath "/private/tmp")' <<<"$out"; echo $?)" "/tmp is written as /private/tmp"
ok "$(grep -q 'linux-only' <<<"$out"; [ $? -ne 0 ]; echo $?)" "the Linux user rule file is not read"
# R39: no overlay on a Mac: every tool is redirected into confine's store for the workspace,
# which the profile makes writable.
store='/Users/ana/.local/state/confine/caches/p-%2FUsers%2Fana%2Fproject/r'
ok "$(grep -qF "note: tool caches (R39): redirected into confine's store for this workspace, $store, writable" <<<"$out"; echo $?)" \
  "R39 the plan redirects the tool caches into a store of the workspace"
ok "$(grep -qF "npm_config_cache=$store/npm" <<<"$out" && grep -qF "CARGO_HOME=$store/cargo" <<<"$out"; echo $?)" \
  "R39 ... by their variables (npm, cargo)"
ok "$(grep -qF "(allow file-write* (subpath \"$store\"))" <<<"$out"; echo $?)" \
  "R39 ... and the profile lets the command write there"

# Facts from a file, session rules from the command line and a file, --no-network, JSON.
cat >"$T/facts" <<'F'
home /Users/bo
workspace /Users/bo/src/app
temp /var/folders/q1/zz9/T
cache /var/folders/q1/zz9/C
F
echo '{"version": 1, "rules": [{"path": "/Users/bo/src/app/vendor", "access": "write", "action": "deny"}]}' \
  >"$T/session.json"
json=$("$CONFINE" plan --target macos --host-facts "$T/facts" --session-rules "$T/session.json" \
  --allow '~/.gitconfig:read' --no-network --json -- make test 2>&1); st=$?
is "$st" 0 "plan --json with facts and session rules: exit 0"
is "$(jq -r '.target' <<<"$json")" "macos" "JSON: the target"
is "$(jq -r '.workspace' <<<"$json")" "/Users/bo/src/app" "JSON: the workspace from the facts"
is "$(jq -r '.network' <<<"$json")" "off" "JSON: the network is off"
is "$(jq -r '.guarantees.read_protection' <<<"$json")" "enforced: Seatbelt, deny by default" \
  "JSON: read protection"
is "$(jq -r '.argv | join(" ")' <<<"$json")" "make test" "JSON: the command"
ok "$(jq -e '.not_enforced | length > 3' <<<"$json" >/dev/null; echo $?)" "JSON: the not-enforced list"
ok "$(jq -r '.tested' <<<"$json" | grep -q 'never been run on a Mac'; echo $?)" "JSON: where it was tested"
profile=$(jq -r '.profile' <<<"$json")
ok "$(grep -q '(allow network\*)' <<<"$profile"; [ $? -ne 0 ]; echo $?)" "R25 network off: no (allow network*)"
ok "$(grep -q '(deny file-write\* (subpath "/Users/bo/src/app/vendor")' <<<"$profile"; echo $?)" \
  "the session rule file's deny is in the profile"
ok "$(grep -q '(allow file-read\* file-test-existence file-map-executable (subpath "/Users/bo/.gitconfig"))' <<<"$profile"; echo $?)" \
  "the --allow read is in the profile"
ok "$(grep -q '(subpath "/private/var/folders/q1/zz9/T")' <<<"$profile"; echo $?)" \
  "the temp root from the facts, canonical"
if command -v guile >/dev/null; then
  printf '%s\n' "$profile" >"$T/p.sb"
  g=$(guile --no-auto-compile -s "$TOP/tests/golden/sbpl-read.scm" "$T/p.sb" 2>&1); st=$?
  is "$st" 0 "guile reads the profile printed by plan --json"
  ok "$(grep -q '^END [1-9]' <<<"$g"; echo $?)" "guile counted its forms"
else
  skip "GNU Guile is not installed (apt-get install guile-3.0)"
fi

# --home alone.
out=$("$CONFINE" plan --target macos --home /Users/cy --workspace /Users/cy/w 2>&1); st=$?
is "$st" 0 "--home and --workspace: exit 0"
ok "$(grep -q '^home: /Users/cy$' <<<"$out"; echo $?)" "--home is used"
ok "$(grep -q 'is assumed; pass' <<<"$out"; [ $? -ne 0 ]; echo $?)" "nothing assumed when both are given"

# R26: what a profile cannot hold is refused with the reason, never escaped.
out=$("$CONFINE" plan --target macos --home /Users/cy --workspace '/Users/cy/a"b' 2>&1); st=$?
is "$st" 125 "R26 a workspace with a quote: exit 125"
ok "$(grep -q 'contains a double quote' <<<"$out"; echo $?)" "R26 the message says why"
out=$("$CONFINE" plan --target macos --home /Users/cy --workspace /Users/cy/w \
  --deny '/Users/cy/w/x\y' 2>&1); st=$?
is "$st" 125 "R26 a rule with a backslash: exit 125"
ok "$(grep -q 'contains a backslash' <<<"$out"; echo $?)" "R26 the message names the backslash"
out=$("$CONFINE" plan --target macos --home /Users/cy --workspace "/Users/cy/w$(printf '\001')x" 2>&1); st=$?
is "$st" 125 "R26 a control character: exit 125"
ok "$(grep -q 'control character' <<<"$out" && grep -q 'x01' <<<"$out"; echo $?)" \
  "R26 the control character is named and shown escaped"
out=$("$CONFINE" plan --target macos --home /Users/cy --workspace relative/dir 2>&1); st=$?
is "$st" 125 "R26 a relative workspace: exit 125"
ok "$(grep -q 'not an absolute path' <<<"$out"; echo $?)" "R26 the message says it is not absolute"
out=$("$CONFINE" plan --target macos --home /Users/cy --workspace /Users/cy 2>&1); st=$?
is "$st" 125 "R1 the home as the workspace: exit 125"
printf 'bogus line\n' >"$T/badfacts"
out=$("$CONFINE" plan --target macos --host-facts "$T/badfacts" 2>&1); st=$?
is "$st" 125 "bad facts: exit 125"
ok "$(grep -q "in $T/badfacts:1:" <<<"$out"; echo $?)" "bad facts: the line is named"
out=$("$CONFINE" plan --target linux --home /Users/x 2>&1); st=$?
is "$st" 125 "--home with --target linux: exit 125"

# SPEC 12: with --net-allow the profile lets the command reach only the proxy's localhost port.
out=$("$CONFINE" plan --target macos --net-allow github.com -- true 2>&1); st=$?
is "$st" 0 "R31 plan --target macos with --net-allow: exit 0"
ok "$(grep -q '^network: only through the proxy at localhost:3128$' <<<"$out"; echo $?)" \
	"R31 the plan says outbound goes only to the proxy"
ok "$(grep -q '(allow network\*)' <<<"$out"; [ $? -ne 0 ]; echo $?)" \
	"R31 the profile has no (allow network*)"
done_testing
