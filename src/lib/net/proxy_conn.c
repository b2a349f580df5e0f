/* SPDX-License-Identifier: MIT */
/*
 * One connection of confine's proxy, from the request to the relay (see proxy.h):
 *
 *   S_HEAD     the HTTP head or the SOCKS5 greeting and request, within their bounds
 *   (decision) on the name or literal, before anything is resolved
 *   S_RESOLVE  the name is with a resolver thread
 *   (check)    each address: refused when special (loopback, private, link-local...) or
 *              denied, unless a rule names it
 *   S_CONNECT  non-blocking connects, address after address
 *   S_RELAY    both ways (proxy_relay.c)
 *   S_REPLY    a refusal (a 403 naming the rule, a SOCKS5 reply code), then S_LINGER
 *
 * Where the proxy requires credentials (the landlock backend's loopback listener), a request
 * without this run's is refused before any decision: 407 or the SOCKS5 refusal.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "net/auth.h"
#include "net/proxy_int.h"
#include "net/remedy.h"
#include "policy/policy.h"
#include "util/util.h"

#define SOCKS_IN_MAX 1024

static int64_t wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void cf_conn_release(struct conn *c)
{
	free(c->refusal);
	free(c->in);
	free(c->rin);
	free(c->head);
	free(c->out);
	cf_buf_release(&c->resp_pre);
	cf_dir_release(&c->c2u);
	cf_dir_release(&c->u2c);
}

int cf_conn_out_append(struct conn *c, const void *data, size_t n)
{
	return cf_queue_append(&c->out, &c->out_off, &c->out_len, data, n);
}

/* Sends what is queued for the client before the relay; -1 on error. */
static int out_flush(struct conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t k =
		    send(c->cfd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
		if (k > 0) {
			c->out_off += (size_t)k;
			continue;
		}
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return 0;
		return -1;
	}
	return 0;
}

/* The connection's last words (a refusal or a SOCKS reply, queued in c->out): sent, then the
 * connection lingers in S_REPLY until they are out or linger_ms has passed. */
static void send_reply(struct conn *c)
{
	c->st = S_REPLY;
	c->deadline = cf_proxy_now() + c->p->cfg.linger_ms;
	if (out_flush(c) < 0)
		cf_proxy_close(c);
	else
		cf_proxy_update(c);
}

