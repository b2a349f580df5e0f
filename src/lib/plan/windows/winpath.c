/* SPDX-License-Identifier: MIT */
/* Windows paths to the internal form and back, and CreateProcess command lines.  Pure. */
#include <stdlib.h>
#include <string.h>

#include "plan/windows/winpath.h"

static bool is_sep(char c)
{
	return c == '\\' || c == '/';
}

static bool is_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static char upper(char c)
{
	return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

static int refuse(struct confine_error *err, const char *what, const char *subject,
		  const char *reason, const char *hint)
{
	cf_err(err, CONFINE_E_INVALID, what, subject, "%s", reason);
	if (hint)
		cf_err_hint(err, "%s", hint);
	return CONFINE_E_INVALID;
}

/* The names Win32 maps to devices in every directory, with or without an extension. */
static bool reserved_name(const char *c, size_t n)
{
	static const char *const names[] = {"con", "prn", "aux", "nul", "conin$", "conout$"};
	size_t base = 0;
	while (base < n && c[base] != '.')
		base++;
	while (base > 0 && c[base - 1] == ' ')
		base--;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t k = strlen(names[i]);
		if (base != k)
			continue;
		size_t j = 0;
		while (j < k && lower(c[j]) == names[i][j])
			j++;
		if (j == k)
			return true;
	}
	bool com = lower(c[0]) == 'c' && lower(c[1]) == 'o' && lower(c[2]) == 'm';
	bool lpt = lower(c[0]) == 'l' && lower(c[1]) == 'p' && lower(c[2]) == 't';
	if (base >= 4 && (com || lpt)) {
		/* COM0-9, LPT0-9, and the superscript digits Win32 also accepts. */
		if (base == 4 && c[3] >= '0' && c[3] <= '9')
			return true;
		if (base == 5 && (unsigned char)c[3] == 0xC2 &&
		    ((unsigned char)c[4] == 0xB9 || (unsigned char)c[4] == 0xB2 ||
		     (unsigned char)c[4] == 0xB3))
			return true;
	}
	return false;
}

/* Checks one component (length n) of a path or pattern. */
static int check_component(const char *c, size_t n, bool pattern, const char *what,
			   const char *subject, struct confine_error *err)
{
	if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)c[i];
		if (ch == ':')
			return refuse(err, what, subject,
				      "':' inside a path names an alternate data stream of a file, "
				      "not a file",
				      NULL);
		if (ch < 0x20 || ch == '<' || ch == '>' || ch == '"' || ch == '|')
			return refuse(
			    err, what, subject,
			    "the path contains a character Windows does not allow in file "
			    "names (a control character or one of < > \" |)",
			    NULL);
		if (!pattern && (ch == '*' || ch == '?'))
			return refuse(
			    err, what, subject,
			    "'*' and '?' are not allowed in a path (only in rule patterns)", NULL);
	}
	if (n && (c[n - 1] == '.' || c[n - 1] == ' '))
		return refuse(err, what, subject,
			      "a component ends in a dot or a space, which Windows strips: the "
			      "path would name another file than it says",
			      "write the name without the trailing dot or space");
	if (reserved_name(c, n))
		return refuse(err, what, subject,
			      "a component is a reserved device name (CON, PRN, AUX, NUL, COM1-9, "
			      "LPT1-9), which Windows opens as a device in every directory",
			      NULL);
	return 0;
}

/*
 * Appends the components of `rest` to b as "/comp/comp", validated, folded when `fold`.  The
 * result is not normalised ("." and ".." stay).
 */
static int add_components(struct cf_buf *b, const char *rest, bool pattern, bool fold,
			  const char *what, const char *subject, struct confine_error *err)
{
	const char *p = rest;
	while (*p) {
		while (is_sep(*p))
			p++;
		if (!*p)
			break;
		const char *c = p;
		while (*p && !is_sep(*p))
			p++;
		int r = check_component(c, (size_t)(p - c), pattern, what, subject, err);
		if (r < 0)
			return r;
		cf_buf_addc(b, '/');
		for (const char *q = c; q < p; q++)
			cf_buf_addc(b, fold ? lower(*q) : *q);
	}
	return 0;
}

/* Refuses what is not a plain "X:\" path; returns 1 for a drive path, 0 for a relative one
 * (only when `relative_ok`), negative on error. */
