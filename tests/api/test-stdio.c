/* SPDX-License-Identifier: MIT */
/*
 * confine_request_set_stdio as a threaded host meets it (issue 27): one thread writes to this
 * process's stdout in a loop while another runs a command with pipes of its own.  The
 * command's pipes hold the command's bytes only (with the stderr tee of the denial scan too),
 * every line of the writer reaches this process's stdout, a host reading the pipes to their
 * end sees that end when confine_run_wait returns (before the run is freed), and the terminal
 * check looks at the given descriptors, not at this process's.  Both backends, and policy off.
 *
 * The control: the way the bindings did it before (this process's 0, 1, 2 swapped for the
 * pipes around confine_run_start) lets the writer's lines into the command's pipe; the same
 * observation catches it (up to ten tries: the writer must be scheduled in the window).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../unit/tap.h"
#include "confine.h"
#include "request.h"

static char home[512], ws[600];
static bool policy_off; /* the runs of new_request run the command as it is (policy off) */

/* ---- the other thread: numbered lines to this process's descriptor 1 ---- */
struct writer {
	atomic_int stop;
	atomic_long written;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	while (!atomic_load(&w->stop)) {
		char line[48];
		long n = atomic_load(&w->written);
		int len = snprintf(line, sizeof(line), "host line %ld\n", n);
		if (write(1, line, (size_t)len) != len)
			break;
		atomic_store(&w->written, n + 1);
	}
	return NULL;
}

/* ---- the host's reader: both pipes to their end, 120 s at most (a busy machine) ---- */
struct reader {
	int fd[2];
	char buf[2][65536];
	size_t len[2];
	bool eof[2];
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p[2];
		for (int i = 0; i < 2; i++)
			p[i] = (struct pollfd){.fd = r->eof[i] ? -1 : r->fd[i], .events = POLLIN};
		if (r->eof[0] && r->eof[1])
			return NULL;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long left =
		    120000 - (now.tv_sec - t0.tv_sec) * 1000 - (now.tv_nsec - t0.tv_nsec) / 1000000;
		if (left <= 0)
			return NULL; /* no end: someone still holds a write end */
		if (poll(p, 2, (int)left) < 0 && errno != EINTR)
			return NULL;
		for (int i = 0; i < 2; i++) {
			if (!p[i].revents)
				continue;
			char tmp[4096];
			ssize_t k = read(r->fd[i], tmp, sizeof(tmp));
			if (k <= 0) {
				r->eof[i] = k == 0 || errno != EINTR;
				continue;
			}
			size_t room = sizeof(r->buf[i]) - 1 - r->len[i];
			size_t take = (size_t)k < room ? (size_t)k : room;
			memcpy(r->buf[i] + r->len[i], tmp, take);
			r->len[i] += take;
		}
	}
}

struct result {
	int rc, status, refused;
	struct confine_error err;
	struct reader rd;
	long written;
	bool host_out_whole; /* every writer line in this process's stdout, in order, alone */
};

static int new_request(confine_request **req, enum confine_backend bk, bool scan,
		       const char *script, struct confine_error *err)
{
	char home_env[600];
	snprintf(home_env, sizeof(home_env), "HOME=%s", home);
	const char *env[] = {"PATH=/usr/bin:/bin", home_env, NULL};
	const char *argv[] = {"/bin/sh", "-c", script};
	int rc = test_request(req, 3, argv, ws, env, err);
	if (rc == 0)
		rc = confine_request_set_backend(*req, bk, err);
	if (rc == 0)
		rc = confine_request_set_denial_scan(*req, scan, err);
	if (rc == 0 && policy_off)
		rc = confine_request_set_policy(*req, CONFINE_POLICY_OFF, err);
	return rc;
}

/* The lines of `path` are exactly "host line 0" .. "host line n-1". */
static bool whole(const char *path, long n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	char line[128];
	long i = 0;
	bool ok = true;
	while (ok && fgets(line, sizeof(line), f)) {
		char want[48];
		snprintf(want, sizeof(want), "host line %ld\n", i++);
		ok = !strcmp(line, want);
	}
	fclose(f);
	return ok && i == n;
}

/* The old way of the bindings: this process's descriptors swapped around the start. */
static int swapped_start(confine_run *run, const int fds[3], struct confine_error *err)
{
	int saved[3];
	for (int i = 0; i < 3; i++) {
		saved[i] = dup(i);
		dup2(fds[i], i);
	}
	int rc = confine_run_start(run, err);
	for (int i = 0; i < 3; i++) {
		dup2(saved[i], i);
		close(saved[i]);
	}
	return rc;
}

