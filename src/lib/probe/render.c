/* SPDX-License-Identifier: MIT */
/*
 * A probe result as `confine probe` shows it (SPEC 3.2, R18): JSON for a program, text for a
 * person.  Each backend family has its own fields: the Linux ones (bwrap, landlock) their
 * guarantees and what they do not provide, Windows its token, macOS (seatbelt) what Seatbelt
 * does not enforce.  Pure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "plan/macos/sbpl.h"
#include "util/utf8.h"
#include "util/util.h"

static const char *yes(bool b)
{
	return b ? "true" : "false";
}

/* A JSON string, or null for an empty one. */
static void str_or_null(struct cf_buf *b, const char *s)
{
	if (s[0])
		cf_buf_add_json(b, s);
	else
		cf_buf_add(b, "null");
}

static void field(struct cf_buf *b, const char *name, const char *value)
{
	cf_buf_addf(b, ", \"%s\": ", name);
	cf_buf_add_json(b, value);
}

/* The guarantees every backend states, in one object. */
static void guarantees(struct cf_buf *b, const struct confine_probe_result *r, bool by_domain)
{
	cf_buf_add(b, ", \"guarantees\": {\"read_protection\": ");
	cf_buf_add_json(b, r->read_protection);
	field(b, "write_protection", r->write_protection);
	field(b, "network_isolation", r->network_isolation);
	field(b, "syscall_filter", r->syscall_filter);
	field(b, "process_scoping", r->process_scoping);
	field(b, "resource_limits", r->resource_limits);
	if (by_domain)
		field(b, "network_by_domain", r->network_by_domain);
	cf_buf_add(b, "}");
}

static void linux_json(struct cf_buf *b, const struct confine_probe_result *r)
{
	cf_buf_add(b, "{\"backend\": ");
	cf_buf_add_json(b, r->backend);
	cf_buf_addf(b, ", \"available\": %s, \"code\": ", yes(r->available));
	cf_buf_add_json(b, r->code);
	cf_buf_add(b, ", \"path\": ");
	str_or_null(b, r->path);
	cf_buf_add(b, ", \"version\": ");
	str_or_null(b, r->version);
	cf_buf_add(b, ", \"reason\": ");
	str_or_null(b, r->reason);
	cf_buf_add(b, ", \"hint\": ");
	str_or_null(b, r->hint);
	cf_buf_addf(b, ", \"cached\": %s, \"landlock_abi\": %d, \"seccomp\": %s, \"cgroup\": %s",
		    yes(r->cached), r->landlock_abi, yes(r->seccomp), yes(r->cgroup));
	guarantees(b, r, true);
	cf_buf_add(b, ", \"not_provided\": [");
	/* "; "-separated in the struct; an array here. */
	const char *p = r->not_provided;
	for (bool first = true; *p; first = false) {
		const char *end = strstr(p, "; ");
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char item[sizeof(r->not_provided)];
		snprintf(item, sizeof(item), "%.*s", (int)len, p);
		if (!first)
			cf_buf_add(b, ", ");
		cf_buf_add_json(b, item);
		p += len + (end ? 2 : 0);
	}
	cf_buf_add(b, "]}");
}

static void windows_json(struct cf_buf *b, const struct confine_probe_result *r)
{
	cf_buf_addf(b, "{\"backend\": \"%s\", \"available\": %s, \"code\": ", r->backend,
		    yes(r->available));
	cf_buf_add_json(b, r->code);
	field(b, "reason", r->reason);
	field(b, "hint", r->hint);
	guarantees(b, r, false);
	cf_buf_add(b, "}");
}

static void seatbelt_json(struct cf_buf *b, const struct confine_probe_result *r)
{
	cf_buf_add(b, "{\"backend\": ");
	cf_buf_add_json(b, r->backend);
	cf_buf_addf(b, ", \"available\": %s, \"code\": ", yes(r->available));
	cf_buf_add_json(b, r->code);
	field(b, "path", r->path);
	field(b, "reason", r->reason);
	field(b, "hint", r->hint);
	guarantees(b, r, false);
	cf_buf_add(b, ", \"not_enforced\": [");
	for (size_t i = 0; i < cf_mac_n_not_enforced; i++) {
		if (i)
			cf_buf_add(b, ", ");
		cf_buf_add_json(b, cf_mac_not_enforced[i]);
	}
	cf_buf_add(b, "]");
	field(b, "tested", cf_mac_tested);
	cf_buf_add(b, "}");
}

