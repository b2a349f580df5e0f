/* SPDX-License-Identifier: MIT */
/*
 * The Seatbelt profile compiler (SPEC 9, R25, R26); the shape of the profile is described in
 * sbpl.h, the policy it starts from is built in sbpl_policy.c, the roots, ancestors and unlink
 * guards are written by sbpl_chains.c.  The policy decides as on every target; what this file
 * adds is the translation of
 * first-match-wins layers into a last-match-wins profile, the Mac's read posture, and the
 * checks that keep every string of the profile one that passed validation.
 *
 * Nothing user-controlled is written without going through sb_string() or sb_regex(), and
 * both refuse (fail closed) what was not checked: sb_string() re-checks every string with the
 * R26 rule, sb_regex() accepts only what the regex writer can produce.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/macos/sbpl_int.h"
#include "plan/verdict.h"
#include "policy/policy.h"
#include "util/util.h"

/* The system read roots (SPEC 9).  /private/var/select holds the link that /bin/sh follows to
 * pick its shell, /private/var/db/timezone the zone files behind /etc/localtime. */
const char *const cf_mac_system_roots[] = {
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
const char *const cf_mac_root_links[] = {"/etc", "/tmp", "/var"};
const size_t cf_mac_n_system_roots = sizeof(cf_mac_system_roots) / sizeof(char *);
const size_t cf_mac_n_root_links = sizeof(cf_mac_root_links) / sizeof(char *);

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

/* ---- writing the profile ---- */

void sb_fail(struct sb_ctx *c, int r)
{
	if (c->r == 0)
		c->r = r;
}

/* A string literal.  Re-checked here whatever the caller checked before: a profile never holds
 * a string that did not pass R26. */
void sb_string(struct sb_ctx *c, const char *s)
{
	const char *why = cf_mac_string_problem(s, strlen(s), s[0] == '/');
	if (why) {
		char *shown = cf_mac_shown(s, strlen(s));
		sb_fail(c, cf_err(c->err, CONFINE_E_INVALID, "path refused for the macOS profile",
				  shown ? shown : "?", "%s", why));
		free(shown);
		return;
	}
	cf_buf_addc(&c->b, '"');
	cf_buf_add(&c->b, s);
	cf_buf_addc(&c->b, '"');
	if (cf_strv_add(&c->out->strings, s) < 0)
		sb_fail(c, cf_nomem(c->err));
}

/* A regex literal, #"...": what the regex writer produces is ASCII punctuation, digits,
 * letters and the bytes of checked paths; a quote or a control character can only come from
 * a bug, and is refused. */
void sb_regex(struct sb_ctx *c, const char *re)
{
	if (!re) {
		sb_fail(c, cf_nomem(c->err));
		return;
	}
	if (cf_mac_regex_problem(re)) {
		sb_fail(c, cf_err(c->err, CONFINE_E_PLAN, "internal error", "regex",
				  "a regex for the profile failed its own check: %s",
				  cf_mac_regex_problem(re)));
		return;
	}
	cf_buf_add(&c->b, "#\"");
	cf_buf_add(&c->b, re);
	cf_buf_addc(&c->b, '"');
	if (cf_strv_add(&c->out->regexes, re) < 0)
		sb_fail(c, cf_nomem(c->err));
}

void sb_add(struct sb_ctx *c, const char *s)
{
	cf_buf_add(&c->b, s);
}

void sb_filter(struct sb_ctx *c, const char *kind, const char *path)
{
	sb_add(c, " (");
	sb_add(c, kind);
	sb_add(c, " ");
	sb_string(c, path);
	sb_add(c, ")");
}

void sb_regex_filter(struct sb_ctx *c, const char *re)
{
	sb_add(c, " (regex ");
	sb_regex(c, re);
	sb_add(c, ")");
}

/* A comment line.  Only fixed words, numbers and built-in patterns go into comments (a
 * newline in one would end the comment). */
void sb_comment(struct sb_ctx *c, const char *text)
{
	for (const char *t = text; *t; t++)
		if ((unsigned char)*t < 0x20 || *t == 0x7f)
			return;
	sb_add(c, "; ");
	sb_add(c, text);
	sb_add(c, "\n");
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
static bool above_ws(const struct sb_ctx *c, const char *a)
{
	return cf_path_within(c->h->workspace, a) && strcmp(c->h->workspace, a) != 0;
}

/* The filters of a rule (several filters in one rule: any of them matches). */
static void rule_filters(struct sb_ctx *c, const struct cf_rule *r, bool deny)
{
	const char *ws = c->h->workspace;
	if (!r->glob) {
		char *ci = deny ? cf_mac_path_regex_ci(r->path) : NULL;
		if (deny && !ci) {
			sb_fail(c, cf_nomem(c->err));
			return;
		}
		bool outside = above_ws(c, r->path);
		if (outside)
			sb_add(c, " (require-all");
		if (outside && deny)
			sb_add(c, " (require-any");
		sb_filter(c, "subpath", r->path);
		/* Another spelling of the same name on a case-insensitive volume is the same
		 * file: a deny covers every spelling (an allow only the canonical one). */
		if (deny)
			sb_regex_filter(c, ci);
		if (outside && deny)
			sb_add(c, ")");
		if (outside) {
			sb_add(c, " (require-not");
			sb_filter(c, "subpath", ws);
			sb_add(c, "))");
		}
		free(ci);
		return;
	}
	char *prefix = cf_strndup(r->path, r->prefix_len ? r->prefix_len : 1);
	char *re = cf_mac_glob_regex(r->path, deny);
	if (!prefix || !re) {
		free(prefix);
		free(re);
		sb_fail(c, cf_nomem(c->err));
		return;
	}
	if (above_ws(c, prefix)) {
		char *in = cf_mac_glob_regex_within(r->path, ws, deny);
		if (!in) {
			sb_fail(c, cf_nomem(c->err));
		} else {
			sb_add(c, " (require-all");
			sb_regex_filter(c, re);
			sb_add(c, " (require-not");
			sb_filter(c, "subpath", ws);
			sb_add(c, "))");
			if (in[0])
				sb_regex_filter(c, in);
		}
		free(in);
	} else {
		sb_regex_filter(c, re);
	}
	free(prefix);
	free(re);
}

static void rule_comment(struct sb_ctx *c, const struct cf_rule *r, const char *what)
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
		sb_fail(c, cf_nomem(c->err));
		return;
	}
	sb_comment(c, t);
	free(t);
}

