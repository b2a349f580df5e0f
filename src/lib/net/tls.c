/* SPDX-License-Identifier: MIT */
/* TLS interception (see tls.h), with OpenSSL 3's high-level interfaces only. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "net/tls.h"
#include "rules/netrules.h"

#define LEAVES_MAX 256

struct leaf {
	char host[CF_HOST_MAX + 1];
	X509 *cert;
};

struct cf_tls {
	EVP_PKEY *ca_key, *leaf_key;
	X509 *ca;
	char *ca_pem;
	SSL_CTX *server, *client;
	pthread_mutex_t lock;
	struct leaf leaves[LEAVES_MAX];
	size_t n_leaves;
};

static int tls_error(struct confine_error *err, const char *what)
{
	unsigned long e = ERR_get_error();
	char buf[256];
	ERR_error_string_n(e, buf, sizeof(buf));
	ERR_clear_error();
	return cf_err(err, CONFINE_E_OS, "cannot set up TLS inspection", what, "%s", buf);
}

static bool random_serial(X509 *x)
{
	BIGNUM *bn = BN_new();
	bool ok = bn && BN_rand(bn, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) &&
		  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x));
	BN_free(bn);
	return ok;
}

static bool add_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509V3_set_ctx_nodb(&ctx);
	X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
	X509_EXTENSION *e = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	bool ok = e && X509_add_ext(x, e, -1);
	X509_EXTENSION_free(e);
	return ok;
}

/* "critical,permitted;DNS:a,permitted;IP:1.2.3.4/255.255.255.255,..." for the hosts. */
static char *constraints(const struct cf_strv *hosts)
{
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_add(&b, "critical");
	for (size_t i = 0; i < hosts->n; i++) {
		struct cf_net_rule r = {0};
		if (cf_net_pattern_parse(hosts->v[i], strlen(hosts->v[i]), &r))
			continue;
		if (!r.is_ip) {
			cf_buf_addf(&b, ",permitted;DNS:%s%s", r.subdomains ? "." : "", r.host);
			continue;
		}
		/* The address or range, and its mask. */
		char mask[CF_IP_TEXT];
		struct cf_ip m = {.family = r.ip.family};
		for (unsigned k = 0; k < r.bits; k++)
			m.b[k / 8] |= (uint8_t)(0x80 >> (k % 8));
		if (r.ip.family == 4) {
			snprintf(mask, sizeof(mask), "%u.%u.%u.%u", m.b[0], m.b[1], m.b[2], m.b[3]);
		} else {
			/* Full hexadecimal groups: OpenSSL's parser reads them. */
			size_t o = 0;
			for (int k = 0; k < 16; k += 2)
				o += (size_t)snprintf(mask + o, sizeof(mask) - o, "%s%02x%02x",
						      k ? ":" : "", m.b[k], m.b[k + 1]);
		}
		char addr[CF_IP_TEXT];
		cf_ip_format(&r.ip, addr, sizeof(addr));
		cf_buf_addf(&b, ",permitted;IP:%s/%s", addr, mask);
	}
	return cf_buf_take(&b);
}

static int make_ca(struct cf_tls *t, const struct cf_strv *hosts, struct confine_error *err)
{
	char *nc = constraints(hosts);
	X509 *x = X509_new();
	bool ok = nc && x && (t->ca_key = EVP_EC_gen("P-256")) && X509_set_version(x, 2) &&
		  random_serial(x) && X509_gmtime_adj(X509_getm_notBefore(x), -3600) &&
		  X509_gmtime_adj(X509_getm_notAfter(x), 7 * 86400) &&
		  X509_set_pubkey(x, t->ca_key);
	X509_NAME *name = ok ? X509_get_subject_name(x) : NULL;
	ok = ok && name &&
	     X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, (const unsigned char *)"confine",
					-1, -1, 0) &&
	     X509_NAME_add_entry_by_txt(
		 name, "CN", MBSTRING_ASC,
		 (const unsigned char *)"confine's CA of one run (in memory only)", -1, -1, 0) &&
	     X509_set_issuer_name(x, name) &&
	     add_ext(x, x, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") &&
	     add_ext(x, x, NID_key_usage, "critical,keyCertSign,cRLSign") &&
	     add_ext(x, x, NID_subject_key_identifier, "hash") &&
	     (!hosts->n || add_ext(x, x, NID_name_constraints, nc)) &&
	     X509_sign(x, t->ca_key, EVP_sha256());
	free(nc);
	if (!ok) {
		X509_free(x);
		return tls_error(err, "the run's certificate authority");
	}
	t->ca = x;
	BIO *m = BIO_new(BIO_s_mem());
	char *p = NULL;
	long n = m && PEM_write_bio_X509(m, x) ? BIO_get_mem_data(m, &p) : 0;
	t->ca_pem = n > 0 ? cf_strndup(p, (size_t)n) : NULL;
	BIO_free(m);
	return t->ca_pem ? 0 : cf_nomem(err);
}

