#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# R28 (SPEC 3.3): the landlock backend, for real, as root and as uid 65534.
#  - a split directory: an entry created after launch is not readable (fail closed), and the
#    plan says so;
#  - a hidden file's content is EACCES by every route: open, openat relative to an ancestor
#    directory, a symlink made inside the workspace, /proc/self/root/..., after an attempted
#    rename of an ancestor from inside;
#  - --no-network: TCP to a host loopback listener, UDP to a host listener, raw and netlink
#    sockets all fail; AF_UNIX sockets are refused (ABI < 9), socketpair works;
#  - what it does not provide, asserted: names visible, EACCES instead of EROFS, host pids
#    visible but neither signalable nor traceable;
#  - the per-run TMPDIR, removed afterwards;
#  - auto falls back for real inside `unshare -Ur` with user.max_user_namespaces=0, says so in
#    one line and enforces the guards; --backend bwrap refuses with 125 and the probe code.
source "$(dirname "$0")/../lib.sh"
CONFINE_TEST_BACKEND=landlock
source "$(dirname "$0")/enforce.sh"
enforce_begin

LLX=(--backend landlock)

for who in $RUN_USERS; do
	h=$(home "$who")
	w=$(ws "$who")
	# A directory split around a hidden file: sub/server.key matches the **/*.key guard.
	expect "$who" OK "sibling of a hidden file in a split directory is readable" \
		"${LLX[@]}" -- "$TRYOP" read "$w/src.txt"
	# Synchronised on files, never on a sleep: the command says it is running, the host then
	# creates the sibling and says so, the command reads it.
	# Outside the writable areas (the home, split around ~/.ssh) it gets nothing: fail closed.
	# In a writable area (sub/) confine's supervisor opens it (pathguard.c).
	rm -f "$w/sub/late.txt" "$h/late.txt" "$w/out/go" "$w/out/ready"
	cx_bg "$who" "${LLX[@]}" -- sh -c "'$TRYOP' write '$w/out/ready' >/dev/null; '$TRYOP' waitfile '$w/out/go' 30 >/dev/null; '$TRYOP' read '$h/late.txt'; '$TRYOP' read '$w/sub/late.txt'"
	"$TRYOP" waitfile "$w/out/ready" 30 >/dev/null
	_as "$who" sh -c "echo late >'$h/late.txt' && echo late >'$w/sub/late.txt' && touch '$w/out/go'"
	wait_pid "$BGPID" 40
	is "$(cat "$E/bg.out")" "EACCES
OK" "$who: an entry created after launch in a split directory: outside the writable areas not readable (fail closed), in the workspace readable (supervisor)"
	expect_host "$who" OK "... while the host reads it" "$TRYOP" read "$h/late.txt"
	rm -f "$h/late.txt"
	cx "$who" "${LLX[@]}" --print-plan -- true
	grep -q "^split (entries created after launch get no access: fail closed):" <<<"$out" &&
		grep -qx "  $w/sub" <<<"$out"
	ok $? "$who: the plan lists $w/sub as split and says new entries get no access"

	# Every route to a hidden file's content.
	expect "$who" EACCES "hidden file: open" "${LLX[@]}" -- "$TRYOP" read "$w/.env"
	expect "$who" EACCES "hidden file: openat relative to an ancestor" \
		"${LLX[@]}" -- "$TRYOP" openat "$w" .env
	expect "$who" EACCES "hidden guard: openat relative to the home" \
		"${LLX[@]}" -- "$TRYOP" openat "$h" .ssh/id_ed25519
	rm -f "$w/out/alias"
	expect "$who" "OK
EACCES" "hidden file: through a symlink made inside the workspace" \
		"${LLX[@]}" -- sh -c "'$TRYOP' symlink '$w/.env' '$w/out/alias'; '$TRYOP' read '$w/out/alias'"
	expect "$who" EACCES "hidden file: /proc/self/root/..." \
		"${LLX[@]}" -- "$TRYOP" read "/proc/self/root$w/x/y.pem"
	expect "$who" "EACCES
EACCES" "hidden file: rename of an ancestor from inside is refused, the content stays EACCES" \
		"${LLX[@]}" -- sh -c "'$TRYOP' rename '$w/x' '$w/out/moved'; '$TRYOP' read '$w/x/y.pem'"
	expect_host "$who" OK "... the ancestor is still in place (host control)" "$TRYOP" read "$w/x/y.pem"
	expect "$who" EACCES "hidden guard directory: open" \
		"${LLX[@]}" -- "$TRYOP" read "$h/.ssh/id_ed25519"
	# Landlock refuses a link that would give the file more access than it has (EXDEV).
	expect "$who" "EXDEV
