#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A Model Context Protocol stdio server and client, written for the tests (mcp.t), Python
standard library only.  They speak the protocol's JSON-RPC 2.0 over stdio as the
specification describes it (one message per line, no embedded newline): initialize,
notifications/initialized, tools/list, tools/call, ping; errors as JSON-RPC errors, a failed
tool as a result with isError.

  mcp.py server                   serve read_file and write_file on stdin/stdout
  mcp.py client CMD ARG...        start CMD (e.g. confine run -- mcp.py server), then:
      read PATH                   tools/call read_file; prints `read PATH: ok TEXT` or
                                  `read PATH: error ERRNO-NAME`
      write PATH                  tools/call write_file; `write PATH: ok` or `... error NAME`
    read from the environment variable MCP_STEPS, one step a line; the client prints what the
    handshake gave (protocol, server, tools), each step's outcome, and the server's exit status.
"""
import errno
import json
import os
import select
import subprocess
import sys
import time

PROTOCOL = "2025-06-18"
DEADLINE = float(os.environ.get("MCP_DEADLINE", "60"))


# ---- the server ----

TOOLS = [
    {
        "name": "read_file",
        "description": "Read a text file.",
        "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}},
                        "required": ["path"]},
    },
    {
        "name": "write_file",
        "description": "Write a text file.",
        "inputSchema": {"type": "object",
                        "properties": {"path": {"type": "string"},
                                       "content": {"type": "string"}},
                        "required": ["path", "content"]},
    },
]


def tool_result(text, is_error=False):
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


def call_tool(name, args):
    try:
        if name == "read_file":
            with open(args["path"], encoding="utf-8", errors="replace") as f:
                return tool_result(f.read())
        if name == "write_file":
            with open(args["path"], "w", encoding="utf-8") as f:
                f.write(args["content"])
            return tool_result("written")
    except OSError as e:
        # What a real server reports: the error name first, as Node's fs does (EACCES: ...).
        return tool_result("%s: %s" % (errno.errorcode.get(e.errno, "E?"), e), True)
    return None


def handle(msg, state):
    method, mid = msg.get("method"), msg.get("id")
    if method == "initialize":
        state["initialized"] = True
        asked = msg.get("params", {}).get("protocolVersion", PROTOCOL)
        return {"protocolVersion": asked if asked == PROTOCOL else PROTOCOL,
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "confine-test-fs", "version": "1"}}
    if method == "ping":
        return {}
    if not state.get("initialized"):
        raise RpcError(-32002, "not initialized")
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        params = msg.get("params") or {}
        result = call_tool(params.get("name"), params.get("arguments") or {})
        if result is None:
            raise RpcError(-32602, "unknown tool %r" % params.get("name"))
        return result
    raise RpcError(-32601, "method not found: %s" % method)


class RpcError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def server():
    state = {}
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            out.write(json.dumps({"jsonrpc": "2.0", "id": None,
                                  "error": {"code": -32700, "message": "parse error"}}) + "\n")
            out.flush()
            continue
        if "id" not in msg:  # a notification: nothing to answer
            continue
        try:
            reply = {"jsonrpc": "2.0", "id": msg["id"], "result": handle(msg, state)}
        except RpcError as e:
            reply = {"jsonrpc": "2.0", "id": msg["id"],
                     "error": {"code": e.code, "message": str(e)}}
        out.write(json.dumps(reply) + "\n")
        out.flush()


# ---- the client ----

class Client:
    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.buf = b""
        self.next_id = 0

    def send(self, msg):
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()

    def receive(self, want_id):
        until = time.monotonic() + DEADLINE
        fd = self.proc.stdout.fileno()
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                msg = json.loads(line)
                if msg.get("jsonrpc") != "2.0":
                    raise SystemExit("not JSON-RPC 2.0: %r" % line)
                if msg.get("id") == want_id:
                    return msg
            r, _, _ = select.select([fd], [], [], max(0.0, until - time.monotonic()))
            if not r:
                raise SystemExit("no answer to request %d" % want_id)
            data = os.read(fd, 65536)
            if not data:
                raise SystemExit("the server closed the connection (request %d)" % want_id)
            self.buf += data

    def request(self, method, params=None):
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return self.receive(self.next_id)


def outcome(reply):
    if "error" in reply:
        return "rpc-error %d" % reply["error"]["code"]
    res = reply["result"]
    text = "".join(c.get("text", "") for c in res.get("content", []))
    if res.get("isError"):
        return "error " + text.split(":", 1)[0]
    return "ok " + text.strip()


def client(argv):
    c = Client(argv)
    init = c.request("initialize", {"protocolVersion": PROTOCOL, "capabilities": {},
                                    "clientInfo": {"name": "confine-test", "version": "1"}})
    info = init["result"]
    print("protocol: %s" % info["protocolVersion"])
    print("server: %s" % info["serverInfo"]["name"])
    c.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    print("ping: %s" % ("ok" if c.request("ping").get("result") == {} else "bad"))
    tools = c.request("tools/list")["result"]["tools"]
    print("tools: %s" % " ".join(sorted(t["name"] for t in tools)))
    for step in os.environ.get("MCP_STEPS", "").splitlines():
        if not step.strip():
            continue
        op, path = step.split(" ", 1)
        if op == "read":
            r = c.request("tools/call", {"name": "read_file", "arguments": {"path": path}})
        else:
            r = c.request("tools/call", {"name": "write_file",
                                         "arguments": {"path": path, "content": "mcp\n"}})
        print("%s %s: %s" % (op, path, outcome(r)))
    print("unknown: %s" % outcome(c.request("resources/unknown")))
    c.proc.stdin.close()
    try:
        print("exit: %d" % c.proc.wait(timeout=DEADLINE))
    except subprocess.TimeoutExpired:
        c.proc.kill()
        raise SystemExit("the server did not end after its input closed")


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "server":
        server()
    elif len(sys.argv) >= 3 and sys.argv[1] == "client":
        client(sys.argv[2:])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
