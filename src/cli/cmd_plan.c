/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER: being written. */
#include "cli/cli.h"

int cmd_plan(int argc, char **argv)
{
	return cli_usage_error("plan", "not implemented yet");
}
