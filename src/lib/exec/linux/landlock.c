/* SPDX-License-Identifier: MIT */
/*
 * Landlock scoping (SPEC 3 R17): abstract unix sockets and signals stay inside the sandbox.
 *
 * This file is also linked into the static in-sandbox helper, which has neither util/error.c
 * nor any library beyond libc: it fills struct confine_error itself.  It relies only on the
 * kernel headers of Debian 12 (Linux 6.1), which predate Landlock scoping, so every newer
 * constant and field is defined here.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exec/linux/harden.h"
#include "host/kernel.h"

/* The Landlock system calls have the same number on every architecture but alpha. */
#include "util/linux_abi.h"

#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif

/* The first ABI with scoping (Linux 6.12). */
#define LANDLOCK_ABI_SCOPED 6

/* struct landlock_ruleset_attr as of ABI 6; Linux 6.1's header has only the first field.  The
 * kernel accepts a larger struct from an older caller and a smaller one from a newer caller as
 * long as the fields it does not know are zero. */
struct cf_landlock_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; /* ABI 4 */
	uint64_t scoped;	     /* ABI 6 */
};

static void fill(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src);
}

/* The helper has no util/error.c: the same first-failure-wins rule as cf_err_os, by hand. */
static int os_error(struct confine_error *err, const char *what, const char *syscall_name,
		    int os_errno)
{
	if (!err || err->code != 0)
		return CONFINE_E_OS;
	memset(err, 0, sizeof(*err));
	err->code = CONFINE_E_OS;
	err->os_errno = os_errno;
	fill(err->syscall, sizeof(err->syscall), syscall_name);
	fill(err->what, sizeof(err->what), what);
	fill(err->subject, sizeof(err->subject), "landlock");
	fill(err->reason, sizeof(err->reason), strerror(os_errno));
	return CONFINE_E_OS;
}

int cf_landlock_scope_self(struct confine_error *err)
{
	int abi = cf_landlock_abi();
	if (abi < LANDLOCK_ABI_SCOPED)
		return 0;

	/* Nothing of the file system or the network is handled: only scoping.  A ruleset that
	 * handles nothing at all would be refused with ENOMSG. */
	struct cf_landlock_ruleset_attr attr = {
	    .scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL,
	};
	int ruleset = -1;
	int rc;

	ruleset = (int)syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr), 0U);
	if (ruleset < 0)
		return os_error(err, "cannot create Landlock ruleset", "landlock_create_ruleset",
				errno);
	/* Without CAP_SYS_ADMIN, landlock_restrict_self requires no_new_privs. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		rc = os_error(err, "cannot set no_new_privs", "prctl", errno);
		goto out_ruleset;
	}
	if (syscall(__NR_landlock_restrict_self, ruleset, 0U) < 0) {
		rc =
		    os_error(err, "cannot apply Landlock scoping", "landlock_restrict_self", errno);
		goto out_ruleset;
	}
	rc = abi;
out_ruleset:
	close(ruleset);
	return rc;
}
