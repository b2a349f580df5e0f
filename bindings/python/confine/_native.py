# SPDX-License-Identifier: MIT
"""The C side: libconfine.so.1 loaded with ctypes, and the declarations of the confine_*
functions this package calls (include/confine.h, ABI v1).

Where the library is looked for, first match wins:
  1. CONFINE_LIB: the path of libconfine.so.1 (or .so) itself;
  2. CONFINE_BUILD: a build tree of confine (`make` in the source): BUILD/src/lib/libconfine.so.1;
  3. when this package runs from confine's source tree (bindings/python), that tree's build/
     after `make`;
  4. the dynamic loader's search for libconfine.so.1 (/usr/lib/..., LD_LIBRARY_PATH, ldconfig).
The in-sandbox helper confine-init is CONFINE_HELPER when set, else BUILD/confine-init for a
build tree (2, 3), else the library's own default (its libexec directory).
"""
from __future__ import annotations

import ctypes
import os
import threading
from ctypes import (POINTER, Structure, c_bool, c_char, c_char_p, c_int, c_int64, c_size_t,
                    c_uint, c_uint16, c_uint64, c_void_p)
from typing import Any, Optional

SONAME = "libconfine.so.1"
ABI = 1


class Error(Structure):
    """struct confine_error: fixed for ABI v1."""
    _fields_ = [("code", c_int), ("os_errno", c_int), ("syscall", c_char * 32),
                ("what", c_char * 128), ("subject", c_char * 1024), ("line", c_int),
                ("column", c_int), ("reason", c_char * 512), ("hint", c_char * 512)]


class VersionInfo(Structure):
    _fields_ = [("size", c_size_t), ("major", c_uint), ("minor", c_uint), ("micro", c_uint),
                ("abi", c_uint), ("text", c_char_p)]


class ProbeResult(Structure):
    _fields_ = [("size", c_size_t), ("backend", c_char * 16), ("available", c_bool),
                ("code", c_char * 32), ("path", c_char * 1024), ("version", c_char * 32),
                ("reason", c_char * 512), ("hint", c_char * 512), ("cached", c_bool),
                ("landlock_abi", c_int), ("seccomp", c_bool), ("cgroup", c_bool),
                ("read_protection", c_char * 64), ("write_protection", c_char * 64),
                ("network_isolation", c_char * 64), ("syscall_filter", c_char * 96),
                ("process_scoping", c_char * 128), ("resource_limits", c_char * 96),
                ("not_provided", c_char * 1024), ("network_by_domain", c_char * 160)]


class Decision(Structure):
    _fields_ = [("size", c_size_t), ("path", c_char * 4096), ("access", c_int),
                ("action", c_int), ("layer", c_char * 16), ("has_rule", c_bool),
                ("source", c_char * 1024), ("index", c_int), ("line", c_int),
                ("column", c_int), ("pattern", c_char * 4096), ("has_outranked", c_bool),
                ("outranked_source", c_char * 1024), ("outranked_index", c_int),
                ("outranked_line", c_int), ("outranked_column", c_int),
                ("outranked_pattern", c_char * 4096)]


class NetDecision(Structure):
    _fields_ = [("size", c_size_t), ("host", c_char * 256), ("port", c_uint16),
                ("action", c_int), ("layer", c_char * 16), ("has_rule", c_bool),
                ("source", c_char * 1024), ("index", c_int), ("line", c_int),
                ("column", c_int), ("list", c_char * 8), ("pattern", c_char * 272)]


class Event(Structure):
    _fields_ = [("size", c_size_t), ("kind", c_char * 40), ("path", c_char * 4096),
                ("rule", c_char * 4096), ("detail", c_char * 4160)]


