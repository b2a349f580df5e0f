/* SPDX-License-Identifier: MIT */
/*
 * util/procfs.c, the one reader of /proc/PID: the stat parser against names made to fool it
 * (a comm may hold ") ", spaces, parentheses, a newline), the status parser's whole-field
 * match, and the readers on real processes and threads (a child that names itself so, a thread
 * whose status names its group).  Table-driven where it parses.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/procfs.h"
#include "../tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct stat_case {
	const char *text;
	int rc;
	pid_t pid;
	const char *comm;
	char state;
	pid_t ppid, pgrp, session;
	const char *why;
};

static const struct stat_case stat_cases[] = {
    {"42 (sh) S 1 42 42 0 -1 4194560 ...", 0, 42, "sh", 'S', 1, 42, 42, "a plain line"},
    {"7 (a) S 9 1 1 0) R 3 4 5 0", 0, 7, "a) S 9 1 1 0", 'R', 3, 4, 5,
     "a comm that holds ') S 9 ...' is taken to the last ')'"},
    {"7 (x) 1 (y) z) S 2 3 4 0", 0, 7, "x) 1 (y) z", 'S', 2, 3, 4,
     "') ' and '(' and spaces inside the comm"},
    {"8 () Z 0 0 0 0", 0, 8, "", 'Z', 0, 0, 0, "an empty comm"},
    {"9 (a\nb) D 1 1 1 0", 0, 9, "a\nb", 'D', 1, 1, 1, "a newline inside the comm"},
    {"10 ())) T 5 6 7", 0, 10, "))", 'T', 5, 6, 7, "a comm of parentheses only"},
    {"11 (sh S 1 1 1", -1, 0, NULL, 0, 0, 0, 0, "no ')': not a stat line"},
    {"12 (sh) S", -1, 0, NULL, 0, 0, 0, 0, "cut after the state"},
    {"13 (sh) S 1 2", -1, 0, NULL, 0, 0, 0, 0, "cut before the session"},
    {"14 (sh)S 1 2 3", -1, 0, NULL, 0, 0, 0, 0, "no blank after ')'"},
    {"15 (sh) SS 1 2 3", -1, 0, NULL, 0, 0, 0, 0, "a state of two letters"},
    {"(sh) S 1 2 3", -1, 0, NULL, 0, 0, 0, 0, "no pid"},
    {"x16 (sh) S 1 2 3", -1, 0, NULL, 0, 0, 0, 0, "not a number first"},
    {"17(sh) S 1 2 3", -1, 0, NULL, 0, 0, 0, 0, "no blank before '('"},
    {"18 (sh) S x 2 3", -1, 0, NULL, 0, 0, 0, 0, "a ppid that is no number"},
    {"", -1, 0, NULL, 0, 0, 0, 0, "empty"},
};

static void test_stat_parse(void)
{
	for (size_t i = 0; i < N(stat_cases); i++) {
		const struct stat_case *c = &stat_cases[i];
		struct cf_proc_stat st;
		int rc = cf_proc_stat_parse(c->text, &st);
		TAP_INTEQ(rc, c->rc, "stat: %s", c->why);
		if (rc != 0 || c->rc != 0)
			continue;
		TAP_OK(st.pid == c->pid && st.state == c->state && st.ppid == c->ppid &&
			   st.pgrp == c->pgrp && st.session == c->session,
		       "stat: %s: pid %d state %c ppid %d pgrp %d session %d", c->why, (int)st.pid,
		       st.state, (int)st.ppid, (int)st.pgrp, (int)st.session);
		TAP_STREQ(st.comm, c->comm, "stat: %s: the comm", c->why);
	}
	/* A comm longer than the struct holds (a kernel thread's name may be 64 bytes) is cut, and
	 * the fields after it still read. */
	char line[256], want[64];
	memset(want, 'n', sizeof(want) - 1);
	want[sizeof(want) - 1] = '\0';
	snprintf(line, sizeof(line), "5 (%s) yz) R 1 2 3 0",
		 "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn");
	struct cf_proc_stat st;
	TAP_INTEQ(cf_proc_stat_parse(line, &st), 0, "stat: a comm of 76 bytes parses");
	TAP_STREQ(st.comm, want, "stat: and is cut to 63 bytes");
	TAP_OK(st.state == 'R' && st.ppid == 1 && st.session == 3,
	       "stat: the fields after a long comm are read");
}

struct status_case {
	const char *text, *field;
	size_t cap;
	int rc;
	const char *want, *why;
};

static const char status_text[] = "Name:\tTgid:\t66 Umask: 7\n"
				  "Umask:\t0027\n"
				  "State:\tS (sleeping)\n"
				  "Tgid:\t1234\n"
				  "Ngid:\t0\n"
				  "Pid:\t1240\n"
				  "NStgid:\t999\t1234\n"
				  "Cpus_allowed:\tff\n"
				  "Cpus_allowed_list:\t0-7\n"
				  "Empty:\n"
				  "Last:  \t  end";

