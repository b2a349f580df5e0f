/* SPDX-License-Identifier: MIT */
/*
 * The run's side of its records (SPEC 7.3, 8): the facts of a run handed to record/ as plain
 * values (record/run_facts.h), the audit line of an attempt written once, the report of a run
 * or of a request that never got one, and the record's accessors of ABI v1.
 */
#include <stdlib.h>
#include <string.h>

#include "record/run_facts.h"
#include "request.h"
#include "util/util.h"

void cf_run_facts_of(const confine_run *run, struct cf_run_facts *f)
{
	size_t n_injections = 0;
	const struct confine_injection *injections = cf_run_injection_list(run, &n_injections);
	*f = (struct cf_run_facts){
	    .rec = &run->record,
	    .workspace = run->workspace,
	    .home = run->home,
	    .policy = run->policy,
	    .backend = run->backend,
	    /* The landlock backend's own probe says what it guarantees (SPEC 3.3). */
	    .probe = run->backend == CONFINE_BACKEND_LANDLOCK ? &run->ll_probe : &run->probe,
	    .rules = &run->policy_rules,
	    .env = &run->plan.env,
	    .net_mode = run->net_mode,
	    .net_events = run->net_events,
	    .n_net_events = run->n_net_events,
	    .net_dropped = run->net_dropped,
	    .injections = injections,
	    .n_injections = n_injections,
	    .agent = &run->agent,
	    .secrets = &run->secrets,
	    .notices = run->notices,
	    .n_notices = run->n_notices,
	    .events = run->events,
	    .n_events = run->n_events,
	    .from_command = run->exec.facts.from_command,
	    .timed_out = run->exec.facts.timed_out,
	    .scan = &run->scan,
	    .ipc_scan = &run->ipc_scan,
	};
}

void cf_run_temp_free(confine_run *run)
{
	if (!run)
		return;
	cf_run_record_release(run);
	free(run);
}

/* A run with only its record filled from the request, for the records of an attempt that
 * never got a prepared run. */
confine_run *cf_run_temp(const confine_request *req)
{
	confine_run *run = calloc(1, sizeof(*run));
	if (!run)
		return NULL;
	run->policy = req->policy;
	run->record.audit_fd = run->record.tee_fd = run->record.tee_out = -1;
	if (cf_run_record_init(run, req) < 0) {
		cf_run_temp_free(run);
		return NULL;
	}
	return run;
}

int cf_audit_attempt(confine_run *run, int status, const struct confine_error *why)
{
	if (!run || run->record.audit_fd < 0 || run->record.audited)
		return 0;
	run->record.audited = true;
	struct cf_run_facts f;
	cf_run_facts_of(run, &f);
	return cf_audit_write(&f, status, why);
}

int confine_request_audit_refusal(const confine_request *req, int status,
				  const struct confine_error *why, struct confine_error *err)
{
	if (req->record.audit_fd < 0)
		return 0;
	confine_run *run = cf_run_temp(req);
	if (!run)
		return cf_nomem(err);
	int r = cf_audit_attempt(run, status, why);
	cf_run_temp_free(run);
	if (r < 0)
		(void)confine_request_audit_error(req, err);
	return r;
}

int confine_report_json(const confine_request *req, const confine_run *run, int status,
			const struct confine_error *why, char **out, struct confine_error *err)
{
	confine_run *tmp = NULL;
	static const struct confine_error none;
	if (!run && !(run = tmp = cf_run_temp(req)))
		return cf_nomem(err);
	struct cf_run_facts f;
	cf_run_facts_of(run, &f);
	*out = cf_report_json(&f, status, why ? why : &none);
	cf_run_temp_free(tmp);
	return *out ? 0 : cf_nomem(err);
}

int confine_request_write_report(const confine_request *req, const confine_run *run, int status,
				 const struct confine_error *why, struct confine_error *err)
{
	char *text = NULL;
	int r;
	if (req->record.report_fd < 0)
		return 0;
	if ((r = confine_report_json(req, run, status, why, &text, err)) < 0)
		return r;
	return cf_report_write(req->record.report_fd, req->record.report_path, text, err);
}

const char *const *confine_run_denied_paths(const confine_run *run, size_t *n)
{
	*n = run->record.denials.n;
	return (const char *const *)run->record.denials.path;
}

const char *confine_run_policy_digest(const confine_run *run)
{
	return run->record.policy_digest;
}

const char *confine_run_id(const confine_run *run)
{
	return run->record.id;
}
