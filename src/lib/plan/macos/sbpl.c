/* SPDX-License-Identifier: MIT */
/*
 * The Seatbelt profile compiler (SPEC 9, R25, R26); the shape of the profile is described in
 * sbpl.h.  The policy decides as on every target; what this file adds is the translation of
 * first-match-wins layers into a last-match-wins profile, the Mac's read posture, and the
 * checks that keep every string of the profile one that passed validation.
 *
 * Nothing user-controlled is written without going through put_string() or put_regex(), and
 * both refuse (fail closed) what was not checked: put_string() re-checks every string with the
 * R26 rule, put_regex() accepts only what the regex writer can produce.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/macos/sbpl.h"
#include "policy/policy.h"
#include "util/util.h"

/* Reading a path: its data, its metadata, an existence test, mapping it executable. */
#define READ_OPS "file-read* file-test-existence file-map-executable"
#define WRITE_OPS "file-write*"

/* Read and write guards a Mac adds to the list of SPEC 2.3: its credential stores, browser
 * and mail data, Docker Desktop's engine socket; the host's password database and the key of
 * the System keychain. */
static const char *const mac_home_guards[] = {
    "~/Library/Keychains",
    "~/Library/Cookies",
    "~/Library/Safari",
    "~/Library/Mail",
    "~/Library/Messages",
    "~/Library/Application Support/Google/Chrome",
    "~/Library/Application Support/Firefox",
    "~/Library/Application Support/BraveSoftware",
    "~/.docker/run",
};
static const char *const mac_host_guards[] = {
    "/private/etc/master.passwd",
    "/private/var/db/dslocal",
    "/private/var/db/SystemKey",
};

/* The system read roots (SPEC 9).  /private/var/select holds the link that /bin/sh follows to
 * pick its shell, /private/var/db/timezone the zone files behind /etc/localtime. */
static const char *const system_roots[] = {
    "/usr",
    "/bin",
    "/sbin",
    "/System",
    "/Library",
    "/Applications",
    "/opt",
    "/dev",
    "/private/etc",
    "/private/var/select",
    "/private/var/db/timezone",
};
/* The top-level links themselves (readlink, lstat): their targets are canonical already. */
static const char *const root_links[] = {"/etc", "/tmp", "/var"};

/* Devices the command may open for writing; terminals also take ioctls (tcsetattr). */
static const char *const write_devices[] = {"/dev/null", "/dev/zero", "/dev/tty", "/dev/ptmx"};
static const char *const device_regexes[] = {"^/dev/ttys[0-9]+$", "^/dev/fd/[0-9]+$"};

/* The system resolver's socket: name resolution when the network is on. */
#define RESOLVER_SOCKET "/private/var/run/mDNSResponder"

void cf_mac_plan_release(struct cf_mac_plan *plan)
{
	if (!plan)
		return;
	free(plan->profile);
	free(plan->home);
	free(plan->workspace);
	free(plan->cwd);
	cf_strv_release(&plan->argv);
	cf_strv_release(&plan->env);
	cf_strv_release(&plan->env_removed);
	cf_strv_release(&plan->injections);
	cf_strv_release(&plan->notes);
	cf_strv_release(&plan->strings);
	cf_strv_release(&plan->regexes);
	memset(plan, 0, sizeof(*plan));
}

/* ---- the policy ---- */

static int add_builtin(struct cf_policy *p, const char *const *pats, size_t n,
		       struct confine_error *err)
{
	struct cf_ruleset rs = {0};
	int r = 0;
	for (size_t i = 0; i < n && r == 0; i++) {
		struct cf_rule x = {
		    .pattern = (char *)pats[i],
		    .access = CF_ACC_BOTH,
		    .action = CF_ASK,
		    .layer = CF_LAYER_GUARD,
		    .source = "builtin",
		    .index = (int)(p->layers[CF_LAYER_GUARD].n + i),
		};
		r = cf_ruleset_add(&rs, &x, err);
	}
	if (r == 0)
		r = cf_policy_add_rules(p, CF_LAYER_GUARD, &rs, err);
	cf_ruleset_release(&rs);
	return r;
}

/* R1 on a Mac: not /, not the home or above it, no guarded credential path inside. */
static int check_workspace(const struct cf_policy *p, const char *ws, const char *home,
			   struct confine_error *err)
{
	int r = 0;
	if (!strcmp(ws, "/")) {
		r = cf_err(err, CONFINE_E_WORKSPACE, "workspace refused", ws,
			   "it is the root directory '/'");
	} else if (cf_path_within(home, ws)) {
		r = cf_err(err, CONFINE_E_WORKSPACE, "workspace refused", ws,
			   strcmp(ws, home) ? "it is an ancestor of the home directory"
					    : "it is the home directory");
	} else {
		const struct cf_ruleset *g = &p->layers[CF_LAYER_GUARD];
		for (size_t i = 0; i < g->n && r == 0; i++)
			if (!strncmp(g->v[i].pattern, "~/", 2) && !g->v[i].glob &&
			    cf_path_within(g->v[i].path, ws))
				r = cf_err(err, CONFINE_E_WORKSPACE, "workspace refused", ws,
					   "it contains the guarded credential path '%s'",
					   g->v[i].pattern);
	}
	if (r < 0)
		cf_err_hint(err, "run confine from a project directory, or pass --workspace DIR");
	return r;
}

/* Every resolved path of a layer must be one a profile can hold (R26), or the rule is refused
 * with its place in its file. */
static int check_layer(const struct cf_ruleset *rs, struct confine_error *err)
{
	for (size_t i = 0; i < rs->n; i++) {
		const struct cf_rule *x = &rs->v[i];
		const char *why = cf_mac_string_problem(x->path, strlen(x->path), true);
		if (!why)
			continue;
		char *shown = cf_mac_shown(x->path, strlen(x->path));
		bool in_file = x->line > 0;
		cf_err(
		    err, CONFINE_E_RULES, "rule refused for the macOS profile",
		    in_file ? x->source : (shown ? shown : "?"),
		    "'%s': %s; a Seatbelt profile takes no quote, backslash, NUL, control "
		    "character or invalid UTF-8 in a path, and confine refuses such a path rather "
		    "than escape it",
		    shown ? shown : "?", why);
		if (err && in_file) {
			err->line = x->line;
			err->column = x->column;
		}
		free(shown);
		return CONFINE_E_RULES;
	}
	return 0;
}

