/* SPDX-License-Identifier: MIT */
/*
 * Metadata changes of the landlock backend (R42), made by confine's supervisor thread.
 *
 * Landlock has no right for chmod(2), chown(2), utimensat(2) or extended attributes: without
 * this, a root caller's command (uid 0, no capabilities, still the owner of every root-owned
 * file) made /etc files world-writable, and a user's command made ~/.ssh/id_ed25519 readable
 * by every local user.  Each such call stops in the kernel (supervise_rules.c) until this
 * answers, and for each:
 *   1. the target is opened once in the command's view: its directory descriptor taken with
 *      pidfd_getfd, or its working directory through /proc/TID/cwd, the path copied out of its
 *      memory once (process_vm_readv), opened with openat2(O_PATH) without magic links (so
 *      /proc/self and /dev/fd never mean confine's own descriptors); an f* call's descriptor
 *      is taken itself;
 *   2. the notification is checked to be still pending (the thread is alive, its pid and
 *      memory were not reused meanwhile);
 *   3. the decision is made on that descriptor: the kernel's name of it (/proc/self/fd/N),
 *      the nearest path the plan decided (its meta table) must be writable by the rules or
 *      be the run's temp directory; /dev, /proc, the temp roots and every protected path are
 *      not; a pipe, a socket or an anonymous inode (no path) is the command's own;
 *   4. the change is made on that very descriptor (fchmod, fchownat/utimensat with
 *      AT_EMPTY_PATH, /proc/self/fd/N for the rest, which names the inode, not a path).
 * Nothing the command controls is read by the kernel after the decision: a thread that swaps
 * the path or the descriptor meanwhile changes only which file was decided on.
 *
 * The thread has no capability (supervisor.c): the kernel's own owner and permission checks
 * apply as they would to the command.  Where ptrace access to the command is refused (Yama
 * ptrace_scope 2 or 3, a process that left confine's line of descendants under Yama 1), the
 * answer is EACCES: fail closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "exec/linux/metaguard.h"
#include "exec/linux/notif.h"
#include "exec/linux/sv_common.h"
#include "exec/linux/supervise_rules.h"
#include "util/util.h"

#include "util/linux_abi.h"
#define NR_FCHMODAT2 452
#define NR_SETXATTRAT 463
#define NR_REMOVEXATTRAT 466
#define XATTR_NAME_MAX_ 255
#define XATTR_SIZE_MAX_ 65536

enum op { OP_CHMOD, OP_CHOWN, OP_TIMES, OP_SETX, OP_REMX, OP_IOCTL };
enum times_kind { T_TIMESPEC, T_TIMEVAL, T_UTIMBUF };

/* One supervised call: which argument is what. */
struct call {
	long nr;
	enum op op;
	int dirfd;   /* argument holding a directory descriptor, -1: AT_FDCWD */
	int path;    /* argument holding the path, -1: the call takes a descriptor (args[0]) */
	int flags;   /* argument holding AT_* flags, -1: none */
	bool follow; /* without flags: whether a final symlink is followed */
	enum times_kind tk;
};

