/* SPDX-License-Identifier: MIT */
/*
 * The Windows executor's own sequence (R27, SPEC 10), for real, on Windows or under Wine:
 * the capability SID and the token, ACL edits recorded before they are made and removed after
 * (and by the next start after a crash), the command started suspended inside a kill-on-close
 * job without breakaway, its exit status, and what the token lets it write.
 *
 * Wine does not implement all of Windows' security model.  Where Wine answers differently
 * from Windows, the check is not passed or skipped: it prints a line
 *     # not implemented by Wine: WHAT: WHAT HAPPENED
 * that `make check-windows` collects and prints at the end.  On Windows itself the same checks
 * are ordinary TAP checks.
 *
 * The program is also its own child: `test-exec-windows.exe --child MODE ...`.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include <aclapi.h>
#include <sddl.h>
#include <shellapi.h>

#include "../unit/tap.h"
#include "exec/windows/win.h"
#include "util/util.h"

static bool on_wine;
static int wine_gaps;

/* A check whose Windows answer Wine may not give. */
#define WIN_OK(cond, ...)                                                                          \
	do {                                                                                       \
		if (on_wine && !(cond)) {                                                          \
			wine_gaps++;                                                               \
			printf("# not implemented by Wine: ");                                     \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
		} else {                                                                           \
			TAP_OK(cond, __VA_ARGS__);                                                 \
		}                                                                                  \
	} while (0)

static wchar_t self[MAX_PATH];

/* ---- the child side ---- */

