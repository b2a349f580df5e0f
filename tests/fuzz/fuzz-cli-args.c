/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the CLI argument parser (SPEC 1; src/cli/args.c).  Input: one byte choosing the
 * subcommand (run, plan, explain), then the arguments separated by NUL bytes.  Besides memory
 * errors and leaks (the request is freed on every path, as the CLI does), it checks the
 * contract: an error fills the error struct with the same code; on success the first operand
 * lies within argv and, for run and plan, the command is exactly the operands.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "request.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {"run", "plan", "explain"};
	if (size < 1 || size > 65536)
		return 0;
	enum cli_cmd cmd = (enum cli_cmd)(data[0] % 3);
	char *buf = malloc(size);
	CHECK(buf);
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	char *argv[MAX_ARGS + 1];
	int argc = 0;
	argv[argc++] = (char *)names[cmd];
	for (size_t i = 0; i < size - 1 && argc < MAX_ARGS; i += strlen(buf + i) + 1)
		argv[argc++] = buf + i;
	argv[argc] = NULL;

	struct cli_opts o;
	struct confine_error err = {0};
	int r = cli_parse(cmd, argc, argv, &o, &err);
	if (r < 0) {
		CHECK(err.code == r);
		CHECK(err.what[0] != '\0');
	} else {
		CHECK(r == 0);
		CHECK(o.req != NULL);
		if (!o.help) {
			CHECK(o.first_operand >= 1 && o.first_operand <= argc);
			size_t operands = (size_t)(argc - o.first_operand);
			if (cmd != CLI_EXPLAIN) {
				CHECK(o.req->argv.n == operands);
				for (size_t i = 0; i < operands; i++)
					CHECK(!strcmp(o.req->argv.v[i], argv[o.first_operand + i]));
			} else {
				CHECK(o.req->argv.n == 0);
			}
			CHECK(o.req->tmp_size > 0);
			for (size_t i = 0; i < o.req->session.n; i++)
				CHECK(o.req->session.v[i].pattern[0] != '\0');
		}
	}
	confine_request_free(o.req);
	free(buf);
	return 0;
}
