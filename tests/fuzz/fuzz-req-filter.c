/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the request filter of an inspected connection (R45).  The first byte picks the
 * size of the pieces the rest arrives in and whether it is a tunnel; the rest is what the
 * command sends to api.example.com, for which TOKEN is listed and OTHER is not.  Beyond memory
 * errors it checks the contract: OTHER's placeholder (in any case) never comes out, nor
 * OTHER's real value unless the input held it itself; once refused, the filter stays refused;
 * a refusal has a status.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/reqfilter.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

static const char PH[] = "confine-placeholder-0123456789abcdef0123456789abcdef";
static const char PH2[] = "confine-placeholder-fedcba9876543210fedcba9876543210";

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool has_ci(const char *hay, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++) {
		size_t j = 0;
		while (j < k && lower(hay[i + j]) == lower(needle[j]))
			j++;
		if (j == k)
			return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cf_secrets s;
	static bool ready;
	if (!ready) {
		struct cf_strv h = {0}, h2 = {0};
		cf_secrets_init(&s);
		cf_strv_add(&h, "api.example.com");
		cf_strv_add(&h2, "other.example.com");
		if (cf_secrets_add(&s, "TOKEN", "token-value", 11, PH, &h, NULL) ||
		    cf_secrets_add(&s, "OTHER", "other-secret-value", 18, PH2, &h2, NULL))
			abort();
		cf_strv_release(&h);
		cf_strv_release(&h2);
		ready = true;
	}
	s.n_events = 0; /* the record is not what is fuzzed */
	if (size < 1)
		return 0;
	size_t piece = (size_t)(data[0] >> 1) + 1;
	bool tunnel = data[0] & 1;
	struct cf_reqfilter f;
	struct cf_buf out;
	cf_reqfilter_init(&f, &s, "api.example.com", false, NULL, 443, tunnel, true);
	cf_buf_init(&out);
	bool refused = false;
	for (size_t i = 1; i < size; i += piece) {
		size_t k = size - i < piece ? size - i : piece;
		int r = cf_reqfilter_feed(&f, (const char *)data + i, k, &out);
		CHECK(!refused || r < 0);
		if (r < 0) {
			refused = true;
			CHECK(f.status >= 400 && f.status < 600 && f.why[0]);
		}
	}
	if (!out.oom) {
		CHECK(!has_ci(out.s ? out.s : "", out.len, PH2));
		CHECK(!memmem(out.s ? out.s : "", out.len, "other-secret-value", 18) ||
		      memmem(data, size, "other-secret-value", 18));
	}
	cf_buf_release(&out);
	cf_reqfilter_release(&f);
	return 0;
}
