/* SPDX-License-Identifier: MIT */
/*
 * confine.h - the public interface of libconfine.
 *
 * Run a command inside an operating-system sandbox compiled from one platform-neutral rule
 * model.  Conventions:
 *  - Fallible functions return 0 or a negative CONFINE_E_* code, and nothing else.  The error
 *    struct is the last parameter, owned by the caller, and may be NULL.  The first failure
 *    fills it: a struct that still holds an earlier failure is left as it is (never a mix of
 *    two), and the return value is always this call's own code, never read back from the
 *    struct.  A function that cannot fail returns what it answers (an accessor), or void (a
 *    destructor).
 *  - Every setter can refuse what it is given (CONFINE_E_INVALID, the request unchanged).
 *  - Objects are opaque; `_new` creates, `_free` destroys and accepts NULL.  Arguments are
 *    borrowed (copied when kept) unless documented otherwise.  A string or buffer the library
 *    allocates for the caller (`char **out`) is freed with confine_free().
 *  - The library never prints, never exits and keeps no global state.
 *  - Each function says whether it touches the operating system.
 *
 * ABI v1 (libconfine.so.1, every symbol of version CONFINE_1; doc/library.md):
 *  - Only what is declared here with CONFINE_API is exported; the rest of the library, the
 *    BLAKE3 code it carries included, is hidden and cannot interpose on a host's own symbols.
 *  - The ABI grows by adding functions, enum values and fields at the end of the structs that
 *    begin with `size_t size`; nothing declared here changes its signature, type or place.
 *    Anything else is libconfine.so.2.  The test suite compares the built library with the
 *    v1 baseline in abi/ (abidiff).
 *  - Structs that carry results out begin with `size_t size`.  One the caller passes to be
 *    filled (confine_decision, confine_net_decision, confine_probe_result): set .size to
 *    sizeof the struct; the library writes no byte past .size, zeroes what it does not know of
 *    a larger struct, and sets .size to the bytes it filled (a size below v1's is
 *    CONFINE_E_INVALID).  One the library returns (an event, an injection, a card): read-only,
 *    owned by the object it came from, and .size says how much of it is there, so that a
 *    caller built with a newer header reads a newer field only when offsetof(field) < .size.
 *    Lists are read one element at a time (confine_run_event(run, i)), never as arrays, so
 *    that a larger struct moves nothing.  struct confine_error is fixed for v1.
 *
 * Threads: different objects may be used on different threads at once (two runs on two
 * threads are tested, also under ThreadSanitizer).  One object (a request, run, rule set,
 * card or check) is used by one thread at a time: a host that shares one holds a lock around
 * each call on it, reads included.  The one exception is confine_run_forward_signal, which a
 * signal handler or another thread may call while confine_run_wait runs.  Functions that take
 * no object (confine_version, confine_strerror, confine_display_escape, the parsers, the
 * *_json and *_text of a struct the caller holds) may be called from any thread.  What a run,
 * a rule set, a card or a check needs of its request is copied when it is made: the request
 * may then be changed or freed.  Process-wide, the library only raises the soft limit of
 * open files (RLIMIT_NOFILE) toward the hard one when a run needs more descriptors; it
 * installs no signal handler and waits only for the processes it started, which the host
 * must not reap for it (no waitpid(-1) for them, SIGCHLD not ignored).
 */
#ifndef CONFINE_H
#define CONFINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks what the shared library exports; everything else of it is hidden. */
#if defined(__GNUC__) && !defined(_WIN32)
#define CONFINE_API __attribute__((visibility("default")))
#else
#define CONFINE_API
#endif
#if defined(__GNUC__)
#if defined(__MINGW32__)
#define CONFINE_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#else
#define CONFINE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#endif
#else
#define CONFINE_PRINTF(f, a)
#endif

/* The version of this header.  confine_version() tells the library's, which may be newer. */
#define CONFINE_VERSION "0.1.0"
#define CONFINE_VERSION_MAJOR 0
#define CONFINE_VERSION_MINOR 1
#define CONFINE_VERSION_MICRO 0
/* The ABI: libconfine.so.CONFINE_ABI, symbol version CONFINE_<ABI>. */
#define CONFINE_ABI 1

struct confine_version_info {
	size_t size;
	unsigned major, minor, micro;
	unsigned abi;	  /* CONFINE_ABI of the library */
	const char *text; /* "MAJOR.MINOR.MICRO" */
};
/* The version of the library that is running (like seccomp_version()): static, never NULL.
 * Pure. */
CONFINE_API const struct confine_version_info *confine_version(void);

/* Frees a string or buffer the library allocated for the caller (plan text, JSON, an escaped
 * string, a path); NULL is allowed.  Use it, not free(): the library and its caller need not
 * share one allocator (a static C runtime, another language).  Pure. */
CONFINE_API void confine_free(void *p);

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
	CONFINE_E_APPROVAL = -13, /* an escalation or write grant was not approved (SPEC 7) */
	CONFINE_E_RECORD = -14,	  /* a record (an audit line) could not be written */
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
CONFINE_API const char *confine_strerror(int code);

/* Fills err the way the library does, for a host that reports its own failures (an argument
 * it refuses) in the same struct: when err is not NULL and still empty (code 0), sets code,
 * what, subject (NULL: "") and the reason (printf format; NULL: none) and clears the rest.
 * Returns code.  Pure. */
CONFINE_API int confine_error_set(struct confine_error *err, int code, const char *what,
				  const char *subject, const char *reason_fmt, ...)
    CONFINE_PRINTF(5, 6);
/* The same for a failed system call: the reason is strerror(os_errno); syscall and os_errno
 * are kept.  Returns code.  Pure. */
CONFINE_API int confine_error_set_os(struct confine_error *err, int code, const char *what,
				     const char *subject, const char *syscall, int os_errno);
/* Sets the hint (the remedy) of the failure err holds, when it has none yet: a caller adds the
 * remedy it knows to its own failure or to the library's.  Nothing when err is NULL or empty.
 * Pure. */
CONFINE_API void confine_error_hint(struct confine_error *err, const char *fmt, ...)
    CONFINE_PRINTF(2, 3);

/* What a person reads is what is there (R38).  A string that a command, a workspace or a request
 * chose (an argv, a file name, a host, a rule pattern) is shown to a person escaped: every code
 * point outside an allow-list of visibly printable characters -- generated from the Unicode
 * Character Database (General Category L, M, N, P, S and U+0020, less the default-ignorable
 * code points) -- becomes "\u{XXXX}" (controls below U+0080: "\xNN"), a byte that is not
 * UTF-8 becomes "\xNN", and a backslash "\\", so that two different strings never look the
 * same: "./ru\u{200B}n.sh" is not "./run.sh", a file name cannot start a new line or reverse
 * the text after it.  Flags: */
enum confine_display_flags {
	CONFINE_DISPLAY_QUOTES = 1, /* also ' and " as \' and \" (inside a quoted subject) */
	CONFINE_DISPLAY_ASCII = 2,  /* every code point from U+0080 on escaped as well: shows
				     * letters of other scripts that look like Latin ones */
};
/* *out: the escaped copy of `s` (NUL-terminated; NULL is shown as ""), caller-owned
 * (confine_free).  A flag outside enum confine_display_flags is CONFINE_E_INVALID.  Pure. */
CONFINE_API int confine_display_escape(const char *s, unsigned flags, char **out,
				       struct confine_error *err);
/* The same for `len` bytes, which may hold a NUL (shown as "\x00").  Pure. */
CONFINE_API int confine_display_escape_n(const char *s, size_t len, unsigned flags, char **out,
					 struct confine_error *err);

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
CONFINE_API int confine_request_new(confine_request **out, struct confine_error *err);
CONFINE_API void confine_request_free(confine_request *req);

