#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SPEC 3.1 (THREATS round 2: a root caller is the host's root): no setuid or setgid bit can be
# put on a file from inside the sandbox.  A sandbox started by root is uid 0 without
# capabilities, which still owns what it creates: a setuid-root binary left in the workspace
# would be root for every local user afterwards.  Every route: the chmod family and creating
# the file with the bit (open, openat, creat, mknod, mknodat, O_TMPFILE + linkat); openat2,
# whose mode the filter cannot read, answers ENOSYS.  Each route is tried on the host first
# (the control: the bit sticks), then inside (EPERM), as root and as uid 65534; an ordinary
# mode still works inside.
source "$(dirname "$0")/escape.sh"

routes="chmod fchmod fchmodat fchmodat2 open openat creat mknod mknodat tmpfile openat2"
exists() { case $1 in chmod | fchmod | fchmodat | fchmodat2) return 0 ;; esac; return 1; }

for who in $RUN_USERS; do
	w=$(ws "$who")
	for mode in 4755 2755; do
		for via in $routes; do
			f=$w/setid-$via-$mode
			rm -f "$f"
			exists "$via" && _as "$who" touch "$f"
			hx "$who" "$TRYK" setid "$via" "$mode" "$f"
			is "$(got)" OK "$who: $via $mode puts the bit on a file (host control)"
			rm -f "$f"
			exists "$via" && _as "$who" touch "$f"
			want=EPERM
			[ "$via" = openat2 ] && want=ENOSYS
			expect "$who" "$want" "R17 seccomp: $via $mode inside" -- "$TRYK" setid "$via" "$mode" "$f"
			if [ -e "$f" ]; then
				m=$(stat -c %a "$f")
				is "$((0$m & 06000))" 0 "$who: $via $mode left no setuid/setgid bit on the host (mode $m)"
			else
				# a create route: refused before anything was created
				exists "$via"
				is "$?" 1 "$who: $via $mode created nothing on the host"
			fi
			rm -f "$f"
		done
	done
	# Ordinary modes are untouched by the filter.
	# WS/out: the landlock backend refuses new entries at the split workspace root.
	rm -f "$w/out/plain"
	expect "$who" OK "an ordinary chmod 0755 inside" -- sh -c "touch '$w/out/plain' && '$TRYK' setid chmod 0755 '$w/out/plain'"
	rm -f "$w/out/plain"
	expect "$who" OK "an ordinary create 0644 inside" -- "$TRYK" setid openat 0644 "$w/out/plain"
	rm -f "$w/out/plain"
done
done_testing