static const struct status_case status_cases[] = {
    {status_text, "Name", 64, 0, "Tgid:\t66 Umask: 7", "the first line's field"},
    {status_text, "Tgid", 64, 0, "1234",
     "a field matched at a line's start, not inside the Name line's value nor in NStgid"},
    {status_text, "Umask", 64, 0, "0027", "Umask, not the one inside the name"},
    {status_text, "NStgid", 64, 0, "999\t1234", "a value with a tab inside it"},
    {status_text, "Cpus_allowed", 64, 0, "ff", "a field that is a prefix of another"},
    {status_text, "Cpus_allowed_list", 64, 0, "0-7", "the longer field"},
    {status_text, "Empty", 64, 0, "", "an empty value"},
    {status_text, "Last", 64, 0, "end", "the last line, no newline, blanks skipped"},
    {status_text, "Gid", 64, -1, NULL, "an absent field"},
    {status_text, "gid", 64, -1, NULL, "the end of another field's name is no field"},
    {status_text, "Tgi", 64, -1, NULL, "the start of another field's name is no field"},
    {status_text, "Tgid", 4, -1, NULL, "a value that does not fit"},
    {status_text, "Tgid", 5, 0, "1234", "a value that just fits"},
    {"", "Tgid", 64, -1, NULL, "an empty file"},
};

static void test_status_parse(void)
{
	for (size_t i = 0; i < N(status_cases); i++) {
		const struct status_case *c = &status_cases[i];
		char out[64] = "unset";
		int rc = cf_proc_status_parse(c->text, c->field, out, c->cap);
		TAP_INTEQ(rc, c->rc, "status: %s (%s)", c->why, c->field);
		if (rc == 0 && c->rc == 0)
			TAP_STREQ(out, c->want, "status: %s: the value", c->why);
	}
}

/* A child named `name` (prctl), stopped on a pipe until the test has read it. */
static void test_stat_of_child(const char *name)
{
	int ready[2], go[2];
	if (pipe(ready) < 0 || pipe(go) < 0) {
		TAP_OK(0, "pipe: %s", strerror(errno));
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		close(ready[0]);
		close(go[1]);
		prctl(PR_SET_NAME, name, 0, 0, 0);
		umask(0063);
		char c = 1;
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		_exit(read(go[0], &c, 1) < 0);
	}
	close(ready[1]);
	close(go[0]);
	char c;
	TAP_OK(pid > 0 && read(ready[0], &c, 1) == 1, "a child named '%s' is ready", name);
	struct cf_proc_stat st;
	TAP_INTEQ(cf_proc_stat_read(AT_FDCWD, pid, &st), 0, "its stat reads");
	TAP_STREQ(st.comm, name, "its comm is its name, whole");
	TAP_INTEQ(st.pid, pid, "its pid");
	TAP_INTEQ(st.ppid, getpid(), "its parent is the test (the field after the comm)");
	TAP_OK(st.state == 'S' || st.state == 'R', "its state (%c)", st.state);
	long mask = -1;
	TAP_INTEQ(cf_proc_status_long(AT_FDCWD, pid, "Umask", 8, &mask), 0, "its status reads");
	TAP_INTEQ(mask, 0063, "its Umask, in octal");
	/* Through a descriptor of /proc, as confine-init reads it. */
	int proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	long tgid = -1;
	TAP_INTEQ(cf_proc_status_long(proc, pid, "Tgid", 10, &tgid), 0,
		  "its status reads below a /proc descriptor");
	TAP_INTEQ(tgid, pid, "its Tgid");
	close(proc);
	if (write(go[1], &c, 1) != 1)
		TAP_OK(0, "write: %s", strerror(errno));
	close(go[1]);
	close(ready[0]);
	int status;
	waitpid(pid, &status, 0);
	TAP_OK(cf_proc_stat_read(AT_FDCWD, pid, &st) < 0 && errno == ENOENT,
	       "a reaped child's stat: ENOENT");
}

static pid_t thread_tid;
static int thread_ready[2], thread_go[2]; /* the thread runs; the test has read it */

