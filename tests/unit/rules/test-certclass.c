/* SPDX-License-Identifier: MIT */
/*
 * R40: secrets by content.  The classifier (host/certclass.c) on certificates, keys in every
 * form and what cannot be classified; the file reader (no symlink, no FIFO, a bound); and the
 * content half of the scan (host/scan_content.c): public matches set apart, their
 * classification cached beside the scan's records and read again once the file changed.  The
 * sample certificate and EC key were made for this test with openssl and protect nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "exec/linux/bwrap/settle.h"
#include "host/certclass.h"
#include "host/scan.h"
#include "host/scan_cache.h"
#include "rules/rules.h"
#include "host/matches.h"
#include "util/util.h"
#include "../tap.h"

#define CERT_B64                                                                                   \
	"MIIBbTCCAROgAwIBAgIUUbZOMzVwv/Y7h4fFcbCNW8LBf6IwCgYIKoZIzj0EAwIw\n"                       \
	"DDEKMAgGA1UEAwwBdDAeFw0yNjEyMDUxNjAyMzNaFw0zNjEyMDIxNjAyMzNaMAwx\n"                       \
	"CjAIBgNVBAMMAXQwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAATgJ9i9jrCwmOBo\n"                       \
	"4Ko4JWBizbQfhDiRqo8Xqi9DTy54APlJBoIlVXYiholB3LQ4RSwLOkLPOPCORkIA\n"                       \
	"YuOzEni4o1MwUTAdBgNVHQ4EFgQU/IoEDMkz260ht7EAM32Dp3wu+YMwHwYDVR0j\n"                       \
	"BBgwFoAU/IoEDMkz260ht7EAM32Dp3wu+YMwDwYDVR0TAQH/BAUwAwEB/zAKBggq\n"                       \
	"hkjOPQQDAgNIADBFAiAdLjFZnwMD/nbqXxDOHouKKhKLR7dicnmwAoCl6pDPFQIh\n"                       \
	"AJIVczcU9CGnOlf/Chz0m8Zu1tQOmV/HKqNqOvGFidcD\n"
#define CERT "-----BEGIN CERTIFICATE-----\n" CERT_B64 "-----END CERTIFICATE-----\n"
/* The EC key's DER, base64: SEQUENCE { INTEGER 1, OCTET STRING, [0], [1] }. */
#define KEY_B64                                                                                    \
	"MHcCAQEEICMm3g4T44OmUDlk95y6NYHpj6ehnkg50bxJI8o5pzSwoAoGCCqGSM49\n"                       \
	"AwEHoUQDQgAE4CfYvY6wsJjgaOCqOCVgYs20H4Q4kaqPF6ovQ08ueAD5SQaCJVV2\n"                       \
	"IoaJQdy0OEUsCzpCzzjwjkZCAGLjsxJ4uA==\n"
#define TRUSTED                                                                                    \
	"-----BEGIN TRUSTED CERTIFICATE-----\n"                                                    \
	"MIIBbTCCAROgAwIBAgIUUbZOMzVwv/Y7h4fFcbCNW8LBf6IwCgYIKoZIzj0EAwIw\n"                       \
	"DDEKMAgGA1UEAwwBdDAeFw0yNjEyMDUxNjAyMzNaFw0zNjEyMDIxNjAyMzNaMAwx\n"                       \
	"CjAIBgNVBAMMAXQwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAATgJ9i9jrCwmOBo\n"                       \
	"4Ko4JWBizbQfhDiRqo8Xqi9DTy54APlJBoIlVXYiholB3LQ4RSwLOkLPOPCORkIA\n"                       \
	"YuOzEni4o1MwUTAdBgNVHQ4EFgQU/IoEDMkz260ht7EAM32Dp3wu+YMwHwYDVR0j\n"                       \
	"BBgwFoAU/IoEDMkz260ht7EAM32Dp3wu+YMwDwYDVR0TAQH/BAUwAwEB/zAKBggq\n"                       \
	"hkjOPQQDAgNIADBFAiAdLjFZnwMD/nbqXxDOHouKKhKLR7dicnmwAoCl6pDPFQIh\n"                       \
	"AJIVczcU9CGnOlf/Chz0m8Zu1tQOmV/HKqNqOvGFidcDMAwwCgYIKwYBBQUHAwE=\n"                       \
	"-----END TRUSTED CERTIFICATE-----\n"

