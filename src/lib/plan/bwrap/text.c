/* SPDX-License-Identifier: MIT */
/* The plan as stable text and JSON, for `confine plan` and `run --print-plan`. */
#include <stdlib.h>
#include <string.h>

#include "net/netconst.h"
#include "plan/bwrap/plan.h"
#include "util/utf8.h"
#include "util/util.h"

static const char *op_name(enum cf_mount_op op)
{
	switch (op) {
	case CF_MNT_RO_ROOT:
		return "ro-bind";
	case CF_MNT_DEV:
		return "dev";
	case CF_MNT_PROC:
		return "proc";
	case CF_MNT_TMPFS:
		return "tmpfs";
	case CF_MNT_HIDE_DIR:
		return "hide-dir";
	case CF_MNT_HIDE_FILE:
		return "hide-file";
	case CF_MNT_RO_BIND:
		return "ro-bind";
	case CF_MNT_RW_BIND:
		return "rw-bind";
	case CF_MNT_REMOUNT_RO:
		return "remount-ro";
	case CF_MNT_RO_KERNEL:
		return "ro-kernel";
	case CF_MNT_INJECT:
		return "inject";
	case CF_MNT_INJECT_DIR:
		return "inject-dir";
	case CF_MNT_INJECT_FILE:
		return "inject-file";
	case CF_MNT_CACHE_STORE:
		return "cache-store";
	case CF_MNT_CACHE_OVERLAY:
		return "overlay";
	}
	return "?";
}

static const char *target_name(enum confine_target t)
{
	return t == CONFINE_TARGET_LINUX   ? "linux"
	       : t == CONFINE_TARGET_MACOS ? "macos"
					   : "windows";
}

static void landlock_text(struct cf_buf *b, const struct cf_plan *plan)
{
	if (plan->landlock_abi >= 6)
		cf_buf_addf(b, "scoped abstract-unix-socket signal (abi %d)", plan->landlock_abi);
	else if (plan->landlock_abi > 0)
		cf_buf_addf(b,
			    "not applied: kernel Landlock abi %d < 6 has no scoping "
			    "(abstract unix sockets and signals are not scoped)",
			    plan->landlock_abi);
	else
		cf_buf_add(b, "not applied: the kernel offers no Landlock (abstract unix sockets "
			      "and signals are not scoped)");
}

static const char *net_mode_name(const struct cf_plan *plan)
{
	return plan->net_mode == CONFINE_NET_DOMAINS ? "domains" : plan->network ? "on" : "off";
}

#define STR2(x) #x
#define STR(x) STR2(x)
#define HTTP_URL "http://127.0.0.1:" STR(CF_NET_HTTP_PORT)
#define SOCKS_URL "socks5h://127.0.0.1:" STR(CF_NET_SOCKS_PORT)

static void network_text(struct cf_buf *b, const struct cf_plan *plan)
{
	if (plan->net_mode != CONFINE_NET_DOMAINS) {
		cf_buf_add(b, plan->network ? "on" : "off (own network namespace)");
		return;
	}
	cf_buf_addf(
	    b,
	    "domains (%zu allowed; own network namespace; names resolve inside to "
	    "synthetic addresses and every TCP connection goes to the proxy; proxy " HTTP_URL
	    " and " SOCKS_URL " inside, sockets in " CF_NET_DIR ")",
	    plan->net_allowed);
}

/* R36: the IPC guard (src/helper/guard.c) and the allows it honours. */
static void ipc_text(struct cf_buf *b, const struct cf_plan *plan)
{
	if (!plan->ipc_guard) {
		cf_buf_addf(b, "ipc: not guarded (%s); the sweep's endpoints are hidden\n",
			    plan->seccomp ? "see notes" : "no seccomp");
		return;
	}
	cf_buf_add(b, "ipc: FIFO opens and pathname-socket connects outside the writable areas "
		      "refused (confine-init opens and connects for the command; Landlock "
		      "write_file); unix datagram sockets refused\n");
	if (!plan->ipc_allow.n)
		return;
	cf_buf_add(b, "ipc allowed (a FIFO or socket named here, or directly in it):\n");
	for (size_t i = 0; i < plan->ipc_allow.n; i++) {
		cf_buf_add(b, "  ");
		cf_buf_add_display(b, plan->ipc_allow.v[i], 0); /* the request chose it (R38) */
		cf_buf_addc(b, '\n');
	}
}

