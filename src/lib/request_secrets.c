/* SPDX-License-Identifier: MIT */
/* The request's secrets (R44, R45): validated here, before any file system work. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "policy/inject.h"
#include "request.h"
#include "rules/netrules.h"

void cf_secret_req_release(struct cf_secret_req *s)
{
	cf_strv_release(&s->ssh_keys);
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].source);
		cf_strv_release(&s->v[i].hosts);
	}
	free(s->v);
	cf_strv_release(&s->inspect);
	memset(s, 0, sizeof(*s));
}

/* Every setter refuses a NULL request (ABI v1), as request.c's do. */
#define NEED_REQ(r, err)                                                                           \
	do {                                                                                       \
		if (!(r))                                                                          \
			return cf_err(err, CONFINE_E_INVALID, "invalid argument", "request",       \
				      "the request is NULL");                                      \
	} while (0)

#if defined(_WIN32) || defined(__APPLE__)
static int not_here(const char *what, struct confine_error *err)
{
	return cf_err(err, CONFINE_E_INVALID, "not available on this system", what,
		      "the ssh-agent filter and credential placeholders are built for Linux only");
}
#endif

int confine_request_set_ssh_agent(confine_request *req, bool on, struct confine_error *err)
{
	NEED_REQ(req, err);
#if defined(_WIN32) || defined(__APPLE__)
	if (on)
		return not_here("--ssh-agent", err);
#endif
	req->secrets.ssh_agent = on;
	return 0;
}

static bool fingerprint_syntax(const char *k)
{
	/* "SHA256:" and 43 characters of base64 without padding. */
	if (strncmp(k, "SHA256:", 7) || strlen(k) != 50)
		return false;
	for (const char *p = k + 7; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= '0' && *p <= '9') || *p == '+' || *p == '/'))
			return false;
	return true;
}

int confine_request_add_ssh_key(confine_request *req, const char *key, struct confine_error *err)
{
	NEED_REQ(req, err);
#if defined(_WIN32) || defined(__APPLE__)
	return not_here("--ssh-key", err);
#endif
	size_t n = key ? strlen(key) : 0;
	while (n && (key[n - 1] == '\n' || key[n - 1] == '\r'))
		n--;
	if (!n || n > 64 * 1024 || memchr(key, '\n', n))
		return cf_err(err, CONFINE_E_INVALID, "invalid --ssh-key", key ? key : "",
			      "expected one public key line (the content of a .pub file) or a "
			      "fingerprint SHA256:... as ssh-keygen -l prints it");
	if (!strncmp(key, "SHA256:", 7) && !fingerprint_syntax(key)) {
		cf_err(err, CONFINE_E_INVALID, "invalid --ssh-key", key,
		       "not a fingerprint: SHA256: and 43 base64 digits expected");
		cf_err_hint(err, "'ssh-keygen -lf KEY.pub' prints it; or give the .pub file");
		return CONFINE_E_INVALID;
	}
	if (req->secrets.ssh_keys.n >= CF_SECRETS_MAX)
		return cf_err(err, CONFINE_E_LIMIT, "too many keys", "--ssh-key", "at most %d",
			      CF_SECRETS_MAX);
	char *copy = cf_strndup(key, n);
	return copy && cf_strv_take(&req->secrets.ssh_keys, copy) == 0 ? 0 : cf_nomem(err);
}

/* Variables confine itself sets for the command: a secret may not take their place. */
static bool confine_sets(const char *name)
{
	static const char *const own[] = {
	    "HTTP_PROXY",
	    "HTTPS_PROXY",
	    "ALL_PROXY",
	    "NO_PROXY",
	    "SSH_AUTH_SOCK",
	    "SSL_CERT_FILE",
	    "NODE_EXTRA_CA_CERTS",
	    "REQUESTS_CA_BUNDLE",
	    "CURL_CA_BUNDLE",
	    "GIT_SSL_CAINFO",
	    "TMPDIR",
	    "PATH",
	};
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strcasecmp(name, own[i]))
			return true;
	return false;
}

