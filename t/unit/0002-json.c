// SPDX-License-Identifier: GPL-2.0
/* lib/json/json.c: the writer's escaping and the strict reader. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "json/json-int.h"
#include "tap.h"
#include "core/util.h"

static const char *esc(const char *s, size_t n)
{
	static struct scx_buf b;

	b.len = 0;
	scx_json_escape(&b, s, n);
	scx_buf_add(&b, "", 1);
	return b.data;
}

static int parse(struct scx_json_doc *d, const char *s)
{
	return scx_json_parse(d, s, strlen(s));
}

static void writer(void)
{
	struct scx_buf b = { 0 };
	struct scx_jw w;

	is_str(esc("a\"b\\c/", 6), "\"a\\\"b\\\\c/\"", "quote and backslash escaped");
	is_str(esc("\n\t\r\b\f\x01\x1f\x7f", 8), "\"\\n\\t\\r\\b\\f\\u0001\\u001f\x7f\"",
	       "control characters escaped");
	is_str(esc("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14),
	       "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"", "valid UTF-8 kept");
	is_str(esc("a\xff"
		   "b\xc3",
		   4),
	       "\"a\xef\xbf\xbd"
	       "b\xef\xbf\xbd\"",
	       "invalid bytes and a cut sequence become U+FFFD");
	is_str(esc("\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80", 9),
	       "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
	       "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"",
	       "overlong, surrogate and >U+10FFFF rejected byte by byte");
	is_str(esc("a\0b", 3), "\"a\\u0000b\"", "NUL escaped");

	scx_jw_init(&w, &b);
	scx_jw_obj_begin(&w);
	scx_jw_kstr(&w, "s", "x");
	scx_jw_kint(&w, "i", INT64_MIN);
	scx_jw_kuint(&w, "u", UINT64_MAX);
	scx_jw_kdouble(&w, "d", 0.5);
	scx_jw_kdouble(&w, "nan", 0.0 / 0.0);
	scx_jw_knum(&w, "ms", 649.54115899999999);
	scx_jw_knum(&w, "inf", 1.0 / 0.0);
	scx_jw_kbool(&w, "b", false);
	scx_jw_key(&w, "a");
	scx_jw_arr_begin(&w);
	scx_jw_int(&w, 1);
	scx_jw_null(&w);
	scx_jw_arr_begin(&w);
	scx_jw_arr_end(&w);
	scx_jw_obj_begin(&w);
	scx_jw_obj_end(&w);
	scx_jw_raw(&w, "{\"r\":1}", 7);
	scx_jw_arr_end(&w);
	scx_jw_obj_end(&w);
	scx_buf_add(&b, "", 1);
	is_str(b.data,
	       "{\"s\":\"x\",\"i\":-9223372036854775808,\"u\":18446744073709551615,\"d\":0.5,"
	       "\"nan\":null,\"ms\":649.541159,\"inf\":null,\"b\":false,\"a\":[1,null,[],{},{\"r\":1}]}",
	       "writer output with commas in the right places");
	scx_buf_free(&b);
}

static void reader_ok(void)
{
	struct scx_json_doc d = { 0 };
	int64_t i;
	uint64_t u;
	double x;
	bool bo;
	char buf[64];

	ok(!parse(&d, " {\"a\" : [1, -2, 3.5e2, true, null, \"x\"], \"b\":{\"c\":{}} } "),
	   "whitespace everywhere is fine");
	int a = scx_json_get(&d, 0, "a");
	ok(a > 0 && d.tok[a].type == JSMN_ARRAY, "get array");
	ok(!scx_json_int(&d, scx_json_at(&d, a, 1), &i) && i == -2, "element 1 is -2");
	ok(!scx_json_double(&d, scx_json_at(&d, a, 2), &x) && x == 350.0, "3.5e2");
	is_int(scx_json_int(&d, scx_json_at(&d, a, 2), &i), -EINVAL, "3.5e2 is not an int");
	ok(!scx_json_bool(&d, scx_json_at(&d, a, 3), &bo) && bo, "true");
	ok(scx_json_is_null(&d, scx_json_at(&d, a, 4)), "null");
	ok(scx_json_eq(&d, scx_json_at(&d, a, 5), "x"), "string element");
	is_int(scx_json_at(&d, a, 6), -1, "past the end");
	int b = scx_json_get(&d, 0, "b");
	ok(scx_json_get(&d, b, "c") > 0, "nested get");
	is_int(scx_json_get(&d, 0, "zz"), -1, "missing key");
	is_int(scx_json_next(&d, a), a + 7, "next skips the whole array");

	/* keys compare after unescaping: raw length alone decides nothing */
	ok(!parse(&d, "{\"a\\u0062\":1,\"c\\\\n\":2,\"x\\ty\":3,\"\\u00e9\":4,\"ab\":5}"),
	   "keys with escapes");
	is_int(scx_json_get(&d, 0, "ab"), 2, "a\\u0062 is ab, and found first");
	ok(scx_json_key_eq(&d, 3, "c\\n", 3), "c\\\\n is c, backslash, n");
	ok(!scx_json_key_eq(&d, 3, "c\\\\n", 4), "not its raw text");
	ok(!scx_json_key_eq(&d, 3, "c\n", 2), "nor c, LF");
	ok(scx_json_key_eq(&d, 5, "x\ty", 3) && !scx_json_key_eq(&d, 5, "x\\ty", 4),
	   "x\\ty is x, tab, y");
	ok(scx_json_key_eq(&d, 7, "\xc3\xa9", 2) && !scx_json_key_eq(&d, 7, "\\u00e9", 6),
	   "\\u00e9 is its UTF-8, not its raw text");
	ok(!scx_json_key_eq(&d, 1, "a", 1) && !scx_json_key_eq(&d, 1, "abc", 3),
	   "shorter and longer keys differ");
	is_int(scx_json_get(&d, 0, "\xc3\xa9"), 8, "get through an escaped key");

	/* 01 is not JSON: the whole document is rejected */
	is_int(parse(&d, "[9223372036854775807,-9223372036854775808,18446744073709551615,"
			 "9223372036854775808,-9223372036854775809,18446744073709551616,-0,01]"),
	       -EINVAL, "a leading zero after good numbers rejects the text");
	is_int(parse(&d, "[01]"), -EINVAL, "leading zero rejected");
	ok(!parse(&d, "[9223372036854775807,-9223372036854775808,18446744073709551615,"
		      "9223372036854775808,-9223372036854775809,18446744073709551616,-0]"),
	   "edge numbers parse");
	ok(!scx_json_int(&d, d.tok[0].size ? 1 : 0, &i) && i == INT64_MAX, "INT64_MAX");
	ok(!scx_json_int(&d, 2, &i) && i == INT64_MIN, "INT64_MIN");
	ok(!scx_json_uint(&d, 3, &u) && u == UINT64_MAX, "UINT64_MAX");
	is_int(scx_json_int(&d, 3, &i), -ERANGE, "UINT64_MAX is out of int64 range");
	ok(!scx_json_uint(&d, 4, &u) && u == 9223372036854775808ull, "2^63 as uint");
	is_int(scx_json_int(&d, 4, &i), -ERANGE, "2^63 out of int64 range");
	is_int(scx_json_int(&d, 5, &i), -ERANGE, "-2^63-1 out of range");
	is_int(scx_json_uint(&d, 5, &u), -ERANGE, "negative uint out of range");
	is_int(scx_json_uint(&d, 6, &u), -ERANGE, "2^64 out of range");
	ok(!scx_json_uint(&d, 7, &u) && u == 0, "-0 is 0");

	ok(!parse(&d, "[\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\", \"\\u00e9\\u20ac\\ud83d\\ude00\","
		      "\"\\ud800\", \"\\udc00x\", \"\\u0041\", \"\\u00ff\"]"),
	   "escapes parse");
	is_int(scx_json_str(&d, 1, buf, sizeof(buf)), 9, "simple escapes decode to 9 bytes");
	ok(!memcmp(buf, "a\"\\/\b\f\n\r\t", 9), "simple escapes decoded");
	is_int(scx_json_str(&d, 2, buf, sizeof(buf)), 9, "BMP and surrogate pair");
	is_str(buf, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "surrogate pair becomes U+1F600");
	is_int(scx_json_str(&d, 3, buf, sizeof(buf)), -EINVAL, "lone high surrogate");
	is_int(scx_json_str(&d, 4, buf, sizeof(buf)), -EINVAL, "lone low surrogate");
	is_int(scx_json_str(&d, 5, buf, 1), 1, "truncated output still reports the length");
	is_str(buf, "", "truncated to size-1 bytes");
	is_int(scx_json_str(&d, 6, buf, sizeof(buf)), 2, "\\u00ff is UTF-8 in general strings");
	char *s = scx_json_strdup(&d, 2);
	is_str(s, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "strdup");
	free(s);
	/*
	 * The one text both readers accept that RFC 8259 does not: a raw tab, CR
	 * or LF inside a string (jsmn lets them through).  The tokens are read;
	 * the string's value is refused.
	 */
	ok(!parse(&d, "[\"a\tb\",\"\r\n\"]") && d.ntok == 3,
	   "raw tab, CR, LF in strings tokenized");
	is_int(scx_json_str(&d, 1, buf, sizeof(buf)), -EINVAL, "a raw tab has no value");
	is_int(scx_json_str(&d, 2, buf, sizeof(buf)), -EINVAL, "nor a raw CR LF");

	/* more tokens than the initial array: grown on JSMN_ERROR_NOMEM */
	struct scx_buf big = { 0 };
	scx_buf_addstr(&big, "[");
	for (int k = 0; k < 5000; k++)
		scx_buf_printf(&big, "%s{\"k\":%d}", k ? "," : "", k);
	scx_buf_addstr(&big, "]");
	ok(!scx_json_parse(&d, big.data, big.len), "15001 tokens parse");
	ok(!scx_json_int(&d, scx_json_get(&d, scx_json_at(&d, 0, 4999), "k"), &i) && i == 4999,
	   "last element after growth");
	is_int(d.ntok, 15001, "every token counted");
	/* a document reused for a bigger one grows again */
	scx_buf_addstr(&big, " ");
	big.data[big.len - 2] = ',';
	big.data[big.len - 1] = '[';
	for (int k = 0; k < 20000; k++)
		scx_buf_printf(&big, "%s%d", k ? "," : "", k);
	scx_buf_addstr(&big, "]]");
	ok(!scx_json_parse(&d, big.data, big.len) && d.ntok == 35002,
	   "a reused document grows to 35002 tokens");
	ok(!scx_json_int(&d, scx_json_at(&d, scx_json_at(&d, 0, 5000), 19999), &i) && i == 19999,
	   "last element after regrowth");
	scx_buf_free(&big);
	scx_json_free(&d);
}

