/* SPDX-License-Identifier: MIT */
/*
 * ABI v1 as a host meets it (include/confine.h, doc/library.md), linked to libconfine.so.1 with
 * the public header alone: the version, confine_free, one return convention (0 or a negative
 * CONFINE_E_*, the parsers included), setters that refuse what they are given, structs that
 * carry their size (filled no further than the caller's .size, zeroed past what the library
 * knows), lists read one element at a time, and the calls the CLI needed: a rule's text, a rule
 * file's check, a plan for another system, results as JSON and text, the caller's own errors.
 */
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../unit/tap.h"
#include "confine.h"

static const char *helper = CONFINE_TEST_HELPER_DIR "/confine-init";

static void test_version(void)
{
	const struct confine_version_info *v = confine_version();
	char text[64];
	TAP_OK(v != NULL && v->size >= sizeof(*v),
	       "confine_version: a static struct with its size");
	if (!v)
		return;
	snprintf(text, sizeof(text), "%u.%u.%u", v->major, v->minor, v->micro);
	TAP_STREQ(v->text, text, "confine_version: the text is MAJOR.MINOR.MICRO (%s)", v->text);
	TAP_INTEQ(v->abi, CONFINE_ABI, "confine_version: ABI %d, libconfine.so.%d", CONFINE_ABI,
		  CONFINE_ABI);
	/* The header of this build and the library of this build (meson's project version). */
	TAP_STREQ(v->text, CONFINE_VERSION, "the library's version is this header's");
	TAP_OK(confine_version() == v, "the same struct every time");
	confine_free(NULL);
	TAP_OK(1, "confine_free(NULL) does nothing");
}

static void test_errors(void)
{
	struct confine_error err = {0};
	TAP_INTEQ(confine_error_set(&err, CONFINE_E_INVALID, "bad", "x", "n=%d", 3),
		  CONFINE_E_INVALID, "confine_error_set returns the code");
	TAP_OK(!strcmp(err.what, "bad") && !strcmp(err.subject, "x") && !strcmp(err.reason, "n=3"),
	       "and fills what, subject and the formatted reason");
	confine_error_hint(&err, "do %s", "this");
	TAP_STREQ(err.hint, "do this", "confine_error_hint sets the remedy");
	confine_error_hint(&err, "do that");
	TAP_STREQ(err.hint, "do this", "a second hint never replaces the first");
	TAP_INTEQ(confine_error_set(&err, CONFINE_E_OS, "later", "y", NULL), CONFINE_E_OS,
		  "a second failure returns its own code");
	TAP_OK(err.code == CONFINE_E_INVALID && !strcmp(err.what, "bad"),
	       "and leaves the first failure whole");
	memset(&err, 0, sizeof(err));
	confine_error_hint(&err, "nothing to attach to");
	TAP_STREQ(err.hint, "", "no hint on an empty error");
	TAP_INTEQ(confine_error_set_os(&err, CONFINE_E_OS, "cannot open", "/f", "open", 2),
		  CONFINE_E_OS, "confine_error_set_os returns the code");
	TAP_OK(err.os_errno == 2 && !strcmp(err.syscall, "open") && err.reason[0],
	       "and keeps the system call, errno and its text (%s)", err.reason);
	TAP_INTEQ(confine_error_set(NULL, CONFINE_E_NOMEM, "x", NULL, NULL), CONFINE_E_NOMEM,
		  "err may be NULL");
}

