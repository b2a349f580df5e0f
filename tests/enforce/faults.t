#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Faults and bad input (issue 28), on both backends, as root and as uid 65534:
#  - kill -9 of confine at random moments of the start-up and of the run: no process of the run
#    outlives its bound and the caller's pipe closes (R4; keeper.c);
#  - the audit log on a full file system and after a torn last line: every line parses, a line
#    that cannot be written is said and undone, the command's exit status is kept (SPEC 8);
#  - a report that cannot be written keeps the command's exit status;
#  - access suffix typos refused; a path with ':' written with its access;
#  - the sweep of the temporary directories of killed runs (util/owntmp.c);
#  - messages that name the real cause (ulimit -n, --limit mem, a killed confine-init).
# The sweep's checks leave directories with confine's names in /tmp and every confine run of
# the same user sweeps /tmp, so other runs on the machine (another test file, another suite)
# would remove them: as root the file runs in a mount namespace of its own with a private
# /tmp, where only the source and build trees are bound back if they lie under /tmp
# (tests/schedule also runs it alone).
if [ -z "${CONFINE_FAULTS_NS:-}" ] && [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	CONFINE_FAULTS_NS=1 exec unshare -m bash "$0" "$@"
fi
# The source and build trees stay where they are when they lie under /tmp (a clone made with
# mktemp -d): each is opened before the tmpfs covers it and bound back onto the same path.
if [ -n "${CONFINE_FAULTS_NS:-}" ]; then
	trees=("${CONFINE_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}")
	trees+=("${CONFINE_BUILD:-${trees[0]}/build}")
	fds=()
	for d in "${trees[@]}"; do
		exec {fd}<"$d" && fds+=("$fd")
	done
	mount -t tmpfs -o mode=1777 confine-test-tmp /tmp
	for i in "${!trees[@]}"; do
		case ${trees[$i]} in /tmp/*) ;; *) continue ;; esac
		mkdir -p "${trees[$i]}" &&
			mount --no-canonicalize --bind "/proc/self/fd/${fds[$i]}" "${trees[$i]}"
	done
	for fd in "${fds[@]}"; do exec {fd}<&-; done
fi
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin

TRIALS=${CONFINE_FAULT_TRIALS:-15} # per user and phase; the file stays well under a minute
BOUND=10                          # seconds a process of the run may outlive confine

# The run's processes: every process whose command line holds the trial's marker: confine and
# its keeper (a fork of it), bwrap, confine-init, the command and its children all carry it; a
# zombie's command line is empty.  The marker is read from a file, so that grep's own command
# line does not hold it.  Nothing else on the machine has it.
run_procs() { # marker
	printf '%s\n' "$1" >"$E/mark"
	grep -lsaFf "$E/mark" /proc/[0-9]*/cmdline 2>/dev/null |
		sed 's,^/proc/\([0-9]*\)/cmdline$,\1,' | tr '\n' ' ' | sed 's/ $//'
}

now_ms() { date +%s%3N; }

