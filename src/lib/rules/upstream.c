/* SPDX-License-Identifier: MIT */
/* The caller's upstream proxy (see upstream.h).  Pure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/upstream.h"

static bool ieq_prefix(const char *s, const char *p)
{
	for (; *p; s++, p++) {
		char c = *s;
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != *p)
			return false;
	}
	return true;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Percent-decodes s[0..n) into out (cap > n); false on a bad escape or a decoded NUL. */
static bool pct_decode(const char *s, size_t n, char *out, size_t cap)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '%') {
			if (n - i < 3)
				return false;
			int hi = hexval(s[i + 1]), lo = hexval(s[i + 2]);
			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
				return false;
			c = (char)(hi << 4 | lo);
			i += 2;
		}
		if (o + 1 >= cap)
			return false;
		out[o++] = c;
	}
	out[o] = '\0';
	return true;
}

static const char b64digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* "Basic " and the base64 of user:password into out; false when it does not fit. */
static bool basic(const char *user, const char *pass, char *out, size_t cap)
{
	char plain[512];
	int n = snprintf(plain, sizeof(plain), "%s:%s", user, pass);
	if (n < 0 || (size_t)n >= sizeof(plain) || cap < 6 + ((size_t)n + 2) / 3 * 4 + 1)
		return false;
	size_t o = (size_t)snprintf(out, cap, "Basic ");
	for (size_t i = 0; i < (size_t)n; i += 3) {
		unsigned v = (unsigned char)plain[i] << 16;
		size_t left = (size_t)n - i;
		if (left > 1)
			v |= (unsigned char)plain[i + 1] << 8;
		if (left > 2)
			v |= (unsigned char)plain[i + 2];
		out[o++] = b64digits[(v >> 18) & 63];
		out[o++] = b64digits[(v >> 12) & 63];
		out[o++] = left > 1 ? b64digits[(v >> 6) & 63] : '=';
		out[o++] = left > 2 ? b64digits[v & 63] : '=';
	}
	out[o] = '\0';
	return true;
}

static bool port_of(const char *s, size_t n, uint16_t *out)
{
	unsigned v = 0;
	if (n == 0 || n > 5)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v == 0 || v > 65535)
		return false;
	*out = (uint16_t)v;
	return true;
}

/* HOST[:PORT] or [V6][:PORT] of n bytes; `def` when no port is given. */
static const char *host_port(const char *s, size_t n, uint16_t def, char *host, bool *is_ip,
			     struct cf_ip *ip, uint16_t *port)
{
	const char *colon = NULL;
	if (n && s[0] == '[') {
		const char *close = memchr(s, ']', n);
		if (!close)
			return "the IPv6 address lacks its ']'";
		if ((size_t)(close - s) + 1 < n) {
			if (close[1] != ':')
				return "only ':PORT' may follow ']'";
			colon = close + 1;
		}
	} else {
		colon = memchr(s, ':', n);
	}
	size_t hn = colon ? (size_t)(colon - s) : n;
	*port = def;
	if (colon && !port_of(colon + 1, n - hn - 1, port))
		return "the port is not a number 1-65535";
	return cf_net_host_parse(s, hn, true, host, CF_HOST_MAX + 1, is_ip, ip);
}

