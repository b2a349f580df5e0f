/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: validation of read-only file injections (SPEC 6, R21; policy/inject.c).  Input:
 * records separated by 0xff bytes; the first byte of a record chooses the placement (even: env,
 * odd: path), the rest is NAME or TARGET, NUL bytes included.  Checks that a refusal leaves the
 * list unchanged, and that everything accepted obeys the rules: names match
 * [A-Za-z_][A-Za-z0-9_]* and are not reserved, targets are normalised, absolute, free of "..",
 * NUL and control characters, not "/", and no two are equal or nested.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/inject.h"
#include "util/util.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

static void check_entry(const struct cf_inject *e)
{
	const char *w = e->where;
	if (e->placement == CONFINE_INJECT_ENV) {
		CHECK(isalpha((unsigned char)w[0]) || w[0] == '_');
		for (const char *p = w; *p; p++)
			CHECK(isalnum((unsigned char)*p) || *p == '_');
		CHECK(!cf_inject_name_reserved(w));
		return;
	}
	CHECK(w[0] == '/' && strcmp(w, "/"));
	for (const unsigned char *p = (const unsigned char *)w; *p; p++)
		CHECK(*p >= 0x20 && *p != 0x7f);
	char *n = cf_path_normalize(w);
	CHECK(n && !strcmp(n, w));
	free(n);
	CHECK(!strstr(w, "/../") && strcmp(w + strlen(w) - (strlen(w) >= 3 ? 3 : 0), "/.."));
	CHECK(!cf_path_within(w, CF_INJECT_ENV_DIR));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cf_injects l = {0};
	if (size > 65536)
		return 0;
	for (size_t i = 0; i < size;) {
		size_t j = i;
		while (j < size && data[j] != 0xff)
			j++;
		if (j > i) {
			enum confine_inject_placement p =
			    data[i] % 2 ? CONFINE_INJECT_PATH : CONFINE_INJECT_ENV;
			struct confine_error err = {0};
			size_t n = l.n;
			uint64_t total = l.total;
			int r = cf_injects_add(&l, p, (const char *)data + i + 1, j - i - 1, "x", 1,
					       &err);
			if (r < 0) {
				CHECK(l.n == n && l.total == total && err.code == r);
				CHECK(r == CONFINE_E_INVALID || r == CONFINE_E_LIMIT ||
				      r == CONFINE_E_NOMEM);
			} else {
				CHECK(l.n == n + 1 && l.total == total + 1);
				check_entry(&l.v[n]);
			}
		}
		i = j + 1;
	}
	CHECK(l.n <= CONFINE_INJECT_MAX_COUNT);
	for (size_t a = 0; a < l.n; a++)
		for (size_t b = a + 1; b < l.n; b++) {
			if (l.v[a].placement != l.v[b].placement)
				continue;
			CHECK(strcmp(l.v[a].where, l.v[b].where));
			if (l.v[a].placement == CONFINE_INJECT_PATH)
				CHECK(!cf_path_within(l.v[a].where, l.v[b].where) &&
				      !cf_path_within(l.v[b].where, l.v[a].where));
		}
	cf_injects_release(&l);
	return 0;
}
