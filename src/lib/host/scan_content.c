/* SPDX-License-Identifier: MIT */
/*
 * The content half of the glob scan (R40): the matches of a rule decided by content are
 * classified (host/certclass.h) and the public ones are set apart (struct cf_matches.pub).
 *
 * Each classification is kept in confine's cache beside the scan's own records, in the file
 * cert-KEY (KEY: the scan's key, so one per workspace and pattern set), with the identity and
 * timestamps of the file it was read from and the moment of the read.  It is reused while the
 * file's device, inode, size, mtime and ctime are the same to the nanosecond and both
 * timestamps are older than the read by more than CF_SCAN_RACY_NS: a write changes mtime and
 * ctime, nobody can set ctime back, and a write within the timestamp granularity of the read
 * is what the racy rule covers.  The file is confine's own state (R30), read and written with
 * the checks of the scan cache (cf_cache_file_read); anything that is not exactly what confine
 * wrote is ignored, and every match is read again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "host/certclass.h"
#include "host/scan.h"
#include "host/scan_cache.h"
#include "util/sha256.h"
#include "util/util.h"

#define MAGIC "confine-cert-1\n"
#define CLOCK_TOLERANCE_NS 1000000000LL
/* At most this many records (the scan's own budget of matches is 2048). */
#define MAX_RECS 65536

struct rec {
	uint64_t dev, ino, size;
	int64_t mtime, ctime, read;
	uint32_t content;
	uint32_t pad;
};

struct cf_cert_cache {
	struct rec *v;
	size_t n, cap;
};

struct head {
	char magic[16];
	char key[64];
	int64_t clock;
	uint64_t n;
};

void cf_cert_cache_free(struct cf_cert_cache *c)
{
	if (!c)
		return;
	free(c->v);
	free(c);
}

static int rec_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static const struct rec *find(const struct cf_cert_cache *c, uint64_t dev, uint64_t ino)
{
	if (!c || !c->n)
		return NULL;
	struct rec k = {.dev = dev, .ino = ino};
	return bsearch(&k, c->v, c->n, sizeof(k), rec_cmp);
}

static int64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void file_name(const char key[65], char name[64])
{
	snprintf(name, 64, "cert-%.32s", key);
}

/* Parses a cache file: every size, the checksum, the key and the clock checked; the records
 * sorted, unique and of known classes.  Takes buf. */
static struct cf_cert_cache *parse(void *buf, size_t len, const char key[65])
{
	struct head h;
	struct cf_cert_cache *c = NULL;
	char sum[CF_SHA256_HEX], want[CF_SHA256_HEX];
	if (len < sizeof(h) + 64)
		goto out;
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, MAGIC, sizeof(MAGIC)) || memcmp(h.key, key, 64) || h.n > MAX_RECS ||
	    len != sizeof(h) + h.n * sizeof(struct rec) + 64)
		goto out;
	cf_sha256_hex(buf, len - 64, sum);
	memcpy(want, (char *)buf + len - 64, 64);
	want[64] = '\0';
	int64_t skew = h.clock - cf_scan_clock_offset();
	if (strcmp(sum, want) || skew > CLOCK_TOLERANCE_NS || skew < -CLOCK_TOLERANCE_NS)
		goto out;
	if (!(c = calloc(1, sizeof(*c))) || (h.n && !(c->v = malloc(h.n * sizeof(*c->v))))) {
		cf_cert_cache_free(c);
		c = NULL;
		goto out;
	}
	if (h.n) /* memcpy may not be given NULL, not even for nothing */
		memcpy(c->v, (char *)buf + sizeof(h), h.n * sizeof(*c->v));
	c->n = c->cap = h.n;
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].content < CF_CONTENT_CERTS || c->v[i].content > CF_CONTENT_UNKNOWN ||
		    c->v[i].pad || (i && rec_cmp(&c->v[i - 1], &c->v[i]) >= 0)) {
			cf_cert_cache_free(c);
			c = NULL;
			break;
		}
out:
	free(buf);
	return c;
}

static void load(struct cf_scan_state *s, const char *cache_dir)
{
	char name[64];
	void *buf;
	size_t len;
	const char *why;
	file_name(s->certs_key, name);
	if (cache_dir &&
	    cf_cache_file_read(cache_dir, false, name,
			       sizeof(struct head) + 64 + MAX_RECS * sizeof(struct rec), &buf, &len,
			       &why) == 0)
		s->certs = parse(buf, len, s->certs_key);
}

void cf_scan_certs_save(struct cf_scan_state *s, const char *cache_dir)
{
	if (!s->certs || !s->certs_dirty || !cache_dir)
		return;
	struct cf_cert_cache *c = s->certs;
	size_t len = sizeof(struct head) + c->n * sizeof(struct rec) + 64;
	char *buf = calloc(1, len + 1), name[64];
	if (!buf)
		return;
	struct head h = {.clock = cf_scan_clock_offset(), .n = c->n};
	memcpy(h.magic, MAGIC, sizeof(MAGIC));
	memcpy(h.key, s->certs_key, 64);
	memcpy(buf, &h, sizeof(h));
	if (c->n)
		memcpy(buf + sizeof(h), c->v, c->n * sizeof(*c->v));
	cf_sha256_hex(buf, len - 64, buf + len - 64);
	file_name(s->certs_key, name);
	if (cf_cache_file_write(cache_dir, name, buf, len) == 0)
		s->certs_dirty = false;
	free(buf);
}

