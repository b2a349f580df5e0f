/* SPDX-License-Identifier: MIT */
/* The caller's known_hosts (see known_hosts.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/hmac.h>

#include "agent/agent_keys.h"
#include "agent/known_hosts.h"
#include "util/base64.h"
#include "util/util.h"

void cf_known_hosts_release(struct cf_known_hosts *kh)
{
	for (size_t i = 0; i < kh->n; i++) {
		free(kh->v[i].hosts);
		free(kh->v[i].blob);
	}
	free(kh->v);
	memset(kh, 0, sizeof(*kh));
}

static size_t skip_blank(const char *s, size_t i, size_t n)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

static size_t field_end(const char *s, size_t i, size_t n)
{
	while (i < n && s[i] != ' ' && s[i] != '\t')
		i++;
	return i;
}

/* One line (without its newline): 1 added, 0 not an entry, -1 out of memory. */
static int parse_line(struct cf_known_hosts *kh, const char *s, size_t n)
{
	size_t i = skip_blank(s, 0, n);
	if (i == n || s[i] == '#')
		return 0;
	enum cf_kh_marker marker = CF_KH_PLAIN;
	if (s[i] == '@') {
		size_t e = field_end(s, i, n);
		if (e - i == 8 && !memcmp(s + i, "@revoked", 8))
			marker = CF_KH_REVOKED;
		else if (e - i == 15 && !memcmp(s + i, "@cert-authority", 15))
			marker = CF_KH_CA;
		else
			return 0;
		i = skip_blank(s, e, n);
	}
	size_t h0 = i, h1 = field_end(s, i, n);
	if (h1 == h0 || h1 == n)
		return 0;
	uint8_t *blob = NULL;
	size_t bl = 0;
	if (cf_ssh_key_line(s + h1, n - h1, &blob, &bl))
		return 0;
	if (kh->n == kh->cap) {
		size_t cap;
		struct cf_kh_entry *v = cf_grow_array(kh->v, kh->cap, 32, sizeof(*v), &cap);
		if (!v) {
			free(blob);
			return -1;
		}
		kh->v = v;
		kh->cap = cap;
	}
	char *hosts = cf_strndup(s + h0, h1 - h0);
	if (!hosts) {
		free(blob);
		return -1;
	}
	kh->v[kh->n++] = (struct cf_kh_entry){marker, hosts, blob, bl};
	return 1;
}

int cf_known_hosts_parse(struct cf_known_hosts *kh, const char *text, size_t len)
{
	size_t i = 0;
	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - text) : len;
		size_t le = e;
		if (le > i && text[le - 1] == '\r')
			le--;
		int r = parse_line(kh, text + i, le - i);
		if (r < 0)
			return CONFINE_E_NOMEM;
		if (r == 0 && le > i && text[skip_blank(text, i, le)] != '#' &&
		    skip_blank(text, i, le) != le)
			kh->skipped++;
		i = e + 1;
	}
	return 0;
}

bool cf_kh_hashed_is(const char *hashed, size_t n, const char *name)
{
	/* |1|SALT|HASH: both base64 of 20 bytes (SHA-1 sizes). */
	if (n < 4 || memcmp(hashed, "|1|", 3))
		return false;
	const char *salt = hashed + 3;
	const char *bar = memchr(salt, '|', n - 3);
	if (!bar)
		return false;
	uint8_t key[64], want[64], got[SHA1_DIGEST_SIZE];
	size_t sl = (size_t)(bar - salt), hl = n - 3 - sl - 1;
	if (sl > 80 || hl > 80)
		return false;
	long kl = cf_base64_decode(salt, sl, key);
	long wl = cf_base64_decode(bar + 1, hl, want);
	if (kl <= 0 || wl != SHA1_DIGEST_SIZE)
		return false;
	struct hmac_sha1_ctx ctx;
	hmac_sha1_set_key(&ctx, (size_t)kl, key);
	hmac_sha1_update(&ctx, strlen(name), (const uint8_t *)name);
	hmac_sha1_digest(&ctx, SHA1_DIGEST_SIZE, got);
	return memcmp(got, want, SHA1_DIGEST_SIZE) == 0;
}

/* A concrete host and port allowed by the rules in this mode? */
static bool host_allowed(const struct cf_net_policy *net, enum confine_net_mode mode,
			 const char *host, const struct cf_ip *ip, uint16_t port)
{
	if (mode == CONFINE_NET_OFF)
		return false;
	struct cf_net_decision d;
	cf_net_decide(net, host, ip, port, &d);
	if (mode == CONFINE_NET_ON)
		return !(d.rule && d.action == CF_DENY);
	return d.action == CF_ALLOW;
}

/* One plain pattern ("name" or "[name]:port"): host, port and whether it is an address.
 * false for wildcards, negations and anything that is not a host. */
