/* SPDX-License-Identifier: MIT */
/*
 * The relay between the user's terminal and the command's pty (R41; pty.h).  Two buffers, one
 * each way, filled only when empty and emptied only when poll says so, inside confine's wait
 * loop: no thread, no signal handler of the library's own.  The user's terminal is put in raw
 * mode only while confine is its foreground job, so that Ctrl-C, Ctrl-Z and the rest reach
 * the pty as bytes and its line discipline makes the signals for the command's foreground job;
 * a confine started in the background touches neither the terminal's mode nor its input until
 * it is brought to the foreground (SIGCONT).  The mode is restored with SIGTTOU blocked, so
 * that the restore goes through from the background as well.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "exec/linux/pty.h"
#include "util/fdpass.h"
#include "util/util.h"

#include "util/linux_abi.h"

/* The tag confine-init sends the master with (helper/tty.c). */
#define PTY_TAG 'P'
/* How long the last output may take to come once the command has ended, when a process left
 * behind (landlock without a cgroup) still holds the pty open. */
#define DRAIN_MS 2000

struct cf_pty {
	int master;    /* -1 until it is there */
	int chan;      /* bwrap: confine's end of the socket confine-init sends the master on */
	unsigned mask; /* the command's descriptors that are the pty */
	int in;	       /* what the user types comes from here (the command's 0), or -1 */
	int out;       /* the pty's output goes here (its 1, 2 or 0; -1: closed) */
	int term;      /* the user's terminal (window size, mode), or -1 */
	bool in_tty;   /* in is a terminal: raw mode and the foreground matter */
	bool background, in_eof, master_eof, out_gone;
	bool eof_only; /* the pty is the command's stdin, but nothing is read for it */
	volatile sig_atomic_t raw, winch, cont;
	struct termios saved; /* in's mode before raw mode */
	struct winsize ws;
	struct cf_denials *scan;
	/* R43's asker on another thread: while it asks (pause_req), the loop leaves the terminal
	 * to it (paused); ev wakes the loop. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int pause_req, ev[2];
	bool paused;
	confine_net_ask_fn ask_fn;
	void *ask_user;
	size_t to_off, to_len, from_off, from_len;
	char to_master[4096];
	char from_master[16384];
};

static bool valid_fd(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

int cf_pty_new(enum confine_tty mode, const int stdio[3], struct cf_denials *scan,
	       struct cf_pty **out, struct confine_error *err)
{
	unsigned ttys = 0;
	*out = NULL;
	for (int fd = 0; fd < 3; fd++)
		if (stdio[fd] >= 0 && isatty(stdio[fd]))
			ttys |= CF_PTY_FD(fd);
	if (mode == CONFINE_TTY_OFF || (mode != CONFINE_TTY_ON && !ttys))
		return 0;
	struct cf_pty *p = calloc(1, sizeof(*p));
	if (!p)
		return cf_nomem(err);
	p->master = p->chan = p->term = -1;
	if (pipe2(p->ev, O_CLOEXEC | O_NONBLOCK) < 0) {
		int e = errno;
		free(p);
		return cf_err_os(err, CONFINE_E_OS, "cannot give the command a terminal", "pty",
				 "pipe2", e);
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->mask = mode == CONFINE_TTY_ON ? CF_PTY_FD(0) | CF_PTY_FD(1) | CF_PTY_FD(2) : ttys;
	/* The user's keys are read only when the session is the command's: with stdout
	 * elsewhere (`confine run -- git log | less`) the next program of the pipeline reads the
	 * terminal, and confine must not take its keys; the command's input is then at its end. */
	bool interactive = mode == CONFINE_TTY_ON || (p->mask & CF_PTY_FD(1));
	p->in = p->mask & CF_PTY_FD(0) && interactive && valid_fd(stdio[0]) ? stdio[0] : -1;
	p->eof_only = p->mask & CF_PTY_FD(0) && p->in < 0;
	p->out = stdio[p->mask & CF_PTY_FD(1) ? 1 : p->mask & CF_PTY_FD(2) ? 2 : 0];
	p->out_gone = p->out < 0; /* closed: the output is dropped, as a write would fail */
	p->in_tty = p->in >= 0 && isatty(p->in);
	/* The window and the mode are the terminal's the user types on, else the first. */
	p->term = p->in_tty ? p->in : p->out >= 0 && isatty(p->out) ? p->out : -1;
	for (int fd = 0; fd < 3 && p->term < 0; fd++)
		if (ttys & CF_PTY_FD(fd))
			p->term = stdio[fd];
	p->scan = scan;
	*out = p;
	return 0;
}

unsigned cf_pty_mask(const struct cf_pty *p)
{
	return p ? p->mask : 0;
}

