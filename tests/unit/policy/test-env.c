/* SPDX-License-Identifier: MIT */
/*
 * The command's environment (SPEC 5, R20): which names look secret, and what cf_env_build makes
 * of a caller's environment under --pass-env, --unset-env, --clearenv and --env.  Table-driven.
 */
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "request.h"
#include "util/util.h"
#include "../tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct name_case {
	const char *name;
	bool secret;
	const char *why;
};

static const struct name_case name_cases[] = {
    {"GITHUB_TOKEN", true, "*TOKEN*"},
    {"token", true, "*TOKEN* lower case"},
    {"MyTokenFile", true, "*TOKEN* mixed case, in the middle"},
    {"CLIENT_SECRET", true, "*SECRET*"},
    {"secret_key_base", true, "*SECRET* lower case"},
    {"DB_PASSWORD", true, "*PASSWORD*"},
    {"Password", true, "*PASSWORD* mixed case"},
    {"MYSQL_PASSWD", true, "*PASSWD*"},
    {"passwd_file", true, "*PASSWD* lower case"},
    {"OPENAI_API_KEY", true, "*API_KEY*"},
    {"api_key", true, "*API_KEY* lower case"},
    {"STRIPE_APIKEY", true, "*APIKEY*"},
    {"apikey", true, "*APIKEY* lower case"},
    {"AWS_ACCESS_KEY_ID", true, "*ACCESS_KEY*"},
    {"my_access_key", true, "*ACCESS_KEY* lower case"},
    {"SSH_PRIVATE_KEY", true, "*PRIVATE_KEY*"},
    {"private_key", true, "*PRIVATE_KEY* lower case"},
    {"GOOGLE_APPLICATION_CREDENTIALS", true, "*CREDENTIAL*"},
    {"credential", true, "*CREDENTIAL* lower case"},
    {"AUTH", true, "*AUTH*"},
    {"HTTP_AUTH_HEADER", true, "*AUTH* in the middle"},
    {"oauth", true, "*AUTH* lower case"},
    {"XAUTHORITY", true, "*AUTH*: only names starting with AUTHOR are excepted"},
    {"AUTHOR", false, "AUTHOR* is kept"},
    {"AUTHOR_NAME", false, "AUTHOR* is kept"},
    {"author_email", false, "AUTHOR* is kept, case-insensitively"},
    {"Authority", false, "AUTHOR* is kept, mixed case"},
    {"CONFINE_SANDBOX_POLICY", true, "CONFINE_* is confine's own"},
    {"CONFINE_AUDIT", true, "CONFINE_* is confine's own"},
    {"CONFINE_", true, "CONFINE_ alone"},
    {"CONFINEMENT", false, "CONFINE_* needs the underscore"},
    {"SSH_AUTH_SOCK", true, "agent connection"},
    {"GPG_AGENT_INFO", true, "agent connection"},
    {"DBUS_SESSION_BUS_ADDRESS", true, "agent connection"},
    {"PATH", false, "PATH is kept"},
    {"HOME", false, "HOME is kept"},
    {"LANG", false, "LANG is kept"},
    {"EDITOR", false, "EDITOR is kept"},
    {"XDG_RUNTIME_DIR", false, "XDG_RUNTIME_DIR is kept"},
    {"PUBLIC_KEY", true, "*_KEY (SPEC 5 as updated: a name ending in _KEY)"},
    {"OPENAI_KEY", true, "*_KEY"},
    {"stripe_key", true, "*_KEY lower case"},
    {"KEYBOARD", false, "KEY at the start is not *_KEY"},
    {"KEY", false, "KEY alone is not *_KEY"},
    {"MONKEY", false, "a name ending in KEY without the underscore"},
    {"GITLAB_PAT", true, "*_PAT"},
    {"PATH_PAT", true, "*_PAT"},
    {"XPATH", false, "PATH is not *_PAT"},
    {"SMTP_PASS", true, "*_PASS"},
    {"BYPASS", false, "no underscore before PASS"},
    {"MYSQL_PWD", true, "*_PWD"},
    {"PWD", false, "PWD is the working directory"},
    {"OLDPWD", false, "no underscore before PWD"},
    {"SENTRY_DSN", true, "*_DSN"},
    {"GPG_PASSPHRASE", true, "*PASSPHRASE*"},
    {"JWT", true, "*JWT*"},
    {"session_jwt_cookie", true, "*JWT* lower case"},
    {"PASSING_TESTS", false, "PASS inside a word"},
    {"ACCESS_LOG", false, "ACCESS alone is not a secret pattern"},
    {"TOKE", false, "a part of TOKEN is not TOKEN"},
    {"SECRE_T", false, "SECRET split by _ is not SECRET"},
    {"PASS", false, "PASS is not PASSWORD"},
};

