#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The host's session keyring (THREATS.md: `keyctl print`).  Each case starts in a fresh session
# keyring of its own holding one key that only its possessors may see or read (permissions
# 0x3f000000); the host command possesses it and reads it (the control).  Inside confine the
# key system calls are denied (seccomp, SPEC 3.1) and /proc/keys is masked (SPEC 3); confine
# also gives the command a fresh session keyring (R16).  As root and as
# uid 65534.  `tryk with-key` plants the key (no dependency on keyutils).
source "$(dirname "$0")/escape.sh"

desc=confine-escape-key-$$

# Counts the key's lines in /proc/keys: the keys the caller may view.
cat >"$E/bin/countkey" <<'SH'
#!/bin/sh
grep -c -- "$1" /proc/keys
exit 0
SH
chmod 0755 "$E/bin/countkey"

for who in $RUN_USERS; do
	hx "$who" "$TRYK" with-key "$desc" "$TRYK" keyctl-read @KEY
	is "$(got)" OK "$who: KEYCTL_READ of a key in the session keyring (host control)"
	hx "$who" "$TRYK" with-key "$desc" "$E/bin/countkey" "$desc"
	is "$(got)" 1 "$who: the key is listed in /proc/keys (host control)"

	hx "$who" "$TRYK" with-key "$desc" "$FIX/confine" run -- "$TRYK" keyctl-read @KEY
	is "$(got)" EPERM "$who: R17 seccomp: KEYCTL_READ of the host's key is denied"
	# /proc/keys is masked (a root caller's sandbox would list every key it may view); the
	# fresh session keyring of R16 is what keeps the host's key out of reach should the
	# filter and the mask both be gone, and it is no longer observable from inside.
	if bwrap_only "/proc/keys masked by a mount (landlock: the host's /proc, read-only)"; then
		hx "$who" "$TRYK" with-key "$desc" "$FIX/confine" run -- "$TRYOP" read /proc/keys
		is "$(got)" EACCES "$who: R17 /proc/keys is masked"
		hx "$who" "$TRYK" with-key "$desc" "$FIX/confine" run -- "$TRYOP" read /proc/key-users
		is "$(got)" EACCES "$who: R17 /proc/key-users is masked"
	else
		# Not masked (the plan says so), but the fresh session keyring keeps the host's key
		# out of what /proc/keys shows.
		hx "$who" "$TRYK" with-key "$desc" "$FIX/confine" run -- cat /proc/keys
		is "$rc:$(grep -c "$desc" <<<"$out")" "0:0" "$who: landlock: /proc/keys is readable and does not show the host's key"
	fi
	expect "$who" EPERM "R17 seccomp: KEYCTL_GET_KEYRING_ID of the session keyring" \
		-- "$TRYK" keyctl-session
done

done_testing
