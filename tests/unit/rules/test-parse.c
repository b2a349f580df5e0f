/* SPDX-License-Identifier: MIT */
/* The rule-file parser (SPEC 2.1, R5): every error kind with its exact position and pointer,
 * and every error of a file reported, not only the first. */
#include <stdlib.h>
#include <string.h>

#include "rules/rules.h"
#include "util/util.h"
#include "../tap.h"

/* One expected diagnostic: "LINE:COLUMN POINTER" and a piece of the message. */
struct want {
	const char *where;
	const char *msg;
};

struct pcase {
	const char *name;
	const char *text;
	size_t nrules;
	struct want diags[8];
};

static const struct pcase cases[] = {
    {"valid file, access defaults to both",
     "{\n  \"version\": 1,\n  \"rules\": [\n    { \"path\": \"dist\", \"access\": \"write\", "
     "\"action\": \"allow\" },\n    { \"path\": \"~/notes\", \"action\": \"ask\" }\n  ]\n}\n",
     2,
     {{NULL, NULL}}},
    {"empty rules", "{\"version\": 1, \"rules\": []}", 0, {{NULL, NULL}}},
    {"syntax error: jansson's position",
     "{\n  \"version\": 1,\n  \"rules\": [ }\n",
     0,
     {{"3:14 ", "unexpected token"}}},
    {"empty file", "", 0, {{"1:1 ", "expected near end of file"}}},
    {"duplicate key",
     "{\"version\": 1, \"version\": 1, \"rules\": []}",
     0,
     {{"1:24 ", "duplicate object key"}}},
    {"top level not an object", "[1]", 0, {{"1:1 ", "must be an object"}}},
    {"missing version", "{\"rules\": []}", 0, {{"1:1 /version", "missing required key"}}},
    {"version 2",
     "{\"version\": 2, \"rules\": []}",
     0,
     {{"1:13 /version", "must be the number 1"}}},
    {"version as a string",
     "{\"version\": \"1\", \"rules\": []}",
     0,
     {{"1:13 /version", "must be the number 1"}}},
    {"version as a real",
     "{\"version\": 1.0, \"rules\": []}",
     0,
     {{"1:13 /version", "must be the number 1"}}},
    {"missing rules", "{\"version\": 1}", 0, {{"1:1 /rules", "missing required key 'rules'"}}},
    {"rules not an array",
     "{\"version\": 1, \"rules\": {}}",
     0,
     {{"1:25 /rules", "must be an array, not an object"}}},
    {"unknown top-level key",
     "{\"version\": 1, \"rules\": [], \"rule\": []}",
     0,
     {{"1:29 /rule", "unknown key \"rule\""}}},
    {"rule not an object",
     "{\"version\": 1, \"rules\": [\"dist\"]}",
     0,
     {{"1:26 /rules/0", "must be an object, not a string"}}},
    {"unknown key in a rule",
     "{\"version\": 1, \"rules\": [\n{\"path\": \"a\", \"action\": \"deny\", \"acess\": "
     "\"read\"}]}",
     0,
     {{"2:33 /rules/0/acess", "unknown key \"acess\""}}},
    {"unknown action",
     "{\"version\": 1, \"rules\": [\n{\"path\": \"a\", \"action\": \"alow\"}]}",
     0,
     {{"2:25 /rules/0/action", "not \"alow\""}}},
    {"unknown access",
     "{\"version\": 1, \"rules\": [\n{\"path\": \"a\", \"action\": \"deny\", \"access\": \"rw\"}]}",
     0,
     {{"2:43 /rules/0/access", "not \"rw\""}}},
    {"action wrong type",
     "{\"version\": 1, \"rules\": [\n{\"path\": \"a\", \"action\": true}]}",
     0,
     {{"2:25 /rules/0/action", "must be a string"}}},
    {"access wrong type",
     "{\"version\": 1, \"rules\": [\n{\"path\": \"a\", \"action\": \"ask\", \"access\": 3}]}",
     0,
     {{"2:42 /rules/0/access", "not a number"}}},
    {"path wrong type",
     "{\"version\": 1, \"rules\": [\n{\"path\": [\"a\"], \"action\": \"ask\"}]}",
     0,
     {{"2:10 /rules/0/path", "must be a string, not an array"}}},
    {"missing path",
     "{\"version\": 1, \"rules\": [\n  {\"action\": \"ask\"}]}",
     0,
     {{"2:3 /rules/0/path", "missing required key 'path'"}}},
    {"missing action",
     "{\"version\": 1, \"rules\": [\n  {\"path\": \"x\"}]}",
     0,
     {{"2:3 /rules/0/action", "missing required key 'action'"}}},
    {"empty path",
     "{\"version\": 1, \"rules\": [{\"path\": \"\", \"action\": \"ask\"}]}",
     0,
     {{"1:35 /rules/0/path", "empty"}}},
    {"NUL in path",
     "{\"version\": 1, \"rules\": [{\"path\": \"a\\u0000b\", \"action\": \"ask\"}]}",
     0,
     {{"1:35 /rules/0/path", "NUL"}}},
    {"columns count characters, not bytes",
     "{\"version\": 1, \"rules\": [{\"path\": \"\xc3\xa9\xc3\xa9\", \"action\": \"x\"}]}",
     0,
     {{"1:51 /rules/0/action", "not \"x\""}}},
    {"pointer escapes ~ and /",
     "{\"version\": 1, \"rules\": [{\"path\": \"a\", \"action\": \"ask\", \"a/b~c\": 1}]}",
     0,
     {{"1:57 /rules/0/a~1b~0c", "unknown key"}}},
    {"escaped key is decoded",
     "{\"version\": 1, \"rules\": [{\"path\": \"a\", \"action\": \"ask\", \"\\u00e9\": 1}]}",
     0,
     {{"1:57 /rules/0/\xc3\xa9", "unknown key"}}},
    {"every error is reported, good rules kept",
     "{\n"
     "  \"version\": 3,\n"
     "  \"extra\": null,\n"
     "  \"rules\": [\n"
     "    {\"path\": \"ok\", \"action\": \"deny\"},\n"
     "    {\"path\": \"a\", \"action\": \"nope\"},\n"
     "    {\"path\": 7, \"action\": \"ask\", \"access\": \"all\"},\n"
     "    {\"path\": \"ok2\", \"action\": \"allow\", \"access\": \"read\"},\n"
     "    {\"action\": \"deny\", \"why\": 1}\n"
     "  ]\n"
     "}\n",
     2,
     {{"2:14 /version", "number 1"},
      {"3:3 /extra", "unknown key"},
      {"6:29 /rules/1/action", "not \"nope\""},
      {"7:14 /rules/2/path", "must be a string"},
      {"7:44 /rules/2/access", "not \"all\""},
      {"9:5 /rules/4/path", "missing required key 'path'"},
      {"9:24 /rules/4/why", "unknown key"}}},
};

