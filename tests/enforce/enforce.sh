# SPDX-License-Identifier: MIT
# Shared setup of the enforcement tests (tests/enforce/*.t).  Source it right after ../lib.sh.
#
# Every case runs as root AND as uid 65534 (the "users" root and nobody), each with a fake home
# and a workspace of its own, owned by that user; never the real /root.
#
# The sandbox's /tmp is a private tmpfs, so the fake homes, the workspaces and the tools the
# command runs must live outside /tmp: $E is $T/e (lib.sh puts $T under /var/tmp), or a
# directory of its own under /var/tmp should $T ever be under /tmp again.
#
#   E, TRYOP            the scratch directory and the tryop the sandboxed command runs
#                       ($E/bin/tryop; $E/bin holds the tools the command runs)
#   USERS               the users the cases run as: "root nobody" (or "self" when not root)
#   home WHO, ws WHO    WHO's fake home and workspace (ws = home/proj); ws/out holds nothing
#                       protected, so that the landlock backend does not split it (a new file
#                       at the workspace root is refused there: the root is split)
#   cx WHO ARGS...      `confine run ARGS...` as WHO from WHO's workspace, in a controlled
#                       environment (env -i + PATH HOME USER LOGNAME SHELL LANG TERM + $xenv);
#                       sets $out (stdout), $rc, $err (stderr)
#   hx WHO CMD...       CMD as WHO without confine (the control), same environment; sets $out, $rc
#   expect WHO WANT DESC ARGS...    cx, then `is` on stdout, plus the exit status if not 0
#   expect_host WHO WANT DESC CMD...  hx, then `is`
#   xenv=(N=V ...)      extra variables for the next cx/hx only; CX_CWD overrides the directory
#   sandbox_ok          0 when this machine can run a sandbox at all (else the .t skips)
#   enforce_users       creates the fixtures and sets RUN_USERS
#   enforce_begin       sandbox_ok (else skip the file) + enforce_users: the start of a .t

# The backend under test (SPEC 3.3): bwrap by default; tests/run runs the suite a second time
# with CONFINE_TEST_BACKEND=landlock.  One test body for both: where the backends differ, the
# difference is asserted (bk), and what only bwrap can do says so (bwrap_only) and asserts the
# landlock equivalent instead.
BACKEND=${CONFINE_TEST_BACKEND:-bwrap}
LL=0
[ "$BACKEND" = landlock ] && LL=1
# bk BWRAP-VALUE LANDLOCK-VALUE: the expectation for the backend under test.
bk() { if [ "$LL" = 1 ]; then printf '%s' "$2"; else printf '%s' "$1"; fi; }
# bwrap_only REASON: 0 under bwrap; under landlock prints why the check is bwrap's alone and
# returns 1, so that `bwrap_only ... || landlock-check` asserts the landlock equivalent.
bwrap_only() {
	[ "$LL" = 1 ] || return 0
	diag "landlock: bwrap-specific check replaced: $*"
	return 1
}

# The kernel's Landlock ABI (0 without Landlock).
LL_ABI=$("$FIX/tryop" landlock-abi 2>/dev/null | sed -n 's/^OK //p')
LL_ABI=${LL_ABI:-0}
# ux BWRAP-VALUE: the outcome of connecting to a host's pathname unix socket from inside.  The
# landlock backend below ABI 9 refuses socket(AF_UNIX) (and datagram socketpairs) with EPERM,
# so that no host socket is reachable at all, the workspace's and allowed ones included (the
# plan lists it as not provided); from ABI 9 on it governs the connect with RESOLVE_UNIX, which
# no rule grants: EACCES for every socket outside the sandbox (not verified on a kernel with
# ABI 9 yet).
ux() {
	if [ "$LL" = 1 ]; then
		if [ "$LL_ABI" -lt 9 ]; then printf EPERM; else printf EACCES; fi
	else
		printf '%s' "$1"
	fi
}

