/* SPDX-License-Identifier: MIT */
/*
 * What every planner says of the read and write decisions of one path (bwrap, landlock,
 * Seatbelt): the "why" of a mount or a rule, where a rule was written, and the two decisions
 * no plan can carry out.  One text for all of them, so that a rule set reads and fails the same
 * on every target.  Pure.
 */
#ifndef CONFINE_PLAN_VERDICT_H
#define CONFINE_PLAN_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/policy.h"

/* "read: ACTION (LAYER[ PATTERN]); write: ACTION (LAYER[ PATTERN])", allocated; NULL on
 * out-of-memory. */
char *cf_plan_why(const struct cf_decision *rd, const struct cf_decision *wr);

/* "'PATTERN' (FILE:LINE:COLUMN)", or "'PATTERN' (SOURCE rule INDEX)" for a rule without a
 * position (builtin, session), written into buf; returns buf. */
const char *cf_plan_rule_where(const struct cf_rule *r, char *buf, size_t n);

/* A write allow beneath a read deny (rd not an allow, wr an allow of an explicit rule: a path
 * cannot be writable and unreadable): CONFINE_E_PLAN with err filled, else 0. */
int cf_plan_refuse_contradiction(const char *path, const struct cf_decision *rd,
				 const struct cf_decision *wr, struct confine_error *err);

/* A read deny of "/" itself (nothing would be left to run): CONFINE_E_PLAN, else 0. */
int cf_plan_refuse_root(const char *path, const struct cf_decision *rd, struct confine_error *err);

/* Both, the contradiction first (the Linux planners' order). */
int cf_plan_refuse(const char *path, const struct cf_decision *rd, const struct cf_decision *wr,
		   struct confine_error *err);

/* R1 for the plans of macOS and Windows: a workspace `ws` that is a root (`root`, said by
 * `root_reason`), the home directory or one of its ancestors, or that holds the path of a
 * wildcard-free guard of the home ("~/..." in `guards`) is refused with CONFINE_E_WORKSPACE,
 * named `shown` (its spelling on the target), and a hint; else 0. */
int cf_plan_refuse_workspace(const char *ws, const char *home, bool root, const char *root_reason,
			     const struct cf_ruleset *guards, const char *shown,
			     struct confine_error *err);
/* Its last part, for every target (the Linux run asks it once the guards are resolved): a
 * workspace that holds the path of a wildcard-free guard of the home is refused. */
int cf_plan_refuse_workspace_guards(const char *ws, const struct cf_ruleset *guards,
				    const char *shown, struct confine_error *err);

#endif
