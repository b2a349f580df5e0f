/* SPDX-License-Identifier: MIT */
/*
 * A command's paths (R36; src/helper/guard.h and exec/linux/opener.h say why a thread of
 * confine's opens for the command): a path of the command's resolved as the command would
 * resolve it, the decision on the object found, and the open.
 *
 * Resolution.  The guard is pid 1 of the same sandbox (bwrap) or a thread of confine inside a
 * Landlock domain above the command's (landlock): the same root, the same mounts, the same
 * credentials.  What differs is procfs: "self" and "thread-self" name the process that
 * resolves, and a magic link (/proc/PID/fd/N, cwd, root, exe, ...) is followed with the
 * permissions of the one who follows it.  So a path is first resolved in one call, refusing
 * magic links (openat2 RESOLVE_NO_MAGICLINKS); when that ends on procfs, or meets a magic
 * link, it is walked again one component at a time (walk): plain symlinks read and followed
 * here, "self" and "thread-self" at the root of /proc replaced by the command's, a magic link
 * opened by the kernel (which lands on the command's own object), and nothing under the
 * guard's own /proc/PID reached (its memory, its descriptors: the seccomp listener among
 * them), but for a few files anyone may read.  A result that is not on procfs and met no magic
 * link is the command's own result: leaving /proc by ".." goes to the same place from every
 * /proc/PID.  A failing one-call resolution of a path that may go through procfs is walked
 * again too, so that the command gets its own answer; any other failure is its own already.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include "exec/linux/cmdpath.h"
#include "exec/linux/pidfd.h"

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif
#include "util/linux_abi.h"
#define MAX_LINKS 40

int cf_guard_read_str(pid_t tid, uint64_t addr, char *buf, size_t cap)
{
	size_t n = 0;
	if (!addr)
		return -EFAULT;
	while (n < cap) {
		/* Up to the end of the page at hand, so that a string near the end of a mapping
		 * is read without touching the next page. */
		uint64_t at = addr + n;
		size_t chunk = 4096 - (size_t)(at & 4095);
		if (chunk > cap - n)
			chunk = cap - n;
		struct iovec l = {.iov_base = buf + n, .iov_len = chunk};
		struct iovec r = {.iov_base = (void *)(uintptr_t)at, .iov_len = chunk};
		ssize_t k = process_vm_readv(tid, &l, 1, &r, 1, 0);
		if (k <= 0)
			/* EPERM: the command made itself undumpable; refused, never guessed. */
			return k < 0 && errno == EFAULT ? -EFAULT : -EACCES;
		if (memchr(buf + n, '\0', (size_t)k))
			return 0;
		n += (size_t)k;
	}
	return -ENAMETOOLONG;
}

pid_t cf_guard_tgid(const struct cf_guard *g, pid_t tid)
{
	return cf_proc_tgid(g->proc_fd, tid);
}

pid_t cf_guard_tgid_of(const struct cf_guard *g, struct cf_guard_ask *a)
{
	if (!a->tgid)
		a->tgid = cf_guard_tgid(g, a->tid);
	return a->tgid;
}

int cf_guard_pidfd(const struct cf_guard *g, struct cf_guard_ask *a)
{
	return cf_pidfd_of_thread(g->proc_fd, a->tid, &a->tgid);
}

static bool on_procfs(int fd)
{
	struct statfs sf;
	return fstatfs(fd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
}

static bool is_proc_root(const struct cf_guard *g, int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && st.st_dev == g->proc_dev && st.st_ino == g->proc_ino;
}

/* A decimal pid that is one of the guard's own threads. */
static bool guards_pid(const struct cf_guard *g, const char *name)
{
	char *end;
	long pid = strtol(name, &end, 10);
	if (!*name || *end || pid <= 0 || pid > INT32_MAX)
		return false;
	return pid == g->self || cf_guard_tgid(g, (pid_t)pid) == g->self;
}

/*
 * Whether the guard must not go on from fd: it lies in the guard's own /proc/PID (or /proc/TID
 * of one of its threads), or on another procfs than the sandbox's own /proc (a host's procfs
 * mounted elsewhere, a chroot's: its pid directories are those of the host's namespace, which
 * the guard cannot tell from its own) unless under /proc, where only the kernel interfaces the
 * plan makes read-only (/proc/sys, /proc/bus, ...) come from another procfs.
 */
static bool forbidden(const struct cf_guard *g, int fd)
{
	struct statfs sf;
	struct stat st;
	if (fstatfs(fd, &sf) < 0 || fstat(fd, &st) < 0)
		return true;
	if (sf.f_type != PROC_SUPER_MAGIC)
		return false;
	char name[16], path[PATH_MAX];
	snprintf(name, sizeof(name), "%d", fd);
	ssize_t n = readlinkat(g->selffd_fd, name, path, sizeof(path) - 1);
	if (n <= 0)
		return true; /* not known: refused */
	path[n] = '\0';
	if (st.st_dev == g->proc_dev && !strcmp(path, "/proc"))
		return false;
	if (strncmp(path, "/proc/", 6) != 0)
		return true;
	if (st.st_dev != g->proc_dev)
		return false;
	char pid[16];
	size_t k = strspn(path + 6, "0123456789");
	if (!k || k >= sizeof(pid) || (path[6 + k] != '/' && path[6 + k] != '\0'))
		return false;
	memcpy(pid, path + 6, k);
	pid[k] = '\0';
	return guards_pid(g, pid);
}

/* What is left of a path below the guard's own /proc/PID: one file that anyone may read and
 * whose open checks nothing (ps(1) reads them for every process), and nothing after it. */
static bool guard_file_readable(const char *rest)
{
	static const char *const ok[] = {"stat", "status", "cmdline", "comm", "statm"};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strcmp(rest, ok[i]))
			return true;
	return false;
}

