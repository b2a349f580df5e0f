/* SPDX-License-Identifier: MIT */
/*
 * The stores of the tool caches (R39) after a run: their size and bound, and their removal
 * (toolcache.h).  What a store holds was written by sandboxed commands: it is walked and
 * removed without following a symlink anywhere (openat O_NOFOLLOW, fstatat
 * AT_SYMLINK_NOFOLLOW, unlinkat), with a bounded depth (a deeper tree counts as over the bound
 * and is removed by moving its deep part up first), and each store's record (`meta`) is
 * confine's own, in a directory the sandbox cannot write.
 */
#include <dirent.h>
#include <signal.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host/toolcache.h"
#include "plan/bwrap/plan.h"
#include "util/util.h"

#define MAX_DEPTH 64
#define MAX_ENTRIES 4000000ULL
#define MEASURE_EVERY 60 /* seconds */
#define OVER UINT64_MAX

/* Bytes of the tree at dfd/name (its blocks), OVER past the depth or entry bounds. */
static uint64_t tree_bytes(int dfd, const char *name, int depth, uint64_t *entries)
{
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (++*entries > MAX_ENTRIES)
		return OVER;
	uint64_t sum = (uint64_t)st.st_blocks * 512;
	if (!S_ISDIR(st.st_mode))
		return sum;
	if (depth >= MAX_DEPTH)
		return OVER;
	/* An unreadable directory (an overlay's work directory, 0000) holds a run's few
	 * temporary files: counted as what it is. */
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return sum;
	}
	struct dirent *e;
	while ((e = readdir(d)) && sum != OVER) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		uint64_t b = tree_bytes(dirfd(d), e->d_name, depth + 1, entries);
		sum = b == OVER || sum + b < sum ? OVER : sum + b;
	}
	closedir(d);
	return sum;
}

#define DEEP_PREFIX ".deep."

/*
 * Removes dfd/name and everything below it.  A directory is made accessible (0700) before it
 * is read (an overlay's work directory is 0000).  Past MAX_DEPTH the deep directory is moved
 * up into `top` (the directory the removal started in) under a name of its own, and
 * remove_all takes it from there: no tree is too deep to remove, and neither the stack nor the
 * descriptors grow with it.  Returns 0 or -1.
 */
static int remove_tree(int top, int dfd, const char *name, int depth)
{
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dfd, name, 0) == 0 || errno == ENOENT ? 0 : -1;
	if (depth >= MAX_DEPTH) {
		char deep[64];
		static unsigned long seq;
		snprintf(deep, sizeof(deep), DEEP_PREFIX "%ld.%lu", (long)getpid(), ++seq);
		return renameat(dfd, name, top, deep);
	}
	/* Best effort: the open below says whether it was needed (the result checked for
	 * _FORTIFY_SOURCE's warn_unused_result). */
	if ((st.st_mode & S_IRWXU) != S_IRWXU && fchmodat(dfd, name, 0700, 0) < 0)
		errno = 0;
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	int rc = 0;
	struct dirent *e;
	/* Entries removed while reading: read again, a few times, until it is empty. */
	bool again = true;
	for (int pass = 0; again && rc == 0 && pass < 16; pass++) {
		again = false;
		rewinddir(d);
		while ((e = readdir(d)) && rc == 0) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			rc = remove_tree(top, dirfd(d), e->d_name, depth + 1);
			again = true;
		}
	}
	closedir(d);
	if (rc == 0 && unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		rc = -1;
	return rc;
}

/* remove_tree, then the deep parts it moved up into top, until none is left. */
static int remove_all(int top, const char *name)
{
	int rc = remove_tree(top, top, name, 0);
	for (bool found = true; found && rc == 0;) {
		found = false;
		int fd = fcntl(top, F_DUPFD_CLOEXEC, 3);
		DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
		if (!d) {
			if (fd >= 0)
				close(fd);
			return -1;
		}
		char deep[256] = "";
		struct dirent *e;
		while ((e = readdir(d)))
			if (!strncmp(e->d_name, DEEP_PREFIX, strlen(DEEP_PREFIX))) {
				snprintf(deep, sizeof(deep), "%s", e->d_name);
				break;
			}
		closedir(d);
		if (deep[0]) {
			found = true;
			rc = remove_tree(top, top, deep, 0);
		}
	}
	return rc;
}

