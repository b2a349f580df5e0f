/* SPDX-License-Identifier: MIT */
/*
 * Golden plan tests (R13, R14, R8-R10): host facts + rules -> exact plan text and bwrap argv.
 *
 * A case directory holds:
 *   facts            one fact per line:
 *                      home PATH | workspace PATH | cwd PATH | uid N | tmpdir PATH |
 *                      runtime PATH | ssh-sock-dir PATH | landlock N | seccomp 0|1 |
 *                      ipc-guard 0|1 (R36; default: landlock >= 2) |
 *                      pw-home PATH (the password database's home, user "root") |
 *                      network on|off | tmp-size N |
 *                      dir PATH | file PATH | other PATH | symlink PATH TARGET |
 *                      git-guard PATH (what host/git.c would report; without any, the
 *                      guards of a plain WORKSPACE/.git directory)
 *                    parents of listed paths exist as directories.
 *   session          optional: "allow|ask|deny PATH[:ACCESS]" lines (the CLI syntax), and
 *                    "net-allow|net-deny PATTERN" lines (--net-allow, --net-deny)
 *   workspace.json   optional: the workspace rule file
 *   user.json        optional: the user rule file
 *   inject           optional: "env NAME" | "path TARGET" lines, injections of 1 byte placed
 *                    with cf_plan_add_injections (SPEC 6); hash i is 63 zeros and i+1
 *   (network rules of any of them make the mode "domains" as confine run does: SPEC 12)
 *   expected         the plan text, a line "--- bwrap", then one bwrap argument per line;
 *                    or, when the compilation must fail, "error: <what>: '<subject>': <reason>"
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/fakefs.h"
#include "../unit/tap.h"
#include "net/decide.h"
#include "plan/bwrap/plan.h"
#include "util/util.h"
#include "host/matches.h"

#ifndef GOLDEN_DIR
#define GOLDEN_DIR "tests/golden/cases"
#endif

struct facts {
	struct fakefs fs;
	struct cf_strv git_guards;
	char *home, *workspace, *cwd, *tmpdir, *runtime, *sshdir, *pw_home;
	unsigned uid;
	int landlock;
	int ipc_guard; /* -1: as the executor decides it (Landlock ABI 2) */
	bool seccomp, network;
	unsigned long long tmp_size;
};

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct cf_buf b;
	cf_buf_init(&b);
	char chunk[4096];
	size_t k;
	while ((k = fread(chunk, 1, sizeof(chunk), f)) > 0)
		cf_buf_addn(&b, chunk, k);
	fclose(f);
	if (len)
		*len = b.len;
	return cf_buf_take(&b);
}

static void load_facts(const char *dir, struct facts *f)
{
	char path[2048];
	snprintf(path, sizeof(path), "%s/facts", dir);
	char *text = slurp(path, NULL);
	memset(f, 0, sizeof(*f));
	f->ipc_guard = -1;
	f->uid = 1000;
	f->network = true;
	f->tmp_size = 1073741824ULL;
	if (!text)
		return;
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char key[32], a[1024], b[1024];
		int n = sscanf(line, "%31s %1023s %1023s", key, a, b);
		if (n < 2 || key[0] == '#')
			continue;
		if (!strcmp(key, "home"))
			f->home = cf_strdup(a);
		else if (!strcmp(key, "workspace"))
			f->workspace = cf_strdup(a);
		else if (!strcmp(key, "cwd"))
			f->cwd = cf_strdup(a);
		else if (!strcmp(key, "tmpdir"))
			f->tmpdir = cf_strdup(a);
		else if (!strcmp(key, "runtime"))
			f->runtime = cf_strdup(a);
		else if (!strcmp(key, "pw-home"))
			f->pw_home = cf_strdup(a);
		else if (!strcmp(key, "ssh-sock-dir"))
			f->sshdir = cf_strdup(a);
		else if (!strcmp(key, "uid"))
			f->uid = (unsigned)atoi(a);
		else if (!strcmp(key, "landlock"))
			f->landlock = atoi(a);
		else if (!strcmp(key, "seccomp"))
			f->seccomp = atoi(a) != 0;
		else if (!strcmp(key, "ipc-guard"))
			f->ipc_guard = atoi(a) != 0;
		else if (!strcmp(key, "network"))
			f->network = strcmp(a, "off") != 0;
		else if (!strcmp(key, "tmp-size"))
			f->tmp_size = strtoull(a, NULL, 10);
		else if (!strcmp(key, "git-guard"))
			cf_strv_add(&f->git_guards, a);
		else if (!strcmp(key, "run-tmp") || !strcmp(key, "cgroup") ||
			 !strcmp(key, "unlistable"))
			continue; /* the Landlock cases' own facts (landlock.c) */
		else
			fakefs_add(&f->fs, a,
				   !strcmp(key, "dir")	   ? CF_KIND_DIR
				   : !strcmp(key, "file")  ? CF_KIND_FILE
				   : !strcmp(key, "other") ? CF_KIND_OTHER
							   : CF_KIND_SYMLINK,
				   n == 3 ? b : NULL);
	}
	free(text);
}

