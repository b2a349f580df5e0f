/* SPDX-License-Identifier: MIT */
/*
 * R43 live asks through the public library only (confine.h), the way an agent host uses them:
 * a sandboxed command reaches names no rule names, and the host's asker, called on a thread of
 * the library's, answers once, for the run, and no; every answer is in the run's network
 * events.  Both ways a client reaches the network are asked: through the proxy variables (curl)
 * and by name without a proxy (curl --noproxy, through the resolver inside).  The names resolve
 * on the host through the test resolver (tests/tools/testresolve.c, linked into this program: a
 * hosts file, never DNS) to a server of this test on 127.0.0.5, which a rule allows by address.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../unit/tap.h"
#include "confine.h"
#include "request.h"

static pthread_t main_thread;

/* ---- an HTTP server on 127.0.0.5: "hello" to every request ------------------------------- */

static void *serve(void *arg)
{
	int l = (int)(intptr_t)arg;
	for (;;) {
		int fd = accept(l, NULL, NULL);
		if (fd < 0)
			continue;
		char buf[4096];
		size_t n = 0;
		while (n < sizeof(buf) - 1) {
			ssize_t k = recv(fd, buf + n, sizeof(buf) - 1 - n, 0);
			if (k <= 0)
				break;
			n += (size_t)k;
			buf[n] = '\0';
			if (strstr(buf, "\r\n\r\n"))
				break;
		}
		static const char ok[] =
		    "HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\nhello\n";
		send(fd, ok, sizeof(ok) - 1, MSG_NOSIGNAL);
		close(fd);
	}
	return NULL;
}

static int server(void)
{
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	struct sockaddr_in a = {.sin_family = AF_INET};
	inet_pton(AF_INET, "127.0.0.5", &a.sin_addr);
	socklen_t al = sizeof(a);
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 64) < 0 ||
	    getsockname(l, (struct sockaddr *)&a, &al) < 0)
		return -1;
	pthread_t t;
	pthread_create(&t, NULL, serve, (void *)(intptr_t)l);
	pthread_detach(t);
	return ntohs(a.sin_port);
}

/* ---- the asker ---------------------------------------------------------------------------- */

struct asker_state {
	pthread_mutex_t lock;
	int questions;
	char asked[16][300]; /* "host:port protocol" */
	bool off_main;	     /* every call came on another thread than the caller's */
};

static enum confine_net_answer asker(const struct confine_net_ask *q, void *user)
{
	struct asker_state *s = user;
	pthread_mutex_lock(&s->lock);
	if (s->questions < 16)
		snprintf(s->asked[s->questions], sizeof(s->asked[0]), "%s %s", q->host,
			 q->protocol);
	s->questions++;
	s->off_main = s->off_main && !pthread_equal(pthread_self(), main_thread);
	pthread_mutex_unlock(&s->lock);
	if (!strncmp(q->host, "once", 4))
		return CONFINE_NET_ANSWER_ONCE;
	if (!strncmp(q->host, "run", 3))
		return CONFINE_NET_ANSWER_RUN;
	return CONFINE_NET_ANSWER_DENY;
}

static int times_asked(struct asker_state *s, const char *what)
{
	int n = 0;
	for (int i = 0; i < s->questions && i < 16; i++)
		n += !strcmp(s->asked[i], what);
	return n;
}

/* The answer and outcome of the nth event for host and protocol: "ANSWER OUTCOME". */
static const char *event(const confine_run *r, const char *host, const char *proto, int nth)
{
	static char buf[64];
	const struct confine_net_event *e;
	for (size_t i = 0; (e = confine_run_net_event(r, i)); i++) {
		if (strcmp(e->decision->host, host) || strcmp(e->protocol, proto) || nth--)
			continue;
		snprintf(buf, sizeof(buf), "%s %s %s",
			 e->decision->action == CONFINE_ASK ? "ask" : "?", e->answer, e->outcome);
		return buf;
	}
	return "none";
}

