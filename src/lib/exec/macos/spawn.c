/* SPDX-License-Identifier: MIT */
/*
 * Starting and waiting for sandbox-exec on macOS (SPEC 9).  posix_spawn with Apple's
 * extensions does in one call what a fork would need async-signal-safe care for: a new
 * session, every descriptor but 0, 1 and 2 closed, default signals, the working directory.
 * Needs macOS 10.15 or later (POSIX_SPAWN_SETSID, posix_spawn_file_actions_addchdir_np).
 * NEVER COMPILED OR RUN BY CI (see macos.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/event.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec/macos/macos.h"
#include "util/util.h"

int cf_mac_spawn(const char *path, char *const argv[], char *const envp[], const char *cwd,
		 pid_t *pid, struct confine_error *err)
{
	posix_spawnattr_t at;
	posix_spawn_file_actions_t fa;
	sigset_t dfl, none;
	int r, code;

	if ((r = posix_spawnattr_init(&at)) != 0)
		return cf_err_os(err, CONFINE_E_SPAWN, "cannot start the sandbox", path,
				 "posix_spawnattr_init", r);
	if ((r = posix_spawn_file_actions_init(&fa)) != 0) {
		posix_spawnattr_destroy(&at);
		return cf_err_os(err, CONFINE_E_SPAWN, "cannot start the sandbox", path,
				 "posix_spawn_file_actions_init", r);
	}
	sigfillset(&dfl);
	sigdelset(&dfl, SIGKILL);
	sigdelset(&dfl, SIGSTOP);
	sigemptyset(&none);
	/* A new session: the command has no controlling terminal, so TIOCSTI cannot push input
	 * into the caller's shell (macOS lets it reach the controlling terminal only), and its
	 * process group is the session, which confine signals as a whole.  Every descriptor
	 * but the standard ones is closed (R16). */
	r = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID | POSIX_SPAWN_CLOEXEC_DEFAULT |
					      POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	if (r == 0)
		r = posix_spawnattr_setsigdefault(&at, &dfl);
	if (r == 0)
		r = posix_spawnattr_setsigmask(&at, &none);
	for (int fd = 0; r == 0 && fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) != -1)
			r = posix_spawn_file_actions_addinherit_np(&fa, fd);
	if (r == 0 && cwd)
		r = posix_spawn_file_actions_addchdir_np(&fa, cwd);
	if (r == 0)
		r = posix_spawn(pid, path, &fa, &at, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (r == 0)
		return 0;
	code = r == ENOENT		       ? CONFINE_E_NOTFOUND
	       : (r == EACCES || r == ENOEXEC) ? CONFINE_E_NOEXEC
					       : CONFINE_E_SPAWN;
	return cf_err_os(err, code, "cannot start the sandbox", path, "posix_spawn", r);
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int cf_mac_wait(pid_t pid, uint64_t timeout_ms, volatile int *stop, int *wstatus)
{
	int kq = kqueue(), rc = -1;
	if (kq < 0)
		return -1;
	struct kevent ev;
	EV_SET(&ev, (uintptr_t)pid, EVFILT_PROC, EV_ADD | EV_ONESHOT, NOTE_EXIT, 0, NULL);
	if (kevent(kq, &ev, 1, NULL, 0, NULL) < 0) {
		/* ESRCH: it has ended already (a zombie is still ours to reap). */
		if (errno != ESRCH)
			goto out;
		rc = waitpid(pid, wstatus, 0) == pid ? 1 : -1;
		goto out;
	}
	uint64_t end = timeout_ms ? now_ms() + timeout_ms : 0;
	for (;;) {
		struct timespec ts, *tp = NULL;
		if (end) {
			uint64_t t = now_ms();
			uint64_t left = t < end ? end - t : 0;
			ts.tv_sec = (time_t)(left / 1000u);
			ts.tv_nsec = (long)(left % 1000u) * 1000000L;
			tp = &ts;
		}
		struct kevent got;
		int n = kevent(kq, NULL, 0, &got, 1, tp);
		if (n < 0 && errno == EINTR) {
			if (stop && *stop) {
				rc = 0;
				goto out;
			}
			continue;
		}
		if (n < 0)
			goto out;
		if (n == 0) {
			rc = 0;
			goto out;
		}
		for (;;) {
			pid_t w = waitpid(pid, wstatus, 0);
			if (w == pid) {
				rc = 1;
				break;
			}
			if (w < 0 && errno != EINTR)
				break;
		}
		goto out;
	}
out:
	close(kq);
	return rc;
}

int cf_mac_exit_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 125;
}
