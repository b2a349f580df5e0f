// SPDX-License-Identifier: MIT
// Real sandboxed commands through the binding: allowed and denied, each with a control on the
// host.  The confine binary: $CONFINE_BIN or PATH; the backend: $CONFINE_TEST_BACKEND (bwrap
// by default).  Fixtures live under /var/tmp: the sandbox's /tmp is private (bwrap), so a home
// under /tmp would be invisible inside instead of refused.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const confine = require('..');

const backend = process.env.CONFINE_TEST_BACKEND || 'bwrap';
const landlock = backend === 'landlock';
const base = fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir();
const top = fs.mkdtempSync(path.join(base, 'confine-node-test-'));
fs.chmodSync(top, 0o755);
const home = path.join(top, 'home');
const ws = path.join(home, 'proj');
const secret = path.join(home, '.ssh', 'id_ed25519');
const plain = path.join(home, 'plain.txt');
fs.mkdirSync(path.join(home, '.ssh'), { recursive: true, mode: 0o700 });
fs.mkdirSync(ws, { recursive: true });
fs.writeFileSync(secret, 'ssh-secret\n', { mode: 0o600 });
fs.writeFileSync(plain, 'plain\n');
fs.writeFileSync(path.join(home, '.bashrc'), 'bashrc\n');
test.after(() => fs.rmSync(top, { recursive: true, force: true }));

// A controlled environment, as the enforcement tests use: the fake home, no host secrets.
const env = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: home, LANG: 'C' };
const opts = (more) => Object.assign({ workspace: ws, cwd: ws, env, backend }, more || {});
const node = process.execPath;
// Prints "OK" or the errno's name of one operation, as tests/tools/tryop does.
const tryop = (op, p) =>
	[`-e`, `const fs=require('fs');try{${op}(process.argv[1]${op === 'fs.writeFileSync' ? ",'x'" : ''});console.log('OK')}catch(e){console.log(e.code)}`, p];

test('a guarded file: readable on the host, EACCES inside', async () => {
	assert.equal(fs.readFileSync(secret, 'utf8'), 'ssh-secret\n'); // the control
	const r = await confine.run(node, tryop('fs.readFileSync', secret), opts());
	assert.equal(r.stdout, 'EACCES\n');
	assert.equal(r.status, 0);
	assert.equal(r.report.status_from, 'command');
});

test('a read a deny rule refuses: EACCES; without the rule: read', async () => {
	const allowed = await confine.run(node, tryop('fs.readFileSync', plain), opts());
	assert.equal(allowed.stdout, 'OK\n');
	const denied = await confine.run(node, tryop('fs.readFileSync', plain),
		opts({ deny: [{ path: plain, access: 'read' }] }));
	assert.equal(denied.stdout, 'EACCES\n');
	// cat's own status and message: the exact outcome a host sees.
	const cat = await confine.run('cat', [plain], opts({ deny: [{ path: plain, access: 'read' }] }));
	assert.equal(cat.status, 1);
	assert.match(cat.stderr, /Permission denied/);
	assert.deepEqual(cat.report.denied_paths, [plain]);
});

test('a workspace write works; a write outside it is refused', async () => {
	const f = path.join(ws, 'out.txt');
	const w = await confine.run(node, tryop('fs.writeFileSync', f), opts());
	assert.equal(w.stdout, 'OK\n');
	assert.equal(fs.readFileSync(f, 'utf8'), 'x');
	const bashrc = path.join(home, '.bashrc');
	const o = await confine.run(node, tryop('fs.writeFileSync', bashrc), opts());
	assert.equal(o.stdout, landlock ? 'EACCES\n' : 'EROFS\n');
	assert.equal(fs.readFileSync(bashrc, 'utf8'), 'bashrc\n');
});

test('streams, exit status and the report', async () => {
	const r = await confine.run('sh', ['-c', 'cat; echo err >&2; exit 7'], opts({ input: 'hello\n' }));
	assert.equal(r.status, 7);
	assert.equal(r.signal, null);
	assert.equal(r.stdout, 'hello\n');
	assert.equal(r.stderr, 'err\n');
	assert.equal(r.report.exit_status, 7);
	assert.equal(r.report.backend, backend);
	assert.deepEqual(r.report.argv, ['sh', '-c', 'cat; echo err >&2; exit 7']);
	assert.equal(r.report.workspace, ws);
	assert.equal(r.report.error, null);
	assert.match(r.report.policy_digest, /^[0-9a-f]{64}$/);
});

test('spawn: stdout stream, exit event, then close', async () => {
	const p = confine.spawn('echo', ['one', 'two'], opts());
	const seen = [];
	let out = '';
	p.stdout.on('data', (d) => (out += d));
	p.on('exit', (code) => seen.push(['exit', code, p.report && p.report.exit_status]));
	const closed = new Promise((res) => p.on('close', (code) => res(code)));
	assert.equal(await closed, 0);
	assert.deepEqual(seen, [['exit', 0, 0]]);
	assert.equal(out, 'one two\n');
	assert.deepEqual(await p.finished, { status: 0, signal: null, report: p.report });
});

