/* SPDX-License-Identifier: MIT */
/*
 * SPEC 11: the library keeps no process-wide state.  Two runs on two threads at once -- each
 * prepared, started and waited for, each with its own workspace, plus an explanation and a card
 * on the way -- both succeed and do only their own work.  Built as an ordinary test, and in a
 * ThreadSanitizer build by .ci/run (a race between the two runs is an error there).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../unit/tap.h"
#include "confine.h"
#include "request.h"

struct job {
	char home[4096], ws[4200], out[4300];
	int rc, status, explained, carded;
	struct confine_error err;
};

static void *one(void *arg)
{
	struct job *j = arg;
	confine_request *req = NULL;
	confine_run *run = NULL;
	confine_rules *rules = NULL;
	struct confine_card *card = NULL;
	char home_env[4200], cmd[9000];
	snprintf(home_env, sizeof(home_env), "HOME=%s", j->home);
	snprintf(cmd, sizeof(cmd), "echo %s > '%s'", j->ws, j->out);
	const char *env[] = {"PATH=/usr/bin:/bin", home_env, NULL};
	const char *argv[] = {"/bin/sh", "-c", cmd};
	struct confine_error *err = &j->err;
	j->status = -1;
	int rc = test_request(&req, 3, argv, j->ws, env, err);
	/* The other calls a host makes on the way: explain and a card. */
	if (rc == 0 && confine_rules_load(req, &rules, err) == 0) {
		struct confine_decision d = {.size = sizeof(d)};
		char key[4200];
		snprintf(key, sizeof(key), "%s/.ssh/id_ed25519", j->home);
		j->explained =
		    confine_rules_explain(rules, key, CONFINE_ACCESS_READ, &d, err) == 0 &&
		    d.action != CONFINE_ALLOW;
	}
	if (rc == 0 && confine_card_new(req, &card, err) == 0)
		j->carded = card->digest[0] != '\0';
	if (rc == 0)
		rc = confine_run_prepare(req, &run, err);
	if (rc == 0)
		rc = confine_run_start(run, err);
	if (rc == 0)
		rc = confine_run_wait(run, &j->status, err);
	j->rc = rc;
	confine_card_free(card);
	confine_rules_free(rules);
	confine_run_free(run);
	confine_request_free(req);
	return NULL;
}

int main(void)
{
	char tmpl[] = "/var/tmp/confine-threads.XXXXXX";
	char *top = mkdtemp(tmpl);
	TAP_OK(top != NULL, "scratch directory");
	if (!top)
		return tap_done();
	enum { N = 2 };
	struct job jobs[N];
	pthread_t th[N];
	memset(jobs, 0, sizeof(jobs));
	for (int i = 0; i < N; i++) {
		snprintf(jobs[i].home, sizeof(jobs[i].home), "%s/home%d", top, i);
		snprintf(jobs[i].ws, sizeof(jobs[i].ws), "%.200s/proj", jobs[i].home);
		snprintf(jobs[i].out, sizeof(jobs[i].out), "%.300s/out.txt", jobs[i].ws);
		char ssh[4200];
		snprintf(ssh, sizeof(ssh), "%.200s/.ssh", jobs[i].home);
		mkdir(jobs[i].home, 0755);
		mkdir(jobs[i].ws, 0755);
		mkdir(ssh, 0700);
	}
	for (int i = 0; i < N; i++)
		TAP_INTEQ(pthread_create(&th[i], NULL, one, &jobs[i]), 0, "thread %d started", i);
	for (int i = 0; i < N; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < N; i++) {
		struct job *j = &jobs[i];
		TAP_OK(j->rc == 0 && j->status == 0,
		       "run %d on its own thread: rc %d, status %d (%s: %s)", i, j->rc, j->status,
		       j->err.what, j->err.reason);
		char got[4400] = "";
		FILE *f = fopen(j->out, "r");
		if (f) {
			if (!fgets(got, sizeof(got), f))
				got[0] = '\0';
			fclose(f);
		}
		got[strcspn(got, "\n")] = '\0';
		TAP_STREQ(got, j->ws, "run %d wrote its own workspace's name into its own file", i);
		TAP_OK(j->explained, "run %d: explain on its thread hides ~/.ssh/id_ed25519", i);
		TAP_OK(j->carded, "run %d: a card on its thread has a digest", i);
	}
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	TAP_INTEQ(system(cmd), 0, "scratch removed");
	return tap_done();
}
