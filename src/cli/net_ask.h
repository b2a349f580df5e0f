/* SPDX-License-Identifier: MIT */
/* Live asks on the terminal (R43, net_ask.c). */
#ifndef CONFINE_CLI_NET_ASK_H
#define CONFINE_CLI_NET_ASK_H

#include <stdbool.h>

#include "confine.h"

struct cli_net_ask {
	int fd; /* /dev/tty, -1 when nobody is asked */
};

/* With a terminal on stdin and stderr, and unless `off` (--no-net-ask): the request's hosts
 * no rule names are asked about on /dev/tty.  `st` must outlive the run. */
void cli_net_ask_setup(confine_request *req, bool off, struct cli_net_ask *st);
void cli_net_ask_close(struct cli_net_ask *st);

#endif