/* The command and its arguments; argv is copied.  Pure. */
CONFINE_API int confine_request_set_argv(confine_request *req, size_t argc, const char *const *argv,
					 struct confine_error *err);
/* The workspace root; NULL means the current directory.  Validated (R1) when the run is
 * prepared, not here.  Pure. */
CONFINE_API int confine_request_set_workspace(confine_request *req, const char *dir,
					      struct confine_error *err);
/* A session rule (layer "session"), in the order given.  Pure. */
CONFINE_API int confine_request_add_rule(confine_request *req, const char *pattern,
					 enum confine_access access, enum confine_action action,
					 struct confine_error *err);
/* Reads a rule as `confine run --allow` takes it: "PATH[:read|write|both]" (no suffix: both).
 * The text after the last ':' is the access when it is one of the three words; *pattern is
 * PATH, caller-owned (confine_free).  An empty or too long path is CONFINE_E_INVALID.  Pure. */
CONFINE_API int confine_rule_parse(const char *text, char **pattern, enum confine_access *access,
				   struct confine_error *err);
/* Session rules from a rule file; the file is read when the run is prepared. Pure. */
CONFINE_API int confine_request_add_session_rules_file(confine_request *req, const char *file,
						       struct confine_error *err);
/* The network: on (the default) or off (--no-network).  Pure. */
CONFINE_API int confine_request_set_network(confine_request *req, bool enabled,
					    struct confine_error *err);
/* Required (the default) or off.  A value outside enum confine_policy is CONFINE_E_INVALID and
 * leaves the request unchanged.  Pure. */
CONFINE_API int confine_request_set_policy(confine_request *req, enum confine_policy policy,
					   struct confine_error *err);
/* The Linux backend (SPEC 3.3): AUTO (the default) uses bubblewrap when its probe passes and
 * falls back to Landlock when it does not (confine_run_fallback_note says so); BWRAP refuses
 * instead of falling back; LANDLOCK never tries bubblewrap.  A value outside the enum is
 * CONFINE_E_INVALID and leaves the request unchanged.  Pure. */
enum confine_backend {
	CONFINE_BACKEND_AUTO = 0,
	CONFINE_BACKEND_BWRAP = 1,
	CONFINE_BACKEND_LANDLOCK = 2,
};
CONFINE_API int confine_request_set_backend(confine_request *req, enum confine_backend backend,
					    struct confine_error *err);
/* Reads "auto", "bwrap" or "landlock" (trimmed, case-insensitive) into *out; anything else
 * (NULL included) is CONFINE_E_INVALID and leaves *out unchanged.  Pure. */
CONFINE_API int confine_backend_parse(const char *text, enum confine_backend *out,
				      struct confine_error *err);

/* A request whose plan is only printed (run --print-plan, plan --target linux): preparing it
 * creates nothing on the host that only a run needs (a missing path a write allow names; the
 * plan says it would be created).  Pure. */
CONFINE_API int confine_request_set_dry_run(confine_request *req, bool dry,
					    struct confine_error *err);

/* Tool caches (R39): package managers (npm, yarn, pnpm, pip, uv, cargo, go, gradle, maven, and
 * what lives under the XDG cache directory) read the user's caches and write into confine's
 * store for the workspace, never into the host's.  `bytes` bounds all stores together
 * (default 4 GiB; kept after each run by removing the least recently used); 0 turns private
 * caches off (the host's are then read-only, as every path outside the workspace).  Pure. */
CONFINE_API int confine_request_set_cache_size(confine_request *req, uint64_t bytes,
					       struct confine_error *err);

/* Size cap of the private /tmp in bytes (default 1 GiB); 0 is CONFINE_E_INVALID (a tmpfs of
 * size 0 would have no cap at all).  Pure. */
CONFINE_API int confine_request_set_tmp_size(confine_request *req, uint64_t bytes,
					     struct confine_error *err);

/* Where the in-sandbox helper confine-init is.  By default it is looked for beside the running
 * executable, then in the installation's libexec directory; a host that embeds the library
 * from elsewhere names it here (copied).  Pure. */
CONFINE_API int confine_request_set_helper(confine_request *req, const char *path,
					   struct confine_error *err);

/* The largest process limit (the kernel's PID_MAX_LIMIT) and the longest duration (about 31
 * years) a request takes. */
#define CONFINE_LIMIT_PIDS_MAX 4194304u
#define CONFINE_DURATION_MAX_MS 1000000000000u

/* Resource limits: at most `pids` processes and `memory` bytes (0: no limit), enforced through
 * a cgroup; a limit this host cannot enforce makes the run fail (CONFINE_E_LIMIT).  pids above
 * CONFINE_LIMIT_PIDS_MAX is CONFINE_E_INVALID.  Pure. */
CONFINE_API int confine_request_set_limits(confine_request *req, uint64_t pids, uint64_t memory,
					   struct confine_error *err);
/* Wall-clock limit in milliseconds (0: none): the whole sandbox is killed when it expires and
 * the exit status is 128+SIGKILL.  Above CONFINE_DURATION_MAX_MS: CONFINE_E_INVALID.  Pure. */
CONFINE_API int confine_request_set_timeout(confine_request *req, uint64_t milliseconds,
					    struct confine_error *err);
/* How long the command gets to end after confine_run_forward_signal asked it to (SIGTERM,
 * SIGHUP, SIGQUIT, or a second SIGINT) before the whole sandbox is killed; default 5000 ms.
 * Above CONFINE_DURATION_MAX_MS: CONFINE_E_INVALID.  Pure. */
CONFINE_API int confine_request_set_kill_grace(confine_request *req, uint64_t milliseconds,
					       struct confine_error *err);

/* A terminal of the command's own (R41).  AUTO (the default): when the caller's descriptor 0, 1
 * or 2 is a terminal, the command gets a pseudo-terminal of its own in its place, which confine
 * relays while confine_run_wait runs (the caller's terminal in raw mode while the caller is its
 * foreground job, restored before confine_run_wait returns); the caller's terminal is never the
 * command's.  ON: a pseudo-terminal on 0, 1 and 2 even without a terminal, relayed from and to
 * the caller's 0 and 1.  OFF: the command gets the caller's descriptors.  Not under policy off
 * or an escalation, which run the command as it is.  A value outside the enum is
 * CONFINE_E_INVALID and leaves the request unchanged.  Pure. */
enum confine_tty {
	CONFINE_TTY_AUTO = 0,
	CONFINE_TTY_ON = 1,
	CONFINE_TTY_OFF = 2,
};
CONFINE_API int confine_request_set_tty(confine_request *req, enum confine_tty tty,
					struct confine_error *err);

/* The command's standard input, output and error: in_fd, out_fd and err_fd become its
 * descriptors 0, 1 and 2; -1 leaves that one this process's own (0, 1 or 2, as it is when
 * confine_run_start is called).  Nothing of this process's 0, 1 and 2 changes: a threaded host
 * gives a command pipes of its own while its other threads keep writing to theirs.  The
 * descriptors stay the caller's: the request keeps their numbers only, a run takes them when
 * confine_run_prepare makes it, and they must be open until confine_run_start returns, which
 * duplicates each (close-on-exec; the caller may close its own then).  The run lets go of its
 * duplicates when confine_run_wait returns (or confine_run_free), so that a host reading a
 * pipe it gave the command sees its end once the run and its own copy are done.
 * They take the place of this process's 0, 1 and 2 everywhere a run looks at them: the
 * terminal check of confine_request_set_tty (CONFINE_TTY_AUTO), the pty's relay, and the
 * stderr copy of the report and the denial scan (written to err_fd).  A descriptor that is
 * not open, or a value below -1, is CONFINE_E_INVALID and leaves the request unchanged.
 * Linux only: on macOS and Windows anything but -1 is CONFINE_E_INVALID.  Touches the OS
 * (fcntl). */
CONFINE_API int confine_request_set_stdio(confine_request *req, int in_fd, int out_fd, int err_fd,
					  struct confine_error *err);

