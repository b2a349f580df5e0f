/* SPDX-License-Identifier: MIT */
/* Small helpers shared by every stage: errors, growable strings, string lists, paths.
 * Pure: no OS headers beyond the C library. */
#ifndef CONFINE_UTIL_H
#define CONFINE_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "confine.h"

/* printf-style checks: MinGW's own stdio (__USE_MINGW_ANSI_STDIO) follows C99 (%zu), which GCC
 * calls gnu_printf there; plain "printf" would mean the Windows C runtime's dialect. */
#ifdef __MINGW32__
#define CF_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#else
#define CF_PRINTF(f, a) __attribute__((format(printf, f, a)))
#endif

/* Fills err when it is non-NULL and still empty (the first failure wins); returns code. */
int cf_err(struct confine_error *err, int code, const char *what, const char *subject,
	   const char *fmt, ...) CF_PRINTF(5, 6);
/* Like cf_err, recording the failing system call and errno (reason = strerror). */
int cf_err_os(struct confine_error *err, int code, const char *what, const char *subject,
	      const char *syscall, int os_errno);
/* Sets the hint of an error that is already filled. */
void cf_err_hint(struct confine_error *err, const char *fmt, ...) CF_PRINTF(2, 3);
/* Where os_errno says the process or the system ran out of descriptors (EMFILE, ENFILE): that
 * cause as the reason's end and the hint (cf_err_os does it for every system call). */
void cf_err_os_cause(struct confine_error *err, int os_errno);
int cf_nomem(struct confine_error *err);
/* Copies `mine` (the failure one public call made in a struct of its own) into the caller's
 * err when err is not NULL and still empty: the first failure wins, and two failures are never
 * mixed (an earlier one's code with this one's hint).  Returns mine->code. */
int cf_err_publish(struct confine_error *err, const struct confine_error *mine);

/* Growable NUL-terminated string.  On allocation failure `oom` becomes true and later appends
 * do nothing, so callers check once at the end. */
struct cf_buf {
	char *s;
	size_t len, cap;
	bool oom;
};
void cf_buf_init(struct cf_buf *b);
void cf_buf_release(struct cf_buf *b);
void cf_buf_add(struct cf_buf *b, const char *s);
void cf_buf_addn(struct cf_buf *b, const char *s, size_t n);
void cf_buf_addc(struct cf_buf *b, char c);
void cf_buf_addf(struct cf_buf *b, const char *fmt, ...) CF_PRINTF(2, 3);
/* Appends s as a JSON string literal, quotes included. */
void cf_buf_add_json(struct cf_buf *b, const char *s);
/* Hands the string to the caller (NULL on oom) and resets b. */
char *cf_buf_take(struct cf_buf *b);

/* A list of owned strings. */
struct cf_strv {
	char **v;
	size_t n, cap;
};
void cf_strv_release(struct cf_strv *sv);
int cf_strv_add(struct cf_strv *sv, const char *s); /* copies; 0 or -ENOMEM-style -1 */
int cf_strv_take(struct cf_strv *sv, char *s);	    /* takes ownership; frees s on failure */
bool cf_strv_contains(const struct cf_strv *sv, const char *s);
/* The value of NAME in an environment of NAME=VALUE strings (the first), NULL when unset or
 * env is NULL; "" when set empty. */
const char *cf_strv_env(const struct cf_strv *env, const char *name);

/* Growth of an array of `size`-byte elements that holds `cap` (0: none yet, then `first`):
 * realloc to twice as many, with every product checked -- the new capacity and its size in
 * bytes fit in size_t, or NULL (errno ENOMEM) and `p` unchanged.  *new_cap gets the capacity
 * of the returned array. */
void *cf_grow_array(void *p, size_t cap, size_t first, size_t size, size_t *new_cap);

char *cf_strdup(const char *s);
char *cf_strndup(const char *s, size_t n);
char *cf_asprintf(const char *fmt, ...) CF_PRINTF(1, 2);

/* Paths.  All of these are lexical: they never touch the file system. */

/* Normalises an absolute path lexically: collapses "//", removes "." and trailing "/",
 * resolves ".." (above "/" stays "/").  Returns a new string or NULL on oom. */
char *cf_path_normalize(const char *path);
/* dir + "/" + rel, normalised.  rel may be absolute (then dir is ignored). */
char *cf_path_join(const char *dir, const char *rel);
/* True when path equals dir or lies below it, on component boundaries. */
bool cf_path_within(const char *path, const char *dir);
/* Component-wise ordering where a parent sorts before its children. */
int cf_path_cmp(const char *a, const char *b);
/* Number of components ("/" is 0, "/a/b" is 2). */
int cf_path_depth(const char *path);
/* Newly allocated parent directory ("/" for "/a"). */
char *cf_path_dirname(const char *path);

/* Case-insensitive shell-style match of `*` and `?` only, used for environment patterns. */
bool cf_wildcard_match_ci(const char *pattern, const char *text);
/* Case-sensitive variant. */
bool cf_wildcard_match(const char *pattern, const char *text);

/* The value of the hexadecimal digit c (either case), or -1. */
static inline int cf_hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
