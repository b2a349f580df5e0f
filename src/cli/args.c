/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <stddef.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"

int cli_nomem(struct confine_error *err)
{
	return confine_error_set(err, CONFINE_E_NOMEM, "out of memory", "", "an allocation failed");
}

char *cli_strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = malloc(len + 1);
	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

int cli_parse_size(const char *s, uint64_t *out)
{
	char *end;
	/* strtoull would skip blanks and accept a sign, wrapping "-1" or " -1" to a huge size. */
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	unsigned shift = 0;
	switch (*end) {
	case '\0':
		break;
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	default:
		return -1;
	}
	if (*end && end[1] != '\0' && !((end[1] == 'i' || end[1] == 'B') && end[2] == '\0'))
		return -1;
	if (shift && v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return *out ? 0 : -1;
}

int cli_parse_duration(const char *s, uint64_t *ms)
{
	char *end;
	/* Digits and one point only: strtod alone would skip blanks and read signs, "nan",
	 * "inf", exponents and hexadecimal. */
	size_t n = strspn(s, "0123456789.");
	const char *dot = memchr(s, '.', n);
	if (n == 0 || (dot && memchr(dot + 1, '.', n - (size_t)(dot + 1 - s))))
		return -1;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end != s + n)
		return -1;
	double unit = 1000.0;
	if (*end == 's')
		end++;
	else if (*end == 'm')
		unit = 60000.0, end++;
	else if (*end == 'h')
		unit = 3600000.0, end++;
	if (*end || !(v > 0) || v * unit > (double)CONFINE_DURATION_MAX_MS)
		return -1;
	uint64_t r = (uint64_t)(v * unit + 0.5);
	*ms = r ? r : 1;
	return 0;
}

/* --limit pids=N,mem=SIZE (either or both). */
static int parse_limits(confine_request *req, const char *v, struct confine_error *err)
{
	uint64_t pids = 0, mem = 0;
	char *copy = strdup(v), *save = NULL;
	int r = 0;
	if (!copy)
		return cli_nomem(err);
	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		if (!strncmp(item, "pids=", 5)) {
			char *end;
			errno = 0;
			unsigned long long n = strtoull(item + 5, &end, 10);
			if (errno || !isdigit((unsigned char)item[5]) || *end || n == 0) {
				r = confine_error_set(err, CONFINE_E_INVALID, "invalid --limit", v,
						      "pids= takes a positive number of processes");
				goto out;
			}
			pids = n;
		} else if (!strncmp(item, "mem=", 4)) {
			if (cli_parse_size(item + 4, &mem) < 0) {
				r = confine_error_set(err, CONFINE_E_INVALID, "invalid --limit", v,
						      "mem= takes a size such as 512M or 2G");
				goto out;
			}
		} else {
			r = confine_error_set(
			    err, CONFINE_E_INVALID, "invalid --limit", v,
			    "expected pids=N and/or mem=SIZE, separated by commas");
			goto out;
		}
	}
	if (!pids && !mem)
		r = confine_error_set(err, CONFINE_E_INVALID, "invalid --limit", v,
				      "expected pids=N and/or mem=SIZE");
	else
		r = confine_request_set_limits(req, pids, mem, err);
out:
	free(copy);
	return r;
}

/* --net-allow/--net-deny D[,D...]: one session network rule per item (SPEC 12). */
static int parse_net_rules(confine_request *req, const char *opt, const char *v, bool allow,
			   struct confine_error *err)
{
	char *copy = strdup(v);
	if (!copy)
		return cli_nomem(err);
	int r = 0;
	for (char *item = copy, *next; item && r == 0; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		if (!*item) {
			r = confine_error_set(err, CONFINE_E_INVALID, "invalid network rule", v,
					      "%s has an empty item (expected DOMAIN[,DOMAIN...])",
					      opt);
			break;
		}
		r = allow ? confine_request_net_allow(req, item, err)
			  : confine_request_net_deny(req, item, err);
	}
	free(copy);
	return r;
}