static void *thread_main(void *arg)
{
	(void)arg;
	thread_tid = (pid_t)syscall(SYS_gettid);
	char c = 1;
	if (write(thread_ready[1], &c, 1) != 1)
		return NULL;
	if (read(thread_go[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

static void test_thread(void)
{
	pthread_t t;
	if (pipe(thread_ready) < 0 || pipe(thread_go) < 0 ||
	    pthread_create(&t, NULL, thread_main, NULL) != 0) {
		TAP_OK(0, "a thread: %s", strerror(errno));
		return;
	}
	char c;
	TAP_OK(read(thread_ready[0], &c, 1) == 1, "a thread is running");
	long tgid = -1;
	TAP_INTEQ(cf_proc_status_long(AT_FDCWD, thread_tid, "Tgid", 10, &tgid), 0,
		  "the thread's status reads by its id");
	TAP_INTEQ(tgid, getpid(), "its Tgid is the process");
	TAP_OK(thread_tid != getpid(), "and its id is not the process's");
	if (write(thread_go[1], &c, 1) != 1)
		TAP_OK(0, "write: %s", strerror(errno));
	pthread_join(t, NULL);
	for (int i = 0; i < 2; i++) {
		close(thread_ready[i]);
		close(thread_go[i]);
	}
}

static void test_open(void)
{
	errno = 0;
	TAP_OK(cf_proc_open(AT_FDCWD, 0, "status", O_RDONLY) < 0 && errno == EINVAL,
	       "pid 0 is refused (EINVAL), never taken for self");
	errno = 0;
	TAP_OK(cf_proc_open(AT_FDCWD, -5, "status", O_RDONLY) < 0 && errno == EINVAL,
	       "a negative pid is refused (EINVAL)");
	errno = 0;
	TAP_OK(cf_proc_open(AT_FDCWD, getpid(), "/etc/passwd", O_RDONLY) < 0 && errno == EINVAL,
	       "an absolute name is refused (EINVAL)");
	errno = 0;
	TAP_OK(cf_proc_open(AT_FDCWD, getpid(), "", O_RDONLY) < 0 && errno == EINVAL,
	       "an empty name is refused (EINVAL)");
	long tgid = -1;
	TAP_INTEQ(cf_proc_status_long(AT_FDCWD, CF_PROC_SELF, "Tgid", 10, &tgid), 0,
		  "CF_PROC_SELF reads this process");
	TAP_INTEQ(tgid, getpid(), "its Tgid");
	errno = 0;
	TAP_OK(cf_proc_status_long(AT_FDCWD, CF_PROC_SELF, "NoSuchField", 10, &tgid) < 0 &&
		   errno == EINVAL,
	       "an absent field: EINVAL");
	errno = 0;
	TAP_OK(cf_proc_status_long(AT_FDCWD, CF_PROC_SELF, "State", 10, &tgid) < 0 &&
		   errno == EINVAL,
	       "a field that is no number: EINVAL");
	/* The magic link ns/net is followed by default, refused with O_NOFOLLOW. */
	int fd = cf_proc_open(AT_FDCWD, CF_PROC_SELF, "ns/net", O_RDONLY);
	struct stat a, b;
	TAP_OK(fd >= 0 && fstat(fd, &a) == 0 && stat("/proc/self/ns/net", &b) == 0 &&
		   a.st_ino == b.st_ino,
	       "ns/net opens this process's network namespace");
	if (fd >= 0)
		close(fd);
	errno = 0;
	fd = cf_proc_open(AT_FDCWD, CF_PROC_SELF, "ns/net", O_RDONLY | O_NOFOLLOW);
	TAP_OK(fd < 0 && errno == ELOOP, "with O_NOFOLLOW the link is not followed (ELOOP)");
	if (fd >= 0)
		close(fd);
	fd = cf_proc_open(AT_FDCWD, CF_PROC_SELF, "status", O_RDONLY);
	TAP_OK(fd >= 0 && fcntl(fd, F_GETFD) == FD_CLOEXEC, "the descriptor is close-on-exec");
	if (fd >= 0)
		close(fd);
}

static void test_read_all(void)
{
	/* mountinfo, read whole, is what stdio reads of it (this process's table does not change
	 * in between). */
	size_t len = 0;
	char *all = cf_proc_read_all(AT_FDCWD, CF_PROC_SELF, "mountinfo", &len);
	FILE *f = fopen("/proc/self/mountinfo", "re");
	size_t n = 0;
	char chunk[4096];
	size_t k;
	while (f && (k = fread(chunk, 1, sizeof(chunk), f)) > 0)
		n += k;
	if (f)
		fclose(f);
	TAP_OK(all && len == n && len > 0 && strlen(all) == len,
	       "mountinfo read whole: %zu bytes (stdio: %zu)", len, n);
	free(all);
	char small[8];
	TAP_INTEQ(cf_proc_read(AT_FDCWD, CF_PROC_SELF, "status", small, sizeof(small)), 7,
		  "a read into a small buffer stops at its size");
	/* The comm's first letter: "test-procfs", or valgrind's "memcheck-amd64-" under it. */
	char comm[32] = "", want[8];
	FILE *c = fopen("/proc/self/comm", "re");
	if (!c || !fgets(comm, sizeof(comm), c))
		comm[0] = '?';
	if (c)
		fclose(c);
	snprintf(want, sizeof(want), "Name:\t%c", comm[0]);
	TAP_STREQ(small, want, "and is NUL-terminated");
	errno = 0;
	TAP_OK(!cf_proc_read_all(AT_FDCWD, 0, "mountinfo", NULL) && errno == EINVAL,
	       "read_all refuses pid 0");
}

int main(void)
{
	test_stat_parse();
	test_status_parse();
	test_stat_of_child("x) 1 (y) z");
	test_stat_of_child("a b) S 1 2 3");
	test_thread();
	test_open();
	test_read_all();
	return tap_done();
}
