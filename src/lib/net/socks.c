/* SPDX-License-Identifier: MIT */
/* SOCKS5 for confine's proxy (see socks.h).  Pure. */
#include <string.h>

#include "net/auth.h"
#include "net/socks.h"

size_t cf_socks_reply(uint8_t code, uint8_t reply[10])
{
	static const uint8_t rest[] = {0x00, 0x01, 0, 0, 0, 0, 0, 0};
	reply[0] = 0x05;
	reply[1] = code;
	memcpy(reply + 2, rest, sizeof(rest));
	return 10;
}

static enum cf_socks_step refuse(uint8_t code, uint8_t reply[10], size_t *reply_len,
				 const char **reason, const char *why)
{
	*reply_len = cf_socks_reply(code, reply);
	*reason = why;
	return CF_SOCKS_REFUSE;
}

static enum cf_socks_step greeting(struct cf_socks *s, const uint8_t *b, size_t len,
				   uint8_t reply[10], size_t *reply_len, const char **reason)
{
	if (len < 1)
		return CF_SOCKS_NEED;
	if (b[0] == 0x04) {
		/* SOCKS4: its own "request rejected" reply, so the client says why. */
		static const uint8_t v4[8] = {0x00, 0x5b};
		memcpy(reply, v4, sizeof(v4));
		*reply_len = sizeof(v4);
		*reason =
		    "SOCKS4 is not supported (use socks5h://, which confine sets in ALL_PROXY)";
		return CF_SOCKS_REFUSE;
	}
	if (b[0] != 0x05) {
		*reply_len = 0;
		*reason = "not a SOCKS5 greeting";
		return CF_SOCKS_REFUSE;
	}
	if (len < 2)
		return CF_SOCKS_NEED;
	size_t n = b[1];
	if (n == 0) {
		*reply_len = 0;
		*reason = "the SOCKS5 greeting offers no method";
		return CF_SOCKS_REFUSE;
	}
	if (len < 2 + n)
		return CF_SOCKS_NEED;
	reply[0] = 0x05;
	reply[1] = 0xff;
	*reply_len = 2;
	s->offset = 2 + n;
	if (s->user) {
		/* Credentials required: username/password only, never "no authentication". */
		if (!memchr(b + 2, 0x02, n)) {
			s->unauthenticated = true;
			*reason =
			    "the SOCKS5 client offers no username/password method: this proxy "
			    "needs the credentials of the proxy URL confine set in ALL_PROXY";
			return CF_SOCKS_REFUSE;
		}
		reply[1] = 0x02;
		s->phase = 3;
		return CF_SOCKS_SEND;
	}
	if (!memchr(b + 2, 0x00, n)) {
		*reason = "the SOCKS5 client does not offer 'no authentication'";
		return CF_SOCKS_REFUSE;
	}
	reply[1] = 0x00;
	s->phase = 1;
	return CF_SOCKS_SEND;
}

