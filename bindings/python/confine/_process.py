# SPDX-License-Identifier: MIT
"""Process: a started run (confine_run_start) with the command's pipes, and Completed."""
from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import threading
from ctypes import byref, c_int, c_void_p
from typing import IO, TYPE_CHECKING, Any, Optional, Union

from . import _native
from ._errors import ConfineError

if TYPE_CHECKING:
    from ._request import Request

PIPE = subprocess.PIPE
DEVNULL = subprocess.DEVNULL
STDOUT = subprocess.STDOUT
Stream = Union[None, int, IO[Any]]

def _child_fd(spec: Stream, which: int, stdout_fd: Optional[int]) -> tuple[Optional[int],
                                                                          Optional[int]]:
    """(the descriptor the command gets, the parent's end of a pipe)."""
    if spec is None:
        return None, None
    if spec == PIPE:
        r, w = os.pipe()
        return (r, w) if which == 0 else (w, r)
    if spec == DEVNULL:
        return os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC), None
    if spec == STDOUT and which == 2:  # where stdout goes: its pipe, or this process's 1
        return os.dup(stdout_fd if stdout_fd is not None else 1), None
    fd = spec if isinstance(spec, int) else spec.fileno()
    return os.dup(fd), None


def _set_stdio(request: "Request", fds: list[Optional[int]]) -> None:
    """The command's 0, 1, 2 for the next run the request prepares (-1: this process's own,
    which stay untouched: no other thread's output or fork meets the command's pipes)."""
    e = _native.Error()
    r = _native.lib().confine_request_set_stdio(request.handle,
                                               *[-1 if fd is None else fd for fd in fds],
                                               byref(e))
    if r < 0:
        raise ConfineError.from_struct(e, r)