static void reader_bad(void)
{
	static const struct {
		const char *js;
		size_t off;
		const char *what;
	} bad[] = {
		{ "", 0, "empty" },
		{ "{\"a\":1", 6, "unterminated object" },
		{ "[1 2]", 3, "missing comma" },
		{ "{\"a\":1 \"b\":2}", 7, "missing comma between members" },
		{ "{\"a\" 1}", 5, "missing colon" },
		{ "{\"a\":1,}", 7, "trailing comma (where the key should be)" },
		{ "[,1]", 1, "leading comma" },
		{ "{1:2}", 1, "number key" },
		{ "[nul]", 1, "bad literal" },
		{ "[1.]", 1, "bad number" },
		{ "[1x]", 1, "junk in number" },
		{ "{} {}", 3, "two documents" },
		{ "[\"a\"] x", 6, "trailing junk" },
		{ "[\"a\xff\"]", 3, "invalid UTF-8" },
		{ "[\"a\x01\"]", 3, "control character" },
		{ "[\"\\q\"]", 1, "bad escape (jsmn)" },
		{ "[\"a\":1]", 4, "colon in array" },
		{ "[1 :2]", 3, "colon after a number" },
		{ "3\r:26\r", 2, "colon after a top-level number (found by the fuzzer)" },
	};
	struct scx_json_doc d = { 0 };

	for (size_t k = 0; k < SCX_ARRAY_SIZE(bad); k++) {
		int r = scx_json_parse(&d, bad[k].js, strlen(bad[k].js));
		ok(r == -EINVAL && d.err, "rejected: %s", bad[k].what);
		is_int(d.err_off, bad[k].off, "offset of: %s (%s)", bad[k].what,
		       d.err ? d.err : "");
	}
	ok(scx_json_parse(&d, "[\"a\0b\"]", 7) == -EINVAL && d.err_off == 3, "NUL byte at 3");

	/* deep nesting: at the limit fine, one more rejected, a million fails fast */
	struct scx_buf b = { 0 };
	for (int k = 0; k < SCX_JSON_MAX_DEPTH; k++)
		scx_buf_add(&b, "[", 1);
	for (int k = 0; k < SCX_JSON_MAX_DEPTH; k++)
		scx_buf_add(&b, "]", 1);
	ok(!scx_json_parse(&d, b.data, b.len), "depth %d accepted", SCX_JSON_MAX_DEPTH);
	b.len = 0;
	for (int k = 0; k <= SCX_JSON_MAX_DEPTH; k++)
		scx_buf_add(&b, "{\"a\":", 5);
	scx_buf_add(&b, "1", 1);
	for (int k = 0; k <= SCX_JSON_MAX_DEPTH; k++)
		scx_buf_add(&b, "}", 1);
	ok(scx_json_parse(&d, b.data, b.len) == -EINVAL && !strcmp(d.err, "nesting too deep") &&
		   d.err_off == 5 * SCX_JSON_MAX_DEPTH,
	   "depth %d rejected at its bracket", SCX_JSON_MAX_DEPTH + 1);
	b.len = 0;
	for (int k = 0; k < 1000000; k++)
		scx_buf_add(&b, "[", 1);
	ok(scx_json_parse(&d, b.data, b.len) == -EINVAL && !strcmp(d.err, "nesting too deep") &&
		   d.cap <= 2048,
	   "a million brackets rejected without a million tokens");
	scx_buf_free(&b);
	scx_json_free(&d);
}