void cf_conn_last_words(struct conn *c, const void *data, size_t n)
{
	if (!n) {
		/* Nothing the client would understand: a reset. */
		struct linger l = {.l_onoff = 1, .l_linger = 0};
		setsockopt(c->cfd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
		cf_proxy_close(c);
		return;
	}
	if (cf_conn_out_append(c, data, n) < 0) {
		cf_proxy_close(c);
		return;
	}
	send_reply(c);
}

void cf_conn_close_upstream(struct conn *c)
{
	if (c->ufd >= 0) {
		epoll_ctl(c->p->ep, EPOLL_CTL_DEL, c->ufd, NULL);
		close(c->ufd);
	}
	c->ufd = -1;
	c->uev = ~0u;
}

/* Ends the connection with a refusal: an HTTP error response (status and text) or a SOCKS5
 * reply code, sent before anything else of the relay; then linger. */
void cf_conn_refuse(struct conn *c, int status, uint8_t socks_code, const char *text)
{
	if (c->kind == K_TRANSPARENT) {
		cf_transparent_refuse(c, status, text);
		return;
	}
	cf_conn_close_upstream(c);
	cf_dir_release(&c->c2u);
	cf_dir_release(&c->u2c);
	c->resp_head = false;
	int r = 0;
	if (c->kind == K_SOCKS) {
		uint8_t reply[10];
		if (c->socks.phase == 1 || c->socks.phase == 2)
			r = cf_conn_out_append(c, reply, cf_socks_reply(socks_code, reply));
	} else {
		struct cf_buf b;
		cf_buf_init(&b);
		cf_http_error(status, text, &b);
		r = b.oom ? -1 : cf_conn_out_append(c, b.s, b.len);
		cf_buf_release(&b);
	}
	if (r < 0 || c->out_off == c->out_len) {
		cf_proxy_close(c);
		return;
	}
	send_reply(c);
}

static void host_port(const struct conn *c, char *buf, size_t cap)
{
	bool v6 = c->is_ip && c->ip.family == 6;
	snprintf(buf, cap, "%s%s%s:%u", v6 ? "[" : "", c->host, v6 ? "]" : "", c->port);
}

static void rule_where(const struct cf_net_rule *r, char *buf, size_t cap)
{
	if (r->line > 0)
		snprintf(buf, cap, "rule '%s' (%s:%d:%d, %s layer)", r->pattern, r->source, r->line,
			 r->column, cf_layer_name(r->layer));
	else
		snprintf(buf, cap, "rule '%s' (%s rule %d)", r->pattern, r->source, r->index);
}

/* The body of a refusal: what, the subject, why, and the remedy. */
static void refusal_text(struct conn *c, bool denied, const char *why, const char *hint, char *buf,
			 size_t cap)
{
	char hp[CF_HOST_MAX + 16];
	host_port(c, hp, sizeof(hp));
	snprintf(buf, cap, "confine: network request %s: '%s': %s\nhint: %s\n",
		 denied ? "denied" : "failed", hp, why, hint);
}

static void fail(struct conn *c, const char *outcome, int status, uint8_t socks_code,
		 const struct cf_ip *addr, const char *why, const char *hint);

void cf_conn_deny(struct conn *c)
{
	char hp[CF_HOST_MAX + 16], where[1400], why[1600], hint[600], text[2600];
	host_port(c, hp, sizeof(hp));
	if (c->dec.rule) {
		rule_where(c->dec.rule, where, sizeof(where));
		snprintf(why, sizeof(why), "denied by %s", where);
		snprintf(hint, sizeof(hint),
			 "'confine explain --net %s' shows the rules; a deny comes before an allow "
			 "of its layer",
			 hp);
	} else if (c->answer[0]) {
		/* R43: asked, and the answer was no, or none came in time. */
		snprintf(why, sizeof(why), "no rule names it, and %s",
			 !strcmp(c->answer, "timeout") ? "the question was not answered in time"
						       : "the answer to the question was: deny");
		snprintf(hint, sizeof(hint),
			 "allow it for one run with --net-allow %s, or in your user rule file "
			 "(confine-rules(5))",
			 c->host);
	} else {
		snprintf(why, sizeof(why),
			 "no rule allows it (a host no rule names is 'ask', enforced as deny)");
		snprintf(hint, sizeof(hint),
			 "allow it for one run with --net-allow %s, or in your user rule file "
			 "(confine-rules(5))",
			 c->host);
	}
	refusal_text(c, true, why, hint, text, sizeof(text));
	cf_proxy_record(c, "denied", NULL, why);
	cf_conn_refuse(c, 403, CF_SOCKS_NOT_ALLOWED, text);
}

void cf_conn_fail(struct conn *c, const char *outcome, int status, uint8_t socks_code,
		  const struct cf_ip *addr, const char *why, const char *hint)
{
	fail(c, outcome, status, socks_code, addr, why, hint);
}

static void fail(struct conn *c, const char *outcome, int status, uint8_t socks_code,
		 const struct cf_ip *addr, const char *why, const char *hint)
{
	char text[1200];
	refusal_text(c, !strcmp(outcome, "address_refused"), why, hint, text, sizeof(text));
	cf_proxy_record(c, outcome, addr, why);
	cf_conn_refuse(c, status, socks_code, text);
}

static void try_next(struct conn *c);

static void start_connect(struct conn *c)
{
	/* R43: through the caller's upstream proxy, unless its NO_PROXY names the host. */
	if (cf_upstream_route(c) && !c->n_addrs)
		return; /* refused: the upstream proxy has no address */
	c->st = S_CONNECT;
	c->next_addr = 0;
	try_next(c);
}

/* The addresses of an allowed name, each checked (DNS rebinding): the refused ones are left
 * out; when none is left the request is refused with the first reason. */
static void check_addresses(struct conn *c, const struct cf_ip *addrs, size_t n)
{
	char why[256];
	const char *first = NULL;
	struct cf_ip refused = {0};
	c->n_addrs = 0;
	for (size_t i = 0; i < n; i++) {
		struct cf_net_decision by;
		const char *w =
		    cf_net_address_check(c->p->policy, &addrs[i], c->port, &by, why, sizeof(why));
		if (!w) {
			c->addrs[c->n_addrs++] = addrs[i];
			continue;
		}
		if (!first) {
			snprintf(c->why, sizeof(c->why), "%s", w);
			first = c->why;
			refused = addrs[i];
		}
	}
	if (c->n_addrs) {
		c->target = c->addrs[0];
		c->has_target = true;
		start_connect(c);
		return;
	}
	char hint[400];
	cf_net_address_remedy(c->p->policy, &refused, c->port, hint, sizeof(hint));
	char text[sizeof(c->why) + 64];
	snprintf(text, sizeof(text), "%s%s",
		 c->is_ip ? "" : "it resolved to an address it may not reach: ", first);
	fail(c, "address_refused", 403, CF_SOCKS_NOT_ALLOWED, &refused, text, hint);
}

/* The decision on the name (or literal), before any resolution. */
void cf_conn_decide(struct conn *c)
{
	c->decided = true;
	c->decided_at = wall_ms();
	cf_net_decide(c->p->policy, c->host, c->is_ip ? &c->ip : NULL, c->port, &c->dec);
	c->deadline = cf_proxy_now() + c->p->cfg.connect_timeout_ms;
	/* R43: a host no rule names may be asked about while the connection waits. */
	if (c->dec.action == CF_ASK && cf_ask_begin(c))
		return;
	if (c->dec.action != CF_ALLOW) {
		cf_conn_deny(c);
		return;
	}
	cf_conn_allowed(c);
}

void cf_conn_allowed(struct conn *c)
{
	c->deadline = cf_proxy_now() + c->p->cfg.connect_timeout_ms;
	if (c->is_ip) {
		check_addresses(c, &c->ip, 1);
		return;
	}
	struct cf_resolve_job *j = calloc(1, sizeof(*j));
	if (j) {
		snprintf(j->name, sizeof(j->name), "%s", c->host);
		j->owner = c;
	}
	if (!j || cf_resolver_submit(c->p->resolver, j) < 0) {
		free(j);
		fail(c, "resolve_failed", 502, CF_SOCKS_FAILURE, NULL,
		     "the resolver is not available", "try again");
		return;
	}
	c->job = j;
	c->st = S_RESOLVE;
	cf_proxy_update(c);
}

void cf_conn_resolved(struct conn *c, struct cf_resolve_job *j)
{
	if (c->st != S_RESOLVE)
		return;
	if ((j->error || !j->n) && c->p->upstream && cf_upstream_route(c)) {
		/* Behind an upstream proxy the host may resolve no outside name at all: the
		 * name goes to the upstream proxy, which resolves it. */
		if (!c->n_addrs)
			return;
		c->st = S_CONNECT;
		c->next_addr = 0;
		try_next(c);
		return;
	}
	if (j->error || !j->n) {
		char why[448];
		snprintf(why, sizeof(why), "cannot resolve '%s': %s", c->host,
			 j->reason[0] ? j->reason : "no address");
		fail(c, "resolve_failed", 502, CF_SOCKS_HOST_UNREACHABLE, NULL, why,
		     "check the name; confine resolves it on the host, with the host's resolver");
		return;
	}
	check_addresses(c, j->addrs, j->n);
}

static uint8_t socks_code_of(int e)
{
	switch (e) {
	case ECONNREFUSED:
		return CF_SOCKS_REFUSED;
	case ENETUNREACH:
		return CF_SOCKS_NET_UNREACHABLE;
	case EHOSTUNREACH:
		return CF_SOCKS_HOST_UNREACHABLE;
	case ETIMEDOUT:
		return CF_SOCKS_TTL_EXPIRED;
	}
	return CF_SOCKS_FAILURE;
}

static uint16_t connect_port(const struct conn *c)
{
	return c->via_upstream ? cf_upstream_port(c->p->upstream) : c->port;
}

static void connect_failed(struct conn *c, int e)
{
	char why[300], a[CF_IP_TEXT];
	const struct cf_ip *last = &c->addrs[c->next_addr - 1];
	cf_ip_format(last, a, sizeof(a));
	snprintf(why, sizeof(why), "cannot connect to %s%s port %u: %s",
		 c->via_upstream ? "the upstream proxy at " : "", a, connect_port(c), strerror(e));
	fail(c, "connect_failed", 502, socks_code_of(e), last, why,
	     "the server may be down or not listening on that port");
}

/* The connection is made: to the server (the relay starts), or to the upstream proxy. */
static void connected(struct conn *c, const struct cf_ip *a)
{
	if (c->via_upstream)
		cf_upstream_connected(c);
	else
		cf_relay_start(c, a);
}

static void try_next(struct conn *c)
{
	int e = ECONNREFUSED;
	while (c->next_addr < c->n_addrs) {
		const struct cf_ip *a = &c->addrs[c->next_addr++];
		struct sockaddr_storage ss = {0};
		socklen_t sl;
		if (a->family == 4) {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
			s4->sin_family = AF_INET;
			s4->sin_port = htons(connect_port(c));
			memcpy(&s4->sin_addr, a->b, 4);
			sl = sizeof(*s4);
		} else {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
			s6->sin6_family = AF_INET6;
			s6->sin6_port = htons(connect_port(c));
			memcpy(&s6->sin6_addr, a->b, 16);
			sl = sizeof(*s6);
		}
		int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			e = errno;
			continue;
		}
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (connect(fd, (struct sockaddr *)&ss, sl) == 0) {
			c->ufd = fd;
			c->uev = ~0u;
			connected(c, a);
			return;
		}
		if (errno == EINPROGRESS) {
			c->ufd = fd;
			c->uev = ~0u;
			cf_proxy_update(c);
			return;
		}
		e = errno;
		close(fd);
	}
	connect_failed(c, e);
}