/* Where the plan runs and what the process gets: target, workspace, network, seccomp,
 * Landlock and the IPC guard. */
static void header_text(struct cf_buf *b, const struct cf_plan *plan)
{
	cf_buf_addf(b, "target: %s\n", target_name(plan->target));
	cf_buf_add(b, "workspace: ");
	cf_buf_add_display(b, plan->workspace, 0);
	cf_buf_add(b, "\ncwd: ");
	cf_buf_add_display(b, plan->cwd, 0);
	cf_buf_addc(b, '\n');
	cf_buf_add(b, "network: ");
	network_text(b, plan);
	cf_buf_addc(b, '\n');
	cf_buf_add(b, "process: new-session die-with-parent unshare-user disable-userns "
		      "unshare-pid unshare-ipc unshare-uts unshare-cgroup-try cap-drop-all "
		      "as-pid-1\n");
	cf_buf_addf(b, "seccomp: %s\n",
		    plan->seccomp ? "on" : "not applied: the kernel refuses seccomp filters");
	cf_buf_add(b, "landlock: ");
	landlock_text(b, plan);
	cf_buf_addc(b, '\n');
	ipc_text(b, plan);
}

static void mounts_text(struct cf_buf *b, const struct cf_plan *plan)
{
	cf_buf_add(b, "mounts:\n");
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct cf_mount *m = &plan->mounts[i];
		cf_buf_addf(b, "  %-10s ", op_name(m->op));
		cf_buf_add_display(b, m->path, 0);
		if (m->op == CF_MNT_TMPFS || m->op == CF_MNT_INJECT_DIR)
			cf_buf_addf(b, " size=%llu", (unsigned long long)m->size);
		if (m->op == CF_MNT_HIDE_DIR)
			cf_buf_addf(b, " mode=%s", m->traverse ? "0111" : "0000");
		if (m->op == CF_MNT_INJECT || m->op == CF_MNT_INJECT_FILE)
			cf_buf_add(b, " mode=0444");
		if (m->why) {
			cf_buf_add(b, "  # ");
			cf_buf_add_display(b, m->why, 0);
		}
		cf_buf_addc(b, '\n');
	}
}

static void injects_text(struct cf_buf *b, const struct cf_plan *plan)
{
	if (!plan->n_injects)
		return;
	cf_buf_add(b, "injections (read-only, sealed; BLAKE3):\n");
	for (size_t i = 0; i < plan->n_injects; i++) {
		const struct cf_plan_inject *in = &plan->injects[i];
		/* The request chose the names and the paths (R38). */
		cf_buf_add(b, "  ");
		cf_buf_add_display(b, in->record, 0);
		cf_buf_addf(b, "  (%llu bytes", (unsigned long long)in->size);
		if (in->placement == CONFINE_INJECT_ENV) {
			cf_buf_add(b, "; ");
			cf_buf_add_display(b, in->where, 0);
			cf_buf_addc(b, '=');
			cf_buf_add_display(b, in->path, 0);
			cf_buf_add(b, ", set last");
		}
		cf_buf_add(b, ")\n");
	}
}

/* What the run starts with: the environment it lost, the notes, the command. */
static void run_text(struct cf_buf *b, const struct cf_plan *plan)
{
	if (plan->env_removed.n) {
		cf_display_words(b, "environment removed:", &plan->env_removed, false);
		cf_buf_addc(b, '\n');
	}
	if (plan->notes.n || plan->run_notes.n) {
		cf_buf_add(b, "notes:\n");
		cf_display_lines(b, "  ", &plan->notes, 0);
		cf_display_lines(b, "  ", &plan->run_notes, 0);
	}
	if (plan->argv.n) {
		cf_display_words(b, "command:", &plan->argv, true);
		cf_buf_addc(b, '\n');
	}
}

char *cf_plan_text(const struct cf_plan *plan)
{
	struct cf_buf b;
	cf_buf_init(&b);
	header_text(&b, plan);
	mounts_text(&b, plan);
	if (plan->missing.n) {
		cf_buf_add(&b, "missing at launch (not mounted, re-checked after the run):\n");
		cf_display_lines(&b, "  ", &plan->missing, 0);
	}
	cf_plan_caches_text(&b, plan);
	if (plan->public_files.n) {
		cf_buf_add(&b, "public by content (certificates only, R40):\n");
		cf_display_lines(&b, "  ", &plan->public_files, 0);
	}
	injects_text(&b, plan);
	run_text(&b, plan);
	return cf_buf_take(&b);
}

