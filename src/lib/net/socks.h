/* SPDX-License-Identifier: MIT */
/*
 * The SOCKS5 side of confine's proxy (SPEC 12, RFC 1928): the greeting (the "no
 * authentication" method, or, where the proxy requires credentials, username/password of RFC
 * 1929 and nothing else), then one CONNECT request to a domain name or an address.  BIND and
 * UDP ASSOCIATE are refused ("command not supported"); SOCKS4 gets its rejection reply.  Pure.
 */
#ifndef CONFINE_NET_SOCKS_H
#define CONFINE_NET_SOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/addr.h"

/* Reply codes (RFC 1928, section 6). */
enum {
	CF_SOCKS_OK = 0x00,
	CF_SOCKS_FAILURE = 0x01,
	CF_SOCKS_NOT_ALLOWED = 0x02,
	CF_SOCKS_NET_UNREACHABLE = 0x03,
	CF_SOCKS_HOST_UNREACHABLE = 0x04,
	CF_SOCKS_REFUSED = 0x05,
	CF_SOCKS_TTL_EXPIRED = 0x06,
	CF_SOCKS_BAD_COMMAND = 0x07,
	CF_SOCKS_BAD_ADDRESS = 0x08,
};

/* What cf_socks_feed asks of the caller. */
enum cf_socks_step {
	CF_SOCKS_NEED = 0,   /* read more */
	CF_SOCKS_SEND = 1,   /* send reply (the method choice), then read more */
	CF_SOCKS_READY = 2,  /* the CONNECT request is complete: decide s->host, s->port */
	CF_SOCKS_REFUSE = 3, /* send reply (possibly empty), then close: *reason says why */
};

struct cf_socks {
	/* Set by the caller before the first byte: the credentials every client must send
	 * (RFC 1929), or NULL for none ("no authentication", the bwrap backend's proxy, which
	 * only the sandbox can reach). */
	const char *user, *pass;
	int phase;	      /* 0 greeting, 1 request, 2 done, 3 username/password */
	size_t offset;	      /* bytes of the stream consumed by the finished phases */
	bool unauthenticated; /* refused for want of the right credentials */
	/* the request */
	char host[CF_HOST_MAX + 1]; /* normalised name or canonical address */
	bool host_is_ip;
	struct cf_ip ip;
	uint16_t port;
};

/*
 * Feeds the bytes received so far (buf holds the stream from its first byte; len grows from
 * call to call).  Fills reply (at most 10 bytes) and *reply_len for SEND and REFUSE.  After
 * READY, s->offset is where the client's data after the request starts.
 */
enum cf_socks_step cf_socks_feed(struct cf_socks *s, const uint8_t *buf, size_t len,
				 uint8_t reply[10], size_t *reply_len, const char **reason);

/* The reply to a CONNECT with `code` (bound address 0.0.0.0:0: the client does not need
 * it); 10 bytes. */
size_t cf_socks_reply(uint8_t code, uint8_t reply[10]);

#endif