/* The built-in host guards with wildcards ("/etc/ssh/ssh_host_*_key") keep their prefix as
 * written; on a Mac /etc is a link, and Seatbelt matches the resolved path.  Canonicalising
 * the literal prefix of every rule again is a no-op for the others. */
static int recanon(const struct cf_mac_host *h, struct cf_rule *x, struct confine_error *err)
{
	size_t plen = x->glob ? x->prefix_len : strlen(x->path);
	char *prefix = cf_strndup(x->path, plen ? plen : 1), *canon = NULL;
	if (!prefix)
		return cf_nomem(err);
	int r = h->canonicalize(h->ctx, prefix, &canon, err);
	free(prefix);
	if (r < 0)
		return r;
	const char *rest = x->path + plen;
	while (*rest == '/')
		rest++;
	char *full =
	    *rest ? cf_asprintf("%s/%s", strcmp(canon, "/") ? canon : "", rest) : cf_strdup(canon);
	size_t clen = strlen(canon);
	free(canon);
	if (!full)
		return cf_nomem(err);
	free(x->path);
	x->path = full;
	x->prefix_len = x->glob ? (clen == 1 ? 1 : clen) : strlen(full);
	return 0;
}

int cf_mac_policy(const struct cf_mac_input *in, struct cf_host *ph, struct cf_policy *p,
		  struct confine_error *err)
{
	const struct cf_mac_host *h = in->host;
	int r;
	*ph = (struct cf_host){
	    .home = h->home,
	    .workspace = h->workspace,
	    .user_rules_file = h->user_rules,
	    .ssh_auth_sock_dir = h->ssh_auth_sock_dir,
	    .kind = h->kind,
	    .canonicalize = h->canonicalize,
	    .ctx = h->ctx,
	};
	const char *facts[] = {h->home, h->workspace, h->user_rules};
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		if (!facts[i])
			return cf_err(
			    err, CONFINE_E_INVALID, "invalid host facts", "",
			    "the home, the workspace and the user rule file must be known");
		if ((r = cf_mac_check_path(facts[i], "invalid host facts", err)) < 0)
			return r;
	}
	if ((r = cf_policy_init(p, ph, err)) < 0)
		goto fail;
	/* The fallback's write roots on a Mac: /private/tmp and $TMPDIR, canonical. */
	cf_strv_release(&p->temp_roots);
	for (size_t i = 0; h->temp && i < h->temp->n; i++)
		if (cf_strv_add(&p->temp_roots, h->temp->v[i]) < 0) {
			r = cf_nomem(err);
			goto fail;
		}
	if ((r = add_builtin(p, mac_home_guards, sizeof(mac_home_guards) / sizeof(char *), err)) <
		0 ||
	    (r = add_builtin(p, mac_host_guards, sizeof(mac_host_guards) / sizeof(char *), err)) <
		0 ||
	    (r = check_workspace(p, h->workspace, h->home, err)) < 0)
		goto fail;
	const struct cf_ruleset *layers[] = {in->session, in->workspace_rules, in->user_rules};
	const enum cf_layer ids[] = {CF_LAYER_SESSION, CF_LAYER_WORKSPACE, CF_LAYER_USER};
	for (size_t i = 0; i < 3; i++)
		if (layers[i] && (r = cf_policy_add_rules(p, ids[i], layers[i], err)) < 0)
			goto fail;
	for (int l = 0; l < CF_LAYER_FALLBACK; l++) {
		struct cf_ruleset *rs = &p->layers[l];
		for (size_t i = 0; i < rs->n; i++)
			if ((r = recanon(h, &rs->v[i], err)) < 0)
				goto fail;
		if ((r = check_layer(rs, err)) < 0)
			goto fail;
		/* SPEC 2.2: compiled for macOS, patterns match case-insensitively. */
		for (size_t i = 0; i < rs->n; i++)
			if (rs->v[i].glob)
				rs->v[i].fold_case = true;
	}
	return 0;
fail:
	cf_policy_release(p);
	memset(p, 0, sizeof(*p));
	return r;
}

/* ---- writing the profile ---- */

struct ctx {
	const struct cf_mac_input *in;
	const struct cf_mac_host *h;
	struct cf_policy p;
	struct cf_host ph;
	struct cf_mac_plan *out;
	struct cf_buf b;
	struct confine_error *err;
	int r;		       /* the first failure while writing */
	struct cf_strv wroots; /* writable roots: workspace, temp roots, write allows, grants */
	struct cf_strv rroots; /* read at the fallback's priority: write allows and grants */
};

static void fail(struct ctx *c, int r)
{
	if (c->r == 0)
		c->r = r;
}

/* A string literal.  Re-checked here whatever the caller checked before: a profile never holds
 * a string that did not pass R26. */
static void put_string(struct ctx *c, const char *s)
{
	const char *why = cf_mac_string_problem(s, strlen(s), s[0] == '/');
	if (why) {
		char *shown = cf_mac_shown(s, strlen(s));
		fail(c, cf_err(c->err, CONFINE_E_INVALID, "path refused for the macOS profile",
			       shown ? shown : "?", "%s", why));
		free(shown);
		return;
	}
	cf_buf_addc(&c->b, '"');
	cf_buf_add(&c->b, s);
	cf_buf_addc(&c->b, '"');
	if (cf_strv_add(&c->out->strings, s) < 0)
		fail(c, cf_nomem(c->err));
}

/* A regex literal, #"...": what the regex writer produces is ASCII punctuation, digits,
 * letters and the bytes of checked paths; a quote or a control character can only come from
 * a bug, and is refused. */
static void put_regex(struct ctx *c, const char *re)
{
	if (!re) {
		fail(c, cf_nomem(c->err));
		return;
	}
	if (cf_mac_regex_problem(re)) {
		fail(c, cf_err(c->err, CONFINE_E_PLAN, "internal error", "regex",
			       "a regex for the profile failed its own check: %s",
			       cf_mac_regex_problem(re)));
		return;
	}
	cf_buf_add(&c->b, "#\"");
	cf_buf_add(&c->b, re);
	cf_buf_addc(&c->b, '"');
	if (cf_strv_add(&c->out->regexes, re) < 0)
		fail(c, cf_nomem(c->err));
}

