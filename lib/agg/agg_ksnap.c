// SPDX-License-Identifier: GPL-2.0
/* Kernel snapshots into the engine's CPU, cgroup and DSQ groups (see agg_ksnap.h). */
#include <string.h>

#include "agg/agg_int.h"
#include "agg/agg_ksnap.h"

static void add_hist(struct scx_hist *h, unsigned skip, unsigned bit,
		     const struct scx_ksnap_hist *kh)
{
	if (!(skip & bit))
		scx_ksnap_hist_to(kh, h);
}

/* The counters a cpu and a cgroup both have (up to busy_ns), and their latencies. */
static void add_common(struct scx_agg_stats *s, const uint64_t *c, const struct scx_ksnap_hist *h,
		       unsigned skip)
{
	s->switches += c[SCX_KS_SWITCHES];
	s->voluntary += c[SCX_KS_VOLUNTARY];
	s->involuntary += c[SCX_KS_INVOLUNTARY];
	s->slices += c[SCX_KS_SLICES];
	s->wakeups += c[SCX_KS_WAKEUPS];
	s->wakeups_new += c[SCX_KS_WAKEUPS_NEW];
	s->migrations += c[SCX_KS_MIGRATIONS];
	s->migr_cross_llc += c[SCX_KS_MIGR_CROSS_LLC];
	s->migr_cross_node += c[SCX_KS_MIGR_CROSS_NODE];
	s->busy_ns += c[SCX_KS_BUSY_NS];
	add_hist(&s->wake_lat, skip, SCX_AGG_HIST_WAKE_LAT, &h[SCX_KSH_WAKE_LAT]);
	add_hist(&s->rq_delay, skip, SCX_AGG_HIST_RQ_DELAY, &h[SCX_KSH_RQ_DELAY]);
}

bool scx_agg_ksnap_report_ok(const char *name)
{
	/*
	 * cgroup-latency: its columns are the cgroup groups' figures ("threads"
	 * is 0); dsq: it says unknown for what the DSQ groups lack
	 */
	return !strcmp(name, "cgroup-latency") || !strcmp(name, "dsq");
}

int scx_agg__add_ksnap(struct scx_agg *a, const struct scx_ksnap *k, bool own_interval)
{
	unsigned skip = a->o.skip_hists | a->o.skip_cpu_hists;
	uint64_t lost = k->dropped_tasks + k->dropped_cpu + k->missed + k->dropped_cg_values +
			k->dropped_dsq_values;
	int err = agg_ksnap_begin(a, k->start_ns, own_interval);

	if (err)
		return err;
	/* the kernel counted these (and idle time, queues and wc_loss with them) */
	a->snap.seen |= SCX_AGG_SEEN_KERNEL | SCX_AGG_SEEN(SCX_EV_SWITCH) | SCX_AGG_SEEN_WAKE |
			SCX_AGG_SEEN_MIGRATE;
	for (unsigned i = 0; i < k->nr_cpus; i++) {
		const struct scx_ksnap_cpu *kc = &k->cpus[i];
		struct scx_agg_stats *s = agg_ksnap_cpu(a, kc->cpu);

		if (!s) {
			lost += kc->c[SCX_KS_SWITCHES] + kc->c[SCX_KS_WAKEUPS];
			continue;
		}
		add_common(s, kc->c, kc->h, skip);
		s->idle_ns += kc->c[SCX_KS_IDLE_NS];
		s->rq_depth_ns += kc->c[SCX_KS_RQ_DEPTH_NS];
		s->rq_depth_max = SCX_MAX(s->rq_depth_max, kc->c[SCX_KS_RQ_DEPTH_MAX]);
		s->wc_loss_ns += kc->c[SCX_KS_WC_LOSS_NS];
		add_hist(&s->slice, skip, SCX_AGG_HIST_SLICE, &kc->h[SCX_KSH_SLICE]);
		/* each value is a task run from a DSQ, as the event mode counts them */
		add_hist(&s->dsq_lat, skip, SCX_AGG_HIST_DSQ_LAT, &kc->h[SCX_KSH_DSQ_LAT]);
		s->dsq_dispatches += kc->h[SCX_KSH_DSQ_LAT].count;
	}
	for (unsigned i = 0; i < k->nr_cgroups; i++) {
		const struct scx_ksnap_cgroup *kc = &k->cgroups[i];
		struct scx_agg_stats *s = agg_ksnap_cgroup(a, kc->id);

		if (!s)
			break; /* cgroups not asked for */
		add_common(s, kc->c, kc->h, a->o.skip_hists);
	}
	for (unsigned i = 0; i < k->nr_dsqs; i++) {
		const struct scx_ksnap_dsq *kd = &k->dsqs[i];
		struct scx_agg_stats *s = agg_ksnap_dsq(a, kd->id, kd->other);

		/* as the event mode's DSQ groups: a dispatch per value */
		add_hist(&s->dsq_lat, a->o.skip_hists, SCX_AGG_HIST_DSQ_LAT, &kd->lat);
		s->dsq_dispatches += kd->lat.count;
	}
	if (lost)
		scx_agg__note_lost(a, -1, lost);
	a->snap.late_intervals += k->late_intervals;
	return agg_ksnap_end(a, k->end_ns, own_interval);
}
