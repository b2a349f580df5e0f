/* SPDX-License-Identifier: MIT */
/*
 * Tool caches (R39), the host's side (plan/caches.h says what the plan makes of them): where
 * each tool keeps its cache here, and confine's store for a workspace.
 *
 * The store of a workspace is ${XDG_STATE_HOME:-~/.local/state}/confine/caches/ID, ID a
 * digest of the caller, the workspace's canonical path and its directory's identity (a
 * repository cloned again at the same path gets a store of its own): `meta` (confine's record:
 * the workspace, the size, when it was last used and measured), `o/TOOL/upper[.N]` (an overlay's
 * upper layer, one per slot: toolcache.h, cf_cache_lock_slot), `o/TOOL/work.N` (its work
 * directory) and `r/TOOL` (a redirected tool's directory).  Every directory is made as the caller,
 * 0700, one component at a time without following a symlink, and only below a directory of the
 * caller's own.  Touches the OS.
 */
#ifndef CONFINE_HOST_TOOLCACHE_H
#define CONFINE_HOST_TOOLCACHE_H

#include <stdint.h>

#include "plan/caches.h"
#include "plan/bwrap/plan.h"
#include "util/util.h"

/* The default bound of all stores together. */
#define CF_CACHE_DEFAULT_BOUND (4ULL << 30)

/*
 * Where each tool keeps its cache on this host (from `env`, the command's environment as the
 * caller gave it, and the home), and the store of `workspace`: `out` is filled.  With `create`
 * the store is made (its overlay directories for every cache that is a directory, with the
 * work directory `work`); when that is impossible out->store is NULL and out->why_not says
 * why (no private caches: a note, not an error).  Returns 0 or CONFINE_E_NOMEM.
 */
int cf_host_cache_facts(const struct cf_strv *env, const char *home, const char *workspace,
			bool create, const char *work, struct cf_cache_facts *out,
			struct confine_error *err);

/* confine's state directory for `env` and `home` (malloc'd): ${XDG_STATE_HOME:-~/.local/state}
 * /confine, canonical. */
char *cf_host_state_dir(const struct cf_strv *env, const char *home);

/* Before a launch: the upper layer and the work directory of each overlay of the plan (those
 * of the run's slot, made as make_store makes directories, kept from run to run), below the
 * store's "o"; what a volatile overlay left in the work directory ("work/incompat") is removed
 * first, or the kernel refuses to mount it again.  0, or -1 with *why. */
int cf_cache_prepare_run(const struct cf_plan *plan, const char **why);
/* Removes dir/name and everything below it, never through a symlink (cachestore.c).  0 or -1. */
int cf_cache_remove_at(const char *dir, const char *name);

/* Locks one of CF_CACHE_SLOTS slots of the store's overlays for this run (flock on o/N.lock,
 * held while *fd is open): the slot, or -1 when every one is held by a run of the workspace
 * (this run is then redirected).  Touches the OS. */
#define CF_CACHE_SLOTS 4
int cf_cache_lock_slot(const char *store, int *fd);
/* The store's own lock, shared, for the run (cachestore.c): the store's data is not removed
 * (bound, `confine cache clear`) while a run uses it.  The descriptor, or -1.  Touches the OS. */
int cf_cache_lock_store(const char *store);

/* After a run (cachestore.c): the store's size measured
 * (at most once a minute) and recorded with the time of use; then, while all stores together
 * are larger than `bound`, the least recently used other store is removed, and last this
 * workspace's own data when it alone is larger.  *trimmed (may be NULL) gets what was removed
 * ("" when nothing was).  The overlays' work directories of this run's slot (`work`, as
 * "work.N") are made the caller's to remove again (the kernel makes them 0000).  Best effort.
 * Touches the OS. */
void cf_cache_finish(const struct cf_plan *plan, const char *work, const char *workspace,
		     uint64_t bound, char *trimmed, size_t cap);

/* One store, as `confine cache list` shows it. */
struct cf_cache_store_info {
	char *dir;	 /* the store */
	char *workspace; /* from its record; "" when unknown */
	uint64_t bytes;	 /* as last measured */
	int64_t used;	 /* seconds since the epoch */
};
/* Every store below `state`/caches.  0 or CONFINE_E_NOMEM. */
int cf_cache_stores(const char *state, struct cf_cache_store_info **out, size_t *n,
		    struct confine_error *err);
void cf_cache_stores_free(struct cf_cache_store_info *v, size_t n);
/* Removes one store (`dir` must be a store below `state`/caches), never through a symlink.
 * 0, or CONFINE_E_OS. */
int cf_cache_store_remove(const char *state, const char *dir, struct confine_error *err);
/* The store of `workspace` (canonical) below `state`, whether it exists or not (malloc'd). */
char *cf_cache_store_of(const char *state, const char *workspace);

#endif