/* *_parse return 0 or CONFINE_E_INVALID, like everything else. */
static void test_parsers(void)
{
	struct confine_error err = {0};
	enum confine_policy p = CONFINE_POLICY_OFF;
	TAP_INTEQ(confine_policy_parse(" Off\n", &p, &err), 0, "policy_parse(\" Off\") is 0");
	TAP_INTEQ(p, CONFINE_POLICY_OFF, "... OFF");
	TAP_INTEQ(confine_policy_parse("required", &p, &err), 0, "policy_parse(required) is 0");
	p = CONFINE_POLICY_OFF;
	TAP_INTEQ(confine_policy_parse("offf", &p, &err), CONFINE_E_INVALID,
		  "policy_parse(offf) is CONFINE_E_INVALID");
	TAP_OK(p == CONFINE_POLICY_REQUIRED && err.code == CONFINE_E_INVALID,
	       "... with *out REQUIRED, the safe reading, and err filled ('%s')", err.subject);
	TAP_INTEQ(confine_policy_parse(NULL, &p, NULL), CONFINE_E_INVALID,
		  "policy_parse(NULL) is CONFINE_E_INVALID");

	enum confine_backend b = CONFINE_BACKEND_BWRAP;
	TAP_INTEQ(confine_backend_parse("LANDLOCK ", &b, NULL), 0, "backend_parse(LANDLOCK) is 0");
	TAP_INTEQ(b, CONFINE_BACKEND_LANDLOCK, "... LANDLOCK");
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(confine_backend_parse("bwarp", &b, &err), CONFINE_E_INVALID,
		  "backend_parse(bwarp) is CONFINE_E_INVALID");
	TAP_OK(b == CONFINE_BACKEND_LANDLOCK && !strcmp(err.subject, "bwarp"),
	       "... *out unchanged, the value named");

	char *pat = NULL;
	enum confine_access acc = 0;
	TAP_INTEQ(confine_rule_parse("a:b/c:write", &pat, &acc, NULL), 0,
		  "rule_parse(a:b/c:write)");
	TAP_OK(pat && !strcmp(pat, "a:b/c") && acc == CONFINE_ACCESS_WRITE,
	       "... the path keeps its ':', the access is write");
	confine_free(pat);
	pat = NULL;
	TAP_INTEQ(confine_rule_parse("~/.cache", &pat, &acc, NULL), 0, "rule_parse(~/.cache)");
	TAP_OK(pat && !strcmp(pat, "~/.cache") && acc == CONFINE_ACCESS_BOTH, "... both");
	confine_free(pat);
	pat = NULL;
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(confine_rule_parse(":read", &pat, &acc, &err), CONFINE_E_INVALID,
		  "rule_parse(:read): an empty path is CONFINE_E_INVALID");
	TAP_OK(pat == NULL && err.code == CONFINE_E_INVALID, "... nothing allocated, err filled");

	char *e = NULL;
	TAP_INTEQ(confine_display_escape("a\nb", 0, &e, NULL), 0, "display_escape returns 0");
	TAP_STREQ(e, "a\\x0ab", "... and the escape in *out");
	confine_free(e);
}

/* Every setter refuses a NULL request, and the ones that take a number refuse what would
 * not work; what they accept they return 0 for. */
