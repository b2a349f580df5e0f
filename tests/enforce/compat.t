#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What confine does on a kernel or in a container that lacks something (denysys makes the
# system calls fail as an old kernel or a seccomp profile would), and the end of a command that
# ignores the signal asking it to end.  As root and as uid 65534.
#  - seccomp unavailable under policy required: refused with 125, never run without the filter
#    (SPEC 3.1); under policy off it runs (an explicit choice).
#  - no pidfd_open (Linux < 5.3): --timeout still kills the whole sandbox (137), and a signal
#    still ends it after the grace period.
#  - no close_range (Linux < 5.9): still nothing but 0-2 reaches the command (R16).
#  - keyctl blocked (Docker's default profile): the run goes ahead; the key calls stay denied.
#  - R4: SIGTERM, SIGHUP, SIGQUIT or a second SIGINT end the sandbox within the grace period
#    (5 s) even when the command ignores them; one SIGINT alone is the command's to handle.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin
cp "$FIX/denysys" "$E/bin/" && chmod a+rx "$E/bin/denysys"
DENY=$E/bin/denysys
cp "$FIX/tryk" "$E/bin/" && chmod a+rx "$E/bin/tryk"
TRYK=$E/bin/tryk

# cx with confine started under denysys RULES...: cxd WHO "RULES" ARGS...
cxd() {
	local who=$1 rules=$2
	shift 2
	local -a envv
	mapfile -t envv < <(_env "$who")
	# shellcheck disable=SC2086
	out=$(cd "$(ws "$who")" && _as "$who" timeout --foreground -k 5 60 \
		"$DENY" $rules -- env -i "${envv[@]}" "$FIX/confine" run "$@" 2>"$E/err")
	rc=$?
	err=$(cat "$E/err")
}

for who in $RUN_USERS; do
	w=$(ws "$who")
	# seccomp refused by the kernel.
	rm -f "$w/out/ran"
	cxd "$who" "seccomp=ENOSYS prctl:22=EINVAL" -- "$TRYOP" write "$w/out/ran"
	is "$rc" 125 "$who: SPEC 3.1 no seccomp, policy required: refused with 125"
	case $err in *"sandbox unavailable: 'seccomp'"*"hint:"*) ok 0 "$who: the message names seccomp and gives a hint" ;;
	*) ok 1 "$who: the message names seccomp and gives a hint (got: $err)" ;; esac
	[ ! -e "$w/out/ran" ]
	ok $? "$who: nothing ran without the filter"
	cxd "$who" "seccomp=ENOSYS prctl:22=EINVAL" --policy off -- "$TRYOP" write "$w/out/ran"
	is "$out/$rc" "OK/0" "$who: no seccomp, policy off: runs (an explicit choice)"
	rm -f "$w/out/ran"

	# No pidfd_open: --timeout.
	marker=31.$$$RANDOM
	start=$SECONDS
	cxd "$who" "pidfd_open=ENOSYS" --timeout 1 -- "$TRYOP" sleep "$marker"
	is "$rc" 137 "$who: no pidfd_open: --timeout 1 still kills the sandbox (137)"
	ok $(((SECONDS - start) < 30 ? 0 : 1)) "$who: no pidfd_open: it ended long before the command would have"
	wait_gone "$TRYOP sleep $marker" 5
	ok $? "$who: no pidfd_open: nothing of the sandbox is left"

	# No close_range: only 0-2 reach the command (the control: 3 is open in the caller).
	hx "$who" sh -c "exec 3</etc/hostname; '$TRYOP' readfd 3"
	is "$(_got)" OK "$who: descriptor 3 is open on the host (control)"
	cxd "$who" "close_range=ENOSYS" -- "$TRYOP" readfd 3 3</etc/hostname
	is "$out" EBADF "$who: R16 no close_range: descriptor 3 of the caller does not reach the command"
	cxd "$who" "close_range=ENOSYS" -- "$TRYOP" readfd 4 4</etc/hostname
	is "$out" EBADF "$who: R16 no close_range: descriptor 4 of the caller does not reach the command"

	# No openat2 (Linux < 5.6): the paths confine opens are walked one component at a time
	# with O_NOFOLLOW (util/nofollow.h), and the plan says so.
	cxd "$who" "openat2=ENOSYS" -- "$TRYOP" write "$w/out/ran2"
	is "$out/$rc" "OK/0" "$who: no openat2: the run works"
	cxd "$who" "openat2=ENOSYS" --print-plan -- true
	case $out in *"openat2 unavailable (Linux < 5.6): paths are opened one component at a time"*) ok 0 "$who: no openat2: the plan says that paths are walked component by component" ;;
	*) ok 1 "$who: no openat2: the plan says that paths are walked component by component" ;; esac
	rm -f "$w/out/ran2"

	# keyctl blocked by an outer profile: the run goes ahead.
	cxd "$who" "keyctl=EPERM" -- "$TRYOP" exit 0
	is "$rc" 0 "$who: keyctl blocked outside: the sandbox still starts"

	# Helper mode (confine-init makes the masks with the mount API) needs Linux 5.12.  Without
	# the mount API (ENOSYS), with a profile that refuses it (EPERM), or with a call that
	# fails only inside the helper (EINVAL: confine launches again), bwrap makes every mount:
	# the same masks hold, and the mount table shows who made them (the helper's hidden
	# files are clones of one file 'e' of its own tmpfs; bwrap's are its 'bindfile's).
	[ -n "${CONFINE_TEST_BACKEND:-}" ] && continue
	z=0000000000000000
	probe="'$TRYOP' read /etc/shadow; '$TRYOP' write /proc/sys/kernel/core_pattern; '$TRYOP' read /proc/keys; '$TRYOP' readdir /proc/acpi; '$TRYK' caps-all; grep ' /etc/shadow ' /proc/self/mountinfo | cut -d' ' -f4 | sed 's/^.bindfile.*/bwrap/'"
	for rules in "" "open_tree=ENOSYS" "fsopen=EPERM" "mount_setattr=ENOSYS" "openat2=ENOSYS" "fsconfig=EINVAL" "move_mount=EINVAL"; do
		maker=bwrap
		if [ -z "$rules" ]; then
			maker=/e
			out=$(cd "$w" && _as "$who" env -i $(_env "$who") "$FIX/confine" run -- sh -c "$probe" 2>"$E/err")
			rc=$?
		else
			cxd "$who" "$rules" -- sh -c "$probe"
		fi
		is "$(echo $out)/$rc" "EACCES EROFS EACCES EACCES $z $z $z $z $z $maker/0" \
			"$who: ${rules:-mount API present}: masks hold, no capability left, made by $maker"
	done
