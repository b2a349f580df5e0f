/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the lexical path helpers (R7, R13).  Input: a path, a NUL byte, a second path
 * (relative or absolute).  Checks the invariants of cf_path_normalize (absolute, no "//", no
 * "." or ".." component, no trailing "/", idempotent, equal to a plain component-stack
 * normaliser written here), of cf_path_join (a normalised join; a relative part without ".."
 * stays within the directory), and the agreement of cf_path_within, cf_path_cmp,
 * cf_path_depth and cf_path_dirname with each other.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

/* The reference: a stack of components, ".." pops (never past the root). */
static char *ref_normalize(const char *p)
{
	size_t n = strlen(p);
	const char **start = malloc((n / 2 + 2) * sizeof(*start));
	size_t *len = malloc((n / 2 + 2) * sizeof(*len));
	size_t k = 0;
	CHECK(start && len);
	for (const char *s = p; *s;) {
		while (*s == '/')
			s++;
		const char *e = s;
		while (*e && *e != '/')
			e++;
		size_t l = (size_t)(e - s);
		if (l == 2 && s[0] == '.' && s[1] == '.') {
			if (k)
				k--;
		} else if (l > 0 && !(l == 1 && s[0] == '.')) {
			start[k] = s;
			len[k++] = l;
		}
		s = e;
	}
	char *out = malloc(n + 2);
	CHECK(out);
	size_t o = 0;
	for (size_t i = 0; i < k; i++) {
		out[o++] = '/';
		memcpy(out + o, start[i], len[i]);
		o += len[i];
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	free(start);
	free(len);
	return out;
}

static bool has_dotdot_component(const char *p)
{
	for (const char *s = p; *s;) {
		while (*s == '/')
			s++;
		const char *e = s;
		while (*e && *e != '/')
			e++;
		if (e - s == 2 && s[0] == '.' && s[1] == '.')
			return true;
		s = e;
	}
	return false;
}

static void check_normal(const char *n)
{
	CHECK(n[0] == '/');
	CHECK(!strstr(n, "//"));
	CHECK(strcmp(n, "/") == 0 || n[strlen(n) - 1] != '/');
	CHECK(!strstr(n, "/./") && !strstr(n, "/../"));
	size_t l = strlen(n);
	CHECK(!(l >= 2 && !strcmp(n + l - 2, "/.")));
	CHECK(!(l >= 3 && !strcmp(n + l - 3, "/..")));
	char *again = cf_path_normalize(n);
	CHECK(again && !strcmp(again, n));
	free(again);
}

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

static bool ref_within(const char *p, const char *d)
{
	size_t n = strlen(d);
	if (!strcmp(d, "/"))
		return true;
	return !strncmp(p, d, n) && (p[n] == '\0' || p[n] == '/');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 8192)
		return 0;
	char *buf = malloc(size + 2);
	CHECK(buf);
	memcpy(buf, data, size);
	buf[size] = '\0';
	buf[size + 1] = '\0';
	const char *a = buf, *b = buf + strlen(buf) + 1;

	char *n = cf_path_normalize(a);
	CHECK(n);
	check_normal(n);
	char *ref = ref_normalize(a);
	CHECK(!strcmp(n, ref));
	free(ref);

	char *j = cf_path_join(n, b);
	CHECK(j);
	check_normal(j);
	if (b[0] == '/') {
		char *nb = cf_path_normalize(b);
		CHECK(nb && !strcmp(j, nb));
		free(nb);
	} else {
		char *cat = malloc(strlen(n) + strlen(b) + 2);
		CHECK(cat);
		strcpy(cat, n);
		strcat(cat, "/");
		strcat(cat, b);
		char *rc = ref_normalize(cat);
		CHECK(!strcmp(j, rc));
		free(rc);
		free(cat);
		if (!has_dotdot_component(b))
			CHECK(cf_path_within(j, n));
	}

	/* within, cmp, depth, dirname agree */
	CHECK(cf_path_within(n, n) && cf_path_within(n, "/") && cf_path_within(j, "/"));
	CHECK(cf_path_within(j, n) == ref_within(j, n));
	CHECK(cf_path_within(n, j) == ref_within(n, j));
	int c1 = cf_path_cmp(n, j), c2 = cf_path_cmp(j, n);
	CHECK(sign(c1) == -sign(c2));
	CHECK((c1 == 0) == (strcmp(n, j) == 0));
	if (c1 != 0 && cf_path_within(j, n))
		CHECK(c1 < 0); /* parent before child */
	if (c1 != 0 && cf_path_within(n, j))
		CHECK(c1 > 0);
	if (cf_path_within(j, n))
		CHECK(cf_path_depth(j) >= cf_path_depth(n));
	if (strcmp(n, "/")) {
		char *d = cf_path_dirname(n);
		CHECK(d);
		check_normal(d);
		CHECK(cf_path_within(n, d) && strcmp(n, d));
		CHECK(cf_path_depth(d) == cf_path_depth(n) - 1);
		CHECK(cf_path_cmp(d, n) < 0);
		free(d);
	} else {
		CHECK(cf_path_depth(n) == 0);
	}
	free(j);
	free(n);
	free(buf);
	return 0;
}
