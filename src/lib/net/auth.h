/* SPDX-License-Identifier: MIT */
/*
 * The proxy's credentials (SPEC 12 on the landlock backend).  There the proxy listens on the
 * host's loopback, where Landlock can limit the command's TCP connects to the proxy's port but
 * not to its address, and where any process of the host can connect: so every request must
 * carry this run's secret, as HTTP Basic proxy credentials (Proxy-Authorization) or as a SOCKS5
 * username and password (RFC 1929).  The user name is fixed; the secret is random per run.
 * Every comparison takes the same time whatever the bytes compared.  Pure.
 */
#ifndef CONFINE_NET_AUTH_H
#define CONFINE_NET_AUTH_H

#include <stdbool.h>
#include <stddef.h>

/* The user name of the proxy URL (http://confine:SECRET@127.0.0.1:PORT). */
#define CF_PROXY_USER "confine"
/* The secret: 32 hex digits (128 bits from getrandom). */
#define CF_PROXY_SECRET_LEN 32

/* Whether a[0..an) equals b[0..bn), in a time that depends only on bn (the expected value's
 * length, which is public), never on where the bytes first differ. */
bool cf_ct_equal(const void *a, size_t an, const void *b, size_t bn);

/* Whether the value of a Proxy-Authorization header (n bytes, as in the request) is "Basic"
 * with the base64 of exactly `userpass` ("confine:SECRET"): the scheme is matched without
 * regard to case, padding may be left out, anything else fails. */
bool cf_proxy_basic_ok(const char *value, size_t n, const char *userpass);

#endif