/* ---- the one-pass reader against the reference (jsmn and its checks) ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd64(void)
{
	return scx_xorshift64(&rng);
}

static unsigned rnd(unsigned n)
{
	return (unsigned)(rnd64() % n);
}

static void ws(struct scx_buf *b)
{
	static const char *const w[] = { "", "", "", " ", "\n", "\t ", "\r\n  " };

	const char *p = w[rnd(7)];

	scx_buf_add(b, p, strlen(p));
}

/* A JSON number: sign, integer part, fraction and exponent, each at random. */
static void gen_number(struct scx_buf *b)
{
	unsigned ni = 1 + rnd(rnd(4) ? 6 : 25), nf = rnd(3) ? 0 : 1 + rnd(20);

	if (rnd(3) == 0)
		scx_buf_add(b, "-", 1);
	if (rnd(5) == 0) {
		scx_buf_add(b, "0", 1);
	} else {
		scx_buf_printf(b, "%c", '1' + rnd(9));
		for (unsigned i = 1; i < ni; i++)
			scx_buf_printf(b, "%c", '0' + rnd(10));
	}
	if (nf) {
		scx_buf_add(b, ".", 1);
		for (unsigned i = 0; i < nf; i++)
			scx_buf_printf(b, "%c", '0' + rnd(10));
	}
	if (rnd(3) == 0) {
		static const char *const e[] = { "e", "E", "e+", "E-", "e-" };

		scx_buf_printf(b, "%s%u", e[rnd(5)], rnd(2) ? rnd(30) : rnd(400));
	}
}

