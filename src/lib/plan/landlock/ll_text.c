/* SPDX-License-Identifier: MIT */
/* The Landlock plan as stable text and JSON, for `confine plan` and `run --print-plan`.  Pure. */
#include <stdlib.h>
#include <string.h>

#include "plan/landlock/ll_plan.h"
#include "util/utf8.h"
#include "util/util.h"

#define R_SET (CF_LL_FS_EXECUTE | CF_LL_FS_READ_FILE | CF_LL_FS_READ_DIR)
#define W_SET                                                                                      \
	(CF_LL_FS_WRITE_FILE | CF_LL_FS_REMOVE_DIR | CF_LL_FS_REMOVE_FILE | CF_LL_FS_MAKE_DIR |    \
	 CF_LL_FS_MAKE_REG | CF_LL_FS_MAKE_SOCK | CF_LL_FS_MAKE_FIFO | CF_LL_FS_MAKE_SYM |         \
	 CF_LL_FS_REFER | CF_LL_FS_TRUNCATE)

/*
 * The run's own temp directory has a fresh name each run (mkdtemp); the plan text shows it as
 * its template, so that the text, and the policy digest made from it (SPEC 7.3), is the same
 * for `run --print-plan` and the run itself.
 */
static void add_shown(struct cf_buf *b, const struct cf_ll_plan *pl, const char *s)
{
	const char *t = pl->run_tmp;
	size_t tl = t ? strlen(t) : 0;
	const char *pre = "/tmp/confine-run.";
	size_t pl_len = strlen(pre);
	if (!tl || tl <= pl_len || strncmp(t, pre, pl_len)) {
		cf_buf_add(b, s);
		return;
	}
	for (const char *hit; (hit = strstr(s, t));) {
		cf_buf_addf(b, "%.*s%s", (int)(hit - s), s, pre);
		for (size_t i = pl_len; i < tl; i++)
			cf_buf_addc(b, 'X');
		s = hit + tl;
	}
	cf_buf_add(b, s);
}

/* A path or note for a person (R38: escaped for display, then shown as above). */
static void add_display(struct cf_buf *b, const struct cf_ll_plan *pl, const char *s)
{
	char *d = cf_display_escape(s, 0);
	if (!d) {
		b->oom = true;
		return;
	}
	add_shown(b, pl, d);
	free(d);
}

static char *shown(const struct cf_ll_plan *pl, const char *s)
{
	struct cf_buf b;
	cf_buf_init(&b);
	add_shown(&b, pl, s);
	return cf_buf_take(&b);
}

/* "read", "write" for the whole sets, the other rights by name. */
static void access_text(struct cf_buf *b, uint64_t access, uint64_t all, bool dir)
{
	uint64_t r = dir ? R_SET : R_SET & ~CF_LL_FS_READ_DIR;
	uint64_t w = (dir ? W_SET : (CF_LL_FS_WRITE_FILE | CF_LL_FS_TRUNCATE)) & all;
	bool first = true;
	if ((access & r) == r) {
		cf_buf_add(b, "read");
		access &= ~r;
		first = false;
	}
	if (w && (access & w) == w) {
		cf_buf_add(b, first ? "write" : "+write");
		access &= ~w;
		first = false;
	}
	if (access) {
		if (!first)
			cf_buf_addc(b, '+');
		cf_ll_access_names(b, access);
	}
}

static void strv_section(struct cf_buf *b, const struct cf_ll_plan *pl, const char *title,
			 const struct cf_strv *sv)
{
	if (!sv->n)
		return;
	cf_buf_addf(b, "%s\n", title);
	for (size_t i = 0; i < sv->n; i++) {
		cf_buf_add(b, "  ");
		add_display(b, pl, sv->v[i]);
		cf_buf_addc(b, '\n');
	}
}

