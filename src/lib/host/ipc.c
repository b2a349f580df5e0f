/* SPDX-License-Identifier: MIT */
/*
 * The host's IPC endpoints (SPEC 3.4, R29).  A read-only mount does not stop connect() on a
 * unix socket or open() of a FIFO for writing, and every socket a host daemon has bound is a
 * door: a root-only daemon socket under /run (the system bus, systemd, containerd), an
 * ssh-agent at a non-standard path such as ~/.1password/agent.sock.  So confine hides what the
 * host has bound instead of a list of known names:
 *  - every pathname socket of /proc/net/unix (the caller's network namespace: the sockets
 *    bound by the processes that share it, wherever they live in the file system; the
 *    directory resolved, and only where a socket is there in this mount namespace);
 *  - every socket and FIFO below /run and /var/run (a socket bound in another network
 *    namespace, a FIFO such as /run/initctl).
 * Outside the workspace only (the command's own area), never below /tmp (private in the
 * sandbox), /proc, /sys or /dev (the sandbox's own), nor below `skip` (the runtime directory,
 * hidden as a whole already).  Touches the OS.
 *
 * The walk of /run is incremental (R32, host/scan_cache.h): every directory it reads leaves a
 * record (identity, timestamps, the sockets, FIFOs and subdirectories in it), and a later
 * sweep reads only the directories whose record no longer holds, one fstatat for each of the
 * others.  The post-run sweep starts from the launch sweep; the launch sweep from the cache
 * file of the previous run.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/ipc.h"
#include "host/scan.h"
#include "host/scan_cache.h"
#include "host/facts.h"
#include "util/util.h"

/* The walk of /run is bounded: a hostile or huge tree cannot make every launch slow. */
#define RUN_MAX_DEPTH 8
#define RUN_MAX_ENTRIES 20000

struct sweep {
	const char *workspace, *skip;
	struct cf_strv *out;
	size_t entries;
	bool oom;
	/* the records (scan_cache.h): of the previous sweep (may be NULL), and of this one */
	const struct cf_scan_cache *prev;
	struct cf_scan_cache *next;
	int rootfd;	   /* the root being walked */
	size_t rootlen;	   /* of its path */
	size_t read, kept; /* directories read, and reused */
	/* the parent directories of bound sockets canonicalised so far (/proc/net/unix lists
	 * them in no order), and their results: NULL when gone or elsewhere */
	struct parent {
		char *dir, *real;
	} * parents;
	size_t n_parents;
};

#define PARENTS_MAX 4096 /* distinct directories remembered; beyond, each is resolved again */

static bool excluded(const struct sweep *s, const char *path)
{
	static const char *const own[] = {"/tmp", "/proc", "/sys", "/dev"};
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (cf_path_within(path, own[i]))
			return true;
	return cf_path_within(path, s->workspace) || (s->skip && cf_path_within(path, s->skip));
}

static void add(struct sweep *s, const char *path)
{
	if (!excluded(s, path) && cf_strv_add(s->out, path) < 0)
		s->oom = true;
}

/* The canonical form of directory `dir` (dl bytes), resolved once per sweep (beyond
 * PARENTS_MAX directories, into buf); NULL when it is gone or in another mount namespace (*oom
 * on allocation failure). */
static const char *parent_real(struct sweep *s, const char *dir, size_t dl, char buf[PATH_MAX],
			       bool *oom)
{
	for (size_t i = 0; i < s->n_parents; i++)
		if (strlen(s->parents[i].dir) == dl && !memcmp(s->parents[i].dir, dir, dl))
			return s->parents[i].real;
	char *d = cf_strndup(dl ? dir : "/", dl ? dl : 1);
	if (!d) {
		*oom = true;
		return NULL;
	}
	char *real = realpath(d, NULL);
	if (s->n_parents < PARENTS_MAX && s->n_parents % 16 == 0) {
		struct parent *np = realloc(s->parents, (s->n_parents + 16) * sizeof(*np));
		if (np)
			s->parents = np;
		else
			*oom = true;
	}
	if (!*oom && s->n_parents < PARENTS_MAX) {
		s->parents[s->n_parents++] = (struct parent){d, real};
		return real;
	}
	/* Not remembered: the caller's buffer. */
	snprintf(buf, PATH_MAX, "%s", real ? real : "");
	free(d);
	free(real);
	return buf[0] && !*oom ? buf : NULL;
}

