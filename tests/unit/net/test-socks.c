/* SPDX-License-Identifier: MIT */
/* The proxy's SOCKS5 parser (SPEC 12, RFC 1928): every step, fed whole and byte by byte. */
#include <string.h>

#include "net/socks.h"
#include "../tap.h"

struct scase {
	const char *name;
	const uint8_t *bytes;
	size_t n;
	enum cf_socks_step want; /* the last step */
	uint8_t code;		 /* reply code of a refused request (0xff: no check) */
	const char *host;
	unsigned port;
};

#define B(...) (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})

static const struct scase cases[] = {
    {"domain", B(5, 1, 0, 5, 1, 0, 3, 6, 'G', 'i', 't', '.', 'i', 'o', 1, 187), CF_SOCKS_READY,
     0xff, "git.io", 443},
    {"two methods", B(5, 2, 2, 0, 5, 1, 0, 1, 127, 0, 0, 5, 0x1f, 0x40), CF_SOCKS_READY, 0xff,
     "127.0.0.5", 8000},
    {"ipv6", B(5, 1, 0, 5, 1, 0, 4, 0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 80),
     CF_SOCKS_READY, 0xff, "2001:db8::1", 80},
    {"ipv4-mapped",
     B(5, 1, 0, 5, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1, 0, 80),
     CF_SOCKS_READY, 0xff, "10.0.0.1", 80},
    {"an IPv6 literal as a name", B(5, 1, 0, 5, 1, 0, 3, 3, ':', ':', '1', 0, 80), CF_SOCKS_READY,
     0xff, "::1", 80},
    {"address as name",
     B(5, 1, 0, 5, 1, 0, 3, 9, '1', '2', '7', '.', '0', '.', '0', '.', '1', 0, 80), CF_SOCKS_READY,
     0xff, "127.0.0.1", 80},
    {"no no-auth method", B(5, 1, 2), CF_SOCKS_REFUSE, 0xff, NULL, 0},
    {"no method at all", B(5, 0), CF_SOCKS_REFUSE, 0xff, NULL, 0},
    {"socks4", B(4, 1, 0, 80, 127, 0, 0, 1, 0), CF_SOCKS_REFUSE, 0xff, NULL, 0},
    {"not socks", B('G', 'E', 'T'), CF_SOCKS_REFUSE, 0xff, NULL, 0},
    {"bind", B(5, 1, 0, 5, 2, 0, 1, 1, 2, 3, 4, 0, 80), CF_SOCKS_REFUSE, 0x07, NULL, 0},
    {"udp associate", B(5, 1, 0, 5, 3, 0, 1, 0, 0, 0, 0, 0, 0), CF_SOCKS_REFUSE, 0x07, NULL, 0},
    {"bad address type", B(5, 1, 0, 5, 1, 0, 9, 0, 0), CF_SOCKS_REFUSE, 0x08, NULL, 0},
    {"bad version in the request", B(5, 1, 0, 4, 1, 0, 1, 1, 2, 3, 4, 0, 80), CF_SOCKS_REFUSE, 0x01,
     NULL, 0},
    {"reserved byte set", B(5, 1, 0, 5, 1, 1, 1, 1, 2, 3, 4, 0, 80), CF_SOCKS_REFUSE, 0x01, NULL,
     0},
    {"port 0", B(5, 1, 0, 5, 1, 0, 3, 1, 'a', 0, 0), CF_SOCKS_REFUSE, 0x01, NULL, 0},
    {"empty name", B(5, 1, 0, 5, 1, 0, 3, 0, 0, 80), CF_SOCKS_REFUSE, 0x04, NULL, 0},
    {"bad name", B(5, 1, 0, 5, 1, 0, 3, 3, 'a', ' ', 'b', 0, 80), CF_SOCKS_REFUSE, 0x04, NULL, 0},
    {"NUL in name", B(5, 1, 0, 5, 1, 0, 3, 3, 'a', 0, 'b', 0, 80), CF_SOCKS_REFUSE, 0x04, NULL, 0},
    {"numeric name", B(5, 1, 0, 5, 1, 0, 3, 5, '1', '2', '7', '.', '1', 0, 80), CF_SOCKS_REFUSE,
     0x04, NULL, 0},
    {"incomplete", B(5, 1, 0, 5, 1, 0, 3, 6, 'g', 'i'), CF_SOCKS_NEED, 0xff, NULL, 0},
};

/* Feeds like the proxy: the stream so far, sending replies as asked. */
static enum cf_socks_step run(const uint8_t *b, size_t n, size_t step, struct cf_socks *s,
			      uint8_t *code)
{
	uint8_t reply[10];
	size_t rl;
	const char *why;
	enum cf_socks_step r = CF_SOCKS_NEED;
	memset(s, 0, sizeof(*s));
	*code = 0xff;
	for (size_t len = step;; len += step) {
		if (len > n)
			len = n;
		do {
			r = cf_socks_feed(s, b, len, reply, &rl, &why);
		} while (r == CF_SOCKS_SEND);
		if (r == CF_SOCKS_REFUSE && rl == 10)
			*code = reply[1];
		if (r != CF_SOCKS_NEED || len == n)
			return r;
	}
}

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct scase *c = &cases[i];
		struct cf_socks s;
		uint8_t code;
		enum cf_socks_step whole = run(c->bytes, c->n, c->n, &s, &code);
		TAP_INTEQ(whole, c->want, "%s: step %d", c->name, c->want);
		if (c->code != 0xff)
			TAP_INTEQ(code, c->code, "%s: reply code 0x%02x", c->name, c->code);
		if (c->host && c->host[0])
			TAP_OK(!strcmp(s.host, c->host) && s.port == c->port && s.offset == c->n,
			       "%s: %s:%u, offset %zu", c->name, s.host, s.port, s.offset);
		uint8_t code1;
		struct cf_socks s1;
		enum cf_socks_step bytewise = run(c->bytes, c->n, 1, &s1, &code1);
		TAP_OK(bytewise == whole && code1 == code && !strcmp(s1.host, s.host),
		       "%s: the same byte by byte", c->name);
	}
	uint8_t reply[10];
	TAP_INTEQ(cf_socks_reply(0, reply), 10, "a reply is 10 bytes");
	TAP_OK(reply[0] == 5 && reply[1] == 0 && reply[3] == 1, "version 5, success, IPv4 bound");
	return tap_done();
}
