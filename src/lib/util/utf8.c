/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "util/utf8.h"
#include "util/util.h"

size_t cf_utf8_next(const unsigned char *s, size_t avail, unsigned *cp)
{
	unsigned c = s[0];
	size_t len;
	unsigned min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		len = 2, min = 0x80, c &= 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3, min = 0x800, c &= 0x0F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4, min = 0x10000, c &= 0x07;
	} else {
		return 0;
	}
	if (len > avail)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3F);
	}
	if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*cp = c;
	return len;
}

bool cf_utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		unsigned cp;
		size_t k = cf_utf8_next(p + i, n - i, &cp);
		if (!k)
			return false;
		i += k;
	}
	return true;
}

char *cf_utf8_lossy(const char *s)
{
	struct cf_buf b;
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	cf_buf_init(&b);
	for (size_t i = 0; i < n;) {
		unsigned cp;
		size_t k = cf_utf8_next(p + i, n - i, &cp);
		if (k) {
			cf_buf_addn(&b, s + i, k);
			i += k;
		} else {
			cf_buf_add(&b, "\xEF\xBF\xBD"); /* U+FFFD */
			i++;
		}
	}
	return cf_buf_take(&b);
}

char *cf_hex(const unsigned char *s, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_addn(&b, "", 0);
	for (size_t i = 0; i < n; i++) {
		char two[2] = {digits[s[i] >> 4], digits[s[i] & 15]};
		cf_buf_addn(&b, two, 2);
	}
	return cf_buf_take(&b);
}
