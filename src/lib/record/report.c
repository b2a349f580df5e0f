/* SPDX-License-Identifier: MIT */
/*
 * The post-run report (SPEC 7.3, R23): how the run ended and who said so, the facts of the run
 * (record/run_facts.c), what was not protected while it ran, the paths its denial messages named,
 * and for every one of those that an `ask` rule refused, the rule and the card a host would
 * show to approve it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/canon.h"
#include "host/hostfs.h"
#include "approve/card.h"
#include "record/run_facts.h"
#include "util/util.h"

static json_t *rule_json(const struct cf_decision *d)
{
	if (!d->rule)
		return json_null();
	struct cf_jobj r;
	cf_jobj_init(&r);
	cf_jput_str(&r, "source", d->rule->source);
	cf_jput_int(&r, "index", d->rule->index);
	cf_jput_int(&r, "line", d->rule->line);
	cf_jput_str(&r, "pattern", d->rule->pattern);
	if (r.oom) {
		cf_jobj_release(&r);
		return NULL;
	}
	return r.o;
}

/* The target a write grant for `path` would name: the path itself when it exists, else the
 * nearest directory above it that does (a new file needs its directory). */
static char *grant_target(const char *path, enum cf_grant_scope *scope)
{
	char *p = cf_strdup(path);
	while (p) {
		enum cf_kind k = cf_hostfs_kind(NULL, p);
		if (k == CF_KIND_FILE && !strcmp(p, path)) {
			*scope = CF_GRANT_FILE;
			break;
		}
		if (k == CF_KIND_DIR) {
			*scope = CF_GRANT_SUBTREE;
			break;
		}
		char *up = strcmp(p, "/") ? cf_path_dirname(p) : NULL;
		free(p);
		p = up;
	}
	if (!p)
		return NULL;
	char *arg = cf_asprintf("%s:%s", p, cf_grant_scope_name(*scope));
	free(p);
	return arg;
}

/* The card for an ask: an escalation for a guard or a read (no grant lifts those), a write
 * grant for any other write. */
static json_t *ask_card(const struct cf_run_facts *f, const char *path, const struct cf_decision *d,
			bool write, char *why, size_t why_len)
{
	struct cf_card_input in;
	struct cf_grants g = {0};
	struct confine_card *card = NULL;
	struct confine_error e = {0};
	char *program = NULL, *target = NULL;
	json_t *out = NULL;
	const struct cf_run_record *rec = f->rec;
	const char *prog = rec->program;
	if (!prog && rec->argv.n &&
	    cf_resolve_program(rec->argv.v[0], rec->cwd, f->env, &program, &e) == 0)
		prog = program;
	if (!prog) {
		snprintf(why, why_len, "%s", e.reason[0] ? e.reason : "the program was not found");
		goto out;
	}
	bool escalate = !write || d->layer == CF_LAYER_GUARD;
	if (!escalate) {
		enum cf_grant_scope scope = CF_GRANT_SUBTREE;
		char *reason = cf_asprintf("the sandbox refused a write to %s", path);
		const char *args[1];
		struct cf_grant_host h = {
		    .home = f->home, .canonicalize = cf_host_canonicalize, .kind = cf_hostfs_kind};
		target = reason ? grant_target(path, &scope) : NULL;
		args[0] = target;
		int r = target ? cf_grants_validate(args, 1, reason, &h, &g, &e) : CONFINE_E_NOMEM;
		free(reason);
		if (r < 0) {
			snprintf(why, why_len, "%s: %s", e.what, e.reason);
			goto out;
		}
	}
	cf_card_input_of(rec, f->workspace, escalate, prog, &in);
	in.grants = escalate ? NULL : &g;
	if (cf_card_make(&in, rec->id, &card, &e) == 0)
		out = cf_card_to_json(card);
out:
	confine_card_free(card);
	cf_grants_release(&g);
	free(program);
	free(target);
	return out;
}

static void add_ask(json_t *asks, const struct cf_run_facts *f, const char *path,
		    const char *access, const struct cf_decision *d, bool write, bool *oom)
{
	struct cf_jobj a;
	char why[1024] = "";
	cf_jobj_init(&a);
	cf_jput_str(&a, "path", path);
	cf_jput_str(&a, "access", access);
	cf_jput_str(&a, "layer", cf_layer_name(d->layer));
	cf_jput(&a, "rule", rule_json(d));
	json_t *card = ask_card(f, path, d, write, why, sizeof(why));
	cf_jput(&a, "card", card ? card : json_null());
	cf_jput_str(&a, "card_error", card ? NULL : why);
	if (a.oom || json_array_append_new(asks, a.o) < 0)
		*oom = true;
}

/* Every ask the denial paths ran into: read and write decided for each path as the sandbox
 * decided them; a "Read-only file system" line is about a write only. */