void cf_ll_plan_text(struct cf_buf *b, const struct cf_ll_plan *pl)
{
	cf_buf_add(b, "process: fork (no namespaces) new-session no-new-privs cap-drop-all "
		      "rlimit-core-0 session-keyring close-fds\n");
	if (pl->kernel_abi > 0)
		cf_buf_addf(b,
			    "landlock: abi %d (kernel %d; confine defines rights up to abi %d)\n",
			    pl->abi, pl->kernel_abi, CF_LL_ABI_KNOWN);
	else
		cf_buf_addf(b,
			    "landlock: none (the kernel offers no Landlock; planned for abi %d)\n",
			    CF_LL_ABI_KNOWN);
	cf_buf_add(b, "  handled fs: ");
	cf_ll_access_names(b, pl->handled_fs);
	cf_buf_add(b, "\n  handled net: ");
	if (pl->handled_net && pl->net_proxy)
		cf_buf_add(b, "bind_tcp,connect_tcp (one rule: connect_tcp to the proxy's port, "
			      "chosen when the run starts; every other TCP connect and every bind "
			      "refused)");
	else if (pl->handled_net)
		cf_buf_add(b, "bind_tcp,connect_tcp (no rule: every TCP bind and connect refused)");
	else if (pl->net_proxy)
		cf_buf_add(b, "none (abi < 4: network by domain refused)");
	else
		cf_buf_add(b, pl->network ? "none (network on)" : "none (abi < 4)");
	cf_buf_add(b, "\n  scoped: ");
	cf_buf_add(b, pl->scoped ? "abstract_unix_socket,signal" : "none (abi < 6)");
	cf_buf_add(b, "\nsocket filter: ");
	if (pl->net_proxy)
		cf_buf_add(b, "TCP over AF_INET and AF_INET6 only (EPERM for every other family, "
			      "type and protocol: UDP, raw, packet, netlink, AF_UNIX, MPTCP, "
			      "SCTP); connect(2) made by confine, only to the proxy at 127.0.0.1 "
			      "(EACCES otherwise); listen(2) and MSG_FASTOPEN refused (EPERM)");
	else if (!pl->unix_sockets)
		cf_buf_add(b, pl->network ? "AF_UNIX refused (EPERM)"
					  : "every family refused (EPERM), AF_UNIX included");
	else
		cf_buf_add(b, pl->network ? "none" : "every family but AF_UNIX refused (EPERM)");
	cf_buf_addc(b, '\n');
	/* R36: the FIFOs (the sockets: the socket filter above, or RESOLVE_UNIX). */
	if (pl->opener)
		cf_buf_add(b,
			   "ipc: FIFO opens for reading made by confine's opener under these "
			   "rules (EACCES for a FIFO outside the writable areas and the allows); "
			   "FIFO writes need write_file (the writable areas)\n");
	if (pl->refusal) {
		cf_buf_add(b, "refused under policy required: ");
		cf_buf_add_display(b, pl->refusal, 0);
		cf_buf_addc(b, '\n');
	}
	cf_buf_add(b, "rules:\n");
	for (size_t i = 0; i < pl->n_rules; i++) {
		const struct cf_ll_rule *r = &pl->rules[i];
		cf_buf_add(b, "  ");
		add_display(b, pl, r->path);
		cf_buf_addc(b, ' ');
		access_text(b, r->access, pl->handled_fs, r->kind == CF_KIND_DIR);
		if (r->why) {
			cf_buf_add(b, "  # ");
			add_display(b, pl, r->why);
		}
		cf_buf_addc(b, '\n');
	}
	strv_section(
	    b, pl, "split (entries created after launch get no access: fail closed):", &pl->split);
	strv_section(b, pl,
		     pl->broker ? "split in a writable area (new entries are made and opened by "
				  "confine's supervisor; not executable in this run):"
				: "split in a writable area (they take no new entry in this run):",
		     &pl->split_writable);
	strv_section(b, pl, "not listable (READ_DIR would reach a hidden directory below):",
		     &pl->not_listable);
	strv_section(b, pl, "not provided:", &pl->not_provided);
	if (pl->notes.n)
		strv_section(b, pl, "landlock notes:", &pl->notes);
}

static void json_shown(struct cf_buf *b, const struct cf_ll_plan *pl, const char *s)
{
	char *t = pl ? shown(pl, s) : NULL;
	cf_buf_add_json(b, t ? t : s);
	free(t);
}

static void json_strv(struct cf_buf *b, const struct cf_ll_plan *pl, const char *key,
		      const struct cf_strv *sv)
{
	cf_buf_addf(b, ",\"%s\":[", key);
	for (size_t i = 0; i < sv->n; i++) {
		if (i)
			cf_buf_addc(b, ',');
		json_shown(b, pl, sv->v[i]);
	}
	cf_buf_addc(b, ']');
}

void cf_ll_plan_json(struct cf_buf *b, const struct cf_ll_plan *pl)
{
	cf_buf_addf(b, "{\"abi\":%d,\"kernel_abi\":%d,\"handled_fs\":\"", pl->abi, pl->kernel_abi);
	cf_ll_access_names(b, pl->handled_fs);
	cf_buf_addf(b,
		    "\",\"handled_net\":%s,\"net_proxy\":%s,\"scoped\":%s,\"unix_sockets\":%s,"
		    "\"refusal\":",
		    pl->handled_net ? "\"bind_tcp,connect_tcp\"" : "null",
		    pl->net_proxy ? "true" : "false",
		    pl->scoped ? "\"abstract_unix_socket,signal\"" : "null",
		    pl->unix_sockets ? "true" : "false");
	if (pl->refusal)
		cf_buf_add_json(b, pl->refusal);
	else
		cf_buf_add(b, "null");
	cf_buf_add(b, ",\"rules\":[");
	for (size_t i = 0; i < pl->n_rules; i++) {
		const struct cf_ll_rule *r = &pl->rules[i];
		cf_buf_add(b, i ? ",{\"path\":" : "{\"path\":");
		json_shown(b, pl, r->path);
		cf_buf_add(b, ",\"access\":\"");
		cf_ll_access_names(b, r->access);
		cf_buf_addc(b, '"');
		if (r->why) {
			cf_buf_add(b, ",\"why\":");
			cf_buf_add_json(b, r->why);
		}
		cf_buf_addc(b, '}');
	}
	cf_buf_addc(b, ']');
	json_strv(b, pl, "split", &pl->split);
	json_strv(b, pl, "split_writable", &pl->split_writable);
	cf_buf_add(b, pl->broker ? ",\"broker\":true" : ",\"broker\":false");
	cf_buf_add(b, pl->opener ? ",\"opener\":true" : ",\"opener\":false");
	json_strv(b, pl, "not_listable", &pl->not_listable);
	json_strv(b, pl, "not_provided", &pl->not_provided);
	json_strv(b, pl, "notes", &pl->notes);
	cf_buf_addc(b, '}');
}

