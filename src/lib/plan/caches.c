/* SPDX-License-Identifier: MIT */
/* Tool caches (R39): which cache gets an overlay, which a redirect.  See caches.h.  Pure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/caches.h"
#include "plan/bwrap/plan.h"
#include "util/utf8.h"
#include "util/util.h"

/* The XDG cache directory is the last entry: the tools whose default lives in it follow it. */
static const struct cf_tool tools[] = {
    {"npm", "npm_config_cache", "NPM_CONFIG_CACHE", "~/.npm", "npm_config_cache"},
    {"yarn", "YARN_CACHE_FOLDER", NULL, "xdg:yarn", "YARN_CACHE_FOLDER"},
    {"yarn-berry", "YARN_GLOBAL_FOLDER", NULL, "~/.yarn/berry", "YARN_GLOBAL_FOLDER"},
    {"pnpm", "PNPM_HOME", NULL, "data:pnpm", "PNPM_HOME"},
    {"pip", "PIP_CACHE_DIR", NULL, "xdg:pip", "PIP_CACHE_DIR"},
    {"uv", "UV_CACHE_DIR", NULL, "xdg:uv", "UV_CACHE_DIR"},
    {"cargo", "CARGO_HOME", NULL, "~/.cargo", "CARGO_HOME"},
    {"go-mod", "GOMODCACHE", NULL, "gopath:pkg/mod", "GOMODCACHE"},
    {"go-build", "GOCACHE", NULL, "xdg:go-build", "GOCACHE"},
    {"gradle", "GRADLE_USER_HOME", NULL, "~/.gradle", "GRADLE_USER_HOME"},
    {"maven", NULL, NULL, "~/.m2", "MAVEN_OPTS+=-Dmaven.repo.local="},
    {"xdg", "XDG_CACHE_HOME", NULL, "~/.cache", "XDG_CACHE_HOME"},
};

const struct cf_tool *cf_tools(size_t *n)
{
	*n = sizeof(tools) / sizeof(tools[0]);
	return tools;
}

void cf_cache_facts_release(struct cf_cache_facts *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i].path);
	free(f->v);
	free(f->store);
	free(f->state);
	free(f->why_not);
	memset(f, 0, sizeof(*f));
}

char *cf_cache_store_overlay(const char *store)
{
	return cf_path_join(store, "o");
}

char *cf_cache_store_redirect(const char *store)
{
	return cf_path_join(store, "r");
}

void cf_plan_caches_release(struct cf_plan *plan)
{
	for (size_t i = 0; i < plan->n_caches; i++) {
		struct cf_plan_cache *c = &plan->caches[i];
		free(c->tool);
		free(c->path);
		free(c->where);
		free(c->work);
		free(c->why);
	}
	free(plan->caches);
	plan->caches = NULL;
	plan->n_caches = 0;
	cf_strv_release(&plan->cache_env);
	free(plan->cache_store);
	plan->cache_store = NULL;
}

/* An overlay here would not be a cache: the root, a home, the workspace or confine's state
 * inside it, or it inside confine's state. */
static const char *not_overlayable(const struct cf_policy *p, const struct cf_cache_facts *f,
				   const char *path)
{
	const struct cf_host *h = p->host;
	const char *inside[] = {h->workspace, h->home, h->pw_home, f->state};
	if (!strcmp(path, "/"))
		return "it is the root directory";
	for (size_t i = 0; i < sizeof(inside) / sizeof(inside[0]); i++)
		if (inside[i] && cf_path_within(inside[i], path))
			return "it holds the workspace, a home or confine's state";
	if (f->state && cf_path_within(path, f->state))
		return "it lies in confine's state";
	return NULL;
}

