/* SPDX-License-Identifier: MIT */
/*
 * confine's own directories under the host's /tmp (the landlock backend's per-run TMPDIR, the
 * proxy's socket directory, the ssh-agent filter's): each is locked (flock) by the confine that
 * made it for as long as it lives, so that the next confine, of any kind, removes those of runs
 * that were killed, and only those.  Touches the OS.
 */
#ifndef CONFINE_OWNTMP_H
#define CONFINE_OWNTMP_H

#include "confine.h"

#define CF_OWNTMP_RUN "confine-run"
#define CF_OWNTMP_NET "confine-net"
#define CF_OWNTMP_AGENT "confine-agent" /* the ssh-agent filter's socket (R44) */

/* Makes /tmp/PREFIX.XXXXXX (0700) under the lock: made under a staging name, locked, then
 * renamed, so that no sweep ever sees it unlocked.  *path is the caller's (free), *lock_fd the
 * lock (a close-on-exec descriptor of the directory; closing it releases the lock).  0, or
 * CONFINE_E_OS with err filled. */
int cf_owntmp_make(const char *prefix, char **path, int *lock_fd, struct confine_error *err);

/* Removes the directory made by cf_owntmp_make and everything in it, nothing followed, through
 * its lock descriptor (another directory renamed to its name is left alone); closes lock_fd. */
void cf_owntmp_remove(const char *path, int lock_fd);

/* Removes what killed runs left under /tmp: only confine's own names (PREFIX.XXXXXX of the three
 * above, and the staging name after a minute), only directories of this user, reached and
 * emptied without following a symlink, only when no process holds their lock (and no socket in
 * them has a listener: a confine older than the lock).  Best effort, never an error. */
void cf_owntmp_sweep(void);

/* Empties the directory open at dfd (which it closes), depth first, every step relative to a
 * descriptor and nothing followed: a symlink planted there is removed, never entered. */
void cf_owntmp_empty(int dfd);

#endif
