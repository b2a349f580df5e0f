/* SPDX-License-Identifier: MIT */
/*
 * Helper mode (plan/bwrap/args.c, cf_plan_helper_split): the masks of the plan, made with the
 * mount API instead of bwrap's mount-and-reread-the-table, by a child of confine joined to the
 * sandbox's first user namespace and its mount namespace (exec/linux/bwrap/masks.c) once bwrap has
 * set the sandbox up.  Also the reading of the descriptors confine-init is given.
 *
 * Every target is opened without following a symlink anywhere (openat2 RESOLVE_NO_SYMLINKS)
 * and must still be what the plan saw (a directory or not): a path that changed since the
 * plan is reported as such, and confine plans the run again (R34).
 *
 * cf_helper_mount_all runs in a child forked from a process that may have threads: only
 * async-signal-safe calls, no allocation.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helper/caches.h"
#include "util/nofollow.h"
#include "helper/mounts.h"
#include "plan/bwrap/plan.h"
#include "util/mountapi.h"

static int fail(struct cf_helper_err *e, int err, const char *call, const char *path)
{
	e->err = err;
	e->call = call;
	e->changed = false;
	size_t n = 0;
	for (; path && path[n] && n + 1 < sizeof(e->path); n++)
		e->path[n] = path[n];
	e->path[n] = '\0';
	return -1;
}

int cf_helper_slurp(int fd, size_t max, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *b = malloc(cap + 1);
	if (!b)
		return -1;
	for (;;) {
		if (n == cap) {
			if (cap >= max) {
				free(b);
				errno = EFBIG;
				return -1;
			}
			cap *= 2;
			char *nb = realloc(b, cap + 1);
			if (!nb) {
				free(b);
				return -1;
			}
			b = nb;
		}
		ssize_t k = pread(fd, b + n, cap - n, (off_t)n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;
			free(b);
			errno = e;
			return -1;
		}
		if (k == 0)
			break;
		n += (size_t)k;
	}
	b[n] = '\0';
	*out = b;
	*len = n;
	return 0;
}

/* The target, opened without a symlink anywhere on the way, and of the kind the plan saw. */
static int open_target(const char *path, bool dir, struct cf_helper_err *e)
{
	int fd = cf_open_nofollow(AT_FDCWD, path, O_PATH, 0, NULL);
	if (fd < 0) {
		int err = errno;
		fail(e, err, "openat2", path);
		/* Gone, or reached only through a symlink now: not what the plan saw. */
		e->changed = err == ENOENT || err == ENOTDIR || err == ELOOP || err == EXDEV;
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int err = errno;
		close(fd);
		return fail(e, err, "fstat", path);
	}
	if (S_ISLNK(st.st_mode) || dir != !!S_ISDIR(st.st_mode)) {
		close(fd);
		fail(e, S_ISLNK(st.st_mode) ? ELOOP : dir ? ENOTDIR : EISDIR, "lookup", path);
		e->changed = true;
		return -1;
	}
	return fd;
}

/* A detached read-only tmpfs with root mode `mode`; with `file`, an empty mode-000 file "e"
 * made in it first.  The masks are clones of it: nothing can be written into any of them. */
static int detached_tmpfs(const char *mode, bool file, struct cf_helper_err *e)
{
	int fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
	if (fs < 0)
		return fail(e, errno, "fsopen", "tmpfs");
	int mnt = -1;
	if (syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", mode, 0) < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "size", "4k", 0) < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) {
		fail(e, errno, "fsconfig", "tmpfs");
		goto out;
	}
	mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC,
			   MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	if (mnt < 0) {
		fail(e, errno, "fsmount", "tmpfs");
		goto out;
	}
	if (file) {
		int f = openat(mnt, "e", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0);
		if (f < 0 || fchmod(f, 0) < 0) {
			fail(e, errno, "openat", "tmpfs/e");
			if (f >= 0)
				close(f);
			close(mnt);
			mnt = -1;
			goto out;
		}
		close(f);
	}
	struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};
	if (syscall(SYS_mount_setattr, mnt, "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0) {
		fail(e, errno, "mount_setattr", "tmpfs");
		close(mnt);
		mnt = -1;
	}
out:
	close(fs);
	return mnt;
}

/* One record of the mount list at *at: its op and path, *at moved past it.  A record ends in
 * its NUL; every path is absolute but the store's own ('U', 'W': relative to CF_CACHE_MNT,
 * checked in caches.c). */
static int read_record(const char *list, size_t len, size_t *at, char *op, const char **path,
		       struct cf_helper_err *e)
{
	*op = list[*at];
	*path = list + *at + 1;
	size_t pl = strnlen(*path, len - *at - 1);
	bool store_rel = *op == CF_HELPER_UPPER || *op == CF_HELPER_WORK;
	if (pl == len - *at - 1 || pl == 0 || ((*path)[0] != '/' && !store_rel) ||
	    ((*path)[0] == '/' && store_rel))
		return fail(e, EINVAL, "read", "the mount list");
	*at += pl + 2;
	return 0;
}

