# SPDX-License-Identifier: MIT
"""Request: everything a run needs (a confine_request), built before anything runs."""
from __future__ import annotations

import ctypes
import json
import os
from ctypes import byref, c_void_p
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Optional, Sequence, Union

from . import _native
from ._errors import InvalidError, check

if TYPE_CHECKING:
    from ._process import Completed, Process, Stream

StrPath = Union[str, bytes, "os.PathLike[str]"]

ACCESS = {"read": 1, "write": 2, "both": 3}
ACTION = {"allow": 0, "ask": 1, "deny": 2}
POLICY = {"required": 0, "off": 1}
BACKEND = {"auto": 0, "bwrap": 1, "landlock": 2}
TTY = {"auto": 0, "on": 1, "off": 2}


def _pick(table: Mapping[str, int], value: str, what: str) -> int:
    if value not in table:
        raise InvalidError(-2, what="invalid argument", subject=str(value),
                           reason="%s is one of %s" % (what, ", ".join(table)))
    return table[value]


def _ms(seconds: float, what: str) -> int:
    if seconds < 0:
        raise InvalidError(-2, what="invalid argument", subject=str(seconds),
                           reason="%s is a duration in seconds, 0 or more" % what)
    return int(round(seconds * 1000))


class Request:
    """A command and what it may do: rules, network, environment, limits, records.

    Each setter returns the request (calls chain) and raises InvalidError, leaving the
    request unchanged, when libconfine refuses its value.  One request is used by one thread
    at a time; a run copies what it needs, so the request may change after run()/start().
    The run's report is always made; the command's stderr is scanned for denied paths
    (denial_scan, on by default here: the report's denied_paths)."""

    def __init__(self, argv: Sequence[StrPath], *, workspace: Optional[StrPath] = None,
                 allow: Iterable[StrPath] = (), allow_read: Iterable[StrPath] = (),
                 deny: Iterable[StrPath] = (), network: bool = True,
                 backend: Optional[str] = None, policy: str = "required",
                 timeout: Optional[float] = None, env: Optional[Mapping[str, str]] = None,
                 clear_env: bool = False, tty: str = "auto", denial_scan: bool = True,
                 helper: Optional[StrPath] = None) -> None:
        self._lib = _native.lib()
        self._req = c_void_p()
        e = _native.Error()
        check(self._lib.confine_request_new(byref(self._req), byref(e)), e)
        loaded = _native.load()
        if helper is not None or loaded.helper:
            self.set_helper(helper if helper is not None else str(loaded.helper))
        self.set_argv(argv)
        if workspace is not None:
            self.set_workspace(workspace)
        for p in allow:
            self.allow(p)
        for p in allow_read:
            self.allow(p, "read")
        for p in deny:
            self.deny(p)
        if backend is None:  # as `confine run` reads it (SPEC 1): CONFINE_BACKEND, else auto
            backend = os.environ.get("CONFINE_BACKEND", "").strip().lower() or "auto"
        self.set_network(network).set_backend(backend).set_policy(policy).set_tty(tty)
        self.set_denial_scan(denial_scan).clear_env(clear_env)
        if timeout is not None:
            self.set_timeout(timeout)
        for k, v in (env or {}).items():
            self.set_env(k, v)

    # -- the object --
    def close(self) -> None:
        """Frees the confine_request now (also done when the object is collected)."""
        if self._req:
            self._lib.confine_request_free(self._req)
            self._req = c_void_p()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self) -> "Request":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def handle(self) -> c_void_p:
        """The confine_request pointer, for a caller of the C functions themselves."""
        if not self._req:
            raise InvalidError(-2, what="invalid request", subject="Request",
                               reason="it was closed")
        return self._req

    def _call(self, name: str, *args: Any) -> "Request":
        e = _native.Error()
        check(getattr(self._lib, name)(self.handle, *args, byref(e)), e)
        return self

    # -- the command and where it works --
    def set_argv(self, argv: Sequence[StrPath]) -> "Request":
        if isinstance(argv, (str, bytes)):
            raise InvalidError(-2, what="invalid argument", subject=str(argv),
                               reason="argv is a list of strings, not one string")
        items = [_native.encode(a) for a in argv]
        arr = (ctypes.c_char_p * (len(items) + 1))(*items, None)
        return self._call("confine_request_set_argv", len(items), arr)

    def set_workspace(self, path: StrPath) -> "Request":
        return self._call("confine_request_set_workspace", _native.encode(path))

    def set_helper(self, path: StrPath) -> "Request":
        """Where confine-init is (CONFINE_HELPER or the build tree's when found there)."""
        return self._call("confine_request_set_helper", _native.encode(path))

    # -- rules (SPEC 2) --
    def rule(self, pattern: StrPath, access: str = "both", action: str = "allow") -> "Request":
        """A session rule: access read, write or both; action allow, ask or deny."""
        return self._call("confine_request_add_rule", _native.encode(pattern),
                          _pick(ACCESS, access, "access"), _pick(ACTION, action, "action"))

    def allow(self, pattern: StrPath, access: str = "both") -> "Request":
        return self.rule(pattern, access, "allow")

    def deny(self, pattern: StrPath, access: str = "both") -> "Request":
        return self.rule(pattern, access, "deny")

    def session_rules_file(self, path: StrPath) -> "Request":
        return self._call("confine_request_add_session_rules_file", _native.encode(path))

    # -- network (SPEC 12) --
    def set_network(self, enabled: bool) -> "Request":
        return self._call("confine_request_set_network", bool(enabled))

    def net_allow(self, pattern: str) -> "Request":
        return self._call("confine_request_net_allow", _native.encode(pattern))

    def net_deny(self, pattern: str) -> "Request":
        return self._call("confine_request_net_deny", _native.encode(pattern))

    # -- how it runs --
    def set_policy(self, policy: str) -> "Request":
        """"required" (the default: no sandbox, no run) or "off" (runs unconfined)."""
        return self._call("confine_request_set_policy", _pick(POLICY, policy, "policy"))

    def set_backend(self, backend: str) -> "Request":
        return self._call("confine_request_set_backend", _pick(BACKEND, backend, "backend"))

    def set_tty(self, tty: str) -> "Request":
        return self._call("confine_request_set_tty", _pick(TTY, tty, "tty"))

    def set_timeout(self, seconds: float) -> "Request":
        """Wall-clock limit; the whole sandbox is killed when it expires (status 137)."""
        return self._call("confine_request_set_timeout", _ms(seconds, "timeout"))

    def set_kill_grace(self, seconds: float) -> "Request":
        return self._call("confine_request_set_kill_grace", _ms(seconds, "kill grace"))

    def set_limits(self, pids: int = 0, memory: int = 0) -> "Request":
        return self._call("confine_request_set_limits", pids, memory)

    def set_tmp_size(self, nbytes: int) -> "Request":
        return self._call("confine_request_set_tmp_size", nbytes)

    # -- environment (SPEC 5) --
    def set_environment(self, env: Mapping[str, str]) -> "Request":
        """The base environment (default: this process's), filtered as SPEC 5 says."""
        items = [_native.encode("%s=%s" % (k, v)) for k, v in env.items()]
        arr = (ctypes.c_char_p * (len(items) + 1))(*items, None)
        return self._call("confine_request_set_environment", arr)

    def set_env(self, name: str, value: str) -> "Request":
        return self._call("confine_request_env_set", _native.encode(name),
                          _native.encode(value))

    def pass_env(self, pattern: str) -> "Request":
        return self._call("confine_request_env_pass", _native.encode(pattern))

    def unset_env(self, pattern: str) -> "Request":
        return self._call("confine_request_env_unset", _native.encode(pattern))

    def clear_env(self, clear: bool = True) -> "Request":
        return self._call("confine_request_env_clear", bool(clear))

    # -- read-only injections (SPEC 6) --
    def inject_env(self, name: str, data: Union[bytes, str]) -> "Request":
        """The command finds DATA in a read-only file whose path is in variable NAME."""
        return self._inject(0, name, data)

    def inject_file(self, target: StrPath, data: Union[bytes, str]) -> "Request":
        return self._inject(1, target, data)

    def _inject(self, placement: int, where: StrPath, data: Union[bytes, str]) -> "Request":
        w = _native.encode(where)
        d = data.encode() if isinstance(data, str) else bytes(data)
        return self._call("confine_request_add_injection_n", placement, w, len(w), d, len(d))

    # -- credentials (R44, R45) --
    def set_ssh_agent(self, on: bool = True) -> "Request":
        """The ssh-agent filter: the command signs only with the keys add_ssh_key() names."""
        return self._call("confine_request_set_ssh_agent", bool(on))

    def add_ssh_key(self, key: str) -> "Request":
        return self._call("confine_request_add_ssh_key", _native.encode(key))

    def add_secret(self, spec: str) -> "Request":
        """A credential placeholder: "NAME=SOURCE@HOST[,HOST...]"."""
        return self._call("confine_request_add_secret", _native.encode(spec))

    def tls_inspect(self, hosts: str) -> "Request":
        return self._call("confine_request_tls_inspect", _native.encode(hosts))

    # -- records (SPEC 7.3, 8) --
    def set_audit_file(self, path: StrPath) -> "Request":
        return self._call("confine_request_set_audit_file", _native.encode(path))

    def set_report_file(self, path: StrPath) -> "Request":
        return self._call("confine_request_set_report_file", _native.encode(path))

    def set_denial_scan(self, on: bool) -> "Request":
        return self._call("confine_request_set_denial_scan", bool(on))

    # -- approvals (SPEC 7) --
    def set_escalate(self, escalate: bool = True) -> "Request":
        return self._call("confine_request_set_escalate", bool(escalate))

    def set_reusable(self, reusable: bool = True) -> "Request":
        return self._call("confine_request_set_reusable", bool(reusable))

    def add_write_grant(self, target: str) -> "Request":
        """"PATH:file" or "PATH:subtree"; needs an approved card (card(), set_receipt())."""
        return self._call("confine_request_add_write_grant", _native.encode(target))

    def set_grant_reason(self, reason: str) -> "Request":
        return self._call("confine_request_set_grant_reason", _native.encode(reason))

    def set_receipt(self, digest: str) -> "Request":
        return self._call("confine_request_set_receipt", _native.encode(digest))

    def set_id(self, request_id: str) -> "Request":
        return self._call("confine_request_set_id", _native.encode(request_id))

    # -- questions about the request --
    def card(self) -> dict[str, Any]:
        """The approval card of an escalation or write grants, as a dict (its JSON)."""
        card, e = c_void_p(), _native.Error()
        check(self._lib.confine_card_new(self.handle, byref(card), byref(e)), e)
        try:
            out = c_void_p()
            check(self._lib.confine_card_json(card, byref(out), byref(e)), e)
            return dict(json.loads(_native.take_string(out)))
        finally:
            self._lib.confine_card_free(card)

    def explain(self, path: StrPath, access: str = "read") -> dict[str, Any]:
        """Which rule decides ACCESS (read or write) of PATH, as `confine explain --json`."""
        acc = _pick({"read": 1, "write": 2}, access, "access")
        return self._with_rules(lambda r, e: self._explain(r, _native.encode(path), acc, e))

    def explain_net(self, host_port: str) -> dict[str, Any]:
        """Which rule decides "HOST[:PORT]", as `confine explain --json --net`."""
        return self._with_rules(lambda r, e: self._explain_net(r, _native.encode(host_port), e))

    def _with_rules(self, fn: Any) -> dict[str, Any]:
        rules, e = c_void_p(), _native.Error()
        check(self._lib.confine_rules_load(self.handle, byref(rules), byref(e)), e)
        try:
            return dict(json.loads(fn(rules, e)))
        finally:
            self._lib.confine_rules_free(rules)

    def _explain(self, rules: c_void_p, path: bytes, access: int, e: _native.Error) -> str:
        d = _native.Decision(size=ctypes.sizeof(_native.Decision))
        check(self._lib.confine_rules_explain(rules, path, access, byref(d), byref(e)), e)
        out = c_void_p()
        check(self._lib.confine_decision_json(byref(d), byref(out), byref(e)), e)
        return _native.take_string(out)

    def _explain_net(self, rules: c_void_p, host: bytes, e: _native.Error) -> str:
        d = _native.NetDecision(size=ctypes.sizeof(_native.NetDecision))
        check(self._lib.confine_rules_explain_net(rules, host, byref(d), byref(e)), e)
        mode, out = self._lib.confine_rules_net_mode(rules), c_void_p()
        check(self._lib.confine_net_decision_json(byref(d), mode, byref(out), byref(e)), e)
        return _native.take_string(out)

    def plan(self, as_json: bool = False) -> str:
        """The compiled plan (`confine run --print-plan`); prepares, runs nothing."""
        run, e = c_void_p(), _native.Error()
        check(self._lib.confine_run_prepare(self.handle, byref(run), byref(e)), e)
        try:
            out = c_void_p()
            check(self._lib.confine_run_plan_text(run, bool(as_json), byref(out), byref(e)), e)
            return _native.take_string(out)
        finally:
            self._lib.confine_run_free(run)

    # -- running --
    def start(self, stdin: "Stream" = None, stdout: "Stream" = None,
              stderr: "Stream" = None) -> "Process":
        """Starts the command (see Process); raises ConfineError when it cannot."""
        from ._process import Process
        return Process(self, stdin, stdout, stderr)

    def run(self, *, input: Optional[bytes] = None, capture_output: bool = False,
            stdin: "Stream" = None, stdout: "Stream" = None,
            stderr: "Stream" = None) -> "Completed":
        """Runs the command to its end: its exit status and the report (Completed)."""
        from ._process import PIPE
        if capture_output:
            stdout = stderr = PIPE
        if input is not None:
            stdin = PIPE
        with self.start(stdin, stdout, stderr) as p:
            out, err = p.communicate(input)
        return p.completed(out, err)
