/* SPDX-License-Identifier: MIT */
/*
 * confine-init: pid 1 inside the sandbox (bwrap --as-pid-1).
 *
 *   confine-init --status-fd N --stderr-fd M [--go-fd G] [--env-fd E] [--landlock]
 *                [--net-relay] [--ipc-fd I --ipc-filter-fd F]
 *                [--pty-fd P --pty-mask BITS] -- COMMAND [ARG...]
 *
 * Restores the real stderr (bwrap's own stderr is a pipe to confine, so that setup failures
 * reach the user as confine's messages), checks that it holds no capability, sets
 * no_new_privs, applies Landlock scoping where asked, reports READY, then runs the command as
 * its only child: forwards SIGINT/SIGTERM/SIGHUP/SIGQUIT to it, reaps every orphan, and exits
 * with the command's status (128+N for death by signal N).  When pid 1 exits the kernel kills
 * everything else in the namespace, so no daemon outlives the command (R4).  With
 * --net-relay (network by domain, SPEC 12) it also listens on 127.0.0.1:3128 and :1080 and
 * hands each connection over to confine's proxy (relay.c), in the same loop.
 *
 * bwrap executes it once, in the nested user namespace, without capabilities and under the
 * seccomp filter.  (Helper mode's masks are made by confine from outside, exec/linux/bwrap/masks.c,
 * which says why not here: once pid 1 made them itself and had to be executed a second time.)
 *
 * R35: confine-init itself runs with confine's fixed environment, whatever the
 * command's says; the command's environment comes on --env-fd (a sealed memfd of NAME=VALUE
 * strings, each ended by a NUL) and becomes `environ` in the command's own process only, right
 * before its execvp: the PATH search is the command's, nothing else of this program sees it.
 *
 * R36: with --ipc-fd and --ipc-filter-fd the command runs under the IPC guard (guard.h): a
 * Landlock write layer and a second seccomp filter in its own process, whose notifications a
 * thread of pid 1 answers.
 *
 * R41: with --pty-fd it opens a pty of the sandbox's devpts (tty.c), sends the master to confine
 * on P before READY, and gives the command the slave as its controlling terminal and as the
 * descriptors 0-2 of BITS.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec/linux/harden.h"
#include "exec/linux/helper_proto.h"
#include "helper/guard.h"
#include "helper/mounts.h"
#include "helper/relay.h"
#include "helper/tty.h"
#include "net/netconst.h"

#include "util/linux_abi.h"

static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

static void report(int fd, char type, int value, const char *msg)
{
	struct cf_helper_record rec = {.type = type, .value = value};
	if (msg)
		snprintf(rec.message, sizeof(rec.message), "%s", msg);
	ssize_t k;
	do
		k = write(fd, &rec, sizeof(rec));
	while (k < 0 && errno == EINTR);
}

static void on_signal(int sig)
{
	(void)sig; /* never runs: the signals are blocked and taken by sigwaitinfo */
}

static int holds_capabilities(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct data[2];
	if (syscall(SYS_capget, &hdr, data) < 0)
		return -1;
	for (int i = 0; i < 2; i++)
		if (data[i].effective || data[i].permitted || data[i].inheritable)
			return 1;
	return 0;
}

/* Closes (or marks close-on-exec) every descriptor from 3 on except the ones in keep[] (-1:
 * unused slots; the IPC guard's Landlock layer is the third, the slave of the command's pty
 * the fourth).  close_range where the kernel has it
 * (5.9; CLOEXEC 5.11), else one close per possible descriptor: either way no descriptor of the host
 * survives.  Returns 0 or -1 with errno. */
#define KEEP 4
static int close_from(const int keep_in[KEEP], bool cloexec)
{
	unsigned flags = cloexec ? CLOSE_RANGE_CLOEXEC : 0;
	int keep[KEEP];
	memcpy(keep, keep_in, sizeof(keep));
	for (int a = 0; a < KEEP; a++)
		for (int b = a + 1; b < KEEP; b++)
			if (keep[b] < keep[a]) {
				int t = keep[a];
				keep[a] = keep[b];
				keep[b] = t;
			}
	int lo = 3, rc = 0;
	for (int k = 0; k < KEEP && rc == 0; k++) {
		if (keep[k] < lo)
			continue;
		if (keep[k] > lo)
			rc = (int)syscall(SYS_close_range, (unsigned)lo, (unsigned)keep[k] - 1,
					  flags);
		lo = keep[k] + 1;
	}
	if (rc == 0)
		rc = (int)syscall(SYS_close_range, (unsigned)lo, ~0U, flags);
	if (rc == 0)
		return 0;
	if (errno != ENOSYS && errno != EINVAL)
		return -1;
	long max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 1 << 20)
		max = 1 << 20;
	for (int fd = 3; fd < max; fd++) {
		bool kept = false;
		for (int k = 0; k < KEEP; k++)
			kept = kept || fd == keep[k];
		if (kept)
			continue;
		if (cloexec)
			fcntl(fd, F_SETFD, FD_CLOEXEC);
		else
			close(fd);
	}
	return 0;
}

