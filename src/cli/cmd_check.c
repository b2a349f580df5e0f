/* SPDX-License-Identifier: MIT */
/*
 * confine check [--workspace DIR] [FILE...]: validates rule files the way `run` loads them,
 * and reports every problem of every file as FILE:LINE:COLUMN: POINTER: message (R5), so one
 * run lists all there is to fix.  Beyond the syntax of SPEC 2.1 it resolves each pattern
 * (SPEC 2.2: reserved characters, relative paths in the user file) and applies R10 to the
 * workspace file, since those refuse a `run` as surely as a syntax error.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "host/canon.h"
#include "host/rulefile.h"
#include "rules/netrules.h"
#include "rules/rules.h"
#include "util/util.h"

static const char usage[] =
    "usage: confine check [--workspace DIR] [FILE...]\n"
    "\n"
    "Validate rule files and print every error as FILE:LINE:COLUMN: POINTER: message.\n"
    "Without FILE, checks the two standard files: WORKSPACE/.confine/rules.json and\n"
    "${XDG_CONFIG_HOME:-~/.config}/confine/rules.json (a missing one means no rules).\n"
    "A FILE is checked as the user file when it is that file, as a workspace file when it is\n"
    "named .confine/rules.json, and as a session rule file (--session-rules) otherwise.\n"
    "\n"
    "options:\n"
    "  -w, --workspace DIR   workspace root (default: the current directory)\n"
    "  -h, --help            show this help\n"
    "\n"
    "exit status: 0 all files valid, 1 errors found, 125 invalid arguments\n";

/* One line of output for a file, kept to print in document order. */
struct line {
	int line, column;
	char *text;
};

struct report {
	struct line *v;
	size_t n, cap;
	int errors;
};

static int report_add(struct report *r, int line, int column, char *text)
{
	if (!text)
		return -1;
	if (r->n == r->cap) {
		size_t cap;
		struct line *v = cf_grow_array(r->v, r->cap, 16, sizeof(*v), &cap);
		if (!v) {
			free(text);
			return -1;
		}
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n++] = (struct line){line, column, text};
	r->errors++;
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->column != y->column)
		return x->column < y->column ? -1 : 1;
	return 0;
}

static void report_flush(struct report *r)
{
	/* A stable insertion sort over pointers: at one position the parser's diagnostics
	 * come before the resolver's, and a file has few errors. */
	struct line **order = malloc((r->n ? r->n : 1) * sizeof(*order));
	if (order) {
		for (size_t i = 0; i < r->n; i++)
			order[i] = &r->v[i];
		for (size_t i = 1; i < r->n; i++) {
			struct line *x = order[i];
			size_t j = i;
			while (j > 0 && cmp_line(order[j - 1], x) > 0) {
				order[j] = order[j - 1];
				j--;
			}
			order[j] = x;
		}
		for (size_t i = 0; i < r->n; i++)
			printf("%s\n", cli_esc(order[i]->text, 0));
		free(order);
	} else {
		for (size_t i = 0; i < r->n; i++)
			printf("%s\n", cli_esc(r->v[i].text, 0));
	}
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].text);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

struct check_ctx {
	const char *workspace, *home, *user_file, *ws_file;
	int errors, bad_files;
};

/* Checks one file; returns its number of errors, or -1 on out-of-memory. */
static int check_file(struct check_ctx *c, const char *file, enum cf_layer layer, bool standard)
{
	char *text = NULL;
	size_t len = 0;
	struct cf_ruleset rs = {0};
	struct cf_net_rules net = {0};
	struct cf_diags diags = {0};
	struct report rep = {0};
	int ret = -1;

	struct confine_error rerr = {0};
	int r = cf_rulefile_read(file, &text, &len, &rerr);
	if (r == CONFINE_E_NOTFOUND && standard) {
		printf("%s: not found (no rules)\n", cli_esc(file, 0));
		return 0;
	}
	if (r == CONFINE_E_NOMEM)
		return -1;
	if (r < 0) {
		printf("%s: %s: %s\n", cli_esc(file, 0), rerr.what, cli_esc(rerr.reason, 0));
		return 1;
	}

	r = cf_rules_parse_net(text, len, file, layer, &rs, &net, &diags, NULL);
	if (r == CONFINE_E_NOMEM)
		goto out;
	for (size_t i = 0; i < diags.n; i++) {
		const struct cf_diag *d = &diags.v[i];
		if (report_add(&rep, d->line, d->column,
			       cf_asprintf("%s:%d:%d: %s%s%s", file, d->line, d->column, d->pointer,
					   d->pointer[0] ? ": " : "", d->message)) < 0)
			goto out;
	}

	struct cf_resolve_ctx rctx = {
	    .home = c->home,
	    .workspace = c->workspace,
	    .canonicalize = cf_host_canonicalize,
	};
	for (size_t i = 0; i < rs.n; i++) {
		struct cf_rule *rule = &rs.v[i];
		struct confine_error err = {0};
		char *msg = NULL;
		if (cf_rule_resolve(rule, &rctx, &err) < 0) {
			if (err.code == CONFINE_E_NOMEM)
				goto out;
			msg = cf_strdup(err.reason);
		} else if (layer == CF_LAYER_WORKSPACE && rule->action == CF_ALLOW &&
			   !cf_path_within(rule->path, c->workspace)) {
			/* R10, as the policy applies it when the rules are loaded for a run. */
			msg = cf_asprintf(
			    "'%s' allows '%s', outside the workspace '%s' (a repository "
			    "cannot grant itself access outside it; put this rule in "
			    "the user rule file or pass --allow)",
			    rule->pattern, rule->path, c->workspace);
		}
		if (!msg)
			continue;
		int rr = report_add(&rep, rule->line, rule->column,
				    cf_asprintf("%s:%d:%d: /rules/%d/path: %s", file, rule->line,
						rule->column, rule->index, msg));
		free(msg);
		if (rr < 0)
			goto out;
	}

	ret = rep.errors;
	report_flush(&rep);
	if (ret == 0 && net.n)
		printf("%s: ok (%zu rule%s, %zu network rule%s)\n", cli_esc(file, 0), rs.n,
		       rs.n == 1 ? "" : "s", net.n, net.n == 1 ? "" : "s");
	else if (ret == 0)
		printf("%s: ok (%zu rule%s)\n", cli_esc(file, 0), rs.n, rs.n == 1 ? "" : "s");
out:
	if (ret < 0)
		report_flush(&rep);
	free(text);
	cf_ruleset_release(&rs);
	cf_net_rules_release(&net);
	cf_diags_release(&diags);
	return ret;
}