/* The detached mount that goes onto the target (op: see cf_helper_mount_all), in *src;
 * src_of holds the tmpfs each kind of hide is cloned from, made at its first use. */
static int mount_source(char op, int tfd, const char *path, int src_of[3], int *src,
			struct cf_helper_err *e)
{
	if (op == 'k' || op == 'r') {
		/* The kernel interface itself (a directory with everything mounted below it, or
		 * a file), read-only, without touching its other flags, which a user namespace
		 * may not clear. */
		*src = (int)syscall(SYS_open_tree, tfd, "",
				    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH |
					AT_RECURSIVE);
		struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};
		if (*src < 0)
			return fail(e, errno, "open_tree", path);
		if (syscall(SYS_mount_setattr, *src, "", AT_EMPTY_PATH | AT_RECURSIVE, &ro,
			    sizeof(ro)) < 0)
			return fail(e, errno, "mount_setattr", path);
		return 0;
	}
	if (op == 'p') {
		/* A pin (R33): the directory bound onto itself, with what is mounted below it,
		 * its flags as they are (the workspace's, writable), so that it cannot be renamed
		 * (EBUSY). */
		*src = (int)syscall(SYS_open_tree, tfd, "",
				    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH |
					AT_RECURSIVE);
		return *src < 0 ? fail(e, errno, "open_tree", path) : 0;
	}
	int *from = &src_of[op == 'f' ? 0 : op == 'd' ? 1 : 2];
	if (*from < 0)
		*from = detached_tmpfs(op == 'f'   ? "0755"
				       : op == 'd' ? "0000"
						   : "0111",
				       op == 'f', e);
	if (*from < 0)
		return -1;
	if ((*src = (int)syscall(SYS_open_tree, *from, op == 'f' ? "e" : "",
				 OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
				     (op == 'f' ? 0 : AT_EMPTY_PATH))) < 0)
		return fail(e, errno, "open_tree", path);
	return 0;
}

/* One mask, hide or pin (the record at offset rec of the list): its target opened, its source
 * made and moved onto it. */
static int mount_one(char op, const char *path, size_t rec, int list_fd,
		     struct cf_helper_caches *caches, int src_of[3], struct cf_helper_err *e)
{
	/* Upper case: a host endpoint that may have gone since the sweep (R29). */
	bool transient = op == 'F' || op == 'D' || op == 'T';
	if (transient)
		op = (char)(op - 'A' + 'a');
	if (op != 'f' && op != 'd' && op != 't' && op != 'k' && op != 'r' && op != 'p')
		return fail(e, EINVAL, "read", "the mount list");
	int tfd = open_target(path, op != 'f' && op != 'r', e);
	if (tfd < 0 && transient && e->changed && e->err == ENOENT) {
		/* Gone: nothing to hide.  confine reads the mark back and reports the endpoint if
		 * it is there after the run. */
		char mark = CF_HELPER_LEFT_OUT;
		if (pwrite(list_fd, &mark, 1, (off_t)rec) != 1)
			return fail(e, errno, "pwrite", "the mount list");
		return 0;
	}
	/* Below a tool cache's overlay: a path the overlay does not show as the plan saw it holds
	 * nothing of the host's (the store replaced it), so there is nothing to protect there. */
	if (tfd < 0 && e->changed && cf_helper_in_overlay(caches, path))
		return 0;
	if (tfd < 0)
		return -1;
	int src = -1;
	int rc = mount_source(op, tfd, path, src_of, &src, e);
	if (rc == 0 && syscall(SYS_move_mount, src, "", tfd, "",
			       MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		rc = fail(e, errno, "move_mount", path);
	if (src >= 0)
		close(src);
	close(tfd);
	return rc;
}

int cf_helper_mount_all(const char *list, size_t len, int list_fd, struct cf_helper_caches *caches,
			struct cf_helper_err *e)
{
	int src_of[3] = {-1, -1, -1}; /* the hidden file's tmpfs, the hidden directories' (0000,
				       * 0111) */
	int rc = 0;
	for (size_t at = 0; at < len && rc == 0;) {
		size_t rec = at;
		char op;
		const char *path;
		if ((rc = read_record(list, len, &at, &op, &path, e)) < 0)
			break;
		/* Tool caches (R39, caches.c): the overlays, the clones of what lies below them. */
		if (op && strchr("coUWau", op))
			rc = cf_helper_cache_op(caches, op, path, e);
		else
			rc = mount_one(op, path, rec, list_fd, caches, src_of, e);
	}
	for (size_t i = 0; i < 3; i++)
		if (src_of[i] >= 0)
			close(src_of[i]);
	cf_helper_caches_release(caches);
	return rc;
}
