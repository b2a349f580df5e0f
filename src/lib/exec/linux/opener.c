/* SPDX-License-Identifier: MIT */
/*
 * The landlock backend's opener (R36, see opener.h): the thread's set-up, the decision on a
 * FIFO, and the answer to each open.  supervisor.c runs the thread.
 *
 * One notification at a time, as the bwrap guard (src/helper/guard.c) answers them: the path is
 * read once from the command's memory, the notification checked to be still pending (the
 * thread that asked is alive: neither its pid nor its memory belong to another process by
 * then), the object resolved and opened (cmdpath.c), and the descriptor installed and the call
 * answered in one ioctl.  An allowed FIFO opened without O_NONBLOCK waits for its writer on a
 * thread of its own (a job, in the opener's domain like every thread it makes), so that one
 * waiting open holds up no other.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exec/linux/ipcguard.h"
#include "exec/linux/notif.h"
#include "exec/linux/opener.h"
#include "exec/linux/supervisor.h"
#include "exec/linux/sv_common.h"
#include "util/nofollow.h"
#include "util/thread.h"

#include "util/linux_abi.h"
#ifndef O_PATH
#define O_PATH 010000000
#endif
#define KEYCTL_JOIN_SESSION_KEYRING 1

/* An allowed FIFO's blocking open, waiting for a writer on a thread of its own. */
struct job {
	struct cf_opener *o;
	uint64_t id;
	int obj; /* the O_PATH object, -1 once closed */
	int flags;
	pthread_t thread;
	bool done; /* under o->lock */
	struct job *next;
};

struct cf_opener {
	struct cf_guard g;
	const struct cf_ll_plan *plan;
	const struct cf_sv_policy *pol;
	struct cf_guard_ident *allow;
	bool ready;
	struct cf_guard_ask ask; /* the one being answered */
	pthread_mutex_t lock;
	struct job *jobs;
};

static int add_ident(struct cf_guard_ident **v, size_t *n, const struct stat *st)
{
	struct cf_guard_ident *w = realloc(*v, (*n + 1) * sizeof(**v));
	if (!w)
		return -1;
	w[(*n)++] = (struct cf_guard_ident){st->st_dev, st->st_ino, S_ISDIR(st->st_mode)};
	*v = w;
	return 0;
}

int cf_opener_idents(const struct cf_strv *allow, const int stdio[3], struct cf_guard_ident **out,
		     size_t *n)
{
	struct stat st;
	*out = NULL;
	*n = 0;
	for (size_t i = 0; allow && i < allow->n; i++) {
		int fd = cf_open_nofollow(AT_FDCWD, allow->v[i], O_PATH, 0, NULL);
		bool ok =
		    fd >= 0 && fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISDIR(st.st_mode));
		if (fd >= 0)
			close(fd);
		if (ok && add_ident(out, n, &st) < 0)
			goto oom;
	}
	/* What the caller handed the command as 0, 1 and 2 stays its own to open again
	 * (/dev/stdin): a named FIFO among them (a pipe is allowed anyway). */
	for (int i = 0; stdio && i < 3; i++)
		if (stdio[i] >= 0 && fstat(stdio[i], &st) == 0 && S_ISFIFO(st.st_mode) &&
		    add_ident(out, n, &st) < 0)
			goto oom;
	return 0;
oom:
	free(*out);
	*out = NULL;
	*n = 0;
	return -1;
}

/*
 * A FIFO the command may open: an anonymous pipe (pipefs: one of its processes' own, reached
 * through /proc/PID/fd); one whose name, the kernel's name of the object, lies in a writable
 * area of the plan (the workspace, a write allow, the run's TMPDIR); or one allowed by
 * identity (cf_guard_allowed).  A FIFO anywhere else -- /var/tmp, a home, a tmpfs of the
 * host's, bound in whatever namespace -- is not.
 */
static bool fifo_ok(const struct cf_guard *g, struct cf_guard_ask *a, int base, bool follow,
		    int obj)
{
	const struct cf_opener *o = g->ctx;
	struct statfs sf;
	char name[PATH_MAX + 16];
	if (fstatfs(obj, &sf) == 0 && sf.f_type == PIPEFS_MAGIC)
		return true;
	if (cf_sv_name(obj, name, sizeof(name)) == 0 && cf_sv_writable_at(o->plan, name))
		return true;
	return cf_guard_allowed(g, a, base, follow, obj);
}