static void linux_text(struct cf_buf *b, const struct confine_probe_result *r)
{
	char *path = r->path[0] ? cf_display(r->path) : NULL;
	cf_buf_addf(b, "backend:            %s\n", r->backend);
	cf_buf_addf(b, "available:          %s\n", r->available ? "yes" : "no");
	cf_buf_addf(b, "code:               %s%s\n", r->code, r->cached ? " (cached)" : "");
	/* The path is the host's (R38); a failed escape is an allocation failure. */
	if (r->path[0] && !path)
		b->oom = true;
	cf_buf_addf(b, "path:               %s\n", path ? path : "-");
	cf_buf_addf(b, "version:            %s\n", r->version[0] ? r->version : "-");
	if (r->landlock_abi > 0)
		cf_buf_addf(b, "landlock:           ABI %d\n", r->landlock_abi);
	else
		cf_buf_add(b, "landlock:           unavailable\n");
	cf_buf_addf(b, "seccomp:            %s\n", r->seccomp ? "yes" : "no");
	cf_buf_addf(b, "cgroup:             %s\n", r->cgroup ? "yes" : "no");
	cf_buf_addf(b, "read protection:    %s\n", r->read_protection);
	cf_buf_addf(b, "write protection:   %s\n", r->write_protection);
	cf_buf_addf(b, "network isolation:  %s\n", r->network_isolation);
	cf_buf_addf(b, "syscall filter:     %s\n", r->syscall_filter);
	cf_buf_addf(b, "process scoping:    %s\n", r->process_scoping);
	cf_buf_addf(b, "resource limits:    %s\n", r->resource_limits);
	cf_buf_addf(b, "network by domain:  %s\n", r->network_by_domain);
	if (r->not_provided[0])
		cf_buf_addf(b, "not provided:       %s\n", r->not_provided);
	free(path);
}

static void windows_text(struct cf_buf *b, const struct confine_probe_result *r)
{
	cf_buf_addf(b, "windows: %s%s%s\n", r->code, r->reason[0] ? ": " : "", r->reason);
	cf_buf_addf(b, "  read protection: %s (reads are not protected on Windows)\n",
		    r->read_protection);
	cf_buf_addf(b, "  write protection: %s\n", r->write_protection);
	cf_buf_addf(b, "  network isolation: %s (the network is not restricted on Windows)\n",
		    r->network_isolation);
	cf_buf_addf(b, "  processes: %s\n", r->process_scoping);
	if (r->hint[0])
		cf_buf_addf(b, "hint: %s\n", r->hint);
}

static void seatbelt_text(struct cf_buf *b, const struct confine_probe_result *r)
{
	cf_buf_addf(b, "backend:            %s\n", r->backend);
	cf_buf_addf(b, "available:          %s\n", r->available ? "yes" : "no");
	cf_buf_addf(b, "code:               %s\n", r->code);
	cf_buf_addf(b, "path:               %s\n", r->path);
	cf_buf_addf(b, "read protection:    %s\n", r->read_protection);
	cf_buf_addf(b, "write protection:   %s\n", r->write_protection);
	cf_buf_addf(b, "network isolation:  %s\n", r->network_isolation);
	cf_buf_addf(b, "syscall filter:     %s\n", r->syscall_filter);
	cf_buf_addf(b, "process scoping:    %s\n", r->process_scoping);
	cf_buf_addf(b, "resource limits:    %s\n", r->resource_limits);
	cf_buf_add(b, "not enforced on macOS:\n");
	for (size_t i = 0; i < cf_mac_n_not_enforced; i++)
		cf_buf_addf(b, "  - %s\n", cf_mac_not_enforced[i]);
	cf_buf_addf(b, "tested:             %s\n", cf_mac_tested);
}

static int render(const struct confine_probe_result *r, bool json, char **out,
		  struct confine_error *err)
{
	struct cf_buf b;
	if (!out)
		return cf_err(err, CONFINE_E_INVALID, "invalid argument", "out", "out is NULL");
	*out = NULL;
	/* Only fields within the caller's .size are read. */
	int rc = cf_sized_check(r, CF_SIZE_THROUGH(struct confine_probe_result, network_by_domain),
				"struct confine_probe_result", err);
	if (rc < 0)
		return rc;
	cf_buf_init(&b);
	if (!strcmp(r->backend, "windows")) {
		if (json)
			windows_json(&b, r);
		else
			windows_text(&b, r);
	} else if (!strcmp(r->backend, "seatbelt")) {
		if (json)
			seatbelt_json(&b, r);
		else
			seatbelt_text(&b, r);
	} else if (json) {
		linux_json(&b, r);
	} else {
		linux_text(&b, r);
	}
	*out = cf_buf_take(&b);
	return *out ? 0 : cf_nomem(err);
}

int confine_probe_json(const struct confine_probe_result *result, char **out,
		       struct confine_error *err)
{
	return render(result, true, out, err);
}

int confine_probe_text(const struct confine_probe_result *result, char **out,
		       struct confine_error *err)
{
	return render(result, false, out, err);
}
