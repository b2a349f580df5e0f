/* SPDX-License-Identifier: MIT */
/* The approval and record part of a request: plain setters (SPEC 7, 8).  Pure but for close. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "request.h"
#include "util/util.h"

void cf_request_record_init(struct cf_request_record *r)
{
	memset(r, 0, sizeof(*r));
	r->audit_fd = r->report_fd = -1;
}

/* The audit log's shared state is released with the request on every OS (audit.c, which
 * writes the log, is built only where runs are). */
struct cf_audit_state *cf_audit_state_ref(struct cf_audit_state *s)
{
	if (s)
		__atomic_add_fetch(&s->refs, 1, __ATOMIC_SEQ_CST);
	return s;
}

void cf_audit_state_unref(struct cf_audit_state *s)
{
	if (!s || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_SEQ_CST) > 0)
		return;
	free(s->path);
	free(s);
}

void cf_request_record_release(struct cf_request_record *r)
{
	cf_strv_release(&r->grants);
	free(r->reason);
	free(r->receipt);
	free(r->audit_path);
	free(r->report_path);
	if (r->audit_fd >= 0)
		close(r->audit_fd);
	if (r->report_fd >= 0)
		close(r->report_fd);
	cf_audit_state_unref(r->audit_state);
	cf_request_record_init(r);
}

/* A NULL request is refused, not dereferenced. */
static int need_req(const confine_request *req, struct confine_error *err)
{
	return req ? 0
		   : cf_err(err, CONFINE_E_INVALID, "invalid argument", "request",
			    "the request is NULL");
}

int confine_request_set_escalate(confine_request *req, bool escalate, struct confine_error *err)
{
	int r = need_req(req, err);
	if (r == 0)
		req->record.escalate = escalate;
	return r;
}

int confine_request_set_reusable(confine_request *req, bool reusable, struct confine_error *err)
{
	int r = need_req(req, err);
	if (r == 0)
		req->record.reusable = reusable;
	return r;
}

int confine_request_add_write_grant(confine_request *req, const char *target,
				    struct confine_error *err)
{
	if (!target || !*target)
		return cf_err(err, CONFINE_E_INVALID, "invalid write target", "",
			      "expected PATH:file or PATH:subtree");
	return cf_strv_add(&req->record.grants, target) < 0 ? cf_nomem(err) : 0;
}

int confine_request_set_grant_reason(confine_request *req, const char *reason,
				     struct confine_error *err)
{
	int r = need_req(req, err);
	if (r < 0)
		return r;
	char *copy = cf_strdup(reason ? reason : "");
	if (!copy)
		return cf_nomem(err);
	free(req->record.reason);
	req->record.reason = copy;
	return 0;
}

int confine_request_set_receipt(confine_request *req, const char *digest, struct confine_error *err)
{
	size_t n = digest ? strlen(digest) : 0;
	bool hex = n == 64;
	for (size_t i = 0; hex && i < n; i++)
		hex = (digest[i] >= '0' && digest[i] <= '9') ||
		      (digest[i] >= 'a' && digest[i] <= 'f') ||
		      (digest[i] >= 'A' && digest[i] <= 'F');
	if (!hex) {
		cf_err(err, CONFINE_E_INVALID, "invalid receipt", digest ? digest : "",
		       "a receipt is the 64 hexadecimal digits of a card's digest");
		cf_err_hint(err, "'confine card' prints the digest of a request");
		return CONFINE_E_INVALID;
	}
	char *copy = cf_strdup(digest);
	if (!copy)
		return cf_nomem(err);
	for (char *p = copy; *p; p++)
		if (*p >= 'A' && *p <= 'F')
			*p = (char)(*p - 'A' + 'a');
	free(req->record.receipt);
	req->record.receipt = copy;
	return 0;
}

int confine_request_set_id(confine_request *req, const char *id, struct confine_error *err)
{
	size_t n = id ? strlen(id) : 0;
	bool ok = n >= 1 && n <= CF_REQUEST_ID_MAX;
	for (size_t i = 0; ok && i < n; i++) {
		char c = id[i];
		ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		     c == '.' || c == '_' || c == ':' || c == '-';
	}
	if (!ok)
		return cf_err(err, CONFINE_E_INVALID, "invalid request id", id ? id : "",
			      "a request id is 1 to %d characters of A-Z a-z 0-9 . _ : -",
			      CF_REQUEST_ID_MAX);
	memcpy(req->record.id, id, n + 1);
	return 0;
}

int confine_request_set_denial_scan(confine_request *req, bool on, struct confine_error *err)
{
	int r = need_req(req, err);
	if (r == 0)
		req->record.denial_scan = on;
	return r;
}

#ifdef _WIN32
/* The Windows executor has no audit log or report file yet. */
int confine_request_set_audit_file(confine_request *req, const char *file,
				   struct confine_error *err)
{
	return cf_err(err, CONFINE_E_INVALID, "audit log not available", file ? file : "",
		      "the Windows build does not write an audit log yet");
}

int confine_request_set_report_file(confine_request *req, const char *file,
				    struct confine_error *err)
{
	return cf_err(err, CONFINE_E_INVALID, "report not available", file ? file : "",
		      "the Windows build does not write the post-run report yet");
}

int confine_request_plan_record_files(confine_request *req, const char *audit, const char *report,
				      struct confine_error *err)
{
	return need_req(req, err);
}

int confine_request_audit_refusal(const confine_request *req, int status,
				  const struct confine_error *why, struct confine_error *err)
{
	return 0;
}
#endif
