/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER: being written (seccomp filter). */
#include "exec/linux/harden.h"
#include "util/util.h"

bool cf_seccomp_available(void)
{
	return false;
}

int cf_seccomp_build_fd(int *fd_out, struct confine_error *err)
{
	return cf_err(err, CONFINE_E_OS, "cannot build seccomp filter", "", "not implemented yet");
}

const char *cf_seccomp_describe(void)
{
	return "";
}
