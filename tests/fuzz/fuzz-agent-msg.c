/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the ssh-agent filter's message parser (R44).  The first byte picks what the
 * rest is: a client's stream of framed requests, or the caller's agent's identities answer.
 * Beyond memory errors it checks the contract: every string the parser returns lies inside
 * the message; a frame is never longer than the bytes or the bound; a request whose type
 * carries no contents is malformed when it has some; what a sign request's data is depends on
 * the key asked for; an identities answer rebuilt with some keys left out parses again to
 * exactly those keys.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_proto.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

static void inside(struct cf_agent_str s, const uint8_t *p, size_t n)
{
	if (!s.p)
		return;
	CHECK(s.p >= p && s.n <= n && (size_t)(s.p - p) <= n - s.n);
}

static void requests(const uint8_t *p, size_t n)
{
	while (n) {
		long f = cf_agent_frame(p, n);
		CHECK(f <= (long)n && f <= (long)CF_AGENT_MAX_MSG + 4);
		if (f <= 0)
			return;
		const uint8_t *body = p + 4;
		size_t bn = (size_t)f - 4;
		struct cf_agent_msg m;
		cf_agent_parse(body, bn, &m);
		CHECK(cf_agent_kind_name(m.kind) != NULL);
		CHECK(m.kind != CF_AGENT_MALFORMED || m.why);
		inside(m.key, body, bn);
		inside(m.data, body, bn);
		inside(m.hostkey, body, bn);
		inside(m.sid, body, bn);
		inside(m.sig, body, bn);
		inside(m.ext, body, bn);
		if ((m.type == CF_SSH_AGENTC_REQUEST_IDENTITIES ||
		     m.type == CF_SSH_AGENTC_REMOVE_ALL_IDENTITIES) &&
		    bn > 1)
			CHECK(m.kind == CF_AGENT_MALFORMED);
		if (m.kind == CF_AGENT_BIND)
			CHECK(m.sid.n >= 1 && m.sid.n <= CF_AGENT_MAX_SID);
		if (m.kind == CF_AGENT_SIGN) {
			struct cf_sigdata d;
			cf_agent_parse_sigdata(m.data.p, m.data.n, m.key, &d);
			inside(d.sid, m.data.p, m.data.n);
			inside(d.key, m.data.p, m.data.n);
			inside(d.hostkey, m.data.p, m.data.n);
			inside(d.ns, m.data.p, m.data.n);
			if (d.kind == CF_SIGDATA_USERAUTH) {
				CHECK(cf_agent_str_eq(d.key, m.key));
				CHECK(d.sid.n >= 1 && d.sid.n <= CF_AGENT_MAX_SID);
				CHECK(!d.hostbound || d.hostkey.n);
			}
			if (d.kind == CF_SIGDATA_SSHSIG)
				CHECK(d.ns.n > 0 && m.data.n >= 6 &&
				      !memcmp(m.data.p, "SSHSIG", 6));
		}
		p += f;
		n -= (size_t)f;
	}
}

static void identities(const uint8_t *p, size_t n)
{
	struct cf_agent_ident v[64];
	size_t k = 0;
	if (!cf_agent_parse_identities(p, n, v, 64, &k))
		return;
	bool keep[64];
	size_t kept = 0;
	for (size_t i = 0; i < k; i++) {
		inside(v[i].blob, p, n);
		inside(v[i].comment, p, n);
		kept += keep[i] = (i + n) % 3 != 0;
	}
	struct cf_buf b;
	cf_buf_init(&b);
	cf_agent_build_identities(v, keep, k, &b);
	if (!b.oom) {
		struct cf_agent_ident w[64];
		size_t k2 = 0;
		CHECK(cf_agent_frame((const uint8_t *)b.s, b.len) == (long)b.len ||
		      b.len - 4 > CF_AGENT_MAX_MSG);
		CHECK(cf_agent_parse_identities((const uint8_t *)b.s + 4, b.len - 4, w, 64, &k2));
		CHECK(k2 == kept);
		for (size_t i = 0, j = 0; i < k; i++)
			if (keep[i])
				CHECK(cf_agent_str_eq(w[j++].blob, v[i].blob));
	}
	cf_buf_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		identities(data + 1, size - 1);
	else
		requests(data + 1, size - 1);
	return 0;
}
