/* SPDX-License-Identifier: MIT */
/*
 * The canonical request (confine-request-v2) byte for byte, with digests computed
 * independently (Python's hashlib over the same literal bytes), so that a change of the
 * encoding cannot pass unnoticed; every field changes the digest; the title comes from the kind,
 * the program and the targets only; denial lines give the paths they name.
 */
#include <stdlib.h>
#include <string.h>

#include "approve/card.h"
#include "record/denials.h"
#include "approve/encoding.h"
#include "record/json.h"
#include "util/utf8.h"
#include "../tap.h"

static struct cf_strv strv(const char *const *v)
{
	struct cf_strv s = {0};
	for (; *v; v++)
		cf_strv_add(&s, *v);
	return s;
}

static const char want_grant[] = "confine-request-v2\n"
				 "id 2:r1\n"
				 "uses once\n"
				 "kind 11:write-grant\n"
				 "program 13:/usr/bin/make\n"
				 "argv 3\n"
				 "arg 4:make\n"
				 "arg 7:a b\nc\"d\n"
				 "arg 0:\n"
				 "cwd 10:/home/u/ws\n"
				 "workspace 10:/home/u/ws\n"
				 "env 1\n"
				 "set 5:X=1 2\n"
				 "targets 2\n"
				 "file 17:/home/u/notes.txt\n"
				 "subtree 11:/home/u/out\n"
				 "reason 10:build docs\n"
				 "end\n";

static char *digest_of(const struct cf_card_input *in)
{
	struct confine_card *c = NULL;
	if (cf_card_make(in, "id", &c, NULL) < 0)
		return NULL;
	char *d = cf_strdup(c->digest);
	confine_card_free(c);
	return d;
}

/* Whether m's digest differs from base (TAP_OK evaluates its condition twice). */
static bool differs(const struct cf_card_input *m, const char *base)
{
	char *x = digest_of(m);
	bool d = x && strcmp(x, base);
	free(x);
	return d;
}