/*
 * The inside of a string up to ~1000 bytes long: plain runs, every escape,
 * \u escapes (surrogates too: the reader does not pair them), UTF-8 and the
 * raw tab, CR and LF that jsmn lets through.
 */
static void gen_string(struct scx_buf *b)
{
	static const char *const piece[] = {
		"sched_switch",
		" ",
		"\\\"",
		"\\\\",
		"\\/",
		"\\b",
		"\\f",
		"\\n",
		"\\r",
		"\\t",
		"\\u0000",
		"\\u00e9",
		"\\uD83D\\uDE00",
		"\\udc00",
		"\\uABCD",
		"\xc3\xa9",
		"\xe2\x82\xac",
		"\xf0\x9f\x98\x80",
		"\t",
		"\r\n",
		"{}[],:",
		"x",
	};
	unsigned n = rnd(rnd(4) ? 8 : 120);

	for (unsigned i = 0; i < n; i++) {
		const char *p = piece[rnd(SCX_ARRAY_SIZE(piece))];

		scx_buf_add(b, p, strlen(p));
	}
}

static void gen_value(struct scx_buf *b, int depth)
{
	static const char *const prim[] = {
		"0",
		"-0",
		"1",
		"-1",
		"12",
		"1.5",
		"-1.5e3",
		"2.5E-3",
		"1e308",
		"1e309",
		"0.1",
		"123456789012345678901234567890",
		"9007199254740993",
		"true",
		"false",
		"null",
	};
	static const char *const str[] = {
		"",
		"a",
		"type",
		"\\n",
		"\\\"",
		"\\\\",
		"\\/",
		"\\u00e9",
		"\\uD83D\\uDE00",
		"\xc3\xa9",
		"\xf0\x9f\x98\x80",
		"kworker/0:1",
		"\t",
		",:[]{}",
	};
	unsigned k = depth > 4 ? rnd(2) + 2 : rnd(4);

	ws(b);
	if (k == 0 || k == 1) {
		bool obj = k == 0;
		unsigned n = rnd(5);

		scx_buf_add(b, obj ? "{" : "[", 1);
		for (unsigned i = 0; i < n; i++) {
			if (i)
				scx_buf_add(b, ",", 1);
			if (obj) {
				ws(b);
				scx_buf_printf(b, "\"%s%u\"", str[rnd(14)], i);
				ws(b);
				scx_buf_add(b, ":", 1);
			}
			gen_value(b, depth + 1);
		}
		ws(b);
		scx_buf_add(b, obj ? "}" : "]", 1);
	} else if (k == 2) {
		scx_buf_add(b, "\"", 1);
		if (rnd(4))
			scx_buf_printf(b, "%s%s", str[rnd(14)], str[rnd(14)]);
		else
			gen_string(b);
		scx_buf_add(b, "\"", 1);
	} else if (rnd(2)) {
		scx_buf_printf(b, "%s", prim[rnd(16)]);
	} else {
		gen_number(b);
	}
	ws(b);
}

