#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian packages (debian/, issue 27), end to end on this machine, as root: builds them with
# `dpkg-buildpackage -b -us -uc` from a copy of the checkout (the checkout is left as it was),
# checks them with lintian (no error, warning or info that is not overridden with a reason),
# installs them, runs /usr/bin/confine probe and sandboxed commands from them as root and as
# uid 65534 (a guarded read refused with EACCES, a workspace write done, a write outside
# refused, each with its control), builds a program against libconfine-dev, purges them, and
# checks that nothing is left: no package known to dpkg, no file of their listings, nothing new
# under /usr or /etc that no package owns.  Not part of tests/run (it installs packages on the
# machine): .ci/run runs it as a step of its own.  TAP, then `tests: N passed, N failed`.
source "$(dirname "$0")/../lib.sh"

pkgs=(confine libconfine1 libconfine-dev)
skipped=0
dskip() { # reason: lib.sh's skip (a failure under CONFINE_TEST_MUST_WORK), never counted as a pass
	[ "${CONFINE_TEST_MUST_WORK:-0}" = 1 ] || skipped=$((skipped + 1))
	skip "$@"
}
finish() { # the plan, the `tests:` line .ci/run counts, and the status
	echo "tests: $((_tap_n - _tap_failed - skipped)) passed, $_tap_failed failed, $skipped skipped"
	done_testing
}
installed() { # PACKAGE: 0 when dpkg has it in any state but not-installed
	local st
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null) || return 1
	[ "${st:1:1}" != n ]
}

if [ "$(id -u)" -ne 0 ]; then
	dskip "installing packages needs root"
	finish
fi
for t in dpkg-buildpackage dh lintian fakeroot apt-get; do
	if ! command -v "$t" >/dev/null; then
		dskip "$t is missing (scripts/install-deps deb installs what the package build needs)"
		finish
	fi
done
for p in "${pkgs[@]}"; do
	if installed "$p"; then
		ok 1 "$p is already installed on this machine: the test would remove it (dpkg --purge $p first)"
		finish
	fi
done

# --- build, from a copy of what git tracks: no residue in the checkout ---
status_before=$(git -C "$TOP" status --porcelain --ignored 2>&1)
src=$T/src/confine-0.1.0
mkdir -p "$src"
if git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$TOP" && git ls-files -z | xargs -0 cp --parents -t "$src")
else
	cp -a "$TOP/." "$src/" && rm -rf "$src"/build*
fi
# check STATUS LOG DESCRIPTION: ok, and the end of LOG when it failed
check() {
	ok "$1" "$3"
	[ "$1" -eq 0 ] || tail -n 30 "$2" | sed 's/^/#   /'
}
(cd "$src" && dpkg-buildpackage -b -us -uc -j"$(nproc)") >"$T/build.log" 2>&1
check $? "$T/build.log" "dpkg-buildpackage -b -us -uc builds the packages"
deb() { echo "$T/src/${1}_0.1.0_$(dpkg --print-architecture).deb"; }
for p in "${pkgs[@]}"; do
	[ -f "$(deb "$p")" ]
	ok $? "$(basename "$(deb "$p")") is built"
done
[ -f "$(deb confine)" ] && [ -f "$(deb libconfine1)" ] && [ -f "$(deb libconfine-dev)" ] || finish

has() { # PACKAGE PATH...: each path is in the package
	local p=$1 f missing=""
	shift
	local list
	list=$(dpkg-deb -c "$(deb "$p")" | awk '{print $6}' | sed 's|^\.||')
	for f in "$@"; do grep -qxF "$f" <<<"$list" || missing="$missing $f"; done
	is "$missing" "" "$p holds $*"
}
has confine /usr/bin/confine /usr/libexec/confine/confine-init /etc/apparmor.d/confine \
	/usr/share/man/man1/confine.1.gz /usr/share/man/man5/confine-rules.5.gz
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
has libconfine1 "/usr/lib/$ma/libconfine.so.1" "/usr/lib/$ma/libconfine.so.1.0.0"
has libconfine-dev /usr/include/confine.h "/usr/lib/$ma/libconfine.so" "/usr/lib/$ma/pkgconfig/confine.pc"

# lintian: every tag that is not overridden fails, info included; an override no longer needed
# is a tag of its own (unused-override), so the overrides cannot outlive their reason.
lintian --fail-on error,warning,info -I "$T/src/confine_0.1.0_$(dpkg --print-architecture).changes" \
	>"$T/lintian.log" 2>&1
check $? "$T/lintian.log" "lintian: no error, warning or info but the overridden ones (debian/*.lintian-overrides)"

# --- install ---
snap() { find /usr /etc -xdev 2>/dev/null | sort; }
snap >"$T/before"
apt-get install -y -q -o DPkg::Lock::Timeout=300 --no-install-recommends \
	"$(deb confine)" "$(deb libconfine1)" "$(deb libconfine-dev)" >"$T/install.log" 2>&1
check $? "$T/install.log" "the three packages install (apt-get install ./*.deb)"
for p in "${pkgs[@]}"; do dpkg -L "$p" >"$T/list-$p" 2>/dev/null; done

