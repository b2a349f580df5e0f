/* SPDX-License-Identifier: MIT */
/*
 * R45 apart from sockets: where a placeholder is found (as it is, in another case, percent-
 * encoded, hex, base64 and base64url at each alignment, split across two pieces of a body),
 * the real value put in its place in a request head (the request line, a header, inside Basic
 * credentials) only for a listed host, and the request filter of an inspected connection:
 * framing by Content-Length and chunks, a placeholder for another host refused in a head and
 * in a body, a Host header naming another host refused in a tunnel, the proxy's own headers
 * dropped on a plain-HTTP connection, an Upgrade passed on as it is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "net/reqfilter.h"
#include "net/secrets.h"
#include "util/base64.h"

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		bool check_ = (cond);                                                              \
		TAP_OK(check_, __VA_ARGS__);                                                       \
	} while (0)

static const char PH[] = "confine-placeholder-0123456789abcdef0123456789abcdef";
static const char PH2[] = "confine-placeholder-fedcba9876543210fedcba9876543210";
static const char VALUE[] = "real-value-42";

static void setup(struct cf_secrets *s)
{
	cf_secrets_init(s);
	struct cf_strv h = {0}, h2 = {0};
	cf_strv_add(&h, "api.example.com");
	cf_strv_add(&h, "127.0.0.5:8443");
	cf_strv_add(&h2, "other.example.com");
	int r = cf_secrets_add(s, "TOKEN", VALUE, strlen(VALUE), PH, &h, NULL);
	r |= cf_secrets_add(s, "OTHER", "other-value", 11, PH2, &h2, NULL);
	TAP_OK(r == 0 && s->n == 2, "two secrets");
	cf_strv_release(&h);
	cf_strv_release(&h2);
}

static bool found(const struct cf_secrets *s, const char *text, const char *enc)
{
	struct cf_secret_hit hit;
	bool ok = cf_secrets_find(s, text, strlen(text), NULL, &hit);
	return ok && !strcmp(hit.encoding, enc) && !strcmp(hit.secret->name, "TOKEN");
}

static void test_find(const struct cf_secrets *s)
{
	char buf[512], b64[256];
	snprintf(buf, sizeof(buf), "GET /?t=%s HTTP/1.1", PH);
	CHECK(found(s, buf, "plain"), "plain, in a query");
	snprintf(buf, sizeof(buf), "x: CONFINE-PLACEHOLDER-0123456789ABCDEF0123456789ABCDEF");
	CHECK(found(s, buf, "plain"), "in upper case");
	size_t o = (size_t)snprintf(buf, sizeof(buf), "q=");
	for (const char *p = PH; *p; p++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%%%02X", (unsigned char)*p);
	CHECK(found(s, buf, "percent"), "every byte percent-encoded");
	o = (size_t)snprintf(buf, sizeof(buf), "h: ");
	for (const char *p = PH; *p; p++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%02x", (unsigned char)*p);
	CHECK(found(s, buf, "hex"), "hex");
	for (int pre = 0; pre < 3; pre++) {
		char cred[200];
		int n = snprintf(cred, sizeof(cred), "%.*s%s:x", pre, "ab", PH);
		cf_base64_encode((const uint8_t *)cred, (size_t)n, false, true, b64);
		snprintf(buf, sizeof(buf), "Authorization: Basic %s", b64);
		CHECK(found(s, buf, "base64"), "base64 after %d bytes (Basic credentials)", pre);
		cf_base64_encode((const uint8_t *)cred, (size_t)n, true, false, b64);
		CHECK(found(s, b64, "base64"), "base64url after %d bytes", pre);
	}
	struct cf_secret_hit hit;
	CHECK(!cf_secrets_find(s, "nothing here", 12, NULL, &hit), "nothing in plain text");
	bool skip[2] = {true, false};
	snprintf(buf, sizeof(buf), "%s", PH);
	CHECK(!cf_secrets_find(s, buf, strlen(buf), skip, &hit),
	      "a skipped secret is not looked for");
	/* Split across two pieces of a body. */
	struct cf_secret_scan st = {0};
	char body[200];
	snprintf(body, sizeof(body), "{\"token\": \"%s\"}", PH);
	bool a = cf_secrets_scan_feed(s, &st, body, 20, NULL, &hit);
	bool b = cf_secrets_scan_feed(s, &st, body + 20, strlen(body) - 20, NULL, &hit);
	CHECK(!a && b, "a placeholder split across two pieces of a body is found");
	memset(&st, 0, sizeof(st));
	st.seen = CF_SECRET_BODY_SCAN;
	CHECK(!cf_secrets_scan_feed(s, &st, body, strlen(body), NULL, &hit),
	      "past the first MiB nothing is looked at");
}

