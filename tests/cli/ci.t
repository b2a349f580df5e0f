#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The suite cannot hide a failure:
#  - .ci/steps.sh (what .ci/run counts with): a log without a "tests:" line, a step that printed
#    no check, a Windows runner that failed or died before its "tests:" line are failures; the
#    runner's exit status is not lost to a pipe;
#  - .ci/run ends with the only line of its output that starts with "tests:", the sum;
#  - tests/run clears CONFINE_GOLDEN_UPDATE (a shell that still has it would rewrite every
#    golden expectation into a pass);
#  - a C test's skip obeys CONFINE_TEST_MUST_WORK, and no C test prints "# SKIP" by itself.
source "$(dirname "$0")/../lib.sh"

# --- .ci/steps.sh ---
# shellcheck source=../../.ci/steps.sh
source "$TOP/.ci/steps.sh"
steps() { # name, then a function body run with fresh counters: prints "passed failed"
  local fn=$1
  (passed=0 failed=0; "$fn" >"$T/steps.out" 2>&1; echo "$passed $failed")
}
printf 'ok 1 - a\nnot ok 2 - b\n' >"$T/no-tests-line.log"
c1() { count "$T/no-tests-line.log"; }
is "$(steps c1)" "0 1" "count: a tests/run log without a 'tests:' line is a failure"
: >"$T/empty.log"
c2() { count_lines "$T/empty.log"; }
is "$(steps c2)" "0 1" "count_lines: a step log that holds no check is a failure"
printf 'ok - x\nok - y # SKIP z\n' >"$T/lines.log"
c3() { count_lines "$T/lines.log"; }
is "$(steps c3)" "1 0" "count_lines: ok lines pass, skips do not count"
# .ci/run's last line is the only one that starts with "tests:": each step's own is relayed
# as "step tests:" (a reader that takes the first "tests:" line would take one step's).
is "$(printf 'ok 1 - a\ntests: 3 passed, 1 failed, 0 skipped\n' | relay | tr '\n' '|')" \
	"ok 1 - a|step tests: 3 passed, 1 failed, 0 skipped|" "relay: a step's 'tests:' line is printed as 'step tests:'"
bare=$(grep -E '(make check|tests/run |cat "\$[vw]out"|relay <|tee "\$vout")' "$TOP/.ci/run" |
	grep -vE '^\s*(#|echo )' | grep -v relay)
is "$bare" "" ".ci/run relays every step's output (the suite's, the sanitizer suite's, valgrind's, Windows', ThreadSanitizer's)"
is "$(grep -cE '^[^#]*echo "tests: ' "$TOP/.ci/run")" 2 ".ci/run prints 'tests:' itself only for the sum and for a failed install"
# Windows runners: died before the summary; failed with a summary of no failure; passed.
w1() { windows_tests "$T/w.log" sh -c 'echo "confine.exe   3 passed   0 failed"; exit 3' >"$T/w1.out"; count_lines "$T/w1.out"; }
r=$(steps w1)
is "${r#* }" 1 "windows_tests: a runner that exits 3 without a 'tests:' line is a failure"
w2() { windows_tests "$T/w.log" sh -c 'echo "tests: 5 passed, 0 failed"; exit 1' >"$T/w2.out"; count_lines "$T/w2.out"; }
r=$(steps w2)
is "${r#* }" 1 "windows_tests: a runner that exits 1 after 'tests: 5 passed, 0 failed' is a failure"
w3() { windows_tests "$T/w.log" sh -c 'echo "tests: 5 passed, 0 failed"' >"$T/w3.out"; count_lines "$T/w3.out"; }
is "$(steps w3)" "5 0" "windows_tests: a runner that passed counts its tests"
! grep -qE 'run-wine[^|]*\|' "$TOP/.ci/run"
ok $? ".ci/run never pipes the Windows runner (its status would be lost)"
grep -q '^source .ci/steps.sh' "$TOP/.ci/run"
ok $? ".ci/run counts with .ci/steps.sh"

# A TAP program that passed every check but ended with a sanitizer's status (66).
t1() { tap_program "racy" "$T/t.log" sh -c 'echo "ok 1 - a"; echo "1..1"; exit 66' >"$T/t1.out"; count_lines "$T/t1.out"; }
is "$(steps t1)" "0 1" "tap_program: all checks passed but the program exited 66: a failure"
t2() { tap_program "clean" "$T/t.log" sh -c 'echo "ok 1 - a"; echo "1..1"' >"$T/t2.out"; count_lines "$T/t2.out"; }
is "$(steps t2)" "1 0" "tap_program: a clean program passes"
grep -q 'tap_program "test-threads under ThreadSanitizer"' "$TOP/.ci/run"
ok $? ".ci/run runs the two-threads test built with ThreadSanitizer"

