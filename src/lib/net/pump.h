/* SPDX-License-Identifier: MIT */
/*
 * A one-way byte pump between two non-blocking stream sockets, with back-pressure and a fixed
 * buffer: splice(2) through a pipe of its own (the bytes stay in the kernel), or, where the
 * kernel refuses splice or no pipe can be had, a buffer of CF_PUMP_BUF bytes.  It reads only
 * while its buffer has room, so a slow reader stops the writer instead of growing memory.  At
 * the source's end of file it shuts the destination down for writing once everything is
 * delivered (half-close passes through).  Shared by confine's proxy and confine-init (which is
 * static and small): only libc and Linux system calls.
 */
#ifndef CONFINE_NET_PUMP_H
#define CONFINE_NET_PUMP_H

#include <stdbool.h>
#include <stddef.h>

#define CF_PUMP_BUF 65536
/* A pump that has moved CF_PUMP_BULK bytes is a bulk transfer: its pipe grows to
 * CF_PUMP_BULK_PIPE, so that each wake-up moves more.  Only then: a thousand idle tunnels keep
 * 64 KiB pipes (and within the per-user pipe quota). */
#define CF_PUMP_BULK (4u << 20)
#define CF_PUMP_BULK_PIPE (1u << 20)

struct cf_pump {
	int pipe_r, pipe_w; /* -1 in buffer mode */
	size_t cap;	    /* what the pipe or the buffer holds */
	bool grown;	    /* the pipe was enlarged for a bulk transfer */
	size_t queued;	    /* bytes in the pipe or the buffer */
	char *buf;	    /* buffer mode */
	size_t off;	    /* buffer mode: where the queued bytes start */
	bool full;	    /* the pipe took no more (its slots, not only its bytes, are used) */
	bool eof;	    /* the source ended */
	bool shut;	    /* the destination was shut down for writing: this direction is done */
	unsigned long long moved; /* bytes delivered */
};

/* Sets up a pump (a pipe, else a buffer).  Returns 0, or -1 with errno (ENOMEM). */
int cf_pump_init(struct cf_pump *p);
void cf_pump_release(struct cf_pump *p);

/*
 * Moves what it can from src to dst without blocking.  Returns 1 when bytes moved, 0 when
 * none could, -1 with errno on a hard error of either side (EPIPE, ECONNRESET...).  `src` may
 * be -1 once p->eof is set.
 */
int cf_pump_step(struct cf_pump *p, int src, int dst);

/* What to wait for: src readable, dst writable. */
bool cf_pump_wants_read(const struct cf_pump *p);
bool cf_pump_wants_write(const struct cf_pump *p);

#endif
