#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Approvals (SPEC 7, R22): the card, its request id and digest; a receipt for another argv, cwd,
# workspace, --env assignment, target list or request id is refused; a matching one runs the
# command once outside the sandbox (it reads the guarded key) and leaves nothing behind (the
# next plain run is refused again); the receipt is spent when that run starts, and its second
# use is refused; on a terminal a typed "yes" approves.  Write grants (SPEC 7.2): eight targets all on
# the card, a ninth refused before any path is touched, each target error, and an approved
# grant writable for that run only.  As root and as uid 65534.
# landlock (SPEC 3.3): the same, a read-only path answers EACCES there.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin
command -v jq >/dev/null || { skip "jq is missing (scripts/install-deps test)"; done_testing; }

card() { # who args...: `confine card ARGS` as WHO from WHO's workspace (like cx)
	local who=$1
	shift
	local -a envv
	mapfile -t envv < <(_env "$who")
	out=$(cd "${CX_CWD:-$(ws "$who")}" && _as "$who" env -i "${envv[@]}" "${xenv[@]}" \
		"$FIX/confine" card "$@" 2>"$E/err")
	rc=$?
	err=$(cat "$E/err")
	xenv=()
}

# The answer typed on a terminal: runs CMD on a pseudo-terminal, types ANSWER after the prompt.
cat >"$E/answer.py" <<'PY'
import os, pty, sys
answer, cmd = sys.argv[1], sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(cmd[0], cmd)
buf, sent = b"", False
while True:
    try:
        d = os.read(fd, 4096)
    except OSError:
        break
    if not d:
        break
    buf += d
    if not sent and b"Type yes" in buf:
        os.write(fd, (answer + "\n").encode())
        sent = True
_, st = os.waitpid(pid, 0)
sys.stdout.buffer.write(buf)
sys.exit(os.waitstatus_to_exitcode(st))
PY

