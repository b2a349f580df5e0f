/* SPDX-License-Identifier: MIT */
/*
 * The incremental glob scan and its cache (R32, R14, R30): every scan from a cache finds
 * exactly what a full scan of the tree as it is finds, with the identities of now; the cases
 * that try to make the cache lie (a file added within the timestamp granularity of the read,
 * directories renamed into each other's place, an inode number reused, a symlink and a
 * directory swapped, a cache file truncated, corrupt, foreign, made writable by others,
 * replaced by a symlink or a hard link, another owner's, written under another clock) each
 * find the match or rescan in full.  The controls show that a lying record that is accepted
 * does hide a match, so the checks are what protects.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host/canon.h"
#include "host/scan.h"
#include "host/scan_cache.h"
#include "host/facts.h"
#include "util/util.h"
#include "../tap.h"
#include "host/matches.h"

static char top[256], cdir[300], elsewhere[300];
static struct cf_ruleset rules;
static void add_rule(const char *rel);

static char *at(const char *rel)
{
	return cf_asprintf("%s/%s", top, rel);
}

static void mk(const char *rel, char type, const char *target)
{
	char *p = at(rel);
	int rc = 0;
	if (type == 'd')
		rc = mkdir(p, 0755);
	else if (type == 'l')
		rc = symlink(target, p);
	else {
		int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
		rc = fd < 0 ? -1 : close(fd);
	}
	if (rc < 0) {
		perror(p);
		exit(2);
	}
	free(p);
}

static void rm_rf(const char *path)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	if (system(cmd) != 0) {
		printf("# failed: %s\n", cmd);
		exit(2);
	}
}

static void must(int rc, const char *what)
{
	if (rc < 0) {
		perror(what);
		exit(2);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The matches as a sorted "path:rule:kind" list relative to top; "!id" marks a match whose
 * identity is not the one lstat gives now (R34 would plan again). */
static char *render(const struct cf_matches *m)
{
	static const char kinds[] = {'-', 'd', 'f', 'l', 'o'};
	char **v = calloc(m->n + 1, sizeof(*v));
	for (size_t i = 0; i < m->n; i++) {
		struct stat st;
		bool id = lstat(m->v[i].path, &st) == 0 && (uint64_t)st.st_dev == m->v[i].dev &&
			  (uint64_t)st.st_ino == m->v[i].ino;
		v[i] = cf_asprintf("%s:%zu:%c%s", m->v[i].path + strlen(top) + 1, m->v[i].rule,
				   kinds[m->v[i].kind], id ? "" : "!id");
	}
	qsort(v, m->n, sizeof(*v), cmp_str);
	struct cf_buf b;
	cf_buf_init(&b);
	for (size_t i = 0; i < m->n; i++) {
		cf_buf_addf(&b, "%s%s", i ? " " : "", v[i]);
		free(v[i]);
	}
	for (size_t i = 0; i < m->skipped.n; i++)
		cf_buf_addf(&b, " skipped:%s", m->skipped.v[i] + strlen(top) + 1);
	free(v);
	if (!b.len)
		cf_buf_add(&b, "");
	return cf_buf_take(&b);
}

/* A full scan of the tree as it is: the reference every cached scan must equal. */
static char *full(void)
{
	struct cf_matches m = {0};
	struct confine_error err = {0};
	if (cf_scan_globs(&rules, NULL, &m, &err) < 0)
		return cf_asprintf("error: %s", err.reason);
	char *s = render(&m);
	cf_matches_release(&m);
	return s;
}

/* A scan from prev with budget b (NULL: the defaults); *next (if not NULL) gets its records. */
static char *scan_with(const struct cf_scan_budget *b, const struct cf_scan_cache *prev,
		       struct cf_scan_cache **next, struct cf_scan_stats *st)
{
	struct cf_matches m = {0};
	struct confine_error err = {0};
	if (cf_scan_globs_cached(&rules, b, prev, next, &m, st, &err) < 0)
		return cf_asprintf("error: %s", err.reason);
	char *s = render(&m);
	cf_matches_release(&m);
	return s;
}

static char *scan_from(const struct cf_scan_cache *prev, struct cf_scan_cache **next,
		       struct cf_scan_stats *st)
{
	return scan_with(NULL, prev, next, st);
}

/*
 * The cached scan equals the full one; returns the stats.  Asked a second time with the
 * directories looked at on several threads first (host/scan_pre.h, which the defaults keep for
 * trees of 1,024 directories or more): the same matches and the same decisions, every one of
 * them taken from what the threads saw.
 */
