/* SPDX-License-Identifier: MIT */
/* The requests of one inspected connection (see reqfilter.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/reqfilter.h"

void cf_reqfilter_init(struct cf_reqfilter *f, struct cf_secrets *s, const char *host, bool is_ip,
		       const struct cf_ip *ip, uint16_t port, bool tunnel, bool tls)
{
	memset(f, 0, sizeof(*f));
	f->s = s;
	snprintf(f->host, sizeof(f->host), "%s", host);
	f->is_ip = is_ip;
	if (ip)
		f->ip = *ip;
	f->port = port;
	f->tunnel = tunnel;
	f->tls = tls;
	for (size_t i = 0; i < s->n && i < 64; i++)
		f->skip[i] = cf_secret_listed(&s->v[i], host, is_ip ? &f->ip : NULL, port);
}

void cf_reqfilter_release(struct cf_reqfilter *f)
{
	free(f->head);
	f->head = NULL;
	f->head_len = f->head_cap = 0;
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool name_is(const char *p, size_t n, const char *name)
{
	size_t k = strlen(name);
	if (n != k)
		return false;
	for (size_t i = 0; i < k; i++)
		if (lower(p[i]) != name[i])
			return false;
	return true;
}

static void trim(const char **v, size_t *n)
{
	while (*n && (**v == ' ' || **v == '\t')) {
		(*v)++;
		(*n)--;
	}
	while (*n && ((*v)[*n - 1] == ' ' || (*v)[*n - 1] == '\t' || (*v)[*n - 1] == '\r' ||
		      (*v)[*n - 1] == '\n'))
		(*n)--;
}

static int refuse(struct cf_reqfilter *f, int status, const char *fmt, ...) CF_PRINTF(3, 4);
static int refuse(struct cf_reqfilter *f, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->why, sizeof(f->why), fmt, ap);
	va_end(ap);
	f->status = status;
	f->st = CF_RF_REFUSED;
	return -1;
}

static int refuse_secret(struct cf_reqfilter *f, const struct cf_secret_hit *hit, const char *where)
{
	cf_secrets_record(f->s, hit->secret->name, f->host, f->port, "refused", where,
			  hit->encoding);
	return refuse(f, 403,
		      "confine: secret sent elsewhere: '%s:%u': the placeholder of %s (%s, %s) is "
		      "only for its own hosts; the request was refused\nhint: if %s may go to "
		      "'%s', list the host in its --secret\n",
		      f->host, f->port, hit->secret->name, where, hit->encoding, hit->secret->name,
		      f->host);
}

/* Whether a Host value names the connection's host (and port: the default one when none). */
static bool host_matches(const struct cf_reqfilter *f, const char *v, size_t n)
{
	trim(&v, &n);
	char h[CF_HOST_MAX + 1];
	bool is_ip;
	struct cf_ip ip;
	uint16_t port = f->tls ? 443 : 80;
	const char *colon = NULL;
	if (n && v[0] == '[') {
		const char *close = memchr(v, ']', n);
		if (!close)
			return false;
		colon = close + 1 < v + n && close[1] == ':' ? close + 1 : NULL;
		if (close + 1 != v + n && !colon)
			return false;
	} else {
		colon = memchr(v, ':', n);
	}
	size_t hn = colon ? (size_t)(colon - v) : n;
	if (colon) {
		unsigned long p = 0;
		const char *d = colon + 1;
		if (d == v + n)
			return false;
		for (; d < v + n; d++)
			if (*d < '0' || *d > '9' ||
			    (p = p * 10 + (unsigned long)(*d - '0')) > 65535)
				return false;
		port = (uint16_t)p;
	}
	if (cf_net_host_parse(v, hn, true, h, sizeof(h), &is_ip, &ip))
		return false;
	return port == f->port && !strcmp(h, f->host);
}

