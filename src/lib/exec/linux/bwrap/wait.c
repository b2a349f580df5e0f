/* SPDX-License-Identifier: MIT */
/*
 * The Linux executor's second half (spawn.c starts the sandbox): the signals confine forwards
 * to it, the wait for the command with --timeout and the helper's records (R23, R34), and the
 * turning of how the sandbox ended into an R3 exit status or the error that says why.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
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

#include "exec/linux/helper_proto.h"
#include "exec/linux/hostside.h"
#include "exec/linux/ipcguard.h"
#include "exec/linux/netns.h"
#include "exec/linux/keeper.h"
#include "exec/linux/bwrap/masks.h"
#include "exec/linux/bwrap/settle.h"
#include "exec/linux/pty.h"
#include "exec/linux/cgroup.h"
#include "exec/linux/launch.h"
#include "exec/linux/tee.h"
#include "util/mountapi.h"
#include "util/procfs.h"
#include "util/util.h"

/*
 * Before the helper reports READY, pid 1 of the sandbox is still bwrap setting up, and pid 1
 * ignores the signals it has no handler for: a forwarded SIGTERM would be lost and the command
 * would start anyway.  So until then a signal is only noted, and the wait loop (woken through
 * a pipe) ends the whole sandbox instead.  Async-signal-safe.
 */
static void wake(struct cf_launch *lc)
{
	if (lc->wake_w >= 0) {
		ssize_t k = write(lc->wake_w, "s", 1);
		(void)k;
	}
}

/* Signals go through a pidfd when there is one: once pid 1 of the sandbox is gone its number
 * may belong to another process. */
static void send_target(struct cf_launch *lc, int sig)
{
	int pfd = (int)lc->facts.target_pidfd;
	pid_t t = (pid_t)lc->facts.target_pid;
	if (pfd >= 0)
		syscall(SYS_pidfd_send_signal, pfd, sig, NULL, 0);
	else if (t > 0)
		kill(t, sig);
}

void cf_launch_forward_signal(struct cf_launch *lc, int sig)
{
	if (sig == SIGWINCH || sig == SIGCONT) {
		/* The caller's window or job changed: the relay's business (R41), not the
		 * command's, which learns from its own pty. */
		if (cf_pty_note_signal(lc->pty, sig))
			wake(lc);
		return;
	}
	if (!lc->ready) {
		lc->pending_sig = sig;
		wake(lc);
		return;
	}
	send_target(lc, sig);
	/* One SIGINT may be the command's to catch (a REPL's Ctrl-C); the second, and any
	 * SIGTERM, SIGHUP or SIGQUIT, asks for the end: the wait loop then gives the command its
	 * grace period and kills the sandbox if it is still there (pid 1 forwards what it gets,
	 * but a command that ignores the signal would otherwise run on). */
	if (sig != SIGINT || ++lc->sigints >= 2) {
		lc->end_requested = 1;
		wake(lc);
	}
}

/* The parent pid of `pid` from /proc/PID/stat; -1 when it cannot be read. */
static pid_t parent_of(pid_t pid)
{
	struct cf_proc_stat st;
	return cf_proc_stat_read(AT_FDCWD, pid, &st) == 0 ? st.ppid : -1;
}

/* A pidfd on pid 1 of the sandbox, checked to be bwrap's child after it was opened (before, the
 * number could already have been reused).  Without pidfds signals go by number. */
static void pin_target(struct cf_launch *lc, pid_t pid)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pfd < 0)
		return;
	if (parent_of(pid) != lc->facts.pid) {
		close(pfd);
		lc->facts.target_pid = 0; /* gone already: nothing to signal */
		return;
	}
	fcntl(pfd, F_SETFD, FD_CLOEXEC);
	lc->facts.target_pidfd = pfd;
	/* Before the go (settle): from now on the keeper ends this sandbox if confine dies. */
	if (lc->keeper_fd >= 0)
		(void)cf_keeper_send(lc->keeper_fd, CF_KEEP_PROCESS, pfd, (int)pid);
}

