/* SPDX-License-Identifier: MIT */
/* The kind of a path, memoised for one planning: see kind_memo.h. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static void put(struct cf_kind_memo *m, const char *p, size_t n, uint64_t h, enum cf_kind k,
		const struct stat *st)
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
	e->dev = st ? (uint64_t)st->st_dev : 0;
	e->ino = st ? (uint64_t)st->st_ino : 0;
	m->n++;
}

static const struct cf_kind_memo_ent *lookup(struct cf_kind_memo *m, const char *path)
{
	size_t n = strlen(path);
	uint64_t h = hash_of(path, n);
	const struct cf_kind_memo_ent *e = find(m, path, n, h);
	if (e && e->path)
		return e;
	/* Below a missing directory or a file, nothing exists (lstat would say ENOENT or
	 * ENOTDIR); below a symlink or a directory the kernel is asked. */
	const char *slash = strrchr(path, '/');
	if (slash && slash > path) {
		size_t pn = (size_t)(slash - path);
		const struct cf_kind_memo_ent *pe = find(m, path, pn, hash_of(path, pn));
		if (pe && pe->path &&
		    (pe->kind == CF_KIND_MISSING || pe->kind == CF_KIND_FILE ||
		     pe->kind == CF_KIND_OTHER)) {
			put(m, path, n, h, CF_KIND_MISSING, NULL);
			return find(m, path, n, h);
		}
	}
	struct stat st;
	if (lstat(path, &st) < 0)
		put(m, path, n, h, CF_KIND_MISSING, NULL);
	else
		put(m, path, n, h, cf_kind_of_mode(st.st_mode), &st);
	return find(m, path, n, h);
}

enum cf_kind cf_kind_memo_get(void *ctx, const char *path)
{
	if (!ctx)
		return cf_hostfs_kind(NULL, path);
	const struct cf_kind_memo_ent *e = lookup(ctx, path);
	/* Out of memory for the memo: ask the kernel, unremembered. */
	return e && e->path ? e->kind : cf_hostfs_kind(NULL, path);
}

bool cf_kind_memo_ident(void *ctx, const char *path, uint64_t *dev, uint64_t *ino,
			enum cf_kind *kind)
{
	const struct cf_kind_memo_ent *e = ctx ? lookup(ctx, path) : NULL;
	struct stat st;
	if (!e || !e->path) {
		bool there = lstat(path, &st) == 0;
		*dev = there ? (uint64_t)st.st_dev : 0;
		*ino = there ? (uint64_t)st.st_ino : 0;
		*kind = there ? cf_kind_of_mode(st.st_mode) : CF_KIND_MISSING;
		return there;
	}
	*dev = e->dev;
	*ino = e->ino;
	*kind = e->kind;
	return e->kind != CF_KIND_MISSING;
}

void cf_kind_memo_reset(struct cf_kind_memo *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->v[i].path);
	free(m->v);
	memset(m, 0, sizeof(*m));
}
