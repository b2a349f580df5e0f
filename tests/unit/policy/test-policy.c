/* SPDX-License-Identifier: MIT */
/*
 * The six layers of SPEC 2.3 and the patterns of SPEC 2.2, decided for one path and one access
 * at a time (cf_policy_decide) on a fake host: home /home/u, workspace /home/u/ws.  Each
 * scenario is a small rule list (session, workspace and user layers) and the decisions it must
 * give; each decision is checked for its action, its layer and the pattern of the deciding rule
 * (NULL for the fallback).
 */
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "util/util.h"
#include "../fakefs.h"
#include "../tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define HOME "/home/u"
#define WS "/home/u/ws"
#define WS_RULES WS "/.confine/rules.json"
#define USER_RULES HOME "/.config/confine/rules.json"
#define RUNTIME "/run/user/1000"
#define SSH_DIR "/tmp/ssh-abc"
#define TMPDIR "/var/tmp/u"

/* What the fake host has on disk.  Parents of listed paths are directories. */
struct fact {
	const char *path;
	enum cf_kind kind;
	const char *target; /* symlinks */
};

static const struct fact facts[] = {
    {WS "/.confine/rules.json", CF_KIND_FILE, NULL},
    {WS "/.git/hooks", CF_KIND_DIR, NULL},
    {WS "/.git/config", CF_KIND_FILE, NULL},
    {WS "/.env", CF_KIND_FILE, NULL},
    {WS "/vendor/lib/x.c", CF_KIND_FILE, NULL},
    {WS "/vendored.txt", CF_KIND_FILE, NULL},
    {WS "/link", CF_KIND_SYMLINK, "/data/secrets"},
    {WS "/home-link", CF_KIND_SYMLINK, HOME},
    {HOME "/.ssh/id_rsa", CF_KIND_FILE, NULL},
    {HOME "/.ssh/proj/README", CF_KIND_FILE, NULL},
    {HOME "/.aws", CF_KIND_SYMLINK, "/data/aws"},
    {"/data/aws/credentials", CF_KIND_FILE, NULL},
    {"/data/secrets/k", CF_KIND_FILE, NULL},
    {USER_RULES, CF_KIND_FILE, NULL},
    {RUNTIME "/gnupg/S.gpg-agent", CF_KIND_OTHER, NULL},
    {RUNTIME "/bus", CF_KIND_OTHER, NULL},
    {SSH_DIR "/agent.1", CF_KIND_OTHER, NULL},
    {"/run/docker.sock", CF_KIND_OTHER, NULL},
    {TMPDIR, CF_KIND_DIR, NULL},
};

/* The table above, as the fake file system behind the host callbacks. */
static struct fakefs fs;

/* The git guards of a plain .git directory, as host/git.c reports them for one. */
static struct cf_strv git_guards;

static struct cf_host make_host(const char *workspace)
{
	cf_strv_release(&git_guards);
	cf_git_plain_guards(workspace ? workspace : WS, &git_guards, NULL);
	return (struct cf_host){
	    .home = HOME,
	    .workspace = workspace ? workspace : WS,
	    .git_guards = &git_guards,
	    .config_dir = HOME "/.config/confine",
	    .cache_dir = HOME "/.cache/confine",
	    .tmpdir = TMPDIR,
	    .runtime_dir = RUNTIME,
	    .ssh_auth_sock_dir = SSH_DIR,
	    .user_rules_file = USER_RULES,
	    .uid = 1000,
	    .kind = fakefs_kind,
	    .canonicalize = fakefs_canon,
	    .ctx = &fs,
	};
}

/* One decision to check. */
struct query {
	const char *path;
	unsigned access;
	enum cf_action action;
	enum cf_layer layer;
	const char *pattern; /* of the deciding rule; NULL: the fallback */
	const char *why;
};

struct scenario {
	const char *name;      /* names the requirement */
	const char *workspace; /* NULL: WS */
	struct rspec rules[10];
	struct query q[32];
};

#define R CF_ACC_READ
#define W CF_ACC_WRITE
#define RW CF_ACC_BOTH
#define ALLOW CF_ALLOW
#define ASK CF_ASK
#define DENY CF_DENY
#define L_OVR CF_LAYER_OVERRIDE
#define L_GRD CF_LAYER_GUARD
#define L_SES CF_LAYER_SESSION
#define L_WS CF_LAYER_WORKSPACE
#define L_USR CF_LAYER_USER
#define L_FB CF_LAYER_FALLBACK