/* Reads bwrap's {"child-pid": N} so that signals go to pid 1 of the sandbox. */
static void read_child_pid(struct cf_launch *lc)
{
	char buf[256];
	size_t len = 0;
	for (;;) {
		ssize_t k = read(lc->info_fd, buf + len, sizeof(buf) - 1 - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		len += (size_t)k;
		if (len == sizeof(buf) - 1)
			break;
	}
	buf[len] = '\0';
	const char *p = strstr(buf, "\"child-pid\"");
	if (p && (p = strchr(p, ':'))) {
		long pid = strtol(p + 1, NULL, 10);
		if (pid > 0) {
			lc->facts.target_pid = (sig_atomic_t)pid;
			pin_target(lc, (pid_t)pid);
		}
	}
	close(lc->info_fd);
	lc->info_fd = -1;
}

/* Ends the whole sandbox: SIGKILL to its pid 1 (sent from outside its namespace, so it is not
 * ignored) takes every process of the namespace with it, and bwrap follows. */
static void kill_sandbox(struct cf_launch *lc)
{
	if (lc->backend == CONFINE_BACKEND_LANDLOCK && lc->policy != CONFINE_POLICY_OFF) {
		/* No pid namespace: the cgroup when there is one, the command's process group
		 * (its session leader's pid, held while it is not reaped), and the command. */
		cf_cgroup_kill(lc->cgroup);
		if (!lc->reaped)
			kill(-lc->facts.pid, SIGKILL);
		send_target(lc, SIGKILL);
		return;
	}
	if ((pid_t)lc->facts.target_pid != lc->facts.pid)
		send_target(lc, SIGKILL);
	if (!lc->reaped)
		kill(lc->facts.pid, SIGKILL);
}

/*
 * R34: bwrap is done and the helper waits.  When every protection is where the plan put it,
 * the helper may start the command; otherwise the sandbox is ended before the command ever
 * ran and the run is planned again (wait_command).
 */
static void settle(struct cf_launch *lc)
{
	char path[CF_SETTLE_PATH] = "";
	const char *changed = NULL;
	bool ok = (pid_t)lc->facts.target_pid > 0 && (pid_t)lc->facts.target_pid != lc->facts.pid;
	if (!ok)
		changed = "the sandbox's mount table (pid 1 of the sandbox is unknown)";
	else if (!(ok = cf_settled(lc->plan, lc->facts.skip, lc->idents,
				   (pid_t)lc->facts.target_pid, path)))
		changed = path;
	if (ok) {
		ssize_t k;
		do
			k = write(lc->go_w, "g", 1);
		while (k < 0 && errno == EINTR);
		ok = k == 1;
		if (!ok)
			changed = "the helper's go pipe";
	}
	close(lc->go_w);
	lc->go_w = -1;
	if (!ok) {
		free(lc->facts.unsettled);
		lc->facts.unsettled = cf_strdup(changed ? changed : "?");
		kill_sandbox(lc);
	}
}

/* Helper mode: the transient endpoints the helper found gone (CF_HELPER_LEFT_OUT in its list)
 * were left out of this launch, as skip_vanished leaves them out of bwrap's. */
static void helper_left_out(struct cf_launch *lc)
{
	if (lc->mounts_r < 0 || !lc->by_helper || !lc->facts.skip)
		return;
	const struct cf_plan *plan = lc->plan;
	char *list = NULL;
	size_t len = 0, at = 0;
	/* One read of the whole list (a memfd of confine's own: only a failed allocation leaves it
	 * unread, and then no endpoint is taken as left out). */
	struct stat st;
	if (fstat(lc->mounts_r, &st) == 0 && st.st_size > 0 &&
	    (list = malloc((size_t)st.st_size)) &&
	    pread(lc->mounts_r, list, (size_t)st.st_size, 0) == st.st_size)
		len = (size_t)st.st_size;
	for (size_t i = 0; i < plan->n_mounts && at < len; i++) {
		const struct cf_mount *m = &plan->mounts[i];
		if (!lc->by_helper[i] || m->op == CF_MNT_REMOUNT_RO ||
		    m->op == CF_MNT_CACHE_OVERLAY)
			continue;
		/* The tool caches' own records (R39) belong to no mount of this walk. */
		while (at < len && list[at] && strchr("coUWau", list[at]))
			at += strnlen(list + at + 1, len - at - 1) + 2;
		if (at >= len)
			break;
		if (m->transient && list[at] == CF_HELPER_LEFT_OUT) {
			lc->facts.skip[i] = true;
			for (size_t j = i + 1; m->op == CF_MNT_HIDE_DIR && j < plan->n_mounts; j++)
				if (plan->mounts[j].op == CF_MNT_REMOUNT_RO &&
				    !strcmp(plan->mounts[j].path, m->path))
					lc->facts.skip[j] = true;
		}
		at += strlen(m->path) + 2;
	}
	free(list);
	close(lc->mounts_r);
	lc->mounts_r = -1;
}

/*
 * Helper mode, at READY: the masks (exec/linux/bwrap/masks.c).  A failure becomes the record
 * confine-init sent when it made them itself (CF_HELPER_CHANGED: plan again; otherwise launch
 * again without helper mode), and the sandbox ends before the command ever ran.  Returns
 * whether the masks are made.
 */
static bool helper_masks(struct cf_launch *lc)
{
	size_t cap = sizeof(lc->rec) / sizeof(lc->rec[0]);
	if (!lc->by_helper || lc->mounts_r < 0)
		return true;
	struct cf_helper_record rec;
	if (cf_masks_make((pid_t)lc->facts.target_pid, lc->mounts_r, &rec) == 0)
		return true;
	if (lc->n_rec < cap)
		lc->rec[lc->n_rec++] = rec;
	if (lc->go_w >= 0)
		close(lc->go_w);
	lc->go_w = -1;
	kill_sandbox(lc);
	return false;
}

/* Reads the helper's records that have arrived; notes READY. */
static void read_records(struct cf_launch *lc)
{
	size_t cap = sizeof(lc->rec) / sizeof(lc->rec[0]);
	while (lc->status_fd >= 0 && lc->n_rec < cap) {
		ssize_t k = read(lc->status_fd, &lc->rec[lc->n_rec], sizeof(lc->rec[0]));
		if (k < 0 && errno == EINTR)
			continue;
		if (k != (ssize_t)sizeof(lc->rec[0]))
			break; /* EAGAIN, EOF, or a torn record (never: one write each) */
		bool ready = lc->rec[lc->n_rec++].type == CF_HELPER_READY && !lc->ready;
		if (ready) {
			lc->ready = true;
			if (!helper_masks(lc))
				continue;
			helper_left_out(lc);
			cf_netns_attach(lc); /* R43, before the command starts */
			/* R41: the sandbox's pty before the command starts; none, and it never
			 * does. */
			if (cf_pty_receive(lc->pty, &lc->pty_err) < 0) {
				close(lc->go_w);
				lc->go_w = -1;
				kill_sandbox(lc);
			} else if (lc->go_w >= 0) {
				settle(lc);
			}
		}
	}
}

static void handle_pending(struct cf_launch *lc)
{
	/* One exchange: a signal handler storing a new signal between a read and a clear would
	 * be lost. */
	int sig = __atomic_exchange_n(&lc->pending_sig, 0, __ATOMIC_SEQ_CST);
	if (!sig)
		return;
	if (lc->ready) {
		cf_launch_forward_signal(lc, sig);
	} else {
		lc->early_sig = sig;
		kill_sandbox(lc);
	}
}

static uint64_t elapsed_ms(const struct cf_launch *lc)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)(now.tv_sec - lc->start_time.tv_sec) * 1000 +
	       (uint64_t)((now.tv_nsec - lc->start_time.tv_nsec) / 1000000);
}

