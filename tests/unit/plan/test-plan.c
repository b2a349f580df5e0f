/* SPDX-License-Identifier: MIT */
/*
 * Targeted checks of the Linux plan compiler (SPEC 3, R12-R14) that the golden cases do not
 * make: structural invariants of the mount list over many shuffled rule orders, hide-dir modes,
 * the place of remount-ro entries, duplicate candidates, missing protected paths, and the shape
 * of the bwrap argument vector (the "--" before the helper and the command, --unshare-net).
 */
#include <stdlib.h>
#include <string.h>

#include "plan/bwrap/plan.h"
#include "util/util.h"
#include "../fakefs.h"
#include "../tap.h"
#include "host/matches.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define HOME "/home/u"
#define WS "/home/u/ws"

/* The fake host's file system: listed paths, their parents are directories. */
static struct fakefs fs;

static void fs_add(const char *path, enum cf_kind kind)
{
	fakefs_add(&fs, path, kind, NULL);
}

static void fs_clear(void)
{
	fakefs_clear(&fs);
}

static const struct cf_host host = {
    .home = HOME,
    .workspace = WS,
    .user_rules_file = HOME "/.config/confine/rules.json",
    .uid = 1000,
    .landlock_abi = 7,
    .seccomp = true,
    .kind = fakefs_kind,
    .canonicalize = fakefs_canon,
    .ctx = &fs,
};

struct compiled {
	struct cf_policy policy;
	struct cf_plan plan;
	struct confine_error err;
	int rc;
};

/* Loads the rules (written order kept within each layer) and compiles. */
static void compile(const struct rspec *rules, size_t n, const struct cf_matches *globs,
		    bool network, struct compiled *c)
{
	memset(c, 0, sizeof(*c));
	c->rc = cf_policy_init(&c->policy, &host, &c->err);
	if (c->rc == 0)
		c->rc = fakefs_load_rules(&c->policy, rules, n, WS "/.confine/rules.json",
					  HOME "/.config/confine/rules.json", &c->err);
	struct cf_plan_opts o = {
	    .target = CONFINE_TARGET_LINUX, .network = network, .tmp_size = 1 << 20, .cwd = NULL};
	if (c->rc == 0)
		c->rc = cf_plan_compile(&c->policy, globs, &o, &c->plan, &c->err);
}

static void release(struct compiled *c)
{
	if (c->rc == 0)
		cf_plan_release(&c->plan);
	cf_policy_release(&c->policy);
}

static const struct cf_mount *find(const struct cf_plan *p, enum cf_mount_op op, const char *path)
{
	for (size_t i = 0; i < p->n_mounts; i++)
		if (p->mounts[i].op == op && !strcmp(p->mounts[i].path, path))
			return &p->mounts[i];
	return NULL;
}

static size_t count_path(const struct cf_plan *p, const char *path, bool remounts)
{
	size_t n = 0;
	for (size_t i = 0; i < p->n_mounts; i++)
		if (!strcmp(p->mounts[i].path, path) &&
		    (remounts || p->mounts[i].op != CF_MNT_REMOUNT_RO))
			n++;
	return n;
}

/* The structural invariants of R13 on one compiled plan; returns a description of the first
 * violation or NULL. */
static const char *invariants(const struct cf_plan *p)
{
	static char msg[512];
	const struct cf_mount *m = p->mounts;
	for (size_t i = 0; i < p->n_mounts; i++) {
		for (size_t j = i + 1; j < p->n_mounts; j++) {
			bool ri = m[i].op == CF_MNT_REMOUNT_RO, rj = m[j].op == CF_MNT_REMOUNT_RO;
			/* parent before child: no mount is followed by a mount of its parent */
			if (!ri && !rj && strcmp(m[i].path, m[j].path) &&
			    cf_path_within(m[i].path, m[j].path)) {
				snprintf(msg, sizeof(msg), "%s mounted before its parent %s",
					 m[i].path, m[j].path);
				return msg;
			}
			/* one mount per path */
			if (!ri && !rj && !strcmp(m[i].path, m[j].path)) {
				snprintf(msg, sizeof(msg), "%s mounted twice", m[i].path);
				return msg;
			}
			/* a remount-ro comes after every mount below it */
			if (ri && !rj && cf_path_within(m[j].path, m[i].path)) {
				snprintf(msg, sizeof(msg), "remount-ro %s before the mount of %s",
					 m[i].path, m[j].path);
				return msg;
			}
		}
		if (m[i].op == CF_MNT_HIDE_DIR) {
			size_t remounts = 0;
			bool below = false;
			for (size_t j = 0; j < p->n_mounts; j++) {
				if (m[j].op == CF_MNT_REMOUNT_RO && !strcmp(m[j].path, m[i].path))
					remounts++;
				else if (j > i && m[j].op != CF_MNT_REMOUNT_RO &&
					 strcmp(m[j].path, m[i].path) &&
					 cf_path_within(m[j].path, m[i].path))
					below = true;
			}
			if (remounts != 1) {
				snprintf(msg, sizeof(msg), "hide-dir %s has %zu remount-ro",
					 m[i].path, remounts);
				return msg;
			}
			if (below != m[i].traverse) {
				snprintf(msg, sizeof(msg),
					 "hide-dir %s traverse=%d, mounts below=%d", m[i].path,
					 m[i].traverse, below);
				return msg;
			}
		}
		if (m[i].op == CF_MNT_REMOUNT_RO && !find(p, CF_MNT_HIDE_DIR, m[i].path) &&
		    !find(p, CF_MNT_DEV, m[i].path)) {
			snprintf(msg, sizeof(msg), "remount-ro %s without a hide-dir or /dev",
				 m[i].path);
			return msg;
		}
		for (size_t k = 0; k < p->missing.n; k++)
			if (!strcmp(p->missing.v[k], m[i].path)) {
				snprintf(msg, sizeof(msg), "missing %s is mounted", m[i].path);
				return msg;
			}
	}
	return NULL;
}

