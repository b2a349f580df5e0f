/* SPDX-License-Identifier: MIT */
/*
 * Write-capability requests (SPEC 7.2) on a fake host: home /home/u, the current directory
 * /home/u/ws.  Each case is a list of requests and a reason, and either the validated targets
 * or the error it must give; the fake host counts how often a path was looked at, so that "a
 * ninth target is refused before any path is touched" is checked, not assumed.
 */
#include <stdlib.h>
#include <string.h>

#include "policy/grants.h"
#include "util/util.h"
#include "../fakefs.h"
#include "../tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define HOME "/home/u"
#define CWD HOME "/ws"

static struct fakefs fs;
static int touched; /* canonicalize and kind calls */

static int canon(void *ctx, const char *path, char **out, struct confine_error *err)
{
	touched++;
	char *abs = path[0] == '~' && (path[1] == '/' || !path[1])
			? cf_path_join(HOME, path[1] ? path + 2 : ".")
			: cf_path_join(CWD, path);
	if (!abs)
		return cf_nomem(err);
	int r = fakefs_canon(ctx, abs, out, err);
	free(abs);
	return r;
}

static enum cf_kind kind(void *ctx, const char *path)
{
	touched++;
	return fakefs_kind(ctx, path);
}

struct gcase {
	const char *name;
	const char *args[12]; /* NULL-terminated */
	const char *reason;
	int code;		/* 0 or the CONFINE_E_* expected */
	const char *want[9];	/* "PATH:scope" of the validated targets, NULL-terminated */
	const char *reason_has; /* a part of err.reason when code != 0 */
	bool untouched;		/* no path may be looked at */
};

/* OK(name, reason, args, want) and BAD(name, reason, code, says, untouched, args) */
#define OK(nm, rs, a, w)                                                                           \
	{                                                                                          \
		.name = nm, .reason = rs, .args = a, .want = w                                     \
	}
#define BAD(nm, rs, c, says, u, a)                                                                 \
	{                                                                                          \
		.name = nm, .reason = rs, .code = c, .reason_has = says, .untouched = u, .args = a \
	}
#define L(...)                                                                                     \
	{                                                                                          \
		__VA_ARGS__                                                                        \
	}
#define T8 "t1:file", "t2:file", "t3:file", "t4:file", "t5:file", "t6:file", "t7:file", "t8:file"
#define W8                                                                                         \
	CWD "/t1:file", CWD "/t2:file", CWD "/t3:file", CWD "/t4:file", CWD "/t5:file",            \
	    CWD "/t6:file", CWD "/t7:file", CWD "/t8:file"