/* The earliest deadline still ahead, in ms from the start (UINT64_MAX: none). */
static uint64_t next_deadline(const struct cf_launch *lc, uint64_t end_at)
{
	uint64_t d = UINT64_MAX;
	if (lc->timeout_ms && !lc->facts.timed_out)
		d = lc->timeout_ms;
	if (!lc->facts.killed_after_grace && !lc->facts.timed_out && end_at < d)
		d = end_at;
	return d;
}

/*
 * Waits for bwrap (or the command, under policy off) to exit while watching the helper's status
 * pipe (READY), signals noted by cf_launch_forward_signal, the timeout and the kill grace.
 * Without a pidfd (Linux < 5.3) the same loop polls with a short tick and reaps with WNOHANG,
 * so that --timeout and the grace still hold.
 */
static void watch(struct cf_launch *lc)
{
	int pfd = (int)syscall(SYS_pidfd_open, lc->facts.pid, 0);
	bool status_open = lc->status_fd >= 0 && lc->policy != CONFINE_POLICY_OFF;
	uint64_t end_at = UINT64_MAX;
	if (status_open)
		fcntl(lc->status_fd, F_SETFL, O_NONBLOCK);
	for (;;) {
		uint64_t now = elapsed_ms(lc);
		if (lc->timeout_ms && !lc->facts.timed_out && now >= lc->timeout_ms) {
			lc->facts.timed_out = true;
			kill_sandbox(lc);
		}
		if (lc->end_requested && end_at == UINT64_MAX)
			end_at = now + lc->kill_grace_ms;
		if (end_at != UINT64_MAX && now >= end_at && !lc->facts.killed_after_grace &&
		    !lc->facts.timed_out) {
			lc->facts.killed_after_grace = true;
			kill_sandbox(lc);
		}
		uint64_t d = next_deadline(lc, end_at);
		int tmo = d == UINT64_MAX ? -1 : d - now > INT32_MAX ? INT32_MAX : (int)(d - now);
		if (pfd < 0 && (tmo < 0 || tmo > 20))
			tmo = 20;
		struct cf_tee *tee = (*lc->tee.fd) >= 0 ? (*lc->tee.tee) : NULL;
		struct pollfd fds[5 + CF_PTY_NFDS] = {
		    {.fd = pfd, .events = POLLIN},
		    {.fd = lc->ready || !status_open ? -1 : lc->status_fd, .events = POLLIN},
		    {.fd = lc->wake_r, .events = POLLIN},
		    {.fd = tee && cf_tee_in_events(tee) ? tee->in : -1, .events = POLLIN},
		    {.fd = tee && cf_tee_out_events(tee) ? tee->out : -1, .events = POLLOUT}};
		cf_pty_poll(lc->pty, fds + 5);
		int k = poll(fds, 5 + CF_PTY_NFDS, tmo);
		if (k < 0 && errno != EINTR)
			break;
		/* The command's stderr first: it must not wait on confine for longer than it
		 * takes to pass one buffer on. */
		if (k > 0 && fds[4].revents)
			cf_tee_write(tee);
		if (k > 0 && fds[3].revents)
			cf_tee_read(tee);
		if (k > 0)
			cf_pty_pump(lc->pty, fds + 5);
		if (k > 0 && fds[1].revents)
			read_records(lc);
		if (k > 0 && (fds[1].revents & (POLLHUP | POLLERR)) && !lc->ready)
			status_open = false; /* the helper is gone: only bwrap's exit is left */
		if (k > 0 && fds[2].revents) {
			char sink[64];
			while (read(lc->wake_r, sink, sizeof(sink)) > 0)
				;
			cf_pty_tick(lc->pty);
		}
		handle_pending(lc);
		if (pfd >= 0 && k > 0 && fds[0].revents)
			break;
		if (pfd < 0 &&
		    waitpid(lc->facts.pid, &lc->reaped_status, WNOHANG) == lc->facts.pid) {
			lc->reaped = true;
			break;
		}
	}
	if (pfd >= 0)
		close(pfd);
}

