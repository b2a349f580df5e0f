/* SPDX-License-Identifier: MIT */
/* The facts both records carry (run_facts.h), the outcome and the error of an attempt. */
#include <stdlib.h>
#include <string.h>

#include "record/run_facts.h"
#include "record/secrets_record.h"

/* The backend and what it guarantees; without a sandbox, nothing. */
static void backend(struct cf_jobj *j, const struct cf_run_facts *f)
{
	struct cf_jobj g;
	/* The landlock backend's own probe says what it guarantees (SPEC 3.3). */
	const struct confine_probe_result *p = f->probe;
	bool none = f->policy == CONFINE_POLICY_OFF;
	const char *why = f->rec->escalated ? "not provided (escalated: outside the sandbox)"
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

/* SPEC 6, 8: "env:NAME=HASH" or "path:TARGET=HASH" per injection, never the bytes and never a
 * path of confine's own. */
static void injections(struct cf_jobj *j, const struct cf_run_facts *f)
{
	json_t *a = json_array();
	size_t n = f->n_injections;
	const struct confine_injection *in = f->injections;
	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, json_string(in[i].record));
	cf_jput(j, "injections", a);
}

static void approval(struct cf_jobj *j, const struct cf_run_facts *f)
{
	const struct cf_run_record *r = f->rec;
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

static const char *action_name(enum confine_action a)
{
	return a == CONFINE_ALLOW ? "allow" : a == CONFINE_ASK ? "ask" : "deny";
}

/* SPEC 12: the mode, and every decision of the proxy (time, protocol, host, port, allow, ask
 * or deny, the deciding rule, what came of it). */
static void network(struct cf_jobj *j, const struct cf_run_facts *f)
{
	bool domains = f->net_mode == CONFINE_NET_DOMAINS && f->policy == CONFINE_POLICY_REQUIRED &&
		       !f->rec->escalated;
	cf_jput_str(j, "network", !f->rec->network ? "off" : domains ? "domains" : "on");
	size_t n = f->n_net_events, dropped = f->net_dropped;
	const struct cf_net_event *ev = f->net_events;
	json_t *a = json_array();
	for (size_t i = 0; a && i < n; i++) {
		const struct cf_net_event *e = &ev[i];
		const struct confine_net_decision *d = &e->decision;
		struct cf_jobj o, rule;
		cf_jobj_init(&o);
		cf_jput_int(&o, "time_ms", (long long)e->time_ms);
		cf_jput_str(&o, "protocol", e->protocol);
		cf_jput_str(&o, "host", d->host);
		cf_jput_int(&o, "port", d->port);
		cf_jput_str(&o, "decision", action_name(d->action));
		cf_jput_str(&o, "layer", d->layer);
		if (d->has_rule) {
			cf_jobj_init(&rule);
			cf_jput_str(&rule, "source", d->source);
			cf_jput_str(&rule, "list", d->list);
			cf_jput_int(&rule, "index", d->index);
			cf_jput_int(&rule, "line", d->line);
			cf_jput_int(&rule, "column", d->column);
			cf_jput_str(&rule, "pattern", d->pattern);
			cf_jput_obj(&o, "rule", &rule);
		} else {
			cf_jput_null(&o, "rule");
		}
		cf_jput_str(&o, "outcome", e->outcome);
		cf_jput_str(&o, "address", e->address);
		cf_jput_str(&o, "detail", e->detail);
		if (e->answer[0]) /* R43: what the host answered when asked */
			cf_jput_str(&o, "answer", e->answer);
		if (o.oom || json_array_append_new(a, o.o) < 0)
			j->oom = true;
	}
	cf_jput(j, "network_decisions", a);
	cf_jput_int(j, "network_decisions_dropped", (long long)dropped);
}

void cf_record_facts(struct cf_jobj *j, const struct cf_run_facts *f)
{
	const struct cf_run_record *r = f->rec;
	cf_jput_str(j, "request_id", r->id);
	cf_jput_strv(j, "argv", r->argv.v, r->argv.n);
	cf_jput_str(j, "cwd", r->cwd);
	cf_jput_str(j, "workspace", f->workspace ? f->workspace : r->workspace_given);
	backend(j, f);
	cf_jput_str(j, "policy_digest", r->policy_digest[0] ? r->policy_digest : NULL);
	network(j, f);
	injections(j, f);
	approval(j, f);
	cf_record_secrets(j, f); /* R44, R45 */
}

void cf_record_outcome(const struct cf_run_facts *f, const struct confine_error *why,
		       const char **outcome, const char **exit_path)
{
	int code = why ? why->code : 0;
	*outcome = "failed";
	/* A failure after the command ran (the proxy's, the post-run checks') is the record's
	 * error, not the outcome: the command ran, with its own status. */
	if (f->from_command)
		code = 0;
	switch (code) {
	case 0:
		*outcome = f->rec->escalated ? "escalated" : "allowed";
		*exit_path = f->timed_out ? "timed_out" : f->rec->escalated ? "escalated" : "ran";
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

/* The policy digest (SPEC 7.3): SHA-256 of the plan's text exactly as `run --print-plan`
 * prints it, so that anyone can recompute it: `confine run --print-plan ... | sha256sum`. */
void cf_record_digest(char digest[CF_SHA256_HEX], enum confine_policy policy, const char *plan_text)
{
	digest[0] = '\0';
	if (policy == CONFINE_POLICY_OFF || !plan_text)
		return;
	if (cf_sha256_hex(plan_text, strlen(plan_text), digest) < 0)
		digest[0] = '\0';
}
