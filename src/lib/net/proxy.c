/* SPDX-License-Identifier: MIT */
/*
 * confine's proxy: the event loop (see proxy.h).  One thread, epoll level-triggered, every
 * descriptor non-blocking.  Connections closed while a batch of events is handled are freed
 * after the batch, so a later event of the same batch never touches freed memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "net/auth.h"
#include "net/proxy_int.h"
#include "policy/policy.h"
#include "util/fdpass.h"
#include "util/util.h"
#include "util/thread.h"

uint64_t cf_proxy_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int64_t wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void copy(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "");
}

struct cf_net_event *cf_proxy_event_new(struct cf_proxy *p)
{
	if (p->n_events >= p->cfg.max_events) {
		p->dropped++;
		return NULL;
	}
	if (p->n_events == p->cap_events) {
		size_t cap = p->cap_events ? p->cap_events * 2 : 64;
		if (cap > p->cfg.max_events)
			cap = p->cfg.max_events;
		struct cf_net_event *v = realloc(p->events, cap * sizeof(*v));
		if (!v) {
			p->dropped++;
			return NULL;
		}
		p->events = v;
		p->cap_events = cap;
	}
	struct cf_net_event *e = &p->events[p->n_events++];
	memset(e, 0, sizeof(*e));
	e->decision.size = sizeof(e->decision);
	e->time_ms = wall_ms();
	return e;
}

bool cf_proxy_record(struct conn *c, const char *outcome, const struct cf_ip *addr,
		     const char *detail)
{
	struct cf_proxy *p = c->p;
	if (c->recorded)
		return false;
	c->recorded = true;
	struct cf_net_event *e = cf_proxy_event_new(p);
	if (!e)
		return false;
	if (c->decided)
		e->time_ms = c->decided_at;
	copy(e->protocol, sizeof(e->protocol), c->proto);
	copy(e->outcome, sizeof(e->outcome), outcome);
	copy(e->detail, sizeof(e->detail), detail);
	copy(e->answer, sizeof(e->answer), c->answer);
	if (c->via_upstream && !(detail && detail[0]))
		cf_upstream_detail(p->upstream, e->detail, sizeof(e->detail));
	if (addr)
		cf_ip_format(addr, e->address, sizeof(e->address));
	struct confine_net_decision *d = &e->decision;
	copy(d->host, sizeof(d->host), c->host);
	d->port = c->port;
	if (!c->decided) {
		d->action = CONFINE_DENY;
		copy(d->layer, sizeof(d->layer), "");
		return true;
	}
	d->action = (enum confine_action)c->dec.action;
	copy(d->layer, sizeof(d->layer), cf_layer_name(c->dec.layer));
	const struct cf_net_rule *r = c->dec.rule;
	if (r) {
		d->has_rule = true;
		copy(d->source, sizeof(d->source), r->source);
		copy(d->pattern, sizeof(d->pattern), r->pattern);
		copy(d->list, sizeof(d->list), r->action == CF_ALLOW ? "allow" : "deny");
		d->index = r->index;
		d->line = r->line;
		d->column = r->column;
	}
	return true;
}

void cf_proxy_challenged(struct cf_proxy *p)
{
	if (!p->n_events)
		return;
	if (p->n_challenges == p->cap_challenges) {
		size_t cap = p->cap_challenges ? p->cap_challenges * 2 : 16;
		size_t *v = realloc(p->challenges, cap * sizeof(*v));
		if (!v)
			return; /* then it stays a refusal, which it also was */
		p->challenges = v;
		p->cap_challenges = cap;
	}
	p->challenges[p->n_challenges++] = p->n_events - 1;
}

/* How long after a first try without credentials its retry may come. */
#define CHALLENGE_RETRY_MS 10000

