/* SPDX-License-Identifier: MIT */
/*
 * The requests of one inspected connection (R45), as plaintext bytes from the command, in
 * order: each request head is found (within the proxy's bounds), checked and rewritten, and
 * its body is passed on, framed by Content-Length or chunked encoding, so that the next head is
 * found where it starts.
 *
 *  - A placeholder of a secret that is not listed for this connection's host, anywhere in a
 *    head or in the first MiB of a body, in any form cf_secrets_find knows: the request is
 *    refused (403) and recorded; nothing of it goes on.
 *  - The placeholders of secrets listed for the host are replaced by the real values in the
 *    request line and the headers (cf_secrets_substitute_head) and recorded.
 *  - Through a tunnel, a Host header that names another host than the tunnel's is refused
 *    (421): the value must not reach another site served by the same address (domain
 *    fronting).
 *  - On a plain-HTTP proxy connection, Proxy-Authorization and Proxy-Connection never go on.
 *  - After an Upgrade or a CONNECT inside, the rest is passed on as it is, searched like a
 *    body.
 * Pure apart from the events' lock.
 */
#ifndef CONFINE_NET_REQFILTER_H
#define CONFINE_NET_REQFILTER_H

#include "net/http.h"
#include "net/secrets.h"

enum cf_rf_state { CF_RF_HEAD, CF_RF_BODY, CF_RF_CHUNK, CF_RF_RAW, CF_RF_REFUSED };
enum cf_rf_chunk { CF_CH_SIZE, CF_CH_DATA, CF_CH_DATA_END, CF_CH_TRAILER };

struct cf_reqfilter {
	struct cf_secrets *s;
	char host[CF_HOST_MAX + 1];
	bool is_ip;
	struct cf_ip ip;
	uint16_t port;
	bool tunnel; /* Host must name the tunnel's host; proxy headers are the server's */
	bool tls;    /* the default port of a Host without one: 443, else 80 */
	enum cf_rf_state st;
	enum cf_rf_chunk ch;
	char *head; /* the head being read */
	size_t head_len, head_cap;
	struct cf_http_scan scan;
	char line[4096]; /* a chunk-size or trailer line being read */
	size_t line_len;
	uint64_t left;	/* bytes of the body or of the chunk still to come */
	bool after_raw; /* the current head switches to raw once passed on */
	bool skip[64];	/* the secrets listed for the host: not searched for */
	struct cf_secret_scan body;
	unsigned requests;
	/* a refusal: the status and the text of the reply */
	int status;
	char why[700];
};

/* host, port: the connection's (what the proxy decided and connected to). */
void cf_reqfilter_init(struct cf_reqfilter *f, struct cf_secrets *s, const char *host, bool is_ip,
		       const struct cf_ip *ip, uint16_t port, bool tunnel, bool tls);
void cf_reqfilter_release(struct cf_reqfilter *f);

/*
 * Feeds n bytes the command sent; appends what goes to the server to out, which may then hold
 * real values: the caller wipes it once sent.  Returns 0, or -1 when a request is refused:
 * f->status and f->why say how to answer; nothing of the refused request went to out, and
 * every later call returns -1 too.
 */
int cf_reqfilter_feed(struct cf_reqfilter *f, const char *in, size_t n, struct cf_buf *out);

#endif