static struct cf_scan_stats same_as_full(const char *name, const struct cf_scan_cache *prev,
					 struct cf_scan_cache **next)
{
	struct cf_scan_stats st = {0}, pst = {0};
	struct cf_scan_budget par = CF_SCAN_BUDGET_DEFAULT;
	par.parallel_min_dirs = 0;
	char *want = full(), *pgot = scan_with(&par, prev, NULL, &pst),
	     *got = scan_from(prev, next, &st);
	TAP_STREQ(got, want, "%s: the cached scan finds what a full scan finds", name);
	TAP_STREQ(pgot, want, "%s: so does the scan checked on several threads first", name);
	if (prev && prev->ndirs && pst.dirs_reused + pst.dirs_read > 0)
		TAP_OK(pst.dirs_read == st.dirs_read && pst.dirs_reused == st.dirs_reused &&
			   pst.dirs_prechecked > 0 && st.dirs_prechecked == 0,
		       "%s: with the same decisions (read %zu/%zu, reused %zu/%zu), %zu of them "
		       "from the threads",
		       name, pst.dirs_read, st.dirs_read, pst.dirs_reused, st.dirs_reused,
		       pst.dirs_prechecked);
	free(want);
	free(pgot);
	free(got);
	return st;
}

/* The record of the directory top/rel in c (rel "" for top), or NONE. */
static uint32_t rec_of(const struct cf_scan_cache *c, const char *rel)
{
	if (c->nroots != 1)
		return CF_SCAN_NONE;
	uint32_t d = c->roots[0].dir;
	while (*rel && d != CF_SCAN_NONE) {
		size_t n = strcspn(rel, "/");
		uint32_t found = CF_SCAN_NONE;
		for (uint32_t i = 0; i < c->dirs[d].n; i++) {
			const struct cf_scan_kid *k = &c->kids[c->dirs[d].first + i];
			if (k->len == n && !memcmp(c->names + k->name, rel, n))
				found = k->dir;
		}
		d = found;
		rel += n;
		while (*rel == '/')
			rel++;
	}
	return d;
}

/* Removes the entry `name` (not a directory) from record d: the listing now lies. */
static bool drop_kid(struct cf_scan_cache *c, uint32_t d, const char *name)
{
	struct cf_scan_dir *r = &c->dirs[d];
	for (uint32_t i = 0; i < r->n; i++) {
		struct cf_scan_kid *k = &c->kids[r->first + i];
		if (k->len == strlen(name) && !memcmp(c->names + k->name, name, k->len) &&
		    k->dir == CF_SCAN_NONE) {
			memmove(k, k + 1, (r->n - i - 1) * sizeof(*k));
			r->n--;
			/* The freed slot keeps a valid entry: a copy of the last one is outside
			 * every range, so nothing reads it. */
			return true;
		}
	}
	return false;
}

/* Makes every record look read long after its timestamps (as if the tree had been left alone
 * for a while before the scan): trusted by the racy rule. */
static void settle_records(struct cf_scan_cache *c)
{
	for (size_t i = 0; i < c->ndirs; i++) {
		int64_t t =
		    c->dirs[i].ctime > c->dirs[i].mtime ? c->dirs[i].ctime : c->dirs[i].mtime;
		if (c->dirs[i].read <= t + CF_SCAN_RACY_NS)
			c->dirs[i].read = t + CF_SCAN_RACY_NS + 1000000000LL;
	}
}

/* A fresh cache of the tree as it is now, settled. */
static struct cf_scan_cache *fresh(void)
{
	struct cf_scan_cache *c = NULL;
	struct cf_scan_stats st;
	free(scan_from(NULL, &c, &st));
	if (!c) {
		printf("# no cache made\n");
		exit(2);
	}
	settle_records(c);
	return c;
}

static int64_t ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000LL + t->tv_nsec;
}

/* Sets record d's identity and timestamps to what `rel` has now (it looks unchanged). */
static void look_unchanged(struct cf_scan_cache *c, uint32_t d, const char *rel)
{
	struct stat st;
	char *p = at(rel);
	lstat(p, &st);
	free(p);
	c->dirs[d].dev = (uint64_t)st.st_dev;
	c->dirs[d].ino = (uint64_t)st.st_ino;
	c->dirs[d].mode = (uint32_t)st.st_mode;
	c->dirs[d].mtime = ns(&st.st_mtim);
	c->dirs[d].ctime = ns(&st.st_ctim);
	c->dirs[d].read = c->dirs[d].ctime + CF_SCAN_RACY_NS + 1000000000LL;
}

static bool has(const char *list, const char *item)
{
	const char *p = strstr(list, item);
	return p && (p == list || p[-1] == ' ') &&
	       (p[strlen(item)] == '\0' || p[strlen(item)] == ' ');
}

/* ---------------------------------------------------------------------------------------- */

