/* SPDX-License-Identifier: MIT */
/* One reader of a thread's pidfd and thread group (see pidfd.h).  Linux only. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exec/linux/pidfd.h"

#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
/* pidfd_open(2) of one thread (Linux 6.9); older kernels answer EINVAL. */
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

pid_t cf_proc_tgid(int proc_fd, pid_t tid)
{
	char path[40], buf[512];
	snprintf(path, sizeof(path), "%s%d/status", proc_fd == AT_FDCWD ? "/proc/" : "", (int)tid);
	int fd = openat(proc_fd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	const char *t = strstr(buf, "\nTgid:");
	return t ? (pid_t)strtol(t + 6, NULL, 10) : -1;
}

int cf_pidfd_of_thread(int proc_fd, pid_t tid, pid_t *tgid)
{
	int fd = (int)syscall(__NR_pidfd_open, tid, PIDFD_THREAD);
	if (fd >= 0 || errno != EINVAL)
		return fd;
	pid_t g = tgid && *tgid ? *tgid : cf_proc_tgid(proc_fd, tid);
	if (tgid)
		*tgid = g;
	if (g <= 0) {
		errno = ESRCH;
		return -1;
	}
	return (int)syscall(__NR_pidfd_open, g, 0);
}