static void test_setters(void)
{
	struct confine_error err = {0};
	confine_request *req = NULL;
	TAP_INTEQ(confine_request_new(&req, &err), 0, "a request");
	if (!req)
		return;
#define NULL_REQ(call, name)                                                                       \
	do {                                                                                       \
		memset(&err, 0, sizeof(err));                                                      \
		TAP_OK((call) == CONFINE_E_INVALID && err.code == CONFINE_E_INVALID,               \
		       "%s(NULL request) is CONFINE_E_INVALID", name);                             \
	} while (0)
	NULL_REQ(confine_request_set_network(NULL, false, &err), "set_network");
	NULL_REQ(confine_request_set_tmp_size(NULL, 1024, &err), "set_tmp_size");
	NULL_REQ(confine_request_set_limits(NULL, 10, 0, &err), "set_limits");
	NULL_REQ(confine_request_set_timeout(NULL, 10, &err), "set_timeout");
	NULL_REQ(confine_request_set_kill_grace(NULL, 10, &err), "set_kill_grace");
	NULL_REQ(confine_request_env_clear(NULL, true, &err), "env_clear");
	NULL_REQ(confine_request_set_escalate(NULL, true, &err), "set_escalate");
	NULL_REQ(confine_request_set_reusable(NULL, true, &err), "set_reusable");
	NULL_REQ(confine_request_set_denial_scan(NULL, true, &err), "set_denial_scan");
	NULL_REQ(confine_request_set_net_ask(NULL, NULL, NULL, &err), "set_net_ask");
	NULL_REQ(confine_request_set_tty(NULL, CONFINE_TTY_AUTO, &err), "set_tty");
	NULL_REQ(confine_request_set_stdio(NULL, -1, -1, -1, &err), "set_stdio");
	NULL_REQ(confine_request_set_ssh_agent(NULL, true, &err), "set_ssh_agent");
	NULL_REQ(confine_request_add_ssh_key(NULL, "SHA256:x", &err), "add_ssh_key");
	NULL_REQ(confine_request_add_secret(NULL, "T=T@api.example", &err), "add_secret");
	NULL_REQ(confine_request_tls_inspect(NULL, "api.example", &err), "tls_inspect");
#undef NULL_REQ
	/* R44, R45: what the secrets' setters cannot honour. */
	TAP_INTEQ(confine_request_add_ssh_key(req, "SHA256:short", NULL), CONFINE_E_INVALID,
		  "add_ssh_key(a fingerprint too short) is CONFINE_E_INVALID");
	TAP_INTEQ(confine_request_add_ssh_key(req, "a\nb", NULL), CONFINE_E_INVALID,
		  "add_ssh_key(two lines) is CONFINE_E_INVALID");
	TAP_INTEQ(confine_request_add_secret(req, "T=T", NULL), CONFINE_E_INVALID,
		  "add_secret(no host) is CONFINE_E_INVALID");
	TAP_INTEQ(confine_request_add_secret(req, "PATH=T@api.example", NULL), CONFINE_E_INVALID,
		  "add_secret(a variable confine sets) is CONFINE_E_INVALID");
	TAP_INTEQ(confine_request_tls_inspect(req, "api.example,", NULL), CONFINE_E_INVALID,
		  "tls_inspect(an empty host) is CONFINE_E_INVALID");
	TAP_INTEQ(confine_request_tls_inspect(req, "api.example", NULL), 0, "tls_inspect is 0");
	TAP_INTEQ(confine_run_agent_event_count(NULL), 0, "agent_event_count(NULL run) is 0");
	TAP_OK(confine_run_agent_event(NULL, 0) == NULL, "agent_event(NULL run) is NULL");
	TAP_INTEQ(confine_run_agent_events_dropped(NULL), 0, "agent_events_dropped(NULL) is 0");
	TAP_INTEQ(confine_run_secret_event_count(NULL), 0, "secret_event_count(NULL run) is 0");
	TAP_OK(confine_run_secret_event(NULL, 0) == NULL, "secret_event(NULL run) is NULL");
	TAP_INTEQ(confine_run_secret_events_dropped(NULL), 0, "secret_events_dropped(NULL) is 0");
	TAP_INTEQ(confine_request_set_network(req, false, NULL), 0, "set_network(false) is 0");
	TAP_INTEQ(confine_request_env_clear(req, true, NULL), 0, "env_clear(true) is 0");
	TAP_INTEQ(confine_request_set_escalate(req, false, NULL), 0, "set_escalate(false) is 0");
	TAP_INTEQ(confine_request_set_reusable(req, false, NULL), 0, "set_reusable(false) is 0");
	TAP_INTEQ(confine_request_set_denial_scan(req, true, NULL), 0, "set_denial_scan is 0");
	TAP_INTEQ(confine_request_set_net_ask(req, NULL, NULL, NULL), 0, "set_net_ask(none) is 0");
	TAP_INTEQ(confine_request_set_tty(req, (enum confine_tty)3, NULL), CONFINE_E_INVALID,
		  "set_tty(3): a value outside the enum is refused");
	TAP_INTEQ(confine_request_set_tty(req, CONFINE_TTY_OFF, NULL), 0, "set_tty(OFF) is 0");

	memset(&err, 0, sizeof(err));
	TAP_INTEQ(confine_request_set_tmp_size(req, 0, &err), CONFINE_E_INVALID,
		  "set_tmp_size(0) is refused: a tmpfs of size 0 has no cap");
	TAP_INTEQ(confine_request_set_tmp_size(req, 64u << 20, NULL), 0, "set_tmp_size(64M) is 0");
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(confine_request_set_limits(req, CONFINE_LIMIT_PIDS_MAX + 1ull, 0, &err),
		  CONFINE_E_INVALID,
		  "set_limits(pids above the kernel's PID_MAX_LIMIT) is refused");
	TAP_OK(strstr(err.reason, "4194304") != NULL, "... and says the largest (%s)", err.reason);
	TAP_INTEQ(confine_request_set_limits(req, CONFINE_LIMIT_PIDS_MAX, 1ull << 40, NULL), 0,
		  "set_limits(PID_MAX_LIMIT, 1 TiB) is 0");
	TAP_INTEQ(confine_request_set_timeout(req, CONFINE_DURATION_MAX_MS + 1ull, NULL),
		  CONFINE_E_INVALID, "set_timeout above CONFINE_DURATION_MAX_MS is refused");
	TAP_INTEQ(confine_request_set_timeout(req, CONFINE_DURATION_MAX_MS, NULL), 0,
		  "set_timeout(CONFINE_DURATION_MAX_MS) is 0");
	/* UINT64_MAX would wrap the deadline (start + grace) and kill at once. */
	TAP_INTEQ(confine_request_set_kill_grace(req, UINT64_MAX, NULL), CONFINE_E_INVALID,
		  "set_kill_grace(UINT64_MAX) is refused");
	TAP_INTEQ(confine_request_set_kill_grace(req, 0, NULL), 0, "set_kill_grace(0) is 0");
	TAP_INTEQ(confine_run_forward_signal(NULL, SIGTERM), CONFINE_E_INVALID,
		  "forward_signal(NULL run) is CONFINE_E_INVALID");
	TAP_INTEQ(confine_run_restore_terminal(NULL), CONFINE_E_INVALID,
		  "restore_terminal(NULL run) is CONFINE_E_INVALID");
	confine_request_free(req);
}

