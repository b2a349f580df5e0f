/* SPDX-License-Identifier: MIT */
/* Running a helper program (bwrap --version, --help, the probe sandbox) with its output
 * captured and a time limit.  Touches the OS. */
#ifndef CONFINE_CAPTURE_H
#define CONFINE_CAPTURE_H

#include <stddef.h>

#include "confine.h"

/* Output of one bwrap invocation: stdout and stderr together, truncated to the buffer. */
struct cf_capture {
	char out[32768];
	size_t len;
	int status;	/* wait status */
	int exec_errno; /* errno of a failed execve, 0 when the exec succeeded */
};

enum { CF_RUN_DONE = 0, CF_RUN_TIMEOUT = 1 };

/* Runs argv[0] with stdout and stderr captured, killing its process group after timeout_ms.
 * Returns CF_RUN_DONE, CF_RUN_TIMEOUT or a negative code. */
int cf_run_capture(const char *const *argv, int timeout_ms, struct cf_capture *c,
		   struct confine_error *err);

#endif
