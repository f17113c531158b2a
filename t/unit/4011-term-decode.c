// SPDX-License-Identifier: GPL-2.0
/*
 * scx-top's key decoder, every final byte: the cursor keys, Home and End
 * that CSI and SS3 share, SS3's F1-F4, CSI's back-tab and its "n~" keys
 * (VT220 and xterm numbering), and what is not a key: unknown finals and
 * numbers, broken and unterminated sequences, UTF-8 and control bytes.
 */
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "top/term.h"
#include "tap.h"

static int decode(const char *s, size_t len, size_t *used)
{
	int k;

	*used = scx_term_decode((const unsigned char *)s, len, &k);
	return k;
}

/* the key of a final byte shared by CSI and SS3, else SCX_KEY_NONE */
static int shared_final(int c)
{
	switch (c) {
	case 'A':
		return SCX_KEY_UP;
	case 'B':
		return SCX_KEY_DOWN;
	case 'C':
		return SCX_KEY_RIGHT;
	case 'D':
		return SCX_KEY_LEFT;
	case 'H':
		return SCX_KEY_HOME;
	case 'F':
		return SCX_KEY_END;
	}
	return SCX_KEY_NONE;
}

static void test_finals(void)
{
	int bad_ss3 = 0, bad_csi = 0, bad_mod = 0;

	for (int c = 0x40; c <= 0x7e; c++) {
		char s[8];
		size_t n;
		int want = shared_final(c), k;

		snprintf(s, sizeof(s), "\033O%c", c);
		k = decode(s, 3, &n);
		if (k != (c >= 'P' && c <= 'S' ? SCX_KEY_F1 + c - 'P' : want) || n != 3) {
			bad_ss3++;
			printf("# SS3 %c: key %d, %zu bytes\n", c, k, n);
		}
		snprintf(s, sizeof(s), "\033[%c", c);
		k = decode(s, 3, &n);
		if (k != (c == 'Z' ? SCX_KEY_TAB : c == '~' ? SCX_KEY_NONE : want) || n != 3) {
			bad_csi++;
			printf("# CSI %c: key %d, %zu bytes\n", c, k, n);
		}
		/* a modifier after ';' changes nothing */
		snprintf(s, sizeof(s), "\033[1;5%c", c);
		k = decode(s, 6, &n);
		if (k != (c == 'Z' ? SCX_KEY_TAB : c == '~' ? SCX_KEY_HOME : want) || n != 6) {
			bad_mod++;
			printf("# CSI 1;5%c: key %d, %zu bytes\n", c, k, n);
		}
	}
	is_int(bad_ss3, 0, "every SS3 final byte");
	is_int(bad_csi, 0, "every CSI final byte");
	is_int(bad_mod, 0, "every CSI final byte after a modifier");
}

static void test_tilde(void)
{
	static const struct {
		int n, key;
	} keys[] = {
		{ 1, SCX_KEY_HOME },	{ 7, SCX_KEY_HOME },	 { 4, SCX_KEY_END },
		{ 8, SCX_KEY_END },	{ 5, SCX_KEY_PGUP },	 { 6, SCX_KEY_PGDN },
		{ 11, SCX_KEY_F1 },	{ 12, SCX_KEY_F1 + 1 },	 { 13, SCX_KEY_F1 + 2 },
		{ 14, SCX_KEY_F1 + 3 }, { 15, SCX_KEY_F1 + 4 },	 { 17, SCX_KEY_F1 + 5 },
		{ 18, SCX_KEY_F1 + 6 }, { 19, SCX_KEY_F1 + 7 },	 { 20, SCX_KEY_F1 + 8 },
		{ 21, SCX_KEY_F1 + 9 }, { 23, SCX_KEY_F1 + 10 }, { 24, SCX_KEY_F1 + 11 },
	};
	int bad = 0;

	for (int p = 0; p <= 1000; p++) {
		char s[16];
		int want = SCX_KEY_NONE, k;
		size_t n, len = (size_t)snprintf(s, sizeof(s), "\033[%d~", p);

		for (size_t i = 0; i < SCX_ARRAY_SIZE(keys); i++)
			if (keys[i].n == p)
				want = keys[i].key;
		k = decode(s, len, &n);
		if (k != want || n != len) {
			bad++;
			printf("# CSI %d~: key %d, %zu bytes\n", p, k, n);
		}
	}
	is_int(bad, 0, "CSI n~ for n from 0 to 1000");
}

static void test_not_keys(void)
{
	size_t n;

	is_int(decode("\033[12345678901~", 14, &n), SCX_KEY_NONE, "a huge number is no key");
	is_int(n, 14, "and is swallowed whole");
	is_int(decode("\033[12", 4, &n), SCX_KEY_NONE, "an unterminated CSI");
	is_int(n, 4, "is swallowed to the end of the read");
	is_int(decode("\033[1\001A", 5, &n), SCX_KEY_NONE, "a control byte breaks a CSI");
	is_int(n, 3, "and what came before it is dropped");
	is_int(decode("\033O", 2, &n), SCX_KEY_ESC, "ESC O cut short is Esc");
	is_int(n, 1, "one byte");
	is_int(decode("\033Oz", 3, &n), SCX_KEY_NONE, "SS3 with an unknown final");
	is_int(n, 3, "is three bytes");
	is_int(decode("\033\033[A", 4, &n), SCX_KEY_ESC, "ESC ESC: the first is Esc");
	is_int(n, 1, "one byte");
	is_int(decode("\t", 1, &n), SCX_KEY_TAB, "Tab");
	is_int(decode("\n", 1, &n), SCX_KEY_ENTER, "LF is Enter");
	is_int(decode("\b", 1, &n), SCX_KEY_BACKSPACE, "BS is Backspace");
	is_int(decode("\001", 1, &n), SCX_KEY_NONE, "another control byte is no key");
	is_int(n, 1, "one byte");
	is_int(decode("\xf0\x9f\x98\x80x", 5, &n), SCX_KEY_NONE, "a 4-byte UTF-8 character");
	is_int(n, 4, "is swallowed, the next byte kept");
	is_int(decode("\xe2\x82", 2, &n), SCX_KEY_NONE, "a cut UTF-8 character");
	is_int(n, 2, "is swallowed to the end of the read");
	is_int(decode("", 0, &n), SCX_KEY_NONE, "nothing");
	is_int(n, 0, "uses nothing");
}

int main(void)
{
	test_finals();
	test_tilde();
	test_not_keys();
	return done_testing();
}