done

# R4: the grace period.  The command traps the signal and carries on.  The cases run at the
# same time (each waits out a grace period of 5 s, or 8 s to show that one SIGINT does not end
# the sandbox), each with its own files, and each times itself: the moment its last signal is
# sent and the moment its confine ends (written by the shell that waits for it), so a busy
# machine that makes this script look late at one case changes no other case's figure.
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# bg_under WHO TAG N PREFIX(N words) CONFINE-RUN-ARGS: confine in the background, started
# through PREFIX (nothing, or denysys RULES --), output in $E/bg-TAG.out and .err; its pid
# (every wrapper execs) in $E/bg-TAG.pid, and once it ended "STATUS END_MS" in $E/bg-TAG.end.
bg_under() {
	local who=$1 tag=$2 n=$3
	shift 3
	local -a pre=("${@:1:n}") envv as=()
	shift "$n"
	mapfile -t envv < <(_env "$who")
	[ "$who" = nobody ] && as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	rm -f "$E/bg-$tag.pid" "$E/bg-$tag.end"
	(
		cd "$(ws "$who")" || exit 1
		"${as[@]}" "${pre[@]}" env -i "${envv[@]}" "$FIX/confine" run "$@" \
			>"$E/bg-$tag.out" 2>"$E/bg-$tag.err" </dev/null &
		echo $! >"$E/bg-$tag.pid"
		wait $!
		echo "$? $(now_ms)" >"$E/bg-$tag.end.tmp"
		mv "$E/bg-$tag.end.tmp" "$E/bg-$tag.end"
	) &
	bg_pids+=("$!")
	local i=0
	while [ ! -s "$E/bg-$tag.pid" ] && [ "$i" -lt 3000 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	BGPID=$(cat "$E/bg-$tag.pid")
	bg_pids+=("$BGPID")
}
# ended TAG SECONDS: waits until the case's confine has ended (0), at most SECONDS (1); sets
# END_RC and END_MS.
ended() {
	local i n=$(($2 * 50))
	END_RC=timeout END_MS=
	for ((i = 0; i < n; i++)); do
		if [ -s "$E/bg-$1.end" ]; then
			read -r END_RC END_MS <"$E/bg-$1.end"
			return 0
		fi
		sleep 0.02
	done
	return 1
}

cases="TERM:TERM HUP:HUP INT:INT,INT INT:INT TERM:TERM:nopidfd"
# Every user's cases at once: each waits out a grace period of its own.  The trap files are in
# ws/out, which the landlock backend does not split (a new file at the workspace root is
# refused there).
declare -A pid=() mark=() started=() tsig=()
ids=()
for who in $RUN_USERS; do
	w=$(ws "$who")
	k=0
	for case in $cases; do
		k=$((k + 1))
		id=$who.$k
		ids+=("$id")
		IFS=: read -r trap sigs mode <<<"$case"
		mark[$id]=0.2$k$$$RANDOM
		pre=()
		[ "$mode" = nopidfd ] && pre=("$DENY" pidfd_open=ENOSYS --)
		rm -f "$w/out/trapped$k"
		bg_under "$who" "$id" "${#pre[@]}" "${pre[@]}" -- sh -c \
			"trap 'echo trapped >>$w/out/trapped$k' $trap; while :; do '$TRYOP' sleep ${mark[$id]}; done"
		pid[$id]=$BGPID
	done
done
# case_of ID: sets who, k, w, trap, sigs, mode
case_of() {
	who=${1%.*} k=${1##*.}
	w=$(ws "$who")
	IFS=: read -r trap sigs mode <<<"$(echo $cases | tr ' ' '\n' | sed -n "${k}p")"
}
for id in "${ids[@]}"; do
	case_of "$id"
	started[$id]=0
	if wait_for_proc "$TRYOP sleep ${mark[$id]}" 60; then
		started[$id]=1
	else
		ended "$id" 5
		ok 1 "$who: $trap:$sigs${mode:+:$mode}: the command never started ($END_RC: $(head -c 300 "$E/bg-$id.err"))"
	fi
done
for id in "${ids[@]}"; do
	[ "${started[$id]}" = 1 ] || continue
	case_of "$id"
	for s in ${sigs//,/ }; do
		rm -f "$w/out/trapped$k"
		# The grace period starts at the last signal: the case's own clock.
		tsig[$id]=$(now_ms)
		kill -s "$s" "${pid[$id]}"
		# the command's trap has run before the next signal goes
		for ((i = 0; i < 3000; i++)); do
			[ -s "$w/out/trapped$k" ] && break
			sleep 0.02
		done
	done
	ok "$([ -s "$w/out/trapped$k" ] && echo 0 || echo 1)" "$who: $trap:$sigs${mode:+:$mode}: the command caught SIG${sigs##*,}"
done
for id in "${ids[@]}"; do
	[ "${started[$id]}" = 1 ] || continue
	case_of "$id"
	c=$trap:$sigs${mode:+:$mode}
	if [ "$sigs" = INT ]; then
		# One SIGINT: the command handled it and goes on; confine must not kill it, not even
		# well past the grace period (8 s after the signal, by the case's own clock).
		left=$((tsig[$id] + 8000 - $(now_ms)))
		[ "$left" -gt 0 ] && sleep "$((left / 1000)).$(printf '%03d' $((left % 1000)))"
		[ ! -e "$E/bg-$id.end" ] && kill -0 "${pid[$id]}" 2>/dev/null
		ok $? "$who: R4 one SIGINT that the command handles: the sandbox goes on (8 s after it)"
		kill -KILL "${pid[$id]}" 2>/dev/null
		ended "$id" 30
		wait_gone "$TRYOP sleep ${mark[$id]}" 10
		ok $? "$who: ... and it dies with confine (no orphan)"
		continue
	fi
	ended "$id" 60
	is "$END_RC" 137 "$who: R4 SIG${sigs//,/ + SIG} caught by the command${mode:+ ($mode)}: the sandbox is killed after the grace period (137)"
	el=$((END_MS - tsig[$id]))
	ok $((el >= 4500 && el < 25000 ? 0 : 1)) "$who: $c: killed about 5 s after the signal (took ${el} ms by its own clock)"
	grep -q "command did not end" "$E/bg-$id.err"
	ok $? "$who: $c: confine says why it killed the sandbox"
	wait_gone "$TRYOP sleep ${mark[$id]}" 10
	ok $? "$who: $c: nothing of the sandbox is left"
done
kill_bg
done_testing