static void run_case(const struct pcase *c)
{
	struct cf_ruleset rs = {0};
	struct cf_diags d = {0};
	struct confine_error err = {0};
	int rc =
	    cf_rules_parse(c->text, strlen(c->text), "f.json", CF_LAYER_WORKSPACE, &rs, &d, &err);
	size_t nwant = 0;
	while (nwant < 8 && c->diags[nwant].where)
		nwant++;
	TAP_INTEQ(rc, nwant ? CONFINE_E_RULES : 0, "%s: return code", c->name);
	/* diagnostics come in document order */
	size_t j = 0;
	for (size_t i = 0; i < d.n && j < nwant; i++) {
		char where[256];
		snprintf(where, sizeof(where), "%d:%d %s", d.v[i].line, d.v[i].column,
			 d.v[i].pointer);
		if (strcmp(where, c->diags[j].where) == 0 &&
		    strstr(d.v[i].message, c->diags[j].msg))
			j++;
	}
	TAP_OK(j == nwant, "%s: %zu diagnostics at the right place", c->name, nwant);
	if (j != nwant) {
		printf("#   missing: %s %s\n", c->diags[j].where, c->diags[j].msg);
		for (size_t i = 0; i < d.n; i++)
			printf("#   got: %d:%d %s: %s\n", d.v[i].line, d.v[i].column,
			       d.v[i].pointer, d.v[i].message);
	}
	TAP_INTEQ(rs.n, c->nrules, "%s: %zu well-formed rules kept", c->name, c->nrules);
	if (nwant) {
		TAP_OK(err.code == CONFINE_E_RULES && err.line == d.v[0].line &&
			   strcmp(err.subject, "f.json") == 0,
		       "%s: err describes the first diagnostic", c->name);
	}
	cf_ruleset_release(&rs);
	cf_diags_release(&d);
}

