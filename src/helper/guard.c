/* SPDX-License-Identifier: MIT */
/*
 * The IPC guard (R36, see guard.h): its setup in pid 1 and in the command's process, and the
 * thread that answers the command's notifications.
 *
 * The thread takes one notification at a time, reads what it needs from the command's memory
 * and descriptors once, checks that the notification is still pending (the thread that asked
 * is alive: neither its pid nor its memory can belong to another process by then), and
 * answers: a descriptor installed in the command (SECCOMP_IOCTL_NOTIF_ADDFD) and its number,
 * or an errno.  What may block for long -- opening an allowed FIFO
 * that waits for a writer, connecting a blocking socket -- goes to a thread of its own, so
 * that one waiting open does not hold up every other.
 *
 * The command's wait is killable only (SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV): an open or a
 * connect made here cannot be cut off from its answer by a signal, as a native open of a file
 * cannot; a signal with a handler waits until the answer (a fatal one does not).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "exec/linux/cmdpath.h"
#include "exec/linux/helper_proto.h"
#include "exec/linux/notif.h"
#include "helper/guard.h"
#include "helper/mounts.h"
#include "util/nofollow.h"
#include "util/thread.h"

#include "util/linux_abi.h"
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
#define LL_ACCESS_FS_WRITE_FILE (1ULL << 1)
#define LL_RULE_PATH_BENEATH 1

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
};
struct ll_path_beneath {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

/* ---- Setup ---------------------------------------------------------------------------- */

static int add_write_rule(int ruleset, int fd)
{
	struct ll_path_beneath pb = {.allowed_access = LL_ACCESS_FS_WRITE_FILE, .parent_fd = fd};
	return (int)syscall(__NR_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb, 0U);
}

static int add_ident(struct cf_guard_prep *p, const struct stat *st)
{
	struct cf_guard_ident *v = realloc(p->allow, (p->n_allow + 1) * sizeof(*v));
	if (!v)
		return -1;
	v[p->n_allow++] = (struct cf_guard_ident){st->st_dev, st->st_ino, S_ISDIR(st->st_mode)};
	p->allow = v;
	return 0;
}

/* An allow: its identity; Landlock write_file on it when it is a FIFO, or on the FIFOs
 * directly in it when it is a directory (a FIFO made there later gets no write). */
static int prepare_allow(struct cf_guard_prep *p, int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || add_ident(p, &st) < 0)
		return -1;
	if (S_ISFIFO(st.st_mode))
		return add_write_rule(p->ruleset, fd) < 0 ? -1 : 0;
	if (!S_ISDIR(st.st_mode))
		return 0;
	int d = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = d < 0 ? NULL : fdopendir(d);
	if (!dir) {
		if (d >= 0)
			close(d);
		return 0; /* not listable: nothing in it gets a write */
	}
	struct dirent *e;
	int r = 0;
	while (r == 0 && (e = readdir(dir))) {
		int f = e->d_type == DT_FIFO
			    ? openat(dirfd(dir), e->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC)
			    : -1;
		if (f >= 0 && add_write_rule(p->ruleset, f) < 0)
			r = -1;
		if (f >= 0)
			close(f);
	}
	closedir(dir);
	return r;
}

/* One record of the list: a writable area or an allow, opened here, inside the sandbox,
 * before the command exists (no symlink followed; a path that is gone is left out). */
static int prepare_one(struct cf_guard_prep *p, char op, const char *path)
{
	int fd = cf_open_nofollow(AT_FDCWD, path, O_PATH, 0, NULL);
	if (fd < 0)
		return errno == ENOENT || errno == ELOOP || errno == ENOTDIR || errno == EACCES
			   ? 0
			   : -1;
	int r = op == CF_IPC_WRITABLE ? add_write_rule(p->ruleset, fd) : prepare_allow(p, fd);
	int e = errno;
	close(fd);
	errno = e;
	return r < 0 ? -1 : 0;
}