export XDG_CACHE_HOME=$T/cache
is "$(/usr/bin/confine --version)" "confine 0.1.0" "/usr/bin/confine --version"
/usr/bin/confine probe >"$T/probe.log" 2>&1
check $? "$T/probe.log" "/usr/bin/confine probe: a backend is available"
is "$(/usr/bin/confine probe --json | jq -r '.backends[] | select(.backend == "bwrap") | .code')" \
	available "/usr/bin/confine probe --json: bwrap available"
is "$(man -w confine 2>&1)" /usr/share/man/man1/confine.1.gz "man confine finds the installed page"

# Sandboxed commands from /usr/bin/confine (its helper from /usr/libexec/confine), as root and
# as uid 65534: each action first on the host, the control.
for who in root nobody; do
	h=$T/home-$who w=$T/home-$who/proj
	mkdir -p "$h/.ssh" "$w"
	echo ssh-secret >"$h/.ssh/id_ed25519"
	echo bashrc >"$h/.bashrc"
	[ "$who" = nobody ] && chown -R 65534:65534 "$h"
	as() { if [ "$who" = nobody ]; then as_nobody "$@"; else "$@"; fi; }
	cx() { (cd "$w" && as env -i PATH=/usr/bin:/bin HOME="$h" XDG_CACHE_HOME="$XDG_CACHE_HOME/$who" \
		/usr/bin/confine run "$@" 2>&1); }
	is "$(as "$FIX/tryop" cat "$h/.ssh/id_ed25519")" "OK ssh-secret" "$who: control: ~/.ssh/id_ed25519 readable on the host"
	is "$(cx -- "$FIX/tryop" read "$h/.ssh/id_ed25519")" EACCES "$who: /usr/bin/confine run: ~/.ssh/id_ed25519 refused with EACCES"
	is "$(cx --backend landlock -- "$FIX/tryop" read "$h/.ssh/id_ed25519")" EACCES \
		"$who: /usr/bin/confine run --backend landlock: ~/.ssh/id_ed25519 refused with EACCES"
	is "$(cx -- "$FIX/tryop" write "$w/made")" OK "$who: /usr/bin/confine run: a workspace write is done"
	is "$(cat "$w/made" 2>&1)" x "$who: the workspace file is on the host"
	is "$(as "$FIX/tryop" write "$h/ctl")" OK "$who: control: the home is writable on the host"
	is "$(cx -- "$FIX/tryop" write "$h/.bashrc")" EROFS "$who: /usr/bin/confine run: a write outside the workspace refused with EROFS"
	is "$(cat "$h/.bashrc")" bashrc "$who: ~/.bashrc unchanged"
	cx -- sh -c 'exit 7' >/dev/null
	is "$?" 7 "$who: /usr/bin/confine run: the command's exit status"
done

# libconfine-dev: the header, the .pc file and the .so link, as a host builds with them.
cat >"$T/host.c" <<'C'
#include <confine.h>
#include <stdio.h>
int main(void) { printf("%s %u\n", confine_version()->text, confine_version()->abi); return 0; }
C
cc -o "$T/host" "$T/host.c" $(pkg-config --cflags --libs confine) >"$T/cc.log" 2>&1
check $? "$T/cc.log" "a program builds against libconfine-dev (pkg-config confine)"
is "$("$T/host" 2>&1)" "0.1.0 1" "it runs with the installed libconfine.so.1"
is "$(readlink -f "$(ldd "$T/host" | awk '/libconfine/ {print $3}')")" "/usr/lib/$ma/libconfine.so.1.0.0" \
	"linked to the package's /usr/lib/$ma/libconfine.so.1"

# --- purge: nothing left ---
apt-get purge -y -q -o DPkg::Lock::Timeout=300 "${pkgs[@]}" >"$T/purge.log" 2>&1
check $? "$T/purge.log" "the packages purge"
left=""
for p in "${pkgs[@]}"; do installed "$p" && left="$left $p"; done
is "$left" "" "dpkg knows none of them any more (no config-files state)"
left=""
for p in "${pkgs[@]}"; do dpkg -L "$p" >/dev/null 2>&1 && left="$left $p"; done
is "$left" "" "dpkg -L lists none of them"
left=""
for p in "${pkgs[@]}"; do
	while read -r f; do
		[ "$f" = /. ] && continue
		[ -e "$f" ] || [ -L "$f" ] || continue
		grep -qxF "$f" "$T/before" || left="$left $f"
	done <"$T/list-$p"
done
is "$left" "" "no file or directory of their listings is left"
snap >"$T/after"
left=""
while read -r f; do
	dpkg -S "$f" >/dev/null 2>&1 || left="$left $f"
done < <(comm -13 "$T/before" "$T/after")
is "$left" "" "nothing new under /usr or /etc that no package owns"
ls /var/lib/dpkg/info/confine.* /var/lib/dpkg/info/libconfine1* /var/lib/dpkg/info/libconfine-dev* >"$T/info" 2>/dev/null
is "$(cat "$T/info")" "" "no maintainer script or list of theirs left in /var/lib/dpkg/info"
is "$(git -C "$TOP" status --porcelain --ignored 2>&1)" "$status_before" "the checkout is as it was (git status)"

finish
