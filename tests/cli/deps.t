#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The layout of src/ (STYLE.md): no include or call circle spans two folders.  scripts/deps
# draws the graph (a file depends on the headers it includes and on the files that define what
# its object uses) and fails on such a circle; it is checked here on a small tree with a circle
# planted, and on this tree.
source "$(dirname "$0")/../lib.sh"

if ! command -v python3 >/dev/null || ! command -v nm >/dev/null || ! command -v cc >/dev/null; then
	skip "scripts/deps needs python3, nm (binutils) and cc"
	done_testing
fi

# A tree of two folders: a/x.c calls b/y.c, and b/y.c calls back only when CIRCLE is defined;
# a/p.c and a/q.c call each other (a circle inside one folder is allowed).
mini() { # DIR [-DCIRCLE]
	local d=$1 f
	mkdir -p "$d/src/a" "$d/src/b" "$d/build"
	printf 'int y(void);\n' >"$d/src/b/y.h"
	printf 'int x(void);\n' >"$d/src/a/x.h"
	printf '#include "b/y.h"\nint x(void) { return y(); }\n' >"$d/src/a/x.c"
	printf '#include "a/x.h"\nint y(void) {\n#ifdef CIRCLE\n return x();\n#else\n return 1;\n#endif\n}\n' >"$d/src/b/y.c"
	printf 'int q(int);\nint p(int n) { return n ? q(n - 1) : 0; }\n' >"$d/src/a/p.c"
	printf 'int p(int);\nint q(int n) { return n ? p(n - 1) : 0; }\n' >"$d/src/a/q.c"
	{
		echo '['
		for f in a/x b/y a/p a/q; do
			cc -c -I"$d/src" ${2:-} -o "$d/build/${f/\//_}.o" "$d/src/$f.c" || return 1
			printf '{"directory": "%s", "file": "src/%s.c", "output": "build/%s.o"},\n' \
				"$d" "$f" "${f/\//_}"
		done
		printf '{"directory": "%s", "file": "/usr/include/none.c", "output": "none.o"}\n]\n' "$d"
	} >"$d/build/compile_commands.json"
}

mini "$T/clean" || exit 1
out=$("$TOP/scripts/deps" --top "$T/clean" "$T/clean/build" 2>&1)
ok $? "a tree whose only circle lies inside one folder passes"
is "$out" "confine-deps: 6 files, no include circle spans two folders" "and says so"

mini "$T/circle" -DCIRCLE || exit 1
out=$("$TOP/scripts/deps" --top "$T/circle" "$T/circle/build" 2>&1)
is "$?" 1 "a circle between two folders fails (exit status 1)"
is "$out" "circle: src/a/x.c -[y]-> src/b/y.c -[x]-> src/a/x.c
confine-deps: 1 include circles span two folders" "it is printed with the symbol of each step"

out=$("$TOP/scripts/deps" --top "$T/circle" "$T/nowhere" 2>&1)
is "$?" 2 "no build tree: exit status 2"
is "$out" "confine-deps: cannot read the build's compile commands: '$T/nowhere/compile_commands.json': No such file or directory
hint: run make first (meson writes compile_commands.json)" "and a message that says what to do"

# This tree.
out=$("$TOP/scripts/deps" "$BUILD" 2>&1)
st=$?
[ $st = 0 ] || diag "$out"
ok $st "no include or call circle spans two folders of src/ (scripts/deps $BUILD)"
done_testing
