/* SPDX-License-Identifier: MIT */
/*
 * The Linux executor: opens every mount source once (R15), hands bwrap its options through
 * --args, starts it with nothing inherited but what it needs (R16), and turns what comes back
 * into an R3 exit status.  Everything after fork() is async-signal-safe and uses only data
 * prepared before it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <time.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/nofollow.h"
#include "config.h"
#include "exec/linux/harden.h"
#include "exec/linux/helper_proto.h"
#include "exec/linux/hostside.h"
#include "exec/linux/ipcguard.h"
#include "exec/linux/netns.h"
#include "net/netrun.h"
#include "exec/linux/bwrap/masks.h"
#include "exec/linux/pty.h"
#include "exec/linux/runstdio.h"
#include "exec/linux/cgroup.h"
#include "exec/linux/child.h"
#include "exec/linux/launch.h"
#include "exec/linux/tee.h"
#include "util/util.h"

#include "util/linux_abi.h"
#define KEYCTL_JOIN_SESSION_KEYRING 1

struct fdlist {
	int *v;
	size_t n, cap;
};

static int fdlist_add(struct fdlist *l, int fd)
{
	if (l->n == l->cap) {
		size_t cap;
		int *v = cf_grow_array(l->v, l->cap, 32, sizeof(*v), &cap);
		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = fd;
	return 0;
}

static void fdlist_close(struct fdlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] >= 0)
			close(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* Opens a mount source without following any symlink on the way (R15). */
static int open_source(const char *path, enum cf_kind kind, struct confine_error *err)
{
	/* No symlink anywhere on the way, with or without openat2 (util/nofollow.h; the plan
	 * notes the walk of components on a kernel without it). */
	int fd = cf_open_nofollow(AT_FDCWD, path, O_PATH, 0, NULL);
	if (fd < 0) {
		cf_err_os(err, CONFINE_E_SPAWN, "cannot open mount source", path, "openat2", errno);
		if (errno == ELOOP)
			cf_err_hint(err, "a component became a symlink while confine started; "
					 "nothing was run");
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || S_ISDIR(st.st_mode) != (kind == CF_KIND_DIR)) {
		close(fd);
		cf_err(err, CONFINE_E_SPAWN, "mount source changed", path,
		       "it is no longer a %s; nothing was run",
		       kind == CF_KIND_DIR ? "directory" : "file");
		return -1;
	}
	return fd;
}

static bool still_there(const char *path, bool dir)
{
	struct stat st;
	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) == dir;
}

/* An injection mounted over a file of the host: still a regular file, so that bwrap finds its
 * mount point and never creates one on the host (another process could have removed it since
 * the plan; the command has not started). */
static int check_inject_target(const struct cf_mount *m, struct confine_error *err)
{
	struct stat st;
	if (m->kind != CF_KIND_FILE)
		return 0;
	if (lstat(m->path, &st) == 0 && S_ISREG(st.st_mode))
		return 0;
	cf_err(err, CONFINE_E_SPAWN, "injection target changed", m->path,
	       "it is no longer a regular file of the host; nothing was run");
	cf_err_hint(err, "something removed or replaced it while confine started; run again");
	return CONFINE_E_SPAWN;
}

static char *find_helper(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		char *dir = cf_path_dirname(self);
		char *h = dir ? cf_path_join(dir, "confine-init") : NULL;
		free(dir);
		if (h && access(h, X_OK) == 0)
			return h;
		free(h);
	}
	char *h = cf_path_join(CONFINE_LIBEXECDIR, "confine-init");
	return h;
}

static void raise_fd_limit(size_t needed)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= needed + 64)
		return;
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

