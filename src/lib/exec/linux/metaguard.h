/* SPDX-License-Identifier: MIT */
/*
 * Metadata changes of the landlock backend (R42), made by confine's supervisor: see
 * metaguard.c.  Linux only; touches the OS.
 */
#ifndef CONFINE_METAGUARD_H
#define CONFINE_METAGUARD_H

#include <stdbool.h>

#include "plan/landlock/ll_plan.h"

struct seccomp_notif;

/* True when `nr` is a call metaguard answers (the ioctl only for its brokered requests). */
bool cf_meta_handles(const struct seccomp_notif *req);

/*
 * Answers one notification: resolves the target in the command's view (its cwd or directory
 * descriptor, no magic link followed), decides on the opened descriptor with the plan's meta
 * table (the nearest path the plan decided must be writable, outside /proc and /dev) and makes
 * the change on it.  Returns the call's result (>= 0) or minus an errno; *made tells whether
 * the change was made (false: refused or failed before).  `listener` checks that the
 * notification is still pending before anything is changed.
 */
struct cf_sv_policy;
long cf_meta_answer(const struct cf_sv_policy *plan, int listener, const struct seccomp_notif *req,
		    bool *made);

#endif
