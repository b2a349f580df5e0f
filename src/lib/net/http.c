/* SPDX-License-Identifier: MIT */
/* HTTP heads for confine's proxy (see http.h).  Pure. */
#include <string.h>

#include "net/http.h"

int cf_http_scan(struct cf_http_scan *s, const char *buf, size_t len)
{
	for (size_t i = s->pos; i < len; i++) {
		char c = buf[i];
		if (i >= CF_HTTP_MAX_HEAD)
			return -431;
		if (c == '\r') {
			if (i + 1 == len) {
				s->pos = i; /* look at this CR again with the byte after it */
				return 0;
			}
			if (buf[i + 1] != '\n')
				return -400;
			continue;
		}
		if (c != '\n') {
			if (i - s->line_start >= CF_HTTP_MAX_LINE)
				return s->lines == 0 ? -414 : -431;
			continue;
		}
		size_t end = i > s->line_start && buf[i - 1] == '\r' ? i - 1 : i;
		bool blank = end == s->line_start;
		if (blank && s->lines == 0)
			return -400;
		if (blank) {
			s->pos = i + 1;
			return (int)(i + 1);
		}
		if (++s->lines > CF_HTTP_MAX_HEADERS + 1)
			return -431;
		s->line_start = i + 1;
	}
	s->pos = len;
	if (len > CF_HTTP_MAX_HEAD)
		return -431;
	return 0;
}

static bool is_tchar(char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return true;
	return c && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static bool ieq(const char *a, size_t an, const char *b)
{
	size_t bn = strlen(b);
	if (an != bn)
		return false;
	for (size_t i = 0; i < an; i++) {
		char x = a[i], y = b[i];
		if (x >= 'A' && x <= 'Z')
			x = (char)(x - 'A' + 'a');
		if (y >= 'A' && y <= 'Z')
			y = (char)(y - 'A' + 'a');
		if (x != y)
			return false;
	}
	return true;
}

/* The end of the line that starts at p (before "\r\n" or "\n"), and where the next one starts. */
static size_t line_end(const char *buf, size_t n, size_t p, size_t *next)
{
	const char *nl = memchr(buf + p, '\n', n - p);
	size_t e = nl ? (size_t)(nl - buf) : n;
	*next = nl ? e + 1 : n;
	if (e > p && buf[e - 1] == '\r')
		e--;
	return e;
}

static bool parse_port(const char *s, size_t n, uint16_t *out)
{
	if (n == 0 || n > 5)
		return false;
	unsigned v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v == 0 || v > 65535)
		return false;
	*out = (uint16_t)v;
	return true;
}

/* host[:port] or [v6][:port] of n bytes; `need_port` for CONNECT. */
static const char *parse_authority(const char *s, size_t n, bool need_port, uint16_t def_port,
				   struct cf_http_head *h)
{
	size_t hn = n;
	const char *port = NULL;
	size_t pn = 0;
	if (n && s[0] == '[') {
		const char *close = memchr(s, ']', n);
		if (!close)
			return "the IPv6 address lacks its ']'";
		hn = (size_t)(close - s) + 1;
		if (hn < n) {
			if (s[hn] != ':')
				return "only ':PORT' may follow ']'";
			port = s + hn + 1;
			pn = n - hn - 1;
		}
	} else {
		const char *colon = memchr(s, ':', n);
		if (colon) {
			hn = (size_t)(colon - s);
			port = colon + 1;
			pn = n - hn - 1;
		}
	}
	if (port) {
		if (!parse_port(port, pn, &h->port))
			return "the port is not a number 1-65535";
	} else if (need_port) {
		return "CONNECT needs HOST:PORT";
	} else {
		h->port = def_port;
	}
	const char *why =
	    cf_net_host_parse(s, hn, true, h->host, sizeof(h->host), &h->host_is_ip, &h->ip);
	return why;
}

static const char not_a_request_line[] = "the request line is not 'METHOD TARGET HTTP/1.1'";

/* The method buf[0..ml), a token, into h->method.  Returns 0 or the status to refuse with. */
static int parse_method(const char *buf, size_t ml, struct cf_http_head *h, const char **reason)
{
	if (ml >= sizeof(h->method)) {
		*reason = "the method is too long";
		return 400;
	}
	for (size_t i = 0; i < ml; i++)
		if (!is_tchar(buf[i])) {
			*reason = "the method is not a token";
			return 400;
		}
	memcpy(h->method, buf, ml);
	h->method[ml] = '\0';
	return 0;
}

/* The version ver[0..vl): HTTP/1.0 or HTTP/1.1 (h->minor); another HTTP version is refused
 * with 505.  Returns 0 or the status to refuse with. */
