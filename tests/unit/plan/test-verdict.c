/* SPDX-License-Identifier: MIT */
/*
 * The why and the refusals every planner shares (plan/verdict.c): the why text with and without
 * a deciding rule, where a rule was written (a file position, or its index when it has none),
 * the write-beneath-read-deny contradiction and the hidden root, each refused with its exact
 * message and hint and not refused when the decisions allow, and their order on "/".
 */
#include <stdlib.h>
#include <string.h>

#include "plan/verdict.h"
#include "util/util.h"
#include "../tap.h"

static struct cf_rule file_rule = {
    .pattern = "~/.ssh", .source = "/w/.confine/rules.json", .index = 2, .line = 7, .column = 5};
static struct cf_rule session_rule = {.pattern = "src", .source = "session", .index = 1};

static struct cf_decision dec(enum cf_action a, enum cf_layer l, const struct cf_rule *r)
{
	return (struct cf_decision){.action = a, .layer = l, .rule = r};
}

static void why(void)
{
	struct cf_decision rd = dec(CF_DENY, CF_LAYER_WORKSPACE, &file_rule),
			   wr = dec(CF_ALLOW, CF_LAYER_FALLBACK, NULL);
	char *s = cf_plan_why(&rd, &wr);
	char want[256];
	snprintf(want, sizeof(want), "read: deny (%s ~/.ssh); write: allow (%s)",
		 cf_layer_name(CF_LAYER_WORKSPACE), cf_layer_name(CF_LAYER_FALLBACK));
	TAP_STREQ(s, want, "why: the pattern of a deciding rule, the layer alone without one");
	free(s);
	char buf[128];
	TAP_STREQ(cf_plan_rule_where(&file_rule, buf, sizeof(buf)),
		  "'~/.ssh' (/w/.confine/rules.json:7:5)", "a rule of a file: its position");
	TAP_STREQ(cf_plan_rule_where(&session_rule, buf, sizeof(buf)), "'src' (session rule 1)",
		  "a session rule: its index");
	char small[8];
	TAP_STREQ(cf_plan_rule_where(&file_rule, small, sizeof(small)), "'~/.ssh",
		  "a short buffer: cut, terminated");
}

static void refusals(void)
{
	struct confine_error err = {0};
	struct cf_decision allow = dec(CF_ALLOW, CF_LAYER_SESSION, &session_rule),
			   deny = dec(CF_DENY, CF_LAYER_WORKSPACE, &file_rule),
			   deny_fb = dec(CF_DENY, CF_LAYER_FALLBACK, NULL);

	TAP_INTEQ(cf_plan_refuse("/w/src", &allow, &allow, &err), 0, "read and write: no refusal");
	TAP_INTEQ(cf_plan_refuse("/w/src", &allow, &deny, &err), 0, "read only: no refusal");
	TAP_INTEQ(cf_plan_refuse("/w/src", &deny, &deny, &err), 0, "hidden: no refusal");
	TAP_INTEQ(cf_plan_refuse("/", &allow, &deny, &err), 0, "'/' read-only: no refusal");
	TAP_STREQ(err.what, "", "no refusal fills no error");

	TAP_INTEQ(cf_plan_refuse("/home/u/.ssh/x", &deny, &allow, &err), CONFINE_E_PLAN,
		  "write allowed beneath a read deny: refused");
	TAP_STREQ(err.what, "rules contradict each other", "  what");
	TAP_STREQ(err.subject, "/home/u/.ssh/x", "  the path");
	TAP_STREQ(err.reason,
		  "'src' (session rule 1) allows write beneath the read-deny of '~/.ssh' "
		  "(/w/.confine/rules.json:7:5); a path cannot be writable and unreadable",
		  "  both rules");
	TAP_STREQ(err.hint, "allow read as well, or remove the write allow", "  the hint");

	err = (struct confine_error){0};
	TAP_INTEQ(cf_plan_refuse_contradiction("/x", &deny_fb, &allow, &err), CONFINE_E_PLAN,
		  "the fallback's read deny: refused");
	TAP_OK(strstr(err.reason, "read-deny of the fallback;") != NULL, "  named 'the fallback'");

	err = (struct confine_error){0};
	TAP_INTEQ(cf_plan_refuse("/", &deny, &deny, &err), CONFINE_E_PLAN, "'/' hidden: refused");
	TAP_STREQ(err.what, "cannot hide the root directory", "  what");
	TAP_STREQ(err.reason,
		  "'~/.ssh' (/w/.confine/rules.json:7:5) denies reading '/': nothing would be "
		  "left to run, not even the command",
		  "  the rule");
	TAP_STREQ(err.hint,
		  "deny the directories that matter (for example '~:read' with allows for what "
		  "the command needs)",
		  "  the hint");
	err = (struct confine_error){0};
	TAP_INTEQ(cf_plan_refuse_root("/", &deny_fb, &err), CONFINE_E_PLAN,
		  "'/' hidden by the fallback: refused");
	TAP_OK(!strncmp(err.reason, "a rule denies", 13), "  said as 'a rule'");
	err = (struct confine_error){0};
	TAP_INTEQ(cf_plan_refuse_root("/w", &deny, &err), 0, "another hidden path: no refusal");

	/* "/" with a read deny and a write allow: the contradiction is said first. */
	err = (struct confine_error){0};
	TAP_INTEQ(cf_plan_refuse("/", &deny, &allow, &err), CONFINE_E_PLAN, "'/' both: refused");
	TAP_STREQ(err.what, "rules contradict each other", "  as the contradiction");
}

