// SPDX-License-Identifier: MIT
// confine for Node: the shape of child_process.spawn (streams, 'exit', kill) for a command run
// inside confine's sandbox, plus the post-run report, explain, probe and card.  Built on the
// confine CLI and its JSON interfaces (README.md says why), with no dependency and no native
// code.
'use strict';

const childProcess = require('node:child_process');
const { EventEmitter } = require('node:events');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ACCESS = new Set(['read', 'write', 'both']);

// A failure of confine, with the fields of its struct confine_error as the report or the
// CLI's message gives them.
class ConfineError extends Error {
	constructor(fields) {
		const f = fields || {};
		const what = f.what || 'confine failed';
		let msg = `confine: ${what}`;
		if (f.subject) msg += `: '${f.subject}'`;
		if (f.reason) msg += `: ${f.reason}`;
		if (f.hint) msg += `\nhint: ${f.hint}`;
		super(msg);
		this.name = 'ConfineError';
		this.code = f.code === undefined ? null : f.code;
		this.kind = f.kind || null;
		this.what = what;
		this.subject = f.subject || '';
		this.reason = f.reason || '';
		this.hint = f.hint || '';
		this.exitStatus = f.exitStatus === undefined ? null : f.exitStatus;
		this.report = f.report || null;
		this.stderr = f.stderr === undefined ? null : f.stderr;
	}

	// The error a report carries when confine, not the command, decided the status.
	static fromReport(report, extra) {
		const e = report.error || {};
		return new ConfineError(Object.assign({ code: e.code, kind: e.kind, what: e.what,
			subject: e.subject, reason: e.reason, hint: e.hint,
			exitStatus: report.exit_status, report }, extra));
	}

	// The CLI's message: "confine: WHAT: 'SUBJECT': REASON" then "hint: REMEDY".
	static fromStderr(stderr, exitStatus) {
		const lines = String(stderr).split('\n');
		const i = lines.findIndex((l) => l.startsWith('confine: '));
		const f = { exitStatus, stderr: String(stderr) };
		if (i < 0) {
			f.what = 'confine failed';
			f.reason = `exit status ${exitStatus}`;
			return new ConfineError(f);
		}
		const line = lines[i].slice('confine: '.length);
		const m = /^(.*?): '((?:[^'\\]|\\.)*)': (.*)$/.exec(line);
		if (m) {
			f.what = m[1];
			f.subject = m[2];
			f.reason = m[3];
		} else {
			const c = line.indexOf(': ');
			f.what = c < 0 ? line : line.slice(0, c);
			f.reason = c < 0 ? '' : line.slice(c + 2);
		}
		const h = lines.slice(i + 1).find((l) => l.startsWith('hint: '));
		if (h) f.hint = h.slice('hint: '.length);
		return new ConfineError(f);
	}
}

function isExecutable(p) {
	try {
		fs.accessSync(p, fs.constants.X_OK);
		return fs.statSync(p).isFile();
	} catch {
		return false;
	}
}

// The confine binary: options.confine, else $CONFINE_BIN, else the first absolute PATH entry
// holding one.  Relative PATH entries ("", ".") are skipped: they would let the current
// directory, often the workspace a command may write, choose the sandbox.
function findConfine(options) {
	const given = (options && options.confine) || process.env.CONFINE_BIN;
	if (given) return path.resolve(given);
	const name = process.platform === 'win32' ? 'confine.exe' : 'confine';
	for (const dir of (process.env.PATH || '').split(path.delimiter)) {
		if (!path.isAbsolute(dir)) continue;
		const p = path.join(dir, name);
		if (isExecutable(p)) return p;
	}
	throw new ConfineError({ what: 'cannot find confine', subject: name,
		reason: 'not in any absolute directory of PATH',
		hint: 'install confine, or set the confine option or CONFINE_BIN to its path' });
}

function invalid(name, value, reason) {
	return new ConfineError({ code: -2, kind: 'invalid argument', what: 'invalid option',
		subject: `${name}=${String(value)}`, reason });
}

function str(name, v) {
	if (typeof v !== 'string' && typeof v !== 'number') throw invalid(name, v, 'not a string');
	const s = String(v);
	if (s.includes('\0')) throw invalid(name, JSON.stringify(s), 'holds a NUL byte');
	return s;
}

