/* SPDX-License-Identifier: MIT */
/*
 * The landlock executor (SPEC 3.3, R28): no namespaces, no helper process.  The parent builds
 * the Landlock ruleset (ruleset.c: every rule path opened once, O_PATH, no symlink followed) and
 * the seccomp program; the child of vfork makes only system calls on that prepared data: new
 * session, cgroup, fresh session keyring, RLIMIT_CORE 0, every descriptor close-on-exec, no
 * capability left, no_new_privs, landlock_restrict_self, the seccomp filter, execve.  A failure
 * goes back as one fixed-size record over a close-on-exec pipe; its end of file means the
 * command is running.
 *
 * Debian 12's headers (Linux 6.1) predate most of Landlock: every constant the child uses is
 * defined here, in util/linux_abi.h or in plan/landlock/ll_plan.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec/linux/landlock/connguard.h"
#include "exec/linux/supervisor.h"
#include "exec/linux/harden.h"
#include "exec/linux/helper_proto.h"
#include "exec/linux/keeper.h"
#include "exec/linux/landlock/ruleset.h"
#include "exec/linux/launch.h"
#include "exec/linux/cgroup.h"
#include "exec/linux/child.h"
#include "exec/linux/notif.h"
#include "exec/linux/opener.h"
#include "exec/linux/pty.h"
#include "exec/linux/runstdio.h"
#include "exec/linux/tee.h"
#include "util/util.h"

#include "util/linux_abi.h"
#define KEYCTL_JOIN_SESSION_KEYRING 1
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif
#ifndef PR_SET_SECUREBITS
#define PR_SET_SECUREBITS 28
#endif
/* SECBIT_NOROOT, NO_SETUID_FIXUP, KEEP_CAPS and NO_CAP_AMBIENT_RAISE, each with its lock: a
 * uid 0 command never gets capabilities back, not even by execve. */
#define SECURE_ALL_LOCKED 0xffU

/* The seccomp program of SPEC 3.1 plus this backend's socket rules, read back from the memfd
 * it is exported into, for prctl(PR_SET_SECCOMP) in the child. */
static int load_program(const struct cf_ll_plan *pl, bool agent, struct sock_fprog *prog,
			struct confine_error *err)
{
	struct cf_seccomp_opts o = {.sockets = CF_SOCKETS_ANY,
				    .supervise = cf_ll_supervise_level(pl)};
	if (pl->net_proxy)
		o.sockets = agent ? CF_SOCKETS_PROXY_AGENT : CF_SOCKETS_PROXY;
	else if (agent)
		o.sockets = CF_SOCKETS_AGENT; /* R44: refused with the network on, at prepare */
	else if (!pl->unix_sockets)
		o.sockets = pl->network ? CF_SOCKETS_NO_UNIX : CF_SOCKETS_NONE;
	else if (!pl->network)
		o.sockets = CF_SOCKETS_UNIX_ONLY;
	int fd = -1;
	int r = cf_seccomp_build_fd_opts(&o, &fd, err);
	if (r < 0)
		return r;
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_size <= 0 ||
	    st.st_size % (off_t)sizeof(struct sock_filter) != 0) {
		close(fd);
		return cf_err(err, CONFINE_E_SPAWN, "cannot load the seccomp filter", "memfd",
			      "the exported program has an invalid size");
	}
	struct sock_filter *f = malloc((size_t)st.st_size);
	if (!f) {
		close(fd);
		return cf_nomem(err);
	}
	ssize_t n = pread(fd, f, (size_t)st.st_size, 0);
	close(fd);
	if (n != st.st_size) {
		free(f);
		return cf_err_os(err, CONFINE_E_SPAWN, "cannot load the seccomp filter", "memfd",
				 "pread", n < 0 ? errno : EIO);
	}
	prog->len = (unsigned short)(st.st_size / (off_t)sizeof(struct sock_filter));
	prog->filter = f;
	return 0;
}