/* confine_request_set_stdio: -1 or an open descriptor; anything else is refused with a hint. */
static void test_set_stdio(void)
{
	struct confine_error err = {0};
	confine_request *req = NULL;
	int p[2];
	if (confine_request_new(&req, NULL) < 0 || pipe(p) < 0) {
		TAP_OK(0, "set_stdio: a request and a pipe");
		confine_request_free(req);
		return;
	}
	int closed = dup(p[0]);
	close(closed);
	TAP_INTEQ(confine_request_set_stdio(req, -1, -1, -1, NULL), 0, "set_stdio(-1 x3) is 0");
	TAP_INTEQ(confine_request_set_stdio(req, p[0], p[1], p[1], NULL), 0,
		  "set_stdio(a pipe's ends) is 0");
	TAP_INTEQ(confine_request_set_stdio(req, closed, -1, -1, &err), CONFINE_E_INVALID,
		  "set_stdio(a closed descriptor as stdin) is CONFINE_E_INVALID");
	TAP_OK(err.code == CONFINE_E_INVALID && !strcmp(err.subject, "stdin") && err.hint[0],
	       "... names stdin and gives a hint (%s / %s)", err.reason, err.hint);
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(confine_request_set_stdio(req, -1, -1, -2, &err), CONFINE_E_INVALID,
		  "set_stdio(-2 as stderr) is CONFINE_E_INVALID");
	TAP_OK(!strcmp(err.subject, "stderr"), "... names stderr (%s)", err.subject);
	TAP_INTEQ(confine_request_set_stdio(req, -1, INT_MAX, -1, NULL), CONFINE_E_INVALID,
		  "set_stdio(INT_MAX as stdout) is CONFINE_E_INVALID");
	TAP_INTEQ(confine_request_set_stdio(req, -1, INT_MIN, -1, NULL), CONFINE_E_INVALID,
		  "set_stdio(INT_MIN as stdout) is CONFINE_E_INVALID");
	close(p[0]);
	close(p[1]);
	confine_request_free(req);
}

