// SPDX-License-Identifier: GPL-2.0
/*
 * JSON writer and reader (see json.h).  The reader scans the text once with
 * a stack of open containers, checking the grammar and the bytes as it goes
 * (valid UTF-8 and no NUL or control byte in strings; outside them only
 * JSON's own bytes) and writing jsmn's tokens.  It replaced
 * jsmn plus a second walk for the grammar jsmn leaves out ("[1 2]", "nul"),
 * which read big scx-agg snapshots at a third of the speed; that pair is
 * kept in json_ref.c as the reference for tests and fuzzers.
 */
#include "json/json-int.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* ---- writer -------------------------------------------------------------- */

void scx_jw_init(struct scx_jw *w, struct scx_buf *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->first[0] = true;
}

/* Comma before a value or key, unless it follows a key or opens a container. */
static void jw_sep(struct scx_jw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (!w->first[w->depth])
		scx_buf_add(w->out, ",", 1);
	w->first[w->depth] = false;
}

static void jw_open(struct scx_jw *w, char c)
{
	jw_sep(w);
	scx_buf_add(w->out, &c, 1);
	/* deeper nesting is written but its commas are tracked at the cap */
	if (w->depth < SCX_JW_MAX_DEPTH - 1)
		w->depth++;
	w->first[w->depth] = true;
}

static void jw_close(struct scx_jw *w, char c)
{
	scx_buf_add(w->out, &c, 1);
	if (w->depth > 0)
		w->depth--;
	w->after_key = false;
}

void scx_jw_obj_begin(struct scx_jw *w)
{
	jw_open(w, '{');
}
void scx_jw_obj_end(struct scx_jw *w)
{
	jw_close(w, '}');
}
void scx_jw_arr_begin(struct scx_jw *w)
{
	jw_open(w, '[');
}
void scx_jw_arr_end(struct scx_jw *w)
{
	jw_close(w, ']');
}

void scx_jw_key(struct scx_jw *w, const char *key)
{
	size_t n = strlen(key);

	jw_sep(w);
	scx_buf_reserve(w->out, n + 3);
	char *p = w->out->data + w->out->len;
	*p++ = '"';
	memcpy(p, key, n);
	p += n;
	*p++ = '"';
	*p++ = ':';
	w->out->len += n + 3;
	w->after_key = true;
}

void scx_jw_str(struct scx_jw *w, const char *s)
{
	scx_jw_strn(w, s ? s : "", s ? strlen(s) : 0);
}

void scx_jw_strn(struct scx_jw *w, const char *s, size_t n)
{
	jw_sep(w);
	scx_json_escape(w->out, s, n);
}

void scx_jw_int(struct scx_jw *w, int64_t v)
{
	jw_sep(w);
	scx_buf_reserve(w->out, 24);
	w->out->len += scx_fmt_i64(w->out->data + w->out->len, v);
}

void scx_jw_uint(struct scx_jw *w, uint64_t v)
{
	jw_sep(w);
	scx_buf_reserve(w->out, 24);
	w->out->len += scx_fmt_u64(w->out->data + w->out->len, v);
}

/* v with printf precision prec; NaN and infinities are null */
static void jw_double_prec(struct scx_jw *w, double v, int prec)
{
	if (!isfinite(v)) {
		scx_jw_null(w);
		return;
	}
	jw_sep(w);
	scx_buf_printf(w->out, "%.*g", prec, v);
}

void scx_jw_double(struct scx_jw *w, double v)
{
	/* %.17g round-trips every double; integral values print without a dot */
	jw_double_prec(w, v, 17);
}

void scx_jw_num(struct scx_jw *w, double v)
{
	jw_double_prec(w, v, 9);
}

void scx_jw_bool(struct scx_jw *w, bool v)
{
	jw_sep(w);
	if (v)
		scx_buf_add(w->out, "true", 4);
	else
		scx_buf_add(w->out, "false", 5);
}

void scx_jw_null(struct scx_jw *w)
{
	jw_sep(w);
	scx_buf_add(w->out, "null", 4);
}

void scx_jw_raw(struct scx_jw *w, const char *json, size_t n)
{
	jw_sep(w);
	scx_buf_add(w->out, json, n);
}

void scx_jw_kstr(struct scx_jw *w, const char *k, const char *s)
{
	scx_jw_key(w, k);
	scx_jw_str(w, s);
}

void scx_jw_kint(struct scx_jw *w, const char *k, int64_t v)
{
	scx_jw_key(w, k);
	scx_jw_int(w, v);
}

void scx_jw_kuint(struct scx_jw *w, const char *k, uint64_t v)
{
	scx_jw_key(w, k);
	scx_jw_uint(w, v);
}

