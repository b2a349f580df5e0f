/* SPDX-License-Identifier: MIT */
/*
 * The built-in layers: overrides (nothing lifts them) and guards (ask; only a one-time approval
 * lifts them), SPEC 2.3.  Their paths are built from host facts and canonicalised like user
 * rules, so a guard on a symlinked ~/.aws protects the real directory (R7).
 */
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "util/util.h"

/* Read and write guards under the home directory (SPEC 2.3): credential stores of the common
 * tools, agent CLIs' own auth files, and browser profiles (cookies, saved passwords). */
static const char *const home_guards[] = {
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".docker/config.json",
    ".npmrc",
    ".pypirc",
    ".netrc",
    ".git-credentials",
    ".config/git/credentials",
    ".config/gh",
    ".config/hub",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".terraform.d",
    ".password-store",
    ".local/share/keyrings",
    ".env",
    ".pgpass",
    ".my.cnf",
    ".vault-token",
    ".config/rclone",
    ".m2/settings.xml",
    ".gradle/gradle.properties",
    ".composer/auth.json",
    ".config/containers/auth.json",
    ".config/op",
    ".codex/auth.json",
    ".claude/.credentials.json",
    ".config/github-copilot",
    ".cache/huggingface/token",
    ".huggingface/token",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
};

/* Read and write guards under the workspace, at any depth and case-insensitive (server.PEM is a
 * key like server.pem). */
static const char *const workspace_guards[] = {
    "**/.env",	  "**/.env.*",	  "**/*.pem",	    "**/*.key",	 "**/*.p12",
    "**/*.pfx",	  "**/*.jks",	  "**/*.keystore",  "**/*.kdbx", "**/id_rsa*",
    "**/id_dsa*", "**/id_ecdsa*", "**/id_ed25519*",
};

/* R40: the guards decided by content (host/certclass.h).  These names hold certificates as
 * often as keys (a venv's CA bundle), so where the host can look into files (host->content) a
 * regular file holding certificates only is public, and anything else (a key, or what cannot
 * be classified within a bounded read) stays hidden.  *.crt and *.cer are guarded only there:
 * a planner that cannot look (a Seatbelt or Windows plan) keeps them readable, as before. */
static const char *const content_guards[] = {"**/*.pem", "**/*.crt", "**/*.cer"};

static bool by_content(const char *pattern)
{
	for (size_t i = 0; i < sizeof(content_guards) / sizeof(content_guards[0]); i++)
		if (!strcmp(pattern, content_guards[i]))
			return true;
	return false;
}

/* Write-only guards under the home: the configuration the host's git reads for every
 * repository (core.fsmonitor, core.sshCommand, aliases: code it runs).  The repository's own
 * files come from host/git.c. */
static const char *const home_write_guards[] = {".gitconfig", ".config/git/config"};

/* The host's own secrets.  Only root can read them, and a sandbox started by root runs as root
 * without capabilities, which still owns them: without these guards an agent run as root (CI,
 * containers) reads the password hashes, the host's SSH and TLS keys, VPN and Wi-Fi secrets,
 * Kerberos keytabs and systemd's credential key.  An addition to the list of SPEC 2.3. */
static const char *const host_guards[] = {
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/ssh/ssh_host_*_key",
    "/etc/ssl/private",
    "/etc/pki/tls/private",
    "/etc/letsencrypt",
    "/etc/wireguard",
    "/etc/NetworkManager/system-connections",
    "/etc/krb5.keytab",
    "/etc/ipsec.secrets",
    "/var/backups/shadow.bak",
    "/var/backups/gshadow.bak",
    "/var/lib/systemd/credential.secret",
};

/* The common directory's entries first, then a worktree's own (git-worktree(1), gitrepository-
 * layout(5)).  Besides configuration and hooks, what git reads later and acts on: the legacy
 * remote definitions (remotes/, branches/: where fetch and push go when the configuration
 * names no such remote), and the state of a sequence a later `git rebase --continue`,
 * `git cherry-pick --continue` or `git am --continue` resumes (rebase-merge/, sequencer/,
 * rebase-apply/): their todo lists hold `exec` lines that git runs. */
