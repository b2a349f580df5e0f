/* SPDX-License-Identifier: MIT */
/*
 * R44, the ssh-agent filter apart from its sockets: the protocol parser (framing, the table of
 * client messages, the identities answer, what a sign request's data is), keys and
 * fingerprints, the check of a session binding's signature (vectors made by Python's
 * cryptography module, make-vectors.py), known_hosts against the network rules, and the
 * decisions on bindings and sign requests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "agent/agent_keys.h"
#include "agent/agent_policy.h"
#include "agent/agent_proto.h"
#include "agent/known_hosts.h"
#include "net/decide.h"
#include "util/base64.h"

#include "vectors.inc"

/* TAP_OK evaluates its condition twice: conditions here have effects. */
#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		bool check_ = (cond);                                                              \
		TAP_OK(check_, __VA_ARGS__);                                                       \
	} while (0)

/* A test key: ssh-keygen -t ed25519 -C test-key, and what ssh-keygen -l printed for it. */
static const char test_pub[] =
    "ssh-ed25519 "
    "AAAAC3NzaC1lZDI1NTE5AAAAIOyt3TOmOFKE1d5hTsaZ+Pe5bTEOMEOBkkZyu+swE7LC "
    "test-key";
static const char test_fp[] = "SHA256:feY9ZM0PYvIXodHPsupJ/ExuPKiecwH69SnUdA16WGM";

struct wb {
	uint8_t b[8192];
	size_t n;
};

static void w_u8(struct wb *w, uint8_t v)
{
	w->b[w->n++] = v;
}

static void w_u32(struct wb *w, uint32_t v)
{
	w_u8(w, (uint8_t)(v >> 24));
	w_u8(w, (uint8_t)(v >> 16));
	w_u8(w, (uint8_t)(v >> 8));
	w_u8(w, (uint8_t)v);
}