/* The line of the head a placeholder is in, for the record. */
static void where_in_head(const struct cf_reqfilter *f, const char *head, size_t n, char *where,
			  size_t cap)
{
	struct cf_secret_hit hit;
	size_t i = 0;
	bool first = true;
	snprintf(where, cap, "request head");
	while (i < n) {
		const char *nl = memchr(head + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - head) + 1 : n;
		if (cf_secrets_find(f->s, head + i, e - i, f->skip, &hit)) {
			const char *colon = first ? NULL : memchr(head + i, ':', e - i);
			if (first)
				snprintf(where, cap, "request line");
			else if (colon)
				snprintf(where, cap, "header %.*s",
					 (int)((size_t)(colon - head - i) > 48
						   ? 48
						   : (size_t)(colon - head - i)),
					 head + i);
			return;
		}
		first = false;
		i = e;
	}
}

/* A Content-Length value: digits only, at most 18 of them. */
static bool parse_length(const char *v, size_t n, uint64_t *out)
{
	trim(&v, &n);
	if (!n || n > 18)
		return false;
	uint64_t x = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return false;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	*out = x;
	return true;
}

/* What the headers of one head say of the body that follows. */
struct framing {
	bool chunked, have_len, upgrade, have_host;
	uint64_t len;
};

/* One header line of the head (its name nn bytes long, its value v after the colon): the
 * framing it sets, checked.  Returns 0, or -1 when the request is refused. */
static int check_header(struct cf_reqfilter *f, const char *line, size_t nn, const char *v,
			size_t vn, struct framing *fr)
{
	if (name_is(line, nn, "host")) {
		if (f->tunnel && (fr->have_host || !host_matches(f, v, vn))) {
			cf_secrets_record(f->s, "", f->host, f->port, "misdirected", "header Host",
					  "plain");
			return refuse(f, 421,
				      "confine: request refused: '%s:%u': its Host header names "
				      "another host than the connection's, or more than one\nhint: "
				      "send each host's requests on a connection of its own\n",
				      f->host, f->port);
		}
		fr->have_host = true;
	} else if (name_is(line, nn, "content-length")) {
		uint64_t x;
		if (!parse_length(v, vn, &x) || (fr->have_len && x != fr->len))
			return refuse(f, 400, "confine: bad request: an invalid Content-Length\n");
		fr->have_len = true;
		fr->len = x;
	} else if (name_is(line, nn, "transfer-encoding")) {
		const char *t = v;
		size_t tn = vn;
		trim(&t, &tn);
		fr->chunked = tn >= 7 && name_is(t + tn - 7, 7, "chunked");
		if (!fr->chunked)
			return refuse(f, 501,
				      "confine: bad request: a Transfer-Encoding other than "
				      "chunked last\n");
	} else if (name_is(line, nn, "upgrade")) {
		fr->upgrade = true;
	}
	return 0;
}

/* The header lines of the head h[from..n), checked, into `kept` without the proxy's own
 * headers (when the connection is not a tunnel).  Returns 0, or -1 when refused. */
static int filter_headers(struct cf_reqfilter *f, const char *h, size_t from, size_t n,
			  struct cf_buf *kept, struct framing *fr)
{
	for (size_t i = from; i < n;) {
		const char *e = memchr(h + i, '\n', n - i);
		size_t ln = e ? (size_t)(e - h) + 1 - i : n - i;
		const char *line = h + i, *colon = memchr(line, ':', ln);
		size_t nn = colon ? (size_t)(colon - line) : 0;
		bool drop = !f->tunnel && colon &&
			    (name_is(line, nn, "proxy-authorization") ||
			     name_is(line, nn, "proxy-connection"));
		if (colon && check_header(f, line, nn, colon + 1, ln - nn - 1, fr) < 0)
			return -1;
		if (!drop)
			cf_buf_addn(kept, line, ln);
		i += ln;
	}
	return 0;
}

/* The kept head with the placeholders of this host's secrets replaced, into `out`; each
 * replacement recorded.  The kept head is wiped and released.  Returns 0, or -1 (refused). */
