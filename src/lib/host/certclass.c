/* SPDX-License-Identifier: MIT */
/* Secrets by content (R40): see certclass.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/certclass.h"
#include "util/base64.h"
#include "util/nofollow.h"
#include "util/util.h"

const char *cf_content_name(enum cf_content c)
{
	switch (c) {
	case CF_CONTENT_CERTS:
		return "certificates";
	case CF_CONTENT_KEY:
		return "private key";
	case CF_CONTENT_UNKNOWN:
		return "unclassified";
	case CF_CONTENT_NONE:
		break;
	}
	return "none";
}

/* ---- DER ------------------------------------------------------------------------------- */

/* One tag-length-value at *at (DER: definite lengths of at most 4 bytes, minimal or not); its
 * tag, and the bounds of its content.  false when it does not fit in [*at, end). */
static bool tlv(const unsigned char **at, const unsigned char *end, unsigned *tag,
		const unsigned char **body, size_t *blen)
{
	const unsigned char *p = *at;
	if (end - p < 2)
		return false;
	*tag = *p++;
	if ((*tag & 0x1f) == 0x1f)
		return false; /* high tag numbers occur in none of the shapes looked for */
	size_t len = *p++;
	if (len & 0x80) {
		size_t n = len & 0x7f;
		if (n == 0 || n > 4 || (size_t)(end - p) < n)
			return false; /* indefinite (BER) or absurd */
		len = 0;
		while (n--)
			len = (len << 8) | *p++;
	}
	if ((size_t)(end - p) < len)
		return false;
	*body = p;
	*blen = len;
	*at = p + len;
	return true;
}

/* An X.509 certificate or CRL at *at: SEQUENCE { SEQUENCE, SEQUENCE, BIT STRING }, nothing
 * more inside.  Advances *at past it. */
static bool cert_shape(const unsigned char **at, const unsigned char *end)
{
	unsigned tag;
	const unsigned char *body;
	size_t len;
	if (!tlv(at, end, &tag, &body, &len) || tag != 0x30)
		return false;
	const unsigned char *p = body, *bend = body + len;
	static const unsigned want[] = {0x30, 0x30, 0x03};
	for (size_t i = 0; i < 3; i++) {
		const unsigned char *b;
		size_t l;
		if (!tlv(&p, bend, &tag, &b, &l) || tag != want[i])
			return false;
	}
	return p == bend;
}

/* DER that begins like a private key or a key store: a SEQUENCE whose first element is an
 * INTEGER (PKCS#1, PKCS#8, SEC 1 EC keys, DSA keys, PKCS#12 all do). */
static bool key_shape(const unsigned char *buf, size_t len)
{
	const unsigned char *at = buf, *end = buf + len, *body;
	unsigned tag;
	size_t blen;
	if (!tlv(&at, end, &tag, &body, &blen) || tag != 0x30)
		return false;
	const unsigned char *p = body;
	return tlv(&p, body + blen, &tag, &body, &blen) && tag == 0x02;
}

/* ---- PEM ------------------------------------------------------------------------------- */

/* A character of the standard base64 alphabet (RFC 4648), padding aside. */
static bool b64_char(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '+' || c == '/';
}

/* Strict base64 of a whole block (its lines joined): groups of four, '=' only at the end, the
 * bits left over zero (util/base64.c, the house's one decoder).  Decodes into out (at least
 * len / 4 * 3 bytes); the decoded length, or -1. */
static long b64_decode(const unsigned char *in, size_t len, unsigned char *out)
{
	if (len == 0 || len % 4)
		return -1;
	return cf_base64_decode((const char *)in, len, out);
}

static bool starts(const unsigned char *l, size_t n, const char *s)
{
	size_t k = strlen(s);
	return n >= k && !memcmp(l, s, k);
}

static bool contains(const unsigned char *l, size_t n, const char *s)
{
	size_t k = strlen(s);
	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(l + i, s, k))
			return true;
	return false;
}

static bool blank(const unsigned char *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (l[i] != ' ' && l[i] != '\t')
			return false;
	return true;
}

