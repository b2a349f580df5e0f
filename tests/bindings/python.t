#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python binding (bindings/python, issue 27): its unittest suite against this build's
# libconfine.so.1 and confine-init, on both backends, as root from the source tree and as uid
# 65534 from a 0755 copy (a checkout under /root is not reachable by that user).  The suite
# runs real sandboxed commands: the allowed and the denied case with the exact errno and exit
# status, each with its host control.  Then `pip install` of the package into a venv, offline,
# and a sandboxed command through the installed package.  Nothing is written into the source
# tree (no bytecode, no build directory).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/tap-unittest.sh"
SRC=$TOP/bindings/python
# The system's interpreter, which uid 65534 can run too (a pyenv one under /root is not).
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3 || true)
if [ -z "$PY" ]; then
	skip "python3 is not installed (scripts/install-deps test installs it)"
	done_testing
fi
export PYTHONDONTWRITEBYTECODE=1
unset CONFINE_LIB CONFINE_HELPER CONFINE_BACKEND

# uid 65534's copy: the package, its tests, the library, the helper and mcp.py, all 0755.
U=$T/nobody
mkdir -p "$U/lib" "$U/home" "$U/cache"
cp -r "$SRC" "$U/python"
cp "$BUILD/src/lib/libconfine.so.1" "$U/lib/"
cp "$TOP/tests/enforce/mcp.py" "$U/"
chmod -R a+rX "$U"
chown -R 65534:65534 "$U/home" "$U/cache"

for backend in bwrap landlock; do
	log=$T/root-$backend.log
	(cd "$SRC" && env "${SANITIZER_ENV[@]}" CONFINE_BUILD=$BUILD CONFINE_TEST_BACKEND=$backend \
		"$PY" -m unittest discover -v) >"$log" 2>&1
	unittest_tap "root, $backend" "$log" $?

	log=$T/nobody-$backend.log
	(cd "$U/python" && as_nobody env "${SANITIZER_ENV[@]}" HOME="$U/home" XDG_CACHE_HOME="$U/cache" \
		CONFINE_LIB="$U/lib/libconfine.so.1" CONFINE_HELPER="$FIX/confine-init" \
		CONFINE_TEST_MCP="$U/mcp.py" CONFINE_TEST_BACKEND=$backend \
		"$PY" -m unittest discover -v) >"$log" 2>&1
	unittest_tap "uid 65534, $backend" "$log" $?
done

# From the source tree with nothing set, the package finds the checkout's build/ (after make).
if [ "$BUILD" -ef "$TOP/build" ]; then
	out=$(cd "$SRC" && env -u CONFINE_BUILD "${SANITIZER_ENV[@]}" "$PY" -c 'import confine
print(confine.library_path(), confine.run(["sh", "-c", "exit 6"]).status)' 2>&1)
	is "$out" "$TOP/build/src/lib/libconfine.so.1 6" \
		"from bindings/python with nothing set: the checkout's build/, a sandboxed command"
fi

# pip install into a venv, with no package index: the in-tree build backend.
V=$T/venv
if "$PY" -m venv --without-pip "$V" >"$T/venv.log" 2>&1 && "$PY" -m pip --version >/dev/null 2>&1; then
	(cd "$T" && "$PY" -m pip --python "$V/bin/python" install --no-index --no-cache-dir \
		"$SRC") >>"$T/venv.log" 2>&1
	ok $? "pip install ./bindings/python into a venv, offline"
	out=$(cd "$T" && env "${SANITIZER_ENV[@]}" CONFINE_BUILD=$BUILD "$V/bin/python" -c '
import confine, sys
print(confine.__file__.startswith(sys.prefix), confine.run(["sh", "-c", "exit 5"]).status)' 2>&1)
	is "$out" "True 5" "the installed package runs a sandboxed command (its exit status)"
else
	skip "no venv or pip for $PY (python3-venv, python3-pip): $(tail -1 "$T/venv.log")"
fi
is "$(cd "$TOP" && git status --porcelain --ignored --untracked-files=all -- bindings/python |
	grep -E '^(\?\?|!!)')" "" "nothing was written into the source tree (no new file there)"
done_testing
