/* SPDX-License-Identifier: MIT */
/*
 * Building the JSON records that leave confine (report, audit line, card) with jansson, one
 * line per field: every setter notes out-of-memory in the object instead of failing, so the
 * writer checks once at the end.
 *
 * Strings are bytes on Unix and JSON strings are Unicode.  A string that is not valid UTF-8 is
 * written with U+FFFD for each byte that is not part of a valid sequence, and the exact bytes
 * go beside it as hexadecimal under the same key with "_hex" appended ("argv" and
 * "argv_hex", "cwd" and "cwd_hex"); for an array the "_hex" array has one entry per element
 * (null for the elements that were valid).  Valid strings get no "_hex".
 */
#ifndef CONFINE_RECORD_JSON_H
#define CONFINE_RECORD_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct cf_jobj {
	json_t *o;
	bool oom;
};

/* A new object (check j->oom). */
void cf_jobj_init(struct cf_jobj *j);
/* Takes the object: a compact one-line text (caller frees), or NULL on out-of-memory; the
 * object is released either way. */
char *cf_jobj_dump(struct cf_jobj *j);
void cf_jobj_release(struct cf_jobj *j);

void cf_jput(struct cf_jobj *j, const char *key, json_t *v);	     /* steals v; NULL is oom */
void cf_jput_str(struct cf_jobj *j, const char *key, const char *s); /* NULL: null */
void cf_jput_strv(struct cf_jobj *j, const char *key, char *const *v, size_t n);
void cf_jput_int(struct cf_jobj *j, const char *key, long long v);
void cf_jput_bool(struct cf_jobj *j, const char *key, bool v);
void cf_jput_null(struct cf_jobj *j, const char *key);
/* A nested object: fill `child` (cf_jobj_init), then cf_jput_obj moves it into j. */
void cf_jput_obj(struct cf_jobj *j, const char *key, struct cf_jobj *child);
/* A JSON string for s (valid UTF-8 kept, invalid bytes as U+FFFD); NULL on oom. */
json_t *cf_jstr(const char *s);

#endif
