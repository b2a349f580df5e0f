/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the git configuration parser and the filter of new repositories (R30 refined,
 * host/git_filter.c).  Input: configuration text.  Checks that the filter's output parses
 * cleanly, that filtering it again removes nothing and yields the same text (the output is
 * closed under the allow-list: nothing the filter writes is a key it would take out), and that
 * a parse never reads past the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/git.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

static int count(void *ctx, const char *section, const char *sub, const char *key,
		 const char *value)
{
	(void)section, (void)sub, (void)key, (void)value;
	++*(size_t *)ctx;
	return 0;
}

static bool inside(void *ctx, const char *value)
{
	(void)ctx;
	return value[0] != '/';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cf_gitconfig_policy pol = {.worktree_inside = inside};
	struct cf_buf out, again;
	struct cf_strv removed = {0}, removed2 = {0};
	size_t n = 0;
	cf_buf_init(&out);
	cf_buf_init(&again);
	(void)cf_gitconfig_parse((const char *)data, size, count, &n);
	int r = cf_gitconfig_filter((const char *)data, size, &pol, &out, &removed);
	CHECK(r == 0 || r == CONFINE_E_INVALID || r == CONFINE_E_NOMEM);
	if (r == 0 && out.s) {
		n = 0;
		CHECK(cf_gitconfig_parse(out.s, out.len, count, &n) == 0);
		CHECK(cf_gitconfig_filter(out.s, out.len, &pol, &again, &removed2) == 0);
		CHECK(removed2.n == 0);
		CHECK(again.len == out.len && !memcmp(again.s, out.s, out.len));
	}
	CHECK(removed.n <= CF_GITCONFIG_REMOVED_MAX + 1);
	cf_buf_release(&out);
	cf_buf_release(&again);
	cf_strv_release(&removed);
	cf_strv_release(&removed2);
	return 0;
}