static void add(struct ctx *c, const char *s)
{
	cf_buf_add(&c->b, s);
}

static void put_filter(struct ctx *c, const char *kind, const char *path)
{
	add(c, " (");
	add(c, kind);
	add(c, " ");
	put_string(c, path);
	add(c, ")");
}

static void put_regex_filter(struct ctx *c, const char *re)
{
	add(c, " (regex ");
	put_regex(c, re);
	add(c, ")");
}

/* A comment line.  Only fixed words, numbers and built-in patterns go into comments (a
 * newline in one would end the comment). */
static void comment(struct ctx *c, const char *text)
{
	for (const char *t = text; *t; t++)
		if ((unsigned char)*t < 0x20 || *t == 0x7f)
			return;
	add(c, "; ");
	add(c, text);
	add(c, "\n");
}

static const char *ops(unsigned access)
{
	switch (access) {
	case CF_ACC_READ:
		return READ_OPS;
	case CF_ACC_WRITE:
		return WRITE_OPS;
	default:
		return READ_OPS " " WRITE_OPS;
	}
}

/* True when `a` is a strict ancestor of the workspace: a rule there does not reach into it. */
static bool above_ws(const struct ctx *c, const char *a)
{
	return cf_path_within(c->h->workspace, a) && strcmp(c->h->workspace, a) != 0;
}

/* The filters of a rule (several filters in one rule: any of them matches). */
static void rule_filters(struct ctx *c, const struct cf_rule *r, bool deny)
{
	const char *ws = c->h->workspace;
	if (!r->glob) {
		char *ci = deny ? cf_mac_path_regex_ci(r->path) : NULL;
		if (deny && !ci) {
			fail(c, cf_nomem(c->err));
			return;
		}
		bool outside = above_ws(c, r->path);
		if (outside)
			add(c, " (require-all");
		if (outside && deny)
			add(c, " (require-any");
		put_filter(c, "subpath", r->path);
		/* Another spelling of the same name on a case-insensitive volume is the same
		 * file: a deny covers every spelling (an allow only the canonical one). */
		if (deny)
			put_regex_filter(c, ci);
		if (outside && deny)
			add(c, ")");
		if (outside) {
			add(c, " (require-not");
			put_filter(c, "subpath", ws);
			add(c, "))");
		}
		free(ci);
		return;
	}
	char *prefix = cf_strndup(r->path, r->prefix_len ? r->prefix_len : 1);
	char *re = cf_mac_glob_regex(r->path, deny);
	if (!prefix || !re) {
		free(prefix);
		free(re);
		fail(c, cf_nomem(c->err));
		return;
	}
	if (above_ws(c, prefix)) {
		char *in = cf_mac_glob_regex_within(r->path, ws, deny);
		if (!in) {
			fail(c, cf_nomem(c->err));
		} else {
			add(c, " (require-all");
			put_regex_filter(c, re);
			add(c, " (require-not");
			put_filter(c, "subpath", ws);
			add(c, "))");
			if (in[0])
				put_regex_filter(c, in);
		}
		free(in);
	} else {
		put_regex_filter(c, re);
	}
	free(prefix);
	free(re);
}

static void rule_comment(struct ctx *c, const struct cf_rule *r, const char *what)
{
	char *t;
	if (!strcmp(r->source, "builtin"))
		t = cf_asprintf("%s %s: %s %s", cf_layer_name(r->layer), r->pattern, what,
				cf_access_name(r->access));
	else if (r->line > 0)
		t = cf_asprintf("%s rule %d (line %d): %s %s", cf_layer_name(r->layer), r->index,
				r->line, what, cf_access_name(r->access));
	else
		t = cf_asprintf("%s rule %d: %s %s", cf_layer_name(r->layer), r->index, what,
				cf_access_name(r->access));
	if (!t) {
		fail(c, cf_nomem(c->err));
		return;
	}
	comment(c, t);
	free(t);
}

/*
 * One rule.  ask and deny both deny.  A path hidden for reading is not writable either (as on
 * Linux, where the fallback's write allow does not reach a hidden path), which also keeps a
 * rename from carrying the path out of its read protection.
 */
static void emit_rule(struct ctx *c, const struct cf_rule *r)
{
	bool deny = r->action != CF_ALLOW;
	unsigned access = r->access;
	if (deny && (access & CF_ACC_READ))
		access = CF_ACC_BOTH;
	rule_comment(c, r, deny ? (r->action == CF_ASK ? "ask (denied)" : "deny") : "allow");
	add(c, deny ? "(deny " : "(allow ");
	add(c, ops(access));
	rule_filters(c, r, deny);
	add(c, ")\n");
}

/* The allows that give back paths below a liftable guard (a host socket directory): emitted
 * right after the guard, so that the guard's own higher-priority neighbours still win. */
static void emit_lifts(struct ctx *c, const struct cf_rule *g)
{
	const enum cf_layer layers[] = {CF_LAYER_SESSION, CF_LAYER_USER};
	for (size_t k = 0; k < 2; k++) {
		const struct cf_ruleset *rs = &c->p.layers[layers[k]];
		for (size_t i = 0; i < rs->n; i++) {
			const struct cf_rule *r = &rs->v[i];
			unsigned access = r->access & g->access;
			if (r->action != CF_ALLOW || r->glob || !access ||
			    !cf_path_within(r->path, g->path) || !strcmp(r->path, g->path))
				continue;
			struct cf_rule lift = *r;
			lift.access = access;
			rule_comment(c, r, "allow (lifts the guard above)");
			add(c, "(allow ");
			add(c, ops(access));
			rule_filters(c, &lift, false);
			add(c, ")\n");
		}
	}
}

static void emit_grants(struct ctx *c)
{
	const struct cf_grants *g = c->in->grants;
	for (size_t i = 0; g && i < g->n; i++) {
		char *t = cf_asprintf("approved write target %zu (%s): allow write", i + 1,
				      cf_grant_scope_name(g->v[i].scope));
		if (!t) {
			fail(c, cf_nomem(c->err));
			return;
		}
		comment(c, t);
		free(t);
		add(c, "(allow " WRITE_OPS);
		put_filter(c, g->v[i].scope == CF_GRANT_FILE ? "literal" : "subpath", g->v[i].path);
		add(c, ")\n");
	}
}