static void w_str(struct wb *w, const void *p, size_t n)
{
	w_u32(w, (uint32_t)n);
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

static void w_cstr(struct wb *w, const char *s)
{
	w_str(w, s, strlen(s));
}

/* An SSH user authentication request for `key` in session `sid_p`. */
static void userauth(struct wb *w, const uint8_t *sid_p, size_t sid_n, const uint8_t *key,
		     size_t kn, const char *service, const char *method)
{
	w->n = 0;
	w_str(w, sid_p, sid_n);
	w_u8(w, CF_SSH_MSG_USERAUTH_REQUEST);
	w_cstr(w, "git");
	w_cstr(w, service);
	w_cstr(w, method);
	w_u8(w, 1);
	w_cstr(w, "ssh-ed25519");
	w_str(w, key, kn);
}

static void test_frames(void)
{
	const uint8_t need[] = {0, 0, 0};
	const uint8_t zero[] = {0, 0, 0, 0};
	const uint8_t big[] = {0, 4, 0, 1, 11};
	const uint8_t one[] = {0, 0, 0, 1, 11, 0xff};
	const uint8_t part[] = {0, 0, 0, 2, 11};
	TAP_INTEQ(cf_agent_frame(need, sizeof(need)), 0, "frame: three bytes need more");
	TAP_INTEQ(cf_agent_frame(zero, sizeof(zero)), -1,
		  "frame: a length of 0 ends the connection");
	TAP_INTEQ(cf_agent_frame(big, sizeof(big)), -1,
		  "frame: a length over 256 KiB ends the connection");
	TAP_INTEQ(cf_agent_frame(one, sizeof(one)), 5,
		  "frame: the first message, the byte after it left");
	TAP_INTEQ(cf_agent_frame(part, sizeof(part)), 0, "frame: a body not all there needs more");
}

static enum cf_agent_kind kind_of(const uint8_t *b, size_t n)
{
	struct cf_agent_msg m;
	cf_agent_parse(b, n, &m);
	return m.kind;
}

static void test_table(void)
{
	static const struct {
		uint8_t type;
		enum cf_agent_kind kind;
		const char *name;
	} t[] = {
	    {17, CF_AGENT_ADD, "add"},
	    {25, CF_AGENT_ADD, "add"},
	    {18, CF_AGENT_REMOVE, "remove"},
	    {19, CF_AGENT_REMOVE_ALL, "remove-all"},
	    {20, CF_AGENT_SMARTCARD_ADD, "smartcard-add"},
	    {26, CF_AGENT_SMARTCARD_ADD, "smartcard-add"},
	    {21, CF_AGENT_SMARTCARD_REMOVE, "smartcard-remove"},
	    {22, CF_AGENT_LOCK, "lock"},
	    {23, CF_AGENT_UNLOCK, "unlock"},
	    {9, CF_AGENT_UNKNOWN, "unknown"},
	    {1, CF_AGENT_UNKNOWN, "unknown"},
	    {14, CF_AGENT_UNKNOWN, "unknown"},
	    {255, CF_AGENT_UNKNOWN, "unknown"},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint8_t b[] = {t[i].type, 0, 0, 0, 3, 'a', 'b', 'c'};
		/* remove-all has no contents: with some it is malformed (and refused all the
		 * same), tested below. */
		enum cf_agent_kind k = kind_of(b, t[i].kind == CF_AGENT_REMOVE_ALL ? 1 : sizeof(b));
		CHECK(k == t[i].kind && !strcmp(cf_agent_kind_name(k), t[i].name),
		      "type %u is %s, whatever it carries", t[i].type, t[i].name);
	}
	uint8_t list[] = {11};
	CHECK(kind_of(list, 1) == CF_AGENT_LIST, "type 11 is a list request");
	uint8_t list_more[] = {11, 0};
	CHECK(kind_of(list_more, 2) == CF_AGENT_MALFORMED, "a list request with a byte after it");
	uint8_t rm_all_more[] = {19, 0};
	CHECK(kind_of(rm_all_more, 2) == CF_AGENT_MALFORMED, "remove-all with a byte after it");
	CHECK(kind_of(list, 0) == CF_AGENT_MALFORMED, "an empty message");

	struct wb w = {.n = 0};
	w_u8(&w, 13);
	w_cstr(&w, "key");
	w_cstr(&w, "data");
	w_u32(&w, 2);
	struct cf_agent_msg m;
	cf_agent_parse(w.b, w.n, &m);
	CHECK(m.kind == CF_AGENT_SIGN && m.key.n == 3 && m.data.n == 4 && m.flags == 2,
	      "a sign request: key, data, flags");
	cf_agent_parse(w.b, w.n - 1, &m);
	CHECK(m.kind == CF_AGENT_MALFORMED, "a sign request cut in its flags");
	w.b[w.n++] = 0;
	cf_agent_parse(w.b, w.n, &m);
	CHECK(m.kind == CF_AGENT_MALFORMED, "a sign request with a byte after its flags");
	w.n = 0;
	w_u8(&w, 13);
	w_u32(&w, 0xfffffff0u);
	cf_agent_parse(w.b, w.n, &m);
	CHECK(m.kind == CF_AGENT_MALFORMED, "a sign request whose key length runs past the end");

	w.n = 0;
	w_u8(&w, 27);
	w_cstr(&w, "session-bind@openssh.com");
	w_cstr(&w, "hostkey");
	w_cstr(&w, "sid");
	w_cstr(&w, "sig");
	w_u8(&w, 1);
	cf_agent_parse(w.b, w.n, &m);
	CHECK(m.kind == CF_AGENT_BIND && m.forwarding && m.sid.n == 3, "a session binding");
	w.b[w.n - 1] = 2;
	cf_agent_parse(w.b, w.n, &m);
	CHECK(m.kind == CF_AGENT_MALFORMED, "a binding whose bool is 2");
	w.n = 0;
	w_u8(&w, 27);
	w_cstr(&w, "restrict-destination-v00@openssh.com");
	w_cstr(&w, "whatever");
	cf_agent_parse(w.b, w.n, &m);
	CHECK(m.kind == CF_AGENT_EXTENSION && m.ext.n == 36, "another extension, by name");
	w.n = 0;
	w_u8(&w, 27);
	w_cstr(&w, "query");
	cf_agent_parse(w.b, w.n, &m);
	CHECK(m.kind == CF_AGENT_QUERY, "the query extension");
}

static void test_identities(void)
{
	struct wb w = {.n = 0};
	w_u8(&w, 12);
	w_u32(&w, 3);
	for (int i = 0; i < 3; i++) {
		char k[8], c[8];
		snprintf(k, sizeof(k), "key%d", i);
		snprintf(c, sizeof(c), "c%d", i);
		w_cstr(&w, k);
		w_cstr(&w, c);
	}
	struct cf_agent_ident v[4];
	size_t n;
	CHECK(cf_agent_parse_identities(w.b, w.n, v, 4, &n) && n == 3, "an identities answer");
	CHECK(!cf_agent_parse_identities(w.b, w.n, v, 2, &n), "more keys than room: refused");
	CHECK(!cf_agent_parse_identities(w.b, w.n - 1, v, 4, &n), "an answer cut short");
	bool keep[3] = {false, true, false};
	struct cf_buf b;
	cf_buf_init(&b);
	cf_agent_build_identities(v, keep, 3, &b);
	struct cf_agent_ident v2[4];
	size_t n2 = 0;
	bool ok = !b.oom && cf_agent_frame((const uint8_t *)b.s, b.len) == (long)b.len &&
		  cf_agent_parse_identities((const uint8_t *)b.s + 4, b.len - 4, v2, 4, &n2);
	CHECK(ok && n2 == 1 && v2[0].blob.n == 4 && !memcmp(v2[0].blob.p, "key1", 4),
	      "the answer built keeps only the kept key, and frames");
	cf_buf_release(&b);
	w.n = 0;
	w_u8(&w, 12);
	w_u32(&w, 1000000);
	CHECK(!cf_agent_parse_identities(w.b, w.n, v, 4, &n), "a count the message cannot hold");
}

static void test_sigdata(void)
{
	uint8_t *key;
	size_t kn;
	CHECK(cf_ssh_key_line(test_pub, strlen(test_pub), &key, &kn) == NULL, "a .pub line parses");
	struct cf_agent_str ks = {key, kn};
	uint8_t s[32];
	memset(s, 7, sizeof(s));
	struct wb w;
	struct cf_sigdata d;
	userauth(&w, s, sizeof(s), key, kn, "ssh-connection", "publickey");
	cf_agent_parse_sigdata(w.b, w.n, ks, &d);
	CHECK(d.kind == CF_SIGDATA_USERAUTH && d.sid.n == 32 && !d.hostbound,
	      "a user authentication request");
	w.b[w.n++] = 0;
	cf_agent_parse_sigdata(w.b, w.n, ks, &d);
	CHECK(d.kind == CF_SIGDATA_OTHER, "... with a byte after it is not one");
	userauth(&w, s, sizeof(s), key, kn, "ssh-connection",
		 "publickey-hostbound-v00@openssh.com");
	w_cstr(&w, "hostkey");
	cf_agent_parse_sigdata(w.b, w.n, ks, &d);
	CHECK(d.kind == CF_SIGDATA_USERAUTH && d.hostbound && d.hostkey.n == 7,
	      "the hostbound method carries the host key");
	userauth(&w, s, sizeof(s), key, kn, "ssh-userauth", "publickey");
	cf_agent_parse_sigdata(w.b, w.n, ks, &d);
	CHECK(d.kind == CF_SIGDATA_OTHER, "another service is not one");
	userauth(&w, s, sizeof(s), key, kn, "ssh-connection", "password");
	cf_agent_parse_sigdata(w.b, w.n, ks, &d);
	CHECK(d.kind == CF_SIGDATA_OTHER, "another method is not one");
	struct cf_agent_str other = {(const uint8_t *)"other", 5};
	userauth(&w, s, sizeof(s), key, kn, "ssh-connection", "publickey");
	cf_agent_parse_sigdata(w.b, w.n, other, &d);
	CHECK(d.kind == CF_SIGDATA_OTHER, "a request for another key than the one asked for");
	userauth(&w, s, 0, key, kn, "ssh-connection", "publickey");
	cf_agent_parse_sigdata(w.b, w.n, ks, &d);
	CHECK(d.kind == CF_SIGDATA_OTHER, "an empty session id");
	w.n = 0;
	memcpy(w.b, "SSHSIG", 6);
	w.n = 6;
	w_cstr(&w, "git");
	w_cstr(&w, "");
	w_cstr(&w, "sha512");
	w_str(&w, s, sizeof(s));
	cf_agent_parse_sigdata(w.b, w.n, ks, &d);
	CHECK(d.kind == CF_SIGDATA_SSHSIG && d.ns.n == 3, "an SSHSIG blob and its namespace");
	cf_agent_parse_sigdata(w.b + 1, w.n - 1, ks, &d);
	CHECK(d.kind == CF_SIGDATA_OTHER, "anything else is other");
	free(key);
}

static void test_keys(void)
{
	uint8_t *key;
	size_t kn;
	char fp[CF_SSH_FP_LEN], type[32];
	CHECK(cf_ssh_key_line(test_pub, strlen(test_pub), &key, &kn) == NULL, "key line");
	cf_ssh_fingerprint(key, kn, fp);
	TAP_STREQ(fp, test_fp, "the fingerprint is ssh-keygen -l's");
	cf_ssh_key_type(key, kn, type, sizeof(type));
	TAP_STREQ(type, "ssh-ed25519", "the key's type");
	free(key);
	CHECK(cf_ssh_fingerprint_syntax(test_fp), "fingerprint syntax");
	CHECK(!cf_ssh_fingerprint_syntax("SHA256:abc"), "a short fingerprint");
	CHECK(!cf_ssh_fingerprint_syntax("MD5:aa:bb"), "an MD5 fingerprint is not taken");
	const char bad_type[] =
	    "ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIOyt3TOmOFKE1d5hTsaZ+Pe5bTEOMEOBkkZyu+"
	    "swE7LC";
	CHECK(cf_ssh_key_line(bad_type, strlen(bad_type), &key, &kn) != NULL,
	      "a line whose type is not the blob's");
	CHECK(cf_ssh_key_line("ssh-ed25519 !!!", 15, &key, &kn) != NULL, "not base64");
	CHECK(cf_ssh_key_line("ssh-ed25519", 11, &key, &kn) != NULL, "no key");
}

static void test_verify(void)
{
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		const struct vector *v = &vectors[i];
		const char *why =
		    cf_ssh_verify(v->key, v->key_len, v->sig, v->sig_len, sid, sizeof(sid));
		bool refused = strstr(v->name, "rsa1024") || strstr(v->name, "ssh_rsa");
		if (refused) {
			CHECK(why != NULL, "%s: refused (%s)", v->name, why ? why : "accepted");
			continue;
		}
		CHECK(why == NULL, "%s: a good signature verifies (%s)", v->name, why ? why : "ok");
		unsigned char other[sizeof(sid)];
		memcpy(other, sid, sizeof(sid));
		other[0] ^= 1;
		CHECK(cf_ssh_verify(v->key, v->key_len, v->sig, v->sig_len, other, sizeof(other)) !=
			  NULL,
		      "%s: over another session id it does not", v->name);
		unsigned char *bad = malloc(v->sig_len);
		memcpy(bad, v->sig, v->sig_len);
		bad[v->sig_len - 3] ^= 0x40;
		CHECK(cf_ssh_verify(v->key, v->key_len, bad, v->sig_len, sid, sizeof(sid)) != NULL,
		      "%s: a changed signature does not", v->name);
		free(bad);
	}
	/* An ed25519 signature presented with an ECDSA key. */
	CHECK(cf_ssh_verify(vectors[1].key, vectors[1].key_len, vectors[0].sig, vectors[0].sig_len,
			    sid, sizeof(sid)) != NULL,
	      "a signature of another algorithm than the key's");
}

