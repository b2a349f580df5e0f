/* SPDX-License-Identifier: MIT */
/*
 * The glob scan of R14.  Every glob pattern is an automaton over path components: its state is
 * the set of pattern components it may be at, and each directory entry moves every active
 * pattern one step.  The walk keeps, per directory level, the states of the patterns still
 * alive there, so
 *  - patterns whose roots nest share one walk of the outermost root (each pattern starts with
 *    the states it reaches on the root's own components);
 *  - a directory is entered only when some pattern is still alive below it, which prunes the
 *    walk to what the patterns can reach (a pattern rooted at the workspace never walks $HOME);
 *  - names are matched once per entry, with no string building and no stat unless a pattern
 *    needs the entry's kind (d_type answers that almost always).
 * Directories are opened relative to their parent with O_NOFOLLOW|O_DIRECTORY, so a symlink is
 * never followed even when a directory is swapped for one during the walk.
 *
 * Incremental (R32, scan_cache.h): each directory the walk reads leaves a record (identity,
 * timestamps, when it was read, the entries that mattered); the next scan costs one fstatat
 * per directory whose record still holds, and reads only the others.  A directory is read in
 * full before its subdirectories are walked, so that its record is complete; its matches are
 * found in the read (or, reused, looked up again with one lstat each, so that their identities
 * are the ones of now).  The directories are walked in host/scan_walk.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host/hostfs.h"
#include "host/scan.h"
#include "host/scan_cache.h"
#include "host/scan_walker.h"
#include "rules/pattern.h"
#include "util/util.h"
#include "host/matches.h"

static bool push(struct walker *w, struct u32v *a, uint32_t x)
{
	if (a->n == a->cap) {
		size_t cap;
		uint32_t *v = cf_grow_array(a->v, a->cap, 64, sizeof(*v), &cap);
		if (!v) {
			w->oom = true;
			return false;
		}
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = x;
	return true;
}

/* Appends state s and what "**" components let it reach without consuming anything, keeping
 * the record sorted and free of duplicates (`first` is where the record's states start). */
static bool add_closed(struct walker *w, struct u32v *a, size_t first, const struct pat *p,
		       uint32_t s)
{
	if (a->n > first && a->v[a->n - 1] >= s)
		return true; /* already there, with its closure */
	for (;;) {
		if (!push(w, a, s))
			return false;
		if (s >= p->ncomp || !p->comp[s].globstar)
			return true;
		s++;
	}
}

/* Moves pattern p from `states` over the component `name`; appends the record to `out`, or
 * nothing when no state survives.  Returns whether the pattern now matches. */
static bool step(struct walker *w, uint32_t pi, const uint32_t *states, uint32_t k,
		 const char *name, size_t nlen, struct u32v *out)
{
	const struct pat *p = &w->pats[pi];
	size_t head = out->n;
	if (!push(w, out, pi) || !push(w, out, 0))
		return false;
	size_t first = out->n;
	/* s -> s for "**", s -> s + 1 for a component that matches: non-decreasing in s, so
	 * the record stays sorted. */
	for (uint32_t i = 0; i < k; i++) {
		uint32_t s = states[i];
		if (s >= p->ncomp)
			continue;
		const struct comp *c = &p->comp[s];
		if (c->globstar)
			add_closed(w, out, first, p, s);
		else if (cf_component_match(c->s, c->n, name, nlen, p->fold))
			add_closed(w, out, first, p, s + 1);
	}
	uint32_t n = (uint32_t)(out->n - first);
	if (n == 0 || w->oom) {
		out->n = head;
		return false;
	}
	out->v[head + 1] = n;
	return out->v[out->n - 1] == p->ncomp;
}

/* Moves every pattern alive at `depth` over the entry `name`: the patterns it matches go to
 * w->matched, the states alive below it to w->lv[depth + 1].  A match is not descended for its
 * pattern: what is below it is covered already.  Returns false on out-of-memory. */
bool cf_scan_w_advance(struct walker *w, int depth, const char *name, size_t nlen)
{
	struct u32v *cur = &w->lv[depth], *next = &w->lv[depth + 1];
	next->n = 0;
	w->matched.n = 0;
	for (size_t i = 0; i < cur->n;) {
		uint32_t pi = cur->v[i], k = cur->v[i + 1];
		size_t head = next->n;
		if (step(w, pi, cur->v + i + 2, k, name, nlen, next)) {
			next->n = head;
			push(w, &w->matched, pi);
		}
		i += 2 + k;
	}
	return !w->oom;
}

