// SPDX-License-Identifier: GPL-2.0
/*
 * The one-pass walker over a flat JSON object (json.h): for line readers that
 * read millions of flat objects and want each member's raw key and value, not
 * a token array.  It validates strictly, as the tokenizer does, and skips
 * nested values after validating them.
 */
#include <errno.h>
#include <string.h>

#include "json/json.h"

#define MAX_DEPTH SCX_JSON_MAX_DEPTH

struct jp {
	const char *s;
	size_t n, i;
	const char *why;
};

static inline void ws(struct jp *p)
{
	while (p->i < p->n) {
		char c = p->s[p->i];

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		p->i++;
	}
}

static inline bool is_hexc(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* at '"'; on success i is past the closing quote and *body the raw content */
static int str(struct jp *p, struct scx_str *body, bool *esc)
{
	size_t i = p->i + 1;

	*esc = false;
	for (;;) {
		unsigned char c;

		i = scx_json_plain_end(p->s, i, p->n);

		if (i >= p->n) {
			p->why = "unterminated string";
			return -EINVAL;
		}
		c = (unsigned char)p->s[i];
		if (c == '"')
			break;
		if (c < 0x20) {
			p->i = i;
			p->why = "control character in string";
			return -EINVAL;
		}
		if (c == '\\') {
			*esc = true;
			if (i + 1 >= p->n) {
				p->i = i;
				p->why = "unterminated string";
				return -EINVAL;
			}
			switch (p->s[i + 1]) {
			case '"':
			case '\\':
			case '/':
			case 'b':
			case 'f':
			case 'n':
			case 'r':
			case 't':
				i += 2;
				continue;
			case 'u':
				if (i + 6 > p->n || !is_hexc(p->s[i + 2]) ||
				    !is_hexc(p->s[i + 3]) || !is_hexc(p->s[i + 4]) ||
				    !is_hexc(p->s[i + 5])) {
					p->i = i;
					p->why = "bad \\u escape";
					return -EINVAL;
				}
				i += 6;
				continue;
			default:
				p->i = i;
				p->why = "bad escape";
				return -EINVAL;
			}
		}
		i++;
	}
	body->p = p->s + p->i + 1;
	body->n = i - p->i - 1;
	p->i = i + 1;
	return 0;
}

static int num(struct jp *p)
{
	size_t i = p->i, d;

	if (i < p->n && p->s[i] == '-')
		i++;
	if (i < p->n && p->s[i] == '0') {
		i++;
	} else {
		d = i;
		while (i < p->n && p->s[i] >= '0' && p->s[i] <= '9')
			i++;
		if (i == d)
			goto bad;
	}
	if (i < p->n && p->s[i] == '.') {
		d = ++i;
		while (i < p->n && p->s[i] >= '0' && p->s[i] <= '9')
			i++;
		if (i == d)
			goto bad;
	}
	if (i < p->n && (p->s[i] == 'e' || p->s[i] == 'E')) {
		i++;
		if (i < p->n && (p->s[i] == '+' || p->s[i] == '-'))
			i++;
		d = i;
		while (i < p->n && p->s[i] >= '0' && p->s[i] <= '9')
			i++;
		if (i == d)
			goto bad;
	}
	p->i = i;
	return 0;
bad:
	p->i = i;
	p->why = "bad number";
	return -EINVAL;
}

static int value(struct jp *p, int depth, int *type, struct scx_str *v, bool *esc);

static int container(struct jp *p, int depth, char open)
{
	char close = open == '{' ? '}' : ']';
	struct scx_str v;
	bool esc;
	int type, err;

	if (depth >= MAX_DEPTH) {
		p->why = "nesting too deep";
		return -EINVAL;
	}
	p->i++;
	ws(p);
	if (p->i < p->n && p->s[p->i] == close) {
		p->i++;
		return 0;
	}
	for (;;) {
		if (open == '{') {
			if (p->i >= p->n || p->s[p->i] != '"') {
				p->why = "expected a key";
				return -EINVAL;
			}
			if ((err = str(p, &v, &esc)))
				return err;
			ws(p);
			if (p->i >= p->n || p->s[p->i] != ':') {
				p->why = "expected ':'";
				return -EINVAL;
			}
			p->i++;
			ws(p);
		}
		if ((err = value(p, depth + 1, &type, &v, &esc)))
			return err;
		ws(p);
		if (p->i < p->n && p->s[p->i] == ',') {
			p->i++;
			ws(p);
			continue;
		}
		if (p->i < p->n && p->s[p->i] == close) {
			p->i++;
			return 0;
		}
		p->why = open == '{' ? "expected ',' or '}'" : "expected ',' or ']'";
		return -EINVAL;
	}
}

static int lit(struct jp *p, const char *w)
{
	size_t n = strlen(w);

	if (p->n - p->i < n || memcmp(p->s + p->i, w, n)) {
		p->why = "unexpected character";
		return -EINVAL;
	}
	p->i += n;
	return 0;
}

static int value(struct jp *p, int depth, int *type, struct scx_str *v, bool *esc)
{
	size_t start = p->i;
	int err;

	*esc = false;
	if (p->i >= p->n) {
		p->why = "expected a value";
		return -EINVAL;
	}
	switch (p->s[p->i]) {
	case '"':
		*type = SCX_JSON_VSTR;
		return str(p, v, esc);
	case '{':
	case '[':
		*type = SCX_JSON_VOTHER;
		err = container(p, depth, p->s[p->i]);
		break;
	case 't':
		*type = SCX_JSON_VOTHER;
		err = lit(p, "true");
		break;
	case 'f':
		*type = SCX_JSON_VOTHER;
		err = lit(p, "false");
		break;
	case 'n':
		*type = SCX_JSON_VOTHER;
		err = lit(p, "null");
		break;
	default:
		*type = SCX_JSON_VNUM;
		if (p->s[p->i] != '-' && (p->s[p->i] < '0' || p->s[p->i] > '9')) {
			p->why = "expected a value";
			return -EINVAL;
		}
		err = num(p);
	}
	v->p = p->s + start;
	v->n = p->i - start;
	return err;
}

int scx_json_walk_object(const char *s, size_t n, scx_json_member_fn fn, void *ctx, size_t *err_off,
			 const char **why)
{
	struct jp p = { .s = s, .n = n };
	struct scx_str k, v;
	bool kesc, vesc;
	int type, err = 0;

	ws(&p);
	if (p.i >= n || s[p.i] != '{') {
		p.why = p.i >= n ? "empty line" : "expected '{'";
		err = -EINVAL;
		goto out;
	}
	p.i++;
	ws(&p);
	if (p.i < n && s[p.i] == '}') {
		p.i++;
		goto end;
	}
	for (;;) {
		if (p.i >= n || s[p.i] != '"') {
			p.why = "expected a key";
			err = -EINVAL;
			goto out;
		}
		if ((err = str(&p, &k, &kesc)))
			goto out;
		ws(&p);
		if (p.i >= n || s[p.i] != ':') {
			p.why = "expected ':'";
			err = -EINVAL;
			goto out;
		}
		p.i++;
		ws(&p);
		if ((err = value(&p, 1, &type, &v, &vesc)))
			goto out;
		if (fn && (err = fn(ctx, k, kesc, type, v, vesc))) {
			p.why = NULL;
			p.i = (size_t)(v.p - s);
			goto out;
		}
		ws(&p);
		if (p.i < n && s[p.i] == ',') {
			p.i++;
			ws(&p);
			continue;
		}
		if (p.i < n && s[p.i] == '}') {
			p.i++;
			break;
		}
		p.why = "expected ',' or '}'";
		err = -EINVAL;
		goto out;
	}
end:
	ws(&p);
	if (p.i != n) {
		p.why = "trailing characters after the object";
		err = -EINVAL;
	}
out:
	if (err) {
		if (err_off)
			*err_off = p.i;
		if (why && p.why)
			*why = p.why;
	}
	return err;
}
