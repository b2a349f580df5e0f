/* SPDX-License-Identifier: MIT */
/*
 * confine-init's relay (SPEC 12): in the sandbox's own network namespace, pid 1 listens on
 * 127.0.0.1:3128 (HTTP proxy) and 127.0.0.1:1080 (SOCKS5) and carries each connection to
 * confine's proxy on the host through the unix sockets bound at /dev/.confine-net.  It adds no
 * process: the same event loop takes the signals pid 1 forwards and reaps the orphans.  It
 * decides nothing; the proxy does.  A connection is relayed with two pumps (splice through a
 * pipe, back-pressure, half-close passed on).
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
#include "net/pump.h"

#define MAX_CONNS 1024

enum { R_SIG, R_HTTP, R_SOCKS, R_TCP, R_UNIX };

struct rconn;
struct rref {
	int what;
	struct rconn *c;
};

struct rconn {
	struct rref tref, uref;
	int tfd, ufd;
	unsigned tev, uev;
	struct cf_pump up, down; /* tcp -> unix, unix -> tcp */
	bool closed;
	struct rconn *next_free;
	size_t slot;
};

struct relay {
	int ep;
	struct rconn *conns[MAX_CONNS];
	size_t n;
	struct rconn *free_list;
	bool accepting;
	struct rref r_http, r_socks;
	int http_l, socks_l;
};

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

static void interest(struct relay *r, int fd, struct rref *ref, unsigned *cur, unsigned want)
{
	if (*cur == want)
		return;
	struct epoll_event ev = {.events = want, .data.ptr = ref};
	epoll_ctl(r->ep, *cur == ~0u ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &ev);
	*cur = want;
}

static void accepting(struct relay *r, bool on)
{
	if (r->accepting == on)
		return;
	r->accepting = on;
	struct epoll_event ev = {.events = on ? EPOLLIN : 0, .data.ptr = &r->r_http};
	epoll_ctl(r->ep, EPOLL_CTL_MOD, r->http_l, &ev);
	ev.data.ptr = &r->r_socks;
	epoll_ctl(r->ep, EPOLL_CTL_MOD, r->socks_l, &ev);
}

static void conn_close(struct relay *r, struct rconn *c)
{
	if (c->closed)
		return;
	c->closed = true;
	close(c->tfd);
	close(c->ufd);
	cf_pump_release(&c->up);
	cf_pump_release(&c->down);
	r->conns[c->slot] = r->conns[--r->n];
	r->conns[c->slot]->slot = c->slot;
	c->next_free = r->free_list;
	r->free_list = c;
	accepting(r, true);
}

static void update(struct relay *r, struct rconn *c)
{
	unsigned tev = 0, uev = 0;
	if (cf_pump_wants_read(&c->up))
		tev |= EPOLLIN;
	if (cf_pump_wants_write(&c->up))
		uev |= EPOLLOUT;
	if (cf_pump_wants_read(&c->down))
		uev |= EPOLLIN;
	if (cf_pump_wants_write(&c->down))
		tev |= EPOLLOUT;
	interest(r, c->tfd, &c->tref, &c->tev, tev);
	interest(r, c->ufd, &c->uref, &c->uev, uev);
}

static void progress(struct relay *r, struct rconn *c, uint32_t ev)
{
	int moved = 0;
	for (int round = 0; round < 8; round++) {
		int a = cf_pump_step(&c->up, c->tfd, c->ufd);
		int b = cf_pump_step(&c->down, c->ufd, c->tfd);
		if (a < 0 || b < 0 || (c->up.shut && c->down.shut)) {
			conn_close(r, c);
			return;
		}
		if (!a && !b)
			break;
		moved = 1;
	}
	/* A hang-up with nothing left to move: the other side is gone. */
	if (!moved && (ev & (EPOLLHUP | EPOLLERR))) {
		conn_close(r, c);
		return;
	}
	update(r, c);
}