static void basics(void)
{
	struct cf_scan_cache *c1 = NULL, *c2 = NULL;
	struct cf_scan_stats st = same_as_full("cold", NULL, &c1);
	TAP_OK(c1 && st.dirs_read > 5 && st.dirs_reused == 0, "cold: every directory read (%zu)",
	       st.dirs_read);
	/* Just made: every directory changed within the racy window of this read. */
	st = same_as_full("right after", c1, &c2);
	TAP_OK(st.dirs_reused == 0 && st.dirs_recent == st.dirs_read,
	       "a tree changed less than 2 s before the read is read again (racy rule: %zu read, "
	       "%zu recent)",
	       st.dirs_read, st.dirs_recent);
	cf_scan_cache_free(c1);
	c1 = c2;
	c2 = NULL;
	/* The one wait of this test: the racy window passes for real. */
	struct timespec w = {.tv_sec = 2, .tv_nsec = 200000000};
	nanosleep(&w, NULL);
	free(scan_from(c1, &c2, &st)); /* read again now: the records are older than 2 s */
	cf_scan_cache_free(c1);
	c1 = c2;
	c2 = NULL;
	st = same_as_full("settled", c1, &c2);
	TAP_OK(st.dirs_read == 0 && st.dirs_reused > 5,
	       "settled: nothing read, every directory reused with one fstatat (%zu)",
	       st.dirs_reused);
	TAP_INTEQ(c2 ? (long)c2->ndirs : -1, (long)c1->ndirs, "settled: the same records");
	cf_scan_cache_free(c1);
	cf_scan_cache_free(c2);
}

/* A matching file created in a directory right after its read. */
static void same_second(void)
{
	struct cf_scan_cache *c = fresh(), *n = NULL;
	mk("d/e/new.pem", 'f', NULL);
	struct cf_scan_stats st = same_as_full("a match added after the read", c, &n);
	char *got = full();
	TAP_OK(has(got, "d/e/new.pem:0:f"), "a match added after the read is found");
	TAP_OK(st.dirs_read == 1, "only its directory is read (%zu read, %zu reused)", st.dirs_read,
	       st.dirs_reused);
	free(got);
	cf_scan_cache_free(c);
	cf_scan_cache_free(n);

	/* The racy case itself: the record's timestamps are the directory's of now, but it
	 * was read within the timestamp granularity of them, and the file came after the read
	 * (its listing lacks it).  The directory must be read again. */
	c = fresh();
	uint32_t d = rec_of(c, "d/e");
	bool dropped = d != CF_SCAN_NONE && drop_kid(c, d, "new.pem");
	TAP_OK(dropped, "racy: the listing lacks the file");
	look_unchanged(c, d, "d/e");
	c->dirs[d].read = c->dirs[d].ctime + 1000000; /* read 1 ms after the last change */
	st = same_as_full("racy", c, NULL);
	TAP_OK(st.dirs_recent == 1, "racy: the directory is read again (%zu recent)",
	       st.dirs_recent);
	/* Control: the same lying record, read long after its timestamps, is trusted, and the
	 * file stays hidden: the racy rule is what finds it. */
	c->dirs[d].read = c->dirs[d].ctime + CF_SCAN_RACY_NS + 1;
	got = scan_from(c, NULL, &st);
	TAP_OK(!has(got, "d/e/new.pem:0:f") && st.dirs_read == 0,
	       "control: a lying record past the racy window is trusted (%s)", got);
	free(got);
	cf_scan_cache_free(c);
	/* An mtime inside the window is enough too: set ahead (utimensat), the ctime trusted. */
	char *e = at("d/e");
	struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, {0}};
	clock_gettime(CLOCK_REALTIME, &ts[1]);
	ts[1].tv_sec += 86400;
	must(utimensat(AT_FDCWD, e, ts, AT_SYMLINK_NOFOLLOW), "utimensat");
	c = fresh();
	d = rec_of(c, "d/e");
	drop_kid(c, d, "new.pem");
	look_unchanged(c, d, "d/e"); /* read after ctime by more than the window, before mtime */
	st = same_as_full("racy mtime", c, NULL);
	TAP_OK(st.dirs_recent == 1,
	       "racy: a directory whose mtime is not older than the read is "
	       "read again (%zu recent)",
	       st.dirs_recent);
	must(utimensat(AT_FDCWD, e, NULL, 0), "utimensat");
	free(e);
	cf_scan_cache_free(c);
}

/* p/a renamed away and p/b moved into its place. */
static void renamed_into_place(void)
{
	struct cf_scan_cache *c = fresh(), *n = NULL;
	char *a = at("p/a"), *aold = at("p/a.old"), *b = at("p/b");
	if (rename(a, aold) < 0 || rename(b, a) < 0) {
		perror("rename");
		exit(2);
	}
	same_as_full("a directory renamed and another moved into its place", c, &n);
	char *got = full();
	TAP_OK(has(got, "p/a/y.pem:0:f") && !has(got, "p/b/y.pem:0:f"),
	       "renamed into place: found where it is now");
	free(got);
	cf_scan_cache_free(n);
	/* Even when the parent's record looked unchanged (a forged parent), the entry's
	 * record is checked on its own: the identity is another, so it is read. */
	uint32_t p = rec_of(c, "p");
	look_unchanged(c, p, "p");
	struct cf_scan_stats st =
	    same_as_full("renamed into place, parent looks unchanged", c, NULL);
	TAP_OK(st.dirs_read >= 1, "renamed into place: the moved directory is read (%zu)",
	       st.dirs_read);
	must(rename(a, b), "rename");
	must(rename(aold, a), "rename");
	free(a);
	free(aold);
	free(b);
	cf_scan_cache_free(c);
}

