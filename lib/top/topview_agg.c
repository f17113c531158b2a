// SPDX-License-Identifier: GPL-2.0
/*
 * lib/agg snapshots (in-process aggregation of raw events) -> scx-top models.
 * The figures are agg's own (scx_agg_metric_get(), what scx-agg writes), put
 * into columns by topview_metric.c as an scx-agg snapshot line's are, so
 * `scx-events | scx-top` and `scx-events | scx-agg | scx-top` show the same
 * numbers.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg.h"
#include "core/topo.h"
#include "top/topview_int.h"

/* The metrics some view shows, by index into scx_agg_metrics[], with their members. */
static const struct top_member *shown[64];
static unsigned nr_shown, shown_idx[64];
static pthread_once_t shown_once = PTHREAD_ONCE_INIT;

static void shown_index(void)
{
	for (unsigned i = 0; i < scx_agg_nr_metrics && nr_shown < SCX_ARRAY_SIZE(shown); i++) {
		const char *n = scx_agg_metrics[i].name;
		const struct top_member *mb = top_member_find(n, (unsigned)strlen(n));

		if (mb) {
			shown[nr_shown] = mb;
			shown_idx[nr_shown++] = i;
		}
	}
}

/* The figures agg computed for group g, into r's columns. */
static void fill(struct top_row *r, const struct scx_agg_snap *s, const struct scx_agg_group *g,
		 double secs)
{
	struct top_fill f = { .secs = secs, .dsq = g->by == SCX_AGG_DSQ, .sirq = -1 };

	pthread_once(&shown_once, shown_index);
	for (unsigned k = 0; k < nr_shown; k++) {
		const struct top_member *mb = shown[k];
		struct scx_dist d;
		double v;

		/* a quantile costs a pass over a histogram: only those shown here */
		if ((mb->key == K_WAKE_LAT && f.dsq) ||
		    ((mb->key == K_DSQ_LAT || mb->key == K_DSQ_DEPTH) && !f.dsq))
			continue;
		if (!scx_agg_metric_get(s, g, shown_idx[k], &v, &d))
			continue;
		if (scx_agg_metrics[shown_idx[k]].kind == SCX_AGG_M_DIST ||
		    scx_agg_metrics[shown_idx[k]].kind == SCX_AGG_M_DISTN) {
			struct top_dist td = {
				.count = d.count,
				.avg = d.avg,
				.p50 = d.p50,
				.p90 = d.p90,
				.p99 = d.p99,
				.max = d.max,
				.have = ~0u,
			};

			top_fill_metric(r, &f, mb, 0, &td);
		} else {
			top_fill_metric(r, &f, mb, v, NULL);
		}
	}
	top_fill_done(r, &f, g->by <= SCX_AGG_NODE ? SCX_MAX(g->nr, 1u) : 1);
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
		[SCX_AGG_CPU] = TT_CPU,	   [SCX_AGG_LLC] = TT_LLC,	 [SCX_AGG_NODE] = TT_NODE,
		[SCX_AGG_PID] = TT_THREAD, [SCX_AGG_TGID] = TT_PROC,	 [SCX_AGG_COMM] = TT__COUNT,
		[SCX_AGG_DSQ] = TT_DSQ,	   [SCX_AGG_CGROUP] = TT_CGROUP,
	};

	top_model_reset(m);
	strcpy(m->source, "events");
	m->start_ns = s->start_ns;
	m->end_ns = s->end_ns;
	m->seq = s->seq + 1;
	m->events = s->events;
	m->lost = s->lost;
	m->tasks_dropped = s->tasks_dropped;
	m->scx = s->scx;
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
			case SCX_AGG_LLC:
				parent = llc_node(topo, g->key);
				break;
			case SCX_AGG_PID:
				parent = g->tgid;
				break;
			}
			r = top_table_add(&m->t[tt[by]], g->key, parent);
			if (by == SCX_AGG_CPU) {
				c = topo ? scx_topo__cpu(topo, (int)g->key) : NULL;
				r->aux = c ? c->llc : 0;
			}
			if (by == SCX_AGG_PID || by == SCX_AGG_TGID)
				memcpy(r->label, g->comm, SCX_COMM_LEN);
			if (by == SCX_AGG_CGROUP)
				top_label_path(r, g->name);
			if (by == SCX_AGG_TGID) {
				r->v[TC_THREADS] = g->nr;
				r->has[TC_THREADS] = true;
			}
			fill(r, s, g, secs);
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