static void test_encoding(void)
{
	struct cf_strv argv = strv((const char *[]){"make", "a b\nc\"d", "", NULL});
	struct cf_strv env = strv((const char *[]){"X=1 2", NULL});
	struct cf_grants g = {.n = 2, .reason = "build docs"};
	g.v[0] = (struct cf_grant){"/home/u/notes.txt", CF_GRANT_FILE};
	g.v[1] = (struct cf_grant){"/home/u/out", CF_GRANT_SUBTREE};
	struct cf_card_input in = {.id = "r1",
				   .escalate = false,
				   .argv = &argv,
				   .program = "/usr/bin/make",
				   .cwd = "/home/u/ws",
				   .workspace = "/home/u/ws",
				   .env_set = &env,
				   .grants = &g};
	struct cf_buf b;
	cf_buf_init(&b);
	cf_request_encode(&in, &b);
	TAP_OK(b.len == sizeof(want_grant) - 1 && !memcmp(b.s, want_grant, b.len),
	       "R22 confine-request-v2: a write grant encodes byte for byte as documented");
	cf_buf_release(&b);
	char *d = digest_of(&in);
	TAP_STREQ(d, "1d8466f20d2710e19be20a655388d852e7529e25856cb150416276c8d15a315d",
		  "R22 its digest is the SHA-256 of those bytes (computed by hashlib)");

	struct confine_card *c = NULL;
	TAP_INTEQ(cf_card_make(&in, "r1", &c, NULL), 0, "the card is built");
	TAP_STREQ(c->title, "Let \"make\" write to 2 paths, this once",
		  "the title: kind, program and the number of targets (the reason is not in it)");
	TAP_INTEQ(c->n_targets, 2, "both targets on the card");
	TAP_STREQ(confine_card_target(c, 1)->scope, "subtree", "with their scope");
	TAP_OK(confine_card_target(c, 2) == NULL, "and no third target");
	TAP_STREQ(c->reason, "build docs", "and the reason beside them");
	confine_card_free(c);

	/* Every field is part of the digest. */
	const char *base = d;
	struct cf_card_input m;
	m = in;
	m.cwd = "/home/u/ws/sub";
	TAP_OK(differs(&m, base), "another cwd, another digest");
	m = in;
	m.workspace = "/home/u";
	TAP_OK(differs(&m, base), "another workspace, another digest");
	m = in;
	m.program = "/tmp/make";
	TAP_OK(differs(&m, base), "another program, another digest");
	struct cf_strv argv2 = strv((const char *[]){"make", "a b\nc\"d", NULL});
	m = in;
	m.argv = &argv2;
	TAP_OK(differs(&m, base), "one argument fewer, another digest");
	struct cf_strv argv3 = strv((const char *[]){"make", "a b", "c\"d", "", NULL});
	m = in;
	m.argv = &argv3;
	TAP_OK(differs(&m, base), "a newline inside an argument is not an argument boundary");
	struct cf_grants g2 = g;
	g2.v[0] = g.v[1];
	g2.v[1] = g.v[0];
	m = in;
	m.grants = &g2;
	TAP_OK(differs(&m, base), "the targets in another order, another digest");
	g2 = g;
	g2.n = 1;
	m.grants = &g2;
	TAP_OK(differs(&m, base), "one target fewer, another digest");
	g2 = g;
	g2.reason = "build docs!";
	m.grants = &g2;
	TAP_OK(differs(&m, base), "another reason, another digest");
	m = in;
	m.env_set = NULL;
	TAP_OK(differs(&m, base), "without the --env assignment, another digest");
	m = in;
	m.id = "r2";
	TAP_OK(differs(&m, base), "another request id, another digest: each card its own approval");
	m = in;
	m.reusable = true;
	TAP_OK(differs(&m, base), "a reusable approval, another digest");
	TAP_INTEQ(cf_card_make(&m, "r1", &c, NULL), 0, "the reusable card is built");
	TAP_OK(c->reusable && !strcmp(c->title, "Let \"make\" write to 2 paths, reusable") &&
		   !strcmp(c->where,
			   "inside the sandbox, reusable, with write access to the targets") &&
		   !strncmp(c->uses, "reusable: ", 10),
	       "a reusable card says so: title, where, uses (%s)", c->title);
	confine_card_free(c);
	free(d);

	struct cf_strv ea = strv((const char *[]){"cat", "\xff\xfe/x", NULL});
	struct cf_card_input esc = {.escalate = true,
				    .argv = &ea,
				    .program = "/usr/bin/cat",
				    .cwd = "/w",
				    .workspace = "/w"};
	d = digest_of(&esc);
	TAP_STREQ(d, "6684ffeb87578e7a775245e4d532e1f260da10d9ba4e747bbb0a88933be41b3f",
		  "R22 an escalation with bytes that are not UTF-8: the documented digest");
	free(d);
	TAP_INTEQ(cf_card_make(&esc, "r2", &c, NULL), 0, "its card");
	TAP_STREQ(c->title, "Run \"cat\" outside the sandbox, this once", "the escalation title");
	TAP_STREQ(c->where, "outside the sandbox, this once",
		  "R22 'outside the sandbox, this once'");
	TAP_OK(!c->reusable && !strcmp(c->uses, "once: the receipt is spent when its run starts, "
						"and a second run with it is refused"),
	       "the card says the receipt is spent when its run starts");
	TAP_OK(strstr(c->guards, "the guards do not apply") != NULL, "R22 the guards do not apply");
	confine_card_free(c);

	struct cf_strv spoof = strv((const char *[]){"/x/\x1b[2Jok\xe2\x80\xae", NULL});
	esc.argv = &spoof;
	TAP_INTEQ(cf_card_make(&esc, "r3", &c, NULL), 0, "a card for a spoofing program name");
	TAP_STREQ(c->title, "Run \"\\x1b[2Jok\\u{202E}\" outside the sandbox, this once",
		  "escape and text-direction characters are shown escaped in the title");
	confine_card_free(c);
	cf_strv_release(&argv);
	cf_strv_release(&argv2);
	cf_strv_release(&argv3);
	cf_strv_release(&env);
	cf_strv_release(&ea);
	cf_strv_release(&spoof);
}

struct dcase {
	const char *line;
	const char *want; /* paths joined by '|' */
};