/* A path as /proc/net/unix names it is what the binder passed to bind(): its directory may
 * have been reached through a symlink (/var/run -> /run).  The directory is resolved (once per
 * directory and sweep: sockets cluster, in no order), the name is kept. */
static void add_bound(struct sweep *s, const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash || !slash[1])
		return;
	bool oom = false;
	char buf[PATH_MAX];
	const char *real = parent_real(s, path, (size_t)(slash - path), buf, &oom);
	if (oom)
		s->oom = true;
	if (!real)
		return; /* gone, or in another mount namespace: nothing to hide here */
	/* Only a socket that is there: /proc/net/unix also lists one unlinked after bind, and
	 * one bound in another mount namespace that shares this network namespace (a container,
	 * a parallel run): a path that names nothing here.  Counted as there at launch, it would
	 * hide from the post-run sweep the socket another process binds at that path meanwhile. */
	char *full = cf_path_join(real, slash + 1);
	if (!full) {
		s->oom = true;
		return;
	}
	struct stat st;
	if (!excluded(s, full) && lstat(full, &st) == 0 && S_ISSOCK(st.st_mode))
		add(s, full);
	free(full);
}

/* /proc/net/unix: "Num RefCount Protocol Flags Type St Inode Path"; the path, when there is
 * one, is the eighth field and runs to the end of the line.  Abstract names start with '@'
 * (Landlock scopes those, SPEC 3). */
static int read_proc_net_unix(struct sweep *s, struct confine_error *err)
{
	int fd = open("/proc/net/unix", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0
				       : cf_err_os(err, CONFINE_E_OS, "cannot list host sockets",
						   "/proc/net/unix", "open", errno);
	struct cf_buf b;
	cf_buf_init(&b);
	char chunk[16384];
	ssize_t k;
	while ((k = read(fd, chunk, sizeof(chunk))) > 0)
		cf_buf_addn(&b, chunk, (size_t)k);
	int e = errno;
	close(fd);
	if (k < 0) {
		cf_buf_release(&b);
		return cf_err_os(err, CONFINE_E_OS, "cannot list host sockets", "/proc/net/unix",
				 "read", e);
	}
	if (b.oom) {
		cf_buf_release(&b);
		return cf_nomem(err);
	}
	char *save = NULL;
	bool header = true;
	for (char *line = b.s ? strtok_r(b.s, "\n", &save) : NULL; line && !s->oom;
	     line = strtok_r(NULL, "\n", &save)) {
		if (header) {
			header = false;
			continue;
		}
		char *p = line;
		for (int field = 0; field < 7 && p; field++) {
			p = strchr(p, ' ');
			while (p && *p == ' ')
				p++;
		}
		if (p && p[0] == '/')
			add_bound(s, p);
	}
	cf_buf_release(&b);
	return s->oom ? cf_nomem(err) : 0;
}

/* path relative to the root being walked ("" for the root). */
static const char *rel_of(const struct sweep *s, const char *path)
{
	const char *r = path + s->rootlen;
	while (*r == '/')
		r++;
	return r;
}

/* The directory `path`: relative to its open parent pfd (name), or to the root. */
static int open_at(const struct sweep *s, int pfd, const char *name, const char *path)
{
	const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	if (pfd >= 0)
		return openat(pfd, name, flags);
	const char *rel = rel_of(s, path);
	return *rel ? openat(s->rootfd, rel, flags) : fcntl(s->rootfd, F_DUPFD_CLOEXEC, 0);
}

static int stat_at(const struct sweep *s, int pfd, const char *name, const char *path,
		   struct stat *st)
{
	if (pfd >= 0)
		return fstatat(pfd, name, st, AT_SYMLINK_NOFOLLOW);
	const char *rel = rel_of(s, path);
	return *rel ? fstatat(s->rootfd, rel, st, AT_SYMLINK_NOFOLLOW) : fstat(s->rootfd, st);
}

static uint32_t visit(struct sweep *s, int pfd, const char *name, char *path, size_t len, int depth,
		      uint32_t old);

/* The subdirectories among the entries of record idx (the directory `path`, open at fd or
 * -1 when its listing was reused). */
static void descend(struct sweep *s, int fd, char *path, size_t len, int depth, uint32_t idx,
		    uint32_t old)
{
	struct cf_scan_cache *c = s->next;
	uint32_t first = c->dirs[idx].first, n = c->dirs[idx].n;
	for (uint32_t i = 0; i < n && !s->oom; i++) {
		const struct cf_scan_kid k = c->kids[first + i];
		if (k.kind != CF_KIND_DIR || !(k.flags & CF_SCAN_KID_DIVE) ||
		    len + 1 + k.len >= PATH_MAX)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, c->names + k.name, k.len);
		path[len + 1 + k.len] = '\0';
		uint32_t was = s->prev && old != CF_SCAN_NONE
				   ? cf_scan_rec_child(s->prev, old, path + len + 1, k.len)
				   : CF_SCAN_NONE;
		uint32_t made = visit(s, fd, path + len + 1, path, len + 1 + k.len, depth + 1, was);
		s->next->kids[first + i].dir = made;
	}
	path[len] = '\0';
}

