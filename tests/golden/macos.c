/* SPDX-License-Identifier: MIT */
/*
 * Golden Seatbelt profiles (SPEC 9, R25, R26): macOS host facts + rules -> the exact plan text,
 * profile included.  For every case that compiles:
 *   - the JSON form parses and carries the same profile;
 *   - the profile is read back by an evaluator written from Seatbelt's documented semantics
 *     (sbpl_eval.c), every regex compiling with POSIX regcomp (ERE);
 *   - every string literal in it is one the compiler checked (R26) and passes the check again;
 *   - the decisions listed in the case's `checks` file hold (the table of paths each rule is
 *     meant to match and their near misses).
 * (The independent Scheme reader, GNU Guile, reads the same profiles in test-sbpl-guile.)
 *
 * A case directory under tests/golden/macos holds:
 *   facts            the Mac's host facts, in the text form of plan/macos/facts.h
 *   session          optional: "allow|ask|deny PATH[:ACCESS]" lines (the CLI syntax)
 *   workspace.json   optional: the workspace rule file
 *   user.json        optional: the user rule file
 *   request          optional: "network off", "network proxy PORT", "grant PATH:file|subtree",
 *                    "reason TEXT", "inject NAME SCRATCH", "inject-path TARGET", "arg WORD"
 *   checks           optional: "OP allow|deny PATH" lines; OP is read, write, meta, unlink,
 *                    exist, socket (connect to a unix socket), bind, tcp (connect, PATH is
 *                    host:port)
 *   expected         the plan text, or "error: <what>: '<subject>': <reason>"
 * CONFINE_GOLDEN_UPDATE=1 rewrites the expectations (review the diff).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../unit/tap.h"
#include "macos_case.h"
#include "plan/macos/sbpl.h"
#include "sbpl_eval.h"
#include "util/util.h"

#ifndef GOLDEN_MACOS_DIR
#define GOLDEN_MACOS_DIR "tests/golden/macos"
#endif

static const char *op_of(const char *word, enum sbpl_kind *kind)
{
	*kind = SBPL_FILE;
	if (!strcmp(word, "read"))
		return "file-read-data";
	if (!strcmp(word, "write"))
		return "file-write-data";
	if (!strcmp(word, "meta"))
		return "file-read-metadata";
	if (!strcmp(word, "unlink"))
		return "file-write-unlink";
	if (!strcmp(word, "exist"))
		return "file-test-existence";
	if (!strcmp(word, "socket"))
		return *kind = SBPL_UNIX_REMOTE, "network-outbound";
	if (!strcmp(word, "bind"))
		return *kind = SBPL_UNIX_LOCAL, "network-bind";
	if (!strcmp(word, "tcp"))
		return *kind = SBPL_IP_REMOTE, "network-outbound";
	return NULL;
}

static void check_profile(const char *name, const struct cf_mac_plan *plan, const char *dir)
{
	char why[256];
	struct sbpl_profile *p = sbpl_read(plan->profile, why, sizeof(why));
	TAP_OK(p != NULL, "R25 macos %s: the profile reads back, every regex compiles (%s)", name,
	       p ? "ok" : why);
	if (!p)
		return;
	const char *const *v;
	size_t n = sbpl_strings(p, &v), bad = 0;
	for (size_t i = 0; i < n; i++) {
		bool known = cf_strv_contains(&plan->strings, v[i]);
		bool valid = !cf_mac_string_problem(v[i], strlen(v[i]), v[i][0] == '/');
		if (!known || !valid) {
			printf("#   string '%s': %s\n", v[i],
			       !known ? "not one the compiler checked" : "fails the check");
			bad++;
		}
	}
	TAP_OK(bad == 0 && n > 0, "R26 macos %s: all %zu string literals passed validation", name,
	       n);
	size_t nr = sbpl_regexes(p, &v);
	bad = 0;
	for (size_t i = 0; i < nr; i++)
		bad += !cf_strv_contains(&plan->regexes, v[i]);
	TAP_OK(bad == 0, "macos %s: all %zu regexes are the compiler's own", name, nr);

	struct cf_strv lines = {0};
	mc_lines(dir, "checks", &lines);
	size_t failed = 0;
	for (size_t i = 0; i < lines.n; i++) {
		char op[16], want[16];
		int off = 0;
		if (sscanf(lines.v[i], "%15s %15s %n", op, want, &off) != 2 || !off) {
			printf("#   bad check line '%s'\n", lines.v[i]);
			failed++;
			continue;
		}
		enum sbpl_kind kind;
		const char *sop = op_of(op, &kind);
		bool allow = sop && sbpl_allows(p, sop, kind, lines.v[i] + off);
		if (!sop || allow != !strcmp(want, "allow")) {
			printf("#   check failed: %s (profile says %s)\n", lines.v[i],
			       allow ? "allow" : "deny");
			failed++;
		}
	}
	if (lines.n)
		TAP_OK(failed == 0, "R25 macos %s: %zu of %zu decisions of the check table hold",
		       name, lines.n - failed, lines.n);
	cf_strv_release(&lines);
	sbpl_free(p);
}

/* The fixed part of every profile, which the probe runs /usr/bin/true and a denied write
 * under on a Mac: the load-bearing rules are there, and what the probe expects of it holds. */
