/* SPDX-License-Identifier: MIT */
/*
 * R38: confine_display_escape shows every code point outside the allow-list of visibly
 * printable characters as an escape.  A member of each class of invisible or misleading
 * character, and visible text of several scripts that must stay as it is.  (display.t checks
 * the table itself against the Unicode data files, every code point.)
 */
#include <stdlib.h>
#include <string.h>

#include "confine.h"
#include "util/utf8.h"
#include "../tap.h"

/* The escaped copy, through the public call; NULL when it failed. */
static char *escaped(const char *in, unsigned flags)
{
	char *got = NULL;
	return confine_display_escape(in, flags, &got, NULL) == 0 ? got : NULL;
}

static void esc(const char *in, unsigned flags, const char *want, const char *what)
{
	char *got = escaped(in, flags);
	TAP_STREQ(got, want, "R38 %s", what);
	confine_free(got);
}

static void test_invisible(void)
{
	/* controls */
	esc("a\nb", 0, "a\\x0ab", "C0 control: newline");
	esc("\x1b[2J", 0, "\\x1b[2J", "C0 control: ESC (a terminal sequence)");
	esc("a\x7f", 0, "a\\x7f", "DEL");
	esc("a\xc2\x85", 0, "a\\u{0085}", "C1 control: NEL");
	esc("\xc2\x9b"
	    "2J",
	    0, "\\u{009B}2J", "C1 control: CSI");
	/* format characters and default-ignorables */
	esc("./ru\xe2\x80\x8bn.sh", 0, "./ru\\u{200B}n.sh", "format: ZERO WIDTH SPACE");
	esc("a\xe2\x80\x8c\xe2\x80\x8d", 0, "a\\u{200C}\\u{200D}", "format: ZWNJ, ZWJ");
	esc("a\xe2\x81\xa0", 0, "a\\u{2060}", "format: WORD JOINER");
	esc("\xef\xbb\xbfrun", 0, "\\u{FEFF}run", "format: BYTE ORDER MARK");
	esc("pass\xc2\xadwd", 0, "pass\\u{00AD}wd", "format: SOFT HYPHEN");
	esc("a\xe1\xa0\x8e", 0, "a\\u{180E}", "format: MONGOLIAN VOWEL SEPARATOR");
	esc("a\xe2\x81\xa4", 0, "a\\u{2064}", "format: INVISIBLE PLUS");
	/* bidirectional controls */
	esc("x\xe2\x80\xaeHS.nur", 0, "x\\u{202E}HS.nur", "bidi: RIGHT-TO-LEFT OVERRIDE");
	esc("\xe2\x81\xa6x\xe2\x81\xa9", 0, "\\u{2066}x\\u{2069}", "bidi: isolates");
	esc("\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c", 0, "\\u{200E}\\u{200F}\\u{061C}", "bidi: marks");
	/* fillers (letters by category, default-ignorable) */
	esc("a\xe3\x85\xa4", 0, "a\\u{3164}", "filler: HANGUL FILLER");
	esc("a\xef\xbe\xa0", 0, "a\\u{FFA0}", "filler: HALFWIDTH HANGUL FILLER");
	esc("a\xe1\x85\x9f\xe1\x85\xa0", 0, "a\\u{115F}\\u{1160}",
	    "filler: HANGUL CHOSEONG/JUNGSEONG");
	esc("a\xe2\xa0\x80", 0, "a\\u{2800}", "filler: BRAILLE PATTERN BLANK");
	esc("a\xcd\x8f", 0, "a\\u{034F}", "combining grapheme joiner");
	esc("a\xe1\x9e\xb4", 0, "a\\u{17B4}", "KHMER VOWEL INHERENT AQ");
	/* variation selectors and tags */
	esc("a\xef\xb8\x8f", 0, "a\\u{FE0F}", "variation selector 16");
	esc("a\xf3\xa0\x84\x80", 0, "a\\u{E0100}", "variation selector 17");
	esc("a\xe1\xa0\x8b", 0, "a\\u{180B}", "Mongolian free variation selector");
	esc("a\xf3\xa0\x80\x81\xf3\xa0\x81\x81", 0, "a\\u{E0001}\\u{E0041}", "tag characters");
	/* separators other than U+0020 */
	esc("a\xc2\xa0"
	    "b",
	    0, "a\\u{00A0}b", "space: NO-BREAK SPACE");
	esc("a\xe2\x80\x80"
	    "b",
	    0, "a\\u{2000}b", "space: EN QUAD");
	esc("a\xe3\x80\x80"
	    "b",
	    0, "a\\u{3000}b", "space: IDEOGRAPHIC SPACE");
	esc("a\xe2\x80\xaf"
	    "b",
	    0, "a\\u{202F}b", "space: NARROW NO-BREAK SPACE");
	esc("a\xe2\x80\xa8\xe2\x80\xa9", 0, "a\\u{2028}\\u{2029}", "line and paragraph separators");
	/* private use, unassigned, not UTF-8 */
	esc("a\xee\x80\x80\xf3\xb0\x80\x80", 0, "a\\u{E000}\\u{F0000}", "private use");
	esc("a\xcd\xb8\xf4\x8f\xbf\xbf", 0, "a\\u{0378}\\u{10FFFF}", "unassigned, noncharacter");
	esc("a\xed\xa0\x80", 0, "a\\xed\\xa0\\x80", "a surrogate (not UTF-8): bytes");
	esc("a\xc0\xaf\xff", 0, "a\\xc0\\xaf\\xff", "overlong and invalid bytes");
	esc("a\\x41", 0, "a\\\\x41", "a backslash is doubled: an escape cannot be faked");
}

