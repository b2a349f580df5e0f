#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A real repository on the landlock backend (SPEC 3.3), as root and as uid 65534: a workspace
# whose root holds .env and .git (so the root and .git are split directories).  Host controls
# first.  Inside: a new file and a new directory at the root, `git commit` (index.lock renamed
# into .git, new objects, refs), `npm install` of a local package (no network), all work;
# .env stays unreadable, .git/hooks and .git/config unwritable, and every way around that the
# supervisor could be asked for is refused: a hook created, .git/config replaced by a rename or
# removed, .git renamed away, .env renamed, linked or truncated, a symlink planted in
# .git/hooks, a file created through a symlink into .git/hooks.
source "$(dirname "$0")/../lib.sh"
CONFINE_TEST_BACKEND=landlock
source "$(dirname "$0")/enforce.sh"
enforce_begin
command -v git >/dev/null || { skip "git is missing"; done_testing; }

LLX=(--backend landlock)
TM=$E/bin/trymeta
cp "$FIX/trymeta" "$TM" && chmod a+rx "$TM"
# The local package, packed on the host (npm pack: no network), readable by both users.
pkgsrc=$E/pkg
mkdir -p "$pkgsrc"
printf '{"name":"localpkg","version":"1.0.0","main":"index.js"}\n' >"$pkgsrc/package.json"
echo 'module.exports = "from localpkg";' >"$pkgsrc/index.js"
have_npm=0
if command -v npm >/dev/null && (cd "$pkgsrc" && npm pack --silent >/dev/null 2>&1); then
	have_npm=1
	chmod -R a+rX "$pkgsrc"
fi
tgz=$pkgsrc/localpkg-1.0.0.tgz

for who in $RUN_USERS; do
	r=$E/$who/home/repo
	rm -rf "$r"
	mkdir -p "$r"
	echo 'SECRET=env-secret' >"$r/.env"
	chmod 0600 "$r/.env"
	echo hello >"$r/README"
	printf '{"name":"app","version":"1.0.0"}\n' >"$r/package.json"
	[ "$who" = nobody ] && chown -R 65534:65534 "$r"
	gitx=(git -c user.email=t@example.invalid -c user.name=t -c init.defaultBranch=main)
	_as "$who" env HOME="$(home "$who")" "${gitx[@]}" -C "$r" init -q &&
		_as "$who" env HOME="$(home "$who")" "${gitx[@]}" -C "$r" add README package.json &&
		_as "$who" env HOME="$(home "$who")" "${gitx[@]}" -C "$r" commit -qm init
	ok $? "$who: the repository is made on the host"
	rm -f "$r/.git/hooks/"*.sample
	echo host-hook >"$r/.git/hooks/pre-commit.sample"
	[ "$who" = nobody ] && chown 65534:65534 "$r/.git/hooks/pre-commit.sample"
	cfg=$(cat "$r/.git/config")
	CX_CWD=$r
	# Host controls: each action works without confine.
	CX_CWD=$r expect_host "$who" OK "a new file at the root (control)" "$TRYOP" write "$r/ctl-file"
	CX_CWD=$r expect_host "$who" OK "a new hook (control)" "$TRYOP" write "$r/.git/hooks/ctl"
	rm -f "$r/ctl-file" "$r/.git/hooks/ctl"

	CX_CWD=$r cx "$who" "${LLX[@]}" --print-plan -- true
	grep -q "^split in a writable area (new entries are made and opened by confine's supervisor" <<<"$out" &&
		grep -qx "  $r" <<<"$out" && grep -qx "  $r/.git" <<<"$out"
	ok $? "$who: the plan names the root and .git as split in a writable area, brokered"

	CX_CWD=$r expect "$who" "OK
OK
OK new" "a new file and a new directory at the root" "${LLX[@]}" -- sh -c \
		"'$TRYOP' write '$r/newfile'; '$TRYOP' mkdir '$r/newdir'; echo new >'$r/newdir/f' && '$TRYOP' cat '$r/newdir/f'"
	xenv=(GIT_CONFIG_NOSYSTEM=1)
	CX_CWD=$r cx "$who" "${LLX[@]}" -- sh -c "$(printf '%q ' "${gitx[@]}") add newfile newdir && $(printf '%q ' "${gitx[@]}") commit -qm second && $(printf '%q ' "${gitx[@]}") log --format=%s"
	is "$out" "second
