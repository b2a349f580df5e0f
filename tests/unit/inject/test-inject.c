/* SPDX-License-Identifier: MIT */
/*
 * Validation of read-only file injections (SPEC 6, R21), pure: limits, NAME and TARGET syntax,
 * reserved names, duplicates after normalisation, and that a refusal leaves the list as it was.
 * Through the public request API as well (confine_request_add_injection[_n]).
 */
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "policy/inject.h"
#include "util/util.h"

static int add(struct cf_injects *l, enum confine_inject_placement p, const char *where, size_t len,
	       struct confine_error *err)
{
	memset(err, 0, sizeof(*err));
	return cf_injects_add(l, p, where, strlen(where), "x", len, err);
}

static void refused(struct cf_injects *l, enum confine_inject_placement p, const char *where,
		    int code, const char *reason_part, const char *desc)
{
	struct confine_error err;
	size_t before = l->n;
	int r = add(l, p, where, 1, &err);
	TAP_INTEQ(r, code, "R21 refused: %s", desc);
	TAP_OK(strstr(err.reason, reason_part) != NULL, "R21 %s: the reason says '%s' (got '%s')",
	       desc, reason_part, err.reason);
	TAP_STREQ(err.subject, where, "R21 %s: the message names the offending value", desc);
	TAP_INTEQ(l->n, before, "R21 %s: the list is unchanged", desc);
}

static void accepted(struct cf_injects *l, enum confine_inject_placement p, const char *where,
		     const char *desc)
{
	struct confine_error err;
	TAP_INTEQ(add(l, p, where, 1, &err), 0, "R21 accepted: %s (%s)", desc, err.reason);
}

