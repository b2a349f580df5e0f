/* SPDX-License-Identifier: MIT */
/*
 * Starting the command (SPEC 10): suspended, with the restricted token, only the standard
 * handles, inside a job object that kills everything in it when its last handle closes and
 * lets nothing break away; resumed only once it is in the job, so no child it starts can be
 * born outside.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/windows/win.h"
#include "util/util.h"

static bool exists_file(const wchar_t *w)
{
	DWORD a = GetFileAttributesW(w);
	return a != INVALID_FILE_ATTRIBUTES && !(a & FILE_ATTRIBUTE_DIRECTORY);
}

int cf_win_resolve_program(const char *argv0, const char *workspace_internal, wchar_t **out,
			   struct confine_error *err)
{
	static const wchar_t *const exts[] = {L"", L".com", L".exe"};
	wchar_t *name = cf_w_from_utf8(argv0);
	*out = NULL;
	if (!name)
		return cf_err(err, CONFINE_E_INVALID, "invalid command", argv0, "not valid UTF-8");
	/* A name with a directory part is taken as given (relative to the current directory). */
	if (wcspbrk(name, L"\\/:")) {
		for (size_t i = 0; i < 3; i++) {
			size_t len = wcslen(name) + 8;
			wchar_t *cand = malloc(len * sizeof(wchar_t));
			if (!cand)
				break;
			swprintf(cand, len, L"%ls%ls", name, exts[i]);
			if (exists_file(cand)) {
				*out = cand;
				free(name);
				return 0;
			}
			free(cand);
		}
		free(name);
		return cf_err(err, CONFINE_E_NOTFOUND, "command not found", argv0,
			      "no such file (tried it with .com and .exe)");
	}
	/* A bare name: PATH's absolute entries outside the workspace.  Unlike CreateProcess's own
	 * search, the current directory is never tried, so a git.exe planted in the workspace is
	 * not what "git" runs. */
	DWORD n = GetEnvironmentVariableW(L"PATH", NULL, 0);
	wchar_t *path = n ? malloc(n * sizeof(wchar_t)) : NULL;
	if (path && GetEnvironmentVariableW(L"PATH", path, n) != n - 1) {
		free(path);
		path = NULL;
	}
	for (wchar_t *dir = path, *semi; dir && !*out; dir = semi ? semi + 1 : NULL) {
		if ((semi = wcschr(dir, L';')))
			*semi = L'\0';
		if (!(iswalpha(dir[0]) && dir[1] == L':' && (dir[2] == L'\\' || dir[2] == L'/')))
			continue;
		char *d = cf_utf8_from_w(dir), *in = NULL;
		bool inside = d && cf_win_path_internal(d, "PATH", &in, NULL) == 0 &&
			      cf_path_within(in, workspace_internal);
		free(d);
		free(in);
		if (inside)
			continue;
		for (size_t i = 0; i < 3 && !*out; i++) {
			size_t len = wcslen(dir) + wcslen(name) + 8;
			wchar_t *cand = malloc(len * sizeof(wchar_t));
			if (!cand)
				break;
			swprintf(cand, len, L"%ls\\%ls%ls", dir, name, exts[i]);
			if (exists_file(cand))
				*out = cand;
			else
				free(cand);
		}
	}
	free(path);
	free(name);
	if (*out)
		return 0;
	cf_err(err, CONFINE_E_NOTFOUND, "command not found", argv0,
	       "not in the absolute PATH entries outside the workspace (tried .com and .exe)");
	cf_err_hint(err, "give the full path; a batch file runs as: cmd /c FILE.cmd");
	return CONFINE_E_NOTFOUND;
}

