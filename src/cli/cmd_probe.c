/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER: being written. */
#include "cli/cli.h"

int cmd_probe(int argc, char **argv)
{
	return cli_usage_error("probe", "not implemented yet");
}
