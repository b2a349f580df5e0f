/* SPDX-License-Identifier: MIT */
/*
 * The resolver inside the sandbox (R43), served by confine's proxy on its own thread from
 * sockets of the sandbox's network namespace (exec/linux/netns.h hands them over).  Each query
 * is decided on its name before anything else, exactly as the proxy decides a request:
 *   - a name denied on every port: NXDOMAIN, recorded once (protocol "dns"); the host's
 *     resolver never sees it.  NXDOMAIN rather than REFUSED: a client takes it as final and
 *     does not retry through other servers or for minutes;
 *   - any other name (allowed on some port, or no rule names it: ASK, decided when a
 *     connection comes, with its port): an A record with the name's synthetic address
 *     (net/synth.h); AAAA and every other type: no data (NOERROR); nothing is looked up;
 *   - localhost and the names below it: 127.0.0.1, the sandbox's own loopback (RFC 6761);
 *   - PTR of a synthetic address: the name it stands for; any other PTR: NXDOMAIN;
 *   - what is not a query for a host name: NXDOMAIN, FORMERR or NOTIMP, never forwarded.
 * So no query ever leaves the machine from inside.  UDP answers go out from the address the
 * query was sent to (a program may be configured with any loopback address), TCP carries
 * queries with their two-byte length (RFC 1035 4.2.2), at most CF_INSIDE_TCP_MAX connections,
 * each closed after CF_INSIDE_TCP_IDLE_MS without a query.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/dns.h"
#include "net/proxy_int.h"
#include "net/synth.h"
#include "policy/policy.h"
#include "util/util.h"

#define CF_INSIDE_TCP_MAX 64
#define CF_INSIDE_TCP_IDLE_MS 10000
#define CF_INSIDE_QUERY_MAX 4096 /* a larger query (EDNS padding) is not one of a stub */
#define CF_INSIDE_TTL 60

struct cf_dns_tcp {
	int fd;
	struct ref ref;
	uint8_t in[2 + CF_INSIDE_QUERY_MAX];
	size_t in_len;
	uint8_t out[2 + CF_DNS_UDP_MAX];
	size_t out_off, out_len;
	uint64_t deadline;
	struct cf_dns_tcp *next;
};

struct cf_inside {
	int fd[6]; /* udp4, udp6, tcp4, tcp6 (listening), listen4, listen6 */
	struct ref ref[6];
	bool listening;	 /* the transparent listeners (the proxy's bound of connections) */
	bool tcp_paused; /* the resolver's TCP listeners (CF_INSIDE_TCP_MAX) */
	struct cf_synth *synth;
	struct cf_synth *refused; /* the names whose refusal is recorded, each once */
	struct cf_dns_tcp *tcp;
	size_t n_tcp;
};

/* The loop thread's alone (cf_inside_install). */
static struct cf_inside *inside_of(struct cf_proxy *p)
{
	return p->inside;
}

const char *cf_inside_name(struct cf_proxy *p, const struct cf_ip *ip)
{
	struct cf_inside *in = inside_of(p);
	return in ? cf_synth_name(in->synth, ip) : NULL;
}

/* The refusal of a name, in the decisions of the run, once per name. */
static void record_refusal(struct cf_proxy *p, struct cf_inside *in, const char *name,
			   const struct cf_net_decision *d)
{
	size_t before = cf_synth_count(in->refused);
	struct cf_ip unused;
	if (cf_synth_addr(in->refused, name, &unused) < 0 || cf_synth_count(in->refused) == before)
		return;
	struct cf_net_event *e = cf_proxy_event_new(p);
	if (!e)
		return;
	snprintf(e->protocol, sizeof(e->protocol), "dns");
	snprintf(e->outcome, sizeof(e->outcome), "denied");
	snprintf(e->detail, sizeof(e->detail),
		 "the name is denied on every port: the resolver inside answered that it does not "
		 "exist, and nothing was looked up on the host");
	struct confine_net_decision *o = &e->decision;
	snprintf(o->host, sizeof(o->host), "%s", name);
	o->action = (enum confine_action)d->action;
	snprintf(o->layer, sizeof(o->layer), "%s", cf_layer_name(d->layer));
	if (d->rule) {
		o->has_rule = true;
		snprintf(o->source, sizeof(o->source), "%s", d->rule->source);
		snprintf(o->pattern, sizeof(o->pattern), "%s", d->rule->pattern);
		snprintf(o->list, sizeof(o->list), "%s",
			 d->rule->action == CF_ALLOW ? "allow" : "deny");
		o->index = d->rule->index;
		o->line = d->rule->line;
		o->column = d->rule->column;
	}
}

