/* SPDX-License-Identifier: MIT */
/*
 * The connect guard (see connguard.h).  One thread, blocking calls, every signal blocked.
 *
 * For each notification (the calling thread of the command is stopped in connect(2) until the
 * answer):
 *   1. the address is copied out of the command's memory once (process_vm_readv);
 *   2. anything but 127.0.0.1 (or ::ffff:127.0.0.1) on the proxy's port, or AF_UNSPEC (which
 *      only dissolves an association), is refused with EACCES;
 *   3. the socket is taken from the command (pidfd_getfd; the thread's own descriptor table
 *      where the kernel has PIDFD_THREAD) and must be a TCP socket;
 *   4. the notification is checked to be still pending: the thread is alive, so neither its
 *      pid nor its memory can have been reused while 1 and 3 ran;
 *   5. confine connects the socket to its own copy of the proxy's address and answers with
 *      what connect(2) returned (EINPROGRESS for a non-blocking socket, as the command would
 *      have seen).
 * Nothing the command controls is read by the kernel after the check, and a socket connected
 * here is the command's own open file: its options and flags stay as the command set them.
 *
 * Permissions: pidfd_getfd and process_vm_readv need ptrace access to the command (confine is
 * its parent, the same user, or root).  Where that is refused (Yama ptrace_scope 2 or 3 for a
 * caller that is not root, or a process that left confine's line of descendants under Yama 1),
 * the connect is refused with EACCES: fail closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "exec/linux/landlock/connguard.h"
#include "exec/linux/notif.h"
#include "exec/linux/pidfd.h"
#include "util/util.h"
#include "util/thread.h"

#include "util/linux_abi.h"

struct cf_connguard {
	int handoff_fd, listener, wake_fd;
	bool borrowed; /* the listener is the landlock supervisor's (cf_connguard_answer) */
	struct sockaddr_in proxy4;
	struct sockaddr_in6 proxy6; /* ::ffff:127.0.0.1, for an AF_INET6 socket */
	bool proxy;		    /* a proxy port was given */
	struct sockaddr_un agent;   /* the ssh-agent filter's socket (R44); sun_path "" none */
	socklen_t agent_len;
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	unsigned long made, refused;
};

/* Whether the unix address asked for (len bytes) names the agent's socket: the same path,
 * with or without its NUL, nothing but NULs after it.  An abstract or unnamed address never
 * does. */
static bool agent_address(const struct cf_connguard *g, const struct sockaddr_storage *sa,
			  size_t len)
{
	const struct sockaddr_un *u = (const struct sockaddr_un *)sa;
	size_t off = offsetof(struct sockaddr_un, sun_path), n = strlen(g->agent.sun_path);
	if (len < off + n || len > sizeof(*u))
		return false;
	if (memcmp(u->sun_path, g->agent.sun_path, n))
		return false;
	for (size_t i = n; i < len - off; i++)
		if (u->sun_path[i])
			return false;
	return true;
}

