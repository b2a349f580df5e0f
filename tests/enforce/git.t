#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The host's git runs what the workspace says (THREATS round 2; SPEC 2.3 git guards, R30, R33).
# A hostile command plants code for the user's next `git status`, `git commit` or `git fetch`
# on the host: core.fsmonitor in .git/config, a hook, a .git/commondir naming another
# configuration, a config.worktree, a .git renamed away and replaced, a husky hooks path, an
# included file, a missing hooks directory, a fresh .git in a subdirectory of a repository
# (kept, its fsmonitor taken out: newrepo.t), the global ~/.gitconfig.  After every hostile run
# the host's git executes nothing the command wrote.  Controls: the same plants, made on the host without confine, do run (so the marker
# would show).  As root and as uid 65534.
# landlock (SPEC 3.3): a directory holding a protected path is split (.git, the workspace root,
# the home and ~/.config under --allow ~:write); in a writable area confine's supervisor makes
# its new entries, so the plants that bwrap lets through go through there too, and confine
# must rename them aside after the run as on bwrap.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin
command -v git >/dev/null || {
	skip "git is not installed (scripts/install-deps test installs it)"
	done_testing
}

# The hostile script: each attempt prints "NAME:ok" or "NAME:fail".  $1 is the directory the
# planted code marks when it runs (outside the workspace, so only the host can write there).
cat >"$E/bin/hostile.sh" <<'EOF'
#!/bin/sh
M=$1
W=$PWD
# With "only NAME" as $2 $3, only that attempt (the host controls, one plant each).
try() {
	n=$1; shift
	[ "${ONLY:-$n}" = "$n" ] || return 0
	if "$@" >/dev/null 2>&1; then echo "$n:ok"; else echo "$n:fail"; fi
}
[ "${2:-}" = only ] && ONLY=$3
printf '#!/bin/sh\ntouch "%s/PWNED-$1"\nexit 0\n' "$M" >"$W/evil.sh" && chmod +x "$W/evil.sh"
try config sh -c "printf '[core]\n\tfsmonitor = $W/evil.sh config\n' >>.git/config"
try hook sh -c "printf '#!/bin/sh\n$W/evil.sh hook\n' >.git/hooks/pre-commit && chmod +x .git/hooks/pre-commit"
try hook-new sh -c "printf '#!/bin/sh\n$W/evil.sh fetch\n' >.git/hooks/post-checkout"
try commondir sh -c "git init -q --bare evilc && printf '[core]\n\tfsmonitor = $W/evil.sh commondir\n' >>evilc/config && echo '$W/evilc' >.git/commondir"
try worktree sh -c "printf '[core]\n\tfsmonitor = $W/evil.sh worktree\n' >.git/config.worktree"
try modules sh -c "mkdir -p .git/modules/x && printf '[core]\n\tfsmonitor = $W/evil.sh modules\n' >.git/modules/x/config"
[ -n "${ONLY:-}" ] && exit 0
try rename mv .git .git.old
try rename-hooks mv .git/hooks .git/hooks.old
try rmdir-hooks rmdir .git/hooks
EOF
chmod 0755 "$E/bin/hostile.sh"

gitq() { git -c init.defaultBranch=main "$@"; }

mkrepo() { # dir: a repository with one commit and an origin to fetch from
	local d=$1
	mkdir -p "$d"
	gitq init -q "$d"
	git -C "$d" config user.email t@example.invalid
	git -C "$d" config user.name t
	echo a >"$d/a.txt"
	git -C "$d" add a.txt
	git -C "$d" commit -q -m one
	gitq init -q --bare "$d.origin.git"
	git -C "$d" remote add origin "$d.origin.git"
	git -C "$d" push -q origin HEAD 2>/dev/null
}

# The host's git, as the user, in DIR: status, commit and fetch.
host_git() { # who dir
	hx "$1" sh -c "cd '$2' && git status >/dev/null 2>&1; git commit -q --allow-empty -m x >/dev/null 2>&1; git fetch -q origin >/dev/null 2>&1; git checkout -q -b b2 >/dev/null 2>&1; echo done"
}

pwned() { ls "$1" 2>/dev/null | tr '\n' ' ' | sed 's/ $//'; }