/* The answer to one query (n bytes) into out: its length, 0 when there is none to send. */
static size_t answer(struct cf_proxy *p, struct cf_inside *in, const uint8_t *q, size_t n,
		     uint8_t *out, size_t cap)
{
	struct cf_dns_query dq;
	int r = cf_dns_parse_query(q, n, &dq);
	if (r < 0)
		return 0;
	if (r > 0)
		return cf_dns_answer(NULL, NULL, dq.id, dq.rd, r, NULL, NULL, 0, out, cap);
	if (dq.qclass != CF_DNS_CLASS_IN)
		return cf_dns_answer(q, &dq, 0, false, CF_DNS_REFUSED, NULL, NULL, 0, out, cap);
	if (!dq.name_ok)
		return cf_dns_answer(q, &dq, 0, false, CF_DNS_NXDOMAIN, NULL, NULL, 0, out, cap);
	struct cf_ip ip;
	if (dq.qtype == CF_DNS_PTR) {
		const char *name =
		    cf_dns_reverse_v4(dq.name, &ip) ? cf_synth_name(in->synth, &ip) : NULL;
		return cf_dns_answer(q, &dq, 0, false, name ? CF_DNS_NOERROR : CF_DNS_NXDOMAIN,
				     NULL, name, CF_INSIDE_TTL, out, cap);
	}
	/* localhost and the names below it are the sandbox's own loopback (RFC 6761), as in its
	 * /etc/hosts: never a question for the rules, never looked up. */
	size_t nl = strlen(dq.name);
	if (!strcmp(dq.name, "localhost") ||
	    (nl > 10 && !strcmp(dq.name + nl - 10, ".localhost"))) {
		struct cf_ip lo = {.family = 4, .b = {127, 0, 0, 1}};
		return cf_dns_answer(q, &dq, 0, false, CF_DNS_NOERROR,
				     dq.qtype == CF_DNS_A ? &lo : NULL, NULL, CF_INSIDE_TTL, out,
				     cap);
	}
	struct cf_net_decision d;
	if (cf_net_decide_name(p->policy, dq.name, &d) == CF_DENY) {
		record_refusal(p, in, dq.name, &d);
		return cf_dns_answer(q, &dq, 0, false, CF_DNS_NXDOMAIN, NULL, NULL, 0, out, cap);
	}
	if (dq.qtype != CF_DNS_A)
		return cf_dns_answer(q, &dq, 0, false, CF_DNS_NOERROR, NULL, NULL, 0, out, cap);
	if (cf_synth_addr(in->synth, dq.name, &ip) < 0)
		return cf_dns_answer(q, &dq, 0, false, CF_DNS_SERVFAIL, NULL, NULL, 0, out, cap);
	return cf_dns_answer(q, &dq, 0, false, CF_DNS_NOERROR, &ip, NULL, CF_INSIDE_TTL, out, cap);
}