void cf_pty_restore(struct cf_pty *p)
{
	if (!p || !p->raw)
		return;
	sigset_t ttou, old;
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	pthread_sigmask(SIG_BLOCK, &ttou, &old);
	tcsetattr(p->in, TCSANOW, &p->saved);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	p->raw = 0;
}

/* Raw mode on the user's terminal, only while confine is its foreground job (a terminal that
 * is not confine's controlling one has no foreground job to be: it is relayed as is). */
static void enter_raw(struct cf_pty *p)
{
	if (!p->in_tty || p->in_eof)
		return;
	pid_t fg = tcgetpgrp(p->in);
	p->background = fg >= 0 && fg != getpgrp();
	if (p->background)
		return;
	/* Set again when raw already: a stop may have left the terminal in another mode. */
	struct termios t;
	if (!p->raw && tcgetattr(p->in, &p->saved) < 0)
		return;
	t = p->saved;
	cfmakeraw(&t);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(p->in, TCSADRAIN, &t) == 0)
		p->raw = 1;
}

static void resize(struct cf_pty *p)
{
	struct winsize ws;
	if (p->master < 0 || p->term < 0 || ioctl(p->term, TIOCGWINSZ, &ws) < 0)
		return;
	if (!memcmp(&ws, &p->ws, sizeof(ws)))
		return;
	/* On the master it is the slave's size: the kernel sends SIGWINCH to the foreground
	 * job of the pty. */
	if (ioctl(p->master, TIOCSWINSZ, &ws) == 0)
		p->ws = ws;
}

/* The pty's end-of-file character, as a person would type it, when the command reads lines:
 * its read returns 0. */
static void queue_eof(struct cf_pty *p)
{
	struct termios t;
	if (tcgetattr(p->master, &t) == 0 && (t.c_lflag & ICANON)) {
		p->to_master[0] = (char)t.c_cc[VEOF];
		p->to_off = 0;
		p->to_len = 1;
	}
}

/* The user's settings and window size on the pty before the command starts; 80x24 without a
 * terminal to copy from. */
static void setup(struct cf_pty *p)
{
	struct termios t;
	if (p->term >= 0 && tcgetattr(p->term, &t) == 0)
		tcsetattr(p->master, TCSANOW, &t);
	struct winsize ws = {.ws_row = 24, .ws_col = 80};
	if (p->term < 0 || ioctl(p->term, TIOCGWINSZ, &ws) < 0 || !ws.ws_row || !ws.ws_col)
		ws = (struct winsize){.ws_row = 24, .ws_col = 80};
	if (ioctl(p->master, TIOCSWINSZ, &ws) == 0)
		p->ws = ws;
	fcntl(p->master, F_SETFL, fcntl(p->master, F_GETFL) | O_NONBLOCK);
	if (p->eof_only)
		queue_eof(p);
	enter_raw(p);
}

int cf_pty_open_host(struct cf_pty *p, int *slave, struct confine_error *err)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), s = -1, e = errno;
	if (m >= 0 && unlockpt(m) == 0) {
		s = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (s < 0 && (errno == EINVAL || errno == ENOTTY)) {
			/* Before Linux 4.13: by its name, which nobody else can have taken yet
			 * (the pty is locked until unlockpt, and only we hold its master). */
			char name[64];
			if (ptsname_r(m, name, sizeof(name)) == 0)
				s = open(name, O_RDWR | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
		}
		e = errno;
	}
	if (s < 0) {
		if (m >= 0)
			close(m);
		cf_err_os(err, CONFINE_E_SPAWN, "cannot give the command a terminal", "/dev/ptmx",
			  m < 0 ? "posix_openpt" : "open", e);
		cf_err_hint(err, "run with --no-tty to give the command confine's own descriptors");
		return CONFINE_E_SPAWN;
	}
	if (p->master >= 0)
		close(p->master);
	p->master = m;
	setup(p);
	*slave = s;
	return 0;
}

int cf_pty_channel(struct cf_pty *p, int *helper_end, struct confine_error *err)
{
	int sv[2];
	if (p->chan >= 0)
		close(p->chan);
	if (p->master >= 0)
		close(p->master);
	p->chan = p->master = -1;
	p->master_eof = false;
	p->to_off = p->to_len = p->from_off = p->from_len = 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return cf_err_os(err, CONFINE_E_OS, "cannot give the command a terminal", "pty",
				 "socketpair", errno);
	int h = fcntl(sv[1], F_DUPFD_CLOEXEC, 3);
	int e = errno;
	close(sv[1]);
	if (h < 0) {
		close(sv[0]);
		return cf_err_os(err, CONFINE_E_OS, "cannot give the command a terminal", "pty",
				 "fcntl", e);
	}
	p->chan = sv[0];
	*helper_end = h;
	return 0;
}

