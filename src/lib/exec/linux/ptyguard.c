/* SPDX-License-Identifier: MIT */
/*
 * The terminal side of a pseudo-terminal the command made (R42), opened by the supervisor.
 *
 * Only the terminals the command was given are granted by path (landlock/spawn.c), so that no
 * other node of the host's devpts is reachable.  A pty the command makes itself (script, tmux,
 * python's pty module, node-pty: glibc's openpty opens /dev/ptmx, then asks the master for its
 * peer with TIOCGPTPEER) has its terminal side at a new /dev/pts/N, and Landlock checks the
 * peer's open against that path: EACCES.  So TIOCGPTPEER goes to the supervisor, which takes
 * the master from the command (pidfd_getfd), checks that it is a pseudo-terminal master
 * (/dev/ptmx's device and TIOCGPTN), asks it for its peer itself, always with O_NOCTTY (the
 * peer never becomes a terminal of confine's), and installs the descriptor in the command as
 * the answer (SECCOMP_IOCTL_NOTIF_ADDFD with SEND).  The peer of a master the command holds is
 * its own pty by construction: no path is looked up, so no host terminal can be named.
 *
 * Opening the terminal side by its name (ptsname, then open: expect, some older programs) is
 * still refused with EACCES: that open goes to the kernel, not to confine.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exec/linux/notif.h"
#include "exec/linux/pidfd.h"
#include "exec/linux/ptyguard.h"

#include "util/linux_abi.h"

bool cf_pty_handles(const struct seccomp_notif *req)
{
	return req->data.nr == __NR_ioctl && (uint32_t)req->data.args[1] == (uint32_t)TIOCGPTPEER;
}

/* The command's descriptor `fd` as ours, or -1. */
static int take(pid_t tid, uint64_t fd)
{
	if ((int64_t)(int)fd != (int64_t)fd || (int)fd < 0)
		return -1;
	int pfd = cf_pidfd_of_thread(AT_FDCWD, tid, NULL);
	if (pfd < 0)
		return -1;
	int f = (int)syscall(__NR_pidfd_getfd, pfd, (int)fd, 0U);
	close(pfd);
	return f;
}

bool cf_pty_answer(int listener, const struct seccomp_notif *req, int *error)
{
	int flags = (int)req->data.args[2];
	int allowed = O_ACCMODE | O_NOCTTY | O_CLOEXEC | O_NONBLOCK;
	int master = -1, peer = -1;
	bool sent = false;
	struct stat st;
	unsigned n;
	*error = -EACCES;
	if (flags & ~allowed) {
		*error = -EINVAL;
		return false;
	}
	master = take(req->pid, req->data.args[0]);
	if (master < 0) {
		*error = -EBADF;
		goto out;
	}
	if (fstat(master, &st) < 0 || !S_ISCHR(st.st_mode) || major(st.st_rdev) != 5 ||
	    minor(st.st_rdev) != 2 || ioctl(master, TIOCGPTN, &n) < 0) {
		*error = -ENOTTY; /* what the kernel says for a descriptor that is no master */
		goto out;
	}
	peer = ioctl(master, TIOCGPTPEER, (flags & ~O_CLOEXEC) | O_NOCTTY | O_CLOEXEC);
	if (peer < 0) {
		*error = -errno;
		goto out;
	}
	if (!cf_notif_pending(listener, req->id))
		goto out; /* gone meanwhile */
	int r = cf_notif_addfd(listener, req->id, peer, (unsigned)(flags & O_CLOEXEC));
	if (r == 0)
		sent = true;
	else
		*error = r == -EMFILE ? -EMFILE : -EACCES;
out:
	if (peer >= 0)
		close(peer);
	if (master >= 0)
		close(master);
	return sent;
}
