/* SPDX-License-Identifier: MIT */
/*
 * Repositories nested in the workspace (R30): vendor/x/.git, a submodule's .git file, found by
 * the launch scan, get the git guards of host/git.c as the workspace's own repository does;
 * explain says the same for the one path it is asked about.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "host/git.h"
#include "policy/policy.h"
#include "request.h"
#include "util/util.h"
#include "host/matches.h"

/* Nested repositories beyond this many get their whole `.git` guarded (one mount each) instead
 * of what git reads in it: the mounts stay bounded. */
#define MAX_NESTED_REPOS 256

void cf_run_git_entries(struct cf_git_entries *out)
{
	out->v = cf_git_dir_entries(true, &out->n);
	(void)cf_git_dir_entries(false, &out->n_common);
}

/*
 * The scan's `.git` matches (run.c's expand_globs) are taken out of `globs`: they protect
 * nothing by themselves.  Each repository nested in the workspace gets the git guards the
 * workspace's own repository gets (host/git.c: hooks, config, pointers, includes, its
 * core.hooksPath, an interrupted rebase), added to the policy; the list at launch is kept for the
 * post-run scan, which looks through every `.git` made during the run (events.c).
 */
int cf_run_nested_repos(confine_run *run, struct cf_matches *globs, struct confine_error *err)
{
	/* What the scan found besides its matches moves over: the unreadable directories, and
	 * the matches public by content (R40). */
	struct cf_matches keep = {.skipped = globs->skipped,
				  .pub = globs->pub,
				  .n_pub = globs->n_pub,
				  .cap_pub = globs->cap_pub};
	size_t from = run->git_guards.n, n_repos = 0;
	struct cf_git_entries names;
	int r = 0;
	cf_run_git_entries(&names);
	cf_matches_release(&run->git_nested);
	for (size_t i = 0; i < globs->n; i++) {
		struct cf_match *m = &globs->v[i];
		struct cf_matches *to = m->rule == run->git_rule ? &run->git_nested : &keep;
		if (to->n == to->cap) {
			size_t cap;
			struct cf_match *v = cf_grow_array(to->v, to->cap, 8, sizeof(*v), &cap);
			if (!v) {
				for (size_t k = i; k < globs->n; k++)
					free(globs->v[k].path);
				r = cf_nomem(err);
				break;
			}
			to->v = v;
			to->cap = cap;
		}
		to->v[to->n++] = *m;
	}
	free(globs->v);
	*globs = keep;
	for (size_t i = 0; i < run->git_nested.n && r == 0; i++) {
		char *dir = cf_path_dirname(run->git_nested.v[i].path);
		if (!dir) {
			r = cf_nomem(err);
		} else if (strcmp(dir, run->workspace) && ++n_repos > MAX_NESTED_REPOS) {
			r = cf_strv_contains(&run->git_guards, run->git_nested.v[i].path) ||
				    cf_strv_add(&run->git_guards, run->git_nested.v[i].path) == 0
				? 0
				: cf_nomem(err);
		} else if (strcmp(dir, run->workspace)) {
			r = cf_host_git_guards(dir, run->home, NULL, &names, &run->git_guards,
					       &run->git_launch, err);
		}
		free(dir);
	}
	if (r == 0)
		r = cf_policy_add_git_guards(&run->policy_rules, &run->git_guards, from, err);
	return r;
}

/*
 * The guards of a repository nested in the workspace that cover `path`: the run finds the
 * repositories with its scan; explain looks at the ancestors of the one path, so that it says
 * what the run does.  Returns 0 and *guard (NULL when none) or CONFINE_E_NOMEM.
 */
int cf_run_explain_git(const confine_run *run, const char *path, char **guard,
		       struct confine_error *err)
{
	char *a = cf_path_dirname(path);
	struct cf_git_entries names;
	int r = 0;
	*guard = NULL;
	cf_run_git_entries(&names);
	while (r == 0 && a && !*guard && cf_path_within(a, run->workspace) &&
	       strcmp(a, run->workspace)) {
		char *dotgit = cf_path_join(a, ".git");
		struct stat st;
		if (dotgit && lstat(dotgit, &st) == 0) {
			struct cf_strv g = {0};
			struct cf_git_launch l = {0};
			r = cf_host_git_guards(a, run->home, NULL, &names, &g, &l, err);
			for (size_t i = 0; r == 0 && i < g.n && !*guard; i++)
				if (cf_path_within(path, g.v[i]) && !(*guard = cf_strdup(g.v[i])))
					r = cf_nomem(err);
			cf_strv_release(&g);
			cf_git_launch_release(&l);
		}
		free(dotgit);
		char *up = cf_path_dirname(a);
		free(a);
		a = up;
	}
	if (!a && r == 0)
		r = cf_nomem(err);
	free(a);
	return r;
}
