// SPDX-License-Identifier: MIT
// Not run: compiled by `tsc --noEmit` (scripts/typecheck.js) to check index.d.ts as a host
// uses it; the @ts-expect-error lines must stay errors.
import * as confine from '..';
import { ConfineError, ConfinedProcess, Report } from '..';

async function host(): Promise<number> {
	const p: ConfinedProcess = confine.spawn('npx', ['-y', 'some-mcp-server'], {
		workspace: '/home/ana/project',
		allow: ['~/.npm:write', { path: '/opt/data', access: 'read' }],
		network: false,
		timeout: 60_000,
		stdio: ['pipe', 'pipe', 'inherit'],
	});
	p.stdout?.on('data', (d: Buffer) => d.length);
	p.stdin?.write('{}\n');
	p.on('exit', (code: number | null, signal: NodeJS.Signals | null) => void [code, signal]);
	p.kill('SIGTERM');
	const { status, report } = await p.finished;
	const r: Report | null = report;
	if (r && r.status_from === 'confine') return 125;
	try {
		const res = await confine.run('ls', { encoding: 'utf8', input: 'x' });
		res.stdout.length;
	} catch (e) {
		if (e instanceof ConfineError) return e.exitStatus ?? 125;
	}
	const d = await confine.explain(['/etc/shadow'], { access: 'read' });
	d[0].decision;
	const pr = await confine.probe({ noCache: true });
	pr.backends[0].guarantees.read_protection;
	const c = await confine.card('rm', ['-rf', 'build'], { grantWrite: { path: 'build', kind: 'subtree' }, reason: 'clean' });
	c.digest.toUpperCase();
	// @ts-expect-error an access confine does not know
	confine.spawn('ls', [], { allow: [{ path: '/x', access: 'all' }] });
	// @ts-expect-error the policy is required or off
	confine.run('ls', [], { policy: 'maybe' });
	return status ?? 0;
}
void host;