/*
 * A value inside arrays and objects nested 58 to 69 deep: the limit
 * (SCX_JSON_MAX_DEPTH, 64) either way, with siblings at some levels.
 */
static void gen_deep(struct scx_buf *b)
{
	unsigned n = 58 + rnd(12);
	char close[80];

	for (unsigned i = 0; i < n; i++) {
		bool obj = rnd(2);

		if (i && close[i - 1] == ']' && rnd(4) == 0) {
			gen_value(b, 5);
			scx_buf_add(b, ",", 1);
		}
		scx_buf_add(b, obj ? "{\"k\":" : "[", obj ? 5 : 1);
		close[i] = obj ? '}' : ']';
	}
	gen_value(b, 5);
	while (n--) {
		if (rnd(4) == 0) {
			scx_buf_add(b, close[n] == '}' ? ",\"s\":" : ",", close[n] == '}' ? 5 : 1);
			gen_value(b, 5);
		}
		scx_buf_add(b, &close[n], 1);
	}
}

/*
 * scx_json_next() as it was defined before the reader kept next[]: the first
 * token that starts at or after the end of token i (a key's is its value).
 */
static int linear_next(const struct scx_json_doc *d, int i)
{
	int j = i + 1;

	while (j < d->ntok && d->tok[j].start < d->tok[i].end)
		j++;
	return j;
}

/* Same tokens, and the same scx_json_next() as the linear definition, for every token. */
static bool same_tokens(const struct scx_json_doc *a, const struct scx_json_doc *b)
{
	if (a->ntok != b->ntok)
		return false;
	for (int i = 0; i < a->ntok; i++) {
		const jsmntok_t *x = &a->tok[i], *y = &b->tok[i];

		if (x->type != y->type || x->start != y->start || x->end != y->end ||
		    x->size != y->size || x->parent != y->parent ||
		    scx_json_next(a, i) != scx_json_next(b, i) ||
		    scx_json_next(a, i) != linear_next(a, i))
			return false;
	}
	return scx_json_next(a, -1) == a->ntok && scx_json_next(a, a->ntok) == a->ntok;
}

/*
 * Do the readers agree on js?  The one difference allowed: jsmn in strict
 * mode wants a delimiter after a number or literal, so a text that is one
 * and ends with it ("3") is valid JSON it rejects; with a space after it,
 * both must read it alike.
 */
static bool agree(struct scx_json_doc *dn, struct scx_json_doc *dr, const char *js, size_t n,
		  unsigned *accepted)
{
	int rn = scx_json_parse(dn, js, n), rr = scx_json_parse_ref(dr, js, n);

	if (!rn && !rr) {
		++*accepted;
		return same_tokens(dn, dr);
	}
	if (rn && rr)
		return true;
	if (!rn && dn->tok[0].type == JSMN_PRIMITIVE && dn->tok[0].end == (int)n) {
		char *sp = scx_xmalloc(n + 1);
		bool ok;

		memcpy(sp, js, n);
		sp[n] = ' ';
		ok = !scx_json_parse_ref(dr, sp, n + 1) && same_tokens(dn, dr);
		free(sp);
		return ok;
	}
	fprintf(stderr, "# disagree (one-pass %d, reference %d: %s at %zu): %.*s\n", rn, rr,
		rn ? dn->err : dr->err, rn ? dn->err_off : dr->err_off, (int)n, js);
	return false;
}