static void rule_fields(void)
{
	const char *text = "{\"version\": 1, \"rules\": [\n"
			   "  {\"path\": \"dist\", \"access\": \"write\", \"action\": \"allow\"},\n"
			   "  {\"path\": \"~/notes\", \"action\": \"ask\"},\n"
			   "  {\"path\": \"/p\", \"action\": \"deny\", \"access\": \"read\"}]}";
	struct cf_ruleset rs = {0};
	struct cf_diags d = {0};
	int rc = cf_rules_parse(text, strlen(text), "/w/.confine/rules.json", CF_LAYER_USER, &rs,
				&d, NULL);
	TAP_INTEQ(rc, 0, "fields: parses");
	TAP_INTEQ(rs.n, 3, "fields: three rules");
	if (rs.n == 3) {
		TAP_STREQ(rs.v[0].pattern, "dist", "fields: pattern as written");
		TAP_OK(rs.v[0].access == CF_ACC_WRITE && rs.v[0].action == CF_ALLOW,
		       "fields: write allow");
		TAP_OK(rs.v[1].access == CF_ACC_BOTH && rs.v[1].action == CF_ASK,
		       "fields: default access both, ask");
		TAP_OK(rs.v[2].access == CF_ACC_READ && rs.v[2].action == CF_DENY,
		       "fields: read deny");
		TAP_OK(rs.v[1].index == 1 && rs.v[1].line == 3 && rs.v[1].column == 3,
		       "fields: index, line and column of the rule object");
		TAP_OK(rs.v[2].layer == CF_LAYER_USER && rs.v[2].path == NULL,
		       "fields: layer kept, path unresolved");
		TAP_STREQ(rs.v[0].source, "/w/.confine/rules.json", "fields: source is the file");
	}
	cf_ruleset_release(&rs);
	cf_diags_release(&d);
}

