/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "host/facts.h"
#include "util/util.h"
#include "host/matches.h"

void cf_matches_release(struct cf_matches *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	cf_strv_release(&m->skipped);
	for (size_t i = 0; i < m->n_pub; i++)
		free(m->pub[i].path);
	free(m->pub);
	memset(m, 0, sizeof(*m));
}

int cf_matches_add(struct cf_matches *m, const char *path, enum cf_kind kind, size_t rule)
{
	if (m->n == m->cap) {
		size_t cap;
		struct cf_match *v = cf_grow_array(m->v, m->cap, 16, sizeof(*v), &cap);
		if (!v)
			return CONFINE_E_NOMEM;
		m->v = v;
		m->cap = cap;
	}
	char *p = cf_strdup(path);
	if (!p)
		return CONFINE_E_NOMEM;
	m->v[m->n++] = (struct cf_match){.path = p, .kind = kind, .rule = rule};
	return 0;
}

const struct cf_public_match *cf_matches_public(const struct cf_matches *m, const char *path)
{
	size_t lo = 0, hi = m->n_pub;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(m->pub[mid].path, path);
		if (c == 0)
			return &m->pub[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