/* The same (device, inode) for another directory. */
static void inode_reused(void)
{
	/* Forged: the record has the directory's identity of now, but the timestamps of the
	 * directory that had the number before; its listing lacks the match. */
	struct cf_scan_cache *c = fresh();
	uint32_t d = rec_of(c, "d/e");
	drop_kid(c, d, "y.pem");
	look_unchanged(c, d, "d/e");
	c->dirs[d].ctime -= 5000000000LL;
	c->dirs[d].mtime -= 5000000000LL;
	c->dirs[d].read -= 5000000000LL;
	struct cf_scan_stats st = same_as_full("an inode number reused (forged record)", c, NULL);
	TAP_OK(st.dirs_read == 1, "inode reused: the directory is read (%zu)", st.dirs_read);
	cf_scan_cache_free(c);

	/* For real, where the file system hands the number out again (ext4 does). */
	c = fresh();
	char *r = at("r"), *rm = at("r/m.pem");
	struct stat before, now;
	lstat(r, &before);
	bool reused = false;
	for (int i = 0; i < 200 && !reused; i++) {
		unlink(rm);
		rmdir(r);
		mkdir(r, 0755);
		lstat(r, &now);
		reused = now.st_ino == before.st_ino;
	}
	if (reused) {
		int fd = open(rm, O_WRONLY | O_CREAT | O_EXCL, 0644);
		close(fd);
		same_as_full("an inode number reused (real)", c, NULL);
		char *got = full();
		TAP_OK(has(got, "r/m.pem:0:f"), "inode reused (real): the new match is found");
		free(got);
	} else {
		printf("# this file system did not reuse the inode number in 200 tries; the forged "
		       "record above is the check\n");
	}
	free(r);
	free(rm);
	cf_scan_cache_free(c);
}

/* A symlink replaced by a directory, and a directory replaced by a symlink. */
static void symlink_swaps(void)
{
	struct cf_scan_cache *c = fresh();
	char *l = at("p/l"), *s = at("p/s");
	unlink(l);
	mkdir(l, 0755);
	mk("p/l/z.pem", 'f', NULL);
	rm_rf(s);
	if (symlink(elsewhere, s) < 0) {
		perror("symlink");
		exit(2);
	}
	same_as_full("a symlink swapped for a directory and back", c, NULL);
	char *got = full();
	TAP_OK(has(got, "p/l/z.pem:0:f"), "a symlink swapped for a directory: its match found");
	TAP_OK(!strstr(got, "p/s/"),
	       "a directory swapped for a symlink: not followed, nothing stale (%s)", got);
	free(got);
	free(l);
	free(s);
	cf_scan_cache_free(c);
}

/* A match replaced by another file of the same name: the identity is the one of now. */
static void identity_now(void)
{
	struct cf_scan_cache *c = fresh();
	char *x = at("d/x.pem"), *tmp = at("d/x.tmp");
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
	close(fd);
	rename(tmp, x);
	/* Parent forged to look unchanged: the listing is reused, the identity still is now's. */
	look_unchanged(c, rec_of(c, "d"), "d");
	struct cf_scan_stats st = same_as_full("a match replaced, listing reused", c, NULL);
	TAP_OK(st.dirs_reused > 0, "a match replaced: the listing was reused and the identity "
				   "is the new file's (no !id above)");
	/* A match replaced by a directory of the same name: the listing says file, lstat says
	 * directory: the directory is read instead. */
	unlink(x);
	mkdir(x, 0755);
	look_unchanged(c, rec_of(c, "d"), "d");
	st = same_as_full("a match whose kind changed under a reused listing", c, NULL);
	rmdir(x);
	fd = open(x, O_WRONLY | O_CREAT | O_EXCL, 0644);
	close(fd);
	free(x);
	free(tmp);
	cf_scan_cache_free(c);
}

/* Patterns whose states differ from directory to directory (nested roots, a middle wildcard,
 * a literal component): a directory read below reused ones gets the states of its path. */