/* A small deterministic generator, so that a failure can be replayed. */
static unsigned long long rng_state = 0x2545F4914F6CDD1DULL;
static unsigned rnd(unsigned n)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((rng_state >> 33) % n);
}

/* R13: parent before child and the other invariants, whatever the order of the rules. */
static void shuffled(void)
{
	static const char *const tree[] = {
	    "/data/r",	       "/data/r/a",   "/data/r/a/b",   "/data/r/a/b/c", "/data/r/a/b/c/d",
	    "/data/r/a-b",     "/data/r/a.b", "/data/r/ab",    "/data/r/a/x",	"/data/r/a/x/y",
	    "/data/r/b",       "/data/r/b/a", "/data/r/b/a/b", "/data/r/a/b-c", "/data/r/a/b c",
	    "/data/r/a/b/c-d", WS "/r",	      WS "/r/a",       WS "/r/a/b",	WS "/r/a-b",
	    "/tmp/r",	       "/tmp/r/a",
	};
	static const struct {
		enum cf_action action;
		unsigned access;
	} kinds[] = {
	    {CF_DENY, CF_ACC_BOTH},  {CF_ASK, CF_ACC_BOTH},   {CF_ALLOW, CF_ACC_BOTH},
	    {CF_DENY, CF_ACC_WRITE}, {CF_ALLOW, CF_ACC_READ},
	};
	fs_clear();
	for (size_t i = 0; i < N(tree); i++)
		fs_add(tree[i], i % 5 == 4 ? CF_KIND_FILE : CF_KIND_DIR);

	const int rounds = 200;
	int failed_round = -1, errors = 0, compiled = 0;
	const char *why = NULL;
	for (int round = 0; round < rounds && failed_round < 0; round++) {
		struct rspec rules[N(tree)];
		size_t n = 0;
		for (size_t i = 0; i < N(tree); i++) {
			if (rnd(3) == 0)
				continue;
			unsigned k = rnd(N(kinds));
			rules[n++] = (struct rspec){CF_LAYER_SESSION, kinds[k].action, tree[i],
						    kinds[k].access};
		}
		for (size_t i = n; i > 1; i--) {
			size_t j = rnd((unsigned)i);
			struct rspec t = rules[i - 1];
			rules[i - 1] = rules[j];
			rules[j] = t;
		}
		struct compiled c;
		compile(rules, n, NULL, true, &c);
		if (c.rc == 0) {
			compiled++;
			if ((why = invariants(&c.plan)))
				failed_round = round;
		} else {
			errors++;
		}
		release(&c);
	}
	TAP_OK(failed_round < 0,
	       "R13 %d shuffled rule sets: parent before child, one mount per "
	       "path, remount-ro after the mounts below, traverse iff mounts below",
	       rounds);
	if (failed_round >= 0)
		printf("#   round %d: %s\n", failed_round, why);
	TAP_INTEQ(errors, 0, "R13 none of the shuffled rule sets is refused (%d compiled)",
		  compiled);
}

