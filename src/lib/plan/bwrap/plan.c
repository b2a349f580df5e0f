/* SPDX-License-Identifier: MIT */
/*
 * Compiling the policy into a Linux mount plan (SPEC 3, R13, R14).
 *
 * The decisions are piecewise constant: a rule covers a path and everything below it, so the
 * decision can only change at a rule's path, a glob match, the workspace or a temp root.  Those
 * are the candidates.  Sorted parent before child, each candidate gets a mount only when its
 * decision differs from what the nearest mounted ancestor already shows, so the most specific
 * mount ends up on top.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_const.h"
#include "net/netconst.h"
#include "plan/bwrap/plan.h"
#include "plan/verdict.h"
#include "util/util.h"

enum state {
	S_RO,	       /* host content, read-only */
	S_RW,	       /* host content, writable */
	S_HIDDEN,      /* empty mode-000 directory */
	S_HIDDEN_FILE, /* empty mode-000 file */
	S_PRIVATE,     /* private tmpfs: no host content below */
	S_CACHE,       /* a tool cache's overlay (R39): the host's content, writes go to the
			* store; a write deny below it is kept by the overlay itself */
};

struct cand {
	char *path;
	enum cf_kind kind; /* CF_KIND_MISSING + 100 when unknown yet */
	bool temp_root;
	bool from_rule; /* written by a user (session, workspace or user layer) */
	bool endpoint;	/* a host IPC endpoint (R29): may vanish before bwrap mounts it */
	bool pin;	/* an ancestor of a protection in a writable area (R33) */
	size_t cache;	/* 1 + the index in plan->caches of a tool cache's overlay, or 0 */
	bool store;	/* the store's redirect targets (R39): a read-write bind */
};

#define KIND_UNKNOWN ((enum cf_kind)100)

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	int c = cf_path_cmp(x->path, y->path);
	/* Equal paths: a temp root first, so that it is the one kept (a rule on exactly /tmp
	 * must not turn the private /tmp into the host's). */
	return c ? c : (int)y->temp_root - (int)x->temp_root;
}

void cf_plan_release(struct cf_plan *plan)
{
	for (size_t i = 0; i < plan->n_mounts; i++) {
		free(plan->mounts[i].path);
		free(plan->mounts[i].why);
	}
	free(plan->mounts);
	free(plan->workspace);
	free(plan->cwd);
	cf_strv_release(&plan->argv);
	cf_strv_release(&plan->env);
	cf_strv_release(&plan->env_removed);
	cf_strv_release(&plan->missing);
	cf_strv_release(&plan->notes);
	cf_strv_release(&plan->ipc_allow);
	cf_strv_release(&plan->run_notes);
	cf_strv_release(&plan->public_files);
	cf_plan_injects_release(plan);
	cf_plan_caches_release(plan);
	memset(plan, 0, sizeof(*plan));
}

static int add_mount(struct cf_plan *plan, enum cf_mount_op op, const char *path, enum cf_kind kind,
		     uint64_t size, char *why, struct confine_error *err)
{
	if (plan->n_mounts == plan->cap_mounts) {
		size_t cap;
		struct cf_mount *v =
		    cf_grow_array(plan->mounts, plan->cap_mounts, 32, sizeof(*v), &cap);
		if (!v) {
			free(why);
			return cf_nomem(err);
		}
		plan->mounts = v;
		plan->cap_mounts = cap;
	}
	char *p = cf_strdup(path);
	if (!p) {
		free(why);
		return cf_nomem(err);
	}
	plan->mounts[plan->n_mounts++] =
	    (struct cf_mount){.op = op, .path = p, .kind = kind, .size = size, .why = why};
	return 0;
}

static int add_cand_ex(struct cand **v, size_t *n, size_t *cap, const char *path, enum cf_kind kind,
		       bool temp_root, bool from_rule, bool endpoint);

static int add_cand(struct cand **v, size_t *n, size_t *cap, const char *path, enum cf_kind kind,
		    bool temp_root, bool from_rule)
{
	return add_cand_ex(v, n, cap, path, kind, temp_root, from_rule, false);
}

