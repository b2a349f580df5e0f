/* SPDX-License-Identifier: MIT */
/*
 * confine.h - the public interface of libconfine.
 *
 * Run a command inside an operating-system sandbox compiled from one platform-neutral rule
 * model.  Conventions:
 *  - Fallible functions return 0 or a negative CONFINE_E_* code.  The error struct is the last
 *    parameter, owned by the caller, and may be NULL.  The first failure fills it.
 *  - Objects are opaque; `_new` creates, `_free` destroys and accepts NULL.  Arguments are
 *    borrowed (copied when kept) unless documented otherwise.
 *  - The library never prints, never exits and keeps no global state.
 *  - Each function says whether it touches the operating system.
 */
#ifndef CONFINE_H
#define CONFINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CONFINE_VERSION "0.1.0"

enum confine_code {
	CONFINE_OK = 0,
	CONFINE_E_NOMEM = -1,	  /* out of memory */
	CONFINE_E_INVALID = -2,	  /* invalid argument or request */
	CONFINE_E_RULES = -3,	  /* a rule file or rule is malformed */
	CONFINE_E_WORKSPACE = -4, /* the workspace is refused (R1) */
	CONFINE_E_PLAN = -5,	  /* the rules cannot be compiled for this target */
	CONFINE_E_SCAN = -6,	  /* the glob scan failed or ran over its budget */
	CONFINE_E_BACKEND = -7,	  /* no working sandbox backend (policy required) */
	CONFINE_E_OS = -8,	  /* a system call failed */
	CONFINE_E_SPAWN = -9,	  /* the sandbox could not be set up */
	CONFINE_E_NOTFOUND = -10, /* the command was not found */
	CONFINE_E_NOEXEC = -11,	  /* the command was found but is not executable */
	CONFINE_E_LIMIT = -12,	  /* a size or count limit was exceeded */
};

/* Caller-owned, fixed size, so that it can still report out-of-memory. */
struct confine_error {
	int code;	    /* CONFINE_E_*, 0 when no error */
	int os_errno;	    /* errno of the failing system call, 0 when none */
	char syscall[32];   /* name of the failing system call, "" when none */
	char what[128];	    /* what failed, e.g. "cannot read rule file" */
	char subject[1024]; /* the path, name or value concerned, "" when none */
	int line, column;   /* position in a rule file, 0 when none */
	char reason[512];   /* why */
	char hint[512];	    /* the remedy when the cause is known, "" otherwise */
};

/* Returns a static English name for a CONFINE_E_* code.  Pure. */
const char *confine_strerror(int code);

/* ---------------------------------------------------------------------------------------- */
/* Requests: everything a run needs, before any system call is made.                        */

enum confine_access {
	CONFINE_ACCESS_READ = 1,
	CONFINE_ACCESS_WRITE = 2,
	CONFINE_ACCESS_BOTH = 3,
};

enum confine_action {
	CONFINE_ALLOW = 0,
	CONFINE_ASK = 1,
	CONFINE_DENY = 2,
};

enum confine_policy {
	CONFINE_POLICY_REQUIRED = 0,
	CONFINE_POLICY_OFF = 1,
};

enum confine_target {
	CONFINE_TARGET_LINUX = 0,
	CONFINE_TARGET_MACOS = 1,
	CONFINE_TARGET_WINDOWS = 2,
};

typedef struct confine_request confine_request;

/* Pure. */
int confine_request_new(confine_request **out, struct confine_error *err);
void confine_request_free(confine_request *req);

/* The command and its arguments; argv is copied.  Pure. */
int confine_request_set_argv(confine_request *req, size_t argc, const char *const *argv,
			     struct confine_error *err);
/* The workspace root; NULL means the current directory.  Validated (R1) when the run is
 * prepared, not here.  Pure. */
int confine_request_set_workspace(confine_request *req, const char *dir, struct confine_error *err);
/* A session rule (layer "session"), in the order given.  Pure. */
int confine_request_add_rule(confine_request *req, const char *pattern, enum confine_access access,
			     enum confine_action action, struct confine_error *err);