struct value_case {
	const char *value;
	bool secret;
	const char *why;
};

static const struct value_case value_cases[] = {
    {"postgres://app:hunter2@db:5432/x", true, "a URL with a password"},
    {"mysql://:pw@localhost/db", true, "a URL with an empty user and a password"},
    {"redis://default:p%40ss@cache", true, "percent-encoded password"},
    {"https://user@example.com/", false, "a user without a password"},
    {"https://example.com/a:b@c", false, "':' and '@' after the authority"},
    {"https://example.com/?q=a:b@c", false, "in the query"},
    {"not a url: x@y", false, "no scheme://"},
    {"ghp_0123456789abcdefABCDEF0123456789abcd", true, "GitHub personal token"},
    {"gho_0123456789abcdefXYZ", true, "GitHub OAuth token"},
    {"ghs_0123456789abcdefXYZ", true, "GitHub app token"},
    {"github_pat_11AAAAAAA0123456789_abc", true, "fine-grained GitHub token"},
    {"glpat-0123456789abcdefghij", true, "GitLab token"},
    {"xoxb-123456789012-abcdefghijkl", true, "Slack bot token"},
    {"xoxp-123456789012-abcdefghijkl", true, "Slack user token"},
    {"sk-proj-0123456789abcdefghijklmn", true, "OpenAI key"},
    {"AKIAIOSFODNN7EXAMPLE", true, "AWS access key id"},
    {"ASIAIOSFODNN7EXAMPLE", true, "AWS temporary access key id"},
    {"AIzaSyA-0123456789abcdefghijklmnopqrstu", true, "Google API key"},
    {"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc", true, "a JWT"},
    {"eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.", true, "an unsigned JWT"},
    {"ghp_", false, "the prefix alone"},
    {"sk-SE", false, "sk- and a short word"},
    {"ASIA", false, "a region name"},
    {"ASIA/PACIFIC", false, "a region path"},
    {"Asia/Tokyo", false, "a time zone"},
    {"eyJustKidding", false, "eyJ without the dots"},
    {"/usr/bin:/bin", false, "a PATH"},
    {"", false, "empty"},
};

static void values(void)
{
	for (size_t i = 0; i < N(value_cases); i++) {
		const struct value_case *c = &value_cases[i];
		TAP_OK(cf_env_value_is_secret(c->value) == c->secret, "R20 value '%s' %s: %s",
		       c->value, c->secret ? "removed" : "kept", c->why);
	}
}

static void names(void)
{
	for (size_t i = 0; i < N(name_cases); i++) {
		const struct name_case *c = &name_cases[i];
		TAP_OK(cf_env_name_is_secret(c->name) == c->secret, "R20 %s %s: %s", c->name,
		       c->secret ? "removed" : "kept", c->why);
	}
	/* Very long names: 255 characters are checked like any other, 256 and more are removed
	 * without a closer look (fail closed). */
	char name[400];
	memset(name, 'A', sizeof(name));
	name[255] = '\0';
	TAP_OK(!cf_env_name_is_secret(name), "R20 a plain name of 255 characters is kept");
	memcpy(name + 250, "TOKEN", 5);
	TAP_OK(cf_env_name_is_secret(name),
	       "R20 a name of 255 characters ending in TOKEN is removed");
	memset(name, 'A', sizeof(name));
	name[256] = '\0';
	TAP_OK(cf_env_name_is_secret(name), "R20 a name of 256 characters is removed");
	name[256] = 'A';
	name[399] = '\0';
	TAP_OK(cf_env_name_is_secret(name), "R20 a name of 399 characters is removed");
	memcpy(name + 380, "_TOKEN", 6);
	TAP_OK(cf_env_name_is_secret(name), "R20 a long name with TOKEN past 256 is removed");
}

struct build_case {
	const char *name;
	const char *base[20];
	bool clear;
	const char *pass[4], *unset[4], *set[4];
	const char *out[20];	 /* exactly, in order */
	const char *removed[12]; /* exactly, in order; {"*"}: not checked */
};

