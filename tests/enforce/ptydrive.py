#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Drives `confine run ... -- bash -i` in a real pseudo-terminal, as a person at a terminal
would (terminal.t, R41).  Every step waits for what the session prints (a marker, the prompt),
never for a fixed time; each wait has a deadline, after which the step fails and says what it
saw.  Prints one `NAME: VALUE` line per observation for the .t to check.

usage: ptydrive.py session TRYK -- ARGV...     a shell session (ARGV: confine run ... bash -i,
                                              or bash -i alone for the host control)
       ptydrive.py jobs -- ARGV...            the same without the TIOCSTI steps
       ptydrive.py signal SIGNAME -- ARGV...  a shell session, then SIGNAME to ARGV's process
       ptydrive.py pipeline CONFINE -- ARGV...  confine in pipelines typed into the shell ARGV
       ptydrive.py stop CONFINE -- ARGV...    kill -TSTP, then fg, of confine run by the shell ARGV
       ptydrive.py answer TEXT REPLY -- ARGV...  ARGV in a terminal, REPLY typed once it prints
                                              TEXT; prints its output
"""
import fcntl
import os
import select
import signal
import struct
import sys
import termios
import time

DEADLINE = float(os.environ.get("PTYDRIVE_DEADLINE", "30"))
PROMPT = b"P> "


class Session:
    def __init__(self, argv):
        self.master, self.slave = os.openpty()
        fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.before = termios.tcgetattr(self.slave)
        st = os.fstat(self.slave)
        self.outer = (st.st_dev, st.st_rdev)
        self.pid = os.fork()
        if self.pid == 0:
            os.setsid()
            fcntl.ioctl(self.slave, termios.TIOCSCTTY, 0)
            for fd in (0, 1, 2):
                os.dup2(self.slave, fd)
            os.closerange(3, 256)
            os.execvp(argv[0], argv)
        self.buf = b""
        self.status = None

    def read_some(self, until):
        r, _, _ = select.select([self.master], [], [], max(0.0, until - time.monotonic()))
        if not r:
            return False
        try:
            data = os.read(self.master, 65536)
        except OSError:
            data = b""
        if not data:
            raise EOFError
        self.buf += data
        return True

    def expect(self, pat, what):
        until = time.monotonic() + DEADLINE
        while pat not in self.buf:
            try:
                if not self.read_some(until):
                    raise SystemExit("%s: timeout waiting for %r; last output %r"
                                     % (what, pat, self.buf[-300:]))
            except EOFError:
                raise SystemExit("%s: the session ended waiting for %r; last output %r"
                                 % (what, pat, self.buf[-300:]))
        i = self.buf.index(pat) + len(pat)
        out, self.buf = self.buf[:i], self.buf[i:]
        return out.decode(errors="replace")

    def send(self, data):
        os.write(self.master, data)

    def command(self, line, what):
        """Types a line, returns what it printed up to the next prompt."""
        self.send(line.encode() + b"\r")
        out = self.expect(PROMPT, what)
        return out.replace("\r", "")

    def wait(self):
        until = time.monotonic() + DEADLINE
        while True:
            pid, st = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(st)
                break
            try:
                self.read_some(min(until, time.monotonic() + 0.05))
            except EOFError:
                pass
            if time.monotonic() > until:
                os.kill(self.pid, signal.SIGKILL)
                raise SystemExit("the session did not end")
        return self.status

    def restored(self):
        """The outer terminal's mode is what it was before the session."""
        return termios.tcgetattr(self.slave) == self.before


def lines_of(out):
    return [l for l in out.split("\n") if l and not l.startswith(PROMPT.decode())]


def start(argv):
    s = Session(argv)
    s.send(b"PS1='P''> '; PS2=; stty -echo; echo REA''DY\r")
    s.expect(b"READY\r\n", "start")
    s.expect(PROMPT, "first prompt")
    return s


