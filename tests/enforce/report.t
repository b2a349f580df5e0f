#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The post-run report (SPEC 7.3, R23) from real denials: the paths named on the command's
# denial lines, and for each `ask` it ran into the rule and the card that would approve it; the
# policy digest, backend and guarantees.  The stderr tee passes the command's output through
# unchanged: stdout and stderr byte-identical with and without --report (50 MB of binary, no
# trailing newline), and without waiting for the command to end.  As root and as uid 65534.
# landlock (SPEC 3.3): the same report; a denied write says "Permission denied" there, and the
# tee is confine's own (no helper in between).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin
command -v jq >/dev/null || { skip "jq is missing (scripts/install-deps test)"; done_testing; }

head -c 50000000 /dev/urandom >"$E/big.out"
head -c 50000000 /dev/urandom >"$E/big.err"
chmod 0644 "$E/big.out" "$E/big.err"
want_out=$( (cat "$E/big.out"; printf 'tail of stdout') | sha256sum)
want_err=$( (cat "$E/big.err"; printf 'tail of stderr') | sha256sum)

err_len=$(($(stat -c %s "$E/big.err") + 14))
# After the command's stderr confine may add its own post-run warnings (a host socket that
# another program bound during the run: the machine is shared); nothing else.
only_confine() {
	tail -c +$((err_len + 1)) "$1" | grep -qvE '^(confine: |hint: )'
	[ $? = 1 ]
}

raw() { # who stdout-file stderr-file confine-run-args...: a run whose output goes to files
	local who=$1 o=$2 e=$3
	shift 3
	local -a envv
	mapfile -t envv < <(_env "$who")
	(cd "$(ws "$who")" && _as "$who" env -i "${envv[@]}" "$FIX/confine" run "$@" >"$o" 2>"$e")
}

