# SPDX-License-Identifier: MIT
"""confine: run a command in an OS sandbox, from Python (over libconfine.so.1, with ctypes).

    import confine
    req = confine.Request(["python3", "server.py"], workspace="/srv/project", network=False)
    done = req.run(capture_output=True)
    done.status, done.report["denied_paths"]

See README.md.  The library is found as confine._native says (CONFINE_LIB, CONFINE_BUILD,
then the dynamic loader's libconfine.so.1).
"""
from __future__ import annotations

import ctypes
import json
import os
from ctypes import byref, c_void_p
from typing import Any, Optional, Sequence

from . import _native
from ._errors import (ApprovalError, BackendError, CommandNotFoundError, ConfineError,
                      InvalidError, NotExecutableError, RulesError, SpawnError, WorkspaceError,
                      check)
from ._process import DEVNULL, PIPE, STDOUT, Completed, Process, Stream
from ._request import Request, StrPath

__all__ = [
    "Request", "Process", "Completed", "PIPE", "DEVNULL", "STDOUT", "ConfineError",
    "InvalidError", "RulesError", "WorkspaceError", "BackendError", "SpawnError",
    "CommandNotFoundError", "NotExecutableError", "ApprovalError", "run", "start", "probe",
    "explain", "card", "version", "escape", "library_path",
]


def run(argv: Sequence[StrPath], *, input: Optional[bytes] = None,
        capture_output: bool = False, stdin: Stream = None, stdout: Stream = None,
        stderr: Stream = None, **request: Any) -> Completed:
    """Request(argv, **request).run(...): the exit status and the report."""
    with Request(argv, **request) as req:
        return req.run(input=input, capture_output=capture_output, stdin=stdin,
                       stdout=stdout, stderr=stderr)


def start(argv: Sequence[StrPath], *, stdin: Stream = None, stdout: Stream = None,
          stderr: Stream = None, **request: Any) -> Process:
    """Request(argv, **request).start(...): a Process with the command's pipes."""
    return Request(argv, **request).start(stdin, stdout, stderr)


def probe(backend: str = "bwrap", *, use_cache: bool = True,
          workspace: Optional[StrPath] = None) -> dict[str, Any]:
    """What a backend ("bwrap" or "landlock") gives on this machine, as `confine probe
    --json` lists it: available, code, reason, hint, and the guarantees."""
    lib = _native.lib()
    res, e = _native.ProbeResult(size=ctypes.sizeof(_native.ProbeResult)), _native.Error()
    if backend == "bwrap":
        path = os.environ.get("PATH")
        ws = _native.encode(workspace) if workspace is not None else None
        r = lib.confine_probe_bwrap(path.encode() if path else None, ws, use_cache,
                                    byref(res), byref(e))
    elif backend == "landlock":
        r = lib.confine_probe_landlock(byref(res), byref(e))
    else:
        raise InvalidError(-2, what="invalid argument", subject=backend,
                           reason="the backend to probe is bwrap or landlock")
    check(r, e)
    out = c_void_p()
    check(lib.confine_probe_json(byref(res), byref(out), byref(e)), e)
    return dict(json.loads(_native.take_string(out)))


def explain(path: StrPath, access: str = "read", *, workspace: Optional[StrPath] = None,
            request: Optional[Request] = None) -> dict[str, Any]:
    """Which rule decides ACCESS of PATH for REQUEST (or a request for WORKSPACE)."""
    if request is not None:
        return request.explain(path, access)
    with Request(["true"], workspace=workspace) as req:
        return req.explain(path, access)


def card(request: Request) -> dict[str, Any]:
    """The approval card of a request with an escalation or write grants."""
    return request.card()


def version() -> dict[str, Any]:
    """The running library's version: major, minor, micro, abi, text."""
    v = _native.lib().confine_version().contents
    return {"major": v.major, "minor": v.minor, "micro": v.micro, "abi": v.abi,
            "text": _native.text(v.text)}


def escape(s: str, *, quotes: bool = False, ascii: bool = False) -> str:
    """A string a command chose, as a person should see it (R38)."""
    lib, out, e = _native.lib(), c_void_p(), _native.Error()
    check(lib.confine_display_escape(_native.encode(s), (1 if quotes else 0) |
                                     (2 if ascii else 0), byref(out), byref(e)), e)
    return _native.take_string(out)


def library_path() -> str:
    """Which libconfine this process loaded."""
    return _native.load().path