static void add_rule(struct cf_net_policy *p, const char *pattern, enum cf_action action)
{
	struct cf_net_rules rs = {0};
	struct cf_net_rule r = {0};
	cf_net_pattern_parse(pattern, strlen(pattern), &r);
	r.pattern = (char *)pattern;
	r.action = action;
	r.layer = CF_LAYER_SESSION;
	r.source = "session";
	cf_net_rules_add(&rs, &r, NULL);
	cf_net_policy_add(p, CF_LAYER_SESSION, &rs, NULL);
	cf_net_rules_release(&rs);
}

static const char kh_text[] =
    "# a comment\n"
    "[127.0.0.1]:2222 ssh-ed25519 "
    "AAAAC3NzaC1lZDI1NTE5AAAAIOyt3TOmOFKE1d5hTsaZ+Pe5bTEOMEOBkkZyu+swE7LC\n"
    "|1|oq6sxb06tQerJ0PpodYeMJoXgUQ=|hkwDBXXV4fpFpGMdSlywbAz9rWg= ssh-ed25519 "
    "AAAAC3NzaC1lZDI1NTE5AAAAIOyt3TOmOFKE1d5hTsaZ+Pe5bTEOMEOBkkZyu+swE7LC\n"
    "not an entry\n";

static void test_known_hosts(void)
{
	struct cf_known_hosts kh = {0};
	int pr = cf_known_hosts_parse(&kh, kh_text, strlen(kh_text));
	CHECK(pr == 0 && kh.n == 2 && kh.skipped == 1,
	      "known_hosts: two entries, a comment, one line skipped");
	CHECK(cf_kh_hashed_is(kh.v[1].hosts, strlen(kh.v[1].hosts), "github.com"),
	      "a hashed name (ssh-keygen -H) is github.com's");
	CHECK(!cf_kh_hashed_is(kh.v[1].hosts, strlen(kh.v[1].hosts), "gitlab.com"),
	      "... and not gitlab.com's");
	uint8_t *key;
	size_t kn;
	cf_ssh_key_line(test_pub, strlen(test_pub), &key, &kn);
	struct cf_net_policy net = {0};
	struct cf_kh_verdict v;
	cf_kh_decide(&kh, key, kn, &net, CONFINE_NET_DOMAINS, &v);
	CHECK(!v.allowed && !strcmp(v.host, "127.0.0.1:2222"),
	      "no allow rule: refused, the host named (%s: %s)", v.host, v.why);
	cf_kh_decide(&kh, key, kn, &net, CONFINE_NET_ON, &v);
	CHECK(v.allowed, "with the network on, a known key is allowed");
	cf_kh_decide(&kh, key, kn, &net, CONFINE_NET_OFF, &v);
	CHECK(!v.allowed, "with no network, never");
	add_rule(&net, "127.0.0.1:2223", CF_ALLOW);
	cf_kh_decide(&kh, key, kn, &net, CONFINE_NET_DOMAINS, &v);
	CHECK(!v.allowed, "an allow of another port does not allow it");
	add_rule(&net, "github.com:22", CF_ALLOW);
	cf_kh_decide(&kh, key, kn, &net, CONFINE_NET_DOMAINS, &v);
	CHECK(v.allowed && !strcmp(v.host, "github.com:22"),
	      "the hashed entry matches the literal allow github.com:22 (%s)", v.host);
	cf_net_policy_release(&net);
	add_rule(&net, "127.0.0.1:2222", CF_ALLOW);
	cf_kh_decide(&kh, key, kn, &net, CONFINE_NET_DOMAINS, &v);
	CHECK(v.allowed && !strcmp(v.host, "127.0.0.1:2222"), "[127.0.0.1]:2222 allowed by rule");
	cf_net_policy_release(&net);
	add_rule(&net, "127.0.0.1", CF_DENY);
	cf_kh_decide(&kh, key, kn, &net, CONFINE_NET_ON, &v);
	CHECK(!v.allowed || !strcmp(v.host, "(a hashed known_hosts name)"),
	      "network on: a denied host is not taken for the plain entry");
	cf_net_policy_release(&net);

	uint8_t other[] = {0, 0, 0, 3, 'a', 'b', 'c'};
	cf_kh_decide(&kh, other, sizeof(other), &net, CONFINE_NET_ON, &v);
	CHECK(!v.allowed && strstr(v.why, "no entry"), "an unknown key: %s", v.why);

	static const char revoked[] = "@revoked * ssh-ed25519 "
				      "AAAAC3NzaC1lZDI1NTE5AAAAIOyt3TOmOFKE1d5hTsaZ+Pe5bTEOMEOBkkZy"
				      "u+swE7LC\n";
	cf_known_hosts_parse(&kh, revoked, strlen(revoked));
	cf_kh_decide(&kh, key, kn, &net, CONFINE_NET_ON, &v);
	CHECK(!v.allowed && strstr(v.why, "revoked"), "a @revoked key: %s", v.why);
	cf_known_hosts_release(&kh);

	static const char wild[] =
	    "*.example.com,!bad.example.com ssh-ed25519 "
	    "AAAAC3NzaC1lZDI1NTE5AAAAIOyt3TOmOFKE1d5hTsaZ+Pe5bTEOMEOBkkZyu+swE7"
	    "LC\n";
	cf_known_hosts_parse(&kh, wild, strlen(wild));
	add_rule(&net, "*.example.com", CF_ALLOW);
	cf_kh_decide(&kh, key, kn, &net, CONFINE_NET_DOMAINS, &v);
	CHECK(!v.allowed, "a wildcard pattern is never taken for a host with network rules");
	cf_kh_decide(&kh, key, kn, &net, CONFINE_NET_ON, &v);
	CHECK(v.allowed, "... with the network on, the key being known is enough");
	cf_net_policy_release(&net);
	cf_known_hosts_release(&kh);
	free(key);
}

