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
	# landlock: names and metadata stay visible (SPEC 3.3), only the content is refused.
	expect "$who" "$(bk "OK 0000" "OK 0700")" "R13 guarded dir: ~/.ssh is mode $(bk 000 "0700 (landlock: metadata visible)")" -- "$TRYOP" statmode "$h/.ssh"
	expect "$who" "EACCES" "R9 guarded file: read ~/.npmrc" -- "$TRYOP" read "$h/.npmrc"
	expect "$who" "EACCES" "R9 guarded file: read ~/.git-credentials" -- "$TRYOP" read "$h/.git-credentials"
	expect "$who" "$(bk "OK 0000" "OK 0600")" "R13 guarded file: ~/.npmrc is mode $(bk 000 "0600 (landlock: metadata visible)")" -- "$TRYOP" statmode "$h/.npmrc"
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

	# --- 2. writes outside the workspace: EROFS (landlock: EACCES); inside: written through ---
	RO=$(bk EROFS EACCES)
	expect "$who" "$RO" "write ~/.bashrc" -- "$TRYOP" write "$h/.bashrc"
	expect "$who" "$RO" "append ~/.bashrc" -- "$TRYOP" append "$h/.bashrc"
	expect "$who" "$RO" "create ~/.profile" -- "$TRYOP" write "$h/.profile"
	etcx=/etc/confine-enforce-$$-$who
	expect "$who" "$RO" "create $etcx" -- "$TRYOP" write "$etcx"
	expect "$who" "$RO" "create ~/.config/autostart/x" -- "$TRYOP" write "$h/.config/autostart/x"
	expect "$who" "$RO" "mkdir ~/.config/newdir" -- "$TRYOP" mkdir "$h/.config/newdir"
	expect "$who" "EACCES" "create ~/.ssh/authorized_keys (hidden dir)" -- "$TRYOP" write "$h/.ssh/authorized_keys"
	# The landlock backend splits the workspace root around its guarded files: new entries
	# are made in WS/out there (asserted refused at the root below), the same checks otherwise.
	W=$(bk "$w" "$w/out")
	expect "$who" "EXDEV" "hard link of a home file into the workspace" -- "$TRYOP" link "$h/.bashrc" "$W/hardlink"
	is "$(cat "$h/.bashrc")" "bashrc" "$who: ~/.bashrc unchanged on the host"
	made=""
	for f in "$etcx" "$h/.profile" "$h/.config/autostart/x" "$h/.config/newdir" \
		"$h/.ssh/authorized_keys" "$W/hardlink"; do
		[ -e "$f" ] && made="$made $f"
	done
	is "$made" "" "$who: nothing created outside the workspace on the host"
	rm -f "$etcx"
	# Metadata outside the workspace: bwrap's read-only binds refuse a chmod; on the landlock
	# backend confine's supervisor does (R42, tests/enforce/landlock-meta.t has every call).
	expect "$who" "1 1" "chmod of ~/.bashrc and of the hidden ~/.npmrc refused" \
		-- sh -c "chmod 0604 '$h/.bashrc' 2>/dev/null; a=\$?; chmod 0604 '$h/.npmrc' 2>/dev/null; echo \$a \$?"
	is "$(stat -c %a "$h/.bashrc" "$h/.npmrc" | tr '\n' ' ')" "644 600 " "$who: the modes on the host are unchanged"
	chmod 0644 "$h/.bashrc"
	chmod 0600 "$h/.npmrc"
	expect "$who" EACCES "... the hidden ~/.npmrc's content stays out of reach" -- sh -c "chmod 0644 '$h/.npmrc' 2>/dev/null; '$TRYOP' read '$h/.npmrc'"
	chmod 0600 "$h/.npmrc"

	rm -f "$W/out.txt"
	expect "$who" "OK" "write $(bk WS WS/out)/out.txt" -- "$TRYOP" write "$W/out.txt"
	is "$(cat "$W/out.txt" 2>&1)" "x" "$who: $(bk WS WS/out)/out.txt and its content visible on the host"
	expect "$who" "OK" "mkdir $(bk WS WS/out)/newdir" -- "$TRYOP" mkdir "$W/newdir"
	[ -d "$W/newdir" ]
	ok $? "$who: $(bk WS WS/out)/newdir exists on the host"
	expect "$who" "OK" "rename inside the workspace" -- "$TRYOP" rename "$W/out.txt" "$W/out2.txt"
	[ -f "$W/out2.txt" ] && [ ! -e "$W/out.txt" ]
	ok $? "$who: rename visible on the host"
	CX_CWD=$W expect "$who" "OK" "write a relative path (cwd is in the workspace)" -- "$TRYOP" write rel.txt
	[ -f "$W/rel.txt" ]
	ok $? "$who: $(bk WS WS/out)/rel.txt on the host"
	# landlock: the root is split around its guarded files; confine's supervisor makes its new
	# entries (tests/enforce/landlock-repo.t).
	expect "$who" OK "a new file at the workspace root" -- "$TRYOP" write "$w/new-root.txt"
	rm -f "$w/new-root.txt"
	if [ "$who" = nobody ]; then
		st=$(stat -c %u "$W/rel.txt")
		is "$st" "65534" "$who: a file created inside is owned by the caller on the host"
	fi
	# The private /tmp: writable inside, never the host's.
	marker=confine-enforce-$$-$who
	if bwrap_only "a private tmpfs /tmp capped by --tmp-size (landlock: a per-run TMPDIR)"; then
		expect "$who" "OK" "write /tmp/$marker (private tmpfs)" -- "$TRYOP" write "/tmp/$marker"
		[ ! -e "/tmp/$marker" ]
		ok $? "$who: /tmp/$marker not on the host"
		expect "$who" "OK 0" "/tmp inside starts empty" -- "$TRYOP" readdir /tmp
		# The private /tmp is RAM: capped by --tmp-size.
		expect "$who" "OK" "--tmp-size 1M: 900 KiB fit in /tmp" --tmp-size 1M -- "$TRYOP" fill /tmp/f 921600
		expect "$who" "ENOSPC" "--tmp-size 1M: 2 MiB do not" --tmp-size 1M -- "$TRYOP" fill /tmp/f 2097152
		expect "$who" "OK" "default /tmp size takes 2 MiB" -- "$TRYOP" fill /tmp/f 2097152

	else
		cx "$who" -- sh -c "'$TRYOP' write \"\$TMPDIR/$marker\"; '$TRYOP' write /tmp/$marker; '$TRYOP' readdir /tmp"
		is "$out" "OK