static size_t read_all(int fd, char *buf, size_t cap)
{
	size_t len = 0;
	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (len < cap) {
		ssize_t k = read(fd, buf + len, cap - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		len += (size_t)k;
	}
	return len;
}

/* bwrap's first line on its stderr, without the "bwrap: " prefix. */
static void setup_message(struct cf_launch *lc, char *msg, size_t cap)
{
	size_t n = lc->err_fd >= 0 ? read_all(lc->err_fd, msg, cap - 1) : 0;
	msg[n] = '\0';
	char *nl = strchr(msg, '\n');
	if (nl)
		*nl = '\0';
	if (!strncmp(msg, "bwrap: ", 7))
		memmove(msg, msg + 7, strlen(msg + 7) + 1);
}

/* How often a launch is tried again after a host socket or FIFO vanished under bwrap. */
#define TRANSIENT_RETRIES 3

/*
 * A host IPC endpoint hidden by the plan can go away between the sweep and bwrap's mount (a
 * short-lived service, another sandbox's socket): bwrap then fails to create the mount point on
 * the read-only root, naming the path or a parent of it.  That mount is left out and the
 * launch tried again; the command has not started.  Returns whether to try again.
 */
static bool skip_vanished(struct cf_launch *lc, const char *msg)
{
	if (lc->attempts >= TRANSIENT_RETRIES || !lc->facts.skip)
		return false;
	bool found = false;
	for (size_t i = 0; i < lc->plan->n_mounts; i++) {
		const struct cf_mount *m = &lc->plan->mounts[i];
		if (!m->transient || lc->facts.skip[i])
			continue;
		const char *at = strstr(msg, m->path);
		size_t pl = strlen(m->path);
		/* "Can't create file at PATH: ...", "Can't mkdir parents for PATH", "... on
		 * /newroot/PATH: ...", "Unable to find \"/newroot/PATH\" in mount table".  Left out
		 * even if it is back by now: it comes and goes, and the post-run check reports it
		 * as not hidden when it is there after the command. */
		if (at && (at[pl] == '\0' || at[pl] == ':' || at[pl] == '"')) {
			lc->facts.skip[i] = true;
			found = true;
			for (size_t j = i + 1; m->op == CF_MNT_HIDE_DIR && j < lc->plan->n_mounts;
			     j++)
				if (lc->plan->mounts[j].op == CF_MNT_REMOUNT_RO &&
				    !strcmp(lc->plan->mounts[j].path, m->path))
					lc->facts.skip[j] = true;
		}
	}
	if (found)
		lc->attempts++;
	return found;
}

/*
 * Helper mode: a target is not what the plan saw (CF_HELPER_CHANGED; the command has not
 * started): R34, plan again.  The same target failing again after the plan was made anew is no
 * change but a path the helper cannot reach as the host shows it (a kernel interface the
 * sandbox's own /proc lacks, say): bwrap makes every mount, and says so if it cannot either.
 */
static int helper_changed(struct cf_launch *lc, const struct cf_helper_record *rec, bool *again,
			  struct confine_error *err)
{
	*again = true;
	if (lc->facts.helper_failed && !strcmp(lc->facts.helper_failed, rec->message)) {
		lc->facts.helper_mode_off = true;
		return 0;
	}
	free(lc->facts.helper_failed);
	free(lc->facts.unsettled);
	lc->facts.unsettled = NULL;
	if (!(lc->facts.helper_failed = cf_strdup(rec->message)) ||
	    !(lc->facts.unsettled = cf_strdup(rec->message)))
		return cf_nomem(err);
	return 0;
}

/*
 * Helper mode failed otherwise (CF_HELPER_MODE_FAIL: a kernel or a profile that refuses a call
 * the check did not catch): one more launch without it, for the rest of the run; the sandbox
 * is the same.  Only a launch in helper mode sends this record.
 */
static int helper_mode_failed(struct cf_launch *lc, const struct cf_helper_record *rec, bool *again,
			      struct confine_error *err)
{
	if (lc->helper_mode_used && !lc->facts.helper_mode_off) {
		lc->facts.helper_mode_off = true;
		*again = true;
		return 0;
	}
	const char *tab = strchr(rec->message, '\t');
	cf_err(err, CONFINE_E_SPAWN, "sandbox setup failed", tab ? tab + 1 : "confine-init",
	       "%.*s: %s", tab ? (int)(tab - rec->message) : (int)strlen(rec->message),
	       rec->message, strerror(rec->value));
	cf_err_hint(err, "set CONFINE_NO_HELPER_MOUNTS=1 to have bwrap make every mount");
	return CONFINE_E_SPAWN;
}

/*
 * The sandbox's setup ended before the command started.  Under --limit mem, when the cgroup says
 * the limit was reached, that is the cause, whatever the failing step said (an allocation
 * refused, a pipe write refused, a process killed by the OOM killer).
 */
static int memory_cause(const struct cf_launch *lc, struct confine_error *err)
{
	if (!lc->limit_mem || !cf_cgroup_memory_hit(lc->cgroup))
		return 0;
	*err = (struct confine_error){0};
	cf_err(err, CONFINE_E_LIMIT, "sandbox setup failed", "--limit mem",
	       "the memory limit (%llu bytes) was reached by the sandbox's own setup, before the "
	       "command started",
	       (unsigned long long)lc->limit_mem);
	cf_err_hint(err, "raise --limit mem: the sandbox itself needs about 1M (bwrap) or 512K "
			 "(landlock) besides what the command uses; nothing was run");
	return CONFINE_E_LIMIT;
}

static int setup_failure(const char *text, struct confine_error *err)
{
	if (!strncmp(text, "bwrap: ", 7))
		text += 7;
	cf_err(err, CONFINE_E_SPAWN, "sandbox setup failed", "bwrap", "%s",
	       *text ? text : "bwrap exited before the command started");
	if (strstr(text, "namespace") || strstr(text, "uid map"))
		cf_err_hint(err, "run 'confine probe' for the cause and the remedy");
	else if (strstr(text, "Can't") || strstr(text, "source path"))
		cf_err_hint(err, "a path changed while confine started; run the command again");
	return CONFINE_E_SPAWN;
}

/*
 * The sandbox ran the command: its status is confine-init's CF_HELPER_EXIT record.  Without
 * one, a death by signal that confine did not cause (its timeout, the kill after the grace) is
 * pid 1's own, killed from outside the sandbox (the OOM killer, another process): the command
 * went with it and its status is unknown, so *status (128+N) is not said to be the command's.
 * A confine-init older than the record exits without one: only a death by signal is doubted.
 */
static int command_status(struct cf_launch *lc, int *status, struct confine_error *err)
{
	for (size_t i = 0; i < lc->n_rec; i++)
		if (lc->rec[i].type == CF_HELPER_EXIT) {
			*status = lc->rec[i].value;
			lc->facts.from_command = true;
			return 0;
		}
	if (lc->backend != CONFINE_BACKEND_BWRAP || *status <= 128 || lc->facts.timed_out ||
	    lc->facts.killed_after_grace) {
		lc->facts.from_command = true;
		return 0;
	}
	cf_err(err, CONFINE_E_SPAWN, "sandbox ended", "confine-init",
	       "pid 1 of the sandbox was killed by signal %d from outside it, and the command "
	       "with it: the exit status %d is the sandbox's, the command's own is unknown",
	       *status - 128, *status);
	if (lc->limit_mem && cf_cgroup_memory_hit(lc->cgroup))
		cf_err_hint(err, "the memory limit (--limit mem) was reached: raise it");
	else
		cf_err_hint(err, "find what killed it (the kernel log says when it was the OOM "
				 "killer); the command's output so far is above");
	return CONFINE_E_SPAWN;
}

/* One launch: waits for bwrap (or the command) and turns the outcome into *status.  Sets
 * *again when the launch failed only because a hidden host endpoint vanished. */
/* The command is gone: what it left running goes with it, and what the sandbox wrote is
 * collected before bwrap is reaped. */
static void finish_sandbox(struct cf_launch *lc)
{
	if (lc->info_fd >= 0)
		read_child_pid(lc);
	watch(lc);
	if (lc->backend == CONFINE_BACKEND_LANDLOCK && lc->policy != CONFINE_POLICY_OFF) {
		/* The command is gone: what it left running goes with it, as a pid namespace's
		 * teardown would (its cgroup; else its process group, before the leader is reaped
		 * so that the group's number cannot belong to anyone else). */
		cf_cgroup_kill(lc->cgroup);
		if (!lc->reaped)
			kill(-lc->facts.pid, SIGKILL);
	}
	/* bwrap is gone, and every process of the sandbox with it: what they wrote to stderr is
	 * all in the pipe. */
	if ((*lc->tee.fd) >= 0)
		cf_tee_drain((*lc->tee.tee));
	/* All of it is copied: the caller's stderr is let go now, so that a host that reads the
	 * pipe it gave the command to its end sees that end when the command's is reached. */
	if ((*lc->tee.out) >= 0) {
		close((*lc->tee.out));
		(*lc->tee.out) = (*lc->tee.tee)->out = -1;
	}
	cf_pty_finish(lc->pty);
}

/* bwrap (or the landlock child) reaped, its wait status in *st. */
static int reap_child(struct cf_launch *lc, int *st, struct confine_error *err)
{
	if (lc->reaped)
		*st = lc->reaped_status;
	while (!lc->reaped) {
		pid_t p = waitpid(lc->facts.pid, st, 0);
		if (p == lc->facts.pid)
			break;
		if (p < 0 && errno != EINTR)
			return cf_err_os(err, CONFINE_E_OS, "cannot wait for the command", "bwrap",
					 "waitpid", errno);
	}
	lc->facts.target_pid = 0;
	if (lc->facts.target_pidfd >= 0) {
		close(lc->facts.target_pidfd);
		lc->facts.target_pidfd = -1;
	}
	lc->facts.started = false;
	return 0;
}

/* --policy off: the only record is execvp's errno. */
static int policy_off_status(struct cf_launch *lc, int code, int *status, struct confine_error *err)
{
	int e = 0;
	if (read_all(lc->status_fd, (char *)&e, sizeof(e)) == sizeof(e)) {
		*status = e == ENOENT ? 127 : 126;
		return cf_err_os(err, e == ENOENT ? CONFINE_E_NOTFOUND : CONFINE_E_NOEXEC,
				 "cannot run command", lc->plan->argv.v[0], "execvp", e);
	}
	lc->facts.from_command = true;
	*status = code;
	return 0;
}

static int exec_failed(struct cf_launch *lc, const struct cf_helper_record *rec, int *status,
		       struct confine_error *err)
{
	int e = rec->value;
	/* The code is this failure's, never read back from err (a caller's struct may still hold
	 * an earlier failure). */
	int failed = e == ENOENT ? CONFINE_E_NOTFOUND : CONFINE_E_NOEXEC;
	*status = e == ENOENT ? 127 : 126;
	cf_err_os(err, failed, "cannot run command", lc->plan->argv.v[0], "execvp", e);
	if (e == ENOENT)
		cf_err_hint(err, "the command is looked up in PATH inside the sandbox; check that "
				 "it exists and is not hidden");
	else if (e == EACCES)
		cf_err_hint(err, "a rule may hide the command or a directory it lives in; see "
				 "'confine explain PATH'");
	return failed;
}

static int hardening_failed(struct cf_launch *lc, const struct cf_helper_record *rec, int st,
			    struct confine_error *err)
{
	const char *who = lc->backend == CONFINE_BACKEND_LANDLOCK ? "landlock" : "confine-init";
	if (rec->value)
		cf_err(err, CONFINE_E_SPAWN, "sandbox hardening failed", who, "%s: %s",
		       rec->message, strerror(rec->value));
	else /* landlock/spawn.c: killed during its setup */
		cf_err(err, CONFINE_E_SPAWN, "sandbox setup failed", who,
		       "the process that sets up the sandbox was killed by signal %d before the "
		       "command started",
		       WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	cf_err_os_cause(err, rec->value);
	int m = memory_cause(lc, err);
	return m ? m : CONFINE_E_SPAWN;
}

/* The helper's records: *decided when one of them ends the wait (its return value is then the
 * wait's), *ready when the command was started. */
static int read_outcome(struct cf_launch *lc, int st, int *status, bool *again, bool *ready,
			bool *decided, struct confine_error *err)
{
	fcntl(lc->status_fd, F_SETFL, O_NONBLOCK);
	read_records(lc);
	struct cf_helper_record *rec = lc->rec;
	/* The landlock child reports only failures: no record means the command was exec'd. */
	*ready = lc->backend == CONFINE_BACKEND_LANDLOCK;
	*decided = true;
	for (size_t i = 0; i < lc->n_rec; i++) {
		rec[i].message[sizeof(rec[i].message) - 1] = '\0';
		if (rec[i].type == CF_HELPER_READY) {
			*ready = true;
		} else if (rec[i].type == CF_HELPER_EXEC_FAIL) {
			return exec_failed(lc, &rec[i], status, err);
		} else if (rec[i].type == CF_HELPER_CHANGED) {
			return helper_changed(lc, &rec[i], again, err);
		} else if (rec[i].type == CF_HELPER_MODE_FAIL) {
			return helper_mode_failed(lc, &rec[i], again, err);
		} else if (rec[i].type == CF_HELPER_CACHE_FAIL) {
			/* R39: an overlay could not be made (a store on a file system without
			 * user extended attributes...): plan again with redirects.  The sandbox
			 * is gone (helper_masks); a plan without overlays sends none. */
			if (lc->cache_overlay_off)
				return helper_mode_failed(lc, &rec[i], again, err);
			lc->facts.cache_overlay_failed = true;
			*again = true;
			return 0;
		} else if (rec[i].type == CF_HELPER_FAIL) {
			return hardening_failed(lc, &rec[i], st, err);
		}
	}
	*decided = false;
	return 0;
}

/* The sandbox never reported ready: why, or a launch again without what vanished. */
static int never_ready(struct cf_launch *lc, int st, int code, int *status, bool *again,
		       struct confine_error *err)
{
	int m = memory_cause(lc, err);
	if (m)
		return m;
	if (WIFSIGNALED(st)) {
		/* bwrap itself was killed from outside before the sandbox was up. */
		*status = code;
		cf_err(err, CONFINE_E_SPAWN, "sandbox setup failed", "bwrap",
		       "bwrap was killed by signal %d before the command started", WTERMSIG(st));
		return CONFINE_E_SPAWN;
	}
	char msg[2048];
	setup_message(lc, msg, sizeof(msg));
	if ((*again = skip_vanished(lc, msg)))
		return 0;
	return setup_failure(msg, err);
}

int cf_launch_wait(struct cf_launch *lc, int *status, bool *again, struct confine_error *err)
{
	int st = 0, r;
	*status = 125;
	*again = false;
	finish_sandbox(lc);
	if ((r = reap_child(lc, &st, err)) < 0)
		return r;
	int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (lc->policy == CONFINE_POLICY_OFF)
		return policy_off_status(lc, code, status, err);
	bool ready, decided;
	r = read_outcome(lc, st, status, again, &ready, &decided, err);
	if (decided)
		return r;
	if (lc->pty_err.code) {
		*err = lc->pty_err;
		return CONFINE_E_SPAWN;
	}
	if (lc->early_sig) {
		/* A signal came before the command started: the sandbox was ended, the command
		 * never ran; the status says which signal. */
		*status = 128 + lc->early_sig;
		return 0;
	}
	if (lc->facts.unsettled && !lc->facts.timed_out) {
		/* The command never started: plan again (wait_command), or give up. */
		*again = true;
		return 0;
	}
	if (!ready && lc->facts.timed_out) {
		/* --timeout ran out while the sandbox was starting: the run timed out, as it does
		 * once the command runs (status 137, the run says so), not a failed setup. */
		*status = 128 + SIGKILL;
		return 0;
	}
	if (!ready)
		return never_ready(lc, st, code, status, again, err);
	*status = code;
	return command_status(lc, status, err);
}
