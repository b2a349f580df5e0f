/* SPDX-License-Identifier: MIT */
/*
 * Post-run detection (SPEC 3 R14, 7.3 R23).  A mount namespace protects what exists at launch:
 * a protected path that was missing then, or a new file matching a glob rule, was not
 * protected while the command ran.  After the command, confine looks again and reports each
 * such creation, so the host can act on it; the next run protects it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/nofollow.h"
#include "host/git_defuse.h"
#include "host/ipc.h"
#include "host/scan.h"
#include "request.h"
#include "util/util.h"
#include "host/matches.h"

static int add_event(confine_run *run, const char *kind, const char *path, const char *rule,
		     const char *detail)
{
	size_t cap;
	struct confine_event *v = cf_grow_array(run->events, run->n_events, 1, sizeof(*v), &cap);
	if (!v)
		return CONFINE_E_NOMEM;
	run->events = v; /* one more than n_events: grown one at a time (a few per run) */
	struct confine_event *e = &v[run->n_events++];
	memset(e, 0, sizeof(*e));
	e->size = sizeof(*e);
	snprintf(e->kind, sizeof(e->kind), "%s", kind);
	snprintf(e->path, sizeof(e->path), "%s", path ? path : "");
	snprintf(e->rule, sizeof(e->rule), "%s", rule ? rule : "");
	snprintf(e->detail, sizeof(e->detail), "%s", detail ? detail : "");
	return 0;
}

/*
 * Whether this run's command could have made `path`: only then is its creation the run's to
 * report (another process of the host makes sockets, /run/user/UID and files all the time).
 * Without a sandbox (policy off, an approved escalation) the command could write wherever the
 * user can.  With one, it writes only in the workspace and where a rule (a session, user or
 * grant allow: not the fallback) lets it: the fallback's other write roots, /tmp and $TMPDIR,
 * are a private tmpfs (bwrap) or replaced by the run's own directory (landlock), never the
 * host's.  The parent is what the command would have written.
 */
static bool made_by_this_run(const confine_run *run, const char *path)
{
	if (run->policy != CONFINE_POLICY_REQUIRED)
		return true;
	if (run->workspace && cf_path_within(path, run->workspace))
		return true;
	char *parent = cf_path_dirname(path);
	struct cf_decision d;
	cf_policy_decide(&run->policy_rules, parent ? parent : path, CF_ACC_WRITE, &d);
	free(parent);
	return d.action == CF_ALLOW && d.layer != CF_LAYER_FALLBACK;
}

/* What another process made where the command could not write: a fact of the report, not a
 * warning about the command. */
#define ELSEWHERE                                                                                  \
	"made during the run where the command could not write, so by another process; it "        \
	"was not protected while the command ran"

/* The pattern (as written) of the first rule that protects path, for the message. */
static const char *protecting_rule(const confine_run *run, const char *path)
{
	struct cf_decision d;
	cf_policy_decide(&run->policy_rules, path, CF_ACC_READ, &d);
	if (d.rule && d.action != CF_ALLOW)
		return d.rule->pattern;
	cf_policy_decide(&run->policy_rules, path, CF_ACC_WRITE, &d);
	return d.rule ? d.rule->pattern : "";
}

static bool launched_with(const confine_run *run, const char *path, size_t rule)
{
	for (size_t i = 0; i < run->launch.n; i++)
		if (run->launch.v[i].rule == rule && !strcmp(run->launch.v[i].path, path))
			return true;
	return false;
}

/* The same path matched the same rule at launch, and is the same file (R37: a match replaced
 * during the run is looked at again). */
static bool launched_same(const confine_run *run, const struct cf_match *m)
{
	for (size_t i = 0; i < run->launch.n; i++) {
		const struct cf_match *l = &run->launch.v[i];
		if (l->rule == m->rule && !strcmp(l->path, m->path))
			return !l->ino || !m->ino || (l->dev == m->dev && l->ino == m->ino);
	}
	return false;
}

/* Whether the launch left the mount of this endpoint out: it vanished as the sandbox started. */
static bool left_out(const confine_run *run, const char *path)
{
	for (size_t i = 0; run->exec.facts.skip && i < run->plan.n_mounts; i++)
		if (run->exec.facts.skip[i] && !strcmp(run->plan.mounts[i].path, path))
			return true;
	return false;
}

/* Sockets and FIFOs the host created while the command ran (or that vanished as it started,
 * so that no mount could hide them) were not hidden (R29). */