static int parse_version(const char *ver, size_t vl, struct cf_http_head *h, const char **reason)
{
	if (vl == 8 && !memcmp(ver, "HTTP/1.", 7) && (ver[7] == '0' || ver[7] == '1')) {
		h->minor = ver[7] - '0';
		return 0;
	}
	if (vl == 8 && !memcmp(ver, "HTTP/", 5) && ver[5] >= '0' && ver[5] <= '9' &&
	    ver[6] == '.' && ver[7] >= '0' && ver[7] <= '9') {
		*reason = "only HTTP/1.0 and HTTP/1.1 are supported";
		return 505;
	}
	*reason = not_a_request_line;
	return 400;
}

/* An absolute http:// URL, the target of every request but CONNECT (it starts at offset t of
 * the head, tl bytes): its authority and path.  Returns 0 or the status to refuse with. */
static int parse_absolute_url(const char *target, size_t t, size_t tl, struct cf_http_head *h,
			      const char **reason)
{
	if (tl >= 8 && ieq(target, 8, "https://")) {
		*reason = "an https:// URL goes through CONNECT (set HTTPS_PROXY, which confine "
			  "sets)";
		return 400;
	}
	if (tl < 7 || !ieq(target, 7, "http://")) {
		if (target[0] == '/' || target[0] == '*') {
			*reason =
			    "this is confine's proxy: send an absolute URI (http://host/...) or "
			    "CONNECT host:port";
			return 400;
		}
		*reason = "only http:// URLs are proxied (and CONNECT for anything else)";
		return memchr(target, ':', tl) ? 501 : 400;
	}
	size_t a = 7, ae = a;
	while (ae < tl && target[ae] != '/' && target[ae] != '?' && target[ae] != '#')
		ae++;
	if (memchr(target + a, '@', ae - a)) {
		*reason = "the URL carries user information ('user@'), which confine does not "
			  "forward";
		return 400;
	}
	if (memchr(target + ae, '#', tl - ae)) {
		*reason = "the URL has a fragment ('#'), which is never sent";
		return 400;
	}
	h->authority = t + a;
	h->authority_len = ae - a;
	h->path = t + ae;
	h->path_len = tl - ae;
	*reason = parse_authority(target + a, ae - a, false, 80, h);
	return *reason ? 400 : 0;
}

static int parse_request_line(const char *buf, size_t e, struct cf_http_head *h,
			      const char **reason)
{
	const char *sp1 = memchr(buf, ' ', e);
	if (!sp1 || sp1 == buf) {
		*reason = not_a_request_line;
		return 400;
	}
	size_t ml = (size_t)(sp1 - buf);
	int st = parse_method(buf, ml, h, reason);
	if (st)
		return st;
	size_t t = ml + 1;
	const char *sp2 = memchr(buf + t, ' ', e - t);
	if (!sp2) {
		*reason = not_a_request_line;
		return 400;
	}
	size_t te = (size_t)(sp2 - buf);
	if ((st = parse_version(sp2 + 1, e - te - 1, h, reason)))
		return st;
	if (te == t) {
		*reason = "the request target is empty";
		return 400;
	}
	for (size_t i = t; i < te; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (c <= 0x20 || c >= 0x7f) {
			*reason = "the request target has a control, space or non-ASCII character";
			return 400;
		}
	}
	if (!strcmp(h->method, "CONNECT")) {
		h->connect = true;
		h->authority = t;
		h->authority_len = te - t;
		*reason = parse_authority(buf + t, te - t, true, 0, h);
		return *reason ? 400 : 0;
	}
	return parse_absolute_url(buf + t, t, te - t, h, reason);
}

static int parse_status_line(const char *buf, size_t e, struct cf_http_head *h, const char **reason)
{
	if (e < 12 || memcmp(buf, "HTTP/1.", 7) || (buf[7] != '0' && buf[7] != '1') ||
	    buf[8] != ' ' || buf[9] < '1' || buf[9] > '5' || buf[10] < '0' || buf[10] > '9' ||
	    buf[11] < '0' || buf[11] > '9' || (e > 12 && buf[12] != ' ')) {
		*reason = "the upstream server's status line is not 'HTTP/1.x NNN ...'";
		return 502;
	}
	h->minor = buf[7] - '0';
	h->status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
	return 0;
}

