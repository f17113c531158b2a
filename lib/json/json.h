/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON for the whole suite: a streaming writer into an scx_buf (one compact
 * object per NDJSON line, never pretty-printed on a stream), and a strict
 * reader that tokenizes a text in one pass into jsmn's token layout (strict
 * mode, parent links; jsmn's own parser is the reference it is tested
 * against, lib/json/json_ref.c), with the string-escape and number decoding in
 * one place.
 */
#ifndef SCX_JSON_H
#define SCX_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define JSMN_STRICT
#define JSMN_PARENT_LINKS
#ifndef SCX_JSON_IMPL
#define JSMN_HEADER
#endif
#include <jsmn.h>

#include "core/util.h"

/* ---- writer -------------------------------------------------------------- */

#define SCX_JW_MAX_DEPTH 64

struct scx_jw {
	struct scx_buf *out; /* appended to; the caller owns and flushes it */
	int depth;
	bool first[SCX_JW_MAX_DEPTH]; /* no comma before the next element */
	bool after_key;
};

void scx_jw_init(struct scx_jw *w, struct scx_buf *out);
void scx_jw_obj_begin(struct scx_jw *w);
void scx_jw_obj_end(struct scx_jw *w);
void scx_jw_arr_begin(struct scx_jw *w);
void scx_jw_arr_end(struct scx_jw *w);
void scx_jw_key(struct scx_jw *w, const char *key); /* key must not need escaping */
/* Strings are escaped; invalid UTF-8 bytes become U+FFFD so output is valid JSON. */
void scx_jw_str(struct scx_jw *w, const char *s);
void scx_jw_strn(struct scx_jw *w, const char *s, size_t n);
void scx_jw_int(struct scx_jw *w, int64_t v);
void scx_jw_uint(struct scx_jw *w, uint64_t v);
void scx_jw_double(struct scx_jw *w, double v); /* NaN/inf become null */
/* A measured figure (a rate, an average, a time): 9 significant digits, as reports print. */
void scx_jw_num(struct scx_jw *w, double v);
void scx_jw_bool(struct scx_jw *w, bool v);
void scx_jw_null(struct scx_jw *w);
void scx_jw_raw(struct scx_jw *w, const char *json, size_t n); /* already valid JSON */
/* key + value in one call */
void scx_jw_kstr(struct scx_jw *w, const char *k, const char *s);
void scx_jw_kint(struct scx_jw *w, const char *k, int64_t v);
void scx_jw_kuint(struct scx_jw *w, const char *k, uint64_t v);
void scx_jw_kdouble(struct scx_jw *w, const char *k, double v);
void scx_jw_knum(struct scx_jw *w, const char *k, double v);
void scx_jw_kbool(struct scx_jw *w, const char *k, bool v);
/* Append the JSON string escape of s[0..n) (with quotes) to b. */
void scx_json_escape(struct scx_buf *b, const char *s, size_t n);

/* ---- reader -------------------------------------------------------------- */

struct scx_json_doc {
	const char *js;
	size_t len;
	jsmntok_t *tok;
	int *next;	 /* next[i]: the token after value i and all it holds */
	int ntok;	 /* tokens parsed */
	int cap;	 /* tokens allocated */
	size_t err_off;	 /* byte offset of a parse error */
	const char *err; /* static description of a parse error */
};

/*
 * Parse one JSON text (one NDJSON line).  0 or -EINVAL with err/err_off set.
 * Rejects nesting deeper than SCX_JSON_MAX_DEPTH and NUL bytes.  The doc keeps
 * its token array between calls; scx_json_free() releases it.
 */
#define SCX_JSON_MAX_DEPTH 64
int scx_json_parse(struct scx_json_doc *d, const char *js, size_t len);
void scx_json_free(struct scx_json_doc *d);

/* Index of the token after the whole value at idx (its next sibling). */
int scx_json_next(const struct scx_json_doc *d, int idx);
/* Value token of key in the object at obj, or -1. */
int scx_json_get(const struct scx_json_doc *d, int obj, const char *key);
/* Element i of the array at arr, or -1. */
int scx_json_at(const struct scx_json_doc *d, int arr, int i);
bool scx_json_is_str(const struct scx_json_doc *d, int idx);
bool scx_json_is_null(const struct scx_json_doc *d, int idx);
/* Compare a string token (after unescaping) with s. */
bool scx_json_eq(const struct scx_json_doc *d, int idx, const char *s);
/* Numbers: -EINVAL if not a number of that kind, -ERANGE if out of range. */
int scx_json_int(const struct scx_json_doc *d, int idx, int64_t *v);
int scx_json_uint(const struct scx_json_doc *d, int idx, uint64_t *v);
int scx_json_double(const struct scx_json_doc *d, int idx, double *v);
int scx_json_bool(const struct scx_json_doc *d, int idx, bool *v);
/*
 * Unescape a string token into buf (NUL-terminated, truncated to size-1).
 * Returns the full unescaped length, or -EINVAL for a bad escape or a
 * string token that is not a string.
 */
