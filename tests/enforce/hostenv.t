#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# R35 (THREATS round 3: host-side code reads the command's environment).  Every process confine
# starts outside the final sandbox -- bwrap on the host, confine-init before it runs the command
# -- gets confine's fixed environment; the command's environment reaches the command alone, at
# its own execve.  Tried here: a library that an earlier run built in the workspace, handed to
# later runs by --env LD_PRELOAD, LD_LIBRARY_PATH (standing in for libcap.so.2, which bwrap
# loads), LD_AUDIT, and by an inherited LD_PRELOAD.  The library writes the name of every
# program that loads it beside itself (tests/tools/marker.c): bwrap and confine-init must never
# appear, the command must (the positive control: its environment is unchanged).  The commands
# are the system's (printenv, env, sh): a sanitizer build's tools refuse a library preloaded
# before the sanitizer's.  Then, while
# a command runs with every variable glibc's loader and libc act on, the test reads
# /proc/PID/environ of bwrap and confine-init: exactly the fixed environment, by construction.
# Host controls first: bwrap does load the library when it is given the variable.  As root and
# as uid 65534.
# landlock (SPEC 3.3): no process stands between confine and the command (confine's own child
# executes it), so the only loads are confine's own (an inherited variable: the caller's own
# process, started with it) and the command's.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin

CC=$(command -v cc || command -v gcc || true)
BWRAP=$(command -v bwrap || echo /usr/bin/bwrap)
# The libcap that bwrap loads: the stand-in is a filter of it (DT_FILTER, by its full path), so
# that bwrap, bound at load time, still finds every symbol.
LIBCAP=$(ldd "$BWRAP" 2>/dev/null | awk '$1 == "libcap.so.2" { print $3 }')
if [ -z "$CC" ] || [ -z "$LIBCAP" ]; then
	skip "R35: needs a C compiler and a bwrap linked to libcap.so.2 (cc: '${CC:-none}', libcap: '${LIBCAP:-none}')"
	done_testing
fi
LIBCAP=$(readlink -f "$LIBCAP")
cp "$TOP/tests/tools/marker.c" "$E/marker.c"
printf 'int cap_free(void *);\nint main(void) { cap_free(0); return 0; }\n' >"$E/needcap.c"
chmod 0644 "$E/marker.c" "$E/needcap.c"
FIXED_ENV=$'PATH=/usr/sbin:/usr/bin:/sbin:/bin\nLC_ALL=C'

# marks DIR: the programs that loaded the library of DIR, sorted, one line; "none" if none.
marks() {
	if [ -s "$1/marker.log" ]; then sort -u "$1/marker.log" | tr '\n' ' ' | sed 's/ $//'; else echo none; fi
}

# The children of a process (every thread's), whose comm is NAME.
child_named() { # pid name
	local c
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		[ "$(cat /proc/"$c"/comm 2>/dev/null)" = "$2" ] && echo "$c"
	done
	return 0
}