/* Environment (SPEC 5).  The base environment is the one given here (envp copied; NULL means
 * an empty environment).  Pure. */
CONFINE_API int confine_request_set_environment(confine_request *req, const char *const *envp,
						struct confine_error *err);
CONFINE_API int confine_request_env_set(confine_request *req, const char *name, const char *value,
					struct confine_error *err);
CONFINE_API int confine_request_env_pass(confine_request *req, const char *pattern,
					 struct confine_error *err);
CONFINE_API int confine_request_env_unset(confine_request *req, const char *pattern,
					  struct confine_error *err);
/* Start from an empty environment instead of the base one (--clearenv).  Pure. */
CONFINE_API int confine_request_env_clear(confine_request *req, bool clear,
					  struct confine_error *err);

/* Read-only file injection (SPEC 6, R21): content the command can read but nobody -- the
 * command, its children, another process of the user -- can change between the host's check and
 * the command's read. */
enum confine_inject_placement {
	/* env-pointer: confine chooses where the file lives (on Linux under a read-only directory
	 * of the sandbox's private /tmp) and sets the variable NAME to its path, last, so that it
	 * wins over every other setting of NAME. */
	CONFINE_INJECT_ENV = 0,
	/* fixed-path: the file appears at the absolute path TARGET inside the sandbox (Linux
	 * only).  TARGET must be an existing regular file of the host (confine mounts over it and
	 * never changes it), or lie in the sandbox's private /tmp; see README "File injection". */
	CONFINE_INJECT_PATH = 1,
};

/* Limits of SPEC 6, checked by confine_request_add_injection. */
#define CONFINE_INJECT_MAX_BYTES (8u * 1024 * 1024)  /* per injection */
#define CONFINE_INJECT_MAX_TOTAL (16u * 1024 * 1024) /* all injections of a request */
#define CONFINE_INJECT_MAX_COUNT 128

/* Adds an injection: `len` bytes at `data` (copied; data may be NULL when len is 0), placed
 * as `placement` says at `where`: the variable NAME for CONFINE_INJECT_ENV, the path TARGET for
 * CONFINE_INJECT_PATH.  Everything is checked here, before any file system work, and a refused
 * injection leaves the request unchanged:
 *  - CONFINE_E_INVALID: NAME not [A-Za-z_][A-Za-z0-9_]* or a loader, interpreter or shell
 *    variable (LD_*, DYLD_*, PATH, NODE_OPTIONS, PYTHONPATH, BASH_ENV, ENV, ...; compared
 *    case-insensitively); TARGET not absolute, with a ".." component, a NUL or control
 *    character, "/" itself, inside /tmp/.confine-inject (the env-pointer directory), beneath or
 *    above another injected file, or the same as an earlier one after normalising ".", "//"
 *    and a trailing "/"; a NAME given twice; an unknown placement; NULL data with len > 0;
 *  - CONFINE_E_LIMIT: more than CONFINE_INJECT_MAX_BYTES, CONFINE_INJECT_MAX_TOTAL in all,
 *    more than CONFINE_INJECT_MAX_COUNT injections, or a TARGET longer than 4095 bytes;
 *  - CONFINE_E_NOMEM.
 * The message names the offending value.  Placement on the system is decided by
 * confine_run_prepare: CONFINE_E_PLAN, naming the path, for a target whose file or parent
 * would have to be created on the host, a symlink on the way, a target a rule hides, or one in
 * /proc or /dev; the Windows backend refuses every injection (CONFINE_E_INVALID).  A request with
 * injections is refused by confine_run_start under policy off (SPEC 4).  Pure. */
CONFINE_API int confine_request_add_injection(confine_request *req,
					      enum confine_inject_placement placement,
					      const char *where, const void *data, size_t len,
					      struct confine_error *err);
/* The same with `where` given as `where_len` bytes, for bindings whose strings carry a length:
 * an embedded NUL is refused (CONFINE_E_INVALID) instead of silently cutting the value.  Pure. */
CONFINE_API int confine_request_add_injection_n(confine_request *req,
						enum confine_inject_placement placement,
						const char *where, size_t where_len,
						const void *data, size_t len,
						struct confine_error *err);
/* The policy the request carries (the default, or the last confine_request_set_policy). Pure. */
CONFINE_API enum confine_policy confine_request_policy(const confine_request *req);

/* Reads CONFINE_SANDBOX_POLICY-style text: "required" or "off", trimmed, case-insensitive.
 * Anything else (NULL included) is CONFINE_E_INVALID with *out = REQUIRED, the safe reading
 * (the caller warns).  Pure. */
CONFINE_API int confine_policy_parse(const char *text, enum confine_policy *out,
				     struct confine_error *err);

/* ---------------------------------------------------------------------------------------- */
/* Probe (SPEC 3.2).                                                                          */

/* Filled by the probes: set .size = sizeof(struct confine_probe_result) first (see the top). */
struct confine_probe_result {
	size_t size;
	char backend[16]; /* "bwrap", "landlock", "windows", "seatbelt" */
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
	char not_provided[1024];     /* what the backend cannot give, "; "-separated ("" none) */
	char network_by_domain[160]; /* --net-allow: confine's proxy (SPEC 12) */
};

/* Probes the Linux bubblewrap backend.  Touches the OS: searches PATH (absolute entries outside
 * `workspace` and the current directory), runs bwrap, reads and writes the cache.
 * `path_env` is the PATH to search (NULL: "/usr/local/bin:/usr/bin:/bin"); `workspace` may be
 * NULL.  Returns 0 when the probe ran (see result->available), negative on a hard error. */
CONFINE_API int confine_probe_bwrap(const char *path_env, const char *workspace, bool use_cache,
				    struct confine_probe_result *result, struct confine_error *err);

/* Probes the Linux landlock backend (SPEC 3.3): the kernel's Landlock ABI (at least
 * CONFINE_LANDLOCK_MIN_ABI), seccomp, and whether confine can create a cgroup.  Codes:
 * available, landlock_unavailable, landlock_abi_too_old, seccomp_unavailable.  not_provided
 * lists what this backend cannot give.  Touches the OS (no process is started). */
#define CONFINE_LANDLOCK_MIN_ABI 3
CONFINE_API int confine_probe_landlock(struct confine_probe_result *result,
				       struct confine_error *err);

#ifdef _WIN32
/* Probes the Windows backend (SPEC 10): whether this user can build the write-restricted
 * token.  read_protection and network_isolation are "not provided" whatever the answer.
 * Touches the OS (builds a token and closes it).  Windows builds only. */
CONFINE_API int confine_probe_windows(struct confine_probe_result *result,
				      struct confine_error *err);
#endif

#ifdef __APPLE__
/* Probes the macOS backend (SPEC 9): whether /usr/bin/sandbox-exec applies a trivial profile
 * and the fixed part of confine's own, and refuses a write that profile denies.  Touches the
 * OS (runs sandbox-exec three times).  macOS builds only; never compiled or run by CI. */
CONFINE_API int confine_probe_seatbelt(struct confine_probe_result *result,
				       struct confine_error *err);
#endif

/* A probe result as `confine probe --json` lists it: one JSON object (the fields, with the
 * guarantees in their own object and not_provided as an array; a backend's own fields where
 * it has them), caller-owned (confine_free).  Pure. */
CONFINE_API int confine_probe_json(const struct confine_probe_result *result, char **out,
				   struct confine_error *err);
/* The same as text for a person, one "name: value" line each, as `confine probe` prints it;
 * caller-owned (confine_free).  Strings the probe quoted (paths, bwrap's output) are escaped
 * (R38).  Pure. */
CONFINE_API int confine_probe_text(const struct confine_probe_result *result, char **out,
				   struct confine_error *err);

/* ---------------------------------------------------------------------------------------- */
/* Prepared runs: rules loaded, workspace validated, globs expanded, plan compiled.         */