/* A request for `ws` with the environment of `home`, ready to prepare. */
static confine_request *request(const char *ws, const char *home, const char *const *argv,
				size_t argc)
{
	static char home_env[600];
	snprintf(home_env, sizeof(home_env), "HOME=%s", home);
	const char *env[] = {"PATH=/usr/bin:/bin", home_env, NULL};
	confine_request *req = NULL;
	struct confine_error err = {0};
	if (confine_request_new(&req, &err) < 0 ||
	    confine_request_set_argv(req, argc, argv, &err) < 0 ||
	    confine_request_set_workspace(req, ws, &err) < 0 ||
	    confine_request_set_environment(req, env, &err) < 0 ||
	    confine_request_set_helper(req, helper, &err) < 0) {
		printf("# request: %s: %s\n", err.what, err.reason);
		confine_request_free(req);
		return NULL;
	}
	return req;
}

/* A caller's struct is filled no further than its .size says. */
static void test_sized(const char *ws, const char *home)
{
	struct confine_error err = {0};
	confine_request *req = request(ws, home, (const char *const[]){"true"}, 1);
	confine_rules *rules = NULL;
	char key[700];
	snprintf(key, sizeof(key), "%s/.ssh/id_rsa", home);
	TAP_INTEQ(req ? confine_rules_load(req, &rules, &err) : -1, 0, "rules loaded (%s)",
		  err.reason);
	if (!rules) {
		confine_request_free(req);
		return;
	}
	struct confine_decision d = {0};
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(confine_rules_explain(rules, key, CONFINE_ACCESS_READ, &d, &err),
		  CONFINE_E_INVALID, "explain into a struct whose .size is 0: CONFINE_E_INVALID");
	TAP_OK(strstr(err.hint, "sizeof(struct confine_decision)") != NULL,
	       "... the hint says to set it (%s)", err.hint);
	d.size = sizeof(d);
	TAP_INTEQ(confine_rules_explain(rules, key, CONFINE_ACCESS_READ, &d, NULL), 0,
		  "explain with .size = sizeof");
	TAP_OK(d.size == sizeof(d) && d.action == CONFINE_DENY && !strcmp(d.layer, "guard"),
	       "a guard denies ~/.ssh, .size says all of it was filled");
	char *json = NULL;
	TAP_INTEQ(confine_decision_json(&d, &json, NULL), 0, "confine_decision_json");
	TAP_OK(json && strstr(json, "\"decision\": \"deny\", \"layer\": \"guard\""),
	       "... as explain --json lists it (%s)", json ? json : "");
	confine_free(json);

	/* A host built with a newer header: a larger struct, its tail zeroed. */
	size_t big = sizeof(d) + 64;
	unsigned char *buf = malloc(big);
	if (buf) {
		memset(buf, 0xAA, big);
		memcpy(buf, &big, sizeof(big));
		TAP_INTEQ(confine_rules_explain(rules, key, CONFINE_ACCESS_READ,
						(struct confine_decision *)buf, NULL),
			  0, "a newer caller's larger struct");
		size_t got;
		memcpy(&got, buf, sizeof(got));
		bool zero = true;
		for (size_t i = sizeof(d); i < big; i++)
			zero = zero && buf[i] == 0;
		TAP_OK(got == sizeof(d) && zero,
		       "... .size says what this library filled, the rest reads as zero");
		/* A caller of v1 exactly: nothing is written past its end. */
		size_t v1 = offsetof(struct confine_decision, outranked_pattern) + 4096;
		memset(buf, 0xAA, big);
		memcpy(buf, &v1, sizeof(v1));
		TAP_INTEQ(confine_rules_explain(rules, key, CONFINE_ACCESS_READ,
						(struct confine_decision *)buf, NULL),
			  0, "a caller whose struct is v1's size (%zu bytes)", v1);
		bool untouched = true;
		for (size_t i = v1; i < big; i++)
			untouched = untouched && buf[i] == 0xAA;
		TAP_OK(untouched, "... not one byte written past its .size");
		free(buf);
	}

	struct confine_net_decision nd = {.size = sizeof(nd)};
	TAP_INTEQ(confine_rules_explain_net(rules, "example.com:80", &nd, NULL), 0,
		  "explain_net with .size = sizeof");
	TAP_OK(nd.size == sizeof(nd) && nd.port == 80 && !strcmp(nd.host, "example.com"),
	       "... host and port");
	TAP_INTEQ(confine_net_decision_json(&nd, CONFINE_NET_ON, &json, NULL), 0,
		  "confine_net_decision_json");
	TAP_OK(json && strstr(json, "\"network\": \"example.com\", \"port\": 80"),
	       "... as explain --json --net lists it");
	confine_free(json);
	nd.size = 3;
	TAP_INTEQ(confine_rules_explain_net(rules, "example.com", &nd, NULL), CONFINE_E_INVALID,
		  "explain_net into a struct smaller than v1's: refused");
	confine_rules_free(rules);

	struct confine_probe_result pr = {.size = sizeof(pr)};
	TAP_INTEQ(confine_probe_landlock(&pr, NULL), 0, "probe_landlock with .size = sizeof");
	TAP_STREQ(pr.backend, "landlock", "... the landlock backend's answer");
	char *text = NULL;
	TAP_INTEQ(confine_probe_json(&pr, &json, NULL), 0, "confine_probe_json");
	TAP_OK(json && !strncmp(json, "{\"backend\": \"landlock\"", 22) &&
		   strstr(json, "guarantees"),
	       "... one object with the guarantees");
	TAP_INTEQ(confine_probe_text(&pr, &text, NULL), 0, "confine_probe_text");
	TAP_OK(text && strstr(text, "backend:            landlock\n"), "... one line a field");
	confine_free(json);
	confine_free(text);
	struct confine_probe_result unsized = {0};
	TAP_INTEQ(confine_probe_landlock(&unsized, NULL), CONFINE_E_INVALID,
		  "probe_landlock into a struct whose .size is 0: refused");
	TAP_INTEQ(confine_probe_json(&unsized, &json, NULL), CONFINE_E_INVALID,
		  "probe_json of a struct whose .size is 0: refused, nothing read past it");
	confine_request_free(req);
}