struct cf_opener *cf_opener_new(const struct cf_ll_plan *plan, const struct cf_sv_policy *pol,
				struct cf_guard_ident *allow, size_t n_allow)
{
	struct cf_opener *o = calloc(1, sizeof(*o));
	if (!o) {
		free(allow);
		return NULL;
	}
	o->plan = plan;
	o->pol = pol;
	o->allow = allow;
	o->g = (struct cf_guard){.listener = -1,
				 .root_fd = -1,
				 .proc_fd = -1,
				 .selffd_fd = -1,
				 .allow = allow,
				 .n_allow = n_allow,
				 .endpoint_ok = fifo_ok,
				 .ctx = o};
	pthread_mutex_init(&o->lock, NULL);
	return o;
}

int cf_opener_enter(int ruleset, const char **what)
{
	/* create() (cmdpath.c) takes the command's umask: on this thread's own fs_struct. */
	*what = "unshare(CLONE_FS)";
	if (unshare(CLONE_FS) < 0)
		return -1;
	/* R16 for the opener too (the calling thread's alone): a file system that looks keys up
	 * for whoever opens (fscrypt v1, NFS with Kerberos) finds none of the caller's. */
	*what = "keyctl(JOIN_SESSION_KEYRING)";
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 && errno != EPERM &&
	    errno != ENOSYS)
		return -1;
	/* Both for this thread alone: the rest of confine keeps its own rights. */
	*what = "prctl(PR_SET_NO_NEW_PRIVS)";
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	*what = "landlock_restrict_self";
	if (syscall(__NR_landlock_restrict_self, ruleset, 0U) < 0)
		return -1;
	return 0;
}

/* The thread's capabilities go (capset changes the calling thread only): a root caller's
 * command is uid 0 without capabilities, and so is what opens for it. */
static int drop_caps(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct none[2];
	memset(none, 0, sizeof(none));
	return syscall(SYS_capset, &hdr, none) < 0 ? -1 : 0;
}

int cf_opener_ready(struct cf_opener *o, int listener)
{
	struct stat st;
	o->g.listener = listener;
	o->g.self = getpid();
	if (drop_caps() < 0)
		return -1;
	o->g.root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	o->g.proc_fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	o->g.selffd_fd = open("/proc/thread-self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (o->g.root_fd < 0 || o->g.proc_fd < 0 || o->g.selffd_fd < 0 ||
	    fstat(o->g.proc_fd, &st) < 0)
		return -1;
	o->g.proc_dev = st.st_dev;
	o->g.proc_ino = st.st_ino;
	o->ready = true;
	return 0;
}

/* open(2) and openat(2) that could read a FIFO: the filter's CF_SUPERVISE_READS rules. */
bool cf_opener_handles(const struct seccomp_notif *req)
{
	int flags;
#ifdef __NR_open
	if (req->data.nr == __NR_open)
		flags = (int)req->data.args[1];
	else
#endif
	    if (req->data.nr == __NR_openat)
		flags = (int)req->data.args[2];
	else
		return false;
	if (flags & (O_WRONLY | O_RDWR | O_PATH | O_DIRECTORY))
		return false;
	return !((flags & O_CREAT) && (flags & O_EXCL));
}

static void job_close(void *arg)
{
	struct job *j = arg;
	if (j->obj >= 0)
		close(j->obj);
	j->obj = -1;
}

/* The blocking open: the only point where the job can be cancelled (cf_opener_free). */
static void *run_job(void *arg)
{
	struct job *j = arg;
	int old, fd;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	pthread_cleanup_push(job_close, j);
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
	fd = cf_guard_reopen(&j->o->g, j->obj, j->flags);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	pthread_cleanup_pop(1);
	if (fd < 0)
		cf_notif_send_error(j->o->g.listener, j->id, fd);
	else
		cf_notif_send_fd(j->o->g.listener, j->id, fd, j->flags & O_CLOEXEC);
	pthread_mutex_lock(&j->o->lock);
	j->done = true;
	pthread_mutex_unlock(&j->o->lock);
	return NULL;
}

