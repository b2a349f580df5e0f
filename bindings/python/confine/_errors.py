# SPDX-License-Identifier: MIT
"""ConfineError: a failure of libconfine, with every field of its struct confine_error."""
from __future__ import annotations

from typing import Any, Optional

from . import _native

# CONFINE_E_* (include/confine.h) and their names.
CODES = {
    -1: "NOMEM", -2: "INVALID", -3: "RULES", -4: "WORKSPACE", -5: "PLAN", -6: "SCAN",
    -7: "BACKEND", -8: "OS", -9: "SPAWN", -10: "NOTFOUND", -11: "NOEXEC", -12: "LIMIT",
    -13: "APPROVAL", -14: "RECORD",
}


class ConfineError(Exception):
    """A failure of libconfine.  The fields are struct confine_error's: code (a negative
    CONFINE_E_* value; code_name is its name without the prefix), os_errno and syscall (of a
    failed system call, else 0 and ""), what, subject, line, column, reason and hint.
    exit_status is what `confine run` would exit with (125; 126 or 127 when the command could
    not be executed or found).  report: the post-run report (a dict) when one was made."""

    code: int
    code_name: str
    os_errno: int
    syscall: str
    what: str
    subject: str
    line: int
    column: int
    reason: str
    hint: str
    exit_status: int
    report: Optional[dict[str, Any]]

    def __init__(self, code: int, *, os_errno: int = 0, syscall: str = "", what: str = "",
                 subject: str = "", line: int = 0, column: int = 0, reason: str = "",
                 hint: str = "", report: Optional[dict[str, Any]] = None) -> None:
        self.code = code
        self.code_name = CODES.get(code, "UNKNOWN")
        self.os_errno, self.syscall = os_errno, syscall
        self.what, self.subject, self.line, self.column = what, subject, line, column
        self.reason, self.hint = reason, hint
        self.exit_status = {-10: 127, -11: 126}.get(code, 125)
        self.report = report
        super().__init__(self.message())

    @classmethod
    def from_struct(cls, e: _native.Error, code: Optional[int] = None) -> "ConfineError":
        t = _native.text
        # The call's own return is its code (include/confine.h), never read back from err.
        c = code if code is not None and code < 0 else (e.code or -2)
        sub = _SUBCLASSES.get(c, cls)
        return sub(c, os_errno=e.os_errno, syscall=t(e.syscall), what=t(e.what),
                   subject=t(e.subject), line=e.line, column=e.column, reason=t(e.reason),
                   hint=t(e.hint))

    def message(self) -> str:
        """The house form: `confine: WHAT: 'SUBJECT': REASON` and `hint: ...` when known."""
        what = self.what or _native.text(_native.lib().confine_strerror(self.code))
        s = "confine: %s" % what
        if self.subject:
            s += ": '%s'" % self.subject
        if self.line:
            s += " (line %d, column %d)" % (self.line, self.column)
        if self.reason:
            s += ": %s" % self.reason
        if self.hint:
            s += "\nhint: %s" % self.hint
        return s


class InvalidError(ConfineError):
    """CONFINE_E_INVALID: an argument or a request the library refused."""


class RulesError(ConfineError):
    """CONFINE_E_RULES: a rule file or rule is malformed (line and column say where)."""


class WorkspaceError(ConfineError):
    """CONFINE_E_WORKSPACE: the workspace is refused (R1)."""


class BackendError(ConfineError):
    """CONFINE_E_BACKEND: no working sandbox backend, and the policy requires one."""


class SpawnError(ConfineError):
    """CONFINE_E_SPAWN: the sandbox could not be set up."""


class CommandNotFoundError(ConfineError):
    """CONFINE_E_NOTFOUND: the command was not found (exit_status 127)."""


class NotExecutableError(ConfineError):
    """CONFINE_E_NOEXEC: the command is not executable (exit_status 126)."""


class ApprovalError(ConfineError):
    """CONFINE_E_APPROVAL: an escalation or write grant without a valid receipt."""


_SUBCLASSES: dict[int, type[ConfineError]] = {
    -2: InvalidError, -3: RulesError, -4: WorkspaceError, -7: BackendError, -9: SpawnError,
    -10: CommandNotFoundError, -11: NotExecutableError, -13: ApprovalError,
}


def check(r: int, err: _native.Error) -> None:
    """Raises the error a call filled when it returned a negative code."""
    if r < 0:
        raise ConfineError.from_struct(err, r)