def session(tryk, argv):
    s = start(argv)
    print("outer: %d %d" % s.outer)
    out = s.command("stat -L -c '%d %r' /dev/stdin; tty; ps -o tty= -p $$", "ids")
    st = lines_of(out)
    print("inner: %s" % st[0])
    print("tty: %s" % st[1])
    print("ctty: %s" % st[2].strip())
    if tryk:
        # Each attempt, then a line typed after it: a byte pushed into the input of the
        # terminal the shell reads would come first and make that line a comment.
        for name, op in (("tiocsti-tty", " tiocsti-tty"), ("tiocsti-fd", " tiocsti-fd 0"),
                         ("tioclinux", " tioclinux-fd 0")):
            got = lines_of(s.command(tryk + op, name))
            after = lines_of(s.command("echo AF''TER", name + " then"))
            print("%s: %s %s" % (name, got[0] if got else "-", after[0] if after else "-"))

    # Ctrl-C: the foreground job gets SIGINT from the pty; the shell and confine go on.
    s.send(b"sh -c 'echo SLE''EPING; exec sleep 100'\r")
    s.expect(b"SLEEPING", "sleep 100 runs")
    s.send(b"\x03")
    s.expect(PROMPT, "prompt after Ctrl-C")
    print("ctrl-c: %s" % lines_of(s.command("echo status $?", "after ctrl-c"))[-1])

    # Ctrl-Z, jobs, fg, then Ctrl-C on the job fg brought back.  The job says when it runs
    # again: bash gives it the terminal before it sends SIGCONT.  (One process: a shell loop
    # stopped inside its vfork would never be reported stopped.)
    s.send(b"python3 -c 'import os, signal as s, time; s.signal(s.SIGINT, s.SIG_DFL); "
           b"s.signal(s.SIGCONT, lambda *a: os.write(1, b\"CONT\" b\"INUED\\n\")); "
           b"os.write(1, b\"STO\" b\"PPING\\n\"); time.sleep(1000)'\r")
    s.expect(b"STOPPING", "the job runs")
    s.send(b"\x1a")
    out = s.expect(PROMPT, "prompt after Ctrl-Z")
    print("ctrl-z: %s" % ("Stopped" in out))
    print("jobs: %s" % " ".join(lines_of(s.command("jobs", "jobs"))[0].split()[:2]))
    s.send(b"fg\r")
    s.expect(b"CONTINUED", "fg")
    s.send(b"\x03")
    s.expect(PROMPT, "prompt after fg and Ctrl-C")
    print("fg: %s" % lines_of(s.command("echo status $?; jobs | wc -l", "after fg"))[-2:])

    # A window resize of the outer terminal reaches the command's pty.
    fcntl.ioctl(s.master, termios.TIOCSWINSZ, struct.pack("HHHH", 33, 111, 0, 0))
    until = time.monotonic() + DEADLINE
    size = ""
    while time.monotonic() < until:
        size = " ".join(lines_of(s.command("stty size; tput cols", "stty size")))
        if size == "33 111 111":
            break
    print("resize: %s" % size)

    # A curses program: the screen's size, a key read in cbreak mode, the mode back after.
    s.send(b"TERM=xterm python3 -c 'import curses; curses.wrapper(lambda w: "
           b"(w.addstr(0, 0, \"CUR\" \"SES %dx%d\" % w.getmaxyx()), w.refresh(), "
           b"w.addstr(1, 0, \"KEY %c\" % w.getch()), w.refresh(), w.getch()))'\r")
    out = s.expect(b"CURSES 33x111", "curses starts")
    s.send(b"q")
    s.expect(b"KEY q", "curses reads a key")
    s.send(b"x")
    s.expect(PROMPT, "curses ends")
    print("curses: %s" % lines_of(s.command("stty -a | grep -o ' icanon'", "stty -a"))[-1].strip())

    s.send(b"exit 7\r")
    print("status: %d" % s.wait())
    print("restored: %s" % s.restored())