static json_t *asks_json(const struct cf_run_facts *f, bool *oom)
{
	json_t *asks = json_array();
	const struct cf_denials *dn = &f->rec->denials;
	if (!asks || f->policy == CONFINE_POLICY_OFF || !f->rules || !f->rules->host)
		return asks;
	for (size_t i = 0; i < dn->n; i++) {
		char *canon = NULL;
		struct cf_decision rd, wr;
		if (cf_host_canonicalize(NULL, dn->path[i], &canon, NULL) < 0)
			continue;
		cf_policy_decide_both(f->rules, canon, &rd, &wr);
		bool erofs = !strcmp(dn->says[i], "Read-only file system");
		bool r_ask = !erofs && rd.action == CF_ASK, w_ask = wr.action == CF_ASK;
		if (r_ask && w_ask && rd.rule == wr.rule)
			add_ask(asks, f, canon, "both", &rd, false, oom);
		else {
			if (r_ask)
				add_ask(asks, f, canon, "read", &rd, false, oom);
			if (w_ask)
				add_ask(asks, f, canon, "write", &wr, true, oom);
		}
		free(canon);
	}
	return asks;
}

/* What one kind of scan cost (R32): whether its cache file was used, or why not, and how many
 * directories the launch scan and the post-run one read and reused. */
static bool scan_obj(struct cf_jobj *j, const struct cf_scan_state *s)
{
	struct cf_jobj l, a;
	cf_jobj_init(j);
	cf_jput_str(j, "cache", s->why ? s->why : "used");
	const struct cf_scan_stats *v[] = {&s->launch, &s->stats};
	struct cf_jobj *o[] = {&l, &a};
	for (int i = 0; i < 2; i++) {
		cf_jobj_init(o[i]);
		cf_jput_int(o[i], "dirs_read", (long long)v[i]->dirs_read);
		cf_jput_int(o[i], "dirs_reused", (long long)v[i]->dirs_reused);
		cf_jput_int(o[i], "dirs_recent", (long long)v[i]->dirs_recent);
		cf_jput_int(o[i], "dirs_prechecked", (long long)v[i]->dirs_prechecked);
		cf_jput_int(o[i], "files_classified", (long long)v[i]->files_classified);
		cf_jput_int(o[i], "files_reused", (long long)v[i]->files_reused);
	}
	cf_jput_obj(j, "launch", &l);
	cf_jput_obj(j, "after", &a);
	return !j->oom;
}

/* The glob scans, and under "ipc" the sweeps of /run (R29); null when no glob scan ran. */
static json_t *scan_json(const struct cf_run_facts *f)
{
	if (!f->scan->loaded)
		return json_null();
	struct cf_jobj j, ipc;
	bool ok = scan_obj(&j, f->scan);
	if (f->ipc_scan->loaded) {
		ok = scan_obj(&ipc, f->ipc_scan) && ok;
		cf_jput_obj(&j, "ipc", &ipc);
	}
	if (!ok || j.oom) {
		cf_jobj_release(&j);
		return NULL;
	}
	return j.o;
}

/* Events (after the run) or notices (before it) as a JSON array. */
static json_t *events_json(const struct confine_event *v, size_t n, bool *oom)
{
	json_t *ev = json_array();
	for (size_t i = 0; ev && i < n; i++) {
		struct cf_jobj e;
		cf_jobj_init(&e);
		cf_jput_str(&e, "kind", v[i].kind);
		cf_jput_str(&e, "path", v[i].path);
		cf_jput_str(&e, "rule", v[i].rule);
		cf_jput_str(&e, "detail", v[i].detail);
		if (e.oom || json_array_append_new(ev, e.o) < 0)
			*oom = true;
	}
	return ev;
}

char *cf_report_json(const struct cf_run_facts *f, int status, const struct confine_error *why)
{
	struct cf_jobj j;
	cf_jobj_init(&j);
	cf_jput_str(&j, "version", CONFINE_VERSION);
	cf_jput_int(&j, "exit_status", status);
	cf_jput_str(&j, "status_from", f->from_command ? "command" : "confine");
	cf_jput_bool(&j, "timed_out", f->timed_out);
	cf_jput(&j, "error", cf_record_error(why));
	/* The audit line was written before this report: when it could not be, this says so. */
	const struct confine_error *ae = cf_audit_state_error(f->rec->audit_state);
	cf_jput(&j, "audit_error", ae ? cf_record_error(ae) : json_null());
	cf_jput(&j, "notices", events_json(f->notices, f->n_notices, &j.oom));
	cf_jput(&j, "events", events_json(f->events, f->n_events, &j.oom));
	cf_record_facts(&j, f);
	cf_jput_strv(&j, "denied_paths", f->rec->denials.path, f->rec->denials.n);
	cf_jput(&j, "asks", asks_json(f, &j.oom));
	cf_jput(&j, "scan", scan_json(f));
	return cf_jobj_dump(&j);
}

int cf_report_write(int fd, const char *path, char *text, struct confine_error *err)
{
	int r;
	size_t n = strlen(text), off = 0;
	text[n++] = '\0';
	/* The file was opened (and truncated) before the run; written from its start. */
	text[n - 1] = '\n';
	r = ftruncate(fd, 0) < 0 ? -1 : 0;
	while (r == 0 && off < n) {
		ssize_t k = pwrite(fd, text + off, n - off, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			r = -1;
		else
			off += (size_t)k;
	}
	int e = errno;
	free(text);
	if (r < 0) {
		/* Nothing half-written is left to be read as a report: an empty file. */
		int t = ftruncate(fd, 0);
		(void)t;
		cf_err_os(err, CONFINE_E_RECORD, "cannot write the report", path, "write", e);
		cf_err_hint(err, "%s; the report file is left empty",
			    e == ENOSPC || e == EDQUOT ? "free space on its file system"
						       : "check the file and its file system");
		return CONFINE_E_RECORD;
	}
	return 0;
}
