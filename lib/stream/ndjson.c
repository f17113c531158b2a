// SPDX-License-Identifier: GPL-2.0
/*
 * The NDJSON wire format (man/scx.7): events formatted by hand from the
 * name table (printf per field would halve the throughput).  Event lines are
 * decoded by the first of three paths that takes them: the exact layout the
 * writer produces (canonical, keys compared whole), any flat object (one
 * strict scan), then the JSON reader's tokens, which also words every error.
 * Fields may come in any order; the table's order is only the fastest.
 *
 * Event strings (comm, filename) are bytes, not text: valid UTF-8 is written
 * as is, each byte of an invalid sequence as \u00XX, and the reader maps
 * \u0080-\u00ff back to single bytes in event string fields, so every comm
 * survives a round trip.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream/stream-int.h"
#include "core/topo.h"
#include "core/util.h"

struct key {
	char text[32]; /* ,"name": or ,"type":"kind" (at most 28 bytes today) */
	uint8_t len;
	uint8_t name_len;
};

bool scx_ndjson_no_fast;

static struct key field_keys[SCX_EV__COUNT][32];
static struct key type_keys[SCX_EV__COUNT]; /* ,"type":"sched_switch" */
static uint8_t name_lens[SCX_EV__COUNT];
static size_t line_max;
static pthread_once_t keys_once = PTHREAD_ONCE_INIT;

static void init_kind_slots(void);

static void init_keys(void)
{
	for (unsigned t = 1; t < SCX_EV__COUNT; t++) {
		const struct scx_ev_desc *d = scx_ev_desc(t);
		size_t max = 64 + strlen(d->name);
		struct key *k = &type_keys[t];

		name_lens[t] = strlen(d->name);
		k->len = snprintf(k->text, sizeof(k->text), ",\"type\":\"%s\"", d->name);
		for (unsigned i = 0; i < d->nr_fields && i < 32; i++) {
			const struct scx_field *f = &d->fields[i];
			k = &field_keys[t][i];
			k->len = snprintf(k->text, sizeof(k->text), ",\"%s\":", f->name);
			k->name_len = strlen(f->name);
			max += k->len + (f->kind == SCX_F_STR ? 6 * f->size + 2 : 21);
		}
		max += sizeof(k->text); /* slack for the fixed-size key copies */
		if (max > line_max)
			line_max = max;
	}
	init_kind_slots();
}

size_t scx_ndjson_event_max(void)
{
	pthread_once(&keys_once, init_keys);
	return line_max;
}

size_t scx_ndjson_format_event(char *out, const struct scx_event *e)
{
	const struct scx_ev_desc *d = scx_ev_desc(e->type);
	char *o = out;

	pthread_once(&keys_once, init_keys);
	if (!d)
		return 0;
	memcpy(o, "{\"ts\":", 6);
	o += 6;
	o += scx_fmt_u64(o, e->ts);
	memcpy(o, ",\"cpu\":", 7);
	o += 7;
	o += scx_fmt_i64(o, e->cpu);
	memcpy(o, type_keys[e->type].text, sizeof(type_keys[e->type].text));
	o += type_keys[e->type].len;

	unsigned n = scx_event_nr_fields(e, d);
	bool sparse = n == d->nr_fields && scx_event_has_cgroup(e);
	for (unsigned i = 0; i < n; i++) {
		const struct scx_field *f = &d->fields[i];
		const char *p = (const char *)e + f->offset;
		const struct key *k = &field_keys[e->type][i];
		int32_t i32;
		uint32_t u32;
		int64_t i64;
		uint64_t u64;

		/* an unknown cgroup, or sched_ext fields a cgroup id pulled in */
		if (sparse && !scx_event_field_present(e, i))
			continue;
		/* fixed-size copy: no call, the buffer has slack (see line_max) */
		memcpy(o, k->text, sizeof(k->text));
		o += k->len;
		switch (f->kind) {
		case SCX_F_I32:
			memcpy(&i32, p, 4);
			o += scx_fmt_i64(o, i32);
			break;
		case SCX_F_U32:
			memcpy(&u32, p, 4);
			o += scx_fmt_u64(o, u32);
			break;
		case SCX_F_I64:
			memcpy(&i64, p, 8);
			o += scx_fmt_i64(o, i64);
			break;
		case SCX_F_U64:
			memcpy(&u64, p, 8);
			o += scx_fmt_u64(o, u64);
			break;
		case SCX_F_STR:
			o += scx_json_escape_to(o, p, strnlen(p, f->size), true);
			break;
		}
	}
	*o++ = '}';
	*o++ = '\n';
	return o - out;
}

void scx_event_to_json(struct scx_buf *b, const struct scx_event *e)
{
	scx_buf_reserve(b, scx_ndjson_event_max());
	b->len += scx_ndjson_format_event(b->data + b->len, e);
}

