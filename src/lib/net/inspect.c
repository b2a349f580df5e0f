/* SPDX-License-Identifier: MIT */
/*
 * The inspected connections (see inspect.h).  Each is a thread with a small loop over two
 * non-blocking sockets.  TLS goes through memory BIOs: the loop alone reads and writes the
 * sockets, and OpenSSL only turns bytes into bytes, so the bytes the proxy read before the
 * handover (a ClientHello that did not wait for the 200) are fed like any others, and nothing
 * in OpenSSL ever blocks.
 *
 * Buffers that may hold a real value (the plaintext to the server, the filter's output) are
 * wiped as they are consumed and when freed.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>

#include "net/inspect.h"
#include "net/reqfilter.h"
#include "util/thread.h"

#define BUF_HIGH (256u * 1024)
#define HANDSHAKE_MS 30000
#define IDLE_MS (15 * 60 * 1000)
#define LINGER_MS 2000

struct cf_inspector {
	struct cf_secrets *s;
	struct cf_tls *tls;
	int stop_fd;
	pthread_mutex_t lock;
	pthread_cond_t idle;
	unsigned running;
	bool stopped;
};

/* A byte queue, wiped as it goes. */
struct q {
	char *p;
	size_t off, len, cap;
	bool oom;
};

static void q_add(struct q *q, const void *d, size_t n)
{
	if (!n || q->oom)
		return;
	if (q->len + n > q->cap) {
		if (q->off) {
			memmove(q->p, q->p + q->off, q->len - q->off);
			explicit_bzero(q->p + q->len - q->off, q->off);
			q->len -= q->off;
			q->off = 0;
		}
		if (q->len + n > q->cap) {
			size_t cap = q->cap ? q->cap : 16384;
			while (cap < q->len + n)
				cap *= 2;
			char *v = malloc(cap);
			if (!v) {
				q->oom = true;
				return;
			}
			if (q->len)
				memcpy(v, q->p, q->len);
			if (q->p) {
				explicit_bzero(q->p, q->cap);
				free(q->p);
			}
			q->p = v;
			q->cap = cap;
		}
	}
	memcpy(q->p + q->len, d, n);
	q->len += n;
}

static size_t q_size(const struct q *q)
{
	return q->len - q->off;
}

static void q_drop(struct q *q, size_t n)
{
	explicit_bzero(q->p + q->off, n);
	q->off += n;
	if (q->off == q->len)
		q->off = q->len = 0;
}

static void q_free(struct q *q)
{
	if (q->p) {
		explicit_bzero(q->p, q->cap);
		free(q->p);
	}
	memset(q, 0, sizeof(*q));
}

struct side {
	int fd;
	SSL *ssl;
	BIO *rbio, *wbio; /* the SSL's */
	bool handshook;
	struct q in;  /* bytes read from fd, not yet used */
	struct q out; /* bytes to send on fd */
	bool eof;     /* fd read 0 */
	bool shut;    /* writing shut down */
};

struct ic {
	struct cf_inspector *in;
	struct side c, u;
	char host[CF_HOST_MAX + 1];
	bool is_ip;
	struct cf_ip ip;
	uint16_t port;
	bool tunnel, decided, tls;
	struct cf_reqfilter f;
	struct q up;   /* plaintext for the server */
	struct q down; /* plaintext for the command */
	bool refused, failed;
	uint64_t deadline;
};

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static bool transient(int e)
{
	return e == EAGAIN || e == EWOULDBLOCK || e == EINTR;
}