/* Replaces buf with head + tail (tail may point into buf). */
static int splice_path(char *buf, size_t cap, const char *head, const char *tail)
{
	char tmp[2 * PATH_MAX];
	int n = snprintf(tmp, sizeof(tmp), "%s%s", head, tail);
	if (n < 0 || (size_t)n >= cap || (size_t)n >= sizeof(tmp))
		return -ENAMETOOLONG;
	memcpy(buf, tmp, (size_t)n + 1);
	return 0;
}

/* At the root of the sandbox's /proc: "self" and "thread-self" become the command's own pid
 * directory in buf (the rest of the path, `next`, kept after it).  0 or -errno. */
static int replace_self(const struct cf_guard *g, struct cf_guard_ask *a, const char *name,
			const char *next, char *buf, size_t cap)
{
	char head[64];
	pid_t tgid = cf_guard_tgid_of(g, a);
	if (tgid <= 0)
		return -ESRCH;
	if (name[0] == 's')
		snprintf(head, sizeof(head), "%d", (int)tgid);
	else
		snprintf(head, sizeof(head), "%d/task/%d", (int)tgid, (int)a->tid);
	return splice_path(buf, cap, head, next);
}

/* A plain symlink `name` in cur: its target put in front of the rest of the path in buf, and
 * cur moved to the root for an absolute one.  0 or -errno. */