static void base_profile(void)
{
	char *text = NULL, why[256];
	struct confine_error err = {0};
	TAP_INTEQ(cf_mac_base_profile(&text, &err), 0, "R25 the probe's base profile compiles");
	struct sbpl_profile *p = text ? sbpl_read(text, why, sizeof(why)) : NULL;
	TAP_OK(p != NULL, "R25 the base profile reads back (%s)", p ? "ok" : why);
	if (p) {
		TAP_OK(strstr(text, "\n(deny default)\n") && strstr(text, "\n(allow mach*)\n") &&
			   strstr(text, "(literal \"/\")"),
		       "R25 deny default, (allow mach*) and (literal \"/\")");
		TAP_OK(sbpl_allows(p, "file-read-data", SBPL_FILE, "/usr/bin/true") &&
			   sbpl_allows(p, "file-map-executable", SBPL_FILE, "/usr/lib/dyld") &&
			   sbpl_allows(p, "file-read-data", SBPL_FILE, "/"),
		       "the base profile reads /usr/bin/true, maps /usr/lib and reads /");
		TAP_OK(!sbpl_allows(p, "file-write-data", SBPL_FILE,
				    "/private/var/tmp/confine-probe-1") &&
			   sbpl_allows(p, "file-write-data", SBPL_FILE, "/dev/null"),
		       "the base profile refuses the probe's write and allows /dev/null");
	}
	sbpl_free(p);
	free(text);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
	DIR *d = opendir(GOLDEN_MACOS_DIR);
	TAP_OK(d != NULL, "case directory %s exists", GOLDEN_MACOS_DIR);
	if (!d)
		return tap_done();
	struct cf_strv names = {0};
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			cf_strv_add(&names, e->d_name);
	closedir(d);
	qsort(names.v, names.n, sizeof(char *), cmp_names);
	bool update = getenv("CONFINE_GOLDEN_UPDATE") != NULL;
	size_t compiled = 0;
	for (size_t i = 0; i < names.n; i++) {
		char dir[1024], exp_path[1100];
		snprintf(dir, sizeof(dir), "%s/%s", GOLDEN_MACOS_DIR, names.v[i]);
		snprintf(exp_path, sizeof(exp_path), "%s/expected", dir);
		struct mc_case mc;
		char *got = mc_compile(dir, &mc);
		if (update) {
			FILE *f = fopen(exp_path, "wb");
			if (f) {
				fputs(got, f);
				fclose(f);
			}
		}
		char *want = mc_slurp(dir, "expected", NULL);
		TAP_STREQ(got, want, "R25 R26 macos golden %s", names.v[i]);
		if (mc.ok) {
			compiled++;
			char *json = cf_mac_plan_json(&mc.plan);
			json_error_t je;
			json_t *root = json ? json_loads(json, 0, &je) : NULL;
			json_t *prof = root ? json_object_get(root, "profile") : NULL;
			TAP_OK(prof && json_is_string(prof) &&
				   !strcmp(json_string_value(prof), mc.plan.profile) &&
				   json_is_array(json_object_get(root, "not_enforced")),
			       "macos golden %s: the JSON form parses and holds the profile (%s)",
			       names.v[i], root ? "ok" : je.text);
			json_decref(root);
			free(json);
			check_profile(names.v[i], &mc.plan, dir);
		}
		mc_release(&mc);
		free(got);
		free(want);
	}
	TAP_OK(compiled >= 20, "at least 20 golden profiles compile (%zu)", compiled);
	base_profile();
	cf_strv_release(&names);
	return tap_done();
}
