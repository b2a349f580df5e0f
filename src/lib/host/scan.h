/* SPDX-License-Identifier: MIT */
/*
 * The glob scan of R14: one walk of each root for all glob patterns, no symlink following,
 * budgets on time, depth, matches and patterns.  Touches the OS (reads directories).
 */
#ifndef CONFINE_SCAN_H
#define CONFINE_SCAN_H

#include "plan/host.h"

struct cf_scan_budget {
	double seconds;	     /* 30 */
	int max_depth;	     /* 64 */
	size_t max_matches;  /* 2048 */
	size_t max_patterns; /* 256 */
};

#define CF_SCAN_BUDGET_DEFAULT                                                                     \
	{                                                                                          \
		30.0, 64, 2048, 256                                                                \
	}

/*
 * Expands every rule of `rules` with glob == true.  Rules whose prefix is the same directory
 * (or nested) share one walk.  Each existing path that a pattern matches is appended with its
 * kind and the index of the rule; a directory that matches is not descended for that pattern
 * (everything below it is covered already).  Symlinks are reported (kind CF_KIND_SYMLINK) but
 * never followed.  A missing root is not an error; an unreadable directory (EACCES) is skipped
 * and listed in out->skipped.  A budget exceeded fails with CONFINE_E_SCAN naming the path and
 * the budget (for the depth: the directory below the root that holds the deep tree).
 */
int cf_scan_globs(const struct cf_ruleset *rules, const struct cf_scan_budget *budget,
		  struct cf_matches *out, struct confine_error *err);

#endif
