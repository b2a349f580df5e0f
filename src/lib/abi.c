/* SPDX-License-Identifier: MIT */
/*
 * The public entry points that keep ABI v1's promises about structs (include/confine.h): a
 * struct the caller passes is filled only as far as its .size says, and a list is handed out
 * one element at a time, so that a struct that grows at its end breaks no caller built before.
 * The executors keep filling the library's own, current layout (abi.h).
 */
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "util/util.h"

#define DECISION_V1 CF_SIZE_THROUGH(struct confine_decision, outranked_pattern)
#define PROBE_V1 CF_SIZE_THROUGH(struct confine_probe_result, network_by_domain)

int confine_rules_explain(const confine_rules *r, const char *path, enum confine_access access,
			  struct confine_decision *out, struct confine_error *err)
{
	int rc = cf_sized_check(out, DECISION_V1, "struct confine_decision", err);
	struct confine_decision *full = rc == 0 ? calloc(1, sizeof(*full)) : NULL;
	if (rc < 0)
		return rc;
	if (!full)
		return cf_nomem(err);
	full->size = sizeof(*full);
	rc = cf_rules_explain(r, path, access, full, err);
	if (rc == 0)
		rc = cf_sized_out(out, DECISION_V1, full, sizeof(*full), "struct confine_decision",
				  err);
	free(full);
	return rc;
}

/* A probe into a full result, then as much of it as the caller's struct holds. */
#define PROBE_INTO(out, call)                                                                      \
	do {                                                                                       \
		int rc_ = cf_sized_check(out, PROBE_V1, "struct confine_probe_result", err);       \
		if (rc_ < 0)                                                                       \
			return rc_;                                                                \
		struct confine_probe_result full_ = {.size = sizeof(full_)};                       \
		struct confine_probe_result *res_ = &full_;                                        \
		if ((rc_ = (call)) == 0)                                                           \
			rc_ = cf_sized_out(out, PROBE_V1, &full_, sizeof(full_),                   \
					   "struct confine_probe_result", err);                    \
		return rc_;                                                                        \
	} while (0)

#if defined(_WIN32)
int confine_probe_windows(struct confine_probe_result *result, struct confine_error *err)
{
	PROBE_INTO(result, cf_probe_windows(res_, err));
}
#elif defined(__APPLE__)
int confine_probe_seatbelt(struct confine_probe_result *result, struct confine_error *err)
{
	PROBE_INTO(result, cf_probe_seatbelt(res_, err));
}
#else
int confine_probe_bwrap(const char *path_env, const char *workspace, bool use_cache,
			struct confine_probe_result *result, struct confine_error *err)
{
	PROBE_INTO(result, cf_probe_bwrap(path_env, workspace, use_cache, res_, err));
}

int confine_probe_landlock(struct confine_probe_result *result, struct confine_error *err)
{
	PROBE_INTO(result, cf_probe_landlock(res_, err));
}

#define NET_DECISION_V1 CF_SIZE_THROUGH(struct confine_net_decision, pattern)

int confine_rules_explain_net(const confine_rules *r, const char *host_port,
			      struct confine_net_decision *out, struct confine_error *err)
{
	int rc = cf_sized_check(out, NET_DECISION_V1, "struct confine_net_decision", err);
	if (rc < 0)
		return rc;
	struct confine_net_decision full = {.size = sizeof(full)};
	if ((rc = cf_rules_explain_net(r, host_port, &full, err)) == 0)
		rc = cf_sized_out(out, NET_DECISION_V1, &full, sizeof(full),
				  "struct confine_net_decision", err);
	return rc;
}
#endif

size_t confine_run_event_count(const confine_run *run)
{
	size_t n = 0;
	if (run)
		cf_run_event_list(run, &n);
	return n;
}

const struct confine_event *confine_run_event(const confine_run *run, size_t i)
{
	size_t n = 0;
	const struct confine_event *v = run ? cf_run_event_list(run, &n) : NULL;
	return i < n ? &v[i] : NULL;
}

size_t confine_run_notice_count(const confine_run *run)
{
	size_t n = 0;
	if (run)
		cf_run_notice_list(run, &n);
	return n;
}

const struct confine_event *confine_run_notice(const confine_run *run, size_t i)
{
	size_t n = 0;
	const struct confine_event *v = run ? cf_run_notice_list(run, &n) : NULL;
	return i < n ? &v[i] : NULL;
}

#if !defined(__APPLE__)
size_t confine_run_injection_count(const confine_run *run)
{
	size_t n = 0;
	if (run)
		cf_run_injection_list(run, &n);
	return n;
}

const struct confine_injection *confine_run_injection(const confine_run *run, size_t i)
{
	size_t n = 0;
	const struct confine_injection *v = run ? cf_run_injection_list(run, &n) : NULL;
	return i < n ? &v[i] : NULL;
}
#endif
