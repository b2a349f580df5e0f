/* SPDX-License-Identifier: MIT */
/* The one rule-file loader (host/rulefile.h): a missing file by layer, an unreadable, a too
 * large and a malformed one with their messages, the network rules kept or not, an earlier
 * failure kept whole; and the order in which a run's files are read. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/rulefile.h"
#include "policy/policy.h"
#include "../tap.h"

static char dir[] = "/tmp/test-rulefile-load.XXXXXX";

static char *put(const char *name, const char *text, size_t len)
{
	char *path = cf_path_join(dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		abort();
	close(fd);
	return path;
}

static const char valid[] = "{\"version\": 1, \"rules\": [{\"path\": \"/srv/data\", \"access\": "
			    "\"read\", \"action\": \"allow\"}],\n \"network\": {\"deny\": "
			    "[\"registry.npmjs.org\"]}}\n";

static void missing(void)
{
	char *path = cf_path_join(dir, "none.json");
	struct cf_ruleset rs = {0};
	struct confine_error err = {0};
	TAP_INTEQ(cf_rulefile_load(path, CF_LAYER_WORKSPACE, true, &rs, NULL, &err), 0,
		  "missing workspace file: no rules");
	TAP_OK(rs.n == 0 && err.code == 0, "missing workspace file: nothing added, no error");
	TAP_INTEQ(cf_rulefile_load(path, CF_LAYER_SESSION, false, &rs, NULL, &err), CONFINE_E_RULES,
		  "missing session file: a rule error");
	TAP_OK(err.code == CONFINE_E_RULES && !strcmp(err.what, "cannot read rule file") &&
		   !strcmp(err.subject, path) && !strcmp(err.syscall, "open") && !err.hint[0],
	       "missing session file: what, subject, open, no hint (got '%s' '%s' hint '%s')",
	       err.what, err.subject, err.hint);
	/* An earlier failure in the caller's struct stays whole. */
	struct confine_error before = {.code = CONFINE_E_INVALID};
	snprintf(before.what, sizeof(before.what), "earlier");
	TAP_INTEQ(cf_rulefile_load(path, CF_LAYER_SESSION, false, &rs, NULL, &before),
		  CONFINE_E_RULES, "missing session file after another failure: the code");
	TAP_OK(before.code == CONFINE_E_INVALID && !strcmp(before.what, "earlier"),
	       "missing session file after another failure: the earlier one kept");
	cf_ruleset_release(&rs);
	free(path);
}

static void unreadable(void)
{
	/* A directory where the file should be: refused even where a missing file is not. */
	char *path = cf_path_join(dir, "adir");
	if (mkdir(path, 0700) < 0)
		abort();
	struct cf_ruleset rs = {0};
	struct confine_error err = {0};
	TAP_INTEQ(cf_rulefile_load(path, CF_LAYER_USER, true, &rs, NULL, &err), CONFINE_E_RULES,
		  "a directory as the user file: refused");
	TAP_STREQ(err.reason, "not a regular file", "a directory: the reason");
	TAP_OK(!err.hint[0], "a directory: no hint of confine check");
	free(path);
}

static void too_large(void)
{
	size_t n = CF_RULES_MAX_FILE_BYTES + 1;
	char *big = malloc(n);
	memset(big, ' ', n);
	char *path = put("big.json", big, n);
	struct cf_ruleset rs = {0};
	struct confine_error err = {0};
	TAP_INTEQ(cf_rulefile_load(path, CF_LAYER_SESSION, false, &rs, NULL, &err), CONFINE_E_RULES,
		  "1 MiB + 1 byte: refused");
	TAP_OK(!strcmp(err.what, "rule file too large") && !strcmp(err.subject, path) &&
		   !strcmp(err.reason, "a rule file may hold at most 1 MiB") && !err.hint[0],
	       "1 MiB + 1 byte: what, subject, reason, no hint (got '%s' '%s' hint '%s')", err.what,
	       err.reason, err.hint);
	free(path);
	/* Exactly 1 MiB is read and parsed (here: not JSON). */
	big[n - 2] = '{';
	path = put("max.json", big, n - 1);
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(cf_rulefile_load(path, CF_LAYER_SESSION, false, &rs, NULL, &err), CONFINE_E_RULES,
		  "exactly 1 MiB: parsed");
	TAP_OK(strcmp(err.what, "rule file too large") && err.line == 1,
	       "exactly 1 MiB: the parser's error at line 1 (got '%s' %d:%d)", err.what, err.line,
	       err.column);
	free(path);
	free(big);
}

