/* SPDX-License-Identifier: MIT */
/*
 * SSH public keys for confine's filtering agent (R44): the key a user names (a .pub line or a
 * SHA256 fingerprint), fingerprints for the records, and the check of a session binding's
 * signature: the server's host key signed the session identifier.  The signature algorithms
 * are Nettle's (ed25519, ECDSA on P-256, P-384 and P-521, RSA with SHA-256 and SHA-512);
 * nothing cryptographic is written here.  Pure apart from Nettle.
 */
#ifndef CONFINE_AGENT_KEYS_H
#define CONFINE_AGENT_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "SHA256:" and 43 base64 digits, as ssh-keygen -l prints it. */
#define CF_SSH_FP_LEN 51

/* The fingerprint of a key blob: "SHA256:" + unpadded base64 of its SHA-256. */
void cf_ssh_fingerprint(const uint8_t *blob, size_t n, char out[CF_SSH_FP_LEN]);

/* The key type named at the start of a blob ("ssh-ed25519"), copied into out (cap bytes);
 * "" when the blob does not start with a string. */
void cf_ssh_key_type(const uint8_t *blob, size_t n, char *out, size_t cap);

/*
 * A public key line ("TYPE BASE64 [COMMENT]", as in a .pub file or known_hosts after the
 * host names): the blob is decoded into *blob (malloc'd, *n bytes) and must name TYPE itself.
 * Returns NULL, or the reason it is not a key (static text; *blob untouched).
 */
const char *cf_ssh_key_line(const char *line, size_t len, uint8_t **blob, size_t *n);

/* Whether text is a fingerprint as ssh-keygen -l prints it ("SHA256:" + 43 base64 digits). */
bool cf_ssh_fingerprint_syntax(const char *text);

/*
 * Verifies `sig` (an SSH signature blob: string algorithm, string signature) over data with
 * the public key `key` (an SSH key blob).  Accepted: ssh-ed25519; ecdsa-sha2-nistp256, -384,
 * -521; RSA keys of at least 2048 bits signing with rsa-sha2-256 or rsa-sha2-512 (never SHA-1).
 * Returns NULL when the signature is good, else why not (static text).
 */
const char *cf_ssh_verify(const uint8_t *key, size_t kn, const uint8_t *sig, size_t sn,
			  const uint8_t *data, size_t dn);

#endif