/* NAME=VALUE strings as a UTF-16 environment block (double NUL at the end). */
static wchar_t *env_block(const struct cf_strv *env)
{
	size_t total = 1;
	wchar_t **w = calloc(env->n ? env->n : 1, sizeof(*w));
	if (!w)
		return NULL;
	for (size_t i = 0; i < env->n; i++) {
		w[i] = cf_w_from_utf8(env->v[i]);
		total += w[i] ? wcslen(w[i]) + 1 : 0;
	}
	wchar_t *block = malloc((total + 1) * sizeof(wchar_t)), *p = block;
	for (size_t i = 0; block && i < env->n; i++) {
		if (!w[i])
			continue;
		size_t k = wcslen(w[i]) + 1;
		memcpy(p, w[i], k * sizeof(wchar_t));
		p += k;
	}
	if (block) {
		*p++ = L'\0';
		*p = L'\0';
	}
	for (size_t i = 0; i < env->n; i++)
		free(w[i]);
	free(w);
	return block;
}

void cf_win_proc_close(struct cf_win_proc *p)
{
	if (p->thread)
		CloseHandle(p->thread);
	if (p->process)
		CloseHandle(p->process);
	/* Closing the last handle of the job kills whatever is still in it. */
	if (p->job)
		CloseHandle(p->job);
	*p = (struct cf_win_proc)CF_WIN_PROC_INIT;
}

/* A job object that kills everything in it when its last handle closes, into *job. */
static int make_job(HANDLE *job, struct confine_error *err)
{
	*job = CreateJobObjectW(NULL, NULL);
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION li = {0};
	/* Kill on close, and neither JOB_OBJECT_LIMIT_BREAKAWAY_OK nor SILENT_BREAKAWAY_OK: a
	 * child asking CREATE_BREAKAWAY_FROM_JOB is refused. */
	li.BasicLimitInformation.LimitFlags =
	    JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
	if (!*job ||
	    !SetInformationJobObject(*job, JobObjectExtendedLimitInformation, &li, sizeof(li)))
		return cf_win_oserr(err, CONFINE_E_SPAWN, "cannot create the job object", "",
				    *job ? "SetInformationJobObject" : "CreateJobObjectW",
				    GetLastError());
	return 0;
}

/* Only the standard handles are inherited: no descriptor of confine's reaches the command (the
 * Windows side of R16).  Fills std[] and the distinct inheritable ones into inherit[], marks
 * those inheritable, and sets *attrs to an attribute list naming them.  Returns 0 or a
 * negative code (*attrs then NULL). */
static int std_handles_only(HANDLE std[3], HANDLE inherit[3], DWORD *n_inherit,
			    LPPROC_THREAD_ATTRIBUTE_LIST *attrs, struct confine_error *err)
{
	std[0] = GetStdHandle(STD_INPUT_HANDLE);
	std[1] = GetStdHandle(STD_OUTPUT_HANDLE);
	std[2] = GetStdHandle(STD_ERROR_HANDLE);
	*n_inherit = 0;
	for (size_t i = 0; i < 3; i++) {
		if (!std[i] || std[i] == INVALID_HANDLE_VALUE)
			continue;
		bool dup = false;
		for (DWORD j = 0; j < *n_inherit; j++)
			dup = dup || inherit[j] == std[i];
		if (!dup && SetHandleInformation(std[i], HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT))
			inherit[(*n_inherit)++] = std[i];
	}
	SIZE_T size = 0;
	InitializeProcThreadAttributeList(NULL, 1, 0, &size);
	if (!(*attrs = malloc(size)) || !InitializeProcThreadAttributeList(*attrs, 1, 0, &size) ||
	    (*n_inherit &&
	     !UpdateProcThreadAttribute(*attrs, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, inherit,
					*n_inherit * sizeof(HANDLE), NULL, NULL))) {
		int r = cf_win_oserr(err, CONFINE_E_SPAWN, "cannot start the command", "",
				     "UpdateProcThreadAttribute", GetLastError());
		free(*attrs);
		*attrs = NULL;
		return r;
	}
	return 0;
}

/* Puts the started (suspended) process in the job, then resumes it: no child it starts can be
 * born outside the job. */
