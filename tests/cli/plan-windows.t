#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# confine plan --target windows (SPEC 1, R27) on this Linux host: host facts from a file or
# defaults, the session rules and rule files given here, the plan as text and JSON with the
# unenforceable list; nothing of the Linux host policy is read or changed.
source "$(dirname "$0")/../lib.sh"

export HOME=$T/home XDG_CONFIG_HOME=$T/cfg
mkdir -p "$HOME" "$T/cfg/confine"
# A Linux user rule file that must not leak into the Windows plan.
echo '{"version": 1, "rules": [{"path": "/srv/linux-only", "action": "deny"}]}' \
  >"$T/cfg/confine/rules.json"
cd "$T" || exit 1

# Defaults: a plausible host, every unlisted path assumed to exist, and the plan says so.
out=$("$CONFINE" plan --target windows -- git status 2>&1); st=$?
is "$st" 0 "R27 plan --target windows runs on Linux: exit 0"
ok "$(grep -q '^target: windows$' <<<"$out"; echo $?)" "the target is windows"
ok "$(grep -q '^protection: writes only (reads are not protected)$' <<<"$out"; echo $?)" \
  "the plan says reads are not protected"
ok "$(grep -q 'CreateRestrictedToken WRITE_RESTRICTED LUA_TOKEN DISABLE_MAX_PRIVILEGE' <<<"$out"; echo $?)" \
  "the token recipe is printed"
ok "$(grep -q "never the user's SID" <<<"$out"; echo $?)" "restricting SIDs never include the user SID"
ok "$(grep -q '^  allow write C:\\Users\\user\\project  \[dir inherited' <<<"$out"; echo $?)" \
  "default workspace gets the capability write ACE"
ok "$(grep -q '^  read: guard ~/.ssh (C:\\Users\\user\\.ssh): not enforced' <<<"$out"; echo $?)" \
  "the read guard is listed as not enforced"
ok "$(grep -q 'assumed to exist as a directory' <<<"$out"; echo $?)" "assumed facts are stated"
ok "$(grep -q 'linux-only' <<<"$out"; [ $? -ne 0 ]; echo $?)" "the Linux user rule file is not read"
ok "$(grep -q 'compiled and tested under Wine, not on Windows itself' <<<"$out"; echo $?)" \
  "the plan says where it was tested"
ok "$(grep -q '^command line: git status$' <<<"$out"; echo $?)" "the Windows command line"

# Facts from a file, session rules, --no-network, JSON.
cat >"$T/facts" <<'F'
home C:\Users\Ana
workspace C:\Users\Ana\Proj
capability S-1-5-21-1-2-3-4
dir C:\Users\Ana\Proj\.git\hooks
dir C:\Users\Ana\Proj\vendor
F
echo '{"version": 1, "rules": [{"path": "C:\\Users\\Ana\\Proj\\vendor", "access": "write", "action": "deny"}]}' \
  >"$T/session.json"
json=$("$CONFINE" plan --target windows --host-facts "$T/facts" --session-rules "$T/session.json" \
  --deny 'D:\secret:read' --no-network --json -- cmd /c "echo hi" 2>&1); st=$?
is "$st" 0 "plan --json with facts and session rules: exit 0"
is "$(jq -r '.guarantees.read_protection' <<<"$json")" "not provided" "JSON: read protection not provided"
is "$(jq -r '.guarantees.network_isolation' <<<"$json")" "not provided" "JSON: network isolation not provided"
is "$(jq -r '.token.restricting_sids | join(",")' <<<"$json")" "S-1-5-21-1-2-3-4,logon,S-1-1-0" \
  "JSON: capability, logon, Everyone"
is "$(jq -r '.acl_edits[] | select(.path == "C:\\Users\\Ana\\Proj\\vendor") | .ace' <<<"$json")" \
  "deny write" "session rule file: deny ACE on vendor"
is "$(jq -r '.acl_edits[] | select(.path == "C:\\Users\\Ana\\Proj\\.git") | .ace' <<<"$json")" \
  "deny rename" "the ancestor of .git\\hooks cannot be renamed"
is "$(jq -r '.not_enforced[] | select(.rule == "session D:\\secret") | .effect' <<<"$json")" \
  "not enforced: the command can read it" "a read deny is listed with its effect"
is "$(jq -r '.not_enforced[] | select(.what == "network") | .effect' <<<"$json")" \
  "not enforced: the command has the network" "--no-network is listed as not enforced"