for who in $RUN_USERS; do
	w=$(ws "$who")
	lib=$w/out/build/lib
	rm -rf "$w/out/build"
	# ---- An earlier run builds the libraries in the workspace. ----
	cx "$who" -- sh -c "mkdir -p '$lib/pre' '$lib/audit' '$lib/path' &&
		'$CC' -shared -fPIC -o '$lib/pre/libmarker.so' '$E/marker.c' &&
		'$CC' -shared -fPIC -DMARK_AS_AUDIT -o '$lib/audit/libaudit.so' '$E/marker.c' &&
		'$CC' -shared -fPIC -Wl,-soname,libcap.so.2 -Wl,--filter='$LIBCAP' -o '$lib/path/libcap.so.2' '$E/marker.c' &&
		'$CC' -Wl,--no-as-needed -o '$w/out/build/needcap' '$E/needcap.c' '$LIBCAP' && echo built"
	is "$out" built "$who: a sandboxed run builds the libraries in the workspace"
	[ "$out" = built ] || { diag "$err"; continue; }

	# ---- Host controls: given the variable, bwrap loads the library. ----
	xenv=(LD_PRELOAD="$lib/pre/libmarker.so")
	hx "$who" "$BWRAP" --version
	is "$(marks "$lib/pre")" bwrap "$who: control: LD_PRELOAD loads the workspace's library into bwrap on the host"
	rm -f "$lib/pre/marker.log"
	xenv=(LD_LIBRARY_PATH="$lib/path")
	hx "$who" "$BWRAP" --version
	is "$(marks "$lib/path")" bwrap "$who: control: LD_LIBRARY_PATH makes bwrap load the workspace's libcap.so.2"
	rm -f "$lib/path/marker.log"
	xenv=(LD_AUDIT="$lib/audit/libaudit.so")
	hx "$who" "$BWRAP" --version
	is "$(marks "$lib/audit")" bwrap "$who: control: LD_AUDIT loads the workspace's module into bwrap"
	rm -f "$lib/audit/marker.log"

	# ---- Through confine: the command alone. ----
	expect "$who" "$lib/pre/libmarker.so" "R35 --env LD_PRELOAD: the command sees it" \
		--env LD_PRELOAD="$lib/pre/libmarker.so" -- printenv LD_PRELOAD
	is "$(marks "$lib/pre")" printenv "$who: R35 --env LD_PRELOAD: loaded into the command only, never into bwrap or confine-init"
	rm -f "$lib/pre/marker.log"

	# (confine itself starts with it: a sanitizer build of confine is told to accept a
	# library preloaded before its runtime.)
	xenv=(LD_PRELOAD="$lib/pre/libmarker.so" ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0")
	expect "$who" "$lib/pre/libmarker.so" "R35 an inherited LD_PRELOAD: the command sees it" \
		-- printenv LD_PRELOAD
	got=" $(marks "$lib/pre") "
	[[ $got == *" printenv "* && $got != *" bwrap "* && $got != *" confine-init "* ]]
	ok $? "$who: R35 an inherited LD_PRELOAD: loaded by the command, not by bwrap or confine-init (${got# }; confine itself was started with it)"
	rm -f "$lib/pre/marker.log"

	expect "$who" "" "R35 --env LD_LIBRARY_PATH: the command runs" \
		--env LD_LIBRARY_PATH="$lib/path" -- "$w/out/build/needcap"
	is "$(marks "$lib/path")" needcap "$who: R35 --env LD_LIBRARY_PATH: the workspace's libcap.so.2 is loaded by the command only"
	rm -f "$lib/path/marker.log"

	expect "$who" "$lib/audit/libaudit.so" "R35 --env LD_AUDIT: the command sees it" \
		--env LD_AUDIT="$lib/audit/libaudit.so" -- printenv LD_AUDIT
	is "$(marks "$lib/audit")" printenv "$who: R35 --env LD_AUDIT: the audit module runs in the command only"
	rm -f "$lib/audit/marker.log"

	# ---- Every variable the loader and libc act on, read back from /proc/PID/environ. ----
	vars=(LD_PRELOAD="$lib/pre/libmarker.so" LD_LIBRARY_PATH="$lib/path" LD_AUDIT="$lib/audit/libaudit.so"
		LD_DEBUG=all LD_DEBUG_OUTPUT="$w/out/lddebug" LD_BIND_NOW=1 LD_PROFILE=libc.so.6
		LD_ORIGIN_PATH="$lib" LD_HWCAP_MASK=0 GCONV_PATH="$lib" LOCPATH="$lib" NLSPATH="$lib/%N"
		MALLOC_CHECK_=3 MALLOC_PERTURB_=85 MALLOC_ARENA_MAX=1 GLIBC_TUNABLES=glibc.malloc.check=3
		TMPDIR="$w/out" TZDIR="$lib" TZ=:"$lib/zone" HOSTALIASES="$lib/hosts" RES_OPTIONS=debug
		LOCALDOMAIN=evil.example LANGUAGE=xx LC_ALL=C.UTF-8)
	envargs=()
	for v in "${vars[@]}"; do envargs+=(--env "$v"); done
	rm -f "$w/out/started" "$w/out/go"
	cx_bg "$who" "${envargs[@]}" -- sh -c "env > '$w/out/cmdenv'; touch '$w/out/started'; while [ ! -e '$w/out/go' ]; do sleep 0.05; done"
	for ((i = 0; i < 3000; i++)); do
		[ -e "$w/out/started" ] && break
		sleep 0.02
	done
	[ -e "$w/out/started" ]
	ok $? "$who: the command with every loader and libc variable runs"
	if bwrap_only "no bwrap or confine-init exists there"; then
		bw=$(child_named "$BGPID" bwrap)
		init=$( [ -n "$bw" ] && child_named "$bw" confine-init)
		[ -n "$bw" ] && [ -n "$init" ]
		ok $? "$who: bwrap ($bw) and confine-init (${init:-?}) found under confine ($BGPID)"
		is "$(tr '\0' '\n' </proc/"${bw:-0}"/environ 2>&1)" "$FIXED_ENV" \
			"$who: R35 bwrap's environment is confine's fixed one, not the command's"
		# bwrap's --chdir adds PWD (the run's directory, which the caller chose).
		is "$(tr '\0' '\n' </proc/"${init:-0}"/environ 2>&1)" "$FIXED_ENV"$'\n'"PWD=$w" \
			"$who: R35 confine-init's environment is confine's fixed one (and bwrap's PWD), not the command's"
	else
		# (confine-keeper, which ends the run if confine is killed, execs nothing.)
		is "$(for c in $(cat /proc/"$BGPID"/task/*/children); do
			[ "$(cat /proc/"$c"/comm 2>/dev/null)" = confine-keeper ] || echo "$c"
		done | wc -w)" 1 "$who: landlock: confine's only child besides its keeper is the command"
	fi
	touch "$w/out/go"
	wait_pid "$BGPID" 60
	is "$WAITRC" 0 "$who: ... and ends normally"
	names=" $(sed 's/=.*//' "$w/out/cmdenv" | tr '\n' ' ') "
	missing=""
	for v in "${vars[@]}"; do
		[[ $names == *" ${v%%=*} "* ]] || missing="$missing ${v%%=*}"
	done
	is "${missing:-none}" none "$who: R35 the command sees every one of them (positive control)"
	# The command is sh running env, touch and sleep: each of them loads the libraries.
	for d in pre audit; do
		got=" $(marks "$lib/$d") "
		[[ $got == *" env "* && $got != *" bwrap "* && $got != *" confine-init "* && $got != *" confine "* ]]
		ok $? "$who: R35 ... the $d library was loaded by the command's programs only (${got# })"
	done
	rm -rf "$w/out/build" "$w/out/cmdenv" "$w/out/lddebug"* "$w/out/started" "$w/out/go"
done
done_testing
