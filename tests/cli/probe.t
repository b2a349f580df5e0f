#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# R18: `confine probe` — stable codes, JSON shape, exit status, hints, the cache, and the same
# answers for an unprivileged user.  Fake bwraps are root-owned scripts in root-owned 0755
# directories, so that they pass the file checks and reach the step under test.
source "$(dirname "$0")/../lib.sh"

if ! command -v jq >/dev/null; then
  skip "R18 probe tests need jq to read the JSON"
  done_testing
fi
if [ "$(id -u)" != 0 ]; then
  skip "R18 probe tests plant root-owned fake binaries and need root"
  done_testing
fi

field() { jq -r ".backends[0].$1" <<<"$2"; }

# A fake bwrap: $1 = body for --version, $2 = option to leave out of --help, $3 = sandbox body.
fake() {
  local d
  d=$(mktemp -d "$T/fake.XXXXXX") && chmod 0755 "$d"
  {
    echo '#!/bin/sh'
    echo 'case "$1" in'
    echo "--version) $1 ;;"
    echo '--help) cat <<EOF'
    for o in --args --new-session --die-with-parent --unshare-user --disable-userns \
      --unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup-try --unshare-net --cap-drop \
      --ro-bind --bind-fd --ro-bind-fd --dev --proc --tmpfs --size --perms --ro-bind-data \
      --remount-ro --add-seccomp-fd --as-pid-1 --chdir --info-fd; do
      [ "$o" = "${2:-}" ] || printf '    %-24s text\n' "$o"
    done
    echo 'EOF'
    echo ';;'
    echo "*) ${3:-exit 0} ;;"
    echo 'esac'
  } >"$d/bwrap"
  chmod 0755 "$d/bwrap"
  echo "$d"
}

export XDG_CACHE_HOME=$T/cache
# Exit status 1 means no backend works: where the landlock backend works (SPEC 3.3), a broken
# bwrap still leaves one, and probe exits 0.
LL_OK=0
abi=$("$BUILD/tests/tools/tryop" landlock-abi | sed 's/^OK //')
[ "${abi:-0}" -ge 6 ] 2>/dev/null && LL_OK=1
NOBW=$((1 - LL_OK))

# binary_missing: exit 1, the JSON object, the install line of this distribution.
out=$(PATH=/nonexistent "$CONFINE" probe --json 2>"$T/err"); st=$?
is "$st" "$NOBW" "R18 binary_missing exits $NOBW (1 only when landlock does not work either)"
is "$(field code "$out")" binary_missing "R18 binary_missing code"
is "$(field available "$out")" false "R18 binary_missing: available false"
is "$(field path "$out")" null "R18 binary_missing: path null"
is "$(field guarantees.read_protection "$out")" "not provided" "R18 no read protection"
if grep -qE '^(ID|ID_LIKE)=.*(debian|ubuntu)' /etc/os-release 2>/dev/null; then
  ok "$(field hint "$out" | grep -qF 'apt-get install bubblewrap'; echo $?)" \
    "R18 binary_missing hint is the apt line"
else
  ok "$(field hint "$out" | grep -q bubblewrap; echo $?)" "R18 binary_missing hint installs it"
fi
ok "$(grep -q "^confine: sandbox backend unavailable: 'bwrap': .*binary_missing" "$T/err"; echo $?)" \
  "R18 failure message on stderr"
ok "$(grep -q '^hint: ' "$T/err"; echo $?)" "R18 hint line on stderr"
is "$(jq -r '[.backends[].backend] | join(",")' <<<"$out")" bwrap,landlock "R18 two backend objects on Linux: bwrap, landlock"
is "$(jq -r '.backends[1].available' <<<"$out")" "$([ $LL_OK = 1 ] && echo true || echo false)" "SPEC 3.3 the landlock object says whether it works (ABI ${abi:-0})"

# Text output of a failure.
out=$(PATH=/nonexistent "$CONFINE" probe 2>&1); st=$?
is "$st" "$NOBW" "R18 text: exit $NOBW"
ok "$(grep -q '^code: *binary_missing' <<<"$out"; echo $?)" "R18 text shows the code"

