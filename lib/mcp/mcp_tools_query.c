// SPDX-License-Identifier: GPL-2.0
/*
 * scx-mcp event-level trace tools: query_trace_events, process and CPU
 * timelines, wakeup -> schedule correlation.  Each is one linear pass over
 * the trace's arena (300k events take a few ms), bounded output.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hashmap.h"
#include "mcp/mcp_query.h"
#include "mcp/mcp_tools.h"
#include "mcp/mcp_trace.h"
#include "stream/stream.h"

void mcp_raw_event(struct mcp_call *c, const struct scx_event *e, struct scx_buf *tmp)
{
	scx_buf_reset(tmp);
	scx_event_to_json(tmp, e);
	while (tmp->len && tmp->data[tmp->len - 1] == '\n')
		tmp->len--;
	scx_jw_raw(&c->w, tmp->data, tmp->len);
}

void mcp_comm_of(const struct mcp_trace *t, int32_t pid, char *out)
{
	const struct mcp_task *k = mcp_trace_task(t, pid);

	if (pid == 0)
		snprintf(out, SCX_COMM_LEN, "swapper");
	else
		snprintf(out, SCX_COMM_LEN, "%s", k ? k->comm : "");
}

int mcp_arg_range(struct mcp_call *c, uint64_t *from, uint64_t *to)
{
	int64_t v;

	*from = 0;
	*to = UINT64_MAX;
	if (mcp_arg_i64(c, "start_time_ns", &v, 0, INT64_MAX) < 0)
		return -EINVAL;
	else if (c->args >= 0 && mcp_arg_i64(c, "start_time_ns", &v, 0, INT64_MAX) > 0)
		*from = v;
	if (mcp_arg_i64(c, "end_time_ns", &v, 0, INT64_MAX) < 0)
		return -EINVAL;
	else if (c->args >= 0 && mcp_arg_i64(c, "end_time_ns", &v, 0, INT64_MAX) > 0)
		*to = v;
	return 0;
}

int mcp_arg_limit(struct mcp_call *c, int64_t def, int64_t max, int64_t *lim)
{
	*lim = def;
	return mcp_arg_i64(c, "limit", lim, 1, max) < 0 ? -EINVAL : 0;
}

/* ---- query_trace_events ---------------------------------------------------------- */

/*
 * A field name resolved once per event type: the per-event lookup by name
 * (strlen + string compares) dominated aggregations over 300k events.
 */
struct fcache {
	const char *name;
	uint8_t state[SCX_EV__COUNT]; /* 0 unknown, 1 resolved, 2 implicit, 3 absent */
	const struct scx_field *f[SCX_EV__COUNT];
};

enum op { OP_EQ, OP_NE, OP_GT, OP_LT, OP_GE, OP_LE, OP_CONTAINS };
static const char *const op_names[] = {
	"equal",    "not_equal", "greater_than", "less_than", "greater_or_equal", "less_or_equal",
	"contains", NULL
};

struct filt {
	char field[32];
	struct fcache fc;
	enum op op;
	bool is_str;
	int64_t num;
	char str[64];
};

#define MAX_FILTERS 8

/* Value of a named field of e: 1 number, 2 string, 0 absent. */
static int field_val(const struct scx_event *e, const char *name, int64_t *num, const char **str);

static int field_val_c(struct fcache *c, const struct scx_event *e, int64_t *num, const char **str)
{
	unsigned t = e->type < SCX_EV__COUNT ? e->type : 0;

	if (!c->state[t]) {
		c->f[t] = scx_ev_field(t, c->name, strlen(c->name));
		c->state[t] = c->f[t] ? 1 :
			      (!strcmp(c->name, "ts") || !strcmp(c->name, "cpu") ||
			       !strcmp(c->name, "type")) ?
					2 :
					3;
	}
	if (c->state[t] == 1) {
		const struct scx_field *f = c->f[t];

		if (f->kind == SCX_F_STR) {
			*str = (const char *)e + f->offset;
			return 2;
		}
		*num = scx_field_get_int(e, f);
		return 1;
	}
	if (c->state[t] == 3)
		return 0;
	return field_val(e, c->name, num, str);
}