function list(name, v) {
	if (v === undefined || v === null) return [];
	return Array.isArray(v) ? v : [v];
}

// A rule as --allow takes it.  An object is always written with its access, so that a path
// that itself ends in ":read" is never read as PATH plus access.
function rule(name, r) {
	if (typeof r === 'string') return str(name, r);
	if (!r || typeof r !== 'object') throw invalid(name, r, 'not a rule');
	const access = r.access === undefined ? 'both' : r.access;
	if (!ACCESS.has(access)) throw invalid(name, access, 'access is read, write or both');
	return `${str(name, r.path)}:${access}`;
}

function seconds(name, ms) {
	if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0)
		throw invalid(name, ms, 'milliseconds, a positive number');
	return String(ms / 1000);
}

// The options of `confine run` that explain and card take as well, as --NAME=VALUE arguments
// (a value that starts with '-' is never read as an option).
function ruleArgs(o) {
	const a = [];
	const opt = (flag, v) => a.push(`--${flag}=${v}`);
	if (o.workspace !== undefined) opt('workspace', str('workspace', o.workspace));
	for (const k of ['allow', 'ask', 'deny'])
		for (const r of list(k, o[k])) opt(k, rule(k, r));
	for (const f of list('sessionRules', o.sessionRules))
		opt('session-rules', str('sessionRules', f));
	if (o.network === false) a.push('--no-network');
	for (const [k, flag] of [['netAllow', 'net-allow'], ['netDeny', 'net-deny']]) {
		for (const d of list(k, o[k])) {
			const s = str(k, d);
			if (s.includes(',')) throw invalid(k, s, 'one host per element');
			opt(flag, s);
		}
	}
	return a;
}

function runArgs(o) {
	const a = ruleArgs(o);
	const opt = (flag, v) => a.push(`--${flag}=${v}`);
	if (o.noNetAsk) a.push('--no-net-ask');
	// Always said: a CONFINE_SANDBOX_POLICY=off in the host's environment never turns the
	// sandbox off behind the caller's back; only policy: 'off' does.
	const policy = o.policy === undefined ? 'required' : o.policy;
	if (policy !== 'required' && policy !== 'off')
		throw invalid('policy', policy, "'required' or 'off'");
	opt('policy', policy);
	if (o.backend !== undefined) {
		if (!['auto', 'bwrap', 'landlock'].includes(o.backend))
			throw invalid('backend', o.backend, "'auto', 'bwrap' or 'landlock'");
		opt('backend', o.backend);
	}
	for (const [n, v] of Object.entries(o.setEnv || {})) opt('env', `${str('setEnv', n)}=${str('setEnv', v)}`);
	for (const p of list('passEnv', o.passEnv)) opt('pass-env', str('passEnv', p));
	for (const p of list('unsetEnv', o.unsetEnv)) opt('unset-env', str('unsetEnv', p));
	if (o.clearEnv) a.push('--clearenv');
	if (o.tmpSize !== undefined) opt('tmp-size', str('tmpSize', o.tmpSize));
	if (o.limits) {
		const l = [];
		if (o.limits.pids !== undefined) l.push(`pids=${str('limits.pids', o.limits.pids)}`);
		if (o.limits.memory !== undefined) l.push(`mem=${str('limits.memory', o.limits.memory)}`);
		if (l.length) opt('limit', l.join(','));
	}
	if (o.timeout !== undefined) opt('timeout', seconds('timeout', o.timeout));
	if (o.tty === true) a.push('--tty');
	if (o.tty === false) a.push('--no-tty');
	for (const [n, f] of Object.entries(o.injectEnv || {})) opt('inject-env', `${str('injectEnv', n)}=${str('injectEnv', f)}`);
	for (const [t, f] of Object.entries(o.injectPath || {})) opt('inject-path', `${str('injectPath', t)}=${str('injectPath', f)}`);
	for (const g of list('grantWrite', o.grantWrite)) {
		if (!g || typeof g !== 'object' || !['file', 'subtree'].includes(g.kind))
			throw invalid('grantWrite', JSON.stringify(g), "{path, kind: 'file' or 'subtree'}");
		opt('grant-write', `${str('grantWrite', g.path)}:${g.kind}`);
	}
	if (o.reason !== undefined) opt('reason', str('reason', o.reason));
	if (o.requestId !== undefined) opt('request-id', str('requestId', o.requestId));
	if (o.receipt !== undefined) opt('receipt', str('receipt', o.receipt));
	if (o.escalate) a.push('--escalate');
	return a;
}