for who in $RUN_USERS; do
	h=$(home "$who")
	M=$E/$who/marks
	mkdir -p "$M" && chmod 0777 "$M"

	# ---- Controls: each plant works when made on the host without confine. ----
	for m in config hook commondir worktree; do
		c=$h/control-$m
		mkrepo "$c"
		[ "$m" = worktree ] && git -C "$c" config extensions.worktreeConfig true
		[ "$who" = nobody ] && chown -R 65534:65534 "$h"
		CX_CWD=$c hx "$who" "$E/bin/hostile.sh" "$M" only "$m"
		host_git "$who" "$c"
		[ -e "$M/PWNED-$m" ]
		ok $? "$who: control: the $m plant made without confine runs on the host's git"
		rm -rf "$M"/* "$c" "$c.origin.git"
	done

	# ---- The hostile run in a plain repository. ----
	g=$h/repo
	mkrepo "$g"
	[ "$who" = nobody ] && chown -R 65534:65534 "$h"
	CX_CWD=$g cx "$who" -- "$E/bin/hostile.sh" "$M"
	is "$rc" 0 "$who: the hostile run ends normally"
	is "$(echo "$out" | tr '\n' ' ')" "config:fail hook:fail hook-new:fail commondir:ok worktree:ok modules:ok rename:fail rename-hooks:fail rmdir-hooks:fail " \
		"$who: .git/config, hooks, a rename or removal of .git fail; missing entries can be created"
	[ -e "$g/.git/commondir.confine-disabled" ] && [ ! -e "$g/.git/commondir" ]
	ok $? "$who: R30 the planted .git/commondir was renamed aside after the run"
	[ -e "$g/.git/config.worktree.confine-disabled" ] && [ ! -e "$g/.git/config.worktree" ]
	ok $? "$who: the planted .git/config.worktree too"
	# R30 refined: a new modules/ stays; what is not a submodule's git directory goes.
	[ -e "$g/.git/modules/x/config.confine-disabled" ] && [ ! -e "$g/.git/modules/x/config" ]
	ok $? "$who: and the configuration planted in .git/modules"
	grep -q "protected path created during the run: '$g/.git/commondir'.*renamed to '$g/.git/commondir.confine-disabled'" <<<"$err"
	ok $? "$who: the warning names it and where it went"
	host_git "$who" "$g"
	is "$out" done "$who: the host's git status, commit, fetch and checkout run"
	is "$(pwned "$M")" "" "$who: and execute nothing the command wrote"
	is "$(git -C "$g" config --get core.fsmonitor)" "" "$who: .git/config is unchanged"

	# ---- husky: core.hooksPath .husky/_ and the scripts beside it. ----
	hk=$h/husky
	mkrepo "$hk"
	mkdir -p "$hk/.husky/_"
	printf '#!/bin/sh\n. "$(dirname "$0")/../pre-commit"\n' >"$hk/.husky/_/pre-commit"
	printf 'true\n' >"$hk/.husky/pre-commit"
	chmod +x "$hk/.husky/_/pre-commit"
	git -C "$hk" config core.hooksPath .husky/_
	[ "$who" = nobody ] && chown -R 65534:65534 "$h"
	CX_CWD=$hk cx "$who" -- sh -c "
		printf '#!/bin/sh\n$E/bin/hostile.sh $M\n' >.husky/_/pre-commit 2>/dev/null; echo \$?
		printf '$hk/evil.sh husky\n' >.husky/pre-commit 2>/dev/null; echo \$?
		mv .husky .husky.old 2>/dev/null; echo \$?
		printf '#!/bin/sh\ntouch $M/PWNED-husky-new\n' >.husky/_/post-commit 2>/dev/null; echo \$?"
	is "$(echo "$out" | tr '\n' ' ')" "2 2 1 2 " "$who: the hooks path .husky/_ and its parent .husky are read-only and pinned"
	host_git "$who" "$hk"
	is "$(pwned "$M")" "" "$who: the host's commit runs husky's own hook only"

	# ---- An include and a missing hooks path: created by the command, renamed aside. ----
	in=$h/incl
	mkrepo "$in"
	mkdir -p "$in/conf" "$in/tools" "$in/out"
	P="" Q="" X=""
	git -C "$in" config include.path "../$P.gitconfig.local"
	git -C "$in" config core.hooksPath "${Q}githooks"
	[ "$who" = nobody ] && chown -R 65534:65534 "$h"
	CX_CWD=$in cx "$who" -- sh -c "
		printf '#!/bin/sh\ntouch $M/PWNED-\$1\n' >${X}evil.sh && chmod +x ${X}evil.sh
		printf '[core]\n\tfsmonitor = $in/${X}evil.sh include\n' >$P.gitconfig.local; echo \$?
		mkdir ${Q}githooks && printf '#!/bin/sh\n$in/${X}evil.sh hookspath\n' >${Q}githooks/pre-commit && chmod +x ${Q}githooks/pre-commit; echo \$?"
	is "$(echo "$out" | tr '\n' ' ')" "0 0 " "$who: the missing include and hooks directory can be created inside"
	[ -e "$in/$P.gitconfig.local.confine-disabled" ] && [ -e "$in/${Q}githooks.confine-disabled" ] &&
		[ ! -e "$in/$P.gitconfig.local" ] && [ ! -e "$in/${Q}githooks" ]
	ok $? "$who: both were renamed aside after the run"
	host_git "$who" "$in"
	is "$(pwned "$M")" "" "$who: the host's git executes neither"
	# Control: the same include made on the host runs.
	CX_CWD=$in hx "$who" sh -c "printf '[core]\n\tfsmonitor = $in/${X}evil.sh include-control\n' >$P.gitconfig.local"
	host_git "$who" "$in"
	[ -e "$M/PWNED-include-control" ]
	ok $? "$who: control: the include made on the host runs"
	rm -f "$M"/* "$in/$P.gitconfig.local"

	# ---- A fresh .git in a subdirectory of a repository (the workspace is not a repo). ----
	outer=$h/outer
	mkrepo "$outer"
	mkdir -p "$outer/sub"
	echo s >"$outer/sub/s.txt"
	[ "$who" = nobody ] && chown -R 65534:65534 "$h"
	CX_CWD=$outer/sub cx "$who" -- sh -c "
		printf '#!/bin/sh\ntouch $M/PWNED-newgit\n' >evil.sh && chmod +x evil.sh
		git init -q . && git config core.fsmonitor $outer/sub/evil.sh; echo \$?"
	is "$out" 0 "$who: git init in a workspace that is not a repository works inside"
	# R30 refined (newrepo.t has the rest): the new repository stays, its fsmonitor goes.
	[ -d "$outer/sub/.git" ] && [ -e "$outer/sub/.git/config.confine-disabled" ] &&
		! grep -q fsmonitor "$outer/sub/.git/config"
	ok $? "$who: the new .git stays, without the planted core.fsmonitor"
	hx "$who" sh -c "cd '$outer/sub' && git status >/dev/null 2>&1; echo done"
	is "$(pwned "$M")" "" "$who: the host's git in the subdirectory runs nothing the command wrote"

	# ---- The global configuration under an allow of the home. ----
	gl=$h/glob
	mkrepo "$gl"
	rm -rf "$h/.config/git"
	EV=$h
	[ "$who" = nobody ] && chown -R 65534:65534 "$h"
	CX_CWD=$gl cx "$who" --allow "$h:write" -- sh -c "
		printf '#!/bin/sh\ntouch $M/PWNED-global\n' >$EV/evil-global.sh && chmod +x $EV/evil-global.sh
		printf '[core]\n\tfsmonitor = $EV/evil-global.sh\n' >$h/.gitconfig; echo \$?
		mkdir -p $h/.config/git && printf '[core]\n\tfsmonitor = $EV/evil-global.sh\n' >$h/.config/git/config; echo \$?"
	is "$(echo "$out" | tr '\n' ' ')" "0 0 " "$who: under --allow ~:write the missing global configs can be created"
	[ ! -e "$h/.gitconfig" ] && [ -e "$h/.gitconfig.confine-disabled" ] && [ ! -e "$h/.config/git/config" ]
	ok $? "$who: ~/.gitconfig and ~/.config/git/config were renamed aside"
	host_git "$who" "$gl"
	is "$(pwned "$M")" "" "$who: the host's git executes nothing"
	printf '[user]\n\tname = t\n' >"$h/.gitconfig"
	[ "$who" = nobody ] && chown 65534:65534 "$h/.gitconfig"
	CX_CWD=$gl cx "$who" --allow "$h:write" -- "$TRYOP" append "$h/.gitconfig"
	is "$out" "$(bk EROFS EACCES)" "$who: an existing ~/.gitconfig is read-only even under --allow ~:write"
	rm -f "$h/.gitconfig"

	# A ~/.gitconfig that is a symlink into a dotfiles directory: the target is read-only, and
	# the link itself (no mount can hold a symlink) replaced by the command is renamed aside.
	mkdir -p "$h/dotfiles" && printf '[user]\n\tname = t\n' >"$h/dotfiles/gitconfig"
	ln -s dotfiles/gitconfig "$h/.gitconfig"
	[ "$who" = nobody ] && chown -R -h 65534:65534 "$h/dotfiles" "$h/.gitconfig"
	CX_CWD=$gl cx "$who" --allow "$h:write" -- sh -c "
		echo x >>$h/dotfiles/gitconfig 2>/dev/null; echo \$?
		rm $h/.gitconfig && printf '[core]\n\tfsmonitor = $h/evil-global.sh\n' >$h/.gitconfig; echo \$?"
	is "$(echo "$out" | tr '\n' ' ')" "2 0 " "$who: the link's target is read-only; the link can be replaced inside"
	[ ! -e "$h/.gitconfig" ] && [ -e "$h/.gitconfig.confine-disabled" ]
	ok $? "$who: R30 the replaced link was renamed aside after the run" || diag "$(ls -la "$h")" "$err"
	host_git "$who" "$gl"
	is "$(pwned "$M")" "" "$who: the host's git executes nothing"
	rm -rf "$h/dotfiles" "$h/.gitconfig.confine-disabled" "$h/.gitconfig"

	# Under policy off (an explicit choice) nothing is renamed: the command did what it was let.
	plain=$h/plain
	mkdir -p "$plain" && [ "$who" = nobody ] && chown 65534:65534 "$plain"
	xenv=(CONFINE_SANDBOX_POLICY=off)
	CX_CWD=$plain cx "$who" -- git init -q .
	[ -d "$plain/.git" ] && [ ! -e "$plain/.git.confine-disabled" ]
	ok $? "$who: policy off: a .git the command made stays where it is"
done
done_testing