struct ll_child {
	char **candidates; /* execve paths to try, NULL-terminated (PATH search done here) */
	char **argv, **envp;
	char **sh_argv; /* "/bin/sh" path argv... for ENOEXEC; sh_argv[1] is replaced */
	const char *cwd;
	int err_w;	   /* the stderr tee's write end, or -1: stderr is inherited */
	int pty;	   /* R41: the slave of the command's own pty, or -1 */
	unsigned pty_mask; /* the descriptors it goes on (CF_PTY_FD bits) */
	const int *stdio;  /* the others: lc->stdio (runstdio.h) */
	int ruleset;
	const struct sock_fprog *prog;
	int guard_w; /* where the seccomp listener goes (the supervisor), or -1 */
	const struct cf_cgroup *cgroup;
	pid_t parent;
	int keeper; /* the keeper's socket (keeper.c), -1: none */
	/* In the parent's memory: the child's failure record, or its stage (LL_SETUP until it
	 * execs the command, then LL_EXEC).  A store needs no allocation, where a write to the
	 * status pipe does: a child starved by --limit mem still says what failed, and one killed
	 * during its setup is told from a command that ran (the parent passes it on). */
	struct cf_helper_record *shared;
};

enum { LL_SETUP = 's', LL_EXEC = 'x' };

static void fail_rec(const struct ll_child *c, char type, int e, const char *msg)
{
	struct cf_helper_record *rec = c->shared;
	size_t i = 0;
	for (; msg && msg[i] && i < sizeof(rec->message) - 1; i++)
		rec->message[i] = msg[i];
	rec->message[i] = '\0';
	rec->value = e;
	rec->type = type;
	__asm__ volatile("" ::: "memory"); /* stored before _exit, which the compiler cannot see */
}

#define CHILD_FAIL(c, what)                                                                        \
	do {                                                                                       \
		fail_rec((c), CF_HELPER_FAIL, errno, what);                                        \
		_exit(125);                                                                        \
	} while (0)

/* No capability is left: a root caller's command runs as uid 0 without capabilities, as in the
 * bwrap backend (--cap-drop ALL), and cannot regain them by execve (securebits, locked). */
static int drop_capabilities(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct data[2];
	if (syscall(SYS_capget, &hdr, data) < 0)
		return -1;
	bool any = false;
	for (int i = 0; i < 2; i++)
		any = any || data[i].effective || data[i].permitted || data[i].inheritable;
	if (!any) {
		/* Nothing to drop; the bounding set only matters for a uid 0 execve, and a
		 * process without CAP_SETPCAP cannot change it (nor gain anything from it under
		 * no_new_privs). */
		return geteuid() == 0 ? -1 : 0;
	}
	if (prctl(PR_SET_SECUREBITS, SECURE_ALL_LOCKED, 0, 0, 0) < 0)
		return -1;
	for (int cap = 0; cap < 64; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL)
			return -1;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return -1;
	struct __user_cap_data_struct none[2];
	memset(none, 0, sizeof(none));
	hdr.pid = 0;
	if (syscall(SYS_capset, &hdr, none) < 0)
		return -1;
	if (syscall(SYS_capget, &hdr, data) < 0)
		return -1;
	for (int i = 0; i < 2; i++)
		if (data[i].effective || data[i].permitted || data[i].inheritable)
			return -1;
	return 0;
}

/* The child (start_child, after vfork, on confine's memory: async-signal-safe calls only, a
 * failure is a record in c->shared and _exit): its session, terminal and descriptors 0-2, and
 * its ties to confine (R4: death signal, keeper, cgroup). */