void scx_header_to_json(struct scx_buf *b, const struct scx_header *h)
{
	struct scx_jw w;

	scx_jw_init(&w, b);
	scx_jw_obj_begin(&w);
	scx_jw_kstr(&w, "type", "header");
	scx_jw_kint(&w, "version", h->version ? h->version : SCX_WIRE_VERSION);
	scx_jw_kstr(&w, "producer", h->producer);
	scx_jw_kstr(&w, "clock", h->clock[0] ? h->clock : "boottime");
	scx_jw_kstr(&w, "hostname", h->hostname);
	scx_jw_kstr(&w, "kernel", h->kernel);
	scx_jw_kuint(&w, "nr_cpus", h->nr_cpus);
	scx_jw_key(&w, "topology");
	if (h->topo) {
		scx_jw_arr_begin(&w);
		for (unsigned i = 0; i < h->topo->nr_cpus; i++) {
			const struct scx_cpu_topo *c = &h->topo->cpus[i];
			scx_jw_obj_begin(&w);
			scx_jw_kint(&w, "cpu", c->cpu);
			scx_jw_kint(&w, "core", c->core);
			scx_jw_kint(&w, "llc", c->llc);
			scx_jw_kint(&w, "node", c->node);
			scx_jw_kbool(&w, "online", c->online);
			scx_jw_obj_end(&w);
		}
		scx_jw_arr_end(&w);
	} else {
		scx_jw_null(&w);
	}
	scx_jw_key(&w, "scheduler");
	if (h->scheduler[0])
		scx_jw_str(&w, h->scheduler);
	else
		scx_jw_null(&w);
	scx_jw_key(&w, "options");
	if (h->options_json && h->options_json[0])
		scx_jw_raw(&w, h->options_json, strlen(h->options_json));
	else
		scx_jw_raw(&w, "{}", 2);
	scx_jw_kuint(&w, "start_ns", h->start_ns);
	if (scx_order_name(h->order))
		scx_jw_kstr(&w, "order", scx_order_name(h->order));
	scx_jw_obj_end(&w);
}

void scx_trailer_to_json(struct scx_buf *b, const struct scx_trailer *t)
{
	struct scx_jw w;

	scx_jw_init(&w, b);
	scx_jw_obj_begin(&w);
	scx_jw_kstr(&w, "type", "trailer");
	scx_jw_key(&w, "counts");
	scx_jw_obj_begin(&w);
	for (unsigned k = 1; k < SCX_EV__COUNT; k++)
		if (t->counts[k])
			scx_jw_kuint(&w, scx_ev_name(k), t->counts[k]);
	scx_jw_obj_end(&w);
	scx_jw_key(&w, "lost");
	scx_jw_arr_begin(&w);
	for (unsigned c = 0; t->lost && c < t->nr_cpus; c++)
		scx_jw_uint(&w, t->lost[c]);
	scx_jw_arr_end(&w);
	scx_jw_kuint(&w, "lost_total", t->lost_total);
	if (t->missed) /* so traces without it stay byte for byte what they were */
		scx_jw_kuint(&w, "missed", t->missed);
	scx_jw_kuint(&w, "end_ns", t->end_ns);
	scx_jw_obj_end(&w);
}

/* ---- reading --------------------------------------------------------------- */

