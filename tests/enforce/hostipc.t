#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# R36 (THREATS round 3: IPC endpoints outside the swept places).  Opening a FIFO, and
# connecting or sending to a pathname unix socket, outside the writable areas and the allows
# fails wherever the endpoint lives and whichever network namespace bound it: the sweep of
# /proc/net/unix and /run (R29) is no longer the wall, the IPC guard is (src/helper/guard.h).
# Tried here, each with a host control first: FIFOs under /var/tmp, in a home and on a tmpfs
# of the test's own (a /dev/shm-like place), opened for reading, writing, both, and without
# blocking, directly, through a symlink in the workspace, through /proc/self/fd of an O_PATH
# descriptor and by openat(2) from a directory descriptor; pathname sockets (stream, seqpacket,
# datagram by sendto(2) and sendmsg(2), a datagram socketpair's end) bound in a network
# namespace the test makes (absent from the host's /proc/net/unix, so no sweep can know them)
# and in the caller's own while the command runs; with --no-network too.  Allowed: a FIFO and
# a socket in the workspace (data flows both ways), one given by --allow (the endpoint or its
# directory, also when the allow is for reading only; a read allow of the home above it does
# not; an allow for writing makes a writable area, where endpoints are the command's), a FIFO
# the caller hands over as stdin.
# As root and as uid 65534.  The test runs in a mount namespace of its own (the tmpfs).
# landlock (SPEC 3.3): no unix socket can be made below Landlock ABI 9 (EPERM: ux in
# enforce.sh); a FIFO outside the writable areas cannot be opened for writing (Landlock's
# write_file: EACCES), nor for reading: confine's opener (src/lib/exec/linux/opener.h), a thread
# in a Landlock domain above the command's, makes every open that could read one, as the bwrap
# backend's guard does; both with the supervisor's help for split directories (the workspace
# root here, which holds .env) and without it (CONFINE_LANDLOCK_BROKER=off).  What the opener
# opens for the command is the command's: /proc/self, /dev/tty, the allows, the procfs entries
# of confine itself refused.
if [ -z "${CONFINE_IPC_NS:-}" ] && [ "$(id -u)" = 0 ]; then
	CONFINE_IPC_NS=1 exec unshare -m bash "$0" "$@"
fi
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin
if [ -z "${CONFINE_IPC_NS:-}" ] || ! command -v unshare >/dev/null; then
	skip "R36: needs root (network namespaces of the test's own, a tmpfs in a mount namespace)"
	done_testing
fi
cp "$FIX/tryipc" "$E/bin/" && chmod a+rx "$E/bin/tryipc"
TRYIPC=$E/bin/tryipc
SHM=$E/shm
mkdir -p "$SHM" && mount -t tmpfs -o mode=1777 confine-test-shm "$SHM"

# listen WHO TYPE PATH [ns]: a listener on the host as WHO (in a new network namespace with
# ns), started in the background; returns once it is bound.
listen() {
	local who=$1 type=$2 path=$3 ns=${4:-} ready
	local -a pre=()
	[ -n "$ns" ] && pre=(unshare -n)
	[ "$who" = nobody ] && pre+=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	ready=$(mktemp "$E/ready.XXXXXX")
	chmod 0666 "$ready"
	"${pre[@]}" "$TRYIPC" listen "$type" "$path" >"$ready" &
	bg_pids+=($!)
	for ((i = 0; i < 1500; i++)); do
		grep -q OK "$ready" && break
		sleep 0.02
	done
	grep -q OK "$ready"
	ok $? "$who: a $type listener at $path is bound${ns:+ (in a network namespace of its own)}"
}

# fifo WHO PATH: a FIFO of WHO's (0600), held open for reading and writing by a host process,
# so that every open of it succeeds at once on the host.
fifo() {
	rm -f "$2"
	mkfifo -m 0600 "$2"
	[ "$1" = nobody ] && chown 65534:65534 "$2"
	sleep 600 <>"$2" &
	bg_pids+=($!)
}

