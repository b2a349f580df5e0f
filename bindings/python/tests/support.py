# SPDX-License-Identifier: MIT
"""What the tests share: a scratch tree outside /tmp (the sandbox's /tmp is its own), a fake
home with an SSH key in it (a guarded file), a workspace, a controlled environment, and the
backend under test (CONFINE_TEST_BACKEND: bwrap, the default, or landlock).

The library is found as the package finds it: CONFINE_LIB / CONFINE_BUILD, else the system's
libconfine.so.1.  Without a working sandbox the tests are skipped, loudly; with
CONFINE_TEST_MUST_WORK=1 that is a failure instead."""
from __future__ import annotations

import os
import shutil
import tempfile
import unittest
from typing import Any

import confine

BACKEND = os.environ.get("CONFINE_TEST_BACKEND", "bwrap")
MUST_WORK = os.environ.get("CONFINE_TEST_MUST_WORK") == "1"
# The interpreter the sandboxed commands run: the system's, which every user can execute (an
# interpreter under /root, a pyenv one, is not reachable by uid 65534).
PY = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else shutil.which("python3")
HERE = os.path.dirname(os.path.abspath(__file__))
# Tries one file operation and prints OK or the errno's name (exit status 3 then).
TRY = ("import errno, sys\n"
       "op, path = sys.argv[1], sys.argv[2]\n"
       "try:\n"
       "    if op == 'read':\n"
       "        print('OK', open(path).read().strip())\n"
       "    else:\n"
       "        open(path, 'w').write('written\\n'); print('OK')\n"
       "except OSError as e:\n"
       "    print(errno.errorcode[e.errno]); sys.exit(3)\n")

_checked: dict[str, Any] = {}


def require_sandbox() -> None:
    """Skips (or, under CONFINE_TEST_MUST_WORK=1, fails) when the backend cannot run here."""
    if "probe" not in _checked:
        _checked["probe"] = confine.probe(BACKEND)
    p = _checked["probe"]
    if not p.get("available"):
        why = "the %s backend is not available here: %s (%s)" % (BACKEND, p.get("code"),
                                                                 p.get("reason"))
        if MUST_WORK:
            raise AssertionError("CONFINE_TEST_MUST_WORK=1 but " + why)
        raise unittest.SkipTest(why)


class Sandboxed(unittest.TestCase):
    """A fresh scratch tree per test: ROOT/home (with .ssh/id_ed25519), ROOT/home/proj (the
    workspace, with notes.txt) and ROOT/other (outside the workspace, with secret.txt)."""

    def setUp(self) -> None:
        require_sandbox()
        self.root = tempfile.mkdtemp(prefix="confine-py.", dir="/var/tmp")
        os.chmod(self.root, 0o755)
        self.addCleanup(shutil.rmtree, self.root, True)
        self.home = os.path.join(self.root, "home")
        self.ws = os.path.join(self.home, "proj")
        self.other = os.path.join(self.root, "other")
        self.key = os.path.join(self.home, ".ssh", "id_ed25519")
        for d in (self.ws, os.path.dirname(self.key), self.other):
            os.makedirs(d)
        self.write(self.key, "ssh-secret\n")
        self.write(os.path.join(self.ws, "notes.txt"), "hello\n")
        self.write(os.path.join(self.other, "secret.txt"), "other-secret\n")
        self.tryop = os.path.join(self.root, "tryop.py")
        self.write(self.tryop, TRY)

    @staticmethod
    def write(path: str, text: str) -> None:
        with open(path, "w") as f:
            f.write(text)

    def env(self) -> dict[str, str]:
        return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": self.home, "LANG": "C.UTF-8"}

    def request(self, argv: list[str], **kw: Any) -> confine.Request:
        req = confine.Request(argv, workspace=self.ws, backend=BACKEND, **kw)
        req.set_environment(self.env())
        self.addCleanup(req.close)
        return req

    def try_op(self, op: str, path: str, **kw: Any) -> confine.Completed:
        return self.request([PY, self.tryop, op, path], **kw).run(capture_output=True)

    def host_op(self, op: str, path: str) -> str:
        """The control: the same operation without confine."""
        import subprocess
        r = subprocess.run([PY, self.tryop, op, path], capture_output=True, env=self.env())
        return r.stdout.decode().strip()