static int bad(char *err, size_t errsz, size_t *col, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int bad(char *err, size_t errsz, size_t *col, size_t off, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(err, errsz, "%s (column %zu)", what, off + 1);
	*col = off;
	return -EINVAL;
}

/* A value on the line: a string's inside (escapes undecoded) or a literal. */
struct val {
	const char *s;
	size_t n;
	bool str;
	size_t off;  /* column of s in the line, as reported in errors */
	bool plain;  /* the fast path saw no escape in this string */
	bool is_int; /* the fast path parsed an integer literal: */
	bool neg;
	uint64_t mag;
};

static struct val tok_val(const struct scx_json_doc *d, int idx)
{
	const jsmntok_t *t = &d->tok[idx];

	return (struct val){ d->js + t->start,
			     t->end - t->start,
			     t->type == JSMN_STRING,
			     t->start,
			     false,
			     false,
			     false,
			     0 };
}

/* An integer literal for a field of kind 'kind': range-checked. */
/* always_inline: 10% of the NDJSON decode time on this machine */
#define HOT static inline __attribute__((always_inline))

/* Does sign and magnitude fit a field of kind 'kind'? */
HOT bool int_fits(int kind, bool neg, uint64_t m)
{
	switch (kind) {
	case SCX_F_I32:
		return neg ? m <= 0x80000000ull : m <= INT32_MAX;
	case SCX_F_U32:
		return !(neg && m) && m <= UINT32_MAX;
	case SCX_F_I64:
		return neg ? m <= (uint64_t)INT64_MAX + 1 : m <= INT64_MAX;
	default:
		return !(neg && m);
	}
}

HOT int get_num(const struct val *x, int kind, int64_t *v)
{
	bool neg;
	uint64_t m;
	int err;

	if (x->str)
		return -EINVAL;
	if (x->is_int) {
		neg = x->neg;
		m = x->mag;
	} else {
		err = scx_json_parse_uint_text(x->s, x->n, &neg, &m);
		if (err)
			return err;
	}
	if (!int_fits(kind, neg, m))
		return -ERANGE;
	*v = neg ? (int64_t)(0 - m) : (int64_t)m;
	return 0;
}

HOT int get_field(const struct val *x, const struct scx_field *f, struct scx_event *e,
		  const char *kname, char *err, size_t errsz, size_t *col)
{
	int64_t v;
	int r;

	if (f->kind == SCX_F_STR) {
		char *dst = (char *)e + f->offset;
		if (!x->str)
			return bad(err, errsz, col, x->off, "%s.%s: expected a string", kname,
				   f->name);
		/* longer strings are cut to the field, as the kernel cuts comms */
		long n = x->plain ? (long)x->n :
				    scx_json_unescape(x->s, x->n, dst, f->size, SCX_JSON_BYTES);
		if (x->plain)
			memcpy(dst, x->s, SCX_MIN(x->n, (size_t)f->size));
		if (n < 0)
			return bad(err, errsz, col, x->off, "%s.%s: bad string escape", kname,
				   f->name);
		if ((size_t)n < f->size)
			memset(dst + n, 0, f->size - n);
		return 0;
	}
	r = get_num(x, f->kind, &v);
	if (r == -ERANGE)
		return bad(err, errsz, col, x->off, "%s.%s: number out of range", kname, f->name);
	if (r)
		return bad(err, errsz, col, x->off, "%s.%s: expected an integer", kname, f->name);
	char *p = (char *)e + f->offset;
	if (f->kind == SCX_F_I32 || f->kind == SCX_F_U32) {
		int32_t v32 = (int32_t)v;
		memcpy(p, &v32, 4);
	} else {
		memcpy(p, &v, 8);
	}
	return 0;
}

/*
 * a[0..n) == b[0..n) for key names without a call: a is the name inside a
 * 32-byte key text (readable up to 30 bytes from a), b a key on the line.
 */
static inline bool key_eq(const char *a, const char *b, size_t n)
{
	uint64_t x, y, x2, y2;

	if (n >= 8 && n <= 16) {
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		memcpy(&x2, a + n - 8, 8);
		memcpy(&y2, b + n - 8, 8);
		return x == y && x2 == y2;
	}
	return !memcmp(a, b, n);
}

/* ts, cpu and the fields of one key/value pair of an event line. */
HOT int event_kv(unsigned kind, const char *ks, size_t kl, const struct val *x, struct scx_event *e,
		 unsigned *cursor, char *err, size_t errsz, size_t *col)
{
	const struct scx_ev_desc *desc = scx_ev_desc(kind);
	const struct scx_field *f = NULL;
	int64_t v;
	int r;

	if (*cursor < desc->nr_fields && field_keys[kind][*cursor].name_len == kl &&
	    key_eq(field_keys[kind][*cursor].text + 2, ks, kl)) {
		f = &desc->fields[(*cursor)++];
	} else if (kl == 2 && !memcmp(ks, "ts", 2)) {
		r = get_num(x, SCX_F_U64, &v);
		if (r)
			return bad(err, errsz, col, x->off, "%s.ts: %s", desc->name,
				   r == -ERANGE ? "out of range" : "expected an integer");
		e->ts = v;
		return 0;
	} else if (kl == 3 && !memcmp(ks, "cpu", 3)) {
		r = get_num(x, SCX_F_I32, &v);
		if (r)
			return bad(err, errsz, col, x->off, "%s.cpu: %s", desc->name,
				   r == -ERANGE ? "out of range" : "expected an integer");
		e->cpu = v;
		return 0;
	} else if (kl == 4 && !memcmp(ks, "type", 4)) {
		return 0;
	} else {
		f = scx_ev_field(kind, ks, kl);
		if (f)
			*cursor = f - desc->fields + 1;
	}
	/* unknown keys: fields of a newer version, ignored */
	return f ? get_field(x, f, e, desc->name, err, errsz, col) : 0;
}

static bool raw_eq(const struct scx_json_doc *d, int idx, const char *s, size_t n)
{
	const jsmntok_t *t = &d->tok[idx];

	return (size_t)(t->end - t->start) == n && !memcmp(d->js + t->start, s, n);
}

static unsigned kind_by_token(const struct scx_json_doc *d, int idx)
{
	const jsmntok_t *t = &d->tok[idx];
	size_t n = t->end - t->start;
	const char *s = d->js + t->start;

	for (unsigned k = 1; k < SCX_EV__COUNT; k++)
		if (name_lens[k] == n && !memcmp(scx_ev_name(k), s, n))
			return k;
	if (memchr(s, '\\', n)) {
		char buf[64];
		int l = scx_json_str(d, idx, buf, sizeof(buf));
		if (l > 0 && (size_t)l < sizeof(buf))
			return scx_ev_type_by_name(buf, l);
	}
	return SCX_EV_NONE;
}

static int parse_event(const struct scx_json_doc *d, unsigned kind, struct scx_event *e, char *err,
		       size_t errsz, size_t *col)
{
	const jsmntok_t *tok = d->tok;
	unsigned cursor = 0;
	int i = 1;

	scx_event_init(e, kind);
	for (int k = 0; k < tok[0].size; k++) {
		int v = i + 1;
		const jsmntok_t *kt = &tok[i];
		const char *ks = d->js + kt->start;
		size_t kl = kt->end - kt->start;
		char buf[64];
		int r;

		if (memchr(ks, '\\', kl)) {
			int l = scx_json_str(d, i, buf, sizeof(buf));
			ks = buf;
			kl = l > 0 && (size_t)l < sizeof(buf) ? (size_t)l : 0;
		}
		struct val x = tok_val(d, v);
		if (tok[v].type == JSMN_OBJECT || tok[v].type == JSMN_ARRAY)
			x.str = false; /* get_num rejects "[" */
		if ((r = event_kv(kind, ks, kl, &x, e, &cursor, err, errsz, col)))
			return r;
		i = tok[v].size ? scx_json_next(d, v) : v + 1;
	}
	return SCX_LINE_EVENT;
}

static void copy_str(const struct scx_json_doc *d, int idx, char *dst, size_t size)
{
	if (scx_json_is_str(d, idx))
		scx_json_str(d, idx, dst, size);
	else
		dst[0] = 0;
}

static int get_u64(const struct scx_json_doc *d, int obj, const char *key, uint64_t *v)
{
	int i = scx_json_get(d, obj, key);

	*v = 0;
	if (i < 0 || scx_json_is_null(d, i))
		return 0;
	return scx_json_uint(d, i, v);
}

static int parse_header(const struct scx_json_doc *d, struct scx_header *h, char *err, size_t errsz,
			size_t *col)
{
	int64_t ver;
	uint64_t v;
	int i, r;

	scx_header_free(h);
	memset(h, 0, sizeof(*h));
	i = scx_json_get(d, 0, "version");
	if (i < 0 || scx_json_int(d, i, &ver))
		return bad(err, errsz, col, i < 0 ? 0 : (size_t)d->tok[i].start,
			   "header: missing or bad \"version\"");
	if (ver < 1 || ver > SCX_WIRE_VERSION) {
		char what[64];
		snprintf(what, sizeof(what), "%lld (this reader knows %d)", (long long)ver,
			 SCX_WIRE_VERSION);
		return bad(err, errsz, col, d->tok[i].start, "header: unsupported version %s",
			   what);
	}
	h->version = ver;
	copy_str(d, scx_json_get(d, 0, "producer"), h->producer, sizeof(h->producer));
	copy_str(d, scx_json_get(d, 0, "clock"), h->clock, sizeof(h->clock));
	copy_str(d, scx_json_get(d, 0, "hostname"), h->hostname, sizeof(h->hostname));
	copy_str(d, scx_json_get(d, 0, "kernel"), h->kernel, sizeof(h->kernel));
	copy_str(d, scx_json_get(d, 0, "scheduler"), h->scheduler, sizeof(h->scheduler));
	if ((r = get_u64(d, 0, "nr_cpus", &v)) || v > SCX_MAX_CPUS)
		return bad(err, errsz, col, 0, "header: bad \"nr_cpus\"");
	h->nr_cpus = v;
	if (get_u64(d, 0, "start_ns", &h->start_ns))
		return bad(err, errsz, col, 0, "header: bad \"start_ns\"");
	/* an order this reader does not know promises nothing it can use */
	i = scx_json_get(d, 0, "order");
	if (scx_json_is_str(d, i) && scx_json_eq(d, i, "time"))
		h->order = SCX_ORDER_TIME;
	else if (scx_json_is_str(d, i) && scx_json_eq(d, i, "cpu"))
		h->order = SCX_ORDER_CPU;
	i = scx_json_get(d, 0, "topology");
	if (i >= 0 && d->tok[i].type == JSMN_ARRAY && d->tok[i].size > 0) {
		size_t off = 0;
		if (scx_topo_from_json(d, i, &h->topo, &off))
			return bad(err, errsz, col, off, "header: bad \"topology\"");
	} else if (i >= 0 && !scx_json_is_null(d, i) && d->tok[i].type != JSMN_ARRAY) {
		return bad(err, errsz, col, d->tok[i].start, "header: bad \"topology\"");
	}
	i = scx_json_get(d, 0, "options");
	if (i >= 0 && d->tok[i].type == JSMN_OBJECT) {
		size_t n = d->tok[i].end - d->tok[i].start;
		h->options_json = scx_xmalloc(n + 1);
		memcpy(h->options_json, d->js + d->tok[i].start, n);
		h->options_json[n] = 0;
	}
	return SCX_LINE_HEADER;
}

static int parse_trailer(const struct scx_json_doc *d, struct scx_trailer *t, char *err,
			 size_t errsz, size_t *col)
{
	int i;

	scx_trailer_free(t);
	memset(t, 0, sizeof(*t));
	i = scx_json_get(d, 0, "counts");
	if (i >= 0 && d->tok[i].type == JSMN_OBJECT) {
		int k = i + 1;
		for (int n = 0; n < d->tok[i].size; n++) {
			unsigned kind = kind_by_token(d, k);
			uint64_t v;
			if (scx_json_uint(d, k + 1, &v))
				return bad(err, errsz, col, d->tok[k + 1].start,
					   "trailer: bad count");
			if (kind)
				t->counts[kind] = v;
			k = scx_json_next(d, k + 1);
		}
	}
	i = scx_json_get(d, 0, "lost");
	if (i >= 0 && d->tok[i].type == JSMN_ARRAY && d->tok[i].size > SCX_MAX_CPUS)
		return bad(err, errsz, col, d->tok[i].start,
			   "trailer: \"lost\" lists more cpus than the limit");
	if (i >= 0 && d->tok[i].type == JSMN_ARRAY && d->tok[i].size > 0) {
		t->nr_cpus = d->tok[i].size;
		t->lost = scx_xcalloc(t->nr_cpus, sizeof(*t->lost));
		for (unsigned c = 0; c < t->nr_cpus; c++)
			if (scx_json_uint(d, i + 1 + c, &t->lost[c]))
				return bad(err, errsz, col, d->tok[i].start,
					   "trailer: bad \"lost\"");
	}
	if (get_u64(d, 0, "lost_total", &t->lost_total) || get_u64(d, 0, "missed", &t->missed) ||
	    get_u64(d, 0, "end_ns", &t->end_ns))
		return bad(err, errsz, col, 0, "trailer: bad number");
	return SCX_LINE_TRAILER;
}

/*
 * The fast path for event lines: one pass over a flat object (values are
 * strings or literals), checking the grammar, UTF-8 and control characters
 * as strictly as scx_json_parse() does.  Anything else (nesting, escaped
 * keys, errors) returns -1 and goes the jsmn way, which also words the
 * error message, so both paths accept and reject exactly the same lines.
 */
struct kv {
	const char *k;
	size_t kl;
	struct val v;
	bool kesc;
};

#define MAX_KV 48

static inline size_t skip_ws(const char *s, size_t i, size_t n)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
		i++;
	return i;
}

