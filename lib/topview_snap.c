// SPDX-License-Identifier: GPL-2.0
/*
 * scx-agg snapshot lines -> scx-top models.  The schema is scx-agg's (see
 * lib/agg.h, "NDJSON snapshot schema"); this file only picks out what the
 * views show, and leaves a value unknown ("-") when a key is absent.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "topview.h"

struct sp {
	struct scx_json_doc d;
	double secs;
};

static bool num(const struct sp *p, int obj, const char *key, double *v)
{
	int t = scx_json_get(&p->d, obj, key);

	return t >= 0 && !scx_json_double(&p->d, t, v);
}

static void dist(const struct sp *p, struct top_row *r, int t)
{
	double n = 0;

	if (!num(p, t, "count", &n) || n <= 0)
		return;
	if (num(p, t, "p50", &r->v[TC_P50]))
		r->has[TC_P50] = true;
	if (num(p, t, "p90", &r->v[TC_P90]))
		r->has[TC_P90] = true;
	if (num(p, t, "p99", &r->v[TC_P99]))
		r->has[TC_P99] = true;
}

static bool key_is(const struct sp *p, int k, const char *s)
{
	size_t n = strlen(s);

	return p->d.tok[k].end - p->d.tok[k].start == (int)n &&
	       !memcmp(p->d.js + p->d.tok[k].start, s, n);
}

static bool val(const struct sp *p, int t, double *v)
{
	return !scx_json_double(&p->d, t, v);
}

/*
 * One pass over a group object's members: snapshots of big machines hold
 * thousands of groups, so no per-metric key search.
 */
static void metrics(const struct sp *p, struct top_row *r, int obj, bool dsq)
{
	static const struct { const char *key; int col; bool rate; } simple[] = {
		{ "util", TC_UTIL, false }, { "switches", TC_SW, true },
		{ "wakeups", TC_WAKE, true }, { "migrations", TC_MIG, true },
		{ "migr_cross_llc", TC_XLLC, true }, { "migr_cross_node", TC_XNODE, true },
		{ "dsq_dispatches", TC_DISP, true }, { "avg_freq_khz", TC_FREQ, false },
		{ "threads", TC_THREADS, false }, { "vtime_delta", TC_VTIME, false },
	};
	double v, cpus = 1, sirq = -1;
	int k = obj + 1;

	for (int m = 0; m < p->d.tok[obj].size && k + 1 < p->d.ntok; m++, k = scx_json_next(&p->d, k + 1)) {
		int t = k + 1;

		for (unsigned i = 0; i < SCX_ARRAY_SIZE(simple); i++) {
			if (key_is(p, k, simple[i].key) && val(p, t, &v)) {
				r->v[simple[i].col] = simple[i].rate ? v / p->secs : v;
				r->has[simple[i].col] = true;
			}
		}
		if (key_is(p, k, "cpus"))
			val(p, t, &cpus);
		else if (key_is(p, k, "softirq_ns"))
			val(p, t, &sirq);
		else if (key_is(p, k, dsq ? "dsq_lat" : "wake_lat"))
			dist(p, r, t);
		else if (key_is(p, k, "slice_used") && num(p, t, "count", &v) && v > 0 &&
			 num(p, t, "avg", &r->v[TC_SLICE]))
			r->has[TC_SLICE] = true;
		else if (dsq && key_is(p, k, "dsq_depth") && num(p, t, "count", &v) && v > 0) {
			if (num(p, t, "avg", &r->v[TC_DEPTH]))
				r->has[TC_DEPTH] = true;
			if (num(p, t, "max", &r->v[TC_DEPTHMAX]))
				r->has[TC_DEPTHMAX] = true;
		}
	}
	if (sirq >= 0) {
		/* per cpu of the group, like util */
		r->v[TC_SIRQ] = sirq / 1e9 / p->secs / (cpus > 0 ? cpus : 1);
		r->has[TC_SIRQ] = true;
	}
}

static int64_t ikey(const struct sp *p, int obj, const char *key, int64_t def)
{
	int t = scx_json_get(&p->d, obj, key);
	int64_t v;
	uint64_t u;

	if (t < 0)
		return def;
	if (!scx_json_int(&p->d, t, &v))
		return v;
	if (!scx_json_uint(&p->d, t, &u))
		return (int64_t)u;	/* DSQ ids above INT64_MAX: built-in DSQs */
	return def;
}

static void label(const struct sp *p, struct top_row *r, int obj)
{
	int t = scx_json_get(&p->d, obj, "comm");

	if (t >= 0)
		scx_json_str(&p->d, t, r->label, sizeof(r->label));
}

int top_snap_parse(struct top_model *m, const char *line, size_t len, char *err, size_t errsz)
{
	static const char *const kinds[] = { "cpu", "llc", "node", "tgid", "pid", "dsq" };
	static const enum top_table_id tables[] = { TT_CPU, TT_LLC, TT_NODE, TT_PROC, TT_THREAD,
						    TT_DSQ };
	struct sp p = { 0 };
	double v, dur = 0;
	int t, g, ret = -EINVAL;

	if (scx_json_parse(&p.d, line, len) < 0) {
		snprintf(err, errsz, "byte %zu: %s", p.d.err_off, p.d.err ? p.d.err : "bad JSON");
		goto cleanup;
	}
	t = scx_json_get(&p.d, 0, "type");
	if (t < 0 || !scx_json_eq(&p.d, t, "snapshot")) {
		snprintf(err, errsz, "not an scx-agg snapshot line");
		goto cleanup;
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
	g = scx_json_get(&p.d, 0, "groups");
	for (unsigned k = 0; g >= 0 && k < SCX_ARRAY_SIZE(kinds); k++) {
		int arr = scx_json_get(&p.d, g, kinds[k]), e;

		if (arr < 0 || p.d.tok[arr].type != JSMN_ARRAY)
			continue;
		/* walk the elements in order: scx_json_at(i) would be quadratic */
		e = arr + 1;
		for (int i = 0; i < p.d.tok[arr].size && e < p.d.ntok; i++, e = scx_json_next(&p.d, e)) {
			int64_t id, parent = -1;
			struct top_row *r;

			if (p.d.tok[e].type != JSMN_OBJECT)
				continue;
			id = ikey(&p, e, kinds[k], -1);
			if (tables[k] == TT_CPU || tables[k] == TT_LLC)
				parent = ikey(&p, e, "node", 0);
			else if (tables[k] == TT_THREAD)
				parent = ikey(&p, e, "tgid", id);
			r = top_table_add(&m->t[tables[k]], id, parent);
			if (tables[k] == TT_CPU)
				r->aux = ikey(&p, e, "llc", 0);
			label(&p, r, e);
			metrics(&p, r, e, tables[k] == TT_DSQ);
		}
	}
	m->nr_cpus = m->t[TT_CPU].n;
	m->nr_llcs = m->t[TT_LLC].n;
	m->nr_nodes = m->t[TT_NODE].n;
	if (!m->nr_cpus)
		m->nr_cpus = (unsigned)ikey(&p, 0, "cpus", 0);
	ret = 0;
cleanup:
	scx_json_free(&p.d);
	return ret;
}