MODES="r w rw rn wn rc"

for who in $RUN_USERS; do
	h=$(home "$who")
	w=$(ws "$who")
	var=$E/$who/vartmp
	mkdir -p "$var" "$h/.local/state" "$h/.cache" "$E/$who/ns" "$w/out"
	chmod 0755 "$var" "$E/$who/ns"
	[ "$who" = nobody ] && chown 65534:65534 "$var" "$h/.local" "$h/.local/state" "$h/.cache" "$E/$who/ns" "$w/out"

	# ---- FIFOs outside the writable areas. ----
	fifo "$who" "$var/app.fifo"
	fifo "$who" "$h/.local/state/app.fifo"
	fifo "$who" "$SHM/$who.fifo"
	for f in "$var/app.fifo" "$h/.local/state/app.fifo" "$SHM/$who.fifo"; do
		for m in $MODES; do
			expect_host "$who" OK "control: open($m) of $f" "$TRYIPC" fifo "$m" "$f"
			expect "$who" EACCES "R36 open($m) of the FIFO $f" -- "$TRYIPC" fifo "$m" "$f"
		done
	done
	if [ "$who" = root ]; then
		fifo root "$E/root.fifo"
		expect_host root OK "control: a root-owned 0600 FIFO under /var/tmp opens for writing" \
			"$TRYIPC" fifo w "$E/root.fifo"
		expect root EACCES "R36 a root-owned 0600 FIFO under /var/tmp: no write" -- "$TRYIPC" fifo w "$E/root.fifo"
		expect root EACCES "R36 ... no read" -- "$TRYIPC" fifo r "$E/root.fifo"
	fi
	ln -sfn "$var/app.fifo" "$w/out/link.fifo"
	expect "$who" EACCES "R36 through a symlink in the workspace: no read" -- "$TRYIPC" fifo r "$w/out/link.fifo"
	expect "$who" EACCES "R36 ... no write" -- "$TRYIPC" fifo w "$w/out/link.fifo"
	expect "$who" EACCES "R36 through /proc/self/fd of an O_PATH descriptor: no read" \
		-- "$TRYIPC" fifo-opath r "$var/app.fifo"
	expect "$who" EACCES "R36 ... no write" -- "$TRYIPC" fifo-opath w "$var/app.fifo"
	expect "$who" EACCES "R36 by openat(2) from a descriptor of its directory: no read" \
		-- "$TRYIPC" fifo-at rn "$var" app.fifo
	expect "$who" EACCES "R36 by a path relative to a working directory beside it: no read" \
		-- sh -c "cd '$var' && '$TRYIPC' fifo r app.fifo"
	expect "$who" EACCES "R36 ... with --no-network too" \
		--no-network -- sh -c "cd '$var' && '$TRYIPC' fifo r app.fifo"
	# More ways to the same FIFO: every name of /proc and /dev/fd for an O_PATH descriptor of
	# it, the working directory's and the root's magic links, O_CREAT without O_EXCL.
	for via in /dev/fd /proc/thread-self/fd pid; do
		expect_host "$who" OK "control: through $via of an O_PATH descriptor" \
			"$TRYIPC" fifo-opath r "$var/app.fifo" "$via"
		expect "$who" EACCES "R36 through $via of an O_PATH descriptor: no read" \
			-- "$TRYIPC" fifo-opath r "$var/app.fifo" "$via"
	done
	expect "$who" EACCES "R36 through /proc/self/cwd: no read" \
		-- sh -c "cd '$var' && '$TRYIPC' fifo r /proc/self/cwd/app.fifo"
	expect "$who" EACCES "R36 through /proc/self/root: no read" \
		-- "$TRYIPC" fifo rn "/proc/self/root$var/app.fifo"
	expect "$who" EACCES "R36 through a symlink in the workspace, without blocking: no read" \
		-- "$TRYIPC" fifo rn "$w/out/link.fifo"
	# A symlink the command swaps between a file and the FIFO while it opens it: the object
	# opened is the one decided on, never a path resolved again.
	echo file >"$w/out/plain"
	[ "$who" = nobody ] && chown 65534:65534 "$w/out/plain"
	expect_host "$who" FIFO "control: a symlink swapped between a file and the FIFO opens the FIFO" \
		"$TRYIPC" fifo-race "$w/out/plain" "$var/app.fifo" 3000
	expect "$who" OK "R36 ... inside only ever the file" \
		-- "$TRYIPC" fifo-race "$w/out/plain" "$var/app.fifo" 3000
	rm -f "$w/out/plain.link" "$w/out/plain.link.new"
	if [ "$LL" = 1 ]; then
		# Without the supervisor's help with split directories: the opener all the same.
		for m in r rn rc; do
			xenv=(CONFINE_LANDLOCK_BROKER=off)
			expect "$who" EACCES "R36 landlock, broker off: open($m) of the FIFO in /var/tmp" \
				-- "$TRYIPC" fifo "$m" "$var/app.fifo"
		done
		xenv=(CONFINE_LANDLOCK_BROKER=off)
		expect "$who" EACCES "R36 landlock, broker off: through /proc/self/fd" \
			-- "$TRYIPC" fifo-opath r "$var/app.fifo"
		xenv=(CONFINE_LANDLOCK_BROKER=off)
		expect "$who" OK "R36 landlock, broker off: a swapped symlink opens only the file" \
			-- "$TRYIPC" fifo-race "$w/out/plain" "$var/app.fifo" 3000
		rm -f "$w/out/plain.link" "$w/out/plain.link.new"
		cx "$who" --print-plan -- true
		grep -q "^split in a writable area (new entries are made and opened by confine's supervisor" <<<"$out"
		ok $? "$who: landlock: the checks above ran with the supervisor's broker (the workspace root holds .env)"
		grep -q "^ipc: FIFO opens for reading made by confine's opener" <<<"$out"
		ok $? "$who: landlock: the plan says that confine's opener makes FIFO reads"
		! grep -q "FIFOs opened for reading" <<<"$out"
		ok $? "$who: landlock: ... and no longer lists them as not provided"
		out=$(cd "$w" && _as "$who" env -i $(_env "$who") "$FIX/confine" probe --no-cache 2>&1)
		! grep -q "FIFO reads" <<<"$out"
		ok $? "$who: landlock: confine probe no longer lists FIFO reads as not provided"
	fi

	# ---- Allowed FIFOs. ----
	fifo "$who" "$w/out/ws.fifo"
	for m in $MODES; do
		expect "$who" OK "R36 open($m) of a FIFO in the workspace" -- "$TRYIPC" fifo "$m" "$w/out/ws.fifo"
	done
	rm -f "$w/out/flow.fifo"
	mkfifo -m 0600 "$w/out/flow.fifo"
	[ "$who" = nobody ] && chown 65534:65534 "$w/out/flow.fifo"
	"$TRYIPC" fifo-write "$w/out/flow.fifo" from-host >/dev/null &
	bg_pids+=($!)
	expect "$who" "OK from-host" "R36 a FIFO in the workspace: the host's write reaches the command" \
		-- "$TRYIPC" fifo-read "$w/out/flow.fifo"
	"$TRYIPC" fifo-read "$w/out/flow.fifo" >"$E/flow.out" &
	reader=$!
	expect "$who" OK "R36 ... and the command's write reaches the host" \
		-- "$TRYIPC" fifo-write "$w/out/flow.fifo" from-sandbox
	wait "$reader"
	is "$(cat "$E/flow.out")" "OK from-sandbox" "$who: R36 ... the host read it"
	expect "$who" OK "R36 --allow of the FIFO: it opens for reading" \
		--allow "$var/app.fifo" -- "$TRYIPC" fifo r "$var/app.fifo"
	expect "$who" OK "R36 ... and for writing" --allow "$var/app.fifo" -- "$TRYIPC" fifo w "$var/app.fifo"
	expect "$who" OK "R36 --allow PATH:read of the FIFO: it opens for reading" \
		--allow "$var/app.fifo:read" -- "$TRYIPC" fifo r "$var/app.fifo"
	expect "$who" "$(bk OK EACCES)" "R36 ... $(bk "and for writing (the FIFO is named)" "landlock: not for writing (a read allow)")" \
		--allow "$var/app.fifo:read" -- "$TRYIPC" fifo w "$var/app.fifo"
	expect "$who" OK "R36 --allow DIR:read of its directory: it opens for reading" \
		--allow "$var:read" -- "$TRYIPC" fifo r "$var/app.fifo"
	if [ "$LL" = 1 ]; then
		xenv=(CONFINE_LANDLOCK_BROKER=off)
		expect "$who" OK "R36 landlock, broker off: a FIFO in the workspace opens for reading" \
			-- "$TRYIPC" fifo rn "$w/out/ws.fifo"
		xenv=(CONFINE_LANDLOCK_BROKER=off)
		expect "$who" OK "R36 landlock, broker off: --allow of the FIFO: it opens for reading" \
			--allow "$var/app.fifo:read" -- "$TRYIPC" fifo r "$var/app.fifo"
	fi
	# The run's own temporary directory is a writable area: a FIFO made there works.
	expect "$who" "OK inside" "R36 a FIFO the command makes in its TMPDIR: data flows" \
		-- sh -c "d=\${TMPDIR:-/tmp}; mkfifo \$d/f && (echo inside >\$d/f &) && '$TRYIPC' fifo-read \$d/f"
	expect "$who" EACCES "R36 --allow HOME:read above it does not give it back" \
		--allow "$h:read" -- "$TRYIPC" fifo r "$h/.local/state/app.fifo"
	printf 'handed\n' >"$var/app.fifo"
	out=$(cd "$w" && _as "$who" env -i $(_env "$who") "$FIX/confine" run -- "$TRYIPC" fifo-read /dev/stdin <"$var/app.fifo" 2>"$E/err")
	is "$out" "OK handed" "$who: R36 a FIFO the caller hands over as stdin opens again as /dev/stdin"

	# ---- Pathname sockets. ----
	listen "$who" stream "$E/$who/ns/app.sock" ns
	listen "$who" seqpacket "$E/$who/ns/seq.sock" ns
	listen "$who" stream "$h/.local/state/agent.sock" ns
	listen "$who" stream "$h/.cache/agent.sock" ns
	listen "$who" dgram "$E/$who/ns/dg.sock" ns
	listen "$who" stream "$w/out/ws.sock" ns
	! grep -q "$E/$who/ns/app.sock" /proc/net/unix
	ok $? "$who: control: the socket bound in the other network namespace is not in the host's /proc/net/unix"
	expect_host "$who" "OK hello" "control: the socket of the other network namespace answers on the host" \
		"$TRYIPC" connect stream "$E/$who/ns/app.sock"
	expect_host "$who" "OK hello" "control: ... the seqpacket one too" "$TRYIPC" connect seqpacket "$E/$who/ns/seq.sock"
	expect_host "$who" OK "control: ... the datagram one takes a sendto(2)" "$TRYIPC" dgram-sendto "$E/$who/ns/dg.sock"
	expect_host "$who" OK "control: ... and a sendmsg(2) from a datagram socketpair's end" \
		"$TRYIPC" pair-sendmsg "$E/$who/ns/dg.sock"
	expect "$who" "$(ux EACCES)" "R36 connect to a stream socket bound in another network namespace" \
		-- "$TRYIPC" connect stream "$E/$who/ns/app.sock"
	expect "$who" "$(ux EACCES)" "R36 ... with --no-network too" \
		--no-network -- "$TRYIPC" connect stream "$E/$who/ns/app.sock"
	expect "$who" "$(ux EACCES)" "R36 ... a seqpacket one" -- "$TRYIPC" connect seqpacket "$E/$who/ns/seq.sock"
	expect "$who" "$(ux EACCES)" "R36 ... an agent's socket in the home" -- "$TRYIPC" connect stream "$h/.local/state/agent.sock"
	# ~/.cache is a tool cache's overlay under bwrap (R39): the host's socket below it is
	# another inode there, with no listener behind it; the kernel refuses the connect.
	expect "$who" "$(ux "$(bk ECONNREFUSED EACCES)")" "R36 ... one in ~/.cache$(bk " (R39: below the cache's overlay, no listener)" "")" \
		-- "$TRYIPC" connect stream "$h/.cache/agent.sock"
	expect "$who" "$(ux EACCES)" "R36 ... through /proc/self/fd of an O_PATH descriptor" \
		-- "$TRYIPC" connect-opath stream "$E/$who/ns/app.sock"
	ln -sfn "$E/$who/ns/app.sock" "$w/out/link.sock"
	expect "$who" "$(ux EACCES)" "R36 ... through a symlink in the workspace" -- "$TRYIPC" connect stream "$w/out/link.sock"
	expect "$who" EPERM "R36 a datagram by sendto(2): no unix datagram socket can be made" \
		-- "$TRYIPC" dgram-sendto "$E/$who/ns/dg.sock"
	expect "$who" EPERM "R36 ... by sendmsg(2)" -- "$TRYIPC" dgram-sendmsg "$E/$who/ns/dg.sock"
	expect "$who" EPERM "R36 ... from a datagram socketpair's end" -- "$TRYIPC" pair-sendmsg "$E/$who/ns/dg.sock"
	expect "$who" EPERM "R36 ... with --no-network too" --no-network -- "$TRYIPC" dgram-sendto "$E/$who/ns/dg.sock"
	expect_host "$who" EOPNOTSUPP "control: a stream socket refuses an address in sendto(2)" \
		"$TRYIPC" stream-sendto "$E/$who/ns/dg.sock"
	expect "$who" "$(ux EOPNOTSUPP)" "R36 ... inside too (only connect(2) reaches a path, and it is guarded)" \
		-- "$TRYIPC" stream-sendto "$E/$who/ns/dg.sock"
	is "$(sort "$E/$who/ns/dg.sock.got" 2>/dev/null | tr '\n' ' ')" "datagram datagram " \
		"$who: R36 only the host's two datagrams arrived"

	# A socket bound in the caller's own namespace while the command runs, beside other files
	# (no sweep saw it at launch).
	mkdir -p "$var/late" && echo 1 >"$var/late/pid"
	[ "$who" = nobody ] && chown -R 65534:65534 "$var/late"
	rm -f "$w/out/go" "$w/out/started" "$var/late/late.sock"
	cx_bg "$who" -- sh -c "touch '$w/out/started'; '$TRYIPC' fifo r /dev/null >/dev/null; while [ ! -e '$w/out/go' ]; do sleep 0.05; done; '$TRYIPC' connect stream '$var/late/late.sock'"
	for ((i = 0; i < 3000; i++)); do
		[ -e "$w/out/started" ] && break
		sleep 0.02
	done
	listen "$who" stream "$var/late/late.sock"
	touch "$w/out/go"
	wait_pid "$BGPID" 60
	is "$(cat "$E/bg.out")" "$(ux EACCES)" "$who: R36 a socket bound in the caller's network namespace during the run: refused"

	# Allowed sockets.
	expect "$who" "$(ux "OK hello")" "R36 a socket in the workspace bound in another network namespace answers" \
		-- "$TRYIPC" connect stream "$w/out/ws.sock"
	CX_CWD=$w/out
	expect "$who" "$(ux "OK hello")" "R36 ... by a path relative to the working directory" \
		--workspace "$w" -- "$TRYIPC" connect stream ws.sock
	CX_CWD=
	expect "$who" "$(ux "OK hello")" "R36 --allow PATH:read of the socket gives it back$(bk "" " (landlock: not even then)")" \
		--allow "$E/$who/ns/app.sock:read" -- "$TRYIPC" connect stream "$E/$who/ns/app.sock"
	expect "$who" "$(ux "OK hello")" "R36 --allow DIR:read of its directory gives it back$(bk "" " (landlock: not even then)")" \
		--allow "$E/$who/ns:read" -- "$TRYIPC" connect seqpacket "$E/$who/ns/seq.sock"
	expect "$who" "$(ux EACCES)" "R36 --allow HOME:read above it does not" \
		--allow "$h:read" -- "$TRYIPC" connect stream "$h/.local/state/agent.sock"
	expect "$who" "$(ux "OK hello")" "R36 --allow PATH:read of the one in ~/.cache gives it back$(bk " (R39: the host's, over the overlay)" " (landlock: not even then)")" \
		--allow "$h/.cache/agent.sock:read" -- "$TRYIPC" connect stream "$h/.cache/agent.sock"
	expect "$who" OK "a stream socketpair still works inside" -- "$TRYOP" socketpair

	# ---- The guard opens for the command as the command: procfs, the terminal. ----
	# (landlock: confine's opener, a thread of confine itself, makes these opens.)
	expect "$who" "OK tryop" "R36 /proc/self is the command's, not the guard's" -- "$TRYOP" cat /proc/self/comm
	expect "$who" "OK tryop" "R36 ... /proc/thread-self too" -- "$TRYOP" cat /proc/thread-self/comm
	ln -sfn /proc/self/environ "$w/out/env.link"
	xenv=(R36_MARK=command-env)
	expect "$who" OK "R36 a symlink to /proc/self/environ reads the command's own" \
		-- sh -c "cat '$w/out/env.link' | tr '\\0' '\\n' | grep -q '^R36_MARK=command-env' && echo OK"
	expect "$who" OK "R36 a pipe reopened as /dev/stdin" -- sh -c "echo piped | '$TRYOP' cat /dev/stdin | grep -q piped && echo OK"
	expect "$who" OK "R36 pid 1's stat stays readable (ps)" -- "$TRYOP" read /proc/1/stat
	for f in environ mem maps; do
		expect "$who" EACCES "R36 pid 1's $f is not opened by $(bk "pid 1" "confine") for the command" -- "$TRYOP" read "/proc/1/$f"
	done
	# The command's parent is the guard's process (pid 1 there, confine here), whose
	# threads may read what is under its own /proc/PID: refused, but for ps's files.
	expect_host "$who" "OK OK" "control: a process reads its child's environ and status" \
		sh -c "sleep 30 & p=\$!; echo \$('$TRYOP' read /proc/\$p/environ) \$('$TRYOP' read /proc/\$p/status); kill \$p"
	expect "$who" "OK OK" "R36 inside too (the command's child, opened as the command)" \
		-- sh -c "sleep 30 & p=\$!; echo \$('$TRYOP' read /proc/\$p/environ) \$('$TRYOP' read /proc/\$p/status); kill \$p"
	expect "$who" "EACCES OK" "R36 the guard's own process: its environ refused, its status readable" \
		-- sh -c "echo \$('$TRYOP' read /proc/\$PPID/environ) \$('$TRYOP' read /proc/\$PPID/status)"
	expect "$who" "EACCES EACCES" "R36 ... its memory and its descriptors' targets too" \
		-- sh -c "echo \$('$TRYOP' read /proc/\$PPID/mem) \$('$TRYOP' read /proc/\$PPID/fd/0)"
	expect "$who" EACCES "R36 ... and every thread of it, by its own /proc/TID" \
		-- sh -c "r=EACCES; for t in /proc/\$PPID/task/*; do x=\$('$TRYOP' read /proc/\${t##*/}/environ); [ \"\$x\" = EACCES ] || r=\"\$r \$x\"; done; echo \$r"
	# /dev/tty is the command's controlling terminal (R41: the pty confine made for it, the
	# one of its descriptor 0 here), never the one of the process that opens for it (script's,
	# which is not the command's controlling terminal: tcgetpgrp would be ENOTTY).
	if command -v script >/dev/null && command -v python3 >/dev/null; then
		cat >"$E/bin/ttyis0" <<-'PY'
			#!/usr/bin/env python3
			import os
			try:
			    fd = os.open("/dev/tty", os.O_RDONLY)
			    print("same" if os.tcgetpgrp(fd) == os.tcgetpgrp(0) else "other")
			except OSError as e:
			    print(os.strerror(e.errno))
		PY
		chmod a+rx "$E/bin/ttyis0"
		out=$(cd "$w" && _as "$who" env -i $(_env "$who") script -qec "'$E/bin/ttyis0'" /dev/null 2>&1 </dev/null | grep -o 'same\|other\|[A-Z][a-z ]*')
		is "$out" same "$who: control: under script(1), /dev/tty is the terminal of descriptor 0 (host control, no confine)"
		out=$(cd "$w" && _as "$who" env -i $(_env "$who") script -qec "'$FIX/confine' run -- '$E/bin/ttyis0'" /dev/null 2>&1 </dev/null | grep -o 'same\|other\|[A-Z][a-z ]*')
		is "$out" same "$who: R36 ... inside, /dev/tty is the command's own terminal, not confine's"
	fi
	expect "$who" EACCES "R36 ... nor from a descriptor of /proc/1" -- "$TRYIPC" fifo-at r /proc/1 environ
	expect "$who" EACCES "R36 ... nor from a working directory there" -- sh -c "cd /proc/1 && '$TRYOP' read environ"
	expect "$who" EACCES "R36 ... nor through /proc/1/task" -- "$TRYOP" read /proc/1/task/1/environ
	mkdir -p "$E/hostproc" && mount -t proc proc "$E/hostproc" 2>/dev/null
	if [ -e "$E/hostproc/self" ]; then
		expect "$who" EACCES "R36 a host's procfs mounted elsewhere: its self is not followed" \
			-- "$TRYOP" read "$E/hostproc/self/status"
		expect "$who" EACCES "R36 ... nor its pid directories (the guard cannot tell its own there)" \
			-- "$TRYOP" read "$E/hostproc/1/status"
		umount "$E/hostproc"
	fi
	# ---- What a kernel without the guard gets: said in the plan and by the probe. ----
	if [ "$LL" = 1 ]; then
		plan_says="FIFOs opened for reading: confine's opener cannot act for the command here (it needs openat2"
		probe_says="FIFO reads (a FIFO outside the writable areas opens for reading like a file: confine's opener needs openat2"
	else
		plan_says="ipc: FIFOs and pathname sockets outside the writable areas are not guarded here (needs openat2"
		probe_says="not provided: *host FIFOs and pathname sockets outside the writable areas (R36: needs openat2"
	fi
	fifo "$who" "$var/old.fifo"
	mapfile -t envv < <(_env "$who")
	out=$(cd "$w" && _as "$who" "$FIX/denysys" openat2=ENOSYS -- env -i "${envv[@]}" \
		"$FIX/confine" run --print-plan -- true 2>&1)
	grep -q "$plan_says" <<<"$out"
	ok $? "$who: R36 without openat2 (a seccomp profile around confine) the plan says the guard is off"
	out=$(cd "$w" && _as "$who" "$FIX/denysys" openat2=ENOSYS -- env -i "${envv[@]}" \
		"$FIX/confine" probe --no-cache 2>&1)
	grep -q "$probe_says" <<<"$out"
	ok $? "$who: R36 ... and so does confine probe"
	out=$(cd "$w" && _as "$who" "$FIX/denysys" openat2=ENOSYS -- env -i "${envv[@]}" \
		"$FIX/confine" run -- "$TRYIPC" fifo r "$var/old.fifo" 2>&1)
	is "$out" OK "$who: R36 ... and, as it says, a FIFO outside the writable areas opens there"
	kill_bg
	rm -rf "$var" "$h/.local/state/app.fifo" "$h/.local/state/agent.sock" "$h/.cache/agent.sock" "$SHM/$who.fifo" "$E/$who/ns" "$w/out"/*.fifo "$w/out"/*.sock
done
done_testing
