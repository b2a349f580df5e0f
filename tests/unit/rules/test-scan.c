/* SPDX-License-Identifier: MIT */
/* The glob scan (R14) on a temporary tree: matches, shared walks, no symlink following,
 * pruning, and each budget. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/facts.h"
#include "host/canon.h"
#include "host/scan.h"
#include "util/util.h"
#include "../tap.h"
#include "host/matches.h"

static char top[256];

static void mk(const char *rel, char type, const char *target)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", top, rel);
	int rc = 0;
	if (type == 'd')
		rc = mkdir(p, 0755);
	else if (type == 'l')
		rc = symlink(target, p);
	else {
		int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
		rc = fd < 0 ? -1 : close(fd);
	}
	if (rc < 0) {
		perror(p);
		exit(2);
	}
}

static const char kinds[] = {'-', 'd', 'f', 'l', 'o'};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs the scan for `pats` (relative to top, NULL-terminated); returns the matches as a sorted
 * "path:rule:kind" list relative to top, or the error reason. */
static char *scan(const char *const *pats, const struct cf_scan_budget *budget, int *rc_out)
{
	struct cf_ruleset rs = {0};
	for (size_t i = 0; pats[i]; i++) {
		char *path = cf_asprintf("%s/%s", top, pats[i]);
		struct cf_rule r = {.pattern = path, .path = path, .glob = true};
		cf_ruleset_add(&rs, &r, NULL);
		free(path);
	}
	struct cf_matches m = {0};
	struct confine_error err = {0};
	int rc = cf_scan_globs(&rs, budget, &m, &err);
	*rc_out = rc;
	struct cf_buf b;
	cf_buf_init(&b);
	if (rc < 0) {
		cf_buf_addf(&b, "%s: %s", err.subject, err.reason);
	} else {
		char **v = calloc(m.n + 1, sizeof(*v));
		for (size_t i = 0; i < m.n; i++)
			v[i] = cf_asprintf("%s:%zu:%c", m.v[i].path + strlen(top) + 1, m.v[i].rule,
					   kinds[m.v[i].kind]);
		qsort(v, m.n, sizeof(*v), cmp_str);
		for (size_t i = 0; i < m.n; i++) {
			cf_buf_addf(&b, "%s%s", i ? " " : "", v[i]);
			free(v[i]);
		}
		free(v);
		for (size_t i = 0; i < m.skipped.n; i++)
			cf_buf_addf(&b, " skipped:%s", m.skipped.v[i] + strlen(top) + 1);
	}
	cf_matches_release(&m);
	cf_ruleset_release(&rs);
	return cf_buf_take(&b);
}

static void expect(const char *name, const char *const *pats, const struct cf_scan_budget *bud,
		   int want_rc, const char *want)
{
	int rc;
	char *got = scan(pats, bud, &rc);
	TAP_INTEQ(rc, want_rc, "%s: return code", name);
	if (want_rc == 0)
		TAP_STREQ(got, want, "%s: matches", name);
	else
		TAP_OK(strstr(got, want) != NULL, "%s: error says '%s' (%s)", name, want, got);
	free(got);
}