static void emit_layers(struct ctx *c)
{
	for (int l = CF_LAYER_USER; l >= CF_LAYER_OVERRIDE; l--) {
		const struct cf_ruleset *rs = &c->p.layers[l];
		if (l == CF_LAYER_OVERRIDE)
			emit_grants(c);
		for (size_t i = rs->n; i-- > 0;) {
			emit_rule(c, &rs->v[i]);
			if (rs->v[i].liftable && !rs->v[i].endpoint)
				emit_lifts(c, &rs->v[i]);
		}
	}
}

static void emit_base(struct ctx *c)
{
	add(c, "(version 1)\n");
	comment(c, "confine " CONFINE_VERSION ": compiled from the rule set (SPEC 9); Seatbelt "
		   "applies the last matching rule, so the lowest priority comes first");
	add(c, "(deny default)\n");
	comment(c, "processes, signals within this sandbox, system information, Mach services "
		   "(load-bearing: programs look services up as they start), POSIX IPC, "
		   "pseudo-terminals, sockets (what they reach is decided below)");
	add(c, "(allow process-exec* process-fork)\n"
	       "(allow signal (target same-sandbox))\n"
	       "(allow process-info* (target same-sandbox))\n"
	       "(allow sysctl-read)\n"
	       "(allow mach*)\n"
	       "(allow ipc-posix-shm ipc-posix-sem)\n"
	       "(allow pseudo-tty)\n"
	       "(allow system-socket)\n");
	comment(c, "devices the command may write to, and terminal ioctls");
	add(c, "(allow " READ_OPS " " WRITE_OPS);
	for (size_t i = 0; i < sizeof(write_devices) / sizeof(write_devices[0]); i++)
		put_filter(c, "literal", write_devices[i]);
	for (size_t i = 0; i < sizeof(device_regexes) / sizeof(device_regexes[0]); i++)
		put_regex_filter(c, device_regexes[i]);
	add(c, ")\n(allow file-ioctl");
	for (size_t i = 2; i < sizeof(write_devices) / sizeof(write_devices[0]); i++)
		put_filter(c, "literal", write_devices[i]);
	put_regex_filter(c, device_regexes[0]);
	add(c, ")\n");
	comment(c, "the system read roots and the root directory itself (load-bearing: dynamically "
		   "linked programs abort when they cannot read \"/\")");
	add(c, "(allow " READ_OPS);
	put_filter(c, "literal", "/");
	for (size_t i = 0; i < sizeof(root_links) / sizeof(root_links[0]); i++)
		put_filter(c, "literal", root_links[i]);
	for (size_t i = 0; i < sizeof(system_roots) / sizeof(system_roots[0]); i++)
		put_filter(c, "subpath", system_roots[i]);
	add(c, ")\n");
}

static void emit_fallback(struct ctx *c)
{
	const struct cf_mac_host *h = c->h;
	comment(c, "fallback: the workspace and the temp roots are readable and writable; nothing "
		   "else of the home directory is readable");
	add(c, "(allow " READ_OPS " " WRITE_OPS);
	put_filter(c, "subpath", h->workspace);
	for (size_t i = 0; i < c->p.temp_roots.n; i++)
		put_filter(c, "subpath", c->p.temp_roots.v[i]);
	add(c, ")\n");
	size_t n_cache = h->cache ? h->cache->n : 0;
	if (!n_cache && !c->rroots.n)
		return;
	comment(c, "fallback: readable caches, and the paths of write allows and approved targets");
	add(c, "(allow " READ_OPS);
	for (size_t i = 0; i < n_cache; i++)
		put_filter(c, "subpath", h->cache->v[i]);
	for (size_t i = 0; i < c->rroots.n; i++)
		put_filter(c, "subpath", c->rroots.v[i]);
	add(c, ")\n");
}

/* Unix sockets may be used only where the command could create them: the workspace and the
 * temp roots; a guarded socket there (the ssh-agent's, in /private/tmp) stays out of reach. */
static bool socket_root(const struct ctx *c, const char *path)
{
	if (cf_path_within(path, c->h->workspace))
		return true;
	for (size_t i = 0; i < c->p.temp_roots.n; i++)
		if (cf_path_within(path, c->p.temp_roots.v[i]))
			return true;
	return false;
}

static void socket_filters(struct ctx *c, const char *dir)
{
	add(c, " (");
	add(c, dir);
	add(c, " unix-socket (subpath ");
	put_string(c, c->h->workspace);
	add(c, "))");
	for (size_t i = 0; i < c->p.temp_roots.n; i++) {
		add(c, " (");
		add(c, dir);
		add(c, " unix-socket (subpath ");
		put_string(c, c->p.temp_roots.v[i]);
		add(c, "))");
	}
}

/* Denies of unix sockets under the denied paths in the socket roots: the liftable host-socket
 * guards first, then (after the sockets their lifts give back) every other one, which no lift
 * reopens. */
static void socket_denies(struct ctx *c, bool liftable)
{
	bool first = true;
	for (int l = 0; l < CF_LAYER_FALLBACK; l++) {
		const struct cf_ruleset *rs = &c->p.layers[l];
		for (size_t i = 0; i < rs->n; i++) {
			const struct cf_rule *r = &rs->v[i];
			if (r->action == CF_ALLOW || r->glob || r->liftable != liftable ||
			    !socket_root(c, r->path))
				continue;
			if (first) {
				comment(c, liftable
					       ? "never a host socket (R29) unless an allow below "
						 "it gives it back"
					       : "never a socket under a denied or guarded path");
				add(c, "(deny network-outbound");
				first = false;
			}
			add(c, " (remote unix-socket (subpath ");
			put_string(c, r->path);
			add(c, "))");
		}
	}
	if (!first)
		add(c, ")\n");
}

