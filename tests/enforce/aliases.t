#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# R37 (THREATS round 3, "aliases of secrets"): another name for a protected file.
#  - At launch, every name inside a writable area that shares an inode with a protected file is
#    protected like it: a hard link in the workspace to ~/.ssh/id_ed25519, to a guarded file of
#    the workspace, in nested directories, to a write-protected file (.git/config,
#    .confine/rules.json), to a file a rule of this run denies (made by a second sandbox without
#    that rule).  A symlink chain to a secret resolves to the hidden target.
#  - A glob-named file the command creates as a hard link or a symlink (.env.production linked
#    to notes.txt, server.pem -> cache.txt, nested, through a chain) is renamed aside after the
#    run and reported; a plain new match stays and the next run protects it (the hint says so,
#    and it is checked); a link that existed at launch is the user's and stays.
# Each case has its host control (the same read or write without confine works).  As root and
# as uid 65534, on both backends.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin

for who in $RUN_USERS; do
	h=$(home "$who")
	w=$(ws "$who")
	RO=$(bk EROFS EACCES)
	al=$w/al
	mkdir -p "$al/a/b/c"
	echo notes >"$al/notes.txt"
	sb=$w/sb
	mkdir -p "$sb"
	echo shared >"$sb/secret.txt"
	echo other >"$sb/other.txt"
	ln "$h/.ssh/id_ed25519" "$al/ssh-link"
	ln "$h/.aws/credentials" "$al/a/b/c/aws-link"
	ln "$w/.env" "$al/env-link"
	ln "$w/.git/config" "$al/gitcfg"
	ln "$w/.confine/rules.json" "$al/rules-link"
	ln -s s2 "$al/s1"
	ln -s "$h/.ssh/id_ed25519" "$al/s2"
	[ "$who" = nobody ] && chown -hR 65534:65534 "$al" "$sb"

	# --- at launch: hard links to hidden files ---
	expect_host "$who" "OK ssh-secret" "WS/al/ssh-link is ~/.ssh/id_ed25519" "$TRYOP" cat "$al/ssh-link"
	expect "$who" EACCES "R37 a hard link in the workspace to ~/.ssh/id_ed25519 is hidden" -- "$TRYOP" read "$al/ssh-link"
	expect_host "$who" "OK aws-secret" "WS/al/a/b/c/aws-link is ~/.aws/credentials" "$TRYOP" cat "$al/a/b/c/aws-link"
	expect "$who" EACCES "R37 a hard link three directories down to ~/.aws/credentials is hidden" -- "$TRYOP" read "$al/a/b/c/aws-link"
	expect_host "$who" "OK env-secret" "WS/al/env-link is WS/.env" "$TRYOP" cat "$al/env-link"
	expect "$who" EACCES "R37 a hard link to the workspace's .env is hidden" -- "$TRYOP" read "$al/env-link"
	expect "$who" EACCES "R37 ... and .env itself stays hidden" -- "$TRYOP" read "$w/.env"
	# (a hidden file is an empty mode-000 file: opening it for writing is refused first)
	expect "$who" EACCES "R37 ... and cannot be written through the link" -- "$TRYOP" append "$al/env-link"
	expect "$who" EACCES "R37 a symlink chain to ~/.ssh/id_ed25519 resolves to the hidden target" -- "$TRYOP" read "$al/s1"
	# --- at launch: hard links to write-protected files ---
	expect "$who" "OK" "R37 a hard link to .git/config stays readable" -- "$TRYOP" read "$al/gitcfg"
	expect "$who" "$RO" "R37 a hard link to .git/config is not writable" -- "$TRYOP" append "$al/gitcfg"
	expect "$who" "$RO" "R37 a hard link to .confine/rules.json is not writable" -- "$TRYOP" append "$al/rules-link"
	is "$(cat "$w/.git/config")|$(cat "$w/.confine/rules.json")" \
		"$(printf '[core]\n\tbare = false')|{\"version\": 1, \"rules\": []}" \
		"$who: .git/config and .confine/rules.json unchanged on the host"
	expect_host "$who" "OK" "WS/al/gitcfg is writable without confine" "$TRYOP" read "$al/gitcfg"
	# --- explain says what the run does ---
	hx "$who" "$FIX/confine" explain --json "$al/ssh-link" "$al/gitcfg"
	is "$(printf '%s\n' "$out" | jq -r '.[] | "\(.access) \(.decision) \(.layer) \(.rule.pattern)"' | tr '\n' '|')" \
		"read ask guard (a hard link of $h/.ssh/id_ed25519)|write ask guard (a hard link of $h/.ssh/id_ed25519)|read allow fallback null|write ask guard (a hard link of $w/.git/config)|" \
		"$who: R37 explain names the hard link and the file it shares"
	# --- a second sandbox without a deny of this run links the file it protects ---
	expect "$who" "OK" "a second sandbox (no deny) links sb/secret.txt to sb/copy" -- "$TRYOP" link "$sb/secret.txt" "$sb/copy"
	expect_host "$who" "OK shared" "sb/copy is sb/secret.txt" "$TRYOP" cat "$sb/copy"
	expect "$who" EACCES "R37 --deny sb/secret.txt:read also hides sb/copy" --deny "$sb/secret.txt:read" -- "$TRYOP" read "$sb/copy"
	expect "$who" "OK other" "R37 ... and leaves the other files of sb/ readable" --deny "$sb/secret.txt:read" -- "$TRYOP" cat "$sb/other.txt"
	expect "$who" "$RO" "R37 --deny sb/secret.txt:write makes sb/copy read-only" --deny "$sb/secret.txt:write" -- "$TRYOP" append "$sb/copy"
	expect "$who" "OK shared" "without a deny sb/copy is readable (control)" -- "$TRYOP" cat "$sb/copy"
	expect "$who" "OK" "without a deny sb/copy is writable (control)" -- "$TRYOP" append "$sb/copy"

	# --- during the run: glob-named links are renamed aside after it ---
	pr=$w/pr
	mkdir -p "$pr/d/e"
	echo notes >"$pr/notes.txt"
	echo cache >"$pr/cache.txt"
	echo dev >"$pr/env.shared"
	ln -s env.shared "$pr/.env.development" # the user's own link, there at launch
	[ "$who" = nobody ] && chown -hR 65534:65534 "$pr"
	cx "$who" -- sh -c "'$TRYOP' link '$pr/notes.txt' '$pr/.env.production'; '$TRYOP' symlink cache.txt '$pr/server.pem'; '$TRYOP' symlink ../../chain1 '$pr/d/e/id_rsa_old'; '$TRYOP' symlink cache.txt '$pr/chain1'; '$TRYOP' write '$pr/plain.key'"
	is "$rc:$out" "0:OK
