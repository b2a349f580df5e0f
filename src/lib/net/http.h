/* SPDX-License-Identifier: MIT */
/*
 * The HTTP side of confine's proxy (SPEC 12): finding the end of a request or response head
 * within fixed bounds, parsing it strictly, and building what is forwarded.  Two request forms
 * are proxied: CONNECT host:port (a tunnel) and an absolute URI ("GET http://host/path"), which
 * is sent on as an origin-form request with Host taken from the URI (never from the client's
 * Host header) and "Connection: close", so that every request on a connection is decided.
 * Pure: bytes in, bytes out; no sockets.
 */
#ifndef CONFINE_NET_HTTP_H
#define CONFINE_NET_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/addr.h"
#include "util/util.h"

/* Bounds of a head: a request line (or any one line), the whole head, the header lines. */
#define CF_HTTP_MAX_LINE 8192
#define CF_HTTP_MAX_HEAD 65536
#define CF_HTTP_MAX_HEADERS 100

struct cf_http_header {
	size_t name, name_len, value, value_len; /* offsets into the head */
};

struct cf_http_head {
	bool response;
	int minor; /* HTTP/1.minor */
	/* requests */
	char method[24];
	bool connect;		    /* CONNECT host:port */
	char host[CF_HOST_MAX + 1]; /* normalised name or canonical address */
	bool host_is_ip;
	struct cf_ip ip;
	uint16_t port;
	size_t authority, authority_len; /* as written in the URI (absolute form) */
	size_t path, path_len;		 /* origin-form target; path_len 0 means "/" */
	/* responses */
	int status;
	size_t n_headers;
	struct cf_http_header h[CF_HTTP_MAX_HEADERS];
	size_t head_len; /* bytes of the head, the blank line included */
};

/* Where the search for the end of a head goes on; zero it for a new head. */
struct cf_http_scan {
	size_t pos;	   /* bytes already looked at */
	size_t line_start; /* offset of the current line */
	size_t lines;	   /* complete lines so far */
};

/*
 * Looks for the end of the head in buf[0..len), where the previous call on the same buffer
 * stopped (each byte is looked at once, however slowly it arrives).  Returns the length of the
 * head when the blank line is there, 0 when more is needed, or a negative HTTP status: -414 for
 * a request line longer than CF_HTTP_MAX_LINE, -431 for another line that long, a head longer
 * than CF_HTTP_MAX_HEAD or more than CF_HTTP_MAX_HEADERS header lines, -400 for a CR that does
 * not end a line or a head that starts with a blank line.
 */
int cf_http_scan(struct cf_http_scan *s, const char *buf, size_t len);

/*
 * Parses a complete head of n bytes (cf_http_scan found its end).  Returns 0, or an HTTP
 * status for the error reply with *reason (static text): 400 malformed or not a proxy request,
 * 501 a scheme other than http:// in an absolute URI, 505 a version other than HTTP/1.0 and
 * HTTP/1.1.
 */
int cf_http_parse(const char *buf, size_t n, bool response, struct cf_http_head *out,
		  const char **reason);

/*
 * Parses a complete head of a request sent to a server (origin form, "GET /path HTTP/1.1"), as
 * a transparent connection carries it (R43): the Host header (exactly one) fills host, is_ip,
 * ip and port (`port`, the connection's, when it names none); path is the request target.
 * Returns 0, or an HTTP status with *reason.  cf_http_forward_request then sends it on.
 */
int cf_http_parse_origin(const char *buf, size_t n, uint16_t port, struct cf_http_head *h,
			 const char **reason);

/* The head sent upstream for an absolute-URI request: METHOD origin-target HTTP/1.x, Host from
 * the URI, the client's headers without Host and the hop-by-hop ones (Connection and what it
 * names, Proxy-Connection, Keep-Alive, Proxy-Authorization, Proxy-Authenticate, TE, Upgrade),
 * then "Connection: close".  Appends to out (check out->oom). */
void cf_http_forward_request(const char *buf, const struct cf_http_head *h, struct cf_buf *out);

/* A response head as sent to the client: the same status line, the hop-by-hop headers dropped,
 * "Connection: close" added (a 1xx response is forwarded unchanged). */
void cf_http_forward_response(const char *buf, const struct cf_http_head *h, struct cf_buf *out);

/* A complete error response ("HTTP/1.1 403 Forbidden", a text body naming confine, the
 * reason and the hint, Connection: close; a 407 with Proxy-Authenticate: Basic).  Appends to
 * out. */
void cf_http_error(int status, const char *text, struct cf_buf *out);

/* The reason phrase of a status code the proxy sends. */
const char *cf_http_reason(int status);

#endif
