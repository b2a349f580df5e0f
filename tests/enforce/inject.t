#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Read-only file injection (SPEC 6, R21), for real, as root and as uid 65534:
#  - the command reads exactly the injected bytes (env-pointer, fixed path in /tmp, over an
#    existing file of /etc, over an existing file of the workspace; 1 MiB and 8 MiB of random
#    bytes);
#  - writing, appending, truncating, removing, moving over, moving away, chmod, remounting
#    read-write, mounting over and unmounting the injected file, and renaming its directory,
#    all fail with their exact errno, and the content is unchanged afterwards; the controls
#    (the same operations on an ordinary file beside it) succeed;
#  - a host process rewriting the source file after confine read it changes nothing;
#  - no file of the injection exists on the host during or after the run (/tmp, /var/tmp,
#    /dev/shm, the workspace and the home searched for the content), the host's /etc file and
#    the workspace file are unchanged, nothing is created where bwrap would need a mount point;
#  - the pointer variable wins over --env and the inherited environment (SPEC 5);
#  - /etc/<missing dir>/x.toml and a missing file in the workspace are refused (125), naming
#    the path, and leave nothing behind.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin

# holding TEXT STAMP: the files of the places confine could write to (the temp roots, the
# workspace, the home) changed since STAMP that hold TEXT.  Only those changed since: a file
# confine wrote is among them, and the content of every other file of a shared /var/tmp is
# not worth reading on every run.
holding() {
	find /tmp /var/tmp /dev/shm "$w" "$h" -xdev -type f -cnewer "$2" -print0 2>/dev/null |
		xargs -0r grep -lsF -- "$1" 2>/dev/null
}

if ! command -v b3sum >/dev/null; then
	skip "b3sum is not installed (scripts/install-deps test installs it)"
	done_testing
fi
b3() { b3sum --no-names "$1"; }

# The landlock backend has no mount namespace to put an injection in: it refuses the run with a
# clear error, never a pointer to a file that is not there (README, SPEC 6).
if [ "$LL" = 1 ]; then
	for who in $RUN_USERS; do
		w=$(ws "$who")
		echo content >"$E/src-$who" && chmod 0644 "$E/src-$who"
		rm -f "$w/out/ran"
		cx "$who" --inject-env "POLICY=$E/src-$who" -- "$TRYOP" write "$w/out/ran"
		is "$rc" 125 "$who: landlock: a run with an injection is refused (125)"
		grep -q "read-only file injection refused: 'landlock'" <<<"$err" && grep -q '^hint: use the bwrap backend' <<<"$err"
		ok $? "$who: ... saying why, with a hint"
		[ ! -e "$w/out/ran" ]
		ok $? "$who: ... and the command did not run"
	done
	done_testing
fi

# The operations, each on its own line, in one sandbox run: P is the injected file, D its
# directory, SIB a path in D's parent (for renaming D), OVER an ordinary file to move over P.
cat >"$E/bin/inject-ops" <<EOF
#!/bin/sh
P=\$1 D=\$(dirname "\$1") OVER=\$2
t=$TRYOP
\$t write "\$P"
\$t append "\$P"
\$t truncate "\$P"
\$t unlink "\$P"
\$t rename "\$OVER" "\$P"
\$t rename "\$P" "\$P.moved"
\$t chmod "\$P" 0666
\$t remount-rw "\$P"
\$t mount-tmpfs "\$D"
\$t umount "\$P"
\$t rename "\$D" "\$D.moved"
\$t statmode "\$P"
b3sum --no-names "\$P"
EOF
chmod 0755 "$E/bin/inject-ops"
OPS=$E/bin/inject-ops
op_names=(write append truncate unlink "mv over" "mv away" chmod "remount rw" "mount over"
	umount "rename its directory" mode "content afterwards")

# check_ops WHO DESC "want..." -- confine-args...: runs inject-ops and checks each line.
check_ops() {
	local who=$1 desc=$2
	shift 2
	local -a want=()
	while [ "$1" != -- ]; do
		want+=("$1")
		shift
	done
	shift
	cx "$who" "$@"
	local -a got
	mapfile -t got <<<"$out"
	is "$rc" 0 "$who: $desc: the run"
	[ "$rc" = 0 ] || diag "stderr: $err"
	local i
	for i in "${!want[@]}"; do
		is "${got[$i]:-}" "${want[$i]}" "$who: R21 $desc: ${op_names[$i]}"
	done
}

