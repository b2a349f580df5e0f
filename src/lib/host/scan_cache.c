/* SPDX-License-Identifier: MIT */
/* The scan cache file (R32, R30): see scan_cache.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/vfs.h>
#endif

#include "host/scan.h"
#include "host/scan_cache.h"
#include "host/facts.h"
#include "util/sha256.h"
#include "util/util.h"

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
	cf_buf_add(&b, "confine scan cache 2:");
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

static int64_t ns_of(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000LL + t->tv_nsec;
}

/*
 * The directory's listing of the previous scan still holds when: same identity, same
 * timestamps to the nanosecond, on a file system whose timestamps confine trusts, and both
 * timestamps older than the moment of that read by more than CF_SCAN_RACY_NS.  A change of the
 * listing sets ctime to the current time, which nobody can set back: an entry added after the
 * read shows as a later ctime, unless it came within the timestamp granularity of the read
 * (the racy case), which is why a directory changed shortly before it was read is read again.
 */
bool cf_scan_dir_unchanged(const struct cf_scan_dir *d, const struct stat *st)
{
	if (!(d->flags & CF_SCAN_TRUSTED) || !S_ISDIR(st->st_mode) ||
	    d->dev != (uint64_t)st->st_dev || d->ino != (uint64_t)st->st_ino ||
	    d->mode != (uint32_t)st->st_mode || d->mtime != ns_of(&st->st_mtim) ||
	    d->ctime != ns_of(&st->st_ctim))
		return false;
	return d->ctime < d->read - CF_SCAN_RACY_NS && d->mtime < d->read - CF_SCAN_RACY_NS;
}

/*
 * Local file systems, where the kernel sets ctime from the clock confine reads.  A network or
 * FUSE file system takes its timestamps from another clock or from a program, so its
 * directories are always read.
 */
bool cf_scan_fs_trusted(int fd)
{
#ifdef __linux__
	struct statfs sf;
	if (fstatfs(fd, &sf) != 0)
		return false;
	switch ((unsigned long)sf.f_type) {
	case 0xEF53UL:	   /* ext2, ext3, ext4 */
	case 0x58465342UL: /* xfs */
	case 0x9123683EUL: /* btrfs */
	case 0x01021994UL: /* tmpfs */
	case 0x794C7630UL: /* overlayfs */
	case 0xF2F52010UL: /* f2fs */
	case 0x2FC12FC1UL: /* zfs */
		return true;
	default:
		return false;
	}
#else
	(void)fd;
	return false;
#endif
}