int cf_guard_read(int ipc_fd, int filter_fd, struct cf_guard_prep *p, const char **what)
{
	*p = (struct cf_guard_prep){.ruleset = -1, .sock = {-1, -1}};
	*what = "read the guard's seccomp program";
	if (cf_helper_slurp(filter_fd, 1 << 20, &p->prog, &p->prog_len) < 0)
		return -1;
	*what = "read the guard's list";
	if (cf_helper_slurp(ipc_fd, 1 << 24, &p->list, &p->list_len) < 0)
		return -1;
	*what = "create the Landlock write layer";
	struct ll_ruleset_attr attr = {.handled_access_fs = LL_ACCESS_FS_WRITE_FILE};
	p->ruleset = (int)syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr), 0U);
	if (p->ruleset < 0)
		return -1;
	/* The read-write binds by the descriptors bwrap mounted, before pid 1 closes them. */
	*what = "add a Landlock write rule";
	for (size_t i = 0; i < p->list_len; i += strlen(p->list + i) + 1) {
		if (p->list[i] != CF_IPC_WRITABLE_FD)
			continue;
		char *end;
		long fd = strtol(p->list + i + 1, &end, 10);
		if (*end || fd < 3 || fd > INT32_MAX) {
			errno = EINVAL;
			return -1;
		}
		if (add_write_rule(p->ruleset, (int)fd) < 0)
			return -1;
		close((int)fd);
	}
	return 0;
}

int cf_guard_prepare(struct cf_guard_prep *p, const char **what)
{
	*what = "add a Landlock write rule";
	for (size_t i = 0; i < p->list_len; i += strlen(p->list + i) + 1)
		if ((p->list[i] == CF_IPC_WRITABLE || p->list[i] == CF_IPC_ALLOW) &&
		    prepare_one(p, p->list[i], p->list + i + 1) < 0)
			return -1;
	/* What the caller handed the command as 0, 1 and 2 (its terminal, a FIFO) stays its
	 * own to open again (/dev/stdout), for reading and writing.  A pipe needs no rule
	 * (Landlock does not look at pipes, and refuses a rule on one: EBADFD). */
	for (int fd = 0; fd < 3; fd++) {
		struct stat st;
		if (fstat(fd, &st) < 0 || !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)))
			continue;
		if (add_ident(p, &st) < 0 ||
		    (add_write_rule(p->ruleset, fd) < 0 && errno != EBADFD))
			return -1;
	}
	*what = "make the guard's socket pair";
	return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p->sock);
}

int cf_guard_overlays(struct cf_guard_prep *p, const char **what)
{
	*what = "add a Landlock write rule (a tool cache's overlay)";
	for (size_t i = 0; i < p->list_len; i += strlen(p->list + i) + 1)
		if (p->list[i] == CF_IPC_OVERLAY &&
		    prepare_one(p, CF_IPC_WRITABLE, p->list + i + 1) < 0)
			return -1;
	return 0;
}

int cf_guard_child(struct cf_guard_prep *p, const char **what)
{
	close(p->sock[0]);
	*what = "landlock_restrict_self (the guard's write layer)";
	if (syscall(__NR_landlock_restrict_self, p->ruleset, 0U) < 0)
		return -1;
	*what = "seccomp (the guard's filter)";
	struct sock_fprog prog = {.len = (unsigned short)(p->prog_len / sizeof(struct sock_filter)),
				  .filter = (struct sock_filter *)(void *)p->prog};
	long lfd = syscall(
	    SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &prog);
	if (lfd < 0)
		return -1;
	*what = "sendmsg (the guard's listener)";
	int r = cf_notif_send_listener(p->sock[1], (int)lfd);
	close((int)lfd);
	close(p->sock[1]);
	return r;
}

/* ---- The thread ----------------------------------------------------------------------- */

static struct cf_guard guard;

/* A FIFO or socket the command may reach: on a writable mount, which is a writable area (the
 * workspace, a write allow, the sandbox's own tmpfs) or the kernel's pipes: everything else the
 * sandbox sees is read-only; or allowed (cf_guard_allowed). */
static bool endpoint_ok(const struct cf_guard *g, struct cf_guard_ask *a, int base, bool follow,
			int obj)
{
	struct statvfs sv;
	if (fstatvfs(obj, &sv) == 0 && !(sv.f_flag & ST_RDONLY))
		return true;
	return cf_guard_allowed(g, a, base, follow, obj);
}

