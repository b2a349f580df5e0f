/* SPDX-License-Identifier: MIT */
/* The filtering agent's decisions (see agent_policy.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_keys.h"
#include "agent/agent_policy.h"

static void copy_printable(char *dst, size_t cap, const char *src)
{
	size_t k = 0;
	for (; src && *src && k + 1 < cap; src++)
		dst[k++] = *src >= ' ' && *src < 127 ? *src : '?';
	dst[k] = '\0';
}

void cf_agent_event_set(struct confine_agent_event *ev, const char *request, const char *outcome,
			const char *detail)
{
	copy_printable(ev->request, sizeof(ev->request), request);
	copy_printable(ev->outcome, sizeof(ev->outcome), outcome);
	copy_printable(ev->detail, sizeof(ev->detail), detail);
}

void cf_agent_session_release(struct cf_agent_session *s)
{
	for (size_t i = 0; i < s->n_binds; i++)
		free(s->binds[i].hostkey);
	s->n_binds = 0;
}

bool cf_agent_key_named(const struct cf_agent_rules *rules, const uint8_t *blob, size_t n)
{
	char fp[CF_SSH_FP_LEN];
	cf_ssh_fingerprint(blob, n, fp);
	return cf_strv_contains(rules->fingerprints, fp);
}

bool cf_agent_bind(struct cf_agent_session *s, const struct cf_agent_msg *m,
		   const struct cf_agent_rules *rules, struct confine_agent_event *ev)
{
	char fp[CF_SSH_FP_LEN], detail[320];
	cf_ssh_fingerprint(m->hostkey.p, m->hostkey.n, fp);
	const char *bad =
	    cf_ssh_verify(m->hostkey.p, m->hostkey.n, m->sig.p, m->sig.n, m->sid.p, m->sid.n);
	if (bad) {
		snprintf(detail, sizeof(detail), "host key %s: %s", fp, bad);
		cf_agent_event_set(ev, "session-bind", "refused", detail);
		return false;
	}
	if (s->n_binds == CF_AGENT_MAX_BINDS) {
		cf_agent_event_set(ev, "session-bind", "refused",
				   "more session bindings on one connection than confine keeps");
		return false;
	}
	struct cf_agent_bind *b = &s->binds[s->n_binds];
	memset(b, 0, sizeof(*b));
	if (!(b->hostkey = malloc(m->hostkey.n))) {
		cf_agent_event_set(ev, "session-bind", "failed", "out of memory");
		return false;
	}
	memcpy(b->hostkey, m->hostkey.p, m->hostkey.n);
	b->hostkey_len = m->hostkey.n;
	memcpy(b->sid, m->sid.p, m->sid.n);
	b->sid_len = m->sid.n;
	b->forwarding = m->forwarding;
	cf_kh_decide(rules->kh, m->hostkey.p, m->hostkey.n, rules->net, rules->mode, &b->verdict);
	if (!b->verdict.host[0])
		snprintf(b->verdict.host, sizeof(b->verdict.host), "unknown host key %s", fp);
	s->n_binds++;
	copy_printable(ev->host, sizeof(ev->host), b->verdict.host);
	snprintf(detail, sizeof(detail), "host key %s%s%s%s", fp,
		 m->forwarding ? " (for forwarding)" : "", b->verdict.allowed ? "" : ": ",
		 b->verdict.allowed ? "" : b->verdict.why);
	cf_agent_event_set(ev, "session-bind", b->verdict.allowed ? "allowed" : "refused", detail);
	return true;
}

/* The user authentication case of cf_agent_sign. */
static bool sign_userauth(const struct cf_agent_session *s, const struct cf_sigdata *d,
			  struct confine_agent_event *ev)
{
	char detail[400];
	if (!s->n_binds) {
		cf_agent_event_set(ev, "sign", "refused",
				   "a user authentication for a session that is not bound to a "
				   "host key (the client sent no session-bind@openssh.com; "
				   "OpenSSH's ssh 8.9 or later does)");
		return false;
	}
	const struct cf_agent_bind *last = &s->binds[s->n_binds - 1];
	copy_printable(ev->host, sizeof(ev->host), last->verdict.host);
	if (last->sid_len != d->sid.n || memcmp(last->sid, d->sid.p, d->sid.n)) {
		cf_agent_event_set(ev, "sign", "refused",
				   "a user authentication for another session than the one bound "
				   "last on this connection");
		return false;
	}
	if (last->forwarding) {
		cf_agent_event_set(ev, "sign", "refused",
				   "the session was bound for forwarding the agent, not for "
				   "authentication");
		return false;
	}
	if (d->hostbound && (d->hostkey.n != last->hostkey_len ||
			     memcmp(d->hostkey.p, last->hostkey, d->hostkey.n))) {
		cf_agent_event_set(ev, "sign", "refused",
				   "the request names another host key than the session's binding");
		return false;
	}
	/* Through a forwarded agent every hop is bound: each must be a host the rules allow. */
	for (size_t i = 0; i < s->n_binds; i++) {
		const struct cf_agent_bind *b = &s->binds[i];
		if (b->verdict.allowed)
			continue;
		copy_printable(ev->host, sizeof(ev->host), b->verdict.host);
		snprintf(detail, sizeof(detail), "the session is bound to '%s': %s",
			 b->verdict.host, b->verdict.why);
		cf_agent_event_set(ev, "sign", "refused", detail);
		return false;
	}
	cf_agent_event_set(ev, "sign", "allowed", "user authentication");
	return true;
}

bool cf_agent_sign(const struct cf_agent_session *s, const struct cf_agent_msg *m,
		   const struct cf_agent_rules *rules, struct confine_agent_event *ev)
{
	cf_ssh_fingerprint(m->key.p, m->key.n, ev->key);
	if (!cf_agent_key_named(rules, m->key.p, m->key.n)) {
		cf_agent_event_set(ev, "sign", "refused", "a key not named by --ssh-key");
		return false;
	}
	struct cf_sigdata d;
	cf_agent_parse_sigdata(m->data.p, m->data.n, m->key, &d);
	if (d.kind == CF_SIGDATA_USERAUTH)
		return sign_userauth(s, &d, ev);
	if (d.kind == CF_SIGDATA_SSHSIG) {
		char ns[64], detail[128];
		size_t k = d.ns.n < sizeof(ns) - 1 ? d.ns.n : sizeof(ns) - 1;
		memcpy(ns, d.ns.p, k);
		ns[k] = '\0';
		snprintf(detail, sizeof(detail), "an SSHSIG signature, namespace '%s'", ns);
		cf_agent_event_set(ev, "sign", "allowed", detail);
		return true;
	}
	cf_agent_event_set(ev, "sign", "refused",
			   "data that is neither an SSH user authentication for this key nor an "
			   "SSHSIG blob");
	return false;
}
