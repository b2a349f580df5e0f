/* SPDX-License-Identifier: MIT */
/*
 * What a person reads is what is there (R38): a string the command, the workspace or the
 * request chose is shown with every code point outside an allow-list of visibly printable
 * characters (util/display_table.c, generated from the Unicode data files) as an escape.  An
 * allow-list and not a list of dangerous characters: a control, a format character, a filler,
 * a variation selector, a tag character, a bidirectional control, a space that is not U+0020,
 * a code point assigned after the table was made -- all are escaped without being named.
 * Pure.
 */
#include <stdlib.h>
#include <string.h>

#include "util/display_table.h"
#include "util/utf8.h"
#include "util/util.h"

static bool visible(uint32_t cp)
{
	size_t lo = 0, hi = cf_display_visible_n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cp < cf_display_visible[mid].lo)
			hi = mid;
		else if (cp > cf_display_visible[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

/* s escaped for display, appended to b (which marks out of memory itself). */
static void escape_into(struct cf_buf *b, const char *s, size_t n, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	if (!s)
		n = 0;
	for (size_t i = 0; i < n;) {
		unsigned cp;
		size_t k = cf_utf8_next(p + i, n - i, &cp);
		bool angle = flags & CF_DISPLAY_ANGLE;
		if (!k) {
			/* Not UTF-8: the byte itself, never a code point. */
			cf_buf_addf(b, angle ? "<0x%02x>" : "\\x%02x", p[i]);
			i++;
			continue;
		}
		if (cp == '\\' && (flags & CF_DISPLAY_BACKSLASH_RAW))
			cf_buf_addc(b, '\\');
		else if (cp == '\\')
			cf_buf_add(b, "\\\\");
		else if ((flags & CONFINE_DISPLAY_QUOTES) && (cp == '\'' || cp == '"'))
			cf_buf_addf(b, "\\%c", (char)cp);
		else if (cp < 0x80 && visible(cp))
			cf_buf_addc(b, (char)cp);
		else if (cp < 0x80)
			cf_buf_addf(b, angle ? "<0x%02x>" : "\\x%02x", cp);
		else if (visible(cp) && !(flags & CONFINE_DISPLAY_ASCII))
			cf_buf_addn(b, (const char *)p + i, k);
		else
			cf_buf_addf(b, angle ? "<U+%04X>" : "\\u{%04X}", cp);
		i += k;
	}
}

char *cf_display_escape_n(const char *s, size_t n, unsigned flags)
{
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_addn(&b, "", 0);
	escape_into(&b, s, n, flags);
	return cf_buf_take(&b);
}

char *cf_display_escape(const char *s, unsigned flags)
{
	return cf_display_escape_n(s, s ? strlen(s) : 0, flags);
}

char *cf_display(const char *s)
{
	return cf_display_escape(s, 0);
}

void cf_buf_add_display(struct cf_buf *b, const char *s, unsigned flags)
{
	escape_into(b, s, s ? strlen(s) : 0, flags);
}

void cf_buf_add_display_n(struct cf_buf *b, const char *s, size_t n, unsigned flags)
{
	escape_into(b, s, n, flags);
}

void cf_display_words(struct cf_buf *b, const char *label, const struct cf_strv *v, bool quoted)
{
	cf_buf_add(b, label);
	for (size_t i = 0; i < v->n; i++) {
		cf_buf_add(b, quoted ? " \"" : " ");
		escape_into(b, v->v[i], strlen(v->v[i]), quoted ? CONFINE_DISPLAY_QUOTES : 0);
		if (quoted)
			cf_buf_addc(b, '"');
	}
}

void cf_display_lines(struct cf_buf *b, const char *prefix, const struct cf_strv *v, unsigned flags)
{
	for (size_t i = 0; i < v->n; i++) {
		cf_buf_add(b, prefix);
		escape_into(b, v->v[i], strlen(v->v[i]), flags);
		cf_buf_addc(b, '\n');
	}
}

int confine_display_escape_n(const char *s, size_t len, unsigned flags, char **out,
			     struct confine_error *err)
{
	if (!out)
		return cf_err(err, CONFINE_E_INVALID, "cannot escape for display", "",
			      "no place for the result (out is NULL)");
	*out = NULL;
	if (flags & ~(unsigned)(CONFINE_DISPLAY_QUOTES | CONFINE_DISPLAY_ASCII))
		return cf_err(err, CONFINE_E_INVALID, "cannot escape for display", "flags",
			      "0x%x holds a flag outside enum confine_display_flags", flags);
	*out = cf_display_escape_n(s, len, flags);
	return *out ? 0 : cf_nomem(err);
}

int confine_display_escape(const char *s, unsigned flags, char **out, struct confine_error *err)
{
	return confine_display_escape_n(s, s ? strlen(s) : 0, flags, out, err);
}