ENOENT" "hidden file: a hard link into the writable part is refused" \
		"${LLX[@]}" -- sh -c "'$TRYOP' link '$w/.env' '$w/out/hl'; '$TRYOP' read '$w/out/hl'"

	# What the backend does not provide, asserted as it is.
	expect "$who" OK "names of hidden paths stay visible (stat)" \
		"${LLX[@]}" -- "$TRYOP" stat "$h/.ssh/id_ed25519"
	expect "$who" EACCES "a denied write is EACCES, not EROFS" \
		"${LLX[@]}" -- "$TRYOP" write "$h/.bashrc"
	rm -f "$w/new-at-root"
	expect "$who" OK "a new file in a split directory (the workspace root) is made by the supervisor" \
		"${LLX[@]}" -- "$TRYOP" write "$w/new-at-root"
	[ -f "$w/new-at-root" ] && [ "$(stat -c %U "$w/new-at-root")" = "$(_uname "$who")" ]
	ok $? "$who: ... it is there, owned by the caller"
	rm -f "$w/new-at-root"
	expect "$who" OK "a new file in an unsplit workspace directory is allowed" \
		"${LLX[@]}" -- "$TRYOP" write "$w/out/new"
	"$TRYOP" sleep 60 >/dev/null &
	hostpid=$!
	bg_pids+=("$hostpid")
	[ "$who" = nobody ] && { kill "$hostpid"; setpriv --reuid=65534 --regid=65534 --clear-groups "$TRYOP" sleep 60 >/dev/null & hostpid=$!; bg_pids+=("$hostpid"); }
	expect "$who" OK "a host process is visible (/proc/PID)" \
		"${LLX[@]}" -- "$TRYOP" stat "/proc/$hostpid"
	expect "$who" EPERM "a host process of the same user cannot be signalled (scoping)" \
		"${LLX[@]}" -- "$TRYOP" kill "$hostpid" 0
	expect "$who" EPERM "a host process of the same user cannot be traced" \
		"${LLX[@]}" -- "$TRYOP" ptrace "$hostpid"
	expect_host "$who" OK "... while the host can signal it (control)" "$TRYOP" kill "$hostpid" 0
	kill "$hostpid" 2>/dev/null

	# The per-run TMPDIR: writable, fresh, removed afterwards; the host's /tmp is not readable.
	echo host-tmp >"/tmp/confine-ll-test.$$.$who"
	chmod 0644 "/tmp/confine-ll-test.$$.$who"
	cx "$who" "${LLX[@]}" -- sh -c "echo \$TMPDIR; '$TRYOP' write \"\$TMPDIR/f\"; '$TRYOP' read /tmp/confine-ll-test.$$.$who"
	tmpd=$(head -1 <<<"$out")
	is "$(tail -n +2 <<<"$out")" "OK
EACCES" "$who: TMPDIR is writable, the host's /tmp is not readable"
	case $tmpd in /tmp/confine-run.*) ok 0 "$who: TMPDIR is a per-run directory ($tmpd)" ;; *) ok 1 "$who: TMPDIR is a per-run directory ($tmpd)" ;; esac
	[ ! -e "$tmpd" ]
	ok $? "$who: the per-run TMPDIR is removed after the run"
	rm -f "/tmp/confine-ll-test.$$.$who"

	# --no-network: every way out fails at socket(2) (EPERM) or at Landlock (EACCES).
	"$TRYOP" sleep 0 >/dev/null
	port=$((20000 + RANDOM % 20000))
	python3 -c "