typedef struct confine_run confine_run;

/* Prepares a run: validates the workspace, loads the rule files, gathers host facts, probes
 * the backend (when the policy is required) and compiles the plan.  Injections (SPEC 6) are
 * placed in the plan and their contents sealed into memfds (see confine_run_injection).
 * Touches the OS (reads files, stats paths, may run the probe).  On failure *out is NULL. */
CONFINE_API int confine_run_prepare(const confine_request *req, confine_run **out,
				    struct confine_error *err);
CONFINE_API void confine_run_free(confine_run *run);

/* The compiled plan as stable text (or JSON when json is true).  The returned string is owned
 * by the caller (confine_free).  Pure. */
CONFINE_API int confine_run_plan_text(const confine_run *run, bool json, char **out,
				      struct confine_error *err);

/* The plan of the request for another system, on any OS (SPEC 9, 10): MACOS (the Seatbelt
 * profile) or WINDOWS (the ACEs of the write-restricted token).  `facts` is the text of a
 * host-facts file describing that host (confine(1); NULL: the defaults, which the plan names),
 * `home` its home or profile directory (NULL: the facts', else for macOS /Users/$USER of the
 * request's environment, which the plan says it assumed).  The request's workspace (a path
 * of that host), session rules, network choice and command are used; its rule files live on
 * that host and are not read (the plan says so).  *out is caller-owned (confine_free).
 * LINUX is CONFINE_E_INVALID: prepare a run and use confine_run_plan_text.  An error in the
 * facts names their line in err->line.  Touches the OS only to read session rule files. */
CONFINE_API int confine_request_plan_target(const confine_request *req, enum confine_target target,
					    const char *facts, const char *home, bool json,
					    char **out, struct confine_error *err);

/* Starts the prepared command.  Touches the OS: forks and execs bwrap (or the command itself
 * under policy off; a run with injections is refused then, CONFINE_E_INVALID, SPEC 4).  Returns
 * once the sandbox is launched; the command may still fail to start (see confine_run_wait). */
CONFINE_API int confine_run_start(confine_run *run, struct confine_error *err);

/* Forwards a signal to the sandboxed command (SIGINT, SIGTERM, SIGHUP, SIGQUIT).  SIGTERM,
 * SIGHUP, SIGQUIT and a second SIGINT also ask the sandbox to end: if it is still running after
 * the kill grace (confine_request_set_kill_grace), confine_run_wait kills all of it (a command
 * may catch one SIGINT, as a shell or REPL does with Ctrl-C, and go on).  Before the sandbox is
 * ready any of them ends it at once.  SIGWINCH and SIGCONT are not forwarded: with a terminal
 * of the command's own (confine_request_set_tty) the window size follows, and raw mode is set
 * again when the caller is in the foreground.  Async-signal safe: a run that is NULL or a
 * number that is no signal (outside 1 to 64) is CONFINE_E_INVALID, and no error struct is
 * filled.  Touches the OS. */
CONFINE_API int confine_run_forward_signal(confine_run *run, int sig);

/* Gives the caller's terminal its mode back, as before the relay of confine_request_set_tty
 * (confine_run_wait and confine_run_free do it too): for a handler of a signal that stops or
 * ends the caller.  A SIGCONT forwarded later sets raw mode again.  Async-signal safe: a NULL
 * run is CONFINE_E_INVALID, and no error struct is filled. */
CONFINE_API int confine_run_restore_terminal(confine_run *run);

/* Waits for the command to end; *status is the R3 exit status: the command's own status,
 * 128+N on death by signal N, 126/127 when the command could not be executed.  When the
 * sandbox itself fails, returns CONFINE_E_SPAWN and fills err (the exit status is 125).  A
 * failure after the command ran never changes *status: the proxy's or the post-run checks'
 * error is returned with the command's status, and CONFINE_E_RECORD when only the audit line
 * could not be written (confine_request_audit_error says it too).
 * Touches the OS.  Interrupted by signals only to deliver them; call forward first. */
CONFINE_API int confine_run_wait(confine_run *run, int *status, struct confine_error *err);

/* ---------------------------------------------------------------------------------------- */
/* Explain (R11): which rule decides an access, and why.                                     */

/* Filled by confine_rules_explain: set .size = sizeof(struct confine_decision) first. */
struct confine_decision {
	size_t size;
	char path[4096];	    /* canonical path */
	enum confine_access access; /* READ or WRITE */
	enum confine_action action; /* what the sandbox does: a guard is DENY (no rule lifts
				     * it; only an escalation, SPEC 7.1, runs past it); ASK is
				     * a rule's ask, enforced as deny until approved */
	char layer[16];	   /* "override", "guard", "session", "workspace", "user", "fallback" */
	bool has_rule;	   /* false for the fallback */
	char source[1024]; /* rule file path, "builtin" or "session" */
	int index, line, column;
	char pattern[4096];
	/* R10b: where both rule files match, the stricter decision wins: a workspace allow that
	 * the user file's deny or ask outranked is named here (has_outranked). */
	bool has_outranked;
	char outranked_source[1024];
	int outranked_index, outranked_line, outranked_column;
	char outranked_pattern[4096];
};

typedef struct confine_rules confine_rules;

/* Loads the layers for a request (workspace validation, rule files) without planning or
 * probing.  Touches the OS (reads files, resolves paths). */
CONFINE_API int confine_rules_load(const confine_request *req, confine_rules **out,
				   struct confine_error *err);
CONFINE_API void confine_rules_free(confine_rules *r);
/* Decides one access (READ or WRITE) for `path` (canonicalised first).  Touches the OS only to
 * canonicalise the path. */
CONFINE_API int confine_rules_explain(const confine_rules *r, const char *path,
				      enum confine_access access, struct confine_decision *out,
				      struct confine_error *err);
/* A decision as `confine explain --json` lists it: one JSON object ("path", "access",
 * "decision", "layer", "rule" with its source, index, line and pattern or null, "outranked"
 * when there is one), caller-owned (confine_free).  Pure. */
CONFINE_API int confine_decision_json(const struct confine_decision *d, char **out,
				      struct confine_error *err);

/* ---------------------------------------------------------------------------------------- */
/* Checking rule files (R5): every problem of a file, as a run would meet them.              */

enum confine_rule_file {
	CONFINE_RULE_FILE_AUTO = 0,	 /* by its path, see confine_rules_check */
	CONFINE_RULE_FILE_SESSION = 1,	 /* --session-rules */
	CONFINE_RULE_FILE_WORKSPACE = 2, /* WORKSPACE/.confine/rules.json */
	CONFINE_RULE_FILE_USER = 3,	 /* ${XDG_CONFIG_HOME:-~/.config}/confine/rules.json */
};

/* Where the request's standard rule file of `kind` (WORKSPACE or USER) is: for its workspace
 * (NULL: the current directory, canonical) and for HOME and XDG_CONFIG_HOME of its
 * environment (the process's when it sets none), the path a run reads; caller-owned
 * (confine_free).  CONFINE_E_NOTFOUND when there is none (USER without a home);
 * CONFINE_E_WORKSPACE when the workspace is no directory.  Touches the OS (canonicalises). */
CONFINE_API int confine_request_rule_file(const confine_request *req, enum confine_rule_file kind,
					  char **out, struct confine_error *err);

typedef struct confine_check confine_check;

/* One problem of a checked file. */
struct confine_check_problem {
	size_t size;
	int line, column;    /* in the file, 1-based */
	const char *pointer; /* JSON pointer of the value ("/rules/3/path"), "" for the file */
	const char *message;
};