void scx_jw_kdouble(struct scx_jw *w, const char *k, double v)
{
	scx_jw_key(w, k);
	scx_jw_double(w, v);
}

void scx_jw_knum(struct scx_jw *w, const char *k, double v)
{
	scx_jw_key(w, k);
	scx_jw_num(w, v);
}

void scx_jw_kbool(struct scx_jw *w, const char *k, bool v)
{
	scx_jw_key(w, k);
	scx_jw_bool(w, v);
}

static const char hexdig[] = "0123456789abcdef";

/* Length of the valid UTF-8 sequence at s (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), or 0 if the bytes are not one. */
size_t scx_utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return n >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if (n < 3 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if (c == 0xe0 && s[1] < 0xa0)
			return 0; /* overlong */
		if (c == 0xed && s[1] >= 0xa0)
			return 0; /* surrogate */
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (n < 4 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[3] & 0xc0) != 0x80)
			return 0;
		if (c == 0xf0 && s[1] < 0x90)
			return 0; /* overlong */
		if (c == 0xf4 && s[1] >= 0x90)
			return 0; /* above U+10FFFF */
		return 4;
	}
	return 0;
}

/*
 * The escaper behind scx_json_escape() and the event codec: 'bytes' says how
 * an invalid UTF-8 byte is written: as \u00XX (event strings, lossless: the
 * reader maps it back) or as U+FFFD (everything else: valid, human-readable).
 * Worst case 6 output bytes per input byte.
 */
size_t scx_json_escape_to(char *out, const char *s, size_t n, bool bytes)
{
	const unsigned char *p = (const unsigned char *)s;
	char *o = out;
	size_t i = 0;

	*o++ = '"';
	while (i < n) {
		size_t j = scx_json_plain_end(s, i, n);
		if (j > i) {
			memcpy(o, s + i, j - i);
			o += j - i;
			i = j;
			if (i == n)
				break;
		}
		unsigned char c = p[i];

		if (c >= 0x80) {
			size_t l = scx_utf8_seq(p + i, n - i);
			if (l) {
				memcpy(o, p + i, l);
				o += l;
				i += l;
			} else if (bytes) {
				*o++ = '\\', *o++ = 'u', *o++ = '0', *o++ = '0';
				*o++ = hexdig[c >> 4], *o++ = hexdig[c & 15];
				i++;
			} else {
				*o++ = (char)0xef, *o++ = (char)0xbf, *o++ = (char)0xbd;
				i++;
			}
			continue;
		}
		*o++ = '\\';
		switch (c) {
		case '"':
			*o++ = '"';
			break;
		case '\\':
			*o++ = '\\';
			break;
		case '\n':
			*o++ = 'n';
			break;
		case '\t':
			*o++ = 't';
			break;
		case '\r':
			*o++ = 'r';
			break;
		case '\b':
			*o++ = 'b';
			break;
		case '\f':
			*o++ = 'f';
			break;
		default:
			*o++ = 'u', *o++ = '0', *o++ = '0';
			*o++ = hexdig[c >> 4], *o++ = hexdig[c & 15];
		}
		i++;
	}
	*o++ = '"';
	return o - out;
}

void scx_json_escape(struct scx_buf *b, const char *s, size_t n)
{
	scx_buf_reserve(b, n * 6 + 2);
	b->len += scx_json_escape_to(b->data + b->len, s, n, false);
}

/* ---- numbers ------------------------------------------------------------- */

static const char digits2[201] = "0001020304050607080910111213141516171819"
				 "2021222324252627282930313233343536373839"
				 "4041424344454647484950515253545556575859"
				 "6061626364656667686970717273747576777879"
				 "8081828384858687888990919293949596979899";

/* Exactly 8 digits of v < 10^8, with 32-bit arithmetic. */
static inline void fmt8(char *o, uint32_t v)
{
	uint32_t hi = v / 10000, lo = v % 10000;

	memcpy(o, digits2 + (hi / 100) * 2, 2);
	memcpy(o + 2, digits2 + (hi % 100) * 2, 2);
	memcpy(o + 4, digits2 + (lo / 100) * 2, 2);
	memcpy(o + 6, digits2 + (lo % 100) * 2, 2);
}

static inline size_t fmt_small(char *out, uint32_t v)
{
	char tmp[10];
	char *p = tmp + 10;
	size_t n;

	while (v >= 100) {
		unsigned d = (v % 100) * 2;
		v /= 100;
		p -= 2;
		memcpy(p, digits2 + d, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, digits2 + v * 2, 2);
	} else {
		*--p = '0' + v;
	}
	n = tmp + 10 - p;
	memcpy(out, p, n);
	return n;
}

