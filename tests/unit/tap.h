/* SPDX-License-Identifier: MIT */
/* A minimal TAP producer for unit tests: one `ok`/`not ok` line per check, a plan at the end,
 * exit status 1 when anything failed.  Header only. */
#ifndef CONFINE_TAP_H
#define CONFINE_TAP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

/* The condition is evaluated once: it may do I/O (read a file, call the code under test). */
#define TAP_OK(cond, ...)                                                                          \
	do {                                                                                       \
		int tap_c_ = !!(cond);                                                             \
		tap_n++;                                                                           \
		if (tap_c_) {                                                                      \
			printf("ok %d - ", tap_n);                                                 \
		} else {                                                                           \
			tap_failed++;                                                              \
			printf("not ok %d - ", tap_n);                                             \
		}                                                                                  \
		printf(__VA_ARGS__);                                                               \
		printf("\n");                                                                      \
		if (!tap_c_)                                                                       \
			printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__, #cond);            \
	} while (0)

#define TAP_STREQ(got, want, ...)                                                                  \
	do {                                                                                       \
		const char *tap_g_ = (got), *tap_w_ = (want);                                      \
		int tap_eq_ = (tap_g_ && tap_w_) ? strcmp(tap_g_, tap_w_) == 0 : tap_g_ == tap_w_; \
		TAP_OK(tap_eq_, __VA_ARGS__);                                                      \
		if (!tap_eq_)                                                                      \
			printf("#   got:  '%s'\n#   want: '%s'\n", tap_g_ ? tap_g_ : "(null)",     \
			       tap_w_ ? tap_w_ : "(null)");                                        \
	} while (0)

#define TAP_INTEQ(got, want, ...)                                                                  \
	do {                                                                                       \
		long tap_g_ = (long)(got), tap_w_ = (long)(want);                                  \
		TAP_OK(tap_g_ == tap_w_, __VA_ARGS__);                                             \
		if (tap_g_ != tap_w_)                                                              \
			printf("#   got:  %ld\n#   want: %ld\n", tap_g_, tap_w_);                  \
	} while (0)

/* A check that cannot run on this machine: a skip, but a failure when CONFINE_TEST_MUST_WORK=1
 * (CI), as the shell tests' `skip` does.  Every C test skips through this, never by printing
 * "# SKIP" itself (tests/cli/ci.t checks). */
static inline int tap_must_work(void)
{
	const char *m = getenv("CONFINE_TEST_MUST_WORK");
	return m && !strcmp(m, "1");
}

#define TAP_SKIP(...)                                                                              \
	do {                                                                                       \
		tap_n++;                                                                           \
		if (tap_must_work()) {                                                             \
			tap_failed++;                                                              \
			printf("not ok %d - skipped but CONFINE_TEST_MUST_WORK=1: ", tap_n);       \
		} else {                                                                           \
			printf("ok %d # SKIP ", tap_n);                                            \
		}                                                                                  \
		printf(__VA_ARGS__);                                                               \
		printf("\n");                                                                      \
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