/* What a thread of its own finishes: a blocking open of an allowed FIFO, or a connect. */
struct job {
	uint64_t id;
	int fd;	 /* the O_PATH object, or the command's socket */
	int obj; /* connect: the socket file (O_PATH) that addr names, or -1 */
	int flags;
	struct sockaddr_storage addr;
	socklen_t len;
	bool connect;
};

static void job_free(struct job *j)
{
	if (j->fd >= 0)
		close(j->fd);
	if (j->obj >= 0)
		close(j->obj);
	free(j);
}

static void *run_job(void *arg)
{
	struct job *j = arg;
	if (j->connect) {
		int r = connect(j->fd, (struct sockaddr *)&j->addr, j->len) < 0 ? -errno : 0;
		cf_notif_send_error(guard.listener, j->id, r);
	} else {
		int fd = cf_guard_reopen(&guard, j->fd, j->flags);
		if (fd < 0)
			cf_notif_send_error(guard.listener, j->id, fd);
		else
			cf_notif_send_fd(guard.listener, j->id, fd, j->flags & O_CLOEXEC);
	}
	job_free(j);
	return NULL;
}

/* Hands j (and j->fd) to a detached thread; answers ENOMEM or EAGAIN when there is none. */
static void later(struct job *j)
{
	int e = cf_thread_start(NULL, 256 * 1024, true, run_job, j);
	if (e) {
		cf_notif_send_error(guard.listener, j->id, -e);
		job_free(j);
	}
}

static void on_open(const struct seccomp_notif *req, struct cf_guard_ask *a)
{
	bool at = req->data.nr == __NR_openat;
	uint64_t path = req->data.args[at ? 1 : 0];
	int flags = (int)req->data.args[at ? 2 : 1];
	unsigned mode = (unsigned)req->data.args[at ? 3 : 2];
	a->dirfd = at ? (int)req->data.args[0] : AT_FDCWD;
	int r = cf_guard_read_str(a->tid, path, a->path, sizeof(a->path));
	if (r == 0 && !cf_notif_pending(guard.listener, req->id))
		return;
	int fd = -1;
	bool wait = false;
	if (r == 0)
		r = cf_guard_open(&guard, a, flags, mode, &fd, &wait);
	if (r < 0) {
		cf_notif_send_error(guard.listener, req->id, r);
	} else if (wait) {
		struct job *j = calloc(1, sizeof(*j));
		if (!j) {
			close(fd);
			cf_notif_send_error(guard.listener, req->id, -ENOMEM);
			return;
		}
		*j = (struct job){.id = req->id, .fd = fd, .obj = -1, .flags = flags};
		later(j);
	} else {
		cf_notif_send_fd(guard.listener, req->id, fd, flags & O_CLOEXEC);
	}
}

/*
 * connect(2): the command's socket, connected here.  A pathname address is resolved here and
 * replaced by the socket file found (/proc/self/fd/N of the guard's): the kernel never looks
 * the command's path up itself.  Any other address (abstract, IP, ...) is connected as given.
 */