void cf_scan_dir_init(struct cf_scan_dir *d, const struct stat *st, bool trusted)
{
	struct timespec now;
	/* The moment of the read: taken before the first entry is read (racy rule). */
	clock_gettime(CLOCK_REALTIME, &now);
	*d = (struct cf_scan_dir){.dev = (uint64_t)st->st_dev,
				  .ino = (uint64_t)st->st_ino,
				  .mtime = ns_of(&st->st_mtim),
				  .ctime = ns_of(&st->st_ctim),
				  .read = ns_of(&now),
				  .mode = (uint32_t)st->st_mode,
				  .flags = trusted ? CF_SCAN_TRUSTED : 0};
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

int cf_cache_dir_open(const char *dir, bool create, const char **why)
{
	return open_dir(dir, create, why);
}

static void file_name(const char *kind, const char key[65], char name[64])
{
	snprintf(name, 64, "%.7s-%.32s", kind[0] ? kind : "scan", key);
}

int cf_scan_cache_load(const char *dir, const char key[65], struct cf_scan_cache **out,
		       const char **why)
{
	return cf_scan_cache_load_at(dir, true, "scan", key, out, why);
}

int cf_cache_file_read(const char *dir, bool create, const char *name, size_t max, void **out,
		       size_t *out_len, const char **why)
{
	struct stat st;
	void *buf = NULL;
	int fd = -1, dfd = open_dir(dir, create, why);
	*out = NULL;
	*out_len = 0;
	if (dfd < 0)
		return -1;
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
	if (st.st_size > (off_t)max) {
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
	*out = buf;
	*out_len = got;
	return 0;
fail:
	free(buf);
	if (fd >= 0)
		close(fd);
	close(dfd);
	return -1;
}

int cf_scan_cache_load_at(const char *dir, bool create, const char *kind, const char key[65],
			  struct cf_scan_cache **out, const char **why)
{
	char name[64];
	void *buf;
	size_t got;
	*out = NULL;
	file_name(kind, key, name);
	if (cf_cache_file_read(dir, create, name, CF_SCAN_CACHE_MAX_BYTES, &buf, &got, why) < 0)
		return -1;
	/* A file that grew since fstat is read no further than its size then: the size check
	 * of the parse refuses a mix. */
	if (cf_scan_cache_parse(buf, got, key, cf_scan_clock_offset(), out, why) < 0)
		return -1;
	snprintf((*out)->kind, sizeof((*out)->kind), "%s", kind);
	return 0;
}

/*
 * The directory stays bounded: at most CACHE_FILES scan and sweep caches (one per workspace
 * and pattern set), the least recently written removed first (a removed one costs its
 * workspace one full scan), and temporary files a crashed run left behind removed after an
 * hour.  Only confine's own names are touched, never through a symlink (unlinkat of a name in
 * the directory opened without following one).
 */
#define CACHE_FILES 64

static void prune(int dfd)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	struct {
		char name[64];
		int64_t mtime;
	} v[CACHE_FILES + 1];
	size_t n = 0;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *nm = e->d_name;
		bool tmp =
		    nm[0] == '.' && (!strncmp(nm + 1, "scan-", 5) || !strncmp(nm + 1, "ipc-", 4) ||
				     !strncmp(nm + 1, "cert-", 5));
		bool ours =
		    !strncmp(nm, "scan-", 5) || !strncmp(nm, "ipc-", 4) || !strncmp(nm, "cert-", 5);
		struct stat st;
		if ((!tmp && !ours) || strlen(nm) >= sizeof(v[0].name) ||
		    fstatat(dfd, nm, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (tmp) {
			if (st.st_mtime < now.tv_sec - 3600)
				unlinkat(dfd, nm, 0);
			continue;
		}
		int64_t t = ns_of(&st.st_mtim);
		/* Keep the CACHE_FILES newest in v (insertion by age, newest first); drop the
		 * oldest past the bound. */
		size_t at = n;
		while (at > 0 && v[at - 1].mtime < t)
			at--;
		if (at >= CACHE_FILES) {
			unlinkat(dfd, nm, 0);
			continue;
		}
		if (n == CACHE_FILES) {
			unlinkat(dfd, v[CACHE_FILES - 1].name, 0);
			n--;
		}
		memmove(&v[at + 1], &v[at], (n - at) * sizeof(v[0]));
		snprintf(v[at].name, sizeof(v[at].name), "%s", nm);
		v[at].mtime = t;
		n++;
	}
	closedir(d);
}

int cf_cache_file_write(const char *dir, const char *name, const void *buf, size_t len)
{
	const char *why;
	char tmp[128];
	int rc = -1, fd = -1, dfd = open_dir(dir, false, &why);
	if (dfd < 0)
		return -1;
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
		ssize_t n = write(fd, (const char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		ok = n > 0;
		if (ok)
			done += (size_t)n;
	}
	ok = close(fd) == 0 && ok;
	fd = -1;
	/* rename is atomic: a run that reads meanwhile gets the old file or the new one. */
	if (ok && renameat(dfd, tmp, dfd, name) == 0) {
		rc = 0;
		prune(dfd);
	} else {
		unlinkat(dfd, tmp, 0);
	}
out:
	if (fd >= 0)
		close(fd);
	close(dfd);
	return rc;
}

int cf_scan_cache_store(const char *dir, const struct cf_scan_cache *c)
{
	char name[64];
	size_t len = 0;
	void *buf = cf_scan_cache_serialize(c, cf_scan_clock_offset(), &len);
	if (!buf)
		return -1;
	file_name(c->kind, c->key, name);
	int rc = cf_cache_file_write(dir, name, buf, len);
	free(buf);
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
		s->why = cache_dir ? "no cache directory" : "not used (a run without the sandbox)";
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
	/* R40: what the matches decided by content hold. */
	if (r == 0 && (r = cf_scan_classify(s, cache_dir, rules, out, err)) == 0 && first)
		cf_scan_certs_save(s, cache_dir);
	return r;
}

void cf_scan_state_save(struct cf_scan_state *s, const char *cache_dir)
{
	if (s->cache && s->dirty && cache_dir && cf_scan_cache_store(cache_dir, s->cache) == 0)
		s->dirty = false;
	cf_scan_certs_save(s, cache_dir);
}

void cf_scan_state_release(struct cf_scan_state *s)
{
	cf_scan_cache_free(s->cache);
	cf_cert_cache_free(s->certs);
	memset(s, 0, sizeof(*s));
}
