/* SPDX-License-Identifier: MIT */
/*
 * The library as an agent host uses it (SPEC 11): a request, a prepared run, start, wait,
 * events; errors in the caller's fixed-size struct; nothing printed by the library.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../unit/tap.h"
#include "confine.h"
#include "request.h"

static const char *const base_env[] = {"PATH=/usr/bin:/bin", "GITHUB_TOKEN=secret-value",
				       "AUTHOR_NAME=ana", NULL};

static int run(const char *ws, const char *home, const char *const *argv, size_t argc, int *status,
	       struct confine_error *err, confine_run **keep)
{
	confine_request *req = NULL;
	confine_run *r = NULL;
	char home_env[600];
	snprintf(home_env, sizeof(home_env), "HOME=%s", home);
	const char *env[] = {base_env[0], base_env[1], base_env[2], home_env, NULL};
	int rc = test_request(&req, argc, argv, ws, env, err);
	if (rc == 0)
		rc = confine_run_prepare(req, &r, err);
	if (rc == 0)
		rc = confine_run_start(r, err);
	if (rc == 0)
		rc = confine_run_wait(r, status, err);
	confine_request_free(req);
	if (keep)
		*keep = r;
	else
		confine_run_free(r);
	return rc;
}

int main(void)
{
	char tmpl[] = "/var/tmp/confine-api.XXXXXX";
	char *top = mkdtemp(tmpl);
	TAP_OK(top != NULL, "scratch directory");
	if (!top)
		return tap_done();
	char home[512], ws[600], ssh[600], key[700], out[700], cmd[4096];
	snprintf(home, sizeof(home), "%s/home", top);
	snprintf(ws, sizeof(ws), "%s/home/proj", top);
	snprintf(ssh, sizeof(ssh), "%s/.ssh", home);
	snprintf(key, sizeof(key), "%s/id_ed25519", ssh);
	snprintf(out, sizeof(out), "%s/out.txt", ws);
	mkdir(home, 0755);
	mkdir(ws, 0755);
	mkdir(ssh, 0700);
	FILE *f = fopen(key, "w");
	if (f) {
		fputs("PRIVATE\n", f);
		fclose(f);
	}

	struct confine_error err = {0};
	int status = -1;
	snprintf(cmd, sizeof(cmd),
		 "test -z \"$GITHUB_TOKEN\" && test \"$AUTHOR_NAME\" = ana && echo ok > '%s' && "
		 "! cat '%s' 2>/dev/null",
		 out, key);
	const char *argv1[] = {"/bin/sh", "-c", cmd};
	int rc = run(ws, home, argv1, 3, &status, &err, NULL);
	TAP_INTEQ(rc, 0, "a sandboxed command runs through the API (%s)", err.reason);
	TAP_INTEQ(status, 0,
		  "R20+R9 secrets out of the environment, the key unreadable, the "
		  "workspace writable");
	struct stat st;
	TAP_OK(stat(out, &st) == 0, "the workspace write is on the host");

	memset(&err, 0, sizeof(err));
	const char *argv2[] = {"/bin/sh", "-c", "kill -TERM $$"};
	rc = run(ws, home, argv2, 3, &status, &err, NULL);
	TAP_OK(rc == 0 && status == 128 + 15, "R3 death by SIGTERM is 143 (got %d)", status);

	memset(&err, 0, sizeof(err));
	const char *argv3[] = {"no-such-command-here"};
	rc = run(ws, home, argv3, 1, &status, &err, NULL);
	TAP_INTEQ(rc, CONFINE_E_NOTFOUND, "R3 a missing command is CONFINE_E_NOTFOUND");
	TAP_INTEQ(status, 127, "and status 127");
	TAP_STREQ(err.subject, "no-such-command-here", "the error names the command");

	memset(&err, 0, sizeof(err));
	const char *argv4[] = {"true"};
	rc = run(home, home, argv4, 1, &status, &err, NULL);
	TAP_INTEQ(rc, CONFINE_E_WORKSPACE, "R1 the home directory as workspace is refused");
	TAP_STREQ(err.what, "workspace refused", "with what failed in err.what");

	/* R23: a new match of a glob guard is reported to the library caller. */
	memset(&err, 0, sizeof(err));
	char pem[700];
	snprintf(pem, sizeof(pem), "%s/new.pem", ws);
	unlink(pem);
	snprintf(cmd, sizeof(cmd), "echo k > '%s'", pem);
	const char *argv5[] = {"/bin/sh", "-c", cmd};
	confine_run *r = NULL;
	rc = run(ws, home, argv5, 3, &status, &err, &r);
	size_t n = confine_run_event_count(r);
	const struct confine_event *ev;
	bool found = false;
	for (size_t i = 0; (ev = confine_run_event(r, i)); i++)
		found |= !strcmp(ev->kind, "dynamic_glob_created") && !strcmp(ev->path, pem) &&
			 ev->size == sizeof(*ev);
	TAP_OK(rc == 0 && found, "R23 dynamic_glob_created for %s (%zu events)", pem, n);
	confine_run_free(r);

	/* An enum confine_policy value outside the enum is refused by the setter (it once reached
	 * the executor and exec'd NULL in the child); the request keeps its policy. */
	confine_request *bad = NULL;
	memset(&err, 0, sizeof(err));
	rc = confine_request_new(&bad, &err);
	TAP_INTEQ(rc, 0, "a request for the policy checks");
	TAP_INTEQ(confine_request_set_policy(bad, (enum confine_policy)7, &err), CONFINE_E_INVALID,
		  "confine_request_set_policy(7) is CONFINE_E_INVALID");
	TAP_STREQ(err.what, "invalid sandbox policy", "... with what failed");
	TAP_INTEQ(confine_request_set_policy(bad, (enum confine_policy) - 1, NULL),
		  CONFINE_E_INVALID,
		  "confine_request_set_policy(-1) is CONFINE_E_INVALID (err may be NULL)");
	TAP_INTEQ(confine_request_set_policy(bad, CONFINE_POLICY_OFF, &err), 0,
		  "CONFINE_POLICY_OFF is accepted");
	confine_request_free(bad);

	/* SPEC 7 through the API: a card as a struct and as JSON, its digest as the receipt. */
	confine_request *esc = NULL;
	struct confine_card *card = NULL;
	char home_env[600];
	snprintf(home_env, sizeof(home_env), "HOME=%s", home);
	const char *env[] = {base_env[0], home_env, NULL};
	const char *argv6[] = {"cat", key};
	memset(&err, 0, sizeof(err));
	rc = confine_request_new(&esc, &err);
	if (rc == 0)
		rc = confine_request_set_argv(esc, 2, argv6, &err);
	if (rc == 0)
		rc = confine_request_set_workspace(esc, ws, &err);
	if (rc == 0)
		rc = confine_request_set_environment(esc, env, &err);
	if (rc == 0)
		rc = confine_request_set_escalate(esc, true, &err);
	if (rc == 0)
		rc = confine_card_new(esc, &card, &err);
	TAP_INTEQ(rc, 0, "R22 confine_card_new builds the card of an escalation (%s)", err.reason);
	TAP_OK(card && card->argc == 2 && !strcmp(card->argv[1], key) &&
		   !strcmp(card->where, "outside the sandbox, this once") &&
		   strlen(card->digest) == 64 && !strcmp(card->kind, "escalate"),
	       "the struct: exact argv, where, kind, a 64-digit digest");
	char *json = NULL;
	bool has_json =
	    card && confine_card_json(card, &json, &err) == 0 && strstr(json, card->digest);
	TAP_OK(has_json, "the same card as JSON");
	confine_free(json);
	confine_run *er = NULL;
	rc = confine_run_prepare(esc, &er, &err);
	TAP_INTEQ(rc, CONFINE_E_APPROVAL, "R22 without a receipt: CONFINE_E_APPROVAL");
	TAP_INTEQ(confine_request_set_receipt(esc, "123", &err), CONFINE_E_INVALID,
		  "a receipt that is not 64 hex digits is refused");
	memset(&err, 0, sizeof(err));
	if (card && confine_request_set_receipt(esc, card->digest, &err) == 0 &&
	    confine_request_set_helper(esc, CONFINE_TEST_HELPER_DIR "/confine-init", &err) == 0)
		rc = confine_run_prepare(esc, &er, &err);
	TAP_INTEQ(rc, CONFINE_E_APPROVAL,
		  "the card's digest without the card's request id: refused (each card is its own "
		  "approval)");
	TAP_OK(strstr(err.hint, "--request-id") != NULL, "... the hint names the request id (%s)",
	       err.hint);
	memset(&err, 0, sizeof(err));
	if (card && confine_request_set_id(esc, card->request_id, &err) == 0)
		rc = confine_run_prepare(esc, &er, &err);
	TAP_INTEQ(rc, 0, "R22 with the card's digest and id the run is prepared (%s)", err.reason);
	TAP_OK(er && !strcmp(confine_run_policy_digest(er), ""),
	       "an escalation has no policy digest (no sandbox applies)");
	confine_run_free(er);
	confine_card_free(card);
	confine_request_free(esc);

	/* A receipt means once: spent when its run starts; a reusable approval is asked for
	 * through the library, and its card says so. */
	for (int reusable = 0; reusable < 2; reusable++) {
		const char *argv_t[] = {"true"};
		confine_request *q = NULL;
		struct confine_card *qc = NULL;
		memset(&err, 0, sizeof(err));
		rc = confine_request_new(&q, &err);
		if (rc == 0)
			rc = confine_request_set_argv(q, 1, argv_t, &err);
		if (rc == 0)
			rc = confine_request_set_workspace(q, ws, &err);
		if (rc == 0)
			rc = confine_request_set_environment(q, env, &err);
		if (rc == 0)
			rc = confine_request_set_escalate(q, true, &err);
		if (rc == 0)
			rc = confine_request_set_reusable(q, reusable, &err);
		if (rc == 0)
			rc = confine_card_new(q, &qc, &err);
		if (rc == 0)
			rc = confine_request_set_receipt(q, qc->digest, &err);
		if (rc == 0)
			rc = confine_request_set_id(q, qc->request_id, &err);
		TAP_OK(
		    rc == 0 && qc->reusable == reusable &&
			!strcmp(qc->where, reusable ? "outside the sandbox, reusable"
						    : "outside the sandbox, this once") &&
			!strncmp(qc->uses, reusable ? "reusable" : "once: the receipt is spent", 8),
		    "a %s card says so (%s)", reusable ? "reusable" : "once", err.reason);
		for (int round = 0; round < 2; round++) {
			confine_run *qr = NULL;
			int qst = -1;
			memset(&err, 0, sizeof(err));
			rc = confine_run_prepare(q, &qr, &err);
			if (rc == 0)
				rc = confine_run_start(qr, &err);
			if (rc == 0)
				rc = confine_run_wait(qr, &qst, &err);
			if (!reusable && round == 1)
				TAP_OK(
				    rc == CONFINE_E_APPROVAL &&
					!strcmp(err.what, "receipt already used"),
				    "R22 the same receipt a second time: refused, 'receipt already "
				    "used' (%s)",
				    err.what);
			else
				TAP_OK(rc == 0 && qst == 0, "%s receipt, run %d: ran (%s)",
				       reusable ? "a reusable" : "a", round + 1, err.reason);
			confine_run_free(qr);
		}
		confine_card_free(qc);
		confine_request_free(q);
	}
	/* Read-only file injection (SPEC 6, R21) through the API: the hash is readable from the
	 * prepared run, the command reads the bytes at the path in its variable, and policy off
	 * refuses to start. */
	{
		const char *const argv7[] = {"sh", "-c", "test \"$(cat \"$S\")\" = abc"};
		const char *abc =
		    "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85";
		confine_request *req = NULL;
		confine_run *ir = NULL;
		memset(&err, 0, sizeof(err));
		char home_env7[600];
		snprintf(home_env7, sizeof(home_env7), "HOME=%s", home);
		const char *env7[] = {base_env[0], home_env7, NULL};
		rc = confine_request_new(&req, &err);
		if (rc == 0)
			rc = confine_request_set_argv(req, 3, argv7, &err);
		if (rc == 0)
			rc = confine_request_set_workspace(req, ws, &err);
		if (rc == 0)
			rc = confine_request_set_environment(req, env7, &err);
		if (rc == 0)
			rc = confine_request_set_helper(
			    req, CONFINE_TEST_HELPER_DIR "/confine-init", &err);
		if (rc == 0)
			rc = confine_request_add_injection(req, CONFINE_INJECT_ENV, "S", "abc", 3,
							   &err);
		if (rc == 0)
			rc = confine_run_prepare(req, &ir, &err);
		TAP_INTEQ(rc, 0, "R21 a run with an injection is prepared (%s)", err.reason);
		size_t n_in = confine_run_injection_count(ir);
		const struct confine_injection *in = confine_run_injection(ir, 0);
		TAP_INTEQ(n_in, 1, "R21 confine_run_injection_count: one");
		TAP_OK(confine_run_injection(ir, 1) == NULL, "R21 and no second one");
		if (in && n_in == 1) {
			TAP_STREQ(in->blake3, abc, "R21 its BLAKE3");
			char rec[128];
			snprintf(rec, sizeof(rec), "env:S=%s", abc);
			TAP_STREQ(in->record, rec, "R21 its record env:NAME=HASH");
			TAP_STREQ(in->path, "/tmp/.confine-inject/S", "R21 its path");
			TAP_INTEQ(in->bytes, 3, "R21 its size in bytes");
			TAP_INTEQ(in->size, sizeof(*in), "ABI v1: the struct says its own size");
		}
		if (rc == 0)
			rc = confine_run_start(ir, &err);
		if (rc == 0)
			rc = confine_run_wait(ir, &status, &err);
		TAP_OK(rc == 0 && status == 0,
		       "R21 the command read the injected bytes (rc %d, "
		       "status %d, %s)",
		       rc, status, err.reason);
		confine_run_free(ir);
		ir = NULL;

		memset(&err, 0, sizeof(err));
		rc = confine_request_set_policy(req, CONFINE_POLICY_OFF, &err);
		if (rc == 0)
			rc = confine_run_prepare(req, &ir, &err);
		TAP_INTEQ(rc, 0, "R21 policy off: the run is prepared (its plan can be shown)");
		rc = ir ? confine_run_start(ir, &err) : -1;
		TAP_INTEQ(rc, CONFINE_E_INVALID,
			  "R21 policy off: confine_run_start refuses (SPEC 4)");
		TAP_STREQ(err.what, "read-only file injection refused", "R21 ... and says why");
		confine_run_free(ir);
		confine_request_free(req);
	}

	/* A host that keeps one error struct: an earlier failure is still in it when a command
	 * that the sandbox hides cannot be executed.  The return code is this failure's, and the
	 * struct is never a mix of the two (the earlier failure's code with this one's hint). */
	char hidden_exe[800];
	snprintf(hidden_exe, sizeof(hidden_exe), "%s/run.sh", ssh);
	f = fopen(hidden_exe, "w");
	if (f) {
		fputs("#!/bin/sh\nexit 0\n", f);
		fclose(f);
	}
	chmod(hidden_exe, 0755);
	const char *argv_hidden[] = {hidden_exe};
	struct confine_error earlier = {.code = CONFINE_E_SPAWN};
	snprintf(earlier.what, sizeof(earlier.what), "an earlier failure");
	snprintf(earlier.hint, sizeof(earlier.hint), "the earlier hint");
	err = earlier;
	status = -1;
	rc = run(ws, home, argv_hidden, 1, &status, &err, NULL);
	TAP_INTEQ(rc, CONFINE_E_NOEXEC,
		  "a reused error struct: confine_run_wait returns this failure's code (status %d)",
		  status);
	TAP_INTEQ(status, 126, "... and the status of a command that could not be executed");
	TAP_OK(err.code == CONFINE_E_SPAWN && !strcmp(err.what, "an earlier failure") &&
		   !strcmp(err.hint, "the earlier hint"),
	       "... and the struct keeps the earlier failure whole (code %d, '%s', hint '%s')",
	       err.code, err.what, err.hint);
	memset(&err, 0, sizeof(err));
	rc = run(ws, home, argv_hidden, 1, &status, &err, NULL);
	TAP_OK(rc == CONFINE_E_NOEXEC && err.code == CONFINE_E_NOEXEC &&
		   strstr(err.hint, "explain") != NULL,
	       "an empty struct gets this failure: code %d, hint '%s'", err.code, err.hint);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	TAP_INTEQ(system(cmd), 0, "scratch removed");
	return tap_done();
}
