/* SPDX-License-Identifier: MIT */
/*
 * The proxy's HTTP heads (SPEC 12): the end of a head found within its bounds however the
 * bytes arrive (one at a time, a 1 MB request line, a header flood), strict parsing of the
 * two proxy request forms, and exactly what is forwarded: origin-form target, Host from the
 * URI, no hop-by-hop header, Connection: close.
 */
#include <stdlib.h>
#include <string.h>

#include "net/auth.h"
#include "net/http.h"
#include "util/util.h"
#include "../tap.h"

/* Scans `text` fed one byte at a time and in one piece; both must agree. */
static int scan_both(const char *text, size_t n)
{
	struct cf_http_scan a = {0}, b = {0};
	int whole = cf_http_scan(&a, text, n);
	int r = 0;
	for (size_t i = 1; i <= n; i++) {
		r = cf_http_scan(&b, text, i);
		if (r != 0)
			break;
	}
	return whole == r ? r : -9999;
}

static void test_scan(void)
{
	static const char get[] = "GET http://a.io/ HTTP/1.1\r\nHost: a.io\r\n\r\nBODY";
	TAP_INTEQ(scan_both(get, sizeof(get) - 1), sizeof(get) - 1 - 4,
		  "the head ends after the blank line (byte by byte and at once)");
	static const char lf[] = "GET http://a.io/ HTTP/1.1\nHost: a.io\n\n";
	TAP_INTEQ(scan_both(lf, sizeof(lf) - 1), sizeof(lf) - 1, "bare LF line ends");
	static const char partial[] = "GET http://a.io/ HTTP/1.1\r\nHost: a.io\r\n";
	TAP_INTEQ(scan_both(partial, sizeof(partial) - 1), 0, "no blank line yet: more needed");
	TAP_INTEQ(scan_both("\r\nGET / HTTP/1.1\r\n\r\n", 20), -400, "a blank first line");
	TAP_INTEQ(scan_both("GET /\rx HTTP/1.1\r\n\r\n", 20), -400, "a bare CR");

	/* A 1 MB request line: refused as soon as the line passes the bound. */
	size_t big = 1024 * 1024;
	char *line = malloc(big + 1);
	memset(line, 'a', big);
	memcpy(line, "GET http://a.io/", 16);
	struct cf_http_scan s = {0};
	int r = 0;
	size_t fed = 0;
	for (fed = 4096; fed <= big && r == 0; fed += 4096)
		r = cf_http_scan(&s, line, fed);
	TAP_INTEQ(r, -414, "a 1 MB request line: 414");
	TAP_OK(fed <= CF_HTTP_MAX_LINE + 8192, "refused after %zu bytes, not after 1 MB", fed);
	/* A header line of the same kind: 431. */
	memcpy(line, "GET http://a.io/ HTTP/1.1\r\nX: ", 30);
	memset(&s, 0, sizeof(s));
	TAP_INTEQ(cf_http_scan(&s, line, 20000), -431, "a 20 kB header line: 431");
	free(line);

	/* Header floods: too many lines, a head past 64 KiB in short lines. */
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_add(&b, "GET http://a.io/ HTTP/1.1\r\n");
	for (int i = 0; i < CF_HTTP_MAX_HEADERS + 5; i++)
		cf_buf_addf(&b, "X-%d: y\r\n", i);
	cf_buf_add(&b, "\r\n");
	TAP_INTEQ(scan_both(b.s, b.len), -431, "%d header lines: 431", CF_HTTP_MAX_HEADERS + 5);
	cf_buf_release(&b);
	cf_buf_init(&b);
	cf_buf_add(&b, "GET http://a.io/ HTTP/1.1\r\n");
	for (int i = 0; i < 90; i++) {
		cf_buf_addf(&b, "X-%d: ", i);
		for (int k = 0; k < 800; k++)
			cf_buf_addc(&b, 'v');
		cf_buf_add(&b, "\r\n");
	}
	cf_buf_add(&b, "\r\n");
	memset(&s, 0, sizeof(s));
	TAP_INTEQ(cf_http_scan(&s, b.s, b.len), -431, "a 72 kB head of 90 lines: 431");
	cf_buf_release(&b);
	cf_buf_init(&b);
	cf_buf_add(&b, "GET http://a.io/ HTTP/1.1\r\n");
	for (int i = 0; i < CF_HTTP_MAX_HEADERS; i++)
		cf_buf_addf(&b, "X-%d: y\r\n", i);
	cf_buf_add(&b, "\r\n");
	TAP_INTEQ(scan_both(b.s, b.len), (int)b.len, "exactly %d header lines is fine",
		  CF_HTTP_MAX_HEADERS);
	struct cf_http_head h;
	const char *why;
	TAP_INTEQ(cf_http_parse(b.s, b.len, false, &h, &why), 0, "and parses");
	cf_buf_release(&b);
}