wait_file() { # path: 0 once it exists (up to 10 s)
	local i
	for ((i = 0; i < 1000; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.01
	done
	return 1
}

# One trial: confine runs `sh -c "touch out/ready.I; sleep M & sleep M; :"` (a child in the
# background, one in the foreground) with its stdout and stderr on a pipe read by the test, and
# is killed with SIGKILL at a random moment of the start-up (phase start: 0-79 ms after confine
# is running) or of the run (phase run: 0-49 ms after the command wrote its file).  T_MS: how
# long until no process of the run was left and the pipe was closed, or "" past the bound.
trial() { # who phase i [confine-run-args...]
	local who=$1 phase=$2 i=$3
	shift 3
	local w mark comm k job reader start
	w=$(ws "$who")
	mark="30.$$$RANDOM$i"
	rm -f "$E/fifo" "$E/eof" "$w/out/ready.$i"
	mkfifo "$E/fifo"
	{
		cat "$E/fifo" >/dev/null
		: >"$E/eof"
	} &
	reader=$!
	local -a envv pre=()
	mapfile -t envv < <(_env "$who")
	[ "$who" = nobody ] && pre=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	(cd "$w" && exec "${pre[@]}" env -i "${envv[@]}" "$FIX/confine" run "$@" -- \
		sh -c "touch out/ready.$i; sleep $mark & sleep $mark; :" >"$E/fifo" 2>&1 </dev/null) &
	job=$!
	# SIGKILL for confine, not for the wrappers that exec it.
	for ((k = 0; k < 20000; k++)); do
		read -r comm <"/proc/$job/comm" 2>/dev/null || break
		[ "$comm" = confine ] && break
	done
	if [ "$phase" = run ]; then
		wait_file "$w/out/ready.$i"
		sleep "$(printf '0.%03d' $((RANDOM % 50)))"
	else
		sleep "$(printf '0.%03d' $((RANDOM % 80)))"
	fi
	kill -KILL "$job"
	start=$(now_ms)
	wait "$job" 2>/dev/null
	T_MS=
	for ((k = 0; k < BOUND * 100; k++)); do
		if [ -e "$E/eof" ] && [ -z "$(run_procs "$mark")" ]; then
			T_MS=$(($(now_ms) - start))
			break
		fi
		sleep 0.01
	done
	if [ -z "$T_MS" ]; then
		diag "left after ${BOUND}s ($phase, trial $i): pipe closed: $([ -e "$E/eof" ] && echo yes || echo no)"
		local p
		for p in $(run_procs "$mark"); do
			diag "$(ps -o pid=,ppid=,pgid=,stat=,wchan=,args= -p "$p" 2>/dev/null)"
			kill -KILL "$p" 2>/dev/null
		done
	fi
	kill -KILL "$reader" 2>/dev/null
	wait "$reader" 2>/dev/null
}

trials() { # who phase [confine-run-args...]
	local who=$1 phase=$2 i bad=0 max=0
	shift 2
	for ((i = 1; i <= TRIALS; i++)); do
		trial "$who" "$phase" "$i" "$@"
		if [ -z "$T_MS" ]; then
			bad=$((bad + 1))
		elif [ "$T_MS" -gt "$max" ]; then
			max=$T_MS
		fi
	done
	is "$bad" 0 "$who: kill -9 of confine during the $phase ($TRIALS trials${*:+, $*}): nothing of the run outlived ${BOUND}s and the caller's pipe closed"
	diag "$who/$phase: the last process of the run was gone at most ${max} ms after the kill"
}

# The harness finds what it must find: a process that carries a marker, outside confine.
mark="31.$$$RANDOM"
sleep "$mark" &
ctl=$!
for ((k = 0; k < 500; k++)); do
	[ -n "$(run_procs "$mark")" ] && break
	sleep 0.01
done
[ "$(run_procs "$mark")" = "$ctl" ]
ok $? "harness control: a process that carries the marker is found (and only it)"
kill "$ctl"
wait "$ctl" 2>/dev/null

for who in $RUN_USERS; do
	trials "$who" start
	trials "$who" run
	# What the command starts in a session of its own: the pid namespace ends it with bwrap;
	# on the landlock backend only a cgroup can, where confine could make one (the plan then
	# lists no "daemon reaping" under what is not provided).
	cx "$who" --print-plan -- true
	if [ "$LL" = 0 ] || ! grep -q "daemon reaping" <<<"$out"; then
		w=$(ws "$who")
		mark="32.$$$RANDOM"
		cx_bg "$who" -- sh -c "setsid sleep $mark & touch out/daemon; sleep $mark"
		wait_file "$w/out/daemon"
		sleep 0.1
		[ -n "$(run_procs "$mark")" ]
		ok $? "$who: control: the command and its setsid daemon run"
		kill -KILL "$BGPID"
		wait_pid "$BGPID" 10
		for ((k = 0; k < BOUND * 100; k++)); do
			[ -z "$(run_procs "$mark")" ] && break
			sleep 0.01
		done
		is "$(run_procs "$mark")" "" "$who: kill -9 of confine: a daemon the command started with setsid goes too"
		rm -f "$w/out/daemon"
	else
		diag "$who: landlock without a cgroup: daemon reaping is listed as not provided"
	fi
done

# --- The audit log and the report on a full file system (SPEC 8) -------------------------
# A small tmpfs in a mount namespace of the test's own (the host sees nothing of it): the log
# is padded with one valid line to 100 bytes short of a page, and the rest of the tmpfs is
# filled, so that the next line needs a page there is not: its write is cut short (ENOSPC
# after the first bytes), which confine must undo.
audit_case() { # who
	local who=$1 w h fs
	w=$(ws "$who")
	h=$(home "$who")
	fs=$(mktemp -d /var/tmp/confine-fault-fs.XXXXXX)
	chmod 0755 "$fs"
	local -a envv pre=()
	mapfile -t envv < <(_env "$who")
	[ "$who" = nobody ] && pre=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	cat >"$E/audit-case.sh" <<-EOF
		set -u
		mount --make-rprivate / && mount -t tmpfs -o size=64k,mode=0777 confine-test "$fs/" || exit 99
		mkdir "$fs/full" "$fs/ok" && chmod 0777 "$fs/full" "$fs/ok"
		python3 -c 'import json; print(json.dumps({"pad": "x" * 3970}))' >"$fs/full/audit.log"
		chown -R $(id -u "$(_uname "$who")") "$fs/full" "$fs/ok"
		head -c 65536 /dev/zero >"$fs/fill" 2>/dev/null
		run() { (cd "$w" && ${pre[*]} env -i ${envv[*]} "$FIX/confine" run "\$@"); }
		size() { stat -c %s "\$1"; }
		echo "before \$(size "$fs/full/audit.log")"
		# The host's own append fails: the file system is full (control).
		printf 'x%.0s' \$(seq 200) >>"$fs/full/probe" 2>/dev/null; echo "host-append \$?"
		run --audit "$fs/full/audit.log" -- sh -c 'exit 3' 2>"$E/a1.err"; echo "rc1 \$?"
		echo "after1 \$(size "$fs/full/audit.log")"
		run --audit "$fs/full/audit.log" --report "$fs/ok/report.json" -- true 2>"$E/a2.err"; echo "rc2 \$?"
		run --report "$fs/full/report.json" -- sh -c 'exit 4' 2>"$E/a3.err"; echo "rc3 \$?"
		echo "report3 \$(size "$fs/full/report.json")"
		rm -f "$fs/fill" "$fs/full/probe" "$fs/full/report.json"
		# A landlock domain holds the files its rules name until the kernel frees it, a
		# moment after its last process: wait for the space to come back.
		for i in \$(seq 200); do
			[ "\$(df -k --output=avail "$fs" | tail -1)" -ge 16 ] && break
			sleep 0.05
		done
		run --audit "$fs/full/audit.log" -- true 2>"$E/a4.err"; echo "rc4 \$?"
		# A torn last line (a confine killed in its write): repaired before the next line.
		printf '{"version":1,"outcome":"allo' >>"$fs/full/audit.log"
		run --audit "$fs/full/audit.log" -- sh -c 'exit 5' 2>"$E/a5.err"; echo "rc5 \$?"
		cp "$fs/full/audit.log" "$E/audit.log"
		cp "$fs/ok/report.json" "$E/report-ok.json"
		umount "$fs"
	EOF
	unshare -m bash "$E/audit-case.sh" >"$E/audit-case.out" 2>"$E/audit-case.err"
	local rc=$?
	rmdir "$fs"
	if [ "$rc" = 99 ]; then
		skip "$who: audit on a full file system: this machine does not let the test mount a tmpfs in a namespace of its own"
		return
	fi
	local o
	o=$(cat "$E/audit-case.out")
	val() { sed -n "s/^$1 //p" <<<"$o"; }
	is "$(val host-append)" 1 "$who: control: the file system is full (the host's own append fails)"
	is "$(val rc1)" 3 "$who: audit line not written: the exit status is the command's (3)"
	grep -q "confine: cannot write the audit log: '$fs/full/audit.log': No space left on device" "$E/a1.err"
	ok $? "$who: audit line not written: said on stderr, with the cause"
	is "$(val after1)" "$(val before)" "$who: the cut-short write of the line is undone (the log's size is as before)"
	is "$(val rc2)" 0 "$who: audit line not written after a command that succeeded: exit status 0, not 125"
	jq -e '.audit_error.subject == "'"$fs/full/audit.log"'" and .exit_status == 0' "$E/report-ok.json" >/dev/null
	ok $? "$who: the report says the audit line is missing (audit_error)"
	is "$(val rc3)" 4 "$who: report not written: the exit status is the command's (4)"
	grep -q "confine: cannot write the report: '$fs/full/report.json': No space left on device" "$E/a3.err"
	ok $? "$who: report not written: said on stderr"
	is "$(val report3)" 0 "$who: report not written: the file is left empty, not half a report"
	is "$(val rc4)" 0 "$who: with space again, the next line is written"
	is "$(val rc5)" 5 "$who: after a torn last line: the run's own status"
	local lines bad
	lines=$(wc -l <"$E/audit.log")
	bad=$(while IFS= read -r l; do jq -e . <<<"$l" >/dev/null 2>&1 || echo bad; done <"$E/audit.log" | wc -l)
	is "$lines $bad" "3 0" "$who: the log: the pad line and the two written lines, every one parses"
	is "$(tail -n1 "$E/audit.log" | jq -c '[.exit_status, .log_repaired_bytes]')" "[5,28]" \
		"$who: the line after the torn one says how many bytes were cut (28)"
	[ -s "$E/a4.err" ] && diag "a4: $(cat "$E/a4.err")"
}

for who in $RUN_USERS; do
	audit_case "$who"
done

# Lines of concurrent runs never mix, and none is lost (the append lock).
set -- $RUN_USERS
w=$(ws "$1")
rm -f "$w/out/conc.log"
pids=()
for i in 1 2 3 4 5 6; do
	(cd "$w" && "$FIX/confine" run --audit "$w/out/conc.log" -- sh -c "exit $i" >/dev/null 2>&1) &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
is "$(jq -s -c '[.[].exit_status] | sort' "$w/out/conc.log" 2>&1)" "[1,2,3,4,5,6]" \
	"$1: 6 concurrent runs, one log: 6 lines, every one parses"

# A file whose last 1 MiB holds no newline is no log of confine's: nothing is cut, nothing
# appended, and that is said.
head -c 1100000 /dev/zero | tr '\0' x >"$w/out/notalog"
(cd "$w" && "$FIX/confine" run --audit "$w/out/notalog" -- sh -c 'exit 6' >/dev/null 2>"$E/nl.err")
is "$? $(wc -c <"$w/out/notalog")" "6 1100000" "$1: a 'log' without a newline in its last 1 MiB: status kept, nothing cut or appended"
grep -q "hold no newline" "$E/nl.err"
ok $? "$1: a 'log' without a newline in its last 1 MiB: said"

# --- Access suffixes (--allow/--ask/--deny PATH[:ACCESS]) --------------------------------
for who in $RUN_USERS; do
	w=$(ws "$who")
	mkdir -p "$w/out/private" "$w/out/a:b"
	echo secret >"$w/out/private/f"
	echo colon >"$w/out/a:b/f"
	[ "$who" = nobody ] && chown -R 65534:65534 "$w/out/private" "$w/out/a:b"
	expect_host "$who" "OK secret" "the private file is readable" "$TRYOP" cat "$w/out/private/f"
	for bad in raed writ Read: reda both: "" subtree; do
		cx "$who" --deny "out/private:$bad" -- "$TRYOP" cat "$w/out/private/f"
		is "$rc" 125 "$who: --deny 'out/private:$bad' is refused (125), nothing runs"
		case $bad in
		"" | *:) grep -qF "the access after the last ':' is empty" <<<"$err" ;;
		*) grep -qF "'$bad' is not an access" <<<"$err" && grep -qF "read, write or both" <<<"$err" ;;
		esac
		ok $? "$who: --deny 'out/private:$bad': the message names it and the three words"
		[ -z "$out" ]
		ok $? "$who: --deny 'out/private:$bad': the command did not run"
	done
	expect "$who" EACCES "--deny out/private:Read (any case) denies the read" \
		--deny out/private:Read -- "$TRYOP" cat "$w/out/private/f"
	expect "$who" EACCES "--deny out/private:READ denies the read" \
		--deny out/private:READ -- "$TRYOP" cat "$w/out/private/f"
	expect_host "$who" "OK colon" "the directory named a:b is readable" "$TRYOP" cat "$w/out/a:b/f"
	expect "$who" EACCES "a path with ':' written with its access ('out/a:b:both') is denied" \
		--deny "out/a:b:both" -- "$TRYOP" cat "$w/out/a:b/f"
	cx "$who" --deny "out/a:b" -- "$TRYOP" cat "$w/out/a:b/f"
	is "$rc" 125 "$who: 'out/a:b' without its access is refused: 'b' is not an access"
