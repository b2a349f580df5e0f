/* SPDX-License-Identifier: MIT */
/*
 * Network names and addresses as text (SPEC 12, R31): IP literals parsed and printed without
 * the C library's resolver functions (which accept forms such as "127.1" or "0x7f000001"),
 * address classes the proxy refuses, and domain-name validation.  Pure: no OS headers, so the
 * rule model that uses it compiles on every OS.
 */
#ifndef CONFINE_UTIL_ADDR_H
#define CONFINE_UTIL_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An IPv4 or IPv6 address, network byte order. */
struct cf_ip {
	int family; /* 4 or 6 */
	uint8_t b[16];
};

/* Longest text of an address: an IPv6 address with an embedded IPv4 part. */
#define CF_IP_TEXT 46
/* Longest domain name (RFC 1035: 253 characters without the trailing dot). */
#define CF_HOST_MAX 253

/*
 * Parses an IP literal of exactly n bytes: IPv4 as four decimal parts 0-255 without leading
 * zeros ("127.0.0.1", not "127.1" nor "0177.0.0.1"), IPv6 in RFC 4291 text (with "::" and an
 * embedded IPv4 tail), without brackets and without a zone ("%eth0").  An IPv4-mapped IPv6
 * address (::ffff:a.b.c.d) is returned as the IPv4 address it maps: it reaches the same host.
 * Returns true and fills *out, or false.
 */
bool cf_ip_parse(const char *s, size_t n, struct cf_ip *out);

/* Canonical text (RFC 5952 for IPv6: lower case, longest zero run as "::").  cap >= CF_IP_TEXT. */
void cf_ip_format(const struct cf_ip *ip, char *buf, size_t cap);

bool cf_ip_equal(const struct cf_ip *a, const struct cf_ip *b);

/* Whether ip lies in the network net/bits (same family; bits 0-32 or 0-128). */
bool cf_ip_in_prefix(const struct cf_ip *ip, const struct cf_ip *net, unsigned bits);

/*
 * Parses an address range of exactly n bytes, "ADDRESS/BITS": "10.0.0.0/8", "fd00::/8",
 * "::ffff:10.0.0.0/104" (an IPv4-mapped range is the IPv4 range it maps).  BITS is decimal
 * without leading zeros, 1-32 or 1-128: /0 would match every address, loopback and the cloud
 * metadata address included, and is refused.  The address must be the network itself (no bit
 * set past the prefix), so that what is written is what matches.  Fills *net and *bits.
 * Returns NULL or a static reason.  Pure.
 */
const char *cf_ip_prefix_parse(const char *s, size_t n, struct cf_ip *net, unsigned *bits);

/* The smallest special-purpose range (cf_ip_special) that holds ip: 10.0.0.0/8 for 10.1.2.3,
 * 127.0.0.0/8, fc00::/7...  Returns false for an ordinary address. */
bool cf_ip_special_range(const struct cf_ip *ip, struct cf_ip *net, unsigned *bits);

/*
 * The class of an address the proxy refuses unless a rule names the address (DNS rebinding,
 * the cloud metadata address): "loopback", "private" (RFC 1918), "unique-local" (fc00::/7),
 * "link-local" (169.254/16, fe80::/10, which hold 169.254.169.254), "shared" (CGNAT
 * 100.64/10), "multicast", "unspecified", "broadcast", "reserved" (0/8, 240/4, IETF and
 * benchmarking ranges, documentation ranges, site-local, discard-only), "ipv4-embedded" (IPv4
 * inside NAT64 64:ff9b::/96 or the deprecated ::a.b.c.d when the embedded address is one of
 * those).  NULL for an ordinary public address.  Pure.
 */
const char *cf_ip_special(const struct cf_ip *ip);

/*
 * Validates and normalises a domain name of n bytes: ASCII letters, digits, '-' and '_' in
 * labels of 1-63 characters, no label starting or ending with '-', at most CF_HOST_MAX
 * characters, lower-cased into out (cap > CF_HOST_MAX).  One trailing dot is removed (the
 * same name).  The last label must start with a letter: no top-level domain starts with a
 * digit, and names such as "127.1" or "0x7f000001" are numbers that a resolver would turn
 * into addresses.  Returns NULL, or a static reason for the refusal.
 */
const char *cf_host_normalize(const char *s, size_t n, char *out, size_t cap);

/*
 * A request's host: an IP literal (brackets allowed around IPv6 when `brackets`) or a domain
 * name.  Fills out (normalised text: canonical address without brackets, or the lower-cased
 * name), *is_ip and *ip.  Returns NULL or a static reason.
 */
const char *cf_net_host_parse(const char *s, size_t n, bool brackets, char *out, size_t cap,
			      bool *is_ip, struct cf_ip *ip);

#endif