_P = POINTER
_E = _P(Error)
# name: (restype, argtypes).  Every one of them is in include/confine.h.
_DECLS: dict[str, tuple[Any, list[Any]]] = {
    "confine_version": (_P(VersionInfo), []),
    "confine_free": (None, [c_void_p]),
    "confine_strerror": (c_char_p, [c_int]),
    "confine_display_escape": (c_int, [c_char_p, c_uint, _P(c_void_p), _E]),
    "confine_request_new": (c_int, [_P(c_void_p), _E]),
    "confine_request_free": (None, [c_void_p]),
    "confine_request_set_argv": (c_int, [c_void_p, c_size_t, _P(c_char_p), _E]),
    "confine_request_set_workspace": (c_int, [c_void_p, c_char_p, _E]),
    "confine_request_add_rule": (c_int, [c_void_p, c_char_p, c_int, c_int, _E]),
    "confine_request_add_session_rules_file": (c_int, [c_void_p, c_char_p, _E]),
    "confine_request_set_network": (c_int, [c_void_p, c_bool, _E]),
    "confine_request_set_policy": (c_int, [c_void_p, c_int, _E]),
    "confine_request_set_backend": (c_int, [c_void_p, c_int, _E]),
    "confine_request_set_tmp_size": (c_int, [c_void_p, c_uint64, _E]),
    "confine_request_set_helper": (c_int, [c_void_p, c_char_p, _E]),
    "confine_request_set_limits": (c_int, [c_void_p, c_uint64, c_uint64, _E]),
    "confine_request_set_timeout": (c_int, [c_void_p, c_uint64, _E]),
    "confine_request_set_kill_grace": (c_int, [c_void_p, c_uint64, _E]),
    "confine_request_set_tty": (c_int, [c_void_p, c_int, _E]),
    "confine_request_set_environment": (c_int, [c_void_p, _P(c_char_p), _E]),
    "confine_request_env_set": (c_int, [c_void_p, c_char_p, c_char_p, _E]),
    "confine_request_env_pass": (c_int, [c_void_p, c_char_p, _E]),
    "confine_request_env_unset": (c_int, [c_void_p, c_char_p, _E]),
    "confine_request_env_clear": (c_int, [c_void_p, c_bool, _E]),
    "confine_request_add_injection_n": (c_int, [c_void_p, c_int, c_char_p, c_size_t,
                                                c_char_p, c_size_t, _E]),
    "confine_request_net_allow": (c_int, [c_void_p, c_char_p, _E]),
    "confine_request_net_deny": (c_int, [c_void_p, c_char_p, _E]),
    "confine_request_set_audit_file": (c_int, [c_void_p, c_char_p, _E]),
    "confine_request_set_report_file": (c_int, [c_void_p, c_char_p, _E]),
    "confine_request_set_denial_scan": (c_int, [c_void_p, c_bool, _E]),
    "confine_request_set_escalate": (c_int, [c_void_p, c_bool, _E]),
    "confine_request_set_reusable": (c_int, [c_void_p, c_bool, _E]),
    "confine_request_add_write_grant": (c_int, [c_void_p, c_char_p, _E]),
    "confine_request_set_grant_reason": (c_int, [c_void_p, c_char_p, _E]),
    "confine_request_set_receipt": (c_int, [c_void_p, c_char_p, _E]),
    "confine_request_set_id": (c_int, [c_void_p, c_char_p, _E]),
    "confine_request_audit_error": (c_int, [c_void_p, _E]),
    "confine_request_write_report": (c_int, [c_void_p, c_void_p, c_int, _E, _E]),
    "confine_report_json": (c_int, [c_void_p, c_void_p, c_int, _E, _P(c_void_p), _E]),
    "confine_probe_bwrap": (c_int, [c_char_p, c_char_p, c_bool, _P(ProbeResult), _E]),
    "confine_probe_landlock": (c_int, [_P(ProbeResult), _E]),
    "confine_probe_json": (c_int, [_P(ProbeResult), _P(c_void_p), _E]),
    "confine_request_set_stdio": (c_int, [c_void_p, c_int, c_int, c_int, _E]),
    "confine_run_prepare": (c_int, [c_void_p, _P(c_void_p), _E]),
    "confine_run_free": (None, [c_void_p]),
    "confine_run_plan_text": (c_int, [c_void_p, c_bool, _P(c_void_p), _E]),
    "confine_run_start": (c_int, [c_void_p, _E]),
    "confine_run_forward_signal": (c_int, [c_void_p, c_int]),
    "confine_run_wait": (c_int, [c_void_p, _P(c_int), _E]),
    "confine_run_status_from_command": (c_bool, [c_void_p]),
    "confine_run_timed_out": (c_bool, [c_void_p]),
    "confine_run_backend": (c_char_p, [c_void_p]),
    "confine_run_fallback_note": (c_char_p, [c_void_p]),
    "confine_run_landlock_note": (c_char_p, [c_void_p]),
    "confine_run_id": (c_char_p, [c_void_p]),
    "confine_run_policy_digest": (c_char_p, [c_void_p]),
    "confine_run_notice_count": (c_size_t, [c_void_p]),
    "confine_run_notice": (_P(Event), [c_void_p, c_size_t]),
    "confine_rules_load": (c_int, [c_void_p, _P(c_void_p), _E]),
    "confine_rules_free": (None, [c_void_p]),
    "confine_rules_explain": (c_int, [c_void_p, c_char_p, c_int, _P(Decision), _E]),
    "confine_decision_json": (c_int, [_P(Decision), _P(c_void_p), _E]),
    "confine_rules_explain_net": (c_int, [c_void_p, c_char_p, _P(NetDecision), _E]),
    "confine_rules_net_mode": (c_int, [c_void_p]),
    "confine_net_decision_json": (c_int, [_P(NetDecision), c_int, _P(c_void_p), _E]),
    "confine_request_set_ssh_agent": (c_int, [c_void_p, c_bool, _E]),
    "confine_request_add_ssh_key": (c_int, [c_void_p, c_char_p, _E]),
    "confine_request_add_secret": (c_int, [c_void_p, c_char_p, _E]),
    "confine_request_tls_inspect": (c_int, [c_void_p, c_char_p, _E]),
    "confine_card_new": (c_int, [c_void_p, _P(c_void_p), _E]),
    "confine_card_free": (None, [c_void_p]),
    "confine_card_json": (c_int, [c_void_p, _P(c_void_p), _E]),
}