/* R13: the order of the glob matches does not change the plan. */
static void glob_order(void)
{
	static const char *const matches[] = {
	    WS "/g/a.key",	 WS "/g/x/b.key", WS "/g/x/y/c.key",	 WS "/g/d.key",
	    WS "/g/d.key/e.key", WS "/g/x.key",	  WS "/g/x.key/z/f.key",
	};
	fs_clear();
	for (size_t i = 0; i < N(matches); i++)
		fs_add(matches[i],
		       !strcmp(matches[i], WS "/g/d.key") || !strcmp(matches[i], WS "/g/x.key")
			   ? CF_KIND_DIR
			   : CF_KIND_FILE);
	const struct rspec r2[] = {
	    {CF_LAYER_SESSION, CF_DENY, WS "/g/**/*.key", CF_ACC_BOTH},
	    {CF_LAYER_SESSION, CF_DENY, WS "/g/x", CF_ACC_WRITE},
	};
	char *first = NULL;
	bool same = true, ok = true;
	for (int round = 0; round < 30; round++) {
		size_t order[N(matches)];
		for (size_t i = 0; i < N(matches); i++)
			order[i] = i;
		for (size_t i = N(matches); i > 1 && round; i--) {
			size_t j = rnd((unsigned)i), t = order[i - 1];
			order[i - 1] = order[j];
			order[j] = t;
		}
		struct cf_matches m = {0};
		for (size_t i = 0; i < N(matches); i++)
			cf_matches_add(&m, matches[order[i]], fakefs_kind(&fs, matches[order[i]]),
				       0);
		struct compiled c;
		compile(r2, N(r2), &m, true, &c);
		char *text = c.rc == 0 ? cf_plan_text(&c.plan) : NULL;
		ok &= text != NULL && invariants(&c.plan) == NULL;
		if (!first)
			first = text;
		else {
			same &= text && !strcmp(first, text);
			free(text);
		}
		release(&c);
		cf_matches_release(&m);
	}
	TAP_OK(ok, "R13 glob matches in any order compile with the invariants");
	TAP_OK(same, "R13 the order of the glob matches does not change the plan");
	/* and the matches under a hidden match are not mounted again */
	struct cf_matches m = {0};
	for (size_t i = 0; i < N(matches); i++)
		cf_matches_add(&m, matches[i], fakefs_kind(&fs, matches[i]), 0);
	struct compiled c;
	compile(r2, N(r2), &m, true, &c);
	TAP_OK(c.rc == 0 && find(&c.plan, CF_MNT_HIDE_DIR, WS "/g/d.key") &&
		   count_path(&c.plan, WS "/g/d.key/e.key", true) == 0,
	       "R13 a match inside a hidden match is not mounted (hidden already)");
	TAP_OK(c.rc == 0 && find(&c.plan, CF_MNT_HIDE_FILE, WS "/g/x/b.key") &&
		   find(&c.plan, CF_MNT_RO_BIND, WS "/g/x"),
	       "R13 a hidden file inside a read-only directory is mounted after it");
	release(&c);
	cf_matches_release(&m);
	free(first);
}

/* R13: a hidden directory is 0111 only when something below it is mounted. */
static void hide_modes(void)
{
	fs_clear();
	fs_add("/data/a/f", CF_KIND_FILE);
	fs_add("/data/b/pub/f", CF_KIND_FILE);
	fs_add("/data/c/x/f", CF_KIND_FILE);
	fs_add("/data/e/f", CF_KIND_FILE);
	fs_add("/data/e-x/f", CF_KIND_FILE);
	const struct rspec rules[] = {
	    /* nothing below: 0000 */
	    {CF_LAYER_SESSION, CF_DENY, "/data/a", CF_ACC_BOTH},
	    /* a read allow below: 0111 */
	    {CF_LAYER_SESSION, CF_ALLOW, "/data/b/pub", CF_ACC_READ},
	    {CF_LAYER_SESSION, CF_DENY, "/data/b", CF_ACC_BOTH},
	    /* a deny below a deny: hidden already, nothing mounted below: 0000 */
	    {CF_LAYER_SESSION, CF_DENY, "/data/c/x", CF_ACC_BOTH},
	    {CF_LAYER_SESSION, CF_DENY, "/data/c", CF_ACC_BOTH},
	    /* an allow of a missing path below: not mounted, so 0000 */
	    {CF_LAYER_SESSION, CF_ALLOW, "/data/d/none", CF_ACC_READ},
	    {CF_LAYER_SESSION, CF_DENY, "/data/d", CF_ACC_BOTH},
	    /* a mounted sibling with a longer name is not below: 0000 */
	    {CF_LAYER_SESSION, CF_DENY, "/data/e", CF_ACC_BOTH},
	    {CF_LAYER_SESSION, CF_DENY, "/data/e-x", CF_ACC_WRITE},
	};
	fs_add("/data/d/f", CF_KIND_FILE);
	struct compiled c;
	compile(rules, N(rules), NULL, true, &c);
	TAP_INTEQ(c.rc, 0, "R13 hide-mode rules compile");
	if (c.rc) {
		release(&c);
		return;
	}
	static const struct {
		const char *path;
		bool traverse;
		const char *why;
	} want[] = {
	    {"/data/a", false, "nothing mounted below"},
	    {"/data/b", true, "a read allow mounted below"},
	    {"/data/c", false, "a deny below a deny mounts nothing"},
	    {"/data/d", false, "an allow of a missing path mounts nothing"},
	    {"/data/e", false, "the mounted sibling /data/e-x is not below"},
	};
	struct cf_bwrap_fds fds = {0};
	int src[64], empty[64];
	for (size_t i = 0; i < 64; i++)
		src[i] = empty[i] = 100 + (int)i;
	fds.source = src;
	fds.empty = empty;
	fds.seccomp = fds.info = -1;
	fds.helper = 5;
	struct cf_strv argv = {0};
	int r = c.plan.n_mounts <= 64 ? cf_bwrap_argv(&c.plan, &fds, &argv, &c.err) : -1;
	for (size_t i = 0; i < N(want); i++) {
		const struct cf_mount *m = find(&c.plan, CF_MNT_HIDE_DIR, want[i].path);
		TAP_OK(m && m->traverse == want[i].traverse, "R13 hide-dir %s mode %s: %s",
		       want[i].path, want[i].traverse ? "0111" : "0000", want[i].why);
		/* and the bwrap vector carries that mode right before --tmpfs PATH */
		bool seen = false;
		for (size_t k = 0; r == 0 && k + 3 < argv.n; k++)
			if (!strcmp(argv.v[k], "--perms") && !strcmp(argv.v[k + 2], "--tmpfs") &&
			    !strcmp(argv.v[k + 3], want[i].path))
				seen = !strcmp(argv.v[k + 1], want[i].traverse ? "0111" : "0000");
		TAP_OK(seen, "R13 bwrap: --perms %s --tmpfs %s", want[i].traverse ? "0111" : "0000",
		       want[i].path);
	}
	TAP_OK(find(&c.plan, CF_MNT_RO_BIND, "/data/b/pub") != NULL,
	       "R13 the read allow below the hidden directory is a read-only bind");
	TAP_INTEQ(count_path(&c.plan, "/data/c/x", true), 0,
		  "R13 a deny inside a hidden directory adds no mount");
	cf_strv_release(&argv);
	release(&c);
}

