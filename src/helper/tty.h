/* SPDX-License-Identifier: MIT */
/* confine-init's half of the command's own terminal (R41; exec/linux/pty.h has confine's). */
#ifndef CONFINE_HELPER_TTY_H
#define CONFINE_HELPER_TTY_H

/* Opens a pty of the sandbox's devpts instance (/dev/ptmx inside: bwrap --dev mounts a new
 * one), sends its master to confine on `chan`, and returns its slave (close-on-exec), or -1
 * with errno.  Before the command exists. */
int cf_helper_pty_open(int chan);

/* In the command's process, before exec: a session of its own whose controlling terminal is
 * the slave, and the slave on the descriptors 0-2 of `mask` (bit N: descriptor N).  0, or -1
 * with errno. */
int cf_helper_pty_attach(int slave, unsigned mask);

#endif
