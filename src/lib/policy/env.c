/* SPDX-License-Identifier: MIT */
/* The command's environment (SPEC 5, R20): the caller's, minus confine's own variables, agent
 * connections and names that look like secrets; --pass-env, --unset-env, --env, --clearenv. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "util/util.h"

#define ENV_MAX_VALUE (64 * 1024)
#define ENV_MAX_SET 256

/* Name parts that mark a secret, matched anywhere in the name, case-insensitively (the
 * patterns *TOKEN*, *SECRET*, ... of SPEC 5). */
static const char *const secret_parts[] = {
    "TOKEN",	  "SECRET",	 "PASSWORD",   "PASSWD",     "API_KEY", "APIKEY",
    "ACCESS_KEY", "PRIVATE_KEY", "CREDENTIAL", "PASSPHRASE", "JWT",
};

/* Name endings that mark a secret (*_KEY, *_PAT, ... of SPEC 5): OPENAI_KEY, GITLAB_PAT,
 * SMTP_PASS, MYSQL_PWD, SENTRY_DSN. */
static const char *const secret_suffixes[] = {"_KEY", "_PAT", "_PASS", "_PWD", "_DSN"};

static const char *const agent_vars[] = {"SSH_AUTH_SOCK", "GPG_AGENT_INFO",
					 "DBUS_SESSION_BUS_ADDRESS"};

static const char *const clear_keep[] = {"PATH", "HOME", "USER", "LOGNAME", "SHELL",
					 "TERM", "LANG", "LC_*", "TZ"};

bool cf_env_name_is_secret(const char *name)
{
	/* Upper-case once, then plain substring tests: this runs for every variable of every
	 * launch. */
	char up[256];
	size_t n = strlen(name);
	if (n >= sizeof(up))
		return true; /* a name this long is not checked piecemeal: removed, fail closed */
	for (size_t i = 0; i < n; i++)
		up[i] = (char)toupper((unsigned char)name[i]);
	up[n] = '\0';
	if (!strncmp(up, "CONFINE_", 8))
		return true;
	for (size_t i = 0; i < sizeof(agent_vars) / sizeof(agent_vars[0]); i++)
		if (!strcmp(name, agent_vars[i]))
			return true;
	for (size_t i = 0; i < sizeof(secret_parts) / sizeof(secret_parts[0]); i++)
		if (strstr(up, secret_parts[i]))
			return true;
	for (size_t i = 0; i < sizeof(secret_suffixes) / sizeof(secret_suffixes[0]); i++) {
		size_t k = strlen(secret_suffixes[i]);
		if (n >= k && !strcmp(up + n - k, secret_suffixes[i]))
			return true;
	}
	/* *AUTH* except names starting with AUTHOR (AUTHOR_NAME is not a secret). */
	return strstr(up, "AUTH") && strncmp(up, "AUTHOR", 6);
}

/* Characters of a token's body: base64url, plus '.' for none of them. */
static bool token_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

static size_t token_run(const char *s)
{
	size_t n = 0;
	while (token_char(s[n]))
		n++;
	return n;
}

/* scheme://user:password@host...: a ':' in the authority before an '@'. */
static bool url_with_password(const char *v)
{
	const char *p = strstr(v, "://");
	if (!p)
		return false;
	for (const char *s = v; s < p; s++)
		if (!(isalnum((unsigned char)*s) || *s == '+' || *s == '-' || *s == '.'))
			return false;
	const char *auth = p + 3;
	size_t end = strcspn(auth, "/?#");
	const char *at = memchr(auth, '@', end);
	return at && memchr(auth, ':', (size_t)(at - auth)) != NULL;
}

/* A JSON Web Token: eyJ (base64url of '{"') then three dot-separated base64url parts, the
 * last possibly empty (unsigned tokens). */
static bool jwt(const char *v)
{
	if (strncmp(v, "eyJ", 3))
		return false;
	size_t a = token_run(v);
	if (a < 10 || v[a] != '.')
		return false;
	size_t b = token_run(v + a + 1);
	return b >= 2 && v[a + 1 + b] == '.';
}