/*
 * A client that is told to send credentials (407) and sends them is not refused: HTTP clients
 * that are not sure a proxy wants credentials (git's libcurl with CURLAUTH_ANY) try without
 * them first.  Each first try without any Proxy-Authorization is paired with the next request
 * of the same protocol, host and port within CHALLENGE_RETRY_MS that did carry this run's
 * credentials, one for one, and recorded as "auth_challenge".  A request with wrong
 * credentials, or a first try nobody followed up, stays "unauthenticated".
 */
static void settle_challenges(struct cf_proxy *p)
{
	for (size_t j = 0; j < p->n_events; j++) {
		const struct cf_net_event *ok = &p->events[j];
		if (!strcmp(ok->outcome, "unauthenticated") ||
		    !strcmp(ok->outcome, "auth_challenge"))
			continue;
		for (size_t k = 0; k < p->n_challenges; k++) {
			size_t i = p->challenges[k];
			struct cf_net_event *e = &p->events[i];
			if (i >= j || strcmp(e->outcome, "unauthenticated") ||
			    strcmp(e->protocol, ok->protocol) ||
			    strcmp(e->decision.host, ok->decision.host) ||
			    e->decision.port != ok->decision.port ||
			    ok->time_ms - e->time_ms > CHALLENGE_RETRY_MS)
				continue;
			copy(e->outcome, sizeof(e->outcome), "auth_challenge");
			copy(
			    e->detail, sizeof(e->detail),
			    "a first try without credentials, answered with 407; the client's next "
			    "request carried this run's credentials");
			break;
		}
	}
}

static void set_interest(struct cf_proxy *p, int fd, struct ref *ref, unsigned *cur, unsigned want)
{
	if (fd < 0 || *cur == want)
		return;
	struct epoll_event ev = {.events = want, .data.ptr = ref};
	if (*cur == ~0u)
		epoll_ctl(p->ep, EPOLL_CTL_ADD, fd, &ev);
	else
		epoll_ctl(p->ep, EPOLL_CTL_MOD, fd, &ev);
	*cur = want;
}

static bool dir_pre(const struct dir *d)
{
	return d->pre_off < d->pre_len;
}

void cf_proxy_update(struct conn *c)
{
	if (c->closed)
		return;
	unsigned cev = 0, uev = 0;
	switch (c->st) {
	case S_HEAD:
		cev = EPOLLIN | (c->out_off < c->out_len ? EPOLLOUT : 0);
		break;
	case S_RESOLVE:
	case S_ASK:
		break; /* hang-ups and errors are reported anyway */
	case S_CONNECT:
		uev = EPOLLOUT;
		break;
	case S_UPSTREAM:
		uev = EPOLLIN;
		break;
	case S_RELAY:
		if (c->gate)
			cev |= EPOLLIN; /* the first bytes, checked before any goes upstream */
		else if (dir_pre(&c->c2u))
			uev |= EPOLLOUT;
		else if (c->c2u.pump_on) {
			if (cf_pump_wants_read(&c->c2u.pump))
				cev |= EPOLLIN;
			if (cf_pump_wants_write(&c->c2u.pump))
				uev |= EPOLLOUT;
		}
		if (c->resp_head)
			uev |= EPOLLIN;
		else if (dir_pre(&c->u2c))
			cev |= EPOLLOUT;
		else if (c->u2c.pump_on) {
			if (cf_pump_wants_read(&c->u2c.pump))
				uev |= EPOLLIN;
			if (cf_pump_wants_write(&c->u2c.pump))
				cev |= EPOLLOUT;
		}
		break;
	case S_REPLY:
		cev = EPOLLOUT;
		break;
	case S_LINGER:
		cev = EPOLLIN;
		break;
	}
	set_interest(c->p, c->cfd, &c->cref, &c->cev, cev);
	set_interest(c->p, c->ufd, &c->uref, &c->uev, uev);
}

