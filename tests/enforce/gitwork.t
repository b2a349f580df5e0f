#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Git work in a repository that existed at launch (issue 22 follow-up, R30): what git resumes
# later and what git worktree add needs.
#  - An interrupted rebase's todo list (.git/rebase-merge: its exec lines run at the host's
#    next `git rebase --continue`), a cherry-pick sequence (.git/sequencer: its picks go into
#    the user's branch at `git cherry-pick --continue`), an am session (.git/rebase-apply), a
#    legacy remote definition (.git/remotes: where `git fetch NAME` goes): made by the command,
#    renamed aside after the run; the user's own, present at launch, read-only.  A rebase that
#    starts and ends inside works.
#  - .git/worktrees with worktrees in it: `git worktree add` works inside; the existing
#    worktrees' commondir and gitdir are read-only, a config.worktree planted in one is renamed
#    aside, and a new worktree's pointers out of the workspace are moved aside.
# Controls: each plant made on the host without confine is acted on by the host's git.  As root
# and as uid 65534, on both backends.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin
command -v git >/dev/null || {
	skip "git is not installed (scripts/install-deps test installs it)"
	done_testing
}

# The hostile command's plants, one per name ($2), in a repository of mkrepo; $1 the marks
# directory.  Prints NAME:ok or NAME:fail.
cat >"$E/bin/gitwork.sh" <<'EOF'
#!/bin/sh
M=$1
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@x GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@x
res() { if [ "$1" = 0 ]; then echo "$2:ok"; else echo "$2:fail"; fi; }
case $2 in
rebase)
	# A real interactive rebase that stops, then an exec line for the host's --continue.
	GIT_SEQUENCE_EDITOR='sed -i 1s/^pick/edit/' git rebase -q -i HEAD~1 >/dev/null 2>&1 &&
		echo "exec touch $M/PWNED-rebase" >>.git/rebase-merge/git-rebase-todo
	res $? rebase ;;
sequencer)
	# A cherry-pick of two commits that stops on a conflict, then one pick more.
	git cherry-pick side~1 side >/dev/null 2>&1
	[ -d .git/sequencer ] && echo "pick $(git rev-parse evil) evil" >>.git/sequencer/todo
	res $? sequencer ;;
rebase-apply)
	# A real git am that stops (its patch does not apply), then one patch more.
	p1=$(mktemp) && git format-patch -1 --stdout side~1 >"$p1" && git am "$p1" >/dev/null 2>&1
	rm -f "$p1"
	[ -d .git/rebase-apply ] && git format-patch -1 --stdout evil >.git/rebase-apply/0002 &&
		echo 2 >.git/rebase-apply/last
	res $? rebase-apply ;;
remotes)
	mkdir -p .git/remotes && printf 'URL: %s\nPull: refs/heads/main:refs/remotes/up/main\n' "$3" >.git/remotes/up
	res $? remotes ;;
esac
exit 0
EOF
chmod 0755 "$E/bin/gitwork.sh"

own() { [ "$1" = nobody ] && chown -R 65534:65534 "$2"; return 0; }
pwned() { ls "$1" 2>/dev/null | tr '\n' ' ' | sed 's/ $//'; }
# mkrepo DIR (then own WHO DIR): main with a.txt; side~1 changes a.txt (a conflict with main's second
# commit), side adds s.txt; evil adds evil.txt.
mkrepo() {
	local d=$1
	rm -rf "$d" && mkdir -p "$d"
	(cd "$d" && export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@x GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@x &&
		git -c init.defaultBranch=main init -q . && echo a >a.txt && git add a.txt && git commit -q -m one &&
		git checkout -q -b side && echo s >a.txt && git commit -q -am s1 && echo s >s.txt && git add s.txt && git commit -q -m s2 &&
		git checkout -q -b evil main && echo e >evil.txt && git add evil.txt && git commit -q -m evil &&
		git checkout -q main && echo m >a.txt && git commit -q -am two) || return 1
}
# What the user does next on the host, for each plant.
resume() { # who dir plant
	case $3 in
	rebase) hx "$1" sh -c "cd '$2' && GIT_EDITOR=true git rebase --continue >/dev/null 2>&1; git status --short; true" ;;
	sequencer) hx "$1" sh -c "cd '$2' && git checkout -q --theirs a.txt && git add a.txt &&
		GIT_EDITOR=true git -c user.email=t@x -c user.name=t cherry-pick --continue >/dev/null 2>&1; ls" ;;
	rebase-apply) hx "$1" sh -c "cd '$2' && git -c user.email=t@x -c user.name=t am --skip >/dev/null 2>&1; ls" ;;
	remotes) hx "$1" sh -c "cd '$2' && git fetch -q up >/dev/null 2>&1 && git log --format=%s -1 up/main" ;;
	esac
}
acted() { # plant out marks: whether the host's git acted on the plant
	case $1 in
	rebase) [ -e "$3/PWNED-rebase" ] ;;
	sequencer | rebase-apply) grep -qx evil.txt <<<"$2" ;;
	remotes) [ "$2" = other ] ;;
	esac
}