function commandArgs(command, args) {
	return ['--', str('command', command), ...list('args', args).map((x) => str('args', x))];
}

// A command run inside the sandbox, shaped like child_process.ChildProcess: stdin, stdout,
// stderr, stdio, pid (confine's), kill(), and the events 'spawn', 'exit' (code, signal),
// 'close' (code, signal) and 'error'.  When 'exit' is emitted, .report holds the post-run
// report, and .error the ConfineError when confine, not the command, decided the status.
class ConfinedProcess extends EventEmitter {
	constructor(command, args, options) {
		super();
		const o = options || {};
		const argv = ['run', ...runArgs(o)];
		this.confine = findConfine(o);
		// A directory of our own for the report: confine opens the file before the command
		// starts, without following symlinks, and keeps it out of the sandbox (SPEC 2.4).
		this._dir = fs.mkdtempSync(path.join(os.tmpdir(), 'confine-node-'));
		this._reportFile = path.join(this._dir, 'report.json');
		argv.push(`--report=${this._reportFile}`, ...commandArgs(command, args));
		this.spawnargs = [this.confine, ...argv];
		this.report = null;
		this.error = null;
		this.exitCode = null;
		this.signalCode = null;
		let child;
		try {
			child = childProcess.spawn(this.confine, argv, { cwd: o.cwd, env: o.env,
				stdio: o.stdio === undefined ? 'pipe' : o.stdio, windowsHide: true });
		} catch (e) {
			this._cleanup();
			throw e;
		}
		this._child = child;
		this.pid = child.pid;
		this.stdin = child.stdin;
		this.stdout = child.stdout;
		this.stderr = child.stderr;
		this.stdio = child.stdio;
		this.finished = new Promise((resolve, reject) => {
			this.once('exit', (code, signal) =>
				resolve({ status: code, signal, report: this.report }));
			this.once('error', reject);
		});
		// An unobserved rejection must not end the host: 'error' listeners see it too.
		this.finished.catch(() => {});
		child.on('spawn', () => this.emit('spawn'));
		child.on('error', (e) => {
			this._cleanup();
			this.emit('error', e);
		});
		child.on('exit', (code, signal) => this._exited(code, signal));
		child.on('close', (code, signal) => this.emit('close', code, signal));
	}

	_exited(code, signal) {
		try {
			this.report = JSON.parse(fs.readFileSync(this._reportFile, 'utf8'));
		} catch {
			this.report = null; // confine itself was killed (SIGKILL): no report
		}
		this._cleanup();
		if (this.report && this.report.status_from === 'confine' && this.report.error)
			this.error = ConfineError.fromReport(this.report);
		this.exitCode = code;
		this.signalCode = signal;
		this.emit('exit', code, signal);
	}

	_cleanup() {
		if (this._dir) fs.rmSync(this._dir, { recursive: true, force: true });
		this._dir = null;
	}

	get killed() {
		return this._child ? this._child.killed : false;
	}

	// Signals confine, which forwards SIGINT, SIGTERM, SIGHUP and SIGQUIT to the command and
	// kills the whole sandbox when the command has not ended 5 s after the last three (status
	// 137).  SIGKILL ends confine at once: the kernel then kills the sandbox with it (no report).
	kill(signal) {
		return this._child.kill(signal === undefined ? 'SIGTERM' : signal);
	}

	ref() {
		this._child.ref();
	}

	unref() {
		this._child.unref();
	}
}

function spawn(command, args, options) {
	if (!Array.isArray(args) && args !== undefined && options === undefined) {
		options = args;
		args = [];
	}
	return new ConfinedProcess(command, args, options);
}