static int write_file(const wchar_t *path)
{
	HANDLE h =
	    CreateFileW(path, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
	if (h == INVALID_HANDLE_VALUE)
		return (int)GetLastError();
	DWORD k;
	WriteFile(h, "x", 1, &k, NULL);
	CloseHandle(h);
	return 0;
}

static int child(int argc, wchar_t **argv)
{
	const wchar_t *mode = argv[2];
	if (!wcscmp(mode, L"exit"))
		return _wtoi(argv[3]);
	if (!wcscmp(mode, L"in-job")) {
		BOOL in = FALSE;
		return IsProcessInJob(GetCurrentProcess(), NULL, &in) && in ? 10 : 11;
	}
	if (!wcscmp(mode, L"sleep")) {
		Sleep(120000);
		return 0;
	}
	if (!wcscmp(mode, L"write") && argc > 3)
		return write_file(argv[3]);
	if (!wcscmp(mode, L"breakaway") || !wcscmp(mode, L"grandchild")) {
		/* Start a sleeper (with CREATE_BREAKAWAY_FROM_JOB for "breakaway"), write its pid
		 * to argv[3], exit. */
		STARTUPINFOW si = {.cb = sizeof(si)};
		PROCESS_INFORMATION pi;
		wchar_t cmd[MAX_PATH + 64];
		swprintf(cmd, MAX_PATH + 64, L"\"%ls\" --child sleep", self);
		DWORD flags = !wcscmp(mode, L"breakaway") ? CREATE_BREAKAWAY_FROM_JOB : 0;
		if (!CreateProcessW(self, cmd, NULL, NULL, FALSE, flags, NULL, NULL, &si, &pi))
			return 20 + (GetLastError() == ERROR_ACCESS_DENIED);
		FILE *f = _wfopen(argv[3], L"w");
		if (f) {
			fprintf(f, "%lu\n", (unsigned long)pi.dwProcessId);
			fclose(f);
		}
		CloseHandle(pi.hThread);
		CloseHandle(pi.hProcess);
		return 30;
	}
	return 99;
}

/* ---- helpers of the parent side ---- */

static char *cmdline_of(const char *mode, const char *arg)
{
	char *s = cf_utf8_from_w(self);
	char *c = cf_asprintf("\"%s\" --child %s%s%s", s, mode, arg ? " " : "", arg ? arg : "");
	free(s);
	return c;
}

/* Runs this program as a child in a job: with the token (or none) and returns its exit code,
 * or -1 when it could not be started. */
static long run_child(HANDLE token, const char *mode, const char *arg, struct cf_win_proc *keep)
{
	struct cf_win_proc p = CF_WIN_PROC_INIT;
	struct confine_error err = {0};
	struct cf_strv env = {0};
	char *cmd = cmdline_of(mode, arg);
	cf_win_environment(&env, &err);
	DWORD code = 0;
	long r = -1;
	int spawned = cf_win_spawn(token, self, cmd, &env, NULL, &p, &err);
	/* Wine's wineserver, on a busy machine, now and then fails a CreateProcess with
	 * ERROR_INTERNAL_ERROR (1359), which Windows does not: tried again there, a few times. */
	for (int again = 0; spawned < 0 && on_wine && again < 3 && strstr(err.reason, "error 1359");
	     again++) {
		printf("# child %s: %s: %s (Wine; trying again)\n", mode, err.what, err.reason);
		Sleep(200 * (DWORD)(again + 1));
		memset(&err, 0, sizeof(err));
		spawned = cf_win_spawn(token, self, cmd, &env, NULL, &p, &err);
	}
	if (spawned == 0 && cf_win_wait(&p, &code, &err) == 0)
		r = (long)code;
	else
		printf("# child %s: %s: %s\n", mode, err.what, err.reason);
	if (keep)
		*keep = p;
	else
		cf_win_proc_close(&p);
	cf_strv_release(&env);
	free(cmd);
	return r;
}

/* The ACE of `sid` in a path's DACL: 1 allow, 2 deny, 0 none; its mask in *mask. */
static int ace_of(const wchar_t *path, const char *sid, DWORD *mask)
{
	PACL dacl = NULL;
	PSECURITY_DESCRIPTOR sd = NULL;
	PSID want = NULL;
	wchar_t *w = cf_w_from_utf8(sid);
	int found = 0;
	if (!w || !ConvertStringSidToSidW(w, &want) ||
	    GetNamedSecurityInfoW(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL,
				  &dacl, NULL, &sd) != ERROR_SUCCESS)
		goto out;
	for (DWORD i = 0; dacl && i < dacl->AceCount && !found; i++) {
		ACE_HEADER *h;
		if (!GetAce(dacl, i, (void **)&h) || (h->AceFlags & INHERITED_ACE))
			continue;
		if (h->AceType == ACCESS_ALLOWED_ACE_TYPE &&
		    EqualSid(&((ACCESS_ALLOWED_ACE *)h)->SidStart, want)) {
			found = 1;
			*mask = ((ACCESS_ALLOWED_ACE *)h)->Mask;
		} else if (h->AceType == ACCESS_DENIED_ACE_TYPE &&
			   EqualSid(&((ACCESS_DENIED_ACE *)h)->SidStart, want)) {
			found = 2;
			*mask = ((ACCESS_DENIED_ACE *)h)->Mask;
		}
	}
out:
	if (sd)
		LocalFree(sd);
	if (want)
		LocalFree(want);
	free(w);
	return found;
}

static bool state_file_of(const char *sid, char **text)
{
	wchar_t *dir = cf_win_state_dir(L"acl", NULL), *ws = cf_w_from_utf8(sid);
	wchar_t path[MAX_PATH * 2];
	swprintf(path, MAX_PATH * 2, L"%ls\\%ls.state", dir, ws);
	free(dir);
	free(ws);
	HANDLE h = CreateFileW(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
			       OPEN_EXISTING, 0, NULL);
	bool exists = GetFileAttributesW(path) != INVALID_FILE_ATTRIBUTES;
	if (text) {
		*text = NULL;
		if (h != INVALID_HANDLE_VALUE) {
			char buf[8192];
			DWORD k = 0;
			ReadFile(h, buf, sizeof(buf) - 1, &k, NULL);
			buf[k] = '\0';
			*text = cf_strdup(buf);
		}
	}
	if (h != INVALID_HANDLE_VALUE)
		CloseHandle(h);
	return exists;
}

/* A scratch directory: WORK\ws (allow), WORK\ws\keep (deny), WORK\outside (no ACE). */
static wchar_t work[MAX_PATH], ws[MAX_PATH], keep[MAX_PATH], outside[MAX_PATH];

static void make_scratch(void)
{
	wchar_t tmp[MAX_PATH];
	GetTempPathW(MAX_PATH, tmp);
	swprintf(work, MAX_PATH, L"%lsconfine-exec-%lu", tmp, (unsigned long)GetCurrentProcessId());
	swprintf(ws, MAX_PATH, L"%ls\\ws", work);
	swprintf(keep, MAX_PATH, L"%ls\\ws\\keep", work);
	swprintf(outside, MAX_PATH, L"%ls\\outside", work);
	CreateDirectoryW(work, NULL);
	CreateDirectoryW(ws, NULL);
	CreateDirectoryW(keep, NULL);
	CreateDirectoryW(outside, NULL);
}

static char *internal_of(const wchar_t *w)
{
	char *s = cf_utf8_from_w(w), *in = NULL;
	if (s)
		cf_win_path_internal(s, "test", &in, NULL);
	free(s);
	return in;
}

/* A plan with two edits, as the planner would make them. */
static void small_plan(struct cf_win_plan *plan)
{
	memset(plan, 0, sizeof(*plan));
	plan->n_edits = 2;
	plan->edits = calloc(2, sizeof(*plan->edits));
	plan->edits[0] = (struct cf_win_edit){internal_of(ws),	 CF_KIND_DIR, CF_WIN_ACE_ALLOW,
					      CF_WIN_MASK_ALLOW, true,	      cf_strdup("test")};
	plan->edits[1] = (struct cf_win_edit){internal_of(keep), CF_KIND_DIR, CF_WIN_ACE_DENY,
					      CF_WIN_MASK_DENY,	 true,	      cf_strdup("test")};
}

/* ---- the checks ---- */

static void token_checks(const char *cap)
{
	HANDLE tok = NULL;
	struct confine_error err = {0};
	int r = cf_win_token_new(cap, &tok, &err);
	WIN_OK(r == 0, "the write-restricted token is built (%s)", r ? err.reason : "ok");
	if (r)
		return;
	WIN_OK(IsTokenRestricted(tok), "IsTokenRestricted says so");
	DWORD n = 0;
	GetTokenInformation(tok, TokenRestrictedSids, NULL, 0, &n);
	TOKEN_GROUPS *g = n ? malloc(n) : NULL;
	bool got = g && GetTokenInformation(tok, TokenRestrictedSids, g, n, &n);
	DWORD count = got ? g->GroupCount : 0;
	WIN_OK(count == 3, "three restricting SIDs (got %lu)", (unsigned long)count);
	bool has_cap = false, has_world = false, has_user = false;
	void *ubuf = NULL;
	DWORD un = 0;
	HANDLE me;
	OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &me);
	GetTokenInformation(me, TokenUser, NULL, 0, &un);
	ubuf = malloc(un);
	GetTokenInformation(me, TokenUser, ubuf, un, &un);
	CloseHandle(me);
	for (DWORD i = 0; got && i < count; i++) {
		LPSTR s = NULL;
		ConvertSidToStringSidA(g->Groups[i].Sid, &s);
		has_cap = has_cap || (s && !strcmp(s, cap));
		has_world = has_world || (s && !strcmp(s, "S-1-1-0"));
		has_user = has_user || EqualSid(g->Groups[i].Sid, ((TOKEN_USER *)ubuf)->User.Sid);
		LocalFree(s);
	}
	WIN_OK(has_cap, "the capability SID restricts");
	WIN_OK(has_world, "Everyone restricts");
	TAP_OK(!has_user, "the user's SID is never a restricting SID");
	free(ubuf);
	free(g);
	CloseHandle(tok);
}

