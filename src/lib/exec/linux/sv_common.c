/* SPDX-License-Identifier: MIT */
/* What the supervisor's parts share (sv_common.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "exec/linux/pidfd.h"
#include "exec/linux/sv_common.h"
#include "util/procfs.h"

#include "util/linux_abi.h"

/* The command's descriptor `fd` as our own (close-on-exec), or minus an errno. */
int cf_sv_take_fd(struct cf_sv_ctx *c, uint64_t fd)
{
	if ((int64_t)(int)fd != (int64_t)fd || (int)fd < 0)
		return -EBADF;
	if (c->pidfd < 0 && (c->pidfd = cf_pidfd_of_thread(AT_FDCWD, (pid_t)c->req->pid, NULL)) < 0)
		return -EACCES;
	int f = (int)syscall(__NR_pidfd_getfd, c->pidfd, (int)fd, 0U);
	if (f < 0)
		return errno == EBADF ? -EBADF : -EACCES;
	return f;
}

/* Copies `n` bytes at `addr` out of the command's memory: 0 or minus an errno. */
int cf_sv_read_mem(struct cf_sv_ctx *c, uint64_t addr, void *buf, size_t n)
{
	struct iovec local = {.iov_base = buf, .iov_len = n};
	struct iovec remote = {.iov_base = (void *)(uintptr_t)addr, .iov_len = n};
	if (!n)
		return 0;
	ssize_t k = process_vm_readv(c->req->pid, &local, 1, &remote, 1, 0);
	if (k == (ssize_t)n)
		return 0;
	return k < 0 && errno != EFAULT ? -EACCES : -EFAULT;
}

/* A NUL-terminated string of at most `max` bytes (with the NUL) at `addr`, read up to each
 * page end so that a string near unmapped memory is read as the kernel would. */
int cf_sv_read_str(struct cf_sv_ctx *c, uint64_t addr, char *buf, size_t max, int too_long)
{
	size_t got = 0;
	if (!addr)
		return -EFAULT;
	while (got < max) {
		uint64_t at = addr + got;
		size_t chunk = 4096 - (size_t)(at % 4096);
		if (chunk > max - got)
			chunk = max - got;
		int r = cf_sv_read_mem(c, at, buf + got, chunk);
		if (r < 0)
			return r;
		void *nul = memchr(buf + got, '\0', chunk);
		if (nul)
			return 0;
		got += chunk;
	}
	return -too_long;
}

/* The base directory of a path argument: the command's directory descriptor, or its thread's
 * working directory. */
int cf_sv_base_dir(struct cf_sv_ctx *c, int64_t dirfd)
{
	if ((int)dirfd == AT_FDCWD) {
		int f = cf_proc_open(AT_FDCWD, (pid_t)c->req->pid, "cwd", O_PATH | O_DIRECTORY);
		return f >= 0 ? f : (errno == ENOENT ? -ENOENT : -EACCES);
	}
	return cf_sv_take_fd(c, (uint64_t)dirfd);
}

/* The plan's nearest decided path at or above `path`: whether the command may change
 * metadata there.  The table is sorted by strcmp. */
bool cf_sv_writable_at(const struct cf_ll_plan *pl, char *path)
{
	size_t len = strlen(path);
	for (;;) {
		size_t lo = 0, hi = pl->n_meta;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			int cmp = strcmp(pl->meta[mid].path, path);
			if (cmp == 0)
				return pl->meta[mid].access != 0;
			if (cmp < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (len <= 1)
			return false;
		char *slash = strrchr(path, '/');
		if (!slash)
			return false;
		if (slash == path)
			slash[1] = '\0';
		else
			*slash = '\0';
		len = strlen(path);
	}
}

int cf_sv_name(int fd, char *path, size_t cap)
{
	char link[64];
	struct stat st;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, cap - 1);
	if (n <= 0 || (size_t)n >= cap - 1)
		return -1;
	path[n] = '\0';
	if (path[0] != '/')
		return 1;
	static const char deleted[] = " (deleted)";
	size_t dl = sizeof(deleted) - 1;
	/* Only a name ending so may be an unlinked file's: fstat only then. */
	if ((size_t)n > dl && !strcmp(path + n - dl, deleted) && fstat(fd, &st) == 0 &&
	    st.st_nlink == 0)
		path[n - dl] = '\0';
	return 0;
}

void cf_sv_release(struct cf_sv_ctx *c)
{
	if (c->pidfd >= 0)
		close(c->pidfd);
	c->pidfd = -1;
}

static int add_ident(struct cf_sv_policy *p, size_t *cap, const struct stat *st, uint64_t denied)
{
	if (p->n_ids == *cap) {
		size_t n;
		struct cf_sv_ident *v = cf_grow_array(p->ids, *cap, 64, sizeof(*v), &n);
		if (!v)
			return -1;
		p->ids = v;
		*cap = n;
	}
	p->ids[p->n_ids++] =
	    (struct cf_sv_ident){(uint64_t)st->st_dev, (uint64_t)st->st_ino, denied};
	return 0;
}

/* The files below a protected directory that have another name somewhere (st_nlink > 1): a hard
 * link made before the run, in a writable area, is the same file (R37).  Bounded: `budget`
 * entries in all, 16 levels; a directory the caller cannot read is one the command cannot
 * reach either. */
static int walk_links(struct cf_sv_policy *p, size_t *cap, int dfd, int depth, size_t *budget,
		      uint64_t denied)
{
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return 0;
	}
	struct dirent *e;
	int r = 0;
	while (r == 0 && *budget && (e = readdir(d))) {
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		(*budget)--;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISREG(st.st_mode) && st.st_nlink > 1)
			r = add_ident(p, cap, &st, denied);
		else if (S_ISDIR(st.st_mode) && depth < 16) {
			int sub = openat(dirfd(d), e->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				r = walk_links(p, cap, sub, depth + 1, budget, denied);
		}
	}
	closedir(d);
	return r;
}

int cf_sv_policy_init(struct cf_sv_policy *p, const struct cf_ll_plan *plan)
{
	size_t cap = 0, budget = 4096;
	p->plan = plan;
	p->ids = NULL;
	p->n_ids = 0;
	for (size_t i = 0; i < plan->n_guards; i++) {
		const struct cf_ll_rule *g = &plan->guards[i];
		struct stat st;
		if (fstatat(AT_FDCWD, g->path, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
			continue;
		if (add_ident(p, &cap, &st, g->access) < 0)
			return -1;
		int dfd = S_ISDIR(st.st_mode)
			      ? open(g->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			      : -1;
		if (dfd >= 0 && walk_links(p, &cap, dfd, 0, &budget, g->access) < 0)
			return -1;
	}
	return 0;
}

void cf_sv_policy_release(struct cf_sv_policy *p)
{
	free(p->ids);
	p->ids = NULL;
	p->n_ids = 0;
}

uint64_t cf_sv_denied(const struct cf_sv_policy *p, int fd)
{
	struct stat st;
	if (!p->n_ids || fstat(fd, &st) < 0)
		return 0;
	uint64_t denied = 0;
	for (size_t i = 0; i < p->n_ids; i++)
		if (p->ids[i].dev == (uint64_t)st.st_dev && p->ids[i].ino == (uint64_t)st.st_ino)
			denied |= p->ids[i].denied;
	return denied;
}