OK
OK
OK
OK" "$who: the command makes .env.production (hard link), server.pem (symlink), d/e/id_rsa_old (symlink chain) and a plain plain.key"
	for f in .env.production server.pem d/e/id_rsa_old; do
		[ ! -e "$pr/$f" ] && [ ! -L "$pr/$f" ] && [ -L "$pr/$f.confine-disabled" -o -f "$pr/$f.confine-disabled" ]
		ok $? "$who: R37 $f was renamed to $f.confine-disabled after the run"
		case $err in *"protected name made as a link during the run: '$pr/$f'"*"renamed to '$pr/$f.confine-disabled'"*) ok 0 "$who: ... and the warning says so" ;;
		*) ok 1 "$who: ... and the warning says so (stderr: $err)" ;; esac
	done
	is "$(cat "$pr/notes.txt")|$(cat "$pr/cache.txt")|$(readlink "$pr/.env.development")|$(cat "$pr/plain.key")" \
		"notes|cache|env.shared|x" "$who: the linked files, the user's own link and the plain new match are untouched"
	case $err in *"'$pr/plain.key'"*"from the next run on it is protected"*) ok 0 "$who: a plain new match is reported, with the hint that the next run protects it" ;;
	*) ok 1 "$who: a plain new match is reported, with the hint that the next run protects it (stderr: $err)" ;; esac
	case $err in *".env.development"*) ok 1 "$who: the user's own link is not reported (stderr: $err)" ;;
	*) ok 0 "$who: the user's own link is not reported" ;; esac
	expect "$who" EACCES "R37 the hint is true: the next run hides plain.key" -- "$TRYOP" read "$pr/plain.key"
	hx "$who" "$FIX/confine" run --report "$h/report.json" -- sh -c "'$TRYOP' symlink notes.txt '$pr/d/k.p12'"
	is "$(jq -r '.events[] | select(.kind == "protected_link_disabled") | "\(.path) \(.rule) \(.detail)"' "$h/report.json")" \
		"$pr/d/k.p12 **/*.p12 $pr/d/k.p12.confine-disabled" "$who: R37 the report lists protected_link_disabled with the rule and the new name"
	# Without the sandbox (policy off) nothing is undone: reported only.
	cx "$who" --policy off -- "$TRYOP" symlink notes.txt "$pr/d/off.pem"
	[ -L "$pr/d/off.pem" ]
	ok $? "$who: under --policy off the link stays (the operator's choice)"
	# A missing protected path created as a link: renamed aside too.
	mp=$h/mp
	mkdir -p "$mp"
	echo mp >"$mp/notes.txt"
	[ "$who" = nobody ] && chown -hR 65534:65534 "$mp"
	CX_CWD=$mp cx "$who" -- "$TRYOP" symlink notes.txt "$mp/.env"
	[ ! -L "$mp/.env" ] && [ -L "$mp/.env.confine-disabled" ]
	ok $? "$who: R37 a missing WS/.env created as a symlink is renamed aside (stderr: $err)"
done
done_testing