static int field_val(const struct scx_event *e, const char *name, int64_t *num, const char **str)
{
	const struct scx_field *f;

	if (!strcmp(name, "ts")) {
		*num = (int64_t)e->ts;
		return 1;
	}
	if (!strcmp(name, "cpu")) {
		*num = e->cpu;
		return 1;
	}
	if (!strcmp(name, "type")) {
		*str = scx_ev_name(e->type);
		return 2;
	}
	f = scx_ev_field(e->type, name, strlen(name));
	if (!f)
		return 0;
	if (f->kind == SCX_F_STR) {
		*str = (const char *)e + f->offset;
		return 2;
	}
	*num = scx_field_get_int(e, f);
	return 1;
}

static bool filt_match(const struct filt *f, const struct scx_event *e)
{
	int64_t n = 0;
	const char *s = NULL;
	char sb[SCX_PATH_LEN + 1];
	int k = field_val_c((struct fcache *)&f->fc, e, &n, &s);

	if (!k)
		return false;
	if (k == 2) {
		size_t l = strnlen(s, SCX_PATH_LEN);

		memcpy(sb, s, l);
		sb[l] = 0;
		int cmp = strcmp(sb, f->str);

		switch (f->op) {
		case OP_EQ:
			return !cmp;
		case OP_NE:
			return cmp;
		case OP_CONTAINS:
			return strstr(sb, f->str) != NULL;
		case OP_GT:
			return cmp > 0;
		case OP_LT:
			return cmp < 0;
		case OP_GE:
			return cmp >= 0;
		case OP_LE:
			return cmp <= 0;
		}
		return false;
	}
	if (f->is_str)
		return f->op == OP_NE;
	switch (f->op) {
	case OP_EQ:
		return n == f->num;
	case OP_NE:
		return n != f->num;
	case OP_GT:
		return n > f->num;
	case OP_LT:
		return n < f->num;
	case OP_GE:
		return n >= f->num;
	case OP_LE:
		return n <= f->num;
	case OP_CONTAINS: {
		char nb[24];

		snprintf(nb, sizeof(nb), "%lld", (long long)n);
		return strstr(nb, f->str) != NULL;
	}
	}
	return false;
}

static bool has_pid(const struct scx_event *e, int64_t pid)
{
	const struct scx_ev_desc *d = scx_ev_desc(e->type);

	for (unsigned i = 0; d && i < d->nr_fields; i++) {
		const char *n = d->fields[i].name;
		size_t l = strlen(n);

		if (l >= 3 && !strcmp(n + l - 3, "pid") &&
		    scx_field_get_int(e, &d->fields[i]) == pid)
			return true;
	}
	return false;
}

/* Event type word into a mask of types; false if unknown. */
static bool type_mask(const char *w, uint32_t *mask)
{
	unsigned t;

	if (!*w || !strcmp(w, "all")) {
		*mask = ~0u;
		return true;
	}
	if (!strcmp(w, "sched_migrate"))
		w = "sched_migrate_task";
	if (!strcmp(w, "softirq")) {
		*mask = 1u << SCX_EV_SOFTIRQ_ENTRY | 1u << SCX_EV_SOFTIRQ_EXIT;
		return true;
	}
	if (!strcmp(w, "irq")) {
		*mask = 1u << SCX_EV_IRQ_ENTRY | 1u << SCX_EV_IRQ_EXIT;
		return true;
	}
	t = scx_ev_type_by_name(w, strlen(w));
	if (t == SCX_EV_NONE) {
		char alt[64];

		snprintf(alt, sizeof(alt), "sched_%s", w);
		t = scx_ev_type_by_name(alt, strlen(alt));
	}
	if (t == SCX_EV_NONE)
		return false;
	*mask = 1u << t;
	return true;
}

