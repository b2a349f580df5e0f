/* SPDX-License-Identifier: MIT */
/*
 * The landlock backend's supervisor (SPEC 3.3, R42): one thread of confine's that answers the
 * seccomp user notifications of the command's supervised calls (supervise_rules.c).  Linux
 * only; touches the OS.
 *
 * A filter chain has one listener at most, so the supervisor holds it for every supervised
 * call: the metadata calls go to metaguard.c, connect(2) of network by domain to the connect
 * guard (connguard.c).  The thread has no capability (a root caller's changes are made with
 * the command's own rights: uid 0 without capabilities), and every decision is made on a
 * descriptor it opened, never on a path the kernel reads again.
 *
 * With plan->opener (R36) a second thread, confine's opener (opener.h), holds the listener
 * instead: it answers the opens that could read a FIFO itself, inside a Landlock domain above
 * the command's, and hands every other notification to the supervisor's thread (a pipe of
 * whole records), which answers it as above.
 */
#ifndef CONFINE_SUPERVISOR_H
#define CONFINE_SUPERVISOR_H

#include <sys/types.h>

#include "confine.h"
#include "plan/landlock/ll_plan.h"

struct cf_supervisor;
struct cf_connguard;

/*
 * Starts the thread before the command exists.  It waits on `handoff_fd` (a stream unix
 * socket, taken over) for the listener the child sends right after it loads the filter, then
 * answers every notification.  `plan` is borrowed for the supervisor's lifetime (its meta
 * table decides); `guard` (may be NULL) answers connect(2).
 */
int cf_supervisor_start(int handoff_fd, const struct cf_ll_plan *plan, struct cf_connguard *guard,
			struct cf_supervisor **out, struct confine_error *err);

/*
 * R36, with plan->opener: the command is forked from confine's opener thread (opener.h), which
 * restricts itself with `ruleset` first and then runs `spawn(arg)` (a vfork whose child
 * restricts itself again and execs the command), then answers the command's notifications,
 * handing the supervisor's thread what it does not answer itself.  Takes `allow` (the
 * identities FIFOs are allowed by, cf_opener_idents).  *pid is what spawn returned.
 */
struct cf_guard_ident;
int cf_supervisor_spawn(struct cf_supervisor *s, int ruleset, struct cf_guard_ident *allow,
			size_t n_allow, pid_t (*spawn)(void *), void *arg, pid_t *pid,
			struct confine_error *err);

/* Stops the thread and closes the listener: a notification still to come (a process that
 * outlived the run) is answered by the kernel with ENOSYS.  Accepts NULL. */
void cf_supervisor_free(struct cf_supervisor *s);

#endif
