/* SPDX-License-Identifier: MIT */
/* The terminal side of the command's own pseudo-terminals (R42): see ptyguard.c. */
#ifndef CONFINE_PTYGUARD_H
#define CONFINE_PTYGUARD_H

#include <stdbool.h>

struct seccomp_notif;

/* True for ioctl(TIOCGPTPEER). */
bool cf_pty_handles(const struct seccomp_notif *req);

/* Answers one TIOCGPTPEER: true when the answer was sent (the descriptor installed in the
 * command with the answer); false with *error (minus an errno) for the caller to send. */
bool cf_pty_answer(int listener, const struct seccomp_notif *req, int *error);

#endif
