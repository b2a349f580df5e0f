/* SPDX-License-Identifier: MIT */
/* The scan cache file (R32, R30): see scan_cache.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host/scan.h"
#include "host/scan_cache.h"
#include "plan/host.h"
#include "util/sha256.h"
#include "util/util.h"

#define MAGIC "CFSCAN\r\n"
#define VERSION 1u
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

static void add_u64(struct cf_buf *b, uint64_t v)
{
	char s[24];
	snprintf(s, sizeof(s), "%llu:", (unsigned long long)v);
	cf_buf_add(b, s);
}

void cf_scan_cache_key(const struct cf_ruleset *rules, char key[65])
{
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_add(&b, "confine scan cache 1:");
	add_u64(&b, (uint64_t)geteuid());
	for (size_t i = 0; i < rules->n; i++) {
		const struct cf_rule *r = &rules->v[i];
		if (!r->glob || !r->path)
			continue;
		/* Length-prefixed: no pattern can run into the next. */
		add_u64(&b, i);
		add_u64(&b, r->fold_case);
		add_u64(&b, strlen(r->path));
		cf_buf_add(&b, r->path);
	}
	if (b.oom) {
		/* A key no file can have: nothing is loaded or stored. */
		memset(key, 'x', 64);
		key[64] = '\0';
	} else {
		cf_sha256_hex(b.s, b.len, key);
	}
	cf_buf_release(&b);
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
			    k->kind == CF_KIND_MISSING || k->pad ||
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
	    h.sizes != SIZES) {
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
	if (checksum(buf, len) != sum) {
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

int64_t cf_scan_clock_offset(void)
{
	struct timespec r, b;
	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_BOOTTIME, &b);
	return ((int64_t)r.tv_sec - (int64_t)b.tv_sec) * 1000000000LL +
	       ((int64_t)r.tv_nsec - (int64_t)b.tv_nsec);
}

/* Opens confine's cache directory `dir` (its last component not followed), when it is the
 * caller's and nobody else may write it; creates it first (0700) when asked to and its parent
 * is the caller's.  -1 and why otherwise. */
static int open_dir(const char *dir, bool create, const char **why)
{
	char *parent = cf_path_dirname(dir);
	const char *base = strrchr(dir, '/');
	int pfd = -1, fd = -1;
	struct stat st;
	if (!parent || !base || !base[1] || dir[0] != '/') {
		*why = "no cache directory";
		goto out;
	}
	base++;
	pfd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0 && errno == ENOENT && create) {
		/* ~/.cache itself may be missing (the bwrap probe makes it, the landlock one
		 * does not): made as the probe makes it, only in a directory of the caller's. */
		char *up = cf_path_dirname(parent);
		if (up && stat(up, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
		    (mkdir(parent, 0700) == 0 || errno == EEXIST))
			pfd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
		free(up);
	}
	if (pfd < 0) {
		*why = "no cache directory";
		goto out;
	}
	fd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create && fstat(pfd, &st) == 0 && st.st_uid == geteuid() &&
	    mkdirat(pfd, base, 0700) == 0)
		fd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		*why = errno == ELOOP || errno == ENOTDIR ? "the cache directory is not a directory"
							  : "no cache directory";
		goto out;
	}
	/* A directory someone else controls could hold a forged cache or redirect our writes. */
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		*why = "the cache directory is not yours alone";
		close(fd);
		fd = -1;
	}
out:
	if (pfd >= 0)
		close(pfd);
	free(parent);
	return fd;
}

static void file_name(const char key[65], char name[64])
{
	snprintf(name, 64, "scan-%.32s", key);
}