static const struct scenario scenarios[] = {
    {"R10b a workspace allow never lifts the user file's deny or ask",
     NULL,
     {
	 {L_WS, ALLOW, "private", RW},
	 {L_WS, ALLOW, "notes/today.md", W},
	 {L_WS, ALLOW, "open", RW},
	 {L_USR, DENY, WS "/private", RW},
	 {L_USR, ASK, WS "/notes", W},
	 {L_USR, DENY, WS "/other", RW},
     },
     {
	 {WS "/private/a", R, DENY, L_USR, WS "/private", "user deny wins over workspace allow"},
	 {WS "/private/a", W, DENY, L_USR, WS "/private", "for write too"},
	 {WS "/private", R, DENY, L_USR, WS "/private", "the directory itself"},
	 {WS "/notes/today.md", W, ASK, L_USR, WS "/notes", "user ask wins over workspace allow"},
	 {WS "/notes/today.md", R, ALLOW, L_FB, NULL, "read: neither file has a read rule"},
	 {WS "/open/x", R, ALLOW, L_WS, "open", "no user rule: the workspace allow decides"},
	 {WS "/other/x", R, DENY, L_USR, WS "/other", "no workspace rule: the user deny"},
     }},
    {"R30 confine's own state cannot be written",
     NULL,
     {
	 {L_SES, ALLOW, "~/.config", W},
	 {L_SES, ALLOW, "~/.cache", W},
     },
     {
	 {HOME "/.config/confine", W, DENY, L_OVR, HOME "/.config/confine",
	  "the directory of the user rule file"},
	 {HOME "/.config/confine/new.json", W, DENY, L_OVR, HOME "/.config/confine",
	  "anything below it"},
	 {HOME "/.cache/confine/scan", W, DENY, L_OVR, HOME "/.cache/confine", "the cache"},
	 {HOME "/.config/other", W, ALLOW, L_SES, "~/.config", "the rest stays writable"},
	 {HOME "/.gitconfig", W, ASK, L_GRD, "~/.gitconfig", "git's global configuration"},
	 {HOME "/.config/git/config", W, ASK, L_GRD, "~/.config/git/config", "and the XDG one"},
	 {WS "/.git/commondir", W, ASK, L_GRD, ".git/commondir", "git's commondir"},
	 {WS "/.git/modules/sub/config", W, ASK, L_GRD, ".git/modules", "submodules"},
	 {WS "/.git/index", W, ALLOW, L_FB, NULL, "git's own state stays writable"},
     }},
    {"R8 fallback (no rules)",
     NULL,
     {{0}},
     {
	 {"/etc/passwd", R, ALLOW, L_FB, NULL, "read is allowed everywhere"},
	 {"/etc/passwd", W, ASK, L_FB, NULL, "write outside the workspace asks"},
	 {HOME "/notes", W, ASK, L_FB, NULL, "write in home (outside the workspace) asks"},
	 {WS, W, ALLOW, L_FB, NULL, "write of the workspace root is allowed"},
	 {WS "/src/a.c", W, ALLOW, L_FB, NULL, "write in the workspace is allowed"},
	 {WS "/src/a.c", R, ALLOW, L_FB, NULL, "read in the workspace is allowed"},
	 {"/tmp", W, ALLOW, L_FB, NULL, "write of /tmp is allowed"},
	 {"/tmp/x/y", W, ALLOW, L_FB, NULL, "write below /tmp is allowed"},
	 {TMPDIR "/build", W, ALLOW, L_FB, NULL, "write below $TMPDIR is allowed"},
	 {"/var/tmp/other", W, ASK, L_FB, NULL, "a sibling of $TMPDIR is not a temp root"},
	 {"/tmpfoo", W, ASK, L_FB, NULL, "component boundary: /tmpfoo is not /tmp"},
	 {HOME "/wsx", W, ASK, L_FB, NULL, "component boundary: ~/wsx is not the workspace"},
	 {"/", W, ASK, L_FB, NULL, "write of / asks"},
	 {"/", R, ALLOW, L_FB, NULL, "read of / is allowed"},
     }},
    {"R8 overrides beat everything",
     NULL,
     {
	 {L_SES, ALLOW, ".confine", RW},
	 {L_SES, ALLOW, "~/.config/confine", RW},
	 {L_USR, ALLOW, WS, RW},
     },
     {
	 {WS "/.confine/rules.json", W, DENY, L_OVR, ".confine",
	  "the workspace rule file is write-deny despite a session allow"},
	 {WS "/.confine", W, DENY, L_OVR, ".confine", "the .confine directory itself"},
	 {WS "/.confine/new-file", W, DENY, L_OVR, ".confine",
	  "anything new in .confine is write-deny"},
	 {WS "/.confine/rules.json", R, ALLOW, L_SES, ".confine",
	  "the override is write only: read goes on to the session allow"},
	 {USER_RULES, W, DENY, L_OVR, USER_RULES, "the user rule file is write-deny"},
	 {USER_RULES, R, ALLOW, L_SES, "~/.config/confine", "the user rule file stays readable"},
	 {HOME "/.config/confine/other.json", W, DENY, L_OVR, HOME "/.config/confine",
	  "the whole directory of the user rule file is overridden (R30: no rule file can be "
	  "planted there)"},
	 {WS "/.confined", W, ALLOW, L_USR, WS, "component boundary: .confined is not .confine"},
     }},
    {"R9 guards are not lifted by an allow in any lower layer",
     NULL,
     {
	 {L_SES, ALLOW, "~", RW},
	 {L_SES, ALLOW, "~/.ssh/known_hosts", RW},
	 {L_SES, ALLOW, ".env", RW},
	 {L_SES, ALLOW, ".git", RW},
	 {L_WS, ALLOW, "keys", RW},
	 {L_USR, ALLOW, "/", RW},
	 {L_USR, ALLOW, "~/.ssh", RW},
     },
     {
	 {HOME "/.ssh/id_rsa", R, ASK, L_GRD, "~/.ssh", "~/.ssh read"},
	 {HOME "/.ssh/id_rsa", W, ASK, L_GRD, "~/.ssh", "~/.ssh write"},
	 {HOME "/.ssh/known_hosts", R, ASK, L_GRD, "~/.ssh",
	  "an allow strictly below a credential guard does not lift it"},
	 {HOME "/.ssh", R, ASK, L_GRD, "~/.ssh", "the guarded directory itself"},
	 {WS "/.env", R, ASK, L_GRD, "**/.env", "workspace .env read"},
	 {WS "/.env", W, ASK, L_GRD, "**/.env", "workspace .env write"},
	 {WS "/.env.local", R, ASK, L_GRD, "**/.env.*", "workspace .env.* read"},
	 {WS "/.envrc", R, ALLOW, L_FB, NULL, "component boundary: .envrc is not .env"},
	 {WS "/keys/server.key", R, ASK, L_GRD, "**/*.key", "**/*.key under a workspace allow"},
	 {WS "/keys/id_ed25519.pub", W, ASK, L_GRD, "**/id_ed25519*", "**/id_ed25519*"},
	 {WS "/keys/cert.p12", R, ASK, L_GRD, "**/*.p12", "**/*.p12"},
	 {WS "/.git/hooks/pre-commit", W, ASK, L_GRD, ".git/hooks", ".git/hooks write"},
	 {WS "/.git/hooks/pre-commit", R, ALLOW, L_SES, ".git",
	  ".git/hooks is a write guard only: read goes on"},
	 {WS "/.git/config", W, ASK, L_GRD, ".git/config", ".git/config write"},
	 {WS "/.git/config", R, ALLOW, L_SES, ".git", ".git/config read goes on"},
	 {WS "/.git/HEAD", W, ALLOW, L_SES, ".git", "the rest of .git is not guarded"},
	 {HOME "/.docker/config.json", R, ASK, L_GRD, "~/.docker/config.json",
	  "~/.docker/config.json"},
	 {HOME "/.docker/other", R, ALLOW, L_SES, "~", "the rest of ~/.docker is not guarded"},
	 {HOME "/.config/gh/hosts.yml", R, ASK, L_GRD, "~/.config/gh", "~/.config/gh"},
	 {HOME "/.env", R, ASK, L_GRD, "~/.env", "~/.env"},
     }},
    {"R8 session before workspace before user",
     NULL,
     {
	 {L_SES, ASK, WS "/a", RW},
	 {L_WS, ALLOW, "a", RW},
	 {L_USR, DENY, WS "/a", RW},
	 {L_WS, DENY, "b", RW},
	 {L_USR, ALLOW, WS "/b", RW},
	 {L_USR, ASK, WS "/c", RW},
	 {L_SES, ALLOW, "/opt/x", RW},
	 {L_USR, DENY, "/opt", RW},
     },
     {
	 {WS "/a/f", R, ASK, L_SES, WS "/a", "session beats workspace and user"},
	 {WS "/a/f", W, ASK, L_SES, WS "/a", "session beats workspace and user (write)"},
	 {WS "/b/f", R, DENY, L_WS, "b", "workspace beats user"},
	 {WS "/c/f", W, ASK, L_USR, WS "/c", "user beats the fallback"},
	 {"/opt/x/bin", W, ALLOW, L_SES, "/opt/x", "session allow beats a user deny above it"},
	 {"/opt/y", R, DENY, L_USR, "/opt", "user deny elsewhere"},
     }},
    {"R8 first match within a layer wins (written order)",
     NULL,
     {
	 {L_SES, DENY, WS "/d", RW},
	 {L_SES, ALLOW, WS "/d/sub", RW},
	 {L_WS, ALLOW, "e/sub", RW},
	 {L_WS, DENY, "e", RW},
	 {L_USR, ASK, "/srv/*.conf", RW},
	 {L_USR, DENY, "/srv/app.conf", RW},
     },
     {
	 {WS "/d/sub/f", R, DENY, L_SES, WS "/d",
	  "an earlier less specific rule wins over a later more specific one"},
	 {WS "/e/sub/f", W, ALLOW, L_WS, "e/sub", "an earlier more specific rule wins"},
	 {WS "/e/other", W, DENY, L_WS, "e", "the later rule decides the rest"},
	 {"/srv/app.conf", R, ASK, L_USR, "/srv/*.conf", "an earlier glob wins over a later exact"},
     }},
    {"R8 read and write are decided separately",
     NULL,
     {
	 {L_SES, ALLOW, "/opt/data", R},
	 {L_SES, DENY, "/opt/data", RW},
	 {L_SES, ALLOW, "/opt/w", W},
	 {L_SES, ASK, "/etc/y", R},
	 {L_USR, DENY, WS "/ro", W},
     },
     {
	 {"/opt/data/x", R, ALLOW, L_SES, "/opt/data", "read decided by the read rule"},
	 {"/opt/data/x", W, DENY, L_SES, "/opt/data",
	  "a read rule does not decide write: the next rule does"},
	 {"/opt/w/x", W, ALLOW, L_SES, "/opt/w", "write decided by the write rule"},
	 {"/opt/w/x", R, ALLOW, L_FB, NULL, "a write rule does not decide read"},
	 {"/etc/y", W, ASK, L_FB, NULL, "a read ask leaves write to the fallback"},
	 {"/etc/y", R, ASK, L_SES, "/etc/y", "the read ask decides read"},
	 {WS "/ro/f", R, ALLOW, L_FB, NULL, "a write deny leaves read to the fallback"},
	 {WS "/ro/f", W, DENY, L_USR, WS "/ro", "the write deny decides write"},
     }},
    {"R7 patterns: ~, relative, component boundaries, symlinked prefix",
     NULL,
     {
	 {L_SES, DENY, "vendor", RW},
	 {L_SES, DENY, "~/notes", RW},
	 {L_SES, ASK, "~", W},
	 {L_SES, DENY, "link", RW},
	 {L_USR, ALLOW, "~/docs", W},
     },
     {
	 {WS "/vendor", R, DENY, L_SES, "vendor", "vendor matches itself"},
	 {WS "/vendor/lib/x.c", R, DENY, L_SES, "vendor", "vendor covers vendor/lib/x.c"},
	 {WS "/vendored.txt", R, ALLOW, L_FB, NULL, "vendor does not cover vendored.txt"},
	 {HOME "/vendor", R, ALLOW, L_FB, NULL, "a relative pattern is rooted at the workspace"},
	 {HOME "/notes/a", R, DENY, L_SES, "~/notes", "~/notes is expanded"},
	 {HOME "/notesx", W, ASK, L_SES, "~", "~/notes does not cover ~/notesx; ~ does"},
	 {HOME "/docs/f", W, ASK, L_SES, "~", "session ~ ask before the user ~/docs allow"},
	 {"/data/secrets/k", R, DENY, L_SES, "link",
	  "a rule on a symlink protects the real directory"},
	 {WS "/link-other", R, ALLOW, L_FB, NULL, "component boundary after a symlink"},
	 {"/data/aws/credentials", R, ASK, L_GRD, "~/.aws",
	  "the guard of a symlinked ~/.aws protects its target"},
     }},
    {"R9 glob guards vs exact rules under the workspace",
     NULL,
     {
	 {L_SES, ALLOW, "certs", RW},
	 {L_SES, DENY, "*.log", RW},
	 {L_SES, DENY, "build-*", RW},
	 {L_USR, DENY, "/data/**/*.sql", R},
     },
     {
	 {WS "/certs/a.pem", R, ASK, L_GRD, "**/*.pem", "**/*.pem beats an exact session allow"},
	 {WS "/a.pem", W, ASK, L_GRD, "**/*.pem", "**/*.pem at the top level"},
	 {WS "/d/e/f/a.pem", R, ASK, L_GRD, "**/*.pem", "**/*.pem deep"},
	 {WS "/certs/a.pem.txt", R, ALLOW, L_SES, "certs", "a.pem.txt is not *.pem"},
	 {HOME "/other/a.pem", R, ALLOW, L_FB, NULL, "**/*.pem is rooted at the workspace"},
	 {WS "/sub/.env", R, ASK, L_GRD, "**/.env",
	  "a nested .env is guarded (SPEC 2.3 as updated)"},
	 {WS "/sub/.env.local", R, ASK, L_GRD, "**/.env.*", "a nested .env.* is guarded"},
	 {WS "/sub/SERVER.PEM", R, ASK, L_GRD, "**/*.pem", "credential globs are case-insensitive"},
	 {WS "/sub/Id_ECDSA", R, ASK, L_GRD, "**/id_ecdsa*", "id_ecdsa, any case"},
	 {WS "/sub/id_dsa.pub", R, ASK, L_GRD, "**/id_dsa*", "id_dsa"},
	 {WS "/sub/store.JKS", W, ASK, L_GRD, "**/*.jks", "java keystores"},
	 {WS "/sub/db.kdbx", R, ASK, L_GRD, "**/*.kdbx", "keepass databases"},
	 {WS "/sub/cert.pfx", R, ASK, L_GRD, "**/*.pfx", "pfx"},
	 {WS "/sub/a.keystore", R, ASK, L_GRD, "**/*.keystore", "keystores"},
	 {WS "/sub/pem.txt", R, ALLOW, L_FB, NULL, "pem as a name part is not *.pem"},
	 {WS "/sub/.environment", R, ALLOW, L_FB, NULL, ".environment is not .env or .env.*"},
	 {WS "/keys/id_rsa", R, ASK, L_GRD, "**/id_rsa*", "**/id_rsa*"},
	 {WS "/keys/id_rsa.pub", R, ASK, L_GRD, "**/id_rsa*", "**/id_rsa* with a suffix"},
	 {WS "/a.log", R, DENY, L_SES, "*.log", "*.log at the top level"},
	 {WS "/d/a.log", R, ALLOW, L_FB, NULL, "* does not cross a component"},
	 {WS "/build-1/out.o", R, DENY, L_SES, "build-*", "a glob match covers its subtree"},
	 {"/data/x/y.sql", R, DENY, L_USR, "/data/**/*.sql", "user glob deny"},
	 {"/data/y.sql", R, DENY, L_USR, "/data/**/*.sql", "** matches zero components"},
	 {"/data/y.sqlx", R, ALLOW, L_FB, NULL, "suffix must match"},
	 {"/data/y.sql", W, ASK, L_FB, NULL, "the read deny does not decide write"},
     }},
    {"R13 workspace punch-through: a denied ancestor does not apply inside",
     NULL,
     {
	 {L_SES, DENY, HOME, RW},
	 {L_SES, DENY, WS "/secret", RW},
	 {L_SES, DENY, WS, W},
	 {L_USR, DENY, "/home/*", RW},
	 {L_USR, ASK, "/home/**/*.bak", RW},
     },
     {
	 {WS "/src/a.c", R, ALLOW, L_FB, NULL, "an ancestor's deny does not apply inside"},
	 {WS, R, ALLOW, L_FB, NULL, "nor at the workspace root"},
	 {HOME "/notes", R, DENY, L_SES, HOME, "the deny applies beside the workspace"},
	 {WS "/secret/x", R, DENY, L_SES, WS "/secret", "a rule below the root applies"},
	 {WS "/src/a.c", W, DENY, L_SES, WS, "a rule at the root applies"},
	 {WS "/.env", R, ASK, L_GRD, "**/.env", "guards inside the workspace still apply"},
	 {"/home/v/x", R, DENY, L_USR, "/home/*", "the glob applies outside"},
	 {WS "/x.bak", R, ASK, L_USR, "/home/**/*.bak",
	  "a glob that matches the path itself applies inside"},
     }},
    {"R13 workspace punch-through: a workspace inside a guarded directory",
     HOME "/.ssh/proj",
     {
	 {L_SES, DENY, HOME "/.ssh/proj/out", W},
	 {L_SES, ALLOW, HOME "/.ssh", RW},
     },
     {
	 {HOME "/.ssh/proj/README", R, ALLOW, L_FB, NULL, "the guard does not apply inside"},
	 {HOME "/.ssh/proj/README", W, ALLOW, L_FB, NULL, "write inside is the fallback's"},
	 {HOME "/.ssh/proj", R, ALLOW, L_FB, NULL, "nor at the workspace root"},
	 {HOME "/.ssh/id_rsa", R, ASK, L_GRD, "~/.ssh", "the guard applies beside it"},
	 {HOME "/.ssh/proj/out/x", W, DENY, L_SES, HOME "/.ssh/proj/out",
	  "a rule below the root applies"},
	 {HOME "/.ssh/proj/.env", R, ASK, L_GRD, "**/.env", "workspace guards apply"},
	 {HOME "/.ssh/proj/k.pem", R, ASK, L_GRD, "**/*.pem", "workspace glob guards apply"},
     }},
    {"R9 host-socket guards are lifted only path-selectively",
     NULL,
     {
	 {L_SES, ALLOW, RUNTIME "/gnupg/S.gpg-agent", RW},
	 {L_SES, ALLOW, RUNTIME "/keyring", R},
	 {L_SES, ALLOW, RUNTIME, RW},
	 {L_USR, ALLOW, RUNTIME "/pulse", RW},
	 {L_USR, ALLOW, "/run/docker.sock", RW},
     },
     {
	 {RUNTIME "/bus", R, ASK, L_GRD, RUNTIME, "$XDG_RUNTIME_DIR is guarded"},
	 {RUNTIME, R, ASK, L_GRD, RUNTIME,
	  "an allow of the directory itself does not lift the guard"},
	 {RUNTIME "/gnupg/S.gpg-agent", R, ALLOW, L_SES, RUNTIME "/gnupg/S.gpg-agent",
	  "a session allow strictly below gives that path back (read)"},
	 {RUNTIME "/gnupg/S.gpg-agent", W, ALLOW, L_SES, RUNTIME "/gnupg/S.gpg-agent",
	  "a session allow strictly below gives that path back (write)"},
	 {RUNTIME "/gnupg/S.gpg-agent.ssh", R, ASK, L_GRD, RUNTIME,
	  "component boundary: a sibling with a longer name stays guarded"},
	 {RUNTIME "/gnupg", R, ASK, L_GRD, RUNTIME, "the parent of the allowed path stays guarded"},
	 {RUNTIME "/keyring/x", R, ALLOW, L_SES, RUNTIME "/keyring", "read-only give-back"},
	 {RUNTIME "/keyring/x", W, ASK, L_GRD, RUNTIME, "a read allow does not lift write"},
	 {RUNTIME "/pulse/native", R, ALLOW, L_USR, RUNTIME "/pulse",
	  "a user-layer allow strictly below gives that path back"},
	 {SSH_DIR "/agent.1", R, ASK, L_GRD, SSH_DIR, "the directory of $SSH_AUTH_SOCK"},
	 {SSH_DIR "/agent.1", W, ASK, L_GRD, SSH_DIR, "guarded for write although under /tmp"},
	 {"/run/docker.sock", R, ASK, L_GRD, "/run/docker.sock",
	  "an allow of the socket itself does not lift its guard"},
	 {"/var/run/docker.sock", W, ASK, L_GRD, "/var/run/docker.sock", "/var/run/docker.sock"},
     }},
};

