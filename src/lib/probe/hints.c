/* SPDX-License-Identifier: MIT */
/* Remedies for the probe's failures. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "probe/hints.h"
#include "util/util.h"

/* Reads a small file into buf (NUL-terminated); returns its length or -1. */
ssize_t cf_read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	size_t len = 0;
	while (len + 1 < cap) {
		ssize_t n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

/* ---------------------------------------------------------------------------------------- */
/* Host facts around the backend.                                                           */

/* True when the whitespace-separated list `ids` contains `id`. */
static bool id_listed(const char *ids, const char *id)
{
	size_t n = strlen(id);
	for (const char *p = ids; *p;) {
		while (*p == ' ')
			p++;
		const char *s = p;
		while (*p && *p != ' ')
			p++;
		if ((size_t)(p - s) == n && !strncmp(s, id, n))
			return true;
	}
	return false;
}

/* Value of KEY= in os-release text, quotes removed, into out. */
static void os_release_value(const char *text, const char *key, char *out, size_t cap)
{
	size_t kl = strlen(key);
	out[0] = '\0';
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line += !!line) {
		if (strncmp(line, key, kl) != 0 || line[kl] != '=')
			continue;
		const char *v = line + kl + 1;
		size_t n = strcspn(v, "\n");
		if (n && (v[0] == '"' || v[0] == '\'')) {
			v++;
			n = n >= 2 ? n - 2 : 0;
		}
		if (n >= cap)
			n = cap - 1;
		memcpy(out, v, n);
		out[n] = '\0';
		return;
	}
}

/* The distribution's install line for bubblewrap, from /etc/os-release ID and ID_LIKE. */
void cf_install_line(char *out, size_t cap)
{
	static const struct {
		const char *ids;
		const char *cmd;
	} table[] = {
	    {"debian ubuntu", "apt-get install bubblewrap"},
	    {"fedora rhel centos rocky almalinux", "dnf install bubblewrap"},
	    {"arch manjaro endeavouros", "pacman -S bubblewrap"},
	    {"alpine", "apk add bubblewrap"},
	    {"opensuse opensuse-leap opensuse-tumbleweed suse sles", "zypper install bubblewrap"},
	    {"void", "xbps-install -S bubblewrap"},
	};
	char text[4096], id[64], like[256];
	if (cf_read_small("/etc/os-release", text, sizeof(text)) < 0 &&
	    cf_read_small("/usr/lib/os-release", text, sizeof(text)) < 0)
		text[0] = '\0';
	os_release_value(text, "ID", id, sizeof(id));
	os_release_value(text, "ID_LIKE", like, sizeof(like));
	const char *sudo = geteuid() == 0 ? "" : "sudo ";
	if (!strcmp(id, "nixos")) {
		snprintf(out, cap, "nix profile install nixpkgs#bubblewrap");
		return;
	}
	/* ID first, then each ID_LIKE word in order: the closest relative decides. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
			bool hit = pass == 0 ? id[0] && id_listed(table[i].ids, id) : false;
			for (const char *p = like; pass == 1 && *p && !hit;) {
				char word[64];
				size_t n = strcspn(p, " ");
				if (n && n < sizeof(word)) {
					memcpy(word, p, n);
					word[n] = '\0';
					hit = id_listed(table[i].ids, word);
				}
				p += n;
				p += strspn(p, " ");
			}
			if (hit) {
				snprintf(out, cap, "%s%s", sudo, table[i].cmd);
				return;
			}
		}
	}
	snprintf(out, cap,
		 "use your package manager, or build it from "
		 "https://github.com/containers/bubblewrap");
}

/* "install bubblewrap 0.8.0 or newer: <the distribution's command>". */
void cf_hint_install(char *out, size_t cap, const int min_version[3])
{
	char line[256];
	cf_install_line(line, sizeof(line));
	snprintf(out, cap, "install bubblewrap %d.%d.%d or newer: %s", min_version[0],
		 min_version[1], min_version[2], line);
}

/*
 * Ubuntu 23.10+ (kernel.apparmor_restrict_unprivileged_userns=1): confine's own profile is the
 * remedy (dist/apparmor/confine.in, installed by `make install`), which allows 'userns' to the
 * installed confine only; the sysctl, which lifts the restriction for every program, second.
 */
void cf_hint_apparmor(char *out, size_t cap, const char *profile, bool profile_exists,
		      const char *installed, bool running_installed)
{
	if (!profile_exists)
		snprintf(
		    out, cap,
		    "AppArmor restricts unprivileged user namespaces "
		    "(kernel.apparmor_restrict_unprivileged_userns=1): install confine with "
		    "'sudo make install', which puts its AppArmor profile into %s and loads it "
		    "(it allows 'userns' to %s only), then run %s; or, for every program, "
		    "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
		    profile, installed, installed);
	else if (!running_installed)
		snprintf(out, cap,
			 "AppArmor restricts unprivileged user namespaces "
			 "(kernel.apparmor_restrict_unprivileged_userns=1); confine's profile %s "
			 "allows 'userns' to %s only: run that one (this is another copy); or "
			 "load the profile if it is not: sudo apparmor_parser -r %s",
			 profile, installed, profile);
	else
		snprintf(
		    out, cap,
		    "AppArmor restricts unprivileged user namespaces "
		    "(kernel.apparmor_restrict_unprivileged_userns=1) and confine's profile is "
		    "not in force: load it with 'sudo apparmor_parser -r %s' (it needs AppArmor "
		    "4.0 for its 'userns' rule); or, for every program, sudo sysctl -w "
		    "kernel.apparmor_restrict_unprivileged_userns=0",
		    profile);
}

/* The remedy when the kernel refuses an unprivileged user namespace. */
void cf_hint_userns(char *out, size_t cap)
{
	char v[32];
	if (cf_read_small("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", v, sizeof(v)) >
		0 &&
	    v[0] == '1') {
		char self[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		self[n > 0 ? n : 0] = '\0';
		cf_hint_apparmor(out, cap, CONFINE_APPARMOR_PROFILE,
				 access(CONFINE_APPARMOR_PROFILE, F_OK) == 0, CONFINE_INSTALLED_BIN,
				 !strcmp(self, CONFINE_INSTALLED_BIN));
		return;
	}
	if (cf_read_small("/proc/sys/kernel/unprivileged_userns_clone", v, sizeof(v)) > 0 &&
	    v[0] == '0') {
		snprintf(out, cap, "sysctl -w kernel.unprivileged_userns_clone=1");
		return;
	}
	if (cf_read_small("/proc/sys/user/max_user_namespaces", v, sizeof(v)) > 0 && atol(v) == 0) {
		snprintf(out, cap, "sysctl -w user.max_user_namespaces=15000");
		return;
	}
	snprintf(out, cap,
		 "user namespaces are refused to this user; in a container, allow "
		 "unshare(CLONE_NEWUSER) in its seccomp profile or run confine on the host");
}