/* cf_host_canonicalize: the longest existing prefix resolved, the rest lexical (R7). */
static void canon_cases(void)
{
	static const char *const cases[][2] = {
	    {"link/x.pem", "d/x.pem"},
	    {"link", "d"},
	    {"link/missing/a/../b", "d/missing/b"},
	    {"missing/./m2//", "missing/m2"},
	    {"lnk.pem", "lnk.pem"}, /* dangling: stays lexical */
	    {"d/e/../x.pem", "d/x.pem"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char in[512], want[512];
		snprintf(in, sizeof(in), "%s/%s", top, cases[i][0]);
		snprintf(want, sizeof(want), "%s/%s", top, cases[i][1]);
		char *out = NULL;
		int rc = cf_host_canonicalize(NULL, in, &out, NULL);
		TAP_INTEQ(rc, 0, "canonicalize %s: ok", cases[i][0]);
		TAP_STREQ(out, want, "canonicalize %s", cases[i][0]);
		free(out);
	}
	char *out = NULL;
	TAP_INTEQ(cf_host_canonicalize(NULL, "/", &out, NULL), 0, "canonicalize /");
	TAP_STREQ(out, "/", "canonicalize / is /");
	free(out);
	out = NULL;
	TAP_INTEQ(cf_host_canonicalize(NULL, "/nonexistent-confine/x", &out, NULL), 0,
		  "canonicalize a path missing from /");
	TAP_STREQ(out, "/nonexistent-confine/x", "canonicalize a path missing from /: lexical");
	free(out);
	out = NULL;
	struct confine_error err = {0};
	TAP_INTEQ(cf_host_canonicalize(NULL, "rel/x", &out, &err), CONFINE_E_INVALID,
		  "canonicalize refuses a relative path");
	TAP_OK(out == NULL, "canonicalize: no output on error");
}

int main(void)
{
	char tmpl[] = "/tmp/confine-scan.XXXXXX";
	if (!mkdtemp(tmpl))
		return 2;
	/* The scan sees canonical paths; /tmp may itself be a symlink elsewhere. */
	char *canon = NULL;
	if (cf_host_canonicalize(NULL, tmpl, &canon, NULL) < 0)
		return 2;
	snprintf(top, sizeof(top), "%s", canon);
	free(canon);

	mk("a.pem", 'f', NULL);
	mk("b.txt", 'f', NULL);
	mk("d", 'd', NULL);
	mk("d/x.pem", 'f', NULL);
	mk("d/e", 'd', NULL);
	mk("d/e/y.pem", 'f', NULL);
	mk("d/e/f.key", 'f', NULL);
	mk("d/sub", 'd', NULL);
	mk("d/sub/sub", 'd', NULL);
	mk("d/sub/z.pem", 'f', NULL);
	mk("link", 'l', "d"); /* a directory symlink: never followed */
	mk("lnk.pem", 'l', "/nonexistent");
	mk("deep", 'd', NULL);
	mk("deep/1", 'd', NULL);
	mk("deep/1/2", 'd', NULL);
	mk("deep/1/2/3", 'd', NULL);
	mk("deep/1/2/3/4", 'd', NULL);
	mk("deep/1/2/3/4/q.pem", 'f', NULL);

	static const struct cf_scan_budget big = CF_SCAN_BUDGET_DEFAULT;
	expect("**/*.pem finds every depth, reports the symlink, does not follow it",
	       (const char *[]){"**/*.pem", NULL}, &big, 0,
	       "a.pem:0:f d/e/y.pem:0:f d/sub/z.pem:0:f d/x.pem:0:f deep/1/2/3/4/q.pem:0:f "
	       "lnk.pem:0:l");
	expect("nested roots share a walk", (const char *[]){"d/*.pem", "**/*.key", "d/e/*", NULL},
	       &big, 0, "d/e/f.key:1:f d/e/f.key:2:f d/e/y.pem:2:f d/x.pem:0:f");
	expect("a matching directory is reported and not descended",
	       (const char *[]){"**/sub", NULL}, &big, 0, "d/sub:0:d");
	expect("a/**/b matches a/b", (const char *[]){"d/**/e", NULL}, &big, 0, "d/e:0:d");
	expect("root itself matches d/**", (const char *[]){"d/**", NULL}, &big, 0, "d:0:d");
	expect("? and * in a middle component", (const char *[]){"?/*/y.*", NULL}, &big, 0,
	       "d/e/y.pem:0:f");
	expect("missing root is not an error", (const char *[]){"missing/**/*.pem", NULL}, &big, 0,
	       "");
	expect("root through a symlink is not followed", (const char *[]){"link/*", NULL}, &big, 0,
	       "");

	struct cf_scan_budget b = big;
	b.max_matches = 2;
	expect("match budget", (const char *[]){"**/*.pem", NULL}, &b, CONFINE_E_SCAN,
	       "more than 2 matches");
	b = big;
	b.max_depth = 3;
	expect("depth budget", (const char *[]){"**/*.pem", NULL}, &b, CONFINE_E_SCAN,
	       "deeper than 3 directories (the depth budget");
	/* The message names the tree responsible: the directory right below the root. */
	expect("depth budget: the tree responsible", (const char *[]){"**/*.pem", NULL}, &b,
	       CONFINE_E_SCAN, "/deep: the tree under it is deeper than 3");
	expect("pruning: a pattern that cannot reach deep/ never walks it",
	       (const char *[]){"d/e/*.key", "d/*.pem", NULL}, &b, 0, "d/e/f.key:0:f d/x.pem:1:f");
	b = big;
	b.max_patterns = 1;
	expect("pattern budget", (const char *[]){"*.pem", "*.key", NULL}, &b, CONFINE_E_SCAN,
	       "2 glob patterns, more than 1 (the pattern budget)");
	b = big;
	b.seconds = 0;
	expect("time budget", (const char *[]){"**/*.pem", NULL}, &b, CONFINE_E_SCAN,
	       "(the time budget)");

	/* An unreadable directory below a root is skipped and named, never a failure (R14):
	 * the matches beside it are still found.  Root reads it anyway, so as root the check
	 * runs in a child that became uid 65534. */
	mk("closed", 'd', NULL);
	char closed[512];
	snprintf(closed, sizeof(closed), "%s/closed", top);
	chmod(top, 0755);
	chmod(closed, 0);
	fflush(stdout); /* or the child prints the parent's buffered lines again */
	pid_t pid = fork();
	if (pid == 0) {
		if (geteuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
			_exit(3);
		int rc;
		char *got = scan((const char *[]){"**/*.pem", NULL}, &big, &rc);
		bool good = rc == 0 && strstr(got, " skipped:closed") && strstr(got, ".pem:0:f");
		if (!good)
			printf("#   got: %d %s\n", rc, got);
		fflush(stdout);
		_exit(good ? 0 : 1);
	}
	int wst = 0;
	waitpid(pid, &wst, 0);
	TAP_OK(WIFEXITED(wst) && WEXITSTATUS(wst) == 0,
	       "an unreadable directory is skipped and named, the rest is scanned (status %d)",
	       wst);
	chmod(closed, 0755);

	canon_cases();

	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", top);
	return tap_done();
}
