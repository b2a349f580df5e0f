/* SPDX-License-Identifier: MIT */
/*
 * What a Linux executor holds between its calls (exec/linux/launch.h) and the command's standard
 * descriptors (runstdio.h): the launch starts holding nothing, its release closes and frees all
 * it holds and can be called again, the wake pipe of cf_launch_begin is what the signal path
 * writes to, and a signal forwarded before READY is only noted.  Real descriptors, real
 * signals to a child of the test's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec/linux/launch.h"
#include "exec/linux/runstdio.h"
#include "util/util.h"
#include "tap.h"

static bool is_open(int fd)
{
	return fd >= 0 && fcntl(fd, F_GETFD) >= 0;
}

static bool cloexec(int fd)
{
	int f = fcntl(fd, F_GETFD);
	return f >= 0 && (f & FD_CLOEXEC);
}

static bool same_file(int a, int b)
{
	struct stat x, y;
	return fstat(a, &x) == 0 && fstat(b, &y) == 0 && x.st_dev == y.st_dev &&
	       x.st_ino == y.st_ino;
}

static void init_and_release(void)
{
	struct cf_launch l;
	memset(&l, 0x5a, sizeof(l));
	cf_launch_init(&l);
	int *fds[] = {&l.status_fd, &l.err_fd, &l.info_fd,   &l.go_w,	     &l.mounts_r,
		      &l.wake_r,    &l.wake_w, &l.keeper_fd, &l.agent_dir_fd};
	bool all = true;
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		all = all && *fds[i] == -1;
	TAP_OK(all, "init: every descriptor of the launch is -1");
	TAP_OK(l.stdio[0] == -1 && l.stdio[1] == -1 && l.stdio[2] == -1,
	       "init: the command's 0, 1, 2 are -1");
	TAP_OK(l.facts.pid == -1 && l.facts.target_pidfd == -1 && !l.facts.started &&
		   !l.facts.skip && !l.facts.unsettled && !l.pty && !l.plan,
	       "init: no process, no pidfd, nothing held, nothing given");

	/* Everything the executor may hold, held. */
	int p[2][2], q[2];
	TAP_OK(pipe(p[0]) == 0 && pipe(p[1]) == 0 && pipe(q) == 0, "(setup) pipes");
	l.status_fd = p[0][0];
	l.err_fd = p[0][1];
	l.info_fd = p[1][0];
	l.go_w = p[1][1];
	l.mounts_r = q[0];
	l.facts.target_pidfd = q[1];
	l.facts.unsettled = cf_strdup("/w/moved");
	l.facts.helper_failed = cf_strdup("/w/unreachable");
	l.facts.skip = calloc(4, sizeof(bool));
	l.by_helper = calloc(4, sizeof(bool));
	TAP_OK(cf_launch_begin(&l, NULL) == 0, "begin: 0");
	int wr = l.wake_r, ww = l.wake_w;
	int held[] = {p[0][0], p[0][1], p[1][0], p[1][1], q[0], q[1], wr, ww};
	cf_launch_release(&l);
	bool closed = true;
	for (size_t i = 0; i < sizeof(held) / sizeof(held[0]); i++)
		closed = closed && !is_open(held[i]);
	TAP_OK(closed, "release: every descriptor it held is closed (pipes, pidfd, wake pipe)");
	TAP_OK(l.status_fd == -1 && l.go_w == -1 && l.mounts_r == -1 && l.wake_w == -1 &&
		   l.facts.target_pidfd == -1,
	       "release: ... and set to -1");
	TAP_OK(!l.facts.unsettled && !l.facts.helper_failed && !l.facts.skip && !l.by_helper,
	       "release: its strings and tables are freed and NULL");
	/* A number the launch no longer holds may be another's now: a second release must not
	 * close it. */
	int other = open("/dev/null", O_RDONLY);
	cf_launch_release(&l);
	TAP_OK(is_open(other), "release again: nothing closed twice (idempotent)");
	close(other);
}