static int enter_job_and_resume(struct cf_win_proc *p, const PROCESS_INFORMATION *pi,
				struct confine_error *err)
{
	if (!AssignProcessToJobObject(p->job, pi->hProcess)) {
		int r =
		    cf_win_oserr(err, CONFINE_E_SPAWN, "cannot put the command in its job object",
				 "", "AssignProcessToJobObject", GetLastError());
		TerminateProcess(pi->hProcess, 125);
		return r;
	}
	if (ResumeThread(pi->hThread) == (DWORD)-1) {
		int r = cf_win_oserr(err, CONFINE_E_SPAWN, "cannot resume the command", "",
				     "ResumeThread", GetLastError());
		TerminateJobObject(p->job, 125);
		return r;
	}
	return 0;
}

int cf_win_spawn(HANDLE token, const wchar_t *program, const char *cmdline,
		 const struct cf_strv *env, const char *cwd_win, struct cf_win_proc *p,
		 struct confine_error *err)
{
	wchar_t *cmd = cf_w_from_utf8(cmdline), *block = env_block(env);
	wchar_t *cwd = cwd_win ? cf_w_from_utf8(cwd_win) : NULL;
	LPPROC_THREAD_ATTRIBUTE_LIST attrs = NULL;
	PROCESS_INFORMATION pi = {0};
	HANDLE std[3], inherit[3];
	DWORD n_inherit = 0;
	int r = CONFINE_E_SPAWN;

	if (!cmd || !block || (cwd_win && !cwd)) {
		r = cf_nomem(err);
		goto out;
	}
	if ((r = make_job(&p->job, err)) < 0 ||
	    (r = std_handles_only(std, inherit, &n_inherit, &attrs, err)) < 0)
		goto out;
	STARTUPINFOEXW si = {.StartupInfo = {.cb = sizeof(si)}, .lpAttributeList = attrs};
	si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
	si.StartupInfo.hStdInput = std[0];
	si.StartupInfo.hStdOutput = std[1];
	si.StartupInfo.hStdError = std[2];
	DWORD flags = CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT | EXTENDED_STARTUPINFO_PRESENT;
	BOOL ok = token ? CreateProcessAsUserW(token, program, cmd, NULL, NULL, n_inherit > 0,
					       flags, block, cwd, &si.StartupInfo, &pi)
			: CreateProcessW(program, cmd, NULL, NULL, n_inherit > 0, flags, block, cwd,
					 &si.StartupInfo, &pi);
	if (!ok) {
		DWORD e = GetLastError();
		char *prog = cf_utf8_from_w(program);
		r = cf_win_oserr(err,
				 e == ERROR_BAD_EXE_FORMAT || e == ERROR_ACCESS_DENIED
				     ? CONFINE_E_NOEXEC
				     : CONFINE_E_SPAWN,
				 "cannot start the command", prog ? prog : "",
				 token ? "CreateProcessAsUserW" : "CreateProcessW", e);
		free(prog);
		goto out;
	}
	p->process = pi.hProcess;
	p->thread = pi.hThread;
	p->pid = pi.dwProcessId;
	r = enter_job_and_resume(p, &pi, err);
out:
	if (attrs) {
		DeleteProcThreadAttributeList(attrs);
		free(attrs);
	}
	free(cmd);
	free(block);
	free(cwd);
	return r;
}

int cf_win_wait(struct cf_win_proc *p, DWORD *code, struct confine_error *err)
{
	if (WaitForSingleObject(p->process, INFINITE) != WAIT_OBJECT_0)
		return cf_win_oserr(err, CONFINE_E_OS, "cannot wait for the command", "",
				    "WaitForSingleObject", GetLastError());
	if (!GetExitCodeProcess(p->process, code))
		return cf_win_oserr(err, CONFINE_E_OS, "cannot read the exit status", "",
				    "GetExitCodeProcess", GetLastError());
	/* What the command left running dies with it, before the ACL edits are undone. */
	TerminateJobObject(p->job, *code);
	return 0;
}
