/* SPDX-License-Identifier: MIT */
/* The seccomp user notification's receive and answer (notif.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exec/linux/notif.h"
#include "util/fdpass.h"

#include "util/linux_abi.h"

void cf_notif_sizes(size_t *req_size, size_t *resp_size)
{
	struct seccomp_notif_sizes sizes = {0};
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0)
		sizes = (struct seccomp_notif_sizes){sizeof(struct seccomp_notif),
						     sizeof(struct seccomp_notif_resp),
						     sizeof(struct seccomp_data)};
	*req_size = sizes.seccomp_notif > sizeof(struct seccomp_notif)
			? sizes.seccomp_notif
			: sizeof(struct seccomp_notif);
	if (resp_size)
		*resp_size = sizes.seccomp_notif_resp > sizeof(struct seccomp_notif_resp)
				 ? sizes.seccomp_notif_resp
				 : sizeof(struct seccomp_notif_resp);
}

int cf_notif_send_listener(int sock, int listener)
{
	ssize_t k;
	do
		k = cf_fd_send(sock, 'L', listener, 0);
	while (k < 0 && errno == EINTR);
	return k == 1 ? 0 : -1;
}

int cf_notif_recv_listener(int sock)
{
	char byte;
	int lfd;
	ssize_t k;
	do
		k = cf_fd_recv(sock, &byte, &lfd, 0);
	while (k < 0 && errno == EINTR);
	return k > 0 ? lfd : -1;
}

void cf_notif_sync_wake(int listener)
{
	if (listener >= 0)
		(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
			    SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, 0);
}

bool cf_notif_wait(int wake, int *fd)
{
	struct pollfd p[2] = {{.fd = wake, .events = POLLIN}, {.fd = *fd, .events = POLLIN}};
	for (;;) {
		int n = poll(p, 2, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (p[0].revents & POLLIN))
			return false;
		if (p[1].revents & POLLIN)
			return true;
		if (p[1].revents & (POLLHUP | POLLERR | POLLNVAL))
			*fd = p[1].fd = -1;
	}
}

bool cf_notif_recv(int listener, struct seccomp_notif *req, size_t size)
{
	memset(req, 0, size);
	return ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req) == 0;
}

bool cf_notif_pending(int listener, uint64_t id)
{
	return ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

void cf_notif_send(int listener, struct seccomp_notif_resp *resp)
{
	while (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp) < 0 && errno == EINTR)
		;
}

void cf_notif_send_error(int listener, uint64_t id, int error)
{
	struct seccomp_notif_resp resp = {.id = id, .error = error};
	cf_notif_send(listener, &resp);
}

int cf_notif_addfd(int listener, uint64_t id, int fd, unsigned newfd_flags)
{
	struct seccomp_notif_addfd add = {.id = id,
					  .flags = SECCOMP_ADDFD_FLAG_SEND,
					  .srcfd = (uint32_t)fd,
					  .newfd = 0,
					  .newfd_flags = newfd_flags};
	/* Once: with FLAG_SEND the kernel marks the call answered before it waits, so a call
	 * interrupted there and made again fails with EINPROGRESS (the guards' threads block
	 * every signal, so none is expected). */
	return ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add) < 0 ? -errno : 0;
}

void cf_notif_send_fd(int listener, uint64_t id, int fd, bool cloexec)
{
	int r = cf_notif_addfd(listener, id, fd, cloexec ? O_CLOEXEC : 0);
	/* Not installed (the command's descriptor limit): the command gets that error. */
	if (r < 0 && r != -ENOENT)
		cf_notif_send_error(listener, id, r);
	close(fd);
}