/* An allow that lifts a host-socket guard (R29) gives that socket back, as on Linux. */
static void socket_lifts(struct ctx *c)
{
	bool first = true;
	const struct cf_ruleset *g = &c->p.layers[CF_LAYER_GUARD];
	for (size_t i = 0; i < g->n; i++) {
		if (!g->v[i].liftable || g->v[i].endpoint || !socket_root(c, g->v[i].path))
			continue;
		const enum cf_layer layers[] = {CF_LAYER_SESSION, CF_LAYER_USER};
		for (size_t k = 0; k < 2; k++) {
			const struct cf_ruleset *rs = &c->p.layers[layers[k]];
			for (size_t j = 0; j < rs->n; j++) {
				const struct cf_rule *r = &rs->v[j];
				if (r->action != CF_ALLOW || r->glob ||
				    !cf_path_within(r->path, g->v[i].path) ||
				    !strcmp(r->path, g->v[i].path))
					continue;
				if (first) {
					comment(
					    c, "sockets given back by an allow below a host-socket "
					       "guard");
					add(c, "(allow network-outbound");
					first = false;
				}
				add(c, " (remote unix-socket (subpath ");
				put_string(c, r->path);
				add(c, "))");
			}
		}
	}
	if (!first)
		add(c, ")\n");
}

static void emit_network(struct ctx *c)
{
	char port[16];
	switch (c->in->network) {
	case CF_MAC_NET_ON:
		comment(c, "network: on");
		add(c, "(allow network*)\n");
		add(c, "(deny network-outbound (remote unix-socket))\n");
		break;
	case CF_MAC_NET_OFF:
		comment(c, "network: off (no network rule: sockets reach nothing but the unix "
			   "sockets below)");
		break;
	case CF_MAC_NET_PROXY:
		comment(c, "network: only confine's proxy on localhost (SPEC 12)");
		snprintf(port, sizeof(port), "%u", c->in->proxy_port);
		add(c, "(allow network-outbound (remote ip ");
		char *s = cf_asprintf("localhost:%s", port);
		if (!s) {
			fail(c, cf_nomem(c->err));
			return;
		}
		put_string(c, s);
		free(s);
		add(c, "))\n");
		break;
	}
	comment(c, "unix sockets: only in the workspace and the temp roots");
	add(c, "(allow network-outbound");
	socket_filters(c, "remote");
	add(c, ")\n(allow network-bind network-inbound");
	socket_filters(c, "local");
	add(c, ")\n");
	if (c->in->network == CF_MAC_NET_ON) {
		comment(c, "the system resolver");
		add(c, "(allow network-outbound (remote unix-socket (subpath ");
		put_string(c, RESOLVER_SOCKET);
		add(c, ")))\n");
	}
	socket_denies(c, true);
	socket_lifts(c);
	socket_denies(c, false);
}

static void emit_injections(struct ctx *c)
{
	for (size_t i = 0; i < c->in->n_injections; i++) {
		const struct cf_mac_injection *j = &c->in->injections[i];
		char *t = cf_asprintf("injection %zu: readable, never writable", i + 1);
		if (!t) {
			fail(c, cf_nomem(c->err));
			return;
		}
		comment(c, t);
		free(t);
		add(c, "(allow " READ_OPS);
		put_filter(c, "literal", j->scratch);
		add(c, ")\n(deny " WRITE_OPS);
		put_filter(c, "literal", j->scratch);
		add(c, ")\n");
	}
}

/* ---- roots, ancestors and protected chains ---- */

static int add_unique(struct cf_strv *v, const char *s)
{
	return cf_strv_contains(v, s) ? 0 : cf_strv_add(v, s);
}

static int strv_path_cmp(const void *a, const void *b)
{
	return cf_path_cmp(*(char *const *)a, *(char *const *)b);
}

static void sort_paths(struct cf_strv *v)
{
	if (v->n)
		qsort(v->v, v->n, sizeof(*v->v), strv_path_cmp);
}

/* The writable roots and the extra read roots (write allows and grants read at the fallback's
 * priority: a write allow on a Mac is not a write-only hole, as it is not on Linux). */
static int roots(struct ctx *c)
{
	if (add_unique(&c->wroots, c->h->workspace) < 0)
		return -1;
	for (size_t i = 0; i < c->p.temp_roots.n; i++)
		if (add_unique(&c->wroots, c->p.temp_roots.v[i]) < 0)
			return -1;
	for (int l = 0; l < CF_LAYER_FALLBACK; l++) {
		const struct cf_ruleset *rs = &c->p.layers[l];
		for (size_t i = 0; i < rs->n; i++) {
			const struct cf_rule *r = &rs->v[i];
			if (r->action != CF_ALLOW || r->glob || !(r->access & CF_ACC_WRITE))
				continue;
			if (add_unique(&c->wroots, r->path) < 0 ||
			    add_unique(&c->rroots, r->path) < 0)
				return -1;
		}
	}
	for (size_t i = 0; c->in->grants && i < c->in->grants->n; i++) {
		const struct cf_grant *g = &c->in->grants->v[i];
		if ((g->scope == CF_GRANT_SUBTREE && add_unique(&c->wroots, g->path) < 0) ||
		    add_unique(&c->rroots, g->path) < 0)
			return -1;
	}
	return 0;
}

static int add_ancestors(struct cf_strv *v, const char *path)
{
	char *cur = cf_strdup(path);
	if (!cur)
		return -1;
	for (;;) {
		char *slash = strrchr(cur, '/');
		if (!slash || slash == cur)
			break;
		*slash = '\0';
		if (add_unique(v, cur) < 0) {
			free(cur);
			return -1;
		}
	}
	free(cur);
	return 0;
}

/* Metadata of every ancestor of what the command may read, so that realpath() and friends
 * resolve paths into it; the ancestors stay unlistable and unreadable. */
