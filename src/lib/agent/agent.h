/* SPDX-License-Identifier: MIT */
/*
 * confine's filtering ssh-agent (R44): a unix socket the command gets as SSH_AUTH_SOCK, served
 * from the caller's own agent, whose socket the command never sees.  Through it the command
 * can list and use for signing only the keys the user named, and only to sign an SSH user
 * authentication for a session bound (session-bind@openssh.com, its signature checked) to a
 * host key that the caller's known_hosts holds for a host the network rules allow, or an
 * SSHSIG blob (ssh-keygen -Y sign).  Adding, removing, locking, unlocking, smartcards and
 * every other extension are refused.  Every request is recorded.  Touches the OS (a socket in
 * a private directory under /tmp, threads).
 */
#ifndef CONFINE_AGENT_AGENT_H
#define CONFINE_AGENT_AGENT_H

#include "agent/agent_const.h"
#include "agent/known_hosts.h"
#include "confine.h"
#include "net/decide.h"
#include "util/util.h"

/* Clients served at once; more wait in the listen backlog. */
#define CF_AGENT_MAX_CLIENTS 64
/* Requests recorded; the rest are counted. */
#define CF_AGENT_MAX_EVENTS 4096

struct cf_agent_config {
	const char *upstream;		    /* the caller's SSH_AUTH_SOCK (copied) */
	const struct cf_strv *fingerprints; /* the keys allowed, "SHA256:..." (copied) */
	const struct cf_known_hosts *kh;    /* borrowed until cf_agent_free */
	const struct cf_net_policy *net;    /* borrowed until cf_agent_free */
	enum confine_net_mode mode;
};

struct cf_agent;

/* Creates /tmp/confine-agent.XXXXXX (0700) with agent.sock (0600) and starts serving it. */
int cf_agent_start(const struct cf_agent_config *cfg, struct cf_agent **out,
		   struct confine_error *err);
/* The socket's host path, and an O_PATH descriptor of its directory (owned by the agent). */
const char *cf_agent_sock_path(const struct cf_agent *a);
int cf_agent_dir_fd(const struct cf_agent *a);
/* Stops serving: every client connection is closed; waits for the threads.  Idempotent. */
void cf_agent_stop(struct cf_agent *a);
/* The requests in the order they came; valid until cf_agent_free.  Read them after stop. */
const struct confine_agent_event *cf_agent_events(const struct cf_agent *a, size_t *n,
						  size_t *dropped);
/* Stops, removes the socket and its directory.  Accepts NULL. */
void cf_agent_free(struct cf_agent *a);

#endif
