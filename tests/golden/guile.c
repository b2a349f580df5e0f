/* SPDX-License-Identifier: MIT */
/*
 * Every Seatbelt profile of the golden cases and of the fuzz corpus, read by an independent
 * reader: GNU Guile's (read) until end of file (sbpl-read.scm).  For each profile: Guile reads
 * it without error; it has as many top-level forms as the evaluator of the tests found; its
 * string literals are, in order, exactly the ones the compiler checked, and each passes the R26
 * rule written here once more (absolute path or localhost:PORT; no quote, backslash or control
 * character); its regex literals are the compiler's, and each compiles with POSIX regcomp.
 * Without Guile (Debian: guile-3.0, scripts/install-deps test) the checks are skipped, which
 * CONFINE_TEST_MUST_WORK=1 turns into a failure.
 */
#include <dirent.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../fuzz/sbpl_input.h"
#include "../unit/tap.h"
#include "macos_case.h"
#include "sbpl_eval.h"
#include "util/util.h"

struct item {
	char name[512];
	char file[1100];
	struct cf_mac_plan plan;
	size_t forms;
};

static struct item items[256];
static size_t n_items;

static bool r26(const char *s)
{
	if (strncmp(s, "localhost:", 10) == 0) {
		if (!s[10])
			return false;
		for (const char *p = s + 10; *p; p++)
			if (*p < '0' || *p > '9')
				return false;
		return true;
	}
	if (s[0] != '/')
		return false;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f || *p == '"' || *p == '\\')
			return false;
	return true;
}

static void keep(const char *name, const char *dir, struct cf_mac_plan *plan)
{
	if (n_items == sizeof(items) / sizeof(items[0])) {
		cf_mac_plan_release(plan);
		return;
	}
	struct item *it = &items[n_items];
	snprintf(it->name, sizeof(it->name), "%s", name);
	snprintf(it->file, sizeof(it->file), "%s/%03zu.sb", dir, n_items);
	char why[256];
	struct sbpl_profile *p = sbpl_read(plan->profile, why, sizeof(why));
	it->forms = p ? sbpl_forms(p) : 0;
	sbpl_free(p);
	FILE *f = fopen(it->file, "wb");
	if (f) {
		fputs(plan->profile, f);
		fclose(f);
	}
	it->plan = *plan;
	n_items++;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_dir(const char *dir, struct cf_strv *names)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			cf_strv_add(names, e->d_name);
	if (d)
		closedir(d);
	if (names->n)
		qsort(names->v, names->n, sizeof(char *), cmp_names);
}

static void collect(const char *tmp)
{
	struct cf_strv names = {0};
	list_dir(GOLDEN_MACOS_DIR, &names);
	for (size_t i = 0; i < names.n; i++) {
		char dir[1024], name[600];
		snprintf(dir, sizeof(dir), "%s/%s", GOLDEN_MACOS_DIR, names.v[i]);
		snprintf(name, sizeof(name), "golden %s", names.v[i]);
		struct mc_case mc;
		free(mc_compile(dir, &mc));
		if (mc.ok)
			keep(name, tmp, &mc.plan);
	}
	cf_strv_release(&names);
	list_dir(SBPL_CORPUS_DIR, &names);
	for (size_t i = 0; i < names.n; i++) {
		char name[600];
		snprintf(name, sizeof(name), "fuzz corpus %s", names.v[i]);
		char *text = mc_slurp(SBPL_CORPUS_DIR, names.v[i], NULL);
		struct sbpl_fuzz f;
		struct confine_error err = {0};
		struct cf_mac_plan plan;
		if (text && sbpl_fuzz_decode((const uint8_t *)text, strlen(text), &f, &err) == 0 &&
		    cf_mac_plan_compile(&f.in, &plan, &err) == 0)
			keep(name, tmp, &plan);
		sbpl_fuzz_release(&f);
		free(text);
	}
	cf_strv_release(&names);
}

