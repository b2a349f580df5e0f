#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Files: guarded credentials unreadable (R9, R13), writes outside the workspace refused, the
# workspace writable, a workspace inside a guarded directory punches through (R13), guarded
# files inside the workspace stay hidden, git metadata and .confine/ write-denied (§2.3),
# no mount point is ever created on the host (R14).  As root and as uid 65534.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/enforce.sh"
enforce_begin

for who in $RUN_USERS; do
	h=$(home "$who")
	w=$(ws "$who")

	# --- 1. guarded directory and files in the home: EACCES inside, readable outside ---
	expect_host "$who" "OK ssh-secret" "~/.ssh/id_ed25519 readable" "$TRYOP" cat "$h/.ssh/id_ed25519"
	expect_host "$who" "OK npm-secret" "~/.npmrc readable" "$TRYOP" cat "$h/.npmrc"
	expect_host "$who" "OK git-secret" "~/.git-credentials readable" "$TRYOP" cat "$h/.git-credentials"
	expect "$who" "EACCES" "R9 guarded dir: read ~/.ssh/id_ed25519" -- "$TRYOP" read "$h/.ssh/id_ed25519"
	expect "$who" "EACCES" "R13 guarded dir: open ~/.ssh itself" -- "$TRYOP" read "$h/.ssh"
	expect "$who" "EACCES" "R13 guarded dir: readdir ~/.ssh" -- "$TRYOP" readdir "$h/.ssh"
	expect "$who" "OK 0000" "R13 guarded dir: ~/.ssh is mode 000" -- "$TRYOP" statmode "$h/.ssh"
	expect "$who" "EACCES" "R9 guarded file: read ~/.npmrc" -- "$TRYOP" read "$h/.npmrc"
	expect "$who" "EACCES" "R9 guarded file: read ~/.git-credentials" -- "$TRYOP" read "$h/.git-credentials"
	expect "$who" "OK 0000" "R13 guarded file: ~/.npmrc is mode 000" -- "$TRYOP" statmode "$h/.npmrc"
	expect "$who" "EACCES" "R9 guarded: read ~/.aws/credentials" -- "$TRYOP" read "$h/.aws/credentials"
	expect "$who" "EACCES" "R9 guarded: read ~/.config/gh/hosts.yml" -- "$TRYOP" read "$h/.config/gh/hosts.yml"
	expect "$who" "OK notes" "non-guarded ~/notes.txt readable inside" -- "$TRYOP" cat "$h/notes.txt"
	expect "$who" "OK bashrc" "non-guarded ~/.bashrc readable inside" -- "$TRYOP" cat "$h/.bashrc"
	# Other paths to the same secret: hidden by the real path, not by a name.
	ln -sfn "$h/.ssh" "$h/ssh-alias"
	ln -sfn "$h/.npmrc" "$w/npmrc-alias"
	expect "$who" "EACCES" "R7 symlink alias ~/ssh-alias/id_ed25519" -- "$TRYOP" read "$h/ssh-alias/id_ed25519"
	expect "$who" "EACCES" "R7 symlink alias WS/npmrc-alias -> ~/.npmrc" -- "$TRYOP" read "$w/npmrc-alias"
	expect "$who" "EACCES" "/proc/self/root alias of ~/.ssh/id_ed25519" -- "$TRYOP" read "/proc/self/root$h/.ssh/id_ed25519"
	expect "$who" "EACCES" "/proc/1/root alias of ~/.npmrc" -- "$TRYOP" read "/proc/1/root$h/.npmrc"

	# --- 2. writes outside the workspace: EROFS; inside: written through to the host ---
	expect "$who" "EROFS" "write ~/.bashrc" -- "$TRYOP" write "$h/.bashrc"
	expect "$who" "EROFS" "append ~/.bashrc" -- "$TRYOP" append "$h/.bashrc"
	expect "$who" "EROFS" "create ~/.profile" -- "$TRYOP" write "$h/.profile"
	etcx=/etc/confine-enforce-$$-$who
	expect "$who" "EROFS" "create $etcx" -- "$TRYOP" write "$etcx"
	expect "$who" "EROFS" "create ~/.config/autostart/x" -- "$TRYOP" write "$h/.config/autostart/x"
	expect "$who" "EROFS" "mkdir ~/.config/newdir" -- "$TRYOP" mkdir "$h/.config/newdir"
	expect "$who" "EACCES" "create ~/.ssh/authorized_keys (hidden dir)" -- "$TRYOP" write "$h/.ssh/authorized_keys"
	expect "$who" "EXDEV" "hard link of a home file into the workspace" -- "$TRYOP" link "$h/.bashrc" "$w/hardlink"
	is "$(cat "$h/.bashrc")" "bashrc" "$who: ~/.bashrc unchanged on the host"
	made=""
	for f in "$etcx" "$h/.profile" "$h/.config/autostart/x" "$h/.config/newdir" \
		"$h/.ssh/authorized_keys" "$w/hardlink"; do
		[ -e "$f" ] && made="$made $f"
	done
	is "$made" "" "$who: nothing created outside the workspace on the host"
	rm -f "$etcx"

	rm -f "$w/out.txt"
	expect "$who" "OK" "write WS/out.txt" -- "$TRYOP" write "$w/out.txt"
	is "$(cat "$w/out.txt" 2>&1)" "x" "$who: WS/out.txt and its content visible on the host"
	expect "$who" "OK" "mkdir WS/newdir" -- "$TRYOP" mkdir "$w/newdir"
	[ -d "$w/newdir" ]
	ok $? "$who: WS/newdir exists on the host"
	expect "$who" "OK" "rename inside the workspace" -- "$TRYOP" rename "$w/out.txt" "$w/out2.txt"
	[ -f "$w/out2.txt" ] && [ ! -e "$w/out.txt" ]
	ok $? "$who: rename visible on the host"
	expect "$who" "OK" "write a relative path (cwd is the workspace)" -- "$TRYOP" write rel.txt
	[ -f "$w/rel.txt" ]
	ok $? "$who: WS/rel.txt on the host"
	if [ "$who" = nobody ]; then
		st=$(stat -c %u "$w/rel.txt")
		is "$st" "65534" "$who: a file created inside is owned by the caller on the host"
	fi
	# The private /tmp: writable inside, never the host's.
	marker=confine-enforce-$$-$who
	expect "$who" "OK" "write /tmp/$marker (private tmpfs)" -- "$TRYOP" write "/tmp/$marker"
	[ ! -e "/tmp/$marker" ]
	ok $? "$who: /tmp/$marker not on the host"
	expect "$who" "OK 0" "/tmp inside starts empty" -- "$TRYOP" readdir /tmp
	# The private /tmp is RAM: capped by --tmp-size.
	expect "$who" "OK" "--tmp-size 1M: 900 KiB fit in /tmp" --tmp-size 1M -- "$TRYOP" fill /tmp/f 921600
	expect "$who" "ENOSPC" "--tmp-size 1M: 2 MiB do not" --tmp-size 1M -- "$TRYOP" fill /tmp/f 2097152
	expect "$who" "OK" "default /tmp size takes 2 MiB" -- "$TRYOP" fill /tmp/f 2097152

	# --- 3. a workspace inside a guarded directory punches through (R13) ---
	pw=$h/.aws/proj
	CX_CWD=$pw expect "$who" "OK" "workspace ~/.aws/proj (cwd) writable" -- "$TRYOP" write "$pw/made-inside"
	is "$(cat "$pw/made-inside" 2>&1)" "x" "$who: ~/.aws/proj/made-inside on the host"
	CX_CWD=$pw expect "$who" "OK aws-proj" "workspace ~/.aws/proj readable" -- "$TRYOP" cat "$pw/readme"
	# ~/.aws must stay traversable to reach the workspace, so it is an empty tmpfs of mode 0111:
	# listing it fails (EACCES) and what it hides is simply not there (ENOENT), not even its
	# names.
	CX_CWD=$pw expect "$who" "ENOENT" "guarded sibling ~/.aws/credentials absent (hidden dir stays traversable)" -- "$TRYOP" read "$h/.aws/credentials"
	CX_CWD=$pw expect "$who" "EACCES" "guarded ~/.aws still not listable" -- "$TRYOP" readdir "$h/.aws"
	expect "$who" "OK" "the same with --workspace ~/.aws/proj" --workspace "$pw" -- "$TRYOP" write "$pw/made-by-option"
	[ -f "$pw/made-by-option" ]
	ok $? "$who: ~/.aws/proj/made-by-option on the host"
	expect "$who" "ENOENT" "--workspace ~/.aws/proj: ~/.aws/credentials absent" --workspace "$pw" -- "$TRYOP" read "$h/.aws/credentials"

	# --- 4. guarded files inside the workspace: hidden, not writable, not removable ---
	for f in .env .env.local x/y.pem sub/server.key; do
		expect "$who" "EACCES" "R9 workspace guard: read WS/$f" -- "$TRYOP" read "$w/$f"
		expect "$who" "EROFS" "R9 workspace guard: write WS/$f" -- "$TRYOP" write "$w/$f"
		# A hidden file is a mount point: the kernel refuses to unlink or rename it.
		expect "$who" "EBUSY" "R9 workspace guard: unlink WS/$f" -- "$TRYOP" unlink "$w/$f"
	done
	expect "$who" "EBUSY" "R9 workspace guard: rename WS/.env away" -- "$TRYOP" rename "$w/.env" "$w/env-moved"
	is "$(cat "$w/.env" "$w/.env.local" "$w/x/y.pem" "$w/sub/server.key" 2>/dev/null | tr '\n' ' ')" \
		"env-secret envlocal-secret pem-secret key-secret " "$who: workspace secrets intact on the host"
	expect "$who" "OK src" "ordinary workspace file readable" -- "$TRYOP" cat "$w/src.txt"
	expect "$who" "OK" "ordinary workspace file writable" -- "$TRYOP" append "$w/src.txt"
	# Write-only guards: git hooks and config, and the whole .confine/ directory (override).
	expect "$who" "OK hook" "WS/.git/hooks readable" -- "$TRYOP" cat "$w/.git/hooks/pre-commit.sample"
	expect "$who" "EROFS" "write WS/.git/hooks/pre-commit" -- "$TRYOP" write "$w/.git/hooks/pre-commit"
	expect "$who" "EROFS" "overwrite WS/.git/hooks/pre-commit.sample" -- "$TRYOP" write "$w/.git/hooks/pre-commit.sample"
	expect "$who" "OK" "WS/.git/config readable" -- "$TRYOP" read "$w/.git/config"
	expect "$who" "EROFS" "write WS/.git/config" -- "$TRYOP" write "$w/.git/config"
	expect "$who" "OK" "WS/.git itself writable (objects, index)" -- "$TRYOP" write "$w/.git/index"
	expect "$who" "OK" "WS/.confine/rules.json readable" -- "$TRYOP" read "$w/.confine/rules.json"
	expect "$who" "EROFS" "override: write WS/.confine/rules.json" -- "$TRYOP" write "$w/.confine/rules.json"
	expect "$who" "EROFS" "override: create WS/.confine/user.json" -- "$TRYOP" write "$w/.confine/user.json"
	[ ! -e "$w/.git/hooks/pre-commit" ] && [ ! -e "$w/.confine/user.json" ] &&
		[ "$(cat "$w/.git/config")" = "$(printf '[core]\n\tbare = false')" ]
	ok $? "$who: git hooks, git config and .confine/ unchanged on the host"

	# --- planted symlinks: guarded names that point out of the workspace (THREATS: "make bwrap
	# follow a planted symlink during its setup and create files on the host") ---
	pl=$h/plant
	mkdir -p "$pl/.git"
	ln -s "$h/planted-env" "$pl/.env"
	ln -s "$h/planted-pem" "$pl/k.pem"
	ln -s "$h/planted-hooks" "$pl/.git/hooks"
	ln -s "$h/planted-config" "$pl/.git/config"
	ln -s "$h/planted-confine" "$pl/.confine"
	[ "$who" = nobody ] && chown -hR 65534:65534 "$pl"
	CX_CWD=$pl expect "$who" "OK" "planted symlinks: the workspace still works" -- "$TRYOP" write "$pl/ok"
	CX_CWD=$pl expect "$who" "EROFS" "planted symlinks: write through .env (target outside)" -- "$TRYOP" write "$pl/.env"
	CX_CWD=$pl expect "$who" "EROFS" "planted symlinks: write through k.pem" -- "$TRYOP" write "$pl/k.pem"
	CX_CWD=$pl expect "$who" "EROFS" "planted symlinks: create through .git/config" -- "$TRYOP" write "$pl/.git/config"
	CX_CWD=$pl expect "$who" "EEXIST" "planted symlinks: mkdir .confine (a dangling symlink exists)" -- "$TRYOP" mkdir "$pl/.confine"
	made=""
	for f in "$h"/planted-*; do
		[ -e "$f" ] && made="$made $f"
	done
	is "$made" "" "$who: planted symlinks: nothing created at their targets on the host"

	# --- R14: a protected path created during the run is reported, and protected next time ---
	fr=$h/fresh
	mkdir -p "$fr"
	[ "$who" = nobody ] && chown 65534:65534 "$fr"
	CX_CWD=$fr expect "$who" "OK" "R14 .env missing at launch: the command can create it" -- "$TRYOP" write "$fr/.env"
	[[ $err == *"$fr/.env"* && $err == *created* ]]
	ok $? "$who: R14 the creation of WS/.env is reported after the run (stderr: $(echo "$err" | head -1))"
	CX_CWD=$fr expect "$who" "OK" "R14 a new glob match: the command can create new.pem" -- "$TRYOP" write "$fr/new.pem"
	[[ $err == *"$fr/new.pem"* && $err == *created* ]]
	ok $? "$who: R14 the new glob match new.pem is reported after the run"
	CX_CWD=$fr expect "$who" "EACCES" "R14 the next run hides the created .env" -- "$TRYOP" read "$fr/.env"
	CX_CWD=$fr expect "$who" "EACCES" "R14 the next run hides the created new.pem" -- "$TRYOP" read "$fr/new.pem"
	CX_CWD=$fr cx "$who" -- "$TRYOP" write "$fr/plain.txt"
	[[ $err != *created* ]]
	ok $? "$who: R14 no creation report when nothing protected was created (stderr: $err)"

	# --- R14: protections of missing paths create nothing on the host ---
	made=""
	for f in "$h/.gnupg" "$h/.kube" "$h/.docker" "$h/.netrc" "$h/.config/gcloud" "$h/.azure" \
		"$h/.env" "$w/.env.production"; do
		[ -e "$f" ] && made="$made $f"
	done
	is "$made" "" "$who: R14 no mount point created on the host for missing guarded paths"
done

done_testing
