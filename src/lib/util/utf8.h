/* SPDX-License-Identifier: MIT */
/*
 * UTF-8 for records that leave confine (audit lines, reports, cards): argv and paths are bytes,
 * JSON strings are Unicode.  Pure.
 */
#ifndef CONFINE_UTF8_H
#define CONFINE_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decodes one UTF-8 sequence at s (at most `avail` bytes); returns its length, or 0 when the
 * bytes there are not a valid sequence (overlong forms, surrogates and code points above
 * U+10FFFF are invalid).  *cp gets the code point. */
size_t cf_utf8_next(const unsigned char *s, size_t avail, unsigned *cp);

/* True when s is valid UTF-8. */
bool cf_utf8_valid(const char *s);

/* A copy of s in which every byte that is not part of a valid UTF-8 sequence is replaced by
 * U+FFFD; NULL on out-of-memory. */
char *cf_utf8_lossy(const char *s);

/* The bytes of s as lower-case hexadecimal, two digits per byte; NULL on out-of-memory. */
char *cf_hex(const unsigned char *s, size_t n);

/* What confine_display_escape gives (util/display.c, R38), as a string: NULL on out-of-memory
 * (an unknown flag is the caller's error).  cf_display(s): flags 0, for showing a string to a
 * person on one line (cards, titles). */
char *cf_display_escape_n(const char *s, size_t n, unsigned flags);
char *cf_display_escape(const char *s, unsigned flags);
char *cf_display(const char *s);
/* Flags of confine's own (the public function refuses them).  CF_DISPLAY_BACKSLASH_RAW: a
 * backslash is shown as it is, where no name can hold one (a macOS profile's strings, R26).
 * CF_DISPLAY_WINDOWS: a backslash as it is too (the separator of a Windows path), and every
 * escape written as <U+XXXX> or <0xNN>: a Windows name can hold "\u{202E}" as text, never a
 * '<' or '>', so what is shown reads one way only. */
#define CF_DISPLAY_BACKSLASH_RAW 0x100u
#define CF_DISPLAY_ANGLE 0x200u
#define CF_DISPLAY_WINDOWS (CF_DISPLAY_BACKSLASH_RAW | CF_DISPLAY_ANGLE)

struct cf_buf;
struct cf_strv;
/* Appends s (its first n bytes) escaped for display, with no copy made; out of memory marks
 * b. */
void cf_buf_add_display(struct cf_buf *b, const char *s, unsigned flags);
void cf_buf_add_display_n(struct cf_buf *b, const char *s, size_t n, unsigned flags);
/* Appends `label`, then each string of v after a space, escaped for display (R38), in double
 * quotes and with quotes escaped too when `quoted`; no newline.  A plan's "command:" and
 * "environment removed:" lines, as the bwrap plan's text writes them. */
void cf_display_words(struct cf_buf *b, const char *label, const struct cf_strv *v, bool quoted);
/* Each string of v on a line of its own: `prefix`, the string escaped with `flags`, a newline
 * (a plan's notes and lists). */
void cf_display_lines(struct cf_buf *b, const char *prefix, const struct cf_strv *v,
		      unsigned flags);

#endif