init" "$who: git add and git commit inside (index.lock renamed into .git)"
	[ "$rc" = 0 ] || diag "$err"
	is "$(_as "$who" env HOME="$(home "$who")" git -C "$r" log -1 --format=%s 2>&1)" second "$who: ... the host's git sees the commit"
	is "$(_as "$who" env HOME="$(home "$who")" git -C "$r" status --porcelain --untracked-files=no 2>&1)" "" "$who: ... and a clean index (the host's git status)"

	if [ "$have_npm" = 1 ]; then
		xenv=(HOME="$(home "$who")")
		CX_CWD=$r cx "$who" "${LLX[@]}" -- sh -c "npm_config_cache=\$TMPDIR/npm npm install --offline --no-audit --no-fund --no-update-notifier '$tgz' >/dev/null 2>&1; echo rc=\$?; node -e 'console.log(require(\"localpkg\"))'"
		is "$out" "rc=0
from localpkg" "$who: npm install of a local package at the root, and node requires it"
		[ -f "$r/node_modules/localpkg/index.js" ] && grep -q localpkg "$r/package.json"
		ok $? "$who: ... node_modules and package.json on the host"
	else
		skip "$who: npm install: npm is missing or cannot pack"
	fi

	# The protections hold, by every route the supervisor could be asked for.
	CX_CWD=$r expect "$who" EACCES ".env stays unreadable" "${LLX[@]}" -- "$TRYOP" read "$r/.env"
	CX_CWD=$r expect "$who" EACCES ".env: openat relative to the root" "${LLX[@]}" -- "$TRYOP" openat "$r" .env
	CX_CWD=$r expect "$who" EACCES ".git/config stays unwritable" "${LLX[@]}" -- "$TRYOP" append "$r/.git/config"
	CX_CWD=$r expect "$who" EACCES "no new hook" "${LLX[@]}" -- "$TRYOP" write "$r/.git/hooks/pre-commit"
	CX_CWD=$r expect "$who" EACCES "an existing hook file stays unwritable" "${LLX[@]}" -- "$TRYOP" write "$r/.git/hooks/pre-commit.sample"
	CX_CWD=$r expect "$who" EACCES "no symlink planted in .git/hooks" "${LLX[@]}" -- "$TRYOP" symlink "$r/x.sh" "$r/.git/hooks/post-checkout"
	CX_CWD=$r expect "$who" "OK
EACCES" "a file created through a symlink into .git/hooks" "${LLX[@]}" -- sh -c \
		"'$TRYOP' symlink '$r/.git/hooks/post-merge' '$r/via'; '$TRYOP' write '$r/via'"
	CX_CWD=$r expect "$who" EACCES ".git/config replaced by a rename" "${LLX[@]}" -- sh -c \
		"echo x >'$r/cfg.new'; '$TRYOP' rename '$r/cfg.new' '$r/.git/config'"
	CX_CWD=$r expect "$who" EACCES ".git/config removed" "${LLX[@]}" -- "$TRYOP" unlink "$r/.git/config"
	CX_CWD=$r expect "$who" EACCES ".git renamed away (an ancestor of the protections)" "${LLX[@]}" -- "$TRYOP" rename "$r/.git" "$r/git.old"
	CX_CWD=$r expect "$who" EACCES ".git/hooks renamed away" "${LLX[@]}" -- "$TRYOP" rename "$r/.git/hooks" "$r/.git/hooks.old"
	CX_CWD=$r expect "$who" EACCES ".env renamed" "${LLX[@]}" -- "$TRYOP" rename "$r/.env" "$r/env.txt"
	CX_CWD=$r expect "$who" EACCES ".env hard-linked" "${LLX[@]}" -- "$TRYOP" link "$r/.env" "$r/env.hl"
	CX_CWD=$r expect "$who" EACCES ".env truncated" "${LLX[@]}" -- "$TRYOP" truncate "$r/.env"
	CX_CWD=$r expect "$who" EACCES "a directory made in .git/hooks" "${LLX[@]}" -- "$TRYOP" mkdir "$r/.git/hooks/d"
	CX_CWD=$r/.git/hooks expect "$who" EACCES "a hook made by a relative name from inside .git/hooks (the thread's cwd)" \
		"${LLX[@]}" --workspace "$r" -- "$TRYOP" write pre-push
	CX_CWD=$r expect "$who" EACCES "a hook made with openat relative to a descriptor of .git/hooks" \
		"${LLX[@]}" -- /usr/bin/python3 -c "
