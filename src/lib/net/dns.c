/* SPDX-License-Identifier: MIT */
/* DNS messages of the resolver inside (see dns.h).  Pure. */
#include <string.h>

#include "net/dns.h"

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static bool host_byte(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

/*
 * The question's name at m[*at..n): labels until the root label, each length checked against
 * what is left before it is read.  Returns 0 with *at past the name and text filled (or
 * *ok false when it cannot be a host name), or -1 when the name does not fit in the message,
 * is longer than 255 bytes on the wire, or uses a compression pointer or a label type of
 * EDNS0's (FORMERR).
 */
static int read_name(const uint8_t *m, size_t n, size_t *at, char *text, size_t cap, bool *ok)
{
	size_t p = *at, out = 0, wire = 0;
	*ok = true;
	for (;;) {
		if (p >= n)
			return -1;
		uint8_t len = m[p++];
		wire++;
		if (len == 0)
			break;
		if (len & 0xc0)
			return -1; /* a pointer (0xc0) or an extended label type */
		if (len > n - p || wire + len > CF_DNS_NAME_WIRE_MAX)
			return -1;
		for (size_t i = 0; i < len; i++)
			*ok = *ok && host_byte(m[p + i]);
		if (*ok) {
			/* wire <= 255 bounds the text: 254 characters and a NUL. */
			if (out && out + 1 < cap)
				text[out++] = '.';
			for (size_t i = 0; i < len && out + 1 < cap; i++)
				text[out++] = (char)m[p + i];
		}
		p += len;
		wire += len;
	}
	text[*ok ? out : 0] = '\0';
	if (out == 0)
		*ok = false; /* the root name */
	*at = p;
	return 0;
}

int cf_dns_parse_query(const uint8_t *m, size_t n, struct cf_dns_query *q)
{
	memset(q, 0, sizeof(*q));
	if (n < CF_DNS_HEADER)
		return -1;
	q->id = get16(m);
	uint16_t flags = get16(m + 2);
	q->rd = (flags & 0x0100) != 0;
	if (flags & 0x8000)
		return -1; /* a response: answering it could start a loop */
	if (((flags >> 11) & 0xf) != 0)
		return CF_DNS_NOTIMP; /* not a standard query */
	if (get16(m + 4) != 1 || get16(m + 6) != 0 || get16(m + 8) != 0)
		return CF_DNS_FORMERR; /* one question, no answers, no authority */
	size_t at = CF_DNS_HEADER;
	char text[CF_DNS_NAME_WIRE_MAX + 1];
	bool ok;
	if (read_name(m, n, &at, text, sizeof(text), &ok) < 0 || n - at < 4)
		return CF_DNS_FORMERR;
	q->qtype = get16(m + at);
	q->qclass = get16(m + at + 2);
	q->question_end = at + 4;
	/* The additional section (an EDNS0 OPT record) is not read: every answer fits in 512
	 * bytes, and one without OPT is what a server without EDNS gives. */
	if (ok && !cf_host_normalize(text, strlen(text), q->name, sizeof(q->name)))
		q->name_ok = true;
	else
		q->name[0] = '\0';
	return 0;
}

/* The name as labels ("a.b" -> 1 a 1 b 0); 0 when it does not fit. */
static size_t put_name(const char *name, uint8_t *out, size_t cap)
{
	size_t n = strlen(name), o = 0;
	const char *s = name;
	while (*s) {
		const char *dot = strchr(s, '.');
		size_t len = dot ? (size_t)(dot - s) : strlen(s);
		if (len == 0 || len > 63 || o + 1 + len >= cap)
			return 0;
		out[o++] = (uint8_t)len;
		memcpy(out + o, s, len);
		o += len;
		s += len + (dot ? 1 : 0);
	}
	if (o + 1 > cap || n > CF_HOST_MAX)
		return 0;
	out[o++] = 0;
	return o;
}

size_t cf_dns_answer(const uint8_t *query, const struct cf_dns_query *q, uint16_t id, bool rd,
		     int rcode, const struct cf_ip *a, const char *ptr, uint32_t ttl, uint8_t *out,
		     size_t cap)
{
	bool question = query && q && q->question_end > CF_DNS_HEADER;
	size_t qlen = question ? q->question_end - CF_DNS_HEADER : 0;
	if (cap < CF_DNS_HEADER + qlen)
		return 0;
	if (q) {
		id = q->id;
		rd = q->rd;
	}
	memset(out, 0, CF_DNS_HEADER);
	put16(out, id);
	/* QR, AA: the only authority on these names inside; RD echoed; RA; the rcode. */
	put16(out + 2, (uint16_t)(0x8000 | 0x0400 | (rd ? 0x0100 : 0) | 0x0080 | (rcode & 0xf)));
	put16(out + 4, question ? 1 : 0);
	size_t o = CF_DNS_HEADER;
	if (question) {
		memcpy(out + o, query + CF_DNS_HEADER, qlen);
		o += qlen;
	}
	if (!question || rcode != CF_DNS_NOERROR)
		return o;
	uint8_t rdata[CF_DNS_NAME_WIRE_MAX + 1];
	size_t rdlen = 0;
	uint16_t type;
	if (a && a->family == 4) {
		type = CF_DNS_A;
		memcpy(rdata, a->b, 4);
		rdlen = 4;
	} else if (ptr) {
		type = CF_DNS_PTR;
		if (!(rdlen = put_name(ptr, rdata, sizeof(rdata))))
			return 0;
	} else {
		return o; /* no data for this type */
	}
	if (cap - o < 12 + rdlen)
		return 0;
	put16(out + 6, 1);
	put16(out + o, 0xc000 | CF_DNS_HEADER); /* the question's name */
	put16(out + o + 2, type);
	put16(out + o + 4, CF_DNS_CLASS_IN);
	put16(out + o + 6, (uint16_t)(ttl >> 16));
	put16(out + o + 8, (uint16_t)ttl);
	put16(out + o + 10, (uint16_t)rdlen);
	memcpy(out + o + 12, rdata, rdlen);
	return o + 12 + rdlen;
}

/* One decimal part 0-255 without leading zeros, of exactly n bytes. */
static bool octet(const char *s, size_t n, uint8_t *v)
{
	if (n == 0 || n > 3 || (n > 1 && s[0] == '0'))
		return false;
	unsigned x = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		x = x * 10 + (unsigned)(s[i] - '0');
	}
	if (x > 255)
		return false;
	*v = (uint8_t)x;
	return true;
}

bool cf_dns_reverse_v4(const char *name, struct cf_ip *out)
{
	static const char suffix[] = ".in-addr.arpa";
	size_t n = strlen(name), sl = sizeof(suffix) - 1;
	if (n <= sl || strcmp(name + n - sl, suffix))
		return false;
	n -= sl;
	struct cf_ip ip = {.family = 4};
	const char *s = name;
	for (int i = 3; i >= 0; i--) {
		const char *dot = i ? memchr(s, '.', n - (size_t)(s - name)) : NULL;
		size_t len = dot ? (size_t)(dot - s) : n - (size_t)(s - name);
		if ((i && !dot) || !octet(s, len, &ip.b[i]))
			return false;
		s += len + 1;
	}
	*out = ip;
	return true;
}
