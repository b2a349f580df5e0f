/* SPDX-License-Identifier: MIT */
/*
 * Transparent connections (R43): every TCP connection of the command to an address outside
 * loopback arrives here, redirected by the sandbox's nftables rule (exec/linux/netns.h), so
 * that a client that never heard of a proxy (Node's fetch, ssh, Go's own transport, a raw
 * connect) is decided like a proxied request:
 *
 *   - where it was going is the original destination (SO_ORIGINAL_DST); a synthetic address
 *     stands for the name the resolver inside gave it (net/synth.h), any other address is a
 *     literal;
 *   - the decision runs on that name or literal (ask included), then resolution on the host,
 *     the special-address refusal, the connection (through the upstream proxy where there is
 *     one), exactly as for a CONNECT;
 *   - for a synthetic address, nothing the client sends goes upstream before its first bytes
 *     are checked (the gate): a TLS ClientHello must name the same server (SNI), a plain HTTP
 *     request must carry the same Host; anything else (ssh, a database protocol) passes.  What
 *     the server sends first flows at once (protocols where the server speaks first).  A plain
 *     HTTP request goes on as the proxy sends an absolute-URI one: "Connection: close", so the
 *     next request comes on a new connection, with its own check;
 *   - a refusal is said in the client's language once its first bytes show it: a TLS alert
 *     (access_denied), an HTTP 403 naming confine and the remedy, else a reset.
 */
#include <errno.h>
#include <netinet/in.h>
#include <linux/netfilter_ipv4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/proxy_int.h"
#include "net/tlshello.h"

#ifndef IP6T_SO_ORIGINAL_DST
#define IP6T_SO_ORIGINAL_DST 80
#endif

/* What the gate reads at most: a head of CF_HTTP_MAX_HEAD, or a ClientHello's records. */
#define GATE_MAX (CF_HTTP_MAX_HEAD + 1)

static bool to_ip(const struct sockaddr_storage *ss, struct cf_ip *ip, uint16_t *port)
{
	memset(ip, 0, sizeof(*ip));
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
		ip->family = 4;
		memcpy(ip->b, &a->sin_addr, 4);
		*port = ntohs(a->sin_port);
		return true;
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
		/* Through the text form: an IPv4-mapped address is the IPv4 address it maps. */
		char t[CF_IP_TEXT];
		struct cf_ip v6 = {.family = 6};
		memcpy(v6.b, &a->sin6_addr, 16);
		cf_ip_format(&v6, t, sizeof(t));
		*port = ntohs(a->sin6_port);
		return cf_ip_parse(t, strlen(t), ip);
	}
	return false;
}

void cf_transparent_begin(struct conn *c)
{
	struct sockaddr_storage orig, local;
	socklen_t ol = sizeof(orig), ll = sizeof(local);
	int dom = 0;
	socklen_t dl = sizeof(dom);
	memset(&orig, 0, sizeof(orig));
	struct cf_ip ip, lip;
	uint16_t port = 0, lport = 0;
	bool ok =
	    getsockopt(c->cfd, SOL_SOCKET, SO_DOMAIN, &dom, &dl) == 0 &&
	    (dom == AF_INET6 ? getsockopt(c->cfd, SOL_IPV6, IP6T_SO_ORIGINAL_DST, &orig, &ol)
			     : getsockopt(c->cfd, SOL_IP, SO_ORIGINAL_DST, &orig, &ol)) == 0 &&
	    getsockname(c->cfd, (struct sockaddr *)&local, &ll) == 0 && to_ip(&orig, &ip, &port) &&
	    to_ip(&local, &lip, &lport) && port;
	/* Not redirected (a connection to the listener itself): nothing to decide. */
	if (!ok || (cf_ip_equal(&ip, &lip) && port == lport)) {
		cf_proxy_close(c);
		return;
	}
	c->proto = "tcp";
	c->port = port;
	const char *name = cf_inside_name(c->p, &ip);
	if (name) {
		snprintf(c->host, sizeof(c->host), "%s", name);
		c->synthetic = c->gate = true;
	} else {
		/* A literal: an address of /etc/hosts, of the command's own, or a synthetic one
		 * never handed out, which the special-address check refuses. */
		cf_ip_format(&ip, c->host, sizeof(c->host));
		c->is_ip = true;
		c->ip = ip;
	}
	cf_conn_decide(c);
	cf_proxy_update(c);
}

static int pre_append(struct dir *d, const void *data, size_t n)
{
	return cf_queue_append(&d->pre, &d->pre_off, &d->pre_len, data, n);
}

