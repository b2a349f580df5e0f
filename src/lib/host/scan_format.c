/* SPDX-License-Identifier: MIT */
/* The scan cache file's format (R32): see scan_cache.h.  No OS calls: fuzzed as it is. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/scan_cache.h"
#include "host/facts.h"

#define MAGIC "CFSCAN\r\n"
/* 2: entries carry their flags (1 had none: such a file would say nothing matched) */
#define VERSION 2u
#define ENDIAN 0x01020304u

/* The file: this header, then roots, dirs, kids and names, nothing else. */
struct header {
	char magic[8];
	uint32_t version, endian;
	uint32_t sizes; /* of a root, dir and kid record: another layout is another format */
	uint32_t nroots, ndirs, nkids, nnames;
	uint32_t pad;
	int64_t clock; /* CLOCK_REALTIME - CLOCK_BOOTTIME when written */
	uint64_t sum;  /* of the whole file with this field 0 */
	char key[64];
};

#define SIZES                                                                                      \
	((uint32_t)sizeof(struct cf_scan_root) << 16 | (uint32_t)sizeof(struct cf_scan_dir) << 8 | \
	 (uint32_t)sizeof(struct cf_scan_kid))

/* The clock may have been slewed a little between two runs; a step of a second or more
 * (someone set the clock, or the machine rebooted) could make a later change look older than
 * a read, so the file is not used. */
#define CLOCK_TOLERANCE_NS 1000000000LL

void cf_scan_cache_free(struct cf_scan_cache *c)
{
	if (!c)
		return;
	if (c->blob) {
		free(c->blob);
	} else {
		free(c->roots);
		free(c->dirs);
		free(c->kids);
		free(c->names);
	}
	free(c);
}

/* A checksum against corruption and truncation (the file is the caller's own, in a directory
 * nobody else can write: it is not a signature).  Four independent lanes, 32 bytes a step. */
static uint64_t checksum(const unsigned char *p, size_t n)
{
	const uint64_t k = 0x9e3779b97f4a7c15ULL;
	uint64_t h[4] = {k ^ n, k + 1, k + 2, k + 3};
	size_t i = 0;
	for (; i + 32 <= n; i += 32)
		for (int l = 0; l < 4; l++) {
			uint64_t w;
			memcpy(&w, p + i + 8 * l, 8);
			h[l] = (h[l] ^ w) * 0xff51afd7ed558ccdULL;
			h[l] ^= h[l] >> 31;
		}
	uint64_t r = 0;
	for (; i < n; i++)
		h[i & 3] = (h[i & 3] ^ p[i]) * 0xc4ceb9fe1a85ec53ULL;
	for (int l = 0; l < 4; l++)
		r = (r ^ h[l]) * 0xff51afd7ed558ccdULL, r ^= r >> 33;
	return r;
}

void *cf_scan_cache_serialize(const struct cf_scan_cache *c, int64_t clock_offset, size_t *len)
{
	size_t sr = c->nroots * sizeof(*c->roots), sd = c->ndirs * sizeof(*c->dirs),
	       sk = c->nkids * sizeof(*c->kids);
	size_t n = sizeof(struct header) + sr + sd + sk + c->nnames;
	*len = 0;
	if (n > CF_SCAN_CACHE_MAX_BYTES)
		return NULL;
	unsigned char *buf = malloc(n);
	if (!buf)
		return NULL;
	struct header h = {.version = VERSION,
			   .endian = ENDIAN,
			   .sizes = SIZES,
			   .nroots = (uint32_t)c->nroots,
			   .ndirs = (uint32_t)c->ndirs,
			   .nkids = (uint32_t)c->nkids,
			   .nnames = (uint32_t)c->nnames,
			   .clock = clock_offset};
	memcpy(h.magic, MAGIC, 8);
	memcpy(h.key, c->key, 64);
	unsigned char *p = buf + sizeof(h);
	if (sr)
		memcpy(p, c->roots, sr);
	p += sr;
	if (sd)
		memcpy(p, c->dirs, sd);
	p += sd;
	if (sk)
		memcpy(p, c->kids, sk);
	p += sk;
	if (c->nnames)
		memcpy(p, c->names, c->nnames);
	memcpy(buf, &h, sizeof(h));
	h.sum = checksum(buf, n);
	memcpy(buf, &h, sizeof(h));
	*len = n;
	return buf;
}

void cf_scan_cache_seal(void *buf, size_t len, const char key[65], int64_t clock_offset)
{
	struct header h;
	if (len < sizeof(h))
		return;
	memcpy(&h, buf, sizeof(h));
	memcpy(h.key, key, 64);
	h.clock = clock_offset;
	h.sum = 0;
	memcpy(buf, &h, sizeof(h));
	h.sum = checksum(buf, len);
	memcpy(buf, &h, sizeof(h));
}

static int cmp_name(const struct cf_scan_cache *c, const struct cf_scan_kid *a,
		    const struct cf_scan_kid *b)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int r = memcmp(c->names + a->name, c->names + b->name, n);
	return r ? r : (int)a->len - (int)b->len;
}

