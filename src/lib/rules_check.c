/* SPDX-License-Identifier: MIT */
/*
 * Checking a rule file the way a run loads it (R5, `confine check`): every problem of the file
 * at once, as FILE:LINE:COLUMN plus a JSON pointer: the syntax (SPEC 2.1), each pattern
 * resolved (SPEC 2.2: reserved characters, relative paths in the user file), and R10 for a
 * workspace file, since those refuse a run as surely as a syntax error.  Touches the OS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/canon.h"
#include "host/rulefile.h"
#include "request.h"
#include "rules/netrules.h"
#include "util/util.h"

struct problem {
	struct confine_check_problem pub; /* points into the two strings */
	char *pointer, *message;
};

struct confine_check {
	struct problem *v;
	size_t n, cap;
	size_t rules, net_rules;
};

void confine_check_free(confine_check *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].pointer);
		free(c->v[i].message);
	}
	free(c->v);
	free(c);
}

/* Takes `message` (freed on failure). */
static int add(confine_check *c, int line, int column, const char *pointer, char *message)
{
	char *p = cf_strdup(pointer ? pointer : "");
	if (p && message && c->n == c->cap) {
		size_t cap;
		struct problem *v = cf_grow_array(c->v, c->cap, 16, sizeof(*v), &cap);
		if (v) {
			c->v = v;
			c->cap = cap;
		}
	}
	if (!p || !message || c->n == c->cap) {
		free(p);
		free(message);
		return CONFINE_E_NOMEM;
	}
	c->v[c->n++] = (struct problem){
	    .pub = {.size = sizeof(struct confine_check_problem),
		    .line = line,
		    .column = column,
		    .pointer = p,
		    .message = message},
	    .pointer = p,
	    .message = message,
	};
	return 0;
}

/* Document order, stable: at one position the parser's problems stay before the resolver's.
 * A file has few problems. */
static void sort(confine_check *c)
{
	for (size_t i = 1; i < c->n; i++) {
		struct problem x = c->v[i];
		size_t j = i;
		while (j > 0 && (c->v[j - 1].pub.line > x.pub.line ||
				 (c->v[j - 1].pub.line == x.pub.line &&
				  c->v[j - 1].pub.column > x.pub.column))) {
			c->v[j] = c->v[j - 1];
			j--;
		}
		c->v[j] = x;
	}
}

/* SPEC 2.2 and R10 for each rule the parser kept. */
static int resolve_all(confine_check *c, struct cf_ruleset *rs, enum cf_layer layer,
		       const struct cf_locations *loc)
{
	struct cf_resolve_ctx rctx = {
	    .home = loc->home,
	    .workspace = loc->workspace,
	    .canonicalize = cf_host_canonicalize,
	};
	for (size_t i = 0; i < rs->n; i++) {
		struct cf_rule *rule = &rs->v[i];
		struct confine_error e = {0};
		char *msg = NULL, ptr[48];
		if (cf_rule_resolve(rule, &rctx, &e) < 0) {
			if (e.code == CONFINE_E_NOMEM)
				return CONFINE_E_NOMEM;
			msg = cf_strdup(e.reason);
		} else if (layer == CF_LAYER_WORKSPACE && rule->action == CF_ALLOW &&
			   !cf_path_within(rule->path, loc->workspace)) {
			/* R10, as the policy applies it when the rules are loaded for a run. */
			msg = cf_asprintf("'%s' allows '%s', outside the workspace '%s' (a "
					  "repository cannot grant itself access outside it; put "
					  "this rule in the user rule file or pass --allow)",
					  rule->pattern, rule->path, loc->workspace);
		} else {
			continue;
		}
		snprintf(ptr, sizeof(ptr), "/rules/%d/path", rule->index);
		if (add(c, rule->line, rule->column, ptr, msg) < 0)
			return CONFINE_E_NOMEM;
	}
	return 0;
}

/* The canonical form of `file` taken from the current directory; NULL when it cannot be had. */
static char *canonical(const char *file)
{
	char *abs = NULL, *out = NULL;
	if (file[0] == '/') {
		abs = cf_strdup(file);
	} else {
		char *cwd = getcwd(NULL, 0);
		abs = cwd ? cf_path_join(cwd, file) : NULL;
		free(cwd);
	}
	if (abs && cf_host_canonicalize(NULL, abs, &out, NULL) < 0)
		out = NULL;
	free(abs);
	return out;
}

