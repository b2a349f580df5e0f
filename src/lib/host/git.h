/* SPDX-License-Identifier: MIT */
/*
 * What the host's own git reads as configuration or runs, for the repository at the workspace
 * (SPEC 2.3 git guards, R10b; THREATS round 2): found the way git finds it, without running git.
 */
#ifndef CONFINE_HOST_GIT_H
#define CONFINE_HOST_GIT_H

#include <stddef.h>
#include <stdint.h>

#include "confine.h"
#include "util/util.h"

/*
 * One key of a git configuration file: section and key lower-cased, the subsection as written
 * (NULL when none), the value with git's quoting and escapes undone (NULL for a key without
 * '=', which git reads as "true").  Return non-zero to stop.
 */
typedef int (*cf_gitconfig_fn)(void *ctx, const char *section, const char *subsection,
			       const char *key, const char *value);

/*
 * Parses git configuration text (git-config(1) syntax: [section], [section "sub"],
 * [section.sub], key = value, quotes, escapes, line continuations, # and ; comments).  Calls
 * fn for each key.  A line git would reject ends the parse there with CONFINE_E_INVALID (git
 * refuses the whole file; what came before has been reported).  Returns 0, CONFINE_E_INVALID
 * or CONFINE_E_NOMEM.  Pure.
 */
int cf_gitconfig_parse(const char *text, size_t len, cf_gitconfig_fn fn, void *ctx);

/* How many removed key names cf_gitconfig_filter lists (then one "..."). */
#define CF_GITCONFIG_REMOVED_MAX 32

struct cf_gitconfig_policy {
	/* Whether a core.worktree value may stay (a submodule's git directory names its work
	 * tree; it must lie inside the workspace).  NULL: it never stays. */
	bool (*worktree_inside)(void *ctx, const char *value);
	void *ctx;
};

/*
 * The configuration of a repository the command created (R30 refined): appends to *out the
 * keys of an allow-list of what git init, git clone, git worktree add and git submodule write
 * (core.repositoryformatversion, filemode, bare, logallrefupdates, ..., remote.*.url and fetch,
 * branch.*.remote and merge, submodule.*.url and active, extensions.objectformat, user.name
 * and email), each only with a value that names no program and points git nowhere else, in
 * canonical syntax.  Every other key's name goes to *removed once (at most
 * CF_GITCONFIG_REMOVED_MAX, then "...").  Nothing removed: the original may stay as it is.
 * Returns 0, CONFINE_E_INVALID (the text cannot be read for sure: move the file aside whole)
 * or CONFINE_E_NOMEM.  Pure.
 */
int cf_gitconfig_filter(const char *text, size_t len, const struct cf_gitconfig_policy *policy,
			struct cf_buf *out, struct cf_strv *removed);

/* The `worktrees/` directories that existed at launch and stay writable (their entries are
 * guarded one by one), and their entries then: an entry that is not among them was made by
 * the command and is looked through after the run (cf_git_defuse, CF_GIT_NEW_WORKTREE). */
struct cf_git_launch {
	struct cf_strv dirs;
	struct cf_strv entries;
	struct cf_git_ident {
		/* entries.v[i]'s identity at launch (lstat): with its type, as an inode number
		 * freed by rm is given to the next file at once */
		uint64_t dev, ino;
		unsigned type;
	} * ids;
	size_t ids_cap;
};

void cf_git_launch_release(struct cf_git_launch *l);

/*
 * The write guards for the repository at `workspace` (absolute paths, lexically normalised,
 * existing or not; a missing one is re-checked after the run): the `.git` entry itself when it
 * is a file or missing, the git directory's hooks, config, remotes, branches, commondir,
 * config.worktree and the state of an interrupted rebase, cherry-pick or am (rebase-merge,
 * rebase-apply, sequencer), worktrees and modules, the same of the common directory that
 * commondir names, every file that a configuration includes (include.path and
 * includeIf.*.path, every condition taken as true), and each core.hooksPath (from the system,
 * global and repository configuration; a relative one is relative to the workspace, as git
 * runs hooks there).  `home` expands "~/".  With `launch`, an existing `worktrees/` is not
 * guarded whole but entry by entry (each worktree's commondir, gitdir, config.worktree and
 * interrupted sequences), and it goes to *launch with its entries, so that `git worktree add`
 * works; without, it is guarded whole.  Touches the OS: reads at most a few small files and
 * one directory, follows no symlink when reading.
 */
/* The entries of a git directory that the policy guards (policy/guards.c, cf_git_dir_entries):
 * v[0..n) in a git directory, v[0..n_common) in the common directory that commondir names.
 * Handed in by the run: what is guarded is the policy's to say, finding it is host/'s. */
struct cf_git_entries {
	const char *const *v;
	size_t n, n_common;
};

int cf_host_git_guards(const char *workspace, const char *home, const char *xdg_config_home,
		       const struct cf_git_entries *names, struct cf_strv *out,
		       struct cf_git_launch *launch, struct confine_error *err);

#endif