static int add_cand_ex(struct cand **v, size_t *n, size_t *cap, const char *path, enum cf_kind kind,
		       bool temp_root, bool from_rule, bool endpoint)
{
	if (*n == *cap) {
		size_t c;
		struct cand *nv = cf_grow_array(*v, *cap, 64, sizeof(*nv), &c);
		if (!nv)
			return CONFINE_E_NOMEM;
		*v = nv;
		*cap = c;
	}
	char *p = cf_strdup(path);
	if (!p)
		return CONFINE_E_NOMEM;
	(*v)[(*n)++] = (struct cand){.path = p,
				     .kind = kind,
				     .temp_root = temp_root,
				     .from_rule = from_rule,
				     .endpoint = endpoint};
	return 0;
}

/*
 * Kernel interfaces that uid 0 without capabilities can still use: a sandbox started by root is
 * root on the host as far as file modes and uid-only checks go.  /proc/sys (core_pattern,
 * modprobe, hotplug: code the kernel runs as full root outside every namespace) and the other
 * writable kernel files become read-only; root-only kernel state (keys, timers, kernel
 * addresses, page and slab internals, the kernel log) is masked.  The read-only and masked
 * lists of container runtimes (runc's defaults), plus the root-only (mode 0400) files of /proc
 * that a uid 0 sandbox would otherwise read, plus debugfs.  /proc/kcore is not listed: the
 * kernel does not show it in a proc mounted from a user namespace (tests/enforce check it).
 * Only what exists is mounted (a host fact), so that bwrap never has to create anything in
 * procfs or sysfs.
 */
static const char *const kernel_ro[] = {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq",
					"/proc/bus", "/proc/fs"};
static const char *const kernel_masked[] = {
    "/proc/keys",	 "/proc/key-users",    "/proc/timer_list",
    "/proc/timer_stats", "/proc/sched_debug",  "/proc/latency_stats",
    "/proc/kmsg",	 "/proc/kpagecount",   "/proc/kpageflags",
    "/proc/kpagecgroup", "/proc/pagetypeinfo", "/proc/slabinfo",
    "/proc/vmallocinfo", "/proc/acpi",	       "/proc/asound",
    "/proc/scsi",	 "/sys/firmware",      "/sys/devices/virtual/powercap",
    "/sys/kernel/debug",
};

static int add_kernel_mounts(struct cf_plan *out, const struct cf_host *h, size_t *hides,
			     size_t *n_hides, struct confine_error *err)
{
	int r;
	for (size_t i = 0; i < sizeof(kernel_ro) / sizeof(kernel_ro[0]); i++) {
		enum cf_kind k = h->kind(h->ctx, kernel_ro[i]);
		if (k == CF_KIND_MISSING || k == CF_KIND_SYMLINK)
			continue;
		char *why = cf_strdup("kernel interface: read-only");
		if (!why)
			return cf_nomem(err);
		if ((r = add_mount(out, CF_MNT_RO_KERNEL, kernel_ro[i], k, 0, why, err)) < 0)
			return r;
	}
	for (size_t i = 0; i < sizeof(kernel_masked) / sizeof(kernel_masked[0]); i++) {
		enum cf_kind k = h->kind(h->ctx, kernel_masked[i]);
		if (k == CF_KIND_MISSING || k == CF_KIND_SYMLINK)
			continue;
		char *why = cf_strdup("kernel interface: masked");
		if (!why)
			return cf_nomem(err);
		bool dir = k == CF_KIND_DIR;
		if ((r = add_mount(out, dir ? CF_MNT_HIDE_DIR : CF_MNT_HIDE_FILE, kernel_masked[i],
				   k, 0, why, err)) < 0)
			return r;
		if (dir)
			hides[(*n_hides)++] = out->n_mounts - 1;
	}
	return 0;
}

#define N_KERNEL_MASKS (sizeof(kernel_masked) / sizeof(kernel_masked[0]))

/*
 * Network by domain (SPEC 12): the directory of the proxy's sockets, read-only, inside the
 * sandbox's own /dev (a tmpfs of bwrap's, made read-only right after): its mount point never
 * touches the host, and the command cannot rename or replace it.  A read-only mount does not
 * stop connect(); confine-init is what connects.  Rules that would have no effect are noted.
 */
