/* SPDX-License-Identifier: MIT */
/*
 * The relay of confine's proxy (see proxy.h): once connected, both ways through the pumps.
 * What goes first in each direction: the reply to the client (200 Connection established, the
 * SOCKS5 success), the forwarded head of an absolute-URI request and whatever the client sent
 * after its request; an absolute-URI request's response head comes back rewritten
 * (Connection: close), a 1xx at once so that "Expect: 100-continue" works.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "net/proxy_int.h"

void cf_dir_release(struct dir *d)
{
	free(d->pre);
	d->pre = NULL;
	d->pre_off = d->pre_len = 0;
	if (d->pump_on)
		cf_pump_release(&d->pump);
	d->pump_on = false;
}

int cf_queue_append(char **buf, size_t *off, size_t *len, const void *data, size_t n)
{
	if (!n)
		return 0;
	size_t left = *len - *off;
	char *v = malloc(left + n);
	if (!v)
		return -1;
	if (left)
		memcpy(v, *buf + *off, left);
	memcpy(v + left, data, n);
	free(*buf);
	*buf = v;
	*off = 0;
	*len = left + n;
	return 0;
}

/* Appends to what a direction sends first. */
static int dir_append(struct dir *d, const void *data, size_t n)
{
	return cf_queue_append(&d->pre, &d->pre_off, &d->pre_len, data, n);
}

/* Sends what is queued in d->pre to fd.  Returns 1 when bytes went, 0 when none could, -1 on
 * error. */
static int dir_flush(struct dir *d, int fd)
{
	int moved = 0;
	while (d->pre_off < d->pre_len) {
		ssize_t k = send(fd, d->pre + d->pre_off, d->pre_len - d->pre_off, MSG_NOSIGNAL);
		if (k > 0) {
			d->pre_off += (size_t)k;
			moved = 1;
			continue;
		}
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return moved;
		return -1;
	}
	free(d->pre);
	d->pre = NULL;
	d->pre_off = d->pre_len = 0;
	return moved;
}

void cf_relay_start(struct conn *c, const struct cf_ip *a)
{
	if (c->kind == K_TRANSPARENT) {
		cf_transparent_relay_start(c, a); /* R43: no reply, and a gate */
		return;
	}
	cf_proxy_record(c, "connected", a, "");
	if (cf_proxy_secrets_take(c)) /* R45: inspected from here on */
		return;
	int r = 0;
	if (c->kind == K_HTTP && !c->head->connect) {
		struct cf_buf b;
		cf_buf_init(&b);
		cf_http_forward_request(c->in, c->head, &b);
		r = b.oom ? -1 : dir_append(&c->c2u, b.s, b.len);
		cf_buf_release(&b);
		c->resp_head = true;
	} else if (c->kind == K_HTTP) {
		static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
		r = dir_append(&c->u2c, ok, sizeof(ok) - 1);
	} else {
		uint8_t reply[10];
		size_t n = cf_socks_reply(CF_SOCKS_OK, reply);
		/* A method reply still queued goes first. */
		if (c->out_off < c->out_len)
			r = dir_append(&c->u2c, c->out + c->out_off, c->out_len - c->out_off);
		if (r == 0)
			r = dir_append(&c->u2c, reply, n);
	}
	/* R43: what the server sent with the upstream proxy's answer. */
	if (r == 0 && c->via_upstream)
		r = cf_upstream_leftover(c);
	/* What the client sent after its request (a TLS hello that did not wait for the
	 * reply) goes out after the forwarded head. */
	if (r == 0 && c->in_len > c->body_off)
		r = dir_append(&c->c2u, c->in + c->body_off, c->in_len - c->body_off);
	if (r == 0 && cf_pump_init(&c->c2u.pump) < 0)
		r = -1;
	c->c2u.pump_on = r == 0;
	if (r == 0 && cf_pump_init(&c->u2c.pump) < 0)
		r = -1;
	c->u2c.pump_on = r == 0;
	free(c->in);
	free(c->head);
	free(c->out);
	c->in = c->out = NULL;
	c->head = NULL;
	c->in_len = c->in_cap = c->out_len = c->out_off = 0;
	if (r < 0) {
		cf_proxy_close(c);
		return;
	}
	c->c2u.pump.eof = c->c_eof;
	c->st = S_RELAY;
	c->deadline = cf_proxy_now() + c->p->cfg.idle_timeout_ms;
	if (cf_relay_progress(c) >= 0)
		cf_proxy_update(c);
}

