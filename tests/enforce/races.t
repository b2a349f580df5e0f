#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Races and leaks around the launch (THREATS "Files", "Environment, descriptors, kernel"):
#  - a writable directory swapped for a symlink to a guarded directory (and back) in a loop
#    while confine starts: every mount source is opened once without following symlinks (R15)
#    and guards are never lifted by an allow (R9), so writes land in the real directory or the
#    run is refused; nothing is ever created in the guarded directory.  (A rule is resolved
#    through symlinks when it is loaded (R7), so the symlink's target must be one no allow can
#    open: otherwise "allow ~/data" meaning its target at that instant is the rule's meaning.)
#  - nothing of the policy or of the scrubbed environment is visible in /proc inside (options
#    travel through --args FD; R12).
# As root and as uid 65534.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin
for who in $RUN_USERS; do
	h=$(home "$who")
	mkdir -p "$h/data" "$h/.ssh"
	before=$(find "$h/.ssh" | sort | md5sum)
	[ "$who" = nobody ] && chown -R 65534:65534 "$h/data"
	# The swapper runs as the same user, flipping ~/data between the real directory and a
	# symlink to ~/.ssh as fast as it can.
	# It stops by itself when $stop appears (killing the background job would only kill the
	# subshell around it), and after 60 s at the latest.
	stop=$E/$who-stop-swapping
	rm -f "$stop"
	loop="cd '$h' && end=\$((\$(date +%s) + 60)); while [ ! -e '$stop' ] && [ \$(date +%s) -lt \$end ]; do mv data data.real 2>/dev/null && ln -s .ssh data 2>/dev/null; rm -f data 2>/dev/null; mv data.real data 2>/dev/null; done"
	_as "$who" sh -c "$loop" &
	swapper=$!
	wrote=0 refused=0 other=0
	for i in $(seq 40); do
		cx "$who" --allow "$h/data:write" -- "$TRYOP" write "$h/data/f$i"
		case "$rc:$out" in
		0:OK) wrote=$((wrote + 1)) ;;
		125:*) refused=$((refused + 1)) ;;
		*) other=$((other + 1)) ;;
		esac
	done
	touch "$stop"
	wait "$swapper"
	[ -L "$h/data" ] && rm -f "$h/data"
	[ -d "$h/data.real" ] && [ ! -e "$h/data" ] && mv "$h/data.real" "$h/data"
	diag "$who: 40 runs under the swap loop: $wrote wrote, $refused refused (125), $other other"
	is "$(find "$h/.ssh" | sort | md5sum)" "$before" "$who: nothing was ever created in the guarded ~/.ssh"
	n_real=$(find "$h/data" -mindepth 1 -name 'f*' | wc -l)
	[ "$n_real" -le "$wrote" ]
	ok $? "$who: every successful write landed in the real ~/data ($n_real files for $wrote writes)"
	[ $((wrote + refused)) -ge 1 ]
	ok $? "$who: the runs either wrote to the real directory or were refused"

	# A core dump full of secrets (THREATS "Files"): RLIMIT_CORE is 0, soft and hard (R16), so
	# a crash leaves no core file, even where the host would write one into the workspace.
	w=$(ws "$who")
	rm -f "$w"/core "$w"/core.*
	if [ "$(cat /proc/sys/kernel/core_pattern)" = core ]; then
		CX_CWD=$w hx "$who" prlimit --core=unlimited "$TRYOP" selfkill 11
		n_host=$(ls "$w" | grep -c '^core')
		rm -f "$w"/core "$w"/core.*
		CX_CWD=$w cx "$who" -- sh -c "ulimit -c unlimited 2>/dev/null; exec $TRYOP selfkill 11"
		is "$rc" 139 "$who: a crash inside: status 139 (SIGSEGV)"
		is "$(ls "$w" | grep -c '^core')" 0 "$who: R16 no core file from a crash inside (the host control wrote $n_host)"
		CX_CWD=$w cx "$who" -- prlimit --core=unlimited true
		echo "$err" | grep -q "Operation not permitted"
		ok $? "$who: the command cannot raise its core limit above 0"
	else
		skip "core_pattern is '$(cat /proc/sys/kernel/core_pattern)', not 'core': no core file to look for"
	fi

	# The host's own secrets: a sandbox started by root runs as uid 0 without capabilities, which
	# still owns /etc/shadow; the guard hides it (an addition to SPEC 2.3's list).
	if [ "$who" = root ]; then
		expect_host "$who" "OK" "control: root reads /etc/shadow on the host" "$TRYOP" read /etc/shadow
	else
		expect_host "$who" "EACCES" "control: uid 65534 cannot read /etc/shadow on the host" "$TRYOP" read /etc/shadow
	fi
	expect "$who" "EACCES" "/etc/shadow hidden inside, even for root" -- "$TRYOP" read /etc/shadow

	# /proc inside shows no policy and no scrubbed secret.
	marker="policy-marker-$$-$who"
	xenv=(MY_SECRET_TOKEN="envmarker-$$")
	cx "$who" --deny "$h/$marker" --deny "$h/data:write" -- sh -c \
		'cat /proc/[0-9]*/cmdline /proc/[0-9]*/environ 2>/dev/null | tr "\0" "\n"'
	echo "$out" | grep -q "$marker"
	ok $((!$?)) "$who: no process inside shows the policy on its command line or environment"
	echo "$out" | grep -q "envmarker-$$"
	ok $((!$?)) "$who: the scrubbed secret appears nowhere in /proc inside"
	echo "$out" | grep -q "confine-init\|/proc/self/fd"
	ok $? "$who: (control) /proc inside was readable: the helper's command line is there"
done
done_testing
