#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SPEC 3 (THREATS round 2: a root caller is the host's root).  bubblewrap leaves /proc/sys
# writable, and uid 0 passes the sysctl permission check: `echo "|$PWD/h.sh" >
# /proc/sys/kernel/core_pattern` and a crash ran h.sh as full root outside every namespace.
# Inside confine the kernel's writable files are read-only (/proc/sys, /proc/irq, /proc/bus,
# /proc/fs, /proc/sysrq-trigger where the kernel has it), root-only kernel state is masked
# (/proc/keys, timer_list, slabinfo, vmallocinfo, kpage*, kmsg, /sys/firmware, debugfs),
# /proc/kcore is not shown at all, and /dev cannot be filled.  Controls: root writes the same
# value back to the host's sysctl (no change; the value is restored at exit in any case), root
# reads the masked files on the host.  As root and as uid 65534.
# landlock (SPEC 3.3): /proc and /sys are the host's, read-only by Landlock (a write is EACCES,
# never EROFS), which is what keeps core_pattern safe there; /proc cannot be split (a process
# started later gets a /proc entry no rule covers), so what bwrap masks in it stays as readable
# as the mode and the missing capabilities allow: each such file is asserted to give exactly
# what a capability-less process of the same user gets on the host (the plan: "masked kernel
# files" not provided).  /dev offers the devices alone: no /dev/shm (not provided).
source "$(dirname "$0")/escape.sh"

saved_core=$(cat /proc/sys/kernel/core_pattern)
saved_modprobe=$(cat /proc/sys/kernel/modprobe 2>/dev/null)
restore() {
	[ "$(id -u)" = 0 ] || return 0
	[ "$(cat /proc/sys/kernel/core_pattern)" = "$saved_core" ] ||
		printf '%s\n' "$saved_core" >/proc/sys/kernel/core_pattern
	[ -z "$saved_modprobe" ] || [ "$(cat /proc/sys/kernel/modprobe)" = "$saved_modprobe" ] ||
		printf '%s\n' "$saved_modprobe" >/proc/sys/kernel/modprobe
}
trap 'restore; if [ "$BASHPID" = "$_tap_main" ]; then kill_bg; rm -rf "$T" "$E" 2>/dev/null; fi' EXIT

# sysw FILE VALUE: write VALUE into FILE with one write(2); prints OK or the errno name.
cat >"$E/bin/sysw" <<'SH'
#!/bin/sh
if printf '%s\n' "$2" 2>/dev/null >"$1"; then echo OK; else
	# the shell's message carries the reason; map it to the errno name
	printf '%s\n' "$2" 2>&1 >"$1" | sed -n 's/.*Read-only file system.*/EROFS/p; s/.*Permission denied.*/EACCES/p' | head -n 1
fi
SH
chmod 0755 "$E/bin/sysw"
SYSW=$E/bin/sysw
RO=$(bk EROFS EACCES)

# capless_host WHO CMD...: CMD on the host as WHO without a capability (root: an empty bounding
# set, so that execve gives none), the landlock command's condition; sets $out, $rc.
capless_host() {
	local who=$1
	shift
	if [ "$who" = root ]; then
		hx "$who" setpriv --bounding-set=-all --inh-caps=-all "$@"
	else
		hx "$who" "$@"
	fi
}

