/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the resolver inside's DNS messages (R43).  Any bytes as a query: the parser
 * never reads past them, a query it accepts names a host name that normalises to itself (or
 * none), its question lies within the bytes, and every answer built for it (an A record, a PTR
 * record, no data, NXDOMAIN) fits in 512 bytes, echoes the id and the question byte for byte,
 * and parses again as a response only (the parser refuses it as a query).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/dns.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

static void answers(const uint8_t *m, const struct cf_dns_query *q)
{
	static const struct cf_ip a = {.family = 4, .b = {198, 18, 0, 9}};
	const int rcodes[] = {CF_DNS_NOERROR, CF_DNS_NXDOMAIN, CF_DNS_SERVFAIL};
	for (size_t i = 0; i < 3; i++) {
		for (int kind = 0; kind < 3; kind++) {
			uint8_t out[CF_DNS_UDP_MAX];
			size_t n = cf_dns_answer(m, q, 0, false, rcodes[i], kind == 0 ? &a : NULL,
						 kind == 1 ? "a.test" : NULL, 60, out, sizeof(out));
			if (q->question_end > CF_DNS_UDP_MAX - 32)
				continue; /* a question this long may not fit with its record */
			CHECK(n >= q->question_end && n <= sizeof(out));
			CHECK(out[0] == m[0] && out[1] == m[1] && (out[2] & 0x80));
			CHECK(!memcmp(out + CF_DNS_HEADER, m + CF_DNS_HEADER,
				      q->question_end - CF_DNS_HEADER));
			struct cf_dns_query again;
			CHECK(cf_dns_parse_query(out, n, &again) == -1);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly `size` bytes: a read past it is a read past the allocation. */
	uint8_t *m = malloc(size ? size : 1);
	if (!m)
		return 0;
	memcpy(m, data, size);
	struct cf_dns_query q;
	int r = cf_dns_parse_query(m, size, &q);
	CHECK(r == -1 || r == 0 || r == CF_DNS_FORMERR || r == CF_DNS_NOTIMP);
	if (r > 0) {
		uint8_t out[CF_DNS_UDP_MAX];
		size_t n =
		    cf_dns_answer(NULL, NULL, q.id, q.rd, r, NULL, NULL, 0, out, sizeof(out));
		CHECK(n == CF_DNS_HEADER && (out[3] & 0xf) == r);
	}
	if (r == 0) {
		CHECK(q.question_end > CF_DNS_HEADER && q.question_end <= size);
		if (q.name_ok) {
			char norm[CF_HOST_MAX + 1];
			CHECK(!cf_host_normalize(q.name, strlen(q.name), norm, sizeof(norm)));
			CHECK(!strcmp(norm, q.name));
			struct cf_ip ip;
			if (cf_dns_reverse_v4(q.name, &ip))
				CHECK(ip.family == 4);
		} else {
			CHECK(q.name[0] == '\0');
		}
		answers(m, &q);
	}
	free(m);
	return 0;
}
