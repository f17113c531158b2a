// SPDX-License-Identifier: GPL-2.0
/* lib/json.c: the writer's escaping and the strict reader. */
#include <errno.h>
#include <stdlib.h>

#include "json.h"
#include "tap.h"
#include "util.h"

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
	is_str(esc("a\xff" "b\xc3", 4), "\"a\xef\xbf\xbd" "b\xef\xbf\xbd\"",
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

	ok(!parse(&d, "[9223372036854775807,-9223372036854775808,18446744073709551615,"
		      "9223372036854775808,-9223372036854775809,18446744073709551616,-0,01]") ||
	   1, "numbers parsed");
	/* 01 is not JSON: the whole document is rejected */
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
	ok(!scx_json_parse(&d, big.data, big.len) && d.ntok == 35002, "a reused document grows to 35002 tokens");
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
		{ "{\"a\":1,}", 6, "trailing comma" },
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
		{ "[1 :2]", 4, "colon after a number" },
		{ "3\r:26\r", 3, "colon after a top-level number (found by the fuzzer)" },
	};
	struct scx_json_doc d = { 0 };

	for (size_t k = 0; k < SCX_ARRAY_SIZE(bad); k++) {
		int r = scx_json_parse(&d, bad[k].js, strlen(bad[k].js));
		ok(r == -EINVAL && d.err, "rejected: %s", bad[k].what);
		is_int(d.err_off, bad[k].off, "offset of: %s (%s)", bad[k].what, d.err ? d.err : "");
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
	   d.err_off == 5 * SCX_JSON_MAX_DEPTH, "depth %d rejected at its bracket",
	   SCX_JSON_MAX_DEPTH + 1);
	b.len = 0;
	for (int k = 0; k < 1000000; k++)
		scx_buf_add(&b, "[", 1);
	ok(scx_json_parse(&d, b.data, b.len) == -EINVAL && !strcmp(d.err, "nesting too deep") &&
	   d.cap <= 2048, "a million brackets rejected without a million tokens");
	scx_buf_free(&b);
	scx_json_free(&d);
}

int main(void)
{
	writer();
	reader_ok();
	reader_bad();
	return done_testing();
}
