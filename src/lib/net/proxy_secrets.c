/* SPDX-License-Identifier: MIT */
/*
 * Credential placeholders in confine's proxy (R45): the proxy's side of them, kept apart from
 * its connection logic.  Before a request is decided its head (or a SOCKS5 host name) is
 * searched for the placeholders of secrets not listed for its host: one found is refused
 * there, before anything is resolved or connected.  Once connected, a plain-HTTP request and a
 * tunnel to an inspected host go to the inspector (inspect.c), which reads every request on
 * the connection.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "net/inspect.h"
#include "net/proxy_int.h"

void cf_proxy_set_secrets(struct cf_proxy *p, struct cf_secrets *s, struct cf_inspector *in)
{
	p->secrets = s;
	p->inspector = in;
}

/* Refuses c when buf holds a placeholder of a secret not listed for c's host. */
static bool refused(struct conn *c, const char *buf, size_t n, const char *where)
{
	struct cf_secrets *s = c->p->secrets;
	bool skip[64] = {false};
	for (size_t i = 0; i < s->n && i < 64; i++)
		skip[i] = cf_secret_listed(&s->v[i], c->host, c->is_ip ? &c->ip : NULL, c->port);
	struct cf_secret_hit hit;
	if (!cf_secrets_find(s, buf, n, skip, &hit))
		return false;
	char text[700];
	cf_secrets_record(s, hit.secret->name, c->host, c->port, "refused", where, hit.encoding);
	snprintf(text, sizeof(text),
		 "confine: secret sent elsewhere: '%s:%u': the placeholder of %s (%s, %s) is only "
		 "for its own hosts; the request was refused\nhint: if %s may go to '%s', list the "
		 "host in its --secret\n",
		 c->host, c->port, hit.secret->name, where, hit.encoding, hit.secret->name,
		 c->host);
	cf_proxy_record(c, "secret_refused", NULL, "the request carried a secret's placeholder");
	cf_conn_refuse(c, 403, CF_SOCKS_NOT_ALLOWED, text);
	return true;
}

bool cf_proxy_secrets_head(struct conn *c, size_t head_len)
{
	if (!c->p->secrets || !c->p->secrets->n)
		return false;
	return refused(c, c->in, head_len,
		       c->head && c->head->connect ? "CONNECT request" : "request head");
}

bool cf_proxy_secrets_socks(struct conn *c)
{
	if (!c->p->secrets || !c->p->secrets->n)
		return false;
	return refused(c, c->host, strlen(c->host), "SOCKS5 host name");
}

bool cf_proxy_secrets_take(struct conn *c)
{
	struct cf_proxy *p = c->p;
	if (!p->inspector || (c->kind == K_HTTP && !c->head))
		return false;
	bool plain = c->kind == K_HTTP && !c->head->connect;
	bool transparent = c->kind == K_TRANSPARENT;
	const struct cf_ip *ip = c->is_ip ? &c->ip : NULL;
	/* A plain-HTTP request through an upstream proxy (R43) is the upstream's to forward in
	 * its absolute form: it goes on as it is (its head was searched before it was decided);
	 * through a transparent connection only an inspected host is taken (R43's gate checks
	 * the others' server name or Host). */
	if ((plain && c->via_upstream) ||
	    ((!plain || transparent) && !cf_secrets_inspected(p->secrets, c->host, ip, c->port)))
		return false;
	if (transparent)
		cf_proxy_record(c, "connected", c->has_target ? &c->target : NULL, "");
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	struct cf_buf head, reply;
	cf_buf_init(&head);
	cf_buf_init(&reply);
	if (plain) {
		cf_http_forward_request(c->in, c->head, &head);
	} else if (c->kind == K_HTTP) {
		cf_buf_add(&reply, ok);
	} else if (c->kind == K_SOCKS) {
		/* SOCKS5: a method reply still queued, then the success. */
		uint8_t r[10];
		size_t rl = cf_socks_reply(CF_SOCKS_OK, r);
		cf_buf_addn(&reply, c->out + c->out_off, c->out_len - c->out_off);
		cf_buf_addn(&reply, (const char *)r, rl);
	}
	struct cf_inspect_conn ic = {
	    .cfd = c->cfd,
	    .ufd = c->ufd,
	    .is_ip = c->is_ip,
	    .ip = c->ip,
	    .port = c->port,
	    .tunnel = !plain,
	    .reply = reply.s,
	    .reply_len = reply.len,
	    .early = c->in ? c->in + c->body_off : NULL,
	    .early_len = c->in ? c->in_len - c->body_off : 0,
	    .head = head.s,
	    .head_len = head.len,
	    /* R43: what the server sent with the upstream proxy's answer */
	    .server_early = c->via_upstream && !c->resp_head ? c->rin : NULL,
	    .server_early_len = c->via_upstream && !c->resp_head ? c->rin_len : 0,
	};
	snprintf(ic.host, sizeof(ic.host), "%s", c->host);
	/* Out of epoll first: the descriptors are the inspector's from here on. */
	if (c->cfd >= 0)
		epoll_ctl(p->ep, EPOLL_CTL_DEL, c->cfd, NULL);
	if (c->ufd >= 0)
		epoll_ctl(p->ep, EPOLL_CTL_DEL, c->ufd, NULL);
	c->cev = c->uev = ~0u;
	bool taken = !head.oom && !reply.oom && cf_inspector_take(p->inspector, &ic);
	cf_buf_release(&head);
	cf_buf_release(&reply);
	if (!taken) {
		cf_conn_refuse(c, 503, CF_SOCKS_FAILURE,
			       "confine: network request failed: too many inspected connections at "
			       "once\nhint: try again\n");
		return true;
	}
	c->cfd = c->ufd = -1;
	cf_proxy_close(c);
	return true;
}
