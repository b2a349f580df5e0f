/* SPDX-License-Identifier: MIT */
/* The ssh-agent filter of one run (see agent_run.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/agent_keys.h"
#include "agent/agent_run.h"
#include "request.h"

#define KNOWN_HOSTS_MAX (16u << 20)

int cf_env_put(struct cf_strv *env, const char *name, const char *value, struct confine_error *err)
{
	size_t nl = strlen(name), j = 0;
	for (size_t i = 0; i < env->n; i++) {
		if (!strncmp(env->v[i], name, nl) && env->v[i][nl] == '=')
			free(env->v[i]);
		else
			env->v[j++] = env->v[i];
	}
	env->n = j;
	if (j < env->cap)
		env->v[j] = NULL;
	char *kv = cf_asprintf("%s=%s", name, value);
	return kv && cf_strv_take(env, kv) == 0 ? 0 : cf_nomem(err);
}

/* One known_hosts file, if it is there: read whole, bounded. */
static int read_known_hosts(struct cf_known_hosts *kh, const char *path, struct confine_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return 0; /* absent or unreadable: no entries from it */
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	int r = 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= KNOWN_HOSTS_MAX && (text = malloc((size_t)st.st_size))) {
		while (len < (size_t)st.st_size) {
			ssize_t k = read(fd, text + len, (size_t)st.st_size - len);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				break;
			len += (size_t)k;
		}
		if (cf_known_hosts_parse(kh, text, len) < 0)
			r = cf_nomem(err);
	}
	free(text);
	close(fd);
	return r;
}

static int read_all_known_hosts(confine_run *run, struct confine_error *err)
{
	static const char *const sys[] = {"/etc/ssh/ssh_known_hosts", "/etc/ssh/ssh_known_hosts2"};
	const char *homes[] = {run->home, run->pw_home};
	int r = 0;
	for (size_t h = 0; h < 2 && r == 0; h++) {
		if (!homes[h])
			continue;
		static const char *const rel[] = {".ssh/known_hosts", ".ssh/known_hosts2"};
		for (size_t i = 0; i < 2 && r == 0; i++) {
			char *p = cf_path_join(homes[h], rel[i]);
			r = p ? read_known_hosts(&run->agent.kh, p, err) : cf_nomem(err);
			free(p);
		}
	}
	for (size_t i = 0; i < 2 && r == 0; i++)
		r = read_known_hosts(&run->agent.kh, sys[i], err);
	return r;
}

static int add_key(confine_run *run, const char *key, struct confine_error *err)
{
	char fp[CF_SSH_FP_LEN];
	if (!strncmp(key, "SHA256:", 7)) {
		if (!cf_ssh_fingerprint_syntax(key))
			return cf_err(err, CONFINE_E_INVALID, "invalid --ssh-key", key,
				      "not a SHA256 fingerprint");
		snprintf(fp, sizeof(fp), "%s", key);
	} else {
		uint8_t *blob;
		size_t n;
		const char *why = cf_ssh_key_line(key, strlen(key), &blob, &n);
		if (why) {
			cf_err(err, CONFINE_E_INVALID, "invalid --ssh-key", key, "%s", why);
			cf_err_hint(err, "give the public key file (KEY.pub) or its fingerprint "
					 "('ssh-keygen -lf KEY.pub' prints it)");
			return CONFINE_E_INVALID;
		}
		cf_ssh_fingerprint(blob, n, fp);
		free(blob);
	}
	if (cf_strv_contains(&run->agent.fingerprints, fp))
		return 0;
	return cf_strv_add(&run->agent.fingerprints, fp) < 0 ? cf_nomem(err) : 0;
}