static int on_connect(const struct seccomp_notif *req, struct cf_guard_ask *a, struct job *j)
{
	int sfd = (int)req->data.args[0];
	uint64_t addr = req->data.args[1];
	int len = (int)req->data.args[2];
	/* The kernel's own checks on the length, before anything is read. */
	if (len < 0 || (size_t)len > sizeof(j->addr))
		return -EINVAL;
	j->len = (socklen_t)len;
	struct iovec l = {.iov_base = &j->addr, .iov_len = (size_t)len};
	struct iovec r = {.iov_base = (void *)(uintptr_t)addr, .iov_len = (size_t)len};
	if (len && process_vm_readv(a->tid, &l, 1, &r, 1, 0) != len)
		return errno == EFAULT ? -EFAULT : -EACCES;
	int pfd = cf_guard_pidfd(&guard, a);
	if (pfd < 0)
		return -EACCES;
	j->fd = (int)syscall(__NR_pidfd_getfd, pfd, sfd, 0U);
	int e = errno;
	close(pfd);
	if (j->fd < 0)
		return e == EBADF ? -EBADF : -EACCES;
	struct stat st;
	int dom = 0;
	socklen_t dl = sizeof(dom);
	if (fstat(j->fd, &st) < 0 || !S_ISSOCK(st.st_mode))
		return -ENOTSOCK;
	const struct sockaddr_un *un = (const struct sockaddr_un *)&j->addr;
	size_t off = offsetof(struct sockaddr_un, sun_path);
	if (getsockopt(j->fd, SOL_SOCKET, SO_DOMAIN, &dom, &dl) < 0 || dom != AF_UNIX ||
	    (size_t)len <= off || un->sun_family != AF_UNIX || un->sun_path[0] == '\0')
		return cf_notif_pending(guard.listener, req->id) ? 0 : -ESRCH;
	/* A pathname: as the kernel reads it, up to the length or a NUL. */
	size_t n = strnlen(un->sun_path, (size_t)len - off);
	memcpy(a->path, un->sun_path, n);
	a->path[n] = '\0';
	a->dirfd = AT_FDCWD;
	int base = cf_guard_base(&guard, a), obj = -1;
	int rc = base < 0 ? base : cf_guard_resolve(&guard, a, base, true, &obj);
	/* Anything but a socket is the kernel's to refuse, with its own errno (EACCES before
	 * ECONNREFUSED for a file the caller may not write: a hidden endpoint, say). */
	if (rc == 0 && fstat(obj, &st) == 0 && S_ISSOCK(st.st_mode) &&
	    !endpoint_ok(&guard, a, base, true, obj))
		rc = -EACCES;
	cf_guard_base_close(&guard, base);
	if (rc < 0) {
		if (obj >= 0)
			close(obj);
		return rc;
	}
	struct sockaddr_un to = {.sun_family = AF_UNIX};
	/* The guard's own table (the thread's, which /proc/self is not). */
	snprintf(to.sun_path, sizeof(to.sun_path), "/proc/thread-self/fd/%d", obj);
	memset(&j->addr, 0, sizeof(j->addr));
	memcpy(&j->addr, &to, sizeof(to));
	j->len = (socklen_t)(off + strlen(to.sun_path) + 1);
	/* The socket file stays open until the connect is made (below, or on a thread). */
	j->obj = obj;
	return cf_notif_pending(guard.listener, req->id) ? 0 : -ESRCH;
}

static void handle_connect(const struct seccomp_notif *req, struct cf_guard_ask *a)
{
	struct job *j = calloc(1, sizeof(*j));
	if (!j) {
		cf_notif_send_error(guard.listener, req->id, -ENOMEM);
		return;
	}
	*j = (struct job){.id = req->id, .fd = -1, .obj = -1, .connect = true};
	int r = on_connect(req, a, j);
	if (r == 0 && !(fcntl(j->fd, F_GETFL) & O_NONBLOCK)) {
		/* A blocking socket may wait (a full backlog, a slow peer): on a thread. */
		later(j);
		return;
	}
	if (r == 0)
		r = connect(j->fd, (struct sockaddr *)&j->addr, j->len) < 0 ? -errno : 0;
	/* ESRCH: the thread that asked is gone; nothing to answer. */
	if (r != -ESRCH)
		cf_notif_send_error(guard.listener, req->id, r);
	job_free(j);
}

static int open_dirs(void);

/* The guard's thread starts with a descriptor table of its own (see cf_guard_start). */
static int own_table(int ready_w)
{
	/* Refused (a seccomp profile around confine): the guard shares pid 1's table, whose
	 * listing then shows its descriptors too (their targets stay out of reach). */
	char own = unshare(CLONE_FILES) == 0 ? 'o' : 's';
	ssize_t k = write(ready_w, &own, 1);
	if (k != 1)
		return -1;
	if (own == 's')
		return open_dirs();
	/* Everything pid 1's main thread holds goes from this table but the listener (one
	 * close per possible descriptor where close_range is missing: Linux < 5.9, or refused by
	 * a seccomp profile around confine). */
	int l = guard.listener;
	if ((l > 0 && close_range(0, (unsigned)l - 1, 0) < 0) ||
	    close_range((unsigned)l + 1, ~0U, 0) < 0) {
		long max = sysconf(_SC_OPEN_MAX);
		if (max < 0 || max > 1 << 20)
			max = 1 << 20;
		for (int fd = 0; fd < max; fd++)
			if (fd != l)
				close(fd);
	}
	return open_dirs();
}

