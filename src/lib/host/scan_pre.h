/* SPDX-License-Identifier: MIT */
/*
 * The glob scan's check of the previous scan's directories on several threads (R32).  Where a
 * scan starts from records and the tree is large, most of its time is one fstatat per
 * directory asking whether the record still holds.  Those questions do not depend on each
 * other, so they are asked first, by up to four threads, and the walk then takes the answers
 * instead of asking again: the same decisions, made from the same kind of look at each
 * directory, in a fraction of the wall time where the machine has a second core.
 *
 * A verdict is taken by fstatat of the same name below the same parent that the walk would use
 * (the parent opened O_PATH without following a symlink and checked to be the directory its
 * record is of), with cf_scan_dir_unchanged.  What was true at that moment is what the walk
 * would have seen a few milliseconds later; a change after a directory was looked at is, as
 * before, a change after the scan passed it.  Internal to the scan.  Touches the OS.
 */
#ifndef CONFINE_SCAN_PRE_H
#define CONFINE_SCAN_PRE_H

#include <stdint.h>
#include <time.h>

#include "host/scan.h"
#include "host/scan_cache.h"

struct cf_scan_pre;

enum cf_scan_pre_verdict {
	CF_SCAN_PRE_UNKNOWN, /* not looked at: the walk asks itself */
	CF_SCAN_PRE_SAME,    /* the record held (cf_scan_dir_unchanged) */
	CF_SCAN_PRE_CHANGED, /* it did not, or the directory could not be looked at */
};

/*
 * Looks at every directory below the record `root` of `prev` (the walk's root, open at
 * `rootfd`) that the walk will ask about, on up to four threads.  NULL (nothing looked at) when
 * the records hold fewer than budget->parallel_min_dirs directories, when this process may run
 * on one CPU only (unless parallel_min_dirs is 0: always, two threads at least), or on
 * out-of-memory: the walk then asks as before.  Stops at `deadline`
 * (the walk's own budget then fails the scan) and below budget->max_depth.
 */
struct cf_scan_pre *cf_scan_pre_run(const struct cf_scan_cache *prev, uint32_t root, int rootfd,
				    const struct cf_scan_budget *budget,
				    const struct timespec *deadline);
enum cf_scan_pre_verdict cf_scan_pre_get(const struct cf_scan_pre *p, uint32_t rec);
void cf_scan_pre_free(struct cf_scan_pre *p);

#endif