static const struct dcase dcases[] = {
    {"cat: /home/u/.ssh/id_ed25519: Permission denied", "/home/u/.ssh/id_ed25519"},
    {"touch: cannot touch '/etc/x': Read-only file system", "/etc/x"},
    {"touch: cannot touch \xe2\x80\x98/etc/a b\xe2\x80\x99: Read-only file system", "/etc/a b"},
    {"sh: 1: cannot create /w/.git/hooks/x: Read-only file system", "/w/.git/hooks/x"},
    {"/bin/sh: 1: cannot create /w/x: Permission denied", "/w/x"},
    {"/w/x: Permission denied", "/w/x"},
    {"PermissionError: [Errno 13] Permission denied: '/home/u/.aws/credentials'",
     "/home/u/.aws/credentials"},
    {"mv: cannot move '/a/b' to '/c/d': Operation not permitted", "/a/b|/c/d"},
    {"open(/x/./y//z): Operation not permitted", "/x/y/z"},
    {"cat: /etc/passwd: No such file or directory", ""},
    {"cat: relative/path: Permission denied", ""},
    {"error: / : Permission denied", ""},
};

static void test_denials(void)
{
	for (size_t i = 0; i < sizeof(dcases) / sizeof(dcases[0]); i++) {
		struct cf_denials d = {0};
		struct cf_buf b;
		cf_buf_init(&b);
		cf_buf_add(&b, "");
		cf_denials_line(&d, dcases[i].line, strlen(dcases[i].line));
		for (size_t k = 0; k < d.n; k++) {
			if (k)
				cf_buf_addc(&b, '|');
			cf_buf_add(&b, d.path[k]);
		}
		TAP_STREQ(b.s, dcases[i].want, "R23 denial line: %s", dcases[i].line);
		cf_buf_release(&b);
		cf_denials_release(&d);
	}
	/* Fed in pieces, across chunk boundaries, the last line without a newline. */
	struct cf_denials d = {0};
	const char *stream = "noise\ncat: /a: Permiss";
	cf_denials_feed(&d, stream, strlen(stream));
	cf_denials_feed(&d, "ion denied\nx: /b: Permission denied", 35);
	TAP_INTEQ(d.n, 1, "a line is looked at once its newline arrives");
	cf_denials_finish(&d);
	TAP_OK(d.n == 2 && !strcmp(d.path[0], "/a") && !strcmp(d.path[1], "/b"),
	       "and the last line at the end of the stream");
	cf_denials_release(&d);
	/* A line longer than the scanner keeps is passed over, not half-read. */
	char *longline = malloc(CF_DENIAL_LINE_MAX + 64);
	memset(longline, 'x', CF_DENIAL_LINE_MAX + 10);
	memcpy(longline + CF_DENIAL_LINE_MAX + 10, " /c: Permission denied\n", 24);
	cf_denials_feed(&d, longline, CF_DENIAL_LINE_MAX + 10 + 23);
	cf_denials_feed(&d, "x: /d: Permission denied\n", 25);
	TAP_OK(d.n == 1 && !strcmp(d.path[0], "/d"),
	       "an overlong line is skipped; the next is read");
	cf_denials_release(&d);
	free(longline);
}

static void test_json(void)
{
	struct cf_jobj j;
	cf_jobj_init(&j);
	char *v[] = {"ok",
		     "\xff"
		     "a",
		     NULL};
	cf_jput_strv(&j, "argv", v, 2);
	cf_jput_str(&j, "cwd", "/\xc3\x28");
	char *s = cf_jobj_dump(&j);
	TAP_STREQ(s,
		  "{\"argv\":[\"ok\",\"\xef\xbf\xbd"
		  "a\"],\"argv_hex\":[null,\"ff61\"],\"cwd\":\"/\xef\xbf\xbd(\",\"cwd_hex\":"
		  "\"2fc328\"}",
		  "R24 invalid bytes: U+FFFD in the string, the exact bytes in KEY_hex");
	free(s);
	char *dsp = cf_display("a\\b\x07\xff\xe2\x80\xa8");
	TAP_STREQ(dsp, "a\\\\b\\x07\\xff\\u{2028}",
		  "display escaping: backslash, control, invalid, separator");
	free(dsp);
}

int main(void)
{
	test_encoding();
	test_denials();
	test_json();
	return tap_done();
}
