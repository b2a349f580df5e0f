/* SPDX-License-Identifier: MIT */
/*
 * Compiling the policy into Landlock path rules (SPEC 3.3, R28).  Pure.
 *
 * Decisions are piecewise constant (plan.c says why): they change only at candidates (rule
 * paths, glob matches, IPC endpoints, the workspace, the temp roots and the few paths this
 * backend treats specially).  Each candidate gets a wanted set of rights.  Walking down from
 * '/', a directory gets as a subtree rule what it wants minus what any existing candidate below
 * it wants less of ("lacking"); what it wants but lacks is handed to each entry of its listing
 * that holds no candidate (the siblings: full right), and the walk goes on into the entries
 * that do.  A protected entry is thereby left out; the directory itself keeps only rights that
 * cannot leak into it (READ_DIR while no hidden *directory* lies below, since READ_DIR means
 * nothing for a file).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/landlock/ll_plan.h"
#include "plan/verdict.h"
#include "util/util.h"

#define R_SET (CF_LL_FS_EXECUTE | CF_LL_FS_READ_FILE | CF_LL_FS_READ_DIR)
/* Never MAKE_CHAR or MAKE_BLOCK: a device node made in the workspace would open the raw disk
 * to a root caller.  Never RESOLVE_UNIX: no socket outside the sandbox's own is reachable. */
#define W_SET                                                                                      \
	(CF_LL_FS_WRITE_FILE | CF_LL_FS_REMOVE_DIR | CF_LL_FS_REMOVE_FILE | CF_LL_FS_MAKE_DIR |    \
	 CF_LL_FS_MAKE_REG | CF_LL_FS_MAKE_SOCK | CF_LL_FS_MAKE_FIFO | CF_LL_FS_MAKE_SYM |         \
	 CF_LL_FS_REFER | CF_LL_FS_TRUNCATE)
/* The rights Landlock accepts on a rule for a file that is not a directory. */
#define FILE_RIGHTS                                                                                \
	(CF_LL_FS_EXECUTE | CF_LL_FS_WRITE_FILE | CF_LL_FS_READ_FILE | CF_LL_FS_TRUNCATE |         \
	 CF_LL_FS_IOCTL_DEV | CF_LL_FS_RESOLVE_UNIX)
/* The character devices a command needs, read and write (shell redirections truncate). */
#define DEV_SET (CF_LL_FS_READ_FILE | CF_LL_FS_WRITE_FILE | CF_LL_FS_TRUNCATE | CF_LL_FS_IOCTL_DEV)
#define PROC_SET (CF_LL_FS_READ_FILE | CF_LL_FS_READ_DIR)

enum origin {
	O_POLICY, /* decided by the rules */
	O_FORCED, /* this backend's own choice (devices, /proc, temp roots, the run directory) */
};

struct cand {
	char *path;
	enum cf_kind kind; /* KIND_UNKNOWN until looked up */
	enum origin origin;
	uint64_t forced; /* wanted rights when O_FORCED */
	bool from_rule;	 /* written by a user */
	const char *why; /* forced: the reason */
	uint64_t want;
	char *why_text; /* policy: the deciding rules */
	bool skip;	/* missing, a symlink, or dropped: no rule, no split */
};

#define KIND_UNKNOWN ((enum cf_kind)100)

struct cands {
	struct cand *v;
	size_t n, cap;
};

static int cand_add(struct cands *c, const char *path, enum cf_kind kind, enum origin origin,
		    uint64_t forced, bool from_rule, const char *why)
{
	if (c->n == c->cap) {
		size_t cap;
		struct cand *v = cf_grow_array(c->v, c->cap, 64, sizeof(*v), &cap);
		if (!v)
			return CONFINE_E_NOMEM;
		c->v = v;
		c->cap = cap;
	}
	char *p = cf_strdup(path);
	if (!p)
		return CONFINE_E_NOMEM;
	c->v[c->n++] = (struct cand){.path = p,
				     .kind = kind,
				     .origin = origin,
				     .forced = forced,
				     .from_rule = from_rule,
				     .why = why};
	return 0;
}

