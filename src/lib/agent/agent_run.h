/* SPDX-License-Identifier: MIT */
/*
 * The ssh-agent filter of one run (R44): what the request asks for, resolved when the run is
 * prepared (the caller's agent, the keys, known_hosts), the agent while the command runs, its
 * records afterwards.  Linux only; touches the OS.
 */
#ifndef CONFINE_AGENT_RUN_H
#define CONFINE_AGENT_RUN_H

#include "agent/known_hosts.h"
#include "confine.h"
#include "util/util.h"

struct cf_agent;

struct cf_run_agent {
	bool on;
	char *upstream;		     /* the caller's SSH_AUTH_SOCK */
	struct cf_strv fingerprints; /* the keys named */
	struct cf_known_hosts kh;
	struct cf_agent *agent; /* while the command runs */
	struct confine_agent_event *events;
	size_t n_events, dropped;
};

/* After the backend is chosen and the network rules are loaded: checks the request (the
 * sandbox applies, the caller has an agent, each key parses), reads known_hosts. */
int cf_run_agent_prepare(confine_run *run, const confine_request *req, const struct cf_strv *env,
			 struct confine_error *err);
/* After the environment is built: SSH_AUTH_SOCK of the bwrap sandbox (the landlock backend's is
 * set when its agent exists: cf_run_agent_env_at). */
int cf_run_agent_env(confine_run *run, struct confine_error *err);
int cf_run_agent_env_at(confine_run *run, struct confine_error *err);
/* Before the sandbox starts: the agent serves its socket. */
int cf_run_agent_start(confine_run *run, struct confine_error *err);
/* After the command: the agent stops and its records are kept. */
void cf_run_agent_finish(confine_run *run);
void cf_run_agent_release(confine_run *run);
/* The agent's socket's host path while it runs, NULL otherwise. */
const char *cf_run_agent_sock(const confine_run *run);
/* The agent's socket directory (an O_PATH descriptor the agent owns), -1 when none. */
int cf_run_agent_dir_fd(const confine_run *run);

/* NAME=VALUE into env, replacing every earlier NAME=; 0 or CONFINE_E_NOMEM. */
int cf_env_put(struct cf_strv *env, const char *name, const char *value, struct confine_error *err);

#endif
