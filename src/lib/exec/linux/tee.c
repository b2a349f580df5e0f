/* SPDX-License-Identifier: MIT */
/*
 * One buffer: it is filled from the pipe only when empty and emptied into confine's stderr only
 * when poll says a write will not block, so the command is never held up by anything but the
 * reader of stderr itself, which would hold it up just the same without the tee.  Bytes are
 * neither reordered nor transformed.  A write to a pipe after POLLOUT never blocks when it is
 * at most PIPE_BUF bytes; a regular file or a terminal takes the whole buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "exec/linux/tee.h"
#include "exec/linux/launch.h"
#include "util/util.h"

void cf_tee_init(struct cf_tee *t, int in, int out, struct cf_denials *scan)
{
	struct stat st;
	t->in = in;
	t->out = out;
	t->out_pipe = fstat(out, &st) < 0 || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
	t->out_gone = false;
	t->in_eof = false;
	t->scan = scan;
	t->off = t->len = 0;
}

short cf_tee_in_events(const struct cf_tee *t)
{
	return t->in >= 0 && !t->in_eof && t->off == t->len ? POLLIN : 0;
}

short cf_tee_out_events(const struct cf_tee *t)
{
	return t->off < t->len ? POLLOUT : 0;
}

void cf_tee_read(struct cf_tee *t)
{
	if (t->off < t->len || t->in_eof)
		return;
	ssize_t k = read(t->in, t->buf, sizeof(t->buf));
	if (k < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (k <= 0) {
		t->in_eof = true;
		return;
	}
	t->off = 0;
	t->len = (size_t)k;
	if (t->scan)
		cf_denials_feed(t->scan, t->buf, t->len);
	if (t->out_gone)
		t->off = t->len; /* nobody reads confine's stderr any more: drop, keep draining */
}

/*
 * A write to a stderr whose reader has gone raises SIGPIPE, which would kill the host process
 * (the library must never do that): it is blocked for the write and a SIGPIPE this write caused
 * is taken back before it is unblocked.
 */
static ssize_t write_nosigpipe(int fd, const void *buf, size_t n)
{
	sigset_t pipe_set, old, pending;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigpending(&pending);
	bool was_pending = sigismember(&pending, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	ssize_t k = write(fd, buf, n);
	int e = errno;
	if (k < 0 && e == EPIPE && !was_pending) {
		struct timespec zero = {0, 0};
		while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return k;
}

void cf_tee_write(struct cf_tee *t)
{
	if (t->off >= t->len)
		return;
	size_t n = t->len - t->off;
	if (t->out_pipe && n > PIPE_BUF)
		n = PIPE_BUF;
	ssize_t k = write_nosigpipe(t->out, t->buf + t->off, n);
	if (k < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (k <= 0) {
		t->out_gone = true;
		t->off = t->len;
		return;
	}
	t->off += (size_t)k;
}

void cf_tee_drain(struct cf_tee *t)
{
	for (;;) {
		while (t->off < t->len) {
			struct pollfd p = {.fd = t->out, .events = POLLOUT};
			if (poll(&p, 1, -1) < 0 && errno != EINTR)
				t->out_gone = true, t->off = t->len;
			else
				cf_tee_write(t);
		}
		if (t->in < 0 || t->in_eof)
			break;
		cf_tee_read(t);
		if (t->off == t->len && !t->in_eof)
			break; /* EAGAIN: nothing left that the command wrote */
	}
	if (t->scan)
		cf_denials_finish(t->scan);
}

/* A pipe for the command's stderr: the write end (at fd 3 or above, close-on-exec until the
 * keep list hands it to bwrap, or the landlock child makes it fd 2) goes to the helper, the
 * read end stays with the wait loop. */
int cf_open_tee(const struct cf_launch_tee *t, int stderr_fd, int *write_end,
		struct confine_error *err)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return cf_err_os(err, CONFINE_E_OS, "cannot start the sandbox", "stderr", "pipe2",
				 errno);
	/* The command's end blocks like any stderr would; only confine's end is non-blocking. */
	int w = fcntl(p[1], F_DUPFD_CLOEXEC, 3);
	close(p[1]);
	if (w < 0 || fcntl(w, F_SETFL, 0) < 0) {
		int e = errno;
		close(p[0]);
		if (w >= 0)
			close(w);
		return cf_err_os(err, CONFINE_E_OS, "cannot start the sandbox", "stderr", "fcntl",
				 e);
	}
	if (!*t->tee && !(*t->tee = malloc(sizeof(**t->tee)))) {
		close(p[0]);
		close(w);
		return cf_nomem(err);
	}
	if (*t->fd >= 0)
		close(*t->fd);
	if (*t->out >= 0)
		close(*t->out);
	*t->fd = p[0];
	/* The bytes go to the command's stderr (confine_request_set_stdio's, or this process's 2
	 * as it was at the start): a copy of the run's duplicate, let go at the end of the wait.
	 * No stderr (-1): dropped. */
	*t->out = stderr_fd >= 0 ? fcntl(stderr_fd, F_DUPFD_CLOEXEC, 3) : -1;
	cf_tee_init(*t->tee, p[0], *t->out, t->scan);
	*write_end = w;
	return 0;
}
