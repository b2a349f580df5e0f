/* SPDX-License-Identifier: MIT */
/*
 * Windows paths for the pure planner (R27): what is accepted and to what internal form, what is
 * refused and why, how a path is shown again, and CreateProcess command lines.  Runs on Linux
 * and under Wine (where test-exec-windows also splits the command lines back with
 * CommandLineToArgvW).
 */
#include <stdlib.h>
#include <string.h>

#include "plan/windows/winpath.h"
#include "../tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *in, *want;
} paths[] = {
    {"C:\\Users\\Ana\\Proj", "/c:/users/ana/proj"},
    {"c:/users/ana/proj/", "/c:/users/ana/proj"},
    {"C:\\", "/c:"},
    {"D:\\a\\\\b\\.\\c", "/d:/a/b/c"},
    {"C:\\a\\..\\..\\..\\b", "/c:/b"},		/* ".." never climbs above the drive */
    {"E:\\\u00c9t\u00e9", "/e:/\u00c9t\u00e9"}, /* non-ASCII letters are kept as they are */
    {"C:\\a b\\c.d", "/c:/a b/c.d"},
    {"C:\\CONSOLE\\nul-ish", "/c:/console/nul-ish"}, /* only the exact device names */
};

static const struct {
	const char *in, *reason;
} refused[] = {
    {"\\\\server\\share\\p", "network (UNC) path"},
    {"//server/share", "network (UNC) path"},
    {"\\\\?\\C:\\Users", "device or namespace path"},
    {"\\\\.\\PhysicalDrive0", "device or namespace path"},
    {"\\??\\C:\\x", "NT object-manager path"},
    {"\\Windows", "rooted path without a drive letter"},
    {"C:", "drive-relative path"},
    {"C:foo\\bar", "drive-relative path"},
    {"relative\\path", "not an absolute Windows path"},
    {"", "the path is empty"},
    {"C:\\file.txt:stream", "alternate data stream"},
    {"C:\\dir\\secret.", "ends in a dot or a space"},
    {"C:\\dir\\secret \\x", "ends in a dot or a space"},
    {"C:\\dir\\NUL", "reserved device name"},
    {"C:\\dir\\con.txt", "reserved device name"},
    {"C:\\dir\\Com1", "reserved device name"},
    {"C:\\dir\\LPT\xc2\xb9", "reserved device name"},
    {"C:\\dir\\a*b", "only in rule patterns"},
    {"C:\\dir\\a|b", "does not allow in file names"},
    {"C:\\dir\\a\x01", "does not allow in file names"},
};

static const struct {
	const char *in, *want;
} patterns[] = {
    {"~", "~"},
    {"~\\.ssh", "~/.ssh"},
    {"~/AppData\\Roaming\\GH", "~/appdata/roaming/gh"},
    {"dist\\Out", "dist/out"},
    {"**\\*.PEM", "**/*.pem"},
    {"C:\\Data\\*.csv", "/c:/data/*.csv"},
    {"..\\sibling", "../sibling"},
};

static void convert(void)
{
	for (size_t i = 0; i < N(paths); i++) {
		char *out = NULL;
		struct confine_error err = {0};
		int r = cf_win_path_internal(paths[i].in, "path", &out, &err);
		TAP_INTEQ(r, 0, "accepted: %s", paths[i].in);
		TAP_STREQ(out, paths[i].want, "  internal form");
		TAP_OK(out && cf_win_is_drive_path(out), "  is a drive path");
		free(out);
	}
	for (size_t i = 0; i < N(refused); i++) {
		char *out = NULL;
		struct confine_error err = {0};
		int r = cf_win_path_internal(refused[i].in, "path", &out, &err);
		TAP_INTEQ(r, CONFINE_E_INVALID, "refused: %s", refused[i].in);
		TAP_OK(strstr(err.reason, refused[i].reason) != NULL, "  because: %s (%s)",
		       refused[i].reason, err.reason);
		TAP_OK(out == NULL, "  no output");
	}
	for (size_t i = 0; i < N(patterns); i++) {
		char *out = NULL;
		struct confine_error err = {0};
		int r = cf_win_pattern_internal(patterns[i].in, &out, &err);
		TAP_INTEQ(r, 0, "pattern: %s", patterns[i].in);
		TAP_STREQ(out, patterns[i].want, "  internal form");
		free(out);
	}
	/* Patterns are refused for the same reasons as paths, wildcards aside. */
	const char *bad_patterns[] = {"\\\\srv\\s\\*", "\\\\?\\C:\\x", "C:x",
				      "\\x",	       "a\\b:c",       "x\\nul"};
	for (size_t i = 0; i < N(bad_patterns); i++) {
		char *out = NULL;
		TAP_INTEQ(cf_win_pattern_internal(bad_patterns[i], &out, NULL), CONFINE_E_INVALID,
			  "pattern refused: %s", bad_patterns[i]);
		free(out);
	}
}