/* Lists one element at a time; a run does not need its request once prepared. */
static void test_lists(const char *ws, const char *home)
{
	struct confine_error err = {0};
	char allow[700];
	snprintf(allow, sizeof(allow), "%s/.ssh", home);
	confine_request *req = request(ws, home, (const char *const[]){"true"}, 1);
	confine_run *run = NULL;
	if (req)
		confine_request_add_rule(req, allow, CONFINE_ACCESS_READ, CONFINE_ALLOW, &err);
	TAP_INTEQ(req ? confine_run_prepare(req, &run, &err) : -1, 0, "a run prepared (%s)",
		  err.reason);
	confine_request_free(req); /* the run copied what it needs */
	if (!run)
		return;
	const struct confine_event *n0 = confine_run_notice(run, 0);
	TAP_INTEQ(confine_run_notice_count(run), 1, "one notice: the allow a guard outranks");
	TAP_OK(n0 && n0->size == sizeof(*n0) && !strcmp(n0->kind, "allow_outranked_by_guard"),
	       "confine_run_notice(0): its kind, and .size");
	TAP_OK(confine_run_notice(run, 1) == NULL, "confine_run_notice(1) is NULL");
	TAP_INTEQ(confine_run_forward_signal(run, 0), CONFINE_E_INVALID,
		  "forward_signal(0) is CONFINE_E_INVALID");
	TAP_INTEQ(confine_run_forward_signal(run, 65), CONFINE_E_INVALID,
		  "forward_signal(65) is CONFINE_E_INVALID");
	int status = -1;
	int rc = confine_run_start(run, &err);
	if (rc == 0)
		rc = confine_run_wait(run, &status, &err);
	TAP_OK(rc == 0 && status == 0, "started and waited for after its request was freed (%s)",
	       err.reason);
	/* Other processes of the machine (the suite's other files run in parallel) may bind
	 * sockets meanwhile: those are *_appeared, never this run's doing. */
	size_t own = 0, nev = confine_run_event_count(run);
	for (size_t i = 0; i < nev; i++) {
		const struct confine_event *e = confine_run_event(run, i);
		size_t kl = e ? strlen(e->kind) : 0;
		if (!e || kl < 9 || strcmp(e->kind + kl - 9, "_appeared"))
			own++;
	}
	TAP_INTEQ((long)own, 0, "no events of the run's own (other processes' *_appeared aside)");
	TAP_OK(confine_run_event(run, nev) == NULL, "confine_run_event(count) is NULL");
	TAP_INTEQ(confine_run_injection_count(run), 0, "no injections");
	TAP_INTEQ(confine_run_net_event_count(run), 0, "no network events");
	TAP_INTEQ(confine_run_net_events_dropped(run), 0, "none dropped");
	TAP_OK(confine_run_agent_event_count(run) == 0 && confine_run_agent_event(run, 0) == NULL,
	       "no ssh-agent events, and the 0th is NULL");
	TAP_OK(confine_run_secret_event_count(run) == 0 && confine_run_secret_event(run, 0) == NULL,
	       "no placeholder events, and the 0th is NULL");
	char *hint = NULL;
	TAP_INTEQ(confine_run_net_hint(run, 0, &hint, NULL), CONFINE_E_INVALID,
		  "net_hint of an event that is not there: CONFINE_E_INVALID");
	char *why = (char *)"untouched";
	TAP_OK(confine_run_explain_denial(run, "/x", &why, NULL) == 0 && why == NULL,
	       "explain_denial on a bwrap run: 0, and no explanation");
	TAP_INTEQ(confine_run_explain_denial(NULL, "/x", &why, NULL), CONFINE_E_INVALID,
		  "explain_denial(NULL run): CONFINE_E_INVALID");
	confine_run_free(run);
	TAP_INTEQ(confine_run_event_count(NULL), 0, "a NULL run has no events");

	/* A card's targets, one at a time. */
	char target[700];
	snprintf(target, sizeof(target), "%s:subtree", ws);
	struct confine_card *card = NULL;
	req = request(ws, home, (const char *const[]){"true"}, 1);
	memset(&err, 0, sizeof(err));
	if (req && confine_request_add_write_grant(req, target, &err) == 0 &&
	    confine_request_set_grant_reason(req, "build output", &err) == 0)
		confine_card_new(req, &card, &err);
	const struct confine_card_target *t = card ? confine_card_target(card, 0) : NULL;
	TAP_OK(card && card->size == sizeof(*card) && card->n_targets == 1,
	       "a write-grant card with one target (%s)", err.reason);
	TAP_OK(t && t->size == sizeof(*t) && !strcmp(t->scope, "subtree"),
	       "confine_card_target(0): its scope and .size");
	TAP_OK(card && confine_card_target(card, 1) == NULL, "confine_card_target(1) is NULL");
	confine_card_free(card);
	confine_request_free(req);
}

