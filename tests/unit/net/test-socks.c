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

/* With credentials required (the landlock backend's proxy): RFC 1929 only. */
static enum cf_socks_step run_auth(const uint8_t *b, size_t n, size_t step, struct cf_socks *s,
				   uint8_t *last, size_t *last_len)
{
	uint8_t reply[10];
	size_t rl;
	const char *why;
	enum cf_socks_step r = CF_SOCKS_NEED;
	memset(s, 0, sizeof(*s));
	s->user = "confine";
	s->pass = "s3cret";
	*last_len = 0;
	for (size_t len = step;; len += step) {
		if (len > n)
			len = n;
		for (;;) {
			r = cf_socks_feed(s, b, len, reply, &rl, &why);
			if (rl) {
				memcpy(last, reply, rl);
				*last_len = rl;
			}
			if (r != CF_SOCKS_SEND)
				break;
		}
		if (r != CF_SOCKS_NEED || len == n)
			return r;
	}
}

static const struct acase {
	const char *name;
	const uint8_t *bytes;
	size_t n;
	enum cf_socks_step want;
	uint8_t r0, r1; /* the last reply's first two bytes */
	bool unauth;
} acases[] = {
    {"the right credentials, then CONNECT",
     B(5, 2, 0, 2, 1, 7, 'c', 'o', 'n', 'f', 'i', 'n', 'e', 6, 's', '3', 'c', 'r', 'e', 't', 5, 1,
       0, 3, 1, 'a', 0, 80),
     CF_SOCKS_READY, 1, 0, false},
    {"only 'no authentication' offered", B(5, 1, 0), CF_SOCKS_REFUSE, 5, 0xff, true},
    {"a wrong password",
     B(5, 1, 2, 1, 7, 'c', 'o', 'n', 'f', 'i', 'n', 'e', 6, 's', '3', 'c', 'r', 'e', 'T'),
     CF_SOCKS_REFUSE, 1, 1, true},
    {"a password one byte short",
     B(5, 1, 2, 1, 7, 'c', 'o', 'n', 'f', 'i', 'n', 'e', 5, 's', '3', 'c', 'r', 'e'),
     CF_SOCKS_REFUSE, 1, 1, true},
    {"another user", B(5, 1, 2, 1, 4, 'r', 'o', 'o', 't', 6, 's', '3', 'c', 'r', 'e', 't'),
     CF_SOCKS_REFUSE, 1, 1, true},
    {"an empty user and password", B(5, 1, 2, 1, 0, 0), CF_SOCKS_REFUSE, 1, 1, true},
    {"not RFC 1929 after the method", B(5, 1, 2, 5, 1, 0, 3), CF_SOCKS_REFUSE, 1, 1, true},
    {"incomplete credentials", B(5, 1, 2, 1, 7, 'c', 'o'), CF_SOCKS_NEED, 5, 2, false},
};

static void auth_cases(void)
{
	for (size_t i = 0; i < sizeof(acases) / sizeof(acases[0]); i++) {
		const struct acase *c = &acases[i];
		struct cf_socks s;
		uint8_t last[10];
		size_t ll;
		enum cf_socks_step whole = run_auth(c->bytes, c->n, c->n, &s, last, &ll);
		TAP_OK(whole == c->want && ll >= 2 && last[0] == c->r0 && last[1] == c->r1 &&
			   s.unauthenticated == c->unauth,
		       "credentials required: %s: step %d, reply %u %u", c->name, whole, last[0],
		       last[1]);
		struct cf_socks s1;
		uint8_t last1[10];
		size_t ll1;
		enum cf_socks_step bytewise = run_auth(c->bytes, c->n, 1, &s1, last1, &ll1);
		TAP_OK(bytewise == whole && ll1 == ll && !memcmp(last, last1, ll),
		       "credentials required: %s: the same byte by byte", c->name);
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
	auth_cases();
	uint8_t reply[10];
	TAP_INTEQ(cf_socks_reply(0, reply), 10, "a reply is 10 bytes");
	TAP_OK(reply[0] == 5 && reply[1] == 0 && reply[3] == 1, "version 5, success, IPv4 bound");
	return tap_done();
}
