/* SPDX-License-Identifier: MIT */
/*
 * SSH public keys and signature checks (see agent_keys.h).  Key and signature formats from
 * RFC 4253 6.6, RFC 5656 3 (ECDSA), RFC 8709 (ed25519) and RFC 8332 (RSA with SHA-2).
 */
#include <stdlib.h>
#include <string.h>

#include <nettle/bignum.h>
#include <nettle/ecc-curve.h>
#include <nettle/ecc.h>
#include <nettle/ecdsa.h>
#include <nettle/eddsa.h>
#include <nettle/rsa.h>
#include <nettle/sha2.h>

#include "agent/agent_keys.h"
#include "agent/agent_proto.h"
#include "util/base64.h"

/* RSA moduli below this many bits are refused: a host key that can be factored lets anyone
 * forge a binding. */
#define RSA_MIN_BITS 2048

void cf_ssh_fingerprint(const uint8_t *blob, size_t n, char out[CF_SSH_FP_LEN])
{
	uint8_t md[SHA256_DIGEST_SIZE];
	struct sha256_ctx ctx;
	sha256_init(&ctx);
	sha256_update(&ctx, n, blob);
	sha256_digest(&ctx, sizeof(md), md);
	memcpy(out, "SHA256:", 7);
	cf_base64_encode(md, sizeof(md), false, false, out + 7);
}

bool cf_ssh_fingerprint_syntax(const char *text)
{
	if (strncmp(text, "SHA256:", 7) || strlen(text) != CF_SSH_FP_LEN - 1)
		return false;
	uint8_t md[48];
	char padded[48];
	memcpy(padded, text + 7, 43);
	padded[43] = '=';
	return cf_base64_decode(padded, 44, md) == SHA256_DIGEST_SIZE;
}

void cf_ssh_key_type(const uint8_t *blob, size_t n, char *out, size_t cap)
{
	struct cf_agent_rd r = {blob, n};
	struct cf_agent_str t;
	out[0] = '\0';
	if (!cap || !cf_agent_get_str(&r, &t))
		return;
	size_t k = t.n < cap - 1 ? t.n : cap - 1;
	for (size_t i = 0; i < k; i++) {
		char c = (char)t.p[i];
		/* A record shows it: printable ASCII only. */
		out[i] = c > ' ' && c < 127 ? c : '?';
	}
	out[k] = '\0';
}

const char *cf_ssh_key_line(const char *line, size_t len, uint8_t **blob, size_t *n)
{
	size_t i = 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	size_t t0 = i;
	while (i < len && line[i] != ' ' && line[i] != '\t' && line[i] != '\n')
		i++;
	size_t tn = i - t0;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	size_t b0 = i;
	while (i < len && line[i] != ' ' && line[i] != '\t' && line[i] != '\n' && line[i] != '\r')
		i++;
	size_t bn = i - b0;
	if (!tn || !bn)
		return "not a public key line (expected TYPE BASE64 [COMMENT])";
	if (bn > 64 * 1024)
		return "the key is too long";
	uint8_t *b = malloc(bn / 4 * 3 + 3);
	if (!b)
		return "out of memory";
	long k = cf_base64_decode(line + b0, bn, b);
	struct cf_agent_rd r = {b, k > 0 ? (size_t)k : 0};
	struct cf_agent_str type;
	if (k <= 0 || !cf_agent_get_str(&r, &type) || type.n != tn ||
	    memcmp(type.p, line + t0, tn)) {
		free(b);
		return k <= 0 ? "the key is not base64" : "the key does not name its own type";
	}
	*blob = b;
	*n = (size_t)k;
	return NULL;
}

static bool str_is(struct cf_agent_str s, const char *text)
{
	size_t n = strlen(text);
	return s.n == n && memcmp(s.p, text, n) == 0;
}

/* An mpint of RFC 4251 5 into x: a negative one is refused. */
static bool get_mpint(struct cf_agent_rd *r, mpz_t x)
{
	struct cf_agent_str s;
	if (!cf_agent_get_str(r, &s) || s.n > 2048 || (s.n && (s.p[0] & 0x80)))
		return false;
	nettle_mpz_set_str_256_u(x, s.n, s.p);
	return true;
}

static const char *verify_ed25519(struct cf_agent_rd *key, struct cf_agent_str alg,
				  struct cf_agent_str sig, const uint8_t *data, size_t dn)
{
	struct cf_agent_str pk;
	if (!cf_agent_get_str(key, &pk) || pk.n != ED25519_KEY_SIZE || key->n)
		return "a malformed ed25519 key";
	if (!str_is(alg, "ssh-ed25519") || sig.n != ED25519_SIGNATURE_SIZE)
		return "a signature of another algorithm than the key's";
	return ed25519_sha512_verify(pk.p, dn, data, sig.p) ? NULL : "the signature is not valid";
}