/* Opens a directory of confine's state: no symlink on the way, the caller's, nobody else's to
 * write. */
static int open_own_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* meta: "workspace\tPATH\nbytes\tN\nused\tT\nmeasured\tT\n", written by confine only. */
struct meta {
	char workspace[4096];
	uint64_t bytes;
	int64_t used, measured;
};

static void read_meta(int sfd, struct meta *m)
{
	memset(m, 0, sizeof(*m));
	int fd = openat(sfd, "meta", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char buf[8192];
	if (fd < 0)
		return;
	ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid()
			? read(fd, buf, sizeof(buf) - 1)
			: -1;
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (char *line = buf, *nl; line && *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		char *tab = strchr(line, '\t');
		if (!tab)
			continue;
		*tab++ = '\0';
		if (!strcmp(line, "workspace"))
			snprintf(m->workspace, sizeof(m->workspace), "%s", tab);
		else if (!strcmp(line, "bytes"))
			m->bytes = strtoull(tab, NULL, 10);
		else if (!strcmp(line, "used"))
			m->used = strtoll(tab, NULL, 10);
		else if (!strcmp(line, "measured"))
			m->measured = strtoll(tab, NULL, 10);
	}
}

static void write_meta(int sfd, const struct meta *m)
{
	char tmp[64], buf[8192];
	snprintf(tmp, sizeof(tmp), ".meta.%ld", (long)getpid());
	int n = snprintf(buf, sizeof(buf),
			 "workspace\t%s\nbytes\t%llu\nused\t%lld\nmeasured\t%lld\n", m->workspace,
			 (unsigned long long)m->bytes, (long long)m->used, (long long)m->measured);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return;
	int fd = openat(sfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	bool ok = write(fd, buf, (size_t)n) == n;
	ok = close(fd) == 0 && ok;
	if (!ok || renameat(sfd, tmp, sfd, "meta") < 0)
		unlinkat(sfd, tmp, 0);
}

/* The store's lock: every run that uses a store holds it shared (cf_cache_lock_store); what
 * removes a store's data holds it exclusively, so that no layer of a mounted overlay and no
 * directory a running tool writes is removed under it.  The descriptor, or -1 (with errno
 * EWOULDBLOCK while a run uses the store). */
static int lock_store(int sfd, int how)
{
	int fd = openat(sfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0 && flock(fd, how | LOCK_NB) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		fd = -1;
	}
	return fd;
}

int cf_cache_lock_store(const char *store)
{
	int sfd = open(store, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0)
		return -1;
	/* Shared: runs of the workspace share it, and wait for nobody (a removal holds it only
	 * while it removes). */
	int fd = openat(sfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	close(sfd);
	if (fd >= 0 && flock(fd, LOCK_SH) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Removes the data of a store (its "o" and "r"), or the store itself; -1 with EBUSY while a
 * run uses it. */
static int clear_store(int cfd, const char *name, bool whole)
{
	int sfd = openat(cfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0)
		return errno == ENOENT ? 0 : -1;
	int lfd = lock_store(sfd, LOCK_EX), rc = -1;
	if (lfd < 0) {
		close(sfd);
		errno = errno == EWOULDBLOCK ? EBUSY : errno;
		return -1;
	}
	rc = whole ? remove_all(cfd, name) : remove_all(sfd, "o") | remove_all(sfd, "r");
	close(lfd);
	close(sfd);
	return rc;
}

int cf_cache_remove_at(const char *dir, const char *name)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	/* name may have a directory part ("work/incompat"), opened without a symlink. */
	const char *slash = strrchr(name, '/');
	int pfd = dfd;
	if (slash) {
		char *sub = cf_strndup(name, (size_t)(slash - name));
		pfd = sub ? openat(dfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
		/* An overlay's "work" is 0000: made accessible (the overlay makes it again). */
		struct stat st;
		if (pfd < 0 && errno == EACCES &&
		    fstatat(dfd, sub, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
		    fchmodat(dfd, sub, 0700, 0) == 0)
			pfd = openat(dfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		free(sub);
		name = slash + 1;
	}
	int rc = pfd < 0 ? (errno == ENOENT ? 0 : -1) : remove_all(pfd, name);
	if (pfd >= 0 && pfd != dfd)
		close(pfd);
	close(dfd);
	return rc;
}

struct store_use {
	char name[64];
	uint64_t bytes;
	int64_t used;
};

/* Keeps every store together within the bound: the least recently used others first. */
static void trim(int cfd, const char *self, uint64_t bound, char *trimmed, size_t cap)
{
	int dfd = fcntl(cfd, F_DUPFD_CLOEXEC, 3);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return;
	}
	struct store_use *v = NULL;
	size_t n = 0;
	uint64_t total = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof(v[0].name))
			continue;
		int sfd = openat(cfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sfd < 0)
			continue;
		struct meta m;
		read_meta(sfd, &m);
		close(sfd);
		struct store_use *nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		snprintf(v[n].name, sizeof(v[n].name), "%s", e->d_name);
		v[n].bytes = m.bytes;
		v[n].used = m.used;
		total = total + m.bytes < total ? OVER : total + m.bytes;
		n++;
	}
	closedir(d);
	while (total > bound) {
		size_t oldest = n;
		for (size_t i = 0; i < n; i++)
			if (strcmp(v[i].name, self) && v[i].bytes &&
			    (oldest == n || v[i].used < v[oldest].used))
				oldest = i;
		bool own = oldest == n;
		if (own) {
			/* Only this workspace's is left over the bound: its data goes. */
			for (size_t i = 0; i < n && own; i++)
				if (!strcmp(v[i].name, self))
					oldest = i;
			if (oldest == n || !v[oldest].bytes)
				break;
		}
		if (clear_store(cfd, v[oldest].name, !own) == 0 && trimmed && cap) {
			size_t len = strlen(trimmed);
			snprintf(trimmed + len, cap - len, "%s%s", len ? " " : "", v[oldest].name);
		}
		total -= v[oldest].bytes > total ? total : v[oldest].bytes;
		v[oldest].bytes = 0;
		if (own) {
			int sfd =
			    openat(cfd, self, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sfd >= 0) {
				struct meta m;
				read_meta(sfd, &m);
				m.bytes = 0;
				write_meta(sfd, &m);
				close(sfd);
			}
		}
	}
	free(v);
}

/* Makes the directory `name` in dfd, and every directory below it (a few levels at most),
 * 0700 where it was less for its owner, the caller. */
static void own_dirs(int dfd, const char *name, int depth)
{
	struct stat st;
	if (depth > 4 || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid())
		return;
	if ((st.st_mode & 0700) != 0700 && fchmodat(dfd, name, (st.st_mode & 07777) | 0700, 0) < 0)
		return;
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			own_dirs(dirfd(d), e->d_name, depth + 1);
	closedir(d);
}

/*
 * The kernel makes an overlay's "WORKDIR/work" (and "work/incompat/volatile" of a volatile
 * overlay) mode 0000 at each mount.  Once the run is over, this run's slot is made the
 * caller's again in every cache of the store, so that they can remove the store like any
 * directory of theirs (rm -rf stopped at EACCES there) even without 'confine cache clear'.
 * The next mount makes them 0000 again.
 */
static void release_work(int sfd, const char *slot)
{
	int ofd = slot && slot[0]
		      ? openat(sfd, "o", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
		      : -1;
	DIR *d = ofd >= 0 ? fdopendir(ofd) : NULL;
	if (!d) {
		if (ofd >= 0)
			close(ofd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		int cfd =
		    openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int wfd = cfd >= 0
			      ? openat(cfd, slot, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			      : -1;
		if (wfd >= 0)
			own_dirs(wfd, "work", 0);
		if (wfd >= 0)
			close(wfd);
		if (cfd >= 0)
			close(cfd);
	}
	closedir(d);
}

void cf_cache_finish(const struct cf_plan *plan, const char *work, const char *workspace,
		     uint64_t bound, char *trimmed, size_t cap)
{
	if (trimmed && cap)
		trimmed[0] = '\0';
	if (!plan->cache_store)
		return;
	char *caches = cf_path_dirname(plan->cache_store);
	const char *self = strrchr(plan->cache_store, '/');
	int cfd = caches ? open_own_dir(caches) : -1;
	int sfd = cfd >= 0 && self
		      ? openat(cfd, self + 1, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
		      : -1;
	free(caches);
	if (sfd < 0)
		goto out;
	release_work(sfd, work);
	struct meta m, was;
	read_meta(sfd, &m);
	was = m;
	time_t now = time(NULL);
	snprintf(m.workspace, sizeof(m.workspace), "%s", workspace);
	m.used = (int64_t)now;
	/* Measured at most once a minute while the store is well within its bound: a burst of
	 * short commands does not walk a large cache each time.  Past half the bound, after
	 * every run. */
	if (now - m.measured >= MEASURE_EVERY || now < m.measured || m.bytes >= bound / 2) {
		uint64_t entries = 0;
		uint64_t o = tree_bytes(sfd, "o", 0, &entries),
			 r = tree_bytes(sfd, "r", 0, &entries);
		m.bytes = o == OVER || r == OVER || o + r < o ? OVER : o + r;
		m.measured = (int64_t)now;
	}
	/* Rewritten only when more than its use time moved, or that by a minute or more: the
	 * order of trimming needs no finer time, and every rewrite is a new file renamed into
	 * place, which ext4 writes back at once. */
	if (m.bytes != was.bytes || m.measured != was.measured ||
	    strcmp(m.workspace, was.workspace) || m.used - was.used >= MEASURE_EVERY ||
	    m.used < was.used)
		write_meta(sfd, &m);
	trim(cfd, self + 1, bound, trimmed, cap);
out:
	if (sfd >= 0)
		close(sfd);
	if (cfd >= 0)
		close(cfd);
}

int cf_cache_stores(const char *state, struct cf_cache_store_info **out, size_t *n,
		    struct confine_error *err)
{
	*out = NULL;
	*n = 0;
	char *caches = cf_path_join(state, "caches");
	if (!caches)
		return cf_nomem(err);
	int cfd = open_own_dir(caches);
	DIR *d = cfd >= 0 ? fdopendir(cfd) : NULL;
	if (!d) {
		if (cfd >= 0)
			close(cfd);
		free(caches);
		return 0;
	}
	struct dirent *e;
	int r = 0;
	while ((e = readdir(d)) && r == 0) {
		if (e->d_name[0] == '.')
			continue;
		int sfd =
		    openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sfd < 0)
			continue;
		struct meta m;
		read_meta(sfd, &m);
		close(sfd);
		struct cf_cache_store_info *v = realloc(*out, (*n + 1) * sizeof(*v));
		if (!v) {
			r = cf_nomem(err);
			break;
		}
		*out = v;
		v[*n] = (struct cf_cache_store_info){.dir = cf_path_join(caches, e->d_name),
						     .workspace = cf_strdup(m.workspace),
						     .bytes = m.bytes,
						     .used = m.used};
		if (!v[*n].dir || !v[*n].workspace)
			r = cf_nomem(err);
		(*n)++;
	}
	closedir(d);
	free(caches);
	return r;
}

void cf_cache_stores_free(struct cf_cache_store_info *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].dir);
		free(v[i].workspace);
	}
	free(v);
}

int cf_cache_store_remove(const char *state, const char *dir, struct confine_error *err)
{
	char *caches = cf_path_join(state, "caches");
	char *parent = cf_path_dirname(dir);
	const char *name = strrchr(dir, '/');
	if (!caches || !parent) {
		free(caches);
		free(parent);
		return cf_nomem(err);
	}
	int r = 0;
	if (strcmp(parent, caches) || !name || name[1] == '.' || !name[1]) {
		r = cf_err(err, CONFINE_E_INVALID, "cannot remove the tool caches", dir,
			   "it is not a store of confine's");
		goto out;
	}
	int cfd = open_own_dir(caches);
	if (cfd < 0) {
		r = errno == ENOENT ? 0
				    : cf_err_os(err, CONFINE_E_OS, "cannot remove the tool caches",
						caches, "open", errno ? errno : EPERM);
		goto out;
	}
	if (clear_store(cfd, name + 1, true) < 0) {
		r = cf_err_os(err, CONFINE_E_OS, "cannot remove the tool caches", dir,
			      errno == EBUSY ? "flock" : "unlinkat", errno);
		if (errno == EBUSY)
			cf_err_hint(err, "a command of that workspace is running under confine; "
					 "clear it when it has ended");
	}
	close(cfd);
out:
	free(caches);
	free(parent);
	return r;
}