static void limits(void)
{
	struct cf_ruleset rs = {0};
	struct cf_diags d = {0};
	/* 1 MiB + 1 byte: refused before parsing */
	size_t big = CF_RULES_MAX_FILE_BYTES + 1;
	char *t = malloc(big);
	memset(t, ' ', big);
	int rc = cf_rules_parse(t, big, "big.json", CF_LAYER_USER, &rs, &d, NULL);
	TAP_OK(rc == CONFINE_E_RULES && d.n == 1 && strstr(d.v[0].message, "1 MiB"),
	       "limit: file larger than 1 MiB");
	free(t);
	cf_diags_release(&d);

	/* a raw NUL byte, which jansson would take for the end of a number */
	static const char nul[] = "{\"version\": 1,\n \"rules\": [3\0]}";
	rc = cf_rules_parse(nul, sizeof(nul) - 1, "nul.json", CF_LAYER_USER, &rs, &d, NULL);
	TAP_OK(rc == CONFINE_E_RULES && d.n == 1 && d.v[0].line == 2 && d.v[0].column == 13 &&
		   strstr(d.v[0].message, "NUL"),
	       "a raw NUL byte is refused with its position");
	cf_diags_release(&d);

	/* 4097 rules */
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_add(&b, "{\"version\": 1, \"rules\": [");
	for (int i = 0; i <= CF_RULES_MAX_RULES; i++)
		cf_buf_addf(&b, "%s{\"path\": \"/r%d\", \"action\": \"deny\"}", i ? "," : "", i);
	cf_buf_add(&b, "]}");
	rc = cf_rules_parse(b.s, b.len, "many.json", CF_LAYER_USER, &rs, &d, NULL);
	TAP_OK(rc == CONFINE_E_RULES && d.n == 1 && strcmp(d.v[0].pointer, "/rules/4096") == 0,
	       "limit: more than 4096 rules");
	cf_buf_release(&b);
	cf_ruleset_release(&rs);
	cf_diags_release(&d);

	/* pattern of 4097 bytes */
	cf_buf_init(&b);
	cf_buf_add(&b, "{\"version\": 1, \"rules\": [{\"action\": \"deny\", \"path\": \"/");
	for (int i = 0; i < CF_RULES_MAX_PATTERN; i++)
		cf_buf_addc(&b, 'x');
	cf_buf_add(&b, "\"}]}");
	rc = cf_rules_parse(b.s, b.len, "long.json", CF_LAYER_USER, &rs, &d, NULL);
	TAP_OK(rc == CONFINE_E_RULES && d.n == 1 && strcmp(d.v[0].pointer, "/rules/0/path") == 0 &&
		   strstr(d.v[0].message, "limit"),
	       "limit: pattern longer than 4096 bytes");
	cf_buf_release(&b);
	cf_ruleset_release(&rs);
	cf_diags_release(&d);
}

struct clicase {
	const char *arg;
	int rc;
	const char *pattern;
	unsigned access;
};

static const struct clicase clis[] = {
    {"dist", 0, "dist", CF_ACC_BOTH},
    {"dist:read", 0, "dist", CF_ACC_READ},
    {"dist:write", 0, "dist", CF_ACC_WRITE},
    {"dist:both", 0, "dist", CF_ACC_BOTH},
    /* Any case is the same word; the text after the last ':' is always the access. */
    {"dist:Read", 0, "dist", CF_ACC_READ},
    {"dist:WRITE", 0, "dist", CF_ACC_WRITE},
    {"dist:bOtH", 0, "dist", CF_ACC_BOTH},
    {"a:b:read", 0, "a:b", CF_ACC_READ},
    {"a:b:both", 0, "a:b", CF_ACC_BOTH},
    {"C:\\secret:write", 0, "C:\\secret", CF_ACC_WRITE},
    /* A typo or a missing access is refused, never a rule on a path that does not exist. */
    {"private:raed", CONFINE_E_INVALID, NULL, 0},
    {"private:", CONFINE_E_INVALID, NULL, 0},
    {"a:b", CONFINE_E_INVALID, NULL, 0},
    {"/x:readonly", CONFINE_E_INVALID, NULL, 0},
    {"/x:write:", CONFINE_E_INVALID, NULL, 0},
    {"/x:subtree", CONFINE_E_INVALID, NULL, 0},
    {"/x:read ", CONFINE_E_INVALID, NULL, 0},
    {"", CONFINE_E_INVALID, NULL, 0},
    {":read", CONFINE_E_INVALID, NULL, 0},
};

static void cli(void)
{
	for (size_t i = 0; i < sizeof(clis) / sizeof(clis[0]); i++) {
		char *pat = NULL;
		unsigned acc = 0;
		struct confine_error err = {0};
		int rc = cf_rule_parse_cli(clis[i].arg, &pat, &acc, &err);
		TAP_INTEQ(rc, clis[i].rc, "cli '%s': return code", clis[i].arg);
		if (rc == 0) {
			TAP_STREQ(pat, clis[i].pattern, "cli '%s': pattern", clis[i].arg);
			TAP_INTEQ(acc, clis[i].access, "cli '%s': access", clis[i].arg);
		} else {
			TAP_OK(pat == NULL && err.code == rc, "cli '%s': error filled",
			       clis[i].arg);
		}
		free(pat);
	}
}

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	rule_fields();
	limits();
	cli();
	return tap_done();
}
