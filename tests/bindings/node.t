#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Node binding (bindings/node, issue 27): `npm test` against the build tree's confine, on
# both backends, as root and as uid 65534 (real sandboxed commands: denied reads with their
# errno, a workspace write, kill, the report; the README's example, an MCP host, run as
# written), its types checked by tsc, and the `npm pack` tarball installed into a new project
# and used from there.  Without node and npm: a loud skip.
source "$(dirname "$0")/../lib.sh"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	skip "node or npm is not installed (scripts/install-deps test installs them)"
	done_testing
	exit
fi
if ! "$CONFINE" probe >/dev/null 2>&1; then
	skip "no sandbox backend works on this machine ('confine probe')"
	done_testing
	exit
fi

# The package as it is in the repository (no node_modules of a developer's), reachable by 65534,
# and the MCP server its README's example runs (test/readme.test.js).
pkg=$T/node
if git -C "$TOP" ls-files --error-unmatch bindings/node/package.json >/dev/null 2>&1; then
	mkdir -p "$T/src"
	(cd "$TOP" && git ls-files -z bindings/node | xargs -0 cp --parents -t "$T/src")
	mv "$T/src/bindings/node" "$pkg"
else
	cp -r "$TOP/bindings/node" "$pkg"
	rm -rf "$pkg/node_modules" "$pkg/package-lock.json"
fi
cp "$TOP/tests/enforce/mcp.py" "$T/mcp.py" && chmod 0644 "$T/mcp.py"
export CONFINE_TEST_MCP=$T/mcp.py
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
npmhome=$T/npmhome
mkdir -p "$npmhome" && chmod 0777 "$npmhome"

# tsc and @types/node, the devDependencies, from the registry; without it the type check is
# a skip (a failure under CONFINE_TEST_MUST_WORK).
if (cd "$pkg" && HOME=$npmhome npm_config_cache=$npmhome/root-cache npm install >"$T/install.log" 2>&1); then
	typed=1
else
	typed=0
	skip "npm install of the devDependencies (typescript, @types/node) failed: $(tail -n 1 "$T/install.log")"
fi
chmod -R a+rX "$pkg"

for be in bwrap landlock; do
	for who in root nobody; do
		log=$T/npm-$be-$who.log
		run=(env HOME="$npmhome" npm_config_cache="$npmhome/$who-cache" CONFINE_BIN="$FIX/confine"
			CONFINE_TEST_BACKEND="$be" npm test)
		if [ "$who" = nobody ]; then
			(cd "$pkg" && as_nobody "${run[@]}") >"$log" 2>&1 </dev/null
		else
			(cd "$pkg" && "${run[@]}") >"$log" 2>&1 </dev/null
		fi
		rc=$?
		pass=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$log")
		fail=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$log")
		is "$rc/${pass:-none}/${fail:-none}" "0/16/0" "npm test [$be] as $who: 16 real sandboxed checks (the README's example among them) pass, none fails"
		[ "$rc" -eq 0 ] || grep -E -B2 -A12 '^not ok' "$log" | head -n 60 | sed 's/^/#   /'
		if [ "$typed" = 1 ]; then
			grep -q '^typecheck: ok' "$log"
			ok $? "npm test [$be] as $who: tsc --noEmit accepts index.d.ts and refuses what it must"
		fi
	done
done

# npm pack: the tarball holds the package and nothing of the tests, the tools or examples/ (the
# README holds the example, which needs the repository's mcp.py).
mkdir -p "$T/pack"
tgz=$(cd "$pkg" && HOME=$npmhome npm_config_cache=$npmhome/root-cache npm pack --silent --pack-destination "$T/pack" 2>"$T/pack.log" | tail -n 1)
is "$(tar -tzf "$T/pack/$tgz" 2>/dev/null | sort | tr '\n' ' ')" \
	"package/README.md package/index.d.ts package/index.js package/package.json " \
	"npm pack: $tgz holds index.js, index.d.ts, README.md and package.json"

# Installed into a new project, offline (a local tarball, no dependency), and used from there:
# a read the rules deny is refused inside, with the host's read as the control.
proj=$T/proj
mkdir -p "$proj/ws" && chmod -R 0755 "$proj"
echo secret >"$proj/ws/plain.txt"
(cd "$proj" && echo '{"name":"host","version":"1.0.0","private":true}' >package.json &&
	HOME=$npmhome npm_config_cache=$npmhome/root-cache npm install --offline "$T/pack/$tgz" >"$T/proj-install.log" 2>&1)
ok $? "the tarball installs into a new project offline"
is "$(cat "$proj/ws/plain.txt")" "secret" "control: plain.txt is readable on the host"
cat >"$proj/use.js" <<'JS'
const confine = require('confine-sandbox');
const p = require('path').join(__dirname, 'ws', 'plain.txt');
const code = "try{require('fs').readFileSync(process.argv[1]);console.log('OK')}catch(e){console.log(e.code)}";
const o = { workspace: require('path').join(__dirname, 'ws'), backend: 'bwrap' };
(async () => {
  const a = await confine.run(process.execPath, ['-e', code, p], o);
  const d = await confine.run(process.execPath, ['-e', code, p], Object.assign({ deny: [{ path: p, access: 'read' }] }, o));
  console.log(a.stdout.trim(), d.stdout.trim(), d.report.status_from);
})().catch((e) => { console.log(String(e)); process.exit(1); });
JS
is "$(cd "$proj" && CONFINE_BIN=$FIX/confine node use.js 2>&1)" "OK EACCES command" \
	"the installed package runs a sandboxed read: allowed, then EACCES under a deny rule"
if [ "$typed" = 1 ]; then
	printf 'import { run, Report } from "confine-sandbox";\nconst r: Promise<{ report: Report | null }> = run("ls");\nvoid r;\n' >"$proj/use.ts"
	(cd "$proj" && "$pkg/node_modules/.bin/tsc" --noEmit --strict --types node --typeRoots "$pkg/node_modules/@types" use.ts) >"$T/proj-tsc.log" 2>&1
	ok $? "the installed package's types resolve for a TypeScript host (tsc --noEmit)"
	sed 's/^/#   /' "$T/proj-tsc.log" | head -n 10
fi

done_testing
