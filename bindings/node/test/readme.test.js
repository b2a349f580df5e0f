// SPDX-License-Identifier: MIT
// The README's example is examples/mcp-host.js, and it runs as written: an MCP server (the
// repository's tests/enforce/mcp.py, or $CONFINE_TEST_MCP) confined to its workspace reads a
// workspace file and is refused the home's SSH key (EACCES), which the same server reads
// unconfined; the report says what was enforced.  The backend: $CONFINE_TEST_BACKEND.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const childProcess = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const confine = require('..');

const backend = process.env.CONFINE_TEST_BACKEND || 'bwrap';
const pkg = path.join(__dirname, '..');
const example = path.join(pkg, 'examples', 'mcp-host.js');
const mcp = process.env.CONFINE_TEST_MCP ||
	path.join(pkg, '..', '..', 'tests', 'enforce', 'mcp.py');

const noMcp = !fs.existsSync(mcp) && `no ${mcp} (set CONFINE_TEST_MCP)`;

function readmeBlock() {
	const text = fs.readFileSync(path.join(pkg, 'README.md'), 'utf8');
	const start = text.indexOf('```js\n');
	assert.notEqual(start, -1, 'README.md has a ```js block');
	const body = start + '```js\n'.length;
	return text.slice(body, text.indexOf('```\n', body));
}

test('the README shows examples/mcp-host.js as it is', () => {
	const file = fs.readFileSync(example, 'utf8');
	// The file's SPDX line is the file's; the rest is the README's block.
	assert.match(file, /^\/\/ SPDX-License-Identifier: MIT\n/);
	assert.equal(readmeBlock(), file.slice(file.indexOf('\n') + 1));
});

// A scratch tree outside /tmp (the sandbox's /tmp is its own): HOME with .ssh/id_ed25519, the
// workspace HOME/proj with notes.txt and mcp.py, and confine-sandbox where require finds it.
function scratch(t) {
	const base = fs.existsSync('/var/tmp') ? '/var/tmp' : require('node:os').tmpdir();
	const top = fs.mkdtempSync(path.join(base, 'confine-node-readme-'));
	t.after(() => fs.rmSync(top, { recursive: true, force: true }));
	fs.chmodSync(top, 0o755);
	const home = path.join(top, 'home');
	const ws = path.join(home, 'proj');
	const key = path.join(home, '.ssh', 'id_ed25519');
	fs.mkdirSync(path.dirname(key), { recursive: true, mode: 0o700 });
	fs.mkdirSync(ws, { recursive: true });
	fs.writeFileSync(key, 'ssh-secret\n', { mode: 0o600 });
	fs.writeFileSync(path.join(ws, 'notes.txt'), 'hello\n');
	fs.copyFileSync(mcp, path.join(ws, 'mcp.py'));
	fs.mkdirSync(path.join(top, 'modules'));
	fs.symlinkSync(pkg, path.join(top, 'modules', 'confine-sandbox'));
	const env = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: home, LANG: 'C',
		NODE_PATH: path.join(top, 'modules'), CONFINE_BIN: confine.findConfine(),
		CONFINE_BACKEND: backend };
	return { home, ws, key, env };
}

const requests = (key) => [
	{ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18',
		capabilities: {}, clientInfo: { name: 'control', version: '1' } } },
	{ jsonrpc: '2.0', method: 'notifications/initialized' },
	{ jsonrpc: '2.0', id: 2, method: 'tools/call',
		params: { name: 'read_file', arguments: { path: key } } },
].map((m) => JSON.stringify(m) + '\n').join('');

function runExample(cwd, env) {
	return new Promise((resolve) => {
		childProcess.execFile(process.execPath, [example], { cwd, env, timeout: 60000 },
			(e, stdout, stderr) => resolve({ code: e ? e.code : 0, signal: e && e.signal, stdout, stderr }));
	});
}

test('the example runs as written: notes.txt read, the SSH key refused EACCES, the report',
	{ timeout: 120000, skip: noMcp },
	async (t) => {
		const { ws, key, env } = scratch(t);
		// The control: the same server, unconfined, reads the key.
		const host = childProcess.spawnSync('python3', ['mcp.py', 'server'],
			{ cwd: ws, env, input: requests(key), encoding: 'utf8', timeout: 60000 });
		assert.equal(host.status, 0, host.stderr);
		const reply = JSON.parse(host.stdout.trim().split('\n').pop());
		assert.deepEqual(reply.result.content[0].text, 'ssh-secret\n');

		const r = await runExample(ws, env);
		assert.deepEqual([r.code, r.signal], [0, null], r.stderr);
		assert.deepEqual(r.stdout.split('\n'), [
			'notes.txt read: hello',
			`${key} refused: EACCES`,
			`exit status 0 backend ${backend}`,
			`network off | read protection: ${backend === 'bwrap' ? 'enforced (mount namespace)' :
				'enforced (Landlock path rules; hidden names stay visible)'}`,
			'',
		]);
	});

test('the example when confine refuses the workspace (/): confine\'s message, status 1',
	{ timeout: 60000, skip: noMcp }, async (t) => {
		const { env } = scratch(t);
		const r = await runExample('/', env);
		const msg = "confine: workspace refused: '.': it is the root directory '/'";
		assert.deepEqual([r.code, r.signal, r.stdout], [1, null, '']);
		// confine's own line (stderr inherited), then the host's: the ConfineError's message.
		assert.deepEqual(r.stderr.split('\n'), [msg, msg, '']);
	});