/*
 * One rule.  ask and deny both deny.  A path hidden for reading is not writable either (as on
 * Linux, where the fallback's write allow does not reach a hidden path), which also keeps a
 * rename from carrying the path out of its read protection.
 */
static void emit_rule(struct sb_ctx *c, const struct cf_rule *r)
{
	bool deny = r->action != CF_ALLOW;
	unsigned access = r->access;
	if (deny && (access & CF_ACC_READ))
		access = CF_ACC_BOTH;
	rule_comment(c, r, deny ? (r->action == CF_ASK ? "ask (denied)" : "deny") : "allow");
	sb_add(c, deny ? "(deny " : "(allow ");
	sb_add(c, ops(access));
	rule_filters(c, r, deny);
	sb_add(c, ")\n");
}

/* The allows that give back paths below a liftable guard (a host socket directory): emitted
 * right after the guard, so that the guard's own higher-priority neighbours still win. */
static void emit_lifts(struct sb_ctx *c, const struct cf_rule *g)
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
			sb_add(c, "(allow ");
			sb_add(c, ops(access));
			rule_filters(c, &lift, false);
			sb_add(c, ")\n");
		}
	}
}

static void emit_grants(struct sb_ctx *c)
{
	const struct cf_grants *g = c->in->grants;
	for (size_t i = 0; g && i < g->n; i++) {
		char *t = cf_asprintf("approved write target %zu (%s): allow write", i + 1,
				      cf_grant_scope_name(g->v[i].scope));
		if (!t) {
			sb_fail(c, cf_nomem(c->err));
			return;
		}
		sb_comment(c, t);
		free(t);
		sb_add(c, "(allow " WRITE_OPS);
		sb_filter(c, g->v[i].scope == CF_GRANT_FILE ? "literal" : "subpath", g->v[i].path);
		sb_add(c, ")\n");
	}
}

static void emit_layers(struct sb_ctx *c)
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