/* Socket I/O of one side: 1 moved, 0 nothing, -1 broken. */
static int side_send(struct side *s)
{
	int moved = 0;
	while (q_size(&s->out)) {
		ssize_t k = send(s->fd, s->out.p + s->out.off, q_size(&s->out),
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (k > 0) {
			q_drop(&s->out, (size_t)k);
			moved = 1;
			continue;
		}
		if (k < 0 && transient(errno))
			break;
		return -1;
	}
	return moved;
}

static int side_recv(struct side *s)
{
	if (s->eof || q_size(&s->in) >= BUF_HIGH)
		return 0;
	char buf[16384];
	ssize_t k = recv(s->fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (k > 0) {
		q_add(&s->in, buf, (size_t)k);
		return 1;
	}
	if (k < 0 && transient(errno))
		return 0;
	s->eof = true;
	return 1;
}

/* The TLS records OpenSSL produced go to the socket's queue. */
static void drain_wbio(struct side *s)
{
	char buf[16384];
	int k;
	while (s->wbio && (k = BIO_read(s->wbio, buf, sizeof(buf))) > 0)
		q_add(&s->out, buf, (size_t)k);
}

static bool make_tls(struct ic *x)
{
	x->c.ssl = cf_tls_server(x->in->tls, x->host, x->is_ip);
	x->u.ssl = cf_tls_client(x->in->tls, x->host, x->is_ip);
	if (!x->c.ssl || !x->u.ssl)
		return false;
	struct side *sides[2] = {&x->c, &x->u};
	for (int i = 0; i < 2; i++) {
		struct side *s = sides[i];
		s->rbio = BIO_new(BIO_s_mem());
		s->wbio = BIO_new(BIO_s_mem());
		if (!s->rbio || !s->wbio) {
			BIO_free(s->rbio);
			BIO_free(s->wbio);
			s->rbio = s->wbio = NULL;
			return false;
		}
		BIO_set_mem_eof_return(s->rbio, -1);
		SSL_set_bio(s->ssl, s->rbio, s->wbio);
	}
	return true;
}

/* An answer to the command in place of the server's: then the connection ends.  Once. */
static void refuse(struct ic *x, int status, const char *text)
{
	if (x->refused)
		return;
	struct cf_buf b;
	cf_buf_init(&b);
	cf_http_error(status, text, &b);
	q_free(&x->down);
	q_free(&x->up);
	if (!b.oom)
		q_add(&x->down, b.s, b.len);
	cf_buf_release(&b);
	x->refused = true;
	/* The server gets nothing more, and nothing more of it is read. */
	shutdown(x->u.fd, SHUT_RDWR);
	x->u.eof = x->u.shut = true;
	q_free(&x->u.out);
	x->deadline = now_ms() + LINGER_MS;
}

/* What the command sent, as plaintext, through the filter. */
static void from_command(struct ic *x, const char *p, size_t n)
{
	if (x->refused)
		return; /* lingering: what the command still sends is dropped */
	struct cf_buf out;
	cf_buf_init(&out);
	int r = cf_reqfilter_feed(&x->f, p, n, &out);
	if (!out.oom)
		q_add(&x->up, out.s, out.len);
	if (out.s)
		explicit_bzero(out.s, out.len);
	cf_buf_release(&out);
	if (r < 0)
		refuse(x, x->f.status, x->f.why);
}

/* The tunnel's first byte: 0x16 opens a TLS handshake. */
static void decide(struct ic *x)
{
	if (x->decided || !q_size(&x->c.in))
		return;
	x->decided = true;
	x->tls = x->in->tls && (unsigned char)x->c.in.p[x->c.in.off] == 0x16;
	cf_reqfilter_init(&x->f, x->in->s, x->host, x->is_ip, &x->ip, x->port, true, x->tls);
	if (x->tls && !make_tls(x)) {
		x->failed = true;
		return;
	}
	x->deadline = now_ms() + (x->tls ? HANDSHAKE_MS : IDLE_MS);
}

/* The client side of TLS: records in, plaintext out to the filter. */
static int tls_command(struct ic *x)
{
	int moved = 0;
	if (q_size(&x->c.in)) {
		int k = BIO_write(x->c.rbio, x->c.in.p + x->c.in.off, (int)q_size(&x->c.in));
		if (k > 0)
			q_drop(&x->c.in, (size_t)k);
	}
	char buf[16384];
	/* After a refusal the handshake still completes (the answer goes through it) and what
	 * the command sends is read and dropped. */
	for (int i = 0; i < 16 && q_size(&x->up) < BUF_HIGH; i++) {
		int k = SSL_read(x->c.ssl, buf, sizeof(buf));
		if (k > 0) {
			from_command(x, buf, (size_t)k);
			moved = 1;
			continue;
		}
		int e = SSL_get_error(x->c.ssl, k);
		if (e == SSL_ERROR_ZERO_RETURN)
			x->c.eof = true;
		else if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
			/* The command did not accept the run's CA, or spoke no TLS. */
			cf_secrets_record(x->in->s, "", x->host, x->port, "tls-refused",
					  "the command's TLS handshake", "");
			x->failed = true;
		}
		break;
	}
	if (!x->c.handshook && SSL_is_init_finished(x->c.ssl)) {
		x->c.handshook = true;
		const char *sni = SSL_get_servername(x->c.ssl, TLSEXT_NAMETYPE_host_name);
		if (sni && strcasecmp(sni, x->host)) {
			cf_secrets_record(x->in->s, "", x->host, x->port, "misdirected",
					  "TLS server name", "plain");
			refuse(x, 421,
			       "confine: request refused: the TLS server name is not the host the "
			       "tunnel was opened to\n");
		}
	}
	drain_wbio(&x->c);
	return moved;
}

/* The server side of TLS: plaintext in, records out; and the answers back. */
static int tls_server(struct ic *x)
{
	int moved = 0;
	if (q_size(&x->u.in)) {
		int k = BIO_write(x->u.rbio, x->u.in.p + x->u.in.off, (int)q_size(&x->u.in));
		if (k > 0)
			q_drop(&x->u.in, (size_t)k);
	}
	if (x->refused)
		goto to_command;
	if (!x->u.handshook) {
		int k = SSL_do_handshake(x->u.ssl);
		if (k == 1) {
			x->u.handshook = true;
			moved = 1;
		} else {
			int e = SSL_get_error(x->u.ssl, k);
			if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
				char why[400], text[1024];
				cf_tls_why(x->u.ssl, k, why, sizeof(why));
				snprintf(
				    text, sizeof(text),
				    "confine: network request failed: '%s:%u': %s\nhint: confine "
				    "checks the server against the system's roots (SSL_CERT_FILE "
				    "of the caller)\n",
				    x->host, x->port, why);
				cf_secrets_record(x->in->s, "", x->host, x->port, "tls-failed",
						  "the server's TLS handshake", "");
				refuse(x, 502, text);
				goto to_command;
			}
		}
	}
	while (x->u.handshook && q_size(&x->up)) {
		int k = SSL_write(x->u.ssl, x->up.p + x->up.off, (int)q_size(&x->up));
		if (k <= 0)
			break;
		q_drop(&x->up, (size_t)k);
		moved = 1;
	}
	char buf[16384];
	for (int i = 0; x->u.handshook && i < 16 && q_size(&x->down) < BUF_HIGH; i++) {
		int k = SSL_read(x->u.ssl, buf, sizeof(buf));
		if (k > 0) {
			q_add(&x->down, buf, (size_t)k);
			moved = 1;
			continue;
		}
		int e = SSL_get_error(x->u.ssl, k);
		if (e == SSL_ERROR_ZERO_RETURN)
			x->u.eof = true;
		else if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE)
			x->failed = true;
		break;
	}
	drain_wbio(&x->u);
