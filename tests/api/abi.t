#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ABI v1 (include/confine.h, doc/library.md): libconfine.so.1 exports the functions confine.h
# declares and nothing else, each of symbol version CONFINE_1; its ABI is the baseline's in
# abi/ (abidiff), and the check fails on a library that breaks it; the CLI is built against
# the public header alone and runs linked to the shared library (confine-shared).
source "$(dirname "$0")/../lib.sh"

LIB=$BUILD/src/lib/libconfine.so.1
SHARED=$BUILD/confine-shared
if [ ! -f "$LIB" ]; then
  skip "no $LIB in this build"
  done_testing
  exit
fi

# Every symbol the library defines for others: nm -D lists the version node (CONFINE_1, an
# absolute symbol) and the functions.
nm -D --defined-only "$LIB" | awk '{print $2, $3}' >"$T/defined"
funcs=$(awk '$1 == "T" {sub(/@.*/, "", $2); print $2}' "$T/defined" | sort)
others=$(awk '$1 != "T" && !($1 == "A" && $2 == "CONFINE_1") {print $1, $2}' "$T/defined")
is "$others" "" "nm -D: nothing but functions and the version node CONFINE_1"
is "$(grep -v '^confine_' <<<"$funcs")" "" "nm -D: every function is confine_* (no cf_, sb_, BLAKE3)"
n_funcs=$(grep -c . <<<"$funcs")
ok "$([ "$n_funcs" -gt 80 ]; echo $?)" "nm -D: $n_funcs functions"
# Each of version CONFINE_1 (readelf prints NAME@CONFINE_1 for a defined, versioned symbol).
unversioned=$(readelf --dyn-syms --wide "$LIB" | awk '$7 != "UND" && $8 ~ /^confine_/ && $8 !~ /@CONFINE_1$/ {print $8}')
is "$unversioned" "" "every exported function has symbol version CONFINE_1"
is "$(readelf -d "$LIB" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')" "libconfine.so.1" "soname libconfine.so.1"

