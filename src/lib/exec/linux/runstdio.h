/* SPDX-License-Identifier: MIT */
/*
 * The command's standard descriptors (confine_request_set_stdio).  A run never hands the
 * command this process's 0, 1 and 2 by number: confine_run_start takes a duplicate of each
 * (the request's descriptor, or this process's own when the request names none), and every
 * child (bwrap, the landlock child, the command under policy off), the pty's terminal check
 * and relay and the stderr tee use those (launch.h's stdio) instead.  A host that gives a command a
 * pipe never swaps its own descriptors, so its other threads' output and forks are not touched.
 * Linux only; touches the OS.
 */
#ifndef CONFINE_RUNSTDIO_H
#define CONFINE_RUNSTDIO_H

#include "confine.h"

/* stdio from req (the request's numbers, -1: this process's 0, 1, 2): close-on-exec
 * duplicates at 3 or above; one of this process's that is closed stays -1 (the command gets it
 * closed too).  A descriptor of the request's that is no longer open: CONFINE_E_INVALID.
 * Nothing is held when it fails. */
int cf_stdio_take(const int req[3], int stdio[3], struct confine_error *err);
/* Closes the duplicates (the end of the wait, a failed start, the run freed).  Idempotent. */
void cf_stdio_release(int stdio[3]);
/* In a child of vfork, before exec: stdio becomes 0, 1, 2 where `skip` (CF_PTY_FD bits)
 * does not say that another descriptor takes the place; one that is -1 is closed.  Only
 * system calls: async-signal-safe.  0, or -1 with errno set. */
int cf_stdio_install(const int stdio[3], unsigned skip);

#endif