static void test_substitute(const struct cf_secrets *s)
{
	char head[1024], b64[256], cred[128];
	snprintf(cred, sizeof(cred), "me:%s", PH);
	cf_base64_encode((const uint8_t *)cred, strlen(cred), false, true, b64);
	int n = snprintf(head, sizeof(head),
			 "GET /x?key=%s HTTP/1.1\r\nHost: api.example.com\r\nAuthorization: Bearer "
			 "%s\r\nProxy-Authorization: Basic %s\r\nX-Other: %s\r\n\r\n",
			 PH, PH, b64, PH2);
	struct cf_buf out;
	bool rep[2];
	char where[2][64];
	cf_buf_init(&out);
	cf_secrets_substitute_head(s, "api.example.com", NULL, 443, head, (size_t)n, &out, rep,
				   where);
	snprintf(cred, sizeof(cred), "me:%s", VALUE);
	char want_b64[256];
	cf_base64_encode((const uint8_t *)cred, strlen(cred), false, true, want_b64);
	char want[1024];
	snprintf(want, sizeof(want),
		 "GET /x?key=%s HTTP/1.1\r\nHost: api.example.com\r\nAuthorization: Bearer "
		 "%s\r\nProxy-Authorization: Basic %s\r\nX-Other: %s\r\n\r\n",
		 VALUE, VALUE, want_b64, PH2);
	TAP_STREQ(out.s, want,
		  "a listed host: every place replaced, Basic decoded and encoded "
		  "again, the other secret left");
	CHECK(rep[0] && !rep[1] && !strcmp(where[0], "request line"),
	      "replaced[] and where[] say so (%s)", where[0]);
	cf_buf_release(&out);
	cf_buf_init(&out);
	cf_secrets_substitute_head(s, "evil.example.com", NULL, 443, head, (size_t)n, &out, rep,
				   where);
	CHECK(out.len == (size_t)n && !memcmp(out.s, head, (size_t)n) && !rep[0],
	      "another host: nothing replaced");
	cf_buf_release(&out);
	struct cf_ip ip = {4, {127, 0, 0, 5}};
	cf_buf_init(&out);
	cf_secrets_substitute_head(s, "127.0.0.5", &ip, 8443, head, (size_t)n, &out, rep, where);
	CHECK(rep[0], "an address and port that are listed");
	cf_buf_release(&out);
	cf_buf_init(&out);
	cf_secrets_substitute_head(s, "127.0.0.5", &ip, 8444, head, (size_t)n, &out, rep, where);
	CHECK(!rep[0], "... not on another port");
	cf_buf_release(&out);
}

/* Feeds text in pieces of `piece` bytes; returns the output (malloc'd) or NULL on refusal. */
static char *run_filter(struct cf_secrets *s, const char *host, bool tunnel, const char *text,
			size_t piece, int *status)
{
	struct cf_reqfilter f;
	struct cf_buf out;
	cf_reqfilter_init(&f, s, host, false, NULL, 443, tunnel, true);
	cf_buf_init(&out);
	size_t n = strlen(text);
	int r = 0;
	for (size_t i = 0; i < n && r == 0; i += piece)
		r = cf_reqfilter_feed(&f, text + i, n - i < piece ? n - i : piece, &out);
	*status = r < 0 ? f.status : 0;
	cf_reqfilter_release(&f);
	if (r < 0) {
		cf_buf_release(&out);
		return NULL;
	}
	return cf_buf_take(&out);
}