static void free_facts(struct facts *f)
{
	fakefs_clear(&f->fs);
	cf_strv_release(&f->git_guards);
	free(f->home);
	free(f->workspace);
	free(f->cwd);
	free(f->tmpdir);
	free(f->runtime);
	free(f->pw_home);
	free(f->sshdir);
}

/* The scan over the fact table: a glob rule matches listed paths; below a matching directory
 * nothing more is reported for that rule (it is covered). */
static int fake_scan(const struct facts *f, const struct cf_policy *p, struct cf_matches *m)
{
	for (int l = 0; l < CF_LAYER_FALLBACK; l++) {
		const struct cf_ruleset *rs = &p->layers[l];
		for (size_t r = 0; r < rs->n; r++) {
			if (!rs->v[r].glob)
				continue;
			for (size_t i = 0; i < f->fs.n; i++) {
				const char *path = f->fs.v[i].path;
				if (!cf_pattern_match(rs->v[r].path, path, false))
					continue;
				bool covered = false;
				for (size_t j = 0; j < f->fs.n && !covered; j++)
					covered =
					    j != i && cf_path_within(path, f->fs.v[j].path) &&
					    strcmp(path, f->fs.v[j].path) &&
					    cf_pattern_match(rs->v[r].path, f->fs.v[j].path, false);
				if (!covered && cf_matches_add(m, path, f->fs.v[i].kind, r) < 0)
					return -1;
			}
		}
	}
	return 0;
}

static struct cf_net_policy net; /* the network rules of the case being compiled */

static int load_file_rules(struct cf_policy *p, const char *dir, const char *name,
			   enum cf_layer layer, const char *as, struct confine_error *err)
{
	char path[2048];
	size_t len;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	char *text = slurp(path, &len);
	if (!text)
		return 0;
	struct cf_ruleset rs = {0};
	struct cf_net_rules nr = {0};
	struct cf_diags d = {0};
	int r = cf_rules_parse_net(text, len, as, layer, &rs, &nr, &d, err);
	if (r == 0)
		r = cf_policy_add_rules(p, layer, &rs, err);
	if (r == 0)
		r = cf_net_policy_add(&net, layer, &nr, err);
	cf_ruleset_release(&rs);
	cf_net_rules_release(&nr);
	cf_diags_release(&d);
	free(text);
	return r;
}

