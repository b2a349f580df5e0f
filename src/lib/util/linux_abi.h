/* SPDX-License-Identifier: MIT */
/*
 * The kernel's numbers and flags that confine uses and that older kernel headers lack: one
 * place for them, each defined only where the system's headers have not (included after the
 * system headers it completes: linux/seccomp.h, sys/syscall.h, sys/ioctl.h, fcntl.h).  The
 * values are the kernel's ABI; they never change once released.
 */
#ifndef CONFINE_UTIL_LINUX_ABI_H
#define CONFINE_UTIL_LINUX_ABI_H

/* System calls (x86-64 and the generic table share these numbers). */
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

/* Landlock (Linux 5.13). */
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

/* seccomp: actions, operations, user notification (Linux 4.14 to 6.6). */
#ifndef SECCOMP_GET_ACTION_AVAIL
#define SECCOMP_GET_ACTION_AVAIL 2
#endif
#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS 0x80000000U
#endif
#ifndef SECCOMP_RET_USER_NOTIF
#define SECCOMP_RET_USER_NOTIF 0x7fc00000U
#endif
#ifndef SECCOMP_ADDFD_FLAG_SEND
#define SECCOMP_ADDFD_FLAG_SEND (1UL << 1)
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

/* pidfd_open's flag for a thread (Linux 6.9). */
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* close_range (Linux 5.11) and the pty's peer (Linux 4.13). */
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

#endif