static void listen_interest(struct cf_proxy *p, bool on)
{
	if (p->listening == on)
		return;
	p->listening = on;
	struct epoll_event ev = {.events = on ? EPOLLIN : 0};
	if (p->http_fd >= 0) {
		ev.data.ptr = &p->r_http;
		epoll_ctl(p->ep, EPOLL_CTL_MOD, p->http_fd, &ev);
	}
	if (p->socks_fd >= 0) {
		ev.data.ptr = &p->r_socks;
		epoll_ctl(p->ep, EPOLL_CTL_MOD, p->socks_fd, &ev);
	}
	if (p->mixed_fd >= 0) {
		ev.data.ptr = &p->r_mixed;
		epoll_ctl(p->ep, EPOLL_CTL_MOD, p->mixed_fd, &ev);
	}
	cf_inside_listen(p, on);
	/* Handed-over connections wait in the handoff socket's queue the same way; the sender
	 * then stops taking new ones (back-pressure).  Out of epoll meanwhile, not only without
	 * EPOLLIN: a hang-up would be reported all the same, again and again. */
	for (size_t i = 0; i < p->n_handoffs; i++) {
		struct handoff *h = p->handoffs[i];
		struct epoll_event hev = {.events = EPOLLIN, .data.ptr = &h->ref};
		if (on && !h->in_epoll)
			h->in_epoll = epoll_ctl(p->ep, EPOLL_CTL_ADD, h->fd, &hev) == 0;
		else if (!on && h->in_epoll)
			h->in_epoll = epoll_ctl(p->ep, EPOLL_CTL_DEL, h->fd, NULL) != 0;
	}
}

void cf_proxy_close(struct conn *c)
{
	struct cf_proxy *p = c->p;
	if (c->closed)
		return;
	/* R43: a transparent connection the server spoke on and the client ended before its
	 * first bytes were checked was connected all the same. */
	if (c->kind == K_TRANSPARENT && c->st == S_RELAY && c->has_target)
		cf_proxy_record(c, "connected", &c->target, "");
	c->closed = true;
	if (c->job) {
		c->job->owner = NULL; /* dropped when the lookup is done */
		c->job = NULL;
	}
	/* Out of epoll first: close() alone removes a registration only when the last reference
	 * to the open file goes, and a handed-over socket may still be open in confine-init (or
	 * in flight) for a moment: its events would then name freed memory. */
	if (c->cfd >= 0) {
		epoll_ctl(p->ep, EPOLL_CTL_DEL, c->cfd, NULL);
		close(c->cfd);
	}
	if (c->ufd >= 0) {
		epoll_ctl(p->ep, EPOLL_CTL_DEL, c->ufd, NULL);
		close(c->ufd);
	}
	c->cfd = c->ufd = -1;
	for (size_t i = 0; i < p->n_conns; i++) {
		if (p->conns[i] == c) {
			p->conns[i] = p->conns[--p->n_conns];
			break;
		}
	}
	pthread_mutex_lock(&p->lock);
	p->stats.active = p->n_conns;
	p->stats.up += c->c2u.pump.moved;
	p->stats.down += c->u2c.pump.moved;
	pthread_mutex_unlock(&p->lock);
	c->next_free = p->free_list;
	p->free_list = c;
	if (p->n_conns < p->cfg.max_conns)
		listen_interest(p, true);
}

static void free_closed(struct cf_proxy *p)
{
	while (p->free_handoffs) {
		struct handoff *h = p->free_handoffs;
		p->free_handoffs = h->next_free;
		free(h);
	}
	while (p->free_list) {
		struct conn *c = p->free_list;
		p->free_list = c->next_free;
		cf_conn_release(c);
		free(c);
	}
}

