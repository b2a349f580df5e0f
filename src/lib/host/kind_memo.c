/* SPDX-License-Identifier: MIT */
/* The kind of a path, memoised for one planning: see kind_memo.h. */
#include <stdlib.h>
#include <string.h>

#include "host/hostfs.h"
#include "host/kind_memo.h"
#include "util/util.h"

static uint64_t hash_of(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h;
}

static struct cf_kind_memo_ent *find(const struct cf_kind_memo *m, const char *p, size_t n,
				     uint64_t h)
{
	if (!m->cap)
		return NULL;
	for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct cf_kind_memo_ent *e = &m->v[i];
		if (!e->path)
			return e;
		if (e->hash == h && !strncmp(e->path, p, n) && !e->path[n])
			return e;
	}
}

static void put(struct cf_kind_memo *m, const char *p, size_t n, uint64_t h, enum cf_kind k)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		struct cf_kind_memo_ent *v = calloc(cap, sizeof(*v));
		if (!v)
			return; /* no memo: the answer is still right */
		struct cf_kind_memo old = *m;
		m->v = v;
		m->cap = cap;
		for (size_t i = 0; i < old.cap; i++)
			if (old.v[i].path)
				*find(m, old.v[i].path, strlen(old.v[i].path), old.v[i].hash) =
				    old.v[i];
		free(old.v);
	}
	struct cf_kind_memo_ent *e = find(m, p, n, h);
	if (e->path)
		return;
	if (!(e->path = cf_strndup(p, n)))
		return;
	e->hash = h;
	e->kind = k;
	m->n++;
}

enum cf_kind cf_kind_memo_get(void *ctx, const char *path)
{
	struct cf_kind_memo *m = ctx;
	if (!m)
		return cf_hostfs_kind(NULL, path);
	size_t n = strlen(path);
	uint64_t h = hash_of(path, n);
	const struct cf_kind_memo_ent *e = find(m, path, n, h);
	if (e && e->path)
		return e->kind;
	/* Below a missing directory or a file, nothing exists (lstat would say ENOENT or
	 * ENOTDIR); below a symlink or a directory the kernel is asked. */
	const char *slash = strrchr(path, '/');
	if (slash && slash > path) {
		size_t pn = (size_t)(slash - path);
		const struct cf_kind_memo_ent *pe = find(m, path, pn, hash_of(path, pn));
		if (pe && pe->path &&
		    (pe->kind == CF_KIND_MISSING || pe->kind == CF_KIND_FILE ||
		     pe->kind == CF_KIND_OTHER)) {
			put(m, path, n, h, CF_KIND_MISSING);
			return CF_KIND_MISSING;
		}
	}
	enum cf_kind k = cf_hostfs_kind(NULL, path);
	put(m, path, n, h, k);
	return k;
}

void cf_kind_memo_reset(struct cf_kind_memo *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->v[i].path);
	free(m->v);
	memset(m, 0, sizeof(*m));
}
