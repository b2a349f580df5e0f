#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# R19: CONFINE_SANDBOX_POLICY and --policy through `confine run`.  "required" (the default) with
# no working backend refuses with exit 125 and the probe's code and hint; "off" runs the command
# unsandboxed and silently; any other value warns, quoting it, and means "required".
source "$(dirname "$0")/../lib.sh"

mkdir -m 0755 "$T/ws"
cd "$T/ws" || exit 1
unset CONFINE_SANDBOX_POLICY
export XDG_CACHE_HOME=$T/cache
NOBWRAP=/nonexistent   # a PATH without bwrap: the probe answers binary_missing

# "No working backend": bwrap missing, and the landlock fallback of SPEC 3.3 excluded by
# CONFINE_BACKEND=bwrap (auto would run the command under landlock; checked at the end).
run_nobwrap() { # policy-env-value, confine run arguments...
  local pol=$1; shift
  if [ "$pol" = "<unset>" ]; then
    env -u CONFINE_SANDBOX_POLICY CONFINE_BACKEND=bwrap PATH=$NOBWRAP "$CONFINE" run "$@"
  else
    env CONFINE_SANDBOX_POLICY="$pol" CONFINE_BACKEND=bwrap PATH=$NOBWRAP "$CONFINE" run "$@"
  fi
}

# required, no backend: 125, the code and the hint.
run_nobwrap required -- /bin/true 2>"$T/err"; st=$?
is "$st" 125 "R19 required without a backend: exit 125"
ok "$(grep -q 'binary_missing' "$T/err"; echo $?)" "R19 the probe's code is on stderr"
ok "$(grep -q '^hint: .*bubblewrap' "$T/err"; echo $?)" "R19 the probe's hint is on stderr"
if grep -qE '^(ID|ID_LIKE)=.*(debian|ubuntu)' /etc/os-release 2>/dev/null; then
  ok "$(grep -q 'apt-get install bubblewrap' "$T/err"; echo $?)" "R19 the hint is the apt line"
else
  skip "not a Debian-like system: the apt hint is not the one to expect"
fi
ok "$(grep -q '^confine: .*bwrap' "$T/err"; echo $?)" "R19 the message names the backend"

# The default is required.
run_nobwrap "<unset>" -- /bin/true 2>"$T/err"; st=$?
is "$st" 125 "R19 unset policy means required: exit 125"
ok "$(grep -q 'binary_missing' "$T/err"; echo $?)" "R19 unset policy: the probe's code"
ok "$(grep -q 'warning' "$T/err"; [ $? -ne 0 ]; echo $?)" "R19 unset policy: no warning"

# off: the command runs, with its own status, and nothing is printed.
out=$(run_nobwrap off -- /bin/echo hello 2>"$T/err"); st=$?
is "$st" 0 "R19 off without a backend: the command runs"
is "$out" hello "R19 off: the command's output"
is "$(cat "$T/err")" "" "R19 off: no warning at all"
run_nobwrap off -- /bin/sh -c 'exit 7' 2>/dev/null; is "$?" 7 "R19 off: the command's exit status"
# Really unsandboxed: the same user namespace as the caller.
host_ns=$(readlink /proc/self/ns/user)
is "$(run_nobwrap off -- /bin/readlink /proc/self/ns/user 2>/dev/null)" "$host_ns" \
  "R19 off: no sandbox (host user namespace)"
if [ -x /usr/bin/bwrap ]; then
  in_ns=$(CONFINE_SANDBOX_POLICY=required "$CONFINE" run -- /bin/readlink /proc/self/ns/user); st=$?
  is "$st" 0 "R19 required with a backend: the command runs"
  ok "$([ -n "$in_ns" ] && [ "$in_ns" != "$host_ns" ]; echo $?)" \
    "R19 required: sandboxed (own user namespace)"
else
  skip "R19 required with a backend needs /usr/bin/bwrap"
fi

# Trimmed and case-insensitive.
out=$(run_nobwrap '  OFF  ' -- /bin/echo ok 2>"$T/err"); st=$?
is "$st,$out" "0,ok" "R19 '  OFF  ' is off"
is "$(cat "$T/err")" "" "R19 '  OFF  ': no warning"
run_nobwrap $'\tReQuIrEd\n' -- /bin/true 2>"$T/err"; st=$?
is "$st" 125 "R19 'ReQuIrEd' with blanks is required"
ok "$(grep -q 'warning' "$T/err"; [ $? -ne 0 ]; echo $?)" "R19 a valid value draws no warning"

