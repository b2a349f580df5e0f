/* SPDX-License-Identifier: MIT */
/*
 * What confine's filtering agent does with each request (R44), apart from the sockets: the
 * session bindings of one client connection, and the decision on a sign request.  Pure apart
 * from Nettle (signature checks).
 */
#ifndef CONFINE_AGENT_POLICY_H
#define CONFINE_AGENT_POLICY_H

#include "agent/agent_proto.h"
#include "agent/known_hosts.h"
#include "confine.h"

struct cf_agent_bind {
	uint8_t sid[CF_AGENT_MAX_SID];
	size_t sid_len;
	uint8_t *hostkey; /* malloc'd */
	size_t hostkey_len;
	bool forwarding;
	struct cf_kh_verdict verdict;
};

/* The bindings one client connection made, in order (OpenSSH's ssh binds each connection once,
 * and once more per hop when the agent is forwarded). */
struct cf_agent_session {
	struct cf_agent_bind binds[CF_AGENT_MAX_BINDS];
	size_t n_binds;
};

/* What the policy needs beyond the request. */
struct cf_agent_rules {
	const struct cf_strv *fingerprints; /* keys named by the user */
	const struct cf_known_hosts *kh;
	const struct cf_net_policy *net;
	enum confine_net_mode mode;
};

void cf_agent_session_release(struct cf_agent_session *s);

/*
 * A session-bind@openssh.com request: the binding's signature is checked (the host key
 * signed the session id); a good one is kept with the verdict of known_hosts and the network
 * rules on its host key.  Fills ev (request, host, outcome "allowed" when signatures for it
 * will be given, "refused" otherwise, detail).  Returns true when the binding is good (the
 * client is answered SUCCESS), false otherwise (FAILURE).
 */
bool cf_agent_bind(struct cf_agent_session *s, const struct cf_agent_msg *m,
		   const struct cf_agent_rules *rules, struct confine_agent_event *ev);

/*
 * A sign request: allowed only for a key the user named, and only for (a) an SSH user
 * authentication whose session id is the one bound last on this connection, not bound for
 * forwarding, with every binding of the connection to an allowed host (and, for the hostbound
 * method, the same host key), or (b) an SSHSIG blob.  Fills ev.  Returns whether the request
 * goes on to the caller's agent.
 */
bool cf_agent_sign(const struct cf_agent_session *s, const struct cf_agent_msg *m,
		   const struct cf_agent_rules *rules, struct confine_agent_event *ev);

/* Whether a key blob is one the user named. */
bool cf_agent_key_named(const struct cf_agent_rules *rules, const uint8_t *blob, size_t n);

/* Fills ev's request, outcome and detail (truncated, printable ASCII only). */
void cf_agent_event_set(struct confine_agent_event *ev, const char *request, const char *outcome,
			const char *detail);

#endif