static bool name_syntax(const char *s, size_t n)
{
	if (!n || n > 255 ||
	    !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

/* Each of "HOST[,HOST...]" as a network pattern. */
static int add_hosts(struct cf_strv *out, const char *opt, const char *spec, const char *hosts,
		     struct confine_error *err)
{
	const char *s = hosts;
	for (;;) {
		const char *c = strchr(s, ',');
		size_t n = c ? (size_t)(c - s) : strlen(s);
		struct cf_net_rule q = {0};
		const char *why = n ? cf_net_pattern_parse(s, n, &q) : "an empty host";
		if (why) {
			cf_err(err, CONFINE_E_INVALID, opt, spec, "host '%.*s': %s",
			       (int)(n > 300 ? 300 : n), s, why);
			cf_err_hint(err, "hosts as in --net-allow: api.example.com, "
					 "*.example.com, an address, each with an optional :PORT");
			return CONFINE_E_INVALID;
		}
		if (out->n >= CF_SECRET_HOSTS_MAX)
			return cf_err(err, CONFINE_E_LIMIT, opt, spec, "at most %d hosts",
				      CF_SECRET_HOSTS_MAX);
		char *h = cf_strndup(s, n);
		if (!h || cf_strv_take(out, h) < 0)
			return cf_nomem(err);
		if (!c)
			return 0;
		s = c + 1;
	}
}

static int secret_invalid(const char *spec, const char *why, struct confine_error *err)
{
	cf_err(err, CONFINE_E_INVALID, "invalid --secret", spec, "%s", why);
	cf_err_hint(err, "--secret NAME=SOURCE@HOST[,HOST...], SOURCE a variable of yours or "
			 "file:PATH, for example --secret GH_TOKEN=GH_TOKEN@api.github.com");
	return CONFINE_E_INVALID;
}

int confine_request_add_secret(confine_request *req, const char *spec, struct confine_error *err)
{
	NEED_REQ(req, err);
#if defined(_WIN32) || defined(__APPLE__)
	return not_here("--secret", err);
#endif
	const char *eq = spec ? strchr(spec, '=') : NULL;
	const char *at = spec ? strrchr(spec, '@') : NULL;
	if (!eq || !at || at < eq)
		return secret_invalid(spec ? spec : "", "expected NAME=SOURCE@HOST[,HOST...]", err);
	size_t nl = (size_t)(eq - spec), sl = (size_t)(at - eq - 1);
	if (!name_syntax(spec, nl))
		return secret_invalid(spec, "NAME must be [A-Za-z_][A-Za-z0-9_]*", err);
	char name[256];
	memcpy(name, spec, nl);
	name[nl] = '\0';
	if (cf_inject_name_reserved(name) || confine_sets(name))
		return secret_invalid(spec,
				      "NAME is a loader, interpreter or shell variable, or one "
				      "confine sets for the command itself",
				      err);
	bool file = sl > 5 && !strncmp(eq + 1, "file:", 5);
	if (!sl || (!file && !name_syntax(eq + 1, sl)) || (file && eq[6] != '/'))
		return secret_invalid(spec,
				      "SOURCE must be a variable name of your environment or "
				      "file:/ABSOLUTE/PATH",
				      err);
	for (size_t i = 0; i < req->secrets.n; i++)
		if (!strcmp(req->secrets.v[i].name, name))
			return secret_invalid(spec, "NAME is given twice", err);
	if (req->secrets.n >= CF_SECRETS_MAX)
		return cf_err(err, CONFINE_E_LIMIT, "too many secrets", spec, "at most %d",
			      CF_SECRETS_MAX);
	struct cf_secret_spec s = {0};
	int r = add_hosts(&s.hosts, "invalid --secret", spec, at + 1, err);
	if (r == 0 && (!(s.name = cf_strdup(name)) || !(s.source = cf_strndup(eq + 1, sl))))
		r = cf_nomem(err);
	if (r == 0 && req->secrets.n == req->secrets.cap) {
		size_t cap;
		struct cf_secret_spec *v =
		    cf_grow_array(req->secrets.v, req->secrets.cap, 4, sizeof(*v), &cap);
		if (!v)
			r = cf_nomem(err);
		else {
			req->secrets.v = v;
			req->secrets.cap = cap;
		}
	}
	if (r < 0) {
		free(s.name);
		free(s.source);
		cf_strv_release(&s.hosts);
		return r;
	}
	req->secrets.v[req->secrets.n++] = s;
	return 0;
}

int confine_request_tls_inspect(confine_request *req, const char *hosts, struct confine_error *err)
{
	NEED_REQ(req, err);
#if defined(_WIN32) || defined(__APPLE__)
	return not_here("--tls-inspect", err);
#endif
	if (!hosts || !*hosts)
		return cf_err(err, CONFINE_E_INVALID, "invalid --tls-inspect", "",
			      "expected HOST[,HOST...]");
	/* All the hosts or none: a refusal leaves the request as it was. */
	struct cf_strv *v = &req->secrets.inspect;
	size_t before = v->n;
	int r = add_hosts(v, "invalid --tls-inspect", hosts, hosts, err);
	while (r < 0 && v->n > before)
		free(v->v[--v->n]);
	return r;
}