/* R13: remount-ro of hidden directories comes after every mount below them, nested too. */
static void remounts(void)
{
	fs_clear();
	fs_add("/data/n/pub/priv/f", CF_KIND_FILE);
	fs_add("/data/n/pub/open/f", CF_KIND_FILE);
	fs_add("/data/n/pub/priv/inner/f", CF_KIND_FILE);
	fs_add("/data/n/z/f", CF_KIND_FILE);
	const struct rspec rules[] = {
	    {CF_LAYER_SESSION, CF_ALLOW, "/data/n/pub/priv/inner", CF_ACC_READ},
	    {CF_LAYER_SESSION, CF_DENY, "/data/n/pub/priv", CF_ACC_BOTH},
	    {CF_LAYER_SESSION, CF_ALLOW, "/data/n/pub", CF_ACC_READ},
	    {CF_LAYER_SESSION, CF_DENY, "/data/n", CF_ACC_BOTH},
	    {CF_LAYER_SESSION, CF_DENY, "/data/n2", CF_ACC_BOTH},
	};
	fs_add("/data/n2/f", CF_KIND_FILE);
	struct compiled c;
	compile(rules, N(rules), NULL, true, &c);
	TAP_INTEQ(c.rc, 0, "R13 nested hides compile");
	if (c.rc) {
		release(&c);
		return;
	}
	const char *bad = invariants(&c.plan);
	TAP_OK(bad == NULL, "R13 nested hides: every remount-ro after the mounts below it");
	if (bad)
		printf("#   %s\n", bad);
	size_t last_other = 0, first_remount = c.plan.n_mounts;
	for (size_t i = 0; i < c.plan.n_mounts; i++) {
		/* /dev's own remount follows /dev/shm, at the start of the list */
		if (c.plan.mounts[i].op == CF_MNT_REMOUNT_RO &&
		    strcmp(c.plan.mounts[i].path, "/dev")) {
			if (first_remount == c.plan.n_mounts)
				first_remount = i;
		} else {
			last_other = i;
		}
	}
	TAP_OK(first_remount > last_other,
	       "R13 remount-ro entries of hidden directories close the mount list");
	const struct cf_mount *outer = find(&c.plan, CF_MNT_HIDE_DIR, "/data/n");
	const struct cf_mount *inner = find(&c.plan, CF_MNT_HIDE_DIR, "/data/n/pub/priv");
	TAP_OK(outer && outer->traverse, "R13 /data/n is 0111 (pub is mounted below)");
	TAP_OK(inner && inner->traverse, "R13 /data/n/pub/priv is 0111 (inner is mounted below)");
	TAP_OK(find(&c.plan, CF_MNT_HIDE_DIR, "/data/n2") &&
		   !find(&c.plan, CF_MNT_HIDE_DIR, "/data/n2")->traverse,
	       "R13 /data/n2 is 0000");
	TAP_INTEQ(count_path(&c.plan, "/data/n", true), 2, "R13 /data/n: one hide, one remount");
	release(&c);
}

