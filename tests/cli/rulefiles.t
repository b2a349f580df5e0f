#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# R6, one rule-file loader (host/rulefile.h): a session rule file that is missing, not a
# regular file, larger than 1 MiB or malformed is refused with the same message by
# `confine run` and by the plans for macOS and Windows, with FILE:LINE:COL from the parser and
# the hint to run `confine check` only where check lists the errors (a malformed file).
source "$(dirname "$0")/../lib.sh"
mkdir -p "$T/ws" "$T/home" "$T/ws/adir"
export HOME=$T/home XDG_CONFIG_HOME=$T/cfg
cd "$T/ws" || exit 1
head -c 1048577 /dev/zero | tr '\0' ' ' >big.json
printf '{\n  "version": 1,\n  "rules": [ }\n' >bad.json

want_missing="confine: cannot read rule file: 'missing.json': No such file or directory"
want_adir="confine: cannot read rule file: 'adir': not a regular file"
want_big="confine: rule file too large: 'big.json': a rule file may hold at most 1 MiB"
want_bad="confine: invalid rule file: 'bad.json' (line 3, column 14): unexpected token near '}'
hint: run 'confine check bad.json' to list every error"

for f in missing adir big bad; do
	file=$f.json
	[ "$f" = adir ] && file=adir
	want_var=want_$f
	want=${!want_var}
	out=$("$CONFINE" run --policy off --session-rules "$file" -- true 2>&1)
	st=$?
	is "$st $out" "125 $want" "run: a $f session file refused, its message"
	for target in macos windows; do
		out=$("$CONFINE" plan --target "$target" --session-rules "$file" 2>&1)
		st=$?
		is "$st $out" "125 $want" "plan --target $target: a $f session file, the same message as run"
	done
done

done_testing
