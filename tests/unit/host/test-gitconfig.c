/* SPDX-License-Identifier: MIT */
/*
 * The configuration filter of new repositories (R30 refined, host/git_filter.c): what git init
 * and git clone write passes untouched; every key that names a program or sends git elsewhere
 * is taken out, whatever its spelling; text that cannot be read for sure is refused whole.
 * And git itself, reading the filter's output (git config --list, no includes, no system or
 * global file), sees exactly the keys and values the filter kept: no parser differential
 * between confine and the host's git on what stays.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/git.h"
#include "../tap.h"

extern char **environ;

static bool inside(void *ctx, const char *value)
{
	(void)ctx;
	return strncmp(value, "../../../", 9) == 0 && !strstr(value + 9, "..");
}

static const struct cf_gitconfig_policy module = {.worktree_inside = inside};
static const struct cf_gitconfig_policy repo = {0};

/* Filters text; returns the code, the output and the removed keys joined by ','. */
static int filter(const char *text, const struct cf_gitconfig_policy *pol, char **out,
		  char **removed)
{
	struct cf_buf b, r;
	struct cf_strv rm = {0};
	cf_buf_init(&b);
	cf_buf_init(&r);
	int rc = cf_gitconfig_filter(text, strlen(text), pol, &b, &rm);
	for (size_t i = 0; i < rm.n; i++)
		cf_buf_addf(&r, "%s%s", i ? "," : "", rm.v[i]);
	*out = cf_buf_take(&b);
	*removed = cf_buf_take(&r);
	if (!*out)
		*out = strdup("");
	if (!*removed)
		*removed = strdup("");
	cf_strv_release(&rm);
	return rc;
}

/* What our parser reads, as git config --list prints it: "section.sub.key=value\n". */
static int list_one(void *ctx, const char *section, const char *sub, const char *key,
		    const char *value)
{
	struct cf_buf *b = ctx;
	cf_buf_addf(b, "%s.%s%s%s=%s\n", section, sub ? sub : "", sub ? "." : "", key,
		    value ? value : "true");
	return 0;
}

/* The same, as the host's git reads the file: `git config --file F --list -z --no-includes`
 * in a clean environment; NULL when git cannot be run. */
