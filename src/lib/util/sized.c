/* SPDX-License-Identifier: MIT */
/* Structs that carry their size (ABI v1, include/confine.h): filling a caller's struct only as
 * far as its .size says (abi.h).  Pure. */
#include <string.h>

#include "abi.h"
#include "util/util.h"

int cf_sized_check(const void *out, size_t v1, const char *type, struct confine_error *err)
{
	size_t want;
	if (!out)
		return cf_err(err, CONFINE_E_INVALID, "invalid argument", type,
			      "the struct to fill is NULL");
	memcpy(&want, out, sizeof(want));
	if (want < v1) {
		cf_err(err, CONFINE_E_INVALID, "invalid argument", type,
		       "its size field is %zu, less than the %zu bytes of ABI v1", want, v1);
		cf_err_hint(err, "set .size = sizeof(%s) before the call", type);
		return CONFINE_E_INVALID;
	}
	return 0;
}

int cf_sized_out(void *out, size_t v1, const void *full, size_t full_size, const char *type,
		 struct confine_error *err)
{
	size_t want;
	int r = cf_sized_check(out, v1, type, err);
	if (r < 0)
		return r;
	memcpy(&want, out, sizeof(want));
	size_t n = want < full_size ? want : full_size;
	memcpy((char *)out + sizeof(size_t), (const char *)full + sizeof(size_t),
	       n - sizeof(size_t));
	/* A caller built with a newer header: what this library does not know reads as zero. */
	if (want > full_size)
		memset((char *)out + full_size, 0, want - full_size);
	memcpy(out, &n, sizeof(n));
	return 0;
}