/*
 * Checks the rule file `file` the way a run loads it: the syntax (SPEC 2.1), each pattern
 * resolved (SPEC 2.2) and, for a workspace file, R10.  `kind` says what it is read as; AUTO:
 * the user file when it is the request's (confine_request_rule_file), a workspace file when
 * it is named .confine/rules.json, a session file otherwise.  Returns 0 when the file was
 * read, whether it has problems or not (confine_check_problem); CONFINE_E_NOTFOUND when it
 * does not exist, another code when it cannot be read (err says why); *out is NULL then.
 * Touches the OS (reads the file, canonicalises paths).
 */
CONFINE_API int confine_rules_check(const confine_request *req, const char *file,
				    enum confine_rule_file kind, confine_check **out,
				    struct confine_error *err);
CONFINE_API void confine_check_free(confine_check *c);
/* The path rules and the network rules the file holds. Pure. */
CONFINE_API size_t confine_check_rule_count(const confine_check *c);
CONFINE_API size_t confine_check_net_rule_count(const confine_check *c);
/* The problems in the order of the file (line, then column); valid until confine_check_free.
 * Pure. */
CONFINE_API size_t confine_check_problem_count(const confine_check *c);
/* The i-th problem, NULL when i >= confine_check_problem_count.  Pure. */
CONFINE_API const struct confine_check_problem *confine_check_problem(const confine_check *c,
								      size_t i);

/* ---------------------------------------------------------------------------------------- */
/* Tool caches (R39): confine's stores, one per workspace.                                   */

/* One store, read-only, owned by the list it came from; .size says how much of it is there. */
struct confine_cache_store {
	size_t size;
	const char *dir;       /* the store */
	const char *workspace; /* the workspace it belongs to ("" when its record is missing) */
	uint64_t bytes;	       /* as last measured, after a run; UINT64_MAX: past the bound */
	int64_t last_used;     /* seconds since the epoch */
};
typedef struct confine_caches confine_caches;
/* Every store of the caller (${XDG_STATE_HOME:-~/.local/state}/confine/caches, from the
 * process's environment), into *out (confine_caches_free); there may be none.  Touches the
 * OS (reads directories). */
CONFINE_API int confine_cache_list(confine_caches **out, struct confine_error *err);
CONFINE_API void confine_caches_free(confine_caches *c);
/* How many stores, and the i-th (NULL when i >= the count), valid until confine_caches_free.
 * Pure. */
CONFINE_API size_t confine_cache_count(const confine_caches *c);
CONFINE_API const struct confine_cache_store *confine_cache_store(const confine_caches *c,
								  size_t i);
/* The list as `confine cache list --json` prints it: an array of objects ("store",
 * "workspace", "bytes", "last_used"), caller-owned.  Pure. */
CONFINE_API int confine_caches_json(const confine_caches *c, char **out, struct confine_error *err);
/* Removes the store of `workspace` (canonicalised first), or every store when it is NULL; no
 * store is no error.  Never follows a symlink.  Touches the OS. */
CONFINE_API int confine_cache_clear(const char *workspace, struct confine_error *err);
/* After confine_run_wait: the stores that were emptied or removed to keep all of them within
 * the bound (confine_request_set_cache_size), space-separated; NULL when none.  Pure. */
CONFINE_API const char *confine_run_cache_trimmed(const confine_run *run);

/* R40: the built-in guards on *.pem, *.crt and *.cer are decided by what the file holds. */
enum confine_content {
	CONFINE_CONTENT_NONE = 0,	  /* no guard decided by content covers the path */
	CONFINE_CONTENT_CERTIFICATES = 1, /* certificates only: public, the guard does not apply */
	CONFINE_CONTENT_PRIVATE_KEY = 2,  /* a private key or a key store: hidden */
	CONFINE_CONTENT_UNCLASSIFIED = 3, /* not classified within a bounded read: hidden */
};
/* Filled by confine_rules_explain_content: set .size = sizeof(struct
 * confine_content_decision) first. */
struct confine_content_decision {
	size_t size;
	enum confine_content content;
	char why[128]; /* a short reason ("" for NONE) */
};
/* Whether a guard decided by content covers `path` (canonicalised first) and, if so, what the
 * file holds.  Touches the OS: reads the file (at most 4 MiB, without following a symlink). */
CONFINE_API int confine_rules_explain_content(const confine_rules *r, const char *path,
					      struct confine_content_decision *out,
					      struct confine_error *err);
/* A content decision as `confine explain --json` lists it under "content": {"class":
 * "certificates"|"private_key"|"unclassified", "why": ...}, or null for NONE; caller-owned.
 * Pure. */
CONFINE_API int confine_content_decision_json(const struct confine_content_decision *d, char **out,
					      struct confine_error *err);

/* Post-run report events (SPEC 7.3, R23), computed when confine_run_wait returns. */
struct confine_event {
	size_t size;
	char kind[40];	   /* "missing_protected_created", "dynamic_glob_created",
			    * "protected_created_disabled" (something the host acts on later,
			    * created where it was missing, renamed aside: detail is the new
			    * name), "protected_created_kept" (the same, but it could not be
			    * renamed: detail says why), "protected_link_disabled" (a
			    * protected name -- a glob match, a missing protected path -- the
			    * command made as a symlink or a hard link of another file, R37:
			    * renamed aside, detail is the new name), "protected_link_kept"
			    * (the same, not renamed: detail says why), "git_moved_aside" (in a
			    * repository the command created, an entry the host's git would run
			    * or follow, renamed aside: detail is the new name),
			    * "git_config_filtered" (its configuration written anew without the
			    * keys detail names; the original kept aside), "git_moved_aside_more"
			    * (how many more changes were made than listed), "ipc_endpoint_created",
			    * "unreadable_directory_skipped", "missing_protected_scan_failed",
			    * "dynamic_glob_scan_failed", "ipc_endpoint_scan_failed",
			    * "memory_limit_killed", "pids_limit_reached" (detail: the limit and
			    * the kernel's count); "missing_protected_appeared",
			    * "dynamic_glob_appeared", "ipc_endpoint_appeared": the same made
			    * where the command could not write (outside the workspace and every
			    * write allow), so by another process of the host, not by this run */
	char path[4096];   /* the path concerned ("" for a scan failure) */
	char rule[4096];   /* the pattern that protects it, as written */
	char detail[4160]; /* a reason or a new name; "" otherwise */
};

/* The events of the last run: how many, and the i-th (NULL when i >= the count); valid until
 * confine_run_free.  Pure. */
CONFINE_API size_t confine_run_event_count(const confine_run *run);
CONFINE_API const struct confine_event *confine_run_event(const confine_run *run, size_t i);

/* What a person should know before the command starts, from confine_run_prepare: each allow
 * of the session, the workspace or the user file that a built-in guard or override outranks,
 * so that it has no effect (kind "allow_outranked_by_guard" or "allow_outranked_by_override";
 * path: what the allow names; rule: the guard's or override's pattern; detail: the allow as
 * written and why).  Only an escalation runs past a guard (SPEC 7.1); nothing lifts an
 * override.  None without a sandbox (policy off, an escalation).  Valid until
 * confine_run_free.  Pure. */
CONFINE_API size_t confine_run_notice_count(const confine_run *run);
CONFINE_API const struct confine_event *confine_run_notice(const confine_run *run, size_t i);

/* One injection of a prepared run (SPEC 6), in the order the request added them. */
struct confine_injection {
	size_t size;
	enum confine_inject_placement placement;
	const char *where;  /* NAME, or TARGET normalised */
	const char *path;   /* where the command finds the file inside the sandbox */
	const char *blake3; /* BLAKE3 of the content: 64 lower-case hex digits */
	const char *record; /* "env:NAME=HASH" or "path:TARGET=HASH": what the audit log and the
			     * report list (never the bytes, never a host path) */
	uint64_t bytes;	    /* the size of the content */
};

/* The injections of a prepared run; the hashes were computed by confine_run_prepare from the
 * sealed copy the sandbox will see (Linux: a memfd sealed against writes, growing and
 * shrinking).  How many, and the i-th (NULL when i >= the count); each and its strings are
 * owned by the run and valid until confine_run_free.  Pure. */