static void acl_checks(void)
{
	char *cap = NULL, *text = NULL;
	struct confine_error err = {0};
	struct cf_win_plan plan;
	struct cf_win_acl acl = CF_WIN_ACL_INIT;
	DWORD mask = 0;
	size_t n = 0;
	cf_win_capability_new(&cap, NULL);
	small_plan(&plan);

	int r = cf_win_acl_apply(&plan, cap, &acl, &err);
	TAP_INTEQ(r, 0, "ACL edits applied (%s)", r ? err.reason : "ok");
	TAP_OK(state_file_of(cap, &text), "the state file exists while the run lives");
	TAP_OK(text == NULL, "  and nobody else can open it (the run holds it without sharing)");
	free(text);
	WIN_OK(ace_of(ws, cap, &mask) == 1,
	       "the workspace has an allow ACE for the capability SID (the DACL read back has "
	       "%s)",
	       ace_of(ws, cap, &mask) ? "it" : "no ACE for it");
	WIN_OK(ace_of(ws, cap, &mask) == 1 && (mask & CF_WIN_MASK_ALLOW) == CF_WIN_MASK_ALLOW &&
		   !(mask & (CF_WIN_FILE_DELETE_CHILD | CF_WIN_WRITE_DAC)),
	       "  with the write mask, without delete-child or WRITE_DAC");
	WIN_OK(ace_of(keep, cap, &mask) == 2, "the protected directory has a deny ACE");
	n = 0;
	TAP_INTEQ(cf_win_acl_recover(&n, &err), 0, "recovery runs while a run lives");
	TAP_OK(state_file_of(cap, NULL), "  and leaves that run's state file alone");
	TAP_INTEQ(cf_win_acl_rollback(&acl, &err), 0, "rollback succeeds");
	TAP_INTEQ(ace_of(ws, cap, &mask), 0, "  no allow ACE of the run is left");
	TAP_INTEQ(ace_of(keep, cap, &mask), 0, "  no deny ACE of the run is left");
	TAP_OK(!state_file_of(cap, NULL), "  and the state file is gone");
	free(cap);

	/* A run that dies between apply and rollback: the child applies and exits. */
	char *ws8 = cf_utf8_from_w(ws);
	long code = run_child(NULL, "crash", ws8, NULL);
	free(ws8);
	TAP_INTEQ(code, 3, "a child applies the edits and dies without undoing them");
	FILE *f = fopen("confine-exec-crash.sid", "r");
	char sid[128] = "";
	if (f) {
		if (!fgets(sid, sizeof(sid), f))
			sid[0] = '\0';
		fclose(f);
		sid[strcspn(sid, "\r\n")] = '\0';
		DeleteFileA("confine-exec-crash.sid");
	}
	WIN_OK(sid[0] && ace_of(ws, sid, &mask) == 1, "its ACE is still there");
	TAP_OK(sid[0] && state_file_of(sid, &text), "  and so is its state file, now readable");
	char *wsu = cf_utf8_from_w(ws), *keepu = cf_utf8_from_w(keep);
	TAP_OK(text && !strncmp(text, "confine-acl-state 1\n", 20) && strstr(text, sid),
	       "  it names the capability SID");
	/* Windows paths compare without case: the record holds the plan's spelling. */
	for (char *q = text; q && *q; q++)
		*q = (char)tolower((unsigned char)*q);
	for (char *q = wsu; q && *q; q++)
		*q = (char)tolower((unsigned char)*q);
	for (char *q = keepu; q && *q; q++)
		*q = (char)tolower((unsigned char)*q);
	TAP_OK(text && wsu && keepu && strstr(text, wsu) && strstr(text, keepu),
	       "  and both paths, written before the first ACE was set");
	free(text);
	free(wsu);
	free(keepu);
	n = 0;
	TAP_INTEQ(cf_win_acl_recover(&n, &err), 0, "the next start recovers");
	TAP_OK(n >= 1, "  at least the dead run's state (%zu)", n);
	TAP_INTEQ(ace_of(ws, sid, &mask), 0, "  its ACE is gone");
	TAP_INTEQ(ace_of(keep, sid, &mask), 0, "  its deny ACE is gone");
	TAP_OK(!state_file_of(sid, NULL), "  and its state file");
	cf_win_plan_release(&plan);
}