static int load_session(struct cf_policy *p, const char *dir, struct confine_error *err)
{
	char path[2048];
	snprintf(path, sizeof(path), "%s/session", dir);
	char *text = slurp(path, NULL);
	if (!text)
		return 0;
	struct cf_ruleset rs = {0};
	int r = 0;
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line && r == 0;
	     line = strtok_r(NULL, "\n", &save)) {
		char act[16], arg[2048];
		if (sscanf(line, "%15s %2047s", act, arg) != 2)
			continue;
		if (!strncmp(act, "net-", 4)) {
			struct cf_net_rules nr = {0};
			struct cf_net_rule nrule = {.pattern = arg,
						    .source = "session",
						    .index = (int)net.layers[CF_LAYER_SESSION].n};
			if (cf_net_pattern_parse(arg, strlen(arg), &nrule))
				continue;
			nrule.action = !strcmp(act, "net-allow") ? CF_ALLOW : CF_DENY;
			r = cf_net_rules_add(&nr, &nrule, err);
			if (r == 0)
				r = cf_net_policy_add(&net, CF_LAYER_SESSION, &nr, err);
			cf_net_rules_release(&nr);
			continue;
		}
		struct cf_rule rule = {
		    .layer = CF_LAYER_SESSION, .source = "session", .index = (int)rs.n};
		rule.action = !strcmp(act, "allow") ? CF_ALLOW
			      : !strcmp(act, "ask") ? CF_ASK
						    : CF_DENY;
		r = cf_rule_parse_cli(arg, &rule.pattern, &rule.access, err);
		if (r == 0)
			r = cf_ruleset_add(&rs, &rule, err);
		free(rule.pattern);
	}
	if (r == 0)
		r = cf_policy_add_rules(p, CF_LAYER_SESSION, &rs, err);
	cf_ruleset_release(&rs);
	free(text);
	return r;
}

/* The injections of a case (SPEC 6): placed after the compilation, as run.c does. */
static int load_injections(struct cf_plan *plan, const struct cf_host *h, const char *dir,
			   struct confine_error *err)
{
	char path[2048];
	snprintf(path, sizeof(path), "%s/inject", dir);
	char *text = slurp(path, NULL);
	if (!text)
		return 0;
	struct cf_plan_inject_in in[16];
	char where[16][1024], hash[16][65];
	size_t n = 0;
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line && n < 16;
	     line = strtok_r(NULL, "\n", &save)) {
		char kind[16];
		if (sscanf(line, "%15s %1023s", kind, where[n]) != 2)
			continue;
		snprintf(hash[n], sizeof(hash[n]), "%064zx", n + 1);
		in[n] = (struct cf_plan_inject_in){
		    .placement = !strcmp(kind, "env") ? CONFINE_INJECT_ENV : CONFINE_INJECT_PATH,
		    .where = where[n],
		    .hash = hash[n],
		    .size = 1};
		n++;
	}
	free(text);
	return cf_plan_add_injections(plan, h, in, n, err);
}

