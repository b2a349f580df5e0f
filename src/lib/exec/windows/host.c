/* SPDX-License-Identifier: MIT */
/* Host facts of this Windows machine, and the UTF-8/UTF-16 conversions the executor uses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/windows/win.h"
#include "util/util.h"

wchar_t *cf_w_from_utf8(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	if (n <= 0)
		return NULL;
	wchar_t *w = malloc((size_t)n * sizeof(*w));
	if (w && MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n) != n) {
		free(w);
		return NULL;
	}
	return w;
}

char *cf_utf8_from_w(const wchar_t *w)
{
	int n = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, NULL, 0, NULL, NULL);
	if (n <= 0)
		return NULL;
	char *s = malloc((size_t)n);
	if (s && WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, s, n, NULL, NULL) != n) {
		free(s);
		return NULL;
	}
	return s;
}

wchar_t *cf_w_path(const char *internal)
{
	/* "/c:" is the drive root "c:\"; "/c:/a/b" is "c:\a\b". */
	char *s = internal[3] ? cf_strdup(internal + 1) : cf_asprintf("%c:\\", internal[1]);
	if (!s)
		return NULL;
	for (char *p = s; *p; p++)
		if (*p == '/')
			*p = '\\';
	wchar_t *w = cf_w_from_utf8(s);
	free(s);
	return w;
}

int cf_win_oserr(struct confine_error *err, int code, const char *what, const char *subject,
		 const char *call, DWORD e)
{
	char msg[256] = "";
	DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL,
				 e, 0, msg, sizeof(msg), NULL);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r' || msg[n - 1] == '.'))
		msg[--n] = '\0';
	/* Only a failure this call records gets its details (a struct that holds an earlier
	 * failure of the same code keeps that one's). */
	bool fills = err && err->code == 0;
	cf_err(err, code, what, subject, "%s failed: %s (error %lu)", call,
	       n ? msg : "unknown error", (unsigned long)e);
	if (fills) {
		err->os_errno = (int)e;
		snprintf(err->syscall, sizeof(err->syscall), "%s", call);
	}
	return code;
}

static char *env_utf8(const wchar_t *name)
{
	DWORD n = GetEnvironmentVariableW(name, NULL, 0);
	if (!n)
		return NULL;
	wchar_t *w = malloc(n * sizeof(*w));
	if (!w)
		return NULL;
	char *s = GetEnvironmentVariableW(name, w, n) == n - 1 ? cf_utf8_from_w(w) : NULL;
	free(w);
	return s;
}

/* The final path of an existing directory (junctions and symbolic links resolved, 8.3 names
 * expanded), without the \\?\ prefix.  NULL with err filled. */