size_t scx_fmt_u64(char *out, uint64_t v)
{
	size_t n;

	if (v < 100000000)
		return fmt_small(out, v);
	if (v < 10000000000000000ull) {
		n = fmt_small(out, v / 100000000);
		fmt8(out + n, v % 100000000);
		return n + 8;
	}
	n = fmt_small(out, v / 10000000000000000ull);
	v %= 10000000000000000ull;
	fmt8(out + n, v / 100000000);
	fmt8(out + n + 8, v % 100000000);
	return n + 16;
}

size_t scx_fmt_i64(char *out, int64_t v)
{
	if (v < 0) {
		*out = '-';
		return 1 + scx_fmt_u64(out + 1, -(uint64_t)v);
	}
	return scx_fmt_u64(out, v);
}

/*
 * A JSON integer (no fraction, no exponent) in s[0..n): *neg and the
 * magnitude.  -EINVAL for anything else, -ERANGE above UINT64_MAX.
 */
int scx_json_parse_uint_text(const char *s, size_t n, bool *neg, uint64_t *mag)
{
	size_t i = 0;
	uint64_t v = 0;

	*neg = false;
	if (i < n && s[i] == '-') {
		*neg = true;
		i++;
	}
	if (i >= n || s[i] < '0' || s[i] > '9')
		return -EINVAL;
	if (s[i] == '0' && i + 1 < n)
		return -EINVAL; /* leading zero, or a fraction/exponent */
	for (; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';
		if (d > 9)
			return -EINVAL;
		if (v > (UINT64_MAX - d) / 10) {
			/* keep validating the rest so "1x" with many digits is -EINVAL */
			for (i++; i < n; i++)
				if ((unsigned char)s[i] - '0' > 9)
					return -EINVAL;
			return -ERANGE;
		}
		v = v * 10 + d;
	}
	*mag = v;
	return 0;
}

/* ---- reader -------------------------------------------------------------- */

/*
 * NUL bytes, control characters other than tab/CR/LF, and invalid UTF-8 are
 * rejected everywhere.  Most lines are ASCII: test 8 bytes at a time for a
 * high bit or a byte below 0x20 first.
 */
size_t scx_json_check_bytes(const char *js, size_t len, const char **why)
{
	const unsigned char *p = (const unsigned char *)js;
	size_t i = 0;

	while (i < len) {
		if (i + 8 <= len) {
			uint64_t w;
			memcpy(&w, p + i, 8);
			/* high bit set, or byte < 0x20 (x - 0x20 borrows into bit 7) */
			if (!((w | (w - 0x2020202020202020ull)) & 0x8080808080808080ull)) {
				i += 8;
				continue;
			}
		}
		unsigned char c = p[i];
		if (c >= 0x20 && c < 0x80) {
			i++;
			continue;
		}
		if (c == '\t' || c == '\n' || c == '\r') {
			i++;
			continue;
		}
		if (c == 0) {
			*why = "NUL byte";
			return i;
		}
		if (c < 0x20) {
			*why = "control character";
			return i;
		}
		size_t l = scx_utf8_seq(p + i, len - i);
		if (!l) {
			*why = "invalid UTF-8";
			return i;
		}
		i += l;
	}
	return SIZE_MAX;
}

int scx_json_fail(struct scx_json_doc *d, size_t off, const char *why)
{
	d->err_off = off;
	d->err = why;
	d->ntok = 0;
	return -EINVAL;
}

int scx_json_begin(struct scx_json_doc *d, const char *js, size_t len)
{
	d->js = js;
	d->len = len;
	d->ntok = 0;
	d->err = NULL;
	d->err_off = 0;
	return len > INT32_MAX / 2 ? scx_json_fail(d, 0, "document too large") : 0;
}

static inline size_t skip_ws(const char *js, size_t i, size_t n)
{
	/* compact JSON (all of ours) has none: one test */
	if (i < n && (unsigned char)js[i] > ' ')
		return i;
	while (i < n && (js[i] == ' ' || js[i] == '\n' || js[i] == '\r' || js[i] == '\t'))
		i++;
	return i;
}

static inline bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* The token array doubles as the text needs (a text is read once). */
static __attribute__((noinline)) void grow_tok(struct scx_json_doc *d)
{
	d->cap = d->cap ? d->cap * 2 : 64;
	d->tok = scx_xrealloc(d->tok, (size_t)d->cap * sizeof(*d->tok));
	d->next = scx_xrealloc(d->next, (size_t)d->cap * sizeof(*d->next));
}