/* What a reused listing says, again: its endpoints, and its subdirectories walked. */
static uint32_t reuse(struct sweep *s, char *path, size_t len, int depth, uint32_t old)
{
	const struct cf_scan_cache *p = s->prev;
	const struct cf_scan_dir od = p->dirs[old];
	uint32_t idx = cf_scan_rec_dir(s->next, &od);
	if (idx == CF_SCAN_NONE) {
		s->oom = true;
		return CF_SCAN_NONE;
	}
	for (uint32_t i = 0; i < od.n && !s->oom && s->entries < RUN_MAX_ENTRIES; i++) {
		const struct cf_scan_kid *k = &p->kids[od.first + i];
		s->entries++;
		if (len + 1 + k->len >= PATH_MAX)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, p->names + k->name, k->len);
		path[len + 1 + k->len] = '\0';
		if (k->kind == CF_KIND_OTHER)
			add(s, path);
		if (!cf_scan_rec_kid(s->next, p->names + k->name, k->len, (enum cf_kind)k->kind))
			s->oom = true;
		else
			s->next->kids[s->next->nkids - 1].flags = k->flags;
	}
	path[len] = '\0';
	s->next->dirs[idx].n = (uint32_t)(s->next->nkids - s->next->dirs[idx].first);
	s->kept++;
	descend(s, -1, path, len, depth, idx, old);
	return idx;
}

/* Reads the directory `path` and records its endpoints and the subdirectories to walk. */
static uint32_t read_dir(struct sweep *s, int pfd, const char *name, char *path, size_t len,
			 int depth, uint32_t old)
{
	struct stat st;
	int fd = open_at(s, pfd, name, path);
	if (fd < 0)
		return CF_SCAN_NONE;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return CF_SCAN_NONE;
	}
	struct cf_scan_dir rec;
	cf_scan_dir_init(&rec, &st, cf_scan_fs_trusted(fd));
	uint32_t idx = cf_scan_rec_dir(s->next, &rec);
	DIR *d = idx == CF_SCAN_NONE ? NULL : fdopendir(fd);
	if (!d) {
		s->oom = s->oom || idx == CF_SCAN_NONE;
		close(fd);
		return CF_SCAN_NONE;
	}
	s->read++;
	struct dirent *de;
	while ((de = readdir(d)) && !s->oom && s->entries < RUN_MAX_ENTRIES) {
		s->entries++;
		const char *ename = de->d_name;
		if (ename[0] == '.' && (!ename[1] || (ename[1] == '.' && !ename[2])))
			continue;
		size_t nl = strlen(ename);
		if (len + 1 + nl >= PATH_MAX)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, ename, nl + 1);
		unsigned char t = de->d_type;
		if (t == DT_UNKNOWN) {
			struct stat est;
			if (fstatat(dirfd(d), ename, &est, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			t = S_ISDIR(est.st_mode)    ? DT_DIR
			    : S_ISSOCK(est.st_mode) ? DT_SOCK
			    : S_ISFIFO(est.st_mode) ? DT_FIFO
						    : DT_REG;
		}
		enum cf_kind kind = CF_KIND_MISSING;
		if (t == DT_SOCK || t == DT_FIFO) {
			add(s, path);
			kind = CF_KIND_OTHER;
		} else if (t == DT_DIR && depth < RUN_MAX_DEPTH && !excluded(s, path)) {
			kind = CF_KIND_DIR;
		}
		if (kind != CF_KIND_MISSING && !cf_scan_rec_kid(s->next, ename, nl, kind))
			s->oom = true;
		else if (kind == CF_KIND_DIR)
			s->next->kids[s->next->nkids - 1].flags = CF_SCAN_KID_DIVE;
	}
	path[len] = '\0';
	s->next->dirs[idx].n = (uint32_t)(s->next->nkids - s->next->dirs[idx].first);
	cf_scan_rec_sort(s->next, idx);
	descend(s, dirfd(d), path, len, depth, idx, old);
	closedir(d);
	return idx;
}