static void reader_vs_reference(void)
{
	struct scx_json_doc dn = { 0 }, dr = { 0 };
	struct scx_buf b = { 0 };
	unsigned docs = 0, bad = 0, accepted = 0;
	static const char *const fixed[] = {
		"",
		" ",
		"3",
		"-0",
		"true",
		"nul",
		"\"a\"",
		"[]",
		"{}",
		"[1,2]",
		"{\"a\":[{}]}",
		"[1 2]",
		"{\"a\" 1}",
		"{\"a\":1,}",
		"[,1]",
		"[1,]",
		"{1:2}",
		"[\"\\q\"]",
		"[\"a",
		"[\"a\\",
		"[\"\\u12\"]",
		"{\"a\":}",
		"{\"a\"}",
		"[[[",
		"]",
		"1 2",
		"[1]x",
		"{\"a\":1}}",
		"[01]",
		"[-]",
		"[1e]",
		"[.5]",
		"[+1]",
		"[1.5e+3]",
		"[TRUE]",
		"[\"a\tb\"]",
		"{\"\r\n\":1}",
		"[\"\\u00E9\\uDC00\"]",
		"[\"\\u00g0\"]",
		"[1]\x01",
	};
	unsigned deep_in = 0, deep_out = 0;

	for (size_t k = 0; k < SCX_ARRAY_SIZE(fixed); k++, docs++)
		bad += !agree(&dn, &dr, fixed[k], strlen(fixed[k]), &accepted);
	for (int k = 0; k < 20000; k++) {
		size_t n;

		b.len = 0;
		if (k % 50 == 0)
			gen_deep(&b);
		else
			gen_value(&b, 0);
		n = b.len;
		bad += !agree(&dn, &dr, b.data, n, &accepted);
		docs++;
		if (k % 50 == 0) {
			deep_in += dn.ntok > 0;
			deep_out += dn.err && !strcmp(dn.err, "nesting too deep");
		}
		/* then a byte changed, inserted or removed */
		scx_buf_reserve(&b, 1);
		size_t at = n ? rnd((unsigned)n) : 0;
		/* JSON's own bytes, and bytes no JSON text holds outside a string */
		static const char mut[] = {
			'{',  '}',  '[', ']', ',',  ':',	'"',	    ' ',
			'\\', 'x',  '0', '-', 'e',  '.',	'1',	    't',
			'n',  '\t', 0,	 1,   0x7f, (char)0x80, (char)0xc3, (char)0xff,
		};
		switch (rnd(3)) {
		case 0:
			if (n)
				b.data[at] = mut[rnd(sizeof(mut))];
			break;
		case 1:
			memmove(b.data + at + 1, b.data + at, n - at);
			b.data[at] = mut[rnd(sizeof(mut))];
			n++;
			break;
		default:
			if (n) {
				memmove(b.data + at, b.data + at + 1, n - at - 1);
				n--;
			}
		}
		bad += !agree(&dn, &dr, b.data, n, &accepted);
		docs++;
	}
	is_int(bad, 0, "one-pass reader and reference agree on %u texts (%u accepted by both)",
	       docs, accepted);
	ok(accepted > docs / 2, "most of them valid JSON (%u of %u)", accepted, docs);
	ok(deep_in && deep_out, "nesting to the limit read (%u), past it refused (%u)", deep_in,
	   deep_out);
	scx_buf_free(&b);
	scx_json_free(&dn);
	scx_json_free(&dr);
}

/* Does the number txt read as strtod reads it, bit for bit? */
static bool as_strtod(struct scx_json_doc *d, const char *txt, unsigned *bad)
{
	double v = 0, w;

	if (scx_json_parse(d, txt, strlen(txt))) {
		printf("# not read: %s\n", txt);
		return false;
	}
	w = strtod(txt, NULL);
	if (scx_json_double(d, 0, &v) || memcmp(&v, &w, sizeof(v))) {
		if ((*bad)++ < 5)
			printf("# %s: %.17g, strtod %.17g\n", txt, v, w);
		return false;
	}
	return true;
}

