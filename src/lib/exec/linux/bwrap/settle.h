/* SPDX-License-Identifier: MIT */
/*
 * R34: the protections land where the plan put them.  bwrap resolves every mount destination
 * by path while it sets the sandbox up; another process (a second sandbox in the same
 * workspace, with other rules) that swaps directories meanwhile can make a hiding mount land on
 * a decoy while the real secret comes back beside it.  So the identity of every protected path
 * inside writable host content, and of each of its ancestors up to the writable root, is
 * recorded when the plan is made and checked again once bwrap is done and before the command
 * starts, together with the sandbox's own mount table.  Touches the OS (lstat, /proc).
 */
#ifndef CONFINE_SETTLE_H
#define CONFINE_SETTLE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "plan/bwrap/plan.h"

/* An identity: the device, the inode and the file type (an inode number is reused at once by
 * the next file created, so a symlink replaced by a file can keep it); a symlink's target too. */
struct cf_ident {
	char *path;
	uint64_t dev, ino;
	enum cf_kind kind; /* CF_KIND_MISSING when it was not there */
	char *link;
	/* R40: a file public by content: its size and timestamps must be the ones it was
	 * classified with too (a write keeps the inode) */
	bool stamped;
	uint64_t size;
	int64_t mtime, ctime;
};

struct cf_idents {
	struct cf_ident *v;
	size_t n, cap;
};

void cf_idents_release(struct cf_idents *ids);

/*
 * Records the identities of the plan's guarded mounts and their ancestors as they are now.
 * Glob matches are first compared with what the scan saw (launch): a path whose object changed
 * since the scan is named in *changed (a malloc'd copy) and 1 is returned, so that the caller
 * plans again.  0 when recorded, CONFINE_E_NOMEM on allocation failure.
 */
int cf_idents_record(const struct cf_plan *plan, const struct cf_matches *launch,
		     struct cf_idents *out, char **changed);
/* The same, with the identities given by `ident` (returns false for a missing path, with
 * *dev = *ino = 0): the planner's memo of what it looked at (host/kind_memo.h), so that the
 * identities recorded are the ones the plan was made from, without asking again. */
int cf_idents_record_with(const struct cf_plan *plan, const struct cf_matches *launch,
			  bool (*ident)(void *ctx, const char *path, uint64_t *dev, uint64_t *ino,
					enum cf_kind *kind),
			  void *ctx, struct cf_idents *out, char **changed);

/*
 * After bwrap has set the sandbox up (the helper of host pid `pid` reported READY and waits):
 * every guarded mount and pin that was launched (skip[i] false) is a mount point in the
 * sandbox's mount table, and every recorded identity is unchanged, read in the order mount
 * table, identities, mount table, so that a swap and a swap back between two reads is seen.
 * Returns true when settled; false with the path that differs in `changed` (the caller's).
 */
#define CF_SETTLE_PATH 4096
bool cf_settled(const struct cf_plan *plan, const bool *skip, const struct cf_idents *ids,
		pid_t pid, char changed[CF_SETTLE_PATH]);

/* R40: records the identity and timestamps each public match of m (m->pub) was classified
 * with, so that a file changed since (a key written into a certificate bundle) is seen before
 * the command starts and the run is planned again.  0 or CONFINE_E_NOMEM. */
int cf_idents_record_public(const struct cf_matches *m, struct cf_idents *out);

/* Records the identity of each of `paths` as it is now (a missing one as 0, 0); 0 or
 * CONFINE_E_NOMEM. */
int cf_idents_record_paths(const struct cf_strv *paths, struct cf_idents *out);

/* Whether ids->v[i] still has its recorded identity. */
bool cf_ident_same(const struct cf_ident *id);

/* Removes what bwrap created on the host for a launch that did not settle (see settle.c). */
void cf_settle_cleanup(const struct cf_plan *plan, const struct cf_idents *ids, time_t since);

#endif