static int classify(const char *s, bool relative_ok, const char *what, struct confine_error *err)
{
	if (!s[0])
		return refuse(err, what, s, "the path is empty", NULL);
	if (is_sep(s[0]) && is_sep(s[1])) {
		if ((s[2] == '?' || s[2] == '.') && (is_sep(s[3]) || !s[3]))
			return refuse(
			    err, what, s,
			    "a device or namespace path (\\\\?\\ or \\\\.\\) bypasses the "
			    "Win32 path rules the plan relies on",
			    "write the plain drive path, such as C:\\Users\\you\\project");
		return refuse(err, what, s,
			      "a network (UNC) path: the ACLs of another machine's files are not "
			      "this host's to change",
			      "copy the files to a local drive, or map the share to a drive letter "
			      "(the plan then treats it as that drive)");
	}
	if (s[0] == '\\' && s[1] == '?' && s[2] == '?' && s[3] == '\\')
		return refuse(err, what, s, "an NT object-manager path (\\??\\) names a device",
			      "write the plain drive path, such as C:\\Users\\you\\project");
	if (is_sep(s[0]))
		return refuse(err, what, s,
			      "a rooted path without a drive letter means a different place "
			      "depending on the current drive",
			      "start the path with its drive, such as C:\\");
	if (is_letter(s[0]) && s[1] == ':') {
		if (is_sep(s[2]))
			return 1;
		return refuse(err, what, s,
			      "a drive-relative path (C:name) depends on the current directory of "
			      "that drive",
			      "write the absolute path, such as C:\\name");
	}
	if (relative_ok)
		return 0;
	return refuse(err, what, s, "not an absolute Windows path",
		      "write the absolute path, such as C:\\Users\\you\\project");
}

/* "X:\rest" to "/x:/rest" normalised (".." never climbs above the drive). */
static int drive_internal(const char *s, bool pattern, bool fold, const char *what, char **out,
			  struct confine_error *err)
{
	struct cf_buf b;
	cf_buf_init(&b);
	int r = add_components(&b, s + 2, pattern, fold, what, s, err);
	char *norm = NULL;
	if (r == 0 && !b.oom)
		norm = cf_path_normalize(b.s ? b.s : "/");
	cf_buf_release(&b);
	if (r < 0)
		return r;
	if (!norm)
		return cf_nomem(err);
	*out =
	    cf_asprintf("/%c:%s", fold ? lower(s[0]) : upper(s[0]), strcmp(norm, "/") ? norm : "");
	free(norm);
	return *out ? 0 : cf_nomem(err);
}

int cf_win_path_internal(const char *win, const char *what, char **out, struct confine_error *err)
{
	*out = NULL;
	int r = classify(win, false, what, err);
	if (r < 0)
		return r;
	return drive_internal(win, false, true, what, out, err);
}

int cf_win_pattern_internal(const char *pattern, char **out, struct confine_error *err)
{
	const char *what = "invalid rule";
	*out = NULL;
	if (pattern[0] == '~' && (pattern[1] == '\0' || is_sep(pattern[1]))) {
		struct cf_buf b;
		cf_buf_init(&b);
		cf_buf_addc(&b, '~');
		int r = add_components(&b, pattern + 1, true, true, what, pattern, err);
		if (r < 0) {
			cf_buf_release(&b);
			return r;
		}
		*out = cf_buf_take(&b);
		return *out ? 0 : cf_nomem(err);
	}
	int r = classify(pattern, true, what, err);
	if (r < 0)
		return r;
	if (r == 1)
		return drive_internal(pattern, true, true, what, out, err);
	/* Relative (or "~user", which cf_rule_resolve refuses with its own message). */
	struct cf_buf b;
	cf_buf_init(&b);
	r = add_components(&b, pattern, true, true, what, pattern, err);
	if (r < 0) {
		cf_buf_release(&b);
		return r;
	}
	char *s = cf_buf_take(&b);
	if (!s)
		return cf_nomem(err);
	*out = cf_strdup(s + 1); /* without the leading '/' */
	free(s);
	return *out ? 0 : cf_nomem(err);
}

bool cf_win_is_drive_path(const char *p)
{
	return p[0] == '/' && is_letter(p[1]) && p[2] == ':' && (p[3] == '\0' || p[3] == '/');
}

bool cf_win_is_drive_root(const char *p)
{
	return cf_win_is_drive_path(p) && p[3] == '\0';
}

void cf_win_names_release(struct cf_win_names *n)
{
	cf_strv_release(&n->internal);
	cf_strv_release(&n->shown);
}

/* "/C:/Users/Ana" to "C:\Users\Ana" ("/C:" to "C:\"). */
static char *backslashed(const char *p)
{
	char *s = p[3] ? cf_strdup(p + 1) : cf_asprintf("%c:\\", upper(p[1]));
	if (!s)
		return NULL;
	s[0] = upper(s[0]);
	for (char *q = s; *q; q++)
		if (*q == '/')
			*q = '\\';
	return s;
}

int cf_win_names_add(struct cf_win_names *n, const char *internal, const char *win)
{
	char *unfolded = NULL;
	struct confine_error ignored = {0};
	/* The spelling as given, normalised but not folded; when it does not fold back to the
	 * internal form (it was not the same path), nothing is remembered. */
	if (classify(win, false, "path", &ignored) != 1 ||
	    drive_internal(win, false, false, "path", &unfolded, &ignored) < 0)
		return ignored.code == CONFINE_E_NOMEM ? CONFINE_E_NOMEM : 0;
	size_t len = strlen(unfolded);
	bool same = len == strlen(internal);
	for (size_t i = 0; same && i < len; i++)
		same = lower(unfolded[i]) == internal[i];
	int r = 0;
	if (same && !cf_strv_contains(&n->internal, internal)) {
		char *shown = backslashed(unfolded);
		if (!shown || cf_strv_add(&n->internal, internal) < 0 ||
		    cf_strv_take(&n->shown, shown) < 0)
			r = CONFINE_E_NOMEM;
	}
	free(unfolded);
	return r;
}