/* R13: the same path from several rules and layers, and from a glob match, is mounted once. */
static void duplicates(void)
{
	fs_clear();
	fs_add("/data/dup/f", CF_KIND_FILE);
	fs_add(WS "/dupf", CF_KIND_FILE);
	fs_add("/tmp", CF_KIND_DIR);
	const struct rspec rules[] = {
	    {CF_LAYER_SESSION, CF_DENY, "/data/dup", CF_ACC_BOTH},
	    {CF_LAYER_SESSION, CF_DENY, "/data/dup/", CF_ACC_BOTH},
	    {CF_LAYER_SESSION, CF_DENY, "/data/./dup", CF_ACC_WRITE},
	    {CF_LAYER_WORKSPACE, CF_DENY, "/data/dup", CF_ACC_BOTH},
	    {CF_LAYER_USER, CF_ASK, "/data/dup", CF_ACC_BOTH},
	    {CF_LAYER_USER, CF_DENY, "/data/d*", CF_ACC_WRITE},
	    {CF_LAYER_SESSION, CF_DENY, WS "/dupf", CF_ACC_WRITE},
	    {CF_LAYER_USER, CF_DENY, WS "/dupf", CF_ACC_WRITE},
	    {CF_LAYER_SESSION, CF_DENY, WS "/dup*", CF_ACC_WRITE},
	    {CF_LAYER_SESSION, CF_ALLOW, WS, CF_ACC_BOTH},
	};
	struct cf_matches m = {0};
	cf_matches_add(&m, "/data/dup", CF_KIND_DIR, 5);
	cf_matches_add(&m, WS "/dupf", CF_KIND_FILE, 8);
	cf_matches_add(&m, "/data/dup", CF_KIND_DIR, 5);
	struct compiled c;
	compile(rules, N(rules), &m, true, &c);
	TAP_INTEQ(c.rc, 0, "R13 duplicate candidates compile");
	if (c.rc == 0) {
		TAP_INTEQ(count_path(&c.plan, "/data/dup", false), 1,
			  "R13 /data/dup from 5 rules, 3 layers and 2 glob matches: one mount");
		TAP_INTEQ(count_path(&c.plan, WS "/dupf", false), 1,
			  "R13 ws/dupf from 2 rules and a glob match: one mount");
		TAP_OK(find(&c.plan, CF_MNT_RO_BIND, WS "/dupf") != NULL,
		       "R13 ws/dupf is the read-only bind");
		TAP_INTEQ(count_path(&c.plan, WS, false), 1,
			  "R13 the workspace, also a rule path: one mount");
		TAP_OK(invariants(&c.plan) == NULL, "R13 duplicate candidates: invariants hold");
	}
	release(&c);
	cf_matches_release(&m);
}

/*
 * Regression: a rule whose path is exactly a temp root (/tmp) makes a duplicate candidate of the
 * temp root; cf_plan_compile once kept whichever qsort put first, and when it was the rule's,
 * /tmp became a bind of the host's /tmp instead of the private, size-capped tmpfs of SPEC 3
 * (found by this test, fixed: equal paths sort the temp root first).
 */
static void temp_root_rule(void)
{
	static const struct {
		struct rspec rule;
		const char *what;
	} cases[] = {
	    {{CF_LAYER_SESSION, CF_ALLOW, "/tmp", CF_ACC_BOTH}, "--allow /tmp"},
	    {{CF_LAYER_SESSION, CF_ALLOW, "/tmp", CF_ACC_READ}, "--allow /tmp:read"},
	    {{CF_LAYER_USER, CF_ALLOW, "/tmp", CF_ACC_WRITE}, "a user allow /tmp:write"},
	    {{CF_LAYER_SESSION, CF_DENY, "/tmp", CF_ACC_WRITE}, "--deny /tmp:write"},
	};
	fs_clear();
	fs_add("/tmp/.X11-unix/X0", CF_KIND_OTHER);
	fs_add(WS "/f", CF_KIND_FILE);
	for (size_t i = 0; i < N(cases); i++) {
		struct compiled c;
		compile(&cases[i].rule, 1, NULL, true, &c);
		const struct cf_mount *t = c.rc == 0 ? find(&c.plan, CF_MNT_TMPFS, "/tmp") : NULL;
		TAP_OK(t && t->size == 1 << 20 && count_path(&c.plan, "/tmp", true) == 1,
		       "R13 %s: /tmp stays the private tmpfs of SPEC 3 (size cap kept, the "
		       "host's /tmp not bound)",
		       cases[i].what);
		for (size_t k = 0; c.rc == 0 && !t && k < c.plan.n_mounts; k++)
			if (!strcmp(c.plan.mounts[k].path, "/tmp"))
				printf("#   got mount op %d at /tmp\n", (int)c.plan.mounts[k].op);
		release(&c);
	}
}