/* Scan a string's inside from i; returns the index of the closing quote or 0. */
static size_t scan_str(const char *s, size_t i, size_t n, bool *esc)
{
	for (;;) {
		i = scx_json_plain_end(s, i, n);
		if (i >= n)
			return 0;
		unsigned char c = s[i];
		if (c == '"')
			return i;
		if (c == '\\') {
			*esc = true;
			if (i + 1 >= n)
				return 0;
			switch (s[i + 1]) {
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
				if (i + 6 > n)
					return 0;
				for (int k = 2; k < 6; k++) {
					char h = s[i + k];
					if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') ||
					      (h >= 'A' && h <= 'F')))
						return 0;
				}
				i += 6;
				continue;
			default:
				return 0;
			}
		}
		if (c < 0x20)
			return 0;
		size_t l = scx_utf8_seq((const unsigned char *)s + i, n - i);
		if (!l)
			return 0;
		i += l;
	}
}

static inline size_t skip_ws1(const char *s, size_t i, size_t n)
{
	return i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') ?
		       skip_ws(s, i, n) :
		       i;
}

/*
 * Up to 8 leading decimal digits of p (8 bytes readable) in one go: returns
 * how many, and *m = *m * 10^count + their value.  Byte 0 is the first
 * character on little-endian machines; elsewhere this falls back to a loop.
 */
