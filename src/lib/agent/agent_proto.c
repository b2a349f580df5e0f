/* SPDX-License-Identifier: MIT */
/* The SSH agent protocol (see agent_proto.h), written from draft-miller-ssh-agent and RFC 4252. */
#include <string.h>

#include "agent/agent_proto.h"

bool cf_agent_get_u8(struct cf_agent_rd *r, uint8_t *v)
{
	if (r->n < 1)
		return false;
	*v = r->p[0];
	r->p++;
	r->n--;
	return true;
}

bool cf_agent_get_u32(struct cf_agent_rd *r, uint32_t *v)
{
	if (r->n < 4)
		return false;
	*v = (uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 | (uint32_t)r->p[2] << 8 | r->p[3];
	r->p += 4;
	r->n -= 4;
	return true;
}

bool cf_agent_get_str(struct cf_agent_rd *r, struct cf_agent_str *s)
{
	struct cf_agent_rd save = *r;
	uint32_t len;
	if (!cf_agent_get_u32(r, &len) || len > r->n) {
		*r = save;
		return false;
	}
	s->p = r->p;
	s->n = len;
	r->p += len;
	r->n -= len;
	return true;
}

bool cf_agent_get_bool(struct cf_agent_rd *r, bool *v)
{
	uint8_t b;
	if (r->n < 1 || r->p[0] > 1)
		return false;
	cf_agent_get_u8(r, &b);
	*v = b == 1;
	return true;
}

bool cf_agent_str_eq(struct cf_agent_str a, struct cf_agent_str b)
{
	return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}

static bool str_is(struct cf_agent_str s, const char *text)
{
	size_t n = strlen(text);
	return s.n == n && memcmp(s.p, text, n) == 0;
}

long cf_agent_frame(const uint8_t *buf, size_t n)
{
	struct cf_agent_rd r = {buf, n};
	uint32_t len;
	if (!cf_agent_get_u32(&r, &len))
		return 0;
	if (len == 0 || len > CF_AGENT_MAX_MSG)
		return -1;
	return r.n >= len ? (long)len + 4 : 0;
}

static void malformed(struct cf_agent_msg *m, const char *why)
{
	m->kind = CF_AGENT_MALFORMED;
	m->why = why;
}

static void parse_sign(struct cf_agent_rd *r, struct cf_agent_msg *m)
{
	if (!cf_agent_get_str(r, &m->key) || !cf_agent_get_str(r, &m->data) ||
	    !cf_agent_get_u32(r, &m->flags))
		return malformed(m, "a sign request shorter than its fields");
	if (m->key.n == 0)
		return malformed(m, "a sign request without a key");
	m->kind = CF_AGENT_SIGN;
}

/* session-bind@openssh.com: string hostkey, string session id, string signature, bool
 * forwarding. */
static void parse_bind(struct cf_agent_rd *r, struct cf_agent_msg *m)
{
	if (!cf_agent_get_str(r, &m->hostkey) || !cf_agent_get_str(r, &m->sid) ||
	    !cf_agent_get_str(r, &m->sig) || !cf_agent_get_bool(r, &m->forwarding))
		return malformed(m, "a session binding shorter than its fields");
	if (m->hostkey.n == 0 || m->sig.n == 0)
		return malformed(m, "a session binding without a host key or a signature");
	if (m->sid.n == 0 || m->sid.n > CF_AGENT_MAX_SID)
		return malformed(m, "a session binding whose session id is empty or too long");
	m->kind = CF_AGENT_BIND;
}

static void parse_extension(struct cf_agent_rd *r, struct cf_agent_msg *m)
{
	if (!cf_agent_get_str(r, &m->ext) || m->ext.n == 0)
		return malformed(m, "an extension request without a name");
	if (str_is(m->ext, "session-bind@openssh.com"))
		return parse_bind(r, m);
	if (str_is(m->ext, "query")) {
		m->kind = CF_AGENT_QUERY;
		return;
	}
	/* Its contents are the extension's own: not looked at, never forwarded. */
	m->kind = CF_AGENT_EXTENSION;
	r->n = 0;
}

/* The table of client messages: what each type is.  Types that carry contents confine does
 * not read (keys to add, passphrases) are classified by their type alone: they are refused
 * whatever they hold. */
static const struct {
	uint8_t type;
	enum cf_agent_kind kind;
	bool empty; /* the draft defines no contents */
} table[] = {
    {CF_SSH_AGENTC_REQUEST_IDENTITIES, CF_AGENT_LIST, true},
    {CF_SSH_AGENTC_SIGN_REQUEST, CF_AGENT_SIGN, false},
    {CF_SSH_AGENTC_ADD_IDENTITY, CF_AGENT_ADD, false},
    {CF_SSH_AGENTC_ADD_ID_CONSTRAINED, CF_AGENT_ADD, false},
    {CF_SSH_AGENTC_REMOVE_IDENTITY, CF_AGENT_REMOVE, false},
    {CF_SSH_AGENTC_REMOVE_ALL_IDENTITIES, CF_AGENT_REMOVE_ALL, true},
    {CF_SSH_AGENTC_ADD_SMARTCARD_KEY, CF_AGENT_SMARTCARD_ADD, false},
    {CF_SSH_AGENTC_ADD_SMARTCARD_KEY_CONSTRAINED, CF_AGENT_SMARTCARD_ADD, false},
    {CF_SSH_AGENTC_REMOVE_SMARTCARD_KEY, CF_AGENT_SMARTCARD_REMOVE, false},
    {CF_SSH_AGENTC_LOCK, CF_AGENT_LOCK, false},
    {CF_SSH_AGENTC_UNLOCK, CF_AGENT_UNLOCK, false},
    {CF_SSH_AGENTC_EXTENSION, CF_AGENT_EXTENSION, false},
};

void cf_agent_parse(const uint8_t *body, size_t n, struct cf_agent_msg *m)
{
	memset(m, 0, sizeof(*m));
	struct cf_agent_rd r = {body, n};
	if (!cf_agent_get_u8(&r, &m->type))
		return malformed(m, "an empty message");
	size_t i = 0;
	while (i < sizeof(table) / sizeof(table[0]) && table[i].type != m->type)
		i++;
	if (i == sizeof(table) / sizeof(table[0])) {
		m->kind = CF_AGENT_UNKNOWN;
		return;
	}
	m->kind = table[i].kind;
	if (m->kind == CF_AGENT_SIGN)
		parse_sign(&r, m);
	else if (m->kind == CF_AGENT_EXTENSION)
		parse_extension(&r, m);
	else if (!table[i].empty)
		r.n = 0; /* refused by type: the contents do not matter */
	if (m->kind != CF_AGENT_MALFORMED && r.n != 0)
		malformed(m, "bytes after the last field of the message");
}

const char *cf_agent_kind_name(enum cf_agent_kind k)
{
	switch (k) {
	case CF_AGENT_MALFORMED:
		return "malformed";
	case CF_AGENT_LIST:
		return "list";
	case CF_AGENT_SIGN:
		return "sign";
	case CF_AGENT_BIND:
		return "session-bind";
	case CF_AGENT_QUERY:
		return "query";
	case CF_AGENT_ADD:
		return "add";
	case CF_AGENT_REMOVE:
		return "remove";
	case CF_AGENT_REMOVE_ALL:
		return "remove-all";
	case CF_AGENT_LOCK:
		return "lock";
	case CF_AGENT_UNLOCK:
		return "unlock";
	case CF_AGENT_SMARTCARD_ADD:
		return "smartcard-add";
	case CF_AGENT_SMARTCARD_REMOVE:
		return "smartcard-remove";
	case CF_AGENT_EXTENSION:
		return "extension";
	case CF_AGENT_UNKNOWN:
		break;
	}
	return "unknown";
}

bool cf_agent_parse_identities(const uint8_t *body, size_t n, struct cf_agent_ident *v, size_t cap,
			       size_t *count)
{
	struct cf_agent_rd r = {body, n};
	uint8_t type;
	uint32_t k;
	*count = 0;
	if (!cf_agent_get_u8(&r, &type) || type != CF_SSH_AGENT_IDENTITIES_ANSWER ||
	    !cf_agent_get_u32(&r, &k))
		return false;
	/* Each key needs at least its two lengths: a count the message cannot hold is a lie. */
	if (k > cap || k > r.n / 8)
		return false;
	for (uint32_t i = 0; i < k; i++)
		if (!cf_agent_get_str(&r, &v[i].blob) || !cf_agent_get_str(&r, &v[i].comment) ||
		    v[i].blob.n == 0)
			return false;
	if (r.n != 0)
		return false;
	*count = k;
	return true;
}

static void put_u32(struct cf_buf *b, uint32_t v)
{
	char x[4] = {(char)(v >> 24), (char)(v >> 16), (char)(v >> 8), (char)v};
	cf_buf_addn(b, x, 4);
}

static void put_str(struct cf_buf *b, struct cf_agent_str s)
{
	put_u32(b, (uint32_t)s.n);
	cf_buf_addn(b, (const char *)s.p, s.n);
}

void cf_agent_build_identities(const struct cf_agent_ident *v, const bool *keep, size_t n,
			       struct cf_buf *out)
{
	size_t len = 1 + 4, kept = 0;
	for (size_t i = 0; i < n; i++)
		if (keep[i]) {
			len += 8 + v[i].blob.n + v[i].comment.n;
			kept++;
		}
	put_u32(out, (uint32_t)len);
	cf_buf_addc(out, (char)CF_SSH_AGENT_IDENTITIES_ANSWER);
	put_u32(out, (uint32_t)kept);
	for (size_t i = 0; i < n; i++)
		if (keep[i]) {
			put_str(out, v[i].blob);
			put_str(out, v[i].comment);
		}
}

void cf_agent_build_byte(uint8_t type, struct cf_buf *out)
{
	put_u32(out, 1);
	cf_buf_addc(out, (char)type);
}

/* RFC 4252 7: string session id, byte 50, string user, string service, string method, bool
 * TRUE, string algorithm, string key [, string host key for the hostbound method]. */
static bool parse_userauth(struct cf_agent_rd *r, struct cf_agent_str key, struct cf_sigdata *d)
{
	uint8_t type;
	bool follows;
	struct cf_agent_str service, method, alg;
	if (!cf_agent_get_str(r, &d->sid) || d->sid.n == 0 || d->sid.n > CF_AGENT_MAX_SID ||
	    !cf_agent_get_u8(r, &type) || type != CF_SSH_MSG_USERAUTH_REQUEST ||
	    !cf_agent_get_str(r, &d->user) || !cf_agent_get_str(r, &service) ||
	    !cf_agent_get_str(r, &method) || !cf_agent_get_bool(r, &follows) || !follows ||
	    !cf_agent_get_str(r, &alg) || alg.n == 0 || !cf_agent_get_str(r, &d->key))
		return false;
	if (!str_is(service, "ssh-connection") || !cf_agent_str_eq(d->key, key))
		return false;
	if (str_is(method, "publickey-hostbound-v00@openssh.com")) {
		d->hostbound = true;
		if (!cf_agent_get_str(r, &d->hostkey) || d->hostkey.n == 0)
			return false;
	} else if (!str_is(method, "publickey")) {
		return false;
	}
	return r->n == 0;
}

/* "SSHSIG", string namespace, string reserved, string hash algorithm, string hash. */
static bool parse_sshsig(struct cf_agent_rd *r, struct cf_sigdata *d)
{
	struct cf_agent_str reserved, alg, hash;
	if (r->n < 6 || memcmp(r->p, "SSHSIG", 6))
		return false;
	r->p += 6;
	r->n -= 6;
	if (!cf_agent_get_str(r, &d->ns) || d->ns.n == 0 || !cf_agent_get_str(r, &reserved) ||
	    !cf_agent_get_str(r, &alg) || alg.n == 0 || !cf_agent_get_str(r, &hash) || hash.n == 0)
		return false;
	return r->n == 0;
}

void cf_agent_parse_sigdata(const uint8_t *data, size_t n, struct cf_agent_str key,
			    struct cf_sigdata *out)
{
	struct cf_agent_rd r = {data, n};
	memset(out, 0, sizeof(*out));
	if (parse_userauth(&r, key, out)) {
		out->kind = CF_SIGDATA_USERAUTH;
		return;
	}
	memset(out, 0, sizeof(*out));
	r = (struct cf_agent_rd){data, n};
	if (parse_sshsig(&r, out)) {
		out->kind = CF_SIGDATA_SSHSIG;
		return;
	}
	memset(out, 0, sizeof(*out));
}