static void cands_release(struct cands *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].path);
		free(c->v[i].why_text);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	int c = cf_path_cmp(x->path, y->path);
	/* Equal paths: this backend's own choice first, so that it is the one kept. */
	return c ? c : (int)y->origin - (int)x->origin;
}

/* Not /dev/pts: a directory rule there gave the command every terminal of the host's devpts
 * (the user's other shells, a root caller's every root pty).  The terminals it was given (its
 * standard descriptors) get a rule each when it starts (landlock/spawn.c). */
static const char *const devices[] = {"/dev/null",    "/dev/zero", "/dev/full", "/dev/random",
				      "/dev/urandom", "/dev/tty",  "/dev/ptmx"};
/* What bwrap masks in /sys (plan.c); /proc stays the host's and is only made read-only. */
static const char *const sys_masked[] = {"/sys/firmware", "/sys/devices/virtual/powercap",
					 "/sys/kernel/debug"};

struct walk {
	const struct cf_policy *p;
	const struct cf_ll_opts *o;
	struct cands c;
	uint64_t all; /* every fs right of the ABI */
	struct cf_ll_plan *out;
	struct cf_strv *dirs; /* discovery: the directories to list; NULL when compiling */
	struct confine_error *err;
};

static int note(struct cf_strv *sv, char *s, struct confine_error *err)
{
	if (!s || cf_strv_take(sv, s) < 0)
		return cf_nomem(err);
	return 0;
}

/* Collects the candidates and their wanted rights. */
static int gather(struct walk *w, const struct cf_matches *globs)
{
	const struct cf_policy *p = w->p;
	const struct cf_host *h = p->host;
	struct cands *c = &w->c;
	int r = 0;
	uint64_t dev = DEV_SET & w->all;

	for (int l = 0; l < CF_LAYER_FALLBACK && r == 0; l++) {
		const struct cf_ruleset *rs = &p->layers[l];
		for (size_t i = 0; i < rs->n && r == 0; i++)
			if (!rs->v[i].glob)
				r = cand_add(c, rs->v[i].path, KIND_UNKNOWN, O_POLICY, 0,
					     l >= CF_LAYER_SESSION, NULL);
	}
	for (size_t i = 0; i < p->endpoints.n && r == 0; i++)
		r = cand_add(c, p->endpoints.v[i].path, KIND_UNKNOWN, O_POLICY, 0, false, NULL);
	for (size_t i = 0; globs && i < globs->n && r == 0; i++)
		r = cand_add(c, globs->v[i].path, globs->v[i].kind, O_POLICY, 0, false, NULL);
	if (r == 0)
		r = cand_add(c, "/", CF_KIND_DIR, O_POLICY, 0, false, NULL);
	if (r == 0)
		r = cand_add(c, h->workspace, KIND_UNKNOWN, O_POLICY, 0, false, NULL);
	for (size_t i = 0; i < p->temp_roots.n && r == 0; i++)
		r = cand_add(c, p->temp_roots.v[i], KIND_UNKNOWN, O_FORCED, 0, false,
			     "temp root: the host's content is not the command's");
	if (r == 0 && w->o->run_tmp)
		r = cand_add(c, w->o->run_tmp, CF_KIND_DIR, O_FORCED, (R_SET | W_SET) & w->all,
			     false, "the run's own temp directory (TMPDIR)");
	if (r == 0 && w->o->cache_dir)
		r = cand_add(c, w->o->cache_dir, CF_KIND_DIR, O_FORCED, (R_SET | W_SET) & w->all,
			     false, "tool caches: this workspace's store, redirected (R39)");
	if (r == 0)
		r = cand_add(c, "/dev", CF_KIND_DIR, O_FORCED, 0, false,
			     "the host's /dev: only the devices below");
	for (size_t i = 0; i < sizeof(devices) / sizeof(devices[0]) && r == 0; i++)
		r = cand_add(c, devices[i], KIND_UNKNOWN, O_FORCED, dev, false, "device");
	if (r == 0)
		r = cand_add(c, "/proc", KIND_UNKNOWN, O_FORCED, PROC_SET, false,
			     "the host's /proc, read-only");
	for (size_t i = 0; i < sizeof(sys_masked) / sizeof(sys_masked[0]) && r == 0; i++)
		r = cand_add(c, sys_masked[i], KIND_UNKNOWN, O_FORCED, 0, false,
			     "kernel interface: masked");
	if (r < 0)
		return cf_nomem(w->err);
	qsort(c->v, c->n, sizeof(c->v[0]), cand_cmp);
	return 0;
}

