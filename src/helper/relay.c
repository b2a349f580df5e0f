/* SPDX-License-Identifier: MIT */
/*
 * confine-init's relay (SPEC 12): in the sandbox's own network namespace, pid 1 listens on
 * 127.0.0.1:3128 (HTTP proxy) and 127.0.0.1:1080 (SOCKS5) and hands each connection it accepts
 * over to confine's proxy on the host, through the handoff socket bound at
 * /dev/.confine-net/proxy.sock: one message per connection, the kind and the socket itself
 * (SCM_RIGHTS).  No byte of the traffic passes through pid 1 and it keeps nothing per
 * connection: the proxy reads and writes the command's socket directly.  It adds no process:
 * the same loop takes the signals pid 1 forwards and reaps the orphans.  It decides nothing;
 * the proxy does.
 */
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper/relay.h"
#include "net/netconst.h"
#include "util/fdpass.h"

enum { R_SIG, R_HTTP, R_SOCKS, R_HANDOFF };

int cf_relay_listen(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 4096) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int cf_relay_connect(void)
{
	static const char path[] = CF_NET_DIR "/" CF_NET_HANDOFF_SOCK;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	memcpy(a.sun_path, path, sizeof(path));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

struct relay {
	int ep, handoff, http_l, socks_l;
	int pending; /* an accepted connection the handoff socket had no room for, or -1 */
	char pending_kind;
	bool listening;
};

static void set(struct relay *r, int fd, int what, unsigned events)
{
	struct epoll_event ev = {.events = events, .data.u32 = (uint32_t)what};
	epoll_ctl(r->ep, EPOLL_CTL_MOD, fd, &ev);
}

/* Listen, or wait for room in the handoff socket: never both (back-pressure: connections wait
 * in the listen backlog while the proxy is busy). */
static void listen_on(struct relay *r, bool on)
{
	r->listening = on;
	set(r, r->http_l, R_HTTP, on ? EPOLLIN : 0);
	set(r, r->socks_l, R_SOCKS, on ? EPOLLIN : 0);
	set(r, r->handoff, R_HANDOFF, on ? 0 : EPOLLOUT);
}

/* Returns 1 when handed over, 0 when the handoff socket is full, -1 when it is broken. */
static int hand_over(struct relay *r, int fd, char kind)
{
	if (cf_fd_send(r->handoff, kind, fd, MSG_DONTWAIT) == 1) {
		close(fd); /* the proxy holds it now */
		return 1;
	}
	/* Full, or too many descriptors in flight for this user (ETOOMANYREFS): the proxy is
	 * taking them; try again when there is room. */
	return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ETOOMANYREFS ||
		       errno == ENOBUFS
		   ? 0
		   : -1;
}

static void proxy_gone(struct relay *r)
{
	/* Without the proxy nothing can be reached: the command is refused at once rather than
	 * left waiting in a backlog nobody reads. */
	if (r->pending >= 0)
		close(r->pending);
	r->pending = -1;
	epoll_ctl(r->ep, EPOLL_CTL_DEL, r->handoff, NULL);
	epoll_ctl(r->ep, EPOLL_CTL_DEL, r->http_l, NULL);
	epoll_ctl(r->ep, EPOLL_CTL_DEL, r->socks_l, NULL);
	close(r->http_l);
	close(r->socks_l);
	r->http_l = r->socks_l = -1;
}

static void accept_all(struct relay *r, int lfd, char kind)
{
	while (r->http_l >= 0) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			/* Out of descriptors: wait for room at the proxy instead of spinning. */
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM)
				listen_on(r, false);
			return;
		}
		int h = hand_over(r, fd, kind);
		if (h < 0) {
			close(fd);
			proxy_gone(r);
			return;
		}
		if (h == 0) {
			r->pending = fd;
			r->pending_kind = kind;
			listen_on(r, false);
			return;
		}
	}
}

static void flush_pending(struct relay *r, uint32_t events)
{
	if (events & (EPOLLHUP | EPOLLERR)) {
		proxy_gone(r);
		return;
	}
	if (r->pending >= 0) {
		int h = hand_over(r, r->pending, r->pending_kind);
		if (h < 0) {
			proxy_gone(r);
			return;
		}
		if (h == 0)
			return;
		r->pending = -1;
	}
	listen_on(r, true);
}

/* Reaps every child; returns true with *status when `child` has ended. */
static bool reap(pid_t child, int *status)
{
	bool ended = false;
	int st;
	pid_t p;
	while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
		if (p != child)
			continue;
		if (WIFEXITED(st)) {
			*status = WEXITSTATUS(st);
			ended = true;
		} else if (WIFSIGNALED(st)) {
			*status = 128 + WTERMSIG(st);
			ended = true;
		}
	}
	return ended;
}

int cf_relay_run(int http_l, int socks_l, int handoff, const sigset_t *set_, pid_t child)
{
	struct relay r = {.http_l = http_l, .socks_l = socks_l, .handoff = handoff, .pending = -1};
	int status = 125;
	int sfd = signalfd(-1, set_, SFD_CLOEXEC | SFD_NONBLOCK);
	r.ep = epoll_create1(EPOLL_CLOEXEC);
	if (sfd < 0 || r.ep < 0)
		goto fallback;
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = R_SIG};
	epoll_ctl(r.ep, EPOLL_CTL_ADD, sfd, &ev);
	ev = (struct epoll_event){.events = EPOLLIN, .data.u32 = R_HTTP};
	epoll_ctl(r.ep, EPOLL_CTL_ADD, http_l, &ev);
	ev = (struct epoll_event){.events = EPOLLIN, .data.u32 = R_SOCKS};
	epoll_ctl(r.ep, EPOLL_CTL_ADD, socks_l, &ev);
	ev = (struct epoll_event){.events = 0, .data.u32 = R_HANDOFF};
	epoll_ctl(r.ep, EPOLL_CTL_ADD, handoff, &ev);
	r.listening = true;
	/* A command that ended before the loop started: its SIGCHLD waits in the signalfd. */
	for (;;) {
		struct epoll_event evs[16];
		int n = epoll_wait(r.ep, evs, 16, -1);
		if (n < 0 && errno != EINTR)
			goto fallback;
		for (int i = 0; i < n; i++) {
			switch (evs[i].data.u32) {
			case R_SIG: {
				struct signalfd_siginfo si;
				while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
					if (si.ssi_signo != SIGCHLD)
						kill(child, (int)si.ssi_signo);
					else if (reap(child, &status))
						return status;
				}
				break;
			}
			case R_HTTP:
				if (r.listening)
					accept_all(&r, r.http_l, CF_NET_HANDOFF_HTTP);
				break;
			case R_SOCKS:
				if (r.listening)
					accept_all(&r, r.socks_l, CF_NET_HANDOFF_SOCKS);
				break;
			case R_HANDOFF:
				if (r.http_l >= 0)
					flush_pending(&r, evs[i].events);
				break;
			}
		}
	}
fallback:
	/* No event loop: no relay, but pid 1's other duties hold. */
	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(set_, &si);
		if (sig < 0)
			continue;
		if (sig != SIGCHLD)
			kill(child, sig);
		else if (reap(child, &status))
			return status;
	}
}