static int add_net_mounts(struct cf_plan *out, struct confine_error *err)
{
	char *note = NULL;
	/* R44: the ssh-agent filter's socket directory, the same way, at its own place; the
	 * command connects to it (SSH_AUTH_SOCK). */
	if (out->ssh_agent) {
		char *why = cf_strdup("ssh-agent filter socket (confine's own, R44)");
		int r = why ? add_mount(out, CF_MNT_RO_BIND, CF_AGENT_DIR, CF_KIND_DIR, 0, why, err)
			    : cf_nomem(err);
		if (r < 0)
			return r;
		out->mounts[out->n_mounts - 1].agent_dir = true;
		/* The IPC guard (R36) lets the command connect to that one socket. */
		static const char sock[] = CF_AGENT_DIR "/" CF_AGENT_SOCK;
		if (!cf_strv_contains(&out->ipc_allow, sock) &&
		    cf_strv_add(&out->ipc_allow, sock) < 0)
			return cf_nomem(err);
	}
	if (out->net_mode == CONFINE_NET_DOMAINS) {
		char *why = cf_strdup("network proxy sockets (confine's own, SPEC 12)");
		if (!why)
			return cf_nomem(err);
		int r = add_mount(out, CF_MNT_RO_BIND, CF_NET_DIR, CF_KIND_DIR, 0, why, err);
		if (r < 0)
			return r;
		out->mounts[out->n_mounts - 1].net_dir = true;
		return 0;
	}
	if (!out->net_rules)
		return 0;
	if (out->net_mode == CONFINE_NET_OFF)
		note = cf_asprintf("network rules not used: the network is off (%zu rule%s)",
				   out->net_rules, out->net_rules == 1 ? "" : "s");
	else
		note = cf_asprintf(
		    "network rules not enforced: no rule allows a domain, so the network stays on "
		    "and %zu deny rule%s %s no effect; allow the domains the command needs "
		    "(--net-allow or the user rule file) to switch to network by domain",
		    out->net_rules, out->net_rules == 1 ? "" : "s",
		    out->net_rules == 1 ? "has" : "have");
	if (!note || cf_strv_take(&out->notes, note) < 0)
		return cf_nomem(err);
	return 0;
}

/*
 * R43: the resolver inside.  The host's /etc/resolv.conf, /etc/hosts and /etc/nsswitch.conf
 * are replaced, read-only, by confine's (net/resolvconf.h; the executor binds them from the
 * proxy's directory), after every mount of the rules so that none shadows them, and before
 * hidden directories become read-only.  Only over a regular file of the host, never under a
 * hidden directory: bwrap must not create anything on the host.  A file left as it is is
 * noted (the resolver still answers on every address of the sandbox, so a name server
 * elsewhere in a symlinked resolv.conf still reaches it).
 */
static const char *const resolver_files[][2] = {{"/etc/resolv.conf", "resolv.conf"},
						{"/etc/hosts", "hosts"},
						{"/etc/nsswitch.conf", "nsswitch.conf"}};

static int add_resolver_mounts(struct cf_plan *out, const struct cf_host *h,
			       struct confine_error *err)
{
	if (out->net_mode != CONFINE_NET_DOMAINS || out->target != CONFINE_TARGET_LINUX)
		return 0;
	for (size_t i = 0; i < sizeof(resolver_files) / sizeof(resolver_files[0]); i++) {
		const char *path = resolver_files[i][0];
		bool hidden = false;
		for (size_t k = 0; k < out->n_mounts && !hidden; k++)
			hidden = (out->mounts[k].op == CF_MNT_HIDE_DIR ||
				  out->mounts[k].op == CF_MNT_TMPFS) &&
				 cf_path_within(path, out->mounts[k].path);
		enum cf_kind kind = h->kind(h->ctx, path);
		if (hidden || kind != CF_KIND_FILE) {
			char *note = cf_asprintf(
			    "%s not replaced by the resolver inside's (%s): names still resolve "
			    "only through confine's resolver",
			    path, hidden ? "a rule hides it" : "not a regular file on the host");
			if (!note || cf_strv_take(&out->notes, note) < 0)
				return cf_nomem(err);
			continue;
		}
		char *why = cf_strdup("the resolver inside (confine's own, R43)");
		if (!why)
			return cf_nomem(err);
		int r = add_mount(out, CF_MNT_RO_BIND, path, CF_KIND_FILE, 0, why, err);
		if (r < 0)
			return r;
		out->mounts[out->n_mounts - 1].net_file = resolver_files[i][1];
	}
	return 0;
}

/* R39: the overlay data of the store, bound inside the sandbox's own /dev for the mask
 * maker (exec/linux/bwrap/masks.c). */