static int follow_plain(const struct cf_guard *g, int *cur, const char *name, const char *next,
			char *buf, size_t cap, int *links)
{
	char target[PATH_MAX];
	ssize_t n = readlinkat(*cur, name, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	if (++*links > MAX_LINKS)
		return -ELOOP;
	target[n] = '\0';
	int r = splice_path(buf, cap, target, next);
	if (r < 0 || buf[0] != '/')
		return r;
	int root = fcntl(g->root_fd, F_DUPFD_CLOEXEC, 3);
	if (root < 0)
		return -errno;
	close(*cur);
	*cur = root;
	return 0;
}

/*
 * One component at a time (see the top of this file).  buf holds what is left of the path;
 * cur the directory reached so far, checked at every step (forbidden).
 */
static int walk(const struct cf_guard *g, struct cf_guard_ask *a, int base, bool follow, int *out)
{
	char buf[2 * PATH_MAX];
	int links = 0, r = 0, trusted = 0;
	size_t plen = strlen(a->path);
	if (plen >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, a->path, plen + 1);
	bool must_dir = plen && a->path[plen - 1] == '/';
	int cur = fcntl(buf[0] == '/' ? g->root_fd : base, F_DUPFD_CLOEXEC, 3);
	if (cur < 0)
		return -errno;
	r = forbidden(g, cur) ? -EACCES : 0;
	for (char *p = buf; r == 0;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		size_t len = strcspn(p, "/");
		char name[NAME_MAX + 1];
		if (len > NAME_MAX) {
			r = -ENAMETOOLONG;
			break;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		char *next = p + len;
		const char *q = next + strspn(next, "/");
		bool last = !*q, slash_after = *next == '/', dotdot = !strcmp(name, "..");
		if (!strcmp(name, ".")) {
			p = next;
			continue;
		}
		bool root = !dotdot && is_proc_root(g, cur);
		if (root && (!strcmp(name, "self") || !strcmp(name, "thread-self"))) {
			r = replace_self(g, a, name, next, buf, sizeof(buf));
			p = buf;
			continue;
		}
		if (root && guards_pid(g, name)) {
			if (!guard_file_readable(q)) {
				r = -EACCES;
				break;
			}
			trusted = 2; /* its directory and that one file: not checked again below */
		}
		struct stat st;
		int nfd = -1;
		if (dotdot) {
			nfd = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		} else if (fstatat(cur, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = -errno;
			break;
		} else if (S_ISLNK(st.st_mode) && (!last || follow || slash_after)) {
			if (!on_procfs(cur) || root) {
				r = follow_plain(g, &cur, name, next, buf, sizeof(buf), &links);
				p = buf;
				continue;
			}
			/* A magic link: the kernel jumps to the command's object (checked below).
			 */
			nfd = openat(cur, name, O_PATH | O_CLOEXEC);
		} else {
			nfd = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		}
		if (nfd < 0) {
			r = -errno;
			break;
		}
		close(cur);
		cur = nfd;
		p = next;
		if (trusted ? trusted-- == 0 : forbidden(g, cur))
			r = -EACCES;
	}
	struct stat st;
	if (r == 0 && must_dir && (fstat(cur, &st) < 0 || !S_ISDIR(st.st_mode)))
		r = -ENOTDIR;
	if (r < 0) {
		close(cur);
		return r;
	}
	*out = cur;
	return 0;
}

int cf_guard_base(const struct cf_guard *g, struct cf_guard_ask *a)
{
	int fd;
	if (a->path[0] == '/')
		return g->root_fd;
	if (a->dirfd == AT_FDCWD) {
		/* The thread's own working directory (a magic link: the guard may trace it). */
		char path[32];
		snprintf(path, sizeof(path), "%d/cwd", (int)a->tid);
		fd = openat(g->proc_fd, path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		return fd < 0 ? (errno == ENOENT || errno == ESRCH ? -ESRCH : -EACCES) : fd;
	}
	int pfd = cf_guard_pidfd(g, a);
	if (pfd < 0)
		return -EACCES;
	fd = (int)syscall(__NR_pidfd_getfd, pfd, a->dirfd, 0U);
	int e = errno;
	close(pfd);
	if (fd < 0)
		return e == EBADF ? -EBADF : -EACCES;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode)) {
		close(fd);
		return -ENOTDIR;
	}
	return fd;
}

void cf_guard_base_close(const struct cf_guard *g, int base)
{
	if (base >= 0 && base != g->root_fd)
		close(base);
}

/* Whether a failed one-call resolution may have gone through procfs, where the guard's
 * answer is not the command's (see the top of this file). */
static bool maybe_proc(const char *path, int base)
{
	return strstr(path, "proc") || strstr(path, "self") || (path[0] != '/' && on_procfs(base));
}

/* Not util/nofollow.h's open: the command's path follows its symlinks, as the command's own
 * open would; only magic links are refused here, and walked where they are met. */
int cf_guard_resolve(const struct cf_guard *g, struct cf_guard_ask *a, int base, bool follow,
		     int *out)
{
	struct open_how how = {
	    .flags = O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW),
	    .resolve = RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, base, a->path, &how, sizeof(how));
	if (fd >= 0 && !on_procfs(fd) && (a->path[0] == '/' || !on_procfs(base))) {
		*out = fd;
		return 0;
	}
	int e = errno;
	if (fd >= 0)
		close(fd);
	else if (e != ELOOP && !maybe_proc(a->path, base))
		return -e;
	return walk(g, a, base, follow, out);
}

/* The directory that holds the object `obj` under the last name of a->path (following
 * symlinks there when `follow`), or -1: an allow of a directory covers its own entries. */
static int parent_holding(const struct cf_guard *g, struct cf_guard_ask *a, int base, bool follow,
			  const struct stat *obj)
{
	struct cf_guard_ask d = *a;
	char name[NAME_MAX + 1], target[PATH_MAX];
	for (int links = 0; links <= MAX_LINKS; links++) {
		size_t n = strlen(d.path);
		while (n > 1 && d.path[n - 1] == '/')
			d.path[--n] = '\0';
		char *slash = strrchr(d.path, '/');
		const char *last = slash ? slash + 1 : d.path;
		if (!*last || !strcmp(last, ".") || !strcmp(last, "..") || strlen(last) > NAME_MAX)
			return -1;
		memcpy(name, last, strlen(last) + 1);
		/* d.path becomes the directory: "." for a bare name, "/" for one under the root. */
		if (!slash)
			memcpy(d.path, ".", 2);
		else if (slash == d.path)
			d.path[1] = '\0';
		else
			*slash = '\0';
		int dir = -1;
		if (cf_guard_resolve(g, &d, base, true, &dir) < 0)
			return -1;
		struct stat st;
		ssize_t k = -1;
		if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			close(dir);
			return -1;
		}
		bool link = S_ISLNK(st.st_mode) && follow;
		if (link)
			k = readlinkat(dir, name, target, sizeof(target) - 1);
		else if (st.st_dev == obj->st_dev && st.st_ino == obj->st_ino)
			return dir;
		close(dir);
		if (k < 0)
			return -1;
		/* A relative target is relative to the link's directory, which d.path names. */
		target[k] = '\0';
		char joined[sizeof(d.path)];
		int w = target[0] == '/'
			    ? snprintf(joined, sizeof(joined), "%s", target)
			    : snprintf(joined, sizeof(joined), "%s/%s", d.path, target);
		if (w < 0 || (size_t)w >= sizeof(joined))
			return -1;
		memcpy(d.path, joined, (size_t)w + 1);
	}
	return -1;
}