/* HTTP/1.1 when the client offers it; else no ALPN at all (never h2: the proxy reads
 * HTTP/1.1 requests). */
static int alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
		       const unsigned char *in, unsigned int inlen, void *arg)
{
	(void)ssl;
	(void)arg;
	for (unsigned i = 0; i < inlen;) {
		unsigned l = in[i];
		if (i + 1 + l > inlen)
			break;
		if (l == 8 && !memcmp(in + i + 1, "http/1.1", 8)) {
			*out = in + i + 1;
			*outlen = 8;
			return SSL_TLSEXT_ERR_OK;
		}
		i += 1 + l;
	}
	return SSL_TLSEXT_ERR_NOACK;
}

static int make_contexts(struct cf_tls *t, const char *file, const char *dir,
			 struct confine_error *err)
{
	t->server = SSL_CTX_new(TLS_server_method());
	t->client = SSL_CTX_new(TLS_client_method());
	if (!t->server || !t->client || !SSL_CTX_set_min_proto_version(t->server, TLS1_2_VERSION) ||
	    !SSL_CTX_set_min_proto_version(t->client, TLS1_2_VERSION))
		return tls_error(err, "the TLS contexts");
	SSL_CTX_set_alpn_select_cb(t->server, alpn_select, NULL);
	SSL_CTX_set_mode(t->server,
			 SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	SSL_CTX_set_mode(t->client,
			 SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	/* No session tickets towards the command: nothing of a session outlives its socket. */
	SSL_CTX_set_options(t->server, SSL_OP_NO_TICKET);
	SSL_CTX_set_verify(t->client, SSL_VERIFY_PEER, NULL);
	if (!file)
		file = X509_get_default_cert_file();
	if (!dir)
		dir = X509_get_default_cert_dir();
	int a = SSL_CTX_load_verify_file(t->client, file);
	int b = SSL_CTX_load_verify_dir(t->client, dir);
	ERR_clear_error();
	if (!a && !b) {
		cf_err(err, CONFINE_E_INVALID, "cannot set up TLS inspection", file,
		       "no root certificate could be read (nor from %s)", dir);
		cf_err_hint(err, "install the system's roots (ca-certificates), or point "
				 "SSL_CERT_FILE to a bundle");
		return CONFINE_E_INVALID;
	}
	static const unsigned char alpn[] = "\x08http/1.1";
	SSL_CTX_set_alpn_protos(t->client, alpn, sizeof(alpn) - 1);
	return 0;
}

int cf_tls_new(const struct cf_strv *hosts, const char *roots_file, const char *roots_dir,
	       struct cf_tls **out, struct confine_error *err)
{
	*out = NULL;
	struct cf_tls *t = calloc(1, sizeof(*t));
	if (!t)
		return cf_nomem(err);
	pthread_mutex_init(&t->lock, NULL);
	int r = make_ca(t, hosts, err);
	if (r == 0 && !(t->leaf_key = EVP_EC_gen("P-256")))
		r = tls_error(err, "the leaf key");
	if (r == 0)
		r = make_contexts(t, roots_file, roots_dir, err);
	if (r < 0) {
		cf_tls_free(t);
		return r;
	}
	*out = t;
	return 0;
}

void cf_tls_free(struct cf_tls *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n_leaves; i++)
		X509_free(t->leaves[i].cert);
	SSL_CTX_free(t->server);
	SSL_CTX_free(t->client);
	X509_free(t->ca);
	EVP_PKEY_free(t->ca_key);
	EVP_PKEY_free(t->leaf_key);
	free(t->ca_pem);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

const char *cf_tls_ca_pem(const struct cf_tls *t)
{
	return t->ca_pem;
}

static X509 *make_leaf(struct cf_tls *t, const char *host, bool is_ip)
{
	X509 *x = X509_new();
	char san[CF_HOST_MAX + 8];
	snprintf(san, sizeof(san), "%s:%s", is_ip ? "IP" : "DNS", host);
	bool ok = x && X509_set_version(x, 2) && random_serial(x) &&
		  X509_gmtime_adj(X509_getm_notBefore(x), -3600) &&
		  X509_gmtime_adj(X509_getm_notAfter(x), 6 * 86400) &&
		  X509_set_pubkey(x, t->leaf_key) &&
		  X509_set_issuer_name(x, X509_get_subject_name(t->ca));
	/* The name is in the SAN; a CN (at most 64 characters) only for those who look there. */
	if (ok && strlen(host) <= 64)
		ok = X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
						(const unsigned char *)host, -1, -1, 0);
	ok = ok && add_ext(x, t->ca, NID_basic_constraints, "critical,CA:FALSE") &&
	     add_ext(x, t->ca, NID_key_usage, "critical,digitalSignature") &&
	     add_ext(x, t->ca, NID_ext_key_usage, "serverAuth") &&
	     add_ext(x, t->ca, NID_subject_alt_name, san) &&
	     add_ext(x, t->ca, NID_authority_key_identifier, "keyid:always") &&
	     X509_sign(x, t->ca_key, EVP_sha256());
	if (!ok) {
		X509_free(x);
		ERR_clear_error();
		return NULL;
	}
	return x;
}

/* The leaf of host, made once and kept (the newest LEAVES_MAX). */
static X509 *leaf_of(struct cf_tls *t, const char *host, bool is_ip)
{
	X509 *x = NULL;
	pthread_mutex_lock(&t->lock);
	for (size_t i = 0; i < t->n_leaves && !x; i++)
		if (!strcmp(t->leaves[i].host, host))
			x = t->leaves[i].cert;
	if (!x && (x = make_leaf(t, host, is_ip))) {
		if (t->n_leaves == LEAVES_MAX) {
			X509_free(t->leaves[0].cert);
			memmove(t->leaves, t->leaves + 1, (LEAVES_MAX - 1) * sizeof(t->leaves[0]));
			t->n_leaves--;
		}
		snprintf(t->leaves[t->n_leaves].host, sizeof(t->leaves[0].host), "%s", host);
		t->leaves[t->n_leaves++].cert = x;
	}
	if (x)
		X509_up_ref(x);
	pthread_mutex_unlock(&t->lock);
	return x;
}

SSL *cf_tls_server(struct cf_tls *t, const char *host, bool is_ip)
{
	X509 *x = leaf_of(t, host, is_ip);
	SSL *s = x ? SSL_new(t->server) : NULL;
	if (s && (!SSL_use_certificate(s, x) || !SSL_use_PrivateKey(s, t->leaf_key))) {
		SSL_free(s);
		s = NULL;
	}
	X509_free(x);
	if (s)
		SSL_set_accept_state(s);
	ERR_clear_error();
	return s;
}

SSL *cf_tls_client(struct cf_tls *t, const char *host, bool is_ip)
{
	SSL *s = SSL_new(t->client);
	if (!s)
		return NULL;
	bool ok = is_ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(s), host)
			: SSL_set_tlsext_host_name(s, host) && SSL_set1_host(s, host);
	if (!ok) {
		SSL_free(s);
		ERR_clear_error();
		return NULL;
	}
	SSL_set_connect_state(s);
	return s;
}

void cf_tls_why(SSL *ssl, int ret, char *buf, size_t cap)
{
	long v = SSL_get_verify_result(ssl);
	unsigned long e = ERR_peek_error();
	if (v != X509_V_OK)
		snprintf(buf, cap, "the server's certificate did not verify: %s",
			 X509_verify_cert_error_string(v));
	else if (e)
		snprintf(buf, cap, "the TLS handshake failed: %s", ERR_reason_error_string(e));
	else
		snprintf(buf, cap, "the TLS handshake failed (%d)", SSL_get_error(ssl, ret));
	ERR_clear_error();
}