class Process:
    """A command started in the sandbox, like subprocess.Popen: stdin, stdout and stderr
    (file objects where PIPE was asked), wait(), poll(), communicate(), send_signal(),
    terminate(), and after the end the exit status (returncode) and the report.

    The run lives on a thread of its own, which starts it and waits for it (the sandbox ends
    when the thread that started it ends), so wait(timeout) and signals work from any thread.
    A failure of the sandbox itself is raised (ConfineError, exit_status 125); a failure after
    the command ran keeps its status and is in .error."""

    stdin: Optional[IO[bytes]]
    stdout: Optional[IO[bytes]]
    stderr: Optional[IO[bytes]]
    returncode: Optional[int]
    report: Optional[dict[str, Any]]
    error: Optional[ConfineError]
    backend: str
    notes: list[str]

    def __init__(self, request: "Request", stdin: Stream, stdout: Stream,
                 stderr: Stream) -> None:
        self._lib = _native.lib()
        self._request = request
        self._run = c_void_p()
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._started = threading.Event()
        self._status = c_int(125)
        self._err = _native.Error()
        self._code = 0
        self._finished = False
        self._sandbox_failed = False
        self.returncode = None
        self.report = None
        self.error = None
        self.stdin = self.stdout = self.stderr = None
        child: list[Optional[int]] = [None, None, None]
        mine: list[Optional[int]] = [None, None, None]
        try:
            for i, spec in ((0, stdin), (1, stdout), (2, stderr)):
                child[i], mine[i] = _child_fd(spec, i, child[1])
            self._prepare(child)
            # The run duplicates the command's descriptors when it starts: ours close after.
            t = threading.Thread(target=self._thread, daemon=True, name="confine-run")
            t.start()
            self._started.wait()
        except BaseException:
            for fd in mine:
                if fd is not None:
                    os.close(fd)
            raise
        finally:
            for fd in child:
                if fd is not None:
                    os.close(fd)
        if self._code < 0:
            for fd in mine:
                if fd is not None:
                    os.close(fd)
            self._done.wait()
            raise self._refused(self._err, self._code, self._run)
        if mine[0] is not None:
            self.stdin = os.fdopen(mine[0], "wb")
        if mine[1] is not None:
            self.stdout = os.fdopen(mine[1], "rb")
        if mine[2] is not None:
            self.stderr = os.fdopen(mine[2], "rb")

    def _prepare(self, child: list[Optional[int]]) -> None:
        request = self._request
        _set_stdio(request, child)
        e = _native.Error()
        try:
            r = self._lib.confine_run_prepare(request.handle, byref(self._run), byref(e))
        finally:
            _set_stdio(request, [None, None, None])  # the numbers are the run's now
        if r < 0:
            raise self._refused(e, r, None)
        self.backend = _native.text(self._lib.confine_run_backend(self._run))
        self.notes = [_native.text(n) for n in (self._lib.confine_run_fallback_note(self._run),
                                                self._lib.confine_run_landlock_note(self._run))
                      if n]

    def _thread(self) -> None:
        try:
            self._code = int(self._lib.confine_run_start(self._run, byref(self._err)))
        except BaseException:
            self._code = -8
            raise
        finally:
            self._started.set()
        try:
            if self._code == 0:
                self._code = self._lib.confine_run_wait(self._run, byref(self._status),
                                                        byref(self._err))
        finally:
            self._done.set()

    def _refused(self, e: _native.Error, code: int, run: Optional[c_void_p]) -> ConfineError:
        """The error of a run that did not start, with its report (written where asked)."""
        err = ConfineError.from_struct(e, code)
        status = err.exit_status
        err.report = self._make_report(run, status, e)
        self._free()
        return err

    def _make_report(self, run: Optional[c_void_p], status: int,
                     why: _native.Error) -> Optional[dict[str, Any]]:
        req = self._request.handle
        out, e = c_void_p(), _native.Error()
        if self._lib.confine_report_json(req, run, status, byref(why), byref(out),
                                         byref(e)) < 0:
            return None
        report = dict(json.loads(_native.take_string(out)))
        w = _native.Error()
        if self._lib.confine_request_write_report(req, run, status, byref(why), byref(w)) < 0:
            report.setdefault("binding_errors", []).append(str(ConfineError.from_struct(w)))
        return report

    # -- waiting --
    def poll(self) -> Optional[int]:
        if self._done.is_set():
            return self._finish()
        return None

    def wait(self, timeout: Optional[float] = None) -> int:
        """The exit status (R3): the command's, 128+N for signal N, 126/127 when it could not
        be executed.  Raises subprocess.TimeoutExpired when TIMEOUT passes first."""
        if not self._done.wait(timeout):
            raise subprocess.TimeoutExpired(self._argv(), timeout or 0)
        return self._finish()

    def _argv(self) -> list[str]:
        return [str(a) for a in (self.report or {}).get("argv", [])] or ["confine"]

    def _finish(self) -> int:
        with self._lock:
            if not self._finished:
                self._finished = True
                self._collect()
        if self._sandbox_failed:
            assert self.error is not None
            raise self.error
        assert self.returncode is not None
        return self.returncode

    def _collect(self) -> None:
        status, run = self._status.value, self._run
        from_command = bool(self._lib.confine_run_status_from_command(run))
        self.returncode = status
        self.report = self._make_report(run, status, self._err)
        if self._code < 0:
            self.error = ConfineError.from_struct(self._err, self._code)
            self.error.report = self.report
            # The sandbox itself failed (exit status 125): raised.  After the command ran,
            # a failure never changes its status: kept in .error.
            self._sandbox_failed = not from_command
        else:
            a = _native.Error()
            if self._lib.confine_request_audit_error(self._request.handle, byref(a)) < 0:
                self.error = ConfineError.from_struct(a)
        self._free_locked()

    def communicate(self, input: Optional[bytes] = None,
                    timeout: Optional[float] = None) -> tuple[Optional[bytes], Optional[bytes]]:
        """Writes INPUT to stdin and closes it, reads stdout and stderr to their end, waits."""
        got: dict[int, bytes] = {}

        def drain(i: int, f: IO[bytes]) -> None:
            got[i] = f.read()

        def feed(f: IO[bytes]) -> None:
            try:
                if input:
                    f.write(input)
                f.close()
            except BrokenPipeError:
                pass

        ts = [threading.Thread(target=drain, args=(i, f), daemon=True)
              for i, f in ((1, self.stdout), (2, self.stderr)) if f is not None]
        if self.stdin is not None:
            ts.append(threading.Thread(target=feed, args=(self.stdin,), daemon=True))
        for t in ts:
            t.start()
        self.wait(timeout)
        for t in ts:
            t.join()
        for f in (self.stdout, self.stderr):
            if f is not None:
                f.close()
        return got.get(1), got.get(2)

    # -- signals --
    def send_signal(self, sig: int) -> None:
        """Forwards SIGINT, SIGTERM, SIGHUP or SIGQUIT to the command; after the last three
        (or a second SIGINT) confine kills the whole sandbox when the command is still
        running after the kill grace (Request.set_kill_grace, default 5 s)."""
        with self._lock:
            if self._run and not self._done.is_set():
                self._lib.confine_run_forward_signal(self._run, int(sig))

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    kill = terminate

    # -- the end --
    def completed(self, stdout: Optional[bytes] = None,
                  stderr: Optional[bytes] = None) -> "Completed":
        status = self.wait()
        assert self.report is not None
        return Completed(status, self.report, stdout, stderr, self.error, self.backend,
                         self.notes)

    def _free(self) -> None:
        with self._lock:
            self._free_locked()

    def _free_locked(self) -> None:
        if self._run:
            self._lib.confine_run_free(self._run)
            self._run = c_void_p()

    def __enter__(self) -> "Process":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.stdin is not None and not self.stdin.closed:
            try:
                self.stdin.close()
            except BrokenPipeError:
                pass
        try:
            self.wait()
        finally:
            for f in (self.stdout, self.stderr):
                if f is not None and not f.closed:
                    f.close()

    def __del__(self) -> None:
        done = getattr(self, "_done", None)
        if done is not None and done.is_set():
            self._free()


class Completed:
    """A run that ended: status (the exit status), report (SPEC 7.3, a dict), the captured
    stdout and stderr (bytes, or None), error (a failure after the command ran, which never
    changes its status: an audit line that could not be written, the proxy's), backend
    ("bwrap", "landlock" or "none") and notes (what the backend could not give, said before
    the command started)."""

    def __init__(self, status: int, report: dict[str, Any], stdout: Optional[bytes],
                 stderr: Optional[bytes], error: Optional[ConfineError], backend: str,
                 notes: list[str]) -> None:
        self.status = self.returncode = status
        self.report = report
        self.stdout, self.stderr = stdout, stderr
        self.error = error
        self.backend = backend
        self.notes = notes

    @property
    def denied_paths(self) -> list[str]:
        """Paths the command's stderr named on denial lines (for display only)."""
        return list(self.report.get("denied_paths", []))

    @property
    def events(self) -> list[dict[str, Any]]:
        return list(self.report.get("events", []))

    @property
    def timed_out(self) -> bool:
        return bool(self.report.get("timed_out"))

    def __repr__(self) -> str:
        return "Completed(status=%d, backend=%r, denied_paths=%r)" % (
            self.status, self.backend, self.denied_paths)
