#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/run, the suite's runner, on a tree of made-up test files (a copy of the runner in a
# scratch tree: it finds the files beside itself):
#  - independent files run at the same time (one waits for another's file), files named
#    `serial` in tests/schedule run alone, enforcement files run once more with
#    CONFINE_TEST_BACKEND=landlock unless named `no-landlock-pass`;
#  - a line per file as it finishes, while other files still run;
#  - no failure is lost: a failing check, a crash, a file that printed no check, a file that
#    ended before its plan, a hung file (killed after CONFINE_TEST_FILE_TIMEOUT, with the
#    processes it started);
#  - the last line `tests: N passed, N failed, N skipped` and the exit status.
source "$(dirname "$0")/../lib.sh"

top=$T/top
b=$top/build/tests
mkdir -p "$top/tests/enforce" "$b"
cp "$TOP/tests/run" "$top/tests/run"
gate=$T/gate
prog() { # name body: a test program of the fake build (a shell script)
	printf '#!/bin/sh\n%s\n' "$2" >"$b/$1"
	chmod +x "$b/$1"
}
# Every file says it runs while it runs: $R/NAME (state of their own goes to $S).
R=$T/running S=$T/state
mkdir "$R" "$S"
mark='touch "$R/$N"; trap "rm -f \"\$R/\$N\"" EXIT'
prog test-pass 'echo "ok 1 - a"; echo "ok 2 - b # SKIP not here"; echo "1..2"'
prog test-fail 'echo "ok 1 - a"; echo "not ok 2 - b"; echo "#   got: x"; echo "1..2"; exit 1'
prog test-crash 'echo "ok 1 - a"; kill -SEGV $$'
prog test-nocheck 'echo "nothing to say"'
prog test-early 'echo "ok 1 - a"; echo "ok 2 - b"; exit 0'
prog test-plan 'echo "ok 1 - a"; echo "1..3"'
# Hangs, with a child of its own: both go at the timeout.
prog test-hang 'sleep 300 & echo $! >"$S/hang.child"; wait'
# test-wait and test-post each pass only if the other runs at the same time.
meet() { # me other: waits (20 s at most) for the other's mark
	printf 'N=%s; %s; for i in $(seq 400); do [ -e "$R/%s" ] && { echo "ok 1 - beside %s"; echo "1..1"; sleep 0.2; exit 0; }; sleep 0.05; done; echo "not ok 1 - %s did not run meanwhile"; echo "1..1"' \
		"$1" "$mark" "$2" "$2" "$2"
}
prog test-wait "$(meet wait post)"
prog test-post "$(meet post wait)"
# test-gated ends only once the gate file exists (the check below opens it).
prog test-gated 'N=gated; '"$mark"'; while [ ! -e "$G" ]; do sleep 0.05; done; echo "ok 1 - gated"; echo "1..1"'
# alone() NAME: passes if no other file runs during one second.
alone() {
	printf 'N=%s; %s; o=$(ls "$R" | grep -vx "$N"); sleep 1; o="$o$(ls "$R" | grep -vx "$N")"; [ -z "$o" ] && echo "ok 1 - alone" || echo "not ok 1 - beside" $o; echo "1..1"' \
		"$1" "$mark"
}
# A serial file: nothing else runs meanwhile.
alone 'alone$CONFINE_TEST_BACKEND' >"$top/tests/enforce/alone.t"
printf '%s\n' 'echo "ok 1 - backend ${CONFINE_TEST_BACKEND:-bwrap}"; echo "1..1"' >"$top/tests/enforce/both.t"
printf '%s\n' 'echo "ok 1 - backend ${CONFINE_TEST_BACKEND:-bwrap}"; echo "1..1"' >"$top/tests/enforce/once.t"
cat >"$top/tests/schedule" <<'EOF'
# test schedule
serial tests/enforce/alone.t
no-landlock-pass tests/enforce/onc*
EOF

export R S G=$gate
CONFINE_TEST_FILE_TIMEOUT=3 "$top/tests/run" -j 4 "$top/build" >"$T/out" 2>&1 &
runner=$!
# A line per file as it finishes: test-pass's line while test-gated still runs.
for _ in $(seq 600); do
	grep -q '^tests/enforce/once.t ' "$T/out" && grep -q '^tests/test-pass ' "$T/out" && break
	sleep 0.05