static const struct call calls[] = {
#ifdef __NR_chmod
    {__NR_chmod, OP_CHMOD, -1, 0, -1, true, 0},
#endif
    {__NR_fchmod, OP_CHMOD, -1, -1, -1, true, 0},
    {__NR_fchmodat, OP_CHMOD, 0, 1, -1, true, 0},
    {NR_FCHMODAT2, OP_CHMOD, 0, 1, 3, true, 0},
#ifdef __NR_chown
    {__NR_chown, OP_CHOWN, -1, 0, -1, true, 0},
#endif
#ifdef __NR_lchown
    {__NR_lchown, OP_CHOWN, -1, 0, -1, false, 0},
#endif
    {__NR_fchown, OP_CHOWN, -1, -1, -1, true, 0},
    {__NR_fchownat, OP_CHOWN, 0, 1, 4, true, 0},
#ifdef __NR_utime
    {__NR_utime, OP_TIMES, -1, 0, -1, true, T_UTIMBUF},
#endif
#ifdef __NR_utimes
    {__NR_utimes, OP_TIMES, -1, 0, -1, true, T_TIMEVAL},
#endif
#ifdef __NR_futimesat
    {__NR_futimesat, OP_TIMES, 0, 1, -1, true, T_TIMEVAL},
#endif
    {__NR_utimensat, OP_TIMES, 0, 1, 3, true, T_TIMESPEC},
    {__NR_setxattr, OP_SETX, -1, 0, -1, true, 0},
    {__NR_lsetxattr, OP_SETX, -1, 0, -1, false, 0},
    {__NR_fsetxattr, OP_SETX, -1, -1, -1, true, 0},
    {__NR_removexattr, OP_REMX, -1, 0, -1, true, 0},
    {__NR_lremovexattr, OP_REMX, -1, 0, -1, false, 0},
    {__NR_fremovexattr, OP_REMX, -1, -1, -1, true, 0},
    {NR_SETXATTRAT, OP_SETX, 0, 1, 2, true, 0},
    {NR_REMOVEXATTRAT, OP_REMX, 0, 1, 2, true, 0},
    {__NR_ioctl, OP_IOCTL, -1, -1, -1, true, 0},
};

static const struct call *find_call(long nr)
{
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (calls[i].nr == nr)
			return &calls[i];
	return NULL;
}

static const struct cf_supervise_ioctl *brokered_ioctl(uint64_t request)
{
	for (size_t i = 0; i < CF_SUPERVISE_N_IOCTLS; i++)
		if (cf_supervise_ioctls[i].fate == CF_IOCTL_META &&
		    cf_supervise_ioctls[i].request == (uint32_t)request)
			return &cf_supervise_ioctls[i];
	return NULL;
}

bool cf_meta_handles(const struct seccomp_notif *req)
{
	const struct call *c = find_call(req->data.nr);
	if (!c)
		return false;
	return c->op != OP_IOCTL || brokered_ioctl(req->data.args[1]);
}

/*
 * The target of a call as an O_PATH descriptor of ours.  `at_flags` are the call's AT_* flags
 * (AT_EMPTY_PATH: the base itself; AT_SYMLINK_NOFOLLOW: a final symlink is the target).  No
 * magic link is followed: /proc/self, /dev/stdin and their kind would name confine's own
 * descriptors here; such a target is refused (EACCES).
 */
static int open_target(struct cf_sv_ctx *c, const struct call *k, int at_flags)
{
	const __u64 *a = c->req->data.args;
	if (k->path < 0 || (k->op == OP_TIMES && !a[k->path] && k->dirfd >= 0))
		return cf_sv_take_fd(c, a[k->dirfd >= 0 ? (size_t)k->dirfd : 0]);
	char path[PATH_MAX];
	int r = cf_sv_read_str(c, a[k->path], path, sizeof(path), ENAMETOOLONG);
	if (r < 0)
		return r;
	if (!path[0] && !(at_flags & AT_EMPTY_PATH))
		return -ENOENT;
	int base = AT_FDCWD;
	if (path[0] != '/' &&
	    (base = cf_sv_base_dir(c, k->dirfd >= 0 ? (int64_t)(int)a[k->dirfd] : AT_FDCWD)) < 0)
		return base;
	if (!path[0])
		return base; /* AT_EMPTY_PATH: the directory descriptor itself */
	struct open_how how = {
	    .flags = O_PATH | O_CLOEXEC | ((at_flags & AT_SYMLINK_NOFOLLOW) ? O_NOFOLLOW : 0),
	    .resolve = RESOLVE_NO_MAGICLINKS,
	};
	int f = (int)syscall(SYS_openat2, base, path, &how, sizeof(how));
	if (f < 0)
		f = errno == ELOOP ? -EACCES : -errno;
	if (base >= 0)
		close(base);
	return f;
}