static int parse_filters(struct mcp_call *c, struct filt *fs, unsigned *nr)
{
	const struct scx_json_doc *d = c->d;
	int arr = c->args >= 0 ? scx_json_get(d, c->args, "field_filters") : -1;

	*nr = 0;
	if (arr < 0 || scx_json_is_null(d, arr))
		return 0;
	if (d->tok[arr].type != JSMN_ARRAY)
		return mcp_fail(c, "field_filters must be an array of {field, operator, value}");
	if (d->tok[arr].size > MAX_FILTERS)
		return mcp_fail(c, "at most %d field_filters", MAX_FILTERS);
	for (int i = 0; i < d->tok[arr].size; i++) {
		int o = scx_json_at(d, arr, i), f, op, v;
		struct filt *x = &fs[*nr];
		char buf[32];

		f = scx_json_get(d, o, "field");
		op = scx_json_get(d, o, "operator");
		v = scx_json_get(d, o, "value");
		if (f < 0 || op < 0 || v < 0 || !scx_json_is_str(d, f) || !scx_json_is_str(d, op))
			return mcp_fail(c, "field_filters[%d] needs field, operator and value", i);
		memset(x, 0, sizeof(*x));
		if (scx_json_str(d, f, x->field, sizeof(x->field)) >= (int)sizeof(x->field))
			return mcp_fail(c, "field_filters[%d].field is too long", i);
		x->fc.name = x->field;
		scx_json_str(d, op, buf, sizeof(buf));
		x->op = OP_EQ;
		while (op_names[x->op] && strcmp(op_names[x->op], buf))
			x->op++;
		if (!op_names[x->op])
			return mcp_fail(c,
					"field_filters[%d].operator '%s' is not one of equal, "
					"not_equal, greater_than, less_than, greater_or_equal, "
					"less_or_equal, contains",
					i, buf);
		if (scx_json_is_str(d, v)) {
			x->is_str = true;
			scx_json_str(d, v, x->str, sizeof(x->str));
			if (!scx_parse_i64(x->str, &x->num))
				x->is_str = false;
		} else if (!scx_json_int(d, v, &x->num)) {
			snprintf(x->str, sizeof(x->str), "%lld", (long long)x->num);
		} else {
			return mcp_fail(c, "field_filters[%d].value must be a string or an integer",
					i);
		}
		(*nr)++;
	}
	return 0;
}

/* What query_trace_events selects, and what it makes of the selection. */
enum query_fn { Q_EVENTS = -1, Q_COUNT, Q_COUNT_BY, Q_AVG, Q_MIN, Q_MAX, Q_GROUP_BY };

struct query {
	uint32_t mask; /* event types */
	uint64_t from, to;
	int64_t cpu, pid, limit, offset;
	struct filt fs[MAX_FILTERS];
	unsigned nf;
	int fn; /* enum query_fn */
	char func[16], afield[32];
};

static bool query_match(const struct query *q, const struct scx_event *e)
{
	unsigned i;

	if (!(q->mask & (1u << e->type)) || e->ts < q->from || e->ts > q->to ||
	    (q->cpu >= 0 && e->cpu != q->cpu) || (q->pid >= 0 && !has_pid(e, q->pid)))
		return false;
	for (i = 0; i < q->nf && filt_match(&q->fs[i], e); i++)
		;
	return i == q->nf;
}

