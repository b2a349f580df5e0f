/* SPDX-License-Identifier: MIT */
/*
 * Golden Landlock plans (R28, SPEC 3.3): host facts + rules + directory listings -> the exact
 * Landlock plan text.  The case format is golden.c's, plus two facts:
 *   run-tmp PATH     the run's own temp directory (default /tmp/confine-run.test)
 *   cgroup 0|1       whether a cgroup holds the command (default 0)
 *   opener-missing WHY  confine's opener cannot act (R36): what it lacks, the rest of the
 *                    line (default: it can)
 * The listing of a directory is every path of the fact table directly below it (and the
 * directories implied by deeper paths); a directory named by "unlistable PATH" fails to list.
 * `expected` holds the plan text, or "error: <what>: '<subject>': <reason>".
 */
#define GOLDEN_NO_MAIN
#pragma GCC diagnostic ignored "-Wunused-function"
#include "golden.c"

#include "plan/landlock/ll_plan.h"
#include "host/matches.h"

#ifndef GOLDEN_LANDLOCK_DIR
#define GOLDEN_LANDLOCK_DIR "tests/golden/landlock"
#endif

struct ll_facts {
	char *run_tmp;
	char *opener_missing;
	bool cgroup;
	struct cf_strv unlistable;
};

static void load_ll_facts(const char *dir, struct ll_facts *f)
{
	char path[2048];
	snprintf(path, sizeof(path), "%s/facts", dir);
	char *text = slurp(path, NULL);
	memset(f, 0, sizeof(*f));
	for (char *save = NULL, *line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char key[32], a[1024];
		if (sscanf(line, "%31s %1023s", key, a) != 2)
			continue;
		if (!strcmp(key, "run-tmp"))
			f->run_tmp = cf_strdup(a);
		else if (!strcmp(key, "cgroup"))
			f->cgroup = atoi(a) != 0;
		else if (!strcmp(key, "unlistable"))
			cf_strv_add(&f->unlistable, a);
		else if (!strcmp(key, "opener-missing"))
			f->opener_missing = cf_strdup(line + strlen(key) + 1);
	}
	free(text);
	if (!f->run_tmp)
		f->run_tmp = cf_strdup("/tmp/confine-run.test");
}

/* The listing of `dir` from the fact table: direct children, and the directories that deeper
 * paths imply. */
static void list_dir(const struct facts *f, const struct ll_facts *lf, const char *dir,
		     struct cf_ll_listings *out)
{
	struct cf_ll_listing *l = cf_ll_listings_add(out, dir);
	if (!l)
		return;
	if (cf_strv_contains(&lf->unlistable, dir)) {
		l->error = 13;
		return;
	}
	size_t dl = strlen(dir);
	for (size_t i = 0; i < f->fs.n; i++) {
		const char *p = f->fs.v[i].path;
		if (!cf_path_within(p, dir) || !strcmp(p, dir))
			continue;
		const char *rest = p + (dl == 1 ? 1 : dl + 1);
		const char *slash = strchr(rest, '/');
		char *name = cf_strndup(rest, slash ? (size_t)(slash - rest) : strlen(rest));
		bool dup = false;
		for (size_t j = 0; name && j < l->n && !dup; j++)
			dup = !strcmp(l->v[j].name, name);
		if (name && !dup)
			cf_ll_listing_add(l, name, slash ? CF_KIND_DIR : f->fs.v[i].kind);
		free(name);
	}
}

