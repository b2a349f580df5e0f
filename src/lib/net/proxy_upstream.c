/* SPDX-License-Identifier: MIT */
/*
 * Through the caller's upstream proxy (R43, rules/upstream.h).  The decision is made exactly as
 * without one: on the name first, then the name is resolved on the host and its addresses are
 * checked (the special-address refusal); only then, instead of connecting to the checked
 * address, confine's proxy connects to the upstream proxy and asks it, with CONNECT and the
 * upstream's credentials, for the host by name (the upstream proxy applies its own policy to
 * names).  Where the host cannot resolve the name at all (a network where only the upstream
 * proxy resolves outside names), the name, already allowed, goes to the upstream proxy
 * unresolved, and what it connects to is its own business.  Every request goes through a
 * CONNECT tunnel, plain HTTP too (its head is sent inside the tunnel as it would be sent to the
 * server).  NO_PROXY of the caller sends a host directly.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "net/proxy_int.h"
#include "rules/upstream.h"

uint16_t cf_upstream_port(const struct cf_upstream *u)
{
	return u ? u->port : 0;
}

void cf_upstream_detail(const struct cf_upstream *u, char *buf, size_t cap)
{
	if (u)
		snprintf(buf, cap, "through the upstream proxy %s", u->shown);
}

bool cf_upstream_route(struct conn *c)
{
	const struct cf_upstream *u = c->p->upstream;
	if (!u || cf_upstream_direct(u, c->host, c->is_ip ? &c->ip : NULL, c->port))
		return false;
	c->via_upstream = true;
	c->n_addrs = c->next_addr = 0;
	if (!u->n_addrs) {
		char why[700];
		snprintf(why, sizeof(why), "cannot resolve the upstream proxy %s: %s", u->shown,
			 u->resolve_error[0] ? u->resolve_error : "no address");
		cf_conn_fail(c, "connect_failed", 502, CF_SOCKS_FAILURE, NULL, why,
			     "check the upstream proxy's name (HTTPS_PROXY of confine's caller, or "
			     "network.upstream in the user rule file)");
		return true;
	}
	memcpy(c->addrs, u->addrs, u->n_addrs * sizeof(c->addrs[0]));
	c->n_addrs = u->n_addrs;
	return true;
}

void cf_upstream_connected(struct conn *c)
{
	const struct cf_upstream *u = c->p->upstream;
	bool v6 = c->is_ip && c->ip.family == 6;
	char req[1200];
	int n = snprintf(
	    req, sizeof(req), "CONNECT %s%s%s:%u HTTP/1.1\r\nHost: %s%s%s:%u\r\n%s%s%s\r\n",
	    v6 ? "[" : "", c->host, v6 ? "]" : "", c->port, v6 ? "[" : "", c->host, v6 ? "]" : "",
	    c->port, u->auth[0] ? "Proxy-Authorization: " : "", u->auth, u->auth[0] ? "\r\n" : "");
	/* A fresh connection's send buffer takes a head this small at once. */
	ssize_t k = n > 0 && (size_t)n < sizeof(req)
			? send(c->ufd, req, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT)
			: -1;
	explicit_bzero(req, sizeof(req));
	if (k != n) {
		char why[700];
		snprintf(why, sizeof(why), "cannot send the CONNECT to the upstream proxy %s: %s",
			 u->shown, k < 0 ? strerror(errno) : "short write");
		cf_conn_fail(c, "connect_failed", 502, CF_SOCKS_FAILURE, NULL, why,
			     "check the upstream proxy");
		return;
	}
	c->st = S_UPSTREAM;
	c->deadline = cf_proxy_now() + c->p->cfg.connect_timeout_ms;
	memset(&c->rscan, 0, sizeof(c->rscan));
	c->rin_len = 0;
	cf_proxy_update(c);
}

/* The upstream proxy's answer is complete (end bytes of head in c->rin). */
static int answered(struct conn *c, size_t end)
{
	const struct cf_upstream *u = c->p->upstream;
	struct cf_http_head *h = malloc(sizeof(*h));
	const char *why = "out of memory";
	int st = h ? cf_http_parse(c->rin, end, true, h, &why) : 502;
	int status = st ? 0 : h->status;
	free(h);
	if (status < 200 || status > 299) {
		char text[400];
		if (st)
			snprintf(text, sizeof(text), "the upstream proxy %s answered: %s", u->shown,
				 why);
		else
			snprintf(text, sizeof(text),
				 "the upstream proxy %s answered the CONNECT with %d%s", u->shown,
				 status,
				 status == 407 ? " (it wants other credentials than those given)"
					       : "");
		cf_conn_fail(c, "connect_failed", 502, CF_SOCKS_FAILURE, NULL, text,
			     status == 407
				 ? "check the user and password in the upstream proxy's URL "
				   "(HTTPS_PROXY of confine's caller, or network.upstream)"
				 : "the upstream proxy refused the host; ask its administrator");
		return -1;
	}
	/* What the server sent right after the answer stays in c->rin: the relay sends it on
	 * first (cf_upstream_leftover). */
	memmove(c->rin, c->rin + end, c->rin_len - end);
	c->rin_len -= end;
	memset(&c->rscan, 0, sizeof(c->rscan));
	cf_relay_start(c, c->has_target ? &c->target : NULL);
	return -1; /* the state moved on: the caller updates nothing */
}

int cf_upstream_read(struct conn *c)
{
	for (;;) {
		if (c->rin_len == c->rin_cap) {
			size_t cap = c->rin_cap ? c->rin_cap * 2 : 4096;
			if (cap > CF_HTTP_MAX_HEAD + 1)
				cap = CF_HTTP_MAX_HEAD + 1;
			char *v = cap > c->rin_cap ? realloc(c->rin, cap) : NULL;
			if (!v) {
				cf_conn_fail(c, "connect_failed", 502, CF_SOCKS_FAILURE, NULL,
					     "the upstream proxy's answer is too large",
					     "check the upstream proxy");
				return -1;
			}
			c->rin = v;
			c->rin_cap = cap;
		}
		ssize_t k = recv(c->ufd, c->rin + c->rin_len, c->rin_cap - c->rin_len, 0);
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return 0;
		if (k <= 0) {
			cf_conn_fail(c, "connect_failed", 502, CF_SOCKS_FAILURE, NULL,
				     "the upstream proxy closed the connection without an answer",
				     "check the upstream proxy");
			return -1;
		}
		c->rin_len += (size_t)k;
		int end = cf_http_scan(&c->rscan, c->rin, c->rin_len);
		if (end < 0) {
			cf_conn_fail(c, "connect_failed", 502, CF_SOCKS_FAILURE, NULL,
				     "the upstream proxy's answer is malformed",
				     "check the upstream proxy");
			return -1;
		}
		if (end > 0)
			return answered(c, (size_t)end);
	}
}

int cf_upstream_leftover(struct conn *c)
{
	if (!c->rin_len)
		return 0;
	if (c->resp_head)
		return 0; /* the start of the response to an absolute-URI request: its head */
	int r = cf_queue_append(&c->u2c.pre, &c->u2c.pre_off, &c->u2c.pre_len, c->rin, c->rin_len);
	free(c->rin);
	c->rin = NULL;
	c->rin_len = c->rin_cap = 0;
	return r;
}