/* The lines OpenSSL writes around certificates it exports from a PKCS#12 file. */
static bool attribute_line(const unsigned char *l, size_t n)
{
	if (starts(l, n, "Bag Attributes") || starts(l, n, "<No Attributes>") ||
	    starts(l, n, "subject=") || starts(l, n, "issuer="))
		return true;
	/* "    localKeyID: 01 02", "    friendlyName: name" */
	if (n < 2 || (l[0] != ' ' && l[0] != '\t'))
		return false;
	const unsigned char *c = memchr(l, ':', n);
	if (!c)
		return false;
	for (const unsigned char *p = l; p < c; p++)
		if (!(*p == ' ' || *p == '\t' || (*p >= 'a' && *p <= 'z') ||
		      (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			return false;
	return true;
}

static const char *const cert_labels[] = {"CERTIFICATE", "TRUSTED CERTIFICATE", "X509 CERTIFICATE",
					  "X509 CRL"};

struct pem {
	const char *why;
	unsigned char *b64; /* the current block's base64, joined */
	size_t nb64;
	unsigned char *der;
	const unsigned char *label; /* of the current block, NULL outside one */
	size_t nlabel;
	size_t certs;
};

/* The end of the current block: its base64 must decode to DER of the certificate shape. */
static enum cf_content end_block(struct pem *s)
{
	long n = b64_decode(s->b64, s->nb64, s->der);
	if (n < 0) {
		s->why = "a block whose base64 is malformed";
		return CF_CONTENT_UNKNOWN;
	}
	const unsigned char *at = s->der, *end = s->der + n;
	bool trusted = s->nlabel == 19 && !memcmp(s->label, "TRUSTED CERTIFICATE", 19);
	if (!cert_shape(&at, end)) {
		s->why = key_shape(s->der, (size_t)n) ? "a certificate block that holds a key"
						      : "a certificate block that does not parse";
		return key_shape(s->der, (size_t)n) ? CF_CONTENT_KEY : CF_CONTENT_UNKNOWN;
	}
	unsigned tag;
	const unsigned char *body;
	size_t blen;
	/* OpenSSL's trusted form: the certificate, then its trust settings (one SEQUENCE). */
	if (trusted && at < end && (!tlv(&at, end, &tag, &body, &blen) || tag != 0x30)) {
		s->why = "a trusted certificate block with more than its trust settings";
		return CF_CONTENT_UNKNOWN;
	}
	if (at != end) {
		s->why = "a certificate block with bytes after the certificate";
		return CF_CONTENT_UNKNOWN;
	}
	s->certs++;
	s->label = NULL;
	s->nb64 = 0;
	return CF_CONTENT_NONE;
}

/* A "-----BEGIN X-----" line outside a block. */
static enum cf_content begin_block(struct pem *s, const unsigned char *l, size_t n)
{
	if (n < 16 || !starts(l, n, "-----BEGIN ") || memcmp(l + n - 5, "-----", 5)) {
		s->why = "text outside the PEM blocks";
		return CF_CONTENT_UNKNOWN;
	}
	const unsigned char *label = l + 11;
	size_t nl = n - 16;
	for (size_t i = 0; i < sizeof(cert_labels) / sizeof(cert_labels[0]); i++)
		if (nl == strlen(cert_labels[i]) && !memcmp(label, cert_labels[i], nl)) {
			s->label = label;
			s->nlabel = nl;
			s->nb64 = 0;
			return CF_CONTENT_NONE;
		}
	s->why = "a PEM block other than a certificate";
	return CF_CONTENT_UNKNOWN;
}

/* One line (without its line break) of PEM text. */
static enum cf_content pem_line(struct pem *s, const unsigned char *l, size_t n)
{
	if (n && l[n - 1] == '\r')
		n--;
	if (contains(l, n, "PRIVATE KEY") || starts(l, n, "PuTTY-User-Key-File")) {
		s->why = "a private key";
		return CF_CONTENT_KEY;
	}
	if (!s->label) {
		if (blank(l, n) || (n && l[0] == '#') || attribute_line(l, n))
			return CF_CONTENT_NONE;
		return begin_block(s, l, n);
	}
	if (starts(l, n, "-----END ")) {
		if (n != s->nlabel + 14 || memcmp(l + 9, s->label, s->nlabel) ||
		    memcmp(l + n - 5, "-----", 5)) {
			s->why = "a block that ends with another label";
			return CF_CONTENT_UNKNOWN;
		}
		return end_block(s);
	}
	for (size_t i = 0; i < n; i++) {
		if (!b64_char(l[i]) && l[i] != '=') {
			s->why = "a certificate block with a line that is not base64";
			return CF_CONTENT_UNKNOWN;
		}
		s->b64[s->nb64++] = l[i];
	}
	return CF_CONTENT_NONE;
}

static enum cf_content classify_pem(const unsigned char *buf, size_t len, const char **why)
{
	struct pem s = {.why = "no certificate"};
	enum cf_content c = CF_CONTENT_NONE;
	/* A block's base64 is never longer than the file, and decodes to less. */
	s.b64 = malloc(len + 1);
	s.der = malloc(len / 4 * 3 + 3);
	if (!s.b64 || !s.der) {
		s.why = "out of memory";
		c = CF_CONTENT_UNKNOWN;
	}
	for (size_t at = 0; c == CF_CONTENT_NONE && at < len;) {
		const unsigned char *nl = memchr(buf + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (buf + at)) : len - at;
		for (size_t i = 0; i < n; i++)
			if ((buf[at + i] < 0x20 && buf[at + i] != '\t' && buf[at + i] != '\r') ||
			    buf[at + i] == 0x7f) {
				/* Control bytes: not text (comments may carry UTF-8). */
				s.why = "binary, not a DER certificate";
				c = CF_CONTENT_UNKNOWN;
				break;
			}
		if (c == CF_CONTENT_NONE)
			c = pem_line(&s, buf + at, n);
		at += n + 1;
	}
	if (c == CF_CONTENT_NONE && s.label) {
		s.why = "a block without its end line";
		c = CF_CONTENT_UNKNOWN;
	}
	if (c == CF_CONTENT_NONE)
		c = s.certs ? CF_CONTENT_CERTS : CF_CONTENT_UNKNOWN;
	if (c == CF_CONTENT_CERTS)
		s.why = "certificates only";
	free(s.b64);
	free(s.der);
	if (why)
		*why = s.why;
	return c;
}

enum cf_content cf_cert_classify(const unsigned char *buf, size_t len, const char **why)
{
	const char *w = NULL;
	enum cf_content c;
	if (len == 0) {
		w = "empty";
		c = CF_CONTENT_UNKNOWN;
	} else if (buf[0] == 0x30) {
		/* Binary DER: one certificate filling the file, or nothing public. */
		const unsigned char *at = buf;
		if (cert_shape(&at, buf + len) && at == buf + len) {
			w = "a DER certificate";
			c = CF_CONTENT_CERTS;
		} else if (key_shape(buf, len)) {
			w = "a DER private key or key store";
			c = CF_CONTENT_KEY;
		} else {
			w = "binary, not a DER certificate";
			c = CF_CONTENT_UNKNOWN;
		}
	} else {
		c = classify_pem(buf, len, &w);
	}
	if (why)
		*why = w;
	return c;
}

/* ---- the file --------------------------------------------------------------------------- */

static int64_t ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000LL + t->tv_nsec;
}

static void stamp_of(const struct stat *st, struct cf_cert_stamp *s)
{
	*s = (struct cf_cert_stamp){.dev = (uint64_t)st->st_dev,
				    .ino = (uint64_t)st->st_ino,
				    .size = (uint64_t)st->st_size,
				    .mtime = ns(&st->st_mtim),
				    .ctime = ns(&st->st_ctim)};
}

enum cf_content cf_cert_classify_path(const char *path, struct cf_cert_stamp *stamp,
				      const char **why)
{
	struct cf_cert_stamp local, after;
	struct stat st;
	unsigned char *buf = NULL;
	enum cf_content c = CF_CONTENT_UNKNOWN;
	const char *w = "unreadable";
	if (!stamp)
		stamp = &local;
	memset(stamp, 0, sizeof(*stamp));
	int fd = cf_open_nofollow(AT_FDCWD, path, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0, NULL);
	if (fd < 0) {
		w = errno == ELOOP ? "a symlink on the way" : "unreadable";
		goto out;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		w = "not a regular file";
		goto out;
	}
	stamp_of(&st, stamp);
	if (st.st_size > (off_t)CF_CERT_MAX_BYTES) {
		w = "larger than 4 MiB";
		goto out;
	}
	size_t len = (size_t)st.st_size, got = 0;
	if (!(buf = malloc(len + 1))) {
		w = "out of memory";
		goto out;
	}
	/* One byte more than the size, to see a file that grew. */
	while (got <= len) {
		ssize_t k = read(fd, buf + got, len + 1 - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			w = "unreadable";
			goto out;
		}
		if (k == 0)
			break;
		got += (size_t)k;
	}
	if (fstat(fd, &st) < 0) {
		w = "unreadable";
		goto out;
	}
	stamp_of(&st, &after);
	if (got != len || memcmp(&after, stamp, sizeof(after))) {
		w = "changed while it was read";
		goto out;
	}
	c = cf_cert_classify(buf, len, &w);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	if (why)
		*why = w;
	return c;
}