static inline int new_tok(struct scx_json_doc *d, jsmntype_t type, size_t start, int parent)
{
	jsmntok_t *t;

	if (d->ntok == d->cap)
		grow_tok(d);
	t = &d->tok[d->ntok];
	t->type = type;
	t->start = (int)start;
	t->end = -1;
	t->size = 0;
	t->parent = parent;
	d->next[d->ntok] = d->ntok + 1;
	if (parent >= 0)
		d->tok[parent].size++;
	return d->ntok++;
}

/* Bytes that end a run of plain string bytes: the quote, escapes, controls, non-ASCII. */
static const bool str_stop[256] = {
	[0 ... 0x1f] = true,
	['"'] = true,
	['\\'] = true,
	[0x80 ... 0xff] = true,
};

/*
 * The first byte at or after j that is not plain string text (str_stop).
 * With SSE2 (every x86-64), 16 bytes a step: as signed bytes, controls and
 * non-ASCII are both below 0x20, so three compares cover the stop table and
 * most keys end in the first step.  Elsewhere, and near the end, a byte loop:
 * keys and comms are short, and it beat 8-byte words on them.
 */
static inline size_t string_plain_end(const char *js, size_t j, size_t n)
{
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
	const __m128i space = _mm_set1_epi8(0x20);

	while (j + 16 <= n) {
		__m128i v = _mm_loadu_si128((const __m128i *)(js + j));
		__m128i hit = _mm_or_si128(
			_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
			_mm_cmplt_epi8(v, space));
		unsigned m = (unsigned)_mm_movemask_epi8(hit);

		if (m)
			return j + __builtin_ctz(m);
		j += 16;
	}
#endif
	while (j < n && !str_stop[(unsigned char)js[j]])
		j++;
	return j;
}

/*
 * The string whose opening quote is at i: its token, and the index after the
 * closing quote, or 0 (*why, *err_off) for a bad escape, invalid UTF-8, a NUL
 * or control byte, or no closing quote.  Tab, CR and LF pass, as in jsmn,
 * and scx_json_str() rejects them.
 */
static size_t scan_string(struct scx_json_doc *d, size_t i, int parent, size_t *err_off,
			  const char **why)
{
	const char *js = d->js;
	size_t n = d->len, j = i + 1;
	int t;

	for (;;) {
		j = string_plain_end(js, j, n);
		if (j >= n) {
			*why = "unexpected end of JSON";
			*err_off = n;
			return 0;
		}
		if (js[j] == '"')
			break;
		if ((unsigned char)js[j] >= 0x80) {
			size_t l = scx_utf8_seq((const unsigned char *)js + j, n - j);

			if (!l) {
				*why = "invalid UTF-8";
				*err_off = j;
				return 0;
			}
			j += l;
			continue;
		}
		if ((unsigned char)js[j] < 0x20) {
			/* tab, CR and LF pass, as in jsmn; scx_json_str() rejects them */
			if (js[j] != '\t' && js[j] != '\n' && js[j] != '\r') {
				*why = js[j] ? "control character" : "NUL byte";
				*err_off = j;
				return 0;
			}
			j++;
			continue;
		}
		if (j + 1 >= n) {
			*why = "unexpected end of JSON";
			*err_off = n;
			return 0;
		}
		switch (js[j + 1]) {
		case '"':
		case '\\':
		case '/':
		case 'b':
		case 'f':
		case 'n':
		case 'r':
		case 't':
			j += 2;
			continue;
		case 'u':
			if (j + 6 <= n && is_hex(js[j + 2]) && is_hex(js[j + 3]) &&
			    is_hex(js[j + 4]) && is_hex(js[j + 5])) {
				j += 6;
				continue;
			}
			/* fall through */
		default:
			*why = "invalid escape";
			*err_off = i; /* where the string starts, as jsmn said */
			return 0;
		}
	}
	t = new_tok(d, JSMN_STRING, i + 1, parent);
	d->tok[t].end = (int)j;
	return j + 1;
}

/* Bytes a number or literal may hold: the run of them is one token. */
static const bool prim_byte[256] = {
	['0' ... '9'] = true, ['a' ... 'z'] = true, ['A' ... 'Z'] = true,
	['+'] = true,	      ['-'] = true,	    ['.'] = true,
};

/*
 * The end of the JSON number at s[i..n), or i if there is none (RFC 8259).
 * always_inline: gcc kept it a call from scan(), and inlined it reads
 * snapshots and event lines 19% faster.
 */