static enum cf_socks_step request(struct cf_socks *s, const uint8_t *b, size_t len,
				  uint8_t reply[10], size_t *reply_len, const char **reason)
{
	if (len < 5)
		return CF_SOCKS_NEED;
	if (b[0] != 0x05 || b[2] != 0x00)
		return refuse(CF_SOCKS_FAILURE, reply, reply_len, reason, "not a SOCKS5 request");
	size_t addr_len;
	switch (b[3]) {
	case 0x01:
		addr_len = 4;
		break;
	case 0x03:
		addr_len = 1 + (size_t)b[4];
		break;
	case 0x04:
		addr_len = 16;
		break;
	default:
		return refuse(CF_SOCKS_BAD_ADDRESS, reply, reply_len, reason,
			      "unknown SOCKS5 address type");
	}
	if (len < 4 + addr_len + 2)
		return CF_SOCKS_NEED;
	if (b[1] != 0x01)
		return refuse(CF_SOCKS_BAD_COMMAND, reply, reply_len, reason,
			      "only SOCKS5 CONNECT is supported (not BIND or UDP ASSOCIATE)");
	const uint8_t *a = b + 4;
	s->port = (uint16_t)(b[4 + addr_len] << 8 | b[4 + addr_len + 1]);
	s->offset += 4 + addr_len + 2;
	s->phase = 2;
	if (s->port == 0)
		return refuse(CF_SOCKS_FAILURE, reply, reply_len, reason, "port 0");
	if (b[3] == 0x03) {
		const char *why =
		    addr_len == 1
			? "the name is empty"
			: cf_net_host_parse((const char *)a + 1, addr_len - 1, false, s->host,
					    sizeof(s->host), &s->host_is_ip, &s->ip);
		if (why || memchr(a + 1, '\0', addr_len - 1))
			return refuse(CF_SOCKS_HOST_UNREACHABLE, reply, reply_len, reason,
				      why ? why : "the name has a NUL byte");
		return CF_SOCKS_READY;
	}
	s->host_is_ip = true;
	s->ip.family = b[3] == 0x01 ? 4 : 6;
	memcpy(s->ip.b, a, addr_len);
	/* An IPv4-mapped IPv6 address is the IPv4 host (as cf_ip_parse reads it). */
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	if (s->ip.family == 6 && !memcmp(s->ip.b, mapped, 12)) {
		memmove(s->ip.b, s->ip.b + 12, 4);
		memset(s->ip.b + 4, 0, 12);
		s->ip.family = 4;
	}
	cf_ip_format(&s->ip, s->host, sizeof(s->host));
	return CF_SOCKS_READY;
}

/* RFC 1929: VER 1, ULEN, UNAME, PLEN, PASSWD; the answer VER 1, STATUS (0 success).  A failure
 * closes the connection (the RFC's MUST). */
static enum cf_socks_step userpass(struct cf_socks *s, const uint8_t *b, size_t len,
				   uint8_t reply[10], size_t *reply_len, const char **reason)
{
	if (len < 2)
		return CF_SOCKS_NEED;
	size_t ul = b[1];
	size_t pl = len >= 3 + ul ? b[2 + ul] : 0;
	if (b[0] == 0x01 && (len < 3 + ul || len < 3 + ul + pl))
		return CF_SOCKS_NEED;
	reply[0] = 0x01;
	reply[1] = 0x01;
	*reply_len = 2;
	if (b[0] != 0x01) {
		s->unauthenticated = true;
		*reason = "not a SOCKS5 username/password request (RFC 1929)";
		return CF_SOCKS_REFUSE;
	}
	/* Both compared, whatever the first says (no early exit on the user name). */
	bool u = cf_ct_equal(b + 2, ul, s->user, strlen(s->user));
	bool p = cf_ct_equal(b + 3 + ul, pl, s->pass, strlen(s->pass));
	if (!(u & p)) {
		s->unauthenticated = true;
		*reason = "wrong SOCKS5 credentials: this proxy needs those of the proxy URL "
			  "confine set in ALL_PROXY";
		return CF_SOCKS_REFUSE;
	}
	reply[1] = 0x00;
	s->offset += 3 + ul + pl;
	s->phase = 1;
	return CF_SOCKS_SEND;
}

enum cf_socks_step cf_socks_feed(struct cf_socks *s, const uint8_t *buf, size_t len,
				 uint8_t reply[10], size_t *reply_len, const char **reason)
{
	*reply_len = 0;
	*reason = NULL;
	if (s->phase == 0)
		return greeting(s, buf, len, reply, reply_len, reason);
	if (s->phase == 3)
		return userpass(s, buf + s->offset, len - s->offset, reply, reply_len, reason);
	if (s->phase == 1)
		return request(s, buf + s->offset, len - s->offset, reply, reply_len, reason);
	*reason = "the SOCKS5 request is already complete";
	return CF_SOCKS_REFUSE;
}