/* confine check's calls: where the rule files are, and every problem of one. */
static void test_check(const char *top, const char *ws, const char *home)
{
	struct confine_error err = {0};
	char path[700], want[700];
	confine_request *req = request(ws, home, (const char *const[]){"true"}, 1);
	char *f = NULL;
	TAP_INTEQ(req ? confine_request_rule_file(req, CONFINE_RULE_FILE_WORKSPACE, &f, &err) : -1,
		  0, "rule_file(WORKSPACE)");
	snprintf(want, sizeof(want), "%s/.confine/rules.json", ws);
	TAP_STREQ(f, want, "... WORKSPACE/.confine/rules.json");
	confine_free(f);
	f = NULL;
	TAP_INTEQ(confine_request_rule_file(req, CONFINE_RULE_FILE_USER, &f, NULL), 0,
		  "rule_file(USER)");
	snprintf(want, sizeof(want), "%s/.config/confine/rules.json", home);
	TAP_STREQ(f, want, "... HOME/.config/confine/rules.json of the request's environment");
	confine_free(f);

	snprintf(path, sizeof(path), "%s/bad.json", top);
	FILE *fp = fopen(path, "w");
	if (fp) {
		fputs("{\"version\": 1, \"rules\": [\n"
		      "  {\"path\": \"a\", \"action\": \"nope\"},\n"
		      "  {\"path\": \"b[1]\", \"action\": \"deny\"},\n"
		      "  {\"path\": \"c\", \"action\": \"deny\"}]}\n",
		      fp);
		fclose(fp);
	}
	confine_check *c = NULL;
	TAP_INTEQ(confine_rules_check(req, path, CONFINE_RULE_FILE_AUTO, &c, &err), 0,
		  "rules_check of a file with problems is 0 (%s)", err.reason);
	TAP_INTEQ(confine_check_problem_count(c), 2, "two problems");
	const struct confine_check_problem *p0 = confine_check_problem(c, 0);
	const struct confine_check_problem *p1 = confine_check_problem(c, 1);
	TAP_OK(p0 && p0->size == sizeof(*p0) && p0->line == 2 &&
		   !strcmp(p0->pointer, "/rules/0/action"),
	       "the first: line 2, /rules/0/action");
	TAP_OK(p1 && p1->line == 3 && !strcmp(p1->pointer, "/rules/1/path") &&
		   strstr(p1->message, "reserved"),
	       "the second: line 3, /rules/1/path, a reserved character");
	TAP_OK(confine_check_problem(c, 2) == NULL, "no third");
	TAP_INTEQ(confine_check_rule_count(c), 2, "the two rules that parsed");
	confine_check_free(c);
	c = NULL;
	snprintf(path, sizeof(path), "%s/missing.json", top);
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(confine_rules_check(req, path, CONFINE_RULE_FILE_SESSION, &c, &err),
		  CONFINE_E_NOTFOUND, "a missing file: CONFINE_E_NOTFOUND");
	TAP_OK(c == NULL && !strcmp(err.what, "cannot read rule file"), "... *out NULL, err says");
	confine_request_free(req);
}

