/* SPDX-License-Identifier: MIT */
/*
 * The records' files a request names (SPEC 7.3, 8): the audit log (opened O_APPEND, its state
 * shared by the runs of the request) and the report file, opened when set, before anything
 * runs; written by record/.
 */
#include <stdlib.h>
#include <unistd.h>

#include "record/outfile.h"
#include "request.h"
#include "util/util.h"

static int set_file(int *fd, char **path, const char *what, const char *file, bool append,
		    struct confine_error *err)
{
	char *canon = NULL;
	if (!file || !*file)
		return cf_err(err, CONFINE_E_INVALID, what, "", "expected a file name");
	struct confine_error mine = {0};
	int k = cf_open_record_file(what, file, append, &canon, &mine);
	if (k < 0)
		return cf_err_publish(err, &mine) ? mine.code : CONFINE_E_OS;
	if (*fd >= 0)
		close(*fd);
	free(*path);
	*fd = k;
	*path = canon;
	return 0;
}

int confine_request_set_audit_file(confine_request *req, const char *file,
				   struct confine_error *err)
{
	if (!req)
		return cf_err(err, CONFINE_E_INVALID, "invalid argument", "request",
			      "the request is NULL");
	struct cf_audit_state *st = calloc(1, sizeof(*st));
	if (!st)
		return cf_nomem(err);
	st->refs = 1;
	int r = set_file(&req->record.audit_fd, &req->record.audit_path,
			 "cannot open the audit log", file, true, err);
	if (r < 0 || !(st->path = cf_strdup(req->record.audit_path))) {
		free(st);
		return r < 0 ? r : cf_nomem(err);
	}
	cf_audit_state_unref(req->record.audit_state);
	req->record.audit_state = st;
	return 0;
}

int confine_request_audit_error(const confine_request *req, struct confine_error *err)
{
	const struct confine_error *e = cf_audit_state_error(req ? req->record.audit_state : NULL);
	if (!e)
		return 0;
	if (err)
		*err = *e;
	return CONFINE_E_RECORD;
}

int confine_request_set_report_file(confine_request *req, const char *file,
				    struct confine_error *err)
{
	if (!req)
		return cf_err(err, CONFINE_E_INVALID, "invalid argument", "request",
			      "the request is NULL");
	return set_file(&req->record.report_fd, &req->record.report_path,
			"cannot open the report file", file, false, err);
}

/* --print-plan: the plan protects the records as the run would (an override each), so that the
 * printed plan, and its digest, is the run's (SPEC 7.3); nothing is opened or created. */
int confine_request_plan_record_files(confine_request *req, const char *audit, const char *report,
				      struct confine_error *err)
{
	char *canon = NULL;
	struct confine_error mine = {0};
	if (!req)
		return cf_err(err, CONFINE_E_INVALID, "invalid argument", "request",
			      "the request is NULL");
	if (audit && *audit) {
		if (cf_record_file_canon("cannot name the audit log", audit, &canon, &mine) < 0)
			return cf_err_publish(err, &mine) ? mine.code : CONFINE_E_OS;
		free(req->record.audit_path);
		req->record.audit_path = canon;
	}
	if (report && *report) {
		if (cf_record_file_canon("cannot name the report file", report, &canon, &mine) < 0)
			return cf_err_publish(err, &mine) ? mine.code : CONFINE_E_OS;
		free(req->record.report_path);
		req->record.report_path = canon;
	}
	return 0;
}
