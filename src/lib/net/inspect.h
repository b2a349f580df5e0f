/* SPDX-License-Identifier: MIT */
/*
 * The inspected connections of confine's proxy (R45): once the proxy has decided a request and
 * connected to the server, a connection that may carry a placeholder is handed over here, each
 * to a thread of its own: a plain-HTTP request (its forwarded head and whatever follows), and
 * a tunnel (CONNECT, SOCKS5) to a host whose TLS is inspected, which is terminated with the
 * run's CA when the command speaks TLS in it (its first byte says so) and read as plaintext
 * HTTP otherwise.  The command's requests go through cf_reqfilter; the server's answers go
 * back unchanged.  Bounded: connections at once, buffers, handshake and idle time.  Touches the
 * OS (threads, sockets).
 */
#ifndef CONFINE_NET_INSPECT_H
#define CONFINE_NET_INSPECT_H

#include "util/addr.h"
#include "net/secrets.h"
#include "net/tls.h"

/* Inspected connections at once; the proxy refuses more (503). */
#define CF_INSPECT_MAX 256

struct cf_inspector;

/* `s` and `tls` (NULL: no TLS is terminated) are borrowed until cf_inspector_free. */
int cf_inspector_new(struct cf_secrets *s, struct cf_tls *tls, struct cf_inspector **out,
		     struct confine_error *err);

/* One connection to take over. */
struct cf_inspect_conn {
	int cfd, ufd; /* the command's and the server's sockets: the inspector's once taken */
	char host[CF_HOST_MAX + 1];
	bool is_ip;
	struct cf_ip ip;
	uint16_t port;
	bool tunnel;	   /* CONNECT, SOCKS5, transparent (R43): TLS or plaintext HTTP inside */
	const char *reply; /* tunnel: sent to the command first (200, the SOCKS5 success; none
			    * for a transparent connection) */
	size_t reply_len;
	const char *early; /* what the command sent after its request, already read */
	size_t early_len;
	const char *head; /* plain HTTP: the head to forward (origin form) */
	size_t head_len;
	const char *server_early; /* what the server sent already (through an upstream proxy) */
	size_t server_early_len;
};

/* Starts a thread for c: true when taken (the descriptors and a copy of the bytes are the
 * inspector's), false at the bound or out of resources (nothing taken). */
bool cf_inspector_take(struct cf_inspector *in, const struct cf_inspect_conn *c);

/* Ends every connection and waits for the threads.  Idempotent. */
void cf_inspector_stop(struct cf_inspector *in);
void cf_inspector_free(struct cf_inspector *in);

#endif
