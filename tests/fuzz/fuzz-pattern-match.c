/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the glob matcher.  Input: one flag byte (bit 0: fold case), the pattern, a
 * newline, the path.  The linear two-pointer matcher is compared with a plain dynamic
 * programming matcher written independently here (slow but obviously right), and a run under
 * libFuzzer's -timeout catches any exponential backtracking.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

struct span {
	const char *s;
	size_t n;
};

static size_t split(const char *s, struct span *out, size_t cap)
{
	size_t n = 0;
	while (*s) {
		while (*s == '/')
			s++;
		if (!*s)
			break;
		const char *e = s;
		while (*e && *e != '/')
			e++;
		if (n < cap)
			out[n] = (struct span){s, (size_t)(e - s)};
		n++;
		s = e;
	}
	return n;
}

static unsigned char low(unsigned char c, bool fold)
{
	return fold && c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

/* dp[i][j]: pattern bytes from i match name bytes from j. */
static bool ref_comp(struct span p, struct span t, bool fold)
{
	size_t w = t.n + 1;
	bool *dp = calloc((p.n + 1) * w, sizeof(bool));
	CHECK(dp);
	dp[p.n * w + t.n] = true;
	for (size_t i = p.n; i-- > 0;) {
		for (size_t j = t.n + 1; j-- > 0;) {
			bool v = false;
			unsigned char c = (unsigned char)p.s[i];
			if (c == '*') {
				v = dp[(i + 1) * w + j] || (j < t.n && dp[i * w + j + 1]);
			} else if (j < t.n && c == '?') {
				size_t k = j + 1;
				while (k < t.n && ((unsigned char)t.s[k] & 0xC0) == 0x80)
					k++;
				v = dp[(i + 1) * w + k];
			} else if (j < t.n) {
				v = low(c, fold) == low((unsigned char)t.s[j], fold) &&
				    dp[(i + 1) * w + j + 1];
			}
			dp[i * w + j] = v;
		}
	}
	bool r = dp[0];
	free(dp);
	return r;
}

static bool ref_path(const char *pat, const char *path, bool fold, bool covers)
{
	struct span P[64], T[64];
	size_t m = split(pat, P, 64), n = split(path, T, 64);
	CHECK(m <= 64 && n <= 64);
	static bool dp[65][65];
	for (size_t i = m + 1; i-- > 0;) {
		for (size_t j = n + 1; j-- > 0;) {
			bool v;
			if (i == m)
				v = covers || j == n;
			else if (P[i].n == 2 && P[i].s[0] == '*' && P[i].s[1] == '*')
				v = dp[i + 1][j] || (j < n && dp[i][j + 1]);
			else
				v = j < n && ref_comp(P[i], T[j], fold) && dp[i + 1][j + 1];
			dp[i][j] = v;
		}
	}
	return dp[0][0];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	bool fold = data[0] & 1;
	char *buf = malloc(size);
	CHECK(buf);
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	char *nl = memchr(buf, '\n', size - 1);
	const char *pat = buf, *path = "";
	if (nl) {
		*nl = '\0';
		path = nl + 1;
	}
	bool m = cf_pattern_match(pat, path, fold);
	bool c = cf_pattern_covers(pat, path, fold);
	CHECK(!m || c);
	struct span tmp[1];
	if (strlen(pat) <= 256 && strlen(path) <= 256 && split(pat, tmp, 0) <= 64 &&
	    split(path, tmp, 0) <= 64) {
		CHECK(m == ref_path(pat, path, fold, false));
		CHECK(c == ref_path(pat, path, fold, true));
	}
	free(buf);
	return 0;
}