import os
d = os.open('$r/.git/hooks', os.O_RDONLY | os.O_DIRECTORY)
try:
    os.close(os.open('pre-rebase', os.O_CREAT | os.O_WRONLY, 0o755, dir_fd=d)); print('OK')
except PermissionError:
    print('EACCES')"
	CX_CWD=$r expect "$who" "OK
EACCES" "a directory made at the root, then moved into .git/hooks" "${LLX[@]}" -- sh -c \
		"'$TRYOP' mkdir '$r/mv-me'; '$TRYOP' rename '$r/mv-me' '$r/.git/hooks/mv-me'"
	CX_CWD=$r expect "$who" EACCES ".env through /proc/self/cwd (a magic link)" "${LLX[@]}" -- "$TRYOP" read /proc/self/cwd/.env
	rmdir "$r/mv-me" 2>/dev/null
	CX_CWD=$r expect "$who" EPERM "the setuid bit on a file made by the supervisor (SPEC 3.1)" "${LLX[@]}" -- \
		/usr/bin/python3 -c "
import os, errno
try:
    os.close(os.open('$r/suid', os.O_CREAT | os.O_WRONLY, 0o4755)); print('OK')
except OSError as e:
    print('EPERM' if e.errno == errno.EPERM else 'EACCES' if e.errno == errno.EACCES else e)"
	is "$(cat "$r/.env")" "SECRET=env-secret" "$who: .env is unchanged on the host"
	is "$(cat "$r/.git/config")" "$cfg" "$who: .git/config is unchanged on the host"
	is "$(ls "$r/.git/hooks")" "pre-commit.sample" "$who: .git/hooks holds what it held"
	is "$(cat "$r/.git/hooks/pre-commit.sample")" host-hook "$who: ... unchanged"
	[ ! -e "$r/git.old" ] && [ ! -e "$r/env.txt" ] && [ ! -e "$r/env.hl" ] && [ ! -e "$r/suid" ]
	ok $? "$who: nothing was renamed, linked or made with a setuid bit"

	# Where the supervisor cannot act for the command (Yama ptrace_scope 2 or 3; here its
	# switch): the run says before it starts which directories take no new entry and why, and
	# explains each denial there afterwards; a protected path's denial is not "explained".
	xenv=(CONFINE_LANDLOCK_BROKER=off)
	CX_CWD=$r cx "$who" "${LLX[@]}" -- sh -c "'$TRYOP' write '$r/late-file'; cat '$r/late-file' '$r/.env' 2>&1 >/dev/null | sed 's/^/cat: /' >&2; touch '$r/late-file' 2>&1 | cat >&2"
	is "$out" EACCES "$who: without the supervisor a new file at the root is refused"
	grep -q "^confine: warning: landlock: these directories of the writable areas take no new entry in this run .*'$r', '$r/.git': each holds a protected path .*CONFINE_LANDLOCK_BROKER=off" <<<"$err" &&
		grep -q "^hint: entries that exist when a run starts get their own rule" <<<"$err"
	ok $? "$who: ... the run said so before it started, with the reason and the remedy"
	grep -q "^confine: warning: landlock: refused in a directory that takes no new entry in this run: '$r/late-file': '$r' holds a protected path" <<<"$err"
	ok $? "$who: ... and explained the denial there after it"
	! grep -q "refused in a directory that takes no new entry in this run: '$r/.env'" <<<"$err"
	ok $? "$who: ... but not the denial of .env, which is protected by design"
	[ ! -e "$r/late-file" ]
	ok $? "$who: ... nothing was made"
	CX_CWD=
done

done_testing
