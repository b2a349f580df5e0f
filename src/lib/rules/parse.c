/* SPDX-License-Identifier: MIT */
/*
 * Rule files (SPEC 2.1) and --allow/--ask/--deny arguments.  A sandbox never silently drops a
 * rule the user wrote (R5): every unknown key, unknown value, wrong type and missing field is
 * a diagnostic with FILE:LINE:COLUMN and a JSON pointer, and all of them are reported, not
 * only the first, so that one `confine check` shows everything to fix.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "rules/jsonpos.h"
#include "rules/upstream.h"
#include "rules/netrules.h"
#include "rules/rules.h"
#include "util/util.h"

struct parser {
	const char *file;
	enum cf_layer layer;
	struct cf_ruleset *out;
	struct cf_net_rules *net; /* the "network" section's rules; NULL: checked, not kept */
	struct cf_diags *diags;
	struct cf_jsonpos pos;
	struct confine_error *err;
	int rc; /* CONFINE_E_NOMEM once an allocation failed */
};

static int add_diag(struct parser *p, int line, int column, const char *pointer, const char *fmt,
		    ...) CF_PRINTF(5, 6);
static int add_diag(struct parser *p, int line, int column, const char *pointer, const char *fmt,
		    ...)
{
	struct cf_diags *d = p->diags;
	char *msg = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		goto nomem;
	if (d->n == d->cap) {
		size_t cap;
		struct cf_diag *v = cf_grow_array(d->v, d->cap, 8, sizeof(*v), &cap);
		if (!v)
			goto nomem;
		d->v = v;
		d->cap = cap;
	}
	struct cf_diag g = {
	    .file = cf_strdup(p->file ? p->file : ""),
	    .line = line > 0 ? line : 1,
	    .column = column > 0 ? column : 1,
	    .pointer = cf_strdup(pointer),
	    .message = msg,
	};
	if (!g.file || !g.pointer) {
		free(g.file);
		free(g.pointer);
		goto nomem;
	}
	d->v[d->n++] = g;
	return 0;
nomem:
	free(msg);
	p->rc = cf_nomem(p->err);
	return p->rc;
}

/* Position of the value at `pointer`, or of its member name when `at_key`; falls back to the
 * closest indexed ancestor so that a diagnostic always has a position. */
static void position(struct parser *p, const char *pointer, bool at_key, int *line, int *col)
{
	const struct cf_jsonpos_entry *e = cf_jsonpos_find(&p->pos, pointer);
	if (e) {
		bool key = at_key && e->key_line > 0;
		*line = key ? e->key_line : e->line;
		*col = key ? e->key_column : e->column;
		return;
	}
	*line = 1;
	*col = 1;
	char *up = cf_strdup(pointer);
	if (!up)
		return;
	char *slash;
	while ((slash = strrchr(up, '/'))) {
		*slash = '\0';
		e = cf_jsonpos_find(&p->pos, up);
		if (e) {
			*line = e->line;
			*col = e->column;
			break;
		}
	}
	free(up);
}

static int diag_at(struct parser *p, const char *pointer, bool at_key, const char *fmt, ...)
    CF_PRINTF(4, 5);
static int diag_at(struct parser *p, const char *pointer, bool at_key, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	int line, col;
	position(p, pointer, at_key, &line, &col);
	return add_diag(p, line, col, pointer, "%s", msg);
}

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
		return "null";
	}
	return "a value";
}