bool cf_proxy_conn_new(struct cf_proxy *p, int fd, enum conn_kind kind, bool sniff)
{
	struct conn *c = calloc(1, sizeof(*c));
	if (c && p->n_conns == p->cap_conns) {
		size_t cap;
		struct conn **v = cf_grow_array(p->conns, p->cap_conns, 64, sizeof(*v), &cap);
		if (!v) {
			free(c);
			c = NULL;
		} else {
			p->conns = v;
			p->cap_conns = cap;
		}
	}
	if (!c) {
		close(fd);
		return false;
	}
	c->p = p;
	c->cfd = fd;
	c->ufd = -1;
	c->cev = c->uev = ~0u;
	c->cref = (struct ref){W_CLIENT, c, NULL, NULL};
	c->uref = (struct ref){W_UPSTREAM, c, NULL, NULL};
	c->kind = kind;
	c->sniff = sniff;
	c->proto = kind == K_SOCKS ? "socks5" : "http";
	if (p->user[0]) {
		c->socks.user = p->user;
		c->socks.pass = p->pass;
	}
	c->st = S_HEAD;
	c->deadline = cf_proxy_now() + p->cfg.head_timeout_ms;
	cf_buf_init(&c->resp_pre);
	p->conns[p->n_conns++] = c;
	pthread_mutex_lock(&p->lock);
	p->stats.accepted++;
	p->stats.active = p->n_conns;
	if (p->n_conns > p->stats.peak)
		p->stats.peak = p->n_conns;
	pthread_mutex_unlock(&p->lock);
	if (kind == K_TRANSPARENT)
		cf_transparent_begin(c); /* decided at once: where it goes is known */
	else
		cf_proxy_update(c);
	return true;
}

static bool out_of_descriptors(int e)
{
	return e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM;
}

void cf_proxy_accept_all(struct cf_proxy *p, int lfd, enum conn_kind kind, bool sniff)
{
	while (p->n_conns < p->cfg.max_conns) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			/* Out of descriptors or memory: wait for a connection to end instead of
			 * spinning on a listener that stays readable.  EAGAIN, or a connection
			 * that went away before it was taken: nothing to do. */
			if (out_of_descriptors(errno))
				listen_interest(p,
						false); /* back at the next sweep at the latest */
			return;
		}
		if (!cf_proxy_conn_new(p, fd, kind, sniff))
			return;
	}
	/* At the bound: the rest wait in the backlog until a connection ends. */
	listen_interest(p, false);
}

/* Closes a handoff connection; freed after the round, like a connection. */
static void close_handoff(struct cf_proxy *p, struct handoff *h)
{
	if (h->in_epoll)
		epoll_ctl(p->ep, EPOLL_CTL_DEL, h->fd, NULL);
	close(h->fd);
	h->fd = -1;
	for (size_t i = 0; i < p->n_handoffs; i++) {
		if (p->handoffs[i] == h) {
			p->handoffs[i] = p->handoffs[--p->n_handoffs];
			break;
		}
	}
	h->next_free = p->free_handoffs;
	p->free_handoffs = h;
}

static void accept_handoff(struct cf_proxy *p)
{
	for (;;) {
		int fd = accept4(p->handoff_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		struct handoff *h =
		    p->n_handoffs < CF_PROXY_MAX_HANDOFFS ? calloc(1, sizeof(*h)) : NULL;
		struct epoll_event ev = {.events = EPOLLIN};
		if (h) {
			h->fd = fd;
			h->ref = (struct ref){W_HANDOFF, NULL, h, NULL};
			ev.data.ptr = &h->ref;
		}
		if (!h || (p->listening && epoll_ctl(p->ep, EPOLL_CTL_ADD, fd, &ev) < 0)) {
			free(h);
			close(fd);
			continue;
		}
		h->in_epoll = p->listening;
		p->handoffs[p->n_handoffs++] = h;
	}
}

/* A handed-over descriptor must be a connected TCP socket (IPv4 or IPv6); anything else is
 * closed.  Whoever can reach the handoff socket can only hand over what it already holds. */
static bool tcp_connection(int fd)
{
	struct stat st;
	int v = 0;
	socklen_t l = sizeof(v);
	if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode))
		return false;
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &l) < 0 || v != SOCK_STREAM)
		return false;
	l = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &l) < 0 || (v != AF_INET && v != AF_INET6))
		return false;
	l = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &l) < 0 || v)
		return false;
	return true;
}

