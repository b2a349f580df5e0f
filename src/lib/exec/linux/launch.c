/* SPDX-License-Identifier: MIT */
/* What a Linux executor holds between its calls (launch.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/linux/launch.h"
#include "util/util.h"

void cf_launch_init(struct cf_launch *l)
{
	memset(l, 0, sizeof(*l));
	for (int i = 0; i < 3; i++)
		l->stdio[i] = -1;
	l->keeper_fd = l->agent_dir_fd = -1;
	l->status_fd = l->err_fd = l->info_fd = l->go_w = l->mounts_r = -1;
	l->wake_r = l->wake_w = -1;
	l->facts.pid = -1;
	l->facts.target_pidfd = -1;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void cf_launch_reset(struct cf_launch *l)
{
	int *fds[] = {&l->status_fd, &l->err_fd, &l->info_fd, &l->go_w, &l->mounts_r};
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		close_fd(fds[i]);
	l->n_rec = 0;
	l->ready = false;
	l->reaped = false;
	free(l->by_helper);
	l->by_helper = NULL;
}

void cf_launch_release(struct cf_launch *l)
{
	cf_launch_reset(l);
	close_fd(&l->wake_r);
	close_fd(&l->wake_w);
	if (l->facts.target_pidfd >= 0) /* volatile: the signal forwarder reads it */
		close(l->facts.target_pidfd);
	l->facts.target_pidfd = -1;
	free(l->facts.unsettled);
	l->facts.unsettled = NULL;
	free(l->facts.skip);
	l->facts.skip = NULL;
	free(l->facts.helper_failed);
	l->facts.helper_failed = NULL;
}

int cf_launch_begin(struct cf_launch *l, struct confine_error *err)
{
	clock_gettime(CLOCK_MONOTONIC, &l->start_time);
	/* A start after another (a failed one, or one already waited for): its pipe goes. */
	close_fd(&l->wake_r);
	close_fd(&l->wake_w);
	int wake[2];
	if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) < 0)
		return cf_err_os(err, CONFINE_E_OS, "cannot start", "confine", "pipe2", errno);
	l->wake_r = wake[0];
	l->wake_w = wake[1];
	return 0;
}
