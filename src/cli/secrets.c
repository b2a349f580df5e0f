/* SPDX-License-Identifier: MIT */
/* The CLI's side of the ssh-agent filter and the credential placeholders (see secrets.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "secrets.h"

/* The first line of a public key file, at most 64 KiB. */
static int read_pub(const char *file, char *buf, size_t cap, struct confine_error *err)
{
	int fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		int e = fd < 0 ? errno : EINVAL;
		if (fd >= 0)
			close(fd);
		confine_error_set_os(err, CONFINE_E_INVALID, "cannot read --ssh-key", file,
				     fd < 0 ? "open" : "fstat", e);
		confine_error_hint(err, "give the public key file (KEY.pub) or its fingerprint "
					"('ssh-keygen -lf KEY.pub' prints it)");
		return CONFINE_E_INVALID;
	}
	size_t n = 0;
	while (n + 1 < cap) {
		ssize_t k = read(fd, buf + n, cap - 1 - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	return 0;
}

int cli_load_ssh_keys(struct cli_opts *o, struct confine_error *err)
{
	static char line[64 * 1024];
	for (size_t i = 0; i < o->n_ssh_keys; i++) {
		const char *v = o->ssh_keys[i];
		int r;
		if (!strncmp(v, "SHA256:", 7)) {
			r = confine_request_add_ssh_key(o->req, v, err);
		} else {
			if ((r = read_pub(v, line, sizeof(line), err)) < 0)
				return r;
			r = confine_request_add_ssh_key(o->req, line, err);
			if (r < 0)
				snprintf(err->subject, sizeof(err->subject), "%s", v);
		}
		if (r < 0)
			return r;
	}
	return 0;
}

#define MAX_LINES 10

static void agent_warnings(const confine_run *run)
{
	size_t n = confine_run_agent_event_count(run), shown = 0;
	size_t dropped = confine_run_agent_events_dropped(run);
	bool host_hint = false;
	for (size_t i = 0; i < n && shown < MAX_LINES; i++) {
		const struct confine_agent_event *e = confine_run_agent_event(run, i);
		if (!strcmp(e->outcome, "allowed") || !strcmp(e->request, "session-bind"))
			continue;
		fprintf(stderr, "confine: ssh-agent request %s: '%s%s%s': %s\n",
			cli_esc(e->outcome, 0), cli_q(e->request), e->key[0] ? " " : "",
			cli_q(e->key), cli_esc(e->detail, 0));
		host_hint |= e->host[0] != '\0';
		shown++;
	}
	if (host_hint)
		fprintf(stderr,
			"hint: confine signs for a session only when your known_hosts holds "
			"the server's host key for a host the network rules allow ('confine "
			"explain --net HOST:PORT'); the --report file lists every request\n");
	if (dropped)
		fprintf(stderr, "confine: ssh-agent: %zu more requests were not kept\n", dropped);
}

static void placeholder_warnings(const confine_run *run)
{
	size_t n = confine_run_secret_event_count(run), shown = 0;
	size_t dropped = confine_run_secret_events_dropped(run);
	for (size_t i = 0; i < n && shown < MAX_LINES; i++) {
		const struct confine_secret_event *e = confine_run_secret_event(run, i);
		if (!strcmp(e->outcome, "tls-refused") || !strcmp(e->outcome, "tls-failed") ||
		    !strcmp(e->outcome, "misdirected")) {
			bool client = !strcmp(e->outcome, "tls-refused");
			fprintf(stderr, "confine: inspected connection %s: '%s:%u': %s\n",
				!strcmp(e->outcome, "misdirected") ? "refused" : "failed", e->host,
				e->port,
				client ? "the command did not accept the run's TLS certificate"
				: !strcmp(e->outcome, "tls-failed")
				    ? "the server's certificate did not verify against your roots"
				    : "a request named another host than the connection's");
			fprintf(stderr, "hint: %s\n",
				client
				    ? "the command's TLS client must trust SSL_CERT_FILE (or the "
				      "other trust variables confine sets); a pinned client cannot "
				      "be inspected"
				: !strcmp(e->outcome, "tls-failed")
				    ? "confine verifies the server with your roots (SSL_CERT_FILE, "
				      "SSL_CERT_DIR, else the system's)"
				    : "send each host's requests on a connection of its own");
			shown++;
			continue;
		}
		if (strcmp(e->outcome, "refused"))
			continue;
		fprintf(stderr,
			"confine: secret sent elsewhere: '%s:%u': the placeholder of %s (%s, %s "
			"encoding) went to a host it is not for; the request was refused\n",
			e->host, e->port, e->name, e->where, e->encoding);
		fprintf(stderr, "hint: if %s may go to '%s', add the host to its --secret\n",
			e->name, e->host);
		shown++;
	}
	if (dropped)
		fprintf(stderr, "confine: secrets: %zu more placeholder events were not kept\n",
			dropped);
}

void cli_secret_warnings(const confine_run *run)
{
	agent_warnings(run);
	placeholder_warnings(run);
}
