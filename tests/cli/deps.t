#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The layout of src/ (STYLE.md): no include or call circle spans two folders, and the layers
# point one way (the records and the executors never call the run, the records and the Linux
# executors never include its types; probe/ asks the kernel through host/kernel.h, not an executor).  scripts/deps
# draws the graph (a file depends on the headers it includes and on the files that define what
# its object uses) and fails on either; it is checked here on small trees with a circle or a wrong-way
# dependency planted, and on this tree.
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
is "$out" "confine-deps: 6 files, no include circle spans two folders, the layers hold" "and says so"

mini "$T/circle" -DCIRCLE || exit 1
out=$("$TOP/scripts/deps" --top "$T/circle" "$T/circle/build" 2>&1)
is "$?" 1 "a circle between two folders fails (exit status 1)"
is "$out" "circle: src/a/x.c -[y]-> src/b/y.c -[x]-> src/a/x.c
confine-deps: 1 include circles span two folders, 0 dependencies break a layer" \
	"it is printed with the symbol of each step"

# planted DIR FILE...: compiles each FILE (a path under DIR) and writes DIR/build's compile
# commands for them, as meson would; scripts/deps reads both.
planted() {
	local d=$1 f o sep=
	shift
	mkdir -p "$d/build"
	{
		echo '['
		for f in "$@"; do
			o=build/$(basename "${f%.c}").o
			cc -c -I"$d/src/lib" -o "$d/$o" "$d/$f" || return 1
			printf '%s{"directory": "%s", "file": "%s", "output": "%s"}\n' "$sep" "$d" "$f" "$o"
			sep=,
		done
		echo ']'
	} >"$d/build/compile_commands.json"
}

# A record that calls the run: no circle, but the wrong way (a declaration of its own, no
# header: the object's use is what counts).
d=$T/layer
mkdir -p "$d/src/lib/record" "$d/build"
printf 'int cf_run_thing(void);\nint cf_run_thing(void) { return 0; }\n' >"$d/src/lib/run.c"
printf 'int cf_run_thing(void);\nint cf_rec(void);\nint cf_rec(void) { return cf_run_thing(); }\n' >"$d/src/lib/record/rec.c"
planted "$d" src/lib/run.c src/lib/record/rec.c || exit 1
out=$("$TOP/scripts/deps" --top "$d" "$d/build" 2>&1)
is "$?" 1 "a record that calls the run fails"
is "$out" "layer: src/lib/record/rec.c -[cf_run_thing]-> src/lib/run.c: executors and records never call back into the run (they take facts, return facts)
confine-deps: 0 include circles span two folders, 1 dependencies break a layer" "and the dependency is printed"

# A probe that asks the kernel through an executor's file: the wrong way too.
d=$T/probe
mkdir -p "$d/src/lib/probe" "$d/src/lib/exec/linux" "$d/build"
printf 'int cf_kernel_thing(void);\nint cf_kernel_thing(void) { return 1; }\n' >"$d/src/lib/exec/linux/harden.c"
printf 'int cf_kernel_thing(void);\nint cf_probe(void);\nint cf_probe(void) { return cf_kernel_thing(); }\n' >"$d/src/lib/probe/p.c"
planted "$d" src/lib/exec/linux/harden.c src/lib/probe/p.c || exit 1
out=$("$TOP/scripts/deps" --top "$d" "$d/build" 2>&1)
is "$?" 1 "a probe that uses an executor's file fails"
is "$out" "layer: src/lib/probe/p.c -[cf_kernel_thing]-> src/lib/exec/linux/harden.c: probe/ asks the kernel through host/kernel.h, never through an executor
confine-deps: 0 include circles span two folders, 1 dependencies break a layer" "and the dependency is printed"

# A record that includes the run's header of types, and calls nothing of the run: the include
# alone breaks the layer (record/ takes plain facts).
d=$T/types
mkdir -p "$d/src/lib/record" "$d/build"
printf 'struct confine_run { int status; };\n' >"$d/src/lib/request.h"
printf '#include "request.h"\nint cf_rec(const struct confine_run *run);\nint cf_rec(const struct confine_run *run) { return run->status; }\n' >"$d/src/lib/record/rec.c"
planted "$d" src/lib/record/rec.c || exit 1
out=$("$TOP/scripts/deps" --top "$d" "$d/build" 2>&1)
is "$?" 1 "a record that includes the run's types fails"
is "$out" "layer: src/lib/record/rec.c -[#include]-> src/lib/request.h: record/ takes the run's facts as plain values (record/run_facts.h), never the run's types
confine-deps: 0 include circles span two folders, 1 dependencies break a layer" "and the include is printed"

