/* SPDX-License-Identifier: MIT */
/* Parsing the options shared by run, plan and explain into a request.  No I/O but stderr
 * messages are left to the caller: errors come back in struct confine_error. */
#ifndef CONFINE_CLI_ARGS_H
#define CONFINE_CLI_ARGS_H

#include <stdbool.h>

#include "confine.h"

enum cli_cmd { CLI_RUN, CLI_PLAN, CLI_EXPLAIN };

/* explain --net: at most this many hosts in one call. */
#define CLI_NET_EXPLAIN_MAX 64

struct cli_opts {
	confine_request *req;
	bool print_plan;
	bool json;
	bool help;
	bool policy_given;
	const char *target;  /* plan --target */
	const char *access;  /* explain --access */
	const char *timeout; /* run --timeout, as given (for messages) */
	const char *report;  /* run --report FILE */
	int first_operand;   /* index in argv of the command (run, plan) or paths (explain) */
	const char *net_explain[CLI_NET_EXPLAIN_MAX]; /* explain --net HOST[:PORT], in order */
	int n_net_explain;
};

/* Parses argv (argv[0] is the subcommand name).  Fills opts->req (created here; the caller
 * frees it).  Returns 0, or a negative code with err filled. */
int cli_parse(enum cli_cmd cmd, int argc, char **argv, struct cli_opts *opts,
	      struct confine_error *err);

/* Parses a size with an optional K, M or G suffix (powers of 1024). */
int cli_parse_size(const char *s, uint64_t *out);

#endif