/* The "aggregation" argument into q->fn, func and afield: 0 or -EINVAL, c failed. */
static int query_fn_arg(struct mcp_call *c, struct query *q)
{
	static const char *const funcs[] = {
		"count", "count_by", "avg", "min", "max", "group_by", NULL,
	};
	int ag = c->args >= 0 ? scx_json_get(c->d, c->args, "aggregation") : -1, fn, fl;

	q->fn = Q_EVENTS;
	if (ag < 0 || scx_json_is_null(c->d, ag))
		return 0;
	fn = scx_json_get(c->d, ag, "function");
	fl = scx_json_get(c->d, ag, "field");
	if (fn < 0 || !scx_json_is_str(c->d, fn))
		return mcp_fail(c, "aggregation.function is required");
	scx_json_str(c->d, fn, q->func, sizeof(q->func));
	for (q->fn = 0; funcs[q->fn] && strcmp(funcs[q->fn], q->func); q->fn++)
		;
	if (!funcs[q->fn])
		return mcp_fail(c, "aggregation.function must be count, count_by, avg, min, "
				   "max or group_by");
	if (fl >= 0 && scx_json_is_str(c->d, fl))
		scx_json_str(c->d, fl, q->afield, sizeof(q->afield));
	if (q->fn != Q_COUNT && !q->afield[0])
		return mcp_fail(c, "aggregation.function %s needs aggregation.field", q->func);
	return 0;
}

/* Every argument into q: 0, or -EINVAL with c failed. */
static int query_args(struct mcp_call *c, struct query *q)
{
	char type[48] = "";

	*q = (struct query){ .cpu = -1, .pid = -1 };
	if (mcp_arg_str(c, "event_type", type, sizeof(type)) < 0 ||
	    mcp_arg_range(c, &q->from, &q->to) || mcp_arg_i64(c, "cpu", &q->cpu, -1, 1 << 20) < 0 ||
	    mcp_arg_i64(c, "pid", &q->pid, -1, INT32_MAX) < 0 ||
	    mcp_arg_limit(c, 100, 10000, &q->limit) ||
	    mcp_arg_i64(c, "offset", &q->offset, 0, INT64_MAX) < 0 ||
	    parse_filters(c, q->fs, &q->nf))
		return -EINVAL;
	if (!type_mask(type, &q->mask))
		return mcp_fail(
			c,
			"unknown event_type '%s' (sched_switch, sched_waking, sched_wakeup, "
			"sched_wakeup_new, sched_migrate_task, softirq, irq, ... or all)",
			type);
	return query_fn_arg(c, q);
}

/* ---- aggregations over the selection ---------------------------------------------- */

struct agg_key {
	int64_t num;
	char str[SCX_PATH_LEN];
	bool is_str;
	uint64_t count;
};

struct qagg {
	struct fcache afc;
	/* count_by, group_by: one key a distinct value */
	struct scx_map km; /* key -> index in keys[] + 1 */
	struct agg_key *keys;
	size_t nkeys, capkeys;
	/* avg, min, max */
	int64_t amin, amax;
	double asum;
	uint64_t acount;
};

/* A distinct value counted: a string's key is its hash, kept apart from numbers. */
static void qagg_count_value(struct qagg *a, int64_t n, const char *sv, bool is_str)
{
	int64_t hk = n;
	uint32_t *slot;

	if (is_str) {
		uint64_t h = 0; /* unsigned: the hash wraps, a signed one overflows (UB) */

		for (const char *p = sv; *p && p < sv + SCX_PATH_LEN; p++)
			h = h * 131 + (unsigned char)*p;
		hk = (int64_t)(h ^ (1ull << 63)); /* keep apart from small numbers */
	}
	slot = scx_map_put(&a->km, (uint64_t)hk, NULL);
	if (!*slot) {
		struct agg_key *k;

		if (a->nkeys == a->capkeys) {
			a->capkeys = a->capkeys ? a->capkeys * 2 : 256;
			a->keys = scx_xrealloc(a->keys, a->capkeys * sizeof(*a->keys));
		}
		k = &a->keys[a->nkeys];
		k->num = n;
		k->is_str = is_str;
		k->count = 0;
		k->str[0] = 0;
		if (is_str) {
			size_t l = strnlen(sv, sizeof(k->str) - 1);

			memcpy(k->str, sv, l);
			k->str[l] = 0;
		}
		*slot = ++a->nkeys;
	}
	a->keys[*slot - 1].count++;
}

