/* SPDX-License-Identifier: MIT */
/*
 * R43, the first bytes of a transparent connection: a TLS ClientHello's server name (whole, in
 * pieces, across records, malformed in each field), an HTTP request's start, anything else.
 */
#include <stdlib.h>
#include <string.h>

#include "net/tlshello.h"
#include "../tap.h"

/* A ClientHello naming `sni` (NULL: no server_name extension), in one record; extra bytes of
 * another extension first when pad > 0.  Returns the length. */
static size_t hello(const char *sni, size_t pad, uint8_t *out)
{
	uint8_t body[4096];
	size_t b = 0;
	body[b++] = 3;
	body[b++] = 3; /* legacy_version */
	memset(body + b, 0x11, 32);
	b += 32;
	body[b++] = 0; /* session id */
	body[b++] = 0;
	body[b++] = 2;
	body[b++] = 0x13;
	body[b++] = 0x01; /* one cipher suite */
	body[b++] = 1;
	body[b++] = 0; /* null compression */
	size_t ext_at = b;
	b += 2;
	if (pad) {
		body[b++] = 0x00;
		body[b++] = 0x15; /* padding */
		body[b++] = (uint8_t)(pad >> 8);
		body[b++] = (uint8_t)pad;
		memset(body + b, 0, pad);
		b += pad;
	}
	if (sni) {
		size_t n = strlen(sni);
		body[b++] = 0;
		body[b++] = 0; /* server_name */
		body[b++] = (uint8_t)((n + 5) >> 8);
		body[b++] = (uint8_t)(n + 5);
		body[b++] = (uint8_t)((n + 3) >> 8);
		body[b++] = (uint8_t)(n + 3);
		body[b++] = 0; /* host_name */
		body[b++] = (uint8_t)(n >> 8);
		body[b++] = (uint8_t)n;
		memcpy(body + b, sni, n);
		b += n;
	}
	body[ext_at] = (uint8_t)((b - ext_at - 2) >> 8);
	body[ext_at + 1] = (uint8_t)(b - ext_at - 2);
	size_t hl = 4 + b;
	out[0] = 0x16;
	out[1] = 3;
	out[2] = 1;
	out[3] = (uint8_t)(hl >> 8);
	out[4] = (uint8_t)hl;
	out[5] = 1; /* ClientHello */
	out[6] = 0;
	out[7] = (uint8_t)(b >> 8);
	out[8] = (uint8_t)b;
	memcpy(out + 9, body, b);
	return 9 + b;
}

static enum cf_first first(const uint8_t *b, size_t n, char *sni)
{
	const char *why;
	return cf_first_bytes(b, n, sni, CF_HOST_MAX + 1, &why);
}

