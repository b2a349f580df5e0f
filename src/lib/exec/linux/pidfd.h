/* SPDX-License-Identifier: MIT */
/*
 * A pidfd for one thread of the sandboxed command, and its thread group, read from /proc: the
 * one reader every guard uses (the bwrap IPC guard in confine-init, the landlock supervisor,
 * its connect and pty guards).  Linux only; touches the OS.
 */
#ifndef CONFINE_EXEC_LINUX_PIDFD_H
#define CONFINE_EXEC_LINUX_PIDFD_H

#include <sys/types.h>

/* The thread group of thread `tid` from PROC/TID/status, PROC the directory open at `proc_fd`
 * (AT_FDCWD: the caller's "/proc"); -1 when the thread is gone. */
pid_t cf_proc_tgid(int proc_fd, pid_t tid);

/* A pidfd whose descriptor table is thread `tid`'s: the thread itself where the kernel can
 * (PIDFD_THREAD, Linux 6.9), else its thread group (the same table but for a thread made
 * without CLONE_FILES).  `*tgid` caches the group (0: not read yet; may be NULL).  A
 * descriptor, or -1 with errno. */
int cf_pidfd_of_thread(int proc_fd, pid_t tid, pid_t *tgid);

#endif