struct rcase {
	const char *head;
	int status; /* 0: parses */
	bool connect;
	const char *host;
	unsigned port;
	const char *forwarded; /* NULL: not checked */
};

static const struct rcase rcases[] = {
    {"CONNECT github.com:443 HTTP/1.1\r\nHost: github.com:443\r\n\r\n", 0, true, "github.com", 443,
     NULL},
    {"CONNECT GitHub.COM.:22 HTTP/1.0\r\n\r\n", 0, true, "github.com", 22, NULL},
    {"CONNECT [2001:db8::1]:443 HTTP/1.1\r\n\r\n", 0, true, "2001:db8::1", 443, NULL},
    {"CONNECT 127.0.0.5:8443 HTTP/1.1\r\n\r\n", 0, true, "127.0.0.5", 8443, NULL},
    {"GET http://a.io/x?y=1 HTTP/1.1\r\nHost: evil.io\r\nUser-Agent: t\r\n"
     "Proxy-Connection: keep-alive\r\nProxy-Authorization: Basic eA==\r\nConnection: "
     "keep-alive, X-Secret\r\nX-Secret: 1\r\nKeep-Alive: 5\r\nTE: trailers\r\nUpgrade: h2c\r\n"
     "Accept: */*\r\n\r\n",
     0, false, "a.io", 80,
     "GET /x?y=1 HTTP/1.1\r\nHost: a.io\r\nUser-Agent: t\r\nAccept: */*\r\nConnection: "
     "close\r\n\r\n"},
    {"POST http://A.io:8080 HTTP/1.0\r\nContent-Length: 3\r\n\r\n", 0, false, "a.io", 8080,
     "POST / HTTP/1.0\r\nHost: a.io:8080\r\nContent-Length: 3\r\nConnection: close\r\n\r\n"},
    {"GET http://a.io?q HTTP/1.1\r\n\r\n", 0, false, "a.io", 80,
     "GET /?q HTTP/1.1\r\nHost: a.io\r\nConnection: close\r\n\r\n"},
    {"GET HTTP://[::1]:81/ HTTP/1.1\r\n\r\n", 0, false, "::1", 81,
     "GET / HTTP/1.1\r\nHost: [::1]:81\r\nConnection: close\r\n\r\n"},
    {"GET http://a.io/ HTTP/1.1\r\nX-Empty:\r\nX-Pad:   v  \r\n\r\n", 0, false, "a.io", 80,
     "GET / HTTP/1.1\r\nHost: a.io\r\nX-Empty: \r\nX-Pad: v\r\nConnection: close\r\n\r\n"},
    /* refused */
    {"GET / HTTP/1.1\r\nHost: a.io\r\n\r\n", 400, false, NULL, 0, NULL},
    {"GET https://a.io/ HTTP/1.1\r\n\r\n", 400, false, NULL, 0, NULL},
    {"GET ftp://a.io/ HTTP/1.1\r\n\r\n", 501, false, NULL, 0, NULL},
    {"GET http://user:pw@a.io/ HTTP/1.1\r\n\r\n", 400, false, NULL, 0, NULL},
    {"GET http://a.io/#frag HTTP/1.1\r\n\r\n", 400, false, NULL, 0, NULL},
    {"GET http://a.io/ HTTP/2.0\r\n\r\n", 505, false, NULL, 0, NULL},
    {"GET http://a.io/ HTTX/1.1\r\n\r\n", 400, false, NULL, 0, NULL},
    {"GET  http://a.io/ HTTP/1.1\r\n\r\n", 400, false, NULL, 0, NULL},
    {"GET http://a.io/ HTTP/1.1 \r\n\r\n", 400, false, NULL, 0, NULL},
    {"G@T http://a.io/ HTTP/1.1\r\n\r\n", 400, false, NULL, 0, NULL},
    {"CONNECT github.com HTTP/1.1\r\n\r\n", 400, false, NULL, 0, NULL},
    {"CONNECT github.com:0 HTTP/1.1\r\n\r\n", 400, false, NULL, 0, NULL},
    {"CONNECT github.com:99999 HTTP/1.1\r\n\r\n", 400, false, NULL, 0, NULL},
    {"CONNECT ::1:443 HTTP/1.1\r\n\r\n", 400, false, NULL, 0, NULL},
    {"CONNECT 127.1:443 HTTP/1.1\r\n\r\n", 400, false, NULL, 0, NULL},
    {"CONNECT bad_.-x:443 HTTP/1.1\r\n\r\n", 400, false, NULL, 0, NULL},
    {"GET http://a.io/\x01 HTTP/1.1\r\n\r\n", 400, false, NULL, 0, NULL},
    {"GET http://a.io/ HTTP/1.1\r\n folded\r\n\r\n", 400, false, NULL, 0, NULL},
    {"GET http://a.io/ HTTP/1.1\r\nBad Name: v\r\n\r\n", 400, false, NULL, 0, NULL},
    {"GET http://a.io/ HTTP/1.1\r\nName : v\r\n\r\n", 400, false, NULL, 0, NULL},
    {"GET http://a.io/ HTTP/1.1\r\nNoColon\r\n\r\n", 400, false, NULL, 0, NULL},
    {"GET http://a.io/ HTTP/1.1\r\nX: a\x7f\r\n\r\n", 400, false, NULL, 0, NULL},
};

