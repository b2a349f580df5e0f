/* SPDX-License-Identifier: MIT */
/*
 * What the public entry points of abi.c call: each executor's own lists and fillers, which
 * keep the library's current struct layouts, while the entry points keep ABI v1's promises
 * (a caller's .size, one element at a time).  See include/confine.h, "ABI v1".
 */
#ifndef CONFINE_ABI_H
#define CONFINE_ABI_H

#include <stddef.h>

#include "confine.h"

/* Decides one access into `out` (all of it). */
int cf_rules_explain(const confine_rules *r, const char *path, enum confine_access access,
		     struct confine_decision *out, struct confine_error *err);

/* The run's lists, in the library's own layout; *n 0 and NULL when empty. */
const struct confine_event *cf_run_event_list(const confine_run *run, size_t *n);
const struct confine_event *cf_run_notice_list(const confine_run *run, size_t *n);
const struct confine_injection *cf_run_injection_list(const confine_run *run, size_t *n);

/* The probes, filling all of `result`. */
int cf_probe_bwrap(const char *path_env, const char *workspace, bool use_cache,
		   struct confine_probe_result *result, struct confine_error *err);
int cf_probe_landlock(struct confine_probe_result *result, struct confine_error *err);
int cf_probe_windows(struct confine_probe_result *result, struct confine_error *err);
int cf_probe_seatbelt(struct confine_probe_result *result, struct confine_error *err);

/* Decides "HOST[:PORT]" into `out` (all of it). */
int cf_rules_explain_net(const confine_rules *r, const char *host_port,
			 struct confine_net_decision *out, struct confine_error *err);

/* Copies what a caller's struct of `*(size_t *)out` bytes can hold of `full` (`full_size`
 * bytes, beginning with its size): refuses a size below `v1` (the struct's size in ABI v1),
 * zeroes the caller's bytes past full_size and sets the caller's size to the bytes filled.
 * `type` names the struct in the message. */
int cf_sized_out(void *out, size_t v1, const void *full, size_t full_size, const char *type,
		 struct confine_error *err);
/* Whether the caller's size field at `out` is at least `v1` (else err filled). */
int cf_sized_check(const void *out, size_t v1, const char *type, struct confine_error *err);

/* The bytes of `type` up to and including `member`: a struct's size in ABI v1 is this for its
 * last v1 member, whatever is added after it. */
#define CF_SIZE_THROUGH(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))

#endif