int cf_scan_cache_load(const char *dir, const char key[65], struct cf_scan_cache **out,
		       const char **why)
{
	char name[64];
	struct stat st;
	void *buf = NULL;
	int fd = -1, dfd = open_dir(dir, true, why);
	*out = NULL;
	if (dfd < 0)
		return -1;
	file_name(key, name);
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		*why = errno == ELOOP ? "a symlink" : errno == ENOENT ? "none yet" : "unreadable";
		goto fail;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		goto fail;
	}
	if (st.st_uid != geteuid()) {
		*why = "not yours";
		goto fail;
	}
	if (st.st_mode & 022) {
		*why = "writable by others";
		goto fail;
	}
	if (st.st_nlink != 1) {
		*why = "a hard link";
		goto fail;
	}
	if (st.st_size > (off_t)CF_SCAN_CACHE_MAX_BYTES) {
		*why = "larger than the bound";
		goto fail;
	}
	size_t len = (size_t)st.st_size, got = 0;
	if (!(buf = malloc(len ? len : 1))) {
		*why = "out of memory";
		goto fail;
	}
	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	close(dfd);
	/* A file that grew since fstat is read no further than its size then: the size check
	 * of the parse refuses a mix. */
	return cf_scan_cache_parse(buf, got, key, cf_scan_clock_offset(), out, why);
fail:
	free(buf);
	if (fd >= 0)
		close(fd);
	close(dfd);
	return -1;
}

int cf_scan_cache_store(const char *dir, const struct cf_scan_cache *c)
{
	const char *why;
	char name[64], tmp[96];
	size_t len = 0;
	int rc = -1, fd = -1, dfd = open_dir(dir, false, &why);
	void *buf = NULL;
	if (dfd < 0)
		return -1;
	if (!(buf = cf_scan_cache_serialize(c, cf_scan_clock_offset(), &len)))
		goto out;
	file_name(c->key, name);
	for (int i = 0; i < 8 && fd < 0; i++) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		snprintf(tmp, sizeof(tmp), ".%s.%ld.%ld.%d", name, (long)getpid(), (long)ts.tv_nsec,
			 i);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			goto out;
	}
	if (fd < 0)
		goto out;
	bool ok = true;
	for (size_t done = 0; ok && done < len;) {
		ssize_t n = write(fd, (char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		ok = n > 0;
		if (ok)
			done += (size_t)n;
	}
	ok = close(fd) == 0 && ok;
	fd = -1;
	/* rename is atomic: a run that reads meanwhile gets the old file or the new one. */
	if (ok && renameat(dfd, tmp, dfd, name) == 0)
		rc = 0;
	else
		unlinkat(dfd, tmp, 0);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	close(dfd);
	return rc;
}

/* ---------------------------------------------------------------------------------------- */
/* The scans of one run (scan.h). */

int cf_scan_cached(struct cf_scan_state *s, const char *cache_dir, const struct cf_ruleset *rules,
		   const struct cf_scan_budget *budget, struct cf_matches *out,
		   struct confine_error *err)
{
	bool first = !s->loaded;
	if (first) {
		char key[65];
		s->loaded = true;
		s->why = "no cache directory";
		cf_scan_cache_key(rules, key);
		if (cache_dir && cf_scan_cache_load(cache_dir, key, &s->cache, &s->why) == 0)
			s->why = NULL;
	}
	struct cf_scan_cache *next = NULL;
	int r = cf_scan_globs_cached(rules, budget, s->cache, &next, out, &s->stats, err);
	/* Anything read, or a record gone (a root that vanished): the file no longer says what
	 * the tree is.  A directory read again only because it was recent gets a later read
	 * time, which lets the next run trust it. */
	bool changed = !s->cache || !next || s->stats.dirs_read > 0 ||
		       next->ndirs != s->cache->ndirs || next->nroots != s->cache->nroots;
	cf_scan_cache_free(s->cache);
	s->cache = r == 0 ? next : NULL;
	if (r < 0)
		cf_scan_cache_free(next);
	s->dirty = s->dirty || changed;
	/* No usable file: store this one now, so that a run that ends early (or only prints
	 * its plan) still leaves one.  This runs before the plan, into a directory the probe or
	 * cf_scan_cache_load made, which the plan then protects. */
	if (first && s->why && s->cache && cache_dir &&
	    cf_scan_cache_store(cache_dir, s->cache) == 0)
		s->dirty = false;
	return r;
}

void cf_scan_state_save(struct cf_scan_state *s, const char *cache_dir)
{
	if (s->cache && s->dirty && cache_dir && cf_scan_cache_store(cache_dir, s->cache) == 0)
		s->dirty = false;
}

void cf_scan_state_release(struct cf_scan_state *s)
{
	cf_scan_cache_free(s->cache);
	memset(s, 0, sizeof(*s));
}
