/* SPDX-License-Identifier: MIT */
/*
 * The glob scan's walker, shared by host/scan.c (the patterns' automaton, the roots, the entry
 * points) and host/scan_walk.c (the directories: read, or reused from the records of the scan
 * before).  Internal to the scan.
 */
#ifndef CONFINE_SCAN_WALKER_H
#define CONFINE_SCAN_WALKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "host/scan.h"
#include "host/scan_cache.h"
#include "host/scan_pre.h"
#include "util/util.h"

struct comp {
	const char *s;
	size_t n;
	bool globstar;
};

struct pat {
	size_t rule;	   /* index in the ruleset */
	char *root;	   /* wildcard-free leading directory */
	bool fold;	   /* match names case-insensitively (the credential guards) */
	struct comp *comp; /* components of the whole absolute pattern */
	uint32_t ncomp;
};

/* Growable array of uint32_t.  A level holds records [pattern, count, state...]. */
struct u32v {
	uint32_t *v;
	size_t n, cap;
};

struct walker {
	const struct cf_scan_budget *budget;
	struct cf_matches *out;
	struct confine_error *err;
	struct pat *pats;
	struct u32v *lv; /* max_depth + 2 levels */
	int lv_ok; /* lv[0..lv_ok] hold the states of w->path's prefixes (see ensure_states) */
	struct u32v matched;
	struct cf_buf path;
	const char *root;
	size_t rootlen;
	int rootfd; /* the root of the current walk, open */
	struct timespec deadline;
	size_t nmatches;
	unsigned tick;
	bool oom;
	/* R32: the records of the previous scan (NULL: none) and the ones this scan makes.  When
	 * `keep` is false (no caller wants them, or they grew past the bound), a directory's
	 * records are dropped once it is walked: the walk needs them only while it is in it. */
	const struct cf_scan_cache *prev;
	const struct cf_scan_pre *pre; /* what was seen of prev's directories, or NULL */
	struct cf_scan_cache *next;
	bool keep;
	struct cf_scan_stats *stats;
	/* a directory's entries, read whole before its subdirectories are walked (scan_walk.c);
	 * CF_SCAN_DBUF bytes on the heap (an embedding host's thread may have a small stack) */
	char *dbuf;
	struct {
		uint64_t dev;
		bool trusted;
	} fs[8];
	size_t nfs;
};

#define CF_SCAN_DBUF 32768

/* scan.c: the patterns. */
/* Moves every pattern alive at `depth` over the entry `name`: the patterns it matches go to
 * w->matched, the states alive below it to w->lv[depth + 1]; false on out-of-memory. */
bool cf_scan_w_advance(struct walker *w, int depth, const char *name, size_t nlen);
/* Makes lv[0..depth] hold the states of w->path's prefixes (w->path the directory at
 * `depth`); false on out-of-memory. */
bool cf_scan_w_ensure_states(struct walker *w, int depth);
bool cf_scan_w_over_time(struct walker *w);
/* The time budget's error, for w->path. */
int cf_scan_w_time_budget(struct walker *w);
/* Adds every pattern of w->matched as a match of w->path (st: its identity, or NULL). */
int cf_scan_w_add_matched(struct walker *w, enum cf_kind kind, const struct stat *st);

/* scan_walk.c: the directories. */
/* Walks the directory w->path at `depth` (relative to its parent open at pfd, or -1), with the
 * record `old` of the scan before when it still holds; *made is its new record. */
int cf_scan_w_visit(struct walker *w, int pfd, int depth, uint32_t old, uint32_t *made);

#endif