static bool pattern_host(const char *p, size_t n, char *host, size_t cap, struct cf_ip *ip,
			 bool *is_ip, uint16_t *port)
{
	*port = 22;
	if (!n || p[0] == '!' || memchr(p, '*', n) || memchr(p, '?', n))
		return false;
	if (p[0] == '[') {
		const char *close = memchr(p, ']', n);
		if (!close || close + 1 >= p + n || close[1] != ':')
			return false;
		unsigned long v = 0;
		const char *d = close + 2;
		if (d == p + n)
			return false;
		for (; d < p + n; d++) {
			if (*d < '0' || *d > '9' ||
			    (v = v * 10 + (unsigned long)(*d - '0')) > 65535)
				return false;
		}
		if (!v)
			return false;
		*port = (uint16_t)v;
		return !cf_net_host_parse(p + 1, (size_t)(close - p - 1), false, host, cap, is_ip,
					  ip);
	}
	return !cf_net_host_parse(p, n, false, host, cap, is_ip, ip);
}

static void set_host(struct cf_kh_verdict *out, const char *host, bool v6, uint16_t port)
{
	snprintf(out->host, sizeof(out->host), "%s%s%s:%u", v6 ? "[" : "", host, v6 ? "]" : "",
		 port);
}

/* A hashed entry against the names the allow rules give literally: true when allowed. */
static bool hashed_allowed(const struct cf_kh_entry *e, const struct cf_net_policy *net,
			   enum confine_net_mode mode, struct cf_kh_verdict *out)
{
	size_t n = strlen(e->hosts);
	for (int l = 0; l < CF_LAYER_FALLBACK; l++) {
		const struct cf_net_rules *rs = &net->layers[l];
		for (size_t i = 0; i < rs->n; i++) {
			const struct cf_net_rule *r = &rs->v[i];
			if (r->action != CF_ALLOW || r->subdomains ||
			    (r->is_ip && r->bits != (r->ip.family == 4 ? 32u : 128u)))
				continue;
			uint16_t port = r->port ? r->port : 22;
			char cand[CF_HOST_MAX + 16];
			if (port == 22)
				snprintf(cand, sizeof(cand), "%s", r->host);
			else
				snprintf(cand, sizeof(cand), "[%s]:%u", r->host, port);
			if (!cf_kh_hashed_is(e->hosts, n, cand) ||
			    !host_allowed(net, mode, r->host, r->is_ip ? &r->ip : NULL, port))
				continue;
			set_host(out, r->host, r->is_ip && r->ip.family == 6, port);
			return true;
		}
	}
	if (mode != CONFINE_NET_ON)
		return false;
	snprintf(out->host, sizeof(out->host), "%s", "(a hashed known_hosts name)");
	return true;
}

/* A plain entry: true when one of its names is allowed; the first name is noted either way. */
static bool plain_allowed(const struct cf_kh_entry *e, const struct cf_net_policy *net,
			  enum confine_net_mode mode, struct cf_kh_verdict *out, bool *noted)
{
	const char *s = e->hosts;
	bool wildcard = false;
	while (*s) {
		const char *c = strchr(s, ',');
		size_t n = c ? (size_t)(c - s) : strlen(s);
		char host[CF_HOST_MAX + 1];
		struct cf_ip ip;
		bool is_ip;
		uint16_t port;
		if (pattern_host(s, n, host, sizeof(host), &ip, &is_ip, &port)) {
			bool v6 = is_ip && ip.family == 6;
			if (!*noted) {
				set_host(out, host, v6, port);
				*noted = true;
			}
			if (host_allowed(net, mode, host, is_ip ? &ip : NULL, port)) {
				set_host(out, host, v6, port);
				return true;
			}
		} else if (n && s[0] != '!') {
			wildcard = true;
		}
		s += n + (c ? 1 : 0);
	}
	if (wildcard && mode == CONFINE_NET_ON) {
		snprintf(out->host, sizeof(out->host), "%s", "(a known_hosts pattern)");
		return true;
	}
	return false;
}

void cf_kh_decide(const struct cf_known_hosts *kh, const uint8_t *key, size_t kn,
		  const struct cf_net_policy *net, enum confine_net_mode mode,
		  struct cf_kh_verdict *out)
{
	memset(out, 0, sizeof(*out));
	bool known = false, noted = false;
	for (size_t i = 0; i < kh->n; i++) {
		const struct cf_kh_entry *e = &kh->v[i];
		if (e->marker != CF_KH_REVOKED || e->blob_len != kn || memcmp(e->blob, key, kn))
			continue;
		snprintf(out->why, sizeof(out->why), "%s",
			 "the host key is marked @revoked in known_hosts");
		return;
	}
	for (size_t i = 0; i < kh->n; i++) {
		const struct cf_kh_entry *e = &kh->v[i];
		if (e->marker != CF_KH_PLAIN || e->blob_len != kn || memcmp(e->blob, key, kn))
			continue;
		known = true;
		bool ok = e->hosts[0] == '|' ? hashed_allowed(e, net, mode, out)
					     : plain_allowed(e, net, mode, out, &noted);
		if (ok) {
			out->allowed = true;
			out->why[0] = '\0';
			return;
		}
	}
	if (!known)
		snprintf(out->why, sizeof(out->why), "%s",
			 "the host key is in no entry of the caller's known_hosts");
	else if (mode == CONFINE_NET_OFF)
		snprintf(out->why, sizeof(out->why), "%s", "the run has no network");
	else
		snprintf(out->why, sizeof(out->why), "%s",
			 "no network rule allows a host known_hosts holds this key for");
}
