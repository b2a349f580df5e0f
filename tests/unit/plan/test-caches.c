/* SPDX-License-Identifier: MIT */
/*
 * Tool caches in the plan (R39, plan/caches.c), pure, on a fake host: which cache gets an
 * overlay, a redirect or nothing; the order of the mounts (the store in the sandbox's /dev, each
 * protection below a cache after its overlay); the redirects in the environment; and the list
 * the mask maker (exec/linux/bwrap/masks.c) gets in helper mode: bwrap's mounts below an overlay
 * cloned first and attached after it, the helper's own after it, the store detached last.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/bwrap/plan.h"
#include "util/util.h"
#include "../fakefs.h"
#include "../tap.h"

#define HOME "/home/u"
#define WS "/home/u/ws"
#define STATE HOME "/.local/state/confine"
#define STORE STATE "/caches/0123456789abcdef0123456789abcdef"

static struct fakefs fs;

static const struct cf_host host = {
    .home = HOME,
    .workspace = WS,
    .user_rules_file = HOME "/.config/confine/rules.json",
    .cache_dir = HOME "/.cache/confine",
    .state_dir = STATE,
    .uid = 1000,
    .landlock_abi = 7,
    .seccomp = true,
    .kind = fakefs_kind,
    .canonicalize = fakefs_canon,
    .ctx = &fs,
};

static const struct cf_tool *tool(const char *name)
{
	size_t n;
	const struct cf_tool *t = cf_tools(&n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

static struct cf_cache_loc loc(const char *name, const char *path, bool under_xdg)
{
	return (struct cf_cache_loc){.tool = tool(name),
				     .path = cf_strdup(path),
				     .under_xdg = under_xdg,
				     .kind = fakefs_kind(&fs, path)};
}

static void facts(struct cf_cache_facts *f, bool overlay)
{
	memset(f, 0, sizeof(*f));
	f->v = calloc(6, sizeof(*f->v));
	f->v[f->n++] = loc("npm", HOME "/.npm", false);
	f->v[f->n++] = loc("pip", HOME "/.cache/pip", true);
	f->v[f->n++] = loc("cargo", HOME "/.cargo", false);
	f->v[f->n++] = loc("go-mod", HOME "/go/pkg/mod", false);
	f->v[f->n++] = loc("xdg", HOME "/.cache", false);
	f->store = cf_strdup(STORE);
	f->state = cf_strdup(STATE);
	f->overlay = overlay;
}

struct compiled {
	struct cf_policy policy;
	struct cf_plan plan;
	struct cf_cache_facts facts;
	struct confine_error err;
	int rc;
};

static void compile(const struct rspec *rules, size_t n, bool overlay, bool store,
		    struct compiled *c)
{
	memset(c, 0, sizeof(*c));
	facts(&c->facts, overlay);
	if (!store) {
		free(c->facts.store);
		c->facts.store = NULL;
		c->facts.why_not = cf_strdup("a test without a store");
	}
	c->rc = cf_policy_init(&c->policy, &host, &c->err);
	if (c->rc == 0)
		c->rc = fakefs_load_rules(&c->policy, rules, n, WS "/.confine/rules.json",
					  HOME "/.config/confine/rules.json", &c->err);
	struct cf_plan_opts o = {.target = CONFINE_TARGET_LINUX,
				 .network = true,
				 .tmp_size = 1 << 20,
				 .caches = &c->facts,
				 .cache_work = "w.1.2"};
	if (c->rc == 0)
		c->rc = cf_plan_compile(&c->policy, NULL, &o, &c->plan, &c->err);
}

static void release(struct compiled *c)
{
	if (c->rc == 0)
		cf_plan_release(&c->plan);
	cf_policy_release(&c->policy);
	cf_cache_facts_release(&c->facts);
}

static ssize_t find(const struct cf_plan *p, enum cf_mount_op op, const char *path)
{
	for (size_t i = 0; i < p->n_mounts; i++)
		if (p->mounts[i].op == op && !strcmp(p->mounts[i].path, path))
			return (ssize_t)i;
	return -1;
}

static const struct cf_plan_cache *cache(const struct cf_plan *p, const char *tool_name)
{
	for (size_t i = 0; i < p->n_caches; i++)
		if (!strcmp(p->caches[i].tool, tool_name))
			return &p->caches[i];
	return NULL;
}

static bool has_env(const struct cf_plan *p, const char *a)
{
	return cf_strv_contains(&p->cache_env, a);
}

static void fs_base(void)
{
	fakefs_clear(&fs);
	fakefs_add(&fs, WS, CF_KIND_DIR, NULL);
	fakefs_add(&fs, HOME "/.npm/_cacache", CF_KIND_DIR, NULL);
	fakefs_add(&fs, HOME "/.cache/keep", CF_KIND_DIR, NULL);
	fakefs_add(&fs, HOME "/.cache/confine", CF_KIND_DIR, NULL);
	fakefs_add(&fs, HOME "/.cargo/credentials.toml", CF_KIND_FILE, NULL);
	fakefs_add(&fs, STORE "/o", CF_KIND_DIR, NULL);
	fakefs_add(&fs, STORE "/r", CF_KIND_DIR, NULL);
}

static void overlay_mode(void)
{
	struct compiled c;
	compile(NULL, 0, true, true, &c);
	TAP_OK(c.rc == 0, "overlay mode compiles (%s)", c.err.reason);
	if (c.rc)
		return;
	const struct cf_plan *p = &c.plan;
	const struct cf_plan_cache *npm = cache(p, "npm"), *pip = cache(p, "pip"),
				   *go = cache(p, "go-mod"), *xdg = cache(p, "xdg");
	TAP_OK(npm && npm->how == CF_CACHE_OVERLAY && !strcmp(npm->where, STORE "/o/npm/upper") &&
		   !strcmp(npm->work, "w.1.2"),
	       "an existing ~/.npm gets an overlay, its upper layer in the store");
	TAP_OK(xdg && xdg->how == CF_CACHE_OVERLAY, "so does the XDG cache directory");
	TAP_OK(pip && pip->how == CF_CACHE_NONE && strstr(pip->why, "XDG"),
	       "pip's default place inside it follows it (%s)", pip ? pip->why : "");
	TAP_OK(go && go->how == CF_CACHE_REDIRECT && has_env(p, "GOMODCACHE=" STORE "/r/go-mod"),
	       "a missing GOMODCACHE is redirected into the store");
	ssize_t store = find(p, CF_MNT_CACHE_STORE, CF_CACHE_MNT),
		devro = find(p, CF_MNT_REMOUNT_RO, "/dev");
	TAP_OK(store >= 0 && devro > store, "the store is bound in /dev before /dev is read-only");
	ssize_t ov = find(p, CF_MNT_CACHE_OVERLAY, HOME "/.cargo"),
		cred = find(p, CF_MNT_HIDE_FILE, HOME "/.cargo/credentials.toml");
	TAP_OK(ov >= 0 && cred > ov, "~/.cargo/credentials.toml is hidden after (on top of) the "
				     "cargo overlay");
	TAP_OK(find(p, CF_MNT_RO_BIND, HOME "/.cache/confine") < 0,
	       "confine's cache inside the XDG overlay needs no read-only bind: the overlay keeps "
	       "the host's unwritten");
	TAP_OK(find(p, CF_MNT_RW_BIND, STORE "/r") >= 0 && find(p, CF_MNT_HIDE_DIR, STATE) >= 0,
	       "the state directory is hidden, only this store's redirect targets are writable");
	char *text = cf_plan_text(p);
	TAP_OK(text && strstr(text, "tool caches (R39; store " STORE) &&
		   strstr(text, "environment set (tool caches): GOMODCACHE="),
	       "the plan text lists the caches and the redirects");
	free(text);

	/* Helper mode: bwrap's mounts below an overlay are cloned first and attached after it. */
	bool *by = calloc(p->n_mounts + 1, 1);
	cf_plan_helper_split(p, NULL, by);
	TAP_OK(by[ov] && by[find(p, CF_MNT_CACHE_OVERLAY, HOME "/.npm")],
	       "the overlays are the mask maker's");
	struct cf_buf b;
	cf_buf_init(&b);
	cf_plan_helper_list(p, by, &b);
	/* The records, as "op path" lines. */
	struct cf_buf l;
	cf_buf_init(&l);
	for (size_t at = 0; at < b.len;) {
		cf_buf_addf(&l, "%c%s\n", b.s[at], b.s + at + 1);
		at += strlen(b.s + at + 1) + 2;
	}
	const char *s = l.s ? l.s : "";
	const char *o = strstr(s, "o" HOME "/.cargo\nUcargo/upper\nWcargo/w.1.2\n");
	const char *f = strstr(s, "f" HOME "/.cargo/credentials.toml\n");
	const char *u = strstr(s, "u" CF_CACHE_MNT "\n");
	TAP_OK(o && (by[cred] ? f && f > o : strstr(s, "a" HOME "/.cargo/credentials.toml\n") > o),
	       "the overlay record, then the hidden credentials on top");
	TAP_OK(u && u[strlen(u) - 1] == '\n' && !u[strlen("u" CF_CACHE_MNT "\n")],
	       "the store is detached last");
	free(by);
	cf_buf_release(&b);
	cf_buf_release(&l);
	release(&c);
}

