/* SPDX-License-Identifier: MIT */
/*
 * Golden Windows plans (R27, SPEC 7.2): host facts + rules -> the exact plan text (and the
 * JSON form, checked to parse).  Runs on Linux and, cross-compiled, under Wine.
 *
 * A case directory under tests/golden/windows holds:
 *   facts            the Windows host facts, in the text form of plan/windows/facts.h
 *   session          optional: "allow|ask|deny PATH[:ACCESS]" lines (the CLI syntax)
 *   workspace.json   optional: the workspace rule file
 *   user.json        optional: the user rule file
 *   request          optional: "network off", "grant PATH:file|subtree", "reason TEXT",
 *                    "arg WORD" (the command; default "cmd")
 *   expected         the plan text, or "error: <what>: '<subject>': <reason>"
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../unit/tap.h"
#include "plan/windows/plan_win.h"
#include "util/util.h"

#ifndef GOLDEN_WINDOWS_DIR
#define GOLDEN_WINDOWS_DIR "tests/golden/windows"
#endif

static char *slurp(const char *dir, const char *name, size_t *len)
{
	char path[2048];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct cf_buf b;
	cf_buf_init(&b);
	char chunk[4096];
	size_t k;
	while ((k = fread(chunk, 1, sizeof(chunk), f)) > 0)
		cf_buf_addn(&b, chunk, k);
	fclose(f);
	if (len)
		*len = b.len;
	if (!b.s)
		return cf_strdup("");
	return cf_buf_take(&b);
}

/* The lines of a file, without the line ends; NULL when it does not exist. */
static int lines(const char *dir, const char *name, struct cf_strv *out)
{
	char *text = slurp(dir, name, NULL);
	if (!text)
		return 0;
	for (char *s = text, *nl; s && *s; s = nl) {
		nl = strchr(s, '\n');
		if (nl)
			*nl++ = '\0';
		size_t n = strlen(s);
		if (n && s[n - 1] == '\r')
			s[n - 1] = '\0';
		if (*s && *s != '#')
			cf_strv_add(out, s);
	}
	free(text);
	return 1;
}

static int load_session(const char *dir, struct cf_ruleset *rs, struct confine_error *err)
{
	struct cf_strv l = {0};
	int r = 0;
	lines(dir, "session", &l);
	for (size_t i = 0; i < l.n && r == 0; i++) {
		char *sp = strchr(l.v[i], ' ');
		if (!sp)
			continue;
		*sp = '\0';
		struct cf_rule rule = {
		    .layer = CF_LAYER_SESSION, .source = "session", .index = (int)rs->n};
		rule.action = !strcmp(l.v[i], "allow") ? CF_ALLOW
			      : !strcmp(l.v[i], "ask") ? CF_ASK
						       : CF_DENY;
		r = cf_rule_parse_cli(sp + 1, &rule.pattern, &rule.access, err);
		if (r == 0)
			r = cf_ruleset_add(rs, &rule, err);
		free(rule.pattern);
	}
	cf_strv_release(&l);
	return r;
}

static int load_file(const char *dir, const char *name, enum cf_layer layer, const char *as,
		     struct cf_ruleset *rs, struct confine_error *err)
{
	size_t len;
	char *text = slurp(dir, name, &len);
	if (!text)
		return 0;
	struct cf_diags d = {0};
	int r = cf_rules_parse(text, len, as, layer, rs, &d, err);
	cf_diags_release(&d);
	free(text);
	return r;
}