# An executor that includes the run's header of types (request.h), or a run_*.h of another
# folder, and calls nothing of the run: the include alone breaks the layer (it takes a launch).
for h in request.h inject/run_inject.h; do
	d=$T/exec-${h%%/*}
	mkdir -p "$d/src/lib/exec/linux" "$d/src/lib/inject" "$d/build"
	printf 'struct confine_run { int pid; };\n' >"$d/src/lib/$h"
	printf '#include "%s"\nint cf_exec(const struct confine_run *run);\nint cf_exec(const struct confine_run *run) { return run->pid; }\n' "$h" >"$d/src/lib/exec/linux/x.c"
	planted "$d" src/lib/exec/linux/x.c || exit 1
	out=$("$TOP/scripts/deps" --top "$d" "$d/build" 2>&1)
	is "$?" 1 "an executor that includes $h fails"
	is "$out" "layer: src/lib/exec/linux/x.c -[#include]-> src/lib/$h: exec/ includes neither request.h nor a run_*.h: an executor takes a launch (exec/linux/launch.h), never the run's types
confine-deps: 0 include circles span two folders, 1 dependencies break a layer" "and the include is printed"
done

# An executor that calls a function of the run's that lives in another folder (the agent's
# socket of the run, agent/agent_run.c), by a declaration of its own: the wrong way too.
d=$T/exec-call
mkdir -p "$d/src/lib/exec/linux/bwrap" "$d/src/lib/agent" "$d/build"
printf 'int cf_run_agent_fd(void);\nint cf_run_agent_fd(void) { return 3; }\n' >"$d/src/lib/agent/agent_run.c"
printf 'int cf_run_agent_fd(void);\nint cf_exec(void);\nint cf_exec(void) { return cf_run_agent_fd(); }\n' >"$d/src/lib/exec/linux/bwrap/x.c"
planted "$d" src/lib/agent/agent_run.c src/lib/exec/linux/bwrap/x.c || exit 1
out=$("$TOP/scripts/deps" --top "$d" "$d/build" 2>&1)
is "$?" 1 "an executor that calls the run's function of another folder fails"
is "$out" "layer: src/lib/exec/linux/bwrap/x.c -[cf_run_agent_fd]-> src/lib/agent/agent_run.c: exec/linux/ takes a launch (exec/linux/launch.h) and returns facts: it calls none of the run's functions, wherever they live (the run's steps come as hooks)
confine-deps: 0 include circles span two folders, 1 dependencies break a layer" "and the call is printed"

# ... and a public function of the run's, which lives in abi.c (no run file by its path): its
# name says whose it is.  A cf_run_capture (util/capture.c runs a program) is not the run's.
d=$T/exec-public
mkdir -p "$d/src/lib/exec/linux" "$d/src/lib/util"
printf 'int confine_run_timed_out(void);\nint confine_run_timed_out(void) { return 0; }\n' >"$d/src/lib/abi.c"
printf 'int cf_run_capture(void);\nint cf_run_capture(void) { return 0; }\n' >"$d/src/lib/util/capture.c"
printf 'int confine_run_timed_out(void);\nint cf_run_capture(void);\nint cf_exec(void);\nint cf_exec(void) { return confine_run_timed_out() + cf_run_capture(); }\n' >"$d/src/lib/exec/linux/x.c"
planted "$d" src/lib/abi.c src/lib/util/capture.c src/lib/exec/linux/x.c || exit 1
out=$("$TOP/scripts/deps" --top "$d" "$d/build" 2>&1)
is "$?" 1 "an executor that calls a public function of the run (in abi.c) fails"
is "$out" "layer: src/lib/exec/linux/x.c -[confine_run_timed_out]-> src/lib/abi.c: exec/linux/ takes a launch (exec/linux/launch.h) and returns facts: it calls none of the run's functions, wherever they live (the run's steps come as hooks)
confine-deps: 0 include circles span two folders, 1 dependencies break a layer" "and the call is printed, cf_run_capture not"

out=$("$TOP/scripts/deps" --top "$T/circle" "$T/nowhere" 2>&1)
is "$?" 2 "no build tree: exit status 2"
is "$out" "confine-deps: cannot read the build's compile commands: '$T/nowhere/compile_commands.json': No such file or directory
hint: run make first (meson writes compile_commands.json)" "and a message that says what to do"

# This tree.
out=$("$TOP/scripts/deps" "$BUILD" 2>&1)
st=$?
[ $st = 0 ] || diag "$out"
ok $st "no include or call circle spans two folders of src/, the layers hold (scripts/deps $BUILD)"
done_testing