static void test_filter(struct cf_secrets *s)
{
	char req[2048];
	int st;
	snprintf(req, sizeof(req),
		 "POST /a HTTP/1.1\r\nHost: api.example.com\r\nAuthorization: Bearer %s\r\n"
		 "Content-Length: 5\r\n\r\nhello"
		 "GET /b HTTP/1.1\r\nHost: api.example.com:443\r\nX-T: %s\r\n\r\n",
		 PH, PH);
	for (size_t piece = 1; piece <= 64; piece *= 4) {
		char *o = run_filter(s, "api.example.com", true, req, piece, &st);
		char want[2048];
		snprintf(want, sizeof(want),
			 "POST /a HTTP/1.1\r\nHost: api.example.com\r\nAuthorization: Bearer %s\r\n"
			 "Content-Length: 5\r\n\r\nhello"
			 "GET /b HTTP/1.1\r\nHost: api.example.com:443\r\nX-T: %s\r\n\r\n",
			 VALUE, VALUE);
		TAP_STREQ(o, want,
			  "two requests on a connection, in pieces of %zu: both heads "
			  "replaced, the body framed",
			  piece);
		free(o);
	}
	snprintf(
	    req, sizeof(req),
	    "POST /c HTTP/1.1\r\nHost: other.example.com\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "4\r\nabcd\r\n0\r\n\r\nGET /d HTTP/1.1\r\nHost: other.example.com\r\nX: %s\r\n\r\n",
	    PH);
	char *o = run_filter(s, "other.example.com", true, req, 7, &st);
	CHECK(!o && st == 403,
	      "chunks framed: the next head, with TOKEN's placeholder for another "
	      "host, is refused (%d)",
	      st);
	snprintf(req, sizeof(req),
		 "POST /c HTTP/1.1\r\nHost: other.example.com\r\nTransfer-Encoding: chunked\r\n\r\n"
		 "4\r\nabcd\r\n0\r\nX-Trailer: %s\r\n\r\n",
		 PH);
	o = run_filter(s, "other.example.com", true, req, 5, &st);
	CHECK(!o && st == 403, "a placeholder in a chunked body's trailer is refused (found by "
			       "fuzz-req-filter)");
	snprintf(req, sizeof(req),
		 "POST /e HTTP/1.1\r\nHost: other.example.com\r\nContent-Length: 200\r\n\r\n"
		 "{\"stolen\": \"%s\"}",
		 PH);
	o = run_filter(s, "other.example.com", true, req, 9, &st);
	CHECK(!o && st == 403, "a placeholder in a body for another host is refused");
	o = run_filter(s, "api.example.com", true,
		       "GET / HTTP/1.1\r\nHost: evil.example.com\r\n\r\n", 100, &st);
	CHECK(!o && st == 421, "through a tunnel, a Host of another host is refused (421)");
	o = run_filter(s, "api.example.com", true,
		       "GET / HTTP/1.1\r\nHost: api.example.com\r\nHost: evil.example.com\r\n\r\n",
		       100, &st);
	CHECK(!o && st == 421, "... and two Host headers");
	o = run_filter(s, "api.example.com", true,
		       "GET / HTTP/1.1\r\nHost: api.example.com:8443\r\n\r\n", 100, &st);
	CHECK(!o && st == 421, "... and the right name on another port");
	o = run_filter(s, "api.example.com", false,
		       "GET / HTTP/1.1\r\nHost: api.example.com\r\nProxy-Authorization: Basic "
		       "Y29uZmluZTpzZWNyZXQ=\r\nProxy-Connection: keep-alive\r\n\r\n",
		       100, &st);
	TAP_STREQ(o, "GET / HTTP/1.1\r\nHost: api.example.com\r\n\r\n",
		  "plain HTTP: the proxy's credentials never go on");
	free(o);
	snprintf(req, sizeof(req),
		 "GET /ws HTTP/1.1\r\nHost: other.example.com\r\nUpgrade: websocket\r\n\r\n"
		 "raw frames %s",
		 PH);
	o = run_filter(s, "other.example.com", true, req, 100, &st);
	CHECK(!o && st == 403, "after an Upgrade the bytes are still searched");
	o = run_filter(s, "api.example.com", true,
		       "POST / HTTP/1.1\r\nHost: api.example.com\r\nContent-Length: 1\r\n"
		       "Content-Length: 2\r\n\r\nab",
		       100, &st);
	CHECK(!o && st == 400, "two different Content-Lengths are refused");
	o = run_filter(
	    s, "api.example.com", true,
	    "POST / HTTP/1.1\r\nHost: api.example.com\r\nTransfer-Encoding: gzip\r\n\r\n", 100,
	    &st);
	CHECK(!o && st == 501, "a Transfer-Encoding that does not end in chunked is refused");
	size_t n0 = s->n_events;
	o = run_filter(s, "api.example.com", true,
		       "GET / HTTP/1.1\r\nHost: api.example.com\r\nX: y\r\n\r\n", 3, &st);
	CHECK(o && st == 0 && s->n_events == n0,
	      "a request without placeholders passes, unrecorded");
	free(o);
	CHECK(s->n_events > 0 && !strcmp(s->events[0].outcome, "substituted") &&
		  !strcmp(s->events[0].name, "TOKEN"),
	      "events: substituted, named");
	bool refused = false;
	for (size_t i = 0; i < s->n_events; i++)
		refused |= !strcmp(s->events[i].outcome, "refused") &&
			   !strcmp(s->events[i].host, "other.example.com");
	CHECK(refused, "events: the refusals, with the host");
	bool leak = false;
	for (size_t i = 0; i < s->n_events; i++)
		leak |= strstr(s->events[i].where, VALUE) || strstr(s->events[i].name, VALUE);
	CHECK(!leak, "no event holds the real value");
}

int main(void)
{
	struct cf_secrets s;
	setup(&s);
	test_find(&s);
	test_substitute(&s);
	test_filter(&s);
	cf_secrets_release(&s);
	return tap_done();
}
