// SPDX-License-Identifier: MIT
// An agent host runs an MCP server (stdio) confined to its project, then reads the report.
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const confine = require('confine-sandbox');

// The server's command, as the host configures it: the workspace writable, no network.
const server = confine.spawn('python3', ['mcp.py', 'server'], {
  workspace: '.',
  network: false,
  stdio: ['pipe', 'pipe', 'inherit'],
});
server.stdin.on('error', () => {}); // EPIPE when the server has ended: call() says why
const replies = readline.createInterface({ input: server.stdout })[Symbol.asyncIterator]();

async function call(id, method, params) {
  server.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  const { value, done } = await replies.next();
  if (done) { // the server ended: confine refused to run it (what, subject, reason, hint), or it failed
    await server.finished;
    throw server.error || new Error(`the server ended, exit status ${server.exitCode}`);
  }
  return JSON.parse(value).result;
}

async function main() {
  await call(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {},
    clientInfo: { name: 'my-host', version: '1' } });
  server.stdin.write('{"jsonrpc": "2.0", "method": "notifications/initialized"}\n');
  const files = ['notes.txt', path.join(os.homedir(), '.ssh', 'id_ed25519')];
  for (const [i, file] of files.entries()) {
    const res = await call(i + 2, 'tools/call', { name: 'read_file', arguments: { path: file } });
    console.log(file, res.isError ? 'refused:' : 'read:', res.content[0].text.split(':')[0].trim());
  }
  server.stdin.end(); // the server ends at the end of its input

  const { status, report } = await server.finished; // SPEC 7.3: what was enforced, what happened
  console.log('exit status', status, 'backend', report.backend);
  console.log('network', report.network, '| read protection:', report.guarantees.read_protection);
}

main().catch((e) => {
  console.error(e.message);
  server.kill();
  process.exitCode = 1;
});