static int add_cache_store(struct cf_plan *out, struct confine_error *err)
{
	if (!out->cache_overlay)
		return 0;
	char *why = cf_strdup("tool caches: this workspace's store, for the overlays; detached "
			      "before the command starts (R39)");
	return why ? add_mount(out, CF_MNT_CACHE_STORE, CF_CACHE_MNT, CF_KIND_DIR, 0, why, err)
		   : cf_nomem(err);
}

/* R39: the overlay of a tool cache, on top of what the path got; below it, S_CACHE. */
static int add_cache_overlay(struct cf_plan *out, const struct cand *c, struct confine_error *err)
{
	const struct cf_plan_cache *pc = &out->caches[c->cache - 1];
	char *why = cf_asprintf("tool cache %s: the host's, read; writes go to %s (R39)", pc->tool,
				pc->where);
	if (!why)
		return cf_nomem(err);
	int r = add_mount(out, CF_MNT_CACHE_OVERLAY, c->path, CF_KIND_DIR, 0, why, err);
	if (r == 0)
		out->mounts[out->n_mounts - 1].cache = c->cache - 1;
	return r;
}

struct stack_entry {
	const char *path;
	enum state state;
	size_t mount; /* index of the mount that set the state */
};

/*
 * R33: a mount follows its directory when the directory is renamed, so a protection on a/b
 * moves away with `mv a a.old`, and the command can make a fresh, unprotected a/b for the host
 * to use later.  A mount point cannot be renamed (EBUSY), so every ancestor of a protection
 * that could be renamed (its parent is writable host content) is bound onto itself.  Called
 * when the protection at `path` is planned, with the stack of mounted ancestors.
 */
static int note_pins(const char *path, const struct stack_entry *stack, size_t depth,
		     struct cf_strv *pins)
{
	char *a = cf_path_dirname(path);
	while (a && strcmp(a, "/")) {
		char *parent = cf_path_dirname(a);
		if (!parent)
			break;
		enum state st = S_RO;
		bool mounted = false;
		for (size_t k = depth; k-- > 0;) {
			if (!strcmp(stack[k].path, a))
				mounted = true;
			if (cf_path_within(parent, stack[k].path)) {
				st = stack[k].state;
				break;
			}
		}
		if (st == S_RW && !mounted && !cf_strv_contains(pins, a) &&
		    cf_strv_add(pins, a) < 0)
			break;
		free(a);
		a = parent;
	}
	bool ok = a != NULL;
	free(a);
	return ok ? 0 : CONFINE_E_NOMEM;
}

static int path_ptr_cmp(const void *a, const void *b)
{
	return cf_path_cmp(*(char *const *)a, *(char *const *)b);
}

/*
 * R36: the IPC guard and the allows it honours.  An allow of the session or the user names a
 * FIFO or a socket to reach, or the directory that holds them (never a directory above: an
 * allow of ~ is no wish to reach every socket under it, as for the swept endpoints, R29).
 */
static int plan_ipc(const struct cf_policy *p, struct cf_plan *out, struct confine_error *err)
{
	const enum cf_layer layers[] = {CF_LAYER_SESSION, CF_LAYER_USER};
	out->ipc_guard = !p->host->ipc_guard_missing && p->host->seccomp;
	for (size_t k = 0; k < 2; k++) {
		const struct cf_ruleset *rs = &p->layers[layers[k]];
		for (size_t i = 0; i < rs->n; i++) {
			const struct cf_rule *r = &rs->v[i];
			if (r->action == CF_ALLOW && !r->glob &&
			    !cf_strv_contains(&out->ipc_allow, r->path) &&
			    cf_strv_add(&out->ipc_allow, r->path) < 0)
				return cf_nomem(err);
		}
	}
	if (out->ipc_allow.n)
		qsort(out->ipc_allow.v, out->ipc_allow.n, sizeof(char *), path_ptr_cmp);
	if (out->ipc_guard || !p->host->seccomp)
		return 0;
	char *note = cf_asprintf("ipc: FIFOs and pathname sockets outside the writable areas are "
				 "not guarded here (needs %s); only the endpoints the sweep finds "
				 "are hidden (R29)",
				 p->host->ipc_guard_missing);
	return !note || cf_strv_take(&out->notes, note) < 0 ? cf_nomem(err) : 0;
}