static bool regex_compiles(const char *re)
{
	regex_t r;
	if (regcomp(&r, re, REG_EXTENDED | REG_NOSUB))
		return false;
	regfree(&r);
	return true;
}

static void check_output(FILE *out)
{
	char *line = NULL;
	size_t cap = 0;
	struct item *it = NULL;
	size_t ns = 0, nr = 0, bad = 0;
	size_t done = 0;
	while (getline(&line, &cap, out) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "FILE ", 5)) {
			it = NULL;
			for (size_t i = 0; i < n_items; i++)
				if (!strcmp(items[i].file, line + 5))
					it = &items[i];
			ns = nr = bad = 0;
		} else if (it && !strncmp(line, "S ", 2)) {
			bool same =
			    ns < it->plan.strings.n && !strcmp(it->plan.strings.v[ns], line + 2);
			if (!same || !r26(line + 2)) {
				printf("#   %s: string '%s' %s\n", it->name, line + 2,
				       same ? "fails the R26 rule" : "is not the compiler's");
				bad++;
			}
			ns++;
		} else if (it && !strncmp(line, "R ", 2)) {
			bool same =
			    nr < it->plan.regexes.n && !strcmp(it->plan.regexes.v[nr], line + 2);
			if (!same || !regex_compiles(line + 2)) {
				printf("#   %s: regex '%s' %s\n", it->name, line + 2,
				       same ? "does not compile" : "is not the compiler's");
				bad++;
			}
			nr++;
		} else if (it && !strncmp(line, "END ", 4)) {
			size_t forms = strtoul(line + 4, NULL, 10);
			TAP_OK(bad == 0 && ns == it->plan.strings.n && nr == it->plan.regexes.n &&
				   forms == it->forms && forms > 0,
			       "guile reads %s: %zu forms, %zu strings passed R26, %zu regexes "
			       "compile",
			       it->name, forms, ns, nr);
			done++;
			it = NULL;
		}
	}
	free(line);
	TAP_INTEQ(done, n_items, "guile read every profile (%zu)", n_items);
}

int main(void)
{
	char tmp[] = "/tmp/confine-sbpl-XXXXXX";
	if (!mkdtemp(tmp)) {
		TAP_OK(false, "a temporary directory");
		return tap_done();
	}
	collect(tmp);
	TAP_OK(n_items >= 30, "profiles of the golden cases and the fuzz corpus: %zu", n_items);
	const char *guile = access("/usr/bin/guile", X_OK) == 0 ? "/usr/bin/guile" : NULL;
	if (!guile) {
		TAP_SKIP("GNU Guile is not installed (apt-get install guile-3.0; "
			 "scripts/install-deps test)");
	} else {
		struct cf_buf cmd;
		cf_buf_init(&cmd);
		/* The command line quotes with '...': the paths here never hold a quote. */
		TAP_OK(!strchr(SBPL_READ_SCM, '\'') && !strchr(tmp, '\''),
		       "the paths can be quoted for the shell");
		cf_buf_addf(&cmd, "%s --no-auto-compile -s '%s'", guile, SBPL_READ_SCM);
		for (size_t i = 0; i < n_items; i++)
			cf_buf_addf(&cmd, " '%s'", items[i].file);
		/* Guile's own caches and settings stay out of the caller's home. */
		setenv("GUILE_AUTO_COMPILE", "0", 1);
		setenv("HOME", tmp, 1);
		FILE *out = cmd.s ? popen(cmd.s, "r") : NULL;
		TAP_OK(out != NULL, "guile runs");
		if (out) {
			check_output(out);
			TAP_INTEQ(pclose(out), 0, "guile read every profile without an error");
		}
		cf_buf_release(&cmd);
	}
	for (size_t i = 0; i < n_items; i++) {
		unlink(items[i].file);
		cf_mac_plan_release(&items[i].plan);
	}
	rmdir(tmp);
	return tap_done();
}