static void read_handoff(struct cf_proxy *p, struct handoff *h)
{
	while (p->n_conns < p->cfg.max_conns) {
		char kind;
		int fd;
		/* One descriptor per message; more are closed by the kernel (MSG_CTRUNC). */
		ssize_t k = cf_fd_recv(h->fd, &kind, &fd, MSG_DONTWAIT);
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return;
		if (k <= 0) {
			close_handoff(p, h);
			return;
		}
		if (fd < 0)
			continue;
		if ((kind != 'H' && kind != 'S') || !tcp_connection(fd) ||
		    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
			close(fd);
			continue;
		}
		if (!cf_proxy_conn_new(p, fd, kind == 'S' ? K_SOCKS : K_HTTP, false))
			return;
	}
	listen_interest(p, false);
}

static void resolved(struct cf_proxy *p)
{
	struct cf_resolve_job *j;
	while ((j = cf_resolver_done(p->resolver))) {
		struct conn *c = j->owner;
		if (c && !c->closed && c->job == j) {
			c->job = NULL;
			cf_conn_resolved(c, j);
		}
		free(j);
	}
}

static void sweep(struct cf_proxy *p, uint64_t now)
{
	/* Iterate over a snapshot: a timeout closes connections (the array shrinks). */
	for (size_t i = p->n_conns; i-- > 0;) {
		if (i >= p->n_conns)
			continue;
		struct conn *c = p->conns[i];
		if (!c->closed && now >= c->deadline)
			cf_conn_timeout(c);
	}
}

/* How often deadlines are checked: a quarter of the shortest bound, within 10 ms and 1 s. */
static unsigned sweep_interval(const struct cf_proxy_config *cfg)
{
	unsigned m = cfg->head_timeout_ms;
	if (cfg->connect_timeout_ms < m)
		m = cfg->connect_timeout_ms;
	if (cfg->linger_ms < m)
		m = cfg->linger_ms;
	m /= 4;
	return m < 10 ? 10 : m > 1000 ? 1000 : m;
}

static void *loop(void *arg)
{
	struct cf_proxy *p = arg;
	struct epoll_event evs[128];
	unsigned interval = sweep_interval(&p->cfg);
	uint64_t next_sweep = cf_proxy_now() + interval;
	for (;;) {
		uint64_t now = cf_proxy_now();
		bool sweeping = p->n_conns || !p->listening || cf_inside_busy(p);
		int tmo = sweeping ? (now >= next_sweep ? 0 : (int)(next_sweep - now)) : -1;
		int n = epoll_wait(p->ep, evs, (int)(sizeof(evs) / sizeof(evs[0])), tmo);
		if (n < 0 && errno != EINTR)
			break;
		__atomic_add_fetch(&p->stats.wakeups, 1, __ATOMIC_RELAXED);
		for (int i = 0; i < n; i++) {
			struct ref *r = evs[i].data.ptr;
			switch (r->what) {
			case W_WAKE:
				goto out;
			case W_LISTEN_HTTP:
				cf_proxy_accept_all(p, p->http_fd, K_HTTP, false);
				break;
			case W_LISTEN_SOCKS:
				cf_proxy_accept_all(p, p->socks_fd, K_SOCKS, false);
				break;
			case W_LISTEN_MIXED:
				cf_proxy_accept_all(p, p->mixed_fd, K_HTTP, true);
				break;
			case W_LISTEN_HANDOFF:
				accept_handoff(p);
				break;
			case W_HANDOFF:
				if (r->h->fd >= 0)
					read_handoff(p, r->h);
				break;
			case W_RESOLVER:
				resolved(p);
				break;
			case W_CLIENT:
				if (!r->c->closed)
					cf_conn_client(r->c, evs[i].events);
				break;
			case W_UPSTREAM:
				if (!r->c->closed)
					cf_conn_upstream(r->c, evs[i].events);
				break;
			case W_DNS_UDP:
			case W_DNS_LISTEN:
			case W_DNS_TCP:
			case W_LISTEN_TRANSPARENT:
				cf_inside_event(p, r, evs[i].events);
				break;
			case W_ASK:
				cf_ask_answered(p);
				break;
			case W_INSIDE_SET:
				cf_inside_install(p);
				break;
			}
		}
		now = cf_proxy_now();
		if (now >= next_sweep) {
			sweep(p, now);
			cf_inside_sweep(p, now);
			if (!p->listening && p->n_conns < p->cfg.max_conns)
				listen_interest(p, true);
			next_sweep = now + interval;
		}
		free_closed(p);
	}
out:
	while (p->n_conns)
		cf_proxy_close(p->conns[p->n_conns - 1]);
	while (p->n_handoffs)
		close_handoff(p, p->handoffs[p->n_handoffs - 1]);
	free_closed(p);
	return NULL;
}