# Any other value: a warning quoting it, and required.
run_nobwrap bogus -- /bin/true 2>"$T/err"; st=$?
is "$st" 125 "R19 'bogus' is treated as required"
ok "$(grep -q "warning.*'bogus'" "$T/err"; echo $?)" "R19 the warning quotes 'bogus'"
ok "$(grep -q 'binary_missing' "$T/err"; echo $?)" "R19 'bogus': then the probe's code"
run_nobwrap warn -- /bin/true 2>"$T/err"; st=$?
is "$st" 125 "R19 there is no 'warn' state"
run_nobwrap '' -- /bin/true 2>"$T/err"; st=$?
is "$st" 125 "R19 an empty value is required"
if [ -x /usr/bin/bwrap ]; then
  CONFINE_SANDBOX_POLICY=bogus "$CONFINE" run -- /bin/true 2>"$T/err"; st=$?
  is "$st" 0 "R19 'bogus' with a backend runs sandboxed"
  ok "$(grep -q "'bogus'" "$T/err"; echo $?)" "R19 ... and still warns"
else
  skip "no /usr/bin/bwrap: 'bogus' with a backend cannot be tried"
fi

# --policy overrides the environment, both ways.
run_nobwrap required --policy off -- /bin/true 2>"$T/err"; st=$?
is "$st" 0 "R19 --policy off overrides CONFINE_SANDBOX_POLICY=required"
run_nobwrap off --policy required -- /bin/true 2>"$T/err"; st=$?
is "$st" 125 "R19 --policy required overrides CONFINE_SANDBOX_POLICY=off"
ok "$(grep -q 'binary_missing' "$T/err"; echo $?)" "R19 --policy required: the probe's code"
run_nobwrap off --policy ' Off ' -- /bin/true 2>/dev/null
is "$?" 0 "R19 --policy is trimmed and case-insensitive"
run_nobwrap off --policy bogus -- /bin/true 2>"$T/err"; st=$?
is "$st" 125 "R19 --policy bogus is a usage error (exit 125)"

# Other probe codes reach the message too: a bwrap planted in the workspace.
if [ -x /usr/bin/bwrap ]; then
  mkdir -m 0755 "$T/ws/bin"
  cp /usr/bin/bwrap "$T/ws/bin/bwrap"
  env CONFINE_BACKEND=bwrap PATH="$T/ws/bin" CONFINE_SANDBOX_POLICY=required "$CONFINE" run -- /bin/true 2>"$T/err"
  st=$?
  is "$st" 125 "R19 a planted bwrap only: exit 125"
  ok "$(grep -q 'path_rejected' "$T/err"; echo $?)" "R19 ... with path_rejected"
  rm -rf "$T/ws/bin"
else
  skip "no /usr/bin/bwrap: a planted bwrap cannot be compared with it"
fi

# The same as uid 65534.
mkdir -m 0755 "$T/home" && chown 65534:65534 "$T/home"
as_nobody env -u XDG_CACHE_HOME HOME="$T/home" CONFINE_BACKEND=bwrap PATH=$NOBWRAP CONFINE_SANDBOX_POLICY=required \
  "$FIX/confine" run -- /bin/true 2>"$T/err"; st=$?
is "$st" 125 "R19 uid 65534: required without a backend: exit 125"
ok "$(grep -q 'binary_missing' "$T/err"; echo $?)" "R19 uid 65534: the probe's code"
out=$(as_nobody env -u XDG_CACHE_HOME HOME="$T/home" PATH=$NOBWRAP CONFINE_SANDBOX_POLICY=off \
  "$FIX/confine" run -- /bin/echo hi 2>"$T/err"); st=$?
is "$st,$out" "0,hi" "R19 uid 65534: off runs the command"
is "$(cat "$T/err")" "" "R19 uid 65534: off prints nothing"

# SPEC 3.3: under auto (the default backend) a missing bwrap falls back to landlock when the
# kernel has it, with one line naming the probe code; required still means sandboxed.
if "$CONFINE" probe --json 2>/dev/null | jq -e '.backends[] | select(.backend == "landlock") | .available' >/dev/null; then
  out=$(env -u CONFINE_BACKEND PATH=$NOBWRAP "$CONFINE" run -- /bin/echo ran 2>"$T/err2")
  is "$out" ran "SPEC 3.3 auto without bwrap: the command runs under landlock"
  is "$(grep -c '^confine: warning: bwrap unavailable (binary_missing): falling back to the landlock backend' "$T/err2")" 1 \
    "SPEC 3.3 auto without bwrap: one line names the probe code and the fallback"
else
  skip "SPEC 3.3 auto fallback: the landlock backend is not available here"
fi
done_testing
