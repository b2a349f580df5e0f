/* SPDX-License-Identifier: MIT */
/*
 * A minimal JSON scanner that only records where values start.  It does not validate: it runs
 * after jansson accepted the same bytes, and on anything unexpected it simply stops, so a
 * position can be missing but never wrong.  Recursion is bounded by max_depth; deeper values
 * are skipped with a flat bracket counter.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules/jsonpos.h"
#include "util/util.h"

struct scanner {
	const char *s;
	size_t len, pos;
	int line, col; /* col: characters consumed on this line */
	int max_depth;
	size_t max_index;
	struct cf_jsonpos *idx;
	bool oom, bad;
};

static void adv(struct scanner *sc)
{
	unsigned char c = (unsigned char)sc->s[sc->pos++];
	if (c == '\n') {
		sc->line++;
		sc->col = 0;
	} else if ((c & 0xC0) != 0x80) {
		sc->col++; /* count UTF-8 lead bytes only: columns are characters */
	}
}

static int peek(const struct scanner *sc)
{
	return sc->pos < sc->len ? (unsigned char)sc->s[sc->pos] : -1;
}

static void ws(struct scanner *sc)
{
	for (int c = peek(sc); c == ' ' || c == '\t' || c == '\n' || c == '\r'; c = peek(sc))
		adv(sc);
}

static bool expect(struct scanner *sc, char c)
{
	if (peek(sc) != (unsigned char)c) {
		sc->bad = true;
		return false;
	}
	adv(sc);
	return true;
}

static bool hex4(struct scanner *sc, uint32_t *out)
{
	uint32_t v = 0;
	for (int i = 0; i < 4; i++) {
		int h = cf_hex_value(peek(sc));
		if (h < 0) {
			sc->bad = true;
			return false;
		}
		v = v * 16 + (uint32_t)h;
		adv(sc);
	}
	*out = v;
	return true;
}

static void add_utf8(struct cf_buf *b, uint32_t cp)
{
	char u[4];
	size_t n;
	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xC0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xE0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		u[0] = (char)(0xF0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	cf_buf_addn(b, u, n);
}

/* Scans a string at the opening quote; decodes it into `out` when out is non-NULL. */
static void string(struct scanner *sc, struct cf_buf *out)
{
	if (!expect(sc, '"'))
		return;
	for (;;) {
		int c = peek(sc);
		if (c < 0) {
			sc->bad = true;
			return;
		}
		if (c == '"') {
			adv(sc);
			return;
		}
		if (c != '\\') {
			if (out)
				cf_buf_addc(out, (char)c);
			adv(sc);
			continue;
		}
		adv(sc);
		c = peek(sc);
		if (c < 0) {
			sc->bad = true;
			return;
		}
		adv(sc);
		char e;
		switch (c) {
		case 'b':
			e = '\b';
			break;
		case 'f':
			e = '\f';
			break;
		case 'n':
			e = '\n';
			break;
		case 'r':
			e = '\r';
			break;
		case 't':
			e = '\t';
			break;
		case 'u': {
			uint32_t cp;
			if (!hex4(sc, &cp))
				return;
			/* A high surrogate followed by "\u" and a low one is one code point, which
			 * is how jansson decodes it too. */
			if (cp >= 0xD800 && cp <= 0xDBFF && peek(sc) == '\\' &&
			    sc->pos + 1 < sc->len && sc->s[sc->pos + 1] == 'u') {
				adv(sc);
				adv(sc);
				uint32_t lo;
				if (!hex4(sc, &lo))
					return;
				if (lo >= 0xDC00 && lo <= 0xDFFF)
					cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
			}
			if (out)
				add_utf8(out, cp);
			continue;
		}
		default:
			e = (char)c; /* '"', '\\', '/' */
		}
		if (out)
			cf_buf_addc(out, e);
	}
}

/* Skips a value of any depth without recursion. */
static void skip(struct scanner *sc)
{
	int depth = 0;
	do {
		ws(sc);
		int c = peek(sc);
		if (c < 0) {
			sc->bad = true;
			return;
		}
		if (c == '"') {
			string(sc, NULL);
		} else if (c == '{' || c == '[') {
			depth++;
			adv(sc);
		} else if (c == '}' || c == ']') {
			depth--;
			adv(sc);
		} else if (c == ',' || c == ':') {
			adv(sc);
		} else {
			/* number, true, false, null; anything else (jansson lets a NUL byte end
			 * the text early) must still make progress or stop the scan */
			size_t start = sc->pos;
			while ((c = peek(sc)) > 0 && !strchr(",:]} \t\r\n\"{[", c))
				adv(sc);
			if (sc->pos == start)
				sc->bad = true;
		}
		if (sc->bad)
			return;
	} while (depth > 0);
}

static void record(struct scanner *sc, const char *pointer, int line, int col, int kline, int kcol)
{
	struct cf_jsonpos *idx = sc->idx;
	if (idx->n == idx->cap) {
		size_t cap;
		struct cf_jsonpos_entry *v = cf_grow_array(idx->v, idx->cap, 32, sizeof(*v), &cap);
		if (!v) {
			sc->oom = true;
			return;
		}
		idx->v = v;
		idx->cap = cap;
	}
	char *p = cf_strdup(pointer);
	if (!p) {
		sc->oom = true;
		return;
	}
	idx->v[idx->n++] = (struct cf_jsonpos_entry){p, line, col, kline, kcol};
}

void cf_jsonpos_add_token(struct cf_buf *b, const char *name, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (name[i] == '~')
			cf_buf_add(b, "~0");
		else if (name[i] == '/')
			cf_buf_add(b, "~1");
		else
			cf_buf_addc(b, name[i]);
	}
}

