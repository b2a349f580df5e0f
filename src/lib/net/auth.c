/* SPDX-License-Identifier: MIT */
/* The proxy's credentials (see auth.h).  Pure. */
#include <stdint.h>
#include <string.h>

#include "net/auth.h"

bool cf_ct_equal(const void *a, size_t an, const void *b, size_t bn)
{
	const volatile uint8_t *x = a, *y = b;
	/* Every byte of the expected value is looked at once; a shorter or longer input
	 * differs by its length (folded into the same accumulator, no early return). */
	uint8_t d = an == bn ? 0 : 1;
	for (size_t i = 0; i < bn; i++)
		d |= (uint8_t)((i < an ? x[i] : 0) ^ y[i]);
	return d == 0;
}

/* The value of a base64 digit (RFC 4648, the standard alphabet), or -1. */
static int b64(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* Decodes s[0..n) into out (at most cap bytes); -1 when it is not base64 or too long. */
static long b64_decode(const char *s, size_t n, uint8_t *out, size_t cap)
{
	while (n && s[n - 1] == '=')
		n--;
	if (n % 4 == 1)
		return -1;
	size_t k = 0;
	uint32_t acc = 0;
	int bits = 0;
	for (size_t i = 0; i < n; i++) {
		int v = b64(s[i]);
		if (v < 0)
			return -1;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (k == cap)
				return -1;
			out[k++] = (uint8_t)(acc >> bits);
		}
	}
	return (long)k;
}

static bool ieq_n(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char x = a[i], y = b[i];
		if (x >= 'A' && x <= 'Z')
			x = (char)(x - 'A' + 'a');
		if (x != y)
			return false;
	}
	return true;
}

bool cf_proxy_basic_ok(const char *value, size_t n, const char *userpass)
{
	/* "Basic" 1*SP token68, with the optional whitespace of a header value around it. */
	while (n && (value[n - 1] == ' ' || value[n - 1] == '\t'))
		n--;
	while (n && (*value == ' ' || *value == '\t')) {
		value++;
		n--;
	}
	if (n < 6 || !ieq_n(value, "basic", 5) || (value[5] != ' ' && value[5] != '\t'))
		return false;
	value += 5;
	n -= 5;
	while (n && (*value == ' ' || *value == '\t')) {
		value++;
		n--;
	}
	uint8_t got[256];
	long k = b64_decode(value, n, got, sizeof(got));
	if (k < 0)
		return false;
	return cf_ct_equal(got, (size_t)k, userpass, strlen(userpass));
}
