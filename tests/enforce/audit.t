#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The audit log (SPEC 8, R24): one JSON line per spawn attempt on every exit path (ran, refused,
# invalid request, malformed rules, exec failure, escalated, timed out); 8 concurrent runs give
# 8 valid lines; the file is unreadable and unwritable inside the sandbox even inside the
# workspace; lines stay valid JSON for hostile argv (quotes, newlines, control characters,
# bytes that are not UTF-8, which come back exactly from "argv_hex").  As root and uid 65534.
# landlock (SPEC 3.3): the same lines, backend "landlock"; a denied write is EACCES, and the
# log cannot be replaced because the split workspace root gives up no entry (EACCES).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin
command -v jq >/dev/null || { skip "jq is missing (scripts/install-deps test)"; done_testing; }

for who in $RUN_USERS; do
	h=$(home "$who")
	w=$(ws "$who")
	A=$E/$who/audit.jsonl
	rm -f "$A"
	lines() { [ -e "$A" ] && wc -l <"$A" || echo 0; }
	last() { tail -n 1 "$A" | jq -r "$1"; }
	attempt() { # description want-outcome want-exit-path want-status confine-run-args...
		local desc=$1 outcome=$2 path=$3 status=$4
		shift 4
		local before
		before=$(lines)
		cx "$who" --audit "$A" "$@"
		is "$rc:$(($(lines) - before)):$(last '[.outcome, .exit_path, (.exit_status|tostring)] | join(":")')" \
			"$status:1:$outcome:$path:$status" "$who: R24 $desc: one line, $outcome, $path"
	}

	attempt "a run" allowed ran 0 -- true
	is "$(last '[.backend, (.argv|join(" ")), .cwd, .workspace, .network, (.policy_digest|length|tostring), (.injections|tostring), .status_from] | join("|")')" \
		"$(bk bwrap landlock)|true|$w|$w|on|64|[]|command" "$who: the line has backend, argv, cwd, workspace, network, policy digest, injections"
	last '[.time, .request_id, .duration_ms, .events, .error] | length' >/dev/null
	[[ $(last .time) =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$ && $(last .request_id) =~ ^[0-9a-f]{32}$ && $(last .duration_ms) =~ ^[0-9]+$ ]]
	ok $? "$who: time (UTC), request id and duration"
	attempt "a command that fails" allowed ran 3 -- sh -c 'exit 3'
	attempt "refused by policy (an escalation without approval)" denied refused 125 --escalate -- true
	attempt "refused by policy (the workspace /)" denied refused 125 --workspace / -- true
	attempt "an invalid request (unknown option)" failed invalid_request 125 --no-such-option -- true
	is "$(last .error.reason)" "not an option of 'confine run'" "$who: with the error"
	attempt "an invalid request (bad --timeout)" failed invalid_request 125 --timeout soon -- true
	attempt "an invalid request (no command)" failed invalid_request 125
	cp "$w/.confine/rules.json" "$E/$who/rules.keep"
	echo '{"version": 1, "rules": [{"path": "x", "action": "perhaps"}]}' >"$w/.confine/rules.json"
	attempt "malformed rules" failed malformed_rules 125 -- true
	cp "$E/$who/rules.keep" "$w/.confine/rules.json"
	attempt "an exec failure (not found)" failed exec_failed 127 -- /no/such/command
	attempt "an exec failure (not executable)" failed exec_failed 126 -- "$w/src.txt"
	attempt "a timeout" allowed timed_out 137 --timeout 0.5 -- sleep 30
	c=$(cd "$w" && _as "$who" env -i $(_env "$who") "$FIX/confine" card --json -- true)
	d=$(jq -r .digest <<<"$c")
	attempt "an escalation" escalated escalated 0 --escalate --request-id "$(jq -r .request_id <<<"$c")" --receipt "$d" -- true
	is "$(last '[.backend, (.escalated|tostring), .receipt, (.policy_digest|tostring)] | join("|")')" \
		"none|true|$d|null" "$who: the escalated line: no backend, the receipt, no policy digest"
	cx "$who" --audit "$A" --print-plan -- true
	is "$(lines)" 12 "$who: --print-plan is not a spawn attempt: no line"
	before=$(lines)
	xenv=("CONFINE_AUDIT=$A")
	cx "$who" -- true
	is "$(($(lines) - before))" 1 "$who: CONFINE_AUDIT names the log too"
	is "$(stat -c %a "$A")" 600 "$who: R24 the log is created 0600"
	jq -e . "$A" >/dev/null
	ok $? "$who: every line is valid JSON (jq)"

	# --- hidden from the sandbox, even inside the workspace ---
	WA=$w/audit.jsonl
	WR=$w/report.json
	expect "$who" "EACCES" "R24 the audit log in the workspace is unreadable inside" \
		--audit "$WA" -- "$TRYOP" read "$WA"
	expect "$who" "$(bk EROFS EACCES)" "R24 ... and cannot be truncated" --audit "$WA" -- "$TRYOP" write "$WA"
	expect "$who" "EACCES" "R24 ... or appended to" --audit "$WA" -- "$TRYOP" append "$WA"
	expect "$who" "$(bk EBUSY EACCES)" "R24 ... or replaced" --audit "$WA" -- "$TRYOP" rename "$w/src.txt" "$WA"
	expect "$who" "OK" "control: without --audit the same file is readable" -- "$TRYOP" read "$WA"
	expect "$who" "$(bk EROFS EACCES)" "R30 the report file is not writable inside" --report "$WR" -- "$TRYOP" append "$WR"
	is "$(wc -l <"$WA")" 4 "$who: and the log has one line per attempt, none from inside"

	# --- concurrent runs: one write per line ---
	C8=$E/$who/c8.jsonl
	long=$(head -c 100000 /dev/zero | tr '\0' a)
	pids=()
	for i in 1 2 3 4 5 6 7 8; do
		(cd "$w" && _as "$who" env -i $(_env "$who") "$FIX/confine" run --audit "$C8" -- true "$i" "$long" >/dev/null 2>&1) &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p"; done
	is "$(wc -l <"$C8")" 8 "$who: R24 8 concurrent runs (100 kB lines) give 8 lines"
	python3 -c 'import json,sys; ls=[json.loads(l) for l in open(sys.argv[1])]; assert sorted(l["argv"][1] for l in ls)==[str(i) for i in range(1,9)]; assert all(len(l["argv"][2])==100000 for l in ls)' "$C8"
	ok $? "$who: each a whole, valid line (python3 json), one per run"

	# --- hostile argv ---
	H=$E/$who/hostile.jsonl
	hostile=(true '"quoted" \back\slash' $'new\nline\r\t' $'\x1b[31mred\x07' $'\xff\xfe\x80bytes' $'\xe2\x80\xa8sep' '{"json": 1}')
	cx "$who" --audit "$H" -- "${hostile[@]}"
	is "$(wc -l <"$H")" 1 "$who: R24 a hostile argv stays one line"
	jq -e . "$H" >/dev/null
	ok $? "$who: R24 valid JSON for jq"
	printf '%s\0' "${hostile[@]}" >"$E/$who/argv.bin"
	python3 - "$H" "$E/$who/argv.bin" <<'PY'
import json, sys
rec = json.loads(open(sys.argv[1], "rb").read())
want = open(sys.argv[2], "rb").read().split(b"\0")[:-1]
hexes = rec.get("argv_hex", [None] * len(rec["argv"]))
got = [bytes.fromhex(h) if h is not None else s.encode("utf-8") for s, h in zip(rec["argv"], hexes)]
assert got == want, (got, want)
assert rec["argv"][4] == "\ufffd\ufffd\ufffdbytes" and hexes[4] == "fffe806279746573"
assert all(h is None for i, h in enumerate(hexes) if i != 4)
PY
	ok $? "$who: R24 valid JSON for python3; invalid bytes as U+FFFD, exact in argv_hex"

	# --- the file itself ---
	echo secret >"$E/$who/target"
	ln -sf "$E/$who/target" "$E/$who/link.jsonl"
	rm -f "$w/out/ran"
	cx "$who" --audit "$E/$who/link.jsonl" -- touch "$w/out/ran"
	is "$rc:$(cat "$E/$who/target")" "125:secret" "$who: R24 a symlink at the log path is refused (O_NOFOLLOW), its target untouched"
	test -e "$w/out/ran"
	is "$?" 1 "$who: and nothing ran"
done
done_testing