static void test_plan_target(const char *ws, const char *home)
{
	struct confine_error err = {0};
	confine_request *req = request(ws, home, (const char *const[]){"make"}, 1);
	char *text = NULL;
	TAP_INTEQ(req ? confine_request_plan_target(req, CONFINE_TARGET_MACOS, NULL, "/Users/ana",
						    false, &text, &err)
		      : -1,
		  0, "plan_target(MACOS) (%s)", err.reason);
	TAP_OK(text && strstr(text, "/Users/ana"), "... the Seatbelt plan, with the home given");
	confine_free(text);
	text = NULL;
	/* The workspace is a path of that host. */
	TAP_INTEQ(confine_request_set_workspace(req, "C:\\Users\\ana\\proj", NULL), 0,
		  "a Windows workspace");
	TAP_INTEQ(
	    confine_request_plan_target(req, CONFINE_TARGET_WINDOWS, NULL, NULL, true, &text, &err),
	    0, "plan_target(WINDOWS, json) (%s)", err.reason);
	TAP_OK(text && text[0] == '{', "... as JSON");
	confine_free(text);
	text = NULL;
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(
	    confine_request_plan_target(req, CONFINE_TARGET_LINUX, NULL, NULL, false, &text, &err),
	    CONFINE_E_INVALID, "plan_target(LINUX): CONFINE_E_INVALID (a run has that plan)");
	TAP_OK(text == NULL && strstr(err.reason, "confine_run_plan_text"), "... says where it is");
	confine_request_free(req);
}

int main(void)
{
	char tmpl[] = "/var/tmp/confine-abi.XXXXXX";
	char *top = mkdtemp(tmpl);
	TAP_OK(top != NULL, "scratch directory");
	if (!top)
		return tap_done();
	char home[512], ws[600], ssh[600], cmd[700];
	snprintf(home, sizeof(home), "%s/home", top);
	snprintf(ws, sizeof(ws), "%s/ws", top);
	snprintf(ssh, sizeof(ssh), "%s/.ssh", home);
	mkdir(home, 0755);
	mkdir(ws, 0755);
	mkdir(ssh, 0700);

	test_version();
	test_errors();
	test_parsers();
	test_setters();
	test_set_stdio();
	test_sized(ws, home);
	test_lists(ws, home);
	test_check(top, ws, home);
	test_plan_target(ws, home);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	TAP_INTEQ(system(cmd), 0, "scratch removed");
	return tap_done();
}