/* The client's side opens: what it sent so far goes first, the pump after. */
static int open_gate(struct conn *c, const char *fwd, size_t fwd_len, size_t from)
{
	int r = 0;
	c->gate = false;
	cf_proxy_record(c, "connected", c->has_target ? &c->target : NULL, "");
	if (fwd_len)
		r = pre_append(&c->c2u, fwd, fwd_len);
	if (r == 0 && c->in_len > from)
		r = pre_append(&c->c2u, c->in + from, c->in_len - from);
	free(c->in);
	c->in = NULL;
	c->in_len = c->in_cap = 0;
	if (r == 0 && cf_pump_init(&c->c2u.pump) < 0)
		r = -1;
	c->c2u.pump_on = r == 0;
	if (r < 0)
		cf_proxy_close(c);
	return r;
}

void cf_transparent_relay_start(struct conn *c, const struct cf_ip *a)
{
	if (a) {
		c->target = *a;
		c->has_target = true;
	}
	if (cf_proxy_secrets_take(c)) /* R45: an inspected host, from here on */
		return;
	int r = c->via_upstream ? cf_upstream_leftover(c) : 0;
	if (r == 0)
		r = cf_pump_init(&c->u2c.pump);
	c->u2c.pump_on = r == 0;
	c->st = S_RELAY;
	c->deadline = cf_proxy_now() + c->p->cfg.idle_timeout_ms;
	if (r == 0 && !c->gate)
		r = open_gate(c, NULL, 0, 0);
	else if (r < 0)
		cf_proxy_close(c);
	if (r < 0)
		return;
	if (cf_relay_progress(c) >= 0)
		cf_proxy_update(c);
}

/* Reads what the client has sent into c->in (up to GATE_MAX): 1 something new, 0 nothing
 * now, -1 the client ended or failed (or sent more than GATE_MAX without being understood). */
static int read_more(struct conn *c)
{
	if (c->in_len == c->in_cap) {
		if (c->in_cap >= GATE_MAX)
			return -1;
		size_t cap = c->in_cap ? c->in_cap * 2 : 4096;
		if (cap > GATE_MAX)
			cap = GATE_MAX;
		char *v = realloc(c->in, cap);
		if (!v)
			return -1;
		c->in = v;
		c->in_cap = cap;
	}
	ssize_t k = recv(c->cfd, c->in + c->in_len, c->in_cap - c->in_len, 0);
	if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return 0;
	if (k <= 0)
		return -1;
	c->in_len += (size_t)k;
	return 1;
}

static void mismatch(struct conn *c, const char *outcome, const char *why)
{
	char text[2000], hint[700];
	snprintf(hint, sizeof(hint),
		 "a connection to the address of '%s' must name '%s' (TLS server name, HTTP "
		 "Host); connect by the name it should reach, and allow that name",
		 c->host, c->host);
	snprintf(text, sizeof(text), "confine: network request denied: '%s:%u': %s\nhint: %s\n",
		 c->host, c->port, why, hint);
	cf_proxy_record(c, outcome, c->has_target ? &c->target : NULL, why);
	cf_conn_refuse(c, 403, 0, text);
}

/* A complete HTTP head at the gate: the same Host, then sent on with "Connection: close". */
static int gate_http(struct conn *c, size_t end)
{
	struct cf_http_head *h = malloc(sizeof(*h));
	const char *why = "out of memory";
	char text[600];
	int st = h ? cf_http_parse_origin(c->in, end, c->port, h, &why) : 503;
	if (st) {
		free(h);
		snprintf(text, sizeof(text), "the HTTP request is not one confine can check: %s",
			 why);
		mismatch(c, "bad_request", text);
		return -1;
	}
	if (h->host_is_ip || strcmp(h->host, c->host) || h->port != c->port) {
		snprintf(text, sizeof(text),
			 "the request's Host ('%.*s') is not the name this connection's address "
			 "stands for",
			 (int)(h->authority_len > 260 ? 260 : h->authority_len),
			 c->in + h->authority);
		free(h);
		mismatch(c, "host_mismatch", text);
		return -1;
	}
	if (cf_proxy_secrets_head(c, end)) { /* R45: a placeholder for another host */
		free(h);
		return -1;
	}
	struct cf_buf b;
	cf_buf_init(&b);
	cf_http_forward_request(c->in, h, &b);
	free(h);
	/* The response head comes back with "Connection: close" too, unless the server has
	 * already spoken. */
	if (!c->u2c.pump.moved && !c->u2c.pump.queued && !c->u2c.pre)
		c->resp_head = true;
	int r = b.oom ? -1 : open_gate(c, b.s, b.len, end);
	cf_buf_release(&b);
	return r;
}