static void child_fail(const char *what, int e)
{
	/* async-signal-safe: write(2) of static text and a number */
	char buf[160];
	size_t n = 0;
	const char *p = "cannot start bwrap: ";
	while (*p && n < sizeof(buf) - 40)
		buf[n++] = *p++;
	for (p = what; *p && n < sizeof(buf) - 30; p++)
		buf[n++] = *p;
	const char *s = strerrorname_np(e);
	buf[n++] = ':';
	buf[n++] = ' ';
	for (p = s ? s : "error"; *p && n < sizeof(buf) - 2; p++)
		buf[n++] = *p;
	buf[n++] = '\n';
	ssize_t k = write(2, buf, n);
	(void)k;
	_exit(125);
}

/* The children are started with vfork: no page tables are copied, and the parent resumes as
 * soon as the child has exec'd.  The child only makes system calls on data prepared before;
 * its signals: child.h. */
/* The vfork prologue is written out in start_direct and start_bwrap on purpose: a child of
 * vfork must not return from the function that called vfork, so it cannot live in a helper. */
static __attribute__((noinline)) pid_t start_direct(const char *path, char **argv, char **envp,
						    int status_w, const struct cf_cgroup *cgroup,
						    const int *stdio)
{
	pid_t parent = getpid();
	sigset_t old;
	cf_child_block_all(&old);
	pid_t pid = vfork();
	if (pid != 0) {
		cf_child_unblock(&old);
		return pid;
	}
	cf_child_signals_default();
	/* R4 without a sandbox too: the command dies with confine (checked against the race
	 * with confine's own death). */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
		_exit(125);
	if (cf_stdio_install(stdio, 0) < 0)
		_exit(125);
	if (cf_cgroup_enter(cgroup) < 0)
		_exit(125);
	/* An approved escalation runs the very file its card named (SPEC 7.1). */
	if (path)
		execve(path, argv, envp);
	else
		execvpe(argv[0], argv, envp);
	int e = errno;
	ssize_t k = write(status_w, &e, sizeof(e));
	(void)k;
	_exit(e == ENOENT ? 127 : 126);
}

int cf_launch_direct(struct cf_launch *lc, struct confine_error *err)
{
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return cf_err_os(err, CONFINE_E_OS, "cannot start command", lc->plan->argv.v[0],
				 "pipe2", errno);
	char **argv = lc->plan->argv.v;
	pid_t pid =
	    start_direct(lc->program, argv, lc->plan->env.v ? lc->plan->env.v : (char *[]){NULL},
			 pfd[1], lc->cgroup, lc->stdio);
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return cf_err_os(err, CONFINE_E_OS, "cannot start command", argv[0], "vfork",
				 errno);
	}
	close(pfd[1]);
	lc->facts.pid = pid;
	lc->facts.target_pid = pid;
	lc->status_fd = pfd[0];
	lc->ready = true; /* nothing to set up: signals go straight to the command */
	lc->facts.started = true;
	return 0;
}

struct bwrap_child {
	const char *bwrap;
	pid_t pgid; /* the keeper's process group, 0: one of bwrap's own */
	char **argv;
	char *const *envp;
	int err_w;
	const struct cf_cgroup *cgroup;
	const int *keep;
	size_t n_keep;
	int null_fd;	    /* R41: /dev/null over the terminals the command gets a pty for */
	unsigned null_mask; /* (CF_PTY_FD bits of 0 and 1), so bwrap never holds one */
	const int *stdio;   /* the command's 0 and 1 otherwise (lc->stdio) */
};

/* vfork and exec bwrap; kept apart so that nothing of the caller's frame is live across
 * vfork. */