static const struct build_case build_cases[] = {
    {"R20 default scrub",
     {"PATH=/bin", "HOME=/home/u", "GITHUB_TOKEN=ghp_x", "CONFINE_SANDBOX_POLICY=off",
      "SSH_AUTH_SOCK=/tmp/s", "GPG_AGENT_INFO=/x", "DBUS_SESSION_BUS_ADDRESS=unix:x",
      "AUTHOR_NAME=me", "LANG=C", "EMPTY=", "db_password=hunter2", "X=a=b"},
     false,
     {0},
     {0},
     {0},
     {"PATH=/bin", "HOME=/home/u", "AUTHOR_NAME=me", "LANG=C", "EMPTY=", "X=a=b"},
     {"GITHUB_TOKEN", "CONFINE_SANDBOX_POLICY", "SSH_AUTH_SOCK", "GPG_AGENT_INFO",
      "DBUS_SESSION_BUS_ADDRESS", "db_password"}},
    {"R20 values that carry credentials are removed whatever the name",
     {"PATH=/bin", "DATABASE_URL=postgres://u:pw@db/x", "GH=ghp_0123456789abcdefXYZ0",
      "HOMEPAGE=https://example.com/", "SESSION=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
      "TZ=Asia/Tokyo"},
     false,
     {0},
     {0},
     {0},
     {"PATH=/bin", "HOMEPAGE=https://example.com/", "TZ=Asia/Tokyo"},
     {"DATABASE_URL", "GH", "SESSION"}},
    {"R20 --pass-env keeps a variable removed for its value",
     {"PATH=/bin", "DATABASE_URL=postgres://u:pw@db/x"},
     false,
     {"DATABASE_URL"},
     {0},
     {0},
     {"PATH=/bin", "DATABASE_URL=postgres://u:pw@db/x"},
     {0}},
    {"R20 entries without a name are skipped",
     {"NOEQUALS", "=nameless", "PATH=/bin"},
     false,
     {0},
     {0},
     {0},
     {"PATH=/bin"},
     {0}},
    /* Regression: cf_env_build once leaked the name when a dropped name was already in
     * `removed` (the same name twice in the caller's environment); CI runs this under
     * valgrind --leak-check=full. */
    {"R20 a name removed twice is listed once",
     {"A_TOKEN=1", "A_TOKEN=2", "PATH=/bin"},
     false,
     {0},
     {0},
     {0},
     {"PATH=/bin"},
     {"A_TOKEN"}},
    {"R20 --pass-env keeps a secret",
     {"GITHUB_TOKEN=ghp_x", "AWS_SECRET_ACCESS_KEY=s", "NPM_TOKEN=n", "PATH=/bin"},
     false,
     {"GITHUB_TOKEN", "AWS_*"},
     {0},
     {0},
     {"GITHUB_TOKEN=ghp_x", "AWS_SECRET_ACCESS_KEY=s", "PATH=/bin"},
     {"NPM_TOKEN"}},
    {"R20 --unset-env drops more",
     {"PATH=/bin", "EDITOR=vi", "LC_ALL=C", "LC_CTYPE=C", "LANG=C", "DISPLAY=:0"},
     false,
     {0},
     {"EDITOR", "LC_*", "DISPLAY"},
     {0},
     {"PATH=/bin", "LANG=C"},
     {"EDITOR", "LC_ALL", "LC_CTYPE", "DISPLAY"}},
    {"R20 --clearenv keeps only PATH HOME USER LOGNAME SHELL TERM LANG LC_* TZ",
     {"PATH=/bin", "HOME=/home/u", "USER=u", "LOGNAME=u", "SHELL=/bin/sh", "TERM=xterm",
      "LANG=C.UTF-8", "LC_ALL=C", "LC_TIME=de_DE", "TZ=UTC", "EDITOR=vi", "DISPLAY=:0",
      "GITHUB_TOKEN=x", "XDG_RUNTIME_DIR=/run/user/1000", "LCX=1", "PATHX=1", "TZDIR=/z"},
     true,
     {0},
     {0},
     {0},
     {"PATH=/bin", "HOME=/home/u", "USER=u", "LOGNAME=u", "SHELL=/bin/sh", "TERM=xterm",
      "LANG=C.UTF-8", "LC_ALL=C", "LC_TIME=de_DE", "TZ=UTC"},
     {"EDITOR", "DISPLAY", "GITHUB_TOKEN", "XDG_RUNTIME_DIR", "LCX", "PATHX", "TZDIR"}},
    {"R20 --clearenv with --pass-env and --env",
     {"PATH=/bin", "EDITOR=vi", "DISPLAY=:0"},
     true,
     {"EDITOR"},
     {0},
     {"FOO=1"},
     {"PATH=/bin", "EDITOR=vi", "FOO=1"},
     {"DISPLAY"}},
    {"R20 --clearenv with --unset-env of a kept name",
     {"PATH=/bin", "TZ=UTC"},
     true,
     {0},
     {"TZ"},
     {0},
     {"PATH=/bin"},
     {"TZ"}},
    {"R20 --env sets and replaces the caller's value",
     {"PATH=/bin", "FOO=old", "KEEP=1"},
     false,
     {0},
     {0},
     {"FOO=new", "PATH=/x:/bin", "BAR="},
     {"KEEP=1", "FOO=new", "PATH=/x:/bin", "BAR="},
     {0}},
    {"R20 --env of a secret name sets the new value only",
     {"GITHUB_TOKEN=old"},
     false,
     {0},
     {0},
     {"GITHUB_TOKEN=new"},
     {"GITHUB_TOKEN=new"},
     {"*"}},
    {"R20 --env of a name that is a prefix of another",
     {"FOOBAR=keep", "FOO=old"},
     false,
     {0},
     {0},
     {"FOO=new"},
     {"FOOBAR=keep", "FOO=new"},
     {0}},
};

