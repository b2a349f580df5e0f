/* SPDX-License-Identifier: MIT */
#include <ctype.h>

#include "util/util.h"

static bool match(const char *p, const char *t, bool fold)
{
	const char *star_p = NULL, *star_t = NULL;
	while (*t) {
		if (*p == '*') {
			star_p = ++p;
			star_t = t;
			continue;
		}
		bool same =
		    fold ? tolower((unsigned char)*p) == tolower((unsigned char)*t) : *p == *t;
		if (*p && (*p == '?' || same)) {
			p++;
			t++;
			continue;
		}
		if (!star_p)
			return false;
		p = star_p;
		t = ++star_t;
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

bool cf_wildcard_match_ci(const char *pattern, const char *text)
{
	return match(pattern, text, true);
}

bool cf_wildcard_match(const char *pattern, const char *text)
{
	return match(pattern, text, false);
}