/* The answer to one connect(2): 0 or minus an errno; *made when confine connected. */
static int on_connect(struct cf_connguard *g, const struct seccomp_notif *req, bool *made)
{
	int sfd = (int)req->data.args[0];
	uint64_t addr = req->data.args[1];
	uint64_t len = req->data.args[2];
	struct sockaddr_storage sa;
	memset(&sa, 0, sizeof(sa));
	/* The kernel's own checks on the length, before anything is read. */
	if (len > sizeof(sa))
		return -EINVAL;
	if (len < sizeof(sa_family_t))
		return -EINVAL;
	struct iovec local = {.iov_base = &sa, .iov_len = (size_t)len};
	struct iovec remote = {.iov_base = (void *)(uintptr_t)addr, .iov_len = (size_t)len};
	ssize_t k = process_vm_readv(req->pid, &local, 1, &remote, 1, 0);
	if (k != (ssize_t)len)
		return k < 0 && errno == EFAULT ? -EFAULT : -EACCES;

	const struct sockaddr *to = NULL;
	socklen_t to_len = 0;
	struct sockaddr unspec = {.sa_family = AF_UNSPEC};
	if (sa.ss_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)&sa;
		if (a->sin_addr.s_addr == g->proxy4.sin_addr.s_addr &&
		    a->sin_port == g->proxy4.sin_port) {
			to = (const struct sockaddr *)&g->proxy4;
			to_len = sizeof(g->proxy4);
		}
	} else if (sa.ss_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&sa;
		if (!memcmp(&a->sin6_addr, &g->proxy6.sin6_addr, sizeof(a->sin6_addr)) &&
		    a->sin6_port == g->proxy6.sin6_port) {
			to = (const struct sockaddr *)&g->proxy6;
			to_len = sizeof(g->proxy6);
		}
	} else if (sa.ss_family == AF_UNSPEC) {
		to = &unspec;
		to_len = sizeof(unspec);
	} else if (sa.ss_family == AF_UNIX && g->agent_len && agent_address(g, &sa, (size_t)len)) {
		to = (const struct sockaddr *)&g->agent;
		to_len = g->agent_len;
	}
	if (!to || (!g->proxy && to != (const struct sockaddr *)&g->agent && to != &unspec))
		return -EACCES;
	int want_domain = to == (const struct sockaddr *)&g->agent ? AF_UNIX : 0;

	int pfd = cf_pidfd_of_thread(AT_FDCWD, req->pid, NULL);
	if (pfd < 0)
		return -EACCES;
	int sock = (int)syscall(__NR_pidfd_getfd, pfd, sfd, 0U);
	int e = errno;
	close(pfd);
	if (sock < 0)
		return e == EBADF ? -EBADF : -EACCES;
	int r = 0;
	struct stat st;
	int dom = 0, type = 0, proto = 0;
	socklen_t l = sizeof(int);
	if (fstat(sock, &st) < 0 || !S_ISSOCK(st.st_mode))
		r = -ENOTSOCK;
	else if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &dom, &l) < 0 ||
		 (l = sizeof(int), getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &l)) < 0 ||
		 (l = sizeof(int), getsockopt(sock, SOL_SOCKET, SO_PROTOCOL, &proto, &l)) < 0 ||
		 type != SOCK_STREAM ||
		 (want_domain == AF_UNIX
		      ? dom != AF_UNIX
		      : (dom != AF_INET && dom != AF_INET6) || proto != IPPROTO_TCP))
		r = -EACCES; /* a stream socketpair, or a unix stream for a TCP address */
	else if (!cf_notif_pending(g->listener, req->id))
		r = -EACCES; /* gone meanwhile: the answer goes nowhere */
	else if ((*made = true, connect(sock, to, to_len) < 0))
		r = -errno;
	close(sock);
	return r;
}

/* The answer to one notification (connect(2) or a call the guard does not know: EPERM),
 * counted: 0 or minus an errno. */
static int decide(struct cf_connguard *g, const struct seccomp_notif *req)
{
	bool made = false;
	int r = req->data.nr == __NR_connect ? on_connect(g, req, &made) : -EPERM;
	pthread_mutex_lock(&g->lock);
	if (made)
		g->made++;
	else
		g->refused++;
	pthread_mutex_unlock(&g->lock);
	return r;
}

static void *loop(void *arg)
{
	struct cf_connguard *g = arg;
	size_t rq, rs;
	cf_notif_sizes(&rq, &rs);
	struct seccomp_notif *req = calloc(1, rq);
	struct seccomp_notif_resp *resp = calloc(1, rs);
	int fd = g->handoff_fd;
	while (cf_notif_wait(g->wake_fd, &fd)) {
		if (g->handoff_fd >= 0) {
			g->listener = fd = cf_notif_recv_listener(g->handoff_fd);
			close(g->handoff_fd);
			g->handoff_fd = -1;
		} else if (!req || !resp) {
			/* Out of memory: no answer can be made; the listener goes, and the kernel
			 * answers every connect(2) with ENOSYS (fail closed). */
			close(g->listener);
			g->listener = fd = -1;
		} else if (cf_notif_recv(g->listener, req, rq)) {
			memset(resp, 0, rs);
			resp->id = req->id;
			resp->error = decide(g, req);
			cf_notif_send(g->listener, resp);
		}
	}
	free(req);
	free(resp);
	return NULL;
}