/* A name of one path component: no '/', no NUL, not "." or "..". */
static bool good_name(const char *s, size_t n)
{
	if (n == 0 || n > 255 || (s[0] == '.' && (n == 1 || (n == 2 && s[1] == '.'))))
		return false;
	return !memchr(s, '/', n) && !memchr(s, '\0', n);
}

static const char *validate(const struct cf_scan_cache *c)
{
	const char *why = NULL;
	/* Every directory record is reached once, from a root or from an entry of a record
	 * before it: the records form trees in walk order, and no walk of them can loop. */
	unsigned char *seen = calloc(c->ndirs ? c->ndirs : 1, 1);
	if (!seen)
		return "out of memory";
	for (size_t i = 0; i < c->nroots && !why; i++) {
		const struct cf_scan_root *r = &c->roots[i];
		if ((uint64_t)r->name + r->len > c->nnames || r->len == 0 ||
		    c->names[r->name] != '/' || memchr(c->names + r->name, '\0', r->len) ||
		    r->dir >= c->ndirs || seen[r->dir]++ || r->pad)
			why = "corrupt (a root)";
	}
	for (size_t d = 0; d < c->ndirs && !why; d++) {
		const struct cf_scan_dir *dr = &c->dirs[d];
		if (!seen[d] || (uint64_t)dr->first + dr->n > c->nkids ||
		    (dr->flags & ~(uint32_t)CF_SCAN_TRUSTED)) {
			why = "corrupt (a directory)";
			break;
		}
		for (uint32_t i = 0; i < dr->n && !why; i++) {
			const struct cf_scan_kid *k = &c->kids[dr->first + i];
			if ((uint64_t)k->name + k->len > c->nnames ||
			    !good_name(c->names + k->name, k->len) || k->kind > CF_KIND_OTHER ||
			    k->kind == CF_KIND_MISSING ||
			    (k->flags & ~(uint8_t)(CF_SCAN_KID_MATCH | CF_SCAN_KID_DIVE)) ||
			    (k->dir != CF_SCAN_NONE &&
			     (k->dir <= d || k->dir >= c->ndirs || k->kind != CF_KIND_DIR ||
			      seen[k->dir]++)) ||
			    (i > 0 && cmp_name(c, k - 1, k) >= 0))
				why = "corrupt (an entry)";
		}
	}
	free(seen);
	return why;
}

int cf_scan_cache_parse(void *buf, size_t len, const char key[65], int64_t clock_offset,
			struct cf_scan_cache **out, const char **why)
{
	struct header h;
	struct cf_scan_cache *c = NULL;
	*out = NULL;
	if (len < sizeof(h)) {
		*why = "truncated";
		goto fail;
	}
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, MAGIC, 8) || h.version != VERSION || h.endian != ENDIAN ||
	    h.sizes != SIZES || h.pad) {
		*why = "not a scan cache of this version";
		goto fail;
	}
	uint64_t want = sizeof(h) + (uint64_t)h.nroots * sizeof(struct cf_scan_root) +
			(uint64_t)h.ndirs * sizeof(struct cf_scan_dir) +
			(uint64_t)h.nkids * sizeof(struct cf_scan_kid) + h.nnames;
	if (want != len) {
		*why = want > len ? "truncated" : "corrupt (its size)";
		goto fail;
	}
	uint64_t sum = h.sum;
	h.sum = 0;
	memcpy(buf, &h, sizeof(h));
	bool same = checksum(buf, len) == sum;
	h.sum = sum;
	memcpy(buf, &h, sizeof(h));
	if (!same) {
		*why = "corrupt (checksum)";
		goto fail;
	}
	if (memcmp(h.key, key, 64)) {
		*why = "foreign (another key)";
		goto fail;
	}
	int64_t skew = h.clock - clock_offset;
	if (skew > CLOCK_TOLERANCE_NS || skew < -CLOCK_TOLERANCE_NS) {
		*why = "written under another clock (it was set, or the machine rebooted)";
		goto fail;
	}
	if (!(c = calloc(1, sizeof(*c)))) {
		*why = "out of memory";
		goto fail;
	}
	unsigned char *p = (unsigned char *)buf + sizeof(h);
	c->blob = buf;
	memcpy(c->key, key, 64);
	c->key[64] = '\0';
	c->nroots = h.nroots;
	c->ndirs = h.ndirs;
	c->nkids = h.nkids;
	c->nnames = h.nnames;
	c->roots = (struct cf_scan_root *)(void *)p;
	p += c->nroots * sizeof(*c->roots);
	c->dirs = (struct cf_scan_dir *)(void *)p;
	p += c->ndirs * sizeof(*c->dirs);
	c->kids = (struct cf_scan_kid *)(void *)p;
	p += c->nkids * sizeof(*c->kids);
	c->names = (char *)p;
	if ((*why = validate(c))) {
		cf_scan_cache_free(c);
		return -1;
	}
	*out = c;
	return 0;
fail:
	free(buf);
	return -1;
}