int cf_run_agent_prepare(confine_run *run, const confine_request *req, const struct cf_strv *env,
			 struct confine_error *err)
{
	const struct cf_secret_req *s = &req->secrets;
	int r;
	if (!s->ssh_agent) {
		if (!s->ssh_keys.n)
			return 0;
		cf_err(err, CONFINE_E_INVALID, "invalid arguments", "--ssh-key",
		       "a key is for the ssh-agent filter, which was not asked for");
		cf_err_hint(err, "add --ssh-agent");
		return CONFINE_E_INVALID;
	}
	if (run->policy != CONFINE_POLICY_REQUIRED || run->record.escalated) {
		cf_err(err, CONFINE_E_INVALID, "ssh-agent filter refused", "--ssh-agent",
		       "without the sandbox nothing keeps the command from the caller's agent and "
		       "keys");
		cf_err_hint(err, "run with the sandbox (policy required, no escalation)");
		return CONFINE_E_INVALID;
	}
	if (run->backend == CONFINE_BACKEND_LANDLOCK && run->net_mode == CONFINE_NET_ON) {
		cf_err(err, CONFINE_E_INVALID, "ssh-agent filter refused", "landlock",
		       "on the landlock backend the command reaches the agent through the connect "
		       "guard, which runs with network rules or without a network");
		cf_err_hint(err, "allow the hosts the command needs (--net-allow github.com:22), "
				 "or use the bwrap backend");
		return CONFINE_E_INVALID;
	}
	const char *up = cf_strv_env(env, "SSH_AUTH_SOCK");
	if (!up || up[0] != '/') {
		cf_err(err, CONFINE_E_INVALID, "ssh-agent filter refused", "SSH_AUTH_SOCK",
		       "the caller has no ssh-agent (SSH_AUTH_SOCK is %s)",
		       up ? "not an absolute path" : "not set");
		cf_err_hint(err, "start one and add the key: eval \"$(ssh-agent)\"; ssh-add KEY");
		return CONFINE_E_INVALID;
	}
	run->agent.on = true;
	if (!(run->agent.upstream = cf_strdup(up)))
		return cf_nomem(err);
	for (size_t i = 0; i < s->ssh_keys.n; i++)
		if ((r = add_key(run, s->ssh_keys.v[i], err)) < 0)
			return r;
	return read_all_known_hosts(run, err);
}

int cf_run_agent_env(confine_run *run, struct confine_error *err)
{
	if (!run->agent.on || run->backend == CONFINE_BACKEND_LANDLOCK)
		return 0;
	return cf_env_put(&run->plan.env, "SSH_AUTH_SOCK", CF_AGENT_DIR "/" CF_AGENT_SOCK, err);
}

int cf_run_agent_env_at(confine_run *run, struct confine_error *err)
{
	if (!run->agent.agent)
		return 0;
	return cf_env_put(&run->plan.env, "SSH_AUTH_SOCK", cf_agent_sock_path(run->agent.agent),
			  err);
}

int cf_run_agent_start(confine_run *run, struct confine_error *err)
{
	if (!run->agent.on || run->agent.agent)
		return 0;
	struct cf_agent_config cfg = {
	    .upstream = run->agent.upstream,
	    .fingerprints = &run->agent.fingerprints,
	    .kh = &run->agent.kh,
	    .net = &run->net,
	    .mode = run->net_mode,
	};
	return cf_agent_start(&cfg, &run->agent.agent, err);
}

void cf_run_agent_finish(confine_run *run)
{
	struct cf_run_agent *a = &run->agent;
	if (!a->agent)
		return;
	cf_agent_stop(a->agent);
	size_t n, dropped;
	const struct confine_agent_event *ev = cf_agent_events(a->agent, &n, &dropped);
	free(a->events);
	a->events = n ? malloc(n * sizeof(*ev)) : NULL;
	a->n_events = a->events ? n : 0;
	a->dropped = dropped + (n - a->n_events);
	if (a->events)
		memcpy(a->events, ev, n * sizeof(*ev));
	cf_agent_free(a->agent);
	a->agent = NULL;
}

const char *cf_run_agent_sock(const confine_run *run)
{
	return run->agent.agent ? cf_agent_sock_path(run->agent.agent) : NULL;
}

int cf_run_agent_dir_fd(const confine_run *run)
{
	return run->agent.agent ? cf_agent_dir_fd(run->agent.agent) : -1;
}

void cf_run_agent_release(confine_run *run)
{
	struct cf_run_agent *a = &run->agent;
	cf_agent_free(a->agent);
	free(a->upstream);
	cf_strv_release(&a->fingerprints);
	cf_known_hosts_release(&a->kh);
	free(a->events);
	memset(a, 0, sizeof(*a));
}

size_t confine_run_agent_event_count(const confine_run *run)
{
	return run ? run->agent.n_events : 0;
}

const struct confine_agent_event *confine_run_agent_event(const confine_run *run, size_t i)
{
	return i < confine_run_agent_event_count(run) ? &run->agent.events[i] : NULL;
}

size_t confine_run_agent_events_dropped(const confine_run *run)
{
	return run ? run->agent.dropped : 0;
}
