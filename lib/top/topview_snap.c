// SPDX-License-Identifier: GPL-2.0
/*
 * scx-agg snapshot lines -> scx-top models.  The schema is scx-agg's (see
 * lib/agg/agg.h, "NDJSON snapshot schema"); this file only picks out what the
 * views show, and leaves a value unknown ("-") when a key is absent.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "json/json.h"
#include "top/topview.h"

struct sp {
	const struct scx_json_doc *d;
	double secs;
};

static bool num(const struct sp *p, int obj, const char *key, double *v)
{
	int t = scx_json_get(p->d, obj, key);

	return t >= 0 && !scx_json_double(p->d, t, v);
}

static bool val(const struct sp *p, int t, double *v);

/* count, p50, p90 and p99 of a distribution object, in one pass over its members */
static void dist(const struct sp *p, struct top_row *r, int t)
{
	static const struct { const char *key; int col; } q[] = {
		{ "p50", TC_P50 }, { "p90", TC_P90 }, { "p99", TC_P99 },
	};
	const struct scx_json_doc *d = p->d;
	double n = 0, v[3];
	bool has[3] = { false };

	if (d->tok[t].type != JSMN_OBJECT)
		return;
	for (int m = 0, k = t + 1; m < d->tok[t].size && k + 1 < d->ntok;
	     m++, k = scx_json_next(d, k + 1)) {
		if (scx_json_key_eq(d, k, "count", 5)) {
			val(p, k + 1, &n);
			continue;
		}
		for (int i = 0; i < 3; i++)
			if (scx_json_key_eq(d, k, q[i].key, 3))
				has[i] = val(p, k + 1, &v[i]);
	}
	if (n <= 0)
		return;
	for (int i = 0; i < 3; i++) {
		if (has[i]) {
			r->v[q[i].col] = v[i];
			r->has[q[i].col] = true;
		}
	}
}

static bool val(const struct sp *p, int t, double *v)
{
	return !scx_json_double(p->d, t, v);
}

static bool int_val(const struct sp *p, int t, int64_t *v)
{
	uint64_t u;

	if (!scx_json_int(p->d, t, v))
		return true;
	if (scx_json_uint(p->d, t, &u))
		return false;
	*v = (int64_t)u;	/* DSQ ids above INT64_MAX: built-in DSQs */
	return true;
}

/* The member keys a view uses: K_COL a plain column, K_ID an id or a parent id. */
enum key { K_COL, K_ID, K_COMM, K_CPUS, K_SIRQ, K_WAKE_LAT, K_DSQ_LAT,
	   K_SLICE_USED, K_DSQ_DEPTH };

static const struct member {
	const char *name;
	unsigned len;
	enum key key;
	int col;
	bool rate;
} members[] = {
#define M(s, k, c, r) { s, sizeof(s) - 1, k, c, r }
	M("util", K_COL, TC_UTIL, false), M("switches", K_COL, TC_SW, true),
	M("wakeups", K_COL, TC_WAKE, true), M("migrations", K_COL, TC_MIG, true),
	M("migr_cross_llc", K_COL, TC_XLLC, true), M("migr_cross_node", K_COL, TC_XNODE, true),
	M("dsq_dispatches", K_COL, TC_DISP, true), M("avg_freq_khz", K_COL, TC_FREQ, false),
	M("threads", K_COL, TC_THREADS, false), M("vtime_delta", K_COL, TC_VTIME, false),
	M("cpu", K_ID, 0, false), M("llc", K_ID, 0, false), M("node", K_ID, 0, false),
	M("tgid", K_ID, 0, false), M("pid", K_ID, 0, false), M("dsq", K_ID, 0, false),
	M("comm", K_COMM, 0, false), M("cpus", K_CPUS, 0, false),
	M("softirq_ns", K_SIRQ, 0, false), M("wake_lat", K_WAKE_LAT, 0, false),
	M("dsq_lat", K_DSQ_LAT, 0, false), M("slice_used", K_SLICE_USED, 0, false),
	M("dsq_depth", K_DSQ_DEPTH, 0, false),
#undef M
};