/* Session rules from a rule file; the file is read when the run is prepared. Pure. */
int confine_request_add_session_rules_file(confine_request *req, const char *file,
					   struct confine_error *err);
void confine_request_set_network(confine_request *req, bool enabled);
/* Required (the default) or off.  A value outside enum confine_policy is CONFINE_E_INVALID and
 * leaves the request unchanged.  Pure. */
int confine_request_set_policy(confine_request *req, enum confine_policy policy,
			       struct confine_error *err);
/* Size cap of the private /tmp in bytes (default 1 GiB). */
void confine_request_set_tmp_size(confine_request *req, uint64_t bytes);

/* Where the in-sandbox helper confine-init is.  By default it is looked for beside the running
 * executable, then in the installation's libexec directory; a host that embeds the library
 * from elsewhere names it here (copied).  Pure. */
int confine_request_set_helper(confine_request *req, const char *path, struct confine_error *err);

/* Resource limits: at most `pids` processes and `memory` bytes (0: no limit), enforced through
 * a cgroup; a limit this host cannot enforce makes the run fail (CONFINE_E_LIMIT).  Pure. */
void confine_request_set_limits(confine_request *req, uint64_t pids, uint64_t memory);
/* Wall-clock limit in milliseconds (0: none): the whole sandbox is killed when it expires and
 * the exit status is 128+SIGKILL.  Pure. */
void confine_request_set_timeout(confine_request *req, uint64_t milliseconds);
/* How long the command gets to end after confine_run_forward_signal asked it to (SIGTERM,
 * SIGHUP, SIGQUIT, or a second SIGINT) before the whole sandbox is killed; default 5000 ms.
 * Pure. */
void confine_request_set_kill_grace(confine_request *req, uint64_t milliseconds);

/* Environment (SPEC 5).  The base environment is the one given here (envp copied; NULL means
 * an empty environment).  Pure. */
int confine_request_set_environment(confine_request *req, const char *const *envp,
				    struct confine_error *err);
int confine_request_env_set(confine_request *req, const char *name, const char *value,
			    struct confine_error *err);
int confine_request_env_pass(confine_request *req, const char *pattern, struct confine_error *err);
int confine_request_env_unset(confine_request *req, const char *pattern, struct confine_error *err);
void confine_request_env_clear(confine_request *req, bool clear);

/* Reads CONFINE_SANDBOX_POLICY-style text: "required" or "off", trimmed, case-insensitive.
 * Returns 1 and sets *out for a valid value; returns 0 and sets *out = REQUIRED for anything
 * else (the caller warns).  Pure. */
int confine_policy_parse(const char *text, enum confine_policy *out);

/* ---------------------------------------------------------------------------------------- */
/* Probe (SPEC 3.2).                                                                          */

struct confine_probe_result {
	char backend[16]; /* "bwrap" */
	bool available;
	char code[32];	  /* stable code, e.g. "available", "binary_missing" */
	char path[1024];  /* canonical path of the binary, "" when none */
	char version[32]; /* e.g. "0.8.0", "" when unknown */
	char reason[512]; /* the cause, "" when available */
	char hint[512];	  /* the remedy, "" when none */
	bool cached;	  /* the answer came from the 300 s cache */
	int landlock_abi; /* 0 when Landlock is unavailable */
	bool seccomp;	  /* seccomp filters can be installed */
	bool cgroup;	  /* confine can create a cgroup for limits */
	char read_protection[64];
	char write_protection[64];
	char network_isolation[64];
	char syscall_filter[96];     /* the seccomp filter of SPEC 3.1 */
	char process_scoping[128];   /* abstract unix sockets and signals (Landlock ABI >= 6) */
	char resource_limits[96];    /* --limit pids=,mem= (a cgroup confine can create) */
	char network_by_domain[160]; /* --net-allow: confine's proxy (SPEC 12) */
};

/* Probes the Linux bubblewrap backend.  Touches the OS: searches PATH (absolute entries outside
 * `workspace` and the current directory), runs bwrap, reads and writes the cache.
 * `path_env` is the PATH to search (NULL: "/usr/local/bin:/usr/bin:/bin"); `workspace` may be
 * NULL.  Returns 0 when the probe ran (see result->available), negative on a hard error. */