/* Whether the file open at `fd` may have its metadata changed (step 3 above). */
static bool may_change(const struct cf_sv_policy *pol, int fd)
{
	const struct cf_ll_plan *pl = pol->plan;
	/* A protected inode, by whatever name (a hard link made before the run). */
	if (cf_sv_denied(pol, fd) & CF_LL_FS_WRITE_FILE)
		return false;
	char path[PATH_MAX + 16];
	struct stat st;
	int k = cf_sv_name(fd, path, sizeof(path));
	if (k < 0 || fstat(fd, &st) < 0)
		return false;
	if (k > 0)
		return S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ||
		       !strncmp(path, "anon_inode:", 11);
	return cf_sv_writable_at(pl, path);
}

static int timespec_of(struct cf_sv_ctx *c, const struct call *k, uint64_t addr,
		       struct timespec ts[2], bool *now)
{
	*now = !addr;
	if (!addr)
		return 0;
	if (k->tk == T_TIMESPEC)
		return cf_sv_read_mem(c, addr, ts, 2 * sizeof(struct timespec));
	if (k->tk == T_TIMEVAL) {
		struct timeval tv[2];
		int r = cf_sv_read_mem(c, addr, tv, sizeof(tv));
		for (int i = 0; r == 0 && i < 2; i++) {
			if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
				return -EINVAL;
			ts[i].tv_sec = tv[i].tv_sec;
			ts[i].tv_nsec = tv[i].tv_usec * 1000;
		}
		return r;
	}
	struct {
		long actime, modtime;
	} ub;
	int r = cf_sv_read_mem(c, addr, &ub, sizeof(ub));
	ts[0] = (struct timespec){ub.actime, 0};
	ts[1] = (struct timespec){ub.modtime, 0};
	return r;
}

/* What the call's arguments carry besides the target, copied before the decision. */
struct payload {
	struct timespec ts[2];
	bool now;
	char name[XATTR_NAME_MAX_ + 1];
	void *value;
	size_t size;
	int xflags;
	unsigned char ioctl_arg[32];
};

static int read_payload(struct cf_sv_ctx *c, const struct call *k, struct payload *p)
{
	const __u64 *a = c->req->data.args;
	int first = k->path >= 0 ? k->path : (k->dirfd >= 0 ? k->dirfd : 0);
	int r = 0;
	if (k->op == OP_TIMES) {
		int at = k->tk == T_TIMESPEC ? 2 : (k->dirfd >= 0 ? 2 : 1);
		r = timespec_of(c, k, a[at], p->ts, &p->now);
	} else if (k->op == OP_SETX || k->op == OP_REMX) {
		/* setxattr(path, name, value, size, flags); *at: (dfd, path, at_flags, name,
		 * args, size) */
		bool at = k->flags >= 0;
		int ni = at ? 3 : first + 1;
		r = cf_sv_read_str(c, a[ni], p->name, sizeof(p->name), ERANGE);
		if (r == 0 && k->op == OP_SETX) {
			uint64_t vaddr = 0, size = 0;
			if (!at) { /* a[ni + 3] is the last of the six arguments */
				vaddr = a[ni + 1];
				size = a[ni + 2];
				p->xflags = (int)a[ni + 3];
			} else {
				struct {
					uint64_t value;
					uint32_t size, flags;
				} xa;
				if (a[5] < sizeof(xa))
					return -EINVAL;
				if ((r = cf_sv_read_mem(c, a[4], &xa, sizeof(xa))) < 0)
					return r;
				vaddr = xa.value;
				size = xa.size;
				p->xflags = (int)xa.flags;
			}
			if (size > XATTR_SIZE_MAX_)
				return -E2BIG;
			p->size = (size_t)size;
			if (size && !(p->value = malloc((size_t)size)))
				return -ENOMEM;
			if (size)
				r = cf_sv_read_mem(c, vaddr, p->value, (size_t)size);
		}
	} else if (k->op == OP_IOCTL) {
		size_t n = (a[1] & 0xffffffffU) == 0x401c5820U ? 28 : sizeof(int);
		r = cf_sv_read_mem(c, a[2], p->ioctl_arg, n);
	}
	return r;
}

