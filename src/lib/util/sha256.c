/* SPDX-License-Identifier: MIT */
/*
 * A hash is not written here by hand: Nettle's (the library under GnuTLS) is a maintained one.
 * Nettle rather than OpenSSL's libcrypto because every run of confine loads it: libcrypto costs
 * a run about 2 ms of loading and initialisation, Nettle next to nothing.
 */
#include <nettle/sha2.h>

#include "confine.h"
#include "util/sha256.h"

int cf_sha256_hex(const void *data, size_t n, char out[CF_SHA256_HEX])
{
	static const char digits[] = "0123456789abcdef";
	uint8_t md[SHA256_DIGEST_SIZE];
	struct sha256_ctx ctx;
	sha256_init(&ctx);
	sha256_update(&ctx, n, data);
	sha256_digest(&ctx, SHA256_DIGEST_SIZE, md);
	for (unsigned i = 0; i < SHA256_DIGEST_SIZE; i++) {
		out[2 * i] = digits[md[i] >> 4];
		out[2 * i + 1] = digits[md[i] & 15];
	}
	out[64] = '\0';
	return 0;
}