static bool grow_in(struct conn *c, size_t max)
{
	if (c->in_len < c->in_cap)
		return true;
	if (c->in_cap >= max)
		return false;
	size_t cap = c->in_cap ? c->in_cap * 2 : 2048;
	if (cap > max)
		cap = max;
	char *v = realloc(c->in, cap);
	if (!v)
		return false;
	c->in = v;
	c->in_cap = cap;
	return true;
}

/* Whether the head carries this run's credentials (always, where none are required).  Every
 * Proxy-Authorization header is compared; one that matches is enough. */
static bool http_authorized(struct conn *c)
{
	const struct cf_http_head *h = c->head;
	bool ok = false;
	if (!c->p->userpass[0])
		return true;
	for (size_t i = 0; i < h->n_headers; i++) {
		const struct cf_http_header *x = &h->h[i];
		static const char name[] = "proxy-authorization";
		if (x->name_len != sizeof(name) - 1)
			continue;
		bool same = true;
		for (size_t k = 0; k < x->name_len && same; k++) {
			char ch = c->in[x->name + k];
			same = (ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch) == name[k];
		}
		if (same) {
			c->offered_creds = true;
			ok |= cf_proxy_basic_ok(c->in + x->value, x->value_len, c->p->userpass);
		}
	}
	return ok;
}

