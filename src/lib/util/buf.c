/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

void cf_buf_init(struct cf_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void cf_buf_release(struct cf_buf *b)
{
	free(b->s);
	cf_buf_init(b);
}

void *cf_grow_array(void *p, size_t cap, size_t first, size_t size, size_t *new_cap)
{
	size_t n = cap ? cap : first;
	if (cap && n > SIZE_MAX / 2)
		n = 0;
	else if (cap)
		n *= 2;
	if (!n || !size || n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	void *v = realloc(p, n * size);
	if (v)
		*new_cap = n;
	return v;
}

static bool reserve(struct cf_buf *b, size_t more)
{
	if (b->oom)
		return false;
	/* len + more + 1 without wrapping round (a length near SIZE_MAX is out of memory). */
	if (more > SIZE_MAX - 1 - b->len) {
		b->oom = true;
		return false;
	}
	size_t need = b->len + more + 1;
	if (need <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need) {
		if (cap > SIZE_MAX / 2) {
			b->oom = true;
			return false;
		}
		cap *= 2;
	}
	char *s = realloc(b->s, cap);
	if (!s) {
		b->oom = true;
		return false;
	}
	b->s = s;
	b->cap = cap;
	return true;
}

void cf_buf_addn(struct cf_buf *b, const char *s, size_t n)
{
	if (!reserve(b, n))
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void cf_buf_add(struct cf_buf *b, const char *s)
{
	cf_buf_addn(b, s, strlen(s));
}

void cf_buf_addc(struct cf_buf *b, char c)
{
	cf_buf_addn(b, &c, 1);
}

void cf_buf_addf(struct cf_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void cf_buf_add_json(struct cf_buf *b, const char *s)
{
	cf_buf_addc(b, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			cf_buf_add(b, "\\\"");
			break;
		case '\\':
			cf_buf_add(b, "\\\\");
			break;
		case '\n':
			cf_buf_add(b, "\\n");
			break;
		case '\t':
			cf_buf_add(b, "\\t");
			break;
		case '\r':
			cf_buf_add(b, "\\r");
			break;
		default:
			if (*p < 0x20)
				cf_buf_addf(b, "\\u%04x", *p);
			else
				cf_buf_addc(b, (char)*p);
		}
	}
	cf_buf_addc(b, '"');
}

char *cf_buf_take(struct cf_buf *b)
{
	if (b->oom) {
		cf_buf_release(b);
		return NULL;
	}
	char *s = b->s ? b->s : cf_strdup("");
	cf_buf_init(b);
	return s;
}

char *cf_strdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

char *cf_strndup(const char *s, size_t n)
{
	/* strndup is POSIX, not C17: the Windows C runtime has none. */
	size_t len = 0;
	while (len < n && s[len])
		len++;
	char *d = malloc(len + 1);
	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

char *cf_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

void cf_strv_release(struct cf_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	memset(sv, 0, sizeof(*sv));
}

int cf_strv_take(struct cf_strv *sv, char *s)
{
	if (!s)
		return -1;
	if (sv->n + 1 >= sv->cap) {
		size_t cap;
		char **v = cf_grow_array(sv->v, sv->cap, 8, sizeof(*v), &cap);
		if (!v) {
			free(s);
			return -1;
		}
		sv->v = v;
		sv->cap = cap;
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
	return 0;
}

int cf_strv_add(struct cf_strv *sv, const char *s)
{
	return cf_strv_take(sv, cf_strdup(s));
}

bool cf_strv_contains(const struct cf_strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return true;
	return false;
}

const char *cf_strv_env(const struct cf_strv *env, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; env && i < env->n; i++)
		if (!strncmp(env->v[i], name, n) && env->v[i][n] == '=')
			return env->v[i] + n + 1;
	return NULL;
}
