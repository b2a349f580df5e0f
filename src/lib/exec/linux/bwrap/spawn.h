/* SPDX-License-Identifier: MIT */
/*
 * The bwrap executor's launches (spawn.c), for the run's start and wait (run_launch.c).  Linux
 * only; touches the OS.  Each returns 0 or a negative CONFINE_E_* code.
 */
#ifndef CONFINE_BWRAP_SPAWN_H
#define CONFINE_BWRAP_SPAWN_H

#include <stdbool.h>

#include "confine.h"

typedef struct confine_run confine_run;

/* A step of the run's that the executor takes just before each bwrap launch (the first and
 * every one after a new plan); NULL: none.  0, or a negative code that fails the launch.  The
 * executor calls back only through this: it never names the run's functions. */
typedef int (*cf_launch_hook)(confine_run *run, struct confine_error *err);

/* Everything of a start but the receipt and the audit line: the cgroup, the proxy, the agent,
 * the keeper, then the command (directly, under the landlock executor or under bwrap). */
int cf_launch_start(confine_run *run, cf_launch_hook before, struct confine_error *err);
/* Launches bwrap for run->plan (again, after cf_launch_reset). */
int cf_launch_bwrap(confine_run *run, cf_launch_hook before, struct confine_error *err);
/* Waits for the launch to end.  *again: the sandbox could not be set up as planned and the
 * command has not started; launch again, after planning anew when run->unsettled is set
 * (R34: the workspace changed under bwrap). */
int cf_launch_wait(confine_run *run, int *status, bool *again, struct confine_error *err);
/* Closes what one launch used, before the next. */
void cf_launch_reset(confine_run *run);

#endif