static inline unsigned digits8(const char *p, uint64_t *m)
{
	static const uint64_t pow10[9] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
	};
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w, d, bad;
	unsigned k;

	memcpy(&w, p, 8);
	d = w - 0x3030303030303030ull;
	/* high bit where a byte is not '0'..'9'; carries and borrows only reach
	 * bytes after the first bad one, and that one is found by ctz */
	bad = (d | (d + 0x7676767676767676ull)) & 0x8080808080808080ull;
	k = bad ? __builtin_ctzll(bad) >> 3 : 8;
	if (!k)
		return 0;
	if (k < 8)
		d <<= (8 - k) * 8; /* drop what follows, pad with leading zeros */
	d = d * 10 + (d >> 8);
	d = (((d & 0x000000ff000000ffull) * (100 + (1000000ull << 32))) +
	     (((d >> 16) & 0x000000ff000000ffull) * (1 + (10000ull << 32)))) >>
	    32;
	*m = *m * pow10[k] + d;
	return k;
#else
	unsigned k = 0;
	uint64_t v = 0;

	while (k < 8 && (unsigned char)(p[k] - '0') <= 9)
		v = v * 10 + (p[k++] - '0');
	*m = *m * pow10[k] + v;
	return k;
#endif
}

/*
 * The integer literal at s[i..n) ('-' or a digit at i): returns its end and
 * *mag, or 0 when the fast paths leave it to jsmn: no digit, a leading
 * zero, or a magnitude over UINT64_MAX (checked at the 20th digit; 2^64
 * has 20, and sched_ext DSQ ids such as SCX_DSQ_LOCAL_ON | cpu need them).
 */