/* Every failure of the helper ends here: the record, then _exit, so that nothing runs at exit
 * in pid 1 (a sanitizer's leak check in pid 1 cannot even abort: pid 1 ignores SIGABRT). */
static _Noreturn void fail(int status_fd, char type, int value, const char *msg)
{
	report(status_fd, type, value, msg);
	_exit(125);
}

/* The command's environment from the memfd on fd: a NULL-ended vector into one buffer, both
 * malloc'd and never freed (they live until the command's execve).  NULL with errno. */
static char **read_env(int fd)
{
	char *buf = NULL;
	size_t len = 0, n = 0;
	/* The kernel refuses an exec whose strings pass a quarter of the stack limit anyway. */
	if (cf_helper_slurp(fd, 1 << 26, &buf, &len) < 0)
		return NULL;
	if (len && buf[len - 1] != '\0') {
		free(buf);
		errno = EINVAL;
		return NULL;
	}
	for (size_t i = 0; i < len; i++)
		n += buf[i] == '\0';
	char **v = calloc(n + 1, sizeof(*v));
	if (!v || !n) {
		free(buf); /* v[0] holds it otherwise */
		return v;
	}
	for (size_t i = 0, k = 0; i < len; i += strlen(buf + i) + 1)
		v[k++] = buf + i;
	return v;
}

static int exited(int status_fd, int code)
{
	report(status_fd, CF_HELPER_EXIT, code, NULL);
	return code;
}

static int usage(void)
{
	fprintf(stderr, "confine-init: internal helper of confine; not meant to be run by hand\n");
	return 125;
}

struct init_opts {
	int status_fd, stderr_fd, go_fd, env_fd, ipc_fd, ipc_filter_fd, pty_fd;
	unsigned pty_mask;
	bool landlock, relay;
	char **cmd;
};

/* The command line confine gives; -1 for anything else. */
static int parse_args(int argc, char **argv, struct init_opts *o)
{
	*o = (struct init_opts){.status_fd = -1,
				.stderr_fd = -1,
				.go_fd = -1,
				.env_fd = -1,
				.ipc_fd = -1,
				.ipc_filter_fd = -1,
				.pty_fd = -1};
	int i;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--status-fd") && i + 1 < argc)
			o->status_fd = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--stderr-fd") && i + 1 < argc)
			o->stderr_fd = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--go-fd") && i + 1 < argc)
			o->go_fd = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--env-fd") && i + 1 < argc)
			o->env_fd = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--ipc-fd") && i + 1 < argc)
			o->ipc_fd = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--ipc-filter-fd") && i + 1 < argc)
			o->ipc_filter_fd = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--pty-fd") && i + 1 < argc)
			o->pty_fd = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--pty-mask") && i + 1 < argc)
			o->pty_mask = (unsigned)atoi(argv[++i]) & 7U;
		else if (!strcmp(argv[i], "--landlock"))
			o->landlock = true;
		else if (!strcmp(argv[i], "--net-relay"))
			o->relay = true;
		else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else
			return -1;
	}
	if (o->status_fd < 3 || o->stderr_fd < 3 || i >= argc ||
	    (o->env_fd >= 0 && o->env_fd < 3) || (o->ipc_fd >= 0) != (o->ipc_filter_fd >= 0) ||
	    (o->ipc_fd >= 0 && (o->ipc_fd < 3 || o->ipc_filter_fd < 3)) ||
	    (o->pty_mask && o->pty_fd < 3))
		return -1;
	o->cmd = argv + i;
	return 0;
}

/* Static, as the guard's setup below: reachable until pid 1 ends (a sanitizer build's leak
 * check at exit would otherwise change pid 1's exit status). */
static char *no_env[] = {NULL};
static char **cmd_env = no_env;
/* R36: the guard's list and program. */
static struct cf_guard_prep guard;

/* What pid 1 takes from its descriptors before it closes every other: the real stderr, the
 * command's environment, the guard's list and program, the command's pty (its slave, or -1). */