static int need_value(int i, int argc, const char *opt, struct confine_error *err)
{
	if (i + 1 >= argc)
		return confine_error_set(err, CONFINE_E_INVALID, "invalid arguments", opt,
					 "needs a value");
	return 0;
}

/* The handlers of the option table: `given` is the argument as written ("--env=A=1" or
 * "--env"), for messages; `v` the value (NULL for a flag). */

static int set_workspace(struct cli_opts *o, const struct cli_option *opt, const char *given,
			 const char *v, struct confine_error *err)
{
	(void)opt, (void)given;
	return confine_request_set_workspace(o->req, v, err);
}

/* --allow, --ask, --deny PATH[:ACCESS]: opt->arg is the action. */
static int add_rule(struct cli_opts *o, const struct cli_option *opt, const char *given,
		    const char *v, struct confine_error *err)
{
	(void)given;
	char *pattern = NULL;
	enum confine_access access;
	int r = confine_rule_parse(v, &pattern, &access, err);
	if (r < 0)
		return r;
	r = confine_request_add_rule(o->req, pattern, access, (enum confine_action)opt->arg, err);
	confine_free(pattern);
	return r;
}

static int add_session_rules(struct cli_opts *o, const struct cli_option *opt, const char *given,
			     const char *v, struct confine_error *err)
{
	(void)opt, (void)given;
	return confine_request_add_session_rules_file(o->req, v, err);
}

/* --net-allow, --net-deny: opt->arg is 1 for allow. */
static int add_net_rules(struct cli_opts *o, const struct cli_option *opt, const char *given,
			 const char *v, struct confine_error *err)
{
	(void)given;
	return parse_net_rules(o->req, opt->name, v, opt->arg, err);
}

static int add_net_explain(struct cli_opts *o, const struct cli_option *opt, const char *given,
			   const char *v, struct confine_error *err)
{
	(void)opt, (void)given;
	if (o->n_net_explain == CLI_NET_EXPLAIN_MAX)
		return confine_error_set(err, CONFINE_E_INVALID, "invalid arguments", "--net",
					 "at most %d hosts in one call", CLI_NET_EXPLAIN_MAX);
	o->net_explain[o->n_net_explain++] = v;
	return 0;
}

static int set_no_network(struct cli_opts *o, const struct cli_option *opt, const char *given,
			  const char *v, struct confine_error *err)
{
	(void)opt, (void)given, (void)v;
	return confine_request_set_network(o->req, false, err);
}

static int set_policy(struct cli_opts *o, const struct cli_option *opt, const char *given,
		      const char *v, struct confine_error *err)
{
	(void)opt, (void)given;
	enum confine_policy p;
	if (confine_policy_parse(v, &p, NULL) < 0)
		return confine_error_set(err, CONFINE_E_INVALID, "invalid --policy", v,
					 "expected 'required' or 'off'");
	int r = confine_request_set_policy(o->req, p, err);
	if (r < 0)
		return r;
	o->policy_given = true;
	return 0;
}

static int set_backend(struct cli_opts *o, const struct cli_option *opt, const char *given,
		       const char *v, struct confine_error *err)
{
	(void)opt, (void)given;
	enum confine_backend b;
	if (confine_backend_parse(v, &b, NULL) < 0)
		return confine_error_set(err, CONFINE_E_INVALID, "invalid --backend", v,
					 "this build knows 'auto', 'bwrap' and 'landlock'");
	int r = confine_request_set_backend(o->req, b, err);
	if (r < 0)
		return r;
	o->backend_given = true;
	return 0;
}

