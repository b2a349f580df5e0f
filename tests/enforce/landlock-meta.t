#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# R42 on the landlock backend, for real, as root and as uid 65534, each break with its host
# control first:
#  - mode, owner, timestamps and extended attributes of a file outside every writable area (a
#    root-owned 0600 file for the root caller) and of a guarded key: EACCES by every entry
#    point (chmod, fchmod, fchmodat2 on an O_PATH descriptor, chown, fchown, utimensat,
#    utimes, futimens, setxattr, fsetxattr, removexattr), the file unchanged afterwards; the
#    same calls on a file of the workspace work; protected files inside the workspace (.env,
#    .git/config) refuse them too; through a symlink and through /proc/self/fd as well;
#  - the host's other terminals: a pty the test holds open is EACCES, the command's own
#    standard terminal is not touched;
#  - SysV IPC: a host segment of the same user cannot be attached, no new segment, queue or
#    semaphore can be made (EPERM); POSIX message queues work as before; the i386 ipc(2)
#    multiplexer kills the process (foreign architecture);
#  - the plan says so.
source "$(dirname "$0")/../lib.sh"
CONFINE_TEST_BACKEND=landlock
source "$(dirname "$0")/enforce.sh"
enforce_begin

LLX=(--backend landlock)
cp "$FIX/trymeta" "$E/bin/"
chmod a+rx "$E/bin/trymeta"
TM=$E/bin/trymeta

for who in $RUN_USERS; do
	h=$(home "$who")
	w=$(ws "$who")
	uid=$(_as "$who" id -u)
	gid=$(_as "$who" id -g)
	out_f=$h/outside-$who
	echo host-secret >"$out_f"
	chmod 0600 "$out_f"
	[ "$who" = nobody ] && chown 65534:65534 "$out_f"
	key=$h/.ssh/id_ed25519
	before_out=$("$TM" mode "$out_f")
	before_key=$("$TM" mode "$key")

	# Host controls: each call works without confine (and the file is put back).
	expect_host "$who" OK "chmod of a file outside the workspace" "$TM" chmod "$out_f" 0666
	chmod 0600 "$out_f"
	expect_host "$who" OK "utimensat of it" "$TM" utimensat "$out_f"
	touch -d "@${before_out##* }" "$out_f"
	expect_host "$who" OK "setxattr of it" "$TM" setxattr "$out_f" user.confine x
	_as "$who" "$TM" removexattr "$out_f" user.confine >/dev/null

	for call in "chmod $out_f 0666" "fchmod $out_f 0666" "fchmodat-fd $out_f 0666" \
		"chown $out_f $uid $gid" "fchown $out_f $uid $gid" "utimensat $out_f" \
		"utimes $out_f" "futimens $out_f" "setxattr $out_f user.confine x" \
		"fsetxattr $out_f user.confine x" "removexattr $out_f user.confine" \
		"setxattrat $out_f user.confine x" "removexattrat $out_f user.confine"; do
		# shellcheck disable=SC2086
		expect "$who" EACCES "outside the writable areas: ${call%% *}" "${LLX[@]}" -- "$TM" $call
	done
	is "$("$TM" mode "$out_f")" "$before_out" "$who: the file outside is unchanged (mode, owner, mtime)"

	expect_host "$who" OK "chmod of the guarded key (control)" "$TM" chmod "$key" 0644
	chmod 0600 "$key"
	for call in "chmod $key 0644" "fchmodat-fd $key 0644" "utimensat $key" \
		"chown $key $uid $gid" "setxattr $key user.confine x"; do
		# shellcheck disable=SC2086
		expect "$who" EACCES "guarded key: ${call%% *}" "${LLX[@]}" -- "$TM" $call
	done
	is "$("$TM" mode "$key")" "$before_key" "$who: the guarded key is unchanged"
	# The same inode by another name in the workspace (a hard link made before the run): the
	# supervisor decides on the inode, not only on the name.
	rm -f "$w/out/keylink"
	ln "$key" "$w/out/keylink"
	expect "$who" "EACCES