static void emit_base(struct sb_ctx *c)
{
	sb_add(c, "(version 1)\n");
	sb_comment(c, "confine " CONFINE_VERSION ": compiled from the rule set (SPEC 9); Seatbelt "
		      "applies the last matching rule, so the lowest priority comes first");
	sb_add(c, "(deny default)\n");
	sb_comment(c, "processes, signals within this sandbox, system information, Mach services "
		      "(load-bearing: programs look services up as they start), POSIX IPC, "
		      "pseudo-terminals, sockets (what they reach is decided below)");
	sb_add(c, "(allow process-exec* process-fork)\n"
		  "(allow signal (target same-sandbox))\n"
		  "(allow process-info* (target same-sandbox))\n"
		  "(allow sysctl-read)\n"
		  "(allow mach*)\n"
		  "(allow ipc-posix-shm ipc-posix-sem)\n"
		  "(allow pseudo-tty)\n"
		  "(allow system-socket)\n");
	sb_comment(c, "devices the command may write to, and terminal ioctls");
	sb_add(c, "(allow " READ_OPS " " WRITE_OPS);
	for (size_t i = 0; i < sizeof(write_devices) / sizeof(write_devices[0]); i++)
		sb_filter(c, "literal", write_devices[i]);
	for (size_t i = 0; i < sizeof(device_regexes) / sizeof(device_regexes[0]); i++)
		sb_regex_filter(c, device_regexes[i]);
	sb_add(c, ")\n(allow file-ioctl");
	for (size_t i = 2; i < sizeof(write_devices) / sizeof(write_devices[0]); i++)
		sb_filter(c, "literal", write_devices[i]);
	sb_regex_filter(c, device_regexes[0]);
	sb_add(c, ")\n");
	sb_comment(c,
		   "the system read roots and the root directory itself (load-bearing: dynamically "
		   "linked programs abort when they cannot read \"/\")");
	sb_add(c, "(allow " READ_OPS);
	sb_filter(c, "literal", "/");
	for (size_t i = 0; i < cf_mac_n_root_links; i++)
		sb_filter(c, "literal", cf_mac_root_links[i]);
	for (size_t i = 0; i < cf_mac_n_system_roots; i++)
		sb_filter(c, "subpath", cf_mac_system_roots[i]);
	sb_add(c, ")\n");
}

static void emit_fallback(struct sb_ctx *c)
{
	const struct cf_mac_host *h = c->h;
	sb_comment(c,
		   "fallback: the workspace and the temp roots are readable and writable; nothing "
		   "else of the home directory is readable");
	sb_add(c, "(allow " READ_OPS " " WRITE_OPS);
	sb_filter(c, "subpath", h->workspace);
	for (size_t i = 0; i < c->p.temp_roots.n; i++)
		sb_filter(c, "subpath", c->p.temp_roots.v[i]);
	sb_add(c, ")\n");
	size_t n_cache = h->cache ? h->cache->n : 0;
	if (!n_cache && !c->rroots.n)
		return;
	sb_comment(c,
		   "fallback: readable caches, and the paths of write allows and approved targets");
	sb_add(c, "(allow " READ_OPS);
	for (size_t i = 0; i < n_cache; i++)
		sb_filter(c, "subpath", h->cache->v[i]);
	for (size_t i = 0; i < c->rroots.n; i++)
		sb_filter(c, "subpath", c->rroots.v[i]);
	sb_add(c, ")\n");
}

/* Unix sockets may be used only where the command could create them: the workspace and the
 * temp roots; a guarded socket there (the ssh-agent's, in /private/tmp) stays out of reach. */
static bool socket_root(const struct sb_ctx *c, const char *path)
{
	if (cf_path_within(path, c->h->workspace))
		return true;
	for (size_t i = 0; i < c->p.temp_roots.n; i++)
		if (cf_path_within(path, c->p.temp_roots.v[i]))
			return true;
	return false;
}

static void socket_filters(struct sb_ctx *c, const char *dir)
{
	sb_add(c, " (");
	sb_add(c, dir);
	sb_add(c, " unix-socket (subpath ");
	sb_string(c, c->h->workspace);
	sb_add(c, "))");
	for (size_t i = 0; i < c->p.temp_roots.n; i++) {
		sb_add(c, " (");
		sb_add(c, dir);
		sb_add(c, " unix-socket (subpath ");
		sb_string(c, c->p.temp_roots.v[i]);
		sb_add(c, "))");
	}
}

/* Denies of unix sockets under the denied paths in the socket roots: the liftable host-socket
 * guards first, then (after the sockets their lifts give back) every other one, which no lift
 * reopens. */
static void socket_denies(struct sb_ctx *c, bool liftable)
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
				sb_comment(
				    c, liftable ? "never a host socket (R29) unless an allow below "
						  "it gives it back"
						: "never a socket under a denied or guarded path");
				sb_add(c, "(deny network-outbound");
				first = false;
			}
			sb_add(c, " (remote unix-socket (subpath ");
			sb_string(c, r->path);
			sb_add(c, "))");
		}
	}
	if (!first)
		sb_add(c, ")\n");
}

