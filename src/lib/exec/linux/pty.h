/* SPDX-License-Identifier: MIT */
/*
 * A terminal of the command's own (R41).  When confine's stdin, stdout or stderr is a terminal
 * (or the caller asks for it), the command gets a pseudo-terminal instead, which confine
 * relays: the user's keys (Ctrl-C, Ctrl-Z and all) go to the pty, whose line discipline turns
 * them into signals for the command's foreground job; the pty's output goes to the user's
 * terminal; window-size changes follow.  The user's terminal is never the command's: TIOCSTI,
 * TIOCLINUX, tcsetattr or a read from a process left behind reach only the pty, which hangs
 * up when confine closes it.
 *
 * Which pty: under bwrap, one of the sandbox's own devpts instance (bwrap --dev mounts a new
 * one), opened by confine-init before the command starts and handed to confine over a unix
 * socket; its slave is /dev/pts/N inside the sandbox (ttyname works) and there is no node of
 * it on the host.  Under landlock, one of the host's /dev/ptmx, opened here.
 */
#ifndef CONFINE_PTY_H
#define CONFINE_PTY_H

#include <poll.h>
#include <stdbool.h>

#include "confine.h"
#include "record/denials.h"

struct cf_pty;

/* The pollfd entries cf_pty_poll fills. */
#define CF_PTY_NFDS 4

/* The command's descriptors 0, 1, 2 that are the pty: bit N for descriptor N. */
#define CF_PTY_FD(n) (1U << (n))

/*
 * Decides whether the run gets a pty: mode CONFINE_TTY_ON, or AUTO and one of the command's
 * descriptors `stdio` (the launch's stdio: what it gets as 0, 1, 2, -1 when closed) is a terminal;
 * the relay reads and writes those, never this process's 0, 1, 2.  *out is NULL when it does not.
 * `scan` (may be NULL) sees the pty's output as it would have seen stderr (SPEC 7.3).  The
 * descriptors stay the caller's.  Touches the OS (isatty).
 */
int cf_pty_new(enum confine_tty mode, const int stdio[3], struct cf_denials *scan,
	       struct cf_pty **out, struct confine_error *err);
/* Restores the user's terminal, closes the pty.  Accepts NULL. */
void cf_pty_free(struct cf_pty *p);

/* Which of the command's descriptors 0, 1, 2 are the pty (CF_PTY_FD bits); 0 for NULL. */
unsigned cf_pty_mask(const struct cf_pty *p);

/* landlock: a pty of the host's /dev/ptmx; *slave (close-on-exec) goes to the child, which
 * makes it its controlling terminal.  Touches the OS. */
int cf_pty_open_host(struct cf_pty *p, int *slave, struct confine_error *err);

/* bwrap: a socket pair; *helper_end (close-on-exec, at 3 or above) goes to confine-init,
 * which sends the master of the sandbox's pty back on it.  Called again for a new launch. */
int cf_pty_channel(struct cf_pty *p, int *helper_end, struct confine_error *err);
/* bwrap, once confine-init said READY: takes the master it sent (checked to be a pty master),
 * puts the user's terminal settings and window size on it.  The command has not started.
 * Returns 0, or CONFINE_E_SPAWN (err says why).  Touches the OS. */
int cf_pty_receive(struct cf_pty *p, struct confine_error *err);

/* The relay, in the wait loop: fills CF_PTY_NFDS entries (fd -1 where nothing is to be done),
 * then moves what poll said can move.  Never blocks.  Both accept NULL. */
void cf_pty_poll(struct cf_pty *p, struct pollfd *fds);
void cf_pty_pump(struct cf_pty *p, const struct pollfd *fds);

/* SIGWINCH (the window changed) and SIGCONT (confine was continued, maybe in the foreground
 * now): noted here, acted on in cf_pty_tick.  True when p took the signal.  Async-signal
 * safe. */
bool cf_pty_note_signal(struct cf_pty *p, int sig);
/* Applies what cf_pty_note_signal noted: the new window size goes to the pty (the kernel
 * tells the command's foreground job), raw mode is set again in the foreground. */
void cf_pty_tick(struct cf_pty *p);

/*
 * R43's asker (confine_request_set_net_ask) reads the user's terminal too: the asker to hand to
 * the proxy instead of fn, which calls fn while the relay reads no key and the terminal is in
 * its own mode (the relay takes it back after the answer).  *user_out is its argument.  Without
 * a pty (p NULL) or an asker (fn NULL): fn and user as they are.
 */
confine_net_ask_fn cf_pty_asker(struct cf_pty *p, confine_net_ask_fn fn, void *user,
				void **user_out);

/* After the command ended: the pty's last output, up to its hang-up (bounded when a process
 * left behind still holds it), then the user's terminal as it was. */
void cf_pty_finish(struct cf_pty *p);

/* The user's terminal as it was before the relay.  Async-signal safe (a handler of a fatal
 * signal may call it). */
void cf_pty_restore(struct cf_pty *p);

#endif
