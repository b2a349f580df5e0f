#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# TIOCSTI (CVE-2017-5226): the command must not push keystrokes into the user's terminal,
# neither through /dev/tty nor through an inherited terminal descriptor, nor with a request
# whose upper 32 bits are set (the kernel drops them, so it is still TIOCSTI).  `tryk pty-run`
# gives the command a fresh pty as controlling terminal and as fd 0, like an interactive shell.
# R41: with a terminal on stdin the command gets a pty of its own (terminal.t), which is then
# the terminal behind /dev/tty; with --no-tty, --new-session leaves the command without a
# controlling terminal (ENXIO on /dev/tty).  The seccomp filter (SPEC 3.1, R17) answers EPERM
# even on a terminal the command controls, which the last cases build inside the sandbox.  As root and as uid 65534.
source "$(dirname "$0")/escape.sh"

for who in $RUN_USERS; do
	# Host controls: on its own controlling terminal TIOCSTI works, unless the kernel was
	# told to refuse it to everyone without CAP_SYS_ADMIN (dev.tty.legacy_tiocsti=0, 6.2+).
	host=OK
	[ "$who" != root ] && sysctl_is dev/tty/legacy_tiocsti 0 && host=EPERM
	for op in "tiocsti-fd 0" "tiocsti-high 0" tiocsti-tty; do
		hx "$who" "$TRYK" pty-run "$TRYK" $op
		is "$(got)" "$host" "$who: $op on the controlling pty (host control, no confine)"
	done

	hx "$who" "$TRYK" pty-run "$FIX/confine" run -- "$TRYK" tiocsti-fd 0
	is "$(got)" EPERM "$who: TIOCSTI on the inherited pty (fd 0) is denied"
	hx "$who" "$TRYK" pty-run "$FIX/confine" run -- "$TRYK" tiocsti-high 0
	is "$(got)" EPERM "$who: TIOCSTI with the upper 32 bits set on the inherited pty is denied"
	hx "$who" "$TRYK" pty-run "$FIX/confine" run -- "$TRYK" tiocsti-tty
	is "$(got)" EPERM "$who: R41: /dev/tty is the command's own pty, and TIOCSTI on it is refused"
	hx "$who" "$TRYK" pty-run "$FIX/confine" run --no-tty -- "$TRYK" tiocsti-tty
	is "$(got)" ENXIO "$who: R12 --new-session (--no-tty): /dev/tty has no terminal behind it"
	expect "$who" ENXIO "R12: /dev/tty without a terminal on stdin" -- "$TRYK" tiocsti-tty

	# Inside, on a pty of the sandbox's own that the command makes its controlling terminal,
	# the kernel would allow TIOCSTI: only the filter stops it.
	expect "$who" EPERM "R17 seccomp: TIOCSTI on a controlling pty inside the sandbox" \
		-- "$TRYK" pty-run "$TRYK" tiocsti-fd 0
	expect "$who" EPERM "R17 seccomp: TIOCSTI with the upper 32 bits set, inside" \
		-- "$TRYK" pty-run "$TRYK" tiocsti-high 0
	expect "$who" EPERM "R17 seccomp: TIOCSTI through /dev/tty of a pty inside" \
		-- "$TRYK" pty-run "$TRYK" tiocsti-tty
done

done_testing
