/* SPDX-License-Identifier: MIT */
/*
 * display-dump: every code point that confine_display_escape shows as it is, one a line as
 * %04X (a backslash counts as shown: it is on the allow-list and doubled only so that an escape
 * cannot be faked).  tests/unit/util/display.t compares it with the list the Unicode data files
 * give (scripts/gen-display-table --list).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confine.h"

static size_t utf8(unsigned cp, char *o)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xC0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xE0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	o[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

int main(void)
{
	for (unsigned cp = 0; cp < 0x110000; cp++) {
		if (cp >= 0xD800 && cp <= 0xDFFF)
			continue; /* not encodable: shown as bytes */
		char in[5] = {0};
		size_t n = utf8(cp, in);
		char *out = NULL;
		if (confine_display_escape_n(in, n, 0, &out, NULL) < 0)
			return 2;
		if (cp == '\\' || (strlen(out) == n && !memcmp(out, in, n)))
			printf("%04X\n", cp);
		confine_free(out);
	}
	return 0;
}
