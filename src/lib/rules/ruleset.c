/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "rules/rules.h"
#include "util/util.h"

void cf_rule_release(struct cf_rule *r)
{
	free(r->pattern);
	free(r->path);
	free(r->source);
	memset(r, 0, sizeof(*r));
}

void cf_ruleset_release(struct cf_ruleset *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		cf_rule_release(&rs->v[i]);
	free(rs->v);
	memset(rs, 0, sizeof(*rs));
}

int cf_ruleset_add(struct cf_ruleset *rs, const struct cf_rule *r, struct confine_error *err)
{
	if (rs->n == rs->cap) {
		size_t cap;
		struct cf_rule *v = cf_grow_array(rs->v, rs->cap, 16, sizeof(*v), &cap);
		if (!v)
			return cf_nomem(err);
		rs->v = v;
		rs->cap = cap;
	}
	struct cf_rule c = *r;
	c.pattern = cf_strdup(r->pattern);
	c.path = cf_strdup(r->path);
	c.source = cf_strdup(r->source);
	if ((r->pattern && !c.pattern) || (r->path && !c.path) || (r->source && !c.source)) {
		cf_rule_release(&c);
		return cf_nomem(err);
	}
	rs->v[rs->n++] = c;
	return 0;
}

void cf_diags_release(struct cf_diags *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].file);
		free(d->v[i].pointer);
		free(d->v[i].message);
	}
	free(d->v);
	memset(d, 0, sizeof(*d));
}