int confine_probe_bwrap(const char *path_env, const char *workspace, bool use_cache,
			struct confine_probe_result *result, struct confine_error *err);

#ifdef _WIN32
/* Probes the Windows backend (SPEC 10): whether this user can build the write-restricted
 * token.  read_protection and network_isolation are "not provided" whatever the answer.
 * Touches the OS (builds a token and closes it).  Windows builds only. */
int confine_probe_windows(struct confine_probe_result *result, struct confine_error *err);
#endif

/* ---------------------------------------------------------------------------------------- */
/* Prepared runs: rules loaded, workspace validated, globs expanded, plan compiled.         */

typedef struct confine_run confine_run;

/* Prepares a run: validates the workspace, loads the rule files, gathers host facts, probes
 * the backend (when the policy is required) and compiles the plan.  Touches the OS (reads
 * files, stats paths, may run the probe).  On failure *out is NULL. */
int confine_run_prepare(const confine_request *req, confine_run **out, struct confine_error *err);
void confine_run_free(confine_run *run);

/* The compiled plan as stable text (or JSON when json is true).  The returned string is owned
 * by the caller (free()).  Pure. */
int confine_run_plan_text(const confine_run *run, bool json, char **out, struct confine_error *err);

/* Starts the prepared command.  Touches the OS: forks and execs bwrap (or the command itself
 * under policy off).  Returns once the sandbox is launched; the command may still fail to
 * start (see confine_run_wait). */
int confine_run_start(confine_run *run, struct confine_error *err);

/* Forwards a signal to the sandboxed command (SIGINT, SIGTERM, SIGHUP, SIGQUIT).  SIGTERM,
 * SIGHUP, SIGQUIT and a second SIGINT also ask the sandbox to end: if it is still running after
 * the kill grace (confine_request_set_kill_grace), confine_run_wait kills all of it (a command
 * may catch one SIGINT, as a shell or REPL does with Ctrl-C, and go on).  Before the sandbox is
 * ready any of them ends it at once.  Async-signal safe.  Touches the OS. */
void confine_run_forward_signal(confine_run *run, int sig);

/* Waits for the command to end; *status is the R3 exit status: the command's own status,
 * 128+N on death by signal N, 126/127 when the command could not be executed.  When the
 * sandbox itself fails, returns CONFINE_E_SPAWN and fills err (the exit status is 125).
 * Touches the OS.  Interrupted by signals only to deliver them; call forward first. */
int confine_run_wait(confine_run *run, int *status, struct confine_error *err);

/* ---------------------------------------------------------------------------------------- */
/* Explain (R11): which rule decides an access, and why.                                     */

struct confine_decision {
	char path[4096];	    /* canonical path */
	enum confine_access access; /* READ or WRITE */
	enum confine_action action;
	char layer[16];	   /* "override", "guard", "session", "workspace", "user", "fallback" */
	bool has_rule;	   /* false for the fallback */
	char source[1024]; /* rule file path, "builtin" or "session" */
	int index, line, column;
	char pattern[4096];
};

typedef struct confine_rules confine_rules;

/* Loads the layers for a request (workspace validation, rule files) without planning or
 * probing.  Touches the OS (reads files, resolves paths). */
int confine_rules_load(const confine_request *req, confine_rules **out, struct confine_error *err);
void confine_rules_free(confine_rules *r);
/* Decides one access (READ or WRITE) for `path` (canonicalised first).  Touches the OS only to
 * canonicalise the path. */
int confine_rules_explain(const confine_rules *r, const char *path, enum confine_access access,
			  struct confine_decision *out, struct confine_error *err);

/* Post-run report events (SPEC 7.3, R23), computed when confine_run_wait returns. */
struct confine_event {
	char kind[40];	  /* "missing_protected_created", "dynamic_glob_created",
			   * "missing_protected_scan_failed", "dynamic_glob_scan_failed" */
	char path[4096];  /* the path concerned ("" for a scan failure) */
	char rule[4096];  /* the pattern that protects it, as written */
	char detail[512]; /* a scan failure's reason; "" otherwise */
};