/* The fields of the plan that come from the options and the host, and the IPC guard. */
static int plan_header(const struct cf_policy *p, const struct cf_plan_opts *o, struct cf_plan *out,
		       struct confine_error *err)
{
	const struct cf_host *h = p->host;
	memset(out, 0, sizeof(*out));
	out->target = o->target;
	out->network = o->network && o->net_mode == CONFINE_NET_ON;
	out->net_mode = o->net_mode;
	out->net_allowed = o->net_allowed;
	out->net_rules = o->net_rules;
	out->ssh_agent = o->ssh_agent;
	out->tmp_size = o->tmp_size;
	out->landlock_abi = h->landlock_abi;
	out->seccomp = h->seccomp;
	out->workspace = cf_strdup(h->workspace);
	out->cwd = cf_strdup(o->cwd ? o->cwd : h->workspace);
	if (!out->workspace || !out->cwd)
		return cf_nomem(err);
	return plan_ipc(p, out, err);
}

struct cands {
	struct cand *v;
	size_t n, cap;
};

static void cands_release(struct cands *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].path);
	free(c->v);
}

/* Candidates: every wildcard-free rule path, every glob match, the workspace and the temp
 * roots. */
static int rule_cands(const struct cf_policy *p, const struct cf_matches *globs, struct cands *c)
{
	for (int l = 0; l < CF_LAYER_FALLBACK; l++) {
		const struct cf_ruleset *rs = &p->layers[l];
		bool user = l >= CF_LAYER_SESSION;
		for (size_t i = 0; i < rs->n; i++)
			if (!rs->v[i].glob && add_cand(&c->v, &c->n, &c->cap, rs->v[i].path,
						       KIND_UNKNOWN, false, user) < 0)
				return CONFINE_E_NOMEM;
	}
	for (size_t i = 0; i < p->endpoints.n; i++)
		if (add_cand_ex(&c->v, &c->n, &c->cap, p->endpoints.v[i].path, KIND_UNKNOWN, false,
				false, true) < 0)
			return CONFINE_E_NOMEM;
	for (size_t i = 0; globs && i < globs->n; i++)
		if (add_cand(&c->v, &c->n, &c->cap, globs->v[i].path, globs->v[i].kind, false,
			     false) < 0)
			return CONFINE_E_NOMEM;
	if (add_cand(&c->v, &c->n, &c->cap, p->host->workspace, KIND_UNKNOWN, false, false) < 0)
		return CONFINE_E_NOMEM;
	for (size_t i = 0; i < p->temp_roots.n; i++)
		if (add_cand(&c->v, &c->n, &c->cap, p->temp_roots.v[i], CF_KIND_DIR, true, false) <
		    0)
			return CONFINE_E_NOMEM;
	return 0;
}

/* Every candidate, sorted, the pin, cache and store marks of duplicates merged into the first;
 * the tool caches are decided here (into out->caches). */
static int collect_cands(const struct cf_policy *p, const struct cf_matches *globs,
			 const struct cf_plan_opts *o, const struct cf_strv *pins_in,
			 struct cf_plan *out, struct cands *c, struct confine_error *err)
{
	int r;
	if (rule_cands(p, globs, c) < 0)
		return cf_nomem(err);
	/* Tool caches (R39): an overlay on top of whatever the path gets; the redirect targets of
	 * this workspace's store, writable. */
	if ((r = cf_plan_caches_decide(p, o->caches, o->cache_work, out, err)) < 0)
		return r;
	for (size_t i = 0; i < out->n_caches; i++)
		if (out->caches[i].how == CF_CACHE_OVERLAY) {
			if (add_cand(&c->v, &c->n, &c->cap, out->caches[i].path, KIND_UNKNOWN,
				     false, false) < 0)
				return cf_nomem(err);
			c->v[c->n - 1].cache = i + 1;
		}
	if (out->cache_redirect) {
		char *rd = cf_cache_store_redirect(out->cache_store);
		int k = rd ? add_cand(&c->v, &c->n, &c->cap, rd, CF_KIND_DIR, false, false) : -1;
		free(rd);
		if (k < 0)
			return cf_nomem(err);
		c->v[c->n - 1].store = true;
	}
	for (size_t i = 0; pins_in && i < pins_in->n; i++) {
		if (add_cand(&c->v, &c->n, &c->cap, pins_in->v[i], KIND_UNKNOWN, false, false) < 0)
			return cf_nomem(err);
		c->v[c->n - 1].pin = true;
	}
	qsort(c->v, c->n, sizeof(*c->v), cand_cmp);
	/* Duplicates sort next to each other and the first is kept: it carries the pin, the
	 * cache and the store marks. */
	for (size_t i = c->n; i-- > 1;)
		if (!strcmp(c->v[i].path, c->v[i - 1].path)) {
			c->v[i - 1].pin |= c->v[i].pin;
			c->v[i - 1].store |= c->v[i].store;
			if (!c->v[i - 1].cache)
				c->v[i - 1].cache = c->v[i].cache;
		}
	return 0;
}

