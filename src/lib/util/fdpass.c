/* SPDX-License-Identifier: MIT */
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "util/fdpass.h"

union fd_cmsg {
	struct cmsghdr align;
	char buf[CMSG_SPACE(sizeof(int))];
};

ssize_t cf_fd_send(int sock, char tag, int fd, int flags)
{
	union fd_cmsg ctl;
	memset(&ctl, 0, sizeof(ctl));
	struct iovec iov = {.iov_base = &tag, .iov_len = 1};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = ctl.buf,
			   .msg_controllen = sizeof(ctl.buf)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &m, flags | MSG_NOSIGNAL);
}

ssize_t cf_fd_recv(int sock, char *tag, int *fd_out, int flags)
{
	union fd_cmsg ctl;
	struct iovec iov = {.iov_base = tag, .iov_len = 1};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = ctl.buf,
			   .msg_controllen = sizeof(ctl.buf)};
	*fd_out = -1;
	ssize_t k = recvmsg(sock, &m, flags | MSG_CMSG_CLOEXEC);
	if (k <= 0)
		return k;
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
	    cm->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(fd_out, CMSG_DATA(cm), sizeof(int));
	return k;
}