static void test_requests(void)
{
	for (size_t i = 0; i < sizeof(rcases) / sizeof(rcases[0]); i++) {
		const struct rcase *c = &rcases[i];
		size_t n = strlen(c->head);
		struct cf_http_scan s = {0};
		int end = cf_http_scan(&s, c->head, n);
		struct cf_http_head h;
		const char *why = NULL;
		int st = end > 0 ? cf_http_parse(c->head, (size_t)end, false, &h, &why) : -end;
		char name[48];
		snprintf(name, sizeof(name), "request %zu", i);
		if (c->status) {
			TAP_INTEQ(st, c->status, "%s refused with %d (%s)", name, c->status,
				  why ? why : "-");
			TAP_OK(st == 0 || why != NULL, "%s: a reason", name);
			continue;
		}
		TAP_INTEQ(st, 0, "%s parses (%s)", name, why ? why : "ok");
		if (st)
			continue;
		TAP_OK(h.connect == c->connect && !strcmp(h.host, c->host) && h.port == c->port,
		       "%s: %s %s:%u", name, h.connect ? "CONNECT" : h.method, h.host, h.port);
		if (c->forwarded) {
			struct cf_buf b;
			cf_buf_init(&b);
			cf_http_forward_request(c->head, &h, &b);
			TAP_STREQ(b.s, c->forwarded, "%s: forwarded head", name);
			cf_buf_release(&b);
		}
	}
}

