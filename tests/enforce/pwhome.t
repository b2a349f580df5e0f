#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SPEC 2.3 (THREATS round 2: a root caller is the host's root): the credential guards apply to
# the caller's home from the password database as well as to $HOME.  Root started with
# HOME=/home/ana must not read /root/.ssh.  Each case runs in a mount namespace of its own
# (unshare -m) where the password database's home is a fixture: for root a fake /root bound
# over the real one, for uid 65534 a copy of /etc/passwd that gives it a home of its own; the
# real /root and /etc/passwd are never touched.  $HOME points at another fake home.  Controls:
# the same read without confine works; the $HOME guards still apply.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin
if ! unshare -m true 2>/dev/null; then
	skip "unshare -m is not available (needs root)"
	done_testing
fi

for who in $RUN_USERS; do
	h=$(home "$who")
	pw=$E/$who/pwhome
	mkdir -p "$pw/.ssh" "$pw/.aws" "$pw/proj"
	echo pw-ssh-secret >"$pw/.ssh/id_ed25519"
	echo pw-pgpass >"$pw/.pgpass"
	echo pw-notes >"$pw/notes.txt"
	chmod 0755 "$pw" "$pw/proj"
	[ "$who" = nobody ] && chown -R 65534:65534 "$pw"
	if [ "$who" = root ]; then
		mnt="mount --bind '$pw' /root"
		pwfile=/root
	else
		sed "s#^nobody:\([^:]*:[^:]*:[^:]*:[^:]*\):[^:]*:#nobody:\1:$pw:#" /etc/passwd >"$E/passwd"
		chmod 0644 "$E/passwd"
		mnt="mount --bind '$E/passwd' /etc/passwd"
		pwfile=$pw
	fi
	# pwx CMD...: CMD as WHO, in a mount namespace whose password database says $pwfile.
	as=()
	[ "$who" = nobody ] && as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	pwx() {
		local -a envv
		mapfile -t envv < <(_env "$who")
		out=$(cd "$(ws "$who")" && unshare -m sh -c "$mnt && exec \"\$@\"" sh \
			timeout -k 5 60 "${as[@]}" env -i "${envv[@]}" "$@" 2>"$E/err")
		rc=$?
		err=$(cat "$E/err")
	}
	pwx sh -c 'getent passwd "$(id -u)" | cut -d: -f6'
	ph=$out
	pwx "$TRYOP" cat "$pwfile/.ssh/id_ed25519"
	is "$out" "OK pw-ssh-secret" "$who: the password database's home ($ph) holds a key readable without confine (control)"
	if [ "$LL" = 1 ] && [ "$who" = root ]; then
		# The fixture binds $pw over /root: the same directory is also $pw, a sibling the
		# landlock backend would grant read (its rules follow inodes, not names).  Such an
		# alias is refused, never run.
		pwx "$FIX/confine" run -- "$TRYOP" cat "$pwfile/.ssh/id_ed25519"
		is "$rc:$out" "125:" "$who: landlock: ~root/.ssh reachable through a bind mount of its home elsewhere: refused (125)"
		case $err in *"protected path reachable by another path"*"$pw"*) ok 0 "$who: ... and the message names the alias" ;;
		*) ok 1 "$who: ... and the message names the alias (got: $err)" ;; esac
	else
		pwx "$FIX/confine" run -- "$TRYOP" cat "$pwfile/.ssh/id_ed25519"
		is "$out" EACCES "$who: R9 ~$who/.ssh of the password database is hidden while HOME=$h"
		pwx "$FIX/confine" run -- "$TRYOP" cat "$pwfile/.pgpass"
		is "$out" EACCES "$who: R9 ~$who/.pgpass of the password database is hidden"
		pwx "$FIX/confine" run -- "$TRYOP" cat "$pwfile/notes.txt"
		is "$out" "OK pw-notes" "$who: an ordinary file there stays readable"
		pwx "$FIX/confine" run -- "$TRYOP" cat "$h/.ssh/id_ed25519"
		is "$out" EACCES "$who: the guards of \$HOME still apply"
		# R37: a hard link in the workspace to that home's key is hidden like the key.
		ln "$pw/.ssh/id_ed25519" "$(ws "$who")/pw-key-link"
		pwx "$TRYOP" cat "$(ws "$who")/pw-key-link"
		is "$out" "OK pw-ssh-secret" "$who: WS/pw-key-link is the password database home's key (control)"
		pwx "$FIX/confine" run -- "$TRYOP" cat "$(ws "$who")/pw-key-link"
		is "$out" EACCES "$who: R37 a hard link in the workspace to ~$who/.ssh/id_ed25519 is hidden"
		rm -f "$(ws "$who")/pw-key-link"
	fi
	pwx "$FIX/confine" run --workspace "$pwfile" -- true
	is "$rc" 125 "$who: R1 the password database's home is refused as a workspace"
	case $err in *"home directory"*) ok 0 "$who: ... and the message says why" ;;
	*) ok 1 "$who: ... and the message says why (got: $err)" ;; esac
done
done_testing