static char *final_path(const char *win, const char *what, struct confine_error *err)
{
	wchar_t *w = cf_w_from_utf8(win), buf[32768];
	char *out = NULL;
	if (!w) {
		cf_err(err, CONFINE_E_INVALID, what, win, "not valid UTF-8");
		return NULL;
	}
	HANDLE h = CreateFileW(w, FILE_READ_ATTRIBUTES,
			       FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			       OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		cf_win_oserr(err, CONFINE_E_WORKSPACE, what, win, "CreateFileW", GetLastError());
		return NULL;
	}
	DWORD n = GetFinalPathNameByHandleW(h, buf, 32768, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
	if (!n || n >= 32768)
		cf_win_oserr(err, CONFINE_E_WORKSPACE, what, win, "GetFinalPathNameByHandleW",
			     GetLastError());
	CloseHandle(h);
	if (!n || n >= 32768)
		return NULL;
	const wchar_t *p = buf;
	if (!wcsncmp(p, L"\\\\?\\", 4) && p[5] == L':')
		p += 4;
	if (!(out = cf_utf8_from_w(p)))
		cf_nomem(err);
	return out;
}

/* The home directory: the final path of %USERPROFILE%, into *home. */
static int find_home(char **home, struct confine_error *err)
{
	char *profile = env_utf8(L"USERPROFILE");
	if (!profile)
		return cf_err(err, CONFINE_E_INVALID, "cannot find the home directory",
			      "USERPROFILE", "USERPROFILE is not set");
	struct confine_error mine = {0};
	*home = final_path(profile, "cannot find the home directory", &mine);
	free(profile);
	if (!*home)
		return cf_err_publish(err, &mine) ? mine.code : CONFINE_E_INVALID;
	return 0;
}

/* Temp roots: %TEMP% and %TMP% when they exist (both when they differ); the profile's
 * AppData\Local\Temp (what cf_win_facts_finish set) when neither does. */
static void gather_temp(struct cf_win_facts *f)
{
	struct cf_strv temp = {0};
	const wchar_t *vars[] = {L"TEMP", L"TMP"};
	for (size_t i = 0; i < 2; i++) {
		char *t = env_utf8(vars[i]), *fin = t ? final_path(t, "temp", NULL) : NULL,
		     *in = NULL;
		if (fin && cf_win_path_internal(fin, "temp", &in, NULL) == 0 &&
		    !cf_strv_contains(&temp, in)) {
			cf_win_names_add(&f->names, in, fin);
			cf_strv_take(&temp, in);
			in = NULL;
		}
		free(in);
		free(fin);
		free(t);
	}
	if (temp.n) {
		cf_strv_release(&f->temp);
		f->temp = temp;
	}
}

/* The user rule file under %XDG_CONFIG_HOME%, when it is set. */
static void gather_user_rules(struct cf_win_facts *f)
{
	char *xdg = env_utf8(L"XDG_CONFIG_HOME"), *ur = NULL;
	if (!xdg)
		return;
	char *file = cf_asprintf("%s\\confine\\rules.json", xdg);
	if (file && cf_win_path_internal(file, "user rule file", &ur, NULL) == 0) {
		free(f->user_rules);
		f->user_rules = ur;
	}
	free(file);
	free(xdg);
}

int cf_win_host_gather(const char *workspace, struct cf_win_facts *f, struct confine_error *err)
{
	char *home = NULL, *ws = NULL, *cwd = NULL, *given = NULL;
	wchar_t wbuf[32768];
	int r = CONFINE_E_NOMEM;

	memset(f, 0, sizeof(*f));
	if ((r = find_home(&home, err)) < 0)
		goto out;
	r = CONFINE_E_NOMEM;
	DWORD n = GetCurrentDirectoryW(32768, wbuf);
	if (!n || n >= 32768) {
		r = cf_win_oserr(err, CONFINE_E_OS, "cannot read the current directory", ".",
				 "GetCurrentDirectoryW", GetLastError());
		goto out;
	}
	if (!(given = cf_utf8_from_w(wbuf)))
		goto out;
	struct confine_error mine = {0};
	if (!(cwd = final_path(given, "cannot read the current directory", &mine)) ||
	    !(ws = final_path(workspace ? workspace : given, "workspace refused", &mine))) {
		r = cf_err_publish(err, &mine) ? mine.code : CONFINE_E_WORKSPACE;
		goto out;
	}
	wchar_t *wws = cf_w_from_utf8(ws);
	DWORD attr = wws ? GetFileAttributesW(wws) : INVALID_FILE_ATTRIBUTES;
	free(wws);
	if (attr == INVALID_FILE_ATTRIBUTES || !(attr & FILE_ATTRIBUTE_DIRECTORY)) {
		r = cf_err(err, CONFINE_E_WORKSPACE, "workspace refused", ws,
			   "it is not a directory");
		goto out;
	}
	if ((r = cf_win_facts_finish(f, home, ws, err)) < 0)
		goto out;
	char *cwd_int = NULL;
	if (cf_win_path_internal(cwd, "current directory", &cwd_int, NULL) == 0) {
		free(f->cwd);
		f->cwd = cwd_int;
	}
	gather_temp(f);
	gather_user_rules(f);
	r = 0;
out:
	if (r == CONFINE_E_NOMEM)
		cf_nomem(err);
	free(home);
	free(ws);
	free(cwd);
	free(given);
	return r;
}

static enum cf_kind real_kind(void *ctx, const char *path)
{
	(void)ctx;
	if (!cf_win_is_drive_path(path))
		return CF_KIND_MISSING;
	wchar_t *w = cf_w_path(path);
	DWORD a = w ? GetFileAttributesW(w) : INVALID_FILE_ATTRIBUTES;
	free(w);
	if (a == INVALID_FILE_ATTRIBUTES)
		return CF_KIND_MISSING;
	return (a & FILE_ATTRIBUTE_DIRECTORY) ? CF_KIND_DIR : CF_KIND_FILE;
}

static bool real_reparse(void *ctx, const char *path)
{
	(void)ctx;
	if (!cf_win_is_drive_path(path) || cf_win_is_drive_root(path))
		return false;
	wchar_t *w = cf_w_path(path);
	DWORD a = w ? GetFileAttributesW(w) : INVALID_FILE_ATTRIBUTES;
	free(w);
	return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_REPARSE_POINT);
}

static int real_canon(void *ctx, const char *path, char **out, struct confine_error *err)
{
	(void)ctx;
	*out = cf_path_normalize(path);
	return *out ? 0 : cf_nomem(err);
}

struct cf_win_host cf_win_host_real(const struct cf_win_facts *f)
{
	struct cf_win_host h = cf_win_facts_host(f);
	h.assumed = false;
	h.kind = real_kind;
	h.reparse = real_reparse;
	h.canonicalize = real_canon;
	return h;
}

int cf_win_environment(struct cf_strv *out, struct confine_error *err)
{
	wchar_t *block = GetEnvironmentStringsW();
	if (!block)
		return cf_win_oserr(err, CONFINE_E_OS, "cannot read the environment", "",
				    "GetEnvironmentStringsW", GetLastError());
	int r = 0;
	for (const wchar_t *p = block; *p && r == 0; p += wcslen(p) + 1) {
		char *s = cf_utf8_from_w(p);
		/* The hidden "=C:=C:\dir" entries (per-drive current directories) are kept. */
		if (s && cf_strv_take(out, s) < 0)
			r = cf_nomem(err);
	}
	FreeEnvironmentStringsW(block);
	return r;
}

wchar_t *cf_win_state_dir(const wchar_t *leaf, struct confine_error *err)
{
	wchar_t base[32768];
	DWORD n = GetEnvironmentVariableW(L"LOCALAPPDATA", base, 32768);
	if (!n || n >= 32768) {
		cf_err(err, CONFINE_E_OS, "cannot find confine's state directory", "LOCALAPPDATA",
		       "LOCALAPPDATA is not set");
		return NULL;
	}
	size_t len = wcslen(base) + wcslen(leaf) + 32;
	wchar_t *dir = malloc(len * sizeof(*dir));
	if (!dir) {
		cf_nomem(err);
		return NULL;
	}
	swprintf(dir, len, L"%ls\\confine", base);
	CreateDirectoryW(dir, NULL);
	swprintf(dir, len, L"%ls\\confine\\%ls", base, leaf);
	if (!CreateDirectoryW(dir, NULL) && GetLastError() != ERROR_ALREADY_EXISTS) {
		char *d = cf_utf8_from_w(dir);
		cf_win_oserr(err, CONFINE_E_OS, "cannot create confine's state directory",
			     d ? d : "", "CreateDirectoryW", GetLastError());
		free(d);
		free(dir);
		return NULL;
	}
	return dir;
}
