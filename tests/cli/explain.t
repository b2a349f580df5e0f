#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# R11 `confine explain`: the decision is what the sandbox does.  A built-in guard is shown as a
# deny of the layer "guard" (no rule lifts it; only an escalation runs past it), never as
# `ask`; a rule's own `ask` stays `ask`; the JSON keeps the R11 shape (path, access, decision,
# layer, rule).
source "$(dirname "$0")/../lib.sh"
mkdir -p "$T/ws/.confine" "$T/home"
WS=$(cd "$T/ws" && pwd -P)
H=$(cd "$T/home" && pwd -P)
export HOME=$H XDG_CONFIG_HOME=$T/cfg
cd "$WS" || exit 1
echo secret >"$H/.npmrc"
echo '{"version": 1, "rules": [{"path": "notes", "action": "ask"}]}' >"$WS/.confine/rules.json"

out=$("$CONFINE" explain --json "$H/.npmrc" "$WS/.env" "$WS/notes" "$WS/.confine/rules.json" "$WS/src")
is "$?" 0 "explain --json: exit 0"
is "$(jq -r '.[] | [.access, .decision, .layer, (.rule.pattern // "-")] | join(" ")' <<<"$out")" \
	"read deny guard ~/.npmrc
write deny guard ~/.npmrc
read deny guard **/.env
write deny guard **/.env
read ask workspace notes
write ask workspace notes
read allow fallback -
write deny override .confine
read allow fallback -
write allow fallback -" "R11 a guard is a deny of the layer guard; a rule's ask stays ask; the override denies"
is "$(jq -r '[.[0] | keys_unsorted[]] | join(" ")' <<<"$out")" "path access decision layer rule" \
	"R11 the JSON shape is unchanged"

out=$("$CONFINE" explain --allow "$H/.npmrc:read" "$H/.npmrc")
is "$(head -n 1 <<<"$out" | awk '{print $2, $3, $4}')" "read deny guard" \
	"an --allow of a guarded file does not lift the guard, and explain says deny"
grep -q "^  a built-in guard: .*only an escalation runs outside the guards: 'confine card -- COMMAND'" <<<"$out"
ok $? "the text says what lifts a guard"

done_testing
