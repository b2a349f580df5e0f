/* SPDX-License-Identifier: MIT */
/*
 * A supervised command's paths, resolved and opened as the command would (R36), by a thread of
 * confine's that answers the command's seccomp notifications: the bwrap backend's IPC guard in
 * pid 1 of the sandbox (src/helper/guard.c) and the landlock backend's opener
 * (exec/linux/opener.c).  cmdpath.c says how.  Linux only; touches the OS.
 */
#ifndef CONFINE_CMDPATH_H
#define CONFINE_CMDPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* An allowed object: a FIFO or socket an allow names (or one of descriptors 0-2, which the
 * caller handed over), or a directory an allow names, whose direct entries are allowed. */
struct cf_guard_ident {
	dev_t dev;
	ino_t ino;
	bool dir;
};

struct cf_guard_ask;

/* The thread that resolves for the command: "the guard" below, whichever backend's it is. */
struct cf_guard {
	int listener;
	int root_fd;   /* O_PATH of "/" (the command's root is the guard's) */
	int proc_fd;   /* O_PATH of /proc, the procfs the command sees */
	int selffd_fd; /* O_PATH of /proc/thread-self/fd: the guard reopens its own O_PATH objects
			*/
	dev_t proc_dev;
	ino_t proc_ino;
	pid_t
	    self; /* the guard's own thread group (pid 1, or confine): its /proc entry is refused */
	const struct cf_guard_ident *allow;
	size_t n_allow;
	/* Whether the FIFO `obj` (reached by a->path from base) may be opened: the backend's
	 * decision (guard.c: on a writable mount, or cf_guard_allowed; opener.c: in a writable
	 * area of the plan, an anonymous pipe, or cf_guard_allowed). */
	bool (*endpoint_ok)(const struct cf_guard *g, struct cf_guard_ask *a, int base, bool follow,
			    int obj);
	const void *ctx; /* what endpoint_ok decides with */
};

/* What the command asked for, read once from its memory. */
struct cf_guard_ask {
	pid_t tid, tgid; /* tgid 0: not looked up yet (cf_guard_tgid_of) */
	int dirfd;	 /* AT_FDCWD or the command's descriptor */
	char path[4096];
};

/* The base directory of a relative path for the command's thread `tid` (its working directory
 * or its descriptor `dirfd`), or the root for an absolute one (g->root_fd itself, not a copy:
 * cf_guard_base_close).  A descriptor of the guard's, or -errno. */
int cf_guard_base(const struct cf_guard *g, struct cf_guard_ask *a);
void cf_guard_base_close(const struct cf_guard *g, int base);

/* Resolves a->path from `base` as the command's thread would, without following a final
 * symlink unless `follow`: the object as an O_PATH descriptor, or -errno. */
int cf_guard_resolve(const struct cf_guard *g, struct cf_guard_ask *a, int base, bool follow,
		     int *out);

/* Whether the FIFO or socket `obj` (reached by a->path from base) is allowed by identity: one
 * g->allow names, or one directly in a directory g->allow names (by the name a->path gives
 * it). */
bool cf_guard_allowed(const struct cf_guard *g, struct cf_guard_ask *a, int base, bool follow,
		      int obj);

/* An open(2)/openat(2) of the command's: a descriptor of the guard's for it (*fd), or
 * -errno; *later set when that needs a blocking open of an allowed FIFO (the caller does it
 * on a thread of its own: cf_guard_reopen with *fd the O_PATH object). */
int cf_guard_open(const struct cf_guard *g, struct cf_guard_ask *a, int flags, unsigned mode,
		  int *fd, bool *later);

/* Opens the guard's O_PATH object `obj` with the command's flags (through /proc/thread-self/fd).
 * A descriptor, or -errno. */
int cf_guard_reopen(const struct cf_guard *g, int obj, int flags);

/* Reads a NUL-terminated string from the command's memory.  0 or -errno (EFAULT,
 * ENAMETOOLONG). */
int cf_guard_read_str(pid_t tid, uint64_t addr, char *buf, size_t cap);

/* A pidfd whose descriptor table is the thread's (the thread itself from Linux 6.9, else its
 * thread group), or -1. */
int cf_guard_pidfd(const struct cf_guard *g, struct cf_guard_ask *a);

/* The thread group of a thread, from /proc/TID/status; -1 when it is gone. */
pid_t cf_guard_tgid(const struct cf_guard *g, pid_t tid);
/* a->tgid, looked up the first time it is needed. */
pid_t cf_guard_tgid_of(const struct cf_guard *g, struct cf_guard_ask *a);

#endif