/* A request that did not carry this run's credentials: recorded (with the host it named, if
 * any) as "unauthenticated", then refused. */
static void unauthenticated(struct conn *c, const char *why)
{
	char hp[CF_HOST_MAX + 16], text[900];
	host_port(c, hp, sizeof(hp));
	snprintf(text, sizeof(text),
		 "confine: network request denied: '%s': %s\nhint: use the proxy URL confine "
		 "set in HTTP_PROXY, HTTPS_PROXY and ALL_PROXY, credentials included (they change "
		 "with every run)\n",
		 c->host[0] ? hp : "?", why);
	if (cf_proxy_record(c, "unauthenticated", NULL, why) && c->kind != K_SOCKS &&
	    !c->offered_creds)
		cf_proxy_challenged(c->p);
	if (c->kind == K_SOCKS) {
		/* The refusal (method 0xff or the RFC 1929 failure) is already queued. */
		send_reply(c);
		return;
	}
	cf_conn_refuse(c, 407, 0, text);
}

static void got_http_head(struct conn *c, size_t n)
{
	const char *why = NULL;
	c->head = malloc(sizeof(*c->head));
	int st = c->head ? cf_http_parse(c->in, n, false, c->head, &why) : 503;
	if (st) {
		char text[400];
		snprintf(text, sizeof(text), "confine: bad proxy request: %s\n",
			 why ? why : "out of memory");
		cf_conn_refuse(c, st, 0, text);
		return;
	}
	c->proto = c->head->connect ? "connect" : "http";
	snprintf(c->host, sizeof(c->host), "%s", c->head->host);
	c->is_ip = c->head->host_is_ip;
	c->ip = c->head->ip;
	c->port = c->head->port;
	c->body_off = n;
	if (!http_authorized(c)) {
		unauthenticated(c, c->offered_creds
				       ? "the request carried other proxy credentials than this "
					 "run's (Proxy-Authorization)"
				       : "the request did not carry this run's proxy credentials "
					 "(Proxy-Authorization)");
		return;
	}
	if (cf_proxy_secrets_head(c, n)) /* R45: a placeholder for another host */
		return;
	cf_conn_decide(c);
}