const char *cf_upstream_parse(const char *url, struct cf_upstream *out)
{
	memset(out, 0, sizeof(*out));
	const char *s = url;
	if (ieq_prefix(s, "http://"))
		s += 7;
	else if (strstr(s, "://"))
		return "only an http:// upstream proxy is supported (confine speaks HTTP CONNECT "
		       "to it)";
	size_t n = strcspn(s, "/?#");
	if (s[n] && strcmp(s + n, "/"))
		return "an upstream proxy URL has no path";
	const char *at = NULL;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '@')
			at = s + i;
	if (at) {
		size_t un = (size_t)(at - s);
		const char *colon = memchr(s, ':', un);
		char user[256];
		size_t ul = colon ? (size_t)(colon - s) : un;
		if (!pct_decode(s, ul, user, sizeof(user)) ||
		    (colon &&
		     !pct_decode(colon + 1, un - ul - 1, out->password, sizeof(out->password))))
			return "the upstream proxy's user or password is malformed";
		if (colon)
			snprintf(out->password_raw, sizeof(out->password_raw), "%.*s",
				 (int)(un - ul - 1), colon + 1);
		snprintf(out->userinfo_raw, sizeof(out->userinfo_raw), "%.*s", (int)un, s);
		if (!basic(user, out->password, out->auth, sizeof(out->auth)))
			return "the upstream proxy's user and password are too long";
		n -= un + 1;
		s = at + 1;
	}
	const char *why = host_port(s, n, 80, out->host, &out->is_ip, &out->ip, &out->port);
	if (why)
		return why;
	bool v6 = out->is_ip && out->ip.family == 6;
	snprintf(out->shown, sizeof(out->shown), "http://%s%s%s:%u", v6 ? "[" : "", out->host,
		 v6 ? "]" : "", out->port);
	return NULL;
}

static int add_entry(struct cf_upstream *u, const char *s, size_t n)
{
	struct cf_noproxy e = {0};
	if (n == 1 && s[0] == '*') {
		u->all_direct = true;
		return 0;
	}
	while (n && s[0] == '.') {
		s++;
		n--;
	}
	char tmp[CF_HOST_MAX + 16];
	if (n == 0 || n >= sizeof(tmp))
		return 0;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	/* An address range: ADDRESS/BITS, never with a port. */
	const char *slash = memchr(tmp, '/', n);
	if (slash) {
		if (cf_ip_prefix_parse(tmp, n, &e.ip, &e.bits))
			return 0;
		e.is_ip = true;
		cf_ip_format(&e.ip, e.host, sizeof(e.host));
	} else {
		/* A bare IPv6 address has colons of its own. */
		struct cf_ip ip;
		if (cf_ip_parse(tmp, n, &ip)) {
			e.is_ip = true;
			e.ip = ip;
			e.bits = ip.family == 4 ? 32 : 128;
			cf_ip_format(&ip, e.host, sizeof(e.host));
		} else if (host_port(tmp, n, 0, e.host, &e.is_ip, &e.ip, &e.port)) {
			return 0;
		} else if (e.is_ip) {
			e.bits = e.ip.family == 4 ? 32 : 128;
		}
	}
	struct cf_noproxy *v = realloc(u->np, (u->n_np + 1) * sizeof(*v));
	if (!v)
		return -1;
	u->np = v;
	u->np[u->n_np++] = e;
	return 0;
}

int cf_upstream_no_proxy(struct cf_upstream *u, const char *list)
{
	const char *s = list;
	while (s && *s) {
		s += strspn(s, ", \t");
		size_t n = strcspn(s, ", \t");
		if (n && add_entry(u, s, n) < 0)
			return -1;
		s += n;
	}
	return 0;
}

bool cf_upstream_direct(const struct cf_upstream *u, const char *host, const struct cf_ip *ip,
			uint16_t port)
{
	if (u->all_direct)
		return true;
	size_t hl = strlen(host);
	for (size_t i = 0; i < u->n_np; i++) {
		const struct cf_noproxy *e = &u->np[i];
		if (e->port && e->port != port)
			continue;
		if (e->is_ip) {
			if (ip && cf_ip_in_prefix(ip, &e->ip, e->bits))
				return true;
			continue;
		}
		if (ip)
			continue;
		size_t el = strlen(e->host);
		if (!strcmp(host, e->host) ||
		    (hl > el && host[hl - el - 1] == '.' && !strcmp(host + hl - el, e->host)))
			return true;
	}
	return false;
}

void cf_upstream_release(struct cf_upstream *u)
{
	free(u->np);
	u->np = NULL;
	u->n_np = 0;
	memset(u->auth, 0, sizeof(u->auth));
	memset(u->password, 0, sizeof(u->password));
	memset(u->password_raw, 0, sizeof(u->password_raw));
	memset(u->userinfo_raw, 0, sizeof(u->userinfo_raw));
}
