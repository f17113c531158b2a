// SPDX-License-Identifier: GPL-2.0
/*
 * A tool's result against its outputSchema, before it is sent: every
 * top-level key is in the tool's table (struct mcp_out) with its type.
 */
#include <stdbool.h>
#include <string.h>

#include "mcp/mcp_int.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/*
 * Checking a result costs no more than a fraction of writing it: the result
 * is our own writer's valid JSON, so finding the end of a member's value
 * needs only quotes, escapes and brackets, and the strict parsers (tokens,
 * or a validating walk) cost as much as the report they check.  Results are
 * mostly small and their tools cheap, so a byte must cost little: with SSE2
 * (every x86-64) the next byte that matters is found 16 bytes a step, and
 * byte loops take the last few bytes (and all of them elsewhere).
 */

/* The first quote or backslash in s[i, n), else n. */
static inline size_t string_stop(const char *s, size_t i, size_t n)
{
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');

	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(s + i));
		unsigned m = (unsigned)_mm_movemask_epi8(
			_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));

		if (m)
			return i + __builtin_ctz(m);
	}
#endif
	while (i < n && s[i] != '"' && s[i] != '\\')
		i++;
	return i;
}

static const bool value_special[256] = {
	['"'] = 1, ['{'] = 1, ['['] = 1, ['}'] = 1, [']'] = 1, [','] = 1,
};

/* The first quote, bracket or comma in s[i, n), else n. */
static inline size_t value_stop(const char *s, size_t i, size_t n)
{
#ifdef __SSE2__
	/* '[' and ']' are '{' and '}' without bit 5 */
	const __m128i bit5 = _mm_set1_epi8(0x20), open = _mm_set1_epi8('{'),
		      close = _mm_set1_epi8('}'), quote = _mm_set1_epi8('"'),
		      comma = _mm_set1_epi8(',');

	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(s + i)), w = _mm_or_si128(v, bit5);
		__m128i hit = _mm_or_si128(
			_mm_or_si128(_mm_cmpeq_epi8(w, open), _mm_cmpeq_epi8(w, close)),
			_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, comma)));
		unsigned m = (unsigned)_mm_movemask_epi8(hit);

		if (m)
			return i + __builtin_ctz(m);
	}
#endif
	while (i < n && !value_special[(unsigned char)s[i]])
		i++;
	return i;
}

/* The end of the string whose opening quote is at s[i]: just past its closing quote. */
static inline size_t skip_string(const char *s, size_t i, size_t n)
{
	for (;;) {
		i = string_stop(s, i + 1, n);
		if (i >= n)
			return n;
		if (s[i] == '"')
			return i + 1;
		if (++i >= n) /* the escaped byte */
			return n;
	}
}

/*
 * One byte of an object or array being skipped, outside SSE2's steps: 1
 * when it closes the value (depth back to 0).
 */
static inline bool nested_byte(char c, long *depth, bool *in_string, bool *escaped)
{
	if (*escaped)
		*escaped = false;
	else if (*in_string)
		*escaped = c == '\\', *in_string = c != '"';
	else if (c == '"')
		*in_string = true;
	else if (c == '{' || c == '[')
		++*depth;
	else if (c == '}' || c == ']')
		return --*depth == 0;
	return false;
}

/*
 * The end of the object or array that opens at s[i]: just past its closing
 * bracket, else n.  With SSE2, 16 bytes a step whatever they hold: the
 * quotes' running parity marks what is inside strings, and only the
 * brackets outside them are looked at.  A step with a backslash goes byte
 * by byte, as escapes are rare in our results.
 */
static size_t skip_nested(const char *s, size_t i, size_t n)
{
	long depth = 0;
	bool in_string = false, escaped = false;

#ifdef __SSE2__
	const __m128i bit5 = _mm_set1_epi8(0x20), open = _mm_set1_epi8('{'),
		      close = _mm_set1_epi8('}'), quote = _mm_set1_epi8('"'),
		      backslash = _mm_set1_epi8('\\');

	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(s + i)), w = _mm_or_si128(v, bit5);
		unsigned q = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote));
		unsigned o = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, open));
		unsigned br = o | (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, close));

		if (escaped || _mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash))) {
			for (unsigned k = 0; k < 16; k++)
				if (nested_byte(s[i + k], &depth, &in_string, &escaped))
					return i + k + 1;
			continue;
		}
		/* bit k: an odd number of quotes at or before k, so inside a string */
		q ^= q << 1;
		q ^= q << 2;
		q ^= q << 4;
		q ^= q << 8;
		if (in_string)
			q = ~q;
		in_string = q >> 15 & 1;
		for (br &= ~q; br; br &= br - 1) {
			unsigned k = (unsigned)__builtin_ctz(br);

			if (o >> k & 1)
				depth++;
			else if (--depth == 0)
				return i + k + 1;
		}
	}
#endif
	for (; i < n; i++)
		if (nested_byte(s[i], &depth, &in_string, &escaped))
			return i + 1;
	return n;
}

/* The end of the value that starts at s[i] (a member's: it ends at depth 0). */
static size_t skip_value(const char *s, size_t i, size_t n)
{
	long depth = 0;

	if (s[i] == '"')
		return skip_string(s, i, n);
	if (s[i] == '{' || s[i] == '[')
		return skip_nested(s, i, n);

	for (;;) {
		i = value_stop(s, i, n);
		if (i >= n)
			return n;
		switch (s[i]) {
		case '"':
			i = skip_string(s, i, n);
			if (!depth)
				return i;
			continue;
		case '{':
		case '[':
			depth++;
			break;
		case ',':
			if (!depth)
				return i;
			break;
		default: /* a closing bracket: ours, or the object's around the value */
			if (depth-- <= 0)
				return i;
			if (!depth)
				return i + 1;
		}
		i++;
	}
}

