/* SPDX-License-Identifier: MIT */
/*
 * The pty is the sandbox's own: its slave is /dev/pts/N of the sandbox (so ttyname and
 * /dev/tty work inside), no node of it exists on the host, and confine holds only the master,
 * which confine-init opened before the command could run anything.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "helper/tty.h"
#include "util/fdpass.h"

#include "util/linux_abi.h"

int cf_helper_pty_open(int chan)
{
	int m = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC), s = -1, unlock = 0;
	if (m < 0)
		return -1;
	if (ioctl(m, TIOCSPTLCK, &unlock) == 0) {
		s = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
		unsigned n;
		if (s < 0 && (errno == EINVAL || errno == ENOTTY) && ioctl(m, TIOCGPTN, &n) == 0) {
			/* Before Linux 4.13: by its number in this instance. */
			char name[32];
			snprintf(name, sizeof(name), "/dev/pts/%u", n);
			s = open(name, O_RDWR | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
		}
	}
	ssize_t k = -1;
	if (s >= 0)
		do
			k = cf_fd_send(chan, 'P', m, 0);
		while (k < 0 && errno == EINTR);
	int e = errno;
	close(m);
	if (k != 1 && s >= 0) {
		close(s);
		s = -1;
	}
	errno = e;
	return s;
}

int cf_helper_pty_attach(int slave, unsigned mask)
{
	if (setsid() < 0 || ioctl(slave, TIOCSCTTY, 0) < 0)
		return -1;
	for (int fd = 0; fd < 3; fd++)
		if ((mask & (1U << fd)) && dup2(slave, fd) < 0)
			return -1;
	return 0;
}