/* R14: a protected path that does not exist is listed in `missing` and never mounted. */
static void missing(void)
{
	fs_clear();
	fs_add("/data/present/f", CF_KIND_FILE);
	fs_add(WS "/src/a.c", CF_KIND_FILE);
	const struct rspec rules[] = {
	    {CF_LAYER_SESSION, CF_DENY, "/data/absent", CF_ACC_BOTH},
	    {CF_LAYER_SESSION, CF_DENY, "/data/absent-ro", CF_ACC_WRITE},
	    {CF_LAYER_SESSION, CF_DENY, "/data/present/none", CF_ACC_BOTH},
	    {CF_LAYER_SESSION, CF_DENY, WS "/gone", CF_ACC_BOTH},
	    {CF_LAYER_SESSION, CF_ALLOW, "/data/free", CF_ACC_BOTH},
	    {CF_LAYER_SESSION, CF_DENY, "/data/present", CF_ACC_WRITE},
	};
	struct compiled c;
	compile(rules, N(rules), NULL, true, &c);
	TAP_INTEQ(c.rc, 0, "R14 rules on missing paths compile");
	if (c.rc) {
		release(&c);
		return;
	}
	static const char *const absent[] = {"/data/absent",	   "/data/absent-ro",
					     "/data/present/none", WS "/gone",
					     HOME "/.ssh",	   HOME "/.npmrc"};
	for (size_t i = 0; i < N(absent); i++) {
		TAP_OK(cf_strv_contains(&c.plan.missing, absent[i]),
		       "R14 missing protected %s is listed", absent[i]);
		TAP_INTEQ(count_path(&c.plan, absent[i], true), 0, "R14 missing %s is not mounted",
			  absent[i]);
	}
	TAP_OK(!cf_strv_contains(&c.plan.missing, "/data/free"),
	       "R14 a missing path that is allowed for read and write is not listed");
	bool unique = true;
	for (size_t i = 0; i < c.plan.missing.n; i++)
		for (size_t j = i + 1; j < c.plan.missing.n; j++)
			unique &= strcmp(c.plan.missing.v[i], c.plan.missing.v[j]) != 0;
	TAP_OK(unique, "R14 each missing path is listed once");
	TAP_INTEQ(count_path(&c.plan, "/data/present", true), 0,
		  "R14 an existing write-deny outside the workspace needs no mount (read-only "
		  "through the root bind)");
	release(&c);
}

/* R12, R15: the shape of the bwrap vector. */
static void bwrap_vector(void)
{
	fs_clear();
	fs_add("/data/p/f", CF_KIND_FILE);
	const struct rspec rules[] = {{CF_LAYER_SESSION, CF_DENY, "/data/p", CF_ACC_WRITE}};
	static const char *const commands[][6] = {
	    {"cmd", NULL},
	    {"--", "cmd", NULL},
	    {"-x", "--ro-bind", "/", "/", NULL},
	    {CF_BWRAP_ARGS_END, "--bind", "/", "/", NULL},
	    {"--unshare-net", NULL},
	    {"/proc/self/fd/5", "--", NULL},
	};
	for (int network = 0; network <= 1; network++) {
		for (int ll = 0; ll <= 1; ll++) {
			for (size_t ci = 0; ci < N(commands); ci++) {
				struct compiled c;
				compile(rules, N(rules), NULL, network, &c);
				if (c.rc) {
					TAP_INTEQ(c.rc, 0, "R12 compiles");
					release(&c);
					continue;
				}
				c.plan.landlock_abi = ll ? 7 : 0;
				size_t nc = 0;
				for (; commands[ci][nc]; nc++)
					cf_strv_add(&c.plan.argv, commands[ci][nc]);
				int src[64], empty[64];
				for (size_t i = 0; i < 64; i++)
					src[i] = empty[i] = 100 + (int)i;
				struct cf_bwrap_fds fds = {.source = src,
							   .empty = empty,
							   .seccomp = 10,
							   .info = 11,
							   .helper = 12,
							   .status = 13,
							   .stderr_fd = 14};
				struct cf_strv v = {0};
				int r = cf_bwrap_argv(&c.plan, &fds, &v, &c.err);
				size_t end = v.n, nets = 0, nets_before = 0;
				for (size_t i = 0; i < v.n; i++) {
					if (end == v.n && !strcmp(v.v[i], CF_BWRAP_ARGS_END))
						end = i;
					if (!strcmp(v.v[i], "--unshare-net")) {
						nets++;
						nets_before += i < end;
					}
				}
				const char *label = commands[ci][0];
				bool shape = r == 0 && end + 2 < v.n &&
					     !strcmp(v.v[end + 1], "--") &&
					     !strcmp(v.v[end + 2], "/proc/self/fd/12");
				TAP_OK(shape,
				       "R12 network %s landlock %d command '%s': \"--\" and the "
				       "helper right after the end of the options",
				       network ? "on" : "off", ll ? 7 : 0,
				       label[0] == '\x01' ? "(end marker)" : label);
				/* the command is the tail, after one more "--" */
				bool tail = r == 0 && v.n >= nc + 1 && v.n - nc - 1 > end + 2 &&
					    !strcmp(v.v[v.n - nc - 1], "--");
				for (size_t k = 0; tail && k < nc; k++)
					tail = !strcmp(v.v[v.n - nc + k], commands[ci][k]);
				TAP_OK(
				    tail,
				    "R12 command '%s': after the helper's \"--\", never before the "
				    "end of the options",
				    label[0] == '\x01' ? "(end marker)" : label);
				bool landlock = false;
				for (size_t i = end; i < v.n - nc; i++)
					landlock |= !strcmp(v.v[i], "--landlock");
				TAP_OK(landlock == (ll != 0), "R17 --landlock %s with abi %d",
				       ll ? "passed" : "absent", ll ? 7 : 0);
				if (network)
					TAP_OK(nets_before == 0, "R2 R12 network on: no "
								 "--unshare-net among the options");
				else
					TAP_OK(nets_before == 1,
					       "R2 R12 network off: --unshare-net once among the "
					       "options");
				cf_strv_release(&v);
				release(&c);
			}
		}
	}
}