static __attribute__((noinline)) pid_t start_bwrap(const struct bwrap_child *c)
{
	sigset_t old;
	cf_child_block_all(&old);
	pid_t pid = vfork();
	if (pid != 0) {
		cf_child_unblock(&old);
		return pid;
	}
	cf_child_signals_default();
	/* bwrap leaves the caller's process group: a Ctrl-C on the terminal reaches confine
	 * only, which forwards it to the command (R4); bwrap itself would die of it and take the
	 * command down before it could clean up.  It joins the keeper's group instead, so that
	 * it and what it forks before its setsid die with confine (keeper.c). */
	if (!c->pgid || setpgid(0, c->pgid) < 0)
		setpgid(0, 0);
	if (dup2(c->err_w, 2) < 0)
		child_fail("dup2", errno);
	if (cf_stdio_install(c->stdio, c->null_mask | CF_PTY_FD(2)) < 0)
		child_fail("dup2", errno);
	for (int fd = 0; fd < 2; fd++)
		if ((c->null_mask & CF_PTY_FD(fd)) && dup2(c->null_fd, fd) < 0)
			child_fail("dup2", errno);
	if (cf_cgroup_enter(c->cgroup) < 0)
		child_fail("cgroup.procs", errno);
	/* R16: a fresh session keyring, no core dumps, nothing inherited.  A keyring that cannot
	 * be joined because an outer seccomp profile blocks the key system calls (Docker's
	 * default: EPERM; ENOSYS without CONFIG_KEYS) leaves nothing to inherit that the
	 * command could use: the same profile, and confine's own filter, block them inside. */
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 && errno != EPERM &&
	    errno != ENOSYS)
		child_fail("keyctl(JOIN_SESSION_KEYRING)", errno);
	struct rlimit nocore = {0, 0};
	if (setrlimit(RLIMIT_CORE, &nocore) < 0)
		child_fail("setrlimit", errno);
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) < 0) {
		/* Before Linux 5.11 (CLOEXEC) or 5.9 (close_range): mark each one. */
		if (errno != ENOSYS && errno != EINVAL)
			child_fail("close_range", errno);
		struct rlimit nofile;
		int max = getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < (1U << 20)
			      ? (int)nofile.rlim_cur
			      : 1 << 20;
		for (int fd = 3; fd < max; fd++)
			fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	for (size_t i = 0; i < c->n_keep; i++)
		if (fcntl(c->keep[i], F_SETFD, 0) < 0)
			child_fail("fcntl", errno);
	execve(c->bwrap, c->argv, c->envp);
	child_fail(c->bwrap, errno);
	return -1;
}

/*
 * Helper mode (cf_plan_helper_split): confine makes the masks with the mount API from inside
 * the sandbox's namespaces once bwrap is done (exec/linux/bwrap/masks.c).  It needs open_tree,
 * move_mount, fsopen, fsconfig, fsmount, mount_setattr (Linux 5.12) and openat2, and a bwrap that
 * is not setuid (the namespaces a setuid one makes are root's, not confine's to join).  Each call
 * is made here with arguments that fail before doing anything; ENOSYS says no (an old kernel, or a
 * seccomp profile around confine, which the child that makes the masks inherits).  EPERM cannot: it
 * is also what the kernel answers a caller without CAP_SYS_ADMIN, before it looks at the arguments;
 * a profile that refuses with EPERM makes the helper fail, and confine launches again without
 * helper mode (helper_mode_failed), for the rest of that run.  Asked per run, never kept in the
 * process: the library holds no process-wide state (two runs on two threads share nothing); the
 * seven refused calls cost microseconds.
 */
bool cf_bwrap_helper_mode(const char *bwrap, bool off)
{
	if (off || !bwrap || getenv("CONFINE_NO_HELPER_MOUNTS"))
		return false;
	long calls[] = {SYS_open_tree, SYS_move_mount,	  SYS_fsopen, SYS_fsconfig,
			SYS_fsmount,   SYS_mount_setattr, SYS_openat2};
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		errno = 0;
		long rc = syscall(calls[i], -1, NULL, NULL, NULL, 0);
		if (rc < 0 && errno == ENOSYS)
			return false;
	}
	struct stat st;
	return stat(bwrap, &st) == 0 && !(st.st_mode & (S_ISUID | S_ISGID));
}

