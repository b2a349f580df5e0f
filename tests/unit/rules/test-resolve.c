/* SPDX-License-Identifier: MIT */
/* Pattern resolution (SPEC 2.2, R7): ~, relative, absolute, reserved characters,
 * normalisation and canonicalisation of the wildcard-free prefix. */
#include <stdlib.h>
#include <string.h>

#include "rules/rules.h"
#include "util/util.h"
#include "../tap.h"

/* A fake host: two symlinks, everything else canonical already. */
static int fake_canon(void *ctx, const char *path, char **out, struct confine_error *err)
{
	static const char *const links[][2] = {
	    {"/home/u/link", "/data/secrets"},
	    {"/rootlink", "/"},
	};
	(void)ctx;
	(void)err;
	for (size_t i = 0; i < 2; i++) {
		size_t n = strlen(links[i][0]);
		if (strncmp(path, links[i][0], n) == 0 && (path[n] == '\0' || path[n] == '/')) {
			*out = cf_path_join(links[i][1], path[n] ? path + n + 1 : ".");
			return *out ? 0 : CONFINE_E_NOMEM;
		}
	}
	*out = cf_strdup(path);
	return *out ? 0 : CONFINE_E_NOMEM;
}

struct rcase {
	const char *pattern;
	enum cf_layer layer;
	int rc;
	const char *path; /* or a piece of the error reason */
	bool glob;
	size_t prefix_len;
};

static const struct rcase cases[] = {
    {"~", CF_LAYER_USER, 0, "/home/u", false, 7},
    {"~/notes", CF_LAYER_USER, 0, "/home/u/notes", false, 13},
    {"~/", CF_LAYER_USER, 0, "/home/u", false, 7},
    {"~other/x", CF_LAYER_USER, CONFINE_E_RULES, "~user", false, 0},
    {"dist", CF_LAYER_WORKSPACE, 0, "/ws/dist", false, 8},
    {"./dist/", CF_LAYER_SESSION, 0, "/ws/dist", false, 8},
    {"dist", CF_LAYER_USER, CONFINE_E_RULES, "relative path 'dist' in the user rule file", false,
     0},
    {"/etc/x", CF_LAYER_USER, 0, "/etc/x", false, 6},
    {"/a/./b//c/../d/", CF_LAYER_USER, 0, "/a/b/d", false, 6},
    {"/a/../../b", CF_LAYER_USER, 0, "/b", false, 2},
    {"/w/[ab]", CF_LAYER_USER, CONFINE_E_RULES, "'[' is reserved", false, 0},
    {"/w/a]", CF_LAYER_USER, CONFINE_E_RULES, "']' is reserved", false, 0},
    {"/w/{a,b}", CF_LAYER_USER, CONFINE_E_RULES, "'{' is reserved", false, 0},
    {"/w/a}", CF_LAYER_USER, CONFINE_E_RULES, "'}' is reserved", false, 0},
    {"", CF_LAYER_USER, CONFINE_E_RULES, "empty", false, 0},
    {"/a/b/*.c", CF_LAYER_USER, 0, "/a/b/*.c", true, 4},
    {"**/*.pem", CF_LAYER_WORKSPACE, 0, "/ws/**/*.pem", true, 3},
    {"/*/x", CF_LAYER_USER, 0, "/*/x", true, 1},
    {"/a/x?/b", CF_LAYER_USER, 0, "/a/x?/b", true, 2},
    {"~/link", CF_LAYER_USER, 0, "/data/secrets", false, 13},
    {"~/link/sub", CF_LAYER_USER, 0, "/data/secrets/sub", false, 17},
    {"~/link/*.key", CF_LAYER_USER, 0, "/data/secrets/*.key", true, 13},
    {"/rootlink/*", CF_LAYER_USER, 0, "/*", true, 1},
    {"/rootlink", CF_LAYER_USER, 0, "/", false, 1},
};

int main(void)
{
	struct cf_resolve_ctx ctx = {
	    .home = "/home/u",
	    .workspace = "/ws",
	    .canonicalize = fake_canon,
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct rcase *c = &cases[i];
		struct cf_rule r = {
		    .pattern = (char *)c->pattern,
		    .layer = c->layer,
		    .source = (char *)"/cfg/rules.json",
		    .line = 7,
		    .column = 5,
		};
		struct confine_error err = {0};
		int rc = cf_rule_resolve(&r, &ctx, &err);
		TAP_INTEQ(rc, c->rc, "'%s': return code", c->pattern);
		if (c->rc == 0) {
			TAP_STREQ(r.path, c->path, "'%s': resolved", c->pattern);
			TAP_OK(r.glob == c->glob && r.prefix_len == c->prefix_len,
			       "'%s': glob %d prefix_len %zu (got %d %zu)", c->pattern, c->glob,
			       c->prefix_len, r.glob, r.prefix_len);
		} else {
			TAP_OK(strstr(err.reason, c->path) != NULL, "'%s': reason '%s'", c->pattern,
			       err.reason);
			TAP_OK(err.line == 7 && err.column == 5 &&
				   strcmp(err.subject, "/cfg/rules.json") == 0,
			       "'%s': error names the file, line and column", c->pattern);
			TAP_OK(r.path == NULL, "'%s': no path on error", c->pattern);
		}
		free(r.path);
	}

	/* Without a canonicalize callback the result stays lexical. */
	struct cf_resolve_ctx lex = {.home = "/home/u", .workspace = "/ws"};
	struct cf_rule r = {.pattern = (char *)"~/link/../x", .layer = CF_LAYER_USER};
	TAP_INTEQ(cf_rule_resolve(&r, &lex, NULL), 0, "lexical resolution without a callback");
	TAP_STREQ(r.path, "/home/u/x", "lexical resolution normalises");
	free(r.path);

	/* Too long. */
	char *longp = malloc(CF_RULES_MAX_PATTERN + 2);
	memset(longp, 'x', CF_RULES_MAX_PATTERN + 1);
	longp[0] = '/';
	longp[CF_RULES_MAX_PATTERN + 1] = '\0';
	r = (struct cf_rule){.pattern = longp, .layer = CF_LAYER_USER};
	TAP_INTEQ(cf_rule_resolve(&r, &lex, NULL), CONFINE_E_RULES, "pattern over 4096 bytes");
	free(longp);

	return tap_done();
}