import socket,sys,os
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1); s.bind(('127.0.0.1',$port)); s.listen(8)
u=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); u.bind(('127.0.0.1',$port))
open('$E/listening','w').close()
import time; time.sleep(60)" &
	bg_pids+=("$!")
	"$TRYOP" waitfile "$E/listening" 20 >/dev/null
	expect_host "$who" OK "TCP to the host listener works without confine (control)" "$TRYOP" connect-tcp 127.0.0.1 "$port"
	expect "$who" OK "TCP to the host listener with the network on" "${LLX[@]}" -- "$TRYOP" connect-tcp 127.0.0.1 "$port"
	expect "$who" EPERM "--no-network: TCP to a host loopback listener" "${LLX[@]}" --no-network -- "$TRYOP" connect-tcp 127.0.0.1 "$port"
	expect "$who" EPERM "--no-network: UDP to a host listener" "${LLX[@]}" --no-network -- "$TRYOP" connect-udp 127.0.0.1 "$port"
	expect "$who" EPERM "--no-network: IPv6 TCP" "${LLX[@]}" --no-network -- "$TRYOP" socket inet6 stream
	expect "$who" EPERM "--no-network: a raw socket" "${LLX[@]}" --no-network -- "$TRYOP" socket inet raw
	expect "$who" EPERM "--no-network: a netlink socket" "${LLX[@]}" --no-network -- "$TRYOP" socket netlink raw
	expect "$who" EPERM "--no-network: a packet socket" "${LLX[@]}" --no-network -- "$TRYOP" socket packet dgram
	abi=$("$TRYOP" landlock-abi | sed 's/^OK //')
	if [ "${abi:-0}" -lt 9 ]; then
		expect "$who" EPERM "AF_UNIX refused (Landlock ABI $abi < 9 cannot govern connect)" "${LLX[@]}" -- "$TRYOP" socket unix stream
	else
		expect "$who" OK "AF_UNIX allowed (ABI $abi governs connect with RESOLVE_UNIX)" "${LLX[@]}" -- "$TRYOP" socket unix stream
	fi
	expect "$who" OK "socketpair works" "${LLX[@]}" --no-network -- "$TRYOP" socketpair
	kill_bg
	rm -f "$E/listening"
done

# Auto fallback for real: in a user namespace where no further user namespace can be made,
# bwrap cannot start.  Root of the outer namespace may lower its own max_user_namespaces.
if [ "$(id -u)" = 0 ] && unshare -Ur true 2>/dev/null; then
	w=$(ws root)
	h=$(home root)
	cat >"$E/inner.sh" <<EOF
echo 0 >/proc/sys/user/max_user_namespaces || exit 3
cd "$w" || exit 4
env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$h" XDG_CACHE_HOME="$E/cache-inner" "$FIX/confine" run -- "$TRYOP" read "$h/.ssh/id_ed25519" >"$E/auto.out" 2>"$E/auto.err"
echo \$? >"$E/auto.rc"
env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$h" XDG_CACHE_HOME="$E/cache-inner" "$FIX/confine" run -- "$TRYOP" read "$w/src.txt" >"$E/auto2.out" 2>/dev/null
env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$h" XDG_CACHE_HOME="$E/cache-inner" "$FIX/confine" run --backend bwrap -- "$TRYOP" read "$w/src.txt" >"$E/bw.out" 2>"$E/bw.err"
echo \$? >"$E/bw.rc"
EOF
	unshare -Ur bash "$E/inner.sh"
	is "$?" 0 "auto fallback: max_user_namespaces=0 was set inside unshare -Ur"
	is "$(cat "$E/auto.out")" EACCES "auto fallback: the guard holds (~/.ssh/id_ed25519 is EACCES)"
	is "$(cat "$E/auto2.out")" OK "auto fallback: the workspace is readable"
	is "$(grep -c '^confine: warning: bwrap unavailable' "$E/auto.err")" 1 "auto fallback: exactly one line says so"
	grep -q "bwrap unavailable (user_namespace_disabled\|bwrap unavailable (probe_failed" "$E/auto.err" &&
		grep -q "weaker" "$E/auto.err"
	ok $? "auto fallback: the line names the probe code and what is weaker ($(head -c 200 "$E/auto.err"))"
	is "$(cat "$E/bw.rc")" 125 "--backend bwrap refuses with 125 where bwrap cannot run"
	grep -q "^confine: sandbox unavailable: 'bwrap'.*(user_namespace_disabled\|probe_failed)" "$E/bw.err"
	ok $? "--backend bwrap: the message names the probe code ($(head -c 200 "$E/bw.err"))"
	grep -q "^hint: " "$E/bw.err"
	ok $? "--backend bwrap: with the probe's hint"
	is "$(cat "$E/bw.out")" "" "--backend bwrap: nothing ran"
else
	skip "auto fallback: needs root and unshare -Ur to lower max_user_namespaces in a namespace"
fi

done_testing
