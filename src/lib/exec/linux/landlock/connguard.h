/* SPDX-License-Identifier: MIT */
/*
 * The connect guard of the landlock backend's network by domain (SPEC 12): a thread of
 * confine's that answers the seccomp user notifications of the command's connect(2) calls.
 * Linux only; touches the OS.
 *
 * Landlock limits TCP connects to the proxy's port number, but on every address: a server of
 * any host that listens on that port (or on all ports) would be reachable.  So the filter hands
 * each connect(2) to confine, which reads the address asked for, and for 127.0.0.1 on the
 * proxy's port (or its IPv4-mapped form) takes the socket itself (pidfd_getfd) and connects it
 * to its own copy of that address; everything else is refused with EACCES.  The command's
 * memory is read once and never again by the kernel: a thread of the command that rewrites the
 * address meanwhile can only choose between those two outcomes (no time-of-check race).
 */
#ifndef CONFINE_CONNGUARD_H
#define CONFINE_CONNGUARD_H

#include "confine.h"

struct cf_connguard;

/*
 * Starts the guard's thread before the command exists.  It waits on `handoff_fd` (a stream
 * unix socket, taken over) for the seccomp listener the child sends right after it installs the
 * filter (SECCOMP_FILTER_FLAG_NEW_LISTENER), then answers every notification: connects TCP
 * sockets to 127.0.0.1:`port` only (none when port is 0), and unix streams to the ssh-agent
 * filter's socket `agent` only (R44; none when NULL), each with its own copy of the address.
 * When the handoff ends without a listener (the child failed before exec), the thread just
 * waits to be stopped.
 */
int cf_connguard_start(int handoff_fd, unsigned port, const char *agent, struct cf_connguard **out,
		       struct confine_error *err);

/* What it did: connects made to the proxy, connects refused. */
void cf_connguard_counts(struct cf_connguard *g, unsigned long *made, unsigned long *refused);

/* Stops the thread and closes the listener: a notification still to come (a process that
 * outlived the run) is answered by the kernel with ENOSYS.  Accepts NULL. */
void cf_connguard_free(struct cf_connguard *g);

/* The landlock supervisor's use (supervisor.c): a guard whose thread receives no listener;
 * cf_connguard_answer decides one notification of `listener` (0 or minus an errno), counted
 * as the thread would.  `req` is a struct seccomp_notif. */
struct seccomp_notif;
int cf_connguard_new(unsigned port, const char *agent, struct cf_connguard **out,
		     struct confine_error *err);
int cf_connguard_answer(struct cf_connguard *g, int listener, const struct seccomp_notif *req);

#endif