static bool allowed_ident(const struct cf_guard *g, const struct stat *st, bool dir)
{
	for (size_t i = 0; i < g->n_allow; i++)
		if (g->allow[i].dir == dir && g->allow[i].dev == st->st_dev &&
		    g->allow[i].ino == st->st_ino)
			return true;
	return false;
}

bool cf_guard_allowed(const struct cf_guard *g, struct cf_guard_ask *a, int base, bool follow,
		      int obj)
{
	struct stat st;
	if (fstat(obj, &st) < 0)
		return false;
	if (allowed_ident(g, &st, false))
		return true;
	bool dirs = false;
	for (size_t i = 0; i < g->n_allow && !dirs; i++)
		dirs = g->allow[i].dir;
	if (!dirs)
		return false;
	int dir = parent_holding(g, a, base, follow, &st);
	if (dir < 0)
		return false;
	struct stat ds;
	bool ok = fstat(dir, &ds) == 0 && allowed_ident(g, &ds, true);
	close(dir);
	return ok;
}

int cf_guard_reopen(const struct cf_guard *g, int obj, int flags)
{
	char name[16];
	snprintf(name, sizeof(name), "%d", obj);
	/* The command's flags but those of the lookup; never a controlling terminal for pid 1. */
	int f = (flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_DIRECTORY)) | O_CLOEXEC |
		O_NOCTTY;
	int fd = openat(g->selffd_fd, name, f);
	return fd < 0 ? -errno : fd;
}

/* A number from /proc/TID/FILE: the field after `key` (status), or field `field` after the
 * command name (stat).  -1 when it cannot be read. */