/*
 * A directory whose listing is reused costs no pattern work: the flags of its entries say which
 * matched and which the walk goes into (the patterns are the same, so are the answers).  The
 * states of the patterns are computed only where they are needed, a directory to read or a
 * match whose rules must be named, by stepping from the root along w->path (the directory at
 * `depth`): lv[0..depth] then hold them.  Returns false on out-of-memory.
 */
bool cf_scan_w_ensure_states(struct walker *w, int depth)
{
	if (w->lv_ok >= depth)
		return true;
	const char *s = w->path.s + w->rootlen;
	for (int level = 0; level < depth; level++) {
		while (*s == '/')
			s++;
		size_t n = strcspn(s, "/");
		if (level >= w->lv_ok && !cf_scan_w_advance(w, level, s, n))
			return false;
		s += n;
	}
	w->lv_ok = depth;
	return true;
}

bool cf_scan_w_over_time(struct walker *w)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > w->deadline.tv_sec ||
	       (now.tv_sec == w->deadline.tv_sec && now.tv_nsec > w->deadline.tv_nsec);
}

int cf_scan_w_time_budget(struct walker *w)
{
	return cf_err(w->err, CONFINE_E_SCAN, "glob scan failed", w->path.s,
		      "the scan of '%s' took more than %g s (the time budget)", w->root,
		      w->budget->seconds);
}

/* st: the match's identity (NULL: unknown), compared again before the command starts (R34). */
static int add_match(struct walker *w, enum cf_kind kind, size_t rule, const struct stat *st)
{
	if (w->nmatches >= w->budget->max_matches) {
		cf_err(w->err, CONFINE_E_SCAN, "glob scan failed", w->path.s,
		       "more than %zu matches under '%s' (the match budget)",
		       w->budget->max_matches, w->root);
		return CONFINE_E_SCAN;
	}
	w->nmatches++;
	if (cf_matches_add(w->out, w->path.s, kind, rule) < 0)
		return cf_nomem(w->err);
	if (st) {
		w->out->v[w->out->n - 1].dev = (uint64_t)st->st_dev;
		w->out->v[w->out->n - 1].ino = (uint64_t)st->st_ino;
	}
	return 0;
}

/* Adds every pattern of w->matched as a match of w->path. */
int cf_scan_w_add_matched(struct walker *w, enum cf_kind kind, const struct stat *st)
{
	int rc = 0;
	for (size_t i = 0; i < w->matched.n && rc == 0; i++)
		rc = add_match(w, kind, w->pats[w->matched.v[i]].rule, st);
	return rc;
}

static void release_pats(struct pat *pats, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(pats[i].root);
		free(pats[i].comp);
	}
	free(pats);
}

/* Splits the absolute pattern into components. */
static int compile(struct pat *p, const char *path)
{
	size_t n = 0;
	for (const char *s = path; *s; s++)
		if (*s != '/' && (s == path || s[-1] == '/'))
			n++;
	p->comp = calloc(n ? n : 1, sizeof(*p->comp));
	if (!p->comp)
		return -1;
	p->root = cf_strndup(path, cf_pattern_literal_prefix(path));
	if (!p->root)
		return -1;
	size_t i = 0;
	for (const char *s = path; *s;) {
		while (*s == '/')
			s++;
		if (!*s)
			break;
		const char *e = s;
		while (*e && *e != '/')
			e++;
		p->comp[i].s = s;
		p->comp[i].n = (size_t)(e - s);
		p->comp[i].globstar = cf_is_globstar(s, p->comp[i].n);
		i++;
		s = e;
	}
	p->ncomp = (uint32_t)i;
	return 0;
}

static int cmp_pat(const void *a, const void *b)
{
	return cf_path_cmp(((const struct pat *)a)->root, ((const struct pat *)b)->root);
}

/* Starts each pattern of pats[from..to) at {0} and feeds it the root's own components: the
 * patterns that match the root itself go to w->matched, those still alive put their states in
 * w->lv[0].  Returns 0 or CONFINE_E_NOMEM. */