/* UDP: every waiting query, answered from the address it was sent to. */
static void serve_udp(struct cf_proxy *p, struct cf_inside *in, int fd, bool v6)
{
	for (int i = 0; i < 64; i++) {
		uint8_t q[CF_INSIDE_QUERY_MAX], a[CF_DNS_UDP_MAX];
		struct sockaddr_storage from;
		union {
			char buf[CMSG_SPACE(sizeof(struct in6_pktinfo)) +
				 CMSG_SPACE(sizeof(struct in_pktinfo))];
			struct cmsghdr align;
		} u;
		struct iovec iov = {.iov_base = q, .iov_len = sizeof(q)};
		struct msghdr m = {.msg_name = &from,
				   .msg_namelen = sizeof(from),
				   .msg_iov = &iov,
				   .msg_iovlen = 1,
				   .msg_control = u.buf,
				   .msg_controllen = sizeof(u)};
		ssize_t k = recvmsg(fd, &m, MSG_DONTWAIT);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return;
		if (m.msg_flags & MSG_TRUNC)
			continue; /* larger than any query of a stub resolver */
		size_t n = answer(p, in, q, (size_t)k, a, sizeof(a));
		if (!n)
			continue;
		/* The reply's source is the query's destination: the one ancillary message the
		 * kernel gave, sent back with the interface left to the routing. */
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		for (; c; c = CMSG_NXTHDR(&m, c)) {
			if (!v6 && c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
				struct in_pktinfo pi;
				memcpy(&pi, CMSG_DATA(c), sizeof(pi));
				pi.ipi_spec_dst = pi.ipi_addr;
				pi.ipi_ifindex = 0;
				memcpy(CMSG_DATA(c), &pi, sizeof(pi));
				break;
			}
			if (v6 && c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
				struct in6_pktinfo pi;
				memcpy(&pi, CMSG_DATA(c), sizeof(pi));
				pi.ipi6_ifindex = 0;
				memcpy(CMSG_DATA(c), &pi, sizeof(pi));
				break;
			}
		}
		iov.iov_base = a;
		iov.iov_len = n;
		m.msg_controllen = c ? c->cmsg_len : 0;
		m.msg_control = c ? (void *)c : NULL;
		m.msg_flags = 0;
		ssize_t w = sendmsg(fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
		(void)w; /* a full socket buffer drops the answer; the client asks again */
	}
}

/* The TCP listeners' interest: off while CF_INSIDE_TCP_MAX connections are open (the others
 * wait in the backlog; a listener left readable would wake the loop without end). */
static void tcp_listen(struct cf_proxy *p, struct cf_inside *in, bool on)
{
	if (in->tcp_paused == !on)
		return;
	in->tcp_paused = !on;
	for (int i = 2; i < 4; i++) {
		struct epoll_event ev = {.events = on ? EPOLLIN : 0, .data.ptr = &in->ref[i]};
		if (in->fd[i] >= 0)
			epoll_ctl(p->ep, EPOLL_CTL_MOD, in->fd[i], &ev);
	}
}

static void tcp_close(struct cf_proxy *p, struct cf_inside *in, struct cf_dns_tcp *t)
{
	epoll_ctl(p->ep, EPOLL_CTL_DEL, t->fd, NULL);
	close(t->fd);
	for (struct cf_dns_tcp **x = &in->tcp; *x; x = &(*x)->next) {
		if (*x == t) {
			*x = t->next;
			break;
		}
	}
	in->n_tcp--;
	free(t);
	tcp_listen(p, in, true);
}

static void tcp_interest(struct cf_proxy *p, struct cf_dns_tcp *t)
{
	struct epoll_event ev = {.events = t->out_off < t->out_len ? EPOLLOUT : EPOLLIN,
				 .data.ptr = &t->ref};
	epoll_ctl(p->ep, EPOLL_CTL_MOD, t->fd, &ev);
}

static void tcp_accept(struct cf_proxy *p, struct cf_inside *in, int lfd)
{
	while (in->n_tcp < CF_INSIDE_TCP_MAX) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		struct cf_dns_tcp *t = calloc(1, sizeof(*t));
		struct epoll_event ev = {.events = EPOLLIN};
		if (t) {
			t->fd = fd;
			t->ref = (struct ref){W_DNS_TCP, NULL, NULL, t};
			t->deadline = cf_proxy_now() + CF_INSIDE_TCP_IDLE_MS;
			ev.data.ptr = &t->ref;
		}
		if (!t || epoll_ctl(p->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
			free(t);
			close(fd);
			continue;
		}
		t->next = in->tcp;
		in->tcp = t;
		in->n_tcp++;
	}
	/* At the bound: the others wait in the backlog until a connection ends. */
	tcp_listen(p, in, false);
}

/* TCP: reads queries (length first), answers one at a time. */
static void tcp_serve(struct cf_proxy *p, struct cf_inside *in, struct cf_dns_tcp *t)
{
	for (;;) {
		if (t->out_off < t->out_len) {
			ssize_t k = send(t->fd, t->out + t->out_off, t->out_len - t->out_off,
					 MSG_NOSIGNAL | MSG_DONTWAIT);
			if (k < 0 && (errno == EAGAIN || errno == EINTR))
				break;
			if (k <= 0) {
				tcp_close(p, in, t);
				return;
			}
			t->out_off += (size_t)k;
			continue;
		}
		size_t want = 2;
		if (t->in_len >= 2) {
			size_t len = (size_t)t->in[0] << 8 | t->in[1];
			if (len == 0 || len > CF_INSIDE_QUERY_MAX) {
				tcp_close(p, in, t);
				return;
			}
			want = 2 + len;
		}
		if (t->in_len < want) {
			ssize_t k = recv(t->fd, t->in + t->in_len, want - t->in_len, MSG_DONTWAIT);
			if (k < 0 && (errno == EAGAIN || errno == EINTR))
				break;
			if (k <= 0) {
				tcp_close(p, in, t);
				return;
			}
			t->in_len += (size_t)k;
			continue;
		}
		size_t n = answer(p, in, t->in + 2, want - 2, t->out + 2, sizeof(t->out) - 2);
		t->in_len = 0;
		t->deadline = cf_proxy_now() + CF_INSIDE_TCP_IDLE_MS;
		if (!n)
			continue;
		t->out[0] = (uint8_t)(n >> 8);
		t->out[1] = (uint8_t)n;
		t->out_off = 0;
		t->out_len = n + 2;
	}
	tcp_interest(p, t);
}

void cf_inside_event(struct cf_proxy *p, struct ref *r, uint32_t events)
{
	struct cf_inside *in = inside_of(p);
	(void)events;
	if (!in)
		return;
	switch (r->what) {
	case W_DNS_UDP:
		serve_udp(p, in, in->fd[r == &in->ref[0] ? 0 : 1], r == &in->ref[1]);
		break;
	case W_DNS_LISTEN:
		tcp_accept(p, in, in->fd[r == &in->ref[2] ? 2 : 3]);
		break;
	case W_DNS_TCP:
		tcp_serve(p, in, r->x);
		break;
	case W_LISTEN_TRANSPARENT:
		cf_proxy_accept_all(p, in->fd[r == &in->ref[4] ? 4 : 5], K_TRANSPARENT, false);
		break;
	default:
		break;
	}
}

void cf_inside_listen(struct cf_proxy *p, bool on)
{
	struct cf_inside *in = inside_of(p);
	if (!in || in->listening == on)
		return;
	in->listening = on;
	for (int i = 4; i < 6; i++) {
		if (in->fd[i] < 0)
			continue;
		struct epoll_event ev = {.events = on ? EPOLLIN : 0, .data.ptr = &in->ref[i]};
		epoll_ctl(p->ep, EPOLL_CTL_MOD, in->fd[i], &ev);
	}
}

void cf_inside_sweep(struct cf_proxy *p, uint64_t now)
{
	struct cf_inside *in = inside_of(p);
	if (!in)
		return;
	for (struct cf_dns_tcp *t = in->tcp, *next; t; t = next) {
		next = t->next;
		if (now >= t->deadline)
			tcp_close(p, in, t);
	}
}

bool cf_inside_busy(struct cf_proxy *p)
{
	struct cf_inside *in = inside_of(p);
	return in && in->n_tcp;
}

static void close_fds(const struct cf_inside_fds *f)
{
	int v[6] = {f->udp4, f->udp6, f->tcp4, f->tcp6, f->listen4, f->listen6};
	for (int i = 0; i < 6; i++)
		if (v[i] >= 0)
			close(v[i]);
}

static void inside_free(struct cf_proxy *p, struct cf_inside *in)
{
	if (!in)
		return;
	while (in->tcp)
		tcp_close(p, in, in->tcp);
	for (int i = 0; i < 6; i++) {
		if (in->fd[i] < 0)
			continue;
		epoll_ctl(p->ep, EPOLL_CTL_DEL, in->fd[i], NULL);
		close(in->fd[i]);
	}
	cf_synth_free(in->synth);
	cf_synth_free(in->refused);
	free(in);
}

void cf_inside_release(struct cf_proxy *p)
{
	inside_free(p, p->inside);
	p->inside = NULL;
	if (p->inside_pending)
		close_fds(&p->inside_new);
	p->inside_pending = false;
	if (p->inside_efd >= 0)
		close(p->inside_efd);
	p->inside_efd = -1;
}

int cf_inside_init(struct cf_proxy *p)
{
	p->inside_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	p->r_inside = (struct ref){W_INSIDE_SET, NULL, NULL, NULL};
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &p->r_inside};
	return p->inside_efd < 0 ? -1 : epoll_ctl(p->ep, EPOLL_CTL_ADD, p->inside_efd, &ev);
}