static void wake_pipe(void)
{
	struct cf_launch l;
	cf_launch_init(&l);
	TAP_OK(cf_launch_begin(&l, NULL) == 0, "begin: 0");
	TAP_OK(l.start_time.tv_sec || l.start_time.tv_nsec, "begin: the start time is taken");
	TAP_OK(cloexec(l.wake_r) && cloexec(l.wake_w), "begin: the wake pipe is close-on-exec");
	TAP_OK((fcntl(l.wake_r, F_GETFL) & O_NONBLOCK) && (fcntl(l.wake_w, F_GETFL) & O_NONBLOCK),
	       "begin: ... and non-blocking (a signal handler never waits on it)");
	char c;
	errno = 0;
	TAP_OK(read(l.wake_r, &c, 1) < 0 && errno == EAGAIN, "begin: nothing in it yet");

	/* Before READY a signal is only noted (pid 1 would ignore it), and the loop woken. */
	cf_launch_forward_signal(&l, SIGTERM);
	TAP_INTEQ(l.pending_sig, SIGTERM, "before READY: the signal is noted");
	TAP_OK(read(l.wake_r, &c, 1) == 1, "before READY: the wait loop is woken");
	TAP_OK(!l.end_requested, "before READY: no end asked yet (the wait loop decides)");
	/* SIGWINCH is the relay's: without a pty nothing is noted. */
	l.pending_sig = 0;
	cf_launch_forward_signal(&l, SIGWINCH);
	errno = 0;
	TAP_OK(l.pending_sig == 0 && read(l.wake_r, &c, 1) < 0 && errno == EAGAIN,
	       "SIGWINCH without a pty: nothing noted, nothing woken");

	/* After READY: to the target; one SIGINT is the command's, the second asks the end. */
	/* The child ignores SIGINT from its first instruction on (inherited, no race with the
	 * first signal) and takes SIGTERM's default. */
	void (*was)(int) = signal(SIGINT, SIG_IGN);
	pid_t child = fork();
	if (child == 0) {
		signal(SIGTERM, SIG_DFL);
		for (;;)
			pause();
	}
	signal(SIGINT, was);
	l.ready = 1;
	l.facts.target_pid = child;
	cf_launch_forward_signal(&l, SIGINT);
	TAP_OK(!l.end_requested, "after READY: one SIGINT is the command's to catch");
	cf_launch_forward_signal(&l, SIGINT);
	TAP_OK(l.end_requested && l.sigints == 2, "after READY: the second asks for the end");
	cf_launch_forward_signal(&l, SIGTERM);
	int st = 0;
	TAP_OK(waitpid(child, &st, 0) == child && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM,
	       "after READY: SIGTERM reaches the target (killed by it)");
	cf_launch_release(&l);
}

static void stdio(void)
{
	int s[3] = {-1, -1, -1};
	TAP_OK(cf_stdio_take((const int[3]){-1, -1, -1}, s, NULL) == 0, "take: this process's");
	bool ok = true;
	for (int i = 0; i < 3; i++)
		ok = ok && s[i] >= 3 && cloexec(s[i]) && same_file(s[i], i);
	TAP_OK(ok, "take: duplicates of 0, 1, 2 at 3 or above, close-on-exec");
	int keep[3] = {s[0], s[1], s[2]};
	cf_stdio_release(s);
	TAP_OK(s[0] == -1 && s[1] == -1 && s[2] == -1 && !is_open(keep[0]) && !is_open(keep[2]),
	       "release: closed and -1");
	cf_stdio_release(s);
	TAP_OK(s[0] == -1, "release again: idempotent");

	int p[2];
	TAP_OK(pipe(p) == 0, "(setup) pipe");
	TAP_OK(cf_stdio_take((const int[3]){-1, p[1], -1}, s, NULL) == 0 && same_file(s[1], p[1]) &&
		   s[1] != p[1],
	       "take: the request's descriptor, duplicated");
	cf_stdio_release(s);
	close(p[0]);
	close(p[1]);
	struct confine_error e = {0};
	TAP_INTEQ(cf_stdio_take((const int[3]){p[1], -1, -1}, s, &e), CONFINE_E_INVALID,
		  "take: a request's descriptor that is closed: CONFINE_E_INVALID");
	TAP_OK(s[0] == -1 && s[1] == -1 && s[2] == -1, "take: ... and nothing is held");
	TAP_STREQ(e.subject, "stdin", "take: ... naming which");
}

int main(void)
{
	init_and_release();
	wake_pipe();
	stdio();
	return tap_done();
}