case $T in
/tmp/*) E=$(mktemp -d /var/tmp/confine-enforce.XXXXXX) ;;
*) E=$T/e && mkdir "$E" ;;
esac
chmod 0755 "$E"
# bg_pids: every background pid a .t starts (kill_bg kills them, also at exit).
bg_pids=()
kill_bg() {
	local p
	for p in "${bg_pids[@]}"; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	bg_pids=()
}
# (lib.sh says why only the test's own shell cleans up.)
trap 'if [ "$BASHPID" = "$_tap_main" ]; then kill_bg; for d in "$T" "$E"; do rm -rf "$d" 2>/dev/null || { chmod -R u+rwx "$d" 2>/dev/null; rm -rf "$d"; }; done; fi' EXIT
# $E/bin: the tools the sandboxed command runs (escape/escape.sh adds tryk there).
mkdir -p "$E/bin"
cp "$FIX/tryop" "$E/bin/"
chmod -R a+rX "$E/bin"
TRYOP=$E/bin/tryop

if [ "$(id -u)" = 0 ]; then
	USERS="root nobody"
else
	USERS="self"
fi
xenv=()
CX_CWD=

home() { echo "$E/$1/home"; }
ws() { echo "$E/$1/home/proj"; }

_uname() {
	case $1 in
	root) echo root ;;
	nobody) echo nobody ;;
	*) id -un ;;
	esac
}

_as() { # who cmd...: runs cmd as WHO (the caller's fds and cwd are inherited)
	local who=$1
	shift
	if [ "$who" = nobody ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	else
		"$@"
	fi
}

_env() { # who: the controlled environment, one NAME=VALUE per word
	local u
	u=$(_uname "$1")
	printf '%s\n' "PATH=/usr/local/bin:/usr/bin:/bin" "HOME=$(home "$1")" "USER=$u" \
		"LOGNAME=$u" "SHELL=/bin/sh" "LANG=C.UTF-8" "TERM=dumb"
	[ -n "${CONFINE_TEST_BACKEND:-}" ] && printf '%s\n' "CONFINE_BACKEND=$CONFINE_TEST_BACKEND"
	# A sanitizer build (CI) keeps its settings: ASan otherwise zeroes RLIMIT_CORE in every
	# tool it starts, host controls included.
	local v
	for v in ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS; do
		[ -n "${!v:-}" ] && printf '%s\n' "$v=${!v}"
	done
	return 0
}

cx() { # who confine-run-args...
	local who=$1
	shift
	local -a envv
	mapfile -t envv < <(_env "$who")
	# A hang in the product fails the check (status 124) instead of hanging the suite.
	out=$(cd "${CX_CWD:-$(ws "$who")}" &&
		_as "$who" timeout --foreground -k 5 "${CONFINE_TEST_TIMEOUT:-60}" \
			env -i "${envv[@]}" "${xenv[@]}" "$FIX/confine" run "$@" 2>"$E/err")
	rc=$?
	err=$(cat "$E/err")
	xenv=()
}

hx() { # who cmd...
	local who=$1
	shift
	local -a envv
	mapfile -t envv < <(_env "$who")
	out=$(cd "${CX_CWD:-$(ws "$who")}" && _as "$who" env -i "${envv[@]}" "${xenv[@]}" "$@" 2>"$E/err")
	rc=$?
	err=$(cat "$E/err")
	xenv=()
}

_got() { # what the run yielded, with the exit status and stderr when the status is not 0
	if [ "$rc" -eq 0 ]; then
		printf '%s' "$out"
	else
		printf '%s [exit %d: %s]' "$out" "$rc" "$(printf '%s' "$err" | head -c 400 | tr '\n' ' ')"
	fi
}

expect() { # who want description confine-run-args...
	local who=$1 want=$2 desc=$3
	shift 3
	cx "$who" "$@"
	is "$(_got)" "$want" "$who: $desc"
}

expect_host() { # who want description cmd...
	local who=$1 want=$2 desc=$3
	shift 3
	hx "$who" "$@"
	is "$(_got)" "$want" "$who: $desc (host control, no confine)"
}

expect_rc() { # who want-status description confine-run-args...
	local who=$1 want=$2 desc=$3
	shift 3
	cx "$who" "$@"
	is "$rc" "$want" "$who: $desc"
	[ "$rc" = "$want" ] || diag "stdout: $out" "stderr: $err"
}

# The fixture: a fake home with credentials in guarded places and ordinary files, and a
# workspace with guarded files, git metadata and a rule file.  Owned by WHO.
setup_user() { # who
	local who=$1 h w
	h=$(home "$who")
	w=$(ws "$who")
	mkdir -p "$h/.ssh" "$h/.aws/proj" "$h/.config/autostart" "$h/.config/gh" \
		"$w/x" "$w/sub" "$w/.git/hooks" "$w/.confine" "$w/out"
	chmod 0755 "$E/$who" "$h" "$w"
	chmod 0700 "$h/.ssh"
	echo ssh-secret >"$h/.ssh/id_ed25519"
	echo npm-secret >"$h/.npmrc"
	echo git-secret >"$h/.git-credentials"
	echo aws-secret >"$h/.aws/credentials"
	echo aws-proj >"$h/.aws/proj/readme"
	echo gh-secret >"$h/.config/gh/hosts.yml"
	echo bashrc >"$h/.bashrc"
	echo notes >"$h/notes.txt"
	echo env-secret >"$w/.env"
	echo envlocal-secret >"$w/.env.local"
	echo pem-secret >"$w/x/y.pem"
	echo key-secret >"$w/sub/server.key"
	echo src >"$w/src.txt"
	echo hook >"$w/.git/hooks/pre-commit.sample"
	printf '[core]\n\tbare = false\n' >"$w/.git/config"
	echo '{"version": 1, "rules": []}' >"$w/.confine/rules.json"
	chmod 0600 "$h/.ssh/id_ed25519" "$h/.npmrc" "$h/.git-credentials" "$h/.aws/credentials" \
		"$w/.env" "$w/.env.local" "$w/x/y.pem"
	if [ "$who" = nobody ]; then
		chown -R 65534:65534 "$E/$who"
	fi
}

# The start of every .t: skip the file when this machine cannot run a sandbox at all (a failure
# under CONFINE_TEST_MUST_WORK=1), else create the fixtures and RUN_USERS.
enforce_begin() {
	if ! sandbox_ok; then
		skip "$(bk "bubblewrap is not installed on this machine" "the landlock backend is not available here (confine probe)")"
		done_testing
	fi
	enforce_users
}

# Can this machine run a sandbox at all?  bwrap missing is a property of the machine (a skip,
# which CONFINE_TEST_MUST_WORK=1 turns into a failure); anything else is the product's to pass.
sandbox_ok() {
	if [ "$LL" = 1 ]; then
		"$FIX/confine" probe --json 2>/dev/null |
			jq -e '.backends[] | select(.backend == "landlock") | .available' >/dev/null
		return
	fi
	command -v bwrap >/dev/null 2>&1 || [ -x /usr/bin/bwrap ]
}

# Unprivileged user namespaces, needed for the uid 65534 runs.
userns_ok() {
	[ "$(id -u)" != 0 ] && return 0
	[ "$LL" = 1 ] && return 0 # no namespaces
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		bwrap --unshare-user --ro-bind / / true >/dev/null 2>&1
}

# Sets RUN_USERS to the users this machine can run the cases as, creates their fixtures, and
# records a skip for each user it cannot run as.
enforce_users() {
	local u
	RUN_USERS=""
	for u in $USERS; do
		if [ "$u" = nobody ] && ! userns_ok; then
			skip "uid 65534 cases: unprivileged user namespaces are not available here"
			continue
		fi
		setup_user "$u"
		RUN_USERS="$RUN_USERS $u"
	done
}


# Background runs (signals, orphans).
# Starts `confine run ARGS...` as WHO in the background; BGPID is confine's own pid (every
# wrapper execs), stdout and stderr go to $E/bg.out and $E/bg.err.
cx_bg() { # who confine-run-args...
	local who=$1
	shift
	local -a envv pre=()
	mapfile -t envv < <(_env "$who")
	[ "$who" = nobody ] && pre=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	# A background job of a non-interactive shell starts with SIGINT and SIGQUIT ignored;
	# confine gets the default dispositions, as from a terminal, where env can restore them.
	local -a dflt=()
	env --default-signal=INT true 2>/dev/null && dflt=(--default-signal=INT,QUIT)
	(cd "$(ws "$who")" && exec "${pre[@]}" env "${dflt[@]}" -i "${envv[@]}" "$FIX/confine" run "$@" \
		>"$E/bg.out" 2>"$E/bg.err" </dev/null) &
	BGPID=$!
	bg_pids+=("$BGPID")
}

# Pids of processes whose command line starts with PATTERN (an ERE); the anchor keeps confine
# and bwrap, whose command lines contain the sandboxed command further on, out of the answer.
procs() { pgrep -f "^$1" | tr '\n' ' ' | sed 's/ $//'; }

wait_for_proc() { # pattern seconds: 0 once a process matches
	local i n=$(($2 * 50))
	for ((i = 0; i < n; i++)); do
		[ -n "$(procs "$1")" ] && return 0
		sleep 0.02
	done
	return 1
}

wait_gone() { # pattern seconds: 0 once no process matches
	local i n=$(($2 * 50))
	for ((i = 0; i < n; i++)); do
		[ -z "$(procs "$1")" ] && return 0
		sleep 0.02
	done
	return 1
}

wait_pid() { # pid seconds: waits for a background child; sets WAITRC (or "timeout", then kills it)
	local i n=$(($2 * 50))
	for ((i = 0; i < n; i++)); do
		if ! kill -0 "$1" 2>/dev/null; then
			wait "$1" 2>/dev/null
			WAITRC=$?
			return 0
		fi
		# A zombie child still answers kill -0; wait reaps it.
		if [ "$(ps -o stat= -p "$1" 2>/dev/null | cut -c1)" = Z ]; then
			wait "$1" 2>/dev/null
			WAITRC=$?
			return 0
		fi
		sleep 0.02
	done
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	WAITRC=timeout
	return 1
}
