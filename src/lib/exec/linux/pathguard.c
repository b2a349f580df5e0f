/* SPDX-License-Identifier: MIT */
/*
 * New entries in split directories of the writable areas (SPEC 3.3), made usable by confine's
 * supervisor.
 *
 * Landlock only allows, so the plan splits every directory above a protected path: a
 * repository root that holds .env and .git took no new entry (npm's node_modules, git's
 * index.lock, a new file), and what git renamed into .git lost its rights.  The command keeps
 * those safe rules.  On top of them, with this plan (cf_ll_plan.broker), every open(2) and
 * every call that makes, renames, links or removes a directory entry stops in the kernel until
 * the supervisor answers, and the supervisor:
 *   - resolves the target in the command's view without side effects (openat2 with O_PATH,
 *     no magic link; for a new entry, its directory and its last name);
 *   - acts only where the plan's meta table puts that target, or the directory of the new
 *     entry, in a writable area, and the entry is neither protected nor the ancestor of a
 *     protected path: it reopens the O_PATH descriptor (/proc/self/fd/N, the inode itself, not
 *     a path) with the command's flags and installs it in the command, or makes the entry
 *     relative to the directory descriptor it holds; only regular files and directories;
 *   - in every other case lets the call continue to the kernel (SECCOMP_USER_NOTIF_FLAG_
 *     CONTINUE), which decides under the command's own Landlock rules; but for an open that
 *     could read a FIFO, which confine's opener makes (opener.h, R36): that one reaches the
 *     supervisor only where the opener's own open was refused, and gets the opener's EACCES
 *     where the supervisor does not act (supervisor.c).
 * A continued call is re-read by the kernel, but under rules that are safe on their own: a path
 * the command swaps meanwhile can only reach what those rules allow.  What the supervisor makes
 * itself is decided on descriptors it holds.  Its thread has no capability and takes the
 * command's umask for what it creates (its own fs_struct, unshare(CLONE_FS)).
 *
 * Not covered: execve(2) of a new entry in a split directory (the kernel checks it under the
 * command's rules: EACCES); FIFOs, sockets and devices there (continued: EACCES).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exec/linux/notif.h"
#include "exec/linux/pathguard.h"
#include "exec/linux/sv_common.h"
#include "util/procfs.h"

#ifndef O_TMPFILE_MASK
#define O_TMPFILE_MASK (020000000 | O_DIRECTORY)
#endif
#define RENAME_EXCHANGE_ (1 << 1)

enum kind { K_OPEN, K_MKDIR, K_MKNOD, K_SYMLINK, K_LINK, K_RENAME, K_UNLINK, K_RMDIR, K_TRUNC };

struct pcall {
	long nr;
	enum kind kind;
	int dirfd;		  /* argument of the (first) directory descriptor, -1: AT_FDCWD */
	int path;		  /* argument of the (first) path */
	int dirfd2, path2, flags; /* the second path (link, rename), flags; -1: none */
};

static const struct pcall pcalls[] = {
#ifdef __NR_open
    {__NR_open, K_OPEN, -1, 0, -1, -1, 1},
#endif
#ifdef __NR_creat
    {__NR_creat, K_OPEN, -1, 0, -1, -1, -1},
#endif
    {__NR_openat, K_OPEN, 0, 1, -1, -1, 2},
#ifdef __NR_mkdir
    {__NR_mkdir, K_MKDIR, -1, 0, -1, -1, -1},
#endif
    {__NR_mkdirat, K_MKDIR, 0, 1, -1, -1, -1},
#ifdef __NR_mknod
    {__NR_mknod, K_MKNOD, -1, 0, -1, -1, -1},
#endif
    {__NR_mknodat, K_MKNOD, 0, 1, -1, -1, -1},
#ifdef __NR_symlink
    {__NR_symlink, K_SYMLINK, -1, 1, -1, -1, -1},
#endif
    {__NR_symlinkat, K_SYMLINK, 1, 2, -1, -1, -1},
#ifdef __NR_link
    {__NR_link, K_LINK, -1, 0, -1, 1, -1},
#endif
    {__NR_linkat, K_LINK, 0, 1, 2, 3, 4},
#ifdef __NR_rename
    {__NR_rename, K_RENAME, -1, 0, -1, 1, -1},
#endif
#ifdef __NR_renameat
    {__NR_renameat, K_RENAME, 0, 1, 2, 3, -1},
#endif
    {__NR_renameat2, K_RENAME, 0, 1, 2, 3, 4},
#ifdef __NR_unlink
    {__NR_unlink, K_UNLINK, -1, 0, -1, -1, -1},
#endif
    {__NR_unlinkat, K_UNLINK, 0, 1, -1, -1, 2},
#ifdef __NR_rmdir
    {__NR_rmdir, K_RMDIR, -1, 0, -1, -1, -1},
#endif
    {__NR_truncate, K_TRUNC, -1, 0, -1, -1, -1},
};