static void mixed_patterns(void)
{
	struct cf_ruleset keep = rules;
	memset(&rules, 0, sizeof(rules));
	add_rule("d/*.pem");
	add_rule("**/e/*.key");
	add_rule("d/e/*");
	add_rule("p/*/sub");
	add_rule("deep/1/**/q.pem");
	struct cf_scan_cache *c = fresh(), *n = NULL;
	same_as_full("mixed patterns, settled", c, NULL);
	mk("d/e/late.key", 'f', NULL);
	mk("deep/1/2/3/late.pem", 'f', NULL);
	mk("deep/1/2/q.pem", 'f', NULL);
	struct cf_scan_stats st =
	    same_as_full("mixed patterns, changes deep below reused directories", c, &n);
	char *got = full();
	TAP_OK(has(got, "d/e/late.key:1:f") && has(got, "d/e/late.key:2:f") &&
		   has(got, "deep/1/2/q.pem:4:f") && !strstr(got, "late.pem"),
	       "mixed patterns: the new matches of the right rules, no others (%s)", got);
	TAP_OK(st.dirs_reused > 0 && st.dirs_read == 3,
	       "mixed patterns: only the three changed directories read (%zu read, %zu reused)",
	       st.dirs_read, st.dirs_reused);
	free(got);
	char *x = at("d/e/late.key"), *y = at("deep/1/2/3/late.pem"), *z = at("deep/1/2/q.pem");
	unlink(x);
	unlink(y);
	unlink(z);
	free(x);
	free(y);
	free(z);
	cf_scan_cache_free(c);
	cf_scan_cache_free(n);
	cf_ruleset_release(&rules);
	rules = keep;
}

/* Budgets hold with a cache: a deep tree still fails the scan, the matches count. */
/*
 * A tree wide enough that the threads of host/scan_pre.h share it out (more subtrees than
 * eight a thread): what they saw of each directory decides, and a directory changed, swapped
 * for another or for a symlink is read, as by one thread.
 */
static void wide(void)
{
	char rel[64];
	mk("w", 'd', NULL);
	for (int i = 0; i < 40; i++) {
		static const char *const sub[] = {"", "/a", "/a/x", "/b"};
		for (int j = 0; j < 4; j++) {
			snprintf(rel, sizeof(rel), "w/s%02d%s", i, sub[j]);
			mk(rel, 'd', NULL);
		}
	}
	mk("w/s07/a/k.pem", 'f', NULL);
	struct cf_scan_cache *c = fresh();
	struct cf_scan_stats st = same_as_full("wide, settled", c, NULL);
	TAP_OK(st.dirs_read == 0 && st.dirs_reused > 120, "wide: every directory reused (%zu)",
	       st.dirs_reused);
	mk("w/s29/a/x/new.pem", 'f', NULL);
	st = same_as_full("wide, a match added deep", c, NULL);
	TAP_OK(st.dirs_read == 1, "wide: only the changed directory is read (%zu)", st.dirs_read);
	cf_scan_cache_free(c);

	c = fresh();
	char *from = at("w/s11"), *to = at("w/s11-old");
	rename(from, to);
	free(from);
	free(to);
	mk("w/s11", 'd', NULL);
	mk("w/s11/a", 'd', NULL);
	mk("w/s11/a/x", 'd', NULL);
	mk("w/s11/a/x/moved.pem", 'f', NULL);
	from = at("w/s12/a");
	rm_rf(from);
	free(from);
	mk("w/s12/a", 'l', "../s07/a");
	same_as_full("wide, a directory moved into another's place, one swapped for a symlink", c,
		     NULL);
	cf_scan_cache_free(c);
	char *top_w = at("w");
	rm_rf(top_w);
	free(top_w);
}

static void budgets(void)
{
	struct cf_scan_cache *c = fresh();
	struct cf_scan_budget b = CF_SCAN_BUDGET_DEFAULT;
	b.max_depth = 3;
	struct cf_matches m = {0};
	struct confine_error err = {0};
	int rc = cf_scan_globs_cached(&rules, &b, c, NULL, &m, NULL, &err);
	TAP_INTEQ(rc, CONFINE_E_SCAN, "depth budget with a cache: the scan fails");
	TAP_OK(strstr(err.reason, "deeper than 3") != NULL, "depth budget: %s", err.reason);
	cf_matches_release(&m);
	b = (struct cf_scan_budget)CF_SCAN_BUDGET_DEFAULT;
	b.max_matches = 2;
	rc = cf_scan_globs_cached(&rules, &b, c, NULL, &m, NULL, &err);
	TAP_INTEQ(rc, CONFINE_E_SCAN, "match budget with a cache: the scan fails");
	cf_matches_release(&m);
	cf_scan_cache_free(c);
}

/* ---------------------------------------------------------------------------------------- */
/* The cache file. */

static char *cache_file(void)
{
	char key[65];
	cf_scan_cache_key(&rules, key);
	return cf_asprintf("%s/scan-%.32s", cdir, key);
}

/* A lying cache file: settled records, one match left out. */
static void write_lie(const char *leave_out_dir, const char *leave_out)
{
	struct cf_scan_cache *c = fresh();
	drop_kid(c, rec_of(c, leave_out_dir), leave_out);
	char *f = cache_file();
	unlink(f);
	free(f);
	if (cf_scan_cache_store(cdir, c) < 0) {
		printf("# cannot store the cache\n");
		exit(2);
	}
	cf_scan_cache_free(c);
}

/* cf_scan_cached with the cache directory: whether it found d/x.pem, and why the file was not
 * used (NULL: used). */