/* The helper's mount list in a memfd it reads from the start. */
static int helper_list_fd(const struct cf_plan *plan, const bool *by_helper,
			  struct confine_error *err)
{
	struct cf_buf list;
	cf_buf_init(&list);
	cf_plan_helper_list(plan, by_helper, &list);
	if (list.oom) {
		cf_buf_release(&list);
		return cf_nomem(err);
	}
	int fd = memfd_create("confine-mounts", MFD_CLOEXEC);
	size_t len = list.len;
	ssize_t k = fd < 0 ? -1 : write(fd, list.s ? list.s : "", len);
	int e = k < 0 ? errno : EIO;
	cf_buf_release(&list);
	if (fd >= 0 && k == (ssize_t)len)
		return fd;
	if (fd >= 0)
		close(fd);
	return cf_err_os(err, CONFINE_E_OS, "cannot start the sandbox", "the helper's mount list",
			 fd < 0 ? "memfd_create" : "write", fd < 0 ? errno : e);
}

/* R41: the socket confine-init sends the sandbox's pty on, and /dev/null for the terminals
 * the pty replaces (bwrap and confine-init never hold the user's terminal), both in the keep
 * list, which owns them.  fds->pty_mask stays 0 without a pty. */
static int pty_fds(struct cf_launch *lc, struct cf_bwrap_fds *fds, struct fdlist *keep,
		   int *null_fd, struct confine_error *err)
{
	if (!lc->pty)
		return 0;
	int r = cf_pty_channel(lc->pty, &fds->pty, err);
	if (r < 0)
		return r;
	if (fdlist_add(keep, fds->pty) < 0) {
		close(fds->pty);
		return cf_nomem(err);
	}
	int n = open("/dev/null", O_RDWR | O_CLOEXEC);
	*null_fd = n >= 0 && n < 3 ? fcntl(n, F_DUPFD_CLOEXEC, 3) : n;
	int e = errno;
	if (n >= 0 && n != *null_fd)
		close(n);
	if (*null_fd < 0)
		return cf_err_os(err, CONFINE_E_OS, "cannot open", "/dev/null", "open", e);
	if (fdlist_add(keep, *null_fd) < 0) {
		close(*null_fd);
		return cf_nomem(err);
	}
	fds->pty_mask = cf_pty_mask(lc->pty);
	return 0;
}

/* One launch of bwrap while it is being prepared: the descriptors bwrap is given (keep, which
 * owns them), the tables of each mount's descriptors, the pipes, the vector.  Released by
 * launch_release whatever happened. */
struct launch {
	struct cf_launch *lc;
	const struct cf_plan *plan;
	struct fdlist keep;
	int *source, *empty, *data;
	bool *by_helper;
	int info[2], status[2], errp[2], go[2];
	int null_fd;
	struct cf_bwrap_fds fds;
	char *helper, *args_arg, **bargv;
	struct cf_strv args;
};

/* The tables of each mount's descriptors, the mounts skipped, and in helper mode which of them
 * the helper makes. */
static int alloc_tables(struct launch *l, struct confine_error *err)
{
	const struct cf_plan *plan = l->plan;
	struct cf_launch *lc = l->lc;
	l->source = malloc(plan->n_mounts * sizeof(int));
	l->empty = malloc(plan->n_mounts * sizeof(int));
	l->data = plan->n_injects ? malloc(plan->n_mounts * sizeof(int)) : NULL;
	if (!lc->facts.skip)
		lc->facts.skip = calloc(plan->n_mounts + 1, sizeof(bool));
	if (!l->source || !l->empty || !lc->facts.skip || (plan->n_injects && !l->data))
		return cf_nomem(err);
	lc->helper_mode_used = lc->helper_mode && !lc->facts.helper_mode_off;
	if (lc->helper_mode_used) {
		if (!(l->by_helper = malloc(plan->n_mounts + 1)))
			return cf_nomem(err);
		cf_plan_helper_split(plan, lc->facts.skip, l->by_helper);
	}
	return 0;
}

