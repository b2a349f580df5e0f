/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the first bytes of a transparent connection (R43): a TLS ClientHello's server
 * name, an HTTP request's start, anything else.  The parser never reads past the bytes; a
 * server name it returns normalises to itself; the answer for the bytes is the same however
 * often it is asked; a prefix of the bytes never gives a different kind of answer than NEED or
 * the same kind (what the proxy sees first cannot change what it decides later).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/tlshello.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *m = malloc(size ? size : 1);
	if (!m)
		return 0;
	memcpy(m, data, size);
	char sni[CF_HOST_MAX + 1], again[CF_HOST_MAX + 1];
	const char *why = NULL, *why2 = NULL;
	enum cf_first k = cf_first_bytes(m, size, sni, sizeof(sni), &why);
	CHECK(cf_first_bytes(m, size, again, sizeof(again), &why2) == k);
	if (k == CF_FIRST_TLS) {
		CHECK(!strcmp(sni, again));
		if (sni[0]) {
			char norm[CF_HOST_MAX + 1];
			CHECK(!cf_host_normalize(sni, strlen(sni), norm, sizeof(norm)));
			CHECK(!strcmp(norm, sni));
		}
	}
	if (k == CF_FIRST_BAD)
		CHECK(why && why[0]);
	/* A shorter view of the same bytes: more is needed, or the same kind of answer. */
	if (size > 1) {
		size_t cut = size / 2;
		enum cf_first p = cf_first_bytes(m, cut, again, sizeof(again), &why2);
		CHECK(p == CF_FIRST_NEED || p == k);
	}
	free(m);
	return 0;
}
