// SPDX-License-Identifier: GPL-2.0
/*
 * Compact JSON re-indented the way serde_json::to_string_pretty prints it
 * (two spaces, "key": value, empty containers as [] and {}), so configs match
 * the original tool byte for byte.
 */
#include <errno.h>

#include "prof/prof.h"

static void indent(struct scx_buf *b, int depth)
{
	scx_buf_add(b, "\n", 1);
	for (int i = 0; i < depth; i++)
		scx_buf_add(b, "  ", 2);
}

static size_t skip_ws(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

int prof_json_pretty(const char *s, size_t n, struct scx_buf *out)
{
	int depth = 0;

	for (size_t i = skip_ws(s, n, 0); i < n; i = skip_ws(s, n, i)) {
		char c = s[i];
		size_t j;

		switch (c) {
		case '"':
			for (j = i + 1; j < n && s[j] != '"'; j++)
				if (s[j] == '\\')
					j++;
			if (j >= n)
				return -EINVAL;
			scx_buf_add(out, s + i, j + 1 - i);
			i = j + 1;
			break;
		case '[':
		case '{':
			j = skip_ws(s, n, i + 1);
			if (j < n && s[j] == (c == '[' ? ']' : '}')) {
				scx_buf_add(out, c == '[' ? "[]" : "{}", 2);
				i = j + 1;
				break;
			}
			scx_buf_add(out, &c, 1);
			indent(out, ++depth);
			i++;
			break;
		case ']':
		case '}':
			if (depth <= 0)
				return -EINVAL;
			indent(out, --depth);
			scx_buf_add(out, &c, 1);
			i++;
			break;
		case ',':
			scx_buf_add(out, ",", 1);
			indent(out, depth);
			i++;
			break;
		case ':':
			scx_buf_add(out, ": ", 2);
			i++;
			break;
		default:
			scx_buf_add(out, &c, 1);
			i++;
		}
	}
	return depth ? -EINVAL : 0;
}