done

# --- The sweep of killed runs' temporary directories (util/owntmp.c) --------------------
new_dirs() { # before-file kind: the /tmp/confine-KIND.L* directories not listed there
	ls -d /tmp/confine-"$2".L* 2>/dev/null | sort | comm -13 "$1" - | tr '\n' ' ' | sed 's/ $//'
}
landlock_ok=$("$FIX/confine" probe --json 2>/dev/null | jq -r '.backends[] | select(.backend == "landlock") | .available')
for who in $RUN_USERS; do
	w=$(ws "$who")
	# A landlock run's TMPDIR, and a bwrap network run's socket directory, each killed; the
	# next run of any kind (the network run for the first, the backend under test for the
	# second) removes them.
	left=()
	if [ "$landlock_ok" = true ]; then
		ls -d /tmp/confine-run.L* 2>/dev/null | sort >"$E/before"
		cx_bg "$who" --backend landlock -- sh -c 'echo "$TMPDIR" > out/tmpdir; sleep 33.'$$
		wait_file "$w/out/tmpdir" && sleep 0.05
		lltmp=$(cat "$w/out/tmpdir")
		kill -KILL "$BGPID"
		wait_pid "$BGPID" 10
		[ -d "$lltmp" ] && [ "$(new_dirs "$E/before" run)" = "$lltmp" ]
		ok $? "$who: control: the killed landlock run left its TMPDIR ($lltmp)"
		left+=("$lltmp")
	else
		skip "$who: the landlock backend is not available here: no TMPDIR of a killed run to sweep"
	fi
	if command -v bwrap >/dev/null; then
		ls -d /tmp/confine-net.L* 2>/dev/null | sort >"$E/before"
		cx_bg "$who" --backend bwrap --net-allow example.invalid -- sh -c 'touch out/net; sleep 34.'$$
		wait_file "$w/out/net"
		kill -KILL "$BGPID"
		wait_pid "$BGPID" 10
		netdir=$(new_dirs "$E/before" net)
		[ -n "$netdir" ] && [ -d "$netdir" ]
		ok $? "$who: control: the killed network run left its socket directory ($netdir)"
		[ -n "$netdir" ] && left+=("$netdir")
		[ -z "${lltmp:-}" ] || [ ! -e "$lltmp" ]
		ok $? "$who: the network run (bwrap) removed the killed landlock run's TMPDIR"
	else
		skip "$who: bwrap is not installed here: no socket directory of a killed network run"
	fi
	# Safety: a live run's (locked), another user's, a symlink with a confine name, a name
	# that is not confine's, an old-style one left alone for less than an hour.
	live=$(mktemp -d /tmp/confine-run.LXXXXXX)
	other=$(mktemp -d /tmp/confine-run.LXXXXXX)
	link=$(mktemp -u /tmp/confine-run.LXXXXXX)
	notours=$(mktemp -d /tmp/confine-runs.LXXXXXX)
	young=$(mktemp -d /tmp/confine-run.XXXXXX)
	old=$(mktemp -d /tmp/confine-run.XXXXXX)
	victim=$(mktemp -d /tmp/confine-victim.XXXXXX)
	echo keep >"$victim/keep"
	ln -s "$victim" "$link"
	touch -d '-2 hours' "$old"
	if [ "$who" = root ]; then
		chown 65534:65534 "$other"
	else
		chown 65534:65534 "$live" "$link" "$notours" "$young" "$old" "$victim"
		chown -h 65534:65534 "$link"
	fi
	flock "$live" sleep 30 &
	lockpid=$!
	for ((k = 0; k < 500; k++)); do
		flock -n "$live" true 2>/dev/null || break
		sleep 0.01
	done
	cx "$who" -- true
	is "$rc" 0 "$who: the next run (of the backend under test, no network) ran"
	gone=0
	for d in "${left[@]}"; do [ -e "$d" ] || gone=$((gone + 1)); done
	is "$gone/${#left[@]}" "${#left[@]}/${#left[@]}" "$who: nothing the killed runs left is there any more (${left[*]})"
	[ -d "$live" ]
	ok $? "$who: a directory whose lock is held (a live run's) is left alone"
	if [ "$who" = root ]; then
		[ -d "$other" ]
		ok $? "$who: another user's directory is left alone"
	fi
	[ -L "$link" ] && [ "$(cat "$victim/keep")" = keep ]
	ok $? "$who: a symlink with a confine name is not followed (its target is intact)"
	[ -d "$notours" ] && [ -d "$young" ]
	ok $? "$who: a name that is not confine's, and an old-style directory younger than an hour, are left alone"
	[ ! -e "$old" ]
	ok $? "$who: an old-style directory left alone for two hours is removed"
	kill "$lockpid" 2>/dev/null
	wait "$lockpid" 2>/dev/null
	rm -rf "$live" "$other" "$link" "$notours" "$young" "$old" "$victim"
	rm -f "$w/out/tmpdir" "$w/out/net"
