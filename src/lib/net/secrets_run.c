/* SPDX-License-Identifier: MIT */
/* The credential placeholders of one run (see secrets_run.h). */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/x509.h>

#include "net/tls.h"
#include "policy/inject.h"
#include "request.h"

#define SECRET_FILE_MAX (64 * 1024)
#define BUNDLE_MAX (7u << 20)

/* The variables of the command's common TLS clients that name a trust bundle. */
static const char *const trust_vars[] = {"SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS",
					 "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO"};
#define N_TRUST (sizeof(trust_vars) / sizeof(trust_vars[0]))
/* Where the bwrap sandbox finds the trust bundle. */
#define TRUST_BUNDLE "/tmp/.confine-trust.pem"

static int refused(const char *subject, const char *hint, struct confine_error *err,
		   const char *fmt, ...) CF_PRINTF(4, 5);
static int refused(const char *subject, const char *hint, struct confine_error *err,
		   const char *fmt, ...)
{
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	cf_err(err, CONFINE_E_INVALID, "credential placeholder refused", subject, "%s", why);
	if (hint)
		cf_err_hint(err, "%s", hint);
	return CONFINE_E_INVALID;
}

static int placeholder(char out[CF_PLACEHOLDER_LEN + 1], struct confine_error *err)
{
	unsigned char b[16];
	size_t got = 0;
	while (got < sizeof(b)) {
		ssize_t k = getrandom(b + got, sizeof(b) - got, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return cf_err_os(err, CONFINE_E_OS, "cannot make a placeholder", "secret",
					 "getrandom", errno);
		got += (size_t)k;
	}
	static const char hex[] = "0123456789abcdef";
	size_t o = strlen(CF_PLACEHOLDER_PREFIX);
	memcpy(out, CF_PLACEHOLDER_PREFIX, o);
	for (size_t i = 0; i < sizeof(b); i++) {
		out[o++] = hex[b[i] >> 4];
		out[o++] = hex[b[i] & 15];
	}
	out[o] = '\0';
	explicit_bzero(b, sizeof(b));
	return 0;
}

/* A file's value (its trailing line end dropped); the file is hidden from the sandbox: read
 * and write denied in the override layer, by its canonical path. */
static int read_source_file(confine_run *run, const char *name, const char *path, char **value,
			    size_t *len, struct confine_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > SECRET_FILE_MAX) {
		int e = fd < 0 ? errno : 0;
		if (fd >= 0)
			close(fd);
		if (e) {
			cf_err_os(err, CONFINE_E_INVALID, "cannot read a secret", path, "open", e);
			cf_err_hint(err, "--secret %s=file:PATH names a file you can read", name);
			return CONFINE_E_INVALID;
		}
		return refused(path, NULL, err, "%s: not a regular file of at most 64 KiB", name);
	}
	char *v = malloc(SECRET_FILE_MAX + 1);
	size_t n = 0;
	while (v && n < SECRET_FILE_MAX) {
		ssize_t k = read(fd, v + n, SECRET_FILE_MAX - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	if (!v)
		return cf_nomem(err);
	while (n && (v[n - 1] == '\n' || v[n - 1] == '\r'))
		n--;
	v[n] = '\0';
	*value = v;
	*len = n;
	char *canon = realpath(path, NULL);
	if (!canon)
		return cf_err_os(err, CONFINE_E_INVALID, "cannot read a secret", path, "realpath",
				 errno);
	struct cf_rule rule = {
	    .pattern = canon,
	    .path = canon,
	    .access = CF_ACC_BOTH,
	    .action = CF_DENY,
	    .layer = CF_LAYER_OVERRIDE,
	    .source = "builtin",
	    .index = (int)run->policy_rules.layers[CF_LAYER_OVERRIDE].n,
	    .prefix_len = strlen(canon),
	};
	int r = cf_ruleset_add(&run->policy_rules.layers[CF_LAYER_OVERRIDE], &rule, err);
	free(canon);
	return r;
}

/* Whether the rules allow the host of q on its port, or (without one) on 443, 80 or a port an
 * allow rule names. */
static bool host_allowed(const confine_run *run, const struct cf_net_rule *q)
{
	const struct cf_ip *ip = q->is_ip ? &q->ip : NULL;
	struct cf_net_decision d;
	if (q->port) {
		cf_net_decide(&run->net, q->host, ip, q->port, &d);
		return d.action == CF_ALLOW;
	}
	uint16_t common[] = {443, 80};
	for (size_t i = 0; i < 2; i++) {
		cf_net_decide(&run->net, q->host, ip, common[i], &d);
		if (d.action == CF_ALLOW)
			return true;
	}
	for (int l = 0; l < CF_LAYER_FALLBACK; l++)
		for (size_t i = 0; i < run->net.layers[l].n; i++) {
			const struct cf_net_rule *r = &run->net.layers[l].v[i];
			if (r->action != CF_ALLOW || !r->port)
				continue;
			cf_net_decide(&run->net, q->host, ip, r->port, &d);
			if (d.action == CF_ALLOW)
				return true;
		}
	return false;
}

/* Each literal host of a secret must be one the network rules allow. */
static int check_hosts(const confine_run *run, const struct cf_secret_spec *sp,
		       struct confine_error *err)
{
	for (size_t i = 0; i < sp->hosts.n; i++) {
		struct cf_net_rule q = {0};
		const char *h = sp->hosts.v[i];
		if (cf_net_pattern_parse(h, strlen(h), &q) || q.subdomains ||
		    (q.is_ip && q.bits != (q.ip.family == 4 ? 32u : 128u)))
			continue;
		if (host_allowed(run, &q))
			continue;
		char hint[400];
		snprintf(hint, sizeof(hint), "allow it: --net-allow %s", h);
		return refused(h, hint, err, "%s: the network rules do not allow this host",
			       sp->name);
	}
	return 0;
}

static int add_secret(confine_run *run, const struct cf_secret_spec *sp, const struct cf_strv *env,
		      struct confine_error *err)
{
	struct cf_run_secrets *rs = &run->secrets;
	char *value = NULL, ph[CF_PLACEHOLDER_LEN + 1];
	size_t len = 0;
	int r = check_hosts(run, sp, err);
	if (r < 0)
		return r;
	if (!strncmp(sp->source, "file:", 5)) {
		r = read_source_file(run, sp->name, sp->source + 5, &value, &len, err);
	} else {
		const char *v = cf_strv_env(env, sp->source);
		if (!v) {
			char hint[300];
			snprintf(hint, sizeof(hint), "set %s in your environment, or use file:PATH",
				 sp->source);
			return refused(sp->source, hint, err, "%s: your variable %s is not set",
				       sp->name, sp->source);
		}
		len = strlen(v);
		if (!(value = cf_strdup(v)))
			return cf_nomem(err);
		if (cf_strv_add(&rs->sources, sp->source) < 0)
			r = cf_nomem(err);
	}
	if (r == 0)
		r = placeholder(ph, err);
	if (r == 0)
		r = cf_secrets_add(&rs->s, sp->name, value, len, ph, &sp->hosts, err);
	if (value) {
		explicit_bzero(value, len);
		free(value);
	}
	for (size_t i = 0; r == 0 && i < sp->hosts.n; i++)
		if (cf_strv_add(&rs->inspect, sp->hosts.v[i]) < 0)
			r = cf_nomem(err);
	return r;
}

/* The trust bundle: the system's roots, then the run's CA. */
static int make_bundle(confine_run *run, const char *roots, struct confine_error *err)
{
	struct cf_run_secrets *rs = &run->secrets;
	const char *ca = cf_tls_ca_pem(rs->tls);
	size_t cal = strlen(ca), n = 0;
	int fd = open(roots, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	size_t size = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
			      (uint64_t)st.st_size <= BUNDLE_MAX
			  ? (size_t)st.st_size
			  : 0;
	rs->bundle = malloc(size + cal + 2);
	while (rs->bundle && fd >= 0 && n < size) {
		ssize_t k = read(fd, rs->bundle + n, size - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	if (fd >= 0)
		close(fd);
	if (!rs->bundle)
		return cf_nomem(err);
	if (n && rs->bundle[n - 1] != '\n')
		rs->bundle[n++] = '\n';
	memcpy(rs->bundle + n, ca, cal);
	rs->bundle_len = n + cal;
	return 0;
}

static int setup_tls(confine_run *run, const confine_request *req, const struct cf_strv *env,
		     struct confine_error *err)
{
	struct cf_run_secrets *rs = &run->secrets;
	const char *file = cf_strv_env(env, "SSL_CERT_FILE");
	const char *dir = cf_strv_env(env, "SSL_CERT_DIR");
	int r = cf_tls_new(&rs->inspect, file, dir, &rs->tls, err);
	if (r == 0)
		r = make_bundle(run, file ? file : X509_get_default_cert_file(), err);
	if (r < 0 || run->backend == CONFINE_BACKEND_LANDLOCK)
		return r;
	for (size_t i = 0; i < req->injects.n; i++) {
		const char *w = req->injects.v[i].where;
		for (size_t k = 0; k < N_TRUST; k++)
			if (!strcmp(w, trust_vars[k]))
				return refused(trust_vars[k], "drop that --inject-env", err,
					       "with TLS inspection confine points %s to its own "
					       "trust bundle",
					       trust_vars[k]);
		if (cf_path_within(w, TRUST_BUNDLE) || cf_path_within(TRUST_BUNDLE, w))
			return refused(w, "inject elsewhere", err,
				       "confine places the trust bundle of TLS inspection at %s",
				       TRUST_BUNDLE);
	}
	/* A fixed-path injection in the sandbox's private /tmp: sealed, read-only, never a file
	 * of the host; the trust variables name it (cf_run_secrets_env). */
	return cf_injects_add(&run->inject_extra, CONFINE_INJECT_PATH, TRUST_BUNDLE,
			      strlen(TRUST_BUNDLE), rs->bundle, rs->bundle_len, err);
}

int cf_run_secrets_prepare(confine_run *run, const confine_request *req, const struct cf_strv *env,
			   struct confine_error *err)
{
	const struct cf_secret_req *q = &req->secrets;
	struct cf_run_secrets *rs = &run->secrets;
	int r;
	cf_secrets_init(&rs->s);
	if (!q->n && !q->inspect.n)
		return 0;
	rs->on = true;
	if (run->policy != CONFINE_POLICY_REQUIRED || run->record.escalated)
		return refused(q->n ? q->v[0].name : q->inspect.v[0],
			       "run with the sandbox (policy required, no escalation)", err,
			       "without the sandbox nothing keeps the command from the real values "
			       "or routes its requests through confine's proxy");
	if (run->net_mode != CONFINE_NET_DOMAINS)
		return refused(
		    q->n ? q->v[0].name : q->inspect.v[0],
		    "allow the hosts the command needs with --net-allow (the secret's "
		    "hosts among them)",
		    err,
		    "placeholders and TLS inspection work in confine's proxy, which runs "
		    "with network rules only");
	for (size_t i = 0; i < q->n; i++)
		if ((r = add_secret(run, &q->v[i], env, err)) < 0)
			return r;
	for (size_t i = 0; i < q->inspect.n; i++)
		if ((r = cf_secrets_inspect_add(&rs->s, q->inspect.v[i], err)) < 0 ||
		    cf_strv_add(&rs->inspect, q->inspect.v[i]) < 0)
			return r < 0 ? r : cf_nomem(err);
	return setup_tls(run, req, env, err);
}

/* Removes every variable named in `names`, and every one whose value holds a real value. */
static int scrub(confine_run *run, struct confine_error *err)
{
	struct cf_run_secrets *rs = &run->secrets;
	struct cf_strv *env = &run->plan.env;
	size_t j = 0;
	int r = 0;
	for (size_t i = 0; i < env->n; i++) {
		const char *kv = env->v[i], *eq = strchr(kv, '=');
		bool drop = false;
		/* A value of fewer than 8 bytes only when it is the whole value: a short one would
		 * match half the environment. */
		for (size_t k = 0; eq && k < rs->s.n && !drop; k++) {
			const struct cf_secret *x = &rs->s.v[k];
			drop = x->value_len >= 8
				   ? memmem(eq + 1, strlen(eq + 1), x->value, x->value_len) != NULL
				   : !strcmp(eq + 1, x->value);
		}
		for (size_t k = 0; eq && k < rs->sources.n && !drop; k++)
			drop = strlen(rs->sources.v[k]) == (size_t)(eq - kv) &&
			       !strncmp(kv, rs->sources.v[k], (size_t)(eq - kv));
		if (!drop) {
			env->v[j++] = env->v[i];
			continue;
		}
		char *name = cf_strndup(kv, eq ? (size_t)(eq - kv) : strlen(kv));
		if (!name || (!cf_strv_contains(&run->plan.env_removed, name) &&
			      cf_strv_add(&run->plan.env_removed, name) < 0))
			r = cf_nomem(err);
		free(name);
		explicit_bzero(env->v[i], strlen(env->v[i]));
		free(env->v[i]);
	}
	env->n = j;
	if (env->v)
		env->v[j] = NULL;
	return r;
}

int cf_run_secrets_env(confine_run *run, struct confine_error *err)
{
	struct cf_run_secrets *rs = &run->secrets;
	if (!rs->on)
		return 0;
	int r = scrub(run, err);
	for (size_t i = 0; r == 0 && i < rs->s.n; i++)
		r = cf_env_put(&run->plan.env, rs->s.v[i].name, rs->s.v[i].placeholder, err);
	if (r < 0 || run->backend == CONFINE_BACKEND_LANDLOCK)
		return r;
	for (size_t k = 0; r == 0 && k < N_TRUST; k++)
		r = cf_env_put(&run->plan.env, trust_vars[k], TRUST_BUNDLE, err);
	return r;
}

int cf_run_secrets_landlock(confine_run *run, struct confine_error *err)
{
	struct cf_run_secrets *rs = &run->secrets;
	if (!rs->on || !rs->bundle || run->backend != CONFINE_BACKEND_LANDLOCK || !run->run_tmp)
		return 0;
	char *path = cf_path_join(run->run_tmp, "confine-trust.pem");
	if (!path)
		return cf_nomem(err);
	int r = 0;
	if (run->run_tmp_made) {
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
		size_t put = 0;
		while (fd >= 0 && put < rs->bundle_len) {
			ssize_t k = write(fd, rs->bundle + put, rs->bundle_len - put);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				break;
			put += (size_t)k;
		}
		if (fd < 0 || put != rs->bundle_len)
			r = cf_err_os(err, CONFINE_E_OS, "cannot write the trust bundle", path,
				      fd < 0 ? "open" : "write", errno);
		if (fd >= 0)
			close(fd);
	}
	for (size_t k = 0; r == 0 && k < N_TRUST; k++)
		r = cf_env_put(&run->plan.env, trust_vars[k], path, err);
	free(path);
	return r;
}

void cf_run_secrets_netrun(confine_run *run, struct cf_secrets **s, struct cf_tls **tls)
{
	*s = run->secrets.on ? &run->secrets.s : NULL;
	*tls = run->secrets.tls;
}

void cf_run_secrets_release(confine_run *run)
{
	struct cf_run_secrets *rs = &run->secrets;
	cf_secrets_release(&rs->s);
	cf_tls_free(rs->tls);
	cf_strv_release(&rs->inspect);
	cf_strv_release(&rs->sources);
	free(rs->bundle);
	memset(rs, 0, sizeof(*rs));
}

size_t confine_run_secret_event_count(const confine_run *run)
{
	return run ? run->secrets.s.n_events : 0;
}

const struct confine_secret_event *confine_run_secret_event(const confine_run *run, size_t i)
{
	return i < confine_run_secret_event_count(run) ? &run->secrets.s.events[i] : NULL;
}

size_t confine_run_secret_events_dropped(const confine_run *run)
{
	return run ? run->secrets.s.dropped : 0;
}