static void qagg_add(struct qagg *a, int fn, const struct scx_event *e)
{
	int64_t n = 0;
	const char *sv = NULL;
	int k;

	if (fn == Q_COUNT || !(k = field_val_c(&a->afc, e, &n, &sv)))
		return;
	if (fn == Q_COUNT_BY || fn == Q_GROUP_BY) {
		qagg_count_value(a, n, sv, k == 2);
	} else if (k == 1) {
		a->acount++;
		a->asum += (double)n;
		a->amin = SCX_MIN(a->amin, n);
		a->amax = SCX_MAX(a->amax, n);
	}
}

/*
 * query_trace_events' result, one record for every mode: what a mode does
 * not write is absent (NULL, -1, NaN).  Each mode's keys come in the
 * table's order: events (events, matched, offset, returned, next_offset)
 * or an aggregation (function, field, matched, then groups and distinct,
 * or count and avg, min or max), then the cut by hand.
 */
struct query_rec {
	const char *trace_id, *function, *field;
	const void *events; /* events mode: the pass over the trace (query_events) */
	int64_t matched, offset, returned, next_offset;
	const void *groups; /* count_by, group_by (query_groups) */
	int64_t distinct, count;
	double avg;
	const int64_t *min, *max;
};

/* what a pass or the groups write, and what they tell the record */
struct query_out {
	struct mcp_call *c;
	struct mcp_trace *t;
	const struct query *q;
	struct qagg *a;
	struct query_rec *rec; /* events: matched, returned, next_offset, known once written */
	uint64_t shown;
};

/*
 * The pass over the trace, for every mode: a page of the events written as
 * they are found (into the array the caller opened), or the aggregation
 * fed.  The number of events matched.
 */
static uint64_t query_pass(struct query_out *o)
{
	const struct query *q = o->q;
	/* in locals: the loop's calls could change them, as far as gcc knows */
	const int fn = q->fn;
	const int64_t offset = q->offset, limit = q->limit;
	struct qagg *a = o->a;
	struct scx_buf tmp = { 0 };
	uint64_t matched = 0, shown = 0;
	struct scx_event e;
	size_t off = 0;

	while (mcp_trace_next(o->t, &off, &e)) {
		if (!query_match(q, &e))
			continue;
		matched++;
		if (fn != Q_EVENTS) {
			qagg_add(a, fn, &e);
		} else if ((int64_t)matched > offset && (int64_t)shown < limit && mcp_room(o->c)) {
			mcp_raw_event(o->c, &e, &tmp);
			shown++;
		}
	}
	scx_buf_free(&tmp);
	o->shown = shown;
	return matched;
}

/* events mode: the page is written as the pass finds it */
static void query_events(struct scx_jw *w, const void *v)
{
	struct query_out *o = (struct query_out *)v; /* (the caller's, not const) */
	uint64_t matched;

	scx_jw_arr_begin(w);
	matched = query_pass(o);
	scx_jw_arr_end(w);
	o->rec->matched = (int64_t)matched;
	o->rec->returned = (int64_t)o->shown;
	if (o->shown + o->q->offset < matched)
		o->rec->next_offset = o->q->offset + (int64_t)o->shown;
}

/* count_by, group_by: the values, most frequent first, within the limit and the room */
static void query_groups(struct scx_jw *w, const void *v)
{
	struct query_out *o = (struct query_out *)v;
	const struct agg_key *keys = o->a->keys;

	scx_jw_arr_begin(w);
	for (size_t i = 0; i < o->a->nkeys && (int64_t)i < o->q->limit && mcp_room(o->c); i++) {
		scx_jw_obj_begin(w);
		if (keys[i].is_str)
			scx_jw_kstr(w, "value", keys[i].str);
		else
			scx_jw_kint(w, "value", keys[i].num);
		scx_jw_kuint(w, "count", keys[i].count);
		scx_jw_obj_end(w);
		o->shown++;
	}
	scx_jw_arr_end(w);
}

