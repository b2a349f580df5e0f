/* SPDX-License-Identifier: MIT */
/*
 * The split directories of a landlock run's writable areas (SPEC 3.3).  Landlock only allows:
 * a directory above a protected path (a repository root holding .env and .git) is split, and an
 * entry made in it after the start is covered by no rule.  Confine's supervisor makes and opens
 * such entries itself (exec/linux/pathguard.c); where it cannot act for the command, the run
 * says before it starts which directories take no new entry and why, and explains each denial
 * the command printed there afterwards, with the remedy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/kernel.h"
#include "ll_notes.h"
#include "request.h"
#include "util/util.h"

bool cf_ll_can_broker(void)
{
	const char *v = getenv("CONFINE_LANDLOCK_BROKER");
	if (v && !strcmp(v, "off"))
		return false;
	return cf_yama_allows_ptrace();
}

/* Why the supervisor does not act here, for the messages. */
static const char *why_not(void)
{
	const char *v = getenv("CONFINE_LANDLOCK_BROKER");
	if (v && !strcmp(v, "off"))
		return "CONFINE_LANDLOCK_BROKER=off turned its help off";
	return "Yama's ptrace_scope (2 or 3) refuses it the command's memory and descriptors";
}

int cf_ll_split_note(confine_run *run, struct confine_error *err)
{
	const struct cf_ll_plan *pl = &run->ll;
	if (run->backend != CONFINE_BACKEND_LANDLOCK || pl->broker || !pl->split_writable.n)
		return 0;
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_add(&b, "landlock: these directories of the writable areas take no new entry in "
		       "this run (no new file, directory or rename into them, and what is made in "
		       "them later is not readable): ");
	for (size_t i = 0; i < pl->split_writable.n; i++)
		cf_buf_addf(&b, "%s'%s'", i ? ", " : "", pl->split_writable.v[i]);
	cf_buf_addf(&b,
		    ": each holds a protected path and Landlock only allows, and confine's "
		    "supervisor, which makes such entries, cannot act for the command here: %s",
		    why_not());
	free(run->ll_note);
	if (!(run->ll_note = cf_buf_take(&b)))
		return cf_nomem(err);
	/* The command's denials there are explained after the run: its stderr is read for them. */
	run->record.tee_wanted = true;
	return 0;
}

int confine_run_explain_denial(const confine_run *run, const char *path, char **out,
			       struct confine_error *err)
{
	if (!out || !run)
		return cf_err(err, CONFINE_E_INVALID, "invalid argument", "run",
			      "the run or out is NULL");
	*out = NULL;
	const struct cf_ll_plan *pl = &run->ll;
	if (run->backend != CONFINE_BACKEND_LANDLOCK || pl->broker || !path)
		return 0;
	for (size_t i = 0; i < pl->split_writable.n; i++) {
		const char *d = pl->split_writable.v[i];
		if (!cf_path_within(path, d) || !strcmp(path, d))
			continue;
		/* A protected path (the nearest path the plan decided is not writable) is refused
		 * by design, not by the split. */
		const struct cf_ll_rule *near = NULL;
		for (size_t j = 0; j < pl->n_meta; j++)
			if (cf_path_within(path, pl->meta[j].path) &&
			    (!near || strlen(pl->meta[j].path) > strlen(near->path)))
				near = &pl->meta[j];
		if (near && !near->access)
			return 0;
		*out = cf_asprintf(
		    "landlock: refused in a directory that takes no new entry in this run: '%s': "
		    "'%s' holds a protected path, so Landlock gives what is made there after the "
		    "start nothing, and confine's supervisor cannot act for the command here: %s\n"
		    "hint: run the command again (what exists when a run starts gets its own "
		    "rule), "
		    "make the directory it needs before the run, or use the bwrap backend",
		    path, d, why_not());
		return *out ? 0 : cf_nomem(err);
	}
	return 0;
}