static void emit_ancestors(struct ctx *c)
{
	struct cf_strv a = {0};
	struct cf_strv readable = {0};
	int r = 0;
	if (add_unique(&readable, c->h->workspace) < 0)
		r = -1;
	for (size_t i = 0; r == 0 && i < c->p.temp_roots.n; i++)
		r = add_unique(&readable, c->p.temp_roots.v[i]);
	for (size_t i = 0; r == 0 && c->h->cache && i < c->h->cache->n; i++)
		r = add_unique(&readable, c->h->cache->v[i]);
	for (size_t i = 0; r == 0 && i < c->in->n_injections; i++)
		r = add_unique(&readable, c->in->injections[i].scratch);
	/* Rule paths and grants count only where the command may really read them. */
	for (int l = 0; r == 0 && l < CF_LAYER_FALLBACK; l++) {
		const struct cf_ruleset *rs = &c->p.layers[l];
		for (size_t i = 0; r == 0 && i < rs->n; i++) {
			const struct cf_rule *x = &rs->v[i];
			struct cf_decision d;
			if (x->action != CF_ALLOW || x->glob)
				continue;
			cf_policy_decide(&c->p, x->path, CF_ACC_READ, &d);
			if (d.action == CF_ALLOW)
				r = add_unique(&readable, x->path);
		}
	}
	for (size_t i = 0; r == 0 && c->in->grants && i < c->in->grants->n; i++) {
		struct cf_decision d;
		cf_policy_decide(&c->p, c->in->grants->v[i].path, CF_ACC_READ, &d);
		if (d.action == CF_ALLOW)
			r = add_unique(&readable, c->in->grants->v[i].path);
	}
	for (size_t i = 0; r == 0 && i < readable.n; i++)
		r = add_ancestors(&a, readable.v[i]);
	if (r < 0) {
		fail(c, cf_nomem(c->err));
		goto out;
	}
	sort_paths(&a);
	if (a.n) {
		comment(c, "ancestors of readable paths: metadata only (stat, not listing or "
			   "reading), after every deny, so that paths into them resolve");
		add(c, "(allow file-read-metadata file-test-existence");
		for (size_t i = 0; i < a.n; i++)
			put_filter(c, "literal", a.v[i]);
		add(c, ")\n");
	}
out:
	cf_strv_release(&a);
	cf_strv_release(&readable);
}

/* The outermost writable root that holds `path` (strictly, unless `or_equal`), or NULL. */
static const char *outer_root(const struct ctx *c, const char *path, bool or_equal)
{
	const char *best = NULL;
	for (size_t i = 0; i < c->wroots.n; i++) {
		const char *w = c->wroots.v[i];
		if (!cf_path_within(path, w) || (!or_equal && !strcmp(path, w)))
			continue;
		if (!best || strlen(w) < strlen(best))
			best = w;
	}
	return best;
}

/* Every directory from the outermost writable root that holds `path` down to `last` (the
 * parent of a protected path, or a glob's literal prefix itself). */
static int chain(const struct ctx *c, const char *path, bool or_equal, struct cf_strv *out)
{
	const char *w = outer_root(c, path, or_equal);
	if (!w)
		return 0;
	char *cur = or_equal ? cf_strdup(path) : cf_path_dirname(path);
	if (!cur)
		return -1;
	int r = 0;
	while (r == 0 && cf_path_within(cur, w)) {
		r = add_unique(out, cur);
		if (!strcmp(cur, w) || !strcmp(cur, "/"))
			break;
		char *up = cf_path_dirname(cur);
		free(cur);
		if (!(cur = up))
			return -1;
	}
	free(cur);
	return r;
}

/* Proper prefixes of a glob after its literal part, as exact regexes, for renames that would
 * carry a match away: "ws/ * /secret/x" keeps "ws/ *" and "ws/ * /secret" in place.  A prefix
 * that ends in "**" is left out (it would hold every directory; what follows a "**" matches
 * by name, wherever it is moved). */
static int glob_prefixes(const struct cf_rule *r, struct cf_strv *out)
{
	const char *s = r->path;
	size_t len = strlen(s);
	for (size_t i = r->prefix_len + 1; i < len; i++) {
		if (s[i] != '/')
			continue;
		if (i >= 2 && s[i - 1] == '*' && s[i - 2] == '*' && (i == 2 || s[i - 3] == '/'))
			continue;
		char *re = cf_mac_glob_regex_exact(s, i, true);
		if (!re)
			return -1;
		int k = cf_strv_contains(out, re) ? 0 : cf_strv_add(out, re);
		free(re);
		if (k < 0)
			return -1;
	}
	return 0;
}

static void emit_unlink_guards(struct ctx *c)
{
	struct cf_strv lits = {0}, res = {0};
	int r = 0;
	for (int l = 0; r == 0 && l < CF_LAYER_FALLBACK; l++) {
		const struct cf_ruleset *rs = &c->p.layers[l];
		for (size_t i = 0; r == 0 && i < rs->n; i++) {
			const struct cf_rule *x = &rs->v[i];
			if (x->action == CF_ALLOW)
				continue;
			if (!x->glob) {
				r = chain(c, x->path, false, &lits);
				continue;
			}
			char *prefix = cf_strndup(x->path, x->prefix_len ? x->prefix_len : 1);
			if (!prefix) {
				r = -1;
				break;
			}
			if (outer_root(c, prefix, true))
				r = chain(c, prefix, true, &lits);
			if (r == 0)
				r = glob_prefixes(x, &res);
			free(prefix);
		}
	}
	for (size_t i = 0; r == 0 && i < c->in->n_injections; i++)
		r = chain(c, c->in->injections[i].scratch, false, &lits);
	if (r < 0) {
		fail(c, cf_nomem(c->err));
		goto out;
	}
	sort_paths(&lits);
	if (lits.n || res.n) {
		comment(c,
			"directories between a writable root and a protected path: not removable "
			"or renamable, so that no protection can be moved away");
		add(c, "(deny file-write-unlink");
		for (size_t i = 0; i < lits.n; i++)
			put_filter(c, "literal", lits.v[i]);
		for (size_t i = 0; i < res.n; i++)
			put_regex_filter(c, res.v[i]);
		add(c, ")\n");
	}
out:
	cf_strv_release(&lits);
	cf_strv_release(&res);
}

/* ---- checks before writing ---- */

static const char *rule_where(const struct cf_rule *r, char *buf, size_t n)
{
	if (r->line > 0)
		snprintf(buf, n, "'%s' (%s:%d:%d)", r->pattern, r->source, r->line, r->column);
	else
		snprintf(buf, n, "'%s' (%s rule %d)", r->pattern, r->source, r->index);
	return buf;
}

/* The contradictions the Linux plan refuses are refused here too, so that a rule set means
 * the same on both: a write allow beneath a read deny, and hiding "/". */
