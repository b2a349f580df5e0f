# SPDX-License-Identifier: MIT
# TAP helpers for the shell tests.  Source it first thing in a *.t file.
#
#   ok COND_STATUS "description"      one check from an exit status (0 = pass)
#   is GOT WANT "description"         one check comparing two strings
#   skip "reason"                     a skipped check; a failure when CONFINE_TEST_MUST_WORK=1
#   done_testing                      prints the plan, exits 1 when a check failed
#
# Environment it sets up:
#   CONFINE        the confine binary of the build tree
#   BUILD, TOP     the build directory and the source tree
#   T              a fresh 0755 scratch directory (removed at exit), reachable by uid 65534.
#                  It lives under /var/tmp, not /tmp: the sandbox's /tmp is private, so a
#                  fake home under /tmp would simply be invisible inside
#   FIX            $T/bin: confine, confine-init and the test tools copied there, 0755, so that
#                  an unprivileged user can run them (a checkout under /root is not reachable)
#   as_nobody CMD  runs CMD as uid/gid 65534 with no supplementary groups
set -u
TOP=${CONFINE_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILD=${CONFINE_BUILD:-$TOP/build}
CONFINE=$BUILD/confine
_tap_n=0
_tap_failed=0

# A program not built with this build's sanitizers (python3, a cargo test, a C file a test
# compiles) that loads libconfine.so.1 of a sanitizer build needs the sanitizers' runtimes
# loaded first.  SANITIZER_ENV holds the env(1) assignments for that (empty in a plain build):
#   env "${SANITIZER_ENV[@]}" PROGRAM...
SANITIZER_ENV=()
_sanitize=$(sed -n 's/.*"name": "b_sanitize"[^}]*"value": "\([^"]*\)".*/\1/p' \
  "$BUILD/meson-info/intro-buildoptions.json" 2>/dev/null | head -n 1)
case ${_sanitize:-none} in
*address*)
  _pre=$(cc -print-file-name=libasan.so)
  case $_sanitize in *undefined*) _pre="$_pre:$(cc -print-file-name=libubsan.so)" ;; esac
  # The interpreter's own allocations are not this project's leaks.
  SANITIZER_ENV=(LD_PRELOAD="$_pre" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0")
  ;;
esac
T=$(mktemp -d /var/tmp/confine-test.XXXXXX)
chmod 0755 "$T"
# Only the test's own shell cleans up: a background subshell that is killed before it has exec'd
# (the signal tests do that on purpose) would otherwise run this trap and delete the fixtures of
# the checks still to come.
_tap_main=$BASHPID
trap 'if [ "$BASHPID" = "$_tap_main" ]; then rm -rf "$T" 2>/dev/null || { chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"; }; fi' EXIT
FIX=$T/bin
mkdir -p "$FIX"
# The probe cache of the runs the tests make stays in the scratch directory, not in the real
# home of whoever runs the suite.
export XDG_CACHE_HOME=$T/cache
# ... and so do the stores of its tool caches (R39).
export XDG_STATE_HOME=$T/state
cp "$BUILD/confine" "$BUILD/confine-init" "$FIX/"
for t in "$BUILD"/tests/tools/*; do
  [ -f "$t" ] && [ -x "$t" ] && cp "$t" "$FIX/"
done
chmod -R a+rX "$FIX"

ok() { # status description
  local st=$1; shift
  _tap_n=$((_tap_n + 1))
  if [ "$st" -eq 0 ]; then
    echo "ok $_tap_n - $*"
  else
    _tap_failed=$((_tap_failed + 1))
    echo "not ok $_tap_n - $*"
  fi
}

is() { # got want description
  local got=$1 want=$2; shift 2
  _tap_n=$((_tap_n + 1))
  if [ "$got" == "$want" ]; then
    echo "ok $_tap_n - $*"
  else
    _tap_failed=$((_tap_failed + 1))
    echo "not ok $_tap_n - $*"
    printf '#   got:  %s\n#   want: %s\n' "$got" "$want"
  fi
}

skip() { # reason
  _tap_n=$((_tap_n + 1))
  if [ "${CONFINE_TEST_MUST_WORK:-0}" = 1 ]; then
    _tap_failed=$((_tap_failed + 1))
    echo "not ok $_tap_n - skipped but CONFINE_TEST_MUST_WORK=1: $*"
  else
    echo "ok $_tap_n # SKIP $*"
  fi
}

diag() { printf '# %s\n' "$@"; }

done_testing() {
  echo "1..$_tap_n"
  [ "$_tap_failed" -eq 0 ]
  exit $?
}

as_nobody() {
  setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}