to_command:
	/* The server's answers (or confine's) to the command, once its handshake is done. */
	while (x->c.handshook && q_size(&x->down)) {
		int k = SSL_write(x->c.ssl, x->down.p + x->down.off, (int)q_size(&x->down));
		if (k <= 0)
			break;
		q_drop(&x->down, (size_t)k);
		moved = 1;
	}
	drain_wbio(&x->c);
	return moved;
}

/* Plaintext both ways. */
static int plain(struct ic *x)
{
	int moved = 0;
	if (q_size(&x->c.in) && !x->refused && q_size(&x->up) < BUF_HIGH) {
		size_t n = q_size(&x->c.in);
		from_command(x, x->c.in.p + x->c.in.off, n);
		if (!x->refused)
			q_drop(&x->c.in, n);
		moved = 1;
	}
	if (q_size(&x->up)) {
		q_add(&x->u.out, x->up.p + x->up.off, q_size(&x->up));
		q_drop(&x->up, q_size(&x->up));
		moved = 1;
	}
	if (q_size(&x->u.in)) {
		q_add(&x->down, x->u.in.p + x->u.in.off, q_size(&x->u.in));
		q_drop(&x->u.in, q_size(&x->u.in));
		moved = 1;
	}
	if (q_size(&x->down)) {
		q_add(&x->c.out, x->down.p + x->down.off, q_size(&x->down));
		q_drop(&x->down, q_size(&x->down));
		moved = 1;
	}
	return moved;
}

