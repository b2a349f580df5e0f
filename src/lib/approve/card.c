/* SPDX-License-Identifier: MIT */
/* Approval cards: built from the canonical request, shown by a host, approved by a person. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/canon.h"
#include "approve/card.h"
#include "request.h"
#include "util/sha256.h"
#include "util/utf8.h"

/* The card and the storage of its strings. */
struct card_impl {
	struct confine_card pub;
	struct cf_strv strs; /* every string the card points to */
	const char **argv, **env;
	struct confine_card_target targets[CONFINE_CARD_MAX_TARGETS];
};

static const char *keep(struct card_impl *c, const char *s, bool *oom)
{
	if (cf_strv_add(&c->strs, s ? s : "") < 0) {
		*oom = true;
		return "";
	}
	return c->strs.v[c->strs.n - 1];
}

void confine_card_free(struct confine_card *card)
{
	if (!card)
		return;
	struct card_impl *c = (struct card_impl *)card;
	cf_strv_release(&c->strs);
	free(c->argv);
	free(c->env);
	free(c);
}

int cf_card_make(const struct cf_card_input *in, const char *id, struct confine_card **out,
		 struct confine_error *err)
{
	struct card_impl *c = calloc(1, sizeof(*c));
	struct cf_buf enc;
	char *title = NULL;
	bool oom = false;
	int r = 0;
	*out = NULL;
	cf_buf_init(&enc);
	if (!c)
		return cf_nomem(err);
	struct confine_card *p = &c->pub;
	size_t n_env = in->env_set ? in->env_set->n : 0;
	c->argv = calloc(in->argv->n + 1, sizeof(*c->argv));
	c->env = calloc(n_env + 1, sizeof(*c->env));
	/* The id the digest covers is the card's. */
	struct cf_card_input with_id = *in;
	if (!with_id.id)
		with_id.id = id ? id : "";
	in = &with_id;
	title = cf_card_title(in);
	cf_request_encode(in, &enc);
	if (!c->argv || !c->env || !title || enc.oom)
		goto oom;
	if ((r = cf_sha256_hex(enc.s, enc.len, p->digest)) < 0)
		goto oom;
	p->size = sizeof(*p);
	p->version = 1;
	p->kind = in->escalate ? "escalate" : "write_grant";
	p->title = keep(c, title, &oom);
	for (size_t i = 0; i < in->argv->n; i++)
		c->argv[i] = keep(c, in->argv->v[i], &oom);
	p->argc = in->argv->n;
	p->argv = c->argv;
	p->program = keep(c, in->program, &oom);
	p->cwd = keep(c, in->cwd, &oom);
	p->workspace = keep(c, in->workspace, &oom);
	p->reusable = in->reusable;
	p->uses = in->reusable
		      ? "reusable: the host asked for an approval it may present again; every run "
			"of exactly this request with this receipt is approved"
		      : "once: the receipt is spent when its run starts, and a second run with it "
			"is refused";
	if (in->escalate) {
		p->where = in->reusable ? "outside the sandbox, reusable"
					: "outside the sandbox, this once";
		p->guards = "the guards do not apply: no rule, guard or override protects anything "
			    "during this run (credentials, the audit log and confine's own files "
			    "are reachable, and so is the network); the environment is still "
			    "scrubbed of secrets";
		p->reason = "";
	} else {
		p->where = in->reusable
			       ? "inside the sandbox, reusable, with write access to the targets"
			       : "inside the sandbox, this once, with write access to the targets";
		p->guards = "the guards still apply: no target is covered by a guard or an "
			    "override, and guarded paths inside a target stay protected";
		for (size_t i = 0; i < in->grants->n && i < CONFINE_CARD_MAX_TARGETS; i++) {
			c->targets[i].size = sizeof(c->targets[i]);
			c->targets[i].path = keep(c, in->grants->v[i].path, &oom);
			c->targets[i].scope = cf_grant_scope_name(in->grants->v[i].scope);
		}
		p->n_targets = in->grants->n;
		p->reason = keep(c, in->grants->reason, &oom);
	}
	for (size_t i = 0; i < n_env; i++)
		c->env[i] = keep(c, in->env_set->v[i], &oom);
	p->n_env = n_env;
	p->env = c->env;
	snprintf(p->request_id, sizeof(p->request_id), "%s", in->id);
	snprintf(p->encoding, sizeof(p->encoding), "%s", CF_REQUEST_ENCODING);
	if (oom)
		goto oom;
	*out = p;
	c = NULL;
	goto out;
oom:
	r = cf_nomem(err);
out:
	confine_card_free(c ? &c->pub : NULL);
	free(title);
	cf_buf_release(&enc);
	return r;
}

json_t *cf_card_to_json(const struct confine_card *p)
{
	struct cf_jobj j, t;
	cf_jobj_init(&j);
	cf_jput_int(&j, "version", p->version);
	cf_jput_str(&j, "kind", p->kind);
	cf_jput_str(&j, "title", p->title);
	cf_jput_strv(&j, "argv", (char *const *)p->argv, p->argc);
	cf_jput_str(&j, "program", p->program);
	cf_jput_str(&j, "cwd", p->cwd);
	cf_jput_str(&j, "workspace", p->workspace);
	cf_jput_str(&j, "where", p->where);
	cf_jput_str(&j, "guards", p->guards);
	json_t *targets = json_array();
	for (size_t i = 0; targets && i < p->n_targets; i++) {
		cf_jobj_init(&t);
		const struct confine_card_target *ct = confine_card_target(p, i);
		cf_jput_str(&t, "path", ct ? ct->path : "");
		cf_jput_str(&t, "scope", ct ? ct->scope : "");
		if (t.oom || json_array_append_new(targets, t.o) < 0)
			j.oom = true;
	}
	cf_jput(&j, "targets", targets);
	cf_jput_str(&j, "reason", p->reason);
	cf_jput_strv(&j, "env", (char *const *)p->env, p->n_env);
	cf_jput_str(&j, "request_id", p->request_id);
	cf_jput_str(&j, "encoding", p->encoding);
	cf_jput_str(&j, "digest", p->digest);
	cf_jput_bool(&j, "reusable", p->reusable);
	cf_jput_str(&j, "uses", p->uses);
	if (j.oom) {
		cf_jobj_release(&j);
		return NULL;
	}
	return j.o;
}

const struct confine_card_target *confine_card_target(const struct confine_card *card, size_t i)
{
	const struct card_impl *c = (const struct card_impl *)card;
	if (!card || i >= card->n_targets || i >= CONFINE_CARD_MAX_TARGETS)
		return NULL;
	return &c->targets[i];
}

int confine_card_json(const struct confine_card *card, char **out, struct confine_error *err)
{
	json_t *o = cf_card_to_json(card);
	*out = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return *out ? 0 : cf_nomem(err);
}
