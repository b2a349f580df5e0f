/* SPDX-License-Identifier: MIT */
/*
 * The facts of a run that both the post-run report and the audit line carry (SPEC 7.3, 8).
 * Work that adds a fact of its own (injections, the network proxy's decisions, another
 * backend's guarantees) adds one cf_jput_* line in cf_record_facts, and both records have it.
 */
#ifndef CONFINE_RECORD_RUN_FACTS_H
#define CONFINE_RECORD_RUN_FACTS_H

#include "record/json.h"
#include "request.h"

void cf_record_facts(struct cf_jobj *j, const confine_run *run);

/* How an attempt ended: outcome "allowed", "denied", "failed" or "escalated", and the exit
 * path "ran", "timed_out", "escalated", "refused", "invalid_request", "malformed_rules",
 * "exec_failed" or "setup_failed". */
void cf_record_outcome(const confine_run *run, const struct confine_error *why,
		       const char **outcome, const char **exit_path);

/* The error object of a record, or null. */
json_t *cf_record_error(const struct confine_error *why);

/* A run with only its record filled from the request, for the records of an attempt that
 * never got a prepared run.  Free it with cf_record_temp_free. */
confine_run *cf_record_temp_run(const confine_request *req);
void cf_record_temp_free(confine_run *run);

#endif