static void roots(void)
{
	TAP_OK(cf_win_is_drive_root("/c:"), "/c: is a drive root");
	TAP_OK(!cf_win_is_drive_root("/c:/x"), "/c:/x is not");
	TAP_OK(!cf_win_is_drive_path("/etc/shadow"), "a POSIX path is not a drive path");
	TAP_OK(!cf_win_is_drive_path("/cc:/x"), "nor a two-letter 'drive'");
}

static void show(void)
{
	struct cf_win_names n = {0};
	TAP_INTEQ(cf_win_names_add(&n, "/c:/users/ana", "C:\\Users\\Ana"), 0,
		  "remember a spelling");
	TAP_INTEQ(cf_win_names_add(&n, "/c:/users/ana/proj", "c:/Users/Ana/Proj/"), 0,
		  "remember a longer one");
	TAP_INTEQ(cf_win_names_add(&n, "/c:/elsewhere", "C:\\Users"), 0,
		  "a spelling of another path is ignored");
	const struct {
		const char *in, *want;
	} t[] = {
	    {"/c:/users/ana/.ssh", "C:\\Users\\Ana\\.ssh"},
	    {"/c:/users/ana/proj/.git/hooks", "C:\\Users\\Ana\\Proj\\.git\\hooks"},
	    {"/c:/users/anabel", "C:\\users\\anabel"}, /* a prefix only on component bounds */
	    {"/d:/x", "D:\\x"},
	    {"/c:", "C:\\"},
	    {"/c:/elsewhere", "C:\\elsewhere"},
	    {"/etc/shadow", "/etc/shadow"},
	};
	for (size_t i = 0; i < N(t); i++) {
		char *s = cf_win_path_show(&n, t[i].in);
		TAP_STREQ(s, t[i].want, "shown: %s", t[i].in);
		free(s);
	}
	struct confine_error err = {0};
	cf_err(&err, CONFINE_E_INVALID, "x", "/c:/users/ana/proj/a",
	       "'/c:/users/ana' and '/c:/users/ana/proj/b' and '/etc/x'");
	cf_win_error_paths(&n, &err);
	TAP_STREQ(err.subject, "C:\\Users\\Ana\\Proj\\a", "an error's subject is shown");
	TAP_STREQ(err.reason, "'C:\\Users\\Ana' and 'C:\\Users\\Ana\\Proj\\b' and '/etc/x'",
		  "an error's quoted paths are shown");
	cf_win_names_release(&n);
}

static void cmdline(void)
{
	const struct {
		const char *argv[6];
		const char *want;
	} t[] = {
	    {{"git", "status"}, "git status"},
	    {{"C:\\Program Files\\Git\\git.exe", "log"}, "\"C:\\Program Files\\Git\\git.exe\" log"},
	    {{"cmd", "/c", "echo hi"}, "cmd /c \"echo hi\""},
	    {{"x", ""}, "x \"\""},
	    {{"x", "say \"hi\""}, "x \"say \\\"hi\\\"\""},
	    {{"x", "C:\\dir\\"}, "x C:\\dir\\"},
	    {{"x", "C:\\my dir\\"}, "x \"C:\\my dir\\\\\""},
	    {{"x", "a\\\\\"b"}, "x \"a\\\\\\\\\\\"b\""},
	    {{"x", "tab\there", "nl\nx"}, "x \"tab\there\" \"nl\nx\""},
	};
	for (size_t i = 0; i < N(t); i++) {
		struct cf_strv argv = {0};
		for (size_t k = 0; k < N(t[i].argv) && t[i].argv[k]; k++)
			cf_strv_add(&argv, t[i].argv[k]);
		char *s = NULL;
		TAP_INTEQ(cf_win_cmdline(&argv, &s, NULL), 0, "command line %zu", i);
		TAP_STREQ(s, t[i].want, "  quoted");
		free(s);
		cf_strv_release(&argv);
	}
	struct cf_strv bad = {0};
	char *s = NULL;
	cf_strv_add(&bad, "a\"b");
	TAP_INTEQ(cf_win_cmdline(&bad, &s, NULL), CONFINE_E_INVALID,
		  "a quote in the program name is refused");
	cf_strv_release(&bad);
	TAP_INTEQ(cf_win_cmdline(&bad, &s, NULL), CONFINE_E_INVALID, "an empty argv is refused");
}

int main(void)
{
	convert();
	roots();
	show();
	cmdline();
	return tap_done();
}
