/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the proxy's HTTP head scanner, parser and rewriters (SPEC 12).  The first byte
 * picks request or response and the size of the pieces the rest arrives in, so the scanner
 * also meets every way a head can be cut.  Beyond memory errors it checks the contract: the
 * scanner's answer does not depend on how the bytes arrive; a head is within its bounds;
 * every header lies inside the head; the host is a normalised name or address; the forwarded
 * request is a complete head of its own, in origin form, with the URI's host, no proxy header
 * (Proxy-Connection, Proxy-Authorization, Keep-Alive) and "Connection: close"; a forwarded response
 * parses again to the same status.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/http.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool has_ci(const char *hay, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++) {
		size_t j = 0;
		while (j < k && lower(hay[i + j]) == lower(needle[j]))
			j++;
		if (j == k)
			return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	bool response = data[0] & 1;
	size_t piece = (size_t)(data[0] >> 1) + 1;
	const char *buf = (const char *)data + 1;
	size_t len = size - 1;

	struct cf_http_scan whole = {0}, cut = {0};
	int a = cf_http_scan(&whole, buf, len), b = 0;
	for (size_t got = piece < len ? piece : len;; got += piece) {
		if (got > len)
			got = len;
		b = cf_http_scan(&cut, buf, got);
		if (b != 0 || got == len)
			break;
	}
	CHECK(a == b);
	CHECK(a <= CF_HTTP_MAX_HEAD);
	if (a <= 0) {
		CHECK(a == 0 || a == -400 || a == -414 || a == -431);
		return 0;
	}
	struct cf_http_head *h = malloc(sizeof(*h));
	const char *why = NULL;
	int st = cf_http_parse(buf, (size_t)a, response, h, &why);
	if (st) {
		CHECK(why && why[0]);
		CHECK(st >= 400 && st <= 505);
		free(h);
		return 0;
	}
	CHECK(h->head_len == (size_t)a && h->n_headers <= CF_HTTP_MAX_HEADERS);
	for (size_t i = 0; i < h->n_headers; i++) {
		CHECK(h->h[i].name + h->h[i].name_len <= (size_t)a);
		CHECK(h->h[i].value + h->h[i].value_len <= (size_t)a);
		CHECK(h->h[i].name_len > 0);
	}
	struct cf_buf out;
	cf_buf_init(&out);
	if (!response) {
		char norm[CF_HOST_MAX + 1];
		bool is_ip;
		struct cf_ip ip;
		CHECK(h->port > 0);
		CHECK(cf_net_host_parse(h->host, strlen(h->host), false, norm, sizeof(norm), &is_ip,
					&ip) == NULL);
		CHECK(!strcmp(norm, h->host) && is_ip == h->host_is_ip);
		if (!h->connect) {
			cf_http_forward_request(buf, h, &out);
			CHECK(!out.oom);
			struct cf_http_scan s = {0};
			int end = cf_http_scan(&s, out.s, out.len);
			/* The rewrite only drops and adds lines: its head may be larger by the Host
			 * and Connection lines. */
			CHECK(end == (int)out.len || (end < 0 && out.len > CF_HTTP_MAX_HEAD - 512));
			CHECK(out.s[strlen(h->method) + 1] == '/');
			CHECK(strstr(out.s, "\r\nHost: ") != NULL);
			CHECK(!has_ci(out.s, out.len, "\nproxy-connection:"));
			CHECK(!has_ci(out.s, out.len, "\nproxy-authorization:"));
			CHECK(!has_ci(out.s, out.len, "\nkeep-alive:"));
			CHECK(out.len >= 21 &&
			      !memcmp(out.s + out.len - 21, "Connection: close\r\n\r\n", 21));
		}
	} else {
		cf_http_forward_response(buf, h, &out);
		CHECK(!out.oom);
		struct cf_http_scan s = {0};
		int end = cf_http_scan(&s, out.s, out.len);
		if (end > 0) {
			struct cf_http_head *h2 = malloc(sizeof(*h2));
			CHECK(cf_http_parse(out.s, (size_t)end, true, h2, &why) == 0);
			CHECK(h2->status == h->status);
			free(h2);
		}
	}
	cf_buf_release(&out);
	free(h);
	return 0;
}
