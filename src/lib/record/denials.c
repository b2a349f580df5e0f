/* SPDX-License-Identifier: MIT */
/*
 * Paths in denial messages.  The formats seen in practice:
 *   cat: /home/u/.ssh/id_ed25519: Permission denied
 *   touch: cannot touch '/etc/x': Read-only file system          (also with ‘ ’ quotes)
 *   sh: 1: cannot create /w/.git/hooks/x: Read-only file system
 *   PermissionError: [Errno 13] Permission denied: '/home/u/.aws/credentials'
 *   /bin/sh: 1: cannot create /x: Permission denied                (the program comes first)
 * A path starts with '/' at the start of the line or after a blank, a quote, '(', '[', '=' or
 * ','.  After an opening quote it ends at the closing quote; otherwise at a blank, at ": ", at
 * a ':' that ends the line, or at a closing bracket, quote or comma.  A line that begins with a
 * path followed by ':' names the program there ("/bin/sh: ...") when it names another path
 * later: that first one is left out.
 */
#include <stdlib.h>
#include <string.h>

#include "record/denials.h"
#include "util/util.h"

static const char *const phrases[] = {"Permission denied", "Operation not permitted",
				      "Read-only file system"};

void cf_denials_release(struct cf_denials *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->path[i]);
	memset(d, 0, sizeof(*d));
}

static bool seen(const struct cf_denials *d, const char *p)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->path[i], p))
			return true;
	return false;
}

static void add(struct cf_denials *d, const char *s, size_t n, const char *says)
{
	if (d->n >= CF_DENIALS_MAX || n < 2 || n > 4095)
		return;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return; /* not a path anyone wrote on purpose */
	char *raw = cf_strndup(s, n), *p = raw ? cf_path_normalize(raw) : NULL;
	free(raw);
	if (!p) {
		d->oom = true;
		return;
	}
	if (!strcmp(p, "/") || seen(d, p)) {
		free(p);
		return;
	}
	d->says[d->n] = says;
	d->path[d->n++] = p;
}

/* The length of an opening quote at s (0: none): ' " ` or U+2018 / U+201C. */
static size_t open_quote(const char *s, size_t avail, const char **close)
{
	if (avail >= 1 && (*s == '\'' || *s == '"' || *s == '`')) {
		*close = *s == '`' ? "'" : *s == '"' ? "\"" : "'";
		return 1;
	}
	if (avail >= 3 && !memcmp(s, "\xE2\x80\x98", 3)) {
		*close = "\xE2\x80\x99";
		return 3;
	}
	if (avail >= 3 && !memcmp(s, "\xE2\x80\x9C", 3)) {
		*close = "\xE2\x80\x9D";
		return 3;
	}
	return 0;
}

/* Where a quoted path opened just before position i ends (its closing quote), or 0. */
static size_t quoted_before(const char *line, size_t i, const char **close)
{
	for (size_t q = 1; q <= 3 && q <= i; q++)
		if (open_quote(line + i - q, q, close) == q)
			return q;
	return 0;
}

static bool starts_path(const char *line, size_t i)
{
	if (line[i] != '/')
		return false;
	if (i == 0)
		return true;
	const char *close;
	char c = line[i - 1];
	return c == ' ' || c == '\t' || c == '(' || c == '[' || c == '=' || c == ',' ||
	       quoted_before(line, i, &close);
}

static size_t path_end(const char *line, size_t len, size_t i)
{
	const char *close = NULL;
	if (i > 0 && quoted_before(line, i, &close)) {
		const char *e = NULL;
		size_t cl = strlen(close);
		for (size_t j = i; j + cl <= len; j++)
			if (!memcmp(line + j, close, cl)) {
				e = line + j;
				break;
			}
		return e ? (size_t)(e - line) : len;
	}
	size_t j = i;
	for (; j < len; j++) {
		char c = line[j];
		if (c == ' ' || c == '\t' || c == ')' || c == ']' || c == ',' || c == '"' ||
		    c == '\'')
			break;
		if (c == ':' && (j + 1 == len || line[j + 1] == ' '))
			break;
	}
	return j;
}

void cf_denials_line(struct cf_denials *d, const char *line, size_t len)
{
	const char *says = NULL;
	for (size_t k = 0; k < sizeof(phrases) / sizeof(phrases[0]) && !says; k++) {
		size_t pl = strlen(phrases[k]);
		for (size_t j = 0; j + pl <= len && !says; j++)
			if (line[j] == phrases[k][0] && !memcmp(line + j, phrases[k], pl))
				says = phrases[k];
	}
	if (!says)
		return;
	size_t starts[16], ends[16], n = 0;
	for (size_t i = 0; i < len && n < 16; i++) {
		if (!starts_path(line, i))
			continue;
		size_t e = path_end(line, len, i);
		starts[n] = i;
		ends[n++] = e;
		i = e;
	}
	size_t first = 0;
	if (n > 1 && starts[0] == 0 && ends[0] < len && line[ends[0]] == ':')
		first = 1; /* "/bin/sh: 1: cannot create /x: ..." names the program first */
	for (size_t i = first; i < n; i++)
		add(d, line + starts[i], ends[i] - starts[i], says);
}

void cf_denials_feed(struct cf_denials *d, const char *buf, size_t n)
{
	while (n && d->n < CF_DENIALS_MAX) {
		const char *nl = memchr(buf, '\n', n);
		size_t take = nl ? (size_t)(nl - buf) : n;
		if (!d->overflow) {
			if (d->len + take <= sizeof(d->line)) {
				memcpy(d->line + d->len, buf, take);
				d->len += take;
			} else {
				d->overflow = true;
			}
		}
		if (!nl)
			return;
		if (!d->overflow)
			cf_denials_line(d, d->line, d->len);
		d->len = 0;
		d->overflow = false;
		buf += take + 1;
		n -= take + 1;
	}
}

void cf_denials_finish(struct cf_denials *d)
{
	if (!d->overflow && d->len && d->n < CF_DENIALS_MAX)
		cf_denials_line(d, d->line, d->len);
	d->len = 0;
	d->overflow = false;
}
