/* SPDX-License-Identifier: MIT */
/*
 * Helper mode (plan/bwrap/args.c, cf_plan_helper_split): the masks bwrap would make slowly (it
 * reads its whole mount table again after each mount) are made here with the mount API
 * (src/helper/mounts.c), once bwrap has set the sandbox up and pid 1 waits for go (R34): by a
 * child of confine that joins the sandbox's first user namespace, the one bwrap made (its
 * owner is confine's own euid, so the child holds every capability in it and none outside),
 * and the sandbox's mount namespace, whose root it then sees as its own.  The command has not
 * started; pid 1 is confine-init, waiting.
 *
 * Why not confine-init, as before: pid 1 must be undumpable, and the kernel then gives its
 * /proc/1 files (fs/proc/base.c, task_dump_owner) to uid 0 of the user namespace of its memory
 * map, which is fixed when a program is executed.  To make its mounts pid 1 had to be executed
 * in the first namespace, where bwrap maps uid 0 to the caller (it needs uid 0 there for /dev's
 * devpts), so the command (the caller's uid) owned them: it could list /proc/1/fd and open
 * /proc/1's owner-writable files.  confine-init therefore executed itself a second time once it
 * had nested the namespace, an exec on every spawn.  Made from outside, pid 1 is executed by
 * bwrap in the nested namespace as without helper mode: uid 0 there is unmapped, the files are
 * the host's root's, and bwrap drops the capabilities, disables user namespaces and loads the
 * seccomp filter as it does then.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec/linux/bwrap/masks.h"
#include "helper/caches.h"
#include "helper/mounts.h"

/* The child: after fork, async-signal-safe calls only, on data the parent prepared; what
 * failed goes back on `out` as one struct cf_helper_err (its `call` points into this program's
 * constants, at the same address in the parent). */
static _Noreturn void make_in(int user_ns, int mnt_ns, const char *list, size_t len, int list_fd,
			      struct cf_helper_caches *caches, int out)
{
	struct cf_helper_err he = {0};
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (setns(user_ns, CLONE_NEWUSER) < 0)
		he =
		    (struct cf_helper_err){.err = errno, .call = "setns", .path = "user namespace"};
	else if (setns(mnt_ns, CLONE_NEWNS) < 0)
		he = (struct cf_helper_err){
		    .err = errno, .call = "setns", .path = "mount namespace"};
	else if (cf_helper_mount_all(list, len, list_fd, caches, &he) == 0)
		_exit(0);
	ssize_t k = write(out, &he, sizeof(he));
	(void)k;
	_exit(1);
}

static int failed(struct cf_helper_record *rec, const struct cf_helper_err *he)
{
	/* A tool cache's overlay (R39) that could not be made: confine plans the run again with
	 * redirects instead of overlays. */
	*rec = (struct cf_helper_record){.type = he->changed ? CF_HELPER_CHANGED
						 : he->cache ? CF_HELPER_CACHE_FAIL
							     : CF_HELPER_MODE_FAIL,
					 .value = he->err};
	if (he->changed)
		snprintf(rec->message, sizeof(rec->message), "%s", he->path);
	else
		snprintf(rec->message, sizeof(rec->message), "%s\t%s", he->call ? he->call : "?",
			 he->path);
	return -1;
}

/* The sandbox's namespaces, from pid 1's: its mount namespace, and the parent of its user
 * namespace (bwrap nests one under the namespace it made the mounts in). */
static int open_ns(pid_t pid1, int *user, int *mnt, struct cf_helper_err *he)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid1);
	int own = open(path, O_RDONLY | O_CLOEXEC);
	if (own < 0) {
		*he = (struct cf_helper_err){.err = errno, .call = "open"};
		snprintf(he->path, sizeof(he->path), "%s", path);
		return -1;
	}
	*user = ioctl(own, NS_GET_PARENT);
	int e = errno;
	close(own);
	if (*user < 0) {
		*he = (struct cf_helper_err){.err = e, .call = "ioctl NS_GET_PARENT"};
		snprintf(he->path, sizeof(he->path), "%s", path);
		return -1;
	}
	fcntl(*user, F_SETFD, FD_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid1);
	if ((*mnt = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		*he = (struct cf_helper_err){.err = errno, .call = "open"};
		snprintf(he->path, sizeof(he->path), "%s", path);
		return -1;
	}
	return 0;
}

int cf_masks_make(pid_t pid1, int list_fd, struct cf_helper_record *rec)
{
	struct cf_helper_err he = {0};
	char *list = NULL;
	size_t len = 0;
	int user = -1, mnt = -1, p[2] = {-1, -1}, rc = -1;
	pid_t child = -1;
	/* The tool caches' work area (R39), allocated here: the child allocates nothing.  The
	 * sandbox's /proc is its pid namespace's, where the child is not: the overlays' layers are
	 * named from this one (-1 if there is none: an overlay then fails and the run is planned
	 * again with redirects). */
	struct cf_helper_caches *caches = calloc(1, sizeof(*caches));
	if (!caches) {
		he = (struct cf_helper_err){
		    .err = ENOMEM, .call = "calloc", .path = "the tool caches"};
		goto out;
	}
	caches->proc_dir = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cf_helper_slurp(list_fd, 1 << 24, &list, &len) < 0) {
		he = (struct cf_helper_err){.err = errno, .call = "read", .path = "the mount list"};
		goto out;
	}
	if (open_ns(pid1, &user, &mnt, &he) < 0)
		goto out;
	if (pipe2(p, O_CLOEXEC) < 0) {
		he =
		    (struct cf_helper_err){.err = errno, .call = "pipe2", .path = "the mount list"};
		goto out;
	}
	/* setns into a user namespace needs a process of one thread: a child, not a thread.  It
	 * takes no signal meant for confine (a handler of the caller's would run in it). */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	child = fork();
	if (child == 0)
		make_in(user, mnt, list, len, list_fd, caches, p[1]);
	int e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(p[1]);
	p[1] = -1;
	if (child < 0) {
		he = (struct cf_helper_err){.err = e, .call = "fork", .path = "the mount maker"};
		goto out;
	}
	ssize_t k;
	do
		k = read(p[0], &he, sizeof(he));
	while (k < 0 && errno == EINTR);
	int st = 0;
	while (waitpid(child, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && k == 0)
		rc = 0;
	else if (k != (ssize_t)sizeof(he))
		he = (struct cf_helper_err){
		    .err = ECHILD, .call = "wait", .path = "the mount maker"};
out:
	free(list);
	int fds[] = {user, mnt, p[0], p[1], caches ? caches->proc_dir : -1};
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(caches);
	return rc == 0 ? 0 : failed(rec, &he);
}