static void accept_one(struct relay *r, int lfd, const char *sock)
{
	while (r->n < MAX_CONNS) {
		int t = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (t < 0) {
			/* Out of descriptors: wait for a connection to end rather than spin on a
			 * listener that stays readable. */
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM)
				accepting(r, false);
			return;
		}
		int u = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		struct sockaddr_un a = {.sun_family = AF_UNIX};
		memcpy(a.sun_path, sock, strlen(sock) + 1);
		struct rconn *c = u >= 0 ? calloc(1, sizeof(*c)) : NULL;
		/* A unix connect completes at once or fails: EAGAIN means the proxy's backlog is
		 * full, and the client is better told by a reset than kept waiting. */
		if (!c || connect(u, (struct sockaddr *)&a, sizeof(a)) < 0 ||
		    cf_pump_init(&c->up) < 0) {
			free(c);
			if (u >= 0)
				close(u);
			close(t);
			continue;
		}
		if (cf_pump_init(&c->down) < 0) {
			cf_pump_release(&c->up);
			free(c);
			close(u);
			close(t);
			continue;
		}
		c->tfd = t;
		c->ufd = u;
		c->tev = c->uev = ~0u;
		c->tref = (struct rref){R_TCP, c};
		c->uref = (struct rref){R_UNIX, c};
		c->slot = r->n;
		r->conns[r->n++] = c;
		update(r, c);
	}
	accepting(r, false);
}

/* Everything still open, when the command has ended (pid 1 exits next). */
static void relay_end(struct relay *r)
{
	while (r->n)
		conn_close(r, r->conns[r->n - 1]);
	while (r->free_list) {
		struct rconn *c = r->free_list;
		r->free_list = c->next_free;
		free(c);
	}
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

int cf_relay_run(int http_l, int socks_l, const sigset_t *set, pid_t child)
{
	struct relay r = {.http_l = http_l, .socks_l = socks_l, .accepting = true};
	r.r_http = (struct rref){R_HTTP, NULL};
	r.r_socks = (struct rref){R_SOCKS, NULL};
	struct rref r_sig = {R_SIG, NULL};
	int sfd = signalfd(-1, set, SFD_CLOEXEC | SFD_NONBLOCK);
	r.ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = {.events = EPOLLIN};
	int status = 125;
	if (sfd < 0 || r.ep < 0)
		goto fallback;
	ev.data.ptr = &r_sig;
	epoll_ctl(r.ep, EPOLL_CTL_ADD, sfd, &ev);
	ev.data.ptr = &r.r_http;
	epoll_ctl(r.ep, EPOLL_CTL_ADD, http_l, &ev);
	ev.data.ptr = &r.r_socks;
	epoll_ctl(r.ep, EPOLL_CTL_ADD, socks_l, &ev);
	static const char http_sock[] = CF_NET_DIR "/" CF_NET_HTTP_SOCK;
	static const char socks_sock[] = CF_NET_DIR "/" CF_NET_SOCKS_SOCK;
	/* The command may have ended before the loop: its SIGCHLD is pending in the signalfd. */
	for (;;) {
		struct epoll_event evs[64];
		int n = epoll_wait(r.ep, evs, 64, -1);
		if (n < 0 && errno != EINTR)
			goto fallback;
		for (int i = 0; i < n; i++) {
			struct rref *x = evs[i].data.ptr;
			if (x->what == R_SIG) {
				struct signalfd_siginfo si;
				while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
					if (si.ssi_signo != SIGCHLD) {
						kill(child, (int)si.ssi_signo);
					} else if (reap(child, &status)) {
						relay_end(&r);
						return status;
					}
				}
			} else if (x->what == R_HTTP) {
				accept_one(&r, http_l, http_sock);
			} else if (x->what == R_SOCKS) {
				accept_one(&r, socks_l, socks_sock);
			} else if (!x->c->closed) {
				progress(&r, x->c, evs[i].events);
			}
		}
		while (r.free_list) {
			struct rconn *c = r.free_list;
			r.free_list = c->next_free;
			free(c);
		}
	}
fallback:
	/* No event loop: no relay, but pid 1's other duties hold. */
	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(set, &si);
		if (sig < 0)
			continue;
		if (sig != SIGCHLD)
			kill(child, sig);
		else if (reap(child, &status))
			return status;
	}
}
