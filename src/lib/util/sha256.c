/* SPDX-License-Identifier: MIT */
/* A hash is not written here by hand: libcrypto's EVP interface is the maintained one. */
#include <openssl/evp.h>

#include "confine.h"
#include "util/sha256.h"

int cf_sha256_hex(const void *data, size_t n, char out[CF_SHA256_HEX])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	out[0] = '\0';
	if (!EVP_Digest(data, n, md, &len, EVP_sha256(), NULL) || len != 32)
		return CONFINE_E_NOMEM;
	for (unsigned i = 0; i < len; i++) {
		out[2 * i] = digits[md[i] >> 4];
		out[2 * i + 1] = digits[md[i] & 15];
	}
	out[64] = '\0';
	return 0;
}
