// SPDX-License-Identifier: GPL-2.0
/*
 * The reference JSON reader, for tests and fuzzers only: jsmn (Debian's
 * libjsmn, strict mode with parent links) plus the grammar checks jsmn leaves
 * out.  It was the suite's reader until lib/json/json.c's one-pass scanner; the
 * scanner must produce exactly its tokens (t/unit/0002-json.c, t/fuzz/json.c).
 * Its documents are freed with scx_json_free() like any other.
 */
#define SCX_JSON_IMPL
#include "json/json-int.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Real extent of a token in the text: strings include their quotes. */
static int tok_start(const jsmntok_t *t)
{
	return t->type == JSMN_STRING ? t->start - 1 : t->start;
}

static int tok_end(const jsmntok_t *t)
{
	return t->type == JSMN_STRING ? t->end + 1 : t->end;
}

/* js[from..to) must be whitespace around at most one 'sep' (exactly one if sep). */
static int check_gap(const char *js, int from, int to, char sep)
{
	int i = from;

	while (i < to && is_ws(js[i]))
		i++;
	if (sep) {
		if (i >= to || js[i] != sep)
			return i;
		i++;
		while (i < to && is_ws(js[i]))
			i++;
	}
	return i == to ? -1 : i;
}

/*
 * The grammar jsmn leaves out: exactly one ':' between key and value, one
 * ',' between elements, none elsewhere, keys are strings, each key has one
 * value, primitives are true/false/null/numbers, nesting within the limit.
 * aux[i] holds the end of the last child seen for container i, and
 * aux[cap + i] its depth.
 */
static int check_structure(struct scx_json_doc *d, int *aux)
{
	const char *js = d->js;
	jsmntok_t *tok = d->tok;
	int *last = aux, *depth = aux + d->cap;

	if (d->ntok < 1)
		return scx_json_fail(d, d->len, "empty document");
	for (int i = 0; i < d->ntok; i++) {
		jsmntok_t *t = &tok[i];
		int p = t->parent;
		int gap;

		if (t->type == JSMN_PRIMITIVE) {
			const char *s = js + t->start;
			size_t n = t->end - t->start;
			if (!((n == 4 && !memcmp(s, "true", 4)) ||
			      (n == 5 && !memcmp(s, "false", 5)) ||
			      (n == 4 && !memcmp(s, "null", 4)) || scx_json_is_number(s, n)))
				return scx_json_fail(d, t->start, "invalid literal");
		}
		last[i] = -1;
		if (p >= 0 && tok[p].type == JSMN_PRIMITIVE)
			return scx_json_fail(d, tok_start(t), "unexpected ':'"); /* jsmn: "1:2" */
		if (p < 0) {
			if (i != 0)
				return scx_json_fail(d, tok_start(t), "more than one value");
			gap = check_gap(js, 0, tok_start(t), 0);
			if (gap >= 0)
				return scx_json_fail(d, gap, "unexpected character");
			depth[i] = 0;
		} else if (tok[p].type == JSMN_STRING) {
			/* an object member's value: parent is its key; a second value
			 * under one key means a missing ',' */
			if (tok[p].size != 1 && i != p + 1)
				return scx_json_fail(d, tok_start(t), "expected ',' or '}'");
			gap = check_gap(js, tok_end(&tok[p]), tok_start(t), ':');
			if (gap >= 0)
				return scx_json_fail(d, gap, "expected ':'");
			int obj = tok[p].parent;
			if (obj < 0 || tok[obj].type != JSMN_OBJECT)
				return scx_json_fail(d, tok_end(&tok[p]), "unexpected ':'");
			last[obj] = tok_end(t);
			depth[i] = depth[obj];
		} else {
			/* an array element or an object key */
			bool first = last[p] < 0;
			if (tok[p].type == JSMN_OBJECT && t->type != JSMN_STRING)
				return scx_json_fail(d, tok_start(t), "expected a string key");
			gap = check_gap(js, first ? tok[p].start + 1 : last[p], tok_start(t),
					first ? 0 : ',');
			if (gap >= 0)
				return scx_json_fail(
					d, gap, first ? "unexpected character" : "expected ','");
			last[p] = tok_end(t);
			depth[i] = depth[p];
			if (tok[p].type == JSMN_OBJECT && t->size == 0)
				return scx_json_fail(d, tok_end(t), "expected ':'");
		}
		if (t->type == JSMN_OBJECT || t->type == JSMN_ARRAY) {
			depth[i]++;
			if (depth[i] > SCX_JSON_MAX_DEPTH)
				return scx_json_fail(d, t->start, "nesting too deep");
		}
	}
	/* closing gaps: whitespace only between the last child and the bracket */
	for (int i = 0; i < d->ntok; i++) {
		jsmntok_t *t = &tok[i];
		if (t->type != JSMN_OBJECT && t->type != JSMN_ARRAY)
			continue;
		int gap = check_gap(js, last[i] < 0 ? t->start + 1 : last[i], t->end - 1, 0);
		if (gap >= 0)
			return scx_json_fail(d, gap, "unexpected character");
	}
	int gap = check_gap(js, tok_end(&tok[0]), (int)d->len, 0);
	if (gap >= 0)
		return scx_json_fail(d, gap, "trailing characters");
	return 0;
}