static int detect_endpoints(confine_run *run)
{
	struct cf_strv now = {0};
	struct confine_error err = {0};
	int r = 0;
	/* From the launch sweep's records (R32), stored for the next run. */
	run->ipc_scan.launch = run->ipc_scan.stats;
	r = cf_host_ipc_endpoints_cached(&run->ipc_scan, run->cache_dir, run->workspace,
					 run->runtime_dir, &now, &err);
	cf_scan_state_save(&run->ipc_scan, run->cache_dir);
	if (r < 0) {
		char detail[sizeof(err.reason) + sizeof(err.subject) + 8];
		snprintf(detail, sizeof(detail), "%s: %s", err.subject, err.reason);
		r = add_event(run, "ipc_endpoint_scan_failed", NULL, NULL, detail);
		goto out;
	}
	/* Both lists are sorted: one merge. */
	size_t j = 0;
	for (size_t i = 0; i < now.n && r == 0; i++) {
		while (j < run->ipc_launch.n && cf_path_cmp(run->ipc_launch.v[j], now.v[i]) < 0)
			j++;
		if (j < run->ipc_launch.n && !strcmp(run->ipc_launch.v[j], now.v[i]) &&
		    !left_out(run, now.v[i]))
			continue;
		struct cf_decision rd;
		cf_policy_decide(&run->policy_rules, now.v[i], CF_ACC_READ, &rd);
		if (rd.action == CF_ALLOW && rd.layer != CF_LAYER_FALLBACK)
			continue; /* allowed by a rule: the sandbox could reach it on purpose */
		if (rd.rule && rd.rule->group && !left_out(run, rd.rule->path))
			continue; /* inside a directory hidden as a whole at launch */
		if (made_by_this_run(run, now.v[i]))
			r = add_event(run, "ipc_endpoint_created", now.v[i], NULL,
				      "bound or created on the host while the command ran, so it "
				      "was not hidden");
		else
			r = add_event(run, "ipc_endpoint_appeared", now.v[i], NULL, ELSEWHERE);
	}
out:
	cf_strv_release(&now);
	return r;
}

/*
 * R30: a protection of something the host acts on later (git's configuration, confine's rule
 * files) that was missing at launch could not be mounted; if the command created it, it is
 * renamed aside now, before the user's next `git status` or the next run reads it.  The parent
 * is opened without following symlinks and the rename never replaces anything.  Returns 0 and
 * the new name, or -1 with errno.
 */
static int defuse(const char *path, char *moved, size_t cap)
{
	char *parent = cf_path_dirname(path);
	const char *name = strrchr(path, '/');
	if (!parent || !name || !name[1]) {
		free(parent);
		errno = EINVAL;
		return -1;
	}
	name++;
	int dfd = cf_open_nofollow(AT_FDCWD, parent, O_PATH | O_DIRECTORY, 0, NULL);
	int rc = -1, e = errno;
	for (int i = 0; dfd >= 0 && i < 100; i++) {
		char to[512];
		if (i == 0)
			snprintf(to, sizeof(to), "%s.confine-disabled", name);
		else
			snprintf(to, sizeof(to), "%s.confine-disabled-%d", name, i + 1);
		if (syscall(SYS_renameat2, dfd, name, dfd, to, RENAME_NOREPLACE) == 0) {
			snprintf(moved, cap, "%s/%s", parent, to);
			rc = 0;
			break;
		}
		e = errno;
		if (e != EEXIST)
			break;
	}
	if (dfd >= 0)
		close(dfd);
	free(parent);
	errno = e;
	return rc;
}

/*
 * R37: a protected name that the command made as a link -- a symlink, or a hard link of another
 * file -- is an alias the user may fill later (a key saved as server.pem lands in cache.txt),
 * and the next run could not protect what it points to: it is renamed aside, never followed.
 */
static bool made_as_link(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 &&
	       (S_ISLNK(st.st_mode) || (S_ISREG(st.st_mode) && st.st_nlink > 1));
}

static int defuse_link(confine_run *run, const char *path, const char *rule)
{
	char moved[4096 + 64];
	if (defuse(path, moved, sizeof(moved)) == 0)
		return add_event(run, "protected_link_disabled", path, rule, moved);
	char detail[256];
	snprintf(detail, sizeof(detail), "it could not be renamed aside: %s", strerror(errno));
	return add_event(run, "protected_link_kept", path, rule, detail);
}

/* A new repository (R30 refined): the workspace's `.git`, or the worktrees or modules of a git
 * directory, that the command created. */
