/* SPDX-License-Identifier: MIT */
/*
 * Tool caches in helper mode (R39, plan/caches.h): the mask maker (exec/linux/bwrap/masks.c, in the
 * sandbox's namespaces) mounts an overlay at each cache's path, with the host's directory (as the
 * sandbox sees it) as the lower layer and this workspace's store as the upper one, then detaches
 * the store.
 *
 * An overlay shows the files of its lower layer, not the mounts on it: every protection bwrap
 * mounted below a cache (a guard such as ~/.cargo/credentials.toml, a rule, confine's own
 * directories) is cloned first ('c', with what is below it) and attached again on top of the
 * overlay in its place ('a'); the ones the helper makes itself come after the overlay in the
 * list anyway.  A path the overlay does not show (the store replaced it in an earlier run: a
 * whiteout, a file where the host has a directory, a symlink) holds nothing of the host's, so
 * a protection of it is left out instead of failing every later run of the workspace.
 *
 * Every path is opened without following a symlink (openat2 RESOLVE_NO_SYMLINKS) and handed to
 * the overlay as /proc/self/fd/N: the layers are the objects opened, whatever a name says.
 *
 * These run in the child of confine that makes the masks (exec/linux/bwrap/masks.c), forked from a
 * process that may have threads: async-signal-safe calls only, no allocation, no stdio.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helper/caches.h"
#include "plan/caches.h"
#include "plan/bwrap/plan.h"
#include "util/mountapi.h"
#include "util/nofollow.h"

#ifndef FSCONFIG_SET_FLAG
#define FSCONFIG_SET_FLAG 0
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

static int fail(struct cf_helper_err *e, int err, const char *call, const char *path, bool cache)
{
	e->err = err;
	e->call = call;
	e->changed = false;
	e->cache = cache;
	/* Cut to the record's size (the path is said, not used). */
	size_t n = path ? strnlen(path, sizeof(e->path) - 1) : 0;
	memcpy(e->path, path ? path : "", n);
	e->path[n] = '\0';
	return -1;
}

static int open_nofollow(int dirfd, const char *path, int flags)
{
	return cf_open_nofollow(dirfd, path, flags, 0, NULL);
}

bool cf_helper_in_overlay(const struct cf_helper_caches *st, const char *path)
{
	for (size_t i = 0; i < st->n_roots; i++) {
		size_t n = strlen(st->roots[i]);
		if (!strncmp(path, st->roots[i], n) && path[n] == '/')
			return true;
	}
	return false;
}

/* 'c': a clone of what bwrap mounted at path, with what is below it; -1 in its slot when it is
 * not there (a host endpoint that vanished since the plan). */
