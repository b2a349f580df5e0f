/* SPDX-License-Identifier: MIT */
/* Running a helper program with its output captured and a time limit (for the probe). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/capture.h"
#include "util/util.h"

static int64_t monotonic_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---------------------------------------------------------------------------------------- */
/* Running bwrap.                                                                           */

/* One read from whichever pipe is ready; a pipe at EOF is closed and set to -1. */
static void drain(int out[2], int ep[2], struct cf_capture *c)
{
	struct pollfd pf[2] = {{.fd = out[0], .events = POLLIN}, {.fd = ep[0], .events = POLLIN}};
	if (poll(pf, 2, 0) <= 0)
		return;
	if (pf[0].revents) {
		char sink[4096];
		size_t room = sizeof(c->out) - 1 - c->len;
		ssize_t r = read(out[0], room ? c->out + c->len : sink, room ? room : sizeof(sink));
		if (r > 0 && room)
			c->len += (size_t)r;
		else if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
			close(out[0]), out[0] = -1;
	}
	if (pf[1].revents) {
		int e = 0;
		ssize_t r = read(ep[0], &e, sizeof(e));
		if (r == (ssize_t)sizeof(e))
			c->exec_errno = e;
		if (r != -1 || errno != EINTR)
			close(ep[0]), ep[0] = -1;
	}
}

/* Runs argv[0] with stdout and stderr captured, killing its process group after timeout_ms.
 * Returns CF_RUN_DONE, CF_RUN_TIMEOUT or a negative code. */
int cf_run_capture(const char *const *argv, int timeout_ms, struct cf_capture *c,
		   struct confine_error *err)
{
	/* A fixed environment: LC_ALL=C keeps bwrap's messages in English for the classifier. */
	static const char *const envp[] = {"LC_ALL=C", "PATH=/usr/bin:/bin", NULL};
	int out[2] = {-1, -1}, ep[2] = {-1, -1}, devnull = -1, pidfd = -1, ret = 0;
	pid_t pid = -1;
	sigset_t empty;

	c->len = 0;
	c->out[0] = '\0';
	c->status = 0;
	c->exec_errno = 0;
	sigemptyset(&empty);
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(ep, O_CLOEXEC) != 0) {
		ret = cf_err_os(err, CONFINE_E_OS, "cannot probe bwrap", argv[0], "pipe2", errno);
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		ret = cf_err_os(err, CONFINE_E_OS, "cannot probe bwrap", argv[0], "fork", errno);
		goto out;
	}
	if (pid == 0) {
		/* Child: async-signal-safe calls only.  Own process group, so that a timeout kills
		 * whatever a hung bwrap (or an impostor script) started. */
		int e;
		setpgid(0, 0);
		sigprocmask(SIG_SETMASK, &empty, NULL);
		if (dup2(devnull, 0) < 0 || dup2(out[1], 1) < 0 || dup2(out[1], 2) < 0)
			goto child_fail;
#ifdef SYS_close_range
		/* Nothing of the caller's leaks into bwrap; CLOSE_RANGE_CLOEXEC = 1 << 2. */
		syscall(SYS_close_range, 3U, ~0U, 1U << 2);
#endif
		execve(argv[0], (char *const *)argv, (char *const *)envp);
	child_fail:
		e = errno;
		(void)!write(ep[1], &e, sizeof(e));
		_exit(127);
	}
	/* Also from the parent, so that a timeout right after fork still finds the group. */
	setpgid(pid, pid);
	close(out[1]);
	close(ep[1]);
	out[1] = ep[1] = -1;

#ifdef SYS_pidfd_open
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	int64_t deadline = monotonic_ms() + timeout_ms;
	bool timed_out = false;
	/* Read until the process is reaped, not until EOF: a grandchild holding the pipe after
	 * bwrap exited must not hold the probe.  A pidfd wakes us at the exit; without one (kernels
	 * before 5.3), poll in 1 ms slices. */
	while (pid > 0) {
		int64_t left = deadline - monotonic_ms();
		if (left <= 0) {
			timed_out = true;
			break;
		}
		struct pollfd pf[3] = {{.fd = out[0], .events = POLLIN},
				       {.fd = ep[0], .events = POLLIN},
				       {.fd = pidfd, .events = POLLIN}};
		int n = poll(pf, 3, pidfd >= 0 ? (int)left : 1);
		if (n < 0 && errno != EINTR) {
			ret = cf_err_os(err, CONFINE_E_OS, "cannot probe bwrap", argv[0], "poll",
					errno);
			goto out;
		}
		if (n > 0 && (pf[0].revents || pf[1].revents))
			drain(out, ep, c);
		pid_t w = waitpid(pid, &c->status, WNOHANG);
		if (w == pid) {
			pid = -1;
		} else if (w < 0 && errno != EINTR) {
			ret = cf_err_os(err, CONFINE_E_OS, "cannot probe bwrap", argv[0], "waitpid",
					errno);
			pid = -1;
			goto out;
		}
	}
	/* What the process wrote before it exited is still in the pipes; a grandchild that keeps
	 * writing is cut off at the deadline. */
	while (!timed_out && (out[0] >= 0 || ep[0] >= 0) && monotonic_ms() < deadline) {
		struct pollfd pf[2] = {{.fd = out[0], .events = POLLIN},
				       {.fd = ep[0], .events = POLLIN}};
		if (poll(pf, 2, 0) <= 0)
			break;
		drain(out, ep, c);
	}
	c->out[c->len] = '\0';
	if (timed_out && ret == 0)
		ret = CF_RUN_TIMEOUT;
out:
	if (pid > 0) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		while (waitpid(pid, &c->status, 0) < 0 && errno == EINTR)
			;
	}
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (ep[i] >= 0)
			close(ep[i]);
	}
	if (devnull >= 0)
		close(devnull);
	if (pidfd >= 0)
		close(pidfd);
	return ret;
}
