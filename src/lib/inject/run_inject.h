/* SPDX-License-Identifier: MIT */
/* Injections of a Linux run (SPEC 6): the glue between the request, the plan and the executor. */
#ifndef CONFINE_INJECT_RUN_INJECT_H
#define CONFINE_INJECT_RUN_INJECT_H

#include "confine.h"

/* Hashes the request's injections, places them in run->plan (after cf_plan_compile), seals
 * each in a memfd and sets the env-pointer variables last in run->plan.env.  Nothing happens
 * for an empty list.  Touches the OS (memfd_create). */
int cf_run_inject_prepare(confine_run *run, const confine_request *req, struct confine_error *err);
void cf_run_inject_release(confine_run *run);

/* CONFINE_E_INVALID when the run has injections and its policy is off (SPEC 4).  Pure. */
int cf_run_inject_check_policy(const confine_run *run, struct confine_error *err);

/* For one launch: data[i] (per plan mount) receives a fresh read-only descriptor of the sealed
 * content of each CF_MNT_INJECT mount, -1 elsewhere.  On failure the descriptors opened so far
 * are in data (the caller closes those >= 0).  Touches the OS. */
int cf_run_inject_fds(const confine_run *run, int *data, struct confine_error *err);

#endif
