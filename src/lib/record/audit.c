/* SPDX-License-Identifier: MIT */
/*
 * The audit log (SPEC 8, R24): one JSON line per spawn attempt, on every exit path, appended
 * with a single write(2) to a file opened O_APPEND before anything could run, so that lines of
 * concurrent runs never interleave.  The file is hidden from the sandbox by an override.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record/facts.h"
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
	return set_file(&req->record.audit_fd, &req->record.audit_path, "cannot open the audit log",
			file, true, err);
}

int confine_request_set_report_file(confine_request *req, const char *file,
				    struct confine_error *err)
{
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

static void add_time(struct cf_jobj *j, const struct timespec *ts)
{
	struct tm tm;
	char buf[64];
	time_t t = ts->tv_sec;
	gmtime_r(&t, &tm);
	size_t n = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, sizeof(buf) - n, ".%03ldZ", ts->tv_nsec / 1000000);
	cf_jput_str(j, "time", buf);
}

static long long duration_ms(const struct cf_run_record *r)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long long)(now.tv_sec - r->mono_start.tv_sec) * 1000 +
	       (now.tv_nsec - r->mono_start.tv_nsec) / 1000000;
}

static char *audit_line(const confine_run *run, int status, const struct confine_error *why)
{
	struct cf_jobj j;
	const char *outcome, *exit_path;
	cf_record_outcome(run, why, &outcome, &exit_path);
	cf_jobj_init(&j);
	cf_jput_int(&j, "version", 1);
	add_time(&j, &run->record.wall_start);
	cf_record_facts(&j, run);
	cf_jput_str(&j, "outcome", outcome);
	cf_jput_str(&j, "exit_path", exit_path);
	cf_jput_int(&j, "exit_status", status);
	cf_jput_str(&j, "status_from", run->from_command ? "command" : "confine");
	cf_jput_int(&j, "duration_ms", duration_ms(&run->record));
	json_t *ev = json_array();
	for (size_t i = 0; ev && i < run->n_events; i++) {
		struct cf_jobj e;
		cf_jobj_init(&e);
		cf_jput_str(&e, "kind", run->events[i].kind);
		cf_jput_str(&e, "path", run->events[i].path);
		if (e.oom || json_array_append_new(ev, e.o) < 0)
			j.oom = true;
	}
	cf_jput(&j, "events", ev);
	cf_jput_strv(&j, "denied_paths", run->record.denials.path, run->record.denials.n);
	cf_jput(&j, "error", cf_record_error(why));
	return cf_jobj_dump(&j);
}

/* One write: O_APPEND makes the offset and the write one step, so concurrent lines never
 * mix.  A short write (a full disk) is finished, and the line may then be torn; it is never
 * silently dropped. */
static int append_line(int fd, const char *line)
{
	size_t n = strlen(line);
	char *s = malloc(n + 1);
	if (!s)
		return CONFINE_E_NOMEM;
	memcpy(s, line, n);
	s[n] = '\n';
	size_t off = 0;
	int r = 0;
	while (off < n + 1) {
		ssize_t k = write(fd, s + off, n + 1 - off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			r = CONFINE_E_OS;
			break;
		}
		off += (size_t)k;
	}
	free(s);
	return r;
}

void cf_audit_attempt(confine_run *run, int status, const struct confine_error *why)
{
	if (!run || run->record.audit_fd < 0 || run->record.audited)
		return;
	run->record.audited = true;
	char *line = audit_line(run, status, why);
	if (line)
		append_line(run->record.audit_fd, line);
	else
		append_line(run->record.audit_fd,
			    "{\"version\":1,\"outcome\":\"failed\",\"exit_path\":\"setup_failed\","
			    "\"error\":{\"kind\":\"out of memory\"}}");
	free(line);
}

int confine_request_audit_refusal(const confine_request *req, int status,
				  const struct confine_error *why, struct confine_error *err)
{
	if (req->record.audit_fd < 0)
		return 0;
	confine_run *run = cf_record_temp_run(req);
	if (!run)
		return cf_nomem(err);
	cf_audit_attempt(run, status, why);
	cf_record_temp_free(run);
	return 0;
}