static int substitute(struct cf_reqfilter *f, struct cf_buf *kept, struct cf_buf *out)
{
	bool replaced[64];
	char wh[64][64];
	if (!kept->oom)
		cf_secrets_substitute_head(f->s, f->host, f->is_ip ? &f->ip : NULL, f->port,
					   kept->s, kept->len, out, replaced, wh);
	if (kept->s)
		explicit_bzero(kept->s, kept->len);
	bool oom = kept->oom;
	cf_buf_release(kept);
	if (oom)
		return refuse(f, 503, "confine: out of memory\n");
	for (size_t k = 0; k < f->s->n && k < 64; k++)
		if (replaced[k])
			cf_secrets_record(f->s, f->s->v[k].name, f->host, f->port, "substituted",
					  wh[k], "plain");
	return 0;
}

/* What comes after the head, as its framing says: a chunked body, a body of a length, the raw
 * bytes of an upgraded or CONNECT connection, or the next head. */
static void start_body(struct cf_reqfilter *f, const struct framing *fr, bool connect)
{
	f->requests++;
	memset(&f->body, 0, sizeof(f->body));
	f->after_raw = fr->upgrade || connect;
	if (fr->chunked) {
		f->st = CF_RF_CHUNK;
		f->ch = CF_CH_SIZE;
		f->line_len = 0;
	} else if (fr->have_len && fr->len) {
		f->st = CF_RF_BODY;
		f->left = fr->len;
	} else {
		f->st = f->after_raw ? CF_RF_RAW : CF_RF_HEAD;
	}
}

/* The framing and the checks of one complete head; then the head as it goes on. */
static int do_head(struct cf_reqfilter *f, struct cf_buf *out)
{
	const char *h = f->head;
	size_t n = f->head_len;
	struct cf_secret_hit hit;
	char where[64];
	if (cf_secrets_find(f->s, h, n, f->skip, &hit)) {
		where_in_head(f, h, n, where, sizeof(where));
		return refuse_secret(f, &hit, where);
	}
	const char *sp = memchr(h, ' ', n);
	bool connect = sp && (size_t)(sp - h) == 7 && !memcmp(h, "CONNECT", 7);
	const char *nl = memchr(h, '\n', n);
	size_t first = nl ? (size_t)(nl - h) + 1 : n;
	struct framing fr = {0};
	struct cf_buf kept; /* the head without the proxy's own headers */
	cf_buf_init(&kept);
	cf_buf_addn(&kept, h, first);
	if (filter_headers(f, h, first, n, &kept, &fr) < 0) {
		cf_buf_release(&kept);
		return -1;
	}
	if (substitute(f, &kept, out) < 0)
		return -1;
	start_body(f, &fr, connect);
	return 0;
}

/* Body bytes: searched (the first MiB of each body), passed on. */
static int pass(struct cf_reqfilter *f, const char *p, size_t n, struct cf_buf *out)
{
	struct cf_secret_hit hit;
	if (cf_secrets_scan_feed(f->s, &f->body, p, n, f->skip, &hit))
		return refuse_secret(f, &hit, "body");
	cf_buf_addn(out, p, n);
	return 0;
}

static void body_done(struct cf_reqfilter *f)
{
	f->st = f->after_raw ? CF_RF_RAW : CF_RF_HEAD;
}

/* One line of a chunked body (a size or a trailer), complete in f->line. */
static int chunk_line(struct cf_reqfilter *f)
{
	const char *l = f->line;
	size_t n = f->line_len;
	while (n && (l[n - 1] == '\n' || l[n - 1] == '\r'))
		n--;
	if (f->ch == CF_CH_TRAILER) {
		if (!n)
			body_done(f);
		return 0;
	}
	uint64_t size = 0;
	size_t i = 0;
	for (; i < n && cf_hex_value(l[i]) >= 0; i++) {
		if (size >> 56)
			return refuse(f, 400, "confine: bad request: a chunk size too large\n");
		size = size << 4 | (uint64_t)cf_hex_value(l[i]);
	}
	if (!i || (i < n && l[i] != ';' && l[i] != ' ' && l[i] != '\t'))
		return refuse(f, 400, "confine: bad request: a malformed chunk size\n");
	f->left = size;
	f->ch = size ? CF_CH_DATA : CF_CH_TRAILER;
	return 0;
}

