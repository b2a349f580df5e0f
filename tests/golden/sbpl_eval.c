/* SPDX-License-Identifier: MIT */
/* The SBPL reader and evaluator of the tests (see sbpl_eval.h). */
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl_eval.h"

enum ntype { N_LIST, N_SYM, N_STR, N_RE };

/* What a list is, resolved once when the profile is read (the evaluator runs often). */
enum head {
	H_OTHER,
	H_LITERAL,
	H_SUBPATH,
	H_REGEX,
	H_ALL,
	H_ANY,
	H_NOT,
	H_REMOTE,
	H_LOCAL,
};

/* The operations the tests ask about; a rule's operations become a mask of these. */
static const char *const query_ops[] = {
    "file-read-data",	   "file-write-data",  "file-read-metadata", "file-write-unlink",
    "file-test-existence", "network-outbound", "network-bind",	     "file-map-executable",
};
#define N_QUERY_OPS (sizeof(query_ops) / sizeof(query_ops[0]))

struct node {
	enum ntype t;
	enum head head;
	unsigned ops; /* rules: the query operations it names */
	size_t first_filter;
	char *s;
	const regex_t *re; /* N_RE: compiled, owned by the cache below */
	struct node **kid;
	size_t n, cap;
};

struct sbpl_profile {
	struct node **forms;
	size_t n, cap;
	const char **strs, **res;
	size_t n_strs, n_res, cap_strs, cap_res;
};

struct reader {
	const char *s;
	size_t i, len;
	char *why;
	size_t why_n;
	struct sbpl_profile *p;
	int depth;
};

/*
 * Compiled regexes, shared by every profile read by this process: most regexes of a profile
 * (the guards') are the same from one profile to the next, and the fuzz target reads
 * thousands.  Emptied when full; a process that reads one profile compiles each regex once.
 */
#define CACHE_SLOTS 4096
static struct {
	char *key;
	regex_t re;
} cache[CACHE_SLOTS];
static size_t cache_used;

static size_t hash(const char *s)
{
	size_t h = 5381;
	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

static void cache_clear(void)
{
	for (size_t i = 0; i < CACHE_SLOTS; i++)
		if (cache[i].key) {
			regfree(&cache[i].re);
			free(cache[i].key);
			cache[i].key = NULL;
		}
	cache_used = 0;
}

static const regex_t *compiled(const char *src, char *why, size_t n)
{
	size_t i = hash(src) % CACHE_SLOTS;
	while (cache[i].key) {
		if (!strcmp(cache[i].key, src))
			return &cache[i].re;
		i = (i + 1) % CACHE_SLOTS;
	}
	regex_t re;
	int rc = regcomp(&re, src, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		regerror(rc, &re, why, n);
		regfree(&re);
		return NULL;
	}
	if (cache_used >= CACHE_SLOTS / 2) {
		/* Only between profiles: nodes of a profile being read point into the table. */
		regfree(&re);
		snprintf(why, n, "too many distinct regexes in one profile");
		return NULL;
	}
	char *key = strdup(src);
	if (!key) {
		regfree(&re);
		snprintf(why, n, "out of memory");
		return NULL;
	}
	cache[i].key = key;
	cache[i].re = re;
	cache_used++;
	return &cache[i].re;
}

static void node_free(struct node *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->n; i++)
		node_free(x->kid[i]);
	free(x->kid);
	free(x->s);
	free(x);
}

static bool grow(void ***v, size_t *n, size_t *cap)
{
	if (*n < *cap)
		return true;
	size_t c = *cap ? 2 * *cap : 8;
	void **nv = realloc(*v, c * sizeof(**v));
	if (!nv)
		return false;
	*v = nv;
	*cap = c;
	return true;
}

static void *err_at(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void *err_at(struct reader *r, const char *fmt, ...)
{
	va_list ap;
	char msg[256];
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!r->why[0])
		snprintf(r->why, r->why_n, "at byte %zu: %s", r->i, msg);
	return NULL;
}

static void skip_space(struct reader *r)
{
	while (r->i < r->len) {
		char c = r->s[r->i];
		if (c == ';') {
			while (r->i < r->len && r->s[r->i] != '\n')
				r->i++;
		} else if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
			r->i++;
		} else {
			break;
		}
	}
}

static struct node *new_node(enum ntype t)
{
	struct node *x = calloc(1, sizeof(*x));
	if (x)
		x->t = t;
	return x;
}

