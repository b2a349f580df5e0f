/* SPDX-License-Identifier: MIT */
/*
 * Live asks on the terminal (R43): `confine run` with a terminal on stdin and stderr asks on
 * /dev/tty about a host no rule names, while the connection waits, and the library's proxy
 * acts on the answer: allow once, allow for the rest of the run, or deny.  Without a terminal
 * (or with --no-net-ask) nobody is asked and such a host is denied, as before.  The question
 * is shown for at most CLI_ASK_MS, a little less than the library's bound, so that the answer
 * always arrives in time; no answer is deny, and so is a question while confine is not in the
 * terminal's foreground.  What the question shows is the host as the proxy
 * normalised it (letters, digits, '-', '_', '.', ':' only) and a port: nothing the command can
 * use to draw on the terminal.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "net_ask.h"

#define CLI_ASK_MS (CONFINE_NET_ASK_TIMEOUT_MS - 5000)

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void say(int fd, const char *s)
{
	size_t n = strlen(s);
	while (n) {
		ssize_t k = write(fd, s, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return;
		s += k;
		n -= (size_t)k;
	}
}

/* One line from the terminal within the deadline; "" when none came. */
static void read_line(int fd, int64_t deadline, char *line, size_t cap)
{
	size_t n = 0;
	line[0] = '\0';
	while (n + 1 < cap) {
		int64_t left = deadline - now_ms();
		if (left <= 0)
			break;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int k = poll(&p, 1, (int)left);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		char c;
		ssize_t r = read(fd, &c, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || c == '\n')
			break;
		line[n++] = c;
	}
	line[n] = '\0';
}

static enum confine_net_answer tty_ask(const struct confine_net_ask *q, void *user)
{
	int fd = *(const int *)user;
	/* Only a confine in the terminal's foreground asks: in the background nobody would see
	 * the question (and a read would stop it, SIGTTIN). */
	if (tcgetpgrp(fd) != getpgrp())
		return CONFINE_NET_ANSWER_DENY;
	bool v6 = strchr(q->host, ':') != NULL;
	char text[512], line[64];
	snprintf(text, sizeof(text),
		 "\nconfine: the command wants to connect to '%s%s%s:%u' (%s), which no rule "
		 "names.\n  [o]nce: allow this connection, [r]un: allow it for the rest of this "
		 "run, [d]eny (no answer within %d seconds: deny)? ",
		 v6 ? "[" : "", q->host, v6 ? "]" : "", q->port, q->protocol, CLI_ASK_MS / 1000);
	say(fd, text);
	read_line(fd, now_ms() + CLI_ASK_MS, line, sizeof(line));
	const char *s = line + strspn(line, " \t");
	enum confine_net_answer a = (s[0] == 'o' || s[0] == 'O')   ? CONFINE_NET_ANSWER_ONCE
				    : (s[0] == 'r' || s[0] == 'R') ? CONFINE_NET_ANSWER_RUN
								   : CONFINE_NET_ANSWER_DENY;
	say(fd, a == CONFINE_NET_ANSWER_ONCE  ? "confine: allowed once\n"
		: a == CONFINE_NET_ANSWER_RUN ? "confine: allowed for this run\n"
					      : "confine: denied\n");
	return a;
}

void cli_net_ask_setup(confine_request *req, bool off, struct cli_net_ask *st)
{
	st->fd = -1;
	if (off || !isatty(0) || !isatty(2))
		return;
	st->fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	/* A request the CLI made is never NULL: the setter cannot refuse it. */
	if (st->fd >= 0)
		confine_request_set_net_ask(req, tty_ask, &st->fd, NULL);
}

void cli_net_ask_close(struct cli_net_ask *st)
{
	if (st->fd >= 0)
		close(st->fd);
	st->fd = -1;
}
