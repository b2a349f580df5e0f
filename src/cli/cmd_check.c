/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER: being written. */
#include "cli/cli.h"

int cmd_check(int argc, char **argv)
{
	return cli_usage_error("check", "not implemented yet");
}
