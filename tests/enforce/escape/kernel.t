#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Kernel surface a sandboxed command could use to escalate (THREATS.md "Environment,
# descriptors, kernel"): io_uring, perf_event_open, bpf, userfaultfd, a nested user namespace
# (unshare and clone with CLONE_NEWUSER), the new mount API, and clone3, which the filter
# answers with ENOSYS so that libc falls back to clone.  Every case is denied by the seccomp
# filter (SPEC 3.1, R17) with its exact errno; the host controls show that each call works, or
# what the host itself answers, outside.  As root and as uid 65534.
source "$(dirname "$0")/escape.sh"

# What the host answers to OP for WHO, from the sysctls that decide it; "" when unknown.
host_want() { # who op
	local who=$1 op=$2
	if [ "$who" = root ]; then
		echo OK
		return
	fi
	case $op in
	io_uring)
		if sysctl_is kernel/io_uring_disabled 0 || [ ! -e /proc/sys/kernel/io_uring_disabled ]; then
			echo OK
		elif sysctl_is kernel/io_uring_disabled 2; then
			echo EPERM
		fi
		;;
	perf)
		# A software clock on oneself, user space only: allowed up to paranoid 2; Debian's
		# paranoid 3 refuses every unprivileged perf_event_open with EACCES.
		local p
		p=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)
		if [ -n "$p" ] && [ "$p" -le 2 ]; then
			echo OK
		elif [ -n "$p" ]; then
			echo EACCES
		fi
		;;
	bpf)
		if sysctl_is kernel/unprivileged_bpf_disabled 0; then
			echo OK
		else
			echo EPERM
		fi
		;;
	userfaultfd) echo OK ;; # UFFD_USER_MODE_ONLY needs no privilege (Linux 5.11)
	unshare-user | clone-newuser) echo OK ;; # userns_ok held, or nobody would not run
	clone3 | open_tree) echo OK ;;
	fsopen) echo EPERM ;; # CAP_SYS_ADMIN over the mount namespace
	esac
}

ops="io_uring perf bpf userfaultfd unshare-user clone-newuser fsopen open_tree clone3"
for who in $RUN_USERS; do
	for op in $ops; do
		want=$(host_want "$who" "$op")
		if [ -n "$want" ]; then
			expect_host "$who" "$want" "$op" "$TRYK" "$op"
		else
			skip "$who: $op: this host's sysctls give no known answer for the control"
		fi
		inside=EPERM
		[ "$op" = clone3 ] && inside=ENOSYS
		expect "$who" "$inside" "R17 seccomp: $op" -- "$TRYK" "$op"
	done
	# The filter alone, without the sandbox's missing privileges (the suite's own gap: some of
	# these calls fail on the host too, so the checks above could not tell a missing filter
	# entry).  In a user and mount namespace of the caller's own, every call but bpf succeeds
	# without the filter and is refused with it; bpf needs the host's CAP_BPF, so root runs
	# that control on the host (the filter program is the same for every user).
	for op in $ops; do
		want=EPERM
		[ "$op" = clone3 ] && want=ENOSYS
		if [ "$op" = bpf ]; then
			[ "$who" = root ] || continue
			hx "$who" "$TRYK" "$op"
			is "$(got)" OK "$who: $op succeeds without the filter (host control)"
			hx "$who" "$WITHFILTER" "$TRYK" "$op"
			is "$(got)" "$want" "$who: R17 confine's filter alone refuses $op"
			continue
		fi
		hx "$who" unshare -Urm "$TRYK" "$op"
		is "$(got)" OK "$who: $op succeeds in a namespace of its own without the filter (control)"
		hx "$who" unshare -Urm "$WITHFILTER" "$TRYK" "$op"
		is "$(got)" "$want" "$who: R17 confine's filter alone refuses $op"
	done
	# clone3 answering ENOSYS must not break programs: glibc falls back to clone for threads
	# and posix_spawn, which sh and every tool use.
	expect "$who" "OK" "R17: programs still fork and spawn under the filter" \
		-- /bin/sh -c '/bin/true && echo OK'
done

done_testing
