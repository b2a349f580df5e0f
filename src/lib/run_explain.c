/* SPDX-License-Identifier: MIT */
/*
 * Explain (SPEC 9): the rule layers of a request loaded as a run loads them, and the decision
 * for one path or one host, with the rule that made it.  Touches the OS (the path is
 * canonicalized, nested repositories and hard links are looked at).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/canon.h"
#include "request.h"
#include "run_host.h"
#include "util/util.h"

struct confine_rules {
	confine_run run;
};

int confine_rules_load(const confine_request *req, confine_rules **out, struct confine_error *err)
{
	struct cf_strv copy = {0};
	const struct cf_strv *env;
	confine_run *run = NULL;
	int r;
	*out = NULL;
	if ((r = cf_run_base_env(req, &copy, &env, err)) < 0)
		goto out;
	if (!(run = cf_run_new(req))) {
		r = cf_nomem(err);
		goto out;
	}
	if ((r = cf_run_load_policy(run, req, env, err)) < 0)
		goto out;
	*out = (confine_rules *)run; /* a run with only its policy part filled */
	run = NULL;
out:
	confine_run_free(run);
	cf_strv_release(&copy);
	return r;
}

void confine_rules_free(confine_rules *p)
{
	confine_run_free((confine_run *)p);
}

static void copy_str(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "");
}

int cf_rules_explain(const confine_rules *pol, const char *path, enum confine_access access,
		     struct confine_decision *out, struct confine_error *err)
{
	const confine_run *run = (const confine_run *)pol;
	char *canon = NULL;
	int r;
	if (access != CONFINE_ACCESS_READ && access != CONFINE_ACCESS_WRITE)
		return cf_err(err, CONFINE_E_INVALID, "cannot explain", path,
			      "the access must be read or write");
	r = cf_host_canonicalize_arg(path, &canon, err);
	if (r < 0)
		return r;
	struct cf_decision rd, wr;
	cf_policy_decide_both(&run->policy_rules, canon, &rd, &wr);
	const struct cf_decision *dp = access == CONFINE_ACCESS_READ ? &rd : &wr;
	struct cf_decision d = *dp;
	/* A repository nested in the workspace: its guards come from the run's scan. */
	char *guard = NULL;
	struct cf_rule nested = {.source = "builtin", .layer = CF_LAYER_GUARD, .action = CF_ASK};
	if (access == CONFINE_ACCESS_WRITE && d.layer > CF_LAYER_GUARD && run->workspace &&
	    (r = cf_run_explain_git(run, canon, &guard, err)) < 0) {
		free(canon);
		return r;
	}
	if (guard) {
		/* As the workspace's own git guards are shown: relative to the workspace. */
		nested.path = guard;
		nested.pattern =
		    cf_path_within(guard, run->workspace) && strcmp(guard, run->workspace)
			? guard + strlen(run->workspace) + 1
			: guard;
		nested.index = (int)run->policy_rules.layers[CF_LAYER_GUARD].n;
		d = (struct cf_decision){
		    .action = CF_ASK, .layer = CF_LAYER_GUARD, .rule = &nested};
	}
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	copy_str(out->path, sizeof(out->path), canon);
	free(canon);
	out->access = access;
	out->action = (enum confine_action)cf_explain_action(&d);
	copy_str(out->layer, sizeof(out->layer), cf_layer_name(d.layer));
	if (d.rule) {
		out->has_rule = true;
		copy_str(out->source, sizeof(out->source), d.rule->source);
		copy_str(out->pattern, sizeof(out->pattern), d.rule->pattern);
		out->index = d.rule->index;
		out->line = d.rule->line;
		out->column = d.rule->column;
	}
	if (d.outranked) {
		out->has_outranked = true;
		copy_str(out->outranked_source, sizeof(out->outranked_source), d.outranked->source);
		copy_str(out->outranked_pattern, sizeof(out->outranked_pattern),
			 d.outranked->pattern);
		out->outranked_index = d.outranked->index;
		out->outranked_line = d.outranked->line;
		out->outranked_column = d.outranked->column;
	}
	free(guard);
	/* R37: a hard link of a protected file is protected like it at launch. */
	r = cf_run_explain_alias(run, out->path, access, out, err);
	return r < 0 ? r : 0;
}

static void net_decision_out(const struct cf_net_decision *d, const char *host, uint16_t port,
			     struct confine_net_decision *out)
{
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	copy_str(out->host, sizeof(out->host), host);
	out->port = port;
	out->action = (enum confine_action)d->action;
	copy_str(out->layer, sizeof(out->layer), cf_layer_name(d->layer));
	if (d->rule) {
		out->has_rule = true;
		copy_str(out->source, sizeof(out->source), d->rule->source);
		copy_str(out->pattern, sizeof(out->pattern), d->rule->pattern);
		copy_str(out->list, sizeof(out->list),
			 d->rule->action == CF_ALLOW ? "allow" : "deny");
		out->index = d->rule->index;
		out->line = d->rule->line;
		out->column = d->rule->column;
	}
}

int cf_rules_explain_net(const confine_rules *pol, const char *host_port,
			 struct confine_net_decision *out, struct confine_error *err)
{
	const confine_run *run = (const confine_run *)pol;
	/* The same syntax as a rule without '*.': HOST, HOST:PORT, an address, [V6]:PORT. */
	struct cf_net_rule q = {0};
	const char *why = host_port ? cf_net_pattern_parse(host_port, strlen(host_port), &q)
				    : "nothing to explain";
	if (!why && q.subdomains)
		why = "explain takes one name, not a '*.' pattern";
	if (!why && q.is_ip && q.bits != (q.ip.family == 4 ? 32u : 128u))
		why = "explain takes one address, not a range";
	if (why) {
		cf_err(err, CONFINE_E_INVALID, "cannot explain", host_port ? host_port : "", "%s",
		       why);
		cf_err_hint(err, "give a host such as github.com or github.com:22");
		return CONFINE_E_INVALID;
	}
	uint16_t port = q.port ? q.port : 443;
	struct cf_net_decision d;
	cf_net_decide(&run->net, q.host, q.is_ip ? &q.ip : NULL, port, &d);
	net_decision_out(&d, q.host, port, out);
	return 0;
}

enum confine_net_mode confine_rules_net_mode(const confine_rules *pol)
{
	return ((const confine_run *)pol)->net_mode;
}
