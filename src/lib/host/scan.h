/* SPDX-License-Identifier: MIT */
/*
 * The glob scan of R14: one walk of each root for all glob patterns, no symlink following,
 * budgets on time, depth, matches and patterns.  Touches the OS (reads directories).
 */
#ifndef CONFINE_SCAN_H
#define CONFINE_SCAN_H

#include "host/facts.h"

struct cf_scan_budget {
	double seconds;	     /* 30 */
	int max_depth;	     /* 64 */
	size_t max_matches;  /* 2048 */
	size_t max_patterns; /* 256 */
	/* R32: a scan that starts from records of at least this many directories asks whether
	 * they still hold on several threads first (host/scan_pre.h); 0: always */
	size_t parallel_min_dirs; /* 1024 */
};

#define CF_SCAN_BUDGET_DEFAULT                                                                     \
	{                                                                                          \
		30.0, 64, 2048, 256, 1024                                                          \
	}

/*
 * Expands every rule of `rules` with glob == true.  Rules whose prefix is the same directory
 * (or nested) share one walk.  Each existing path that a pattern matches is appended with its
 * kind and the index of the rule; a directory that matches is not descended for that pattern
 * (everything below it is covered already).  Symlinks are reported (kind CF_KIND_SYMLINK) but
 * never followed.  A missing root is not an error; an unreadable directory (EACCES) is skipped
 * and listed in out->skipped.  A budget exceeded fails with CONFINE_E_SCAN naming the path and
 * the budget (for the depth: the directory below the root that holds the deep tree).
 */
int cf_scan_globs(const struct cf_ruleset *rules, const struct cf_scan_budget *budget,
		  struct cf_matches *out, struct confine_error *err);

struct cf_scan_cache; /* host/scan_cache.h */

/* What one scan did. */
struct cf_scan_stats {
	size_t dirs_read;	 /* opened and listed */
	size_t dirs_reused;	 /* the previous listing still held: one fstatat */
	size_t dirs_recent;	 /* of dirs_read: unchanged, but changed too shortly before the
				  * previous read to be trusted (the racy-timestamp rule) */
	size_t dirs_prechecked;	 /* of the directories with a record: decided from what the
				  * threads of host/scan_pre.h saw, not asked again */
	size_t files_classified; /* R40: matches decided by content read and classified */
	size_t files_reused;	 /* ... and decided by the cache's record of an earlier read */
};

/*
 * cf_scan_globs, incremental (R32): `prev` (may be NULL; ignored when made for other patterns)
 * holds the records of an earlier scan, reused for every directory whose identity and
 * timestamps still hold (scan_cache.h); the others are read.  The matches are exactly those of
 * a full scan of the tree as it is, with their identities of now.  When `next` is not NULL it
 * receives this scan's records (NULL when they grew past the bound, or on failure).  `stats`
 * may be NULL.
 */
int cf_scan_globs_cached(const struct cf_ruleset *rules, const struct cf_scan_budget *budget,
			 const struct cf_scan_cache *prev, struct cf_scan_cache **next,
			 struct cf_matches *out, struct cf_scan_stats *stats,
			 struct confine_error *err);

/* The scans of one run: the launch scan loads the cache file, each later scan (a plan made
 * again, the post-run scan) starts from the records of the one before. */
struct cf_scan_state {
	struct cf_scan_cache *cache; /* the records of the last scan, or NULL */
	bool loaded;		     /* the cache file was looked at */
	bool dirty;		     /* the records differ from the cache file */
	const char *why;	     /* why the cache file was not used (static), or NULL */
	struct cf_scan_stats stats;  /* of the last scan */
	struct cf_scan_stats launch; /* of the scan the launch was planned from (events.c) */
	/* R40: the classifications of the matches decided by content (scan_content.c) */
	struct cf_cert_cache *certs;
	bool certs_loaded, certs_dirty;
	char certs_key[65];
};

/*
 * A scan of `rules` that reuses what it can (cf_scan_globs_cached): the first one loads the
 * cache file from `cache_dir` (confine's cache directory, may be NULL) and, when there was no
 * usable one, stores its own records at once; later ones start from the last scan's records.
 * Touches the OS.
 */
int cf_scan_cached(struct cf_scan_state *s, const char *cache_dir, const struct cf_ruleset *rules,
		   const struct cf_scan_budget *budget, struct cf_matches *out,
		   struct confine_error *err);
/*
 * R40: classifies the matches of `rules` that a rule decided by content made (regular files
 * only; host/certclass.h), from the cache file cert-KEY of `cache_dir` where its record still
 * holds (scan_content.c); the public ones move from m->v to m->pub (sorted by path), the others
 * keep their class in cf_match.content.  Called by cf_scan_cached.  Touches the OS.
 */
int cf_scan_classify(struct cf_scan_state *s, const char *cache_dir, const struct cf_ruleset *rules,
		     struct cf_matches *m, struct confine_error *err);
void cf_scan_certs_save(struct cf_scan_state *s, const char *cache_dir);
void cf_cert_cache_free(struct cf_cert_cache *c);

/* Stores the records of the last scan in the cache file when they differ from it (best
 * effort).  Touches the OS. */
void cf_scan_state_save(struct cf_scan_state *s, const char *cache_dir);
void cf_scan_state_release(struct cf_scan_state *s);

#endif
