/* SPDX-License-Identifier: MIT */
/*
 * One symlink-safe open for every place where confine opens a path a command could have
 * changed (mount sources, rule paths, its own output files, directories of the scan, names it
 * renames aside): no symlink is followed in any component.  With openat2 (Linux 5.6) the kernel
 * resolves the path with RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS (and RESOLVE_BENEATH when
 * asked); without it, the path is walked one component at a time, each opened with O_NOFOLLOW
 * relative to the one before -- never a plain open() that would follow a symlink on the way --
 * and the caller is told (*downgraded) so that it can say so.  Linux only; uses nothing but
 * the C library (confine-init links it too).
 */
#ifndef CONFINE_NOFOLLOW_H
#define CONFINE_NOFOLLOW_H

#include <stdbool.h>

#define CF_NOFOLLOW_BENEATH 1u /* path relative to dirfd and never above it (no "..") */

/*
 * Opens `path` (absolute, or relative to dirfd; AT_FDCWD allowed without BENEATH) with `flags`
 * (O_NOFOLLOW and O_CLOEXEC are always added).  Returns the descriptor, or -1 with errno
 * (ELOOP: a symlink on the way; EXDEV: ".." under BENEATH; what openat says otherwise).
 * *downgraded (may be NULL) becomes true when openat2 was not available and the walk of
 * components answered instead.
 */
int cf_open_nofollow(int dirfd, const char *path, int flags, unsigned how, bool *downgraded);

/* The walk of components on its own (the fallback; tests call it directly). */
int cf_open_nofollow_walk(int dirfd, const char *path, int flags, unsigned how);

#endif
