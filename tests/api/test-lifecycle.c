/* SPDX-License-Identifier: MIT */
/*
 * A run's life through the public API, as a host may misuse it: a second confine_run_start on
 * a run already started is refused and changes nothing (the command runs once, the wait gives
 * its status), and a run freed after its start without a wait leaves nothing behind in this
 * process (its descriptors, the guards' threads and listeners, the tool caches' locks: the
 * count of this process's descriptors and threads is what it was before the run), nor does a
 * run prepared and freed without a start.  Both backends, and policy off.
 */
#include <dirent.h>
#include <errno.h>
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

static int count_dir(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - (strcmp(path, "/proc/self/fd") == 0); /* the listing's own descriptor */
}

/* The descriptors of this process, as diagnostics of a failure. */
static void show_fds(void)
{
	for (int fd = 0; fd < 256; fd++) {
		char p[64], t[256];
		snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
		ssize_t n = readlink(p, t, sizeof(t) - 1);
		if (n > 0) {
			t[n] = 0;
			printf("# fd %d -> %s\n", fd, t);
		}
	}
}

/* The threads of this process, once the ones ending have ended (5 s at most). */
static int threads_settled(int want)
{
	int n = count_dir("/proc/self/task");
	for (int i = 0; i < 500 && n != want; i++) {
		nanosleep(&(struct timespec){0, 10000000}, NULL);
		n = count_dir("/proc/self/task");
	}
	return n;
}

static int new_run(confine_run **run, enum confine_backend bk, bool off, const char *script,
		   struct confine_error *err)
{
	char home_env[600];
	snprintf(home_env, sizeof(home_env), "HOME=%s", home);
	const char *env[] = {"PATH=/usr/bin:/bin", home_env, NULL};
	const char *argv[] = {"/bin/sh", "-c", script};
	confine_request *req = NULL;
	int rc = test_request(&req, 3, argv, ws, env, err);
	if (rc == 0)
		rc = confine_request_set_backend(req, bk, err);
	if (rc == 0 && off)
		rc = confine_request_set_policy(req, CONFINE_POLICY_OFF, err);
	if (rc == 0)
		rc = confine_run_prepare(req, run, err);
	confine_request_free(req);
	return rc;
}

static void test_twice(enum confine_backend bk, bool off, const char *name)
{
	char marker[700], script[900];
	snprintf(marker, sizeof(marker), "%s/started-%s", ws, name);
	snprintf(script, sizeof(script), "echo x >> '%s'", marker);
	struct confine_error err = {0};
	confine_run *run = NULL;
	int fds = count_dir("/proc/self/fd");
	int rc = new_run(&run, bk, off, script, &err);
	TAP_INTEQ(rc, 0, "%s: prepared (%s)", name, err.reason);
	if (rc < 0)
		return;
	TAP_INTEQ(confine_run_start(run, &err), 0, "%s: started (%s)", name, err.reason);
	struct confine_error again = {0};
	TAP_INTEQ(confine_run_start(run, &again), CONFINE_E_INVALID,
		  "%s: a second start of the same run is refused", name);
	TAP_OK(strstr(again.reason, "already started") != NULL, "%s: ... saying so (got: %s: %s)",
	       name, again.what, again.reason);
	int status = -1;
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(confine_run_wait(run, &status, &err), 0, "%s: waited (%s)", name, err.reason);
	TAP_INTEQ(status, 0, "%s: the command's status", name);
	confine_run_free(run);
	struct stat st;
	TAP_OK(stat(marker, &st) == 0 && st.st_size == 2, "%s: the command ran once (%lld bytes)",
	       name, (long long)st.st_size);
	TAP_INTEQ(count_dir("/proc/self/fd"), fds, "%s: no descriptor left in this process", name);
}

static void test_free_unwaited(enum confine_backend bk, bool off, const char *name)
{
	struct confine_error err = {0};
	confine_run *run = NULL;
	int fds = count_dir("/proc/self/fd");
	int threads = count_dir("/proc/self/task");
	int rc = new_run(&run, bk, off, "exec sleep 60", &err);
	TAP_INTEQ(rc, 0, "%s: prepared (%s)", name, err.reason);
	if (rc < 0)
		return;
	TAP_INTEQ(confine_run_start(run, &err), 0, "%s: started (%s)", name, err.reason);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	confine_run_free(run); /* no wait */
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	TAP_OK(s < 30, "%s: a run freed without a wait does not wait for the command (%.1f s)",
	       name, s);
	if (count_dir("/proc/self/fd") != fds)
		show_fds();
	TAP_INTEQ(count_dir("/proc/self/fd"), fds,
		  "%s: freed unwaited, no descriptor left in this process", name);
	TAP_INTEQ(threads_settled(threads), threads,
		  "%s: freed unwaited, no thread of the run left in this process", name);
}

static void test_free_unstarted(enum confine_backend bk, const char *name)
{
	struct confine_error err = {0};
	confine_run *run = NULL;
	int fds = count_dir("/proc/self/fd");
	int rc = new_run(&run, bk, false, "true", &err);
	TAP_INTEQ(rc, 0, "%s: prepared (%s)", name, err.reason);
	confine_run_free(run); /* never started */
	if (count_dir("/proc/self/fd") != fds)
		show_fds();
	TAP_INTEQ(count_dir("/proc/self/fd"), fds,
		  "%s: prepared and freed, no descriptor left in this process", name);
}

int main(void)
{
	char tmpl[] = "/var/tmp/confine-lifecycle.XXXXXX";
	char *top = mkdtemp(tmpl);
	TAP_OK(top != NULL, "scratch directory");
	if (!top)
		return tap_done();
	chmod(top, 0755);
	snprintf(home, sizeof(home), "%s/home", top);
	snprintf(ws, sizeof(ws), "%s/ws", top);
	mkdir(home, 0755);
	mkdir(ws, 0755);
	test_twice(CONFINE_BACKEND_BWRAP, false, "bwrap");
	test_twice(CONFINE_BACKEND_LANDLOCK, false, "landlock");
	test_twice(CONFINE_BACKEND_BWRAP, true, "policy off");
	test_free_unwaited(CONFINE_BACKEND_BWRAP, false, "bwrap");
	test_free_unwaited(CONFINE_BACKEND_LANDLOCK, false, "landlock");
	test_free_unwaited(CONFINE_BACKEND_BWRAP, true, "policy off");
	test_free_unstarted(CONFINE_BACKEND_BWRAP, "bwrap");
	test_free_unstarted(CONFINE_BACKEND_LANDLOCK, "landlock");
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	TAP_INTEQ(system(cmd), 0, "scratch removed");
	return tap_done();
}
