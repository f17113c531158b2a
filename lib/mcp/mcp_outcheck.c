// SPDX-License-Identifier: GPL-2.0
/*
 * A tool's result against its outputSchema, before it is sent: every
 * top-level key is in the tool's table (struct mcp_out) with its type.
 */
#include <stdbool.h>
#include <string.h>

#include "mcp/mcp_int.h"

/*
 * Checking a result costs no more than a fraction of writing it: the result
 * is our own writer's valid JSON, so finding the end of a member's value
 * needs only quotes (strings skipped with memchr), escapes and brackets.  The
 * strict parsers (tokens, or a validating walk) read every byte through a
 * state machine and cost as much as the report they check.
 */
static const unsigned char json_special[256] = {
	['"'] = 1, ['{'] = 1, ['['] = 1, ['}'] = 1, [']'] = 1, [','] = 1,
};

/* The end of the string whose opening quote is at s[i]: just past its closing quote. */
static size_t skip_string(const char *s, size_t i, size_t n)
{
	for (;;) {
		const char *q = memchr(s + i + 1, '"', n - i - 1);
		size_t bs = 0;

		if (!q)
			return n;
		i = (size_t)(q - s);
		while (s[i - 1 - bs] == '\\')
			bs++;
		if (!(bs & 1))
			return i + 1;
	}
}

/* The end of the value that starts at s[i] (a member's: it ends at depth 0). */
static size_t skip_value(const char *s, size_t i, size_t n)
{
	long depth = 0;

	while (i < n) {
		while (i < n && !json_special[(unsigned char)s[i]])
			i++;
		if (i >= n)
			break;
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
	return n;
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

static bool key_is(const struct mcp_out *o, const char *k, size_t kn)
{
	return o->key[0] == k[0] && !strncmp(o->key, k, kn) && !o->key[kn];
}

/*
 * The table's entry for key k, or NULL.  Tools write their keys mostly in
 * the table's order: the search starts after the last match (*from).
 */
static const struct mcp_out *out_find(const struct mcp_out *table, const struct mcp_out **from,
				      const char *k, size_t kn)
{
	for (const struct mcp_out *o = *from; o->key; o++)
		if (key_is(o, k, kn))
			return *from = o + 1, o;
	for (const struct mcp_out *o = table; o < *from; o++)
		if (key_is(o, k, kn))
			return *from = o + 1, o;
	return NULL;
}

static size_t skip_ws(const char *s, size_t i, size_t n)
{
	while (i < n && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r'))
		i++;
	return i;
}

int mcp_check_output(struct mcp_call *c)
{
	const char *s = c->out.data;
	size_t n = c->out.len, i = skip_ws(s, 0, n);
	const struct mcp_out *from = c->tool->out;

	if (i >= n || s[i] != '{')
		goto bad;
	i = skip_ws(s, i + 1, n);
	if (i < n && s[i] == '}')
		return 0;
	for (;;) {
		const struct mcp_out *o;
		size_t k0, kn;

		if (i >= n || s[i] != '"')
			goto bad;
		k0 = i + 1;
		i = skip_string(s, i, n);
		kn = i - 1 - k0;
		i = skip_ws(s, i, n);
		if (i >= n || s[i] != ':')
			goto bad;
		i = skip_ws(s, i + 1, n);
		if (i >= n)
			goto bad;
		o = from ? out_find(c->tool->out, &from, s + k0, kn) : NULL;
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