# The end of .ci/run's output names each failing check again (a reader may see only its end).
mkdir -p "$T/fb1/test-logs/failed"
printf 'ok 1 - a\nnot ok 2 - root: the thing\n# got: x\nok 3 - c\n' >"$T/fb1/test-logs/failed/x.t.1.log"
out=$(failures "$T/fb1" "$T/none")
is "$out" "$(printf 'x.t.1.log (%s):\n    not ok 2 - root: the thing\n    # got: x\n    ok 3 - c' "$T/fb1")" \
	"failures: each failing log's 'not ok' lines with what follows"
printf 'not ok 1 - x\n#   got: y\n#\n#\n#\n#\n# =1= ERROR: LeakSanitizer: detected memory leaks\n#     #0 0x7f1 in malloc (/lib/libasan.so.8+0x1)\n#     #1 0x55a in cf_tls_client ../src/lib/net/tls.c:301\n# SUMMARY: AddressSanitizer: 984 byte(s) leaked in 1 allocation(s).\n' \
	>"$T/fb1/test-logs/failed/y.t.1.log"
out=$(failures "$T/fb1" | sed -n '/^y.t.1.log/,$p' | grep -E 'cf_tls_client|SUMMARY|malloc' | tr -d ' ' | tr '\n' '|')
is "$out" "##10x55aincf_tls_client../src/lib/net/tls.c:301|#SUMMARY:AddressSanitizer:984byte(s)leakedin1allocation(s).|" \
	"failures: a sanitizer's summary and the project's frames, not the runtime's"
grep -q 'failures build build-asan' "$TOP/.ci/run"
ok $? ".ci/run prints the failing checks again at its end"

# --- tests/run clears CONFINE_GOLDEN_UPDATE ---
fb=$T/fakebuild
mkdir -p "$fb/tests"
cat >"$fb/tests/test-golden-env-probe" <<'P'
#!/bin/sh
if [ -n "${CONFINE_GOLDEN_UPDATE+x}" ]; then echo "not ok 1 - CONFINE_GOLDEN_UPDATE reached a test"; exit 1; fi
echo "ok 1 - CONFINE_GOLDEN_UPDATE is not set"; echo "1..1"
P
chmod +x "$fb/tests/test-golden-env-probe"
CONFINE_GOLDEN_UPDATE=1 "$TOP/tests/run" "$fb" test-golden-env-probe >"$T/run.out" 2>&1
rc=$?
is "$rc:$(tail -n 1 "$T/run.out")" "0:tests: 1 passed, 0 failed, 0 skipped" \
  "tests/run with CONFINE_GOLDEN_UPDATE=1 in the environment: no test sees it"

# --- a C test's skip obeys the must-work switch ---
CONFINE_TEST_MUST_WORK=0 "$FIX/tap-skip" >"$T/skip0"
is "$?:$(sed -n 2p "$T/skip0")" "0:ok 2 # SKIP a check this machine cannot run" "TAP_SKIP: a skip where checks may be skipped"
CONFINE_TEST_MUST_WORK=1 "$FIX/tap-skip" >"$T/skip1"
is "$?:$(sed -n 2p "$T/skip1")" "1:not ok 2 - skipped but CONFINE_TEST_MUST_WORK=1: a check this machine cannot run" \
  "TAP_SKIP: a failure under CONFINE_TEST_MUST_WORK=1"
direct=$(grep -rln '# SKIP' "$TOP/tests" --include='*.c' --include='*.h' | grep -v '/tests/unit/tap.h$')
is "$direct" "" "no C test prints its own skip directive (TAP_SKIP obeys the switch)"

# --- descriptors the library duplicates are close-on-exec (fcntl F_DUPFD_CLOEXEC, never dup) ---
dups=$(grep -rnE '(^|[^_a-z])dup\(|F_DUPFD\b[^_]' "$TOP/src/lib" "$TOP/src/helper" --include='*.c')
is "$dups" "" "the library and confine-init duplicate descriptors close-on-exec only"

# --- ipc.t binds its sockets under names of its own ---
fixed=$(grep -nE '/run/[A-Za-z0-9_.-]+' "$TOP/tests/enforce/ipc.t" | grep -v '^[0-9]*:#')
is "$fixed" "" "tests/enforce/ipc.t names nothing fixed under /run (two runs at once would share the names in /proc/net/unix)"
done_testing
