/* SPDX-License-Identifier: MIT */
/*
 * What the landlock supervisor's parts share (metaguard.c, pathguard.c): the command's thread,
 * its memory and descriptors, and the plan's meta table.  Linux only; touches the OS.
 */
#ifndef CONFINE_SV_COMMON_H
#define CONFINE_SV_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan/landlock/ll_plan.h"

struct seccomp_notif;

/* One protected inode (a guard of the plan, opened when the supervisor starts) and the rights
 * it must not get, whatever name reaches it (a hard link made before the run). */
struct cf_sv_ident {
	uint64_t dev, ino, denied;
};

/* What the supervisor decides with: the plan (its meta table) and the protected inodes. */
struct cf_sv_policy {
	const struct cf_ll_plan *plan;
	struct cf_sv_ident *ids;
	size_t n_ids;
};

/* Opens the plan's guards (no symlink followed) and records their inodes.  0 or -1 (out of
 * memory); a guard that is gone is left out. */
int cf_sv_policy_init(struct cf_sv_policy *p, const struct cf_ll_plan *plan);
void cf_sv_policy_release(struct cf_sv_policy *p);
/* The rights the inode open at `fd` must not get (0: none, or not protected). */
uint64_t cf_sv_denied(const struct cf_sv_policy *p, int fd);

/* One answer: the command's thread and the pidfd opened for it (-1 until needed). */
struct cf_sv_ctx {
	const struct seccomp_notif *req;
	int pidfd;
};

/* The command's descriptor `fd` as ours (close-on-exec), or minus an errno (EBADF; EACCES
 * where ptrace access is refused). */
int cf_sv_take_fd(struct cf_sv_ctx *c, uint64_t fd);
/* Copies `n` bytes at `addr` out of the command's memory: 0 or minus an errno. */
int cf_sv_read_mem(struct cf_sv_ctx *c, uint64_t addr, void *buf, size_t n);
/* A NUL-terminated string of at most `max` bytes at `addr`; minus `too_long` past that. */
int cf_sv_read_str(struct cf_sv_ctx *c, uint64_t addr, char *buf, size_t max, int too_long);
/* The directory a path argument starts from: the descriptor `dirfd`, or (AT_FDCWD) the
 * thread's working directory; an O_PATH descriptor of ours or minus an errno. */
int cf_sv_base_dir(struct cf_sv_ctx *c, int64_t dirfd);
/* Whether the plan's nearest decided path at or above `path` is writable (the meta table);
 * `path` is cut while looking. */
bool cf_sv_writable_at(const struct cf_ll_plan *pl, char *path);
/* The kernel's name of the file open at `fd` (" (deleted)" taken off an unlinked one): 0 for
 * an absolute path, 1 for an object without one (a pipe, a socket, an anonymous inode), -1. */
int cf_sv_name(int fd, char *path, size_t cap);
void cf_sv_release(struct cf_sv_ctx *c);

#endif