static bool git_new(const confine_run *run, const char *p, enum cf_git_new *kind)
{
	const char *base = strrchr(p, '/');
	size_t wl = strlen(run->workspace);
	if (!strncmp(p, run->workspace, wl) && !strcmp(p + wl, "/.git")) {
		*kind = CF_GIT_NEW_REPO;
		return true;
	}
	if (!base || !cf_strv_contains(&run->git_guards, p))
		return false;
	*kind = !strcmp(base, "/worktrees") ? CF_GIT_NEW_WORKTREES : CF_GIT_NEW_MODULES;
	return !strcmp(base, "/worktrees") || !strcmp(base, "/modules");
}

/* The repository stays; what git would run or follow was moved aside: one event each. */
static int git_report(confine_run *run, struct cf_git_changes *chp, const char *p, const char *rule)
{
	struct cf_git_changes ch = *chp;
	int r = 0;
	char detail[sizeof(run->events[0].detail)];
	for (size_t i = 0; i < ch.n && r == 0; i++) {
		const struct cf_git_change *c = &ch.v[i];
		if (!c->to) {
			snprintf(detail, sizeof(detail), "it could not be moved aside: %s",
				 strerror(c->err));
			r = add_event(run, "protected_created_kept", c->path, rule, detail);
		} else if (c->keys) {
			snprintf(detail, sizeof(detail), "%s; the original is at '%s'", c->keys,
				 c->to);
			r = add_event(run, "git_config_filtered", c->path, rule, detail);
		} else {
			r = add_event(run, "git_moved_aside", c->path, rule, c->to);
		}
	}
	if (ch.more && r == 0) {
		snprintf(detail, sizeof(detail), "%zu more entries", ch.more);
		r = add_event(run, "git_moved_aside_more", p, rule, detail);
	}
	cf_git_changes_release(chp);
	return r;
}

static int git_defused(confine_run *run, const char *p, enum cf_git_new kind, const char *rule)
{
	struct cf_git_changes ch = {0};
	int r = cf_git_defuse(run->workspace, p, kind, &ch);
	int q = git_report(run, &ch, p, rule);
	return r < 0 ? r : q;
}

/* An entry of a worktrees/ that was there at launch, as the same file. */
static bool launched_entry(const struct cf_git_launch *l, int dfd, const char *name,
			   const char *path)
{
	struct stat st;
	for (size_t i = 0; i < l->entries.n; i++)
		if (!strcmp(l->entries.v[i], path))
			return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			       (uint64_t)st.st_dev == l->ids[i].dev &&
			       (uint64_t)st.st_ino == l->ids[i].ino &&
			       (unsigned)(st.st_mode & S_IFMT) == l->ids[i].type;
	return false;
}

/*
 * The worktrees/ directories that existed at launch stayed writable (host/git.h): an entry
 * that was not there then is a worktree the command added (or planted), looked through like a
 * new repository's.  The directory is opened without following a symlink.
 */
static int git_new_worktrees(confine_run *run)
{
	const struct cf_git_launch *l = &run->git_launch;
	int r = 0;
	for (size_t i = 0; i < l->dirs.n && r == 0; i++) {
		const char *dir = l->dirs.v[i];
		int fd = cf_open_nofollow(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY, 0, NULL);
		DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
		struct stat st;
		if (!d && lstat(dir, &st) == 0) {
			/* Replaced by a symlink or a file (an empty worktrees/ holds no guard
			 * that would pin it): git would follow it. */
			char moved[4096 + 64];
			r = defuse(dir, moved, sizeof(moved)) == 0
				? add_event(run, "protected_created_disabled", dir, dir, moved)
				: add_event(
				      run, "protected_created_kept", dir, dir,
				      "it replaced a directory and could not be renamed aside");
		}
		if (!d) {
			if (fd >= 0)
				close(fd);
			continue; /* gone, or moved aside now: nothing of it for git to read */
		}
		struct cf_strv fresh = {0};
		struct dirent *e;
		while ((e = readdir(d)) && r == 0) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			char *p = cf_path_join(dir, e->d_name);
			if (!p || (!launched_entry(l, dirfd(d), e->d_name, p) &&
				   cf_strv_add(&fresh, p) < 0))
				r = CONFINE_E_NOMEM;
			free(p);
		}
		closedir(d);
		for (size_t k = 0; k < fresh.n && r == 0; k++)
			r = git_defused(run, fresh.v[k], CF_GIT_NEW_WORKTREE, dir);
		cf_strv_release(&fresh);
	}
	return r;
}

/* A `.git` in the workspace found by the post-run scan (the rule of run.c's expand_globs): one
 * that was not there at launch, or not as the same entry, is a repository the command made
 * (git init, git clone into a subdirectory, git submodule add): looked through like the
 * workspace's own new repository.  The workspace's own `.git` is the missing guards' case. */