for who in $RUN_USERS; do
	h=$(home "$who")
	M=$E/$who/marks
	mkdir -p "$M" && chmod 0777 "$M"
	# Where the planted remote points: another repository of the user's.
	o=$h/other.git
	rm -rf "$o" && git -c init.defaultBranch=main init -q --bare "$o" &&
		(w=$(mktemp -d) && cd "$w" && git -c init.defaultBranch=main init -q . &&
			git -c user.email=t@x -c user.name=t commit -q --allow-empty -m other &&
			git push -q "$o" main && rm -rf "$w")
	own "$who" "$o"

	# ---- Each plant: made on the host it is acted on; made inside it is moved aside. ----
	for p in rebase sequencer rebase-apply remotes; do
		g=$h/ctl-$p
		mkrepo "$g" && own "$who" "$g"
		CX_CWD=$g hx "$who" "$E/bin/gitwork.sh" "$M" "$p" "file://$o"
		is "$out" "$p:ok" "$who: control: the $p plant is made on the host"
		resume "$who" "$g" "$p"
		acted "$p" "$out" "$M"
		ok $? "$who: control: the host's git acts on the $p plant" || diag "$out"
		rm -rf "$M"/* "$g"

		g=$h/in-$p
		mkrepo "$g" && own "$who" "$g"
		CX_CWD=$g cx "$who" -- "$E/bin/gitwork.sh" "$M" "$p" "file://$o"
		is "$rc:$out" "0:$p:ok" "$who: the $p plant can be made inside"
		d=$p
		[ "$p" = rebase ] && d=rebase-merge
		[ -e "$g/.git/$d.confine-disabled" ] && [ ! -e "$g/.git/$d" ]
		ok $? "$who: R30 the planted .git/$d was renamed aside after the run"
		grep -q "protected path created during the run: '$g/.git/$d'" <<<"$err"
		ok $? "$who: the warning names .git/$d"
		resume "$who" "$g" "$p"
		acted "$p" "$out" "$M"
		ok $((!$?)) "$who: the host's git does not act on the $p plant made inside" || diag "$out"
		is "$(pwned "$M")" "" "$who: nothing the command wrote ran on the host"
		rm -rf "$M"/* "$g"
	done

	# ---- A rebase that starts and ends inside: its exec lines run there, nothing stays. ----
	g=$h/rebase-ok
	mkrepo "$g" && own "$who" "$g"
	CX_CWD=$g cx "$who" -- sh -c "GIT_SEQUENCE_EDITOR=\"sed -i '1a exec echo inside-exec'\" git -c user.email=t@x -c user.name=t rebase -q -i HEAD~1 2>/dev/null"
	is "$rc:$out" "0:inside-exec" "$who: git rebase -i with an exec line runs to its end inside"
	hx "$who" sh -c "cd '$g' && git status --short && ls .git | grep -c confine-disabled"
	is "$out" 0 "$who: nothing moved aside, the host's repository is clean"

	# ---- The user's own interrupted rebase, present at launch, is read-only inside. ----
	g=$h/rebase-user
	mkrepo "$g" && own "$who" "$g"
	CX_CWD=$g hx "$who" sh -c "GIT_SEQUENCE_EDITOR='sed -i 1s/^pick/edit/' git -c user.email=t@x -c user.name=t rebase -q -i HEAD~1 >/dev/null 2>&1; test -f .git/rebase-merge/git-rebase-todo"
	is "$rc" 0 "$who: control: the host's rebase stopped and left its todo list"
	CX_CWD=$g hx "$who" "$TRYOP" append "$g/.git/rebase-merge/git-rebase-todo"
	is "$out" OK "$who: control: the todo list can be written on the host"
	CX_CWD=$g cx "$who" -- "$TRYOP" append "$g/.git/rebase-merge/git-rebase-todo"
	is "$out" "$(bk EROFS EACCES)" "$who: the user's todo list is read-only inside"

	# ---- .git/worktrees with worktrees in it. ----
	g=$h/wt/repo
	rm -rf "$h/wt" && mkdir -p "$h/wt"
	mkrepo "$g"
	git -C "$g" config extensions.worktreeConfig true
	git -C "$g" worktree add -q ../outside 2>/dev/null && git -C "$g" worktree add -q inwt 2>/dev/null
	mkdir "$g/.git/worktrees/stale" && git -C "$g" rev-parse HEAD >"$g/.git/worktrees/stale/HEAD"
	git init -q --bare "$h/wt/evilc" && printf '[core]\n\tfsmonitor = touch %s/PWNED-commondir\n' "$M" >>"$h/wt/evilc/config"
	own "$who" "$h/wt"
	# Control: a config.worktree made on the host in an existing worktree runs there.
	hx "$who" sh -c "printf '[core]\n\tfsmonitor = touch $M/PWNED-ctl\n' >'$g/.git/worktrees/outside/config.worktree' && cd '$h/wt/outside' && git status >/dev/null 2>&1"
	[ -e "$M/PWNED-ctl" ]
	ok $? "$who: control: a config.worktree planted on the host runs at the next git in that worktree"
	rm -f "$M"/* "$g/.git/worktrees/outside/config.worktree"
	CX_CWD=$g cx "$who" -- sh -c "git worktree add -q sub/new >/dev/null 2>&1; echo add:\$?
		git worktree add -q wt3 >/dev/null 2>&1 && echo '$h/wt/evilc' >.git/worktrees/wt3/commondir; echo wt3:\$?
		$TRYOP append .git/worktrees/outside/commondir
		$TRYOP append .git/worktrees/outside/gitdir
		printf '[core]\n\tfsmonitor = touch $M/PWNED-cw\n' >.git/worktrees/outside/config.worktree; echo cw:\$?
		rm -rf .git/worktrees/stale && ln -s '$h/wt/evilc' .git/worktrees/stale; echo stale:\$?"
	is "$(echo $out)" "add:0 wt3:0 $(bk EROFS EACCES) $(bk EROFS EACCES) cw:0 stale:0" \
		"$who: git worktree add works inside; the existing worktrees' commondir and gitdir are read-only"
	hx "$who" sh -c "cd '$g/sub/new' && git status --short && git log --format=%s -1"
	is "$rc:$out" "0:two" "$who: the new worktree works for the host's git"
	[ -e "$g/.git/worktrees/wt3/commondir.confine-disabled" ] && [ ! -e "$g/.git/worktrees/wt3/commondir" ] &&
		[ -e "$g/.git/worktrees/new/commondir" ]
	ok $? "$who: a new worktree's commondir out of the workspace was moved aside, the clean one stays"
	[ -e "$g/.git/worktrees/outside/config.worktree.confine-disabled" ] && [ ! -e "$g/.git/worktrees/outside/config.worktree" ]
	ok $? "$who: the config.worktree planted in an existing worktree was renamed aside"
	[ -L "$g/.git/worktrees/stale.confine-disabled" ] && [ ! -e "$g/.git/worktrees/stale" ]
	ok $? "$who: an existing entry replaced by a symlink was moved aside"
	hx "$who" sh -c "cd '$h/wt/outside' && git status >/dev/null && cd '$g/inwt' && git status >/dev/null && cd '$g/wt3' && git status >/dev/null 2>&1; git -C '$g' worktree list | wc -l"
	is "$out" 5 "$who: the user's worktrees work; git worktree list shows all four and the main one"
	is "$(pwned "$M")" "" "$who: the host's git in every worktree runs nothing the command wrote"
	rm -rf "$M"/*

	# An empty worktrees/ (after git worktree prune) holds no guard that pins it: replaced by
	# a symlink to worktrees the command made, it is renamed aside after the run.
	g=$h/wtempty
	mkrepo "$g" && mkdir "$g/.git/worktrees" && own "$who" "$g"
	plant="mkdir -p evilwt/x && echo '$g/xx/.git' >evilwt/x/gitdir && echo ../.. >evilwt/x/commondir &&
		git rev-parse HEAD >evilwt/x/HEAD && mkdir xx && echo 'gitdir: $g/.git/worktrees/x' >xx/.git &&
		rmdir .git/worktrees && ln -s ../evilwt .git/worktrees && echo ok"
	CX_CWD=$g hx "$who" sh -c "$plant && git worktree list | wc -l"
	is "$(echo $out)" "ok 2" "$who: control: worktrees/ replaced by a symlink on the host: git follows it"
	rm -rf "$g"
	mkrepo "$g" && mkdir "$g/.git/worktrees" && own "$who" "$g"
	CX_CWD=$g cx "$who" -- sh -c "$plant"
	is "$out" ok "$who: an empty worktrees/ can be replaced by a symlink inside"
	[ -L "$g/.git/worktrees.confine-disabled" ] && [ ! -e "$g/.git/worktrees" ]
	ok $? "$who: the symlink was renamed aside after the run"
	hx "$who" sh -c "cd '$g' && git worktree list | wc -l"
	is "$out" 1 "$who: the host's git lists no worktree the command made"

	# ---- Repositories nested in the workspace: vendor/x/.git, a submodule's .git file. ----
	g=$h/nest
	mkrepo "$g"
	gitq() { git -c init.defaultBranch=main -c user.email=t@x -c user.name=t "$@"; }
	gitq init -q "$g/vendor/x" && gitq -C "$g/vendor/x" commit -q --allow-empty -m vx
	own "$who" "$g"
	hx "$who" sh -c "cd '$g' && git -c protocol.file.allow=always submodule add -q 'file://$o' lib >/dev/null 2>&1 &&
		git -c user.email=t@x -c user.name=t commit -q -m sub"
	[ -d "$g/vendor/x/.git/hooks" ] && [ -f "$g/lib/.git" ] && [ -d "$g/.git/modules/lib" ]
	ok $? "$who: setup: a nested repository and a submodule"
	# Controls: a hook and a core.fsmonitor made on the host in the nested repository run.
	hx "$who" sh -c "cd '$g/vendor/x' && printf '#!/bin/sh\ntouch $M/PWNED-ctl-hook\n' >.git/hooks/pre-commit && chmod +x .git/hooks/pre-commit &&
		git config core.fsmonitor 'touch $M/PWNED-ctl-fsm' && git status >/dev/null 2>&1; git -c user.email=t@x -c user.name=t commit -q --allow-empty -m c >/dev/null 2>&1; true"
	is "$(pwned "$M")" "PWNED-ctl-fsm PWNED-ctl-hook" "$who: control: a hook and core.fsmonitor made on the host in vendor/x run at its next git"
	hx "$who" sh -c "cd '$g/vendor/x' && rm -f .git/hooks/pre-commit && git config --unset core.fsmonitor"
	rm -f "$M"/*
	CX_CWD=$g cx "$who" -- sh -c "
		$TRYOP write vendor/x/.git/hooks/pre-commit
		$TRYOP append vendor/x/.git/config
		$TRYOP append lib/.git
		printf '[core]\n\tfsmonitor = touch $M/PWNED-cw\n' >vendor/x/.git/config.worktree; echo cw:\$?
		mkdir vendor/x/.git/rebase-merge; echo rm:\$?"
	E2=$(bk EROFS EACCES)
	is "$(echo $out)" "$E2 $E2 $E2 cw:0 rm:0" \
		"$who: vendor/x's hooks and config and lib's .git file are read-only inside"
	[ -e "$g/vendor/x/.git/config.worktree.confine-disabled" ] && [ -e "$g/vendor/x/.git/rebase-merge.confine-disabled" ] &&
		[ ! -e "$g/vendor/x/.git/config.worktree" ] && [ ! -e "$g/vendor/x/.git/rebase-merge" ]
	ok $? "$who: a config.worktree and a rebase-merge made in vendor/x/.git were renamed aside"

	CX_CWD=$g hx "$who" "$FIX/confine" explain --json vendor/x/.git/hooks/pre-commit
	is "$(jq -r '.[] | select(.access == "write") | "\(.decision) \(.layer) \(.rule.pattern)"' <<<"$out")" \
		"deny guard vendor/x/.git/hooks" "$who: explain names the nested repository's guard"

	# New repositories below the workspace's root: git init, git clone, a .git file.
	CX_CWD=$g cx "$who" -- sh -c "
		git -c init.defaultBranch=main init -q vendor/y && printf '#!/bin/sh\ntouch $M/PWNED-y-hook\n' >vendor/y/.git/hooks/pre-commit &&
			chmod +x vendor/y/.git/hooks/pre-commit && git -C vendor/y config core.fsmonitor 'touch $M/PWNED-y-fsm'; echo y:\$?
		git clone -q 'file://$o' sub/clone 2>/dev/null; echo clone:\$?
		git init -q evilsrc && mv evilsrc/.git evilgd && git --git-dir=evilgd config core.fsmonitor 'touch $M/PWNED-z' &&
			mkdir z && echo 'gitdir: ../evilgd' >z/.git; echo z:\$?"
	is "$(echo $out)" "y:0 clone:0 z:0" "$who: git init, git clone and a .git file below the root can be made inside"
	[ -d "$g/vendor/y/.git" ] && [ -e "$g/vendor/y/.git/hooks/pre-commit.confine-disabled" ] &&
		[ ! -e "$g/vendor/y/.git/hooks/pre-commit" ] && ! grep -q fsmonitor "$g/vendor/y/.git/config"
	ok $? "$who: the new vendor/y stays, its planted hook and core.fsmonitor moved aside"
	[ -e "$g/z/.git.confine-disabled" ] && [ ! -e "$g/z/.git" ] && [ -d "$g/evilgd" ]
	ok $? "$who: a .git file naming a directory that is no repository of the workspace was moved aside"
	grep -q "new repository: '$g/vendor/y/.git/hooks/pre-commit'" <<<"$err" && grep -q "new repository: '$g/z/.git'" <<<"$err"
	ok $? "$who: the warnings name them"
	hx "$who" sh -c "cd '$g/sub/clone' && git log --format=%s && ls .git | grep -c confine-disabled"
	is "$(echo $out)" "other 0" "$who: the clone in a subdirectory works on the host, nothing moved"
	hx "$who" sh -c "cd '$g/vendor/x' && git status >/dev/null && git -c user.email=t@x -c user.name=t commit -q --allow-empty -m c2 &&
		cd '$g/vendor/y' && git status >/dev/null && git -c user.email=t@x -c user.name=t commit -q --allow-empty -m c3 &&
		cd '$g/lib' && git status >/dev/null && cd '$g/z' && git status >/dev/null 2>&1; cd '$g' && git status >/dev/null && echo done"
	is "$out" done "$who: the host's git works in every nested repository"
	is "$(pwned "$M")" "" "$who: and runs nothing the command wrote"
	# The post-run scan's budgets: a tree deeper than it goes makes it fail; that is said,
	# with the nested repositories it could not look through.
	CX_CWD=$g cx "$who" -- sh -c "mkdir -p deep/$(printf 'd/%.0s' $(seq 70)) && git init -q deep/y && echo ok"
	is "$out" ok "$who: a tree deeper than the scan's budget and a repository made inside"
	grep -q "post-run check failed (dynamic_glob_scan_failed): .*a .git made during the run below the workspace's root was not looked through either" <<<"$err"
	ok $? "$who: the failed post-run scan is said, and that new repositories were not looked through" || diag "$err"
	rm -rf "$g/deep"

	# Control: the same .git file made on the host sends its git to evilgd.
	hx "$who" sh -c "cd '$g' && echo 'gitdir: ../evilgd' >z/.git && cd z && git status >/dev/null 2>&1; true"
	[ -e "$M/PWNED-z" ]
	ok $? "$who: control: a .git file naming evilgd, made on the host, runs its fsmonitor"
	rm -rf "$M"/*
done
done_testing
