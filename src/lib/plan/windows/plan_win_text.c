/* SPDX-License-Identifier: MIT */
/* The Windows plan as stable text and JSON (`confine plan --target windows`). */
#include <stdlib.h>
#include <string.h>

#include "plan/windows/plan_win.h"
#include "util/utf8.h"
#include "util/util.h"

static const char *const token_flags[] = {"WRITE_RESTRICTED", "LUA_TOKEN", "DISABLE_MAX_PRIVILEGE"};

/* What the write boundary does not cover whatever the rules say.  Stated in every plan. */
/* The parentheses tell clang's -Wstring-concatenation that each entry is one string. */
static const char *const limits[] = {
    "reads are not restricted and the network is not restricted",
    ("writes are also possible wherever the host's own ACLs grant Everyone or the logon "
     "session write access: both are restricting SIDs because ordinary programs (PowerShell, "
     "the .NET runtime) do not start without them"),
    ("a user usually holds 'delete subfolders and files' on their own folders, and Windows "
     "lets that right delete or rename an entry whatever the entry's own ACL says: a deny ACE "
     "may not stop a delete or a rename (reported for the same token recipe; not verified "
     "here)"),
    ("named pipes and other objects of the session (an ssh-agent pipe, Docker's engine pipe) "
     "are guarded by their own ACLs, not by this plan"),
    "paths compare case-insensitively for ASCII letters only",
    "this backend is compiled and tested under Wine, not on Windows itself",
};

static const char assumed_limit[] =
    "this plan was computed without the host's file system: every path the facts do not list "
    "is assumed to exist as a directory";

static char *show(const struct cf_win_plan *plan, const char *internal)
{
	return cf_win_path_show(&plan->names, internal);
}

/* The distinct reasons of the gaps, in order of first use. */
static size_t reason_index(const struct cf_win_plan *plan, size_t k)
{
	size_t idx = 0;
	for (size_t i = 0; i < plan->n_gaps; i++) {
		bool first = true;
		for (size_t j = 0; j < i && first; j++)
			first = strcmp(plan->gaps[j].reason, plan->gaps[i].reason) != 0;
		if (first)
			idx++;
		if (!strcmp(plan->gaps[i].reason, plan->gaps[k].reason))
			return idx;
	}
	return idx;
}

char *cf_win_plan_text(const struct cf_win_plan *plan)
{
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_add(&b, "target: windows\n");
	/* R38: what the request, the workspace or the host chose is escaped for display. */
	cf_buf_add(&b, "workspace: ");
	cf_buf_add_display(&b, plan->workspace, CF_DISPLAY_WINDOWS);
	cf_buf_add(&b, "\ncwd: ");
	cf_buf_add_display(&b, plan->cwd, CF_DISPLAY_WINDOWS);
	cf_buf_addc(&b, '\n');
	cf_buf_add(&b, "protection: writes only (reads are not protected)\n");
	cf_buf_addf(&b, "network: %s\n",
		    plan->network ? "on (not restricted on Windows)"
				  : "off requested: NOT ENFORCED (not restricted on Windows)");
	cf_buf_add(&b, "token: CreateRestrictedToken");
	for (size_t i = 0; i < sizeof(token_flags) / sizeof(token_flags[0]); i++)
		cf_buf_addf(&b, " %s", token_flags[i]);
	cf_buf_addf(&b,
		    "\nrestricting sids: capability %s, logon session, Everyone (S-1-1-0); "
		    "never the user's SID\n",
		    plan->capability);
	cf_buf_add(&b, "process: job object (kill on close, no breakaway), started suspended, "
		       "resumed once in the job\n");
	cf_buf_add(&b, "acl edits (ACEs for the capability SID, recorded before they are made, "
		       "removed after the run):\n");
	if (!plan->n_edits)
		cf_buf_add(&b, "  (none)\n");
	for (size_t i = 0; i < plan->n_edits; i++) {
		const struct cf_win_edit *e = &plan->edits[i];
		char *p = show(plan, e->path);
		cf_buf_addf(&b, "  %-11s ", cf_win_ace_name(e->ace));
		cf_buf_add_display(&b, p ? p : e->path, CF_DISPLAY_WINDOWS);
		cf_buf_addf(&b, "  [%s%s mask=0x%06x]  # ", e->kind == CF_KIND_DIR ? "dir" : "file",
			    e->inherit ? " inherited" : "", e->mask);
		cf_buf_add_display(&b, e->why, CF_DISPLAY_WINDOWS);
		cf_buf_addc(&b, '\n');
		free(p);
	}
	cf_buf_add(&b, "not enforced on Windows (what it means for the command, reason below):\n");
	for (size_t i = 0; i < plan->n_gaps; i++) {
		const struct cf_win_gap *g = &plan->gaps[i];
		cf_buf_addf(&b, "  %s: ", g->what);
		cf_buf_add_display(&b, g->rule, CF_DISPLAY_WINDOWS);
		if (g->path[0]) {
			cf_buf_add(&b, " (");
			cf_buf_add_display(&b, g->path, CF_DISPLAY_WINDOWS);
			cf_buf_addc(&b, ')');
		}
		cf_buf_addf(&b, ": %s [%zu]\n", g->effect, reason_index(plan, i));
	}
	cf_buf_add(&b, "reasons:\n");
	for (size_t i = 0, k = 0; i < plan->n_gaps; i++) {
		if (reason_index(plan, i) <= k)
			continue;
		k = reason_index(plan, i);
		cf_buf_addf(&b, "  [%zu] ", k);
		cf_buf_add_display(&b, plan->gaps[i].reason, CF_DISPLAY_WINDOWS);
		cf_buf_addc(&b, '\n');
	}
	cf_buf_add(&b, "limits of the write protection:\n");
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++)
		cf_buf_addf(&b, "  - %s\n", limits[i]);
	if (plan->assumed)
		cf_buf_addf(&b, "  - %s\n", assumed_limit);
	if (plan->notes.n) {
		cf_buf_add(&b, "notes:\n");
		cf_display_lines(&b, "  ", &plan->notes, CF_DISPLAY_WINDOWS);
	}
	if (plan->env_removed.n) {
		cf_display_words(&b, "environment removed:", &plan->env_removed, false);
		cf_buf_addc(&b, '\n');
	}
	if (plan->argv.n) {
		cf_display_words(&b, "command:", &plan->argv, true);
		cf_buf_add(&b, "\ncommand line: ");
		/* As Windows receives it, its quoting's backslashes as they are; argv may hold a
		 * '<', so the "command:" line above, escaped the usual way, is the one that reads
		 * one way only. */
		cf_buf_add_display(&b, plan->cmdline ? plan->cmdline : "", CF_DISPLAY_WINDOWS);
		cf_buf_addc(&b, '\n');
	}
	return cf_buf_take(&b);
}