def pipeline(confine, argv):
    """confine in a pipeline of a shell on the terminal (`confine run -- CMD | less`): the next
    program reads the terminal, and confine must take none of its keys."""
    s = start(argv)
    out = s.command("%s run -- sh -c 'test -t 0 && echo tty0; read x; echo read $?' | cat"
                    % confine, "pipeline input")
    print("input: %s" % " ".join(lines_of(out)))
    s.send(("%s run -- sh -c 'echo X; exec sleep 100' | python3 -c 'import sys; "
            "sys.stdin.readline(); print(\"TY\" \"PE\", flush=True); "
            "print(\"GOT\", open(\"/dev/tty\").readline().strip(), flush=True)'\r"
            % confine).encode())
    s.expect(b"TYPE", "the reader after confine waits for the terminal")
    s.send(b"hello\r")
    s.expect(b"GOT ", "the reader gets the line")
    print("reader: %s" % s.expect(b"\n", "the rest of the line").strip())
    s.send(b"\x03")
    s.expect(PROMPT, "prompt after Ctrl-C")
    s.send(b"exit 0\r")
    s.wait()


def stopped(confine, argv):
    """kill -TSTP confine from outside, confine a job of the shell ARGV: the terminal back in
    its mode while confine is stopped, raw again after fg, the session going on."""
    s = start(argv)
    base = termios.tcgetattr(s.slave)
    s.send(("sh -c 'echo PI''D $$; exec %s run -- bash --norc --noprofile --noediting -i'\r"
            % confine).encode())
    pid = int(s.expect(b"\n", "confine's pid").split()[-1])
    s.send(b"PS1='Q''> '; echo IN''NER\r")
    s.expect(b"INNER", "the inner shell")
    s.expect(b"Q> ", "the inner prompt")
    print("raw: %s" % (termios.tcgetattr(s.slave) != base))
    os.kill(pid, signal.SIGTSTP)
    s.expect(b"Stopped", "the outer shell sees confine stopped")
    s.expect(PROMPT, "the outer prompt")
    print("stopped-restored: %s" % (termios.tcgetattr(s.slave) == base))
    s.send(b"fg\r")
    s.send(b"echo BA''CK\r")
    s.expect(b"BACK\r\n", "the inner shell again")
    s.expect(b"Q> ", "the inner prompt again")
    print("raw-again: %s" % (termios.tcgetattr(s.slave) != base))
    s.send(b"exit 4\r")
    s.expect(PROMPT, "the outer prompt at the end")
    print("status: %s" % lines_of(s.command("echo status $?", "the outer shell"))[-1])
    print("restored: %s" % (termios.tcgetattr(s.slave) == base))
    s.send(b"exit 0\r")
    s.wait()


def answer(text, reply, argv):
    """ARGV in a terminal; once it prints TEXT, REPLY and Enter are typed, as a person answers
    a question.  Prints all ARGV printed (without carriage returns) when it ends."""
    s = Session(argv)
    until = time.monotonic() + DEADLINE
    answered = False
    while time.monotonic() < until:
        if not answered and text.encode() in s.buf:
            s.send(reply.encode() + b"\r")
            answered = True
        if s.status is None:
            pid, st = os.waitpid(s.pid, os.WNOHANG)
            if pid:
                s.status = os.waitstatus_to_exitcode(st)
        try:
            # Once ARGV has ended, what it wrote is all in the terminal already.
            more = s.read_some(time.monotonic() + (0 if s.status is not None else 0.05))
        except EOFError:
            more = False
        if s.status is not None and not more:
            break
    if s.status is None:
        s.wait()
    sys.stdout.write(s.buf.decode(errors="replace").replace("\r", ""))


def signalled(signame, argv):
    s = start(argv)
    print("raw: %s" % (termios.tcgetattr(s.slave) != s.before))
    os.kill(s.pid, getattr(signal, signame))
    print("status: %d" % s.wait())
    print("restored: %s" % s.restored())


def main():
    argv = sys.argv[1:]
    sep = argv.index("--")
    if argv[0] == "answer":
        answer(argv[1], argv[2], argv[sep + 1:])
        return
    what, rest = argv[:sep], argv[sep + 1:]
    if what[0] == "session":
        session(what[1], rest)
    elif what[0] == "jobs":
        session(None, rest)
    elif what[0] == "pipeline":
        pipeline(what[1], rest)
    elif what[0] == "stop":
        stopped(what[1], rest)
    elif what[0] == "signal":
        signalled(what[1], rest)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