static bool strv_equals(const struct cf_strv *sv, const char *const *want, size_t cap)
{
	size_t n = 0;
	while (n < cap && want[n])
		n++;
	if (sv->n != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(sv->v[i], want[i]))
			return false;
	return true;
}

static void dump(const char *label, const struct cf_strv *sv)
{
	printf("#   %s:", label);
	for (size_t i = 0; i < sv->n; i++)
		printf(" %s", sv->v[i]);
	printf("\n");
}

static void fill(struct cf_strv *sv, const char *const *v, size_t cap)
{
	for (size_t i = 0; i < cap && v[i]; i++)
		cf_strv_add(sv, v[i]);
}

static void builds(void)
{
	for (size_t i = 0; i < N(build_cases); i++) {
		const struct build_case *c = &build_cases[i];
		struct cf_env_opts o = {.clear = c->clear};
		fill(&o.pass, c->pass, N(c->pass));
		fill(&o.unset, c->unset, N(c->unset));
		fill(&o.set, c->set, N(c->set));
		size_t n_base = 0;
		while (n_base < N(c->base) && c->base[n_base])
			n_base++;
		struct cf_strv out = {0}, removed = {0};
		struct confine_error err = {0};
		int r = cf_env_build(c->base, n_base, &o, &out, &removed, &err);
		TAP_INTEQ(r, 0, "%s: builds", c->name);
		bool ok = strv_equals(&out, c->out, N(c->out));
		TAP_OK(ok, "%s: the environment", c->name);
		if (!ok)
			dump("got", &out);
		if (!c->removed[0] || strcmp(c->removed[0], "*")) {
			ok = strv_equals(&removed, c->removed, N(c->removed));
			TAP_OK(ok, "%s: the removed names", c->name);
			if (!ok)
				dump("got", &removed);
		}
		bool names_only = true;
		for (size_t k = 0; k < removed.n; k++)
			names_only &= strchr(removed.v[k], '=') == NULL;
		TAP_OK(names_only, "%s: removed names are listed without values", c->name);
		cf_strv_release(&out);
		cf_strv_release(&removed);
		cf_env_opts_release(&o);
	}
}

struct assign_case {
	const char *a;
	int rc;
	const char *why;
};

static const struct assign_case assign_cases[] = {
    {"FOO=bar", 0, "plain"},
    {"_X=1", 0, "leading underscore"},
    {"a1_=", 0, "empty value, digits after the first character"},
    {"A=b=c", 0, "'=' in the value"},
    {"A=\x01\xff", 0, "any byte but NUL in the value"},
    {"=bar", CONFINE_E_INVALID, "empty name"},
    {"1FOO=x", CONFINE_E_INVALID, "leading digit"},
    {"FO-O=x", CONFINE_E_INVALID, "'-' in the name"},
    {"FOO BAR=x", CONFINE_E_INVALID, "space in the name"},
    {"F.O=x", CONFINE_E_INVALID, "'.' in the name"},
    {"\xc3\xa9=x", CONFINE_E_INVALID, "non-ASCII name"},
    {"FOO", CONFINE_E_INVALID, "no '='"},
    {"", CONFINE_E_INVALID, "empty"},
};