int cf_pty_receive(struct cf_pty *p, struct confine_error *err)
{
	char tag = 0;
	int fd = -1;
	if (!p || p->chan < 0)
		return 0;
	ssize_t k;
	do
		k = cf_fd_recv(p->chan, &tag, &fd, MSG_DONTWAIT);
	while (k < 0 && errno == EINTR);
	close(p->chan);
	p->chan = -1;
	/* Sent by confine-init before the command exists; checked all the same: the master of
	 * a pty (the ptmx device, 5:2), nothing else. */
	struct stat st;
	int n;
	if (k != 1 || tag != PTY_TAG || fd < 0 || fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode) ||
	    major(st.st_rdev) != 5 || minor(st.st_rdev) != 2 || ioctl(fd, TIOCGPTN, &n) < 0) {
		if (fd >= 0)
			close(fd);
		cf_err(err, CONFINE_E_SPAWN, "cannot give the command a terminal", "confine-init",
		       "it sent no pseudo-terminal of the sandbox");
		cf_err_hint(err, "run with --no-tty to give the command confine's own descriptors");
		return CONFINE_E_SPAWN;
	}
	p->master = fd;
	setup(p);
	return 0;
}

void cf_pty_poll(struct cf_pty *p, struct pollfd *fds)
{
	for (int i = 0; i < CF_PTY_NFDS; i++)
		fds[i] = (struct pollfd){.fd = -1};
	if (!p)
		return;
	fds[3] = (struct pollfd){.fd = p->ev[0], .events = POLLIN};
	if (p->master < 0)
		return;
	if (p->in >= 0 && !p->in_eof && !p->background && !p->paused && p->to_off == p->to_len)
		fds[0] = (struct pollfd){.fd = p->in, .events = POLLIN};
	short ev = (p->from_off == p->from_len && !p->master_eof ? POLLIN : 0) |
		   (p->to_off < p->to_len && !p->master_eof ? POLLOUT : 0);
	if (ev)
		fds[1] = (struct pollfd){.fd = p->master, .events = ev};
	if (p->from_off < p->from_len)
		fds[2] = (struct pollfd){.fd = p->out, .events = POLLOUT};
}

/* A write that cannot kill confine with SIGPIPE: the signal is blocked for the call, and one
 * it raised is taken back (unless it was pending before). */
