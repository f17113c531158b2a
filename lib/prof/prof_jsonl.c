// SPDX-License-Identifier: GPL-2.0
/*
 * perf.jsonl and hints.jsonl readers.  A generic tokenizer would build a
 * token array per line; these lines are flat objects read millions of times,
 * so lib/json's one-pass walker validates them strictly and hands out the raw
 * member views instead (extract must read >= 2M records/s on one core), and
 * the usual record layout has a faster path still (rec_fast).
 */
#include <errno.h>
#include <string.h>

#include "json/json.h"
#include "prof/prof.h"

/* a JSON integer (no fraction or exponent), 0..max */
static int to_u64(struct scx_str v, uint64_t max, uint64_t *out)
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

static int to_i64(struct scx_str v, int64_t min, int64_t max, int64_t *out)
{
	uint64_t u;
	bool neg = v.n && v.p[0] == '-';
	struct scx_str m = neg ? (struct scx_str){ v.p + 1, v.n - 1 } : v;
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

static int field_of(struct scx_str k)
{
	switch (k.n) {
	case 2:
		return scx_str_eq(k, "ip") ? F_IP : -1;
	case 3:
		if (scx_str_eq(k, "tid"))
			return F_TID;
		if (scx_str_eq(k, "pid"))
			return F_PID;
		if (scx_str_eq(k, "sym"))
			return F_SYM;
		return scx_str_eq(k, "dso") ? F_DSO : -1;
	case 4:
		if (scx_str_eq(k, "comm"))
			return F_COMM;
		if (scx_str_eq(k, "time"))
			return F_TIME;
		if (scx_str_eq(k, "addr"))
			return F_ADDR;
		return scx_str_eq(k, "hint") ? F_HINT : -1;
	case 6:
		return scx_str_eq(k, "cgroup") ? F_CGROUP : -1;
	case 9:
		return scx_str_eq(k, "phys_addr") ? F_PHYS : -1;
	case 14:
		return scx_str_eq(k, "data_page_size") ? F_PAGE : -1;
	}
	return -1;
}

static struct scx_str *str_field(struct prof_rec *r, int f)
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

static int rec_member(void *ctx, struct scx_str k, bool kesc, int type, struct scx_str v, bool vesc)
{
	struct rec_ctx *c = ctx;
	struct prof_rec *r = c->r;
	uint64_t u;
	int f;

	if (kesc) {
		scx_buf_reset(&c->key);
		if (scx_json_unescape_buf(k, &c->key, SCX_JSON_LONE_FFFD))
			return c->why = "bad key", -EINVAL;
		k = (struct scx_str){ c->key.data, c->key.len };
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
		if (type != SCX_JSON_VNUM ||
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
		if (type != SCX_JSON_VSTR) {
			static char msg[48];

			snprintf(msg, sizeof(msg), "'%s' must be a string", fnames[f]);
			c->why = msg;
			return -EINVAL;
		}
		if (vesc) {
			size_t at = c->scratch->len;

			if (scx_json_unescape_buf(v, c->scratch, SCX_JSON_LONE_FFFD))
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

static bool fast_str(const char *s, size_t n, size_t *i, struct scx_str *out)
{
	size_t j;

	if (*i >= n || s[*i] != '"')
		return false;
	j = scx_json_plain_end(s, *i + 1, n);
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
	err = scx_json_walk_object(line, len, rec_member, &c, err_off, why);
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

static int hint_member(void *ctx, struct scx_str k, bool kesc, int type, struct scx_str v,
		       bool vesc)
{
	struct hint_ctx *c = ctx;
	int64_t i;
	uint64_t u;
	int f = -1;

	if (scx_str_eq(k, "pid"))
		f = 0;
	else if (scx_str_eq(k, "tgid"))
		f = 1;
	else if (scx_str_eq(k, "hints"))
		f = 2;
	else if (scx_str_eq(k, "timestamp"))
		f = 3;
	if (f < 0)
		return 0;
	if (c->seen & (1u << f))
		return c->why = "duplicate key", -EINVAL;
	c->seen |= 1u << f;
	if (type != SCX_JSON_VNUM)
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
	err = scx_json_walk_object(line, len, hint_member, &c, &off, why);
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