/* Scans one value whose pointer is in ptr (restored on return). */
static void value(struct scanner *sc, struct cf_buf *ptr, int depth, int kline, int kcol)
{
	ws(sc);
	if (depth > sc->max_depth) {
		skip(sc);
		return;
	}
	if (ptr->oom) {
		sc->oom = true;
		return;
	}
	record(sc, ptr->s ? ptr->s : "", sc->line, sc->col + 1, kline, kcol);
	if (sc->oom)
		return;
	size_t base = ptr->len;
	int c = peek(sc);
	if (c == '{') {
		adv(sc);
		ws(sc);
		if (peek(sc) == '}') {
			adv(sc);
			return;
		}
		for (;;) {
			ws(sc);
			int kl = sc->line, kc = sc->col + 1;
			struct cf_buf key;
			cf_buf_init(&key);
			string(sc, &key);
			cf_buf_addc(ptr, '/');
			cf_jsonpos_add_token(ptr, key.s ? key.s : "", key.len);
			if (key.oom)
				sc->oom = true;
			cf_buf_release(&key);
			ws(sc);
			if (!sc->bad && !sc->oom && expect(sc, ':'))
				value(sc, ptr, depth + 1, kl, kc);
			ptr->len = base;
			if (ptr->s)
				ptr->s[base] = '\0';
			if (sc->bad || sc->oom)
				return;
			ws(sc);
			if (peek(sc) == ',') {
				adv(sc);
				continue;
			}
			expect(sc, '}');
			return;
		}
	} else if (c == '[') {
		adv(sc);
		ws(sc);
		if (peek(sc) == ']') {
			adv(sc);
			return;
		}
		for (size_t i = 0;; i++) {
			if (i < sc->max_index) {
				cf_buf_addf(ptr, "/%zu", i);
				value(sc, ptr, depth + 1, 0, 0);
				ptr->len = base;
				if (ptr->s)
					ptr->s[base] = '\0';
			} else {
				skip(sc);
			}
			if (sc->bad || sc->oom)
				return;
			ws(sc);
			if (peek(sc) == ',') {
				adv(sc);
				continue;
			}
			expect(sc, ']');
			return;
		}
	} else if (c == '"') {
		string(sc, NULL);
	} else {
		skip(sc);
	}
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct cf_jsonpos_entry *)a)->pointer,
		      ((const struct cf_jsonpos_entry *)b)->pointer);
}

int cf_jsonpos_index(struct cf_jsonpos *idx, const char *text, size_t len, int max_depth,
		     size_t max_index)
{
	struct scanner sc = {
	    .s = text,
	    .len = len,
	    .line = 1,
	    .max_depth = max_depth,
	    .max_index = max_index,
	    .idx = idx,
	};
	struct cf_buf ptr;
	cf_buf_init(&ptr);
	cf_buf_add(&ptr, "");
	value(&sc, &ptr, 0, 0, 0);
	cf_buf_release(&ptr);
	if (sc.oom)
		return CONFINE_E_NOMEM;
	/* Sorted by pointer for cf_jsonpos_find; jansson already refused duplicate names. */
	if (idx->n > 1)
		qsort(idx->v, idx->n, sizeof(idx->v[0]), cmp_entry);
	return 0;
}

const struct cf_jsonpos_entry *cf_jsonpos_find(const struct cf_jsonpos *idx, const char *pointer)
{
	if (!idx->n)
		return NULL;
	struct cf_jsonpos_entry key = {.pointer = (char *)pointer};
	return bsearch(&key, idx->v, idx->n, sizeof(idx->v[0]), cmp_entry);
}

void cf_jsonpos_release(struct cf_jsonpos *idx)
{
	for (size_t i = 0; i < idx->n; i++)
		free(idx->v[i].pointer);
	free(idx->v);
	memset(idx, 0, sizeof(*idx));
}