// Runs the command to its end: {status, signal, stdout, stderr, report}.  Rejects with a
// ConfineError when confine, not the command, decided the status (a refused workspace, a
// command not found...), with the report, stdout and stderr on it.
function run(command, args, options) {
	if (!Array.isArray(args) && args !== undefined && options === undefined) {
		options = args;
		args = [];
	}
	const o = Object.assign({}, options || {});
	const input = o.input;
	const encoding = o.encoding === undefined ? 'utf8' : o.encoding;
	o.stdio = ['pipe', 'pipe', 'pipe'];
	return new Promise((resolve, reject) => {
		const p = spawn(command, args, o);
		const out = [];
		const err = [];
		p.stdout.on('data', (d) => out.push(d));
		p.stderr.on('data', (d) => err.push(d));
		p.stdin.on('error', () => {}); // the command may not read its input
		p.stdin.end(input === undefined ? undefined : input);
		p.on('error', reject);
		p.on('close', (code, signal) => {
			const dec = (b) => (encoding === 'buffer' ? Buffer.concat(b) : Buffer.concat(b).toString(encoding));
			const stdout = dec(out);
			const stderr = dec(err);
			if (p.error) {
				p.error.stdout = stdout;
				p.error.stderr = stderr;
				reject(p.error);
				return;
			}
			resolve({ status: code, signal, stdout, stderr, report: p.report });
		});
	});
}

// Runs `confine ARGS`, whose stdout is JSON when it exits with one of okStatus.
function cliJson(argv, options, okStatus) {
	const o = options || {};
	return new Promise((resolve, reject) => {
		let bin;
		try {
			bin = findConfine(o);
		} catch (e) {
			reject(e);
			return;
		}
		childProcess.execFile(bin, argv, { cwd: o.cwd, env: o.env, maxBuffer: 64 << 20,
			windowsHide: true }, (e, stdout, stderr) => {
			const status = e ? e.code : 0;
			if (typeof status !== 'number') {
				reject(e);
				return;
			}
			if (!okStatus.includes(status)) {
				reject(ConfineError.fromStderr(stderr, status));
				return;
			}
			try {
				resolve(JSON.parse(stdout));
			} catch (pe) {
				reject(new ConfineError({ what: 'cannot read the output of confine',
					subject: argv[0], reason: pe.message, exitStatus: status, stderr }));
			}
		});
	});
}

// Which rule decides read and write of each path (and each network host of options.net):
// confine explain --json.
function explain(paths, options) {
	const o = options || {};
	const a = ['explain', '--json', ...ruleArgs(o)];
	if (o.access !== undefined) {
		if (o.access !== 'read' && o.access !== 'write')
			throw invalid('access', o.access, "'read' or 'write'");
		a.push(`--access=${o.access}`);
	}
	for (const h of list('net', o.net)) a.push(`--net=${str('net', h)}`);
	const ps = list('paths', paths).map((p) => str('paths', p));
	if (ps.length) a.push('--', ...ps);
	return cliJson(a, o, [0]);
}

// Which backends work here: confine probe --json (status 1: none does, still an answer).
function probe(options) {
	const o = options || {};
	const a = ['probe', '--json'];
	if (o.noCache) a.push('--no-cache');
	if (o.workspace !== undefined) a.push(`--workspace=${str('workspace', o.workspace)}`);
	return cliJson(a, o, [0, 1]);
}

// The approval card of an escalation or a write grant, with its request id and digest.
function card(command, args, options) {
	if (!Array.isArray(args) && args !== undefined && options === undefined) {
		options = args;
		args = [];
	}
	const o = options || {};
	return cliJson(['card', '--json', ...runArgs(o), ...commandArgs(command, args)], o, [0]);
}

// confine --version, e.g. "0.1.0".
function version(options) {
	const o = options || {};
	return new Promise((resolve, reject) => {
		let bin;
		try {
			bin = findConfine(o);
		} catch (e) {
			reject(e);
			return;
		}
		childProcess.execFile(bin, ['--version'], { env: o.env }, (e, stdout, stderr) => {
			if (e) reject(ConfineError.fromStderr(stderr, e.code));
			else resolve(stdout.trim().replace(/^confine\s+/, ''));
		});
	});
}

module.exports = { spawn, run, explain, probe, card, version, ConfineError, ConfinedProcess,
	findConfine };
