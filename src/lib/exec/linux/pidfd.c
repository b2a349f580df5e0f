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
#include "util/procfs.h"

#include "util/linux_abi.h"
/* pidfd_open(2) of one thread (Linux 6.9); older kernels answer EINVAL. */

pid_t cf_proc_tgid(int proc_fd, pid_t tid)
{
	long tgid;
	return cf_proc_status_long(proc_fd, tid, "Tgid", 10, &tgid) < 0 ? -1 : (pid_t)tgid;
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
