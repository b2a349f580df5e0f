/* SPDX-License-Identifier: MIT */
/* Network rule patterns and lists (see netrules.h).  Pure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/netrules.h"
#include "util/util.h"

/* A decimal port 1-65535 of n bytes. */
static bool parse_port(const char *s, size_t n, uint16_t *out)
{
	if (n == 0 || n > 5 || s[0] == '0')
		return false;
	unsigned v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v > 65535)
		return false;
	*out = (uint16_t)v;
	return true;
}

/* An address range, "10.0.0.0/8" or "fd00::/8", in brackets when it is IPv6 with a port
 * ("[fd00::/8]:443"; the port is already split off).  r->host becomes its canonical text. */
static const char *range_parse(const char *s, size_t n, struct cf_net_rule *r)
{
	bool brackets = s[0] == '[';
	if (r->subdomains)
		return "'*.' goes with a domain name, not an address range";
	if (brackets) {
		if (n < 3 || s[n - 1] != ']')
			return "an IPv6 range in brackets lacks its ']'";
		s++;
		n -= 2;
	}
	const char *why = cf_ip_prefix_parse(s, n, &r->ip, &r->bits);
	if (why)
		return why;
	if (brackets && r->ip.family != 6)
		return "only an IPv6 range is written in brackets";
	char text[CF_IP_TEXT];
	cf_ip_format(&r->ip, text, sizeof(text));
	snprintf(r->host, sizeof(r->host), "%s/%u", text, r->bits);
	r->is_ip = true;
	return NULL;
}

const char *cf_net_pattern_parse(const char *s, size_t n, struct cf_net_rule *r)
{
	const char *host = s;
	size_t hn = n;
	r->subdomains = false;
	r->is_ip = false;
	r->port = 0;
	r->bits = 0;
	r->host[0] = '\0';
	memset(&r->ip, 0, sizeof(r->ip));
	if (n == 0)
		return "the pattern is empty";
	if (n > CF_NET_PATTERN_MAX)
		return "the pattern is longer than a domain name and a port can be";
	if (memchr(s, '\0', n))
		return "the pattern contains a NUL character";

	if (s[0] == '[') {
		const char *close = memchr(s, ']', n);
		if (!close)
			return "an IPv6 address in brackets lacks its ']'";
		hn = (size_t)(close - s) + 1;
		size_t rest = n - hn;
		if (rest && (close[1] != ':' || !parse_port(close + 2, rest - 1, &r->port)))
			return "after ']' only ':PORT' may follow (a port 1-65535)";
	} else {
		const char *colon = memchr(s, ':', n);
		const char *last = colon;
		for (const char *c = colon; c && c < s + n;
		     c = memchr(c + 1, ':', (size_t)(s + n - c - 1)))
			last = c;
		if (colon && colon == last) {
			hn = (size_t)(colon - s);
			if (!parse_port(colon + 1, n - hn - 1, &r->port))
				return "the port after ':' must be a number 1-65535";
		}
		/* More than one ':' is a bare IPv6 address, which has no port. */
	}
	if (hn >= 2 && host[0] == '*' && host[1] == '.') {
		r->subdomains = true;
		host += 2;
		hn -= 2;
	}
	if (memchr(host, '*', hn))
		return "'*' is only allowed as a leading '*.' (every name below a domain)";
	if (memchr(host, '/', hn))
		return range_parse(host, hn, r);

	bool is_ip;
	const char *why = cf_net_host_parse(host, hn, hn > 0 && host[0] == '[', r->host,
					    sizeof(r->host), &is_ip, &r->ip);
	if (why)
		return why;
	if (is_ip && r->subdomains)
		return "'*.' goes with a domain name, not an address";
	r->is_ip = is_ip;
	r->bits = is_ip ? (r->ip.family == 4 ? 32 : 128) : 0;
	return NULL;
}

int cf_net_rules_add(struct cf_net_rules *rs, const struct cf_net_rule *r,
		     struct confine_error *err)
{
	if (rs->n == rs->cap) {
		size_t cap;
		struct cf_net_rule *v = cf_grow_array(rs->v, rs->cap, 8, sizeof(*v), &cap);
		if (!v)
			return cf_nomem(err);
		rs->v = v;
		rs->cap = cap;
	}
	struct cf_net_rule c = *r;
	c.pattern = cf_strdup(r->pattern ? r->pattern : "");
	c.source = cf_strdup(r->source ? r->source : "");
	if (!c.pattern || !c.source) {
		free(c.pattern);
		free(c.source);
		return cf_nomem(err);
	}
	rs->v[rs->n++] = c;
	return 0;
}

int cf_net_rules_extend(struct cf_net_rules *rs, const struct cf_net_rules *src,
			struct confine_error *err)
{
	for (size_t i = 0; i < src->n; i++) {
		int r = cf_net_rules_add(rs, &src->v[i], err);
		if (r < 0)
			return r;
	}
	return 0;
}

void cf_net_rules_release(struct cf_net_rules *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		free(rs->v[i].pattern);
		free(rs->v[i].source);
	}
	free(rs->v);
	if (rs->upstream)
		memset(rs->upstream, 0, strlen(rs->upstream)); /* it may hold a password */
	free(rs->upstream);
	memset(rs, 0, sizeof(*rs));
}

size_t cf_net_rules_allows(const struct cf_net_rules *rs)
{
	size_t n = 0;
	for (size_t i = 0; i < rs->n; i++)
		n += rs->v[i].action == CF_ALLOW;
	return n;
}