/* The directories the guard resolves from, in the table it answers from. */
static int open_dirs(void)
{
	struct stat st;
	guard.root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	guard.proc_fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	/* This thread's table, which /proc/self/fd is not (that is the main thread's). */
	guard.selffd_fd = open("/proc/thread-self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (guard.root_fd < 0 || guard.proc_fd < 0 || guard.selffd_fd < 0 ||
	    fstat(guard.proc_fd, &st) < 0)
		return -1;
	guard.proc_dev = st.st_dev;
	guard.proc_ino = st.st_ino;
	return 0;
}

static void *loop(void *arg)
{
	if (own_table((int)(intptr_t)arg) < 0) {
		/* Without its table the guard cannot answer: every call of the filter is ENOSYS
		 * (fail closed) once the listener goes with the process. */
		return NULL;
	}
	size_t rq;
	cf_notif_sizes(&rq, NULL);
	struct seccomp_notif *req = calloc(1, rq);
	struct cf_guard_ask *a = calloc(1, sizeof(*a));
	if (!req || !a) {
		/* No answer can be made: the listener goes, and the kernel answers every call of
		 * the filter with ENOSYS (fail closed). */
		close(guard.listener);
		return NULL;
	}
	struct pollfd p = {.fd = guard.listener, .events = POLLIN};
	for (;;) {
		if (!cf_notif_recv(guard.listener, req, rq)) {
			if (errno == EINTR)
				continue;
			/* ENOENT: a caller gone while its call was being passed on, or nothing
			 * left under the filter (the command has exited, pid 1 is about to): the
			 * kernel then answers at once, every time, so asking again would spin on a
			 * CPU until pid 1 ends.  poll waits for the next call (POLLIN) or says
			 * that none can come (POLLHUP).  Otherwise a broken listener: wait for
			 * the end. */
			if (poll(&p, 1, -1) >= 0 && !(p.revents & (POLLHUP | POLLERR | POLLNVAL)))
				continue;
			break;
		}
		a->tid = (pid_t)req->pid;
		a->tgid = 0;
		if (req->data.nr == __NR_open || req->data.nr == __NR_openat)
			on_open(req, a);
		else if (req->data.nr == __NR_connect)
			handle_connect(req, a);
		else
			cf_notif_send_error(guard.listener, req->id, -ENOSYS);
	}
	free(req);
	free(a);
	return NULL;
}

int cf_guard_start(struct cf_guard_prep *p)
{
	close(p->sock[1]);
	p->sock[1] = -1;
	int lfd = cf_notif_recv_listener(p->sock[0]);
	close(p->sock[0]);
	p->sock[0] = -1;
	close(p->ruleset);
	p->ruleset = -1;
	/* The command's process has its own copies (it was forked with them). */
	free(p->prog);
	free(p->list);
	p->prog = p->list = NULL;
	if (lfd < 0)
		return 0; /* the child failed before its execve: its own record says why */
	cf_notif_sync_wake(lfd);
	guard = (struct cf_guard){.listener = lfd,
				  .root_fd = -1,
				  .proc_fd = -1,
				  .selffd_fd = -1,
				  .allow = p->allow,
				  .n_allow = p->n_allow,
				  .endpoint_ok = endpoint_ok,
				  .self = getpid()};
	/*
	 * The thread takes the listener into a descriptor table of its own (unshare
	 * CLONE_FILES), and pid 1's main thread then closes its copy: what the guard holds (the
	 * listener, the objects it opens for the command) is never in the table /proc/1/fd
	 * shows, and pid 1 keeps 0-2 alone there (R17).
	 */
	int ready[2];
	if (pipe2(ready, O_CLOEXEC) < 0)
		return -1;
	pthread_t t;
	int e = cf_thread_start(&t, 0, true, loop, (void *)(intptr_t)ready[1]); /* never joined */
	char own = 0;
	ssize_t k2 = e ? -1 : read(ready[0], &own, 1);
	close(ready[0]);
	close(ready[1]);
	if (own == 'o')
		close(lfd); /* the thread has its own copy */
	if (e || k2 != 1) {
		errno = e ? e : EIO;
		return -1;
	}
	return 0;
}
