/* SPDX-License-Identifier: MIT */
/*
 * A run's start and wait on Linux: the receipt spent and the audit line of the attempt
 * (record/), what a launch needs made before the sandbox (the command's descriptors, the
 * cgroup, the pty, the proxy, the agent, the keeper), the launches of the executors
 * (exec/linux/launch.h) and, when the workspace changed while bwrap set the sandbox up, the plan
 * made anew and the sandbox launched again (R34), then the proxy's decisions and what was not
 * protected.  An executor is given run->exec and returns facts there; it asks for the new plan
 * by returning `again` with facts.unsettled set, and calls back into the run only through the
 * hooks it is given (a context it does not look into).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent_run.h"
#include "exec/linux/cgroup.h"
#include "exec/linux/landlock/connguard.h"
#include "exec/linux/keeper.h"
#include "exec/linux/launch.h"
#include "exec/linux/pty.h"
#include "exec/linux/runstdio.h"
#include "exec/linux/bwrap/settle.h"
#include "exec/linux/supervisor.h"
#include "host/kernel.h"
#include "inject/run_inject.h"
#include "net/auth.h"
#include "net/netrun.h"
#include "net/secrets_run.h"
#include "request.h"
#include "util/owntmp.h"
#include "util/util.h"

/* The run's steps an executor takes at their moment (launch.h's hooks). */
static int hook_caches_start(void *ctx, struct confine_error *err)
{
	return cf_run_caches_start(ctx, err);
}

static int hook_inject_fds(void *ctx, int *data, struct confine_error *err)
{
	return cf_run_inject_fds(ctx, data, err);
}

/* What a launch is given, from the run, before each launch. */
static void launch_fill(confine_run *run)
{
	struct cf_launch *l = &run->exec;
	l->plan = &run->plan;
	l->ll = &run->ll;
	l->idents = &run->idents;
	l->policy = run->policy;
	l->backend = run->backend;
	l->bwrap = run->bwrap;
	l->helper = run->helper;
	/* An approved escalation runs the very file its card named (SPEC 7.1). */
	l->program = run->record.escalated ? run->record.program : NULL;
	l->limit_mem = run->limit_mem;
	l->timeout_ms = run->timeout_ms;
	l->kill_grace_ms = run->kill_grace_ms;
	l->cache_overlay_off = run->cache_overlay_off;
	l->helper_mode = run->helper_mode;
	l->cgroup = &run->cgroup;
	l->keeper_fd = run->keeper.fd;
	l->keeper_pgid = run->keeper.pid;
	l->netrun = run->netrun;
	l->agent_sock = cf_run_agent_sock(run);
	l->agent_dir_fd = cf_run_agent_dir_fd(run);
	l->tee = (struct cf_launch_tee){.wanted = run->record.tee_wanted,
					.scan = &run->record.denials,
					.tee = &run->record.tee,
					.fd = &run->record.tee_fd,
					.out = &run->record.tee_out};
	l->hooks = (struct cf_launch_hooks){
	    .ctx = run, .before = hook_caches_start, .inject_fds = hook_inject_fds};
}

bool cf_run_helper_mode(const confine_run *run)
{
	return cf_bwrap_helper_mode(run->bwrap, run->exec.facts.helper_mode_off);
}

int confine_run_forward_signal(confine_run *run, int sig)
{
	/* Async-signal safe: a code, no error struct. */
	if (!run || sig <= 0 || sig > 64)
		return CONFINE_E_INVALID;
	cf_launch_forward_signal(&run->exec, sig);
	return 0;
}

int confine_run_restore_terminal(confine_run *run)
{
	if (!run)
		return CONFINE_E_INVALID;
	cf_pty_restore(run->exec.pty);
	return 0;
}