done

# --- Messages that name the real cause -----------------------------------------------------
for who in $RUN_USERS; do
	w=$(ws "$who")
	cx "$who" -- true
	is "$rc" 0 "$who: control: the run works with the usual descriptor limit"
	for n in 6 8; do
		mapfile -t envv < <(_env "$who")
		pre=()
		[ "$who" = nobody ] && pre=(setpriv --reuid=65534 --regid=65534 --clear-groups)
		err=$(cd "$w" && ulimit -n "$n" && "${pre[@]}" env -i "${envv[@]}" "$FIX/confine" run -- true 2>&1)
		rc=$?
		is "$rc" 125 "$who: ulimit -n $n: refused (125)"
		grep -q "RLIMIT_NOFILE, ulimit -n" <<<"$err" && grep -q "^hint: raise the limit" <<<"$err" &&
			! grep -q "kept changing\|reinstall" <<<"$err"
		ok $? "$who: ulimit -n $n: the message says the descriptor limit" || diag "$err"
	done
done
cgroup_ok=$("$CONFINE" probe --json --no-cache | jq -r '.backends[0].cgroup')
if [ "$cgroup_ok" = true ]; then
	cx root --limit mem=64M -- true
	is "$rc" 0 "root: control: --limit mem=64M runs"
	for m in 1K; do
		cx root --limit mem=$m -- true
		# Where the OOM kill lands is the kernel's choice: almost always in the sandbox's
		# own setup (125: nothing ran), but on a busy machine it can land in the command's
		# exec, after confine's child handed over (137: the command's kill).  Either way
		# the message names the memory limit and its remedy; nothing else is acceptable.
		case $rc in
		125)
			grep -q "memory limit" <<<"$err" && grep -q "^hint: raise --limit mem" <<<"$err"
			ok $? "root: --limit mem=$m: the sandbox cannot start (125): the message says the memory limit" || diag "$err"
			;;
		137)
			grep -q "^confine: command killed by its memory limit: " <<<"$err" &&
				grep -q "^hint: raise the limit (--limit mem=SIZE" <<<"$err"
			ok $? "root: --limit mem=$m: killed in the command's exec (137): the message says the memory limit" || diag "$err"
			;;
		*)
			is "$rc" 125 "root: --limit mem=$m: the sandbox cannot start (125), or the command is killed by the limit (137)"
			;;
		esac
	done
else
	skip "--limit mem: this machine does not let confine create a cgroup"
fi
for who in $RUN_USERS; do
	w=$(ws "$who")
	if bwrap_only "pid 1 of the sandbox is confine-init"; then
		mark="35.$$$RANDOM"
		cx_bg "$who" -- sh -c "touch out/started; sleep $mark"
		wait_file "$w/out/started"
		init=$(pgrep -P "$(pgrep -P "$BGPID" -x bwrap)" -x confine-init)
		kill -KILL "$init"
		wait_pid "$BGPID" 10
		is "$WAITRC" 137 "$who: confine-init killed from outside: the status is the sandbox's 137"
		grep -q "pid 1 of the sandbox was killed by signal 9" "$E/bg.err"
		ok $? "$who: confine-init killed: said, not taken for the command's own status" || diag "$(cat "$E/bg.err")"
		cx "$who" --report "$w/out/r.json" -- sh -c 'kill -9 $$'
		is "$rc $(jq -r .status_from "$w/out/r.json")" "137 command" "$who: control: a command killed by SIGKILL is the command's 137"
		rm -f "$w/out/started" "$w/out/r.json"
	fi
done
done_testing