/* ---------------------------------------------------------------------------------------- */
/* Building a cache, as a scan walks. */

static bool grow(void **v, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return true;
	size_t c;
	void *p = cf_grow_array(*v, *cap, 256, size, &c);
	if (!p)
		return false;
	*v = p;
	*cap = c;
	return true;
}

size_t cf_scan_cache_bytes(const struct cf_scan_cache *c)
{
	return c->nroots * sizeof(*c->roots) + c->ndirs * sizeof(*c->dirs) +
	       c->nkids * sizeof(*c->kids) + c->nnames;
}

uint32_t cf_scan_rec_dir(struct cf_scan_cache *c, const struct cf_scan_dir *d)
{
	if (c->ndirs >= CF_SCAN_NONE ||
	    !grow((void **)&c->dirs, &c->cdirs, c->ndirs, sizeof(*c->dirs)))
		return CF_SCAN_NONE;
	c->dirs[c->ndirs] = *d;
	c->dirs[c->ndirs].first = (uint32_t)c->nkids;
	c->dirs[c->ndirs].n = 0;
	return (uint32_t)c->ndirs++;
}

/* Appends a name (and a NUL after it, not counted: names can be passed on as strings).
 * Returns its offset, or -1. */
static int64_t add_name(struct cf_scan_cache *c, const char *s, size_t n)
{
	if (c->nnames + n + 1 > UINT32_MAX)
		return -1;
	if (c->nnames + n + 1 > c->cnames) {
		size_t cap = c->cnames ? c->cnames * 2 : 4096;
		if (n > SIZE_MAX / 4 - c->nnames || c->cnames > SIZE_MAX / 4)
			return -1; /* out of memory: no size wraps round */
		while (cap < c->nnames + n + 1)
			cap *= 2;
		char *p = realloc(c->names, cap);
		if (!p)
			return -1;
		c->names = p;
		c->cnames = cap;
	}
	size_t at = c->nnames;
	memcpy(c->names + at, s, n);
	c->names[at + n] = '\0';
	c->nnames += n + 1;
	return (int64_t)at;
}

bool cf_scan_rec_kid(struct cf_scan_cache *c, const char *name, size_t n, enum cf_kind kind)
{
	if (n == 0 || n > 255 || !grow((void **)&c->kids, &c->ckids, c->nkids, sizeof(*c->kids)))
		return false;
	int64_t at = add_name(c, name, n);
	if (at < 0)
		return false;
	c->kids[c->nkids++] = (struct cf_scan_kid){
	    .name = (uint32_t)at, .dir = CF_SCAN_NONE, .len = (uint16_t)n, .kind = (uint8_t)kind};
	return true;
}

bool cf_scan_rec_root(struct cf_scan_cache *c, const char *path, size_t n, uint32_t dir)
{
	if (!grow((void **)&c->roots, &c->croots, c->nroots, sizeof(*c->roots)))
		return false;
	int64_t at = add_name(c, path, n);
	if (at < 0)
		return false;
	c->roots[c->nroots++] =
	    (struct cf_scan_root){.name = (uint32_t)at, .len = (uint32_t)n, .dir = dir};
	return true;
}

/* Sorts k[0, n) by name (a heap sort: in place, no recursion, no comparator context). */
static void sort_kids(const struct cf_scan_cache *c, struct cf_scan_kid *k, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		for (size_t r = i, ch; (ch = 2 * r + 1) < n; r = ch) {
			if (ch + 1 < n && cmp_name(c, &k[ch], &k[ch + 1]) < 0)
				ch++;
			if (cmp_name(c, &k[r], &k[ch]) >= 0)
				break;
			struct cf_scan_kid t = k[r];
			k[r] = k[ch];
			k[ch] = t;
		}
	for (size_t end = n; end-- > 1;) {
		struct cf_scan_kid t = k[0];
		k[0] = k[end];
		k[end] = t;
		for (size_t r = 0, ch; (ch = 2 * r + 1) < end; r = ch) {
			if (ch + 1 < end && cmp_name(c, &k[ch], &k[ch + 1]) < 0)
				ch++;
			if (cmp_name(c, &k[r], &k[ch]) >= 0)
				break;
			t = k[r];
			k[r] = k[ch];
			k[ch] = t;
		}
	}
}

void cf_scan_rec_sort(struct cf_scan_cache *c, uint32_t dir)
{
	sort_kids(c, c->kids + c->dirs[dir].first, c->dirs[dir].n);
}

uint32_t cf_scan_rec_child(const struct cf_scan_cache *c, uint32_t dir, const char *name, size_t n)
{
	const struct cf_scan_kid *k = c->kids + c->dirs[dir].first;
	size_t lo = 0, hi = c->dirs[dir].n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		size_t m = k[mid].len < n ? k[mid].len : n;
		int r = memcmp(c->names + k[mid].name, name, m);
		if (!r)
			r = (int)k[mid].len - (int)n;
		if (!r)
			return k[mid].dir;
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return CF_SCAN_NONE;
}