static inline size_t int_literal(const char *s, size_t i, size_t n, uint64_t *mag)
{
	size_t d0 = i + (i < n && s[i] == '-'), j = d0;
	uint64_t m = 0;
	unsigned k;

	while (j + 8 <= n && j - d0 < 16 && (k = digits8(s + j, &m)) > 0) {
		j += k;
		if (k < 8)
			break;
	}
	while (j < n && (unsigned char)(s[j] - '0') <= 9 && j - d0 < 19)
		m = m * 10 + (s[j++] - '0');
	if (j < n && (unsigned char)(s[j] - '0') <= 9) {
		unsigned dig = s[j++] - '0';
		if (m > (UINT64_MAX - dig) / 10)
			return 0;
		m = m * 10 + dig;
	}
	if (j == d0 || (s[d0] == '0' && j - d0 > 1) || (j < n && (unsigned char)(s[j] - '0') <= 9))
		return 0;
	*mag = m;
	return j;
}

static int flat_scan(const char *s, size_t n, struct kv *kv)
{
	size_t i = skip_ws1(s, 0, n);
	int cnt = 0;

	if (i >= n || s[i] != '{')
		return -1;
	i = skip_ws1(s, i + 1, n);
	if (i < n && s[i] == '}')
		return skip_ws1(s, i + 1, n) == n ? 0 : -1;
	for (;;) {
		struct kv *p = &kv[cnt];
		size_t q;

		if (cnt == MAX_KV || i >= n || s[i] != '"')
			return -1;
		p->kesc = false;
		q = scan_str(s, i + 1, n, &p->kesc);
		if (!q)
			return -1;
		p->k = s + i + 1;
		p->kl = q - i - 1;
		i = skip_ws1(s, q + 1, n);
		if (i >= n || s[i] != ':')
			return -1;
		i = skip_ws1(s, i + 1, n);
		if (i >= n)
			return -1;
		if (s[i] == '"') {
			bool esc = false;
			q = scan_str(s, i + 1, n, &esc);
			if (!q)
				return -1;
			p->v = (struct val){ s + i + 1, q - i - 1, true,  i + 1,
					     !esc,	false,	   false, 0 };
			i = q + 1;
		} else if (s[i] == '-' || (s[i] >= '0' && s[i] <= '9')) {
			/* integers are parsed here, once; other numbers take the slow path */
			uint64_t m;
			size_t j = int_literal(s, i, n, &m);
			if (!j || (j < n && (s[j] == '.' || s[j] == 'e' || s[j] == 'E')))
				return -1;
			p->v = (struct val){ s + i, j - i, false, i, false, true, s[i] == '-', m };
			i = j;
		} else {
			size_t l;
			if (n - i >= 4 && !memcmp(s + i, "true", 4))
				l = 4;
			else if (n - i >= 5 && !memcmp(s + i, "false", 5))
				l = 5;
			else if (n - i >= 4 && !memcmp(s + i, "null", 4))
				l = 4;
			else
				return -1;
			p->v = (struct val){ s + i, l, false, i, false, false, false, 0 };
			i += l;
		}
		cnt++;
		i = skip_ws1(s, i, n);
		if (i < n && s[i] == ',') {
			i = skip_ws1(s, i + 1, n);
			continue;
		}
		if (i < n && s[i] == '}')
			return skip_ws1(s, i + 1, n) == n ? cnt : -1;
		return -1;
	}
}