static ssize_t write_nosig(int fd, const char *buf, size_t n)
{
	sigset_t pipe_set, old, pending;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigpending(&pending);
	bool was = sigismember(&pending, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	ssize_t k = write(fd, buf, n);
	int e = errno;
	if (k < 0 && e == EPIPE && !was) {
		struct timespec zero = {0, 0};
		sigtimedwait(&pipe_set, NULL, &zero);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return k;
}

static void write_out(struct cf_pty *p)
{
	size_t n = p->from_len - p->from_off;
	/* A terminal or a pipe takes a small write after POLLOUT without holding confine up. */
	ssize_t k = write_nosig(p->out, p->from_master + p->from_off, n > 4096 ? 4096 : n);
	if (k > 0)
		p->from_off += (size_t)k;
	else if (k < 0 && errno != EAGAIN && errno != EINTR)
		p->out_gone = true; /* nobody reads the output any more: drop it, keep draining */
	if (p->out_gone || p->from_off == p->from_len)
		p->from_off = p->from_len = 0;
}

static void read_master(struct cf_pty *p)
{
	ssize_t k = read(p->master, p->from_master, sizeof(p->from_master));
	if (k < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (k <= 0) {
		/* EIO: every descriptor of the slave is closed. */
		p->master_eof = true;
		return;
	}
	if (p->scan)
		cf_denials_feed(p->scan, p->from_master, (size_t)k);
	p->from_off = 0;
	p->from_len = p->out_gone ? 0 : (size_t)k;
}

static void read_in(struct cf_pty *p)
{
	ssize_t k = read(p->in, p->to_master, sizeof(p->to_master));
	if (k < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (k > 0) {
		p->to_off = 0;
		p->to_len = (size_t)k;
		return;
	}
	p->in_eof = true;
	/* The end of a pipe or file given with --tty. */
	if (!p->in_tty)
		queue_eof(p);
}

static void write_master(struct cf_pty *p)
{
	ssize_t k = write(p->master, p->to_master + p->to_off, p->to_len - p->to_off);
	if (k > 0)
		p->to_off += (size_t)k;
	else if (k < 0 && errno != EAGAIN && errno != EINTR)
		p->to_off = p->to_len; /* the pty is gone: what was typed goes nowhere */
	if (p->to_off == p->to_len)
		p->to_off = p->to_len = 0;
}

/* The asker's requests: the terminal to it while it asks, back to raw mode after. */
static void pause_or_resume(struct cf_pty *p)
{
	char sink[16];
	while (read(p->ev[0], sink, sizeof(sink)) > 0)
		;
	pthread_mutex_lock(&p->lock);
	if (p->pause_req && !p->paused) {
		cf_pty_restore(p);
		p->paused = true;
		pthread_cond_broadcast(&p->cond);
	} else if (!p->pause_req && p->paused) {
		p->paused = false;
		if (p->master >= 0)
			enter_raw(p);
	}
	pthread_mutex_unlock(&p->lock);
}

void cf_pty_pump(struct cf_pty *p, const struct pollfd *fds)
{
	if (!p)
		return;
	if (fds[3].fd >= 0 && fds[3].revents)
		pause_or_resume(p);
	if (fds[2].fd >= 0 && fds[2].revents)
		write_out(p);
	if (fds[1].fd >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) &&
	    p->from_off == p->from_len)
		read_master(p);
	if (fds[1].fd >= 0 && (fds[1].revents & POLLOUT))
		write_master(p);
	if (fds[0].fd >= 0 && fds[0].revents)
		read_in(p);
}

bool cf_pty_note_signal(struct cf_pty *p, int sig)
{
	if (!p)
		return false;
	if (sig == SIGWINCH)
		p->winch = 1;
	else if (sig == SIGCONT)
		p->cont = 1;
	else
		return false;
	return true;
}

void cf_pty_tick(struct cf_pty *p)
{
	if (!p)
		return;
	if (p->cont) {
		p->cont = 0;
		/* Continued: in the foreground the mode is set (again); in the background it is
		 * given back and input waits until confine is in the foreground. */
		pid_t fg = p->in_tty ? tcgetpgrp(p->in) : -1;
		if (fg >= 0 && fg != getpgrp()) {
			cf_pty_restore(p);
			p->background = true;
		} else if (p->master >= 0) {
			enter_raw(p);
		}
	}
	if (p->winch) {
		p->winch = 0;
		resize(p);
	}
}

static void wake_loop(struct cf_pty *p)
{
	ssize_t k = write(p->ev[1], "a", 1);
	(void)k;
}

/* How long the asker waits for the loop to leave it the terminal: the loop answers at once
 * while the command runs; before or after it nobody does, and the question goes ahead. */
#define PAUSE_WAIT_MS 1000

static enum confine_net_answer paused_ask(const struct confine_net_ask *q, void *user)
{
	struct cf_pty *p = user;
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += (PAUSE_WAIT_MS % 1000) * 1000000L;
	until.tv_sec += PAUSE_WAIT_MS / 1000 + until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	pthread_mutex_lock(&p->lock);
	p->pause_req++;
	wake_loop(p);
	while (!p->paused && pthread_cond_timedwait(&p->cond, &p->lock, &until) == 0)
		;
	pthread_mutex_unlock(&p->lock);
	enum confine_net_answer a = p->ask_fn(q, p->ask_user);
	pthread_mutex_lock(&p->lock);
	p->pause_req--;
	pthread_mutex_unlock(&p->lock);
	wake_loop(p);
	return a;
}

confine_net_ask_fn cf_pty_asker(struct cf_pty *p, confine_net_ask_fn fn, void *user,
				void **user_out)
{
	if (!p || !fn) {
		*user_out = user;
		return fn;
	}
	p->ask_fn = fn;
	p->ask_user = user;
	*user_out = p;
	return paused_ask;
}

void cf_pty_finish(struct cf_pty *p)
{
	if (!p)
		return;
	/* Until the pty hangs up (every holder of the slave is gone) and all of it is out. */
	for (;;) {
		bool pending = p->from_off < p->from_len && !p->out_gone;
		if (!pending && (p->master < 0 || p->master_eof))
			break;
		struct pollfd pf = pending ? (struct pollfd){.fd = p->out, .events = POLLOUT}
					   : (struct pollfd){.fd = p->master, .events = POLLIN};
		int k = poll(&pf, 1, DRAIN_MS);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		if (pending)
			write_out(p);
		else
			read_master(p);
	}
	cf_pty_restore(p);
}

void cf_pty_free(struct cf_pty *p)
{
	if (!p)
		return;
	cf_pty_restore(p);
	if (p->master >= 0)
		close(p->master);
	if (p->chan >= 0)
		close(p->chan);
	close(p->ev[0]);
	close(p->ev[1]);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p);
}
