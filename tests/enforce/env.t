#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Environment (R20): secret-looking names, agent connections and confine's own variables are
# removed; --pass-env keeps, --unset-env drops, --clearenv keeps only the basic set, --env sets;
# --print-plan names what it removed but never prints a value.  As root and as uid 65534.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin

secrets=(GITHUB_TOKEN=tok-value AWS_SECRET_ACCESS_KEY=aws-value MY_API_KEY=api-value
	DB_PASSWORD=pw-value SSH_AUTH_SOCK=/x/agent.sock CONFINE_FOO=1 AUTHOR_NAME=keep
	my_token=lower-value NPM_AUTH=auth-value GPG_AGENT_INFO=/x/gpg DBUS_SESSION_BUS_ADDRESS=unix:path=/x/bus
	SOME_PASSWD=pw2 STRIPE_APIKEY=k GCP_CREDENTIALS=c SSH_PRIVATE_KEY=k AWS_ACCESS_KEY_ID=id
	PLAIN_VAR=plain)

for who in $RUN_USERS; do
	h=$(home "$who")
	# One run prints every name the command sees; each absence is its own check.
	xenv=("${secrets[@]}")
	hx "$who" "$TRYOP" env
	host_names=" $(echo "$out" | tr '\n' ' ') "
	[[ $host_names == *" GITHUB_TOKEN "* && $host_names == *" AUTHOR_NAME "* ]]
	ok $? "$who: control: the variables reach a command without confine"

	xenv=("${secrets[@]}")
	cx "$who" -- "$TRYOP" env
	is "$rc" 0 "$who: confine run -- tryop env"
	names=" $(echo "$out" | tr '\n' ' ') "
	for v in GITHUB_TOKEN AWS_SECRET_ACCESS_KEY MY_API_KEY DB_PASSWORD SSH_AUTH_SOCK CONFINE_FOO \
		my_token NPM_AUTH GPG_AGENT_INFO DBUS_SESSION_BUS_ADDRESS SOME_PASSWD STRIPE_APIKEY \
		GCP_CREDENTIALS SSH_PRIVATE_KEY AWS_ACCESS_KEY_ID; do
		[[ $names != *" $v "* ]]
		ok $? "$who: R20 $v removed"
	done
	for v in AUTHOR_NAME PLAIN_VAR PATH HOME USER LANG; do
		[[ $names == *" $v "* ]]
		ok $? "$who: R20 $v kept"
	done
	xenv=("${secrets[@]}")
	expect "$who" "UNSET" "R20 getenv GITHUB_TOKEN" -- "$TRYOP" getenv GITHUB_TOKEN
	xenv=("${secrets[@]}")
	expect "$who" "OK keep" "R20 getenv AUTHOR_NAME (AUTHOR* is not AUTH)" -- "$TRYOP" getenv AUTHOR_NAME
	xenv=("${secrets[@]}")
	expect "$who" "OK $h" "HOME passes unchanged" -- "$TRYOP" getenv HOME

	# --pass-env keeps a secret-looking name; only the named one.
	xenv=("${secrets[@]}")
	expect "$who" "OK tok-value" "R20 --pass-env GITHUB_TOKEN" --pass-env GITHUB_TOKEN -- "$TRYOP" getenv GITHUB_TOKEN
	xenv=("${secrets[@]}")
	expect "$who" "UNSET" "R20 --pass-env GITHUB_TOKEN leaves MY_API_KEY removed" --pass-env GITHUB_TOKEN -- "$TRYOP" getenv MY_API_KEY
	xenv=("${secrets[@]}")
	expect "$who" "OK aws-value" "R20 --pass-env 'AWS_*'" --pass-env 'AWS_*' -- "$TRYOP" getenv AWS_SECRET_ACCESS_KEY

	# --unset-env drops more.
	xenv=("${secrets[@]}")
	expect "$who" "UNSET" "R20 --unset-env 'AUTHOR*'" --unset-env 'AUTHOR*' -- "$TRYOP" getenv AUTHOR_NAME
	xenv=("${secrets[@]}")
	expect "$who" "UNSET" "R20 --unset-env PLAIN_VAR" --unset-env PLAIN_VAR -- "$TRYOP" getenv PLAIN_VAR
	xenv=("${secrets[@]}")
	expect "$who" "OK plain" "R20 --unset-env 'AUTHOR*' leaves PLAIN_VAR" --unset-env 'AUTHOR*' -- "$TRYOP" getenv PLAIN_VAR

	# --env sets one.
	expect "$who" "OK B" "R20 --env A=B" --env A=B -- "$TRYOP" getenv A
	expect "$who" "OK x=y" "R20 --env V=x=y (the value keeps its =)" --env V=x=y -- "$TRYOP" getenv V
	xenv=(PLAIN_VAR=old)
	expect "$who" "OK new" "R20 --env overrides an inherited value" --env PLAIN_VAR=new -- "$TRYOP" getenv PLAIN_VAR

	# --clearenv keeps only PATH HOME USER LOGNAME SHELL TERM LANG LC_* TZ.
	# PWD is not the caller's: bwrap sets it to the directory it starts the command in.  The
	# caller's own PWD (a bogus value here) must not pass.
	xenv=("${secrets[@]}" LC_CTYPE=C.UTF-8 LC_ALL=C TZ=UTC EDITOR=vi PWD=/caller-pwd)
	# (Tool caches off: their redirects are confine's variables, not the caller's; caches.t.)
	cx "$who" --clearenv --cache-size 0 -- "$TRYOP" env
	# landlock adds its per-run TMPDIR (SPEC 3.3).
	is "$(echo "$out" | grep -vx PWD | sort | tr '\n' ' ')" "HOME LANG LC_ALL LC_CTYPE LOGNAME PATH SHELL TERM $(bk "" "TMPDIR ")TZ USER " \
		"$who: R20 --clearenv keeps exactly the basic set of the caller's variables$(bk "" " (and landlock's TMPDIR)")"
	xenv=(PWD=/caller-pwd)
	cx "$who" --clearenv -- "$TRYOP" getenv PWD
	[ "$out" = UNSET ] || [ "$out" = "OK $(ws "$who")" ]
	ok $? "$who: R20 --clearenv: the caller's PWD does not pass (got: $out)"
	xenv=("${secrets[@]}")
	expect "$who" "OK B" "R20 --clearenv --env A=B" --clearenv --env A=B -- "$TRYOP" getenv A

	# --print-plan names the removed variables, never their values.
	xenv=("${secrets[@]}")
	cx "$who" --print-plan -- "$TRYOP" env
	is "$rc" 0 "$who: R20 --print-plan exits 0"
	plan="$out$err"
	[[ $plan == *GITHUB_TOKEN* && $plan == *DB_PASSWORD* ]]
	ok $? "$who: R20 --print-plan names removed variables (GITHUB_TOKEN, DB_PASSWORD)"
	[[ $plan != *tok-value* && $plan != *pw-value* && $plan != *api-value* && $plan != *aws-value* ]]
	ok $? "$who: R20 --print-plan prints no secret value"
done

done_testing
