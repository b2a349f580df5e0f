#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The AppArmor profile that lets the installed confine's bubblewrap make its user namespace on
# Ubuntu 23.10+ (kernel.apparmor_restrict_unprivileged_userns=1), checked with Debian's
# apparmor_parser, parse only (-Q: no kernel load, -K: no cache), where AppArmor need not be
# enabled.  Not run on Ubuntu: Debian 12's parser is AppArmor 3.0.8, which knows neither
# `abi <abi/4.0>` nor the `userns` rule; the profile is parsed as it is where the parser is
# 4.0 or newer, else with those two lines as 3.0 has them, and the two lines are checked as
# text.  `meson install` puts it into the staging directory with the install path of confine.
source "$(dirname "$0")/../lib.sh"

prof=$BUILD/dist/apparmor/confine
if ! command -v apparmor_parser >/dev/null; then
  skip "apparmor_parser is missing (scripts/install-deps test installs Debian's apparmor)"
  done_testing
fi
[ -f "$prof" ]
ok $? "the build makes the profile ($prof)"
bin=$(meson introspect --buildoptions "$BUILD" | jq -r '(map(select(.name=="prefix"))[0].value) + "/" + (map(select(.name=="bindir"))[0].value) + "/confine"')
grep -qx "profile confine $bin flags=(unconfined) {" "$prof"
ok $? "it attaches to the installed confine ($bin), unconfined in every other respect"
awk '/^profile confine /{p=1} p && /^  userns,$/{u=1} p && /^}$/{exit} END{exit !u}' "$prof"
ok $? "it allows 'userns' inside that profile"
is "$(grep -v '^#' "$prof" | grep -v '^$' | head -1)" "abi <abi/4.0>," "it is written for AppArmor 4.0's ABI (where 'userns' exists)"
! grep -Eq '^\s*(capability|mount|ptrace|signal|/)' "$prof"
ok $? "it grants nothing else (no capability, mount, ptrace, signal or file rule)"

ver=$(apparmor_parser --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p' | head -1)
if [ "${ver:-0}" -ge 4 ]; then
  apparmor_parser -Q -K "$prof" >"$T/aa.out" 2>&1
  ok $? "apparmor_parser $ver parses the profile (parse only)"
else
  # AppArmor 3: the same text with the ABI it has and without the one rule it lacks.
  sed -e 's|^abi <abi/4.0>,$|abi <abi/3.0>,|' -e '/^  userns,$/d' "$prof" >"$T/confine-aa3"
  apparmor_parser -Q -K "$T/confine-aa3" >"$T/aa.out" 2>&1
  ok $? "apparmor_parser $ver parses the rest of the profile (parse only; 'userns' and abi 4.0 need AppArmor 4)"
  apparmor_parser -Q -K "$prof" >"$T/aa4.out" 2>&1
  grep -q "abi/4.0" "$T/aa4.out"
  ok $? "... and refuses the profile itself only for the 4.0 ABI it lacks"
fi
sed -e '/^  userns,$/a\  bogus_rule_xyz,' -e 's|^abi <abi/4.0>,$|abi <abi/3.0>,|' -e '/^  userns,$/d' "$prof" >"$T/broken"
! apparmor_parser -Q -K "$T/broken" >/dev/null 2>&1
ok $? "a broken profile fails the same parse (the check can fail)"

# meson install into a staging directory: the profile lands in /etc/apparmor.d, and the load
# step says it was not loaded.
stage=$T/stage
DESTDIR=$stage meson install -C "$BUILD" --no-rebuild >"$T/install.out" 2>&1
ok $? "meson install (staged)"
cmp -s "$prof" "$stage/etc/apparmor.d/confine"
ok $? "it installs the profile as /etc/apparmor.d/confine"
# meson keeps an install script's output to itself: the load step, as meson runs it.
DESTDIR=$stage sh "$TOP/scripts/apparmor-load" /etc/apparmor.d/confine >"$T/load.out" 2>&1
grep -qx "apparmor: staged install; load it on the target with: apparmor_parser -r /etc/apparmor.d/confine" "$T/load.out"
ok $? "the load step of a staged install says how to load it on the target"
if [ ! -d /sys/kernel/security/apparmor ]; then
  sh "$TOP/scripts/apparmor-load" "$stage/etc/apparmor.d/confine" >"$T/load.out" 2>&1
  grep -q "apparmor: not enabled here" "$T/load.out"
  ok $? "... and where AppArmor is not enabled, that it is installed for when it is"
fi

done_testing