/* A fresh descriptor of each sealed memfd: bwrap reads it to the end and closes it; another
 * launch (skip_vanished) gets its own. */
static int inject_fds(struct launch *l, struct confine_error *err)
{
	if (!l->data)
		return 0;
	int r = l->lc->hooks.inject_fds(l->lc->hooks.ctx, l->data, err);
	for (size_t i = 0; i < l->plan->n_mounts; i++)
		if (l->data[i] >= 0 && fdlist_add(&l->keep, l->data[i]) < 0) {
			for (size_t j = i; j < l->plan->n_mounts; j++)
				if (l->data[j] >= 0)
					close(l->data[j]);
			return cf_nomem(err);
		}
	return r < 0 ? r : 0;
}

/* SPEC 12: the proxy's private socket directory, by descriptor; R44: the ssh-agent filter's
 * the same way; R43: the sandbox's resolver configuration, from the proxy's directory. */
static int net_source(struct launch *l, const struct cf_mount *m, size_t i,
		      struct confine_error *err)
{
	struct cf_launch *lc = l->lc;
	if (m->net_dir || m->agent_dir) {
		int dfd = m->agent_dir ? lc->agent_dir_fd
			  : lc->netrun ? cf_netrun_dir_fd(lc->netrun)
				       : -1;
		l->source[i] = dfd >= 0 ? fcntl(dfd, F_DUPFD_CLOEXEC, 3) : -1;
		if (l->source[i] < 0)
			return cf_err(err, CONFINE_E_SPAWN, "cannot start the sandbox",
				      m->agent_dir ? "ssh-agent filter" : "network proxy",
				      "the socket directory is not open");
	} else {
		l->source[i] = lc->netrun ? openat(cf_netrun_dir_fd(lc->netrun), m->net_file,
						   O_PATH | O_NOFOLLOW | O_CLOEXEC)
					  : -1;
		if (l->source[i] < 0)
			return cf_err(err, CONFINE_E_SPAWN, "cannot start the sandbox", m->net_file,
				      "the resolver's configuration is not there");
	}
	return fdlist_add(&l->keep, l->source[i]) < 0 ? cf_nomem(err) : 0;
}

/* A bind's source opened now, bwrap binds the descriptor.  R39: the store's overlay data,
 * bound by descriptor for the masks. */
static int bind_source(struct launch *l, const struct cf_mount *m, size_t i,
		       struct confine_error *err)
{
	char *store =
	    m->op == CF_MNT_CACHE_STORE ? cf_cache_store_overlay(l->plan->cache_store) : NULL;
	if (m->op == CF_MNT_CACHE_STORE && !store)
		return cf_nomem(err);
	l->source[i] = open_source(store ? store : m->path, m->kind, err);
	free(store);
	if (l->source[i] < 0)
		return CONFINE_E_SPAWN;
	return fdlist_add(&l->keep, l->source[i]) < 0 ? cf_nomem(err) : 0;
}

/* A host socket or FIFO that went away since the sweep: nothing to hide, and bwrap must not
 * create it on the host.  One that comes back in the moment before bwrap mounts simply gets
 * mounted over; one that goes in that moment makes bwrap fail, and the launch is tried again
 * (skip_vanished).  A hidden directory's later remount goes with it. */
static void skip_gone(struct launch *l, const struct cf_mount *m, size_t i)
{
	l->lc->facts.skip[i] = true;
	for (size_t j = i + 1; m->op == CF_MNT_HIDE_DIR && j < l->plan->n_mounts; j++)
		if (l->plan->mounts[j].op == CF_MNT_REMOUNT_RO &&
		    !strcmp(l->plan->mounts[j].path, m->path))
			l->lc->facts.skip[j] = true;
}