static bool in_temp_root(const struct walk *w, const char *path)
{
	const struct cf_policy *p = w->p;
	for (size_t i = 0; i < p->temp_roots.n; i++)
		if (cf_path_within(path, p->temp_roots.v[i]))
			return true;
	return false;
}

/* The wanted rights of every candidate; kinds looked up; the contradictions refused. */
static int decide(struct walk *w)
{
	const struct cf_policy *p = w->p;
	const struct cf_host *h = p->host;
	struct cands *c = &w->c;
	int r;
	for (size_t i = 0; i < c->n; i++) {
		struct cand *x = &c->v[i];
		if (i > 0 && !strcmp(x->path, c->v[i - 1].path)) {
			x->skip = true; /* duplicates sort next to each other; the first wins */
			continue;
		}
		bool special = cf_path_within(x->path, "/proc") || cf_path_within(x->path, "/dev");
		if (x->origin == O_POLICY && special) {
			x->skip = true;
			if (x->from_rule &&
			    (r = note(&w->out->notes,
				      cf_asprintf("not applied: '%s' lies in /proc or /dev, which "
						  "this backend governs itself",
						  x->path),
				      w->err)) < 0)
				return r;
			continue;
		}
		if (x->kind == KIND_UNKNOWN)
			x->kind = h->kind(h->ctx, x->path);
		if (x->kind == CF_KIND_MISSING) {
			/* Never a rule or a split for what is not there; a protected path created
			 * during the run is reported after it (the bwrap plan's missing list). */
			x->skip = true;
			continue;
		}
		if (x->kind == CF_KIND_SYMLINK) {
			/* Landlock follows the link and decides on its target. */
			x->skip = true;
			if ((r = note(&w->out->notes,
				      cf_asprintf("no rule: '%s' is a symlink; its target is "
						  "governed by the rules for the target",
						  x->path),
				      w->err)) < 0)
				return r;
			continue;
		}
		if (x->origin == O_FORCED) {
			x->want = x->forced;
			continue;
		}
		if (in_temp_root(w, x->path) && !cf_path_within(x->path, h->workspace) &&
		    !(w->o->run_tmp && cf_path_within(x->path, w->o->run_tmp))) {
			x->want = 0; /* host content under a temp root is not the command's */
			continue;
		}
		struct cf_decision rd, wr;
		cf_policy_decide_both(p, x->path, &rd, &wr);
		if ((r = cf_plan_refuse(x->path, &rd, &wr, w->err)) < 0)
			return r;
		bool can_read = rd.action == CF_ALLOW, can_write = wr.action == CF_ALLOW;
		x->want = ((can_read ? R_SET : 0) | (can_write ? W_SET : 0)) & w->all;
		if (!(x->why_text = cf_plan_why(&rd, &wr)))
			return cf_nomem(w->err);
	}
	return 0;
}

/* The candidate at exactly `path`, or NULL. */
static const struct cand *cand_at(const struct walk *w, const char *path)
{
	for (size_t i = 0; i < w->c.n; i++)
		if (!w->c.v[i].skip && !strcmp(w->c.v[i].path, path))
			return &w->c.v[i];
	return NULL;
}

/* The wanted rights at `path`: its own candidate's, else its nearest candidate ancestor's. */
static uint64_t want_at(const struct walk *w, const char *path)
{
	const struct cand *best = NULL;
	for (size_t i = 0; i < w->c.n; i++) {
		const struct cand *x = &w->c.v[i];
		if (x->skip || !cf_path_within(path, x->path))
			continue;
		if (!best || strlen(x->path) > strlen(best->path))
			best = x;
	}
	return best ? best->want : 0;
}

/* Rights that `want` holds and some existing candidate strictly below `path` does not.  For a
 * file, READ_DIR means nothing and does not count. */
