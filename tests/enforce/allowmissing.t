#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Write allows of paths that do not exist (issue 22): `--allow ~/.npm:write` on a fresh
# account, and the README's `--allow ~/.cache/pip:write`, used to mount nothing and say
# nothing, so that the tool failed with EROFS or ENOENT.  Now confine creates the path before
# the plan (as the caller, mode 0700, never through a symlink, only inside the home or the
# workspace) or refuses with a message; --print-plan creates nothing and says what a run would.
# On both backends (Landlock needs the path to exist to grant it), as root and as uid 65534.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin

for who in $RUN_USERS; do
	h=$(home "$who")
	w=$(ws "$who")
	rm -rf "$h/.npm" "$h/.cache/pip" "$h/.cache"
	RO=$(bk EROFS EACCES)

	# The control: without the allow the home stays read-only.
	expect "$who" "$RO" "without an allow, mkdir ~/.npm is refused" -- "$TRYOP" mkdir "$h/.npm"

	# --print-plan: nothing is created, the plan says what the run would create.
	cx "$who" --print-plan --allow "$h/.npm:write" -- true
	is "$rc" 0 "$who: --print-plan with a write allow of a missing ~/.npm"
	grep -qF "created (0700) when the command runs, for a write allow of a path that does not exist: '$h/.npm'" <<<"$out"
	ok $? "$who: ... the plan says ~/.npm would be created" || diag "$out"
	[ ! -e "$h/.npm" ]
	ok $? "$who: ... and --print-plan created nothing"

	# The run: the path exists, 0700, the caller's, and is writable inside.
	expect "$who" "OK" "--allow ~/.npm:write on a fresh account: mkdir ~/.npm/_cacache inside" \
		--allow "$h/.npm:write" -- "$TRYOP" mkdir "$h/.npm/_cacache"
	is "$(stat -c '%a %U' "$h/.npm" 2>&1)" "700 $(_uname "$who")" "$who: ~/.npm was created 0700, owned by the caller"
	[ -d "$h/.npm/_cacache" ]
	ok $? "$who: ... and what the command made in it is on the host"
	# The README's example: two missing components.
	expect "$who" "OK" "--allow ~/.cache/pip:write with ~/.cache missing: write a file in it" \
		--allow "$h/.cache/pip:write" -- "$TRYOP" write "$h/.cache/pip/wheel"
	is "$(stat -c '%a' "$h/.cache" "$h/.cache/pip" | tr '\n' ' ')" "700 700 " "$who: ~/.cache and ~/.cache/pip were created 0700"
	# ~/.cache itself is a tool cache (R39): a write there goes to confine's store (bwrap's
	# overlay) or is refused (landlock redirects the XDG cache), never to the host.
	expect "$who" "$(bk OK EACCES)" "... and a write to ~/.cache itself $(bk "goes to confine's store" "is refused")" \
		--allow "$h/.cache/pip:write" -- "$TRYOP" write "$h/.cache/other"
	[ ! -e "$h/.cache/other" ]
	ok $? "$who: ... only the allowed path is written on the host"

	# Refusals: outside the home and the workspace, where another user owns the parent, and
	# through a symlink (rules are canonical: the link's target is outside the home).
	out_path=$E/outside-$who/new
	expect_rc "$who" 125 "a missing allowed path outside the home and the workspace is refused" \
		--allow "$out_path:write" -- true
	grep -qF "confine: write allow refused: '$out_path': it does not exist, and confine creates a missing allowed path only inside your home directory or the workspace" <<<"$err" &&
		grep -q "^hint: create it yourself first" <<<"$err"
	ok $? "$who: ... with the message and the remedy"
	[ ! -e "$E/outside-$who" ]
	ok $? "$who: ... and nothing was created"
	mkdir -p "$h/theirs"
	if [ "$who" = nobody ]; then chown 0:0 "$h/theirs"; else chown 65534:65534 "$h/theirs"; fi
	expect_rc "$who" 125 "a missing path in a directory of another user is refused" \
		--allow "$h/theirs/new:write" -- true
	grep -qF "confine: write allow refused: '$h/theirs/new': it does not exist, and '$h/theirs', where it would be created, belongs to another user" <<<"$err"
	ok $? "$who: ... naming the directory and why"
	[ ! -e "$h/theirs/new" ]
	ok $? "$who: ... nothing created there"
	mkdir -p "$E/linked-$who"
	ln -sfn "$E/linked-$who" "$h/link"
	expect_rc "$who" 125 "an allow through a symlink to outside the home is refused, not created through the link" \
		--allow "$h/link/new:write" -- true
	[ ! -e "$E/linked-$who/new" ]
	ok $? "$who: ... nothing created at the link's target"
	rm -f "$h/link"
	# An allow a guard outranks creates nothing: the guard keeps it closed.
	expect "$who" "EACCES" "an allow inside a guarded directory (~/.ssh/new) stays closed" \
		--allow "$h/.ssh/new:write" -- "$TRYOP" mkdir "$h/.ssh/new"
	[ ! -e "$h/.ssh/new" ]
	ok $? "$who: ... and was not created"
	# An allow below a host-socket guard names a socket: nothing is made, nothing is refused.
	uid=$([ "$who" = nobody ] && echo 65534 || id -u)
	expect "$who" "OK" "an allow of a missing socket below the runtime directory neither makes nor refuses it" \
		--allow "/run/user/$uid/missing-agent.sock" -- "$TRYOP" write "$w/out/f"
	# Inside the workspace: created too (a write allow of a missing workspace path).
	expect "$who" "OK" "a missing allowed path inside the workspace is created" \
		--allow "$w/out/gen/deep:write" -- "$TRYOP" write "$w/out/gen/deep/f"
	rm -rf "$h/.npm" "$h/.cache" "$h/theirs" "$w/out/gen" "$E/linked-$who"
done
done_testing
