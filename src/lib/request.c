/* SPDX-License-Identifier: MIT */
/* The public request object: a plain record of what the caller asked for.  Pure. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#if !defined(_WIN32)
#include <fcntl.h>
#endif

#include "request.h"
#include "util/util.h"

#define DEFAULT_TMP_SIZE (1024ULL * 1024 * 1024)
#define DEFAULT_KILL_GRACE_MS 5000
#define DEFAULT_CACHE_BOUND (4ULL << 30) /* tool caches (R39), all stores together */

/* Every setter refuses a NULL request instead of crashing the host. */
#define NEED_REQ(r, err)                                                                           \
	do {                                                                                       \
		if (!(r))                                                                          \
			return cf_err(err, CONFINE_E_INVALID, "invalid argument", "request",       \
				      "the request is NULL");                                      \
	} while (0)

int confine_request_new(confine_request **out, struct confine_error *err)
{
	confine_request *r = calloc(1, sizeof(*r));
	if (!r)
		return cf_nomem(err);
	r->tmp_size = DEFAULT_TMP_SIZE;
	r->network = true;
	r->policy = CONFINE_POLICY_REQUIRED;
	r->kill_grace_ms = DEFAULT_KILL_GRACE_MS;
	r->stdio[0] = r->stdio[1] = r->stdio[2] = -1;
	r->cache_bound = DEFAULT_CACHE_BOUND;
	cf_request_record_init(&r->record);
	*out = r;
	return 0;
}

void confine_request_free(confine_request *r)
{
	if (!r)
		return;
	cf_strv_release(&r->argv);
	free(r->workspace);
	free(r->helper);
	cf_ruleset_release(&r->session);
	cf_strv_release(&r->session_files);
	cf_strv_release(&r->env_base);
	cf_env_opts_release(&r->env);
	cf_net_rules_release(&r->net_session);
	cf_request_record_release(&r->record);
	cf_injects_release(&r->injects);
	cf_secret_req_release(&r->secrets);
	free(r);
}

int confine_request_set_argv(confine_request *r, size_t argc, const char *const *argv,
			     struct confine_error *err)
{
	NEED_REQ(r, err);
	cf_strv_release(&r->argv);
	if (argc == 0)
		return cf_err(err, CONFINE_E_INVALID, "no command given", "", "nothing to run");
	for (size_t i = 0; i < argc; i++)
		if (cf_strv_add(&r->argv, argv[i]) < 0)
			return cf_nomem(err);
	return 0;
}

int confine_request_set_workspace(confine_request *r, const char *dir, struct confine_error *err)
{
	NEED_REQ(r, err);
	free(r->workspace);
	r->workspace = NULL;
	if (dir && !(r->workspace = cf_strdup(dir)))
		return cf_nomem(err);
	return 0;
}

int confine_request_add_rule(confine_request *r, const char *pattern, enum confine_access access,
			     enum confine_action action, struct confine_error *err)
{
	if (!pattern || !*pattern)
		return cf_err(err, CONFINE_E_INVALID, "invalid rule", "", "the path is empty");
	if (access < CONFINE_ACCESS_READ || access > CONFINE_ACCESS_BOTH || action > CONFINE_DENY)
		return cf_err(err, CONFINE_E_INVALID, "invalid rule", pattern,
			      "unknown access or action");
	struct cf_rule rule = {
	    .pattern = (char *)pattern,
	    .access = (unsigned)access,
	    .action = (enum cf_action)action,
	    .layer = CF_LAYER_SESSION,
	    .source = "session",
	    .index = (int)r->session.n,
	};
	return cf_ruleset_add(&r->session, &rule, err);
}

int confine_rule_parse(const char *text, char **pattern, enum confine_access *access,
		       struct confine_error *err)
{
	unsigned acc = 0;
	if (!text || !pattern || !access)
		return cf_err(err, CONFINE_E_INVALID, "invalid rule", text ? text : "",
			      "the text, the pattern or the access is NULL");
	int r = cf_rule_parse_cli(text, pattern, &acc, err);
	if (r == 0)
		*access = (enum confine_access)acc;
	return r;
}

