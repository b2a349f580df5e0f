/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER: being written. */
#include "cli/cli.h"

int cmd_explain(int argc, char **argv)
{
	return cli_usage_error("explain", "not implemented yet");
}