for who in $RUN_USERS; do
	h=$(home "$who")
	w=$(ws "$who")
	rep=$E/$who/report.json
	key=$h/.ssh/id_ed25519
	q() { jq -r "$1" "$rep"; }

	# --- denial paths and asks, from real denials ---
	cx "$who" --report "$rep" -- cat "$key"
	is "$rc" 1 "$who: cat of the guarded key fails inside"
	is "$(q '.denied_paths | join(",")')" "$key" "$who: R23 the report names the path of 'Permission denied'"
	is "$(q '[.asks[0].path, .asks[0].access, .asks[0].layer, .asks[0].rule.pattern, .asks[0].card.kind] | join("|")')" \
		"$key|both|guard|~/.ssh|escalate" "$who: the ask: the guard ~/.ssh, and an escalation card (no grant lifts a guard)"
	card_digest=$(cd "$w" && _as "$who" env -i $(_env "$who") "$FIX/confine" card --json --request-id "$(q .request_id)" -- cat "$key" | jq -r .digest)
	is "$(q '.asks[0].card.digest')" "$card_digest" "$who: the card in the report is the card of this exact command (with the run's request id)"

	cx "$who" --report "$rep" -- touch /etc/x
	is "$rc" 1 "$who: touch /etc/x fails inside"
	is "$(q '.denied_paths | join(",")')" "/etc/x" "$who: R23 the report names the path of 'Read-only file system'"
	is "$(q '[.asks[0].access, .asks[0].layer, (.asks[0].rule|tostring), .asks[0].card.kind, .asks[0].card.targets[0].path, .asks[0].card.targets[0].scope] | join("|")')" \
		"write|fallback|null|write_grant|/etc|subtree" \
		"$who: the ask: the fallback's write ask outside the workspace, and a write-grant card for the directory"

	cx "$who" --report "$rep" -- touch "$w/.git/hooks/post-checkout"
	is "$rc" 1 "$who: a write into .git/hooks fails inside"
	is "$(q '.denied_paths | join(",")')" "$w/.git/hooks/post-checkout" "$who: R23 the report names it"
	is "$(q '[.asks[0].access, .asks[0].layer, .asks[0].rule.pattern, .asks[0].card.kind] | join("|")')" \
		"write|guard|.git/hooks|escalate" "$who: the ask: the write guard .git/hooks, and an escalation card"
	test -e "$w/.git/hooks/post-checkout"
	is "$?" 1 "$who: (nothing was planted)"

	cx "$who" --report "$rep" --ask "$h/notes.txt:read" -- cat "$h/notes.txt"
	is "$(q '[.asks[0].access, .asks[0].layer, .asks[0].rule.source, .asks[0].card.kind] | join("|")')" \
		"read|session|session|escalate" "$who: a session ask rule the command ran into, with its card"
	cx "$who" --report "$rep" --deny "$h/notes.txt" -- cat "$h/notes.txt"
	is "$(q '.denied_paths | join(",")'):$(q '.asks | length')" "$h/notes.txt:0" \
		"$who: a deny is named but is no ask (nothing to approve)"
	cx "$who" --report "$rep" -- sh -c 'for i in 1 2 3 4 5 6 7; do echo "x: /nope/$i: Permission denied" >&2; done; echo "x: /nope/1: Permission denied" >&2'
	is "$(q '.denied_paths | join(",")')" "/nope/1,/nope/2,/nope/3,/nope/4,/nope/5" "$who: R23 at most 5 unique paths"

	# --- policy digest, backend, guarantees ---
	# (the digest is of the plan of the same command line: the report file is part of the
	# plan where it must be protected, on landlock always.  The plan also hides every socket
	# the host has bound (R29), which other processes bind and remove meanwhile (other test
	# files, other suites on the machine): the plan is printed before and after the run, and a
	# run is compared only when both are the same text, else tried again, up to 20 times.)
	plan_hash() { (cd "$w" && _as "$who" env -i $(_env "$who") "$FIX/confine" run --report "$rep" --print-plan -- true | sha256sum | cut -d' ' -f1); }
	for _ in $(seq 20); do
		before=$(plan_hash)
		cx "$who" --report "$rep" -- true
		plan_sum=$(plan_hash)
		[ "$before" = "$plan_sum" ] && break
	done
	is "$(q .policy_digest)" "$plan_sum" "$who: R23 the policy digest is the SHA-256 of the plan text (--print-plan)"
	is "$(q '[.backend, .guarantees.read_protection, .network, (.injections|length|tostring), .request_id[0:0]] | join("|")')" \
		"$(bk bwrap landlock)|$(bk "enforced (mount namespace)" "enforced (Landlock path rules; hidden names stay visible)")|on|0|" "$who: R23 the backend, its guarantees, the network, the injections"
	cx "$who" --report "$rep" --policy off -- true
	is "$(q '[.backend, (.policy_digest|tostring)] | join("|")')" "none|null" "$who: policy off: no backend, no policy digest"

	# --- the tee: byte-identical output, passed on while the command runs ---
	big=(sh -c 'cat "$1"; cat "$2" >&2; printf "tail of stdout"; printf "tail of stderr" >&2' sh "$E/big.out" "$E/big.err")
	# landlock: the tee is wired by its own executor; the variants without it and with the
	# audit log take the same path on both backends, so its pass tries the report alone.
	for variant in $(bk "plain report audit" report); do
		extra=()
		[ $variant = report ] && extra=(--report "$E/$who/big-report.json")
		[ $variant = audit ] && extra=(--audit "$E/$who/big-audit.jsonl")
		raw "$who" "$E/$who/o" "$E/$who/e" "${extra[@]}" -- "${big[@]}"
		is "$?:$(sha256sum <"$E/$who/o")" "0:$want_out" "$who: stdout byte-identical ($variant, 50 MB binary, no trailing newline)"
		is "$(head -c "$err_len" "$E/$who/e" | sha256sum)" "$want_err" "$who: stderr byte-identical ($variant)"
		only_confine "$E/$who/e"
		ok $? "$who: (after it, at most confine's own post-run warnings)"
	done
	rm -f "$E/$who/o" "$E/$who/e"
	# confine's stderr a pipe: the tee writes at most PIPE_BUF at a time after POLLOUT
	got=$(cd "$w" && _as "$who" env -i $(_env "$who") "$FIX/confine" run --report "$rep" -- "${big[@]}" 2>&1 >/dev/null | head -c "$err_len" | sha256sum)
	is "$got" "$want_err" "$who: stderr byte-identical through a pipe (report)"

	rm -f "$w/go"
	cx_bg "$who" --report "$rep" -- sh -c 'printf ready >&2; while [ ! -e go ]; do sleep 0.05; done; printf done >&2'
	seen=1
	for ((i = 0; i < 1000; i++)); do
		grep -q ready "$E/bg.err" 2>/dev/null && { seen=0; break; }
		sleep 0.02
	done
	ok $seen "$who: the tee passes stderr on while the command runs (a partial line, before its end)"
	_as "$who" touch "$w/go"
	wait_pid "$BGPID" 30
	is "$WAITRC:$(cat "$E/bg.err")" "0:readydone" "$who: and the run ends with the whole stderr"
done
done_testing
