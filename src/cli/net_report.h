/* SPDX-License-Identifier: MIT */
/* The network-by-domain proxy's decisions in `confine run`'s output (SPEC 12). */
#ifndef CONFINE_CLI_NET_REPORT_H
#define CONFINE_CLI_NET_REPORT_H

#include "confine.h"

/* After the run, on stderr: each refused host once, with the reason and how often. */
void cli_net_warnings(const confine_run *run);

#endif
