/* SPDX-License-Identifier: MIT */
/*
 * Host facts of a Windows machine, for the Windows planner.  On Windows the executor gathers
 * them from the system (exec/windows); anywhere else they come from a small text description
 * (`confine plan --target windows --host-facts FILE`, the golden tests) or from plausible
 * defaults, so that a Windows plan can be computed and checked on Linux.  Paths are in the
 * internal form of winpath.h.  Pure.
 *
 * The text form, one fact per line ('#' starts a comment line):
 *     home C:\Users\ana                 the profile directory (%USERPROFILE%)
 *     workspace C:\Users\ana\proj       the workspace root
 *     cwd C:\Users\ana\proj\src         the current directory (default: the workspace)
 *     temp C:\Users\ana\AppData\Local\Temp     a temp root (%TEMP%, %TMP%); repeatable
 *     user-rules C:\Users\ana\.config\confine\rules.json   (default: that path)
 *     capability S-1-5-21-1-2-3-4       the run's capability SID (default: a placeholder)
 *     unlisted missing|exists           what a path not listed below is (default: missing)
 *     dir PATH | file PATH | other PATH   what the host has; parents of listed paths are
 *                                         directories
 *     reparse PATH                      a junction, symbolic link or mount point
 * Paths may contain spaces: a fact is its keyword, one space, and the rest of the line.
 */
#ifndef CONFINE_WIN_FACTS_H
#define CONFINE_WIN_FACTS_H

#include <stdbool.h>

#include "host/facts.h"
#include "plan/facts_text.h"
#include "plan/windows/winpath.h"

/* What the planner asks a Windows host.  Every path is internal. */
struct cf_win_host {
	const char *home, *workspace, *cwd, *user_rules;
	const struct cf_strv *temp; /* temp roots */
	const char *capability;	    /* the capability SID, as text */
	bool assumed;		    /* kinds were assumed, not looked at (see `unlisted`) */
	const struct cf_win_names *names;
	/* What is at `path` (not following a final reparse point). */
	enum cf_kind (*kind)(void *ctx, const char *path);
	/* True when `path` itself is a reparse point (junction, symbolic link, mount point). */
	bool (*reparse)(void *ctx, const char *path);
	/* Canonical form of an internal path (8.3 names expanded, reparse points left alone);
	 * the table version is lexical. */
	int (*canonicalize)(void *ctx, const char *path, char **out, struct confine_error *err);
	void *ctx;
};

/* A table of facts, behind the callbacks of struct cf_win_host. */
struct cf_win_facts {
	char *home, *workspace, *cwd, *user_rules, *capability;
	struct cf_strv temp;
	struct cf_fact_table table; /* dir, file, other, reparse; unlisted */
	struct cf_win_names names;
};

void cf_win_facts_release(struct cf_win_facts *f);

/* Parses the text form; errors name the line.  Missing facts get the defaults below. */
int cf_win_facts_parse(struct cf_win_facts *f, const char *text, struct confine_error *err);

/*
 * Defaults for what was not given: home C:\Users\user, workspace HOME\project, cwd the
 * workspace, temp HOME\AppData\Local\Temp, user rules HOME\.config\confine\rules.json, the
 * capability SID a placeholder; `home`, `workspace` (Windows spellings) override the first
 * two when not NULL.  The home, the workspace and the temp roots are recorded as existing
 * directories.
 */
int cf_win_facts_finish(struct cf_win_facts *f, const char *home, const char *workspace,
			struct confine_error *err);

/* The host view of a table (its callbacks read `f`, which must outlive the result). */
struct cf_win_host cf_win_facts_host(const struct cf_win_facts *f);

#endif
