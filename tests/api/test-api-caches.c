/* SPDX-License-Identifier: MIT */
/*
 * Tool caches (R39) and secrets by content (R40) through the public API alone: the setters
 * refuse a NULL request, the stores are listed one at a time and as JSON and cleared, and
 * explain's content decision fills a sized struct (refused below its first version, zeroed
 * past the library's own size).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../unit/tap.h"
#include "confine.h"
#include "request.h"

/* A request for `ws` with HOME=home; NULL on failure (reported). */
static confine_request *request(const char *ws, const char *home, const char *const *argv)
{
	struct confine_error err = {0};
	confine_request *req = NULL;
	char home_env[600];
	snprintf(home_env, sizeof(home_env), "HOME=%s", home);
	const char *env[] = {"PATH=/usr/bin:/bin", home_env, NULL};
	int rc = test_request(&req, 1, argv, ws, env, &err);
	if (rc < 0) {
		printf("# %s: %s: %s\n", err.what, err.subject, err.reason);
		confine_request_free(req);
		return NULL;
	}
	return req;
}

static void setters(void)
{
	struct confine_error err = {0};
	TAP_INTEQ(confine_request_set_cache_size(NULL, 1 << 20, &err), CONFINE_E_INVALID,
		  "set_cache_size refuses a NULL request");
	TAP_INTEQ(confine_request_set_dry_run(NULL, true, NULL), CONFINE_E_INVALID,
		  "set_dry_run refuses a NULL request (err may be NULL)");
	TAP_OK(confine_cache_count(NULL) == 0 && confine_cache_store(NULL, 0) == NULL &&
		   confine_run_cache_trimmed(NULL) == NULL,
	       "the accessors answer for NULL");
}

/* One run of `true` in ws: its store appears in the list, and clear removes it. */
static void stores(const char *ws, const char *home)
{
	struct confine_error err = {0};
	const char *argv[] = {"true"};
	confine_request *req = request(ws, home, argv);
	confine_run *run = NULL;
	int status = -1;
	int rc = req ? confine_request_set_cache_size(req, 64ull << 20, &err) : -1;
	if (rc == 0)
		rc = confine_run_prepare(req, &run, &err);
	if (rc == 0)
		rc = confine_run_start(run, &err);
	if (rc == 0)
		rc = confine_run_wait(run, &status, &err);
	TAP_OK(rc == 0 && status == 0, "a run with private tool caches (rc %d: %s)", rc,
	       err.reason);
	confine_run_free(run);
	confine_request_free(req);

	confine_caches *c = NULL;
	char *json = NULL;
	TAP_INTEQ(confine_cache_list(&c, &err), 0, "confine_cache_list");
	size_t n = confine_cache_count(c);
	const struct confine_cache_store *s = confine_cache_store(c, 0);
	TAP_OK(n == 1 && s && s->size == sizeof(*s) && !strcmp(s->workspace, ws) &&
		   !strncmp(s->dir, home, strlen(home)) && s->last_used > 0,
	       "one store, of the workspace, below the home's state directory");
	TAP_OK(confine_cache_store(c, n) == NULL, "past the count: NULL");
	TAP_OK(confine_caches_json(c, &json, &err) == 0 && json && json[0] == '[' &&
		   strstr(json, "\"workspace\": ") && strstr(json, ws),
	       "confine_caches_json");
	confine_free(json);
	confine_caches_free(c);

	TAP_INTEQ(confine_cache_clear(ws, &err), 0, "confine_cache_clear of the workspace");
	c = NULL;
	TAP_OK(confine_cache_list(&c, &err) == 0 && confine_cache_count(c) == 0 &&
		   confine_caches_json(c, &json, &err) == 0 && !strcmp(json, "[]"),
	       "no store after clear, [] as JSON");
	confine_free(json);
	confine_caches_free(c);
}

