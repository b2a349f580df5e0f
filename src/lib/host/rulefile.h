/* SPDX-License-Identifier: MIT */
#ifndef CONFINE_RULEFILE_H
#define CONFINE_RULEFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "confine.h"
#include "rules/netrules.h"
#include "rules/rules.h"
#include "util/util.h"

/*
 * Reads a rule file for the parser: only a regular file (a FIFO planted at
 * .confine/rules.json must not hang a run), at most CF_RULES_MAX_FILE_BYTES + 1 bytes (the
 * parser reports the limit).  Returns 0 with a malloc'd *text, CONFINE_E_NOTFOUND when the
 * file does not exist, CONFINE_E_RULES (with err: what, subject, reason) when it exists but
 * cannot be read, or CONFINE_E_NOMEM.  Touches the OS.
 */
int cf_rulefile_read(const char *path, char **text, size_t *len, struct confine_error *err);

/* The workspace's rule file, relative to the workspace. */
#define CF_RULEFILE_WORKSPACE ".confine/rules.json"

/*
 * One rule file of a layer, read and parsed (R6): its path rules appended to *out, its network
 * rules to *net (NULL: not kept).  A missing file is no rules when missing_ok (the workspace's
 * and the user's), a rule error when not (a session file).  A file that cannot be read, is
 * larger than 1 MiB or does not parse refuses with CONFINE_E_RULES, the parser's first error
 * at FILE:LINE:COL, and (bar out-of-memory) a hint to run 'confine check FILE'.  Every
 * caller that loads a rule file for a run or a plan uses this (host/rulefile_load.c).
 */
int cf_rulefile_load(const char *path, enum cf_layer layer, bool missing_ok, struct cf_ruleset *out,
		     struct cf_net_rules *net, struct confine_error *err);

/*
 * The rule files of a run, in the order they are read: each of session_files (layer session,
 * must exist), then WORKSPACE/.confine/rules.json (layer workspace) and user_file (layer user),
 * both may be missing.  A NULL workspace or user_file skips that file (a plan for another
 * system reads only the session's).  Calls fn for each until one fails; returns its code.
 */
typedef int (*cf_rulefile_fn)(void *ctx, const char *path, enum cf_layer layer, bool missing_ok,
			      struct confine_error *err);
int cf_rulefiles_each(const struct cf_strv *session_files, const char *workspace,
		      const char *user_file, cf_rulefile_fn fn, void *ctx,
		      struct confine_error *err);

#endif