static int add_fd(struct cf_proxy *p, int fd, struct ref *r, unsigned events)
{
	struct epoll_event ev = {.events = events, .data.ptr = r};
	return fd < 0 ? 0 : epoll_ctl(p->ep, EPOLL_CTL_ADD, fd, &ev);
}

static int proxy_new(const struct cf_proxy_config *cfg, const struct cf_net_policy *policy,
		     int http_fd, int socks_fd, int handoff_fd, int mixed_fd, const char *secret,
		     struct cf_proxy **out, struct confine_error *err)
{
	*out = NULL;
	int lfds[] = {http_fd, socks_fd, handoff_fd, mixed_fd};
	struct cf_proxy *p = calloc(1, sizeof(*p));
	if (!p) {
		for (size_t i = 0; i < 4; i++)
			if (lfds[i] >= 0)
				close(lfds[i]);
		return cf_nomem(err);
	}
	p->ep = -1;
	/* accept4 must never block the loop, whatever the caller made. */
	for (size_t i = 0; i < 4; i++)
		if (lfds[i] >= 0)
			fcntl(lfds[i], F_SETFL, fcntl(lfds[i], F_GETFL) | O_NONBLOCK);
	p->handoff_fd = handoff_fd;
	p->mixed_fd = mixed_fd;
	if (secret) {
		snprintf(p->user, sizeof(p->user), "%s", CF_PROXY_USER);
		snprintf(p->pass, sizeof(p->pass), "%s", secret);
		snprintf(p->userpass, sizeof(p->userpass), "%s:%s", CF_PROXY_USER, secret);
	}
	p->cfg = *cfg;
	if (!p->cfg.max_conns)
		p->cfg.max_conns = 1;
	p->policy = policy;
	p->http_fd = http_fd;
	p->socks_fd = socks_fd;
	p->wake_fd = -1;
	p->inside_efd = -1;
	p->r_http = (struct ref){W_LISTEN_HTTP, NULL, NULL, NULL};
	p->r_socks = (struct ref){W_LISTEN_SOCKS, NULL, NULL, NULL};
	p->r_handoff = (struct ref){W_LISTEN_HANDOFF, NULL, NULL, NULL};
	p->r_mixed = (struct ref){W_LISTEN_MIXED, NULL, NULL, NULL};
	p->r_wake = (struct ref){W_WAKE, NULL, NULL, NULL};
	p->r_resolver = (struct ref){W_RESOLVER, NULL, NULL, NULL};
	p->upstream = cfg->upstream;
	pthread_mutex_init(&p->lock, NULL);
	/* Each connection holds up to six descriptors (two sockets, two pipes); the rest of
	 * the process keeps a margin. */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rlim_t want = (rlim_t)p->cfg.max_conns * 6 + 256;
		if (rl.rlim_cur < want && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = want < rl.rlim_max ? want : rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
			getrlimit(RLIMIT_NOFILE, &rl);
		}
		if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
			unsigned fit = rl.rlim_cur > 512 ? (unsigned)((rl.rlim_cur - 256) / 6) : 40;
			if (fit < p->cfg.max_conns)
				p->cfg.max_conns = fit;
		}
	}
	p->ep = epoll_create1(EPOLL_CLOEXEC);
	p->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->ep < 0 || p->wake_fd < 0 ||
	    cf_resolver_new(p->cfg.resolver_threads, &p->resolver, &p->resolver_fd) < 0 ||
	    add_fd(p, p->http_fd, &p->r_http, EPOLLIN) < 0 ||
	    add_fd(p, p->socks_fd, &p->r_socks, EPOLLIN) < 0 ||
	    add_fd(p, p->handoff_fd, &p->r_handoff, EPOLLIN) < 0 ||
	    add_fd(p, p->mixed_fd, &p->r_mixed, EPOLLIN) < 0 ||
	    add_fd(p, p->wake_fd, &p->r_wake, EPOLLIN) < 0 ||
	    add_fd(p, p->resolver_fd, &p->r_resolver, EPOLLIN) < 0 || cf_ask_init(p) < 0 ||
	    cf_inside_init(p) < 0) {
		int e = errno;
		cf_proxy_free(p);
		return cf_err_os(err, CONFINE_E_OS, "cannot start the network proxy", "epoll",
				 "epoll_ctl", e);
	}
	p->listening = true;
	*out = p;
	return 0;
}