void cf_inside_install(struct cf_proxy *p)
{
	uint64_t v;
	ssize_t k = read(p->inside_efd, &v, sizeof(v));
	(void)k;
	pthread_mutex_lock(&p->lock);
	bool pending = p->inside_pending;
	struct cf_inside_fds f = p->inside_new;
	p->inside_pending = false;
	pthread_mutex_unlock(&p->lock);
	if (!pending)
		return;
	/* A sandbox launched again has a namespace of its own: the earlier one's sockets go,
	 * and its names with them (no command ever ran there). */
	inside_free(p, p->inside);
	p->inside = NULL;
	int fd[6] = {f.udp4, f.udp6, f.tcp4, f.tcp6, f.listen4, f.listen6};
	static const enum ref_what what[6] = {
	    W_DNS_UDP,		 W_DNS_UDP, W_DNS_LISTEN, W_DNS_LISTEN, W_LISTEN_TRANSPARENT,
	    W_LISTEN_TRANSPARENT};
	struct cf_inside *in = calloc(1, sizeof(*in));
	if (in) {
		in->synth = cf_synth_new();
		in->refused = cf_synth_new();
	}
	if (!in || !in->synth || !in->refused) {
		/* Out of memory: the listeners close, and the command's connections and queries
		 * are refused (fail closed). */
		if (in) {
			cf_synth_free(in->synth);
			cf_synth_free(in->refused);
		}
		free(in);
		close_fds(&f);
		return;
	}
	in->listening = true;
	for (int i = 0; i < 6; i++) {
		/* accept4 and recvmsg must never block the loop, whatever the caller made. */
		if (fd[i] >= 0)
			fcntl(fd[i], F_SETFL, fcntl(fd[i], F_GETFL) | O_NONBLOCK);
		in->fd[i] = fd[i];
		in->ref[i] = (struct ref){what[i], NULL, NULL, NULL};
		struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &in->ref[i]};
		if (fd[i] >= 0)
			epoll_ctl(p->ep, EPOLL_CTL_ADD, fd[i], &ev);
	}
	p->inside = in;
	if (!p->listening)
		cf_inside_listen(p, false);
}

