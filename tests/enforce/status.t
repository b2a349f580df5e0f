#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Exit status (R3): the command's own, 128+N on signal N, 126 not executable, 127 not found,
# 125 when confine refuses (invalid arguments, R1 workspaces, R6 unreadable rule file, R10 a
# workspace granting itself the home); signal forwarding (R4); --print-plan runs nothing.
# As root and as uid 65534.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin

n=0
for who in $RUN_USERS; do
	h=$(home "$who")
	w=$(ws "$who")
	n=$((n + 1))

	# --- 10. the command's status, and death by signal ---
	expect_rc "$who" 0 "R3 sh -c 'exit 0' -> 0" -- /bin/sh -c 'exit 0'
	expect_rc "$who" 3 "R3 sh -c 'exit 3' -> 3" -- /bin/sh -c 'exit 3'
	expect_rc "$who" 7 "R3 tryop exit 7 -> 7" -- "$TRYOP" exit 7
	expect_rc "$who" 255 "R3 tryop exit 255 -> 255" -- "$TRYOP" exit 255
	expect_rc "$who" 0 "R3 /bin/true -> 0" -- /bin/true
	expect_rc "$who" 1 "R3 /bin/false -> 1" -- /bin/false
	expect_rc "$who" 137 "R3 killed by SIGKILL -> 137" -- "$TRYOP" selfkill 9
	expect_rc "$who" 143 "R3 killed by SIGTERM -> 143" -- "$TRYOP" selfkill 15
	expect_rc "$who" 134 "R3 killed by SIGABRT -> 134" -- "$TRYOP" selfkill 6
	expect_rc "$who" 129 "R3 killed by SIGHUP -> 129" -- "$TRYOP" selfkill 1
	expect_rc "$who" 127 "R3 command not found in PATH -> 127" -- confine-enforce-no-such-command
	expect_rc "$who" 127 "R3 absolute command missing -> 127" -- "$w/no-such-file"
	echo 'echo should-not-run' >"$w/notexec.sh"
	chmod 0644 "$w/notexec.sh"
	[ "$who" = nobody ] && chown 65534:65534 "$w/notexec.sh"
	expect_rc "$who" 126 "R3 a 0644 file -> 126" -- "$w/notexec.sh"
	is "$out" "" "$who: the not-executable file did not run"
	expect_rc "$who" 126 "R3 a directory as the command -> 126" -- "$w/sub"
	expect "$who" "OK x y" "stdout of the command reaches the caller" -- /bin/sh -c 'echo "OK $0 $1"' x y

	# --- 125: confine refuses before the command starts ---
	rm -f "$w/out/ran"
	expect_rc "$who" 125 "R3 an unknown option -> 125" --no-such-option -- "$TRYOP" write "$w/out/ran"
	expect_rc "$who" 125 "R1 --workspace / -> 125" --workspace / -- "$TRYOP" write "$w/out/ran"
	expect_rc "$who" 125 "R1 --workspace \$HOME -> 125" --workspace "$h" -- "$TRYOP" write "$w/out/ran"
	expect_rc "$who" 125 "R1 --workspace an ancestor of \$HOME -> 125" --workspace "$E/$who" -- "$TRYOP" write "$w/out/ran"
	expect_rc "$who" 125 "R1 --workspace ~/.ssh/.. -> 125" --workspace "$h/.ssh/.." -- "$TRYOP" write "$w/out/ran"
	ln -sfn "$h" "$E/$who/home-link"
	expect_rc "$who" 125 "R1 --workspace a symlink to \$HOME -> 125" --workspace "$E/$who/home-link" -- "$TRYOP" write "$w/out/ran"
	# ~/.kube a link into a directory given as the workspace: it holds the credentials.
	mkdir -p "$E/$who/kw/kube"
	ln -sfn "$E/$who/kw/kube" "$h/.kube"
	[ "$who" = nobody ] && chown -R 65534:65534 "$E/$who/kw" && chown -h 65534:65534 "$h/.kube"
	expect_rc "$who" 125 "R1 --workspace holding where ~/.kube links to -> 125" --workspace "$E/$who/kw" -- "$TRYOP" write "$w/out/ran"
	is "$err" "confine: workspace refused: '$E/$who/kw': it contains the guarded credential path '~/.kube'
hint: run confine from a project directory, or pass --workspace DIR" "$who: ... naming the guard, with the remedy"
	rm -f "$h/.kube"
	[ ! -e "$w/out/ran" ]
	ok $? "$who: none of the refused commands ran"
	# R6: a rule file that cannot be parsed refuses to run (fail closed).
	bad=$h/badrules
	mkdir -p "$bad/.confine" "$bad/out"
	echo '{"version": 1, "rules": [' >"$bad/.confine/rules.json"
	[ "$who" = nobody ] && chown -R 65534:65534 "$bad"
	CX_CWD=$bad expect_rc "$who" 125 "R6 an unparsable WS/.confine/rules.json -> 125" -- "$TRYOP" write "$bad/out/ran"
	# R10: a workspace file cannot grant itself write access outside the workspace.
	grant=$h/grant
	mkdir -p "$grant/.confine" "$grant/out"
	printf '{"version": 1, "rules": [{"path": "%s", "access": "write", "action": "allow"}]}\n' \
		"$h/notes.txt" >"$grant/.confine/rules.json"
	[ "$who" = nobody ] && chown -R 65534:65534 "$grant"
	CX_CWD=$grant expect_rc "$who" 125 "R10 a workspace rule allowing a home file -> 125" -- "$TRYOP" write "$grant/out/ran"
	[ ! -e "$bad/out/ran" ] && [ ! -e "$grant/out/ran" ] && [ "$(cat "$h/notes.txt")" = notes ]
	ok $? "$who: the commands of the refused workspaces did not run"

	# --- 12. --print-plan prints and runs nothing ---
	rm -f "$w/planned"
	cx "$who" --print-plan -- "$TRYOP" write "$w/planned"
	is "$rc" 0 "$who: --print-plan exits 0"
	[ -n "$out" ]
	ok $? "$who: --print-plan prints the plan on stdout"
	[[ $out == *"$w"* ]]
	ok $? "$who: the plan names the workspace"
	[ ! -e "$w/planned" ]
	ok $? "$who: --print-plan did not run the command"

	# --- R4: signals to confine reach the command ---
	for sig in TERM:143 HUP:129 INT:130; do
		name=${sig%%:*}
		want=${sig#*:}
		marker=32.$$$n$want
		cx_bg "$who" -- "$TRYOP" sleep "$marker"
		if wait_for_proc "$TRYOP sleep $marker" 5; then
			kill -s "$name" "$BGPID"
			wait_pid "$BGPID" 5
			is "$WAITRC" "$want" "$who: R4 SIG$name to confine: the command dies of it, confine exits $want"
			wait_gone "$TRYOP sleep $marker" 1
			ok $? "$who: R4 no 'tryop sleep' left after SIG$name"
		else
			wait_pid "$BGPID" 1
			ok 1 "$who: R4 SIG$name: the command never started (confine: $WAITRC, $(head -c 300 "$E/bg.err"))"
		fi
		left=$(procs "$TRYOP sleep $marker")
		[ -n "$left" ] && kill -KILL $left 2>/dev/null
	done
done

kill_bg
done_testing