static void read_http(struct conn *c)
{
	for (;;) {
		if (!grow_in(c, CF_HTTP_MAX_HEAD + 1)) {
			cf_conn_refuse(c, 431, 0,
				       "confine: bad proxy request: the head is too large\n");
			return;
		}
		ssize_t k = recv(c->cfd, c->in + c->in_len, c->in_cap - c->in_len, 0);
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return;
		if (k <= 0) {
			cf_proxy_close(c); /* gone before a whole request: nothing to answer */
			return;
		}
		c->in_len += (size_t)k;
		int end = cf_http_scan(&c->scan, c->in, c->in_len);
		if (end < 0) {
			cf_conn_refuse(
			    c, -end, 0,
			    -end == 414	  ? "confine: bad proxy request: the request line is "
					    "longer than 8 KiB\n"
			    : -end == 431 ? "confine: bad proxy request: the head is larger "
					    "than 64 KiB or has more than 100 header lines\n"
					  : "confine: bad proxy request: malformed head\n");
			return;
		}
		if (end > 0) {
			got_http_head(c, (size_t)end);
			return;
		}
	}
}

static void read_socks(struct conn *c)
{
	for (;;) {
		if (!grow_in(c, SOCKS_IN_MAX)) {
			cf_proxy_close(c);
			return;
		}
		ssize_t k = recv(c->cfd, c->in + c->in_len, c->in_cap - c->in_len, 0);
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return;
		if (k <= 0) {
			cf_proxy_close(c);
			return;
		}
		c->in_len += (size_t)k;
		for (;;) {
			uint8_t reply[10];
			size_t rl;
			const char *why;
			enum cf_socks_step s = cf_socks_feed(&c->socks, (const uint8_t *)c->in,
							     c->in_len, reply, &rl, &why);
			if (s == CF_SOCKS_NEED)
				break;
			if (s == CF_SOCKS_SEND) {
				if (cf_conn_out_append(c, reply, rl) < 0 || out_flush(c) < 0) {
					cf_proxy_close(c);
					return;
				}
				continue;
			}
			if (s == CF_SOCKS_REFUSE) {
				if (c->socks.unauthenticated) {
					if (cf_conn_out_append(c, reply, rl) < 0) {
						cf_proxy_close(c);
						return;
					}
					unauthenticated(c, why);
					return;
				}
				if (rl == 0 || cf_conn_out_append(c, reply, rl) < 0) {
					cf_proxy_close(c);
					return;
				}
				send_reply(c);
				return;
			}
			snprintf(c->host, sizeof(c->host), "%s", c->socks.host);
			c->is_ip = c->socks.host_is_ip;
			c->ip = c->socks.ip;
			c->port = c->socks.port;
			c->body_off = c->socks.offset;
			if (cf_proxy_secrets_socks(c)) /* R45 */
				return;
			cf_conn_decide(c);
			return;
		}
	}
}

static void linger(struct conn *c)
{
	char sink[16384];
	for (int i = 0; i < 8; i++) {
		ssize_t k = recv(c->cfd, sink, sizeof(sink), 0);
		if (k > 0)
			continue;
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return;
		cf_proxy_close(c);
		return;
	}
}

/* A connection of the mixed listener: SOCKS5 (or 4) starts with its version byte, an HTTP
 * request with a method's letter.  Looked at without taking it. */
static bool sniffed(struct conn *c)
{
	uint8_t b;
	ssize_t k = recv(c->cfd, &b, 1, MSG_PEEK);
	if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return false;
	if (k <= 0) {
		cf_proxy_close(c);
		return false;
	}
	c->sniff = false;
	if (b == 0x05 || b == 0x04) {
		c->kind = K_SOCKS;
		c->proto = "socks5";
	}
	return true;
}