/* The child side of the crash check: apply the edits of a run and exit without undoing. */
static int crash_child(const wchar_t *wsdir)
{
	char *cap = NULL;
	struct cf_win_plan plan;
	struct cf_win_acl acl = CF_WIN_ACL_INIT;
	wcscpy(ws, wsdir);
	swprintf(keep, MAX_PATH, L"%ls\\keep", wsdir);
	cf_win_capability_new(&cap, NULL);
	small_plan(&plan);
	struct confine_error err = {0};
	if (cf_win_acl_apply(&plan, cap, &acl, &err) < 0) {
		fprintf(stderr, "crash child: %s: %s: %s\n", err.what, err.subject, err.reason);
		return 4;
	}
	FILE *f = fopen("confine-exec-crash.sid", "w");
	if (f) {
		fprintf(f, "%s\n", cap);
		fclose(f);
	}
	ExitProcess(3); /* no rollback, as when confine is killed */
}

static void job_checks(const char *cap)
{
	HANDLE tok = NULL;
	cf_win_token_new(cap, &tok, NULL);
	TAP_INTEQ(run_child(NULL, "exit", "42", NULL), 42, "exit status passes through");
	TAP_INTEQ(run_child(NULL, "exit", "0", NULL), 0, "exit status 0 passes through");
	TAP_INTEQ(run_child(NULL, "in-job", NULL, NULL), 10,
		  "the command is in its job from its first instruction (started suspended)");
	if (tok) {
		long c = run_child(tok, "exit", "7", NULL);
		WIN_OK(c == 7, "the command starts with the restricted token (exit %ld)", c);
	}

	/* Kill on close: a grandchild left running dies with the job. */
	char pidfile[] = "confine-exec-grandchild.pid";
	struct cf_win_proc p;
	long c = run_child(NULL, "grandchild", pidfile, &p);
	TAP_INTEQ(c, 30, "a command that leaves a process behind");
	unsigned long pid = 0;
	FILE *f = fopen(pidfile, "r");
	if (f) {
		if (fscanf(f, "%lu", &pid) != 1)
			pid = 0;
		fclose(f);
		DeleteFileA(pidfile);
	}
	HANDLE gh =
	    pid ? OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)pid)
		: NULL;
	cf_win_proc_close(&p);
	DWORD w = gh ? WaitForSingleObject(gh, 10000) : WAIT_FAILED;
	TAP_OK(gh && w == WAIT_OBJECT_0, "  its grandchild is gone once the job is closed");
	if (gh)
		CloseHandle(gh);

	/* No breakaway: CREATE_BREAKAWAY_FROM_JOB is refused inside the job. */
	c = run_child(NULL, "breakaway", pidfile, NULL);
	WIN_OK(c == 21, "a child asking to break away from the job is refused (exit %ld)", c);
	DeleteFileA(pidfile);
	if (tok)
		CloseHandle(tok);
}

