/* SPDX-License-Identifier: MIT */
/* IP literals, refused address classes and domain names (see addr.h).  Pure. */
#include <stdio.h>
#include <string.h>

#include "util/addr.h"
#include "util/util.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Four decimal parts, each 0-255 without a leading zero. */
static bool parse_v4(const char *s, size_t n, uint8_t out[4])
{
	size_t i = 0;
	for (int part = 0; part < 4; part++) {
		if (part > 0) {
			if (i >= n || s[i] != '.')
				return false;
			i++;
		}
		size_t start = i;
		unsigned v = 0;
		while (i < n && is_digit(s[i]) && i - start < 3)
			v = v * 10 + (unsigned)(s[i++] - '0');
		size_t len = i - start;
		if (len == 0 || v > 255 || (len > 1 && s[start] == '0'))
			return false;
		out[part] = (uint8_t)v;
	}
	return i == n;
}

static bool parse_v6(const char *s, size_t n, uint8_t out[16])
{
	uint16_t words[8] = {0};
	int nw = 0, gap = -1;
	size_t i = 0;
	if (n < 2)
		return false;
	if (s[0] == ':') {
		if (s[1] != ':')
			return false;
		gap = 0;
		i = 2;
		if (i == n)
			goto done;
	}
	while (i < n) {
		if (nw == 8)
			return false;
		/* An IPv4 tail: the rest holds a '.' before the next ':'. */
		size_t j = i;
		while (j < n && s[j] != ':' && s[j] != '.')
			j++;
		if (j < n && s[j] == '.') {
			uint8_t v4[4];
			if (nw > 6 || !parse_v4(s + i, n - i, v4))
				return false;
			words[nw++] = (uint16_t)(v4[0] << 8 | v4[1]);
			words[nw++] = (uint16_t)(v4[2] << 8 | v4[3]);
			i = n;
			break;
		}
		size_t len = j - i;
		if (len == 0 || len > 4)
			return false;
		unsigned v = 0;
		for (size_t k = i; k < j; k++) {
			int h = cf_hex_value((unsigned char)s[k]);
			if (h < 0)
				return false;
			v = v << 4 | (unsigned)h;
		}
		words[nw++] = (uint16_t)v;
		i = j;
		if (i == n)
			break;
		i++; /* ':' */
		if (i == n)
			return false; /* a trailing single ':' */
		if (s[i] == ':') {
			if (gap >= 0)
				return false; /* a second "::" */
			gap = nw;
			i++;
			if (i == n)
				break;
		}
	}
done:
	if (gap < 0 && nw != 8)
		return false;
	if (gap >= 0 && nw > 7)
		return false;
	uint16_t full[8] = {0};
	if (gap < 0) {
		memcpy(full, words, sizeof(full));
	} else {
		int tail = nw - gap;
		memcpy(full, words, (size_t)gap * sizeof(uint16_t));
		memcpy(full + 8 - tail, words + gap, (size_t)tail * sizeof(uint16_t));
	}
	for (int k = 0; k < 8; k++) {
		out[2 * k] = (uint8_t)(full[k] >> 8);
		out[2 * k + 1] = (uint8_t)full[k];
	}
	return true;
}

static const uint8_t mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

bool cf_ip_parse(const char *s, size_t n, struct cf_ip *out)
{
	memset(out, 0, sizeof(*out));
	if (n == 0 || n >= CF_IP_TEXT)
		return false;
	if (memchr(s, ':', n)) {
		if (!parse_v6(s, n, out->b))
			return false;
		out->family = 6;
		if (!memcmp(out->b, mapped_prefix, sizeof(mapped_prefix))) {
			memmove(out->b, out->b + 12, 4);
			memset(out->b + 4, 0, 12);
			out->family = 4;
		}
		return true;
	}
	if (!parse_v4(s, n, out->b))
		return false;
	out->family = 4;
	return true;
}

void cf_ip_format(const struct cf_ip *ip, char *buf, size_t cap)
{
	if (ip->family == 4) {
		snprintf(buf, cap, "%u.%u.%u.%u", ip->b[0], ip->b[1], ip->b[2], ip->b[3]);
		return;
	}
	unsigned w[8];
	for (int k = 0; k < 8; k++)
		w[k] = (unsigned)ip->b[2 * k] << 8 | ip->b[2 * k + 1];
	/* RFC 5952: the longest run of two or more zero words (the first of equals) is "::". */
	int best = -1, best_len = 0;
	for (int k = 0; k < 8;) {
		if (w[k]) {
			k++;
			continue;
		}
		int start = k;
		while (k < 8 && !w[k])
			k++;
		if (k - start > best_len && k - start >= 2) {
			best = start;
			best_len = k - start;
		}
	}
	size_t len = 0;
	buf[0] = '\0';
	for (int k = 0; k < 8 && len < cap; k++) {
		if (k == best) {
			len += (size_t)snprintf(buf + len, cap - len, "::");
			k += best_len - 1;
			continue;
		}
		bool colon = k > 0 && k != best + best_len;
		len += (size_t)snprintf(buf + len, cap - len, "%s%x", colon ? ":" : "", w[k]);
	}
}