static uint64_t lacking(const struct walk *w, const char *path, uint64_t want)
{
	uint64_t lack = 0;
	for (size_t i = 0; i < w->c.n; i++) {
		const struct cand *x = &w->c.v[i];
		if (x->skip || !strcmp(x->path, path) || !cf_path_within(x->path, path))
			continue;
		uint64_t eff = x->want | (x->kind == CF_KIND_DIR ? 0 : CF_LL_FS_READ_DIR);
		lack |= want & ~eff;
	}
	return lack;
}

static bool involved(const struct walk *w, const char *path)
{
	for (size_t i = 0; i < w->c.n; i++)
		if (!w->c.v[i].skip && cf_path_within(w->c.v[i].path, path))
			return true;
	return false;
}

static int add_rule(struct walk *w, const char *path, enum cf_kind kind, uint64_t access,
		    const char *why)
{
	struct cf_ll_plan *pl = w->out;
	if (kind != CF_KIND_DIR)
		access &= FILE_RIGHTS;
	if (!access || w->dirs)
		return 0;
	if (pl->n_rules == pl->cap_rules) {
		size_t cap;
		struct cf_ll_rule *v =
		    cf_grow_array(pl->rules, pl->cap_rules, 64, sizeof(*v), &cap);
		if (!v)
			return cf_nomem(w->err);
		pl->rules = v;
		pl->cap_rules = cap;
	}
	char *p = cf_strdup(path), *y = why ? cf_strdup(why) : NULL;
	if (!p || (why && !y)) {
		free(p);
		free(y);
		return cf_nomem(w->err);
	}
	pl->rules[pl->n_rules++] =
	    (struct cf_ll_rule){.path = p, .kind = kind, .access = access, .why = y};
	return 0;
}

static const struct cf_ll_listing *find_listing(const struct walk *w, const char *dir)
{
	const struct cf_ll_listings *l = w->o->listings;
	for (size_t i = 0; l && i < l->n; i++)
		if (!strcmp(l->v[i].dir, dir))
			return &l->v[i];
	return NULL;
}

static int visit(struct walk *w, const char *path, enum cf_kind kind, uint64_t inherited);

/* Visits each child of `dir` on the way to a candidate, except those in `done`. */
static int visit_towards(struct walk *w, const char *dir, uint64_t inherited,
			 const struct cf_ll_listing *done)
{
	size_t dl = strlen(dir);
	char *last = NULL;
	int r = 0;
	for (size_t i = 0; i < w->c.n && r == 0; i++) {
		const struct cand *x = &w->c.v[i];
		if (x->skip || !strcmp(x->path, dir) || !cf_path_within(x->path, dir))
			continue;
		const char *rest = x->path + (dl == 1 ? 1 : dl + 1);
		const char *slash = strchr(rest, '/');
		size_t cl = slash ? (size_t)(slash - rest) : strlen(rest);
		char *name = cf_strndup(rest, cl);
		if (!name)
			return cf_nomem(w->err);
		bool seen = last && !strcmp(last, name);
		for (size_t j = 0; done && !seen && j < done->n; j++)
			seen = !strcmp(done->v[j].name, name);
		if (seen) {
			free(name);
			continue;
		}
		char *child = cf_path_join(dir, name);
		free(last);
		last = name;
		if (!child) {
			r = cf_nomem(w->err);
			break;
		}
		const struct cand *at = cand_at(w, child);
		enum cf_kind k = at ? at->kind : w->p->host->kind(w->p->host->ctx, child);
		if (k == CF_KIND_DIR || (at && k != CF_KIND_MISSING && k != CF_KIND_SYMLINK))
			r = visit(w, child, k, inherited);
		free(child);
	}
	free(last);
	return r;
}

static int add_guard(struct walk *w, const char *path, enum cf_kind kind, uint64_t denied)
{
	struct cf_ll_plan *pl = w->out;
	if (!denied || w->dirs)
		return 0;
	if (pl->n_guards == pl->cap_guards) {
		size_t cap;
		struct cf_ll_rule *v =
		    cf_grow_array(pl->guards, pl->cap_guards, 64, sizeof(*v), &cap);
		if (!v)
			return cf_nomem(w->err);
		pl->guards = v;
		pl->cap_guards = cap;
	}
	char *p = cf_strdup(path);
	if (!p)
		return cf_nomem(w->err);
	pl->guards[pl->n_guards++] = (struct cf_ll_rule){.path = p, .kind = kind, .access = denied};
	return 0;
}

