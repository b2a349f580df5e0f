#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --inject-env / --inject-path through the CLI (SPEC 6, R21):
#  - every validation error (relative target, '..', reserved names, duplicates after
#    normalisation, 129 injections, 8 MiB + 1, 16 MiB in all + 1) exits 125 with a message naming
#    the offending value, before any FILE is opened: the FILEs of these checks do not exist, so
#    a message about a missing file would mean confine looked at the file system first;
#  - FILE is opened without following a symlink, must be a regular file (a FIFO does not block);
#  - the BLAKE3 that plan and --print-plan list equals b3sum's for empty, 1 byte, 1 MiB and 8 MiB;
#  - the plan lists env:NAME=HASH / path:TARGET=HASH in text and JSON, and the mounts;
#  - policy off with an injection is refused (SPEC 4) before any file is read.
# A NUL in TARGET cannot travel through argv; tests/unit/inject checks it through the API.
source "$(dirname "$0")/../lib.sh"

mkdir -m 0755 "$T/ws"
cd "$T/ws" || exit 1
unset CONFINE_SANDBOX_POLICY
NOFILE=$T/no-such-file # never exists
echo content >"$T/f"

# run_plan ARGS...: confine plan --target linux ARGS... -- true (no backend needed); sets $rc,
# $out, $err.
run_plan() {
	out=$("$CONFINE" plan --target linux --workspace "$T/ws" "$@" -- true 2>"$T/err")
	rc=$?
	err=$(cat "$T/err")
}

refused() { # description, expected text in the message, args...
	local desc=$1 want=$2
	shift 2
	"$CONFINE" run --workspace "$T/ws" "$@" -- touch "$T/ran" 2>"$T/err"
	local st=$?
	is "$st" 125 "R21 $desc: exit 125"
	grep -qF -- "$want" "$T/err"
	ok $? "R21 $desc: the message names '$want' ($(head -c 300 "$T/err" | tr '\n' ' '))"
	grep -q "No such file" "$T/err"
	ok $((!$?)) "R21 $desc: refused before FILE was opened"
	ok "$([ ! -e "$T/ran" ]; echo $?)" "R21 $desc: nothing ran"
}

refused "a relative target" "'etc/x.toml'" --inject-path "etc/x.toml=$NOFILE"
refused "a '..' component" "'/etc/../x.toml'" --inject-path "/etc/../x.toml=$NOFILE"
refused "the root as target" "'/'" --inject-path "/=$NOFILE"
refused "a target in the env-pointer directory" "'/tmp/.confine-inject/X'" \
	--inject-path "/tmp/.confine-inject/X=$NOFILE"
for name in LD_PRELOAD LD_LIBRARY_PATH DYLD_INSERT_LIBRARIES PATH NODE_OPTIONS PYTHONPATH \
	PYTHONSTARTUP PERL5LIB PERL5OPT RUBYOPT RUBYLIB BASH_ENV ENV ld_preload; do
	refused "reserved name $name" "$name" --inject-env "$name=$NOFILE"
done
refused "an invalid name" "'1ABC'" --inject-env "1ABC=$NOFILE"
refused "a name with a dash" "'A-B'" --inject-env "A-B=$NOFILE"
refused "a duplicate name" "'SETTINGS'" --inject-env "SETTINGS=$NOFILE" --inject-env "SETTINGS=$NOFILE"
refused "a duplicate target after normalisation" "'//etc/./codex//x.toml/'" \
	--inject-path "/etc/codex/x.toml=$NOFILE" --inject-path "//etc/./codex//x.toml/=$NOFILE"
refused "a target beneath another" "'/etc/codex/x.toml/y'" \
	--inject-path "/etc/codex/x.toml=$NOFILE" --inject-path "/etc/codex/x.toml/y=$NOFILE"
refused "a bad one after a good one: the good one's file is not opened first" "'LD_AUDIT'" \
	--inject-env "GOOD=$NOFILE" --inject-env "LD_AUDIT=$NOFILE"
refused "no FILE" "'GOOD='" --inject-env "GOOD="
args=()
for i in $(seq 129); do args+=(--inject-env "V$i=$NOFILE"); done
refused "129 injections" "'V129=$NOFILE'" "${args[@]}"
refused "policy off" "read-only file injection refused" --policy off --inject-env "GOOD=$NOFILE"
CONFINE_SANDBOX_POLICY=off refused "CONFINE_SANDBOX_POLICY=off" "read-only file injection refused" \
	--inject-env "GOOD=$NOFILE"

# Sizes: checked on the descriptor before a byte is read.
head -c 8388608 /dev/zero >"$T/8m"
head -c 8388609 /dev/zero >"$T/8m1"
printf x >"$T/1b"
"$CONFINE" run --workspace "$T/ws" --inject-env "BIG=$T/8m1" -- touch "$T/ran" 2>"$T/err"
is "$?" 125 "R21 8 MiB + 1: exit 125"
grep -qF "'$T/8m1'" "$T/err" && grep -qF "8 MiB" "$T/err"
ok $? "R21 8 MiB + 1: the message names the file and the limit ($(head -c 200 "$T/err"))"
"$CONFINE" run --workspace "$T/ws" --inject-env "A=$T/8m" --inject-env "B=$T/8m" \
	--inject-env "C=$T/1b" -- touch "$T/ran" 2>"$T/err"
