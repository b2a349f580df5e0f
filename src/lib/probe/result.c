/* SPDX-License-Identifier: MIT */
/* What both Linux probes fill the same way: see result.h. */
#include <stdio.h>
#include <string.h>

#include "host/kernel.h"
#include "probe/result.h"

#define SET(field, text) snprintf((field), sizeof(field), "%s", (text))

void cf_probe_result_begin(struct confine_probe_result *r, const char *backend)
{
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	SET(r->backend, backend);
	r->landlock_abi = cf_landlock_abi();
	r->seccomp = cf_seccomp_available();
	r->cgroup = cf_cgroup_available();
}

void cf_probe_result_none(struct confine_probe_result *r)
{
	SET(r->read_protection, "not provided");
	SET(r->write_protection, "not provided");
	SET(r->network_isolation, "not provided");
	SET(r->syscall_filter, "not provided");
	SET(r->process_scoping, "not provided");
	SET(r->resource_limits, "not provided");
	SET(r->network_by_domain, "not provided");
}