static const struct gcase cases[] = {
    OK("a regular file", "update the notes", L("notes.txt:file"), L(CWD "/notes.txt:file")),
    OK("a directory subtree", "fill the cache", L("~/cache:subtree"), L(HOME "/cache:subtree")),
    OK("absolute and relative mixed", "both", L("/srv/data:subtree", "notes.txt:file"),
       L("/srv/data:subtree", CWD "/notes.txt:file")),
    BAD("a file request on a directory", "r", CONFINE_E_INVALID,
	"is a directory, not a regular file", false, L("~/cache:file")),
    BAD("a subtree request on a file", "r", CONFINE_E_INVALID, "is a regular file, not a directory",
	false, L("notes.txt:subtree")),
    BAD("a special file", "r", CONFINE_E_INVALID, "is a special file", false, L("fifo:file")),
    BAD("a missing target", "r", CONFINE_E_INVALID, "does not exist", false, L("nope.txt:file")),
    BAD("the volume root", "r", CONFINE_E_INVALID, "root of a volume", false, L("/:subtree")),
    BAD("the volume root spelled /./", "r", CONFINE_E_INVALID, "root of a volume", false,
	L("/./:subtree")),
    BAD("the home directory", "r", CONFINE_E_INVALID, "is the home directory", false,
	L("~:subtree")),
    BAD("the home through ..", "r", CONFINE_E_INVALID, "is the home directory", false,
	L("..:subtree")),
    BAD("a subtree above the home", "r", CONFINE_E_INVALID, "contains the home directory", false,
	L("/home:subtree")),
    OK("a file in the home is fine", "r", L("~/.bashrc:file"), L(HOME "/.bashrc:file")),
    OK("exact duplicates are dropped", "r",
       L("notes.txt:file", "notes.txt:file", "~/cache:subtree"),
       L(CWD "/notes.txt:file", HOME "/cache:subtree")),
    OK("two names of one file collapse", "r", L("notes.txt:file", "link.txt:file"),
       L(CWD "/notes.txt:file")),
    BAD("file and subtree on one path", "r", CONFINE_E_INVALID, "both as a file and as a subtree",
	true, L("~/cache:file", "~/cache:subtree")),
    OK("eight targets", "r", L(T8), L(W8)),
    BAD("a ninth target is refused before any path is touched", "r", CONFINE_E_LIMIT,
	"at most 8 targets and this one names 9", true, L(T8, "t9:file")),
    OK("nine arguments with one duplicate are eight targets", "r", L(T8, "t1:file"), L(W8)),
    BAD("a ninth target that does not exist is still a count error", "r", CONFINE_E_LIMIT,
	"at most 8", true, L(T8, "missing:file")),
    BAD("no scope", "r", CONFINE_E_INVALID, "expected PATH:file", true, L("notes.txt")),
    BAD("an unknown scope", "r", CONFINE_E_INVALID, "'dir' is not a scope", true,
	L("notes.txt:dir")),
    BAD("an empty path", "r", CONFINE_E_INVALID, "the path is empty", true, L(":file")),
    BAD("no target at all", "r", CONFINE_E_INVALID, "at least one", true, L(NULL)),
    BAD("an empty reason", "", CONFINE_E_INVALID, "the reason is empty", true, L("notes.txt:file")),
    BAD("a blank reason", "   ", CONFINE_E_INVALID, "the reason is empty", true,
	L("notes.txt:file")),
    BAD("a reason with a line break", "fine\nApproved by admin", CONFINE_E_INVALID,
	"control or text-direction character (U+000A)", true, L("notes.txt:file")),
    BAD("a reason with an escape sequence", "x\x1b[2J", CONFINE_E_INVALID, "(U+001B)", true,
	L("notes.txt:file")),
    BAD("a reason with a right-to-left override",
	"abc\xe2\x80\xae"
	"cba",
	CONFINE_E_INVALID, "(U+202E)", true, L("notes.txt:file")),
    BAD("a reason that is not UTF-8", "caf\xe9", CONFINE_E_INVALID, "not valid UTF-8", true,
	L("notes.txt:file")),
    BAD("an overlong UTF-8 slash in the reason", "a\xc0\xaf", CONFINE_E_INVALID, "not valid UTF-8",
	true, L("notes.txt:file")),
};

static char *repeat(const char *unit, size_t n)
{
	struct cf_buf b;
	cf_buf_init(&b);
	for (size_t i = 0; i < n; i++)
		cf_buf_add(&b, unit);
	return cf_buf_take(&b);
}

static struct cf_grant_host host(void)
{
	return (struct cf_grant_host){
	    .home = HOME,
	    .canonicalize = canon,
	    .kind = kind,
	    .ctx = &fs,
	};
}

static void run_case(const struct gcase *c)
{
	struct cf_grant_host h = host();
	struct cf_grants g;
	struct confine_error err = {0};
	size_t n = 0;
	while (n < N(c->args) && c->args[n])
		n++;
	touched = 0;
	int r = cf_grants_validate(c->args, n, c->reason, &h, &g, &err);
	TAP_INTEQ(r, c->code, "%s: result", c->name);
	if (c->code) {
		TAP_OK(c->reason_has && strstr(err.reason, c->reason_has), "%s: says '%s' (%s)",
		       c->name, c->reason_has, err.reason);
		TAP_INTEQ(g.n, 0, "%s: no target kept", c->name);
		if (c->untouched)
			TAP_INTEQ(touched, 0, "%s: no path looked at", c->name);
		return;
	}
	size_t want = 0;
	while (want < N(c->want) && c->want[want])
		want++;
	TAP_INTEQ(g.n, want, "%s: %zu targets", c->name, want);
	for (size_t i = 0; i < g.n && i < want; i++) {
		char *got = cf_asprintf("%s:%s", g.v[i].path, cf_grant_scope_name(g.v[i].scope));
		TAP_STREQ(got, c->want[i], "%s: target %zu", c->name, i);
		free(got);
	}
	TAP_STREQ(g.reason, c->reason, "%s: the reason is kept", c->name);
	cf_grants_release(&g);
}

