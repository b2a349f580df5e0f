/* SPDX-License-Identifier: MIT */
/*
 * Write allows of paths that do not exist (issue 22).  A mount namespace cannot make a missing
 * path writable without creating a mount point on the host, and Landlock needs an open file
 * for every rule, so an allow such as `--allow ~/.npm:write` on a fresh account used to give
 * nothing, silently.  Now the path is created before the plan is made, as the caller, mode
 * 0700, one missing component at a time, never through a symlink, and only inside the home
 * directory or the workspace; anywhere else the run is refused with the remedy.  Touches the OS.
 */
#ifndef CONFINE_RUN_MKALLOW_H
#define CONFINE_RUN_MKALLOW_H

#include "policy/policy.h"

/*
 * Every allow of the session, workspace and user layers that grants write to a wildcard-free
 * path that does not exist, and that the policy's decision for that path lets write (an allow
 * a guard or an override outranks stays without effect, as for an existing path; one below a
 * host-socket guard names a socket, which confine does not make): created
 * when `create`, otherwise only checked.  `roots` are the directories inside which a path may
 * be created (the homes and the workspace, canonical); the nearest existing ancestor of the
 * path must lie at or below one of them, be a directory reached without a symlink, and belong
 * to the caller.  Each path created (or, without `create`, to be created) is appended to `out`.
 * Returns 0, CONFINE_E_PLAN naming the path and the reason when one cannot be created,
 * CONFINE_E_OS when mkdir fails, or CONFINE_E_NOMEM.
 */
int cf_host_missing_allows(const struct cf_policy *p, const char *const *roots, size_t n_roots,
			   bool create, struct cf_strv *out, struct confine_error *err);

/*
 * One path of the above, which the caller found missing: checked, then created when `create`.
 * Another process may have made it (or a part of its way) meanwhile: what exists is used as it
 * is, checked the same way, and never followed through a symlink.  Returns as above.
 */
int cf_host_make_missing(const char *path, const char *const *roots, size_t n_roots, bool create,
			 struct confine_error *err);

#endif