int cf_transparent_gate(struct conn *c)
{
	for (;;) {
		bool first = c->in_len == 0;
		int k = read_more(c);
		/* Once the client has begun, its first bytes must be complete within the bound of
		 * a request head (slowloris); before that it may wait for the server. */
		if (k > 0 && first)
			c->deadline = cf_proxy_now() + c->p->cfg.head_timeout_ms;
		if (k < 0) {
			if (c->in_len >= GATE_MAX)
				mismatch(
				    c, "bad_request",
				    "the first bytes are neither a TLS ClientHello nor an HTTP "
				    "head within 64 KiB");
			else
				cf_proxy_close(c);
			return -1;
		}
		if (k == 0)
			return 0;
		char sni[CF_HOST_MAX + 1], why[700];
		const char *bad = NULL;
		switch (cf_first_bytes((const uint8_t *)c->in, c->in_len, sni, sizeof(sni), &bad)) {
		case CF_FIRST_NEED:
			continue;
		case CF_FIRST_OTHER:
			return open_gate(c, NULL, 0, 0);
		case CF_FIRST_BAD:
			snprintf(why, sizeof(why), "the TLS ClientHello is refused: %s", bad);
			mismatch(c, "bad_request", why);
			return -1;
		case CF_FIRST_TLS:
			if (!strcmp(sni, c->host))
				return open_gate(c, NULL, 0, 0);
			if (sni[0])
				snprintf(why, sizeof(why),
					 "the TLS server name (SNI) '%s' is not the name this "
					 "connection's address stands for",
					 sni);
			else
				snprintf(why, sizeof(why),
					 "the TLS ClientHello names no server (SNI)");
			mismatch(c, "sni_mismatch", why);
			return -1;
		case CF_FIRST_HTTP: {
			int end = cf_http_scan(&c->scan, c->in, c->in_len);
			if (end == 0)
				continue;
			if (end < 0) {
				mismatch(c, "bad_request", "the HTTP request head is malformed");
				return -1;
			}
			return gate_http(c, (size_t)end);
		}
		}
	}
}

void cf_transparent_refuse(struct conn *c, int status, const char *text)
{
	cf_conn_close_upstream(c);
	cf_dir_release(&c->c2u);
	cf_dir_release(&c->u2c);
	c->resp_head = false;
	c->gate = false;
	char sni[CF_HOST_MAX + 1];
	const char *why;
	enum cf_first k = cf_first_bytes((const uint8_t *)c->in, c->in_len, sni, sizeof(sni), &why);
	if (k == CF_FIRST_NEED && c->in_len < GATE_MAX && !c->refusal) {
		/* Nothing to tell the language by yet: wait a moment for the first bytes. */
		c->refusal = cf_strdup(text);
		c->refusal_status = status;
		c->st = S_HEAD;
		c->deadline = cf_proxy_now() + c->p->cfg.linger_ms;
		if (!c->refusal)
			cf_proxy_close(c);
		else
			cf_proxy_update(c);
		return;
	}
	if (k == CF_FIRST_TLS || (k == CF_FIRST_BAD && c->in_len && (uint8_t)c->in[0] == 0x16)) {
		/* A fatal alert, access_denied (49), in a TLS 1.2 record: what every TLS client
		 * reads before its handshake completes. */
		static const uint8_t alert[] = {0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x31};
		cf_conn_last_words(c, alert, sizeof(alert));
		return;
	}
	if (k == CF_FIRST_HTTP) {
		struct cf_buf b;
		cf_buf_init(&b);
		cf_http_error(status, text, &b);
		if (b.oom)
			cf_proxy_close(c);
		else
			cf_conn_last_words(c, b.s, b.len);
		cf_buf_release(&b);
		return;
	}
	cf_conn_last_words(c, NULL, 0);
}

void cf_transparent_refusing(struct conn *c, uint32_t ev)
{
	(void)ev;
	int k = read_more(c);
	if (k == 0)
		return;
	char sni[CF_HOST_MAX + 1];
	const char *why;
	if (k > 0 && cf_first_bytes((const uint8_t *)c->in, c->in_len, sni, sizeof(sni), &why) ==
			 CF_FIRST_NEED)
		return;
	if (k < 0) {
		cf_conn_last_words(c, NULL, 0); /* gone, or past GATE_MAX: a reset */
		return;
	}
	char *text = c->refusal;
	c->refusal = NULL;
	cf_transparent_refuse(c, c->refusal_status, text);
	free(text);
}