static int start_at_root(struct walker *w, const char *root, size_t from, size_t to)
{
	struct u32v *lv0 = &w->lv[0];
	struct u32v a = {0}, b = {0};
	for (size_t pi = from; pi < to; pi++) {
		const struct pat *p = &w->pats[pi];
		a.n = 0;
		if (!push(w, &a, (uint32_t)pi) || !push(w, &a, 0) || !add_closed(w, &a, 2, p, 0))
			break;
		a.v[1] = (uint32_t)(a.n - 2);
		bool alive = true, matched = a.v[a.n - 1] == p->ncomp;
		for (const char *s = root; *s && alive && !w->oom;) {
			while (*s == '/')
				s++;
			if (!*s)
				break;
			const char *e = s;
			while (*e && *e != '/')
				e++;
			b.n = 0;
			matched = step(w, (uint32_t)pi, a.v + 2, a.v[1], s, (size_t)(e - s), &b);
			alive = b.n > 0;
			struct u32v t = a;
			a = b;
			b = t;
			s = e;
		}
		if (w->oom)
			break;
		if (!alive)
			continue;
		if (matched) {
			push(w, &w->matched, (uint32_t)pi);
			continue;
		}
		for (size_t i = 0; i < a.n; i++)
			push(w, lv0, a.v[i]);
	}
	free(a.v);
	free(b.v);
	return w->oom ? cf_nomem(w->err) : 0;
}

/* The root's record in the previous scan, or CF_SCAN_NONE. */
static uint32_t prev_root_dir(const struct walker *w, const char *root)
{
	for (size_t i = 0; w->prev && i < w->prev->nroots; i++) {
		const struct cf_scan_root *pr = &w->prev->roots[i];
		if (pr->len == w->rootlen && !memcmp(w->prev->names + pr->name, root, pr->len) &&
		    pr->dir != CF_SCAN_NONE)
			return pr->dir;
	}
	return CF_SCAN_NONE;
}

/* Walks the directory `root` for the states in w->lv[0], reusing what the previous scan found
 * unchanged, and records the root for the next scan.  A missing root is not an error: there is
 * nothing to protect there yet; an unreadable one is skipped and recorded (R14). */
static int walk_below(struct walker *w, const char *root)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
			return 0;
		if ((errno == EACCES || errno == EPERM) &&
		    !cf_strv_contains(&w->out->skipped, root))
			return cf_strv_add(&w->out->skipped, root) < 0 ? cf_nomem(w->err) : 0;
		if (errno == EACCES || errno == EPERM)
			return 0;
		return cf_err_os(w->err, CONFINE_E_SCAN, "cannot read directory in the glob scan",
				 root, "open", errno);
	}
	w->rootfd = fd;
	w->rootlen = strlen(root);
	w->lv_ok = 0;
	uint32_t old = prev_root_dir(w, root), made = CF_SCAN_NONE;
	struct cf_scan_pre *pre = NULL;
	if (old != CF_SCAN_NONE)
		pre = cf_scan_pre_run(w->prev, old, fd, w->budget, &w->deadline);
	w->pre = pre;
	int rc = cf_scan_w_visit(w, -1, 0, old, &made);
	w->pre = NULL;
	cf_scan_pre_free(pre);
	close(fd);
	w->rootfd = -1;
	if (rc == 0 && w->keep && made != CF_SCAN_NONE &&
	    !cf_scan_rec_root(w->next, root, w->rootlen, made))
		return cf_nomem(w->err);
	return rc;
}

/* Walks `root` for pats[from..to), whose roots all lie within it. */
static int walk_root(struct walker *w, const char *root, size_t from, size_t to)
{
	w->lv[0].n = 0;
	w->matched.n = 0;
	w->root = root;
	cf_buf_release(&w->path);
	cf_buf_add(&w->path, root);
	if (w->path.oom)
		return cf_nomem(w->err);
	int rc = start_at_root(w, root, from, to);
	if (rc)
		return rc;
	struct stat st;
	if (w->matched.n && lstat(root, &st) == 0) {
		rc = cf_scan_w_add_matched(w, cf_kind_of_mode(st.st_mode), &st);
		if (rc)
			return rc;
	}
	if (!w->lv[0].n)
		return 0;
	return walk_below(w, root);
}

/* The glob rules' patterns compiled into w->pats (room for each made by the caller), sorted
 * so that parents come before children and the patterns of one walk are contiguous. */