/* The keeper (keeper.c), before anything of the sandbox exists, with the run's cgroup. */
static int start_keeper(confine_run *run, struct confine_error *err)
{
	int r = cf_keeper_start(&run->keeper, err);
	if (r < 0 || !run->cgroup.n)
		return r;
	int dfd = open(run->cgroup.dir[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || cf_keeper_send(run->keeper.fd, CF_KEEP_CGROUP, dfd, 0) < 0) {
		r = cf_err_os(err, CONFINE_E_OS, "cannot start the sandbox", run->cgroup.dir[0],
			      dfd < 0 ? "open" : "sendmsg", errno);
		cf_keeper_done(&run->keeper);
	}
	if (dfd >= 0)
		close(dfd);
	return r;
}

/* Before the executor: the command's descriptors, the cgroup, the wait's wake pipe and the pty.
 * Nothing is held when it fails but the descriptors (confine_run_start lets them go). */
static int launch_prepare(confine_run *run, struct confine_error *err)
{
	int r;
	/* The command's 0, 1, 2 from here on, taken before the run opens anything (a descriptor
	 * the caller closed too early is refused, never one of the run's own in its place); this
	 * process's own are not looked at again.  A failed start lets go (confine_run_start). */
	if ((r = cf_stdio_take(run->stdio_req, run->exec.stdio, err)) < 0)
		return r;
	if ((r = cf_run_inject_check_policy(run, err)) < 0)
		return r;
	/* What killed runs left under /tmp goes, whatever kind of run this is (util/owntmp.c). */
	cf_owntmp_sweep();
	if ((run->limit_pids || run->limit_mem) &&
	    (r = cf_cgroup_create(run->limit_pids, run->limit_mem, &run->cgroup, err)) < 0)
		return r;
	if ((r = cf_launch_begin(&run->exec, err)) < 0) {
		cf_cgroup_destroy(&run->cgroup);
		return r;
	}
	/* R41: a terminal of the command's own when it has one (not without a sandbox); one of an
	 * earlier start relays descriptors that are gone. */
	cf_pty_free(run->exec.pty);
	run->exec.pty = NULL;
	if (run->policy != CONFINE_POLICY_OFF &&
	    (r = cf_pty_new(run->tty, run->exec.stdio,
			    run->record.tee_wanted ? &run->record.denials : NULL, &run->exec.pty,
			    err)) < 0) {
		cf_cgroup_destroy(&run->cgroup);
		return r;
	}
	return 0;
}

/* The landlock executor's command environment: R44, the ssh-agent filter's socket; SPEC 12,
 * the proxy (already listening on 127.0.0.1) in the proxy variables, with its port and the
 * run's credentials. */
static int ll_env(confine_run *run, struct confine_error *err)
{
	int r;
	if (!run->ll.net_proxy && !run->exec.agent_sock)
		return 0;
	if (run->exec.agent_sock && (r = cf_run_agent_env_at(run, err)) < 0)
		return r;
	unsigned port = run->netrun ? cf_netrun_port(run->netrun) : 0;
	run->exec.proxy_port = port;
	if (!run->ll.net_proxy || !port)
		return 0; /* no port: the executor says so */
	char userinfo[sizeof(CF_PROXY_USER) + CF_PROXY_SECRET_LEN + 1];
	snprintf(userinfo, sizeof(userinfo), "%s:%s", CF_PROXY_USER, cf_netrun_secret(run->netrun));
	r = cf_plan_net_env_at(&run->plan, port, userinfo, err);
	explicit_bzero(userinfo, sizeof(userinfo));
	return r;
}

/* The proxy (SPEC 12) and the ssh-agent filter (R44), before the sandbox exists. */
static int launch_services(confine_run *run, bool landlock, struct confine_error *err)
{
	int r;
	/* Network by domain (SPEC 12): the proxy runs before the sandbox exists and until the
	 * command has ended: behind a unix socket for bwrap's network namespace, on the host's
	 * loopback with a per-run secret for the landlock backend. */
	struct cf_netrun_opts nopts = {.upstream = run->upstream};
	/* R41: the asker and the pty's relay take turns at the user's terminal. */
	nopts.ask = cf_pty_asker(run->exec.pty, run->net_ask, run->net_ask_user, &nopts.ask_user);
	/* R45: placeholders and TLS inspection in the proxy. */
	cf_run_secrets_netrun(run, &nopts.secrets, &nopts.tls);
	if (run->policy == CONFINE_POLICY_REQUIRED && run->net_mode == CONFINE_NET_DOMAINS &&
	    (r = landlock ? cf_netrun_start_tcp(&run->net, &nopts, &run->netrun, err)
			  : cf_netrun_start(&run->net, &nopts, &run->netrun, err)) < 0) {
		cf_cgroup_destroy(&run->cgroup);
		return r;
	}
	/* R44: the ssh-agent filter serves its socket before the sandbox exists. */
	if ((r = cf_run_agent_start(run, err)) < 0) {
		cf_cgroup_destroy(&run->cgroup);
		cf_netrun_free(run->netrun);
		run->netrun = NULL;
		return r;
	}
	return 0;
}

/* Everything of a start but the receipt and the audit line: the cgroup, the proxy, the agent,
 * the keeper, then the command (directly, under the landlock executor or under bwrap). */
static int launch_start(confine_run *run, struct confine_error *err)
{
	int r;
	if (run->exec.facts.started)
		return cf_err(err, CONFINE_E_INVALID, "cannot start", "run", "already started");
	if ((r = launch_prepare(run, err)) < 0)
		return r;
	bool landlock =
	    run->policy != CONFINE_POLICY_OFF && run->backend == CONFINE_BACKEND_LANDLOCK;
	if ((r = launch_services(run, landlock, err)) < 0)
		return r;
	/* The landlock backend has no pid namespace to end the command's other processes: a
	 * cgroup of their own, where confine can create one, finds them all at the end. */
	if (landlock && !run->cgroup.n && cf_cgroup_available())
		(void)cf_cgroup_create_tracking(&run->cgroup, NULL);
	if (run->policy != CONFINE_POLICY_OFF && (r = start_keeper(run, err)) < 0) {
		cf_cgroup_destroy(&run->cgroup);
		cf_netrun_free(run->netrun);
		run->netrun = NULL;
		return r;
	}
	launch_fill(run);
	r = run->policy == CONFINE_POLICY_OFF ? cf_launch_direct(&run->exec, err)
	    : landlock ? ((r = ll_env(run, err)) < 0 ? r : cf_ll_spawn(&run->exec, err))
		       : cf_launch_bwrap(&run->exec, err);
	if (r < 0) {
		cf_keeper_done(&run->keeper);
		cf_cgroup_destroy(&run->cgroup);
		cf_supervisor_free(run->exec.facts.supervisor);
		run->exec.facts.supervisor = NULL;
		cf_connguard_free(run->exec.facts.connguard);
		run->exec.facts.connguard = NULL;
		cf_netrun_free(run->netrun);
		run->netrun = NULL;
		cf_run_agent_finish(run);
	}
	return r;
}

int confine_run_start(confine_run *run, struct confine_error *err)
{
	/* This call's failure is made in a struct of its own: the audit line records it, and the
	 * caller's struct gets it only when still empty (cf_err_publish). */
	struct confine_error mine = {0};
	/* A receipt means once: spent before anything runs (approve/receipts.c). */
	int r = cf_record_spend(run, &mine);
	if (r == 0)
		r = launch_start(run, &mine);
	if (r < 0 && !run->exec.facts.started) {
		cf_stdio_release(
		    run->exec.stdio); /* a host reading the command's pipe sees its end */
		cf_audit_attempt(run, 125, &mine); /* the attempt ends here (R24) */
	}
	cf_err_publish(err, &mine);
	return r;
}

static int wait_command(confine_run *run, int *status, struct confine_error *err)
{
	*status = 125;
	struct cf_launch_facts *facts = &run->exec.facts;
	if (!facts->started)
		return cf_err(err, CONFINE_E_INVALID, "cannot wait", "run", "not started");
	int r;
	bool again;
	while ((r = cf_launch_wait(&run->exec, status, &again, err)) == 0 && again) {
		cf_launch_reset(&run->exec);
		if (facts->cache_overlay_failed) /* R39: redirects from now on */
			run->cache_overlay_off = true;
		facts->cache_overlay_failed = false;
		if (facts->unsettled) {
			/* R34: the workspace changed while bwrap set the sandbox up.  The sandbox
			 * is gone: what bwrap created on the host for it goes too. */
			cf_settle_cleanup(&run->plan, &run->idents, facts->launch_time);
			if (++run->replans > 3) {
				*status = 125;
				r = cf_err(err, CONFINE_E_SPAWN, "the workspace kept changing",
					   facts->unsettled,
					   "it changed while the sandbox was set up, %d times in a "
					   "row, so the protections could not be placed for sure",
					   run->replans - 1);
				cf_err_hint(err,
					    "another process (a second sandbox?) is renaming "
					    "directories in the workspace; run the command again "
					    "when it has finished; nothing was run");
				break;
			}
			free(facts->unsettled);
			facts->unsettled = NULL;
			if ((r = cf_run_plan(run, err)) < 0)
				break;
		} else if (run->plan.cache_overlay &&
			   (run->cache_overlay_off || facts->helper_mode_off)) {
			/* R39: no overlays without helper mode: the tool caches are redirected. */
			if ((r = cf_run_plan(run, err)) < 0)
				break;
		}
		launch_fill(run);
		if ((r = cf_launch_bwrap(&run->exec, err)) < 0)
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
	cf_supervisor_free(run->exec.facts.supervisor);
	run->exec.facts.supervisor = NULL;
	cf_connguard_free(run->exec.facts.connguard);
	run->exec.facts.connguard = NULL;
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
	cf_stdio_release(run->exec.stdio);
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