/* The events of the last run; valid until confine_run_free.  Pure. */
const struct confine_event *confine_run_events(const confine_run *run, size_t *n);

/* Whether the last wait ended because the timeout expired.  Pure. */
bool confine_run_timed_out(const confine_run *run);

/* Whether the last wait ended because the command did not end within the kill grace after a
 * forwarded signal, and confine killed the sandbox.  Pure. */
bool confine_run_killed_after_grace(const confine_run *run);

/* Whether the exit status came from the command (true) or from confine (false). Pure. */
bool confine_run_status_from_command(const confine_run *run);

/* ---------------------------------------------------------------------------------------- */
/* Network by domain (SPEC 12, R31).                                                          */

/* A session network rule (layer "session"): "example.com" (that name), "*.example.com" (every
 * name below it, not itself), an IPv4 or IPv6 address ("[::1]" with a port), each with an
 * optional ":PORT".  Within a layer denies are checked before allows.  A run where a session,
 * session-file or user rule allows something gets its own network namespace and reaches the
 * network only through confine's proxy; a workspace file may only deny.  Validated here
 * (CONFINE_E_INVALID).  Pure. */
int confine_request_net_allow(confine_request *req, const char *pattern, struct confine_error *err);
int confine_request_net_deny(confine_request *req, const char *pattern, struct confine_error *err);

enum confine_net_mode {
	CONFINE_NET_ON = 0,	 /* the host's network */
	CONFINE_NET_OFF = 1,	 /* own network namespace, loopback only */
	CONFINE_NET_DOMAINS = 2, /* own network namespace, out only through confine's proxy */
};

/* Which rule decides a host and port. */
struct confine_net_decision {
	char host[256]; /* normalised name (lower case) or canonical address */
	uint16_t port;
	enum confine_action action; /* ALLOW, DENY, or ASK (no rule: enforced as deny) */
	char layer[16];		    /* "session", "workspace", "user", "fallback" */
	bool has_rule;		    /* false for the fallback */
	char source[1024];	    /* rule file path or "session" */
	int index, line, column;    /* index in its list; line 0 for the session */
	char list[8];		    /* "allow" or "deny" */
	char pattern[272];	    /* as written */
};

/* Decides "HOST[:PORT]" (an IPv6 address in brackets when a port follows; without a port, 443)
 * against the loaded layers.  Pure. */
int confine_rules_explain_net(const confine_rules *r, const char *host_port,
			      struct confine_net_decision *out, struct confine_error *err);
/* The network mode the loaded rules give a run.  Pure. */
enum confine_net_mode confine_rules_net_mode(const confine_rules *r);

/* One request the proxy decided (an HTTP CONNECT, an absolute-URI HTTP request, a SOCKS5
 * CONNECT). */
struct confine_net_event {
	int64_t time_ms;  /* when it was decided: CLOCK_REALTIME, ms since the epoch */
	char protocol[8]; /* "http", "connect", "socks5" */
	struct confine_net_decision decision; /* on the host asked for (has_rule false and host ""
					       * for a request too malformed to name one) */
	char outcome[24]; /* "connected", "denied" (by the decision), "address_refused" (the name
			   * was allowed but resolved to a refused address), "resolve_failed",
			   * "connect_failed", "bad_request" */
	char address[64]; /* the address connected to or refused; "" when none */
	char detail[256]; /* the reason when the outcome is not "connected" */
};

/* The proxy's decisions in the order made, valid until confine_run_free; computed when
 * confine_run_wait returns.  At most 4096 are kept; *dropped (may be NULL) counts the rest.
 * Pure. */
const struct confine_net_event *confine_run_net_events(const confine_run *run, size_t *n,
						       size_t *dropped);
/* The network mode of a prepared run.  Pure. */
enum confine_net_mode confine_run_net_mode(const confine_run *run);

#ifdef __cplusplus
}
#endif
#endif