/*
 * Well-known token prefixes (SPEC 5), each followed by at least 16 more token characters so
 * that ordinary words that happen to start alike (an "ASIA" region, "sk-" in a locale) stay.
 */
static const char *const token_prefixes[] = {
    "ghp_",  "gho_",  "ghs_",  "ghu_", "ghr_", "github_pat_", "glpat-", "xoxa-",
    "xoxb-", "xoxp-", "xoxr-", "sk-",  "AKIA", "ASIA",	      "AIza",
};

bool cf_env_value_is_secret(const char *v)
{
	for (size_t i = 0; i < sizeof(token_prefixes) / sizeof(token_prefixes[0]); i++) {
		size_t k = strlen(token_prefixes[i]);
		if (!strncmp(v, token_prefixes[i], k) && token_run(v + k) >= 16)
			return true;
	}
	return url_with_password(v) || jwt(v);
}

static bool valid_name(const char *s, size_t n)
{
	if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

int cf_env_check_assignment(const char *a, struct confine_error *err)
{
	const char *eq = strchr(a, '=');
	if (!eq || !valid_name(a, (size_t)(eq - a)))
		return cf_err(err, CONFINE_E_INVALID, "invalid --env", a,
			      "expected NAME=VALUE with NAME matching [A-Za-z_][A-Za-z0-9_]*");
	if (strlen(eq + 1) > ENV_MAX_VALUE)
		return cf_err(err, CONFINE_E_LIMIT, "invalid --env", a,
			      "the value is longer than 64 KiB");
	return 0;
}

void cf_env_opts_release(struct cf_env_opts *o)
{
	cf_strv_release(&o->pass);
	cf_strv_release(&o->unset);
	cf_strv_release(&o->set);
}

static bool any_match(const struct cf_strv *pats, const char *name)
{
	for (size_t i = 0; i < pats->n; i++)
		if (cf_wildcard_match_ci(pats->v[i], name))
			return true;
	return false;
}

static bool kept_by_clear(const char *name)
{
	for (size_t i = 0; i < sizeof(clear_keep) / sizeof(clear_keep[0]); i++)
		if (cf_wildcard_match(clear_keep[i], name))
			return true;
	return false;
}

int cf_env_build(const char *const *base, size_t n_base, const struct cf_env_opts *o,
		 struct cf_strv *out, struct cf_strv *removed, struct confine_error *err)
{
	if (o->set.n > ENV_MAX_SET)
		return cf_err(err, CONFINE_E_LIMIT, "too many --env", "", "at most %d variables",
			      ENV_MAX_SET);
	for (size_t i = 0; i < n_base; i++) {
		const char *kv = base[i];
		const char *eq = strchr(kv, '=');
		if (!eq || eq == kv)
			continue;
		char *name = cf_strndup(kv, (size_t)(eq - kv));
		if (!name)
			return cf_nomem(err);
		bool drop;
		if (o->clear)
			drop = !kept_by_clear(name) && !any_match(&o->pass, name);
		else
			drop = (cf_env_name_is_secret(name) || cf_env_value_is_secret(eq + 1)) &&
			       !any_match(&o->pass, name);
		if (any_match(&o->unset, name))
			drop = true;
		/* A later --env of the same name replaces it; drop the base copy silently. */
		for (size_t j = 0; j < o->set.n && !drop; j++) {
			const char *s = o->set.v[j];
			size_t nl = strlen(name);
			if (!strncmp(s, name, nl) && s[nl] == '=') {
				free(name);
				name = NULL;
				break;
			}
		}
		if (!name)
			continue;
		if (drop) {
			if (cf_strv_contains(removed, name))
				free(name);
			else if (cf_strv_take(removed, name) < 0)
				return cf_nomem(err);
			continue;
		}
		free(name);
		if (cf_strv_add(out, kv) < 0)
			return cf_nomem(err);
	}
	for (size_t i = 0; i < o->set.n; i++) {
		int r = cf_env_check_assignment(o->set.v[i], err);
		if (r < 0)
			return r;
		if (cf_strv_add(out, o->set.v[i]) < 0)
			return cf_nomem(err);
	}
	return 0;
}