/* A string: "..." with no escapes (confine writes none; a backslash is refused). */
static struct node *read_quoted(struct reader *r, enum ntype t)
{
	size_t start = r->i;
	while (r->i < r->len && r->s[r->i] != '"') {
		if (t == N_STR && r->s[r->i] == '\\')
			return err_at(r, "backslash in a string");
		r->i++;
	}
	if (r->i >= r->len)
		return err_at(r, "unterminated string");
	struct node *x = new_node(t);
	if (!x)
		return err_at(r, "out of memory");
	x->s = malloc(r->i - start + 1);
	if (!x->s) {
		free(x);
		return err_at(r, "out of memory");
	}
	memcpy(x->s, r->s + start, r->i - start);
	x->s[r->i - start] = '\0';
	r->i++;
	if (strlen(x->s) != r->i - 1 - start) {
		node_free(x);
		return err_at(r, "NUL byte in a string");
	}
	if (t == N_RE) {
		char e[128];
		if (!(x->re = compiled(x->s, e, sizeof(e)))) {
			node_free(x);
			return err_at(r, "regex does not compile: %s", e);
		}
		if (!grow((void ***)&r->p->res, &r->p->n_res, &r->p->cap_res)) {
			node_free(x);
			return err_at(r, "out of memory");
		}
		r->p->res[r->p->n_res++] = x->s;
	} else {
		if (!grow((void ***)&r->p->strs, &r->p->n_strs, &r->p->cap_strs)) {
			node_free(x);
			return err_at(r, "out of memory");
		}
		r->p->strs[r->p->n_strs++] = x->s;
	}
	return x;
}

static bool op_matches(const char *rule_op, const char *op);

static void resolve(struct node *x)
{
	static const struct {
		const char *name;
		enum head h;
	} heads[] = {
	    {"literal", H_LITERAL}, {"subpath", H_SUBPATH}, {"regex", H_REGEX},
	    {"require-all", H_ALL}, {"require-any", H_ANY}, {"require-not", H_NOT},
	    {"remote", H_REMOTE},   {"local", H_LOCAL},
	};
	if (!x->n || x->kid[0]->t != N_SYM)
		return;
	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++)
		if (!strcmp(x->kid[0]->s, heads[i].name))
			x->head = heads[i].h;
	size_t k = 1;
	for (; k < x->n && x->kid[k]->t == N_SYM; k++)
		for (size_t q = 0; q < N_QUERY_OPS; q++)
			if (op_matches(x->kid[k]->s, query_ops[q]))
				x->ops |= 1u << q;
	x->first_filter = k;
}

static struct node *read_node(struct reader *r)
{
	skip_space(r);
	if (r->i >= r->len)
		return err_at(r, "unexpected end");
	char c = r->s[r->i];
	if (c == '(') {
		if (++r->depth > 64)
			return err_at(r, "nested too deep");
		r->i++;
		struct node *x = new_node(N_LIST);
		if (!x)
			return err_at(r, "out of memory");
		for (;;) {
			skip_space(r);
			if (r->i >= r->len) {
				node_free(x);
				return err_at(r, "unbalanced '('");
			}
			if (r->s[r->i] == ')') {
				r->i++;
				r->depth--;
				resolve(x);
				return x;
			}
			struct node *k = read_node(r);
			if (!k || !grow((void ***)&x->kid, &x->n, &x->cap)) {
				node_free(k);
				node_free(x);
				return err_at(r, "out of memory");
			}
			x->kid[x->n++] = k;
		}
	}
	if (c == ')')
		return err_at(r, "unbalanced ')'");
	if (c == '"') {
		r->i++;
		return read_quoted(r, N_STR);
	}
	if (c == '#' && r->i + 1 < r->len && r->s[r->i + 1] == '"') {
		r->i += 2;
		return read_quoted(r, N_RE);
	}
	size_t start = r->i;
	while (r->i < r->len && !strchr(" \t\r\n();\"", r->s[r->i]))
		r->i++;
	if (r->i == start)
		return err_at(r, "unexpected character '%c'", c);
	struct node *x = new_node(N_SYM);
	if (!x || !(x->s = malloc(r->i - start + 1))) {
		free(x);
		return err_at(r, "out of memory");
	}
	memcpy(x->s, r->s + start, r->i - start);
	x->s[r->i - start] = '\0';
	return x;
}

struct sbpl_profile *sbpl_read(const char *text, char *why, size_t n)
{
	/* No profile is alive between reads in the tests' use (one at a time), so a full cache
	 * can be emptied here. */
	if (cache_used >= CACHE_SLOTS / 4)
		cache_clear();
	struct sbpl_profile *p = calloc(1, sizeof(*p));
	why[0] = '\0';
	if (!p) {
		snprintf(why, n, "out of memory");
		return NULL;
	}
	struct reader r = {.s = text, .len = strlen(text), .why = why, .why_n = n, .p = p};
	for (;;) {
		skip_space(&r);
		if (r.i >= r.len)
			break;
		struct node *x = read_node(&r);
		if (!x || !grow((void ***)&p->forms, &p->n, &p->cap)) {
			node_free(x);
			if (!why[0])
				snprintf(why, n, "out of memory");
			sbpl_free(p);
			return NULL;
		}
		p->forms[p->n++] = x;
		if (x->t != N_LIST || !x->n || x->kid[0]->t != N_SYM ||
		    (strcmp(x->kid[0]->s, "version") && strcmp(x->kid[0]->s, "allow") &&
		     strcmp(x->kid[0]->s, "deny"))) {
			snprintf(why, n, "form %zu is not (version ...), (allow ...) or (deny ...)",
				 p->n);
			sbpl_free(p);
			return NULL;
		}
	}
	if (!p->n || strcmp(p->forms[0]->kid[0]->s, "version") || p->forms[0]->n != 2 ||
	    strcmp(p->forms[0]->kid[1]->s ? p->forms[0]->kid[1]->s : "", "1")) {
		snprintf(why, n, "the profile does not start with (version 1)");
		sbpl_free(p);
		return NULL;
	}
	return p;
}

