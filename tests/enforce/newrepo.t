#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# New repositories (R30 refined, issue 22): `git init`, `git clone URL .` and `git worktree add`
# in the workspace leave a repository the user can go on with on the host, and nothing the
# command planted in it runs at the host's next `git`: hooks other than *.sample, configuration
# keys outside the allow-list (core.fsmonitor, core.hooksPath, include.path, aliases, filters,
# core.sshCommand, and every other), a config.worktree, a commondir, a worktree's pointers
# outside the workspace, an interactive rebase's todo list, a hooks directory that is a
# symlink, a configuration git cannot parse, a `.git` file naming a directory outside.
# Controls: the same plants made on the host without confine run at the host's next git (the
# marker shows).  As root and as uid 65534, on both backends (landlock: the supervisor makes
# the new entries of the split `.git`, so `git worktree add` works there too).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin
command -v git >/dev/null || {
	skip "git is not installed (scripts/install-deps test installs it)"
	done_testing
}

# The hostile command: a repository with one commit, then each plant; prints NAME:ok|fail.
# $1: the marks directory (outside the workspace: only the host can write there).  With
# ONLY=NAME in the environment, only that plant (the host controls).
cat >"$E/bin/newrepo.sh" <<'EOF'
#!/bin/sh
M=$1
W=$PWD
git -c init.defaultBranch=main init -q . || exit 3
git config user.email t@example.invalid && git config user.name t || exit 3
echo a >a.txt && git add a.txt && git commit -q -m one || exit 3
printf '#!/bin/sh\ntouch "%s/PWNED-$1"\nexit 0\n' "$M" >"$W/evil.sh" && chmod +x "$W/evil.sh"
plant() {
	n=$1
	shift
	[ "${ONLY:-$n}" = "$n" ] || return 0
	if "$@" >/dev/null 2>&1; then echo "$n:ok"; else echo "$n:fail"; fi
}
plant hook sh -c "printf '#!/bin/sh\n$W/evil.sh hook\n' >.git/hooks/pre-commit && chmod +x .git/hooks/pre-commit"
plant symlink-hook sh -c "printf '#!/bin/sh\n$W/evil.sh symlink-hook\n' >sl.sh && chmod +x sl.sh && ln -s ../../sl.sh .git/hooks/post-commit"
plant fsmonitor git config core.fsmonitor "$W/evil.sh fsmonitor"
plant hookspath sh -c "mkdir hk && printf '#!/bin/sh\n$W/evil.sh hookspath\n' >hk/post-checkout && chmod +x hk/post-checkout && git config core.hookspath hk"
plant include sh -c "printf '[core]\n\tfsmonitor = $W/evil.sh include\n' >inc.cfg && git config include.path ../inc.cfg"
plant worktreeconfig sh -c "git config extensions.worktreeConfig true && printf '[core]\n\tfsmonitor = $W/evil.sh worktreeconfig\n' >.git/config.worktree"
plant commondir sh -c "git init -q --bare evilc && printf '[core]\n\tfsmonitor = $W/evil.sh commondir\n' >>evilc/config && echo '$W/evilc' >.git/commondir"
plant rebase sh -c "mkdir .git/rebase-merge && echo 'exec $W/evil.sh rebase' >.git/rebase-merge/git-rebase-todo"
exit 0
EOF
chmod 0755 "$E/bin/newrepo.sh"

plants="hook symlink-hook fsmonitor hookspath include worktreeconfig commondir"

# The host's git, as the user, in DIR: what a user types next.
host_git() { # who dir
	hx "$1" sh -c "cd '$2' && git status >/dev/null 2>&1; git commit -q --allow-empty -m x >/dev/null 2>&1; git checkout -q -b b2 >/dev/null 2>&1; echo done"
}
pwned() { ls "$1" 2>/dev/null | tr '\n' ' ' | sed 's/ $//'; }
own() { [ "$1" = nobody ] && chown -R 65534:65534 "$2"; return 0; }
fresh() { # who name: an empty directory of WHO's home
	local d
	d=$(home "$1")/$2
	rm -rf "$d" && mkdir -p "$d" && own "$1" "$d"
	echo "$d"
}