static inline __attribute__((always_inline)) size_t number_end(const char *s, size_t i, size_t n)
{
	size_t j = i + (i < n && s[i] == '-');

	if (j < n && s[j] == '0')
		j++;
	else if (j < n && s[j] >= '1' && s[j] <= '9')
		while (++j < n && s[j] >= '0' && s[j] <= '9')
			;
	else
		return i;
	if (j < n && s[j] == '.') {
		if (++j >= n || s[j] < '0' || s[j] > '9')
			return i;
		while (++j < n && s[j] >= '0' && s[j] <= '9')
			;
	}
	if (j < n && (s[j] == 'e' || s[j] == 'E')) {
		j++;
		if (j < n && (s[j] == '+' || s[j] == '-'))
			j++;
		if (j >= n || s[j] < '0' || s[j] > '9')
			return i;
		while (++j < n && s[j] >= '0' && s[j] <= '9')
			;
	}
	return j;
}

/* The end of the number or literal at js[i..n), or i if it is not one. */
static inline size_t primitive_end(const char *js, size_t i, size_t n)
{
	size_t j;

	switch (js[i]) {
	case 't':
		j = n - i >= 4 && !memcmp(js + i, "true", 4) ? i + 4 : i;
		break;
	case 'f':
		j = n - i >= 5 && !memcmp(js + i, "false", 5) ? i + 5 : i;
		break;
	case 'n':
		j = n - i >= 4 && !memcmp(js + i, "null", 4) ? i + 4 : i;
		break;
	default:
		j = number_end(js, i, n);
	}
	/* "1x", "truex": one bad literal, not a value and junk */
	return j < n && prim_byte[(unsigned char)js[j]] ? i : j;
}

bool scx_json_is_number(const char *s, size_t n)
{
	return n && number_end(s, 0, n) == n;
}

/*
 * One pass, one token array, no recursion: containers open on a stack of at
 * most SCX_JSON_MAX_DEPTH.  The tokens are jsmn's (strict mode, parent links:
 * a member's value has its key as parent, the key has size 1), and next[]
 * holds the token after each value's last descendant.  Errors name the first
 * byte that cannot continue a JSON text.
 */
static int scan(struct scx_json_doc *d)
{
	const char *js = d->js, *why;
	size_t n = d->len, i = 0, j, off;
	int stk[SCX_JSON_MAX_DEPTH], depth = 0, key = -1, parent, top, t;

	/* a value is expected at i; parent: the open container, or the key */
value:
	i = skip_ws(js, i, n);
	if (i >= n)
		return scx_json_fail(d, n, d->ntok ? "unexpected end of JSON" : "empty document");
	parent = key >= 0 ? key : depth ? stk[depth - 1] : -1;
	key = -1;
	switch (js[i]) {
	case '{':
	case '[':
		if (depth == SCX_JSON_MAX_DEPTH)
			return scx_json_fail(d, i, "nesting too deep");
		t = new_tok(d, js[i] == '{' ? JSMN_OBJECT : JSMN_ARRAY, i, parent);
		stk[depth++] = t;
		i = skip_ws(js, i + 1, n);
		if (i < n && js[i] == (d->tok[t].type == JSMN_OBJECT ? '}' : ']'))
			goto close;
		if (d->tok[t].type == JSMN_OBJECT)
			goto member;
		goto value;
	case '"':
		if (!(j = scan_string(d, i, parent, &off, &why)))
			return scx_json_fail(d, off, why);
		i = j;
		goto after;
	}
	if ((j = primitive_end(js, i, n)) == i)
		return scx_json_fail(d, i,
				     prim_byte[(unsigned char)js[i]] ? "invalid literal" :
								       "unexpected character");
	t = new_tok(d, JSMN_PRIMITIVE, i, parent);
	d->tok[t].end = (int)j;
	i = j;

	/* a value ended before i: a separator, a closing bracket or the end */
after:
	i = skip_ws(js, i, n);
	if (!depth) {
		if (i < n)
			return scx_json_fail(d, i, "trailing characters");
		return 0;
	}
	top = stk[depth - 1];
	if (i >= n)
		return scx_json_fail(d, n, "unexpected end of JSON");
	if (js[i] == ',') {
		i++;
		if (d->tok[top].type == JSMN_OBJECT)
			goto member;
		goto value;
	}
	if (js[i] != (d->tok[top].type == JSMN_OBJECT ? '}' : ']'))
		return scx_json_fail(d, i,
				     d->tok[top].type == JSMN_OBJECT ? "expected ',' or '}'" :
								       "expected ',' or ']'");
close:
	/* js[i] closes stk[depth - 1] */
	top = stk[--depth];
	d->tok[top].end = (int)i + 1;
	d->next[top] = d->ntok;
	i++;
	goto after;

	/* an object member's key is expected at i */
member:
	i = skip_ws(js, i, n);
	if (i >= n)
		return scx_json_fail(d, n, "unexpected end of JSON");
	if (js[i] != '"')
		return scx_json_fail(d, i, "expected a string key");
	if (!(j = scan_string(d, i, stk[depth - 1], &off, &why)))
		return scx_json_fail(d, off, why);
	key = d->ntok - 1;
	i = skip_ws(js, j, n);
	if (i >= n)
		return scx_json_fail(d, n, "unexpected end of JSON");
	if (js[i] != ':')
		return scx_json_fail(d, i, "expected ':'");
	i++;
	goto value;
}