static int take_inputs(const struct init_opts *o)
{
	int status_fd = o->status_fd, slave = -1;
	const char *what = NULL;
	prctl(PR_SET_NAME, "confine-init", 0, 0, 0);
	/* pid 1 is a program of the host's (run from a descriptor on its installed file): not
	 * dumpable, so that the command cannot reach it through /proc/1/exe, /proc/1/fd,
	 * /proc/1/mem or ptrace — the kernel then asks for CAP_SYS_PTRACE, which nothing in the
	 * sandbox holds.  The command's own exec makes it dumpable again (it is its own program).
	 */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		fail(status_fd, CF_HELPER_FAIL, errno, "cannot make the helper undumpable");
	if (dup2(o->stderr_fd, 2) < 0)
		fail(status_fd, CF_HELPER_FAIL, errno, "cannot restore stderr");
	/* R35: read now, applied only in the command's process (see the top of this file). */
	if (o->env_fd >= 0 && !(cmd_env = read_env(o->env_fd)))
		fail(status_fd, CF_HELPER_FAIL, errno, "cannot read the command's environment");
	/* R36: the guard's list and program, read before the descriptors go. */
	if (o->ipc_fd >= 0 && cf_guard_read(o->ipc_fd, o->ipc_filter_fd, &guard, &what) < 0)
		fail(status_fd, CF_HELPER_FAIL, errno, what);
	/* R41: the command's own terminal, from the sandbox's devpts; its master goes to confine
	 * now, while nothing of the command runs. */
	if (o->pty_mask && (slave = cf_helper_pty_open(o->pty_fd)) < 0)
		fail(status_fd, CF_HELPER_FAIL, errno,
		     "cannot open a pseudo-terminal in the sandbox");
	/* Nothing of the host stays open in pid 1: the descriptor it was executed from (an
	 * O_PATH of the installed confine-init), whatever bwrap left.  Only 0-2 and the status
	 * pipe remain. */
	if (close_from((int[KEEP]){status_fd, o->go_fd, o->ipc_fd >= 0 ? guard.ruleset : -1, slave},
		       false) < 0)
		fail(status_fd, CF_HELPER_FAIL, errno, "cannot close inherited descriptors");
	return slave;
}

/* No capability (checked, not assumed: bwrap --cap-drop ALL leaves nothing), no_new_privs,
 * Landlock scoping where asked, then the guard's layer below it.  Returns the Landlock ABI
 * (0 without). */
static int harden_self(const struct init_opts *o)
{
	int status_fd = o->status_fd;
	int caps = holds_capabilities();
	if (caps != 0)
		fail(status_fd, CF_HELPER_FAIL, caps < 0 ? errno : EPERM,
		     caps < 0 ? "cannot read its own capabilities"
			      : "the sandbox still holds capabilities");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		fail(status_fd, CF_HELPER_FAIL, errno, "cannot set no_new_privs");
	int abi = 0;
	if (o->landlock) {
		struct confine_error e = {0};
		abi = cf_landlock_scope_self(&e);
		if (abi < 0)
			fail(status_fd, CF_HELPER_FAIL, e.os_errno,
			     e.reason[0] ? e.reason : "cannot apply Landlock scoping");
	}
	/* After pid 1's own Landlock layer: the guard's is the command's, below it. */
	const char *what = NULL;
	if (o->ipc_fd >= 0 && cf_guard_prepare(&guard, &what) < 0)
		fail(status_fd, CF_HELPER_FAIL, errno, what);
	return abi;
}

/* The relay's listeners exist before READY, so the command can connect at once.  They are
 * close-on-exec: the command gets none of them. */
static void open_relay(const struct init_opts *o, int *http_l, int *socks_l, int *handoff)
{
	*http_l = *socks_l = *handoff = -1;
	if (!o->relay)
		return;
	if ((*http_l = cf_relay_listen(CF_NET_HTTP_PORT)) < 0 ||
	    (*socks_l = cf_relay_listen(CF_NET_SOCKS_PORT)) < 0)
		fail(o->status_fd, CF_HELPER_FAIL, errno,
		     "cannot listen on 127.0.0.1 for the network proxy");
	if ((*handoff = cf_relay_connect()) < 0)
		fail(o->status_fd, CF_HELPER_FAIL, errno,
		     "cannot reach confine's network proxy at " CF_NET_DIR);
}

/* pid 1 only receives signals it has a handler for: one for each forwarded signal and
 * SIGCHLD, all blocked (sigwaitinfo takes them); the old mask in *old. */
static void block_signals(sigset_t *set, sigset_t *old)
{
	sigemptyset(set);
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	for (size_t k = 0; k < sizeof(forwarded) / sizeof(forwarded[0]); k++) {
		sigaction(forwarded[k], &sa, NULL);
		sigaddset(set, forwarded[k]);
	}
	sigaction(SIGCHLD, &sa, NULL);
	sigaddset(set, SIGCHLD);
	sigprocmask(SIG_BLOCK, set, old);
}