/* A user value quoted as JSON for a message: control characters escaped, at most ~64 bytes. */
static void quote(char *dst, size_t cap, const char *s, size_t n)
{
	struct cf_buf b;
	cf_buf_init(&b);
	size_t cut = n > 64 ? 64 : n;
	while (cut < n && cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
		cut--; /* do not split a UTF-8 sequence */
	char *part = cf_strndup(s, cut);
	if (part) {
		cf_buf_add_json(&b, part);
		if (cut < n)
			cf_buf_add(&b, "...");
	}
	free(part);
	snprintf(dst, cap, "%s", b.s && !b.oom ? b.s : "\"?\"");
	cf_buf_release(&b);
}

/* The pointer of member `key` below `base`. */
static char *member_pointer(const char *base, const char *key)
{
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_add(&b, base);
	cf_buf_addc(&b, '/');
	cf_jsonpos_add_token(&b, key, strlen(key));
	return cf_buf_take(&b);
}

static void unknown_key(struct parser *p, const char *base, const char *key, const char *known)
{
	char *ptr = member_pointer(base, key);
	if (!ptr) {
		p->rc = cf_nomem(p->err);
		return;
	}
	char q[160];
	quote(q, sizeof(q), key, strlen(key));
	diag_at(p, ptr, true, "unknown key %s (%s)", q, known);
	free(ptr);
}

/* Looks up one of `names` (NULL-terminated) for the string member `key` of a rule; returns its
 * index, or -1 after a diagnostic.  A missing member returns -2 without one. */
static int enum_member(struct parser *p, json_t *obj, const char *base, const char *key,
		       const char *const *names, const char *expect)
{
	json_t *v = json_object_get(obj, key);
	if (!v)
		return -2;
	char *ptr = member_pointer(base, key);
	if (!ptr) {
		p->rc = cf_nomem(p->err);
		return -1;
	}
	int found = -1;
	if (!json_is_string(v)) {
		diag_at(p, ptr, false, "'%s' must be a string (%s), not %s", key, expect,
			type_name(v));
		goto out;
	}
	const char *s = json_string_value(v);
	size_t n = json_string_length(v);
	for (int i = 0; names[i]; i++) {
		if (strlen(names[i]) == n && memcmp(names[i], s, n) == 0) {
			found = i;
			goto out;
		}
	}
	char q[160];
	quote(q, sizeof(q), s, n);
	diag_at(p, ptr, false, "'%s' must be %s, not %s", key, expect, q);
out:
	free(ptr);
	return found;
}

static void check_rule(struct parser *p, size_t i, json_t *obj)
{
	static const char *const actions[] = {"allow", "ask", "deny", NULL};
	static const char *const accesses[] = {"read", "write", "both", NULL};
	static const enum cf_action action_of[] = {CF_ALLOW, CF_ASK, CF_DENY};
	static const unsigned access_of[] = {CF_ACC_READ, CF_ACC_WRITE, CF_ACC_BOTH};
	char base[48];
	snprintf(base, sizeof(base), "/rules/%zu", i);

	if (!json_is_object(obj)) {
		diag_at(p, base, false, "a rule must be an object, not %s", type_name(obj));
		return;
	}
	bool ok = true;
	const char *key;
	json_t *v;
	json_object_foreach(obj, key, v)
	{
		if (strcmp(key, "path") && strcmp(key, "action") && strcmp(key, "access")) {
			unknown_key(p, base, key, "a rule has \"path\", \"action\" and \"access\"");
			ok = false;
		}
	}

	const char *pattern = NULL;
	char ptr[64];
	snprintf(ptr, sizeof(ptr), "%s/path", base);
	v = json_object_get(obj, "path");
	if (!v) {
		diag_at(p, ptr, false, "missing required key 'path'");
		ok = false;
	} else if (!json_is_string(v)) {
		diag_at(p, ptr, false, "'path' must be a string, not %s", type_name(v));
		ok = false;
	} else {
		size_t n = json_string_length(v);
		pattern = json_string_value(v);
		if (n == 0) {
			diag_at(p, ptr, false, "the path is empty");
			ok = false;
		} else if (n > CF_RULES_MAX_PATTERN) {
			diag_at(p, ptr, false,
				"the path is %zu bytes long, more than the limit of %d", n,
				CF_RULES_MAX_PATTERN);
			ok = false;
		} else if (strlen(pattern) != n) {
			diag_at(p, ptr, false, "the path contains a NUL character");
			ok = false;
		}
	}

	int action = enum_member(p, obj, base, "action", actions, "\"allow\", \"ask\" or \"deny\"");
	if (action == -2) {
		snprintf(ptr, sizeof(ptr), "%s/action", base);
		diag_at(p, ptr, false,
			"missing required key 'action' (\"allow\", \"ask\" or "
			"\"deny\")");
	}
	int access =
	    enum_member(p, obj, base, "access", accesses, "\"read\", \"write\" or \"both\"");
	if (access == -2)
		access = 2; /* SPEC 2.1: both by default */
	if (!ok || action < 0 || access < 0 || p->rc)
		return;

	int line, col;
	position(p, base, false, &line, &col);
	struct cf_rule r = {
	    .pattern = (char *)pattern,
	    .access = access_of[access],
	    .action = action_of[action],
	    .layer = p->layer,
	    .source = (char *)p->file,
	    .index = (int)i,
	    .line = line,
	    .column = col,
	};
	if (cf_ruleset_add(p->out, &r, p->err) < 0)
		p->rc = CONFINE_E_NOMEM;
}

/* One list of the "network" section: "allow" or "deny", an array of patterns (R31). */
static void check_net_list(struct parser *p, json_t *list, const char *name, enum cf_action action)
{
	char base[48];
	snprintf(base, sizeof(base), "/network/%s", name);
	if (!json_is_array(list)) {
		diag_at(p, base, false, "'%s' must be an array of domain patterns, not %s", name,
			type_name(list));
		return;
	}
	size_t n = json_array_size(list);
	for (size_t i = 0; i < n && i < CF_RULES_MAX_RULES && !p->rc; i++) {
		char ptr[64];
		snprintf(ptr, sizeof(ptr), "%s/%zu", base, i);
		json_t *v = json_array_get(list, i);
		if (!json_is_string(v)) {
			diag_at(p, ptr, false,
				"a network rule is a string such as \"github.com\", "
				"\"*.npmjs.org\" or \"192.0.2.7:443\", not %s",
				type_name(v));
			continue;
		}
		const char *s = json_string_value(v);
		size_t len = json_string_length(v);
		struct cf_net_rule r = {0};
		const char *why = cf_net_pattern_parse(s, len, &r);
		char q[160];
		if (why) {
			quote(q, sizeof(q), s, len);
			diag_at(p, ptr, false, "%s: %s", q, why);
			continue;
		}
		if (action == CF_ALLOW && p->layer == CF_LAYER_WORKSPACE) {
			/* R31 with R10's reasoning: a repository cannot grant itself an
			 * exfiltration channel.  Denying is always fine. */
			quote(q, sizeof(q), s, len);
			diag_at(
			    p, ptr, false,
			    "%s: a workspace rule file may deny domains but not allow them (a "
			    "repository cannot grant itself a way out); put the allow in the user "
			    "rule file or pass --net-allow",
			    q);
			continue;
		}
		if (!p->net)
			continue;
		int line, col;
		position(p, ptr, false, &line, &col);
		r.pattern = (char *)s;
		r.action = action;
		r.layer = p->layer;
		r.source = (char *)p->file;
		r.index = (int)i;
		r.line = line;
		r.column = col;
		if (cf_net_rules_add(p->net, &r, p->err) < 0)
			p->rc = CONFINE_E_NOMEM;
	}
	if (n > CF_RULES_MAX_RULES) {
		int line, col;
		position(p, base, false, &line, &col);
		char ptr[64];
		snprintf(ptr, sizeof(ptr), "%s/%d", base, CF_RULES_MAX_RULES);
		add_diag(p, line, col, ptr, "%zu network rules, more than the limit of %d", n,
			 CF_RULES_MAX_RULES);
	}
}

/* R43: "upstream": the URL of the proxy confine's proxy goes through (rules/upstream.h).  A
 * repository cannot name one: it would see every request the user allows. */
static void check_upstream(struct parser *p, json_t *v)
{
	if (!json_is_string(v)) {
		diag_at(p, "/network/upstream", false,
			"'upstream' is the URL of an HTTP proxy (\"http://proxy.example:3128\"), "
			"not %s",
			type_name(v));
		return;
	}
	if (p->layer == CF_LAYER_WORKSPACE) {
		diag_at(p, "/network/upstream", false,
			"a workspace rule file may not name an upstream proxy (it would see every "
			"request the command makes); put it in the user rule file");
		return;
	}
	struct cf_upstream u;
	const char *why = cf_upstream_parse(json_string_value(v), &u);
	cf_upstream_release(&u);
	if (why) {
		diag_at(p, "/network/upstream", false, "%s", why);
		return;
	}
	if (p->net) {
		free(p->net->upstream);
		if (!(p->net->upstream = cf_strdup(json_string_value(v))))
			p->rc = CONFINE_E_NOMEM;
	}
}

static void check_network(struct parser *p, json_t *net)
{
	if (!json_is_object(net)) {
		diag_at(p, "/network", false,
			"'network' must be an object with \"allow\" and \"deny\" lists, not %s",
			type_name(net));
		return;
	}
	const char *key;
	json_t *v;
	json_object_foreach(net, key, v)
	{
		if (strcmp(key, "allow") && strcmp(key, "deny") && strcmp(key, "upstream"))
			unknown_key(p, "/network", key,
				    "'network' has \"allow\", \"deny\" and \"upstream\"");
	}
	if ((v = json_object_get(net, "upstream")))
		check_upstream(p, v);
	/* Deny first: within a layer the deny list is checked before the allow list. */
	if ((v = json_object_get(net, "deny")))
		check_net_list(p, v, "deny", CF_DENY);
	if ((v = json_object_get(net, "allow")))
		check_net_list(p, v, "allow", CF_ALLOW);
}

static void check_document(struct parser *p, json_t *root)
{
	if (!json_is_object(root)) {
		diag_at(p, "", false,
			"a rule file must be an object with \"version\" and \"rules\", "
			"not %s",
			type_name(root));
		return;
	}
	const char *key;
	json_t *v;
	json_object_foreach(root, key, v)
	{
		if (strcmp(key, "version") && strcmp(key, "rules") && strcmp(key, "network"))
			unknown_key(p, "", key,
				    "a rule file has \"version\", \"rules\" and \"network\"");
	}

	v = json_object_get(root, "version");
	if (!v)
		diag_at(p, "/version", false, "missing required key 'version' (it must be 1)");
	else if (!json_is_integer(v) || json_integer_value(v) != 1)
		diag_at(p, "/version", false, "'version' must be the number 1%s",
			json_is_integer(v) ? " (the only version there is)" : "");

	json_t *net = json_object_get(root, "network");
	if (net)
		check_network(p, net);
	json_t *rules = json_object_get(root, "rules");
	if (!rules) {
		if (!net)
			diag_at(p, "/rules", false,
				"missing required key 'rules' (an array of rules)");
		return;
	}
	if (!json_is_array(rules)) {
		diag_at(p, "/rules", false, "'rules' must be an array, not %s", type_name(rules));
		return;
	}
	size_t n = json_array_size(rules);
	for (size_t i = 0; i < n && i < CF_RULES_MAX_RULES && !p->rc; i++)
		check_rule(p, i, json_array_get(rules, i));
	if (n > CF_RULES_MAX_RULES) {
		char ptr[48];
		snprintf(ptr, sizeof(ptr), "/rules/%d", CF_RULES_MAX_RULES);
		/* The element past the limit is not indexed; point at the array. */
		int line, col;
		position(p, "/rules", false, &line, &col);
		add_diag(p, line, col, ptr, "%zu rules, more than the limit of %d", n,
			 CF_RULES_MAX_RULES);
	}
}

/* Document order reads best; the checks run in a different one (keys before values).  Stable
 * insertion sort: a file has few errors, and equal positions keep their order. */
static void sort_diags(struct cf_diag *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct cf_diag d = v[i];
		size_t j = i;
		while (j > 0 && (v[j - 1].line > d.line ||
				 (v[j - 1].line == d.line && v[j - 1].column > d.column))) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = d;
	}
}

