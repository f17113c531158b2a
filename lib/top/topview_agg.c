// SPDX-License-Identifier: GPL-2.0
/*
 * lib/agg snapshots (in-process aggregation of raw events) -> scx-top models.
 * The same definitions as scx-agg's output, so `scx-events | scx-top` and
 * `scx-events | scx-agg | scx-top` show the same numbers.
 */
#include <stdlib.h>
#include <string.h>

#include "agg/agg.h"
#include "core/topo.h"
#include "top/topview.h"

static void put_dist(struct top_row *r, const struct scx_hist *h, int p50)
{
	struct scx_dist d;

	if (!h->count)
		return;
	scx_hist_dist(h, &d);
	r->v[p50] = d.p50;
	r->v[p50 + 1] = d.p90;
	r->v[p50 + 2] = d.p99;
	r->has[p50] = r->has[p50 + 1] = r->has[p50 + 2] = true;
}

static void fill(struct top_row *r, const struct scx_agg_group *g, double secs, bool cpu)
{
	const struct scx_agg_stats *s = g->s;
	unsigned n = cpu ? SCX_MAX(g->nr, 1u) : 1;
	uint64_t sirq = 0;

	r->v[TC_UTIL] = s->busy_ns / 1e9 / secs / n;
	r->v[TC_SW] = s->switches / secs;
	r->v[TC_WAKE] = s->wakeups / secs;
	r->v[TC_MIG] = s->migrations / secs;
	r->v[TC_XLLC] = s->migr_cross_llc / secs;
	r->v[TC_XNODE] = s->migr_cross_node / secs;
	for (int i = 0; i < TC_MIG + 3; i++)
		r->has[i] = i < TC_P50 || i > TC_P99;
	put_dist(r, &s->wake_lat, TC_P50);
	if (cpu) {
		for (int i = 0; i < SCX_NR_SOFTIRQS; i++)
			sirq += s->softirq_ns[i];
		r->v[TC_SIRQ] = sirq / 1e9 / secs / n;
		r->has[TC_SIRQ] = true;
		if (s->freq_ns) {
			r->v[TC_FREQ] = s->freq_khz_ns / s->freq_ns;
			r->has[TC_FREQ] = true;
		}
	}
	if (s->slice_used_n) {
		r->v[TC_SLICE] = (double)s->slice_used_ns / s->slice_used_n;
		r->has[TC_SLICE] = true;
	}
}

static int64_t llc_node(const struct scx_topo *t, int64_t llc)
{
	for (unsigned i = 0; t && i < t->nr_cpus; i++)
		if (t->cpus[i].llc == llc)
			return t->cpus[i].node;
	return 0;
}

void top_model_from_agg(struct top_model *m, const struct scx_agg_snap *s,
			const struct scx_topo *topo)
{
	double secs = s->end_ns > s->start_ns ? (s->end_ns - s->start_ns) / 1e9 : 1e-9;
	static const enum top_table_id tt[SCX_AGG_BY__COUNT] = {
		[SCX_AGG_CPU] = TT_CPU, [SCX_AGG_LLC] = TT_LLC, [SCX_AGG_NODE] = TT_NODE,
		[SCX_AGG_PID] = TT_THREAD, [SCX_AGG_TGID] = TT_PROC, [SCX_AGG_COMM] = TT__COUNT,
		[SCX_AGG_DSQ] = TT_DSQ,
	};

	top_model_reset(m);
	strcpy(m->source, "events");
	m->start_ns = s->start_ns;
	m->end_ns = s->end_ns;
	m->seq = s->seq + 1;
	m->events = s->events;
	m->lost = s->lost;
	m->tasks_dropped = s->tasks_dropped;
	for (int by = 0; by < SCX_AGG_BY__COUNT; by++) {
		if (tt[by] == TT__COUNT)
			continue;
		for (unsigned i = 0; i < s->nr[by]; i++) {
			const struct scx_agg_group *g = &s->groups[by][i];
			const struct scx_cpu_topo *c;
			struct top_row *r;
			int64_t parent = -1;

			switch (by) {
			case SCX_AGG_CPU:
				c = topo ? scx_topo__cpu(topo, (int)g->key) : NULL;
				parent = c ? c->node : 0;
				break;
			case SCX_AGG_LLC: parent = llc_node(topo, g->key); break;
			case SCX_AGG_PID: parent = g->tgid; break;
			}
			r = top_table_add(&m->t[tt[by]], g->key, parent);
			if (by == SCX_AGG_CPU) {
				c = topo ? scx_topo__cpu(topo, (int)g->key) : NULL;
				r->aux = c ? c->llc : 0;
			}
			if (by == SCX_AGG_PID || by == SCX_AGG_TGID)
				memcpy(r->label, g->comm, SCX_COMM_LEN);
			if (by == SCX_AGG_TGID) {
				r->v[TC_THREADS] = g->nr;
				r->has[TC_THREADS] = true;
			}
			if (by != SCX_AGG_DSQ) {
				fill(r, g, secs, by <= SCX_AGG_NODE);
				continue;
			}
			/* the DSQ view: dispatches, queueing latency, depth, vtime, slice used */
			const struct scx_agg_stats *st = g->s;
			struct scx_dist d;

			r->v[TC_DISP] = st->dsq_dispatches / secs;
			r->has[TC_DISP] = true;
			put_dist(r, &st->dsq_lat, TC_P50);
			if (st->dsq_depth.count) {
				scx_hist_dist(&st->dsq_depth, &d);
				r->v[TC_DEPTH] = d.avg;
				r->v[TC_DEPTHMAX] = d.max;
				r->has[TC_DEPTH] = r->has[TC_DEPTHMAX] = true;
			}
			if (st->vtime_max >= st->vtime_min && st->vtime_max) {
				r->v[TC_VTIME] = (double)(st->vtime_max - st->vtime_min);
				r->has[TC_VTIME] = true;
			}
			if (st->slice_used_n) {
				r->v[TC_SLICE] = (double)st->slice_used_ns / st->slice_used_n;
				r->has[TC_SLICE] = true;
			}
		}
	}
	m->nr_cpus = SCX_MAX(m->t[TT_CPU].n, s->nr_cpus);
	m->nr_llcs = m->t[TT_LLC].n;
	m->nr_nodes = m->t[TT_NODE].n;
}

void top_model_apply_topo(struct top_model *m, const struct scx_topo *topo)
{
	for (unsigned i = 0; i < m->t[TT_CPU].n; i++) {
		struct top_row *r = &m->t[TT_CPU].rows[i];
		const struct scx_cpu_topo *c = scx_topo__cpu(topo, (int)r->id);

		if (c) {
			r->parent = c->node;
			r->aux = c->llc;
		}
	}
	for (unsigned i = 0; i < m->t[TT_LLC].n; i++)
		m->t[TT_LLC].rows[i].parent = llc_node(topo, m->t[TT_LLC].rows[i].id);
}
