/* SPDX-License-Identifier: MIT */
/*
 * DNS messages of the resolver inside the sandbox (R43): a query read with an explicit length
 * check before every byte, and the answer built into a caller's buffer.  Only what a stub
 * resolver sends is understood: one question, opcode QUERY, names in plain labels (a
 * compression pointer in a question points nowhere a query could mean).  Pure: bytes in, bytes
 * out.
 */
#ifndef CONFINE_NET_DNS_H
#define CONFINE_NET_DNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/addr.h"

#define CF_DNS_HEADER 12
/* What a UDP answer may hold without EDNS; every answer of this resolver fits. */
#define CF_DNS_UDP_MAX 512
/* A name on the wire: at most 255 bytes, labels of at most 63. */
#define CF_DNS_NAME_WIRE_MAX 255

enum cf_dns_type {
	CF_DNS_A = 1,
	CF_DNS_PTR = 12,
	CF_DNS_AAAA = 28,
};
#define CF_DNS_CLASS_IN 1

enum cf_dns_rcode {
	CF_DNS_NOERROR = 0,
	CF_DNS_FORMERR = 1,
	CF_DNS_SERVFAIL = 2,
	CF_DNS_NXDOMAIN = 3,
	CF_DNS_NOTIMP = 4,
	CF_DNS_REFUSED = 5,
};

struct cf_dns_query {
	uint16_t id;
	bool rd;		/* recursion desired, echoed */
	uint16_t qtype, qclass; /* of the one question */
	size_t question_end;	/* offset just past the question: [12, question_end) is echoed */
	char name[CF_HOST_MAX + 1]; /* normalised (cf_host_normalize): lower case, no final dot */
	bool name_ok;		    /* false: the name is no host name (NXDOMAIN, never looked at
				     * again); name is then "" */
};

/*
 * Reads a query of n bytes.  Returns 0 with *q filled; a positive rcode (FORMERR, NOTIMP) to
 * answer with an empty question section (q->id and q->rd are set); -1 when nothing must be
 * answered at all (fewer bytes than a header, or a response rather than a query).  A name that
 * is not a host name (a label with a dot, a space, a byte outside ASCII, a number as the last
 * label...) is a well-formed query with name_ok false.
 */
int cf_dns_parse_query(const uint8_t *m, size_t n, struct cf_dns_query *q);

/*
 * Writes the answer to `query` (the bytes cf_dns_parse_query read into q; NULL or q NULL for an
 * answer without question, used with FORMERR and NOTIMP) into out: the header (QR, AA, RA, RD
 * echoed, the rcode), the question as it came, and at most one answer record for the name of
 * the question: an A record when `a` is an IPv4 address, a PTR record when ptr is a host name.
 * `id` and `rd` are taken from q when it is given.  Returns the length, or 0 when cap is too
 * small (never with cap >= CF_DNS_UDP_MAX and a question that fitted in a query of that size).
 */
size_t cf_dns_answer(const uint8_t *query, const struct cf_dns_query *q, uint16_t id, bool rd,
		     int rcode, const struct cf_ip *a, const char *ptr, uint32_t ttl, uint8_t *out,
		     size_t cap);

/*
 * The IPv4 address a reverse name stands for ("5.0.18.198.in-addr.arpa" is 198.18.0.5): true
 * with *out filled, false for any other name.  Only decimal parts 0-255 without leading zeros.
 */
bool cf_dns_reverse_v4(const char *name, struct cf_ip *out);

#endif
