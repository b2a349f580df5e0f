/* SPDX-License-Identifier: MIT */
/*
 * R36: the IPC guard's thread (src/helper/guard.c) once nothing is left under its filter.  The
 * command has exited and pid 1 is about to: the kernel then answers SECCOMP_IOCTL_NOTIF_RECV
 * with ENOENT at once, every time, and a thread that asked again on ENOENT spun on a CPU until
 * pid 1 ended (on a busy machine a good part of a spawn's CPU time).  The guard's thread must
 * end instead.  Set up as pid 1 does it (cf_guard_read, _prepare, _child in a forked command,
 * _start), in a forked stand-in for pid 1, the filter made as confine makes it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec/linux/harden.h"
#include "helper/guard.h"
#include "tap.h"

/* The threads of this process. */
static int threads(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* The stand-in for pid 1: 0 when the guard's thread ended within 10 s of the command's exit,
 * 1 when it did not, 2 when the set-up failed (what failed on stderr). */
static int pid1(void)
{
	const char *what = "";
	struct cf_guard_prep p;
	int filter = -1, list = memfd_create("list", MFD_CLOEXEC);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || list < 0 ||
	    cf_seccomp_guard_build_fd(&filter, NULL) < 0 ||
	    cf_guard_read(list, filter, &p, &what) < 0 || cf_guard_prepare(&p, &what) < 0) {
		fprintf(stderr, "set-up: %s: %s\n", what, strerror(errno));
		return 2;
	}
	pid_t cmd = fork();
	if (cmd == 0)
		_exit(cf_guard_child(&p, &what) < 0 ? 3 : 0);
	if (cmd < 0 || cf_guard_start(&p) < 0) {
		fprintf(stderr, "start: %s\n", strerror(errno));
		return 2;
	}
	int st;
	if (waitpid(cmd, &st, 0) != cmd || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "the command under the guard failed\n");
		return 2;
	}
	for (int i = 0; i < 1000; i++) {
		if (threads() == 1)
			return 0;
		nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
	}
	return 1;
}

int main(void)
{
	fflush(stdout);
	pid_t c = fork();
	if (c == 0)
		_exit(pid1());
	int st = 0;
	waitpid(c, &st, 0);
	int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (rc == 2)
		TAP_SKIP("the guard cannot be set up here (Landlock or seccomp user notification "
			 "missing)");
	else
		TAP_OK(rc == 0,
		       "R36 the guard's thread ends once nothing is left under its filter (no spin "
		       "on ENOENT; status %d)",
		       rc);
	return tap_done();
}