char *cf_win_path_show(const struct cf_win_names *n, const char *internal)
{
	if (!cf_win_is_drive_path(internal))
		return cf_strdup(internal);
	size_t best = (size_t)-1, best_len = 0;
	for (size_t i = 0; n && i < n->internal.n; i++) {
		size_t l = strlen(n->internal.v[i]);
		if (cf_path_within(internal, n->internal.v[i]) && l > best_len) {
			best = i;
			best_len = l;
		}
	}
	if (best == (size_t)-1)
		return backslashed(internal);
	char *tail = backslashed(internal);
	if (!tail)
		return NULL;
	/* The remembered spelling, then the rest of the path after the same prefix. */
	size_t shown_prefix = strlen(n->shown.v[best]);
	size_t tail_prefix = best_len - 1; /* the internal form has one more leading '/' */
	if (best_len == 3)		   /* a drive root: "C:\" vs "/c:" */
		tail_prefix = 3, shown_prefix = 3;
	char *s = cf_asprintf("%.*s%s", (int)shown_prefix, n->shown.v[best], tail + tail_prefix);
	free(tail);
	return s;
}

static void rewrite(const struct cf_win_names *n, char *text, size_t cap)
{
	struct cf_buf b;
	cf_buf_init(&b);
	const char *p = text;
	for (;;) {
		const char *q = strstr(p, "'/");
		if (!q) {
			cf_buf_add(&b, p);
			break;
		}
		const char *end = strchr(q + 1, '\'');
		if (!end) {
			cf_buf_add(&b, p);
			break;
		}
		cf_buf_addn(&b, p, (size_t)(q - p) + 1);
		char *inner = cf_strndup(q + 1, (size_t)(end - q - 1));
		char *shown =
		    inner && cf_win_is_drive_path(inner) ? cf_win_path_show(n, inner) : NULL;
		cf_buf_add(&b, shown ? shown : inner ? inner : "");
		free(inner);
		free(shown);
		cf_buf_addc(&b, '\'');
		p = end + 1;
	}
	if (!b.oom && b.s && b.len < cap)
		memcpy(text, b.s, b.len + 1);
	cf_buf_release(&b);
}

void cf_win_error_paths(const struct cf_win_names *n, struct confine_error *err)
{
	if (!err)
		return;
	rewrite(n, err->reason, sizeof(err->reason));
	if (cf_win_is_drive_path(err->subject)) {
		char *s = cf_win_path_show(n, err->subject);
		if (s && strlen(s) < sizeof(err->subject))
			memcpy(err->subject, s, strlen(s) + 1);
		free(s);
	}
}

/* Arguments of the C runtime and CommandLineToArgvW: inside quotes, 2n backslashes before a
 * quote are n backslashes and a closing quote, 2n+1 are n backslashes and a literal quote;
 * backslashes not followed by a quote are literal. */
static void quote_arg(struct cf_buf *b, const char *a)
{
	if (*a && !strpbrk(a, " \t\n\v\"")) {
		cf_buf_add(b, a);
		return;
	}
	cf_buf_addc(b, '"');
	for (const char *p = a;; p++) {
		size_t bs = 0;
		while (*p == '\\') {
			bs++;
			p++;
		}
		if (!*p) {
			for (size_t i = 0; i < 2 * bs; i++)
				cf_buf_addc(b, '\\');
			break;
		}
		if (*p == '"') {
			for (size_t i = 0; i < 2 * bs + 1; i++)
				cf_buf_addc(b, '\\');
		} else {
			for (size_t i = 0; i < bs; i++)
				cf_buf_addc(b, '\\');
		}
		cf_buf_addc(b, *p);
	}
	cf_buf_addc(b, '"');
}

int cf_win_cmdline(const struct cf_strv *argv, char **out, struct confine_error *err)
{
	*out = NULL;
	if (!argv->n)
		return cf_err(err, CONFINE_E_INVALID, "no command given", "", "nothing to run");
	const char *prog = argv->v[0];
	/* The program name is split by quotes alone: a quote inside cannot be escaped. */
	if (!*prog || strchr(prog, '"'))
		return refuse(err, "invalid command", prog,
			      "a Windows program name can be neither empty nor contain '\"'", NULL);
	struct cf_buf b;
	cf_buf_init(&b);
	if (strpbrk(prog, " \t")) {
		cf_buf_addc(&b, '"');
		cf_buf_add(&b, prog);
		cf_buf_addc(&b, '"');
	} else {
		cf_buf_add(&b, prog);
	}
	for (size_t i = 1; i < argv->n; i++) {
		cf_buf_addc(&b, ' ');
		quote_arg(&b, argv->v[i]);
	}
	*out = cf_buf_take(&b);
	return *out ? 0 : cf_nomem(err);
}