static int compile_pats(struct walker *w, const struct cf_ruleset *rules)
{
	size_t k = 0;
	for (size_t i = 0; i < rules->n; i++) {
		const struct cf_rule *r = &rules->v[i];
		if (!r->glob || !r->path)
			continue;
		w->pats[k].rule = i;
		w->pats[k].fold = r->fold_case;
		if (compile(&w->pats[k++], r->path) < 0)
			return cf_nomem(w->err);
		if (r->path[0] != '/')
			return cf_err(w->err, CONFINE_E_SCAN, "glob scan failed", r->path,
				      "the pattern is not absolute");
	}
	qsort(w->pats, k, sizeof(*w->pats), cmp_pat);
	return 0;
}

/* The scan's time budget, from now. */
static void start_deadline(struct walker *w)
{
	clock_gettime(CLOCK_MONOTONIC, &w->deadline);
	double secs = w->budget->seconds > 0 ? w->budget->seconds : 0;
	w->deadline.tv_sec += (time_t)secs;
	w->deadline.tv_nsec += (long)((secs - (double)(time_t)secs) * 1e9);
	if (w->deadline.tv_nsec >= 1000000000L) {
		w->deadline.tv_sec++;
		w->deadline.tv_nsec -= 1000000000L;
	}
}

int cf_scan_globs(const struct cf_ruleset *rules, const struct cf_scan_budget *budget,
		  struct cf_matches *out, struct confine_error *err)
{
	return cf_scan_globs_cached(rules, budget, NULL, NULL, out, NULL, err);
}

int cf_scan_globs_cached(const struct cf_ruleset *rules, const struct cf_scan_budget *budget,
			 const struct cf_scan_cache *prev, struct cf_scan_cache **next,
			 struct cf_matches *out, struct cf_scan_stats *stats,
			 struct confine_error *err)
{
	static const struct cf_scan_budget defaults = CF_SCAN_BUDGET_DEFAULT;
	struct cf_scan_stats local = {0};
	int rc = 0;
	struct walker w = {.budget = budget ? budget : &defaults,
			   .out = out,
			   .err = err,
			   .rootfd = -1,
			   .keep = next != NULL,
			   .stats = stats ? stats : &local};
	size_t n = 0, nlv = 0;
	if (next)
		*next = NULL;
	memset(w.stats, 0, sizeof(*w.stats));
	/* The records of this scan, which the walk needs as it goes (and the caller may keep). */
	if (!(w.next = calloc(1, sizeof(*w.next))))
		return cf_nomem(err);
	cf_scan_cache_key(rules, w.next->key);
	snprintf(w.next->kind, sizeof(w.next->kind), "scan");
	if (prev && !strcmp(prev->key, w.next->key))
		w.prev = prev;

	for (size_t i = 0; i < rules->n; i++)
		if (rules->v[i].glob && rules->v[i].path)
			n++;
	if (n == 0)
		goto out;
	if (n > w.budget->max_patterns) {
		rc = cf_err(err, CONFINE_E_SCAN, "glob scan failed", "",
			    "%zu glob patterns, more than %zu (the pattern budget)", n,
			    w.budget->max_patterns);
		goto out;
	}

	w.pats = calloc(n, sizeof(*w.pats));
	/* 8-byte aligned, as getdents64 records are (malloc aligns to 16). */
	w.dbuf = malloc(CF_SCAN_DBUF);
	nlv = (size_t)(w.budget->max_depth > 0 ? w.budget->max_depth : 0) + 2;
	w.lv = calloc(nlv, sizeof(*w.lv));
	if (!w.pats || !w.lv || !w.dbuf) {
		rc = cf_nomem(err);
		goto out;
	}
	if ((rc = compile_pats(&w, rules)) < 0)
		goto out;
	start_deadline(&w);
	for (size_t from = 0; from < n && rc == 0;) {
		size_t to = from + 1;
		while (to < n && cf_path_within(w.pats[to].root, w.pats[from].root))
			to++;
		rc = walk_root(&w, w.pats[from].root, from, to);
		from = to;
	}
out:
	if (w.lv)
		for (size_t i = 0; i < nlv; i++)
			free(w.lv[i].v);
	free(w.lv);
	free(w.matched.v);
	free(w.dbuf);
	cf_buf_release(&w.path);
	if (w.pats)
		release_pats(w.pats, n);
	if (rc == 0 && w.keep && !w.oom && next)
		*next = w.next;
	else
		cf_scan_cache_free(w.next);
	return rc;
}