/* An allow that lifts a host-socket guard (R29) gives that socket back, as on Linux. */
static void socket_lifts(struct sb_ctx *c)
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
					sb_comment(
					    c, "sockets given back by an allow below a host-socket "
					       "guard");
					sb_add(c, "(allow network-outbound");
					first = false;
				}
				sb_add(c, " (remote unix-socket (subpath ");
				sb_string(c, r->path);
				sb_add(c, "))");
			}
		}
	}
	if (!first)
		sb_add(c, ")\n");
}

static void emit_network(struct sb_ctx *c)
{
	char port[16];
	switch (c->in->network) {
	case CF_MAC_NET_ON:
		sb_comment(c, "network: on");
		sb_add(c, "(allow network*)\n");
		sb_add(c, "(deny network-outbound (remote unix-socket))\n");
		break;
	case CF_MAC_NET_OFF:
		sb_comment(c, "network: off (no network rule: sockets reach nothing but the unix "
			      "sockets below)");
		break;
	case CF_MAC_NET_PROXY:
		sb_comment(c, "network: only confine's proxy on localhost (SPEC 12)");
		snprintf(port, sizeof(port), "%u", c->in->proxy_port);
		sb_add(c, "(allow network-outbound (remote ip ");
		char *s = cf_asprintf("localhost:%s", port);
		if (!s) {
			sb_fail(c, cf_nomem(c->err));
			return;
		}
		sb_string(c, s);
		free(s);
		sb_add(c, "))\n");
		break;
	}
	sb_comment(c, "unix sockets: only in the workspace and the temp roots");
	sb_add(c, "(allow network-outbound");
	socket_filters(c, "remote");
	sb_add(c, ")\n(allow network-bind network-inbound");
	socket_filters(c, "local");
	sb_add(c, ")\n");
	if (c->in->network == CF_MAC_NET_ON) {
		sb_comment(c, "the system resolver");
		sb_add(c, "(allow network-outbound (remote unix-socket (subpath ");
		sb_string(c, RESOLVER_SOCKET);
		sb_add(c, ")))\n");
	}
	socket_denies(c, true);
	socket_lifts(c);
	socket_denies(c, false);
}

static void emit_injections(struct sb_ctx *c)
{
	for (size_t i = 0; i < c->in->n_injections; i++) {
		const struct cf_mac_injection *j = &c->in->injections[i];
		char *t = cf_asprintf("injection %zu: readable, never writable", i + 1);
		if (!t) {
			sb_fail(c, cf_nomem(c->err));
			return;
		}
		sb_comment(c, t);
		free(t);
		sb_add(c, "(allow " READ_OPS);
		sb_filter(c, "literal", j->scratch);
		sb_add(c, ")\n(deny " WRITE_OPS);
		sb_filter(c, "literal", j->scratch);
		sb_add(c, ")\n");
	}
}

/* ---- checks before writing ---- */

/* The contradictions the Linux plan refuses are refused here too, so that a rule set means
 * the same on both: a write allow beneath a read deny, and hiding "/". */
static int contradictions(struct sb_ctx *c)
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
			if (cf_plan_refuse_root(x->path, &rd, c->err) < 0)
				return CONFINE_E_PLAN;
			if (wr.layer != CF_LAYER_FALLBACK &&
			    cf_plan_refuse_contradiction(x->path, &rd, &wr, c->err) < 0)
				return CONFINE_E_PLAN;
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
	struct sb_ctx c = {.in = in, .h = h, .out = out, .err = err};
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
	if (sb_roots(&c) < 0)
		goto oom;
	sb_sort_paths(&c.rroots);

	emit_base(&c);
	emit_fallback(&c);
	emit_layers(&c);
	emit_network(&c);
	emit_injections(&c);
	sb_ancestors(&c);
	sb_unlink_guards(&c);
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
	struct sb_ctx c = {.out = &scratch, .err = err};
	cf_buf_init(&c.b);
	emit_base(&c);
	sb_add(&c, "(allow " WRITE_OPS);
	sb_filter(&c, "literal", "/dev/null");
	sb_add(&c, ")\n");
	cf_mac_plan_release(&scratch);
	if (c.r < 0) {
		cf_buf_release(&c.b);
		return c.r;
	}
	if (!(*out = cf_buf_take(&c.b)))
		return cf_nomem(err);
	return 0;
}