bool cf_ip_equal(const struct cf_ip *a, const struct cf_ip *b)
{
	size_t n = a->family == 4 ? 4 : 16;
	return a->family == b->family && !memcmp(a->b, b->b, n);
}

struct range {
	uint8_t prefix[16];
	int bits;
	const char *class;
};

static bool in_range(const uint8_t *addr, const uint8_t *prefix, int bits)
{
	int whole = bits / 8, rest = bits % 8;
	if (memcmp(addr, prefix, (size_t)whole))
		return false;
	if (!rest)
		return true;
	uint8_t mask = (uint8_t)(0xff << (8 - rest));
	return (addr[whole] & mask) == (prefix[whole] & mask);
}

/* IANA special-purpose registries, plus multicast and the ranges above. */
static const struct range v4_ranges[] = {
    {{0}, 8, "reserved"}, /* "this network"; 0.0.0.0 itself below */
    {{10}, 8, "private"},
    {{100, 64}, 10, "shared"},
    {{127}, 8, "loopback"},
    {{169, 254}, 16, "link-local"},
    {{172, 16}, 12, "private"},
    {{192, 0, 0}, 24, "reserved"},
    {{192, 0, 2}, 24, "reserved"},
    {{192, 88, 99}, 24, "reserved"},
    {{192, 168}, 16, "private"},
    {{198, 18}, 15, "reserved"},
    {{198, 51, 100}, 24, "reserved"},
    {{203, 0, 113}, 24, "reserved"},
    {{224}, 4, "multicast"},
    {{240}, 4, "reserved"},
};

static const struct range v6_ranges[] = {
    {{0x01, 0x00}, 64, "reserved"}, /* discard-only 100::/64 */
    {{0x20, 0x01, 0x0d, 0xb8}, 32, "reserved"},
    {{0xfc}, 7, "unique-local"},
    {{0xfe, 0x80}, 10, "link-local"},
    {{0xfe, 0xc0}, 10, "reserved"}, /* site-local, deprecated */
    {{0xff}, 8, "multicast"},
};

bool cf_ip_in_prefix(const struct cf_ip *ip, const struct cf_ip *net, unsigned bits)
{
	return ip->family == net->family && bits <= (ip->family == 4 ? 32u : 128u) &&
	       in_range(ip->b, net->b, (int)bits);
}

const char *cf_ip_prefix_parse(const char *s, size_t n, struct cf_ip *net, unsigned *bits)
{
	const char *slash = memchr(s, '/', n);
	if (!slash)
		return "not an address range (ADDRESS/BITS)";
	size_t an = (size_t)(slash - s), bn = n - an - 1;
	if (!cf_ip_parse(s, an, net))
		return "the part before '/' is not an IP address";
	unsigned v = 0;
	if (bn == 0 || bn > 3 || (bn > 1 && slash[1] == '0'))
		return "the prefix length after '/' must be a decimal number without leading zeros";
	for (size_t i = 1; i <= bn; i++) {
		if (!is_digit(slash[i]))
			return "the prefix length after '/' must be a decimal number";
		v = v * 10 + (unsigned)(slash[i] - '0');
	}
	/* An IPv4-mapped address (::ffff:a.b.c.d) was returned as IPv4: its prefix counts the
	 * 96 bits of the mapping. */
	if (net->family == 4 && memchr(s, ':', an)) {
		if (v < 96)
			return "an IPv4-mapped range needs a prefix of at least 96 bits";
		v -= 96;
	}
	unsigned max = net->family == 4 ? 32 : 128;
	if (v > max)
		return net->family == 4 ? "an IPv4 prefix is at most 32 bits"
					: "an IPv6 prefix is at most 128 bits";
	if (v == 0)
		return "a /0 range matches every address (loopback and the cloud metadata address "
		       "included); name the networks the command needs";
	struct cf_ip masked = *net;
	for (unsigned k = v; k < max; k++)
		masked.b[k / 8] &= (uint8_t) ~(0x80u >> (k % 8));
	if (!cf_ip_equal(&masked, net))
		return "the address has bits set past the prefix: write the network address "
		       "(10.0.0.0/8, not 10.1.2.3/8)";
	*bits = v;
	return NULL;
}

static const char *v4_special(const uint8_t *b)
{
	static const uint8_t zero[4] = {0}, bcast[4] = {255, 255, 255, 255};
	if (!memcmp(b, zero, 4))
		return "unspecified";
	if (!memcmp(b, bcast, 4))
		return "broadcast";
	for (size_t i = 0; i < sizeof(v4_ranges) / sizeof(v4_ranges[0]); i++)
		if (in_range(b, v4_ranges[i].prefix, v4_ranges[i].bits))
			return v4_ranges[i].class;
	return NULL;
}