static void malformed(void)
{
	static const char text[] = "{\n  \"version\": 1,\n  \"rules\": [ }\n";
	char *path = put("bad.json", text, sizeof(text) - 1);
	struct cf_ruleset rs = {0};
	struct confine_error err = {0};
	TAP_INTEQ(cf_rulefile_load(path, CF_LAYER_WORKSPACE, true, &rs, NULL, &err),
		  CONFINE_E_RULES, "malformed: refused, though a missing one would not be");
	TAP_OK(err.line == 3 && err.column == 14 && !strcmp(err.subject, path),
	       "malformed: FILE:LINE:COL of the parser (got %s:%d:%d)", err.subject, err.line,
	       err.column);
	char hint[1200];
	snprintf(hint, sizeof(hint), "run 'confine check %s' to list every error", path);
	TAP_STREQ(err.hint, hint, "malformed: the hint names confine check and the file");
	free(path);
}

static void network(void)
{
	char *path = put("good.json", valid, sizeof(valid) - 1);
	struct cf_ruleset rs = {0};
	struct cf_net_rules net = {0};
	struct confine_error err = {0};
	TAP_INTEQ(cf_rulefile_load(path, CF_LAYER_USER, true, &rs, &net, &err), 0,
		  "valid file: loaded");
	TAP_OK(rs.n == 1 && !strcmp(rs.v[0].pattern, "/srv/data") && rs.v[0].layer == CF_LAYER_USER,
	       "valid file: its path rule, of its layer");
	TAP_INTEQ((long)net.n, 1L, "valid file: its network rule");
	TAP_INTEQ(cf_rulefile_load(path, CF_LAYER_USER, true, &rs, NULL, &err), 0,
		  "valid file, network not kept: loaded");
	TAP_INTEQ((long)rs.n, 2L, "the second load's path rule appended");
	cf_ruleset_release(&rs);
	cf_net_rules_release(&net);
	free(path);
}

struct seen {
	char log[2048];
	int fail_at, calls;
};

static int note(void *ctx, const char *path, enum cf_layer layer, bool missing_ok,
		struct confine_error *err)
{
	struct seen *s = ctx;
	size_t at = strlen(s->log);
	snprintf(s->log + at, sizeof(s->log) - at, "%s%s:%s:%d", at ? " " : "",
		 cf_layer_name(layer), path, missing_ok);
	return ++s->calls == s->fail_at ? cf_err(err, CONFINE_E_RULES, "stop", path, "planted") : 0;
}

static void each(void)
{
	struct cf_strv files = {0};
	cf_strv_add(&files, "/s/one.json");
	cf_strv_add(&files, "/s/two.json");
	struct seen s = {0};
	struct confine_error err = {0};
	TAP_INTEQ(
	    cf_rulefiles_each(&files, "/ws", "/home/u/.config/confine/rules.json", note, &s, &err),
	    0, "each: every file");
	TAP_STREQ(s.log,
		  "session:/s/one.json:0 session:/s/two.json:0 "
		  "workspace:/ws/.confine/rules.json:1 user:/home/u/.config/confine/rules.json:1",
		  "each: session files (must exist), then the workspace's and the user's");
	memset(&s, 0, sizeof(s));
	s.fail_at = 2;
	TAP_INTEQ(cf_rulefiles_each(&files, "/ws", "/u.json", note, &s, &err), CONFINE_E_RULES,
		  "each: a failure is returned");
	TAP_STREQ(s.log, "session:/s/one.json:0 session:/s/two.json:0",
		  "each: nothing read after a failure");
	memset(&s, 0, sizeof(s));
	TAP_INTEQ(cf_rulefiles_each(&files, NULL, "/u.json", note, &s, &err), 0,
		  "each: no workspace");
	TAP_STREQ(s.log, "session:/s/one.json:0 session:/s/two.json:0",
		  "each: no workspace, only the session's files");
	memset(&s, 0, sizeof(s));
	TAP_INTEQ(cf_rulefiles_each(NULL, "/ws", NULL, note, &s, &err), 0, "each: no user file");
	TAP_STREQ(s.log, "workspace:/ws/.confine/rules.json:1", "each: only the workspace's");
	cf_strv_release(&files);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	missing();
	unreadable();
	too_large();
	malformed();
	network();
	each();
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	return tap_done();
}