EACCES
EACCES" "$who: landlock: TMPDIR writable; the host's /tmp neither writable nor listable"
		[ ! -e "/tmp/$marker" ]
		ok $? "$who: /tmp/$marker not on the host"
		expect "$who" "OK" "landlock: --tmp-size is not a cap (TMPDIR is on the host's /tmp; the plan says so)" --tmp-size 1M -- sh -c "'$TRYOP' fill \"\$TMPDIR/f\" 2097152"
	fi

	# --- 3. a workspace inside a guarded directory punches through (R13) ---
	pw=$h/.aws/proj
	CX_CWD=$pw expect "$who" "OK" "workspace ~/.aws/proj (cwd) writable" -- "$TRYOP" write "$pw/made-inside"
	is "$(cat "$pw/made-inside" 2>&1)" "x" "$who: ~/.aws/proj/made-inside on the host"
	CX_CWD=$pw expect "$who" "OK aws-proj" "workspace ~/.aws/proj readable" -- "$TRYOP" cat "$pw/readme"
	# ~/.aws must stay traversable to reach the workspace, so it is an empty tmpfs of mode 0111:
	# listing it fails (EACCES) and what it hides is simply not there (ENOENT), not even its
	# names.
	CX_CWD=$pw expect "$who" "$(bk ENOENT EACCES)" "guarded sibling ~/.aws/credentials $(bk "absent (hidden dir stays traversable)" "refused (landlock: the name stays visible)")" -- "$TRYOP" read "$h/.aws/credentials"
	CX_CWD=$pw expect "$who" "EACCES" "guarded ~/.aws still not listable" -- "$TRYOP" readdir "$h/.aws"
	expect "$who" "OK" "the same with --workspace ~/.aws/proj" --workspace "$pw" -- "$TRYOP" write "$pw/made-by-option"
	[ -f "$pw/made-by-option" ]
	ok $? "$who: ~/.aws/proj/made-by-option on the host"
	expect "$who" "$(bk ENOENT EACCES)" "--workspace ~/.aws/proj: ~/.aws/credentials $(bk absent refused)" --workspace "$pw" -- "$TRYOP" read "$h/.aws/credentials"

	# --- 4. guarded files inside the workspace: hidden, not writable, not removable ---
	for f in .env .env.local x/y.pem sub/server.key; do
		expect "$who" "EACCES" "R9 workspace guard: read WS/$f" -- "$TRYOP" read "$w/$f"
		expect "$who" "$RO" "R9 workspace guard: write WS/$f" -- "$TRYOP" write "$w/$f"
		# A hidden file is a mount point: the kernel refuses to unlink or rename it (landlock:
		# its directory has no remove right).
		expect "$who" "$(bk EBUSY EACCES)" "R9 workspace guard: unlink WS/$f" -- "$TRYOP" unlink "$w/$f"
	done
	expect "$who" "$(bk EBUSY EACCES)" "R9 workspace guard: rename WS/.env away" -- "$TRYOP" rename "$w/.env" "$w/env-moved"
	is "$(cat "$w/.env" "$w/.env.local" "$w/x/y.pem" "$w/sub/server.key" 2>/dev/null | tr '\n' ' ')" \
		"env-secret envlocal-secret pem-secret key-secret " "$who: workspace secrets intact on the host"
	expect "$who" "OK src" "ordinary workspace file readable" -- "$TRYOP" cat "$w/src.txt"
	expect "$who" "OK" "ordinary workspace file writable" -- "$TRYOP" append "$w/src.txt"
	# Write-only guards: git hooks and config, and the whole .confine/ directory (override).
	expect "$who" "OK hook" "WS/.git/hooks readable" -- "$TRYOP" cat "$w/.git/hooks/pre-commit.sample"
	expect "$who" "$RO" "write WS/.git/hooks/pre-commit" -- "$TRYOP" write "$w/.git/hooks/pre-commit"
	expect "$who" "$RO" "overwrite WS/.git/hooks/pre-commit.sample" -- "$TRYOP" write "$w/.git/hooks/pre-commit.sample"
	expect "$who" "OK" "WS/.git/config readable" -- "$TRYOP" read "$w/.git/config"
	expect "$who" "$RO" "write WS/.git/config" -- "$TRYOP" write "$w/.git/config"
	expect "$who" OK "WS/.git itself writable (objects, index; landlock: split, its new entries made by confine's supervisor)" -- "$TRYOP" write "$w/.git/index"
	expect "$who" "OK" "WS/.confine/rules.json readable" -- "$TRYOP" read "$w/.confine/rules.json"
	expect "$who" "$RO" "override: write WS/.confine/rules.json" -- "$TRYOP" write "$w/.confine/rules.json"
	expect "$who" "$RO" "override: create WS/.confine/user.json" -- "$TRYOP" write "$w/.confine/user.json"
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
	CX_CWD=$pl expect "$who" "$RO" "planted symlinks: write through .env (target outside)" -- "$TRYOP" write "$pl/.env"
	CX_CWD=$pl expect "$who" "$RO" "planted symlinks: write through k.pem" -- "$TRYOP" write "$pl/k.pem"
	CX_CWD=$pl expect "$who" "$RO" "planted symlinks: create through .git/config" -- "$TRYOP" write "$pl/.git/config"
	CX_CWD=$pl expect "$who" "EEXIST" "planted symlinks: mkdir .confine (a dangling symlink exists)" -- "$TRYOP" mkdir "$pl/.confine"
	made=""
	for f in "$h"/planted-*; do
		[ -e "$f" ] && made="$made $f"
	done
	is "$made" "" "$who: planted symlinks: nothing created at their targets on the host"

	# --- R14: a protected path created during the run is reported, and protected next time ---
	fr=$h/fresh
	# new.pem goes into a subdirectory: after the first run created .env, the landlock backend
	# splits $fr around it and refuses new entries at its root.
	mkdir -p "$fr/d"
	[ "$who" = nobody ] && chown -R 65534:65534 "$fr"
	CX_CWD=$fr expect "$who" "OK" "R14 .env missing at launch: the command can create it" -- "$TRYOP" write "$fr/.env"
	[[ $err == *"$fr/.env"* && $err == *created* ]]
	ok $? "$who: R14 the creation of WS/.env is reported after the run (stderr: $(echo "$err" | head -1))"
	CX_CWD=$fr expect "$who" "OK" "R14 a new glob match: the command can create new.pem" -- "$TRYOP" write "$fr/d/new.pem"
	[[ $err == *"$fr/d/new.pem"* && $err == *created* ]]
	ok $? "$who: R14 the new glob match new.pem is reported after the run"
	CX_CWD=$fr expect "$who" "EACCES" "R14 the next run hides the created .env" -- "$TRYOP" read "$fr/.env"
	CX_CWD=$fr expect "$who" "EACCES" "R14 the next run hides the created new.pem" -- "$TRYOP" read "$fr/d/new.pem"
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