/* The mounts every plan starts with: the read-only root, /dev, /proc and the kernel's files. */
static int add_base_mounts(struct cf_plan *out, const struct cf_plan_opts *o,
			   const struct cf_host *h, size_t *hides, size_t *n_hides,
			   struct confine_error *err)
{
	int r;
	/* /dev/shm is writable RAM like /tmp: the same size cap, or a command could fill memory
	 * through it (bwrap's /dev leaves it uncapped).  /dev itself is a tmpfs without a size
	 * that the sandbox owns: read-only once its mount points exist, so it cannot be filled
	 * either (its device nodes and /dev/pts and /dev/shm are mounts of their own and stay
	 * usable). */
	if ((r = add_mount(out, CF_MNT_RO_ROOT, "/", CF_KIND_DIR, 0, NULL, err)) < 0 ||
	    (r = add_mount(out, CF_MNT_DEV, "/dev", CF_KIND_DIR, 0, NULL, err)) < 0 ||
	    (r = add_mount(out, CF_MNT_TMPFS, "/dev/shm", CF_KIND_DIR, o->tmp_size, NULL, err)) <
		0 ||
	    (r = add_net_mounts(out, err)) < 0 || (r = add_cache_store(out, err)) < 0 ||
	    (r = add_mount(out, CF_MNT_REMOUNT_RO, "/dev", CF_KIND_DIR, 0, NULL, err)) < 0 ||
	    (r = add_mount(out, CF_MNT_PROC, "/proc", CF_KIND_DIR, 0, NULL, err)) < 0 ||
	    (r = add_kernel_mounts(out, h, hides, n_hides, err)) < 0)
		return r;
	return 0;
}

/* The walk over the sorted candidates: the stack of mounted ancestors and their states. */
struct walk {
	const struct cf_policy *p;
	const struct cf_plan_opts *o;
	struct cf_plan *out;
	struct cf_strv *pins_out;
	struct stack_entry *stack;
	size_t depth;
	size_t *hides, n_hides;
};

/* `path` shows `state` below it, set by the last mount. */
static void push(struct walk *w, const char *path, enum state state)
{
	w->stack[w->depth++] = (struct stack_entry){path, state, w->out->n_mounts - 1};
}

/* The candidates no rule decides: in the sandbox's /proc or /dev, a temp root, below a hidden
 * file or a private temp root, the cache store.  *done when `c` was one of them. */
static int place_fixed(struct walk *w, const struct cand *c, enum state inherited, bool *done,
		       struct confine_error *err)
{
	int r;
	*done = true;
	if (cf_path_within(c->path, "/proc") || cf_path_within(c->path, "/dev")) {
		if (!c->from_rule)
			return 0;
		char *note = cf_asprintf(
		    "not mounted: '%s' lies in the sandbox's own /proc or /dev", c->path);
		return !note || cf_strv_take(&w->out->notes, note) < 0 ? cf_nomem(err) : 0;
	}
	if (c->temp_root) {
		if (inherited == S_HIDDEN || inherited == S_HIDDEN_FILE)
			return 0;
		if ((r = add_mount(w->out, CF_MNT_TMPFS, c->path, CF_KIND_DIR, w->o->tmp_size, NULL,
				   err)) < 0)
			return r;
		push(w, c->path, S_PRIVATE);
		return 0;
	}
	if (inherited == S_HIDDEN_FILE)
		return 0;
	if (inherited == S_PRIVATE && !cf_path_within(c->path, w->p->host->workspace))
		return 0; /* host content under a private temp root is not visible */
	if (c->store) {
		/* R39: the redirect targets of this workspace's store, confine's own directory made
		 * for the run (the rest of confine's state stays hidden). */
		char *why = cf_strdup("tool caches: this workspace's store, where the "
				      "redirected tools write (R39)");
		if (!why)
			return cf_nomem(err);
		if ((r = add_mount(w->out, CF_MNT_RW_BIND, c->path, CF_KIND_DIR, 0, why, err)) < 0)
			return r;
		push(w, c->path, S_RW);
		return 0;
	}
	*done = false;
	return 0;
}

