/* SPDX-License-Identifier: MIT */
/* Helper mode's masks, and the reading of confine-init's descriptors (mounts.c). */
#ifndef CONFINE_HELPER_MOUNTS_H
#define CONFINE_HELPER_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>

/* What failed: the call, its errno and the path it was about; changed: the path is not what the
 * plan saw (gone, a symlink on the way, another kind), which confine answers by planning again
 * (R34). */
struct cf_helper_err {
	int err;
	const char *call;
	char path[200];
	bool changed;
	bool cache; /* a tool cache's overlay (R39): confine plans it again without overlays */
};

/* Reads fd from offset 0 to its end (at most max bytes) into a malloc'd, NUL-terminated
 * buffer.  0, or -1 with errno. */
int cf_helper_slurp(int fd, size_t max, char **out, size_t *len);
struct cf_helper_caches;
/* Makes every mount of the list (plan/bwrap/args.c, cf_plan_helper_list), read from list_fd;
 * a transient endpoint that is gone is marked CF_HELPER_LEFT_OUT there.  caches: the tool
 * caches' work area (helper/caches.h), zeroed but for its proc_dir, allocated by the caller
 * (this function allocates nothing).  0 or -1. */
int cf_helper_mount_all(const char *list, size_t len, int list_fd, struct cf_helper_caches *caches,
			struct cf_helper_err *e);

#endif