/* R1 for the plans of macOS and Windows (cf_plan_refuse_workspace): a root, the home, an
 * ancestor of it and a workspace holding a wildcard-free "~/" guard are refused, named as the
 * target spells them, with the hint; a glob guard and a guard not of the home are not paths. */
static void workspace(void)
{
	struct cf_rule guards[] = {
	    {.pattern = "~/.ssh", .path = "/h/u/.ssh"},
	    {.pattern = "~/.keys/*.pem", .path = "/h/u/.keys/*.pem", .glob = true},
	    {.pattern = "/etc/shadow", .path = "/etc/shadow"},
	};
	struct cf_ruleset g = {.v = guards, .n = 3};
	struct confine_error err = {0};
	const char *hint = "run confine from a project directory, or pass --workspace DIR";
	struct {
		const char *ws;
		bool root;
		int want;
		const char *reason;
	} cases[] = {
	    {"/", true, CONFINE_E_WORKSPACE, "the root"},
	    {"/h/u", false, CONFINE_E_WORKSPACE, "it is the home directory"},
	    {"/h", false, CONFINE_E_WORKSPACE, "it is an ancestor of the home directory"},
	    {"/h/u/.ssh", false, CONFINE_E_WORKSPACE,
	     "it contains the guarded credential path '~/.ssh'"},
	    {"/h/u/.ssh/sub", false, 0, ""}, /* inside a guard: it punches through (R13) */
	    {"/h/u/.keys", false, 0, ""},
	    {"/etc", false, 0, ""},
	    {"/h/u/proj", false, 0, ""},
	    {"/h/uv", false, 0, ""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&err, 0, sizeof(err));
		int r = cf_plan_refuse_workspace(cases[i].ws, "/h/u", cases[i].root, "the root", &g,
						 "SHOWN", &err);
		TAP_INTEQ(r, cases[i].want, "workspace %s: %s", cases[i].ws,
			  cases[i].want ? "refused" : "accepted");
		TAP_STREQ(err.reason, cases[i].reason, "workspace %s: the reason", cases[i].ws);
		TAP_STREQ(err.hint, cases[i].want ? hint : "", "workspace %s: the hint",
			  cases[i].ws);
		if (cases[i].want)
			TAP_STREQ(err.subject, "SHOWN", "workspace %s: named as shown",
				  cases[i].ws);
	}
}

int main(void)
{
	why();
	refusals();
	workspace();
	return tap_done();
}
