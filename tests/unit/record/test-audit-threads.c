/* SPDX-License-Identifier: MIT */
/*
 * Runs made from one request share the state behind confine_request_audit_error (SPEC 8):
 * when the audit line of several of them cannot be written at the same moment, on threads of
 * their own (the library's thread-safety rule: different objects, different threads), exactly
 * one failure is recorded, whole, and every attempt says CONFINE_E_RECORD.  The log is made
 * unwritable by giving the request a read-only descriptor of it (write(2): EBADF).  Also built
 * with ThreadSanitizer by .ci/run, where a race between the writers is an error.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "request.h"
#include "../tap.h"

#define THREADS 4
#define ROUNDS 40

struct job {
	confine_run *run;
	pthread_barrier_t *go;
	int rc;
};

static void *attempt(void *arg)
{
	struct job *j = arg;
	pthread_barrier_wait(j->go);
	j->rc = cf_audit_attempt(j->run, 125, NULL);
	return NULL;
}

/* One round: THREADS runs of one request fail to write their lines at once. */
static int round_of(const char *log, int *all_record, int *whole)
{
	confine_request *req = NULL;
	struct confine_error err = {0};
	struct job jobs[THREADS] = {0};
	pthread_t th[THREADS];
	pthread_barrier_t go;
	if (confine_request_new(&req, &err) < 0 ||
	    confine_request_set_audit_file(req, log, &err) < 0)
		return -1;
	/* The same file, read-only, in place of the request's descriptor. */
	int ro = open(log, O_RDONLY | O_CLOEXEC);
	if (ro < 0 || dup3(ro, req->record.audit_fd, O_CLOEXEC) < 0)
		return -1;
	close(ro);
	pthread_barrier_init(&go, NULL, THREADS);
	for (int i = 0; i < THREADS; i++) {
		jobs[i].go = &go;
		if (!(jobs[i].run = cf_run_temp(req)))
			return -1;
	}
	for (int i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, attempt, &jobs[i]);
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		*all_record = *all_record && jobs[i].rc == CONFINE_E_RECORD;
		cf_run_temp_free(jobs[i].run);
	}
	pthread_barrier_destroy(&go);
	memset(&err, 0, sizeof(err));
	*whole = *whole && confine_request_audit_error(req, &err) == CONFINE_E_RECORD &&
		 !strcmp(err.what, "cannot write the audit log") && !strcmp(err.syscall, "write") &&
		 strstr(err.hint, "missing from the log") != NULL;
	confine_request_free(req);
	return 0;
}

int main(void)
{
	char dir[] = "/var/tmp/confine-audit-threads.XXXXXX", log[64];
	TAP_OK(mkdtemp(dir) != NULL, "scratch directory");
	snprintf(log, sizeof(log), "%s/audit.log", dir);
	int all_record = 1, whole = 1, ok = 1;
	for (int r = 0; r < ROUNDS && ok; r++)
		ok = round_of(log, &all_record, &whole) == 0;
	TAP_OK(ok, "%d rounds of %d runs of one request, each on a thread of its own", ROUNDS,
	       THREADS);
	TAP_OK(all_record, "every attempt whose line could not be written is CONFINE_E_RECORD");
	TAP_OK(whole, "the request's audit error is one failure, whole: what, system call, hint");
	unlink(log);
	rmdir(dir);
	return tap_done();
}