static bool run_cached(const char **why, struct cf_scan_stats *st)
{
	struct cf_scan_state s = {0};
	struct cf_matches m = {0};
	struct confine_error err = {0};
	bool found = false;
	if (cf_scan_cached(&s, cdir, &rules, NULL, &m, &err) == 0) {
		char *got = render(&m);
		found = has(got, "d/x.pem:0:f");
		free(got);
	}
	*why = s.why;
	*st = s.stats;
	cf_matches_release(&m);
	cf_scan_state_release(&s);
	return found;
}

static void file_case(const char *name, const char *want_why)
{
	const char *why;
	struct cf_scan_stats st;
	bool found = run_cached(&why, &st);
	TAP_OK(found && st.dirs_reused == 0, "%s: full rescan, the match is found", name);
	TAP_STREQ(why ? why : "(used)", want_why, "%s: why the file was not used", name);
}

static void file_cases(void)
{
	const char *why;
	struct cf_scan_stats st;
	char *f = cache_file();

	/* Round trip, and the control: a lying file that passes every check hides the match
	 * (only the user can write one: R30 keeps the sandbox from it). */
	write_lie("d", "x.pem");
	struct stat fst;
	TAP_OK(lstat(f, &fst) == 0 && S_ISREG(fst.st_mode) && (fst.st_mode & 0777) == 0600 &&
		   fst.st_uid == geteuid(),
	       "the cache file is a 0600 regular file of the caller");
	bool found = run_cached(&why, &st);
	TAP_OK(!found && !why && st.dirs_read == 0,
	       "control: an accepted lying file is used as it is (hides the match)");

	write_lie("d", "x.pem");
	must(truncate(f, (off_t)fst.st_size - 1), "truncate");
	file_case("truncated by a byte", "truncated");
	write_lie("d", "x.pem");
	must(truncate(f, (off_t)fst.st_size / 2), "truncate");
	file_case("truncated to half", "truncated");
	write_lie("d", "x.pem");
	must(truncate(f, 0), "truncate");
	file_case("truncated to nothing", "truncated");

	write_lie("d", "x.pem");
	chmod(f, 0666);
	file_case("made world-writable", "writable by others");
	chmod(f, 0620);
	file_case("made group-writable", "writable by others");

	write_lie("d", "x.pem");
	char *aside = cf_asprintf("%s/lie", cdir);
	must(rename(f, aside), "rename");
	must(symlink("lie", f), "symlink");
	file_case("replaced by a symlink", "a symlink");
	unlink(f);
	must(link(aside, f), "link");
	file_case("a hard link", "a hard link");
	unlink(f);
	unlink(aside);
	free(aside);

	write_lie("d", "x.pem");
	int fd = open(f, O_RDWR);
	unsigned char byte;
	must((int)pread(fd, &byte, 1, fst.st_size / 2), "pread");
	byte ^= 0x40;
	must((int)pwrite(fd, &byte, 1, fst.st_size / 2), "pwrite");
	close(fd);
	file_case("one byte changed", "corrupt (checksum)");

	/* Every single byte of a file is covered: flipping any one refuses it. */
	write_lie("d", "x.pem");
	size_t len = 0;
	unsigned char *good = NULL;
	{
		FILE *fp = fopen(f, "rb");
		good = malloc((size_t)fst.st_size);
		len = fread(good, 1, (size_t)fst.st_size, fp);
		fclose(fp);
	}
	char key[65];
	cf_scan_cache_key(&rules, key);
	size_t refused = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char *copy = malloc(len);
		memcpy(copy, good, len);
		copy[i] ^= 0x01;
		struct cf_scan_cache *c = NULL;
		const char *w = NULL;
		if (cf_scan_cache_parse(copy, len, key, cf_scan_clock_offset(), &c, &w) < 0)
			refused++;
		cf_scan_cache_free(c);
	}
	TAP_OK(refused == len, "every one of the %zu bytes is checked (%zu refused)", len, refused);
	/* The unmodified bytes parse (the loop above is not refusing everything). */
	{
		unsigned char *copy = malloc(len);
		memcpy(copy, good, len);
		struct cf_scan_cache *c = NULL;
		const char *w = NULL;
		TAP_INTEQ(cf_scan_cache_parse(copy, len, key, cf_scan_clock_offset(), &c, &w), 0,
			  "the file as written parses");
		cf_scan_cache_free(c);
	}
	free(good);

	/* Another clock: the same bytes written as if the clock had been set 5 s back. */
	{
		struct cf_scan_cache *c = fresh();
		drop_kid(c, rec_of(c, "d"), "x.pem");
		size_t n = 0;
		void *b = cf_scan_cache_serialize(c, cf_scan_clock_offset() - 5000000000LL, &n);
		unlink(f);
		fd = open(f, O_WRONLY | O_CREAT | O_EXCL, 0600);
		must((int)write(fd, b, n), "write");
		close(fd);
		free(b);
		cf_scan_cache_free(c);
		file_case("written under another clock",
			  "written under another clock (it was set, or the machine rebooted)");
	}

	/* Foreign: a valid lying file of another pattern set, under this one's name. */
	{
		struct cf_scan_cache *c = fresh();
		drop_kid(c, rec_of(c, "d"), "x.pem");
		c->key[0] = c->key[0] == 'a' ? 'b' : 'a';
		size_t n = 0;
		void *b = cf_scan_cache_serialize(c, cf_scan_clock_offset(), &n);
		unlink(f);
		fd = open(f, O_WRONLY | O_CREAT | O_EXCL, 0600);
		must((int)write(fd, b, n), "write");
		close(fd);
		free(b);
		cf_scan_cache_free(c);
		file_case("foreign (another key)", "foreign (another key)");
	}

	/* Garbage, and a file past the bound (sparse). */
	unlink(f);
	fd = open(f, O_WRONLY | O_CREAT | O_EXCL, 0600);
	must((int)write(fd, "confine? no.\n", 13), "write");
	close(fd);
	file_case("garbage", "truncated");
	fd = open(f, O_WRONLY | O_TRUNC);
	char junk[256];
	memset(junk, 'j', sizeof(junk));
	must((int)write(fd, junk, sizeof(junk)), "write");
	close(fd);
	file_case("garbage of a header's size", "not a scan cache of this version");
	must(truncate(f, (off_t)CF_SCAN_CACHE_MAX_BYTES + 1), "truncate");
	file_case("larger than the bound", "larger than the bound");

	/* Another owner (root only can make one). */
	if (geteuid() == 0) {
		write_lie("d", "x.pem");
		must(chown(f, 65534, 65534), "chown");
		file_case("another user's file", "not yours");
	} else {
		TAP_SKIP("another user's file: needs root to make one");
	}

	/* The directory: writable by others, or a symlink to a directory. */
	write_lie("d", "x.pem");
	chmod(cdir, 0777);
	file_case("the cache directory writable by others",
		  "the cache directory is not yours alone");
	chmod(cdir, 0700);
	char *real = cf_asprintf("%s.real", cdir);
	must(rename(cdir, real), "rename");
	must(symlink(real, cdir), "symlink");
	file_case("the cache directory a symlink", "the cache directory is not a directory");
	unlink(cdir);
	must(rename(real, cdir), "rename");
	free(real);

	/* The store writes atomically, 0600, and replaces a symlink rather than following it. */
	unlink(f);
	char *target = cf_asprintf("%s/target", elsewhere);
	must(symlink(target, f), "symlink");
	struct cf_scan_cache *c = fresh();
	TAP_INTEQ(cf_scan_cache_store(cdir, c), 0, "store over a symlink");
	TAP_OK(lstat(f, &fst) == 0 && S_ISREG(fst.st_mode) && access(target, F_OK) != 0,
	       "store over a symlink: replaced, not followed");
	cf_scan_cache_free(c);
	free(target);

	/* The directory stays bounded: 70 old caches, an old temporary file, someone else's file
	 * and a symlink to a file elsewhere; a store keeps the 64 newest and its own. */
	{
		char *keep = cf_asprintf("%s/notes.txt", cdir),
		     *outside = cf_asprintf("%s/x", elsewhere);
		close(open(keep, O_WRONLY | O_CREAT, 0600));
		close(open(outside, O_WRONLY | O_CREAT, 0600));
		for (int i = 0; i < 70; i++) {
			char *old = cf_asprintf("%s/scan-old%02d", cdir, i);
			close(open(old, O_WRONLY | O_CREAT, 0600));
			struct timespec ts[2] = {{.tv_sec = 1000000 + i}, {.tv_sec = 1000000 + i}};
			utimensat(AT_FDCWD, old, ts, 0);
			free(old);
		}
		char *tmpf = cf_asprintf("%s/.scan-crashed.1.2.0", cdir);
		close(open(tmpf, O_WRONLY | O_CREAT, 0600));
		struct timespec ts[2] = {{.tv_sec = 1000}, {.tv_sec = 1000}};
		utimensat(AT_FDCWD, tmpf, ts, 0);
		char *link = cf_asprintf("%s/scan-link", cdir);
		must(symlink(outside, link), "symlink");
		lutimes(link, (const struct timeval[2]){{.tv_sec = 2000}, {.tv_sec = 2000}});
		struct cf_scan_cache *full_dir = fresh();
		TAP_INTEQ(cf_scan_cache_store(cdir, full_dir), 0,
			  "store with a full cache directory");
		cf_scan_cache_free(full_dir);
		int n = 0;
		DIR *d = opendir(cdir);
		for (struct dirent *e; d && (e = readdir(d));)
			n += !strncmp(e->d_name, "scan-", 5);
		if (d)
			closedir(d);
		char *newest = cf_asprintf("%s/scan-old69", cdir),
		     *oldest = cf_asprintf("%s/scan-old00", cdir);
		TAP_OK(n == 64 && access(f, F_OK) == 0 && access(newest, F_OK) == 0 &&
			   access(oldest, F_OK) != 0,
		       "at most 64 caches kept, the newest and the one just written (%d)", n);
		struct stat lst;
		TAP_OK(
		    access(tmpf, F_OK) != 0 && lstat(link, &lst) != 0 &&
			access(outside, F_OK) == 0 && access(keep, F_OK) == 0,
		    "an old temporary file and the oldest (a symlink: removed, not followed) go; "
		    "other files stay");
		for (int i = 0; i < 70; i++) {
			char *old = cf_asprintf("%s/scan-old%02d", cdir, i);
			unlink(old);
			free(old);
		}
		unlink(keep);
		free(keep);
		free(outside);
		free(tmpf);
		free(link);
		free(newest);
		free(oldest);
	}

	/* A cold state stores at once; a settled tree's later scans leave the file alone. */
	unlink(f);
	run_cached(&why, &st);
	TAP_OK(lstat(f, &fst) == 0, "a cold scan stores the cache file (%s)", why ? why : "");
	free(f);
}

