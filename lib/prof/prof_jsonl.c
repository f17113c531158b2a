// SPDX-License-Identifier: GPL-2.0
/*
 * perf.jsonl and hints.jsonl readers.  A generic tokenizer would build a
 * token array per line; these lines are flat objects read millions of times,
 * so a one-pass walker validates them strictly and hands out the raw member
 * views instead (extract must read >= 2M records/s on one core).
 */
#include <errno.h>
#include <string.h>

#include "prof/prof.h"

#define MAX_DEPTH 64

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

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/* 8 bytes at a time up to the first '"', '\\' or control byte (or near the end) */
static inline size_t plain_run(const char *s, size_t i, size_t n)
{
	while (i + 8 <= n) {
		uint64_t w, q, b;

		memcpy(&w, s + i, 8);
		q = w ^ (ONES * '"');
		b = w ^ (ONES * '\\');
		if (((q - ONES) & ~q & HIGHS) | ((b - ONES) & ~b & HIGHS) |
		    ((w - ONES * 0x20) & ~w & HIGHS))
			break;
		i += 8;
	}
	return i;
}

/* at '"'; on success i is past the closing quote and *body the raw content */
static int str(struct jp *p, struct prof_str *body, bool *esc)
{
	size_t i = p->i + 1;

	*esc = false;
	for (;;) {
		unsigned char c;

		i = plain_run(p->s, i, p->n);

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

static int value(struct jp *p, int depth, int *type, struct prof_str *v, bool *esc);

static int container(struct jp *p, int depth, char open)
{
	char close = open == '{' ? '}' : ']';
	struct prof_str v;
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

static int value(struct jp *p, int depth, int *type, struct prof_str *v, bool *esc)
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
		*type = PROF_JSTR;
		return str(p, v, esc);
	case '{':
	case '[':
		*type = PROF_JOTHER;
		err = container(p, depth, p->s[p->i]);
		break;
	case 't':
		*type = PROF_JOTHER;
		err = lit(p, "true");
		break;
	case 'f':
		*type = PROF_JOTHER;
		err = lit(p, "false");
		break;
	case 'n':
		*type = PROF_JOTHER;
		err = lit(p, "null");
		break;
	default:
		*type = PROF_JNUM;
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

int prof_json_object(const char *s, size_t n, prof_member_fn fn, void *ctx, size_t *err_off,
		     const char **why)
{
	struct jp p = { .s = s, .n = n };
	struct prof_str k, v;
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

static unsigned hexv(char c)
{
	return c <= '9' ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
}

static void put_utf8(struct scx_buf *b, uint32_t cp)
{
	char o[4];
	size_t n;

	if (cp < 0x80)
		o[0] = (char)cp, n = 1;
	else if (cp < 0x800)
		o[0] = (char)(0xc0 | cp >> 6), o[1] = (char)(0x80 | (cp & 0x3f)), n = 2;
	else if (cp < 0x10000)
		o[0] = (char)(0xe0 | cp >> 12), o[1] = (char)(0x80 | ((cp >> 6) & 0x3f)),
		o[2] = (char)(0x80 | (cp & 0x3f)), n = 3;
	else
		o[0] = (char)(0xf0 | cp >> 18), o[1] = (char)(0x80 | ((cp >> 12) & 0x3f)),
		o[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), o[3] = (char)(0x80 | (cp & 0x3f)), n = 4;
	scx_buf_add(b, o, n);
}

int prof_json_unescape(struct prof_str raw, struct scx_buf *b)
{
	size_t i = 0;

	while (i < raw.n) {
		char c = raw.p[i];
		uint32_t cp;

		if (c != '\\') {
			size_t j = i;

			while (j < raw.n && raw.p[j] != '\\')
				j++;
			scx_buf_add(b, raw.p + i, j - i);
			i = j;
			continue;
		}
		if (i + 1 >= raw.n)
			return -EINVAL;
		c = raw.p[i + 1];
		i += 2;
		switch (c) {
		case '"':
			scx_buf_add(b, "\"", 1);
			continue;
		case '\\':
			scx_buf_add(b, "\\", 1);
			continue;
		case '/':
			scx_buf_add(b, "/", 1);
			continue;
		case 'b':
			scx_buf_add(b, "\b", 1);
			continue;
		case 'f':
			scx_buf_add(b, "\f", 1);
			continue;
		case 'n':
			scx_buf_add(b, "\n", 1);
			continue;
		case 'r':
			scx_buf_add(b, "\r", 1);
			continue;
		case 't':
			scx_buf_add(b, "\t", 1);
			continue;
		case 'u':
			break;
		default:
			return -EINVAL;
		}
		if (i + 4 > raw.n)
			return -EINVAL;
		for (int k = 0; k < 4; k++)
			if (!is_hexc(raw.p[i + k]))
				return -EINVAL;
		cp = hexv(raw.p[i]) << 12 | hexv(raw.p[i + 1]) << 8 | hexv(raw.p[i + 2]) << 4 |
		     hexv(raw.p[i + 3]);
		i += 4;
		if (cp >= 0xd800 && cp < 0xdc00 && i + 6 <= raw.n && raw.p[i] == '\\' &&
		    raw.p[i + 1] == 'u') {
			uint32_t lo = 0;
			bool ok = true;

			for (int k = 0; k < 4; k++) {
				if (!is_hexc(raw.p[i + 2 + k]))
					ok = false;
				else
					lo = lo << 4 | hexv(raw.p[i + 2 + k]);
			}
			if (ok && lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				i += 6;
			}
		}
		if (cp >= 0xd800 && cp < 0xe000)
			cp = 0xfffd; /* lone surrogate */
		put_utf8(b, cp);
	}
	return 0;
}

/* a JSON integer (no fraction or exponent), 0..max */
static int to_u64(struct prof_str v, uint64_t max, uint64_t *out)
{
	uint64_t x = 0;

	if (!v.n || v.p[0] == '-')
		return -ERANGE;
	for (size_t i = 0; i < v.n; i++) {
		if (v.p[i] < '0' || v.p[i] > '9')
			return -EINVAL;
		if (x > (UINT64_MAX - (uint64_t)(v.p[i] - '0')) / 10)
			return -ERANGE;
		x = x * 10 + (uint64_t)(v.p[i] - '0');
	}
	if (x > max)
		return -ERANGE;
	*out = x;
	return 0;
}

static int to_i64(struct prof_str v, int64_t min, int64_t max, int64_t *out)
{
	uint64_t u;
	bool neg = v.n && v.p[0] == '-';
	struct prof_str m = neg ? (struct prof_str){ v.p + 1, v.n - 1 } : v;
	int err = to_u64(m, neg ? (uint64_t)-(min + 1) + 1 : (uint64_t)max, &u);

	if (err)
		return err;
	*out = neg ? (int64_t)(0 - u) : (int64_t)u;
	return 0;
}

/* ---- perf.jsonl records --------------------------------------------------- */

enum {
	F_COMM,
	F_TID,
	F_PID,
	F_TIME,
	F_ADDR,
	F_CGROUP,
	F_IP,
	F_SYM,
	F_DSO,
	F_PHYS,
	F_PAGE,
	F_HINT,
	F_NR
};
static const char *const fnames[F_NR] = {
	"comm", "tid", "pid", "time",	   "addr",	     "cgroup",
	"ip",	"sym", "dso", "phys_addr", "data_page_size", "hint",
};

struct rec_ctx {
	struct prof_rec *r;
	struct scx_buf *scratch;
	unsigned seen;
	size_t off[F_NR]; /* unescaped strings: offset into scratch, +1 */
	const char *why;
	struct scx_buf key;
};

static int field_of(struct prof_str k)
{
	switch (k.n) {
	case 2:
		return prof_str_eq(k, "ip") ? F_IP : -1;
	case 3:
		if (prof_str_eq(k, "tid"))
			return F_TID;
		if (prof_str_eq(k, "pid"))
			return F_PID;
		if (prof_str_eq(k, "sym"))
			return F_SYM;
		return prof_str_eq(k, "dso") ? F_DSO : -1;
	case 4:
		if (prof_str_eq(k, "comm"))
			return F_COMM;
		if (prof_str_eq(k, "time"))
			return F_TIME;
		if (prof_str_eq(k, "addr"))
			return F_ADDR;
		return prof_str_eq(k, "hint") ? F_HINT : -1;
	case 6:
		return prof_str_eq(k, "cgroup") ? F_CGROUP : -1;
	case 9:
		return prof_str_eq(k, "phys_addr") ? F_PHYS : -1;
	case 14:
		return prof_str_eq(k, "data_page_size") ? F_PAGE : -1;
	}
	return -1;
}

static struct prof_str *str_field(struct prof_rec *r, int f)
{
	switch (f) {
	case F_COMM:
		return &r->comm;
	case F_TIME:
		return &r->time;
	case F_ADDR:
		return &r->addr;
	case F_CGROUP:
		return &r->cgroup;
	case F_IP:
		return &r->ip;
	case F_SYM:
		return &r->sym;
	case F_DSO:
		return &r->dso;
	case F_PHYS:
		return &r->phys;
	}
	return NULL;
}

static int rec_member(void *ctx, struct prof_str k, bool kesc, int type, struct prof_str v,
		      bool vesc)
{
	struct rec_ctx *c = ctx;
	struct prof_rec *r = c->r;
	uint64_t u;
	int f;

	if (kesc) {
		scx_buf_reset(&c->key);
		if (prof_json_unescape(k, &c->key))
			return c->why = "bad key", -EINVAL;
		k = (struct prof_str){ c->key.data, c->key.len };
	}
	f = field_of(k);
	if (f < 0)
		return 0;
	if (c->seen & (1u << f)) {
		static char msg[48];

		snprintf(msg, sizeof(msg), "duplicate key '%s'", fnames[f]);
		c->why = msg;
		return -EINVAL;
	}
	c->seen |= 1u << f;
	switch (f) {
	case F_TID:
	case F_PID:
	case F_PAGE:
	case F_HINT:
		if (type != PROF_JNUM ||
		    to_u64(v, f == F_PAGE || f == F_HINT ? UINT64_MAX : UINT32_MAX, &u)) {
			static char msg[64];

			snprintf(msg, sizeof(msg), "'%s' must be an unsigned %s-bit integer",
				 fnames[f], f == F_PAGE || f == F_HINT ? "64" : "32");
			c->why = msg;
			return -EINVAL;
		}
		if (f == F_TID)
			r->tid = (uint32_t)u;
		else if (f == F_PID)
			r->pid = (uint32_t)u;
		else if (f == F_PAGE)
			r->page_size = u;
		else
			r->has_hint = true, r->hint = u;
		return 0;
	default:
		if (type != PROF_JSTR) {
			static char msg[48];

			snprintf(msg, sizeof(msg), "'%s' must be a string", fnames[f]);
			c->why = msg;
			return -EINVAL;
		}
		if (vesc) {
			size_t at = c->scratch->len;

			if (prof_json_unescape(v, c->scratch))
				return c->why = "bad string escape", -EINVAL;
			c->off[f] = at + 1;
			str_field(r, f)->n = c->scratch->len - at;
		} else {
			*str_field(r, f) = v;
		}
		return 0;
	}
}

/*
 * The lines process writes have one shape: these keys in this order, no
 * whitespace, no escapes.  Matching that shape directly is several times
 * faster than walking members; anything else takes the general path.
 */
static bool lit_at(const char *s, size_t n, size_t *i, const char *lit, size_t ln)
{
	if (n - *i < ln || memcmp(s + *i, lit, ln))
		return false;
	*i += ln;
	return true;
}

static bool fast_str(const char *s, size_t n, size_t *i, struct prof_str *out)
{
	size_t j;

	if (*i >= n || s[*i] != '"')
		return false;
	j = plain_run(s, *i + 1, n);
	while (j < n && s[j] != '"' && s[j] != '\\' && (unsigned char)s[j] >= 0x20)
		j++;
	if (j >= n || s[j] != '"')
		return false;
	out->p = s + *i + 1;
	out->n = j - *i - 1;
	*i = j + 1;
	return true;
}

static bool fast_uint(const char *s, size_t n, size_t *i, uint64_t max, uint64_t *out)
{
	size_t j = *i;
	uint64_t v = 0;

	if (j >= n || s[j] < '0' || s[j] > '9' ||
	    (s[j] == '0' && j + 1 < n && s[j + 1] >= '0' && s[j + 1] <= '9'))
		return false;
	for (; j < n && s[j] >= '0' && s[j] <= '9'; j++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(s[j] - '0');
	}
	if (v > max || (j < n && (s[j] == '.' || s[j] == 'e' || s[j] == 'E')))
		return false;
	*out = v;
	*i = j;
	return true;
}

#define LIT(str) lit_at(s, n, &i, str, sizeof(str) - 1)

static bool rec_fast(const char *s, size_t n, struct prof_rec *r)
{
	size_t i = 0;
	uint64_t tid, pid;

	if (!(LIT("{\"comm\":") && fast_str(s, n, &i, &r->comm) && LIT(",\"tid\":") &&
	      fast_uint(s, n, &i, UINT32_MAX, &tid) && LIT(",\"pid\":") &&
	      fast_uint(s, n, &i, UINT32_MAX, &pid) && LIT(",\"time\":") &&
	      fast_str(s, n, &i, &r->time) && LIT(",\"addr\":") && fast_str(s, n, &i, &r->addr) &&
	      LIT(",\"cgroup\":") && fast_str(s, n, &i, &r->cgroup) && LIT(",\"ip\":") &&
	      fast_str(s, n, &i, &r->ip) && LIT(",\"sym\":") && fast_str(s, n, &i, &r->sym) &&
	      LIT(",\"dso\":") && fast_str(s, n, &i, &r->dso) && LIT(",\"phys_addr\":") &&
	      fast_str(s, n, &i, &r->phys) && LIT(",\"data_page_size\":") &&
	      fast_uint(s, n, &i, UINT64_MAX, &r->page_size)))
		return false;
	if (LIT(",\"hint\":")) {
		if (!fast_uint(s, n, &i, UINT64_MAX, &r->hint))
			return false;
		r->has_hint = true;
	}
	if (!LIT("}") || i != n)
		return false;
	r->tid = (uint32_t)tid;
	r->pid = (uint32_t)pid;
	return true;
}

int prof_rec_parse(const char *line, size_t len, struct prof_rec *r, struct scx_buf *scratch,
		   size_t *err_off, const char **why)
{
	struct rec_ctx c = { .r = r, .scratch = scratch };
	int err;

	memset(r, 0, sizeof(*r));
	if (rec_fast(line, len, r))
		return 0;
	memset(r, 0, sizeof(*r));
	scx_buf_reset(scratch);
	err = prof_json_object(line, len, rec_member, &c, err_off, why);
	scx_buf_free(&c.key);
	if (err) {
		if (c.why)
			*why = c.why;
		return err;
	}
	for (int f = 0; f < F_HINT; f++) {
		if (!(c.seen & (1u << f))) {
			static char msg[48];

			snprintf(msg, sizeof(msg), "missing key '%s'", fnames[f]);
			*why = msg;
			*err_off = 0;
			return -EINVAL;
		}
		if (c.off[f])
			str_field(r, f)->p = scratch->data + c.off[f] - 1;
	}
	return 0;
}

/* ---- hints.jsonl ------------------------------------------------------------ */

struct hint_ctx {
	struct prof_hint_rec *r;
	unsigned seen;
	const char *why;
};

static int hint_member(void *ctx, struct prof_str k, bool kesc, int type, struct prof_str v,
		       bool vesc)
{
	struct hint_ctx *c = ctx;
	int64_t i;
	uint64_t u;
	int f = -1;

	if (prof_str_eq(k, "pid"))
		f = 0;
	else if (prof_str_eq(k, "tgid"))
		f = 1;
	else if (prof_str_eq(k, "hints"))
		f = 2;
	else if (prof_str_eq(k, "timestamp"))
		f = 3;
	if (f < 0)
		return 0;
	if (c->seen & (1u << f))
		return c->why = "duplicate key", -EINVAL;
	c->seen |= 1u << f;
	if (type != PROF_JNUM)
		return c->why = "values must be integers", -EINVAL;
	if (f < 2) {
		if (to_i64(v, INT32_MIN, INT32_MAX, &i))
			return c->why = "pid and tgid must be 32-bit integers", -EINVAL;
		if (f == 0)
			c->r->pid = (int32_t)i;
		else
			c->r->tgid = (int32_t)i;
	} else {
		if (to_u64(v, UINT64_MAX, &u))
			return c->why = "hints and timestamp must be unsigned 64-bit integers",
			       -EINVAL;
		if (f == 2)
			c->r->hints = u;
		else
			c->r->ts = u;
	}
	return 0;
}

int prof_hint_parse(const char *line, size_t len, struct prof_hint_rec *r, const char **why)
{
	struct hint_ctx c = { .r = r };
	size_t off;
	int err;

	memset(r, 0, sizeof(*r));
	*why = NULL;
	err = prof_json_object(line, len, hint_member, &c, &off, why);
	if (err) {
		if (c.why)
			*why = c.why;
		return err;
	}
	if (c.seen != 0xf) {
		*why = "needs pid, tgid, hints and timestamp";
		return -EINVAL;
	}
	return 0;
}
