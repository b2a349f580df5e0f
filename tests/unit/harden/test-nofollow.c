/* SPDX-License-Identifier: MIT */
/*
 * util/nofollow.h: the one symlink-safe open.  With openat2 and with the walk of components it
 * falls back to (forced here by a seccomp filter that answers openat2 with ENOSYS, in a forked
 * child, as on Linux < 5.6): no symlink followed on the way (ELOOP), none at the end unless
 * O_PATH asks for the link itself, nothing above the start under BENEATH (EXDEV), no magic
 * link of /proc (ELOOP), the descriptor close-on-exec, and the downgrade said.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "util/nofollow.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

static char top[64];

static const char *errname(int e)
{
	return e == ELOOP     ? "ELOOP"
	       : e == EXDEV   ? "EXDEV"
	       : e == ENOENT  ? "ENOENT"
	       : e == ENOTDIR ? "ENOTDIR"
			      : "other";
}

/* Opens and says "OK" or the errno's name; the descriptor must be close-on-exec. */
static const char *try(bool walk, int dirfd, const char *path, int flags, unsigned how, bool *down)
{
	int fd = walk ? cf_open_nofollow_walk(dirfd, path, flags, how)
		      : cf_open_nofollow(dirfd, path, flags, how, down);
	if (fd < 0)
		return errname(errno);
	int fdf = fcntl(fd, F_GETFD);
	close(fd);
	return fdf >= 0 && (fdf & FD_CLOEXEC) ? "OK" : "OK-but-inherited";
}

static void cases(bool walk, const char *mode, bool *down)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/a/b/file", top);
	TAP_STREQ(try(walk, AT_FDCWD, p, O_RDONLY, 0, down), "OK", "%s: a plain path opens", mode);
	snprintf(p, sizeof(p), "%s/link/b/file", top);
	TAP_STREQ(try(walk, AT_FDCWD, p, O_RDONLY, 0, down), "ELOOP",
		  "%s: a symlinked directory on the way: ELOOP", mode);
	snprintf(p, sizeof(p), "%s/a/b/flink", top);
	TAP_STREQ(try(walk, AT_FDCWD, p, O_RDONLY, 0, down), "ELOOP",
		  "%s: a symlink at the end: ELOOP", mode);
	TAP_STREQ(try(walk, AT_FDCWD, p, O_PATH, 0, down), "OK",
		  "%s: ... O_PATH opens the link itself", mode);
	snprintf(p, sizeof(p), "%s/a/b/file/x", top);
	TAP_STREQ(try(walk, AT_FDCWD, p, O_RDONLY, 0, down), "ENOTDIR",
		  "%s: a file on the way: ENOTDIR", mode);
	snprintf(p, sizeof(p), "/proc/self/root%s/a/b/file", top);
	TAP_STREQ(try(walk, AT_FDCWD, p, O_RDONLY, 0, down), "ELOOP",
		  "%s: a magic link of /proc: ELOOP", mode);
	int d = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	TAP_STREQ(try(walk, d, "a/b/file", O_RDONLY, CF_NOFOLLOW_BENEATH, down), "OK",
		  "%s: beneath a directory", mode);
	TAP_STREQ(try(walk, d, "a/../../etc/hostname", O_RDONLY, CF_NOFOLLOW_BENEATH, down),
		  "EXDEV", "%s: '..' above the start under BENEATH: EXDEV", mode);
	TAP_STREQ(try(walk, d, "/etc/hostname", O_RDONLY, CF_NOFOLLOW_BENEATH, down), "EXDEV",
		  "%s: an absolute path under BENEATH: EXDEV", mode);
	TAP_STREQ(try(walk, d, "link/b/file", O_RDONLY, CF_NOFOLLOW_BENEATH, down), "ELOOP",
		  "%s: a symlink beneath: ELOOP", mode);
	close(d);
}

/* In a child: openat2 answers ENOSYS, as on a kernel before 5.6. */
static int without_openat2(void)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return -1;
	return 0;
}

int main(void)
{
	snprintf(top, sizeof(top), "/var/tmp/confine-nofollow.XXXXXX");
	if (!mkdtemp(top))
		return 1;
	char p[256], q[256];
	snprintf(p, sizeof(p), "%s/a/b", top);
	snprintf(q, sizeof(q), "%s/a", top);
	mkdir(q, 0755);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/a/b/file", top);
	FILE *f = fopen(p, "w");
	if (f)
		fclose(f);
	snprintf(p, sizeof(p), "%s/link", top);
	if (symlink("a", p) < 0)
		return 1;
	snprintf(p, sizeof(p), "%s/a/b/flink", top);
	if (symlink("file", p) < 0)
		return 1;

	bool down = false;
	cases(false, "openat2", &down);
	TAP_OK(!down, "with openat2 no downgrade is reported");
	cases(true, "walk", NULL);

	/* The fallback itself: openat2 refused with ENOSYS in a child. */
	fflush(stdout);
	int pipefd[2];
	if (pipe(pipefd) < 0)
		return 1;
	pid_t pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		bool d = false;
		char out[64] = "filter";
		if (without_openat2() == 0) {
			snprintf(p, sizeof(p), "%s/link/b/file", top);
			const char *a = try(false, AT_FDCWD, p, O_RDONLY, 0, &d);
			snprintf(p, sizeof(p), "%s/a/b/file", top);
			const char *b = try(false, AT_FDCWD, p, O_RDONLY, 0, &d);
			snprintf(out, sizeof(out), "%s %s %d", a, b, d);
		}
		if (write(pipefd[1], out, strlen(out)) < 0)
			_exit(2);
		_exit(0);
	}
	close(pipefd[1]);
	char got[64] = "";
	ssize_t n = read(pipefd[0], got, sizeof(got) - 1);
	got[n > 0 ? n : 0] = '\0';
	close(pipefd[0]);
	waitpid(pid, NULL, 0);
	TAP_STREQ(got, "ELOOP OK 1",
		  "without openat2: a symlink on the way is still refused, a plain path opens, and "
		  "the downgrade is reported");

	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	TAP_INTEQ(system(cmd), 0, "scratch removed");
	return tap_done();
}
