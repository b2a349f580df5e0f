# SPDX-License-Identifier: MIT
# Shared setup of the kernel-surface escape tests (tests/enforce/escape/*.t, THREATS.md
# "Terminal, processes, signals" and "Environment, descriptors, kernel").  Source it first.
#
# On top of ../enforce.sh (cx, hx, expect, expect_host, RUN_USERS):
#   TRYK         the tryk the sandboxed command runs (under $E, which the sandbox can see;
#                $FIX lives in /tmp, which is private inside the sandbox)
#   got          what the last cx/hx yielded: stdout, plus the exit status and stderr if not 0
#   sysctl_is FILE VALUE   0 when /proc/sys/FILE holds VALUE
source "$(dirname "$0")/../../lib.sh"
source "$(dirname "$0")/../enforce.sh"

mkdir -p "$E/bin"
cp "$FIX/tryk" "$E/bin/"
chmod a+rx "$E/bin/tryk"
TRYK=$E/bin/tryk
cp "$FIX/withfilter" "$E/bin/"
chmod a+rx "$E/bin/withfilter"
WITHFILTER=$E/bin/withfilter

if ! sandbox_ok; then
	skip "$(bk "bubblewrap is not installed on this machine" "the landlock backend is not available here (confine probe)")"
	done_testing
fi
enforce_users

got() { _got; }

sysctl_is() { # file value
	[ "$(cat "/proc/sys/$1" 2>/dev/null)" = "$2" ]
}