int confine_request_add_session_rules_file(confine_request *r, const char *file,
					   struct confine_error *err)
{
	NEED_REQ(r, err);
	if (!file || !*file)
		return cf_err(err, CONFINE_E_INVALID, "invalid session rule file", "",
			      "the file name is empty");
	return cf_strv_add(&r->session_files, file) < 0 ? cf_nomem(err) : 0;
}

int confine_request_set_network(confine_request *r, bool enabled, struct confine_error *err)
{
	NEED_REQ(r, err);
	r->network = enabled;
	return 0;
}

int confine_request_set_net_ask(confine_request *r, confine_net_ask_fn fn, void *user,
				struct confine_error *err)
{
	NEED_REQ(r, err);
	r->net_ask = fn;
	r->net_ask_user = fn ? user : NULL;
	return 0;
}

int confine_request_set_policy(confine_request *r, enum confine_policy policy,
			       struct confine_error *err)
{
	NEED_REQ(r, err);
	if (policy != CONFINE_POLICY_REQUIRED && policy != CONFINE_POLICY_OFF)
		return cf_err(
		    err, CONFINE_E_INVALID, "invalid sandbox policy", "enum confine_policy",
		    "%d is neither CONFINE_POLICY_REQUIRED nor CONFINE_POLICY_OFF", (int)policy);
	r->policy = policy;
	return 0;
}

int confine_request_set_dry_run(confine_request *r, bool dry, struct confine_error *err)
{
	NEED_REQ(r, err);
	r->dry_run = dry;
	return 0;
}

int confine_request_set_cache_size(confine_request *r, uint64_t bytes, struct confine_error *err)
{
	NEED_REQ(r, err);
	r->cache_bound = bytes;
	return 0;
}

int confine_request_set_tmp_size(confine_request *r, uint64_t bytes, struct confine_error *err)
{
	NEED_REQ(r, err);
	/* size=0 is a tmpfs without a cap: the command could fill the host's memory. */
	if (bytes == 0)
		return cf_err(err, CONFINE_E_INVALID, "invalid /tmp size", "0",
			      "the private /tmp needs a size above 0 bytes");
	r->tmp_size = bytes;
	return 0;
}

int confine_request_set_helper(confine_request *r, const char *path, struct confine_error *err)
{
	if (!path || path[0] != '/')
		return cf_err(err, CONFINE_E_INVALID, "invalid helper path", path ? path : "",
			      "the path of confine-init must be absolute");
	free(r->helper);
	r->helper = cf_strdup(path);
	return r->helper ? 0 : cf_nomem(err);
}

int confine_request_set_limits(confine_request *r, uint64_t pids, uint64_t memory,
			       struct confine_error *err)
{
	NEED_REQ(r, err);
	/* The kernel refuses a larger pids.max (EINVAL) when the run is already being set up. */
	if (pids > CONFINE_LIMIT_PIDS_MAX)
		return cf_err(err, CONFINE_E_INVALID, "invalid process limit", "pids",
			      "%llu is more than the kernel allows (%u)", (unsigned long long)pids,
			      CONFINE_LIMIT_PIDS_MAX);
	r->limit_pids = pids;
	r->limit_mem = memory;
	return 0;
}

/* A deadline is the run's start plus this: a larger one would wrap and end the run at once. */
static int duration(const char *what, uint64_t ms, uint64_t *out, struct confine_error *err)
{
	if (ms > CONFINE_DURATION_MAX_MS)
		return cf_err(err, CONFINE_E_INVALID, what, "milliseconds",
			      "%llu ms is longer than the %llu ms a request takes",
			      (unsigned long long)ms, (unsigned long long)CONFINE_DURATION_MAX_MS);
	*out = ms;
	return 0;
}

int confine_request_set_timeout(confine_request *r, uint64_t milliseconds,
				struct confine_error *err)
{
	NEED_REQ(r, err);
	return duration("invalid timeout", milliseconds, &r->timeout_ms, err);
}

int confine_request_set_kill_grace(confine_request *r, uint64_t milliseconds,
				   struct confine_error *err)
{
	NEED_REQ(r, err);
	return duration("invalid kill grace", milliseconds, &r->kill_grace_ms, err);
}

