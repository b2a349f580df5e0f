/* SPDX-License-Identifier: MIT */
/*
 * Landlock scoping (SPEC 3 R17): a scoped child cannot connect to an abstract unix socket or
 * signal a process created outside its domain, while the unscoped control can, and peers
 * inside the domain still reach each other.  Each case runs in its own forked child.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec/linux/harden.h"
#include "host/kernel.h"
#include "tap.h"

static char abstract_name[64];
static pid_t outsider = -1;

static socklen_t abstract_addr(struct sockaddr_un *sa, const char *name)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	size_t n = strlen(name);
	memcpy(sa->sun_path + 1, name, n); /* leading NUL: the abstract namespace */
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

static int listen_abstract(const char *name)
{
	struct sockaddr_un sa;
	socklen_t len = abstract_addr(&sa, name);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	if (bind(s, (struct sockaddr *)&sa, len) < 0 || listen(s, 8) < 0) {
		close(s);
		return -1;
	}
	return s;
}

static int connect_abstract(const char *name)
{
	struct sockaddr_un sa;
	socklen_t len = abstract_addr(&sa, name);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return errno;
	int rc = connect(s, (struct sockaddr *)&sa, len) < 0 ? errno : 0;
	close(s);
	return rc;
}

typedef int (*op_fn)(void);

/* 0 on success, an errno, 150 + the scoping failure, or minus a signal. */
static int run_case(op_fn op, bool scoped)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return -1000;
	if (pid == 0) {
		if (scoped && cf_landlock_scope_self(NULL) < 6)
			_exit(150);
		_exit(op());
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1001;
	return WIFSIGNALED(st) ? -WTERMSIG(st) : WEXITSTATUS(st);
}

static int op_connect_outside(void)
{
	return connect_abstract(abstract_name);
}

/* A listener created after scoping belongs to the same domain. */
static int op_connect_inside(void)
{
	char name[80];
	snprintf(name, sizeof(name), "%s-inner", abstract_name);
	int s = listen_abstract(name);
	if (s < 0)
		return 140;
	int rc = connect_abstract(name);
	close(s);
	return rc;
}

static int op_kill_outside(void)
{
	return kill(outsider, 0) < 0 ? errno : 0;
}

static int op_kill_outside_term(void)
{
	return kill(outsider, SIGTERM) < 0 ? errno : 0;
}

static int op_kill_inside(void)
{
	pid_t child = fork();
	if (child < 0)
		return 141;
	if (child == 0) {
		pause();
		_exit(0);
	}
	int rc = kill(child, SIGTERM) < 0 ? errno : 0;
	int st;
	waitpid(child, &st, 0);
	if (rc == 0 && !(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM))
		rc = 142;
	return rc;
}

static int op_kill_self(void)
{
	return kill(getpid(), 0) < 0 ? errno : 0;
}

static int op_nnp(void)
{
	return prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1 ? 0 : 143;
}

static int op_scope_twice(void)
{
	/* Domains stack: scoping an already scoped process is fine. */
	return cf_landlock_scope_self(NULL) >= 6 ? 0 : 144;
}

int main(void)
{
	int abi = cf_landlock_abi();
	printf("# Landlock ABI %d\n", abi);
	if (abi < 6) {
		/* CI sets the "must work" switch: a skip on its machine is a failure. */
		TAP_SKIP("Landlock ABI %d has no scoping (needs 6, Linux 6.12)", abi);
		/* Below ABI 6 nothing may be applied. */
		TAP_INTEQ(cf_landlock_scope_self(NULL), 0, "no scoping below ABI 6");
		return tap_done();
	}
	TAP_OK(abi >= 6, "cf_landlock_abi reports ABI %d", abi);

	snprintf(abstract_name, sizeof(abstract_name), "confine-test-landlock-%d", (int)getpid());
	int listener = listen_abstract(abstract_name);
	TAP_OK(listener >= 0, "an abstract unix listener outside the domain");

	outsider = fork();
	if (outsider == 0) {
		pause();
		_exit(0);
	}
	TAP_OK(outsider > 0, "a process outside the domain");

	TAP_INTEQ(run_case(op_nnp, true), 0, "cf_landlock_scope_self sets no_new_privs");
	TAP_INTEQ(run_case(op_connect_outside, false), 0,
		  "control: unscoped connect to the outside abstract socket succeeds");
	TAP_INTEQ(run_case(op_connect_outside, true), EPERM,
		  "scoped: connect to the outside abstract socket -> EPERM");
	TAP_INTEQ(run_case(op_connect_inside, true), 0,
		  "scoped: connect to an abstract socket of the same domain succeeds");
	TAP_INTEQ(run_case(op_kill_outside, false), 0,
		  "control: unscoped kill(outside, 0) succeeds");
	TAP_INTEQ(run_case(op_kill_outside, true), EPERM, "scoped: kill(outside, 0) -> EPERM");
	TAP_INTEQ(run_case(op_kill_outside_term, true), EPERM,
		  "scoped: kill(outside, SIGTERM) -> EPERM");
	TAP_INTEQ(kill(outsider, 0), 0, "the outside process survived");
	TAP_INTEQ(run_case(op_kill_inside, true), 0,
		  "scoped: SIGTERM to a child inside the domain is delivered");
	TAP_INTEQ(run_case(op_kill_self, true), 0, "scoped: kill(self, 0) succeeds");
	TAP_INTEQ(run_case(op_scope_twice, true), 0, "scoping twice stacks without error");

	struct confine_error err = {0};
	pid_t pid = fork();
	if (pid == 0)
		_exit(cf_landlock_scope_self(&err) == abi && err.code == 0 ? 0 : 1);
	int st;
	waitpid(pid, &st, 0);
	TAP_OK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "cf_landlock_scope_self returns the ABI it applied and leaves err empty");

	kill(outsider, SIGKILL);
	waitpid(outsider, NULL, 0);
	if (listener >= 0)
		close(listener);
	return tap_done();
}