EACCES" "the guarded key through a hard link in the workspace: chmod, utimensat" \
		"${LLX[@]}" -- sh -c "'$TM' chmod '$w/out/keylink' 0644; '$TM' utimensat '$w/out/keylink'"
	is "$("$TM" mode "$key")" "$before_key" "$who: ... the key is unchanged"
	# Its content too, where the supervisor answers the opens (the workspace root holds .env:
	# every open goes to it).
	expect "$who" EACCES "the guarded key through that hard link: read" "${LLX[@]}" -- "$TRYOP" read "$w/out/keylink"
	rm -f "$w/out/keylink"

	# Through a symlink in the workspace and through the command's own descriptors.
	rm -f "$w/out/to-outside"
	ln -s "$out_f" "$w/out/to-outside"
	expect "$who" EACCES "through a symlink in the workspace" "${LLX[@]}" -- "$TM" chmod "$w/out/to-outside" 0666
	expect "$who" EACCES "through /proc/self/fd (a magic link)" "${LLX[@]}" -- \
		sh -c "exec 7<'$out_f'; '$TM' chmod /proc/self/fd/7 0666"
	is "$("$TM" mode "$out_f")" "$before_out" "$who: ... still unchanged"

	# Inside the workspace: allowed, and really made.
	f=$w/out/meta-$who
	echo x >"$f"
	[ "$who" = nobody ] && chown 65534:65534 "$f"
	chmod 0644 "$f"
	expect "$who" OK "chmod inside the workspace" "${LLX[@]}" -- "$TM" chmod "$f" 0600
	is "$("$TM" mode "$f" | cut -d' ' -f2)" 0600 "$who: ... and the mode changed"
	expect "$who" OK "fchmod inside the workspace" "${LLX[@]}" -- "$TM" fchmod "$f" 0640
	expect "$who" OK "fchmodat2 on an O_PATH descriptor inside" "${LLX[@]}" -- "$TM" fchmodat-fd "$f" 0644
	expect "$who" OK "chown to oneself inside" "${LLX[@]}" -- "$TM" chown "$f" "$uid" "$gid"
	expect "$who" OK "fchown inside" "${LLX[@]}" -- "$TM" fchown "$f" "$uid" "$gid"
	expect "$who" OK "utimensat inside" "${LLX[@]}" -- "$TM" utimensat "$f"
	is "$("$TM" mode "$f" | cut -d' ' -f5)" 1 "$who: ... and the mtime changed"
	expect "$who" OK "utimes inside" "${LLX[@]}" -- "$TM" utimes "$f"
	expect "$who" OK "futimens inside" "${LLX[@]}" -- "$TM" futimens "$f"
	expect "$who" OK "setxattr inside" "${LLX[@]}" -- "$TM" setxattr "$f" user.confine x
	expect "$who" OK "fsetxattr inside" "${LLX[@]}" -- "$TM" fsetxattr "$f" user.confine y
	expect "$who" OK "removexattr inside" "${LLX[@]}" -- "$TM" removexattr "$f" user.confine
	# The *xattrat calls of Linux 6.13, where the kernel has them.
	if [ "$("$TM" setxattrat "$f" user.probe x)" = OK ]; then
		expect "$who" OK "setxattrat inside" "${LLX[@]}" -- "$TM" setxattrat "$f" user.confine z
		expect "$who" OK "removexattrat inside" "${LLX[@]}" -- "$TM" removexattrat "$f" user.confine
	fi
	expect "$who" OK "chmod of the run's TMPDIR file" "${LLX[@]}" -- \
		sh -c "echo x >\"\$TMPDIR/t\" && '$TM' chmod \"\$TMPDIR/t\" 0600"
	expect "$who" ENOENT "chmod of a missing file inside says ENOENT" "${LLX[@]}" -- "$TM" chmod "$w/out/missing" 0600

	# Protected files inside the workspace.
	expect "$who" EACCES ".env inside the workspace: chmod" "${LLX[@]}" -- "$TM" chmod "$w/.env" 0644
	expect "$who" EACCES ".git/config: chmod" "${LLX[@]}" -- "$TM" chmod "$w/.git/config" 0666
	expect "$who" EACCES ".git/hooks/pre-commit.sample: chmod +x" "${LLX[@]}" -- \
		"$TM" chmod "$w/.git/hooks/pre-commit.sample" 0755
	expect "$who" EACCES ".confine/rules.json: utimensat" "${LLX[@]}" -- "$TM" utimensat "$w/.confine/rules.json"
	# To its own mode: a product that let it through changes nothing for the other processes of
	# the machine, and the answer is still the assertion.
	expect "$who" EACCES "/dev/null (a device the backend grants): chmod" "${LLX[@]}" -- "$TM" chmod /dev/null 0666
	expect "$who" EACCES "/dev/null: utimensat" "${LLX[@]}" -- "$TM" utimensat /dev/null
	rm -f "$out_f" "$w/out/to-outside" "$f"

	# The host's other terminals: a pty the test holds open.
	rm -f "$E/$who/pty.name"
	_as "$who" /usr/bin/python3 -c "