static int capture(struct cf_helper_caches *st, const char *path, struct cf_helper_err *e)
{
	if (st->n_caps == CF_HELPER_MAX_CAPTURES)
		return fail(e, E2BIG, "capture", path, true);
	struct cf_helper_capture *c = &st->caps[st->n_caps++];
	c->fd = -1;
	int tfd = open_nofollow(AT_FDCWD, path, O_PATH);
	if (tfd < 0)
		return 0;
	struct stat sb;
	c->dir = fstat(tfd, &sb) == 0 && S_ISDIR(sb.st_mode);
	c->fd = (int)syscall(SYS_open_tree, tfd, "",
			     OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
	int err = errno;
	close(tfd);
	return c->fd < 0 ? fail(e, err, "open_tree", path, true) : 0;
}

/* 'a': the next clone, attached at path on top of the overlay, if the overlay shows path as the
 * same kind of object. */
static int attach(struct cf_helper_caches *st, const char *path, struct cf_helper_err *e)
{
	if (st->next_attach >= st->n_caps)
		return fail(e, EINVAL, "read", "the mount list", false);
	struct cf_helper_capture *c = &st->caps[st->next_attach++];
	if (c->fd < 0)
		return 0;
	int tfd = open_nofollow(AT_FDCWD, path, O_PATH);
	struct stat sb;
	int rc = 0;
	if (tfd >= 0 && fstat(tfd, &sb) == 0 && !!S_ISDIR(sb.st_mode) == c->dir &&
	    syscall(SYS_move_mount, c->fd, "", tfd, "",
		    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		rc = fail(e, errno, "move_mount", path, true);
	/* Not there as the host has it: the store replaced it; nothing of the host's to keep. */
	if (tfd >= 0)
		close(tfd);
	close(c->fd);
	c->fd = -1;
	return rc;
}

/* Opens "CF_CACHE_MNT/rel" without a symlink anywhere; the store is confine's own. */
static int open_store(const char *rel, struct cf_helper_err *e)
{
	char path[4096];
	size_t m = strlen(CF_CACHE_MNT), n = strlen(rel);
	if (m + 1 + n >= sizeof(path))
		return fail(e, ENAMETOOLONG, "openat2", rel, true);
	memcpy(path, CF_CACHE_MNT, m);
	path[m] = '/';
	memcpy(path + m + 1, rel, n + 1);
	int fd = open_nofollow(AT_FDCWD, path, O_PATH | O_DIRECTORY);
	if (fd < 0)
		fail(e, errno, "openat2", path, true);
	return fd;
}

/* fd's name for the overlay: self/fd/N below proc_dir, which is the working directory until
 * the overlay is created (the kernel may look its layers up then), else /proc/self/fd/N. */
static int set_layer(const struct cf_helper_caches *st, int fs, const char *key, int fd,
		     const char *path, struct cf_helper_err *e)
{
	char v[64], digits[16];
	const char *pre = st->proc_dir >= 0 ? "self/fd/" : "/proc/self/fd/";
	size_t n = 0, k = strlen(pre);
	unsigned u = (unsigned)fd;
	do
		digits[n++] = (char)('0' + u % 10);
	while ((u /= 10) && n < sizeof(digits));
	memcpy(v, pre, k);
	while (n)
		v[k++] = digits[--n];
	v[k] = '\0';
	if (syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, key, v, 0) < 0)
		return fail(e, errno, "fsconfig", path, true);
	return 0;
}

/* 'o' path, 'U' upper, 'W' work: the overlay. */
static int overlay(struct cf_helper_caches *st, struct cf_helper_err *e)
{
	int lower = -1, upper = -1, work = -1, fs = -1, mnt = -1, rc = -1;
	const char *path = st->target;
	lower = open_nofollow(AT_FDCWD, path, O_PATH | O_DIRECTORY);
	if (lower < 0) {
		int err = errno;
		fail(e, err, "openat2", path, false);
		/* Gone, or reached through a symlink now: not what the plan saw (R34). */
		e->changed = err == ENOENT || err == ENOTDIR || err == ELOOP || err == EXDEV;
		goto out;
	}
	if ((upper = open_store(st->upper, e)) < 0 || (work = open_store(st->work, e)) < 0)
		goto out;
	if ((fs = (int)syscall(SYS_fsopen, "overlay", FSOPEN_CLOEXEC)) < 0) {
		fail(e, errno, "fsopen", "overlay", true);
		goto out;
	}
	/* userxattr: the overlay's own attributes in user.overlay.*, as a user namespace must;
	 * it keeps redirects and metacopy off, so the store can only add, change and remove
	 * entries, never point into other parts of the lower layer. */
	if (st->proc_dir >= 0 && fchdir(st->proc_dir) < 0) {
		fail(e, errno, "fchdir", "/proc", true);
		goto out;
	}
	if (set_layer(st, fs, "lowerdir", lower, path, e) < 0 ||
	    set_layer(st, fs, "upperdir", upper, path, e) < 0 ||
	    set_layer(st, fs, "workdir", work, path, e) < 0)
		goto out;
	/* volatile: no sync of the whole upper file system when the sandbox's last reference to
	 * the overlay goes (it cost every run about 10 ms, more on a busy disk), and no fsync;
	 * a cache survives a crash of the host as a cache does (the tools check what they read),
	 * and the marker volatile leaves in the work directory goes with the run's. */
	if (syscall(SYS_fsconfig, fs, FSCONFIG_SET_FLAG, "userxattr", NULL, 0) < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_SET_FLAG, "volatile", NULL, 0) < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) {
		fail(e, errno, "fsconfig", path, true);
		goto out;
	}
	/* Back inside the sandbox: nothing else here is named relative to the working
	 * directory, but the host's /proc is no place to stay. */
	if (st->proc_dir >= 0 && chdir("/") < 0) {
		fail(e, errno, "chdir", "/", true);
		goto out;
	}
	if ((mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC,
				MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)) < 0) {
		fail(e, errno, "fsmount", path, true);
		goto out;
	}
	if (syscall(SYS_move_mount, mnt, "", lower, "",
		    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0) {
		fail(e, errno, "move_mount", path, true);
		goto out;
	}
	if (st->n_roots < CF_HELPER_MAX_OVERLAYS && strlen(path) < sizeof(st->roots[0]))
		memcpy(st->roots[st->n_roots++], path, strlen(path) + 1);
	rc = 0;
out:
	if (lower >= 0)
		close(lower);
	if (upper >= 0)
		close(upper);
	if (work >= 0)
		close(work);
	if (fs >= 0)
		close(fs);
	if (mnt >= 0)
		close(mnt);
	return rc;
}

int cf_helper_cache_op(struct cf_helper_caches *st, char op, const char *path,
		       struct cf_helper_err *e)
{
	switch (op) {
	case CF_HELPER_CAPTURE:
		return capture(st, path, e);
	case CF_HELPER_ATTACH:
		return attach(st, path, e);
	case CF_HELPER_OVERLAY:
		if (strlen(path) >= sizeof(st->target))
			return fail(e, ENAMETOOLONG, "read", path, true);
		memcpy(st->target, path, strlen(path) + 1);
		st->upper[0] = '\0';
		return 0;
	case CF_HELPER_UPPER:
		if (!st->target[0] || strlen(path) >= sizeof(st->upper) || strstr(path, ".."))
			return fail(e, EINVAL, "read", "the mount list", false);
		memcpy(st->upper, path, strlen(path) + 1);
		return 0;
	case CF_HELPER_WORK:
		if (!st->upper[0] || strlen(path) >= sizeof(st->work) || strstr(path, ".."))
			return fail(e, EINVAL, "read", "the mount list", false);
		memcpy(st->work, path, strlen(path) + 1);
		int rc = overlay(st, e);
		st->target[0] = st->upper[0] = '\0';
		return rc;
	case CF_HELPER_DETACH:
		/* The store leaves the sandbox: only the overlays hold it now. */
		if (strcmp(path, CF_CACHE_MNT))
			return fail(e, EINVAL, "read", "the mount list", false);
		if (umount2(path, MNT_DETACH) < 0)
			return fail(e, errno, "umount2", path, true);
		return 0;
	}
	return fail(e, EINVAL, "read", "the mount list", false);
}

void cf_helper_caches_release(struct cf_helper_caches *st)
{
	for (size_t i = st->next_attach; i < st->n_caps; i++)
		if (st->caps[i].fd >= 0)
			close(st->caps[i].fd);
	st->n_caps = st->next_attach = 0;
}