/* How one cache is treated, with *why when it is not. */
static enum cf_cache_how decide(const struct cf_policy *p, const struct cf_cache_facts *f,
				const struct cf_cache_loc *l, const struct cf_plan_cache *done,
				size_t n_done, const char **why)
{
	/* Inside a cache that gets an overlay: that one covers it. */
	for (size_t i = 0; i < n_done; i++)
		if (done[i].how == CF_CACHE_OVERLAY && cf_path_within(l->path, done[i].path)) {
			*why = "inside another cache's overlay";
			return CF_CACHE_NONE;
		}
	struct cf_decision rd, wr;
	cf_policy_decide_both(p, l->path, &rd, &wr);
	if (rd.action != CF_ALLOW) {
		*why = "hidden by a rule";
		return CF_CACHE_NONE;
	}
	if (wr.action == CF_ALLOW) {
		*why = "writable already (a rule, the workspace or a temp root)";
		return CF_CACHE_NONE;
	}
	if (f->overlay && l->kind == CF_KIND_DIR && !not_overlayable(p, f, l->path))
		return CF_CACHE_OVERLAY;
	if (!l->tool->redirect) {
		*why = "no variable moves it, and no overlay is made here";
		return CF_CACHE_NONE;
	}
	return CF_CACHE_REDIRECT;
}

/* The assignment that moves one tool into `dir`. */
static int assignment(struct cf_plan *plan, const struct cf_tool *t, const char *dir)
{
	const char *plus = strstr(t->redirect, "+=");
	char *a =
	    plus ? cf_asprintf("%s%s", t->redirect, dir) : cf_asprintf("%s=%s", t->redirect, dir);
	return a && cf_strv_take(&plan->cache_env, a) == 0 ? 0 : CONFINE_E_NOMEM;
}

static int add_cache(struct cf_plan *plan, const struct cf_cache_loc *l, enum cf_cache_how how,
		     const char *why, const struct cf_cache_facts *f, const char *work)
{
	struct cf_plan_cache *v = realloc(plan->caches, (plan->n_caches + 1) * sizeof(*v));
	if (!v)
		return CONFINE_E_NOMEM;
	plan->caches = v;
	struct cf_plan_cache *c = &v[plan->n_caches];
	memset(c, 0, sizeof(*c));
	plan->n_caches++;
	c->how = how;
	if (!(c->tool = cf_strdup(l->tool->name)) || !(c->path = cf_strdup(l->path)))
		return CONFINE_E_NOMEM;
	if (how == CF_CACHE_NONE)
		return (c->why = cf_strdup(why)) ? 0 : CONFINE_E_NOMEM;
	char *base = how == CF_CACHE_OVERLAY ? cf_cache_store_overlay(f->store)
					     : cf_cache_store_redirect(f->store);
	char *dir = base ? cf_path_join(base, l->tool->name) : NULL;
	free(base);
	if (!dir)
		return CONFINE_E_NOMEM;
	if (how == CF_CACHE_REDIRECT) {
		c->where = dir;
		return assignment(plan, l->tool, dir);
	}
	char upper[32];
	snprintf(upper, sizeof(upper), f->slot ? "upper.%d" : "upper", f->slot);
	c->where = cf_path_join(dir, upper);
	c->work = cf_strdup(work);
	free(dir);
	return c->where && c->work ? 0 : CONFINE_E_NOMEM;
}