CONFINE_API size_t confine_run_injection_count(const confine_run *run);
CONFINE_API const struct confine_injection *confine_run_injection(const confine_run *run, size_t i);

/* Whether the last wait ended because the timeout expired.  Pure. */
CONFINE_API bool confine_run_timed_out(const confine_run *run);

/* Whether the last wait ended because the command did not end within the kill grace after a
 * forwarded signal, and confine killed the sandbox.  Pure. */
CONFINE_API bool confine_run_killed_after_grace(const confine_run *run);

/* The backend a prepared run uses: "bwrap", "landlock", or "none" (policy off).  Pure. */
CONFINE_API const char *confine_run_backend(const confine_run *run);
/* When the backend was AUTO and bubblewrap's probe failed: one line naming the probe code and
 * what the landlock backend gives up (for the caller to show); NULL otherwise.  Pure. */
CONFINE_API const char *confine_run_fallback_note(const confine_run *run);
/* The landlock backend (SPEC 3.3): the split directories of the writable areas that take no
 * new entry in this run and why (confine's supervisor cannot make them here), one line; NULL
 * when there are none.  The remedy: make what the command needs there before the run, or use
 * the bwrap backend.  Pure. */
CONFINE_API const char *confine_run_landlock_note(const confine_run *run);
/* The landlock backend: why the command was refused `path` (one of confine_run_denied_paths)
 * when it lies in such a directory: *out is one line, caller-owned (confine_free), or NULL when
 * the path is not in one.  The remedy: run the command again (what exists when a run starts
 * gets its own rule), make the directory before the run, or use the bwrap backend.  Pure. */
CONFINE_API int confine_run_explain_denial(const confine_run *run, const char *path, char **out,
					   struct confine_error *err);

/* Whether the exit status came from the command (true) or from confine (false). Pure. */
CONFINE_API bool confine_run_status_from_command(const confine_run *run);

/* ---------------------------------------------------------------------------------------- */
/* Approvals (SPEC 7): escalation and write grants, each approved once through a card.       */
/*
 * A host builds the card for a request (confine_card_new), shows it to its user, and on
 * approval sets the card's digest as the request's receipt and the card's request_id as the
 * request's id (each card is its own approval: the digest covers the id).  Preparing a run
 * with an escalation or grants refuses it (CONFINE_E_APPROVAL) unless the receipt is the
 * digest of exactly this request: the same id, argv, program, cwd, workspace, --env
 * assignments, targets and reason.  A receipt means once: confine_run_start spends it before
 * anything runs, in confine's own state ($XDG_CACHE_HOME/confine/receipts, the last 4096 spent
 * receipts, which the sandbox cannot write), and refuses a receipt already spent
 * (CONFINE_E_APPROVAL).  A host that wants an approval it may present again asks for it with
 * confine_request_set_reusable before it builds the card; the card then says "reusable".  No
 * rule, tier or file of the user changes.
 */

/* Run the command once outside the OS sandbox (SPEC 7.1): no rule, guard or override applies
 * to it.  Pure. */
CONFINE_API int confine_request_set_escalate(confine_request *req, bool escalate,
					     struct confine_error *err);
/* Ask for a reusable approval: the card says "reusable", its digest covers that, and its
 * receipt is not spent by a run, so the host may present it again (for exactly this request
 * and id).  Set it before confine_card_new and on every run that presents the receipt.
 * Default: once.  Pure. */
CONFINE_API int confine_request_set_reusable(confine_request *req, bool reusable,
					     struct confine_error *err);
/* A write target "PATH:file" or "PATH:subtree" (SPEC 7.2), relative paths from the current
 * directory; validated with the others when the card or the run is prepared.  Approved, each
 * becomes a write allow of exactly that path in the session layer for this one run.  Pure. */
CONFINE_API int confine_request_add_write_grant(confine_request *req, const char *target,
						struct confine_error *err);
/* Why the command needs the write targets: shown on the card, part of the digest.  Pure. */
CONFINE_API int confine_request_set_grant_reason(confine_request *req, const char *reason,
						 struct confine_error *err);
/* The digest of the approved card: 64 hexadecimal digits.  Pure. */
CONFINE_API int confine_request_set_receipt(confine_request *req, const char *digest,
					    struct confine_error *err);
/* The request id that the card, the report and the audit line carry: 1 to 64 characters of
 * [A-Za-z0-9._:-].  Unset, each card and each run gets a random one.  Pure. */
CONFINE_API int confine_request_set_id(confine_request *req, const char *id,
				       struct confine_error *err);

#define CONFINE_CARD_MAX_TARGETS 8

struct confine_card_target {
	size_t size;
	const char *path;  /* canonical */
	const char *scope; /* "file" or "subtree" */
};

/* An approval card.  Every string is owned by the card and valid until confine_card_free. */
struct confine_card {
	size_t size;
	int version;	   /* 1: of the card's content (the JSON's "version") */
	const char *kind;  /* "escalate" or "write_grant" */
	const char *title; /* from the kind, the program's name and the targets; never from
			    * free text.  Characters that could spoof a line are escaped */
	size_t argc;
	const char *const *argv; /* exact */
	const char *program;	 /* absolute path of the executable argv[0] names */
	const char *cwd;	 /* canonical */
	const char *workspace;	 /* canonical */
	const char *where;	 /* "outside the sandbox, this once" or "inside the sandbox, this
				  * once, with write access to the targets" */
	const char *guards;	 /* whether the guards apply, in words */
	size_t n_targets;	 /* at most CONFINE_CARD_MAX_TARGETS, every one listed:
				  * confine_card_target */
	const char *reason;	 /* "" for an escalation */
	size_t n_env;
	const char *const *env; /* the request's own NAME=VALUE assignments */
	char request_id[65];
	char encoding[32]; /* "confine-request-v2": what the digest is taken over */
	char digest[65];   /* SHA-256 of the canonical request, lower-case hex */
	bool reusable;	   /* confine_request_set_reusable: the receipt is never spent */
	const char *uses;  /* in words: spent when its run starts, or reusable */
};

/* Builds the card for a request with an escalation (the default) or write grants: validates
 * the workspace and the targets, looks up the program.  Touches the OS (reads rule files,
 * stats paths, searches PATH). */
CONFINE_API int confine_card_new(const confine_request *req, struct confine_card **out,
				 struct confine_error *err);
CONFINE_API void confine_card_free(struct confine_card *card);
/* The i-th write target of the card, NULL when i >= n_targets.  Pure. */
CONFINE_API const struct confine_card_target *confine_card_target(const struct confine_card *card,
								  size_t i);
/* The card as one JSON object (the struct's fields, same names), caller-owned (confine_free).
 * Pure. */
CONFINE_API int confine_card_json(const struct confine_card *card, char **out,
				  struct confine_error *err);

/* ---------------------------------------------------------------------------------------- */
/* Audit log (SPEC 8) and post-run report (SPEC 7.3).                                        */

/* Appends one JSON line per spawn attempt of this request to FILE, on every exit path.  The
 * file is opened now (O_APPEND|O_CLOEXEC|O_NOFOLLOW, created 0600, a regular file), so that
 * every later failure is recorded, and it is hidden from the sandbox (read and write denied,
 * even inside the workspace).  Each line is written with one write(2).  Touches the OS. */
CONFINE_API int confine_request_set_audit_file(confine_request *req, const char *file,
					       struct confine_error *err);
/* The report file: opened and truncated now (O_NOFOLLOW, created 0600, a regular file), before
 * the command can run, and write-denied inside the sandbox.  Touches the OS. */
CONFINE_API int confine_request_set_report_file(confine_request *req, const char *file,
						struct confine_error *err);
