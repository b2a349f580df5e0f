/* SPDX-License-Identifier: MIT */
/*
 * New entries in split directories of the writable areas (SPEC 3.3): see pathguard.c.  Linux
 * only; touches the OS.
 */
#ifndef CONFINE_PATHGUARD_H
#define CONFINE_PATHGUARD_H

#include <stdbool.h>

#include "plan/landlock/ll_plan.h"

struct seccomp_notif;

/* True for the calls pathguard answers: open(2) and its kin, and the calls that make, rename,
 * link or remove a directory entry, truncate(2). */
bool cf_path_handles(const struct seccomp_notif *req);

/* What became of one notification. */
enum cf_path_outcome {
	CF_PATH_CONTINUE, /* the kernel decides, under the command's own Landlock rules */
	CF_PATH_SENT,	  /* answered with a descriptor installed in the command */
	CF_PATH_DONE,	  /* made by the supervisor: *result is the call's result */
};

/*
 * Answers one notification.  Acts only where the plan's meta table puts the target (and, for a
 * new entry, its directory) in a writable area, and never on a protected path or an ancestor
 * of one; everything else continues to the kernel, whose Landlock rules for the command are
 * the safe ones (split directories included).  *made: the supervisor did it.
 */
struct cf_sv_policy;
enum cf_path_outcome cf_path_answer(const struct cf_sv_policy *pol, int listener,
				    const struct seccomp_notif *req, long *result, bool *made);

/* The supervisor thread's own set-up: its own working directory and umask (unshare(CLONE_FS)),
 * so that it can take the command's umask for what it creates.  0 or -1. */
int cf_path_thread_init(void);

#endif