int cf_connguard_start(int handoff_fd, unsigned port, const char *agent, struct cf_connguard **out,
		       struct confine_error *err)
{
	*out = NULL;
	struct cf_connguard *g = calloc(1, sizeof(*g));
	if (!g) {
		close(handoff_fd);
		return cf_nomem(err);
	}
	g->handoff_fd = handoff_fd;
	g->proxy = port != 0;
	g->agent.sun_family = AF_UNIX;
	if (agent && strlen(agent) < sizeof(g->agent.sun_path)) {
		memcpy(g->agent.sun_path, agent, strlen(agent) + 1);
		g->agent_len =
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(agent) + 1);
	}
	g->listener = -1;
	g->proxy4 = (struct sockaddr_in){.sin_family = AF_INET,
					 .sin_port = htons((uint16_t)port),
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	g->proxy6 =
	    (struct sockaddr_in6){.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};
	g->proxy6.sin6_addr.s6_addr[10] = 0xff;
	g->proxy6.sin6_addr.s6_addr[11] = 0xff;
	g->proxy6.sin6_addr.s6_addr[12] = 127;
	g->proxy6.sin6_addr.s6_addr[15] = 1;
	pthread_mutex_init(&g->lock, NULL);
	g->wake_fd = eventfd(0, EFD_CLOEXEC);
	if (g->wake_fd < 0) {
		int e = errno;
		cf_connguard_free(g);
		return cf_err_os(err, CONFINE_E_OS, "cannot start the connect guard", "eventfd",
				 "eventfd", e);
	}
	int e = cf_thread_start(&g->thread, 0, false, loop, g);
	if (e) {
		cf_connguard_free(g);
		return cf_err_os(err, CONFINE_E_OS, "cannot start the connect guard", "thread",
				 "pthread_create", e);
	}
	g->started = true;
	*out = g;
	return 0;
}

void cf_connguard_counts(struct cf_connguard *g, unsigned long *made, unsigned long *refused)
{
	pthread_mutex_lock(&g->lock);
	*made = g->made;
	*refused = g->refused;
	pthread_mutex_unlock(&g->lock);
}

void cf_connguard_free(struct cf_connguard *g)
{
	if (!g)
		return;
	if (g->started) {
		uint64_t one = 1;
		ssize_t k = write(g->wake_fd, &one, sizeof(one));
		(void)k;
		pthread_join(g->thread, NULL);
	}
	if (g->handoff_fd >= 0)
		close(g->handoff_fd);
	if (g->listener >= 0 && !g->borrowed)
		close(g->listener);
	if (g->wake_fd >= 0)
		close(g->wake_fd);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

/*
 * The landlock backend's supervisor (supervisor.c) holds the one listener a filter may have
 * and hands connect(2) and the calls it does not know here: the same decision as the guard's
 * own thread makes, with `listener` to check that the notification is still pending.
 */
int cf_connguard_new(unsigned port, const char *agent, struct cf_connguard **out,
		     struct confine_error *err)
{
	int r = cf_connguard_start(-1, port, agent, out, err);
	if (r == 0) {
		(*out)->borrowed = true;
		/* No handoff: the thread waits for nothing but its stop. */
	}
	return r;
}

int cf_connguard_answer(struct cf_connguard *g, int listener, const struct seccomp_notif *req)
{
	pthread_mutex_lock(&g->lock);
	g->listener = listener;
	pthread_mutex_unlock(&g->lock);
	return decide(g, req);
}