static void child_attach(const struct ll_child *c)
{
	/* TIOCSTI and kill(0, ...) stay inside: a session and process group of its own. */
	if (setsid() < 0)
		CHILD_FAIL(c, "setsid");
	/* R41: its own pty is its controlling terminal, never the user's terminal. */
	if (c->pty >= 0 && ioctl(c->pty, TIOCSCTTY, 0) < 0)
		CHILD_FAIL(c, "ioctl(TIOCSCTTY)");
	for (int fd = 0; fd < 3; fd++)
		if ((c->pty_mask & CF_PTY_FD(fd)) && dup2(c->pty, fd) < 0)
			CHILD_FAIL(c, "dup2");
	if (cf_stdio_install(c->stdio, c->pty_mask) < 0)
		CHILD_FAIL(c, "dup2");
	/* The report and the audit log read the denials on the command's stderr (SPEC 7.3). */
	if (c->err_w >= 0 && dup2(c->err_w, 2) < 0)
		CHILD_FAIL(c, "dup2");
	/* The command dies with confine (R4); checked against the race with confine's death. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		CHILD_FAIL(c, "prctl(PR_SET_PDEATHSIG)");
	if (getppid() != c->parent)
		_exit(125);
	/* What the command starts dies with confine too: its group goes to the keeper, from
	 * here, before anything of the command runs. */
	if (c->keeper >= 0 && cf_keeper_send_self_group(c->keeper) < 0)
		CHILD_FAIL(c, "pidfd_open and sendmsg to confine-keeper");
	if (cf_cgroup_enter(c->cgroup) < 0)
		CHILD_FAIL(c, "cgroup.procs");
}

/* The child: R16's session keyring, no core dumps, nothing inherited but 0-2; its directory. */
static void child_isolate(const struct ll_child *c)
{
	/* R16: a fresh session keyring (see spawn.c for the EPERM/ENOSYS case), no core dumps,
	 * nothing inherited but 0, 1 and 2. */
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 && errno != EPERM &&
	    errno != ENOSYS)
		CHILD_FAIL(c, "keyctl(JOIN_SESSION_KEYRING)");
	struct rlimit nocore = {0, 0};
	if (setrlimit(RLIMIT_CORE, &nocore) < 0)
		CHILD_FAIL(c, "setrlimit(RLIMIT_CORE)");
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) < 0) {
		if (errno != ENOSYS && errno != EINVAL)
			CHILD_FAIL(c, "close_range");
		struct rlimit nofile;
		int max = getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < (1U << 20)
			      ? (int)nofile.rlim_cur
			      : 1 << 20;
		for (int fd = 3; fd < max; fd++)
			fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	if (c->cwd && chdir(c->cwd) < 0)
		CHILD_FAIL(c, "chdir");
}

/* The child: no capabilities, no_new_privs, the Landlock ruleset, the seccomp filter (its
 * listener to the supervisor). */
static void child_restrict(const struct ll_child *c)
{
	if (drop_capabilities() < 0)
		CHILD_FAIL(c, "cannot drop capabilities");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		CHILD_FAIL(c, "prctl(PR_SET_NO_NEW_PRIVS)");
	if (syscall(__NR_landlock_restrict_self, c->ruleset, 0U) < 0)
		CHILD_FAIL(c, "landlock_restrict_self");
	if (c->prog && c->guard_w >= 0) {
		/* The supervisor's listener (supervisor.c), handed to confine before exec.  A
		 * supervised call waits for its answer, killable only (Linux 5.19), so that a
		 * signal cannot cut the answer off from a change confine already made. */
		long lfd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				   SECCOMP_FILTER_FLAG_NEW_LISTENER |
				       SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
				   c->prog);
		if (lfd < 0 && errno == EINVAL)
			lfd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				      SECCOMP_FILTER_FLAG_NEW_LISTENER, c->prog);
		if (lfd < 0)
			CHILD_FAIL(c, "seccomp(SECCOMP_FILTER_FLAG_NEW_LISTENER)");
		if (cf_notif_send_listener(c->guard_w, (int)lfd) < 0)
			CHILD_FAIL(c, "sendmsg(the seccomp listener)");
		close((int)lfd);
	} else if (c->prog && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, c->prog, 0, 0) < 0) {
		CHILD_FAIL(c, "prctl(PR_SET_SECCOMP)");
	}
}