// The command says it is ready on stdout (no fixed sleep), then waits forever.
function startWaiting(more) {
	const p = confine.spawn('sh', ['-c', 'sleep 1000 & echo ready; wait'], opts(more));
	const ready = new Promise((res, rej) => {
		let out = '';
		p.stdout.on('data', (d) => {
			out += d;
			if (out.includes('ready\n')) res();
		});
		p.on('exit', () => rej(new Error('ended before it was ready')));
	});
	return { p, ready };
}

test('kill(): SIGTERM is forwarded, the command ends with 128+15, the report says so',
	{ timeout: 60000 }, async () => {
		const { p, ready } = startWaiting();
		await ready;
		assert.equal(p.kill(), true);
		const { status, signal, report } = await p.finished;
		assert.equal(status, 143);
		assert.equal(signal, null);
		assert.equal(report.exit_status, 143);
		assert.equal(report.status_from, 'command');
	});

test('kill("SIGKILL"): confine dies and the whole sandbox with it (stdout closes)',
	{ timeout: 60000 }, async () => {
		const { p, ready } = startWaiting();
		await ready;
		const closed = new Promise((res) => p.on('close', (code, sig) => res([code, sig])));
		p.kill('SIGKILL');
		// 'close' needs every holder of the stdout pipe gone: the background sleep too.
		assert.deepEqual(await closed, [null, 'SIGKILL']);
		assert.equal(p.report, null);
	});

test('a timeout kills the whole sandbox: 137, timed_out in the report', { timeout: 60000 }, async () => {
	const r = await confine.run('sleep', ['1000'], opts({ timeout: 300 }));
	assert.equal(r.status, 137);
	assert.equal(r.report.timed_out, true);
});

test('confine refusing: a ConfineError with the report\'s fields', async () => {
	await assert.rejects(confine.run('no-such-command-here', [], opts()), (e) => {
		assert.ok(e instanceof confine.ConfineError);
		assert.equal(e.exitStatus, 127);
		assert.equal(e.code, -10);
		assert.equal(e.subject, 'no-such-command-here');
		assert.match(e.message, /^confine: cannot run command: 'no-such-command-here': /);
		assert.match(e.hint, /PATH/);
		return true;
	});
	await assert.rejects(confine.run('true', [], opts({ workspace: '/' })), (e) => {
		assert.equal(e.exitStatus, 125);
		assert.equal(e.code, -4);
		assert.equal(e.report.status_from, 'confine');
		return true;
	});
	assert.throws(() => confine.spawn('true', [], opts({ allow: [{ path: ws, access: 'all' }] })),
		/access is read, write or both/);
});

test('the policy is always required unless the caller says off', async () => {
	// CONFINE_SANDBOX_POLICY=off in the environment would run the command unconfined.
	const r = await confine.run(node, tryop('fs.readFileSync', secret),
		opts({ env: Object.assign({ CONFINE_SANDBOX_POLICY: 'off' }, env) }));
	assert.equal(r.stdout, 'EACCES\n');
});

test('explain: the guard and the workspace', async () => {
	const d = await confine.explain([secret, path.join(ws, 'x')], opts());
	const read = d.filter((x) => x.access === 'read');
	assert.equal(read[0].path, secret);
	assert.equal(read[0].decision, 'deny');
	assert.equal(read[0].layer, 'guard');
	assert.equal(read[1].decision, 'allow');
	const n = await confine.explain([], opts({ net: 'example.com', netAllow: 'example.com' }));
	assert.equal(n[0].network, 'example.com');
	assert.equal(n[0].decision, 'allow');
	await assert.rejects(confine.explain([plain], opts({ sessionRules: path.join(top, 'none.json') })),
		(e) => e instanceof confine.ConfineError && e.exitStatus === 125 && e.subject !== '');
});

test('probe: the backend under test is available', async () => {
	const p = await confine.probe({ env });
	const b = p.backends.find((x) => x.backend === backend);
	assert.equal(b.available, true);
	assert.equal(b.code, 'available');
	assert.equal(typeof b.guarantees.read_protection, 'string');
});

test('card: the escalation card with its digest', async () => {
	const c = await confine.card('true', ['a b'], opts());
	assert.equal(c.kind, 'escalate');
	assert.deepEqual(c.argv, ['true', 'a b']);
	assert.match(c.digest, /^[0-9a-f]{64}$/);
	assert.match(c.request_id, /^[0-9a-f]{32}$/);
	assert.match(await confine.version({ env }), /^\d+\.\d+\.\d+/);
});