/* A candidate with nothing to mount: missing (*done; re-checked after the run when a rule
 * restricts it) or a symlink (*done; its target is governed by its own rules). */
static int place_absent(struct walk *w, const struct cand *c, enum cf_kind kind, bool restricted,
			enum state inherited, bool *done, struct confine_error *err)
{
	*done = kind == CF_KIND_MISSING || kind == CF_KIND_SYMLINK;
	if (kind == CF_KIND_MISSING) {
		/* Never create a mount point on the host; re-checked after the run (an endpoint
		 * that vanished: by the post-run sweep of endpoints). */
		if (restricted && inherited != S_HIDDEN && !c->endpoint &&
		    !cf_strv_contains(&w->out->missing, c->path) &&
		    cf_strv_add(&w->out->missing, c->path) < 0)
			return cf_nomem(err);
	} else if (kind == CF_KIND_SYMLINK) {
		char *note = cf_asprintf("not mounted: '%s' is a symlink; its target is "
					 "governed by the rules for the target",
					 c->path);
		if (!note || cf_strv_take(&w->out->notes, note) < 0)
			return cf_nomem(err);
	}
	return 0;
}

/* The mount of a decided candidate that exists, when it shows something other than its
 * nearest mounted ancestor. */
static int mount_decided(struct walk *w, const struct cand *c, enum cf_kind kind,
			 enum state inherited, const struct cf_decision *rd,
			 const struct cf_decision *wr, struct confine_error *err)
{
	struct cf_plan *out = w->out;
	int r;
	enum state want;
	if (rd->action != CF_ALLOW)
		want = kind == CF_KIND_DIR ? S_HIDDEN : S_HIDDEN_FILE;
	else
		want = wr->action == CF_ALLOW ? S_RW : S_RO;
	bool hidden_already = inherited == S_HIDDEN && (want == S_HIDDEN || want == S_HIDDEN_FILE);
	bool pin = c->pin && want == S_RW && inherited == S_RW && kind == CF_KIND_DIR;
	/* Inside a tool cache's overlay a write deny holds already: writes go to the
	 * store, never to the host's file.  An allow of the caller's is the host's own
	 * object, bound on top: a FIFO or socket below the overlay is another inode there,
	 * with no pipe or listener of the host's behind it (R36). */
	bool cached =
	    inherited == S_CACHE && want == S_RO && !cf_strv_contains(&out->ipc_allow, c->path);
	if (c->cache && want == S_RO && kind == CF_KIND_DIR) {
		if (want != inherited && (r = add_mount(out, CF_MNT_RO_BIND, c->path, kind, 0,
							cf_plan_why(rd, wr), err)) < 0)
			return r;
		if ((r = add_cache_overlay(out, c, err)) < 0)
			return r;
		push(w, c->path, S_CACHE);
		return 0;
	}
	if ((want == inherited || hidden_already || cached) && !pin)
		return 0;

	enum cf_mount_op op = want == S_HIDDEN	      ? CF_MNT_HIDE_DIR
			      : want == S_HIDDEN_FILE ? CF_MNT_HIDE_FILE
			      : want == S_RO	      ? CF_MNT_RO_BIND
						      : CF_MNT_RW_BIND;
	char *why = pin ? cf_strdup("pinned: an ancestor of a protected path cannot be "
				    "renamed (R33)")
			: cf_plan_why(rd, wr);
	if (!why)
		return cf_nomem(err);
	if ((r = add_mount(out, op, c->path, kind, 0, why, err)) < 0)
		return r;
	out->mounts[out->n_mounts - 1].transient = c->endpoint;
	out->mounts[out->n_mounts - 1].pin = pin;
	/* A protection inside writable host content: pinned ancestors (R33), checked
	 * again before the command starts (R34). */
	if (!pin && want != S_RW && inherited == S_RW) {
		out->mounts[out->n_mounts - 1].guarded = true;
		if (w->pins_out && note_pins(c->path, w->stack, w->depth, w->pins_out) < 0)
			return cf_nomem(err);
	}
	if (op == CF_MNT_HIDE_DIR)
		w->hides[w->n_hides++] = out->n_mounts - 1;
	if (kind == CF_KIND_DIR || want == S_HIDDEN_FILE)
		push(w, c->path, want);
	return 0;
}