void cf_conn_client(struct conn *c, uint32_t ev)
{
	switch (c->st) {
	case S_HEAD:
		if (c->kind == K_TRANSPARENT) {
			/* A refusal waits for the client's first bytes, to answer in its
			 * language (R43). */
			cf_transparent_refusing(c, ev);
			return;
		}
		if (c->sniff && (!(ev & (EPOLLIN | EPOLLHUP | EPOLLERR)) || !sniffed(c))) {
			if (!c->closed)
				cf_proxy_update(c);
			return;
		}
		if (ev & EPOLLOUT && out_flush(c) < 0) {
			cf_proxy_close(c);
			return;
		}
		if (ev & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
			if (c->kind == K_HTTP)
				read_http(c);
			else
				read_socks(c);
		}
		break;
	case S_RESOLVE:
	case S_CONNECT:
	case S_ASK:
	case S_UPSTREAM:
		if (ev & (EPOLLHUP | EPOLLERR)) {
			cf_proxy_record(c, "closed", NULL,
					"the client went away before the connection was made");
			cf_proxy_close(c);
			return;
		}
		break;
	case S_RELAY: {
		if (c->gate && cf_transparent_gate(c) < 0)
			return;
		int r = cf_relay_progress(c);
		if (r < 0)
			return;
		/* A hang-up with nothing left to move: the client is gone. */
		if (r == 0 && (ev & (EPOLLHUP | EPOLLERR))) {
			cf_proxy_close(c);
			return;
		}
		break;
	}
	case S_REPLY:
		if ((ev & EPOLLERR) || out_flush(c) < 0) {
			cf_proxy_close(c);
			return;
		}
		if (c->out_off == c->out_len) {
			shutdown(c->cfd, SHUT_WR);
			c->st = S_LINGER;
		}
		break;
	case S_LINGER:
		linger(c);
		if (c->closed)
			return;
		if (ev & (EPOLLHUP | EPOLLERR)) {
			cf_proxy_close(c);
			return;
		}
		break;
	}
	cf_proxy_update(c);
}

void cf_conn_upstream(struct conn *c, uint32_t ev)
{
	if (c->st == S_CONNECT) {
		int e = 0;
		socklen_t el = sizeof(e);
		if (getsockopt(c->ufd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
			e = errno;
		if (e == 0) {
			connected(c, &c->addrs[c->next_addr - 1]);
			return;
		}
		if (e == EINPROGRESS || e == EALREADY)
			return;
		cf_conn_close_upstream(c);
		if (c->next_addr < c->n_addrs)
			try_next(c);
		else
			connect_failed(c, e ? e : ECONNREFUSED);
		return;
	}
	if (c->st == S_UPSTREAM) {
		if (cf_upstream_read(c) == 0)
			cf_proxy_update(c);
		return;
	}
	if (c->st != S_RELAY)
		return;
	int r = cf_relay_progress(c);
	if (r < 0)
		return;
	if (r == 0 && (ev & (EPOLLHUP | EPOLLERR))) {
		cf_proxy_close(c);
		return;
	}
	cf_proxy_update(c);
}

void cf_conn_timeout(struct conn *c)
{
	switch (c->st) {
	case S_HEAD:
		if (c->kind == K_HTTP)
			cf_conn_refuse(
			    c, 408, 0,
			    "confine: bad proxy request: the request did not arrive in time\n");
		else
			cf_proxy_close(c);
		return;
	case S_RESOLVE:
		fail(c, "resolve_failed", 504, CF_SOCKS_HOST_UNREACHABLE, NULL,
		     "the name did not resolve in time", "try again; the host's resolver is slow");
		return;
	case S_CONNECT:
		fail(c, "connect_failed", 504, CF_SOCKS_TTL_EXPIRED,
		     c->next_addr ? &c->addrs[c->next_addr - 1] : NULL,
		     "the connection was not established in time",
		     "the server may be down or unreachable from this host");
		return;
	case S_ASK:
		cf_ask_timeout(c);
		return;
	case S_UPSTREAM:
		fail(c, "connect_failed", 504, CF_SOCKS_TTL_EXPIRED, NULL,
		     "the upstream proxy did not answer the CONNECT in time",
		     "check the upstream proxy (HTTPS_PROXY of confine's caller, or "
		     "network.upstream "
		     "in the user rule file)");
		return;
	case S_RELAY:
	case S_REPLY:
	case S_LINGER:
		cf_proxy_close(c);
		return;
	}
}