/* For a plan that is only printed (run --print-plan): the audit log and the report file are
 * protected in the plan as in the run, so that the printed plan and its digest are the run's
 * (SPEC 7.3); nothing is opened or created.  Either may be NULL.  Touches the OS (realpath). */
CONFINE_API int confine_request_plan_record_files(confine_request *req, const char *audit,
						  const char *report, struct confine_error *err);
/* Look at the command's stderr for denial paths (confine_run_denied_paths) even without a
 * report or audit file.  Pure. */
CONFINE_API int confine_request_set_denial_scan(confine_request *req, bool on,
						struct confine_error *err);

/* Whether an audit line of this request's attempts could not be written (a full file system,
 * an I/O error): 0 when every line was written, else CONFINE_E_RECORD with err filled from the
 * first failure.  The line is then missing from the log, and nothing of it was left there; a
 * command that ran keeps its exit status all the same.  Pure. */
CONFINE_API int confine_request_audit_error(const confine_request *req, struct confine_error *err);
/* Writes the audit line of a spawn attempt that ends before confine_run_prepare (an invalid
 * argument the caller found), with outcome "failed" and the error.  Does nothing without an
 * audit file.  CONFINE_E_RECORD (err filled) when the line could not be written.  Touches the
 * OS. */
CONFINE_API int confine_request_audit_refusal(const confine_request *req, int status,
					      const struct confine_error *why,
					      struct confine_error *err);

/* The post-run report as one JSON object (SPEC 7.3), caller-owned (confine_free): run may be
 * NULL when prepare failed; `why` is the error that ended the run (code 0: none).  Touches the
 * OS only to canonicalise denial paths. */
CONFINE_API int confine_report_json(const confine_request *req, const confine_run *run, int status,
				    const struct confine_error *why, char **out,
				    struct confine_error *err);
/* Writes that report to the report file of the request.  CONFINE_E_RECORD when it cannot be
 * written (a full file system): the file is left empty, never half a report.  Touches the OS. */
CONFINE_API int confine_request_write_report(const confine_request *req, const confine_run *run,
					     int status, const struct confine_error *why,
					     struct confine_error *err);

/* Up to five unique absolute paths named on denial lines of the command's stderr ("Permission
 * denied", "Operation not permitted", "Read-only file system"), for display only: the command
 * wrote them.  Valid until confine_run_free.  Pure. */
CONFINE_API const char *const *confine_run_denied_paths(const confine_run *run, size_t *n);

/* The policy digest: SHA-256 (hex) of the compiled plan's text as `confine run --print-plan`
 * prints it; "" when no sandbox applies (policy off, escalation).  Pure. */
CONFINE_API const char *confine_run_policy_digest(const confine_run *run);

/* The request id of the run.  Pure. */
CONFINE_API const char *confine_run_id(const confine_run *run);

/* ---------------------------------------------------------------------------------------- */
/* Network by domain (SPEC 12, R31).                                                          */

/* A session network rule (layer "session"): "example.com" (that name), "*.example.com" (every
 * name below it, not itself), an IPv4 or IPv6 address ("[::1]" with a port), each with an
 * optional ":PORT".  Within a layer denies are checked before allows.  A run where a session,
 * session-file or user rule allows something gets its own network namespace and reaches the
 * network only through confine's proxy; a workspace file may only deny.  Validated here
 * (CONFINE_E_INVALID).  Pure. */
CONFINE_API int confine_request_net_allow(confine_request *req, const char *pattern,
					  struct confine_error *err);
CONFINE_API int confine_request_net_deny(confine_request *req, const char *pattern,
					 struct confine_error *err);

enum confine_net_mode {
	CONFINE_NET_ON = 0,	 /* the host's network */
	CONFINE_NET_OFF = 1,	 /* own network namespace, loopback only */
	CONFINE_NET_DOMAINS = 2, /* own network namespace, out only through confine's proxy */
};

/* Which rule decides a host and port.  Filled by confine_rules_explain_net: set
 * .size = sizeof(struct confine_net_decision) first. */