int scx_json_parse(struct scx_json_doc *d, const char *js, size_t len)
{
	if (scx_json_begin(d, js, len))
		return -EINVAL;
	if (d->cap && !d->next) /* the last text was the reference reader's */
		scx_json_free(d);
	return scan(d);
}

void scx_json_free(struct scx_json_doc *d)
{
	free(d->tok);
	free(d->next);
	d->tok = NULL;
	d->next = NULL;
	d->cap = d->ntok = 0;
}

int scx_json_next(const struct scx_json_doc *d, int idx)
{
	int end, i;

	if (idx < 0 || idx >= d->ntok)
		return d->ntok;
	if (d->next)
		return d->next[idx];
	/* the reference reader's documents: by the extents */
	if (d->tok[idx].size == 0)
		return idx + 1;
	end = d->tok[idx].end;
	for (i = idx + 1; i < d->ntok && d->tok[i].start < end; i++)
		;
	return i;
}

/*
 * Compare the raw string token to s[0..n).  Unescaping only shortens a
 * string, so a raw text shorter than s never matches and one as long
 * matches only byte for byte with no escape; just a longer one with an
 * escape is unescaped.  Most keys a lookup passes differ in length.
 */
bool scx_json_key_eq(const struct scx_json_doc *d, int idx, const char *s, size_t n)
{
	const jsmntok_t *t = &d->tok[idx];
	const char *p = d->js + t->start;
	size_t l = t->end - t->start;

	if (t->type != JSMN_STRING || l < n)
		return false;
	if (l == n)
		return !memcmp(p, s, n) && !memchr(p, '\\', n);
	if (!memchr(p, '\\', l))
		return false;
	char buf[256];
	int r = scx_json_str(d, idx, buf, sizeof(buf));
	return r >= 0 && (size_t)r == n && n < sizeof(buf) && !memcmp(buf, s, n);
}

int scx_json_get(const struct scx_json_doc *d, int obj, const char *key)
{
	size_t n = strlen(key);
	int i, k;

	if (obj < 0 || obj >= d->ntok || d->tok[obj].type != JSMN_OBJECT)
		return -1;
	for (i = obj + 1, k = 0; k < d->tok[obj].size && i + 1 < d->ntok; k++) {
		if (scx_json_key_eq(d, i, key, n))
			return i + 1;
		i = scx_json_next(d, i + 1);
	}
	return -1;
}

int scx_json_at(const struct scx_json_doc *d, int arr, int n)
{
	int i, k;

	if (arr < 0 || arr >= d->ntok || d->tok[arr].type != JSMN_ARRAY || n < 0 ||
	    n >= d->tok[arr].size)
		return -1;
	for (i = arr + 1, k = 0; k < n; k++)
		i = scx_json_next(d, i);
	return i < d->ntok ? i : -1;
}

bool scx_json_is_str(const struct scx_json_doc *d, int idx)
{
	return idx >= 0 && idx < d->ntok && d->tok[idx].type == JSMN_STRING;
}

bool scx_json_is_null(const struct scx_json_doc *d, int idx)
{
	return idx >= 0 && idx < d->ntok && d->tok[idx].type == JSMN_PRIMITIVE &&
	       d->js[d->tok[idx].start] == 'n';
}

bool scx_json_eq(const struct scx_json_doc *d, int idx, const char *s)
{
	return idx >= 0 && idx < d->ntok && scx_json_key_eq(d, idx, s, strlen(s));
}

static int num_text(const struct scx_json_doc *d, int idx, const char **s, size_t *n)
{
	if (idx < 0 || idx >= d->ntok || d->tok[idx].type != JSMN_PRIMITIVE)
		return -EINVAL;
	*s = d->js + d->tok[idx].start;
	*n = d->tok[idx].end - d->tok[idx].start;
	return 0;
}