static const char *const git_dir_entries[] = {
    "hooks",	 "config",	    "worktrees",    "modules",	    "remotes",	 "branches",
    "commondir", "config.worktree", "rebase-merge", "rebase-apply", "sequencer",
};
#define GIT_COMMON_ENTRIES 6

const char *const *cf_git_dir_entries(bool worktree, size_t *n)
{
	*n = worktree ? sizeof(git_dir_entries) / sizeof(git_dir_entries[0]) : GIT_COMMON_ENTRIES;
	return git_dir_entries;
}

int cf_git_plain_guards(const char *workspace, struct cf_strv *out, struct confine_error *err)
{
	size_t n;
	const char *const *e = cf_git_dir_entries(true, &n);
	for (size_t i = 0; i < n; i++) {
		char *rel = cf_asprintf(".git/%s", e[i]);
		char *p = rel ? cf_path_join(workspace, rel) : NULL;
		free(rel);
		if (!p || cf_strv_take(out, p) < 0)
			return cf_nomem(err);
	}
	return 0;
}

const char *const *cf_home_guards(size_t *n)
{
	*n = sizeof(home_guards) / sizeof(home_guards[0]);
	return home_guards;
}

/*
 * Canonicalises base/rel where base is canonical already: components are looked at one by one
 * and the first one that does not exist ends the walk (nothing below it can be a symlink).  Only
 * when a symlink is met does the full canonicalisation run.  Most guards do not exist, so this
 * costs a stat or two instead of a realpath walk of every prefix on each run.
 */
static int canon_below(const struct cf_host *h, const char *base, const char *rel, char **out,
		       struct confine_error *err)
{
	char *cur = cf_path_join(base, rel);
	if (!cur)
		return cf_nomem(err);
	size_t n = strlen(base);
	for (;;) {
		char *slash = strchr(cur + n + 1, '/');
		if (slash)
			*slash = '\0';
		enum cf_kind k = h->kind(h->ctx, cur);
		if (slash)
			*slash = '/';
		if (k == CF_KIND_MISSING || !slash) {
			if (k != CF_KIND_SYMLINK) {
				*out = cur;
				return 0;
			}
		}
		if (k == CF_KIND_SYMLINK) {
			int r = h->canonicalize(h->ctx, cur, out, err);
			free(cur);
			return r;
		}
		n = (size_t)(slash - cur);
	}
}

static int add_rule(struct cf_policy *p, enum cf_layer layer, const char *base, const char *rel,
		    unsigned access, enum cf_action action, bool liftable, bool fold_case,
		    struct confine_error *err)
{
	int r = 0;
	char *joined = rel ? cf_path_join(base, rel) : cf_path_normalize(base);
	char *canon = NULL, *shown = NULL;
	if (!joined)
		return cf_nomem(err);
	/* Shown as a user would write it: "~/.ssh", ".env" (workspace-relative), "/run/..." */
	if (rel && base == p->host->home)
		shown = cf_asprintf("~/%s", rel);
	else if (rel && base == p->host->pw_home)
		shown = cf_asprintf("~%s/%s", p->host->pw_name ? p->host->pw_name : "", rel);
	else if (rel && base == p->host->workspace)
		shown = cf_strdup(rel);
	else if (!rel && cf_path_within(joined, p->host->workspace) &&
		 strcmp(joined, p->host->workspace))
		shown = cf_strdup(joined + strlen(p->host->workspace) + 1);
	else
		shown = cf_strdup(joined);
	if (!shown) {
		free(joined);
		return cf_nomem(err);
	}
	struct cf_rule rule = {
	    .pattern = shown,
	    .access = access,
	    .action = action,
	    .layer = layer,
	    .source = "builtin",
	    .index = (int)p->layers[layer].n,
	    .glob = strpbrk(joined, "*?") != NULL,
	    .liftable = liftable,
	    .fold_case = fold_case,
	};
	if (rule.glob) {
		/* Glob guards are rooted at the canonical workspace: only the directory part
		 * before the first wildcard matters, and it is canonical already. */
		rule.path = joined;
		const char *w = strpbrk(joined, "*?");
		while (w > joined && *w != '/')
			w--;
		rule.prefix_len = (size_t)(w - joined);
	} else {
		r = rel ? canon_below(p->host, base, rel, &canon, err)
			: p->host->canonicalize(p->host->ctx, joined, &canon, err);
		if (r < 0)
			goto out;
		rule.path = canon;
		rule.prefix_len = strlen(canon);
	}
	r = cf_ruleset_add(&p->layers[layer], &rule, err);
out:
	free(canon);
	free(shown);
	free(joined);
	return r;
}