/* Makes the change on `fd` (opened O_PATH when `opath`). */
static long apply(const struct call *k, const __u64 *a, int fd, bool opath, const struct payload *p)
{
	char self[64];
	struct stat st;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	if (fstat(fd, &st) < 0)
		return -errno;
	bool link = S_ISLNK(st.st_mode);
	long r;
	switch (k->op) {
	case OP_CHMOD: {
		mode_t mode = (mode_t)(a[k->path >= 0 ? (k->dirfd >= 0 ? 2 : 1) : 1] & 07777);
		if (link)
			return -EOPNOTSUPP;
		r = opath ? fchmodat(AT_FDCWD, self, mode, 0) : fchmod(fd, mode);
		break;
	}
	case OP_CHOWN: {
		int at = k->path >= 0 ? (k->dirfd >= 0 ? 2 : 1) : 1;
		r = fchownat(fd, "", (uid_t)(uint32_t)a[at], (gid_t)(uint32_t)a[at + 1],
			     AT_EMPTY_PATH | (link ? AT_SYMLINK_NOFOLLOW : 0));
		break;
	}
	case OP_TIMES:
		r = opath ? utimensat(fd, "", p->now ? NULL : p->ts,
				      AT_EMPTY_PATH | (link ? AT_SYMLINK_NOFOLLOW : 0))
			  : syscall(SYS_utimensat, fd, NULL, p->now ? NULL : p->ts, 0);
		break;
	case OP_SETX:
		if (link)
			return -EPERM; /* user.* is refused on symlinks; the rest needs capabilities
					*/
		r = opath ? setxattr(self, p->name, p->value, p->size, p->xflags)
			  : fsetxattr(fd, p->name, p->value, p->size, p->xflags);
		break;
	case OP_REMX:
		if (link)
			return -EPERM;
		r = opath ? removexattr(self, p->name) : fremovexattr(fd, p->name);
		break;
	case OP_IOCTL: {
		unsigned char arg[32];
		memcpy(arg, p->ioctl_arg, sizeof(arg));
		r = ioctl(fd, (unsigned long)(uint32_t)a[1], arg);
		break;
	}
	default:
		return -ENOSYS;
	}
	return r < 0 ? -errno : r;
}

long cf_meta_answer(const struct cf_sv_policy *plan, int listener, const struct seccomp_notif *req,
		    bool *made)
{
	const struct call *k = find_call(req->data.nr);
	struct cf_sv_ctx c = {.req = req, .pidfd = -1};
	struct payload p = {0};
	int fd = -1;
	long r;
	*made = false;
	if (!k)
		return -ENOSYS;
	/* fchmodat(2) has no flags; AT_SYMLINK_NOFOLLOW and AT_EMPTY_PATH are the only ones the
	 * others take (the kernel refuses the rest with EINVAL). */
	int at_flags = k->flags >= 0 ? (int)req->data.args[k->flags] : 0;
	if (at_flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)) {
		r = -EINVAL;
		goto out;
	}
	if (k->flags < 0 && !k->follow)
		at_flags |= AT_SYMLINK_NOFOLLOW;
	bool opath =
	    k->path >= 0 && !(k->op == OP_TIMES && k->dirfd >= 0 && !req->data.args[k->path]);
	if ((r = read_payload(&c, k, &p)) < 0)
		goto out;
	if ((fd = open_target(&c, k, at_flags)) < 0) {
		r = fd;
		goto out;
	}
	if (!cf_notif_pending(listener, req->id)) {
		r = -EACCES; /* gone meanwhile: the answer goes nowhere */
		goto out;
	}
	if (!may_change(plan, fd)) {
		r = -EACCES;
		goto out;
	}
	r = apply(k, req->data.args, fd, opath, &p);
	*made = r >= 0;
out:
	if (fd >= 0)
		close(fd);
	cf_sv_release(&c);
	free(p.value);
	return r;
}