int cf_plan_caches_decide(const struct cf_policy *p, const struct cf_cache_facts *f,
			  const char *work, struct cf_plan *plan, struct confine_error *err)
{
	if (!f || !f->n)
		return 0;
	if (!f->store) {
		char *t = cf_asprintf("tool caches: not private (%s): tools see the host's caches "
				      "read-only",
				      f->why_not ? f->why_not : "no store");
		return t && cf_strv_take(&plan->notes, t) == 0 ? 0 : cf_nomem(err);
	}
	/* Parents first, so that a cache inside an overlaid one is seen covered. */
	size_t *order = malloc(f->n * sizeof(*order));
	if (!order)
		return cf_nomem(err);
	for (size_t i = 0; i < f->n; i++)
		order[i] = i;
	for (size_t i = 1; i < f->n; i++)
		for (size_t j = i;
		     j > 0 && cf_path_cmp(f->v[order[j - 1]].path, f->v[order[j]].path) > 0; j--) {
			size_t t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	/* The XDG cache directory decides for the tools whose default lives in it. */
	enum cf_cache_how xdg = CF_CACHE_NONE;
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->v[i].tool->name, "xdg")) {
			const char *why = NULL;
			xdg = decide(p, f, &f->v[i], NULL, 0, &why);
		}
	int r = 0;
	for (size_t k = 0; k < f->n && r == 0; k++) {
		const struct cf_cache_loc *l = &f->v[order[k]];
		const char *why = NULL;
		enum cf_cache_how how;
		if (l->under_xdg && xdg != CF_CACHE_NONE) {
			how = CF_CACHE_NONE;
			why = xdg == CF_CACHE_OVERLAY ? "inside the XDG cache directory's overlay"
						      : "follows XDG_CACHE_HOME";
		} else {
			how = decide(p, f, l, plan->caches, plan->n_caches, &why);
		}
		r = add_cache(plan, l, how, why, f, work);
	}
	free(order);
	if (r < 0)
		return cf_nomem(err);
	/* Where the store goes in: the overlay data bound privately, or the redirect targets made
	 * writable (their own directory only: the rest of confine's state stays hidden). */
	bool overlay = false, redirect = false;
	for (size_t i = 0; i < plan->n_caches; i++) {
		overlay |= plan->caches[i].how == CF_CACHE_OVERLAY;
		redirect |= plan->caches[i].how == CF_CACHE_REDIRECT;
	}
	plan->cache_overlay = overlay;
	plan->cache_redirect = redirect;
	plan->cache_store = cf_strdup(f->store);
	return plan->cache_store ? 0 : cf_nomem(err);
}

static const char *how_name(enum cf_cache_how h)
{
	return h == CF_CACHE_OVERLAY ? "overlay" : h == CF_CACHE_REDIRECT ? "redirect" : "none";
}

void cf_plan_caches_text(struct cf_buf *b, const struct cf_plan *plan)
{
	if (!plan->n_caches)
		return;
	cf_buf_add(b, "tool caches (R39; store ");
	cf_buf_add_display(b, plan->cache_store, 0);
	cf_buf_add(b, ", hidden from the command):\n");
	for (size_t i = 0; i < plan->n_caches; i++) {
		const struct cf_plan_cache *c = &plan->caches[i];
		cf_buf_addf(b, "  %-10s ", c->tool);
		cf_buf_add_display(b, c->path, 0);
		if (c->how == CF_CACHE_OVERLAY) {
			cf_buf_add(b, "  overlay: the host's read, writes to ");
			cf_buf_add_display(b, c->where, 0);
			cf_buf_addc(b, '\n');
		} else if (c->how == CF_CACHE_REDIRECT) {
			cf_buf_add(b, "  redirect: to ");
			cf_buf_add_display(b, c->where, 0);
			cf_buf_add(b, " (cold: the host's is not read)\n");
		} else {
			cf_buf_add(b, "  none: ");
			cf_buf_add_display(b, c->why ? c->why : "", 0);
			cf_buf_addc(b, '\n');
		}
	}
	if (plan->cache_env.n) {
		cf_buf_add(b, "environment set (tool caches):");
		for (size_t i = 0; i < plan->cache_env.n; i++) {
			cf_buf_addc(b, ' ');
			cf_buf_add_display(b, plan->cache_env.v[i], 0);
		}
		cf_buf_addc(b, '\n');
	}
}