const struct mcp_out mcp_out_query[] = {
	MCP_REC_STR(query_rec, trace_id),
	MCP_REC_STR(query_rec, function),
	MCP_REC_STR(query_rec, field),
	MCP_REC_FN(query_rec, events, "array", query_events),
	MCP_REC_INT_SET(query_rec, matched),
	MCP_REC_INT_SET(query_rec, offset),
	MCP_REC_INT_SET(query_rec, returned),
	MCP_REC_INT_SET(query_rec, next_offset),
	MCP_REC_FN(query_rec, groups, "array", query_groups),
	MCP_REC_INT_SET(query_rec, distinct),
	MCP_REC_INT_SET(query_rec, count),
	MCP_REC_NUM_SET(query_rec, avg),
	MCP_REC_INT_AT(query_rec, min),
	MCP_REC_INT_AT(query_rec, max),
	{ "value", "number" },
	{ "truncated", "object" },
	{ "note", "string" },
	{ "" },
};

/* an aggregation's figures into rec (groups sorted, most frequent first) */
static void qagg_rec(const struct query *q, struct qagg *a, struct query_rec *rec,
		     struct query_out *o)
{
	struct agg_key *keys = a->keys;

	rec->function = q->func;
	rec->field = q->afield[0] ? q->afield : NULL;
	if (q->fn == Q_COUNT_BY || q->fn == Q_GROUP_BY) {
		for (size_t i = 1; i < a->nkeys; i++)
			for (size_t j = i; j && keys[j].count > keys[j - 1].count; j--) {
				struct agg_key x = keys[j];

				keys[j] = keys[j - 1];
				keys[j - 1] = x;
			}
		rec->groups = o;
		rec->distinct = (int64_t)a->nkeys;
	} else if (q->fn != Q_COUNT) {
		rec->count = (int64_t)a->acount;
		if (a->acount && q->fn == Q_AVG)
			rec->avg = a->asum / a->acount;
		else if (a->acount)
			*(q->fn == Q_MIN ? &rec->min : &rec->max) =
				q->fn == Q_MIN ? &a->amin : &a->amax;
	}
}

int mcp_t_query(struct mcp_call *c)
{
	struct mcp_trace *t = mcp_tool_trace(c);
	struct query q;
	struct qagg a = { .km = SCX_MAP_INIT(uint32_t), .amin = INT64_MAX, .amax = INT64_MIN };
	struct query_rec rec = { .matched = -1,
				 .offset = -1,
				 .returned = -1,
				 .next_offset = -1,
				 .distinct = -1,
				 .count = -1,
				 .avg = NAN };
	struct query_out o = { .c = c, .t = t, .q = &q, .a = &a, .rec = &rec };

	if (!t)
		return -EINVAL;
	if (query_args(c, &q))
		return -EINVAL;
	a.afc.name = q.afield;
	rec.trace_id = t->id;
	if (q.fn == Q_EVENTS) {
		rec.events = &o;
		rec.offset = q.offset;
	} else {
		rec.matched = (int64_t)query_pass(&o);
		qagg_rec(&q, &a, &rec, &o);
	}
	scx_jw_obj_begin(&c->w);
	mcp_out_fields(&c->w, mcp_out_query, &rec);
	if (q.fn == Q_EVENTS && rec.next_offset >= 0 && (int64_t)o.shown < q.limit)
		mcp_note_cut(c, o.shown, (uint64_t)(rec.matched - rec.offset) - o.shown,
			     "result size cap; page with offset");
	else if (rec.groups && o.shown < a.nkeys)
		mcp_note_cut(c, o.shown, a.nkeys - o.shown, "limit");
	scx_jw_obj_end(&c->w);
	scx_map_free(&a.km);
	free(a.keys);
	return 0;
}