/* What mount i needs before bwrap starts: a source descriptor, an empty file's, a check. */
static int mount_fds(struct launch *l, size_t i, struct confine_error *err)
{
	const struct cf_mount *m = &l->plan->mounts[i];
	bool helpers = l->by_helper && l->by_helper[i];
	l->source[i] = l->empty[i] = -1;
	if (m->op == CF_MNT_RO_BIND && (m->net_dir || m->agent_dir || m->net_file))
		return net_source(l, m, i, err);
	if ((m->op == CF_MNT_RO_BIND || m->op == CF_MNT_RW_BIND || m->op == CF_MNT_CACHE_STORE) &&
	    !helpers)
		return bind_source(l, m, i, err);
	if (m->op == CF_MNT_INJECT)
		return check_inject_target(m, err);
	if ((m->op == CF_MNT_HIDE_FILE || m->op == CF_MNT_HIDE_DIR) && m->transient && !helpers &&
	    (l->lc->facts.skip[i] || !still_there(m->path, m->op == CF_MNT_HIDE_DIR))) {
		skip_gone(l, m, i);
		return 0;
	}
	if (m->op == CF_MNT_HIDE_FILE && !helpers) {
		/* bwrap copies this (empty) descriptor into the file it binds. */
		if ((l->empty[i] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
			return cf_err_os(err, CONFINE_E_OS, "cannot open", "/dev/null", "open",
					 errno);
		if (fdlist_add(&l->keep, l->empty[i]) < 0)
			return cf_nomem(err);
	}
	return 0;
}

/* The helper's mount list (helper mode), the seccomp filter and confine-init itself. */
static int helper_fds(struct launch *l, struct confine_error *err)
{
	struct cf_launch *lc = l->lc;
	int r;
	if (l->by_helper) {
		/* Made at READY (helper_masks), then read back: which transient endpoints were
		 * left out. */
		if ((lc->mounts_r = helper_list_fd(l->plan, l->by_helper, err)) < 0)
			return lc->mounts_r;
		free(lc->by_helper);
		lc->by_helper = l->by_helper;
		l->by_helper = NULL;
	}
	if (l->plan->seccomp) {
		/* R36: under the IPC guard, openat2 is refused to the command by the guard's
		 * filter, not to pid 1 by this one. */
		struct cf_seccomp_opts so = {.sockets = l->plan->ipc_guard ? CF_SOCKETS_GUARDED
									   : CF_SOCKETS_ANY};
		if ((r = cf_seccomp_build_fd_opts(&so, &l->fds.seccomp, err)) < 0)
			return r;
		if (fdlist_add(&l->keep, l->fds.seccomp) < 0)
			return cf_nomem(err);
	}
	l->helper = lc->helper ? cf_strdup(lc->helper) : find_helper();
	if (!l->helper)
		return cf_nomem(err);
	if ((l->fds.helper = open(l->helper, O_PATH | O_CLOEXEC)) < 0) {
		int e = errno;
		r = cf_err_os(err, CONFINE_E_SPAWN, "cannot open the sandbox helper", l->helper,
			      "open", e);
		if (e == ENOENT || e == EACCES || e == ENOTDIR || e == ELOOP)
			cf_err_hint(err, "reinstall confine: confine-init belongs beside the "
					 "confine binary or in " CONFINE_LIBEXECDIR);
		return r;
	}
	return fdlist_add(&l->keep, l->fds.helper) < 0 ? cf_nomem(err) : 0;
}

/* The pipes between confine, bwrap and confine-init, the pty's channel, the command's stderr
 * (R41: /dev/null under a pty; confine's tee when it is recorded), and R35, R36: the command's
 * environment, the IPC guard's list and filter (ipcguard.h). */
static int channel_fds(struct launch *l, struct confine_error *err)
{
	struct cf_launch *lc = l->lc;
	struct cf_bwrap_fds *fds = &l->fds;
	int r;
	if (pipe2(l->info, O_CLOEXEC) < 0 || pipe2(l->status, O_CLOEXEC) < 0 ||
	    pipe2(l->errp, O_CLOEXEC) < 0 || pipe2(l->go, O_CLOEXEC) < 0)
		return cf_err_os(err, CONFINE_E_OS, "cannot start the sandbox", "bwrap", "pipe2",
				 errno);
	fds->info = l->info[1];
	fds->status = l->status[1];
	fds->go = l->go[0];
	if ((r = pty_fds(lc, fds, &l->keep, &l->null_fd, err)) < 0)
		return r;
	if (lc->tee.wanted && !(fds->pty_mask & CF_PTY_FD(2))) {
		/* The command's stderr through confine's tee (exec/linux/tee.c): the helper
		 * restores this pipe as fd 2 instead of the real stderr. */
		if ((r = cf_open_tee(&lc->tee, lc->stdio[2], &fds->stderr_fd, err)) < 0)
			return r;
	} else if ((fds->stderr_fd = fcntl(fds->pty_mask & CF_PTY_FD(2) ? l->null_fd : lc->stdio[2],
					   F_DUPFD_CLOEXEC, 3)) < 0)
		return cf_err_os(err, CONFINE_E_OS, "cannot start the sandbox", "stderr", "fcntl",
				 errno);
	/* Each owned by keep from its own addition on: released once when a later addition
	 * fails (keep and launch_release both closed the earlier ones before). */
	int *owned[] = {&l->info[1], &l->status[1], &l->go[0]};
	for (size_t i = 0; i < sizeof(owned) / sizeof(owned[0]); i++) {
		if (fdlist_add(&l->keep, *owned[i]) < 0)
			return cf_nomem(err);
		*owned[i] = -1;
	}
	if (fdlist_add(&l->keep, fds->stderr_fd) < 0)
		return cf_nomem(err);
	struct cf_ipc_fds made;
	r = cf_helper_fds(l->plan, l->source, fds, &made, err);
	for (size_t i = 0; i < made.n; i++)
		if (fdlist_add(&l->keep, made.v[i]) < 0) {
			for (size_t j = i; j < made.n; j++)
				close(made.v[j]);
			free(made.v);
			return cf_nomem(err);
		}
	free(made.v);
	return r < 0 ? r : 0;
}

/* bwrap's options, through a memfd (nothing of the policy appears in /proc/PID/cmdline), and
 * its vector: bwrap --args FD, then the rest of the options after the end marker. */
static int bwrap_vector(struct launch *l, struct confine_error *err)
{
	int r;
	if ((r = cf_bwrap_argv(l->plan, &l->fds, &l->args, err)) < 0)
		return r;
	int args_fd = memfd_create("confine-args", MFD_CLOEXEC);
	if (args_fd < 0)
		return cf_err_os(err, CONFINE_E_OS, "cannot start the sandbox", "bwrap",
				 "memfd_create", errno);
	if (fdlist_add(&l->keep, args_fd) < 0) {
		close(args_fd);
		return cf_nomem(err);
	}
	size_t split = 0;
	while (split < l->args.n && strcmp(l->args.v[split], CF_BWRAP_ARGS_END))
		split++;
	struct cf_buf packed;
	cf_buf_init(&packed);
	for (size_t i = 0; i < split; i++)
		cf_buf_addn(&packed, l->args.v[i], strlen(l->args.v[i]) + 1);
	if (packed.oom) {
		cf_buf_release(&packed);
		return cf_nomem(err);
	}
	ssize_t wrote = write(args_fd, packed.s, packed.len);
	int werr = errno;
	bool whole = wrote == (ssize_t)packed.len;
	cf_buf_release(&packed);
	if (!whole)
		return cf_err_os(err, CONFINE_E_OS, "cannot start the sandbox", "bwrap", "write",
				 wrote < 0 ? werr : EIO);
	if (lseek(args_fd, 0, SEEK_SET) < 0 || !(l->args_arg = cf_asprintf("%d", args_fd)))
		return cf_nomem(err);
	if (!(l->bargv = calloc(l->args.n + 4, sizeof(*l->bargv))))
		return cf_nomem(err);
	l->bargv[0] = "bwrap";
	l->bargv[1] = "--args";
	l->bargv[2] = l->args_arg;
	for (size_t i = split + 1, j = 3; i < l->args.n; i++, j++)
		l->bargv[j] = l->args.v[i];
	return 0;
}

/* bwrap started; the run takes over the parent's ends of the pipes. */
static int exec_bwrap(struct launch *l, struct confine_error *err)
{
	struct cf_launch *lc = l->lc;
	struct bwrap_child c = {.bwrap = lc->bwrap,
				.pgid = lc->keeper_pgid,
				.argv = l->bargv,
				.envp = cf_host_env,
				.err_w = l->errp[1],
				.cgroup = lc->cgroup,
				.keep = l->keep.v,
				.n_keep = l->keep.n,
				.null_fd = l->null_fd,
				.null_mask = l->fds.pty_mask,
				.stdio = lc->stdio};
	lc->facts.launch_time = time(NULL);
	pid_t pid = start_bwrap(&c);
	if (pid < 0)
		return cf_err_os(err, CONFINE_E_OS, "cannot start the sandbox", "bwrap", "vfork",
				 errno);
	lc->facts.pid = pid;
	lc->facts.target_pid = pid;
	lc->ready = false;
	lc->info_fd = l->info[0];
	lc->status_fd = l->status[0];
	lc->err_fd = l->errp[0];
	lc->go_w = l->go[1];
	l->info[0] = l->status[0] = l->errp[0] = l->go[1] = -1;
	lc->facts.started = true;
	return 0;
}

static void launch_release(struct launch *l)
{
	fdlist_close(&l->keep);
	for (int i = 0; i < 2; i++) {
		int fds[] = {l->info[i], l->status[i], l->errp[i], l->go[i]};
		for (size_t k = 0; k < sizeof(fds) / sizeof(fds[0]); k++)
			if (fds[k] >= 0)
				close(fds[k]);
	}
	free(l->source);
	free(l->empty);
	free(l->data);
	free(l->by_helper);
	free(l->helper);
	free(l->args_arg);
	free(l->bargv);
	cf_strv_release(&l->args);
}

int cf_launch_bwrap(struct cf_launch *lc, struct confine_error *err)
{
	struct launch l = {.lc = lc,
			   .plan = lc->plan,
			   .info = {-1, -1},
			   .status = {-1, -1},
			   .errp = {-1, -1},
			   .go = {-1, -1},
			   .null_fd = -1};
	int r = 0;
	/* The run's own step before bwrap (run_launch.c: R39, the overlays' upper layers and this
	 * run's work directories). */
	if (lc->hooks.before && (r = lc->hooks.before(lc->hooks.ctx, err)) < 0)
		return r;
	raise_fd_limit(l.plan->n_mounts + l.plan->n_injects + 16);
	if ((r = alloc_tables(&l, err)) < 0 || (r = inject_fds(&l, err)) < 0)
		goto out;
	for (size_t i = 0; i < l.plan->n_mounts; i++)
		if ((r = mount_fds(&l, i, err)) < 0)
			goto out;
	l.fds = (struct cf_bwrap_fds){.source = l.source,
				      .empty = l.empty,
				      .data = l.data,
				      .seccomp = -1,
				      .skip = lc->facts.skip,
				      .by_helper = l.by_helper,
				      .env = -1,
				      .ipc = -1,
				      .ipc_filter = -1};
	if ((r = helper_fds(&l, err)) < 0 || (r = channel_fds(&l, err)) < 0 ||
	    (r = bwrap_vector(&l, err)) < 0)
		goto out;
	r = exec_bwrap(&l, err);
out:
	launch_release(&l);
	return r;
}
