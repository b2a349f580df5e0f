/* SPDX-License-Identifier: MIT */
/* Tool caches in helper mode (R39): caches.c. */
#ifndef CONFINE_HELPER_CACHES_H
#define CONFINE_HELPER_CACHES_H

#include <stdbool.h>
#include <stddef.h>

#include "helper/mounts.h"

#define CF_HELPER_MAX_CAPTURES 512
#define CF_HELPER_MAX_OVERLAYS 32

struct cf_helper_capture {
	int fd; /* the clone; -1: nothing was there */
	bool dir;
};

/* What the records of one mount list build up; allocated and zeroed by the caller of
 * cf_helper_mount_all, which sets proc_dir. */
struct cf_helper_caches {
	/* A procfs where the maker is visible, opened before it joined the sandbox (whose /proc
	 * shows another pid namespace): the layers are named to the overlay as self/fd/N from it;
	 * -1: /proc/self/fd/N. */
	int proc_dir;
	struct cf_helper_capture caps[CF_HELPER_MAX_CAPTURES];
	size_t n_caps, next_attach;
	char roots[CF_HELPER_MAX_OVERLAYS][4096]; /* the overlays mounted so far */
	size_t n_roots;
	char target[4096], upper[512], work[512]; /* the overlay being read ('o', 'U', 'W') */
};

/* One record of a tool cache (plan.h, CF_HELPER_CAPTURE...).  0 or -1 with e filled (e->cache
 * set where confine should plan the run again without overlays). */
int cf_helper_cache_op(struct cf_helper_caches *st, char op, const char *path,
		       struct cf_helper_err *e);
/* Whether path lies strictly below an overlay mounted so far. */
bool cf_helper_in_overlay(const struct cf_helper_caches *st, const char *path);
/* Closes the clones that were not attached. */
void cf_helper_caches_release(struct cf_helper_caches *st);

#endif
