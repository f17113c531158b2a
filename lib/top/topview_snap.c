// SPDX-License-Identifier: GPL-2.0
/*
 * scx-agg snapshot lines -> scx-top models.  The schema is scx-agg's (see
 * lib/agg/agg.h, "NDJSON snapshot schema"); this file only picks out what the
 * views show, and leaves a value unknown ("-") when a key is absent.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "json/json.h"
#include "stream/stream.h"
#include "top/topview_int.h"

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

/* A distribution object's parts scx-top shows, in one pass over its members. */
static void dist(const struct sp *p, int t, struct top_dist *out)
{
	static const struct {
		const char *key;
		unsigned len, bit;
		size_t off;
	} q[] = {
#define Q(k, b) { #k, sizeof(#k) - 1, b, offsetof(struct top_dist, k) }
		Q(count, TOP_D_COUNT), Q(avg, TOP_D_AVG), Q(p50, TOP_D_P50),
		Q(p90, TOP_D_P90),     Q(p99, TOP_D_P99), Q(max, TOP_D_MAX),
#undef Q
	};
	const struct scx_json_doc *d = p->d;

	out->have = 0;
	if (d->tok[t].type != JSMN_OBJECT)
		return;
	for (int m = 0, k = t + 1; m < d->tok[t].size && k + 1 < d->ntok;
	     m++, k = scx_json_next(d, k + 1)) {
		for (unsigned i = 0; i < SCX_ARRAY_SIZE(q); i++) {
			if (!scx_json_key_eq(d, k, q[i].key, q[i].len))
				continue;
			if (val(p, k + 1, (double *)((char *)out + q[i].off)))
				out->have |= q[i].bit;
			break;
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
	*v = (int64_t)u; /* DSQ ids above INT64_MAX: built-in DSQs */
	return true;
}

static const struct top_member *member_of(const struct sp *p, int k)
{
	const jsmntok_t *t = &p->d->tok[k];

	return top_member_find(p->d->js + t->start, (unsigned)(t->end - t->start));
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
	int64_t id = -1, node = 0, llc = 0, tgid = INT64_MIN, iv;
	double v, cpus = 1;
	struct top_row *r = top_table_add(tab, -1, -1);
	struct top_fill f = { .secs = p->secs, .dsq = tt == TT_DSQ, .sirq = -1 };
	struct top_dist dd;
	int k = obj + 1;

	for (int m = 0; m < d->tok[obj].size && k + 1 < d->ntok; m++, k = scx_json_next(d, k + 1)) {
		const struct top_member *mb = member_of(p, k);
		int t = k + 1;

		if (!mb)
			continue;
		switch (mb->key) {
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
		case K_CGROUP:
			if (tt == TT_CGROUP) {
				char path[SCX_CGROUP_PATH_MAX];

				scx_json_str(d, t, path, sizeof(path));
				top_label_path(r, path);
				id = top_path_id(path);
			}
			break;
		case K_CPUS:
			val(p, t, &cpus);
			break;
		case K_WAKE_LAT:
		case K_DSQ_LAT:
		case K_SLICE_USED:
		case K_DSQ_DEPTH:
			dist(p, t, &dd);
			top_fill_metric(r, &f, mb, 0, &dd);
			break;
		default:
			if (val(p, t, &v))
				top_fill_metric(r, &f, mb, v, NULL);
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
	top_fill_done(r, &f, cpus);
}

static int64_t ikey(const struct sp *p, int obj, const char *key, int64_t def)
{
	int t = scx_json_get(p->d, obj, key);
	int64_t v;

	return t >= 0 && int_val(p, t, &v) ? v : def;
}

int top_snap_parse_doc(struct top_model *m, const struct scx_json_doc *d, char *err, size_t errsz)
{
	static const char *const kinds[] = { "cpu", "llc", "node", "tgid", "pid", "dsq", "cgroup" };
	static const enum top_table_id tables[] = {
		TT_CPU, TT_LLC, TT_NODE, TT_PROC, TT_THREAD, TT_DSQ, TT_CGROUP,
	};
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
	m->tasks_dropped = (uint64_t)ikey(&p, 0, "tasks_dropped", 0);
	if (num(&p, 0, "dur_ns", &v))
		dur = v;
	else if (m->end_ns > m->start_ns)
		dur = (double)(m->end_ns - m->start_ns);
	p.secs = dur > 0 ? dur / 1e9 : 1;
	t = scx_json_get(d, 0, "sched_ext");
	if (t >= 0 && scx_stats_from_json_obj(d, t, &m->scx, err, errsz))
		return -EINVAL;
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
