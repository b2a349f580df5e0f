#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# R38: the allow-list of the display escape is the one the Unicode data files give (Debian's
# unicode-data, /usr/share/unicode): the committed table is what scripts/gen-display-table makes
# from them, and confine_display_escape leaves exactly those code points as they are, every one
# of the 1,112,064 checked (tests/tools/display-dump).
source "$(dirname "$0")/../../lib.sh"
ucd=${CONFINE_UNICODE_DIR:-/usr/share/unicode}
if [ ! -f "$ucd/UnicodeData.txt" ] || [ ! -f "$ucd/DerivedCoreProperties.txt" ]; then
	skip "the Unicode data files are not installed ($ucd; Debian: apt-get install unicode-data)"
	done_testing
fi
"$TOP/scripts/gen-display-table" "$ucd" >"$T/table.c"
diff -u "$TOP/src/lib/util/display_table.c" "$T/table.c" >"$T/table.diff"
ok $? "R38 src/lib/util/display_table.c is the table the Unicode data files of this machine give"
[ -s "$T/table.diff" ] && diag "$(head -20 "$T/table.diff")" "regenerate it: scripts/gen-display-table >src/lib/util/display_table.c"
"$TOP/scripts/gen-display-table" --list "$ucd" >"$T/want"
"$FIX/display-dump" >"$T/got"
ok $? "display-dump ran"
cmp -s "$T/want" "$T/got"
ok $? "R38 the escape leaves exactly the visible code points of the data files as they are ($(wc -l <"$T/want") of them)"
cmp -s "$T/want" "$T/got" || diag "$(diff "$T/want" "$T/got" | head -10)"
# A member of each class the table must not hold, looked up in the data files themselves.
for cp in 200B 202E 2066 00AD FEFF 3164 115F FE0F E0041 E0100 180B 00A0 2028 2800 E000 0378; do
	grep -qx "$cp" "$T/want"
	[ $? -ne 0 ]
	ok $? "R38 U+$cp is not on the allow-list"
done
done_testing
