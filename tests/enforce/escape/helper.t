#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SPEC 3 R17 (THREATS round 2: the helper is a host object).  pid 1 of the sandbox is
# confine-init, a program of the host's run from a descriptor on its installed file.  The
# command must not reach that file or that process: /proc/1/exe, /proc/1/fd, /proc/1/environ
# and ptrace of pid 1 are refused (pid 1 is not dumpable), chmod and touch through /proc/1/exe
# change nothing on the host, and pid 1 holds no descriptor but 0-2.  The control is the same
# access to a process of the command's own (dumpable) inside the same sandbox.  As root and as
# uid 65534.
source "$(dirname "$0")/escape.sh"

# The helper as the sandbox runs it: a copy of the fixture's confine-init, stat'ed before and
# after each hostile run.
helper=$FIX/confine-init
before=$(stat -c '%a %Y %s' "$helper")

for who in $RUN_USERS; do
	# A process of the command's own: `sleep` in the background, then the same accesses.
	own() { # what
		printf '%s' "sleep 30 & p=\$!; $1; kill \$p"
	}
	expect "$who" OK "a dumpable process of the command's own: ptrace works (control)" \
		-- sh -c "$(own "'$TRYK' ptrace \$p")"
	expect "$who" yes "a process of the command's own: /proc/PID/exe readable (control)" \
		-- sh -c "$(own "readlink /proc/\$p/exe >/dev/null && echo yes")"

	expect "$who" EPERM "R17 ptrace of pid 1 (the helper) is refused" -- "$TRYK" ptrace 1
	expect "$who" EACCES "R17 /proc/1/exe cannot be read" -- "$TRYOP" read /proc/1/exe
	expect "$who" no "R17 /proc/1/exe cannot be resolved" \
		-- sh -c 'readlink /proc/1/exe >/dev/null 2>&1 && echo yes || echo no'
	expect "$who" EACCES "R17 /proc/1/environ cannot be read" -- "$TRYOP" read /proc/1/environ
	# Listing /proc/1/fd is a permission check on the directory, which uid 0 passes: then
	# the listing shows that pid 1 holds 0, 1, 2 and, at 3, its status pipe to confine (for
	# the command's exit status) and nothing else (their targets stay unreadable).  uid 65534
	# may not even list it.  (The IPC guard's thread, R36, keeps a table of its own: checked
	# from the host below.)
	cx "$who" --print-plan -- true
	guarded=0
	grep -q '^ipc: FIFO opens' <<<"$out" && guarded=1
	if [ "$who" = root ]; then
		expect "$who" "OK 4" "R17 pid 1 holds descriptors 0-2 and its status pipe only" \
			-- "$TRYOP" readdir /proc/1/fd
		expect "$who" "0 1 2 3" "R17 pid 1 holds descriptors 0-2 and its status pipe only (names)" \
			-- sh -c 'ls /proc/1/fd | sort -n | tr "\n" " " | sed "s/ $//"'
		expect "$who" EACCES "R17 /proc/1/fd/0 cannot be resolved" -- "$TRYOP" stat /proc/1/fd/0
	else
		expect "$who" EACCES "R17 /proc/1/fd cannot be listed" -- "$TRYOP" readdir /proc/1/fd
	fi
	# The class of that listing: the files of /proc/1 the kernel lets pid 1's owner open for
	# writing (task_dump_owner: uid 0 of the namespace pid 1 was executed in, the host's root
	# here).  uid 65534 cannot open them; root of the host is that owner, as for the listing:
	# it opens them and the kernel refuses the value.  Control: the same files of a process
	# of the command's own.
	for f in oom_score_adj clear_refs comm; do
		expect "$who" EINVAL "a process of the command's own: /proc/PID/$f opens for writing (control)" \
			-- sh -c "$(own "'$TRYOP' append /proc/\$p/$f")"
		if [ "$who" = root ]; then
			expect "$who" EINVAL "R17 /proc/1/$f: root of the host is its owner; the value is refused" \
				-- "$TRYOP" append /proc/1/$f
		else
			expect "$who" EACCES "R17 /proc/1/$f cannot be opened for writing" -- "$TRYOP" append /proc/1/$f
		fi
	done
	# One execution of confine-init per spawn, in helper mode and without it: confine, bwrap,
	# confine-init, the command (exec/linux/bwrap/masks.c: why no second one).  Who made the mask of
	# /etc/shadow tells the modes apart: helper mode's hidden files are clones of its file 'e'
	# (/e), bwrap's its 'bindfile's.
	# (LeakSanitizer cannot run under ptrace: in a sanitizer build it is off for confine, and
	# pid 1, which runs with confine's fixed environment, ends with its fatal error, status 1.)
	for mode in helper bwrap; do
		xenv=()
		[ -n "${ASAN_OPTIONS:-}" ] && xenv=("ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0")
		[ "$mode" = bwrap ] && xenv+=(CONFINE_NO_HELPER_MOUNTS=1)
		hx "$who" strace -f -qq -e trace=execve -e signal=none "$FIX/confine" run -- cat /proc/self/mountinfo
		[ -n "${ASAN_OPTIONS:-}" ] && [ "$rc" = 1 ] &&
			grep -q 'LeakSanitizer does not work under ptrace' <<<"$err" && rc=0
		execs=$(grep -E '^(\[pid +[0-9]+\] )?execve\(.*\) = 0$' <<<"$err")
		maker=$(grep ' /etc/shadow ' <<<"$out" | cut -d' ' -f4 | sed 's/^.bindfile.*/bwrap/')
		is "$rc $(wc -l <<<"$execs") $maker" "0 4 $([ "$mode" = helper ] && echo /e || echo bwrap)" \
			"$who: a spawn ($mode mode) executes confine, bwrap, confine-init once and the command ($(grep -o '^[^,]*' <<<"$execs" | tr '\n' ' '))"
	done
	if [ "$guarded" = 1 ] && [ "$(id -u)" = 0 ]; then
		# From the host: pid 1's main thread holds 0-3, the guard's thread its own table: the
		# sandbox's root, its /proc, its own fd directory and the listener, nothing of the
		# host's the command lacks.
		rm -f "$E/helper-go"
		cx_bg "$who" -- "$TRYOP" waitfile "$E/helper-go" 30
		init= gt=
		for ((i = 0; i < 1500; i++)); do
			for b in $(cat /proc/"$BGPID"/task/*/children 2>/dev/null); do
				for c in $(cat /proc/"$b"/task/*/children 2>/dev/null); do
					[ "$(cat /proc/"$c"/comm 2>/dev/null)" = confine-init ] && init=$c
				done
			done
			# Ready once the guard's thread holds the listener.
			for t in $( [ -n "$init" ] && ls /proc/"$init"/task); do
				[ "$t" != "$init" ] && find /proc/"$init"/task/"$t"/fd -lname 'anon_inode:seccomp*' 2>/dev/null | grep -q . && gt=$t
			done
			[ -n "$gt" ] && break
			sleep 0.02
		done
		# pid 1's main thread lets go of what it no longer needs after the guard's thread
		# has started (src/helper/init.c: the status pipe moved to 3, the pty's slave
		# closed), then opens nothing more: its table is read once it has settled, for 30 s
		# at most (a sanitizer build on a busy machine was seen in between).
		for ((i = 0; i < 1500; i++)); do
			got=$(ls /proc/"${init:-0}"/task/"${init:-0}"/fd 2>&1 | sort -n | tr '\n' ' ')
			[ "$got" = "0 1 2 3 " ] && break
			sleep 0.02
		done
		is "$got" "0 1 2 3 " "$who: R17 R36 pid 1's main thread holds 0-2 and its status pipe (seen from the host)"
		got=$(for f in $(ls /proc/"${init:-0}"/task/"${gt:-0}"/fd | sort -n); do readlink /proc/"$init"/task/"$gt"/fd/"$f"; done | tr '\n' '|')
		[[ $got =~ ^/\|/proc\|/proc/1/task/[0-9]+/fd\|anon_inode:seccomp\ notify\|$ ]]
		ok $? "$who: R17 R36 the guard's thread holds /, /proc, its own fd directory and the listener ($got)"
		touch "$E/helper-go"
		wait_pid "$BGPID" 30
	fi
	expect "$who" EPERM "R17 chmod 4777 /proc/1/exe" -- "$TRYK" setid chmod 4777 /proc/1/exe
	expect "$who" EACCES "R17 chmod 0777 /proc/1/exe" -- "$TRYK" setid chmod 0777 /proc/1/exe
	expect "$who" EACCES "R17 touch (open for writing) /proc/1/exe" -- "$TRYOP" append /proc/1/exe
	is "$(stat -c '%a %Y %s' "$helper")" "$before" "$who: the installed confine-init is unchanged"
	# A signal from inside cannot stop pid 1 either: init ignores what it has no handler for.
	expect "$who" "OK" "SIGSTOP to pid 1 is delivered and ignored" \
		-- sh -c "'$TRYK' kill 1 19 >/dev/null; '$TRYK' kill 1 19 >/dev/null; grep -q '^State:.*[RS]' /proc/1/status && echo OK"
done
done_testing