/*
 * Texts at the fast path's edges: mantissas around 2^53 and of 19 or 20
 * digits, exponents around +-22, leading zeros after the dot and trailing
 * zeros before the exponent.
 */
static void edge_number(char *txt)
{
	char dig[24];
	uint64_t m;
	int nd, dot, o = 0;

	switch (rnd(4)) {
	case 0:
		m = (1ull << 53) - 20 + rnd(41);
		break;
	case 1:
		m = 1000000000000000000ull + rnd64() % 9000000000000000000ull;
		break;
	case 2:
		m = 1 + rnd(1000);
		break;
	default:
		m = 1 + rnd64() % (1ull << (1 + rnd(63)));
	}
	if (rnd(8) == 0 && m < UINT64_MAX / 10)
		m = m * 10 + rnd(10); /* 20 digits now and then */
	nd = sprintf(dig, "%" PRIu64, m);
	if (rnd(2))
		txt[o++] = '-';
	if (rnd(4) == 0) {
		/* 0.000ddd: the zeros are not significant digits */
		o += sprintf(txt + o, "0.%0*d%s", (int)rnd(25), 0, dig);
	} else {
		dot = rnd(nd + 1);
		if (dot == nd)
			txt[o++] = '0';
		memcpy(txt + o, dig, nd - dot);
		o += nd - dot;
		if (dot) {
			txt[o++] = '.';
			memcpy(txt + o, dig + nd - dot, dot);
			o += dot;
		}
	}
	if (rnd(4) == 0)
		o += sprintf(txt + o, "%0*d", 1 + (int)rnd(8), 0);
	if (rnd(4))
		o += sprintf(txt + o, "e%d", (rnd(2) ? -1 : 1) * (int)(16 + rnd(12)));
	txt[o] = 0;
}

/* Numbers read without strtod (the fast path) must be strtod's, bit for bit. */
static void doubles_vs_strtod(void)
{
	struct scx_json_doc d = { 0 };
	unsigned bad = 0, n = 0;
	char txt[96];

	for (int k = 0; k < 200000; k++) {
		int len = 1 + rnd(20), dot = rnd(len + 1), e = (int)rnd(61) - 30, o = 0;

		if (rnd(2))
			txt[o++] = '-';
		for (int i = 0; i < len; i++) {
			if (i == dot && i)
				txt[o++] = '.';
			/* no leading zero but a lone one: JSON's grammar */
			txt[o++] = (char)('0' +
					  (i == 0 ? (len > 1 && dot != 1 ? 1 + rnd(9) : rnd(10)) :
						    rnd(10)));
		}
		if (rnd(3))
			o += sprintf(txt + o, "%s%d", rnd(2) ? "e" : "E", e);
		txt[o] = 0;
		n += as_strtod(&d, txt, &bad);
	}
	is_int(bad, 0, "%u numbers read as strtod reads them, bit for bit", n);
	bad = n = 0;
	for (int k = 0; k < 200000; k++) {
		edge_number(txt);
		n += as_strtod(&d, txt, &bad);
	}
	is_int(bad, 0, "%u numbers at the fast path's edges read as strtod reads them", n);
	static const char *const fixed[] = {
		"9007199254740992",
		"9007199254740993",
		"-9007199254740993e-22",
		"9007199254740992e22",
		"1e22",
		"1e23",
		"1e-22",
		"1e-23",
		"0.1",
		"1e308",
		"1.7976931348623157e308",
		"4.9e-324",
		"2.2250738585072014e-308",
		"9999999999999999999",
		"18446744073709551615",
		"18446744073709551616",
		"0.000000000000000000000000000001",
		"123456789012345678e-3",
	};
	bad = n = 0;
	for (size_t k = 0; k < SCX_ARRAY_SIZE(fixed); k++)
		n += as_strtod(&d, fixed[k], &bad);
	is_int(n, SCX_ARRAY_SIZE(fixed), "2^53 +- 1, 10^+-22 and 23, the double range's edges");
	double x;
	ok(!parse(&d, "[1e309,-1e309,1e-400]") && scx_json_double(&d, 1, &x) == -ERANGE &&
		   scx_json_double(&d, 2, &x) == -ERANGE && !scx_json_double(&d, 3, &x) && x == 0,
	   "overflow is -ERANGE, underflow reads as 0");
	ok(!scx_json_parse(&d, "-0", 2) && !scx_json_double(&d, 0, &(double){ 0 }), "-0 reads");
	double z = 1;
	ok(!scx_json_double(&d, 0, &z) && z == 0 && signbit(z), "-0 keeps its sign");
	scx_json_free(&d);
}