int cf_proxy_new(const struct cf_proxy_config *cfg, const struct cf_net_policy *policy, int http_fd,
		 int socks_fd, int handoff_fd, struct cf_proxy **out, struct confine_error *err)
{
	return proxy_new(cfg, policy, http_fd, socks_fd, handoff_fd, -1, NULL, out, err);
}

int cf_proxy_new_auth(const struct cf_proxy_config *cfg, const struct cf_net_policy *policy,
		      int listen_fd, const char *secret, struct cf_proxy **out,
		      struct confine_error *err)
{
	return proxy_new(cfg, policy, -1, -1, -1, listen_fd, secret, out, err);
}

int cf_proxy_start(struct cf_proxy *p, struct confine_error *err)
{
	int e = cf_thread_start(&p->thread, 0, false, loop, p);
	if (e)
		return cf_err_os(err, CONFINE_E_OS, "cannot start the network proxy", "thread",
				 "pthread_create", e);
	p->started = true;
	return 0;
}

void cf_proxy_stop(struct cf_proxy *p)
{
	if (!p || !p->started || p->stopped)
		return;
	uint64_t one = 1;
	ssize_t k = write(p->wake_fd, &one, sizeof(one));
	(void)k;
	pthread_join(p->thread, NULL);
	p->stopped = true;
	settle_challenges(p);
	cf_inside_stopped(p);
}

void cf_proxy_stats(struct cf_proxy *p, struct cf_proxy_stats *out)
{
	pthread_mutex_lock(&p->lock);
	*out = p->stats;
	pthread_mutex_unlock(&p->lock);
	out->wakeups = __atomic_load_n(&p->stats.wakeups, __ATOMIC_RELAXED);
	out->lookups = p->resolver ? cf_resolver_lookups(p->resolver) : 0;
}

const struct cf_net_event *cf_proxy_events(const struct cf_proxy *p, size_t *n, size_t *dropped)
{
	*n = p->n_events;
	if (dropped)
		*dropped = p->dropped;
	return p->events;
}

void cf_proxy_free(struct cf_proxy *p)
{
	if (!p)
		return;
	cf_proxy_stop(p);
	if (!p->started) {
		/* Never ran: connections cannot exist. */
		free_closed(p);
	}
	cf_resolver_release(p->resolver);
	cf_ask_release(p);
	cf_inside_release(p);
	if (p->http_fd >= 0)
		close(p->http_fd);
	if (p->socks_fd >= 0)
		close(p->socks_fd);
	if (p->handoff_fd >= 0)
		close(p->handoff_fd);
	if (p->mixed_fd >= 0)
		close(p->mixed_fd);
	if (p->wake_fd >= 0)
		close(p->wake_fd);
	if (p->ep >= 0)
		close(p->ep);
	free(p->conns);
	free(p->events);
	free(p->challenges);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