is "$?" 125 "R21 16 MiB + 1 in all: exit 125"
grep -qF "'$T/1b'" "$T/err" && grep -qF "16 MiB" "$T/err"
ok $? "R21 16 MiB + 1 in all: the message names the file over the total ($(head -c 200 "$T/err"))"
ok "$([ ! -e "$T/ran" ]; echo $?)" "R21 sizes: nothing ran"
run_plan --inject-env "A=$T/8m" --inject-env "B=$T/8m"
is "$rc" 0 "R21 exactly 16 MiB in all (two of 8 MiB) is accepted ($err)"

# FILE itself.
ln -s "$T/f" "$T/link"
"$CONFINE" run --workspace "$T/ws" --inject-env "A=$T/link" -- true 2>"$T/err"
is "$?" 125 "R21 a symlink as FILE is refused (O_NOFOLLOW)"
grep -q "symlink" "$T/err"
ok $? "R21 ... the hint says it is a symlink"
mkfifo "$T/fifo"
timeout 10 "$CONFINE" run --workspace "$T/ws" --inject-env "A=$T/fifo" -- true 2>"$T/err"
is "$?" 125 "R21 a FIFO as FILE is refused, without blocking"
grep -q "not a regular file" "$T/err"
ok $? "R21 ... not a regular file"
"$CONFINE" run --workspace "$T/ws" --inject-env "A=$T" -- true 2>"$T/err"
is "$?" 125 "R21 a directory as FILE is refused"
"$CONFINE" run --workspace "$T/ws" --inject-env "A=$NOFILE" -- true 2>"$T/err"
is "$?" 125 "R21 a missing FILE is refused"
grep -qF "'$NOFILE'" "$T/err"
ok $? "R21 ... the message names it"

# BLAKE3 as b3sum computes it.
if command -v b3sum >/dev/null && command -v jq >/dev/null; then
	: >"$T/empty"
	head -c 1048576 /dev/urandom >"$T/1m"
	head -c 8388608 /dev/urandom >"$T/8mr"
	for f in empty 1b 1m 8mr; do
		run_plan --json --inject-env "F=$T/$f"
		is "$(echo "$out" | jq -r '.injections[0].blake3')" "$(b3sum --no-names "$T/$f")" \
			"R21 BLAKE3 of $f equals b3sum's"
	done
	run_plan --json --inject-env "F=$T/f" --inject-path "/tmp/x/y.toml=$T/f"
	h=$(b3sum --no-names "$T/f")
	is "$(echo "$out" | jq -r '[.injections[].record] | join(" ")')" "env:F=$h path:/tmp/x/y.toml=$h" \
		"R21 plan --json lists env:NAME=HASH and path:TARGET=HASH"
	is "$(echo "$out" | jq -r '.injections[0].path')" "/tmp/.confine-inject/F" \
		"R21 plan --json: the env-pointer file's path"
	is "$(echo "$out" | jq -r '[.mounts[] | select(.op == "inject" or .op == "inject-file") | .path] | join(" ")')" \
		"/tmp/.confine-inject/F /tmp/x/y.toml" "R21 plan --json: the inject mounts"
	is "$(echo "$out" | jq -r '.mounts[-1].op')" "remount-ro" \
		"R21 plan --json: the injection directories become read-only last"
	last_rw=$(echo "$out" | jq '[.mounts | to_entries[] | select(.value.op == "rw-bind") | .key] | max')
	first_inject=$(echo "$out" | jq '[.mounts | to_entries[] | select(.value.op == "inject" or .value.op == "inject-file") | .key] | min')
	ok "$([ "$first_inject" -gt "$last_rw" ]; echo $?)" "R21 every inject mount comes after every writable bind"
else
	skip "b3sum or jq is not installed (scripts/install-deps test)"
fi
run_plan --inject-env "F=$T/f"
grep -q "^  env:F=[0-9a-f]\{64\}  (8 bytes; F=/tmp/.confine-inject/F, set last)$" <<<"$out"
ok $? "R21 the plan text lists env:NAME=HASH"
run_plan --inject-path "/etc/confine-missing-$$/x.toml=$T/f"
is "$rc" 125 "R21 plan: a missing parent on the host is refused"
grep -qF "its parent '/etc/confine-missing-$$' does not exist" <<<"$err"
ok $? "R21 plan: ... naming the parent"
"$CONFINE" plan --target windows --inject-env "F=$T/f" -- true 2>"$T/err"
is "$?" 125 "plan --target windows with an injection is refused"
"$CONFINE" plan --target linux -- true >"$T/plain" 2>&1
ok "$(grep -q -e inject "$T/plain"; [ $? -ne 0 ]; echo $?)" "R21 no injection: nothing of it in the plan"

# SPEC 6, 8: the report and the audit line list env:NAME=HASH and path:TARGET=HASH, never the
# bytes.  (A sandboxed run: where no sandbox can start, the attempt is still recorded.)
h=$(b3sum --no-names "$T/f")
rm -f "$T/a.log" "$T/r.json"
(cd "$T" && "$CONFINE" run --audit "$T/a.log" --report "$T/r.json" --inject-env "F=$T/f" \
	--inject-path "/tmp/x.toml=$T/f" -- true >/dev/null 2>&1)
is "$(jq -r '.injections | join(" ")' "$T/a.log")" "env:F=$h path:/tmp/x.toml=$h" \
	"R24 the audit line lists each injection by placement and BLAKE3"
is "$(jq -r '.injections | join(" ")' "$T/r.json")" "env:F=$h path:/tmp/x.toml=$h" \
	"R23 and so does the report"
! grep -qF "$(cat "$T/f")" "$T/a.log" "$T/r.json"
ok $? "neither holds the bytes"
done_testing
