/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER: being written. */
#include "cli/cli.h"

int cmd_run(int argc, char **argv)
{
	return cli_usage_error("run", "not implemented yet");
}
