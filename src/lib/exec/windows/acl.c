/* SPDX-License-Identifier: MIT */
/*
 * The ACL edits of a run (SPEC 10): recorded before they are made, removed after the run, and
 * removed at the next start when a run died first.
 *
 * Every ACE a run adds names the run's own capability SID, so undoing a run is exact: remove
 * every ACE of that SID from the paths it touched (REVOKE_ACCESS).  Nothing else in the DACL
 * is restored from a copy, so an ACL change the user made meanwhile, or another run's ACEs on
 * the same directory, survive.
 *
 * The record is a state file under %LOCALAPPDATA%\confine\acl: the SID, then one line per path,
 * written and flushed before the first ACE is set.  The run keeps it open without sharing; a
 * file that can be opened exclusively belongs to a run that is gone, and is rolled back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include <aclapi.h>
#include <sddl.h>

#include "exec/windows/win.h"
#include "util/util.h"

#define STATE_MAGIC "confine-acl-state 1"

static int write_all(HANDLE h, const char *s, size_t n)
{
	while (n) {
		DWORD k = 0;
		if (!WriteFile(h, s, n > 65536 ? 65536 : (DWORD)n, &k, NULL) || !k)
			return -1;
		s += k;
		n -= k;
	}
	return 0;
}

int cf_win_acl_revoke(const wchar_t *path, const char *capability, struct confine_error *err)
{
	PSID cap = NULL;
	PACL dacl = NULL, next = NULL;
	PSECURITY_DESCRIPTOR sd = NULL;
	wchar_t *wcap = cf_w_from_utf8(capability);
	char *p = cf_utf8_from_w(path);
	int r = 0;
	DWORD e;
	if (!wcap || !ConvertStringSidToSidW(wcap, &cap)) {
		r = cf_win_oserr(err, CONFINE_E_OS, "cannot remove an ACE", p ? p : "",
				 "ConvertStringSidToSidW", GetLastError());
		goto out;
	}
	e = GetNamedSecurityInfoW(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL,
				  &dacl, NULL, &sd);
	if (e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND)
		goto out; /* gone: nothing left to undo */
	if (e != ERROR_SUCCESS) {
		r = cf_win_oserr(err, CONFINE_E_OS, "cannot remove an ACE", p ? p : "",
				 "GetNamedSecurityInfoW", e);
		goto out;
	}
	EXPLICIT_ACCESS_W ea = {
	    .grfAccessMode = REVOKE_ACCESS,
	    .Trustee = {.TrusteeForm = TRUSTEE_IS_SID, .ptstrName = (LPWSTR)cap},
	};
	e = SetEntriesInAclW(1, &ea, dacl, &next);
	if (e == ERROR_SUCCESS)
		e = SetNamedSecurityInfoW((LPWSTR)path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION,
					  NULL, NULL, next, NULL);
	if (e != ERROR_SUCCESS && e != ERROR_FILE_NOT_FOUND && e != ERROR_PATH_NOT_FOUND)
		r = cf_win_oserr(err, CONFINE_E_OS, "cannot remove an ACE", p ? p : "",
				 "SetNamedSecurityInfoW", e);
out:
	if (next)
		LocalFree(next);
	if (sd)
		LocalFree(sd);
	if (cap)
		LocalFree(cap);
	free(wcap);
	free(p);
	return r;
}

/* The path must still be what the plan saw: not a reparse point (a junction planted since
 * would redirect the ACE to its target). */
static int check_object(const wchar_t *w, const char *shown, struct confine_error *err)
{
	DWORD a = GetFileAttributesW(w);
	if (a == INVALID_FILE_ATTRIBUTES)
		return cf_win_oserr(err, CONFINE_E_SPAWN, "cannot set an ACE", shown,
				    "GetFileAttributesW", GetLastError());
	if (a & FILE_ATTRIBUTE_REPARSE_POINT)
		return cf_err(err, CONFINE_E_SPAWN, "cannot set an ACE", shown,
			      "it became a reparse point after the plan was made");
	return 0;
}