static int nested_new(confine_run *run, const struct cf_match *m, const struct cf_strv *gitdirs)
{
	size_t wl = strlen(run->workspace);
	if (run->policy != CONFINE_POLICY_REQUIRED ||
	    (!strncmp(m->path, run->workspace, wl) && !strcmp(m->path + wl, "/.git")))
		return 0;
	for (size_t i = 0; i < run->git_nested.n; i++) {
		const struct cf_match *l = &run->git_nested.v[i];
		if (!strcmp(l->path, m->path) && l->kind == m->kind &&
		    (!l->ino || !m->ino || (l->dev == m->dev && l->ino == m->ino)))
			return 0;
	}
	if (m->kind != CF_KIND_FILE)
		return git_defused(run, m->path, CF_GIT_NEW_REPO, "**/.git");
	struct cf_git_changes ch = {0};
	int r = cf_git_defuse_gitfile(run->workspace, m->path, gitdirs, &ch);
	return r < 0 ? r : git_report(run, &ch, m->path, "**/.git");
}

/* A missing protected path that now exists: defused (R30) or reported. */
static int created(confine_run *run, const char *p)
{
	struct cf_decision d;
	if (!made_by_this_run(run, p))
		return add_event(run, "missing_protected_appeared", p, protecting_rule(run, p),
				 ELSEWHERE);
	cf_policy_decide(&run->policy_rules, p, CF_ACC_WRITE, &d);
	/* Without a sandbox (policy off, an approved escalation) the command did what the
	 * operator let it do: reported, never undone. */
	if (!d.rule || !d.rule->defuse || d.action == CF_ALLOW ||
	    run->policy != CONFINE_POLICY_REQUIRED) {
		if (run->policy == CONFINE_POLICY_REQUIRED && made_as_link(p))
			return defuse_link(run, p, protecting_rule(run, p));
		return add_event(run, "missing_protected_created", p, protecting_rule(run, p),
				 NULL);
	}
	enum cf_git_new kind;
	if (git_new(run, p, &kind))
		return git_defused(run, p, kind, d.rule->pattern);
	char moved[4096 + 64];
	if (defuse(p, moved, sizeof(moved)) == 0)
		return add_event(run, "protected_created_disabled", p, d.rule->pattern, moved);
	char detail[256];
	snprintf(detail, sizeof(detail), "it could not be renamed aside: %s", strerror(errno));
	return add_event(run, "protected_created_kept", p, d.rule->pattern, detail);
}

/* What the cgroup's limits did (cf_cgroup_counts): a process the kernel ended for the memory
 * limit, forks refused at the pids limit.  Otherwise only a status 137 would be left. */
static int limit_events(confine_run *run)
{
	char detail[256], size[48];
	const struct cf_cgroup_counts *c = &run->limit_counts;
	int r = 0;
	if (run->limit_mem && c->oom_kills && c->mem_limit) {
		/* As --limit mem= takes it: 64M, 2G. */
		unsigned long long m = (unsigned long long)run->limit_mem;
		int sh = !(m % (1ULL << 30)) ? 30 : !(m % (1ULL << 20)) ? 20 : !(m % 1024) ? 10 : 0;
		snprintf(size, sizeof(size), "%llu%s", m >> sh,
			 sh == 30   ? "G"
			 : sh == 20 ? "M"
			 : sh == 10 ? "K"
				    : " bytes");
		snprintf(detail, sizeof(detail),
			 "the memory limit (--limit mem=%s) was reached and the kernel's OOM "
			 "killer ended %llu process%s",
			 size, (unsigned long long)c->oom_kills, c->oom_kills == 1 ? "" : "es");
		r = add_event(run, "memory_limit_killed", NULL, NULL, detail);
	}
	if (r == 0 && run->limit_pids && c->pids_max) {
		snprintf(detail, sizeof(detail),
			 "the process limit (--limit pids=%llu) was reached: %llu fork%s refused "
			 "(EAGAIN)",
			 (unsigned long long)run->limit_pids, (unsigned long long)c->pids_max,
			 c->pids_max == 1 ? " was" : "s were");
		r = add_event(run, "pids_limit_reached", NULL, NULL, detail);
	}
	return r;
}

