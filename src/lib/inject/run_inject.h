/* SPDX-License-Identifier: MIT */
/* Injections of a Linux run (SPEC 6): the glue between the request, the plan and the executor. */
#ifndef CONFINE_INJECT_RUN_INJECT_H
#define CONFINE_INJECT_RUN_INJECT_H

#include "confine.h"

/* The three steps of a run's injections; nothing happens for an empty list.
 *  - inputs: hashes the request's contents and keeps what the plan needs (before the plan);
 *  - place: puts them in a compiled plan (cf_run_plan, every time the plan is made);
 *  - seal: seals each content in a memfd (checked against its hash) and sets the
 *    env-pointer variables last in run->plan.env (after the environment).  Touches the OS. */
struct cf_plan;
int cf_run_inject_inputs(confine_run *run, const confine_request *req, struct confine_error *err);
int cf_run_inject_place(confine_run *run, struct cf_plan *plan, struct confine_error *err);
int cf_run_inject_seal(confine_run *run, const confine_request *req, struct confine_error *err);
void cf_run_inject_release(confine_run *run);

/* CONFINE_E_INVALID when the run has injections and its policy is off (SPEC 4).  Pure. */
int cf_run_inject_check_policy(const confine_run *run, struct confine_error *err);

/* For one launch: data[i] (per plan mount) receives a fresh read-only descriptor of the sealed
 * content of each CF_MNT_INJECT mount, -1 elsewhere.  On failure the descriptors opened so far
 * are in data (the caller closes those >= 0).  Touches the OS. */
int cf_run_inject_fds(const confine_run *run, int *data, struct confine_error *err);

#endif