int cf_rules_parse(const char *text, size_t len, const char *file, enum cf_layer layer,
		   struct cf_ruleset *out, struct cf_diags *diags, struct confine_error *err)
{
	return cf_rules_parse_net(text, len, file, layer, out, NULL, diags, err);
}

int cf_rules_parse_net(const char *text, size_t len, const char *file, enum cf_layer layer,
		       struct cf_ruleset *out, struct cf_net_rules *net, struct cf_diags *diags,
		       struct confine_error *err)
{
	struct parser p = {
	    .file = file,
	    .layer = layer,
	    .out = out,
	    .net = net,
	    .diags = diags,
	    .err = err,
	};
	json_t *root = NULL;
	size_t first = diags->n;

	if (len > CF_RULES_MAX_FILE_BYTES) {
		add_diag(&p, 1, 1, "", "the file is %zu bytes long, more than the limit of 1 MiB",
			 len);
		goto out;
	}
	const char *nul = memchr(text, '\0', len);
	if (nul) {
		/* Not JSON anywhere in a file, and jansson reads "[1, 3<NUL>]" as [1, 3]: refuse
		 * it rather than guess what the rest of the file meant. */
		int line = 1, col = 1;
		for (const char *c = text; c < nul; c++) {
			if (*c == '\n') {
				line++;
				col = 1;
			} else if (((unsigned char)*c & 0xC0) != 0x80) {
				col++;
			}
		}
		add_diag(&p, line, col, "", "the file contains a NUL byte");
		goto out;
	}
	json_error_t je;
	/* Duplicate names are refused: with two "action" members one of them would be dropped
	 * silently.  NUL is let through the parser so that the diagnostic can say what it is. */
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
	if (!root) {
		add_diag(&p, je.line, je.column, "", "%s", je.text);
		goto out;
	}
	if (cf_jsonpos_index(&p.pos, text, len, 3, CF_RULES_MAX_RULES) < 0) {
		p.rc = cf_nomem(err);
		goto out;
	}
	check_document(&p, root);
out:
	json_decref(root);
	cf_jsonpos_release(&p.pos);
	if (p.rc)
		return p.rc;
	if (diags->n > first) {
		sort_diags(diags->v + first, diags->n - first);
		const struct cf_diag *d = &diags->v[first];
		bool fills = err && err->code == 0;
		cf_err(err, CONFINE_E_RULES, "invalid rule file", file, "%s%s%s", d->pointer,
		       d->pointer[0] ? ": " : "", d->message);
		if (fills) {
			err->line = d->line;
			err->column = d->column;
		}
		return CONFINE_E_RULES;
	}
	return 0;
}

