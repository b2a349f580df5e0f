/* SPDX-License-Identifier: MIT */
/*
 * The sweep of the host's bound sockets (R29, host/ipc.c) lists only sockets that are there:
 * /proc/net/unix also names a socket unlinked after bind, or bound in another mount namespace
 * sharing the network namespace.  Such a path, counted as an endpoint at launch, hid from the
 * post-run sweep the socket another process bound there while the command ran (otherproc.t
 * failed so when its two backend passes ran in parallel).  Outside /tmp, which the sweep
 * leaves out: a directory under /var/tmp.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "host/ipc.h"
#include "../tap.h"

/* A listening socket bound at path; -1 on failure. */
static int listen_at(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(a.sun_path))
		return -1;
	strcpy(a.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 1) < 0)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Whether path is in /proc/net/unix (a line ending with " path"). */
static bool listed(const char *path)
{
	FILE *f = fopen("/proc/net/unix", "r");
	char line[4608];
	bool found = false;
	size_t pl = strlen(path);
	while (f && !found && fgets(line, sizeof(line), f)) {
		size_t l = strcspn(line, "\n");
		found = l > pl && line[l - pl - 1] == ' ' && !memcmp(line + l - pl, path, pl);
	}
	if (f)
		fclose(f);
	return found;
}

/* Whether one sweep lists path. */
static bool swept(const char *path)
{
	struct cf_strv out = {0};
	struct confine_error err = {0};
	bool found = cf_host_ipc_endpoints("/nonexistent-workspace", NULL, &out, &err) == 0 &&
		     cf_strv_contains(&out, path);
	cf_strv_release(&out);
	return found;
}

int main(void)
{
	char dir[] = "/var/tmp/confine-ipcsweep.XXXXXX", live[64], gone[64];
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char *real = realpath(dir, NULL);
	snprintf(live, sizeof(live), "%s/live.sock", real ? real : dir);
	snprintf(gone, sizeof(gone), "%s/gone.sock", real ? real : dir);
	free(real);

	int l = listen_at(live), g = listen_at(gone);
	TAP_OK(l >= 0 && g >= 0, "two sockets bound");
	TAP_OK(swept(live), "a bound socket is an endpoint (control)");
	TAP_OK(unlink(gone) == 0 && listed(gone), "unlinked, a socket is still in /proc/net/unix");
	TAP_OK(!swept(gone), "... but is no endpoint: nothing is there");
	/* Another process binds the path meanwhile: a new endpoint, and it is one. */
	int n = listen_at(gone);
	TAP_OK(n >= 0, "another socket bound at the path");
	TAP_OK(swept(gone), "... is an endpoint");
	TAP_OK(unlink(gone) == 0 && symlink(live, gone) == 0 && !swept(gone),
	       "a symlink at a listed path is no endpoint (its target is one)");

	close(l);
	close(g);
	close(n);
	unlink(live);
	unlink(gone);
	rmdir(dir);
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