static int b64v(char c)
{
	const char *t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = c ? strchr(t, c) : NULL;
	return p ? (int)(p - t) : -1;
}

/* The DER of a base64 text (line breaks skipped). */
static size_t der_of(const char *b64, unsigned char *out)
{
	size_t n = 0;
	unsigned long acc = 0;
	int bits = 0;
	for (const char *p = b64; *p; p++) {
		int v = b64v(*p);
		if (v < 0)
			continue;
		acc = (acc << 6) | (unsigned long)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (unsigned char)(acc >> bits);
		}
	}
	return n;
}

static enum cf_content of(const char *text, const char **why)
{
	return cf_cert_classify((const unsigned char *)text, strlen(text), why);
}

#define IS(text, want, desc)                                                                       \
	do {                                                                                       \
		const char *w_ = NULL;                                                             \
		enum cf_content c_ = of(text, &w_);                                                \
		TAP_OK(c_ == (want), "%s: %s (%s)", desc, cf_content_name(c_), w_ ? w_ : "");      \
	} while (0)

static void pem_cases(void)
{
	IS(CERT, CF_CONTENT_CERTS, "one PEM certificate");
	IS(CERT CERT CERT, CF_CONTENT_CERTS, "a bundle of three");
	IS("# Issuer: CN=NetLock Arany (Class Gold) F\xc5\x91tan\xc3\xbas\xc3\xadtv\xc3\xa1ny\n"
	   "# Label: \"x\"\n\n" CERT "\n# Serial: 1\n" CERT,
	   CF_CONTENT_CERTS, "a CA bundle with comments (UTF-8) and blank lines, as certifi's");
	IS("Bag Attributes\n    localKeyID: 01 02 03\n    friendlyName: web\n"
	   "subject=CN = t\n\nissuer=CN = t\n\n" CERT,
	   CF_CONTENT_CERTS, "openssl pkcs12 -nokeys output (attribute lines)");
	IS(TRUSTED, CF_CONTENT_CERTS, "a TRUSTED CERTIFICATE with its trust settings");
	{
		char crlf[2048], *o = crlf;
		for (const char *p = CERT; *p; p++) {
			if (*p == '\n')
				*o++ = '\r';
			*o++ = *p;
		}
		*o = '\0';
		IS(crlf, CF_CONTENT_CERTS, "CRLF line ends");
	}
	/* Keys in every form: the labels of PKCS#1, PKCS#8, SEC 1, encrypted, OpenSSH, PGP. */
	IS("-----BEGIN EC PRIVATE KEY-----\n" KEY_B64 "-----END EC PRIVATE KEY-----\n",
	   CF_CONTENT_KEY, "an EC key (SEC 1)");
	IS("-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n", CF_CONTENT_KEY,
	   "a PKCS#1 RSA key");
	IS("-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n", CF_CONTENT_KEY,
	   "a PKCS#8 key");
	IS("-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----\n",
	   CF_CONTENT_KEY, "an encrypted PKCS#8 key");
	IS("-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\n"
	   "MIIB\n-----END RSA PRIVATE KEY-----\n",
	   CF_CONTENT_KEY, "a legacy encrypted PEM key");
	IS("-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbg==\n-----END OPENSSH PRIVATE KEY-----\n",
	   CF_CONTENT_KEY, "an OpenSSH key");
	IS("-----BEGIN DSA PRIVATE KEY-----\nMIIB\n-----END DSA PRIVATE KEY-----\n", CF_CONTENT_KEY,
	   "a DSA key");
	IS("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQ==\n-----END PGP PRIVATE KEY BLOCK-----\n",
	   CF_CONTENT_KEY, "a PGP key block");
	IS("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\n", CF_CONTENT_KEY,
	   "a PuTTY key file");
	IS(CERT "-----BEGIN EC PRIVATE KEY-----\n" KEY_B64 "-----END EC PRIVATE KEY-----\n",
	   CF_CONTENT_KEY, "a certificate followed by its key (a full chain file)");
	IS("# -----BEGIN RSA PRIVATE KEY-----\n" CERT, CF_CONTENT_KEY,
	   "a key mentioned in a comment is not public");
	/* A key under a certificate's label: the structure decides, not the label. */
	IS("-----BEGIN CERTIFICATE-----\n" KEY_B64 "-----END CERTIFICATE-----\n", CF_CONTENT_KEY,
	   "an EC key labelled CERTIFICATE");
	/* What cannot be classified. */
	IS("", CF_CONTENT_UNKNOWN, "empty");
	IS("\n\n# nothing\n", CF_CONTENT_UNKNOWN, "comments only, no certificate");
	IS("-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----\n", CF_CONTENT_UNKNOWN,
	   "a public key (not a certificate: not on the allow-list)");
	IS("-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----\n",
	   CF_CONTENT_UNKNOWN, "a CSR");
	IS(CERT "token = abc123\n", CF_CONTENT_UNKNOWN, "text outside the blocks");
	IS("-----BEGIN CERTIFICATE-----\n" CERT_B64, CF_CONTENT_UNKNOWN, "no end line");
	IS("-----BEGIN CERTIFICATE-----\n" CERT_B64 "-----END X509 CRL-----\n", CF_CONTENT_UNKNOWN,
	   "an end line of another label");
	IS("-----BEGIN CERTIFICATE-----\nMIIB$$$\n-----END CERTIFICATE-----\n", CF_CONTENT_UNKNOWN,
	   "a line that is not base64");
	IS("-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n" CERT_B64
	   "-----END CERTIFICATE-----\n",
	   CF_CONTENT_UNKNOWN, "headers inside a certificate block");
	IS("-----BEGIN CERTIFICATE-----\nMIIBbTCC=AROg\n-----END CERTIFICATE-----\n",
	   CF_CONTENT_UNKNOWN, "padding in the middle");
	IS("-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n", CF_CONTENT_UNKNOWN,
	   "an empty SEQUENCE labelled CERTIFICATE");
	IS("-----BEGIN CERTIFICATE-----\n" CERT_B64 "MAA=\n-----END CERTIFICATE-----\n",
	   CF_CONTENT_UNKNOWN, "bytes after the certificate in its block");
	IS(CERT "\x01\n", CF_CONTENT_UNKNOWN, "a control byte");
}

