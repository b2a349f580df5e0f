/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the proxy's SOCKS5 parser (SPEC 12).  The first byte sets the size of the pieces
 * the stream arrives in (its low four bits) and whether credentials are required (bit 4: the
 * landlock backend's proxy, RFC 1929).  Checks: the steps and the result do not depend on how the
 * bytes arrive; a reply is at most 10 bytes; the offset never passes what was received; a READY
 * request names a port and a normalised name or address.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/socks.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

static enum cf_socks_step run(const uint8_t *b, size_t n, size_t piece, bool auth,
			      struct cf_socks *s, uint8_t last_reply[10], size_t *last_len)
{
	enum cf_socks_step r = CF_SOCKS_NEED;
	memset(s, 0, sizeof(*s));
	if (auth) {
		s->user = "confine";
		s->pass = "0123456789abcdef0123456789abcdef";
	}
	*last_len = 0;
	for (size_t got = piece < n ? piece : n;; got += piece) {
		if (got > n)
			got = n;
		for (int k = 0; k < 4; k++) {
			uint8_t reply[10];
			size_t rl = 99;
			const char *why = "x";
			r = cf_socks_feed(s, b, got, reply, &rl, &why);
			CHECK(rl <= 10);
			CHECK(s->offset <= got || r == CF_SOCKS_REFUSE);
			if (r == CF_SOCKS_REFUSE)
				CHECK(why && why[0]);
			if (rl) {
				memcpy(last_reply, reply, rl);
				*last_len = rl;
			}
			if (r != CF_SOCKS_SEND)
				break;
		}
		if (r == CF_SOCKS_READY || r == CF_SOCKS_REFUSE || got == n)
			return r;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t piece = (size_t)data[0] % 16 + 1;
	bool auth = (data[0] & 0x10) != 0;
	const uint8_t *b = data + 1;
	size_t n = size - 1;
	struct cf_socks s1, s2;
	uint8_t r1[10], r2[10];
	size_t l1, l2;
	enum cf_socks_step a = run(b, n, n ? n : 1, auth, &s1, r1, &l1);
	enum cf_socks_step c = run(b, n, piece, auth, &s2, r2, &l2);
	CHECK(a == c);
	CHECK(s1.unauthenticated == s2.unauthenticated);
	/* Without the right credentials nothing is ever ready to be decided. */
	if (auth && a == CF_SOCKS_READY) {
		CHECK(n >= 2 && b[0] == 5);
		CHECK(!s1.unauthenticated);
	}
	CHECK(l1 == l2 && !memcmp(r1, r2, l1));
	if (a == CF_SOCKS_READY) {
		CHECK(s1.port != 0 && s1.port == s2.port && !strcmp(s1.host, s2.host));
		CHECK(s1.offset <= n);
		char norm[CF_HOST_MAX + 1];
		bool is_ip;
		struct cf_ip ip;
		CHECK(cf_net_host_parse(s1.host, strlen(s1.host), false, norm, sizeof(norm), &is_ip,
					&ip) == NULL);
		CHECK(!strcmp(norm, s1.host) && is_ip == s1.host_is_ip);
	}
	return 0;
}