for who in $RUN_USERS; do
	h=$(home "$who")
	M=$E/$who/marks
	mkdir -p "$M" && chmod 0777 "$M"

	# ---- Controls: each plant, made on the host without confine, runs at the next git. ----
	for p in $plants; do
		c=$(fresh "$who" "control-$p")
		xenv=(ONLY=$p)
		CX_CWD=$c hx "$who" "$E/bin/newrepo.sh" "$M"
		is "$out" "$p:ok" "$who: control: the $p plant is made on the host"
		host_git "$who" "$c"
		[ -e "$M/PWNED-$p" ]
		ok $? "$who: control: the $p plant runs at the host's next git"
		rm -rf "$M"/* "$c"
	done
	c=$(fresh "$who" control-rebase)
	xenv=(ONLY=rebase)
	CX_CWD=$c hx "$who" sh -c "'$E/bin/newrepo.sh' '$M' && printf 'onto\n' >.git/rebase-merge/interactive &&
		git rev-parse HEAD >.git/rebase-merge/onto && git rev-parse HEAD >.git/rebase-merge/orig-head &&
		echo refs/heads/main >.git/rebase-merge/head-name && git rebase --continue >/dev/null 2>&1; true"
	[ -e "$M/PWNED-rebase" ]
	ok $? "$who: control: a planted rebase todo list runs at the host's git rebase --continue"
	rm -rf "$M"/* "$c"

	# ---- git init, a commit and every plant inside; the repository stays. ----
	g=$(fresh "$who" newrepo)
	CX_CWD=$g cx "$who" --report "$E/$who/report.json" -- "$E/bin/newrepo.sh" "$M"
	run_err=$err
	is "$rc" 0 "$who: git init, git commit and the plants run inside"
	is "$(echo "$out" | tr '\n' ' ')" "hook:ok symlink-hook:ok fsmonitor:ok hookspath:ok include:ok worktreeconfig:ok commondir:ok rebase:ok " \
		"$who: every plant can be made in the new repository"
	[ -d "$g/.git" ] && [ ! -e "$g/.git.confine-disabled" ]
	ok $? "$who: R30 refined: the new .git stays where it is"
	hx "$who" git -C "$g" log --format=%s main
	is "$out" one "$who: the host's git log shows the commit made inside"
	host_git "$who" "$g"
	is "$out" done "$who: the host's git status, commit and checkout run"
	is "$(pwned "$M")" "" "$who: and execute nothing the command wrote"
	hx "$who" git -C "$g" log --format=%s -1
	is "$out" x "$who: the host's commit went into the new repository"
	hx "$who" sh -c "cd '$g' && git config --get core.fsmonitor; git config --get core.hookspath; git config --get include.path; git config --get user.email"
	is "$out" t@example.invalid \
		"$who: core.fsmonitor, core.hooksPath and include.path are gone from .git/config, user.email stays"
	[ -f "$g/.git/config.confine-disabled" ] && grep -q fsmonitor "$g/.git/config.confine-disabled"
	ok $? "$who: the original configuration is kept aside, whole"
	[ -f "$g/.git/hooks/pre-commit.confine-disabled" ] && [ -L "$g/.git/hooks/post-commit.confine-disabled" ] &&
		[ ! -e "$g/.git/hooks/pre-commit" ] && [ ! -L "$g/.git/hooks/post-commit" ]
	ok $? "$who: the planted hooks (a file, a symlink) were renamed aside"
	is "$(ls "$g/.git/hooks" | grep -c '\.sample$')" "$(ls /usr/share/git-core/templates/hooks | grep -c '\.sample$')" \
		"$who: the *.sample hooks git init made stay"
	[ -e "$g/.git/commondir.confine-disabled" ] && [ ! -e "$g/.git/commondir" ] &&
		[ -e "$g/.git/rebase-merge.confine-disabled" ] && [ ! -e "$g/.git/rebase-merge" ]
	ok $? "$who: commondir and the rebase todo list were moved aside"
	[ -e "$g/.git/config.worktree.confine-disabled" ] || ! grep -q fsmonitor "$g/.git/config.worktree"
	ok $? "$who: config.worktree holds no fsmonitor any more"
	grep -q "new repository: '$g/.git/config': keys the host's git would act on were taken out: .*core.fsmonitor" <<<"$run_err" &&
		grep -q "new repository: '$g/.git/hooks/pre-commit': the host's git would run or follow it, so it was moved to '$g/.git/hooks/pre-commit.confine-disabled'" <<<"$run_err"
	ok $? "$who: the warnings name what was moved and where"
	jq -e '[.events[].kind] | index("git_config_filtered") and index("git_moved_aside")' "$E/$who/report.json" >/dev/null
	ok $? "$who: the report lists the changes"
	rm -f "$M"/*

	# ---- A hooks directory that is a symlink, a configuration git cannot parse. ----
	g=$(fresh "$who" newrepo2)
	CX_CWD=$g cx "$who" -- sh -c "git -c init.defaultBranch=main init -q . && mkdir evilhooks &&
		printf '#!/bin/sh\ntouch $M/PWNED-hooksdir\n' >evilhooks/post-checkout && chmod +x evilhooks/post-checkout &&
		rm -rf .git/hooks && ln -s ../evilhooks .git/hooks && printf '[core\n\tfsmonitor = x\n' >>.git/config && echo ok"
	is "$out" ok "$who: a symlinked hooks directory and a broken configuration can be made inside"
	[ -L "$g/.git/hooks.confine-disabled" ] && [ ! -e "$g/.git/hooks" ] &&
		[ -f "$g/.git/config.confine-disabled" ] && [ ! -e "$g/.git/config" ]
	ok $? "$who: both were moved aside whole"
	hx "$who" sh -c "cd '$g' && git checkout -q -b b3 2>&1 && git status --short"
	is "$rc:$(pwned "$M")" "0:" "$who: the host's git works in the repository and runs nothing"

	# ---- git clone URL . from a local repository: nothing to move, the clone works. ----
	o=$(fresh "$who" origin)
	hx "$who" sh -c "git -c init.defaultBranch=main init -q --bare '$o/r.git' && git -c init.defaultBranch=main init -q '$o/w' &&
		cd '$o/w' && echo b >b.txt && git add b.txt && git -c user.email=t@x -c user.name=t commit -q -m first &&
		git push -q '$o/r.git' main"
	g=$(fresh "$who" clone)
	CX_CWD=$g cx "$who" -- git clone -q "file://$o/r.git" .
	is "$rc" 0 "$who: git clone file://... . runs inside"
	run_err=$err
	hx "$who" git -C "$g" log --format=%s
	is "$out" first "$who: the host's git log shows the clone's history"
	hx "$who" sh -c "cd '$g' && git config --get remote.origin.url && git config --get branch.main.merge"
	is "$(echo $out)" "file://$o/r.git refs/heads/main" "$who: remote and branch configuration stay"
	hx "$who" git -C "$g" fetch -q origin
	is "$rc" 0 "$who: the host's git fetch works"
	grep -q "new repository" <<<"$run_err$(ls "$g/.git" | grep confine-disabled)"
	ok $((!$?)) "$who: a plain clone has nothing moved aside and nothing to warn about"

	# ---- git submodule add: the submodule's git directory is looked through as well. ----
	g=$(fresh "$who" subm)
	CX_CWD=$g cx "$who" -- sh -c "git -c init.defaultBranch=main init -q . &&
		git -c protocol.file.allow=always submodule add -q 'file://$o/r.git' lib >/dev/null 2>&1 &&
		git -C lib config core.fsmonitor 'touch $M/PWNED-submodule' && echo ok"
	is "$out" ok "$who: git submodule add runs inside; the submodule's config gets a core.fsmonitor"
	grep -q "new repository: '$g/.git/modules/lib/config': keys .* taken out: core.fsmonitor;" <<<"$err"
	ok $? "$who: the submodule's core.fsmonitor was taken out"
	hx "$who" sh -c "cd '$g/lib' && git status --short && git log --format=%s && git config --get core.worktree"
	is "$(echo $out)" "first ../../../lib" "$who: the submodule works for the host's git, its core.worktree (inside) stays"
	is "$(pwned "$M")" "" "$who: the host's git in the submodule runs nothing"

	# ---- git worktree add in a repository made in the same run: both backends. ----
	g=$(fresh "$who" wtnew)
	CX_CWD=$g cx "$who" -- sh -c "git -c init.defaultBranch=main init -q . && git -c user.email=t@x -c user.name=t commit -q --allow-empty -m one &&
		git worktree add -q sub/wt && echo '$g/evilc' >.git/worktrees/wt/commondir.x && echo ok"
	is "$out" ok "$who: git init and git worktree add in one run"
	hx "$who" sh -c "cd '$g/sub/wt' && git status --short && git log --format=%s"
	is "$out" one "$who: the new worktree works for the host's git"
	[ -e "$g/.git/worktrees/wt/commondir" ] && [ -e "$g/.git/worktrees/wt/commondir.x.confine-disabled" ]
	ok $? "$who: the worktree's own commondir stays; an entry git does not make is moved"

	# ---- git worktree add in a repository that existed at launch. ----
	g=$(fresh "$who" wtold)
	hx "$who" sh -c "cd '$g' && git -c init.defaultBranch=main init -q . && git -c user.email=t@x -c user.name=t commit -q --allow-empty -m one &&
		git init -q --bare '$h/evilc' && printf '[core]\n\tfsmonitor = touch $M/PWNED-wt2\n' >>'$h/evilc/config'"
	CX_CWD=$g cx "$who" -- sh -c "git worktree add -q wt >/dev/null 2>&1 && git worktree add -q wt2 >/dev/null 2>&1 &&
		echo '$h/evilc' >.git/worktrees/wt2/commondir && echo '$h/x/.git' >.git/worktrees/wt2/gitdir && echo ok || echo refused"
	is "$out" ok "$who: git worktree add runs inside; the second worktree's pointers are rewritten"
	hx "$who" sh -c "cd '$g/wt' && git status --short && git log --format=%s"
	is "$out" one "$who: the new worktree works for the host's git"
	[ -e "$g/.git/worktrees/wt2/commondir.confine-disabled" ] && [ -e "$g/.git/worktrees/wt2/gitdir.confine-disabled" ] &&
		[ -e "$g/.git/worktrees/wt/commondir" ] && [ -e "$g/.git/worktrees/wt/gitdir" ]
	ok $? "$who: pointers that lead out of the workspace are moved aside, the others stay"
	hx "$who" sh -c "cd '$g/wt2' && git status >/dev/null 2>&1; true"
	is "$(pwned "$M")" "" "$who: the host's git in the second worktree runs nothing"
done
done_testing