static void der_cases(void)
{
	unsigned char der[2048], buf[4096];
	size_t n = der_of(CERT_B64, der);
	const char *why = NULL;
	TAP_OK(cf_cert_classify(der, n, &why) == CF_CONTENT_CERTS, "a DER certificate (%s)", why);
	memcpy(buf, der, n);
	buf[n] = 0;
	TAP_OK(cf_cert_classify(buf, n + 1, &why) == CF_CONTENT_UNKNOWN,
	       "a DER certificate with a byte after it (%s)", why);
	TAP_OK(cf_cert_classify(der, n - 1, &why) == CF_CONTENT_UNKNOWN,
	       "a truncated DER certificate (%s)", why);
	size_t k = der_of(KEY_B64, der);
	TAP_OK(cf_cert_classify(der, k, &why) == CF_CONTENT_KEY, "a DER EC key (%s)", why);
	/* PKCS#12 starts with SEQUENCE { INTEGER 3, ... } */
	const unsigned char p12[] = {0x30, 0x06, 0x02, 0x01, 0x03, 0x30, 0x01, 0x00};
	TAP_OK(cf_cert_classify(p12, sizeof(p12), &why) == CF_CONTENT_KEY,
	       "a DER key store (PKCS#12's shape) (%s)", why);
	const unsigned char ber[] = {0x30, 0x80, 0x30, 0x00, 0x00, 0x00};
	TAP_OK(cf_cert_classify(ber, sizeof(ber), &why) == CF_CONTENT_UNKNOWN,
	       "BER with an indefinite length (%s)", why);
	const unsigned char big[] = {0x30, 0x84, 0xff, 0xff, 0xff, 0xff};
	TAP_OK(cf_cert_classify(big, sizeof(big), &why) == CF_CONTENT_UNKNOWN,
	       "a length past the end (%s)", why);
	const unsigned char zip[] = {'P', 'K', 3, 4, 0, 0};
	TAP_OK(cf_cert_classify(zip, sizeof(zip), &why) == CF_CONTENT_UNKNOWN, "other binary (%s)",
	       why);
}