/*
 * Which member key k is, NULL for one no view shows.  Most members of a
 * group are metrics no view shows: candidates are looked up by length, then
 * first byte, before any memcmp.
 */
#define MEMBER_MAXLEN 16
static uint32_t member_by_len[MEMBER_MAXLEN];	/* bit i: members[i] has that length */
static pthread_once_t member_once = PTHREAD_ONCE_INIT;

static void member_index(void)
{
	_Static_assert(SCX_ARRAY_SIZE(members) <= 32, "members fit a 32-bit mask");
	for (unsigned i = 0; i < SCX_ARRAY_SIZE(members); i++)
		if (members[i].len < MEMBER_MAXLEN)
			member_by_len[members[i].len] |= 1u << i;
}

static const struct member *member_of(const struct sp *p, int k)
{
	const jsmntok_t *t = &p->d->tok[k];
	const char *s = p->d->js + t->start;
	unsigned n = (unsigned)(t->end - t->start);

	pthread_once(&member_once, member_index);
	if (n >= MEMBER_MAXLEN)
		return NULL;
	for (uint32_t m = member_by_len[n]; m; m &= m - 1) {
		const struct member *mb = &members[__builtin_ctz(m)];

		if (mb->name[0] == s[0] && !memcmp(mb->name, s, n))
			return mb;
	}
	return NULL;
}

/*
 * One pass over a group object's members: snapshots of big machines hold
 * thousands of groups with dozens of members each, so no per-key search.
 * kind names the group's id member ("cpu", "tgid", ...).
 */
static void group_row(const struct sp *p, struct top_table *tab, enum top_table_id tt,
		      const char *kind, int obj)
{
	const struct scx_json_doc *d = p->d;
	bool dsq = tt == TT_DSQ;
	int64_t id = -1, node = 0, llc = 0, tgid = INT64_MIN, iv;
	double v, cpus = 1, sirq = -1;
	struct top_row *r = top_table_add(tab, -1, -1);
	int k = obj + 1;

	for (int m = 0; m < d->tok[obj].size && k + 1 < d->ntok; m++, k = scx_json_next(d, k + 1)) {
		const struct member *mb = member_of(p, k);
		int t = k + 1;

		if (!mb)
			continue;
		switch (mb->key) {
		case K_COL:
			if (val(p, t, &v)) {
				r->v[mb->col] = mb->rate ? v / p->secs : v;
				r->has[mb->col] = true;
			}
			break;
		case K_ID:
			if (!int_val(p, t, &iv))
				break;
			if (!strcmp(mb->name, kind))
				id = iv;
			else if (!strcmp(mb->name, "node"))
				node = iv;
			else if (!strcmp(mb->name, "llc"))
				llc = iv;
			else if (!strcmp(mb->name, "tgid"))
				tgid = iv;
			break;
		case K_COMM:
			scx_json_str(d, t, r->label, sizeof(r->label));
			break;
		case K_CPUS:
			val(p, t, &cpus);
			break;
		case K_SIRQ:
			val(p, t, &sirq);
			break;
		case K_WAKE_LAT:
		case K_DSQ_LAT:
			if ((mb->key == K_DSQ_LAT) == dsq)
				dist(p, r, t);
			break;
		case K_SLICE_USED:
			if (num(p, t, "count", &v) && v > 0 && num(p, t, "avg", &r->v[TC_SLICE]))
				r->has[TC_SLICE] = true;
			break;
		case K_DSQ_DEPTH:
			if (!dsq || !num(p, t, "count", &v) || v <= 0)
				break;
			if (num(p, t, "avg", &r->v[TC_DEPTH]))
				r->has[TC_DEPTH] = true;
			if (num(p, t, "max", &r->v[TC_DEPTHMAX]))
				r->has[TC_DEPTHMAX] = true;
			break;
		}
	}
	r->id = id;
	if (tt == TT_CPU || tt == TT_LLC)
		r->parent = node;
	else if (tt == TT_THREAD)
		r->parent = tgid != INT64_MIN ? tgid : id;
	if (tt == TT_CPU)
		r->aux = llc;
	if (sirq >= 0) {
		/* per cpu of the group, like util */
		r->v[TC_SIRQ] = sirq / 1e9 / p->secs / (cpus > 0 ? cpus : 1);
		r->has[TC_SIRQ] = true;
	}
}