static void content(const char *ws, const char *home)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 "
		 "-nodes -days 2 -subj /CN=t -keyout key.pem -out cert.pem 2>/dev/null",
		 ws);
	if (system(cmd) != 0) {
		TAP_SKIP("openssl is needed to make a certificate (scripts/install-deps test)");
		return;
	}
	struct confine_error err = {0};
	const char *argv[] = {"true"};
	confine_request *req = request(ws, home, argv);
	confine_rules *rules = NULL;
	TAP_OK(req && confine_rules_load(req, &rules, &err) == 0, "rules loaded");
	confine_request_free(req);
	if (!rules)
		return;
	char cert[700], key[700], other[700];
	snprintf(cert, sizeof(cert), "%s/cert.pem", ws);
	snprintf(key, sizeof(key), "%s/key.pem", ws);
	snprintf(other, sizeof(other), "%s/notes.txt", ws);
	struct confine_content_decision d = {.size = sizeof(d)};
	TAP_OK(confine_rules_explain_content(rules, cert, &d, &err) == 0 &&
		   d.content == CONFINE_CONTENT_CERTIFICATES && d.size == sizeof(d),
	       "a certificate PEM: CERTIFICATES (%d, %s)", (int)d.content, d.why);
	char *json = NULL;
	TAP_OK(confine_content_decision_json(&d, &json, &err) == 0 && json &&
		   !strncmp(json, "{\"class\": \"certificates\", \"why\": ", 33),
	       "its JSON (%s)", json ? json : "");
	confine_free(json);
	d = (struct confine_content_decision){.size = sizeof(d)};
	TAP_OK(confine_rules_explain_content(rules, key, &d, &err) == 0 &&
		   d.content == CONFINE_CONTENT_PRIVATE_KEY,
	       "a key PEM: PRIVATE_KEY (%d, %s)", (int)d.content, d.why);
	d = (struct confine_content_decision){.size = sizeof(d), .content = 7};
	TAP_OK(confine_rules_explain_content(rules, other, &d, &err) == 0 &&
		   d.content == CONFINE_CONTENT_NONE && d.why[0] == '\0',
	       "a path no guard by content covers: NONE");
	TAP_OK(confine_content_decision_json(&d, &json, &err) == 0 && !strcmp(json, "null"),
	       "NONE as JSON: null");
	confine_free(json);
	/* A host built with a newer header: a larger struct, its tail zeroed, .size what was
	 * filled; and one below the first version refused, untouched. */
	struct {
		struct confine_content_decision d;
		char newer[32];
	} big;
	memset(&big, 0xa5, sizeof(big));
	big.d.size = sizeof(big);
	TAP_OK(confine_rules_explain_content(rules, cert, &big.d, &err) == 0 &&
		   big.d.size == sizeof(big.d) && big.newer[0] == 0 && big.newer[31] == 0 &&
		   big.d.content == CONFINE_CONTENT_CERTIFICATES,
	       "a larger struct: filled, the rest zeroed, .size the library's");
	struct confine_content_decision small = {.size = sizeof(size_t)};
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(confine_rules_explain_content(rules, cert, &small, &err), CONFINE_E_INVALID,
		  "a struct below its first version is refused (%s)", err.reason);
	TAP_INTEQ(confine_rules_explain_content(NULL, cert, &d, NULL), CONFINE_E_INVALID,
		  "NULL rules are refused");
	confine_rules_free(rules);
}

int main(void)
{
	char tmpl[] = "/var/tmp/confine-api-caches.XXXXXX";
	char *top = mkdtemp(tmpl);
	TAP_OK(top != NULL, "scratch directory");
	if (!top)
		return tap_done();
	char home[512], ws[600], state[600], cmd[4096];
	snprintf(home, sizeof(home), "%s/home", top);
	snprintf(ws, sizeof(ws), "%s/home/proj", top);
	snprintf(state, sizeof(state), "%s/home/.local/state", top);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' '%s' '%s/.cache' '%s/.npm'", ws, state, home,
		 home);
	TAP_OK(system(cmd) == 0, "fixtures");
	/* The list and clear read the process's environment; the run reads the request's. */
	setenv("HOME", home, 1);
	setenv("XDG_STATE_HOME", state, 1);
	setters();
	stores(ws, home);
	content(ws, home);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	TAP_OK(system(cmd) == 0, "cleanup");
	return tap_done();
}
