/* SPDX-License-Identifier: MIT */
/* The landlock executor's ruleset (ruleset.c; the executor, cf_ll_spawn, is in launch.h).  Linux
 * only; touches the OS. */
#ifndef CONFINE_LL_RULESET_H
#define CONFINE_LL_RULESET_H

#include "confine.h"
#include "plan/landlock/ll_plan.h"

/* Creates the ruleset of the plan: every rule path opened once without following symlinks (a
 * path gone or turned into a symlink gets no rule: no access); with network by domain, TCP
 * connects to `proxy_port` only; each terminal among `stdio` (the child's 0, 1 and 2, -1 for
 * none; NULL: none) gets a rule of its own.  *out is close-on-exec. */
int cf_ll_build_ruleset(const struct cf_ll_plan *pl, unsigned proxy_port, const int stdio[3],
			int *out, struct confine_error *err);

/* The level of the supervised calls of the plan's seccomp filter (CF_SUPERVISE_*, harden.h):
 * the path calls with the broker, the opens that could read a FIFO with the opener (R36), the
 * metadata calls always. */
int cf_ll_supervise_level(const struct cf_ll_plan *pl);

#endif