static const struct pcall *find(long nr)
{
	for (size_t i = 0; i < sizeof(pcalls) / sizeof(pcalls[0]); i++)
		if (pcalls[i].nr == nr)
			return &pcalls[i];
	return NULL;
}

bool cf_path_handles(const struct seccomp_notif *req)
{
	return find(req->data.nr) != NULL;
}

int cf_path_thread_init(void)
{
	return unshare(CLONE_FS);
}

/* A resolved argument: the directory (O_PATH) and the last name, and the name of both. */
struct where {
	int dir;
	bool slash; /* the path ended in '/': its last name must be a directory */
	char name[NAME_MAX + 1];
	char dpath[PATH_MAX + 16]; /* the kernel's name of dir */
	char full[PATH_MAX + NAME_MAX + 32];
};

static void where_release(struct where *w)
{
	if (w->dir >= 0)
		close(w->dir);
	w->dir = -1;
}

/* Splits the path at `path_arg` into its directory, opened O_PATH in the command's view, and
 * its last name.  0, or 1 when the supervisor must leave the call to the kernel. */
static int locate(struct cf_sv_ctx *c, const struct pcall *k, int dirfd_arg, int path_arg,
		  struct where *w)
{
	const __u64 *a = c->req->data.args;
	char path[PATH_MAX];
	w->dir = -1;
	if (cf_sv_read_str(c, a[path_arg], path, sizeof(path), ENAMETOOLONG) < 0 || !path[0])
		return 1;
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/') {
		path[--n] = '\0';
		w->slash = true;
	}
	char *slash = strrchr(path, '/');
	const char *last = slash ? slash + 1 : path;
	if (!*last || !strcmp(last, ".") || !strcmp(last, "..") || strlen(last) > NAME_MAX)
		return 1;
	snprintf(w->name, sizeof(w->name), "%s", last);
	const char *dir = ".";
	if (slash == path)
		dir = "/";
	else if (slash) {
		*slash = '\0';
		dir = path;
	}
	int base = AT_FDCWD;
	if (dir[0] != '/' &&
	    (base = cf_sv_base_dir(c, dirfd_arg >= 0 ? (int64_t)(int)a[dirfd_arg] : AT_FDCWD)) < 0)
		return 1;
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			       .resolve = RESOLVE_NO_MAGICLINKS};
	w->dir = (int)syscall(SYS_openat2, base, dir, &how, sizeof(how));
	if (base >= 0)
		close(base);
	(void)k;
	if (w->dir < 0 || cf_sv_name(w->dir, w->dpath, sizeof(w->dpath)) != 0) {
		where_release(w);
		return 1;
	}
	snprintf(w->full, sizeof(w->full), "%s/%s", strcmp(w->dpath, "/") ? w->dpath : "", w->name);
	return 0;
}

/* Whether the plan puts `path` (cut while looking, so a copy) in a writable area. */
static bool writable(const struct cf_ll_plan *pl, const char *path)
{
	char buf[PATH_MAX + NAME_MAX + 32];
	snprintf(buf, sizeof(buf), "%s", path);
	return cf_sv_writable_at(pl, buf);
}

/* Whether a path the plan decided lies strictly below `path` and is not writable: a protected
 * path whose ancestor `path` is (its rename would carry the protection away). */
static bool holds_protected(const struct cf_ll_plan *pl, const char *path)
{
	size_t n = strlen(path);
	for (size_t i = 0; i < pl->n_meta; i++) {
		const char *m = pl->meta[i].path;
		if (!pl->meta[i].access && !strncmp(m, path, n) && m[n] == '/')
			return true;
	}
	return false;
}

/* The entry `name` of directory `w` may be removed or replaced: it is missing, or it is in a
 * writable area, not protected and holds nothing protected. */