# The header's CONFINE_API functions (as a Linux build sees them) are exactly those exported: a
# function declared without CONFINE_API, or exported without a declaration, fails here.
declared=$(cc -E -P -I"$TOP/include" -x c "$TOP/include/confine.h" | python3 -c '
import re, sys
text = sys.stdin.read()
for m in re.finditer(r"visibility\(\"default\"\)\)\)\s+[^;{}]*?\b(confine_\w+)\s*\(", text):
    print(m.group(1))' | sort -u)
is "$(diff <(echo "$declared") <(echo "$funcs"))" "" "confine.h's CONFINE_API functions are the exported ones ($(grep -c . <<<"$declared") declared)"

# Every function confine.h declares carries CONFINE_API (without it, it would be hidden and a
# host would fail to link); checked on the header and, as a control, on a copy of it that
# lacks one CONFINE_API.
no_api() { # header_dir: the functions it declares without CONFINE_API
  cc -E -P -I"$1" -x c "$1/confine.h" | python3 -c '
import re, sys
text = re.sub(r"\s+", " ", sys.stdin.read())
for st in re.split(r"[;{}]", text):
    m = re.search(r"\b(confine_\w+) ?\(", st)
    if m and not st.strip().startswith("typedef") and "visibility(\"default\")" not in st:
        print(m.group(1))'
}
is "$(no_api "$TOP/include")" "" "every function confine.h declares is CONFINE_API"
mkdir -p "$T/inc"
sed 's/^CONFINE_API void confine_free(/void confine_free(/' "$TOP/include/confine.h" >"$T/inc/confine.h"
is "$(no_api "$T/inc")" "confine_free" "... and a declaration without it is found (control)"

# BLAKE3's symbols are inside, local: a host's own BLAKE3 is never interposed.
ok "$(nm "$LIB" | grep -q ' t blake3_hasher_init$'; echo $?)" "BLAKE3 is linked in as a local symbol"

# The ABI against the baseline, and a negative control: the same comparison fails when a
# function of v1 is gone (its symbol and declaration cut from a dump of this library).
if command -v abidiff >/dev/null && command -v abidw >/dev/null; then
  out=$("$TOP/scripts/abi" check "$BUILD" 2>&1); st=$?
  is "$st" 0 "abidiff: the library keeps the ABI of abi/libconfine.so.1.abi"
  [ "$st" -eq 0 ] || diag "$out"
  "$TOP/scripts/abi" dump "$BUILD" "$T/now.abi"
  python3 - "$T/now.abi" "$T/broken.abi" <<'P'
import re, sys
s = open(sys.argv[1]).read()
s = re.sub(r"\s*<elf-symbol name='confine_free'[^>]*/>", "", s)
s = re.sub(r"\s*<function-decl name='confine_free'.*?</function-decl>", "", s, flags=re.S)
open(sys.argv[2], "w").write(s)
P
  out=$("$TOP/scripts/abi" compare "$TOP/abi/libconfine.so.1.abi" "$T/broken.abi" 2>&1); st=$?
  is "$st" 1 "abidiff: a library without confine_free breaks ABI v1 (the check can fail)"
  ok "$(grep -q "Removed function" <<<"$out" && grep -q confine_free <<<"$out"; echo $?)" \
    "... and the report names the removed function"
else
  skip "abigail-tools is not installed (scripts/install-deps test)"
fi

# The CLI is compiled with include/ as its only way into the library: no -I of src/lib.
python3 - "$BUILD/compile_commands.json" "$TOP" >"$T/cli-includes" <<'P'
import json, os, sys
top = os.path.realpath(sys.argv[2])
# The CLI's own objects: its library and the two executables (test tools that build main.c
# with the library's inside are tests, not the CLI).
cli = ("src/cli/libconfine-cli.a.p/", "confine.p/", "confine-shared.p/")
for c in json.load(open(sys.argv[1])):
    f = os.path.realpath(os.path.join(c["directory"], c["file"]))
    if not c["output"].startswith(cli):
        continue
    args = c.get("arguments") or c["command"].split()
    print("CHECKED", f)
    for i, a in enumerate(args):
        d = a[2:] if a.startswith("-I") and len(a) > 2 else args[i + 1] if a == "-I" else None
        if d is None:
            continue
        d = os.path.realpath(os.path.join(c["directory"], d))
        if d == top or (d.startswith(os.path.join(top, "src")) and d != os.path.join(top, "src", "cli")):
            print(os.path.basename(f), d)
P
n_checked=$(grep -c '^CHECKED' "$T/cli-includes")
n_cli=$(grep -vc '^CHECKED' "$T/cli-includes")
ok "$([ "$n_checked" -ge 14 ]; echo $?)" "the compile commands of the CLI's $n_checked objects are read"
is "$n_cli" 0 "the CLI's sources see no include path into src/ but their own"
[ "$n_cli" -eq 0 ] || diag "$(grep -v '^CHECKED' "$T/cli-includes" | head -5)"

# confine-shared: the same CLI linked to libconfine.so.1 (it would not link with a call past
# the header), and it works.
ok "$(readelf -d "$SHARED" | grep -q 'Shared library: \[libconfine.so.1\]'; echo $?)" \
  "confine-shared needs libconfine.so.1"
ok "$(nm -u "$SHARED" | grep -q ' U cf_'; [ $? -eq 1 ]; echo $?)" "confine-shared calls no cf_ function"
is "$("$SHARED" --version)" "$("$CONFINE" --version)" "confine-shared --version"
out=$("$SHARED" probe --json 2>/dev/null)
ok "$(python3 -c 'import json,sys; d=json.load(sys.stdin); assert [b["backend"] for b in d["backends"]] == ["bwrap", "landlock"]' <<<"$out"; echo $?)" \
  "confine-shared probe --json"
mkdir -p "$T/ws"
is "$(cd "$T/ws" && HOME=$T/home "$SHARED" run -- sh -c 'echo in-sandbox' 2>&1)" "in-sandbox" \
  "confine-shared run"
out=$(cd "$T/ws" && HOME=$T/home "$SHARED" explain --access read "$T/home/.ssh/id_ed25519" 2>&1)
ok "$(grep -q ' read   deny   guard ' <<<"$out"; echo $?)" "confine-shared explain: a guard denies ~/.ssh"
printf '{"version": 1, "rules": [{"path": "x", "action": "nope"}]}' >"$T/bad.json"
out=$("$SHARED" check "$T/bad.json" 2>&1); st=$?
is "$st" 1 "confine-shared check: a bad file"
ok "$(grep -q "bad.json:1:.*/rules/0/action" <<<"$out"; echo $?)" "... with its position and pointer"

# Every function of the header that takes a request to change (its first parameter a
# confine_request *) refuses a NULL one with CONFINE_E_INVALID and fills the error: the calls
# are generated from confine.h, so a setter added later is checked without naming it here.
# Each call runs in a process of its own (a crash fails that setter alone).
cc -E -P -I"$TOP/include" -x c "$TOP/include/confine.h" | python3 -c '
import re, sys
text = re.sub(r"\s+", " ", sys.stdin.read())
calls = []
for m in re.finditer(r"\bint (confine_\w+) ?\(([^;{}]*?)\) ?;", text):
    name, params = m.group(1), [p.strip() for p in m.group(2).split(",")]
    if not re.match(r"^confine_request \*\s*\w+$", params[0]):
        continue
    args = ["NULL"]
    for p in params[1:]:
        if re.match(r"^struct confine_error \*\s*\w+$", p):
            args.append("&err")
        elif "*" in p:
            args.append("NULL")
        else:
            args.append("(%s)0" % re.sub(r"\s*\b\w+$", "", p))
    calls.append((name, args))
print("#include <stdio.h>\n#include <string.h>\n#include \"confine.h\"")
print("int main(int argc, char **argv) {\n\tstruct confine_error err;\n\tint r = 1;")
print("\tmemset(&err, 0, sizeof(err));\n\tif (argc < 2) {")
for name, _ in calls:
    print("\t\tputs(\"%s\");" % name)
print("\t\treturn 0;\n\t}")
for name, args in calls:
    print("\tif (strcmp(argv[1], \"%s\") == 0)\n\t\tr = %s(%s);" % (name, name, ", ".join(args)))
print("\treturn r == CONFINE_E_INVALID && err.code == CONFINE_E_INVALID ? 0 : 1;\n}")' >"$T/nullreq.c"
cc -std=c17 -Wall -Wextra -Werror -I"$TOP/include" -o "$T/nullreq" "$T/nullreq.c" \
  -L"$BUILD/src/lib" -l:libconfine.so.1 >"$T/cc.log" 2>&1
ok $? "the NULL-request calls, generated from confine.h, compile"
setters=$(env "${SANITIZER_ENV[@]}" LD_LIBRARY_PATH=$BUILD/src/lib "$T/nullreq")
ok "$([ "$(grep -c . <<<"$setters")" -ge 30 ]; echo $?)" \
  "confine.h has $(grep -c . <<<"$setters") functions that take a request to change"
crashed=""
for s in $setters; do
  env "${SANITIZER_ENV[@]}" LD_LIBRARY_PATH=$BUILD/src/lib "$T/nullreq" "$s" >/dev/null 2>&1 || crashed="$crashed $s($?)"
done
is "$crashed" "" "each refuses a NULL request with CONFINE_E_INVALID (no crash, no other code)"

# doc/library.md's example is C that builds against the header and links to libconfine.so.1.
{ echo '#include "confine.h"'; echo 'int main(void) {'
  awk '/^```c/{c=1; next} /^```/{c=0} c' "$TOP/doc/library.md"
  echo 'confine_run_free(run); confine_request_free(req); return status; }'; } >"$T/example.c"
cc -std=c17 -Wall -Wextra -Werror -I"$TOP/include" -o "$T/example" "$T/example.c" \
  -L"$BUILD/src/lib" -l:libconfine.so.1 >"$T/cc.log" 2>&1
ok $? "doc/library.md's example compiles and links against confine.h and libconfine.so.1"
[ -s "$T/cc.log" ] && diag "$(head -5 "$T/cc.log")"

done_testing