static int visit(struct walk *w, const char *path, enum cf_kind kind, uint64_t inherited)
{
	const struct cand *self = cand_at(w, path);
	uint64_t want = want_at(w, path);
	uint64_t lack = kind == CF_KIND_DIR ? lacking(w, path, want) : 0;
	uint64_t here = want & ~lack & ~inherited;
	uint64_t split = want & lack;
	int r;

	/* A protected candidate: the rights a rule on another path to it must not bring. */
	if (self && self->origin == O_POLICY && path[1] &&
	    (r = add_guard(w, path, kind, (R_SET | W_SET) & w->all & ~want)) < 0)
		return r;

	if (here && (r = add_rule(w, path, kind, here,
				  self	  ? (self->why ? self->why : self->why_text)
				  : split ? "ancestor of a protected path"
					  : "inherited decision")) < 0)
		return r;
	if (kind != CF_KIND_DIR)
		return 0;
	const struct cf_ll_listing *l = NULL;
	if (split) {
		if (w->dirs) {
			if (!cf_strv_contains(w->dirs, path) && cf_strv_add(w->dirs, path) < 0)
				return cf_nomem(w->err);
		} else {
			if (cf_strv_add(&w->out->split, path) < 0)
				return cf_nomem(w->err);
			if ((want & CF_LL_FS_WRITE_FILE) &&
			    cf_strv_add(&w->out->split_writable, path) < 0)
				return cf_nomem(w->err);
			if ((split & CF_LL_FS_READ_DIR) &&
			    cf_strv_add(&w->out->not_listable, path) < 0)
				return cf_nomem(w->err);
			l = find_listing(w, path);
			if (!l || l->error) {
				char *n =
				    cf_asprintf("'%s' could not be listed (%s): its entries "
						"get no access",
						path, l ? "the listing failed" : "no listing");
				if ((r = note(&w->out->notes, n, w->err)) < 0)
					return r;
				l = NULL;
			}
		}
	}
	char *why = l ? cf_asprintf("entry of split '%s'", path) : NULL;
	if (l && !why)
		return cf_nomem(w->err);
	for (size_t i = 0; l && i < l->n; i++) {
		char *child = cf_path_join(path, l->v[i].name);
		if (!child) {
			free(why);
			return cf_nomem(w->err);
		}
		if (involved(w, child))
			r = visit(w, child, l->v[i].kind, inherited | here);
		else if (l->v[i].kind != CF_KIND_SYMLINK)
			r = add_rule(w, child, l->v[i].kind, split, why);
		else
			r = 0;
		free(child);
		if (r < 0) {
			free(why);
			return r;
		}
	}
	free(why);
	return visit_towards(w, path, inherited | here, l);
}

static int meta_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cf_ll_rule *)a)->path, ((const struct cf_ll_rule *)b)->path);
}

/* The meta table (R42): each decided path, writable for metadata where the rules allow a
 * write or it is the run's temp directory or the tool caches' store (R39); never the devices,
 * /proc or the temp roots, which this backend grants on its own terms. */
static int meta_table(struct walk *w)
{
	struct cf_ll_plan *pl = w->out;
	for (size_t i = 0; i < w->c.n; i++) {
		const struct cand *x = &w->c.v[i];
		if (x->skip)
			continue;
		bool own = (w->o->run_tmp && !strcmp(x->path, w->o->run_tmp)) ||
			   (w->o->cache_dir && !strcmp(x->path, w->o->cache_dir));
		bool writable = (x->origin == O_POLICY || own) && (x->want & CF_LL_FS_WRITE_FILE);
		if (pl->n_meta == pl->cap_meta) {
			size_t cap = pl->cap_meta ? pl->cap_meta * 2 : 64;
			struct cf_ll_rule *v = realloc(pl->meta, cap * sizeof(*v));
			if (!v)
				return cf_nomem(w->err);
			pl->meta = v;
			pl->cap_meta = cap;
		}
		char *p = cf_strdup(x->path);
		if (!p)
			return cf_nomem(w->err);
		pl->meta[pl->n_meta++] = (struct cf_ll_rule){
		    .path = p, .kind = x->kind, .access = writable ? CF_LL_FS_WRITE_FILE : 0};
	}
	if (pl->n_meta)
		qsort(pl->meta, pl->n_meta, sizeof(pl->meta[0]), meta_cmp);
	return 0;
}