static char dir[] = "/tmp/test-certclass.XXXXXX";

static char *put(const char *name, const char *text)
{
	char *p = cf_path_join(dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		printf("# cannot write %s\n", p);
	if (fd >= 0)
		close(fd);
	return p;
}

static void file_cases(void)
{
	const char *why = NULL;
	struct cf_cert_stamp st;
	char *cert = put("c.pem", CERT);
	enum cf_content c = cf_cert_classify_path(cert, &st, &why);
	struct stat sb;
	stat(cert, &sb);
	TAP_OK(c == CF_CONTENT_CERTS && st.ino == (uint64_t)sb.st_ino &&
		   st.size == (uint64_t)sb.st_size,
	       "a file: classified from the open file, with its identity (%s)", why);
	char *link = cf_path_join(dir, "l.pem");
	int made = symlink(cert, link);
	TAP_OK(made == 0 && cf_cert_classify_path(link, &st, &why) == CF_CONTENT_UNKNOWN &&
		   st.ino == 0,
	       "a symlink is not followed (%s)", why);
	char *sub = cf_path_join(dir, "sub"), *via = cf_path_join(dir, "via/c.pem");
	mkdir(sub, 0755);
	char *ln = cf_path_join(dir, "via");
	made = symlink(dir, ln);
	TAP_OK(made == 0 && cf_cert_classify_path(via, NULL, &why) == CF_CONTENT_UNKNOWN,
	       "nor a symlink on the way (%s)", why);
	char *fifo = cf_path_join(dir, "f.pem");
	mkfifo(fifo, 0644);
	TAP_OK(cf_cert_classify_path(fifo, NULL, &why) == CF_CONTENT_UNKNOWN,
	       "a FIFO does not stall it (%s)", why);
	TAP_OK(cf_cert_classify_path(sub, NULL, &why) == CF_CONTENT_UNKNOWN, "a directory (%s)",
	       why);
	char *big = cf_path_join(dir, "big.pem");
	int fd = open(big, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (ftruncate(fd, CF_CERT_MAX_BYTES + 1) < 0)
			printf("# ftruncate: %s\n", strerror(errno));
		close(fd);
	}
	TAP_OK(cf_cert_classify_path(big, NULL, &why) == CF_CONTENT_UNKNOWN,
	       "larger than the bound: not read (%s)", why);
	free(cert);
	free(link);
	free(sub);
	free(via);
	free(ln);
	free(fifo);
	free(big);
}

/* The scan: public matches set apart, classifications cached, read again after a change. */
static void scan_cases(void)
{
	char *ws = cf_path_join(dir, "ws"), *cache = cf_path_join(dir, "cache");
	mkdir(ws, 0755);
	mkdir(cache, 0700);
	char *bundle = put("ws/bundle.pem", CERT CERT), *key = put("ws/key.pem", CERT);
	char *pattern = cf_path_join(ws, "**/*.pem");
	struct cf_ruleset rules = {0};
	struct cf_rule r = {.pattern = "**/*.pem",
			    .path = pattern,
			    .source = "builtin",
			    .glob = true,
			    .prefix_len = strlen(ws),
			    .fold_case = true,
			    .content = true};
	cf_ruleset_add(&rules, &r, NULL);
	struct cf_scan_budget b = CF_SCAN_BUDGET_DEFAULT;
	struct cf_scan_state s = {0};
	struct cf_matches m = {0};
	int rc = cf_scan_cached(&s, cache, &rules, &b, &m, NULL);
	TAP_OK(rc == 0 && m.n == 0 && m.n_pub == 2 && s.stats.files_classified == 2,
	       "two certificate files: both public, none protected (%zu, %zu public, %zu read)",
	       m.n, m.n_pub, s.stats.files_classified);
	cf_scan_state_save(&s, cache);
	cf_scan_state_release(&s);
	cf_matches_release(&m);
	/* The racy rule: a record of a file changed within 2 s of its read is not trusted.  Wait
	 * until the clock is past that for the files just written. */
	struct stat st;
	stat(key, &st);
	for (;;) {
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		if (now.tv_sec > st.st_ctim.tv_sec + 3)
			break;
		struct timespec d = {0, 100000000};
		nanosleep(&d, NULL);
	}
	rc = cf_scan_cached(&s, cache, &rules, &b, &m, NULL);
	TAP_OK(rc == 0 && m.n_pub == 2 && s.stats.files_classified == 2,
	       "files read within the racy window are read again (%zu read, %zu reused)",
	       s.stats.files_classified, s.stats.files_reused);
	cf_scan_state_save(&s, cache);
	cf_scan_state_release(&s);
	cf_matches_release(&m);
	rc = cf_scan_cached(&s, cache, &rules, &b, &m, NULL);
	TAP_OK(rc == 0 && m.n_pub == 2 && s.stats.files_reused == 2 &&
		   s.stats.files_classified == 0,
	       "a later scan reuses both classifications from the cache file (%zu reused)",
	       s.stats.files_reused);
	/* R34 for R40: the identity and timestamps a public file was classified with are checked
	 * again before the command starts; a write in place (same inode) is a change. */
	struct cf_idents ids = {0};
	TAP_OK(cf_idents_record_public(&m, &ids) == 0 && ids.n == 2 && cf_ident_same(&ids.v[0]) &&
		   cf_ident_same(&ids.v[1]),
	       "the public files are recorded for the check before the command starts");
	int afd = open(bundle, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (afd < 0 || write(afd, "\n", 1) != 1)
		printf("# cannot append\n");
	if (afd >= 0)
		close(afd);
	const struct cf_ident *bi = !strcmp(ids.v[0].path, bundle) ? &ids.v[0] : &ids.v[1];
	TAP_OK(!cf_ident_same(bi), "a write into a public file (same inode) is seen as a change");
	cf_idents_release(&ids);
	cf_scan_state_release(&s);
	cf_matches_release(&m);
	/* A key written into one of them (same inode): read again, protected. */
	int fd = open(key, O_WRONLY | O_TRUNC | O_CLOEXEC);
	const char *k = "-----BEGIN EC PRIVATE KEY-----\n" KEY_B64 "-----END EC PRIVATE KEY-----\n";
	if (fd < 0 || write(fd, k, strlen(k)) < 0)
		printf("# cannot rewrite\n");
	if (fd >= 0)
		close(fd);
	rc = cf_scan_cached(&s, cache, &rules, &b, &m, NULL);
	TAP_OK(rc == 0 && m.n == 1 && m.n_pub == 1 && !strcmp(m.v[0].path, key) &&
		   m.v[0].content == CF_CONTENT_KEY && s.stats.files_classified == 2,
	       "a key written into a public file: read again and protected; the other, "
	       "changed too, read again and still public (%zu read)",
	       s.stats.files_classified);
	cf_scan_state_release(&s);
	cf_matches_release(&m);
	/* A forged cache file is ignored: everything is read again. */
	char *f = NULL;
	char key64[65];
	cf_scan_cache_key(&rules, key64);
	f = cf_asprintf("%s/cert-%.32s", cache, key64);
	fd = open(f, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (pwrite(fd, "x", 1, 200) < 0)
			printf("# pwrite\n");
		close(fd);
	}
	rc = cf_scan_cached(&s, cache, &rules, &b, &m, NULL);
	TAP_OK(rc == 0 && s.stats.files_classified == 2 && s.stats.files_reused == 0,
	       "a corrupt cache file is not used (%zu read)", s.stats.files_classified);
	cf_scan_state_release(&s);
	cf_matches_release(&m);
	cf_ruleset_release(&rules);
	free(f);
	free(pattern);
	free(bundle);
	free(key);
	free(ws);
	free(cache);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	pem_cases();
	der_cases();
	file_cases();
	scan_cases();
	char *cmd = cf_asprintf("rm -rf '%s'", dir);
	if (cmd && system(cmd) != 0)
		printf("# cleanup failed\n");
	free(cmd);
	return tap_done();
}