static void capture(void)
{
	/* A user's write allow inside the XDG cache: a bind of bwrap's below an overlay. */
	const struct rspec rules[] = {
	    {CF_LAYER_SESSION, CF_ALLOW, HOME "/.cache/keep", CF_ACC_WRITE},
	};
	struct compiled c;
	compile(rules, 1, true, true, &c);
	TAP_OK(c.rc == 0, "a write allow inside an overlaid cache compiles (%s)", c.err.reason);
	if (c.rc)
		return;
	const struct cf_plan *p = &c.plan;
	ssize_t ov = find(p, CF_MNT_CACHE_OVERLAY, HOME "/.cache"),
		rw = find(p, CF_MNT_RW_BIND, HOME "/.cache/keep");
	TAP_OK(ov >= 0 && rw > ov, "the host's ~/.cache/keep is bound after the overlay");
	bool *by = calloc(p->n_mounts + 1, 1);
	cf_plan_helper_split(p, NULL, by);
	struct cf_buf b;
	cf_buf_init(&b);
	cf_plan_helper_list(p, by, &b);
	TAP_OK(!by[rw] && b.len && b.s[0] == 'c' && !strcmp(b.s + 1, HOME "/.cache/keep"),
	       "bwrap binds it; the mask maker clones it before any overlay (first record)");
	const char *o = NULL, *a = NULL;
	for (size_t at = 0; at < b.len; at += strlen(b.s + at + 1) + 2) {
		if (b.s[at] == 'o' && !strcmp(b.s + at + 1, HOME "/.cache"))
			o = b.s + at;
		if (b.s[at] == 'a' && !strcmp(b.s + at + 1, HOME "/.cache/keep"))
			a = b.s + at;
	}
	TAP_OK(o && a && a > o, "and attaches it after the overlay");
	free(by);
	cf_buf_release(&b);
	release(&c);
}

