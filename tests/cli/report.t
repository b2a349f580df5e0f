#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --report FILE (SPEC 7.3, R3, R23): the report tells a 125 of confine's from a 125 of the
# command's, carries the post-run events, and is never written through a planted symlink.
source "$(dirname "$0")/../lib.sh"
W=$T/ws
mkdir -p "$W" "$T/home"
cd "$W" || exit 1
export HOME=$T/home
PY=/usr/bin/python3
field() { # file key: prints a top-level JSON field
	"$PY" -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print(json.dumps(v) if isinstance(v,(dict,list)) or v is None else v)' "$1" "$2"
}

"$CONFINE" run --report "$T/r1.json" -- sh -c 'exit 125'
is "$?" 125 "the command's own 125"
is "$(field "$T/r1.json" status_from)" command "R3 the report says the 125 came from the command"
is "$(field "$T/r1.json" exit_status)" 125 "with its exit status"
is "$(field "$T/r1.json" error)" null "and no error of confine's"

"$CONFINE" run --report "$T/r2.json" --workspace "$T/missing" -- true 2>/dev/null
is "$?" 125 "a refused workspace: 125"
is "$(field "$T/r2.json" status_from)" confine "R3 the report says the 125 came from confine"
"$PY" -c 'import json,sys; e=json.load(open(sys.argv[1]))["error"]; sys.exit(0 if e["what"]=="workspace refused" and e["subject"].endswith("/missing") and e["code"]==-4 else 1)' "$T/r2.json"
ok $? "the report carries what failed, the subject and the code"

"$CONFINE" run --report "$T/r3.json" -- sh -c 'echo k > new.pem' 2>/dev/null
is "$?" 0 "a run that creates a protected name succeeds"
"$PY" -c 'import json,sys; ev=json.load(open(sys.argv[1]))["events"]; sys.exit(0 if any(e["kind"]=="dynamic_glob_created" and e["path"].endswith("/new.pem") and e["rule"]=="**/*.pem" for e in ev) else 1)' "$T/r3.json"
ok $? "R23 the report lists dynamic_glob_created for it"
is "$(stat -c %a "$T/r3.json")" 600 "the report is created 0600"

echo secret >"$T/target"
ln -s "$T/target" "$T/r4.json"
rm -f "$T/ran"
"$CONFINE" run --report "$T/r4.json" -- touch "$T/ran" 2>"$T/err"
is "$?" 125 "a symlink at the report path: the run is refused"
is "$(cat "$T/target")" secret "the symlink's target is untouched"
grep -q "^confine: cannot open the report file: '$T/r4.json': Too many levels of symbolic links" "$T/err"
ok $? "and says why"
test -e "$T/ran"
is "$?" 1 "R30 the report is opened before the command could start: nothing ran"

# The command tries to swap a directory of the report path for a symlink, or to replace the
# report itself: the report is a write-denied mount and its directory is pinned (R30, R33), and
# it was opened before the command started anyway.
mkdir -p "$T/w/out" "$T/elsewhere"
echo keep >"$T/elsewhere/r5.json"
(cd "$T/w" && "$CONFINE" run --report "$T/w/out/r5.json" -- sh -c \
	'mv out out.old 2>/dev/null && ln -s '"$T"'/elsewhere out; s1=$?
	 mv out/r5.json out/x 2>/dev/null; s2=$?
	 rm -f out/r5.json 2>/dev/null; s3=$?
	 echo x >out/r5.json 2>/dev/null; s4=$?
	 echo "$s1 $s2 $s3 $s4"' >"$T/out" 2>"$T/err")
is "$?" 0 "a run that tries to move the report away"
is "$(cat "$T/out")" "1 1 1 2" "renaming its directory, renaming it, removing it and writing it all fail"
is "$(cat "$T/elsewhere/r5.json")" keep "the file elsewhere is untouched"
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["exit_status"]==0 else 1)' "$T/w/out/r5.json"
ok $? "the report is where it was asked for"
is "$(ls -A "$T/w")" out "nothing else was left in the workspace"
done_testing