static int walk_init(struct walk *w, const struct cf_policy *p, const struct cf_matches *globs,
		     const struct cf_ll_opts *o, struct cf_ll_plan *out, struct confine_error *err)
{
	memset(w, 0, sizeof(*w));
	w->p = p;
	w->o = o;
	w->out = out;
	w->err = err;
	int abi = p->host->landlock_abi;
	out->kernel_abi = abi;
	out->abi = abi > CF_LL_ABI_KNOWN ? CF_LL_ABI_KNOWN : abi;
	/* A plan for a host without Landlock is still written for the newest ABI, so that it
	 * shows what would be enforced; the refusal says why it cannot run. */
	w->all = cf_ll_fs_rights(out->abi > 0 ? out->abi : CF_LL_ABI_KNOWN);
	int r = gather(w, globs);
	return r < 0 ? r : decide(w);
}

int cf_ll_plan_dirs(const struct cf_policy *p, const struct cf_matches *globs,
		    const struct cf_ll_opts *o, struct cf_strv *out, struct confine_error *err)
{
	struct cf_ll_plan scratch = {0};
	struct walk w;
	int r = walk_init(&w, p, globs, o, &scratch, err);
	w.dirs = out;
	if (r == 0)
		r = visit(&w, "/", CF_KIND_DIR, 0);
	cands_release(&w.c);
	cf_ll_plan_release(&scratch);
	return r;
}

void cf_ll_plan_release(struct cf_ll_plan *plan)
{
	for (size_t i = 0; i < plan->n_rules; i++) {
		free(plan->rules[i].path);
		free(plan->rules[i].why);
	}
	free(plan->rules);
	for (size_t i = 0; i < plan->n_guards; i++)
		free(plan->guards[i].path);
	free(plan->guards);
	for (size_t i = 0; i < plan->n_meta; i++)
		free(plan->meta[i].path);
	free(plan->meta);
	cf_strv_release(&plan->split);
	cf_strv_release(&plan->split_writable);
	cf_strv_release(&plan->not_listable);
	cf_strv_release(&plan->not_provided);
	cf_strv_release(&plan->notes);
	free(plan->refusal);
	free(plan->run_tmp);
	memset(plan, 0, sizeof(*plan));
}

static int rule_cmp(const void *a, const void *b)
{
	return cf_path_cmp(((const struct cf_ll_rule *)a)->path,
			   ((const struct cf_ll_rule *)b)->path);
}

/* What the backend never gives, on any host (SPEC 3.3): before and after the private /tmp. */
static const char *const limits_before_tmp[] = {
    "name hiding: the names and metadata of hidden paths stay visible (stat, the listing of a "
    "listable parent); their content is EACCES",
    "EROFS: a denied write fails with EACCES, not EROFS",
};
static const char *const limits_after_tmp[] = {
    "private /dev/shm: the host's /dev/shm is neither readable nor writable",
    "pid namespace: the command sees the host's processes (pids, command lines); Landlock "
    "refuses ptrace of them and, with scoping, signals",
    "masked kernel files: /proc is the host's, read-only; what bwrap masks there "
    "(/proc/timer_list, /proc/slabinfo, ...) stays readable where its mode allows",
    "SysV IPC: there is no IPC namespace, so every shm*, msg* and sem* call is refused with "
    "EPERM (the host's segments, queues and semaphores are out of reach; a program that needs "
    "SysV IPC fails); POSIX message queues stay as they are, POSIX shared memory in /dev/shm "
    "is neither readable nor writable",
    "terminals by name: only the terminals the command was given (its standard descriptors) "
    "and /dev/ptmx are reachable; the terminal side of a pty the command makes is opened "
    "through TIOCGPTPEER by confine (glibc's openpty: script, python's pty module, tmux, "
    "node-pty), never by its name (/dev/pts/N: expect and programs that open ptsname() fail "
    "with EACCES)",
};

