/* SPDX-License-Identifier: MIT */
/*
 * TLS interception for credential placeholders (R45), opt-in (--tls-inspect, or a secret's
 * hosts): a certificate authority made for the run, in memory only (its key is never written
 * anywhere, its certificate only into the command's trust bundle), whose name constraints
 * permit only the inspected hosts; a leaf certificate per host, made on demand; the server
 * side of the command's TLS and the client side to the real server, verified against the
 * system's roots.  OpenSSL 3: nothing cryptographic is written here.  Touches the OS (reads
 * the system's roots).
 */
#ifndef CONFINE_NET_TLS_H
#define CONFINE_NET_TLS_H

#include <openssl/ssl.h>

#include "confine.h"
#include "util/util.h"

struct cf_tls;

/*
 * Makes the run's CA: an ECDSA P-256 key and a self-signed certificate valid for a week whose
 * name constraints permit the names (and addresses) of `hosts` (network patterns: "*.x"
 * permits the names below x), and the leaf key.  `roots_file`, `roots_dir`: where the system's
 * roots are (NULL: OpenSSL's defaults), for the upstream verification.
 */
int cf_tls_new(const struct cf_strv *hosts, const char *roots_file, const char *roots_dir,
	       struct cf_tls **out, struct confine_error *err);
void cf_tls_free(struct cf_tls *t);

/* The CA certificate as PEM (owned by t). */
const char *cf_tls_ca_pem(const struct cf_tls *t);

/* The command's side: an SSL in the server role presenting a certificate for host (a name,
 * or an address when is_ip), offering only HTTP/1.1 in ALPN.  NULL on failure. */
SSL *cf_tls_server(struct cf_tls *t, const char *host, bool is_ip);
/* The real server's side: an SSL in the client role for host (SNI for a name), verifying its
 * certificate chain against the system's roots and its name or address.  NULL on failure. */
SSL *cf_tls_client(struct cf_tls *t, const char *host, bool is_ip);

/* Why the last handshake of ssl failed, in words (a verification error by name). */
void cf_tls_why(SSL *ssl, int ret, char *buf, size_t cap);

#endif