int confine_request_set_tty(confine_request *r, enum confine_tty tty, struct confine_error *err)
{
	NEED_REQ(r, err);
	if (tty != CONFINE_TTY_AUTO && tty != CONFINE_TTY_ON && tty != CONFINE_TTY_OFF)
		return cf_err(err, CONFINE_E_INVALID, "invalid terminal mode", "enum confine_tty",
			      "%d is none of CONFINE_TTY_AUTO, _ON and _OFF", (int)tty);
	r->tty = tty;
	return 0;
}

/* The numbers only: a duplicate held by the request would keep a host's pipe open for as long
 * as the request lives; confine_run_start takes the run's own (exec/linux/bwrap/spawn.c). */
int confine_request_set_stdio(confine_request *r, int in_fd, int out_fd, int err_fd,
			      struct confine_error *err)
{
	static const char *const names[3] = {"stdin", "stdout", "stderr"};
	const int fd[3] = {in_fd, out_fd, err_fd};
	NEED_REQ(r, err);
	for (int i = 0; i < 3; i++) {
		if (fd[i] == -1)
			continue;
#if defined(_WIN32) || defined(__APPLE__)
		cf_err(err, CONFINE_E_INVALID, "cannot give the command descriptors of its own",
		       names[i], "built for Linux only");
		cf_err_hint(err, "pass -1 for each: the command inherits this process's");
		return CONFINE_E_INVALID;
#else
		if (fd[i] < 0 || fcntl(fd[i], F_GETFD) < 0) {
			cf_err(err, CONFINE_E_INVALID, "invalid descriptor", names[i],
			       "%d is not an open file descriptor", fd[i]);
			cf_err_hint(err, "pass an open descriptor, or -1 to give the command "
					 "this process's own");
			return CONFINE_E_INVALID;
		}
#endif
	}
	for (int i = 0; i < 3; i++)
		r->stdio[i] = fd[i];
	return 0;
}

int confine_request_set_environment(confine_request *r, const char *const *envp,
				    struct confine_error *err)
{
	NEED_REQ(r, err);
	cf_strv_release(&r->env_base);
	r->env_base_set = true;
	for (size_t i = 0; envp && envp[i]; i++)
		if (cf_strv_add(&r->env_base, envp[i]) < 0)
			return cf_nomem(err);
	return 0;
}

int confine_request_env_set(confine_request *r, const char *name, const char *value,
			    struct confine_error *err)
{
	char *kv = cf_asprintf("%s=%s", name, value);
	if (!kv)
		return cf_nomem(err);
	int ret = cf_env_check_assignment(kv, err);
	if (ret < 0) {
		free(kv);
		return ret;
	}
	/* A later --env of the same name wins: drop the earlier one. */
	size_t nl = strlen(name);
	for (size_t i = 0; i < r->env.set.n; i++) {
		if (!strncmp(r->env.set.v[i], name, nl) && r->env.set.v[i][nl] == '=') {
			free(r->env.set.v[i]);
			r->env.set.v[i] = kv;
			return 0;
		}
	}
	return cf_strv_take(&r->env.set, kv) < 0 ? cf_nomem(err) : 0;
}

int confine_request_env_pass(confine_request *r, const char *pattern, struct confine_error *err)
{
	NEED_REQ(r, err);
	return cf_strv_add(&r->env.pass, pattern) < 0 ? cf_nomem(err) : 0;
}

int confine_request_env_unset(confine_request *r, const char *pattern, struct confine_error *err)
{
	NEED_REQ(r, err);
	return cf_strv_add(&r->env.unset, pattern) < 0 ? cf_nomem(err) : 0;
}

int confine_request_env_clear(confine_request *r, bool clear, struct confine_error *err)
{
	NEED_REQ(r, err);
	r->env.clear = clear;
	return 0;
}

int confine_request_add_injection(confine_request *r, enum confine_inject_placement placement,
				  const char *where, const void *data, size_t len,
				  struct confine_error *err)
{
	NEED_REQ(r, err);
	return cf_injects_add(&r->injects, placement, where, where ? strlen(where) : 0, data, len,
			      err);
}