/* Depth scan used before growing the token array, so that a line of a
 * million '[' fails fast instead of allocating a million tokens. */
static int scan_depth(const char *js, size_t len, size_t *off)
{
	int depth = 0;
	bool in_str = false;

	for (size_t i = 0; i < len; i++) {
		char c = js[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
			continue;
		}
		if (c == '"') {
			in_str = true;
		} else if (c == '[' || c == '{') {
			if (++depth > SCX_JSON_MAX_DEPTH) {
				*off = i;
				return -1;
			}
		} else if (c == ']' || c == '}') {
			depth--;
		}
	}
	return 0;
}

int scx_json_parse_ref(struct scx_json_doc *d, const char *js, size_t len)
{
	const char *why = NULL;
	size_t off;
	jsmn_parser p;
	int r;

	/*
	 * Its own token layout (tokens, then 2 ints of scratch each), kept
	 * between its texts as the suite's reader did: a fresh array for each
	 * big text cost it page faults the one-pass reader does not pay.
	 */
	if (d->next)
		scx_json_free(d);
	if (scx_json_begin(d, js, len))
		return -EINVAL;
	off = scx_json_check_bytes(js, len, &why);
	if (off != SIZE_MAX)
		return scx_json_fail(d, off, why);
	if (!d->cap) {
		/* one allocation: tokens, then 2 ints of scratch per token */
		d->cap = 64;
		d->tok = scx_xmalloc(d->cap * (sizeof(jsmntok_t) + 2 * sizeof(int)));
	}
	for (;;) {
		unsigned need;

		jsmn_init(&p);
		r = jsmn_parse(&p, js, len, d->tok, d->cap);
		if (r != JSMN_ERROR_NOMEM)
			break;
		/*
		 * Count the tokens in one pass and size the array once: doubling
		 * from 64 re-parsed a 100k-token scx-agg snapshot eleven times.
		 */
		jsmn_init(&p);
		r = jsmn_parse(&p, js, len, NULL, 0);
		if (r < 0)
			break;
		need = (unsigned)r;
		if (need >= 1024 && scan_depth(js, len, &off))
			return scx_json_fail(d, off, "nesting too deep");
		if (need > INT32_MAX / 4)
			return scx_json_fail(d, 0, "document too large");
		do /* at least once, so a miscount cannot loop */
			d->cap *= 2;
		while ((unsigned)d->cap < need);
		free(d->tok);
		d->tok = scx_xmalloc(d->cap * (sizeof(jsmntok_t) + 2 * sizeof(int)));
	}
	if ((r == JSMN_ERROR_INVAL || r == JSMN_ERROR_PART) && scan_depth(js, len, &off))
		return scx_json_fail(d, off, "nesting too deep");
	if (r == JSMN_ERROR_INVAL)
		return scx_json_fail(d, p.pos, "invalid JSON");
	if (r == JSMN_ERROR_PART)
		return scx_json_fail(d, len, "unexpected end of JSON");
	d->ntok = r;
	return check_structure(d, (int *)(d->tok + d->cap));
}