static char *canon_or_null(const char *path)
{
	char *out = NULL;
	if (cf_host_canonicalize(NULL, path, &out, NULL) < 0)
		return NULL;
	return out;
}

/* The layer a file named on the command line is checked as; see the usage text. */
static enum cf_layer layer_of(const struct check_ctx *c, const char *file)
{
	static const char ws_suffix[] = "/.confine/rules.json";
	char *abs = NULL, *canon = NULL;
	enum cf_layer layer = CF_LAYER_SESSION;
	if (file[0] == '/') {
		abs = cf_strdup(file);
	} else {
		char *cwd = getcwd(NULL, 0);
		abs = cwd ? cf_path_join(cwd, file) : NULL;
		free(cwd);
	}
	if (abs)
		canon = canon_or_null(abs);
	if (canon && c->user_file && strcmp(canon, c->user_file) == 0)
		layer = CF_LAYER_USER;
	else if (canon && (strcmp(canon, c->ws_file) == 0 ||
			   (strlen(canon) >= strlen(ws_suffix) &&
			    strcmp(canon + strlen(canon) - strlen(ws_suffix), ws_suffix) == 0)))
		layer = CF_LAYER_WORKSPACE;
	free(abs);
	free(canon);
	return layer;
}

int cmd_check(int argc, char **argv)
{
	const char *ws_arg = NULL;
	int i, status = CLI_EXIT_CONFINE;
	char *workspace = NULL, *home = NULL, *user_file = NULL, *ws_file = NULL, *tmp = NULL;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			return 0;
		}
		if (!strcmp(a, "-w") || !strcmp(a, "--workspace")) {
			if (i + 1 >= argc)
				return cli_usage_error("check", "%s needs a directory", a);
			ws_arg = argv[++i];
		} else if (!strncmp(a, "--workspace=", 12)) {
			ws_arg = a + 12;
		} else if (a[0] == '-' && a[1]) {
			return cli_usage_error("check", "unknown option '%s'", a);
		} else {
			break;
		}
	}

	tmp = ws_arg ? cf_strdup(ws_arg) : getcwd(NULL, 0);
	workspace = tmp ? realpath(tmp, NULL) : NULL;
	struct stat st;
	if (!workspace || stat(workspace, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "confine: check: cannot use workspace '%s': %s\n",
			cli_q(tmp ? tmp : "."), workspace ? strerror(ENOTDIR) : strerror(errno));
		goto out;
	}

	const char *h = getenv("HOME");
	if (!h || h[0] != '/') {
		struct passwd *pw = getpwuid(getuid());
		h = pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
	}
	if (h)
		home = canon_or_null(h);
	const char *xdg = getenv("XDG_CONFIG_HOME");
	/* The XDG base directory spec ignores a relative XDG_CONFIG_HOME. */
	if (xdg && xdg[0] == '/')
		user_file = cf_path_join(xdg, "confine/rules.json");
	else if (home)
		user_file = cf_path_join(home, ".config/confine/rules.json");
	ws_file = cf_path_join(workspace, ".confine/rules.json");
	if (!ws_file || (xdg && xdg[0] == '/' && !user_file)) {
		fprintf(stderr, "confine: check: out of memory\n");
		goto out;
	}
	/* Compare canonical paths when telling the user file from the others. */
	if (user_file) {
		char *cu = canon_or_null(user_file);
		if (cu) {
			free(user_file);
			user_file = cu;
		}
	}

	struct check_ctx c = {
	    .workspace = workspace,
	    .home = home,
	    .user_file = user_file,
	    .ws_file = ws_file,
	};
	if (i >= argc) {
		int e = check_file(&c, ws_file, CF_LAYER_WORKSPACE, true);
		if (e > 0) {
			c.errors += e;
			c.bad_files++;
		}
		if (e >= 0 && user_file) {
			e = check_file(&c, user_file, CF_LAYER_USER, true);
			if (e > 0) {
				c.errors += e;
				c.bad_files++;
			}
		} else if (e >= 0) {
			printf("confine: check: the user rule file is unknown (HOME is not set)\n");
		}
		if (e < 0) {
			fprintf(stderr, "confine: check: out of memory\n");
			goto out;
		}
	}
	for (; i < argc; i++) {
		int e = check_file(&c, argv[i], layer_of(&c, argv[i]), false);
		if (e < 0) {
			fprintf(stderr, "confine: check: out of memory\n");
			goto out;
		}
		if (e > 0) {
			c.errors += e;
			c.bad_files++;
		}
	}
	fflush(stdout);
	if (c.errors) {
		fprintf(stderr, "confine: check: %d error%s in %d file%s\n", c.errors,
			c.errors == 1 ? "" : "s", c.bad_files, c.bad_files == 1 ? "" : "s");
		status = 1;
	} else {
		status = 0;
	}
out:
	free(tmp);
	free(workspace);
	free(home);
	free(user_file);
	free(ws_file);
	return status;
}
