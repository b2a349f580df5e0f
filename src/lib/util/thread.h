/* SPDX-License-Identifier: MIT */
/*
 * The one way confine starts a thread: with every signal blocked, so that the process's signals
 * (SIGINT, SIGTERM, SIGCHLD, SIGWINCH: what the host's handlers and confine's wait expect) are
 * taken by the threads that were there before, never by a proxy, guard or resolver thread that
 * would not know them.  The caller's own mask is as it was afterwards.  POSIX threads; plain
 * libc, so that confine-init links it too.
 */
#ifndef CONFINE_UTIL_THREAD_H
#define CONFINE_UTIL_THREAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* fn(arg) on a new thread whose signal mask is full.  `stack`: its stack size in bytes (0: the
 * default); `detached`: nobody joins it (then `thread` may be NULL).  0, or pthread_create's
 * error number (EAGAIN, ...); the thread's id in *thread on success. */
int cf_thread_start(pthread_t *thread, size_t stack, bool detached, void *(*fn)(void *), void *arg);

#endif