/* The reason's limit counts characters, not bytes. */
static void reason_lengths(void)
{
	struct cf_grant_host h = host();
	struct cf_grants g;
	const char *args[] = {"notes.txt:file"};
	struct {
		const char *unit;
		size_t n;
		int code;
	} t[] = {
	    {"a", 240, 0},
	    {"a", 241, CONFINE_E_INVALID},
	    {"\xc3\xa9", 240, 0}, /* é: 480 bytes, 240 characters */
	    {"\xc3\xa9", 241, CONFINE_E_INVALID},
	    {"\xf0\x9f\x94\x92", 240, 0}, /* a 4-byte character */
	};
	for (size_t i = 0; i < N(t); i++) {
		struct confine_error err = {0};
		char *reason = repeat(t[i].unit, t[i].n);
		int r = cf_grants_validate(args, 1, reason, &h, &g, &err);
		TAP_INTEQ(r, t[i].code, "a reason of %zu characters of %zu bytes each", t[i].n,
			  strlen(t[i].unit));
		if (r == 0)
			cf_grants_release(&g);
		else
			TAP_OK(strstr(err.reason, "at most 240") != NULL, "  and says why (%s)",
			       err.reason);
		free(reason);
	}
}

/* Case-insensitive hosts: one target spelled twice, and a home spelled differently. */
static bool drive_root(void *ctx, const char *path)
{
	(void)ctx;
	return !strcmp(path, "/c:") || !strcmp(path, "/");
}

static int lower_canon(void *ctx, const char *path, char **out, struct confine_error *err)
{
	(void)ctx;
	char *s = cf_path_normalize(path);
	if (!s)
		return cf_nomem(err);
	for (char *p = s; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	*out = s;
	return 0;
}

static enum cf_kind all_dirs(void *ctx, const char *path)
{
	(void)ctx;
	(void)path;
	return CF_KIND_DIR;
}

static void folded(void)
{
	struct cf_grant_host h = {
	    .home = "/c:/users/ana",
	    .fold_case = true,
	    .canonicalize = lower_canon,
	    .kind = all_dirs,
	    .is_volume_root = drive_root,
	};
	struct cf_grants g;
	struct confine_error err = {0};
	const char *same[] = {"/c:/Src:subtree", "/C:/src:subtree"};
	TAP_INTEQ(cf_grants_validate(same, 2, "r", &h, &g, &err), 0, "folded: two spellings");
	TAP_INTEQ(g.n, 1, "folded: are one target");
	cf_grants_release(&g);

	const char *conflict[] = {"/c:/Src:file", "/C:/src:subtree"};
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(cf_grants_validate(conflict, 2, "r", &h, &g, &err), CONFINE_E_INVALID,
		  "folded: file and subtree on two spellings of one path conflict");

	const char *root[] = {"/C:/:subtree"};
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(cf_grants_validate(root, 1, "r", &h, &g, &err), CONFINE_E_INVALID,
		  "folded: the drive root");
	TAP_OK(strstr(err.reason, "root of a volume") != NULL, "folded: is a volume root (%s)",
	       err.reason);

	const char *home[] = {"/C:/Users/ANA:subtree"};
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(cf_grants_validate(home, 1, "r", &h, &g, &err), CONFINE_E_INVALID,
		  "folded: the home in other letters");
	const char *users[] = {"/C:/USERS:subtree"};
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(cf_grants_validate(users, 1, "r", &h, &g, &err), CONFINE_E_INVALID,
		  "folded: a parent of the home in other letters");
}

int main(void)
{
	fakefs_add(&fs, CWD "/notes.txt", CF_KIND_FILE, NULL);
	fakefs_add(&fs, CWD "/link.txt", CF_KIND_SYMLINK, CWD "/notes.txt");
	fakefs_add(&fs, CWD "/fifo", CF_KIND_OTHER, NULL);
	fakefs_add(&fs, HOME "/cache", CF_KIND_DIR, NULL);
	fakefs_add(&fs, HOME "/.bashrc", CF_KIND_FILE, NULL);
	fakefs_add(&fs, "/srv/data", CF_KIND_DIR, NULL);
	for (int i = 1; i <= 9; i++) {
		char p[64];
		snprintf(p, sizeof(p), CWD "/t%d", i);
		fakefs_add(&fs, p, CF_KIND_FILE, NULL);
	}
	for (size_t i = 0; i < N(cases); i++)
		run_case(&cases[i]);
	reason_lengths();
	folded();
	fakefs_clear(&fs);
	return tap_done();
}