/* One candidate, in order: a mount when its decision differs from what the nearest mounted
 * ancestor shows. */
static int place(struct walk *w, const struct cand *c, struct confine_error *err)
{
	while (w->depth > 0 && !cf_path_within(c->path, w->stack[w->depth - 1].path))
		w->depth--;
	enum state inherited = w->depth ? w->stack[w->depth - 1].state : S_RO;
	bool done;
	int r = place_fixed(w, c, inherited, &done, err);
	if (r < 0 || done)
		return r;

	struct cf_decision rd, wr;
	cf_policy_decide_both(w->p, c->path, &rd, &wr);
	if ((r = cf_plan_refuse(c->path, &rd, &wr, err)) < 0)
		return r;
	const struct cf_host *h = w->p->host;
	enum cf_kind kind = c->kind == KIND_UNKNOWN ? h->kind(h->ctx, c->path) : c->kind;
	bool restricted = rd.action != CF_ALLOW || wr.action != CF_ALLOW;
	r = place_absent(w, c, kind, restricted, inherited, &done, err);
	if (r < 0 || done)
		return r;
	return mount_decided(w, c, kind, inherited, &rd, &wr, err);
}

/* Hidden directories become read-only only after every mount beneath them exists: bwrap
 * creates those mount points inside the tmpfs. */
static int remount_hides(struct cf_plan *out, const size_t *hides, size_t n_hides,
			 struct confine_error *err)
{
	for (size_t i = n_hides; i-- > 0;) {
		struct cf_mount *m = &out->mounts[hides[i]];
		for (size_t j = hides[i] + 1; j < out->n_mounts && !m->traverse; j++)
			m->traverse = cf_path_within(out->mounts[j].path, m->path);
		char *path = cf_strdup(m->path);
		if (!path)
			return cf_nomem(err);
		int r = add_mount(out, CF_MNT_REMOUNT_RO, path, CF_KIND_DIR, 0, NULL, err);
		free(path);
		if (r < 0)
			return r;
	}
	return 0;
}

static int compile_once(const struct cf_policy *p, const struct cf_matches *globs,
			const struct cf_plan_opts *o, const struct cf_strv *pins_in,
			struct cf_strv *pins_out, struct cf_plan *out, struct confine_error *err)
{
	struct cands c = {0};
	struct walk w = {.p = p, .o = o, .out = out, .pins_out = pins_out};
	int r;

	if ((r = plan_header(p, o, out, err)) < 0 ||
	    (r = collect_cands(p, globs, o, pins_in, out, &c, err)) < 0)
		goto out;
	w.stack = calloc(c.n + 1, sizeof(*w.stack));
	w.hides = calloc(c.n + 1 + N_KERNEL_MASKS, sizeof(*w.hides));
	if (!w.stack || !w.hides) {
		r = cf_nomem(err);
		goto out;
	}
	if ((r = add_base_mounts(out, o, p->host, w.hides, &w.n_hides, err)) < 0)
		goto out;
	for (size_t i = 0; i < c.n; i++) {
		if (i > 0 && !strcmp(c.v[i].path, c.v[i - 1].path))
			continue; /* duplicates sort next to each other */
		if ((r = place(&w, &c.v[i], err)) < 0)
			goto out;
	}
	if ((r = add_resolver_mounts(out, p->host, err)) < 0)
		goto out;
	r = remount_hides(out, w.hides, w.n_hides, err);
out:
	cands_release(&c);
	free(w.stack);
	free(w.hides);
	if (r < 0)
		cf_plan_release(out);
	return r;
}

int cf_plan_compile(const struct cf_policy *p, const struct cf_matches *globs,
		    const struct cf_plan_opts *o, struct cf_plan *out, struct confine_error *err)
{
	struct cf_strv pins = {0};
	int r = compile_once(p, globs, o, NULL, &pins, out, err);
	if (r == 0 && pins.n) {
		/* The pins change no decision, so a second pass with them is the final plan. */
		cf_plan_release(out);
		r = compile_once(p, globs, o, &pins, NULL, out, err);
	}
	cf_strv_release(&pins);
	return r;
}
