/* SPDX-License-Identifier: MIT */
/*
 * What the report and the audit line say about the secrets the command used but never read
 * (R44, R45): the ssh-agent filter's keys and every request it answered; the names and hosts
 * of the secrets and what became of each placeholder.  Never a value, never a placeholder.
 */
#include <stdlib.h>

#include "agent/agent_const.h"
#include "record/run_facts.h"
#include "record/secrets_record.h"

static void agent(struct cf_jobj *j, const struct cf_run_agent *ag)
{
	if (!ag->on) {
		cf_jput_null(j, "ssh_agent");
		return;
	}
	struct cf_jobj a;
	cf_jobj_init(&a);
	cf_jput_strv(&a, "keys", ag->fingerprints.v, ag->fingerprints.n);
	size_t n = ag->n_events, dropped = ag->dropped;
	const struct confine_agent_event *e = ag->events;
	json_t *v = json_array();
	for (size_t i = 0; v && i < n; i++) {
		struct cf_jobj o;
		cf_jobj_init(&o);
		cf_jput_int(&o, "time_ms", (long long)e[i].time_ms);
		cf_jput_str(&o, "request", e[i].request);
		cf_jput_str(&o, "key", e[i].key[0] ? e[i].key : NULL);
		cf_jput_str(&o, "host", e[i].host[0] ? e[i].host : NULL);
		cf_jput_str(&o, "outcome", e[i].outcome);
		cf_jput_str(&o, "detail", e[i].detail);
		if (o.oom || json_array_append_new(v, o.o) < 0)
			a.oom = true;
	}
	cf_jput(&a, "requests", v);
	cf_jput_int(&a, "requests_dropped", (long long)dropped);
	cf_jput_obj(j, "ssh_agent", &a);
}

/* The names and hosts of the secrets (never a value or a placeholder), the inspected hosts,
 * and what became of each placeholder. */
static void placeholders(struct cf_jobj *j, const struct cf_run_secrets *rs)
{
	if (!rs->on) {
		cf_jput_null(j, "secrets");
		return;
	}
	struct cf_jobj o;
	cf_jobj_init(&o);
	json_t *list = json_array();
	for (size_t i = 0; list && i < rs->s.n; i++) {
		struct cf_jobj x;
		cf_jobj_init(&x);
		cf_jput_str(&x, "name", rs->s.v[i].name);
		cf_jput_strv(&x, "hosts", rs->s.v[i].host_list.v, rs->s.v[i].host_list.n);
		if (x.oom || json_array_append_new(list, x.o) < 0)
			o.oom = true;
	}
	cf_jput(&o, "placeholders", list);
	cf_jput_strv(&o, "tls_inspect", rs->inspect.v, rs->inspect.n);
	size_t n = rs->s.n_events, dropped = rs->s.dropped;
	const struct confine_secret_event *e = rs->s.events;
	json_t *v = json_array();
	for (size_t i = 0; v && i < n; i++) {
		struct cf_jobj x;
		cf_jobj_init(&x);
		cf_jput_int(&x, "time_ms", (long long)e[i].time_ms);
		cf_jput_str(&x, "name", e[i].name[0] ? e[i].name : NULL);
		cf_jput_str(&x, "host", e[i].host);
		cf_jput_int(&x, "port", e[i].port);
		cf_jput_str(&x, "outcome", e[i].outcome);
		cf_jput_str(&x, "where", e[i].where);
		cf_jput_str(&x, "encoding", e[i].encoding[0] ? e[i].encoding : NULL);
		if (x.oom || json_array_append_new(v, x.o) < 0)
			o.oom = true;
	}
	cf_jput(&o, "events", v);
	cf_jput_int(&o, "events_dropped", (long long)dropped);
	cf_jput_obj(j, "secrets", &o);
}

void cf_record_secrets(struct cf_jobj *j, const struct cf_run_facts *f)
{
	agent(j, f->agent);
	placeholders(j, f->secrets);
}

static void join(struct cf_buf *b, const struct cf_strv *v)
{
	for (size_t i = 0; i < v->n; i++)
		cf_buf_addf(b, "%s%s", i ? ", " : "", v->v[i]);
}

char *cf_secrets_plan_text(const struct cf_run_agent *agent, const struct cf_run_secrets *rs,
			   enum confine_backend backend, char *text)
{
	if (!agent->on && !rs->on)
		return text;
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_add(&b, text);
	free(text);
	if (agent->on) {
		cf_buf_addf(&b,
			    "ssh-agent: confine's filter of the caller's agent (SSH_AUTH_SOCK%s), "
			    "keys: ",
			    backend == CONFINE_BACKEND_LANDLOCK ? " through the connect guard"
								: "=" CF_AGENT_DIR
								  "/" CF_AGENT_SOCK);
		if (agent->fingerprints.n)
			join(&b, &agent->fingerprints);
		else
			cf_buf_add(&b, "none");
		cf_buf_add(&b,
			   "; signs only for sessions bound to a host known_hosts and the network "
			   "rules allow, or SSHSIG\n");
	}
	for (size_t i = 0; i < rs->s.n; i++) {
		cf_buf_addf(&b, "secrets: %s for ", rs->s.v[i].name);
		join(&b, &rs->s.v[i].host_list);
		cf_buf_add(&b, " (a placeholder in the command's variable; the real value only in "
			       "requests to these hosts)\n");
	}
	if (rs->on && rs->inspect.n) {
		cf_buf_add(&b, "tls inspection: ");
		join(&b, &rs->inspect);
		cf_buf_addf(&b, " (the run's CA, in memory; trust bundle %s)\n",
			    backend == CONFINE_BACKEND_LANDLOCK ? "in the run's TMPDIR"
								: "/tmp/.confine-trust.pem");
	}
	return cf_buf_take(&b);
}
