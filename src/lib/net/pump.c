/* SPDX-License-Identifier: MIT */
/* The one-way byte pump (see pump.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/pump.h"

int cf_pump_init(struct cf_pump *p)
{
	int fds[2];
	memset(p, 0, sizeof(*p));
	p->pipe_r = p->pipe_w = -1;
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0) {
		p->pipe_r = fds[0];
		p->pipe_w = fds[1];
		int sz = fcntl(fds[0], F_GETPIPE_SZ);
		p->cap = sz > 0 ? (size_t)sz : CF_PUMP_BUF;
		return 0;
	}
	p->cap = CF_PUMP_BUF;
	/* Out of descriptors or over the pipe quota: a buffer does the same, with a copy. */
	p->buf = malloc(CF_PUMP_BUF);
	return p->buf ? 0 : -1;
}

void cf_pump_release(struct cf_pump *p)
{
	if (p->pipe_r >= 0)
		close(p->pipe_r);
	if (p->pipe_w >= 0)
		close(p->pipe_w);
	free(p->buf);
	p->pipe_r = p->pipe_w = -1;
	p->buf = NULL;
}

/* From a pipe to a buffer when the kernel refuses to splice these descriptors (EINVAL): the
 * bytes already in the pipe are taken along. */
static int fall_back(struct cf_pump *p)
{
	char *b = malloc(p->queued > CF_PUMP_BUF ? p->queued : CF_PUMP_BUF);
	if (!b)
		return -1;
	size_t got = 0;
	while (got < p->queued) {
		ssize_t k = read(p->pipe_r, b + got, p->queued - got);
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(p->pipe_r);
	close(p->pipe_w);
	p->pipe_r = p->pipe_w = -1;
	p->buf = b;
	p->off = 0;
	p->queued = got;
	p->full = false;
	p->cap = CF_PUMP_BUF;
	return 0;
}

static bool transient(int e)
{
	return e == EAGAIN || e == EWOULDBLOCK || e == EINTR;
}

static int step_splice(struct cf_pump *p, int src, int dst)
{
	int moved = 0;
	if (!p->grown && p->moved >= CF_PUMP_BULK) {
		/* Best effort: over the pipe quota the pipe simply stays as it is. */
		p->grown = true;
		int sz = fcntl(p->pipe_w, F_SETPIPE_SZ, (int)CF_PUMP_BULK_PIPE);
		if (sz > 0)
			p->cap = (size_t)sz;
	}
	for (int rounds = 0; rounds < 16; rounds++) {
		bool progress = false;
		if (!p->eof && !p->full && p->queued < p->cap) {
			ssize_t k = splice(src, NULL, p->pipe_w, NULL, p->cap - p->queued,
					   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
			if (k > 0) {
				p->queued += (size_t)k;
				progress = true;
			} else if (k == 0) {
				p->eof = true;
				progress = true;
			} else if (errno == EINVAL) {
				if (fall_back(p) < 0)
					return -1;
				return moved;
			} else if (transient(errno)) {
				/* Either src has nothing, or the pipe's slots are used up even
				 * though its bytes are not: only a drain can tell. */
				if (p->queued)
					p->full = true;
			} else {
				return -1;
			}
		}
		if (p->queued) {
			/* Never SPLICE_F_MORE: TCP would hold a small write back (as with
			 * MSG_MORE) waiting for bytes that may never come. */
			ssize_t k = splice(p->pipe_r, NULL, dst, NULL, p->queued,
					   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
			if (k > 0) {
				p->queued -= (size_t)k;
				p->moved += (unsigned long long)k;
				p->full = false;
				progress = true;
				moved = 1;
			} else if (k < 0 && errno == EINVAL) {
				if (fall_back(p) < 0)
					return -1;
				return moved;
			} else if (k < 0 && !transient(errno)) {
				return -1;
			}
		}
		if (!progress)
			break;
	}
	return moved;
}

static int step_buffer(struct cf_pump *p, int src, int dst)
{
	int moved = 0;
	for (int rounds = 0; rounds < 16; rounds++) {
		bool progress = false;
		if (!p->eof && p->queued == 0) {
			ssize_t k = read(src, p->buf, CF_PUMP_BUF);
			if (k > 0) {
				p->off = 0;
				p->queued = (size_t)k;
				progress = true;
			} else if (k == 0) {
				p->eof = true;
				progress = true;
			} else if (!transient(errno)) {
				return -1;
			}
		}
		if (p->queued) {
			ssize_t k = send(dst, p->buf + p->off, p->queued, MSG_NOSIGNAL);
			if (k > 0) {
				p->off += (size_t)k;
				p->queued -= (size_t)k;
				p->moved += (unsigned long long)k;
				progress = true;
				moved = 1;
			} else if (k < 0 && !transient(errno)) {
				return -1;
			}
		}
		if (!progress)
			break;
	}
	return moved;
}

int cf_pump_step(struct cf_pump *p, int src, int dst)
{
	if (p->shut)
		return 0;
	int r = p->pipe_r >= 0 ? step_splice(p, src, dst) : step_buffer(p, src, dst);
	if (r < 0)
		return -1;
	/* A splice that fell back to the buffer goes on with it at once. */
	if (r == 0 && p->buf && p->pipe_r < 0 && !p->eof)
		r = step_buffer(p, src, dst);
	if (r < 0)
		return -1;
	if (p->eof && p->queued == 0 && !p->shut) {
		p->shut = true;
		if (shutdown(dst, SHUT_WR) < 0 && errno != ENOTCONN)
			return -1;
		r = 1;
	}
	return r;
}

bool cf_pump_wants_read(const struct cf_pump *p)
{
	if (p->eof || p->shut)
		return false;
	return p->pipe_r >= 0 ? !p->full && p->queued < p->cap : p->queued == 0;
}

bool cf_pump_wants_write(const struct cf_pump *p)
{
	return !p->shut && p->queued > 0;
}