/* confine checks that every protection landed where the plan put it (R34) and says go;
 * anything else (EOF: it killed the sandbox) ends here. */
static void wait_for_go(const struct init_opts *o)
{
	if (o->go_fd < 0)
		return;
	char go = 0;
	ssize_t k;
	do
		k = read(o->go_fd, &go, 1);
	while (k < 0 && errno == EINTR);
	if (k != 1 || go != 'g')
		_exit(125);
	close(o->go_fd);
	/* R39: the tool caches' overlays exist now (confine made them before go). */
	const char *what = NULL;
	if (o->ipc_fd >= 0 && cf_guard_overlays(&guard, &what) < 0)
		fail(o->status_fd, CF_HELPER_FAIL, errno, what);
}

/* The command's process: default signals, its terminal, nothing but 0, 1 and 2 (the status
 * pipe stays open only until exec succeeds), the guard's layer and filter, its environment. */
static _Noreturn void exec_command(const struct init_opts *o, int slave, const sigset_t *old)
{
	const char *what = NULL;
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigemptyset(&dfl.sa_mask);
	for (size_t k = 0; k < sizeof(forwarded) / sizeof(forwarded[0]); k++)
		sigaction(forwarded[k], &dfl, NULL);
	sigaction(SIGCHLD, &dfl, NULL);
	sigprocmask(SIG_SETMASK, old, NULL);
	if (slave >= 0 && cf_helper_pty_attach(slave, o->pty_mask) < 0) {
		report(o->status_fd, CF_HELPER_FAIL, errno,
		       "cannot make the pseudo-terminal the command's own");
		_exit(125);
	}
	if (close_from((int[KEEP]){-1, -1, -1, -1}, true) < 0) {
		report(o->status_fd, CF_HELPER_EXEC_FAIL, errno, "close_range");
		_exit(126);
	}
	if (o->ipc_fd >= 0 && cf_guard_child(&guard, &what) < 0) {
		report(o->status_fd, CF_HELPER_FAIL, errno, what);
		_exit(125);
	}
	environ = cmd_env;
	execvp(o->cmd[0], o->cmd);
	int e = errno;
	report(o->status_fd, CF_HELPER_EXEC_FAIL, e, o->cmd[0]);
	_exit(e == ENOENT ? 127 : 126);
}

/* pid 1's loop: forwards the signals to the command, reaps every orphan, and ends with the
 * command's status. */
static int reap_until_command_exits(int status_fd, const sigset_t *set, pid_t child)
{
	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(set, &si);
		if (sig < 0)
			continue;
		if (sig != SIGCHLD) {
			kill(child, sig);
			continue;
		}
		int st;
		pid_t p;
		while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
			if (p != child)
				continue;
			if (WIFEXITED(st))
				return exited(status_fd, WEXITSTATUS(st));
			if (WIFSIGNALED(st))
				return exited(status_fd, 128 + WTERMSIG(st));
		}
	}
}

int main(int argc, char **argv)
{
	struct init_opts o;
	if (parse_args(argc, argv, &o) < 0)
		return usage();
	int slave = take_inputs(&o);
	int abi = harden_self(&o);
	int http_l, socks_l, handoff;
	open_relay(&o, &http_l, &socks_l, &handoff);
	sigset_t set, old;
	block_signals(&set, &old);

	report(o.status_fd, CF_HELPER_READY, abi, NULL);
	wait_for_go(&o);
	pid_t child = fork();
	if (child < 0)
		fail(o.status_fd, CF_HELPER_EXEC_FAIL, errno, "fork");
	if (child == 0)
		exec_command(&o, slave, &old);
	if (o.ipc_fd >= 0 && cf_guard_start(&guard) < 0) {
		int e = errno;
		kill(child, SIGKILL);
		fail(o.status_fd, CF_HELPER_FAIL, e, "cannot start the IPC guard");
	}
	/* The status pipe stays open to say how the command ended (CF_HELPER_EXIT): a pid 1
	 * killed from outside leaves no such record, and confine does not take its 137 for the
	 * command's.  It is all pid 1 keeps beside 0-2, at 3 when that is free (the relay's
	 * listeners may hold it), close-on-exec. */
	int status_fd = o.status_fd;
	if (status_fd != 3 && fcntl(3, F_GETFD) < 0 && errno == EBADF &&
	    dup3(status_fd, 3, O_CLOEXEC) == 3) {
		close(status_fd);
		status_fd = 3;
	}
	/* The command's alone now: the pty hangs up when it and its own are gone. */
	if (slave >= 0)
		close(slave);
	if (o.relay)
		return exited(status_fd, cf_relay_run(http_l, socks_l, handoff, &set, child));
	return reap_until_command_exits(status_fd, &set, child);
}
