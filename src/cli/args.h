/* SPDX-License-Identifier: MIT */
/* Parsing the options shared by run, plan and explain into a request.  No I/O but stderr
 * messages are left to the caller: errors come back in struct confine_error. */
#ifndef CONFINE_CLI_ARGS_H
#define CONFINE_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "confine.h"

enum cli_cmd { CLI_RUN, CLI_PLAN, CLI_EXPLAIN, CLI_CARD };

/* explain --net: at most this many hosts in one call. */
#define CLI_NET_EXPLAIN_MAX 64

struct cli_opts {
	confine_request *req;
	bool print_plan;
	bool json;
	bool help;
	bool policy_given;
	bool backend_given;	/* --backend (else CONFINE_BACKEND) */
	const char *target;	/* plan --target */
	const char *host_facts; /* plan --host-facts FILE (macos, windows) */
	const char *home;	/* plan --home DIR (macos, windows) */
	const char *access;	/* explain --access */
	const char *timeout;	/* run --timeout, as given (for messages) */
	const char *report;	/* run --report FILE */
	const char *audit;	/* run --audit FILE */
	bool escalate;		/* run --escalate (card: the default) */
	bool receipt;		/* run --receipt DIGEST was given */
	bool grants;		/* --grant-write was given */
	bool no_net_ask;	/* run --no-net-ask (R43) */
	int first_operand;	/* index in argv of the command (run, plan) or paths (explain) */
	const char *net_explain[CLI_NET_EXPLAIN_MAX]; /* explain --net HOST[:PORT], in order */
	int n_net_explain;
	/* --inject-env NAME=FILE / --inject-path TARGET=FILE (run, plan), as given: the files
	 * are read by cli_load_injections, after every injection was validated. */
	const char *inject[CONFINE_INJECT_MAX_COUNT];
	bool inject_path[CONFINE_INJECT_MAX_COUNT];
	size_t n_inject;
	/* --ssh-key FILE.pub|FINGERPRINT (run), as given: cli_load_ssh_keys reads the files. */
	const char *ssh_keys[32];
	size_t n_ssh_keys;
};

/* One option of the table cli_parse reads (args.c). */
enum {
	CLI_OPT_VALUE = 1, /* takes a value: "--name V", "--name=V" or "-n V" */
	CLI_OPT_STOP = 2   /* ends the parse (--help) */
};
struct cli_option {
	const char *name;  /* "--workspace" */
	const char *alias; /* "-w", or NULL */
	unsigned flags;	   /* CLI_OPT_* */
	unsigned cmds;	   /* bit 1 << CLI_x of each subcommand that takes it */
	size_t field;	   /* without a handler: offset in cli_opts of the bool it sets (a flag)
			    * or of the const char * that keeps the value */
	int arg;	   /* for the handler: the action, the tty mode, allow or deny... */
	int (*set)(struct cli_opts *o, const struct cli_option *opt, const char *given,
		   const char *v, struct confine_error *err);
};

/* The option table and its length (for the test of the help texts). */
const struct cli_option *cli_options(size_t *n);

/* Parses argv (argv[0] is the subcommand name).  Fills opts->req (created here; the caller
 * frees it).  Returns 0, or a negative code with err filled. */
int cli_parse(enum cli_cmd cmd, int argc, char **argv, struct cli_opts *opts,
	      struct confine_error *err);

/* The value of option `name` ("--audit") among the options before the command, or NULL:
 * for recording an attempt whose arguments do not parse. */
const char *cli_find_option(int argc, char **argv, const char *name);

/* Parses a duration: a positive number of seconds with an optional suffix s, m (minutes) or h
 * (hours): "30", "2.5", "5s", "2m", "1h".  At most 1e9 seconds; *ms is at least 1. */
int cli_parse_duration(const char *s, uint64_t *ms);

/* Parses a size with an optional K, M or G suffix (powers of 1024). */
int cli_parse_size(const char *s, uint64_t *out);

#endif