/* An integer token as sign and magnitude. */
static int int_token(const struct scx_json_doc *d, int idx, bool *neg, uint64_t *m)
{
	const char *s;
	size_t n;
	int err = num_text(d, idx, &s, &n);

	return err ? err : scx_json_parse_uint_text(s, n, neg, m);
}

int scx_json_int(const struct scx_json_doc *d, int idx, int64_t *v)
{
	bool neg;
	uint64_t m;
	int err = int_token(d, idx, &neg, &m);

	if (err)
		return err;
	if (neg ? m > (uint64_t)INT64_MAX + 1 : m > INT64_MAX)
		return -ERANGE;
	*v = neg ? (int64_t)(0 - m) : (int64_t)m;
	return 0;
}

int scx_json_uint(const struct scx_json_doc *d, int idx, uint64_t *v)
{
	bool neg;
	uint64_t m;
	int err = int_token(d, idx, &neg, &m);

	if (err)
		return err;
	if (neg && m)
		return -ERANGE;
	*v = m;
	return 0;
}

int scx_json_rec_err(const struct scx_json_doc *d, int tok, const char *record, char *err,
		     size_t errsz, const char *what)
{
	snprintf(err, errsz, "byte %zu: %s: %s", tok >= 0 ? (size_t)d->tok[tok].start : 0, record,
		 what);
	return -EINVAL;
}

int scx_json_rec_uint(const struct scx_json_doc *d, int obj, const char *key, uint64_t *v,
		      const char *record, char *err, size_t errsz)
{
	int i = scx_json_get(d, obj, key);
	char what[96];

	if (i >= 0 && !scx_json_uint(d, i, v))
		return 0;
	snprintf(what, sizeof(what), "missing or bad \"%s\"", key);
	return scx_json_rec_err(d, i >= 0 ? i : obj, record, err, errsz, what);
}

/*
 * s[0..n), a JSON number, when it is exactly m * 10^e with m < 2^53 and
 * |e| <= 22: both are exact doubles, so one multiply or divide rounds
 * correctly (Clinger's fast path) and gives strtod's result.  Most numbers
 * of our streams are (9 significant digits at most).  false: use strtod.
 */
static bool fast_double(const char *s, size_t n, double *v)
{
	static const double pow10[23] = {
		1e0,  1e1,  1e2,  1e3,	1e4,  1e5,  1e6,  1e7,	1e8,  1e9,  1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
	};
	size_t i = 0;
	bool neg = s[0] == '-';
	uint64_t m = 0;
	int digits = 0, e = 0, ee = 0, esign = 1;

	/* digits: significant ones so far (leading zeros do not count) */
	for (i += neg; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		digits += digits || s[i] != '0';
		m = m * 10 + (s[i] - '0');
	}
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, e--) {
			digits += digits || s[i] != '0';
			m = m * 10 + (s[i] - '0');
		}
	}
	if (digits > 19)
		return false; /* m may have wrapped */
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			esign = s[i++] == '-' ? -1 : 1;
		for (; i < n; i++) {
			ee = ee * 10 + (s[i] - '0');
			if (ee > 1000)
				return false;
		}
		e += esign * ee;
	}
	if (m > (1ull << 53) || e < -22 || e > 22)
		return false;
	*v = e < 0 ? (double)m / pow10[-e] : (double)m * pow10[e];
	if (neg)
		*v = -*v;
	return true;
}

int scx_json_double(const struct scx_json_doc *d, int idx, double *v)
{
	const char *s;
	size_t n;
	char buf[64];
	char *end;

	/* both readers checked every primitive: it is a number or a literal */
	if (num_text(d, idx, &s, &n) || !(s[0] == '-' || (s[0] >= '0' && s[0] <= '9')))
		return -EINVAL;
	if (fast_double(s, n, v))
		return 0;
	if (n >= sizeof(buf))
		return -ERANGE;
	memcpy(buf, s, n);
	buf[n] = 0;
	errno = 0;
	*v = strtod(buf, &end);
	if (errno == ERANGE && isinf(*v))
		return -ERANGE;
	return 0;
}

int scx_json_bool(const struct scx_json_doc *d, int idx, bool *v)
{
	const char *s;
	size_t n;

	if (num_text(d, idx, &s, &n))
		return -EINVAL;
	if (n == 4 && !memcmp(s, "true", 4))
		*v = true;
	else if (n == 5 && !memcmp(s, "false", 5))
		*v = false;
	else
		return -EINVAL;
	return 0;
}

