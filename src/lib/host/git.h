/* SPDX-License-Identifier: MIT */
/*
 * What the host's own git reads as configuration or runs, for the repository at the workspace
 * (SPEC 2.3 git guards, R10b; THREATS round 2): found the way git finds it, without running git.
 */
#ifndef CONFINE_HOST_GIT_H
#define CONFINE_HOST_GIT_H

#include <stddef.h>

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
 * fn for each key.  A line git would reject ends the parse there (git refuses the whole file;
 * what came before has been reported, which errs on the side of protecting more).  Returns 0,
 * or CONFINE_E_NOMEM.  Pure.
 */
int cf_gitconfig_parse(const char *text, size_t len, cf_gitconfig_fn fn, void *ctx);

/*
 * The write guards for the repository at `workspace` (absolute paths, lexically normalised,
 * existing or not; a missing one is re-checked after the run): the `.git` entry itself when it
 * is a file or missing, the git directory's hooks, config, commondir, config.worktree,
 * worktrees and modules, the same of the common directory that commondir names, every file
 * that a configuration includes (include.path and includeIf.*.path, every condition taken as
 * true), and each core.hooksPath (from the system, global and repository configuration; a
 * relative one is relative to the workspace, as git runs hooks there).  `home` expands "~/".
 * Touches the OS: reads at most a few small files, follows no symlink when reading.
 */
int cf_host_git_guards(const char *workspace, const char *home, const char *xdg_config_home,
		       struct cf_strv *out, struct confine_error *err);

#endif
