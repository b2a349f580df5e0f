/* SPDX-License-Identifier: MIT */
/* Where the ssh-agent filter's socket is (R44): shared by the plan and the agent.  Pure. */
#ifndef CONFINE_AGENT_CONST_H
#define CONFINE_AGENT_CONST_H

/* The directory inside the bwrap sandbox where the agent's directory is bound read-only. */
#define CF_AGENT_DIR "/dev/.confine-agent"
#define CF_AGENT_SOCK "agent.sock"

#endif