static bool entry_free(const struct cf_ll_plan *pl, const struct where *w)
{
	struct stat st;
	if (fstatat(w->dir, w->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT;
	return writable(pl, w->full) && !holds_protected(pl, w->full);
}

/* The command's umask, for what the supervisor makes in its name (Linux 4.7: Umask in
 * /proc/PID/status). */
static bool take_umask(pid_t tid)
{
	long mask;
	if (cf_proc_status_long(AT_FDCWD, tid, "Umask", 8, &mask) < 0)
		return false;
	umask((mode_t)mask & 0777);
	return true;
}

/* Installs our descriptor `fd` in the command as the call's answer. */
static enum cf_path_outcome send_fd(int listener, const struct seccomp_notif *req, int fd,
				    int flags, long *result)
{
	int r = cf_notif_addfd(listener, req->id, fd, (unsigned)(flags & O_CLOEXEC));
	if (r == 0)
		return CF_PATH_SENT;
	*result = r == -EMFILE ? -EMFILE : -EACCES;
	return CF_PATH_DONE;
}

/* Reopens the inode held at `opath` with the command's flags (never O_CREAT, no symlink: the
 * inode itself). */
static int reopen(int opath, int flags)
{
	char self[64];
	snprintf(self, sizeof(self), "/proc/self/fd/%d", opath);
	flags &= ~(O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	int fd = open(self, flags | O_CLOEXEC | O_NOCTTY);
	return fd >= 0 ? fd : -errno;
}

/* The target of an open as an O_PATH descriptor, resolved in one step (the common case: the
 * file exists); -1 with errno. */
static int open_whole(struct cf_sv_ctx *c, const struct pcall *k, int flags, bool follow)
{
	const __u64 *a = c->req->data.args;
	char path[PATH_MAX];
	if (cf_sv_read_str(c, a[k->path], path, sizeof(path), ENAMETOOLONG) < 0 || !path[0]) {
		errno = EINVAL;
		return -1;
	}
	int base = AT_FDCWD;
	if (path[0] != '/' &&
	    (base = cf_sv_base_dir(c, k->dirfd >= 0 ? (int64_t)(int)a[k->dirfd] : AT_FDCWD)) < 0) {
		errno = EINVAL;
		return -1;
	}
	struct open_how how = {.flags = O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW) |
					(flags & O_DIRECTORY),
			       .resolve = RESOLVE_NO_MAGICLINKS};
	int t = (int)syscall(SYS_openat2, base, path, &how, sizeof(how));
	int e = errno;
	if (base >= 0)
		close(base);
	errno = e;
	return t;
}

static enum cf_path_outcome do_open(const struct cf_sv_policy *pol, int listener,
				    struct cf_sv_ctx *c, const struct pcall *k, long *result,
				    bool *made)
{
	const struct cf_ll_plan *pl = pol->plan;
	const __u64 *a = c->req->data.args;
	int flags = k->flags >= 0 ? (int)a[k->flags] : (O_CREAT | O_WRONLY | O_TRUNC);
	mode_t mode = (mode_t)(a[k->flags >= 0 ? k->flags + 1 : 1] & 07777);
	enum cf_path_outcome out = CF_PATH_CONTINUE;
	struct where w = {.dir = -1};
	int t = -1, fd = -1;
	char path[PATH_MAX + NAME_MAX + 32];
	struct stat st;
	if ((flags & O_TMPFILE_MASK) == O_TMPFILE_MASK)
		return CF_PATH_CONTINUE; /* an unnamed file: Landlock decides (MAKE_REG) */
	bool follow = !(flags & O_NOFOLLOW) && !((flags & O_CREAT) && (flags & O_EXCL));
	t = open_whole(c, k, flags, follow);
	if (t >= 0) {
		/* It exists: only a regular file or a directory in a writable area, reopened. */
		if ((flags & O_CREAT) && (flags & O_EXCL))
			goto out;
		if (cf_sv_name(t, path, sizeof(path)) != 0 || fstat(t, &st) < 0 ||
		    !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) || !writable(pl, path))
			goto out;
		/* A protected inode by another name (a hard link made before the run). */
		uint64_t denied = cf_sv_denied(pol, t);
		bool wants_write = (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);
		if ((denied & (S_ISDIR(st.st_mode) ? CF_LL_FS_READ_DIR : CF_LL_FS_READ_FILE)) ||
		    (wants_write && (denied & CF_LL_FS_WRITE_FILE))) {
			*result = -EACCES;
			out = CF_PATH_DONE;
			goto out;
		}
		if (!cf_notif_pending(listener, c->req->id))
			goto out;
		fd = reopen(t, flags);
		if (fd < 0) {
			*result = fd;
			out = CF_PATH_DONE;
			goto out;
		}
		*made = true;
		out = send_fd(listener, c->req, fd, flags, result);
		goto out;
	}
	if (errno != ENOENT || !(flags & O_CREAT))
		goto out;
	/* A new file: its directory must be in a writable area, its name free (a dangling symlink
	 * is left to the kernel). */
	if (locate(c, k, k->dirfd, k->path, &w))
		goto out;
	if (mode & (S_ISUID | S_ISGID)) {
		*result = -EPERM; /* SPEC 3.1: no setuid or setgid bit, whatever made the file */
		out = CF_PATH_DONE;
		goto out;
	}
	if (w.slash || !writable(pl, w.dpath) ||
	    faccessat(w.dir, w.name, F_OK, AT_SYMLINK_NOFOLLOW) == 0 || !take_umask(c->req->pid) ||
	    !cf_notif_pending(listener, c->req->id))
		goto out;
	/* Decided on the directory it holds: the file is made there, whatever that directory is
	 * called by now.  Never blocking (a FIFO made under that name meanwhile is not ours). */
	fd = openat(w.dir, w.name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, mode);
	if (fd < 0) {
		*result = -errno;
		out = CF_PATH_DONE;
		goto out;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		*result = -EACCES;
		out = CF_PATH_DONE;
		goto out;
	}
	if (!(flags & O_NONBLOCK))
		(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	*made = true;
	out = send_fd(listener, c->req, fd, flags, result);
out:
	if (fd >= 0)
		close(fd);
	if (t >= 0)
		close(t);
	where_release(&w);
	return out;
}

/* mkdir, mknod (regular files and FIFOs only), symlink, unlink, rmdir: one entry of one
 * directory. */
static enum cf_path_outcome do_entry(const struct cf_ll_plan *pl, int listener, struct cf_sv_ctx *c,
				     const struct pcall *k, long *result, bool *made)
{
	const __u64 *a = c->req->data.args;
	struct where w = {.dir = -1};
	char target[PATH_MAX];
	long r;
	if (locate(c, k, k->dirfd, k->path, &w))
		return CF_PATH_CONTINUE;
	enum cf_path_outcome out = CF_PATH_CONTINUE;
	if (!writable(pl, w.dpath))
		goto out;
	bool removes = k->kind == K_UNLINK || k->kind == K_RMDIR;
	if (removes ? !entry_free(pl, &w) : !writable(pl, w.full))
		goto out;
	if (k->kind == K_SYMLINK &&
	    cf_sv_read_str(c, a[0], target, sizeof(target), ENAMETOOLONG) < 0)
		goto out;
	if (k->kind == K_MKNOD) {
		mode_t type = (mode_t)a[k->path + 1] & S_IFMT;
		if (type != 0 && type != S_IFREG && type != S_IFIFO)
			goto out; /* devices and sockets: the kernel decides */
		if ((mode_t)a[k->path + 1] & (S_ISUID | S_ISGID)) {
			*result = -EPERM;
			out = CF_PATH_DONE;
			goto out;
		}
	}
	if (!removes && !take_umask(c->req->pid))
		goto out;
	if (!cf_notif_pending(listener, c->req->id))
		goto out;
	switch (k->kind) {
	case K_MKDIR:
		r = mkdirat(w.dir, w.name, (mode_t)a[k->path + 1] & 07777);
		break;
	case K_MKNOD:
		r = mknodat(w.dir, w.name, (mode_t)a[k->path + 1] & (S_IFMT | 07777), 0);
		break;
	case K_SYMLINK:
		r = symlinkat(target, w.dir, w.name);
		break;
	case K_UNLINK:
		r = unlinkat(w.dir, w.name, k->flags >= 0 ? (int)a[k->flags] & AT_REMOVEDIR : 0);
		break;
	default:
		r = unlinkat(w.dir, w.name, AT_REMOVEDIR);
		break;
	}
	*result = r < 0 ? -errno : 0;
	*made = r == 0;
	out = CF_PATH_DONE;
out:
	where_release(&w);
	return out;
}

/* link and rename: two entries. */
static enum cf_path_outcome do_pair(const struct cf_ll_plan *pl, int listener, struct cf_sv_ctx *c,
				    const struct pcall *k, long *result, bool *made)
{
	const __u64 *a = c->req->data.args;
	struct where from = {.dir = -1}, to = {.dir = -1};
	int flags = k->flags >= 0 ? (int)a[k->flags] : 0;
	enum cf_path_outcome out = CF_PATH_CONTINUE;
	struct stat st;
	long r;
	if (k->kind == K_LINK && (flags & ~AT_SYMLINK_FOLLOW))
		return CF_PATH_CONTINUE; /* AT_EMPTY_PATH and the rest: the kernel decides */
	if (locate(c, k, k->dirfd, k->path, &from) || locate(c, k, k->dirfd2, k->path2, &to))
		goto out;
	if (!writable(pl, from.dpath) || !writable(pl, to.dpath) || !entry_free(pl, &to))
		goto out;
	if (fstatat(from.dir, from.name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		goto out;
	if (!writable(pl, from.full) || holds_protected(pl, from.full))
		goto out;
	if (k->kind == K_LINK && (flags & AT_SYMLINK_FOLLOW) && S_ISLNK(st.st_mode))
		goto out; /* the link's target: the kernel decides */
	if (k->kind == K_RENAME && (flags & RENAME_EXCHANGE_) &&
	    (!writable(pl, to.full) || holds_protected(pl, to.full)))
		goto out;
	if (!cf_notif_pending(listener, c->req->id))
		goto out;
	if (k->kind == K_LINK)
		r = linkat(from.dir, from.name, to.dir, to.name, 0);
	else
		r = syscall(SYS_renameat2, from.dir, from.name, to.dir, to.name, flags);
	*result = r < 0 ? -errno : 0;
	*made = r == 0;
	out = CF_PATH_DONE;
out:
	where_release(&from);
	where_release(&to);
	return out;
}

static enum cf_path_outcome do_truncate(const struct cf_sv_policy *pol, int listener,
					struct cf_sv_ctx *c, const struct pcall *k, long *result,
					bool *made)
{
	const struct cf_ll_plan *pl = pol->plan;
	struct where w = {.dir = -1};
	char path[PATH_MAX + 16];
	struct stat st;
	enum cf_path_outcome out = CF_PATH_CONTINUE;
	int t = -1, fd = -1;
	if (locate(c, k, k->dirfd, k->path, &w))
		return CF_PATH_CONTINUE;
	struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_MAGICLINKS};
	t = (int)syscall(SYS_openat2, w.dir, w.name, &how, sizeof(how));
	if (t < 0 || fstat(t, &st) < 0 || !S_ISREG(st.st_mode) ||
	    cf_sv_name(t, path, sizeof(path)) != 0 || !writable(pl, path) ||
	    (cf_sv_denied(pol, t) & CF_LL_FS_WRITE_FILE) || !cf_notif_pending(listener, c->req->id))
		goto out;
	fd = reopen(t, O_WRONLY | O_NONBLOCK);
	long r = fd < 0 ? fd : (ftruncate(fd, (off_t)c->req->data.args[1]) < 0 ? -errno : 0);
	*result = r;
	*made = r == 0;
	out = CF_PATH_DONE;
out:
	if (fd >= 0)
		close(fd);
	if (t >= 0)
		close(t);
	where_release(&w);
	return out;
}

enum cf_path_outcome cf_path_answer(const struct cf_sv_policy *pol, int listener,
				    const struct seccomp_notif *req, long *result, bool *made)
{
	const struct cf_ll_plan *plan = pol->plan;
	const struct pcall *k = find(req->data.nr);
	struct cf_sv_ctx c = {.req = req, .pidfd = -1};
	enum cf_path_outcome out = CF_PATH_CONTINUE;
	*made = false;
	*result = 0;
	if (!k || !plan->broker)
		return CF_PATH_CONTINUE;
	switch (k->kind) {
	case K_OPEN:
		out = do_open(pol, listener, &c, k, result, made);
		break;
	case K_LINK:
	case K_RENAME:
		out = do_pair(plan, listener, &c, k, result, made);
		break;
	case K_TRUNC:
		out = do_truncate(pol, listener, &c, k, result, made);
		break;
	default:
		out = do_entry(plan, listener, &c, k, result, made);
		break;
	}
	cf_sv_release(&c);
	return out;
}