static int fast_event(const char *line, size_t n, struct scx_event *e, char *err, size_t errsz,
		      size_t *col)
{
	struct kv kv[MAX_KV];
	int cnt = flat_scan(line, n, kv);
	unsigned kind = 0, cursor = 0;
	int r;

	if (cnt <= 0)
		return -1;
	for (int i = 0; i < cnt; i++) {
		if (kv[i].kesc)
			return -1;
		if (kv[i].kl == 4 && !memcmp(kv[i].k, "type", 4)) {
			const struct val *t = &kv[i].v;
			if (!t->str)
				return -1;
			for (unsigned k = 1; k < SCX_EV__COUNT && !kind; k++)
				if (name_lens[k] == t->n && !memcmp(scx_ev_name(k), t->s, t->n))
					kind = k;
			break;
		}
	}
	if (!kind)
		return -1; /* header, trailer, other, escaped type: the slow way */
	scx_event_init_fast(e, kind);
	for (int i = 0; i < cnt; i++)
		if ((r = event_kv(kind, kv[i].k, kv[i].kl, &kv[i].v, e, &cursor, err, errsz, col)))
			return r;
	return SCX_LINE_EVENT;
}

/*
 * The canonical path: the exact layout scx_ndjson_format_event() writes,
 * {"ts":N,"cpu":N,"type":"KIND" then the kind's fields in table order (a
 * switch without sched_ext data stops before dsq_id) and nothing after the
 * closing brace.  Keys are compared whole against the key table instead of
 * being scanned, and the kind is found by a hash, not a search.  It decides
 * nothing: a line in any other form (spacing, order, escapes, a number
 * jsmn must judge, a value out of range, any error) returns -1 and is read
 * by fast_event() or jsmn, so what it accepts decodes exactly as they
 * decode it (t/unit/0003-stream and t/fuzz/stream compare all three).
 */
bool scx_ndjson_no_canon;

#define KIND_SLOTS 64
static uint8_t kind_slot[KIND_SLOTS]; /* kind + open addressing; 0 = empty */

/* Hash of a kind name from the 8 bytes that end it (the name may be shorter:
 * the bytes before it are then the same '"type":"' on every line). */
static inline unsigned kind_hash(const char *name_end, size_t len)
{
	uint64_t w;

	memcpy(&w, name_end - 8, 8);
	return ((w * 0x9e3779b97f4a7c15ull) >> 58 ^ len) & (KIND_SLOTS - 1);
}

/* a[0..n) == b[0..n) for 4 <= n <= 32, in a few loads instead of a call */
static inline bool bytes_eq(const char *a, const char *b, size_t n)
{
	uint64_t x, y, diff = 0;

	if (n < 8) {
		uint32_t u, v, u2, v2;
		memcpy(&u, a, 4);
		memcpy(&v, b, 4);
		memcpy(&u2, a + n - 4, 4);
		memcpy(&v2, b + n - 4, 4);
		return u == v && u2 == v2;
	}
	for (size_t i = 0; i + 8 < n; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		diff |= x ^ y;
	}
	memcpy(&x, a + n - 8, 8);
	memcpy(&y, b + n - 8, 8);
	return !(diff | (x ^ y));
}

static void init_kind_slots(void)
{
	for (unsigned k = 1; k < SCX_EV__COUNT; k++) {
		const struct key *t = &type_keys[k];
		unsigned h = kind_hash(t->text + t->len - 1, name_lens[k]);

		while (kind_slot[h])
			h = (h + 1) & (KIND_SLOTS - 1);
		kind_slot[h] = k;
	}
}

/* The kind named s[0..len) (8 bytes before s readable), or 0. */
static inline unsigned canon_kind(const char *s, size_t len)
{
	for (unsigned h = kind_hash(s + len, len);; h = (h + 1) & (KIND_SLOTS - 1)) {
		unsigned k = kind_slot[h];

		if (!k || (name_lens[k] == len && bytes_eq(type_keys[k].text + 9, s, len)))
			return k;
	}
}

/* An integer value of kind 'kind' at s[*i..n), followed by ',' or '}'. */
static inline bool canon_int(const char *s, size_t n, size_t *i, int kind, int64_t *v)
{
	uint64_t m;
	size_t j = int_literal(s, *i, n, &m);
	bool neg = s[*i] == '-';

	if (!j || j >= n || (s[j] != ',' && s[j] != '}') || !int_fits(kind, neg, m))
		return false;
	*v = neg ? (int64_t)(0 - m) : (int64_t)m;
	*i = j;
	return true;
}

