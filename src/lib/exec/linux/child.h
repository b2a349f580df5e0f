/* SPDX-License-Identifier: MIT */
/*
 * What every child of vfork (or of the sanitizer builds' fork) that the Linux executors start
 * does about signals: the parent blocks every signal around the vfork, so that no handler of
 * confine's can run on the memory the child shares; the child puts the dispositions confine
 * changed back to their defaults, then unblocks.  The vfork itself stays in each caller (a child
 * of vfork must not return from the function that called vfork).  Async-signal-safe.
 */
#ifndef CONFINE_EXEC_CHILD_H
#define CONFINE_EXEC_CHILD_H

#include <signal.h>

/* Blocks every signal in the calling thread; the mask before goes to *old.  Also before the
 * executors' other children (the keeper's fork, the mask maker's clone). */
void cf_child_block_all(sigset_t *old);
/* In the parent, once the child exists (or could not be made): the mask of before back; errno
 * is kept, so that a failed vfork's stays for the caller. */
void cf_child_unblock(const sigset_t *old);
/* In the child: the dispositions confine sets (SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT,
 * SIGCHLD) back to SIG_DFL, then no signal blocked. */
void cf_child_signals_default(void);

#endif