is "$(jq -r '.cmdline' <<<"$json")" 'cmd /c "echo hi"' "JSON: the quoted command line"

# Refusals name the subject and the reason.
out=$("$CONFINE" plan --target windows --workspace '\\server\share\p' 2>&1); st=$?
is "$st" 125 "a UNC workspace: exit 125"
ok "$(grep -q "network (UNC) path" <<<"$out"; echo $?)" "a UNC workspace: says why"
echo 'reparse C:\Users\Ana\Proj' >>"$T/facts"
out=$("$CONFINE" plan --target windows --host-facts "$T/facts" 2>&1); st=$?
is "$st" 125 "a workspace that is a reparse point: exit 125"
ok "$(grep -q "is a reparse point" <<<"$out"; echo $?)" "a reparse point: says why"
printf 'bogus line\n' >"$T/badfacts"
out=$("$CONFINE" plan --target windows --host-facts "$T/badfacts" 2>&1); st=$?
is "$st" 125 "bad facts: exit 125"
ok "$(grep -q "in $T/badfacts:1:" <<<"$out"; echo $?)" "bad facts: the line is named"
grep -q "^confine: invalid host fact: 'bogus' (line 1): unknown fact" <<<"$out"
ok $? "bad facts: a format of lines names no column (got: $(grep invalid <<<"$out"))"
# The facts file itself: the cause and the remedy; a FIFO is refused, not waited on.
mkdir -p "$T/factsdir"
mkfifo "$T/factsfifo"
hint="hint: pass --host-facts a file of host facts ('confine help plan' says where their format is)"
for f in "$T/factsdir:Is a directory" "$T/nofacts:No such file or directory" \
	"$T/factsfifo:it is not a regular file (a FIFO, a socket or a device)"; do
	out=$(timeout 20 "$CONFINE" plan --target windows --host-facts "${f%%:*}" 2>&1); st=$?
	is "$st|$out" "125|confine: cannot read host facts: '${f%%:*}': ${f#*:}
$hint" "--host-facts ${f%%:*}: refused with the cause and the remedy"
done
# The name of a facts file a person reads is escaped (R38): an escape sequence in it is not.
bad=$T/bad$(printf '\x1b')[2Jfacts
printf 'bogus line\n' >"$bad"
out=$("$CONFINE" plan --target windows --host-facts "$bad" 2>&1)
is "$(head -1 <<<"$out")" "confine: in $T/bad\\x1b[2Jfacts:1:" "R38 the facts file's name is escaped where the line is named"
out=$("$CONFINE" plan --target linux --home 'C:\x' 2>&1); st=$?
is "$st" 125 "--home with --target linux: exit 125"

# SPEC 12: network by domain cannot be enforced on Windows, and the plan says so.
out=$("$CONFINE" plan --target windows --net-allow github.com -- true 2>&1); st=$?
is "$st" 0 "R31 plan --target windows with --net-allow: exit 0"
ok "$(grep -q 'network: --net-allow (network by domain): not enforced: the command reaches every host' <<<"$out"; echo $?)" \
	"R31 --net-allow is listed as not enforced on Windows"
# R39: the tool caches are redirected into a store of the workspace that an ACE makes writable.
out=$("$CONFINE" plan --target windows --home 'C:\Users\ana' --workspace 'C:\Users\ana\proj' -- npm ci 2>&1); st=$?
is "$st" 0 "R39 plan --target windows with tool caches: exit 0"
store='C:\Users\ana\AppData\Local\confine\caches\p-C%3A%5CUsers%5Cana%5Cproj\r'
ok "$(grep -qF "allow write $store  " <<<"$out"; echo $?)" "R39 the store is writable (an allow ACE)"
ok "$(grep -qF "npm_config_cache=$store\npm" <<<"$out" && grep -qF "PIP_CACHE_DIR=$store\pip" <<<"$out"; echo $?)" \
  "R39 npm and pip are redirected there by their own variables"
# Options end at the command: a --home after it is the command's own argument, not the plan's.
out=$("$CONFINE" plan --target windows --home 'C:\Users\ana' tool --home 'C:\other' 2>&1); st=$?
is "$st" 0 "plan --target windows TOOL --home X: exit 0"
ok "$(grep -qxF 'command line: tool --home C:\other' <<<"$out"; echo $?)" \
	"the command keeps its own --home"
ok "$(grep -qF 'C:\Users\ana\.ssh' <<<"$out" && ! grep -qF 'C:\other\.ssh' <<<"$out"; echo $?)" \
	"the plan's home is the one given before the command"
done_testing