/* The header lines from `next` to the blank line. */
static int parse_headers(const char *buf, size_t n, size_t next, bool response,
			 struct cf_http_head *h, const char **reason)
{
	int bad = response ? 502 : 400;
	for (size_t p = next; p < n;) {
		size_t e = line_end(buf, n, p, &next);
		if (e == p)
			break; /* the blank line */
		if (buf[p] == ' ' || buf[p] == '\t') {
			*reason = "a header line is folded (obsolete line folding)";
			return bad;
		}
		size_t c = p;
		while (c < e && is_tchar(buf[c]))
			c++;
		if (c == p || c == e || buf[c] != ':') {
			*reason = "a header line is not 'Name: value'";
			return bad;
		}
		size_t v = c + 1;
		while (v < e && (buf[v] == ' ' || buf[v] == '\t'))
			v++;
		size_t ve = e;
		while (ve > v && (buf[ve - 1] == ' ' || buf[ve - 1] == '\t'))
			ve--;
		for (size_t k = v; k < ve; k++) {
			unsigned char ch = (unsigned char)buf[k];
			if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
				*reason = "a header value has a control character";
				return bad;
			}
		}
		if (h->n_headers == CF_HTTP_MAX_HEADERS) {
			*reason = "too many header lines";
			return response ? 502 : 431;
		}
		h->h[h->n_headers++] = (struct cf_http_header){p, c - p, v, ve - v};
		p = next;
	}
	return 0;
}

int cf_http_parse(const char *buf, size_t n, bool response, struct cf_http_head *h,
		  const char **reason)
{
	memset(h, 0, sizeof(*h));
	h->response = response;
	h->head_len = n;
	*reason = NULL;
	size_t next;
	size_t e = line_end(buf, n, 0, &next);
	int st =
	    response ? parse_status_line(buf, e, h, reason) : parse_request_line(buf, e, h, reason);
	if (st)
		return st;
	return parse_headers(buf, n, next, response, h, reason);
}

/* Whether the header `name` is listed in a Connection header's value (comma separated). */
static bool named_by_connection(const char *buf, const struct cf_http_head *h, const char *name,
				size_t nl)
{
	for (size_t i = 0; i < h->n_headers; i++) {
		const struct cf_http_header *x = &h->h[i];
		if (!ieq(buf + x->name, x->name_len, "connection"))
			continue;
		const char *v = buf + x->value, *end = v + x->value_len;
		while (v < end) {
			while (v < end && (*v == ' ' || *v == '\t' || *v == ','))
				v++;
			const char *t = v;
			while (v < end && *v != ',' && *v != ' ' && *v != '\t')
				v++;
			if (v > t && (size_t)(v - t) == nl) {
				char tok[64];
				if (nl < sizeof(tok)) {
					memcpy(tok, t, nl);
					tok[nl] = '\0';
					if (ieq(name, nl, tok))
						return true;
				}
			}
		}
	}
	return false;
}

static bool hop_by_hop(const char *buf, const struct cf_http_head *h,
		       const struct cf_http_header *x, bool request)
{
	static const char *const always[] = {"connection", "proxy-connection", "keep-alive",
					     "proxy-authenticate", "proxy-authorization"};
	const char *name = buf + x->name;
	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++)
		if (ieq(name, x->name_len, always[i]))
			return true;
	/* The request is the proxy's, not the client's: no upgrade, no TE of its own, and the
	 * Host comes from the URI. */
	if (request && (ieq(name, x->name_len, "host") || ieq(name, x->name_len, "te") ||
			ieq(name, x->name_len, "upgrade")))
		return true;
	return named_by_connection(buf, h, name, x->name_len);
}

static void add_headers(const char *buf, const struct cf_http_head *h, bool request,
			struct cf_buf *out)
{
	for (size_t i = 0; i < h->n_headers; i++) {
		const struct cf_http_header *x = &h->h[i];
		if (hop_by_hop(buf, h, x, request))
			continue;
		cf_buf_addn(out, buf + x->name, x->name_len);
		cf_buf_add(out, ": ");
		cf_buf_addn(out, buf + x->value, x->value_len);
		cf_buf_add(out, "\r\n");
	}
}

void cf_http_forward_request(const char *buf, const struct cf_http_head *h, struct cf_buf *out)
{
	cf_buf_add(out, h->method);
	cf_buf_addc(out, ' ');
	if (h->path_len == 0 || buf[h->path] == '?')
		cf_buf_addc(out, '/');
	cf_buf_addn(out, buf + h->path, h->path_len);
	cf_buf_addf(out, " HTTP/1.%d\r\nHost: ", h->minor);
	/* The authority of the URI, normalised: what was decided is what the server is told. */
	bool v6 = h->host_is_ip && h->ip.family == 6;
	cf_buf_addf(out, "%s%s%s", v6 ? "[" : "", h->host, v6 ? "]" : "");
	if (h->port != 80)
		cf_buf_addf(out, ":%u", h->port);
	cf_buf_add(out, "\r\n");
	add_headers(buf, h, true, out);
	cf_buf_add(out, "Connection: close\r\n\r\n");
}

