// SPDX-License-Identifier: MIT
// `tsc --noEmit` over index.d.ts and test/types-check.ts, a host's use of every export.  tsc
// and @types/node: this package's devDependencies (npm install), else a tsc on PATH with
// @types/node beside the package.  Without them it says so loudly and exits 0 (npm test must
// run offline); tests/bindings/node.t installs them and counts a missing one as a skip.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const here = path.join(__dirname, '..');
const local = path.join(here, 'node_modules', '.bin', 'tsc');
let tsc = fs.existsSync(local) ? local : null;
if (!tsc) {
	for (const d of (process.env.PATH || '').split(path.delimiter)) {
		if (path.isAbsolute(d) && fs.existsSync(path.join(d, 'tsc'))) {
			tsc = path.join(d, 'tsc');
			break;
		}
	}
}
let types = null;
try {
	types = require.resolve('@types/node/package.json', { paths: [here] });
} catch {
	types = null;
}
if (!tsc || !types) {
	const what = !tsc ? 'tsc' : '@types/node';
	console.error(`typecheck: SKIP: ${what} is not installed; hint: run 'npm install' in ${here}`);
	process.exit(0);
}
const r = spawnSync(tsc, ['--noEmit', '-p', path.join(here, 'tsconfig.json')], { stdio: 'inherit' });
if (r.status !== 0) {
	console.error(`typecheck: FAILED: ${tsc} exited ${r.status === null ? r.signal : r.status}`);
	process.exit(1);
}
console.log(`typecheck: ok (${tsc})`);