static char *git_list(const char *text)
{
	char path[] = "/tmp/test-gitconfig-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return NULL;
	close(fd);
	int p[2];
	if (pipe(p) < 0)
		return NULL;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addclose(&fa, p[0]);
	char *argv[] = {"git", "config", "--file", path, "--list", "-z", "--no-includes", NULL};
	char *envp[] = {"PATH=/usr/bin:/bin", "HOME=/nonexistent", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_CONFIG_GLOBAL=/dev/null", NULL};
	pid_t pid;
	int rc = posix_spawnp(&pid, "git", &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	struct cf_buf b;
	cf_buf_init(&b);
	char buf[4096];
	ssize_t k;
	while (rc == 0 && (k = read(p[0], buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < k; i++) {
			/* -z: "key\nvalue\0"; a key without value is "key\0". */
			char c = buf[i];
			cf_buf_addc(&b, c == '\n' ? '=' : c == '\0' ? '\n' : c);
		}
	close(p[0]);
	int st = 0;
	if (rc == 0)
		waitpid(pid, &st, 0);
	unlink(path);
	if (rc != 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		cf_buf_release(&b);
		return NULL;
	}
	char *s = cf_buf_take(&b);
	return s ? s : strdup("");
}

/* git's reading of the output equals ours (a key alone is "key" for git, "key=true" here). */
static void same_as_git(const char *out, const char *what)
{
	struct cf_buf ours;
	cf_buf_init(&ours);
	TAP_INTEQ(cf_gitconfig_parse(out, strlen(out), list_one, &ours), 0, "%s: the output parses",
		  what);
	char *theirs = git_list(out);
	if (!theirs) {
		TAP_OK(0, "%s: git config --list could not be run on the output", what);
		cf_buf_release(&ours);
		return;
	}
	/* Normalise git's bare keys to key=true. */
	struct cf_buf norm;
	cf_buf_init(&norm);
	for (char *line = theirs, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			break;
		*nl = '\0';
		cf_buf_addf(&norm, "%s%s\n", line, strchr(line, '=') ? "" : "=true");
	}
	TAP_STREQ(norm.s ? norm.s : "", ours.s ? ours.s : "",
		  "%s: the host's git reads the output as the filter does", what);
	free(theirs);
	cf_buf_release(&ours);
	cf_buf_release(&norm);
}

struct kase {
	const char *name, *text;
	const struct cf_gitconfig_policy *pol;
	int rc;
	const char *removed, *out; /* out NULL: not compared */
};

static const struct kase cases[] = {
    {"git init",
     "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
     "\tlogallrefupdates = true\n",
     &repo, 0, "", NULL},
    {"git clone",
     "[core]\n\trepositoryformatversion = 0\n[remote \"origin\"]\n\turl = https://h/r.git\n"
     "\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n"
     "\tmerge = refs/heads/main\n",
     &repo, 0, "", NULL},
    {"code and redirections",
     "[core]\n\tbare = false\n\tfsmonitor = evil\n\thooksPath = h\n\tsshCommand = evil\n"
     "\teditor = evil\n\tpager = evil\n\tworktree = /home\n\taskPass = evil\n"
     "[include]\n\tpath = x\n[includeIf \"gitdir:/\"]\n\tpath = y\n[alias]\n\tst = !evil\n"
     "[filter \"lfs\"]\n\tclean = evil\n[diff \"x\"]\n\ttextconv = evil\n"
     "[credential]\n\thelper = evil\n[url \"https://evil/\"]\n\tinsteadOf = https://h/\n"
     "[remote \"origin\"]\n\tuploadpack = evil\n\tproxy = http://evil\n"
     "[hook \"x\"]\n\tcommand = evil\n[sequence]\n\teditor = evil\n",
     &repo, 0,
     "core.fsmonitor,core.hookspath,core.sshcommand,core.editor,core.pager,core.worktree,"
     "core.askpass,include.path,includeif.gitdir:/.path,alias.st,filter.lfs.clean,"
     "diff.x.textconv,credential.helper,url.https://evil/.insteadof,remote.origin.uploadpack,"
     "remote.origin.proxy,hook.x.command,sequence.editor",
     "[core]\n\tbare = false\n"},
    {"spellings",
     "[CORE]FsMonitor=a\n[Core \"\"]\n\tbare = true\n[core.x]\n\tfilemode = true\n"
     "[core]\n\tfilemode\n",
     &repo, 0, "core.fsmonitor,core..bare,core.x.filemode", "[core]\n\tfilemode\n"},
    {"command transports",
     "[remote \"o\"]\n\turl = ext::sh -c evil\n\turl = EXT::x\n\tpushurl = fd::3\n"
     "\turl = -oProxyCommand=evil\n\turl = ssh://h/r\n[submodule \"s\"]\n\turl = ext::x\n",
     &repo, 0, "remote.o.url,remote.o.pushurl,submodule.s.url",
     "[remote \"o\"]\n\turl = \"ssh://h/r\"\n"},
    {"values",
     "[user]\n\tname = \"a \\\"q\\\" \\\\ b\" ; comment\n\temail = x\\\ny@z\n"
     "[core]\n\tbare = \"fa\"lse\n\tfilemode = tr ue\n",
     &repo, 0, "core.filemode",
     "[user]\n\tname = \"a \\\"q\\\" \\\\ b\"\n\temail = \"xy@z\"\n[core]\n\tbare = false\n"},
    {"control characters", "[user]\n\tname = \"a\\tb\"\n\temail = \"a\\nb\"\n", &repo, 0,
     "user.name,user.email", ""},
    {"subsection names", "[branch \"a\\\"b\\\\c\"]\n\tremote = o\n[branch.Main]\n\tmerge = m\n",
     &repo, 0, "",
     "[branch \"a\\\"b\\\\c\"]\n\tremote = \"o\"\n[branch \"main\"]\n\tmerge = \"m\"\n"},
    {"submodule work tree",
     "[core]\n\tworktree = ../../../lib\n\tworktree = ../../../../out\n\tworktree = /etc\n",
     &module, 0, "core.worktree", "[core]\n\tworktree = \"../../../lib\"\n"},
    {"a broken header", "[core\n\tbare = true\n", &repo, CONFINE_E_INVALID, NULL, NULL},
    {"a bad escape", "[core]\n\tbare = \\q\n", &repo, CONFINE_E_INVALID, NULL, NULL},
    {"an open quote", "[core]\n\tbare = \"true\n", &repo, CONFINE_E_INVALID, NULL, NULL},
    {"a key before any section", "bare = true\n", &repo, CONFINE_E_INVALID, NULL, NULL},
    {"a bad key", "[core]\n\t1bare = true\n", &repo, CONFINE_E_INVALID, NULL, NULL},
};

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct kase *k = &cases[i];
		char *out, *removed;
		int rc = filter(k->text, k->pol, &out, &removed);
		TAP_INTEQ(rc, k->rc, "%s: status", k->name);
		if (k->rc == 0) {
			TAP_STREQ(removed, k->removed, "%s: the keys taken out", k->name);
			if (k->out)
				TAP_STREQ(out, k->out, "%s: what stays", k->name);
			same_as_git(out, k->name);
			/* Filtering the output again changes nothing. */
			char *out2, *removed2;
			TAP_INTEQ(filter(out, k->pol, &out2, &removed2), 0, "%s: again", k->name);
			TAP_STREQ(removed2, "", "%s: nothing more to take out", k->name);
			TAP_STREQ(out2, out, "%s: the same text", k->name);
			free(out2);
			free(removed2);
		}
		free(out);
		free(removed);
	}

	/* A NUL byte: refused whole (git and the parser could read it differently). */
	char *out, *removed;
	struct cf_buf b;
	struct cf_strv rm = {0};
	cf_buf_init(&b);
	TAP_INTEQ(cf_gitconfig_filter("[core]\n\tbare = t\0rue\n", 20, &repo, &b, &rm),
		  CONFINE_E_INVALID, "a NUL byte: refused whole");
	cf_buf_release(&b);
	cf_strv_release(&rm);

	/* More than CF_GITCONFIG_REMOVED_MAX keys: the list ends in "...". */
	struct cf_buf many;
	cf_buf_init(&many);
	cf_buf_add(&many, "[alias]\n");
	for (int i = 0; i < 100; i++)
		cf_buf_addf(&many, "\ta%d = !x\n", i);
	TAP_INTEQ(filter(many.s, &repo, &out, &removed), 0, "100 aliases");
	TAP_OK(strstr(removed, "alias.a31,...") && !strstr(removed, "alias.a32"),
	       "the list of removed keys is bounded: %.40s...", removed);
	TAP_STREQ(out, "", "nothing of them stays");
	free(out);
	free(removed);
	cf_buf_release(&many);
	return tap_done();
}
