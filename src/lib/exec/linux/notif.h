/* SPDX-License-Identifier: MIT */
/*
 * The seccomp user notification, one of each: what every guard that answers a listener does
 * (the connect guard, the landlock supervisor and its opener, the path, metadata and pty
 * answers, confine-init's IPC guard).  The decision stays with each guard; here is only how a
 * notification is waited for, taken, checked to be still pending and answered.  No
 * allocation, nothing but libc and fdpass.c: confine-init links it too.  Linux only.
 */
#ifndef CONFINE_NOTIF_H
#define CONFINE_NOTIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct seccomp_notif;
struct seccomp_notif_resp;

/* The sizes to allocate for struct seccomp_notif and its answer: the kernel writes its own
 * size of them, which may be larger than ours (never smaller: ours where it cannot say).
 * resp_size may be NULL (an answer made on the stack is never larger than ours). */
void cf_notif_sizes(size_t *req_size, size_t *resp_size);

/* The child's side, once its filter is loaded: sends `listener` on `sock` (again on EINTR).
 * Async-signal-safe (a vfork child); 0 or -1 with errno. */
int cf_notif_send_listener(int sock, int listener);
/* The listener a child sends on `sock` right after it loads its filter (cf_fd_recv, again on
 * EINTR): the descriptor, or -1 when it sent none (it failed before; its record says why). */
int cf_notif_recv_listener(int sock);

/* The guard's thread runs on the CPU of the thread that waits (Linux 6.6): a notification
 * costs a switch, not a wake-up on another core.  Older kernels refuse it: nothing changes. */
void cf_notif_sync_wake(int listener);

/* Waits until `wake` is readable (false: stop) or `*fd` has something to read (true).  A
 * hang-up on *fd (every process under the filter is gone) sets *fd to -1, and the wait goes
 * on for `wake` alone. */
bool cf_notif_wait(int wake, int *fd);

/* Takes the next notification into `req` (`size` bytes, cleared first): whether one came. */
bool cf_notif_recv(int listener, struct seccomp_notif *req, size_t size);

/* Whether the command's thread still waits for the answer to `id`: alive, so neither its pid
 * nor its memory can have been reused since the notification came. */
bool cf_notif_pending(int listener, uint64_t id);

/* Sends the answer (again on EINTR).  ENOENT, the thread was killed meanwhile, is ignored:
 * nothing is left to answer. */
void cf_notif_send(int listener, struct seccomp_notif_resp *resp);
/* Answers `id` with `error` (0 or minus an errno), the call's value 0. */
void cf_notif_send_error(int listener, uint64_t id, int error);

/* Installs our descriptor `fd` in the command and answers `id` with its number in one call
 * (SECCOMP_ADDFD_FLAG_SEND; once, never again on EINTR), with `newfd_flags` (0 or O_CLOEXEC): 0 or
 * minus the errno (ENOENT: the thread is gone; EMFILE: the command's descriptor limit).  `fd` stays
 * open.  When it fails, `id` is still unanswered. */
int cf_notif_addfd(int listener, uint64_t id, int fd, unsigned newfd_flags);
/* cf_notif_addfd, and where that fails but the thread still waits, the answer is its errno;
 * `fd` is closed. */
void cf_notif_send_fd(int listener, uint64_t id, int fd, bool cloexec);

#endif