/* A binding of the ed25519 vector's host key over sid; forwarding as given. */
static void bind_msg(struct wb *w, bool forwarding, bool good)
{
	const struct vector *v = &vectors[0];
	w->n = 0;
	w_u8(w, 27);
	w_cstr(w, "session-bind@openssh.com");
	w_str(w, v->key, v->key_len);
	w_str(w, sid, sizeof(sid));
	w_str(w, v->sig, v->sig_len);
	w_u8(w, forwarding);
	if (!good)
		w->b[w->n - 5] ^= 1; /* inside the signature */
}

static void test_policy(void)
{
	char line[300];
	char b64[120];
	cf_base64_encode(vectors[0].key, vectors[0].key_len, false, true, b64);
	snprintf(line, sizeof(line), "[127.0.0.1]:2222 ssh-ed25519 %s\n", b64);
	struct cf_known_hosts kh = {0};
	cf_known_hosts_parse(&kh, line, strlen(line));
	struct cf_net_policy net = {0};
	add_rule(&net, "127.0.0.1:2222", CF_ALLOW);
	struct cf_strv fps = {0};
	cf_strv_add(&fps, test_fp);
	struct cf_agent_rules rules = {&fps, &kh, &net, CONFINE_NET_DOMAINS};
	struct cf_agent_session s = {0};
	struct confine_agent_event ev;
	struct cf_agent_msg m, bm;
	struct wb w, sw, bw;

	uint8_t *key;
	size_t kn;
	cf_ssh_key_line(test_pub, strlen(test_pub), &key, &kn);
	userauth(&w, sid, sizeof(sid), key, kn, "ssh-connection", "publickey");
	sw.n = 0;
	w_u8(&sw, 13);
	w_str(&sw, key, kn);
	w_str(&sw, w.b, w.n);
	w_u32(&sw, 0);
	cf_agent_parse(sw.b, sw.n, &m);
	memset(&ev, 0, sizeof(ev));
	CHECK(!cf_agent_sign(&s, &m, &rules, &ev) && strstr(ev.detail, "not bound"),
	      "an unbound user authentication is refused: %s", ev.detail);

	bind_msg(&bw, false, false);
	cf_agent_parse(bw.b, bw.n, &bm);
	memset(&ev, 0, sizeof(ev));
	CHECK(!cf_agent_bind(&s, &bm, &rules, &ev) && s.n_binds == 0,
	      "a binding with a bad signature is refused: %s", ev.detail);
	bind_msg(&bw, false, true);
	cf_agent_parse(bw.b, bw.n, &bm);
	memset(&ev, 0, sizeof(ev));
	CHECK(cf_agent_bind(&s, &bm, &rules, &ev) && !strcmp(ev.outcome, "allowed") &&
		  !strcmp(ev.host, "127.0.0.1:2222"),
	      "a good binding to an allowed host (%s)", ev.host);
	memset(&ev, 0, sizeof(ev));
	CHECK(cf_agent_sign(&s, &m, &rules, &ev) && !strcmp(ev.host, "127.0.0.1:2222") &&
		  !strcmp(ev.key, test_fp),
	      "then the user authentication for that session is allowed");

	uint8_t other_sid[32];
	memset(other_sid, 1, sizeof(other_sid));
	userauth(&w, other_sid, sizeof(other_sid), key, kn, "ssh-connection", "publickey");
	sw.n = 0;
	w_u8(&sw, 13);
	w_str(&sw, key, kn);
	w_str(&sw, w.b, w.n);
	w_u32(&sw, 0);
	cf_agent_parse(sw.b, sw.n, &m);
	memset(&ev, 0, sizeof(ev));
	CHECK(!cf_agent_sign(&s, &m, &rules, &ev) && strstr(ev.detail, "another session"),
	      "a user authentication for another session (a relay) is refused");

	struct wb ow;
	ow.n = 0;
	w_u8(&ow, 13);
	w_str(&ow, vectors[1].key, vectors[1].key_len);
	w_cstr(&ow, "data");
	w_u32(&ow, 0);
	cf_agent_parse(ow.b, ow.n, &m);
	memset(&ev, 0, sizeof(ev));
	CHECK(!cf_agent_sign(&s, &m, &rules, &ev) && strstr(ev.detail, "--ssh-key"),
	      "a key not named is refused");
	cf_agent_session_release(&s);

	/* Bound for forwarding last: refused. */
	bind_msg(&bw, true, true);
	cf_agent_parse(bw.b, bw.n, &bm);
	cf_agent_bind(&s, &bm, &rules, &ev);
	userauth(&w, sid, sizeof(sid), key, kn, "ssh-connection", "publickey");
	sw.n = 0;
	w_u8(&sw, 13);
	w_str(&sw, key, kn);
	w_str(&sw, w.b, w.n);
	w_u32(&sw, 0);
	cf_agent_parse(sw.b, sw.n, &m);
	memset(&ev, 0, sizeof(ev));
	CHECK(!cf_agent_sign(&s, &m, &rules, &ev) && strstr(ev.detail, "forwarding"),
	      "a session bound for forwarding is not signed for");
	cf_agent_session_release(&s);

	/* Through a forwarded agent: the first hop (bound for forwarding) to a host no rule
	 * allows, then a login bound to an allowed one: every hop must be allowed. */
	cf_net_policy_release(&net);
	add_rule(&net, "127.0.0.1:2222", CF_ALLOW);
	struct cf_known_hosts kh2 = {0};
	char line2[300];
	snprintf(line2, sizeof(line2), "[127.0.0.1]:2299 ssh-ed25519 %s\n", b64);
	cf_known_hosts_parse(&kh2, line2, strlen(line2));
	struct cf_agent_rules rules2 = {&fps, &kh2, &net, CONFINE_NET_DOMAINS};
	bind_msg(&bw, true, true);
	cf_agent_parse(bw.b, bw.n, &bm);
	cf_agent_bind(&s, &bm, &rules2, &ev); /* the same key, known only as a refused host */
	bind_msg(&bw, false, true);
	cf_agent_parse(bw.b, bw.n, &bm);
	cf_agent_bind(&s, &bm, &rules, &ev);
	memset(&ev, 0, sizeof(ev));
	CHECK(!cf_agent_sign(&s, &m, &rules, &ev) && strstr(ev.detail, "127.0.0.1:2299"),
	      "a forwarded hop to a host no rule allows refuses the login after it: %s", ev.detail);
	cf_agent_session_release(&s);
	cf_known_hosts_release(&kh2);

	/* Bound to a host no rule allows. */
	cf_net_policy_release(&net);
	add_rule(&net, "127.0.0.1:2223", CF_ALLOW);
	bind_msg(&bw, false, true);
	cf_agent_parse(bw.b, bw.n, &bm);
	memset(&ev, 0, sizeof(ev));
	CHECK(cf_agent_bind(&s, &bm, &rules, &ev) && !strcmp(ev.outcome, "refused"),
	      "a good binding to a host no rule allows is kept, as refused");
	memset(&ev, 0, sizeof(ev));
	CHECK(!cf_agent_sign(&s, &m, &rules, &ev) && strstr(ev.detail, "127.0.0.1:2222"),
	      "and signing for it is refused, naming the host: %s", ev.detail);
	cf_agent_session_release(&s);

	/* SSHSIG needs no binding. */
	w.n = 0;
	memcpy(w.b, "SSHSIG", 6);
	w.n = 6;
	w_cstr(&w, "git");
	w_cstr(&w, "");
	w_cstr(&w, "sha512");
	w_str(&w, sid, sizeof(sid));
	sw.n = 0;
	w_u8(&sw, 13);
	w_str(&sw, key, kn);
	w_str(&sw, w.b, w.n);
	w_u32(&sw, 0);
	cf_agent_parse(sw.b, sw.n, &m);
	memset(&ev, 0, sizeof(ev));
	CHECK(cf_agent_sign(&s, &m, &rules, &ev) && strstr(ev.detail, "'git'"),
	      "an SSHSIG signature is allowed: %s", ev.detail);
	/* Anything else is not. */
	sw.n = 0;
	w_u8(&sw, 13);
	w_str(&sw, key, kn);
	w_cstr(&sw, "a challenge of some other protocol");
	w_u32(&sw, 0);
	cf_agent_parse(sw.b, sw.n, &m);
	memset(&ev, 0, sizeof(ev));
	CHECK(!cf_agent_sign(&s, &m, &rules, &ev), "other data is refused: %s", ev.detail);
	free(key);
	cf_strv_release(&fps);
	cf_net_policy_release(&net);
	cf_known_hosts_release(&kh);
}

int main(void)
{
	test_frames();
	test_table();
	test_identities();
	test_sigdata();
	test_keys();
	test_verify();
	test_known_hosts();
	test_policy();
	return tap_done();
}