for who in $RUN_USERS; do
	h=$(home "$who")
	w=$(ws "$who")
	key=$h/.ssh/id_ed25519
	count=$E/$who/count
	run_key=(sh -c 'echo ran >>"$1"; cat "$2"' sh "$count" "$key")

	# --- escalation: the control first ---
	expect "$who" "EACCES" "control: a plain run cannot read the guarded key" -- "$TRYOP" read "$key"
	card "$who" --json -- "${run_key[@]}"
	is "$rc" 0 "$who: confine card prints the card"
	id=$(jq -r .request_id <<<"$out")
	card "$who" --json -- "${run_key[@]}"
	[ "$(jq -r .request_id <<<"$out")" != "$id" ] && [[ $id =~ ^[0-9a-f]{32}$ ]]
	ok $? "$who: each card has a request id of its own"
	card "$who" --json --request-id "$id" -- "${run_key[@]}"
	d=$(jq -r .digest <<<"$out")
	is "$(jq -r '[.kind, .where, (.argv|length), .program, .cwd, .workspace, .reusable, .uses] | join("|")' <<<"$out")" \
		"escalate|outside the sandbox, this once|6|/usr/bin/dash|$w|$w|false|once: the receipt is spent when its run starts, and a second run with it is refused" \
		"$who: R22 the card has the kind, the exact argv, the program, cwd and workspace, and says the receipt is spent once"
	jq -e '.guards | test("do not apply")' <<<"$out" >/dev/null
	ok $? "$who: R22 the card says that the guards do not apply"
	[[ $d =~ ^[0-9a-f]{64}$ ]]
	ok $? "$who: R22 the digest is 64 hex digits of SHA-256"
	card "$who" --json --request-id "$id" -- "${run_key[@]}"
	is "$(jq -r .digest <<<"$out")" "$d" "$who: the same request and id give the same digest"
	card "$who" -- "${run_key[@]}"
	grep -qx "approve with: confine run --escalate --request-id [0-9a-f]\{32\} --receipt [0-9a-f]\{64\} \[the same options\] -- COMMAND" <<<"$out" &&
		grep -q "^  uses        once: the receipt is spent when its run starts" <<<"$out"
	ok $? "$who: the text card says how to approve (id and receipt) and that the receipt is spent once"
	rid=(--request-id "$id")

	rm -f "$count"
	cx "$who" --escalate "${rid[@]}" --receipt "$d" -- sh -c 'echo ran >>"$1"; cat "$2"' sh "$count" "$h/.ssh/other"
	is "$rc:$(cat "$count" 2>/dev/null)" "125:" "$who: R22 a receipt for another argv is refused (125), nothing ran"
	mkdir -p "$w/sub"
	CX_CWD=$w/sub cx "$who" --escalate "${rid[@]}" --receipt "$d" -- "${run_key[@]}"
	is "$rc:$(cat "$count" 2>/dev/null)" "125:" "$who: R22 a receipt for another cwd is refused"
	cx "$who" --workspace "$w/x" --escalate "${rid[@]}" --receipt "$d" -- "${run_key[@]}"
	is "$rc:$(cat "$count" 2>/dev/null)" "125:" "$who: R22 a receipt for another workspace is refused"
	cx "$who" --env CONFINE_X=1 --escalate "${rid[@]}" --receipt "$d" -- "${run_key[@]}"
	is "$rc:$(cat "$count" 2>/dev/null)" "125:" "$who: a receipt without the --env assignment of the request is refused"
	cx "$who" --escalate -- "${run_key[@]}"
	is "$rc:$(cat "$count" 2>/dev/null)" "125:" "$who: R22 --escalate without a receipt and without a terminal is refused"
	grep -q "^confine: not approved: 'sh'" <<<"$err"
	ok $? "$who: and says it was not approved"
	cx "$who" --no-network --escalate "${rid[@]}" --receipt "$d" -- "${run_key[@]}"
	is "$rc:$(cat "$count" 2>/dev/null)" "125:" "$who: --escalate with --no-network is refused (outside the sandbox the network cannot be cut)"

	sum_rules=$(sha256sum "$w/.confine/rules.json")
	touch "$E/$who/marker"
	sleep 0.01 # the marker's mtime must be older than anything the run could create
	cx "$who" --escalate --receipt "$d" -- "${run_key[@]}"
	is "$rc:$(cat "$count" 2>/dev/null)" "125:" "$who: R22 the receipt without its card's request id is refused"
	grep -q "^hint: a receipt goes with its card's request id: pass it with --request-id ID" <<<"$err"
	ok $? "$who: ... and the hint says so"
	cx "$who" --escalate --request-id "0$id" --receipt "$d" -- "${run_key[@]}"
	is "$rc:$(cat "$count" 2>/dev/null)" "125:" "$who: R22 the receipt with another request id is refused"
	cx "$who" --escalate "${rid[@]}" --receipt "$d" -- "${run_key[@]}"
	is "$rc:$out" "0:ssh-secret" "$who: R22 the matching receipt runs outside the sandbox: the guarded key is read"
	is "$(cat "$count")" "ran" "$who: exactly once"
	# A receipt means once.
	cx "$who" --escalate "${rid[@]}" --receipt "$d" -- "${run_key[@]}"
	is "$rc:$out:$(cat "$count")" "125::ran" "$who: R22 the same receipt a second time is refused (125), nothing ran"
	grep -q "^confine: receipt already used: 'sh': the receipt ${d:0:12}\.\.\. approved this request once" <<<"$err" &&
		grep -q "^hint: ask for a new approval: 'confine card' with the same options prints a new card" <<<"$err"
	ok $? "$who: ... saying it was used, with the remedy (stderr: $err)"
	card "$who" --json -- "${run_key[@]}"
	cx "$who" --escalate --request-id "$(jq -r .request_id <<<"$out")" --receipt "$(jq -r .digest <<<"$out")" -- "${run_key[@]}"
	is "$rc:$out" "0:ssh-secret" "$who: a new card of the same request is a new approval"
	printf 'ran\n' >"$count"
	# Five runs presenting one receipt at once: one runs.
	spent=$h/.cache/confine/receipts
	card "$who" --json -- sh -c 'echo ran >>"$1"' sh "$E/$who/count5"
	c5=(--escalate --request-id "$(jq -r .request_id <<<"$out")" --receipt "$(jq -r .digest <<<"$out")" -- sh -c 'echo ran >>"$1"' sh "$E/$who/count5")
	rm -f "$E/$who/count5"
	pids=()
	for k in 1 2 3 4 5; do
		(cd "$w" && _as "$who" env -i $(_env "$who") "$FIX/confine" run "${c5[@]}" 2>/dev/null) &
		pids+=($!)
	done
	wait "${pids[@]}"
	is "$(cat "$E/$who/count5")" ran "$who: five runs with one receipt at once: exactly one ran"
	# The record keeps the last 4096 spent receipts, the oldest dropped first.
	cp "$spent" "$E/$who/spent.keep"
	for k in $(seq 4096); do printf '%064x %d\n' "$k" "$k"; done >"$spent"
	card "$who" --json -- true
	cx "$who" --escalate --request-id "$(jq -r .request_id <<<"$out")" --receipt "$(jq -r .digest <<<"$out")" -- true
	is "$rc|$(wc -l <"$spent")|$(head -c 64 "$spent")" "0|4096|$(printf '%064x' 2)" \
		"$who: a full record (4096) drops the oldest receipt for the new one"
	# A record that is not what confine writes refuses: forgetting what was spent would let a
	# receipt run twice.
	echo "not a receipt" >>"$spent"
	card "$who" --json -- "${run_key[@]}"
	cx "$who" --escalate --request-id "$(jq -r .request_id <<<"$out")" --receipt "$(jq -r .digest <<<"$out")" -- "${run_key[@]}"
	is "$rc:$out" "125:" "$who: a malformed record of spent receipts refuses the escalation, nothing ran"
	grep -q "^confine: cannot spend the receipt: '$h/.cache/confine': the record of spent receipts is not what confine wrote" <<<"$err"
	ok $? "$who: ... saying why (stderr: $err)"
	rm -f "$spent" && ln -s "$E/$who/spent.keep" "$spent"
	[ "$who" = nobody ] && chown -h 65534:65534 "$spent"
	card "$who" --json -- "${run_key[@]}"
	cx "$who" --escalate --request-id "$(jq -r .request_id <<<"$out")" --receipt "$(jq -r .digest <<<"$out")" -- "${run_key[@]}"
	is "$rc:$out" "125:" "$who: a symlink in its place refuses too"
	grep -q "^confine: cannot spend the receipt: '$h/.cache/confine': the record of spent receipts is a symlink" <<<"$err"
	ok $? "$who: ... saying so (stderr: $err)"
	rm -f "$spent" && cp "$E/$who/spent.keep" "$spent"
	[ "$who" = nobody ] && chown 65534:65534 "$spent"
	printf 'ran\n' >"$count"
	is "$(sha256sum "$w/.confine/rules.json")" "$sum_rules" "$who: no rule written to the workspace rule file"
	is "$(find "$h" "$w" -newer "$E/$who/marker" -print | grep -v "^$h/.cache/confine" | head -3)" "" \
		"$who: no file created or changed in the home or workspace (but confine's record of spent receipts)"
	grep -q "^$d [0-9]*\$" "$h/.cache/confine/receipts"
	ok $? "$who: the receipt is recorded as spent in confine's cache"
	expect "$who" "EACCES" "R22 the next plain run is refused again" -- "$TRYOP" read "$key"

	# --- on a terminal: a typed yes ---
	hx "$who" python3 "$E/answer.py" yes env -i "PATH=/usr/bin:/bin" "HOME=$h" "$FIX/confine" run --escalate -- "$TRYOP" cat "$key"
	is "$rc" 0 "$who: R22 on a terminal, --escalate shows the card and runs after a typed yes"
	grep -q "OK ssh-secret" <<<"$out" && grep -q "outside the sandbox, this once" <<<"$out"
	ok $? "$who: the card was shown and the key read"
	hx "$who" python3 "$E/answer.py" no env -i "PATH=/usr/bin:/bin" "HOME=$h" "$FIX/confine" run --escalate -- "$TRYOP" cat "$key"
	is "$rc" 125 "$who: any other answer refuses (125)"
	grep -q "OK ssh-secret" <<<"$out"
	is "$?" 1 "$who: and nothing ran"

	# --- write grants ---
	g=$E/$who/g
	mkdir -p "$g/dir"
	for i in 1 2 3 4 5 6 7 8; do echo "$i" >"$g/t$i"; done
	[ "$who" = nobody ] && chown -R 65534:65534 "$g"
	t8=()
	for i in 1 2 3 4 5 6 7 8; do t8+=(--grant-write "$g/t$i:file"); done
	card "$who" "${t8[@]}" --reason "update the eight files" -- true
	listed=0
	for i in 1 2 3 4 5 6 7 8; do grep -q "^    $i\. $g/t$i (file)$" <<<"$out" && listed=$((listed + 1)); done
	is "$rc:$listed" "0:8" "$who: R22 a card with 8 targets lists all 8"
	grep -q "more" <<<"$out"
	is "$?" 1 "$who: never 'and N more'"
	card "$who" --json "${t8[@]}" --reason "update the eight files" -- true
	is "$(jq '.targets | length' <<<"$out")" 8 "$who: the JSON card has the 8 targets"
	n9=()
	for i in 1 2 3 4 5 6 7 8 9; do n9+=(--grant-write "$g/none$i:file"); done
	card "$who" "${n9[@]}" --reason r -- true
	is "$rc" 125 "$who: SPEC 7.2 a 9th target is refused"
	grep -q "too many write targets" <<<"$err" && ! grep -q "does not exist" <<<"$err"
	ok $? "$who: refused for the count, before any target was looked at (none of them exists)"
	if command -v strace >/dev/null; then
		hx "$who" strace -f -qq -e trace=%file -o "$E/$who/strace.log" "$FIX/confine" card "${n9[@]}" --reason r -- true
		grep -q "rules.json" "$E/$who/strace.log"
		ok $? "$who: (the trace sees the card's file accesses: it reads the rule files)"
		is "$(grep -c "none[0-9]" "$E/$who/strace.log")" 0 "$who: SPEC 7.2 no system call touched any of the nine paths"
	else
		skip "strace is missing (scripts/install-deps test)"
	fi

	# Each target error of SPEC 7.2 (and a guarded target, which a grant cannot lift).
	bad() { # description, expected part of the message, card args...
		local desc=$1 says=$2
		shift 2
		card "$who" "$@" -- true
		is "$rc" 125 "$who: SPEC 7.2 $desc: refused"
		grep -qF -- "$says" <<<"$err" || diag "stderr: $err"
	}
	bad "a missing target" "does not exist" --grant-write "$g/missing:file" --reason r
	bad "a file request on a directory" "is a directory, not a regular file" --grant-write "$g/dir:file" --reason r
	bad "a subtree request on a file" "is a regular file, not a directory" --grant-write "$g/t1:subtree" --reason r
	bad "the volume root" "root of a volume" --grant-write "/:subtree" --reason r
	bad "the home directory" "is the home directory" --grant-write "$h:subtree" --reason r
	bad "a subtree containing the home" "contains the home directory" --grant-write "$E/$who:subtree" --reason r
	bad "a file and a subtree on one path" "requested both as a file and as a subtree" \
		--grant-write "$g/t1:file" --grant-write "$g/t1:subtree" --reason r
	bad "an empty reason" "the reason is empty" --grant-write "$g/t1:file" --reason ""
	bad "no reason" "the reason is empty" --grant-write "$g/t1:file"
	bad "a reason of 241 characters" "at most 240" --grant-write "$g/t1:file" --reason "$(printf 'r%.0s' {1..241})"
	bad "a guarded target" "does not lift a guard" --grant-write "$h/.ssh:subtree" --reason r
	card "$who" --json --grant-write "$g/t1:file" --grant-write "$g/t1:file" --reason r -- true
	is "$rc:$(jq '.targets | length' <<<"$out")" "0:1" "$who: SPEC 7.2 exact duplicates are dropped"

	# An approved grant: writable for that run, and only the targets.
	gr=(--grant-write "$g/t1:file" --grant-write "$g/dir:subtree" --reason "write the outputs")
	RO=$(bk EROFS EACCES)
	expect "$who" "$RO" "control: t1 outside the workspace is read-only" -- "$TRYOP" write "$g/t1"
	card "$who" --json "${gr[@]}" -- "$TRYOP" write "$g/t1"
	d=$(jq -r .digest <<<"$out")
	rid=(--request-id "$(jq -r .request_id <<<"$out")")
	expect "$who" "OK" "SPEC 7.2 an approved file target is writable for that run" \
		"${gr[@]}" "${rid[@]}" --receipt "$d" -- "$TRYOP" write "$g/t1"
	expect_rc "$who" 125 "R22 the grant's receipt a second time is refused" \
		"${gr[@]}" "${rid[@]}" --receipt "$d" -- "$TRYOP" write "$g/t1"
	card "$who" --json "${gr[@]}" -- "$TRYOP" write "$g/dir/new"
	expect "$who" "OK" "SPEC 7.2 an approved subtree is writable below" \
		"${gr[@]}" --request-id "$(jq -r .request_id <<<"$out")" --receipt "$(jq -r .digest <<<"$out")" -- "$TRYOP" write "$g/dir/new"
	card "$who" --json "${gr[@]}" -- "$TRYOP" write "$g/t2"
	expect "$who" "$RO" "a path that is not a target stays read-only in the granted run" \
		"${gr[@]}" --request-id "$(jq -r .request_id <<<"$out")" --receipt "$(jq -r .digest <<<"$out")" -- "$TRYOP" write "$g/t2"
	cx "$who" --grant-write "$g/t1:file" --reason "write the outputs" "${rid[@]}" --receipt "$d" -- "$TRYOP" write "$g/t1"
	is "$rc:$out" "125:" "$who: R22 a receipt for another target list is refused"
	cx "$who" "${gr[@]}" -- "$TRYOP" write "$g/t1"
	is "$rc" 125 "$who: a grant without a receipt is refused"
	expect "$who" "$RO" "the next run without the grant: read-only again" -- "$TRYOP" write "$g/t1"
done
done_testing
