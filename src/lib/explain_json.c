/* SPDX-License-Identifier: MIT */
/* A decision of explain (R11) as `confine explain --json` lists it.  Pure. */
#include <stdlib.h>

#include "abi.h"
#include "util/util.h"

static const char *action_name(enum confine_action a)
{
	return a == CONFINE_ALLOW ? "allow" : a == CONFINE_ASK ? "ask" : "deny";
}

static const char *mode_name(enum confine_net_mode m)
{
	return m == CONFINE_NET_DOMAINS ? "domains" : m == CONFINE_NET_OFF ? "off" : "on";
}

static int done(struct cf_buf *b, char **out, struct confine_error *err)
{
	*out = cf_buf_take(b);
	return *out ? 0 : cf_nomem(err);
}

int confine_decision_json(const struct confine_decision *d, char **out, struct confine_error *err)
{
	struct cf_buf b;
	if (!out)
		return cf_err(err, CONFINE_E_INVALID, "invalid argument", "out", "out is NULL");
	*out = NULL;
	int r = cf_sized_check(d, CF_SIZE_THROUGH(struct confine_decision, outranked_pattern),
			       "struct confine_decision", err);
	if (r < 0)
		return r;
	cf_buf_init(&b);
	cf_buf_add(&b, "{\"path\": ");
	cf_buf_add_json(&b, d->path);
	cf_buf_addf(&b, ", \"access\": \"%s\", \"decision\": \"%s\", \"layer\": ",
		    d->access == CONFINE_ACCESS_READ ? "read" : "write", action_name(d->action));
	cf_buf_add_json(&b, d->layer);
	cf_buf_add(&b, ", \"rule\": ");
	if (!d->has_rule) {
		cf_buf_add(&b, "null}");
		return done(&b, out, err);
	}
	cf_buf_add(&b, "{\"source\": ");
	cf_buf_add_json(&b, d->source);
	cf_buf_addf(&b, ", \"index\": %d, \"line\": %d, \"pattern\": ", d->index, d->line);
	cf_buf_add_json(&b, d->pattern);
	cf_buf_add(&b, "}");
	if (d->has_outranked) {
		cf_buf_add(&b, ", \"outranked\": {\"layer\": \"workspace\", \"source\": ");
		cf_buf_add_json(&b, d->outranked_source);
		cf_buf_addf(&b, ", \"index\": %d, \"line\": %d, \"pattern\": ", d->outranked_index,
			    d->outranked_line);
		cf_buf_add_json(&b, d->outranked_pattern);
		cf_buf_add(&b, "}");
	}
	cf_buf_add(&b, "}");
	return done(&b, out, err);
}

int confine_net_decision_json(const struct confine_net_decision *d, enum confine_net_mode mode,
			      char **out, struct confine_error *err)
{
	struct cf_buf b;
	if (!out)
		return cf_err(err, CONFINE_E_INVALID, "invalid argument", "out", "out is NULL");
	*out = NULL;
	int r = cf_sized_check(d, CF_SIZE_THROUGH(struct confine_net_decision, pattern),
			       "struct confine_net_decision", err);
	if (r < 0)
		return r;
	cf_buf_init(&b);
	cf_buf_add(&b, "{\"network\": ");
	cf_buf_add_json(&b, d->host);
	cf_buf_addf(&b, ", \"port\": %u, \"decision\": \"%s\", \"layer\": ", d->port,
		    action_name(d->action));
	cf_buf_add_json(&b, d->layer);
	cf_buf_addf(&b, ", \"mode\": \"%s\", \"rule\": ", mode_name(mode));
	if (!d->has_rule) {
		cf_buf_add(&b, "null}");
		return done(&b, out, err);
	}
	cf_buf_add(&b, "{\"source\": ");
	cf_buf_add_json(&b, d->source);
	cf_buf_add(&b, ", \"list\": ");
	cf_buf_add_json(&b, d->list);
	cf_buf_addf(&b, ", \"index\": %d, \"line\": %d, \"column\": %d, \"pattern\": ", d->index,
		    d->line, d->column);
	cf_buf_add_json(&b, d->pattern);
	cf_buf_add(&b, "}}");
	return done(&b, out, err);
}