# available on this machine, with guarantees.
if [ -x /usr/bin/bwrap ]; then
  out=$(PATH=/usr/bin:/bin "$CONFINE" probe --json --no-cache); st=$?
  is "$st" 0 "R18 available exits 0"
  is "$(field code "$out")" available "R18 available on this machine"
  is "$(field path "$out")" /usr/bin/bwrap "R18 the canonical path is pinned"
  ok "$(field version "$out" | grep -qE '^[0-9]+\.[0-9]+\.[0-9]+$'; echo $?)" "R18 version shown"
  is "$(field guarantees.write_protection "$out")" "enforced (read-only binds)" \
    "R18 write protection guarantee"
  is "$(field guarantees.network_isolation "$out")" \
    "enforced with --no-network (network namespace)" "R18 network guarantee"
  is "$(jq -r '.backends[0] | [(.landlock_abi|type), (.seccomp|type), (.cgroup|type), (.cached|type)]
    | join(",")' <<<"$out")" "number,boolean,boolean,boolean" "R18 host facts in the JSON"
  out=$(PATH=/usr/bin:/bin "$CONFINE" probe); st=$?
  is "$st" 0 "R18 text: exit 0 when available"
  ok "$(grep -q '^path: */usr/bin/bwrap' <<<"$out"; echo $?)" "R18 text shows the path"
else
  skip "R18 no /usr/bin/bwrap on this machine"
fi

# path_rejected: a bwrap planted in the workspace; a relative PATH entry.
mkdir -p -m 0755 "$T/ws/bin"
cp "$(fake "echo 'bubblewrap 0.8.0'")/bwrap" "$T/ws/bin/bwrap"
out=$(PATH=$T/ws/bin "$CONFINE" probe --json --workspace "$T/ws" 2>/dev/null); st=$?
is "$st" "$NOBW" "R18 planted bwrap: exit $NOBW"
is "$(field code "$out")" path_rejected "R18 path_rejected for a bwrap inside the workspace"
ok "$(field reason "$out" | grep -q "$T/ws/bin/bwrap"; echo $?)" "R18 the reason names it"
out=$(cd "$T/ws" && PATH=bin "$CONFINE" probe --json --workspace /nonexistent-ws 2>/dev/null)
is "$(field code "$out")" path_rejected "R18 path_rejected for a relative PATH entry"
if [ -x /usr/bin/bwrap ]; then
  out=$(PATH=$T/ws/bin:/usr/bin "$CONFINE" probe --json -w "$T/ws"); st=$?
  is "$(field path "$out"),$st" /usr/bin/bwrap,0 "R18 an acceptable bwrap later in PATH wins"
else
  skip "no /usr/bin/bwrap: an acceptable bwrap later in PATH cannot be tried"
fi

# binary_invalid: not owned by root.
d=$(fake "echo 'bubblewrap 0.8.0'")
chown 65534:65534 "$d/bwrap"
out=$(PATH=$d "$CONFINE" probe --json 2>/dev/null)
is "$(field code "$out")" binary_invalid "R18 binary_invalid for a bwrap not owned by root"

# version_too_old, version_unreadable, required_feature_missing.
out=$(PATH=$(fake "echo 'bubblewrap 0.7.0'") "$CONFINE" probe --json 2>/dev/null); st=$?
is "$(field code "$out"),$st" "version_too_old,$NOBW" "R18 version_too_old for 0.7.0"
is "$(field version "$out")" 0.7.0 "R18 the old version is shown"
out=$(PATH=$(fake "echo 'not bubblewrap'") "$CONFINE" probe --json 2>/dev/null)
is "$(field code "$out")" version_unreadable "R18 version_unreadable"
out=$(PATH=$(fake "echo 'bubblewrap 0.8.0'" --disable-userns) "$CONFINE" probe --json 2>/dev/null)
is "$(field code "$out")" required_feature_missing "R18 required_feature_missing"
ok "$(field reason "$out" | grep -q -- '--disable-userns'; echo $?)" "R18 reason names the option"

# Sandbox failures are classified from bwrap's message.
d=$(fake "echo 'bubblewrap 0.8.0'" "" \
  "echo 'bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2; exit 1")
out=$(PATH=$d "$CONFINE" probe --json 2>/dev/null)
is "$(field code "$out")" user_namespace_disabled "R18 user_namespace_disabled"
ok "$(field hint "$out" | grep -qE 'sysctl|container'; echo $?)" \
  "R18 user_namespace_disabled has a remedy"
d=$(fake "echo 'bubblewrap 0.8.0'" "" \
  "echo \"bwrap: Can't mount proc on /newroot/proc: Operation not permitted\" >&2; exit 1")
out=$(PATH=$d "$CONFINE" probe --json 2>/dev/null)
is "$(field code "$out")" proc_mount_restricted "R18 proc_mount_restricted"