char *cf_ll_full_text(const struct cf_plan *plan, const struct cf_ll_plan *ll)
{
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_add(&b, "target: linux\nbackend: landlock\n");
	cf_buf_add(&b, "workspace: ");
	cf_buf_add_display(&b, plan->workspace, 0);
	cf_buf_add(&b, "\ncwd: ");
	cf_buf_add_display(&b, plan->cwd, 0);
	cf_buf_addc(&b, '\n');
	if (ll->net_proxy)
		cf_buf_addf(&b,
			    "network: domains (%zu allowed; proxy on 127.0.0.1 at a port chosen "
			    "when the run starts, HTTP and SOCKS5 alike, with credentials made for "
			    "the run, in the proxy variables; TCP connect only to the proxy port "
			    "(Landlock), each connect(2) made by confine; no DNS inside)\n",
			    plan->net_allowed);
	else
		cf_buf_addf(&b, "network: %s\n",
			    plan->network ? "on"
					  : "off (Landlock TCP rules and the socket filter)");
	cf_buf_addf(&b, "seccomp: %s\n",
		    plan->seccomp ? "on" : "not applied: the kernel refuses seccomp filters");
	cf_ll_plan_text(&b, ll);
	if (ll->opener && plan->ipc_allow.n) {
		cf_buf_add(&b, "ipc allowed (a FIFO named here, or directly in it):\n");
		for (size_t i = 0; i < plan->ipc_allow.n; i++) {
			cf_buf_add(&b, "  ");
			add_display(&b, ll, plan->ipc_allow.v[i]); /* the request chose it (R38) */
			cf_buf_addc(&b, '\n');
		}
	}
	if (plan->missing.n) {
		cf_buf_add(&b, "missing at launch (no rule, re-checked after the run):\n");
		cf_display_lines(&b, "  ", &plan->missing, 0);
	}
	cf_plan_caches_text(&b, plan);
	if (plan->public_files.n) {
		cf_buf_add(&b, "public by content (certificates only, R40):\n");
		cf_display_lines(&b, "  ", &plan->public_files, 0);
	}
	if (plan->run_notes.n) {
		cf_buf_add(&b, "notes:\n");
		cf_display_lines(&b, "  ", &plan->run_notes, 0);
	}
	if (plan->env_removed.n) {
		cf_display_words(&b, "environment removed:", &plan->env_removed, false);
		cf_buf_addc(&b, '\n');
	}
	if (plan->argv.n) {
		cf_display_words(&b, "command:", &plan->argv, true);
		cf_buf_addc(&b, '\n');
	}
	return cf_buf_take(&b);
}

char *cf_ll_full_json(const struct cf_plan *plan, const struct cf_ll_plan *ll)
{
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_add(&b, "{\"target\":\"linux\",\"backend\":\"landlock\",\"workspace\":");
	cf_buf_add_json(&b, plan->workspace);
	cf_buf_add(&b, ",\"cwd\":");
	cf_buf_add_json(&b, plan->cwd);
	cf_buf_addf(&b, ",\"network\":%s,\"network_mode\":\"%s\",\"network_allowed\":%zu",
		    plan->network ? "true" : "false",
		    ll->net_proxy   ? "domains"
		    : plan->network ? "on"
				    : "off",
		    plan->net_allowed);
	if (ll->net_proxy)
		cf_buf_add(&b, ",\"proxy\":{\"address\":\"127.0.0.1\",\"port\":\"per run\","
			       "\"protocols\":\"http,socks5\",\"credentials\":\"per run\"}");
	cf_buf_addf(&b, ",\"seccomp\":%s,\"landlock\":", plan->seccomp ? "true" : "false");
	cf_ll_plan_json(&b, ll);
	json_strv(&b, NULL, "missing", &plan->missing);
	cf_plan_caches_json(&b, plan);
	if (plan->public_files.n)
		json_strv(&b, NULL, "public_by_content", &plan->public_files);
	json_strv(&b, NULL, "env_removed", &plan->env_removed);
	if (plan->run_notes.n)
		json_strv(&b, NULL, "run_notes", &plan->run_notes);
	json_strv(&b, NULL, "argv", &plan->argv);
	cf_buf_add(&b, "}\n");
	return cf_buf_take(&b);
}