static int contradictions(struct ctx *c)
{
	for (int l = CF_LAYER_SESSION; l < CF_LAYER_FALLBACK; l++) {
		const struct cf_ruleset *rs = &c->p.layers[l];
		for (size_t i = 0; i < rs->n; i++) {
			const struct cf_rule *x = &rs->v[i];
			if (x->glob)
				continue;
			struct cf_decision rd, wr;
			cf_policy_decide(&c->p, x->path, CF_ACC_READ, &rd);
			cf_policy_decide(&c->p, x->path, CF_ACC_WRITE, &wr);
			char a[512], b[512];
			if (rd.action != CF_ALLOW && !strcmp(x->path, "/")) {
				cf_err(c->err, CONFINE_E_PLAN, "cannot hide the root directory",
				       "/",
				       "%s denies reading '/': nothing would be left to run, not "
				       "even the command",
				       rd.rule ? rule_where(rd.rule, a, sizeof(a)) : "a rule");
				cf_err_hint(c->err,
					    "deny the directories that matter (for example "
					    "'~:read' with allows for what the command needs)");
				return CONFINE_E_PLAN;
			}
			if (rd.action != CF_ALLOW && wr.action == CF_ALLOW &&
			    wr.layer != CF_LAYER_FALLBACK) {
				cf_err(
				    c->err, CONFINE_E_PLAN, "rules contradict each other", x->path,
				    "%s allows write beneath the read-deny of %s; a path cannot "
				    "be writable and unreadable",
				    rule_where(wr.rule, a, sizeof(a)),
				    rd.rule ? rule_where(rd.rule, b, sizeof(b)) : "the fallback");
				cf_err_hint(c->err,
					    "allow read as well, or remove the write allow");
				return CONFINE_E_PLAN;
			}
		}
	}
	return 0;
}