/* ASCII case-insensitive equality (rules/ stays free of OS headers). */
static bool word_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if ((*a >= 'A' && *a <= 'Z' ? *a - 'A' + 'a' : *a) != *b)
			return false;
	return *a == *b;
}

/*
 * PATH[:ACCESS]: the text after the last ':' is always the access, one of read, write or both
 * in any case; anything else there (a typo such as "raed", nothing at all) is refused, so that
 * a mistyped access never becomes a rule on a path that does not exist while the real one stays
 * open.  A path that contains ':' is written with its access: "a:b:both".
 */
int cf_rule_parse_cli(const char *arg, char **pattern, unsigned *access, struct confine_error *err)
{
	static const struct {
		const char *word;
		unsigned access;
	} words[] = {
	    {"read", CF_ACC_READ},
	    {"write", CF_ACC_WRITE},
	    {"both", CF_ACC_BOTH},
	};
	*pattern = NULL;
	const char *colon = strrchr(arg, ':');
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);
	unsigned acc = CF_ACC_BOTH;
	if (colon) {
		size_t i = 0;
		while (i < sizeof(words) / sizeof(words[0]) && !word_eq(colon + 1, words[i].word))
			i++;
		if (i == sizeof(words) / sizeof(words[0])) {
			if (colon[1])
				cf_err(err, CONFINE_E_INVALID, "invalid rule", arg,
				       "'%s' is not an access: the text after the last ':' is one "
				       "of read, write or both",
				       colon + 1);
			else
				cf_err(err, CONFINE_E_INVALID, "invalid rule", arg,
				       "the access after the last ':' is empty: expected read, "
				       "write or both");
			cf_err_hint(
			    err,
			    "write PATH:read, PATH:write, PATH:both, or PATH alone for both; "
			    "a path that itself contains ':' is written with its access, "
			    "e.g. '%s:both'",
			    colon[1] ? arg : "a:b");
			return CONFINE_E_INVALID;
		}
		acc = words[i].access;
	}
	if (n == 0)
		return cf_err(err, CONFINE_E_INVALID, "invalid rule", arg,
			      "the path is empty (expected PATH[:read|write|both])");
	if (n > CF_RULES_MAX_PATTERN)
		return cf_err(err, CONFINE_E_INVALID, "invalid rule", arg,
			      "the path is longer than %d bytes", CF_RULES_MAX_PATTERN);
	char *pat = cf_strndup(arg, n);
	if (!pat)
		return cf_nomem(err);
	*pattern = pat;
	*access = acc;
	return 0;
}
