/* SPDX-License-Identifier: MIT */
/*
 * confine-request-v2 (v1 without the id and the uses line).  Every variable part is length-prefixed
 * ("<tag> <bytes>:<data>\n"), so no choice of argv, path or reason can make two different requests
 * encode alike: a newline or a space inside an argument is just data of a known length.
 */
#include <stdlib.h>
#include <string.h>

#include "approve/encoding.h"
#include "util/utf8.h"

static void item(struct cf_buf *b, const char *tag, const char *data)
{
	cf_buf_addf(b, "%s %zu:", tag, strlen(data));
	cf_buf_add(b, data);
	cf_buf_addc(b, '\n');
}

void cf_request_encode(const struct cf_card_input *in, struct cf_buf *b)
{
	size_t n_targets = in->escalate || !in->grants ? 0 : in->grants->n;
	cf_buf_add(b, CF_REQUEST_ENCODING "\n");
	item(b, "id", in->id ? in->id : "");
	cf_buf_addf(b, "uses %s\n", in->reusable ? "reusable" : "once");
	item(b, "kind", in->escalate ? "escalate" : "write-grant");
	item(b, "program", in->program);
	cf_buf_addf(b, "argv %zu\n", in->argv->n);
	for (size_t i = 0; i < in->argv->n; i++)
		item(b, "arg", in->argv->v[i]);
	item(b, "cwd", in->cwd);
	item(b, "workspace", in->workspace);
	size_t n_env = in->env_set ? in->env_set->n : 0;
	cf_buf_addf(b, "env %zu\n", n_env);
	for (size_t i = 0; i < n_env; i++)
		item(b, "set", in->env_set->v[i]);
	cf_buf_addf(b, "targets %zu\n", n_targets);
	for (size_t i = 0; i < n_targets; i++)
		item(b, cf_grant_scope_name(in->grants->v[i].scope), in->grants->v[i].path);
	item(b, "reason", n_targets && in->grants->reason ? in->grants->reason : "");
	cf_buf_add(b, "end\n");
}

char *cf_card_title(const struct cf_card_input *in)
{
	const char *a0 = in->argv->n ? in->argv->v[0] : "";
	const char *base = strrchr(a0, '/');
	char *prog = cf_display(base && base[1] ? base + 1 : a0);
	char *path = NULL;
	struct cf_buf b;
	cf_buf_init(&b);
	if (!prog)
		return NULL;
	const char *uses = in->reusable ? "reusable" : "this once";
	if (in->escalate) {
		cf_buf_addf(&b, "Run \"%s\" outside the sandbox, %s", prog, uses);
	} else if (in->grants && in->grants->n == 1) {
		const struct cf_grant *g = &in->grants->v[0];
		if ((path = cf_display(g->path)))
			cf_buf_addf(&b, "Let \"%s\" write to the %s %s, %s", prog,
				    g->scope == CF_GRANT_FILE ? "file" : "directory tree", path,
				    uses);
		else
			b.oom = true;
	} else {
		cf_buf_addf(&b, "Let \"%s\" write to %zu paths, %s", prog,
			    in->grants ? in->grants->n : 0, uses);
	}
	free(prog);
	free(path);
	return cf_buf_take(&b);
}