void sbpl_free(struct sbpl_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		node_free(p->forms[i]);
	free(p->forms);
	free(p->strs);
	free(p->res);
	free(p);
}

size_t sbpl_strings(const struct sbpl_profile *p, const char *const **v)
{
	*v = p->strs;
	return p->n_strs;
}

size_t sbpl_regexes(const struct sbpl_profile *p, const char *const **v)
{
	*v = p->res;
	return p->n_res;
}

size_t sbpl_forms(const struct sbpl_profile *p)
{
	return p->n;
}

static bool within(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (!strcmp(dir, "/"))
		return path[0] == '/';
	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

static bool op_matches(const char *rule_op, const char *op)
{
	size_t n = strlen(rule_op);
	if (!strcmp(rule_op, "default") || !strcmp(rule_op, op))
		return true;
	return n > 0 && rule_op[n - 1] == '*' && !strncmp(op, rule_op, n - 1);
}

/* A path filter (literal, subpath, regex, require-*) against a path. */
static bool path_filter(const struct node *f, const char *path)
{
	if (f->t != N_LIST)
		return false;
	switch (f->head) {
	case H_ALL:
		for (size_t i = 1; i < f->n; i++)
			if (!path_filter(f->kid[i], path))
				return false;
		return true;
	case H_ANY:
		for (size_t i = 1; i < f->n; i++)
			if (path_filter(f->kid[i], path))
				return true;
		return false;
	case H_NOT:
		return f->n == 2 && !path_filter(f->kid[1], path);
	case H_LITERAL:
		return f->n == 2 && f->kid[1]->t == N_STR && !strcmp(path, f->kid[1]->s);
	case H_SUBPATH:
		return f->n == 2 && f->kid[1]->t == N_STR && within(path, f->kid[1]->s);
	case H_REGEX:
		return f->n == 2 && f->kid[1]->t == N_RE &&
		       regexec(f->kid[1]->re, path, 0, NULL, 0) == 0;
	default:
		return false;
	}
}

static bool filter(const struct node *f, enum sbpl_kind kind, const char *path)
{
	if (kind == SBPL_FILE)
		return path_filter(f, path);
	bool remote = f->head == H_REMOTE, local = f->head == H_LOCAL;
	if (!remote && !local)
		return false;
	if (f->n < 2 || f->kid[1]->t != N_SYM)
		return false;
	const char *what = f->kid[1]->s;
	if (kind == SBPL_IP_REMOTE) {
		if (!remote || strcmp(what, "ip"))
			return false;
		if (f->n == 2)
			return true;
		return f->n == 3 && f->kid[2]->t == N_STR &&
		       (!strcmp(f->kid[2]->s, path) || !strcmp(f->kid[2]->s, "*:*"));
	}
	if (strcmp(what, "unix-socket") || (kind == SBPL_UNIX_REMOTE) != remote)
		return false;
	return f->n == 2 || (f->n == 3 && path_filter(f->kid[2], path));
}

bool sbpl_allows(const struct sbpl_profile *p, const char *op, enum sbpl_kind kind,
		 const char *path)
{
	unsigned want = 0;
	for (size_t q = 0; q < N_QUERY_OPS; q++)
		if (!strcmp(op, query_ops[q]))
			want = 1u << q;
	bool allow = false;
	for (size_t i = 1; i < p->n; i++) {
		const struct node *x = p->forms[i];
		bool hit;
		if (want) {
			if (!(x->ops & want))
				continue;
		} else {
			/* An operation outside the table: match the names one by one. */
			hit = false;
			for (size_t k = 1; k < x->first_filter; k++)
				hit = hit || op_matches(x->kid[k]->s, op);
			if (!hit)
				continue;
		}
		hit = x->first_filter == x->n;
		for (size_t k = x->first_filter; k < x->n && !hit; k++)
			hit = filter(x->kid[k], kind, path);
		if (hit)
			allow = x->kid[0]->s[0] == 'a';
	}
	return allow;
}
