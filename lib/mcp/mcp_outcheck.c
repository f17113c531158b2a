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

/* The end of the value that starts at s[i] (a member's: it ends at depth 0). */
static size_t skip_value(const char *s, size_t i, size_t n)
{
	long depth = 0;

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

static bool type_is(char first, const char *type)
{
	switch (type[0]) {
	case 's':
		return first == '"';
	case 'o':
		return first == '{';
	case 'a':
		return first == '[';
	case 'b':
		return first == 't' || first == 'f';
	default: /* number */
		return first == '-' || (first >= '0' && first <= '9');
	}
}

/* Whether the raw key k[0..kn) is key (neither holds a NUL; key has no escape). */
static bool key_is(const char *key, const char *k, size_t kn)
{
	size_t j = 0;

	while (j < kn && key[j] && key[j] == k[j])
		j++;
	return j == kn && !key[j];
}

/*
 * The table's entry for key k, or NULL.  Tools write their keys mostly in
 * the table's order: the search starts after the last match (*from).
 */
static const struct mcp_out *out_find(const struct mcp_out *table, const struct mcp_out **from,
				      const char *k, size_t kn)
{
	for (const struct mcp_out *o = *from; o->key[0]; o++)
		if (key_is(o->key, k, kn))
			return *from = o + 1, o;
	for (const struct mcp_out *o = table; o < *from; o++)
		if (key_is(o->key, k, kn))
			return *from = o + 1, o;
	return NULL;
}

/*
 * The length of key (a table's, MCP_OUT_KEY bytes) when the member's key in
 * s[0, n) (past its opening quote) is key, closing quote included, else 0:
 * the expected key is matched as the string is read, which spares reading
 * it twice, and with SSE2 16 bytes at once.  The quote that ends the match
 * follows a byte of key, never a backslash, so it closes the string.
 */
static size_t key_here(const char *key, const char *s, size_t n)
{
	size_t j = 0;

#ifdef __SSE2__
	if (n >= 16) {
		__m128i k = _mm_loadu_si128((const __m128i *)key);
		unsigned nul = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(k, _mm_setzero_si128()));

		if (nul) { /* a key of up to 15 bytes: s[len] is in s[0, 16) */
			unsigned len = (unsigned)__builtin_ctz(nul), want = (1u << len) - 1;
			unsigned eq = (unsigned)_mm_movemask_epi8(
				_mm_cmpeq_epi8(k, _mm_loadu_si128((const __m128i *)s)));

			return (eq & want) == want && s[len] == '"' ? len : 0;
		}
	}
#endif
	while (j < n && key[j] && key[j] == s[j])
		j++;
	return !key[j] && j < n && s[j] == '"' ? j : 0;
}

static inline size_t skip_ws(const char *s, size_t i, size_t n)
{
	/* (our writer writes none: one test for the byte that is not) */
	while (i < n && (unsigned char)s[i] <= ' ' &&
	       (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r'))
		i++;
	return i;
}

int mcp_check_output(struct mcp_call *c)
{
	const struct mcp_out *from = c->tool->out;
	const char *s = c->out.data;
	size_t n = c->out.len, i = skip_ws(s, 0, n);

	if (i >= n || s[i] != '{')
		goto bad;
	i = skip_ws(s, i + 1, n);
	if (i < n && s[i] == '}')
		return 0;
	for (;;) {
		const struct mcp_out *o = NULL;
		size_t k0, kn = 0;

		if (i >= n || s[i] != '"')
			goto bad;
		k0 = i + 1;
		if (from && from->key[0])
			kn = key_here(from->key, s + k0, n - k0);
		if (kn) {
			o = from++;
			i = k0 + kn + 1;
		} else {
			i = skip_string(s, i, n);
			kn = i - 1 - k0;
		}
		i = skip_ws(s, i, n);
		if (i >= n || s[i] != ':')
			goto bad;
		i = skip_ws(s, i + 1, n);
		if (i >= n)
			goto bad;
		if (!o && from)
			o = out_find(c->tool->out, &from, s + k0, kn);
		if (!o || !type_is(s[i], o->type))
			return mcp_fail(c,
					"internal error: the result of %s has '%.*s' %s its "
					"outputSchema",
					c->tool->name, (int)SCX_MIN(kn, 64), s + k0,
					o ? "of another type than" : "not in");
		i = skip_ws(s, skip_value(s, i, n), n);
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
