/* SPDX-License-Identifier: MIT */
/*
 * The facts of a run that the post-run report and the audit line carry (SPEC 7.3, 8), as plain
 * values: the run fills a struct cf_run_facts (run_record.c) and the records read only that, never
 * the run.  Work that adds a fact of its own adds a field here, the line that fills it in the run,
 * and one cf_jput_* line in cf_record_facts, and both records have it.
 */
#ifndef CONFINE_RECORD_RUN_FACTS_H
#define CONFINE_RECORD_RUN_FACTS_H

#include "agent/agent_run.h"
#include "host/scan.h"
#include "net/decide.h"
#include "net/secrets_run.h"
#include "policy/policy.h"
#include "record/json.h"
#include "record/record.h"

struct cf_run_facts {
	/* What ran: the id, argv, cwd, approval, timings, audit log and denials of the attempt. */
	const struct cf_run_record *rec;
	const char *workspace; /* canonical; NULL before it was resolved (rec->workspace_given) */
	const char *home;      /* canonical, for a grant's target; NULL when not known */
	enum confine_policy policy;
	enum confine_backend backend;
	const struct confine_probe_result *probe; /* the backend's (zero when none ran) */
	/* The decisions: the rule layers (NULL when not loaded), the command's environment (where
	 * a card finds its program), the network's, the injections, the agent's, the secrets'. */
	const struct cf_policy *rules;
	const struct cf_strv *env;
	enum confine_net_mode net_mode;
	const struct cf_net_event *net_events;
	size_t n_net_events, net_dropped;
	const struct confine_injection *injections;
	size_t n_injections;
	const struct cf_run_agent *agent;     /* never NULL (agent->on: a filter ran) */
	const struct cf_run_secrets *secrets; /* never NULL (secrets->on: placeholders) */
	/* The events: what was said before the run and what was found after it. */
	const struct confine_event *notices, *events;
	size_t n_notices, n_events;
	/* The exit. */
	bool from_command; /* the status is the command's */
	bool timed_out;
	/* What the scans cost (R32); not loaded: none ran.  Never NULL. */
	const struct cf_scan_state *scan, *ipc_scan;
};

void cf_record_facts(struct cf_jobj *j, const struct cf_run_facts *f);

/* How an attempt ended: outcome "allowed", "denied", "failed" or "escalated", and the exit
 * path "ran", "timed_out", "escalated", "refused", "invalid_request", "malformed_rules",
 * "exec_failed" or "setup_failed". */
void cf_record_outcome(const struct cf_run_facts *f, const struct confine_error *why,
		       const char **outcome, const char **exit_path);

/* The error object of a record, or null. */
json_t *cf_record_error(const struct confine_error *why);

/* The policy digest (SPEC 7.3) of a plan's text into digest ("" under policy off or without
 * a text). */
void cf_record_digest(char digest[CF_SHA256_HEX], enum confine_policy policy,
		      const char *plan_text);

/* The audit line of an attempt appended to rec->audit_fd (SPEC 8); a failure is recorded in
 * rec->audit_state for the caller and the report.  0, or CONFINE_E_RECORD. */
int cf_audit_write(const struct cf_run_facts *f, int status, const struct confine_error *why);

/* The report (SPEC 7.3, R23) as JSON text, NULL on out-of-memory; and that text written over
 * the report file fd (named path in messages), which is left empty when it cannot be. */
char *cf_report_json(const struct cf_run_facts *f, int status, const struct confine_error *why);
int cf_report_write(int fd, const char *path, char *text,
		    struct confine_error *err); /* takes text */

#endif