static int add(struct cf_policy *p, enum cf_layer layer, const char *base, const char *rel,
	       unsigned access, enum cf_action action, struct confine_error *err)
{
	return add_rule(p, layer, base, rel, access, action, false, false, err);
}

/* A write protection of something the host acts on after the run: created by the command
 * where it was missing, it is renamed aside afterwards (rules.h, defuse). */
static int add_defused(struct cf_policy *p, enum cf_layer layer, const char *base, const char *rel,
		       enum cf_action action, struct confine_error *err)
{
	int r = add(p, layer, base, rel, CF_ACC_WRITE, action, err);
	if (r < 0)
		return r;
	struct cf_rule *added = &p->layers[layer].v[p->layers[layer].n - 1];
	added->defuse = true;
	/* A symlink on the way (~/.gitconfig -> dotfiles/gitconfig): the rule protects the
	 * target, and the link itself, which no mount can hold, is checked after the run. */
	char *lexical = rel ? cf_path_join(base, rel) : cf_path_normalize(base);
	if (!lexical)
		return cf_nomem(err);
	if (strcmp(lexical, added->path) && !cf_strv_contains(&p->linked, lexical))
		r = cf_strv_add(&p->linked, lexical) < 0 ||
			    cf_strv_add(&p->linked_rules, added->pattern) < 0
			? cf_nomem(err)
			: 0;
	free(lexical);
	return r;
}

