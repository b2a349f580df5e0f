/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the classifier of R40 (host/certclass.c), which reads files the workspace
 * chose: any bytes must classify without reading out of bounds, and only a classification of
 * certificates may come with the reason "certificates only" or "a DER certificate".
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/certclass.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly `size` bytes, so that AddressSanitizer sees a read past the end. */
	unsigned char *buf = malloc(size ? size : 1);
	if (!buf)
		abort();
	memcpy(buf, data, size);
	const char *why = NULL;
	enum cf_content c = cf_cert_classify(buf, size, &why);
	if (!why || (c != CF_CONTENT_CERTS && c != CF_CONTENT_KEY && c != CF_CONTENT_UNKNOWN))
		abort();
	bool says_cert = !strcmp(why, "certificates only") || !strcmp(why, "a DER certificate");
	if (says_cert != (c == CF_CONTENT_CERTS))
		abort();
	free(buf);
	return 0;
}
