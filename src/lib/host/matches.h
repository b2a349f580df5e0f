/* SPDX-License-Identifier: MIT */
/* The glob scan's matches (struct cf_matches, host/facts.h): adding one, releasing them. */
#ifndef CONFINE_HOST_MATCHES_H
#define CONFINE_HOST_MATCHES_H

#include "host/facts.h"

void cf_matches_release(struct cf_matches *m);
/* 0, or CONFINE_E_NOMEM (m unchanged). */
int cf_matches_add(struct cf_matches *m, const char *path, enum cf_kind kind, size_t rule);
/* The public match of `path` (R40), or NULL.  Pure. */
const struct cf_public_match *cf_matches_public(const struct cf_matches *m, const char *path);

#endif