static int limits_always(struct cf_ll_plan *pl, const struct cf_ll_opts *o,
			 struct confine_error *err)
{
	int r;
	const char *tmp = o->run_tmp ? o->run_tmp : "/tmp/confine-run.*";
	for (size_t i = 0; i < sizeof(limits_before_tmp) / sizeof(limits_before_tmp[0]); i++)
		if ((r = note(&pl->not_provided, cf_strdup(limits_before_tmp[i]), err)) < 0)
			return r;
	if ((r = note(
		 &pl->not_provided,
		 cf_asprintf("private /tmp: the command's TMPDIR is %s, a fresh directory "
			     "under the host's /tmp removed after the run, not capped by "
			     "--tmp-size; the rest of /tmp (and of $TMPDIR) is neither readable "
			     "nor writable",
			     tmp),
		 err)) < 0)
		return r;
	for (size_t i = 0; i < sizeof(limits_after_tmp) / sizeof(limits_after_tmp[0]); i++)
		if ((r = note(&pl->not_provided, cf_strdup(limits_after_tmp[i]), err)) < 0)
			return r;
	return 0;
}

/* Unix sockets: governed from ABI 9 only, and never with network by domain. */
static char *limit_unix_sockets(const struct cf_ll_plan *pl)
{
	if (pl->net_proxy && pl->abi >= 9)
		return cf_strdup(
		    "unix sockets: with network by domain socket(AF_UNIX) is refused "
		    "with EPERM, and so is socketpair(2) of datagram sockets: confine "
		    "makes the command's connect(2) calls itself, outside its Landlock "
		    "domain, where LANDLOCK_ACCESS_FS_RESOLVE_UNIX would not apply; "
		    "stream socketpairs work");
	return cf_asprintf("unix sockets: Landlock ABI %d does not govern connect(2) or "
			   "sendmsg(2) to pathname sockets (LANDLOCK_ACCESS_FS_RESOLVE_UNIX "
			   "needs ABI 9), so socket(AF_UNIX) is refused with EPERM to keep the "
			   "host's IPC endpoints out, and so is socketpair(2) of datagram sockets "
			   "(an end can sendto(2) any pathname socket); stream socketpairs work",
			   pl->abi);
}

/* What network by domain gives up here against the bwrap backend's own network namespace
 * (SPEC 12). */
static const char limit_net_proxy[] =
    "own network namespace (network by domain): the command shares the host's network; TCP "
    "to the proxy on 127.0.0.1 is all it can open: Landlock limits TCP connects to the "
    "proxy's port number (on any address) and confine makes each connect(2) itself, only to "
    "127.0.0.1 on that port (EACCES for every other address and port, the host's loopback "
    "services included); the proxy's port is reachable from every process of the host, so "
    "each request must carry the run's secret, which is in the command's environment "
    "(readable by the same user's processes outside the sandbox and by root, in "
    "/proc/PID/environ); no listening socket (listen(2) is EPERM, so no server on loopback "
    "either), no UDP; the host's interfaces and connections stay visible in /proc/net; no "
    "resolver inside (R43: there is no namespace to answer names in, UDP is refused and the "
    "host's resolver configuration cannot be replaced without a mount namespace), so names "
    "resolve only through the proxy and a client that ignores the proxy variables (Node's "
    "fetch, ssh, a raw connect) reaches nothing";

/* What the backend cannot give, said plainly (SPEC 3.3): always, then what this host and
 * these options take away. */