/* The flags of scx_json_unescape, and its appending form. */
static void unescape_flags(void)
{
	static const struct {
		const char *in;
		unsigned flags;
		long len;
		const char *out;
		const char *what;
	} c[] = {
		{ "\\u00e9", 0, 2, "\xc3\xa9", "U+00E9 as UTF-8" },
		{ "\\u00e9", SCX_JSON_BYTES, 1, "\xe9", "U+00E9 as a byte with SCX_JSON_BYTES" },
		{ "a\\ud800b", 0, -EINVAL, NULL, "a lone high surrogate fails" },
		{ "a\\ud800b", SCX_JSON_LONE_FFFD, 5,
		  "a\xef\xbf\xbd"
		  "b",
		  "... or is U+FFFD" },
		{ "\\udc00", SCX_JSON_LONE_FFFD, 3, "\xef\xbf\xbd", "a lone low one too" },
		{ "\\ud800\\ud800\\udc00", SCX_JSON_LONE_FFFD, 7, "\xef\xbf\xbd\xf0\x90\x80\x80",
		  "high, then a pair: the second escape is read on its own" },
		{ "\\ud800\\u00zz", SCX_JSON_LONE_FFFD, -EINVAL, NULL,
		  "a bad escape after a lone surrogate still fails" },
		{ "\\ud83d\\ude00", SCX_JSON_LONE_FFFD, 4, "\xf0\x9f\x98\x80", "a pair is a pair" },
	};
	struct scx_buf b = { 0 };

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char out[16];
		long n = scx_json_unescape(c[i].in, strlen(c[i].in), out, sizeof(out), c[i].flags);
		int rb;

		is_int(n, c[i].len, "%s", c[i].what);
		scx_buf_addstr(&b, "x");
		rb = scx_json_unescape_buf((struct scx_str){ c[i].in, strlen(c[i].in) }, &b,
					   c[i].flags);
		if (c[i].len < 0) {
			is_int(rb, -EINVAL, "  the same appended: fails");
		} else {
			ok(!rb && n == (long)b.len - 1 && !memcmp(out, c[i].out, n) &&
				   !memcmp(b.data + 1, c[i].out, n),
			   "  decodes right, and the same appended after what b held");
		}
		scx_buf_reset(&b);
	}
	scx_buf_free(&b);
}

/* A record's members, with errors in the one shape every record reader uses. */
static void record_members(void)
{
	static const char js[] = "{\"a\":7,\"b\":-1,\"c\":\"x\"}";
	struct scx_json_doc d = { 0 };
	uint64_t v = 0;
	char err[128] = "";

	ok(!scx_json_parse(&d, js, strlen(js)), "record parsed");
	ok(!scx_json_rec_uint(&d, 0, "a", &v, "rec", err, sizeof(err)) && v == 7,
	   "a required unsigned member read");
	is_int(scx_json_rec_uint(&d, 0, "b", &v, "rec", err, sizeof(err)), -EINVAL,
	       "a negative one refused");
	is_str(err, "byte 11: rec: missing or bad \"b\"",
	       "the error names the record and the value's byte");
	is_int(scx_json_rec_uint(&d, 0, "c", &v, "rec", err, sizeof(err)), -EINVAL,
	       "a string refused");
	is_int(scx_json_rec_uint(&d, 0, "z", &v, "rec", err, sizeof(err)), -EINVAL,
	       "a missing one refused");
	is_str(err, "byte 0: rec: missing or bad \"z\"", "a missing one is named at the object");
	is_int(scx_json_rec_err(&d, -1, "rec", err, sizeof(err), "what"), -EINVAL,
	       "an error without a token");
	is_str(err, "byte 0: rec: what", "is at byte 0");
	scx_json_free(&d);
}

int main(void)
{
	record_members();
	writer();
	unescape_flags();
	reader_ok();
	reader_bad();
	reader_vs_reference();
	doubles_vs_strtod();
	return done_testing();
}