static int set_env(struct cli_opts *o, const struct cli_option *opt, const char *given,
		   const char *v, struct confine_error *err)
{
	(void)opt, (void)given;
	const char *eq = strchr(v, '=');
	if (!eq)
		return confine_error_set(err, CONFINE_E_INVALID, "invalid --env", v,
					 "expected NAME=VALUE");
	char *name = cli_strndup(v, (size_t)(eq - v));
	if (!name)
		return cli_nomem(err);
	int r = confine_request_env_set(o->req, name, eq + 1, err);
	free(name);
	return r;
}

static int pass_env(struct cli_opts *o, const struct cli_option *opt, const char *given,
		    const char *v, struct confine_error *err)
{
	(void)opt, (void)given;
	return confine_request_env_pass(o->req, v, err);
}

static int unset_env(struct cli_opts *o, const struct cli_option *opt, const char *given,
		     const char *v, struct confine_error *err)
{
	(void)opt, (void)given;
	return confine_request_env_unset(o->req, v, err);
}

static int clear_env(struct cli_opts *o, const struct cli_option *opt, const char *given,
		     const char *v, struct confine_error *err)
{
	(void)opt, (void)given, (void)v;
	return confine_request_env_clear(o->req, true, err);
}

static int set_tmp_size(struct cli_opts *o, const struct cli_option *opt, const char *given,
			const char *v, struct confine_error *err)
{
	(void)opt, (void)given;
	uint64_t size;
	if (cli_parse_size(v, &size) < 0)
		return confine_error_set(err, CONFINE_E_INVALID, "invalid --tmp-size", v,
					 "expected a positive size such as 512M or 2G");
	return confine_request_set_tmp_size(o->req, size, err);
}

static int set_cache_size(struct cli_opts *o, const struct cli_option *opt, const char *given,
			  const char *v, struct confine_error *err)
{
	(void)opt, (void)given;
	uint64_t b = 0;
	/* 0 turns the private tool caches off. */
	if (strcmp(v, "0") && cli_parse_size(v, &b) < 0)
		return confine_error_set(err, CONFINE_E_INVALID, "invalid --cache-size", v,
					 "expected a size such as 0, 512M or 4G");
	return confine_request_set_cache_size(o->req, b, err);
}

static int set_limits(struct cli_opts *o, const struct cli_option *opt, const char *given,
		      const char *v, struct confine_error *err)
{
	(void)opt, (void)given;
	return parse_limits(o->req, v, err);
}

static int set_timeout(struct cli_opts *o, const struct cli_option *opt, const char *given,
		       const char *v, struct confine_error *err)
{
	(void)opt, (void)given;
	uint64_t ms;
	if (cli_parse_duration(v, &ms) < 0)
		return confine_error_set(err, CONFINE_E_INVALID, "invalid --timeout", v,
					 "expected a positive duration: seconds (30, 2.5, 30s), "
					 "minutes (2m) or hours (1h)");
	int r = confine_request_set_timeout(o->req, ms, err);
	if (r < 0)
		return r;
	o->timeout = v;
	return 0;
}

/* --report, --audit FILE: a file name, kept as given. */
static int set_file(const char **slot, const char *what, const char *v, struct confine_error *err)
{
	if (!*v)
		return confine_error_set(err, CONFINE_E_INVALID, what, v, "expected a file name");
	*slot = v;
	return 0;
}

static int set_report(struct cli_opts *o, const struct cli_option *opt, const char *given,
		      const char *v, struct confine_error *err)
{
	(void)opt, (void)given;
	return set_file(&o->report, "invalid --report", v, err);
}

static int set_audit(struct cli_opts *o, const struct cli_option *opt, const char *given,
		     const char *v, struct confine_error *err)
{
	(void)opt, (void)given;
	return set_file(&o->audit, "invalid --audit", v, err);
}

