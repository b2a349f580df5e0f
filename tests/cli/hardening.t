#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The hardening of the build (meson.build), on the build under test:
#  - every object meson compiled (compile_commands.json) with -fstack-protector-strong,
#    -fstack-clash-protection, -fcf-protection, -D_FORTIFY_SOURCE=3 (none without
#    optimisation or under a sanitizer: meson.build says why) and position-independent code;
#    and each object carries the x86 IBT and SHSTK property;
#  - confine, confine-init and libconfine.so: PIE (the library: a shared object), full RELRO
#    (a GNU_RELRO segment and BIND_NOW), a stack that is not executable, the stack protector's
#    and _FORTIFY_SOURCE's functions in use; confine-init static (no interpreter, no library)
#    unless the build says -Dstatic_helper=false; hardening-check (devscripts) agrees for
#    confine and the library;
#  - warnings are errors in the project's own builds (make, .ci/run), not in a plain setup.
# The linked binaries carry no CET property: Debian 12's start files (crt1.o, crti.o) and its
# libc.a have none, and the linker keeps the property only when every input has it.
source "$(dirname "$0")/../lib.sh"

opts=$BUILD/meson-info/intro-buildoptions.json
opt() { jq -r --arg n "$1" '.[] | select(.name == $n) | .value | tostring' "$opts"; }
sanitize=$(opt b_sanitize)
optimization=$(opt optimization)
static_helper=$(opt static_helper)
fortify=-D_FORTIFY_SOURCE=3
if [ "$sanitize" != none ] || [ "$optimization" = 0 ] || [ "$optimization" = g ]; then
	fortify=
fi

# --- every compile command ---
cc_json=$BUILD/compile_commands.json
total=$(jq length "$cc_json")
[ "$total" -gt 50 ]
ok $? "compile_commands.json lists the objects ($total)"
missing() { # flag: the files compiled without it
	jq -r --arg f "$1" '.[] | select((.command | split(" ") | index($f)) == null) | .file' "$cc_json"
}
for f in -fstack-protector-strong -fstack-clash-protection -fcf-protection; do
	is "$(missing "$f" | head -n 5)" "" "every object is compiled with $f"
done
if [ -n "$fortify" ]; then
	is "$(missing "$fortify" | head -n 5)" "" "every object is compiled with $fortify"
else
	is "$(jq -r '.[] | select(.command | contains("-D_FORTIFY_SOURCE=")) | .file' "$cc_json" | head -n 5)" "" \
		"no _FORTIFY_SOURCE under b_sanitize=$sanitize, optimization=$optimization"
fi
pic=$(jq -r '.[] | select((.command | split(" ") | (index("-fPIE") or index("-fPIC"))) | not) | .file' "$cc_json" | head -n 5)
is "$pic" "" "every object is position-independent code (-fPIE or -fPIC)"
nocet=
while IFS= read -r o; do
	readelf -n "$o" 2>/dev/null | grep -q 'x86 feature: IBT, SHSTK' || nocet="$nocet ${o#"$BUILD/"}"
done < <(find "$BUILD" -name '*.o' -path '*.p/*' | head -n 400)
is "$nocet" "" "every object carries the x86 IBT and SHSTK property (-fcf-protection)"

# --- the binaries ---
# The library meson builds now (a tree built before a soname change keeps the old name's link).
lib=$(meson introspect --targets "$BUILD" 2>/dev/null |
	jq -r '[.[] | select(.type == "shared library" and .name == "confine") | .filename[]][0] // empty')
[ -n "$lib" ] || lib=$BUILD/src/lib/libconfine.so
for bin in "$BUILD/confine" "$BUILD/confine-init" "$lib"; do
	name=${bin#"$BUILD/"}
	hdr=$(readelf -hW "$bin")
	dyn=$(readelf -dW "$bin")
	ph=$(readelf -lW "$bin")
	grep -q 'Type: *DYN' <<<"$hdr"
	ok $? "$name: position-independent (ELF type DYN)"
	if [ "$bin" != "$lib" ]; then
		grep -q 'FLAGS_1.*PIE' <<<"$dyn"
		ok $? "$name: an executable marked PIE"
	fi
	grep -q 'GNU_RELRO' <<<"$ph"
	ok $? "$name: a read-only segment after relocation (RELRO)"
	grep -qE '\(FLAGS\) .*BIND_NOW|FLAGS_1.* NOW' <<<"$dyn"
	ok $? "$name: bound at load time (BIND_NOW: full RELRO)"
	is "$(awk '$1 == "GNU_STACK" { print $7 }' <<<"$ph")" RW "$name: the stack is not executable"
	syms=$(readelf -sW --dyn-syms "$bin" | awk '{ print $8 }' | sed 's/@.*//')
	grep -qx '__stack_chk_fail' <<<"$syms"
	ok $? "$name: uses the stack protector (__stack_chk_fail)"
	if [ -n "$fortify" ]; then
		grep -qE '^__[a-z0-9_]+_chk$' <<<"$(grep -v '^__stack_chk' <<<"$syms")"
		ok $? "$name: uses _FORTIFY_SOURCE's checked functions (__*_chk)"
	fi
done
if [ "$static_helper" = true ]; then
	readelf -lW "$BUILD/confine-init" | grep -q 'INTERP'
	st1=$?
	readelf -dW "$BUILD/confine-init" | grep -q '(NEEDED)'
	st2=$?
	is "$st1 $st2" "1 1" "confine-init is static: no interpreter, no library (a static PIE)"
fi

# --- hardening-check (devscripts): PIE, stack protector, fortify, RELRO, BIND_NOW ---
if ! command -v hardening-check >/dev/null; then
	skip "hardening-check is not installed (scripts/install-deps test installs devscripts)"
else
	# --nocfprotection: see the top (no binary of Debian 12 can carry the property).  Under a
	# sanitizer no fortify (meson.build).  confine-init when static: hardening-check reads
	# the dynamic symbols only, which a static program has none of (the checks above read
	# its symbol table).
	hc=(--nocfprotection)
	[ -n "$fortify" ] || hc+=(--nofortify)
	out=$(hardening-check "${hc[@]}" "$BUILD/confine" "$lib" 2>&1)
	ok $? "hardening-check: confine and libconfine.so ($(grep -E 'no|unknown' <<<"$out" | tr -s ' \n' ' '))"
	if [ "$static_helper" != true ]; then
		out=$(hardening-check "${hc[@]}" "$BUILD/confine-init" 2>&1)
		ok $? "hardening-check: confine-init ($(grep -E 'no|unknown' <<<"$out" | tr -s ' \n' ' '))"
	fi
fi

# --- warnings are errors in the project's own builds only ---
grep -q "'werror=false'" "$TOP/meson.build"
ok $? "a plain 'meson setup' leaves warnings as warnings (meson.build: werror=false)"
grep -qE '^\s+meson setup \$\(BUILD\) .*-Dwerror=true' "$TOP/Makefile"
ok $? "make (developers, make check, .ci/run's first step) sets up with -Dwerror=true"
is "$(grep -c 'meson setup build-[a-z]* -Dwerror=true' "$TOP/.ci/run")" 2 \
	".ci/run's sanitizer builds set up with -Dwerror=true"
done_testing