/* The directory `path` (name relative to pfd, or see open_at): from its old record when that
 * still holds, else read.  Returns its new record. */
static uint32_t visit(struct sweep *s, int pfd, const char *name, char *path, size_t len, int depth,
		      uint32_t old)
{
	struct stat st;
	if (s->prev && old != CF_SCAN_NONE && stat_at(s, pfd, name, path, &st) == 0 &&
	    cf_scan_dir_unchanged(&s->prev->dirs[old], &st))
		return reuse(s, path, len, depth, old);
	return read_dir(s, pfd, name, path, len, depth, old);
}

static int walk_root(struct sweep *s, const char *root)
{
	char real[PATH_MAX];
	if (!realpath(root, real))
		return 0;
	int fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s", real);
	s->rootfd = fd;
	s->rootlen = strlen(path);
	uint32_t old = CF_SCAN_NONE;
	for (size_t i = 0; s->prev && i < s->prev->nroots && old == CF_SCAN_NONE; i++) {
		const struct cf_scan_root *r = &s->prev->roots[i];
		if (r->len == s->rootlen && !memcmp(s->prev->names + r->name, path, r->len))
			old = r->dir;
	}
	uint32_t made = visit(s, -1, NULL, path, s->rootlen, 0, old);
	close(fd);
	s->rootfd = -1;
	if (made != CF_SCAN_NONE && !cf_scan_rec_root(s->next, real, strlen(real), made))
		s->oom = true;
	return 0;
}

static int cmp_path(const void *a, const void *b)
{
	return cf_path_cmp(*(char *const *)a, *(char *const *)b);
}

/* Whether the directory holds nothing but sockets and FIFOs (and at least one entry). */
static bool only_endpoints(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return false;
	}
	bool only = true;
	size_t n = 0;
	struct dirent *de;
	while (only && (de = readdir(d))) {
		const char *name = de->d_name;
		if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))
			continue;
		unsigned char t = de->d_type;
		if (t == DT_UNKNOWN) {
			struct stat st;
			t = fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) < 0 ? DT_UNKNOWN
			    : S_ISSOCK(st.st_mode)				  ? DT_SOCK
			    : S_ISFIFO(st.st_mode)				  ? DT_FIFO
										  : DT_REG;
		}
		only = t == DT_SOCK || t == DT_FIFO;
		n++;
	}
	closedir(d);
	return only && n > 0;
}

int cf_host_ipc_groups(const struct cf_strv *endpoints, struct cf_strv *out,
		       struct confine_error *err)
{
	for (size_t i = 0; i < endpoints->n;) {
		const char *slash = strrchr(endpoints->v[i], '/');
		size_t dl = slash ? (size_t)(slash - endpoints->v[i]) : 0;
		size_t j = i + 1;
		/* Sorted parent first: the endpoints of one directory are contiguous. */
		while (j < endpoints->n && !strncmp(endpoints->v[j], endpoints->v[i], dl) &&
		       endpoints->v[j][dl] == '/' && !strchr(endpoints->v[j] + dl + 1, '/'))
			j++;
		if (j - i >= 2 && dl > 0) {
			char *dir = cf_strndup(endpoints->v[i], dl);
			if (!dir)
				return cf_nomem(err);
			/* Never a root of its own: /run and /var/run hold more than sockets. */
			if (strcmp(dir, "/run") && strcmp(dir, "/var/run") && only_endpoints(dir)) {
				if (cf_strv_take(out, dir) < 0)
					return cf_nomem(err);
			} else {
				free(dir);
			}
		}
		i = j;
	}
	return 0;
}