static int64_t ikey(const struct sp *p, int obj, const char *key, int64_t def)
{
	int t = scx_json_get(p->d, obj, key);
	int64_t v;

	return t >= 0 && int_val(p, t, &v) ? v : def;
}

int top_snap_parse_doc(struct top_model *m, const struct scx_json_doc *d, char *err, size_t errsz)
{
	static const char *const kinds[] = { "cpu", "llc", "node", "tgid", "pid", "dsq" };
	static const enum top_table_id tables[] = { TT_CPU, TT_LLC, TT_NODE, TT_PROC, TT_THREAD,
						    TT_DSQ, };
	struct sp p = { .d = d };
	double v, dur = 0;
	int t, g;

	t = d->ntok && d->tok[0].type == JSMN_OBJECT ? scx_json_get(d, 0, "type") : -1;
	if (t < 0 || !scx_json_eq(d, t, "snapshot")) {
		snprintf(err, errsz, "not an scx-agg snapshot line");
		return -EINVAL;
	}
	top_model_reset(m);
	strcpy(m->source, "scx-agg");
	m->start_ns = (uint64_t)ikey(&p, 0, "start_ns", 0);
	m->end_ns = (uint64_t)ikey(&p, 0, "end_ns", 0);
	m->seq = (uint64_t)ikey(&p, 0, "seq", 0) + 1;
	m->events = (uint64_t)ikey(&p, 0, "events", 0);
	m->lost = (uint64_t)ikey(&p, 0, "lost", 0);
	if (num(&p, 0, "dur_ns", &v))
		dur = v;
	else if (m->end_ns > m->start_ns)
		dur = (double)(m->end_ns - m->start_ns);
	p.secs = dur > 0 ? dur / 1e9 : 1;
	g = scx_json_get(d, 0, "groups");
	for (unsigned k = 0; g >= 0 && k < SCX_ARRAY_SIZE(kinds); k++) {
		int arr = scx_json_get(d, g, kinds[k]), e;

		if (arr < 0 || d->tok[arr].type != JSMN_ARRAY)
			continue;
		/* walk the elements in order: scx_json_at(i) would be quadratic */
		e = arr + 1;
		for (int i = 0; i < d->tok[arr].size && e < d->ntok; i++, e = scx_json_next(d, e)) {
			if (d->tok[e].type == JSMN_OBJECT)
				group_row(&p, &m->t[tables[k]], tables[k], kinds[k], e);
		}
	}
	m->nr_cpus = m->t[TT_CPU].n;
	m->nr_llcs = m->t[TT_LLC].n;
	m->nr_nodes = m->t[TT_NODE].n;
	if (!m->nr_cpus)
		m->nr_cpus = (unsigned)ikey(&p, 0, "cpus", 0);
	return 0;
}

int top_snap_parse(struct top_model *m, const char *line, size_t len, char *err, size_t errsz)
{
	struct scx_json_doc d = { 0 };
	int ret;

	if (scx_json_parse(&d, line, len) < 0) {
		snprintf(err, errsz, "byte %zu: %s", d.err_off, d.err ? d.err : "bad JSON");
		ret = -EINVAL;
	} else {
		ret = top_snap_parse_doc(m, &d, err, errsz);
	}
	scx_json_free(&d);
	return ret;
}
