/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "record/facts.h"

/* The backend and what it guarantees; without a sandbox, nothing. */
static void backend(struct cf_jobj *j, const confine_run *run)
{
	struct cf_jobj g;
	/* The landlock backend's own probe says what it guarantees (SPEC 3.3). */
	const struct confine_probe_result *p =
	    run->backend == CONFINE_BACKEND_LANDLOCK ? &run->ll_probe : &run->probe;
	bool none = run->policy == CONFINE_POLICY_OFF;
	const char *why = run->record.escalated ? "not provided (escalated: outside the sandbox)"
						: "not provided (policy off: no sandbox)";
	cf_jput_str(j, "backend", none ? "none" : p->backend[0] ? p->backend : "bwrap");
	cf_jobj_init(&g);
	cf_jput_str(&g, "read_protection", none ? why : p->read_protection);
	cf_jput_str(&g, "write_protection", none ? why : p->write_protection);
	cf_jput_str(&g, "network_isolation", none ? why : p->network_isolation);
	cf_jput_str(&g, "syscall_filter", none ? why : p->syscall_filter);
	cf_jput_str(&g, "process_scoping", none ? why : p->process_scoping);
	cf_jput_str(&g, "resource_limits", none ? why : p->resource_limits);
	cf_jput_obj(j, "guarantees", &g);
}

/* Injections (SPEC 6): one "env:NAME=HASH" or "path:TARGET=HASH" string per injection, never
 * the bytes or a scratch path.  The injection work (branch inject) fills this array from its
 * own state in the run; until then a run has none. */
static void injections(struct cf_jobj *j, const confine_run *run)
{
	cf_jput(j, "injections", json_array());
}

static void approval(struct cf_jobj *j, const confine_run *run)
{
	const struct cf_run_record *r = &run->record;
	cf_jput_bool(j, "escalated", r->escalated);
	cf_jput_str(j, "receipt", r->approved ? r->receipt : NULL);
	json_t *a = json_array();
	for (size_t i = 0; a && i < r->grants.n; i++) {
		struct cf_jobj t;
		cf_jobj_init(&t);
		cf_jput_str(&t, "path", r->grants.v[i].path);
		cf_jput_str(&t, "scope", cf_grant_scope_name(r->grants.v[i].scope));
		if (t.oom || json_array_append_new(a, t.o) < 0)
			j->oom = true;
	}
	cf_jput(j, "grants", a);
}

void cf_record_facts(struct cf_jobj *j, const confine_run *run)
{
	const struct cf_run_record *r = &run->record;
	cf_jput_str(j, "request_id", r->id);
	cf_jput_strv(j, "argv", r->argv.v, r->argv.n);
	cf_jput_str(j, "cwd", r->cwd);
	cf_jput_str(j, "workspace", run->workspace ? run->workspace : r->workspace_given);
	backend(j, run);
	cf_jput_str(j, "policy_digest", r->policy_digest[0] ? r->policy_digest : NULL);
	cf_jput_str(j, "network", r->network ? "on" : "off");
	injections(j, run);
	approval(j, run);
}

void cf_record_outcome(const confine_run *run, const struct confine_error *why,
		       const char **outcome, const char **exit_path)
{
	int code = why ? why->code : 0;
	*outcome = "failed";
	switch (code) {
	case 0:
		*outcome = run->record.escalated ? "escalated" : "allowed";
		*exit_path = run->timed_out	     ? "timed_out"
			     : run->record.escalated ? "escalated"
						     : "ran";
		return;
	case CONFINE_E_APPROVAL:
	case CONFINE_E_WORKSPACE:
	case CONFINE_E_BACKEND:
		*outcome = "denied";
		*exit_path = "refused";
		return;
	case CONFINE_E_RULES:
	case CONFINE_E_PLAN:
		*exit_path = "malformed_rules";
		return;
	case CONFINE_E_INVALID:
	case CONFINE_E_LIMIT:
		*exit_path = "invalid_request";
		return;
	case CONFINE_E_NOTFOUND:
	case CONFINE_E_NOEXEC:
		*exit_path = "exec_failed";
		return;
	default:
		*exit_path = "setup_failed";
	}
}

json_t *cf_record_error(const struct confine_error *why)
{
	if (!why || !why->code)
		return json_null();
	struct cf_jobj e;
	cf_jobj_init(&e);
	cf_jput_int(&e, "code", why->code);
	cf_jput_str(&e, "kind", confine_strerror(why->code));
	cf_jput_str(&e, "what", why->what);
	cf_jput_str(&e, "subject", why->subject);
	cf_jput_str(&e, "reason", why->reason);
	cf_jput_str(&e, "hint", why->hint);
	if (e.oom) {
		cf_jobj_release(&e);
		return NULL;
	}
	return e.o;
}

confine_run *cf_record_temp_run(const confine_request *req)
{
	confine_run *run = calloc(1, sizeof(*run));
	if (!run)
		return NULL;
	run->policy = req->policy;
	run->record.audit_fd = run->record.tee_fd = -1;
	if (cf_run_record_init(run, req) < 0) {
		cf_record_temp_free(run);
		return NULL;
	}
	return run;
}

void cf_record_temp_free(confine_run *run)
{
	if (!run)
		return;
	cf_run_record_release(run);
	free(run);
}

/* The policy digest (SPEC 7.3): SHA-256 of the plan's text exactly as `run --print-plan`
 * prints it, so that anyone can recompute it: `confine run --print-plan ... | sha256sum`. */
void cf_record_digest(confine_run *run)
{
	char *text = NULL;
	run->record.policy_digest[0] = '\0';
	if (run->policy == CONFINE_POLICY_OFF)
		return;
	if (confine_run_plan_text(run, false, &text, NULL) == 0 &&
	    cf_sha256_hex(text, strlen(text), run->record.policy_digest) < 0)
		run->record.policy_digest[0] = '\0';
	free(text);
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