/* The key of a sweep's records: what decides which directories it walks. */
static void sweep_key(const char *workspace, const char *skip, char key[65])
{
	struct cf_ruleset rs = {0};
	/* The exclusions, as the patterns of a "scan": the same key function, another prefix. */
	const char *parts[] = {"ipc sweep 2 /run /var/run", workspace ? workspace : "",
			       skip ? skip : ""};
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		struct cf_rule r = {
		    .pattern = (char *)parts[i], .path = (char *)parts[i], .glob = true};
		if (cf_ruleset_add(&rs, &r, NULL) < 0)
			break;
	}
	cf_scan_cache_key(&rs, key);
	cf_ruleset_release(&rs);
}

static int sweep(struct sweep *s, struct confine_error *err)
{
	int r = read_proc_net_unix(s, err);
	if (r < 0)
		return r;
	char a[PATH_MAX], b[PATH_MAX];
	walk_root(s, "/run");
	/* /var/run is a symlink to /run almost everywhere: then one walk covers both. */
	if (realpath("/var/run", a) && (!realpath("/run", b) || strcmp(a, b)))
		walk_root(s, "/var/run");
	if (s->oom)
		return cf_nomem(err);
	struct cf_strv *out = s->out;
	/* Sorted and unique: a listening socket appears once per connection in /proc/net/unix. */
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(out->v[0]), cmp_path);
	size_t w = 0;
	for (size_t i = 0; i < out->n; i++) {
		if (w && !strcmp(out->v[w - 1], out->v[i])) {
			free(out->v[i]);
			continue;
		}
		out->v[w++] = out->v[i];
	}
	out->n = w;
	return 0;
}

int cf_host_ipc_endpoints(const char *workspace, const char *skip, struct cf_strv *out,
			  struct confine_error *err)
{
	struct cf_scan_state st = {0};
	int r = cf_host_ipc_endpoints_cached(&st, NULL, workspace, skip, out, err);
	cf_scan_state_release(&st);
	return r;
}

int cf_host_ipc_endpoints_cached(struct cf_scan_state *st, const char *cache_dir,
				 const char *workspace, const char *skip, struct cf_strv *out,
				 struct confine_error *err)
{
	char key[65];
	sweep_key(workspace, skip, key);
	if (!st->loaded) {
		st->loaded = true;
		st->why = "no cache directory";
		if (cache_dir &&
		    cf_scan_cache_load_at(cache_dir, false, "ipc", key, &st->cache, &st->why) == 0)
			st->why = NULL;
	}
	struct sweep s = {.workspace = workspace,
			  .skip = skip,
			  .out = out,
			  .prev = st->cache && !strcmp(st->cache->key, key) ? st->cache : NULL,
			  .rootfd = -1};
	if (!(s.next = calloc(1, sizeof(*s.next))))
		return cf_nomem(err);
	memcpy(s.next->key, key, sizeof(key));
	snprintf(s.next->kind, sizeof(s.next->kind), "ipc");
	int r = sweep(&s, err);
	for (size_t i = 0; i < s.n_parents; i++) {
		free(s.parents[i].dir);
		free(s.parents[i].real);
	}
	free(s.parents);
	bool changed = !s.prev || s.read > 0 || s.next->ndirs != s.prev->ndirs ||
		       s.next->nroots != s.prev->nroots;
	st->stats = (struct cf_scan_stats){.dirs_read = s.read, .dirs_reused = s.kept};
	cf_scan_cache_free(st->cache);
	st->cache = NULL;
	/* A sweep cut short by its budget leaves no records: the next one walks in full. */
	if (r == 0 && s.entries < RUN_MAX_ENTRIES &&
	    cf_scan_cache_bytes(s.next) < CF_SCAN_CACHE_MAX_BYTES - 4096) {
		st->cache = s.next;
		s.next = NULL;
	}
	cf_scan_cache_free(s.next);
	/* Stored by cf_scan_state_save after a sandboxed run only (a launch sweep may be of a run
	 * that turns out to be an escalation, which leaves no state behind). */
	st->dirty = st->dirty || changed;
	return r;
}