static int set_ace(const struct cf_win_edit *e, PSID cap, const char *shown,
		   struct confine_error *err)
{
	PACL dacl = NULL, next = NULL;
	PSECURITY_DESCRIPTOR sd = NULL;
	wchar_t *w = cf_w_path(e->path);
	int r = 0;
	DWORD st;
	if (!w)
		return cf_nomem(err);
	if ((r = check_object(w, shown, err)) < 0)
		goto out;
	st = GetNamedSecurityInfoW(w, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, &dacl,
				   NULL, &sd);
	if (st != ERROR_SUCCESS) {
		r = cf_win_oserr(err, CONFINE_E_SPAWN, "cannot set an ACE", shown,
				 "GetNamedSecurityInfoW", st);
		goto out;
	}
	EXPLICIT_ACCESS_W ea = {
	    .grfAccessPermissions = e->mask,
	    .grfAccessMode = e->ace == CF_WIN_ACE_ALLOW ? GRANT_ACCESS : DENY_ACCESS,
	    .grfInheritance =
		e->inherit ? (CONTAINER_INHERIT_ACE | OBJECT_INHERIT_ACE) : NO_INHERITANCE,
	    .Trustee = {.TrusteeForm = TRUSTEE_IS_SID, .ptstrName = (LPWSTR)cap},
	};
	st = SetEntriesInAclW(1, &ea, dacl, &next);
	/* By name, so that Windows propagates an inheritable ACE to what already exists below
	 * (the handle form would leave existing children without it). */
	if (st == ERROR_SUCCESS)
		st = SetNamedSecurityInfoW(w, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL,
					   next, NULL);
	if (st != ERROR_SUCCESS)
		r = cf_win_oserr(err, CONFINE_E_SPAWN, "cannot set an ACE", shown,
				 "SetNamedSecurityInfoW", st);
out:
	if (next)
		LocalFree(next);
	if (sd)
		LocalFree(sd);
	free(w);
	return r;
}

int cf_win_acl_apply(const struct cf_win_plan *plan, const char *capability, struct cf_win_acl *acl,
		     struct confine_error *err)
{
	struct cf_buf b;
	PSID cap = NULL;
	wchar_t *dir = NULL, *wcap = NULL;
	int r = 0;