void cf_plan_caches_json(struct cf_buf *b, const struct cf_plan *plan)
{
	if (!plan->n_caches)
		return;
	cf_buf_add(b, ",\"tool_caches\":{\"store\":");
	cf_buf_add_json(b, plan->cache_store);
	cf_buf_add(b, ",\"caches\":[");
	for (size_t i = 0; i < plan->n_caches; i++) {
		const struct cf_plan_cache *c = &plan->caches[i];
		cf_buf_addf(b, "%s{\"tool\":", i ? "," : "");
		cf_buf_add_json(b, c->tool);
		cf_buf_add(b, ",\"path\":");
		cf_buf_add_json(b, c->path);
		cf_buf_addf(b, ",\"how\":\"%s\"", how_name(c->how));
		if (c->where) {
			cf_buf_add(b, ",\"store\":");
			cf_buf_add_json(b, c->where);
		}
		if (c->why) {
			cf_buf_add(b, ",\"why\":");
			cf_buf_add_json(b, c->why);
		}
		cf_buf_addc(b, '}');
	}
	cf_buf_add(b, "],\"env\":[");
	for (size_t i = 0; i < plan->cache_env.n; i++) {
		if (i)
			cf_buf_addc(b, ',');
		cf_buf_add_json(b, plan->cache_env.v[i]);
	}
	cf_buf_add(b, "]}");
}

/* ---- plans for another system: redirects only (macOS, Windows) ------------------------------ */

char *cf_cache_store_by_path(const char *base, const char *workspace, char sep)
{
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_addf(&b, "%s%cp-", base, sep);
	size_t start = b.len;
	for (const unsigned char *p = (const unsigned char *)workspace; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-')
			cf_buf_addc(&b, (char)*p);
		else
			cf_buf_addf(&b, "%%%02X", *p);
	}
	/* One name per workspace path, by construction (the escaping is one to one); a path whose
	 * name would not fit a directory entry gets no store. */
	if (b.len - start > 200 || b.oom) {
		cf_buf_release(&b);
		return NULL;
	}
	cf_buf_addf(&b, "%cr", sep);
	return cf_buf_take(&b);
}

int cf_cache_redirects_for(const char *dir, char sep, bool windows, struct cf_strv *env)
{
	size_t n;
	const struct cf_tool *t = cf_tools(&n);
	for (size_t i = 0; i < n; i++) {
		/* Windows' tools know no XDG cache directory: each is moved by its own variable. */
		if (!t[i].redirect || (windows && !strcmp(t[i].name, "xdg")))
			continue;
		const char *plus = strstr(t[i].redirect, "+=");
		char *a = plus ? cf_asprintf("%s%s%c%s", t[i].redirect, dir, sep, t[i].name)
			       : cf_asprintf("%s=%s%c%s", t[i].redirect, dir, sep, t[i].name);
		if (!a || cf_strv_take(env, a) < 0)
			return CONFINE_E_NOMEM;
	}
	return 0;
}

int cf_cache_store_allow(struct cf_ruleset *session, char *store, char sep, bool windows,
			 struct cf_strv *env, struct confine_error *err)
{
	struct cf_rule r = {.pattern = store,
			    .access = CF_ACC_WRITE,
			    .action = CF_ALLOW,
			    .layer = CF_LAYER_SESSION,
			    .source = "session",
			    .index = (int)session->n};
	int e = cf_ruleset_add(session, &r, err);
	if (e < 0)
		return e;
	return cf_cache_redirects_for(store, sep, windows, env) < 0 ? cf_nomem(err) : 0;
}

char *cf_cache_store_note(const char *store, const struct cf_strv *env, const char *why,
			  const char *without)
{
	struct cf_buf b;
	cf_buf_init(&b);
	if (!store)
		cf_buf_addf(
		    &b,
		    "tool caches (R39): not private (--cache-size 0, or the workspace's path "
		    "is too long for a store's name)%s",
		    without);
	else
		cf_buf_addf(
		    &b,
		    "tool caches (R39): redirected into confine's store for this workspace, "
		    "%s, writable (%s):",
		    store, why);
	for (size_t i = 0; store && i < env->n; i++)
		cf_buf_addf(&b, " %s", env->v[i]);
	return cf_buf_take(&b);
}
