# SPDX-License-Identifier: MIT
# An agent host runs an MCP server (stdio) confined to its project, then reads the report.
import json
import os

import confine

server = ["python3", "mcp.py", "server"]  # the server's command, as the host configures it
req = confine.Request(server, workspace=".", network=False)

with req.start(stdin=confine.PIPE, stdout=confine.PIPE) as proc:
    def call(id, method, params):
        msg = {"jsonrpc": "2.0", "id": id, "method": method, "params": params}
        proc.stdin.write(json.dumps(msg).encode() + b"\n")
        proc.stdin.flush()
        return json.loads(proc.stdout.readline())["result"]

    call(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "my-host", "version": "1"}})
    proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
    for n, path in enumerate(["notes.txt", os.path.expanduser("~/.ssh/id_ed25519")], 2):
        res = call(n, "tools/call", {"name": "read_file", "arguments": {"path": path}})
        text = res["content"][0]["text"].split(":")[0].strip()
        print(path, "refused:" if res["isError"] else "read:", text)
    proc.stdin.close()  # the server ends at the end of its input

report = proc.report  # SPEC 7.3: what was enforced, and what happened
print("exit status", proc.returncode, "backend", report["backend"])
print("network", report["network"], "| read protection:", report["guarantees"]["read_protection"])