static int load_rules(struct cf_policy *p, const struct rspec *rules, size_t n,
		      struct confine_error *err)
{
	return fakefs_load_rules(p, rules, n, WS_RULES, USER_RULES, err);
}

static void check(const struct cf_policy *p, const struct query *q, const char *scenario)
{
	struct cf_decision d;
	cf_policy_decide(p, q->path, (enum cf_access)q->access, &d);
	const char *acc = cf_access_name(q->access);
	const char *pat = d.rule ? d.rule->pattern : NULL;
	bool ok = d.action == q->action && d.layer == q->layer && (d.rule == NULL) == !q->pattern &&
		  (!q->pattern || (pat && !strcmp(pat, q->pattern)));
	TAP_OK(ok, "%s: %s %s -> %s (%s %s): %s", scenario, q->path, acc, cf_action_name(q->action),
	       cf_layer_name(q->layer), q->pattern ? q->pattern : "no rule", q->why);
	if (!ok)
		printf("#   got: %s (%s %s)\n", cf_action_name(d.action), cf_layer_name(d.layer),
		       pat ? pat : "no rule");
}

static void run_scenarios(void)
{
	for (size_t s = 0; s < N(scenarios); s++) {
		const struct scenario *sc = &scenarios[s];
		struct cf_host host = make_host(sc->workspace);
		struct cf_policy p;
		struct confine_error err = {0};
		int r = cf_policy_init(&p, &host, &err);
		if (r == 0)
			r = load_rules(&p, sc->rules, N(sc->rules), &err);
		TAP_INTEQ(r, 0, "%s: the rules load", sc->name);
		if (r)
			printf("#   %s: %s\n", err.what, err.reason);
		if (r == 0)
			for (size_t i = 0; i < N(sc->q) && sc->q[i].path; i++)
				check(&p, &sc->q[i], sc->name);
		cf_policy_release(&p);
	}
}