/* What the token lets the command write, with a control without it. */
static void write_checks(void)
{
	char *cap = NULL;
	struct cf_win_plan plan;
	struct cf_win_acl acl = CF_WIN_ACL_INIT;
	HANDLE tok = NULL;
	struct confine_error err = {0};
	cf_win_capability_new(&cap, NULL);
	small_plan(&plan);
	if (cf_win_acl_apply(&plan, cap, &acl, &err) < 0 || cf_win_token_new(cap, &tok, &err) < 0) {
		WIN_OK(false, "write checks need the token and the ACEs: %s", err.reason);
		goto out;
	}
	wchar_t in_ws[MAX_PATH], in_keep[MAX_PATH], out_ws[MAX_PATH];
	swprintf(in_ws, MAX_PATH, L"%ls\\new.txt", ws);
	swprintf(in_keep, MAX_PATH, L"%ls\\new.txt", keep);
	swprintf(out_ws, MAX_PATH, L"%ls\\new.txt", outside);
	char *a = cf_utf8_from_w(in_ws), *b = cf_utf8_from_w(in_keep), *c = cf_utf8_from_w(out_ws);
	/* Controls: without the token every write works. */
	TAP_INTEQ(run_child(NULL, "write", c, NULL), 0, "control: without the token, outside");
	TAP_INTEQ(run_child(NULL, "write", b, NULL), 0, "control: without the token, protected");
	DeleteFileW(out_ws);
	DeleteFileW(in_keep);
	long r = run_child(tok, "write", a, NULL);
	WIN_OK(r == 0, "with the token: a write in the workspace works (%ld)", r);
	r = run_child(tok, "write", c, NULL);
	WIN_OK(r == ERROR_ACCESS_DENIED,
	       "with the token: a write outside the write roots is refused with "
	       "ERROR_ACCESS_DENIED (got %ld)",
	       r);
	r = run_child(tok, "write", b, NULL);
	WIN_OK(r == ERROR_ACCESS_DENIED,
	       "with the token: a write in a deny-ACE directory inside the workspace is refused "
	       "(got %ld)",
	       r);
	free(a);
	free(b);
	free(c);
out:
	if (tok)
		CloseHandle(tok);
	cf_win_acl_rollback(&acl, &err);
	cf_win_plan_release(&plan);
	free(cap);
}