static void test_tls(void)
{
	uint8_t m[8192];
	char sni[CF_HOST_MAX + 1];
	size_t n = hello("API.Example.com", 0, m);
	TAP_INTEQ(first(m, n, sni), CF_FIRST_TLS, "a ClientHello");
	TAP_STREQ(sni, "api.example.com", "its server name, normalised");
	bool same = true;
	for (size_t k = 0; k < n && same; k++)
		same = first(m, k, sni) == CF_FIRST_NEED;
	TAP_OK(same, "every shorter prefix needs more bytes");
	n = hello(NULL, 0, m);
	TAP_OK(first(m, n, sni) == CF_FIRST_TLS && sni[0] == '\0', "without SNI: an empty name");
	n = hello("b.test", 3000, m);
	TAP_OK(first(m, n, sni) == CF_FIRST_TLS && !strcmp(sni, "b.test"),
	       "after a large extension");

	/* The same handshake message split over three records. */
	uint8_t split[8192];
	size_t body = n - 5, at = 0, p = 5;
	size_t cuts[] = {7, 1000, body - 1007};
	for (int i = 0; i < 3; i++) {
		split[at++] = 0x16;
		split[at++] = 3;
		split[at++] = 3;
		split[at++] = (uint8_t)(cuts[i] >> 8);
		split[at++] = (uint8_t)cuts[i];
		memcpy(split + at, m + p, cuts[i]);
		at += cuts[i];
		p += cuts[i];
	}
	TAP_OK(first(split, at, sni) == CF_FIRST_TLS && !strcmp(sni, "b.test"),
	       "a ClientHello in three records");
	TAP_INTEQ(first(split, at - 1, sni), CF_FIRST_NEED, "its last record cut short");

	n = hello("c.test", 0, m);
	uint8_t x[8192];
	memcpy(x, m, n);
	x[5] = 2;
	TAP_INTEQ(first(x, n, sni), CF_FIRST_BAD, "a ServerHello is refused");
	memcpy(x, m, n);
	x[0] = 0x17;
	TAP_INTEQ(first(x, n, sni), CF_FIRST_OTHER, "application data first: not a handshake");
	memcpy(x, m, n);
	x[1] = 2;
	TAP_INTEQ(first(x, n, sni), CF_FIRST_BAD, "an SSL 2 version in the record");
	memcpy(x, m, n);
	x[3] = 0x40;
	x[4] = 0x01;
	TAP_INTEQ(first(x, n, sni), CF_FIRST_BAD, "a record over 2^14 bytes");
	memcpy(x, m, n);
	x[6] = 1; /* the handshake length: 65536+ */
	TAP_INTEQ(first(x, n, sni), CF_FIRST_BAD, "a ClientHello over 16 KiB");
	memcpy(x, m, n);
	x[9 + 34] = 33; /* session id length */
	TAP_INTEQ(first(x, n, sni), CF_FIRST_BAD, "a session id over 32 bytes");
	memcpy(x, m, n);
	x[n - 6 - 5 + 1]++; /* the server name list's length */
	TAP_INTEQ(first(x, n, sni), CF_FIRST_BAD, "a server name list of the wrong length");
	n = hello("c.test", 0, m);
	memcpy(x, m, n);
	x[n - 6 - 1] = 0xff; /* the name's length: past the extension */
	TAP_INTEQ(first(x, n, sni), CF_FIRST_BAD, "a name running past its extension");
	n = hello("1.2.3.4", 0, m);
	TAP_INTEQ(first(m, n, sni), CF_FIRST_BAD, "an address as server name");
	n = hello("a b.test", 0, m);
	TAP_INTEQ(first(m, n, sni), CF_FIRST_BAD, "a space in the server name");
	n = hello("axb.test", 0, m);
	m[n - 7] = 0;
	TAP_INTEQ(first(m, n, sni), CF_FIRST_BAD, "a NUL in the server name");
	/* Two server_name extensions: the second one is what some servers would read. */
	n = hello("good.test", 0, m);
	size_t one = 4 + 5 + 9; /* type, len, list len, name type, name len, "good.test" */
	memcpy(x, m, n);
	memcpy(x + n, m + n - one, one);
	size_t n2 = n + one;
	size_t hl = n2 - 5, bl = n2 - 9;
	x[3] = (uint8_t)(hl >> 8);
	x[4] = (uint8_t)hl;
	x[7] = (uint8_t)(bl >> 8);
	x[8] = (uint8_t)bl;
	size_t ext = 9 + 2 + 32 + 1 + 2 + 2 + 1 + 1, el = n2 - ext - 2;
	x[ext] = (uint8_t)(el >> 8);
	x[ext + 1] = (uint8_t)el;
	TAP_INTEQ(first(x, n2, sni), CF_FIRST_BAD, "two server_name extensions are refused");
}

static void test_other(void)
{
	char sni[CF_HOST_MAX + 1];
	const char *get = "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n";
	TAP_INTEQ(first((const uint8_t *)get, strlen(get), sni), CF_FIRST_HTTP, "an HTTP request");
	TAP_INTEQ(first((const uint8_t *)get, 3, sni), CF_FIRST_NEED, "'GET': more is needed");
	TAP_INTEQ(first((const uint8_t *)"PRI * HTTP/2.0", 14, sni), CF_FIRST_HTTP,
		  "HTTP/2 prior knowledge starts like HTTP/1 (then refused by its parse)");
	TAP_INTEQ(first((const uint8_t *)"SSH-2.0-OpenSSH_9.2\r\n", 21, sni), CF_FIRST_OTHER,
		  "ssh: anything else, passed on");
	TAP_INTEQ(first((const uint8_t *)"get / HTTP/1.1", 14, sni), CF_FIRST_OTHER,
		  "a method in lower case is no HTTP request");
	TAP_INTEQ(first((const uint8_t *)"ABCDEFGHIJKLMNOPQRSTUVWXYZ ", 27, sni), CF_FIRST_OTHER,
		  "a 'method' of 26 letters is not one");
	TAP_INTEQ(first((const uint8_t *)"", 0, sni), CF_FIRST_NEED, "nothing yet");
}

int main(void)
{
	test_tls();
	test_other();
	return tap_done();
}
