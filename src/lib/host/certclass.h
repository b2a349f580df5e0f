/* SPDX-License-Identifier: MIT */
/*
 * Secrets by content (R40).  Files named *.pem, *.crt and *.cer are certificates as often as
 * keys: a Python venv's CA bundle (certifi's cacert.pem) is public, and hiding it breaks every
 * HTTPS request in the venv.  So the built-in guards on those names are decided by what the file
 * holds, by an allow-list: a file is public only when everything in it is a certificate (or a
 * revocation list), recognised by structure, not by a label alone; a private key in any form,
 * or anything that cannot be classified within a bounded read (too large, unreadable, binary
 * that does not parse as a certificate, text outside the blocks, another kind of block), stays
 * hidden.
 */
#ifndef CONFINE_HOST_CERTCLASS_H
#define CONFINE_HOST_CERTCLASS_H

#include <stddef.h>
#include <stdint.h>

#include "host/facts.h"

/* At most this much of a file is read; a larger one is not classified (hidden). */
#define CF_CERT_MAX_BYTES (4u << 20)

/*
 * Classifies `len` bytes:
 *  - PEM text: blocks labelled CERTIFICATE, TRUSTED CERTIFICATE, X509 CERTIFICATE or X509 CRL
 *    whose base64 decodes (strictly) to DER of the shape SEQUENCE { SEQUENCE, SEQUENCE,
 *    BIT STRING } (an X.509 certificate or CRL; a TRUSTED CERTIFICATE may be followed by one
 *    more SEQUENCE, OpenSSL's trust settings), between them only blank lines, '#' comment
 *    lines (CA bundles such as certifi's) and the attribute lines `openssl pkcs12` writes
 *    ("Bag Attributes", "subject=", "issuer=", indented "name: value"): CF_CONTENT_CERTS;
 *  - DER: one certificate of that shape filling the file exactly: CF_CONTENT_CERTS;
 *  - any mention of "PRIVATE KEY" (the PEM labels of PKCS#1, PKCS#8, EC, DSA, encrypted and
 *    OpenSSH keys, PGP key blocks, a key commented out), a PuTTY key file, or DER that starts
 *    like a key or a key store (a SEQUENCE whose first element is an INTEGER):
 *    CF_CONTENT_KEY;
 *  - anything else (empty, another block label, text outside the blocks, malformed base64 or
 *    DER, an unterminated block): CF_CONTENT_UNKNOWN.
 * *why (may be NULL) gets a short static reason.  Pure.
 */
enum cf_content cf_cert_classify(const unsigned char *buf, size_t len, const char **why);

/* What a file's classification was made from: its identity and timestamps, read from the open
 * file before and after its bytes were read. */
struct cf_cert_stamp {
	uint64_t dev, ino, size;
	int64_t mtime, ctime; /* nanoseconds */
};

/*
 * Opens `path` without following a symlink anywhere (openat2 RESOLVE_NO_SYMLINKS, O_NOFOLLOW,
 * O_NONBLOCK so that a FIFO cannot stall it), and classifies what it reads from that open
 * file: a regular file of at most CF_CERT_MAX_BYTES whose identity and timestamps did not
 * change while it was read (checked on the descriptor).  Anything else is CF_CONTENT_UNKNOWN
 * with the reason (unreadable, not a regular file, too large, changed while read).  *stamp (may
 * be NULL) gets the identity the decision was made on (zero when the file could not be
 * opened).  Touches the OS.
 */
enum cf_content cf_cert_classify_path(const char *path, struct cf_cert_stamp *stamp,
				      const char **why);

/* A short name: "certificates", "private key", "unclassified". */
const char *cf_content_name(enum cf_content c);

#endif