/* A side whose peer ended: once everything for the other side is out, that side's writing is
 * shut down (TLS: close_notify first). */
static void half_close(struct ic *x)
{
	bool c_done = x->c.eof && !q_size(&x->c.in) && !q_size(&x->up);
	if (c_done && !x->u.shut && !q_size(&x->u.out)) {
		if (x->u.ssl && x->u.handshook) {
			SSL_shutdown(x->u.ssl);
			drain_wbio(&x->u);
		}
		if (!q_size(&x->u.out)) {
			shutdown(x->u.fd, SHUT_WR);
			x->u.shut = true;
		}
	}
	bool u_done = x->u.eof && !q_size(&x->u.in) && !q_size(&x->down);
	if ((u_done || x->refused) && !q_size(&x->down) && !x->c.shut && !q_size(&x->c.out)) {
		if (x->c.ssl && x->c.handshook) {
			SSL_shutdown(x->c.ssl);
			drain_wbio(&x->c);
		}
		if (!q_size(&x->c.out)) {
			shutdown(x->c.fd, SHUT_WR);
			x->c.shut = true;
		}
	}
}

static bool finished(const struct ic *x)
{
	if (x->failed || x->c.out.oom || x->u.out.oom || x->up.oom || x->down.oom)
		return true;
	if (x->refused)
		return x->c.shut && (x->c.eof || now_ms() >= x->deadline);
	return x->c.shut && x->u.shut && x->c.eof && x->u.eof;
}

/* One round: 1 when something moved, 0 when nothing, -1 when the connection is over. */
static int step(struct ic *x)
{
	int moved = 0, r;
	if ((r = side_recv(&x->c)) < 0)
		return -1;
	moved |= r;
	if (x->refused) {
		/* Lingering: what the command still sends is dropped (through TLS, once read). */
		if (!x->tls)
			q_drop(&x->c.in, q_size(&x->c.in));
	} else if ((r = side_recv(&x->u)) < 0) {
		return -1;
	} else {
		moved |= r;
	}
	if (x->tunnel)
		decide(x);
	if (x->decided && x->tls)
		moved |= tls_command(x) | tls_server(x);
	else if (x->decided)
		moved |= plain(x);
	if ((r = side_send(&x->c)) < 0)
		return -1;
	moved |= r;
	if (!x->refused) {
		if ((r = side_send(&x->u)) < 0)
			return -1;
		moved |= r;
	}
	half_close(x);
	/* Idle time counts once the handshakes are done; before, the handshake's bound. */
	bool ready = !x->tls || (x->c.handshook && x->u.handshook);
	if (moved && !x->refused && x->decided && ready)
		x->deadline = now_ms() + IDLE_MS;
	return finished(x) ? -1 : moved;
}

static void run(struct ic *x)
{
	while (step(x) >= 0) {
		uint64_t now = now_ms();
		if (now >= x->deadline)
			break;
		struct pollfd p[3] = {{.fd = x->c.fd}, {.fd = x->u.fd}, {.fd = x->in->stop_fd}};
		p[0].events = (short)((!x->c.eof && q_size(&x->c.in) < BUF_HIGH ? POLLIN : 0) |
				      (q_size(&x->c.out) ? POLLOUT : 0));
		p[1].events = (short)((!x->u.eof && q_size(&x->u.in) < BUF_HIGH ? POLLIN : 0) |
				      (q_size(&x->u.out) ? POLLOUT : 0));
		p[2].events = POLLIN;
		if (x->u.shut && x->u.eof)
			p[1].fd = -1;
		int tmo = (int)(x->deadline - now);
		int n = poll(p, 3, tmo);
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && p[2].revents) {
			/* The run ends: what the command sent last is still looked at (and
			 * recorded), then the connection goes. */
			step(x);
			break;
		}
		if (n > 0 && ((p[0].revents & (POLLERR | POLLNVAL)) ||
			      (p[1].fd >= 0 && (p[1].revents & (POLLERR | POLLNVAL))))) {
			/* What came before the error (a TLS alert before a reset) is still read
			 * and recorded. */
			step(x);
			break;
		}
	}
}

