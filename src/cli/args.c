/* SPDX-License-Identifier: MIT */
#include <ctype.h>
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

/* Splits "--opt=value" forms. */
static bool opt_is(const char *arg, const char *name, const char **inline_value)
{
	size_t n = strlen(name);
	if (strncmp(arg, name, n))
		return false;
	if (arg[n] == '\0') {
		*inline_value = NULL;
		return true;
	}
	if (arg[n] == '=') {
		*inline_value = arg + n + 1;
		return true;
	}
	return false;
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
#define VALUE()                                                                                    \
	do {                                                                                       \
		if (!v) {                                                                          \
			if ((r = need_value(i, argc, a, err)) < 0)                                 \
				return r;                                                          \
			v = argv[++i];                                                             \
		}                                                                                  \
	} while (0)
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			o->help = true;
			return 0;
		} else if (!strcmp(a, "-w") || opt_is(a, "--workspace", &v)) {
			VALUE();
			if ((r = confine_request_set_workspace(o->req, v, err)) < 0)
				return r;
		} else if (opt_is(a, "--allow", &v) || opt_is(a, "--ask", &v) ||
			   opt_is(a, "--deny", &v)) {
			VALUE();
			char *pattern = NULL;
			enum confine_access access;
			if ((r = confine_rule_parse(v, &pattern, &access, err)) < 0)
				return r;
			enum confine_action act = a[2] == 'a' && a[3] == 'l' ? CONFINE_ALLOW
						  : a[2] == 'a'		     ? CONFINE_ASK
									     : CONFINE_DENY;
			r = confine_request_add_rule(o->req, pattern, access, act, err);
			confine_free(pattern);
			if (r < 0)
				return r;
		} else if (opt_is(a, "--session-rules", &v)) {
			VALUE();
			if ((r = confine_request_add_session_rules_file(o->req, v, err)) < 0)
				return r;
		} else if (opt_is(a, "--net-allow", &v) || opt_is(a, "--net-deny", &v)) {
			VALUE();
			if ((r = parse_net_rules(o->req, a[6] == 'a' ? "--net-allow" : "--net-deny",
						 v, a[6] == 'a', err)) < 0)
				return r;
		} else if (cmd == CLI_EXPLAIN && opt_is(a, "--net", &v)) {
			VALUE();
			if (o->n_net_explain == CLI_NET_EXPLAIN_MAX)
				return confine_error_set(
				    err, CONFINE_E_INVALID, "invalid arguments", "--net",
				    "at most %d hosts in one call", CLI_NET_EXPLAIN_MAX);
			o->net_explain[o->n_net_explain++] = v;
		} else if (cmd == CLI_RUN && !strcmp(a, "--no-net-ask")) {
			o->no_net_ask = true;
		} else if (!strcmp(a, "--no-network")) {
			if ((r = confine_request_set_network(o->req, false, err)) < 0)
				return r;
		} else if (opt_is(a, "--policy", &v)) {
			VALUE();
			enum confine_policy p;
			if (confine_policy_parse(v, &p, NULL) < 0)
				return confine_error_set(err, CONFINE_E_INVALID, "invalid --policy",
							 v, "expected 'required' or 'off'");
			if ((r = confine_request_set_policy(o->req, p, err)) < 0)
				return r;
			o->policy_given = true;
		} else if (opt_is(a, "--backend", &v)) {
			VALUE();
			enum confine_backend b;
			if (confine_backend_parse(v, &b, NULL) < 0)
				return confine_error_set(
				    err, CONFINE_E_INVALID, "invalid --backend", v,
				    "this build knows 'auto', 'bwrap' and 'landlock'");
			if ((r = confine_request_set_backend(o->req, b, err)) < 0)
				return r;
			o->backend_given = true;
		} else if (opt_is(a, "--json", &v) && !v) {
			o->json = true;
		} else if (cmd == CLI_PLAN && opt_is(a, "--target", &v)) {
			VALUE();
			o->target = v;
		} else if (cmd == CLI_EXPLAIN && opt_is(a, "--access", &v)) {
			VALUE();
			o->access = v;
		} else if ((cmd == CLI_RUN || cmd == CLI_CARD) && opt_is(a, "--env", &v)) {
			VALUE();
			const char *eq = strchr(v, '=');
			if (!eq)
				return confine_error_set(err, CONFINE_E_INVALID, "invalid --env", v,
							 "expected NAME=VALUE");
			char *name = cli_strndup(v, (size_t)(eq - v));
			if (!name)
				return cli_nomem(err);
			r = confine_request_env_set(o->req, name, eq + 1, err);
			free(name);
			if (r < 0)
				return r;
		} else if ((cmd == CLI_RUN || cmd == CLI_CARD) && opt_is(a, "--pass-env", &v)) {
			VALUE();
			if ((r = confine_request_env_pass(o->req, v, err)) < 0)
				return r;
		} else if ((cmd == CLI_RUN || cmd == CLI_CARD) && opt_is(a, "--unset-env", &v)) {
			VALUE();
			if ((r = confine_request_env_unset(o->req, v, err)) < 0)
				return r;
		} else if ((cmd == CLI_RUN || cmd == CLI_CARD) && !strcmp(a, "--clearenv")) {
			if ((r = confine_request_env_clear(o->req, true, err)) < 0)
				return r;
		} else if ((cmd == CLI_RUN || cmd == CLI_CARD) && opt_is(a, "--tmp-size", &v)) {
			VALUE();
			uint64_t size;
			if (cli_parse_size(v, &size) < 0)
				return confine_error_set(
				    err, CONFINE_E_INVALID, "invalid --tmp-size", v,
				    "expected a positive size such as 512M or 2G");
			if ((r = confine_request_set_tmp_size(o->req, size, err)) < 0)
				return r;
		} else if (cmd == CLI_RUN && opt_is(a, "--cache-size", &v)) {
			VALUE();
			uint64_t b = 0;
			/* 0 turns the private tool caches off. */
			if (strcmp(v, "0") && cli_parse_size(v, &b) < 0)
				return confine_error_set(err, CONFINE_E_INVALID,
							 "invalid --cache-size", v,
							 "expected a size such as 0, 512M or 4G");
			if ((r = confine_request_set_cache_size(o->req, b, err)) < 0)
				return r;
		} else if ((cmd == CLI_RUN || cmd == CLI_CARD) && opt_is(a, "--limit", &v)) {
			VALUE();
			if ((r = parse_limits(o->req, v, err)) < 0)
				return r;
		} else if ((cmd == CLI_RUN || cmd == CLI_CARD) && opt_is(a, "--timeout", &v)) {
			VALUE();
			uint64_t ms;
			if (cli_parse_duration(v, &ms) < 0)
				return confine_error_set(
				    err, CONFINE_E_INVALID, "invalid --timeout", v,
				    "expected a positive duration: seconds (30, 2.5, 30s), "
				    "minutes (2m) or hours (1h)");
			if ((r = confine_request_set_timeout(o->req, ms, err)) < 0)
				return r;
			o->timeout = v;
		} else if ((cmd == CLI_RUN || cmd == CLI_CARD) && opt_is(a, "--report", &v)) {
			VALUE();
			if (!*v)
				return confine_error_set(err, CONFINE_E_INVALID, "invalid --report",
							 v, "expected a file name");
			o->report = v;
		} else if (cmd != CLI_EXPLAIN &&
			   (opt_is(a, "--inject-env", &v) || opt_is(a, "--inject-path", &v))) {
			VALUE();
#ifdef _WIN32
			return confine_error_set(
			    err, CONFINE_E_INVALID, "not available on Windows", a,
			    "read-only file injection is not implemented by the Windows "
			    "backend");
#endif
			if (o->n_inject == CONFINE_INJECT_MAX_COUNT)
				return confine_error_set(
				    err, CONFINE_E_LIMIT, "too many injections", v,
				    "at most %d injections per run", CONFINE_INJECT_MAX_COUNT);
			if (!strchr(v, '='))
				return confine_error_set(
				    err, CONFINE_E_INVALID, "invalid arguments", v,
				    "%s expects %s=FILE", a, a[9] == 'p' ? "TARGET" : "NAME");
			o->inject_path[o->n_inject] = a[9] == 'p';
			o->inject[o->n_inject++] = v;
		} else if (cmd == CLI_RUN && (!strcmp(a, "--tty") || !strcmp(a, "--no-tty"))) {
			if ((r = confine_request_set_tty(
				 o->req, a[2] == 't' ? CONFINE_TTY_ON : CONFINE_TTY_OFF, err)) < 0)
				return r;
		} else if (cmd == CLI_RUN && !strcmp(a, "--ssh-agent")) {
			if ((r = confine_request_set_ssh_agent(o->req, true, err)) < 0)
				return r;
		} else if (cmd == CLI_RUN && opt_is(a, "--ssh-key", &v)) {
			VALUE();
#if defined(_WIN32) || defined(__APPLE__)
			return confine_error_set(err, CONFINE_E_INVALID,
						 "not available on this system", a,
						 "the ssh-agent filter is built for Linux only");
#endif
			if (o->n_ssh_keys == sizeof(o->ssh_keys) / sizeof(o->ssh_keys[0]))
				return confine_error_set(err, CONFINE_E_LIMIT, "too many keys", v,
							 "at most 32 --ssh-key");
			o->ssh_keys[o->n_ssh_keys++] = v;
		} else if (cmd == CLI_RUN && opt_is(a, "--secret", &v)) {
			VALUE();
			if ((r = confine_request_add_secret(o->req, v, err)) < 0)
				return r;
		} else if (cmd == CLI_RUN && opt_is(a, "--tls-inspect", &v)) {
			VALUE();
			if ((r = confine_request_tls_inspect(o->req, v, err)) < 0)
				return r;
		} else if (cmd == CLI_RUN && !strcmp(a, "--print-plan")) {
			o->print_plan = true;
		} else if ((cmd == CLI_RUN || cmd == CLI_CARD) && opt_is(a, "--audit", &v)) {
			VALUE();
			if (!*v)
				return confine_error_set(err, CONFINE_E_INVALID, "invalid --audit",
							 v, "expected a file name");
			o->audit = v;
		} else if ((cmd == CLI_RUN || cmd == CLI_CARD) && !strcmp(a, "--escalate")) {
			o->escalate = true;
			if ((r = confine_request_set_escalate(o->req, true, err)) < 0)
				return r;
		} else if (cmd == CLI_RUN && opt_is(a, "--receipt", &v)) {
			VALUE();
			if ((r = confine_request_set_receipt(o->req, v, err)) < 0)
				return r;
			o->receipt = true;
		} else if ((cmd == CLI_RUN || cmd == CLI_CARD) && opt_is(a, "--grant-write", &v)) {
			VALUE();
			if ((r = confine_request_add_write_grant(o->req, v, err)) < 0)
				return r;
			o->grants = true;
		} else if ((cmd == CLI_RUN || cmd == CLI_CARD) && opt_is(a, "--reason", &v)) {
			VALUE();
			if ((r = confine_request_set_grant_reason(o->req, v, err)) < 0)
				return r;
		} else if ((cmd == CLI_RUN || cmd == CLI_CARD) && opt_is(a, "--request-id", &v)) {
			VALUE();
			if ((r = confine_request_set_id(o->req, v, err)) < 0)
				return r;
		} else {
			return confine_error_set(err, CONFINE_E_INVALID, "unknown option", a,
						 "not an option of 'confine %s'", argv[0]);
		}
#undef VALUE
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