/* --inject-env NAME=FILE, --inject-path TARGET=FILE: opt->arg is 1 for a path. */
static int add_inject(struct cli_opts *o, const struct cli_option *opt, const char *given,
		      const char *v, struct confine_error *err)
{
#ifdef _WIN32
	(void)o, (void)opt, (void)v;
	return confine_error_set(err, CONFINE_E_INVALID, "not available on Windows", given,
				 "read-only file injection is not implemented by the Windows "
				 "backend");
#else
	if (o->n_inject == CONFINE_INJECT_MAX_COUNT)
		return confine_error_set(err, CONFINE_E_LIMIT, "too many injections", v,
					 "at most %d injections per run", CONFINE_INJECT_MAX_COUNT);
	if (!strchr(v, '='))
		return confine_error_set(err, CONFINE_E_INVALID, "invalid arguments", v,
					 "%s expects %s=FILE", given, opt->arg ? "TARGET" : "NAME");
	o->inject_path[o->n_inject] = opt->arg;
	o->inject[o->n_inject++] = v;
	return 0;
#endif
}

/* --tty, --no-tty: opt->arg is the confine_tty. */
static int set_tty(struct cli_opts *o, const struct cli_option *opt, const char *given,
		   const char *v, struct confine_error *err)
{
	(void)given, (void)v;
	return confine_request_set_tty(o->req, (enum confine_tty)opt->arg, err);
}

static int set_ssh_agent(struct cli_opts *o, const struct cli_option *opt, const char *given,
			 const char *v, struct confine_error *err)
{
	(void)opt, (void)given, (void)v;
	return confine_request_set_ssh_agent(o->req, true, err);
}

static int add_ssh_key(struct cli_opts *o, const struct cli_option *opt, const char *given,
		       const char *v, struct confine_error *err)
{
	(void)opt;
#if defined(_WIN32) || defined(__APPLE__)
	(void)o, (void)v;
	return confine_error_set(err, CONFINE_E_INVALID, "not available on this system", given,
				 "the ssh-agent filter is built for Linux only");
#else
	(void)given;
	if (o->n_ssh_keys == sizeof(o->ssh_keys) / sizeof(o->ssh_keys[0]))
		return confine_error_set(err, CONFINE_E_LIMIT, "too many keys", v,
					 "at most 32 --ssh-key");
	o->ssh_keys[o->n_ssh_keys++] = v;
	return 0;
#endif
}

static int add_secret(struct cli_opts *o, const struct cli_option *opt, const char *given,
		      const char *v, struct confine_error *err)
{
	(void)opt, (void)given;
	return confine_request_add_secret(o->req, v, err);
}

static int tls_inspect(struct cli_opts *o, const struct cli_option *opt, const char *given,
		       const char *v, struct confine_error *err)
{
	(void)opt, (void)given;
	return confine_request_tls_inspect(o->req, v, err);
}

static int set_escalate(struct cli_opts *o, const struct cli_option *opt, const char *given,
			const char *v, struct confine_error *err)
{
	(void)opt, (void)given, (void)v;
	o->escalate = true;
	return confine_request_set_escalate(o->req, true, err);
}

static int set_receipt(struct cli_opts *o, const struct cli_option *opt, const char *given,
		       const char *v, struct confine_error *err)
{
	(void)opt, (void)given;
	int r = confine_request_set_receipt(o->req, v, err);
	if (r < 0)
		return r;
	o->receipt = true;
	return 0;
}

static int add_write_grant(struct cli_opts *o, const struct cli_option *opt, const char *given,
			   const char *v, struct confine_error *err)
{
	(void)opt, (void)given;
	int r = confine_request_add_write_grant(o->req, v, err);
	if (r < 0)
		return r;
	o->grants = true;
	return 0;
}

static int set_reason(struct cli_opts *o, const struct cli_option *opt, const char *given,
		      const char *v, struct confine_error *err)
{
	(void)opt, (void)given;
	return confine_request_set_grant_reason(o->req, v, err);
}

static int set_request_id(struct cli_opts *o, const struct cli_option *opt, const char *given,
			  const char *v, struct confine_error *err)
{
	(void)opt, (void)given;
	return confine_request_set_id(o->req, v, err);
}