void cf_http_forward_response(const char *buf, const struct cf_http_head *h, struct cf_buf *out)
{
	if (h->status < 200) {
		cf_buf_addn(out, buf, h->head_len);
		return;
	}
	size_t next;
	size_t e = line_end(buf, h->head_len, 0, &next);
	cf_buf_addn(out, buf, e);
	cf_buf_add(out, "\r\n");
	add_headers(buf, h, false, out);
	cf_buf_add(out, "Connection: close\r\n\r\n");
}

const char *cf_http_reason(int status)
{
	switch (status) {
	case 400:
		return "Bad Request";
	case 403:
		return "Forbidden";
	case 405:
		return "Method Not Allowed";
	case 407:
		return "Proxy Authentication Required";
	case 408:
		return "Request Timeout";
	case 414:
		return "URI Too Long";
	case 431:
		return "Request Header Fields Too Large";
	case 501:
		return "Not Implemented";
	case 502:
		return "Bad Gateway";
	case 503:
		return "Service Unavailable";
	case 504:
		return "Gateway Timeout";
	case 505:
		return "HTTP Version Not Supported";
	}
	return "Error";
}

void cf_http_error(int status, const char *text, struct cf_buf *out)
{
	size_t n = strlen(text);
	bool nl = n && text[n - 1] == '\n';
	cf_buf_addf(out,
		    "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
		    "Content-Length: %zu\r\nConnection: close\r\n%sX-Confine: %s\r\n\r\n%s%s",
		    status, cf_http_reason(status), n + (nl ? 0 : 1),
		    status == 407 ? "Proxy-Authenticate: Basic realm=\"confine\"\r\n" : "",
		    status == 403 || status == 407 ? "denied" : "error", text, nl ? "" : "\n");
}

/* METHOD SP origin-form SP HTTP/1.x, for a request sent to a server (R43). */
static int parse_origin_line(const char *buf, size_t e, struct cf_http_head *h, const char **reason)
{
	*reason = "the request line is not 'METHOD /PATH HTTP/1.1'";
	const char *sp1 = memchr(buf, ' ', e);
	if (!sp1 || sp1 == buf || (size_t)(sp1 - buf) >= sizeof(h->method))
		return 400;
	size_t ml = (size_t)(sp1 - buf);
	for (size_t i = 0; i < ml; i++)
		if (!is_tchar(buf[i]))
			return 400;
	memcpy(h->method, buf, ml);
	h->method[ml] = '\0';
	size_t t = ml + 1;
	const char *sp2 = memchr(buf + t, ' ', e - t);
	if (!sp2 || sp2 == buf + t)
		return 400;
	size_t te = (size_t)(sp2 - buf), vl = e - te - 1;
	const char *ver = sp2 + 1;
	if (vl != 8 || memcmp(ver, "HTTP/1.", 7) || (ver[7] != '0' && ver[7] != '1')) {
		*reason = "only HTTP/1.0 and HTTP/1.1 are supported";
		return 505;
	}
	h->minor = ver[7] - '0';
	for (size_t i = t; i < te; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (c <= 0x20 || c >= 0x7f) {
			*reason = "the request target has a control, space or non-ASCII character";
			return 400;
		}
	}
	if (buf[t] != '/' && !(te - t == 1 && buf[t] == '*'))
		return 400;
	h->path = t;
	h->path_len = te - t;
	*reason = NULL;
	return 0;
}

int cf_http_parse_origin(const char *buf, size_t n, uint16_t port, struct cf_http_head *h,
			 const char **reason)
{
	memset(h, 0, sizeof(*h));
	h->head_len = n;
	size_t next;
	size_t e = line_end(buf, n, 0, &next);
	int st = parse_origin_line(buf, e, h, reason);
	if (!st)
		st = parse_headers(buf, n, next, false, h, reason);
	if (st)
		return st;
	const struct cf_http_header *host = NULL;
	for (size_t i = 0; i < h->n_headers; i++) {
		const struct cf_http_header *x = &h->h[i];
		if (!ieq(buf + x->name, x->name_len, "host"))
			continue;
		if (host) {
			*reason = "the request has two Host headers";
			return 400;
		}
		host = x;
	}
	if (!host || !host->value_len) {
		*reason = "the request has no Host header";
		return 400;
	}
	h->authority = host->value;
	h->authority_len = host->value_len;
	*reason = parse_authority(buf + host->value, host->value_len, false, port, h);
	return *reason ? 400 : 0;
}