static int limits(struct cf_ll_plan *pl, const struct cf_ll_opts *o, struct confine_error *err)
{
	int r;
	if ((r = limits_always(pl, o, err)) < 0)
		return r;
	if (!o->cgroup &&
	    (r = note(&pl->not_provided,
		      cf_strdup("daemon reaping: a process that leaves the command's session can "
				"outlive the run (no cgroup confine could create)"),
		      err)) < 0)
		return r;
	if (!pl->unix_sockets && (r = note(&pl->not_provided, limit_unix_sockets(pl), err)) < 0)
		return r;
	if (pl->net_proxy && (r = note(&pl->not_provided, cf_strdup(limit_net_proxy), err)) < 0)
		return r;
	/* R36: where confine's opener cannot act (opener.c), Landlock alone decides, and its
	 * read right covers FIFOs and files alike. */
	if (!pl->opener &&
	    (r = note(
		 &pl->not_provided,
		 cf_asprintf("FIFOs opened for reading: confine's opener cannot act for the "
			     "command here (it needs %s), and Landlock's read right covers "
			     "FIFOs and files alike, so a FIFO outside the writable areas that "
			     "the command may read (one a host process made under /var/tmp or "
			     "a home) opens for reading; opening it for writing is EACCES "
			     "(write_file is granted in the writable areas only)",
			     o->opener_missing ? o->opener_missing : "seccomp filters"),
		 err)) < 0)
		return r;
	return 0;
}

int cf_ll_plan_compile(const struct cf_policy *p, const struct cf_matches *globs,
		       const struct cf_ll_opts *o, struct cf_ll_plan *out,
		       struct confine_error *err)
{
	struct walk w;
	memset(out, 0, sizeof(*out));
	int r = walk_init(&w, p, globs, o, out, err);
	if (r < 0)
		goto out;
	out->net_proxy = o->net_proxy;
	out->network = o->network && !o->net_proxy;
	out->handled_fs = w.all;
	if (!out->network && out->abi >= 4)
		out->handled_net = CF_LL_NET_BIND_TCP | CF_LL_NET_CONNECT_TCP;
	if (out->abi >= 6)
		out->scoped = CF_LL_SCOPE_ABSTRACT_UNIX | CF_LL_SCOPE_SIGNAL;
	/* With the proxy, confine makes the command's connect(2) calls itself (connguard.c),
	 * outside the command's Landlock domain, where RESOLVE_UNIX would not apply: no
	 * AF_UNIX socket either way. */
	out->unix_sockets = out->abi >= 9 && !o->net_proxy;
	if (o->run_tmp && !(out->run_tmp = cf_strdup(o->run_tmp)))
		goto oom;
	if ((r = visit(&w, "/", CF_KIND_DIR, 0)) < 0 || (r = meta_table(&w)) < 0)
		goto out;
	out->broker = o->broker && out->split_writable.n > 0;
	/* The opener answers the supervisor's listener: a seccomp filter is needed. */
	out->opener = p->host->seccomp && !o->opener_missing;
	if (out->n_rules)
		qsort(out->rules, out->n_rules, sizeof(out->rules[0]), rule_cmp);

	size_t n;
	const struct cf_ll_abi_entry *t = cf_ll_abi_table(&n);
	if (out->kernel_abi <= 0) {
		out->refusal = cf_strdup("the kernel offers no Landlock (not built in, or not "
					 "enabled at boot: lsm=)");
	} else {
		for (size_t i = 0; i < n; i++) {
			if (t[i].abi <= out->abi)
				continue;
			if (t[i].required && !out->refusal)
				out->refusal =
				    cf_asprintf("the kernel's Landlock ABI %d lacks %s: %s",
						out->kernel_abi, t[i].name, t[i].missing);
			else if (!t[i].required &&
				 (r = note(&out->notes,
					   cf_asprintf("downgrade: ABI %d < %d, no %s: %s",
						       out->abi, t[i].abi, t[i].name, t[i].missing),
					   err)) < 0)
				goto out;
		}
	}
	if (out->kernel_abi <= 0 && !out->refusal)
		goto oom;
	/* Network by domain cannot do without the connect rule: the TCP socket it needs for the
	 * proxy would reach every port of every host. */
	if (o->net_proxy && !out->refusal && out->abi < 4 &&
	    !(out->refusal = cf_asprintf("the kernel's Landlock ABI %d lacks "
					 "LANDLOCK_ACCESS_NET_CONNECT_TCP (ABI 4): network by "
					 "domain needs the command's TCP connects limited to the "
					 "proxy's port",
					 out->kernel_abi)))
		goto oom;
	if ((r = limits(out, o, err)) < 0)
		goto out;
	r = 0;
	goto out;
oom:
	r = cf_nomem(err);
out:
	cands_release(&w.c);
	if (r < 0)
		cf_ll_plan_release(out);
	return r;
}