static char *compile_ll_case(const char *dir)
{
	struct facts f;
	struct ll_facts lf;
	struct cf_policy p;
	struct cf_matches m = {0};
	struct cf_plan plan;
	struct cf_ll_plan ll;
	struct cf_ll_listings listings = {0};
	struct cf_strv dirs = {0};
	struct confine_error err = {0};
	struct cf_buf out;
	cf_buf_init(&out);
	load_facts(dir, &f);
	load_ll_facts(dir, &lf);
	char *user_file = cf_asprintf("%s/.config/confine/rules.json", f.home ? f.home : "/home/u");
	char *pw_user_file =
	    f.pw_home ? cf_asprintf("%s/.config/confine/rules.json", f.pw_home) : NULL;
	struct cf_host host = {
	    .home = f.home ? f.home : "/home/u",
	    .pw_home = f.pw_home,
	    .pw_name = f.pw_home ? "root" : NULL,
	    .pw_user_rules_file = pw_user_file,
	    .workspace = f.workspace ? f.workspace : "/home/u/ws",
	    .tmpdir = f.tmpdir,
	    .runtime_dir = f.runtime,
	    .ssh_auth_sock_dir = f.sshdir,
	    .user_rules_file = user_file,
	    .uid = f.uid,
	    .landlock_abi = f.landlock,
	    .seccomp = f.seccomp,
	    .kind = fakefs_kind,
	    .canonicalize = fakefs_canon,
	    .ctx = &f.fs,
	};
	char wsfile[1024];
	snprintf(wsfile, sizeof(wsfile), "%s/.confine/rules.json", host.workspace);
	int r = cf_policy_init(&p, &host, &err);
	if (r == 0)
		r = load_session(&p, dir, &err);
	if (r == 0)
		r = load_file_rules(&p, dir, "workspace.json", CF_LAYER_WORKSPACE, wsfile, &err);
	if (r == 0)
		r = load_file_rules(&p, dir, "user.json", CF_LAYER_USER, user_file, &err);
	if (r == 0 && fake_scan(&f, &p, &m) < 0)
		r = cf_nomem(&err);
	/* Network rules that allow a domain make the mode "domains" (SPEC 12), as in a run. */
	size_t allows = cf_net_policy_allows(&net);
	struct cf_plan_opts o = {.target = CONFINE_TARGET_LINUX,
				 .network = f.network && !allows,
				 .tmp_size = f.tmp_size,
				 .cwd = f.cwd,
				 .net_mode = !f.network ? CONFINE_NET_OFF
					     : allows	? CONFINE_NET_DOMAINS
							: CONFINE_NET_ON,
				 .net_allowed = allows,
				 .net_rules = cf_net_policy_count(&net)};
	struct cf_ll_opts lo = {.network = f.network,
				.net_proxy = f.network && allows,
				.run_tmp = lf.run_tmp,
				.cgroup = lf.cgroup,
				.opener_missing = lf.opener_missing};
	/* The order of a run: the directories to list, their listings, then the plan. */
	if (r == 0)
		r = cf_ll_plan_dirs(&p, &m, &lo, &dirs, &err);
	for (size_t i = 0; r == 0 && i < dirs.n; i++)
		list_dir(&f, &lf, dirs.v[i], &listings);
	cf_ll_listings_sort(&listings);
	lo.listings = &listings;
	if (r == 0)
		r = cf_plan_compile(&p, &m, &o, &plan, &err);
	if (r < 0) {
		cf_buf_addf(&out, "error: %s: '%s': %s\n", err.what, err.subject, err.reason);
		goto out;
	}
	r = cf_ll_plan_compile(&p, &m, &lo, &ll, &err);
	if (r < 0) {
		cf_buf_addf(&out, "error: %s: '%s': %s\n", err.what, err.subject, err.reason);
		cf_plan_release(&plan);
		goto out;
	}
	cf_strv_add(&plan.argv, "cmd");
	char *text = cf_ll_full_text(&plan, &ll);
	cf_buf_add(&out, text ? text : "(oom)\n");
	free(text);
	cf_buf_add(&out, "--- listed before planning\n");
	for (size_t i = 0; i < dirs.n; i++)
		cf_buf_addf(&out, "%s\n", dirs.v[i]);
	cf_ll_plan_release(&ll);
	cf_plan_release(&plan);
out:
	cf_net_policy_release(&net);
	cf_strv_release(&dirs);
	cf_ll_listings_release(&listings);
	cf_matches_release(&m);
	cf_policy_release(&p);
	free_facts(&f);
	free(lf.run_tmp);
	free(lf.opener_missing);
	cf_strv_release(&lf.unlistable);
	free(user_file);
	free(pw_user_file);
	return cf_buf_take(&out);
}

static int cmp_ll_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
	DIR *d = opendir(GOLDEN_LANDLOCK_DIR);
	TAP_OK(d != NULL, "case directory %s exists", GOLDEN_LANDLOCK_DIR);
	if (!d)
		return tap_done();
	struct cf_strv names = {0};
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			cf_strv_add(&names, e->d_name);
	closedir(d);
	qsort(names.v, names.n, sizeof(char *), cmp_ll_names);
	bool update = getenv("CONFINE_GOLDEN_UPDATE") != NULL;
	for (size_t i = 0; i < names.n; i++) {
		char dir[1024], exp_path[1100];
		snprintf(dir, sizeof(dir), "%s/%s", GOLDEN_LANDLOCK_DIR, names.v[i]);
		snprintf(exp_path, sizeof(exp_path), "%s/expected", dir);
		char *got = compile_ll_case(dir);
		if (update) {
			FILE *fp = fopen(exp_path, "w");
			if (fp) {
				fputs(got, fp);
				fclose(fp);
			}
		}
		char *want = slurp(exp_path, NULL);
		TAP_STREQ(got, want, "golden landlock %s", names.v[i]);
		free(got);
		free(want);
	}
	cf_strv_release(&names);
	return tap_done();
}
