/* SPDX-License-Identifier: MIT */
/*
 * The first bytes of a connection to a synthetic address (R43): a TLS ClientHello, whose
 * server name (SNI) must be the name the address stands for, a plain HTTP request, whose Host
 * must be, or anything else (ssh, a database protocol), which is passed on.  The ClientHello
 * is read from its records with a length check before every field, fragments of one
 * handshake message joined across records, within CF_TLS_HELLO_MAX bytes.  Pure.
 */
#ifndef CONFINE_NET_TLSHELLO_H
#define CONFINE_NET_TLSHELLO_H

#include <stddef.h>
#include <stdint.h>

#include "util/addr.h"

/* The largest ClientHello read (its handshake body); one with post-quantum key shares is about
 * 2 KiB. */
#define CF_TLS_HELLO_MAX 16384

enum cf_first {
	CF_FIRST_NEED,	/* more bytes are needed to tell */
	CF_FIRST_TLS,	/* a complete ClientHello: *sni is its server name, "" when it sent none */
	CF_FIRST_HTTP,	/* the start of an HTTP/1 request line (a method and a space) */
	CF_FIRST_OTHER, /* neither: passed on as it is */
	CF_FIRST_BAD,	/* a TLS handshake record that is malformed, too large, not a ClientHello,
			 * or whose server name is not a host name: refused */
};

/*
 * Looks at the first n bytes a client sent.  For CF_FIRST_TLS, sni (cap > CF_HOST_MAX) holds
 * the normalised server name; *why (static) says what was wrong for CF_FIRST_BAD.
 */
enum cf_first cf_first_bytes(const uint8_t *b, size_t n, char *sni, size_t cap, const char **why);

#endif