	if (!(acl->capability = cf_strdup(capability)))
		return cf_nomem(err);
	struct confine_error mine = {0};
	if (!(dir = cf_win_state_dir(L"acl", &mine)))
		return cf_err_publish(err, &mine) ? mine.code : CONFINE_E_OS;
	if (!(wcap = cf_w_from_utf8(capability))) {
		r = cf_nomem(err);
		goto out;
	}
	size_t len = wcslen(dir) + wcslen(wcap) + 16;
	if (!(acl->path = malloc(len * sizeof(wchar_t)))) {
		r = cf_nomem(err);
		goto out;
	}
	swprintf(acl->path, len, L"%ls\\%ls.state", dir, wcap);
	/* No sharing: while this handle lives, recovery leaves the file (and its ACEs) alone. */
	acl->state =
	    CreateFileW(acl->path, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
	if (acl->state == INVALID_HANDLE_VALUE) {
		char *p = cf_utf8_from_w(acl->path);
		r = cf_win_oserr(err, CONFINE_E_SPAWN, "cannot record the ACL edits", p ? p : "",
				 "CreateFileW", GetLastError());
		free(p);
		goto out;
	}
	cf_buf_init(&b);
	cf_buf_addf(&b, "%s\nsid %s\n", STATE_MAGIC, capability);
	for (size_t i = 0; i < plan->n_edits; i++) {
		char *shown = cf_win_path_show(&plan->names, plan->edits[i].path);
		cf_buf_addf(&b, "path %s\n", shown ? shown : "");
		free(shown);
	}
	bool ok = !b.oom && write_all(acl->state, b.s, b.len) == 0 && FlushFileBuffers(acl->state);
	cf_buf_release(&b);
	if (!ok) {
		r = cf_win_oserr(err, CONFINE_E_SPAWN, "cannot record the ACL edits", "state file",
				 "WriteFile", GetLastError());
		goto out;
	}
	if (!ConvertStringSidToSidW(wcap, &cap)) {
		r = cf_win_oserr(err, CONFINE_E_SPAWN, "cannot set an ACE", capability,
				 "ConvertStringSidToSidW", GetLastError());
		goto out;
	}
	for (size_t i = 0; i < plan->n_edits && r == 0; i++) {
		const struct cf_win_edit *e = &plan->edits[i];
		char *shown = cf_win_path_show(&plan->names, e->path);
		/* Recorded as applied before the call: a failure half-way is undone too. */
		if (!shown || cf_strv_add(&acl->applied, e->path) < 0)
			r = cf_nomem(err);
		else
			r = set_ace(e, cap, shown, err);
		free(shown);
	}
	acl->n_edits = plan->n_edits;
	if (r < 0) {
		struct confine_error ignored = {0};
		cf_win_acl_rollback(acl, &ignored);
	}
out:
	if (cap)
		LocalFree(cap);
	free(wcap);
	free(dir);
	return r;
}

int cf_win_acl_rollback(struct cf_win_acl *acl, struct confine_error *err)
{
	int r = 0;
	/* Children before parents, the reverse of the order they were set in. */
	for (size_t i = acl->applied.n; i-- > 0;) {
		wchar_t *w = cf_w_path(acl->applied.v[i]);
		int k = w ? cf_win_acl_revoke(w, acl->capability, err) : cf_nomem(err);
		free(w);
		if (k < 0 && r == 0)
			r = k;
	}
	if (acl->state != INVALID_HANDLE_VALUE) {
		CloseHandle(acl->state);
		acl->state = INVALID_HANDLE_VALUE;
	}
	/* The record goes only once every ACE is gone; otherwise the next start tries again. */
	if (r == 0 && acl->path)
		DeleteFileW(acl->path);
	cf_strv_release(&acl->applied);
	free(acl->path);
	free(acl->capability);
	acl->path = NULL;
	acl->capability = NULL;
	return r;
}

/* Rolls back one state file that nobody holds; returns 1 when it did, 0 when it is in use. */
static int recover_one(const wchar_t *file, struct confine_error *err)
{
	HANDLE h = CreateFileW(file, GENERIC_READ | DELETE, 0, NULL, OPEN_EXISTING,
			       FILE_ATTRIBUTE_NORMAL, NULL);
	if (h == INVALID_HANDLE_VALUE)
		return GetLastError() == ERROR_SHARING_VIOLATION ? 0 : -1;
	struct cf_buf b;
	char chunk[4096];
	DWORD k;
	cf_buf_init(&b);
	while (ReadFile(h, chunk, sizeof(chunk), &k, NULL) && k)
		cf_buf_addn(&b, chunk, k);
	int r = 0;
	char *sid = NULL;
	if (b.oom || !b.s || strncmp(b.s, STATE_MAGIC "\n", strlen(STATE_MAGIC) + 1)) {
		CloseHandle(h);
		cf_buf_release(&b);
		return -1; /* not ours: leave it */
	}
	for (char *line = b.s, *nl; line && *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		if (!strncmp(line, "sid ", 4)) {
			free(sid);
			sid = cf_strdup(line + 4);
		} else if (!strncmp(line, "path ", 5) && sid) {
			wchar_t *w = cf_w_from_utf8(line + 5);
			if (!w || cf_win_acl_revoke(w, sid, err) < 0)
				r = -1;
			free(w);
		}
	}
	cf_buf_release(&b);
	free(sid);
	CloseHandle(h);
	if (r == 0)
		DeleteFileW(file);
	return r == 0 ? 1 : -1;
}

int cf_win_acl_recover(size_t *n, struct confine_error *err)
{
	struct confine_error mine = {0};
	wchar_t *dir = cf_win_state_dir(L"acl", &mine);
	*n = 0;
	if (!dir)
		return cf_err_publish(err, &mine) ? mine.code : CONFINE_E_OS;
	size_t len = wcslen(dir) + 16;
	wchar_t *pat = malloc(len * sizeof(wchar_t));
	int r = 0;
	if (!pat) {
		free(dir);
		return cf_nomem(err);
	}
	swprintf(pat, len, L"%ls\\*.state", dir);
	WIN32_FIND_DATAW fd;
	HANDLE f = FindFirstFileW(pat, &fd);
	for (bool more = f != INVALID_HANDLE_VALUE; more; more = FindNextFileW(f, &fd)) {
		size_t flen = wcslen(dir) + wcslen(fd.cFileName) + 2;
		wchar_t *file = malloc(flen * sizeof(wchar_t));
		if (!file) {
			r = cf_nomem(err);
			break;
		}
		swprintf(file, flen, L"%ls\\%ls", dir, fd.cFileName);
		/* A file that is not confine's is left alone and is no failure; a rollback that
		 * failed is, with its own code. */
		struct confine_error one = {0};
		int k = recover_one(file, &one);
		if (k > 0)
			(*n)++;
		else if (k < 0 && one.code && r == 0)
			r = cf_err_publish(err, &one);
		free(file);
	}
	if (f != INVALID_HANDLE_VALUE)
		FindClose(f);
	free(pat);
	free(dir);
	return r;
}
