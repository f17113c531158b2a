// SPDX-License-Identifier: GPL-2.0
/*
 * Reports on cgroups: cgroup-latency (run-queue delay and wakeup latency
 * per cgroup) and cgroup-preemptions (tasks of one cgroup preempted by
 * tasks of another).  Cgroups are the engine's, folded to --cgroup-depth;
 * the definitions are in man/scx-agg.1.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg_report_int.h"

static void finish(struct scx_agg *a, struct scx_table **out, struct scx_table *t, int sort_col)
{
	if (sort_col >= 0)
		scx_table_sort_desc(t, sort_col);
	scx_table_limit(t, a->o.limit);
	scx_table_append(out, t);
}

static const char *cg_name(const struct scx_agg *a, const struct grp *g)
{
	return g == a->cgroup.other ? "(other)" : agg_cgroup_key_name(a, (uint32_t)g->key);
}

AGG_REPORT(agg_rep_cgroup_latency)
{
	static const char *const cols[] = {
		"cgroup:s:key", "threads:u",	 "runtime:ns",	  "wakeups:u", "preempted:u",
		"rq_p99:ns",	"rq_delay:dist", "wake_lat:dist", NULL,
	};
	struct scx_table *t = scx_table_new(r, "cgroups", cols);
	const struct grp *g;
	size_t pos = 0;
	bool w = agg_seen(a, SCX_AGG_SEEN_WAKE); /* else the waits are unknown */

	while ((g = agg_gtab_next(&a->cgroup, &pos))) {
		unsigned row = scx_table_row(t);

		scx_table_str(t, row, 0, cg_name(a, g));
		scx_table_uint(t, row, 1, g->nr);
		scx_table_uint(t, row, 2, g->s.busy_ns);
		known_uint(t, row, 3, w, g->s.wakeups);
		scx_table_uint(t, row, 4, g->s.involuntary);
		known_uint(t, row, 5, w, scx_hist_quantile(&g->s.rq_delay, 0.99));
		known_hist(t, row, 6, w, &g->s.rq_delay);
		known_hist(t, row, 7, w, &g->s.wake_lat);
	}
	finish(a, out, t, 5);
	return 0;
}

/* A cgroup of the preemption table, summed over the pairs it was preempted in. */
struct victim {
	uint64_t within, by_other, wait_other;
};

AGG_REPORT(agg_rep_cgroup_preemptions)
{
	static const char *const pc[] = {
		"preempted:s:key", "preemptor:s:key", "count:u",     "waited:u",
		"wait:ns",	   "wait_avg:ns",     "wait_max:ns", NULL,
	};
	static const char *const cc[] = {
		"cgroup:s:key",	      "preempted:u",	  "by_other:u",
		"by_other_share:pct", "wait_by_other:ns", NULL,
	};
	struct scx_table *p = scx_table_new(r, "pairs", pc), *c = scx_table_new(r, "cgroups", cc);
	struct victim *v = scx_xcalloc(a->cg.nr + 1, sizeof(*v));
	const struct pair *pr;
	size_t pos = 0;

	/* preemptions past the pair table's bound are in no row: the summary counts them */
	agg_pairs_summary(a, r, &a->cg.preempts, true, out);
	while ((pr = scx_map_next(&a->cg.preempts.map, &pos, NULL))) {
		uint64_t k = pr->key - 1;
		uint32_t vk = (uint32_t)(k >> 32), pk = (uint32_t)k;
		struct victim *vi = &v[vk < a->cg.nr ? vk : a->cg.nr];
		unsigned row;

		if (vk == pk) {
			vi->within += pr->count;
			continue;
		}
		vi->by_other += pr->count;
		vi->wait_other += pr->sum_ns;
		row = scx_table_row(p);
		scx_table_str(p, row, 0, agg_cgroup_key_name(a, vk));
		scx_table_str(p, row, 1, agg_cgroup_key_name(a, pk));
		scx_table_uint(p, row, 2, pr->count);
		scx_table_uint(p, row, 3, pr->runs);
		scx_table_uint(p, row, 4, pr->sum_ns);
		scx_table_uint(p, row, 5, pr->runs ? pr->sum_ns / pr->runs : 0);
		scx_table_uint(p, row, 6, pr->max_ns);
	}
	finish(a, out, p, 2);
	for (unsigned k = 0; k <= a->cg.nr; k++) {
		uint64_t all = v[k].within + v[k].by_other;
		unsigned row;

		if (!all)
			continue;
		row = scx_table_row(c);
		scx_table_str(c, row, 0, agg_cgroup_key_name(a, k));
		scx_table_uint(c, row, 1, all);
		scx_table_uint(c, row, 2, v[k].by_other);
		scx_table_num(c, row, 3, 100.0 * v[k].by_other / all);
		scx_table_uint(c, row, 4, v[k].wait_other);
	}
	finish(a, out, c, 2);
	free(v);
	return 0;
}