static int hex4(const char *s)
{
	int v = 0;

	for (int i = 0; i < 4; i++) {
		char c = s[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/*
 * Unescape s[0..n) (the inside of a string token) into buf, truncating at
 * size (no NUL added).  Flags in json.h.  Returns the full unescaped length
 * or -EINVAL.
 */
long scx_json_unescape(const char *s, size_t n, char *buf, size_t size, unsigned flags)
{
	bool bytes = flags & SCX_JSON_BYTES;

	size_t o = 0;

	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		char tmp[4];
		size_t tl = 1;

		if (c < 0x20)
			return -EINVAL;
		if (c != '\\') {
			/* copy a run of plain bytes at once */
			size_t j = i + 1;
			while (j < n && s[j] != '\\' && (unsigned char)s[j] >= 0x20)
				j++;
			if (o < size)
				memcpy(buf + o, s + i, SCX_MIN(j - i, size - o));
			o += j - i;
			i = j;
			continue;
		}
		if (i + 1 >= n)
			return -EINVAL;
		switch (s[i + 1]) {
		case '"':
			tmp[0] = '"';
			break;
		case '\\':
			tmp[0] = '\\';
			break;
		case '/':
			tmp[0] = '/';
			break;
		case 'b':
			tmp[0] = '\b';
			break;
		case 'f':
			tmp[0] = '\f';
			break;
		case 'n':
			tmp[0] = '\n';
			break;
		case 'r':
			tmp[0] = '\r';
			break;
		case 't':
			tmp[0] = '\t';
			break;
		case 'u': {
			if (i + 6 > n)
				return -EINVAL;
			int cp = hex4(s + i + 2);
			if (cp < 0)
				return -EINVAL;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				int lo = i + 12 <= n && s[i + 6] == '\\' && s[i + 7] == 'u' ?
						 hex4(s + i + 8) :
						 -1;

				if (lo >= 0xdc00 && lo <= 0xdfff) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					i += 6;
				} else if (flags & SCX_JSON_LONE_FFFD) {
					cp = 0xfffd; /* the next escape is read on its own */
				} else {
					return -EINVAL; /* lone high surrogate */
				}
			} else if (cp >= 0xdc00 && cp <= 0xdfff) {
				if (!(flags & SCX_JSON_LONE_FFFD))
					return -EINVAL; /* lone low surrogate */
				cp = 0xfffd;
			}
			if (cp < 0x80 || (bytes && cp <= 0xff)) {
				tmp[0] = cp;
			} else if (cp < 0x800) {
				tmp[0] = 0xc0 | (cp >> 6);
				tmp[1] = 0x80 | (cp & 0x3f);
				tl = 2;
			} else if (cp < 0x10000) {
				tmp[0] = 0xe0 | (cp >> 12);
				tmp[1] = 0x80 | ((cp >> 6) & 0x3f);
				tmp[2] = 0x80 | (cp & 0x3f);
				tl = 3;
			} else {
				tmp[0] = 0xf0 | (cp >> 18);
				tmp[1] = 0x80 | ((cp >> 12) & 0x3f);
				tmp[2] = 0x80 | ((cp >> 6) & 0x3f);
				tmp[3] = 0x80 | (cp & 0x3f);
				tl = 4;
			}
			i += 4;
			break;
		}
		default:
			return -EINVAL;
		}
		i += 2;
		for (size_t k = 0; k < tl; k++, o++)
			if (o < size)
				buf[o] = tmp[k];
	}
	return o > LONG_MAX ? -EINVAL : (long)o;
}

int scx_json_unescape_buf(struct scx_str raw, struct scx_buf *b, unsigned flags)
{
	long r;

	/* an escape never decodes to more bytes than it takes */
	scx_buf_reserve(b, raw.n);
	r = scx_json_unescape(raw.p, raw.n, b->data + b->len, raw.n, flags);
	if (r < 0)
		return -EINVAL;
	b->len += (size_t)r;
	return 0;
}

int scx_json_str(const struct scx_json_doc *d, int idx, char *buf, size_t size)
{
	const jsmntok_t *t;
	long r;

	if (idx < 0 || idx >= d->ntok || d->tok[idx].type != JSMN_STRING)
		return -EINVAL;
	t = &d->tok[idx];
	r = scx_json_unescape(d->js + t->start, t->end - t->start, buf, size ? size - 1 : 0, 0);
	if (r < 0 || r > INT32_MAX)
		return -EINVAL;
	if (size)
		buf[SCX_MIN((size_t)r, size - 1)] = 0;
	return r;
}

char *scx_json_strdup(const struct scx_json_doc *d, int idx)
{
	int n = scx_json_str(d, idx, NULL, 0);
	char *s;

	if (n < 0)
		return NULL;
	s = scx_xmalloc(n + 1);
	scx_json_str(d, idx, s, n + 1);
	return s;
}