# probe_timeout: a bwrap that hangs is killed after about a second.
d=$(fake "sleep 30")
start=$(date +%s%N)
out=$(PATH=$d "$CONFINE" probe --json 2>/dev/null); st=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
is "$(field code "$out"),$st" "probe_timeout,$NOBW" "R18 probe_timeout"
ok "$([ "$ms" -ge 900 ] && [ "$ms" -lt 3000 ]; echo $?)" "R18 the hung step was cut after ~1 s ($ms ms)"

# The cache: a copy of the real bwrap, so touching it does not disturb the host.
if [ -x /usr/bin/bwrap ]; then
  mkdir -m 0755 "$T/cb"
  cp /usr/bin/bwrap "$T/cb/bwrap" && chmod 0755 "$T/cb/bwrap"
  out=$(PATH=$T/cb "$CONFINE" probe --json)
  is "$(field code "$out"),$(field cached "$out")" available,false "R18 first probe is fresh"
  out=$(PATH=$T/cb "$CONFINE" probe --json)
  is "$(field cached "$out")" true "R18 second probe is cached"
  is "$(field path "$out")" "$T/cb/bwrap" "R18 cached answer keeps the pinned path"
  is "$(stat -c %a "$XDG_CACHE_HOME/confine")" 700 "R18 cache directory is 0700"
  out=$(PATH=$T/cb "$CONFINE" probe --json --no-cache)
  is "$(field cached "$out")" false "R18 --no-cache probes again"
  touch -d '2001-01-01' "$T/cb/bwrap"
  out=$(PATH=$T/cb "$CONFINE" probe --json)
  is "$(field code "$out"),$(field cached "$out")" available,false "R18 touching the binary invalidates the cache"
  out=$(PATH=$T/cb "$CONFINE" probe --json)
  is "$(field cached "$out")" true "R18 cached again after the re-probe"
  # The same directory name, a failing binary: a failure is never cached or answered from it.
  mv "$T/cb/bwrap" "$T/cb/bwrap.real"
  cp "$(fake "echo 'bubblewrap 0.7.0'")/bwrap" "$T/cb/bwrap"
  out=$(PATH=$T/cb "$CONFINE" probe --json 2>/dev/null)
  is "$(field code "$out"),$(field cached "$out")" version_too_old,false "R18 a replaced binary is re-probed"
  out=$(PATH=$T/cb "$CONFINE" probe --json 2>/dev/null)
  is "$(field cached "$out")" false "R18 a failure is never cached"
else
  skip "R18 cache tests need /usr/bin/bwrap"
fi

# An unprivileged user: the same answer, its own cache under HOME.
if [ -x /usr/bin/bwrap ]; then
  mkdir -m 0755 "$T/home" && chown 65534:65534 "$T/home"
  out=$(as_nobody env -u XDG_CACHE_HOME HOME="$T/home" PATH=/usr/bin:/bin "$FIX/confine" probe --json)
  st=$?
  is "$(field code "$out"),$st" available,0 "R18 available as uid 65534"
  out=$(as_nobody env -u XDG_CACHE_HOME HOME="$T/home" PATH=/usr/bin:/bin "$FIX/confine" probe --json)
  is "$(field cached "$out")" true "R18 cached as uid 65534"
  is "$(stat -c %u "$T/home/.cache/confine/probe-bwrap")" 65534 "R18 the cache belongs to the user"
  out=$(as_nobody env -u XDG_CACHE_HOME HOME="$T/home" PATH=/nonexistent "$FIX/confine" probe --json 2>/dev/null)
  is "$(field code "$out")" binary_missing "R18 binary_missing as uid 65534"
  ok "$(field hint "$out" | grep -q 'sudo '; echo $?)" "R18 the install line has sudo for a user"
  # A cache written by someone else is not trusted.
  out=$(HOME="$T/home" env -u XDG_CACHE_HOME PATH=/usr/bin:/bin "$CONFINE" probe --json)
  is "$(field cached "$out")" false "R18 root ignores a cache directory owned by another user"
  is "$(find "$T/home" -user 0 | wc -l)" 0 "R18 root writes nothing into another user's home"
else
  skip "R18 unprivileged probe needs /usr/bin/bwrap"
fi

# Usage errors.
"$CONFINE" probe --bogus 2>/dev/null; is "$?" 125 "R18 unknown option: exit 125"
"$CONFINE" probe --workspace 2>/dev/null; is "$?" 125 "R18 --workspace without a value: exit 125"
"$CONFINE" probe extra 2>/dev/null; is "$?" 125 "R18 stray argument: exit 125"
"$CONFINE" probe --help >/dev/null; is "$?" 0 "R18 --help: exit 0"

done_testing
