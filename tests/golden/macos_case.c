/* SPDX-License-Identifier: MIT */
/* One golden macOS case: facts, rules and request in, plan out (see macos.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macos_case.h"
#include "util/util.h"

char *mc_slurp(const char *dir, const char *name, size_t *len)
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
	return cf_buf_take(&b);
}

int mc_lines(const char *dir, const char *name, struct cf_strv *out)
{
	char *text = mc_slurp(dir, name, NULL);
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
	mc_lines(dir, "session", &l);
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
	char *text = mc_slurp(dir, name, &len);
	if (!text)
		return 0;
	struct cf_diags d = {0};
	int r = cf_rules_parse(text, len, as, layer, rs, &d, err);
	cf_diags_release(&d);
	free(text);
	return r;
}

void mc_release(struct mc_case *c)
{
	if (c->ok)
		cf_mac_plan_release(&c->plan);
	c->ok = false;
}

char *mc_compile(const char *dir, struct mc_case *out)
{
	struct cf_mac_facts f;
	struct cf_ruleset session = {0}, ws = {0}, user = {0};
	struct cf_strv req = {0}, grants = {0}, argv = {0}, inj = {0};
	struct cf_grants approved = {0};
	struct cf_mac_injection injections[16];
	size_t n_inj = 0;
	struct confine_error err = {0};
	struct cf_buf text;
	const char *reason = NULL;
	enum cf_mac_net net = CF_MAC_NET_ON;
	unsigned port = 0;
	char *facts = mc_slurp(dir, "facts", NULL);
	int r;

	memset(out, 0, sizeof(*out));
	cf_buf_init(&text);
	mc_lines(dir, "request", &req);
	for (size_t i = 0; i < req.n; i++) {
		const char *l = req.v[i];
		if (!strcmp(l, "network off"))
			net = CF_MAC_NET_OFF;
		else if (!strncmp(l, "network proxy ", 14))
			net = CF_MAC_NET_PROXY, port = (unsigned)strtoul(l + 14, NULL, 10);
		else if (!strncmp(l, "grant ", 6))
			cf_strv_add(&grants, l + 6);
		else if (!strncmp(l, "reason ", 7))
			reason = l + 7;
		else if (!strncmp(l, "arg ", 4))
			cf_strv_add(&argv, l + 4);
		else if (!strncmp(l, "inject ", 7) || !strncmp(l, "inject-path ", 12))
			cf_strv_add(&inj, l);
	}
	for (size_t i = 0; i < inj.n && n_inj < 16; i++) {
		char *l = inj.v[i];
		if (!strncmp(l, "inject-path ", 12)) {
			injections[n_inj++] = (struct cf_mac_injection){.target = l + 12};
			continue;
		}
		char *name = l + 7, *sp = strchr(name, ' ');
		if (!sp)
			continue;
		*sp = '\0';
		injections[n_inj++] = (struct cf_mac_injection){.name = name, .scratch = sp + 1};
	}
	if (!argv.n)
		cf_strv_add(&argv, "cmd");
	r = cf_mac_facts_init(&f, &err);
	if (r == 0 && facts)
		r = cf_mac_facts_parse(&f, facts, &err);
	if (r == 0)
		r = cf_mac_facts_finish(&f, NULL, NULL, NULL, &err);
	struct cf_mac_host h = cf_mac_facts_host(&f);
	if (r == 0) {
		char *as = cf_path_join(f.workspace, ".confine/rules.json");
		r = load_session(dir, &session, &err);
		if (r == 0)
			r = load_file(dir, "workspace.json", CF_LAYER_WORKSPACE, as, &ws, &err);
		if (r == 0)
			r = load_file(dir, "user.json", CF_LAYER_USER, f.user_rules, &user, &err);
		free(as);
	}
	if (r == 0 && grants.n)
		r = cf_mac_grants(&h, (const char *const *)grants.v, grants.n, reason, &approved,
				  &err);
	struct cf_mac_input in = {
	    .host = &h,
	    .session = &session,
	    .workspace_rules = &ws,
	    .user_rules = &user,
	    .grants = grants.n ? &approved : NULL,
	    .network = net,
	    .proxy_port = port,
	    .injections = injections,
	    .n_injections = n_inj,
	    .argv = &argv,
	};
	if (r == 0)
		r = cf_mac_plan_compile(&in, &out->plan, &err);
	if (r < 0) {
		cf_buf_addf(&text, "error: %s: '%s': %s\n", err.what, err.subject, err.reason);
	} else {
		out->ok = true;
		char *t = cf_mac_plan_text(&out->plan);
		cf_buf_add(&text, t ? t : "(oom)\n");
		free(t);
	}
	cf_grants_release(&approved);
	cf_ruleset_release(&session);
	cf_ruleset_release(&ws);
	cf_ruleset_release(&user);
	cf_strv_release(&req);
	cf_strv_release(&grants);
	cf_strv_release(&argv);
	cf_strv_release(&inj);
	cf_mac_facts_release(&f);
	free(facts);
	return cf_buf_take(&text);
}
