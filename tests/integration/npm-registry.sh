#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Integration (R39, issue 22; `make integration`, not part of tests/run: it reaches the npm
# registry, and the suite talks to loopback only): npm install and npx of real packages from
# registry.npmjs.org under the defaults and --net-allow registry.npmjs.org only, on both
# backends; the host's npm cache untouched, a second run offline from confine's store.  Without
# the registry (or npm, curl) it is a loud skip, never a pass: a banner, a SKIP line (a failure
# under CONFINE_TEST_MUST_WORK=1) and exit status 77, as tests/integration/mcp-sdk.sh.
source "$(dirname "$0")/../lib.sh"

why=""
command -v npm >/dev/null && command -v npx >/dev/null && command -v curl >/dev/null ||
	why="npm, npx and curl are needed (scripts/install-deps test)"
if [ -z "$why" ] && ! curl -sS --max-time 15 -o /dev/null https://registry.npmjs.org/-/ping 2>"$T/ping"; then
	why="registry.npmjs.org is not reachable from here: $(head -c 200 "$T/ping")"
fi
if [ -n "$why" ]; then
	diag "===================================================================="
	diag "SKIPPED, NOT PASSED: npm and npx against registry.npmjs.org did not run"
	diag "$why"
	diag "===================================================================="
	skip "npm and npx against registry.npmjs.org: $why"
	(done_testing)
	exit 77 # never a pass: make reports it
fi

# Where the registry's name resolves to a non-public address here (a mirror or an intercepting
# proxy of this network), confine's proxy refuses it unless a rule names the address (SPEC 12,
# DNS rebinding): the address is named, and the log says so.
NET=(--net-allow registry.npmjs.org)
for a in $(getent ahosts registry.npmjs.org | awk '{print $1}' | sort -u); do
	if ! python3 -c 'import ipaddress, sys; sys.exit(not ipaddress.ip_address(sys.argv[1]).is_global)' "$a"; then
		diag "registry.npmjs.org resolves to the non-public address $a here: named with --net-allow"
		NET=(--net-allow "registry.npmjs.org,$a")
	fi
done

# A network whose proxy signs TLS with its own CA names it for node here (the runs get a clean
# environment, which would drop it).
ca=()
[ -n "${NODE_EXTRA_CA_CERTS:-}" ] && ca=("NODE_EXTRA_CA_CERTS=$NODE_EXTRA_CA_CERTS")

H=$T/home
for backend in bwrap landlock; do
	rm -rf "$H"
	mkdir -p "$H/.npm" "$H/app" "$H/app2"
	hash_npm() { (cd "$H/.npm" && find . -printf '%p %y %m %s\n' | LC_ALL=C sort) | sha256sum; }
	before=$(hash_npm)
	run() { # dir args...: confine run in dir with a clean environment
		local d=$1
		shift
		out=$(cd "$d" && env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$H" LANG=C.UTF-8 "${ca[@]}" \
			CONFINE_BACKEND=$backend timeout 300 "$FIX/confine" run "$@" 2>"$T/err")
		rc=$?
		err=$(cat "$T/err")
	}
	run "$H/app" "${NET[@]}" -- npm install --no-audit --no-fund left-pad@1.3.0
	is "$rc" 0 "$backend: npm install left-pad from registry.npmjs.org with only --net-allow" ||
		diag "$err"
	[ -f "$H/app/node_modules/left-pad/package.json" ]
	ok $? "$backend: ... installed"
	run "$H/app" "${NET[@]}" -- npx -y semver@7.6.0 1.2.3
	is "$out" "1.2.3" "$backend: npx -y semver@7.6.0 (uncached) with only --net-allow" || diag "$err"
	is "$(hash_npm)" "$before" "$backend: the host's ~/.npm is unchanged"
	cp "$H/app/package.json" "$H/app2/"
	run "$H/app2" --no-network -- npm install --offline --no-audit --no-fund
	if [ "$backend" = bwrap ]; then
		# A store per workspace: app2 has none of app's packages.
		[ "$rc" != 0 ]
		ok $? "$backend: another workspace does not reuse this one's store"
	fi
	run "$H/app" --no-network -- sh -c 'rm -rf node_modules && npm install --offline --no-audit --no-fund >/dev/null && npx --offline semver@7.6.0 2.0.0'
	is "$out" "2.0.0" "$backend: a second run, offline, reuses confine's store" || diag "$err"
done
done_testing