static void json_strv(struct cf_buf *b, const char *key, const char *const *v, size_t n)
{
	cf_buf_addf(b, ",\"%s\":[", key);
	for (size_t i = 0; i < n; i++) {
		if (i)
			cf_buf_addc(b, ',');
		cf_buf_add_json(b, v[i]);
	}
	cf_buf_addc(b, ']');
}

char *cf_win_plan_json(const struct cf_win_plan *plan)
{
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_add(&b, "{\"target\":\"windows\",\"workspace\":");
	cf_buf_add_json(&b, plan->workspace);
	cf_buf_add(&b, ",\"cwd\":");
	cf_buf_add_json(&b, plan->cwd);
	cf_buf_addf(&b,
		    ",\"guarantees\":{\"read_protection\":\"not provided\",\"write_protection\":"
		    "\"restricted token and NTFS ACLs\",\"network_isolation\":\"not provided\"}"
		    ",\"network\":%s",
		    plan->network ? "true" : "false");
	cf_buf_add(&b, ",\"token\":{\"flags\":[");
	for (size_t i = 0; i < sizeof(token_flags) / sizeof(token_flags[0]); i++)
		cf_buf_addf(&b, "%s\"%s\"", i ? "," : "", token_flags[i]);
	cf_buf_add(&b, "],\"restricting_sids\":[");
	cf_buf_add_json(&b, plan->capability);
	cf_buf_add(&b, ",\"logon\",\"S-1-1-0\"],\"user_sid\":false}");
	cf_buf_add(&b, ",\"job\":{\"kill_on_close\":true,\"breakaway\":false,"
		       "\"start_suspended\":true}");
	cf_buf_add(&b, ",\"acl_edits\":[");
	for (size_t i = 0; i < plan->n_edits; i++) {
		const struct cf_win_edit *e = &plan->edits[i];
		char *p = show(plan, e->path);
		cf_buf_addf(&b, "%s{\"path\":", i ? "," : "");
		cf_buf_add_json(&b, p ? p : e->path);
		cf_buf_addf(&b,
			    ",\"kind\":\"%s\",\"ace\":\"%s\",\"mask\":%u,\"inherit\":%s,\"why\":",
			    e->kind == CF_KIND_DIR ? "dir" : "file", cf_win_ace_name(e->ace),
			    e->mask, e->inherit ? "true" : "false");
		cf_buf_add_json(&b, e->why);
		cf_buf_addc(&b, '}');
		free(p);
	}
	cf_buf_add(&b, "],\"not_enforced\":[");
	for (size_t i = 0; i < plan->n_gaps; i++) {
		const struct cf_win_gap *g = &plan->gaps[i];
		cf_buf_addf(&b, "%s{\"what\":", i ? "," : "");
		cf_buf_add_json(&b, g->what);
		cf_buf_add(&b, ",\"rule\":");
		cf_buf_add_json(&b, g->rule);
		cf_buf_add(&b, ",\"path\":");
		cf_buf_add_json(&b, g->path);
		cf_buf_add(&b, ",\"effect\":");
		cf_buf_add_json(&b, g->effect);
		cf_buf_add(&b, ",\"reason\":");
		cf_buf_add_json(&b, g->reason);
		cf_buf_addc(&b, '}');
	}
	cf_buf_addc(&b, ']');
	json_strv(&b, "limits", limits, sizeof(limits) / sizeof(limits[0]));
	if (plan->assumed) {
		b.len--; /* reopen the array */
		cf_buf_addc(&b, ',');
		cf_buf_add_json(&b, assumed_limit);
		cf_buf_addc(&b, ']');
	}
	json_strv(&b, "notes", (const char *const *)plan->notes.v, plan->notes.n);
	json_strv(&b, "env_removed", (const char *const *)plan->env_removed.v, plan->env_removed.n);
	json_strv(&b, "argv", (const char *const *)plan->argv.v, plan->argv.n);
	cf_buf_add(&b, ",\"cmdline\":");
	cf_buf_add_json(&b, plan->cmdline ? plan->cmdline : "");
	cf_buf_add(&b, "}\n");
	return cf_buf_take(&b);
}
