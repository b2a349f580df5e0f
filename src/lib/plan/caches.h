/* SPDX-License-Identifier: MIT */
/*
 * Tool caches (R39).  Package managers keep caches in the home (npm's ~/.npm, cargo's
 * ~/.cargo, pip's, uv's and go's under the XDG cache directory...), which the sandbox sees
 * read-only: `npm install` failed with EROFS, and the workaround people found (`--allow
 * ~:write`) lets the command write what the host's own tools later read and run.  Instead:
 *
 *  - overlay (the bwrap backend in helper mode, exec/linux/bwrap/masks.c): the host's cache is the
 * lower layer of an overlay mounted at the same path inside the sandbox, and confine's store for
 *    this workspace the upper one, so the tool reads the user's warm cache and every write goes
 *    to the store.  The host's cache is never written.  Protections below the path (guards such
 *    as ~/.cargo/credentials.toml, rules, confine's own directories) are made again on top of
 *    the overlay: an overlay does not show the mounts of its lower layer;
 *  - redirect (the landlock backend, a bwrap launch without helper mode, the macOS and Windows
 *    plans): the tool's variable points into the store (npm_config_cache, CARGO_HOME,
 *    GOMODCACHE, XDG_CACHE_HOME...), which the plan makes writable; the host's cache stays
 *    read-only and unused, so the first run is cold;
 *  - nothing: the path is hidden or already writable (a rule, the workspace), or the tool has no
 *    variable and no overlay is possible.
 *
 * The store is confine's state (R30): one directory per workspace (so that one repository
 * cannot poison another's), outside every workspace, hidden from the command as a whole (an
 * overlay's store is mounted privately and detached before the command starts; a redirect
 * makes only this workspace's directory visible), bounded in size after each run, listed by
 * the plan and emptied by `confine cache clear`.  Pure.
 */
#ifndef CONFINE_PLAN_CACHES_H
#define CONFINE_PLAN_CACHES_H

#include <stdbool.h>
#include <stdint.h>

#include "policy/policy.h"

/* Where the mask maker (exec/linux/bwrap/masks.c) finds the overlay store of the run: bound there
 * (inside the sandbox's own /dev, a tmpfs of bwrap's, so that no mount point is made on the host)
 * and detached once the overlays are mounted. */
#define CF_CACHE_MNT "/dev/.confine-cache"

enum cf_cache_how {
	CF_CACHE_NONE = 0,
	CF_CACHE_OVERLAY,
	CF_CACHE_REDIRECT,
};

/* One tool: where its cache lives, and the variable that moves it. */
struct cf_tool {
	const char *name; /* "npm": also its directory in the store */
	const char *var;  /* the variable that names its directory, or NULL */
	const char *alt;  /* another spelling the tool reads (NPM_CONFIG_CACHE), or NULL */
	/* the default: below the home ("~/.npm"), below the XDG cache directory ("xdg:pip"), the
	 * XDG data directory ("data:pnpm"), GOPATH ("gopath:pkg/mod") */
	const char *def;
	/* how a redirect is written: "VAR" (the store directory), "VAR+=-Dx=" (appended to the
	 * variable with a space: MAVEN_OPTS) */
	const char *redirect;
};

/* The tools, in a fixed order; *n gets their number.  Static. */
const struct cf_tool *cf_tools(size_t *n);

/* A host fact: where one tool keeps its cache on this host. */
struct cf_cache_loc {
	const struct cf_tool *tool;
	char *path;	   /* absolute, canonical (the longest existing prefix resolved) */
	bool by_var;	   /* named by its variable, not the default */
	bool under_xdg;	   /* at its default place inside the XDG cache directory */
	enum cf_kind kind; /* what is at path */
};

struct cf_cache_facts {
	struct cf_cache_loc *v;
	size_t n;
	char *store;  /* this workspace's store (canonical); NULL: no store, no private caches */
	char *state;  /* confine's state directory, whose caches/ holds every store */
	bool overlay; /* the executor can mount overlays (bwrap with helper mode) */
	/* Which upper layers this run holds (toolcache.h, cf_cache_lock_slot): an overlay's upper
	 * layer is never shared by two mounted overlays (the kernel leaves that undefined, and
	 * concurrent runs of one workspace see ESTALE), so each of a few slots has its own, locked
	 * for the run: 0 "upper", N "upper.N". */
	int slot;
	char *why_not; /* why there is no store, for the plan's notes; NULL */
};
void cf_cache_facts_release(struct cf_cache_facts *f);

/* The overlay data of a store (upper layers, per-run work directories) and the redirect
 * targets, below the store: "o" and "r".  malloc'd. */
char *cf_cache_store_overlay(const char *store);
char *cf_cache_store_redirect(const char *store);

/* A plan for another system (macOS, Windows: no overlay there): confine's store for
 * `workspace` below `base`, named by the workspace's path escaped one to one ("p-%2FUsers..."),
 * and its redirect targets "r" (malloc'd); NULL when the name would be too long.  Pure. */
char *cf_cache_store_by_path(const char *base, const char *workspace, char sep);
/* Appends to env the redirect of every tool into `dir` (its own directory below it); on Windows
 * each tool by its own variable (no XDG cache directory there).  0 or CONFINE_E_NOMEM.  Pure. */
int cf_cache_redirects_for(const char *dir, char sep, bool windows, struct cf_strv *env);
/* The plan's note on the tool caches of a plan for another system: the store and `env` (the
 * redirects, after "(WHY):"), or without a store that they are not private, then `without`.
 * malloc'd; NULL when out of memory.  Pure. */
char *cf_cache_store_note(const char *store, const struct cf_strv *env, const char *why,
			  const char *without);
/* The store of a plan for another system made writable (an allow of the session layer, at its
 * end) and every tool redirected into it (cf_cache_redirects_for).  0, or the error.  Pure. */
int cf_cache_store_allow(struct cf_ruleset *session, char *store, char sep, bool windows,
			 struct cf_strv *env, struct confine_error *err);

/* One cache in a plan. */
struct cf_plan_cache {
	char *tool;
	char *path; /* the host's cache */
	enum cf_cache_how how;
	char *where; /* overlay: its upper layer, redirect: its directory (host paths) */
	char *work;  /* overlay: the run's work directory's name, below the tool's directory */
	char *why;   /* NONE: why not */
};

#endif
