#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Terminals (R41, issue 22): with a terminal on stdin, stdout or stderr the command gets a
# pseudo-terminal of its own, relayed by confine.  bash in a real pty (ptydrive.py: every step
# waits for the session's output, never for a fixed time): job control, Ctrl-C ends `sleep 100`
# and not the session, Ctrl-Z, jobs, fg (the job says when it runs again), a window resize seen by stty size and tput, a curses
# program; TIOCSTI and TIOCLINUX inside reach no terminal the user types on (the next line
# typed arrives intact); the command's stdin is not the user's terminal (another device) and
# its controlling terminal is its own pty; the user's terminal is in raw mode while relaying
# and restored at the end, after SIGHUP and after a signal that kills confine.  Host controls:
# the same session without confine (job control works, TIOCSTI injects into the shell's input).
# In a pipeline (`confine run -- CMD | less`) confine reads no key of the terminal: the next
# program does.  --no-tty gives the old descriptors; without any terminal nothing changes;
# --tty gives a pty without a terminal.  As root and as uid 65534, on both backends.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin
command -v python3 >/dev/null || {
	skip "python3 is not installed (scripts/install-deps test installs it)"
	done_testing
}
cp "$FIX/tryk" "$TOP/tests/enforce/ptydrive.py" "$E/bin/"
chmod -R a+rX "$E/bin"
TRYK=$E/bin/tryk
DRIVE=$E/bin/ptydrive.py
BASH_I=(bash --norc --noprofile --noediting -i)

field() { sed -n "s/^$1: //p" <<<"$out"; }

for who in $RUN_USERS; do
	# ---- Host control: the same session straight on the terminal. ----
	hx "$who" python3 "$DRIVE" session "$TRYK" -- "${BASH_I[@]}"
	is "$rc" 0 "$who: control: the session runs on the host"
	[ "$rc" = 0 ] || diag "$err" "$out"
	is "$(field ctrl-c)|$(field ctrl-z)|$(field jobs)|$(field fg)|$(field resize)" \
		"status 130|True|[1]+ Stopped|['status 130', '0']|33 111 111" \
		"$who: control: job control, Ctrl-C, Ctrl-Z, fg and a resize work in bash on a terminal"
	is "$(field tiocsti-fd)" "OK -" \
		"$who: control: TIOCSTI on the shell's own terminal injects into its input (the next line is lost)"

	# ---- The same under confine. ----
	hx "$who" python3 "$DRIVE" session "$TRYK" -- "$FIX/confine" run -- "${BASH_I[@]}"
	is "$rc" 0 "$who: bash -i runs under confine in a real terminal"
	[ "$rc" = 0 ] || diag "$err" "$out"
	[ -n "$(field inner)" ] && [ "$(field inner)" != "$(field outer)" ]
	ok $? "$who: the command's stdin is another terminal than the user's ($(field inner) vs $(field outer))"
	[[ $(field tty) == /dev/pts/* ]] && [ "/dev/$(field ctty)" = "$(field tty)" ]
	ok $? "$who: it is the command's controlling terminal, and ttyname works ($(field tty), $(field ctty))"
	is "$(field tiocsti-tty)|$(field tiocsti-fd)|$(field tioclinux)" "EPERM AFTER|EPERM AFTER|EPERM AFTER" \
		"$who: TIOCSTI (through /dev/tty and fd 0) and TIOCLINUX inside: refused, the next line typed arrives intact"
	is "$(field ctrl-c)" "status 130" "$who: Ctrl-C ends sleep 100 (SIGINT) and the session goes on"
	is "$(field ctrl-z)" True "$who: Ctrl-Z stops the foreground job"
	is "$(field jobs)" "[1]+ Stopped" "$who: jobs lists it"
	is "$(field fg)" "['status 130', '0']" "$who: fg brings it back to the foreground (Ctrl-C reaches it, no job left)"
	is "$(field resize)" "33 111 111" "$who: a resize of the user's terminal is seen by stty size and tput"
	is "$(field curses)" icanon "$who: a curses program starts at that size, reads a key, and gives the mode back"
	is "$(field status)" 7 "$who: the shell's exit status is confine's"
	is "$(field restored)" True "$who: the user's terminal is back in its mode after the run"

	# ---- Raw mode is given back on the exit paths of signals. ----
	for sig in SIGHUP SIGUSR1; do
		hx "$who" python3 "$DRIVE" signal "$sig" -- "$FIX/confine" run -- "${BASH_I[@]}"
		want=129
		[ "$sig" = SIGUSR1 ] && want=-10
		is "$(field raw)|$(field status)|$(field restored)" "True|$want|True" \
			"$who: $sig to confine: the terminal was raw while relaying and is restored after"
	done

	# ---- kill -TSTP from outside: the terminal given back while stopped, raw after fg. ----
	hx "$who" python3 "$DRIVE" stop "$FIX/confine" -- "${BASH_I[@]}"
	is "$(field raw)|$(field stopped-restored)|$(field raw-again)|$(field status)|$(field restored)" \
		"True|True|True|status 4|True" \
		"$who: SIGTSTP to confine: the mode is restored while it is stopped, raw again after fg"
	[ "$rc" = 0 ] || diag "$err" "$out"

	# ---- In a pipeline (stdout not a terminal) confine reads no key: `| less` gets them. ----
	hx "$who" python3 "$DRIVE" pipeline "$FIX/confine" -- "${BASH_I[@]}"
	is "$(field input)|$(field reader)" "tty0 read 1|hello" \
		"$who: confine in a pipeline: the command's stdin is a pty at its end; the next program reads the keys"
	[ "$rc" = 0 ] || diag "$err" "$out"

	# ---- --no-tty: the command gets confine's descriptors, as before R41. ----
	hx "$who" "$TRYK" pty-run "$FIX/confine" run --no-tty -- "$TRYK" tiocsti-tty
	is "$out" ENXIO "$who: --no-tty: no controlling terminal inside (R12 --new-session)"
	hx "$who" "$TRYK" pty-run "$FIX/confine" run -- "$TRYK" tiocsti-tty
	is "$out" EPERM "$who: by default /dev/tty is the command's own pty (TIOCSTI refused by seccomp)"

	# ---- No terminal: nothing changes; --tty: a pty all the same. ----
	expect "$who" "not a tty" "without a terminal the command gets confine's descriptors" -- sh -c 'tty; true'
	hx "$who" sh -c "printf 'abc\n' | '$FIX/confine' run --tty -- sh -c 'test -t 0 && test -t 1 && test -t 2 && echo TTY; read x; echo got \$x'"
	is "$(tr -d '\r' <<<"$out" | grep -v '^abc$' | tr '\n' ' ')" "TTY got abc " \
		"$who: --tty without a terminal: 0, 1 and 2 are a pty; the input is relayed, the end of it too"
done
done_testing
