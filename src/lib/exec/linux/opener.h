/* SPDX-License-Identifier: MIT */
/*
 * The landlock backend's opener (R36): opening a FIFO outside the writable areas and the allows
 * fails, wherever it lives.  Linux only; touches the OS.
 *
 * Landlock's read right covers FIFOs and files alike (and execve needs it), and a seccomp filter
 * sees an open's flags but not what its path names, so no rule can refuse FIFOs and keep files.
 * Every open that could read an existing FIFO (supervise_rules.c: CF_SUPERVISE_READS, or every
 * open in broker mode) therefore stops in the kernel until the opener answers it: a thread of
 * confine's that resolves the path as the command's thread would (cmdpath.c), holds the object
 * (O_PATH), decides on that object -- a FIFO is refused with EACCES unless it lies in a writable
 * area of the plan, is an anonymous pipe, or is allowed (an allow names it or its directory, or
 * it is one of the command's standard descriptors) -- and opens it itself, installing the
 * descriptor in the command (SECCOMP_IOCTL_NOTIF_ADDFD).  The kernel never resolves the
 * command's path a second time.
 *
 * An open made by confine must not bypass the command's Landlock rules.  The opener thread
 * restricts itself with the command's own ruleset before the command exists, and the command
 * is forked from that very thread (cf_supervisor_spawn) and restricts itself once more: its
 * domain lies below the opener's, with the same rules.  So every open the opener makes is
 * checked by Landlock exactly as the command's own would be, and Landlock lets the opener read
 * the command's memory and take its descriptors (a domain may trace the domains below it), but
 * never the other way round: the command can neither trace nor signal the opener, nor any
 * other thread of confine.  The opener has no capability, a fresh session keyring like the
 * command's, and its own working directory and umask.  Nothing below confine's own /proc/PID is
 * ever reached (cmdpath.c), since a thread of the same process may read it.
 *
 * What Landlock gives the opener nothing for but the supervisor would make (a new entry of a
 * split directory in a writable area, pathguard.c) goes to the supervisor, which either makes
 * it itself or answers the opener's EACCES; every other notification (metadata, ptys, connect,
 * the other path calls) goes to the supervisor as it is.
 */
#ifndef CONFINE_OPENER_H
#define CONFINE_OPENER_H

#include <stdbool.h>
#include <stddef.h>

#include "exec/linux/cmdpath.h"
#include "plan/landlock/ll_plan.h"
#include "util/util.h"

struct seccomp_notif;
struct cf_sv_policy;
struct cf_opener;

/* The identities the opener allows FIFOs by: each path of `allow` (the plan's ipc_allow,
 * opened without following a symlink; a path that is gone is left out) and each named FIFO
 * among the descriptors `stdio` (the command's 0, 1, 2; -1: none).  0 or -1 (out of memory). */
int cf_opener_idents(const struct cf_strv *allow, const int stdio[3], struct cf_guard_ident **out,
		     size_t *n);

/* A new opener for `plan`; `pol` (the supervisor's protected inodes) is read only after the
 * supervisor says it is ready.  Takes `allow` (malloc'd).  NULL when out of memory. */
struct cf_opener *cf_opener_new(const struct cf_ll_plan *plan, const struct cf_sv_policy *pol,
				struct cf_guard_ident *allow, size_t n_allow);

/* On the opener's own thread, before the command is forked from it: its own working
 * directory and umask, a fresh session keyring, no_new_privs, the command's Landlock rules.
 * 0, or -1 with errno and *what naming the step. */
int cf_opener_enter(int ruleset, const char **what);

/* On the opener's thread, once the command exists: no capability left, the directories it
 * resolves from, the command's listener.  0, or -1 (the opener then answers nothing itself:
 * every open is refused). */
int cf_opener_ready(struct cf_opener *o, int listener);

/* True for the opens the opener answers (open and openat that could read a FIFO). */
bool cf_opener_handles(const struct seccomp_notif *req);

/* Answers one notification, or leaves it to the supervisor (false): *fallback 0 to answer it
 * as usual, or the errno to answer where the supervisor does not act itself. */
bool cf_opener_answer(struct cf_opener *o, const struct seccomp_notif *req, int *fallback);

/* Ends the opens still waiting for a FIFO's writer, and frees.  Accepts NULL. */
void cf_opener_free(struct cf_opener *o);

#endif