static void assignments(void)
{
	for (size_t i = 0; i < N(assign_cases); i++) {
		const struct assign_case *c = &assign_cases[i];
		struct confine_error err = {0};
		int r = cf_env_check_assignment(c->a, &err);
		TAP_INTEQ(r, c->rc, "R20 --env '%s' %s: %s", c->a, c->rc ? "refused" : "accepted",
			  c->why);
		if (c->rc)
			TAP_INTEQ(err.code, c->rc, "R20 --env '%s': the error is filled", c->a);
	}
	/* 64 KiB per value */
	size_t max = 64 * 1024;
	char *a = malloc(max + 8);
	memcpy(a, "V=", 2);
	memset(a + 2, 'x', max);
	a[2 + max] = '\0';
	struct confine_error err = {0};
	TAP_INTEQ(cf_env_check_assignment(a, &err), 0, "R20 a value of exactly 64 KiB is accepted");
	a[2 + max] = 'x';
	a[3 + max] = '\0';
	TAP_INTEQ(cf_env_check_assignment(a, &err), CONFINE_E_LIMIT,
		  "R20 a value of 64 KiB + 1 is refused");
	free(a);

	/* 256 variables */
	struct cf_env_opts o = {0};
	char kv[32];
	for (int i = 0; i < 256; i++) {
		snprintf(kv, sizeof(kv), "V%d=%d", i, i);
		cf_strv_add(&o.set, kv);
	}
	struct cf_strv out = {0}, removed = {0};
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(cf_env_build(NULL, 0, &o, &out, &removed, &err), 0,
		  "R20 256 --env variables are accepted");
	TAP_INTEQ(out.n, 256, "R20 all 256 are set");
	cf_strv_release(&out);
	cf_strv_add(&o.set, "V256=256");
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(cf_env_build(NULL, 0, &o, &out, &removed, &err), CONFINE_E_LIMIT,
		  "R20 a 257th --env variable is refused");
	cf_strv_release(&out);
	cf_strv_release(&removed);
	cf_env_opts_release(&o);
}

/* Through the request object, as the CLI does it: a later --env of the same name wins. */
static void request_env(void)
{
	confine_request *req = NULL;
	struct confine_error err = {0};
	int r = confine_request_new(&req, &err);
	TAP_INTEQ(r, 0, "request created");
	if (r < 0)
		return;
	r = confine_request_env_set(req, "FOO", "1", &err);
	r |= confine_request_env_set(req, "BAR", "2", &err);
	r |= confine_request_env_set(req, "FOO", "3", &err);
	r |= confine_request_env_set(req, "FO", "4", &err);
	TAP_INTEQ(r, 0, "R20 --env FOO=1 BAR=2 FOO=3 FO=4 accepted");
	const char *want[] = {"FOO=3", "BAR=2", "FO=4"};
	TAP_OK(strv_equals(&req->env.set, want, N(want)),
	       "R20 a later --env of the same name wins, in the place of the first");
	const char *base[] = {"FOO=0", "PATH=/bin"};
	struct cf_strv out = {0}, removed = {0};
	r = cf_env_build(base, N(base), &req->env, &out, &removed, &err);
	const char *want_out[] = {"PATH=/bin", "FOO=3", "BAR=2", "FO=4"};
	TAP_OK(r == 0 && strv_equals(&out, want_out, N(want_out)),
	       "R20 the built environment has FOO=3 once");
	if (r == 0 && !strv_equals(&out, want_out, N(want_out)))
		dump("got", &out);
	cf_strv_release(&out);
	cf_strv_release(&removed);

	memset(&err, 0, sizeof(err));
	TAP_INTEQ(confine_request_env_set(req, "BAD-NAME", "x", &err), CONFINE_E_INVALID,
		  "R20 confine_request_env_set refuses a bad name");
	TAP_INTEQ(req->env.set.n, 3, "R20 the refused variable is not added");
	char *big = malloc(64 * 1024 + 2);
	memset(big, 'v', 64 * 1024 + 1);
	big[64 * 1024 + 1] = '\0';
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(confine_request_env_set(req, "BIG", big, &err), CONFINE_E_LIMIT,
		  "R20 confine_request_env_set refuses a value over 64 KiB");
	free(big);

	/* pass, unset and clear land in the options */
	r = confine_request_env_pass(req, "NPM_TOKEN", &err);
	r |= confine_request_env_unset(req, "EDITOR", &err);
	confine_request_env_clear(req, true, NULL);
	TAP_OK(r == 0 && req->env.pass.n == 1 && req->env.unset.n == 1 && req->env.clear,
	       "R20 --pass-env, --unset-env, --clearenv recorded in the request");
	confine_request_free(req);
}

int main(void)
{
	names();
	values();
	builds();
	assignments();
	request_env();
	return tap_done();
}