const char *cf_ip_special(const struct cf_ip *ip)
{
	if (ip->family == 4)
		return v4_special(ip->b);
	static const uint8_t zero[16] = {0};
	static const uint8_t loop[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	static const uint8_t nat64[12] = {0x00, 0x64, 0xff, 0x9b};
	if (!memcmp(ip->b, zero, 16))
		return "unspecified";
	if (!memcmp(ip->b, loop, 16))
		return "loopback";
	/* An IPv4 address inside an IPv6 one reaches that IPv4 host: through a NAT64 gateway
	 * (64:ff9b::/96), or the deprecated IPv4-compatible form (::a.b.c.d). */
	if (!memcmp(ip->b, nat64, 12) || !memcmp(ip->b, zero, 12))
		return v4_special(ip->b + 12) ? "ipv4-embedded" : NULL;
	for (size_t i = 0; i < sizeof(v6_ranges) / sizeof(v6_ranges[0]); i++)
		if (in_range(ip->b, v6_ranges[i].prefix, v6_ranges[i].bits))
			return v6_ranges[i].class;
	return NULL;
}

bool cf_ip_special_range(const struct cf_ip *ip, struct cf_ip *net, unsigned *bits)
{
	const struct range *v = ip->family == 4 ? v4_ranges : v6_ranges;
	size_t n = ip->family == 4 ? sizeof(v4_ranges) / sizeof(v4_ranges[0])
				   : sizeof(v6_ranges) / sizeof(v6_ranges[0]);
	size_t len = ip->family == 4 ? 4 : 16;
	for (size_t i = 0; i < n; i++) {
		if (!in_range(ip->b, v[i].prefix, v[i].bits))
			continue;
		memset(net, 0, sizeof(*net));
		net->family = ip->family;
		memcpy(net->b, v[i].prefix, len);
		*bits = (unsigned)v[i].bits;
		return true;
	}
	return false;
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

const char *cf_host_normalize(const char *s, size_t n, char *out, size_t cap)
{
	if (n > 0 && s[n - 1] == '.')
		n--;
	if (n == 0)
		return "the name is empty";
	if (n > CF_HOST_MAX)
		return "the name is longer than 253 characters";
	if (cap <= n)
		return "the name is too long";
	size_t label = 0, last_start = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '.') {
			if (label == 0)
				return "the name has an empty label";
			if (s[i - 1] == '-')
				return "a label of the name ends with '-'";
			label = 0;
			last_start = i + 1;
			out[i] = '.';
			continue;
		}
		if (!is_alpha(c) && !is_digit(c) && c != '-' && c != '_')
			return (unsigned char)c >= 0x80 ? "the name is not ASCII (write an "
							  "internationalised name in its "
							  "'xn--' form)"
							: "the name has a character other than "
							  "letters, digits, '-', '_' "
							  "and '.'";
		if (label == 0 && c == '-')
			return "a label of the name starts with '-'";
		if (++label > 63)
			return "a label of the name is longer than 63 characters";
		out[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
	}
	if (label == 0)
		return "the name has an empty label";
	if (s[n - 1] == '-')
		return "a label of the name ends with '-'";
	if (!is_alpha(s[last_start]))
		return "the last label of the name does not start with a letter (not a domain "
		       "name)";
	out[n] = '\0';
	return NULL;
}

const char *cf_net_host_parse(const char *s, size_t n, bool brackets, char *out, size_t cap,
			      bool *is_ip, struct cf_ip *ip)
{
	*is_ip = false;
	memset(ip, 0, sizeof(*ip));
	if (n > 0 && s[0] == '[') {
		if (!brackets)
			return "an IPv6 address here is written without brackets";
		if (n < 3 || s[n - 1] != ']')
			return "an IPv6 address in brackets lacks its ']'";
		s++;
		n -= 2;
		if (!memchr(s, ':', n) || !cf_ip_parse(s, n, ip))
			return "not an IPv6 address inside '[...]'";
		*is_ip = true;
	} else if (memchr(s, ':', n)) {
		if (brackets)
			return "an IPv6 address must be written in brackets ('[::1]')";
		if (!cf_ip_parse(s, n, ip))
			return memchr(s, '%', n) ? "an IPv6 zone ('%...') is not supported"
						 : "not an IP address";
		*is_ip = true;
	} else if (n > 0 && is_digit(s[n - 1]) && cf_ip_parse(s, n, ip)) {
		*is_ip = true;
	}
	if (*is_ip) {
		if (cap < CF_IP_TEXT)
			return "the address is too long";
		cf_ip_format(ip, out, cap);
		return NULL;
	}
	return cf_host_normalize(s, n, out, cap);
}