/* The child: the command, by execvp's search on the candidates prepared from its own PATH. */
static _Noreturn void child_exec(const struct ll_child *c)
{
	c->shared->type = LL_EXEC;
	__asm__ volatile("" ::: "memory");
	int err = ENOENT;
	for (char **p = c->candidates; *p; p++) {
		execve(*p, c->argv, c->envp);
		int e = errno;
		if (e == ENOEXEC && c->sh_argv) {
			c->sh_argv[1] = *p;
			execve("/bin/sh", c->sh_argv, c->envp);
			e = errno;
		}
		if (e == EACCES)
			err = EACCES;
		else if (e != ENOENT && e != ENOTDIR) {
			err = e;
			break;
		}
	}
	fail_rec(c, CF_HELPER_EXEC_FAIL, err, NULL);
	_exit(err == ENOENT ? 127 : 126);
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
/* A sanitizer build forks the child instead: a sanitizer's instrumented code in a child that
 * shares confine's memory changes the calling thread's sanitizer state, and under
 * --limit mem the child's first faults were charged to the limited cgroup (the kernel retried
 * them forever, or its OOM kill took confine with the child: 137 and no word, faults.t).  Its
 * record comes back in a shared page (`shared`), and confine waits as for vfork: until the
 * child has exec'd or is gone (the end of a pipe the exec closes). */
#define LL_FORK 1
#else
#define LL_FORK 0
#endif

static __attribute__((noinline)) pid_t start_child(const struct ll_child *c)
{
	sigset_t old;
	cf_child_block_all(&old);
#if LL_FORK
	int gate[2];
	if (pipe2(gate, O_CLOEXEC) < 0) {
		cf_child_unblock(&old);
		return -1;
	}
	pid_t pid = fork();
	if (pid != 0) {
		int e = errno;
		close(gate[1]);
		char b;
		while (pid > 0 && read(gate[0], &b, 1) < 0 && errno == EINTR)
			;
		close(gate[0]);
		errno = e;
		cf_child_unblock(&old);
		return pid;
	}
	close(gate[0]);
#else
	pid_t pid = vfork();
	if (pid != 0) {
		cf_child_unblock(&old);
		return pid;
	}
#endif
	cf_child_signals_default();
	child_attach(c);
	child_isolate(c);
	child_restrict(c);
	child_exec(c);
}

static pid_t spawn_child(void *arg)
{
	return start_child(arg);
}

/* The child, forked by confine's opener below its Landlock domain (R36, opener.h) where the
 * plan has one, else from here. */
static int spawn(struct cf_launch *lc, const struct ll_child *c, int rs, const int stdio[3],
		 pid_t *pid, struct confine_error *err)
{
	if (lc->ll->opener && lc->facts.supervisor) {
		struct cf_guard_ident *ids = NULL;
		size_t n_ids = 0;
		if (cf_opener_idents(&lc->plan->ipc_allow, stdio, &ids, &n_ids) < 0)
			return cf_nomem(err);
		return cf_supervisor_spawn(lc->facts.supervisor, rs, ids, n_ids, spawn_child,
					   (void *)c, pid, err);
	}
	if ((*pid = start_child(c)) < 0)
		return cf_err_os(err, CONFINE_E_OS, "cannot start the sandbox", "landlock", "vfork",
				 errno);
	return 0;
}

/* The paths execvp would try for argv0, from the command's own PATH. */
static int exec_candidates(const char *argv0, const struct cf_strv *env, struct cf_strv *out)
{
	if (strchr(argv0, '/'))
		return cf_strv_add(out, argv0);
	const char *path = cf_strv_env(env, "PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *s = path;;) {
		const char *colon = strchr(s, ':');
		size_t n = colon ? (size_t)(colon - s) : strlen(s);
		char *dir = n ? cf_strndup(s, n) : cf_strdup(".");
		char *full = dir ? cf_path_join(dir, argv0) : NULL;
		free(dir);
		if (!full || cf_strv_take(out, full) < 0)
			return -1;
		if (!colon)
			break;
		s = colon + 1;
	}
	return 0;
}

/*
 * Network by domain (SPEC 12) and R44: the run has given the command's proxy variables the
 * proxy's port and its credentials (run_launch.c); the connect guard is made for the
 * supervisor to ask, which lets unix streams reach the ssh-agent filter's socket.
 */
static int start_proxy_side(struct cf_launch *lc, struct confine_error *err)
{
	if (!lc->proxy_port && lc->ll->net_proxy)
		return cf_err(err, CONFINE_E_SPAWN, "network by domain not available", "landlock",
			      "the proxy does not listen on the host's loopback");
	return cf_connguard_new(lc->proxy_port, lc->agent_sock, &lc->facts.connguard, err);
}

/* The supervisor (R42; network by domain's connect guard rides on it): it waits for the
 * child's seccomp listener on guard[0] (its own now); guard[1] is the child's end. */
static int start_supervisor(struct cf_launch *lc, int guard[2], struct confine_error *err)
{
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, guard) < 0)
		return cf_err_os(err, CONFINE_E_OS, "cannot start the supervisor", "landlock",
				 "socketpair", errno);
	int r =
	    cf_supervisor_start(guard[0], lc->ll, lc->facts.connguard, &lc->facts.supervisor, err);
	guard[0] = -1; /* the supervisor's, whatever happened */
	return r;
}

