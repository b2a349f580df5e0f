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
# enforce.sh); a FIFO outside the writable areas cannot be opened for writing (EACCES), but
# opens for reading, as a file: the landlock plan says so under "not provided", which the test
# checks instead.
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

MODES="r w rw rn wn"
# Landlock cannot tell a FIFO from a file: reads are not guarded there (its plan says so).
fifo_want() { # mode
	if [ "$LL" = 1 ] && [[ $1 == r || $1 == rn ]]; then echo OK; else echo EACCES; fi
}

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
			expect "$who" "$(fifo_want "$m")" "R36 open($m) of the FIFO $f" -- "$TRYIPC" fifo "$m" "$f"
		done
	done
	if [ "$who" = root ]; then
		fifo root "$E/root.fifo"
		expect_host root OK "control: a root-owned 0600 FIFO under /var/tmp opens for writing" \
			"$TRYIPC" fifo w "$E/root.fifo"
		expect root EACCES "R36 a root-owned 0600 FIFO under /var/tmp: no write" -- "$TRYIPC" fifo w "$E/root.fifo"
		expect root "$(fifo_want r)" "R36 ... no read" -- "$TRYIPC" fifo r "$E/root.fifo"
	fi
	ln -sfn "$var/app.fifo" "$w/out/link.fifo"
	expect "$who" "$(fifo_want r)" "R36 through a symlink in the workspace: no read" -- "$TRYIPC" fifo r "$w/out/link.fifo"
	expect "$who" EACCES "R36 ... no write" -- "$TRYIPC" fifo w "$w/out/link.fifo"
	expect "$who" "$(fifo_want r)" "R36 through /proc/self/fd of an O_PATH descriptor: no read" \
		-- "$TRYIPC" fifo-opath r "$var/app.fifo"
	expect "$who" EACCES "R36 ... no write" -- "$TRYIPC" fifo-opath w "$var/app.fifo"
	expect "$who" "$(fifo_want rn)" "R36 by openat(2) from a descriptor of its directory: no read" \
		-- "$TRYIPC" fifo-at rn "$var" app.fifo
	expect "$who" "$(fifo_want r)" "R36 by a path relative to a working directory beside it: no read" \
		-- sh -c "cd '$var' && '$TRYIPC' fifo r app.fifo"
	expect "$who" "$(fifo_want r)" "R36 ... with --no-network too" \
		--no-network -- sh -c "cd '$var' && '$TRYIPC' fifo r app.fifo"
	if [ "$LL" = 1 ]; then
		cx "$who" --print-plan -- true
		grep -q "FIFOs opened for reading: Landlock's read right covers FIFOs and files" <<<"$out"
		ok $? "$who: landlock: the plan says that FIFO reads are not guarded here"
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
	expect "$who" "$(fifo_want r)" "R36 --allow HOME:read above it does not give it back" \
		--allow "$h:read" -- "$TRYIPC" fifo r "$h/.local/state/app.fifo"
	printf 'handed\n' >"$var/app.fifo"
	out=$(cd "$w" && _as "$who" env -i $(_env "$who") "$FIX/confine" run -- "$TRYIPC" fifo-read /dev/stdin <"$var/app.fifo" 2>"$E/err")
	is "$out" "OK handed" "$who: R36 a FIFO the caller hands over as stdin opens again as /dev/stdin"

	# ---- Pathname sockets. ----
	listen "$who" stream "$E/$who/ns/app.sock" ns
	listen "$who" seqpacket "$E/$who/ns/seq.sock" ns
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
	expect "$who" "$(ux EACCES)" "R36 ... an agent's socket in the home" -- "$TRYIPC" connect stream "$h/.cache/agent.sock"
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
		--allow "$h:read" -- "$TRYIPC" connect stream "$h/.cache/agent.sock"
	expect "$who" OK "a stream socketpair still works inside" -- "$TRYOP" socketpair

	# ---- The guard opens for the command as the command: procfs. ----
	if bwrap_only "no guard opens for the command there"; then
		expect "$who" "OK tryop" "R36 /proc/self is the command's, not the guard's" -- "$TRYOP" cat /proc/self/comm
		expect "$who" "OK tryop" "R36 ... /proc/thread-self too" -- "$TRYOP" cat /proc/thread-self/comm
		ln -sfn /proc/self/environ "$w/out/env.link"
		xenv=(R36_MARK=command-env)
		expect "$who" OK "R36 a symlink to /proc/self/environ reads the command's own" \
			-- sh -c "cat '$w/out/env.link' | tr '\\0' '\\n' | grep -q '^R36_MARK=command-env' && echo OK"
		expect "$who" OK "R36 a pipe reopened as /dev/stdin" -- sh -c "echo piped | '$TRYOP' cat /dev/stdin | grep -q piped && echo OK"
		expect "$who" OK "R36 pid 1's stat stays readable (ps)" -- "$TRYOP" read /proc/1/stat
		for f in environ mem maps; do
			expect "$who" EACCES "R36 pid 1's $f is not opened by pid 1 for the command" -- "$TRYOP" read "/proc/1/$f"
		done
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
	fi
	# ---- What a kernel without the guard gets: said in the plan and by the probe. ----
	if bwrap_only "the IPC guard is the bwrap backend's"; then
		fifo "$who" "$var/old.fifo"
		mapfile -t envv < <(_env "$who")
		out=$(cd "$w" && _as "$who" "$FIX/denysys" openat2=ENOSYS -- env -i "${envv[@]}" \
			"$FIX/confine" run --print-plan -- true 2>&1)
		grep -q "ipc: FIFOs and pathname sockets outside the writable areas are not guarded here (needs openat2" <<<"$out"
		ok $? "$who: R36 without openat2 (a seccomp profile around confine) the plan says the guard is off"
		out=$(cd "$w" && _as "$who" "$FIX/denysys" openat2=ENOSYS -- env -i "${envv[@]}" \
			"$FIX/confine" probe --no-cache 2>&1)
		grep -q "not provided: *host FIFOs and pathname sockets outside the writable areas (R36: needs openat2" <<<"$out"
		ok $? "$who: R36 ... and so does confine probe"
		out=$(cd "$w" && _as "$who" "$FIX/denysys" openat2=ENOSYS -- env -i "${envv[@]}" \
			"$FIX/confine" run -- "$TRYIPC" fifo r "$var/old.fifo" 2>&1)
		is "$out" OK "$who: R36 ... and, as it says, a FIFO outside the writable areas opens there"
	fi
	kill_bg
	rm -rf "$var" "$h/.local/state/app.fifo" "$SHM/$who.fifo" "$E/$who/ns" "$w/out"/*.fifo "$w/out"/*.sock
done
done_testing
