# SPDX-License-Identifier: MIT
"""Real commands in the sandbox through the binding: the allowed and the denied case with the
exact errno and exit status, each denial with its host control (the same operation without
confine succeeds)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys

import confine

from .support import BACKEND, HERE, PY, Sandboxed

TOP = os.path.dirname(HERE)

# A write outside every writable area: a read-only bind under bwrap, Landlock's refusal.
WRITE_DENIED = "EROFS" if BACKEND == "bwrap" else "EACCES"


class Files(Sandboxed):
    def test_write_in_workspace_works(self) -> None:
        path = os.path.join(self.ws, "out.txt")
        done = self.try_op("write", path)
        self.assertEqual((done.status, done.stdout), (0, b"OK\n"))
        with open(path) as f:
            self.assertEqual(f.read(), "written\n")
        self.assertEqual(done.backend, BACKEND)
        self.assertEqual(done.report["exit_status"], 0)
        self.assertEqual(done.report["status_from"], "command")

    def test_write_outside_workspace_refused(self) -> None:
        path = os.path.join(self.other, "new.txt")
        self.assertEqual(self.host_op("write", path), "OK")
        os.unlink(path)
        done = self.try_op("write", path)
        self.assertEqual((done.status, done.stdout.decode()), (3, WRITE_DENIED + "\n"))
        self.assertFalse(os.path.exists(path))

    def test_ssh_key_refused(self) -> None:
        self.assertEqual(self.host_op("read", self.key), "OK ssh-secret")
        done = self.try_op("read", self.key)
        self.assertEqual((done.status, done.stdout), (3, b"EACCES\n"))

    def test_deny_rule_refuses_and_allow_read_reads(self) -> None:
        secret = os.path.join(self.other, "secret.txt")
        self.assertEqual(self.host_op("read", secret), "OK other-secret")
        done = self.try_op("read", secret, deny=[self.other])
        self.assertEqual((done.status, done.stdout), (3, b"EACCES\n"))
        done = self.try_op("read", secret)
        self.assertEqual((done.status, done.stdout), (0, b"OK other-secret\n"))

    def test_allow_write_outside_workspace(self) -> None:
        path = os.path.join(self.other, "granted.txt")
        done = self.try_op("write", path, allow=[self.other])
        self.assertEqual((done.status, done.stdout), (0, b"OK\n"))
        with open(path) as f:
            self.assertEqual(f.read(), "written\n")

    def test_stderr_pipe_and_denied_paths(self) -> None:
        # The denial scan copies the command's stderr: the copy goes to the pipe the command
        # was started with, not to this process's own stderr.
        cmd = "cat %s; echo done >&2" % self.key
        done = self.request(["sh", "-c", cmd]).run(capture_output=True)
        self.assertEqual(done.status, 0)
        self.assertEqual(done.stderr.decode(),
                         "cat: %s: Permission denied\ndone\n" % self.key)
        self.assertEqual(done.denied_paths, [self.key])


class Status(Sandboxed):
    def test_exit_status_is_the_commands(self) -> None:
        done = self.request(["sh", "-c", "exit 7"]).run()
        self.assertEqual((done.status, done.report["exit_status"]), (7, 7))

    def test_death_by_signal(self) -> None:
        done = self.request(["sh", "-c", "kill -TERM $$"]).run()
        self.assertEqual(done.status, 128 + signal.SIGTERM)

    def test_stderr_to_stdout(self) -> None:
        done = self.request(["sh", "-c", "echo out; echo err >&2"]).run(
            stdout=confine.PIPE, stderr=confine.STDOUT)
        self.assertEqual((done.status, done.stdout, done.stderr), (0, b"out\nerr\n", None))
        # stdout inherited: stderr goes where this process's stdout goes.
        code = ("import confine, sys\n"
                "r = confine.run(['sh', '-c', 'echo err >&2'], stderr=confine.STDOUT,"
                " workspace=sys.argv[1], backend=sys.argv[2])\n"
                "sys.exit(r.status)\n")
        r = subprocess.run([sys.executable, "-c", code, self.ws, BACKEND], capture_output=True,
                           env=dict(os.environ, PYTHONPATH=TOP), timeout=60)
        self.assertEqual((r.returncode, r.stdout, r.stderr), (0, b"err\n", b""))

    def test_other_threads_output_stays_ours(self) -> None:
        # A thread writes to this process's descriptor 1 in a loop while runs with pipes of
        # their own start: the pipes hold the commands' bytes only, every line of the thread
        # reaches this process's stdout (the binding swapped 0, 1, 2 around the start before).
        code = ("import confine, os, sys, threading\n"
                "stop = threading.Event(); n = [0]\n"
                "def writer():\n"
                "    while not stop.is_set():\n"
                "        os.write(1, b'host %d\\n' % n[0]); n[0] += 1\n"
                "t = threading.Thread(target=writer); t.start()\n"
                "bad = []\n"
                "for i in range(5):\n"
                "    r = confine.run(['sh', '-c', 'cat; echo out; echo err >&2'],"
                " input=b'in\\n', capture_output=True, workspace=sys.argv[1],"
                " backend=sys.argv[2])\n"
                "    if (r.status, r.stdout, r.stderr) != (0, b'in\\nout\\n', b'err\\n'):\n"
                "        bad.append((r.status, r.stdout[:200], r.stderr[:200]))\n"
                "stop.set(); t.join()\n"
                "sys.stderr.write('%d %r' % (n[0], bad))\n"
                "sys.exit(1 if bad else 0)\n")
        r = subprocess.run([sys.executable, "-c", code, self.ws, BACKEND], capture_output=True,
                           env=dict(os.environ, PYTHONPATH=TOP), timeout=120)
        written, _, bad = r.stderr.decode().partition(" ")
        self.assertEqual((r.returncode, bad), (0, "[]"))
        want = b"".join(b"host %d\n" % i for i in range(int(written)))
        self.assertTrue(int(written) > 0 and r.stdout == want, "the thread's lines, in order")

    def test_input_and_output(self) -> None:
        done = self.request(["tr", "a-z", "A-Z"]).run(input=b"hello\n", capture_output=True)
        self.assertEqual((done.status, done.stdout, done.stderr), (0, b"HELLO\n", b""))

    def test_timeout_kills_the_sandbox(self) -> None:
        req = self.request(["sleep", "60"], timeout=0.3)
        done = req.run()
        self.assertEqual(done.status, 128 + signal.SIGKILL)
        self.assertTrue(done.timed_out)

    def test_terminate(self) -> None:
        # Ready when the command says so on its stdout; then SIGTERM ends it.
        script = "trap 'exit 42' TERM; echo ready; while :; do sleep 0.05; done"
        with self.request(["sh", "-c", script]).start(stdout=confine.PIPE) as p:
            assert p.stdout is not None
            self.assertEqual(p.stdout.readline(), b"ready\n")
            self.assertIsNone(p.poll())
            p.terminate()
            self.assertEqual(p.wait(30), 42)
        self.assertEqual(p.report and p.report["exit_status"], 42)

    def test_two_runs_at_once(self) -> None:
        # A host's runs at the same time: the end of one leaves the other running.
        first = self.request(["sh", "-c", 'read x; echo "got $x"']).start(
            stdin=confine.PIPE, stdout=confine.PIPE)
        with first:
            second = self.request(["sh", "-c", "exit 4"]).run()
            self.assertEqual(second.status, 4)
            assert first.stdin is not None and first.stdout is not None
            first.stdin.write(b"on\n")
            first.stdin.flush()
            self.assertEqual(first.stdout.readline(), b"got on\n")
        self.assertEqual(first.returncode, 0)


class Errors(Sandboxed):
    def test_command_not_found(self) -> None:
        with self.assertRaises(confine.CommandNotFoundError) as cm:
            self.request(["no-such-command-here"]).run()
        e = cm.exception
        self.assertEqual((e.code, e.code_name, e.exit_status), (-10, "NOTFOUND", 127))
        self.assertEqual(e.subject, "no-such-command-here")
        self.assertTrue(str(e).startswith("confine: "), str(e))
        self.assertEqual(e.report and e.report["exit_status"], 127)

    def test_invalid_value_refused(self) -> None:
        req = self.request(["true"])
        with self.assertRaises(confine.InvalidError) as cm:
            req.set_id("not an id!")
        self.assertEqual(cm.exception.code, -2)
        self.assertIn("not an id!", cm.exception.subject)
        with self.assertRaises(confine.InvalidError):
            req.inject_env("LD_PRELOAD", b"x")
        with self.assertRaises(confine.InvalidError) as cm:
            req.add_secret("no host here")
        self.assertIn("no host here", str(cm.exception))

    def test_rule_file_error_has_its_line(self) -> None:
        rules = os.path.join(self.root, "rules.json")
        self.write(rules, '{"version": 1,\n "rules": [ {"path": 3} ]}\n')
        req = self.request(["true"]).session_rules_file(rules)
        with self.assertRaises(confine.RulesError) as cm:
            req.run()
        self.assertEqual((cm.exception.code, cm.exception.line), (-3, 2))
        self.assertEqual(cm.exception.subject, rules)

    def test_workspace_refused(self) -> None:
        with self.assertRaises(confine.WorkspaceError) as cm:
            confine.Request(["true"], workspace="/").run()
        self.assertEqual(cm.exception.exit_status, 125)


class Questions(Sandboxed):
    def test_explain(self) -> None:
        # The guard of the home's SSH keys (the request's HOME is the fake home).
        d = confine.explain(self.key, request=self.request(["true"]))
        self.assertEqual((d["path"], d["decision"], d["layer"]), (self.key, "deny", "guard"))
        d = self.request(["true"]).explain(os.path.join(self.ws, "notes.txt"), "write")
        self.assertEqual(d["decision"], "allow")

    def test_probe(self) -> None:
        p = confine.probe(BACKEND)
        self.assertEqual((p["backend"], p["available"], p["code"]), (BACKEND, True, "available"))

    def test_card(self) -> None:
        req = self.request(["true"]).set_escalate(True)
        c = confine.card(req)
        self.assertEqual((c["kind"], c["argv"], c["workspace"]), ("escalate", ["true"], self.ws))
        self.assertRegex(c["digest"], "^[0-9a-f]{64}$")
        # Without the card's receipt the escalation is refused; with it, it runs once.
        with self.assertRaises(confine.ApprovalError):
            req.run()
        req.set_id(c["request_id"]).set_receipt(c["digest"])
        self.assertEqual(req.run().status, 0)
        with self.assertRaises(confine.ApprovalError):
            req.run()

    def test_version(self) -> None:
        v = confine.version()
        self.assertEqual((v["abi"], v["text"]), (1, "%d.%d.%d" % (v["major"], v["minor"],
                                                                  v["micro"])))
