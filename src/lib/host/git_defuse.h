/* SPDX-License-Identifier: MIT */
/*
 * A repository the command created in the workspace (R30 refined): after the run, what the
 * host's git would run or follow is moved aside, and the rest stays, so that `git init`,
 * `git clone URL .` and `git worktree add` leave a repository the user can go on with.
 */
#ifndef CONFINE_HOST_GIT_DEFUSE_H
#define CONFINE_HOST_GIT_DEFUSE_H

#include <stddef.h>

#include "util/util.h"

/* At most this many changes are listed; the rest are counted in `more`. */
#define CF_GIT_CHANGES_MAX 64

struct cf_git_change {
	char *path; /* the entry as the command left it */
	char *to;   /* where it is now; NULL when it could not be moved (err says why) */
	char *keys; /* a configuration written anew: the keys taken out (", "); else NULL */
	int err;
};

struct cf_git_changes {
	struct cf_git_change *v;
	size_t n, cap;
	size_t more; /* changes made beyond CF_GIT_CHANGES_MAX, counted only */
};

void cf_git_changes_release(struct cf_git_changes *c);

enum cf_git_new {
	CF_GIT_NEW_REPO,      /* the workspace's `.git`: a directory, or a file naming one */
	CF_GIT_NEW_WORKTREES, /* a git directory's `worktrees` (git worktree add) */
	CF_GIT_NEW_MODULES,   /* a git directory's `modules` (git submodule) */
	CF_GIT_NEW_WORKTREE,  /* one new entry of an existing `worktrees` (git worktree add) */
};

/*
 * `path` did not exist at launch and the command created it; `workspace` is canonical.  What
 * the host's git would run or be sent elsewhere by is moved aside in place (NAME becomes
 * NAME.confine-disabled, or NAME.confine-disabled-N; nothing is replaced or deleted):
 *  - every entry of a git directory outside an allow-list of what git init, clone, worktree
 *    add and submodule make (HEAD, objects, refs, index, ...), and every allowed name that is
 *    not of the expected type (a symlink, a FIFO);
 *  - hooks other than regular `*.sample` files;
 *  - configuration keys outside cf_gitconfig_filter's allow-list (the configuration is written
 *    anew beside the moved original); a configuration that cannot be parsed, moved whole;
 *  - a `commondir` in a repository, or a worktree's that is not its own common directory; a
 *    worktree's `gitdir` and a submodule's core.worktree that point outside the workspace;
 *  - a `.git` file naming a git directory outside the workspace.
 * A directory that cannot be read through (permissions, too many entries, too deep) is moved
 * aside whole.  Every step is relative to a descriptor and follows no symlink.  Returns 0, or
 * CONFINE_E_NOMEM (what was done so far is in *out).  Touches the OS.
 */
int cf_git_defuse(const char *workspace, const char *path, enum cf_git_new kind,
		  struct cf_git_changes *out);

/*
 * A `.git` file the command made in a directory of the workspace below its root (`git worktree
 * add`, `git submodule add`, or a plant): it stays when its `gitdir:` (relative to the
 * directory holding it) names, as written and as resolved, one of `gitdirs` (the workspace's
 * git directories after the run), or a directory below the `worktrees/` or `modules/` of one:
 * those are guarded since launch or looked through as new (their own cases).  Anything else
 * is moved aside in place, and what it names is left alone (it may be the user's).  Returns 0
 * or CONFINE_E_NOMEM.  Touches the OS.
 */
int cf_git_defuse_gitfile(const char *workspace, const char *path, const struct cf_strv *gitdirs,
			  struct cf_git_changes *out);

#endif
