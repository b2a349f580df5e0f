# SPDX-License-Identifier: MIT
# The counting of .ci/run, sourced by it and by tests/cli/ci.t: a step whose log says nothing,
# or whose runner failed without saying so, is a failure, never a pass.  Uses and sets the
# caller's `passed` and `failed`.

count() { # log: adds the "tests: N passed, N failed" line of a tests/run log; none is a failure
  local line
  line=$(grep -E '^tests: [0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
  if [ -z "$line" ]; then
    echo "not ok - $1 has no 'tests:' line"
    failed=$((failed + 1))
    return
  fi
  passed=$((passed + $(echo "$line" | sed -E 's/^tests: ([0-9]+) passed.*/\1/')))
  failed=$((failed + $(echo "$line" | sed -E 's/^tests: [0-9]+ passed, ([0-9]+) failed.*/\1/')))
}

relay() { # prints a step's output as it comes, its own "tests:" lines as "step tests:": the
  # last line of .ci/run, the sum of every step, is the only one a reader finds as "tests:"
  sed -u 's/^tests: /step tests: /'
}

count_lines() { # log: adds its "ok -" and "not ok -" lines, then its "tests:" line if any
  local ok nok
  ok=$(grep -E '^ok - ' "$1" | grep -cv '# SKIP')
  nok=$(grep -cE '^not ok - ' "$1")
  passed=$((passed + ok))
  failed=$((failed + nok))
  if grep -qE '^tests: [0-9]+ passed, [0-9]+ failed' "$1"; then
    count "$1"
  elif [ "$ok" -eq 0 ] && [ "$nok" -eq 0 ]; then
    echo "not ok - $1 holds no check"
    failed=$((failed + 1))
  fi
}

windows_tests() { # log command...: runs the Windows tests into log; prints their end, and a
  # failure of its own when the command failed or printed no "tests:" line (its status is
  # never lost to a pipe)
  local log=$1 rc
  shift
  "$@" >"$log" 2>&1 </dev/null
  rc=$?
  tail -n 30 "$log"
  if ! grep -qE '^tests: [0-9]+ passed, [0-9]+ failed' "$log"; then
    echo "not ok - $* printed no 'tests:' line (exit $rc)"
  elif [ "$rc" -ne 0 ] && ! grep -qE '^tests: [0-9]+ passed, [1-9][0-9]* failed' "$log"; then
    echo "not ok - $* exited $rc"
  fi
  return 0
}

tap_program() { # name log command...: runs one TAP program into log and prints one line for it:
  # "ok - NAME (N checks)" when it exited 0 with checks and no failing one, else "not ok - NAME"
  # with the reason and the end of its log (a sanitizer's report ends a program with its own
  # exit status after every check passed)
  local name=$1 log=$2 rc p f
  shift 2
  "$@" >"$log" 2>&1 </dev/null
  rc=$?
  p=$(grep -cE '^ok [0-9]+' "$log")
  f=$(grep -cE '^not ok [0-9]+' "$log")
  if [ "$rc" -eq 0 ] && [ "$f" -eq 0 ] && [ "$p" -gt 0 ]; then
    echo "ok - $name ($p checks)"
  else
    echo "not ok - $name: exit $rc, $p passed, $f failed"
    tail -n 40 "$log" | sed 's/^/    /'
  fi
}

failures() { # dir...: each failing file's checks again, from DIR/test-logs/failed/*.log (at
  # most 12 lines a file), so the end of .ci/run's output names what failed and why even where
  # only its last lines are read
  local d f
  for d in "$@"; do
    for f in "$d"/test-logs/failed/*.log; do
      [ -f "$f" ] || continue
      echo "${f#"$d"/test-logs/failed/} ($d):"
      grep -E -A4 '^not ok' "$f" | head -n 12 | cut -c1-300 | sed 's/^/    /'
      # A sanitizer's report: its summary and the project's own frames of its stacks.
      grep -E 'SUMMARY: [A-Za-z]+Sanitizer|^[# ]*#[0-9]+ 0x[0-9a-f]+ in [^ ]+ [^ ]*src/' "$f" |
        head -n 16 | cut -c1-200 | sed 's/^/    /'
    done
  done
}