/* Reads the upstream response head of an absolute-URI request; forwards 1xx heads at once and
 * the final one rewritten.  Returns 1 when bytes moved, 0 when none, -1 when the connection
 * was ended. */
static int read_resp_head(struct conn *c)
{
	int moved = 0;
	while (c->resp_head) {
		if (c->rin_len == c->rin_cap) {
			size_t cap = c->rin_cap ? c->rin_cap * 2 : 4096;
			if (cap > CF_HTTP_MAX_HEAD + 1)
				cap = CF_HTTP_MAX_HEAD + 1;
			char *v = cap > c->rin_cap ? realloc(c->rin, cap) : NULL;
			if (!v) {
				cf_proxy_close(c);
				return -1;
			}
			c->rin = v;
			c->rin_cap = cap;
		}
		ssize_t k = recv(c->ufd, c->rin + c->rin_len, c->rin_cap - c->rin_len, 0);
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return moved;
		if (k <= 0) {
			/* Ended or failed before a response: a 502 if the client has seen nothing.
			 */
			if (c->u2c.pre || c->rin_len)
				cf_proxy_close(c);
			else
				cf_conn_refuse(
				    c, 502, 0,
				    "confine: network request failed: the server closed the "
				    "connection without a response\n");
			return -1;
		}
		moved = 1;
		c->rin_len += (size_t)k;
		for (;;) {
			int end = cf_http_scan(&c->rscan, c->rin, c->rin_len);
			if (end == 0)
				break;
			struct cf_http_head *h = malloc(sizeof(*h));
			const char *why = "the response head is too large";
			int st = !h	   ? 502
				 : end < 0 ? 502
					   : cf_http_parse(c->rin, (size_t)end, true, h, &why);
			if (st) {
				free(h);
				char text[400];
				snprintf(text, sizeof(text),
					 "confine: network request failed: %s\n", why);
				cf_conn_refuse(c, 502, 0, text);
				return -1;
			}
			struct cf_buf b;
			cf_buf_init(&b);
			cf_http_forward_response(c->rin, h, &b);
			bool final = h->status >= 200 || h->status == 101;
			free(h);
			if (final)
				cf_buf_addn(&b, c->rin + end, c->rin_len - (size_t)end);
			int r = b.oom ? -1 : dir_append(&c->u2c, b.s, b.len);
			cf_buf_release(&b);
			if (r < 0) {
				cf_proxy_close(c);
				return -1;
			}
			memmove(c->rin, c->rin + end, c->rin_len - (size_t)end);
			c->rin_len -= (size_t)end;
			memset(&c->rscan, 0, sizeof(c->rscan));
			if (final) {
				c->resp_head = false;
				free(c->rin);
				c->rin = NULL;
				c->rin_len = c->rin_cap = 0;
				return 1;
			}
		}
	}
	return moved;
}

/* Moves what can be moved both ways.  Returns 1 when something moved, 0 when nothing, -1
 * when the connection was ended (closed or refused). */
int cf_relay_progress(struct conn *c)
{
	int any = 0;
	for (int round = 0; round < 8; round++) {
		int moved = 0, r;
		/* client -> upstream, unless the client's first bytes are still to be checked
		 * (R43, proxy_transparent.c) */
		if (!c->gate) {
			if ((r = dir_flush(&c->c2u, c->ufd)) < 0)
				goto broken;
			moved |= r;
			if (!c->c2u.pre && (r = cf_pump_step(&c->c2u.pump, c->cfd, c->ufd)) < 0)
				goto broken;
			moved |= !c->c2u.pre ? r : 0;
		}
		/* upstream -> client */
		if (c->resp_head) {
			if ((r = read_resp_head(c)) < 0)
				return -1;
			moved |= r;
		}
		if ((r = dir_flush(&c->u2c, c->cfd)) < 0)
			goto broken;
		moved |= r;
		if (!c->resp_head && !c->u2c.pre &&
		    (r = cf_pump_step(&c->u2c.pump, c->ufd, c->cfd)) < 0)
			goto broken;
		moved |= !c->resp_head && !c->u2c.pre ? r : 0;
		if (c->c2u.pump.shut && c->u2c.pump.shut) {
			cf_proxy_close(c);
			return -1;
		}
		any |= moved;
		if (!moved)
			break;
	}
	if (any)
		c->deadline = cf_proxy_now() + c->p->cfg.idle_timeout_ms;
	return any;
broken:
	cf_proxy_close(c);
	return -1;
}