#define RUN (1u << CLI_RUN)
#define PLAN (1u << CLI_PLAN)
#define EXPLAIN (1u << CLI_EXPLAIN)
#define CARD (1u << CLI_CARD)
#define ALL (RUN | PLAN | EXPLAIN | CARD)
#define F(member) offsetof(struct cli_opts, member)

/* Every option of run, plan, explain and card.  A value comes as the next argument or after
 * "=" (only the long name takes "="); a flag is the name alone.  Without a handler, a flag
 * sets the bool at `field` and a value is kept at `field`, as given. */
static const struct cli_option options[] = {
    {"--help", "-h", CLI_OPT_STOP, ALL, F(help), 0, NULL},
    {"--workspace", "-w", CLI_OPT_VALUE, ALL, 0, 0, set_workspace},
    {"--allow", NULL, CLI_OPT_VALUE, ALL, 0, CONFINE_ALLOW, add_rule},
    {"--ask", NULL, CLI_OPT_VALUE, ALL, 0, CONFINE_ASK, add_rule},
    {"--deny", NULL, CLI_OPT_VALUE, ALL, 0, CONFINE_DENY, add_rule},
    {"--session-rules", NULL, CLI_OPT_VALUE, ALL, 0, 0, add_session_rules},
    {"--net-allow", NULL, CLI_OPT_VALUE, ALL, 0, 1, add_net_rules},
    {"--net-deny", NULL, CLI_OPT_VALUE, ALL, 0, 0, add_net_rules},
    {"--net", NULL, CLI_OPT_VALUE, EXPLAIN, 0, 0, add_net_explain},
    {"--no-net-ask", NULL, 0, RUN, F(no_net_ask), 0, NULL},
    {"--no-network", NULL, 0, ALL, 0, 0, set_no_network},
    {"--policy", NULL, CLI_OPT_VALUE, ALL, 0, 0, set_policy},
    {"--backend", NULL, CLI_OPT_VALUE, ALL, 0, 0, set_backend},
    {"--json", NULL, 0, ALL, F(json), 0, NULL},
    {"--target", NULL, CLI_OPT_VALUE, PLAN, F(target), 0, NULL},
    {"--host-facts", NULL, CLI_OPT_VALUE, PLAN, F(host_facts), 0, NULL},
    {"--home", NULL, CLI_OPT_VALUE, PLAN, F(home), 0, NULL},
    {"--access", NULL, CLI_OPT_VALUE, EXPLAIN, F(access), 0, NULL},
    {"--env", NULL, CLI_OPT_VALUE, RUN | CARD, 0, 0, set_env},
    {"--pass-env", NULL, CLI_OPT_VALUE, RUN | CARD, 0, 0, pass_env},
    {"--unset-env", NULL, CLI_OPT_VALUE, RUN | CARD, 0, 0, unset_env},
    {"--clearenv", NULL, 0, RUN | CARD, 0, 0, clear_env},
    {"--tmp-size", NULL, CLI_OPT_VALUE, RUN | CARD, 0, 0, set_tmp_size},
    {"--cache-size", NULL, CLI_OPT_VALUE, RUN, 0, 0, set_cache_size},
    {"--limit", NULL, CLI_OPT_VALUE, RUN | CARD, 0, 0, set_limits},
    {"--timeout", NULL, CLI_OPT_VALUE, RUN | CARD, 0, 0, set_timeout},
    {"--report", NULL, CLI_OPT_VALUE, RUN | CARD, 0, 0, set_report},
    {"--inject-env", NULL, CLI_OPT_VALUE, RUN | PLAN | CARD, 0, 0, add_inject},
    {"--inject-path", NULL, CLI_OPT_VALUE, RUN | PLAN | CARD, 0, 1, add_inject},
    {"--tty", NULL, 0, RUN, 0, CONFINE_TTY_ON, set_tty},
    {"--no-tty", NULL, 0, RUN, 0, CONFINE_TTY_OFF, set_tty},
    {"--ssh-agent", NULL, 0, RUN, 0, 0, set_ssh_agent},
    {"--ssh-key", NULL, CLI_OPT_VALUE, RUN, 0, 0, add_ssh_key},
    {"--secret", NULL, CLI_OPT_VALUE, RUN, 0, 0, add_secret},
    {"--tls-inspect", NULL, CLI_OPT_VALUE, RUN, 0, 0, tls_inspect},
    {"--print-plan", NULL, 0, RUN, F(print_plan), 0, NULL},
    {"--audit", NULL, CLI_OPT_VALUE, RUN | CARD, 0, 0, set_audit},
    {"--escalate", NULL, 0, RUN | CARD, 0, 0, set_escalate},
    {"--receipt", NULL, CLI_OPT_VALUE, RUN, 0, 0, set_receipt},
    {"--grant-write", NULL, CLI_OPT_VALUE, RUN | CARD, 0, 0, add_write_grant},
    {"--reason", NULL, CLI_OPT_VALUE, RUN | CARD, 0, 0, set_reason},
    {"--request-id", NULL, CLI_OPT_VALUE, RUN | CARD, 0, 0, set_request_id},
};

