/* SPDX-License-Identifier: MIT */
/*
 * Base64 (RFC 4648): the standard alphabet and the URL-safe one, with or without padding.
 * Used for SSH key blobs and fingerprints (agent/) and for finding a secret's placeholder in
 * an encoded request (net/secrets.c).  Pure.
 */
#ifndef CONFINE_UTIL_BASE64_H
#define CONFINE_UTIL_BASE64_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The length of the encoding of n bytes, padding included. */
#define CF_BASE64_LEN(n) ((((n) + 2) / 3) * 4)

/* Encodes n bytes into out (room for CF_BASE64_LEN(n) + 1 bytes), NUL-terminated; `url` picks
 * the URL-safe alphabet, `pad` the trailing '='.  Returns the length written. */
size_t cf_base64_encode(const uint8_t *in, size_t n, bool url, bool pad, char *out);

/* Decodes n characters of the standard alphabet (padding optional; nothing else allowed, no
 * whitespace) into out (room for n / 4 * 3 + 3 bytes).  Returns the number of bytes, or -1
 * when the text is not base64. */
long cf_base64_decode(const char *in, size_t n, uint8_t *out);

#endif
