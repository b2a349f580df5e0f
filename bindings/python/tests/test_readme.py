# SPDX-License-Identifier: MIT
"""The README's example is examples/mcp_host.py, and it runs as written: an MCP server (the
repository's tests/enforce/mcp.py) confined to its workspace reads a workspace file, is
refused the home's SSH key (EACCES), and the report says what was enforced."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import unittest

from .support import BACKEND, HERE, Sandboxed

TOP = os.path.dirname(HERE)
MCP = os.environ.get("CONFINE_TEST_MCP") or os.path.join(TOP, "..", "..", "tests", "enforce",
                                                           "mcp.py")
EXAMPLE = os.path.join(TOP, "examples", "mcp_host.py")


def readme_block() -> str:
    with open(os.path.join(TOP, "README.md"), encoding="utf-8") as f:
        text = f.read()
    start = text.index("```python\n") + len("```python\n")
    return text[start:text.index("```\n", start)]


class Readme(Sandboxed):
    def test_readme_shows_the_example(self) -> None:
        with open(EXAMPLE, encoding="utf-8") as f:
            example = f.read()
        # The file's SPDX line is the file's; the rest is the README's block.
        self.assertEqual(readme_block(), example.split("\n", 1)[1])

    def test_example_runs(self) -> None:
        if not os.path.exists(MCP):
            raise unittest.SkipTest("tests/enforce/mcp.py is not here (set CONFINE_TEST_MCP)")
        shutil.copy(MCP, os.path.join(self.ws, "mcp.py"))
        env = dict(self.env(), PYTHONPATH=TOP, PYTHONDONTWRITEBYTECODE="1",
                   CONFINE_BACKEND=BACKEND)
        # ... and the sanitizer runtimes a sanitizer build of the library needs first.
        for k in ("CONFINE_LIB", "CONFINE_BUILD", "CONFINE_HELPER", "LD_PRELOAD",
                  "ASAN_OPTIONS", "UBSAN_OPTIONS"):
            if k in os.environ:
                env[k] = os.environ[k]
        r = subprocess.run([sys.executable, EXAMPLE], cwd=self.ws, env=env,
                           capture_output=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertEqual(r.stdout.decode().splitlines(), [
            "notes.txt read: hello",
            "%s refused: EACCES" % self.key,
            "exit status 0 backend %s" % BACKEND,
            "network off | read protection: %s" % (
                "enforced (mount namespace)" if BACKEND == "bwrap" else
                "enforced (Landlock path rules; hidden names stay visible)"),
        ])