int confine_request_add_injection_n(confine_request *r, enum confine_inject_placement placement,
				    const char *where, size_t where_len, const void *data,
				    size_t len, struct confine_error *err)
{
	NEED_REQ(r, err);
	return cf_injects_add(&r->injects, placement, where, where_len, data, len, err);
}

enum confine_policy confine_request_policy(const confine_request *r)
{
	return r->policy;
}

int confine_policy_parse(const char *text, enum confine_policy *out, struct confine_error *err)
{
	if (!out)
		return cf_err(err, CONFINE_E_INVALID, "invalid argument", "out", "out is NULL");
	*out = CONFINE_POLICY_REQUIRED;
	if (!text)
		return cf_err(err, CONFINE_E_INVALID, "invalid sandbox policy", "",
			      "expected 'required' or 'off'");
	while (*text == ' ' || *text == '\t' || *text == '\n')
		text++;
	size_t n = strlen(text);
	while (n && (text[n - 1] == ' ' || text[n - 1] == '\t' || text[n - 1] == '\n'))
		n--;
	if (n == 8 && !strncasecmp(text, "required", 8))
		return 0;
	if (n == 3 && !strncasecmp(text, "off", 3)) {
		*out = CONFINE_POLICY_OFF;
		return 0;
	}
	return cf_err(err, CONFINE_E_INVALID, "invalid sandbox policy", text,
		      "expected 'required' or 'off'");
}

int confine_request_set_backend(confine_request *r, enum confine_backend backend,
				struct confine_error *err)
{
	NEED_REQ(r, err);
	if (backend != CONFINE_BACKEND_AUTO && backend != CONFINE_BACKEND_BWRAP &&
	    backend != CONFINE_BACKEND_LANDLOCK)
		return cf_err(err, CONFINE_E_INVALID, "invalid backend", "backend",
			      "the backend must be auto, bwrap or landlock");
	r->backend = backend;
	return 0;
}

int confine_backend_parse(const char *text, enum confine_backend *out, struct confine_error *err)
{
	static const char *const names[] = {"auto", "bwrap", "landlock"};
	if (!out)
		return cf_err(err, CONFINE_E_INVALID, "invalid argument", "out", "out is NULL");
	if (!text)
		return cf_err(err, CONFINE_E_INVALID, "invalid backend", "",
			      "expected 'auto', 'bwrap' or 'landlock'");
	while (*text == ' ' || *text == '\t')
		text++;
	size_t n = strlen(text);
	while (n && (text[n - 1] == ' ' || text[n - 1] == '\t' || text[n - 1] == '\n'))
		n--;
	for (size_t i = 0; i < 3; i++)
		if (n == strlen(names[i]) && !strncasecmp(text, names[i], n)) {
			*out = (enum confine_backend)i;
			return 0;
		}
	return cf_err(err, CONFINE_E_INVALID, "invalid backend", text,
		      "expected 'auto', 'bwrap' or 'landlock'");
}

static int net_rule(confine_request *r, const char *pattern, enum cf_action action,
		    struct confine_error *err)
{
	struct cf_net_rule rule = {0};
	const char *why = pattern ? cf_net_pattern_parse(pattern, strlen(pattern), &rule)
				  : "the pattern is empty";
	if (why) {
		cf_err(err, CONFINE_E_INVALID, "invalid network rule", pattern ? pattern : "", "%s",
		       why);
		cf_err_hint(err, "write a domain (github.com), every name below one (*.npmjs.org) "
				 "or an address, each with an optional :PORT");
		return CONFINE_E_INVALID;
	}
	rule.pattern = (char *)pattern;
	rule.action = action;
	rule.layer = CF_LAYER_SESSION;
	rule.source = "session";
	rule.index = (int)r->net_session.n;
	return cf_net_rules_add(&r->net_session, &rule, err);
}

int confine_request_net_allow(confine_request *r, const char *pattern, struct confine_error *err)
{
	return net_rule(r, pattern, CF_ALLOW, err);
}

int confine_request_net_deny(confine_request *r, const char *pattern, struct confine_error *err)
{
	return net_rule(r, pattern, CF_DENY, err);
}