/* A string without escapes at s[*i..n) into the field at dst, as get_field() copies it. */
static inline bool canon_str(const char *s, size_t n, size_t *i, char *dst, size_t size)
{
	size_t a = *i + 1, q;

	if (s[*i] != '"')
		return false;
	for (q = scx_json_plain_end(s, a, n); q < n && s[q] != '"';
	     q = scx_json_plain_end(s, q, n)) {
		size_t l;
		if ((unsigned char)s[q] < 0x80 || /* a backslash or a control */
		    !(l = scx_utf8_seq((const unsigned char *)s + q, n - q)))
			return false;
		q += l;
	}
	if (q >= n)
		return false;
	memcpy(dst, s + a, SCX_MIN(q - a, size));
	if (q - a < size)
		memset(dst + (q - a), 0, size - (q - a));
	*i = q + 1;
	return true;
}

int scx_ndjson_canon(const char *s, size_t n, struct scx_event *e)
{
	size_t i = 6, name;
	unsigned kind, stop;
	int64_t ts, cpu;

	if (n < 32 || memcmp(s, "{\"ts\":", 6) || !canon_int(s, n, &i, SCX_F_U64, &ts) ||
	    n - i < 17 || !bytes_eq(s + i, ",\"cpu\":", 7))
		return -1;
	i += 7;
	if (!canon_int(s, n, &i, SCX_F_I32, &cpu) || n - i < 10 ||
	    !bytes_eq(s + i, ",\"type\":\"", 9))
		return -1;
	name = i += 9;
	while (i < n && i - name < 32 && s[i] != '"')
		i++;
	if (i >= n || i - name >= 32 || !(kind = canon_kind(s + name, i - name)))
		return -1;
	i++;

	const struct scx_ev_desc *d = scx_ev_desc(kind);
	/* optional last fields: a wakeup's cgroup, an insert's from_dsq_id */
	stop = kind == SCX_EV_SWITCH				      ? SCX_SW_SCX_FIRST :
	       scx_event_is_wakeup(kind) || kind == SCX_EV_DSQ_INSERT ? d->nr_fields - 1 :
									d->nr_fields;
	scx_event_init_fast(e, kind);
	e->ts = ts;
	e->cpu = cpu;
	for (unsigned f = 0; f < d->nr_fields; f++) {
		const struct scx_field *fd = &d->fields[f];
		const struct key *k = &field_keys[kind][f];
		char *p = (char *)e + fd->offset;
		int64_t v;

		if (f >= stop && n - i == 1 && s[i] == '}')
			return SCX_LINE_EVENT;
		if (n - i <= k->len || !bytes_eq(s + i, k->text, k->len)) {
			/* the writer leaves out the sched_ext group, unknown cgroups and
			 * the from_dsq_id of an insert that is not a move */
			if (f >= stop)
				continue;
			return -1;
		}
		i += k->len;
		if (fd->kind == SCX_F_STR) {
			if (!canon_str(s, n, &i, p, fd->size))
				return -1;
			continue;
		}
		if (!canon_int(s, n, &i, fd->kind, &v))
			return -1;
		if (fd->kind == SCX_F_I32 || fd->kind == SCX_F_U32) {
			int32_t v32 = (int32_t)v;
			memcpy(p, &v32, 4);
		} else {
			memcpy(p, &v, 8);
		}
	}
	return n - i == 1 && s[i] == '}' ? SCX_LINE_EVENT : -1;
}

int scx_ndjson_parse(struct scx_json_doc *d, const char *line, size_t n, struct scx_event *e,
		     struct scx_header *h, struct scx_trailer *t, char *err, size_t errsz,
		     size_t *col)
{
	const jsmntok_t *tok;
	int type = -1;

	pthread_once(&keys_once, init_keys);
	int r = scx_ndjson_no_fast || scx_ndjson_no_canon ? -1 : scx_ndjson_canon(line, n, e);
	if (r != -1)
		return r;
	r = scx_ndjson_no_fast ? -1 : fast_event(line, n, e, err, errsz, col);
	if (r != -1)
		return r;
	if (scx_json_parse(d, line, n))
		return bad(err, errsz, col, d->err_off, "%s", d->err);
	tok = d->tok;
	if (tok[0].type != JSMN_OBJECT)
		return bad(err, errsz, col, tok[0].start, "expected a JSON object");
	/* "type" is the third key of an event line; look for it first */
	for (int k = 0, i = 1; k < tok[0].size; k++) {
		if (raw_eq(d, i, "type", 4) || scx_json_key_eq(d, i, "type", 4)) {
			type = i + 1;
			break;
		}
		i = tok[i + 1].size ? scx_json_next(d, i + 1) : i + 2;
	}
	if (type < 0 || tok[type].type != JSMN_STRING)
		return SCX_LINE_OTHER;

	unsigned kind = kind_by_token(d, type);
	if (kind)
		return parse_event(d, kind, e, err, errsz, col);
	if (scx_json_eq(d, type, "header"))
		return parse_header(d, h, err, errsz, col);
	if (scx_json_eq(d, type, "trailer"))
		return parse_trailer(d, t, err, errsz, col);
	return SCX_LINE_OTHER;
}
