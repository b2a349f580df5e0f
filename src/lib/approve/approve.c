/* SPDX-License-Identifier: MIT */
/*
 * Approvals (SPEC 7): write grants become session allows of exactly their targets; an
 * escalation or a grant runs only with the receipt of exactly this request; an approved
 * escalation runs the command directly, outside the sandbox, once.  Nothing here writes a
 * rule, a tier or a file.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host/canon.h"
#include "host/hostfs.h"
#include "approve/card.h"
#include "approve/encoding.h"
#include "request.h"
#include "util/util.h"

/* 128 random bits as 32 hex digits. */
static void random_id(char out[CF_REQUEST_ID_MAX + 1])
{
	unsigned char b[16] = {0};
	size_t got = 0;
	while (got < sizeof(b)) {
		ssize_t k = getrandom(b + got, sizeof(b) - got, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break; /* the id is a label, not a secret: the time and pid stand in */
		got += (size_t)k;
	}
	if (got < sizeof(b)) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		snprintf((char *)b, sizeof(b), "%lx%x", (long)ts.tv_nsec, (unsigned)getpid());
	}
	for (size_t i = 0; i < sizeof(b); i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

int cf_run_record_init(confine_run *run, const confine_request *req)
{
	struct cf_run_record *r = &run->record;
	const struct cf_request_record *q = &req->record;
	char cwd[PATH_MAX];
	r->audit_fd = r->tee_fd = r->tee_out = -1;
	clock_gettime(CLOCK_REALTIME, &r->wall_start);
	clock_gettime(CLOCK_MONOTONIC, &r->mono_start);
	if (q->id[0])
		memcpy(r->id, q->id, sizeof(r->id));
	else
		random_id(r->id);
	r->id_given = q->id[0] != '\0';
	r->reusable = q->reusable;
	r->network = req->network;
	r->escalate = q->escalate;
	r->tee_wanted = q->denial_scan || q->audit_fd >= 0 || q->report_fd >= 0;
	for (size_t i = 0; i < req->argv.n; i++)
		if (cf_strv_add(&r->argv, req->argv.v[i]) < 0)
			return CONFINE_E_NOMEM;
	for (size_t i = 0; i < req->env.set.n; i++)
		if (cf_strv_add(&r->env_set, req->env.set.v[i]) < 0)
			return CONFINE_E_NOMEM;
	if (q->receipt && !(r->receipt = cf_strdup(q->receipt)))
		return CONFINE_E_NOMEM;
	if (req->workspace && !(r->workspace_given = cf_strdup(req->workspace)))
		return CONFINE_E_NOMEM;
	if (getcwd(cwd, sizeof(cwd)))
		r->cwd = realpath(cwd, NULL);
	if (q->audit_fd >= 0 && (r->audit_fd = fcntl(q->audit_fd, F_DUPFD_CLOEXEC, 3)) < 0)
		return CONFINE_E_OS;
	r->audit_state = cf_audit_state_ref(q->audit_state);
	return 0;
}

void cf_run_record_release(confine_run *run)
{
	struct cf_run_record *r = &run->record;
	cf_strv_release(&r->argv);
	cf_strv_release(&r->env_set);
	cf_grants_release(&r->grants);
	free(r->cwd);
	free(r->workspace_given);
	free(r->receipt);
	free(r->program);
	confine_card_free(r->card);
	if (r->audit_fd >= 0)
		close(r->audit_fd);
	cf_audit_state_unref(r->audit_state);
	if (r->tee_fd >= 0)
		close(r->tee_fd);
	if (r->tee_out >= 0)
		close(r->tee_out);
	free(r->tee);
	cf_denials_release(&r->denials);
	memset(r, 0, sizeof(*r));
	r->audit_fd = r->tee_fd = r->tee_out = -1;
}

/* An override (SPEC 2.3): nothing lifts it. */
static int add_override(confine_run *run, const char *path, unsigned access,
			struct confine_error *err)
{
	struct cf_rule rule = {
	    .pattern = (char *)path,
	    .path = (char *)path,
	    .access = access,
	    .action = CF_DENY,
	    .layer = CF_LAYER_OVERRIDE,
	    .source = "builtin",
	    .index = (int)run->policy_rules.layers[CF_LAYER_OVERRIDE].n,
	    .prefix_len = strlen(path),
	};
	return cf_ruleset_add(&run->policy_rules.layers[CF_LAYER_OVERRIDE], &rule, err);
}

/* Grant paths as the user wrote them: "~" and "~/x" from the home, relative ones from the
 * current directory. */
static int grant_canon(void *ctx, const char *path, char **out, struct confine_error *err)
{
	const confine_run *run = ctx;
	char *abs;
	if (path[0] == '~' && (path[1] == '\0' || path[1] == '/'))
		abs = cf_path_join(run->home, path[1] ? path + 2 : ".");
	else if (path[0] == '/')
		abs = cf_path_normalize(path);
	else if (run->record.cwd)
		abs = cf_path_join(run->record.cwd, path);
	else
		return cf_err(err, CONFINE_E_OS, "write target refused", path,
			      "the current directory cannot be read");
	if (!abs)
		return cf_nomem(err);
	int r = cf_host_canonicalize(NULL, abs, out, err);
	free(abs);
	return r;
}

/* A write grant must be able to do what the card says: an override or a guard that covers
 * the target would still refuse the write, and only an escalation steps past those. */
static int check_not_protected(const confine_run *run, const struct cf_grant *g,
			       struct confine_error *err)
{
	struct cf_decision d;
	cf_policy_decide(&run->policy_rules, g->path, CF_ACC_WRITE, &d);
	if (d.action == CF_ALLOW || (d.layer != CF_LAYER_OVERRIDE && d.layer != CF_LAYER_GUARD))
		return 0;
	cf_err(err, CONFINE_E_INVALID, "write target refused", g->path,
	       "the %s '%s' protects it, and a write grant does not lift %s",
	       cf_layer_name(d.layer), d.rule ? d.rule->pattern : "",
	       d.layer == CF_LAYER_GUARD ? "a guard" : "an override");
	cf_err_hint(err,
		    d.layer == CF_LAYER_GUARD
			? "only an escalation (confine card -- COMMAND) runs outside the guards"
			: "confine's own files are never writable from inside the sandbox");
	return CONFINE_E_INVALID;
}

/* The grants go first in the session layer: an approval outranks the session's other rules. */
static int insert_grants(confine_run *run, struct confine_error *err)
{
	struct cf_ruleset *s = &run->policy_rules.layers[CF_LAYER_SESSION];
	struct cf_ruleset grants = {0};
	int r = 0;
	for (size_t i = 0; i < run->record.grants.n && r == 0; i++) {
		const struct cf_grant *g = &run->record.grants.v[i];
		struct cf_rule rule = {
		    .pattern = g->path,
		    .path = g->path,
		    .access = CF_ACC_WRITE,
		    .action = CF_ALLOW,
		    .layer = CF_LAYER_SESSION,
		    .source = "grant",
		    .index = (int)i,
		    .prefix_len = strlen(g->path),
		};
		r = cf_ruleset_add(&grants, &rule, err);
	}
	for (size_t i = 0; i < s->n && r == 0; i++)
		r = cf_ruleset_add(&grants, &s->v[i], err);
	if (r < 0) {
		cf_ruleset_release(&grants);
		return r;
	}
	cf_ruleset_release(s);
	*s = grants;
	return 0;
}

int cf_record_policy(confine_run *run, const confine_request *req, struct confine_error *err)
{
	const struct cf_request_record *q = &req->record;
	int r;
	/* Confine's own records (SPEC 2.3, R30): the audit log is unreadable and unwritable
	 * inside, the report unwritable, wherever they are. */
	if (q->audit_path && (r = add_override(run, q->audit_path, CF_ACC_BOTH, err)) < 0)
		return r;
	if (q->report_path && (r = add_override(run, q->report_path, CF_ACC_WRITE, err)) < 0)
		return r;
	if (q->escalate && !req->network)
		return cf_err(err, CONFINE_E_INVALID, "invalid request", "--no-network",
			      "an escalation runs outside the sandbox, where the network cannot be "
			      "cut; ask for one or the other");
	/* Likewise a session's domain allows (SPEC 12): outside the sandbox nothing limits the
	 * network to them.  The user file's network rules simply do not apply there. */
	if (q->escalate && cf_net_rules_allows(&req->net_session))
		return cf_err(err, CONFINE_E_INVALID, "invalid request", "--net-allow",
			      "an escalation runs outside the sandbox, where the network cannot be "
			      "limited to domains; ask for one or the other");
	if (!q->grants.n)
		return 0;
	if (q->escalate)
		return cf_err(err, CONFINE_E_INVALID, "invalid request", "--grant-write",
			      "an escalation runs outside the sandbox, where write grants mean "
			      "nothing; ask for one or the other");
	struct cf_grant_host h = {
	    .home = run->home,
	    .canonicalize = grant_canon,
	    .kind = cf_hostfs_kind,
	    .ctx = run,
	};
	if ((r = cf_grants_validate((const char *const *)q->grants.v, q->grants.n, q->reason, &h,
				    &run->record.grants, err)) < 0)
		return r;
	for (size_t i = 0; i < run->record.grants.n; i++)
		if ((r = check_not_protected(run, &run->record.grants.v[i], err)) < 0)
			return r;
	return insert_grants(run, err);
}

/* An executable regular file at path: 0, or CONFINE_E_NOTFOUND / CONFINE_E_NOEXEC. */
static int executable(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return CONFINE_E_NOTFOUND;
	if (!S_ISREG(st.st_mode) || access(path, X_OK) < 0)
		return CONFINE_E_NOEXEC;
	return 0;
}

/*
 * The executable argv[0] names, found the way execvp would find it (PATH of the command's
 * environment, "/bin:/usr/bin" without one; an empty entry is the current directory), made
 * canonical.  The card shows it and the digest covers it, so that a receipt for "git" cannot
 * run another "git" through another PATH.
 */
int cf_resolve_program(const char *arg0, const char *cwd, const struct cf_strv *env, char **out,
		       struct confine_error *err)
{
	*out = NULL;
	if (!*arg0)
		return cf_err(err, CONFINE_E_NOTFOUND, "cannot run command", arg0,
			      "the command name is empty");
	int best = CONFINE_E_NOTFOUND;
	if (strchr(arg0, '/')) {
		char *abs = cwd ? cf_path_join(cwd, arg0) : cf_strdup(arg0);
		if (!abs)
			return cf_nomem(err);
		best = executable(abs);
		if (best == 0)
			*out = realpath(abs, NULL);
		free(abs);
	} else {
		const char *path = cf_strv_env(env, "PATH");
		char *list = cf_strdup(path ? path : "/bin:/usr/bin");
		if (!list)
			return cf_nomem(err);
		for (char *s = list, *e; s && !*out; s = e ? e + 1 : NULL) {
			e = strchr(s, ':');
			if (e)
				*e = '\0';
			const char *dir = *s ? s : ".";
			char *rel = cf_asprintf("%s/%s", dir, arg0);
			char *cand = rel && cwd ? cf_path_join(cwd, rel)
				     : rel	? cf_strdup(rel)
						: NULL;
			free(rel);
			if (!cand) {
				free(list);
				return cf_nomem(err);
			}
			int k = executable(cand);
			if (k == 0)
				*out = realpath(cand, NULL);
			else if (k == CONFINE_E_NOEXEC)
				best = k;
			free(cand);
		}
		free(list);
	}
	if (*out)
		return 0;
	cf_err(err, best, "cannot run command", arg0,
	       best == CONFINE_E_NOEXEC ? "it is not an executable file" : "not found in PATH");
	return best;
}

void cf_card_input_of(const struct cf_run_record *r, const char *workspace, bool escalate,
		      const char *program, struct cf_card_input *in)
{
	*in = (struct cf_card_input){
	    .id = r->id,
	    .reusable = r->reusable,
	    .escalate = escalate,
	    .argv = &r->argv,
	    .program = program,
	    .cwd = r->cwd ? r->cwd : "",
	    .workspace = workspace ? workspace : "",
	    .env_set = &r->env_set,
	    .grants = escalate ? NULL : &r->grants,
	};
}

int cf_record_card_input(const confine_run *run, bool escalate, const char *program,
			 struct cf_card_input *in)
{
	cf_card_input_of(&run->record, run->workspace, escalate, program, in);
	return 0;
}

int cf_record_approve(confine_run *run, const confine_request *req, struct confine_error *err)
{
	struct cf_run_record *r = &run->record;
	bool wanted = r->escalate || r->grants.n;
	int ret;
	if (!wanted) {
		if (!r->receipt)
			return 0;
		cf_err(err, CONFINE_E_INVALID, "invalid request", "--receipt",
		       "a receipt approves an escalation or write grants, and this request asks "
		       "for neither");
		cf_err_hint(err, "add --escalate or the --grant-write targets the card was for");
		return CONFINE_E_INVALID;
	}
	if ((ret = cf_resolve_program(r->argv.v[0], r->cwd, &run->plan.env, &r->program, err)) < 0)
		return ret;
	struct cf_card_input in;
	cf_record_card_input(run, r->escalate, r->program, &in);
	if ((ret = cf_card_make(&in, r->id, &r->card, err)) < 0)
		return ret;
	if (!r->receipt) {
		cf_err(err, CONFINE_E_APPROVAL, "not approved", r->argv.v[0],
		       "%s needs the approval of this exact request",
		       r->escalate ? "running outside the sandbox" : "a write grant");
		cf_err_hint(err, "show the card ('confine card' with the same options) to the "
				 "person who decides, and pass its digest with --receipt");
		return CONFINE_E_APPROVAL;
	}
	if (strcasecmp(r->receipt, r->card->digest)) {
		cf_err(err, CONFINE_E_APPROVAL, "receipt does not match this request", r->argv.v[0],
		       "the approved card was for another request (a different request id, "
		       "command, program, directory, workspace, --env assignment, target list or "
		       "reason)");
		if (!r->id_given)
			cf_err_hint(err, "a receipt goes with its card's request id: pass it with "
					 "--request-id ID (the card prints both)");
		else
			cf_err_hint(err, "build the card of this exact request with 'confine card' "
					 "and ask for its approval");
		return CONFINE_E_APPROVAL;
	}
	r->approved = true;
	/* The receipt is spent when the run starts (receipts.c), in confine's cache directory:
	 * made now if it is missing, before the plan looks for confine's own state, so that
	 * neither the plan nor the post-run check takes it for something the command made. */
	if (!r->reusable && (ret = cf_record_spend_ready(run, err)) < 0)
		return ret;
	if (r->escalate) {
		/* Outside the sandbox: the command is executed directly, by the path on the card,
		 * and no plan applies. */
		r->escalated = true;
		run->policy = CONFINE_POLICY_OFF;
	}
	return 0;
}