static enum cf_layer layer_of(const char *file, enum confine_rule_file kind,
			      const struct cf_locations *loc)
{
	static const char ws_suffix[] = "/" CF_RULEFILE_WORKSPACE;
	if (kind == CONFINE_RULE_FILE_USER)
		return CF_LAYER_USER;
	if (kind == CONFINE_RULE_FILE_WORKSPACE)
		return CF_LAYER_WORKSPACE;
	if (kind == CONFINE_RULE_FILE_SESSION)
		return CF_LAYER_SESSION;
	enum cf_layer layer = CF_LAYER_SESSION;
	char *canon = canonical(file), *user = loc->user_rules ? canonical(loc->user_rules) : NULL;
	size_t n = canon ? strlen(canon) : 0, k = strlen(ws_suffix);
	if (canon && user && !strcmp(canon, user))
		layer = CF_LAYER_USER;
	else if (canon && n >= k && !strcmp(canon + n - k, ws_suffix))
		layer = CF_LAYER_WORKSPACE;
	free(canon);
	free(user);
	return layer;
}

static int check(const char *file, enum cf_layer layer, const struct cf_locations *loc,
		 confine_check *c, struct confine_error *err)
{
	char *text = NULL;
	size_t len = 0;
	struct cf_ruleset rs = {0};
	struct cf_net_rules net = {0};
	struct cf_diags diags = {0};
	int r = cf_rulefile_read(file, &text, &len, err);
	if (r < 0)
		return r;
	r = cf_rules_parse_net(text, len, file, layer, &rs, &net, &diags, NULL);
	if (r == CONFINE_E_NOMEM)
		goto out;
	r = 0;
	for (size_t i = 0; i < diags.n && r == 0; i++) {
		const struct cf_diag *d = &diags.v[i];
		r = add(c, d->line, d->column, d->pointer, cf_strdup(d->message));
	}
	if (r == 0)
		r = resolve_all(c, &rs, layer, loc);
	c->rules = rs.n;
	c->net_rules = net.n;
	sort(c);
out:
	free(text);
	cf_ruleset_release(&rs);
	cf_net_rules_release(&net);
	cf_diags_release(&diags);
	return r == CONFINE_E_NOMEM ? cf_nomem(err) : r;
}

int confine_rules_check(const confine_request *req, const char *file, enum confine_rule_file kind,
			confine_check **out, struct confine_error *err)
{
	struct cf_locations loc = {0};
	confine_check *c = NULL;
	int r;
	if (!out)
		return cf_err(err, CONFINE_E_INVALID, "invalid argument", "out", "out is NULL");
	*out = NULL;
	if (!req || !file || !*file || kind > CONFINE_RULE_FILE_USER)
		return cf_err(err, CONFINE_E_INVALID, "cannot check rule file", file ? file : "",
			      "no request, no file name or an unknown kind of rule file");
	if ((r = cf_request_locations(req, &loc, err)) < 0)
		return r;
	if (!(c = calloc(1, sizeof(*c)))) {
		r = cf_nomem(err);
		goto out;
	}
	if ((r = check(file, layer_of(file, kind, &loc), &loc, c, err)) == 0) {
		*out = c;
		c = NULL;
	}
out:
	confine_check_free(c);
	cf_locations_release(&loc);
	return r;
}

int confine_request_rule_file(const confine_request *req, enum confine_rule_file kind, char **out,
			      struct confine_error *err)
{
	struct cf_locations loc = {0};
	int r;
	if (!out)
		return cf_err(err, CONFINE_E_INVALID, "invalid argument", "out", "out is NULL");
	*out = NULL;
	if (!req || (kind != CONFINE_RULE_FILE_WORKSPACE && kind != CONFINE_RULE_FILE_USER))
		return cf_err(err, CONFINE_E_INVALID, "invalid argument", "kind",
			      "a standard rule file is the workspace's or the user's");
	if ((r = cf_request_locations(req, &loc, err)) < 0)
		return r;
	if (kind == CONFINE_RULE_FILE_WORKSPACE) {
		*out = cf_path_join(loc.workspace, CF_RULEFILE_WORKSPACE);
	} else if (!loc.user_rules) {
		r = cf_err(err, CONFINE_E_NOTFOUND, "the user rule file is unknown", "HOME",
			   "HOME is not set and the user has no home in the password database");
		goto out;
	} else {
		/* Canonical where it exists, so that it compares with a name given for it. */
		*out = canonical(loc.user_rules);
		if (!*out)
			*out = cf_strdup(loc.user_rules);
	}
	if (!*out)
		r = cf_nomem(err);
out:
	cf_locations_release(&loc);
	return r;
}

size_t confine_check_rule_count(const confine_check *c)
{
	return c ? c->rules : 0;
}

size_t confine_check_net_rule_count(const confine_check *c)
{
	return c ? c->net_rules : 0;
}

size_t confine_check_problem_count(const confine_check *c)
{
	return c ? c->n : 0;
}

const struct confine_check_problem *confine_check_problem(const confine_check *c, size_t i)
{
	return c && i < c->n ? &c->v[i].pub : NULL;
}
