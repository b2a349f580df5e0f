/* SPDX-License-Identifier: MIT */
/* Reading a rule file on Windows (R6): the contract of host/rulefile.h with the Win32 API. */
#include <stdlib.h>

#include <windows.h>

#include "exec/windows/win.h"
#include "host/rulefile.h"
#include "rules/rules.h"
#include "util/util.h"

int cf_rulefile_read(const char *path, char **text, size_t *len, struct confine_error *err)
{
	const char *what = "cannot read rule file";
	wchar_t *w = cf_w_from_utf8(path);
	char *buf = NULL;
	int r = 0;
	if (!w)
		return cf_err(err, CONFINE_E_RULES, what, path, "the path is not valid UTF-8");
	HANDLE h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
			       OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		DWORD e = GetLastError();
		return cf_win_oserr(err,
				    e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND
					? CONFINE_E_NOTFOUND
					: CONFINE_E_RULES,
				    what, path, "CreateFileW", e);
	}
	/* A regular file only: a named pipe or a device planted at .confine\rules.json must not
	 * hang a run. */
	BY_HANDLE_FILE_INFORMATION fi;
	if (GetFileType(h) != FILE_TYPE_DISK || !GetFileInformationByHandle(h, &fi) ||
	    (fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)) {
		r = cf_err(err, CONFINE_E_RULES, what, path, "not a regular file");
		goto out;
	}
	if (!(buf = malloc(CF_RULES_MAX_FILE_BYTES + 1))) {
		r = cf_nomem(err);
		goto out;
	}
	size_t n = 0;
	for (;;) {
		DWORD k = 0;
		if (!ReadFile(h, buf + n, (DWORD)(CF_RULES_MAX_FILE_BYTES + 1 - n), &k, NULL)) {
			r = cf_win_oserr(err, CONFINE_E_RULES, what, path, "ReadFile",
					 GetLastError());
			goto out;
		}
		if (k == 0 || (n += k) > CF_RULES_MAX_FILE_BYTES)
			break;
	}
	*text = buf;
	*len = n;
	buf = NULL;
out:
	free(buf);
	CloseHandle(h);
	return r;
}
