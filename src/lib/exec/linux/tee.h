/* SPDX-License-Identifier: MIT */
/*
 * The stderr tee (SPEC 7.3): the sandboxed command's stderr is a pipe that confine's wait loop
 * copies to confine's own stderr, byte for byte and in order, while the denial scanner looks at
 * the lines.  It is there only when a report, an audit log or the caller asks for denial paths;
 * otherwise the command inherits stderr and nothing of this runs.
 */
#ifndef CONFINE_TEE_H
#define CONFINE_TEE_H

#include <stdbool.h>
#include <stddef.h>

#include "record/denials.h"

#define CF_TEE_BUF 65536

struct cf_tee {
	int in;	       /* read end of the command's stderr pipe (non-blocking) */
	int out;       /* where the bytes go: confine's stderr */
	bool out_pipe; /* out is a pipe or socket: write at most PIPE_BUF after POLLOUT */
	bool out_gone; /* out refused a write (EPIPE...): stop copying, as the command's own
			* write would have failed */
	bool in_eof;
	struct cf_denials *scan;
	size_t off, len; /* pending bytes buf[off, len) */
	char buf[CF_TEE_BUF];
};

void cf_tee_init(struct cf_tee *t, int in, int out, struct cf_denials *scan);
/* What to poll for: POLLIN on in while nothing is pending, POLLOUT on out while something
 * is; 0 when not. */
short cf_tee_in_events(const struct cf_tee *t);
short cf_tee_out_events(const struct cf_tee *t);
/* After poll said so: one read, or one write.  Never blocks. */
void cf_tee_read(struct cf_tee *t);
void cf_tee_write(struct cf_tee *t);
/* After the command ended: copies everything still in the pipe (waiting for out to take it,
 * never for more input) and ends the last line. */
void cf_tee_drain(struct cf_tee *t);

struct confine_error;
struct cf_launch_tee;
/* The stderr tee's pipe of a launch (launch.h): the wait loop holds the read end (*t->fd),
 * the bytes go to a duplicate of stderr_fd (*t->out; -1: dropped), *write_end (close-on-exec,
 * at fd 3 or above) becomes the command's stderr. */
int cf_open_tee(const struct cf_launch_tee *t, int stderr_fd, int *write_end,
		struct confine_error *err);

#endif