static void ic_free(struct ic *x)
{
	SSL_free(x->c.ssl); /* and its BIOs */
	SSL_free(x->u.ssl);
	close(x->c.fd);
	close(x->u.fd);
	q_free(&x->c.in);
	q_free(&x->c.out);
	q_free(&x->u.in);
	q_free(&x->u.out);
	q_free(&x->up);
	q_free(&x->down);
	cf_reqfilter_release(&x->f);
	ERR_clear_error();
	free(x);
}

static void *thread(void *arg)
{
	struct ic *x = arg;
	struct cf_inspector *in = x->in;
	run(x);
	ic_free(x);
	pthread_mutex_lock(&in->lock);
	if (--in->running == 0)
		pthread_cond_broadcast(&in->idle);
	pthread_mutex_unlock(&in->lock);
	/* OpenSSL's state of this thread. */
	OPENSSL_thread_stop();
	return NULL;
}

int cf_inspector_new(struct cf_secrets *s, struct cf_tls *tls, struct cf_inspector **out,
		     struct confine_error *err)
{
	struct cf_inspector *in = calloc(1, sizeof(*in));
	*out = NULL;
	if (!in)
		return cf_nomem(err);
	in->s = s;
	in->tls = tls;
	in->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (in->stop_fd < 0) {
		int e = errno;
		free(in);
		return cf_err_os(err, CONFINE_E_OS, "cannot start the network proxy", "eventfd",
				 "eventfd", e);
	}
	pthread_mutex_init(&in->lock, NULL);
	pthread_cond_init(&in->idle, NULL);
	*out = in;
	return 0;
}

static struct ic *ic_new(struct cf_inspector *in, const struct cf_inspect_conn *c)
{
	struct ic *x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->in = in;
	x->c.fd = c->cfd;
	x->u.fd = c->ufd;
	snprintf(x->host, sizeof(x->host), "%s", c->host);
	x->is_ip = c->is_ip;
	x->ip = c->ip;
	x->port = c->port;
	x->tunnel = c->tunnel;
	x->deadline = now_ms() + HANDSHAKE_MS;
	q_add(&x->u.in, c->server_early, c->server_early_len);
	if (c->tunnel) {
		q_add(&x->c.out, c->reply, c->reply_len);
		q_add(&x->c.in, c->early, c->early_len);
	} else {
		/* Plain HTTP: the proxy's forwarded head, then what came after it. */
		x->decided = true;
		cf_reqfilter_init(&x->f, in->s, x->host, x->is_ip, &x->ip, x->port, false, false);
		q_add(&x->c.in, c->head, c->head_len);
		q_add(&x->c.in, c->early, c->early_len);
		x->deadline = now_ms() + IDLE_MS;
	}
	return x;
}

bool cf_inspector_take(struct cf_inspector *in, const struct cf_inspect_conn *c)
{
	pthread_mutex_lock(&in->lock);
	bool room = !in->stopped && in->running < CF_INSPECT_MAX;
	if (room)
		in->running++;
	pthread_mutex_unlock(&in->lock);
	if (!room)
		return false;
	struct ic *x = ic_new(in, c);
	bool ok = x && cf_thread_start(NULL, 512 * 1024, true, thread, x) == 0;
	if (!ok) {
		if (x) {
			/* The descriptors stay the caller's. */
			x->c.fd = x->u.fd = -1;
			q_free(&x->c.in);
			q_free(&x->c.out);
			cf_reqfilter_release(&x->f);
			free(x);
		}
		pthread_mutex_lock(&in->lock);
		if (--in->running == 0)
			pthread_cond_broadcast(&in->idle);
		pthread_mutex_unlock(&in->lock);
	}
	return ok;
}

void cf_inspector_stop(struct cf_inspector *in)
{
	if (!in)
		return;
	uint64_t one = 1;
	ssize_t k = write(in->stop_fd, &one, sizeof(one));
	(void)k;
	pthread_mutex_lock(&in->lock);
	in->stopped = true;
	while (in->running)
		pthread_cond_wait(&in->idle, &in->lock);
	pthread_mutex_unlock(&in->lock);
}

void cf_inspector_free(struct cf_inspector *in)
{
	if (!in)
		return;
	cf_inspector_stop(in);
	close(in->stop_fd);
	pthread_cond_destroy(&in->idle);
	pthread_mutex_destroy(&in->lock);
	free(in);
}