static const char *verify_rsa(struct cf_agent_rd *key, struct cf_agent_str alg,
			      struct cf_agent_str sig, const uint8_t *data, size_t dn)
{
	struct rsa_public_key pub;
	mpz_t s;
	const char *why = NULL;
	rsa_public_key_init(&pub);
	mpz_init(s);
	bool sha512 = str_is(alg, "rsa-sha2-512");
	if (!get_mpint(key, pub.e) || !get_mpint(key, pub.n) || key->n ||
	    !rsa_public_key_prepare(&pub))
		why = "a malformed RSA key";
	else if (mpz_sizeinbase(pub.n, 2) < RSA_MIN_BITS)
		why = "an RSA key of fewer than 2048 bits";
	else if (!sha512 && !str_is(alg, "rsa-sha2-256"))
		why =
		    "an RSA signature that is not rsa-sha2-256 or rsa-sha2-512 (SHA-1 is refused)";
	else if (sig.n == 0 || sig.n > pub.size)
		why = "an RSA signature of the wrong length";
	if (!why) {
		nettle_mpz_set_str_256_u(s, sig.n, sig.p);
		int ok;
		if (sha512) {
			struct sha512_ctx h;
			sha512_init(&h);
			sha512_update(&h, dn, data);
			ok = rsa_sha512_verify(&pub, &h, s);
		} else {
			struct sha256_ctx h;
			sha256_init(&h);
			sha256_update(&h, dn, data);
			ok = rsa_sha256_verify(&pub, &h, s);
		}
		if (!ok)
			why = "the signature is not valid";
	}
	mpz_clear(s);
	rsa_public_key_clear(&pub);
	return why;
}

/* The digest of data for an ECDSA curve of `bits` (RFC 5656 6.2.1). */
static size_t ecdsa_digest(unsigned bits, const uint8_t *data, size_t dn, uint8_t *md)
{
	if (bits == 256) {
		struct sha256_ctx h;
		sha256_init(&h);
		sha256_update(&h, dn, data);
		sha256_digest(&h, SHA256_DIGEST_SIZE, md);
		return SHA256_DIGEST_SIZE;
	}
	if (bits == 384) {
		struct sha384_ctx h;
		sha384_init(&h);
		sha384_update(&h, dn, data);
		sha384_digest(&h, SHA384_DIGEST_SIZE, md);
		return SHA384_DIGEST_SIZE;
	}
	struct sha512_ctx h;
	sha512_init(&h);
	sha512_update(&h, dn, data);
	sha512_digest(&h, SHA512_DIGEST_SIZE, md);
	return SHA512_DIGEST_SIZE;
}

static const char *verify_ecdsa(struct cf_agent_rd *key, struct cf_agent_str type,
				struct cf_agent_str alg, struct cf_agent_str sig,
				const uint8_t *data, size_t dn)
{
	static const struct {
		const char *type, *curve;
		unsigned bits;
		const struct ecc_curve *(*get)(void);
	} curves[] = {
	    {"ecdsa-sha2-nistp256", "nistp256", 256, nettle_get_secp_256r1},
	    {"ecdsa-sha2-nistp384", "nistp384", 384, nettle_get_secp_384r1},
	    {"ecdsa-sha2-nistp521", "nistp521", 521, nettle_get_secp_521r1},
	};
	size_t c = 0;
	while (c < 3 && !str_is(type, curves[c].type))
		c++;
	struct cf_agent_str curve, q;
	if (c == 3 || !cf_agent_get_str(key, &curve) || !str_is(curve, curves[c].curve) ||
	    !cf_agent_get_str(key, &q) || key->n)
		return "a malformed ECDSA key";
	size_t coord = (curves[c].bits + 7) / 8;
	if (q.n != 1 + 2 * coord || q.p[0] != 0x04)
		return "an ECDSA key that is not an uncompressed point";
	if (!str_is(alg, curves[c].type))
		return "a signature of another algorithm than the key's";
	const char *why = NULL;
	struct ecc_point pub;
	struct dsa_signature rs;
	mpz_t x, y;
	mpz_inits(x, y, NULL);
	ecc_point_init(&pub, curves[c].get());
	dsa_signature_init(&rs);
	nettle_mpz_set_str_256_u(x, coord, q.p + 1);
	nettle_mpz_set_str_256_u(y, coord, q.p + 1 + coord);
	struct cf_agent_rd sr = {sig.p, sig.n};
	if (!ecc_point_set(&pub, x, y))
		why = "an ECDSA key that is not on its curve";
	else if (!get_mpint(&sr, rs.r) || !get_mpint(&sr, rs.s) || sr.n)
		why = "a malformed ECDSA signature";
	if (!why) {
		uint8_t md[SHA512_DIGEST_SIZE];
		size_t ml = ecdsa_digest(curves[c].bits, data, dn, md);
		if (!ecdsa_verify(&pub, ml, md, &rs))
			why = "the signature is not valid";
	}
	dsa_signature_clear(&rs);
	ecc_point_clear(&pub);
	mpz_clears(x, y, NULL);
	return why;
}

const char *cf_ssh_verify(const uint8_t *key, size_t kn, const uint8_t *sig, size_t sn,
			  const uint8_t *data, size_t dn)
{
	struct cf_agent_rd k = {key, kn}, s = {sig, sn};
	struct cf_agent_str type, alg, blob;
	if (!cf_agent_get_str(&k, &type))
		return "a malformed key";
	if (!cf_agent_get_str(&s, &alg) || !cf_agent_get_str(&s, &blob) || s.n)
		return "a malformed signature";
	if (str_is(type, "ssh-ed25519"))
		return verify_ed25519(&k, alg, blob, data, dn);
	if (str_is(type, "ssh-rsa"))
		return verify_rsa(&k, alg, blob, data, dn);
	if (type.n > 6 && !memcmp(type.p, "ecdsa-", 6))
		return verify_ecdsa(&k, type, alg, blob, data, dn);
	return "a host key type confine cannot verify (certificates and security keys included)";
}