struct confine_net_decision {
	size_t size;
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
CONFINE_API int confine_rules_explain_net(const confine_rules *r, const char *host_port,
					  struct confine_net_decision *out,
					  struct confine_error *err);
/* The network mode the loaded rules give a run.  Pure. */
CONFINE_API enum confine_net_mode confine_rules_net_mode(const confine_rules *r);
/* A network decision as `confine explain --json --net` lists it: one JSON object ("network",
 * "port", "decision", "layer", "mode": `mode`, the network mode it is enforced in, "rule"
 * with its source, list, index, line, column and pattern, or null), caller-owned
 * (confine_free).  Pure. */
CONFINE_API int confine_net_decision_json(const struct confine_net_decision *d,
					  enum confine_net_mode mode, char **out,
					  struct confine_error *err);

/* One request the proxy decided (an HTTP CONNECT, an absolute-URI HTTP request, a SOCKS5
 * CONNECT). */
struct confine_net_event {
	size_t size;
	int64_t time_ms;  /* when it was decided: CLOCK_REALTIME, ms since the epoch */
	char protocol[8]; /* "http", "connect", "socks5"; R43: "tcp" (a connection of any client,
			   * to a synthetic address or an address literal, through the
			   * sandbox's own routing), "dns" (a name the resolver inside refused:
			   * port 0, never looked up on the host) */
	/* on the host asked for (has_rule false and host "" for a request too malformed to name
	 * one); owned by the run like the event */
	const struct confine_net_decision *decision;
	char outcome[24]; /* "connected", "denied" (by the decision), "address_refused" (the name
			   * was allowed but resolved to a refused address), "resolve_failed",
			   * "connect_failed", "bad_request", "unauthenticated" (no or wrong
			   * proxy credentials: the landlock backend's proxy on the host's
			   * loopback, SPEC 12), "auth_challenge" (an HTTP first try without
			   * credentials that the same client retried with them: not a refusal);
			   * R43: "sni_mismatch", "host_mismatch" (a connection to a synthetic
			   * address whose TLS server name or HTTP Host is another name),
			   * "unavailable" (protocol "dns": the resolver inside could not be set
			   * up; detail says why); R45: "secret_refused" (the request carried a
			   * credential placeholder to a host it is not for:
			   * confine_run_secret_event has the details) */
	char address[64]; /* the address connected to or refused; "" when none */
	char detail[256]; /* the reason when the outcome is not "connected" */
	/* R43: the host's answer when the decision was ASK: "" (nobody was asked: denied),
	 * "once" (allowed this connection), "run" (allowed for the rest of the run), "earlier"
	 * (allowed by an earlier "run" answer), "deny", "timeout" (no answer within
	 * CONFINE_NET_ASK_TIMEOUT_MS: denied) */
	char answer[16];
};

/* The proxy's decisions in the order made, computed when confine_run_wait returns: how many,
 * the i-th (NULL when i >= the count; valid until confine_run_free), and how many more were
 * not kept (at most 4096 are).  Pure. */
CONFINE_API size_t confine_run_net_event_count(const confine_run *run);
CONFINE_API const struct confine_net_event *confine_run_net_event(const confine_run *run, size_t i);
CONFINE_API size_t confine_run_net_events_dropped(const confine_run *run);
/* The remedy for the i-th network event of the run, as a person would type it: for an allowed
 * name refused for the address it resolved to, the exact --net-allow of that address and of
 * its range ("--net-allow 10.1.2.3, or its whole range: --net-allow 10.0.0.0/8"); for a host no
 * rule names, its --net-allow; for a deny rule, the explain line.  *out is caller-owned
 * (confine_free), "" when confine knows no remedy (a connected request, a name that does not
 * resolve).  An i past the events is CONFINE_E_INVALID.  Pure. */
CONFINE_API int confine_run_net_hint(const confine_run *run, size_t i, char **out,
				     struct confine_error *err);
/* The network mode of a prepared run.  Pure. */
CONFINE_API enum confine_net_mode confine_run_net_mode(const confine_run *run);

/*
 * Live asks (R43).  A host no rule names is ASK: without an asker it is denied (and reported);
 * with one, the connection waits while the asker decides.  The question is the host, the port
 * and the protocol; the answer is DENY, ONCE (this connection) or RUN (this host and port for
 * the rest of the run, without asking again).
 */
enum confine_net_answer {
	CONFINE_NET_ANSWER_DENY = 0,
	CONFINE_NET_ANSWER_ONCE = 1,
	CONFINE_NET_ANSWER_RUN = 2,
};

/* A question to the asker, valid during the call; .size says how much of it there is. */
struct confine_net_ask {
	size_t size;
	char host[256]; /* normalised name or canonical address, as in confine_net_decision */
	uint16_t port;
	char protocol[8]; /* as in confine_net_event */
};

/* How long a connection waits for an answer: then it is denied ("timeout"). */
#define CONFINE_NET_ASK_TIMEOUT_MS 60000

typedef enum confine_net_answer (*confine_net_ask_fn)(const struct confine_net_ask *ask,
						      void *user);

/*
 * Sets the asker of the request's runs (NULL: none, the default).  Threads and ownership:
 * `fn` is called on a thread the library starts for the run, never on the caller's, one
 * question at a time, in the order asked, from confine_run_start until confine_run_wait
 * returns; questions for the same host and port that are waiting are asked once.  `ask` is
 * valid during the call only; `user` is borrowed and must stay valid until confine_run_wait
 * has returned.  fn must not call into the run or its request.  A connection whose question is
 * not answered within CONFINE_NET_ASK_TIMEOUT_MS is denied; an answer of RUN given later still
 * holds for the connections after it.  confine_run_wait returns only once fn has returned, so
 * fn should bound its own wait.  A value outside enum confine_net_answer is DENY.  Only in
 * network-by-domain runs with a sandbox (not under policy off).  Every answer is recorded in the
 * network events (confine_net_event.answer), the report and the audit line.  A NULL request
 * is CONFINE_E_INVALID.  Pure.
 */
CONFINE_API int confine_request_set_net_ask(confine_request *req, confine_net_ask_fn fn, void *user,
					    struct confine_error *err);
/* ---------------------------------------------------------------------------------------- */
/* Secrets the command can use but never read (R44, R45).  Linux only: elsewhere the request  */
/* setters return CONFINE_E_INVALID.  Every setter refuses a NULL request and leaves the      */
/* request unchanged when it refuses.                                                         */

/* The ssh-agent filter (R44): the command gets SSH_AUTH_SOCK, a socket confine serves from the
 * caller's own agent (SSH_AUTH_SOCK of the request's environment, which the command never
 * sees).  Through it the command lists and uses for signing only the keys added with
 * confine_request_add_ssh_key (none without one), and signs only an SSH user authentication for
 * a session bound (session-bind@openssh.com, checked) to a host key that the caller's
 * known_hosts holds for a host the network rules allow, or an SSHSIG blob (git commit
 * signing).  Adding, removing, locking, unlocking and every other extension are refused.
 * Needs the sandbox (policy required, no escalation); on the landlock backend also network
 * rules or --no-network.  Pure. */
CONFINE_API int confine_request_set_ssh_agent(confine_request *req, bool on,
					      struct confine_error *err);
/* A key the command may use: a public key line (the content of KEY.pub: "ssh-ed25519 AAAA...
 * comment") or its fingerprint as ssh-keygen -l prints it ("SHA256:" and 43 base64 digits).
 * CONFINE_E_INVALID otherwise; at most 32.  Pure. */
CONFINE_API int confine_request_add_ssh_key(confine_request *req, const char *key,
					    struct confine_error *err);

/* A credential placeholder (R45): "NAME=SOURCE@HOST[,HOST...]".  The command's variable NAME
 * holds a random placeholder; confine's proxy puts the real value (SOURCE: a variable of the
 * request's environment, or file:/PATH, read when the run is prepared, its trailing newline
 * dropped) in its place in requests to the listed hosts (network patterns as in
 * confine_request_net_allow) and refuses any request that carries the placeholder to another
 * host.  HTTPS to a listed host is inspected (a CA made for the run, in memory; the command's
 * trust variables point to a bundle of it and the system's roots).  The real value is never in
 * the command's environment (every variable holding it is removed), files (a file SOURCE is
 * hidden from the sandbox), the report, the audit log or a message.  Needs network rules that
 * allow each listed host.  Validated here (CONFINE_E_INVALID, CONFINE_E_LIMIT; at most 32).
 * Pure. */
CONFINE_API int confine_request_add_secret(confine_request *req, const char *spec,
					   struct confine_error *err);
/* TLS interception of "HOST[,HOST...]" (R45): the proxy terminates the command's TLS to these
 * hosts with the run's CA, verifies the server against the system's roots, and looks into the
 * requests for placeholders.  Implied for the hosts of every secret.  Pure. */
CONFINE_API int confine_request_tls_inspect(confine_request *req, const char *hosts,
					    struct confine_error *err);

/* One request the ssh-agent filter answered (read-only; .size says how much of it there is). */
struct confine_agent_event {
	size_t size;
	int64_t time_ms;  /* CLOCK_REALTIME, ms since the epoch */
	char request[24]; /* "list", "sign", "session-bind", "add", "remove", "remove-all",
			   * "lock", "unlock", "smartcard-add", "smartcard-remove", "extension",
			   * "query", "unknown", "malformed" */
	char key[64];	  /* the key of a sign request, "SHA256:..."; "" otherwise */
	char host[272];	  /* the host the session is bound to ("NAME:PORT" from known_hosts),
			   * "unknown host key SHA256:..." or "" (no binding) */
	char outcome[16]; /* "allowed", "refused", "failed" (the caller's agent refused it or
			   * cannot be reached) */
	char detail[320];
};
/* The ssh-agent filter's requests in order, computed when confine_run_wait returns: how many,
 * the i-th (NULL when i >= the count; valid until confine_run_free), and how many more were not
 * kept (at most 4096 are).  Pure. */
CONFINE_API size_t confine_run_agent_event_count(const confine_run *run);
CONFINE_API const struct confine_agent_event *confine_run_agent_event(const confine_run *run,
								      size_t i);
CONFINE_API size_t confine_run_agent_events_dropped(const confine_run *run);

/* What became of a placeholder in one request the proxy saw, or of an inspected connection
 * (read-only; .size says how much of it there is). */
struct confine_secret_event {
	size_t size;
	int64_t time_ms;
	char name[256]; /* the secret's NAME */
	char host[256]; /* the request's host */
	uint16_t port;
	char outcome[16];  /* "substituted" (a listed host: the real value went in its place),
			    * "refused" (another host: the request was refused); on an inspected
			    * connection (name ""): "tls-refused" (the command did not accept the
			    * run's certificate), "tls-failed" (the server did not verify against
			    * the caller's roots: it got no request), "misdirected" (a request
			    * named another host than the connection's: refused) */
	char where[64];	   /* "request line", "header NAME", "body" (chunk lines and trailers
			    * too), "request head", "CONNECT request", "SOCKS5 host name"; an
			    * inspected connection's: "the command's TLS handshake", "the
			    * server's TLS handshake", "TLS server name", "header Host" */
	char encoding[16]; /* "plain", "percent", "base64", "hex"; "" when none applies */
};
/* The placeholder events in order, computed when confine_run_wait returns: how many, the i-th
 * (NULL when i >= the count; valid until confine_run_free), and how many more were not kept
 * (at most 4096 are).  Pure. */
CONFINE_API size_t confine_run_secret_event_count(const confine_run *run);
CONFINE_API const struct confine_secret_event *confine_run_secret_event(const confine_run *run,
									size_t i);
CONFINE_API size_t confine_run_secret_events_dropped(const confine_run *run);

#ifdef __cplusplus
}
#endif
#endif