/* A value's JSON Schema type by its first byte, as the type's first letter. */
static const char type_of[256] = {
	['"'] = 's', ['{'] = 'o', ['['] = 'a', ['t'] = 'b', ['f'] = 'b', ['-'] = 'n',
	['0'] = 'n', ['1'] = 'n', ['2'] = 'n', ['3'] = 'n', ['4'] = 'n', ['5'] = 'n',
	['6'] = 'n', ['7'] = 'n', ['8'] = 'n', ['9'] = 'n',
};

/* (a table's types are the five of struct mcp_out: unit 5005 checks) */
static inline bool type_is(char first, const char *type)
{
	return type_of[(unsigned char)first] == type[0];
}

/*
 * The length of key (a table's, MCP_OUT_KEY bytes) when the member's key in
 * s[0, n) (past its opening quote) is key, closing quote included, else 0:
 * the expected key is matched as the string is read, which spares reading
 * it twice, and with SSE2 16 bytes at once.  The quote that ends the match
 * follows a byte of key, never a backslash, so it closes the string.
 */
static inline size_t key_here(const char *key, const char *s, size_t n)
{
	size_t j = 0;

#ifdef __SSE2__
	for (; j + 16 <= MCP_OUT_KEY && j + 16 <= n; j += 16) {
		__m128i k = _mm_loadu_si128((const __m128i *)(key + j));
		unsigned nul = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(k, _mm_setzero_si128()));
		unsigned eq = (unsigned)_mm_movemask_epi8(
			_mm_cmpeq_epi8(k, _mm_loadu_si128((const __m128i *)(s + j))));

		if (nul) { /* the key ends in this step: s[j + len] is in s[0, n) */
			unsigned len = (unsigned)__builtin_ctz(nul), want = (1u << len) - 1;

			return (eq & want) == want && s[j + len] == '"' ? j + len : 0;
		}
		if (eq != 0xffff)
			return 0;
	}
#endif
	while (j < MCP_OUT_KEY && j < n && key[j] && key[j] == s[j])
		j++;
	return j < MCP_OUT_KEY && !key[j] && j < n && s[j] == '"' ? j : 0;
}

/*
 * The table's entry for the raw key k[0, kn) (its closing quote at k[kn]),
 * or NULL.  Tools write their keys mostly in
 * the table's order: the search starts after the last match (*from).
 */
static const struct mcp_out *out_find(const struct mcp_out *table, const struct mcp_out **from,
				      const char *k, size_t kn, size_t n)
{
	for (const struct mcp_out *o = *from; o->key[0]; o++)
		if (kn && key_here(o->key, k, n) == kn)
			return *from = o + 1, o;
	for (const struct mcp_out *o = table; o < *from; o++)
		if (kn && key_here(o->key, k, n) == kn)
			return *from = o + 1, o;
	return NULL;
}

static inline size_t skip_ws(const char *s, size_t i, size_t n)
{
	/* (our writer writes none: one test for the byte that is not) */
	while (i < n && (unsigned char)s[i] <= ' ' &&
	       (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r'))
		i++;
	return i;
}

/*
 * Past the byte ch at s[i] or after white space, else 0 with *at where it
 * should have been.  Our writer writes no white space: one test mostly.
 */
static inline size_t past(const char *s, size_t i, size_t n, char ch, size_t *at)
{
	if (i < n && s[i] == ch)
		return i + 1;
	i = skip_ws(s, i, n);
	if (i < n && s[i] == ch)
		return i + 1;
	*at = i;
	return 0;
}

int mcp_check_output(struct mcp_call *c)
{
	static const struct mcp_out no_keys[] = { { "" } };
	const struct mcp_out *table = c->tool->out ? c->tool->out : no_keys, *from = table;
	const char *s = c->out.data;
	size_t n = c->out.len, i = skip_ws(s, 0, n);

	if (i >= n || s[i] != '{')
		goto bad;
	i = skip_ws(s, i + 1, n);
	if (i < n && s[i] == '}')
		return 0;
	for (;;) {
		const struct mcp_out *o = NULL;
		size_t k0 = i + 1, kn = 0, k;

		if (i >= n || s[i] != '"')
			goto bad;
		if (from->key[0])
			kn = key_here(from->key, s + k0, n - k0);
		if (kn) {
			o = from++;
			i = k0 + kn + 1;
		} else {
			i = skip_string(s, i, n);
			kn = i - 1 - k0;
		}
		k = past(s, i, n, ':', &i);
		if (!k)
			goto bad;
		i = k;
		if (i >= n || (unsigned char)s[i] <= ' ')
			i = skip_ws(s, i, n);
		if (i >= n)
			goto bad;
		if (!o)
			o = out_find(table, &from, s + k0, kn, n - k0);
		if (!o || !type_is(s[i], o->type))
			return mcp_fail(c,
					"internal error: the result of %s has '%.*s' %s its "
					"outputSchema",
					c->tool->name, (int)SCX_MIN(kn, 64), s + k0,
					o ? "of another type than" : "not in");
		i = skip_value(s, i, n);
		if (i < n && s[i] == ',' && i + 1 < n && s[i + 1] == '"') {
			i++;
			continue;
		}
		i = skip_ws(s, i, n);
		if (i < n && s[i] == ',') {
			i = skip_ws(s, i + 1, n);
			continue;
		}
		if (i < n && s[i] == '}')
			return 0;
		goto bad;
	}
bad:
	return mcp_fail(c, "internal error: %s wrote a result that is not a JSON object (byte %zu)",
			c->tool->name, i);
}
