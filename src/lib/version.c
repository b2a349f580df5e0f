/* SPDX-License-Identifier: MIT */
/* The library as a whole, for a host (ABI v1, include/confine.h): which version runs, and the
 * deallocator of what it hands out.  Pure. */
#include <stdlib.h>

#include "config.h"
#include "confine.h"

const struct confine_version_info *confine_version(void)
{
	static const struct confine_version_info v = {
	    .size = sizeof(struct confine_version_info),
	    .major = CONFINE_VERSION_MAJOR,
	    .minor = CONFINE_VERSION_MINOR,
	    .micro = CONFINE_VERSION_MICRO,
	    .abi = CONFINE_ABI,
	    .text = CONFINE_VERSION_STRING,
	};
	return &v;
}

void confine_free(void *p)
{
	free(p);
}
