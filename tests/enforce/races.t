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
# landlock (SPEC 3.3) has no pid namespace: the command sees the host's processes and their
# command lines (confine's own, policy included: not provided, the plan says so), but Landlock
# refuses it ptrace access to them, so their environments (where the scrubbed secret is) stay
# unreadable (EACCES).
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
	# It counts its swaps into $swaps, so that the test can tell that the launches really ran
	# against a moving target.
	swaps=$h/swap-count
	loop="cd '$h' && n=0 && end=\$((\$(date +%s) + 60)); while [ ! -e '$stop' ] && [ \$(date +%s) -lt \$end ]; do mv data data.real 2>/dev/null && ln -s .ssh data 2>/dev/null && n=\$((n + 1)); rm -f data 2>/dev/null; mv data.real data 2>/dev/null; done; echo \$n >'$swaps'"
	_as "$who" sh -c "$loop" &
	swapper=$!
	# Each run: the write lands (OK), or confine refuses to start (125: a mount source
	# changed), or the write fails inside because ~/data was a symlink or absent at launch
	# (then the allow's path had nothing to bind: ENOENT, EROFS, EACCES).  Anything else is a
	# defect.
	wrote=0 refused=0 failed=0 other=0 others=
	for i in $(seq 40); do
		cx "$who" --allow "$h/data:write" -- "$TRYOP" write "$h/data/f$i"
		case "$rc:$out" in
		0:OK) wrote=$((wrote + 1)) ;;
		125:*) refused=$((refused + 1)) ;;
		0:ENOENT | 0:EROFS | 0:EACCES) failed=$((failed + 1)) ;;
		*) other=$((other + 1)) others="$others [$rc:$out]" ;;
		esac
	done
	touch "$stop"
	wait "$swapper"
	[ -L "$h/data" ] && rm -f "$h/data"
	[ -d "$h/data.real" ] && [ ! -e "$h/data" ] && mv "$h/data.real" "$h/data"
	diag "$who: 40 runs under the swap loop: $wrote wrote, $refused refused (125), $failed failed inside, $other other$others"
	n_swaps=$(cat "$swaps" 2>/dev/null || echo 0)
	[ "$n_swaps" -ge 40 ]
	ok $? "$who: the launches raced a swapping directory ($n_swaps swaps during 40 runs)"
	is "$other" 0 "$who: every run wrote, was refused, or failed to write inside (no other outcome)"
	is "$(find "$h/.ssh" | sort | md5sum)" "$before" "$who: nothing was ever created in the guarded ~/.ssh"
	n_real=$(find "$h/data" -mindepth 1 -name 'f*' | wc -l)
	[ "$n_real" -le "$wrote" ]
	ok $? "$who: every successful write landed in the real ~/data ($n_real files for $wrote writes)"
	# The control: with the swapping stopped, the same run writes.
	expect "$who" OK "the same allow writes once the swapping stopped (control)" \
		--allow "$h/data:write" -- "$TRYOP" write "$h/data/after"
	[ -f "$h/data/after" ]
	ok $? "$who: ... into the real ~/data"

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
	# Its siblings that exist on this machine: backups, host keys, systemd's credential key.
	for f in /etc/gshadow /var/backups/shadow.bak /var/backups/gshadow.bak \
		/etc/ssh/ssh_host_ed25519_key /etc/ssh/ssh_host_rsa_key /var/lib/systemd/credential.secret; do
		[ -e "$f" ] || continue
		[ "$who" = root ] && expect_host "$who" "OK" "control: root reads $f on the host" "$TRYOP" read "$f"
		expect "$who" "EACCES" "$f hidden inside, even for root" -- "$TRYOP" read "$f"
	done

	# /proc inside shows no policy and no scrubbed secret.
	marker="policy-marker-$$-$who"
	if bwrap_only "the sandbox's /proc holds only the sandbox's processes"; then
		xenv=(MY_SECRET_TOKEN="envmarker-$$")
		cx "$who" --deny "$h/$marker" --deny "$h/data:write" -- sh -c \
			'cat /proc/[0-9]*/cmdline /proc/[0-9]*/environ 2>/dev/null | tr "\0" "\n"'
		echo "$out" | grep -q "$marker"
		ok $((!$?)) "$who: no process inside shows the policy on its command line or environment"
		echo "$out" | grep -q "envmarker-$$"
		ok $((!$?)) "$who: the scrubbed secret appears nowhere in /proc inside"
		echo "$out" | grep -q "confine-init\|/proc/self/fd"
		ok $? "$who: (control) /proc inside was readable: the helper's command line is there"
	else
		# The command's parent is confine itself (no helper in between).  The host's processes
		# run by the test (timeout, confine) carry the secret in their own environments.
		xenv=(MY_SECRET_TOKEN="envmarker-$$")
		cx "$who" --deny "$h/$marker" --deny "$h/data:write" -- sh -c \
			'"$0" read /proc/$PPID/environ; cat /proc/[0-9]*/environ 2>/dev/null | tr "\0" "\n" | grep -c "^MY_SECRET_TOKEN="; cat /proc/self/environ | tr "\0" "\n" | grep -c "^PATH="; tr "\0" "\n" </proc/$PPID/cmdline | grep -cxF "$1/$2"' "$TRYOP" "$h" "$marker"
		is "$out" "EACCES
0
1
1" "$who: landlock: confine's environment is unreadable inside (EACCES), no readable environment holds the scrubbed secret, the command's own is readable, and confine's command line shows the policy (not provided)"
		xenv=(MY_SECRET_TOKEN="envmarker-$$")
		hx "$who" sh -c "MY_SECRET_TOKEN=envmarker-$$ '$TRYOP' sleep 30 & p=\$!; '$TRYOP' waitfile /proc/\$p/environ 5 >/dev/null; tr '\\0' '\\n' </proc/\$p/environ | grep -c '^MY_SECRET_TOKEN=envmarker'; kill \$p"
		is "$out" 1 "$who: (control) on the host the same user reads the secret from a process's environment"
	fi
done
done_testing