static void json_strv(struct cf_buf *b, const char *key, const struct cf_strv *sv)
{
	cf_buf_addf(b, ",\"%s\":[", key);
	for (size_t i = 0; i < sv->n; i++) {
		if (i)
			cf_buf_addc(b, ',');
		cf_buf_add_json(b, sv->v[i]);
	}
	cf_buf_addc(b, ']');
}

char *cf_plan_json(const struct cf_plan *plan)
{
	struct cf_buf b;
	cf_buf_init(&b);
	cf_buf_addf(&b, "{\"target\":\"%s\",\"workspace\":", target_name(plan->target));
	cf_buf_add_json(&b, plan->workspace);
	cf_buf_add(&b, ",\"cwd\":");
	cf_buf_add_json(&b, plan->cwd);
	cf_buf_addf(&b, ",\"network\":%s,\"network_mode\":\"%s\",\"network_allowed\":%zu",
		    plan->network ? "true" : "false", net_mode_name(plan), plan->net_allowed);
	if (plan->net_mode == CONFINE_NET_DOMAINS)
		cf_buf_add(&b, ",\"proxy\":{\"http\":\"" HTTP_URL "\",\"socks5\":\"" SOCKS_URL
			       "\",\"sockets\":\"" CF_NET_DIR "\"}");
	cf_buf_addf(&b, ",\"seccomp\":%s,\"landlock_abi\":%d,\"landlock\":",
		    plan->seccomp ? "true" : "false", plan->landlock_abi);
	struct cf_buf l;
	cf_buf_init(&l);
	landlock_text(&l, plan);
	cf_buf_add_json(&b, l.s ? l.s : "");
	cf_buf_release(&l);
	cf_buf_addf(&b, ",\"ipc_guard\":%s", plan->ipc_guard ? "true" : "false");
	json_strv(&b, "ipc_allow", &plan->ipc_allow);
	cf_buf_add(&b, ",\"mounts\":[");
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct cf_mount *m = &plan->mounts[i];
		cf_buf_addf(&b, "%s{\"op\":\"%s\",\"path\":", i ? "," : "", op_name(m->op));
		cf_buf_add_json(&b, m->path);
		if (m->op == CF_MNT_TMPFS || m->op == CF_MNT_INJECT_DIR)
			cf_buf_addf(&b, ",\"size\":%llu", (unsigned long long)m->size);
		if (m->op == CF_MNT_INJECT || m->op == CF_MNT_INJECT_FILE)
			cf_buf_add(&b, ",\"mode\":\"0444\"");
		if (m->op == CF_MNT_HIDE_DIR)
			cf_buf_addf(&b, ",\"mode\":\"%s\"", m->traverse ? "0111" : "0000");
		if (m->why) {
			cf_buf_add(&b, ",\"why\":");
			cf_buf_add_json(&b, m->why);
		}
		cf_buf_addc(&b, '}');
	}
	cf_buf_addc(&b, ']');
	cf_buf_add(&b, ",\"injections\":[");
	for (size_t i = 0; i < plan->n_injects; i++) {
		const struct cf_plan_inject *in = &plan->injects[i];
		cf_buf_addf(&b, "%s{\"placement\":\"%s\",\"%s\":", i ? "," : "",
			    in->placement == CONFINE_INJECT_ENV ? "env" : "path",
			    in->placement == CONFINE_INJECT_ENV ? "name" : "target");
		cf_buf_add_json(&b, in->where);
		cf_buf_add(&b, ",\"path\":");
		cf_buf_add_json(&b, in->path);
		cf_buf_addf(&b, ",\"blake3\":\"%s\",\"size\":%llu,\"record\":", in->hash,
			    (unsigned long long)in->size);
		cf_buf_add_json(&b, in->record);
		cf_buf_addc(&b, '}');
	}
	cf_buf_addc(&b, ']');
	json_strv(&b, "missing", &plan->missing);
	cf_plan_caches_json(&b, plan);
	if (plan->public_files.n)
		json_strv(&b, "public_by_content", &plan->public_files);
	json_strv(&b, "env_removed", &plan->env_removed);
	json_strv(&b, "notes", &plan->notes);
	if (plan->run_notes.n)
		json_strv(&b, "run_notes", &plan->run_notes);
	json_strv(&b, "argv", &plan->argv);
	cf_buf_add(&b, "}\n");
	return cf_buf_take(&b);
}