static void test_visible(void)
{
	esc("run.sh --flag='a b' \"c\"", 0, "run.sh --flag='a b' \"c\"", "ASCII stays");
	esc("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xd0\x9c\xd0\xbe\xd1\x81\xd0\xba\xd0\xb2\xd0\xb0",
	    0,
	    "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xd0\x9c\xd0\xbe\xd1\x81\xd0\xba\xd0\xb2\xd0\xb0",
	    "letters of other scripts stay");
	esc("u\xcc\x88 \xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d \xf0\x9f\x98\x80", 0,
	    "u\xcc\x88 \xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d \xf0\x9f\x98\x80",
	    "a combining mark, Hebrew, an emoji stay");
}

static void test_flags(void)
{
	esc("it's \"x\"", CONFINE_DISPLAY_QUOTES, "it\\'s \\\"x\\\"", "QUOTES escapes ' and \"");
	esc("./r\xd1\x83n.sh", 0, "./r\xd1\x83n.sh", "a Cyrillic u stays by default");
	esc("./r\xd1\x83n.sh", CONFINE_DISPLAY_ASCII, "./r\\u{0443}n.sh",
	    "ASCII shows the Cyrillic u that looks like a Latin one");
	char *n = NULL;
	TAP_INTEQ(confine_display_escape_n("a\0b", 3, 0, &n, NULL), 0, "escape_n returns 0");
	TAP_STREQ(n, "a\\x00b", "R38 escape_n shows an embedded NUL");
	confine_free(n);
	n = escaped(NULL, 0);
	TAP_STREQ(n, "", "R38 NULL is shown as nothing");
	confine_free(n);
	char *a = escaped("./ru\xe2\x80\x8bn.sh", 0);
	char *b = escaped("./run.sh", 0);
	TAP_OK(a && b && strcmp(a, b) != 0,
	       "R38 ./ru<U+200B>n.sh and ./run.sh are shown differently");
	confine_free(a);
	confine_free(b);
	/* ABI v1: a flag outside the enum is refused, not ignored. */
	struct confine_error err = {0};
	n = (char *)"untouched";
	TAP_INTEQ(confine_display_escape("x", 4, &n, &err), CONFINE_E_INVALID,
		  "an unknown flag is CONFINE_E_INVALID");
	TAP_OK(n == NULL && err.code == CONFINE_E_INVALID, "with *out NULL and err filled");
	/* Confine's own flag for Windows paths: the separator as it is, the rest escaped. */
	char *w = cf_display_escape("C:\\Users\\a\xe2\x80\xae"
				    "b",
				    CF_DISPLAY_BACKSLASH_RAW);
	TAP_STREQ(w, "C:\\Users\\a\\u{202E}b",
		  "BACKSLASH_RAW keeps the separator, escapes the rest");
	free(w);
	TAP_INTEQ(confine_display_escape("x", CF_DISPLAY_BACKSLASH_RAW, &n, NULL),
		  CONFINE_E_INVALID, "the public function refuses confine's own flag");
	/* A Windows path: escapes in a form no Windows name can hold ('<' and '>' are refused
	 * there), so C:\a<U+202E> and a name holding the text \u{202E} read differently. */
	w = cf_display_escape("C:\\a\xe2\x80\xae\x1b\xff", CF_DISPLAY_WINDOWS);
	TAP_STREQ(w, "C:\\a<U+202E><0x1b><0xff>",
		  "CF_DISPLAY_WINDOWS: the separator as it is, every escape in angle brackets");
	free(w);
	TAP_INTEQ(confine_display_escape("x", CF_DISPLAY_ANGLE, &n, NULL), CONFINE_E_INVALID,
		  "the public function refuses it too");
}

int main(void)
{
	test_invisible();
	test_visible();
	test_flags();
	return tap_done();
}