done
[ -e "$R/gated" ] && grep -q '^tests/test-pass  *1 passed   0 failed   1 skipped' "$T/out"
ok $? "a line per file as it finishes: test-pass's while test-gated still runs ($(head -c 300 "$T/out"))"
touch "$gate"
wait "$runner"
rc=$?
out=$(cat "$T/out")
line() { grep -E "^$1 +[0-9]+ passed +[0-9]+ failed +[0-9]+ skipped +[0-9]+s$" <<<"$out" | sed -E 's/ +[0-9]+s$//; s/  +/ /g'; }
is "$(line tests/test-pass)" "tests/test-pass 1 passed 0 failed 1 skipped" "a passing file, its skip counted as a skip"
is "$(line tests/test-fail)" "tests/test-fail 1 passed 1 failed 0 skipped" "a failing check"
grep -q '^    not ok 2 - b$' <<<"$out" && grep -q '^    #   got: x$' <<<"$out"
ok $? "the failing check and its details are printed"
kept=$(ls "$top/build/test-logs/failed/" 2>/dev/null | grep -c '^tests_test-fail\..*\.log$')
grep -q '^not ok 2 - b$' "$top"/build/test-logs/failed/tests_test-fail.*.log 2>/dev/null
ok $? "a failing file's log is kept under a name of its own ($kept kept)"
is "$(line tests/test-crash)" "tests/test-crash 1 passed 1 failed 0 skipped" "a crash (SIGSEGV) after a passing check is a failure"
grep -q '^    not ok - tests/test-crash exited 139 without a failing check$' <<<"$out"
ok $? "... and says how it ended"
is "$(line tests/test-nocheck)" "tests/test-nocheck 0 passed 1 failed 0 skipped" "a file that printed no check is a failure"
is "$(line tests/test-early)" "tests/test-early 2 passed 1 failed 0 skipped" "a file that exited 0 before its plan is a failure"
grep -q '^    not ok - tests/test-early printed no plan after 2 checks' <<<"$out"
ok $? "... and says so"
is "$(line tests/test-plan)" "tests/test-plan 1 passed 1 failed 0 skipped" "a file whose plan says 3 but that ran 1 is a failure"
is "$(line tests/test-hang)" "tests/test-hang 0 passed 1 failed 0 skipped" "a hung file is a failure"
grep -q '^    not ok - tests/test-hang timed out after [0-9]* s (CONFINE_TEST_FILE_TIMEOUT=3): killed$' <<<"$out"
ok $? "... killed at the timeout, and it says so"
child=$(cat "$S/hang.child" 2>/dev/null)
# Gone, or a zombie that whoever inherited it has not reaped yet.
[ -n "$child" ] && { ! kill -0 "$child" 2>/dev/null || grep -q '^State:.*Z' "/proc/$child/status"; }
ok $? "... with the process it started (pid ${child:-?})"
is "$(line tests/test-wait)" "tests/test-wait 1 passed 0 failed 0 skipped" "independent files run at the same time"
is "$(line 'tests/enforce/alone.t')" "tests/enforce/alone.t 1 passed 0 failed 0 skipped" "a serial file runs alone"
is "$(line 'tests/enforce/alone.t \[landlock\]')" "tests/enforce/alone.t [landlock] 1 passed 0 failed 0 skipped" "... on both backends"
grep -q '^ok 1 - backend landlock$' "$top/build/test-logs/tests_enforce_both.t [landlock].log"
ok $? "an enforcement file runs once more with CONFINE_TEST_BACKEND=landlock"
is "$(grep -c '^tests/enforce/once.t' <<<"$out")" 1 "a no-landlock-pass file runs once"
is "$(grep -c ' passed .* failed .* skipped .*s$' <<<"$out")" 15 "one line per file: 10 programs, 5 script runs"
is "$rc:$(tail -n 1 <<<"$out")" "1:tests: 14 passed, 6 failed, 1 skipped" "the last line and the exit status"
grep -q '^failing: ' <<<"$out"
ok $? "the failing files are named"
is "$(ls "$R")" "" "no file is left running (each one's mark is gone)"

# -j 1: one after another (each file notes when it started and ended: no two overlap); -j 2:
# two at a time (two files that each wait for the other pass).
span() { # name: notes its start, runs a moment, notes its end
	printf 'echo "$(date +%%s%%N) %s" >>"$S/spans"; sleep 0.3; echo "$(date +%%s%%N) %s" >>"$S/spans"; echo "ok 1 - %s"; echo "1..1"' \
		"$1" "$1" "$1"
}
prog test-solo1 "$(span solo1)"
prog test-solo2 "$(span solo2)"
prog test-solo3 "$(span solo3)"
"$top/tests/run" -j 1 "$top/build" test-solo >"$T/out1" 2>&1
rc=$?
# Sorted by time, the spans must read A A B B C C: each file's end before the next one's start.
order=$(sort -n "$S/spans" | awk '{ print $2 }' | tr '\n' ' ')
sort -n "$S/spans" | awk 'NR % 2 == 1 { a = $2; n++ } NR % 2 == 0 && $2 != a { bad = 1 }
	END { exit bad || n != 3 || NR != 6 }'
ok $? "-j 1 runs one file at a time ($order)"
is "$rc:$(tail -n 1 "$T/out1")" "0:tests: 3 passed, 0 failed, 0 skipped" "-j 1: the files pass"
prog test-pair1 "$(meet pair1 pair2)"
prog test-pair2 "$(meet pair2 pair1)"
"$top/tests/run" -j 2 "$top/build" test-pair >"$T/out2" 2>&1
is "$?:$(tail -n 1 "$T/out2")" "0:tests: 2 passed, 0 failed, 0 skipped" "-j 2 runs two at a time (each waited for the other)"
"$top/tests/run" -j 0 "$top/build" >/dev/null 2>&1
is "$?" 2 "-j 0 is refused"
# -l: the names it would run, in the order it finds them, nothing run (tests/cli/meson-test.t
# compares meson's registered tests with this list).
rm -rf "$top/build/test-logs"
spans=$(wc -l <"$S/spans")
list=$("$top/tests/run" -l "$top/build" test-solo; echo "rc $?"; "$top/tests/run" -l "$top/build" tests/enforce)
is "$(tr '\n' ' ' <<<"$list")" "tests/test-solo1 tests/test-solo2 tests/test-solo3 rc 0 tests/enforce/alone.t tests/enforce/both.t tests/enforce/once.t tests/enforce/alone.t [landlock] tests/enforce/both.t [landlock] " \
	"-l lists the files it would run, a landlock pass but for no-landlock-pass ones (onc*)"
[ ! -e "$top/build/test-logs" ] && [ "$(wc -l <"$S/spans")" = "$spans" ]
ok $? "-l runs nothing (no log, test-solo* did not start)"
done_testing
