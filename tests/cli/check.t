#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# confine check (SPEC 1, 2.1, R5): every error of every file as FILE:LINE:COLUMN: POINTER:
# message, exit 0 when all files are valid, 1 when any error, 125 on usage errors; the two
# standard files by default, a missing one is fine and says so.
source "$(dirname "$0")/../lib.sh"

mkdir -p "$T/ws/.confine" "$T/cfg/confine" "$T/home"
WS=$(cd "$T/ws" && pwd -P)
export HOME=$T/home XDG_CONFIG_HOME=$T/cfg
cd "$WS" || exit 1

# No rule files at all: valid, and it says the files are missing.
out=$("$CONFINE" check 2>&1); st=$?
is "$st" 0 "no rule files: exit 0"
ok "$(grep -q "^$WS/.confine/rules.json: not found (no rules)$" <<<"$out"; echo $?)" \
  "no rule files: the missing workspace file is named"
ok "$(grep -q "cfg/confine/rules.json: not found (no rules)$" <<<"$out"; echo $?)" \
  "no rule files: the missing user file is named (XDG_CONFIG_HOME)"

# Valid files.
cat >"$WS/.confine/rules.json" <<'J'
{
  "version": 1,
  "rules": [
    { "path": "dist",          "access": "write", "action": "allow" },
    { "path": "~/notes",       "access": "write", "action": "ask" },
    { "path": "private-data",                     "action": "deny" }
  ]
}
J
echo '{"version": 1, "rules": [{"path": "~/notes", "action": "allow"}]}' >"$T/cfg/confine/rules.json"
out=$("$CONFINE" check 2>&1); st=$?
is "$st" 0 "valid files: exit 0"
ok "$(grep -q "^$WS/.confine/rules.json: ok (3 rules)$" <<<"$out"; echo $?)" "valid workspace file: ok (3 rules)"
ok "$(grep -q "confine/rules.json: ok (1 rule)$" <<<"$out"; echo $?)" "valid user file: ok (1 rule)"

# R5: every error, with position and pointer, in document order.
cat >"$WS/.confine/rules.json" <<'J'
{
  "version": 2,
  "rules": [
    { "path": "dist", "action": "alow" },
    { "path": "a", "action": "deny", "acess": "read" },
    { "action": "ask" },
    { "path": 3, "action": "deny", "access": "rw" },
    { "path": "b[1]", "action": "deny" },
    { "path": "/etc", "action": "allow" }
  ]
}
J
out=$("$CONFINE" check 2>/dev/null); st=$?
err=$("$CONFINE" check 2>&1 >/dev/null)
F=$WS/.confine/rules.json
is "$st" 1 "R5 errors: exit 1"
is "$(grep -c "^$F:" <<<"$out")" 8 "R5 all 8 errors of the workspace file are reported"
is "$(sed -n 1p <<<"$out")" "$F:2:14: /version: 'version' must be the number 1 (the only version there is)" \
  "R5 wrong version: line, column, pointer"
is "$(sed -n 2p <<<"$out")" "$F:4:33: /rules/0/action: 'action' must be \"allow\", \"ask\" or \"deny\", not \"alow\"" \
  "R5 unknown action"
ok "$(grep -q "^$F:5:38: /rules/1/acess: unknown key \"acess\"" <<<"$out"; echo $?)" "R5 unknown key"
ok "$(grep -q "^$F:6:5: /rules/2/path: missing required key 'path'" <<<"$out"; echo $?)" "R5 missing path"
ok "$(grep -q "^$F:7:15: /rules/3/path: 'path' must be a string, not a number" <<<"$out"; echo $?)" "R5 wrong type"
ok "$(grep -q "^$F:7:46: /rules/3/access: .*not \"rw\"" <<<"$out"; echo $?)" "R5 unknown access"
ok "$(grep -q "^$F:8:5: /rules/4/path: 'b\[1\]': '\[' is reserved" <<<"$out"; echo $?)" "SPEC 2.2 [ is reserved"
ok "$(grep -q "^$F:9:5: /rules/5/path: '/etc' allows '/etc', outside the workspace" <<<"$out"; echo $?)" \
  "R10 a workspace allow outside the workspace"
is "$err" "confine: check: 8 errors in 1 file" "summary line on stderr"

# A relative path is an error in the user file only.
echo '{"version": 1, "rules": [{"path": "rel", "action": "deny"}]}' >"$T/cfg/confine/rules.json"
echo '{"version": 1, "rules": [{"path": "rel", "action": "deny"}]}' >"$WS/.confine/rules.json"
out=$("$CONFINE" check 2>&1); st=$?
is "$st" 1 "relative path in the user file: exit 1"
ok "$(grep -q "cfg/confine/rules.json:1:26: /rules/0/path: relative path 'rel' in the user rule file" <<<"$out"; echo $?)" \
  "SPEC 2.2 relative path in the user file is an error"
ok "$(grep -q "^$WS/.confine/rules.json: ok (1 rule)$" <<<"$out"; echo $?)" "relative path in the workspace file is fine"
ok "$(grep -q "errors\\? in 1 file$" <<<"$out"; echo $?)" "only the user file has errors"

# Syntax error: jansson's position.
printf '{\n  "version": 1,\n  "rules": [ }\n' >"$T/bad.json"
out=$("$CONFINE" check "$T/bad.json" 2>&1); st=$?
is "$st" 1 "syntax error: exit 1"
ok "$(grep -q "^$T/bad.json:3:14: unexpected token" <<<"$out"; echo $?)" "syntax error with line and column"

# Files named on the command line; a missing one is an error.
echo '{"version": 1, "rules": []}' >"$T/good.json"
out=$("$CONFINE" check "$T/good.json" 2>&1); st=$?
is "$st" 0 "a named valid file: exit 0"
out=$("$CONFINE" check "$T/good.json" "$T/missing.json" "$T/bad.json" 2>&1); st=$?
is "$st" 1 "a named missing file: exit 1"
ok "$(grep -q "^$T/missing.json: cannot read rule file: No such file or directory$" <<<"$out"; echo $?)" \
  "a named missing file is reported"
ok "$(grep -q "^confine: check: 2 errors in 2 files$" <<<"$out"; echo $?)" "summary counts files with errors"
mkfifo "$T/fifo"
out=$(timeout 5 "$CONFINE" check "$T/fifo" 2>&1); st=$?
is "$st" 1 "a FIFO is refused without blocking"

# --workspace selects the workspace file.
mkdir -p "$T/ws2/.confine"
echo '{"version": 1, "rules": [{"path": "x", "action": "deny", "bad": 1}]}' >"$T/ws2/.confine/rules.json"
rm -f "$T/cfg/confine/rules.json"
out=$(cd / && "$CONFINE" check --workspace "$T/ws2" 2>&1); st=$?
is "$st" 1 "--workspace DIR: its rule file is checked"
ok "$(grep -q "ws2/.confine/rules.json:1:58: /rules/0/bad: unknown key" <<<"$out"; echo $?)" "--workspace DIR: error reported"

# Usage.
"$CONFINE" check --bogus >/dev/null 2>&1; is "$?" 125 "unknown option: exit 125"
"$CONFINE" check --workspace >/dev/null 2>&1; is "$?" 125 "--workspace without DIR: exit 125"
"$CONFINE" check --workspace "$T/nonexistent" >/dev/null 2>&1; is "$?" 125 "missing workspace: exit 125"
out=$("$CONFINE" check --help); st=$?
is "$st" 0 "--help: exit 0"
ok "$(grep -q "^usage: confine check" <<<"$out"; echo $?)" "--help prints the usage"

done_testing
