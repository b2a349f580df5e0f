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

/* The child between fork and exec: async-signal-safe calls only, on what the parent prepared.
 * Its own process group, so that a timeout kills whatever a hung bwrap (or an impostor script)
 * started.  An exec failure goes back as its errno over ep_w. */
static _Noreturn void exec_child(const char *const *argv, const char *const *envp, int devnull,
				 int out_w, int ep_w, const sigset_t *empty)
{
	int e;
	setpgid(0, 0);
	sigprocmask(SIG_SETMASK, empty, NULL);
	if (dup2(devnull, 0) < 0 || dup2(out_w, 1) < 0 || dup2(out_w, 2) < 0)
		goto child_fail;
#ifdef SYS_close_range
	/* Nothing of the caller's leaks into bwrap; CLOSE_RANGE_CLOEXEC = 1 << 2. */
	syscall(SYS_close_range, 3U, ~0U, 1U << 2);
#endif
	execve(argv[0], (char *const *)argv, (char *const *)envp);
child_fail:
	e = errno;
	(void)!write(ep_w, &e, sizeof(e));
	_exit(127);
}

/* Reads the pipes until *pid is reaped (then *pid is -1) or the deadline passes (*timed_out).
 * Read until the process is reaped, not until EOF: a grandchild holding the pipe after bwrap
 * exited must not hold the probe.  A pidfd wakes us at the exit; without one (kernels before
 * 5.3), poll in 1 ms slices.  Returns 0 or a negative code (*pid still set if not reaped). */
static int wait_reaped(pid_t *pid, int pidfd, int64_t deadline, int out[2], int ep[2],
		       struct cf_capture *c, const char *subject, bool *timed_out,
		       struct confine_error *err)
{
	while (*pid > 0) {
		int64_t left = deadline - monotonic_ms();
		if (left <= 0) {
			*timed_out = true;
			return 0;
		}
		struct pollfd pf[3] = {{.fd = out[0], .events = POLLIN},
				       {.fd = ep[0], .events = POLLIN},
				       {.fd = pidfd, .events = POLLIN}};
		int n = poll(pf, 3, pidfd >= 0 ? (int)left : 1);
		if (n < 0 && errno != EINTR)
			return cf_err_os(err, CONFINE_E_OS, "cannot probe bwrap", subject, "poll",
					 errno);
		if (n > 0 && (pf[0].revents || pf[1].revents))
			drain(out, ep, c);
		pid_t w = waitpid(*pid, &c->status, WNOHANG);
		if (w == *pid) {
			*pid = -1;
		} else if (w < 0 && errno != EINTR) {
			*pid = -1;
			return cf_err_os(err, CONFINE_E_OS, "cannot probe bwrap", subject,
					 "waitpid", errno);
		}
	}
	return 0;
}

/* What the process wrote before it exited is still in the pipes; a grandchild that keeps
 * writing is cut off at the deadline. */
static void drain_rest(int out[2], int ep[2], int64_t deadline, struct cf_capture *c)
{
	while ((out[0] >= 0 || ep[0] >= 0) && monotonic_ms() < deadline) {
		struct pollfd pf[2] = {{.fd = out[0], .events = POLLIN},
				       {.fd = ep[0], .events = POLLIN}};
		if (poll(pf, 2, 0) <= 0)
			break;
		drain(out, ep, c);
	}
}

/* Kills and reaps a child not yet reaped, and closes what is open. */
static void reap_and_close(pid_t pid, int out[2], int ep[2], int devnull, int pidfd,
			   struct cf_capture *c)
{
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
	if (pid == 0)
		exec_child(argv, envp, devnull, out[1], ep[1], &empty);
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
	ret = wait_reaped(&pid, pidfd, deadline, out, ep, c, argv[0], &timed_out, err);
	if (ret < 0)
		goto out;
	if (!timed_out)
		drain_rest(out, ep, deadline, c);
	c->out[c->len] = '\0';
	if (timed_out)
		ret = CF_RUN_TIMEOUT;
out:
	reap_and_close(pid, out, ep, devnull, pidfd, c);
	return ret;
}
