/* SPDX-License-Identifier: MIT */
/*
 * The Windows executor (SPEC 10, R27): a thin layer that applies a struct cf_win_plan with the
 * Win32 API only.  Its steps, each in its own file:
 *   host.c   the host facts (profile, workspace, temp roots, what is at a path)
 *   token.c  the capability SID of the run and the write-restricted token
 *   acl.c    the ACL edits: recorded in a state file before they are made, removed after the
 *            run, and at the next start when a run died before it could remove them
 *   job.c    the command, started suspended inside a kill-on-close job object, then resumed
 *   run.c    the public confine_run_* API on Windows
 * Compiled only for Windows (meson: is_windows).
 */
#ifndef CONFINE_EXEC_WIN_H
#define CONFINE_EXEC_WIN_H

#ifndef _WIN32
#error "exec/windows is the Windows executor"
#endif

#include <windows.h>

#include "plan/windows/plan_win.h"

/* UTF-8 to UTF-16 and back; malloc'd, NULL on invalid input or oom. */
wchar_t *cf_w_from_utf8(const char *s);
char *cf_utf8_from_w(const wchar_t *w);
/* An internal path ("/c:/a/b") as a Win32 path (L"c:\\a\\b"). */
wchar_t *cf_w_path(const char *internal);
/* Fills err from a Win32 error code (GetLastError() or a returned status). */
int cf_win_oserr(struct confine_error *err, int code, const char *what, const char *subject,
		 const char *call, DWORD e);

/* ---- host.c ---- */

/* The facts of this machine for a request's workspace (NULL: the current directory), with
 * callbacks that look at the real file system.  Touches the OS. */
int cf_win_host_gather(const char *workspace, struct cf_win_facts *f, struct confine_error *err);
struct cf_win_host cf_win_host_real(const struct cf_win_facts *f);
/* The environment of this process as UTF-8 NAME=VALUE strings. */
int cf_win_environment(struct cf_strv *out, struct confine_error *err);
/* The directory of confine's state (%LOCALAPPDATA%\confine\STATE), created if missing. */
wchar_t *cf_win_state_dir(const wchar_t *leaf, struct confine_error *err);

/* ---- token.c ---- */

/* A capability SID for one run: S-1-5-21 and four random sub-authorities. */
int cf_win_capability_new(char **sid, struct confine_error *err);
/* The write-restricted token of SPEC 10: the caller's token restricted with
 * WRITE_RESTRICTED | LUA_TOKEN | DISABLE_MAX_PRIVILEGE, restricting SIDs capability, logon SID
 * and Everyone, and a default DACL that gives objects the command creates to those SIDs too. */
int cf_win_token_new(const char *capability, HANDLE *out, struct confine_error *err);

/* ---- acl.c ---- */

struct cf_win_acl {
	HANDLE state;		/* the open state file (exclusive while the run lives) */
	wchar_t *path;		/* its name */
	char *capability;	/* the SID whose ACEs are removed on rollback */
	struct cf_strv applied; /* internal paths whose DACL was changed */
	size_t n_edits;
};
#define CF_WIN_ACL_INIT                                                                            \
	{                                                                                          \
		INVALID_HANDLE_VALUE, NULL, NULL, {0}, 0                                           \
	}

/* Rolls back the ACL edits of runs that died without doing it themselves: every state file
 * nobody holds open.  *n counts the runs rolled back.  Touches the OS. */
int cf_win_acl_recover(size_t *n, struct confine_error *err);
/* Records every edit of the plan in a new state file, then applies them in order; on failure
 * what was applied is removed again. */
int cf_win_acl_apply(const struct cf_win_plan *plan, const char *capability, struct cf_win_acl *acl,
		     struct confine_error *err);
/* Removes every ACE of the capability SID from the recorded paths and deletes the state
 * file.  Idempotent. */
int cf_win_acl_rollback(struct cf_win_acl *acl, struct confine_error *err);
/* Removes the ACEs of `capability` from one path (also what recovery does). */
int cf_win_acl_revoke(const wchar_t *path, const char *capability, struct confine_error *err);

/* ---- job.c ---- */

struct cf_win_proc {
	HANDLE job, process, thread;
	DWORD pid;
};
#define CF_WIN_PROC_INIT                                                                           \
	{                                                                                          \
		NULL, NULL, NULL, 0                                                                \
	}

/* The program CreateProcess will run for argv[0]: a path as given, or the first match in the
 * absolute PATH entries outside the workspace (never the current directory), trying PATHEXT's
 * .COM and .EXE.  CONFINE_E_NOTFOUND when there is none. */
int cf_win_resolve_program(const char *argv0, const char *workspace_internal, wchar_t **out,
			   struct confine_error *err);
/* Creates the job (kill on close, no breakaway), starts the command suspended with `token`
 * (NULL: the caller's own, policy off) and only the standard handles, puts it in the job and
 * resumes it. */
int cf_win_spawn(HANDLE token, const wchar_t *program, const char *cmdline,
		 const struct cf_strv *env, const char *cwd_win, struct cf_win_proc *p,
		 struct confine_error *err);
/* Waits for the command, ends what is left in the job, and returns its exit code. */
int cf_win_wait(struct cf_win_proc *p, DWORD *code, struct confine_error *err);
void cf_win_proc_close(struct cf_win_proc *p);

#endif