static bool env_name_ok(const char *s)
{
	if (!s || !((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_' ||
		      (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

static int check_injections(const struct cf_mac_input *in, struct confine_error *err)
{
	for (size_t i = 0; i < in->n_injections; i++) {
		const struct cf_mac_injection *j = &in->injections[i];
		if (j->target || !j->name) {
			cf_err(
			    err, CONFINE_E_INVALID, "injection refused", j->target ? j->target : "",
			    "a fixed-path injection places a file at a path of the sandbox, which "
			    "only the Linux backend can do; on macOS the file is a scratch file "
			    "outside the workspace");
			cf_err_hint(err, "use --inject-env NAME=FILE and read the path from $NAME");
			return CONFINE_E_INVALID;
		}
		if (!env_name_ok(j->name))
			return cf_err(err, CONFINE_E_INVALID, "injection refused", j->name,
				      "the variable name must match [A-Za-z_][A-Za-z0-9_]*");
		int r = cf_mac_check_path(j->scratch ? j->scratch : "",
					  "injection scratch file refused", err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- the plan ---- */

static int copy_strv(struct cf_strv *dst, const struct cf_strv *src)
{
	for (size_t i = 0; src && i < src->n; i++)
		if (cf_strv_add(dst, src->v[i]) < 0)
			return -1;
	return 0;
}

static int check_facts(const struct cf_mac_input *in, struct confine_error *err)
{
	const struct cf_mac_host *h = in->host;
	int r = 0;
	for (size_t i = 0; r == 0 && h->temp && i < h->temp->n; i++)
		r = cf_mac_check_path(h->temp->v[i], "invalid host facts", err);
	for (size_t i = 0; r == 0 && h->cache && i < h->cache->n; i++)
		r = cf_mac_check_path(h->cache->v[i], "invalid host facts", err);
	for (size_t i = 0; r == 0 && in->grants && i < in->grants->n; i++)
		r = cf_mac_check_path(in->grants->v[i].path, "write target refused", err);
	if (r == 0 && h->cwd)
		r = cf_mac_check_path(h->cwd, "invalid host facts", err);
	if (r == 0 && in->network == CF_MAC_NET_PROXY &&
	    (in->proxy_port == 0 || in->proxy_port > 65535)) {
		char port[16];
		snprintf(port, sizeof(port), "%u", in->proxy_port);
		r = cf_err(err, CONFINE_E_INVALID, "invalid proxy port", port,
			   "a port is 1 to 65535");
	}
	return r;
}

int cf_mac_plan_compile(const struct cf_mac_input *in, struct cf_mac_plan *out,
			struct confine_error *err)
{
	const struct cf_mac_host *h = in->host;
	struct ctx c = {.in = in, .h = h, .out = out, .err = err};
	bool have_policy = false;
	int r;

	memset(out, 0, sizeof(*out));
	cf_buf_init(&c.b);
	if ((r = check_facts(in, err)) < 0 || (r = check_injections(in, err)) < 0)
		goto out;
	if ((r = cf_mac_policy(in, &c.ph, &c.p, err)) < 0)
		goto out;
	have_policy = true;
	if ((r = contradictions(&c)) < 0)
		goto out;
	if (roots(&c) < 0)
		goto oom;
	sort_paths(&c.rroots);

	emit_base(&c);
	emit_fallback(&c);
	emit_layers(&c);
	emit_network(&c);
	emit_injections(&c);
	emit_ancestors(&c);
	emit_unlink_guards(&c);
	if (c.r < 0) {
		r = c.r;
		goto out;
	}
	if (c.b.oom)
		goto oom;
	if (c.b.len > CF_MAC_PROFILE_MAX) {
		char size[32];
		snprintf(size, sizeof(size), "%zu bytes", c.b.len);
		r = cf_err(err, CONFINE_E_PLAN, "profile too large", size,
			   "sandbox-exec takes the profile as one argument, and this one is over "
			   "%u KiB",
			   CF_MAC_PROFILE_MAX / 1024);
		cf_err_hint(err, "use fewer or broader rules");
		goto out;
	}
	out->profile = cf_buf_take(&c.b);
	out->network = in->network;
	out->proxy_port = in->proxy_port;
	out->assumed = h->assumed;
	const char *cwd = h->cwd && cf_path_within(h->cwd, h->workspace) ? h->cwd : h->workspace;
	if (!out->profile || !(out->home = cf_strdup(h->home)) ||
	    !(out->workspace = cf_strdup(h->workspace)) || !(out->cwd = cf_strdup(cwd)) ||
	    copy_strv(&out->argv, in->argv) < 0 || copy_strv(&out->env, in->env) < 0 ||
	    copy_strv(&out->env_removed, in->env_removed) < 0)
		goto oom;
	/* Injection pointers are set last and always win (SPEC 5). */
	for (size_t i = 0; i < in->n_injections; i++) {
		const struct cf_mac_injection *j = &in->injections[i];
		size_t n = strlen(j->name);
		for (size_t k = 0; k < out->env.n;) {
			if (!strncmp(out->env.v[k], j->name, n) && out->env.v[k][n] == '=') {
				free(out->env.v[k]);
				memmove(&out->env.v[k], &out->env.v[k + 1],
					(out->env.n - k - 1) * sizeof(char *));
				out->env.n--;
			} else {
				k++;
			}
		}
		char *kv = cf_asprintf("%s=%s", j->name, j->scratch);
		char *shown = cf_asprintf("env:%s", j->name);
		if (!kv || cf_strv_take(&out->env, kv) < 0 || !shown ||
		    cf_strv_take(&out->injections, shown) < 0)
			goto oom;
	}
	r = 0;
	goto out;
oom:
	r = cf_nomem(err);
out:
	cf_buf_release(&c.b);
	cf_strv_release(&c.wroots);
	cf_strv_release(&c.rroots);
	if (have_policy)
		cf_policy_release(&c.p);
	if (r < 0)
		cf_mac_plan_release(out);
	return r;
}

int cf_mac_exec_argv(const struct cf_mac_plan *plan, struct cf_strv *out, struct confine_error *err)
{
	if (!plan->argv.n)
		return cf_err(err, CONFINE_E_INVALID, "no command given", "", "nothing to run");
	/* "--" ends sandbox-exec's options: a command whose name starts with '-' stays the
	 * command. */
	if (cf_strv_add(out, CF_MAC_SANDBOX_EXEC) < 0 || cf_strv_add(out, "-p") < 0 ||
	    cf_strv_add(out, plan->profile) < 0 || cf_strv_add(out, "--") < 0)
		return cf_nomem(err);
	for (size_t i = 0; i < plan->argv.n; i++)
		if (cf_strv_add(out, plan->argv.v[i]) < 0)
			return cf_nomem(err);
	return 0;
}

/* ---- for the executor: the probe's profile and explain ---- */

int cf_mac_base_profile(char **out, struct confine_error *err)
{
	struct cf_mac_plan scratch = {0};
	struct ctx c = {.out = &scratch, .err = err};
	cf_buf_init(&c.b);
	emit_base(&c);
	add(&c, "(allow " WRITE_OPS);
	put_filter(&c, "literal", "/dev/null");
	add(&c, ")\n");
	cf_mac_plan_release(&scratch);
	if (c.r < 0) {
		cf_buf_release(&c.b);
		return c.r;
	}
	if (!(*out = cf_buf_take(&c.b)))
		return cf_nomem(err);
	return 0;
}

bool cf_mac_fallback_readable(const struct cf_mac_input *in, const struct cf_policy *p,
			      const char *path)
{
	const struct cf_mac_host *h = in->host;
	if (!strcmp(path, "/") || cf_path_within(path, h->workspace))
		return true;
	for (size_t i = 0; i < sizeof(root_links) / sizeof(root_links[0]); i++)
		if (!strcmp(path, root_links[i]))
			return true;
	for (size_t i = 0; i < sizeof(system_roots) / sizeof(system_roots[0]); i++)
		if (cf_path_within(path, system_roots[i]))
			return true;
	for (size_t i = 0; i < p->temp_roots.n; i++)
		if (cf_path_within(path, p->temp_roots.v[i]))
			return true;
	for (size_t i = 0; h->cache && i < h->cache->n; i++)
		if (cf_path_within(path, h->cache->v[i]))
			return true;
	for (size_t i = 0; in->grants && i < in->grants->n; i++)
		if (cf_path_within(path, in->grants->v[i].path))
			return true;
	for (int l = 0; l < CF_LAYER_FALLBACK; l++)
		for (size_t i = 0; i < p->layers[l].n; i++) {
			const struct cf_rule *r = &p->layers[l].v[i];
			if (r->action == CF_ALLOW && !r->glob && (r->access & CF_ACC_WRITE) &&
			    cf_path_within(path, r->path))
				return true;
		}
	return false;
}

/* ---- approved targets ---- */

static int grant_canon(void *ctx, const char *path, char **out, struct confine_error *err)
{
	const struct cf_mac_host *h = ctx;
	char *abs;
	int r = cf_mac_check_path(path[0] == '~'   ? "/"
				  : path[0] == '/' ? path
						   : "/",
				  "write target refused", err);
	if (r < 0)
		return r;
	if (strpbrk(path, "*?"))
		return cf_err(err, CONFINE_E_INVALID, "write target refused", path,
			      "a write target names one file or directory, not a pattern");
	if (path[0] == '~' && (path[1] == '\0' || path[1] == '/'))
		abs = cf_path_join(h->home, path[1] ? path + 2 : ".");
	else if (path[0] == '/')
		abs = cf_path_normalize(path);
	else
		abs = cf_path_join(h->cwd ? h->cwd : h->workspace, path);
	if (!abs)
		return cf_nomem(err);
	r = cf_mac_check_path(abs, "write target refused", err);
	if (r == 0)
		r = h->canonicalize(h->ctx, abs, out, err);
	free(abs);
	return r;
}

static enum cf_kind grant_kind(void *ctx, const char *path)
{
	const struct cf_mac_host *h = ctx;
	return h->kind(h->ctx, path);
}

int cf_mac_grants(const struct cf_mac_host *h, const char *const *args, size_t n,
		  const char *reason, struct cf_grants *out, struct confine_error *err)
{
	struct cf_grant_host gh = {
	    .home = h->home,
	    .fold_case = true,
	    .canonicalize = grant_canon,
	    .kind = grant_kind,
	    .ctx = (void *)h,
	};
	return cf_grants_validate(args, n, reason, &gh, out, err);
}