/* What the child execs: the candidates of execvp's search for the plan's argv[0] from the
 * command's own PATH (the plan's environment), and the argv of /bin/sh for a script without #!
 * ("sh", the candidate, the arguments).  -1: out of memory (the caller frees both). */
static int exec_argv(const struct cf_plan *plan, struct cf_strv *cands, char ***sh_argv)
{
	if (exec_candidates(plan->argv.v[0], &plan->env, cands) < 0)
		return -1;
	*sh_argv = calloc(plan->argv.n + 2, sizeof(**sh_argv));
	if (!*sh_argv)
		return -1;
	(*sh_argv)[0] = "sh";
	for (size_t i = 1; i < plan->argv.n; i++)
		(*sh_argv)[i + 1] = plan->argv.v[i];
	return 0;
}

/* vfork returned: the child exec'd the command, failed, or was killed before it could (the
 * memory limit's OOM kill, a signal).  What it left in `shared` goes to the status pipe, where
 * the wait reads it; the run takes the child and the pipe's read end (status[0] -1 then), and
 * the write ends of the status pipe and of the guard's socket are closed. */
static int adopt(struct cf_launch *lc, pid_t pid, struct cf_helper_record *shared, int status[2],
		 int guard[2], struct confine_error *err)
{
	if (shared->type == LL_SETUP)
		*shared = (struct cf_helper_record){.type = CF_HELPER_FAIL, .value = 0};
	if (shared->type != LL_EXEC && write(status[1], shared, sizeof(*shared)) < 0) {
		int r = cf_err_os(err, CONFINE_E_OS, "cannot start the sandbox", "landlock",
				  "write", errno);
		waitpid(pid, NULL, 0);
		return r;
	}
	close(status[1]);
	status[1] = -1;
	/* The child has sent the listener (or failed): the guard sees the end of the handoff
	 * once this copy of its write end is gone too. */
	if (guard[1] >= 0)
		close(guard[1]);
	guard[1] = -1;
	lc->facts.pid = pid;
	lc->facts.target_pid = pid;
	/* Our own child: its number cannot be reused before we reap it. */
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pfd >= 0) {
		fcntl(pfd, F_SETFD, FD_CLOEXEC);
		lc->facts.target_pidfd = pfd;
	}
	lc->status_fd = status[0];
	status[0] = -1;
	/* vfork returned: the child has exec'd the command or failed (its record is in the
	 * pipe).  Nothing is in between, so signals go straight to the command. */
	lc->ready = true;
	lc->facts.started = true;
	return 0;
}