for who in $RUN_USERS; do
	for f in kernel/core_pattern kernel/modprobe vm/drop_caches; do
		[ -e "/proc/sys/$f" ] || continue
		cur=$(cat "/proc/sys/$f" 2>/dev/null)
		[ "$f" = vm/drop_caches ] && cur=0
		if [ "$who" = root ]; then
			# The host control writes the current value back: root can, and nothing changes.
			[ "$f" = vm/drop_caches ] && cur=1
			expect_host "$who" OK "root writes /proc/sys/$f" "$SYSW" "/proc/sys/$f" "$cur"
		else
			expect_host "$who" EACCES "uid 65534 cannot write /proc/sys/$f" "$SYSW" "/proc/sys/$f" "$cur"
		fi
		expect "$who" "$RO" "SPEC 3: /proc/sys/$f is read-only inside" -- "$SYSW" "/proc/sys/$f" "|$E/h.sh"
	done
	is "$(cat /proc/sys/kernel/core_pattern)" "$saved_core" "$who: the host's core_pattern is unchanged"
	# Only root could write these on the host (mode 0600/0644 root): uid 65534 gets EACCES
	# before the mount is even asked, so the check is root's.
	for d in irq bus fs; do
		[ "$who" = root ] && [ -d "/proc/$d" ] || continue
		f=$(find "/proc/$d" -maxdepth 2 -type f -perm -u+w 2>/dev/null | head -n 1)
		[ -n "$f" ] || continue
		expect "$who" "$RO" "SPEC 3: /proc/$d is read-only inside ($f)" -- "$TRYOP" append "$f"
	done
	if [ -e /proc/sysrq-trigger ]; then
		expect "$who" "$RO" "SPEC 3: /proc/sysrq-trigger is read-only inside" -- "$TRYOP" append /proc/sysrq-trigger
	else
		# This kernel has no magic SysRq: nor does the sandbox's proc.
		expect "$who" ENOENT "no /proc/sysrq-trigger on this kernel, none inside" -- "$TRYOP" stat /proc/sysrq-trigger
	fi

	for f in keys key-users timer_list slabinfo vmallocinfo pagetypeinfo kpageflags kpagecount kmsg; do
		[ -e "/proc/$f" ] || continue
		if [ "$who" = root ] && [ "$f" != kmsg ]; then
			# kpage* open but refuse a one-byte read (EINVAL): opened all the same.
			want=OK
			case $f in kpage*) want=EINVAL ;; esac
			expect_host "$who" "$want" "root opens /proc/$f on the host" "$TRYOP" read "/proc/$f"
		fi
		if bwrap_only "/proc/$f masked"; then
			expect "$who" EACCES "SPEC 3: /proc/$f is masked" -- "$TRYOP" read "/proc/$f"
		else
			capless_host "$who" "$TRYOP" read "/proc/$f"
			expect "$who" "$(_got)" "landlock: /proc/$f is the host's: what a capability-less $who gets there (not masked: not provided)" -- "$TRYOP" read "/proc/$f"
		fi
	done
	# /proc/kcore: not masked by confine, because the kernel shows no kcore in a proc mounted
	# from a user namespace (and some kernels, this VM's, none at all).
	if bwrap_only "the sandbox's own proc shows no /proc/kcore"; then
		expect "$who" ENOENT "/proc/kcore is not shown in the sandbox's proc" -- "$TRYOP" stat /proc/kcore
	else
		capless_host "$who" "$TRYOP" read /proc/kcore
		expect "$who" "$(_got)" "landlock: /proc/kcore as the host shows it to a capability-less $who" -- "$TRYOP" read /proc/kcore
	fi
	for d in /sys/firmware /sys/kernel/debug /proc/acpi; do
		[ -d "$d" ] || continue
		if [ "$d" = /proc/acpi ] && ! bwrap_only "/proc/acpi masked"; then
			capless_host "$who" "$TRYOP" readdir "$d"
			expect "$who" "$(_got)" "landlock: $d is the host's: what a capability-less $who gets there (not masked)" -- "$TRYOP" readdir "$d"
			continue
		fi
		if [ "$who" = root ]; then
			hx "$who" "$TRYOP" readdir "$d"
			case $(got) in OK*) ok 0 "root lists $d on the host (control)" ;;
			*) ok 1 "root lists $d on the host (control): $(got)" ;; esac
		fi
		expect "$who" EACCES "SPEC 3: $d is masked" -- "$TRYOP" readdir "$d"
	done

	# /dev: its tmpfs is read-only; the devices, /dev/shm and /dev/pts still work.
	expect "$who" "$RO" "SPEC 3: nothing can be created in /dev (no fill)" -- "$TRYOP" write /dev/fill
	expect "$who" "$RO" "SPEC 3: nor a directory" -- "$TRYOP" mkdir /dev/d
	expect "$who" OK "/dev/null still takes writes" -- "$TRYOP" append /dev/null
	if bwrap_only "a private /dev/shm"; then
		expect "$who" OK "/dev/shm still takes files" -- "$TRYOP" write /dev/shm/x
	else
		expect "$who" EACCES "landlock: the host's /dev/shm takes no file (no private /dev/shm: not provided)" -- "$TRYOP" write /dev/shm/confine-kernelfs-$$
		[ ! -e /dev/shm/confine-kernelfs-$$ ]
		ok $? "$who: landlock: nothing was made in the host's /dev/shm"
		expect "$who" EACCES "landlock: nor can the host's /dev/shm be listed" -- "$TRYOP" readdir /dev/shm
		# A device beyond the few the command needs: refused by Landlock before the kernel's own
		# check (dmesg_restrict) is asked; the host control shows that check's answer.
		capless_host "$who" "$TRYOP" read /dev/kmsg
		diag "host, a capability-less $who: /dev/kmsg $(_got)"
		expect "$who" EACCES "landlock: /dev holds no device beyond the listed ones (/dev/kmsg)" -- "$TRYOP" read /dev/kmsg
		[ -e /dev/mem ] && expect "$who" EACCES "landlock: ... nor /dev/mem" -- "$TRYOP" read /dev/mem
	fi
	expect_rc "$who" 0 "a pty can still be opened (a command on a fresh pty)" -- "$TRYK" pty-run /bin/true
done
restore
done_testing
