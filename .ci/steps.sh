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