static int feed_chunked(struct cf_reqfilter *f, const char **in, size_t *n, struct cf_buf *out)
{
	if (f->ch == CF_CH_DATA) {
		size_t k = *n < f->left ? *n : (size_t)f->left;
		if (pass(f, *in, k, out) < 0)
			return -1;
		*in += k;
		*n -= k;
		if ((f->left -= k) == 0) {
			f->ch = CF_CH_DATA_END;
			f->line_len = 0;
		}
		return 0;
	}
	/* A line: the size, the CRLF after the data, or a trailer. */
	const char *nl = memchr(*in, '\n', *n);
	size_t k = nl ? (size_t)(nl - *in) + 1 : *n;
	if (f->line_len + k > sizeof(f->line))
		return refuse(f, 400, "confine: bad request: a chunk line longer than 4 KiB\n");
	memcpy(f->line + f->line_len, *in, k);
	f->line_len += k;
	/* Chunk extensions and trailers are searched like the data. */
	if (pass(f, *in, k, out) < 0)
		return -1;
	*in += k;
	*n -= k;
	if (!nl)
		return 0;
	if (f->ch == CF_CH_DATA_END) {
		if (!(f->line_len == 2 && f->line[0] == '\r') && f->line_len != 1)
			return refuse(f, 400, "confine: bad request: no line end after a chunk\n");
		f->ch = CF_CH_SIZE;
		f->line_len = 0;
		return 0;
	}
	int r = chunk_line(f);
	f->line_len = 0;
	return r;
}

static int feed_head(struct cf_reqfilter *f, const char **in, size_t *n, struct cf_buf *out)
{
	/* Take what fits; the scanner says where the head ends. */
	size_t room = CF_HTTP_MAX_HEAD + 1 - f->head_len;
	size_t k = *n < room ? *n : room;
	if (f->head_len + k > f->head_cap) {
		size_t cap = f->head_cap ? f->head_cap * 2 : 4096;
		while (cap < f->head_len + k)
			cap *= 2;
		char *v = realloc(f->head, cap);
		if (!v)
			return refuse(f, 503, "confine: out of memory\n");
		f->head = v;
		f->head_cap = cap;
	}
	memcpy(f->head + f->head_len, *in, k);
	size_t before = f->head_len;
	f->head_len += k;
	int end = cf_http_scan(&f->scan, f->head, f->head_len);
	if (end < 0)
		return refuse(f, -end,
			      "confine: bad request: the head is malformed or too large\n");
	if (end == 0) {
		*in += k;
		*n -= k;
		return 0;
	}
	/* The bytes after the head's end go back to the input. */
	size_t used = (size_t)end - before;
	*in += used;
	*n -= used;
	f->head_len = (size_t)end;
	int r = do_head(f, out);
	explicit_bzero(f->head, f->head_len);
	f->head_len = 0;
	memset(&f->scan, 0, sizeof(f->scan));
	return r;
}

int cf_reqfilter_feed(struct cf_reqfilter *f, const char *in, size_t n, struct cf_buf *out)
{
	while (n) {
		int r = 0;
		switch (f->st) {
		case CF_RF_REFUSED:
			return -1;
		case CF_RF_HEAD:
			r = feed_head(f, &in, &n, out);
			break;
		case CF_RF_BODY: {
			size_t k = n < f->left ? n : (size_t)f->left;
			r = pass(f, in, k, out);
			in += k;
			n -= k;
			if (r == 0 && (f->left -= k) == 0)
				body_done(f);
			break;
		}
		case CF_RF_CHUNK:
			r = feed_chunked(f, &in, &n, out);
			break;
		case CF_RF_RAW:
			r = pass(f, in, n, out);
			n = 0;
			break;
		}
		if (r < 0)
			return -1;
	}
	return f->st == CF_RF_REFUSED ? -1 : 0;
}