int main(void)
{
	struct cf_injects l = {0};
	struct confine_error err;
	const enum confine_inject_placement E = CONFINE_INJECT_ENV, P = CONFINE_INJECT_PATH;

	/* NAME syntax */
	accepted(&l, E, "CLAUDE_CODE_MANAGED_SETTINGS_PATH", "an ordinary name");
	accepted(&l, E, "_x1", "a leading underscore");
	refused(&l, E, "1ABC", CONFINE_E_INVALID, "[A-Za-z_]", "a leading digit");
	refused(&l, E, "A-B", CONFINE_E_INVALID, "[A-Za-z_]", "a dash");
	refused(&l, E, "A=B", CONFINE_E_INVALID, "[A-Za-z_]", "an '='");
	refused(&l, E, "", CONFINE_E_INVALID, "[A-Za-z_]", "an empty name");

	/* Reserved: loaders, interpreters, shells; case-insensitive. */
	const char *reserved[] = {"LD_PRELOAD",
				  "LD_LIBRARY_PATH",
				  "LD_AUDIT",
				  "DYLD_INSERT_LIBRARIES",
				  "PATH",
				  "NODE_OPTIONS",
				  "PYTHONPATH",
				  "PYTHONSTARTUP",
				  "PERL5LIB",
				  "PERL5OPT",
				  "RUBYOPT",
				  "RUBYLIB",
				  "BASH_ENV",
				  "ENV",
				  "ld_preload",
				  "Path",
				  "BASH_FUNC_x%%",
				  "JAVA_TOOL_OPTIONS",
				  "GIT_CONFIG_GLOBAL",
				  "GCONV_PATH",
				  "LUA_INIT",
				  "OPENSSL_CONF",
				  "CONFINE_X",
				  "SHELLOPTS",
				  "PS4",
				  "GIT_SSH_COMMAND",
				  "EDITOR",
				  "HTTPS_PROXY"};
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++) {
		if (strchr(reserved[i], '%')) {
			TAP_OK(cf_inject_name_reserved("BASH_FUNC_x"),
			       "R21 BASH_FUNC_* is reserved");
			continue;
		}
		refused(&l, E, reserved[i], CONFINE_E_INVALID, "loader, an interpreter or a shell",
			reserved[i]);
	}
	TAP_OK(!cf_inject_name_reserved("GEMINI_CLI_SYSTEM_SETTINGS_PATH"),
	       "R21 GEMINI_CLI_SYSTEM_SETTINGS_PATH is not reserved");
	TAP_OK(!cf_inject_name_reserved("PATHFINDER_CONFIG"),
	       "R21 PATHFINDER_CONFIG is not PATH (whole names, not prefixes)");
	TAP_OK(!cf_inject_name_reserved("MY_ENV"), "R21 MY_ENV is not ENV");

	/* Duplicate names */
	refused(&l, E, "_x1", CONFINE_E_INVALID, "already injected", "the same NAME twice");

	/* TARGET syntax */
	accepted(&l, P, "/etc/codex/requirements.toml", "an absolute path");
	refused(&l, P, "etc/x.toml", CONFINE_E_INVALID, "absolute", "a relative target");
	refused(&l, P, "./x", CONFINE_E_INVALID, "absolute", "a ./ target");
	refused(&l, P, "/etc/../x", CONFINE_E_INVALID, "'..'", "a '..' component");
	refused(&l, P, "/etc/..", CONFINE_E_INVALID, "'..'", "a final '..'");
	accepted(&l, P, "/etc/..x/y", "'..x' is a name, not '..'");
	refused(&l, P, "/", CONFINE_E_INVALID, "root directory", "the root itself");
	refused(&l, P, "//./", CONFINE_E_INVALID, "root directory", "the root, spelt oddly");
	refused(&l, P, "/etc/a\nb", CONFINE_E_INVALID, "control character", "a newline");
	refused(&l, P, "/tmp/.confine-inject/X", CONFINE_E_INVALID, "env-pointer",
		"the env-pointer directory");
	refused(&l, P, "/tmp/.confine-inject", CONFINE_E_INVALID, "env-pointer",
		"the env-pointer directory itself");

	/* Duplicates after normalising ".", "//" and a trailing "/" */
	refused(&l, P, "/etc/codex/requirements.toml", CONFINE_E_INVALID, "already an injection",
		"the same target");
	refused(&l, P, "//etc/./codex//requirements.toml/", CONFINE_E_INVALID,
		"already an injection", "the same target after normalisation");
	refused(&l, P, "/etc/codex/requirements.toml/x", CONFINE_E_INVALID, "beneath",
		"a target beneath an injected file");
	refused(&l, P, "/etc/codex", CONFINE_E_INVALID, "above", "a target above an injected file");
	TAP_STREQ(l.v[l.n - 2].where, "/etc/codex/requirements.toml", "R21 targets are normalised");

	/* NUL: only a length-carrying caller can pass one. */
	{
		size_t before = l.n;
		memset(&err, 0, sizeof(err));
		int r = cf_injects_add(&l, P, "/etc/a\0b", 8, "x", 1, &err);
		TAP_INTEQ(r, CONFINE_E_INVALID, "R21 a NUL in TARGET is refused");
		TAP_STREQ(err.subject, "/etc/a\\0b", "R21 the NUL is shown in the message");
		TAP_OK(strstr(err.reason, "NUL") != NULL, "R21 the reason names the NUL");
		memset(&err, 0, sizeof(err));
		r = cf_injects_add(&l, E, "AB\0C", 4, "x", 1, &err);
		TAP_INTEQ(r, CONFINE_E_INVALID, "R21 a NUL in NAME is refused");
		TAP_INTEQ(l.n, before, "R21 NUL refusals leave the list unchanged");
	}
	cf_injects_release(&l);

	/* Limits: 8 MiB each, 16 MiB in all, 128 injections. */
	{
		unsigned char *big = calloc(1, CONFINE_INJECT_MAX_BYTES + 1);
		TAP_OK(big != NULL, "8 MiB + 1 buffer");
		if (!big)
			return tap_done();
		memset(&err, 0, sizeof(err));
		TAP_INTEQ(cf_injects_add(&l, E, "A", 1, big, CONFINE_INJECT_MAX_BYTES + 1, &err),
			  CONFINE_E_LIMIT, "R21 8 MiB + 1 is refused");
		TAP_OK(strstr(err.reason, "8 MiB") != NULL, "R21 the reason names the limit");
		TAP_INTEQ(l.n, 0, "R21 nothing added");
		memset(&err, 0, sizeof(err));
		TAP_INTEQ(cf_injects_add(&l, E, "A", 1, big, CONFINE_INJECT_MAX_BYTES, &err), 0,
			  "R21 exactly 8 MiB is accepted");
		TAP_INTEQ(cf_injects_add(&l, E, "B", 1, big, CONFINE_INJECT_MAX_BYTES, &err), 0,
			  "R21 16 MiB in all is accepted");
		memset(&err, 0, sizeof(err));
		TAP_INTEQ(cf_injects_add(&l, E, "C", 1, big, 1, &err), CONFINE_E_LIMIT,
			  "R21 16 MiB + 1 in all is refused");
		TAP_OK(strstr(err.reason, "16 MiB") != NULL,
		       "R21 the reason names the total limit");
		TAP_STREQ(err.subject, "C", "R21 the message names the injection over the total");
		TAP_OK(l.total == 2ULL * CONFINE_INJECT_MAX_BYTES, "R21 the total is unchanged");
		free(big);
		cf_injects_release(&l);
	}
	{
		char name[32];
		int r = 0;
		for (int i = 0; i < CONFINE_INJECT_MAX_COUNT && r == 0; i++) {
			snprintf(name, sizeof(name), "V%d", i);
			r = cf_injects_add(&l, E, name, strlen(name), "", 0, &err);
		}
		TAP_INTEQ(r, 0, "R21 128 injections are accepted");
		memset(&err, 0, sizeof(err));
		TAP_INTEQ(cf_injects_add(&l, E, "V128", 4, "", 0, &err), CONFINE_E_LIMIT,
			  "R21 the 129th injection is refused");
		TAP_STREQ(err.subject, "V128", "R21 the message names the 129th");
		TAP_OK(strstr(err.reason, "128") != NULL, "R21 the reason names the limit");
		cf_injects_release(&l);
	}

	/* Empty content is an injection like any other; NULL data only with length 0. */
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(cf_injects_add(&l, E, "EMPTY", 5, NULL, 0, &err), 0, "R21 empty content");
	TAP_INTEQ(cf_injects_add(&l, E, "NULLDATA", 8, NULL, 3, &err), CONFINE_E_INVALID,
		  "R21 NULL data with a length is refused");
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(cf_injects_add(&l, (enum confine_inject_placement)7, "X", 1, "", 0, &err),
		  CONFINE_E_INVALID, "R21 an unknown placement is refused");
	cf_injects_release(&l);

	/* Records and env paths */
	char *rec = cf_inject_record(E, "N", "ab");
	TAP_STREQ(rec, "env:N=ab", "the env record");
	free(rec);
	rec = cf_inject_record(P, "/etc/x", "ab");
	TAP_STREQ(rec, "path:/etc/x=ab", "the path record");
	free(rec);
	rec = cf_inject_env_path("N");
	TAP_STREQ(rec, "/tmp/.confine-inject/N", "the env-pointer file's path");
	free(rec);

	/* The public API: the request keeps only what was accepted. */
	confine_request *req = NULL;
	TAP_INTEQ(confine_request_new(&req, &err), 0, "a request");
	TAP_INTEQ(confine_request_add_injection(req, E, "GOOD", "abc", 3, &err), 0,
		  "confine_request_add_injection");
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(confine_request_add_injection(req, E, "LD_PRELOAD", "abc", 3, &err),
		  CONFINE_E_INVALID, "confine_request_add_injection refuses LD_PRELOAD");
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(confine_request_add_injection_n(req, P, "/a\0b", 4, "abc", 3, &err),
		  CONFINE_E_INVALID, "confine_request_add_injection_n refuses a NUL");
	TAP_INTEQ(confine_request_add_injection(req, P, NULL, "abc", 3, &err), CONFINE_E_INVALID,
		  "a NULL target is refused");
	confine_request_free(req);
	return tap_done();
}