/* The end marker is byte 0x01 followed by "end-of-options" (a hex escape written as
 * "\x01end..." would swallow the 'e' and make it 0x1e). */
static void end_marker(void)
{
	const char *m = CF_BWRAP_ARGS_END;
	TAP_OK(m[0] == 1 && !strcmp(m + 1, "end-of-options"),
	       "R12 the --args end marker is 0x01 + \"end-of-options\"");
}

/* Helper mode (cf_plan_helper_split): which masks confine-init makes, on a plan made by hand
 * with one mount of every case, and the vector bwrap gets then. */
static void helper_split(void)
{
	static const struct {
		enum cf_mount_op op;
		const char *path;
		bool traverse, transient, skip, want;
		const char *why;
	} ms[] = {
	    {CF_MNT_RO_ROOT, "/", 0, 0, 0, 0, "bwrap's root"},
	    {CF_MNT_DEV, "/dev", 0, 0, 0, 0, "bwrap's /dev"},
	    {CF_MNT_PROC, "/proc", 0, 0, 0, 0, "bwrap's /proc"},
	    {CF_MNT_RO_KERNEL, "/proc/sys", 0, 0, 0, 1, "a kernel interface"},
	    {CF_MNT_RO_KERNEL, "/proc/sysrq-trigger", 0, 0, 0, 1, "a kernel file ('r')"},
	    {CF_MNT_HIDE_FILE, "/proc/keys", 0, 0, 0, 1, "a masked file"},
	    {CF_MNT_HIDE_DIR, "/proc/acpi", 0, 0, 0, 1, "a masked directory with its remount"},
	    {CF_MNT_HIDE_DIR, "/home/u/.ssh", 1, 0, 0, 0, "a hidden directory with a mount below"},
	    {CF_MNT_RO_BIND, "/home/u/.ssh/known_hosts", 0, 0, 0, 0, "a bind"},
	    {CF_MNT_HIDE_FILE, "/home/u/.ssh/id", 0, 0, 0, 0, "inside a tmpfs of bwrap's"},
	    {CF_MNT_TMPFS, "/tmp", 0, 0, 0, 0, "bwrap's /tmp"},
	    {CF_MNT_HIDE_FILE, "/tmp/x", 0, 0, 0, 0, "inside bwrap's /tmp"},
	    {CF_MNT_HIDE_FILE, "/run/user/1/s", 0, 1, 0, 1, "a transient endpoint (upper case)"},
	    {CF_MNT_HIDE_DIR, "/run/user/1/d", 0, 1, 0, 1, "a transient directory"},
	    {CF_MNT_HIDE_DIR, "/srv/a", 0, 0, 0, 0, "a hidden directory without a remount"},
	    {CF_MNT_HIDE_FILE, "/ws/a/.env", 0, 0, 0, 0, "below a later bind"},
	    {CF_MNT_HIDE_FILE, "/var/x", 0, 0, 1, 0, "left out of this launch"},
	    {CF_MNT_HIDE_FILE, "/etc/shadow", 0, 0, 0, 1, "a guard"},
	    {CF_MNT_REMOUNT_RO, "/proc/acpi", 0, 0, 0, 1, "the remount of a moved directory"},
	    {CF_MNT_REMOUNT_RO, "/run/user/1/d", 0, 0, 0, 1, "the remount of a transient one"},
	    {CF_MNT_REMOUNT_RO, "/home/u/.ssh", 0, 0, 0, 0, "the remount of a kept directory"},
	    {CF_MNT_RW_BIND, "/ws/a", 0, 0, 0, 0, "a bind"},
	    {CF_MNT_RW_BIND, "/ws/b", 0, 0, 0, 1, "a pin with a moved hide below it"},
	    {CF_MNT_HIDE_FILE, "/ws/b/.env", 0, 0, 0, 1, "a hide below a pin"},
	    {CF_MNT_RW_BIND, "/ws/c", 0, 0, 0, 0, "a pin with a bind of bwrap's below it"},
	    {CF_MNT_RO_BIND, "/ws/c/ro", 0, 0, 0, 0, "a bind below a pin"},
	    {CF_MNT_RO_KERNEL, "/proc/fs", 0, 0, 0, 1, "the last mount"},
	};
	struct cf_mount mounts[N(ms)];
	bool skip[N(ms)], by[N(ms)];
	int src[N(ms)], empty[N(ms)];
	memset(mounts, 0, sizeof(mounts));
	for (size_t i = 0; i < N(ms); i++) {
		mounts[i] = (struct cf_mount){
		    .op = ms[i].op,
		    .path = (char *)ms[i].path,
		    /* the one file of the table that matters */
		    .kind = strcmp(ms[i].path, "/proc/sysrq-trigger") ? CF_KIND_DIR : CF_KIND_FILE,
		    .traverse = ms[i].traverse,
		    .transient = ms[i].transient,
		    /* every bind but the workspace's is a pin */
		    .pin = ms[i].op == CF_MNT_RW_BIND && strcmp(ms[i].path, "/ws/a")};
		skip[i] = ms[i].skip;
		src[i] = 100 + (int)i;
		empty[i] = 300 + (int)i;
	}
	struct cf_plan plan = {0};
	plan.mounts = mounts;
	plan.n_mounts = N(ms);
	plan.cwd = "/ws/a";
	plan.seccomp = true;
	cf_strv_add(&plan.argv, "cmd");
	cf_plan_helper_split(&plan, skip, by);
	for (size_t i = 0; i < N(ms); i++)
		TAP_OK(by[i] == ms[i].want, "helper mode: %s %s: %s (%s)",
		       ms[i].want ? "made by confine-init" : "left to bwrap", ms[i].path, ms[i].why,
		       by[i] ? "moved" : "kept");
	struct cf_buf list;
	cf_buf_init(&list);
	cf_plan_helper_list(&plan, by, &list);
	static const char want_list[] =
	    "k/proc/sys\0r/proc/sysrq-trigger\0f/proc/keys\0d/proc/acpi\0F/run/user/1/s\0"
	    "D/run/user/1/d\0f/etc/shadow\0p/ws/b\0f/ws/b/.env\0k/proc/fs";
	TAP_OK(list.len == sizeof(want_list) && !memcmp(list.s, want_list, sizeof(want_list)),
	       "helper mode: the list names each moved mount once, remounts implied");
	cf_buf_release(&list);

	struct cf_bwrap_fds fds = {.source = src,
				   .empty = empty,
				   .seccomp = 10,
				   .info = -1,
				   .helper = 12,
				   .status = 13,
				   .stderr_fd = 14,
				   .go = 15,
				   .skip = skip,
				   .by_helper = by,
				   .env = 17};
	struct cf_strv v = {0};
	TAP_INTEQ(cf_bwrap_argv(&plan, &fds, &v, NULL), 0, "helper mode: the vector is built");
	size_t end = v.n;
	bool drop = false, nest = false, bwrap_filter = false, moved = false, kept = true;
	for (size_t i = 0; i < v.n; i++) {
		if (end == v.n && !strcmp(v.v[i], CF_BWRAP_ARGS_END))
			end = i;
		if (i < end) {
			drop |= !strcmp(v.v[i], "--cap-drop");
			nest |= !strcmp(v.v[i], "--disable-userns");
			bwrap_filter |= !strcmp(v.v[i], "--add-seccomp-fd");
			for (size_t j = 0; j < N(ms); j++)
				if (!strcmp(v.v[i], ms[j].path) && ms[j].op != CF_MNT_RO_ROOT &&
				    i > 0 && strcmp(v.v[i - 1], "--chdir"))
					moved |= by[j];
		}
	}
	for (size_t j = 0; j < N(ms); j++) {
		bool seen = false;
		for (size_t i = 0; i < end; i++)
			seen |= !strcmp(v.v[i], ms[j].path);
		if (!by[j] && !ms[j].skip && !seen)
			kept = false;
	}
	TAP_OK(
	    drop && nest && bwrap_filter,
	    "helper mode: bwrap drops the capabilities, nests the namespace and loads the filter, "
	    "as without it (the masks are made from outside, exec/linux/bwrap/masks.c)");
	TAP_OK(!moved, "helper mode: no moved mount reaches bwrap");
	TAP_OK(kept, "helper mode: every kept mount reaches bwrap");
	char joined[512] = "";
	for (size_t i = end + 1; i < v.n; i++) {
		strncat(joined, v.v[i], sizeof(joined) - strlen(joined) - 2);
		strcat(joined, " ");
	}
	TAP_STREQ(
	    joined,
	    "-- /proc/self/fd/12 --status-fd 13 --stderr-fd 14 --go-fd 15 --env-fd 17 -- cmd ",
	    "helper mode: confine-init gets neither a list, nor ids, nor a filter to load");
	cf_strv_release(&v);
	cf_strv_release(&plan.argv);
}

int main(void)
{
	end_marker();
	shuffled();
	glob_order();
	hide_modes();
	remounts();
	duplicates();
	temp_root_rule();
	missing();
	bwrap_vector();
	helper_split();
	fs_clear();
	return tap_done();
}