int cf_run_detect(confine_run *run)
{
	struct stat st;
	int r = 0;
	free(run->events);
	run->events = NULL;
	run->n_events = 0;

	if ((r = limit_events(run)) < 0)
		return r;

	if (run->policy == CONFINE_POLICY_REQUIRED && (r = detect_endpoints(run)) < 0)
		return r;

	/* A link to a protection (~/.gitconfig -> dotfiles/gitconfig) that the command replaced:
	 * the host would follow the new one. */
	for (size_t i = 0; run->policy == CONFINE_POLICY_REQUIRED && i < run->linked.n && r == 0;
	     i++) {
		const struct cf_ident *id = &run->linked.v[i];
		if (cf_ident_same(id) || lstat(id->path, &st) < 0)
			continue;
		const struct cf_strv *rules = &run->policy_rules.linked_rules;
		const char *rule = i < rules->n ? rules->v[i] : "";
		char moved[4096 + 64];
		if (defuse(id->path, moved, sizeof(moved)) == 0)
			r = add_event(run, "protected_created_disabled", id->path, rule, moved);
		else
			r = add_event(run, "protected_created_kept", id->path, rule,
				      "it replaced a symlink and could not be renamed aside");
	}
	for (size_t i = 0; i < run->plan.missing.n && r == 0; i++) {
		const char *p = run->plan.missing.v[i];
		if (lstat(p, &st) == 0)
			r = created(run, p);
	}
	if (run->policy == CONFINE_POLICY_REQUIRED && r == 0)
		r = git_new_worktrees(run);
	for (size_t i = 0; i < run->launch.skipped.n && r == 0; i++)
		r = add_event(run, "unreadable_directory_skipped", run->launch.skipped.v[i], NULL,
			      "the glob scan could not read it, so it was hidden from the "
			      "command");
	if (r < 0 || !run->globs.n)
		return r;

	struct cf_matches now = {0};
	struct confine_error err = {0};
	struct cf_scan_budget b = CF_SCAN_BUDGET_DEFAULT;
	/* From the launch scan's records (R32); what this scan found is the next run's cache. */
	run->scan.launch = run->scan.stats;
	if (cf_scan_cached(&run->scan, run->cache_dir, &run->globs, &b, &now, &err) < 0) {
		char detail[sizeof(err.reason) + sizeof(err.subject) + 128];
		/* The nested repositories the command made are found by this scan alone. */
		snprintf(detail, sizeof(detail),
			 "%s: %s; a .git made during the run below the workspace's root was not "
			 "looked through either",
			 err.subject, err.reason);
		r = add_event(run, "dynamic_glob_scan_failed", NULL, NULL, detail);
		goto out;
	}
	struct cf_strv moved = {0}, gitdirs = {0};
	/* The workspace's git directories now: where a new `.git` file may point. */
	for (size_t i = 0; i < now.n && r == 0; i++)
		if (now.v[i].rule == run->git_rule && now.v[i].kind == CF_KIND_DIR &&
		    cf_strv_add(&gitdirs, now.v[i].path) < 0)
			r = CONFINE_E_NOMEM;
	for (size_t i = 0; i < now.n && r == 0; i++) {
		const struct cf_match *m = &now.v[i];
		if (m->rule == run->git_rule) {
			r = nested_new(run, m, &gitdirs);
			continue;
		}
		if (launched_same(run, m) || cf_strv_contains(&moved, m->path))
			continue;
		bool ours = made_by_this_run(run, m->path);
		if (ours && run->policy == CONFINE_POLICY_REQUIRED && made_as_link(m->path)) {
			r = defuse_link(run, m->path, run->globs.v[m->rule].pattern);
			if (r == 0 && cf_strv_add(&moved, m->path) < 0)
				r = CONFINE_E_NOMEM;
		} else if (!launched_with(run, m->path, m->rule)) {
			r = add_event(run, ours ? "dynamic_glob_created" : "dynamic_glob_appeared",
				      m->path, run->globs.v[m->rule].pattern,
				      ours ? NULL : ELSEWHERE);
		}
	}
	cf_strv_release(&moved);
	cf_strv_release(&gitdirs);
	for (size_t i = 0; i < now.skipped.n && r == 0; i++)
		if (!cf_strv_contains(&run->launch.skipped, now.skipped.v[i]))
			r = add_event(run, "unreadable_directory_skipped", now.skipped.v[i], NULL,
				      "made unreadable during the run: the next run hides it "
				      "without looking inside");
	if (run->policy == CONFINE_POLICY_REQUIRED)
		cf_scan_state_save(&run->scan, run->cache_dir);
out:
	cf_matches_release(&now);
	return r;
}

const struct confine_event *cf_run_event_list(const confine_run *run, size_t *n)
{
	*n = run->n_events;
	return run->events;
}