/* The credential guards under one home directory. */
static int add_home_guards(struct cf_policy *p, const char *home, struct confine_error *err)
{
	for (size_t i = 0; i < sizeof(home_guards) / sizeof(home_guards[0]); i++) {
		int r = add(p, CF_LAYER_GUARD, home, home_guards[i], CF_ACC_BOTH, CF_ASK, err);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < sizeof(home_write_guards) / sizeof(home_write_guards[0]); i++) {
		int r = add_defused(p, CF_LAYER_GUARD, home, home_write_guards[i], CF_ASK, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Overrides: confine's own state is write-deny, so that a command can never weaken the next
 * run (R30): the whole .confine directory of the workspace, the user rule files and the
 * directories that hold them (a rule file that does not exist yet cannot be created), the
 * cache (probe, scan).  The report and the audit log are added by approve/approve.c. */
static int add_state_overrides(struct cf_policy *p, const struct cf_host *host,
			       struct confine_error *err)
{
	int r = add_defused(p, CF_LAYER_OVERRIDE, host->workspace, ".confine", CF_DENY, err);
	if (r < 0)
		return r;
	const char *state[] = {host->user_rules_file, host->pw_user_rules_file, host->config_dir,
			       host->pw_config_dir, host->cache_dir};
	for (size_t i = 0; i < sizeof(state) / sizeof(state[0]); i++) {
		if (!state[i])
			continue;
		r = add_defused(p, CF_LAYER_OVERRIDE, state[i], NULL, CF_DENY, err);
		if (r < 0)
			return r;
	}
	/* R39: the tool caches' stores, every workspace's: neither read nor written inside (one
	 * repository cannot read or poison another's); a run gets its own store through the
	 * overlays or, redirected, its own directory of it (plan/caches.h). */
	if (host->state_dir) {
		r = add(p, CF_LAYER_OVERRIDE, host->state_dir, NULL, CF_ACC_BOTH, CF_DENY, err);
		if (r < 0)
			return r;
		p->layers[CF_LAYER_OVERRIDE].v[p->layers[CF_LAYER_OVERRIDE].n - 1].defuse = true;
	}
	return 0;
}

/* The guards inside the workspace (by name, and by content when the host scans content), and
 * what the host's own git reads as configuration or runs (host/git.c). */
static int add_workspace_guards(struct cf_policy *p, const struct cf_host *host,
				struct confine_error *err)
{
	const char *ws = host->workspace;
	int r;
	for (size_t i = 0; i < sizeof(workspace_guards) / sizeof(workspace_guards[0]); i++) {
		r = add_rule(p, CF_LAYER_GUARD, ws, workspace_guards[i], CF_ACC_BOTH, CF_ASK, false,
			     true, err);
		if (r < 0)
			return r;
		p->layers[CF_LAYER_GUARD].v[p->layers[CF_LAYER_GUARD].n - 1].content =
		    by_content(workspace_guards[i]);
	}
	for (size_t i = 1; host->content && i < sizeof(content_guards) / sizeof(content_guards[0]);
	     i++) {
		r = add_rule(p, CF_LAYER_GUARD, ws, content_guards[i], CF_ACC_BOTH, CF_ASK, false,
			     true, err);
		if (r < 0)
			return r;
		p->layers[CF_LAYER_GUARD].v[p->layers[CF_LAYER_GUARD].n - 1].content = true;
	}
	for (size_t i = 0; host->git_guards && i < host->git_guards->n; i++) {
		r = add_defused(p, CF_LAYER_GUARD, host->git_guards->v[i], NULL, CF_ASK, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The host's own guards, then its sockets and runtime state: a read-only mount does not stop
 * connect(), so these are hidden for read and write.  Unlike the credential guards they are
 * liftable one path at a time: an explicit allow of, say, the gpg-agent socket below
 * /run/user/UID gives back that socket and nothing else. */
static int add_host_guards(struct cf_policy *p, const struct cf_host *host,
			   struct confine_error *err)
{
	int r;
	for (size_t i = 0; i < sizeof(host_guards) / sizeof(host_guards[0]); i++) {
		r = add(p, CF_LAYER_GUARD, host_guards[i], NULL, CF_ACC_BOTH, CF_ASK, err);
		if (r < 0)
			return r;
	}
	const char *sockets[] = {host->runtime_dir, host->ssh_auth_sock_dir, "/run/docker.sock",
				 "/var/run/docker.sock"};
	for (size_t i = 0; i < sizeof(sockets) / sizeof(sockets[0]); i++) {
		if (!sockets[i] || sockets[i][0] != '/')
			continue;
		r = add_rule(p, CF_LAYER_GUARD, sockets[i], NULL, CF_ACC_BOTH, CF_ASK, true, false,
			     err);
		if (r < 0)
			return r;
	}
	return 0;
}

int cf_policy_init(struct cf_policy *p, const struct cf_host *host, struct confine_error *err)
{
	int r;
	memset(p, 0, sizeof(*p));
	p->host = host;

	if (cf_strv_add(&p->temp_roots, "/tmp") < 0 ||
	    (host->tmpdir && cf_strv_add(&p->temp_roots, host->tmpdir) < 0))
		return cf_nomem(err);
	if ((r = add_state_overrides(p, host, err)) < 0)
		return r;
	/* The home of $HOME, and the caller's home from the password database when it is
	 * another: root started with HOME=/home/ana still has /root/.ssh, and so does every
	 * caller whose $HOME a tool pointed elsewhere. */
	if ((r = add_home_guards(p, host->home, err)) < 0)
		return r;
	if (host->pw_home && strcmp(host->pw_home, host->home) &&
	    (r = add_home_guards(p, host->pw_home, err)) < 0)
		return r;
	if ((r = add_workspace_guards(p, host, err)) < 0)
		return r;
	return add_host_guards(p, host, err);
}

/* A group directory is used only where no session or user allow names something inside it:
 * such an allow gives back one socket, which needs the socket's own mount. */
static bool group_usable(const struct cf_policy *p, const char *dir)
{
	const enum cf_layer layers[] = {CF_LAYER_SESSION, CF_LAYER_USER};
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < p->layers[layers[k]].n; i++) {
			const struct cf_rule *r = &p->layers[layers[k]].v[i];
			if (r->action == CF_ALLOW && cf_path_within(r->path, dir) &&
			    strcmp(r->path, dir))
				return false;
		}
	return true;
}

static int add_endpoint(struct cf_policy *p, const char *path, bool group,
			struct confine_error *err)
{
	struct cf_rule rule = {
	    .pattern = (char *)path,
	    .path = (char *)path,
	    .access = CF_ACC_BOTH,
	    .action = CF_ASK,
	    .layer = CF_LAYER_GUARD,
	    .source = "builtin",
	    .index = (int)p->endpoints.n,
	    .prefix_len = strlen(path),
	    .liftable = true,
	    .endpoint = true,
	    .group = group,
	};
	return cf_ruleset_add(&p->endpoints, &rule, err);
}

int cf_policy_add_endpoints(struct cf_policy *p, const struct cf_strv *paths,
			    const struct cf_strv *groups, struct confine_error *err)
{
	size_t g = 0;
	for (size_t i = 0; i < paths->n; i++) {
		const char *e = paths->v[i];
		/* Both lists are sorted parent first: the group of e, if any, is at g. */
		while (groups && g < groups->n && cf_path_cmp(groups->v[g], e) < 0 &&
		       !cf_path_within(e, groups->v[g]))
			g++;
		int r;
		if (groups && g < groups->n && cf_path_within(e, groups->v[g]) &&
		    group_usable(p, groups->v[g])) {
			/* The directory once, in the place of its first endpoint. */
			const struct cf_ruleset *v = &p->endpoints;
			if (v->n && !strcmp(v->v[v->n - 1].path, groups->v[g]))
				continue;
			r = add_endpoint(p, groups->v[g], true, err);
		} else {
			r = add_endpoint(p, e, false, err);
		}
		if (r < 0)
			return r;
	}
	return 0;
}

int cf_policy_add_git_guards(struct cf_policy *p, const struct cf_strv *guards, size_t from,
			     struct confine_error *err)
{
	for (size_t i = from; i < guards->n; i++) {
		int r = add_defused(p, CF_LAYER_GUARD, guards->v[i], NULL, CF_ASK, err);
		if (r < 0)
			return r;
	}
	return 0;
}

int cf_policy_add_unreadable(struct cf_policy *p, const struct cf_strv *dirs,
			     struct confine_error *err)
{
	for (size_t i = 0; i < dirs->n; i++) {
		struct cf_rule rule = {
		    .pattern = "(unreadable at launch)",
		    .path = dirs->v[i],
		    .access = CF_ACC_BOTH,
		    .action = CF_ASK,
		    .layer = CF_LAYER_GUARD,
		    .source = "builtin",
		    .index = (int)p->layers[CF_LAYER_GUARD].n,
		    .prefix_len = strlen(dirs->v[i]),
		};
		int r = cf_ruleset_add(&p->layers[CF_LAYER_GUARD], &rule, err);
		if (r < 0)
			return r;
	}
	return 0;
}

void cf_policy_release(struct cf_policy *p)
{
	for (int l = 0; l < CF_LAYER_FALLBACK; l++)
		cf_ruleset_release(&p->layers[l]);
	cf_strv_release(&p->temp_roots);
	cf_strv_release(&p->linked);
	cf_strv_release(&p->linked_rules);
	cf_ruleset_release(&p->endpoints);
}