static char *compile_case(const char *dir)
{
	struct facts f;
	struct cf_policy p;
	struct cf_matches m = {0};
	struct cf_plan plan;
	struct confine_error err = {0};
	struct cf_buf out;
	char *user_file = NULL;
	cf_buf_init(&out);
	load_facts(dir, &f);
	user_file = cf_asprintf("%s/.config/confine/rules.json", f.home ? f.home : "/home/u");
	char *pw_user_file =
	    f.pw_home ? cf_asprintf("%s/.config/confine/rules.json", f.pw_home) : NULL;
	const char *home = f.home ? f.home : "/home/u";
	const char *ws = f.workspace ? f.workspace : "/home/u/ws";
	char *config_dir = cf_asprintf("%s/.config/confine", home);
	char *pw_config_dir = f.pw_home ? cf_asprintf("%s/.config/confine", f.pw_home) : NULL;
	char *cache_dir = cf_asprintf("%s/.cache/confine", home);
	if (!f.git_guards.n)
		cf_git_plain_guards(ws, &f.git_guards, NULL);
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
	    .config_dir = config_dir,
	    .pw_config_dir = pw_config_dir,
	    .cache_dir = cache_dir,
	    .git_guards = &f.git_guards,
	    .uid = f.uid,
	    .landlock_abi = f.landlock,
	    .seccomp = f.seccomp,
	    .ipc_guard_missing = (f.ipc_guard >= 0 ? f.ipc_guard : f.landlock >= 2)
				     ? NULL
				     : "Landlock ABI 2 (Linux 5.19)",
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
	if (r == 0)
		r = cf_plan_compile(&p, &m, &o, &plan, &err);
	if (r == 0 && (r = load_injections(&plan, &host, dir, &err)) < 0)
		cf_plan_release(&plan);
	if (r < 0) {
		cf_buf_addf(&out, "error: %s: '%s': %s\n", err.what, err.subject, err.reason);
		goto out;
	}
	cf_strv_add(&plan.argv, "cmd");
	char *text = cf_plan_text(&plan);
	cf_buf_add(&out, text ? text : "(oom)\n");
	free(text);
	cf_buf_add(&out, "--- bwrap\n");
	int source[512], empty[512], data[512];
	for (size_t i = 0; i < plan.n_mounts && i < 512; i++) {
		source[i] = 100 + (int)i;
		empty[i] = 300 + (int)i;
		data[i] = 700 + (int)i;
	}
	struct cf_bwrap_fds fds = {.source = source,
				   .empty = empty,
				   .data = data,
				   .seccomp = plan.seccomp ? 10 : -1,
				   .info = 11,
				   .helper = 12,
				   .status = 13,
				   .stderr_fd = 14,
				   .go = 15,
				   .env = 17,
				   .ipc = 18,
				   .ipc_filter = 19};
	/* Helper mode, as a run on a kernel with the mount API makes it: the masks confine makes
	 * in the sandbox once bwrap is done (exec/linux/bwrap/masks.c) are listed after the vector.
	 */
	bool by_helper[512] = {0};
	if (plan.n_mounts <= 512) {
		cf_plan_helper_split(&plan, NULL, by_helper);
		fds.by_helper = by_helper;
	}
	struct cf_strv argv = {0};
	if (cf_bwrap_argv(&plan, &fds, &argv, &err) == 0)
		for (size_t i = 0; i < argv.n; i++)
			cf_buf_addf(&out, "%s\n",
				    !strcmp(argv.v[i], CF_BWRAP_ARGS_END) ? "(end of --args)"
									  : argv.v[i]);
	cf_strv_release(&argv);
	cf_buf_add(&out, "--- helper mode mounts\n");
	struct cf_buf list;
	cf_buf_init(&list);
	cf_plan_helper_list(&plan, by_helper, &list);
	for (size_t at = 0; at < list.len; at += strlen(list.s + at) + 1)
		cf_buf_addf(&out, "%c %s\n", list.s[at], list.s + at + 1);
	cf_buf_release(&list);
	cf_plan_release(&plan);
out:
	cf_net_policy_release(&net);
	cf_matches_release(&m);
	cf_policy_release(&p);
	free_facts(&f);
	free(user_file);
	free(pw_user_file);
	free(config_dir);
	free(pw_config_dir);
	free(cache_dir);
	return cf_buf_take(&out);
}

#ifndef GOLDEN_NO_MAIN
static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
	DIR *d = opendir(GOLDEN_DIR);
	TAP_OK(d != NULL, "case directory %s exists", GOLDEN_DIR);
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
	for (size_t i = 0; i < names.n; i++) {
		char dir[1024], exp_path[1100];
		snprintf(dir, sizeof(dir), "%s/%s", GOLDEN_DIR, names.v[i]);
		snprintf(exp_path, sizeof(exp_path), "%s/expected", dir);
		char *got = compile_case(dir);
		if (update) {
			FILE *f = fopen(exp_path, "w");
			if (f) {
				fputs(got, f);
				fclose(f);
			}
		}
		char *want = slurp(exp_path, NULL);
		TAP_STREQ(got, want, "golden %s", names.v[i]);
		free(got);
		free(want);
	}
	cf_strv_release(&names);
	return tap_done();
}
#endif
