#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Privileges of the sandboxed command (THREATS.md: keep root's capabilities, then umount the
# hidden tmpfs or mount over a path; setuid binaries; core dumps): it holds no capability even
# when confine runs as root (R12 --cap-drop ALL, R17 the helper checks), no_new_privs is set
# (R17), RLIMIT_CORE is 0 (R16), and mount and umount fail with EPERM.  As root and as
# uid 65534.
source "$(dirname "$0")/escape.sh"

mnt=$E/mnt
mkdir -p "$mnt"
chmod 0777 "$mnt"

for who in $RUN_USERS; do
	# Capabilities.
	hx "$who" "$TRYK" caps
	if [ "$who" = root ]; then
		ok "$([ "$out" != 0000000000000000 ] && echo 0 || echo 1)" \
			"root: the host command holds capabilities (host control: $out)"
	else
		is "$(got)" 0000000000000000 "$who: no capabilities on the host (host control)"
	fi
	expect "$who" 0000000000000000 "R12 --cap-drop ALL: CapEff is empty" -- "$TRYK" caps
	# Every set, the bounding and ambient sets too, with helper mode (confine makes the masks
	# from the sandbox's first user namespace, where it holds every capability) and without.
	# (The landlock backend makes no user namespace: a user's bounding set stays the caller's,
	# which no_new_privs, below, keeps any exec from using; root's is emptied.)
	z=0000000000000000
	hx "$who" "$TRYK" caps-all
	bnd=$z
	[ "${CONFINE_TEST_BACKEND:-}" = landlock ] && [ "$who" != root ] && bnd=$(printf '%s' "$out" | cut -d' ' -f4)
	expect "$who" "$z $z $z $bnd $z" "R12: no capability in any set (inheritable, permitted, effective, bounding, ambient)" -- "$TRYK" caps-all
	xenv=(CONFINE_NO_HELPER_MOUNTS=1)
	expect "$who" "$z $z $z $bnd $z" "R12: the same when bwrap makes every mount (no helper mode)" -- "$TRYK" caps-all

	# no_new_privs.
	expect_host "$who" 0 "no_new_privs is not set" "$TRYK" nnp
	expect "$who" 1 "R17: no_new_privs is set" -- "$TRYK" nnp

	# Core dumps: start confine with a core limit of 1 MiB; the command must see 0.
	expect_host "$who" 1048576 "RLIMIT_CORE as given" prlimit --core=1048576 "$TRYK" core
	hx "$who" prlimit --core=1048576 "$FIX/confine" run -- "$TRYK" core
	is "$(got)" 0 "$who: R16 RLIMIT_CORE is 0 inside"

	# Mounts.  The host control mounts on a scratch directory and unmounts it again.
	hx "$who" "$TRYK" mount-tmpfs "$mnt"
	if [ "$who" = root ]; then
		is "$(got)" OK "root: mount a tmpfs (host control)"
		umount "$mnt" 2>/dev/null
	else
		is "$(got)" EPERM "$who: mount a tmpfs (host control)"
	fi
	expect "$who" EPERM "no capability: mount a tmpfs over a path" -- "$TRYK" mount-tmpfs "$mnt"
	expect "$who" EPERM "no capability: umount the private /tmp" -- "$TRYK" umount /tmp
	expect "$who" EPERM "no capability: umount /proc" -- "$TRYK" umount /proc
done

done_testing
