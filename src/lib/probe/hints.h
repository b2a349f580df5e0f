/* SPDX-License-Identifier: MIT */
/* Remedies the probe names: the distribution's install line for bubblewrap and the sysctl
 * that lets unprivileged user namespaces run.  Touches the OS (reads /etc/os-release and
 * /proc/sys). */
#ifndef CONFINE_HINTS_H
#define CONFINE_HINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Reads a small file into buf (NUL-terminated); returns its length or -1. */
ssize_t cf_read_small(const char *path, char *buf, size_t cap);
/* The distribution's command that installs bubblewrap ("sudo apt-get install bubblewrap"). */
void cf_install_line(char *out, size_t cap);
/* "install bubblewrap 0.8.0 or newer: <that command>". */
void cf_hint_install(char *out, size_t cap, const int min_version[3]);
/* The remedy when user namespaces are refused. */
void cf_hint_userns(char *out, size_t cap);
/* The AppArmor case of cf_hint_userns, from its facts (pure): confine's profile path and
 * whether it exists, the installed confine it attaches to and whether that is the one
 * running. */
void cf_hint_apparmor(char *out, size_t cap, const char *profile, bool profile_exists,
		      const char *installed, bool running_installed);

#endif
