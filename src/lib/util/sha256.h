/* SPDX-License-Identifier: MIT */
/* SHA-256 through Nettle: the digests of approval cards and of compiled plans. */
#ifndef CONFINE_SHA256_H
#define CONFINE_SHA256_H

#include <stddef.h>

#define CF_SHA256_HEX 65 /* 64 lower-case hex digits and a NUL */

/* Writes the SHA-256 of data as lower-case hex into out.  Returns 0. */
int cf_sha256_hex(const void *data, size_t n, char out[CF_SHA256_HEX]);

#endif
