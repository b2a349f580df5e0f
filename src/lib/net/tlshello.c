/* SPDX-License-Identifier: MIT */
/* The first bytes of a transparent connection (see tlshello.h).  Pure. */
#include <string.h>

#include "net/tlshello.h"

#define TLS_RECORD_MAX 16384 /* a plaintext record's fragment, 2^14 */

static size_t get16(const uint8_t *p)
{
	return (size_t)p[0] << 8 | p[1];
}

static bool upper(uint8_t c)
{
	return c >= 'A' && c <= 'Z';
}

/* An HTTP/1 request starts with a method of capital letters and a space. */
static enum cf_first http_or_other(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (b[i] == ' ' && i > 0)
			return CF_FIRST_HTTP;
		if (!upper(b[i]) || i >= 20)
			return CF_FIRST_OTHER;
	}
	return CF_FIRST_NEED;
}

/* The server_name extension (RFC 6066): one host_name entry at most. */
static enum cf_first server_name(const uint8_t *e, size_t len, char *sni, size_t cap,
				 const char **why)
{
	if (len < 2 || get16(e) != len - 2) {
		*why = "the server_name extension's list has the wrong length";
		return CF_FIRST_BAD;
	}
	bool got = false;
	for (size_t p = 2; p < len;) {
		if (len - p < 3) {
			*why = "a server name entry is cut short";
			return CF_FIRST_BAD;
		}
		uint8_t type = e[p];
		size_t nl = get16(e + p + 1);
		p += 3;
		if (nl > len - p) {
			*why = "a server name runs past its extension";
			return CF_FIRST_BAD;
		}
		if (type == 0) {
			if (got) {
				*why = "the ClientHello names two servers";
				return CF_FIRST_BAD;
			}
			got = true;
			if (cf_host_normalize((const char *)e + p, nl, sni, cap)) {
				*why = "the server name (SNI) is not a host name";
				return CF_FIRST_BAD;
			}
		}
		p += nl;
	}
	return CF_FIRST_TLS;
}

/* The ClientHello's body (RFC 8446 4.1.2; the same fields since TLS 1.0). */
static enum cf_first client_hello(const uint8_t *h, size_t len, char *sni, size_t cap,
				  const char **why)
{
	*why = "the ClientHello is cut short";
	sni[0] = '\0';
	size_t p = 2 + 32; /* legacy_version, random */
	if (len < p + 1 || h[p] > 32 || len - p - 1 < h[p])
		return CF_FIRST_BAD;
	p += 1 + h[p]; /* legacy_session_id */
	if (len - p < 2)
		return CF_FIRST_BAD;
	size_t cs = get16(h + p);
	if (cs < 2 || cs % 2 || len - p - 2 < cs)
		return CF_FIRST_BAD;
	p += 2 + cs;
	if (len - p < 1 || h[p] < 1 || len - p - 1 < h[p])
		return CF_FIRST_BAD;
	p += 1 + h[p]; /* legacy_compression_methods */
	if (p == len)
		return CF_FIRST_TLS; /* no extensions at all: no server name */
	if (len - p < 2 || get16(h + p) != len - p - 2) {
		*why = "the ClientHello's extensions have the wrong length";
		return CF_FIRST_BAD;
	}
	p += 2;
	bool seen = false;
	while (p < len) {
		if (len - p < 4)
			return CF_FIRST_BAD;
		size_t type = get16(h + p), el = get16(h + p + 2);
		p += 4;
		if (el > len - p) {
			*why = "an extension runs past the ClientHello";
			return CF_FIRST_BAD;
		}
		if (type == 0) {
			if (seen) {
				*why = "the ClientHello has two server_name extensions";
				return CF_FIRST_BAD;
			}
			seen = true;
			enum cf_first r = server_name(h + p, el, sni, cap, why);
			if (r != CF_FIRST_TLS)
				return r;
		}
		p += el;
	}
	return CF_FIRST_TLS;
}

enum cf_first cf_first_bytes(const uint8_t *b, size_t n, char *sni, size_t cap, const char **why)
{
	*why = NULL;
	if (n == 0)
		return CF_FIRST_NEED;
	if (b[0] != 0x16)
		return http_or_other(b, n);
	/* The handshake message, joined from the fragments of consecutive records. */
	uint8_t hs[4 + CF_TLS_HELLO_MAX];
	size_t hl = 0, p = 0;
	for (;;) {
		if (n - p < 5)
			return CF_FIRST_NEED;
		size_t rl = get16(b + p + 3);
		if (b[p] != 0x16 || b[p + 1] != 3 || rl == 0 || rl > TLS_RECORD_MAX) {
			*why = "the TLS records do not carry a ClientHello";
			return CF_FIRST_BAD;
		}
		if (rl > sizeof(hs) - hl) {
			*why = "the ClientHello is larger than 16 KiB";
			return CF_FIRST_BAD;
		}
		if (n - p - 5 < rl)
			return CF_FIRST_NEED;
		memcpy(hs + hl, b + p + 5, rl);
		hl += rl;
		p += 5 + rl;
		if (hl < 4)
			continue;
		size_t ml = (size_t)hs[1] << 16 | (size_t)hs[2] << 8 | hs[3];
		if (hs[0] != 1) {
			*why = "the first handshake message is not a ClientHello";
			return CF_FIRST_BAD;
		}
		if (ml > CF_TLS_HELLO_MAX) {
			*why = "the ClientHello is larger than 16 KiB";
			return CF_FIRST_BAD;
		}
		if (hl >= 4 + ml)
			return client_hello(hs + 4, ml, sni, cap, why);
	}
}
