#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# R44, R45 on the command line: what is refused before anything runs, each with exit 125, the
# message naming the subject and a hint: --ssh-key without --ssh-agent, a caller without an
# agent, a malformed key or fingerprint, the filter without the sandbox; --secret malformed, for
# a variable confine sets itself, given twice, from a variable that is not set or a file that is
# not there, with a line break in its value, without network rules or for a host the rules do
# not allow; --tls-inspect of a bad host.  And no message ever shows a value.
source "$(dirname "$0")/../lib.sh"

mkdir -p "$T/ws" "$T/home"
export HOME=$T/home XDG_CONFIG_HOME=$T/cfg
cd "$T/ws" || exit 1
unset SSH_AUTH_SOCK
ssh-keygen -q -t ed25519 -N '' -f "$T/k" -C k </dev/null

refused() { # description want-in-stderr confine-run-args...
	local desc=$1 want=$2
	shift 2
	out=$("$CONFINE" run "$@" 2>&1)
	st=$?
	is "$st" 125 "$desc: exit 125"
	case $out in
	*"$want"*hint:*) ok 0 "$desc: says so, with a hint" ;;
	*) ok 1 "$desc: says so, with a hint"; diag "got: $out" ;;
	esac
}

refused "--ssh-key without --ssh-agent" "a key is for the ssh-agent filter" \
	--ssh-key "$T/k.pub" -- true
refused "--ssh-agent without a caller's agent" "the caller has no ssh-agent" \
	--ssh-agent -- true
SSH_AUTH_SOCK=relative/sock refused "--ssh-agent with a relative SSH_AUTH_SOCK" \
	"not an absolute path" --ssh-agent -- true
refused "a fingerprint that is not one" "not a fingerprint" \
	--ssh-agent --ssh-key SHA256:abc -- true
refused "a key file that is not there" "cannot read --ssh-key" \
	--ssh-agent --ssh-key "$T/nope.pub" -- true
printf 'not a key\n' >"$T/bad.pub"
SSH_AUTH_SOCK=/nonexistent/sock refused "a file that holds no key" "invalid --ssh-key" \
	--ssh-agent --ssh-key "$T/bad.pub" -- true
SSH_AUTH_SOCK=/nonexistent/sock refused "the filter without the sandbox" \
	"without the sandbox nothing keeps the command" --policy off --ssh-agent -- true

export MYTOKEN=value-of-the-test-1234
allow=(--net-allow api.example.com)
refused "--secret without @HOST" "expected NAME=SOURCE@HOST" --secret X=MYTOKEN -- true
refused "--secret without =" "expected NAME=SOURCE@HOST" --secret X@api.example.com -- true
refused "--secret with a bad NAME" "NAME must be" --secret 1X=MYTOKEN@api.example.com -- true
refused "--secret for PATH" "confine sets for the command itself" \
	--secret PATH=MYTOKEN@api.example.com -- true
refused "--secret for SSL_CERT_FILE" "confine sets for the command itself" \
	--secret SSL_CERT_FILE=MYTOKEN@api.example.com -- true
refused "--secret from a relative file" "file:/ABSOLUTE/PATH" \
	--secret X=file:rel/path@api.example.com -- true
refused "--secret with a bad host" "invalid --secret" --secret 'X=MYTOKEN@a b' -- true
refused "--secret NAME twice" "NAME is given twice" "${allow[@]}" \
	--secret X=MYTOKEN@api.example.com --secret X=MYTOKEN@api.example.com -- true
refused "--secret without network rules" "runs with network rules only" \
	--secret X=MYTOKEN@api.example.com -- true
refused "--secret for a host the rules do not allow" "the network rules do not allow this host" \
	"${allow[@]}" --secret X=MYTOKEN@other.example.com -- true
refused "--secret from a variable that is not set" "your variable NOPE is not set" \
	"${allow[@]}" --secret X=NOPE@api.example.com -- true
refused "--secret from a file that is not there" "cannot read a secret" \
	"${allow[@]}" --secret "X=file:$T/nope@api.example.com" -- true
MULTI=$'line1\nline2' refused "--secret whose value has a line break" "holds a line break" \
	"${allow[@]}" --secret X=MULTI@api.example.com -- true
refused "--secret without the sandbox" "without the sandbox nothing keeps" \
	--policy off "${allow[@]}" --secret X=MYTOKEN@api.example.com -- true
refused "--tls-inspect of a bad host" "invalid --tls-inspect" --tls-inspect 'a b' -- true
out=$("$CONFINE" run "${allow[@]}" --secret X=MYTOKEN@other.example.com -- true 2>&1)
case $out in
*value-of-the-test*) ok 1 "no message shows the value" ;;
*) ok 0 "no message shows the value" ;;
esac
done_testing