int main(void)
{
	main_thread = pthread_self();
	if (access("/usr/bin/bwrap", X_OK) || access("/usr/bin/curl", X_OK)) {
		TAP_SKIP(
		    "bwrap or curl is not installed (scripts/install-deps test installs them)");
		return tap_done();
	}
	char tmpl[] = "/var/tmp/confine-api-ask.XXXXXX";
	char *top = mkdtemp(tmpl);
	int port = server();
	TAP_OK(top && port > 0, "a scratch directory and a server on 127.0.0.5");
	if (!top || port <= 0)
		return tap_done();
	char home[512], ws[600], hosts[600], out[700], cmd[4096], home_env[600];
	snprintf(home, sizeof(home), "%s/home", top);
	snprintf(ws, sizeof(ws), "%s/home/proj", top);
	snprintf(hosts, sizeof(hosts), "%s/hosts", top);
	snprintf(out, sizeof(out), "%s/out.txt", ws);
	mkdir(home, 0755);
	mkdir(ws, 0755);
	FILE *f = fopen(hosts, "w");
	if (f) {
		fputs("127.0.0.5 once.test run.test no.test\n", f);
		fclose(f);
	}
	setenv("CONFINE_TEST_HOSTS", hosts, 1); /* the proxy's lookups, in this process */

	/* u: through the proxy variables; v: by name, without a proxy (the resolver inside). */
	snprintf(
	    cmd, sizeof(cmd),
	    "u() { echo \"$1 $(curl -s -o /dev/null -w %%{http_code} http://$1:%d/)\"; }; "
	    "v() { echo \"$1 $(curl -s --noproxy '*' -o /dev/null -w %%{http_code} "
	    "http://$1:%d/)\"; }; "
	    "{ u once.test; u run.test; u run.test; u no.test; v once.test; v run.test; } > '%s'",
	    port, port, out);
	const char *argv[] = {"/bin/sh", "-c", cmd};
	snprintf(home_env, sizeof(home_env), "HOME=%s", home);
	const char *env[] = {"PATH=/usr/bin:/bin", home_env, NULL};
	struct asker_state st = {.lock = PTHREAD_MUTEX_INITIALIZER, .off_main = true};
	struct confine_error err = {0};
	confine_request *req = NULL;
	confine_run *r = NULL;
	int status = -1;
	int rc = test_request(&req, 3, argv, ws, env, &err);
	if (rc == 0)
		rc = confine_request_set_backend(req, CONFINE_BACKEND_BWRAP, &err);
	/* The address is allowed; the names are not: each is asked about. */
	if (rc == 0)
		rc = confine_request_net_allow(req, "127.0.0.5", &err);
	if (rc == 0)
		rc = confine_request_set_net_ask(req, asker, &st, &err);
	if (rc == 0)
		rc = confine_run_prepare(req, &r, &err);
	if (rc == 0)
		rc = confine_run_start(r, &err);
	if (rc == 0)
		rc = confine_run_wait(r, &status, &err);
	TAP_OK(rc == 0 && status == 0, "the run (rc %d, status %d: %s %s)", rc, status, err.what,
	       err.reason);

	char got[1024] = "";
	f = fopen(out, "r");
	if (f) {
		size_t n = fread(got, 1, sizeof(got) - 1, f);
		got[n] = '\0';
		fclose(f);
	}
	TAP_STREQ(got,
		  "once.test 200\nrun.test 200\nrun.test 200\nno.test 403\nonce.test 200\n"
		  "run.test 200\n",
		  "once and run answered yes, no answered no: what the command saw");
	TAP_INTEQ(times_asked(&st, "once.test http"), 1, "once.test through the proxy: asked");
	TAP_INTEQ(times_asked(&st, "once.test tcp"), 1,
		  "once.test again, without a proxy: asked again (once is once)");
	TAP_INTEQ(times_asked(&st, "run.test http"), 1, "run.test: asked once for the whole run");
	TAP_INTEQ(times_asked(&st, "run.test tcp"), 0, "not even by another client");
	TAP_INTEQ(times_asked(&st, "no.test http"), 1, "no.test: asked");
	TAP_OK(st.off_main, "the asker was called on a thread of the library's, not the caller's");
	if (r) {
		TAP_STREQ(event(r, "once.test", "http", 0), "ask once connected",
			  "the events: once.test, answered once, connected");
		TAP_STREQ(event(r, "run.test", "http", 0), "ask run connected",
			  "run.test, answered for the run");
		TAP_STREQ(event(r, "run.test", "http", 1), "ask earlier connected",
			  "run.test again: allowed by the earlier answer");
		TAP_STREQ(event(r, "no.test", "http", 0), "ask deny denied",
			  "no.test: answered deny, denied");
		TAP_STREQ(event(r, "once.test", "tcp", 0), "ask once connected",
			  "once.test by name without a proxy: asked, connected");
		TAP_STREQ(event(r, "run.test", "tcp", 0), "ask earlier connected",
			  "run.test by name without a proxy: the earlier answer");
	}
	confine_run_free(r);
	confine_request_free(req);
	unlink(out);
	unlink(hosts);
	rmdir(ws);
	rmdir(home);
	rmdir(top);
	return tap_done();
}