# An existing, regular file of /etc to inject over (the host's must stay as it is).
etc_file=
for f in /etc/hostname /etc/debian_version /etc/passwd; do
	if [ -f "$f" ] && [ ! -L "$f" ]; then
		etc_file=$f
		break
	fi
done

mkdir -m 0755 "$E/src"
for who in $RUN_USERS; do
	w=$(ws "$who")
	h=$(home "$who")
	src=$E/src/$who.policy
	printf 'managed policy for %s\n' "$who" >"$src"
	chmod 0644 "$src"
	sum=$(b3 "$src")

	# --- exact bytes -----------------------------------------------------------------------
	expect "$who" "OK /tmp/.confine-inject/MY_SETTINGS" "R21 env-pointer: the variable names the file" \
		--inject-env MY_SETTINGS="$src" -- "$TRYOP" getenv MY_SETTINGS
	expect "$who" "$sum" "R21 env-pointer: the command reads exactly the bytes" \
		--inject-env MY_SETTINGS="$src" -- sh -c 'b3sum --no-names "$MY_SETTINGS"'
	expect "$who" "OK $(cat "$src")" "R21 env-pointer: the content" \
		--inject-env MY_SETTINGS="$src" -- sh -c "exec $TRYOP cat \"\$MY_SETTINGS\""
	tdir=/tmp/confine-inject-t$$-$who
	expect "$who" "$sum" "R21 fixed path in the private /tmp: exactly the bytes" \
		--inject-path "$tdir/app/settings.toml=$src" -- b3sum --no-names "$tdir/app/settings.toml"
	for size in 1048576 8388608; do
		head -c "$size" /dev/urandom >"$E/src/$who.bin"
		chmod 0644 "$E/src/$who.bin"
		expect "$who" "$(b3 "$E/src/$who.bin")" "R21 $size random bytes: exactly the bytes" \
			--inject-env BLOB="$E/src/$who.bin" -- sh -c 'b3sum --no-names "$BLOB"'
	done
	rm -f "$E/src/$who.bin"
	printf '' >"$E/src/$who.empty"
	chmod 0644 "$E/src/$who.empty"
	expect "$who" "OK 0" "R21 empty content: an empty file" \
		--inject-env EMPTY="$E/src/$who.empty" -- sh -c "exec stat -c 'OK %s' \"\$EMPTY\""

	# --- nothing can change it -------------------------------------------------------------
	# The controls first: the same operations on an ordinary file where the command may
	# write succeed, so a failure below is the injection's protection, not the tool.
	echo plain >"$w/plain.txt" && echo over >"$w/over.txt"
	[ "$who" = nobody ] && chown 65534:65534 "$w/plain.txt" "$w/over.txt"
	cx "$who" -- sh -c "$TRYOP write '$w/plain.txt'; $TRYOP chmod '$w/plain.txt' 0600; $TRYOP rename '$w/over.txt' '$w/plain.txt'; $TRYOP unlink '$w/plain.txt'"
	is "$(echo $out)" "OK OK OK OK" "$who: control: write, chmod, mv over and rm of an ordinary workspace file succeed"

	# env-pointer file: in a read-only tmpfs of its own in the private /tmp.
	check_ops "$who" "env-pointer file" EROFS EACCES EACCES EROFS EXDEV EROFS EROFS EPERM EPERM \
		EPERM EBUSY "OK 0444" "$sum" -- \
		--inject-env MY_SETTINGS="$src" -- sh -c 'echo x >/tmp/over; exec '"$OPS"' "$MY_SETTINGS" /tmp/over'
	# fixed path in /tmp: its directory is a read-only tmpfs too.
	check_ops "$who" "fixed path in /tmp" EROFS EACCES EACCES EROFS EXDEV EROFS EROFS EPERM \
		EPERM EPERM EROFS "OK 0444" "$sum" -- \
		--inject-path "$tdir/app/settings.toml=$src" -- sh -c "echo x >/tmp/over; exec $OPS $tdir/app/settings.toml /tmp/over"
	ok "$([ ! -e "$tdir" ]; echo $?)" "$who: R21 fixed path in /tmp: nothing at $tdir on the host"
	# Its topmost new directory sits in the writable /tmp: a mount of its own, not renamable.
	expect "$who" "EBUSY" "R21 fixed path in /tmp: the new directory in /tmp cannot be renamed" \
		--inject-path "$tdir/app/settings.toml=$src" -- "$TRYOP" rename "$tdir" /tmp/moved
	expect "$who" "OK" "control: a directory of /tmp can be renamed" \
		-- sh -c "mkdir $tdir && exec $TRYOP rename $tdir /tmp/moved"

	# directly in the writable /tmp: a read-only mount of its own (bwrap made its mount point
	# in the private tmpfs).  Mounting over /tmp: EPERM; renaming /tmp: EROFS (in /).
	check_ops "$who" "fixed path directly in /tmp" EROFS EACCES EACCES EBUSY EBUSY EBUSY EROFS \
		EPERM EPERM EPERM EROFS "OK 0444" "$sum" -- \
		--inject-path "/tmp/direct-$who.toml=$src" -- sh -c "echo x >/tmp/over; exec $OPS /tmp/direct-$who.toml /tmp/over"
	ok "$([ ! -e "/tmp/direct-$who.toml" ]; echo $?)" "$who: R21 fixed path directly in /tmp: nothing on the host"

	# over an existing file of the workspace: the file is a mount point in a directory that
	# is bound onto itself; the command can write beside it but not move anything over or away.
	mkdir -p "$w/.codex"
	echo "host version" >"$w/.codex/config.toml"
	[ "$who" = nobody ] && chown -R 65534:65534 "$w/.codex"
	host_sum=$(b3 "$w/.codex/config.toml")
	check_ops "$who" "fixed path over a workspace file" EROFS EACCES EACCES EBUSY EBUSY EBUSY \
		EROFS EPERM EPERM EPERM EBUSY "OK 0444" "$sum" -- \
		--inject-path "$w/.codex/config.toml=$src" -- sh -c "echo evil >'$w/.codex/evil'; exec $OPS '$w/.codex/config.toml' '$w/.codex/evil'"
	is "$(b3 "$w/.codex/config.toml")" "$host_sum" "$who: R21 the workspace file on the host is unchanged"
	rm -f "$w/.codex/evil"
	is "$(ls -A "$w/.codex" | tr '\n' ' ')" "config.toml " "$who: R21 nothing else appeared in the workspace directory"

	# over an existing file of /etc.
	if [ -n "$etc_file" ]; then
		etc_sum=$(b3 "$etc_file")
		check_ops "$who" "fixed path over $etc_file" EROFS EACCES EACCES EROFS EXDEV EROFS \
			EROFS EPERM EPERM EPERM EROFS "OK 0444" "$sum" -- \
			--inject-path "$etc_file=$src" -- sh -c "echo x >/tmp/over; exec $OPS $etc_file /tmp/over"
		is "$(b3 "$etc_file")" "$etc_sum" "$who: R21 $etc_file on the host is unchanged"
	else
		skip "no regular file in /etc to inject over"
	fi

	# The sealed memfds stay with confine: the command holds no descriptor of them.
	expect "$who" "0" "R21 the command inherits no memfd" --inject-env MY_SETTINGS="$src" \
		-- sh -c 'ls -l /proc/self/fd/ | grep -c memfd; true'

	# --- the variable wins (SPEC 5) ---------------------------------------------------------
	xenv=(MY_SETTINGS=/inherited)
	expect "$who" "OK /tmp/.confine-inject/MY_SETTINGS" "R21 the pointer wins over --env and the inherited value" \
		--env MY_SETTINGS=/from-env --inject-env MY_SETTINGS="$src" -- "$TRYOP" getenv MY_SETTINGS
	expect "$who" "OK /tmp/.confine-inject/MY_SETTINGS" "R21 the pointer is set under --clearenv too" \
		--clearenv --inject-env MY_SETTINGS="$src" -- "$TRYOP" getenv MY_SETTINGS
	expect "$who" "OK /tmp/.confine-inject/MY_SETTINGS" "R21 --unset-env does not remove the pointer" \
		--unset-env 'MY_*' --inject-env MY_SETTINGS="$src" -- "$TRYOP" getenv MY_SETTINGS

	# --- the host rewrites the source after confine read it; nothing on the host ----------
	marker="marker-$who-$RANDOM$RANDOM$RANDOM"
	# Whatever confine could write holds a change time after this (ctime cannot be set back).
	stamp=$E/inject-stamp-$who
	touch "$stamp"
	printf 'policy %s\n' "$marker" >"$src"
	sum=$(b3 "$src")
	rm -f "$w/ready" "$w/go"
	cx_bg "$who" --inject-env MY_SETTINGS="$src" --inject-path "$tdir/app/settings.toml=$src" \
		-- sh -c "touch '$w/ready'; while [ ! -e '$w/go' ]; do sleep 0.02; done; b3sum --no-names \"\$MY_SETTINGS\" $tdir/app/settings.toml"
	for ((i = 0; i < 1500; i++)); do
		[ -e "$w/ready" ] && break
		sleep 0.02
	done
	ok "$([ -e "$w/ready" ]; echo $?)" "$who: the command started"
	# The host now changes the source in place and by replacing it.
	printf 'evil rewrite\n' >"$src"
	printf 'evil replacement\n' >"$src.new" && mv -f "$src.new" "$src"
	# During the run: no file anywhere in the searched places holds the injected content.
	found=$(holding "$marker" "$stamp")
	is "$found" "" "$who: R21 during the run no file on the host holds the injected content"
	ok "$([ ! -e "$tdir" ]; echo $?)" "$who: R21 during the run nothing exists at the fixed path's place on the host"
	touch "$w/go"
	wait_pid "$BGPID" 60
	is "$WAITRC" 0 "$who: the run"
	is "$(cat "$E/bg.out" | tr '\n' ' ')" "$sum $sum " "$who: R21 the command read what confine read, not the host's rewrite"
	found=$(holding "$marker" "$stamp")
	is "$found" "" "$who: R21 after the run no file on the host holds the injected content"
	found=$(find /tmp /var/tmp /dev/shm "$w" "$h" -xdev \( -name '.confine-inject' -o -name 'bindfile*' -o -name MY_SETTINGS \) 2>/dev/null)
	is "$found" "" "$who: R21 no injection directory, bwrap copy or env-pointer file on the host"
	rm -f "$w/ready" "$w/go"

	# --- where a mount point would have to be created on the host: refused -----------------
	missing=/etc/confine-missing-$$-$who
	cx "$who" --inject-path "$missing/x.toml=$src" -- true
	is "$rc" 125 "$who: R21 /etc/<missing dir>/x.toml is refused (125)"
	[[ $err == *"its parent '$missing' does not exist"* ]]
	ok $? "$who: R21 ... the message names the missing parent ($err)"
	ok "$([ ! -e "$missing" ]; echo $?)" "$who: R21 ... and nothing was created in /etc"
	cx "$who" --inject-path "$w/new-dir/x.toml=$src" -- true
	is "$rc" 125 "$who: R21 a missing parent in the workspace is refused (125)"
	ok "$([ ! -e "$w/new-dir" ]; echo $?)" "$who: R21 ... nothing created in the workspace"
	cx "$who" --inject-path "$w/.codex/missing.toml=$src" -- true
	is "$rc" 125 "$who: R21 a missing file in the workspace is refused (125)"
	[[ $err == *"'$w/.codex/missing.toml'"*"mount point on the host"* ]]
	ok $? "$who: R21 ... the message names it and says why ($err)"
	ok "$([ ! -e "$w/.codex/missing.toml" ]; echo $?)" "$who: R21 ... and no mount point appeared on the host"

	# --- policy off: refused, nothing runs -------------------------------------------------
	rm -f "$w/ran"
	cx "$who" --policy off --inject-env MY_SETTINGS="$src" -- touch "$w/ran"
	is "$rc" 125 "$who: R21 policy off with an injection is refused (125)"
	ok "$([ ! -e "$w/ran" ]; echo $?)" "$who: R21 ... and the command did not run"
	rm -rf "$w/.codex"
done
done_testing