/* One run with pipes of its own while the writer writes to descriptor 1 (a file here). */
static void one_run(enum confine_backend bk, bool scan, bool swap, struct result *res)
{
	const char *script = "cat; echo command-out; echo command-err >&2";
	memset(res, 0, sizeof(*res));
	res->status = -1;
	int in[2], out[2], er[2];
	char host_out[700];
	snprintf(host_out, sizeof(host_out), "%s/host-out", home);
	int file = open(host_out, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
	if (file < 0 || pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 ||
	    pipe2(er, O_CLOEXEC) < 0 || write(in[1], "stdin-data\n", 11) != 11) {
		res->rc = -1000;
		return;
	}
	close(in[1]);
	confine_request *req = NULL;
	confine_run *run = NULL;
	res->rc = new_request(&req, bk, scan, script, &res->err);
	if (res->rc == 0 && !swap) {
		res->rc = confine_request_set_stdio(req, in[0], out[1], er[1], &res->err);
		/* A refusal leaves the request as it was: the pipes stay the command's. */
		res->refused = confine_request_set_stdio(req, -1, -7, -1, NULL);
	}
	if (res->rc == 0)
		res->rc = confine_run_prepare(req, &run, &res->err);

	fflush(stdout);
	int tap_out = dup(1);
	dup2(file, 1);
	close(file);
	struct writer w = {0};
	pthread_t wt, rt;
	res->rd.fd[0] = out[0];
	res->rd.fd[1] = er[0];
	pthread_create(&wt, NULL, writer_main, &w);
	pthread_create(&rt, NULL, reader_main, &res->rd);
	while (atomic_load(&w.written) < 200) /* the writer is writing */
		sched_yield();
	if (res->rc == 0)
		res->rc = swap ? swapped_start(run, (int[3]){in[0], out[1], er[1]}, &res->err)
			       : confine_run_start(run, &res->err);
	/* The host's own copies go: the ends are the command's (and the library's) now. */
	close(in[0]);
	close(out[1]);
	close(er[1]);
	if (res->rc == 0)
		res->rc = confine_run_wait(run, &res->status, &res->err);
	/* A host reading to the end (wait_with_output) gets it before it frees the run. */
	pthread_join(rt, NULL);
	atomic_store(&w.stop, 1);
	pthread_join(wt, NULL);
	res->written = atomic_load(&w.written);
	confine_run_free(run);
	confine_request_free(req);
	dup2(tap_out, 1);
	close(tap_out);
	close(out[0]);
	close(er[0]);
	res->host_out_whole = whole(host_out, res->written);
}

static const char *bk_name(enum confine_backend bk)
{
	return policy_off ? "policy off" : bk == CONFINE_BACKEND_LANDLOCK ? "landlock" : "bwrap";
}

static void test_threaded(enum confine_backend bk, bool scan)
{
	struct result res;
	one_run(bk, scan, false, &res);
	const char *b = bk_name(bk), *s = scan ? ", denial scan (the stderr tee)" : "";
	TAP_OK(res.rc == 0 && res.status == 0, "%s%s: the run: rc %d, status %d (%s: %s)", b, s,
	       res.rc, res.status, res.err.what, res.err.reason);
	TAP_INTEQ(res.refused, CONFINE_E_INVALID, "%s%s: set_stdio(-7) refused", b, s);
	res.rd.buf[0][res.rd.len[0]] = res.rd.buf[1][res.rd.len[1]] = '\0';
	TAP_STREQ(res.rd.buf[0], "stdin-data\ncommand-out\n",
		  "%s%s: the command's stdout pipe holds its stdin pipe's data and its own "
		  "output, nothing of the writer thread's",
		  b, s);
	TAP_STREQ(res.rd.buf[1], "command-err\n",
		  "%s%s: the command's stderr pipe holds its stderr alone", b, s);
	TAP_OK(res.rd.eof[0] && res.rd.eof[1],
	       "%s%s: both pipes reach their end when confine_run_wait returns, before the run "
	       "is freed",
	       b, s);
	TAP_OK(res.written > 200 && res.host_out_whole,
	       "%s%s: all %ld lines of the writer thread reached this process's stdout, in order",
	       b, s, res.written);
}

/* The observation catches the swap of before: the writer's lines in the command's pipe. */
static void test_swap_control(void)
{
	struct result res;
	bool leaked = false;
	int tries = 0;
	while (!leaked && tries++ < 10) {
		one_run(CONFINE_BACKEND_BWRAP, false, true, &res);
		res.rd.buf[0][res.rd.len[0]] = '\0';
		leaked = res.rc == 0 && strstr(res.rd.buf[0], "host line ") != NULL;
	}
	TAP_OK(leaked,
	       "control: with this process's descriptors swapped around the start (the "
	       "bindings' old way), the writer thread's lines reach the command's pipe "
	       "(%d tries)",
	       tries);
}

/* A descriptor closed between the request and the start: refused at the start, nothing run. */
static void test_closed_before_start(void)
{
	int p[2];
	confine_request *req = NULL;
	confine_run *run = NULL;
	struct confine_error err = {0};
	char marker[700];
	snprintf(marker, sizeof(marker), "touch '%s/ran'", ws);
	int rc = pipe2(p, O_CLOEXEC) < 0
		     ? -1000
		     : new_request(&req, CONFINE_BACKEND_BWRAP, false, marker, &err);
	if (rc == 0)
		rc = confine_request_set_stdio(req, -1, p[1], -1, &err);
	if (rc == 0)
		rc = confine_run_prepare(req, &run, &err);
	close(p[1]);
	{
		char l[64], t[256];
		snprintf(l, 64, "/proc/self/fd/%d", p[1]);
		ssize_t k = readlink(l, t, 255);
		t[k > 0 ? k : 0] = 0;
	}
	if (rc == 0)
		rc = confine_run_start(run, &err);
	TAP_INTEQ(rc, CONFINE_E_INVALID, "stdout closed before confine_run_start: refused");
	TAP_OK(!strcmp(err.subject, "stdout") && err.hint[0],
	       "... names stdout, with a hint (%s / %s)", err.reason, err.hint);
	int status = -1;
	if (rc == 0) /* started after all: the command gets its chance to run */
		confine_run_wait(run, &status, NULL);
	char ran[700];
	snprintf(ran, sizeof(ran), "%s/ran", ws);
	TAP_OK(access(ran, F_OK) < 0, "... and nothing ran");
	confine_run_free(run);
	confine_request_free(req);
	close(p[0]);
}

/* The terminal check (CONFINE_TTY_AUTO) looks at the given descriptors. */
static void test_terminal(void)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	int s = -1;
	if (m >= 0 && grantpt(m) == 0 && unlockpt(m) == 0)
		s = open(ptsname(m), O_RDWR | O_NOCTTY | O_CLOEXEC);
	TAP_OK(s >= 0, "a pseudo-terminal for the checks");
	if (s < 0)
		return;
	const char *script = "if [ -t 0 ] || [ -t 1 ] || [ -t 2 ]; then echo is-a-tty; "
			     "else echo not-a-tty; fi";
	for (int given_tty = 0; given_tty < 2; given_tty++) {
		/* given_tty 0: this process's 0 is the terminal, the command's are pipes;
		 * 1: this process's are not, the command's stdout is the terminal. */
		int out[2], nul = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (pipe2(out, O_CLOEXEC) < 0 || nul < 0)
			return;
		int saved0 = dup(0);
		dup2(given_tty ? nul : s, 0);
		confine_request *req = NULL;
		confine_run *run = NULL;
		struct confine_error err = {0};
		int status = -1;
		int rc = new_request(&req, CONFINE_BACKEND_BWRAP, false, script, &err);
		if (rc == 0)
			rc = confine_request_set_stdio(req, nul, given_tty ? s : out[1], nul, &err);
		if (rc == 0)
			rc = confine_run_prepare(req, &run, &err);
		if (rc == 0)
			rc = confine_run_start(run, &err);
		dup2(saved0, 0);
		close(saved0);
		close(out[1]);
		if (rc == 0)
			rc = confine_run_wait(run, &status, &err);
		confine_run_free(run);
		confine_request_free(req);
		/* All of the output is relayed when confine_run_wait returns: what is there. */
		char got[256] = "";
		size_t len = 0;
		int from = given_tty ? m : out[0];
		struct pollfd p = {.fd = from, .events = POLLIN};
		for (int wait_ms = 5000; len < sizeof(got) - 1 && poll(&p, 1, wait_ms) == 1;
		     wait_ms = 0) {
			ssize_t k = read(from, got + len, sizeof(got) - 1 - len);
			if (k <= 0)
				break;
			len += (size_t)k;
		}
		got[len] = '\0';
		TAP_OK(rc == 0 && status == 0, "terminal %d: the run: rc %d, status %d (%s)",
		       given_tty, rc, status, err.reason);
		/* Relayed, the line went through two terminals' ONLCR: the command's own pty's,
		 * then the given one's; written to the given one directly, through one. */
		if (given_tty)
			TAP_STREQ(got, "is-a-tty\r\r\n",
				  "a terminal given as stdout gets the command a terminal of its "
				  "own, relayed to the given one");
		else
			TAP_STREQ(got, "not-a-tty\n",
				  "this process's terminal on 0 does not give a command whose "
				  "descriptors are pipes a terminal");
		close(out[0]);
		close(nul);
	}
	close(s);
	close(m);
}

int main(void)
{
	char tmpl[] = "/var/tmp/confine-stdio.XXXXXX";
	char *top = mkdtemp(tmpl);
	TAP_OK(top != NULL, "scratch directory");
	if (!top)
		return tap_done();
	char ssh[700];
	snprintf(home, sizeof(home), "%s/home", top);
	snprintf(ws, sizeof(ws), "%s/ws", top);
	snprintf(ssh, sizeof(ssh), "%s/.ssh", home);
	mkdir(home, 0755);
	mkdir(ws, 0755);
	mkdir(ssh, 0700);

	for (int scan = 0; scan < 2; scan++) {
		test_threaded(CONFINE_BACKEND_BWRAP, scan);
		test_threaded(CONFINE_BACKEND_LANDLOCK, scan);
	}
	policy_off = true; /* the command started directly (spawn_direct) */
	test_threaded(CONFINE_BACKEND_BWRAP, false);
	policy_off = false;
	test_swap_control();
	test_closed_before_start();
	test_terminal();

	char cmd[700];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	TAP_INTEQ(system(cmd), 0, "scratch removed");
	return tap_done();
}
