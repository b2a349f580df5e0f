#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Rust crates (bindings/rust, issue 27): `cargo test --offline` against this build's
# libconfine.so.1 and confine-init, on both backends, as root; then the same test programs as
# uid 65534 from a 0755 copy (cargo and a checkout under /root are not reachable by that
# user).  The tests run real sandboxed commands: the allowed and the denied case with the exact
# errno and exit status, each with its host control.  Cargo's target directory is in the build
# tree: nothing is written into the source tree (checked).  Without cargo: a loud skip.
source "$(dirname "$0")/../lib.sh"
SRC=$TOP/bindings/rust
if ! command -v cargo >/dev/null 2>&1; then
	skip "cargo is not installed: the Rust binding is not tested (scripts/install-deps test installs it)"
	done_testing
fi
export CARGO_TARGET_DIR=$BUILD/bindings-rust CONFINE_BUILD=$BUILD
unset CONFINE_LIB_DIR CONFINE_HELPER CONFINE_BACKEND

# cargo test's per-test lines as checks: "test NAME ... ok|FAILED|ignored".
cargo_tap() { # label log rc
	local label=$1 log=$2 rc=$3 n=0 line
	while IFS= read -r line; do
		[[ $line =~ ^test\ (.+)\ \.\.\.\ (ok|FAILED|ignored.*)$ ]] || continue
		n=$((n + 1))
		case ${BASH_REMATCH[2]} in
		ok) ok 0 "$label: ${BASH_REMATCH[1]}" ;;
		ignored*) skip "$label: ${BASH_REMATCH[1]}: ${BASH_REMATCH[2]}" ;;
		*) ok 1 "$label: ${BASH_REMATCH[1]}" ;;
		esac
	done <"$log"
	is "$rc" 0 "$label: the test programs passed ($n tests)"
	[ "$rc" = 0 ] && [ "$n" -gt 0 ] || sed -n '/^failures:/,$p;/error/p' "$log" | head -60 | sed 's/^/#   /'
}

(cd "$SRC" && cargo test --offline --locked --no-run --message-format=json) \
	>"$T/build.json" 2>"$T/build.log"
ok $? "cargo builds both crates and their tests offline, from Cargo.lock, without a dependency"
[ -s "$T/build.log" ] && grep -E '^(warning|error)' "$T/build.log" | sed 's/^/# /'

for backend in bwrap landlock; do
	log=$T/root-$backend.log
	# A sanitizer build: its runtimes preloaded into the test programs (tests/lib.sh), not
	# into rustdoc, which they crash: the doc tests (compiled, not run) on their own.
	if [ ${#SANITIZER_ENV[@]} -eq 0 ]; then
		(cd "$SRC" && CONFINE_TEST_BACKEND=$backend cargo test --offline --locked) >"$log" 2>&1
	else
		(cd "$SRC" && env "${SANITIZER_ENV[@]}" CONFINE_TEST_BACKEND=$backend cargo test \
			--offline --locked --tests && cargo test --offline --locked --doc) >"$log" 2>&1
	fi
	cargo_tap "root, $backend" "$log" $?
done

# uid 65534: the test programs and the example, beside each other as cargo left them, the
# library, the helper and mcp.py, all 0755.
U=$T/nobody
mkdir -p "$U/rt/deps" "$U/rt/examples" "$U/lib" "$U/home"
mapfile -t progs < <(jq -r 'select(.reason == "compiler-artifact" and .profile.test == true)
	| .executable // empty' "$T/build.json")
cp "${progs[@]}" "$U/rt/deps/"
cp "$CARGO_TARGET_DIR/debug/examples/mcp_host" "$U/rt/examples/"
cp "$BUILD/src/lib/libconfine.so.1" "$U/lib/"
cp "$TOP/tests/enforce/mcp.py" "$U/"
chmod -R a+rX "$U"
chown 65534:65534 "$U/home"
is "${#progs[@]}" 4 "the test programs: each crate's own and confine's run and readme"
for backend in bwrap landlock; do
	log=$T/nobody-$backend.log
	rc=0
	for p in "$U"/rt/deps/*; do
		(cd "$U/home" && as_nobody env "${SANITIZER_ENV[@]}" HOME="$U/home" XDG_CACHE_HOME="$U/home/.cache" \
			LD_LIBRARY_PATH="$U/lib" CONFINE_HELPER="$FIX/confine-init" \
			CONFINE_TEST_MCP="$U/mcp.py" CONFINE_TEST_BACKEND=$backend \
			"$p" --skip readme_shows_the_example) >>"$log" 2>&1 || rc=1
	done
	cargo_tap "uid 65534, $backend" "$log" $rc
done
is "$(cd "$TOP" && git status --porcelain --ignored --untracked-files=all -- bindings/rust |
	grep -E '^(\?\?|!!)')" "" "nothing was written into the source tree (no new file there)"
done_testing