/* An unreadable directory is skipped and named with a cache as without (R14). */
static void unreadable(void)
{
	char *closed = at("closed");
	mkdir(closed, 0755);
	mk("closed/k.pem", 'f', NULL);
	struct cf_scan_cache *c = fresh(); /* readable when cached */
	chmod(closed, 0);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (geteuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
			_exit(3);
		struct cf_scan_stats st;
		struct cf_scan_cache *n = NULL;
		char *got = scan_from(c, &n, &st);
		char *again = scan_from(n, NULL, &st);
		bool good = strstr(got, " skipped:closed") && !strstr(got, "closed/k.pem") &&
			    strstr(again, " skipped:closed") && strstr(got, "d/x.pem:0:f");
		if (!good)
			printf("#   got: %s\n#   again: %s\n", got, again);
		fflush(stdout);
		/* Everything freed: under valgrind a leak would be this child's exit status. */
		free(got);
		free(again);
		free(closed);
		cf_scan_cache_free(n);
		cf_scan_cache_free(c);
		cf_ruleset_release(&rules);
		_exit(good ? 0 : 1);
	}
	int wst = 0;
	waitpid(pid, &wst, 0);
	TAP_OK(WIFEXITED(wst) && WEXITSTATUS(wst) == 0,
	       "a directory made unreadable after it was cached is skipped and named, every time "
	       "(status %d)",
	       wst);
	chmod(closed, 0755);
	rm_rf(closed);
	free(closed);
	cf_scan_cache_free(c);
}

