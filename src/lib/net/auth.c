/* SPDX-License-Identifier: MIT */
/* The proxy's credentials (see auth.h).  Pure. */
#include <stdint.h>
#include <string.h>

#include "net/auth.h"
#include "util/base64.h"

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
	/* The proxy's own credentials are short; a longer token is not them (and must not
	 * overrun the buffer: cf_base64_decode needs n / 4 * 3 + 3 bytes). */
	uint8_t got[256];
	if (n / 4 * 3 + 3 > sizeof(got))
		return false;
	long k = cf_base64_decode(value, n, got);
	if (k < 0)
		return false;
	return cf_ct_equal(got, (size_t)k, userpass, strlen(userpass));
}