/* Every home guard of SPEC 2.3, read and write, under an allow of ~ in the session and the
 * user layer. */
static void home_guards(void)
{
	struct cf_host host = make_host(NULL);
	struct cf_policy p;
	struct confine_error err = {0};
	const struct rspec rules[] = {{L_SES, ALLOW, "~", RW}, {L_USR, ALLOW, "~", RW}};
	int r = cf_policy_init(&p, &host, &err);
	if (r == 0)
		r = load_rules(&p, rules, N(rules), &err);
	TAP_INTEQ(r, 0, "R9 home guards: the rules load");
	static const char *const spec_guards[] = {
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
	    ".config/gh",
	    ".cargo/credentials",
	    ".cargo/credentials.toml",
	    ".gem/credentials",
	    ".terraform.d",
	    ".password-store",
	    ".local/share/keyrings",
	    ".env",
	    ".config/git/credentials",
	    ".config/hub",
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
	size_t n;
	const char *const *g = cf_home_guards(&n);
	TAP_INTEQ(n, N(spec_guards), "R9 cf_home_guards lists the %zu guards of SPEC 2.3",
		  N(spec_guards));
	for (size_t i = 0; i < N(spec_guards); i++) {
		bool listed = false;
		for (size_t j = 0; j < n; j++)
			listed |= !strcmp(g[j], spec_guards[i]);
		TAP_OK(listed, "R9 ~/%s is a home guard", spec_guards[i]);
		if (!strcmp(spec_guards[i], ".aws"))
			continue; /* a symlink on this host: checked through its target above */
		char *path = cf_asprintf(HOME "/%s/sub", spec_guards[i]);
		char *pattern = cf_asprintf("~/%s", spec_guards[i]);
		for (unsigned acc = R; acc <= W; acc++) {
			struct query q = {path,	   acc,
					  ASK,	   L_GRD,
					  pattern, "not lifted by allows of ~ in session and user"};
			check(&p, &q, "R9 home guard");
		}
		free(path);
		free(pattern);
	}
	cf_policy_release(&p);
}

/* R10: a workspace file may deny or ask anything, but may allow only inside the workspace. */
struct r10_case {
	enum cf_action action;
	const char *pattern;
	int rc;
	const char *why;
};

static const struct r10_case r10_cases[] = {
    {ALLOW, "/etc/x", CONFINE_E_RULES, "an absolute allow outside"},
    {ALLOW, "~/notes", CONFINE_E_RULES, "an allow in the home directory"},
    {ALLOW, "~", CONFINE_E_RULES, "an allow of the home directory"},
    {ALLOW, "/", CONFINE_E_RULES, "an allow of /"},
    {ALLOW, "../other", CONFINE_E_RULES, "a relative allow that climbs out"},
    {ALLOW, HOME "/wsx", CONFINE_E_RULES, "component boundary: ~/wsx is outside"},
    {ALLOW, WS "/../wsx", CONFINE_E_RULES, "normalised before the check"},
    {ALLOW, "home-link/.ssh", CONFINE_E_RULES,
     "a symlink in the workspace cannot carry an allow out (R7)"},
    {ALLOW, "link", CONFINE_E_RULES, "a symlink to /data/secrets is outside"},
    {ALLOW, "/**/x", CONFINE_E_RULES, "a glob rooted outside"},
    {ALLOW, "sub", 0, "a relative allow inside"},
    {ALLOW, ".", 0, "the workspace root itself"},
    {ALLOW, WS "/sub", 0, "an absolute allow inside"},
    {ALLOW, "**/*.c", 0, "a glob inside"},
    {DENY, "/etc/x", 0, "a deny outside is accepted"},
    {DENY, "/", 0, "a deny of / is accepted"},
    {ASK, "~/notes", 0, "an ask outside is accepted"},
};

static void r10(void)
{
	for (size_t i = 0; i < N(r10_cases); i++) {
		const struct r10_case *c = &r10_cases[i];
		struct cf_host host = make_host(NULL);
		struct cf_policy p;
		struct confine_error err = {0};
		int r = cf_policy_init(&p, &host, &err);
		TAP_INTEQ(r, 0, "R10 policy init");
		/* The rule at index 4 of the workspace file, at line 7, column 5. */
		struct cf_ruleset rs = {0};
		struct cf_rule rule = {.pattern = (char *)c->pattern,
				       .access = RW,
				       .action = c->action,
				       .layer = L_WS,
				       .source = (char *)WS_RULES,
				       .index = 4,
				       .line = 7,
				       .column = 5};
		cf_ruleset_add(&rs, &rule, &err);
		r = cf_policy_add_rules(&p, L_WS, &rs, &err);
		TAP_INTEQ(r, c->rc, "R10 workspace %s '%s' %s: %s", cf_action_name(c->action),
			  c->pattern, c->rc ? "refused" : "accepted", c->why);
		if (c->rc) {
			TAP_OK(err.code == c->rc && err.line == 7 && err.column == 5 &&
				   !strcmp(err.subject, WS_RULES),
			       "R10 the refusal of '%s' names %s:7:5", c->pattern, WS_RULES);
			TAP_INTEQ(p.layers[L_WS].n, 0, "R10 the refused rule '%s' is not kept",
				  c->pattern);
		} else {
			TAP_INTEQ(p.layers[L_WS].n, 1, "R10 the accepted rule '%s' is kept",
				  c->pattern);
		}
		cf_ruleset_release(&rs);
		cf_policy_release(&p);
	}
	/* The accepted deny outside decides. */
	struct cf_host host = make_host(NULL);
	struct cf_policy p;
	struct confine_error err = {0};
	const struct rspec rules[] = {{L_WS, DENY, "/etc/x", RW}, {L_USR, ALLOW, "/etc/x", RW}};
	int r = cf_policy_init(&p, &host, &err);
	if (r == 0)
		r = load_rules(&p, rules, N(rules), &err);
	TAP_INTEQ(r, 0, "R10 a workspace deny outside loads");
	struct query q = {"/etc/x/y", R, DENY, L_WS, "/etc/x", "a workspace deny outside decides"};
	check(&p, &q, "R10");
	/* The user layer may allow outside the workspace. */
	TAP_OK(p.layers[L_USR].n == 1, "R10 a user-layer allow outside the workspace is accepted");
	cf_policy_release(&p);
}

/* Defence in depth: even a workspace-layer allow that got past R10 does not lift a host-socket
 * guard (only the session and user layers can). */
static void workspace_layer_does_not_lift(void)
{
	struct cf_host host = make_host(NULL);
	struct cf_policy p;
	struct confine_error err = {0};
	int r = cf_policy_init(&p, &host, &err);
	struct cf_rule rule = {
	    .pattern = RUNTIME "/gnupg/S.gpg-agent",
	    .path = RUNTIME "/gnupg/S.gpg-agent",
	    .access = RW,
	    .action = ALLOW,
	    .layer = L_WS,
	    .source = WS_RULES,
	    .line = 3,
	    .column = 5,
	    .prefix_len = strlen(RUNTIME "/gnupg/S.gpg-agent"),
	};
	if (r == 0)
		r = cf_ruleset_add(&p.layers[L_WS], &rule, &err);
	TAP_INTEQ(r, 0, "R9 a workspace-layer allow below the runtime dir is planted");
	struct query q = {RUNTIME "/gnupg/S.gpg-agent",
			  R,
			  ASK,
			  L_GRD,
			  RUNTIME,
			  "a workspace-layer allow does not lift a host-socket guard"};
	check(&p, &q, "R9");
	cf_policy_release(&p);

	/* and through the front door it is refused outright */
	host = make_host(NULL);
	memset(&err, 0, sizeof(err));
	r = cf_policy_init(&p, &host, &err);
	const struct rspec s = {L_WS, ALLOW, RUNTIME "/gnupg/S.gpg-agent", RW};
	if (r == 0)
		r = load_rules(&p, &s, 1, &err);
	TAP_INTEQ(r, CONFINE_E_RULES,
		  "R10 a workspace-file allow below the runtime dir is refused");
	cf_policy_release(&p);
}

/* Names used in explain output (R11). */
static void names(void)
{
	const char *want[] = {"override", "guard", "session", "workspace", "user", "fallback"};
	for (int l = 0; l < CF_LAYER_COUNT; l++)
		TAP_STREQ(cf_layer_name((enum cf_layer)l), want[l], "R11 layer %d is named %s", l,
			  want[l]);
	TAP_STREQ(cf_action_name(CF_ALLOW), "allow", "R11 action allow");
	TAP_STREQ(cf_action_name(CF_ASK), "ask", "R11 action ask");
	TAP_STREQ(cf_action_name(CF_DENY), "deny", "R11 action deny");
	TAP_STREQ(cf_access_name(CF_ACC_READ), "read", "R11 access read");
	TAP_STREQ(cf_access_name(CF_ACC_WRITE), "write", "R11 access write");
	TAP_STREQ(cf_access_name(CF_ACC_BOTH), "both", "R11 access both");
}

/* A guard's source is "builtin" (R11). */
static void builtin_source(void)
{
	struct cf_host host = make_host(NULL);
	struct cf_policy p;
	struct confine_error err = {0};
	int r = cf_policy_init(&p, &host, &err);
	struct cf_decision d = {0};
	if (r == 0)
		cf_policy_decide(&p, HOME "/.ssh/id_rsa", CF_ACC_READ, &d);
	TAP_OK(r == 0 && d.rule && !strcmp(d.rule->source, "builtin"),
	       "R11 a guard's source is builtin");
	cf_policy_release(&p);
}

/* R10b: the decision names the workspace allow it outranked, for explain. */
static void check_outranked(void)
{
	struct cf_host host = make_host(NULL);
	struct cf_policy p;
	struct confine_error err = {0};
	const struct rspec rules[] = {
	    {L_WS, ALLOW, "private", RW},
	    {L_USR, DENY, WS "/private", RW},
	};
	int r = cf_policy_init(&p, &host, &err);
	if (r == 0)
		r = load_rules(&p, rules, N(rules), &err);
	TAP_INTEQ(r, 0, "R10b rules load");
	struct cf_decision d;
	cf_policy_decide(&p, WS "/private/x", CF_ACC_READ, &d);
	TAP_OK(d.outranked && !strcmp(d.outranked->pattern, "private") &&
		   d.outranked->layer == L_WS,
	       "R10b the user deny names the workspace allow it outranked");
	cf_policy_decide(&p, WS "/src", CF_ACC_READ, &d);
	TAP_OK(!d.outranked, "R10b no outranked rule where only the fallback decides");
	cf_policy_release(&p);
}

int main(void)
{
	check_outranked();
	for (size_t i = 0; i < N(facts); i++)
		fakefs_add(&fs, facts[i].path, facts[i].kind, facts[i].target);
	run_scenarios();
	home_guards();
	r10();
	workspace_layer_does_not_lift();
	names();
	builtin_source();
	fakefs_clear(&fs);
	return tap_done();
}