static int add_rec(struct cf_cert_cache *c, const struct rec *r)
{
	if (c->n == c->cap) {
		size_t cap;
		struct rec *v = cf_grow_array(c->v, c->cap, 16, sizeof(*v), &cap);
		if (!v)
			return CONFINE_E_NOMEM;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = *r;
	return 0;
}

static int add_public(struct cf_matches *m, const struct cf_match *x, const struct rec *r)
{
	if (m->n_pub == m->cap_pub) {
		size_t cap = m->cap_pub ? m->cap_pub * 2 : 8;
		struct cf_public_match *v = realloc(m->pub, cap * sizeof(*v));
		if (!v)
			return CONFINE_E_NOMEM;
		m->pub = v;
		m->cap_pub = cap;
	}
	m->pub[m->n_pub++] = (struct cf_public_match){.path = x->path,
						      .rule = x->rule,
						      .dev = r->dev,
						      .ino = r->ino,
						      .size = r->size,
						      .mtime = r->mtime,
						      .ctime = r->ctime};
	return 0;
}

static int pub_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cf_public_match *)a)->path,
		      ((const struct cf_public_match *)b)->path);
}

static int64_t ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000LL + t->tv_nsec;
}

/* What one match holds: from the cache when its record still holds, else read now.  *r gets
 * the record; *fresh says whether it was read. */
static enum cf_content classify(const struct cf_scan_state *s, const char *path, struct rec *r,
				bool *fresh)
{
	struct stat st;
	*fresh = false;
	memset(r, 0, sizeof(*r));
	if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return CF_CONTENT_UNKNOWN;
	const struct rec *old = find(s->certs, (uint64_t)st.st_dev, (uint64_t)st.st_ino);
	if (old && old->size == (uint64_t)st.st_size && old->mtime == ns(&st.st_mtim) &&
	    old->ctime == ns(&st.st_ctim) && old->ctime < old->read - CF_SCAN_RACY_NS &&
	    old->mtime < old->read - CF_SCAN_RACY_NS) {
		*r = *old;
		return (enum cf_content)old->content;
	}
	struct cf_cert_stamp stamp;
	int64_t read = now_ns();
	enum cf_content c = cf_cert_classify_path(path, &stamp, NULL);
	*fresh = true;
	*r = (struct rec){.dev = stamp.dev,
			  .ino = stamp.ino,
			  .size = stamp.size,
			  .mtime = stamp.mtime,
			  .ctime = stamp.ctime,
			  .read = read,
			  .content = (uint32_t)c};
	return c;
}

int cf_scan_classify(struct cf_scan_state *s, const char *cache_dir, const struct cf_ruleset *rules,
		     struct cf_matches *m, struct confine_error *err)
{
	bool any = false;
	for (size_t i = 0; i < rules->n && !any; i++)
		any = rules->v[i].content;
	if (!any)
		return 0;
	if (!s->certs_loaded) {
		s->certs_loaded = true;
		cf_scan_cache_key(rules, s->certs_key);
		load(s, cache_dir);
		s->certs_dirty = !s->certs;
	}
	struct cf_cert_cache *next = calloc(1, sizeof(*next));
	if (!next)
		return cf_nomem(err);
	size_t kept = 0;
	int r = 0;
	for (size_t i = 0; i < m->n; i++) {
		struct cf_match *x = &m->v[i];
		const struct cf_rule *rule = x->rule < rules->n ? &rules->v[x->rule] : NULL;
		if (!rule || !rule->content || x->kind != CF_KIND_FILE) {
			m->v[kept++] = *x;
			continue;
		}
		struct rec rec;
		bool fresh;
		x->content = classify(s, x->path, &rec, &fresh);
		s->certs_dirty |= fresh;
		if (fresh)
			s->stats.files_classified++;
		else
			s->stats.files_reused++;
		if (rec.ino && r == 0)
			r = add_rec(next, &rec);
		if (r == 0 && x->content == CF_CONTENT_CERTS) {
			if ((r = add_public(m, x, &rec)) == 0)
				continue; /* the path moved to m->pub */
		}
		m->v[kept++] = *x;
	}
	m->n = kept;
	if (r < 0) {
		cf_cert_cache_free(next);
		return cf_nomem(err);
	}
	/* qsort of nothing may not be given NULL (C17 7.22.5): an empty list has no array yet. */
	if (m->n_pub)
		qsort(m->pub, m->n_pub, sizeof(*m->pub), pub_cmp);
	/* Sorted and unique (two names of one file), for the lookups of the next scan. */
	if (next->n)
		qsort(next->v, next->n, sizeof(*next->v), rec_cmp);
	size_t u = 0;
	for (size_t i = 0; i < next->n; i++)
		if (!u || rec_cmp(&next->v[u - 1], &next->v[i]))
			next->v[u++] = next->v[i];
	next->n = u;
	s->certs_dirty |= !s->certs || next->n != s->certs->n;
	cf_cert_cache_free(s->certs);
	s->certs = next;
	return 0;
}