static void test_responses(void)
{
	static const char ok[] =
	    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n"
	    "Keep-Alive: timeout=5\r\nX-A: b\r\n\r\n";
	struct cf_http_head h;
	const char *why;
	TAP_INTEQ(cf_http_parse(ok, sizeof(ok) - 1, true, &h, &why), 0, "a response parses");
	TAP_INTEQ(h.status, 200, "its status");
	struct cf_buf b;
	cf_buf_init(&b);
	cf_http_forward_response(ok, &h, &b);
	TAP_STREQ(b.s,
		  "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-A: b\r\nConnection: close\r\n\r\n",
		  "forwarded with Connection: close");
	cf_buf_release(&b);
	static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
	TAP_INTEQ(cf_http_parse(cont, sizeof(cont) - 1, true, &h, &why), 0, "100 Continue");
	cf_buf_init(&b);
	cf_http_forward_response(cont, &h, &b);
	TAP_STREQ(b.s, cont, "a 1xx goes on unchanged");
	cf_buf_release(&b);
	static const char v10[] = "HTTP/1.0 404\r\n\r\n";
	TAP_INTEQ(cf_http_parse(v10, sizeof(v10) - 1, true, &h, &why), 0,
		  "a status line without a reason phrase");
	TAP_INTEQ(cf_http_parse("HTTP/1.1 2000 OK\r\n\r\n", 20, true, &h, &why), 502,
		  "a bad status line: 502");
	TAP_INTEQ(cf_http_parse("ICY 200 OK\r\n\r\n", 14, true, &h, &why), 502, "not HTTP: 502");

	cf_buf_init(&b);
	cf_http_error(403, "confine: denied", &b);
	TAP_STREQ(b.s,
		  "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\n"
		  "Content-Length: 16\r\nConnection: close\r\nX-Confine: denied\r\n\r\n"
		  "confine: denied\n",
		  "an error response");
	cf_buf_release(&b);
}

/* The credentials of the landlock backend's proxy (net/auth.h). */
static void auth(void)
{
	const char *up = "confine:0123456789abcdef0123456789abcdef";
	const char *b64 = "Y29uZmluZTowMTIzNDU2Nzg5YWJjZGVmMDEyMzQ1Njc4OWFiY2RlZg==";
	char v[200];
	snprintf(v, sizeof(v), "Basic %s", b64);
	TAP_OK(cf_proxy_basic_ok(v, strlen(v), up), "Basic with the credentials");
	snprintf(v, sizeof(v), "  bAsIc \t%.*s  ", (int)strlen(b64) - 2, b64);
	TAP_OK(cf_proxy_basic_ok(v, strlen(v), up), "any case, blanks around, no padding");
	snprintf(v, sizeof(v), "Basic %s", "Y29uZmluZTowMTIzNDU2Nzg5YWJjZGVmMDEyMzQ1Njc4OWFiY2Rl");
	TAP_OK(!cf_proxy_basic_ok(v, strlen(v), up), "one byte short: refused");
	snprintf(v, sizeof(v), "Basic %sZm9v",
		 "Y29uZmluZTowMTIzNDU2Nzg5YWJjZGVmMDEyMzQ1Njc4OWFiY2RlZg");
	TAP_OK(!cf_proxy_basic_ok(v, strlen(v), up), "bytes beyond: refused");
	snprintf(v, sizeof(v), "Basic %s", "cm9vdDowMTIzNDU2Nzg5YWJjZGVmMDEyMzQ1Njc4OWFiY2RlZg==");
	TAP_OK(!cf_proxy_basic_ok(v, strlen(v), up), "another user, the same secret: refused");
	snprintf(v, sizeof(v), "Bearer %s", b64);
	TAP_OK(!cf_proxy_basic_ok(v, strlen(v), up), "another scheme: refused");
	snprintf(v, sizeof(v), "Basic%s", b64);
	TAP_OK(!cf_proxy_basic_ok(v, strlen(v), up), "no blank after the scheme: refused");
	snprintf(v, sizeof(v), "Basic Y29u*mluZTo=");
	TAP_OK(!cf_proxy_basic_ok(v, strlen(v), up), "not base64: refused");
	TAP_OK(!cf_proxy_basic_ok("Basic ", 6, up) && !cf_proxy_basic_ok("", 0, up),
	       "empty: refused");
	TAP_OK(cf_ct_equal("abc", 3, "abc", 3) && !cf_ct_equal("abd", 3, "abc", 3) &&
		   !cf_ct_equal("ab", 2, "abc", 3) && !cf_ct_equal("abcd", 4, "abc", 3) &&
		   cf_ct_equal("", 0, "", 0),
	       "cf_ct_equal: equal only for the same bytes and length");
}

int main(void)
{
	auth();
	test_scan();
	test_requests();
	test_responses();
	return tap_done();
}