int cf_ll_spawn(struct cf_launch *lc, struct confine_error *err)
{
	const struct cf_plan *plan = lc->plan;
	struct cf_strv cands = {0};
	struct sock_fprog prog = {0};
	char **sh_argv = NULL;
	int rs = -1, status[2] = {-1, -1}, err_w = -1, guard[2] = {-1, -1}, pty = -1;
	int r;

	if ((lc->ll->net_proxy || lc->agent_sock) && (r = start_proxy_side(lc, err)) < 0)
		goto out;
	if (plan->seccomp && (r = start_supervisor(lc, guard, err)) < 0)
		goto out;
	unsigned pty_mask = cf_pty_mask(lc->pty);
	if (lc->pty && (r = cf_pty_open_host(lc->pty, &pty, err)) < 0)
		goto out;
	if (lc->tee.wanted && !(pty_mask & CF_PTY_FD(2)) &&
	    (r = cf_open_tee(&lc->tee, lc->stdio[2], &err_w, err)) < 0)
		goto out;
	/* The child's 0 and 1 are the run's (runstdio.h), its 2 the tee when there is one; the
	 * pty's slave where it replaces a terminal (R41): that one is the terminal granted. */
	int stdio[3] = {lc->stdio[0], lc->stdio[1], err_w >= 0 ? -1 : lc->stdio[2]};
	for (int i = 0; i < 3; i++)
		if (pty_mask & CF_PTY_FD(i))
			stdio[i] = pty;
	if ((r = cf_ll_build_ruleset(lc->ll, lc->proxy_port, stdio, &rs, err)) < 0)
		goto out;
	if (plan->seccomp && (r = load_program(lc->ll, lc->agent_sock != NULL, &prog, err)) < 0)
		goto out;
	char **envp = plan->env.v ? plan->env.v : (char *[]){NULL};
	if (exec_argv(plan, &cands, &sh_argv) < 0)
		goto oom;
	if (pipe2(status, O_CLOEXEC) < 0) {
		r = cf_err_os(err, CONFINE_E_OS, "cannot start the sandbox", "landlock", "pipe2",
			      errno);
		goto out;
	}
	struct cf_helper_record local = {.type = LL_SETUP}, *shared = &local;
#if LL_FORK
	shared =
	    mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		goto oom;
	*shared = local;
#endif
	struct ll_child c = {.candidates = cands.v,
			     .argv = plan->argv.v,
			     .envp = envp,
			     .sh_argv = sh_argv,
			     .cwd = plan->cwd,
			     .err_w = err_w,
			     .pty = pty,
			     .pty_mask = pty_mask,
			     .stdio = lc->stdio,
			     .ruleset = rs,
			     .prog = prog.filter ? &prog : NULL,
			     .guard_w = guard[1],
			     .cgroup = lc->cgroup,
			     .parent = getpid(),
			     .keeper = lc->keeper_fd,
			     .shared = shared};
	pid_t pid;
	if ((r = spawn(lc, &c, rs, stdio, &pid, err)) == 0)
		r = adopt(lc, pid, shared, status, guard, err);
	if (shared != &local)
		munmap(shared, sizeof(*shared));
	goto out;
oom:
	r = cf_nomem(err);
out:
	if (rs >= 0)
		close(rs);
	if (err_w >= 0)
		close(err_w);
	if (pty >= 0)
		close(pty); /* the child's now: the pty hangs up when the last holder is gone */
	for (int i = 0; i < 2; i++) {
		if (status[i] >= 0)
			close(status[i]);
		if (guard[i] >= 0)
			close(guard[i]);
	}
	free(prog.filter);
	free(sh_argv);
	cf_strv_release(&cands);
	return r;
}