static char *compile_case(const char *dir, char **json)
{
	struct cf_win_facts f = {0};
	struct cf_ruleset session = {0}, ws = {0}, user = {0};
	struct cf_strv req = {0}, grants = {0}, argv = {0};
	struct cf_grants approved = {0};
	struct cf_win_plan plan = {0};
	struct confine_error err = {0};
	struct cf_buf out;
	const char *reason = NULL;
	bool network = true, have_plan = false;
	char *wsfile = NULL, *userfile = NULL, *facts = slurp(dir, "facts", NULL);
	int r = 0;

	cf_buf_init(&out);
	*json = NULL;
	lines(dir, "request", &req);
	for (size_t i = 0; i < req.n; i++) {
		if (!strcmp(req.v[i], "network off"))
			network = false;
		else if (!strncmp(req.v[i], "grant ", 6))
			cf_strv_add(&grants, req.v[i] + 6);
		else if (!strncmp(req.v[i], "reason ", 7))
			reason = req.v[i] + 7;
		else if (!strncmp(req.v[i], "arg ", 4))
			cf_strv_add(&argv, req.v[i] + 4);
	}
	if (!argv.n)
		cf_strv_add(&argv, "cmd");
	if (facts)
		r = cf_win_facts_parse(&f, facts, &err);
	if (r == 0)
		r = cf_win_facts_finish(&f, NULL, NULL, &err);
	struct cf_win_host h = cf_win_facts_host(&f);
	if (r == 0) {
		wsfile = cf_win_path_show(&f.names, f.workspace);
		userfile = cf_win_path_show(&f.names, f.user_rules);
		char *as = cf_asprintf("%s\\.confine\\rules.json", wsfile);
		r = load_session(dir, &session, &err);
		if (r == 0)
			r = load_file(dir, "workspace.json", CF_LAYER_WORKSPACE, as, &ws, &err);
		if (r == 0)
			r = load_file(dir, "user.json", CF_LAYER_USER, userfile, &user, &err);
		free(as);
	}
	if (r == 0 && grants.n)
		r = cf_win_grants(&h, (const char *const *)grants.v, grants.n, reason, &approved,
				  &err);
	struct cf_win_input in = {
	    .host = &h,
	    .session = &session,
	    .workspace_rules = &ws,
	    .user_rules = &user,
	    .grants = grants.n ? &approved : NULL,
	    .network = network,
	    .argv = &argv,
	};
	if (r == 0)
		r = cf_win_plan_compile(&in, &plan, &err);
	if (r < 0) {
		cf_buf_addf(&out, "error: %s: '%s': %s\n", err.what, err.subject, err.reason);
		goto out;
	}
	have_plan = true;
	char *text = cf_win_plan_text(&plan);
	cf_buf_add(&out, text ? text : "(oom)\n");
	free(text);
	*json = cf_win_plan_json(&plan);
out:
	if (have_plan)
		cf_win_plan_release(&plan);
	cf_grants_release(&approved);
	cf_ruleset_release(&session);
	cf_ruleset_release(&ws);
	cf_ruleset_release(&user);
	cf_strv_release(&req);
	cf_strv_release(&grants);
	cf_strv_release(&argv);
	cf_win_facts_release(&f);
	free(facts);
	free(wsfile);
	free(userfile);
	return cf_buf_take(&out);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
	DIR *d = opendir(GOLDEN_WINDOWS_DIR);
	TAP_OK(d != NULL, "case directory %s exists", GOLDEN_WINDOWS_DIR);
	if (!d)
		return tap_done();
	struct cf_strv names = {0};
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			cf_strv_add(&names, e->d_name);
	closedir(d);
	qsort(names.v, names.n, sizeof(char *), cmp_names);
	bool update = getenv("CONFINE_GOLDEN_UPDATE") != NULL;
	for (size_t i = 0; i < names.n; i++) {
		char dir[1024], exp_path[1100];
		char *json = NULL;
		snprintf(dir, sizeof(dir), "%s/%s", GOLDEN_WINDOWS_DIR, names.v[i]);
		snprintf(exp_path, sizeof(exp_path), "%s/expected", dir);
		char *got = compile_case(dir, &json);
		if (update) {
			FILE *f = fopen(exp_path, "wb");
			if (f) {
				fputs(got, f);
				fclose(f);
			}
		}
		char *want = slurp(dir, "expected", NULL);
		TAP_STREQ(got, want, "windows golden %s", names.v[i]);
		if (json) {
			json_error_t je;
			json_t *root = json_loads(json, 0, &je);
			TAP_OK(root && json_is_array(json_object_get(root, "not_enforced")) &&
				   json_is_array(json_object_get(root, "acl_edits")),
			       "windows golden %s: the JSON form parses (%s)", names.v[i],
			       root ? "ok" : je.text);
			json_decref(root);
		}
		free(json);
		free(got);
		free(want);
	}
	cf_strv_release(&names);
	return tap_done();
}
