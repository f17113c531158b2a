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

/* A rate from a count: *v per second of the snapshot's interval. */
static void rate(const struct sp *p, struct top_row *r, int obj, const char *key, int col)
{
	double v;

	if (num(p, obj, key, &v)) {
		r->v[col] = v / p->secs;
		r->has[col] = true;
	}
}

static void dist(const struct sp *p, struct top_row *r, int obj, const char *key)
{
	int t = scx_json_get(&p->d, obj, key);
	double n = 0;

	if (t < 0 || !num(p, t, "count", &n) || n <= 0)
		return;
	if (num(p, t, "p50", &r->v[TC_P50]))
		r->has[TC_P50] = true;
	if (num(p, t, "p90", &r->v[TC_P90]))
		r->has[TC_P90] = true;
	if (num(p, t, "p99", &r->v[TC_P99]))
		r->has[TC_P99] = true;
}

static void metrics(const struct sp *p, struct top_row *r, int obj)
{
	int t;
	double v;

	if (num(p, obj, "util", &v)) {
		r->v[TC_UTIL] = v;
		r->has[TC_UTIL] = true;
	}
	rate(p, r, obj, "switches", TC_SW);
	rate(p, r, obj, "wakeups", TC_WAKE);
	rate(p, r, obj, "migrations", TC_MIG);
	rate(p, r, obj, "migr_cross_llc", TC_XLLC);
	rate(p, r, obj, "migr_cross_node", TC_XNODE);
	rate(p, r, obj, "dsq_dispatches", TC_DISP);
	dist(p, r, obj, "wake_lat");
	if (num(p, obj, "avg_freq_khz", &v)) {
		r->v[TC_FREQ] = v;
		r->has[TC_FREQ] = true;
	}
	if (num(p, obj, "softirq_ns", &v)) {
		/* per cpu of the group, like util */
		double n = 1;

		num(p, obj, "cpus", &n);
		r->v[TC_SIRQ] = v / 1e9 / p->secs / (n > 0 ? n : 1);
		r->has[TC_SIRQ] = true;
	}
	t = scx_json_get(&p->d, obj, "slice_used");
	if (t >= 0 && num(p, t, "count", &v) && v > 0 && num(p, t, "avg", &r->v[TC_SLICE]))
		r->has[TC_SLICE] = true;
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

		for (int i = 0; arr >= 0 && (e = scx_json_at(&p.d, arr, i)) >= 0; i++) {
			int64_t id = ikey(&p, e, kinds[k], -1), parent = -1;
			struct top_row *r;

			if (tables[k] == TT_CPU || tables[k] == TT_LLC)
				parent = ikey(&p, e, "node", 0);
			else if (tables[k] == TT_THREAD)
				parent = ikey(&p, e, "tgid", id);
			r = top_table_get(&m->t[tables[k]], id, parent);
			if (tables[k] == TT_CPU)
				r->aux = ikey(&p, e, "llc", 0);
			label(&p, r, e);
			metrics(&p, r, e);
			if (tables[k] == TT_PROC && num(&p, e, "threads", &v)) {
				r->v[TC_THREADS] = v;
				r->has[TC_THREADS] = true;
			}
			if (tables[k] == TT_DSQ) {
				int d = scx_json_get(&p.d, e, "dsq_lat");

				/* the DSQ view's latency is the queueing latency */
				r->has[TC_P50] = r->has[TC_P90] = r->has[TC_P99] = false;
				if (d >= 0)
					dist(&p, r, e, "dsq_lat");
				d = scx_json_get(&p.d, e, "dsq_depth");
				if (d >= 0 && num(&p, d, "avg", &r->v[TC_DEPTH]))
					r->has[TC_DEPTH] = true;
				if (d >= 0 && num(&p, d, "max", &r->v[TC_DEPTHMAX]))
					r->has[TC_DEPTHMAX] = true;
				if (num(&p, e, "vtime_delta", &r->v[TC_VTIME]))
					r->has[TC_VTIME] = true;
			}
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
