/* SPDX-License-Identifier: MIT */
/*
 * What the kernel and the machine offer: the questions the probe asks and the executors act
 * on (Landlock's ABI, seccomp filters, cgroup delegation, what the IPC guard and the opener
 * need, Yama's ptrace scope).  Each answer comes from a system call or a file read that changes
 * nothing.  Linux only; touches the OS.  Plain libc, so that confine-init links it too.
 */
#ifndef CONFINE_HOST_KERNEL_H
#define CONFINE_HOST_KERNEL_H

#include <stdbool.h>
#include <stddef.h>

/* The Landlock ABI version the running kernel offers; 0 when Landlock is unavailable. */
int cf_landlock_abi(void);

/* True when the kernel accepts seccomp filters (SECCOMP_MODE_FILTER) with the action the
 * filter needs for a foreign architecture (SECCOMP_RET_KILL_PROCESS, Linux 4.14). */
bool cf_seccomp_available(void);

/* The first cap - 1 bytes of the small kernel file at `path` (/proc, /sys, a cgroup's file),
 * NUL-terminated: their count, or -1 with errno. */
int cf_kernel_read(const char *path, char *buf, size_t cap);

/* Whether this host mounts the unified cgroup hierarchy (v2) at /sys/fs/cgroup. */
bool cf_cgroup_v2(void);

/* This process's cgroup path in the hierarchy whose /proc/self/cgroup line names `controller`
 * (v1), or in the unified one (`controller` NULL): malloc'd, NULL when unknown or out of
 * memory. */
char *cf_cgroup_own_path(const char *controller);

/* True when no process but this one is in the cgroup `dir` (its cgroup.procs). */
bool cf_cgroup_alone_in(const char *dir);

/* Whether this process could create a limiting cgroup here (for probe). */
bool cf_cgroup_available(void);

/* NULL when this kernel has what the IPC guard (R36) needs, else what it lacks: seccomp user
 * notification, answered with SECCOMP_IOCTL_NOTIF_ADDFD (Linux 5.9) from a wait that only a
 * fatal signal ends (5.19), pidfd_getfd and openat2 (5.6), process_vm_readv, and
 * Landlock for the write direction: Landlock ABI 2 (Linux 5.19) stands for the kernel's
 * version; each call is also tried, in case a seccomp filter around confine (a container's
 * profile) refuses it.  `landlock_abi` and `seccomp` as the host facts. */
const char *cf_ipc_guard_missing(int landlock_abi, bool seccomp);

/* Whether Yama lets confine read the command's memory and take its descriptors: its
 * ptrace_scope 2 and 3 refuse that to a thread without capabilities (no Yama: true).  The
 * landlock supervisor and its opener need it. */
bool cf_yama_allows_ptrace(void);

/* NULL when the landlock backend's opener can act for the command here, else what it lacks:
 * what the bwrap backend's IPC guard lacks (`ipc_guard_missing`, above), or ptrace access to
 * the command (Yama's ptrace_scope 2 or 3). */
const char *cf_opener_missing(const char *ipc_guard_missing);

#endif
