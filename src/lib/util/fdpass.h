/* SPDX-License-Identifier: MIT */
/*
 * One descriptor over a unix socket (SCM_RIGHTS) with a one-byte tag: the handoffs of the
 * network proxy (confine-init's relay to the proxy) and of the connect guard (the command's
 * seccomp listener to confine).  No allocation, no other dependency: confine-init links it
 * too.
 */
#ifndef CONFINE_FDPASS_H
#define CONFINE_FDPASS_H

#include <sys/types.h>

/* sendmsg(2) of the byte `tag` with `fd` attached, with `flags` (MSG_NOSIGNAL is added): its
 * result (1 when sent), -1 with errno.  One call: the caller decides about EINTR. */
ssize_t cf_fd_send(int sock, char tag, int fd, int flags);
/* recvmsg(2) of one byte into *tag, with `flags` (MSG_CMSG_CLOEXEC is added): its result.
 * *fd_out is the descriptor that came with it, or -1 when none did (one at most: the kernel
 * closes the others, MSG_CTRUNC). */
ssize_t cf_fd_recv(int sock, char *tag, int *fd_out, int flags);

#endif