/* cf_win_cmdline against the splitter programs use. */
static void cmdline_checks(void)
{
	const char *args[][4] = {
	    {"prog", "a b", "say \"hi\"", "C:\\my dir\\"},
	    {"prog", "", "a\\\\\"b", "tab\tx"},
	    {"C:\\Program Files\\x.exe", "\\\\server\\", "\"", "end\\"},
	};
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		struct cf_strv argv = {0};
		for (size_t k = 0; k < 4; k++)
			cf_strv_add(&argv, args[i][k]);
		char *line = NULL;
		cf_win_cmdline(&argv, &line, NULL);
		wchar_t *w = line ? cf_w_from_utf8(line) : NULL;
		int n = 0;
		wchar_t **back = w ? CommandLineToArgvW(w, &n) : NULL;
		bool same = back && n == 4;
		for (int k = 0; same && k < 4; k++) {
			char *s = cf_utf8_from_w(back[k]);
			same = s && !strcmp(s, args[i][k]);
			free(s);
		}
		TAP_OK(same, "CommandLineToArgvW splits the command line %zu back into argv", i);
		if (back)
			LocalFree(back);
		free(w);
		free(line);
		cf_strv_release(&argv);
	}
}

/* SPEC 6: the Windows backend has no read-only file injection; a request with one is refused
 * when it is prepared, never run without it. */
static void inject_checks(void)
{
	confine_request *req = NULL;
	confine_run *run = NULL;
	struct confine_error err = {0};
	const char *argv[] = {"cmd", "/c", "exit 0"};
	int r = confine_request_new(&req, &err);
	if (r == 0)
		r = confine_request_set_argv(req, 3, argv, &err);
	if (r == 0)
		r = confine_request_add_injection(req, CONFINE_INJECT_ENV, "SETTINGS", "x", 1,
						  &err);
	TAP_INTEQ(r, 0, "R21 an injection is a valid request on Windows too");
	if (r == 0)
		r = confine_run_prepare(req, &run, &err);
	TAP_INTEQ(r, CONFINE_E_INVALID, "R21 the Windows backend refuses a run with an injection");
	TAP_STREQ(err.what, "not available on Windows", "R21 ... and says so");
	TAP_OK(run == NULL, "R21 ... no run was prepared");
	confine_run_free(run);
	confine_request_free(req);
}

int wmain(int argc, wchar_t **argv);
int wmain(int argc, wchar_t **argv)
{
	GetModuleFileNameW(NULL, self, MAX_PATH);
	if (argc > 3 && !wcscmp(argv[1], L"--child") && !wcscmp(argv[2], L"crash"))
		return crash_child(argv[3]);
	if (argc > 2 && !wcscmp(argv[1], L"--child"))
		return child(argc, argv);
	on_wine = GetProcAddress(GetModuleHandleA("ntdll.dll"), "wine_get_version") != NULL;
	printf("# running on %s\n", on_wine ? "Wine" : "Windows");
	make_scratch();

	char *cap = NULL, *cap2 = NULL;
	TAP_INTEQ(cf_win_capability_new(&cap, NULL), 0, "a capability SID");
	cf_win_capability_new(&cap2, NULL);
	TAP_OK(cap && !strncmp(cap, "S-1-5-21-", 9), "  of the form S-1-5-21-... (%s)", cap);
	TAP_OK(cap && cap2 && strcmp(cap, cap2), "  new for each run");

	token_checks(cap);
	acl_checks();
	job_checks(cap);
	write_checks();
	cmdline_checks();
	inject_checks();

	free(cap);
	free(cap2);
	if (on_wine)
		printf("# %d check(s) not implemented by Wine (listed above)\n", wine_gaps);
	return tap_done();
}
