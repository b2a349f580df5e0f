/* SPDX-License-Identifier: MIT */
/*
 * The macOS executor (SPEC 9): internal interface between its files.  Compiled only on Apple
 * systems (src/lib/meson.build).  NEVER COMPILED OR RUN BY CI: the pure compiler it runs
 * (plan/macos) is tested on Linux, this layer is not.
 */
#ifndef CONFINE_EXEC_MACOS_H
#define CONFINE_EXEC_MACOS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "confine.h"

/*
 * Starts `path` with argv and envp in a new session (no controlling terminal: TIOCSTI reaches
 * only a controlling terminal on macOS), in `cwd`, with every descriptor but 0, 1 and 2 closed
 * (POSIX_SPAWN_CLOEXEC_DEFAULT), default signal dispositions and an empty signal mask.
 * Returns 0 and the pid, or CONFINE_E_SPAWN (CONFINE_E_NOTFOUND, CONFINE_E_NOEXEC) with err.
 */
int cf_mac_spawn(const char *path, char *const argv[], char *const envp[], const char *cwd,
		 pid_t *pid, struct confine_error *err);

/*
 * Waits for `pid` to end, at most `timeout_ms` (0: no limit).  Returns 1 with the wait status
 * in *wstatus when it ended, 0 when the time ran out (the process is still running), -1 on an
 * error other than EINTR.  `stop` (may be NULL) is polled after each signal: when it is set
 * the wait returns 0 early.  Reaps the process when it returns 1.
 */
int cf_mac_wait(pid_t pid, uint64_t timeout_ms, volatile int *stop, int *wstatus);

/* Runs /usr/bin/true under `profile` (probe.c): 0 when sandbox-exec accepted the profile and
 * true ran; else its status, -1 on a spawn error, -2 on a timeout. */
int cf_mac_profile_applies(const char *profile);

/* The R3 exit status of a wait status: the code, or 128+N for a signal N. */
int cf_mac_exit_status(int wstatus);

#endif
