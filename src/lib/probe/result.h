/* SPDX-License-Identifier: MIT */
/* What both Linux probes fill the same way in a probe result.  Touches the OS (the kernel's
 * answers, host/kernel.h). */
#ifndef CONFINE_PROBE_RESULT_H
#define CONFINE_PROBE_RESULT_H

#include "confine.h"

/* Zeroes r, sets its size and backend, and the kernel's answers: Landlock's ABI, seccomp and
 * cgroup delegation. */
void cf_probe_result_begin(struct confine_probe_result *r, const char *backend);

/* Every guarantee of r "not provided" (the backend does not work here). */
void cf_probe_result_none(struct confine_probe_result *r);

#endif