static void redirect_mode(void)
{
	struct compiled c;
	compile(NULL, 0, false, true, &c);
	TAP_OK(c.rc == 0, "redirect mode compiles");
	if (c.rc)
		return;
	const struct cf_plan *p = &c.plan;
	TAP_OK(!p->cache_overlay && find(p, CF_MNT_CACHE_STORE, CF_CACHE_MNT) < 0 &&
		   find(p, CF_MNT_CACHE_OVERLAY, HOME "/.npm") < 0,
	       "no overlay and no store mount");
	TAP_OK(has_env(p, "npm_config_cache=" STORE "/r/npm") &&
		   has_env(p, "CARGO_HOME=" STORE "/r/cargo") &&
		   has_env(p, "XDG_CACHE_HOME=" STORE "/r/xdg"),
	       "npm, cargo and the XDG cache are redirected into the store");
	const struct cf_plan_cache *pip = cache(p, "pip");
	TAP_OK(pip && pip->how == CF_CACHE_NONE && strstr(pip->why, "XDG_CACHE_HOME"),
	       "pip follows XDG_CACHE_HOME");
	TAP_OK(find(p, CF_MNT_RW_BIND, STORE "/r") >= 0, "the redirect targets are writable");
	release(&c);
}

static void rules_decide(void)
{
	const struct rspec rules[] = {
	    {CF_LAYER_SESSION, CF_ALLOW, HOME "/.npm", CF_ACC_WRITE},
	    {CF_LAYER_SESSION, CF_DENY, HOME "/.cargo", CF_ACC_READ},
	};
	struct compiled c;
	compile(rules, 2, true, true, &c);
	TAP_OK(c.rc == 0, "with rules on the caches");
	if (c.rc)
		return;
	const struct cf_plan_cache *npm = cache(&c.plan, "npm"), *cargo = cache(&c.plan, "cargo");
	TAP_OK(npm && npm->how == CF_CACHE_NONE && strstr(npm->why, "writable"),
	       "an explicit write allow keeps the host's cache writable (no overlay)");
	TAP_OK(cargo && cargo->how == CF_CACHE_NONE && strstr(cargo->why, "hidden"),
	       "a cache a rule hides stays hidden");
	TAP_OK(find(&c.plan, CF_MNT_RW_BIND, HOME "/.npm") >= 0, "~/.npm is a read-write bind");
	release(&c);
	compile(NULL, 0, true, false, &c);
	TAP_OK(c.rc == 0 && !c.plan.n_caches && c.plan.notes.n &&
		   strstr(c.plan.notes.v[c.plan.notes.n - 1], "tool caches: not private"),
	       "without a store: no private caches, and the plan says why");
	release(&c);
}

/* The note of a plan for another system (cf_cache_store_note): the store, why, the redirects
 * each after a space; without a store none of them, and the target's own ending. */
static void store_note(void)
{
	struct cf_strv env = {0};
	cf_strv_add(&env, "A=/s/r/a");
	cf_strv_add(&env, "B+=-x=/s/r/b");
	char *t = cf_cache_store_note("/s/r", &env, "cold", ": not writable");
	TAP_STREQ(t,
		  "tool caches (R39): redirected into confine's store for this workspace, /s/r, "
		  "writable (cold): A=/s/r/a B+=-x=/s/r/b",
		  "store note: the store, why and every redirect");
	free(t);
	t = cf_cache_store_note(NULL, &env, "cold", ": not writable");
	TAP_STREQ(t,
		  "tool caches (R39): not private (--cache-size 0, or the workspace's path is too "
		  "long for a store's name): not writable",
		  "store note without a store: no redirect, the target's ending");
	free(t);
	struct cf_strv none = {0};
	t = cf_cache_store_note("/s/r", &none, "cold", "");
	TAP_STREQ(t,
		  "tool caches (R39): redirected into confine's store for this workspace, /s/r, "
		  "writable (cold):",
		  "store note without redirects: ends at the colon");
	free(t);
	cf_strv_release(&env);
}

int main(void)
{
	store_note();
	fs_base();
	overlay_mode();
	capture();
	redirect_mode();
	rules_decide();
	fakefs_clear(&fs);
	return tap_done();
}