/* Joins the jobs that have ended. */
static void reap_jobs(struct cf_opener *o)
{
	pthread_mutex_lock(&o->lock);
	for (struct job **p = &o->jobs; *p;) {
		struct job *j = *p;
		if (!j->done) {
			p = &j->next;
			continue;
		}
		*p = j->next;
		pthread_join(j->thread, NULL);
		free(j);
	}
	pthread_mutex_unlock(&o->lock);
}

static void start_job(struct cf_opener *o, uint64_t id, int obj, int flags)
{
	reap_jobs(o);
	struct job *j = calloc(1, sizeof(*j));
	int e = ENOMEM;
	if (j) {
		*j = (struct job){.o = o, .id = id, .obj = obj, .flags = flags};
		pthread_mutex_lock(&o->lock);
		e = cf_thread_start(&j->thread, 256 * 1024, false, run_job, j);
		if (e == 0) {
			j->next = o->jobs;
			o->jobs = j;
		}
		pthread_mutex_unlock(&o->lock);
	}
	if (e) {
		close(obj);
		free(j);
		cf_notif_send_error(o->g.listener, id, -e);
	}
}

/* A protected file by another name (a hard link made before the run, R37): the supervisor's
 * table of protected inodes, as pathguard.c decides. */
static bool protected_read(const struct cf_opener *o, int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return true;
	uint64_t denied = cf_sv_denied(o->pol, fd);
	return denied & (S_ISDIR(st.st_mode) ? CF_LL_FS_READ_DIR : CF_LL_FS_READ_FILE);
}

bool cf_opener_answer(struct cf_opener *o, const struct seccomp_notif *req, int *fallback)
{
	*fallback = 0;
	if (!cf_opener_handles(req))
		return false;
	bool at = req->data.nr == __NR_openat;
	uint64_t path = req->data.args[at ? 1 : 0];
	int flags = (int)req->data.args[at ? 2 : 1];
	unsigned mode = (unsigned)req->data.args[at ? 3 : 2];
	int listener = o->g.listener;
	struct cf_guard_ask *a = &o->ask;
	a->tid = (pid_t)req->pid;
	a->tgid = 0;
	a->dirfd = at ? (int)req->data.args[0] : AT_FDCWD;
	int fd = -1,
	    r = o->ready ? cf_guard_read_str(a->tid, path, a->path, sizeof(a->path)) : -EACCES;
	bool later = false;
	if (r == 0 && !cf_notif_pending(listener, req->id))
		return true;
	if (r == 0)
		r = cf_guard_open(&o->g, a, flags, mode, &fd, &later);
	/* Landlock gives this thread nothing in a split directory's new entries, where the
	 * supervisor makes and opens what lies in a writable area (pathguard.c). */
	if (r == -EACCES && o->plan->broker) {
		*fallback = EACCES;
		return false;
	}
	if (r == 0 && !later && protected_read(o, fd)) {
		close(fd);
		r = -EACCES;
	}
	if (r < 0)
		cf_notif_send_error(listener, req->id, r);
	else if (later)
		start_job(o, req->id, fd, flags);
	else
		cf_notif_send_fd(listener, req->id, fd, flags & O_CLOEXEC);
	return true;
}

void cf_opener_free(struct cf_opener *o)
{
	if (!o)
		return;
	/* A FIFO's open still waiting for its writer ends here: the command's call is answered
	 * ENOSYS when the listener goes. */
	pthread_mutex_lock(&o->lock);
	for (struct job *j = o->jobs; j; j = j->next)
		if (!j->done)
			pthread_cancel(j->thread);
	pthread_mutex_unlock(&o->lock);
	while (o->jobs) {
		struct job *j = o->jobs;
		o->jobs = j->next;
		pthread_join(j->thread, NULL);
		free(j);
	}
	int fds[] = {o->g.root_fd, o->g.proc_fd, o->g.selffd_fd};
	for (size_t i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	pthread_mutex_destroy(&o->lock);
	free(o->allow);
	free(o);
}
