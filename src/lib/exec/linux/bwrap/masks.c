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
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec/linux/child.h"
#include "exec/linux/bwrap/masks.h"
#include "helper/caches.h"
#include "helper/mounts.h"

/* The child: async-signal-safe calls only, on data the parent prepared; what failed is left in
 * `he` (the parent's memory) and the child ends with 1. */
struct maker {
	int user_ns, mnt_ns, list_fd;
	const char *list;
	size_t len;
	struct cf_helper_caches *caches;
	struct cf_helper_err he;      /* what failed, read by the parent once the child is gone */
	struct cf_helper_err *shared; /* a sanitizer build's forked child: `he` comes back here */
};

static int make_in(void *arg)
{
	struct maker *m = arg;
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (setns(m->user_ns, CLONE_NEWUSER) < 0)
		m->he =
		    (struct cf_helper_err){.err = errno, .call = "setns", .path = "user namespace"};
	else if (setns(m->mnt_ns, CLONE_NEWNS) < 0)
		m->he = (struct cf_helper_err){
		    .err = errno, .call = "setns", .path = "mount namespace"};
	else if (cf_helper_mount_all(m->list, m->len, m->list_fd, m->caches, &m->he) == 0)
		return 0;
	/* Returned, not _exit: clone ends the child with the value (the exit system call, no
	 * handlers), and no call that does not return is made on this stack, which a sanitizer
	 * cannot place (ASan warned at _exit: "ignoring requested __asan_handle_no_return"). */
	return 1;
}

/* The child shares confine's memory and runs on a stack of its own while confine waits
 * (CLONE_VM | CLONE_VFORK, as posix_spawn): no page tables copied, no copy-on-write faults in
 * confine afterwards (0.3 to 1 ms of CPU a spawn here, with the page faults of the whole run
 * 747 -> 710).  setns into a user namespace needs a thread group of one and an fs of its own (no
 * CLONE_THREAD, no CLONE_FS), not a memory of its own.  The memory's dumpable flag, confine's,
 * stays: the namespace is a child of confine's owned by its euid, so the kernel counts the
 * child's new capabilities as a subset of its old ones (cred_cap_issubset). */
static pid_t start_maker(struct maker *m)
{
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
	/* A sanitizer keeps its state per thread, in memory a CLONE_VM child would share and
	 * leave changed (ThreadSanitizer lost its stack and reported races that are not there):
	 * a sanitizer build forks the child, and its record comes back in a shared page. */
	m->shared = mmap(NULL, sizeof(*m->shared), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m->shared == MAP_FAILED) {
		m->shared = NULL;
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		int r = make_in(m);
		*m->shared = m->he;
		_exit(r);
	}
	return pid;
#endif
	/* Its lowest page is a guard: a stack that overflowed would otherwise write into
	 * confine's memory, which it shares, instead of ending the child with SIGSEGV. */
	size_t guard = (size_t)sysconf(_SC_PAGESIZE), size = 256 * 1024 + guard;
	char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return -1;
	if (mprotect(stack, guard, PROT_NONE) < 0) {
		int e = errno;
		munmap(stack, size);
		errno = e;
		return -1;
	}
	pid_t child = clone(make_in, stack + size, CLONE_VM | CLONE_VFORK | SIGCHLD, m);
	int e = errno;
	munmap(stack, size);
	errno = e;
	return child;
}

/* After the child is gone: its record where the parent reads it, the shared page unmapped. */
static void maker_done(struct maker *m)
{
	if (m->shared) {
		m->he = *m->shared;
		munmap(m->shared, sizeof(*m->shared));
		m->shared = NULL;
	}
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
	int user = -1, mnt = -1, rc = -1;
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
	/* setns into a user namespace needs a process of one thread: a child, not a thread.  It
	 * takes no signal meant for confine (a handler of the caller's would run in it). */
	struct maker m = {.user_ns = user,
			  .mnt_ns = mnt,
			  .list_fd = list_fd,
			  .list = list,
			  .len = len,
			  .caches = caches};
	sigset_t old;
	cf_child_block_all(&old);
	child = start_maker(&m);
	cf_child_unblock(&old);
	int e = errno;
	if (child < 0) {
		maker_done(&m);
		he = (struct cf_helper_err){.err = e, .call = "clone", .path = "the mount maker"};
		goto out;
	}
	int st = 0;
	while (waitpid(child, &st, 0) < 0 && errno == EINTR)
		;
	maker_done(&m);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		rc = 0;
	else if (WIFEXITED(st) && WEXITSTATUS(st) == 1)
		he = m.he; /* filled in before that exit */
	else
		he = (struct cf_helper_err){
		    .err = ECHILD, .call = "wait", .path = "the mount maker"};
out:
	free(list);
	int fds[] = {user, mnt, caches ? caches->proc_dir : -1};
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(caches);
	return rc == 0 ? 0 : failed(rec, &he);
}