import os, pty, time
m, s = pty.openpty()
open('$E/$who/pty.name.tmp', 'w').write(os.ttyname(s))
os.rename('$E/$who/pty.name.tmp', '$E/$who/pty.name')
time.sleep(60)" &
	bg_pids+=("$!")
	"$TRYOP" waitfile "$E/$who/pty.name" 30 >/dev/null
	pts=$(cat "$E/$who/pty.name")
	expect_host "$who" OK "opening another terminal of the host ($pts)" "$TM" open-tty "$pts"
	expect "$who" EACCES "another terminal of the host ($pts)" "${LLX[@]}" -- "$TM" open-tty "$pts"
	expect "$who" EACCES "the devpts directory cannot be listed" "${LLX[@]}" -- "$TRYOP" readdir /dev/pts
	kill_bg
	rm -f "$E/$who/pty.name"
	# The command's own pseudo-terminals: the terminal side through TIOCGPTPEER (glibc's
	# openpty, which script, python's pty module, tmux and node-pty use), not by its name.
	expect_host "$who" "OK OK" "a pty of its own: TIOCGPTPEER and open by name" "$TM" openpty
	expect "$who" "OK EACCES" "a pty of its own: TIOCGPTPEER works, the name is refused" \
		"${LLX[@]}" -- "$TM" openpty
	expect "$who" "b'hi\r\n'" "python's pty module" "${LLX[@]}" -- /usr/bin/python3 -c "
import os, pty
m, s = pty.openpty()
os.write(s, b'hi\n')
print(os.read(m, 10))"
	expect "$who" "inside script" "script(1) runs its command on a pty of its own" \
		"${LLX[@]}" -- sh -c "script -qc 'echo inside script' /dev/null | tr -d '\\r'"
	if command -v tmux >/dev/null && [ "$LL_ABI" -lt 9 ]; then
		# tmux needs a unix socket, which this backend refuses below ABI 9 (not the pty).
		cx "$who" "${LLX[@]}" -- sh -c "tmux -S \"\$TMPDIR/s\" new-session -d true 2>&1"
		grep -q "Operation not permitted" <<<"$out"
		ok $? "$who: tmux fails at its unix socket (ABI $LL_ABI < 9), as the plan says"
	elif [ "$LL_ABI" -lt 9 ]; then
		skip "tmux is not installed (scripts/install-deps test installs it)"
	fi

	# SysV IPC: a host segment of the same user, with something in it.
	id=$(_as "$who" /usr/bin/python3 -c "
import ctypes
l = ctypes.CDLL(None, use_errno=True)
l.shmat.restype = ctypes.c_void_p
i = l.shmget(0, 4096, 0o1600)
p = l.shmat(i, None, 0)
ctypes.memmove(p, b'host-shm-secret', 15)
print(i)")
	expect_host "$who" "OK host-shm-secret" "attaching a host SysV segment" "$TM" shmat "$id"
	expect "$who" EPERM "shmat of a host SysV segment" "${LLX[@]}" -- "$TM" shmat "$id"
	expect "$who" EPERM "shmget" "${LLX[@]}" -- "$TM" shmget 0x5eed
	expect "$who" EPERM "msgget" "${LLX[@]}" -- "$TM" msgget 0x5eed
	expect "$who" EPERM "semget" "${LLX[@]}" -- "$TM" semget 0x5eed
	ipcrm -m "$id" 2>/dev/null
	# POSIX message queues live on the kernel's internal mqueue mount, whose opens Landlock
	# governs like any file's (no rule reaches it): unchanged by this work, EACCES as before.
	[ "$who" = root ] && expect_host "$who" OK "a POSIX message queue (control)" "$TM" mq-open "/confine-t-$$"
	expect "$who" EACCES "POSIX message queues are as before (Landlock: no rule reaches them)" \
		"${LLX[@]}" -- "$TM" mq-open "/confine-t-$$"
	if [ "$(uname -m)" = x86_64 ]; then
		# The i386 ABI is a foreign architecture: the filter kills the process (SIGSYS).
		cx "$who" "${LLX[@]}" -- "$TM" ipc32
		is "$rc" 159 "$who: the i386 ipc(2) multiplexer kills the process (128+SIGSYS)"
	fi
done

cx "$(echo $RUN_USERS | cut -d' ' -f1)" "${LLX[@]}" --print-plan -- true
grep -q "SysV IPC: .*EPERM" <<<"$out"
ok $? "the plan says SysV IPC is refused"
grep -q "shmget, shmat.* -> EPERM" <<<"$out" && grep -q "chmod, fchmod.*confine's supervisor" <<<"$out"
ok $? "the plan's filter lists the SysV refusal and the supervised metadata calls"
! grep -qx "  /dev/pts # .*" <<<"$out"
ok $? "the plan grants no rule on /dev/pts"
"$FIX/confine" probe 2>/dev/null | grep "^not provided" | tail -1 | grep -q "SysV IPC (every shm\*, msg\*, sem\* call refused with EPERM"
ok $? "probe says SysV IPC is refused on the landlock backend"

done_testing