class _Loaded:
    def __init__(self, lib: ctypes.CDLL, path: str, helper: Optional[str]) -> None:
        self.lib = lib
        self.path = path
        self.helper = helper


_lock = threading.Lock()
_loaded: Optional[_Loaded] = None


def _candidates() -> list[tuple[str, Optional[str]]]:
    helper = os.environ.get("CONFINE_HELPER") or None
    out: list[tuple[str, Optional[str]]] = []
    if os.environ.get("CONFINE_LIB"):
        out.append((os.environ["CONFINE_LIB"], helper))
    build = os.environ.get("CONFINE_BUILD")
    if build:
        h = helper or os.path.join(build, "confine-init")
        out.append((os.path.join(build, "src", "lib", SONAME), h))
    # The source tree: bindings/python/confine/ here, meson.build at the top.
    pkg = os.path.dirname(os.path.abspath(__file__))
    top = os.path.dirname(os.path.dirname(os.path.dirname(pkg)))
    if os.path.isfile(os.path.join(pkg, "..", "pyproject.toml")) and \
            os.path.isfile(os.path.join(top, "meson.build")):
        build = os.path.join(top, "build")
        lib = os.path.join(build, "src", "lib", SONAME)
        if os.path.isfile(lib):
            out.append((lib, helper or os.path.join(build, "confine-init")))
    out.append((SONAME, helper))
    return out


def load() -> _Loaded:
    """The library, loaded once (see the module's text for where it is looked for)."""
    global _loaded
    with _lock:
        if _loaded is not None:
            return _loaded
        tried = []
        for path, helper in _candidates():
            try:
                # CDLL releases the GIL around each call: a wait blocks no other thread.
                lib = ctypes.CDLL(path)
            except OSError as e:
                tried.append("%s (%s)" % (path, e))
                continue
            for name, (res, args) in _DECLS.items():
                fn = getattr(lib, name)
                fn.restype = res
                fn.argtypes = args
            v = lib.confine_version().contents
            if v.abi != ABI:
                raise OSError("confine: cannot use the library: '%s': its ABI is %d, this "
                              "package needs %d" % (path, v.abi, ABI))
            _loaded = _Loaded(lib, path, helper)
            return _loaded
        raise OSError("confine: cannot load the library: '%s': not found\nhint: install "
                      "libconfine1, or set CONFINE_LIB to the path of %s (or CONFINE_BUILD "
                      "to a build tree of confine)" % ("', '".join(tried), SONAME))


def lib() -> Any:
    return load().lib


def take_string(p: c_void_p) -> str:
    """A string the library allocated for the caller: decoded, then freed (confine_free)."""
    if not p.value:
        return ""
    try:
        return ctypes.string_at(p.value).decode("utf-8", "surrogateescape")
    finally:
        lib().confine_free(p)


def text(b: Optional[bytes]) -> str:
    return b.decode("utf-8", "surrogateescape") if b else ""


def encode(s: "str | bytes | os.PathLike[str]") -> bytes:
    if isinstance(s, bytes):
        return s
    return os.fsencode(s)


__all__ = ["Error", "VersionInfo", "ProbeResult", "Decision", "NetDecision", "Event", "load",
           "lib", "take_string", "text", "encode", "c_int", "c_int64"]