const struct cli_option *cli_options(size_t *n)
{
	*n = sizeof(options) / sizeof(options[0]);
	return options;
}

/* The entry `arg` names and, for a value option written "--name=V", V in *inline_value:
 * the long name alone or followed by "=", the short name alone, a flag's names alone. */
static const struct cli_option *find_option(const char *arg, const char **inline_value)
{
	*inline_value = NULL;
	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
		const struct cli_option *opt = &options[i];
		size_t n = strlen(opt->name);
		if (!strcmp(arg, opt->name) || (opt->alias && !strcmp(arg, opt->alias)))
			return opt;
		if ((opt->flags & CLI_OPT_VALUE) && !strncmp(arg, opt->name, n) && arg[n] == '=') {
			*inline_value = arg + n + 1;
			return opt;
		}
	}
	return NULL;
}

const char *cli_find_option(int argc, char **argv, const char *name)
{
	size_t n = strlen(name);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--") || a[0] != '-')
			return NULL;
		if (!strncmp(a, name, n) && a[n] == '=')
			return a + n + 1;
		if (!strcmp(a, name))
			return i + 1 < argc ? argv[i + 1] : NULL;
	}
	return NULL;
}

int cli_parse(enum cli_cmd cmd, int argc, char **argv, struct cli_opts *o,
	      struct confine_error *err)
{
	int r, i;
	memset(o, 0, sizeof(*o));
	if ((r = confine_request_new(&o->req, err)) < 0)
		return r;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !strcmp(a, "-"))
			break;
		const struct cli_option *opt = find_option(a, &v);
		if (!opt || !(opt->cmds & (1u << cmd)))
			return confine_error_set(err, CONFINE_E_INVALID, "unknown option", a,
						 "not an option of 'confine %s'", argv[0]);
		if ((opt->flags & CLI_OPT_VALUE) && !v) {
			if ((r = need_value(i, argc, a, err)) < 0)
				return r;
			v = argv[++i];
		}
		r = 0;
		if (opt->set)
			r = opt->set(o, opt, a, v, err);
		else if (opt->flags & CLI_OPT_VALUE)
			*(const char **)((char *)o + opt->field) = v;
		else
			*(bool *)((char *)o + opt->field) = true;
		if (r < 0)
			return r;
		if (opt->flags & CLI_OPT_STOP)
			return 0;
	}
	o->first_operand = i;
	if (cmd != CLI_EXPLAIN && i < argc) {
		r = confine_request_set_argv(o->req, (size_t)(argc - i),
					     (const char *const *)argv + i, err);
		if (r < 0)
			return r;
	}
	return 0;
}