static long proc_number(const struct cf_guard *g, pid_t tid, const char *file, const char *key,
			int field, int base)
{
	char path[32], buf[1024];
	snprintf(path, sizeof(path), "%d/%s", (int)tid, file);
	int fd = openat(g->proc_fd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	const char *p;
	if (key) {
		p = strstr(buf, key);
		return p ? strtol(p + strlen(key), NULL, base) : -1;
	}
	/* "PID (COMM) S PPID ...": COMM may hold anything, so count after its last ')'. */
	if (!(p = strrchr(buf, ')')))
		return -1;
	for (int i = 2; i < field && p; i++)
		p = strchr(p + 1, ' ');
	return p ? strtol(p + 1, NULL, 10) : -1;
}

/* /dev/tty is the opener's controlling terminal: the command's, found among its descriptors
 * 0-2 (the guard has none). */
static int open_ctty(const struct cf_guard *g, struct cf_guard_ask *a, int flags, int *fd)
{
	long nr = proc_number(g, a->tid, "stat", NULL, 7, 10);
	if (nr <= 0)
		return -ENXIO;
	dev_t want = makedev(((unsigned long)nr >> 8) & 0xfff,
			     ((unsigned long)nr & 0xff) | (((unsigned long)nr >> 12) & 0xfff00));
	int pfd = cf_guard_pidfd(g, a);
	int r = -ENXIO;
	for (int n = 0; pfd >= 0 && n < 3 && r == -ENXIO; n++) {
		int f = (int)syscall(__NR_pidfd_getfd, pfd, n, 0U);
		struct stat st;
		if (f >= 0 && fstat(f, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == want &&
		    (r = cf_guard_reopen(g, f, flags)) >= 0) {
			*fd = r;
			r = 0;
		}
		if (f >= 0)
			close(f);
	}
	if (pfd >= 0)
		close(pfd);
	return r;
}

/* The command's open of an object the guard holds (see cf_guard_open). */
static int open_object(const struct cf_guard *g, struct cf_guard_ask *a, int base, int obj,
		       int flags, int *fd, bool *later)
{
	struct stat st;
	if (fstat(obj, &st) < 0)
		return -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP; /* O_NOFOLLOW on a symlink */
	if (S_ISDIR(st.st_mode) && (flags & O_CREAT))
		return -EISDIR;
	if (S_ISFIFO(st.st_mode) && !g->endpoint_ok(g, a, base, !(flags & O_NOFOLLOW), obj))
		return -EACCES;
	if (S_ISFIFO(st.st_mode) && !(flags & O_NONBLOCK)) {
		/* An allowed FIFO waits for a writer: on a thread of its own (guard.c). */
		*later = true;
		if ((*fd = fcntl(obj, F_DUPFD_CLOEXEC, 3)) < 0)
			return -errno;
		return 0;
	}
	if (S_ISCHR(st.st_mode) && major(st.st_rdev) == 5 && minor(st.st_rdev) == 0)
		return open_ctty(g, a, flags, fd);
	int r = cf_guard_reopen(g, obj, flags);
	if (r < 0)
		return r;
	*fd = r;
	return 0;
}

/*
 * O_CREAT without O_EXCL of a name that does not exist: the guard creates it, where the
 * command's own open would have (through a dangling symlink too), with the command's umask;
 * a name that appears meanwhile is opened as an object.
 */
static int create(const struct cf_guard *g, struct cf_guard_ask *a, int base, int flags,
		  unsigned mode, int *fd, bool *later)
{
	struct cf_guard_ask d = *a;
	bool follow = !(flags & O_NOFOLLOW);
	for (int links = 0; links <= MAX_LINKS; links++) {
		size_t n = strlen(d.path);
		if (!n || d.path[n - 1] == '/')
			return -EISDIR;
		char *slash = strrchr(d.path, '/');
		char name[NAME_MAX + 1];
		const char *last = slash ? slash + 1 : d.path;
		if (!strcmp(last, ".") || !strcmp(last, ".."))
			return -EISDIR;
		if (strlen(last) > NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(name, last, strlen(last) + 1);
		if (!slash)
			memcpy(d.path, ".", 2);
		else if (slash == d.path)
			d.path[1] = '\0';
		else
			*slash = '\0';
		int dir = -1, r = cf_guard_resolve(g, &d, base, true, &dir);
		if (r < 0)
			return r;
		struct stat st;
		if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			if (S_ISLNK(st.st_mode) && follow) {
				char target[PATH_MAX], joined[sizeof(d.path)];
				ssize_t k = readlinkat(dir, name, target, sizeof(target) - 1);
				close(dir);
				if (k < 0)
					return -errno;
				target[k] = '\0';
				int w =
				    target[0] == '/'
					? snprintf(joined, sizeof(joined), "%s", target)
					: snprintf(joined, sizeof(joined), "%s/%s", d.path, target);
				if (w < 0 || (size_t)w >= sizeof(joined))
					return -ENAMETOOLONG;
				memcpy(d.path, joined, (size_t)w + 1);
				continue;
			}
			int obj = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
			r = obj < 0 ? -errno : open_object(g, a, base, obj, flags, fd, later);
			if (obj >= 0)
				close(obj);
			close(dir);
			return r;
		}
		long um = proc_number(g, a->tid, "status", "\nUmask:", 0, 8);
		mode_t old = umask(um < 0 ? 022 : (mode_t)um);
		int f = openat(dir, name,
			       (flags & ~(O_CLOEXEC | O_NOFOLLOW)) | O_CREAT | O_EXCL | O_NOFOLLOW |
				   O_CLOEXEC | O_NOCTTY,
			       (mode_t)mode);
		int e = errno;
		umask(old);
		close(dir);
		if (f >= 0) {
			*fd = f;
			return 0;
		}
		if (e != EEXIST)
			return -e;
		/* It appeared meanwhile: look again. */
	}
	return -ELOOP;
}

int cf_guard_open(const struct cf_guard *g, struct cf_guard_ask *a, int flags, unsigned mode,
		  int *fd, bool *later)
{
	*fd = -1;
	*later = false;
	if (!a->path[0])
		return -ENOENT;
	int base = cf_guard_base(g, a);
	if (base < 0)
		return base;
	int obj = -1;
	int r = cf_guard_resolve(g, a, base, !(flags & O_NOFOLLOW), &obj);
	if (r == -ENOENT && (flags & O_CREAT))
		r = create(g, a, base, flags, mode, fd, later);
	else if (r == 0)
		r = open_object(g, a, base, obj, flags, fd, later);
	if (obj >= 0)
		close(obj);
	cf_guard_base_close(g, base);
	return r;
}
