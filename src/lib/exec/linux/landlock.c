/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER: being written (Landlock scoping). */
#include "exec/linux/harden.h"

int cf_landlock_abi(void)
{
	return 0;
}

int cf_landlock_scope_self(struct confine_error *err)
{
	return 0;
}