static void add_rule(const char *rel)
{
	char *path = at(rel);
	struct cf_rule r = {.pattern = path, .path = path, .glob = true};
	cf_ruleset_add(&rules, &r, NULL);
	free(path);
}

int main(void)
{
	/* Under /var/tmp: a disk file system, where inode numbers get reused for real. */
	char tmpl[] = "/var/tmp/confine-scan-cache.XXXXXX";
	if (!mkdtemp(tmpl))
		return 2;
	char *canon = NULL;
	if (cf_host_canonicalize(NULL, tmpl, &canon, NULL) < 0)
		return 2;
	snprintf(top, sizeof(top), "%s/t", canon);
	snprintf(cdir, sizeof(cdir), "%s/cache", canon);
	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", canon);
	chmod(canon, 0755);
	mkdir(top, 0755);
	mkdir(cdir, 0700);
	mkdir(elsewhere, 0755);
	char *q = cf_asprintf("%s/q.pem", elsewhere);
	close(open(q, O_WRONLY | O_CREAT, 0644));
	free(q);

	mk("a.pem", 'f', NULL);
	mk("d", 'd', NULL);
	mk("d/x.pem", 'f', NULL);
	mk("d/e", 'd', NULL);
	mk("d/e/y.pem", 'f', NULL);
	mk("d/e/plain.txt", 'f', NULL);
	mk("d/e/f.key", 'f', NULL);
	mk("p", 'd', NULL);
	mk("p/a", 'd', NULL);
	mk("p/a/sub", 'd', NULL);
	mk("p/b", 'd', NULL);
	mk("p/b/y.pem", 'f', NULL);
	mk("p/l", 'l', "../d");
	mk("p/s", 'd', NULL);
	mk("p/s/q.pem", 'f', NULL);
	mk("r", 'd', NULL);
	mk("deep", 'd', NULL);
	mk("deep/1", 'd', NULL);
	mk("deep/1/2", 'd', NULL);
	mk("deep/1/2/3", 'd', NULL);
	mk("deep/1/2/3/4", 'd', NULL);
	mk("deep/1/2/3/4/q.pem", 'f', NULL);
	add_rule("**/*.pem");
	add_rule("**/*.key");

	basics();
	same_second();
	renamed_into_place();
	inode_reused();
	symlink_swaps();
	identity_now();
	mixed_patterns();
	wide();
	budgets();
	file_cases();
	unreadable();

	cf_ruleset_release(&rules);
	rm_rf(canon);
	free(canon);
	return tap_done();
}