int scx_json_str(const struct scx_json_doc *d, int idx, char *buf, size_t size);
char *scx_json_strdup(const struct scx_json_doc *d, int idx); /* NULL on error */
/* Does the string token at idx equal s[0..n) after unescaping? */
bool scx_json_key_eq(const struct scx_json_doc *d, int idx, const char *s, size_t n);

/*
 * Records read from a parsed object (scx_stats, kernel snapshots, cgroup
 * records) report errors in one shape, "byte N: RECORD: WHAT", N the offset
 * of token tok in the text (0 when tok < 0), so a reader can say where.
 * Both return -EINVAL.
 */
int scx_json_rec_err(const struct scx_json_doc *d, int tok, const char *record, char *err,
		     size_t errsz, const char *what);
/* A required unsigned member: 0 and *v, or "missing or bad \"KEY\"" at it (or at obj). */
int scx_json_rec_uint(const struct scx_json_doc *d, int obj, const char *key, uint64_t *v,
		      const char *record, char *err, size_t errsz);

/* ---- flat objects, walked in one pass (json_walk.c) ---------------------- */

/* What a member's value is; strings come without their quotes, still escaped. */
enum scx_json_vtype { SCX_JSON_VSTR, SCX_JSON_VNUM, SCX_JSON_VOTHER };

/*
 * Walk the members of one flat JSON object (one NDJSON line) strictly, for
 * readers of millions of lines that want neither tokens nor copies: every
 * value is validated, nested values are validated and skipped.  fn gets each
 * raw key and value (key_esc/val_esc: it holds an escape, see
 * scx_json_unescape_buf); a non-zero return stops the walk and is returned.
 * Errors: -EINVAL with *err_off and *why (static text).
 */
typedef int (*scx_json_member_fn)(void *ctx, struct scx_str key, bool key_esc, int type,
				  struct scx_str val, bool val_esc);
int scx_json_walk_object(const char *s, size_t n, scx_json_member_fn fn, void *ctx, size_t *err_off,
			 const char **why);

/* ---- building blocks shared with the event codecs (stream.c) ------------- */

/* Length of the valid UTF-8 sequence at s[0..n), 0 if invalid. */
size_t scx_utf8_seq(const unsigned char *s, size_t n);
/*
 * Write s[0..n) as a quoted JSON string to out (room for 6n+2 bytes); returns
 * the bytes written.  Invalid UTF-8 bytes become U+FFFD, or with 'bytes' the
 * escape \u00XX of the byte itself (lossless for event strings, see scx(7)).
 */
size_t scx_json_escape_to(char *out, const char *s, size_t n, bool bytes);
/*
 * Unescape the inside of a JSON string into buf (at most size bytes, no NUL).
 * Returns the full decoded length or -EINVAL.  Flags:
 *   SCX_JSON_BYTES      \u0080-\u00ff decode to the single bytes 0x80-0xff
 *                       (the event codec's encoding of bytes that are not UTF-8)
 *   SCX_JSON_LONE_FFFD  a lone surrogate decodes to U+FFFD instead of failing
 *                       (JSON's grammar allows it; it is no character)
 */
#define SCX_JSON_BYTES 1u
#define SCX_JSON_LONE_FFFD 2u
long scx_json_unescape(const char *s, size_t n, char *buf, size_t size, unsigned flags);
/* The same, appended to b; 0 or -EINVAL. */
int scx_json_unescape_buf(struct scx_str raw, struct scx_buf *b, unsigned flags);
/* Index of the first byte at or after i that is '"', '\\', a control or non-ASCII. */
static inline size_t scx_json_plain_end(const char *s, size_t i, size_t n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;

	while (i + 8 <= n) {
		uint64_t w, q, b, t;
		memcpy(&w, s + i, 8);
		q = w ^ (ones * '"');
		b = w ^ (ones * '\\');
		/* zero-byte tests and a borrow test for < 0x20; false hits can only
		 * follow a true one, and the lowest hit is taken */
		t = ((q - ones) & ~q) | ((b - ones) & ~b) | (w - ones * 0x20) | w;
		t &= high;
		if (t)
			return i + (__builtin_ctzll(t) >> 3);
		i += 8;
	}
#endif
	while (i < n) {
		unsigned char c = s[i];
		if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
			break;
		i++;
	}
	return i;
}

/* Decimal formatting without printf; out needs 20 (u64) or 21 (i64) bytes. */
size_t scx_fmt_u64(char *out, uint64_t v);
size_t scx_fmt_i64(char *out, int64_t v);
/* A JSON integer literal: sign and magnitude; -EINVAL or -ERANGE. */
int scx_json_parse_uint_text(const char *s, size_t n, bool *neg, uint64_t *mag);

#endif
