/* SPDX-License-Identifier: MIT */
/*
 * A run's start and wait on Linux: the receipt spent and the audit line of the attempt
 * (record/), the launches of the executor (exec/linux/bwrap/spawn.h) and, when the workspace
 * changed while bwrap set the sandbox up, the plan made anew and the sandbox launched again (R34),
 * then the proxy's decisions and what was not protected.  The executor asks for the new plan by
 * returning `again` with run->unsettled set; it never calls back into the run.
 */
#include <stdlib.h>

#include "agent/agent_run.h"
#include "exec/linux/cgroup.h"
#include "exec/linux/landlock/connguard.h"
#include "exec/linux/keeper.h"
#include "exec/linux/runstdio.h"
#include "exec/linux/bwrap/settle.h"
#include "exec/linux/bwrap/spawn.h"
#include "exec/linux/supervisor.h"
#include "net/netrun.h"
#include "request.h"
#include "util/util.h"

int confine_run_start(confine_run *run, struct confine_error *err)
{
	/* This call's failure is made in a struct of its own: the audit line records it, and the
	 * caller's struct gets it only when still empty (cf_err_publish). */
	struct confine_error mine = {0};
	/* A receipt means once: spent before anything runs (approve/receipts.c). */
	int r = cf_record_spend(run, &mine);
	if (r == 0)
		r = cf_launch_start(run, cf_run_caches_start, &mine);
	if (r < 0 && !run->started) {
		cf_run_stdio_release(run); /* a host reading the command's pipe sees its end */
		cf_audit_attempt(run, 125, &mine); /* the attempt ends here (R24) */
	}
	cf_err_publish(err, &mine);
	return r;
}

static int wait_command(confine_run *run, int *status, struct confine_error *err)
{
	*status = 125;
	if (!run->started)
		return cf_err(err, CONFINE_E_INVALID, "cannot wait", "run", "not started");
	int r;
	bool again;
	while ((r = cf_launch_wait(run, status, &again, err)) == 0 && again) {
		cf_launch_reset(run);
		if (run->unsettled) {
			/* R34: the workspace changed while bwrap set the sandbox up.  The sandbox
			 * is gone: what bwrap created on the host for it goes too. */
			cf_settle_cleanup(&run->plan, &run->idents, run->launch_time);
			if (++run->replans > 3) {
				*status = 125;
				r = cf_err(err, CONFINE_E_SPAWN, "the workspace kept changing",
					   run->unsettled,
					   "it changed while the sandbox was set up, %d times in a "
					   "row, so the protections could not be placed for sure",
					   run->replans - 1);
				cf_err_hint(err,
					    "another process (a second sandbox?) is renaming "
					    "directories in the workspace; run the command again "
					    "when it has finished; nothing was run");
				break;
			}
			free(run->unsettled);
			run->unsettled = NULL;
			if ((r = cf_run_plan(run, err)) < 0)
				break;
		} else if (run->plan.cache_overlay &&
			   (run->cache_overlay_off || run->helper_mode_off)) {
			/* R39: no overlays without helper mode: the tool caches are redirected. */
			if ((r = cf_run_plan(run, err)) < 0)
				break;
		}
		if ((r = cf_launch_bwrap(run, cf_run_caches_start, err)) < 0)
			break;
	}
	/* What the limits did, for the post-run events (a kill by the memory limit says so). */
	cf_cgroup_counts(&run->cgroup, &run->limit_counts);
	cf_cgroup_destroy(&run->cgroup);
	return r;
}

/* The proxy's decisions, once the command has ended; the proxy and its sockets go. */
static int finish_network(confine_run *run, struct confine_error *err)
{
	/* The guards first: a supervised call of a process that outlived the command meets
	 * ENOSYS. */
	cf_supervisor_free(run->supervisor);
	run->supervisor = NULL;
	cf_connguard_free(run->connguard);
	run->connguard = NULL;
	cf_run_agent_finish(run); /* R44: its records */
	if (!run->netrun)
		return 0;
	free(run->net_events);
	run->net_events = NULL;
	int r = cf_netrun_finish(run->netrun, &run->net_events, &run->n_net_events,
				 &run->net_dropped, err);
	int k = cf_run_net_publish(run, err);
	if (r == 0)
		r = k;
	cf_netrun_free(run->netrun);
	run->netrun = NULL;
	return r;
}

int confine_run_wait(confine_run *run, int *status, struct confine_error *err)
{
	/* As confine_run_start: a reused struct that still holds an earlier failure neither
	 * decides the return code nor mixes with this call's hint. */
	struct confine_error mine = {0};
	int r = wait_command(run, status, &mine);
	/* Everything of the sandbox is gone: the keeper is not needed any more, nor the command's
	 * descriptors (a host reading a pipe it gave the command sees its end). */
	cf_keeper_done(&run->keeper);
	cf_run_stdio_release(run);
	if (finish_network(run, &mine) < 0 && r == 0)
		r = CONFINE_E_NOMEM;
	/* Look again at what was not protected during the run, whatever the outcome. */
	if (cf_run_detect(run) < 0 && r == 0)
		r = cf_nomem(&mine);
	/* R39: the stores keep within their bound. */
	cf_run_caches_finish(run);
	/* The audit line's failure is the caller's to see (confine_request_audit_error); *status
	 * stays what it is. */
	if (cf_audit_attempt(run, *status, r < 0 ? &mine : NULL) < 0 && r == 0) {
		r = CONFINE_E_RECORD;
		const struct confine_error *ae = cf_audit_state_error(run->record.audit_state);
		if (ae)
			mine = *ae;
		else /* another run of the request is recording its failure at this moment */
			cf_err(&mine, CONFINE_E_RECORD, "cannot write the audit log", "",
			       "the line of this attempt is missing from the log");
	}
	cf_err_publish(err, &mine);
	return r;
}
