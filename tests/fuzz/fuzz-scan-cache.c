/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the scan cache file's parser (R32).  The input is a cache file; its key, clock
 * and checksum are sealed first (cf_scan_cache_seal), so that the structural checks are what
 * is fuzzed.  A file the parser accepts is then walked the way a scan walks it, from every
 * root through the entries' records: every offset must be in bounds (AddressSanitizer checks
 * the reads), every record reached at most once, and the walk must end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/scan_cache.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

static const char key[65] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/* Counts the records reached from d; each at most once. */
static size_t walk(const struct cf_scan_cache *c, uint32_t d, unsigned char *seen, int depth)
{
	CHECK(d < c->ndirs && !seen[d] && depth < 1 << 20);
	seen[d] = 1;
	size_t n = 1;
	const struct cf_scan_dir *r = &c->dirs[d];
	for (uint32_t i = 0; i < r->n; i++) {
		const struct cf_scan_kid *k = &c->kids[r->first + i];
		CHECK(k->len > 0 && memchr(c->names + k->name, '/', k->len) == NULL);
		CHECK(cf_scan_rec_child(c, d, c->names + k->name, k->len) == k->dir);
		if (k->dir != CF_SCAN_NONE)
			n += walk(c, k->dir, seen, depth + 1);
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	void *buf = malloc(size ? size : 1);
	CHECK(buf);
	memcpy(buf, data, size);
	cf_scan_cache_seal(buf, size, key, 0);
	struct cf_scan_cache *c = NULL;
	const char *why = NULL;
	if (cf_scan_cache_parse(buf, size, key, 0, &c, &why) < 0) {
		CHECK(why && !c);
		return 0;
	}
	unsigned char *seen = calloc(c->ndirs ? c->ndirs : 1, 1);
	CHECK(seen);
	size_t n = 0;
	for (size_t i = 0; i < c->nroots; i++)
		n += walk(c, c->roots[i].dir, seen, 0);
	CHECK(n <= c->ndirs);
	/* What parses serializes back to the same bytes. */
	size_t len = 0;
	void *again = cf_scan_cache_serialize(c, 0, &len);
	CHECK(again && len == size && !memcmp(again, c->blob, len));
	free(again);
	free(seen);
	cf_scan_cache_free(c);
	return 0;
}