int cf_proxy_inside(struct cf_proxy *p, const struct cf_inside_fds *fds, struct confine_error *err)
{
	pthread_mutex_lock(&p->lock);
	if (p->inside_pending)
		close_fds(&p->inside_new);
	p->inside_new = *fds;
	p->inside_pending = true;
	p->inside_error[0] = '\0';
	pthread_mutex_unlock(&p->lock);
	uint64_t one = 1;
	if (write(p->inside_efd, &one, sizeof(one)) != sizeof(one))
		return cf_err_os(err, CONFINE_E_OS, "cannot serve the sandbox", "resolver", "write",
				 errno);
	return 0;
}

void cf_proxy_inside_failed(struct cf_proxy *p, const struct confine_error *why)
{
	pthread_mutex_lock(&p->lock);
	snprintf(p->inside_error, sizeof(p->inside_error), "%.60s: %.40s%s%.100s", why->what,
		 why->syscall, why->syscall[0] ? ": " : "",
		 why->os_errno ? strerror(why->os_errno) : why->reason);
	pthread_mutex_unlock(&p->lock);
}

void cf_inside_stopped(struct cf_proxy *p)
{
	pthread_mutex_lock(&p->lock);
	bool failed = p->inside_error[0];
	pthread_mutex_unlock(&p->lock);
	struct cf_net_event *e = failed ? cf_proxy_event_new(p) : NULL;
	if (!e)
		return;
	snprintf(e->protocol, sizeof(e->protocol), "dns");
	snprintf(e->outcome, sizeof(e->outcome), "unavailable");
	snprintf(e->decision.layer, sizeof(e->decision.layer), "fallback");
	e->decision.action = CONFINE_DENY;
	snprintf(e->detail, sizeof(e->detail),
		 "%.150s; names did not resolve inside, and only clients that use the proxy "
		 "variables reached the network",
		 p->inside_error);
	p->inside_error[0] = '\0';
}
